/*
 * load.c
 *	  SQL glue for ingest: iso_parse_jepsen, iso_load_jepsen, iso_load_versions,
 *	  and the streaming load (iso_begin_load, view iso_jepsen_input).
 *
 * The parsers (edn.c, wal.c) stream transactions or versions to callbacks
 * defined here, which turn them into rows: tuplestore rows for
 * iso_parse_jepsen, table rows (writer.c) for the loaders.  Parser errors
 * come back as IsoParseError and become ereport(ERROR); since a load runs in
 * the caller's transaction, an error leaves nothing of the history behind.
 */
#include "postgres.h"

#include <ctype.h>

#include "miscadmin.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "check.h"
#include "history_edn.h"
#include "event_chunk.h"
#include "isograph.h"
#include "wal.h"

PG_FUNCTION_INFO_V1(iso_parse_jepsen);
PG_FUNCTION_INFO_V1(iso_load_jepsen);
PG_FUNCTION_INFO_V1(iso_load_jepsen_file);
PG_FUNCTION_INFO_V1(iso_load_versions);

/*
 * An EDN text with nothing in it is a mistake, not an empty history: what
 * psql's \set x `cat file` gives when the file cannot be read.  (A text
 * with only comments, or only records that are not transactions, is an
 * empty history on purpose.)  Only for loads: a check of a text in memory
 * (iso_levels_jepsen) finds an empty history valid, as Elle does.
 */
static void
refuse_blank_text(const char *name, const char *text, size_t len)
{
	size_t		i;

	for (i = 0; i < len; i++)
		if (!isspace((unsigned char) text[i]))
			return;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("history \"%s\" is empty", name),
			 errdetail("The EDN text holds nothing; a Jepsen history has one map per operation "
					   "(a history without transactions says so with a comment, e.g. \"; no operations\")."),
			 errhint("An unreadable or empty file gives this (psql's \\set x `cat file` then sets an empty value): check the file.")));
}

text *
iso_slice_to_text(IsoSlice slice)
{
	return cstring_to_text_with_len(slice.ptr, slice.len);
}

IsoWorkload
iso_workload_from_text(text *t)
{
	char	   *s = text_to_cstring(t);
	IsoWorkload workload;

	if (iso_workload_parse(s, &workload))
		return workload;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown workload \"%s\"", s),
			 errhint("Valid workloads are \"list-append\" and \"rw-register\".")));
	return ISO_WORKLOAD_UNKNOWN;
}

/*
 * Fill values/nulls (iso_event column order, starting at history_id) for
 * micro-op i of txn.  Allocates in the current memory context.
 */
/*
 * Text datums of the statuses and micro-op names, made once per call rather
 * than once per row (a load makes millions of rows).
 */
typedef struct ConstTexts
{
	Datum		status[3];
	Datum		op[3];
} ConstTexts;

static void
const_texts_init(ConstTexts *ct)
{
	int			i;

	for (i = 0; i < 3; i++)
	{
		ct->status[i] = CStringGetTextDatum(iso_status_name((IsoStatus) i));
		ct->op[i] = CStringGetTextDatum(iso_op_name((IsoOpKind) i));
	}
}

static void
event_row(const EdnTxn *txn, int i, int64 history_id, const ConstTexts *ct,
		  Datum *values, bool *nulls)
{
	const EdnOp *op = &txn->ops[i];

	memset(nulls, 0, EVENT_NATTS * sizeof(bool));
	values[EVENT_HISTORY_ID - 1] = Int64GetDatum(history_id);
	values[EVENT_TXN_ID - 1] = Int64GetDatum(txn->txn_id);
	values[EVENT_PROCESS - 1] = Int64GetDatum(txn->process);
	nulls[EVENT_PROCESS - 1] = !txn->has_process;
	values[EVENT_STATUS - 1] = ct->status[txn->status];
	values[EVENT_INVOKE_TIME - 1] = Int64GetDatum(txn->invoke_time);
	nulls[EVENT_INVOKE_TIME - 1] = !txn->has_invoke_time;
	values[EVENT_COMPLETE_TIME - 1] = Int64GetDatum(txn->complete_time);
	nulls[EVENT_COMPLETE_TIME - 1] = !txn->has_complete_time;
	values[EVENT_POS - 1] = Int32GetDatum(i);
	values[EVENT_OP - 1] = ct->op[op->op];
	values[EVENT_KEY - 1] = PointerGetDatum(iso_slice_to_text(op->key));

	nulls[EVENT_VALUE - 1] = op->value.ptr == NULL;
	if (op->value.ptr)
		values[EVENT_VALUE - 1] = PointerGetDatum(iso_slice_to_text(op->value));

	nulls[EVENT_READ_VALUE - 1] = op->read_value.ptr == NULL;
	if (op->read_value.ptr)
		values[EVENT_READ_VALUE - 1] = PointerGetDatum(iso_slice_to_text(op->read_value));

	nulls[EVENT_READ_LIST - 1] = op->list_len < 0;
	if (op->list_len >= 0)
	{
		Datum	   *elems = palloc(Max(op->list_len, 1) * sizeof(Datum));
		int			j;

		for (j = 0; j < op->list_len; j++)
			elems[j] = PointerGetDatum(iso_slice_to_text(op->list[j]));
		values[EVENT_READ_LIST - 1] =
			PointerGetDatum(construct_array(elems, op->list_len, TEXTOID, -1, false, TYPALIGN_INT));
	}
}

typedef struct EdnHistory
{
	IsoEdnHistory eh;			/* history_edn.c */
	MemoryContext cxt;			/* holds eh's arrays */
} EdnHistory;

static EdnHistory *
edn_history_begin(MemoryContext parent)
{
	MemoryContext cxt = AllocSetContextCreate(parent, "isograph EDN history",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	EdnHistory *h = palloc0(sizeof(EdnHistory));

	h->cxt = cxt;
	iso_edn_history_begin(&h->eh);
	MemoryContextSwitchTo(old);
	return h;
}

static void
edn_history_add(EdnHistory *h, const EdnTxn *txn)
{
	MemoryContext old = MemoryContextSwitchTo(h->cxt);

	iso_edn_history_add(txn, &h->eh);
	MemoryContextSwitchTo(old);
}

/* Finish the history: its workload, and txn_id order. */
static IsoHistory *
edn_history_finish(EdnHistory *h, IsoWorkload workload)
{
	MemoryContext old = MemoryContextSwitchTo(h->cxt);
	int64		dup;

	if (!iso_edn_history_finish(&h->eh, workload, &dup))
		ereport(ERROR,
				(errcode(ERRCODE_UNIQUE_VIOLATION),
				 errmsg("transaction id %lld occurs twice in the history", (long long) dup),
				 errdetail("A transaction's id is its completion's :index, or its position in the history when it has none."),
				 errhint("Give every completion a distinct :index.")));
	MemoryContextSwitchTo(old);
	return &h->eh.h;
}

/* State shared by the EDN callbacks. */
typedef struct LoadState
{
	int64		history_id;
	ConstTexts	texts;
	MemoryContext row_context;	/* reset after every transaction */
	Tuplestorestate *tupstore;	/* iso_parse_jepsen */
	TupleDesc	tupdesc;
	IsoTableWriter writer;		/* iso_load_jepsen, versions before 0.5.0 */
	IsoEventStore *store;		/* iso_load_jepsen, 0.5.0: packed events */
	EdnHistory *history;		/* iso_load_jepsen: what its image will hold */
	IsoImageStream image;		/* the image, written as history grows */
	int64		last_txn;		/* load_chunk_callback: history's last txn */
} LoadState;

static bool
parse_txn_callback(const EdnTxn *txn, void *arg)
{
	LoadState  *state = arg;
	MemoryContext old = MemoryContextSwitchTo(state->row_context);
	Datum		values[EVENT_NATTS];
	bool		nulls[EVENT_NATTS];
	int			i;

	CHECK_FOR_INTERRUPTS();
	for (i = 0; i < txn->n_ops; i++)
	{
		event_row(txn, i, 0, &state->texts, values, nulls);
		/* iso_parse_jepsen has no history_id column */
		tuplestore_putvalues(state->tupstore, state->tupdesc, values + 1, nulls + 1);
	}
	MemoryContextSwitchTo(old);
	MemoryContextReset(state->row_context);
	return true;
}

static bool
load_txn_callback(const EdnTxn *txn, void *arg)
{
	LoadState  *state = arg;
	MemoryContext old = MemoryContextSwitchTo(state->row_context);
	Datum		values[EVENT_NATTS];
	bool		nulls[EVENT_NATTS];
	int			i;

	CHECK_FOR_INTERRUPTS();
	for (i = 0; i < txn->n_ops; i++)
	{
		if (state->store != NULL)
		{
			IsoEventRow row;

			iso_event_of_txn(txn, i, &row);
			iso_event_store_add(state->store, state->history_id, &row);
			continue;
		}
		event_row(txn, i, state->history_id, &state->texts, values, nulls);
		iso_writer_put(&state->writer, values, nulls);
	}
	MemoryContextSwitchTo(old);
	MemoryContextReset(state->row_context);
	if (state->history != NULL)
		edn_history_add(state->history, txn);
	return true;
}

/*
 * A chunk of events the parallel worker packed (edn_parallel.c): stored as
 * the serial load's store would have stored its rows, and its events added
 * to the image's history as a check would read them back.  Transactions out
 * of txn_id order are sorted at the end, as iso_edn_history_add's are.
 */
static void
load_chunk_callback(const IsoChunkMeta *meta, const uint8 *data, size_t len, void *arg)
{
	LoadState  *state = arg;
	bool		in_order;

	CHECK_FOR_INTERRUPTS();
	in_order = iso_event_store_add_chunk(state->store, state->history_id, meta, data, len);
	if (state->history == NULL || meta->nrows == 0)
		return;
	/* the store's test of key order is the history's of txn_id order */
	if (!in_order)
		state->history->eh.in_order = false;
	iso_history_add_packed(&state->history->eh.h, data, len, &state->last_txn,
						   state->history->cxt);
	if (state->history->eh.in_order)
		iso_image_stream_progress(&state->image, &state->history->eh.h);
}

/* The chunk callback of a stored load: packed events only (0.5.0). */
static IsoPackedChunkCallback
load_chunk_callback_for(const LoadState *state)
{
	return state->store != NULL ? load_chunk_callback : NULL;
}

static void report_skipped(const EdnStats *stats);

/*
 * iso_parse_jepsen(edn text) returns setof event rows
 */
Datum
iso_parse_jepsen(PG_FUNCTION_ARGS)
{
	text	   *edn = PG_GETARG_TEXT_PP(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	LoadState	state;
	EdnStats	stats;
	IsoParseError err;

	InitMaterializedSRF(fcinfo, 0);
	memset(&state, 0, sizeof(state));
	const_texts_init(&state.texts);
	state.tupstore = rsinfo->setResult;
	state.tupdesc = rsinfo->setDesc;
	state.row_context = AllocSetContextCreate(CurrentMemoryContext,
											  "isograph parse rows",
											  ALLOCSET_DEFAULT_SIZES);

	if (!edn_parse_history(VARDATA_ANY(edn), VARSIZE_ANY_EXHDR(edn),
						   ISO_WORKLOAD_UNKNOWN, parse_txn_callback, &state,
						   &stats, &err))
		iso_report_edn_error(&err, VARDATA_ANY(edn), VARSIZE_ANY_EXHDR(edn));
	report_skipped(&stats);

	MemoryContextDelete(state.row_context);
	return (Datum) 0;
}

/* Store the rest of the image of the history just loaded (none for schema 0.1.0). */
static void
save_load_image(LoadState *state, IsoWorkload workload)
{
	if (state->history == NULL)
		return;
	iso_image_stream_finish(&state->image, edn_history_finish(state->history, workload));
	MemoryContextDelete(state->history->cxt);
	state->history = NULL;
}

static bool
memory_txn_callback(const EdnTxn *txn, void *arg)
{
	CHECK_FOR_INTERRUPTS();
	edn_history_add((EdnHistory *) arg, txn);
	return true;
}


/*
 * Say how many records were skipped as not transactions, and why: a
 * record of the nemesis or another :f is expected in a Jepsen history, but
 * the count lets a user see that a whole client's records were dropped.
 */
static void
report_skipped(const EdnStats *stats)
{
	if (stats->skipped == 0)
		return;
	ereport(NOTICE,
			(errmsg("skipped %lld of %lld records as not transactions",
					(long long) stats->skipped, (long long) stats->records),
			 errdetail("%lld with an :f other than :txn, %lld with a keyword :process such as :nemesis.",
					   (long long) stats->skipped_f, (long long) stats->skipped_process)));
}

/* After the parser has seen the whole history: say what was skipped, finish it. */
static IsoHistory *
memory_history_finish(EdnHistory *eh, const EdnStats *stats, const char *workload_hint,
					  IsoTimeSource *time_source)
{
	report_skipped(stats);
	if (stats->workload == ISO_WORKLOAD_UNKNOWN)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("cannot tell the workload of the history"),
				 errdetail("The history has no writes and no reads that return a value."),
				 errhint("Pass the workload explicitly, e.g. %s.", workload_hint)));
	*time_source = stats->time_source;
	return edn_history_finish(eh, stats->workload);
}

/*
 * After a read in two parts (joined: they were read and joined,
 * edn_split.c): true with the history in txn_id order; else false, *eh a
 * new empty history for a read in one part (of a "file" or "text"), which
 * names a transaction id in both parts.
 */
static bool
split_read(EdnHistory **eh, MemoryContext cxt, const EdnStats *stats, bool joined,
		   const char *what)
{
	if (joined)
	{
		MemoryContext old = MemoryContextSwitchTo((*eh)->cxt);
		int64		dup;
		bool		ok = iso_edn_history_finish(&(*eh)->eh, stats->workload, &dup);

		MemoryContextSwitchTo(old);
		if (ok)
			return true;
		elog(DEBUG1, "isograph: history %s read again in one part: a transaction id is in both parts",
			 what);
	}
	MemoryContextDelete((*eh)->cxt);
	*eh = edn_history_begin(cxt);
	return false;
}

/*
 * Parse an EDN history straight into memory (a child context of cxt), for
 * a check that stores nothing.  Errors as iso_load_jepsen's.
 */
IsoHistory *
iso_history_from_edn(text *edn, IsoWorkload expected, MemoryContext cxt,
					 IsoTimeSource *time_source, bool *split)
{
	EdnHistory *eh = edn_history_begin(cxt);
	EdnStats	stats;
	IsoParseError err;

	/* in two parts at once, if it can be (edn_split.c) */
	if (split != NULL)
	{
		bool		joined = iso_edn_parse_text_split(VARDATA_ANY(edn), VARSIZE_ANY_EXHDR(edn),
													  expected, memory_txn_callback, eh,
													  &eh->eh, eh->cxt, &stats);

		*split = split_read(&eh, cxt, &stats, joined, "text");
		if (*split)
			return memory_history_finish(eh, &stats, "iso_levels_jepsen(edn, 'rw-register')",
										 time_source);
	}
	if (!edn_parse_history(VARDATA_ANY(edn), VARSIZE_ANY_EXHDR(edn),
						   expected, memory_txn_callback, eh, &stats, &err))
		iso_report_edn_error(&err, VARDATA_ANY(edn), VARSIZE_ANY_EXHDR(edn));
	return memory_history_finish(eh, &stats, "iso_levels_jepsen(edn, 'rw-register')",
								 time_source);
}

/*
 * The same from a file on the server, read in blocks (edn_file.c): a file
 * of any size, no text of it in memory.
 */
IsoHistory *
iso_history_from_edn_file(const char *path, IsoWorkload expected, MemoryContext cxt,
						  IsoTimeSource *time_source, bool *split)
{
	EdnHistory *eh = edn_history_begin(cxt);
	EdnStats	stats;
	IsoParseError err;
	EdnStream  *stream;
	bool		saw_text;

	/* in two parts at once, if it can be (edn_split.c) */
	if (split != NULL)
	{
		bool		joined = iso_edn_read_file_split(path, expected, memory_txn_callback, eh,
													 &eh->eh, eh->cxt, &stats);

		*split = split_read(&eh, cxt, &stats, joined, "file");
		if (*split)
			return memory_history_finish(eh, &stats, "iso_levels_jepsen_file(path, 'rw-register')",
										 time_source);
	}
	stream = edn_stream_begin(expected, memory_txn_callback, eh, &stats, &err);
	iso_edn_read_file(path, stream, &err, &saw_text);
	edn_stream_free(stream);
	return memory_history_finish(eh, &stats, "iso_levels_jepsen_file(path, 'rw-register')",
								 time_source);
}

/*
 * A load of an EDN history into iso_event, shared by iso_load_jepsen (the
 * whole text at once) and the streaming load (iso_begin_load, then lines
 * written to iso_jepsen_input): jepsen_load_begin creates the history,
 * load_txn_callback writes each transaction's rows and adds it to the
 * image, jepsen_load_finish checks and completes it.  Everything lives in
 * memory of the caller's context (the load's own for a streaming load).
 */
typedef struct JepsenLoad
{
	char	   *name;
	IsoWorkload expected;		/* ISO_WORKLOAD_UNKNOWN: infer it */
	const char *workload_hint;	/* how to pass the workload explicitly */
	LoadState	state;
	EdnStats	stats;
	IsoParseError err;
	EdnStream  *stream;			/* streaming load only */
	bool		saw_text;		/* streaming: a line with more than spaces */
} JepsenLoad;

static void
jepsen_load_begin(JepsenLoad *load, const char *name, IsoWorkload expected,
				  const char *workload_hint)
{
	LoadState  *state = &load->state;

	memset(load, 0, sizeof(*load));
	load->name = pstrdup(name);
	load->expected = expected;
	load->workload_hint = workload_hint;
	const_texts_init(&state->texts);
	state->history_id = iso_history_create(name,
										   iso_workload_name(expected == ISO_WORKLOAD_UNKNOWN ?
															 ISO_WORKLOAD_LIST_APPEND : expected),
										   "jepsen-edn");
	/* the lock every writer of a history's rows takes first (image_store.c) */
	iso_history_lock(state->history_id);
	state->row_context = AllocSetContextCreate(CurrentMemoryContext,
											   "isograph load rows",
											   ALLOCSET_DEFAULT_SIZES);
	if (iso_events_packed())
		state->store = iso_event_store_open();
	else
		iso_writer_open(&state->writer, ISO_TABLE_EVENT);
	/* the image is built on the way (schema 0.1.0 has no images) */
	if (iso_table_exists(ISO_TABLE_IMAGE))
	{
		state->history = edn_history_begin(CurrentMemoryContext);
		iso_image_stream_begin(&state->image, state->history_id);
	}
}

/*
 * A parallel worker may parse the EDN (edn_parallel.c) while the load
 * stores it: the chunk writer's queries run now, and the transaction id is
 * taken, before the parallel mode that forbids both.
 */
static void
jepsen_load_before_worker(JepsenLoad *load)
{
	if (load->state.store != NULL)
		iso_event_store_prepare(load->state.store, load->state.history_id);
	(void) GetCurrentTransactionId();
}

/* After the parser has seen the whole history: checks, metadata, image. */
static int64
jepsen_load_finish(JepsenLoad *load)
{
	LoadState  *state = &load->state;

	report_skipped(&load->stats);
	/* out of txn_id order: the image is sorted, the chunks are rewritten */
	if (state->history != NULL && !state->history->eh.in_order)
		iso_image_stream_restart(&state->image);
	if (state->store != NULL)
	{
		iso_event_store_close(state->store);
		state->store = NULL;
	}
	else
		iso_writer_close(&state->writer);
	MemoryContextDelete(state->row_context);
	state->row_context = NULL;

	if (load->stats.workload == ISO_WORKLOAD_UNKNOWN)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("cannot tell the workload of history \"%s\"", load->name),
				 errdetail("The history has no writes and no reads that return a value."),
				 errhint("Pass the workload explicitly, e.g. %s.", load->workload_hint)));

	iso_history_finish_load(state->history_id, iso_workload_name(load->stats.workload),
							load->stats.skipped, load->stats.time_source);
	save_load_image(state, load->stats.workload);
	return state->history_id;
}

/*
 * iso_load_jepsen(name text, edn text, workload text DEFAULT NULL) returns bigint
 */
Datum
iso_load_jepsen(PG_FUNCTION_ARGS)
{
	text	   *edn;
	IsoWorkload expected = ISO_WORKLOAD_UNKNOWN;
	JepsenLoad	load;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("history name and EDN text must not be null")));
	edn = PG_GETARG_TEXT_PP(1);
	if (!PG_ARGISNULL(2))
		expected = iso_workload_from_text(PG_GETARG_TEXT_PP(2));

	refuse_blank_text(text_to_cstring(PG_GETARG_TEXT_PP(0)), VARDATA_ANY(edn), VARSIZE_ANY_EXHDR(edn));
	jepsen_load_begin(&load, text_to_cstring(PG_GETARG_TEXT_PP(0)), expected,
					  "iso_load_jepsen(name, edn, 'rw-register')");
	jepsen_load_before_worker(&load);
	if (!iso_edn_read_text_parallel(VARDATA_ANY(edn), VARSIZE_ANY_EXHDR(edn), expected,
									load_txn_callback, load_chunk_callback_for(&load.state),
									&load.state, &load.stats) &&
		!edn_parse_history(VARDATA_ANY(edn), VARSIZE_ANY_EXHDR(edn),
						   expected, load_txn_callback, &load.state,
						   &load.stats, &load.err))
		iso_report_edn_error(&load.err, VARDATA_ANY(edn), VARSIZE_ANY_EXHDR(edn));
	PG_RETURN_INT64(jepsen_load_finish(&load));
}

/*
 * iso_load_jepsen_file(name text, path text, workload text DEFAULT NULL) returns bigint
 *
 * iso_load_jepsen of an EDN file on the server, read in blocks as the
 * streaming load reads lines (edn_file.c): any size, no text of it in memory.
 */
Datum
iso_load_jepsen_file(PG_FUNCTION_ARGS)
{
	IsoWorkload expected = ISO_WORKLOAD_UNKNOWN;
	JepsenLoad	load;
	char	   *name;
	char	   *path;
	bool		saw_text;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("history name and file path must not be null")));
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	path = text_to_cstring(PG_GETARG_TEXT_PP(1));
	if (!PG_ARGISNULL(2))
		expected = iso_workload_from_text(PG_GETARG_TEXT_PP(2));

	/* before the history is created: a role refused creates nothing */
	iso_check_read_server_files();
	jepsen_load_begin(&load, name, expected, "iso_load_jepsen_file(name, path, 'rw-register')");
	jepsen_load_before_worker(&load);
	if (!iso_edn_read_file_parallel(path, expected, load_txn_callback,
									load_chunk_callback_for(&load.state), &load.state,
									&load.stats, &saw_text))
	{
		load.stream = edn_stream_begin(expected, load_txn_callback, &load.state,
									   &load.stats, &load.err);
		iso_edn_read_file(path, load.stream, &load.err, &saw_text);
		edn_stream_free(load.stream);
		load.stream = NULL;
	}
	if (!saw_text)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("history \"%s\" is empty", name),
				 errdetail("The file \"%s\" holds nothing but white space; a Jepsen history has one map per operation "
						   "(a history without transactions says so with a comment, e.g. \"; no operations\").", path),
				 errhint("Check the path: a relative one is relative to the data directory.")));
	PG_RETURN_INT64(jepsen_load_finish(&load));
}

/* State of iso_load_versions. */
typedef struct VersionLoad
{
	int64		history_id;
	HTAB	   *positions;		/* key text -> next position */
	HTAB	   *written;		/* (key, value) pairs written in the history */
	MemoryContext cxt;			/* lives as long as the hash tables */
	IsoTableWriter writer;
	MemoryContext row_context;
} VersionLoad;

/*
 * dynahash entries keyed by a pointer to a counted string (len + bytes), so
 * keys and values of any length fit.
 */
typedef struct StrKey
{
	int32		len;
	char		data[FLEXIBLE_ARRAY_MEMBER];
} StrKey;

typedef struct StrEntry
{
	StrKey	   *key;
	int32		next;			/* positions: next position of this key */
} StrEntry;

static uint32
strkey_hash(const void *key, Size keysize)
{
	const StrKey *k = *(StrKey *const *) key;

	return DatumGetUInt32(hash_any((const unsigned char *) k->data, k->len));
}

static int
strkey_match(const void *a, const void *b, Size keysize)
{
	const StrKey *x = *(StrKey *const *) a;
	const StrKey *y = *(StrKey *const *) b;

	if (x->len != y->len)
		return 1;
	return memcmp(x->data, y->data, x->len);
}

static HTAB *
strkey_table(const char *name)
{
	HASHCTL		ctl;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(StrKey *);
	ctl.entrysize = sizeof(StrEntry);
	ctl.hash = strkey_hash;
	ctl.match = strkey_match;
	ctl.hcxt = CurrentMemoryContext;
	return hash_create(name, 1024, &ctl,
					   HASH_ELEM | HASH_FUNCTION | HASH_COMPARE | HASH_CONTEXT);
}

/* A counted string made of one text, or of two joined by a NUL byte. */
static StrKey *
make_strkey(MemoryContext cxt, const char *a, int alen, const char *b, int blen)
{
	int			len = b ? alen + 1 + blen : alen;
	StrKey	   *k = MemoryContextAlloc(cxt, offsetof(StrKey, data) + len);

	k->len = len;
	memcpy(k->data, a, alen);
	if (b)
	{
		k->data[alen] = '\0';
		memcpy(k->data + alen + 1, b, blen);
	}
	return k;
}

/* Every (key, value) written in the history, to reject unknown versions. */
static HTAB *
load_written_pairs(int64 history_id)
{
	MemoryContext cxt = CurrentMemoryContext;
	HTAB	   *written = strkey_table("isograph written values");
	Oid			argtypes[1] = {INT8OID};
	Datum		args[1];
	char	   *sql;
	Portal		portal;

	args[0] = Int64GetDatum(history_id);
	SPI_connect();
	sql = psprintf("SELECT key, value FROM %s WHERE history_id OPERATOR(pg_catalog.=) $1 "
				   "AND op OPERATOR(pg_catalog.<>) 'r'",
				   iso_qualified_table_name(ISO_TABLE_EVENT));
	/* not read-only: see events loaded earlier in the same statement */
	portal = SPI_cursor_open_with_args(NULL, sql, 1, argtypes, args, NULL, false, 0);
	for (;;)
	{
		uint64		i;

		SPI_cursor_fetch(portal, true, 10000);
		if (SPI_processed == 0)
			break;
		for (i = 0; i < SPI_processed; i++)
		{
			HeapTuple	tup = SPI_tuptable->vals[i];
			char	   *k = SPI_getvalue(tup, SPI_tuptable->tupdesc, 1);
			char	   *v = SPI_getvalue(tup, SPI_tuptable->tupdesc, 2);
			StrKey	   *pair = make_strkey(cxt, k, strlen(k), v, strlen(v));
			bool		found;

			StrEntry   *entry = hash_search(written, &pair, HASH_ENTER, &found);

			if (!found)
				entry->next = 0;
		}
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
	SPI_finish();
	return written;
}

static bool
version_callback(const WalVersion *version, void *arg)
{
	VersionLoad *state = arg;
	MemoryContext old = MemoryContextSwitchTo(state->row_context);
	StrKey	   *probe;
	StrEntry   *entry;
	bool		found;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};

	CHECK_FOR_INTERRUPTS();
	probe = make_strkey(state->row_context, version->key.ptr, version->key.len,
						version->value.ptr, version->value.len);
	entry = hash_search(state->written, &probe, HASH_FIND, &found);
	if (!found)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("version log names value \"%.*s\" of key \"%.*s\", which no transaction of the history wrote",
						version->value.len, version->value.ptr,
						version->key.len, version->key.ptr),
				 errdetail("Every logged version must be the value of a w micro-operation in iso_event."),
				 errhint("Check that the log belongs to this history."),
				 errcontext("WAL line %lld", (long long) version->line)));
	if (entry->next++ > 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("version log names value \"%.*s\" of key \"%.*s\" twice",
						version->value.len, version->value.ptr,
						version->key.len, version->key.ptr),
				 errdetail("A version order lists each version once."),
				 errhint("Check that the log has no repeated or replayed entries."),
				 errcontext("WAL line %lld", (long long) version->line)));

	probe = make_strkey(state->row_context, version->key.ptr, version->key.len, NULL, 0);
	entry = hash_search(state->positions, &probe, HASH_ENTER, &found);
	if (!found)
	{
		entry->key = make_strkey(state->cxt,
								 version->key.ptr, version->key.len, NULL, 0);
		entry->next = 0;
	}

	values[0] = Int64GetDatum(state->history_id);
	values[1] = PointerGetDatum(iso_slice_to_text(version->key));
	values[2] = Int32GetDatum(entry->next++);
	values[3] = PointerGetDatum(iso_slice_to_text(version->value));
	iso_writer_put(&state->writer, values, nulls);
	MemoryContextSwitchTo(old);
	MemoryContextReset(state->row_context);
	return true;
}

/* True if the history already has a version order. */
static bool
history_has_versions(int64 history_id)
{
	Oid			argtypes[1] = {INT8OID};
	Datum		args[1];
	bool		found;

	args[0] = Int64GetDatum(history_id);
	SPI_connect();
	SPI_execute_with_args(psprintf("SELECT 1 FROM %s WHERE history_id OPERATOR(pg_catalog.=) $1",
								   iso_qualified_table_name(ISO_TABLE_VERSION)),
						  1, argtypes, args, NULL, true, 1);
	found = SPI_processed > 0;
	SPI_finish();
	return found;
}

/*
 * iso_load_versions(history_id bigint, wal text) returns bigint
 */
Datum
iso_load_versions(PG_FUNCTION_ARGS)
{
	int64		history_id = PG_GETARG_INT64(0);
	text	   *wal = PG_GETARG_TEXT_PP(1);
	IsoWorkload workload;
	VersionLoad state;
	IsoParseError err;
	int64		skipped;

	iso_history_id_check(history_id);
	iso_snapshot_push_latest();
	if (!iso_history_lookup(history_id, NULL, &workload))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("history %lld does not exist", (long long) history_id)));
	iso_snapshot_pop();
	if (workload != ISO_WORKLOAD_RW_REGISTER)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("history %lld is a list-append history", (long long) history_id),
				 errdetail("List reads reveal the version order; a version log is only for rw-register histories.")));
	iso_history_lock(history_id);
	if (history_has_versions(history_id))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("history %lld already has a version order", (long long) history_id),
				 errhint("Delete the history's rows from iso_version first.")));

	memset(&state, 0, sizeof(state));
	state.history_id = history_id;
	state.cxt = CurrentMemoryContext;
	state.written = load_written_pairs(history_id);
	state.positions = strkey_table("isograph version positions");
	state.row_context = AllocSetContextCreate(CurrentMemoryContext,
											  "isograph version rows",
											  ALLOCSET_DEFAULT_SIZES);
	iso_writer_open(&state.writer, ISO_TABLE_VERSION);
	if (!wal_parse(VARDATA_ANY(wal), VARSIZE_ANY_EXHDR(wal),
				   version_callback, &state, &skipped, &err))
		iso_report_parse_error(&err, "WAL");
	iso_writer_close(&state.writer);
	MemoryContextDelete(state.row_context);
	PG_RETURN_INT64(state.writer.rows);
}

/* ----------------------------------------------------------------------
 * Streaming load: iso_begin_load(name, workload), then the history's lines
 * written to the view iso_jepsen_input (COPY ... FROM STDIN, or INSERT),
 * whose row trigger feeds them to the streaming EDN reader and whose
 * statement trigger finishes the load.  The text is never held whole: the
 * reader keeps only an unfinished record, and the rows go to iso_event as
 * the transactions complete.  The load is created and finished by the one
 * statement that writes the lines, so it is all or nothing with that
 * statement's transaction.
 * ----------------------------------------------------------------------
 */

/* iso_begin_load's request, kept for the session until a statement uses it. */
typedef struct OpenLoad
{
	bool		open;
	char	   *name;			/* in TopMemoryContext */
	IsoWorkload expected;
	bool		opened_in_xact; /* by the current (uncommitted) transaction */
	SubTransactionId opened_subxact;
	/* the statement writing the lines */
	bool		started;		/* it began to (even if it failed to) */
	JepsenLoad *active;			/* in 'cxt' */
	MemoryContext cxt;			/* child of that (sub)transaction's context */
	SubTransactionId active_subxact;
} OpenLoad;

static OpenLoad open_load;
static bool stream_callbacks_registered = false;

static void
open_load_clear(void)
{
	if (open_load.name)
		pfree(open_load.name);
	open_load.name = NULL;
	open_load.open = false;
	open_load.opened_in_xact = false;
	open_load.started = false;
	/* the load's memory goes with its transaction's context */
	open_load.active = NULL;
	open_load.cxt = NULL;
}

static void
stream_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PARALLEL_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			if (open_load.active != NULL)
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("streaming load of history \"%s\" was not finished",
								open_load.name),
						 errdetail("Lines were written to iso_jepsen_input, but the statement that wrote them did not end.")));
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PREPARE:
			open_load.opened_in_xact = false;
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			/* a load that had begun is gone; so is a request of this transaction */
			if (open_load.started || open_load.opened_in_xact)
				open_load_clear();
			break;
	}
}

static void
stream_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						SubTransactionId parentSubid, void *arg)
{
	if (!open_load.open)
		return;
	if (event == SUBXACT_EVENT_ABORT_SUB)
	{
		if ((open_load.started && open_load.active_subxact == mySubid) ||
			(open_load.opened_in_xact && open_load.opened_subxact == mySubid))
			open_load_clear();
	}
	else if (event == SUBXACT_EVENT_COMMIT_SUB)
	{
		if (open_load.opened_in_xact && open_load.opened_subxact == mySubid)
			open_load.opened_subxact = parentSubid;
		if (open_load.started && open_load.active_subxact == mySubid)
			open_load.active_subxact = parentSubid;
	}
}

PG_FUNCTION_INFO_V1(iso_begin_load);
PG_FUNCTION_INFO_V1(iso_cancel_load);
PG_FUNCTION_INFO_V1(iso_jepsen_input_line);
PG_FUNCTION_INFO_V1(iso_jepsen_input_end);

/*
 * iso_begin_load(name text, workload text DEFAULT NULL) returns void
 *
 * Names the history that the next statement writing to iso_jepsen_input
 * loads.  Nothing is written yet.
 */
Datum
iso_begin_load(PG_FUNCTION_ARGS)
{
	IsoWorkload expected = ISO_WORKLOAD_UNKNOWN;
	char	   *name;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("history name must not be null")));
	if (!PG_ARGISNULL(1))
		expected = iso_workload_from_text(PG_GETARG_TEXT_PP(1));
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	if (open_load.open)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("a load of history \"%s\" is already open", open_load.name),
				 errdetail("A session loads one history at a time: the next statement that writes to iso_jepsen_input loads it."),
				 errhint("Write its lines to iso_jepsen_input, or give it up with iso_cancel_load().")));
	if (!stream_callbacks_registered)
	{
		RegisterXactCallback(stream_xact_callback, NULL);
		RegisterSubXactCallback(stream_subxact_callback, NULL);
		stream_callbacks_registered = true;
	}
	open_load.name = MemoryContextStrdup(TopMemoryContext, name);
	open_load.expected = expected;
	open_load.open = true;
	open_load.opened_in_xact = true;
	open_load.opened_subxact = GetCurrentSubTransactionId();
	PG_RETURN_VOID();
}

/* iso_cancel_load() returns boolean: whether a load was open. */
Datum
iso_cancel_load(PG_FUNCTION_ARGS)
{
	bool		was_open = open_load.open;

	if (open_load.active != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot cancel the load of history \"%s\" while its lines are being written",
						open_load.name)));
	open_load_clear();
	PG_RETURN_BOOL(was_open);
}

/* Start the open load for the current statement. */
static JepsenLoad *
stream_start(void)
{
	MemoryContext cxt;
	MemoryContext old;
	JepsenLoad *load;

	if (!open_load.open)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("no load is open"),
				 errdetail("Lines written to iso_jepsen_input belong to the history named by iso_begin_load()."),
				 errhint("Call iso_begin_load(name, workload) first, e.g. SELECT iso_begin_load('h1', 'list-append');")));
	/* from here, an error ends the load: the request is used up */
	open_load.started = true;
	open_load.active_subxact = GetCurrentSubTransactionId();
	cxt = AllocSetContextCreate(CurTransactionContext, "isograph streaming load",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	load = palloc0(sizeof(JepsenLoad));
	jepsen_load_begin(load, open_load.name, open_load.expected,
					  "SELECT iso_begin_load(name, 'rw-register')");
	load->stream = edn_stream_begin(open_load.expected, load_txn_callback,
									&load->state, &load->stats, &load->err);
	/* the queries of a history's first event, run now (see the caller) */
	if (load->state.store != NULL)
		iso_event_store_prepare(load->state.store, load->state.history_id);
	MemoryContextSwitchTo(old);
	open_load.cxt = cxt;
	open_load.active = load;
	return load;
}

static void
check_stream_trigger(FunctionCallInfo fcinfo, bool row)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;

	if (!CALLED_AS_TRIGGER(fcinfo) ||
		!TRIGGER_FIRED_BY_INSERT(trigdata->tg_event) ||
		(row ? !TRIGGER_FIRED_FOR_ROW(trigdata->tg_event) :
		 !TRIGGER_FIRED_FOR_STATEMENT(trigdata->tg_event)))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("%s must be fired by INSERT %s",
						row ? "iso_jepsen_input_line" : "iso_jepsen_input_end",
						row ? "for each row" : "for each statement")));
	/* a trigger on another relation than iso_jepsen_input: one text column */
	if (row && (trigdata->tg_relation->rd_att->natts != 1 ||
				TupleDescAttr(trigdata->tg_relation->rd_att, 0)->atttypid != TEXTOID))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("iso_jepsen_input_line must be fired for a relation of one text column")));
}

/*
 * INSTEAD OF INSERT row trigger of iso_jepsen_input: one line of the
 * history (NULL, as COPY's csv format reads an empty line, is an empty
 * line).
 */
Datum
iso_jepsen_input_line(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	HeapTuple	tuple;
	JepsenLoad *load;
	MemoryContext old;
	Datum		d;
	bool		isnull;

	check_stream_trigger(fcinfo, true);
	tuple = trigdata->tg_trigtuple;
	load = open_load.active;
	if (load == NULL)
	{
		/*
		 * Every query of the load but its end (iso_jepsen_input_end, which
		 * has a SET clause) runs here, in the statement's first line: the
		 * history's row, its lock, the event store's look at its chunks.
		 * The function has no SET clause (one GUC save and restore per
		 * line cost an eighth of the load), so it pins search_path here,
		 * like one, against objects of the caller's schemas.  The later
		 * lines parse and pack; a chunk is written by the bulk writer,
		 * which resolves no names.
		 */
		int			guc_level = NewGUCNestLevel();

		(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET,
								 PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
		load = stream_start();
		AtEOXact_GUC(true, guc_level);
	}
	d = heap_getattr(tuple, 1, trigdata->tg_relation->rd_att, &isnull);
	old = MemoryContextSwitchTo(open_load.cxt);
	if (isnull)
		edn_stream_line(load->stream, "", 0);
	else
	{
		text	   *t = DatumGetTextPP(d);
		size_t		i;

		for (i = 0; !load->saw_text && i < VARSIZE_ANY_EXHDR(t); i++)
			load->saw_text = !isspace((unsigned char) VARDATA_ANY(t)[i]);
		if (!edn_stream_line(load->stream, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t)))
			iso_report_edn_error(&load->err, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
		if ((Pointer) t != DatumGetPointer(d))
			pfree(t);
	}
	MemoryContextSwitchTo(old);

	/*
	 * The row counts as written (COPY reports the lines), so a tuple must
	 * come back; not the line's own, though: the executor made it in the
	 * statement's memory and frees it only if the trigger returns another,
	 * so returning it would keep every line until the statement ends.  A
	 * NULL line, made here in the per-row memory, stands in for it.
	 */
	{
		Datum		none = (Datum) 0;
		bool		null = true;

		return PointerGetDatum(heap_form_tuple(trigdata->tg_relation->rd_att, &none, &null));
	}
}

/*
 * AFTER INSERT statement trigger of iso_jepsen_input: the end of the
 * history.  A statement that wrote no line loads an empty history if a
 * load was open, and does nothing otherwise.
 */
Datum
iso_jepsen_input_end(PG_FUNCTION_ARGS)
{
	JepsenLoad *load;
	MemoryContext old;
	int64		history_id;
	char	   *name;

	check_stream_trigger(fcinfo, false);
	if (open_load.active == NULL && !open_load.open)
		return PointerGetDatum(NULL);
	load = open_load.active ? open_load.active : stream_start();
	if (!load->saw_text)
		refuse_blank_text(load->name, "", 0);
	old = MemoryContextSwitchTo(open_load.cxt);
	if (!edn_stream_finish(load->stream))
		iso_report_parse_error(&load->err, "EDN");
	edn_stream_free(load->stream);
	load->stream = NULL;
	history_id = jepsen_load_finish(load);
	MemoryContextSwitchTo(old);

	name = pstrdup(open_load.name);
	MemoryContextDelete(open_load.cxt);
	open_load_clear();
	ereport(NOTICE,
			(errmsg("loaded history \"%s\" as history_id %lld", name, (long long) history_id)));
	return PointerGetDatum(NULL);
}
