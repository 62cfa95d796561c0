/*
 * test_blackbox_oracle.c
 *	  The version-order search (search.c, via iso_decide_levels) against
 *	  brute-force oracles on random small black-box rw-register histories.
 *	  TAP output.
 *
 * Histories: 3-7 transactions (and a tenth as many again of 6-8), 2-3
 * keys, values unique per key, at most 720 version orders (5040 for the
 * larger ones), some fail transactions, processes, and either completion
 * records only (no real time) or invoke + completion records (real time
 * from the record order).
 * Three kinds:
 *	  - random reads: every read returns nil or a value some transaction
 *		wrote to the key (committed or not, final or not);
 *	  - serial executions, and snapshot-isolated ones (snapshot reads,
 *		first-committer-wins: the loser fails), so that "holds" is common;
 *		sometimes with one read changed afterwards.
 *
 * Oracles, none of them using search.c:
 *	  E (every level): every version order of every key (each permutation
 *		of its committed final writes, nil first) given to the graph builder
 *		as a known order (an IsoVersionLog, as a write-ahead log would be);
 *		a level holds iff it holds (iso_level_holds) under some order.
 *	  S (ser, strong-session-serializable, strict-serializable, pl-2.99):
 *		some serial order of the committed transactions (respecting session
 *		order, and real-time order for strict) in which each read returns
 *		the latest write before it; pl-2.99 looks at external reads only
 *		(it does not forbid the internal anomaly).
 *	  I (si, strong-session-si): some commit order and, for each
 *		transaction, a snapshot (a prefix of the commit order before it;
 *		strong session: containing its session predecessors) from which its
 *		reads come, with no committed writer of its keys between its
 *		snapshot and its commit (first-committer-wins).
 * iso_decide_levels must agree with E on every level ("not decided" fails),
 * and so must iso_search_level alone per level with the BFS pruning; E must
 * agree with S and I (a cross-check of the oracles and of the graph
 * builder).  A violation the search reports has witness cycles: each must
 * be a chain of edges the history shows, of a kind the level forbids, whose
 * version-order facts (ww a -> b: a before b; rw: the version read before
 * the overwriting one) agree with nil first and write-follows-read, its
 * forced edges' facts left out: each forced edge must have a reason, a
 * forbidden cycle its other order closes.  (With the forced edges' facts
 * some witnesses have none: pruning found every order of a key forced
 * against another, and the witness is that contradiction, e.g. a "G0" of
 * forced ww edges at a level whose pl-1 holds; they are counted.)  A search
 * that holds must hold under the version order it reports (order_op, given
 * back to the graph builder as a known order).
 *
 * A mismatch prints the history as EDN (iso_levels_jepsen reproduces it).
 *
 * Usage: test_blackbox_oracle [--seed N] [--iters N]
 *		  (or ISO_ORACLE_SEED, ISO_ORACLE_ITERS).  The seed is printed.
 */
#include "port.h"
#include "cycle.h"
#include "history.h"
#include "history_edn.h"
#include "infer.h"
#include "levels.h"
#include "search.h"

#include <stdio.h>
#include <stdlib.h>

#include "history_util.h"
#include "infer_util.h"
#include "rng.h"
#include "tap.h"

#define MAXT		8
#define MAXO		4
#define MAXK		3
#define MAXV		(MAXT * MAXO + 1)	/* values of one key, 1.. */
#define ENUM_LIMIT	720			/* most version-order combinations */
#define BIG_LIMIT	5040		/* the same, for the larger histories */
#define ALL_LEVELS	((1u << ISO_LEVEL_COUNT) - 1)
#define MAX_REPORTS 5

/* ---- generated histories ---- */

typedef struct GOp
{
	bool		write;
	int			key;
	int			val;			/* written value, or value read (0 = nil) */
} GOp;

typedef struct GTxn
{
	int			n_ops;
	GOp			ops[MAXO];
	bool		ok;				/* committed (else :fail) */
	int			process;
	int			start,			/* schedule positions */
				commit;
	int			inv_rec,		/* record positions (inv_rec -1: none) */
				cmp_rec;
} GTxn;

typedef enum GKind
{
	G_RANDOM = 0,
	G_SERIAL,
	G_SI,
	G_KIND_COUNT
} GKind;

static const char *const kind_names[G_KIND_COUNT] = {"random reads", "serial", "snapshot"};

typedef struct GHist
{
	int			n,
				nk;
	GKind		kind;
	bool		timed;			/* invoke records: real time */
	bool		mutated;
	GTxn		t[MAXT];
	int			n_rec;
	int			rec_txn[2 * MAXT];
	bool		rec_invoke[2 * MAXT];
} GHist;

/* the value of key k that txn t writes last, or 0 */
static int
final_write(const GTxn *t, int k)
{
	int			v = 0;
	int			i;

	for (i = 0; i < t->n_ops; i++)
		if (t->ops[i].write && t->ops[i].key == k)
			v = t->ops[i].val;
	return v;
}

/*
 * Run txn t from state (value per key): reads must return what they return
 * in g.  external_only: check only reads that are the first access of their
 * key.  Returns whether the reads agree; new_state gets the final writes.
 */
static bool
run_txn(const GTxn *t, const int *state, bool external_only, int *new_state)
{
	int			local[MAXK];
	bool		touched[MAXK] = {false};
	int			i;

	memcpy(local, state, sizeof(local));
	for (i = 0; i < t->n_ops; i++)
	{
		const GOp  *op = &t->ops[i];

		if (op->write)
			local[op->key] = op->val;
		else if (!(external_only && touched[op->key]) && local[op->key] != op->val)
			return false;
		touched[op->key] = true;
	}
	if (new_state)
		memcpy(new_state, local, sizeof(local));
	return true;
}

/* the schedule: start and commit events; serial: each start just before its commit */
static void
make_schedule(GHist *g, bool serial)
{
	int			started[MAXT] = {0},
				committed[MAXT] = {0};
	int			pos = 0;
	int			done = 0;

	while (done < g->n)
	{
		int			cand[2 * MAXT];
		int			nc = 0;
		int			i,
					c;

		for (i = 0; i < g->n; i++)
		{
			if (!started[i])
				cand[nc++] = i;
			else if (!committed[i])
				cand[nc++] = MAXT + i;
		}
		if (serial)
		{
			/* the running one commits before another starts */
			for (i = 0; i < g->n; i++)
				if (started[i] && !committed[i])
				{
					nc = 1;
					cand[0] = MAXT + i;
				}
		}
		c = cand[rnd_int(nc)];
		if (c < MAXT)
		{
			started[c] = 1;
			g->t[c].start = pos++;
		}
		else
		{
			committed[c - MAXT] = 1;
			g->t[c - MAXT].commit = pos++;
			done++;
		}
	}
}

/* processes: a transaction takes a process whose previous one committed before its start */
static void
assign_processes(GHist *g)
{
	int			last_commit[MAXT];
	int			n_proc = 0;
	bool		sessions = chance(60);
	int			order[MAXT];
	int			i,
				j;

	for (i = 0; i < g->n; i++)
		order[i] = i;
	/* by start */
	for (i = 1; i < g->n; i++)
		for (j = i; j > 0 && g->t[order[j - 1]].start > g->t[order[j]].start; j--)
		{
			int			x = order[j];

			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	for (i = 0; i < g->n; i++)
	{
		GTxn	   *t = &g->t[order[i]];
		int			free_p[MAXT];
		int			nf = 0;

		for (j = 0; j < n_proc; j++)
			if (last_commit[j] < t->start)
				free_p[nf++] = j;
		if (sessions && nf > 0 && (n_proc >= 3 || chance(70)))
			t->process = free_p[rnd_int(nf)];
		else
			t->process = n_proc++;
		last_commit[t->process] = t->commit;
	}
}

/*
 * Records from the schedule: an invocation at the start (timed only), a
 * completion at the commit or later (before the process's next invocation).
 */
static void
make_records(GHist *g)
{
	int			pending[MAXT];
	int			np = 0;
	int			pos;
	int			i;

	g->n_rec = 0;
	for (pos = 0; pos < 2 * g->n; pos++)
	{
		for (i = 0; i < g->n; i++)
		{
			GTxn	   *t = &g->t[i];

			if (t->start == pos && g->timed)
			{
				int			j;

				/* the process's previous completion first */
				for (j = 0; j < np; j++)
					if (g->t[pending[j]].process == t->process)
					{
						g->t[pending[j]].cmp_rec = g->n_rec;
						g->rec_txn[g->n_rec] = pending[j];
						g->rec_invoke[g->n_rec++] = false;
						pending[j] = pending[--np];
						j--;
					}
				t->inv_rec = g->n_rec;
				g->rec_txn[g->n_rec] = i;
				g->rec_invoke[g->n_rec++] = true;
			}
			if (t->commit == pos)
				pending[np++] = i;
		}
		/* flush some pending completions, in a random order */
		while (np > 0 && chance(60))
		{
			int			j = rnd_int(np);

			g->t[pending[j]].cmp_rec = g->n_rec;
			g->rec_txn[g->n_rec] = pending[j];
			g->rec_invoke[g->n_rec++] = false;
			pending[j] = pending[--np];
		}
	}
	while (np > 0)
	{
		int			j = rnd_int(np);

		g->t[pending[j]].cmp_rec = g->n_rec;
		g->rec_txn[g->n_rec] = pending[j];
		g->rec_invoke[g->n_rec++] = false;
		pending[j] = pending[--np];
	}
}

/* a random value of key k some transaction writes, or nil */
static int
random_value(const GHist *g, int k, int not_txn)
{
	int			vals[MAXV];
	int			nv = 0;
	int			i,
				j;

	for (i = 0; i < g->n; i++)
		if (i != not_txn)
			for (j = 0; j < g->t[i].n_ops; j++)
				if (g->t[i].ops[j].write && g->t[i].ops[j].key == k)
					vals[nv++] = g->t[i].ops[j].val;
	if (nv == 0 || chance(20))
		return 0;
	return vals[rnd_int(nv)];
}

/* execute the schedule: snapshot reads, first-committer-wins (serial: never conflicts) */
static void
execute(GHist *g)
{
	int			state[MAXK] = {0};
	int			snap[MAXT][MAXK];
	int			last_commit_of_key[MAXK];
	int			pos,
				i;

	for (i = 0; i < MAXK; i++)
		last_commit_of_key[i] = -1;
	for (pos = 0; pos < 2 * g->n; pos++)
		for (i = 0; i < g->n; i++)
		{
			GTxn	   *t = &g->t[i];

			if (t->start == pos)
				memcpy(snap[i], state, sizeof(state));
			if (t->commit == pos)
			{
				int			local[MAXK];
				int			j;
				bool		conflict = false;

				memcpy(local, snap[i], sizeof(local));
				for (j = 0; j < t->n_ops; j++)
				{
					GOp		   *op = &t->ops[j];

					if (op->write)
					{
						local[op->key] = op->val;
						if (last_commit_of_key[op->key] > t->start)
							conflict = true;
					}
					else
						op->val = local[op->key];
				}
				if (conflict)
					t->ok = false;
				if (t->ok)
				{
					for (j = 0; j < t->n_ops; j++)
						if (t->ops[j].write)
							last_commit_of_key[t->ops[j].key] = pos;
					memcpy(state, local, sizeof(state));
				}
			}
		}
}

static long
factorial(int n)
{
	return n <= 1 ? 1 : n * factorial(n - 1);
}

static long
order_count(const GHist *g)
{
	long		total = 1;
	int			k,
				i;

	for (k = 0; k < g->nk; k++)
	{
		int			m = 0;

		for (i = 0; i < g->n; i++)
			if (g->t[i].ok && final_write(&g->t[i], k))
				m++;
		total *= factorial(m);
	}
	return total;
}

static void
generate(GHist *g, bool big)
{
	do
	{
		int			next_val[MAXK] = {0};
		int			write_pct;
		int			i,
					j;

		memset(g, 0, sizeof(*g));
		g->n = big ? 6 + rnd_int(MAXT - 5) : 3 + rnd_int(5);
		g->nk = 2 + rnd_int(MAXK - 1);
		g->kind = (GKind) rnd_int(G_KIND_COUNT);
		g->timed = chance(50);
		write_pct = chance(35) ? 65 : 45;
		for (i = 0; i < g->n; i++)
		{
			GTxn	   *t = &g->t[i];

			t->n_ops = 1 + rnd_int(3) + (chance(15) ? 1 : 0);
			t->ok = !chance(g->kind == G_RANDOM ? 8 : 5);
			t->inv_rec = -1;
			for (j = 0; j < t->n_ops; j++)
			{
				t->ops[j].write = chance(write_pct);
				t->ops[j].key = rnd_int(g->nk);
				if (t->ops[j].write)
					t->ops[j].val = ++next_val[t->ops[j].key];
			}
		}
		make_schedule(g, g->kind != G_SI);
		if (g->kind == G_RANDOM)
		{
			for (i = 0; i < g->n; i++)
			{
				GTxn	   *t = &g->t[i];
				int			own[MAXK] = {0};
				bool		touched[MAXK] = {false};

				for (j = 0; j < t->n_ops; j++)
				{
					GOp		   *op = &t->ops[j];

					if (op->write)
						own[op->key] = op->val;
					else if (touched[op->key] && chance(85))
						/* internal reads mostly consistent */
						op->val = own[op->key];
					else
						/* never the transaction's own value as an external read */
						op->val = random_value(g, op->key, i);
					if (!op->write && !touched[op->key])
						own[op->key] = op->val;
					touched[op->key] = true;
				}
			}
		}
		else
		{
			execute(g);
			if (chance(25))
			{
				/* change one external read */
				int			i2 = rnd_int(g->n);
				GTxn	   *t = &g->t[i2];

				for (j = 0; j < t->n_ops; j++)
				{
					int			p;
					bool		first = true;

					for (p = 0; p < j; p++)
						if (t->ops[p].key == t->ops[j].key)
							first = false;
					if (!t->ops[j].write && first)
					{
						t->ops[j].val = random_value(g, t->ops[j].key, i2);
						g->mutated = true;
						break;
					}
				}
			}
		}
		assign_processes(g);
		make_records(g);
	} while (order_count(g) > (big ? BIG_LIMIT : ENUM_LIMIT));
}

/* ---- EDN ---- */

static size_t
print_edn(const GHist *g, char *buf, size_t cap)
{
	size_t		len = 0;
	int			r;

#define OUT(...) (len += (size_t) snprintf(buf + len, len < cap ? cap - len : 0, __VA_ARGS__))
	for (r = 0; r < g->n_rec; r++)
	{
		const GTxn *t = &g->t[g->rec_txn[r]];
		bool		inv = g->rec_invoke[r];
		int			j;

		OUT("{:type %s, :f :txn, :value [", inv ? ":invoke" : t->ok ? ":ok" : ":fail");
		for (j = 0; j < t->n_ops; j++)
		{
			const GOp  *op = &t->ops[j];

			if (op->write)
				OUT("%s[:w %d %d]", j ? " " : "", op->key, op->val);
			else if (inv || op->val == 0)
				OUT("%s[:r %d nil]", j ? " " : "", op->key);
			else
				OUT("%s[:r %d %d]", j ? " " : "", op->key, op->val);
		}
		OUT("], :process %d, :index %d}\n", t->process, r);
	}
#undef OUT
	return len;
}

/* ---- oracle S: serial orders ---- */

typedef struct SerCtx
{
	const GHist *g;
	bool		so,
				rt,
				external_only;
	bool		placed[MAXT];
} SerCtx;

/* must a come before b (committed both): session order, real time */
static bool
before(const GHist *g, int a, int b, bool so, bool rt)
{
	const GTxn *x = &g->t[a],
			   *y = &g->t[b];

	if (so && x->process == y->process && x->cmp_rec < y->cmp_rec)
		return true;
	if (rt && g->timed && x->cmp_rec < y->inv_rec)
		return true;
	return false;
}

static bool
serial_dfs(SerCtx *c, const int *state, int left)
{
	const GHist *g = c->g;
	int			i,
				j;

	if (left == 0)
		return true;
	for (i = 0; i < g->n; i++)
	{
		int			next[MAXK];
		bool		ready = true;

		if (!g->t[i].ok || c->placed[i])
			continue;
		for (j = 0; j < g->n && ready; j++)
			if (j != i && g->t[j].ok && !c->placed[j] && before(g, j, i, c->so, c->rt))
				ready = false;
		if (!ready || !run_txn(&g->t[i], state, c->external_only, next))
			continue;
		c->placed[i] = true;
		if (serial_dfs(c, next, left - 1))
			return true;
		c->placed[i] = false;
	}
	return false;
}

static bool
oracle_serial(const GHist *g, bool so, bool rt, bool external_only)
{
	SerCtx		c;
	int			state[MAXK] = {0};
	int			i,
				n = 0;

	memset(&c, 0, sizeof(c));
	c.g = g;
	c.so = so;
	c.rt = rt;
	c.external_only = external_only;
	for (i = 0; i < g->n; i++)
		n += g->t[i].ok;
	return serial_dfs(&c, state, n);
}

/* ---- oracle I: snapshot isolation by commit order and snapshots ---- */

typedef struct SiCtx
{
	const GHist *g;
	bool		so;
	int			at[MAXT];		/* commit position -> txn */
	int			pos_of[MAXT];	/* txn -> commit position, or -1 */
	int			states[MAXT + 1][MAXK];	/* after each prefix */
} SiCtx;

static bool
writes_key(const GTxn *t, int k)
{
	return final_write(t, k) != 0;
}

static bool
si_dfs(SiCtx *c, int pos, int left)
{
	const GHist *g = c->g;
	int			i;

	if (left == 0)
		return true;
	for (i = 0; i < g->n; i++)
	{
		const GTxn *t = &g->t[i];
		int			s;
		bool		found = false;

		if (!t->ok || c->pos_of[i] >= 0)
			continue;
		/* a snapshot s (the first s committed): the latest possible first */
		for (s = pos; s >= 0 && !found; s--)
		{
			int			p,
						j;
			bool		good = true;

			/* first-committer-wins: nobody between s and pos writes its keys */
			for (p = s; p < pos && good; p++)
			{
				int			k;

				for (k = 0; k < g->nk; k++)
					if (writes_key(t, k) && writes_key(&g->t[c->at[p]], k))
						good = false;
			}
			/* strong session: its session predecessors are in the snapshot */
			for (j = 0; j < g->n && good && c->so; j++)
				if (j != i && g->t[j].ok && before(g, j, i, true, false) &&
					(c->pos_of[j] < 0 || c->pos_of[j] >= s))
					good = false;
			if (good && run_txn(t, c->states[s], false, NULL))
				found = true;
		}
		if (!found)
			continue;
		c->at[pos] = i;
		c->pos_of[i] = pos;
		/* commit: only its writes change the state */
		{
			int			k;

			for (k = 0; k < g->nk; k++)
				c->states[pos + 1][k] = writes_key(t, k) ? final_write(t, k) : c->states[pos][k];
		}
		if (si_dfs(c, pos + 1, left - 1))
			return true;
		c->pos_of[i] = -1;
	}
	return false;
}

static bool
oracle_si(const GHist *g, bool so)
{
	SiCtx		c;
	int			i,
				n = 0;

	memset(&c, 0, sizeof(c));
	c.g = g;
	c.so = so;
	for (i = 0; i < MAXT; i++)
		c.pos_of[i] = -1;
	for (i = 0; i < g->n; i++)
		n += g->t[i].ok;
	return si_dfs(&c, 0, n);
}

/* ---- the parsed history ---- */

static uint32
value_id(const IsoHistory *h, int v)
{
	char		s[16];

	snprintf(s, sizeof(s), "%d", v);
	return iso_strtab_find(&h->values, s, (int32) strlen(s));
}

static uint32
key_id(const IsoHistory *h, int k)
{
	char		s[16];

	snprintf(s, sizeof(s), "%d", k);
	return iso_strtab_find(&h->keys, s, (int32) strlen(s));
}

/* ---- oracle E: every version order, as a known order ---- */

typedef struct EnumCtx
{
	const GHist *g;
	const IsoHistory *h;
	int			m[MAXK];
	int			ver[MAXK][MAXT];	/* versions (values) of each key */
	int			perm[MAXK][MAXT];
	uint32		holds;			/* level bits that hold under some order */
	long		orders;
	bool		error;
} EnumCtx;

static void
enum_check(EnumCtx *c)
{
	IsoVersionLog log;
	uint32		keys[MAXK * MAXT];
	uint32		values[MAXK * MAXT];
	IsoInference inf;
	IsoInferOptions io = {false, false, false, false, ISO_PARALLEL_OFF, 0};
	IsoParseError err;
	uint32		order[MAXK];
	int			n = 0,
				i,
				k,
				l;

	/* the log is sorted by key id */
	for (k = 0; k < c->g->nk; k++)
		order[k] = (uint32) k;
	for (i = 1; i < c->g->nk; i++)
		for (k = i; k > 0 && key_id(c->h, (int) order[k - 1]) > key_id(c->h, (int) order[k]); k--)
		{
			uint32		x = order[k];

			order[k] = order[k - 1];
			order[k - 1] = x;
		}
	for (i = 0; i < c->g->nk; i++)
	{
		int			kk = (int) order[i];
		uint32		kid = key_id(c->h, kk);

		if (kid == ISO_NONE)
			continue;
		for (k = 0; k < c->m[kk]; k++)
		{
			keys[n] = kid;
			values[n] = value_id(c->h, c->ver[kk][c->perm[kk][k]]);
			n++;
		}
	}
	log.n = (uint32) n;
	log.keys = keys;
	log.values = values;
	c->orders++;
	memset(&inf, 0, sizeof(inf));
	if (!iso_infer(c->h, &log, &io, &inf, &err))
	{
		c->error = true;
		return;
	}
	for (l = 0; l < ISO_LEVEL_COUNT; l++)
		if (!(c->holds & (1u << l)) && iso_level_holds(&inf, (IsoLevel) l, NULL))
			c->holds |= 1u << l;
	inference_free(&inf);
}

/* permutations of key k's versions, then the next key's */
static void
enum_key(EnumCtx *c, int k)
{
	int			i;

	if (c->holds == ALL_LEVELS || c->error)
		return;
	if (k == c->g->nk)
	{
		enum_check(c);
		return;
	}
	{
		int		   *p = c->perm[k];
		int			m = c->m[k];
		int			d;

		for (i = 0; i < m; i++)
			p[i] = i;
		/* every permutation, in lexicographic order */
		for (;;)
		{
			int			a,
						b,
						x;

			enum_key(c, k + 1);
			for (d = m - 2; d >= 0 && p[d] > p[d + 1]; d--)
				;
			if (d < 0)
				break;
			for (i = m - 1; p[i] < p[d]; i--)
				;
			x = p[d];
			p[d] = p[i];
			p[i] = x;
			for (a = d + 1, b = m - 1; a < b; a++, b--)
			{
				x = p[a];
				p[a] = p[b];
				p[b] = x;
			}
		}
	}
}

static uint32
oracle_enum(const GHist *g, const IsoHistory *h, long *orders, bool *error)
{
	EnumCtx		c;
	int			i,
				k;

	memset(&c, 0, sizeof(c));
	c.g = g;
	c.h = h;
	for (k = 0; k < g->nk; k++)
		for (i = 0; i < g->n; i++)
			if (g->t[i].ok && final_write(&g->t[i], k))
				c.ver[k][c.m[k]++] = final_write(&g->t[i], k);
	enum_key(&c, 0);
	*orders = c.orders;
	*error = c.error;
	return c.holds;
}

/* ---- witness cycles ---- */

/*
 * Whether the cycle edges[0 .. n) is a forbidden cycle of level backed by
 * the history: edges that chain, each backed by the history's ops, a kind
 * the level forbids; and, for the edges with fact[i] set (NULL: none), a
 * version order that makes them: their facts (ww a -> b: a before b; rw:
 * the version read before the overwriting one) agree with nil first and
 * write-follows-read.  why: what is wrong.
 */
static bool
cycle_ok(const IsoHistory *h, const IsoInference *inf, const IsoEdge *edges, uint32 n,
		 const bool *fact, IsoLevel level, const char **why)
{
	const IsoLevelInfo *li = iso_level_info(level);
	uint32		nvals = h->values.n + 1;	/* value ids, nil = h->values.n */
	uint32		nil = h->values.n;
	uint8	   *rel;
	uint32		n_rw = 0;
	bool		adjacent_rw = false;
	bool		good = true;
	uint32		i,
				a,
				b,
				c;

	*why = NULL;
	if (n == 0)
	{
		*why = "empty cycle";
		return false;
	}
	/* rel[key][a][b]: a before b */
	rel = calloc((size_t) h->keys.n * nvals * nvals, 1);
#define REL(k, x, y) rel[((size_t) (k) * nvals + (x)) * nvals + (y)]
	for (i = 0; i < n && good; i++)
	{
		const IsoEdge *e = &edges[i];
		const IsoEdge *f = &edges[(i + 1) % n];
		const IsoEdge *p = &edges[(i + n - 1) % n];
		const IsoOp *x = e->from_ref >= 0 ? &h->ops[e->from_ref] : NULL;
		const IsoOp *y = e->to_op >= 0 ? &h->ops[e->to_op] : NULL;
		bool		use = fact && fact[i];

		if (e->to != f->from)
			*why = "edges do not chain";
		else if (!(li->rel_mask & ISO_EDGE_BIT(e->type)))
			*why = "edge type outside the level's relation";
		else if (e->type == ISO_EDGE_SO || e->type == ISO_EDGE_RT)
		{
			if (e->from >= inf->n_vertices || e->to >= inf->n_vertices)
				;				/* a time point */
			else if (e->type == ISO_EDGE_SO &&
					 (h->txns[inf->vertex_txn[e->from]].process != h->txns[inf->vertex_txn[e->to]].process ||
					  h->txns[inf->vertex_txn[e->from]].txn_id >= h->txns[inf->vertex_txn[e->to]].txn_id))
				*why = "so edge against the session order";
		}
		else if (x == NULL || y == NULL || x->key != iso_edge_key(h, e) ||
				 y->key != iso_edge_key(h, e) ||
				 e->from >= inf->n_vertices || e->to >= inf->n_vertices ||
				 inf->vertex_txn[e->from] != iso_op_txn(h, (uint32) e->from_ref) ||
				 inf->vertex_txn[e->to] != iso_op_txn(h, (uint32) e->to_op))
			*why = "edge's ops are not the edge's";
		else if (e->type == ISO_EDGE_WW)
		{
			if (x->kind != ISO_OP_WRITE || y->kind != ISO_OP_WRITE || x->value == y->value)
				*why = "ww edge between non-writes";
			else if (use)
				REL(iso_edge_key(h, e), x->value, y->value) = 1;
		}
		else if (e->type == ISO_EDGE_WR)
		{
			if (x->kind != ISO_OP_WRITE || y->kind != ISO_OP_READ || x->value != y->value)
				*why = "wr edge: the read does not return the write";
		}
		else if (e->type == ISO_EDGE_RW)
		{
			uint32		rv = x->value == ISO_NONE ? nil : x->value;

			if (x->kind != ISO_OP_READ || y->kind != ISO_OP_WRITE || rv == y->value)
				*why = "rw edge: not a read overwritten";
			else if (use)
				REL(iso_edge_key(h, e), rv, y->value) = 1;
		}
		if (e->type == ISO_EDGE_RW)
		{
			n_rw++;
			if (p->type == ISO_EDGE_RW && n > 1)
				adjacent_rw = true;
		}
		if (*why)
			good = false;
	}
	if (good && fact)
	{
		/* nil first; write-follows-read; then no order both ways */
		for (i = 0; i < h->n_ops; i++)
		{
			const IsoOp *o = &h->ops[i];
			uint32		j;

			/* versions: committed transactions' writes */
			if (o->kind != ISO_OP_WRITE || o->value == ISO_NONE ||
				h->txns[iso_op_txn(h, i)].status != ISO_STATUS_OK)
				continue;
			REL(o->key, nil, o->value) = 1;
			/* the txn's first access of the key is a read of v: v before o */
			for (j = h->txns[iso_op_txn(h, i)].first_op; j < i; j++)
				if (h->ops[j].key == o->key)
				{
					if (h->ops[j].kind == ISO_OP_READ)
						REL(o->key, h->ops[j].value == ISO_NONE ? nil : h->ops[j].value, o->value) = 1;
					break;
				}
		}
		for (i = 0; i < h->keys.n && good; i++)
		{
			for (c = 0; c < nvals; c++)
				for (a = 0; a < nvals; a++)
					if (REL(i, a, c))
						for (b = 0; b < nvals; b++)
							if (REL(i, c, b))
								REL(i, a, b) = 1;
			for (a = 0; a < nvals; a++)
				if (REL(i, a, a))
				{
					*why = "no version order makes its known and chosen edges";
					good = false;
				}
		}
	}
	if (good)
	{
		if (li->check == ISO_CHECK_PSI && n_rw > 1)
			*why = "more than one rw (psi allows it)";
		else if (li->check == ISO_CHECK_SI && adjacent_rw)
			*why = "two adjacent rw (si allows it)";
		good = *why == NULL;
	}
#undef REL
	free(rel);
	return good;
}

/*
 * A witness cycle of a search violation: a forbidden cycle of the level
 * whose known and chosen edges one version order makes (cycle_ok), and
 * whose forced edges each have a reason, a forbidden cycle the other order
 * closes (backed by the history, not necessarily by one version order:
 * its edges may be forced ones of earlier rounds).
 */
static bool
witness_ok(const IsoHistory *h, const IsoInference *inf, const IsoSearchResult *r,
		   const IsoCycle *cy, IsoLevel level, long *forced_edges, long *contradictions,
		   const char **why)
{
	IsoEdge    *edges = malloc(sizeof(IsoEdge) * (cy->length + 1));
	bool	   *fact = malloc(sizeof(bool) * (cy->length + 1));
	bool		good;
	uint32		i;

	for (i = 0; i < cy->length; i++)
	{
		edges[i] = r->graph.edges[cy->edges[i]];
		fact[i] = r->edge_origin == NULL || r->edge_origin[cy->edges[i]] != ISO_ORIGIN_FORCED;
	}
	good = cycle_ok(h, inf, edges, cy->length, fact, level, why);
	if (good)
	{
		/* with the forced edges' facts too: pruning's contradictions show here */
		const char *w2;
		bool	   *all = malloc(sizeof(bool) * (cy->length + 1));

		for (i = 0; i < cy->length; i++)
			all[i] = true;
		if (!cycle_ok(h, inf, edges, cy->length, all, level, &w2))
			(*contradictions)++;
		free(all);
	}
	for (i = 0; i < cy->length && good; i++)
	{
		uint32		start;

		if (fact[i])
			continue;
		(*forced_edges)++;
		start = r->edge_reason ? r->edge_reason[cy->edges[i]] : ISO_NONE;
		if (start == ISO_NONE)
		{
			*why = "a forced edge without a reason";
			good = false;
		}
		else if (!cycle_ok(h, inf, r->reason_edges + start, r->reason_len[start], NULL, level, why))
			good = false;
	}
	free(edges);
	free(fact);
	return good;
}

/* a witness cycle, one edge a line: type, key, the two ops, origin */
static void
print_cycle(const IsoHistory *h, const IsoSearchResult *r, const IsoCycle *cy)
{
	static const char *const origin[] = {"known", "forced", "chosen"};
	uint32		i;

	diag("witness cycle (%s, %u edges):", iso_cycle_kind_name(cy->kind), cy->length);
	for (i = 0; i < cy->length; i++)
	{
		uint64		ei = cy->edges[i];
		const IsoEdge *e = &r->graph.edges[ei];
		char		ops[2][64];
		int			j;

		for (j = 0; j < 2; j++)
		{
			int32		o = j ? e->to_op : iso_edge_from_op(e);

			if (o < 0)
				snprintf(ops[j], sizeof(ops[j]), "-");
			else
			{
				const IsoOp *op = &h->ops[o];
				int32		kl,
							vl = 3;
				const char *k = iso_strtab_get(&h->keys, op->key, &kl);
				const char *v = "nil";

				if (op->value != ISO_NONE)
					v = iso_strtab_get(&h->values, op->value, &vl);
				snprintf(ops[j], sizeof(ops[j]), "txn %lld [:%c %.*s %.*s]",
						 (long long) h->txns[iso_op_txn(h, (uint32) o)].txn_id, op->kind == ISO_OP_WRITE ? 'w' : 'r',
						 (int) kl, k, (int) vl, v);
			}
		}
		diag("  %u -%s-> %u  %s -> %s  (%s)", e->from, iso_edge_type_name((IsoEdgeType) e->type),
			 e->to, ops[0], ops[1], r->edge_origin ? origin[r->edge_origin[ei]] : "?");
	}
}

/*
 * The certificate of a search that holds: the satisfying version order of
 * each open key (order_op), given to the graph builder as a known order,
 * must make the level hold.
 */
static bool
certificate_ok(const IsoHistory *h, const IsoInference *inf, const IsoSearchResult *r,
			   IsoLevel level)
{
	const IsoRegUnknown *u = &inf->unknown;
	uint32	   *slots = malloc(sizeof(uint32) * (u->n_keys + 1));
	uint32	   *keys = malloc(sizeof(uint32) * (u->n_ver + 1));
	uint32	   *values = malloc(sizeof(uint32) * (u->n_ver + 1));
	IsoVersionLog log;
	IsoInference cinf;
	IsoInferOptions io = {false, false, false, false, ISO_PARALLEL_OFF, 0};
	IsoParseError err;
	bool		good = r->order_op != NULL;
	uint32		i,
				j,
				n = 0;

	for (i = 0; i < u->n_keys; i++)
		slots[i] = i;
	/* the log is sorted by key id */
	for (i = 1; i < u->n_keys; i++)
		for (j = i; j > 0 && u->key[slots[j - 1]] > u->key[slots[j]]; j--)
		{
			uint32		x = slots[j];

			slots[j] = slots[j - 1];
			slots[j - 1] = x;
		}
	for (i = 0; i < u->n_keys && good; i++)
		for (j = u->ver_start[slots[i]]; j < u->ver_start[slots[i] + 1] && good; j++)
		{
			uint32		o = r->order_op[j];

			if (o >= h->n_ops || h->ops[o].kind != ISO_OP_WRITE || h->ops[o].key != u->key[slots[i]])
				good = false;
			else
			{
				keys[n] = u->key[slots[i]];
				values[n] = h->ops[o].value;
				n++;
			}
		}
	if (good)
	{
		log.n = n;
		log.keys = keys;
		log.values = values;
		memset(&cinf, 0, sizeof(cinf));
		if (!iso_infer(h, &log, &io, &cinf, &err))
			good = false;
		else
		{
			good = cinf.unknown.n_keys == 0 && iso_level_holds(&cinf, level, NULL);
			inference_free(&cinf);
		}
	}
	free(slots);
	free(keys);
	free(values);
	return good;
}

/* ---- the test ---- */

typedef struct Tally
{
	long		histories;
	long		by_kind[G_KIND_COUNT];
	long		orders;
	long		open;			/* histories with keys of unknown order */
	long		many_orders;	/* of them, with >= 24 version orders */
	long		holds[ISO_LEVEL_COUNT],
				violated[ISO_LEVEL_COUNT];
	long		by_search[ISO_LEVEL_COUNT];
	long		searched_alone;
	long		witnesses;
	long		forced_in_witnesses;
	long		contradictions;	/* witnesses no single version order makes */
	long		certificates,
				bad_certificate;
	long		mism_decide,
				mism_alone,
				mism_serial,
				mism_si,
				undecided,
				bad_witness,
				errors;
} Tally;

static int	reports = 0;

static void
report(const GHist *g, const char *what, IsoLevel level, bool want, const char *got)
{
	char		buf[8192];

	if (++reports > MAX_REPORTS)
		return;
	print_edn(g, buf, sizeof(buf));
	if (strcmp(what, "search witness") == 0)
		diag("BAD WITNESS (%s%s): level %s: %s; history:",
			 kind_names[g->kind], g->mutated ? ", one read changed" : "",
			 iso_level_name(level), got);
	else
		diag("MISMATCH (%s, %s%s): level %s: expected %s, got %s; history:",
			 what, kind_names[g->kind], g->mutated ? ", one read changed" : "",
			 iso_level_name(level), want ? "holds" : "violated", got);
	printf("%s", buf);
	fflush(stdout);
}

/* 10 s: a broken search shows as "not decided" rather than a hang */
static const IsoSearchOptions opts = {10.0, UINT64_C(1) << 28, 0, 3, false, false, 0.0, ISO_PRUNE_AUTO, 0};

static void check_history(Tally *T, const GHist *gp);

static void
one_history(Tally *T, bool big)
{
	GHist		g;

	generate(&g, big);
	check_history(T, &g);
}

/*
 * Fixed histories (EDN-like: per txn its ops as "rK V" / "wK V", V 0 for
 * nil), completion records only, one process each.
 *	  - write skew over two keys with two writers each: every order of
 *		both keys closes a G-nonadjacent cycle (si violated, psi holds),
 *		which only the solver proves (each order alone is no contradiction);
 *		before the explanation (search_explain.c) such a violation came
 *		without a witness cycle.
 */
static const char *const fixed[] = {
	"r0 0 w2 3 | w2 2 r0 0 | r2 0 w0 3 | r2 0 w0 1",
};

static void
fixed_histories(Tally *T)
{
	int			f;

	for (f = 0; f < (int) (sizeof(fixed) / sizeof(fixed[0])); f++)
	{
		GHist		g;
		const char *p = fixed[f];
		int			i;

		memset(&g, 0, sizeof(g));
		g.nk = MAXK;
		g.kind = G_RANDOM;
		g.t[0].ok = true;
		while (*p)
		{
			GTxn	   *t = &g.t[g.n];
			char		c = *p;

			if (c == ' ')
				p++;
			else if (c == '|')
			{
				g.n++;
				g.t[g.n].ok = true;
				p++;
			}
			else
			{
				int			k,
							v,
							used;

				if (sscanf(p + 1, "%d %d%n", &k, &v, &used) != 2)
					break;
				t->ops[t->n_ops].write = c == 'w';
				t->ops[t->n_ops].key = k;
				t->ops[t->n_ops].val = v;
				t->n_ops++;
				p += 1 + used;
			}
		}
		g.n++;
		for (i = 0; i < g.n; i++)
		{
			g.t[i].process = i;
			g.t[i].inv_rec = -1;
			g.t[i].cmp_rec = i;
			g.rec_txn[i] = i;
		}
		g.n_rec = g.n;
		check_history(T, &g);
	}
}

static void
check_history(Tally *T, const GHist *gp)
{
	GHist		g = *gp;
	char		text[8192];
	size_t		len;
	IsoHistory	h;
	EdnStats	stats;
	IsoParseError err;
	IsoInference inf;
	IsoInferOptions io = {false, false, false, false, ISO_PARALLEL_OFF, 0};
	IsoLevelDecision d[ISO_LEVEL_COUNT];
	uint32		want;
	long		orders;
	bool		enum_error;
	int			l;

	len = print_edn(&g, text, sizeof(text));
	T->histories++;
	T->by_kind[g.kind]++;
	if (!iso_history_parse_edn(text, len, ISO_WORKLOAD_RW_REGISTER, &h, &stats, &err))
	{
		T->errors++;
		diag("parse error: %s", err.message);
		return;
	}
	memset(&inf, 0, sizeof(inf));
	if (!iso_infer(&h, NULL, &io, &inf, &err))
	{
		T->errors++;
		diag("infer error: %s", err.message);
		history_free(&h);
		return;
	}

	want = oracle_enum(&g, &h, &orders, &enum_error);
	T->orders += orders;
	if (inf.unknown.n_keys > 0)
	{
		T->open++;
		if (order_count(&g) >= 24)
			T->many_orders++;
	}
	if (enum_error)
	{
		T->errors++;
		diag("infer error under a version order");
	}
	for (l = 0; l < ISO_LEVEL_COUNT; l++)
	{
		if (want & (1u << l))
			T->holds[l]++;
		else
			T->violated[l]++;
	}

	/* the oracles agree among themselves */
	{
		static const struct
		{
			IsoLevel	level;
			bool		so,
						rt,
						ext;
		}			ser[] = {
			{ISO_LEVEL_PL299, false, false, true},
			{ISO_LEVEL_SER, false, false, false},
			{ISO_LEVEL_STRONG_SESSION_SER, true, false, false},
			{ISO_LEVEL_STRICT_SER, true, true, false},
		};
		int			i;

		for (i = 0; i < 4; i++)
		{
			bool		s = oracle_serial(&g, ser[i].so, ser[i].rt, ser[i].ext);

			if (s != ((want >> ser[i].level) & 1))
			{
				T->mism_serial++;
				report(&g, "serial-order oracle vs version-order enumeration", ser[i].level,
					   s, (want >> ser[i].level) & 1 ? "holds (enumeration)" : "violated (enumeration)");
			}
		}
		for (i = 0; i < 2; i++)
		{
			IsoLevel	lv = i ? ISO_LEVEL_STRONG_SESSION_SI : ISO_LEVEL_SI;
			bool		s = oracle_si(&g, i == 1);

			if (s != ((want >> lv) & 1))
			{
				T->mism_si++;
				report(&g, "snapshot oracle vs version-order enumeration", lv,
					   s, (want >> lv) & 1 ? "holds (enumeration)" : "violated (enumeration)");
			}
		}
	}

	/* iso_decide_levels, every level at once */
	iso_decide_levels(&h, &inf, ALL_LEVELS, &opts, NULL, d);
	for (l = 0; l < ISO_LEVEL_COUNT; l++)
	{
		bool		w = (want >> l) & 1;

		if (d[l].method == ISO_BY_SEARCH)
			T->by_search[l]++;
		if (d[l].method == ISO_NOT_DECIDED)
		{
			T->undecided++;
			report(&g, "iso_decide_levels", (IsoLevel) l, w, "not decided");
			continue;
		}
		if (d[l].holds != w)
		{
			T->mism_decide++;
			report(&g, "iso_decide_levels", (IsoLevel) l, w,
				   d[l].holds ? "holds" : "violated");
		}
		if (d[l].method == ISO_BY_SEARCH && d[l].search.verdict == ISO_SEARCH_HOLDS)
		{
			T->certificates++;
			if (!certificate_ok(&h, &inf, &d[l].search, (IsoLevel) l))
			{
				T->bad_certificate++;
				report(&g, "search certificate", (IsoLevel) l, true,
					   "holds, but not under the version order it reports");
			}
		}
		if (d[l].searched && d[l].search.verdict == ISO_SEARCH_VIOLATED)
		{
			uint32		c;

			if (d[l].search.cycles.n == 0)
			{
				T->bad_witness++;
				report(&g, "search witness", (IsoLevel) l, false, "violated without a witness cycle");
			}
			for (c = 0; c < d[l].search.cycles.n; c++)
			{
				const char *why;

				T->witnesses++;
				if (!witness_ok(&h, &inf, &d[l].search, &d[l].search.cycles.cycles[c],
								(IsoLevel) l, &T->forced_in_witnesses,
								&T->contradictions, &why))
				{
					T->bad_witness++;
					report(&g, "search witness", (IsoLevel) l, false, why);
					if (reports <= MAX_REPORTS)
						print_cycle(&h, &d[l].search, &d[l].search.cycles.cycles[c]);
				}
			}
		}
	}
	iso_level_decisions_free(d);

	/* each level alone, BFS pruning, where the evidence leaves it open */
	for (l = 0; l < ISO_LEVEL_COUNT; l++)
	{
		IsoSearchOptions o = opts;
		IsoSearchResult r;
		bool		w = (want >> l) & 1;

		if (inf.unknown.n_keys == 0 || !iso_search_applies((IsoLevel) l) ||
			!iso_level_holds(&inf, (IsoLevel) l, NULL))
			continue;
		o.prune_method = ISO_PRUNE_BFS;
		iso_search_level(&h, &inf, (IsoLevel) l, &o, &r);
		T->searched_alone++;
		if (r.verdict == ISO_SEARCH_UNDECIDED)
		{
			T->undecided++;
			report(&g, "iso_search_level alone (bfs)", (IsoLevel) l, w, "not decided");
		}
		else if ((r.verdict == ISO_SEARCH_HOLDS) != w)
		{
			T->mism_alone++;
			report(&g, "iso_search_level alone (bfs)", (IsoLevel) l, w,
				   r.verdict == ISO_SEARCH_HOLDS ? "holds" : "violated");
		}
		else if (r.verdict == ISO_SEARCH_HOLDS)
		{
			T->certificates++;
			if (!certificate_ok(&h, &inf, &r, (IsoLevel) l))
			{
				T->bad_certificate++;
				report(&g, "search certificate (bfs)", (IsoLevel) l, true,
					   "holds, but not under the version order it reports");
			}
		}
		iso_search_result_free(&r);
	}

	inference_free(&inf);
	history_free(&h);
}

int
main(int argc, char **argv)
{
	const char *s = getenv("ISO_ORACLE_SEED");
	const char *it = getenv("ISO_ORACLE_ITERS");
	uint64		seed = s ? strtoull(s, NULL, 0) : UINT64_C(20261125);
	int			iters = it ? atoi(it) : 10000;
	Tally		T;
	int			i,
				l;

	for (i = 1; i + 1 < argc; i += 2)
	{
		if (strcmp(argv[i], "--seed") == 0)
			seed = strtoull(argv[i + 1], NULL, 0);
		else if (strcmp(argv[i], "--iters") == 0)
			iters = atoi(argv[i + 1]);
	}
	if (iters < 1)
		iters = 1;
	diag("seed %llu, %d histories + %d larger (replay: --seed %llu --iters %d)",
		 (unsigned long long) seed, iters, (iters + 9) / 10, (unsigned long long) seed, iters);
	rng_state = seed;
	memset(&T, 0, sizeof(T));
	fixed_histories(&T);
	for (i = 0; i < iters; i++)
		one_history(&T, false);
	/* and a tenth as many of 6-8 transactions, up to 5040 version orders */
	for (i = 0; i < (iters + 9) / 10; i++)
		one_history(&T, true);

	diag("%ld histories (%ld random reads, %ld serial, %ld snapshot; %ld with keys of unknown "
		 "order, %ld of them with >= 24 version orders), %ld version orders tried, "
		 "%ld level searches alone, %ld satisfying orders and %ld witness cycles checked "
		 "(%ld forced edges' reasons; %ld witnesses whose forced edges no one version order makes)",
		 T.histories, T.by_kind[G_RANDOM], T.by_kind[G_SERIAL], T.by_kind[G_SI],
		 T.open, T.many_orders, T.orders,
		 T.searched_alone, T.certificates, T.witnesses, T.forced_in_witnesses,
		 T.contradictions);
	for (l = 0; l < ISO_LEVEL_COUNT; l++)
		diag("  %-28s holds %5ld, violated %5ld, decided by the search %5ld",
			 iso_level_name((IsoLevel) l), T.holds[l], T.violated[l], T.by_search[l]);
	ok(T.errors == 0, "every history parses and infers (%ld errors)", T.errors);
	ok(T.mism_serial == 0, "serial-order oracle agrees with the version-order enumeration "
	   "(pl-2.99, ser, strong-session-ser, strict-ser): %ld mismatches", T.mism_serial);
	ok(T.mism_si == 0, "snapshot oracle agrees with the version-order enumeration "
	   "(si, strong-session-si): %ld mismatches", T.mism_si);
	ok(T.undecided == 0, "the search decides every level (%ld not decided)", T.undecided);
	ok(T.mism_decide == 0, "iso_decide_levels agrees with the oracle on every level "
	   "(%ld mismatches)", T.mism_decide);
	ok(T.mism_alone == 0, "iso_search_level alone (bfs pruning) agrees with the oracle "
	   "(%ld mismatches in %ld searches)", T.mism_alone, T.searched_alone);
	ok(T.bad_certificate == 0, "every search that holds holds under the version order it "
	   "reports (%ld bad of %ld)", T.bad_certificate, T.certificates);
	ok(T.bad_witness == 0, "every witness cycle of a search violation is a real forbidden cycle "
	   "(%ld bad of %ld)", T.bad_witness, T.witnesses);
	/* the generator reaches both verdicts and the search decides some */
	for (l = ISO_LEVEL_PL299; l < ISO_LEVEL_COUNT; l++)
		ok(iters < 500 || (T.holds[l] > 0 && T.violated[l] > 0 && T.by_search[l] > 0),
		   "%s: both verdicts occur and the search decides some", iso_level_name((IsoLevel) l));
	return tap_done();
}
