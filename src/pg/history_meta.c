/*
 * history_meta.c
 *	  The iso_history row of a history: create, finish and look it up.
 *
 * These run once per SQL call through SPI, so row-level security,
 * constraints and defaults on iso_history apply as for any user insert.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "isograph.h"


/* Run query_fmt (%s: iso_history, qualified) with $1 = history_id, in SPI. */
static int
exec_on_history(const char *query_fmt, int64 history_id, bool read_only, long count)
{
	Oid			argtypes[1] = {INT8OID};
	Datum		args[1];

	args[0] = Int64GetDatum(history_id);
	return SPI_execute_with_args(psprintf(query_fmt, iso_qualified_table_name(ISO_TABLE_HISTORY)),
								 1, argtypes, args, NULL, read_only, count);
}

/*
 * SQL condition "the row's owner is the current role": owner is the role's
 * oid (regrole) since 0.4.0, its name before.
 */
static char *
owner_is_current_role(void)
{
	Oid			relid = iso_table_oid(ISO_TABLE_HISTORY);

	if (get_atttype(relid, get_attnum(relid, "owner")) == REGROLEOID)
		return psprintf("owner OPERATOR(pg_catalog.=) '%u'::pg_catalog.oid", GetUserId());
	return pstrdup("owner OPERATOR(pg_catalog.=) CURRENT_USER");
}

/*
 * Insert a history row and return its id.  Names are unique per owner: a
 * superuser, who sees every history, may use a name another role uses.
 */
int64
iso_history_create(const char *name, const char *workload, const char *source)
{
	char	   *sql;
	Oid			argtypes[3] = {TEXTOID, TEXTOID, TEXTOID};
	Datum		args[3];
	bool		isnull;
	int64		history_id;
	int			ret;

	args[0] = CStringGetTextDatum(name);
	args[1] = CStringGetTextDatum(workload);
	args[2] = CStringGetTextDatum(source);

	SPI_connect();

	sql = psprintf("SELECT 1 FROM %s WHERE name OPERATOR(pg_catalog.=) $1 AND %s",
				   iso_qualified_table_name(ISO_TABLE_HISTORY), owner_is_current_role());
	ret = SPI_execute_with_args(sql, 1, argtypes, args, NULL, true, 1);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute_with_args failed: %s", SPI_result_code_string(ret));
	if (SPI_processed > 0)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("history \"%s\" already exists", name),
				 errhint("Choose another name, or delete the old history with iso_delete_history().")));

	sql = psprintf("INSERT INTO %s (name, workload, source) VALUES ($1, $2, $3) "
				   "RETURNING history_id",
				   iso_qualified_table_name(ISO_TABLE_HISTORY));
	ret = SPI_execute_with_args(sql, 3, argtypes, args, NULL, false, 1);
	if (ret != SPI_OK_INSERT_RETURNING || SPI_processed != 1)
		elog(ERROR, "could not insert into iso_history: %s", SPI_result_code_string(ret));
	history_id = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
											 SPI_tuptable->tupdesc, 1, &isnull));
	SPI_finish();
	return history_id;
}

/*
 * Record what loading found out: the workload, the skipped records and
 * where the times of the events come from (metadata->>'realtime').
 */
void
iso_history_finish_load(int64 history_id, const char *workload, int64 skipped,
						IsoTimeSource time_source)
{
	Oid			argtypes[4] = {INT8OID, TEXTOID, INT8OID, TEXTOID};
	Datum		args[4];
	IsoOwnerSwitch sw;
	char	   *sql;
	int			ret;

	args[0] = Int64GetDatum(history_id);
	args[1] = CStringGetTextDatum(workload);
	args[2] = Int64GetDatum(skipped);
	args[3] = CStringGetTextDatum(iso_time_source_name(time_source));

	/* the caller created the row in this transaction (iso_history_create) */
	iso_owner_begin(&sw);
	SPI_connect();
	sql = psprintf("UPDATE %s SET workload = $2, skipped = $3, "
				   "metadata = metadata OPERATOR(pg_catalog.||) "
				   "pg_catalog.jsonb_build_object('realtime', $4) "
				   "WHERE history_id OPERATOR(pg_catalog.=) $1",
				   iso_qualified_table_name(ISO_TABLE_HISTORY));
	ret = SPI_execute_with_args(sql, 4, argtypes, args, NULL, false, 0);
	if (ret != SPI_OK_UPDATE)
		elog(ERROR, "could not update iso_history: %s", SPI_result_code_string(ret));
	SPI_finish();
	iso_owner_end(&sw);
}

/*
 * Look up a history the current user can see, with the active snapshot:
 * the caller pushes the one it reads the history's rows with
 * (iso_snapshot_push_latest), so that the history row and its events are
 * seen alike.  Returns false if there is none; *name is palloc'd in the
 * caller's context.
 */
bool
iso_history_lookup(int64 history_id, char **name, IsoWorkload *workload)
{
	Oid			argtypes[1] = {INT8OID};
	Datum		args[1];
	MemoryContext caller = CurrentMemoryContext;
	char	   *sql;
	bool		found;
	int			ret;

	args[0] = Int64GetDatum(history_id);
	SPI_connect();
	sql = psprintf("SELECT name, workload FROM %s WHERE history_id OPERATOR(pg_catalog.=) $1",
				   iso_qualified_table_name(ISO_TABLE_HISTORY));
	ret = SPI_execute_with_args(sql, 1, argtypes, args, NULL, true, 1);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute_with_args failed: %s", SPI_result_code_string(ret));
	found = SPI_processed == 1;
	if (found)
	{
		char	   *w = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
		MemoryContext old = MemoryContextSwitchTo(caller);

		if (name)
			*name = pstrdup(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
		MemoryContextSwitchTo(old);
		if (workload && !iso_workload_parse(w, workload))
			*workload = ISO_WORKLOAD_RW_REGISTER;	/* the CHECK admits two */
	}
	SPI_finish();
	return found;
}

static void history_gone(int64 history_id) pg_attribute_noreturn();

static void
history_gone(int64 history_id)
{
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_OBJECT),
			 errmsg("history %lld does not exist", (long long) history_id),
			 errdetail("It may have been deleted while this statement ran.")));
}

/*
 * ERROR unless history_id can name a stored history: ids are positive (0 is
 * the EDN text a check parses itself, build.c), and no negative id stands
 * for "every history" anywhere; that is a path of its own.
 */
void
iso_history_id_check(int64 history_id)
{
	if (history_id <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("history_id must be positive, not %lld", (long long) history_id),
				 errdetail("Stored histories have ids from 1 up."),
				 errhint("See SELECT history_id, name FROM iso_history.")));
}

/*
 * Lock a history's row, FOR NO KEY UPDATE, the one lock every writer of the
 * history's rows takes before it reads or writes them (image_store.c's
 * header has the argument): iso_save_image, the iso_event triggers,
 * iso_materialize_graph, iso_load_versions and iso_load_jepsen.  Our bulk
 * writer (writer.c) bypasses the foreign keys, so this is also what keeps a
 * concurrent iso_delete_history (which locks the row FOR UPDATE by deleting
 * it) from leaving orphans.  Returns false if the history is gone (or
 * invisible to the caller); under REPEATABLE READ or SERIALIZABLE a row
 * changed since the transaction's snapshot is a serialization failure.
 */
static bool
lock_history_row(int64 history_id, bool wait)
{
	Oid			argtypes[1] = {INT8OID};
	Datum		args[1];
	bool		locked;
	int			ret;

	args[0] = Int64GetDatum(history_id);
	SPI_connect();
	ret = SPI_execute_with_args(psprintf("SELECT 1 FROM %s WHERE history_id OPERATOR(pg_catalog.=) $1 "
										 "FOR NO KEY UPDATE%s",
										 iso_qualified_table_name(ISO_TABLE_HISTORY),
										 wait ? "" : " SKIP LOCKED"),
								1, argtypes, args, NULL, false, 1);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "could not lock the history: %s", SPI_result_code_string(ret));
	locked = SPI_processed == 1;
	SPI_finish();
	return locked;
}

bool
iso_history_try_lock(int64 history_id)
{
	return lock_history_row(history_id, true);
}

/*
 * iso_history_try_lock without waiting: false if another transaction holds
 * the lock (or the history is gone).  For the optional writes of a check
 * (iso_image_save_on_read), which must never wait for a writer.
 */
bool
iso_history_lock_nowait(int64 history_id)
{
	return lock_history_row(history_id, false);
}

/* iso_history_try_lock, with an ERROR if the history is gone. */
void
iso_history_lock(int64 history_id)
{
	iso_history_id_check(history_id);
	if (!iso_history_try_lock(history_id))
		history_gone(history_id);
}

/*
 * Lock the history row as iso_history_lock does, by an UPDATE that changes
 * nothing but makes a new row version, and return its events_rev
 * (iso_save_image).  A writer of the history's events that locks the row
 * after us waits for our end, then sees our image (READ COMMITTED) or, its
 * snapshot older than our row version, fails to serialize (REPEATABLE READ
 * or SERIALIZABLE): image_store.c's header has the whole argument.
 */
int64
iso_history_lock_rev(int64 history_id)
{
	IsoOwnerSwitch sw;
	bool		isnull;
	int64		rev;
	int			ret;

	/* the caller's history (row-level security), locked before the write */
	iso_history_lock(history_id);
	/* events_rev is isograph's: roles cannot update it */
	iso_owner_begin(&sw);
	SPI_connect();
	ret = exec_on_history("UPDATE %s SET events_rev = events_rev "
						  "WHERE history_id OPERATOR(pg_catalog.=) $1 RETURNING events_rev",
						  history_id, false, 0);
	if (ret != SPI_OK_UPDATE_RETURNING)
		elog(ERROR, "could not lock the history: %s", SPI_result_code_string(ret));
	if (SPI_processed != 1)
		history_gone(history_id);
	rev = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	SPI_finish();
	iso_owner_end(&sw);
	return rev;
}

/*
 * iso_delete_history(history_id bigint) returns boolean: delete a history
 * the caller can see (its own; any for a superuser) with its events,
 * versions, edges and image; false if there is none (or NULL).  The
 * history's row is locked first, as the caller (row-level security), then
 * its rows are deleted as the tables' owner: roles have no DELETE on the
 * tables.  The events are deleted explicitly (iso_event_data has no
 * foreign key); the other tables follow by ON DELETE CASCADE.
 */
PG_FUNCTION_INFO_V1(iso_delete_history);

Datum
iso_delete_history(PG_FUNCTION_ARGS)
{
	int64		history_id;
	IsoOwnerSwitch sw;
	int			ret;

	if (PG_ARGISNULL(0))
		PG_RETURN_BOOL(false);
	history_id = PG_GETARG_INT64(0);
	iso_history_id_check(history_id);

	SPI_connect();
	ret = exec_on_history("SELECT 1 FROM %s WHERE history_id OPERATOR(pg_catalog.=) $1 FOR UPDATE",
						  history_id, false, 1);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "could not lock the history: %s", SPI_result_code_string(ret));
	if (SPI_processed != 1)
	{
		SPI_finish();
		PG_RETURN_BOOL(false);
	}
	SPI_finish();

	iso_owner_begin(&sw);
	SPI_connect();
	/* the events: no foreign key deletes them (0.4.0 and later) */
	if (iso_events_packed() ||
		iso_table_oid(ISO_TABLE_EVENT) != iso_table_public_oid(ISO_TABLE_EVENT))
	{
		Oid			argtypes[1] = {INT8OID};
		Datum		args[1];

		args[0] = Int64GetDatum(history_id);
		ret = SPI_execute_with_args(psprintf("DELETE FROM %s WHERE history_id OPERATOR(pg_catalog.=) $1",
											 iso_qualified_table_name(iso_events_packed() ?
																	  ISO_TABLE_EVENT_CHUNK :
																	  ISO_TABLE_EVENT)),
									1, argtypes, args, NULL, false, 0);
		if (ret != SPI_OK_DELETE)
			elog(ERROR, "could not delete the events: %s", SPI_result_code_string(ret));
	}
	ret = exec_on_history("DELETE FROM %s WHERE history_id OPERATOR(pg_catalog.=) $1",
						  history_id, false, 0);
	if (ret != SPI_OK_DELETE)
		elog(ERROR, "could not delete the history: %s", SPI_result_code_string(ret));
	SPI_finish();
	iso_owner_end(&sw);
	PG_RETURN_BOOL(true);
}

/*
 * Where the invoke/complete times of a stored history come from: "record
 * order" when iso_load_jepsen made them of record positions (metadata), else
 * time values (EDN :time, or the columns a COPY filled in).  Whether any
 * transaction has them is the graph builder's business (NONE then).
 */
IsoTimeSource
iso_history_time_source(int64 history_id)
{
	IsoTimeSource source = ISO_TIME_VALUES;
	int			ret;

	SPI_connect();
	ret = exec_on_history("SELECT metadata OPERATOR(pg_catalog.->>) 'realtime' FROM %s "
						  "WHERE history_id OPERATOR(pg_catalog.=) $1",
						  history_id, true, 1);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute_with_args failed: %s", SPI_result_code_string(ret));
	if (SPI_processed == 1)
	{
		char	   *v = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);

		if (v != NULL && strcmp(v, iso_time_source_name(ISO_TIME_RECORD_ORDER)) == 0)
			source = ISO_TIME_RECORD_ORDER;
	}
	SPI_finish();
	return source;
}
