/*
 * test_cycle.c
 *	  Unit tests for graph.c, scc.c, cycle.c and levels.c (standalone build,
 *	  TAP output).  See Makefile.cycle.
 *
 *	1. hand-built graphs at every level boundary;
 *	2. brute-force cross-check on random graphs of <= 7 vertices: verdicts
 *	   from transitive closures and from enumerating every simple cycle,
 *	   and validation of every witness;
 *	3. scale/pathology cases with timings on stderr.
 */
#define _POSIX_C_SOURCE 200809L	/* clock_gettime under -std=c99 */

#include "port.h"
#include "graph.h"
#include "cycle.h"
#include "levels.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "child.h"
#include "tap.h"

#define NL ISO_LEVEL_COUNT

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
graph_free(IsoGraph *g)
{
	iso_free(g->edges);
	iso_free(g->out_start);
	g->edges = NULL;
	g->out_start = NULL;
}

/*
 * A history of n ops only, op i on key keys[i] (keys NULL: key i % 3):
 * an edge that names an op has that op's key (graph.h), looked up here.
 */
static void
key_history(IsoHistory *h, uint32 n, const uint32 *keys)
{
	uint32		i;

	memset(h, 0, sizeof(*h));
	h->ops = (IsoOp *) iso_alloc0(sizeof(IsoOp) * Max(n, 1));
	h->n_ops = n;
	for (i = 0; i < n; i++)
		h->ops[i].key = keys ? keys[i] : i % 3;
}

/* ------------------------------------------------------------------ */
/* Witness validation (shared by hand-built and random tests)          */
/* ------------------------------------------------------------------ */

/* Independent classification, written from docs/semantics.md. */
static IsoCycleKind
ref_classify(const IsoGraph *g, const uint64 *cy, uint32 len, bool *so, bool *rt)
{
	uint32		i,
				nrw = 0,
				nwr = 0;
	bool		adj = false;

	*so = *rt = false;
	for (i = 0; i < len; i++)
	{
		const IsoEdge *e = &g->edges[cy[i]];
		const IsoEdge *nx = &g->edges[cy[(i + 1) % len]];

		if (e->type == ISO_EDGE_SO)
			*so = true;
		else if (e->type == ISO_EDGE_RT)
			*rt = true;
		if (e->type == ISO_EDGE_WR)
			nwr++;
		if (e->type == ISO_EDGE_RW)
		{
			nrw++;
			if (nx->type == ISO_EDGE_RW)
				adj = true;
		}
	}
	if (nrw == 0)
		return nwr == 0 ? ISO_CYCLE_G0 : ISO_CYCLE_G1C;
	if (nrw == 1)	/* one key or several: Elle's G-single(-item) */
		return ISO_CYCLE_G_SINGLE;
	return adj ? ISO_CYCLE_G2_ITEM : ISO_CYCLE_G_NONADJACENT;
}

typedef struct WitnessReport
{
	bool		all_valid;
	char		why[200];
	uint32		per_kind[ISO_CYCLE_KIND_COUNT];
	uint32		nonsimple;
} WitnessReport;

static bool
fail_why(WitnessReport *r, const char *msg, uint32 i)
{
	if (r->all_valid)
		snprintf(r->why, sizeof(r->why), "witness %u: %s", i, msg);
	r->all_valid = false;
	return false;
}

/* Check every witness of out against level; lcomp = iso_scc(rel_mask). */
static void
validate_witnesses(const IsoGraph *g, IsoLevel level, uint32 max_per_kind,
				   const IsoCycleList *out, const uint32 *lcomp,
				   WitnessReport *r)
{
	const IsoLevelInfo *li = iso_level_info(level);
	uint32		allowed = li->check == ISO_CHECK_ACYCLIC ? li->rel_mask :
	(li->d_mask | ISO_EDGE_BIT(ISO_EDGE_RW));
	uint32		i,
				j,
				k;

	memset(r, 0, sizeof(*r));
	r->all_valid = true;
	for (i = 0; i < out->n; i++)
	{
		const IsoCycle *cy = &out->cycles[i];
		bool		so,
					rt,
					so2,
					rt2,
					simple = true;
		IsoCycleKind kind;
		uint32		nrw = 0;
		bool		adj = false;

		if (cy->length == 0 || cy->edges == NULL)
		{
			fail_why(r, "empty", i);
			continue;
		}
		for (j = 0; j < cy->length; j++)
		{
			uint64		e = cy->edges[j];
			uint64		nx = cy->edges[(j + 1) % cy->length];

			if (e >= g->n_edges || nx >= g->n_edges)
				break;
			if (g->edges[e].to != g->edges[nx].from)
				break;
			if (!(allowed & ISO_EDGE_BIT(g->edges[e].type)))
				break;
			if (g->edges[e].type == ISO_EDGE_RW)
			{
				nrw++;
				if (g->edges[nx].type == ISO_EDGE_RW)
					adj = true;
			}
			for (k = 0; k < j; k++)
				if (g->edges[cy->edges[k]].from == g->edges[e].from)
					simple = false;
		}
		if (j < cy->length)
		{
			fail_why(r, "not a closed walk of allowed edges", i);
			continue;
		}
		kind = iso_classify_cycle(g, cy->edges, cy->length, &so, &rt);
		if (kind != cy->kind || ref_classify(g, cy->edges, cy->length, &so2, &rt2) != kind)
		{
			fail_why(r, "kind mismatch", i);
			continue;
		}
		if (so != cy->uses_so || rt != cy->uses_rt || so2 != so || rt2 != rt)
		{
			fail_why(r, "uses_so/uses_rt mismatch", i);
			continue;
		}
		if (!(li->forbidden_kinds & ISO_CYCLE_KIND_BIT(kind)))
		{
			fail_why(r, "kind not forbidden by the level", i);
			continue;
		}
		if (li->check == ISO_CHECK_PSI && nrw > 1)
		{
			fail_why(r, "psi witness with > 1 rw", i);
			continue;
		}
		if (li->check == ISO_CHECK_SI && adj)
		{
			fail_why(r, "si witness with adjacent rw", i);
			continue;
		}
		if (cy->component != lcomp[g->edges[cy->edges[0]].from])
		{
			fail_why(r, "wrong component", i);
			continue;
		}
		if (!simple)
		{
			/* every witness is a simple cycle, 2-layer ones included */
			r->nonsimple++;
			fail_why(r, "non-simple witness", i);
			continue;
		}
		r->per_kind[kind]++;
	}
	for (k = 0; k < ISO_CYCLE_KIND_COUNT; k++)
		if (r->per_kind[k] > max_per_kind)
		{
			fail_why(r, "more than max_per_kind", k);
		}
}

/* ------------------------------------------------------------------ */
/* 1. Hand-built graphs                                                */
/* ------------------------------------------------------------------ */

typedef struct E
{
	uint32		from,
				to;
	IsoEdgeType type;
	uint32		key;
} E;

/* The graph of es; sorted, or as iso_graph_finish_unsorted leaves it. */
static void
build_as(IsoGraph *g, uint32 nv, const E *es, int ne, bool sorted)
{
	IsoEdgeBuf	buf;
	int			i;

	iso_edgebuf_init(&buf, 0);
	for (i = 0; i < ne; i++)
		iso_edgebuf_add(&buf, es[i].from, es[i].to, es[i].type,
						es[i].type >= ISO_EDGE_SO ? ISO_NO_KEY : es[i].key,
						ISO_NO_OP, i + 100);
	if (sorted)
		iso_graph_finish(g, nv, &buf, NULL);
	else
		iso_graph_finish_unsorted(g, nv, &buf, NULL);
}

static void
build(IsoGraph *g, uint32 nv, const E *es, int ne)
{
	build_as(g, nv, es, ne, true);
}

/*
 * expect: one char per level in enum order, 'V' = violated, '.' = holds.
 * kinds: for each level, the witness kind expected among the witnesses
 * (-1: none required).
 */
static void
check_case(const char *name, uint32 nv, const E *es, int ne,
		   const char *expect, int witness_level, int witness_kind,
		   int want_so, int want_rt)
{
	IsoGraph	g;
	int			l;
	char		got[NL + 1];
	bool		witnesses_ok = true;
	char		why[256] = "";
	bool		kind_found = (witness_level < 0);

	build(&g, nv, es, ne);
	for (l = 0; l < (int) NL; l++)
	{
		IsoCycleList out = {NULL, 0, 0};
		bool		v = iso_find_cycles(&g, (IsoLevel) l, 10, &out);
		WitnessReport r;
		uint32	   *lcomp = iso_alloc((g.n_vertices ? g.n_vertices : 1) * sizeof(uint32));
		uint32		i;

		got[l] = v ? 'V' : '.';
		iso_scc(&g, iso_level_info((IsoLevel) l)->rel_mask, lcomp);
		validate_witnesses(&g, (IsoLevel) l, 10, &out, lcomp, &r);
		if (!r.all_valid && witnesses_ok)
		{
			witnesses_ok = false;
			snprintf(why, sizeof(why), "%s: %s", iso_level_name((IsoLevel) l), r.why);
		}
		if (v != (out.n > 0) && witnesses_ok)
		{
			witnesses_ok = false;
			snprintf(why, sizeof(why), "%s: verdict %d with %u witnesses",
					 iso_level_name((IsoLevel) l), v, out.n);
		}
		if (l == witness_level)
		{
			for (i = 0; i < out.n; i++)
				if ((int) out.cycles[i].kind == witness_kind &&
					(want_so < 0 || out.cycles[i].uses_so == (want_so != 0)) &&
					(want_rt < 0 || out.cycles[i].uses_rt == (want_rt != 0)))
					kind_found = true;
		}
		iso_free(lcomp);
		iso_cycle_list_free(&out);
	}
	got[NL] = '\0';
	ok(strcmp(got, expect) == 0, "%s: verdicts %s (expected %s)", name, got, expect);
	ok(witnesses_ok, "%s: witnesses valid %s", name, why);
	if (witness_level >= 0)
		ok(kind_found, "%s: %s witness at %s%s%s", name,
		   iso_cycle_kind_name((IsoCycleKind) witness_kind),
		   iso_level_name((IsoLevel) witness_level),
		   want_so > 0 ? " (-process)" : "", want_rt > 0 ? " (-realtime)" : "");
	graph_free(&g);
}

#define WW ISO_EDGE_WW
#define WR ISO_EDGE_WR
#define RW ISO_EDGE_RW
#define SO ISO_EDGE_SO
#define RT ISO_EDGE_RT
#define NE(a) ((int) (sizeof(a) / sizeof((a)[0])))

static void
test_names(void)
{
	IsoLevel	l;
	int			i;
	static const char *const canon[NL] = {
		"pl-1", "pl-2", "pl-2.99", "psi", "si", "ser",
		"strong-session-si", "strong-session-serializable", "strict-serializable"
	};
	bool		good = true;

	for (i = 0; i < (int) NL; i++)
	{
		if (strcmp(iso_level_name((IsoLevel) i), canon[i]) != 0)
			good = false;
		if (!iso_level_parse(canon[i], &l) || l != (IsoLevel) i)
			good = false;
	}
	ok(good, "level names round-trip");
	ok(iso_level_parse("Read-Committed", &l) && l == ISO_LEVEL_PL2 &&
	   iso_level_parse("READ-UNCOMMITTED", &l) && l == ISO_LEVEL_PL1 &&
	   iso_level_parse("repeatable-read", &l) && l == ISO_LEVEL_PL299 &&
	   iso_level_parse("Parallel-Snapshot-Isolation", &l) && l == ISO_LEVEL_PSI &&
	   iso_level_parse("snapshot-isolation", &l) && l == ISO_LEVEL_SI &&
	   iso_level_parse("SERIALIZABLE", &l) && l == ISO_LEVEL_SER &&
	   iso_level_parse("PL-3", &l) && l == ISO_LEVEL_SER &&
	   iso_level_parse("Strict-Serializable", &l) && l == ISO_LEVEL_STRICT_SER,
	   "level aliases, case-insensitive");
	ok(!iso_level_parse("pl-4", &l) && !iso_level_parse("", &l) &&
	   !iso_level_parse("serializable-x", &l) && !iso_level_parse(NULL, &l),
	   "unknown level names rejected");
	ok(strcmp(iso_cycle_kind_name(ISO_CYCLE_G0), "G0") == 0 &&
	   strcmp(iso_cycle_kind_name(ISO_CYCLE_G1C), "G1c") == 0 &&
	   strcmp(iso_cycle_kind_name(ISO_CYCLE_G_SINGLE), "G-single") == 0 &&
	   strcmp(iso_cycle_kind_name(ISO_CYCLE_G_NONADJACENT), "G-nonadjacent") == 0 &&
	   strcmp(iso_cycle_kind_name(ISO_CYCLE_G2_ITEM), "G2-item") == 0,
	   "cycle kind names");
	{
		/* a level implies another only if it forbids all the other does */
		int			a,
					b,
					bad = 0,
					pairs = 0;

		for (a = 0; a < ISO_LEVEL_COUNT; a++)
			for (b = 0; b < ISO_LEVEL_COUNT; b++)
			{
				const IsoLevelInfo *la = iso_level_info((IsoLevel) a);
				const IsoLevelInfo *lb = iso_level_info((IsoLevel) b);

				if (a == b || !iso_level_implies((IsoLevel) a, (IsoLevel) b))
					continue;
				pairs++;
				if ((lb->forbidden_anomalies & ~la->forbidden_anomalies) != 0 ||
					(lb->forbidden_kinds & ~la->forbidden_kinds) != 0 ||
					(lb->d_mask & ~la->d_mask) != 0 ||
					iso_level_implies((IsoLevel) b, (IsoLevel) a))
					bad++;
			}
		ok(bad == 0 && pairs == 32, "level table: %d implications, each forbids at least "
		   "what the weaker level forbids (%d bad)", pairs, bad);
		ok(iso_level_forbids(ISO_LEVEL_PL1, ISO_ANOM_GARBAGE_READ) &&
		   !iso_level_forbids(ISO_LEVEL_PL1, ISO_ANOM_INCOMPATIBLE_ORDER) &&
		   iso_level_forbids(ISO_LEVEL_PL2, ISO_ANOM_INCOMPATIBLE_ORDER) &&
		   !iso_level_forbids(ISO_LEVEL_PL299, ISO_ANOM_INTERNAL) &&
		   iso_level_forbids(ISO_LEVEL_PSI, ISO_ANOM_INTERNAL) &&
		   iso_level_forbids(ISO_LEVEL_PL299, ISO_ANOM_LOST_UPDATE) &&
		   !iso_level_forbids(ISO_LEVEL_PL2, ISO_ANOM_LOST_UPDATE),
		   "level table: the non-cycle anomalies of docs/semantics.md");
	}
	ok(strcmp(iso_edge_type_name(ISO_EDGE_WW), "ww") == 0 &&
	   strcmp(iso_edge_type_name(ISO_EDGE_WR), "wr") == 0 &&
	   strcmp(iso_edge_type_name(ISO_EDGE_RW), "rw") == 0 &&
	   strcmp(iso_edge_type_name(ISO_EDGE_SO), "so") == 0 &&
	   strcmp(iso_edge_type_name(ISO_EDGE_RT), "rt") == 0,
	   "edge type names");
}

/* An edge's key and ops, for edge_add_aborts. */
typedef struct EdgeArgs
{
	uint32		key;
	int32		from_op;
	int32		to_op;
} EdgeArgs;

static void
add_one_edge(void *arg)
{
	const EdgeArgs *a = arg;
	IsoEdgeBuf	buf;

	iso_edgebuf_init(&buf, 0);
	iso_edgebuf_add(&buf, 0, 1, ISO_EDGE_WW, a->key, a->from_op, a->to_op);
}

/* Whether adding a ww edge 0 -> 1 with this key and these ops stops the check. */
static bool
edge_add_aborts(uint32 key, int32 from_op, int32 to_op)
{
	EdgeArgs	a = {key, from_op, to_op};

	return run_in_child(add_one_edge, &a) == CHILD_ABORTED;
}

static void
test_graph_build(void)
{
	static const uint32 dkeys[] = {7, 2, 3, 5, 1, 6, 0, 0, 0, 2};
	IsoGraph	g;
	IsoEdgeBuf	buf;
	IsoHistory	kh,
				dh,
				hh;
	uint32		hkeys[10000];
	uint64		counts[ISO_EDGE_NTYPES];
	bool		good;
	uint64		i;

	for (i = 0; i < 10000; i++)
		hkeys[i] = (uint32) (i < 5000 ? i % 3 : (i - 5000) % 7);
	key_history(&kh, 2, NULL);
	key_history(&dh, 10, dkeys);
	key_history(&hh, 10000, hkeys);

	/* self-edges dropped */
	iso_edgebuf_init(&buf, 1);
	iso_edgebuf_add(&buf, 0, 0, ISO_EDGE_WW, 1, 0, 1);
	iso_edgebuf_add(&buf, 1, 1, ISO_EDGE_RW, 1, 0, 1);
	iso_edgebuf_add(&buf, 1, 1, ISO_EDGE_SO, ISO_NO_KEY, -1, -1);
	iso_graph_finish(&g, 2, &buf, &kh);
	ok(g.n_edges == 0 && g.out_start[0] == 0 && g.out_start[2] == 0 &&
	   buf.edges == NULL && buf.n == 0,
	   "self-edges dropped by iso_graph_finish");
	graph_free(&g);

	/*
	 * duplicates: keep the smallest (key, from_op, to_op) per (from, to,
	 * type), the key of an edge with a from op being the op's (ops 0..9 on
	 * keys 7 2 3 5 1 6 0 0 0 2).  The wr pair keeps the larger from op, on
	 * the smaller key; the rw pair to vertex 2 the edge without ops, whose
	 * key it holds itself, before the one whose op has the same key.
	 */
	iso_edgebuf_init(&buf, 0);
	iso_edgebuf_add(&buf, 2, 1, ISO_EDGE_WW, 5, 3, 4);
	iso_edgebuf_add(&buf, 0, 1, ISO_EDGE_WW, 5, 3, 4);
	iso_edgebuf_add(&buf, 0, 1, ISO_EDGE_WW, 2, 9, 9);
	iso_edgebuf_add(&buf, 0, 1, ISO_EDGE_WR, 7, 0, 0);
	iso_edgebuf_add(&buf, 0, 1, ISO_EDGE_WW, 2, 1, 8);
	iso_edgebuf_add(&buf, 0, 1, ISO_EDGE_WW, 2, 1, 7);
	iso_edgebuf_add(&buf, 1, 0, ISO_EDGE_RW, 3, 2, 0);
	iso_edgebuf_add(&buf, 0, 2, ISO_EDGE_SO, ISO_NO_KEY, -1, -1);
	iso_edgebuf_add(&buf, 0, 1, ISO_EDGE_WR, 6, 5, 0);
	iso_edgebuf_add(&buf, 1, 2, ISO_EDGE_RW, 7, 0, 3);
	iso_edgebuf_add(&buf, 1, 2, ISO_EDGE_RW, 7, ISO_NO_OP, 4);
	iso_edgebuf_add(&buf, 1, 2, ISO_EDGE_RW, 8, ISO_NO_OP, 2);
	iso_graph_finish(&g, 3, &buf, &dh);
	good = g.n_edges == 6 &&
		g.out_start[0] == 0 && g.out_start[1] == 3 && g.out_start[2] == 5 &&
		g.out_start[3] == 6 &&
		g.edges[0].from == 0 && g.edges[0].to == 1 && g.edges[0].type == ISO_EDGE_WW &&
		iso_edge_key(&dh, &g.edges[0]) == 2 && iso_edge_from_op(&g.edges[0]) == 1 &&
		g.edges[0].to_op == 7 &&
		g.edges[1].to == 1 && g.edges[1].type == ISO_EDGE_WR &&
		iso_edge_key(&dh, &g.edges[1]) == 6 && iso_edge_from_op(&g.edges[1]) == 5 &&
		g.edges[2].to == 2 && g.edges[2].type == ISO_EDGE_SO &&
		iso_edge_key(&dh, &g.edges[2]) == ISO_NO_KEY &&
		iso_edge_from_op(&g.edges[2]) == ISO_NO_OP && g.edges[2].to_op == ISO_NO_OP &&
		g.edges[3].from == 1 && g.edges[3].to == 0 && g.edges[3].type == ISO_EDGE_RW &&
		iso_edge_key(&dh, &g.edges[3]) == 3 &&
		g.edges[4].from == 1 && g.edges[4].to == 2 && g.edges[4].type == ISO_EDGE_RW &&
		iso_edge_key(&dh, &g.edges[4]) == 7 &&
		iso_edge_from_op(&g.edges[4]) == ISO_NO_OP && g.edges[4].to_op == 4 &&
		g.edges[5].from == 2 && g.edges[5].to == 1 && iso_edge_key(&dh, &g.edges[5]) == 5;
	ok(good, "duplicates removed, smallest (key, from_op, to_op) kept, CSR built");
	iso_graph_count(&g, counts);
	ok(counts[ISO_EDGE_WW] == 2 && counts[ISO_EDGE_WR] == 1 && counts[ISO_EDGE_RW] == 2 &&
	   counts[ISO_EDGE_SO] == 1 && counts[ISO_EDGE_RT] == 0, "iso_graph_count");
	graph_free(&g);

	/* many edges, reverse order, with a hub: sorted by (from, to, type) */
	iso_edgebuf_init(&buf, 0);
	for (i = 0; i < 5000; i++)
	{
		uint32		f = (uint32) ((i * 7919) % 100);
		uint32		t = (uint32) ((i * 104729 + 13) % 100);

		iso_edgebuf_add(&buf, f, t, (IsoEdgeType) (i % 5), (uint32) (i % 3), (int32) i, 0);
		iso_edgebuf_add(&buf, 0, (uint32) (i % 100), ISO_EDGE_WW, (uint32) (i % 7),
						(int32) (5000 + i), 0);
	}
	iso_graph_finish(&g, 100, &buf, &hh);
	good = true;
	for (i = 0; i < g.n_edges; i++)
	{
		const IsoEdge *a = &g.edges[i];

		if (a->from == a->to || i < g.out_start[a->from] || i >= g.out_start[a->from + 1])
			good = false;
		if (i > 0)
		{
			const IsoEdge *p = &g.edges[i - 1];

			if (p->from > a->from ||
				(p->from == a->from && (p->to > a->to ||
										(p->to == a->to && p->type >= a->type))))
				good = false;
		}
	}
	for (i = 0; i < g.out_start[1]; i++)
		if (g.edges[i].type == ISO_EDGE_WW && iso_edge_key(&hh, &g.edges[i]) != 0)
			good = false;		/* hub's ww edges: key 0 exists for each target */
	ok(good && g.out_start[100] == g.n_edges, "10k edges: sorted, unique, CSR consistent");
	graph_free(&g);

	/*
	 * 16-byte edges: to_op and type share a word, and from_ref holds the
	 * from op or, without one, the key.  The largest op index an edge's
	 * to_op holds, the largest key an edge without ops holds and ISO_NO_OP
	 * come back as they went in, with every type, and one past either stops
	 * the check (the standalone host aborts).
	 */
	ok(sizeof(IsoEdge) == 16, "an edge is 16 bytes (%zu)", sizeof(IsoEdge));
	iso_edgebuf_init(&buf, 0);
	for (i = 0; i < ISO_EDGE_NTYPES; i++)
	{
		iso_edgebuf_add(&buf, 0, (uint32) i + 1, (IsoEdgeType) i, ISO_EDGE_MAX_REF_KEY,
						ISO_NO_OP, ISO_EDGE_MAX_OP);
		iso_edgebuf_add(&buf, (uint32) i + 1, 0, (IsoEdgeType) i, ISO_NO_KEY, ISO_NO_OP,
						ISO_NO_OP);
	}
	iso_graph_finish(&g, ISO_EDGE_NTYPES + 1, &buf, NULL);
	good = g.n_edges == 2 * ISO_EDGE_NTYPES;
	for (i = 0; good && i < g.n_edges; i++)
	{
		const IsoEdge *a = &g.edges[i];
		uint32		t = a->from == 0 ? a->to - 1 : a->from - 1;

		if (a->type != t ||
			a->to_op != (a->from == 0 ? ISO_EDGE_MAX_OP : ISO_NO_OP) ||
			iso_edge_from_op(a) != ISO_NO_OP ||
			iso_edge_key(NULL, a) != (a->from == 0 ? ISO_EDGE_MAX_REF_KEY : ISO_NO_KEY))
			good = false;
	}
	ok(good, "op index 2^28 - 1, key 2^31 - 2 and ISO_NO_OP kept with every edge type");
	graph_free(&g);
	ok(edge_add_aborts(0, 0, ISO_EDGE_MAX_OP + 1),
	   "an op index past 2^28 - 1 on an edge stops the check");
	ok(edge_add_aborts(ISO_EDGE_MAX_REF_KEY + 1, ISO_NO_OP, ISO_NO_OP),
	   "a key past 2^31 - 2 on an edge without ops stops the check");

	/* empty graph */
	iso_edgebuf_init(&buf, 0);
	iso_graph_finish(&g, 0, &buf, NULL);
	{
		uint32		nt = 7,
					lg = 7;

		iso_scc_stats(&g, ISO_EDGES_DATA, &nt, &lg);
		ok(g.n_edges == 0 && g.n_vertices == 0 && nt == 0 && lg == 0, "empty graph builds");
	}
	graph_free(&g);
	iso_free(kh.ops);
	iso_free(dh.ops);
	iso_free(hh.ops);
}

static void
test_hand_cases(void)
{
	/* levels: pl-1 pl-2 pl-2.99 psi si ser ss-si ss-ser strict */
	static const E g0[] = {{0, 1, WW, 0}, {1, 0, WW, 1}};
	static const E g1c[] = {{0, 1, WW, 0}, {1, 0, WR, 1}};
	static const E gsingle[] = {{0, 1, RW, 0}, {1, 0, WR, 1}};
	static const E lu[] = {{0, 1, RW, 4}, {1, 0, WW, 4}};
	static const E lu3[] = {{0, 1, RW, 4}, {1, 2, WW, 4}, {2, 0, WR, 4}, {1, 2, SO, 0}};
	static const E fork[] = {{0, 1, RW, 0}, {1, 2, WR, 1}, {2, 3, RW, 1}, {3, 0, WR, 0}};
	static const E skew[] = {{0, 1, RW, 0}, {1, 0, RW, 1}};
	static const E skew3[] = {{0, 1, RW, 0}, {1, 2, RW, 1}, {2, 0, WW, 2}};
	static const E so_only[] = {{0, 1, WW, 0}, {1, 0, SO, 0}};
	static const E so_wr[] = {{0, 1, WR, 0}, {1, 2, SO, 0}, {2, 0, WR, 1}};
	static const E so_single[] = {{0, 1, RW, 0}, {1, 0, SO, 0}};
	static const E so_fork[] = {{0, 1, RW, 0}, {1, 2, SO, 0}, {2, 3, RW, 1}, {3, 0, SO, 0}};
	static const E rt_only[] = {{0, 1, WW, 0}, {1, 0, RT, 0}};
	static const E rt_skew[] = {{0, 1, RW, 0}, {1, 2, RW, 1}, {2, 0, RT, 0}};
	static const E pure_and_so[] = {{0, 1, WW, 0}, {1, 0, WW, 1}, {1, 0, SO, 0},
	{1, 2, SO, 0}, {2, 0, SO, 0}};
	static const E chain[] = {{0, 1, WW, 0}, {1, 2, WR, 0}, {2, 3, RW, 0}, {0, 3, SO, 0}};
	static const E selfs[] = {{0, 0, WW, 0}, {1, 1, WR, 0}, {0, 0, RW, 0}, {1, 1, SO, 0}};
	/* G-single whose D path crosses two D-SCCs (PSI phase b) */
	static const E psi_b[] = {{0, 1, RW, 0}, {1, 2, WW, 1}, {2, 3, WR, 2}, {3, 0, WW, 3},
	{3, 4, RW, 4}, {4, 3, RW, 5}};
	/* two components: G0 in one, write skew in the other */
	static const E two[] = {{0, 1, WW, 0}, {1, 0, WW, 0}, {2, 3, RW, 1}, {3, 2, RW, 2}};

	check_case("empty graph", 0, NULL, 0, ".........", -1, 0, -1, -1);
	check_case("one vertex", 1, NULL, 0, ".........", -1, 0, -1, -1);
	check_case("self-edges only", 2, selfs, NE(selfs), ".........", -1, 0, -1, -1);
	check_case("acyclic chain", 4, chain, NE(chain), ".........", -1, 0, -1, -1);
	check_case("G0 2-cycle", 2, g0, NE(g0), "VVVVVVVVV", ISO_LEVEL_PL1, ISO_CYCLE_G0, 0, 0);
	check_case("G1c ww+wr", 2, g1c, NE(g1c), ".VVVVVVVV", ISO_LEVEL_PL2, ISO_CYCLE_G1C, 0, 0);
	check_case("G-single (two keys)", 2, gsingle, NE(gsingle), "..VVVVVVV",
			   ISO_LEVEL_PSI, ISO_CYCLE_G_SINGLE, 0, 0);
	/* one-key single-rw cycles are G-single too (lost-update is the
	 * non-cycle anomaly of the graph builder, as in Elle) */
	check_case("one-key single rw", 2, lu, NE(lu), "..VVVVVVV",
			   ISO_LEVEL_PSI, ISO_CYCLE_G_SINGLE, 0, 0);
	check_case("one-key single rw, 3 txns", 3, lu3, NE(lu3), "..VVVVVVV",
			   ISO_LEVEL_SI, ISO_CYCLE_G_SINGLE, 0, 0);
	check_case("long fork (G-nonadjacent)", 4, fork, NE(fork), "..V.VVVVV",
			   ISO_LEVEL_SI, ISO_CYCLE_G_NONADJACENT, 0, 0);
	check_case("write skew (G2-item)", 2, skew, NE(skew), "..V..V.VV",
			   ISO_LEVEL_SER, ISO_CYCLE_G2_ITEM, 0, 0);
	check_case("write skew 3 txns", 3, skew3, NE(skew3), "..V..V.VV",
			   ISO_LEVEL_PL299, ISO_CYCLE_G2_ITEM, 0, 0);
	check_case("G0 only through so", 2, so_only, NE(so_only), "......VVV",
			   ISO_LEVEL_STRONG_SESSION_SER, ISO_CYCLE_G0, 1, 0);
	check_case("G1c only through so", 3, so_wr, NE(so_wr), "......VVV",
			   ISO_LEVEL_STRONG_SESSION_SI, ISO_CYCLE_G1C, 1, 0);
	check_case("G-single only through so", 2, so_single, NE(so_single), "......VVV",
			   ISO_LEVEL_STRONG_SESSION_SI, ISO_CYCLE_G_SINGLE, 1, 0);
	check_case("G-nonadjacent only through so", 4, so_fork, NE(so_fork), "......VVV",
			   ISO_LEVEL_STRONG_SESSION_SI, ISO_CYCLE_G_NONADJACENT, 1, 0);
	check_case("G0 only through rt", 2, rt_only, NE(rt_only), "........V",
			   ISO_LEVEL_STRICT_SER, ISO_CYCLE_G0, 0, 1);
	check_case("G2-item only through rt", 3, rt_skew, NE(rt_skew), "........V",
			   ISO_LEVEL_STRICT_SER, ISO_CYCLE_G2_ITEM, 0, 1);
	check_case("pure G0 preferred over so", 3, pure_and_so, NE(pure_and_so), "VVVVVVVVV",
			   ISO_LEVEL_STRONG_SESSION_SER, ISO_CYCLE_G0, 0, 0);
	check_case("G-single across D-SCCs", 5, psi_b, NE(psi_b), "..VVVVVVV",
			   ISO_LEVEL_PSI, ISO_CYCLE_G_SINGLE, 0, 0);
	check_case("two components", 4, two, NE(two), "VVVVVVVVV",
			   ISO_LEVEL_SER, ISO_CYCLE_G2_ITEM, 0, 0);

	/* the so-preference case must not produce a -process G0 at all */
	{
		IsoGraph	g;
		IsoCycleList out = {NULL, 0, 0};
		uint32		i,
					n_so = 0,
					n_g0 = 0;

		build(&g, 3, pure_and_so, NE(pure_and_so));
		iso_find_cycles(&g, ISO_LEVEL_STRONG_SESSION_SER, 10, &out);
		for (i = 0; i < out.n; i++)
			if (out.cycles[i].kind == ISO_CYCLE_G0)
			{
				n_g0++;
				if (out.cycles[i].uses_so)
					n_so++;
			}
		ok(n_g0 == 1 && n_so == 0, "one G0 witness per component, the pure one (%u, %u)",
		   n_g0, n_so);
		iso_cycle_list_free(&out);

		/* max_per_kind = 0: verdict only */
		ok(iso_find_cycles(&g, ISO_LEVEL_PL1, 0, &out) && out.n == 0,
		   "max_per_kind 0: violated, no witnesses");
		iso_cycle_list_free(&out);
		graph_free(&g);
	}
	/* two components: one witness each */
	{
		IsoGraph	g;
		IsoCycleList out = {NULL, 0, 0};

		build(&g, 4, two, NE(two));
		iso_find_cycles(&g, ISO_LEVEL_SER, 10, &out);
		ok(out.n == 2 && out.cycles[0].component != out.cycles[1].component,
		   "ser: one witness in each of two components");
		iso_cycle_list_free(&out);
		iso_find_cycles(&g, ISO_LEVEL_SER, 1, &out);
		ok(out.n == 2, "ser, max 1: G0 and G2-item, one each");
		iso_cycle_list_free(&out);
		graph_free(&g);
	}
	/* classification edge cases */
	{
		IsoGraph	g;
		static const E cl[] = {{0, 1, RW, 1}, {1, 2, SO, 0}, {2, 0, RT, 0},
		{1, 0, WW, 2}, {2, 1, WR, 3}};
		uint64		cy[3];
		bool		so,
					rt;

		build(&g, 3, cl, NE(cl));
		/* edges sorted: 0:(0,1,rw) 1:(1,0,ww) 2:(1,2,so) 3:(2,0,rt) 4:(2,1,wr) */
		cy[0] = 0;
		cy[1] = 2;
		cy[2] = 3;
		ok(iso_classify_cycle(&g, cy, 3, &so, &rt) == ISO_CYCLE_G_SINGLE && so && rt,
		   "rw + so + rt: G-single (so/rt carry no key, so not one key), uses both");
		cy[0] = 0;
		cy[1] = 1;
		ok(iso_classify_cycle(&g, cy, 2, &so, &rt) == ISO_CYCLE_G_SINGLE && !so && !rt,
		   "rw(k1) + ww(k2): G-single");
		cy[0] = 2;
		cy[1] = 4;
		ok(iso_classify_cycle(&g, cy, 2, &so, &rt) == ISO_CYCLE_G1C && so,
		   "so + wr: G1c");
		graph_free(&g);
	}
}

/* ------------------------------------------------------------------ */
/* 2. Brute force on small random graphs                               */
/* ------------------------------------------------------------------ */

static uint64 rng_state = 0x9E3779B97F4A7C15ull;

static uint32
rnd(uint32 n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32) ((rng_state >> 11) % n);
}

/*
 * iso_graph_finish against a reference (qsort of the whole edge list by
 * (from, to, type, key, from_op, to_op), self-edges dropped, the first of
 * each (from, to, type) kept) on random edge lists shaped to hit the
 * two-level bucketing: uniform, one hub vertex holding most edges (a coarse
 * range of its own, larger than the others), edges crowded into a few
 * vertices among many isolated ones, and fewer edges than coarse ranges.
 */
typedef struct RefEdge
{
	uint32		from,
				to,
				type,
				key;
	int32		from_op,
				to_op;
} RefEdge;

static int
ref_edge_cmp(const void *pa, const void *pb)
{
	const RefEdge *a = (const RefEdge *) pa;
	const RefEdge *b = (const RefEdge *) pb;

	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	if (a->to != b->to)
		return a->to < b->to ? -1 : 1;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->from_op != b->from_op)
		return a->from_op < b->from_op ? -1 : 1;
	if (a->to_op != b->to_op)
		return a->to_op < b->to_op ? -1 : 1;
	return 0;
}

/* a graph edge as the reference's (the key through h) */
static RefEdge
ref_of(const IsoHistory *h, const IsoEdge *e)
{
	RefEdge		r;

	r.from = e->from;
	r.to = e->to;
	r.type = e->type;
	r.key = iso_edge_key(h, e);
	r.from_op = iso_edge_from_op(e);
	r.to_op = e->to_op;
	return r;
}

static void
test_graph_build_reference(void)
{
	static const struct
	{
		const char *name;
		uint32		nv;
		uint32		ne;
		int			shape;		/* 0 uniform, 1 hub, 2 crowded, 3 isolated */
	}			cases[] = {
		{"uniform", 3000, 40000, 0},
		{"hub", 2000, 30000, 1},
		{"crowded", 50000, 20000, 2},
		{"sparse", 1000, 100, 0},
		{"one edge per vertex", 1000, 1000, 0},
		{"two edges per vertex", 5000, 10000, 0},
		{"few edges, many vertices", 100000, 300, 3},
		{"one vertex pair", 2, 5000, 0},
	};
	IsoHistory	kh;
	int			c;

	key_history(&kh, 6, NULL);

	for (c = 0; c < (int) (sizeof(cases) / sizeof(cases[0])); c++)
	{
		uint32		nv = cases[c].nv;
		uint32		ne = cases[c].ne;
		RefEdge    *ref = (RefEdge *) iso_alloc(sizeof(RefEdge) * ne);
		uint64	   *ref_start = (uint64 *) iso_alloc0(sizeof(uint64) * ((Size) nv + 1));
		uint32		nref = 0,
					i,
					v;
		IsoEdgeBuf	buf,
					ubuf;
		IsoGraph	g,
					ug;
		bool		good = true;
		uint32		nall;

		iso_edgebuf_init(&buf, 0);
		iso_edgebuf_init(&ubuf, 0);
		for (i = 0; i < ne; i++)
		{
			RefEdge		e;
			uint32		r = rnd(100);

			switch (cases[c].shape)
			{
				case 1:
					e.from = r < 70 ? 17 : rnd(nv);
					break;
				case 2:
					e.from = nv - 1 - rnd(40) * 97;
					break;
				default:
					e.from = rnd(nv);
					break;
			}
			e.to = rnd(nv);
			/*
			 * ww/wr/rw: from ops 0..5 on keys 0 1 2 0 1 2, or no op (-1)
			 * and a key (or none) of the edge's own
			 */
			e.type = rnd(ISO_EDGE_NTYPES);
			e.key = e.type >= ISO_EDGE_SO ? ISO_NO_KEY : rnd(4);
			e.from_op = e.type >= ISO_EDGE_SO ? ISO_NO_OP : (int32) rnd(7) - 1;
			e.to_op = e.type >= ISO_EDGE_SO ? ISO_NO_OP : (int32) rnd(6);
			if (e.from_op >= 0)
				e.key = kh.ops[e.from_op].key;
			else if (e.type < ISO_EDGE_SO && e.key == 3)
				e.key = ISO_NO_KEY;
			iso_edgebuf_add(&buf, e.from, e.to, (IsoEdgeType) e.type, e.key,
							e.from_op, e.to_op);
			iso_edgebuf_add(&ubuf, e.from, e.to, (IsoEdgeType) e.type, e.key,
							e.from_op, e.to_op);
			if (e.from != e.to)
				ref[nref++] = e;
		}
		qsort(ref, nref, sizeof(RefEdge), ref_edge_cmp);
		nall = nref;

		/*
		 * Unsorted: every edge but the self-edges, repeats too, each in its
		 * from's range; the ranges' contents sorted are the reference
		 * before its repeats go.
		 */
		iso_graph_finish_unsorted(&ug, nv, &ubuf, &kh);
		if (!ug.unsorted || ug.n_edges != nall || ug.out_start[nv] != nall)
			good = false;
		for (v = 0; good && v < nv; v++)
		{
			uint64		b = ug.out_start[v],
						e = ug.out_start[v + 1];
			RefEdge    *got = (RefEdge *) iso_alloc(sizeof(RefEdge) * (e - b + 1));
			uint64		j;

			for (j = b; j < e; j++)
				got[j - b] = ref_of(&kh, &ug.edges[j]);
			qsort(got, e - b, sizeof(RefEdge), ref_edge_cmp);
			for (j = b; j < e && good; j++)
				if (ref_edge_cmp(&got[j - b], &ref[j]) != 0)
					good = false;
			iso_free(got);
		}
		ok(good, "iso_graph_finish_unsorted: each vertex's edges, repeats kept: %s",
		   cases[c].name);
		{
			uint32		w = 0;

			for (i = 0; i < nref; i++)
			{
				if (w > 0 && ref[i].from == ref[w - 1].from &&
					ref[i].to == ref[w - 1].to && ref[i].type == ref[w - 1].type)
					continue;
				ref[w++] = ref[i];
			}
			nref = w;
		}
		for (i = 0; i < nref; i++)
			ref_start[ref[i].from + 1]++;
		for (v = 0; v < nv; v++)
			ref_start[v + 1] += ref_start[v];

		iso_graph_finish(&g, nv, &buf, &kh);
		if (g.n_edges != nref)
			good = false;
		for (v = 0; good && v <= nv; v++)
			if (g.out_start[v] != ref_start[v])
				good = false;
		for (i = 0; good && i < nref; i++)
		{
			RefEdge		r = ref_of(&kh, &g.edges[i]);

			if (ref_edge_cmp(&r, &ref[i]) != 0)
				good = false;
		}
		ok(good, "iso_graph_finish = sort + dedupe reference: %s (%u vertices, %u edges)",
		   cases[c].name, nv, ne);

		/* then sorted: the same graph as iso_graph_finish, twice */
		for (i = 0; i < 2; i++)
		{
			uint64		j;

			iso_graph_sort(&ug, &kh);
			good = !ug.unsorted && ug.n_edges == g.n_edges;
			for (v = 0; good && v <= nv; v++)
				good = ug.out_start[v] == g.out_start[v];
			for (j = 0; good && j < g.n_edges; j++)
				good = memcmp(&ug.edges[j], &g.edges[j], sizeof(IsoEdge)) == 0;
			ok(good, "iso_graph_sort of the unsorted graph = iso_graph_finish (%s call): %s",
			   i == 0 ? "first" : "second", cases[c].name);
		}
		graph_free(&ug);
		graph_free(&g);
		iso_free(ref);
		iso_free(ref_start);
	}
	iso_free(kh.ops);
}

/*
 * An unsorted graph (graph.h): the components are found on it, and a
 * search or an edge count stops the check instead of reading edges out of
 * order.
 */
static void
count_unsorted(void *arg)
{
	uint64		counts[ISO_EDGE_NTYPES];

	iso_graph_count((const IsoGraph *) arg, counts);
}

static void
search_unsorted(void *arg)
{
	IsoCycleList cl;

	memset(&cl, 0, sizeof(cl));
	(void) iso_find_cycles((const IsoGraph *) arg, ISO_LEVEL_SER, 1, &cl);
}

static void
test_unsorted_graph(void)
{
	/* a chain with a repeated edge, then the same with a back edge */
	static const E chain[] = {{0, 1, ISO_EDGE_WW, 0}, {1, 2, ISO_EDGE_WR, 0},
	{0, 1, ISO_EDGE_WW, 0}, {2, 3, ISO_EDGE_RW, 0}};
	static const E cyc[] = {{0, 1, ISO_EDGE_WW, 0}, {1, 2, ISO_EDGE_WR, 0},
	{0, 1, ISO_EDGE_WW, 0}, {2, 0, ISO_EDGE_RW, 0}};
	IsoGraph	g;
	IsoSccCache *cache;
	IsoCycleList cl;
	char		said[256];
	int			l;
	bool		holds = true;

	build_as(&g, 4, chain, 4, false);
	cache = iso_scc_cache_create();
	iso_scc_cache_prime(cache, &g);
	ok(iso_scc_cache_acyclic(cache, &g), "unsorted chain: every component a single vertex");
	for (l = 0; l < NL; l++)
	{
		memset(&cl, 0, sizeof(cl));
		if (iso_find_cycles_cached(&g, (IsoLevel) l, 1, &cl, cache) || cl.n != 0)
			holds = false;
		iso_cycle_list_free(&cl);
	}
	ok(holds, "unsorted chain: every level holds, from the components alone");
	ok(g.unsorted && g.n_edges == 4, "unsorted chain: its repeated edge kept until sorted");
	ok(child_stops_saying(count_unsorted, &g, "isograph: edges counted before their repeats are dropped",
						  said, sizeof(said)),
	   "unsorted chain: counting its edges stops the check (%s)", said);
	iso_scc_cache_free(cache);
	iso_graph_sort(&g, NULL);
	{
		uint64		counts[ISO_EDGE_NTYPES];

		iso_graph_count(&g, counts);
		ok(!g.unsorted && g.n_edges == 3 && counts[ISO_EDGE_WW] == 1,
		   "sorted chain: the repeat dropped, counted once");
	}
	graph_free(&g);

	build_as(&g, 3, cyc, 4, false);
	cache = iso_scc_cache_create();
	iso_scc_cache_prime(cache, &g);
	ok(!iso_scc_cache_acyclic(cache, &g), "unsorted cycle: a component of three vertices");
	ok(child_stops_saying(search_unsorted, &g, "isograph: cycle search on a graph whose edges are not sorted",
						  said, sizeof(said)),
	   "unsorted cycle: a witness search stops the check (%s)", said);
	iso_scc_cache_free(cache);
	iso_graph_sort(&g, NULL);
	memset(&cl, 0, sizeof(cl));
	ok(iso_find_cycles(&g, ISO_LEVEL_SER, 1, &cl) && cl.n == 1 && cl.cycles[0].length == 3,
	   "sorted cycle: serializability violated, one witness of three edges");
	iso_cycle_list_free(&cl);
	graph_free(&g);
}

#define MAXV 7

typedef uint8 Mat[MAXV];		/* row i: bitset of successors */

static void
closure(const Mat in, Mat out, uint32 nv)
{
	uint32		k,
				i;

	memcpy(out, in, sizeof(Mat));
	for (k = 0; k < nv; k++)
		for (i = 0; i < nv; i++)
			if (out[i] & (1u << k))
				out[i] |= out[k];
}

static bool
has_diag(const Mat m, uint32 nv)
{
	uint32		i;

	for (i = 0; i < nv; i++)
		if (m[i] & (1u << i))
			return true;
	return false;
}

static void
rel_of(const IsoGraph *g, uint32 mask, Mat m)
{
	uint64		i;

	memset(m, 0, sizeof(Mat));
	for (i = 0; i < g->n_edges; i++)
		if (mask & ISO_EDGE_BIT(g->edges[i].type))
			m[g->edges[i].from] |= (uint8) (1u << g->edges[i].to);
}

/* Verdicts from closures (closed walks). */
static bool
ref_verdict(const IsoGraph *g, IsoLevel level)
{
	const IsoLevelInfo *li = iso_level_info(level);
	uint32		nv = g->n_vertices;
	Mat			r,
				c,
				d,
				a;
	uint32		i,
				j;

	switch (li->check)
	{
		case ISO_CHECK_ACYCLIC:
			rel_of(g, li->rel_mask, r);
			closure(r, c, nv);
			return has_diag(c, nv);
		case ISO_CHECK_PSI:
			rel_of(g, li->d_mask, d);
			rel_of(g, ISO_EDGE_BIT(ISO_EDGE_RW), a);
			closure(d, c, nv);
			if (has_diag(c, nv))
				return true;
			for (i = 0; i < nv; i++)
				for (j = 0; j < nv; j++)
					if ((a[i] & (1u << j)) && (c[j] & (1u << i)))
						return true;
			return false;
		case ISO_CHECK_SI:
			rel_of(g, li->d_mask, d);
			rel_of(g, ISO_EDGE_BIT(ISO_EDGE_RW), a);
			/* r = D ; A? */
			for (i = 0; i < nv; i++)
			{
				r[i] = d[i];
				for (j = 0; j < nv; j++)
					if (d[i] & (1u << j))
						r[i] |= a[j];
			}
			closure(r, c, nv);
			return has_diag(c, nv);
	}
	return false;
}

/* Does this simple cycle violate the level? */
static bool
cycle_violates(const IsoGraph *g, const uint64 *cy, uint32 len, IsoLevel level)
{
	const IsoLevelInfo *li = iso_level_info(level);
	uint32		allowed = li->check == ISO_CHECK_ACYCLIC ? li->rel_mask :
	(li->d_mask | ISO_EDGE_BIT(ISO_EDGE_RW));
	uint32		i,
				nrw = 0;
	bool		adj = false;

	for (i = 0; i < len; i++)
	{
		const IsoEdge *e = &g->edges[cy[i]];

		if (!(allowed & ISO_EDGE_BIT(e->type)))
			return false;
		if (e->type == ISO_EDGE_RW)
		{
			nrw++;
			if (g->edges[cy[(i + 1) % len]].type == ISO_EDGE_RW)
				adj = true;
		}
	}
	switch (li->check)
	{
		case ISO_CHECK_ACYCLIC:
			return true;
		case ISO_CHECK_PSI:
			return nrw <= 1;
		case ISO_CHECK_SI:
			return !adj;
	}
	return false;
}

/*
 * Enumerate every simple cycle (as an edge sequence; its least vertex
 * first), iteratively.  viol[l] |= some simple cycle violates level l;
 * kinds_in[l][lc] |= kinds of violating simple cycles per level component.
 */
static uint64
enumerate_cycles(const IsoGraph *g, bool viol[NL], uint8 kinds_in[NL][MAXV],
				 uint32 lcomp[NL][MAXV])
{
	uint32		nv = g->n_vertices;
	uint32		s;
	uint64		ncycles = 0;

	for (s = 0; s < nv; s++)
	{
		uint64		path[MAXV + 1];
		uint64		pos[MAXV + 1];
		uint32		vs[MAXV + 1];
		int			depth = 0;
		uint32		onpath = 1u << s;

		vs[0] = s;
		pos[0] = g->out_start[s];
		while (depth >= 0)
		{
			uint32		v = vs[depth];
			uint64		e;
			uint32		t;

			if (pos[depth] >= g->out_start[v + 1])
			{
				onpath &= ~(1u << v);
				depth--;
				continue;
			}
			e = pos[depth]++;
			t = g->edges[e].to;
			if (t == s)
			{
				int			l;
				bool		so,
							rt;

				path[depth] = e;
				ncycles++;
				for (l = 0; l < (int) NL; l++)
					if (cycle_violates(g, path, (uint32) depth + 1, (IsoLevel) l))
					{
						viol[l] = true;
						kinds_in[l][lcomp[l][s]] |= (uint8) ISO_CYCLE_KIND_BIT(
																			   ref_classify(g, path, (uint32) depth + 1, &so, &rt));
					}
			}
			else if (t > s && !(onpath & (1u << t)))
			{
				path[depth] = e;
				depth++;
				vs[depth] = t;
				pos[depth] = g->out_start[t];
				onpath |= 1u << t;
			}
		}
	}
	return ncycles;
}

static void
test_brute_force(int n_graphs)
{
	int			gi;
	uint64		mismatch_closure[NL] = {0},
				mismatch_simple[NL] = {0},
				viol_count[NL] = {0},
				bad_witness[NL] = {0},
				empty_witness[NL] = {0},
				cap_mismatch[NL] = {0},
				missing_kind[NL] = {0},
				nonsimple[NL] = {0},
				primed_mismatch[NL] = {0};
	uint64		total_cycles = 0;
	uint64		kinds_seen[ISO_CYCLE_KIND_COUNT] = {0};
	char		first_bad[NL][300];
	IsoHistory	kh;				/* the ops' keys: none checked here */
	int			l;

	key_history(&kh, 10, NULL);
	memset(first_bad, 0, sizeof(first_bad));
	for (gi = 0; gi < n_graphs; gi++)
	{
		IsoGraph	g;
		IsoEdgeBuf	buf;
		uint32		nv = 1 + rnd(MAXV);
		uint32		ne = rnd(3 * nv + 2);
		uint32		profile = rnd(4);
		uint32		i;
		bool		viol_simple[NL] = {false};
		uint8		kinds_in[NL][MAXV];
		uint32		lcomp[NL][MAXV];

		if (gi % 50 == 0)
			nv = 0;
		iso_edgebuf_init(&buf, 0);
		for (i = 0; i < ne && nv > 0; i++)
		{
			uint32		t;
			uint32		r = rnd(100);

			/* profiles: mixed, rw-heavy, data only, so/rt-heavy */
			if (profile == 0)
				t = r < 25 ? WW : r < 50 ? WR : r < 80 ? RW : r < 90 ? SO : RT;
			else if (profile == 1)
				t = r < 15 ? WW : r < 35 ? WR : r < 90 ? RW : r < 95 ? SO : RT;
			else if (profile == 2)
				t = r < 33 ? WW : r < 66 ? WR : RW;
			else
				t = r < 20 ? WW : r < 35 ? WR : r < 60 ? RW : r < 80 ? SO : RT;
			iso_edgebuf_add(&buf, rnd(nv), rnd(nv), (IsoEdgeType) t,
							t >= SO ? ISO_NO_KEY : rnd(3), (int32) rnd(10), (int32) rnd(10));
		}
		iso_graph_finish(&g, nv, &buf, &kh);

		memset(kinds_in, 0, sizeof(kinds_in));
		for (l = 0; l < (int) NL; l++)
			if (nv > 0)
				iso_scc(&g, iso_level_info((IsoLevel) l)->rel_mask, lcomp[l]);
		total_cycles += enumerate_cycles(&g, viol_simple, kinds_in, lcomp);

		for (l = 0; l < (int) NL; l++)
		{
			bool		ref = ref_verdict(&g, (IsoLevel) l);
			uint32		caps[3] = {1000, 1, 0};
			int			ci;

			if (ref)
				viol_count[l]++;
			if (ref != viol_simple[l])
				mismatch_simple[l]++;
			for (ci = 0; ci < 3; ci++)
			{
				IsoCycleList out = {NULL, 0, 0};
				bool		got = iso_find_cycles(&g, (IsoLevel) l, caps[ci], &out);
				WitnessReport r;

				if (got != ref)
				{
					mismatch_closure[l]++;
					if (first_bad[l][0] == '\0')
						snprintf(first_bad[l], sizeof(first_bad[l]),
								 "graph %d cap %u: got %d want %d", gi, caps[ci], got, ref);
				}
				if (nv > 0)
				{
					validate_witnesses(&g, (IsoLevel) l, caps[ci], &out, lcomp[l], &r);
					if (!r.all_valid)
					{
						bad_witness[l]++;
						if (first_bad[l][0] == '\0')
							snprintf(first_bad[l], sizeof(first_bad[l]),
									 "graph %d cap %u: %s", gi, caps[ci], r.why);
					}
					nonsimple[l] += r.nonsimple;
				}
				if (caps[ci] > 0 && got != (out.n > 0))
				{
					empty_witness[l]++;
					if (first_bad[l][0] == '\0')
						snprintf(first_bad[l], sizeof(first_bad[l]),
								 "graph %d cap %u: verdict %d, %u witnesses",
								 gi, caps[ci], got, out.n);
				}
				if (caps[ci] == 0 && out.n != 0)
					cap_mismatch[l]++;

				/*
				 * Per component: kinds whose search is exact must be
				 * witnessed (G0, G1c always; lost-update/G-single at psi
				 * when there is no D cycle, where the search is exhaustive).
				 */
				if (caps[ci] == 1000 && nv > 0)
				{
					const IsoLevelInfo *li = iso_level_info((IsoLevel) l);
					uint32		c,
								w;

					for (c = 0; c < nv; c++)
					{
						uint8		need = kinds_in[l][c] & (uint8) li->forbidden_kinds;
						uint8		have = 0;

						for (w = 0; w < out.n; w++)
							if (out.cycles[w].component == c)
								have |= (uint8) ISO_CYCLE_KIND_BIT(out.cycles[w].kind);
						need &= (uint8) (ISO_CYCLE_KIND_BIT(ISO_CYCLE_G0) |
										 ISO_CYCLE_KIND_BIT(ISO_CYCLE_G1C));
						if ((need & ~have) != 0)
						{
							missing_kind[l]++;
							if (first_bad[l][0] == '\0')
								snprintf(first_bad[l], sizeof(first_bad[l]),
										 "graph %d comp %u: kinds %x missing (have %x)",
										 gi, c, need, have);
						}
						if (li->check == ISO_CHECK_PSI &&
							!(kinds_in[l][c] & (ISO_CYCLE_KIND_BIT(ISO_CYCLE_G0) |
												ISO_CYCLE_KIND_BIT(ISO_CYCLE_G1C))) &&
							(kinds_in[l][c] & ISO_CYCLE_KIND_BIT(ISO_CYCLE_G_SINGLE)) &&
							!(have & ISO_CYCLE_KIND_BIT(ISO_CYCLE_G_SINGLE)))
						{
							missing_kind[l]++;
							if (first_bad[l][0] == '\0')
								snprintf(first_bad[l], sizeof(first_bad[l]),
										 "graph %d comp %u: no psi witness", gi, c);
						}
					}
					for (w = 0; w < out.n; w++)
						kinds_seen[out.cycles[w].kind]++;
				}
				iso_cycle_list_free(&out);
			}
		}

		/*
		 * iso_levels' path: one SCC cache for all levels, primed with the
		 * SCCs over every edge type (then acyclic levels skip their own
		 * SCC pass).  Verdicts and witnesses must not change.
		 */
		{
			IsoSccCache *cache = iso_scc_cache_create();

			iso_scc_cache_prime(cache, &g);
			for (l = 0; l < (int) NL; l++)
			{
				IsoCycleList a = {NULL, 0, 0};
				IsoCycleList b = {NULL, 0, 0};
				bool		got = iso_find_cycles_cached(&g, (IsoLevel) l, 1000, &a, cache);
				bool		want = iso_find_cycles(&g, (IsoLevel) l, 1000, &b);
				uint32		w;

				if (got != want || a.n != b.n)
					primed_mismatch[l]++;
				for (w = 0; w < a.n && w < b.n; w++)
					if (a.cycles[w].kind != b.cycles[w].kind ||
						a.cycles[w].length != b.cycles[w].length ||
						memcmp(a.cycles[w].edges, b.cycles[w].edges,
							   sizeof(uint64) * a.cycles[w].length) != 0)
					{
						primed_mismatch[l]++;
						break;
					}
				iso_cycle_list_free(&a);
				iso_cycle_list_free(&b);
			}
			iso_scc_cache_free(cache);
		}
		graph_free(&g);
	}

	fprintf(stderr, "# brute force: %d graphs, %llu simple cycles enumerated\n",
			n_graphs, (unsigned long long) total_cycles);
	for (l = 0; l < (int) NL; l++)
	{
		fprintf(stderr, "#   %-28s violated in %6llu graphs, non-simple witnesses %llu\n",
				iso_level_name((IsoLevel) l), (unsigned long long) viol_count[l],
				(unsigned long long) nonsimple[l]);
		ok(mismatch_simple[l] == 0,
		   "brute force %s: closure verdict == simple-cycle verdict (%llu mismatches)",
		   iso_level_name((IsoLevel) l), (unsigned long long) mismatch_simple[l]);
		ok(mismatch_closure[l] == 0,
		   "brute force %s: iso_find_cycles verdict exact for caps 1000/1/0 (%llu mismatches) %s",
		   iso_level_name((IsoLevel) l), (unsigned long long) mismatch_closure[l], first_bad[l]);
		ok(bad_witness[l] == 0 && cap_mismatch[l] == 0,
		   "brute force %s: every witness valid, caps respected (%llu bad) %s",
		   iso_level_name((IsoLevel) l), (unsigned long long) bad_witness[l], first_bad[l]);
		ok(empty_witness[l] == 0,
		   "brute force %s: violated <=> at least one witness (%llu bad)",
		   iso_level_name((IsoLevel) l), (unsigned long long) empty_witness[l]);
		ok(primed_mismatch[l] == 0,
		   "brute force %s: a shared SCC cache primed over all edge types gives the same verdict and witnesses (%llu mismatches)",
		   iso_level_name((IsoLevel) l), (unsigned long long) primed_mismatch[l]);
		ok(missing_kind[l] == 0,
		   "brute force %s: every component with a G0/G1c (psi: one-rw) cycle has its witness (%llu bad)",
		   iso_level_name((IsoLevel) l), (unsigned long long) missing_kind[l]);
	}
	for (l = 0; l < (int) ISO_CYCLE_KIND_COUNT; l++)
		fprintf(stderr, "#   witnesses of kind %-14s %llu\n",
				iso_cycle_kind_name((IsoCycleKind) l), (unsigned long long) kinds_seen[l]);
	{
		bool		all = true;

		for (l = 0; l < (int) ISO_CYCLE_KIND_COUNT; l++)
			if (kinds_seen[l] == 0)
				all = false;
		ok(all, "brute force produced witnesses of every kind");
	}
	iso_free(kh.ops);
}

/* ------------------------------------------------------------------ */
/* 3. Scale and pathology                                              */
/* ------------------------------------------------------------------ */

static void
run_all_levels(const char *name, const IsoGraph *g, const char *expect)
{
	int			l;
	char		got[NL + 1];
	bool		valid = true;

	for (l = 0; l < (int) NL; l++)
	{
		IsoCycleList out = {NULL, 0, 0};
		double		t0 = now();
		bool		v = iso_find_cycles(g, (IsoLevel) l, 5, &out);
		double		t1 = now();
		uint32		i,
					j;

		got[l] = v ? 'V' : '.';
		for (i = 0; i < out.n; i++)
			for (j = 0; j < out.cycles[i].length; j++)
				if (g->edges[out.cycles[i].edges[j]].to !=
					g->edges[out.cycles[i].edges[(j + 1) % out.cycles[i].length]].from)
					valid = false;
		fprintf(stderr, "#   %-22s %-28s %8.3f s  %s, %u witnesses%s%u\n", name,
				iso_level_name((IsoLevel) l), t1 - t0, v ? "violated" : "holds", out.n,
				out.n ? ", first length " : "", out.n ? out.cycles[0].length : 0);
		if (v != (out.n > 0))
			valid = false;
		iso_cycle_list_free(&out);
	}
	got[NL] = '\0';
	ok(strcmp(got, expect) == 0 && valid, "%s: verdicts %s (expected %s), witnesses closed",
	   name, got, expect);
}

static void
test_scale(void)
{
	IsoGraph	g;
	IsoEdgeBuf	buf;
	uint32		n = 1000000;
	uint32		i;
	double		t0,
				t1;

	/* 1M chain closed into one ww cycle (vertices permuted: i * 999983 mod n) */
	t0 = now();
	iso_edgebuf_init(&buf, 0);
	for (i = 0; i < n; i++)
		iso_edgebuf_add(&buf, (uint32) (((uint64) i * 999983u) % n),
						(uint32) (((uint64) (i + 1) * 999983u) % n),
						ISO_EDGE_WW, i % 10, ISO_NO_OP, (int32) i);
	iso_graph_finish(&g, n, &buf, NULL);
	t1 = now();
	fprintf(stderr, "# 1M ww cycle: build+finish %.3f s\n", t1 - t0);
	{
		uint32		nt,
					lg;

		iso_scc_stats(&g, ISO_EDGES_DATA, &nt, &lg);
		ok(nt == 1 && lg == n, "1M ww cycle: one SCC of 1M vertices");
	}
	run_all_levels("1M ww cycle", &g, "VVVVVVVVV");
	graph_free(&g);

	/* 1M chain, not closed */
	iso_edgebuf_init(&buf, 0);
	for (i = 0; i + 1 < n; i++)
		iso_edgebuf_add(&buf, i, i + 1, (IsoEdgeType) (i % 3), i % 10, ISO_NO_OP, 0);
	iso_graph_finish(&g, n, &buf, NULL);
	run_all_levels("1M chain (open)", &g, ".........");
	graph_free(&g);

	/* 1M alternating rw/wr cycle: long fork, SI violated, PSI holds */
	iso_edgebuf_init(&buf, 0);
	for (i = 0; i < n; i++)
		iso_edgebuf_add(&buf, i, (i + 1) % n, (i % 2) ? ISO_EDGE_WR : ISO_EDGE_RW, i, ISO_NO_OP, 0);
	iso_graph_finish(&g, n, &buf, NULL);
	run_all_levels("1M rw/wr cycle", &g, "..V.VVVVV");
	graph_free(&g);

	/* 1M all-rw cycle: only the serializable family is violated */
	iso_edgebuf_init(&buf, 0);
	for (i = 0; i < n; i++)
		iso_edgebuf_add(&buf, i, (i + 1) % n, ISO_EDGE_RW, i, ISO_NO_OP, 0);
	iso_graph_finish(&g, n, &buf, NULL);
	run_all_levels("1M rw cycle", &g, "..V..V.VV");
	graph_free(&g);

	/* star: one writer, 100k readers that the next writer overwrites */
	{
		uint32		r = 100000;
		uint32		w2 = r + 1;

		iso_edgebuf_init(&buf, 0);
		iso_edgebuf_add(&buf, 0, w2, ISO_EDGE_WW, 0, ISO_NO_OP, 0);
		for (i = 1; i <= r; i++)
		{
			iso_edgebuf_add(&buf, 0, i, ISO_EDGE_WR, 0, ISO_NO_OP, 0);
			iso_edgebuf_add(&buf, i, w2, ISO_EDGE_RW, 0, ISO_NO_OP, 0);
			iso_edgebuf_add(&buf, i, w2, ISO_EDGE_SO, ISO_NO_KEY, ISO_NO_OP, 0);
		}
		iso_graph_finish(&g, r + 2, &buf, NULL);
		run_all_levels("star 100k", &g, ".........");
		graph_free(&g);

		/* same star, closed by a wr from the second writer to the first */
		iso_edgebuf_init(&buf, 0);
		iso_edgebuf_add(&buf, 0, w2, ISO_EDGE_WW, 0, ISO_NO_OP, 0);
		iso_edgebuf_add(&buf, w2, 0, ISO_EDGE_WR, 1, ISO_NO_OP, 0);
		for (i = 1; i <= r; i++)
		{
			iso_edgebuf_add(&buf, 0, i, ISO_EDGE_WR, 0, ISO_NO_OP, 0);
			iso_edgebuf_add(&buf, i, w2, ISO_EDGE_RW, 0, ISO_NO_OP, 0);
		}
		iso_graph_finish(&g, r + 2, &buf, NULL);
		run_all_levels("star 100k closed", &g, ".VVVVVVVV");
		graph_free(&g);
	}

	/* PSI worst case: a large D|rw component with no one-rw cycle */
	{
		uint32		k = 20000;

		/*
		 * Layers L0..L3 of k vertices: D edges L0->L1 (all i->i and
		 * i->i+1), L2->L3 likewise; rw edges L1->L2 and L3->L0.  Every
		 * cycle has two rw; any rw target reaches k-ish vertices by D.
		 */
		iso_edgebuf_init(&buf, 0);
		for (i = 0; i < k; i++)
		{
			iso_edgebuf_add(&buf, i, k + i, ISO_EDGE_WW, i, ISO_NO_OP, 0);
			iso_edgebuf_add(&buf, i, k + (i + 1) % k, ISO_EDGE_WR, i, ISO_NO_OP, 0);
			iso_edgebuf_add(&buf, k + i, 2 * k + i, ISO_EDGE_RW, i, ISO_NO_OP, 0);
			iso_edgebuf_add(&buf, 2 * k + i, 3 * k + i, ISO_EDGE_WW, i, ISO_NO_OP, 0);
			iso_edgebuf_add(&buf, 2 * k + i, 3 * k + (i + 1) % k, ISO_EDGE_WR, i, ISO_NO_OP, 0);
			iso_edgebuf_add(&buf, 3 * k + i, (i + 3) % k, ISO_EDGE_RW, i, ISO_NO_OP, 0);
		}
		iso_graph_finish(&g, 4 * k, &buf, NULL);
		run_all_levels("psi worst 80k", &g, "..V.VVVVV");
		graph_free(&g);
	}

	/* one giant SCC: 200k vertices, a Hamiltonian ww cycle + 1M random edges */
	{
		uint32		m = 200000;

		rng_state = 12345;
		iso_edgebuf_init(&buf, 0);
		for (i = 0; i < m; i++)
			iso_edgebuf_add(&buf, i, (i + 1) % m, ISO_EDGE_WW, rnd(1000), ISO_NO_OP, 0);
		for (i = 0; i < 1000000; i++)
			iso_edgebuf_add(&buf, rnd(m), rnd(m), (IsoEdgeType) rnd(5),
							rnd(1000), ISO_NO_OP, (int32) i);
		t0 = now();
		iso_graph_finish(&g, m, &buf, NULL);
		t1 = now();
		fprintf(stderr, "# giant SCC: finish %.3f s, %llu edges\n", t1 - t0,
				(unsigned long long) g.n_edges);
		run_all_levels("giant SCC 200k", &g, "VVVVVVVVV");
		graph_free(&g);
	}

	/* 10M edges through iso_graph_finish */
	{
		uint32		m = 2000000;

		rng_state = 777;
		iso_edgebuf_init(&buf, 0);
		for (i = 0; i < 10000000; i++)
			iso_edgebuf_add(&buf, rnd(m), rnd(m), (IsoEdgeType) rnd(5), rnd(100), ISO_NO_OP, (int32) i);
		t0 = now();
		iso_graph_finish(&g, m, &buf, NULL);
		t1 = now();
		fprintf(stderr, "# 10M random edges: iso_graph_finish %.3f s (%llu kept)\n",
				t1 - t0, (unsigned long long) g.n_edges);
		ok(g.out_start[m] == g.n_edges && g.n_edges > 9000000, "10M edges finished");
		t0 = now();
		{
			IsoCycleList out = {NULL, 0, 0};
			bool		v = iso_find_cycles(&g, ISO_LEVEL_SER, 5, &out);

			t1 = now();
			fprintf(stderr, "#   10M edges ser: %.3f s, %s\n", t1 - t0, v ? "violated" : "holds");
			iso_cycle_list_free(&out);
			t0 = now();
			v = iso_find_cycles(&g, ISO_LEVEL_SI, 5, &out);
			t1 = now();
			fprintf(stderr, "#   10M edges si: %.3f s, %s\n", t1 - t0, v ? "violated" : "holds");
			iso_cycle_list_free(&out);
		}
		graph_free(&g);
	}
}

int
main(int argc, char **argv)
{
	int			n_graphs = 20000;
	bool		scale = true;
	int			i;

	for (i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--quick") == 0)
			scale = false;
		else
			n_graphs = atoi(argv[i]);
	}
	test_names();
	test_graph_build();
	test_graph_build_reference();
	test_unsorted_graph();
	test_hand_cases();
	test_brute_force(n_graphs);
	if (scale)
		test_scale();
	return tap_done();
}
