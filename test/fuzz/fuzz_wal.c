/*
 * fuzz_wal.c
 *	  libFuzzer harness for wal_parse() (standalone build).
 */
#include "wal.h"
#include "text.h"

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

/* Every byte string the parser makes must be text of the host's encoding. */
static void
check_text(const char *p, size_t n, const char *what)
{
	const unsigned char *s = (const unsigned char *) p;
	const unsigned char *e = s + n;

	while (s < e)
	{
		int			k = *s < 0x80 ? 1 : iso_host_char_len(s, e);

		if (k == 0)
			fail(what);
		s += k;
	}
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
	check_text(s.ptr, (size_t) s.len, "a key or value is not text of the encoding");
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

	/* a quarter of the inputs as in a LATIN1 database (port.h) */
	iso_standalone_encoding = (size % 4 == 1) ? ISO_STANDALONE_LATIN1 : ISO_STANDALONE_UTF8;
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
	if (!ok && err.kind != ISO_PARSE_OK)
	{
		check_text(err.message, strlen(err.message), "the message is not text of the encoding");
		check_text(err.detail, strlen(err.detail), "the detail is not text of the encoding");
		check_text(err.hint, strlen(err.hint), "the hint is not text of the encoding");
	}
	return 0;
}
