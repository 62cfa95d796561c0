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
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "isograph.h"

/*
 * The names roles use: iso_event and iso_version are views since 0.4.0,
 * over the tables below; before, they were the tables.
 */
static const char *const table_names[] = {
	[ISO_TABLE_HISTORY] = "iso_history",
	[ISO_TABLE_EVENT] = "iso_event",
	[ISO_TABLE_VERSION] = "iso_version",
	[ISO_TABLE_EDGE] = "iso_edge",
	[ISO_TABLE_IMAGE] = "iso_history_image",
	[ISO_TABLE_EVENT_CHUNK] = "iso_event_chunk",
};

/* The tables that hold the rows, where they differ (0.4.0). */
static const char *const data_table_names[] = {
	[ISO_TABLE_HISTORY] = NULL,
	[ISO_TABLE_EVENT] = "iso_event_data",
	[ISO_TABLE_VERSION] = "iso_version_data",
	[ISO_TABLE_EDGE] = NULL,
	[ISO_TABLE_IMAGE] = NULL,
	[ISO_TABLE_EVENT_CHUNK] = NULL,
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

/*
 * The name of the table that holds the rows: iso_event_data for events
 * under 0.4.0, iso_event before (the library works with every installed
 * version of the extension).
 */
static const char *
data_table_name(IsoTable table, Oid nsp)
{
	if (data_table_names[table] != NULL &&
		OidIsValid(get_relname_relid(data_table_names[table], nsp)))
		return data_table_names[table];
	return table_names[table];
}

const char *
iso_table_name(IsoTable table)
{
	return data_table_name(table, iso_extension_namespace());
}

/* A relation of the extension by name; InvalidOid if this version has none. */
Oid
iso_relation_oid(const char *name)
{
	return get_relname_relid(name, iso_extension_namespace());
}

/* The relation roles write to: the view iso_event (0.4.0) or the table. */
Oid
iso_table_public_oid(IsoTable table)
{
	return get_relname_relid(table_names[table], iso_extension_namespace());
}

Oid
iso_table_oid(IsoTable table)
{
	Oid			nsp = iso_extension_namespace();
	Oid			relid = get_relname_relid(data_table_name(table, nsp), nsp);

	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("table \"%s\" of extension isograph is missing",
						data_table_name(table, nsp)),
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
	Oid			nsp = iso_extension_namespace();

	return OidIsValid(get_relname_relid(data_table_name(table, nsp), nsp));
}

/* Whether the installed extension stores events packed (0.5.0 and later). */
bool
iso_events_packed(void)
{
	return iso_table_exists(ISO_TABLE_EVENT_CHUNK);
}

/* "schema"."table", quoted, for SPI query text. */
char *
iso_qualified_table_name(IsoTable table)
{
	Oid			nsp = iso_extension_namespace();

	return quote_qualified_identifier(get_namespace_name(nsp), data_table_name(table, nsp));
}

/*
 * Run isograph's own writes as the owner of iso_history (the extension's
 * owner): roles have no table-level INSERT, UPDATE or DELETE (those would
 * let them LOCK the tables), so bumping events_rev, dropping images and
 * edges, finishing a load and deleting a history run with the owner's
 * rights -- always after the caller's right to the history was checked
 * under row-level security, as the caller.  Like a SECURITY DEFINER
 * function, and like PostgreSQL's foreign-key triggers: the user id is
 * restored by iso_owner_end, or by the transaction's abort.
 */
void
iso_owner_begin(IsoOwnerSwitch *sw)
{
	HeapTuple	tup;
	Oid			owner;

	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(iso_table_oid(ISO_TABLE_HISTORY)));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for iso_history");
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	GetUserIdAndSecContext(&sw->save_userid, &sw->save_sec_context);
	SetUserIdAndSecContext(owner, sw->save_sec_context |
						   SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
}

void
iso_owner_end(const IsoOwnerSwitch *sw)
{
	SetUserIdAndSecContext(sw->save_userid, sw->save_sec_context);
}

/*
 * iso_current_role() returns regrole: the current role's oid, the owner of
 * the histories it creates and the key of the row-level policies.
 */
PG_FUNCTION_INFO_V1(iso_current_role);

Datum
iso_current_role(PG_FUNCTION_ARGS)
{
	PG_RETURN_OID(GetUserId());
}
