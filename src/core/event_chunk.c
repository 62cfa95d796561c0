/*
 * event_chunk.c
 *	  Packing and unpacking of event chunks (see event_chunk.h for the
 *	  byte format).
 *
 * The differences in the transaction fields are taken from the last value
 * written of the same field in this chunk, whether or not the transaction
 * fields written last had that field: the writer keeps those values in
 * w->txn and the reader in r->row, so a row's process, invoke_time and
 * complete_time mean something only when its has_ flag says so.
 *
 * Differences are computed in uint64 and wrap: INT64_MIN - INT64_MAX is a
 * valid difference, and adding it back in uint64 gives the value again.
 */
#include "event_chunk.h"

#define CHUNK_INITIAL_CAP	4096
/* a uint64 takes at most 10 bytes of 7 bits */
#define VARINT_MAX_BYTES	10

/* row flags */
#define RF_OP_MASK		0x03
#define RF_TXN			0x04
#define RF_VALUE		0x08
#define RF_READ_VALUE	0x10
#define RF_READ_LIST	0x20
#define RF_KNOWN		0x3F

/* transaction flags */
#define TF_STATUS_MASK	0x03
#define TF_PROCESS		0x04
#define TF_INVOKE		0x08
#define TF_COMPLETE		0x10
#define TF_KNOWN		0x1F


/* ---- integers ---- */

static inline uint64
zigzag(uint64 d)
{
	return (d << 1) ^ (0 - (d >> 63));
}

static inline uint64
unzigzag(uint64 z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

/* The int64 whose two's complement is u, without implementation-defined casts */
static inline int64
u64_to_i64(uint64 u)
{
	if (u <= (uint64) INT64_MAX)
		return (int64) u;
	return -(int64) (~u) - 1;
}


/* ---- the writer ---- */

static void
put_reserve(IsoChunkWriter *w, size_t n)
{
	size_t		cap;

	if (w->cap - w->len >= n)
		return;
	cap = w->cap ? w->cap : CHUNK_INITIAL_CAP;
	while (cap - w->len < n)
		cap *= 2;
	w->buf = iso_realloc(w->buf, cap);
	w->cap = cap;
}

static inline void
put_byte(IsoChunkWriter *w, uint8 b)
{
	put_reserve(w, 1);
	w->buf[w->len++] = b;
}

static void
put_varint(IsoChunkWriter *w, uint64 v)
{
	put_reserve(w, VARINT_MAX_BYTES);
	while (v >= 0x80)
	{
		w->buf[w->len++] = (uint8) (v | 0x80);
		v >>= 7;
	}
	w->buf[w->len++] = (uint8) v;
}

/* the zigzag varint of value - *base; *base becomes value */
static void
put_delta(IsoChunkWriter *w, int64 value, int64 *base)
{
	put_varint(w, zigzag((uint64) value - (uint64) *base));
	*base = value;
}

static void
put_string(IsoChunkWriter *w, IsoSlice s)
{
	if (s.len < 0)
		iso_host_internal_error("event chunk: a string of negative length");
	put_varint(w, (uint64) s.len);
	if (s.len == 0)
		return;
	put_reserve(w, (size_t) s.len);
	memcpy(w->buf + w->len, s.ptr, (size_t) s.len);
	w->len += (size_t) s.len;
}

void
iso_chunk_writer_init(IsoChunkWriter *w, int encoding)
{
	memset(w, 0, sizeof(*w));
	w->encoding = encoding;
	put_reserve(w, ISO_CHUNK_HEADER_SIZE);
	w->buf[0] = 'I';
	w->buf[1] = 'E';
	w->buf[2] = ISO_CHUNK_VERSION;
	w->buf[3] = (uint8) encoding;
	memset(w->buf + 4, 0, 4);	/* nrows: iso_chunk_writer_data */
	iso_chunk_writer_reset(w);
}

void
iso_chunk_writer_reset(IsoChunkWriter *w)
{
	w->len = ISO_CHUNK_HEADER_SIZE;
	w->nrows = 0;
	memset(&w->first, 0, sizeof(w->first));
	memset(&w->last, 0, sizeof(w->last));
	w->ordered = true;
	w->have_txn = false;
	memset(&w->txn, 0, sizeof(w->txn));
}

void
iso_chunk_writer_free(IsoChunkWriter *w)
{
	if (w->buf)
		iso_free(w->buf);
	w->buf = NULL;
	w->len = w->cap = 0;
}

/* whether row's transaction fields differ from the last ones written */
static bool
txn_differs(const IsoChunkWriter *w, const IsoEventRow *row)
{
	const IsoEventRow *t = &w->txn;

	if (!w->have_txn)
		return true;
	if (row->txn_id != t->txn_id || row->status != t->status)
		return true;
	if (row->has_process != t->has_process ||
		(row->has_process && row->process != t->process))
		return true;
	if (row->has_invoke_time != t->has_invoke_time ||
		(row->has_invoke_time && row->invoke_time != t->invoke_time))
		return true;
	if (row->has_complete_time != t->has_complete_time ||
		(row->has_complete_time && row->complete_time != t->complete_time))
		return true;
	return false;
}

static void
put_txn(IsoChunkWriter *w, const IsoEventRow *row)
{
	IsoEventRow *t = &w->txn;

	put_byte(w, (uint8) ((unsigned) row->status |
						 (row->has_process ? TF_PROCESS : 0) |
						 (row->has_invoke_time ? TF_INVOKE : 0) |
						 (row->has_complete_time ? TF_COMPLETE : 0)));
	put_delta(w, row->txn_id, &t->txn_id);
	if (row->has_process)
		put_delta(w, row->process, &t->process);
	if (row->has_invoke_time)
		put_delta(w, row->invoke_time, &t->invoke_time);
	if (row->has_complete_time)
		put_delta(w, row->complete_time, &t->complete_time);
	t->status = row->status;
	t->has_process = row->has_process;
	t->has_invoke_time = row->has_invoke_time;
	t->has_complete_time = row->has_complete_time;
	w->have_txn = true;
}

static void
track_key(IsoChunkWriter *w, const IsoEventRow *row)
{
	IsoEventKey key;

	key.txn_id = row->txn_id;
	key.pos = row->pos;
	if (w->nrows == 0)
		w->first = key;
	else if (iso_event_key_cmp(key, w->last) <= 0)
		w->ordered = false;
	w->last = key;
}

void
iso_chunk_writer_add(IsoChunkWriter *w, const IsoEventRow *row)
{
	bool		txn = txn_differs(w, row);
	int32		i;

	/* the server validated the row; anything else here is a bug */
	if ((unsigned) row->op > ISO_OP_APPEND ||
		(unsigned) row->status > ISO_STATUS_INFO ||
		row->pos < 0 || (row->has_list && row->list_len < 0))
		iso_host_internal_error("event chunk: an invalid row to pack");
	if (w->nrows == PG_UINT32_MAX)
		iso_host_internal_error("event chunk: too many rows");

	put_byte(w, (uint8) ((unsigned) row->op |
						 (txn ? RF_TXN : 0) |
						 (row->value.ptr ? RF_VALUE : 0) |
						 (row->read_value.ptr ? RF_READ_VALUE : 0) |
						 (row->has_list ? RF_READ_LIST : 0)));
	if (txn)
		put_txn(w, row);
	put_varint(w, (uint64) row->pos);
	put_string(w, row->key);
	if (row->value.ptr)
		put_string(w, row->value);
	if (row->read_value.ptr)
		put_string(w, row->read_value);
	if (row->has_list)
	{
		put_varint(w, (uint64) row->list_len);
		for (i = 0; i < row->list_len; i++)
			put_string(w, row->list[i]);
	}

	track_key(w, row);
	w->nrows++;
}

bool
iso_chunk_writer_full(const IsoChunkWriter *w)
{
	return w->nrows >= ISO_CHUNK_MAX_ROWS || w->len >= ISO_CHUNK_MAX_BYTES;
}

const uint8 *
iso_chunk_writer_data(IsoChunkWriter *w, size_t *len)
{
	w->buf[4] = (uint8) w->nrows;
	w->buf[5] = (uint8) (w->nrows >> 8);
	w->buf[6] = (uint8) (w->nrows >> 16);
	w->buf[7] = (uint8) (w->nrows >> 24);
	*len = w->len;
	return w->buf;
}


/* ---- the reader ---- */

static inline bool
damaged(IsoChunkReader *r, const char *why)
{
	r->error = why;
	return false;
}

static bool
get_varint(IsoChunkReader *r, uint64 *out)
{
	uint64		v = 0;
	int			i;

	for (i = 0; i < VARINT_MAX_BYTES; i++)
	{
		uint8		b;

		if (r->p >= r->end)
			return damaged(r, "a number runs past the end of the chunk");
		b = *r->p++;
		/* the tenth byte holds bit 63 alone */
		if (i == VARINT_MAX_BYTES - 1 && b > 1)
			return damaged(r, "a number is longer than 64 bits");
		v |= (uint64) (b & 0x7F) << (7 * i);
		if (!(b & 0x80))
		{
			*out = v;
			return true;
		}
	}
	return damaged(r, "a number is longer than 64 bits");
}

/* *field += the zigzag varint at r->p, in uint64 */
static bool
get_delta(IsoChunkReader *r, int64 *field)
{
	uint64		z;

	if (!get_varint(r, &z))
		return false;
	*field = u64_to_i64((uint64) *field + unzigzag(z));
	return true;
}

static bool
get_string(IsoChunkReader *r, IsoSlice *s)
{
	uint64		n;

	if (!get_varint(r, &n))
		return false;
	if (n > (uint64) (r->end - r->p))
		return damaged(r, "a length runs past the end of the chunk");
	if (n > (uint64) PG_INT32_MAX)
		return damaged(r, "a length is out of range");
	s->ptr = (const char *) r->p;
	s->len = (int32) n;
	r->p += n;
	return true;
}

static bool
get_txn(IsoChunkReader *r)
{
	IsoEventRow *row = &r->row;
	uint8		tf;

	if (r->p >= r->end)
		return damaged(r, "a row runs past the end of the chunk");
	tf = *r->p++;
	if (tf & ~TF_KNOWN)
		return damaged(r, "a row's transaction fields have unknown flags");
	if ((tf & TF_STATUS_MASK) > ISO_STATUS_INFO)
		return damaged(r, "a row has an unknown status");
	row->status = (IsoStatus) (tf & TF_STATUS_MASK);
	row->has_process = (tf & TF_PROCESS) != 0;
	row->has_invoke_time = (tf & TF_INVOKE) != 0;
	row->has_complete_time = (tf & TF_COMPLETE) != 0;
	if (!get_delta(r, &row->txn_id))
		return false;
	if (row->has_process && !get_delta(r, &row->process))
		return false;
	if (row->has_invoke_time && !get_delta(r, &row->invoke_time))
		return false;
	if (row->has_complete_time && !get_delta(r, &row->complete_time))
		return false;
	r->have_txn = true;
	return true;
}

static bool
get_list(IsoChunkReader *r)
{
	IsoEventRow *row = &r->row;
	uint64		n;
	int32		i;

	if (!get_varint(r, &n))
		return false;
	/* every element takes at least its length byte: bound n before alloc */
	if (n > (uint64) (r->end - r->p))
		return damaged(r, "a list runs past the end of the chunk");
	if (n > (uint64) PG_INT32_MAX)
		return damaged(r, "a list length is out of range");
	if ((int64) n > r->list_cap)
	{
		int64		cap = r->list_cap ? (int64) r->list_cap * 2 : 16;

		if (cap < (int64) n)
			cap = (int64) n;
		if (cap > PG_INT32_MAX)
			cap = PG_INT32_MAX;
		r->list = iso_realloc(r->list, (size_t) cap * sizeof(IsoSlice));
		r->list_cap = (int32) cap;
	}
	for (i = 0; i < (int32) n; i++)
	{
		if (!get_string(r, &r->list[i]))
			return false;
	}
	row->list = r->list;
	row->list_len = (int32) n;
	return true;
}

static bool
get_row(IsoChunkReader *r)
{
	IsoEventRow *row = &r->row;
	uint8		flags;
	uint64		pos;

	if (r->p >= r->end)
		return damaged(r, "a row runs past the end of the chunk");
	flags = *r->p++;
	if (flags & ~RF_KNOWN)
		return damaged(r, "a row has unknown flags");
	if ((flags & RF_OP_MASK) > ISO_OP_APPEND)
		return damaged(r, "a row has an unknown operation");
	row->op = (IsoOpKind) (flags & RF_OP_MASK);
	if (flags & RF_TXN)
	{
		if (!get_txn(r))
			return false;
	}
	else if (!r->have_txn)
		return damaged(r, "the first row of the chunk has no transaction fields");

	if (!get_varint(r, &pos))
		return false;
	if (pos > (uint64) PG_INT32_MAX)
		return damaged(r, "a position is out of range");
	row->pos = (int32) pos;
	if (!get_string(r, &row->key))
		return false;

	row->value.ptr = row->read_value.ptr = NULL;
	row->value.len = row->read_value.len = 0;
	if ((flags & RF_VALUE) && !get_string(r, &row->value))
		return false;
	if ((flags & RF_READ_VALUE) && !get_string(r, &row->read_value))
		return false;

	row->has_list = (flags & RF_READ_LIST) != 0;
	row->list = NULL;
	row->list_len = 0;
	if (row->has_list && !get_list(r))
		return false;
	return true;
}

bool
iso_chunk_reader_init(IsoChunkReader *r, const void *data, size_t len)
{
	const uint8 *b = data;

	memset(r, 0, sizeof(*r));
	if (len < ISO_CHUNK_HEADER_SIZE)
	{
		r->error = "the chunk is shorter than its header";
		return false;
	}
	if (b[0] != 'I' || b[1] != 'E')
	{
		r->error = "not an event chunk (wrong magic bytes)";
		return false;
	}
	if (b[2] != ISO_CHUNK_VERSION)
	{
		r->error = "an event chunk of an unknown version";
		return false;
	}
	r->encoding = b[3];
	r->nrows = (uint32) b[4] | (uint32) b[5] << 8 |
		(uint32) b[6] << 16 | (uint32) b[7] << 24;
	r->left = r->nrows;
	r->p = b + ISO_CHUNK_HEADER_SIZE;
	r->end = b + len;
	return true;
}

int
iso_chunk_reader_next(IsoChunkReader *r)
{
	/* once damaged, always damaged: a caller's loop ends */
	if (r->error)
		return -1;
	if (r->left == 0)
	{
		if (r->p != r->end)
		{
			r->error = "bytes follow the last row of the chunk";
			return -1;
		}
		return 0;
	}
	if (!get_row(r))
		return -1;
	r->left--;
	return 1;
}

void
iso_chunk_reader_free(IsoChunkReader *r)
{
	if (r->list)
		iso_free(r->list);
	r->list = NULL;
	r->list_cap = 0;
}
