/*
 * search.c
 *	  The version-order search of black-box register histories (search.h):
 *	  the polygraph of the open keys, pruning to a fixed point, the lazy
 *	  SAT loop over the rest, and what is kept to explain the verdict.
 */
#define _POSIX_C_SOURCE 200809L	/* clock_gettime under -std=c99 */

#include "port.h"
#include "levels.h"
#include "sat.h"
#include "search.h"
#include "search_explain.h"

#include <time.h>

/*
 * Each open key's decided order: ord, m rows of words, bit b-1 of row a-1
 * set when version a is before version b in every version order the
 * search can still pick (the evidence's order, the orders pruning forced,
 * and what those imply by transitivity; kept transitively closed).  A
 * pair in neither direction is open; only open pairs left after pruning
 * become solver variables (and the forced pairs whose edges the graph
 * needs, see ord_add).  Variables are found by their pair in a hash
 * (pair_find): no per-pair array.
 */
/* a BFS of the pruning gives up after this many states (it only prunes) */
#define PRUNE_BFS_BUDGET	(1u << 16)
/* witness cycles per kind asked of the cycle search in each round */
#define CYCLES_PER_ROUND	16
/* most blocking clauses of one round's scan */
#define MAX_CLAUSES_PER_ROUND	4096
/* transitivity clauses up front while the sum of m^3 stays below this */
/* iso_decide_levels' pruning-only pass up to this many pairs */
#define PRUNE_PASS_MAX_PAIRS	20000
#define MAX_TRANSITIVITY	(UINT64_C(1) << 24)

typedef struct Slot
{
	uint32		key;
	uint32		m;				/* versions 1..m */
	const uint32 *ver_op;		/* version v: ver_op[v - 1] */
	uint64	   *ord;			/* m rows of words words (see above) */
	uint32		words;
	uint32		ver0;			/* global index of version 1 (ver_start) */
	uint32	   *pred_head;		/* m + 1: version -> its first direct
								 * predecessor in S->pl (0: none) */
	uint32	   *rd_start;		/* m + 2: readers of version v (0..m) */
	uint32	   *rds;			/* their read ops */
} Slot;

typedef enum Mode
{
	MODE_ACYCLIC,				/* any cycle of rel_mask */
	MODE_SI,					/* the 2-layer graph: no two adjacent rw */
	MODE_PSI					/* at most one rw */
} Mode;

struct IsoSearchState
{
	const IsoHistory *h;
	const IsoInference *inf;
	uint32	   *op_txn;			/* per op, its transaction (build_slots) */
	IsoLevel	level;
	const IsoLevelInfo *li;
	Mode		mode;
	uint32		d_mask;
	uint32		rel_mask;
	const IsoSearchOptions *opt;
	double		deadline;
	bool		stopped;

	Slot	   *slots;
	uint32		n_slots;
	uint32	   *key_slot;		/* key id -> slot or ISO_NONE */
	uint32	   *op_ver;			/* op -> version written/read on an open key */

	/* constraints 1..n_vars (cap_vars allocated) */
	uint32		n_vars;
	uint32		cap_vars;
	/*
	 * The direct predecessors of each version in its key's decided order
	 * (the evidence's constraints and the pairs pruning decided): linked
	 * lists, entry 0 unused.  ord_add finds what precedes a version by them.
	 */
	uint32	   *pl_next;
	uint32	   *pl_ver;
	uint32		pl_n,
				pl_cap;
	uint32	   *vmark;			/* per version (max m + 1): DFS marks */
	uint32	   *vstack;
	uint32		vepoch;
	uint32		max_m;			/* most versions of an open key */
	uint64		ord_bytes;		/* the slots' order bits */
	/* pair -> variable: open addressing, key 0 empty (pair_key) */
	uint64	   *pair_keys;
	uint32	   *pair_vars;
	uint64		pair_cap;		/* a power of two */
	uint32	   *var_slot;
	uint32	   *var_a;			/* +v: var_a before var_b */
	uint32	   *var_b;
	int8	   *var_forced;		/* 0 open, +1 a before b, -1 b before a */
	uint32	   *var_reason;		/* forced: start in reasons, or ISO_NONE */
	uint32	   *var_reason_len;
	uint32	   *var_round;		/* forced: the pruning round that forced it */
	IsoEdgeBuf	reasons;
	IsoEdgeBuf	base0;			/* base before the pruning (find_reasons) */

	IsoGraph	base_g;			/* known + forced edges, finished (from the
								 * first pruning round on; base is then
								 * consumed) */
	IsoEdgeBuf	base;			/* the known edges, not finished (build_slots;
								 * the first pruning round finishes them into
								 * base_g) */

	/* BFS scratch over states (2 per vertex) */
	uint32		n_states;
	uint32	   *seen;
	uint32	   *target;			/* per vertex: epoch it is a target in */
	uint8	   *target_states;	/* accepted states of a target (bits) */
	uint32	   *queue;
	uint64	   *parent;			/* edge index that reached a state */
	uint32	   *pstate;			/* the state it came from */
	uint32		epoch;
	uint32	   *comp;			/* SCC of the rel graph, for reachability */
	uint8	   *model;			/* the last model: 1 = var_a before var_b */

	/*
	 * The pruning's reachability closure of one round's graph over the
	 * automaton's states (node = vertex * n_st + state): the product graph's
	 * SCCs (Tarjan), and per SCC a bitset of the nodes it reaches.
	 */
	uint32		n_st;			/* 1 (acyclic) or 2 (si, psi) */
	uint32	   *cl_comp;		/* node -> SCC */
	uint64	   *cl_rows;		/* n_comp rows of cl_words words */
	uint32		cl_words;
	bool		cl_valid;

	/*
	 * Where the rows would be too big: a windowed closure that only
	 * under-approximates reachability (so pruning forces less, never
	 * wrongly; what it misses is left to the solver).  SCCs in a
	 * topological order (cl_pos; by first node, which follows the
	 * transactions' order), per SCC the SCCs it reaches among the next
	 * CL_WINDOW positions (cl_win), and per block of CL_BLOCK positions
	 * whether it reaches every SCC of the block that something reaches
	 * (cl_all; cl_hasin marks those).
	 */
	bool		cl_approx;
	uint32		cl_window;		/* bits, a multiple of 64 */
	uint32		cl_ncomp;
	uint32	   *cl_pos;
	uint64	   *cl_win;
	uint64	   *cl_all;
	uint64	   *cl_hasin;
	uint32		cl_awords;
};

/* the closure's most bytes (rows of nodes^2 bits); above: the windowed one */
#define CLOSURE_MAX_BYTES	(UINT64_C(256) << 20)
/* the windowed closure: positions ahead it keeps, positions per block, most bytes */
#define CL_WINDOW			2048
#define CL_BLOCK			64
#define CLOSURE_APPROX_MAX_BYTES	(UINT64_C(1) << 30)

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool
should_stop(void *arg)
{
	IsoSearchState *S = (IsoSearchState *) arg;

	if (S->stopped)
		return true;
	if (iso_host_stop_requested() ||
		(S->deadline > 0 && now_seconds() > S->deadline))
		S->stopped = true;
	return S->stopped;
}

bool
iso_search_applies(IsoLevel level)
{
	return level >= ISO_LEVEL_PL299;
}

static inline uint32
op_vertex(const IsoSearchState *S, uint32 op)
{
	return S->inf->txn_vertex[S->op_txn[op]];
}

/* Bits set in x (without -mpopcnt, the builtin is a library call). */
static inline uint32
popcount64(uint64 x)
{
	x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
	x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
	x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	return (uint32) ((x * UINT64_C(0x0101010101010101)) >> 56);
}

/* Whether version a is before version b in sl's decided order (a, b >= 1). */
static inline bool
ord_get(const Slot *sl, uint32 a, uint32 b)
{
	return (sl->ord[(Size) (a - 1) * sl->words + ((b - 1) >> 6)] >> ((b - 1) & 63)) & 1;
}

/* Record p as a direct predecessor of version q of sl. */
static void
pred_add(IsoSearchState *S, Slot *sl, uint32 p, uint32 q)
{
	if (S->pl_n + 1 >= S->pl_cap)
	{
		S->pl_cap = Max(1024, S->pl_cap * 2);
		S->pl_next = S->pl_next ? iso_realloc(S->pl_next, sizeof(uint32) * S->pl_cap) :
			iso_alloc(sizeof(uint32) * S->pl_cap);
		S->pl_ver = S->pl_ver ? iso_realloc(S->pl_ver, sizeof(uint32) * S->pl_cap) :
			iso_alloc(sizeof(uint32) * S->pl_cap);
		if (S->pl_n == 0)
			S->pl_n = 1;		/* entry 0: the end of a list */
	}
	S->pl_ver[S->pl_n] = p;
	S->pl_next[S->pl_n] = sl->pred_head[q];
	sl->pred_head[q] = S->pl_n++;
}

/*
 * Decide "a before b" (a pair that is open) and close the order under
 * transitivity: every version at or before a gets b and b's successors.
 * Sound: a before b in every version order the level allows (the caller's
 * reason) and ww is acyclic in all of them, so p before a before b before
 * q for every such p, q.  The versions at or before a are found by the
 * direct predecessors (ord is their transitive closure), stopping at one
 * that already precedes b: its row, and those of all before it, already
 * hold b's (ord is closed).  Returns how many ordered pairs it added (the
 * implied ones included); *cycle when b was already before a (the
 * caller's graph then holds a ww cycle: the level is violated).
 */
static uint64
ord_add(IsoSearchState *S, Slot *sl, uint32 a, uint32 b, bool *cycle)
{
	uint32		w = sl->words;
	const uint64 *src = sl->ord + (Size) (b - 1) * w;
	uint64		added = 0;
	uint32		sp = 0,
				k;

	if (ord_get(sl, b, a))
		*cycle = true;
	if (++S->vepoch == 0)
	{
		memset(S->vmark, 0, sizeof(uint32) * (S->max_m + 1));
		S->vepoch = 1;
	}
	S->vstack[sp++] = a;
	S->vmark[a] = S->vepoch;
	while (sp > 0)
	{
		uint32		p = S->vstack[--sp];
		uint64	   *row = sl->ord + (Size) (p - 1) * w;
		uint32		e;

		for (k = 0; k < w; k++)
		{
			uint64		x = src[k] | (k == ((b - 1) >> 6) ? UINT64_C(1) << ((b - 1) & 63) : 0);
			uint64		n = x & ~row[k];

			if (n)
			{
				added += (uint64) popcount64(n);
				row[k] |= n;
			}
		}
		for (e = sl->pred_head[p]; e != 0; e = S->pl_next[e])
		{
			uint32		q = S->pl_ver[e];

			if (S->vmark[q] == S->vepoch || ord_get(sl, q, b))
				continue;
			S->vmark[q] = S->vepoch;
			S->vstack[sp++] = q;
		}
	}
	pred_add(S, sl, a, b);
	return added;
}

/* The hash key of the pair {a, b} of slot sl (never 0: the larger index is >= 1). */
static inline uint64
pair_key(const Slot *sl, uint32 a, uint32 b)
{
	uint64		x = sl->ver0 + Min(a, b) - 1;
	uint64		y = sl->ver0 + Max(a, b) - 1;

	return (x << 32) | y;
}

static inline uint64
pair_hash(uint64 k)
{
	k ^= k >> 33;
	k *= UINT64_C(0xff51afd7ed558ccd);
	k ^= k >> 33;
	k *= UINT64_C(0xc4ceb9fe1a85ec53);
	k ^= k >> 33;
	return k;
}

/* The variable of the pair {a, b} of sl, or 0. */
static uint32
pair_find(const IsoSearchState *S, const Slot *sl, uint32 a, uint32 b)
{
	uint64		k = pair_key(sl, a, b);
	uint64		i;

	if (S->pair_cap == 0)
		return 0;
	for (i = pair_hash(k) & (S->pair_cap - 1);; i = (i + 1) & (S->pair_cap - 1))
	{
		if (S->pair_keys[i] == k)
			return S->pair_vars[i];
		if (S->pair_keys[i] == 0)
			return 0;
	}
}

static void
pair_put(IsoSearchState *S, uint64 k, uint32 v)
{
	uint64		i;

	for (i = pair_hash(k) & (S->pair_cap - 1); S->pair_keys[i] != 0; i = (i + 1) & (S->pair_cap - 1))
		;
	S->pair_keys[i] = k;
	S->pair_vars[i] = v;
}

/*
 * A new constraint on the pair a, b of slot s (+v: a before b), forced
 * (+1, -1, in round) or open (0).
 */
static uint32
new_var(IsoSearchState *S, uint32 s, uint32 a, uint32 b, int8 forced, uint32 round)
{
	uint32		v;

	if (S->n_vars >= (uint32) PG_INT32_MAX - 2)
		iso_host_limit("too many open version pairs for the search");
	v = ++S->n_vars;
	if (v >= S->cap_vars)
	{
		uint32		old = S->cap_vars;

		S->cap_vars = Max(64, old * 2);
		if (old == 0)
		{
			S->var_slot = iso_alloc(sizeof(uint32) * S->cap_vars);
			S->var_a = iso_alloc(sizeof(uint32) * S->cap_vars);
			S->var_b = iso_alloc(sizeof(uint32) * S->cap_vars);
			S->var_forced = iso_alloc(sizeof(int8) * S->cap_vars);
			S->var_reason = iso_alloc(sizeof(uint32) * S->cap_vars);
			S->var_reason_len = iso_alloc(sizeof(uint32) * S->cap_vars);
			S->var_round = iso_alloc(sizeof(uint32) * S->cap_vars);
		}
		else
		{
			S->var_slot = iso_realloc(S->var_slot, sizeof(uint32) * S->cap_vars);
			S->var_a = iso_realloc(S->var_a, sizeof(uint32) * S->cap_vars);
			S->var_b = iso_realloc(S->var_b, sizeof(uint32) * S->cap_vars);
			S->var_forced = iso_realloc(S->var_forced, sizeof(int8) * S->cap_vars);
			S->var_reason = iso_realloc(S->var_reason, sizeof(uint32) * S->cap_vars);
			S->var_reason_len = iso_realloc(S->var_reason_len, sizeof(uint32) * S->cap_vars);
			S->var_round = iso_realloc(S->var_round, sizeof(uint32) * S->cap_vars);
		}
	}
	S->var_slot[v] = s;
	S->var_a[v] = a;
	S->var_b[v] = b;
	S->var_forced[v] = forced;
	S->var_reason[v] = ISO_NONE;
	S->var_reason_len[v] = 0;
	S->var_round[v] = round;
	/* the hash at most half full */
	if ((uint64) v * 2 >= S->pair_cap)
	{
		uint64	   *ok = S->pair_keys;
		uint32	   *ov = S->pair_vars;
		uint64		oc = S->pair_cap,
					i;

		S->pair_cap = Max(UINT64_C(1024), oc * 2);
		S->pair_keys = iso_alloc0(sizeof(uint64) * S->pair_cap);
		S->pair_vars = iso_alloc(sizeof(uint32) * S->pair_cap);
		for (i = 0; i < oc; i++)
			if (ok[i] != 0)
				pair_put(S, ok[i], ov[i]);
		if (ok)
		{
			iso_free(ok);
			iso_free(ov);
		}
	}
	pair_put(S, pair_key(&S->slots[s], a, b), v);
	return v;
}

/* The edges of "version a before version b" (a, b >= 1). */
static void
emit_before(IsoSearchState *S, IsoEdgeBuf *buf, const Slot *sl, uint32 a, uint32 b)
{
	uint32		wa = sl->ver_op[a - 1];
	uint32		wb = sl->ver_op[b - 1];
	uint32		vb = op_vertex(S, wb);
	uint32		i;

	iso_edgebuf_add(buf, op_vertex(S, wa), vb, ISO_EDGE_WW, sl->key,
					(int32) wa, (int32) wb);
	for (i = sl->rd_start[a]; i < sl->rd_start[a + 1]; i++)
		iso_edgebuf_add(buf, op_vertex(S, sl->rds[i]), vb, ISO_EDGE_RW, sl->key,
						(int32) sl->rds[i], (int32) wb);
}

/* The edges of constraint v's side: forward (a before b) or not. */
static void
emit_side(IsoSearchState *S, IsoEdgeBuf *buf, uint32 v, bool forward)
{
	const Slot *sl = &S->slots[S->var_slot[v]];

	if (forward)
		emit_before(S, buf, sl, S->var_a[v], S->var_b[v]);
	else
		emit_before(S, buf, sl, S->var_b[v], S->var_a[v]);
}

/*
 * A finished graph of the base's edges (S->base_g, finished) plus extra's:
 * the graph iso_graph_finish makes of them all, which is a function of the
 * set of edges (each vertex's out-edges sorted as iso_edge_cmp, the first
 * of each (to, type) kept, self-edges dropped), made by sorting only the
 * few extra edges and merging them into the base's sorted lists: the
 * base's sort is not redone each round.
 */
static void
finish_graph(IsoSearchState *S, IsoEdgeBuf *extra, IsoGraph *g)
{
	const IsoGraph *bg = &S->base_g;
	uint32		nv = bg->n_vertices;
	uint64		nx = 0,
				i,
				xi = 0,
				w = 0;
	IsoEdge    *x = extra ? extra->edges : NULL;
	uint32		v;

	/* extra: validated, without self-edges, sorted */
	for (i = 0; extra && i < extra->n; i++)
	{
		if (x[i].from >= nv || x[i].to >= nv)
			iso_host_internal_error("edge endpoint out of range");
		if (x[i].from != x[i].to)
			x[nx++] = x[i];
	}
	if (nx > 1)
		iso_edge_sort(S->h, x, nx);
	g->n_vertices = nv;
	g->out_start = iso_alloc(sizeof(uint64) * ((Size) nv + 1));
	g->edges = iso_alloc(sizeof(IsoEdge) * Max(bg->n_edges + nx, 1));
	for (v = 0; v < nv; v++)
	{
		uint64		bi = bg->out_start[v],
					be = bg->out_start[v + 1];
		uint64		start = w;

		g->out_start[v] = w;
		if (xi >= nx || x[xi].from != v)
		{
			memcpy(g->edges + w, bg->edges + bi, sizeof(IsoEdge) * (be - bi));
			w += be - bi;
			continue;
		}
		while (bi < be || (xi < nx && x[xi].from == v))
		{
			const IsoEdge *e;

			if (bi < be && (xi >= nx || x[xi].from != v ||
							iso_edge_cmp(S->h, &bg->edges[bi], &x[xi]) <= 0))
				e = &bg->edges[bi++];
			else
				e = &x[xi++];
			/* the first of each (to, type) group */
			if (w > start && g->edges[w - 1].to == e->to && g->edges[w - 1].type == e->type)
				continue;
			g->edges[w++] = *e;
		}
		if ((v & 0xffff) == 0)
			ISO_CHECK_INTERRUPTS();
	}
	g->out_start[nv] = w;
	g->n_edges = w;
	if (extra)
		extra->n = 0;
}

/*
 * The first version b' >= b, b' > a, that the decided order leaves
 * unordered with a; 0 if none.  Word by word over a's row (after the
 * first rounds nearly full), then b' before a checked.
 */
static inline uint32
next_open(const Slot *sl, uint32 a, uint32 b)
{
	const uint64 *row = sl->ord + (Size) (a - 1) * sl->words;
	uint32		i;

	if (b <= a)
		b = a + 1;
	if (b > sl->m)
		return 0;
	i = (b - 1) >> 6;
	{
		uint64		w = ~row[i] & (~UINT64_C(0) << ((b - 1) & 63));

		for (;;)
		{
			while (w)
			{
				uint32		c = i * 64 + (uint32) __builtin_ctzll(w) + 1;

				if (c > sl->m)
					return 0;
				if (!ord_get(sl, c, a))
					return c;
				w &= w - 1;
			}
			if (++i >= sl->words)
				return 0;
			w = ~row[i];
		}
	}
}

/*
 * Build the slots: each open key's known order (the closure of the
 * evidence's constraints, as bits), readers per version, and the known
 * edges into S->base.  No constraint yet: pruning decides most pairs, and
 * only those it leaves open become variables (make_open_vars).
 */
static bool
build_slots(IsoSearchState *S, IsoSearchStats *st, const char **reason)
{
	const IsoRegUnknown *u = &S->inf->unknown;
	uint64		cells = 0;
	uint64		pairs = 0;
	uint32		s;
	uint32	   *stack = NULL;
	uint32	   *mark = NULL;
	uint32	   *adj_start = NULL;
	uint32	   *adj = NULL;
	uint32		max_m = 0;

	for (s = 0; s < u->n_keys; s++)
	{
		uint64		m = u->ver_start[s + 1] - u->ver_start[s];

		/* one bit per ordered pair, rows rounded up to words */
		cells += m * ((m + 63) / 64) * 64;
		max_m = Max(max_m, (uint32) m);
	}
	if (cells > S->opt->max_pairs)
	{
		*reason = "too many versions of open keys for the search (isograph's limit on version pairs)";
		return false;
	}
	S->n_slots = u->n_keys;
	S->slots = iso_alloc0(sizeof(Slot) * Max(u->n_keys, 1));
	S->key_slot = iso_alloc(sizeof(uint32) * Max(S->h->keys.n, 1));
	memset(S->key_slot, 0xff, sizeof(uint32) * Max(S->h->keys.n, 1));
	S->op_ver = iso_alloc(sizeof(uint32) * Max(S->h->n_ops, 1));
	memset(S->op_ver, 0xff, sizeof(uint32) * Max(S->h->n_ops, 1));
	S->op_txn = iso_history_op_txns(S->h);
	S->n_vars = 0;
	stack = iso_alloc(sizeof(uint32) * (max_m + 1));
	mark = iso_alloc0(sizeof(uint32) * (max_m + 1));
	adj_start = iso_alloc(sizeof(uint32) * (max_m + 2));
	S->vmark = iso_alloc0(sizeof(uint32) * (max_m + 1));
	S->vstack = iso_alloc(sizeof(uint32) * (max_m + 1));
	S->vepoch = 0;
	S->max_m = max_m;

	iso_edgebuf_init(&S->base, S->inf->graph.n_edges + 1024);
	memcpy(S->base.edges, S->inf->graph.edges, sizeof(IsoEdge) * S->inf->graph.n_edges);
	S->base.n = S->inf->graph.n_edges;

	for (s = 0; s < u->n_keys; s++)
	{
		Slot	   *sl = &S->slots[s];
		uint32		m = u->ver_start[s + 1] - u->ver_start[s];
		uint32		c0 = u->cons_start[s],
					c1 = u->cons_start[s + 1];
		uint32		r0 = u->rd_start[s],
					r1 = u->rd_start[s + 1];
		uint32		a,
					b,
					i;
		uint64		known = 0;

		ISO_CHECK_INTERRUPTS();
		sl->key = u->key[s];
		sl->m = m;
		sl->ver_op = u->ver_op + u->ver_start[s];
		sl->ver0 = u->ver_start[s];
		sl->words = (m + 63) / 64;
		sl->ord = iso_alloc0(sizeof(uint64) * Max((Size) m * sl->words, 1));
		S->ord_bytes += sizeof(uint64) * (uint64) m * sl->words;
		sl->pred_head = iso_alloc0(sizeof(uint32) * (m + 1));
		S->key_slot[sl->key] = s;
		for (a = 1; a <= m; a++)
			S->op_ver[sl->ver_op[a - 1]] = a;

		/* readers by version */
		sl->rd_start = iso_alloc0(sizeof(uint32) * (m + 2));
		sl->rds = iso_alloc(sizeof(uint32) * Max(r1 - r0, 1));
		for (i = r0; i < r1; i++)
			sl->rd_start[u->rd_ver[i] + 1]++;
		for (a = 0; a <= m; a++)
			sl->rd_start[a + 1] += sl->rd_start[a];
		{
			uint32	   *fill = iso_alloc(sizeof(uint32) * (m + 1));

			memcpy(fill, sl->rd_start, sizeof(uint32) * (m + 1));
			for (i = r0; i < r1; i++)
			{
				sl->rds[fill[u->rd_ver[i]]++] = u->rd_op[i];
				S->op_ver[u->rd_op[i]] = u->rd_ver[i];
			}
			iso_free(fill);
		}

		/* the known order: closure of the constraints (a DFS per version) */
		iso_free(adj);
		adj = iso_alloc(sizeof(uint32) * Max(c1 - c0, 1));
		memset(adj_start, 0, sizeof(uint32) * (m + 2));
		for (i = c0; i < c1; i++)
			adj_start[u->cons_a[i] + 1]++;
		for (a = 0; a <= m; a++)
			adj_start[a + 1] += adj_start[a];
		{
			uint32	   *fill = iso_alloc(sizeof(uint32) * (m + 1));

			memcpy(fill, adj_start, sizeof(uint32) * (m + 1));
			for (i = c0; i < c1; i++)
				adj[fill[u->cons_a[i]]++] = u->cons_b[i];
			iso_free(fill);
		}
		memset(mark, 0, sizeof(uint32) * (m + 1));
		for (a = 1; a <= m; a++)
		{
			uint32		sp = 0;
			uint64	   *row = sl->ord + (Size) (a - 1) * sl->words;

			stack[sp++] = a;
			mark[a] = a;
			while (sp > 0)
			{
				uint32		x = stack[--sp];
				uint32		e;

				for (e = adj_start[x]; e < adj_start[x + 1]; e++)
				{
					uint32		y = adj[e];

					if (mark[y] == a)
						continue;
					mark[y] = a;
					stack[sp++] = y;
					if (y != a && !((row[(y - 1) >> 6] >> ((y - 1) & 63)) & 1))
					{
						row[(y - 1) >> 6] |= UINT64_C(1) << ((y - 1) & 63);
						known++;
					}
				}
			}
		}
		/* the unordered pairs: known ones counted once (the order is acyclic) */
		pairs += (uint64) m * (m - 1) / 2 - Min(known, (uint64) m * (m - 1) / 2);

		/* nil's readers precede every version */
		for (b = 1; b <= m; b++)
			for (i = sl->rd_start[0]; i < sl->rd_start[1]; i++)
				iso_edgebuf_add(&S->base, op_vertex(S, sl->rds[i]),
								op_vertex(S, sl->ver_op[b - 1]), ISO_EDGE_RW, sl->key,
								(int32) sl->rds[i], (int32) sl->ver_op[b - 1]);
		/*
		 * The known order's edges: those of the constraints themselves, whose
		 * paths reach every known pair (ww a -> c -> b; rw readers(a) -> c,
		 * then ww c -> b, which closes the same forbidden cycles as rw
		 * readers(a) -> b: an rw followed by D).  The same holds for every
		 * pair pruning decides later: its edges go into the graph only when
		 * the decided order does not already imply it (prune).
		 */
		for (i = c0; i < c1; i++)
		{
			emit_before(S, &S->base, sl, u->cons_a[i], u->cons_b[i]);
			pred_add(S, sl, u->cons_a[i], u->cons_b[i]);
		}
	}
	iso_free(stack);
	iso_free(mark);
	iso_free(adj_start);
	iso_free(adj);
	iso_edgebuf_init(&S->reasons, 64);
	st->constraints = pairs;
	return true;
}

/*
 * One open constraint per pair the pruning left unordered, after it: the
 * variables' cap applies to these (and the forced ones the graph has).
 */
static bool
make_open_vars(IsoSearchState *S, IsoSearchStats *st, const char **reason)
{
	uint32		s;
	uint64		open = 0;

	for (s = 0; s < S->n_slots; s++)
	{
		const Slot *sl = &S->slots[s];
		uint32		a,
					b;

		for (a = 1; a < sl->m; a++)
			for (b = next_open(sl, a, a + 1); b != 0; b = next_open(sl, a, b + 1))
				open++;
	}
	st->constraints_left = open;
	if ((S->opt->max_constraints > 0 && S->n_vars + open > S->opt->max_constraints) ||
		(S->opt->max_bytes > 0 &&
		 S->ord_bytes + (S->n_vars + open) * 256 > S->opt->max_bytes))
	{
		*reason = "too many unordered version pairs for the search (isograph.max_memory bounds the solver)";
		return false;
	}
	for (s = 0; s < S->n_slots; s++)
	{
		const Slot *sl = &S->slots[s];
		uint32		a,
					b;

		ISO_CHECK_INTERRUPTS();
		for (a = 1; a < sl->m; a++)
			for (b = next_open(sl, a, a + 1); b != 0; b = next_open(sl, a, b + 1))
				new_var(S, s, a, b, 0, 0);
	}
	return true;
}

/*
 * The constraint behind a ww/rw edge between versions of an open key: 0 if
 * none (known, or not such an edge); else +v / -v, the literal that makes it.
 */
static int
edge_literal(const IsoSearchState *S, const IsoEdge *e)
{
	const Slot *sl;
	uint32		a,
				b,
				s,
				v;

	/* an edge with ops has their key (graph.h) */
	if ((e->type != ISO_EDGE_WW && e->type != ISO_EDGE_RW) ||
		e->from_ref < 0 || e->to_op < 0)
		return 0;
	s = S->key_slot[iso_edge_key(S->h, e)];
	if (s == ISO_NONE)
		return 0;
	sl = &S->slots[s];
	a = S->op_ver[e->from_ref];
	b = S->op_ver[e->to_op];
	if (a == ISO_NONE || b == ISO_NONE || a == 0 || b == 0 || a == b ||
		a > sl->m || b > sl->m)
		return 0;
	/* known and implied pairs have no variable */
	v = pair_find(S, sl, a, b);
	if (v == 0)
		return 0;
	return S->var_a[v] == a ? (int) v : -(int) v;
}

/* One step of the level's cycle automaton; false if the edge is not taken. */
static inline bool
auto_step(const IsoSearchState *S, uint8 type, uint32 s, uint32 *ns)
{
	uint32		bit = ISO_EDGE_BIT(type);

	switch (S->mode)
	{
		case MODE_ACYCLIC:
			if (!(S->rel_mask & bit))
				return false;
			*ns = 0;
			return true;
		case MODE_SI:
		case MODE_PSI:
			if (type == ISO_EDGE_RW)
			{
				if (s == 1)
					return false;
				*ns = 1;
				return true;
			}
			if (!(S->d_mask & bit))
				return false;
			/* si: a dependency edge ends a run of rw; psi: one rw per cycle */
			*ns = S->mode == MODE_SI ? 0 : s;
			return true;
	}
	return false;
}

/*
 * BFS in g from state (from, s0) to a state (t, s) of a marked target t with
 * s in its accepted states.  Returns the target reached (its state in
 * *hit_state) or ISO_NONE: none, or the budget ran out.  comp: SCCs of the
 * rel graph (a path only goes to components numbered lower or equal).
 */
static uint32
bfs_to_targets(IsoSearchState *S, const IsoGraph *g, uint32 from, uint32 s0,
			   uint32 min_comp, uint32 *hit_state)
{
	uint32		head = 0,
				tail = 0;
	uint32		st = from * 2 + s0;
	uint32		budget = PRUNE_BFS_BUDGET;

	if (S->comp[from] < min_comp)
		return ISO_NONE;
	S->seen[st] = S->epoch;
	S->parent[st] = UINT64_MAX;
	S->pstate[st] = ISO_NONE;
	S->queue[tail++] = st;
	while (head < tail)
	{
		uint32		x = S->queue[head++];
		uint32		v = x >> 1;
		uint64		e;

		if (S->target[v] == S->epoch && (S->target_states[v] & (1u << (x & 1))))
		{
			*hit_state = x;
			return v;
		}
		if (--budget == 0)
			return ISO_NONE;
		for (e = g->out_start[v]; e < g->out_start[v + 1]; e++)
		{
			const IsoEdge *ed = &g->edges[e];
			uint32		ns;
			uint32		y;

			if (!auto_step(S, ed->type, x & 1, &ns))
				continue;
			if (S->comp[ed->to] < min_comp)
				continue;
			y = ed->to * 2 + ns;
			if (S->seen[y] == S->epoch)
				continue;
			S->seen[y] = S->epoch;
			S->parent[y] = e;
			S->pstate[y] = x;
			S->queue[tail++] = y;
		}
	}
	return ISO_NONE;
}

/* Append the BFS path ending in state x (edges in order) to S->reasons. */
static void
append_path(IsoSearchState *S, const IsoGraph *g, uint32 x)
{
	uint64		start = S->reasons.n;
	uint64		i,
				j;

	while (S->parent[x] != UINT64_MAX)
	{
		const IsoEdge *e = &g->edges[S->parent[x]];

		iso_edgebuf_push(&S->reasons, e);
		x = S->pstate[x];
	}
	/* reverse into path order */
	for (i = start, j = S->reasons.n - 1; i < j && j != UINT64_MAX; i++, j--)
	{
		IsoEdge		t = S->reasons.edges[i];

		S->reasons.edges[i] = S->reasons.edges[j];
		S->reasons.edges[j] = t;
	}
}

/*
 * Whether "a before b" on slot sl closes a forbidden cycle with g on its
 * own.  When it does and keep_reason, the cycle (the side's edge, then the
 * path back) is appended to S->reasons.
 */
static bool
side_closes(IsoSearchState *S, const IsoGraph *g, const Slot *sl, uint32 a, uint32 b,
			bool keep_reason)
{
	uint32		wa = sl->ver_op[a - 1];
	uint32		wb = sl->ver_op[b - 1];
	uint32		va = op_vertex(S, wa);
	uint32		vb = op_vertex(S, wb);
	uint32		r0 = sl->rd_start[a],
				r1 = sl->rd_start[a + 1];
	uint32		hit,
				hs,
				i,
				min_comp;

	/* 1. the ww edge va -> vb: from (vb, 0) back to va in any state */
	S->epoch++;
	S->target[va] = S->epoch;
	S->target_states[va] = 3;
	hit = bfs_to_targets(S, g, vb, 0, S->comp[va], &hs);
	if (hit != ISO_NONE)
	{
		if (keep_reason)
		{
			iso_edgebuf_add(&S->reasons, va, vb, ISO_EDGE_WW, sl->key, (int32) wa, (int32) wb);
			append_path(S, g, hs);
		}
		return true;
	}
	if (r0 == r1 || !(S->rel_mask & ISO_EDGE_BIT(ISO_EDGE_RW)))
		return false;
	/* 2. rw edges reader -> vb: from (vb, 1) back to a reader */
	S->epoch++;
	min_comp = PG_UINT32_MAX;
	for (i = r0; i < r1; i++)
	{
		uint32		r = op_vertex(S, sl->rds[i]);

		if (r == vb)
			continue;
		S->target[r] = S->epoch;
		S->target_states[r] = S->mode == MODE_ACYCLIC ? 3 : S->mode == MODE_SI ? 1 : 2;
		min_comp = Min(min_comp, S->comp[r]);
	}
	if (min_comp == PG_UINT32_MAX)
		return false;
	hit = bfs_to_targets(S, g, vb, S->mode == MODE_ACYCLIC ? 0 : 1, min_comp, &hs);
	if (hit == ISO_NONE)
		return false;
	if (keep_reason)
	{
		for (i = r0; i < r1; i++)
			if (op_vertex(S, sl->rds[i]) == hit)
				break;
		iso_edgebuf_add(&S->reasons, hit, vb, ISO_EDGE_RW, sl->key,
						(int32) sl->rds[i], (int32) wb);
		append_path(S, g, hs);
	}
	return true;
}

static void
free_closure_approx(IsoSearchState *S)
{
	iso_free(S->cl_pos);
	iso_free(S->cl_win);
	iso_free(S->cl_all);
	iso_free(S->cl_hasin);
	S->cl_pos = NULL;
	S->cl_win = NULL;
	S->cl_all = NULL;
	S->cl_hasin = NULL;
	S->cl_approx = false;
}

static int
cmp_uint32_asc(const void *a, const void *b)
{
	uint32		x = *(const uint32 *) a,
				y = *(const uint32 *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

static int
cmp_uint32_desc(const void *a, const void *b)
{
	uint32		x = *(const uint32 *) a,
				y = *(const uint32 *) b;

	return x > y ? -1 : x < y ? 1 : 0;
}

/* dst |= src shifted up by shift bits, within nw words */
static inline void
or_shifted(uint64 *dst, const uint64 *src, uint32 nw, uint32 shift)
{
	uint32		ws = shift >> 6,
				bs = shift & 63,
				i;

	for (i = 0; i + ws < nw; i++)
	{
		if (src[i] == 0)
			continue;
		dst[i + ws] |= src[i] << bs;
		if (bs != 0 && i + ws + 1 < nw)
			dst[i + ws + 1] |= src[i] >> (64 - bs);
	}
}

/* 64 bits of row from bit index at (at may be negative: those bits are 0) */
static inline uint64
bits_at(const uint64 *row, uint32 nw, int64 at)
{
	uint64		lo,
				hi;
	int64		w;
	uint32		b;

	if (at < 0)
	{
		if (at <= -64)
			return 0;
		return bits_at(row, nw, 0) << (uint32) (-at);
	}
	w = at >> 6;
	b = (uint32) (at & 63);
	lo = w < nw ? row[w] : 0;
	hi = w + 1 < nw ? row[w + 1] : 0;
	return b == 0 ? lo : (lo >> b) | (hi << (64 - b));
}

/*
 * The windowed closure (see IsoSearchState): given the product graph's
 * SCCs (comp, members by comp_start), a topological order of them by
 * Kahn's algorithm, earliest first node first; then from the last
 * position back, each SCC's window (the SCCs it reaches among the next
 * cl_window positions: its successors' windows shifted, and they) and
 * its block bits (its successors' ORed; and each block inside its window
 * whose every reachable SCC it reaches).  Every bit set is a path: an
 * under-approximation.  false when it too would be too big.
 */
static bool
build_closure_approx(IsoSearchState *S, const IsoGraph *g, uint32 n_comp,
					 const uint32 *comp_start, const uint32 *members)
{
	uint32		nst = S->n_st;
	uint32		win = S->cl_window;
	uint32		ww = win / 64;
	uint32		n_blocks = (n_comp + CL_BLOCK - 1) / CL_BLOCK;
	uint32		aw = (n_blocks + 63) / 64;
	uint32	   *indeg,
			   *first,
			   *heap,
			   *order,
			   *stamp,
			   *succ;
	const uint32 *comp = S->cl_comp;
	uint32		hn = 0,
				no = 0,
				c,
				i;

	if ((uint64) n_comp * (ww + aw) * 8 > CLOSURE_APPROX_MAX_BYTES)
		return false;
	indeg = iso_alloc0(sizeof(uint32) * Max(n_comp, 1));
	first = iso_alloc(sizeof(uint32) * Max(n_comp, 1));
	heap = iso_alloc(sizeof(uint32) * Max(n_comp, 1));
	order = iso_alloc(sizeof(uint32) * Max(n_comp, 1));
	stamp = iso_alloc0(sizeof(uint32) * Max(n_comp, 1));
	succ = iso_alloc(sizeof(uint32) * Max(n_comp, 1));
	S->cl_pos = iso_alloc(sizeof(uint32) * Max(n_comp, 1));
	S->cl_hasin = iso_alloc0(sizeof(uint64) * ((n_comp + 63) / 64 + 1));
	S->cl_win = iso_alloc0(sizeof(uint64) * Max((Size) n_comp * ww, 1));
	S->cl_all = iso_alloc0(sizeof(uint64) * Max((Size) n_comp * aw, 1));
	S->cl_awords = aw;
	S->cl_ncomp = n_comp;
	S->cl_approx = true;

	/* in-degrees over edges between SCCs (each edge counted), first nodes */
	for (c = 0; c < n_comp; c++)
	{
		first[c] = PG_UINT32_MAX;
		for (i = comp_start[c]; i < comp_start[c + 1]; i++)
		{
			uint32		x = members[i];
			uint64		e;

			first[c] = Min(first[c], x);
			for (e = g->out_start[x / nst]; e < g->out_start[x / nst + 1]; e++)
			{
				uint32		ns,
							d;

				if (!auto_step(S, g->edges[e].type, x % nst, &ns))
					continue;
				d = comp[g->edges[e].to * nst + ns];
				if (d != c)
					indeg[d]++;
			}
		}
	}
	/* Kahn's algorithm, a binary heap on first node */
#define HEAP_LESS(i, j) (first[heap[i]] < first[heap[j]])
	for (c = 0; c < n_comp; c++)
		if (indeg[c] == 0)
		{
			uint32		k = hn++;

			heap[k] = c;
			while (k > 0 && HEAP_LESS(k, (k - 1) / 2))
			{
				uint32		t = heap[k];

				heap[k] = heap[(k - 1) / 2];
				heap[(k - 1) / 2] = t;
				k = (k - 1) / 2;
			}
		}
	while (hn > 0)
	{
		uint32		k = 0;

		c = heap[0];
		heap[0] = heap[--hn];
		for (;;)
		{
			uint32		l = 2 * k + 1,
						r = l + 1,
						m = k,
						t;

			if (l < hn && HEAP_LESS(l, m))
				m = l;
			if (r < hn && HEAP_LESS(r, m))
				m = r;
			if (m == k)
				break;
			t = heap[k];
			heap[k] = heap[m];
			heap[m] = t;
			k = m;
		}
		S->cl_pos[c] = no;
		order[no++] = c;
		for (i = comp_start[c]; i < comp_start[c + 1]; i++)
		{
			uint32		x = members[i];
			uint64		e;

			for (e = g->out_start[x / nst]; e < g->out_start[x / nst + 1]; e++)
			{
				uint32		ns,
							d;

				if (!auto_step(S, g->edges[e].type, x % nst, &ns))
					continue;
				d = comp[g->edges[e].to * nst + ns];
				if (d == c)
					continue;
				if (--indeg[d] == 0)
				{
					uint32		q = hn++;

					heap[q] = d;
					while (q > 0 && HEAP_LESS(q, (q - 1) / 2))
					{
						uint32		t = heap[q];

						heap[q] = heap[(q - 1) / 2];
						heap[(q - 1) / 2] = t;
						q = (q - 1) / 2;
					}
				}
			}
		}
	}
#undef HEAP_LESS
	/* SCCs with an edge in from another (by position) */
	for (c = 0; c < n_comp; c++)
		for (i = comp_start[c]; i < comp_start[c + 1]; i++)
		{
			uint32		x = members[i];
			uint64		e;

			for (e = g->out_start[x / nst]; e < g->out_start[x / nst + 1]; e++)
			{
				uint32		ns,
							d;

				if (!auto_step(S, g->edges[e].type, x % nst, &ns))
					continue;
				d = comp[g->edges[e].to * nst + ns];
				if (d != c)
					S->cl_hasin[S->cl_pos[d] >> 6] |= UINT64_C(1) << (S->cl_pos[d] & 63);
			}
		}
	/* last position first: successors (later positions) are complete */
	for (i = n_comp; i-- > 0;)
	{
		uint64	   *w,
				   *a;
		uint32		j,
					k,
					ns_c;

		c = order[i];
		w = S->cl_win + (Size) c * ww;
		a = S->cl_all + (Size) c * aw;
		if ((i & 0xfff) == 0 && should_stop(S))
			break;
		ns_c = 0;
		for (j = comp_start[c]; j < comp_start[c + 1]; j++)
		{
			uint32		x = members[j];
			uint64		e;

			for (e = g->out_start[x / nst]; e < g->out_start[x / nst + 1]; e++)
			{
				uint32		ns,
							d;

				if (!auto_step(S, g->edges[e].type, x % nst, &ns))
					continue;
				d = comp[g->edges[e].to * nst + ns];
				if (d == c || stamp[d] == c + 1)
					continue;
				stamp[d] = c + 1;
				succ[ns_c++] = S->cl_pos[d];
			}
		}
		/*
		 * Nearest first; one already in the window is skipped: an SCC
		 * ORed before reaches it, and every path between them stays in
		 * that one's window (a topological order), so its window and
		 * blocks already hold this one's.
		 */
		if (ns_c > 1)
			qsort(succ, ns_c, sizeof(uint32), cmp_uint32_asc);
		for (j = 0; j < ns_c; j++)
		{
			uint32		d = order[succ[j]],
						delta = succ[j] - i;	/* > 0: a topological order */

			if (delta <= win)
			{
				if ((w[(delta - 1) >> 6] >> ((delta - 1) & 63)) & 1)
					continue;
				w[(delta - 1) >> 6] |= UINT64_C(1) << ((delta - 1) & 63);
				or_shifted(w, S->cl_win + (Size) d * ww, ww, delta);
			}
			{
				const uint64 *ad = S->cl_all + (Size) d * aw;

				for (k = 0; k < aw; k++)
					a[k] |= ad[k];
			}
		}
		/* blocks inside the window: every SCC something reaches, reached */
		for (k = (i + 1 + CL_BLOCK - 1) / CL_BLOCK;
			 (uint64) (k + 1) * CL_BLOCK - 1 <= (uint64) i + win && k < n_blocks; k++)
		{
			uint64		need = S->cl_hasin[k];	/* CL_BLOCK is 64: one word */
			uint64		got = bits_at(w, ww, (int64) k * CL_BLOCK - i - 1);

			if ((need & ~got) == 0)
				a[k >> 6] |= UINT64_C(1) << (k & 63);
		}
	}
	iso_free(indeg);
	iso_free(first);
	iso_free(heap);
	iso_free(order);
	iso_free(stamp);
	iso_free(succ);
	return !S->stopped;
}

/*
 * The reachability closure of g's product with the level's automaton
 * (nodes vertex * n_st + state, the steps of auto_step): Tarjan's SCCs,
 * which come out sinks first, then per SCC in that order the bitset of
 * the nodes it reaches (its own, and its successors' rows ORed in): O(V +
 * E) for the SCCs and O(E * V / 64) word operations for the rows.  Each
 * side of a constraint is then a few bit tests.  false when the rows
 * would take more than CLOSURE_MAX_BYTES (the caller searches per side
 * instead) or the search is stopped.
 */
static bool
build_closure(IsoSearchState *S, const IsoGraph *g)
{
	uint32		nst = S->n_st;
	uint32		n = g->n_vertices * nst;
	uint32	   *idx = iso_alloc0(sizeof(uint32) * Max(n, 1));
	uint32	   *low = iso_alloc(sizeof(uint32) * Max(n, 1));
	uint32	   *tstack = iso_alloc(sizeof(uint32) * Max(n, 1));
	uint32	   *cs_node = iso_alloc(sizeof(uint32) * Max(n, 1));
	uint64	   *cs_e = iso_alloc(sizeof(uint64) * Max(n, 1));
	uint32	   *members = iso_alloc(sizeof(uint32) * Max(n, 1));
	uint32	   *comp_start = iso_alloc(sizeof(uint32) * (Size) (n + 1));
	uint32	   *comp;
	uint32	   *stamp = NULL;
	uint32	   *succ = NULL;
	uint32		counter = 0,
				tsp = 0,
				n_comp = 0,
				mp = 0,
				words,
				root,
				c;
	bool		ok = false;

	iso_free(S->cl_comp);
	iso_free(S->cl_rows);
	S->cl_rows = NULL;
	S->cl_valid = false;
	free_closure_approx(S);
	comp = S->cl_comp = iso_alloc(sizeof(uint32) * Max(n, 1));
	memset(comp, 0xff, sizeof(uint32) * Max(n, 1));
	comp_start[0] = 0;
	for (root = 0; root < n; root++)
	{
		uint32		csp = 0;

		if (idx[root] != 0)
			continue;
		if ((root & 0xfff) == 0 && should_stop(S))
			goto done;
		idx[root] = low[root] = ++counter;
		tstack[tsp++] = root;
		cs_node[csp] = root;
		cs_e[csp++] = g->out_start[root / nst];
		while (csp > 0)
		{
			uint32		x = cs_node[csp - 1];
			uint32		v = x / nst;

			if (cs_e[csp - 1] < g->out_start[v + 1])
			{
				const IsoEdge *ed = &g->edges[cs_e[csp - 1]++];
				uint32		ns,
							y;

				if (!auto_step(S, ed->type, x % nst, &ns))
					continue;
				y = ed->to * nst + ns;
				if (idx[y] == 0)
				{
					idx[y] = low[y] = ++counter;
					tstack[tsp++] = y;
					cs_node[csp] = y;
					cs_e[csp++] = g->out_start[ed->to];
				}
				else if (comp[y] == ISO_NONE)
					low[x] = Min(low[x], idx[y]);
				continue;
			}
			csp--;
			if (low[x] == idx[x])
			{
				uint32		w;

				do
				{
					w = tstack[--tsp];
					comp[w] = n_comp;
					members[mp++] = w;
				} while (w != x);
				comp_start[++n_comp] = mp;
			}
			if (csp > 0)
			{
				uint32		p = cs_node[csp - 1];

				low[p] = Min(low[p], low[x]);
			}
		}
	}
	words = (n + 63) / 64;
	if ((uint64) n_comp * words * 8 > CLOSURE_MAX_BYTES ||
		S->opt->prune_method == ISO_PRUNE_WINDOW)
	{
		ok = build_closure_approx(S, g, n_comp, comp_start, members);
		goto done;
	}
	S->cl_words = words;
	S->cl_rows = iso_alloc0(sizeof(uint64) * Max((Size) n_comp * words, 1));
	stamp = iso_alloc0(sizeof(uint32) * Max(n_comp, 1));
	/*
	 * Sinks first: every successor SCC's row is complete before it is
	 * used.  The successors nearest first (highest number: Tarjan numbers
	 * sinks first), and one whose first node the row already holds is
	 * skipped: an SCC ORed before reaches it, so its row already holds
	 * that one's (with real-time order most successors are skipped).
	 */
	succ = iso_alloc(sizeof(uint32) * Max(n_comp, 1));
	for (c = 0; c < n_comp; c++)
	{
		uint64	   *row = S->cl_rows + (Size) c * words;
		uint32		i,
					ns_c = 0;

		if ((c & 0xff) == 0 && should_stop(S))
			goto done;
		for (i = comp_start[c]; i < comp_start[c + 1]; i++)
		{
			uint32		x = members[i];
			uint32		v = x / nst;
			uint64		e;

			row[x >> 6] |= UINT64_C(1) << (x & 63);
			for (e = g->out_start[v]; e < g->out_start[v + 1]; e++)
			{
				const IsoEdge *ed = &g->edges[e];
				uint32		ns,
							cy;

				if (!auto_step(S, ed->type, x % nst, &ns))
					continue;
				cy = comp[ed->to * nst + ns];
				if (cy == c || stamp[cy] == c + 1)
					continue;
				stamp[cy] = c + 1;
				succ[ns_c++] = cy;
			}
		}
		if (ns_c > 1)
			qsort(succ, ns_c, sizeof(uint32), cmp_uint32_desc);
		for (i = 0; i < ns_c; i++)
		{
			uint32		cy = succ[i],
						rep = members[comp_start[cy]],
						k;
			const uint64 *src;

			if ((row[rep >> 6] >> (rep & 63)) & 1)
				continue;
			src = S->cl_rows + (Size) cy * words;
			for (k = 0; k < words; k++)
				row[k] |= src[k];
		}
	}
	ok = true;
done:
	iso_free(idx);
	iso_free(low);
	iso_free(tstack);
	iso_free(cs_node);
	iso_free(cs_e);
	iso_free(members);
	iso_free(comp_start);
	iso_free(stamp);
	iso_free(succ);
	if (!ok && S->cl_rows)
	{
		iso_free(S->cl_rows);
		S->cl_rows = NULL;
	}
	S->cl_valid = ok;
	return ok;
}

/* Whether node "from" reaches node "to" in the closure's graph (approx: if known to). */
static inline bool
cl_reach(const IsoSearchState *S, uint32 from, uint32 to)
{
	uint32		c,
				d,
				pc,
				pd;

	if (!S->cl_approx)
	{
		const uint64 *row = S->cl_rows + (Size) S->cl_comp[from] * S->cl_words;

		return (row[to >> 6] >> (to & 63)) & 1;
	}
	c = S->cl_comp[from];
	d = S->cl_comp[to];
	if (c == d)
		return true;
	pc = S->cl_pos[c];
	pd = S->cl_pos[d];
	if (pd <= pc)
		return false;
	if (pd - pc <= S->cl_window)
	{
		uint32		j = pd - pc - 1;

		return (S->cl_win[(Size) c * (S->cl_window / 64) + (j >> 6)] >> (j & 63)) & 1;
	}
	if (!((S->cl_hasin[pd >> 6] >> (pd & 63)) & 1))
		return false;
	return (S->cl_all[(Size) c * S->cl_awords + ((pd / CL_BLOCK) >> 6)] >> ((pd / CL_BLOCK) & 63)) & 1;
}

/* side_closes by the closure (the same question, without the reason) */
static bool
side_closes_cl(const IsoSearchState *S, const Slot *sl, uint32 a, uint32 b)
{
	uint32		nst = S->n_st;
	uint32		va = op_vertex(S, sl->ver_op[a - 1]);
	uint32		vb = op_vertex(S, sl->ver_op[b - 1]);
	uint32		r0 = sl->rd_start[a],
				r1 = sl->rd_start[a + 1];
	uint32		from,
				acc,
				i;

	/* 1. the ww edge va -> vb: (vb, 0) reaches va in any state */
	from = vb * nst;
	if (cl_reach(S, from, va * nst) || (nst == 2 && cl_reach(S, from, va * nst + 1)))
		return true;
	if (r0 == r1 || !(S->rel_mask & ISO_EDGE_BIT(ISO_EDGE_RW)))
		return false;
	/* 2. rw edges reader -> vb: (vb, after an rw) reaches a reader in an
	 * accepted state (si: not after an rw; psi: after the one rw) */
	from = vb * nst + (S->mode == MODE_ACYCLIC ? 0 : 1);
	acc = S->mode == MODE_PSI ? 1 : 0;
	for (i = r0; i < r1; i++)
	{
		uint32		r = op_vertex(S, sl->rds[i]);

		if (r != vb && cl_reach(S, from, r * nst + acc))
			return true;
	}
	return false;
}

/*
 * The reasons of the forced constraints behind the witness cycles' edges,
 * found lazily: per such constraint, the graph of the round that forced it
 * (the known edges before the pruning and the orders forced in earlier
 * rounds: the same set of edges, so the same finished graph) and the BFS
 * of side_closes, which finds the cycle its other order closes.  Sets
 * var_reason/_len.
 */
static void
find_reasons(IsoSearchState *S, const IsoGraph *g, const IsoCycleList *cycles)
{
	uint32	   *want = NULL;
	uint32		n_want = 0,
				cap = 0,
				c,
				i,
				j;

	for (c = 0; c < cycles->n; c++)
		for (i = 0; i < cycles->cycles[c].length; i++)
		{
			int			lit = edge_literal(S, &g->edges[cycles->cycles[c].edges[i]]);
			uint32		v = (uint32) (lit < 0 ? -lit : lit);

			if (lit == 0 || S->var_forced[v] == 0 || S->var_reason[v] != ISO_NONE)
				continue;
			for (j = 0; j < n_want && want[j] != v; j++)
				;
			if (j < n_want)
				continue;
			if (n_want == cap)
			{
				cap = cap ? cap * 2 : 16;
				want = want ? iso_realloc(want, sizeof(uint32) * cap) :
					iso_alloc(sizeof(uint32) * cap);
			}
			want[n_want++] = v;
		}
	for (i = 0; i < n_want; i++)
	{
		uint32		v = want[i];
		const Slot *sl = &S->slots[S->var_slot[v]];
		IsoEdgeBuf	buf;
		IsoGraph	rg;
		uint64		rstart = S->reasons.n;
		bool		bad;
		uint32		u;

		iso_edgebuf_init(&buf, S->base0.n + 16);
		memcpy(buf.edges, S->base0.edges, sizeof(IsoEdge) * S->base0.n);
		buf.n = S->base0.n;
		for (u = 1; u <= S->n_vars; u++)
			if (S->var_forced[u] != 0 && S->var_round[u] < S->var_round[v])
				emit_side(S, &buf, u, S->var_forced[u] > 0);
		memset(&rg, 0, sizeof(rg));
		iso_graph_finish(&rg, S->inf->graph.n_vertices, &buf, S->h);
		iso_scc(&rg, S->rel_mask, S->comp);
		/* forced -1: a before b closes a cycle; +1: b before a does */
		if (S->var_forced[v] < 0)
			bad = side_closes(S, &rg, sl, S->var_a[v], S->var_b[v], true);
		else
			bad = side_closes(S, &rg, sl, S->var_b[v], S->var_a[v], true);
		iso_graph_free(&rg);
		if (!bad)
		{
			S->reasons.n = rstart;
			continue;
		}
		S->var_reason[v] = (uint32) rstart;
		S->var_reason_len[v] = (uint32) (S->reasons.n - rstart);
	}
	iso_free(want);
}

/* Per graph edge: where it comes from, and a forced edge's reason. */
static void
mark_origins(IsoSearchState *S, IsoSearchResult *out)
{
	const IsoGraph *g = &out->graph;
	uint64		i;

	find_reasons(S, g, &out->cycles);
	out->edge_origin = iso_alloc0(Max(g->n_edges, 1));
	out->edge_reason = iso_alloc(sizeof(uint32) * Max(g->n_edges, 1));
	for (i = 0; i < g->n_edges; i++)
	{
		int			lit = edge_literal(S, &g->edges[i]);
		uint32		v = (uint32) (lit < 0 ? -lit : lit);

		out->edge_reason[i] = ISO_NONE;
		if (lit == 0)
			continue;
		if (S->var_forced[v] != 0)
		{
			out->edge_origin[i] = ISO_ORIGIN_FORCED;
			out->edge_reason[i] = v;
		}
		else
			out->edge_origin[i] = ISO_ORIGIN_CHOSEN;
	}
	/* a forced edge's reason: its cycle in reason_edges, length by start */
	out->reason_edges = S->reasons.edges;
	out->reason_len = iso_alloc0(sizeof(uint32) * Max(S->reasons.n + 1, 1));
	for (i = 0; i < g->n_edges; i++)
		if (out->edge_reason[i] != ISO_NONE)
		{
			uint32		v = out->edge_reason[i];

			out->edge_reason[i] = S->var_reason[v];
			if (S->var_reason[v] != ISO_NONE)
				out->reason_len[S->var_reason[v]] = S->var_reason_len[v];
		}
}

/*
 * The explanation's view of the search (search_explain.h): a forbidden
 * cycle of the known and forced edges plus the sides of some literals, an
 * edge's open literal, and what a literal says.
 */
static bool
explain_cycle_of(void *arg, const int *lits, uint32 n, IsoGraph *g, IsoCycle *c)
{
	IsoSearchState *S = (IsoSearchState *) arg;
	IsoEdgeBuf	extra;
	uint32		i;

	iso_edgebuf_init(&extra, 16);
	for (i = 0; i < n; i++)
		emit_side(S, &extra, (uint32) (lits[i] < 0 ? -lits[i] : lits[i]), lits[i] > 0);
	memset(g, 0, sizeof(*g));
	finish_graph(S, &extra, g);
	iso_free(extra.edges);
	if (!iso_find_shortest_cycle(g, S->level, c))
	{
		iso_graph_free(g);
		return false;
	}
	return true;
}

static int
explain_edge_lit(void *arg, const IsoEdge *e)
{
	IsoSearchState *S = (IsoSearchState *) arg;
	int			l = edge_literal(S, e);

	return l != 0 && S->var_forced[l < 0 ? -l : l] == 0 ? l : 0;
}

static bool
explain_edge_forced(void *arg, const IsoEdge *e)
{
	IsoSearchState *S = (IsoSearchState *) arg;
	int			l = edge_literal(S, e);

	return l != 0 && S->var_forced[l < 0 ? -l : l] != 0;
}

static void
explain_describe(void *arg, int lit, uint32 *key, int32 *first_op, int32 *second_op)
{
	IsoSearchState *S = (IsoSearchState *) arg;
	uint32		v = (uint32) (lit < 0 ? -lit : lit);
	const Slot *sl = &S->slots[S->var_slot[v]];
	uint32		a = lit > 0 ? S->var_a[v] : S->var_b[v];
	uint32		b = lit > 0 ? S->var_b[v] : S->var_a[v];

	*key = sl->key;
	*first_op = (int32) sl->ver_op[a - 1];
	*second_op = (int32) sl->ver_op[b - 1];
}

static void add_transitivity(IsoSearchState *S, IsoSat *sat);

/*
 * What the explanation's solver takes as given: the transitivity of the
 * keys whose variables the blocking clauses use (on a copy of the state
 * that has only those keys' slots), and the forced orders among those
 * variables (none today: blocking and transitivity clauses leave forced
 * ones out; the explanation's solver numbers only the variables it sees).
 */
static void
explain_add_hard(void *arg, IsoSat *sat, const uint8 *var_used)
{
	IsoSearchState *S = (IsoSearchState *) arg;
	IsoSearchState T = *S;
	uint8	   *slot_used = iso_alloc0(Max(S->n_slots, 1));
	uint32		v,
				s;

	for (v = 1; v <= S->n_vars; v++)
		if (var_used[v])
		{
			slot_used[S->var_slot[v]] = 1;
			if (S->var_forced[v] != 0)
			{
				int			l = S->var_forced[v] > 0 ? (int) v : -(int) v;

				iso_sat_clause(sat, &l, 1);
			}
		}
	T.slots = iso_alloc(sizeof(Slot) * Max(S->n_slots, 1));
	T.n_slots = 0;
	for (s = 0; s < S->n_slots; s++)
		if (slot_used[s])
			T.slots[T.n_slots++] = S->slots[s];
	add_transitivity(&T, sat);
	iso_free(T.slots);
	iso_free(slot_used);
}

/*
 * The solver's proof of a violation as a witness and a case split; else
 * (false) at least a witness: the last round's cycles, or when that round
 * only scanned, a logged clause's cycle.
 */
static bool
explain_unsat(IsoSearchState *S, const IsoExplainLog *log, IsoSearchResult *out)
{
	IsoExplainHost host;

	host.arg = S;
	host.n_vars = S->n_vars;
	host.var_forced = S->var_forced;
	host.stop = should_stop;
	host.add_hard = explain_add_hard;
	host.cycle_of = explain_cycle_of;
	host.edge_lit = explain_edge_lit;
	host.edge_forced = explain_edge_forced;
	host.describe = explain_describe;
	if (iso_explain_unsat(&host, log, out))
		return true;
	iso_explain_witness(&host, log, out);
	return false;
}

/*
 * The satisfying version order of each open key: a version's place is the
 * number of versions before it, m - 1 minus those after it: its decided
 * successors (its row of ord, transitively closed) and the open pairs the
 * model put it first in.
 */
static void
record_order(IsoSearchState *S, IsoSearchResult *out)
{
	const IsoRegUnknown *u = &S->inf->unknown;
	uint32	   *after = NULL;
	uint32		max_m = 0;
	uint32		s,
				v;

	out->order_op = iso_alloc(sizeof(uint32) * Max(u->n_ver, 1));
	for (s = 0; s < S->n_slots; s++)
		max_m = Max(max_m, S->slots[s].m);
	after = iso_alloc0(sizeof(uint32) * ((Size) u->n_ver + 1));
	for (s = 0; s < S->n_slots; s++)
	{
		const Slot *sl = &S->slots[s];
		uint32		a,
					k;

		for (a = 1; a <= sl->m; a++)
		{
			const uint64 *row = sl->ord + (Size) (a - 1) * sl->words;
			uint32		n = 0;

			for (k = 0; k < sl->words; k++)
				n += (uint32) popcount64(row[k]);
			after[sl->ver0 + a - 1] = n;
		}
	}
	for (v = 1; v <= S->n_vars; v++)
	{
		const Slot *sl = &S->slots[S->var_slot[v]];
		bool		fwd;		/* var_a before var_b */

		if (S->var_forced[v] != 0)
			continue;			/* in ord */
		fwd = S->model != NULL && S->model[v];
		after[sl->ver0 + (fwd ? S->var_a[v] : S->var_b[v]) - 1]++;
	}
	for (s = 0; s < S->n_slots; s++)
	{
		const Slot *sl = &S->slots[s];
		uint32		b;

		for (b = 1; b <= sl->m; b++)
		{
			uint32		n = Min(after[sl->ver0 + b - 1], sl->m - 1);

			/* acyclic ww: the counts are 0..m-1, each once */
			out->order_op[u->ver_start[s] + (sl->m - 1 - n)] = sl->ver_op[b - 1];
		}
	}
	iso_free(after);
	(void) max_m;
}

static void
setup_scratch(IsoSearchState *S)
{
	uint32		n = S->inf->graph.n_vertices;

	S->n_states = n * 2;
	S->seen = iso_alloc0(sizeof(uint32) * Max(S->n_states, 1));
	S->queue = iso_alloc(sizeof(uint32) * Max(S->n_states, 1));
	S->parent = iso_alloc(sizeof(uint64) * Max(S->n_states, 1));
	S->pstate = iso_alloc(sizeof(uint32) * Max(S->n_states, 1));
	S->target = iso_alloc0(sizeof(uint32) * Max(n, 1));
	S->target_states = iso_alloc0(Max(n, 1));
	S->comp = iso_alloc(sizeof(uint32) * Max(n, 1));
	S->epoch = 0;
	S->n_st = S->mode == MODE_ACYCLIC ? 1 : 2;
	/* tests ask for the windowed closure with a small window (its blocks used) */
	S->cl_window = S->opt->prune_method == ISO_PRUNE_WINDOW ? 64 : CL_WINDOW;
}

/*
 * Prune to a fixed point.  Returns VIOLATED (out filled), HOLDS when no
 * constraint is left and the graph holds, else UNDECIDED meaning "search
 * the rest" (or S->stopped).
 */
static IsoSearchVerdict
prune(IsoSearchState *S, IsoSearchResult *out)
{
	for (;;)
	{
		IsoGraph	g;
		IsoCycleList cycles;
		bool		changed = false;
		bool		by_closure;
		bool		stop = false;
		uint32		v,
					s;
		uint64		left = 0;
		uint64		tested = 0;
		IsoEdgeBuf	forced;

		if (S->base0.edges == NULL)
		{
			iso_edgebuf_init(&S->base0, S->base.n);
			memcpy(S->base0.edges, S->base.edges, sizeof(IsoEdge) * S->base.n);
			S->base0.n = S->base.n;
			/* the base, finished once: later rounds merge into it */
			iso_graph_finish(&S->base_g, S->inf->graph.n_vertices, &S->base, S->h);
		}
		out->stats.prune_rounds++;
		/* this round's graph: the base (known and forced edges) itself */
		g = S->base_g;
		memset(&cycles, 0, sizeof(cycles));
		if (iso_find_cycles(&g, S->level, S->opt->max_witnesses, &cycles))
		{
			out->graph = g;
			memset(&S->base_g, 0, sizeof(S->base_g));	/* out owns it */
			out->cycles = cycles;
			mark_origins(S, out);
			return ISO_SEARCH_VIOLATED;
		}
		iso_cycle_list_free(&cycles);
		/*
		 * Reachability for every side at once (a closure of this round's
		 * graph), else a BFS per side: when asked to, or when the closure
		 * would be too big.
		 */
		by_closure = S->opt->prune_method != ISO_PRUNE_BFS && build_closure(S, &g);
		if (!by_closure)
			iso_scc(&g, S->rel_mask, S->comp);
		if (by_closure)
			out->stats.closure_rounds++;
		if (should_stop(S))
			return ISO_SEARCH_UNDECIDED;
		iso_edgebuf_init(&forced, 64);
		/*
		 * Every pair the decided order leaves open, per key from the last
		 * version down and each version's later ones up: when the versions
		 * are numbered about in their order, the first pair decided for a
		 * orders it before all the later ones (ord_add), which are then
		 * skipped.  A pair is decided only when one of its orders closes a
		 * forbidden cycle with this round's graph (the other is then in
		 * every allowed version order), or by transitivity from decided
		 * ones (ww is acyclic in every allowed order).
		 */
		for (s = 0; s < S->n_slots && !stop; s++)
		{
			Slot	   *sl = &S->slots[s];
			uint32		a,
						b;

			for (a = sl->m; a >= 1 && !stop; a--)
				for (b = next_open(sl, a, a + 1); b != 0; b = next_open(sl, a, b + 1))
				{
					bool		fwd_bad,
								back_bad,
								cycle = false;
					uint64		added;

					if ((++tested & 0xfff) == 0 && should_stop(S))
					{
						stop = true;
						break;
					}
					if (by_closure)
					{
						fwd_bad = side_closes_cl(S, sl, a, b);
						back_bad = side_closes_cl(S, sl, b, a);
					}
					else
					{
						fwd_bad = side_closes(S, &g, sl, a, b, false);
						back_bad = side_closes(S, &g, sl, b, a, false);
					}
					if (!fwd_bad && !back_bad)
					{
						left++;
						continue;
					}
					/*
					 * Force the other order (both close a cycle: force one,
					 * the graph shows the other).  The reason, the cycle
					 * this round's graph closes, is found when a witness
					 * shows the edge (find_reasons).
					 */
					out->stats.forced_digest = out->stats.forced_digest * UINT64_C(1099511628211) +
						((uint64) (sl->ver0 + a) << 33) + ((uint64) (sl->ver0 + b) << 1) + (fwd_bad ? 0 : 1);
					added = fwd_bad ? ord_add(S, sl, b, a, &cycle) : ord_add(S, sl, a, b, &cycle);
					out->stats.forced += added;
					/*
					 * Its edges join the graph, under a forced constraint
					 * (its origin and reason).  The pairs ord_add implied
					 * get none: a path of decided pairs' edges implies
					 * each (ww p -> a -> b -> q; an rw into a, then ww a
					 * -> b: build_slots says why that is the same).
					 */
					v = new_var(S, s, a, b, fwd_bad ? -1 : 1, out->stats.prune_rounds);
					emit_side(S, &forced, v, !fwd_bad);
					changed = true;
				}
		}
		if (stop)
		{
			iso_free(forced.edges);
			return ISO_SEARCH_UNDECIDED;
		}
		out->stats.constraints_left = left;
		if (forced.n > 0)
		{
			/* base := base plus this round's forced edges, finished */
			IsoGraph	ng;

			memset(&ng, 0, sizeof(ng));
			finish_graph(S, &forced, &ng);
			iso_graph_free(&S->base_g);
			S->base_g = ng;
		}
		iso_free(forced.edges);
		if (!changed)
			return left == 0 ? ISO_SEARCH_HOLDS : ISO_SEARCH_UNDECIDED;
	}
}

/*
 * Orient each open constraint so that its positive literal follows a
 * topological order of the known graph's ww|wr|so|rt edges (components of
 * it in reverse completion order, then vertex number): the solver tries
 * the true phase first, so its first guess is that order, which a history
 * from a database that honours the level mostly satisfies.
 */
static void
orient_vars(IsoSearchState *S)
{
	uint32		v;

	iso_scc(&S->base_g, ISO_EDGE_BIT(ISO_EDGE_WW) | ISO_EDGE_BIT(ISO_EDGE_WR) |
			ISO_EDGE_BIT(ISO_EDGE_SO) | ISO_EDGE_BIT(ISO_EDGE_RT), S->comp);
	for (v = 1; v <= S->n_vars; v++)
	{
		Slot	   *sl = &S->slots[S->var_slot[v]];
		uint32		a = S->var_a[v],
					b = S->var_b[v];
		uint32		va = op_vertex(S, sl->ver_op[a - 1]);
		uint32		vb = op_vertex(S, sl->ver_op[b - 1]);
		bool		a_first = S->comp[va] != S->comp[vb] ? S->comp[va] > S->comp[vb] : va < vb;

		if (S->var_forced[v] != 0 || a_first)
			continue;
		S->var_a[v] = b;
		S->var_b[v] = a;
	}
}

/* The literal of "a before b" (a != b): 0 when known, with *known its value. */
static inline int
before_lit(const IsoSearchState *S, const Slot *sl, uint32 a, uint32 b, bool *known)
{
	uint32		v;

	if (ord_get(sl, a, b) || ord_get(sl, b, a))
	{
		*known = ord_get(sl, a, b);
		return 0;
	}
	v = pair_find(S, sl, a, b);
	if (v == 0 || S->var_forced[v] != 0)
	{
		/* not reached: every pair is decided or open */
		*known = v != 0 && (S->var_forced[v] > 0) == (S->var_a[v] == a);
		return 0;
	}
	return S->var_a[v] == a ? (int) v : -(int) v;
}

/*
 * Transitivity of each open key's order, up front for small keys: a before
 * b and b before c imply a before c.  Not needed for completeness (a ww
 * cycle is a forbidden cycle the lazy loop blocks), only for speed.
 */
static void
add_transitivity(IsoSearchState *S, IsoSat *sat)
{
	uint64		work = 0;
	uint32		s;

	for (s = 0; s < S->n_slots; s++)
		work += (uint64) S->slots[s].m * S->slots[s].m * S->slots[s].m;
	if (work > MAX_TRANSITIVITY)
		return;
	for (s = 0; s < S->n_slots; s++)
	{
		const Slot *sl = &S->slots[s];
		uint32		a,
					b,
					c;

		for (a = 1; a <= sl->m; a++)
			for (b = 1; b <= sl->m; b++)
			{
				bool		kab = false,
							kbc = false,
							kac = false;
				int			lab,
							lbc,
							lac;

				if (a == b)
					continue;
				lab = before_lit(S, sl, a, b, &kab);
				if (lab == 0 && !kab)
					continue;
				for (c = 1; c <= sl->m; c++)
				{
					int			cl[3];
					uint32		n = 0;

					if (c == a || c == b)
						continue;
					lbc = before_lit(S, sl, b, c, &kbc);
					if (lbc == 0 && !kbc)
						continue;
					lac = before_lit(S, sl, a, c, &kac);
					if (lac == 0 && kac)
						continue;
					if (lab == 0 && lbc == 0 && lac == 0)
						continue;	/* known and consistent: pruning checked */
					if (lab != 0)
						cl[n++] = -lab;
					if (lbc != 0)
						cl[n++] = -lbc;
					if (lac != 0)
						cl[n++] = lac;
					iso_sat_clause(sat, cl, n);
				}
			}
	}
}

/*
 * Blocking clauses for the chosen graph g: for each open constraint, a
 * shortest forbidden cycle through the side the model chose (the same BFS
 * as the pruning), if any.  Cheaper than the exact cycle search and finds
 * many cycles per round; the exact search decides when this finds none.
 * Returns the number of clauses added.
 */
static uint32
scan_cycles(IsoSearchState *S, const IsoGraph *g, IsoSat *sat, int **lits, uint32 *cap_lits)
{
	uint32		v;
	uint32		added = 0;

	iso_scc(g, S->rel_mask, S->comp);
	for (v = 1; v <= S->n_vars && added < MAX_CLAUSES_PER_ROUND; v++)
	{
		const Slot *sl;
		bool		fwd;
		uint32		a,
					b;
		uint64		rstart = S->reasons.n;
		uint64		i;
		uint32		n = 0;

		if (S->var_forced[v] != 0)
			continue;
		if ((v & 0xff) == 0 && should_stop(S))
			break;
		sl = &S->slots[S->var_slot[v]];
		fwd = S->model[v] != 0;
		a = fwd ? S->var_a[v] : S->var_b[v];
		b = fwd ? S->var_b[v] : S->var_a[v];
		if (!side_closes(S, g, sl, a, b, true))
		{
			S->reasons.n = rstart;
			continue;
		}
		if (*cap_lits < S->reasons.n - rstart + 1)
		{
			*cap_lits = (uint32) (S->reasons.n - rstart) * 2 + 2;
			*lits = *lits ? iso_realloc(*lits, sizeof(int) * *cap_lits) :
				iso_alloc(sizeof(int) * *cap_lits);
		}
		for (i = rstart; i < S->reasons.n; i++)
		{
			int			l = edge_literal(S, &S->reasons.edges[i]);
			uint32		lv = (uint32) (l < 0 ? -l : l);
			uint32		j;
			bool		dup = false;

			if (l == 0 || S->var_forced[lv] != 0)
				continue;
			for (j = 0; j < n; j++)
				dup |= (*lits)[j] == -l;
			if (!dup)
				(*lits)[n++] = -l;
		}
		S->reasons.n = rstart;
		if (n == 0)
			continue;
		iso_sat_clause(sat, *lits, n);
		added++;
	}
	return added;
}

/* The lazy loop over the constraints pruning left open. */
static IsoSearchVerdict
solve_rest(IsoSearchState *S, IsoSearchResult *out)
{
	IsoSat	   *sat = iso_sat_new(should_stop, S);
	int		   *lits = NULL;
	uint32		cap_lits = 0;
	IsoSearchVerdict verdict = ISO_SEARCH_UNDECIDED;
	uint32		v;
	IsoExplainLog elog;

	iso_explain_log_init(&elog);

	/* every constraint gets a variable; forced ones are fixed */
	for (v = 1; v <= S->n_vars; v++)
		if (S->var_forced[v] != 0)
		{
			int			l = S->var_forced[v] > 0 ? (int) v : -(int) v;

			iso_sat_clause(sat, &l, 1);
		}
	add_transitivity(S, sat);
	/* the blocking clauses, to explain an unsatisfiable end (search_explain.c) */
	iso_sat_on_clause(sat, iso_explain_log_clause, &elog);
	S->model = iso_alloc0(S->n_vars + 1);
	for (;;)
	{
		IsoSatResult r;
		IsoEdgeBuf	chosen;
		IsoGraph	g;
		IsoCycleList cycles;
		uint32		c;

		if (should_stop(S))
			break;
		out->stats.solver_calls++;
		r = iso_sat_solve(sat);
		if (r == ISO_SAT_UNKNOWN)
			break;
		if (r == ISO_SAT_UNSAT)
		{
			verdict = ISO_SEARCH_VIOLATED;
			break;
		}
		iso_edgebuf_init(&chosen, 1024);
		for (v = 1; v <= S->n_vars; v++)
			if (S->var_forced[v] == 0)
			{
				S->model[v] = iso_sat_true(sat, (int) v);
				emit_side(S, &chosen, v, S->model[v]);
			}
		memset(&g, 0, sizeof(g));
		finish_graph(S, &chosen, &g);
		iso_free(chosen.edges);
		c = scan_cycles(S, &g, sat, &lits, &cap_lits);
		if (c > 0)
		{
			out->stats.clauses += c;
			iso_graph_free(&g);
			continue;
		}
		memset(&cycles, 0, sizeof(cycles));
		if (!iso_find_cycles(&g, S->level, CYCLES_PER_ROUND, &cycles))
		{
			iso_graph_free(&g);
			record_order(S, out);
			verdict = ISO_SEARCH_HOLDS;
			break;
		}
		/* keep this round's graph and witnesses: the last ones explain an UNSAT */
		if (out->graph.edges)
		{
			iso_graph_free(&out->graph);
			iso_cycle_list_free(&out->cycles);
		}
		out->graph = g;
		out->cycles = cycles;
		for (c = 0; c < cycles.n; c++)
		{
			const IsoCycle *cy = &cycles.cycles[c];
			uint32		n = 0,
						i;

			if (cap_lits < cy->length)
			{
				cap_lits = cy->length * 2;
				lits = lits ? iso_realloc(lits, sizeof(int) * cap_lits) :
					iso_alloc(sizeof(int) * cap_lits);
			}
			for (i = 0; i < cy->length; i++)
			{
				int			l = edge_literal(S, &g.edges[cy->edges[i]]);
				uint32		lv = (uint32) (l < 0 ? -l : l);

				if (l == 0 || S->var_forced[lv] != 0)
					continue;
				lits[n++] = -l;
			}
			/* a cycle of known and forced edges alone: pruning saw it */
			if (n == 0)
				iso_host_internal_error("version-order search: a cycle without a choice");
			iso_sat_clause(sat, lits, n);
			out->stats.clauses++;
		}
	}
	/* the loop's solver goes before the explanation's comes (memory) */
	iso_sat_free(sat);
	if (verdict == ISO_SEARCH_VIOLATED)
	{
		/*
		 * One witness and a case split over a core of the clauses that
		 * proves every other order closes a cycle too; failing that (time,
		 * size), at most max_witnesses of the last round's cycles, or a
		 * blocking clause's cycle when that round kept none.
		 */
		if (!explain_unsat(S, &elog, out) && out->cycles.n > S->opt->max_witnesses)
		{
			uint32		i;

			for (i = S->opt->max_witnesses; i < out->cycles.n; i++)
				iso_free(out->cycles.cycles[i].edges);
			out->cycles.n = S->opt->max_witnesses;
		}
		mark_origins(S, out);
	}
	else if (out->graph.edges)
	{
		iso_graph_free(&out->graph);
		iso_cycle_list_free(&out->cycles);
	}
	iso_free(lits);
	iso_explain_log_free(&elog);
	return verdict;
}

/* Free the search's state; the reasons stay when out took them. */
static void
free_state(IsoSearchState *S, const IsoSearchResult *out)
{
	uint32		s;

	for (s = 0; S->slots && s < S->n_slots; s++)
	{
		iso_free(S->slots[s].ord);
		iso_free(S->slots[s].pred_head);
		iso_free(S->slots[s].rd_start);
		iso_free(S->slots[s].rds);
	}
	iso_free(S->slots);
	iso_free(S->key_slot);
	iso_free(S->op_ver);
	iso_free(S->op_txn);
	iso_free(S->var_slot);
	iso_free(S->var_a);
	iso_free(S->var_b);
	iso_free(S->var_forced);
	iso_free(S->var_reason);
	iso_free(S->var_reason_len);
	iso_free(S->var_round);
	iso_free(S->pl_next);
	iso_free(S->pl_ver);
	iso_free(S->vmark);
	iso_free(S->vstack);
	iso_free(S->pair_keys);
	iso_free(S->pair_vars);
	iso_free(S->base0.edges);
	iso_free(S->cl_comp);
	iso_free(S->cl_rows);
	free_closure_approx(S);
	if (S->reasons.edges != out->reason_edges)
		iso_free(S->reasons.edges);
	iso_free(S->base.edges);
	iso_graph_free(&S->base_g);
	iso_free(S->seen);
	iso_free(S->target);
	iso_free(S->target_states);
	iso_free(S->queue);
	iso_free(S->parent);
	iso_free(S->pstate);
	iso_free(S->comp);
	iso_free(S->model);
}

IsoSearchVerdict
iso_search_level(const IsoHistory *h, const IsoInference *inf, IsoLevel level,
				 const IsoSearchOptions *opt, IsoSearchResult *out)
{
	IsoSearchState S;
	double		t0 = now_seconds();
	IsoSearchVerdict verdict;
	const char *reason = NULL;

	memset(out, 0, sizeof(*out));
	memset(&S, 0, sizeof(S));
	/* the search merges its edges into the graph's by their order */
	if (inf->graph.unsorted)
		iso_host_internal_error("version-order search on a graph whose edges are not sorted");
	S.h = h;
	S.inf = inf;
	S.level = level;
	S.li = iso_level_info(level);
	S.opt = opt;
	S.d_mask = S.li->d_mask;
	S.rel_mask = S.li->rel_mask;
	S.mode = S.li->check == ISO_CHECK_SI ? MODE_SI :
		S.li->check == ISO_CHECK_PSI ? MODE_PSI : MODE_ACYCLIC;
	S.deadline = opt->deadline > 0 ? opt->deadline :
		opt->timeout_seconds > 0 ? t0 + opt->timeout_seconds : 0;

	if (!build_slots(&S, &out->stats, &reason))
	{
		out->verdict = ISO_SEARCH_UNDECIDED;
		out->reason = reason;
		out->stats.seconds = now_seconds() - t0;
		free_state(&S, out);
		return out->verdict;
	}
	setup_scratch(&S);
	out->stats.constraints_left = out->stats.constraints;
	verdict = prune(&S, out);
	if (verdict != ISO_SEARCH_UNDECIDED)
	{
		out->by_pruning = true;
		if (verdict == ISO_SEARCH_HOLDS)
			record_order(&S, out);
	}
	else if (!S.stopped && opt->prune_only)
		reason = "pruning alone did not decide it";
	else if (!S.stopped && make_open_vars(&S, &out->stats, &reason))
	{
		orient_vars(&S);
		verdict = solve_rest(&S, out);
	}
	if (verdict == ISO_SEARCH_UNDECIDED && reason != NULL)
		out->reason = reason;
	else if (verdict == ISO_SEARCH_UNDECIDED)
		out->reason = S.stopped ?
			(iso_host_stop_requested() ? "cancelled" : "the search timeout (isograph.search_timeout) was reached") :
			"the search stopped";
	out->verdict = verdict;
	out->stats.seconds = now_seconds() - t0;
	free_state(&S, out);
	return verdict;
}

void
iso_search_result_free(IsoSearchResult *r)
{
	iso_graph_free(&r->graph);
	iso_cycle_list_free(&r->cycles);
	iso_free(r->edge_origin);
	iso_free(r->edge_reason);
	iso_free(r->reason_edges);
	iso_free(r->reason_len);
	iso_free(r->order_op);
	iso_free(r->edge_choice);
	iso_free(r->choice_nodes);
	iso_free(r->proof_edges);
	iso_free(r->proof_forced);
	iso_free(r->proof_start);
	memset(r, 0, sizeof(*r));
}

const char *
iso_verdict_method_name(IsoVerdictMethod m)
{
	switch (m)
	{
		case ISO_BY_EVIDENCE:
			return "evidence";
		case ISO_BY_SEARCH:
			return "search";
		case ISO_BY_IMPLICATION:
			return "implied";
		case ISO_NOT_DECIDED:
			return "not decided";
	}
	return "unknown";
}

/* Unordered pairs of versions of open keys, at most (before the known order). */
static uint64
open_pairs(const IsoInference *inf)
{
	const IsoRegUnknown *u = &inf->unknown;
	uint64		n = 0;
	uint32		s;

	for (s = 0; s < u->n_keys; s++)
	{
		uint64		m = u->ver_start[s + 1] - u->ver_start[s];

		n += m * (m - 1) / 2;
	}
	return n;
}

/* Levels related to those in wanted by implication, and wanted. */
static uint32
related_levels(uint32 wanted)
{
	uint32		rel = wanted;
	int			l,
				m;

	for (l = 0; l < ISO_LEVEL_COUNT; l++)
		if (wanted & (1u << l))
			for (m = 0; m < ISO_LEVEL_COUNT; m++)
				if (iso_level_implies((IsoLevel) l, (IsoLevel) m) ||
					iso_level_implies((IsoLevel) m, (IsoLevel) l))
					rel |= 1u << m;
	return rel;
}

/* Decide l by implication from the levels decided so far, if it can be. */
static bool
decide_by_implication(IsoLevelDecision *out, int l, bool holds_only)
{
	int			m;

	for (m = 0; m < ISO_LEVEL_COUNT; m++)
	{
		if (m == l || out[m].method == ISO_NOT_DECIDED)
			continue;
		if (out[m].holds && iso_level_implies((IsoLevel) m, (IsoLevel) l))
		{
			out[l].holds = true;
			out[l].method = ISO_BY_IMPLICATION;
			out[l].via = (IsoLevel) m;
			return true;
		}
		if (!holds_only && !out[m].holds && iso_level_implies((IsoLevel) l, (IsoLevel) m))
		{
			out[l].holds = false;
			out[l].method = ISO_BY_IMPLICATION;
			out[l].via = (IsoLevel) m;
			return true;
		}
	}
	return false;
}

void
iso_decide_levels(const IsoHistory *h, const IsoInference *inf, uint32 wanted,
				  const IsoSearchOptions *opt, IsoSccCache *cache,
				  IsoLevelDecision out[ISO_LEVEL_COUNT])
{
	uint32		todo = related_levels(wanted);
	IsoSearchOptions call_opt = *opt;
	int			l;

	/* the timeout is the whole call's, not each level's */
	if (call_opt.timeout_seconds > 0 && call_opt.deadline <= 0)
		call_opt.deadline = now_seconds() + call_opt.timeout_seconds;
	opt = &call_opt;
	memset(out, 0, sizeof(IsoLevelDecision) * ISO_LEVEL_COUNT);
	for (l = 0; l < ISO_LEVEL_COUNT; l++)
	{
		out[l].method = ISO_NOT_DECIDED;
		out[l].via = (IsoLevel) l;
		if (!(todo & (1u << l)))
			continue;
		out[l].holds = iso_level_holds(inf, (IsoLevel) l, cache);
		if (!out[l].holds || inf->unknown.n_keys == 0 || !iso_search_applies((IsoLevel) l))
			out[l].method = ISO_BY_EVIDENCE;
	}
	if (opt->no_search)
		return;
	/*
	 * pruning only, weakest first: violations carry upwards.  Only while the
	 * pairs are few: each level's pruning costs about as much as its search.
	 */
	for (l = 0; l < ISO_LEVEL_COUNT && open_pairs(inf) <= PRUNE_PASS_MAX_PAIRS; l++)
	{
		IsoSearchOptions o = *opt;
		IsoSearchResult r;

		if (!(todo & (1u << l)) || out[l].method != ISO_NOT_DECIDED)
			continue;
		if (decide_by_implication(out, l, false))
			continue;
		o.prune_only = true;
		iso_search_level(h, inf, (IsoLevel) l, &o, &r);
		if (r.verdict == ISO_SEARCH_UNDECIDED)
		{
			iso_search_result_free(&r);
			if (iso_host_stop_requested())
				return;
			continue;
		}
		out[l].holds = r.verdict == ISO_SEARCH_HOLDS;
		out[l].method = ISO_BY_SEARCH;
		out[l].searched = true;
		out[l].search = r;
	}
	/* the full search, strongest first: a pass carries downwards */
	for (l = ISO_LEVEL_COUNT - 1; l >= 0; l--)
	{
		IsoSearchResult r;

		if (!(todo & (1u << l)) || out[l].method != ISO_NOT_DECIDED)
			continue;
		if (decide_by_implication(out, l, false))
			continue;
		iso_search_level(h, inf, (IsoLevel) l, opt, &r);
		out[l].searched = true;
		out[l].search = r;
		if (r.verdict != ISO_SEARCH_UNDECIDED)
		{
			out[l].holds = r.verdict == ISO_SEARCH_HOLDS;
			out[l].method = ISO_BY_SEARCH;
		}
		else if (iso_host_stop_requested())
			return;
	}
	/* a weaker level left undecided may follow from a stronger one decided later */
	for (l = 0; l < ISO_LEVEL_COUNT; l++)
		if ((todo & (1u << l)) && out[l].method == ISO_NOT_DECIDED)
			decide_by_implication(out, l, false);
}

void
iso_level_decisions_free(IsoLevelDecision out[ISO_LEVEL_COUNT])
{
	int			l;

	for (l = 0; l < ISO_LEVEL_COUNT; l++)
		if (out[l].searched)
		{
			iso_search_result_free(&out[l].search);
			out[l].searched = false;
		}
}
