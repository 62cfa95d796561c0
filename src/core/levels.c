/*
 * levels.c
 *	  Isolation level and cycle kind names, the per-level table that
 *	  iso_find_cycles works from, and a level's verdict on an inferred
 *	  history (docs/semantics.md, "Levels").
 */
#include "port.h"
#include "levels.h"

#define BIT_WW		ISO_EDGE_BIT(ISO_EDGE_WW)
#define BIT_WR		ISO_EDGE_BIT(ISO_EDGE_WR)
#define BIT_RW		ISO_EDGE_BIT(ISO_EDGE_RW)
#define BIT_SO		ISO_EDGE_BIT(ISO_EDGE_SO)
#define BIT_RT		ISO_EDGE_BIT(ISO_EDGE_RT)

#define K_G0		ISO_CYCLE_KIND_BIT(ISO_CYCLE_G0)
#define K_G1C		ISO_CYCLE_KIND_BIT(ISO_CYCLE_G1C)
#define K_GS		ISO_CYCLE_KIND_BIT(ISO_CYCLE_G_SINGLE)
#define K_GN		ISO_CYCLE_KIND_BIT(ISO_CYCLE_G_NONADJACENT)
#define K_G2		ISO_CYCLE_KIND_BIT(ISO_CYCLE_G2_ITEM)

/* Indexed by IsoLevel; keep in enum order. */
static const IsoLevelInfo level_table[ISO_LEVEL_COUNT] = {
	/* pl-1: G0, cycles of ww only */
	{"pl-1", BIT_WW, BIT_WW, ISO_CHECK_ACYCLIC, K_G0},
	/* pl-2: G0, G1c, cycles of ww|wr */
	{"pl-2", BIT_WW | BIT_WR, BIT_WW | BIT_WR, ISO_CHECK_ACYCLIC, K_G0 | K_G1C},
	/* pl-2.99: every cycle of ww|wr|rw (item cycles; no predicates here) */
	{"pl-2.99", BIT_WW | BIT_WR, BIT_WW | BIT_WR | BIT_RW, ISO_CHECK_ACYCLIC,
	ISO_CYCLE_KINDS_ALL},
	/* psi: D cycles and cycles with exactly one rw */
	{"psi", BIT_WW | BIT_WR, BIT_WW | BIT_WR | BIT_RW, ISO_CHECK_PSI,
	K_G0 | K_G1C | K_GS},
	/* si: (D ; rw?) acyclic */
	{"si", BIT_WW | BIT_WR, BIT_WW | BIT_WR | BIT_RW, ISO_CHECK_SI,
	K_G0 | K_G1C | K_GS | K_GN},
	/* ser: every cycle */
	{"ser", BIT_WW | BIT_WR, BIT_WW | BIT_WR | BIT_RW, ISO_CHECK_ACYCLIC,
	ISO_CYCLE_KINDS_ALL},
	/* strong-session-si: si with so in D */
	{"strong-session-si", BIT_WW | BIT_WR | BIT_SO,
		BIT_WW | BIT_WR | BIT_RW | BIT_SO, ISO_CHECK_SI,
	K_G0 | K_G1C | K_GS | K_GN},
	/* strong-session-serializable: ser with so in D */
	{"strong-session-serializable", BIT_WW | BIT_WR | BIT_SO,
		BIT_WW | BIT_WR | BIT_RW | BIT_SO, ISO_CHECK_ACYCLIC,
	ISO_CYCLE_KINDS_ALL},
	/* strict-serializable: ser with so and rt in D */
	{"strict-serializable", BIT_WW | BIT_WR | BIT_SO | BIT_RT,
		BIT_WW | BIT_WR | BIT_RW | BIT_SO | BIT_RT, ISO_CHECK_ACYCLIC,
	ISO_CYCLE_KINDS_ALL},
};

static const struct
{
	const char *alias;
	IsoLevel	level;
}			level_aliases[] = {
	{"read-uncommitted", ISO_LEVEL_PL1},
	{"read-committed", ISO_LEVEL_PL2},
	{"repeatable-read", ISO_LEVEL_PL299},
	{"parallel-snapshot-isolation", ISO_LEVEL_PSI},
	{"snapshot-isolation", ISO_LEVEL_SI},
	{"serializable", ISO_LEVEL_SER},
	{"pl-3", ISO_LEVEL_SER},
};

const IsoLevelInfo *
iso_level_info(IsoLevel level)
{
	if ((int) level < 0 || level >= ISO_LEVEL_COUNT)
		return NULL;
	return &level_table[level];
}

const char *
iso_level_name(IsoLevel level)
{
	if ((int) level < 0 || level >= ISO_LEVEL_COUNT)
		return "unknown";
	return level_table[level].name;
}

/*
 * ASCII case-insensitive equality; '_' in the input counts as '-'
 * ("read_committed" is accepted too).
 */
static bool
level_name_eq(const char *input, const char *canon)
{
	for (;;)
	{
		char		a = *input++;
		char		b = *canon++;

		if (a >= 'A' && a <= 'Z')
			a = (char) (a - 'A' + 'a');
		if (a == '_')
			a = '-';
		if (a != b)
			return false;
		if (a == '\0')
			return true;
	}
}

bool
iso_level_parse(const char *name, IsoLevel *level)
{
	int			i;

	if (name == NULL)
		return false;
	for (i = 0; i < (int) ISO_LEVEL_COUNT; i++)
	{
		if (level_name_eq(name, level_table[i].name))
		{
			*level = (IsoLevel) i;
			return true;
		}
	}
	for (i = 0; i < (int) (sizeof(level_aliases) / sizeof(level_aliases[0])); i++)
	{
		if (level_name_eq(name, level_aliases[i].alias))
		{
			*level = level_aliases[i].level;
			return true;
		}
	}
	return false;
}

bool
iso_level_forbids(IsoLevel level, IsoAnomalyKind kind)
{
	switch (kind)
	{
		case ISO_ANOM_GARBAGE_READ:
		case ISO_ANOM_DUPLICATE_ELEMENTS:
		case ISO_ANOM_CYCLIC_VERSIONS:
			return true;

			/*
			 * Two list states from no one timeline imply a dirty read (Elle:
			 * incompatible-order implies G1a): a read-uncommitted reader may
			 * see appends that are undone later.
			 */
		case ISO_ANOM_INCOMPATIBLE_ORDER:
		case ISO_ANOM_G1A:
		case ISO_ANOM_G1B:
		case ISO_ANOM_DIRTY_UPDATE:
		case ISO_ANOM_FUTURE_READ:
			return level != ISO_LEVEL_PL1;
		case ISO_ANOM_LOST_UPDATE:
			return level >= ISO_LEVEL_PL299;
		case ISO_ANOM_INTERNAL:
			return level >= ISO_LEVEL_PSI;
		case ISO_ANOM_KIND_COUNT:
			break;
	}
	return false;
}

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
