/*
 * load_am.c
 *	  iso_load, the table access method of iso_event_load: COPY's rows
 *	  handed straight to the event store.
 *
 * iso_event_load was a view with an INSTEAD OF trigger until this
 * version.  A COPY into a view forms a heap tuple of every row and calls
 * the trigger through the function manager, which was a quarter of the
 * COPY's time (docs/performance.md).  A table of this access method gets
 * the values COPY (or INSERT) parsed in a virtual slot instead, and packs
 * them as iso_event's trigger does (iso_event_load_rows, event_input.c):
 * the same checks, the same owner and locks, the same events.  The
 * statement's last chunks are written by the table's AFTER INSERT
 * statement trigger, iso_input_end, as for the views.
 *
 * The table keeps nothing: reading it returns no rows, like
 * iso_jepsen_input (the events are in iso_event), and its relation file
 * stays empty.  Updates, deletes, ON CONFLICT and indexes have no rows
 * to act on and are refused.  Only iso_event_load may use this access
 * method: a row written to another table of it is refused
 * (statement_state).
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/multixact.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/storage.h"
#include "catalog/storage_xlog.h"
#include "commands/copy.h"
#include "commands/copyfrom_internal.h"
#include "executor/tuptable.h"
#include "storage/smgr.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "isograph.h"

PG_FUNCTION_INFO_V1(iso_load_am_handler);

static void
refuse(Relation rel, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("table \"%s\" of access method iso_load does not support %s",
					RelationGetRelationName(rel), what),
			 errdetail("Rows written to iso_event_load are stored in iso_event; the table keeps none."),
			 errhint("Change or read the events through iso_event.")));
}

static const TupleTableSlotOps *
load_slot_callbacks(Relation rel)
{
	return &TTSOpsVirtual;
}

/* ---- Scans: there are no rows. ---- */

static TableScanDesc
load_scan_begin(Relation rel, Snapshot snapshot, int nkeys, struct ScanKeyData *key,
				ParallelTableScanDesc pscan, uint32 flags)
{
	TableScanDesc scan = palloc0(sizeof(TableScanDescData));

	scan->rs_rd = rel;
	scan->rs_snapshot = snapshot;
	scan->rs_nkeys = nkeys;
	scan->rs_key = key;
	scan->rs_flags = flags;
	scan->rs_parallel = pscan;
	return scan;
}

static void
load_scan_end(TableScanDesc scan)
{
	if (scan->rs_flags & SO_TEMP_SNAPSHOT)
		UnregisterSnapshot(scan->rs_snapshot);
	pfree(scan);
}

static void
load_scan_rescan(TableScanDesc scan, struct ScanKeyData *key, bool set_params,
				 bool allow_strat, bool allow_sync, bool allow_pagemode)
{
}

static bool
load_scan_getnextslot(TableScanDesc scan, ScanDirection direction, TupleTableSlot *slot)
{
	ExecClearTuple(slot);
	return false;
}

static struct IndexFetchTableData *
load_index_fetch_begin(Relation rel)
{
	IndexFetchTableData *fetch = palloc0(sizeof(IndexFetchTableData));

	fetch->rel = rel;
	return fetch;
}

static void
load_index_fetch_reset(struct IndexFetchTableData *fetch)
{
}

static void
load_index_fetch_end(struct IndexFetchTableData *fetch)
{
	pfree(fetch);
}

static bool
load_index_fetch_tuple(struct IndexFetchTableData *fetch, ItemPointer tid, Snapshot snapshot,
					   TupleTableSlot *slot, bool *call_again, bool *all_dead)
{
	*call_again = false;
	return false;
}

static bool
load_fetch_row_version(Relation rel, ItemPointer tid, Snapshot snapshot, TupleTableSlot *slot)
{
	return false;
}

static bool
load_tid_valid(TableScanDesc scan, ItemPointer tid)
{
	return false;
}

static void
load_get_latest_tid(TableScanDesc scan, ItemPointer tid)
{
}

static bool
load_satisfies_snapshot(Relation rel, TupleTableSlot *slot, Snapshot snapshot)
{
	return false;
}

static TransactionId
load_index_delete_tuples(Relation rel, TM_IndexDeleteOp *delstate)
{
	return InvalidTransactionId;
}

/* ---- Writes: each row goes to the event store. ---- */

static void
load_tuple_insert(Relation rel, TupleTableSlot *slot, CommandId cid, int options,
				  BulkInsertState bistate)
{
	iso_event_load_rows(rel, &slot, 1, NULL, NULL);
	ItemPointerSetInvalid(&slot->tts_tid);
}

/*
 * The lines of a COPY's rows, for its error messages.  COPY hands the rows
 * over a thousand at a time (multi_insert), and its error context names
 * the line it read last.  A batch's rows follow the line the previous
 * batch ended on (or the header); when there are as many lines as rows
 * (no row spans lines, none was skipped by WHERE), row i is on line
 * first + i, and the context is set to it.  Otherwise the error names
 * the lines the row is among.
 */
static CopyFromState batch_copy;	/* the COPY of the last batch */
static uint64 batch_end;		/* the line its last row ended on */
static bool batch_callbacks_registered = false;

typedef struct BatchLines
{
	CopyFromState copy;			/* set when row i is on line first + i */
	uint64		first;
	uint64		last;
	bool		among;			/* not known exactly: say so */
} BatchLines;

/* Before row i of a batch whose lines are known: COPY's line is its own. */
static void
set_row_line(void *arg, int i)
{
	BatchLines *lines = (BatchLines *) arg;

	lines->copy->cur_lineno = lines->first + i;
}

static void
batch_forget(void)
{
	batch_copy = NULL;
	batch_end = 0;
}

static void
batch_xact_callback(XactEvent event, void *arg)
{
	batch_forget();
}

static void
batch_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					   SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		batch_forget();
}

/* The COPY FROM running, found by its error context callback, or NULL. */
static CopyFromState
running_copy(void)
{
	ErrorContextCallback *c;

	for (c = error_context_stack; c != NULL; c = c->previous)
		if (c->callback == CopyFromErrorCallback)
			return (CopyFromState) c->arg;
	return NULL;
}

static void
batch_lines_context(void *arg)
{
	BatchLines *lines = (BatchLines *) arg;

	if (lines->among)
		errcontext("a row among lines %llu to %llu",
			   (unsigned long long) lines->first, (unsigned long long) lines->last);
}

/*
 * The lines of the nslots rows of copy's batch (the previous batch's, or
 * the header's, and the line COPY read last); true if row i is on line
 * lines->first + i.
 */
static bool
batch_lines(CopyFromState copy, int nslots, BatchLines *lines)
{
	/* at the input's end COPY has counted a line it did not find */
	uint64		last_row = copy->cur_lineno -
		(copy->line_buf.len == 0 && copy->cur_lineno > 0 ? 1 : 0);
	bool		exact;

	if (!batch_callbacks_registered)
	{
		RegisterXactCallback(batch_xact_callback, NULL);
		RegisterSubXactCallback(batch_subxact_callback, NULL);
		batch_callbacks_registered = true;
	}
	lines->last = copy->cur_lineno;
	if (copy == batch_copy && batch_end < last_row)
		lines->first = batch_end + 1;
	else
		lines->first = copy->opts.header_line != COPY_HEADER_FALSE ? 2 : 1;
	batch_copy = copy;
	batch_end = last_row;
	exact = lines->first <= last_row && last_row - lines->first + 1 == (uint64) nslots;
	lines->among = !exact;
	return exact;
}

static void
load_multi_insert(Relation rel, TupleTableSlot **slots, int nslots, CommandId cid,
				  int options, BulkInsertState bistate)
{
	CopyFromState copy = running_copy();
	BatchLines	lines = {NULL, 0, 0, false};
	bool		exact = false;
	ErrorContextCallback context;
	uint64		saved_lineno = 0;
	int			i;

	/* a binary COPY counts rows, not lines: its context stays as it is */
	if (copy != NULL && copy->opts.binary)
		copy = NULL;
	if (copy != NULL)
	{
		saved_lineno = copy->cur_lineno;
		exact = batch_lines(copy, nslots, &lines);
	}
	context.callback = batch_lines_context;
	context.arg = &lines;
	context.previous = error_context_stack;
	error_context_stack = &context;
	if (exact)
	{
		lines.copy = copy;
		iso_event_load_rows(rel, slots, nslots, set_row_line, &lines);
	}
	else
		iso_event_load_rows(rel, slots, nslots, NULL, NULL);
	for (i = 0; i < nslots; i++)
		ItemPointerSetInvalid(&slots[i]->tts_tid);
	error_context_stack = context.previous;
	if (copy != NULL)
		copy->cur_lineno = saved_lineno;
}

static void
load_tuple_insert_speculative(Relation rel, TupleTableSlot *slot, CommandId cid, int options,
							  BulkInsertState bistate, uint32 specToken)
{
	refuse(rel, "INSERT ... ON CONFLICT");
}

static void
load_tuple_complete_speculative(Relation rel, TupleTableSlot *slot, uint32 specToken,
								bool succeeded)
{
	refuse(rel, "INSERT ... ON CONFLICT");
}

static TM_Result
load_tuple_delete(Relation rel, ItemPointer tid, CommandId cid, Snapshot snapshot,
				  Snapshot crosscheck, bool wait, TM_FailureData *tmfd, bool changingPart)
{
	refuse(rel, "DELETE");
	return TM_Invisible;
}

static TM_Result
load_tuple_update(Relation rel, ItemPointer otid, TupleTableSlot *slot, CommandId cid,
				  Snapshot snapshot, Snapshot crosscheck, bool wait, TM_FailureData *tmfd,
				  LockTupleMode *lockmode, bool *update_indexes)
{
	refuse(rel, "UPDATE");
	return TM_Invisible;
}

static TM_Result
load_tuple_lock(Relation rel, ItemPointer tid, Snapshot snapshot, TupleTableSlot *slot,
				CommandId cid, LockTupleMode mode, LockWaitPolicy wait_policy, uint8 flags,
				TM_FailureData *tmfd)
{
	refuse(rel, "row locks");
	return TM_Invisible;
}

static void
load_finish_bulk_insert(Relation rel, int options)
{
	batch_forget();
}

/* ---- Storage: an empty relation file, as a heap's would be. ---- */

static void
create_storage(const RelFileNode *node, char persistence)
{
	SMgrRelation srel = RelationCreateStorage(*node, persistence, true);

	if (persistence == RELPERSISTENCE_UNLOGGED)
	{
		smgrcreate(srel, INIT_FORKNUM, false);
		log_smgrcreate(node, INIT_FORKNUM);
		smgrimmedsync(srel, INIT_FORKNUM);
	}
	smgrclose(srel);
}

static void
load_set_new_filenode(Relation rel, const RelFileNode *newrnode, char persistence,
					  TransactionId *freezeXid, MultiXactId *minmulti)
{
	/* no transaction ids are stored: nothing to freeze */
	*freezeXid = InvalidTransactionId;
	*minmulti = InvalidMultiXactId;
	create_storage(newrnode, persistence);
}

static void
load_nontransactional_truncate(Relation rel)
{
}

/* ALTER TABLE ... SET TABLESPACE: an empty file there, the old one dropped */
static void
load_copy_data(Relation rel, const RelFileNode *newrnode)
{
	create_storage(newrnode, rel->rd_rel->relpersistence);
	RelationDropStorage(rel);
}

static void
load_copy_for_cluster(Relation OldTable, Relation NewTable, Relation OldIndex,
					  bool use_sort, TransactionId OldestXmin, TransactionId *xid_cutoff,
					  MultiXactId *multi_cutoff, double *num_tuples,
					  double *tups_vacuumed, double *tups_recently_dead)
{
	*num_tuples = 0;
	*tups_vacuumed = 0;
	*tups_recently_dead = 0;
}

static void
load_vacuum(Relation rel, struct VacuumParams *params, BufferAccessStrategy bstrategy)
{
}

static bool
load_analyze_next_block(TableScanDesc scan, BlockNumber blockno, BufferAccessStrategy bstrategy)
{
	return false;
}

static bool
load_analyze_next_tuple(TableScanDesc scan, TransactionId OldestXmin, double *liverows,
						double *deadrows, TupleTableSlot *slot)
{
	return false;
}

static double
load_index_build_range_scan(Relation table_rel, Relation index_rel, struct IndexInfo *index_info,
							bool allow_sync, bool anyvisible, bool progress,
							BlockNumber start_blockno, BlockNumber numblocks,
							IndexBuildCallback callback, void *callback_state,
							TableScanDesc scan)
{
	/* index entries would point at rows that are never kept */
	refuse(table_rel, "indexes");
	return 0;
}

static void
load_index_validate_scan(Relation table_rel, Relation index_rel, struct IndexInfo *index_info,
						 Snapshot snapshot, struct ValidateIndexState *state)
{
}

static uint64
load_relation_size(Relation rel, ForkNumber forkNumber)
{
	return 0;
}

static bool
load_needs_toast_table(Relation rel)
{
	return false;
}

static void
load_estimate_size(Relation rel, int32 *attr_widths, BlockNumber *pages, double *tuples,
				   double *allvisfrac)
{
	*pages = 0;
	*tuples = 0;
	*allvisfrac = 0;
}

static bool
load_bitmap_next_block(TableScanDesc scan, struct TBMIterateResult *tbmres)
{
	return false;
}

static bool
load_bitmap_next_tuple(TableScanDesc scan, struct TBMIterateResult *tbmres,
					   TupleTableSlot *slot)
{
	return false;
}

static bool
load_sample_next_block(TableScanDesc scan, struct SampleScanState *scanstate)
{
	return false;
}

static bool
load_sample_next_tuple(TableScanDesc scan, struct SampleScanState *scanstate,
					   TupleTableSlot *slot)
{
	return false;
}

static const TableAmRoutine load_methods = {
	.type = T_TableAmRoutine,
	.slot_callbacks = load_slot_callbacks,
	.scan_begin = load_scan_begin,
	.scan_end = load_scan_end,
	.scan_rescan = load_scan_rescan,
	.scan_getnextslot = load_scan_getnextslot,
	.parallelscan_estimate = table_block_parallelscan_estimate,
	.parallelscan_initialize = table_block_parallelscan_initialize,
	.parallelscan_reinitialize = table_block_parallelscan_reinitialize,
	.index_fetch_begin = load_index_fetch_begin,
	.index_fetch_reset = load_index_fetch_reset,
	.index_fetch_end = load_index_fetch_end,
	.index_fetch_tuple = load_index_fetch_tuple,
	.tuple_fetch_row_version = load_fetch_row_version,
	.tuple_tid_valid = load_tid_valid,
	.tuple_get_latest_tid = load_get_latest_tid,
	.tuple_satisfies_snapshot = load_satisfies_snapshot,
	.index_delete_tuples = load_index_delete_tuples,
	.tuple_insert = load_tuple_insert,
	.tuple_insert_speculative = load_tuple_insert_speculative,
	.tuple_complete_speculative = load_tuple_complete_speculative,
	.multi_insert = load_multi_insert,
	.tuple_delete = load_tuple_delete,
	.tuple_update = load_tuple_update,
	.tuple_lock = load_tuple_lock,
	.finish_bulk_insert = load_finish_bulk_insert,
	.relation_set_new_filenode = load_set_new_filenode,
	.relation_nontransactional_truncate = load_nontransactional_truncate,
	.relation_copy_data = load_copy_data,
	.relation_copy_for_cluster = load_copy_for_cluster,
	.relation_vacuum = load_vacuum,
	.scan_analyze_next_block = load_analyze_next_block,
	.scan_analyze_next_tuple = load_analyze_next_tuple,
	.index_build_range_scan = load_index_build_range_scan,
	.index_validate_scan = load_index_validate_scan,
	.relation_size = load_relation_size,
	.relation_needs_toast_table = load_needs_toast_table,
	.relation_estimate_size = load_estimate_size,
	.scan_bitmap_next_block = load_bitmap_next_block,
	.scan_bitmap_next_tuple = load_bitmap_next_tuple,
	.scan_sample_next_block = load_sample_next_block,
	.scan_sample_next_tuple = load_sample_next_tuple,
};

Datum
iso_load_am_handler(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(&load_methods);
}
