/*
 * test_event_chunk.c
 *	  Event chunks (src/core/event_chunk.c), standalone, TAP output.
 *
 *	  - a 3-row chunk whose bytes are written out by hand below, compared
 *		byte for byte with the writer's and decoded back;
 *	  - a row whose transaction fields disagree with the row before of the
 *		same transaction is written with its own fields;
 *	  - random rows (extreme ids and times, NULL and empty strings, NUL and
 *		high bytes, lists of 0..50 elements) packed into chunks closed by
 *		iso_chunk_writer_full, read back and compared with what was added,
 *		first/last/ordered with what the test computes itself;
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
	bool		same = true;

	hand_rows(rows, &list1);
	iso_chunk_writer_init(&w, 6);
	for (i = 0; i < 3; i++)
		iso_chunk_writer_add(&w, &rows[i]);
	data = iso_chunk_writer_data(&w, &len);

	ok(len == sizeof(hand_chunk), "hand chunk: %zu bytes (got %zu)",
	   sizeof(hand_chunk), len);
	for (i = 0; i < (int) Min(len, sizeof(hand_chunk)); i++)
	{
		if (data[i] != hand_chunk[i])
		{
			diag("byte %d: got 0x%02X, expected 0x%02X", i, data[i], hand_chunk[i]);
			same = false;
		}
	}
	ok(same && len == sizeof(hand_chunk), "hand chunk: the writer's bytes, byte for byte");
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
}

static void
test_empty_chunk(void)
{
	IsoChunkWriter w;
	const uint8 *data;
	size_t		len;
	uint32		n;
	const char *err;
	static const uint8 want[] = {'I', 'E', 1, 0, 0, 0, 0, 0};

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


/* ---- 4. damage ---- */

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

	/* init before ok(): its arguments are evaluated in no set order */
	memcpy(buf, hand_chunk, n);
	buf[1] = 'F';
	inited = iso_chunk_reader_init(&r, buf, n);
	ok(!inited && r.error && strstr(r.error, "magic"),
	   "wrong magic: init fails (%s)", r.error ? r.error : "");
	iso_chunk_reader_free(&r);

	memcpy(buf, hand_chunk, n);
	buf[2] = 2;
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

	ONE_ROW(0x04, 0x00, 0x02, 0x80, 0x80, 0x80, 0x80, 0x08, 0x01, 'k');
	check_damage("pos 2^31", buf, n, 0, "position is out of range");

	/* a list of 2^40 elements: refused before any allocation */
	ONE_ROW(0x24, 0x00, 0x02, 0x00, 0x01, 'k', 0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 0x01, 'a');
	check_damage("a list of 2^40 elements", buf, n, 0, "a list runs past the end");

	ONE_ROW(0x24, 0x00, 0x02, 0x00, 0x01, 'k', 0x03, 0x01, 'a', 0x00);
	check_damage("a list of 3 with 2 elements", buf, n, 0,
				 "a number runs past the end of the chunk");
#undef ONE_ROW
}

int
main(void)
{
	test_hand_chunk();
	test_empty_chunk();
	test_txn_change();
	test_round_trip();
	test_damage();
	return tap_done();
}
