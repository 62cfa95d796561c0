/*
 * levels.h
 *	  A level's verdict on an inferred history: its forbidden non-cycle
 *	  anomalies and its forbidden cycles (docs/semantics.md, "Levels").
 *
 * Plain C (levels.c), shared by the SQL functions (check_sql.c) and the
 * standalone tests, so both decide a level the same way.
 */
#ifndef ISOGRAPH_LEVELS_H
#define ISOGRAPH_LEVELS_H

#include "cycle.h"
#include "infer.h"

/*
 * Whether a level forbids a non-cycle anomaly (docs/semantics.md, "Levels",
 * after Elle's table of proscribed anomalies).  Values nobody wrote,
 * duplicate elements and cyclic version orders are impossible at every
 * level; an incompatible order implies a dirty read (pl-2 and up).
 */
extern bool iso_level_forbids(IsoLevel level, IsoAnomalyKind kind);

/* Every history that satisfies stronger satisfies weaker (stronger != weaker). */
extern bool iso_level_implies(IsoLevel stronger, IsoLevel weaker);

/*
 * Whether a level holds: no anomaly it forbids and no cycle it forbids.
 * cache: the graph's SCC cache, or NULL.
 */
extern bool iso_level_holds(const IsoInference *inf, IsoLevel level,
							IsoSccCache *cache);

#endif							/* ISOGRAPH_LEVELS_H */
