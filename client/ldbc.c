/*
 * ldbc.c: --ldbc: the ten LDBC SNB ACID tests of Waudby et al., "Towards
 * Testing ACID Compliance in the LDBC Social Network Benchmark" (TPCTC
 * 2020), as the ldbc/ldbc_acid repository runs them on PostgreSQL: the
 * same tables (person, knows, post, likes), initial data, transactions,
 * numbers of write and read clients, sleeps and checks.  Each test runs
 * at each chosen level on a fresh schema (isograph_ldbc, dropped at the
 * end); every transaction is also recorded as micro-operations, stored as
 * a history and checked by isograph (iso_check 'ser' and iso_levels), so
 * the test's own verdict and isograph's can be compared.
 *
 * How the tests' reads and writes become micro-operations (rw-register,
 * except G0):
 *   - a person row is a register; its value is the row's tag, a number
 *     unique over the run that every write of the row sets (tag = $new,
 *     prev_tag = tag, RETURNING prev_tag: the version it overwrote, which
 *     gives isograph the server's version order).  The tests' own columns
 *     (version, numFriends, value) keep LDBC's values, which need not be
 *     unique (G1b writes 0 then 1, a lost update writes a value twice).
 *     An in-place update (version = version + 1) is a read of the version
 *     it overwrote followed by a write.
 *   - a knows edge (LU) or a like (PMP) created by the run is a register
 *     written once; a predicate read (how many likes, how many edges) is
 *     recorded as item reads of every row the predicate could have found
 *     (the run knows them all: the writers' like ids, the edge ids the
 *     sequence gave), nil when not found.  That is how isograph, which has
 *     no predicates, sees PMP.
 *   - G0: versionHistory lists are list-append keys (G0 is a list-append
 *     history).
 *
 * --ldbc-schedule replaces the concurrent clients by one fixed
 * interleaving of two sessions per test (no step ever waits for a lock),
 * which forces the anomaly wherever the level lets it through: the
 * verdicts are then deterministic.
 */
#include "ldbc.h"

#include "history.h"
#include "rng.h"
#include "store.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SCHEMA "isograph_ldbc"

typedef enum
{
	T_G0, T_G1A, T_G1B, T_G1C, T_IMP, T_PMP, T_OTV, T_FR, T_LU, T_WS, NTESTS
} TestId;

static const char *const test_names[NTESTS] = {
	"G0", "G1a", "G1b", "G1c", "IMP", "PMP", "OTV", "FR", "LU", "WS"
};

/*
 * Each test: its write and read clients (as ldbc_acid's AcidTest), the
 * LDBC sleep in ms (scaled by --ldbc-sleep / 250), and the isograph
 * anomalies that are this test's anomaly.
 */
typedef struct TestDef
{
	int			nw;
	int			nr;
	int			sleep_ms;
	const char *iso_names[4];
	const char *ldbc_name;		/* what the test detects */
} TestDef;

static const TestDef defs[NTESTS] = {
	[T_G0] = {200, 0, 0, {"G0"}, "dirty write"},
	[T_G1A] = {5, 5, 250, {"G1a"}, "aborted read"},
	[T_G1B] = {10, 100, 1, {"G1b"}, "intermediate read"},
	[T_G1C] = {100, 0, 0, {"G1c"}, "circular information flow"},
	[T_IMP] = {10, 10, 250, {"internal", "G-single"}, "item-many-preceders"},
	[T_PMP] = {10, 10, 250, {"internal", "G-single"}, "predicate-many-preceders"},
	[T_OTV] = {1, 50, 250, {"internal", "G-single"}, "observed transaction vanishes"},
	[T_FR] = {1, 100, 250, {"internal", "G-single"}, "fractured read"},
	[T_LU] = {200, 0, 0, {"lost-update", "G-single"}, "lost update"},
	[T_WS] = {50, 0, 250, {"G2-item", "G-single", "lost-update"}, "write skew"},
};

#define OTV_WRITER_TXNS 100
#define WS_PAIRS 10
#define MAXV 12

/* What one task (a client's transaction, or OTV's writer) returned. */
typedef struct TaskRes
{
	bool		done;
	bool		ok;				/* committed */
	int64_t		v[MAXV];
} TaskRes;

typedef struct Task
{
	bool		writer;
	int			idx;			/* among the writers or the readers */
} Task;

typedef struct Ctx
{
	const Options *o;
	TestId		test;
	IsoLevel	lvl;
	History    *h;
	WorkloadKind wk;
	int			nw;
	int			nr;
	Task	   *tasks;
	TaskRes    *res;			/* per task */
	int			ntasks;
	int			next;			/* next task to hand out (under mu) */
	pthread_mutex_t mu;
	int64_t		uniq;			/* next tag (under mu) */
	volatile int fatal;
	char		fatal_msg[600];
	double		sleep_s;		/* this test's sleep */
	const char *begin_sql;		/* BEGIN ISOLATION LEVEL ... */
	/* the check */
	bool		ldbc_pass;
	char		detail[256];
	/* LU: edge ids the final read must cover */
	int64_t		max_edge;
} Ctx;

/* ------------------------------------------------------------------ */

bool
ldbc_test_name_ok(const char *a)
{
	if (strcasecmp(a, "all") == 0)
		return true;
	for (int i = 0; i < NTESTS; i++)
		if (strcasecmp(a, test_names[i]) == 0)
			return true;
	return false;
}

static void
ctx_fatal(Ctx *c, const char *fmt,...) __attribute__((format(printf, 2, 3)));

static void
ctx_fatal(Ctx *c, const char *fmt,...)
{
	va_list		ap;

	pthread_mutex_lock(&c->mu);
	if (!c->fatal)
	{
		va_start(ap, fmt);
		vsnprintf(c->fatal_msg, sizeof(c->fatal_msg), fmt, ap);
		va_end(ap);
		c->fatal = 1;
	}
	pthread_mutex_unlock(&c->mu);
}

static int64_t
new_tags(Ctx *c, int n)
{
	int64_t		t;

	pthread_mutex_lock(&c->mu);
	t = c->uniq;
	c->uniq += n;
	pthread_mutex_unlock(&c->mu);
	return t;
}

static void
note_edge(Ctx *c, int64_t e)
{
	pthread_mutex_lock(&c->mu);
	if (e > c->max_edge)
		c->max_edge = e;
	pthread_mutex_unlock(&c->mu);
}

static PGconn *
ldbc_connect(Ctx *c, const char *app)
{
	char		err[512];
	PGconn	   *conn = connect_db(c->o->target, app, err, sizeof(err));

	if (!conn)
	{
		ctx_fatal(c, "cannot connect to the target database: %s", err);
		return NULL;
	}
	/* bounded: a statement that hangs is a bug of the schedule, not a result */
	if (!sql_run_or_report(conn, "SET search_path = " SCHEMA ", pg_catalog", PGRES_COMMAND_OK) ||
		!sql_run_or_report(conn, "SET statement_timeout = '60s'", PGRES_COMMAND_OK))
	{
		ctx_fatal(c, "cannot set up a session on the target");
		PQfinish(conn);
		return NULL;
	}
	return conn;
}

/* ------------------------------------------------------------------ */
/* one transaction, recorded */

typedef struct Tx
{
	Ctx		   *c;
	PGconn	   *conn;
	Txn		   *t;
	int			cap;
	bool		failed;			/* a statement failed: the transaction is aborted */
	char		code[8];
} Tx;

static void
tx_begin(Tx *x, Ctx *c, PGconn *conn, int64_t process)
{
	PGresult   *r;

	memset(x, 0, sizeof(*x));
	x->c = c;
	x->conn = conn;
	x->cap = 8;
	x->t = txn_new(process, x->cap);
	x->t->nops = 0;
	history_invoke(c->h, x->t);
	r = PQexec(conn, c->begin_sql);
	if (PQresultStatus(r) != PGRES_COMMAND_OK)
	{
		ctx_fatal(c, "BEGIN failed: %s", PQerrorMessage(conn));
		x->failed = true;
	}
	PQclear(r);
}

/* A failed statement: serialization failures and deadlocks abort the transaction. */
static PGresult *
tx_exec(Tx *x, const char *sql, int n, const char *const *params)
{
	PGresult   *r;
	ExecStatusType st;
	const char *code;

	if (x->failed || x->c->fatal)
		return NULL;
	r = PQexecParams(x->conn, sql, n, NULL, params, NULL, NULL, 0);
	st = PQresultStatus(r);
	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
		return r;
	code = PQresultErrorField(r, PG_DIAG_SQLSTATE);
	x->failed = true;
	if (code && (strcmp(code, "40001") == 0 || strcmp(code, "40P01") == 0))
		snprintf(x->code, sizeof(x->code), "%s", code);
	else
		ctx_fatal(x->c, "%s failed: %s", sql, PQerrorMessage(x->conn));
	PQclear(r);
	return NULL;
}

static Op  *
tx_op(Tx *x, OpType type, int64_t key)
{
	Txn		   *t = x->t;
	Op		   *op;

	if (t->nops == x->cap)
	{
		t->ops = xrealloc(t->ops, sizeof(Op) * x->cap * 2);
		memset(t->ops + x->cap, 0, sizeof(Op) * x->cap);
		x->cap *= 2;
	}
	op = &t->ops[t->nops++];
	op->type = type;
	op->key = key;
	return op;
}

/* r key = tag (nil: absent row) */
static void
rec_read(Tx *x, int64_t key, bool nil, int64_t tag)
{
	Op		   *op = tx_op(x, OP_R, key);

	op->has_read = true;
	op->read_nil = nil;
	op->read_val = tag;
}

/* w key = tag; has_prev: the version it overwrote (nil: the row is new) */
static void
rec_write(Tx *x, int64_t key, int64_t tag, bool has_prev, bool prev_nil, int64_t prev)
{
	Op		   *op = tx_op(x, OP_W, key);

	op->value = tag;
	op->has_prev = has_prev;
	op->prev_nil = prev_nil;
	op->prev = prev;
}

/* an in-place update: it read the version it overwrote */
static void
rec_rmw(Tx *x, int64_t key, int64_t tag, int64_t prev)
{
	rec_read(x, key, false, prev);
	rec_write(x, key, tag, true, false, prev);
}

static void
rec_append(Tx *x, int64_t key, int64_t v)
{
	tx_op(x, OP_APPEND, key)->value = v;
}

/* COMMIT (ROLLBACK if a statement failed); true if it committed. */
static bool
tx_commit(Tx *x)
{
	PGresult   *r;
	bool		ok;

	if (x->c->fatal)
		return false;
	if (x->failed)
	{
		PQclear(PQexec(x->conn, "ROLLBACK"));
		history_complete(x->c->h, x->t, ST_FAIL, x->code[0] ? x->code : "ROLLBACK");
		return false;
	}
	r = PQexec(x->conn, "COMMIT");
	ok = committed(r);
	if (!ok)
	{
		const char *code = PQresultErrorField(r, PG_DIAG_SQLSTATE);

		if (PQresultStatus(r) == PGRES_COMMAND_OK)
			code = "ROLLBACK";
		else if (!code || (strcmp(code, "40001") != 0 && strcmp(code, "40P01") != 0))
		{
			ctx_fatal(x->c, "COMMIT failed: %s", PQerrorMessage(x->conn));
			PQclear(r);
			return false;
		}
		history_complete(x->c->h, x->t, ST_FAIL, code);
	}
	else
		history_complete(x->c->h, x->t, ST_OK, NULL);
	PQclear(r);
	return ok;
}

/* The client's own abort (G1a's writers). */
static void
tx_rollback(Tx *x)
{
	PQclear(PQexec(x->conn, "ROLLBACK"));
	if (!x->c->fatal)
		history_complete(x->c->h, x->t, ST_FAIL, x->failed && x->code[0] ? x->code : "ROLLBACK");
}

static int64_t
getv(PGresult *r, int row, int col)
{
	return strtoll(PQgetvalue(r, row, col), NULL, 10);
}

static void
pause_s(Ctx *c)
{
	if (c->sleep_s > 0)
		sleep_s(c->sleep_s);
}

#define P1(a) ((const char *const[]) {a})
#define P2(a, b) ((const char *const[]) {a, b})
#define P3(a, b, c) ((const char *const[]) {a, b, c})

/* ------------------------------------------------------------------ */
/* the data sets */

/* keys: a person row is its id; LU's edges and PMP's likes are above these */
#define KEY_EDGE(id) (1000 + (id))
#define KEY_LIKE(id) (100 + (id))
#define G0_KNOWS 3

/* The initial rows and their tags, as an ok transaction of process 0. */
static bool
init_persons(Ctx *c, PGconn *admin, int n, const char *col, const int64_t *vals)
{
	char		sql[256];
	char		a[24],
				b[24],
				t[24];
	Tx			x;

	tx_begin(&x, c, admin, 0);
	for (int i = 1; i <= n; i++)
	{
		int64_t		tag = new_tags(c, 1);
		PGresult   *r;

		snprintf(a, sizeof(a), "%d", i);
		snprintf(b, sizeof(b), "%lld", (long long) vals[i - 1]);
		snprintf(t, sizeof(t), "%lld", (long long) tag);
		snprintf(sql, sizeof(sql), "INSERT INTO person (id, %s, tag) VALUES ($1, $2, $3)", col);
		r = tx_exec(&x, sql, 3, P3(a, b, t));
		if (!r)
			break;
		PQclear(r);
		rec_write(&x, i, tag, true, true, 0);
	}
	return tx_commit(&x);
}

static bool
setup(Ctx *c, PGconn *admin)
{
	static const char *const ddl[] = {
		"DROP SCHEMA IF EXISTS " SCHEMA " CASCADE",
		"CREATE SCHEMA " SCHEMA,
		"SET search_path = " SCHEMA ", pg_catalog",
		/* LDBC's tables, with primary keys, a like id, and the tags */
		"CREATE TABLE person (id bigint PRIMARY KEY, numFriends bigint, value bigint, "
		"version bigint, versionHistory bigint[], name varchar, emails varchar[], "
		"tag bigint, prev_tag bigint)",
		"CREATE TABLE knows (person1id bigint NOT NULL, person2id bigint NOT NULL, "
		"creationDate varchar, versionHistory bigint[], PRIMARY KEY (person1id, person2id))",
		"CREATE TABLE forum (id bigint PRIMARY KEY, moderatorid bigint)",
		"CREATE TABLE post (id bigint PRIMARY KEY, forumid bigint)",
		"CREATE TABLE likes (id bigint PRIMARY KEY, personid bigint NOT NULL, "
		"postid bigint NOT NULL)",
		"CREATE SEQUENCE id_seq INCREMENT BY -1 START -1",
		NULL
	};
	int64_t		v[2 * WS_PAIRS];

	for (int i = 0; ddl[i]; i++)
		if (!sql_run_or_report(admin, ddl[i], PGRES_COMMAND_OK))
			return false;
	switch (c->test)
	{
		case T_G0:
			return sql_run_or_report(admin,
									 "INSERT INTO person (id, versionHistory) VALUES (1, '{}'), (2, '{}');"
									 "INSERT INTO knows (person1id, person2id, versionHistory) "
									 "VALUES (1, 2, '{}'), (2, 1, '{}')", PGRES_COMMAND_OK);
		case T_G1A:
			v[0] = 1;
			return init_persons(c, admin, 1, "version", v);
		case T_G1B:
			v[0] = 99;
			return init_persons(c, admin, 1, "version", v);
		case T_G1C:
			v[0] = v[1] = 0;
			return init_persons(c, admin, 2, "version", v);
		case T_IMP:
			v[0] = 1;
			return init_persons(c, admin, 1, "version", v);
		case T_PMP:
			return sql_run_or_report(admin, "INSERT INTO person (id) VALUES (1);"
									 "INSERT INTO post (id) VALUES (1)", PGRES_COMMAND_OK);
		case T_OTV:
		case T_FR:
			v[0] = v[1] = v[2] = v[3] = 0;
			if (!init_persons(c, admin, 4, "version", v))
				return false;
			if (c->test == T_FR)	/* FR's queries take knows as directed */
				return sql_run_or_report(admin, "INSERT INTO knows (person1id, person2id) "
										 "VALUES (1, 2), (2, 3), (3, 4), (4, 1)",
										 PGRES_COMMAND_OK);
			return sql_run_or_report(admin, "INSERT INTO knows (person1id, person2id) "
									 "VALUES (1, 2), (2, 3), (3, 4), (4, 1);"
									 "INSERT INTO knows (person2id, person1id) "
									 "VALUES (1, 2), (2, 3), (3, 4), (4, 1)", PGRES_COMMAND_OK);
		case T_LU:
			v[0] = 0;
			return init_persons(c, admin, 1, "numFriends", v);
		case T_WS:
			for (int i = 0; i < 2 * WS_PAIRS; i++)
				v[i] = i % 2 == 0 ? 70 : 80;
			return init_persons(c, admin, 2 * WS_PAIRS, "value", v);
		default:
			return false;
	}
}

/* ------------------------------------------------------------------ */
/* the transactions */

/* UPDATE person SET <set>, prev_tag = tag, tag = $1 WHERE id = $2 RETURNING prev_tag */
static bool
write_person(Tx *x, int64_t id, const char *set, bool rmw, bool final)
{
	char		sql[256];
	char		a[24],
				b[24];
	int64_t		tag = new_tags(x->c, 1);
	PGresult   *r;

	snprintf(sql, sizeof(sql),
			 "UPDATE person SET %s, prev_tag = tag, tag = $1 WHERE id = $2 RETURNING prev_tag", set);
	snprintf(a, sizeof(a), "%lld", (long long) tag);
	snprintf(b, sizeof(b), "%lld", (long long) id);
	r = tx_exec(x, sql, 2, P2(a, b));
	if (!r)
		return false;
	if (PQntuples(r) != 1)
	{
		ctx_fatal(x->c, "%s: %d rows", sql, PQntuples(r));
		PQclear(r);
		return false;
	}
	if (rmw)
		rec_rmw(x, id, tag, getv(r, 0, 0));
	else
		rec_write(x, id, tag, final, false, getv(r, 0, 0));
	PQclear(r);
	return true;
}

/* SELECT <col>, tag FROM person WHERE id = $1: the column's value; r id = tag */
static bool
read_person(Tx *x, int64_t id, const char *col, int64_t *val)
{
	char		sql[128];
	char		a[24];
	PGresult   *r;

	snprintf(sql, sizeof(sql), "SELECT %s, tag FROM person WHERE id = $1", col);
	snprintf(a, sizeof(a), "%lld", (long long) id);
	r = tx_exec(x, sql, 1, P1(a));
	if (!r)
		return false;
	if (PQntuples(r) != 1)
	{
		ctx_fatal(x->c, "%s: %d rows", sql, PQntuples(r));
		PQclear(r);
		return false;
	}
	*val = getv(r, 0, 0);
	rec_read(x, id, false, getv(r, 0, 1));
	PQclear(r);
	return true;
}

static void
g0_write(Tx *x, int64_t v)
{
	static const char *const sql[3] = {
		"UPDATE person SET versionHistory = versionHistory || $1::bigint WHERE id = 1",
		"UPDATE person SET versionHistory = versionHistory || $1::bigint WHERE id = 2",
		"UPDATE knows SET versionHistory = versionHistory || $1::bigint "
		"WHERE person1id = 1 AND person2id = 2"
	};
	static const int64_t keys[3] = {1, 2, G0_KNOWS};
	char		a[24];

	snprintf(a, sizeof(a), "%lld", (long long) v);
	for (int i = 0; i < 3; i++)
	{
		PGresult   *r = tx_exec(x, sql[i], 1, P1(a));

		if (!r)
			return;
		PQclear(r);
		rec_append(x, keys[i], v);
	}
}

/* G1b's writer: version = 0 (intermediate), then version = 1 */
static void
g1b_write(Tx *x, Ctx *c)
{
	int64_t		first;

	if (!write_person(x, 1, "version = 0", false, false))
		return;
	first = x->t->ops[x->t->nops - 1].prev;
	if (c->sleep_s > 0)
		sleep_s(c->sleep_s);
	if (write_person(x, 1, "version = 1", false, true))
		x->t->ops[x->t->nops - 1].prev = first;	/* the version before the transaction */
}

static void
g1c_txn(Tx *x, int64_t txn_id, int64_t p1, int64_t p2, TaskRes *res)
{
	char		set[64];

	snprintf(set, sizeof(set), "version = %lld", (long long) txn_id);
	if (write_person(x, p1, set, false, true))
		read_person(x, p2, "version", &res->v[0]);
}

static void
pmp_insert(Tx *x, int64_t like)
{
	char		a[24];
	PGresult   *r;

	snprintf(a, sizeof(a), "%lld", (long long) like);
	r = tx_exec(x, "INSERT INTO likes (id, personid, postid) SELECT $1, pe.id, po.id "
				"FROM person pe, post po WHERE pe.id = 1 AND po.id = 1", 1, P1(a));
	if (!r)
		return;
	if (strcmp(PQcmdTuples(r), "1") == 0)
		rec_write(x, KEY_LIKE(like), like, true, true, 0);
	PQclear(r);
}

/* PMP's predicate read: the likes of post 1; its count, and each candidate like read */
static bool
pmp_read(Tx *x, int64_t *count)
{
	PGresult   *r = tx_exec(x, "SELECT l.id FROM post po, likes l, person pe WHERE po.id = 1 "
							"AND po.id = l.postid AND l.personid = pe.id", 0, NULL);
	int			nw = x->c->nw;
	bool	   *found;

	if (!r)
		return false;
	*count = PQntuples(r);
	found = xmalloc(sizeof(bool) * (nw + 1));
	for (int i = 0; i < PQntuples(r); i++)
	{
		int64_t		id = getv(r, i, 0);

		if (id >= 1 && id <= nw)
			found[id] = true;
	}
	for (int64_t id = 1; id <= nw; id++)
		rec_read(x, KEY_LIKE(id), !found[id], id);
	free(found);
	PQclear(r);
	return true;
}

/* OTV's writer: find the 4-cycle through a person, add 1 to every version on it */
static void
otv_write(Tx *x, int64_t person)
{
	char		a[24],
				t[24];
	char		ids[4][24];
	PGresult   *r;
	int64_t		base = new_tags(x->c, 5);

	snprintf(a, sizeof(a), "%lld", (long long) person);
	r = tx_exec(x, "SELECT p1.id, p2.id, p3.id, p4.id "
				"FROM person p1, person p2, person p3, person p4, "
				"knows k1, knows k2, knows k3, knows k4 "
				"WHERE p1.id = $1 "
				"AND p1.id = k1.person1id AND k1.person2id = p2.id "
				"AND p2.id = k2.person1id AND k2.person2id = p3.id "
				"AND p3.id = k3.person1id AND k3.person2id = p4.id "
				"AND p4.id = k4.person1id AND k4.person2id = p1.id "
				"AND p1.id NOT IN (p2.id, p3.id, p4.id) "
				"AND p2.id NOT IN (p3.id, p4.id) AND p3.id <> p4.id", 1, P1(a));
	if (!r)
		return;
	if (PQntuples(r) < 1)
	{
		ctx_fatal(x->c, "OTV: no cycle through person %lld", (long long) person);
		PQclear(r);
		return;
	}
	for (int i = 0; i < 4; i++)
		snprintf(ids[i], sizeof(ids[i]), "%s", PQgetvalue(r, 0, i));
	PQclear(r);
	snprintf(t, sizeof(t), "%lld", (long long) base);
	{
		const char *const p[5] = {t, ids[0], ids[1], ids[2], ids[3]};

		r = tx_exec(x, "UPDATE person SET version = version + 1, prev_tag = tag, tag = $1 + id "
					"WHERE id IN ($2, $3, $4, $5) RETURNING id, prev_tag", 5, p);
	}
	if (!r)
		return;
	for (int i = 0; i < PQntuples(r); i++)
		rec_rmw(x, getv(r, i, 0), base + getv(r, i, 0), getv(r, i, 1));
	PQclear(r);
}

/* OTV's read: the versions around the cycle through a person (4 values) */
static bool
otv_read(Tx *x, int64_t person, int64_t *vers)
{
	char		a[24];
	PGresult   *r;

	snprintf(a, sizeof(a), "%lld", (long long) person);
	r = tx_exec(x, "SELECT p1.id, p1.version, p1.tag, p2.id, p2.version, p2.tag, "
				"p3.id, p3.version, p3.tag, p4.id, p4.version, p4.tag "
				"FROM person p1, person p2, person p3, person p4, "
				"knows k1, knows k2, knows k3, knows k4 "
				"WHERE p1.id = $1 "
				"AND p1.id = k1.person1id AND k1.person2id = p2.id "
				"AND p2.id = k2.person1id AND k2.person2id = p3.id "
				"AND p3.id = k3.person1id AND k3.person2id = p4.id "
				"AND p4.id = k4.person1id AND k4.person2id = p1.id "
				"AND p1.id NOT IN (p2.id, p3.id, p4.id) "
				"AND p2.id NOT IN (p3.id, p4.id) AND p3.id <> p4.id", 1, P1(a));
	if (!r)
		return false;
	if (PQntuples(r) < 1)
	{
		ctx_fatal(x->c, "OTV: no cycle through person %lld", (long long) person);
		PQclear(r);
		return false;
	}
	for (int i = 0; i < 4; i++)
	{
		vers[i] = getv(r, 0, 3 * i + 1);
		rec_read(x, getv(r, 0, 3 * i), false, getv(r, 0, 3 * i + 2));
	}
	PQclear(r);
	return true;
}

/* FR's writer: LDBC's statement, one transaction */
static void
fr_write(Tx *x)
{
	int64_t		base = new_tags(x->c, 5);
	char		t[24];
	PGresult   *r;

	snprintf(t, sizeof(t), "%lld", (long long) base);
	r = tx_exec(x, "WITH path AS (SELECT p1.id AS p1id, p2.id AS p2id, p3.id AS p3id, p4.id AS p4id "
				"FROM person p1, person p2, person p3, person p4, knows k1, knows k2, knows k3, knows k4 "
				"WHERE p1.id = 1 AND p1.id = k1.person1id AND k1.person2id = p2.id "
				"AND p2.id = k2.person1id AND k2.person2id = p3.id "
				"AND p3.id = k3.person1id AND k3.person2id = p4.id "
				"AND p4.id = k4.person1id AND k4.person2id = p1.id "
				"AND p1.id NOT IN (p2.id, p3.id, p4.id) AND p2.id NOT IN (p3.id, p4.id) "
				"AND p3.id <> p4.id), "
				"affectedPerson AS (SELECT p.id AS apid, count(*) AS times FROM person p, path "
				"WHERE p.id IN (path.p1id, path.p2id, path.p3id, path.p4id) GROUP BY p.id) "
				"UPDATE person SET version = version + ap.times, prev_tag = tag, tag = $1 + id "
				"FROM affectedPerson ap WHERE id = ap.apid RETURNING id, prev_tag", 1, P1(t));
	if (!r)
		return;
	for (int i = 0; i < PQntuples(r); i++)
		rec_rmw(x, getv(r, i, 0), base + getv(r, i, 0), getv(r, i, 1));
	PQclear(r);
}

/* FR's read: the versions along the paths from person 1 back to it (4 values) */
static bool
fr_read(Tx *x, int64_t *vers)
{
	PGresult   *r = tx_exec(x, "WITH RECURSIVE path AS ("
							"SELECT 1::bigint AS endpoint, ARRAY[]::bigint[] nodes, "
							"ARRAY[]::bigint[] versions, ARRAY[]::bigint[] tags "
							"UNION "
							"SELECT k.person2id, array_append(nodes, k.person2id), "
							"array_append(versions, p.version), array_append(tags, p.tag) "
							"FROM path, knows k, person p "
							"WHERE endpoint = k.person1id AND k.person2id = p.id "
							"AND k.person2id <> ALL (nodes) AND coalesce(array_length(nodes, 1), 0) < 4) "
							"SELECT endpoint, nodes, versions, tags FROM path "
							"WHERE endpoint = 1 AND array_length(nodes, 1) IS NOT NULL", 0, NULL);
	int64_t    *nodes = NULL,
			   *v = NULL,
			   *tags = NULL;
	int			nn = 0,
				nv = 0,
				nt = 0;
	bool		ok;

	if (!r)
		return false;
	ok = PQntuples(r) >= 1 && parse_int_array(PQgetvalue(r, 0, 1), &nodes, &nn) &&
		parse_int_array(PQgetvalue(r, 0, 2), &v, &nv) &&
		parse_int_array(PQgetvalue(r, 0, 3), &tags, &nt) && nn == 4 && nv == 4 && nt == 4;
	if (!ok)
		ctx_fatal(x->c, "FR: the read found no 4-cycle through person 1");
	else
		for (int i = 0; i < 4; i++)
		{
			vers[i] = v[i];
			rec_read(x, nodes[i], false, tags[i]);
		}
	free(nodes);
	free(v);
	free(tags);
	PQclear(r);
	return ok;
}

/* LU's writer: LDBC's statement (a new person, numFriends + 1, a knows edge) */
static void
lu_write(Tx *x)
{
	int64_t		tag = new_tags(x->c, 1);
	char		t[24];
	PGresult   *r;

	snprintf(t, sizeof(t), "%lld", (long long) tag);
	r = tx_exec(x, "WITH p2 AS (INSERT INTO person (id, numFriends) VALUES (nextval('id_seq'), 0) "
				"RETURNING id), "
				"p1 AS (UPDATE person SET numFriends = numFriends + 1, prev_tag = tag, tag = $1 "
				"WHERE id = 1 RETURNING id, prev_tag) "
				"INSERT INTO knows (person1id, person2id) SELECT p1.id, p2.id FROM p1, p2 "
				"RETURNING person2id, (SELECT prev_tag FROM p1)", 1, P1(t));
	if (!r)
		return;
	if (PQntuples(r) == 1)
	{
		int64_t		e = -getv(r, 0, 0);

		rec_rmw(x, 1, tag, getv(r, 0, 1));
		rec_write(x, KEY_EDGE(e), e, true, true, 0);
		note_edge(x->c, e);
	}
	PQclear(r);
}

/* The classic lost update, read then write (--ldbc-schedule's LU): the same effects */
static void
lu_write_client_side(Tx *x, int64_t nf)
{
	char		set[64];
	PGresult   *r;

	snprintf(set, sizeof(set), "numFriends = %lld", (long long) nf + 1);
	if (!write_person(x, 1, set, false, true))
		return;
	r = tx_exec(x, "WITH p2 AS (INSERT INTO person (id, numFriends) VALUES (nextval('id_seq'), 0) "
				"RETURNING id) INSERT INTO knows (person1id, person2id) SELECT 1, p2.id FROM p2 "
				"RETURNING person2id", 0, NULL);
	if (!r)
		return;
	if (PQntuples(r) == 1)
	{
		int64_t		e = -getv(r, 0, 0);

		rec_write(x, KEY_EDGE(e), e, true, true, 0);
		note_edge(x->c, e);
	}
	PQclear(r);
}

/* WS's writer: if the pair still satisfies value sum >= 100, take 100 from one of them */
static void
ws_write(Tx *x, int64_t p1, int64_t which)
{
	char		a[24],
				b[24];
	PGresult   *r;
	bool		violated;

	snprintf(a, sizeof(a), "%lld", (long long) p1);
	snprintf(b, sizeof(b), "%lld", (long long) p1 + 1);
	r = tx_exec(x, "SELECT p1.tag, p2.tag, p1.value + p2.value < 100 FROM person p1, person p2 "
				"WHERE p1.id = $1 AND p2.id = $2", 2, P2(a, b));
	if (!r)
		return;
	if (PQntuples(r) != 1)
	{
		ctx_fatal(x->c, "WS: persons %lld and %lld not found", (long long) p1, (long long) p1 + 1);
		PQclear(r);
		return;
	}
	rec_read(x, p1, false, getv(r, 0, 0));
	rec_read(x, p1 + 1, false, getv(r, 0, 1));
	violated = strcmp(PQgetvalue(r, 0, 2), "t") == 0;
	PQclear(r);
	if (violated)
		return;
	pause_s(x->c);
	write_person(x, p1 + which, "value = value - 100", true, true);
}

/* ------------------------------------------------------------------ */
/* the concurrent run: a pool of --clients threads over the tasks */

static void
run_task(Ctx *c, PGconn *conn, int ti, int64_t process)
{
	Task	   *task = &c->tasks[ti];
	TaskRes    *res = &c->res[ti];
	uint64_t	rng = c->o->seed * 0x100000001B3ULL + (uint64_t) ti * 0x9E3779B97F4A7C15ULL + 7;
	Tx			x;

	res->done = true;
	if (c->test == T_OTV && task->writer)
	{
		/* one client, many transactions */
		for (int i = 0; i < OTV_WRITER_TXNS && !c->fatal; i++)
		{
			tx_begin(&x, c, conn, process);
			otv_write(&x, 1 + (int64_t) (rng_next(&rng) % 4));
			res->v[0] += tx_commit(&x);
		}
		res->ok = true;
		return;
	}
	tx_begin(&x, c, conn, process);
	switch (c->test)
	{
		case T_G0:
			g0_write(&x, task->idx + 1);
			break;
		case T_G1A:
			if (task->writer)
			{
				PGresult   *r = tx_exec(&x, "SELECT id FROM person WHERE id = 1", 0, NULL);

				if (r)
					PQclear(r);
				pause_s(c);
				write_person(&x, 1, "version = 2", false, true);
				pause_s(c);
				tx_rollback(&x);
				res->ok = false;
				return;
			}
			read_person(&x, 1, "version", &res->v[0]);
			break;
		case T_G1B:
			if (task->writer)
				g1b_write(&x, c);
			else
				read_person(&x, 1, "version", &res->v[0]);
			break;
		case T_G1C:
			{
				bool		order = rng_next(&rng) & 1;

				g1c_txn(&x, task->idx + 1, order ? 1 : 2, order ? 2 : 1, res);
				break;
			}
		case T_IMP:
			if (task->writer)
				write_person(&x, 1, "version = version + 1", true, true);
			else if (read_person(&x, 1, "version", &res->v[0]))
			{
				pause_s(c);
				read_person(&x, 1, "version", &res->v[1]);
			}
			break;
		case T_PMP:
			if (task->writer)
				pmp_insert(&x, task->idx + 1);
			else if (pmp_read(&x, &res->v[0]))
			{
				pause_s(c);
				pmp_read(&x, &res->v[1]);
			}
			break;
		case T_OTV:
			{
				int64_t		p = 1 + (int64_t) (rng_next(&rng) % 4);

				if (otv_read(&x, p, &res->v[0]))
				{
					pause_s(c);
					otv_read(&x, p, &res->v[4]);
				}
				break;
			}
		case T_FR:
			if (task->writer)
				fr_write(&x);
			else if (fr_read(&x, &res->v[0]))
			{
				pause_s(c);
				fr_read(&x, &res->v[4]);
			}
			break;
		case T_LU:
			lu_write(&x);
			break;
		case T_WS:
			ws_write(&x, (int64_t) (rng_next(&rng) % WS_PAIRS) * 2 + 1,
					 (int64_t) (rng_next(&rng) & 1));
			break;
		default:
			break;
	}
	res->ok = tx_commit(&x);
}

typedef struct Worker
{
	Ctx		   *c;
	int			id;
} Worker;

static void *
worker_main(void *arg)
{
	Worker	   *w = arg;
	Ctx		   *c = w->c;
	PGconn	   *conn = ldbc_connect(c, "isograph-record-ldbc");

	if (!conn)
		return NULL;
	for (;;)
	{
		int			ti;

		pthread_mutex_lock(&c->mu);
		ti = c->next < c->ntasks && !c->fatal ? c->next++ : -1;
		pthread_mutex_unlock(&c->mu);
		if (ti < 0)
			break;
		run_task(c, conn, ti, w->id + 1);
	}
	PQfinish(conn);
	return NULL;
}

/* Writers and readers interleaved evenly, as clients that start together. */
static void
make_tasks(Ctx *c)
{
	int			iw = 0,
				ir = 0;

	c->ntasks = c->nw + c->nr;
	c->tasks = xmalloc(sizeof(Task) * (c->ntasks + 1));
	c->res = xmalloc(sizeof(TaskRes) * (c->ntasks + 1));
	for (int i = 0; i < c->ntasks; i++)
	{
		/* writer iw sits at (iw + 0.5) / nw, reader ir at (ir + 0.5) / nr */
		bool		w = ir >= c->nr ||
			(iw < c->nw && (2.0 * iw + 1) * c->nr <= (2.0 * ir + 1) * c->nw);

		c->tasks[i].writer = w;
		c->tasks[i].idx = w ? iw++ : ir++;
	}
}

static bool
concurrent_run(Ctx *c)
{
	int			n = c->o->clients;
	pthread_t  *th = xmalloc(sizeof(pthread_t) * n);
	Worker	   *w = xmalloc(sizeof(Worker) * n);

	make_tasks(c);
	for (int i = 0; i < n; i++)
	{
		w[i].c = c;
		w[i].id = i;
		if (pthread_create(&th[i], NULL, worker_main, &w[i]) != 0)
		{
			errmsg_out("cannot start a thread");
			exit(EXIT_RUNTIME);
		}
	}
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	free(th);
	free(w);
	return !c->fatal;
}

/* ------------------------------------------------------------------ */
/* --ldbc-schedule: two sessions A (process 1) and B (process 2), one interleaving each */

/* the task slots the checks read: writers first, then readers */
static void
forced_tasks(Ctx *c, int nw, int nr)
{
	c->nw = nw;
	c->nr = nr;
	c->ntasks = nw + nr;
	c->tasks = xmalloc(sizeof(Task) * (c->ntasks + 1));
	c->res = xmalloc(sizeof(TaskRes) * (c->ntasks + 1));
	for (int i = 0; i < c->ntasks; i++)
	{
		c->tasks[i].writer = i < nw;
		c->tasks[i].idx = i < nw ? i : i - nw;
		c->res[i].done = true;
	}
}

static bool
forced_run(Ctx *c)
{
	PGconn	   *A = ldbc_connect(c, "isograph-record-ldbc-A");
	PGconn	   *B = A ? ldbc_connect(c, "isograph-record-ldbc-B") : NULL;
	Tx			a,
				b;
	TaskRes    *r;
	int64_t		nfa = 0,
				nfb = 0;

	if (!B)
	{
		if (A)
			PQfinish(A);
		return false;
	}
	c->sleep_s = 0;
	switch (c->test)
	{
		case T_G0:
			/* A appends and commits while B's transaction is open; then B appends */
			forced_tasks(c, 2, 0);
			tx_begin(&a, c, A, 1);
			tx_begin(&b, c, B, 2);
			/* B's snapshot is taken by its first statement (at RR/SER) */
			PQclear(tx_exec(&b, "SELECT 1", 0, NULL));
			g0_write(&a, 1);
			c->res[0].ok = tx_commit(&a);
			g0_write(&b, 2);
			c->res[1].ok = tx_commit(&b);
			break;
		case T_G1A:
			/* B reads while A's write is uncommitted; A aborts */
			forced_tasks(c, 1, 1);
			tx_begin(&a, c, A, 1);
			write_person(&a, 1, "version = 2", false, true);
			tx_begin(&b, c, B, 2);
			read_person(&b, 1, "version", &c->res[1].v[0]);
			c->res[1].ok = tx_commit(&b);
			tx_rollback(&a);
			break;
		case T_G1B:
			/* B reads between A's two writes, and again after A commits */
			forced_tasks(c, 1, 2);
			tx_begin(&a, c, A, 1);
			write_person(&a, 1, "version = 0", false, false);
			tx_begin(&b, c, B, 2);
			read_person(&b, 1, "version", &c->res[1].v[0]);
			c->res[1].ok = tx_commit(&b);
			{
				int64_t		first = a.t->ops[a.t->nops - 1].prev;

				if (write_person(&a, 1, "version = 1", false, true))
					a.t->ops[a.t->nops - 1].prev = first;
			}
			c->res[0].ok = tx_commit(&a);
			tx_begin(&b, c, B, 2);
			read_person(&b, 1, "version", &c->res[2].v[0]);
			c->res[2].ok = tx_commit(&b);
			break;
		case T_G1C:
			/* each writes its person, then reads the other's: neither sees the other */
			forced_tasks(c, 2, 0);
			tx_begin(&a, c, A, 1);
			tx_begin(&b, c, B, 2);
			write_person(&a, 1, "version = 1", false, true);
			write_person(&b, 2, "version = 2", false, true);
			read_person(&a, 2, "version", &c->res[0].v[0]);
			read_person(&b, 1, "version", &c->res[1].v[0]);
			c->res[0].ok = tx_commit(&a);
			c->res[1].ok = tx_commit(&b);
			break;
		case T_IMP:
		case T_PMP:
		case T_OTV:
		case T_FR:
			/* B's reads straddle A's commit */
			forced_tasks(c, 1, 1);
			r = &c->res[1];
			tx_begin(&b, c, B, 2);
			if (c->test == T_IMP)
				read_person(&b, 1, "version", &r->v[0]);
			else if (c->test == T_PMP)
				pmp_read(&b, &r->v[0]);
			else if (c->test == T_OTV)
				otv_read(&b, 1, &r->v[0]);
			else
				fr_read(&b, &r->v[0]);
			tx_begin(&a, c, A, 1);
			if (c->test == T_IMP)
				write_person(&a, 1, "version = version + 1", true, true);
			else if (c->test == T_PMP)
				pmp_insert(&a, 1);
			else if (c->test == T_OTV)
				otv_write(&a, 1);
			else
				fr_write(&a);
			c->res[0].ok = tx_commit(&a);
			if (c->test == T_IMP)
				read_person(&b, 1, "version", &r->v[1]);
			else if (c->test == T_PMP)
				pmp_read(&b, &r->v[1]);
			else if (c->test == T_OTV)
				otv_read(&b, 1, &r->v[4]);
			else
				fr_read(&b, &r->v[4]);
			r->ok = tx_commit(&b);
			break;
		case T_LU:
			/* both read numFriends, A writes it + 1 and commits, then B does */
			forced_tasks(c, 2, 0);
			tx_begin(&a, c, A, 1);
			tx_begin(&b, c, B, 2);
			read_person(&a, 1, "numFriends", &nfa);
			read_person(&b, 1, "numFriends", &nfb);
			lu_write_client_side(&a, nfa);
			c->res[0].ok = tx_commit(&a);
			lu_write_client_side(&b, nfb);
			c->res[1].ok = tx_commit(&b);
			break;
		case T_WS:
			/* both check persons 1 and 2, then each takes 100 from a different one */
			forced_tasks(c, 2, 0);
			tx_begin(&a, c, A, 1);
			tx_begin(&b, c, B, 2);
			ws_write(&a, 1, 0);
			ws_write(&b, 1, 1);
			c->res[0].ok = tx_commit(&a);
			c->res[1].ok = tx_commit(&b);
			break;
		default:
			break;
	}
	PQfinish(A);
	PQfinish(B);
	return !c->fatal;
}

/* ------------------------------------------------------------------ */
/* the final reads and LDBC's checks */

static int
count_committed(Ctx *c, bool writers)
{
	int			n = 0;

	for (int i = 0; i < c->ntasks; i++)
		n += c->tasks[i].writer == writers && c->res[i].done && c->res[i].ok;
	return n;
}

static void
verdict(Ctx *c, bool pass, const char *fmt,...) __attribute__((format(printf, 3, 4)));

static void
verdict(Ctx *c, bool pass, const char *fmt,...)
{
	va_list		ap;

	c->ldbc_pass = pass;
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
}

/*
 * G0's check (LDBC's retainAll): the three versionHistory lists, each
 * reduced to the ids all three hold, are equal.
 */
static bool
g0_lists_agree(int64_t *const l[3], const int n[3], int *ncommon)
{
	int64_t    *cm[3];
	int			ncm[3] = {0, 0, 0};
	bool		same = true;

	for (int i = 0; i < 3; i++)
	{
		cm[i] = xmalloc(sizeof(int64_t) * (n[i] + 1));
		for (int j = 0; j < n[i]; j++)
		{
			bool		all = true;

			for (int o = 0; o < 3 && all; o++)
			{
				bool		in = false;

				for (int k = 0; k < n[o] && !in; k++)
					in = l[o][k] == l[i][j];
				all = in;
			}
			if (all)
				cm[i][ncm[i]++] = l[i][j];
		}
	}
	for (int i = 1; i < 3; i++)
		same = same && ncm[i] == ncm[0] && memcmp(cm[i], cm[0], sizeof(int64_t) * ncm[0]) == 0;
	*ncommon = ncm[0];
	for (int i = 0; i < 3; i++)
		free(cm[i]);
	return same;
}

static bool
g0_check(Ctx *c, Tx *x)
{
	PGresult   *r = tx_exec(x, "SELECT p1.versionHistory, k.versionHistory, p2.versionHistory "
							"FROM person p1, knows k, person p2 "
							"WHERE p1.id = k.person1id AND p2.id = k.person2id "
							"AND p1.id = 1 AND p2.id = 2", 0, NULL);
	int64_t    *l[3];
	int			n[3];
	int			ncommon;
	static const int64_t keys[3] = {1, G0_KNOWS, 2};
	bool		same;

	if (!r || PQntuples(r) != 1)
	{
		ctx_fatal(c, "G0: the final read found no row");
		return false;
	}
	for (int i = 0; i < 3; i++)
	{
		Op		   *op;

		parse_int_array(PQgetvalue(r, 0, i), &l[i], &n[i]);
		op = tx_op(x, OP_R, keys[i]);
		op->has_read = true;
		op->read_list = xmalloc(sizeof(int64_t) * (n[i] + 1));
		memcpy(op->read_list, l[i], sizeof(int64_t) * n[i]);
		op->read_len = n[i];
	}
	PQclear(r);
	same = g0_lists_agree(l, n, &ncommon);
	verdict(c, same, "%d committed writers; person 1, knows, person 2 histories %s (%d common ids)",
			count_committed(c, true), same ? "agree" : "DIFFER", ncommon);
	for (int i = 0; i < 3; i++)
		free(l[i]);
	return true;
}

/* LU: numFriends = number of knows edges = committed writers */
static bool
lu_check(Ctx *c, Tx *x)
{
	PGresult   *r = tx_exec(x, "SELECT count(kp2.person2id) AS numKnowsEdges, p1.numFriends, p1.tag "
							"FROM person p1 LEFT JOIN "
							"(knows k INNER JOIN person p2 ON (k.person2id = p2.id)) kp2 "
							"ON (p1.id = kp2.person1id) WHERE p1.id = 1 "
							"GROUP BY p1.id, p1.numFriends, p1.tag", 0, NULL);
	int64_t		edges,
				nf;
	int			w = count_committed(c, true);
	bool	   *found;

	if (!r || PQntuples(r) != 1)
	{
		ctx_fatal(c, "LU: the final read found no row");
		return false;
	}
	edges = getv(r, 0, 0);
	nf = getv(r, 0, 1);
	rec_read(x, 1, false, getv(r, 0, 2));
	PQclear(r);
	/* the edges, as item reads of every edge id the sequence gave */
	r = tx_exec(x, "SELECT -person2id FROM knows WHERE person1id = 1", 0, NULL);
	if (!r)
		return false;
	for (int i = 0; i < PQntuples(r); i++)
		if (getv(r, i, 0) > c->max_edge)
			c->max_edge = getv(r, i, 0);
	found = xmalloc(sizeof(bool) * (c->max_edge + 1));
	for (int i = 0; i < PQntuples(r); i++)
		if (getv(r, i, 0) >= 1)
			found[getv(r, i, 0)] = true;
	for (int64_t e = 1; e <= c->max_edge; e++)
		rec_read(x, KEY_EDGE(e), !found[e], e);
	free(found);
	PQclear(r);
	verdict(c, nf == w && edges == w, "%d committed writers, numFriends %lld, %lld knows edges",
			w, (long long) nf, (long long) edges);
	return true;
}

/* WS: no pair with value sum <= 0 */
static bool
ws_check(Ctx *c, Tx *x)
{
	PGresult   *r = tx_exec(x, "SELECT p1.id AS p1id, p1.value AS p1value, p2.id AS p2id, "
							"p2.value AS p2value FROM person p1, person p2 "
							"WHERE p1.id + 1 = p2.id AND p1.value + p2.value <= 0 "
							"AND p1.id % 2 = 1", 0, NULL);
	int			bad;

	if (!r)
		return false;
	bad = PQntuples(r);
	verdict(c, bad == 0, "%d committed writers; %d of %d pairs with value sum <= 0%s%s",
			count_committed(c, true), bad, WS_PAIRS, bad ? ", e.g. persons " : "",
			bad ? PQgetvalue(r, 0, 0) : "");
	if (bad)
		snprintf(c->detail + strlen(c->detail), sizeof(c->detail) - strlen(c->detail),
				 " and %s (%s, %s)", PQgetvalue(r, 0, 2), PQgetvalue(r, 0, 1),
				 PQgetvalue(r, 0, 3));
	PQclear(r);
	r = tx_exec(x, "SELECT id, tag FROM person ORDER BY id", 0, NULL);
	if (!r)
		return false;
	for (int i = 0; i < PQntuples(r); i++)
		rec_read(x, getv(r, i, 0), false, getv(r, i, 1));
	PQclear(r);
	return true;
}

/* Every key read once more, so every committed version is seen. */
static bool
read_all_persons(Ctx *c, Tx *x)
{
	PGresult   *r = tx_exec(x, "SELECT id, tag FROM person WHERE tag IS NOT NULL ORDER BY id",
							0, NULL);

	if (!r)
		return false;
	for (int i = 0; i < PQntuples(r); i++)
		rec_read(x, getv(r, i, 0), false, getv(r, i, 1));
	PQclear(r);
	if (c->test == T_PMP)
	{
		int64_t		n;

		return pmp_read(x, &n);
	}
	return true;
}

/* The checks that need only what the clients returned. */
static void
result_check(Ctx *c)
{
	int			bad = 0,
				seen = 0;
	int64_t		ex0 = 0,
				ex1 = 0;

	for (int i = 0; i < c->ntasks; i++)
	{
		TaskRes    *r = &c->res[i];
		bool		b = false;

		if (c->tasks[i].writer && c->test != T_G1C)
			continue;
		if (!r->done || !r->ok)
			continue;
		seen++;
		switch (c->test)
		{
			case T_G1A:
				b = r->v[0] != 1;
				break;
			case T_G1B:
				b = r->v[0] % 2 != 1;
				break;
			case T_G1C:
				{
					int64_t		j = r->v[0];	/* the writer whose version i read */

					if (j == 0)
						break;
					if (j < 1 || j > c->nw || !c->res[j - 1].ok)
						b = true;	/* read a version no committed transaction wrote */
					else
						b = c->res[j - 1].v[0] == i + 1;
					break;
				}
			case T_IMP:
			case T_PMP:
				b = r->v[0] != r->v[1];
				break;
			case T_OTV:
				{
					int64_t		mx = r->v[0],
								mn = r->v[4];

					for (int k = 1; k < 4; k++)
					{
						mx = r->v[k] > mx ? r->v[k] : mx;
						mn = r->v[4 + k] < mn ? r->v[4 + k] : mn;
					}
					b = mx > mn;
					break;
				}
			case T_FR:
				b = memcmp(&r->v[0], &r->v[4], sizeof(int64_t) * 4) != 0;
				break;
			default:
				break;
		}
		if (b && bad++ == 0)
		{
			ex0 = r->v[0];
			ex1 = c->test == T_OTV || c->test == T_FR ? r->v[4] : r->v[1];
		}
	}
	if (c->test == T_G1C)
		verdict(c, bad == 0, "%d committed of %d; %d saw a cycle or an aborted write",
				seen, c->nw, bad);
	else if (c->test == T_G1A || c->test == T_G1B)
		verdict(c, bad == 0, "%d readers committed; %d read %s%s", seen, bad,
				c->test == T_G1A ? "a version other than 1" : "an even (intermediate) version",
				bad ? " (e.g. " : "");
	else
		verdict(c, bad == 0, "%d readers committed; %d saw two different results", seen, bad);
	if (bad && (c->test == T_G1A || c->test == T_G1B))
		snprintf(c->detail + strlen(c->detail), sizeof(c->detail) - strlen(c->detail),
				 "%lld)", (long long) ex0);
	else if (bad && c->test != T_G1C)
		snprintf(c->detail + strlen(c->detail), sizeof(c->detail) - strlen(c->detail),
				 " (e.g. %lld then %lld)", (long long) ex0, (long long) ex1);
}

/* The final read transaction (recorded) and the test's check. */
static bool
final_check(Ctx *c, PGconn *admin, int64_t process)
{
	Tx			x;
	bool		ok = true;

	tx_begin(&x, c, admin, process);
	if (c->test == T_G0)
		ok = g0_check(c, &x);
	else if (c->test == T_LU)
		ok = lu_check(c, &x) && read_all_persons(c, &x);
	else if (c->test == T_WS)
		ok = ws_check(c, &x);
	else
	{
		ok = read_all_persons(c, &x);
		result_check(c);
	}
	if (!ok || !tx_commit(&x))
	{
		if (!c->fatal)
			ctx_fatal(c, "the final read failed");
		return false;
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* isograph's verdict, PostgreSQL's guarantees, the table */

typedef struct Row
{
	TestId		test;
	IsoLevel	lvl;
	bool		ldbc_pass;
	bool		iso_pass;
	char		anomalies[256];
	char		detail[256];
	int64_t		id;
	const char *note;
	bool		race;			/* SER: every anomaly is the SSI commit race's G2-item */
	bool		bad;			/* exit EXIT_LDBC_VIOLATION */
} Row;

static const char *const level_short[3] = {"RC", "RR", "SER"};

static bool
is_test_anomaly(TestId t, const char *name)
{
	for (int i = 0; i < 4 && defs[t].iso_names[i]; i++)
		if (strcmp(defs[t].iso_names[i], name) == 0)
			return true;
	return false;
}

/*
 * Must PostgreSQL pass this LDBC test at this level?  RC: no dirty writes
 * or reads, statements see one snapshot, updates re-read the row they lock
 * (so OTV and LDBC's in-place LU pass); RR: snapshot isolation, all but WS;
 * SER: all.  The classic read-then-write LU of --ldbc-schedule may fail at RC.
 */
static bool
pg_guarantees(TestId t, IsoLevel l, bool forced)
{
	if (l == ISO_SER)
		return true;
	if (l == ISO_RR)
		return t != T_WS;
	return t == T_G0 || t == T_G1A || t == T_G1B || t == T_G1C || t == T_OTV ||
		(t == T_LU && !forced);
}

#define RACE_NOTE "explained: the known PostgreSQL SSI commit race (a G2-item of three, " \
	"docs/postgres-ssi-race.md)"

static bool
iso_verdict(PGconn *store, const char *schema, Row *row, IsoLevel l)
{
	char		sql[1024];
	char		idbuf[24];
	const char *params[1] = {idbuf};
	PGresult   *r;
	bool		other = false;	/* a SER violation not of the SSI race's shape */
	bool		si_holds = true,
				pl2_holds = true;
	size_t		len = 0;

	snprintf(idbuf, sizeof(idbuf), "%lld", (long long) row->id);
	snprintf(sql, sizeof(sql),
			 "SELECT anomaly, count(*), bool_and(anomaly = 'G2-item' AND cardinality(cycle) >= 3 "
			 "AND EXISTS (SELECT 1 FROM generate_subscripts(edge_types, 1) i "
			 "WHERE edge_types[i] = 'rw' "
			 "AND edge_types[i %% cardinality(edge_types) + 1] = 'rw')) "
			 "FROM %s.iso_check('ser', $1::bigint) GROUP BY 1 ORDER BY 1", schema);
	r = PQexecParams(store, sql, 1, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
	{
		errmsg_out("iso_check('ser', %s) failed: %s", idbuf, PQerrorMessage(store));
		PQclear(r);
		return false;
	}
	row->iso_pass = true;
	row->anomalies[0] = '\0';
	for (int i = 0; i < PQntuples(r); i++)
	{
		const char *a = PQgetvalue(r, i, 0);

		if (is_test_anomaly(row->test, a))
			row->iso_pass = false;
		if (strcmp(PQgetvalue(r, i, 2), "t") != 0)
			other = true;
		len += snprintf(row->anomalies + len, sizeof(row->anomalies) - len, "%s%s %s",
						i ? ", " : "", a, PQgetvalue(r, i, 1));
		if (len >= sizeof(row->anomalies))
			len = sizeof(row->anomalies) - 1;
	}
	if (PQntuples(r) == 0)
		snprintf(row->anomalies, sizeof(row->anomalies), "-");
	PQclear(r);
	snprintf(sql, sizeof(sql),
			 "SELECT level, holds FROM %s.iso_levels($1::bigint) WHERE level IN ('pl-2', 'si')",
			 schema);
	r = PQexecParams(store, sql, 1, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
	{
		errmsg_out("iso_levels(%s) failed: %s", idbuf, PQerrorMessage(store));
		PQclear(r);
		return false;
	}
	for (int i = 0; i < PQntuples(r); i++)
	{
		bool		h = strcmp(PQgetvalue(r, i, 1), "t") == 0;

		if (strcmp(PQgetvalue(r, i, 0), "pl-2") == 0)
			pl2_holds = h;
		else
			si_holds = h;
	}
	PQclear(r);

	/* what PostgreSQL guarantees, seen by isograph */
	if (!pl2_holds || (l != ISO_RC && !si_holds))
	{
		row->bad = true;
		row->note = l == ISO_RC ? "VIOLATION: PL-2 (read committed) does not hold"
			: "VIOLATION: snapshot isolation does not hold";
	}
	else if (l == ISO_SER && other)
	{
		row->bad = true;
		row->note = "VIOLATION: a SER anomaly other than the SSI commit race's G2-item";
	}
	else if (l == ISO_SER && strcmp(row->anomalies, "-") != 0)
	{
		row->race = true;
		row->note = RACE_NOTE;
	}
	return true;
}

/*
 * Compare the two verdicts; say why when they differ.  At SER, the SSI
 * commit race's G2-item (row->race) is the one accepted finding: it may
 * make either check fail.
 */
static void
judge(Row *row, bool forced)
{
	if (row->bad)
		return;					/* a guarantee isograph checks is broken */
	if (!row->ldbc_pass && pg_guarantees(row->test, row->lvl, forced) && !row->race)
	{
		row->bad = true;
		row->note = "VIOLATION: PostgreSQL guarantees this test at this level";
		return;
	}
	if (row->ldbc_pass == row->iso_pass || row->race)
		return;
	if (row->test == T_OTV && row->ldbc_pass)
	{
		/* non-repeatable reads are OTV-allowed, isograph names them the same */
		row->note = "explained: the reader saw newer versions (allowed by OTV); isograph "
			"cannot tell a vanished from a newer version: G-single/internal";
		return;
	}
	row->bad = true;
	row->note = "UNEXPLAINED: the verdicts disagree";
}

static void
print_table(Row *rows, int n)
{
	const char *ah = "isograph anomalies (witnesses)";
	int			aw = (int) strlen(ah);

	for (int i = 0; i < n; i++)
		if ((int) strlen(rows[i].anomalies) > aw)
			aw = (int) strlen(rows[i].anomalies);
	printf("%-4s %-4s %-5s %-9s %-*s %-8s %s\n", "test", "lvl", "LDBC", "isograph",
		   aw, ah, "history", "LDBC check; note");
	for (int i = 0; i < n; i++)
	{
		Row		   *r = &rows[i];

		printf("%-4s %-4s %-5s %-9s %-*s %-8lld %s%s%s\n", test_names[r->test],
			   level_short[r->lvl], r->ldbc_pass ? "pass" : "FAIL", r->iso_pass ? "pass" : "FAIL",
			   aw, r->anomalies, (long long) r->id, r->detail, r->note ? "; " : "",
			   r->note ? r->note : "");
	}
}

/* ------------------------------------------------------------------ */

static bool
run_one(const Options *o, PGconn *admin, PGconn *store, const char *schema, TestId t,
		IsoLevel l, Row *row, int64_t *uniq)
{
	Ctx			c;
	History		h;
	Options		so = *o;
	char		name[512];
	char		meta[1024];
	bool		ok;

	memset(&c, 0, sizeof(c));
	memset(row, 0, sizeof(*row));
	c.o = o;
	c.test = t;
	c.lvl = l;
	c.h = &h;
	c.wk = t == T_G0 ? WL_LIST_APPEND : WL_RW_REGISTER;
	c.nw = defs[t].nw;
	c.nr = defs[t].nr;
	c.uniq = *uniq;
	c.sleep_s = defs[t].sleep_ms * (o->ldbc_sleep_ms / 250.0) / 1000.0;
	pthread_mutex_init(&c.mu, NULL);
	history_init(&h);

	/*
	 * The tests' own fault injection: run every transaction with this
	 * statement instead of the level's BEGIN (e.g. READ COMMITTED while the
	 * verdicts are judged for SERIALIZABLE), so that a broken guarantee can
	 * be seen to make the run fail.
	 */
	c.begin_sql = getenv("ISOGRAPH_RECORD_TEST_BEGIN");
	if (!c.begin_sql || !*c.begin_sql)
		c.begin_sql = iso_begin_sql(l);
	row->test = t;
	row->lvl = l;

	snprintf(name, sizeof(name), "%s %s %s", o->name, test_names[t], level_short[l]);
	if (!store_name_free(store, schema, name))
		return false;
	if (!o->quiet)
		fprintf(stderr, "ldbc: %s at %s ...\n", test_names[t], iso_name(l));
	ok = setup(&c, admin);
	ok = ok && (o->ldbc_schedule ? forced_run(&c) : concurrent_run(&c));
	ok = ok && final_check(&c, admin, o->ldbc_schedule ? 3 : o->clients + 1);
	if (!ok)
	{
		errmsg_out("LDBC %s at %s: %s", test_names[t], iso_name(l),
				   c.fatal ? c.fatal_msg : "setting up the data set failed");
		return false;
	}
	*uniq = c.uniq;
	row->ldbc_pass = c.ldbc_pass;
	snprintf(row->detail, sizeof(row->detail), "%s", c.detail);

	so.workload = c.wk;
	so.name = name;
	so.isolation = l;
	{
		long		nok,
					nfail,
					ninfo;

		history_counts(&h, &nok, &nfail, &ninfo);
		snprintf(meta, sizeof(meta),
				 "{\"recorder\": \"isograph-record %s\", \"ldbc\": \"%s\", \"isolation\": \"%s\", "
				 "\"schedule\": %s, \"clients\": %d, \"sleep_ms\": %d, \"seed\": %llu, "
				 "\"server_version_num\": %d, \"ldbc_pass\": %s, "
				 "\"ok\": %ld, \"fail\": %ld, \"info\": %ld}",
				 ISOGRAPH_VERSION, test_names[t], iso_name(l),
				 o->ldbc_schedule ? "true" : "false", o->ldbc_schedule ? 2 : o->clients,
				 o->ldbc_sleep_ms, (unsigned long long) o->seed, PQserverVersion(admin),
				 c.ldbc_pass ? "true" : "false", nok, nfail, ninfo);
	}
	row->id = store_history(store, schema, &so, &h, meta);
	if (row->id < 0)
		return false;
	if (!iso_verdict(store, schema, row, l))
		return false;
	judge(row, o->ldbc_schedule);
	return true;
}

int
ldbc_run(const Options *o)
{
	char		err[512];
	char		schema[256];
	PGconn	   *admin = connect_db(o->target, "isograph-record-ldbc", err, sizeof(err));
	PGconn	   *store;
	Row		   *rows = xmalloc(sizeof(Row) * NTESTS * 3);
	int			n = 0,
				nbad = 0,
				nagree = 0;
	int64_t		uniq = 1;
	bool		ok = true;

	if (!admin)
	{
		errmsg_out("cannot connect to the target database: %s", err);
		return EXIT_RUNTIME;
	}
	store = store_connect(o, schema, sizeof(schema));
	if (!store)
		return EXIT_RUNTIME;
	for (int t = 0; t < NTESTS && ok; t++)
	{
		if (strcasecmp(o->ldbc, "all") != 0 && strcasecmp(o->ldbc, test_names[t]) != 0)
			continue;
		for (int l = ISO_RC; l <= ISO_SER && ok; l++)
		{
			if (!(o->levels & (1 << l)))
				continue;
			ok = run_one(o, admin, store, schema, (TestId) t, (IsoLevel) l, &rows[n], &uniq);
			if (ok)
				nbad += rows[n++].bad;
		}
	}
	PQclear(PQexec(admin, "DROP SCHEMA IF EXISTS " SCHEMA " CASCADE"));
	PQfinish(admin);
	PQfinish(store);
	if (!ok)
		return EXIT_RUNTIME;
	if (o->ldbc_schedule)
		printf("LDBC SNB ACID tests, --ldbc-schedule (two sessions, one fixed interleaving); "
			   "histories \"%s <test> <level>\"\n", o->name);
	else
		printf("LDBC SNB ACID tests, %d clients, sleeps %d ms (LDBC: 250); "
			   "histories \"%s <test> <level>\"\n", o->clients, o->ldbc_sleep_ms, o->name);
	print_table(rows, n);
	for (int i = 0; i < n; i++)
		nagree += rows[i].ldbc_pass == rows[i].iso_pass;
	printf("%d runs: verdicts agree in %d; %d violations or unexplained disagreements\n", n,
		   nagree, nbad);
	free(rows);
	return nbad ? EXIT_LDBC_VIOLATION : 0;
}
