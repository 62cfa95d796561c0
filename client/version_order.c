/*
 * version_order.c: the version order of each register key (rw-register
 * runs), from the server: every UPDATE ... SET prev = v, v = $new ...
 * RETURNING prev returned the version it overwrote, so the (prev -> new)
 * links of committed writes form one chain per key, starting at NULL.
 *
 * Writes of fail transactions are rolled back and are left out.  Writes of
 * info transactions are followed only when no ok write continues the chain
 * from the same version and exactly one info write does; if the chain
 * stops at a version no recorded write continues, but exactly one
 * unrecorded version (an info write whose RETURNING never arrived) is the
 * prev of a recorded write, the chain goes on through it.  Versions of info
 * transactions are written to the log only when an ok transaction read
 * them (proof they committed); the log is the committed chain with
 * unproven versions left out, in the server's order.
 */
#include "version_order.h"

#include <stdlib.h>

/* A write and the version it overwrote. */
typedef struct VEnt
{
	int64_t		key;
	bool		prev_nil;
	int64_t		prev;
	int64_t		val;
	bool		ok;				/* written by an ok transaction */
	bool		used;			/* already in the chain */
} VEnt;

/* What the history tells: the writes, and the versions ok reads saw. */
typedef struct Evidence
{
	VEnt	   *e;				/* sorted by key, then prev */
	size_t		n;
	size_t		cap;
	int64_t    *rd;				/* (key, value) pairs read by ok txns, sorted */
	size_t		nrd;
	size_t		caprd;
} Evidence;

/*
 * The (key, position, value) rows for iso_version.  They can outnumber the
 * writes: an unrecorded version an ok transaction read is logged too.
 */
typedef struct VersionLog
{
	int64_t    *ks;
	int64_t    *vs;
	int		   *ps;
	size_t		n;
	size_t		cap;
} VersionLog;

/* One key's chain as it is followed: its writes are e[g..ge). */
typedef struct Chain
{
	VEnt	   *e;
	size_t		g;
	size_t		ge;
	bool		cur_nil;		/* the version reached: NULL, or cur */
	int64_t		cur;
	int			pos;			/* next position in the log */
	size_t		out_start;		/* the key's first row in the log */
} Chain;

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

static void
add_read(Evidence *ev, int64_t key, int64_t val)
{
	if (ev->nrd == ev->caprd)
	{
		ev->caprd = ev->caprd ? ev->caprd * 2 : 1024;
		ev->rd = xrealloc(ev->rd, sizeof(int64_t) * 2 * ev->caprd);
	}
	ev->rd[2 * ev->nrd] = key;
	ev->rd[2 * ev->nrd + 1] = val;
	ev->nrd++;
}

static void
add_write(Evidence *ev, const Op *op, bool ok)
{
	VEnt	   *v;

	if (ev->n == ev->cap)
	{
		ev->cap = ev->cap ? ev->cap * 2 : 1024;
		ev->e = xrealloc(ev->e, sizeof(VEnt) * ev->cap);
	}
	v = &ev->e[ev->n++];
	v->key = op->key;
	v->prev_nil = op->prev_nil;
	v->prev = op->prev;
	v->val = op->value;
	v->ok = ok;
	v->used = false;
}

/* The reads of ok transactions, the writes of ok and info ones, sorted. */
static void
collect(Evidence *ev, History *h)
{
	for (size_t i = 0; i < h->nevents; i++)
	{
		Txn		   *t = h->events[i].txn;

		if (!h->events[i].completion || (t->status != ST_OK && t->status != ST_INFO))
			continue;
		for (int j = 0; j < t->nops; j++)
		{
			Op		   *op = &t->ops[j];

			if (op->type == OP_R && t->status == ST_OK && op->has_read && !op->read_nil)
				add_read(ev, op->key, op->read_val);
			if (op->type == OP_W && op->has_prev)
				add_write(ev, op, t->status == ST_OK);
		}
	}
	if (ev->n)
		qsort(ev->e, ev->n, sizeof(VEnt), cmp_vent);
	if (ev->nrd)
		qsort(ev->rd, ev->nrd, sizeof(int64_t) * 2, cmp_int64_pair);
}

/* Did v overwrite the version the chain reached? */
static bool
continues(const Chain *c, const VEnt *v)
{
	return v->prev_nil == c->cur_nil && (c->cur_nil || v->prev == c->cur);
}

/* The first of the key's writes that overwrote the version reached. */
static size_t
first_continuation(const Chain *c)
{
	size_t		lo = c->g,
				hi = c->ge;
	VEnt		probe = {c->e[c->g].key, c->cur_nil, c->cur, 0, false, false};

	while (lo < hi)
	{
		size_t		mid = (lo + hi) / 2;

		if (cmp_vent(&c->e[mid], &probe) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The unused write that continues the chain: the one ok write, or else
 * the one info write; SIZE_MAX if none.  *nok and *ninfo count them.
 */
static size_t
pick_write(const Chain *c, int *nok, int *ninfo)
{
	size_t		lo = first_continuation(c);
	size_t		pick = SIZE_MAX;
	size_t		info = SIZE_MAX;

	*nok = *ninfo = 0;
	for (size_t i = lo; i < c->ge && continues(c, &c->e[i]); i++)
	{
		if (c->e[i].used)
			continue;
		if (c->e[i].ok)
		{
			if (++*nok == 1)
				pick = i;
		}
		else
		{
			++*ninfo;
			info = i;
		}
	}
	if (*nok > 1)
		return SIZE_MAX;
	return *nok == 1 ? pick : *ninfo == 1 ? info : SIZE_MAX;
}

/*
 * Where no recorded write continues the chain: the one version that no
 * recorded write wrote but a recorded write overwrote (an info write whose
 * RETURNING never arrived), unless the log has it already.
 */
static bool
orphan_version(const Chain *c, const VersionLog *log, int64_t *orphan)
{
	int			orphans = 0;

	*orphan = 0;
	for (size_t i = c->g; i < c->ge; i++)
	{
		bool		known = false;

		if (c->e[i].used || c->e[i].prev_nil)
			continue;
		for (size_t j = c->g; j < c->ge && !known; j++)
			known = c->e[j].val == c->e[i].prev;
		if (!known && (orphans == 0 || *orphan != c->e[i].prev))
		{
			orphans++;
			*orphan = c->e[i].prev;
		}
	}
	for (size_t j = c->out_start; j < log->n && orphans == 1; j++)
		if (log->vs[j] == *orphan)
			orphans = 0;
	return orphans == 1;
}

/*
 * Move the chain to the next version; false where it stops.  *emit: the
 * version was written by an ok transaction.
 */
static bool
advance(Chain *c, const VersionLog *log, bool *emit)
{
	int			nok,
				ninfo;
	size_t		pick = pick_write(c, &nok, &ninfo);
	int64_t		orphan;

	if (nok > 1)
	{
		errmsg_out("warning: key %lld: %d committed writes overwrote the same version; "
				   "version order stops there", (long long) c->e[c->g].key, nok);
		return false;
	}
	if (pick != SIZE_MAX)
	{
		c->e[pick].used = true;
		c->cur_nil = false;
		c->cur = c->e[pick].val;
		*emit = c->e[pick].ok;
		return true;
	}
	/* several unconfirmed info writes, or an unrecorded version? */
	if (ninfo > 0 || !orphan_version(c, log, &orphan))
		return false;
	c->cur_nil = false;
	c->cur = orphan;
	*emit = false;
	return true;
}

/* Did an ok transaction read this version (so it committed)? */
static bool
read_by_ok(const Evidence *ev, int64_t key, int64_t val)
{
	int64_t		probe[2] = {key, val};

	return ev->nrd > 0 &&
		bsearch(probe, ev->rd, ev->nrd, sizeof(int64_t) * 2, cmp_int64_pair) != NULL;
}

static void
log_append(VersionLog *log, int64_t key, int64_t val, int pos)
{
	if (log->n == log->cap)
	{
		log->cap = log->cap ? log->cap * 2 : 64;
		log->ks = xrealloc(log->ks, sizeof(int64_t) * log->cap);
		log->vs = xrealloc(log->vs, sizeof(int64_t) * log->cap);
		log->ps = xrealloc(log->ps, sizeof(int) * log->cap);
	}
	log->ks[log->n] = key;
	log->vs[log->n] = val;
	log->ps[log->n] = pos;
	log->n++;
}

/* Follow the chain of the key whose writes are ev->e[g..ge), into log. */
static void
chain_key(Evidence *ev, size_t g, size_t ge, VersionLog *log)
{
	Chain		c = {ev->e, g, ge, true, 0, 0, log->n};
	int64_t		key = ev->e[g].key;
	bool		emit;

	while (advance(&c, log, &emit))
	{
		/*
		 * A version written by an info transaction is logged only when an
		 * ok transaction read it (then the checker knows it committed);
		 * otherwise the chain goes on through it without logging it, and
		 * later versions keep their order.
		 */
		if (emit || read_by_ok(ev, key, c.cur))
			log_append(log, key, c.cur, c.pos++);
	}
}

size_t
version_order(History *h, int64_t **keys_out, int64_t **vals_out, int **pos_out)
{
	Evidence	ev = {0};
	VersionLog	log = {0};

	collect(&ev, h);
	for (size_t g = 0; g < ev.n;)
	{
		size_t		ge = g;

		while (ge < ev.n && ev.e[ge].key == ev.e[g].key)
			ge++;
		chain_key(&ev, g, ge, &log);
		g = ge;
	}
	free(ev.e);
	free(ev.rd);
	*keys_out = log.ks;
	*vals_out = log.vs;
	*pos_out = log.ps;
	return log.n;
}
