/*
 * search_explain.c
 *	  The proof of a violation the version-order search's SAT loop found
 *	  (search_explain.h): an unsatisfiable core of the loop's clauses,
 *	  shrunk by deletion, and a case split over it that ends in forbidden
 *	  cycles, PolySI's "interpretation" step in spirit (Huang et al., VLDB
 *	  2023: the solver's conflict, turned back into cycles).
 */
#define _POSIX_C_SOURCE 200809L	/* clock_gettime under -std=c99 */

#include "port.h"
#include "sat.h"
#include "search_explain.h"

#include <limits.h>
#include <stdlib.h>
#include <time.h>

/* the log's most literals (4 bytes each); past it no explanation */
#define LOG_MAX_LITS		(UINT64_C(1) << 23)
/* the explanation's own time limit, within the search's deadline */
#define EXPLAIN_MAX_SECONDS	10.0
/* most solves to shrink the core */
#define MAX_SHRINK_SOLVES	2000
/* the case split: most nodes in all, most cycles under one chosen edge */
#define MAX_NODES			96
#define MAX_LEAVES_PER_EDGE	8
/* the split's own time (each cycle builds a graph of the history) */
#define SPLIT_MAX_SECONDS	5.0

void
iso_explain_log_init(IsoExplainLog *log)
{
	memset(log, 0, sizeof(*log));
}

void
iso_explain_log_clause(void *arg, const int *lits, uint32 n)
{
	IsoExplainLog *log = (IsoExplainLog *) arg;

	if (log->overflow)
		return;
	if (log->n_lits + n > LOG_MAX_LITS || log->n_clauses >= (uint32) INT_MAX / 4)
	{
		log->overflow = true;
		return;
	}
	if (log->n_lits + n > log->cap_lits)
	{
		log->cap_lits = Max(log->cap_lits * 2, log->n_lits + n + 256);
		log->lits = log->lits ? iso_realloc(log->lits, sizeof(int) * log->cap_lits) :
			iso_alloc(sizeof(int) * log->cap_lits);
	}
	if (log->n_clauses + 2 > log->cap_clauses)
	{
		log->cap_clauses = Max(log->cap_clauses * 2, 256);
		log->start = log->start ? iso_realloc(log->start, sizeof(uint64) * log->cap_clauses) :
			iso_alloc(sizeof(uint64) * log->cap_clauses);
	}
	if (log->n_clauses == 0)
		log->start[0] = 0;
	memcpy(log->lits + log->n_lits, lits, sizeof(int) * n);
	log->n_lits += n;
	log->start[++log->n_clauses] = log->n_lits;
}

void
iso_explain_log_free(IsoExplainLog *log)
{
	iso_free(log->lits);
	iso_free(log->start);
	memset(log, 0, sizeof(*log));
}

typedef struct Ex
{
	const IsoExplainHost *host;
	const IsoExplainLog *log;
	double		deadline;
	bool		stopped;
	bool		failed;			/* an inconsistency: no explanation */

	uint32	   *core;			/* core clauses (log indices) */
	uint32		n_core;
	uint32	   *core_cycle;		/* per core clause: its proof cycle or ISO_NONE */
	int8	   *assign;			/* per variable: 0, +1 (true), -1 */
	int		   *trail;			/* the assigned literals */
	uint32		n_trail;

	/* proof cycles: edges, and the open literals each uses */
	IsoEdgeBuf	edges;
	uint8	   *eforced;		/* per edge: forced by pruning */
	uint64		cap_eforced;
	uint32	   *pstart;
	uint32		n_cycles;
	uint32		cap_cycles;
	int		   *clits;
	uint32	   *clit_start;
	uint32		n_clits;
	uint32		cap_clits;

	IsoChoiceNode *nodes;
	uint32		n_nodes;
	uint32		cap_nodes;
	uint32		leaves;			/* under the chosen edge being explained */
	double		split_deadline;
	bool		cut;
} Ex;

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool
ex_stop(void *arg)
{
	Ex		   *x = (Ex *) arg;

	if (!x->stopped && (now_seconds() > x->deadline || x->host->stop(x->host->arg)))
		x->stopped = true;
	return x->stopped;
}

static inline uint32
clause_len(const Ex *x, uint32 c)
{
	return (uint32) (x->log->start[c + 1] - x->log->start[c]);
}

static inline const int *
clause_lits(const Ex *x, uint32 c)
{
	return x->log->lits + x->log->start[c];
}

static inline int
lit_var(int l)
{
	return l < 0 ? -l : l;
}

/* A unit clause of a variable pruning fixed: not a choice, always true. */
static inline bool
clause_is_fixed(const Ex *x, uint32 c)
{
	return clause_len(x, c) == 1 && x->host->var_forced[lit_var(clause_lits(x, c)[0])] != 0;
}

typedef struct ByLen
{
	uint32		len;
	uint32		id;
} ByLen;

static int
cmp_by_len(const void *a, const void *b)
{
	const ByLen *x = (const ByLen *) a;
	const ByLen *y = (const ByLen *) b;

	if (x->len != y->len)
		return x->len > y->len ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * The logged clauses on a fresh solver, clause i under selector n_vars + 1
 * + i; the selectors the first proof uses, then deletion: without a
 * clause still unsatisfiable: drop it, and every clause that proof did not
 * use; satisfiable: keep it.  Longest clauses are tried first, so the core
 * keeps short cycles.  false: no first core (the deadline, or not
 * unsatisfiable at all).
 */
static bool
find_core(Ex *x, IsoSearchResult *out)
{
	const IsoExplainLog *log = x->log;
	uint32		nv = x->host->n_vars;
	IsoSat	   *sat;
	int		   *buf = NULL;
	uint32		cap_buf = 0;
	bool	   *in_core = NULL;
	bool	   *needed = NULL;
	uint32	   *order = NULL;
	uint32		n_order = 0,
				solves = 0,
				i,
				k;
	IsoSatResult r;
	bool		ok = false;

	if ((uint64) nv + log->n_clauses + 1 >= (uint64) INT_MAX)
		return false;
	sat = iso_sat_new(ex_stop, x);
	iso_sat_compact(sat, nv + log->n_clauses);
	{
		uint8	   *used = iso_alloc0(nv + 1);
		uint64		j;

		for (j = 0; j < log->n_lits; j++)
			if ((uint32) lit_var(log->lits[j]) <= nv)
				used[lit_var(log->lits[j])] = 1;
		x->host->add_hard(x->host->arg, sat, used);
		iso_free(used);
	}
	for (i = 0; i < log->n_clauses; i++)
	{
		uint32		n = clause_len(x, i);

		if (clause_is_fixed(x, i))
			continue;
		if (cap_buf < n + 1)
		{
			cap_buf = (n + 1) * 2;
			buf = buf ? iso_realloc(buf, sizeof(int) * cap_buf) : iso_alloc(sizeof(int) * cap_buf);
		}
		memcpy(buf, clause_lits(x, i), sizeof(int) * n);
		buf[n] = -(int) (nv + 1 + i);
		iso_sat_clause(sat, buf, n + 1);
	}
	for (i = 0; i < log->n_clauses; i++)
		if (!clause_is_fixed(x, i))
			iso_sat_assume(sat, (int) (nv + 1 + i));
	r = iso_sat_solve(sat);
	if (r != ISO_SAT_UNSAT)
		goto done;
	in_core = iso_alloc0(sizeof(bool) * log->n_clauses);
	needed = iso_alloc0(sizeof(bool) * log->n_clauses);
	order = iso_alloc(sizeof(uint32) * Max(log->n_clauses, 1));
	for (i = 0; i < log->n_clauses; i++)
		if (!clause_is_fixed(x, i) && iso_sat_failed(sat, (int) (nv + 1 + i)))
		{
			in_core[i] = true;
			order[n_order++] = i;
		}
	out->core_found = n_order;
	/* longest first, then in the log's order */
	{
		ByLen	   *by = iso_alloc(sizeof(ByLen) * Max(n_order, 1));

		for (i = 0; i < n_order; i++)
		{
			by[i].len = clause_len(x, order[i]);
			by[i].id = order[i];
		}
		qsort(by, n_order, sizeof(ByLen), cmp_by_len);
		for (i = 0; i < n_order; i++)
			order[i] = by[i].id;
		iso_free(by);
	}
	out->core_minimal = true;
	for (k = 0; k < n_order; k++)
	{
		uint32		c = order[k];

		if (!in_core[c] || needed[c])
			continue;
		if (solves++ >= MAX_SHRINK_SOLVES || ex_stop(x))
		{
			out->core_minimal = false;
			break;
		}
		for (i = 0; i < n_order; i++)
			if (in_core[order[i]] && order[i] != c)
				iso_sat_assume(sat, (int) (nv + 1 + order[i]));
		r = iso_sat_solve(sat);
		if (r == ISO_SAT_UNSAT)
		{
			in_core[c] = false;
			for (i = 0; i < n_order; i++)
				if (in_core[order[i]] && !iso_sat_failed(sat, (int) (nv + 1 + order[i])))
					in_core[order[i]] = false;
		}
		else if (r == ISO_SAT_SAT)
			needed[c] = true;
		else
		{
			out->core_minimal = false;
			break;
		}
	}
	/* the core, shortest clauses first (the witness is the first) */
	x->core = iso_alloc(sizeof(uint32) * Max(n_order, 1));
	x->n_core = 0;
	for (k = n_order; k > 0; k--)
		if (in_core[order[k - 1]])
			x->core[x->n_core++] = order[k - 1];
	out->core_size = x->n_core;
	ok = x->n_core > 0;
done:
	iso_free(buf);
	iso_free(in_core);
	iso_free(needed);
	iso_free(order);
	iso_sat_free(sat);
	return ok;
}

/* Append cycle c of g to the proof cycles; its index. */
static uint32
add_proof_cycle(Ex *x, const IsoGraph *g, const IsoCycle *c)
{
	uint32		i,
				j;

	if (x->n_cycles + 2 > x->cap_cycles)
	{
		x->cap_cycles = Max(x->cap_cycles * 2, 16);
		x->pstart = x->pstart ? iso_realloc(x->pstart, sizeof(uint32) * x->cap_cycles) :
			iso_alloc(sizeof(uint32) * x->cap_cycles);
		x->clit_start = x->clit_start ? iso_realloc(x->clit_start, sizeof(uint32) * x->cap_cycles) :
			iso_alloc(sizeof(uint32) * x->cap_cycles);
	}
	if (x->n_cycles == 0)
	{
		x->pstart[0] = 0;
		x->clit_start[0] = 0;
	}
	for (i = 0; i < c->length; i++)
	{
		const IsoEdge *e = &g->edges[c->edges[i]];
		int			l = x->host->edge_lit(x->host->arg, e);
		bool		dup = false;

		iso_edgebuf_push(&x->edges, e);
		if (x->edges.n > x->cap_eforced)
		{
			x->cap_eforced = Max(x->cap_eforced * 2, 64);
			x->eforced = x->eforced ? iso_realloc(x->eforced, x->cap_eforced) :
				iso_alloc(x->cap_eforced);
		}
		x->eforced[x->edges.n - 1] = x->host->edge_forced != NULL &&
			x->host->edge_forced(x->host->arg, e);
		if (l == 0)
			continue;
		for (j = x->clit_start[x->n_cycles]; j < x->n_clits; j++)
			dup |= x->clits[j] == l;
		if (dup)
			continue;
		if (x->n_clits == x->cap_clits)
		{
			x->cap_clits = Max(x->cap_clits * 2, 64);
			x->clits = x->clits ? iso_realloc(x->clits, sizeof(int) * x->cap_clits) :
				iso_alloc(sizeof(int) * x->cap_clits);
		}
		x->clits[x->n_clits++] = l;
	}
	x->n_cycles++;
	x->pstart[x->n_cycles] = (uint32) x->edges.n;
	x->clit_start[x->n_cycles] = x->n_clits;
	return x->n_cycles - 1;
}

/*
 * The cycle core clause k (index in x->core) stands for: the known graph
 * plus the choices its literals forbid.  keep_g/keep_c: hand back the
 * graph and cycle instead of freeing them.
 */
static uint32
core_cycle(Ex *x, uint32 k, IsoGraph *keep_g, IsoCycle *keep_c)
{
	uint32		c = x->core[k];
	uint32		n = clause_len(x, c);
	const int  *cl = clause_lits(x, c);
	int		   *neg;
	IsoGraph	g;
	IsoCycle	cy;
	uint32		i,
				idx;

	if (x->core_cycle[k] != ISO_NONE && keep_g == NULL)
		return x->core_cycle[k];
	neg = iso_alloc(sizeof(int) * Max(n, 1));
	for (i = 0; i < n; i++)
		neg[i] = -cl[i];
	memset(&g, 0, sizeof(g));
	memset(&cy, 0, sizeof(cy));
	if (!x->host->cycle_of(x->host->arg, neg, n, &g, &cy))
	{
		/* a logged clause is always a forbidden cycle's or an order's */
		iso_free(neg);
		x->failed = true;
		return ISO_NONE;
	}
	iso_free(neg);
	idx = add_proof_cycle(x, &g, &cy);
	x->core_cycle[k] = idx;
	if (keep_g != NULL)
	{
		*keep_g = g;
		*keep_c = cy;
	}
	else
	{
		iso_graph_free(&g);
		iso_free(cy.edges);
	}
	return idx;
}

static uint32
new_node(Ex *x, IsoChoiceKind kind)
{
	IsoChoiceNode *nd;

	if (x->n_nodes == x->cap_nodes)
	{
		x->cap_nodes = Max(x->cap_nodes * 2, 32);
		x->nodes = x->nodes ? iso_realloc(x->nodes, sizeof(IsoChoiceNode) * x->cap_nodes) :
			iso_alloc(sizeof(IsoChoiceNode) * x->cap_nodes);
	}
	nd = &x->nodes[x->n_nodes];
	memset(nd, 0, sizeof(*nd));
	nd->kind = (uint8) kind;
	nd->child[0] = nd->child[1] = ISO_NONE;
	nd->cycle = ISO_NONE;
	if (kind == ISO_CHOICE_CUT)
		x->cut = true;
	return x->n_nodes++;
}

/*
 * The case split under x->assign: a core clause whose literals the choices
 * all falsify is a leaf (its cycle closes); else split on a variable of the
 * unsatisfied clause with the fewest open literals.  Ends, because the core
 * is unsatisfiable: a full assignment of its variables falsifies a clause.
 */
static uint32
build(Ex *x)
{
	uint32		k,
				best = ISO_NONE,
				best_open = UINT32_MAX,
				fals = ISO_NONE;
	int			split_lit = 0;
	uint32		node,
				c0,
				c1;
	int			v;

	if (x->failed)
		return ISO_NONE;
	for (k = 0; k < x->n_core; k++)
	{
		uint32		c = x->core[k];
		uint32		n = clause_len(x, c);
		const int  *cl = clause_lits(x, c);
		uint32		open = 0,
					i;
		int			first_open = 0;
		bool		sat = false;

		for (i = 0; i < n && !sat; i++)
		{
			int8		a = x->assign[lit_var(cl[i])];
			int			val = cl[i] > 0 ? a : -a;

			if (val > 0)
				sat = true;
			else if (val == 0 && open++ == 0)
				first_open = cl[i];
		}
		if (sat)
			continue;
		if (open == 0)
		{
			/* core clauses are shortest first: the first is the shortest */
			fals = k;
			break;
		}
		if (open < best_open)
		{
			best_open = open;
			best = k;
			split_lit = first_open;
		}
	}
	if (fals != ISO_NONE)
	{
		uint32		cyc = core_cycle(x, fals, NULL, NULL);

		node = new_node(x, ISO_CHOICE_LEAF);
		x->nodes[node].cycle = cyc;
		x->leaves++;
		return node;
	}
	if (best == ISO_NONE)
	{
		/*
		 * Every core clause satisfied: the core needs transitivity here, so
		 * the choices order some key's versions in a cycle (acyclic, they
		 * would extend to total orders satisfying the core): a ww cycle.
		 */
		IsoGraph	g;
		IsoCycle	cy;

		memset(&g, 0, sizeof(g));
		memset(&cy, 0, sizeof(cy));
		if (!x->host->cycle_of(x->host->arg, x->trail, x->n_trail, &g, &cy))
		{
			x->failed = true;
			return ISO_NONE;
		}
		node = new_node(x, ISO_CHOICE_LEAF);
		x->nodes[node].cycle = add_proof_cycle(x, &g, &cy);
		x->leaves++;
		iso_graph_free(&g);
		iso_free(cy.edges);
		return node;
	}
	if (x->n_nodes + 3 > MAX_NODES || x->leaves + 2 > MAX_LEAVES_PER_EDGE ||
		now_seconds() > x->split_deadline)
		return new_node(x, ISO_CHOICE_CUT);
	v = lit_var(split_lit);
	node = new_node(x, ISO_CHOICE_SPLIT);
	x->host->describe(x->host->arg, v, &x->nodes[node].key, &x->nodes[node].first_op,
					  &x->nodes[node].second_op);
	x->assign[v] = 1;
	x->trail[x->n_trail++] = v;
	c0 = build(x);
	x->assign[v] = -1;
	x->trail[x->n_trail - 1] = -v;
	c1 = build(x);
	x->assign[v] = 0;
	x->n_trail--;
	x->nodes[node].child[0] = c0;
	x->nodes[node].child[1] = c1;
	return node;
}

/* Whether a leaf under node uses one of lits[0 .. n) (the earlier choices). */
static bool
uses_any(const Ex *x, uint32 node, const int *lits, uint32 n)
{
	const IsoChoiceNode *nd;
	uint32		i,
				j;

	if (node == ISO_NONE)
		return false;
	nd = &x->nodes[node];
	switch ((IsoChoiceKind) nd->kind)
	{
		case ISO_CHOICE_LEAF:
			for (i = x->clit_start[nd->cycle]; i < x->clit_start[nd->cycle + 1]; i++)
				for (j = 0; j < n; j++)
					if (x->clits[i] == lits[j])
						return true;
			return false;
		case ISO_CHOICE_IF:
			return uses_any(x, nd->child[0], lits, n);
		case ISO_CHOICE_SPLIT:
			return uses_any(x, nd->child[0], lits, n) || uses_any(x, nd->child[1], lits, n);
		case ISO_CHOICE_CUT:
			return false;
	}
	return false;
}

static void
ex_free(Ex *x)
{
	iso_free(x->core);
	iso_free(x->core_cycle);
	iso_free(x->assign);
	iso_free(x->trail);
	iso_free(x->edges.edges);
	iso_free(x->eforced);
	iso_free(x->pstart);
	iso_free(x->clits);
	iso_free(x->clit_start);
	iso_free(x->nodes);
}

bool
iso_explain_unsat(const IsoExplainHost *host, const IsoExplainLog *log, IsoSearchResult *out)
{
	Ex			x;
	IsoSearchResult tmp;
	IsoGraph	g;
	IsoCycle	w;
	int		   *wl = NULL;
	uint32	   *roots = NULL;
	uint32		n_wl = 0,
				i,
				j;
	uint32	   *edge_choice;
	double		t0;

	if (log->overflow || log->n_clauses == 0)
		return false;
	memset(&x, 0, sizeof(x));
	memset(&tmp, 0, sizeof(tmp));
	x.host = host;
	x.log = log;
	t0 = now_seconds();
	x.deadline = t0 + EXPLAIN_MAX_SECONDS;
	if (!find_core(&x, &tmp))
	{
		ex_free(&x);
		return false;
	}
	x.core_cycle = iso_alloc(sizeof(uint32) * x.n_core);
	memset(x.core_cycle, 0xff, sizeof(uint32) * x.n_core);
	x.assign = iso_alloc0(sizeof(int8) * (host->n_vars + 1));
	x.trail = iso_alloc(sizeof(int) * (host->n_vars + 1));
	x.split_deadline = now_seconds() + SPLIT_MAX_SECONDS;
	iso_edgebuf_init(&x.edges, 64);

	/*
	 * The witness: the core's shortest clause's cycle, proof cycle 0.  Its
	 * graph is built again at the end (the same inputs, the same cycle),
	 * so that only one such graph lives at a time.
	 */
	memset(&g, 0, sizeof(g));
	memset(&w, 0, sizeof(w));
	if (core_cycle(&x, 0, &g, &w) != 0)
	{
		ex_free(&x);
		return false;
	}
	/* its chosen edges' literals, in cycle order */
	wl = iso_alloc(sizeof(int) * Max(w.length, 1));
	roots = iso_alloc(sizeof(uint32) * Max(w.length, 1));
	for (i = 0; i < w.length; i++)
	{
		int			l = host->edge_lit(host->arg, &g.edges[w.edges[i]]);
		bool		dup = false;

		for (j = 0; j < n_wl; j++)
			dup |= wl[j] == l;
		if (l != 0 && !dup)
			wl[n_wl++] = l;
	}
	iso_graph_free(&g);
	iso_free(w.edges);
	memset(&w, 0, sizeof(w));

	/*
	 * Per chosen edge i: its other order, the earlier ones as in the
	 * witness (either some chosen edge differs, the first that does being
	 * i, or the witness's cycle closes).
	 */
	for (i = 0; i < n_wl && !x.failed; i++)
	{
		uint32		child;
		int			nl = -wl[i];

		x.n_trail = 0;
		for (j = 0; j < i; j++)
		{
			x.assign[lit_var(wl[j])] = wl[j] > 0 ? 1 : -1;
			x.trail[x.n_trail++] = wl[j];
		}
		x.assign[lit_var(nl)] = nl > 0 ? 1 : -1;
		x.trail[x.n_trail++] = nl;
		roots[i] = new_node(&x, ISO_CHOICE_IF);
		host->describe(host->arg, nl, &x.nodes[roots[i]].key, &x.nodes[roots[i]].first_op,
					   &x.nodes[roots[i]].second_op);
		x.leaves = 0;
		child = build(&x);
		x.nodes[roots[i]].child[0] = child;
		x.nodes[roots[i]].uses_earlier = i > 0 && uses_any(&x, child, wl, i);
		memset(x.assign, 0, sizeof(int8) * (host->n_vars + 1));
	}

	/* the witness's graph again: it must be proof cycle 0 */
	if (!x.failed && n_wl > 0)
	{
		uint32		c = x.core[0];
		uint32		n = clause_len(&x, c);
		int		   *neg = iso_alloc(sizeof(int) * Max(n, 1));

		for (i = 0; i < n; i++)
			neg[i] = -clause_lits(&x, c)[i];
		if (!host->cycle_of(host->arg, neg, n, &g, &w) ||
			w.length != x.pstart[1] - x.pstart[0])
			x.failed = true;
		for (i = 0; !x.failed && i < w.length; i++)
		{
			const IsoEdge *a = &g.edges[w.edges[i]];
			const IsoEdge *b = &x.edges.edges[x.pstart[0] + i];

			/* one from_ref: one from op and key (graph.h) */
			if (a->from != b->from || a->to != b->to || a->type != b->type ||
				a->from_ref != b->from_ref || a->to_op != b->to_op)
				x.failed = true;
		}
		iso_free(neg);
	}
	if (x.failed || n_wl == 0)
	{
		iso_free(wl);
		iso_free(roots);
		iso_graph_free(&g);
		iso_free(w.edges);
		ex_free(&x);
		return false;
	}
	edge_choice = iso_alloc(sizeof(uint32) * Max(g.n_edges, 1));
	memset(edge_choice, 0xff, sizeof(uint32) * Max(g.n_edges, 1));
	for (i = 0; i < w.length; i++)
	{
		int			l = host->edge_lit(host->arg, &g.edges[w.edges[i]]);

		for (j = 0; j < n_wl; j++)
			if (l != 0 && wl[j] == l)
				edge_choice[w.edges[i]] = roots[j];
	}
	iso_free(wl);
	iso_free(roots);

	/* out: the witness and its graph in place of the last round's */
	if (out->graph.edges)
		iso_graph_free(&out->graph);
	iso_cycle_list_free(&out->cycles);
	out->graph = g;
	out->cycles.cycles = iso_alloc(sizeof(IsoCycle));
	out->cycles.cycles[0] = w;
	out->cycles.n = out->cycles.cap = 1;
	out->edge_choice = edge_choice;
	out->choice_nodes = x.nodes;
	out->n_choice_nodes = x.n_nodes;
	x.nodes = NULL;
	out->proof_edges = x.edges.edges;
	x.edges.edges = NULL;
	out->proof_forced = x.eforced;
	x.eforced = NULL;
	out->proof_start = x.pstart;
	x.pstart = NULL;
	out->n_proof_cycles = x.n_cycles;
	out->core_found = tmp.core_found;
	out->core_size = tmp.core_size;
	out->core_minimal = tmp.core_minimal;
	out->proof_cut = x.cut;
	out->explain_seconds = now_seconds() - t0;
	ex_free(&x);
	return true;
}

bool
iso_explain_witness(const IsoExplainHost *host, const IsoExplainLog *log, IsoSearchResult *out)
{
	uint32		tries,
				c;

	if (out->cycles.n > 0)
		return true;
	for (tries = 0, c = log->n_clauses; c > 0 && tries < 16; c--, tries++)
	{
		uint32		n = (uint32) (log->start[c] - log->start[c - 1]);
		const int  *cl = log->lits + log->start[c - 1];
		int		   *neg = iso_alloc(sizeof(int) * Max(n, 1));
		IsoGraph	g;
		IsoCycle	w;
		uint32		i;
		bool		found;

		for (i = 0; i < n; i++)
			neg[i] = -cl[i];
		memset(&g, 0, sizeof(g));
		memset(&w, 0, sizeof(w));
		found = host->cycle_of(host->arg, neg, n, &g, &w);
		iso_free(neg);
		if (!found)
			continue;
		if (out->graph.edges)
			iso_graph_free(&out->graph);
		iso_cycle_list_free(&out->cycles);
		out->graph = g;
		out->cycles.cycles = iso_alloc(sizeof(IsoCycle));
		out->cycles.cycles[0] = w;
		out->cycles.n = out->cycles.cap = 1;
		return true;
	}
	return false;
}
