/*
 * test_event_chunk.c
 *	  Event chunks (src/core/event_chunk.c), standalone, TAP output.
 *
 *	  - a 3-row version 1 chunk whose bytes are written out by hand below,
 *		decoded back, and compared byte for byte with the writer's (which
 *		writes the same rows as version 2: the same bytes but the version);
 *	  - a 5-row version 2 chunk with list deltas, the same way;
 *	  - a row whose transaction fields disagree with the row before of the
 *		same transaction is written with its own fields;
 *	  - random rows (extreme ids and times, NULL and empty strings, NUL and
 *		high bytes, lists of 0..50 elements) packed into chunks closed by
 *		iso_chunk_writer_full, read back and compared with what was added,
 *		first/last/ordered with what the test computes itself;
 *	  - list reads of a few keys that extend, shrink, diverge from and
 *		repeat the key's read before (empty lists, empty elements, NUL
 *		bytes), read back as added; the same rows give the same bytes, and
 *		a chunk after iso_chunk_writer_reset owes nothing to the one before;
 *	  - a list-append-like sequence packs at least 3 times smaller than
 *		its lists' elements alone take written whole;
 *	  - damage: every truncation and single-byte change of valid chunks
 *		ends in rows or -1, never a read outside the chunk (each copy is a
 *		malloc of its exact length, so ASan sees one byte past it), and the
 *		named cases each give -1 with their message.
 *
 * Every allocation is freed (LeakSanitizer must stay quiet).
 */
#include "port.h"
#include "event_chunk.h"

#include <stdlib.h>

#include "list_append.h"
#include "rng.h"
#include "tap.h"

static IsoSlice
sl(const char *s)
{
	IsoSlice	r;

	r.ptr = s;
	r.len = (int32) strlen(s);
	return r;
}

static const IsoSlice nil_slice = {NULL, 0};

static IsoEventRow
new_row(int64 txn_id, IsoStatus status, int32 pos, IsoOpKind op, const char *key)
{
	IsoEventRow r;

	memset(&r, 0, sizeof(r));
	r.txn_id = txn_id;
	r.status = status;
	r.pos = pos;
	r.op = op;
	r.key = sl(key);
	return r;
}

static bool
slice_eq(IsoSlice a, IsoSlice b)
{
	if ((a.ptr == NULL) != (b.ptr == NULL))
		return false;
	if (a.ptr == NULL)
		return true;
	return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, (size_t) a.len) == 0);
}

/* equal as rows: process and the times only where their has_ flag is set */
static bool
row_eq(const IsoEventRow *a, const IsoEventRow *b)
{
	int32		i;

	if (a->txn_id != b->txn_id || a->status != b->status ||
		a->has_process != b->has_process ||
		a->has_invoke_time != b->has_invoke_time ||
		a->has_complete_time != b->has_complete_time ||
		(a->has_process && a->process != b->process) ||
		(a->has_invoke_time && a->invoke_time != b->invoke_time) ||
		(a->has_complete_time && a->complete_time != b->complete_time) ||
		a->pos != b->pos || a->op != b->op)
		return false;
	if (a->key.ptr == NULL || b->key.ptr == NULL || !slice_eq(a->key, b->key) ||
		!slice_eq(a->value, b->value) || !slice_eq(a->read_value, b->read_value))
		return false;
	if (a->has_list != b->has_list)
		return false;
	if (!a->has_list)
		return true;
	if (a->list_len != b->list_len)
		return false;
	for (i = 0; i < a->list_len; i++)
	{
		if (a->list[i].ptr == NULL || b->list[i].ptr == NULL ||
			!slice_eq(a->list[i], b->list[i]))
			return false;
	}
	return true;
}

/* a copy in a buffer of exactly len bytes, so ASan sees a read past it */
static uint8 *
exact_copy(const uint8 *data, size_t len)
{
	uint8	   *c = malloc(len ? len : 1);

	if (len)
		memcpy(c, data, len);
	return c;
}

/*
 * Decode data[0..len) to the end: 0 when every row was read, -1 when
 * damaged (also init failing); *nread the rows returned.  Never more than
 * len calls: each row takes at least 3 bytes, so more would be a loop.
 */
static int
decode_all(const uint8 *data, size_t len, uint32 *nread, const char **error)
{
	uint8	   *c = exact_copy(data, len);
	IsoChunkReader r;
	int			rc = -1;
	size_t		calls;

	*nread = 0;
	*error = NULL;
	if (iso_chunk_reader_init(&r, c, len))
	{
		for (calls = 0; calls <= len; calls++)
		{
			rc = iso_chunk_reader_next(&r);
			if (rc != 1)
				break;
			(*nread)++;
		}
		if (calls > len)
			rc = 2;				/* a loop: the test reports it */
	}
	*error = r.error;
	iso_chunk_reader_free(&r);
	free(c);
	return rc;
}


/* ---- 1. a chunk written out by hand ---- */

/*
 * Row 1: txn 5 (process 2, invoked 100, completed 150, ok) appends "1" to x.
 * Row 2: the same transaction reads x as the list ["1"]: its transaction
 *        fields are the same and are left out.
 * Row 3: txn 7 (process 3, invoked 90, no completion, info) writes "" to y:
 *        the differences are from row 1's fields, invoke_time's negative.
 */
static const uint8 hand_chunk[] = {
	/* header */
	'I', 'E',
	0x01,						/* version */
	0x06,						/* encoding 6 */
	0x03, 0x00, 0x00, 0x00,		/* nrows 3, little-endian */
	/* row 1 */
	0x0E,						/* op append (2) | txn fields 0x04 | value 0x08 */
	0x1C,						/* status ok (0) | process 0x04 | invoke 0x08 |
								 * complete 0x10 */
	0x0A,						/* txn_id 5 - 0 = 5, zigzag 10 */
	0x04,						/* process 2 - 0 = 2, zigzag 4 */
	0xC8, 0x01,					/* invoke 100 - 0, zigzag 200 = 0x48 | 1 << 7 */
	0xAC, 0x02,					/* complete 150 - 0, zigzag 300 = 0x2C | 2 << 7 */
	0x00,						/* pos 0 */
	0x01, 'x',					/* key "x" */
	0x01, '1',					/* value "1" */
	/* row 2 */
	0x20,						/* op read (0) | read_list 0x20, no txn fields */
	0x01,						/* pos 1 */
	0x01, 'x',					/* key "x" */
	0x01,						/* read_list: 1 element */
	0x01, '1',					/* "1" */
	/* row 3 */
	0x0D,						/* op write (1) | txn fields 0x04 | value 0x08 */
	0x0E,						/* status info (2) | process 0x04 | invoke 0x08 */
	0x04,						/* txn_id 7 - 5 = 2, zigzag 4 */
	0x02,						/* process 3 - 2 = 1, zigzag 2 */
	0x13,						/* invoke 90 - 100 = -10, zigzag 19 */
	0x00,						/* pos 0 */
	0x01, 'y',					/* key "y" */
	0x00						/* value "" (present, empty) */
};

static void
hand_rows(IsoEventRow rows[3], IsoSlice *list1)
{
	rows[0] = new_row(5, ISO_STATUS_OK, 0, ISO_OP_APPEND, "x");
	rows[0].has_process = rows[0].has_invoke_time = rows[0].has_complete_time = true;
	rows[0].process = 2;
	rows[0].invoke_time = 100;
	rows[0].complete_time = 150;
	rows[0].value = sl("1");

	rows[1] = rows[0];
	rows[1].pos = 1;
	rows[1].op = ISO_OP_READ;
	rows[1].value = nil_slice;
	*list1 = sl("1");
	rows[1].has_list = true;
	rows[1].list_len = 1;
	rows[1].list = list1;

	rows[2] = new_row(7, ISO_STATUS_INFO, 0, ISO_OP_WRITE, "y");
	rows[2].has_process = rows[2].has_invoke_time = true;
	rows[2].process = 3;
	rows[2].invoke_time = 90;
	rows[2].complete_time = 12345;	/* not present: never written */
	rows[2].value = sl("");
}

/* the writer's bytes against want, byte for byte */
static void
check_bytes(const char *what, const uint8 *data, size_t len, const uint8 *want,
			size_t want_len)
{
	bool		same = true;
	size_t		i;

	ok(len == want_len, "%s: %zu bytes (got %zu)", what, want_len, len);
	for (i = 0; i < Min(len, want_len); i++)
	{
		if (data[i] != want[i])
		{
			diag("byte %zu: got 0x%02X, expected 0x%02X", i, data[i], want[i]);
			same = false;
		}
	}
	ok(same && len == want_len, "%s: the writer's bytes, byte for byte", what);
}

static void
test_hand_chunk(void)
{
	IsoEventRow rows[3];
	IsoSlice	list1;
	IsoChunkWriter w;
	IsoChunkReader r;
	const uint8 *data;
	size_t		len;
	int			i;
	uint8		as_v2[sizeof(hand_chunk)];

	/* no key's list comes twice: version 2 writes them as version 1 did */
	memcpy(as_v2, hand_chunk, sizeof(hand_chunk));
	as_v2[2] = ISO_CHUNK_VERSION_2;
	hand_rows(rows, &list1);
	iso_chunk_writer_init(&w, 6);
	for (i = 0; i < 3; i++)
		iso_chunk_writer_add(&w, &rows[i]);
	data = iso_chunk_writer_data(&w, &len);
	check_bytes("hand chunk as version 2", data, len, as_v2, sizeof(as_v2));
	ok(w.first.txn_id == 5 && w.first.pos == 0 && w.last.txn_id == 7 &&
	   w.last.pos == 0 && w.ordered, "hand chunk: first (5,0), last (7,0), ordered");
	ok(!iso_chunk_writer_full(&w), "hand chunk: not full");
	iso_chunk_writer_free(&w);

	ok(iso_chunk_reader_init(&r, hand_chunk, sizeof(hand_chunk)),
	   "hand chunk: reader accepts the header");
	ok(r.nrows == 3 && r.encoding == 6, "hand chunk: 3 rows, encoding 6");
	for (i = 0; i < 3; i++)
	{
		int			rc = iso_chunk_reader_next(&r);

		ok(rc == 1 && row_eq(&r.row, &rows[i]), "hand chunk: row %d decodes as written", i + 1);
	}
	ok(r.row.value.ptr != NULL && r.row.value.len == 0,
	   "hand chunk: row 3's empty value is present, not NULL");
	ok(iso_chunk_reader_next(&r) == 0 && r.error == NULL, "hand chunk: then the end");
	ok(iso_chunk_reader_next(&r) == 0, "hand chunk: the end again");
	iso_chunk_reader_free(&r);

	ok(iso_chunk_reader_init(&r, as_v2, sizeof(as_v2)) && r.version == 2,
	   "hand chunk as version 2: reader accepts the header");
	for (i = 0; i < 3; i++)
	{
		int			rc = iso_chunk_reader_next(&r);

		ok(rc == 1 && row_eq(&r.row, &rows[i]),
		   "hand chunk as version 2: row %d decodes as written", i + 1);
	}
	ok(iso_chunk_reader_next(&r) == 0, "hand chunk as version 2: then the end");
	iso_chunk_reader_free(&r);
}

/*
 * Version 2 with list deltas.  One transaction (txn 5, process 2, invoked
 * 100, completed 150, ok) reads:
 * Row 1: x as ["1", "2"]: the first list of x, whole.
 * Row 2: y as ["a"]: another key, whole.
 * Row 3: x as ["1", "2", "3"]: a delta on row 1's list, keeping 2.
 * Row 4: x as ["1", "9"]: a delta on row 3's (not row 1's) list, keeping 1.
 * Row 5: x as []: nothing in common with row 4's list, whole.
 */
static const uint8 delta_chunk[] = {
	/* header */
	'I', 'E',
	0x02,						/* version 2 */
	0x06,						/* encoding 6 */
	0x05, 0x00, 0x00, 0x00,		/* nrows 5 */
	/* row 1 */
	0x24,						/* op read (0) | txn fields 0x04 | read_list 0x20 */
	0x1C,						/* status ok | process | invoke | complete */
	0x0A,						/* txn_id 5, zigzag 10 */
	0x04,						/* process 2, zigzag 4 */
	0xC8, 0x01,					/* invoke 100, zigzag 200 */
	0xAC, 0x02,					/* complete 150, zigzag 300 */
	0x00,						/* pos 0 */
	0x01, 'x',					/* key "x" */
	0x02,						/* read_list: 2 elements */
	0x01, '1',
	0x01, '2',
	/* row 2 */
	0x20,						/* op read | read_list, no txn fields */
	0x01,						/* pos 1 */
	0x01, 'y',					/* key "y" */
	0x01,						/* read_list: 1 element */
	0x01, 'a',
	/* row 3 */
	0x60,						/* op read | read_list 0x20 | list delta 0x40 */
	0x02,						/* pos 2 */
	0x01, 'x',					/* key "x" */
	0x02,						/* keep 2 of x's last list, ["1", "2"] */
	0x01,						/* then 1 element */
	0x01, '3',
	/* row 4 */
	0x60,						/* op read | read_list | list delta */
	0x03,						/* pos 3 */
	0x01, 'x',					/* key "x" */
	0x01,						/* keep 1 of ["1", "2", "3"] */
	0x01,						/* then 1 element */
	0x01, '9',
	/* row 5 */
	0x20,						/* op read | read_list: no common prefix */
	0x04,						/* pos 4 */
	0x01, 'x',					/* key "x" */
	0x00						/* read_list: 0 elements */
};

/* offsets in delta_chunk (damage tests) */
#define DELTA_ROW3			31
#define DELTA_ROW3_KEEP		(DELTA_ROW3 + 4)

static const IsoSlice delta_lists[5][3] = {
	{{"1", 1}, {"2", 1}},
	{{"a", 1}},
	{{"1", 1}, {"2", 1}, {"3", 1}},
	{{"1", 1}, {"9", 1}},
	{{NULL, 0}}
};
static const int32 delta_list_lens[5] = {2, 1, 3, 2, 0};
/* what the reader says each row kept (x: [1 2], y: [a], x: [1 2 3], [1 9], []) */
static const int32 delta_kept[5] = {0, 0, 2, 1, 0};

static void
delta_rows(IsoEventRow rows[5])
{
	int			i;

	for (i = 0; i < 5; i++)
	{
		rows[i] = new_row(5, ISO_STATUS_OK, i, ISO_OP_READ, i == 1 ? "y" : "x");
		rows[i].has_process = rows[i].has_invoke_time = rows[i].has_complete_time = true;
		rows[i].process = 2;
		rows[i].invoke_time = 100;
		rows[i].complete_time = 150;
		rows[i].has_list = true;
		rows[i].list_len = delta_list_lens[i];
		rows[i].list = delta_lists[i];
	}
}

static void
test_delta_chunk(void)
{
	IsoEventRow rows[5];
	IsoChunkWriter w;
	IsoChunkReader r;
	const uint8 *data;
	size_t		len;
	int			i;

	ok(delta_chunk[DELTA_ROW3] == 0x60 && delta_chunk[DELTA_ROW3_KEEP] == 0x02,
	   "delta chunk: the offsets the damage tests use");
	delta_rows(rows);
	iso_chunk_writer_init(&w, 6);
	for (i = 0; i < 5; i++)
		iso_chunk_writer_add(&w, &rows[i]);
	data = iso_chunk_writer_data(&w, &len);
	check_bytes("delta chunk", data, len, delta_chunk, sizeof(delta_chunk));
	iso_chunk_writer_free(&w);

	ok(iso_chunk_reader_init(&r, delta_chunk, sizeof(delta_chunk)) && r.nrows == 5 &&
	   r.version == 2, "delta chunk: reader accepts the header, 5 rows");
	for (i = 0; i < 5; i++)
	{
		int			rc = iso_chunk_reader_next(&r);

		ok(rc == 1 && row_eq(&r.row, &rows[i]), "delta chunk: row %d decodes as written", i + 1);
		ok(r.row.list_kept == delta_kept[i], "delta chunk: row %d keeps %d of its key's last list",
		   i + 1, delta_kept[i]);
		/* the kept elements are the bytes of row 1's list, in the chunk */
		if (i == 2)
			ok(r.row.list_len == 3 && r.row.list[0].ptr == (const char *) delta_chunk + 21 &&
			   r.row.list[2].ptr == (const char *) delta_chunk + 38,
			   "delta chunk: row 3's elements point into the chunk");
	}
	ok(iso_chunk_reader_next(&r) == 0 && r.error == NULL, "delta chunk: then the end");
	iso_chunk_reader_free(&r);

	/* skip_kept: the elements from list_kept on are there all the same */
	ok(iso_chunk_reader_init(&r, delta_chunk, sizeof(delta_chunk)), "delta chunk: init again");
	r.skip_kept = true;
	for (i = 0; i < 5; i++)
	{
		int			rc = iso_chunk_reader_next(&r);
		int32		j;
		bool		same = rc == 1 && r.row.list_len == delta_list_lens[i] &&
			r.row.list_kept == delta_kept[i];

		for (j = r.row.list_kept; same && j < r.row.list_len; j++)
			same = r.row.list[j].len == delta_lists[i][j].len &&
				memcmp(r.row.list[j].ptr, delta_lists[i][j].ptr, delta_lists[i][j].len) == 0;
		ok(same, "delta chunk, skip_kept: row %d's elements after the kept ones", i + 1);
	}
	iso_chunk_reader_free(&r);
}

static void
test_empty_chunk(void)
{
	IsoChunkWriter w;
	const uint8 *data;
	size_t		len;
	uint32		n;
	const char *err;
	static const uint8 want[] = {'I', 'E', 2, 0, 0, 0, 0, 0};

	iso_chunk_writer_init(&w, 0);
	data = iso_chunk_writer_data(&w, &len);
	ok(len == 8 && memcmp(data, want, 8) == 0, "empty chunk: the header alone");
	ok(w.ordered && w.nrows == 0, "empty chunk: ordered, 0 rows");
	ok(decode_all(data, len, &n, &err) == 0 && n == 0, "empty chunk: reads as no rows");
	iso_chunk_writer_free(&w);
}


/* ---- 2. a transaction's fields change between its rows ---- */

static void
test_txn_change(void)
{
	IsoEventRow rows[4];
	IsoChunkWriter w;
	IsoChunkReader r;
	const uint8 *data;
	size_t		len;
	size_t		off[4];
	int			i;
	bool		dec = true;

	rows[0] = new_row(9, ISO_STATUS_OK, 0, ISO_OP_WRITE, "k");
	rows[0].has_process = true;
	rows[0].process = 4;
	rows[0].value = sl("a");
	/* same transaction, another status */
	rows[1] = rows[0];
	rows[1].pos = 1;
	rows[1].status = ISO_STATUS_FAIL;
	/* same again, without its process */
	rows[2] = rows[1];
	rows[2].pos = 2;
	rows[2].has_process = false;
	rows[2].process = 999;		/* not present: not compared, not written */
	/* and the process back: the difference is from 4, the last written */
	rows[3] = rows[1];
	rows[3].pos = 3;
	rows[3].process = 6;

	iso_chunk_writer_init(&w, 6);
	for (i = 0; i < 4; i++)
	{
		off[i] = w.len;
		iso_chunk_writer_add(&w, &rows[i]);
	}
	data = iso_chunk_writer_data(&w, &len);
	ok(data[off[1]] == (ISO_OP_WRITE | 0x04 | 0x08) &&
	   data[off[1] + 1] == (ISO_STATUS_FAIL | 0x04),
	   "changed status: the row has transaction fields, status fail");
	ok(data[off[2]] & 0x04 && data[off[2] + 1] == ISO_STATUS_FAIL,
	   "process dropped: the row has transaction fields without process");
	ok(data[off[3]] & 0x04 && data[off[3] + 1] == (ISO_STATUS_FAIL | 0x04) &&
	   data[off[3] + 2] == 0x00 && data[off[3] + 3] == 0x04,
	   "process back: txn_id difference 0, process 6 - 4 = 2 (zigzag 4)");

	ok(iso_chunk_reader_init(&r, data, len), "changed status: reader init");
	for (i = 0; i < 4; i++)
	{
		if (iso_chunk_reader_next(&r) != 1 || !row_eq(&r.row, &rows[i]))
		{
			diag("row %d decodes differently", i);
			dec = false;
		}
	}
	ok(dec, "changed status: every row decodes as written");
	ok(iso_chunk_reader_next(&r) == 0, "changed status: then the end");
	iso_chunk_reader_free(&r);
	iso_chunk_writer_free(&w);
}


/* ---- 3. random rows ---- */

/* a row and the memory it owns */
typedef struct GenRow
{
	IsoEventRow row;
	char	   *strs[3];		/* key, value, read_value */
	char	  **elems;
	IsoSlice   *list;
} GenRow;

static const int64 special_ids[] = {
	INT64_MIN, INT64_MIN + 1, -1, 0, 1, INT64_MAX - 1, INT64_MAX
};

static int64
rnd_int64(void)
{
	switch (rnd_int(4))
	{
		case 0:
			return special_ids[rnd_int((int) (sizeof(special_ids) / sizeof(special_ids[0])))];
		case 1:
			return (int64) rnd_int(1000) - 500;
		case 2:
			{
				int			shift = rnd_int(64);

				return (int64) (rnd() >> shift);
			}
		default:
			return (int64) rnd();	/* any bits */
	}
}

/* a string of 0..maxlen bytes, any byte values (NUL and high bytes too) */
static IsoSlice
rnd_string(char **owned, int maxlen)
{
	IsoSlice	s;
	int32		n = rnd_int(maxlen + 1);
	int32		i;

	*owned = malloc((size_t) n + 1);
	for (i = 0; i < n; i++)
	{
		switch (rnd_int(4))
		{
			case 0:
				(*owned)[i] = 0;
				break;
			case 1:
				(*owned)[i] = (char) (0x80 + rnd_int(128));
				break;
			default:
				(*owned)[i] = (char) ('a' + rnd_int(26));
		}
	}
	s.ptr = *owned;
	s.len = n;
	return s;
}

static IsoSlice
rnd_opt_string(char **owned, int maxlen)
{
	*owned = NULL;
	if (chance(30))
		return nil_slice;
	return rnd_string(owned, maxlen);
}

/*
 * The next random row after prev (NULL at the first of a run): often the
 * same transaction, sometimes the same txn_id with other fields.  big: long
 * strings and lists, so that chunks end at ISO_CHUNK_MAX_BYTES.
 */
static void
gen_row(GenRow *g, const IsoEventRow *prev, bool big)
{
	IsoEventRow *r = &g->row;
	int			maxlen = big ? 300 : 6;
	int			die = rnd_int(100);
	int32		i;

	memset(g, 0, sizeof(*g));
	if (prev && die < 60)
	{
		*r = *prev;				/* the same transaction's next event */
		if (r->pos < PG_INT32_MAX)
			r->pos++;
	}
	else if (prev && die < 70)
	{
		*r = *prev;				/* same txn_id, a field differs */
		switch (rnd_int(4))
		{
			case 0:
				r->status = (IsoStatus) rnd_int(3);
				break;
			case 1:
				r->has_process = !r->has_process;
				r->process = rnd_int64();
				break;
			case 2:
				r->has_invoke_time = chance(50);
				r->invoke_time = rnd_int64();
				break;
			default:
				r->has_complete_time = chance(50);
				r->complete_time = rnd_int64();
		}
		r->pos = chance(10) ? PG_INT32_MAX : rnd_int(50);
	}
	else
	{
		r->txn_id = rnd_int64();
		r->status = (IsoStatus) rnd_int(3);
		r->has_process = chance(70);
		r->has_invoke_time = chance(70);
		r->has_complete_time = chance(60);
		r->process = rnd_int64();
		r->invoke_time = rnd_int64();
		r->complete_time = rnd_int64();
		r->pos = chance(5) ? PG_INT32_MAX : rnd_int(4);
	}
	r->op = (IsoOpKind) rnd_int(3);
	r->key = rnd_string(&g->strs[0], maxlen);
	r->value = rnd_opt_string(&g->strs[1], maxlen);
	r->read_value = rnd_opt_string(&g->strs[2], maxlen);
	r->has_list = chance(40);
	r->list_len = 0;
	r->list = NULL;
	if (r->has_list)
	{
		r->op = ISO_OP_READ;	/* only reads have lists */
		r->list_len = chance(20) ? 0 : rnd_int(big ? 51 : 4);
		g->elems = malloc(sizeof(char *) * (size_t) (r->list_len + 1));
		g->list = malloc(sizeof(IsoSlice) * (size_t) (r->list_len + 1));
		for (i = 0; i < r->list_len; i++)
			g->list[i] = rnd_string(&g->elems[i], maxlen / 3);
		r->list = g->list;
	}
}

static void
free_gen_row(GenRow *g)
{
	int32		i;

	for (i = 0; i < 3; i++)
		free(g->strs[i]);
	if (g->elems)
	{
		for (i = 0; i < g->row.list_len; i++)
			free(g->elems[i]);
	}
	free(g->elems);
	free(g->list);
}

typedef struct RoundTrip
{
	int			chunks;
	int			by_rows;		/* chunks closed at ISO_CHUNK_MAX_ROWS */
	int			by_bytes;		/* ... at ISO_CHUNK_MAX_BYTES */
	int64		rows;
	int			bad_rows;
	int			bad_keys;
	int			bad_ends;
	int			unordered;		/* chunks the test found unordered */
} RoundTrip;

/* read the writer's chunk back and compare with rows[0..n) */
static void
check_chunk(IsoChunkWriter *w, GenRow *rows, uint32 n, RoundTrip *rt)
{
	const uint8 *data;
	size_t		len;
	uint8	   *copy;
	IsoChunkReader r;
	IsoEventKey first = {0, 0},
				last = {0, 0};
	bool		ordered = true;
	uint32		i;

	/* first/last/ordered, independently of the writer */
	for (i = 0; i < n; i++)
	{
		IsoEventKey k;

		k.txn_id = rows[i].row.txn_id;
		k.pos = rows[i].row.pos;
		if (i == 0)
			first = k;
		else if (k.txn_id < last.txn_id ||
				 (k.txn_id == last.txn_id && k.pos <= last.pos))
			ordered = false;
		last = k;
	}
	if (!ordered)
		rt->unordered++;
	if (w->nrows != n || w->ordered != ordered ||
		(n > 0 && (iso_event_key_cmp(w->first, first) != 0 ||
				   iso_event_key_cmp(w->last, last) != 0)))
		rt->bad_keys++;

	data = iso_chunk_writer_data(w, &len);
	copy = exact_copy(data, len);
	if (!iso_chunk_reader_init(&r, copy, len) || r.nrows != n || r.encoding != 6)
	{
		rt->bad_ends++;
		free(copy);
		return;
	}
	for (i = 0; i < n; i++)
	{
		if (iso_chunk_reader_next(&r) != 1)
		{
			diag("chunk %d row %u: %s", rt->chunks, i, r.error ? r.error : "end");
			rt->bad_rows++;
			break;
		}
		if (!row_eq(&r.row, &rows[i].row))
		{
			if (rt->bad_rows++ < 5)
				diag("chunk %d row %u differs", rt->chunks, i);
		}
	}
	if (iso_chunk_reader_next(&r) != 0)
		rt->bad_ends++;
	iso_chunk_reader_free(&r);
	free(copy);
}

static void
test_round_trip(void)
{
	IsoChunkWriter w;
	GenRow	   *rows = malloc(sizeof(GenRow) * (ISO_CHUNK_MAX_ROWS + 1));
	RoundTrip	rt;
	int			c;

	memset(&rt, 0, sizeof(rt));
	rng_state = 20261127;
	iso_chunk_writer_init(&w, 6);
	/* small-row chunks end at the row limit, big-row ones at the byte limit */
	for (c = 0; c < 7; c++)
	{
		bool		big = (c % 2 == 1);
		bool		last = (c == 6);
		uint32		n = 0;
		uint32		i;

		while (!iso_chunk_writer_full(&w) && !(last && n == 500))
		{
			gen_row(&rows[n], n ? &rows[n - 1].row : NULL, big);
			iso_chunk_writer_add(&w, &rows[n].row);
			n++;
		}
		if (w.nrows >= ISO_CHUNK_MAX_ROWS)
			rt.by_rows++;
		else if (w.len >= ISO_CHUNK_MAX_BYTES)
			rt.by_bytes++;
		check_chunk(&w, rows, n, &rt);
		rt.chunks++;
		rt.rows += n;
		for (i = 0; i < n; i++)
			free_gen_row(&rows[i]);
		iso_chunk_writer_reset(&w);
	}

	/* an ordered run: one transaction after another, positions rising */
	{
		uint32		n = 300;
		uint32		i;

		for (i = 0; i < n; i++)
		{
			gen_row(&rows[i], i ? &rows[i - 1].row : NULL, false);
			rows[i].row.txn_id = 1000 + (int64) (i / 7);
			rows[i].row.pos = (int32) (i % 7);
			iso_chunk_writer_add(&w, &rows[i].row);
		}
		check_chunk(&w, rows, n, &rt);
		ok(w.ordered, "random: a chunk in (txn_id, pos) order is ordered");
		for (i = 0; i < n; i++)
			free_gen_row(&rows[i]);
	}

	diag("random: %d chunks, %lld rows, %d closed by rows, %d by bytes",
		 rt.chunks, (long long) rt.rows, rt.by_rows, rt.by_bytes);
	ok(rt.by_rows >= 3 && rt.by_bytes >= 3,
	   "random: chunks closed by the row limit (%d) and the byte limit (%d)",
	   rt.by_rows, rt.by_bytes);
	ok(rt.unordered >= 7, "random: the random chunks are unordered (%d)", rt.unordered);
	ok(rt.bad_rows == 0, "random: every row decodes as added (%d differ)", rt.bad_rows);
	ok(rt.bad_keys == 0, "random: nrows, first, last and ordered as computed (%d differ)",
	   rt.bad_keys);
	ok(rt.bad_ends == 0, "random: every chunk's header and end read (%d bad)", rt.bad_ends);
	iso_chunk_writer_free(&w);
	free(rows);
}


/* ---- 4. list reads that follow the read before of their key ---- */

/* keys that differ only after a NUL byte, an empty key, a long one */
static const IsoSlice list_keys[] = {
	{"x", 1}, {"", 0}, {"k\0a", 3}, {"k\0b", 3}, {"a longer key of a test", 22}, {"y", 1}
};
#define NLIST_KEYS	((int) (sizeof(list_keys) / sizeof(list_keys[0])))

static void
drop_list(GenRow *g)
{
	int32		i;

	if (g->elems)
	{
		for (i = 0; i < g->row.list_len; i++)
			free(g->elems[i]);
	}
	free(g->elems);
	free(g->list);
	g->elems = NULL;
	g->list = NULL;
	g->row.has_list = false;
	g->row.list_len = 0;
	g->row.list = NULL;
}

/*
 * g's list made from base (the key's last list, base_len elements): the
 * same extended, shortened, diverging after a prefix, repeated, empty or
 * new.  New elements are short, often empty or with NUL bytes.
 */
static void
set_list(GenRow *g, const IsoSlice *base, int32 base_len)
{
	int32		keep;
	int32		extra;
	int32		n;
	int32		i;

	switch (rnd_int(6))
	{
		case 0:					/* extended */
			keep = base_len;
			extra = 1 + rnd_int(3);
			break;
		case 1:					/* shortened */
			keep = base_len ? rnd_int(base_len) : 0;
			extra = 0;
			break;
		case 2:					/* diverging after a prefix */
			keep = rnd_int(base_len + 1);
			extra = 1 + rnd_int(3);
			break;
		case 3:					/* repeated */
			keep = base_len;
			extra = 0;
			break;
		case 4:					/* empty */
			keep = 0;
			extra = 0;
			break;
		default:				/* new */
			keep = 0;
			extra = rnd_int(5);
	}
	n = keep + extra;
	g->elems = malloc(sizeof(char *) * (size_t) (n + 1));
	g->list = malloc(sizeof(IsoSlice) * (size_t) (n + 1));
	for (i = 0; i < keep; i++)
	{
		g->elems[i] = malloc((size_t) base[i].len + 1);
		memcpy(g->elems[i], base[i].ptr, (size_t) base[i].len);
		g->list[i].ptr = g->elems[i];
		g->list[i].len = base[i].len;
	}
	for (i = keep; i < n; i++)
		g->list[i] = rnd_string(&g->elems[i], 3);
	g->row.has_list = true;
	g->row.list_len = n;
	g->row.list = g->list;
}

/*
 * The next row of a run of a few keys: most rows read one of them, each
 * read made from that key's last read in the run (last[k], -1 for none).
 */
static void
gen_list_row(GenRow *rows, uint32 i, int32 *last)
{
	GenRow	   *g = &rows[i];
	int			k = rnd_int(NLIST_KEYS);

	gen_row(g, i ? &rows[i - 1].row : NULL, false);
	drop_list(g);
	free(g->strs[0]);
	g->strs[0] = malloc((size_t) list_keys[k].len + 1);
	memcpy(g->strs[0], list_keys[k].ptr, (size_t) list_keys[k].len);
	g->row.key.ptr = g->strs[0];
	g->row.key.len = list_keys[k].len;
	if (chance(15))
		return;					/* no list */
	g->row.op = ISO_OP_READ;
	if (last[k] >= 0)
		set_list(g, rows[last[k]].row.list, rows[last[k]].row.list_len);
	else
		set_list(g, NULL, 0);
	last[k] = (int32) i;
}

/*
 * Add row through a copy of its key and list that is overwritten and
 * freed right after: the writer must keep nothing of its input.
 */
static void
add_transient(IsoChunkWriter *w, const IsoEventRow *row)
{
	IsoEventRow t = *row;
	char	   *key = malloc((size_t) row->key.len + 1);
	IsoSlice   *list = malloc(sizeof(IsoSlice) * (size_t) (row->list_len + 1));
	char	  **elems = malloc(sizeof(char *) * (size_t) (row->list_len + 1));
	int32		i;

	memcpy(key, row->key.ptr, (size_t) row->key.len);
	t.key.ptr = key;
	for (i = 0; row->has_list && i < row->list_len; i++)
	{
		elems[i] = malloc((size_t) row->list[i].len + 1);
		memcpy(elems[i], row->list[i].ptr, (size_t) row->list[i].len);
		list[i].ptr = elems[i];
		list[i].len = row->list[i].len;
	}
	t.list = row->has_list ? list : NULL;
	iso_chunk_writer_add(w, &t);
	memset(key, 0x5A, (size_t) row->key.len + 1);
	free(key);
	for (i = 0; row->has_list && i < row->list_len; i++)
	{
		memset(elems[i], 0x5A, (size_t) row->list[i].len + 1);
		free(elems[i]);
	}
	free(elems);
	free(list);
}

/* the bytes of rows[0..n) packed by a new writer equal data[0..len) */
static bool
same_as_new_writer(const GenRow *rows, uint32 n, const uint8 *data, size_t len)
{
	IsoChunkWriter w;
	const uint8 *d;
	size_t		l;
	uint32		i;
	bool		same;

	iso_chunk_writer_init(&w, 6);
	for (i = 0; i < n; i++)
		iso_chunk_writer_add(&w, &rows[i].row);
	d = iso_chunk_writer_data(&w, &l);
	same = l == len && memcmp(d, data, len) == 0;
	iso_chunk_writer_free(&w);
	return same;
}

static void
test_list_round_trip(void)
{
	IsoChunkWriter w;
	GenRow	   *rows = malloc(sizeof(GenRow) * 2000);
	RoundTrip	rt;
	int			c;
	int64		delta_rows = 0;
	int64		list_rows = 0;
	int			differ = 0;

	memset(&rt, 0, sizeof(rt));
	rng_state = 20261128;
	/* one writer for every chunk: each after a reset */
	iso_chunk_writer_init(&w, 6);
	for (c = 0; c < 60; c++)
	{
		uint32		n = 1 + (uint32) rnd_int(c < 55 ? 200 : 2000);
		int32		last[NLIST_KEYS];
		uint32		i;
		const uint8 *data;
		size_t		len;

		for (i = 0; i < (uint32) NLIST_KEYS; i++)
			last[i] = -1;
		for (i = 0; i < n; i++)
		{
			size_t		off = w.len;

			gen_list_row(rows, i, last);
			add_transient(&w, &rows[i].row);
			if (rows[i].row.has_list)
				list_rows++;
			if (w.buf[off] & 0x40)
				delta_rows++;
		}
		check_chunk(&w, rows, n, &rt);
		data = iso_chunk_writer_data(&w, &len);
		if (!same_as_new_writer(rows, n, data, len))
			differ++;
		rt.chunks++;
		rt.rows += n;
		for (i = 0; i < n; i++)
			free_gen_row(&rows[i]);
		iso_chunk_writer_reset(&w);
	}
	diag("lists: %d chunks, %lld rows, %lld with a list, %lld of them deltas",
		 rt.chunks, (long long) rt.rows, (long long) list_rows, (long long) delta_rows);
	/* a third of the lists are empty, new or diverge at once */
	ok(delta_rows > list_rows / 5, "lists: many lists are deltas (%lld of %lld)",
	   (long long) delta_rows, (long long) list_rows);
	ok(rt.bad_rows == 0, "lists: every row decodes as added (%d differ)", rt.bad_rows);
	ok(rt.bad_keys == 0 && rt.bad_ends == 0, "lists: nrows, keys and ends as computed");
	ok(differ == 0,
	   "lists: a reused writer's chunks are byte for byte a new writer's (%d differ)",
	   differ);
	iso_chunk_writer_free(&w);
	free(rows);
}

/* a chunk after a reset owes nothing to the chunk before */
static void
test_list_reset(void)
{
	static const IsoSlice l2[] = {{"1", 1}, {"2", 1}};
	static const IsoSlice l3[] = {{"1", 1}, {"2", 1}, {"3", 1}};
	IsoEventRow a = new_row(1, ISO_STATUS_OK, 0, ISO_OP_READ, "x");
	IsoEventRow b = new_row(2, ISO_STATUS_OK, 0, ISO_OP_READ, "x");
	IsoChunkWriter w;
	const uint8 *data;
	size_t		len;
	size_t		off;
	uint32		n;
	const char *err;

	a.has_list = b.has_list = true;
	a.list = l2;
	a.list_len = 2;
	b.list = l3;
	b.list_len = 3;
	iso_chunk_writer_init(&w, 6);
	iso_chunk_writer_add(&w, &a);
	off = w.len;
	iso_chunk_writer_add(&w, &b);
	data = iso_chunk_writer_data(&w, &len);
	ok(data[ISO_CHUNK_HEADER_SIZE] == 0x24 && data[off] == 0x64,
	   "reset: in one chunk, the second read of x is a delta");
	iso_chunk_writer_reset(&w);
	iso_chunk_writer_add(&w, &b);
	data = iso_chunk_writer_data(&w, &len);
	ok(data[ISO_CHUNK_HEADER_SIZE] == 0x24, "reset: in the next chunk, it is written whole");
	ok(decode_all(data, len, &n, &err) == 0 && n == 1, "reset: the next chunk reads alone");
	iso_chunk_writer_free(&w);
}

/*
 * A list-append-like sequence: 20 keys, 5000 reads, each 1 to 3 elements
 * longer than the key's read before.  Written whole, the elements alone
 * would take sum(1 + length) bytes; with deltas the whole chunk must be at
 * least 3 times smaller.
 */
static void
test_list_append_size(void)
{
	ListAppend	la;
	IsoChunkWriter w;
	const uint8 *data;
	size_t		len;
	uint64		whole = 0;
	int			i;
	int32		j;
	uint32		n;
	const char *err;

	rng_state = 42;
	list_append_init(&la, 20, 5000);
	iso_chunk_writer_init(&w, 6);
	for (i = 0; i < 5000; i++)
	{
		const IsoEventRow *row = list_append_next(&la, i + 1);

		for (j = 0; j < row->list_len; j++)
			whole += 1 + (uint64) row->list[j].len;
		iso_chunk_writer_add(&w, row);
	}
	data = iso_chunk_writer_data(&w, &len);
	diag("list-append: %zu bytes with deltas, %llu in the lists' elements alone without",
		 len, (unsigned long long) whole);
	ok((uint64) len * 3 <= whole, "list-append: at least 3 times smaller with deltas");
	ok(decode_all(data, len, &n, &err) == 0 && n == 5000, "list-append: reads back");
	iso_chunk_writer_free(&w);
	list_append_free(&la);
}


/* ---- 5. damage ---- */

static bool
lower_case_text(const char *s)
{
	if (s == NULL || *s == '\0')
		return false;
	for (; *s; s++)
	{
		if (*s >= 'A' && *s <= 'Z')
			return false;
	}
	return true;
}

/* every prefix fails; every one-byte change ends (rows or -1) */
static void
damage_everywhere(const char *what, const uint8 *data, size_t len, bool all_masks)
{
	size_t		cut;
	size_t		off;
	int			truncated_ok = 0;
	int			loops = 0;
	int			bad_text = 0;
	int			changes = 0;
	int			rejected = 0;
	uint32		n;
	const char *err;

	for (cut = 0; cut < len; cut++)
	{
		int			rc = decode_all(data, cut, &n, &err);

		if (rc == -1)
			truncated_ok++;
		if (rc == -1 && !lower_case_text(err))
			bad_text++;
	}
	ok(truncated_ok == (int) len, "%s: every one of %zu truncations is damage (%d)",
	   what, len, truncated_ok);

	for (off = 0; off < len; off++)
	{
		int			m;

		for (m = 1; m < 256; m++)
		{
			uint8	   *c;
			int			rc;

			if (!all_masks && m != 0x01 && m != 0x80 && m != 0xFF && m != 0x7F)
				continue;
			c = exact_copy(data, len);
			c[off] ^= (uint8) m;
			rc = decode_all(c, len, &n, &err);
			changes++;
			if (rc == 2)
				loops++;
			if (rc == -1)
			{
				rejected++;
				if (!lower_case_text(err))
					bad_text++;
			}
			free(c);
		}
	}
	diag("%s: %d one-byte changes, %d found damaged", what, changes, rejected);
	ok(loops == 0, "%s: no one-byte change makes the reader loop", what);
	ok(bad_text == 0, "%s: every damage has a lower-case message", what);
}

/* -1 with error containing want, after nrows_first good rows */
static void
check_damage(const char *what, const uint8 *data, size_t len, uint32 want_rows,
			 const char *want)
{
	uint32		n;
	const char *err;
	int			rc = decode_all(data, len, &n, &err);

	if (!ok(rc == -1 && n == want_rows && err && strstr(err, want),
			"%s: damaged after %u rows: %s", what, want_rows, want))
		diag("rc %d, %u rows, error %s", rc, n, err ? err : "(none)");
}

static void
test_damage(void)
{
	uint8		buf[64];
	size_t		n = sizeof(hand_chunk);
	uint32		rows;
	const char *err;
	IsoChunkReader r;
	bool		inited;

	damage_everywhere("hand chunk", hand_chunk, n, true);
	damage_everywhere("delta chunk", delta_chunk, sizeof(delta_chunk), true);

	/* a bigger chunk: 60 random rows */
	{
		GenRow		g[60];
		IsoChunkWriter w;
		const uint8 *data;
		size_t		len;
		int			i;

		rng_state = 7;
		iso_chunk_writer_init(&w, 6);
		for (i = 0; i < 60; i++)
		{
			gen_row(&g[i], i ? &g[i - 1].row : NULL, false);
			iso_chunk_writer_add(&w, &g[i].row);
		}
		data = iso_chunk_writer_data(&w, &len);
		ok(decode_all(data, len, &rows, &err) == 0 && rows == 60,
		   "60 random rows: read back whole");
		damage_everywhere("60 random rows", data, len, false);
		for (i = 0; i < 60; i++)
			free_gen_row(&g[i]);
		iso_chunk_writer_free(&w);
	}

	/* 80 rows of list reads, many of them deltas */
	{
		GenRow		g[80];
		int32		last[NLIST_KEYS];
		IsoChunkWriter w;
		const uint8 *data;
		size_t		len;
		int			i;
		int			deltas = 0;

		rng_state = 8;
		for (i = 0; i < NLIST_KEYS; i++)
			last[i] = -1;
		iso_chunk_writer_init(&w, 6);
		for (i = 0; i < 80; i++)
		{
			size_t		off = w.len;

			gen_list_row(g, (uint32) i, last);
			iso_chunk_writer_add(&w, &g[i].row);
			deltas += (w.buf[off] & 0x40) != 0;
		}
		data = iso_chunk_writer_data(&w, &len);
		ok(decode_all(data, len, &rows, &err) == 0 && rows == 80 && deltas >= 10,
		   "80 list rows: read back whole (%d deltas)", deltas);
		damage_everywhere("80 list rows", data, len, false);
		for (i = 0; i < 80; i++)
			free_gen_row(&g[i]);
		iso_chunk_writer_free(&w);
	}

	/* list deltas that refer to what is not there */
	n = sizeof(delta_chunk);
	memcpy(buf, delta_chunk, n);
	buf[DELTA_ROW3_KEEP] = 3;
	check_damage("a delta keeping 3 of 2 elements", buf, n, 2,
				 "a list delta keeps more elements than the key's last list has");
	memcpy(buf, delta_chunk, n);
	buf[DELTA_ROW3 + 3] = 'z';
	check_damage("a delta for a key with no list before", buf, n, 2,
				 "a list delta for a key with no list before it in the chunk");
	memcpy(buf, delta_chunk, n);
	buf[DELTA_ROW3 + 3] = 'y';
	check_damage("a delta keeping 2 of y's 1 element", buf, n, 2,
				 "a list delta keeps more elements than the key's last list has");
	/* a list on a row that is not a read (an append, a write) */
	memcpy(buf, delta_chunk, n);
	buf[DELTA_ROW3] = 0x62;
	check_damage("an append with a list", buf, n, 2, "a row that is not a read has a list");
	buf[DELTA_ROW3] = 0x61;
	check_damage("a write with a list", buf, n, 2, "a row that is not a read has a list");
	/* row 4 keeps 1 of x's last list: as row 3 was cut to ["1"], still fine */
	memcpy(buf, delta_chunk, n);
	buf[DELTA_ROW3_KEEP] = 1;
	ok(iso_chunk_reader_init(&r, buf, n) && iso_chunk_reader_next(&r) == 1 &&
	   iso_chunk_reader_next(&r) == 1 && iso_chunk_reader_next(&r) == 1 &&
	   r.row.list_len == 2 && r.row.list[1].ptr[0] == '3' &&
	   iso_chunk_reader_next(&r) == 1 && r.row.list_len == 2 &&
	   r.row.list[0].ptr[0] == '1' && r.row.list[1].ptr[0] == '9',
	   "a delta keeping 1: the list and the next delta follow it");
	iso_chunk_reader_free(&r);
	n = sizeof(hand_chunk);

	/* init before ok(): its arguments are evaluated in no set order */
	memcpy(buf, hand_chunk, n);
	buf[1] = 'F';
	inited = iso_chunk_reader_init(&r, buf, n);
	ok(!inited && r.error && strstr(r.error, "magic"),
	   "wrong magic: init fails (%s)", r.error ? r.error : "");
	iso_chunk_reader_free(&r);

	memcpy(buf, hand_chunk, n);
	buf[2] = 3;
	inited = iso_chunk_reader_init(&r, buf, n);
	ok(!inited && r.error && strstr(r.error, "version"),
	   "wrong version: init fails (%s)", r.error ? r.error : "");
	iso_chunk_reader_free(&r);

	inited = iso_chunk_reader_init(&r, hand_chunk, 7);
	ok(!inited && r.error != NULL, "7 bytes: init fails (%s)", r.error ? r.error : "");
	iso_chunk_reader_free(&r);

	memcpy(buf, hand_chunk, n);
	buf[4] = 4;
	check_damage("nrows 4 of 3", buf, n, 3, "a row runs past the end of the chunk");

	memcpy(buf, hand_chunk, n);
	buf[n] = 0;
	check_damage("a trailing byte", buf, n + 1, 3, "bytes follow the last row");

	memcpy(buf, hand_chunk, n);
	buf[4] = 2;
	check_damage("nrows 2 of 3", buf, n, 2, "bytes follow the last row");

	/* the reader stays damaged */
	memcpy(buf, hand_chunk, n);
	buf[n] = 0;
	if (iso_chunk_reader_init(&r, buf, n + 1))
	{
		while (iso_chunk_reader_next(&r) == 1)
			;
		ok(iso_chunk_reader_next(&r) == -1 && iso_chunk_reader_next(&r) == -1,
		   "damaged: next keeps returning -1");
	}
	iso_chunk_reader_free(&r);

	/* hand-made one-row chunks: header with nrows 1, then the row */
#define ONE_ROW(...) \
	do { \
		static const uint8 row_[] = {'I', 'E', 1, 6, 1, 0, 0, 0, __VA_ARGS__}; \
		memcpy(buf, row_, sizeof(row_)); \
		n = sizeof(row_); \
	} while (0)

	/* flags: read with txn fields; tflags 0; txn_id 1 (zigzag 2) */
	ONE_ROW(0x04, 0x00, 0x02, 0x00, 0x01, 'k');
	ok(decode_all(buf, n, &rows, &err) == 0 && rows == 1, "one-row chunk: valid as built");

	ONE_ROW(0x04, 0x00, 0x02, 0x00, 0x05, 'k', 'e');
	check_damage("key length 5 of 2 bytes", buf, n, 0,
				 "a length runs past the end of the chunk");

	ONE_ROW(0x04, 0x00, 0x02, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
			0x00, 0x01, 'k');
	check_damage("pos a varint of 11 bytes", buf, n, 0, "longer than 64 bits");

	ONE_ROW(0x04, 0x00, 0x02, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02,
			0x01, 'k');
	check_damage("pos a varint of 10 bytes above 64 bits", buf, n, 0, "longer than 64 bits");

	/* txn_id zigzag 2^64 - 1 in 10 bytes: -2^63 - 0 */
	ONE_ROW(0x04, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,
			0x00, 0x01, 'k');
	ok(iso_chunk_reader_init(&r, buf, n) && iso_chunk_reader_next(&r) == 1 &&
	   r.row.txn_id == INT64_MIN, "txn_id a varint of 10 bytes: INT64_MIN");
	iso_chunk_reader_free(&r);

	ONE_ROW(0x00, 0x00, 0x01, 'k');
	check_damage("first row without transaction fields", buf, n, 0,
				 "the first row of the chunk has no transaction fields");

	ONE_ROW(0x07, 0x00, 0x02, 0x00, 0x01, 'k');
	check_damage("op 3", buf, n, 0, "unknown operation");

	ONE_ROW(0x04, 0x03, 0x02, 0x00, 0x01, 'k');
	check_damage("status 3", buf, n, 0, "unknown status");

	ONE_ROW(0x44, 0x00, 0x02, 0x00, 0x01, 'k');
	check_damage("flag bit 6", buf, n, 0, "unknown flags");

	/* version 1 has no list deltas */
	ONE_ROW(0x64, 0x00, 0x02, 0x00, 0x01, 'k', 0x00, 0x00);
	check_damage("version 1, a list delta", buf, n, 0, "unknown flags");

	ONE_ROW(0x04, 0x00, 0x02, 0x80, 0x80, 0x80, 0x80, 0x08, 0x01, 'k');
	check_damage("pos 2^31", buf, n, 0, "position is out of range");

	/* a list of 2^40 elements: refused before any allocation */
	ONE_ROW(0x24, 0x00, 0x02, 0x00, 0x01, 'k', 0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 0x01, 'a');
	check_damage("a list of 2^40 elements", buf, n, 0, "a list runs past the end");

	ONE_ROW(0x24, 0x00, 0x02, 0x00, 0x01, 'k', 0x03, 0x01, 'a', 0x00);
	check_damage("a list of 3 with 2 elements", buf, n, 0,
				 "a number runs past the end of the chunk");
#undef ONE_ROW

	/* hand-made version 2 chunks: header with nrows, then the rows */
#define ROWS_V2(nrows, ...) \
	do { \
		static const uint8 rows_[] = {'I', 'E', 2, 6, nrows, 0, 0, 0, __VA_ARGS__}; \
		memcpy(buf, rows_, sizeof(rows_)); \
		n = sizeof(rows_); \
	} while (0)

	/* row 1: k read as [], with txn fields; row 2: a delta on it */
	ROWS_V2(2, 0x24, 0x00, 0x02, 0x00, 0x01, 'k', 0x00,
			0x60, 0x01, 0x01, 'k', 0x00, 0x01, 0x01, 'a');
	ok(decode_all(buf, n, &rows, &err) == 0 && rows == 2,
	   "version 2, a delta keeping 0: valid as built");

	ROWS_V2(1, 0x84, 0x00, 0x02, 0x00, 0x01, 'k');
	check_damage("version 2, flag bit 7", buf, n, 0, "unknown flags");

	ROWS_V2(1, 0x44, 0x00, 0x02, 0x00, 0x01, 'k');
	check_damage("version 2, a delta without a list", buf, n, 0,
				 "a row has a list delta but no list");

	ROWS_V2(1, 0x64, 0x00, 0x02, 0x00, 0x01, 'k', 0x00, 0x00);
	check_damage("version 2, a delta in the first row", buf, n, 0,
				 "a list delta for a key with no list before it in the chunk");

	/* a delta on another key's list: "k" then "K" */
	ROWS_V2(2, 0x24, 0x00, 0x02, 0x00, 0x01, 'k', 0x01, 0x01, 'a',
			0x60, 0x01, 0x01, 'K', 0x01, 0x00);
	check_damage("version 2, a delta on another key", buf, n, 1,
				 "a list delta for a key with no list before it in the chunk");

	/* 2^40 elements kept, or added: refused before any allocation */
	ROWS_V2(2, 0x24, 0x00, 0x02, 0x00, 0x01, 'k', 0x00,
			0x60, 0x01, 0x01, 'k', 0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 0x00);
	check_damage("version 2, a delta keeping 2^40", buf, n, 1,
				 "a list delta keeps more elements than the key's last list has");
	ROWS_V2(2, 0x24, 0x00, 0x02, 0x00, 0x01, 'k', 0x01, 0x01, 'a',
			0x60, 0x01, 0x01, 'k', 0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 0x01, 'b');
	check_damage("version 2, a delta adding 2^40", buf, n, 1, "a list runs past the end");
	ROWS_V2(2, 0x24, 0x00, 0x02, 0x00, 0x01, 'k', 0x01, 0x01, 'a',
			0x60, 0x01, 0x01, 'k', 0x01, 0x02, 0x01, 'b');
	check_damage("version 2, a delta adding 2 with 1 there", buf, n, 1,
				 "a number runs past the end of the chunk");
#undef ROWS_V2
}

/*
 * The bound on the elements deltas keep (ISO_CHUNK_MAX_KEPT): a read of
 * 4096 empty elements repeated.  The writer says full at the row that
 * reaches the bound, long before the rows or bytes would; a chunk written
 * past it (a writer whose full is ignored) is refused by the reader.
 */
static void
test_kept_bound(void)
{
	IsoChunkWriter w;
	IsoEventRow row = new_row(1, ISO_STATUS_OK, 0, ISO_OP_READ, "k");
	IsoSlice   *list = malloc(sizeof(IsoSlice) * 4096);
	uint32		per_chunk = (uint32) (ISO_CHUNK_MAX_KEPT / 4096);	/* 1024 */
	uint32		full_at = 0;
	uint32		i,
				nread;
	const uint8 *data;
	size_t		len;
	const char *error;
	int			rc;

	for (i = 0; i < 4096; i++)
		list[i] = sl("");
	row.has_list = true;
	row.list = list;
	row.list_len = 4096;
	iso_chunk_writer_init(&w, 6);
	for (i = 0; i <= per_chunk + 1 && full_at == 0; i++)
	{
		row.txn_id = i + 1;
		iso_chunk_writer_add(&w, &row);
		if (iso_chunk_writer_full(&w))
			full_at = i + 1;
	}
	data = iso_chunk_writer_data(&w, &len);
	/* row 1 is whole; rows 2.. keep 4096 each: full once 1024 of them did */
	ok(full_at == per_chunk + 1 && len < ISO_CHUNK_MAX_BYTES / 8,
	   "the writer is full after %u rows (want %u), at %zu bytes, when deltas kept 2^22 elements",
	   full_at, per_chunk + 1, len);
	rc = decode_all(data, len, &nread, &error);
	ok(rc == 0 && nread == full_at, "that chunk reads back: %u rows (rc %d%s%s)", nread, rc,
	   error ? ", " : "", error ? error : "");

	/* ignore full: past the bound by more than the chunk's length */
	for (i = full_at; i < full_at + 64; i++)
	{
		row.txn_id = i + 1;
		iso_chunk_writer_add(&w, &row);
	}
	data = iso_chunk_writer_data(&w, &len);
	rc = decode_all(data, len, &nread, &error);
	ok(rc == -1 && error != NULL &&
	   strcmp(error, "its list deltas keep more elements than a chunk may") == 0,
	   "a chunk whose deltas keep more than 2^22 elements plus its length is refused after %u rows (%s)",
	   nread, error ? error : "no error");
	iso_chunk_writer_free(&w);
	free(list);
}

int
main(void)
{
	test_hand_chunk();
	test_delta_chunk();
	test_empty_chunk();
	test_txn_change();
	test_round_trip();
	test_list_round_trip();
	test_list_reset();
	test_list_append_size();
	test_kept_bound();
	test_damage();
	return tap_done();
}
