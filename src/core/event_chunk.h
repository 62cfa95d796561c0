/*
 * event_chunk.h
 *	  The packed form of a history's events: many iso_event rows in one
 *	  value (a row of iso_event_chunk, since 0.5.0).
 *
 * One row per micro-operation costs PostgreSQL a heap tuple, an index entry
 * and their WAL -- about 200 bytes and 3 microseconds each; a million
 * transactions are 8 million rows (docs/performance.md, "What COPY can
 * reach").  A chunk holds up to ISO_CHUNK_MAX_ROWS events in the order
 * they were written, each in a few bytes:
 *
 *   header   'I' 'E' version(1) encoding(1) nrows(u32, little-endian)
 *   row      flags(1): bits 0-1 op (IsoOpKind), 2 transaction fields
 *            follow, 3 value, 4 read_value, 5 read_list, 6 list delta
 *            (version 2, only with 5)
 *            [transaction fields: tflags(1): bits 0-1 status (IsoStatus),
 *             2 process, 3 invoke_time, 4 complete_time; then txn_id and
 *             the present ones of process, invoke_time, complete_time,
 *             each a zigzag varint of the difference (in uint64, wrapping)
 *             from the last value of the same field written in this chunk,
 *             whether or not the last transaction fields had it (0 at
 *             first)]
 *            pos (varint), key (varint length, bytes),
 *            [value], [read_value] (varint length, bytes),
 *            [read_list: varint count, then each element as a string]
 *            [list delta instead: varint p, varint count, then count
 *             elements as strings: the list is the first p elements of
 *             the last read_list of the same key (same bytes) in this
 *             chunk, then these]
 *
 * Version 2 added the list delta; a version 1 chunk has none and
 * is read as before.  In a list-append history a read of a key mostly
 * returns the key's previous read and a few more elements, so packing
 * every element again made most of a chunk's bytes (and of its packing,
 * compression and TOAST writes).  The writer uses a delta when an earlier
 * row of the chunk read a list of the same key and the new list starts
 * with p > 0 of its elements (the longest such prefix); otherwise the
 * list is written whole.  A chunk depends on no other chunk.
 *
 * The transaction fields are written only when they differ from the row
 * before (the first row of a chunk always has them), so a transaction's
 * events cost little more than their micro-operations, and a row whose
 * fields disagree with its transaction's is kept as written (the check
 * reports it).  Strings are in the database encoding named in the header.
 *
 * The core knows nothing of PostgreSQL: the server validates rows before
 * it packs them (event_input.c) and turns unpacked rows into Datums.
 * Unpacking checks every length against the buffer: a damaged chunk is an
 * error, never a read outside it.
 */
#ifndef ISOGRAPH_EVENT_CHUNK_H
#define ISOGRAPH_EVENT_CHUNK_H

#include "edn.h"
#include "names.h"
#include "port.h"

#define ISO_CHUNK_VERSION_1		1	/* no list deltas: still read */
#define ISO_CHUNK_VERSION_2		2
#define ISO_CHUNK_VERSION		ISO_CHUNK_VERSION_2	/* what the writer writes */
#define ISO_CHUNK_HEADER_SIZE	8
/* a chunk is closed at this many rows or bytes, whichever comes first */
#define ISO_CHUNK_MAX_ROWS		16384
#define ISO_CHUNK_MAX_BYTES		(1024 * 1024)
/*
 * ... or once its list deltas have kept this many elements in all.  A
 * delta keeps its elements in a few bytes, so without a bound a chunk of a
 * few kilobytes could unpack to billions of elements; with it, the
 * elements kept in a chunk are at most this plus the chunk's length (the
 * row that crosses the bound keeps at most a list of the chunk's own
 * elements), and the reader refuses more.
 */
#define ISO_CHUNK_MAX_KEPT		(UINT64_C(1) << 22)

/*
 * One event (one iso_event row without its history_id).  A string whose
 * ptr is NULL is SQL NULL; list is used only when has_list, process and
 * the times only when their has_ flag is set (a row read from a chunk
 * has there the base of the next difference, not NULL's value).
 */
typedef struct IsoEventRow
{
	int64		txn_id;
	int64		process;
	int64		invoke_time;
	int64		complete_time;
	bool		has_process;
	bool		has_invoke_time;
	bool		has_complete_time;
	IsoStatus	status;
	int32		pos;			/* >= 0 */
	IsoOpKind	op;
	IsoSlice	key;			/* never NULL */
	IsoSlice	value;
	IsoSlice	read_value;
	bool		has_list;
	int32		list_len;
	const IsoSlice *list;		/* list_len elements, none NULL */
	int32		list_kept;		/* a reader's row: its first list_kept
								 * elements are those of the last list of its
								 * key before it in the chunk (0: none; unset
								 * in list under skip_kept); writers ignore it */
} IsoEventRow;

/*
 * Micro-op i of an EDN transaction as an event to pack: no copies, the
 * texts stay the parser's (a stored load, load.c, and its parallel worker,
 * edn_parallel.c).
 */
static inline void
iso_event_of_txn(const EdnTxn *txn, int i, IsoEventRow *row)
{
	const EdnOp *op = &txn->ops[i];

	row->txn_id = txn->txn_id;
	row->process = txn->process;
	row->invoke_time = txn->invoke_time;
	row->complete_time = txn->complete_time;
	row->has_process = txn->has_process;
	row->has_invoke_time = txn->has_invoke_time;
	row->has_complete_time = txn->has_complete_time;
	row->status = txn->status;
	row->pos = i;
	row->op = op->op;
	row->key = op->key;
	row->value = op->value;
	row->read_value = op->read_value;
	row->has_list = op->list_len >= 0;
	row->list_len = op->list_len > 0 ? op->list_len : 0;
	row->list = op->list;
	row->list_kept = 0;
}

/* (txn_id, pos): the order in which a check reads a history's events */
typedef struct IsoEventKey
{
	int64		txn_id;
	int32		pos;
} IsoEventKey;

static inline int
iso_event_key_cmp(IsoEventKey a, IsoEventKey b)
{
	if (a.txn_id != b.txn_id)
		return a.txn_id < b.txn_id ? -1 : 1;
	if (a.pos != b.pos)
		return a.pos < b.pos ? -1 : 1;
	return 0;
}

/*
 * The last read_list of each key seen in a chunk (the base of a list
 * delta): an open-addressing hash on the key's bytes and, for each key, a
 * segment of a pool of element references.  Keys and elements are kept as
 * (offset, length) from the start of the chunk (the writer's buffer moves
 * when it grows; the reader's chunk does not, but the same code serves
 * both).  The entry types are private to event_chunk.c.
 */
typedef struct IsoChunkLists
{
	uint32	   *slots;			/* 0 empty, else key index + 1 */
	uint32		nslots;			/* a power of 2 */
	struct IsoChunkListKey *keys;
	uint32		nkeys;
	uint32		keys_cap;
	struct IsoChunkListRef *refs;	/* the keys' segments */
	size_t		nrefs;
	size_t		refs_cap;
	uint64		kept;			/* elements kept by deltas (ISO_CHUNK_MAX_KEPT) */
} IsoChunkLists;

/*
 * Packing.  The buffer grows with iso_realloc; iso_chunk_writer_reset
 * starts the next chunk in the same buffer.
 */
typedef struct IsoChunkWriter
{
	uint8	   *buf;			/* header + rows */
	size_t		len;
	size_t		cap;
	uint32		nrows;
	int			encoding;
	/* what the chunk's row in iso_event_chunk records besides the data */
	IsoEventKey first;
	IsoEventKey last;
	bool		ordered;		/* every row's key above the one before */
	/* the last transaction fields written (the base of the differences) */
	bool		have_txn;
	IsoEventRow txn;
	IsoChunkLists lists;		/* each key's last read_list in buf */
} IsoChunkWriter;

/*
 * What a chunk's row records besides its data: the writer's counts and keys
 * for a chunk packed in one process and written by another (edn_parallel.c).
 */
typedef struct IsoChunkMeta
{
	uint32		nrows;
	bool		ordered;
	IsoEventKey first;
	IsoEventKey last;
} IsoChunkMeta;

extern void iso_chunk_writer_init(IsoChunkWriter *w, int encoding);
/* the chunk's counts and keys, as iso_chunk_writer_data its bytes */
extern void iso_chunk_writer_meta(const IsoChunkWriter *w, IsoChunkMeta *meta);
extern void iso_chunk_writer_add(IsoChunkWriter *w, const IsoEventRow *row);
/* whether the chunk has reached ISO_CHUNK_MAX_ROWS or ISO_CHUNK_MAX_BYTES */
extern bool iso_chunk_writer_full(const IsoChunkWriter *w);
/* the chunk's bytes (header included), valid until the next add or reset */
extern const uint8 *iso_chunk_writer_data(IsoChunkWriter *w, size_t *len);
extern void iso_chunk_writer_reset(IsoChunkWriter *w);
/* frees the buffer and the lists' state, all allocated by init */
extern void iso_chunk_writer_free(IsoChunkWriter *w);

/*
 * Unpacking: init, then next until it returns 0 (no more rows) or -1
 * (damaged: error says what).  The row and its strings point into the
 * chunk and into the reader's list buffer: valid until the next call.
 * The chunk must stay in place until the last call (a list delta refers
 * to the elements of earlier rows).  The reader allocates with iso_alloc
 * in next; iso_chunk_reader_free frees it all.
 */
typedef struct IsoChunkReader
{
	const uint8 *p;
	const uint8 *end;
	uint32		nrows;
	uint32		left;
	int			version;
	int			encoding;
	bool		have_txn;
	IsoEventRow row;
	IsoSlice   *list;
	int32		list_cap;
	const uint8 *start;			/* the chunk (the lists' offsets are from here) */
	IsoChunkLists lists;		/* version 2: each key's last read_list */
	const char *error;			/* static text when damaged */
	bool		skip_kept;		/* set by a caller that reads a row's list
								 * from list_kept on only: the slices before
								 * it are then left unset */
} IsoChunkReader;

/* false (and error set) when the header is not a chunk of a known version */
extern bool iso_chunk_reader_init(IsoChunkReader *r, const void *data, size_t len);
extern int	iso_chunk_reader_next(IsoChunkReader *r);
extern void iso_chunk_reader_free(IsoChunkReader *r);

#endif							/* ISOGRAPH_EVENT_CHUNK_H */
