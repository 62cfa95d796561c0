/*
 * names.c
 *	  Every enum's text, in one place: statuses, micro-op kinds, workloads,
 *	  sources of real time (names.h), edge types (graph.h), non-cycle
 *	  anomalies (infer.h) and cycle kinds with their -process / -realtime
 *	  labels (cycle.h).  Level names live with the levels (levels.c).
 */
#include "port.h"

#include "cycle.h"
#include "infer.h"
#include "names.h"

/* The index of the s of len bytes (not NUL-terminated) in names[0..n), or -1. */
static int
lookup(const char *const *names, int n, const char *s, size_t len)
{
	int			i;

	/* a byte loop, not strncmp: COPY looks up every row's op and status */
	for (i = 0; i < n; i++)
	{
		const char *name = names[i];
		size_t		j = 0;

		if (name == NULL)
			continue;
		while (j < len && name[j] != '\0' && name[j] == s[j])
			j++;
		if (j == len && name[len] == '\0')
			return i;
	}
	return -1;
}

#define NAME_OF(names, v) \
	(((int) (v) >= 0 && (int) (v) < (int) (sizeof(names) / sizeof(names[0])) && \
	  names[(int) (v)] != NULL) ? names[(int) (v)] : "unknown")
#define PARSE_LEN(names, s, len, out, type) \
	do { \
		int			i_ = lookup(names, (int) (sizeof(names) / sizeof(names[0])), (s), (len)); \
		if (i_ < 0) \
			return false; \
		*(out) = (type) i_; \
		return true; \
	} while (0)
#define PARSE(names, s, out, type) \
	do { \
		if ((s) == NULL) \
			return false; \
		PARSE_LEN(names, (s), strlen(s), out, type); \
	} while (0)

static const char *const status_names[] = {
	[ISO_STATUS_OK] = "ok",
	[ISO_STATUS_FAIL] = "fail",
	[ISO_STATUS_INFO] = "info",
};

static const char *const op_names[] = {
	[ISO_OP_READ] = "r",
	[ISO_OP_WRITE] = "w",
	[ISO_OP_APPEND] = "append",
};

static const char *const workload_names[] = {
	[ISO_WORKLOAD_UNKNOWN] = NULL,
	[ISO_WORKLOAD_LIST_APPEND] = "list-append",
	[ISO_WORKLOAD_RW_REGISTER] = "rw-register",
};

/* as iso_history.metadata->>'realtime' stores them */
static const char *const time_source_names[] = {
	[ISO_TIME_NONE] = "none",
	[ISO_TIME_VALUES] = "time values",
	[ISO_TIME_RECORD_ORDER] = "record order",
};

static const char *const edge_type_names[ISO_EDGE_NTYPES] = {
	[ISO_EDGE_WW] = "ww",
	[ISO_EDGE_WR] = "wr",
	[ISO_EDGE_RW] = "rw",
	[ISO_EDGE_SO] = "so",
	[ISO_EDGE_RT] = "rt",
};

static const char *const anomaly_names[ISO_ANOM_KIND_COUNT] = {
	[ISO_ANOM_G1A] = "G1a",
	[ISO_ANOM_G1B] = "G1b",
	[ISO_ANOM_DIRTY_UPDATE] = "dirty-update",
	[ISO_ANOM_INTERNAL] = "internal",
	[ISO_ANOM_LOST_UPDATE] = "lost-update",
	[ISO_ANOM_GARBAGE_READ] = "garbage-read",
	[ISO_ANOM_DUPLICATE_ELEMENTS] = "duplicate-elements",
	[ISO_ANOM_INCOMPATIBLE_ORDER] = "incompatible-order",
	[ISO_ANOM_CYCLIC_VERSIONS] = "cyclic-versions",
	[ISO_ANOM_FUTURE_READ] = "future-read",
};

/* per kind: plain, needing session order, needing real-time order */
static const char *const cycle_names[ISO_CYCLE_KIND_COUNT][3] = {
	[ISO_CYCLE_G0] = {"G0", "G0-process", "G0-realtime"},
	[ISO_CYCLE_G1C] = {"G1c", "G1c-process", "G1c-realtime"},
	[ISO_CYCLE_G_SINGLE] = {"G-single", "G-single-process", "G-single-realtime"},
	[ISO_CYCLE_G_NONADJACENT] = {"G-nonadjacent", "G-nonadjacent-process",
	"G-nonadjacent-realtime"},
	[ISO_CYCLE_G2_ITEM] = {"G2-item", "G2-item-process", "G2-item-realtime"},
};

/* A named enum's two functions: iso_<fn>_name and iso_<fn>_parse. */
#define NAMED_ENUM(fn, type, names) \
const char * \
iso_##fn##_name(type value) \
{ \
	return NAME_OF(names, value); \
} \
\
bool \
iso_##fn##_parse(const char *s, type *value) \
{ \
	PARSE(names, s, value, type); \
}

NAMED_ENUM(status, IsoStatus, status_names)
NAMED_ENUM(op, IsoOpKind, op_names)

/* Statuses and ops as texts of a length (a row's columns, without a copy). */
bool
iso_status_parse_len(const char *s, size_t len, IsoStatus *status)
{
	PARSE_LEN(status_names, s, len, status, IsoStatus);
}

bool
iso_op_parse_len(const char *s, size_t len, IsoOpKind *op)
{
	PARSE_LEN(op_names, s, len, op, IsoOpKind);
}
NAMED_ENUM(workload, IsoWorkload, workload_names)
NAMED_ENUM(time_source, IsoTimeSource, time_source_names)
NAMED_ENUM(edge_type, IsoEdgeType, edge_type_names)

const char *
iso_anomaly_name(IsoAnomalyKind kind)
{
	return NAME_OF(anomaly_names, kind);
}

const char *
iso_cycle_kind_name(IsoCycleKind kind)
{
	if ((int) kind < 0 || kind >= ISO_CYCLE_KIND_COUNT)
		return "unknown";
	return cycle_names[kind][0];
}

/* A witness's anomaly name: its kind, -realtime if it needs rt, else
 * -process if it needs so. */
const char *
iso_cycle_name(const IsoCycle *cycle)
{
	if ((int) cycle->kind < 0 || cycle->kind >= ISO_CYCLE_KIND_COUNT)
		return "unknown";
	return cycle_names[cycle->kind][cycle->uses_rt ? 2 : cycle->uses_so ? 1 : 0];
}
