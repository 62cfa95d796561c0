/*
 * history_read.c
 *	  Reading a stored history (iso_event, iso_version) into an IsoHistory.
 *
 * One batched SPI cursor per table, in (txn_id, pos) order, so row-level
 * security applies; the queries are read-only and run under the snapshot
 * the caller pushed (snapshot.c), so a check sees one snapshot.  Rows loaded by COPY
 * are validated here with the same rules the EDN loader applies.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "access/tupmacs.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/array.h"
#include "tcop/dest.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "check.h"
#include "isograph.h"

#define FETCH_BATCH 10000

static IsoSlice
datum_slice(Datum d)
{
	text	   *t = DatumGetTextPP(d);
	IsoSlice	s;

	s.ptr = VARDATA_ANY(t);
	s.len = VARSIZE_ANY_EXHDR(t);
	return s;
}

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

/* Check one row's micro-op against the workload; returns its kind. */
static IsoOpKind
event_kind(IsoWorkload workload, int64 txn_id, int32 pos, const char *op,
		   bool has_read_value, bool has_read_list)
{
	IsoOpKind	kind;

	if (!iso_op_parse(op, &kind))
		kind = ISO_OP_WRITE;	/* iso_event's CHECK admits r, w, append */
	if (kind == ISO_OP_READ)
	{
		if (workload == ISO_WORKLOAD_LIST_APPEND && has_read_value)
			bad_event(txn_id, pos, "a register read in a list-append history",
					  "Reads of a list-append history go in read_list.");
		if (workload == ISO_WORKLOAD_RW_REGISTER && has_read_list)
			bad_event(txn_id, pos, "a list read in a rw-register history",
					  "Reads of a rw-register history go in read_value.");
		return ISO_OP_READ;
	}
	if (kind == ISO_OP_APPEND)
	{
		if (workload != ISO_WORKLOAD_LIST_APPEND)
			bad_event(txn_id, pos, "an append in a rw-register history",
					  "Use op 'w' for register writes, or load the history as list-append.");
		return ISO_OP_APPEND;
	}
	if (workload != ISO_WORKLOAD_RW_REGISTER)
		bad_event(txn_id, pos, "a register write in a list-append history",
				  "Use op 'append' for list-append writes, or load the history as rw-register.");
	return ISO_OP_WRITE;
}

/* A short text column as a C string in buf (longer texts are cut: they
 * match no valid value anyway, and the table's CHECKs forbid them). */
static const char *
text_cstring(Datum d, char *buf, int size)
{
	IsoSlice	s = datum_slice(d);
	int			len = Min(s.len, size - 1);

	memcpy(buf, s.ptr, len);
	buf[len] = '\0';
	return buf;
}

/* Add one iso_event row (the 11 columns of the query below) to the history. */
static void
add_event_row(IsoHistory *h, const Datum *d, const bool *isnull, int64 *last_txn,
			  MemoryContext build_cxt)
{
	MemoryContext temp_cxt = CurrentMemoryContext;
	int			i;
	int64		txn_id;
	int32		pos;
	IsoStatus	status;
	IsoOpKind	kind;
	char		status_buf[8];
	char		op_buf[8];
	const char *status_s;
	const char *op_s;
	IsoSlice	nil = {NULL, 0};
	IsoSlice	key;
	IsoSlice	value;

	txn_id = DatumGetInt64(d[0]);
	pos = DatumGetInt32(d[5]);
	status_s = text_cstring(d[2], status_buf, sizeof(status_buf));
	op_s = text_cstring(d[6], op_buf, sizeof(op_buf));
	if (!iso_status_parse(status_s, &status))
		status = ISO_STATUS_INFO;	/* iso_event's CHECK admits ok, fail, info */

	kind = event_kind(h->workload, txn_id, pos, op_s, !isnull[9], !isnull[10]);

	key = datum_slice(d[7]);
	value = nil;
	if (kind != ISO_OP_READ)
		value = datum_slice(d[8]);
	else if (!isnull[9])
		value = datum_slice(d[9]);

	/* h's arrays grow in build_cxt; detoasting and the like stay temporary */
	MemoryContextSwitchTo(build_cxt);
	if (h->n_txns == 0 || *last_txn != txn_id)
	{
		iso_history_add_txn(h, txn_id, status, !isnull[1],
							isnull[1] ? 0 : DatumGetInt64(d[1]),
							isnull[3] ? ISO_NO_TIME : DatumGetInt64(d[3]),
							isnull[4] ? ISO_NO_TIME : DatumGetInt64(d[4]));
		*last_txn = txn_id;
	}
	else
	{
		const IsoTxn *t = &h->txns[h->n_txns - 1];

		if (t->status != status || t->has_process == isnull[1] ||
			(!isnull[1] && t->process != DatumGetInt64(d[1])) ||
			(t->invoke_time == ISO_NO_TIME) != isnull[3] ||
			(!isnull[3] && t->invoke_time != DatumGetInt64(d[3])) ||
			(t->complete_time == ISO_NO_TIME) != isnull[4] ||
			(!isnull[4] && t->complete_time != DatumGetInt64(d[4])))
			bad_event(txn_id, pos,
					  "its process, status or times differ from the transaction's other events",
					  "All events of one transaction must repeat the same process, status, invoke_time and complete_time.");
	}

	if (kind == ISO_OP_READ && !isnull[10])
	{
		ArrayType  *arr;
		IsoSlice   *elems;
		char	   *p;
		int			n;

		/* walk the text[] in place: no deconstruct_array copy */
		MemoryContextSwitchTo(temp_cxt);
		arr = DatumGetArrayTypeP(d[10]);
		if (ARR_NDIM(arr) > 1)
			bad_event(txn_id, pos, "read_list has more than one dimension",
					  "A list read is a one-dimensional text array.");
		if (ARR_HASNULL(arr) && array_contains_nulls(arr))
			bad_event(txn_id, pos, "read_list contains a NULL element",
					  "List elements are the appended values, never NULL.");
		n = ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
		elems = palloc(sizeof(IsoSlice) * Max(n, 1));
		p = ARR_DATA_PTR(arr);
		for (i = 0; i < n; i++)
		{
			elems[i].ptr = VARDATA_ANY(p);
			elems[i].len = VARSIZE_ANY_EXHDR(p);
			p = att_addlength_pointer(p, -1, p);
			p = (char *) att_align_nominal(p, TYPALIGN_INT);
		}
		MemoryContextSwitchTo(build_cxt);
		iso_history_add_list(h, pos, key, elems, n);
	}
	else
		iso_history_add_op(h, kind, pos, key, value, NULL, -1);
	MemoryContextSwitchTo(temp_cxt);
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
} EventReceiver;

static bool
event_receive(TupleTableSlot *slot, DestReceiver *self)
{
	EventReceiver *r = (EventReceiver *) self;
	MemoryContext old;

	slot_getallattrs(slot);
	/* strings are copied into h's tables; temporaries die per batch */
	old = MemoryContextSwitchTo(r->batch_cxt);
	add_event_row(r->h, slot->tts_values, slot->tts_isnull, &r->last_txn,
				  r->build_cxt);
	MemoryContextSwitchTo(old);
	if (++r->rows % FETCH_BATCH == 0)
	{
		MemoryContextReset(r->batch_cxt);
		iso_check_memory(r->build_cxt);
		CHECK_FOR_INTERRUPTS();
	}
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

	old = MemoryContextSwitchTo(build_cxt);
	iso_history_init(h, workload);
	MemoryContextSwitchTo(old);

	memset(&receiver, 0, sizeof(receiver));
	receiver.pub.receiveSlot = event_receive;
	receiver.pub.rStartup = event_startup;
	receiver.pub.rShutdown = event_shutdown;
	receiver.pub.rDestroy = event_destroy;
	receiver.pub.mydest = DestNone;
	receiver.h = h;
	receiver.build_cxt = build_cxt;
	receiver.batch_cxt = AllocSetContextCreate(build_cxt, "isograph read batch",
											   ALLOCSET_DEFAULT_SIZES);

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
			IsoSlice	k = datum_slice(SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1, &isnull));
			IsoSlice	v = datum_slice(SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 2, &isnull));
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
