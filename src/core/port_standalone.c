/*
 * port_standalone.c
 *	  The host of the core outside the server (unit tests, fuzzers,
 *	  sanitizers): malloc, and errors that abort.  See port.h.
 */
#include "port.h"

static void ISO_NORETURN
die(const char *what, size_t size)
{
	if (size)
		fprintf(stderr, "isograph: %s (request of %zu bytes)\n", what, size);
	else
		fprintf(stderr, "isograph: %s\n", what);
	abort();
}

void *
iso_alloc(size_t size)
{
	void	   *p = malloc(size ? size : 1);

	if (p == NULL)
		die("out of memory", size);
	return p;
}

void *
iso_alloc0(size_t size)
{
	void	   *p = calloc(1, size ? size : 1);

	if (p == NULL)
		die("out of memory", size);
	return p;
}

void *
iso_realloc(void *ptr, size_t size)
{
	void	   *p = realloc(ptr, size ? size : 1);

	if (p == NULL)
		die("out of memory", size);
	return p;
}

void
iso_free(void *ptr)
{
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
iso_host_limit(const char *what)
{
	die(what, 0);
}

void
iso_host_internal_error(const char *what)
{
	die(what, 0);
}
