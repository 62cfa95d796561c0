/*
 * event_input.c
 *	  Rows written to the views iso_event and iso_version (COPY FROM,
 *	  INSERT): the INSTEAD OF trigger that stores them; and rows written to
 *	  the table iso_event_load, which its access method hands here
 *	  (load_am.c).
 *
 * iso_event_load takes iso_event's rows with read_list as the text of its
 * array literal, which is cut into elements here (list_input.c) instead
 * of COPY calling array_in.
 *
 * Since 0.4.0 roles have no INSERT on the tables that hold events and
 * version orders (iso_event_data, iso_version_data): a table-level INSERT,
 * UPDATE or DELETE would let any role LOCK those tables, and COPY FROM
 * refuses tables with row-level security for non-superusers anyway.  They
 * write to the views instead, and this trigger, running as the caller:
 *
 * - checks, once per statement and history, that the row's history exists
 *   and is the caller's (visible under row-level security: its own, any
 *   for a superuser), and locks its iso_history row FOR NO KEY UPDATE --
 *   the one lock order of isograph: the history's row first, then its rows
 *   in the other tables.  The lock keeps iso_delete_history (FOR UPDATE)
 *   out until the transaction ends, which is what the foreign key did;
 * - an event (0.5.0): checks what iso_event_data's constraints checked
 *   until 0.4.0, under the same names (pack_event), and hands it to the
 *   statement's event store, which packs the events into iso_event_chunk
 *   (event_store.c); iso_event_change_row does UPDATE and DELETE the same
 *   way;
 * - a version order (and an event under 0.4.0): checks the table's
 *   constraints (ExecConstraints), fills columns the table's owner may have
 *   added (table_layout.c), and inserts the row and its index entries,
 *   then queues the table's AFTER ROW triggers (which outdate the
 *   history's image, image_store.c) -- as PostgreSQL's logical replication
 *   applies a row (ExecSimpleRelationInsert), with one EState per
 *   statement rather than per row.
 *
 * The per-statement state lives from a statement's first row to the
 * view's AFTER STATEMENT trigger (iso_input_end), which also writes the
 * event store's last chunks; the relation and index
 * references are held by the transaction's resource owner, and transaction
 * callbacks drop the state when a statement fails (its resources are then
 * released by the abort) or, as a safety net, at commit.
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/progress.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "executor/nodeModifyTable.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "utils/backend_status.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/resowner.h"

#include "event_chunk.h"
#include "isograph.h"

PG_FUNCTION_INFO_V1(iso_input_row);
PG_FUNCTION_INFO_V1(iso_input_end);
PG_FUNCTION_INFO_V1(iso_event_change_row);

#define INPUT_MAX_COLS 16

/* What one statement's rows into one view need. */
typedef struct InputState
{
	IsoTable	table;			/* ISO_TABLE_EVENT or ISO_TABLE_VERSION */
	Oid			viewid;
	bool		list_as_text;	/* iso_event_load: read_list is text */
	Oid			userid;			/* the role whose histories were checked */
	SubTransactionId subid;		/* where the references were taken */
	ResourceOwner owner;		/* the transaction's, which holds them */
	MemoryContext cxt;
	Relation	rel;
	EState	   *estate;
	ResultRelInfo *rri;
	TupleTableSlot *slot;
	struct BulkInsertStateData *bistate;
	IsoTableLayout layout;
	int			ncols;
	AttrNumber	view_att[INPUT_MAX_COLS];	/* our column i in the view */
	bool		same_columns;	/* the view's columns are ours, in order */
	IsoEventStore *store;		/* events under 0.5.0: packed (event_store.c) */
	HTAB	   *checked;		/* history ids checked and locked */
	HeapTuple	null_row;		/* the view's row of NULLs, for a COPY */
	int64		last_checked;
	bool		busy;			/* inside iso_input_row for this state */
} InputState;

static InputState *states[2];	/* events, version orders */
static bool callbacks_registered = false;

static int
state_slot(IsoTable table)
{
	return table == ISO_TABLE_EVENT ? 0 : 1;
}

/* Close what a state holds (normal end of a statement, or commit). */
static void
state_close(InputState *st)
{
	ResourceOwner save = CurrentResourceOwner;

	if (st->store != NULL)
	{
		/* the last chunks, written (and ordered) as the caller */
		IsoEventStore *store = st->store;

		st->store = NULL;
		/* the chunk writer's references are held by the state's owner */
		CurrentResourceOwner = st->owner;
		PG_TRY();
		{
			iso_event_store_close(store);
		}
		PG_FINALLY();
		{
			CurrentResourceOwner = save;
		}
		PG_END_TRY();
		MemoryContextDelete(st->cxt);
		return;
	}
	CurrentResourceOwner = st->owner;
	if (st->bistate)
		FreeBulkInsertState(st->bistate);
	table_finish_bulk_insert(st->rel, 0);
	ExecDropSingleTupleTableSlot(st->slot);
	ExecResetTupleTable(st->estate->es_tupleTable, false);
	ExecCloseIndices(st->rri);
	FreeExecutorState(st->estate);
	table_close(st->rel, NoLock);
	CurrentResourceOwner = save;
	MemoryContextDelete(st->cxt);
}

/*
 * Forget a state whose references the abort of its (sub)transaction has
 * released: only its memory is left to free.
 */
static void
state_forget(InputState *st)
{
	MemoryContextDelete(st->cxt);
}

static void
input_xact_callback(XactEvent event, void *arg)
{
	int			i;

	for (i = 0; i < lengthof(states); i++)
	{
		if (states[i] == NULL)
			continue;
		if (event == XACT_EVENT_PRE_COMMIT || event == XACT_EVENT_PARALLEL_PRE_COMMIT ||
			event == XACT_EVENT_PRE_PREPARE)
			state_close(states[i]);
		else if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
			state_forget(states[i]);
		else
			continue;
		states[i] = NULL;
	}
}

static void
input_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					   SubTransactionId parentSubid, void *arg)
{
	int			i;

	for (i = 0; i < lengthof(states); i++)
	{
		if (states[i] == NULL || states[i]->subid != mySubid)
			continue;
		if (event == SUBXACT_EVENT_PRE_COMMIT_SUB)
			state_close(states[i]);
		else if (event == SUBXACT_EVENT_ABORT_SUB)
			state_forget(states[i]);
		else
			continue;
		states[i] = NULL;
	}
}

/* Set up the state of a statement writing into view (of table). */
static InputState *
state_open(IsoTable table, Relation view, bool list_as_text)
{
	MemoryContext cxt;
	MemoryContext old;
	InputState *st;
	TupleDesc	vdesc = RelationGetDescr(view);
	ResourceOwner save = CurrentResourceOwner;
	HASHCTL		ctl;
	int			i;

	if (!callbacks_registered)
	{
		RegisterXactCallback(input_xact_callback, NULL);
		RegisterSubXactCallback(input_subxact_callback, NULL);
		callbacks_registered = true;
	}

	cxt = AllocSetContextCreate(TopTransactionContext, "isograph input",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	st = palloc0(sizeof(InputState));
	st->table = table;
	st->viewid = RelationGetRelid(view);
	st->list_as_text = list_as_text;
	st->userid = GetUserId();
	st->subid = GetCurrentSubTransactionId();
	st->owner = CurTransactionResourceOwner;
	st->cxt = cxt;

	/* the view's columns that carry ours, by name, of our types */
	st->ncols = iso_table_ncolumns(table);
	Assert(st->ncols <= INPUT_MAX_COLS);
	for (i = 0; i < st->ncols; i++)
	{
		Oid			type;
		const char *name = iso_table_column(table, i, &type);
		int			a;

		if (list_as_text && table == ISO_TABLE_EVENT && i == EVENT_READ_LIST - 1)
			type = TEXTOID;

		st->view_att[i] = InvalidAttrNumber;
		for (a = 0; a < vdesc->natts; a++)
		{
			Form_pg_attribute att = TupleDescAttr(vdesc, a);

			if (att->attisdropped || strcmp(NameStr(att->attname), name) != 0)
				continue;
			if (att->atttypid != type)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
						 errmsg("isograph cannot write rows of view \"%s\": its column \"%s\" has type %s",
								RelationGetRelationName(view), name, format_type_be(att->atttypid)),
						 errdetail("The column has type %s in the view as isograph's install script created it.",
								   format_type_be(type)),
						 errhint("Restore the view as the install script created it.")));
			st->view_att[i] = a + 1;
		}
	}
	st->same_columns = vdesc->natts == st->ncols;
	for (i = 0; i < st->ncols; i++)
		if (st->view_att[i] != i + 1)
			st->same_columns = false;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(int64);
	ctl.entrysize = sizeof(int64);
	ctl.hcxt = cxt;
	st->checked = hash_create("isograph input histories", 16, &ctl,
							  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	st->last_checked = 0;

	/* iso_event_load came with packed events (0.5.0) */
	if (list_as_text && !(table == ISO_TABLE_EVENT && iso_events_packed()))
		elog(ERROR, "view \"%s\" needs the packed events of isograph 0.5.0",
			 RelationGetRelationName(view));
	if (table == ISO_TABLE_EVENT && iso_events_packed())
	{
		st->store = iso_event_store_open();
		MemoryContextSwitchTo(old);
		return st;
	}

	/* the table and its indexes, held by the transaction (see the header) */
	CurrentResourceOwner = st->owner;
	st->rel = table_open(iso_table_oid(table), RowExclusiveLock);
	st->estate = CreateExecutorState();
	st->rri = makeNode(ResultRelInfo);
	/* no range table entry: ExecConstraints then names no inserted columns */
	InitResultRelInfo(st->rri, st->rel, 0, NULL, 0);
	ExecOpenIndices(st->rri, false);
	iso_table_layout_init(&st->layout, st->rel, table, st->estate);
	st->slot = table_slot_create(st->rel, NULL);
	if (table == ISO_TABLE_EVENT)
		st->bistate = GetBulkInsertState();
	CurrentResourceOwner = save;
	MemoryContextSwitchTo(old);
	return st;
}

/*
 * The history a row names must be the caller's: visible to it under
 * row-level security (its own; any for a superuser or the tables' owner).
 * Its row is locked FOR NO KEY UPDATE, which also needs the UPDATE
 * privilege on a column of iso_history (PUBLIC has it).  The error is the
 * same whether the history does not exist or is another role's.
 */
static void
check_history(InputState *st, int64 history_id)
{
	bool		found;

	if (history_id == st->last_checked && history_id != 0)
		return;
	if (hash_search(st->checked, &history_id, HASH_FIND, NULL) != NULL)
	{
		st->last_checked = history_id;
		return;
	}
	iso_history_id_check(history_id);
	/* the one lock every writer of a history takes first (history_meta.c) */
	found = iso_history_try_lock(history_id);
	if (!found)
		ereport(ERROR,
				(errcode(ERRCODE_FOREIGN_KEY_VIOLATION),
				 errmsg("history %lld does not exist", (long long) history_id),
				 errdetail("Rows written to %s must belong to a history of the current role, \"%s\".",
						   get_rel_name(st->viewid), GetUserNameFromId(GetUserId(), false)),
				 errhint("Create the history first: INSERT INTO iso_history (name, workload) VALUES (...) RETURNING history_id.")));
	hash_search(st->checked, &history_id, HASH_ENTER, NULL);
	st->last_checked = history_id;
}

/*
 * The checks iso_event_data's constraints made until 0.4.0, with the same
 * names, for a row that is packed instead (0.5.0).
 */
static void
refuse_event(const char *constraint, int code, const Datum *values, const bool *nulls,
			 const char *hint)
{
	ereport(ERROR,
			(errcode(code),
			 errmsg("new row for relation \"iso_event\" violates check constraint \"%s\"",
					constraint),
			 errdetail("The row is micro-operation %d of transaction %lld.",
					   nulls[EVENT_POS - 1] ? -1 : DatumGetInt32(values[EVENT_POS - 1]),
					   nulls[EVENT_TXN_ID - 1] ? -1LL : (long long) DatumGetInt64(values[EVENT_TXN_ID - 1])),
			 errhint("%s", hint)));
}

/* Check one row written to iso_event and hand it to the event store. */
static void
pack_event(InputState *st, const Datum *values, const bool *nulls)
{
	static const int not_null[] = {EVENT_HISTORY_ID, EVENT_TXN_ID, EVENT_STATUS,
	EVENT_POS, EVENT_OP, EVENT_KEY};
	IsoEventRow row;
	IsoSlice   *list = NULL;
	int			i;

	for (i = 0; i < lengthof(not_null); i++)
	{
		Oid			type;

		if (nulls[not_null[i] - 1])
			ereport(ERROR,
					(errcode(ERRCODE_NOT_NULL_VIOLATION),
					 errmsg("null value in column \"%s\" of relation \"iso_event\" violates not-null constraint",
							iso_table_column(ISO_TABLE_EVENT, not_null[i] - 1, &type))));
	}
	memset(&row, 0, sizeof(row));
	row.txn_id = DatumGetInt64(values[EVENT_TXN_ID - 1]);
	row.has_process = !nulls[EVENT_PROCESS - 1];
	if (row.has_process)
		row.process = DatumGetInt64(values[EVENT_PROCESS - 1]);
	row.has_invoke_time = !nulls[EVENT_INVOKE_TIME - 1];
	if (row.has_invoke_time)
		row.invoke_time = DatumGetInt64(values[EVENT_INVOKE_TIME - 1]);
	row.has_complete_time = !nulls[EVENT_COMPLETE_TIME - 1];
	if (row.has_complete_time)
		row.complete_time = DatumGetInt64(values[EVENT_COMPLETE_TIME - 1]);
	row.pos = DatumGetInt32(values[EVENT_POS - 1]);

	if (!iso_datum_status(values[EVENT_STATUS - 1], &row.status))
		refuse_event("iso_event_status_check", ERRCODE_CHECK_VIOLATION, values, nulls,
					 "Status is ok, fail or info.");
	if (row.pos < 0)
		refuse_event("iso_event_pos_check", ERRCODE_CHECK_VIOLATION, values, nulls,
					 "The micro-operation's place in its transaction, pos, is 0 or more.");
	if (!iso_datum_op(values[EVENT_OP - 1], &row.op))
		refuse_event("iso_event_op_check", ERRCODE_CHECK_VIOLATION, values, nulls,
					 "Op is r, w or append.");
	if ((row.op == ISO_OP_READ) != nulls[EVENT_VALUE - 1])
		refuse_event("iso_event_check", ERRCODE_CHECK_VIOLATION, values, nulls,
					 "Writes and appends have a value; reads have none.");
	if (row.op != ISO_OP_READ && !(nulls[EVENT_READ_VALUE - 1] && nulls[EVENT_READ_LIST - 1]))
		refuse_event("iso_event_check1", ERRCODE_CHECK_VIOLATION, values, nulls,
					 "Only reads have read_value or read_list.");
	if (!nulls[EVENT_READ_VALUE - 1] && !nulls[EVENT_READ_LIST - 1])
		refuse_event("iso_event_check2", ERRCODE_CHECK_VIOLATION, values, nulls,
					 "A read has read_value (registers) or read_list (lists), not both.");

	row.key = iso_datum_slice(values[EVENT_KEY - 1]);
	if (!nulls[EVENT_VALUE - 1])
		row.value = iso_datum_slice(values[EVENT_VALUE - 1]);
	if (!nulls[EVENT_READ_VALUE - 1])
		row.read_value = iso_datum_slice(values[EVENT_READ_VALUE - 1]);
	if (!nulls[EVENT_READ_LIST - 1])
	{
		int			n = 0;

		Datum		d = values[EVENT_READ_LIST - 1];

		switch (st->list_as_text ? iso_list_literal_slices(d, &list, &n) :
				iso_text_array_slices(d, &list, &n))
		{
			case ISO_LIST_DIMENSIONS:
				refuse_event("iso_event_read_list_check", ERRCODE_CHECK_VIOLATION, values, nulls,
							 "A list read is a one-dimensional text array.");
				break;
			case ISO_LIST_NULL_ELEMENT:
				refuse_event("iso_event_read_list_check", ERRCODE_CHECK_VIOLATION, values, nulls,
							 "List elements are the appended values, never NULL.");
				break;
			case ISO_LIST_OK:
				break;
		}
		row.has_list = true;
		row.list_len = n;
		row.list = list;
	}
	iso_event_store_add(st->store, DatumGetInt64(values[EVENT_HISTORY_ID - 1]), &row);
	if (list != NULL)
		pfree(list);
}

/*
 * Insert one row into the table (iso_version_data; iso_event_data under
 * 0.4.0).  Returns NULL when a BEFORE trigger of the table skipped it.
 */
static TupleTableSlot *
insert_row(InputState *st, Datum *values, bool *nulls)
{
	TupleTableSlot *slot = st->slot;
	List	   *recheck = NIL;

	iso_table_layout_fill(&st->layout, st->estate, values, nulls, slot);
	if (st->rri->ri_TrigDesc && st->rri->ri_TrigDesc->trig_insert_before_row)
	{
		if (!ExecBRInsertTriggers(st->estate, st->rri, slot))
			slot = NULL;		/* skipped by a BEFORE trigger */
	}
	if (slot != NULL)
	{
		if (st->layout.has_generated)
			ExecComputeStoredGenerated(st->rri, st->estate, slot, CMD_INSERT);
		ExecConstraints(st->rri, slot, st->estate);
		table_tuple_insert(st->rel, slot, GetCurrentCommandId(true), 0, st->bistate);
		if (st->rri->ri_NumIndices > 0)
			recheck = ExecInsertIndexTuples(st->rri, slot, st->estate,
											false, false, NULL, NIL);
		/* AFTER ROW triggers (the image outdating): queued for the statement */
		ExecARInsertTriggers(st->estate, st->rri, slot, recheck, NULL);
		list_free(recheck);
	}
	ResetPerTupleExprContext(st->estate);
	return slot;
}

/*
 * The state of the statement writing into view (iso_event or iso_version),
 * opened by its first row.
 */
static InputState *
statement_state(Relation view)
{
	Oid			relid = RelationGetRelid(view);
	IsoTable	table;
	bool		list_as_text = false;
	InputState *st;

	/*
	 * Which view: a statement's first row looks it up in the catalogs (a
	 * scan of pg_extension, which has no syscache), the others find it in
	 * the statement's state (a quarter of a COPY's time went to the
	 * lookup).
	 */
	if (states[0] != NULL && states[0]->viewid == relid)
	{
		table = ISO_TABLE_EVENT;
		list_as_text = states[0]->list_as_text;
	}
	else if (states[1] != NULL && states[1]->viewid == relid)
		table = ISO_TABLE_VERSION;
	else if (relid == iso_table_public_oid(ISO_TABLE_EVENT))
		table = ISO_TABLE_EVENT;
	else if (relid == iso_relation_oid("iso_event_load"))
	{
		table = ISO_TABLE_EVENT;
		list_as_text = true;
	}
	else if (relid == iso_table_public_oid(ISO_TABLE_VERSION))
		table = ISO_TABLE_VERSION;
	else
		ereport(ERROR,
				(errcode(view->rd_rel->relkind == RELKIND_VIEW ?
						 ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED : ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("isograph stores only rows written to iso_event, iso_event_load and iso_version, not to \"%s\"",
						RelationGetRelationName(view)),
				 errhint("The trigger function iso_input_row() and the table access method iso_load are isograph's own; do not use them for other relations.")));

	st = states[state_slot(table)];
	if (st != NULL && st->busy)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot write into %s while a row written into it is being stored",
						RelationGetRelationName(view)),
				 errdetail("A trigger on %s wrote into %s.", iso_table_name(table),
						   RelationGetRelationName(view))));

	/*
	 * Another role's statement (SECURITY DEFINER) makes its own checks; a
	 * statement into the other events view (run between two rows of this
	 * one, by a function) reads read_list its own way.  The rows stored so
	 * far are written first.
	 */
	if (st != NULL && (st->userid != GetUserId() || st->viewid != relid))
	{
		state_close(st);
		states[state_slot(table)] = st = NULL;
	}
	if (st == NULL)
		states[state_slot(table)] = st = state_open(table, view, list_as_text);
	return st;
}

/*
 * A row of the view as our columns, from the trigger's slot.  The executor
 * fills the slot before it forms the tuple it passes as well (COPY: with
 * the values it parsed), so the values are there already: deforming that
 * tuple again cost a twentieth of a COPY.
 */
static void
row_columns(InputState *st, TupleTableSlot *slot, Datum *values, bool *nulls)
{
	int			i;

	slot_getallattrs(slot);
	for (i = 0; i < st->ncols; i++)
	{
		AttrNumber	a = st->view_att[i];

		if (a == InvalidAttrNumber)
		{
			values[i] = (Datum) 0;
			nulls[i] = true;
		}
		else
		{
			values[i] = slot->tts_values[a - 1];
			nulls[i] = slot->tts_isnull[a - 1];
		}
	}
}

/*
 * Whether the statement is a COPY FROM into view, which does nothing with
 * the row the trigger returns but count it.  The backend's own progress
 * report says so (COPY FROM sets it until it ends; the abort of a
 * (sub)transaction clears it); without one (track_activities off) the
 * answer is no.  Only a superuser could make an INSERT run inside such a
 * COPY (a function in a default of the view, which the extension owns).
 */
static bool
copying_into(Relation view)
{
	volatile PgBackendStatus *be = MyBEEntry;

	return be != NULL &&
		be->st_progress_command == PROGRESS_COMMAND_COPY &&
		be->st_progress_command_target == RelationGetRelid(view) &&
		be->st_progress_param[PROGRESS_COPY_COMMAND] == PROGRESS_COPY_COMMAND_FROM;
}

/*
 * Whether no INSTEAD OF INSERT row trigger fires after ours on the view:
 * each such trigger gets the row the one before it returned, so only the
 * last one may return NULLs.  (isograph's is the only one unless the
 * view's owner adds another.)
 */
static bool
last_row_trigger(TriggerData *trigdata)
{
	TriggerDesc *desc = trigdata->tg_relation->trigdesc;
	bool		after_ours = false;
	int			i;

	for (i = 0; desc != NULL && i < desc->numtriggers; i++)
	{
		Trigger    *t = &desc->triggers[i];

		if (t->tgoid == trigdata->tg_trigger->tgoid)
			after_ours = true;
		else if (after_ours &&
				 TRIGGER_TYPE_MATCHES(t->tgtype, TRIGGER_TYPE_ROW,
									  TRIGGER_TYPE_INSTEAD, TRIGGER_TYPE_INSERT))
			return false;
	}
	return true;
}

/*
 * The view's row with every column NULL, made once per statement: what the
 * trigger returns to a COPY.  The executor deforms any tuple but the one it
 * passed into the statement's slot, and deforming a copy of the whole row
 * (below) cost a twentieth of a COPY's time; a tuple of fewer columns has
 * the rest looked up as added columns, one call each.
 */
static HeapTuple
null_row(InputState *st, Relation view)
{
	if (st->null_row == NULL)
	{
		TupleDesc	desc = RelationGetDescr(view);
		MemoryContext old = MemoryContextSwitchTo(st->cxt);
		Datum	   *values = palloc0(sizeof(Datum) * Max(desc->natts, 1));
		bool	   *nulls = palloc(sizeof(bool) * Max(desc->natts, 1));

		memset(nulls, true, sizeof(bool) * Max(desc->natts, 1));
		st->null_row = heap_form_tuple(desc, values, nulls);
		MemoryContextSwitchTo(old);
	}
	return st->null_row;
}

/*
 * Store one row written into target, a view of the INSTEAD OF trigger
 * below.  Returns false when a BEFORE trigger of the table it goes to
 * skipped it; *stp is set to the statement's state.
 */
static bool
store_row(Relation target, TupleTableSlot *slot, InputState **stp)
{
	InputState *st;
	Datum		values[INPUT_MAX_COLS];
	bool		nulls[INPUT_MAX_COLS];
	volatile bool stored = true;
	ResourceOwner save_owner = CurrentResourceOwner;

	*stp = st = statement_state(target);
	row_columns(st, slot, values, nulls);

	/*
	 * Everything the row takes that outlives it (the bulk-insert state's
	 * pinned buffer, slots of BEFORE triggers, the chunk writer) is held by
	 * the state's resource owner, which state_close releases.
	 */
	st->busy = true;
	CurrentResourceOwner = st->owner;
	PG_TRY();
	{
		/* a NULL history_id fails the NOT NULL constraint below */
		if (!nulls[0])
			check_history(st, DatumGetInt64(values[0]));

		if (st->store != NULL)
			pack_event(st, values, nulls);
		else
			stored = insert_row(st, values, nulls) != NULL;
	}
	PG_FINALLY();
	{
		CurrentResourceOwner = save_owner;
		st->busy = false;
	}
	PG_END_TRY();
	return stored;
}

/*
 * Rows written into the table iso_event_load, from its access method
 * (load_am.c): one row (INSERT), or a batch of them (COPY's
 * multi_insert), each packed as a row of iso_event is, with the
 * statement's state found and the resource owner switched once for the
 * batch.  before_row, if not NULL, is called with arg and i before row i
 * is stored.
 */
void
iso_event_load_rows(Relation rel, TupleTableSlot **slots, int nslots,
					void (*before_row) (void *arg, int i), void *arg)
{
	InputState *st = statement_state(rel);
	Datum		values[INPUT_MAX_COLS];
	bool		nulls[INPUT_MAX_COLS];
	ResourceOwner save_owner = CurrentResourceOwner;
	int			i;

	/* iso_event_load needs packed events (state_open) */
	Assert(st->store != NULL);
	st->busy = true;
	CurrentResourceOwner = st->owner;
	PG_TRY();
	{
		for (i = 0; i < nslots; i++)
		{
			const Datum *v = values;
			const bool *n = nulls;

			if (before_row != NULL)
				before_row(arg, i);
			if (st->same_columns)
			{
				/* iso_event_load as created: the slot's arrays are ours */
				slot_getallattrs(slots[i]);
				v = slots[i]->tts_values;
				n = slots[i]->tts_isnull;
			}
			else
				row_columns(st, slots[i], values, nulls);
			/* a NULL history_id fails the NOT NULL constraint below */
			if (!n[0])
				check_history(st, DatumGetInt64(v[0]));
			pack_event(st, v, n);
		}
	}
	PG_FINALLY();
	{
		CurrentResourceOwner = save_owner;
		st->busy = false;
	}
	PG_END_TRY();
}

/*
 * INSTEAD OF INSERT row trigger on iso_event and iso_version.
 */
Datum
iso_input_row(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	Relation	view;
	InputState *st;

	if (!CALLED_AS_TRIGGER(fcinfo) ||
		!TRIGGER_FIRED_INSTEAD(trigdata->tg_event) ||
		!TRIGGER_FIRED_BY_INSERT(trigdata->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("iso_input_row() must be an INSTEAD OF INSERT row trigger")));
	view = trigdata->tg_relation;
	if (!store_row(view, trigdata->tg_trigslot, &st))
		return PointerGetDatum(NULL);

	/*
	 * The row counts as inserted (COPY's and INSERT's row counts, and
	 * RETURNING's values).  A copy rather than tg_trigtuple itself: when
	 * the trigger returns the tuple it was given, ExecIRInsertTriggers
	 * keeps the copy it made of the view's row, and COPY calls it in the
	 * statement's memory context, so that copy stayed there until the end
	 * of the statement -- some 250 bytes per row, gigabytes for a large
	 * history, and a tenth of the COPY's time in malloc and page faults.
	 * Given another tuple it frees its copy; this one lives in the
	 * trigger call's per-row memory.  A COPY gets a row of NULLs instead
	 * (null_row), unless another INSTEAD OF trigger of the view follows.
	 */
	if (copying_into(view) && last_row_trigger(trigdata))
		return PointerGetDatum(null_row(st, view));
	return PointerGetDatum(heap_copytuple(trigdata->tg_trigtuple));
}

/*
 * INSTEAD OF UPDATE or DELETE row trigger on iso_event (0.5.0): the old
 * row's event is deleted and, for UPDATE, the new row packed; the store
 * writes the history's chunks again when the statement ends.  Only roles
 * granted UPDATE or DELETE on iso_event get here (by default the owner
 * and superusers: roles delete whole histories, iso_delete_history).
 */
Datum
iso_event_change_row(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	Relation	view;
	InputState *st;
	Datum		values[INPUT_MAX_COLS];
	bool		nulls[INPUT_MAX_COLS];
	bool		update;
	ResourceOwner save_owner = CurrentResourceOwner;

	if (!CALLED_AS_TRIGGER(fcinfo) ||
		!TRIGGER_FIRED_INSTEAD(trigdata->tg_event) ||
		!(TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event) ||
		  TRIGGER_FIRED_BY_DELETE(trigdata->tg_event)) ||
		!TRIGGER_FIRED_FOR_ROW(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("iso_event_change_row() must be an INSTEAD OF UPDATE or DELETE row trigger")));
	update = TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event);
	view = trigdata->tg_relation;
	st = statement_state(view);
	if (st->store == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("iso_event_change_row() fires only on iso_event, whose events are packed")));
	row_columns(st, trigdata->tg_trigslot, values, nulls);

	st->busy = true;
	CurrentResourceOwner = st->owner;
	PG_TRY();
	{
		/* a row read from the view has its keys */
		check_history(st, DatumGetInt64(values[EVENT_HISTORY_ID - 1]));
		iso_event_store_delete(st->store, DatumGetInt64(values[EVENT_HISTORY_ID - 1]),
							   DatumGetInt64(values[EVENT_TXN_ID - 1]),
							   DatumGetInt32(values[EVENT_POS - 1]));
		if (update)
		{
			row_columns(st, trigdata->tg_newslot, values, nulls);
			if (!nulls[0])
				check_history(st, DatumGetInt64(values[0]));
			pack_event(st, values, nulls);
		}
	}
	PG_FINALLY();
	{
		CurrentResourceOwner = save_owner;
		st->busy = false;
	}
	PG_END_TRY();

	return PointerGetDatum(heap_copytuple(update ? trigdata->tg_newtuple : trigdata->tg_trigtuple));
}

/*
 * AFTER INSERT (and, on iso_event, UPDATE or DELETE) statement trigger on
 * iso_event, iso_event_load and iso_version: the statement's rows are
 * stored; release what it kept.
 */
Datum
iso_input_end(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	int			i;

	if (!CALLED_AS_TRIGGER(fcinfo) || TRIGGER_FIRED_FOR_ROW(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("iso_input_end() must be a statement trigger")));
	for (i = 0; i < lengthof(states); i++)
	{
		if (states[i] != NULL && states[i]->viewid == RelationGetRelid(trigdata->tg_relation) &&
			!states[i]->busy)
		{
			state_close(states[i]);
			states[i] = NULL;
		}
	}
	return PointerGetDatum(NULL);
}
