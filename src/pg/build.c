/*
 * build.c
 *	  Build the in-memory graph of a stored history (used by every graph and
 *	  check function).
 *
 * All memory of a build lives in one context under the caller's, so it is
 * freed by iso_build_close on success and with the query's memory on ERROR.
 * isograph.max_memory bounds it.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "check.h"
#include "host.h"
#include "isograph.h"

/* The build's memory context, bounded by isograph.max_memory. */
static void
build_begin(IsoBuild *build)
{
	iso_settings_ready();
	build->cxt = AllocSetContextCreate(CurrentMemoryContext, "isograph build",
									   ALLOCSET_DEFAULT_SIZES);
	iso_memory_limit_context(build->cxt);
}

/*
 * Infer the graph of build->history (and log).  sorted: as iso_graph_finish
 * leaves it; else deferred: the edges without rt kept apart and no graph
 * yet (IsoInference.realtime_deferred), for a caller that builds it,
 * unsorted, and sorts it only if it must (primed_scc_cache in check_sql.c,
 * iso_build_add_realtime, iso_build_sort).
 */
static bool
build_infer_or_fail(IsoBuild *build, bool sorted, bool report)
{
	IsoInferOptions options;
	IsoParseError err;
	MemoryContext old;
	bool		ok;

	iso_check_memory(build->cxt);
	memset(&options, 0, sizeof(options));
	options.parallel_keys = iso_parallel_inference ? ISO_PARALLEL_AUTO : ISO_PARALLEL_OFF;
	options.sequential_keys = iso_assume_sequential_keys;
	options.linearizable_keys = iso_assume_linearizable_keys;
	options.unsorted_graph = !sorted;
	/* an unsorted build checks levels: a graph only if a cycle needs it */
	options.defer_realtime = !sorted;
	old = MemoryContextSwitchTo(build->cxt);
	ok = iso_infer(&build->history, build->has_log ? &build->log : NULL,
				   &options, &build->inf, &err);
	MemoryContextSwitchTo(old);
	if (!ok && !report)
		return false;
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_UNIQUE_VIOLATION),
				 errmsg("%s", err.message),
				 errdetail("%s", err.detail),
				 errhint("%s", err.hint),
				 build->history_id != 0 ?
				 errcontext("history %lld", (long long) build->history_id) : 0));
	if (build->inf.helper_keys > 0)
		elog(DEBUG1, "isograph: list-append keys inferred on two threads, %u of %u on the second",
			 build->inf.helper_keys, build->history.keys.n);
	/* times nobody has order nothing, whatever their origin */
	if (build->inf.realtime.n_timed == 0)
		build->time_source = ISO_TIME_NONE;
	iso_check_memory(build->cxt);
	return true;
}

static void
build_infer(IsoBuild *build, bool sorted)
{
	(void) build_infer_or_fail(build, sorted, true);
}

/*
 * Build the graph of a stored history.  Returns false, building nothing,
 * when the caller cannot see the history.  Every read runs under one
 * snapshot that sees this transaction's earlier writes (snapshot.c).
 */
static bool
build_open(IsoBuild *build, int64 history_id, bool sorted)
{
	iso_history_id_check(history_id);
	memset(build, 0, sizeof(*build));
	build->history_id = history_id;
	iso_snapshot_push_latest();
	if (!iso_history_lookup(history_id, &build->name, &build->workload))
	{
		iso_snapshot_pop();
		return false;
	}

	build_begin(build);
	/* the image, else the events (stored as the image when that is free) */
	if (!iso_use_image ||
		!iso_image_read(history_id, build->workload, &build->history, build->cxt))
	{
		if (iso_image_save_on_read(history_id, build->workload, &build->history, build->cxt))
		{
			/*
			 * The events were read after taking the history's lock, with a
			 * newer snapshot: read the version order and times with one as
			 * new, so that the check sees one state of the history.
			 */
			iso_snapshot_pop();
			iso_snapshot_push_latest();
		}
		else
			iso_read_history(history_id, build->workload, &build->history, build->cxt);
	}
	if (build->workload == ISO_WORKLOAD_RW_REGISTER)
		build->has_log = iso_read_version_log(history_id, &build->history,
											  &build->log, build->cxt);
	build->time_source = iso_history_time_source(history_id);
	iso_snapshot_pop();
	build_infer(build, sorted);
	return true;
}

bool
iso_build_try_open_unsorted(IsoBuild *build, int64 history_id)
{
	return build_open(build, history_id, false);
}

static void
build_open_or_error(IsoBuild *build, int64 history_id, bool sorted)
{
	if (!build_open(build, history_id, sorted))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("history %lld does not exist", (long long) history_id),
				 errhint("See SELECT history_id, name FROM iso_history.")));
}

void
iso_build_open(IsoBuild *build, int64 history_id)
{
	build_open_or_error(build, history_id, true);
}

void
iso_build_open_unsorted(IsoBuild *build, int64 history_id)
{
	build_open_or_error(build, history_id, false);
}

/* The graph an unsorted build deferred (build_infer), rt edges included. */
void
iso_build_add_realtime(IsoBuild *build)
{
	MemoryContext old = MemoryContextSwitchTo(build->cxt);

	iso_infer_add_realtime(&build->inf, &build->history);
	MemoryContextSwitchTo(old);
	iso_check_memory(build->cxt);
}

void
iso_build_sort(IsoBuild *build)
{
	MemoryContext old;

	/* a sorted graph is the whole graph */
	iso_build_add_realtime(build);
	old = MemoryContextSwitchTo(build->cxt);
	iso_graph_sort(&build->inf.graph, &build->history);
	MemoryContextSwitchTo(old);
}

/*
 * Infer the graph of an EDN history just read (split: in two parts, by
 * edn_split.c).  False if a value is written in both parts, which only the
 * check finds: build is then empty again, for a read in one part, whose
 * parse names the value.
 */
static bool
build_infer_read(IsoBuild *build, bool split, const char *what)
{
	build->workload = build->history.workload;
	if (build_infer_or_fail(build, false, !split))
		return true;
	elog(DEBUG1, "isograph: history %s read again in one part: a value is written in both parts",
		 what);
	iso_build_close(build);
	memset(build, 0, sizeof(*build));
	build_begin(build);
	return false;
}

/*
 * Build the graph of an EDN history that is not stored (history_id 0): the
 * same history and graph as loading it and building from its rows, left
 * unsorted as by iso_build_open_unsorted (its one caller checks levels).
 * free_text: edn is the caller's own copy (a value detoasted for this
 * call), freed once parsed: the history holds copies of its texts, and the
 * graph built next is, with the history, the peak of the call.  A text of
 * 16 MB or more may be parsed in two parts at once (edn_split.c); then it
 * is kept until the check has found no value written in both, which one
 * parse of the text must name.
 */
void
iso_build_open_edn(IsoBuild *build, text *edn, IsoWorkload expected, bool free_text)
{
	bool		split;

	memset(build, 0, sizeof(*build));
	build_begin(build);
	build->history = *iso_history_from_edn(edn, expected, build->cxt,
										   &build->time_source, &split);
	/* read in two parts, the text may be needed again (below) */
	if (free_text && !split)
		pfree(edn);
	if (!build_infer_read(build, split, "text"))
	{
		build->history = *iso_history_from_edn(edn, expected, build->cxt,
											   &build->time_source, NULL);
		build_infer_read(build, false, "text");
	}
	if (free_text && split)
		pfree(edn);
}

/*
 * The same from an EDN file on the server, read in blocks (edn_file.c),
 * maybe in two parts at once (edn_split.c).  A value written in both parts
 * is found only by the check: then the file is read again in one part,
 * whose parse names it.
 */
void
iso_build_open_edn_file(IsoBuild *build, const char *path, IsoWorkload expected)
{
	bool		split;

	memset(build, 0, sizeof(*build));
	build_begin(build);
	build->history = *iso_history_from_edn_file(path, expected, build->cxt,
												&build->time_source, &split);
	if (!build_infer_read(build, split, "file"))
	{
		build->history = *iso_history_from_edn_file(path, expected, build->cxt,
													&build->time_source, NULL);
		build_infer_read(build, false, "file");
	}
}

void
iso_build_close(IsoBuild *build)
{
	MemoryContextDelete(build->cxt);
	build->cxt = NULL;
}

int64
iso_vertex_txn_id(const IsoBuild *build, uint32 vertex)
{
	return build->history.txns[build->inf.vertex_txn[vertex]].txn_id;
}

/* Every history the current user can see (now: snapshot.c), in id order. */
List *
iso_all_history_ids(void)
{
	MemoryContext caller = CurrentMemoryContext;
	List	   *ids = NIL;
	uint64		i;

	iso_snapshot_push_latest();
	SPI_connect();
	SPI_execute(psprintf("SELECT history_id FROM %s ORDER BY history_id",
						 iso_qualified_table_name(ISO_TABLE_HISTORY)), true, 0);
	for (i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		int64		id = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i],
													 SPI_tuptable->tupdesc, 1, &isnull));
		MemoryContext old = MemoryContextSwitchTo(caller);
		int64	   *p = palloc(sizeof(int64));

		*p = id;
		ids = lappend(ids, p);
		MemoryContextSwitchTo(old);
	}
	SPI_finish();
	iso_snapshot_pop();
	return ids;
}
