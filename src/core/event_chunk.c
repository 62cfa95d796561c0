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
 *
 * A list delta (version 2) refers to the last read_list of the same key
 * in the chunk.  Writer and reader keep the same state for it: for each
 * key, the (offset, length) of its last list's elements in the chunk
 * (IsoChunkLists), updated by every row with a read_list, whether written
 * whole or as a delta.
 */
#include "event_chunk.h"
#include "text.h"

#define CHUNK_INITIAL_CAP	4096
/* a uint64 takes at most 10 bytes of 7 bits */
#define VARINT_MAX_BYTES	10

/* row flags */
#define RF_OP_MASK		0x03
#define RF_TXN			0x04
#define RF_VALUE		0x08
#define RF_READ_VALUE	0x10
#define RF_READ_LIST	0x20
#define RF_LIST_DELTA	0x40	/* version 2, with RF_READ_LIST */
#define RF_KNOWN_V1		0x3F
#define RF_KNOWN		0x7F

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


/* ---- each key's last read_list ---- */

typedef struct IsoChunkListKey
{
	size_t		key_off;		/* the key's bytes, from the chunk's start */
	int32		key_len;
	uint32		hash;
	size_t		start;			/* its segment of lists->refs */
	int32		cap;			/* the segment's size */
	int32		len;			/* elements of the key's last list */
} IsoChunkListKey;

typedef struct IsoChunkListRef
{
	size_t		off;			/* an element's bytes, from the chunk's start */
	int32		len;
} IsoChunkListRef;

#define LISTS_INITIAL_SLOTS	64
#define LISTS_INITIAL_REFS	1024

/*
 * Everything is allocated here and only grown after: the server's writer
 * lives in a memory context of its own but adds rows in shorter ones, and
 * iso_realloc keeps an allocation in its context.
 */
static void
lists_init(IsoChunkLists *l)
{
	memset(l, 0, sizeof(*l));
	l->nslots = LISTS_INITIAL_SLOTS;
	l->slots = iso_alloc0(sizeof(uint32) * l->nslots);
	l->keys_cap = LISTS_INITIAL_SLOTS / 2;
	l->keys = iso_alloc(sizeof(IsoChunkListKey) * l->keys_cap);
	l->refs_cap = LISTS_INITIAL_REFS;
	l->refs = iso_alloc(sizeof(IsoChunkListRef) * l->refs_cap);
}

/* forget every key, keep the memory */
static void
lists_reset(IsoChunkLists *l)
{
	if (l->slots)
		memset(l->slots, 0, sizeof(uint32) * l->nslots);
	l->nkeys = 0;
	l->nrefs = 0;
	l->kept = 0;
}

static void
lists_free(IsoChunkLists *l)
{
	iso_free(l->slots);
	iso_free(l->keys);
	iso_free(l->refs);
	memset(l, 0, sizeof(*l));
}

/* the key whose bytes are key (base + its offset is where it is), or NULL */
static IsoChunkListKey *
lists_find(const IsoChunkLists *l, const uint8 *base, IsoSlice key, uint32 hash)
{
	uint32		mask = l->nslots - 1;
	uint32		i;

	for (i = hash & mask; l->slots[i] != 0; i = (i + 1) & mask)
	{
		IsoChunkListKey *k = &l->keys[l->slots[i] - 1];

		if (k->hash == hash && k->key_len == key.len &&
			iso_same_bytes((const char *) base + k->key_off, key.ptr, key.len))
			return k;
	}
	return NULL;
}

static void
lists_put_slot(IsoChunkLists *l, uint32 hash, uint32 index)
{
	uint32		mask = l->nslots - 1;
	uint32		i;

	for (i = hash & mask; l->slots[i] != 0; i = (i + 1) & mask)
		;
	l->slots[i] = index + 1;
}

/* a new key (not there yet) with an empty list; at most half the slots used */
static IsoChunkListKey *
lists_add(IsoChunkLists *l, uint32 hash, size_t key_off, int32 key_len)
{
	IsoChunkListKey *k;
	uint32		i;

	if ((uint64) (l->nkeys + 1) * 2 > l->nslots)
	{
		if (l->nslots > PG_UINT32_MAX / 4)
			iso_host_internal_error("event chunk: too many keys");
		l->nslots *= 2;
		l->slots = iso_realloc(l->slots, sizeof(uint32) * l->nslots);
		memset(l->slots, 0, sizeof(uint32) * l->nslots);
		for (i = 0; i < l->nkeys; i++)
			lists_put_slot(l, l->keys[i].hash, i);
	}
	if (l->nkeys == l->keys_cap)
	{
		l->keys_cap *= 2;
		l->keys = iso_realloc(l->keys, sizeof(IsoChunkListKey) * l->keys_cap);
	}
	lists_put_slot(l, hash, l->nkeys);
	k = &l->keys[l->nkeys++];
	k->key_off = key_off;
	k->key_len = key_len;
	k->hash = hash;
	k->start = 0;
	k->cap = 0;
	k->len = 0;
	return k;
}

/*
 * Room for n elements in k's segment, its first keep kept.  A segment too
 * small is left behind for one twice as big at the end of the pool: what
 * is left behind is less than what is used, and the pool is emptied with
 * the chunk.
 */
static IsoChunkListRef *
lists_reserve(IsoChunkLists *l, IsoChunkListKey *k, int32 n, int32 keep)
{
	int32		cap;

	if (n <= k->cap)
		return l->refs + k->start;
	cap = k->cap > PG_INT32_MAX / 2 ? PG_INT32_MAX : Max(k->cap * 2, 8);
	cap = Max(cap, n);
	if (l->refs_cap - l->nrefs < (size_t) cap)
	{
		size_t		want = l->refs_cap * 2;

		while (want - l->nrefs < (size_t) cap)
			want *= 2;
		l->refs = iso_realloc(l->refs, sizeof(IsoChunkListRef) * want);
		l->refs_cap = want;
	}
	if (keep > 0)
		memcpy(l->refs + l->nrefs, l->refs + k->start, sizeof(IsoChunkListRef) * keep);
	k->start = l->nrefs;
	k->cap = cap;
	l->nrefs += (size_t) cap;
	return l->refs + k->start;
}


/* ---- the writer ---- */

static void
grow_buffer(IsoChunkWriter *w, size_t n)
{
	size_t		cap = w->cap ? w->cap : CHUNK_INITIAL_CAP;

	while (cap - w->len < n)
		cap *= 2;
	w->buf = iso_realloc(w->buf, cap);
	w->cap = cap;
}

/*
 * Room for n more bytes.  The writes below are inline: they run once per
 * field and list element, a call each cost a fifth of packing a list read.
 */
static inline void
put_reserve(IsoChunkWriter *w, size_t n)
{
	if (w->cap - w->len < n)
		grow_buffer(w, n);
}

static inline void
put_byte(IsoChunkWriter *w, uint8 b)
{
	put_reserve(w, 1);
	w->buf[w->len++] = b;
}

static inline void
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

static inline void
put_string(IsoChunkWriter *w, IsoSlice s)
{
	if (s.len < 0)
		iso_host_internal_error("event chunk: a string of negative length");
	put_varint(w, (uint64) s.len);
	if (s.len == 0)
		return;
	put_reserve(w, (size_t) s.len);
	iso_copy_bytes((char *) w->buf + w->len, s.ptr, s.len);
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
	lists_init(&w->lists);
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
	lists_reset(&w->lists);
}

void
iso_chunk_writer_free(IsoChunkWriter *w)
{
	iso_free(w->buf);
	w->buf = NULL;
	w->len = w->cap = 0;
	lists_free(&w->lists);
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

/* how many of row's first list elements are those of k's last list */
static int32
common_prefix(const IsoChunkWriter *w, const IsoChunkListKey *k, const IsoEventRow *row)
{
	const IsoChunkListRef *refs = w->lists.refs + k->start;
	int32		n = Min(k->len, row->list_len);
	int32		i;

	for (i = 0; i < n; i++)
	{
		IsoSlice	e = row->list[i];

		if (refs[i].len != e.len ||
			!iso_same_bytes((const char *) w->buf + refs[i].off, e.ptr, e.len))
			break;
	}
	return i;
}

/*
 * row's list, as a delta when p > 0 (k the key's state, NULL when none),
 * and the key's state becomes it; key_off is where the row's key is.
 */
static void
put_list(IsoChunkWriter *w, const IsoEventRow *row, IsoChunkListKey *k,
		 uint32 hash, size_t key_off, int32 p)
{
	IsoChunkListRef *refs;
	int32		i;

	if (k == NULL)
		k = lists_add(&w->lists, hash, key_off, row->key.len);
	if (p > 0)
	{
		put_varint(w, (uint64) p);
		put_varint(w, (uint64) (row->list_len - p));
		w->lists.kept += (uint64) p;
	}
	else
		put_varint(w, (uint64) row->list_len);
	refs = lists_reserve(&w->lists, k, row->list_len, p);
	for (i = p; i < row->list_len; i++)
	{
		put_string(w, row->list[i]);
		refs[i].off = w->len - (size_t) row->list[i].len;
		refs[i].len = row->list[i].len;
	}
	k->len = row->list_len;
}

void
iso_chunk_writer_add(IsoChunkWriter *w, const IsoEventRow *row)
{
	bool		txn = txn_differs(w, row);
	IsoChunkListKey *k = NULL;
	uint32		hash = 0;
	int32		p = 0;
	size_t		key_off;

	/* the server validated the row; anything else here is a bug */
	if ((unsigned) row->op > ISO_OP_APPEND ||
		(unsigned) row->status > ISO_STATUS_INFO ||
		row->pos < 0 || (row->has_list && row->list_len < 0) ||
		(row->has_list && row->op != ISO_OP_READ))
		iso_host_internal_error("event chunk: an invalid row to pack");
	if (w->nrows == PG_UINT32_MAX)
		iso_host_internal_error("event chunk: too many rows");

	if (row->has_list)
	{
		hash = iso_hash_text(row->key.ptr, row->key.len);
		k = lists_find(&w->lists, w->buf, row->key, hash);
		if (k != NULL)
			p = common_prefix(w, k, row);
	}
	put_byte(w, (uint8) ((unsigned) row->op |
						 (txn ? RF_TXN : 0) |
						 (row->value.ptr ? RF_VALUE : 0) |
						 (row->read_value.ptr ? RF_READ_VALUE : 0) |
						 (row->has_list ? RF_READ_LIST : 0) |
						 (p > 0 ? RF_LIST_DELTA : 0)));
	if (txn)
		put_txn(w, row);
	put_varint(w, (uint64) row->pos);
	put_string(w, row->key);
	key_off = w->len - (size_t) row->key.len;
	if (row->value.ptr)
		put_string(w, row->value);
	if (row->read_value.ptr)
		put_string(w, row->read_value);
	if (row->has_list)
		put_list(w, row, k, hash, key_off, p);

	track_key(w, row);
	w->nrows++;
}

bool
iso_chunk_writer_full(const IsoChunkWriter *w)
{
	return w->nrows >= ISO_CHUNK_MAX_ROWS || w->len >= ISO_CHUNK_MAX_BYTES ||
		w->lists.kept >= ISO_CHUNK_MAX_KEPT;
}

void
iso_chunk_writer_meta(const IsoChunkWriter *w, IsoChunkMeta *meta)
{
	memset(meta, 0, sizeof(*meta));	/* the padding travels too */
	meta->nrows = w->nrows;
	meta->ordered = w->ordered;
	meta->first = w->first;
	meta->last = w->last;
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
get_varint_long(IsoChunkReader *r, uint64 *out)
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

/* a varint; most are one byte (lengths, positions, small differences) */
static inline bool
get_varint(IsoChunkReader *r, uint64 *out)
{
	if (r->p < r->end && *r->p < 0x80)
	{
		*out = *r->p++;
		return true;
	}
	return get_varint_long(r, out);
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

/* a count of list elements: each takes its length byte at least */
static bool
get_count(IsoChunkReader *r, uint64 *n)
{
	if (!get_varint(r, n))
		return false;
	/* bound n before anything is allocated for it */
	if (*n > (uint64) (r->end - r->p))
		return damaged(r, "a list runs past the end of the chunk");
	if (*n > (uint64) PG_INT32_MAX)
		return damaged(r, "a list length is out of range");
	return true;
}

/* room for n elements in r->list (n bounded by the caller) */
static void
reserve_list(IsoChunkReader *r, int32 n)
{
	int64		cap;

	if (n <= r->list_cap)
		return;
	cap = r->list_cap ? (int64) r->list_cap * 2 : 16;
	if (cap < n)
		cap = n;
	if (cap > PG_INT32_MAX)
		cap = PG_INT32_MAX;
	r->list = iso_realloc(r->list, (size_t) cap * sizeof(IsoSlice));
	r->list_cap = (int32) cap;
}

/* n elements into r->list from index from; the row's list is then from + n */
static bool
get_elements(IsoChunkReader *r, int32 from, int32 n)
{
	int32		i;

	reserve_list(r, from + n);
	for (i = from; i < from + n; i++)
	{
		if (!get_string(r, &r->list[i]))
			return false;
	}
	r->row.list = r->list;
	r->row.list_len = from + n;
	return true;
}

/* a list written whole */
static bool
get_list(IsoChunkReader *r)
{
	uint64		n;

	if (!get_count(r, &n))
		return false;
	return get_elements(r, 0, (int32) n);
}

/* a list delta on k's last list: *keep is how many of its elements stay */
static bool
get_list_delta(IsoChunkReader *r, const IsoChunkListKey *k, int32 *keep)
{
	const IsoChunkListRef *refs = r->lists.refs + k->start;
	uint64		p;
	uint64		n;
	int32		i;

	if (!get_varint(r, &p))
		return false;
	if (p > (uint64) k->len)
		return damaged(r, "a list delta keeps more elements than the key's last list has");
	r->lists.kept += p;
	if (r->lists.kept > ISO_CHUNK_MAX_KEPT + (uint64) (r->end - r->start))
		return damaged(r, "its list deltas keep more elements than a chunk may");
	if (!get_count(r, &n))
		return false;
	if (n > (uint64) (PG_INT32_MAX - (int32) p))
		return damaged(r, "a list length is out of range");
	reserve_list(r, (int32) (p + n));
	if (!r->skip_kept)
	{
		IsoSlice   *list = r->list;
		const char *base = (const char *) r->start;

		for (i = 0; i < (int32) p; i++)
		{
			list[i].ptr = base + refs[i].off;
			list[i].len = refs[i].len;
		}
	}
	*keep = (int32) p;
	return get_elements(r, (int32) p, (int32) n);
}

/*
 * Version 2: a list whole or as a delta, and the row's key's last list
 * becomes it.
 */
static bool
get_list_v2(IsoChunkReader *r, bool delta)
{
	IsoEventRow *row = &r->row;
	IsoChunkLists *l = &r->lists;
	uint32		hash = iso_hash_text(row->key.ptr, row->key.len);
	IsoChunkListKey *k;
	IsoChunkListRef *refs;
	int32		keep = 0;
	int32		i;

	if (l->slots == NULL)
		lists_init(l);
	k = lists_find(l, r->start, row->key, hash);
	if (delta)
	{
		if (k == NULL)
			return damaged(r, "a list delta for a key with no list before it in the chunk");
		if (!get_list_delta(r, k, &keep))
			return false;
	}
	else if (!get_list(r))
		return false;

	if (k == NULL)
		k = lists_add(l, hash, (size_t) ((const uint8 *) row->key.ptr - r->start),
					  row->key.len);
	refs = lists_reserve(l, k, row->list_len, keep);
	for (i = keep; i < row->list_len; i++)
	{
		refs[i].off = (size_t) ((const uint8 *) r->list[i].ptr - r->start);
		refs[i].len = r->list[i].len;
	}
	k->len = row->list_len;
	row->list_kept = keep;
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
	if (flags & ~(r->version == ISO_CHUNK_VERSION_1 ? RF_KNOWN_V1 : RF_KNOWN))
		return damaged(r, "a row has unknown flags");
	if ((flags & RF_LIST_DELTA) && !(flags & RF_READ_LIST))
		return damaged(r, "a row has a list delta but no list");
	if ((flags & RF_OP_MASK) > ISO_OP_APPEND)
		return damaged(r, "a row has an unknown operation");
	row->op = (IsoOpKind) (flags & RF_OP_MASK);
	/* list_kept promises what the key's last list was: only reads have one */
	if ((flags & RF_READ_LIST) && row->op != ISO_OP_READ)
		return damaged(r, "a row that is not a read has a list");
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
	row->list_kept = 0;
	if (!row->has_list)
		return true;
	if (r->version == ISO_CHUNK_VERSION_1)
		return get_list(r);
	return get_list_v2(r, (flags & RF_LIST_DELTA) != 0);
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
	if (b[2] != ISO_CHUNK_VERSION_1 && b[2] != ISO_CHUNK_VERSION_2)
	{
		r->error = "an event chunk of an unknown version";
		return false;
	}
	r->version = b[2];
	r->encoding = b[3];
	r->nrows = (uint32) b[4] | (uint32) b[5] << 8 |
		(uint32) b[6] << 16 | (uint32) b[7] << 24;
	r->left = r->nrows;
	r->start = b;
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
	iso_free(r->list);
	r->list = NULL;
	r->list_cap = 0;
	lists_free(&r->lists);
}
