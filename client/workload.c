/*
 * workload.c: the workload table on the target, the pool of hot keys, the
 * random transactions, and the final read of every key.  (What the writes
 * returned gives each register key's version order: version_order.c.)
 *
 * Every key's row exists before any transaction touches it: keys are
 * created in batches by an autocommit INSERT on the admin connection, before
 * they are handed out.  Writes are plain UPDATEs, never INSERTs (inserting
 * absent keys adds spurious 40001/23505 errors at REPEATABLE READ and
 * SERIALIZABLE).  Each key gets at most --writes-per-key writes; then it is
 * retired and a fresh key takes its place, which keeps lists short.
 */
#include "workload.h"

#include "rng.h"

#include <stdlib.h>
#include <string.h>

#define KEY_BATCH 512

struct Workload
{
	const Options *opt;
	PGconn	   *admin;
	char	   *table;			/* quoted identifier */
	pthread_mutex_t mu;
	int64_t    *active;			/* opt->keys hot keys */
	int64_t		next_key;		/* next key to activate */
	int64_t		created;		/* keys 1..created exist in the table */
	int64_t    *counter;		/* values written per key, by key */
	int64_t		counter_cap;
};

Workload *
workload_new(const Options *o, PGconn *admin)
{
	Workload   *w = xmalloc(sizeof(Workload));
	char	   *q;

	w->opt = o;
	w->admin = admin;
	q = PQescapeIdentifier(admin, o->table, strlen(o->table));
	w->table = xstrdup(q ? q : "\"isograph_bad\"");
	PQfreemem(q);
	pthread_mutex_init(&w->mu, NULL);
	w->active = xmalloc(sizeof(int64_t) * o->keys);
	return w;
}

const char *
workload_table(Workload *w)
{
	return w->table;
}

/* Create keys up to at least 'upto' (autocommit, admin connection). */
static bool
create_keys(Workload *w, int64_t upto, char *err, size_t errlen)
{
	char		sql[512];
	int64_t		to;

	if (upto <= w->created)
		return true;
	to = upto + KEY_BATCH;
	snprintf(sql, sizeof(sql),
			 "INSERT INTO %s (k) SELECT g FROM pg_catalog.generate_series(%lld, %lld) g",
			 w->table, (long long) w->created + 1, (long long) to);
	if (!sql_run(w->admin, sql, PGRES_COMMAND_OK, err, errlen))
		return false;
	w->created = to;
	if (to + 1 > w->counter_cap)
	{
		int64_t		ncap = (to + 1) * 2;

		w->counter = xrealloc(w->counter, sizeof(int64_t) * ncap);
		memset(w->counter + w->counter_cap, 0, sizeof(int64_t) * (ncap - w->counter_cap));
		w->counter_cap = ncap;
	}
	return true;
}

bool
workload_setup_table(Workload *w)
{
	char		sql[1024];
	char		err[512];

	snprintf(sql, sizeof(sql), "DROP TABLE IF EXISTS %s", w->table);
	if (!sql_run(w->admin, sql, PGRES_COMMAND_OK, err, sizeof(err)))
		goto fail;
	if (w->opt->workload == WL_LIST_APPEND)
		snprintf(sql, sizeof(sql),
				 "CREATE TABLE %s (k bigint PRIMARY KEY, v bigint[] NOT NULL DEFAULT '{}')",
				 w->table);
	else
		snprintf(sql, sizeof(sql),
				 "CREATE TABLE %s (k bigint PRIMARY KEY, v bigint, prev bigint)",
				 w->table);
	if (!sql_run(w->admin, sql, PGRES_COMMAND_OK, err, sizeof(err)))
		goto fail;
	w->created = 0;
	if (!create_keys(w, w->opt->keys, err, sizeof(err)))
		goto fail;
	for (int i = 0; i < w->opt->keys; i++)
		w->active[i] = i + 1;
	w->next_key = w->opt->keys + 1;
	return true;
fail:
	errmsg_out("cannot set up the workload table %s on the target: %s", w->table, err);
	return false;
}

int64_t
workload_max_key(Workload *w)
{
	int64_t		m;

	pthread_mutex_lock(&w->mu);
	m = w->next_key - 1;
	pthread_mutex_unlock(&w->mu);
	return m;
}

/*
 * Put the writes of t in ascending key order, in the places the writes
 * hold; reads stay where they were drawn.  Values of one key keep the order
 * they were drawn in (ascending).
 */
static void
sort_writes(Txn *t, int nw)
{
	int64_t    *kv = xmalloc(sizeof(int64_t) * 2 * nw);
	int			j = 0;

	for (int i = 0; i < t->nops; i++)
		if (t->ops[i].type != OP_R)
		{
			kv[2 * j] = t->ops[i].key;
			kv[2 * j + 1] = t->ops[i].value;
			j++;
		}
	qsort(kv, nw, sizeof(int64_t) * 2, cmp_int64_pair);
	j = 0;
	for (int i = 0; i < t->nops; i++)
		if (t->ops[i].type != OP_R)
		{
			t->ops[i].key = kv[2 * j];
			t->ops[i].value = kv[2 * j + 1];
			j++;
		}
	free(kv);
}

/*
 * Draw op's key from the hot keys, and make it a read or a write of the
 * key's next value.  A key that reached --writes-per-key is retired: a
 * fresh, already created key takes its slot.  Called with w->mu held.
 */
static bool
draw_op(Workload *w, uint64_t *rng, Op *op, char *err, size_t errlen)
{
	const Options *o = w->opt;
	int			slot = (int) (rng_next(rng) % (uint64_t) o->keys);
	int64_t		key = w->active[slot];

	op->key = key;
	if (rng_unit(rng) < o->read_fraction)
	{
		op->type = OP_R;
		return true;
	}
	op->type = o->workload == WL_LIST_APPEND ? OP_APPEND : OP_W;
	op->value = ++w->counter[key];
	if (o->writes_per_key > 0 && w->counter[key] >= o->writes_per_key)
	{
		if (w->next_key > w->created && !create_keys(w, w->next_key, err, errlen))
			return false;
		w->active[slot] = w->next_key++;
	}
	return true;
}

/*
 * A random transaction: --min-txn-len..--max-txn-len micro-ops, each a read
 * of a whole key (probability --read-fraction) or a write of a fresh value.
 * With ascending writes (default), the writes of a transaction touch keys
 * in ascending order, so row locks are always taken in one global order and
 * sessions never deadlock.
 */
Txn *
workload_gen(Workload *w, uint64_t *rng, int64_t process, char *err, size_t errlen)
{
	const Options *o = w->opt;
	int			span = o->max_txn_len - o->min_txn_len + 1;
	int			n = o->min_txn_len + (int) (rng_next(rng) % (uint64_t) span);
	Txn		   *t = txn_new(process, n);
	int			nw = 0;

	pthread_mutex_lock(&w->mu);
	for (int i = 0; i < n; i++)
	{
		if (!draw_op(w, rng, &t->ops[i], err, errlen))
		{
			pthread_mutex_unlock(&w->mu);
			free(t->ops);
			free(t);
			return NULL;
		}
		nw += t->ops[i].type != OP_R;
	}
	pthread_mutex_unlock(&w->mu);
	if (o->ascending_writes && nw > 1)
		sort_writes(t, nw);
	return t;
}

/* Keep the rows of SELECT k, v in t's reads; false if a list does not parse. */
static bool
take_reads(Workload *w, Txn *t, PGresult *r)
{
	bool		ok = true;

	for (int i = 0; i < PQntuples(r); i++)
	{
		Op		   *op = &t->ops[i];

		op->has_read = true;
		if (PQgetisnull(r, i, 1))
			op->read_nil = true;
		else if (w->opt->workload == WL_LIST_APPEND)
			ok = ok && parse_int_array(PQgetvalue(r, i, 1), &op->read_list, &op->read_len);
		else
			op->read_val = strtoll(PQgetvalue(r, i, 1), NULL, 10);
	}
	return ok;
}

/*
 * One try of the final read: BEGIN, sql, COMMIT.  *ok says whether it
 * committed with every read kept in t; the last result is returned, for
 * its SQLSTATE.
 */
static PGresult *
final_read_once(Workload *w, PGconn *conn, const char *sql, Txn *t, bool *ok)
{
	PGresult   *r = PQexec(conn, iso_begin_sql(w->opt->isolation));

	*ok = false;
	if (PQresultStatus(r) != PGRES_COMMAND_OK)
		return r;
	PQclear(r);
	r = PQexec(conn, sql);
	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != t->nops ||
		!take_reads(w, t, r))
		return r;
	PQclear(r);
	r = PQexec(conn, "COMMIT");
	*ok = committed(r);
	return r;
}

/* A transaction that reads keys 1..maxk. */
static Txn *
read_all_txn(int64_t process, int64_t maxk)
{
	Txn		   *t = txn_new(process, (int) maxk);

	for (int64_t i = 0; i < maxk; i++)
	{
		t->ops[i].type = OP_R;
		t->ops[i].key = i + 1;
	}
	return t;
}

/*
 * A last transaction that reads every key used, in one SELECT, so every
 * committed append or write shows in the version order.  Retried a few
 * times if the server aborts it.
 */
bool
workload_final_read(Workload *w, PGconn *conn, History *h, int64_t process)
{
	int64_t		maxk = workload_max_key(w);
	char		sql[512];

	snprintf(sql, sizeof(sql), "SELECT k, v FROM %s WHERE k <= %lld ORDER BY k",
			 w->table, (long long) maxk);
	for (int attempt = 0; attempt < 5; attempt++)
	{
		Txn		   *t = read_all_txn(process, maxk);
		PGresult   *r;
		const char *sqlstate;
		char		code[8];
		bool		ok;

		history_invoke(h, t);
		r = final_read_once(w, conn, sql, t, &ok);
		if (ok)
		{
			PQclear(r);
			history_complete(h, t, ST_OK, NULL);
			return true;
		}
		sqlstate = PQresultErrorField(r, PG_DIAG_SQLSTATE);
		snprintf(code, sizeof(code), "%s", sqlstate ? sqlstate : "");
		errmsg_out("final read failed (%s): %s", code[0] ? code : "?", PQerrorMessage(conn));
		PQclear(r);
		PQclear(PQexec(conn, "ROLLBACK"));
		history_complete(h, t, ST_FAIL, code[0] ? code : "error");
		if (PQstatus(conn) != CONNECTION_OK)
			return false;
	}
	return false;
}
