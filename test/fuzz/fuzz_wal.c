/*
 * fuzz_wal.c
 *	  libFuzzer harness for wal_parse() (standalone build).
 */
#include "wal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fail(const char *what)
{
	fprintf(stderr, "fuzz_wal invariant violated: %s\n", what);
	abort();
}

static unsigned sink;

static void
touch(IsoSlice s)
{
	int32		i;

	if (s.ptr == NULL || s.len < 0)
		fail("bad slice");
	for (i = 0; i < s.len; i++)
	{
		if (s.ptr[i] == '\0')
			fail("NUL byte in a key or value");
		sink += (unsigned char) s.ptr[i];
	}
}

typedef struct State
{
	int64		calls;
	int64		last_line;
	int64		stop_at;
} State;

static bool
check_version(const WalVersion *v, void *arg)
{
	State	   *st = arg;

	touch(v->key);
	touch(v->value);
	if (v->line <= st->last_line)
		fail("lines not increasing");
	st->last_line = v->line;
	st->calls++;
	return st->calls != st->stop_at;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	IsoParseError err;
	State		st;
	int64		skipped = -1;
	bool		ok;

	st.calls = 0;
	st.last_line = 0;
	st.stop_at = (size % 5 == 2) ? 1 : -1;
	ok = wal_parse((const char *) data, size, check_version, &st, &skipped, &err);
	if (skipped < 0)
		fail("skipped not set");
	if (ok && err.kind != ISO_PARSE_OK)
		fail("success with an error kind");
	if (!ok && err.kind == ISO_PARSE_OK && st.calls != st.stop_at)
		fail("failure without an error");
	if (!ok && err.kind != ISO_PARSE_OK &&
		(err.message[0] == '\0' || err.detail[0] == '\0' || err.hint[0] == '\0' || err.line < 1))
		fail("incomplete error");
	return 0;
}
