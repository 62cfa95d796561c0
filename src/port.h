/*
 * port.h
 *	  The few things the parsing and graph cores need from their host.
 *
 * The EDN/WAL parsers, the graph builder and the cycle searches are plain C
 * so they can also be built outside the server (fuzzing, sanitizers).  Inside
 * the backend (the default) allocation goes to palloc in the current memory
 * context, so everything is freed with that context, also on ERROR.  Built
 * with -DISOGRAPH_STANDALONE they use malloc and abort on exhaustion.
 */
#ifndef ISOGRAPH_PORT_H
#define ISOGRAPH_PORT_H

#ifndef ISOGRAPH_STANDALONE

#include "postgres.h"
#include "miscadmin.h"

#define iso_alloc(sz)			palloc_extended((sz), MCXT_ALLOC_HUGE)
#define iso_alloc0(sz)			palloc_extended((sz), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO)
#define iso_realloc(p, sz)		repalloc_huge((p), (sz))
#define iso_free(p)				pfree(p)
/* CHECK_FOR_INTERRUPTS, plus the isograph.max_memory check (build.c) */
extern void iso_backend_tick(void);
#define ISO_CHECK_INTERRUPTS()	iso_backend_tick()
/* the isograph.max_memory check alone, every time: after a big allocation */
extern void iso_backend_check_memory(void);
#define ISO_CHECK_MEMORY()		iso_backend_check_memory()

#else							/* ISOGRAPH_STANDALONE */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int8_t int8;
typedef int16_t int16;
typedef int32_t int32;
typedef int64_t int64;
typedef uint8_t uint8;
typedef uint16_t uint16;
typedef uint32_t uint32;
typedef uint64_t uint64;
typedef size_t Size;

#define PG_INT32_MAX	INT32_MAX
#define PG_INT64_MAX	INT64_MAX
#define PG_INT64_MIN	INT64_MIN
#define PG_UINT32_MAX	UINT32_MAX

void	   *iso_alloc(size_t size);
void	   *iso_alloc0(size_t size);
void	   *iso_realloc(void *ptr, size_t size);
#define iso_free(p)				free(p)
#define ISO_CHECK_INTERRUPTS()	((void) 0)
#define ISO_CHECK_MEMORY()		((void) 0)
#define Min(x, y)				((x) < (y) ? (x) : (y))
#define Max(x, y)				((x) > (y) ? (x) : (y))

#endif							/* ISOGRAPH_STANDALONE */

/* A piece of text; ptr == NULL means SQL NULL.  Not NUL-terminated. */
typedef struct IsoSlice
{
	const char *ptr;
	int32		len;
} IsoSlice;

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

extern const char *iso_status_name(IsoStatus status);
extern const char *iso_time_source_name(IsoTimeSource source);
extern const char *iso_op_name(IsoOpKind op);
extern const char *iso_workload_name(IsoWorkload workload);

#endif							/* ISOGRAPH_PORT_H */
