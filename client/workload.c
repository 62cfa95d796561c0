/*
 * workload.c: the workload table on the target, the pool of hot keys, the
 * random transactions, and (rw-register) the per-key version order rebuilt
 * from what each UPDATE ... RETURNING prev returned.
 *
 * Every key's row exists before any transaction touches it: keys are
 * created in batches by an autocommit INSERT on the admin connection, before
 * they are handed out.  Writes are plain UPDATEs, never INSERTs (inserting
 * absent keys adds spurious 40001/23505 errors at REPEATABLE READ and
 * SERIALIZABLE).  Each key gets at most --writes-per-key writes; then it is
 * retired and a fresh key takes its place, which keeps lists short.
 */
#include "record.h"

#include <stdlib.h>
#include <string.h>

#define KEY_BATCH 512

struct Workload
{
	const Options *opt;
	PGconn	   *admin;
	char	   *table;			/* quoted identifier */
	char	   *table_raw;
	pthread_mutex_t mu;
	int64_t    *active;			/* opt->keys hot keys */
	int64_t		next_key;		/* next key to activate */
	int64_t		created;		/* keys 1..created exist in the table */
	int64_t    *counter;		/* values written per key, by key */
	int64_t		counter_cap;
};

uint64_t
rng_next(uint64_t *s)
{
	/* splitmix64 */
	uint64_t	z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

double
rng_unit(uint64_t *s)
{
	return (double) (rng_next(s) >> 11) / (double) (1ULL << 53);
}

Workload *
workload_new(const Options *o, PGconn *admin)
{
	Workload   *w = xmalloc(sizeof(Workload));
	char	   *q;

	w->opt = o;
	w->admin = admin;
	w->table_raw = xstrdup(o->table);
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

static bool
exec_ok(PGconn *c, const char *sql, char *err, size_t errlen)
{
	PGresult   *r = PQexec(c, sql);
	bool		ok = PQresultStatus(r) == PGRES_COMMAND_OK ||
		PQresultStatus(r) == PGRES_TUPLES_OK;

	if (!ok)
		snprintf(err, errlen, "%s", PQerrorMessage(c));
	PQclear(r);
	return ok;
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
	if (!exec_ok(w->admin, sql, err, errlen))
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
	if (!exec_ok(w->admin, sql, err, sizeof(err)))
		goto fail;
	if (w->opt->workload == WL_LIST_APPEND)
		snprintf(sql, sizeof(sql),
				 "CREATE TABLE %s (k bigint PRIMARY KEY, v bigint[] NOT NULL DEFAULT '{}')",
				 w->table);
	else
		snprintf(sql, sizeof(sql),
				 "CREATE TABLE %s (k bigint PRIMARY KEY, v bigint, prev bigint)",
				 w->table);
	if (!exec_ok(w->admin, sql, err, sizeof(err)))
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

static int
cmp_write(const void *a, const void *b)
{
	const int64_t *x = a,
			   *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	/* same key: keep the order the values were drawn in (ascending) */
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/*
 * A random transaction: --min-txn-len..--max-txn-len micro-ops, each a read
 * of a whole key (probability --read-fraction) or a write of a fresh value.
 * With ascending writes (default), the writes of a transaction touch keys
 * in ascending order, so row locks are always taken in one global order and
 * sessions never deadlock; reads stay where they were drawn.
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
		Op		   *op = &t->ops[i];
		int			slot = (int) (rng_next(rng) % (uint64_t) o->keys);
		int64_t		key = w->active[slot];

		op->key = key;
		if (rng_unit(rng) < o->read_fraction)
		{
			op->type = OP_R;
			continue;
		}
		op->type = o->workload == WL_LIST_APPEND ? OP_APPEND : OP_W;
		op->value = ++w->counter[key];
		nw++;
		if (o->writes_per_key > 0 && w->counter[key] >= o->writes_per_key)
		{
			/* retire the key: a fresh, already created key replaces it */
			if (w->next_key > w->created &&
				!create_keys(w, w->next_key, err, errlen))
			{
				pthread_mutex_unlock(&w->mu);
				free(t->ops);
				free(t);
				return NULL;
			}
			w->active[slot] = w->next_key++;
		}
	}
	pthread_mutex_unlock(&w->mu);

	if (o->ascending_writes && nw > 1)
	{
		int64_t    *kv = xmalloc(sizeof(int64_t) * 2 * nw);
		int			j = 0;

		for (int i = 0; i < n; i++)
			if (t->ops[i].type != OP_R)
			{
				kv[2 * j] = t->ops[i].key;
				kv[2 * j + 1] = t->ops[i].value;
				j++;
			}
		qsort(kv, nw, sizeof(int64_t) * 2, cmp_write);
		j = 0;
		for (int i = 0; i < n; i++)
			if (t->ops[i].type != OP_R)
			{
				t->ops[i].key = kv[2 * j];
				t->ops[i].value = kv[2 * j + 1];
				j++;
			}
		free(kv);
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
		Txn		   *t = txn_new(process, (int) maxk);
		PGresult   *r;
		const char *code = NULL;
		bool		ok = false;

		for (int64_t i = 0; i < maxk; i++)
		{
			t->ops[i].type = OP_R;
			t->ops[i].key = i + 1;
		}
		history_invoke(h, t);
		r = PQexec(conn, iso_begin_sql(w->opt->isolation));
		if (PQresultStatus(r) == PGRES_COMMAND_OK)
		{
			PQclear(r);
			r = PQexec(conn, sql);
			if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == maxk)
			{
				ok = true;
				for (int i = 0; i < PQntuples(r); i++)
				{
					Op		   *op = &t->ops[i];

					op->has_read = true;
					if (PQgetisnull(r, i, 1))
						op->read_nil = true;
					else if (w->opt->workload == WL_LIST_APPEND)
						ok = ok && parse_int_array(PQgetvalue(r, i, 1),
												   &op->read_list, &op->read_len);
					else
						op->read_val = strtoll(PQgetvalue(r, i, 1), NULL, 10);
				}
			}
			else
				code = PQresultErrorField(r, PG_DIAG_SQLSTATE);
		}
		else
			code = PQresultErrorField(r, PG_DIAG_SQLSTATE);
		if (ok)
		{
			PQclear(r);
			r = PQexec(conn, "COMMIT");
			ok = PQresultStatus(r) == PGRES_COMMAND_OK &&
				strcmp(PQcmdStatus(r), "COMMIT") == 0;
			if (!ok)
				code = PQresultErrorField(r, PG_DIAG_SQLSTATE);
		}
		if (ok)
		{
			PQclear(r);
			history_complete(h, t, ST_OK, NULL);
			return true;
		}
		errmsg_out("final read failed (%s): %s", code ? code : "?",
				   PQerrorMessage(conn));
		PQclear(r);
		PQclear(PQexec(conn, "ROLLBACK"));
		history_complete(h, t, ST_FAIL, code ? code : "error");
		if (PQstatus(conn) != CONNECTION_OK)
			return false;
	}
	return false;
}

/* ---- register version order ---- */

typedef struct VEnt
{
	int64_t		key;
	bool		prev_nil;
	int64_t		prev;
	int64_t		val;
	bool		ok;				/* written by an ok transaction */
	bool		used;
} VEnt;

static int
cmp_pair(const void *a, const void *b)
{
	const int64_t *x = a,
			   *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

static int
cmp_vent(const void *a, const void *b)
{
	const VEnt *x = a,
			   *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->prev_nil != y->prev_nil)
		return x->prev_nil ? -1 : 1;
	if (x->prev != y->prev)
		return x->prev < y->prev ? -1 : 1;
	return 0;
}

/*
 * The version order of each key, from the server: every UPDATE ... SET
 * prev = v, v = $new ... RETURNING prev returned the version it overwrote,
 * so (prev -> new) links of committed writes form one chain per key,
 * starting at NULL.  Writes of fail transactions are rolled back and are
 * left out.  Writes of info transactions are followed only when no ok write
 * continues the chain from the same version and exactly one info write does;
 * if the chain stops at a version no recorded write continues, but exactly
 * one unrecorded version (an info write whose RETURNING never arrived) is
 * the prev of a recorded write, the chain goes on through it.  Versions of
 * info transactions are written to the log only when an ok transaction
 * read them (proof they committed); the log is the committed chain with
 * unproven versions left out, in the server's order.
 * Returns the number of (key, position, value) rows.
 */
size_t
workload_versions(Workload *w, History *h, int64_t **keys_out, int64_t **vals_out,
				  int **pos_out)
{
	VEnt	   *e = NULL;
	int64_t    *rd = NULL;		/* (key, value) pairs read by ok txns */
	size_t		nrd = 0,
				caprd = 0;
	size_t		n = 0,
				cap = 0,
				nout = 0;
	int64_t    *ks,
			   *vs;
	int		   *ps;

	(void) w;
	for (size_t i = 0; i < h->nevents; i++)
	{
		Txn		   *t = h->events[i].txn;

		if (!h->events[i].completion || (t->status != ST_OK && t->status != ST_INFO))
			continue;
		for (int j = 0; j < t->nops; j++)
		{
			Op		   *op = &t->ops[j];

			if (op->type == OP_R && t->status == ST_OK && op->has_read && !op->read_nil)
			{
				if (nrd == caprd)
				{
					caprd = caprd ? caprd * 2 : 1024;
					rd = xrealloc(rd, sizeof(int64_t) * 2 * caprd);
				}
				rd[2 * nrd] = op->key;
				rd[2 * nrd + 1] = op->read_val;
				nrd++;
			}
			if (op->type != OP_W || !op->has_prev)
				continue;
			if (n == cap)
			{
				cap = cap ? cap * 2 : 1024;
				e = xrealloc(e, sizeof(VEnt) * cap);
			}
			e[n].key = op->key;
			e[n].prev_nil = op->prev_nil;
			e[n].prev = op->prev;
			e[n].val = op->value;
			e[n].ok = t->status == ST_OK;
			e[n].used = false;
			n++;
		}
	}
	ks = xmalloc(sizeof(int64_t) * (n + 1));
	vs = xmalloc(sizeof(int64_t) * (n + 1));
	ps = xmalloc(sizeof(int) * (n + 1));
	if (n)
		qsort(e, n, sizeof(VEnt), cmp_vent);
	if (nrd)
		qsort(rd, nrd, sizeof(int64_t) * 2, cmp_pair);
	for (size_t g = 0; g < n;)
	{
		size_t		ge = g;
		bool		cur_nil = true;
		int64_t		cur = 0;
		int			pos = 0;
		size_t		out_start = nout;

		while (ge < n && e[ge].key == e[g].key)
			ge++;
		for (;;)
		{
			size_t		lo = g,
						hi = ge;
			size_t		pick = SIZE_MAX;
			bool		emit = false;
			int			nok = 0,
						ninfo = 0;

			/* binary search the first entry with prev == cur */
			while (lo < hi)
			{
				size_t		mid = (lo + hi) / 2;
				VEnt		probe = {e[g].key, cur_nil, cur, 0, false, false};

				if (cmp_vent(&e[mid], &probe) < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (size_t i = lo; i < ge && e[i].prev_nil == cur_nil &&
				 (cur_nil || e[i].prev == cur); i++)
			{
				if (e[i].used)
					continue;
				if (e[i].ok)
				{
					nok++;
					if (nok == 1)
						pick = i;
				}
				else
					ninfo++;
			}
			if (nok > 1)
			{
				errmsg_out("warning: key %lld: %d committed writes overwrote the same version; "
						   "version order stops there", (long long) e[g].key, nok);
				break;
			}
			if (nok == 0 && ninfo == 1)
			{
				for (size_t i = lo; i < ge && e[i].prev_nil == cur_nil &&
					 (cur_nil || e[i].prev == cur); i++)
					if (!e[i].used)
						pick = i;
			}
			if (pick != SIZE_MAX)
			{
				e[pick].used = true;
				cur_nil = false;
				cur = e[pick].val;
				emit = e[pick].ok;
			}
			else if (nok == 0 && ninfo == 0)
			{
				/* an unrecorded version continued by a recorded write? */
				int			orphans = 0;
				int64_t		orphan = 0;

				for (size_t i = g; i < ge; i++)
				{
					bool		known = false;

					if (e[i].used || e[i].prev_nil)
						continue;
					for (size_t j = g; j < ge && !known; j++)
						known = e[j].val == e[i].prev;
					if (!known && (orphans == 0 || orphan != e[i].prev))
					{
						orphans++;
						orphan = e[i].prev;
					}
				}
				for (size_t j = out_start; j < nout && orphans == 1; j++)
					if (vs[j] == orphan)
						orphans = 0;
				if (orphans != 1)
					break;
				cur_nil = false;
				cur = orphan;
				emit = false;
			}
			else
				break;			/* several unconfirmed info writes */

			/*
			 * A version written by an info transaction is logged only when
			 * an ok transaction read it (then the checker knows it
			 * committed); otherwise the chain goes on through it without
			 * logging it, and later versions keep their order.
			 */
			if (!emit)
			{
				int64_t		probe[2] = {e[g].key, cur};

				emit = nrd > 0 && bsearch(probe, rd, nrd, sizeof(int64_t) * 2, cmp_pair) != NULL;
			}
			if (!emit)
				continue;
			ks[nout] = e[g].key;
			vs[nout] = cur;
			ps[nout] = pos++;
			nout++;
		}
		g = ge;
	}
	free(e);
	free(rd);
	*keys_out = ks;
	*vals_out = vs;
	*pos_out = ps;
	return nout;
}
