/*
 * tap.h
 *	  Minimal TAP output for the standalone unit tests (header-only).
 *
 * ok(cond, fmt, ...) prints "ok N - desc" or "not ok N - desc";
 * tap_done() prints the plan "1..N" and returns the exit status.
 */
#ifndef ISOGRAPH_TAP_H
#define ISOGRAPH_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int	tap_n = 0;
static int	tap_failed = 0;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int
ok(int cond, const char *fmt,...)
{
	va_list		ap;

	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return cond;
}

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static inline void
diag(const char *fmt,...)
{
	va_list		ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static inline int
is_str(const char *got, const char *want, const char *desc)
{
	int			r = ok(strcmp(got, want) == 0, "%s", desc);

	if (!r)
	{
		diag("     got: %s", got);
		diag("expected: %s", want);
	}
	return r;
}

static int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	if (tap_failed)
		printf("# %d of %d checks failed\n", tap_failed, tap_n);
	return tap_failed ? 1 : 0;
}

#endif							/* ISOGRAPH_TAP_H */
