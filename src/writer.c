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
 */
#include "postgres.h"

#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "isograph.h"

void
iso_writer_open(IsoTableWriter *writer, IsoTable table)
{
	Oid			relid = iso_table_oid(table);
	AclResult	aclresult;

	aclresult = pg_class_aclcheck(relid, GetUserId(), ACL_INSERT);
	if (aclresult != ACLCHECK_OK)
		aclcheck_error(aclresult, OBJECT_TABLE, get_rel_name(relid));

	writer->rel = table_open(relid, RowExclusiveLock);
	writer->estate = CreateExecutorState();
	writer->rri = makeNode(ResultRelInfo);
	InitResultRelInfo(writer->rri, writer->rel, 1, NULL, 0);
	ExecOpenIndices(writer->rri, false);
	writer->slot = table_slot_create(writer->rel, NULL);
	writer->cid = GetCurrentCommandId(true);
	writer->rows = 0;
}

/* Insert one row; values/nulls in table column order. */
void
iso_writer_put(IsoTableWriter *writer, Datum *values, bool *nulls)
{
	TupleTableSlot *slot = writer->slot;
	int			natts = RelationGetDescr(writer->rel)->natts;

	ExecClearTuple(slot);
	memcpy(slot->tts_values, values, natts * sizeof(Datum));
	memcpy(slot->tts_isnull, nulls, natts * sizeof(bool));
	ExecStoreVirtualTuple(slot);

	table_tuple_insert(writer->rel, slot, writer->cid, 0, NULL);
	if (writer->rri->ri_NumIndices > 0)
		ExecInsertIndexTuples(writer->rri, slot, writer->estate,
							  false, false, NULL, NIL);
	ResetPerTupleExprContext(writer->estate);
	writer->rows++;
}

void
iso_writer_close(IsoTableWriter *writer)
{
	ExecDropSingleTupleTableSlot(writer->slot);
	ExecCloseIndices(writer->rri);
	FreeExecutorState(writer->estate);
	table_close(writer->rel, NoLock);
	/* Later commands in this transaction must see the rows. */
	CommandCounterIncrement();
}
