/*
 * host.c
 *	  The server as the host of the plain-C core (src/core/port.h):
 *	  allocation in the current memory context, interrupts, the
 *	  isograph.max_memory limit, errors, and the database encoding.
 */
#include "postgres.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>

#include "miscadmin.h"
#include "catalog/namespace.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "utils/memutils.h"

#include "host.h"
#include "isograph.h"
#include "port.h"
#include "text.h"

/*
 * Arrays of a gigabyte or more (a check of 10M transactions: its ops, list
 * elements and edge buffer) are asked to be backed by transparent huge
 * pages, when the kernel leaves that to the program (its THP mode
 * "madvise").  There a first touch of each 4 kB page, the kernel zeroing
 * it, was half of the inference's time; with 2 MB pages the check of a
 * 10M file took 35-38 s instead of 38-45 s (alternating runs).  Smaller
 * arrays keep 4 kB pages: at 1M transactions (arrays up to 384 MB) huge
 * pages from 32 MB up made the check slower, 3.06 s against 2.64 s
 * (docs/performance.md).  The advice covers the whole 2 MB pages inside
 * the block, and goes with it when it is freed (such blocks are mmap'd by
 * malloc).
 */
#define HUGE_PAGE_MIN_BYTES		((size_t) 1 << 30)
#define HUGE_PAGE_BYTES			((uintptr_t) 2 << 20)

static void *
advise_huge_pages(void *block, size_t size)
{
#ifdef MADV_HUGEPAGE
	if (block != NULL && size >= HUGE_PAGE_MIN_BYTES)
	{
		uintptr_t	start = ((uintptr_t) block + HUGE_PAGE_BYTES - 1) & ~(HUGE_PAGE_BYTES - 1);
		uintptr_t	end = ((uintptr_t) block + size) & ~(HUGE_PAGE_BYTES - 1);

		/* only advice: a kernel that refuses it leaves 4 kB pages */
		if (end > start)
			(void) madvise((void *) start, end - start, MADV_HUGEPAGE);
	}
#endif
	return block;
}

void *
iso_alloc(size_t size)
{
	return advise_huge_pages(palloc_extended(size, MCXT_ALLOC_HUGE), size);
}

void *
iso_alloc0(size_t size)
{
	void	   *block;

	if (size < HUGE_PAGE_MIN_BYTES)
		return palloc_extended(size, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	/* advised before the zeroing touches the pages */
	block = advise_huge_pages(palloc_extended(size, MCXT_ALLOC_HUGE), size);
	memset(block, 0, size);
	return block;
}

/* NULL grows from nothing, as realloc does (the standalone host's) */
void *
iso_realloc(void *ptr, size_t size)
{
	if (ptr == NULL)
		return iso_alloc(size);
	return advise_huge_pages(repalloc_huge(ptr, size), size);
}

void
iso_free(void *ptr)
{
	if (ptr != NULL)
		pfree(ptr);
}

/*
 * glibc keeps freed heap memory below its trim threshold, which rises to
 * twice the largest mmap'd block freed so far: after a check has freed its
 * builder's tables (tens of MB each at 1M transactions), that much stays
 * resident beside the edge buffer at the check's peak.  malloc_trim hands
 * the free pages back (madvise), without moving anything.
 */
void
iso_host_return_free_memory(void)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

bool
iso_host_stop_requested(void)
{
	return QueryCancelPending || ProcDiePending;
}

/*
 * iso_host_run_beside: a second thread in the backend.  The server is not
 * thread-safe, so the helper touches nothing of it: the core gives it its
 * own memory (allocated here, before it starts) and it calls no host
 * function (port.h).  It is started with every signal blocked, so that
 * the server's handlers run on this thread only; and this thread leaves
 * the function, by return or by error, only after the helper has ended,
 * so no memory it uses is freed under it.
 */
typedef struct HelperStart
{
	void		(*fn) (void *);
	void	   *arg;
} HelperStart;

static void *
helper_start(void *p)
{
	HelperStart *hs = p;

	hs->fn(hs->arg);
	return NULL;
}

/* Start a thread that takes no signal; false if none could be. */
static bool
start_helper_thread(pthread_t *th, HelperStart *hs)
{
	sigset_t	all,
				old;
	int			rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(th, NULL, helper_start, hs);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc == 0;
}

/*
 * iso_host_helper_start: the helper is joined by iso_host_helper_join, or,
 * if an error comes first, by the reset callback of a memory context of its
 * own, made the youngest child of the current one.  PostgreSQL deletes a
 * context's children, youngest first, before it runs the context's own
 * callbacks and frees its memory: so the join comes before the current
 * context's memory, and that of its older children, is freed.  (A callback
 * of the current context itself came too late: the image a stored history
 * is read from is an older child of the build's context, and was freed
 * under the helper, which read the history's ops from it.)
 */
struct IsoHelper
{
	pthread_t	th;
	HelperStart hs;
	int		   *stop;
	bool		joined;
	MemoryContext guard;		/* the context whose reset joins it */
	MemoryContextCallback cb;
};

static void
helper_join_once(IsoHelper *h)
{
	if (h->joined)
		return;
	h->joined = true;
	pthread_join(h->th, NULL);
}

static void
helper_reset_callback(void *arg)
{
	IsoHelper  *h = arg;

	/* once joined, *stop may be gone (freed by the caller) */
	if (h->joined)
		return;
	__atomic_store_n(h->stop, 1, __ATOMIC_RELAXED);
	helper_join_once(h);
}

IsoHelper *
iso_host_helper_start(void (*helper) (void *), void *arg, int *stop)
{
	MemoryContext guard = AllocSetContextCreate(CurrentMemoryContext, "isograph helper",
												ALLOCSET_SMALL_SIZES);
	IsoHelper  *h = MemoryContextAllocZero(guard, sizeof(IsoHelper));

	h->hs.fn = helper;
	h->hs.arg = arg;
	h->stop = stop;
	h->guard = guard;
	if (!start_helper_thread(&h->th, &h->hs))
	{
		MemoryContextDelete(guard);
		return NULL;
	}
	h->cb.func = helper_reset_callback;
	h->cb.arg = h;
	MemoryContextRegisterResetCallback(guard, &h->cb);
	return h;
}

void
iso_host_helper_join(IsoHelper *h)
{
	helper_join_once(h);
	/* its callback finds it joined; the handle goes with the context */
	MemoryContextDelete(h->guard);
}

bool
iso_host_run_beside(void (*main) (void *), void *main_arg,
					void (*helper) (void *), void *helper_arg, int *stop)
{
	pthread_t	th;
	HelperStart hs = {helper, helper_arg};

	if (!start_helper_thread(&th, &hs))
		return false;
	PG_TRY();
	{
		main(main_arg);
	}
	PG_CATCH();
	{
		__atomic_store_n(stop, 1, __ATOMIC_RELAXED);
		pthread_join(th, NULL);
		PG_RE_THROW();
	}
	PG_END_TRY();
	pthread_join(th, NULL);
	return true;
}

/* iso_host_on_release: the callback and what it frees, in the context. */
typedef struct ReleaseHook
{
	MemoryContextCallback cb;
	void	  **slot;
	void		(*free_fn) (void *);
} ReleaseHook;

static void
run_release_hook(void *arg)
{
	ReleaseHook *hook = (ReleaseHook *) arg;

	if (*hook->slot != NULL)
	{
		hook->free_fn(*hook->slot);
		*hook->slot = NULL;
	}
}

void
iso_host_on_release(void **slot, void (*free_fn) (void *))
{
	ReleaseHook *hook = MemoryContextAlloc(CurrentMemoryContext, sizeof(ReleaseHook));

	hook->slot = slot;
	hook->free_fn = free_fn;
	hook->cb.func = run_release_hook;
	hook->cb.arg = hook;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &hook->cb);
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

bool
iso_host_encoding_utf8(void)
{
	return GetDatabaseEncoding() == PG_UTF8;
}

const char *
iso_host_encoding_name(void)
{
	return GetDatabaseEncodingName();
}

int
iso_host_char_len(const unsigned char *s, const unsigned char *end)
{
	int			enc = GetDatabaseEncoding();
	int			n;

	if (enc == PG_UTF8)
		return iso_utf8_seq_len(s, end);
	n = pg_encoding_verifymbchar(enc, (const char *) s, (int) Min(end - s, 16));
	return n > 0 ? n : 0;
}

/*
 * The server's conversion from UTF-8 to the database encoding, called with
 * noError so that a character the encoding lacks comes back as a failure
 * for the parser to report with the history's line (PostgreSQL 16 has this
 * as pg_unicode_to_server_noerror; pg_unicode_to_server, which the JSON
 * parser uses, throws its own error without the line).  Looked up once per
 * backend, as the server itself does for the client encoding: the database
 * encoding never changes.  isograph's functions run with search_path
 * pg_catalog first, so the lookup finds the built-in default conversion.
 */
static bool conv_looked_up = false;
static bool conv_found = false;
static FmgrInfo conv_flinfo;

int
iso_host_unicode_char(uint32 cp, char *out)
{
	int			enc = GetDatabaseEncoding();
	unsigned char utf8[ISO_MAX_CHAR_LEN + 1];
	unsigned char conv[ISO_MAX_CHAR_LEN * MAX_CONVERSION_GROWTH + 1];
	int			utf8_len;
	int			done;
	size_t		len;

	if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	if (cp < 0x80)
	{
		out[0] = (char) cp;
		return 1;
	}
	if (enc == PG_UTF8)
		return (int) (iso_utf8_encode(out, cp) - out);

	if (!conv_looked_up)
	{
		Oid			proc = FindDefaultConversionProc(PG_UTF8, enc);

		if (OidIsValid(proc))
		{
			fmgr_info_cxt(proc, &conv_flinfo, TopMemoryContext);
			conv_found = true;
		}
		conv_looked_up = true;
	}
	if (!conv_found)
		return 0;				/* SQL_ASCII, or no conversion installed */

	utf8_len = (int) (iso_utf8_encode((char *) utf8, cp) - (char *) utf8);
	utf8[utf8_len] = '\0';
	done = DatumGetInt32(FunctionCall6(&conv_flinfo,
									   Int32GetDatum(PG_UTF8),
									   Int32GetDatum(enc),
									   CStringGetDatum((char *) utf8),
									   CStringGetDatum((char *) conv),
									   Int32GetDatum(utf8_len),
									   BoolGetDatum(true)));
	if (done != utf8_len)
		return 0;
	len = strlen((char *) conv);
	if (len == 0 || len > ISO_MAX_CHAR_LEN)
		return 0;
	memcpy(out, conv, len);
	return (int) len;
}
