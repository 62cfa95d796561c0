/*
 * event_store.c
 *	  A history's events in iso_event_chunk (0.5.0): packing them as they
 *	  are written (unpacking them is event_unpack.c).
 *
 * Writers (the view's INSTEAD OF trigger, iso_load_jepsen, the streaming
 * load) hand rows to an IsoEventStore, which packs each history's rows
 * into chunks (src/core/event_chunk.h) and writes a chunk row when one is
 * full and when the store is closed, at the end of the statement.
 *
 * A history's chunks hold its events in (txn_id, pos) order, each key
 * once, so that a check reads them in one pass and iso_event lists them in
 * order.  The store knows the last key stored before the statement (from
 * the history's last chunk) and compares every row with the one before:
 * rows in order cost nothing more.  If a statement's rows of a history
 * were not in order, closing the store reads all of the history's chunks
 * back, sorts the events, refuses a key that occurs twice -- what the
 * primary key of iso_event_data did until 0.4.0 -- and writes the chunks
 * again.  That needs the history's events in memory once, which only an
 * out-of-order load pays.
 *
 * The caller has checked and locked each history (event_input.c, load.c)
 * and validated each row; the store outdates a history's image before its
 * first chunk (image_store.c): the chunk rows are written with the bulk
 * writer, which fires no triggers.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "check.h"
#include "event_chunk.h"
#include "isograph.h"

/* Columns of iso_event_chunk. */
enum
{
	CHUNK_HISTORY_ID = 1,
	CHUNK_CHUNK,
	CHUNK_NROWS,
	CHUNK_FIRST_TXN,
	CHUNK_FIRST_POS,
	CHUNK_LAST_TXN,
	CHUNK_LAST_POS,
	CHUNK_DATA,
	CHUNK_NATTS = CHUNK_DATA
};

/* What the store keeps for each history written in the statement. */
typedef struct HistoryEntry
{
	int64		history_id;		/* hash key */
	int32		next_chunk;
	int32		first_new_chunk;	/* the statement's first: older ones were there */
	HTAB	   *deleted;		/* keys deleted from the older chunks, or NULL */
	bool		any;			/* a key is stored or packed: last is valid */
	bool		unordered;		/* a row came at or below the key before it */
	IsoEventKey last;
	IsoChunkWriter cw;
} HistoryEntry;

struct IsoEventStore
{
	MemoryContext cxt;
	HTAB	   *histories;
	HistoryEntry *current;		/* the last row's history */
	IsoTableWriter writer;
	bool		writer_open;
};

IsoEventStore *
iso_event_store_open(void)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "isograph event store",
											  ALLOCSET_DEFAULT_SIZES);
	IsoEventStore *st = MemoryContextAllocZero(cxt, sizeof(IsoEventStore));
	HASHCTL		ctl;

	st->cxt = cxt;
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(int64);
	ctl.entrysize = sizeof(HistoryEntry);
	ctl.hcxt = cxt;
	st->histories = hash_create("isograph event store histories", 16, &ctl,
								HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	return st;
}

/*
 * The bulk writer into iso_event_chunk, opened before anything is read from
 * the table: it refuses a layout it cannot fill with a clear error.
 */
static void
open_writer(IsoEventStore *st)
{
	MemoryContext old;

	if (st->writer_open)
		return;
	old = MemoryContextSwitchTo(st->cxt);
	iso_writer_open(&st->writer, ISO_TABLE_EVENT_CHUNK);
	st->writer_open = true;
	MemoryContextSwitchTo(old);
}

/* The next chunk number and the last key already stored for a history. */
static void
load_history_tail(HistoryEntry *e)
{
	Oid			argtypes[1] = {INT8OID};
	Datum		args[1];
	int			ret;

	args[0] = Int64GetDatum(e->history_id);
	SPI_connect();
	ret = SPI_execute_with_args(psprintf("SELECT chunk, last_txn, last_pos FROM %s "
										 "WHERE history_id OPERATOR(pg_catalog.=) $1 "
										 "ORDER BY chunk DESC LIMIT 1",
										 iso_qualified_table_name(ISO_TABLE_EVENT_CHUNK)),
								1, argtypes, args, NULL, false, 1);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "could not read the history's chunks: %s", SPI_result_code_string(ret));
	/* none yet: e stays as history_entry cleared it, chunk 0 next */
	if (SPI_processed == 1)
	{
		bool		isnull;
		HeapTuple	tup = SPI_tuptable->vals[0];
		TupleDesc	desc = SPI_tuptable->tupdesc;

		e->next_chunk = DatumGetInt32(SPI_getbinval(tup, desc, 1, &isnull)) + 1;
		e->first_new_chunk = e->next_chunk;
		e->last.txn_id = DatumGetInt64(SPI_getbinval(tup, desc, 2, &isnull));
		e->last.pos = DatumGetInt32(SPI_getbinval(tup, desc, 3, &isnull));
		e->any = true;
	}
	SPI_finish();
}

static HistoryEntry *
history_entry(IsoEventStore *st, int64 history_id)
{
	HistoryEntry *e;
	bool		found;
	MemoryContext old;

	if (st->current != NULL && st->current->history_id == history_id)
		return st->current;
	e = hash_search(st->histories, &history_id, HASH_ENTER, &found);
	if (!found)
	{
		memset((char *) e + sizeof(int64), 0, sizeof(HistoryEntry) - sizeof(int64));
		/* its image no longer holds all its events (the header) */
		iso_image_events_written(history_id);
		open_writer(st);
		load_history_tail(e);
		old = MemoryContextSwitchTo(st->cxt);
		iso_chunk_writer_init(&e->cw, GetDatabaseEncoding());
		MemoryContextSwitchTo(old);
	}
	st->current = e;
	return e;
}

/* Write data, a chunk described by meta, as e's next chunk. */
static void
write_chunk(IsoEventStore *st, HistoryEntry *e, const IsoChunkMeta *meta,
			const uint8 *data, size_t len)
{
	Datum		values[CHUNK_NATTS];
	bool		nulls[CHUNK_NATTS];
	bytea	   *b;

	open_writer(st);
	b = palloc(VARHDRSZ + len);
	SET_VARSIZE(b, VARHDRSZ + len);
	memcpy(VARDATA(b), data, len);
	memset(nulls, 0, sizeof(nulls));
	values[CHUNK_HISTORY_ID - 1] = Int64GetDatum(e->history_id);
	values[CHUNK_CHUNK - 1] = Int32GetDatum(e->next_chunk);
	values[CHUNK_NROWS - 1] = Int32GetDatum((int32) meta->nrows);
	values[CHUNK_FIRST_TXN - 1] = Int64GetDatum(meta->first.txn_id);
	values[CHUNK_FIRST_POS - 1] = Int32GetDatum(meta->first.pos);
	values[CHUNK_LAST_TXN - 1] = Int64GetDatum(meta->last.txn_id);
	values[CHUNK_LAST_POS - 1] = Int32GetDatum(meta->last.pos);
	values[CHUNK_DATA - 1] = PointerGetDatum(b);
	iso_writer_put(&st->writer, values, nulls);
	pfree(b);
	if (e->next_chunk == PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("history %lld has too many chunks of events", (long long) e->history_id)));
	e->next_chunk++;
}

/* Write the packed rows of e as its next chunk. */
static void
flush_chunk(IsoEventStore *st, HistoryEntry *e)
{
	IsoChunkMeta meta;
	const uint8 *data;
	size_t		len;

	if (e->cw.nrows == 0)
		return;
	data = iso_chunk_writer_data(&e->cw, &len);
	iso_chunk_writer_meta(&e->cw, &meta);
	write_chunk(st, e, &meta, data, len);
	iso_chunk_writer_reset(&e->cw);
}

/*
 * Look at history_id's chunks now rather than at its first event (the
 * streaming load runs its queries on its first line, load.c).
 */
void
iso_event_store_prepare(IsoEventStore *st, int64 history_id)
{
	(void) history_entry(st, history_id);
}

/* Store one row of history_id (checked and locked by the caller). */
void
iso_event_store_add(IsoEventStore *st, int64 history_id, const IsoEventRow *row)
{
	HistoryEntry *e = history_entry(st, history_id);
	IsoEventKey key = {row->txn_id, row->pos};

	if (e->any && iso_event_key_cmp(key, e->last) <= 0)
		e->unordered = true;
	e->last = key;
	e->any = true;
	iso_chunk_writer_add(&e->cw, row);
	if (iso_chunk_writer_full(&e->cw))
	{
		MemoryContext old = MemoryContextSwitchTo(st->cxt);

		flush_chunk(st, e);
		MemoryContextSwitchTo(old);
	}
}

/*
 * A chunk of history_id's rows packed by another process with the same
 * writer (a parallel worker parsing the history, edn_parallel.c): written
 * as the history's next chunk, its keys checked against the rows before it
 * as iso_event_store_add checks each row's.  Returns whether the history's
 * rows are still in key order (else closing the store rewrites them).
 */
bool
iso_event_store_add_chunk(IsoEventStore *st, int64 history_id, const IsoChunkMeta *meta,
						  const uint8 *data, size_t len)
{
	HistoryEntry *e = history_entry(st, history_id);
	MemoryContext old = MemoryContextSwitchTo(st->cxt);

	flush_chunk(st, e);			/* rows added here come first */
	if (meta->nrows > 0)
	{
		if (!meta->ordered || (e->any && iso_event_key_cmp(meta->first, e->last) <= 0))
			e->unordered = true;
		e->last = meta->last;
		e->any = true;
		write_chunk(st, e, meta, data, len);
	}
	MemoryContextSwitchTo(old);
	return !e->unordered;
}

/*
 * Delete the event (txn_id, pos) of history_id that was stored before the
 * statement (an UPDATE or DELETE on iso_event; event_input.c): closing the
 * store writes the history's chunks again without it.
 */
void
iso_event_store_delete(IsoEventStore *st, int64 history_id, int64 txn_id, int32 pos)
{
	HistoryEntry *e = history_entry(st, history_id);
	IsoEventKey key;

	if (e->deleted == NULL)
	{
		HASHCTL		ctl;

		memset(&ctl, 0, sizeof(ctl));
		ctl.keysize = sizeof(IsoEventKey);
		ctl.entrysize = sizeof(IsoEventKey);
		ctl.hcxt = st->cxt;
		e->deleted = hash_create("isograph deleted events", 64, &ctl,
								 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	memset(&key, 0, sizeof(key));	/* the padding is part of the hash key */
	key.txn_id = txn_id;
	key.pos = pos;
	(void) hash_search(e->deleted, &key, HASH_ENTER, NULL);
	e->unordered = true;		/* the chunks are written again */
}

static bool
was_deleted(const HistoryEntry *e, int32 chunk, const IsoEventRow *row)
{
	IsoEventKey key;

	if (e->deleted == NULL || chunk >= e->first_new_chunk)
		return false;
	memset(&key, 0, sizeof(key));
	key.txn_id = row->txn_id;
	key.pos = row->pos;
	return hash_search(e->deleted, &key, HASH_FIND, NULL) != NULL;
}

/* A copy of a row whose strings live as long as the chunk it came from. */
typedef struct SortedRow
{
	IsoEventRow row;
} SortedRow;

static int
sorted_row_cmp(const void *a, const void *b)
{
	const IsoEventRow *x = &((const SortedRow *) a)->row;
	const IsoEventRow *y = &((const SortedRow *) b)->row;
	IsoEventKey kx = {x->txn_id, x->pos};
	IsoEventKey ky = {y->txn_id, y->pos};

	return iso_event_key_cmp(kx, ky);
}

/*
 * Put a history's chunks in key order (the header): read them all but the
 * deleted events, sort them, refuse a repeated key, delete the chunks and
 * pack again.
 */
static void
rewrite_in_order(IsoEventStore *st, HistoryEntry *e)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "isograph event sort",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	Oid			argtypes[1] = {INT8OID};
	Datum		args[1];
	SortedRow  *rows;
	int64		n = 0;
	int64		cap = 1024;
	int64		i;
	uint64		c;
	int			ret;
	IsoOwnerSwitch sw;

	/* the chunks this statement wrote are visible from here on */
	CommandCounterIncrement();
	args[0] = Int64GetDatum(e->history_id);
	rows = palloc_extended(sizeof(SortedRow) * cap, MCXT_ALLOC_HUGE);
	SPI_connect();
	ret = SPI_execute_with_args(psprintf("SELECT chunk, data FROM %s WHERE history_id OPERATOR(pg_catalog.=) $1 ORDER BY chunk",
										 iso_qualified_table_name(ISO_TABLE_EVENT_CHUNK)),
								1, argtypes, args, NULL, false, 0);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "could not read the history's chunks: %s", SPI_result_code_string(ret));
	for (c = 0; c < SPI_processed; c++)
	{
		bool		isnull;
		int32		chunk = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[c], SPI_tuptable->tupdesc, 1, &isnull));
		Datum		d = SPI_getbinval(SPI_tuptable->vals[c], SPI_tuptable->tupdesc, 2, &isnull);
		MemoryContext spi = MemoryContextSwitchTo(cxt);
		bytea	   *data = (bytea *) PG_DETOAST_DATUM_COPY(d);
		IsoChunkReader r;
		const IsoEventRow *row;

		iso_event_chunk_open(&r, data, "a chunk of iso_event");
		while ((row = iso_event_chunk_next(&r, "a chunk of iso_event")) != NULL)
		{
			IsoSlice   *list = NULL;

			if (was_deleted(e, chunk, row))
				continue;
			if (n == cap)
			{
				cap *= 2;
				rows = repalloc_huge(rows, sizeof(SortedRow) * cap);
			}
			if (row->has_list && row->list_len > 0)
			{
				list = palloc(sizeof(IsoSlice) * row->list_len);
				memcpy(list, row->list, sizeof(IsoSlice) * row->list_len);
			}
			rows[n].row = *row;
			rows[n].row.list = list;
			n++;
			if (n % 65536 == 0)
			{
				iso_check_memory(cxt);
				CHECK_FOR_INTERRUPTS();
			}
		}
		MemoryContextSwitchTo(spi);
	}
	SPI_finish();

	qsort(rows, n, sizeof(SortedRow), sorted_row_cmp);
	for (i = 1; i < n; i++)
	{
		if (sorted_row_cmp(&rows[i - 1], &rows[i]) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_UNIQUE_VIOLATION),
					 errmsg("duplicate key value violates unique constraint \"iso_event_pkey\""),
					 errdetail("Key (history_id, txn_id, pos)=(%lld, %lld, %d) already exists.",
							   (long long) e->history_id, (long long) rows[i].row.txn_id,
							   rows[i].row.pos),
					 errhint("Each micro-operation of a history has its own (txn_id, pos).")));
	}

	/* roles have no DELETE on the table (catalog.c, iso_owner_begin) */
	iso_owner_begin(&sw);
	SPI_connect();
	ret = SPI_execute_with_args(psprintf("DELETE FROM %s WHERE history_id OPERATOR(pg_catalog.=) $1",
										 iso_qualified_table_name(ISO_TABLE_EVENT_CHUNK)),
								1, argtypes, args, NULL, false, 0);
	if (ret != SPI_OK_DELETE)
		elog(ERROR, "could not delete the history's chunks: %s", SPI_result_code_string(ret));
	SPI_finish();
	iso_owner_end(&sw);
	CommandCounterIncrement();

	e->next_chunk = 0;
	iso_chunk_writer_reset(&e->cw);
	for (i = 0; i < n; i++)
	{
		iso_chunk_writer_add(&e->cw, &rows[i].row);
		if (iso_chunk_writer_full(&e->cw))
			flush_chunk(st, e);
		if (i % 65536 == 0)
			CHECK_FOR_INTERRUPTS();
	}
	flush_chunk(st, e);
	e->unordered = false;
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
}

/*
 * The statement's rows are all given: write the last chunks, put the
 * histories written out of order in order, and free the store.
 */
void
iso_event_store_close(IsoEventStore *st)
{
	HASH_SEQ_STATUS seq;
	HistoryEntry *e;
	MemoryContext old = MemoryContextSwitchTo(st->cxt);

	hash_seq_init(&seq, st->histories);
	while ((e = hash_seq_search(&seq)) != NULL)
		flush_chunk(st, e);
	if (st->writer_open)
	{
		iso_writer_close(&st->writer);
		st->writer_open = false;
	}
	hash_seq_init(&seq, st->histories);
	while ((e = hash_seq_search(&seq)) != NULL)
	{
		if (!e->unordered)
			continue;
		rewrite_in_order(st, e);
		if (st->writer_open)
		{
			iso_writer_close(&st->writer);
			st->writer_open = false;
		}
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(st->cxt);
}
