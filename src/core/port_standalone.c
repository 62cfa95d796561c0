/*
 * port_standalone.c
 *	  The host of the core outside the server (unit tests, fuzzers,
 *	  sanitizers): malloc, and errors that abort.  See port.h.
 */
#include <pthread.h>

#include "port.h"

#include "text.h"

static void ISO_NORETURN
die(const char *what, size_t size)
{
	if (size)
		fprintf(stderr, "isograph: %s (request of %zu bytes)\n", what, size);
	else
		fprintf(stderr, "isograph: %s\n", what);
	abort();
}

/*
 * Blocks allocated and not yet freed, for tests of how many allocations a
 * structure makes (in the server each one stays in its memory context).
 */
static int64 live_blocks = 0;

int64
iso_standalone_live_blocks(void)
{
	return live_blocks;
}

void *
iso_alloc(size_t size)
{
	void	   *p = malloc(size ? size : 1);

	if (p == NULL)
		die("out of memory", size);
	live_blocks++;
	return p;
}

void *
iso_alloc0(size_t size)
{
	void	   *p = calloc(1, size ? size : 1);

	if (p == NULL)
		die("out of memory", size);
	live_blocks++;
	return p;
}

void *
iso_realloc(void *ptr, size_t size)
{
	void	   *p = realloc(ptr, size ? size : 1);

	if (p == NULL)
		die("out of memory", size);
	if (ptr == NULL)
		live_blocks++;
	return p;
}

void
iso_free(void *ptr)
{
	if (ptr != NULL)
		live_blocks--;
	free(ptr);
}

void
iso_host_tick(void)
{
}

void
iso_host_check_memory(void)
{
}

void
iso_host_return_free_memory(void)
{
}

void
iso_host_limit(const char *what)
{
	die(what, 0);
}

void
iso_host_internal_error(const char *what)
{
	die(what, 0);
}

IsoStandaloneEncoding iso_standalone_encoding = ISO_STANDALONE_UTF8;

bool
iso_host_encoding_utf8(void)
{
	return iso_standalone_encoding == ISO_STANDALONE_UTF8;
}

const char *
iso_host_encoding_name(void)
{
	return iso_standalone_encoding == ISO_STANDALONE_UTF8 ? "UTF8" : "LATIN1";
}

int
iso_host_char_len(const unsigned char *s, const unsigned char *end)
{
	if (iso_standalone_encoding == ISO_STANDALONE_UTF8)
		return iso_utf8_seq_len(s, end);
	return (s < end && *s != 0) ? 1 : 0;
}

int
iso_host_unicode_char(uint32 cp, char *out)
{
	if (iso_standalone_encoding == ISO_STANDALONE_UTF8)
		return (int) (iso_utf8_encode(out, cp) - out);
	if (cp == 0 || cp > 0xFF)
		return 0;
	out[0] = (char) cp;
	return 1;
}

bool
iso_host_stop_requested(void)
{
	return false;
}

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

struct IsoHelper
{
	pthread_t	th;
	HelperStart hs;
};

IsoHelper *
iso_host_helper_start(void (*helper) (void *), void *arg, int *stop)
{
	IsoHelper  *h = iso_alloc(sizeof(IsoHelper));

	(void) stop;
	h->hs.fn = helper;
	h->hs.arg = arg;
	if (pthread_create(&h->th, NULL, helper_start, &h->hs) != 0)
	{
		iso_free(h);
		return NULL;
	}
	return h;
}

void
iso_host_helper_join(IsoHelper *h)
{
	pthread_join(h->th, NULL);
	iso_free(h);
}

/* Outside the server an error aborts the process: nothing to catch. */
bool
iso_host_run_beside(void (*main) (void *), void *main_arg,
					void (*helper) (void *), void *helper_arg, int *stop)
{
	pthread_t	th;
	HelperStart hs = {helper, helper_arg};

	(void) stop;
	if (pthread_create(&th, NULL, helper_start, &hs) != 0)
		return false;
	main(main_arg);
	pthread_join(th, NULL);
	return true;
}

void
iso_host_on_release(void **slot, void (*free_fn) (void *))
{
	(void) slot;
	(void) free_fn;
}
