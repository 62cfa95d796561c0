/*
 * host.c
 *	  The server as the host of the plain-C core (src/core/port.h):
 *	  allocation in the current memory context, interrupts, the
 *	  isograph.max_memory limit, and errors.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "host.h"
#include "isograph.h"
#include "port.h"

void *
iso_alloc(size_t size)
{
	return palloc_extended(size, MCXT_ALLOC_HUGE);
}

void *
iso_alloc0(size_t size)
{
	return palloc_extended(size, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
}

void *
iso_realloc(void *ptr, size_t size)
{
	return repalloc_huge(ptr, size);
}

void
iso_free(void *ptr)
{
	pfree(ptr);
}

void
iso_host_limit(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("isograph cannot check this history: %s", what),
			 errhint("Check a smaller history, or split it (by time or by keys).")));
}

void
iso_host_internal_error(const char *what)
{
	elog(ERROR, "isograph: %s", what);
}

/*
 * The build whose memory isograph.max_memory bounds, so that the long loops
 * of the plain-C cores can check it through ISO_CHECK_INTERRUPTS.  Cleared
 * by a reset callback when the build's context goes away, also on ERROR.
 */
static MemoryContext limited_cxt = NULL;
static MemoryContextCallback limited_cxt_callback;

static void
forget_limited_cxt(void *arg)
{
	limited_cxt = NULL;
}

void
iso_host_tick(void)
{
	static uint32 ticks = 0;

	CHECK_FOR_INTERRUPTS();
	/* walking the context tree costs more than a flag test: not every time */
	if (limited_cxt != NULL && (++ticks & 0x3f) == 0)
		iso_check_memory(limited_cxt);
}

void
iso_host_check_memory(void)
{
	if (limited_cxt != NULL)
		iso_check_memory(limited_cxt);
}

void
iso_check_memory(MemoryContext cxt)
{
	Size		used;
	Size		limit;

	iso_settings_ready();
	used = MemoryContextMemAllocated(cxt, true);
	limit = (Size) iso_max_memory_mb * 1024 * 1024;

	if (used > limit)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("isograph needs more than isograph.max_memory (%d MB) for this history",
						iso_max_memory_mb),
				 errdetail("The graph build had allocated %.1f MB.", (double) used / (1024 * 1024)),
				 errhint("Raise isograph.max_memory, e.g. SET isograph.max_memory = '8GB'.")));
}

/* Bound cxt, a build's context, by isograph.max_memory until it goes. */
void
iso_memory_limit_context(MemoryContext cxt)
{
	limited_cxt = cxt;
	limited_cxt_callback.func = forget_limited_cxt;
	limited_cxt_callback.arg = NULL;
	MemoryContextRegisterResetCallback(cxt, &limited_cxt_callback);
}
