/*
 * cycle.h
 *	  Cycle search on an IsoGraph: strongly connected components, witness
 *	  cycles for every isolation level, and their classification.
 *
 * Everything here is plain C over the arrays of graph.h (no backend calls
 * besides allocation and ISO_CHECK_INTERRUPTS), linear or near-linear, and
 * never recursive.
 */
#ifndef ISOGRAPH_CYCLE_H
#define ISOGRAPH_CYCLE_H

#include "graph.h"
#include "scc.h"

/* Isolation levels, weakest first; names in iso_level_name(). */
typedef enum IsoLevel
{
	ISO_LEVEL_PL1 = 0,			/* pl-1, read-uncommitted */
	ISO_LEVEL_PL2,				/* pl-2, read-committed */
	ISO_LEVEL_PL299,			/* pl-2.99, repeatable-read */
	ISO_LEVEL_PSI,				/* psi, parallel-snapshot-isolation */
	ISO_LEVEL_SI,				/* si, snapshot-isolation */
	ISO_LEVEL_SER,				/* ser, serializable, pl-3 */
	ISO_LEVEL_STRONG_SESSION_SI,	/* strong-session-si */
	ISO_LEVEL_STRONG_SESSION_SER,	/* strong-session-serializable */
	ISO_LEVEL_STRICT_SER,		/* strict-serializable */
	ISO_LEVEL_COUNT
} IsoLevel;

/* Shapes of witness cycles. */
typedef enum IsoCycleKind
{
	ISO_CYCLE_G0 = 0,			/* ww only */
	ISO_CYCLE_G1C,				/* ww and wr */
	ISO_CYCLE_G_SINGLE,			/* exactly one rw */
	ISO_CYCLE_G_NONADJACENT,	/* >= 2 rw, no two adjacent */
	ISO_CYCLE_G2_ITEM,			/* two adjacent rw */
	ISO_CYCLE_KIND_COUNT
} IsoCycleKind;

/* A witness: edge indices into graph->edges, in cycle order. */
typedef struct IsoCycle
{
	IsoCycleKind kind;
	bool		uses_so;		/* needs session-order edges: "-process" */
	bool		uses_rt;		/* needs real-time edges: "-realtime" */
	uint32		component;		/* id of the SCC it was found in */
	uint32		length;
	uint64	   *edges;
} IsoCycle;

typedef struct IsoCycleList
{
	IsoCycle   *cycles;
	uint32		n;
	uint32		cap;
} IsoCycleList;

/*
 * Find witness cycles forbidden by a level.  At least one witness per
 * non-trivial component and cycle kind the level forbids (when one exists),
 * at most max_per_kind per kind in total, shortest first where cheap.
 * Returns whether the level's cycle condition is violated (exact, even when
 * max_per_kind caps the witnesses).
 */
extern bool iso_find_cycles(const IsoGraph *graph, IsoLevel level,
							uint32 max_per_kind, IsoCycleList *out);

/*
 * The same, reusing the strongly connected components that earlier calls on
 * the same graph computed (iso_levels checks every level on one graph).
 * The cache belongs to one graph; free it before the graph.
 */
typedef struct IsoSccCache IsoSccCache;
extern IsoSccCache *iso_scc_cache_create(void);
extern void iso_scc_cache_free(IsoSccCache *cache);
extern void iso_scc_cache_prime(IsoSccCache *cache, const IsoGraph *graph);
/*
 * Prime it for a graph the caller has proven acyclic over every edge type:
 * every component a single vertex, found without a search.
 */
extern void iso_scc_cache_prime_acyclic(IsoSccCache *cache, const IsoGraph *graph);
/*
 * After iso_scc_cache_prime: whether the graph over every edge type has
 * only single-vertex components (then no level has a cycle to search for,
 * and the graph may stay unsorted: graph.h).
 */
extern bool iso_scc_cache_acyclic(const IsoSccCache *cache, const IsoGraph *graph);
extern bool iso_find_cycles_cached(const IsoGraph *graph, IsoLevel level,
								   uint32 max_per_kind, IsoCycleList *out,
								   IsoSccCache *cache);

extern IsoCycleKind iso_classify_cycle(const IsoGraph *graph,
									   const uint64 *edges, uint32 length,
									   bool *uses_so, bool *uses_rt);

extern const char *iso_level_name(IsoLevel level);
extern bool iso_level_parse(const char *name, IsoLevel *level);
extern const char *iso_cycle_kind_name(IsoCycleKind kind);
/* with -process / -realtime (names.c) */
extern const char *iso_cycle_name(const IsoCycle *cycle);

/*
 * Additions (isograph cycle core): per-level description used by
 * iso_find_cycles, exposed for the SQL layer and the tests.
 */
#define ISO_CYCLE_KIND_BIT(k)	(1u << (k))
#define ISO_CYCLE_KINDS_ALL		((1u << ISO_CYCLE_KIND_COUNT) - 1)

/* How a level's verdict is decided. */
typedef enum IsoLevelCheck
{
	ISO_CHECK_ACYCLIC = 0,		/* rel_mask must be acyclic */
	ISO_CHECK_PSI,				/* no d_mask cycle, no rw a->b with d path b~>a */
	ISO_CHECK_SI				/* (d_mask ; rw?) acyclic: the 2-layer graph */
} IsoLevelCheck;

typedef struct IsoLevelInfo
{
	const char *name;			/* canonical name, as iso_level_name() */
	uint32		d_mask;			/* edge types acting as D (ww|wr, +so, +rt) */
	uint32		rel_mask;		/* the level's relation; its SCCs are the
								 * witnesses' components */
	IsoLevelCheck check;
	uint32		forbidden_kinds;	/* ISO_CYCLE_KIND_BIT set */
	uint32		forbidden_anomalies;	/* non-cycle anomalies forbidden: bits
										 * of IsoAnomalyKind (infer.h) */
	uint32		implies;		/* bits of the weaker levels it implies */
} IsoLevelInfo;

/* NULL for an out-of-range level. */
extern const IsoLevelInfo *iso_level_info(IsoLevel level);

/* Frees every witness's edge array and the list's array; leaves it empty. */
extern void iso_cycle_list_free(IsoCycleList *list);

/*
 * The shortest of iso_find_cycles' witnesses (one per kind) into *out (its
 * edges the caller's to free); false if the level holds on graph.
 */
extern bool iso_find_shortest_cycle(const IsoGraph *graph, IsoLevel level, IsoCycle *out);

#endif							/* ISOGRAPH_CYCLE_H */
