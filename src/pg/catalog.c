/*
 * catalog.c
 *	  Finding the extension's own tables without trusting search_path.
 *
 * The tables live in the schema the extension was created in
 * (pg_extension.extnamespace), which we look up on each call: the lookups
 * are syscache hits and happen once per SQL call, never per row.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_extension.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "isograph.h"

static const char *const table_names[] = {
	[ISO_TABLE_HISTORY] = "iso_history",
	[ISO_TABLE_EVENT] = "iso_event",
	[ISO_TABLE_VERSION] = "iso_version",
	[ISO_TABLE_EDGE] = "iso_edge",
	[ISO_TABLE_IMAGE] = "iso_history_image",
};

/* Namespace of the installed extension; ERROR if it is not installed. */
static Oid
iso_extension_namespace(void)
{
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key;
	HeapTuple	tup;
	Oid			nsp = InvalidOid;

	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_extname, BTEqualStrategyNumber, F_NAMEEQ,
				CStringGetDatum("isograph"));
	scan = systable_beginscan(rel, ExtensionNameIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
		nsp = ((Form_pg_extension) GETSTRUCT(tup))->extnamespace;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);

	if (!OidIsValid(nsp))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("extension \"isograph\" is not installed in this database"),
				 errhint("Run CREATE EXTENSION isograph.")));
	return nsp;
}

const char *
iso_table_name(IsoTable table)
{
	return table_names[table];
}

Oid
iso_table_oid(IsoTable table)
{
	Oid			nsp = iso_extension_namespace();
	Oid			relid = get_relname_relid(table_names[table], nsp);

	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("table \"%s\" of extension isograph is missing",
						table_names[table]),
				 errhint("If the extension is older than its library, run ALTER EXTENSION isograph UPDATE.")));
	return relid;
}

/*
 * Whether the table exists: tables added by a later version are missing
 * until ALTER EXTENSION isograph UPDATE, and the library must work with
 * every installed version.
 */
bool
iso_table_exists(IsoTable table)
{
	return OidIsValid(get_relname_relid(table_names[table], iso_extension_namespace()));
}

/* "schema"."table", quoted, for SPI query text. */
char *
iso_qualified_table_name(IsoTable table)
{
	Oid			nsp = iso_extension_namespace();

	return quote_qualified_identifier(get_namespace_name(nsp), table_names[table]);
}
