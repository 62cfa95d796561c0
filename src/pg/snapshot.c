/*
 * snapshot.c
 *	  The snapshot a check reads a history with.
 *
 * A check must never judge events it cannot see.  PostgreSQL runs a
 * function with the snapshot of the statement that calls it, taken before
 * the statement started, and read-only SPI queries use that snapshot as is.
 * So in
 *
 *	  SELECT * FROM iso_levels(iso_load_jepsen('h', edn));
 *
 * the load wrote its rows under later command ids of the same statement,
 * and a check reading with the statement's snapshot saw the history row
 * (looked up with a fresh snapshot) but none of its events: every level
 * "held", over 0 vertices.  The same happened in CTEs, in PL/pgSQL
 * statements that load and check at once, and to iso_materialize_graph.
 *
 * Every read of a check therefore runs under one snapshot taken when the
 * check starts: the command counter is advanced first, so everything this
 * transaction wrote before, including earlier in the same statement, is
 * visible; under READ COMMITTED the snapshot is new, under REPEATABLE READ
 * and SERIALIZABLE it is the transaction's own (with the new command id),
 * exactly what a volatile PL/pgSQL function's next statement would see.
 * All reads (history row, image, events, version log, edges) use that one
 * snapshot, so they agree with each other.  This makes the checks
 * VOLATILE (two calls in one statement may see different data) and
 * PARALLEL UNSAFE (a worker may neither advance the command counter nor
 * take snapshots of its own); the install script says so.
 */
#include "postgres.h"

#include "access/xact.h"
#include "utils/snapmgr.h"

#include "isograph.h"

/*
 * Push a snapshot that sees everything this transaction wrote so far and,
 * under READ COMMITTED, everything committed so far.  Read-only SPI queries
 * run under it until iso_snapshot_pop().  On ERROR the transaction's abort
 * pops it.
 */
void
iso_snapshot_push_latest(void)
{
	/*
	 * A no-op unless this command wrote something; in parallel mode it then
	 * raises an ERROR ("cannot start commands during a parallel operation")
	 * rather than letting a check miss those writes.
	 */
	CommandCounterIncrement();
	PushCopiedSnapshot(GetTransactionSnapshot());
	UpdateActiveSnapshotCommandId();
}

void
iso_snapshot_pop(void)
{
	PopActiveSnapshot();
}
