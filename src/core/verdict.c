/*
 * verdict.c
 *	  Whether a level holds on an inferred history: none of the non-cycle
 *	  anomalies it forbids (levels.c) and no cycle it forbids (cycle.c).
 *	  Shared by the SQL functions and the standalone tests (levels.h).
 */
#include "port.h"

#include "levels.h"

bool
iso_level_holds(const IsoInference *inf, IsoLevel level, IsoSccCache *cache)
{
	IsoCycleList cycles;
	bool		violated;
	uint32		i;

	for (i = 0; i < inf->n_anomalies; i++)
		if (iso_level_forbids(level, (IsoAnomalyKind) inf->anomalies[i].kind))
			return false;
	/* the cycle condition is exact whatever the witness cap: ask for one */
	memset(&cycles, 0, sizeof(cycles));
	violated = iso_find_cycles_cached(&inf->graph, level, 1, &cycles, cache);
	iso_cycle_list_free(&cycles);
	return !violated;
}
