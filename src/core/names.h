/*
 * names.h
 *	  The vocabulary every layer shares: transaction statuses, micro-op
 *	  kinds, workloads and sources of real time, and their texts (names.c).
 */
#ifndef ISOGRAPH_NAMES_H
#define ISOGRAPH_NAMES_H

#include "port.h"

/* Statuses and micro-operation kinds, shared by every layer. */
typedef enum IsoStatus
{
	ISO_STATUS_OK = 0,			/* committed */
	ISO_STATUS_FAIL = 1,		/* definitely aborted */
	ISO_STATUS_INFO = 2			/* indeterminate */
} IsoStatus;

typedef enum IsoOpKind
{
	ISO_OP_READ = 0,			/* r */
	ISO_OP_WRITE = 1,			/* w (register) */
	ISO_OP_APPEND = 2			/* append (list) */
} IsoOpKind;

typedef enum IsoWorkload
{
	ISO_WORKLOAD_UNKNOWN = 0,
	ISO_WORKLOAD_LIST_APPEND = 1,
	ISO_WORKLOAD_RW_REGISTER = 2
} IsoWorkload;

/*
 * Where a history's real-time order comes from (docs/semantics.md, "so and
 * rt"): the invoke/complete times it carries (EDN :time, COPY columns), the
 * order of the records in its EDN file, or nowhere.
 */
typedef enum IsoTimeSource
{
	ISO_TIME_NONE = 0,
	ISO_TIME_VALUES = 1,
	ISO_TIME_RECORD_ORDER = 2
} IsoTimeSource;

/*
 * Their texts (names.c, which also holds the texts of edge types, anomaly
 * kinds and cycle labels, declared with their enums).  A parse function
 * returns false for a text that names nothing.
 */
extern const char *iso_status_name(IsoStatus status);
extern bool iso_status_parse(const char *s, IsoStatus *status);
extern const char *iso_op_name(IsoOpKind op);
extern bool iso_op_parse(const char *s, IsoOpKind *op);
extern bool iso_status_parse_len(const char *s, size_t len, IsoStatus *status);
extern bool iso_op_parse_len(const char *s, size_t len, IsoOpKind *op);
extern const char *iso_workload_name(IsoWorkload workload);
extern bool iso_workload_parse(const char *s, IsoWorkload *workload);
extern const char *iso_time_source_name(IsoTimeSource source);
extern bool iso_time_source_parse(const char *s, IsoTimeSource *source);

#endif							/* ISOGRAPH_NAMES_H */
