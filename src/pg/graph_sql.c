/*
 * graph_sql.c
 *	  SQL functions over a history's dependency graph: iso_build_graph,
 *	  iso_materialize_graph, iso_graph_stats, iso_anomalies.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "check.h"
#include "isograph.h"

PG_FUNCTION_INFO_V1(iso_build_graph);
PG_FUNCTION_INFO_V1(iso_materialize_graph);
PG_FUNCTION_INFO_V1(iso_graph_stats);
PG_FUNCTION_INFO_V1(iso_anomalies);

/* iso_edge's columns, also iso_build_graph's output. */
#define EDGE_NATTS 7

/*
 * The position of an edge's op: the op is one of the transaction of the
 * edge's vertex there, which spares the search for it (a time point has no
 * transaction and its edges no ops).
 */
static int32
op_pos(const IsoBuild *build, uint32 vertex, uint32 op)
{
	uint32		hint = vertex < build->inf.n_vertices ? build->inf.vertex_txn[vertex] : ISO_NONE;

	return iso_op_pos_near(&build->history, hint, op);
}

static void
edge_row(const IsoBuild *build, const IsoEdge *e, Datum *values, bool *nulls)
{
	const IsoHistory *h = &build->history;
	uint32		key = iso_edge_key(h, e);
	int32		from_op = iso_edge_from_op(e);

	memset(nulls, 0, EDGE_NATTS * sizeof(bool));
	values[0] = Int64GetDatum(build->history_id);
	values[1] = Int64GetDatum(iso_vertex_txn_id(build, e->from));
	values[2] = Int64GetDatum(iso_vertex_txn_id(build, e->to));
	values[3] = CStringGetTextDatum(iso_edge_type_name(e->type));
	nulls[4] = key == ISO_NO_KEY;
	if (!nulls[4])
		values[4] = CStringGetTextDatum(iso_key_text(build, key));
	nulls[5] = from_op == ISO_NO_OP;
	if (!nulls[5])
		values[5] = Int32GetDatum(op_pos(build, e->from, (uint32) from_op));
	nulls[6] = e->to_op == ISO_NO_OP;
	if (!nulls[6])
		values[6] = Int32GetDatum(op_pos(build, e->to, (uint32) e->to_op));
}

/*
 * iso_build_graph(history_id bigint) returns setof iso_edge-shaped rows
 */
Datum
iso_build_graph(PG_FUNCTION_ARGS)
{
	int64		history_id = PG_GETARG_INT64(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	IsoBuild	build;
	Datum		values[EDGE_NATTS];
	bool		nulls[EDGE_NATTS];
	uint64		i;

	InitMaterializedSRF(fcinfo, 0);
	iso_build_open(&build, history_id);
	for (i = 0; i < build.inf.graph.n_edges; i++)
	{
		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!iso_edge_is_listed(&build, &build.inf.graph.edges[i]))
			continue;
		edge_row(&build, &build.inf.graph.edges[i], values, nulls);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	iso_build_close(&build);
	return (Datum) 0;
}

/*
 * iso_materialize_graph(history_id bigint) returns bigint
 *
 * Replace the history's rows in iso_edge with its graph; returns the number
 * of edges stored.
 */
Datum
iso_materialize_graph(PG_FUNCTION_ARGS)
{
	int64		history_id = PG_GETARG_INT64(0);
	IsoBuild	build;
	IsoTableWriter writer;
	Datum		values[EDGE_NATTS];
	bool		nulls[EDGE_NATTS];
	Oid			argtypes[1] = {INT8OID};
	Datum		args[1];
	MemoryContext row_cxt;
	IsoOwnerSwitch sw;
	uint64		i;

	/* one materialization of a history at a time, and no delete meanwhile */
	iso_history_id_check(history_id);
	iso_history_lock(history_id);
	iso_build_open(&build, history_id);

	/* as the tables' owner: roles cannot delete edges (docs/security.md) */
	args[0] = Int64GetDatum(history_id);
	iso_owner_begin(&sw);
	SPI_connect();
	if (SPI_execute_with_args(psprintf("DELETE FROM %s WHERE history_id OPERATOR(pg_catalog.=) $1",
									   iso_qualified_table_name(ISO_TABLE_EDGE)),
							  1, argtypes, args, NULL, false, 0) != SPI_OK_DELETE)
		elog(ERROR, "could not delete old edges");
	SPI_finish();
	iso_owner_end(&sw);

	row_cxt = AllocSetContextCreate(CurrentMemoryContext, "isograph edge rows",
									ALLOCSET_DEFAULT_SIZES);
	iso_writer_open(&writer, ISO_TABLE_EDGE);
	for (i = 0; i < build.inf.graph.n_edges; i++)
	{
		MemoryContext old;

		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!iso_edge_is_listed(&build, &build.inf.graph.edges[i]))
			continue;
		old = MemoryContextSwitchTo(row_cxt);
		edge_row(&build, &build.inf.graph.edges[i], values, nulls);
		iso_writer_put(&writer, values, nulls);
		MemoryContextSwitchTo(old);
		MemoryContextReset(row_cxt);
	}
	iso_writer_close(&writer);
	MemoryContextDelete(row_cxt);
	iso_build_close(&build);
	PG_RETURN_INT64((int64) writer.rows);
}

/*
 * iso_graph_stats(history_id bigint) returns one row
 */
Datum
iso_graph_stats(PG_FUNCTION_ARGS)
{
	int64		history_id = PG_GETARG_INT64(0);
	TupleDesc	tupdesc;
	IsoBuild	build;
	uint64		counts[ISO_EDGE_NTYPES];
	uint64		edges;
	uint32		sccs;
	uint32		largest;
	Datum		values[16];
	bool		nulls[16];
	int			i = 0;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	iso_build_open(&build, history_id);
	iso_graph_count(&build.inf.graph, counts);
	iso_scc_stats(&build.inf.graph, ISO_EDGES_DATA, &sccs, &largest);
	edges = counts[ISO_EDGE_WW] + counts[ISO_EDGE_WR] + counts[ISO_EDGE_RW];

	memset(nulls, 0, sizeof(nulls));
	values[i++] = Int64GetDatum(history_id);
	values[i++] = Int64GetDatum(build.inf.n_vertices);
	values[i++] = Int64GetDatum(build.inf.n_fail);
	values[i++] = Int64GetDatum(build.inf.n_info);
	values[i++] = Int64GetDatum(counts[ISO_EDGE_WW]);
	values[i++] = Int64GetDatum(counts[ISO_EDGE_WR]);
	values[i++] = Int64GetDatum(counts[ISO_EDGE_RW]);
	values[i++] = Int64GetDatum(counts[ISO_EDGE_SO]);
	/* a dense real-time order is not listed (it goes through time points) */
	nulls[i] = build.inf.realtime.dense;
	values[i++] = Int64GetDatum(build.inf.realtime.dense ? 0 : counts[ISO_EDGE_RT]);
	values[i++] = Int64GetDatum(edges);
	values[i++] = Float8GetDatum(build.inf.n_vertices ? (double) edges / build.inf.n_vertices : 0.0);
	values[i++] = Int64GetDatum(sccs);
	values[i++] = Int64GetDatum(largest);
	values[i++] = Int64GetDatum(build.inf.n_anomalies);
	values[i++] = Int64GetDatum(build.inf.unknown_order_keys);
	values[i++] = CStringGetTextDatum(build.workload == ISO_WORKLOAD_LIST_APPEND ? "list reads" :
									  build.inf.unknown_order_keys == 0 ?
									  (build.has_log ? "version log" : "inferred") :
									  (build.has_log ? "partial (version log)" : "partial"));
	Assert(i == tupdesc->natts);
	iso_build_close(&build);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* Add one non-cycle anomaly row: history_id, anomaly, txns, events, key, explanation. */
void
iso_put_anomaly_row(const IsoBuild *build, const IsoAnomaly *a,
					Tuplestorestate *store, TupleDesc desc)
{
	const IsoHistory *h = &build->history;
	Datum		values[6];
	bool		nulls[6] = {false, false, false, false, false, false};
	Datum		txns[2];
	Datum		events[2];
	int			n = 0;
	StringInfoData buf;

	if (a->op_a != ISO_NONE)
	{
		txns[n] = Int64GetDatum(h->txns[a->txn_a].txn_id);
		events[n++] = Int32GetDatum(iso_op_pos_near(h, a->txn_a, a->op_a));
	}
	if (a->op_b != ISO_NONE)
	{
		txns[n] = Int64GetDatum(h->txns[a->txn_b].txn_id);
		events[n++] = Int32GetDatum(iso_op_pos_near(h, a->txn_b, a->op_b));
	}
	initStringInfo(&buf);
	iso_explain_anomaly(build, a, &buf);

	values[0] = Int64GetDatum(build->history_id);
	values[1] = CStringGetTextDatum(iso_anomaly_name(a->kind));
	values[2] = PointerGetDatum(construct_array(txns, n, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	values[3] = PointerGetDatum(construct_array(events, n, INT4OID, 4, true, TYPALIGN_INT));
	nulls[4] = a->key == ISO_NONE;
	if (!nulls[4])
		values[4] = CStringGetTextDatum(iso_key_text(build, a->key));
	values[5] = CStringGetTextDatum(buf.data);
	tuplestore_putvalues(store, desc, values, nulls);
}

/*
 * iso_anomalies(history_id bigint) returns setof rows
 */
Datum
iso_anomalies(PG_FUNCTION_ARGS)
{
	int64		history_id = PG_GETARG_INT64(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	IsoBuild	build;
	uint32		i;

	InitMaterializedSRF(fcinfo, 0);
	iso_build_open(&build, history_id);
	for (i = 0; i < build.inf.n_anomalies; i++)
	{
		iso_put_anomaly_row(&build, &build.inf.anomalies[i], rsinfo->setResult, rsinfo->setDesc);
		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	iso_build_close(&build);
	return (Datum) 0;
}
