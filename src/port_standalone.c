/*
 * port_standalone.c
 *	  malloc-based allocation for builds with -DISOGRAPH_STANDALONE (unit
 *	  tests, fuzzers, sanitizers).  Exhaustion is fatal, like palloc's ERROR.
 */
#ifdef ISOGRAPH_STANDALONE

#include "port.h"

#include <stdio.h>

static void
iso_oom(size_t size)
{
	fprintf(stderr, "isograph: out of memory (request of %zu bytes)\n", size);
	abort();
}

void *
iso_alloc(size_t size)
{
	void	   *p = malloc(size ? size : 1);

	if (p == NULL)
		iso_oom(size);
	return p;
}

void *
iso_alloc0(size_t size)
{
	void	   *p = calloc(1, size ? size : 1);

	if (p == NULL)
		iso_oom(size);
	return p;
}

void *
iso_realloc(void *ptr, size_t size)
{
	void	   *p = realloc(ptr, size ? size : 1);

	if (p == NULL)
		iso_oom(size);
	return p;
}

#else

/* Keep ISO C happy: a translation unit must not be empty. */
typedef int iso_port_standalone_unused;

#endif							/* ISOGRAPH_STANDALONE */
