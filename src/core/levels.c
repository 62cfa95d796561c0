/*
 * levels.c
 *	  Each isolation level whole, in one table: the edges that act as D,
 *	  the relation whose cycles it forbids and how that is decided, the
 *	  cycle kinds and non-cycle anomalies it forbids, the levels it implies;
 *	  and level names (docs/semantics.md, "Levels").  verdict.c applies it.
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

#define A(k)		(1u << (k))
/* impossible at any level (Elle: PL-1 proscribes them) */
#define A_PL1		(A(ISO_ANOM_GARBAGE_READ) | A(ISO_ANOM_DUPLICATE_ELEMENTS) | \
					 A(ISO_ANOM_CYCLIC_VERSIONS))
/* G1a, G1b and what implies them (Elle: incompatible-order implies a
 * dirty read: a read-uncommitted reader may see appends undone later;
 * future-read is a trivial wr cycle, G1c) */
#define A_PL2		(A_PL1 | A(ISO_ANOM_G1A) | A(ISO_ANOM_G1B) | A(ISO_ANOM_DIRTY_UPDATE) | \
					 A(ISO_ANOM_INCOMPATIBLE_ORDER) | A(ISO_ANOM_FUTURE_READ))
/* repeatable read forbids lost updates, not internal reads (Elle) */
#define A_PL299		(A_PL2 | A(ISO_ANOM_LOST_UPDATE))
/* psi and stronger: internal consistency too (Cerone's INT) */
#define A_PSI		(A_PL299 | A(ISO_ANOM_INTERNAL))

#define L(l)		(1u << (l))

/*
 * Each level whole: the edges that act as D, the relation whose cycles it
 * forbids and how that is decided, the cycle kinds and non-cycle anomalies
 * it forbids, and the weaker levels it implies.  Indexed by IsoLevel.
 */
static const IsoLevelInfo level_table[ISO_LEVEL_COUNT] = {
	/* pl-1: G0, cycles of ww only */
	[ISO_LEVEL_PL1] = {"pl-1", BIT_WW, BIT_WW, ISO_CHECK_ACYCLIC, K_G0, A_PL1, 0},
	/* pl-2: G0, G1c, cycles of ww|wr */
	[ISO_LEVEL_PL2] = {"pl-2", BIT_WW | BIT_WR, BIT_WW | BIT_WR, ISO_CHECK_ACYCLIC,
	K_G0 | K_G1C, A_PL2, L(ISO_LEVEL_PL1)},
	/* pl-2.99: every cycle of ww|wr|rw (item cycles; no predicates here) */
	[ISO_LEVEL_PL299] = {"pl-2.99", BIT_WW | BIT_WR, BIT_WW | BIT_WR | BIT_RW,
		ISO_CHECK_ACYCLIC, ISO_CYCLE_KINDS_ALL, A_PL299,
	L(ISO_LEVEL_PL2) | L(ISO_LEVEL_PL1)},
	/* psi: D cycles and cycles with exactly one rw */
	[ISO_LEVEL_PSI] = {"psi", BIT_WW | BIT_WR, BIT_WW | BIT_WR | BIT_RW, ISO_CHECK_PSI,
		K_G0 | K_G1C | K_GS, A_PSI,
	L(ISO_LEVEL_PL2) | L(ISO_LEVEL_PL1)},
	/* si: (D ; rw?) acyclic */
	[ISO_LEVEL_SI] = {"si", BIT_WW | BIT_WR, BIT_WW | BIT_WR | BIT_RW, ISO_CHECK_SI,
		K_G0 | K_G1C | K_GS | K_GN, A_PSI,
	L(ISO_LEVEL_PSI) | L(ISO_LEVEL_PL2) | L(ISO_LEVEL_PL1)},
	/* ser: every cycle */
	[ISO_LEVEL_SER] = {"ser", BIT_WW | BIT_WR, BIT_WW | BIT_WR | BIT_RW, ISO_CHECK_ACYCLIC,
		ISO_CYCLE_KINDS_ALL, A_PSI,
		L(ISO_LEVEL_SI) | L(ISO_LEVEL_PL299) | L(ISO_LEVEL_PSI) | L(ISO_LEVEL_PL2) |
	L(ISO_LEVEL_PL1)},
	/* strong-session-si: si with so in D */
	[ISO_LEVEL_STRONG_SESSION_SI] = {"strong-session-si", BIT_WW | BIT_WR | BIT_SO,
		BIT_WW | BIT_WR | BIT_RW | BIT_SO, ISO_CHECK_SI,
		K_G0 | K_G1C | K_GS | K_GN, A_PSI,
	L(ISO_LEVEL_SI) | L(ISO_LEVEL_PSI) | L(ISO_LEVEL_PL2) | L(ISO_LEVEL_PL1)},
	/* strong-session-serializable: ser with so in D */
	[ISO_LEVEL_STRONG_SESSION_SER] = {"strong-session-serializable",
		BIT_WW | BIT_WR | BIT_SO, BIT_WW | BIT_WR | BIT_RW | BIT_SO, ISO_CHECK_ACYCLIC,
		ISO_CYCLE_KINDS_ALL, A_PSI,
		L(ISO_LEVEL_SER) | L(ISO_LEVEL_STRONG_SESSION_SI) | L(ISO_LEVEL_SI) |
	L(ISO_LEVEL_PL299) | L(ISO_LEVEL_PSI) | L(ISO_LEVEL_PL2) | L(ISO_LEVEL_PL1)},
	/* strict-serializable: ser with so and rt in D */
	[ISO_LEVEL_STRICT_SER] = {"strict-serializable", BIT_WW | BIT_WR | BIT_SO | BIT_RT,
		BIT_WW | BIT_WR | BIT_RW | BIT_SO | BIT_RT, ISO_CHECK_ACYCLIC,
		ISO_CYCLE_KINDS_ALL, A_PSI,
		L(ISO_LEVEL_STRONG_SESSION_SER) | L(ISO_LEVEL_SER) |
		L(ISO_LEVEL_STRONG_SESSION_SI) | L(ISO_LEVEL_SI) | L(ISO_LEVEL_PL299) |
	L(ISO_LEVEL_PSI) | L(ISO_LEVEL_PL2) | L(ISO_LEVEL_PL1)},
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
	return (level_table[level].forbidden_anomalies & A(kind)) != 0;
}

bool
iso_level_implies(IsoLevel stronger, IsoLevel weaker)
{
	return (level_table[stronger].implies & L(weaker)) != 0;
}
