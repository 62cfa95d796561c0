/*
 * event_unpack.c
 *	  Reading the packed events of iso_event_chunk (0.5.0): a chunk's rows
 *	  for the view iso_event (iso_event_rows) and for the readers
 *	  (history_read.c, the store's rewrite in event_store.c), converted to
 *	  the database encoding when the chunk was packed in another.
 *
 * The format is src/core/event_chunk.h; unpacking checks every length, so
 * a damaged chunk is an ERROR (XX001), never a read outside it.
 */
#include "postgres.h"

#include "access/tupmacs.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "event_chunk.h"
#include "isograph.h"

/*
 * Unpacking a chunk: the strings of a chunk packed in another database
 * encoding (a dump restored elsewhere) are converted to this one.
 */
static IsoSlice
convert_slice(IsoSlice s, int from)
{
	char	   *c;
	IsoSlice	r;

	if (s.ptr == NULL || from == GetDatabaseEncoding())
		return s;
	c = (char *) pg_do_encoding_conversion((unsigned char *) s.ptr, s.len, from,
										   GetDatabaseEncoding());
	if (c == s.ptr)
		return s;
	r.ptr = c;
	r.len = strlen(c);
	return r;
}

/*
 * Open a chunk for reading; what names the chunk goes into the error.
 * Rows whose strings are in another encoding are converted by next.
 */
void
iso_event_chunk_open(IsoChunkReader *r, bytea *data, const char *what)
{
	if (!iso_chunk_reader_init(r, VARDATA_ANY(data), VARSIZE_ANY_EXHDR(data)))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("%s is damaged: %s", what, r->error),
				 errhint("Delete the history (iso_delete_history) and load it again.")));
	if (r->encoding != GetDatabaseEncoding() && !PG_VALID_BE_ENCODING(r->encoding))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("%s is damaged: it names no server encoding (%d)", what, r->encoding),
				 errhint("Delete the history (iso_delete_history) and load it again.")));
}

/* The next row of an open chunk, or NULL at its end. */
const IsoEventRow *
iso_event_chunk_next(IsoChunkReader *r, const char *what)
{
	int			ret = iso_chunk_reader_next(r);
	IsoEventRow *row = &r->row;
	int32		i;

	if (ret == 0)
		return NULL;
	if (ret < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("%s is damaged: %s", what, r->error),
				 errhint("Delete the history (iso_delete_history) and load it again.")));
	if (r->encoding != GetDatabaseEncoding())
	{
		row->key = convert_slice(row->key, r->encoding);
		row->value = convert_slice(row->value, r->encoding);
		row->read_value = convert_slice(row->read_value, r->encoding);
		for (i = r->skip_kept ? row->list_kept : 0; row->has_list && i < row->list_len; i++)
			r->list[i] = convert_slice(r->list[i], r->encoding);
	}
	return row;
}

/*
 * iso_event_rows(data bytea) returns setof the columns of iso_event but
 * history_id: the events packed in one chunk, for the view iso_event.
 */
PG_FUNCTION_INFO_V1(iso_event_rows);

typedef struct RowsState
{
	IsoChunkReader reader;
	Datum		status[3];
	Datum		op[3];
} RowsState;

static Datum
slice_text(IsoSlice s)
{
	return PointerGetDatum(cstring_to_text_with_len(s.ptr, s.len));
}

Datum
iso_event_rows(PG_FUNCTION_ARGS)
{
	FuncCallContext *fctx;
	RowsState  *rs;
	const IsoEventRow *row;
	Datum		values[EVENT_NATTS - 1];
	bool		nulls[EVENT_NATTS - 1];
	int			i;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext old;
		TupleDesc	desc;

		fctx = SRF_FIRSTCALL_INIT();
		old = MemoryContextSwitchTo(fctx->multi_call_memory_ctx);
		if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "iso_event_rows must return a composite type");
		fctx->tuple_desc = BlessTupleDesc(desc);
		rs = palloc0(sizeof(RowsState));
		iso_event_chunk_open(&rs->reader, PG_GETARG_BYTEA_PP(0), "a chunk of iso_event");
		for (i = 0; i < 3; i++)
		{
			rs->status[i] = CStringGetTextDatum(iso_status_name((IsoStatus) i));
			rs->op[i] = CStringGetTextDatum(iso_op_name((IsoOpKind) i));
		}
		fctx->user_fctx = rs;
		MemoryContextSwitchTo(old);
	}
	fctx = SRF_PERCALL_SETUP();
	rs = fctx->user_fctx;
	{
		/* the reader's list buffer must outlive this call */
		MemoryContext old = MemoryContextSwitchTo(fctx->multi_call_memory_ctx);

		row = iso_event_chunk_next(&rs->reader, "a chunk of iso_event");
		MemoryContextSwitchTo(old);
	}
	if (row == NULL)
		SRF_RETURN_DONE(fctx);

	memset(nulls, 0, sizeof(nulls));
	values[EVENT_TXN_ID - 2] = Int64GetDatum(row->txn_id);
	values[EVENT_PROCESS - 2] = Int64GetDatum(row->process);
	nulls[EVENT_PROCESS - 2] = !row->has_process;
	values[EVENT_STATUS - 2] = rs->status[row->status];
	values[EVENT_INVOKE_TIME - 2] = Int64GetDatum(row->invoke_time);
	nulls[EVENT_INVOKE_TIME - 2] = !row->has_invoke_time;
	values[EVENT_COMPLETE_TIME - 2] = Int64GetDatum(row->complete_time);
	nulls[EVENT_COMPLETE_TIME - 2] = !row->has_complete_time;
	values[EVENT_POS - 2] = Int32GetDatum(row->pos);
	values[EVENT_OP - 2] = rs->op[row->op];
	values[EVENT_KEY - 2] = slice_text(row->key);
	nulls[EVENT_VALUE - 2] = row->value.ptr == NULL;
	if (row->value.ptr != NULL)
		values[EVENT_VALUE - 2] = slice_text(row->value);
	nulls[EVENT_READ_VALUE - 2] = row->read_value.ptr == NULL;
	if (row->read_value.ptr != NULL)
		values[EVENT_READ_VALUE - 2] = slice_text(row->read_value);
	nulls[EVENT_READ_LIST - 2] = !row->has_list;
	if (row->has_list)
	{
		Datum	   *elems = palloc(sizeof(Datum) * Max(row->list_len, 1));

		for (i = 0; i < row->list_len; i++)
			elems[i] = slice_text(row->list[i]);
		values[EVENT_READ_LIST - 2] =
			PointerGetDatum(construct_array(elems, row->list_len, TEXTOID, -1, false, TYPALIGN_INT));
	}
	SRF_RETURN_NEXT(fctx, HeapTupleGetDatum(heap_form_tuple(fctx->tuple_desc, values, nulls)));
}
