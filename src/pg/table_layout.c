/*
 * table_layout.c
 *	  Where the bulk writer's columns are in a table as it is now.
 *
 * The loaders hand the writer one Datum per column of the table as the
 * install script created it.  A table owner may since have added columns
 * (with or without defaults), dropped columns, or dropped and re-added one
 * (which moves it to the end).  Copying the loader's array over the tuple
 * would then put values in the wrong columns, or read past the array.  So
 * the writer finds each of its columns by name in the current descriptor,
 * checks its type, and fills the columns it does not know the way INSERT
 * would: defaults evaluated per row, generated columns computed, and the
 * table's constraints checked (only when such columns exist: the rows of
 * the columns we know are valid by construction, and checking them would
 * cost every load of millions of rows).
 *
 * A layout we cannot fill -- one of our columns missing or of another type
 * -- is refused with an error that says which column and how to repair it.
 */
#include "postgres.h"

#include "access/tupdesc.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "optimizer/optimizer.h"
#include "rewrite/rewriteHandler.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "isograph.h"

typedef struct ColumnSpec
{
	const char *name;
	Oid			type;
} ColumnSpec;

/* The columns as the install script creates them, in attnum order. */
static const ColumnSpec event_columns[] = {
	{"history_id", INT8OID}, {"txn_id", INT8OID}, {"process", INT8OID},
	{"status", TEXTOID}, {"invoke_time", INT8OID}, {"complete_time", INT8OID},
	{"pos", INT4OID}, {"op", TEXTOID}, {"key", TEXTOID}, {"value", TEXTOID},
	{"read_value", TEXTOID}, {"read_list", TEXTARRAYOID}, {NULL, InvalidOid}
};
static const ColumnSpec version_columns[] = {
	{"history_id", INT8OID}, {"key", TEXTOID}, {"position", INT4OID},
	{"value", TEXTOID}, {NULL, InvalidOid}
};
static const ColumnSpec edge_columns[] = {
	{"history_id", INT8OID}, {"from_txn", INT8OID}, {"to_txn", INT8OID},
	{"type", TEXTOID}, {"key", TEXTOID}, {"from_event", INT4OID},
	{"to_event", INT4OID}, {NULL, InvalidOid}
};
static const ColumnSpec image_columns[] = {
	{"history_id", INT8OID}, {"section", INT2OID}, {"part", INT4OID},
	{"data", BYTEAOID}, {NULL, InvalidOid}
};

static const ColumnSpec chunk_columns[] = {
	{"history_id", INT8OID}, {"chunk", INT4OID}, {"nrows", INT4OID},
	{"first_txn", INT8OID}, {"first_pos", INT4OID}, {"last_txn", INT8OID},
	{"last_pos", INT4OID}, {"data", BYTEAOID}, {NULL, InvalidOid}
};

static const ColumnSpec *
table_columns(IsoTable table)
{
	switch (table)
	{
		case ISO_TABLE_EVENT:
			return event_columns;
		case ISO_TABLE_VERSION:
			return version_columns;
		case ISO_TABLE_EDGE:
			return edge_columns;
		case ISO_TABLE_IMAGE:
			return image_columns;
		case ISO_TABLE_EVENT_CHUNK:
			return chunk_columns;
		case ISO_TABLE_HISTORY:
			break;
	}
	elog(ERROR, "isograph writes no rows into %s directly", iso_table_name(table));
	return NULL;				/* keep the compiler quiet */
}

int
iso_table_ncolumns(IsoTable table)
{
	const ColumnSpec *cols = table_columns(table);
	int			n;

	for (n = 0; cols[n].name; n++)
		;
	return n;
}

/* Name and type of column i (0-based) of the table as the install script made it. */
const char *
iso_table_column(IsoTable table, int i, Oid *type)
{
	const ColumnSpec *cols = table_columns(table);

	*type = cols[i].type;
	return cols[i].name;
}

static void
refuse_layout(Relation rel, const ColumnSpec *col, Oid found) pg_attribute_noreturn();

/* Our column col is missing (found == InvalidOid) or has type found. */
static void
refuse_layout(Relation rel, const ColumnSpec *col, Oid found)
{
	const char *table = RelationGetRelationName(rel);
	const char *type = format_type_be(col->type);

	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
			 errmsg("isograph cannot write into table \"%s\": its column \"%s\" %s",
					table, col->name,
					OidIsValid(found) ? psprintf("has type %s", format_type_be(found)) : "is missing"),
			 errdetail("isograph writes the column \"%s\" as type %s, as its install script created it; columns added to the table are filled with their defaults.",
					   col->name, type),
			 OidIsValid(found) ?
			 errhint("Change it back: ALTER TABLE %s ALTER COLUMN %s TYPE %s.", table, col->name, type) :
			 errhint("Add it back: ALTER TABLE %s ADD COLUMN %s %s.", table, col->name, type)));
}

/* 0-based index of the live column called name, or -1. */
static int
find_column(TupleDesc desc, const char *name)
{
	int			i;

	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (!att->attisdropped && strcmp(NameStr(att->attname), name) == 0)
			return i;
	}
	return -1;
}

/*
 * Map the writer's columns of table onto rel's descriptor, and prepare the
 * defaults of the columns it does not know (in estate's query context).
 */
void
iso_table_layout_init(IsoTableLayout *layout, Relation rel, IsoTable table,
					  EState *estate)
{
	const ColumnSpec *cols = table_columns(table);
	TupleDesc	desc = RelationGetDescr(rel);
	bool	   *ours = palloc0(sizeof(bool) * Max(desc->natts, 1));
	int			i;

	memset(layout, 0, sizeof(*layout));
	for (layout->ncols = 0; cols[layout->ncols].name; layout->ncols++)
		;
	layout->natts = desc->natts;
	layout->attidx = palloc(sizeof(int) * layout->ncols);
	layout->canonical = desc->natts == layout->ncols;
	for (i = 0; i < layout->ncols; i++)
	{
		int			at = find_column(desc, cols[i].name);

		if (at < 0)
			refuse_layout(rel, &cols[i], InvalidOid);
		if (TupleDescAttr(desc, at)->atttypid != cols[i].type)
			refuse_layout(rel, &cols[i], TupleDescAttr(desc, at)->atttypid);
		layout->attidx[i] = at;
		ours[at] = true;
		layout->canonical &= at == i;
	}
	if (layout->canonical)
		return;

	/* the columns someone added: how INSERT would fill them */
	layout->defaults = palloc0(sizeof(ExprState *) * desc->natts);
	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		Node	   *expr;

		if (ours[i] || att->attisdropped)
			continue;
		layout->nextra++;
		if (att->attgenerated == ATTRIBUTE_GENERATED_STORED)
		{
			layout->has_generated = true;
			continue;
		}
		expr = build_column_default(rel, i + 1);
		if (expr != NULL)
			layout->defaults[i] = ExecPrepareExpr((Expr *) expression_planner((Expr *) expr),
												  estate);
	}
	pfree(ours);
}

/*
 * Fill slot with one row: values/nulls in the writer's column order, the
 * other columns from their defaults (evaluated in the per-tuple context).
 */
void
iso_table_layout_fill(const IsoTableLayout *layout, EState *estate,
					  const Datum *values, const bool *nulls, TupleTableSlot *slot)
{
	int			i;

	ExecClearTuple(slot);
	if (layout->canonical)
	{
		memcpy(slot->tts_values, values, layout->ncols * sizeof(Datum));
		memcpy(slot->tts_isnull, nulls, layout->ncols * sizeof(bool));
		ExecStoreVirtualTuple(slot);
		return;
	}
	for (i = 0; i < layout->natts; i++)
	{
		slot->tts_values[i] = (Datum) 0;
		slot->tts_isnull[i] = true;
	}
	for (i = 0; i < layout->ncols; i++)
	{
		slot->tts_values[layout->attidx[i]] = values[i];
		slot->tts_isnull[layout->attidx[i]] = nulls[i];
	}
	for (i = 0; i < layout->natts; i++)
		if (layout->defaults[i] != NULL)
			slot->tts_values[i] = ExecEvalExprSwitchContext(layout->defaults[i],
															GetPerTupleExprContext(estate),
															&slot->tts_isnull[i]);
	ExecStoreVirtualTuple(slot);
}
