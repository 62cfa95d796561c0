/*
 * history_read.c
 *	  Reading a stored history (iso_event, iso_version) into an IsoHistory.
 *
 * One batched SPI cursor per table, in (txn_id, pos) order, so row-level
 * security applies and the check sees one snapshot.  Rows loaded by COPY
 * are validated here with the same rules the EDN loader applies.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/array.h"
#include "utils/builtins.h"
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

static void
bad_event(int64 txn_id, int32 pos, const char *msg, const char *hint)
{
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
	if (strcmp(op, "r") == 0)
	{
		if (workload == ISO_WORKLOAD_LIST_APPEND && has_read_value)
			bad_event(txn_id, pos, "a register read in a list-append history",
					  "Reads of a list-append history go in read_list.");
		if (workload == ISO_WORKLOAD_RW_REGISTER && has_read_list)
			bad_event(txn_id, pos, "a list read in a rw-register history",
					  "Reads of a rw-register history go in read_value.");
		return ISO_OP_READ;
	}
	if (strcmp(op, "append") == 0)
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

/* Add one iso_event row (SPI tuple) to the history. */
static void
add_event_row(IsoHistory *h, HeapTuple tup, TupleDesc desc, int64 *last_txn,
			  MemoryContext build_cxt)
{
	MemoryContext temp_cxt = CurrentMemoryContext;
	bool		isnull[11];
	Datum		d[11];
	int			i;
	int64		txn_id;
	int32		pos;
	IsoStatus	status;
	IsoOpKind	kind;
	char	   *status_s;
	char	   *op_s;
	IsoSlice	nil = {NULL, 0};
	IsoSlice	key;
	IsoSlice	value;

	for (i = 0; i < 11; i++)
		d[i] = SPI_getbinval(tup, desc, i + 1, &isnull[i]);
	txn_id = DatumGetInt64(d[0]);
	pos = DatumGetInt32(d[5]);
	status_s = TextDatumGetCString(d[2]);
	op_s = TextDatumGetCString(d[6]);
	status = strcmp(status_s, "ok") == 0 ? ISO_STATUS_OK :
		strcmp(status_s, "fail") == 0 ? ISO_STATUS_FAIL : ISO_STATUS_INFO;

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
		Datum	   *elems;
		bool	   *enulls;
		int			n;

		MemoryContextSwitchTo(temp_cxt);
		arr = DatumGetArrayTypeP(d[10]);
		if (ARR_NDIM(arr) > 1)
			bad_event(txn_id, pos, "read_list has more than one dimension",
					  "A list read is a one-dimensional text array.");
		deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &enulls, &n);
		for (i = 0; i < n; i++)
			if (!enulls[i])
				elems[i] = PointerGetDatum(DatumGetTextPP(elems[i]));
		MemoryContextSwitchTo(build_cxt);
		iso_history_add_list_read(h, pos, key, n);
		for (i = 0; i < n; i++)
		{
			if (enulls[i])
				bad_event(txn_id, pos, "read_list contains a NULL element",
						  "List elements are the appended values, never NULL.");
			iso_history_add_elem(h, datum_slice(elems[i]));
		}
	}
	else
		iso_history_add_op(h, kind, pos, key, value, NULL, -1);
	MemoryContextSwitchTo(temp_cxt);
}

/*
 * Read history_id's events into h, allocating in build_cxt.  The caller has
 * checked that the history exists.
 */
void
iso_read_history(int64 history_id, IsoWorkload workload, IsoHistory *h,
				 MemoryContext build_cxt)
{
	Oid			argtypes[1] = {INT8OID};
	Datum		args[1];
	MemoryContext batch_cxt;
	MemoryContext old;
	Portal		portal;
	int64		last_txn = 0;
	char	   *sql;

	old = MemoryContextSwitchTo(build_cxt);
	iso_history_init(h, workload);
	MemoryContextSwitchTo(old);

	batch_cxt = AllocSetContextCreate(build_cxt, "isograph read batch",
									  ALLOCSET_DEFAULT_SIZES);
	args[0] = Int64GetDatum(history_id);
	SPI_connect();
	sql = psprintf("SELECT txn_id, process, status, invoke_time, complete_time, pos, "
				   "op, key, value, read_value, read_list FROM %s "
				   "WHERE history_id OPERATOR(pg_catalog.=) $1 ORDER BY txn_id, pos",
				   iso_qualified_table_name(ISO_TABLE_EVENT));
	portal = SPI_cursor_open_with_args(NULL, sql, 1, argtypes, args, NULL, true, 0);
	for (;;)
	{
		uint64		i;

		SPI_cursor_fetch(portal, true, FETCH_BATCH);
		if (SPI_processed == 0)
			break;
		for (i = 0; i < SPI_processed; i++)
		{
			/* strings are copied into h's tables; temporaries die per batch */
			old = MemoryContextSwitchTo(batch_cxt);
			add_event_row(h, SPI_tuptable->vals[i], SPI_tuptable->tupdesc, &last_txn,
						  build_cxt);
			MemoryContextSwitchTo(old);
		}
		SPI_freetuptable(SPI_tuptable);
		MemoryContextReset(batch_cxt);
		iso_check_memory(build_cxt);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
	SPI_finish();
	MemoryContextDelete(batch_cxt);
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
