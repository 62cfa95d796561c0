/*
 * schedule.c: deterministic interleavings, replayed step by step over two
 * sessions (T1, T2), with a third connection that (a) detects that a
 * statement is blocked with pg_blocking_pids(), without sleeps, and (b)
 * runs the final read-all transaction T3.  The schedules and the values
 * every step must return are those of ../shared/docs/postgres-isolation.md
 * section 2 (S1 lost update, S2 read skew, S3/S4 write skew), replayed on
 * PostgreSQL 15.  Each step's result is checked as the replay goes, so a
 * scheduling mistake shows as such, and not as a checker verdict.
 *
 * Table: <table>(k bigint primary key, v bigint[] not null default '{}'),
 * rows k = 1 and k = 2 pre-inserted as '{}'.  r k = SELECT v ... WHERE k = k,
 * append k x = UPDATE ... SET v = v || x WHERE k = k.
 */
#include "schedule.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>

typedef enum
{
	K_BEGIN,
	K_READ,
	K_APPEND,
	K_COMMIT,
	K_READALL
} Kind;

/* exp[level]: expected result at RC, RR, SER; "BLOCKS|x" = blocks, then x */
typedef struct Step
{
	int			sess;
	Kind		kind;
	int			key;
	int			val;
	const char *exp[3];
} Step;

#define ALL(x) {x, x, x}
#define BEGIN_(s) {s, K_BEGIN, 0, 0, ALL("BEGIN")}

static const Step lost_update[] = {
	BEGIN_(0),
	BEGIN_(1),
	{0, K_READ, 1, 0, ALL("{}")},
	{1, K_READ, 1, 0, ALL("{}")},
	{0, K_APPEND, 1, 1, ALL("UPDATE 1")},
	{1, K_APPEND, 1, 2, {"BLOCKS|UPDATE 1", "BLOCKS|E40001", "BLOCKS|E40001"}},
	{0, K_COMMIT, 0, 0, ALL("COMMIT")},
	{1, K_COMMIT, 0, 0, {"COMMIT", "ROLLBACK", "ROLLBACK"}},
	{2, K_READALL, 0, 0, {"1={1,2} 2={}", "1={1} 2={}", "1={1} 2={}"}},
	{-1}
};

static const Step read_skew[] = {
	BEGIN_(0),
	BEGIN_(1),
	{0, K_READ, 1, 0, ALL("{}")},
	{1, K_APPEND, 1, 1, ALL("UPDATE 1")},
	{1, K_APPEND, 2, 2, ALL("UPDATE 1")},
	{1, K_COMMIT, 0, 0, ALL("COMMIT")},
	{0, K_READ, 2, 0, {"{2}", "{}", "{}"}},
	{0, K_COMMIT, 0, 0, ALL("COMMIT")},
	{2, K_READALL, 0, 0, ALL("1={1} 2={2}")},
	{-1}
};

static const Step write_skew[] = {
	BEGIN_(0),
	BEGIN_(1),
	{0, K_READ, 1, 0, ALL("{}")},
	{0, K_READ, 2, 0, ALL("{}")},
	{1, K_READ, 1, 0, ALL("{}")},
	{1, K_READ, 2, 0, ALL("{}")},
	{0, K_APPEND, 1, 1, ALL("UPDATE 1")},
	{1, K_APPEND, 2, 2, ALL("UPDATE 1")},
	{0, K_COMMIT, 0, 0, ALL("COMMIT")},
	{1, K_COMMIT, 0, 0, {"COMMIT", "COMMIT", "E40001"}},
	{2, K_READALL, 0, 0, {"1={1} 2={2}", "1={1} 2={2}", "1={1} 2={}"}},
	{-1}
};

typedef struct SSess
{
	PGconn	   *conn;
	int			pid;
	Txn		   *txn;
	int			nextop;
	int			pending;		/* index of a blocked step, or -1 */
	int			pending_op;
	char		error[16];		/* first error (SQLSTATE) in the transaction */
} SSess;

typedef struct Sched
{
	const Options *o;
	History    *h;
	const Step *steps;
	SSess		s[2];
	PGconn	   *mon;
	char		table[128];
	int			lvl;
} Sched;

static const char *
step_text(Sched *S, int i, char *buf, size_t len)
{
	const Step *st = &S->steps[i];
	const char *who = st->sess == 0 ? "T1" : st->sess == 1 ? "T2" : "T3";

	switch (st->kind)
	{
		case K_BEGIN:
			snprintf(buf, len, "step %d %s BEGIN", i + 1, who);
			break;
		case K_READ:
			snprintf(buf, len, "step %d %s r %d", i + 1, who, st->key);
			break;
		case K_APPEND:
			snprintf(buf, len, "step %d %s append %d %d", i + 1, who, st->key, st->val);
			break;
		case K_COMMIT:
			snprintf(buf, len, "step %d %s COMMIT", i + 1, who);
			break;
		case K_READALL:
			snprintf(buf, len, "step %d %s read all", i + 1, who);
			break;
	}
	return buf;
}

/* A step's result is not the one the schedule documents: say which. */
static bool
mismatch(Sched *S, int i, const char *what)
{
	char		buf[128];

	errmsg_out("schedule %s at %s: %s: %s", S->o->schedule, iso_name(S->o->isolation),
			   step_text(S, i, buf, sizeof(buf)), what);
	return false;
}

static bool
mismatch_expected(Sched *S, int i, const char *expect, const char *got)
{
	char		what[600];

	snprintf(what, sizeof(what), "expected %s, got %s", expect, got);
	return mismatch(S, i, what);
}

static int
is_blocked(Sched *S, int pid)
{
	char		sql[128];
	PGresult   *r;
	int			b;

	snprintf(sql, sizeof(sql),
			 "SELECT pg_catalog.cardinality(pg_catalog.pg_blocking_pids(%d)) > 0", pid);
	r = PQexec(S->mon, sql);
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
	{
		errmsg_out("monitor connection: %s", PQerrorMessage(S->mon));
		PQclear(r);
		return -1;
	}
	b = strcmp(PQgetvalue(r, 0, 0), "t") == 0;
	PQclear(r);
	return b;
}

/*
 * Wait for the result of the statement in flight on session i.
 * Returns 1 with the result in *res, 0 if the statement is blocked on a
 * lock (only checked when want_block), -1 on a client/connection error.
 * When !want_block, a blocked statement is a schedule mismatch: returns 2.
 */
static int
await(Sched *S, int i, bool want_block, PGresult **res)
{
	PGconn	   *c = S->s[i].conn;

	*res = NULL;
	for (;;)
	{
		struct pollfd pfd;
		int			b;

		if (!PQconsumeInput(c))
		{
			errmsg_out("session T%d: %s", i + 1, PQerrorMessage(c));
			return -1;
		}
		if (!PQisBusy(c))
		{
			PGresult   *r;

			while ((r = PQgetResult(c)) != NULL)
			{
				if (*res == NULL)
					*res = r;
				else
					PQclear(r);
			}
			return 1;
		}
		b = is_blocked(S, S->s[i].pid);
		if (b < 0)
			return -1;
		if (b)
			return want_block ? 0 : 2;
		/* wait for the server to answer (bounded, then look again) */
		pfd.fd = PQsocket(c);
		pfd.events = POLLIN;
		pfd.revents = 0;
		poll(&pfd, 1, 10);
	}
}

/* The result as the schedule tables write it. */
static void
format_result(PGresult *r, Kind kind, char *out, size_t len)
{
	ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;

	if (st == PGRES_COMMAND_OK)
		snprintf(out, len, "%s", PQcmdStatus(r));
	else if (st == PGRES_TUPLES_OK && kind == K_READ)
		snprintf(out, len, "%s", PQntuples(r) == 1 ? PQgetvalue(r, 0, 0) : "<no row>");
	else if (st == PGRES_TUPLES_OK)
	{
		size_t		n = 0;

		out[0] = '\0';
		for (int i = 0; i < PQntuples(r) && n < len; i++)
			n += snprintf(out + n, len - n, "%s%s=%s", i ? " " : "",
						  PQgetvalue(r, i, 0), PQgetvalue(r, i, 1));
	}
	else
	{
		const char *code = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;

		snprintf(out, len, "E%s", code ? code : "?????");
	}
}

/* Apply a finished step's result to the session's transaction. */
static void
apply_result(Sched *S, int i, const Step *st, int opidx, PGresult *r, const char *got)
{
	SSess	   *ss = &S->s[i];

	if (got[0] == 'E' && !ss->error[0])
		snprintf(ss->error, sizeof(ss->error), "%s", got + 1);
	if (st->kind == K_READ && PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
	{
		Op		   *op = &ss->txn->ops[opidx];

		op->has_read = parse_int_array(PQgetvalue(r, 0, 0), &op->read_list, &op->read_len);
	}
	if (st->kind == K_COMMIT)
	{
		TxnStatus	ts = strcmp(got, "COMMIT") == 0 ? ST_OK : ST_FAIL;

		history_complete(S->h, ss->txn, ts,
						 ts == ST_OK ? NULL : ss->error[0] ? ss->error : "ROLLBACK");
	}
}

/* Compare a step's result with the expected one; print the step. */
static bool
check(Sched *S, int i, const char *expect, const char *got)
{
	char		buf[128];

	if (strcmp(expect, got) != 0)
		return mismatch_expected(S, i, expect, got);
	if (!S->o->quiet)
		fprintf(stderr, "  %-28s -> %s\n", step_text(S, i, buf, sizeof(buf)), got);
	return true;
}

static bool
read_all(Sched *S, int i)
{
	const Step *st = &S->steps[i];
	Txn		   *t = txn_new(2, 2);
	char		sql[256];
	char		got[256];
	PGresult   *r;
	bool		ok = true;

	for (int k = 0; k < 2; k++)
	{
		t->ops[k].type = OP_R;
		t->ops[k].key = k + 1;
	}
	history_invoke(S->h, t);
	r = PQexec(S->mon, iso_begin_sql(S->o->isolation));
	if (PQresultStatus(r) != PGRES_COMMAND_OK)
		ok = false;
	PQclear(r);
	snprintf(sql, sizeof(sql), "SELECT k, v FROM %s ORDER BY k", S->table);
	r = PQexec(S->mon, sql);
	if (!ok || PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 2)
	{
		errmsg_out("T3 read all failed: %s", PQerrorMessage(S->mon));
		PQclear(r);
		return false;
	}
	format_result(r, K_READALL, got, sizeof(got));
	for (int k = 0; k < 2; k++)
		t->ops[k].has_read = parse_int_array(PQgetvalue(r, k, 1), &t->ops[k].read_list,
											 &t->ops[k].read_len);
	PQclear(r);
	r = PQexec(S->mon, "COMMIT");
	ok = committed(r);
	PQclear(r);
	if (!ok)
	{
		errmsg_out("T3 did not commit: %s", PQerrorMessage(S->mon));
		return false;
	}
	history_complete(S->h, t, ST_OK, NULL);
	return check(S, i, st->exp[S->lvl], got);
}

/* The monitor connection, and the table with rows 1 and 2. */
static bool
setup_table(Sched *S)
{
	char		err[512];
	char		sql[512];
	char	   *q;

	S->mon = connect_db(S->o->target, "isograph-record-monitor", err, sizeof(err));
	if (!S->mon)
	{
		errmsg_out("cannot connect to the target database: %s", err);
		return false;
	}
	q = PQescapeIdentifier(S->mon, S->o->table, strlen(S->o->table));
	snprintf(S->table, sizeof(S->table), "%s", q);
	PQfreemem(q);
	snprintf(sql, sizeof(sql), "DROP TABLE IF EXISTS %s", S->table);
	if (!sql_run_or_report(S->mon, sql, PGRES_COMMAND_OK))
		return false;
	snprintf(sql, sizeof(sql),
			 "CREATE TABLE %s (k bigint PRIMARY KEY, v bigint[] NOT NULL DEFAULT '{}')",
			 S->table);
	if (!sql_run_or_report(S->mon, sql, PGRES_COMMAND_OK))
		return false;
	snprintf(sql, sizeof(sql), "INSERT INTO %s (k) VALUES (1), (2)", S->table);
	return sql_run_or_report(S->mon, sql, PGRES_COMMAND_OK);
}

static bool
is_micro_op(const Step *st)
{
	return st->kind == K_READ || st->kind == K_APPEND;
}

/* Session i's connection, and its one transaction: its steps' micro-ops. */
static bool
open_session(Sched *S, int i)
{
	SSess	   *ss = &S->s[i];
	char		err[512];
	int			nops = 0,
				j = 0;

	ss->conn = connect_db(S->o->target, "isograph-record-schedule", err, sizeof(err));
	if (!ss->conn)
	{
		errmsg_out("cannot connect to the target database: %s", err);
		return false;
	}
	ss->pid = PQbackendPID(ss->conn);
	ss->pending = -1;
	for (const Step *st = S->steps; st->sess >= 0; st++)
		nops += st->sess == i && is_micro_op(st);
	ss->txn = txn_new(i, nops);
	for (const Step *st = S->steps; st->sess >= 0; st++)
		if (st->sess == i && is_micro_op(st))
		{
			ss->txn->ops[j].type = st->kind == K_READ ? OP_R : OP_APPEND;
			ss->txn->ops[j].key = st->key;
			ss->txn->ops[j].value = st->val;
			j++;
		}
	return true;
}

/* The statement of a step of T1 or T2; *opidx: its micro-op, or -1. */
static void
step_sql(Sched *S, const Step *st, SSess *ss, int *opidx, char *sql, size_t len)
{
	*opidx = -1;
	switch (st->kind)
	{
		case K_BEGIN:
			history_invoke(S->h, ss->txn);
			snprintf(sql, len, "%s", iso_begin_sql(S->o->isolation));
			break;
		case K_READ:
			*opidx = ss->nextop++;
			snprintf(sql, len, "SELECT v FROM %s WHERE k = %d", S->table, st->key);
			break;
		case K_APPEND:
			*opidx = ss->nextop++;
			snprintf(sql, len, "UPDATE %s SET v = v || %d::bigint WHERE k = %d",
					 S->table, st->val, st->key);
			break;
		case K_COMMIT:
			snprintf(sql, len, "COMMIT");
			break;
		default:
			sql[0] = '\0';
			break;
	}
}

/* After a COMMIT: the other session's blocked statement must finish now. */
static bool
release_blocked(Sched *S, int other)
{
	SSess	   *os = &S->s[other];
	const Step *pst;
	PGresult   *r;
	char		got[256];
	int			w;

	if (os->pending < 0)
		return true;
	pst = &S->steps[os->pending];
	w = await(S, other, false, &r);
	if (w < 0)
		return false;
	if (w == 2)
		return mismatch(S, os->pending, "still blocked after the other session's COMMIT");
	format_result(r, pst->kind, got, sizeof(got));
	apply_result(S, other, pst, os->pending_op, r, got);
	PQclear(r);
	if (!check(S, os->pending, pst->exp[S->lvl] + 7, got))
		return false;
	os->pending = -1;
	return true;
}

/* Step i of T1 or T2: send it, see it finish or block as expected. */
static bool
run_step(Sched *S, int i)
{
	const Step *st = &S->steps[i];
	const char *exp = st->exp[S->lvl];
	bool		want_block = strncmp(exp, "BLOCKS|", 7) == 0;
	SSess	   *ss = &S->s[st->sess];
	PGresult   *r;
	int			opidx;
	int			w;
	char		sql[512];
	char		got[256];

	if (ss->pending >= 0)
		return mismatch(S, i, "the session is still blocked");
	step_sql(S, st, ss, &opidx, sql, sizeof(sql));
	if (!PQsendQuery(ss->conn, sql))
	{
		errmsg_out("session T%d: %s", st->sess + 1, PQerrorMessage(ss->conn));
		return false;
	}
	w = await(S, st->sess, want_block, &r);
	if (w < 0)
		return false;
	if (w == 2)
		return mismatch_expected(S, i, exp, "BLOCKS");
	if (w == 0)
	{
		ss->pending = i;
		ss->pending_op = opidx;
		return check(S, i, "BLOCKS", "BLOCKS");
	}
	format_result(r, st->kind, got, sizeof(got));
	if (want_block)
	{
		PQclear(r);
		return mismatch_expected(S, i, "BLOCKS", got);
	}
	apply_result(S, st->sess, st, opidx, r, got);
	PQclear(r);
	if (!check(S, i, exp, got))
		return false;
	/* a COMMIT may release the other session's blocked statement */
	return st->kind != K_COMMIT || release_blocked(S, 1 - st->sess);
}

int
schedule_run(const Options *o, History *h)
{
	Sched		S;

	memset(&S, 0, sizeof(S));
	S.o = o;
	S.h = h;
	S.lvl = o->isolation == ISO_RC ? 0 : o->isolation == ISO_RR ? 1 : 2;
	S.steps = strcmp(o->schedule, "lost-update") == 0 ? lost_update :
		strcmp(o->schedule, "read-skew") == 0 ? read_skew : write_skew;
	if (!setup_table(&S) || !open_session(&S, 0) || !open_session(&S, 1))
		return EXIT_RUNTIME;
	history_init(h);
	if (!o->quiet)
		fprintf(stderr, "schedule %s at %s:\n", o->schedule, iso_name(o->isolation));
	for (int i = 0; S.steps[i].sess >= 0; i++)
	{
		bool		ok = S.steps[i].kind == K_READALL ? read_all(&S, i) : run_step(&S, i);

		if (!ok)
			return EXIT_RUNTIME;
	}
	for (int i = 0; i < 2; i++)
		PQfinish(S.s[i].conn);
	PQfinish(S.mon);
	return 0;
}
