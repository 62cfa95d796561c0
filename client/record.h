/*
 * record.h: isograph-record, a libpq client that runs list-append or
 * rw-register transactions against a live PostgreSQL-protocol server,
 * records the history it observed and stores it in isograph's tables.
 *
 * Files:
 *   record.c    main, options, run orchestration, progress and summary
 *   history.c   the in-memory history (invoke/completion records, indices)
 *   workload.c  workload table, key pool, random transactions, version order
 *   session.c   one client session (thread): run transactions, classify errors
 *   schedule.c  deterministic step-by-step schedules over two sessions
 *   store.c     COPY the history into the store database, run iso_levels
 *   edn_out.c   Jepsen EDN writer
 */
#ifndef ISOGRAPH_RECORD_H
#define ISOGRAPH_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <pthread.h>
#include <libpq-fe.h>

#define RECORD_VERSION "0.1.0"

/* exit statuses */
#define EXIT_RUNTIME 1			/* connection, SQL or store failure */
#define EXIT_USAGE 2			/* bad options */

typedef enum
{
	WL_LIST_APPEND,
	WL_RW_REGISTER
} WorkloadKind;

typedef enum
{
	ISO_RC,
	ISO_RR,
	ISO_SER
} IsoLevel;

typedef enum
{
	OP_R,
	OP_W,
	OP_APPEND
} OpType;

typedef enum
{
	ST_PENDING,
	ST_OK,
	ST_FAIL,
	ST_INFO
} TxnStatus;

typedef struct Op
{
	OpType		type;
	int64_t		key;
	int64_t		value;			/* w / append */
	/* what a read returned (kept only for ok transactions on output) */
	bool		has_read;
	bool		read_nil;		/* register: NULL */
	int64_t		read_val;		/* register */
	int64_t    *read_list;		/* list-append */
	int			read_len;
	/* register write: RETURNING prev (the version it overwrote) */
	bool		has_prev;
	bool		prev_nil;
	int64_t		prev;
} Op;

typedef struct Txn
{
	int64_t		process;
	TxnStatus	status;
	int64_t		invoke_time;	/* ns since the run started */
	int64_t		complete_time;
	int64_t		invoke_index;
	int64_t		complete_index; /* = txn_id */
	int			nops;
	Op		   *ops;
	char		error[64];		/* SQLSTATE or reason for fail / info */
} Txn;

/* One record of the Jepsen history: an invocation or a completion. */
typedef struct HistEvent
{
	Txn		   *txn;
	bool		completion;
} HistEvent;

typedef struct History
{
	pthread_mutex_t mu;
	HistEvent  *events;
	size_t		nevents;
	size_t		cap;
	struct timespec t0;
	long		n_ok;
	long		n_fail;
	long		n_info;
	/* SQLSTATE counts of fail outcomes, for the summary */
	char		codes[16][8];
	long		code_n[16];
	int			ncodes;
} History;

typedef struct Options
{
	const char *target;
	const char *store;
	bool		store_is_target;	/* --store not given */
	IsoLevel	isolation;
	WorkloadKind workload;
	int			clients;
	double		duration;
	long		txns;
	uint64_t	seed;
	bool		seed_given;
	const char *name;
	int			keys;
	int			min_txn_len;
	int			max_txn_len;
	int			writes_per_key;
	double		read_fraction;
	bool		ascending_writes;
	const char *table;
	const char *edn;
	bool		no_store;
	bool		check;
	const char *schedule;
	double		kill_every;
	double		progress;
	bool		quiet;
	bool		final_read;
} Options;

/* history.c */
void		history_init(History *h);
int64_t		history_now(History *h);
void		history_invoke(History *h, Txn *t);
void		history_complete(History *h, Txn *t, TxnStatus st, const char *error);
void		history_counts(History *h, long *ok, long *fail, long *info);
Txn		   *txn_new(int64_t process, int nops);
void		txn_clear_reads(Txn *t);

/* workload.c */
typedef struct Workload Workload;
Workload   *workload_new(const Options *o, PGconn *admin);
bool		workload_setup_table(Workload *w);
Txn		   *workload_gen(Workload *w, uint64_t *rng, int64_t process, char *err,
						 size_t errlen);
int64_t		workload_max_key(Workload *w);
const char *workload_table(Workload *w);
bool		workload_final_read(Workload *w, PGconn *conn, History *h, int64_t process);
/* register version order: fills keys/values, returns count */
size_t		workload_versions(Workload *w, History *h, int64_t **keys, int64_t **vals,
							  int **positions);
uint64_t	rng_next(uint64_t *s);
double		rng_unit(uint64_t *s);

/* session.c */
typedef struct RunState RunState;
struct RunState
{
	const Options *opt;
	History    *hist;
	Workload   *wl;
	volatile int stop;			/* set by the main thread */
	volatile int fatal;			/* set by a session on an unexpected error */
	pthread_mutex_t mu;
	char		fatal_msg[512];
	long		started;		/* transactions handed out (for --txns) */
	int		   *backend_pids;	/* per session, for the nemesis */
	int64_t		next_process_bump;
};

typedef struct Session
{
	RunState   *rs;
	int			id;
	int64_t		process;
	uint64_t	rng;
	PGconn	   *conn;
	long		reconnects;
} Session;

void	   *session_main(void *arg);
PGconn	   *connect_db(const char *dsn, const char *appname, char *err, size_t errlen);
const char *iso_begin_sql(IsoLevel l);
const char *iso_name(IsoLevel l);
void		run_fatal(RunState *rs, const char *fmt,...) __attribute__((format(printf, 2, 3)));

/* schedule.c */
int			schedule_run(const Options *o, History *h);

/* store.c */
PGconn	   *store_connect(const Options *o, char *schema, size_t schemalen);
bool		store_name_free(PGconn *c, const char *schema, const char *name);
int64_t		store_history(PGconn *c, const char *schema, const Options *o, History *h,
						  Workload *w, const char *metadata);
bool		store_print_levels(PGconn *c, const char *schema, int64_t id, FILE *out);

/* edn_out.c */
bool		edn_write(const char *path, History *h, WorkloadKind wk);

/* misc */
void		errmsg_out(const char *fmt,...) __attribute__((format(printf, 1, 2)));
void	   *xmalloc(size_t n);
void	   *xrealloc(void *p, size_t n);
char	   *xstrdup(const char *s);
bool		parse_int_array(const char *s, int64_t **out, int *len);

#endif
