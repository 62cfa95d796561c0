/*
 * fuzz_edn.c
 *	  libFuzzer harness for edn_parse_history() (standalone build).
 *
 * The input is parsed as is (not NUL-terminated, so ASan sees any
 * over-read).  The expected workload is taken from the input length so all
 * three modes get exercised.  The callback checks the EdnTxn invariants and
 * reads every byte of every slice; on failure the error must be complete.
 * Each input is parsed twice, with and without the parser's fast paths,
 * which must agree on every transaction and error.  A quarter of the inputs
 * are read as in a LATIN1 database; keys, values and messages must be text
 * of the encoding.
 */
#include "edn.h"
#include "text.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fail(const char *what)
{
	fprintf(stderr, "fuzz_edn invariant violated: %s\n", what);
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
touch(IsoSlice s, bool may_be_null)
{
	int32		i;

	if (s.ptr == NULL)
	{
		if (!may_be_null)
			fail("NULL slice");
		if (s.len != 0)
			fail("NULL slice with a length");
		return;
	}
	if (s.len < 0)
		fail("negative slice length");
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
	int			calls;
	int			stop_at;
	uint64_t	digest;			/* of everything the callbacks saw */
} State;

static void
mix(State *st, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t		i;

	for (i = 0; i < n; i++)
		st->digest = (st->digest ^ b[i]) * UINT64_C(1099511628211);
}

static void
mix_slice(State *st, IsoSlice s)
{
	int32		len = s.ptr ? s.len : -1;

	mix(st, &len, sizeof(len));
	if (s.ptr)
		mix(st, s.ptr, (size_t) s.len);
}

static void
digest_txn(State *st, const EdnTxn *t)
{
	int32		i,
				j;

	mix(st, &t->txn_id, sizeof(t->txn_id));
	mix(st, &t->status, sizeof(t->status));
	mix(st, &t->has_process, sizeof(t->has_process));
	mix(st, &t->process, sizeof(t->process));
	mix(st, &t->n_ops, sizeof(t->n_ops));
	for (i = 0; i < t->n_ops; i++)
	{
		const EdnOp *o = &t->ops[i];

		mix(st, &o->op, sizeof(o->op));
		mix_slice(st, o->key);
		mix_slice(st, o->value);
		mix_slice(st, o->read_value);
		mix(st, &o->list_len, sizeof(o->list_len));
		for (j = 0; j < o->list_len; j++)
			mix_slice(st, o->list[j]);
	}
}

static bool
check_txn(const EdnTxn *t, void *arg)
{
	State	   *st = arg;
	int32		i,
				j;

	if (t->n_ops < 0 || (t->n_ops > 0 && t->ops == NULL))
		fail("bad n_ops/ops");
	if (t->record < 1 || t->line < 1)
		fail("bad record/line");
	if (t->status != ISO_STATUS_OK && t->status != ISO_STATUS_FAIL && t->status != ISO_STATUS_INFO)
		fail("bad status");
	for (i = 0; i < t->n_ops; i++)
	{
		const EdnOp *o = &t->ops[i];

		touch(o->key, false);
		switch (o->op)
		{
			case ISO_OP_WRITE:
			case ISO_OP_APPEND:
				touch(o->value, false);
				if (o->read_value.ptr != NULL || o->list_len != -1)
					fail("write with a read value");
				break;
			case ISO_OP_READ:
				if (o->value.ptr != NULL)
					fail("read with a written value");
				touch(o->read_value, true);
				if (o->list_len < -1)
					fail("bad list_len");
				if (o->list_len >= 0)
				{
					if (o->read_value.ptr != NULL || o->list == NULL)
						fail("list read with a value or no list");
					for (j = 0; j < o->list_len; j++)
						touch(o->list[j], false);
				}
				break;
			default:
				fail("bad op kind");
		}
	}
	digest_txn(st, t);
	st->calls++;
	return st->calls != st->stop_at;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	EdnStats	stats;
	IsoParseError err;
	State		st;
	bool		ok;

	/* a quarter of the inputs as in a LATIN1 database (port.h) */
	iso_standalone_encoding = (size % 4 == 1) ? ISO_STANDALONE_LATIN1 : ISO_STANDALONE_UTF8;
	st.calls = 0;
	st.stop_at = (size % 7 == 3) ? 2 : -1;	/* sometimes stop early */
	st.digest = 0;
	ok = edn_parse_history((const char *) data, size, (IsoWorkload) (size % 3),
						   check_txn, &st, &stats, &err);

	/* the general path must see exactly what the fast paths saw */
	{
		State		st2 = {0, st.stop_at, 0};
		EdnStats	stats2;
		IsoParseError err2;
		bool		ok2;

		edn_fast_paths = false;
		ok2 = edn_parse_history((const char *) data, size, (IsoWorkload) (size % 3),
								check_txn, &st2, &stats2, &err2);
		edn_fast_paths = true;
		if (ok2 != ok || st2.calls != st.calls || st2.digest != st.digest ||
			err2.kind != err.kind || err2.line != err.line || err2.record != err.record ||
			strcmp(err2.message, err.message) != 0 || strcmp(err2.detail, err.detail) != 0 ||
			strcmp(err2.hint, err.hint) != 0 ||
			(ok && (stats.records != stats2.records || stats.skipped != stats2.skipped ||
					stats.txns != stats2.txns || stats.events != stats2.events ||
					stats.workload != stats2.workload)))
			fail("the fast paths and the general path disagree");
	}
	/*
	 * The streaming reader, fed line by line, must see what the whole text
	 * saw (a stream's last line always ends: compare texts that end so).
	 */
	if (size > 0 && data[size - 1] == '\n')
	{
		State		st3 = {0, st.stop_at, 0};
		EdnStats	stats3;
		IsoParseError err3;
		EdnStream  *S = edn_stream_begin((IsoWorkload) (size % 3), check_txn, &st3,
										 &stats3, &err3);
		const char *p = (const char *) data,
				   *end = p + size;
		bool		ok3 = true;

		while (ok3 && p < end)
		{
			const char *nl = memchr(p, '\n', (size_t) (end - p));
			size_t		n = (size_t) (nl - p);	/* data ends with a newline */
			char	   *line = malloc(n ? n : 1);

			memcpy(line, p, n);
			ok3 = edn_stream_line(S, line, n);
			free(line);
			p = nl + 1;
		}
		if (ok3)
			ok3 = edn_stream_finish(S);
		edn_stream_free(S);
		if (ok3 != ok || st3.calls != st.calls || st3.digest != st.digest ||
			err3.kind != err.kind || err3.line != err.line || err3.record != err.record ||
			(ok && (stats.records != stats3.records || stats.skipped != stats3.skipped ||
					stats.txns != stats3.txns || stats.events != stats3.events ||
					stats.workload != stats3.workload ||
					stats.time_source != stats3.time_source)))
			fail("the streaming reader and the whole text disagree");
	}
	if (ok)
	{
		if (err.kind != ISO_PARSE_OK)
			fail("success with an error kind");
		if (stats.txns != st.calls || stats.ok + stats.fail + stats.info != stats.txns)
			fail("stats do not add up");
		if (stats.skipped > stats.records)
			fail("more skipped than records");
		if (size % 3 != ISO_WORKLOAD_UNKNOWN && stats.workload != (IsoWorkload) (size % 3))
			fail("workload differs from the expected one");
	}
	else if (err.kind == ISO_PARSE_OK)
	{
		if (st.calls != st.stop_at)
			fail("failure without an error");
	}
	else
	{
		if (err.message[0] == '\0' || err.detail[0] == '\0' || err.hint[0] == '\0')
			fail("error without message, detail or hint");
		if (err.line < 1 || err.record < 0)
			fail("error without a line");
		if (memchr(err.message, '\0', sizeof(err.message)) == NULL)
			fail("unterminated message");
		check_text(err.message, strlen(err.message), "the message is not text of the encoding");
		check_text(err.detail, strlen(err.detail), "the detail is not text of the encoding");
		check_text(err.hint, strlen(err.hint), "the hint is not text of the encoding");
	}
	return 0;
}
