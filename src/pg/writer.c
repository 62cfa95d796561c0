/*
 * writer.c
 *	  Bulk insertion into the extension's tables.
 *
 * Loading a history writes millions of rows; going through SPI per row
 * would cost more than parsing.  Like COPY FROM, we insert heap tuples
 * directly and maintain the indexes ourselves.  The caller has already
 * validated the rows (the parser guarantees the CHECK constraints, and the
 * history row they reference was created in this transaction), and the
 * permission to insert is checked here once.
 *
 * Like COPY FROM, rows are buffered and written WRITER_BATCH at a time
 * with table_multi_insert and a bulk-insert state: one WAL record and one
 * buffer lock per page instead of per row.  The index entries follow right
 * after each batch.  iso_writer_close flushes the last batch.
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "executor/executor.h"
#include "executor/nodeModifyTable.h"
#include "miscadmin.h"
#include "catalog/objectaddress.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "isograph.h"

#define WRITER_BATCH 1000

void
iso_writer_open(IsoTableWriter *writer, IsoTable table)
{
	Oid			relid = iso_table_oid(table);
	AclResult	aclresult;
	int			i;

	/*
	 * Events and version orders: the right to insert into iso_event or
	 * iso_version (the views roles write to since 0.4.0; the tables before).
	 * Images and edges are written only here, from the events of a history
	 * the caller could read and has locked under row-level security: no role
	 * has INSERT on iso_history_image or iso_edge, so that none can plant an
	 * image or edges that disagree with its events (image_store.c).
	 */
	if (table == ISO_TABLE_EVENT || table == ISO_TABLE_VERSION ||
		table == ISO_TABLE_EVENT_CHUNK)
	{
		Oid			pubid = iso_table_public_oid(table == ISO_TABLE_EVENT_CHUNK ?
												 ISO_TABLE_EVENT : table);

		if (!OidIsValid(pubid))
			pubid = relid;		/* the view was dropped: the table's */

		aclresult = pg_class_aclcheck(pubid, GetUserId(), ACL_INSERT);
		if (aclresult != ACLCHECK_OK)
			aclcheck_error(aclresult, get_relkind_objtype(get_rel_relkind(pubid)),
						   get_rel_name(pubid));
	}

	writer->rel = table_open(relid, RowExclusiveLock);
	writer->estate = CreateExecutorState();
	writer->rri = makeNode(ResultRelInfo);
	/* no range table entry: ExecConstraints then names no inserted columns */
	InitResultRelInfo(writer->rri, writer->rel, 0, NULL, 0);
	ExecOpenIndices(writer->rri, false);
	iso_table_layout_init(&writer->layout, writer->rel, table, writer->estate);
	writer->slot = table_slot_create(writer->rel, NULL);
	writer->cid = GetCurrentCommandId(true);
	writer->rows = 0;
	writer->nbatch = 0;
	writer->batch = NULL;
	writer->batch_cxt = NULL;
	writer->bistate = NULL;
	/*
	 * Batches for iso_event only, the table of millions of rows (always
	 * read in primary-key order).  iso_edge and iso_version keep
	 * row-at-a-time inserts: iso_check_edges reads iso_edge in physical
	 * order, and batches may place rows differently.
	 */
	if (table != ISO_TABLE_EVENT)
		return;
	writer->batch = palloc(sizeof(TupleTableSlot *) * WRITER_BATCH);
	for (i = 0; i < WRITER_BATCH; i++)
		writer->batch[i] = table_slot_create(writer->rel, NULL);
	writer->bistate = GetBulkInsertState();
	writer->batch_cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "isograph writer batch",
											  ALLOCSET_DEFAULT_SIZES);
}

/* Write the buffered rows and their index entries. */
static void
writer_flush(IsoTableWriter *writer)
{
	int			i;

	if (writer->nbatch == 0)
		return;
	table_multi_insert(writer->rel, writer->batch, writer->nbatch,
					   writer->cid, 0, writer->bistate);
	if (writer->rri->ri_NumIndices > 0)
	{
		for (i = 0; i < writer->nbatch; i++)
		{
			ExecInsertIndexTuples(writer->rri, writer->batch[i], writer->estate,
								  false, false, NULL, NIL);
			ResetPerTupleExprContext(writer->estate);
		}
	}
	for (i = 0; i < writer->nbatch; i++)
		ExecClearTuple(writer->batch[i]);
	writer->nbatch = 0;
	MemoryContextReset(writer->batch_cxt);
}

/*
 * Put one row into slot.  Columns someone added to the table get their
 * defaults or generated values, and then the row must pass the table's
 * constraints as an INSERT's would (see table_layout.c).
 */
static void
writer_fill(IsoTableWriter *writer, Datum *values, bool *nulls, TupleTableSlot *slot)
{
	iso_table_layout_fill(&writer->layout, writer->estate, values, nulls, slot);
	if (writer->layout.nextra == 0)
		return;
	if (writer->layout.has_generated)
		ExecComputeStoredGenerated(writer->rri, writer->estate, slot, CMD_INSERT);
	ExecConstraints(writer->rri, slot, writer->estate);
}

/* Insert one row; values/nulls in the order of the install script's columns. */
void
iso_writer_put(IsoTableWriter *writer, Datum *values, bool *nulls)
{
	TupleTableSlot *slot;
	MemoryContext old;

	if (writer->batch == NULL)
	{
		slot = writer->slot;
		writer_fill(writer, values, nulls, slot);
		table_tuple_insert(writer->rel, slot, writer->cid, 0, NULL);
		if (writer->rri->ri_NumIndices > 0)
			ExecInsertIndexTuples(writer->rri, slot, writer->estate,
								  false, false, NULL, NIL);
		ResetPerTupleExprContext(writer->estate);
		writer->rows++;
		return;
	}
	slot = writer->batch[writer->nbatch];
	writer_fill(writer, values, nulls, slot);
	/* the caller's datums die with its row context: copy the row now */
	old = MemoryContextSwitchTo(writer->batch_cxt);
	ExecMaterializeSlot(slot);
	MemoryContextSwitchTo(old);
	/* defaults were evaluated there: the row is a copy now */
	ResetPerTupleExprContext(writer->estate);
	writer->rows++;
	if (++writer->nbatch == WRITER_BATCH)
		writer_flush(writer);
}

void
iso_writer_close(IsoTableWriter *writer)
{
	int			i;

	if (writer->batch != NULL)
	{
		writer_flush(writer);
		for (i = 0; i < WRITER_BATCH; i++)
			ExecDropSingleTupleTableSlot(writer->batch[i]);
		pfree(writer->batch);
		MemoryContextDelete(writer->batch_cxt);
		FreeBulkInsertState(writer->bistate);
	}
	table_finish_bulk_insert(writer->rel, 0);
	ExecDropSingleTupleTableSlot(writer->slot);
	ExecCloseIndices(writer->rri);
	FreeExecutorState(writer->estate);
	table_close(writer->rel, NoLock);
	/* Later commands in this transaction must see the rows. */
	CommandCounterIncrement();
}
