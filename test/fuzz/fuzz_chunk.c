/*
 * fuzz_chunk.c
 *	  libFuzzer harness for the event chunk reader (event_chunk.c,
 *	  standalone build).
 *
 * A chunk is read from iso_event_chunk, where the table's owner can write
 * any bytes and a restored dump brings whatever it holds: the reader must
 * refuse what is not a chunk, never read past it, and whatever it accepts
 * must pack and read back as the same rows.  Three readers go through an
 * accepted input in step: as is, with skip_kept (a check's reader), and
 * the rows packed again by the writer.
 */
#include "event_chunk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fail(const char *what)
{
	fprintf(stderr, "fuzz_chunk invariant violated: %s\n", what);
	abort();
}

static const uint8 *in_start;
static const uint8 *in_end;
static unsigned sink;

/* a slice of the input chunk: inside it (ASan sees the bytes read) */
static void
touch(IsoSlice s, const uint8 *start, const uint8 *end)
{
	int32		i;

	if (s.len < 0 || (s.len > 0 && s.ptr == NULL))
		fail("bad slice");
	if (s.len > 0 && ((const uint8 *) s.ptr < start || (const uint8 *) s.ptr + s.len > end))
		fail("a slice outside its chunk");
	for (i = 0; i < s.len; i++)
		sink += (unsigned char) s.ptr[i];
}

static bool
same_slice(IsoSlice a, IsoSlice b)
{
	if ((a.ptr == NULL) != (b.ptr == NULL) || a.len != b.len)
		return false;
	return a.len == 0 || memcmp(a.ptr, b.ptr, (size_t) a.len) == 0;
}

/* rows a and b alike; their list elements from `from` on */
static void
compare_rows(const IsoEventRow *a, const IsoEventRow *b, int32 from, const char *what)
{
	int32		i;

	if (a->txn_id != b->txn_id || a->status != b->status || a->pos != b->pos ||
		a->op != b->op || a->has_process != b->has_process ||
		(a->has_process && a->process != b->process) ||
		a->has_invoke_time != b->has_invoke_time ||
		(a->has_invoke_time && a->invoke_time != b->invoke_time) ||
		a->has_complete_time != b->has_complete_time ||
		(a->has_complete_time && a->complete_time != b->complete_time))
		fail(what);
	if (!same_slice(a->key, b->key) || !same_slice(a->value, b->value) ||
		!same_slice(a->read_value, b->read_value) ||
		a->has_list != b->has_list || a->list_len != b->list_len)
		fail(what);
	for (i = from; a->has_list && i < a->list_len; i++)
		if (!same_slice(a->list[i], b->list[i]))
			fail(what);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	IsoChunkReader r;
	IsoChunkReader again;
	IsoChunkReader skipping;
	IsoChunkWriter w;
	const uint8 *packed;
	size_t		len;
	int			rc;
	int			encoding;

	in_start = data;
	in_end = data + size;

	/* 1. read it: every slice inside the input, an error said */
	if (!iso_chunk_reader_init(&r, data, size))
	{
		if (r.error == NULL)
			fail("init refused without an error");
		iso_chunk_reader_free(&r);
		return 0;
	}
	encoding = r.encoding;
	iso_chunk_writer_init(&w, encoding);
	while ((rc = iso_chunk_reader_next(&r)) == 1)
	{
		int32		i;

		touch(r.row.key, in_start, in_end);
		touch(r.row.value, in_start, in_end);
		touch(r.row.read_value, in_start, in_end);
		if (r.row.has_list && r.row.op != ISO_OP_READ)
			fail("a list on a row that is not a read");
		if (r.row.list_kept < 0 || r.row.list_kept > r.row.list_len)
			fail("list_kept out of range");
		for (i = 0; r.row.has_list && i < r.row.list_len; i++)
			touch(r.row.list[i], in_start, in_end);
		iso_chunk_writer_add(&w, &r.row);
	}
	if (rc < 0 && r.error == NULL)
		fail("damaged without an error");
	if (rc == 0 && r.error != NULL)
		fail("an error at a clean end");
	iso_chunk_reader_free(&r);
	if (rc < 0)
	{
		iso_chunk_writer_free(&w);
		return 0;
	}

	/* 2. accepted: packed again, the same rows; and read with skip_kept */
	packed = iso_chunk_writer_data(&w, &len);
	if (!iso_chunk_reader_init(&again, packed, len))
		fail("the writer's chunk refused");
	if (!iso_chunk_reader_init(&r, data, size) ||
		!iso_chunk_reader_init(&skipping, data, size))
		fail("init refused the second time");
	skipping.skip_kept = true;
	for (;;)
	{
		int			a = iso_chunk_reader_next(&r);
		int			b = iso_chunk_reader_next(&again);
		int			c = iso_chunk_reader_next(&skipping);

		if (a != b || a != c)
			fail("the rows packed again, or read with skip_kept, end elsewhere");
		if (a != 1)
			break;
		compare_rows(&r.row, &again.row, 0, "a row packed again reads otherwise");
		if (skipping.row.list_kept != r.row.list_kept)
			fail("skip_kept changed list_kept");
		compare_rows(&r.row, &skipping.row, r.row.list_kept,
					 "a row read with skip_kept reads otherwise");
	}
	iso_chunk_reader_free(&r);
	iso_chunk_reader_free(&again);
	iso_chunk_reader_free(&skipping);
	iso_chunk_writer_free(&w);
	return 0;
}
