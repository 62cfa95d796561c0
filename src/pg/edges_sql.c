/*
 * edges_sql.c
 *	  iso_check_edges: the cycle checks over a graph stored in iso_edge.
 *
 * iso_check builds the graph in memory and never needs iso_edge.  This
 * function runs the same cycle search over materialized (or imported)
 * edges, so the two can be compared, and graphs made by other tools can be
 * checked.  Non-cycle anomalies need the events and are not reported here.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "check.h"
#include "cycle.h"
#include "history.h"
#include "isograph.h"

PG_FUNCTION_INFO_V1(iso_check_edges);

typedef struct TxnVertex
{
	int64		txn_id;			/* hash key */
	uint32		vertex;
} TxnVertex;

static IsoEdgeType
edge_type_from_text(const char *s)
{
	IsoEdgeType t;

	if (!iso_edge_type_parse(s, &t))
		elog(ERROR, "unknown edge type \"%s\"", s);	/* iso_edge's CHECK */
	return t;
}

/*
 * Read the history's edges into graph; txn_ids[v] gets vertex v's txn id,
 * keys[k] the text of key k.
 */
static void
read_edges(int64 history_id, IsoGraph *graph, int64 **txn_ids, IsoStrTab *keys)
{
	MemoryContext cxt = CurrentMemoryContext;
	HASHCTL		ctl;
	HTAB	   *vertices;
	IsoEdgeBuf	buf;
	Oid			argtypes[1] = {INT8OID};
	Datum		args[1];
	Portal		portal;
	uint32		n_vertices = 0;
	uint32		cap_v = 1024;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(int64);
	ctl.entrysize = sizeof(TxnVertex);
	ctl.hcxt = cxt;
	vertices = hash_create("isograph edge vertices", 1024, &ctl,
						   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	iso_strtab_init(keys, 64);
	*txn_ids = palloc(sizeof(int64) * cap_v);
	iso_edgebuf_init(&buf, 1024);

	args[0] = Int64GetDatum(history_id);
	SPI_connect();
	portal = SPI_cursor_open_with_args(NULL,
									   psprintf("SELECT from_txn, to_txn, type, key FROM %s "
												"WHERE history_id OPERATOR(pg_catalog.=) $1 "
												"ORDER BY from_txn, to_txn, type",
												iso_qualified_table_name(ISO_TABLE_EDGE)),
									   1, argtypes, args, NULL, true, 0);
	for (;;)
	{
		uint64		r;

		SPI_cursor_fetch(portal, true, 10000);
		if (SPI_processed == 0)
			break;
		for (r = 0; r < SPI_processed; r++)
		{
			HeapTuple	tup = SPI_tuptable->vals[r];
			TupleDesc	desc = SPI_tuptable->tupdesc;
			bool		isnull;
			uint32		ends[2];
			uint32		key = ISO_NO_KEY;
			char	   *type;
			char	   *ktext;
			int			i;
			MemoryContext old = MemoryContextSwitchTo(cxt);

			for (i = 0; i < 2; i++)
			{
				int64		id = DatumGetInt64(SPI_getbinval(tup, desc, i + 1, &isnull));
				bool		found;
				TxnVertex  *tv = hash_search(vertices, &id, HASH_ENTER, &found);

				if (!found)
				{
					if (n_vertices == cap_v)
					{
						cap_v *= 2;
						*txn_ids = repalloc_huge(*txn_ids, sizeof(int64) * cap_v);
					}
					(*txn_ids)[n_vertices] = id;
					tv->vertex = n_vertices++;
				}
				ends[i] = tv->vertex;
			}
			type = SPI_getvalue(tup, desc, 3);
			ktext = SPI_getvalue(tup, desc, 4);
			if (ktext)
				key = iso_strtab_intern(keys, ktext, strlen(ktext));
			iso_edgebuf_add(&buf, ends[0], ends[1], edge_type_from_text(type), key,
							ISO_NO_OP, ISO_NO_OP);
			MemoryContextSwitchTo(old);
		}
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
	SPI_finish();
	/* no ops: the edges hold their keys (graph.h) */
	iso_graph_finish(graph, n_vertices, &buf, NULL);
}

/*
 * No stored edge: a history whose events do give edges was never
 * materialized (or its edges were deleted), and an empty result would read
 * as "no violation".  A history whose events give none (a single
 * transaction, independent ones, or edges imported without events) really
 * has no cycle: that is the only case that returns nothing.
 */
static void
refuse_unmaterialized(int64 history_id)
{
	IsoBuild	build;
	uint64		listed = 0;
	uint64		e;

	iso_build_open(&build, history_id);
	for (e = 0; e < build.inf.graph.n_edges; e++)
		if (iso_edge_is_listed(&build, &build.inf.graph.edges[e]))
			listed++;
	iso_build_close(&build);
	if (listed > 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("history %lld has no materialized edges", (long long) history_id),
				 errdetail_plural("Its events give %llu dependency edge, which is not in iso_edge.",
								  "Its events give %llu dependency edges, none of which is in iso_edge.",
								  (unsigned long) listed, (unsigned long long) listed),
				 errhint("Run SELECT iso_materialize_graph(%lld) first, or use iso_check, which builds the graph itself.",
						 (long long) history_id)));
}

/*
 * iso_check_edges(level text, history_id bigint, max_witnesses integer DEFAULT NULL)
 *
 * Not STRICT, so that a NULL max_witnesses means the setting; a NULL level
 * or history is an error (iso_check(level) is the call for every history).
 */
Datum
iso_check_edges(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *name;
	int64		history_id;
	uint32		max_witnesses;
	IsoLevel	level;
	IsoGraph	graph;
	IsoCycleList cycles;
	int64	   *txn_ids;
	IsoStrTab	keys;
	uint32		i;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("isolation level must not be null")));
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("history_id must not be null"),
				 errhint("iso_check_edges checks one history's stored edges; iso_check(level) checks every history.")));
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	history_id = PG_GETARG_INT64(1);
	iso_history_id_check(history_id);
	iso_settings_ready();
	max_witnesses = PG_ARGISNULL(2) ? (uint32) iso_max_witnesses :
		(uint32) Max(PG_GETARG_INT32(2), 1);
	if (!iso_level_parse(name, &level))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown isolation level \"%s\"", name),
				 errhint("See iso_check for the valid levels.")));
	InitMaterializedSRF(fcinfo, 0);
	/* the history row and its edges under one snapshot (snapshot.c) */
	iso_snapshot_push_latest();
	if (!iso_history_lookup(history_id, NULL, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("history %lld does not exist", (long long) history_id)));
	read_edges(history_id, &graph, &txn_ids, &keys);
	iso_snapshot_pop();
	if (graph.n_edges == 0)
		refuse_unmaterialized(history_id);

	memset(&cycles, 0, sizeof(cycles));
	iso_find_cycles(&graph, level, max_witnesses, &cycles);
	for (i = 0; i < cycles.n; i++)
	{
		const IsoCycle *c = &cycles.cycles[i];
		Datum	   *cyc = palloc(sizeof(Datum) * c->length);
		Datum	   *types = palloc(sizeof(Datum) * c->length);
		Datum	   *ks = palloc(sizeof(Datum) * c->length);
		bool	   *knull = palloc(sizeof(bool) * c->length);
		int			dims[1] = {(int) c->length};
		int			lbs[1] = {1};
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, false};
		uint32		j;

		for (j = 0; j < c->length; j++)
		{
			const IsoEdge *e = &graph.edges[c->edges[j]];

			cyc[j] = Int64GetDatum(txn_ids[e->from]);
			types[j] = CStringGetTextDatum(iso_edge_type_name(e->type));
			knull[j] = iso_edge_key(NULL, e) == ISO_NO_KEY;
			if (!knull[j])
			{
				int32		len;
				const char *k = iso_strtab_get(&keys, iso_edge_key(NULL, e), &len);

				ks[j] = PointerGetDatum(cstring_to_text_with_len(k, len));
			}
		}
		values[0] = Int64GetDatum(history_id);
		values[1] = CStringGetTextDatum(iso_level_name(level));
		values[2] = CStringGetTextDatum(iso_cycle_name(c));
		values[3] = PointerGetDatum(construct_array(cyc, c->length, INT8OID, 8,
													FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
		values[4] = PointerGetDatum(construct_array(types, c->length, TEXTOID, -1,
													false, TYPALIGN_INT));
		values[5] = PointerGetDatum(construct_md_array(ks, knull, 1, dims, lbs, TEXTOID,
													   -1, false, TYPALIGN_INT));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
