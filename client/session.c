/*
 * session.c: one client session = one thread = one connection.
 *
 * Each transaction is BEGIN ISOLATION LEVEL ...; one statement per
 * micro-op; COMMIT.  Outcomes:
 *   ok    COMMIT returned the command tag COMMIT;
 *   fail  a definite abort: SQLSTATE 40001, 40P01, 23505, 55P03, 57014 or
 *         25P02 at any statement, or COMMIT returning the tag ROLLBACK
 *         (PostgreSQL's answer to COMMIT of an already-failed transaction,
 *         which is not an error);
 *   info  the connection was lost (at any point), or COMMIT raised any
 *         other error: the transaction may or may not have committed.
 * After info the session reconnects and continues as a new process (old
 * process + number of clients), as Jepsen does: the old process may still
 * have a transaction in flight.  Any other error stops the run.
 */
#include "session.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void
run_fatal(RunState *rs, const char *fmt,...)
{
	va_list		ap;

	pthread_mutex_lock(&rs->mu);
	if (!rs->fatal)
	{
		va_start(ap, fmt);
		vsnprintf(rs->fatal_msg, sizeof(rs->fatal_msg), fmt, ap);
		va_end(ap);
		rs->fatal = 1;
	}
	pthread_mutex_unlock(&rs->mu);
}

typedef enum
{
	OUT_OK,
	OUT_FAIL,
	OUT_INFO,
	OUT_FATAL
} Outcome;

static bool
conn_lost(PGconn *c, const char *code)
{
	if (PQstatus(c) != CONNECTION_OK)
		return true;
	if (code == NULL)
		return true;			/* no SQLSTATE: a client-side (connection) error */
	return strncmp(code, "08", 2) == 0 || strcmp(code, "57P01") == 0 ||
		strcmp(code, "57P02") == 0 || strcmp(code, "57P03") == 0;
}

static bool
definite_abort(const char *code)
{
	static const char *codes[] = {"40001", "40P01", "23505", "55P03", "57014", "25P02",
	"40002", "40003", NULL};

	if (!code)
		return false;
	for (int i = 0; codes[i]; i++)
		if (strcmp(code, codes[i]) == 0)
			return true;
	return false;
}

/* Error of a statement before COMMIT. */
static Outcome
classify(Session *s, PGresult *r, char *code_out, size_t codelen)
{
	const char *code = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;

	if (conn_lost(s->conn, code))
	{
		snprintf(code_out, codelen, "connection-lost");
		return OUT_INFO;
	}
	snprintf(code_out, codelen, "%s", code);
	if (definite_abort(code))
		return OUT_FAIL;
	run_fatal(s->rs, "session %d: unexpected error %s: %s", s->id, code,
			  r ? PQresultErrorMessage(r) : PQerrorMessage(s->conn));
	return OUT_FATAL;
}

static bool
prepare(Session *s)
{
	const Options *o = s->rs->opt;
	const char *t = workload_table(s->rs->wl);
	char		sql[512];
	PGresult   *r;

	snprintf(sql, sizeof(sql), "SELECT v FROM %s WHERE k = $1", t);
	r = PQprepare(s->conn, "r", sql, 0, NULL);
	if (PQresultStatus(r) != PGRES_COMMAND_OK)
		goto bad;
	PQclear(r);
	if (o->workload == WL_LIST_APPEND)
		snprintf(sql, sizeof(sql), "UPDATE %s SET v = v || $2::bigint WHERE k = $1", t);
	else
		snprintf(sql, sizeof(sql),
				 "UPDATE %s SET prev = v, v = $2::bigint WHERE k = $1 RETURNING prev", t);
	r = PQprepare(s->conn, "w", sql, 0, NULL);
	if (PQresultStatus(r) != PGRES_COMMAND_OK)
		goto bad;
	PQclear(r);
	return true;
bad:
	if (PQstatus(s->conn) == CONNECTION_OK)
		run_fatal(s->rs, "session %d: cannot prepare statements: %s", s->id,
				  PQresultErrorMessage(r));
	PQclear(r);
	return false;
}

/* (Re)connect; retries for up to 15 s (the server may be restarting). */
static bool
session_connect(Session *s)
{
	char		err[512];
	int			tries = 0;

	for (;;)
	{
		s->conn = connect_db(s->rs->opt->target, "isograph-record", err, sizeof(err));
		if (s->conn && prepare(s))
		{
			s->rs->backend_pids[s->id] = PQbackendPID(s->conn);
			return true;
		}
		if (s->conn)
		{
			PQfinish(s->conn);
			s->conn = NULL;
			snprintf(err, sizeof(err), "connection lost while preparing");
		}
		if (s->rs->fatal || ++tries >= 150)
		{
			run_fatal(s->rs, "session %d: cannot reconnect to the target: %s", s->id, err);
			return false;
		}
		usleep(100 * 1000);		/* back-off before reconnecting */
	}
}

/*
 * A statement before COMMIT failed: the transaction's outcome (ROLLBACK
 * after a definite abort, so the connection can go on).
 */
static Outcome
statement_failed(Session *s, PGresult *r, char *code, size_t codelen)
{
	Outcome		out = classify(s, r, code, codelen);

	PQclear(r);
	if (out == OUT_FAIL)
		PQclear(PQexec(s->conn, "ROLLBACK"));
	return out;
}

/* Keep what the read returned in op; false (run stopped) if it is not one value. */
static bool
take_read(Session *s, Op *op, PGresult *r)
{
	if (PQntuples(r) != 1)
	{
		run_fatal(s->rs, "session %d: key %lld has %d rows (expected 1)",
				  s->id, (long long) op->key, PQntuples(r));
		return false;
	}
	op->has_read = true;
	if (PQgetisnull(r, 0, 0))
		op->read_nil = true;
	else if (s->rs->opt->workload == WL_RW_REGISTER)
		op->read_val = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	else if (!parse_int_array(PQgetvalue(r, 0, 0), &op->read_list, &op->read_len))
	{
		run_fatal(s->rs, "session %d: cannot parse list %s", s->id, PQgetvalue(r, 0, 0));
		return false;
	}
	return true;
}

/* Check the write changed one row; keep the version it overwrote (register). */
static bool
take_write(Session *s, Op *op, PGresult *r)
{
	if (strcmp(PQcmdTuples(r), "1") != 0)
	{
		run_fatal(s->rs, "session %d: write to key %lld updated %s rows (expected 1)",
				  s->id, (long long) op->key, PQcmdTuples(r));
		return false;
	}
	if (op->type == OP_W)
	{
		/* the version this write overwrote, as the server saw it */
		op->has_prev = true;
		op->prev_nil = PQgetisnull(r, 0, 0);
		if (!op->prev_nil)
			op->prev = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	}
	return true;
}

/* One micro-op with the prepared statements; OUT_OK to go on. */
static Outcome
run_op(Session *s, Op *op, char *code, size_t codelen)
{
	char		kbuf[24],
				vbuf[24];
	const char *params[2] = {kbuf, vbuf};
	PGresult   *r;
	ExecStatusType st;
	bool		taken;

	snprintf(kbuf, sizeof(kbuf), "%lld", (long long) op->key);
	snprintf(vbuf, sizeof(vbuf), "%lld", (long long) op->value);
	if (op->type == OP_R)
		r = PQexecPrepared(s->conn, "r", 1, params, NULL, NULL, 0);
	else
		r = PQexecPrepared(s->conn, "w", 2, params, NULL, NULL, 0);
	st = PQresultStatus(r);
	if (op->type == OP_R ? st != PGRES_TUPLES_OK :
		st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		return statement_failed(s, r, code, codelen);
	taken = op->type == OP_R ? take_read(s, op, r) : take_write(s, op, r);
	PQclear(r);
	return taken ? OUT_OK : OUT_FATAL;
}

/* COMMIT: from here on, any error but a definite abort is info. */
static Outcome
commit_outcome(Session *s, char *code, size_t codelen)
{
	PGresult   *r = PQexec(s->conn, "COMMIT");
	Outcome		out;

	if (PQresultStatus(r) == PGRES_COMMAND_OK)
	{
		const char *tag = PQcmdStatus(r);

		if (strcmp(tag, "COMMIT") == 0)
			out = OUT_OK;
		else if (strcmp(tag, "ROLLBACK") == 0)
		{
			snprintf(code, codelen, "ROLLBACK");
			out = OUT_FAIL;
		}
		else
		{
			snprintf(code, codelen, "tag-%s", tag);
			out = OUT_INFO;
		}
	}
	else
	{
		const char *c = PQresultErrorField(r, PG_DIAG_SQLSTATE);

		if (!conn_lost(s->conn, c) &&
			(strcmp(c, "40001") == 0 || strcmp(c, "40P01") == 0 || strcmp(c, "23505") == 0))
		{
			snprintf(code, codelen, "%s", c);
			out = OUT_FAIL;
		}
		else
		{
			snprintf(code, codelen, "commit-%s", conn_lost(s->conn, c) ? "connection-lost" : c);
			out = OUT_INFO;
		}
	}
	PQclear(r);
	return out;
}

static Outcome
run_txn(Session *s, Txn *t, char *code, size_t codelen)
{
	PGresult   *r = PQexec(s->conn, iso_begin_sql(s->rs->opt->isolation));

	if (PQresultStatus(r) != PGRES_COMMAND_OK)
		return statement_failed(s, r, code, codelen);
	PQclear(r);
	for (int i = 0; i < t->nops; i++)
	{
		Outcome		out = run_op(s, &t->ops[i], code, codelen);

		if (out != OUT_OK)
			return out;
	}
	return commit_outcome(s, code, codelen);
}

/* With --txns: may this session start one more transaction? */
static bool
take_turn(RunState *rs)
{
	bool		more = true;

	if (rs->opt->txns > 0)
	{
		pthread_mutex_lock(&rs->mu);
		more = rs->started < rs->opt->txns;
		if (more)
			rs->started++;
		pthread_mutex_unlock(&rs->mu);
	}
	return more;
}

/*
 * After info: drop the connection; the next transaction runs on a new one
 * as a new process (the old one may still have a transaction in flight).
 */
static void
session_disconnect(Session *s)
{
	PQfinish(s->conn);
	s->conn = NULL;
	s->rs->backend_pids[s->id] = 0;
	s->process += s->rs->opt->clients;
}

static TxnStatus
status_of(Outcome out)
{
	return out == OUT_OK ? ST_OK : out == OUT_FAIL ? ST_FAIL : ST_INFO;
}

void *
session_main(void *arg)
{
	Session    *s = arg;
	RunState   *rs = s->rs;

	if (!session_connect(s))
		return NULL;
	while (!rs->stop && !rs->fatal && take_turn(rs))
	{
		Txn		   *t;
		Outcome		out;
		char		code[64] = "";
		char		err[512];

		if (s->conn == NULL && !session_connect(s))
			break;
		t = workload_gen(rs->wl, &s->rng, s->process, err, sizeof(err));
		if (t == NULL)
		{
			run_fatal(rs, "cannot create keys on the target: %s", err);
			break;
		}
		history_invoke(rs->hist, t);
		out = run_txn(s, t, code, sizeof(code));
		if (out == OUT_FATAL)
		{
			/* the run stops; record what we know */
			history_complete(rs->hist, t, ST_INFO, "client-error");
			break;
		}
		history_complete(rs->hist, t, status_of(out), out == OUT_OK ? NULL : code);
		if (out == OUT_INFO)
			session_disconnect(s);
	}
	if (s->conn)
		PQfinish(s->conn);
	s->conn = NULL;
	rs->backend_pids[s->id] = 0;
	return NULL;
}
