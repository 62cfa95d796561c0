/*
 * history_read.c
 *	  Reading a stored history (iso_event, iso_version) into an IsoHistory.
 *
 * One query per table, in (txn_id, pos) order, so row-level security
 * applies: since 0.5.0 the chunks of iso_event_chunk in chunk order, each
 * unpacked (event_store.c keeps a history's chunks in key order; the read
 * checks it), before that the rows of iso_event.  The queries are
 * read-only and run under the snapshot the caller pushed (snapshot.c), so
 * a check sees one snapshot.  Events loaded by COPY are validated here
 * with the same rules the EDN loader applies.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "tcop/dest.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "check.h"
#include "event_chunk.h"
#include "isograph.h"

#define FETCH_BATCH 10000

/* Error context outside our internal query, whose text says nothing useful. */
static ErrorContextCallback *outer_error_context = NULL;

static void
bad_event(int64 txn_id, int32 pos, const char *msg, const char *hint)
{
	error_context_stack = outer_error_context;	/* ERROR does not return */
	ereport(ERROR,
			(errcode(ERRCODE_DATA_EXCEPTION),
			 errmsg("invalid event (txn_id %lld, pos %d): %s",
					(long long) txn_id, pos, msg),
			 errhint("%s", hint)));
}

/* Check one row's micro-op against the workload. */
static void
check_event_kind(IsoWorkload workload, const IsoEventRow *row)
{
	switch (row->op)
	{
		case ISO_OP_READ:
			if (workload == ISO_WORKLOAD_LIST_APPEND && row->read_value.ptr != NULL)
				bad_event(row->txn_id, row->pos, "a register read in a list-append history",
						  "Reads of a list-append history go in read_list.");
			if (workload == ISO_WORKLOAD_RW_REGISTER && row->has_list)
				bad_event(row->txn_id, row->pos, "a list read in a rw-register history",
						  "Reads of a rw-register history go in read_value.");
			break;
		case ISO_OP_APPEND:
			if (workload != ISO_WORKLOAD_LIST_APPEND)
				bad_event(row->txn_id, row->pos, "an append in a rw-register history",
						  "Use op 'w' for register writes, or load the history as list-append.");
			break;
		case ISO_OP_WRITE:
			if (workload != ISO_WORKLOAD_RW_REGISTER)
				bad_event(row->txn_id, row->pos, "a register write in a list-append history",
						  "Use op 'append' for list-append writes, or load the history as rw-register.");
			break;
	}
}

/*
 * One iso_event row (the 11 columns of the query below, under versions
 * before 0.5.0) as an event; its list is allocated in the current context.
 */
static void
row_from_datums(const Datum *d, const bool *isnull, IsoEventRow *row)
{
	memset(row, 0, sizeof(*row));
	row->txn_id = DatumGetInt64(d[0]);
	row->has_process = !isnull[1];
	row->process = isnull[1] ? 0 : DatumGetInt64(d[1]);
	if (!iso_datum_status(d[2], &row->status))
		row->status = ISO_STATUS_INFO;	/* iso_event's CHECK admits ok, fail, info */
	row->has_invoke_time = !isnull[3];
	row->invoke_time = isnull[3] ? 0 : DatumGetInt64(d[3]);
	row->has_complete_time = !isnull[4];
	row->complete_time = isnull[4] ? 0 : DatumGetInt64(d[4]);
	row->pos = DatumGetInt32(d[5]);
	if (!iso_datum_op(d[6], &row->op))
		row->op = ISO_OP_WRITE; /* iso_event's CHECK admits r, w, append */
	row->key = iso_datum_slice(d[7]);
	if (!isnull[8])
		row->value = iso_datum_slice(d[8]);
	if (!isnull[9])
		row->read_value = iso_datum_slice(d[9]);
	if (!isnull[10])
	{
		IsoSlice   *elems = NULL;
		int			n = 0;

		switch (iso_text_array_slices(d[10], &elems, &n))
		{
			case ISO_LIST_DIMENSIONS:
				bad_event(row->txn_id, row->pos, "read_list has more than one dimension",
						  "A list read is a one-dimensional text array.");
				break;
			case ISO_LIST_NULL_ELEMENT:
				bad_event(row->txn_id, row->pos, "read_list contains a NULL element",
						  "List elements are the appended values, never NULL.");
				break;
			case ISO_LIST_OK:
				break;
		}
		row->has_list = true;
		row->list_len = n;
		row->list = elems;
	}
}

/*
 * Add one event whose kind fits the history's workload, allocating h's
 * arrays in build_cxt.
 */
static void
append_event(IsoHistory *h, const IsoEventRow *row, int64 *last_txn, MemoryContext build_cxt)
{
	MemoryContext old;
	IsoSlice	nil = {NULL, 0};
	IsoSlice	value;

	value = nil;
	if (row->op != ISO_OP_READ)
		value = row->value;
	else if (row->read_value.ptr != NULL)
		value = row->read_value;

	old = MemoryContextSwitchTo(build_cxt);
	if (h->n_txns == 0 || *last_txn != row->txn_id)
	{
		iso_history_add_txn(h, row->txn_id, row->status, row->has_process,
							row->has_process ? row->process : 0,
							row->has_invoke_time ? row->invoke_time : ISO_NO_TIME,
							row->has_complete_time ? row->complete_time : ISO_NO_TIME);
		*last_txn = row->txn_id;
	}
	else
	{
		const IsoTxn *t = &h->txns[h->n_txns - 1];

		if (t->status != row->status || t->has_process != row->has_process ||
			(row->has_process && t->process != row->process) ||
			(t->invoke_time != ISO_NO_TIME) != row->has_invoke_time ||
			(row->has_invoke_time && t->invoke_time != row->invoke_time) ||
			(t->complete_time != ISO_NO_TIME) != row->has_complete_time ||
			(row->has_complete_time && t->complete_time != row->complete_time))
			bad_event(row->txn_id, row->pos,
					  "its process, status or times differ from the transaction's other events",
					  "All events of one transaction must repeat the same process, status, invoke_time and complete_time.");
	}
	if (row->op == ISO_OP_READ && row->has_list)
		iso_history_add_list_kept(h, row->pos, row->key, row->list, row->list_len,
								  row->list_kept);
	else
		iso_history_add_op(h, row->op, row->pos, row->key, value, NULL, -1);
	MemoryContextSwitchTo(old);
}

/* Add one stored event to the history, checked against its workload. */
static void
add_event(IsoHistory *h, const IsoEventRow *row, int64 *last_txn, MemoryContext build_cxt)
{
	check_event_kind(h->workload, row);
	append_event(h, row, last_txn, build_cxt);
}

/*
 * Add the events of one packed chunk (the bytes of iso_chunk_writer_data)
 * to h, as a check adds those of a stored chunk, without the chunk being
 * read back: a stored load builds its image from the chunks its parallel
 * worker packed (load.c).  The chunk's events continue h's transactions in
 * order, or h's caller sorts them; the parser has checked their kinds.
 */
void
iso_history_add_packed(IsoHistory *h, const uint8 *data, size_t len, int64 *last_txn,
					   MemoryContext build_cxt)
{
	IsoChunkReader reader;
	const IsoEventRow *row;
	uint64		n = 0;

	if (!iso_chunk_reader_init(&reader, data, len))
		elog(ERROR, "isograph: a chunk packed by the parallel worker is damaged: %s", reader.error);
	reader.skip_kept = true;	/* iso_history_add_list_kept reads no more */
	while ((row = iso_event_chunk_next(&reader, "a chunk packed by the parallel worker")) != NULL)
	{
		append_event(h, row, last_txn, build_cxt);
		if (++n % FETCH_BATCH == 0)
			CHECK_FOR_INTERRUPTS();
	}
	iso_check_memory(build_cxt);
	iso_chunk_reader_free(&reader);
}

/*
 * The events arrive through a DestReceiver straight from the executor: no
 * copy of each row into an SPI tuple table and one deforming per row.
 */
typedef struct EventReceiver
{
	DestReceiver pub;
	IsoHistory *h;
	int64		last_txn;
	uint64		rows;
	MemoryContext build_cxt;
	MemoryContext batch_cxt;	/* temporaries of a batch of rows */
	MemoryContext chunk_cxt;	/* a chunk, detoasted, while it is read */
	int64		history_id;
	IsoEventKey last_key;
} EventReceiver;

static void
receiver_tick(EventReceiver *r)
{
	if (++r->rows % FETCH_BATCH == 0)
	{
		MemoryContextReset(r->batch_cxt);
		iso_check_memory(r->build_cxt);
		CHECK_FOR_INTERRUPTS();
	}
}

/* One iso_event row (versions before 0.5.0). */
static bool
event_receive(TupleTableSlot *slot, DestReceiver *self)
{
	EventReceiver *r = (EventReceiver *) self;
	MemoryContext old;
	IsoEventRow row;

	slot_getallattrs(slot);
	/* strings are copied into h's tables; temporaries die per batch */
	old = MemoryContextSwitchTo(r->batch_cxt);
	row_from_datums(slot->tts_values, slot->tts_isnull, &row);
	add_event(r->h, &row, &r->last_txn, r->build_cxt);
	MemoryContextSwitchTo(old);
	receiver_tick(r);
	return true;
}

/*
 * One chunk of packed events (0.5.0), in chunk order: its events must
 * continue the (txn_id, pos) order of the chunks before (event_store.c
 * keeps them so; anything else is damage).
 */
static bool
chunk_receive(TupleTableSlot *slot, DestReceiver *self)
{
	EventReceiver *r = (EventReceiver *) self;
	MemoryContext old;
	IsoChunkReader reader;
	const IsoEventRow *row;
	bool		isnull;
	Datum		d = slot_getattr(slot, 1, &isnull);

	old = MemoryContextSwitchTo(r->chunk_cxt);
	iso_event_chunk_open(&reader, DatumGetByteaPP(d), "a chunk of iso_event");
	reader.skip_kept = true;	/* iso_history_add_list_kept reads no more */
	while ((row = iso_event_chunk_next(&reader, "a chunk of iso_event")) != NULL)
	{
		IsoEventKey key = {row->txn_id, row->pos};

		if (r->rows > 0 && iso_event_key_cmp(key, r->last_key) <= 0)
		{
			error_context_stack = outer_error_context;
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("the events of history %lld are damaged: (txn_id %lld, pos %d) follows (txn_id %lld, pos %d)",
							(long long) r->history_id, (long long) key.txn_id, key.pos,
							(long long) r->last_key.txn_id, r->last_key.pos),
					 errdetail("A history's chunks in iso_event_chunk hold its events in (txn_id, pos) order, each once."),
					 errhint("Delete the history (iso_delete_history) and load it again.")));
		}
		r->last_key = key;
		add_event(r->h, row, &r->last_txn, r->build_cxt);
		receiver_tick(r);
	}
	MemoryContextSwitchTo(old);
	MemoryContextReset(r->chunk_cxt);
	return true;
}

static void
event_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
}

static void
event_shutdown(DestReceiver *self)
{
}

static void
event_destroy(DestReceiver *self)
{
}

/*
 * Read history_id's events into h, allocating in build_cxt.  The caller has
 * checked that the history exists.
 *
 * The query runs with enable_sort and jit off (in a GUC nest level of its
 * own, like a function's SET clause): the primary key (history_id, txn_id,
 * pos) delivers the rows in order, which beats sorting millions of rows,
 * and compiling the scan costs more than it saves.
 */
void
iso_read_history(int64 history_id, IsoWorkload workload, IsoHistory *h,
				 MemoryContext build_cxt)
{
	MemoryContext old;
	EventReceiver receiver;
	SPIExecuteOptions options;
	int			guc_level;
	int			ret;
	char	   *sql;
	bool		packed = iso_events_packed();

	old = MemoryContextSwitchTo(build_cxt);
	iso_history_init(h, workload);
	MemoryContextSwitchTo(old);

	memset(&receiver, 0, sizeof(receiver));
	receiver.pub.receiveSlot = packed ? chunk_receive : event_receive;
	receiver.pub.rStartup = event_startup;
	receiver.pub.rShutdown = event_shutdown;
	receiver.pub.rDestroy = event_destroy;
	receiver.pub.mydest = DestNone;
	receiver.h = h;
	receiver.build_cxt = build_cxt;
	receiver.batch_cxt = AllocSetContextCreate(build_cxt, "isograph read batch",
											   ALLOCSET_DEFAULT_SIZES);
	receiver.chunk_cxt = AllocSetContextCreate(build_cxt, "isograph read chunk",
											   ALLOCSET_DEFAULT_SIZES);
	receiver.history_id = history_id;

	memset(&options, 0, sizeof(options));
	options.read_only = true;
	options.dest = &receiver.pub;

	outer_error_context = error_context_stack;
	guc_level = NewGUCNestLevel();
	(void) set_config_option("enable_sort", "off", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	(void) set_config_option("jit", "off", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);

	SPI_connect();
	if (packed)
		sql = psprintf("SELECT data FROM %s "
					   "WHERE history_id OPERATOR(pg_catalog.=) '%lld'::pg_catalog.int8 "
					   "ORDER BY chunk",
					   iso_qualified_table_name(ISO_TABLE_EVENT_CHUNK), (long long) history_id);
	else
		sql = psprintf("SELECT txn_id, process, status, invoke_time, complete_time, pos, "
					   "op, key, value, read_value, read_list FROM %s "
					   "WHERE history_id OPERATOR(pg_catalog.=) '%lld'::pg_catalog.int8 "
					   "ORDER BY txn_id, pos",
					   iso_qualified_table_name(ISO_TABLE_EVENT), (long long) history_id);
	ret = SPI_execute_extended(sql, &options);
	/* with a DestReceiver of ours, SPI reports a SELECT as SPI_OK_UTILITY */
	if (ret < 0)
		elog(ERROR, "reading iso_event failed: %s", SPI_result_code_string(ret));
	SPI_finish();
	AtEOXact_GUC(true, guc_level);
	MemoryContextDelete(receiver.batch_cxt);
	MemoryContextDelete(receiver.chunk_cxt);
	old = MemoryContextSwitchTo(build_cxt);
	iso_history_end_input(h);
	MemoryContextSwitchTo(old);
	iso_check_memory(build_cxt);
}

/*
 * Read the version log of history_id (iso_version) as (key, value) ids of h,
 * sorted by key id, each key's versions in position order.  Versions of
 * keys or values the history does not know are dropped (no edge can use
 * them).  Returns whether the history has any logged version.
 */
bool
iso_read_version_log(int64 history_id, const IsoHistory *h, IsoVersionLog *log,
					 MemoryContext build_cxt)
{
	Oid			argtypes[1] = {INT8OID};
	Datum		args[1];
	MemoryContext old;
	Portal		portal;
	uint32	   *keys;
	uint32	   *values;
	uint32		n = 0;
	uint32		cap = 1024;
	uint32	   *count;
	uint32		i;
	bool		any = false;

	old = MemoryContextSwitchTo(build_cxt);
	keys = palloc(sizeof(uint32) * cap);
	values = palloc(sizeof(uint32) * cap);
	MemoryContextSwitchTo(old);

	args[0] = Int64GetDatum(history_id);
	SPI_connect();
	portal = SPI_cursor_open_with_args(NULL,
									   psprintf("SELECT key, value FROM %s WHERE history_id OPERATOR(pg_catalog.=) $1 "
												"ORDER BY key, position",
												iso_qualified_table_name(ISO_TABLE_VERSION)),
									   1, argtypes, args, NULL, true, 0);
	for (;;)
	{
		uint64		r;

		SPI_cursor_fetch(portal, true, FETCH_BATCH);
		if (SPI_processed == 0)
			break;
		any = true;
		for (r = 0; r < SPI_processed; r++)
		{
			bool		isnull;
			IsoSlice	k = iso_datum_slice(SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1, &isnull));
			IsoSlice	v = iso_datum_slice(SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 2, &isnull));
			uint32		kid = iso_strtab_find(&h->keys, k.ptr, k.len);
			uint32		vid = iso_strtab_find(&h->values, v.ptr, v.len);

			if (kid == ISO_NONE || vid == ISO_NONE)
				continue;
			if (n == cap)
			{
				cap *= 2;
				keys = repalloc_huge(keys, sizeof(uint32) * cap);
				values = repalloc_huge(values, sizeof(uint32) * cap);
			}
			keys[n] = kid;
			values[n] = vid;
			n++;
		}
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
	SPI_finish();

	/* stable counting sort by key id */
	old = MemoryContextSwitchTo(build_cxt);
	count = palloc0(sizeof(uint32) * (h->keys.n + 1));
	log->n = n;
	log->keys = palloc_extended(sizeof(uint32) * Max(n, 1), MCXT_ALLOC_HUGE);
	log->values = palloc_extended(sizeof(uint32) * Max(n, 1), MCXT_ALLOC_HUGE);
	MemoryContextSwitchTo(old);
	for (i = 0; i < n; i++)
		count[keys[i] + 1]++;
	for (i = 0; i < h->keys.n; i++)
		count[i + 1] += count[i];
	for (i = 0; i < n; i++)
	{
		uint32		at = count[keys[i]]++;

		log->keys[at] = keys[i];
		log->values[at] = values[i];
	}
	pfree(count);
	pfree(keys);
	pfree(values);
	return any;
}
