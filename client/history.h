/*
 * history.h: the history a run observed, in memory: transactions (Txn) of
 * micro-operations (Op), and the invocation and completion records
 * (HistEvent) in the order Jepsen would number them.
 */
#ifndef ISOGRAPH_RECORD_HISTORY_H
#define ISOGRAPH_RECORD_HISTORY_H

#include "common.h"

#include <pthread.h>
#include <time.h>

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

void		history_init(History *h);
int64_t		history_now(History *h);
void		history_invoke(History *h, Txn *t);
void		history_complete(History *h, Txn *t, TxnStatus st, const char *error);
void		history_counts(History *h, long *ok, long *fail, long *info);
Txn		   *txn_new(int64_t process, int nops);
void		txn_clear_reads(Txn *t);

#endif
