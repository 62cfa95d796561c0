/*
 * check_sql.c
 *	  iso_check, iso_levels and iso_dot: isolation levels over a history's
 *	  graph, with explained counterexamples.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/resowner.h"

#include "check.h"
#include "isograph.h"
#include "levels.h"
#include "search.h"

PG_FUNCTION_INFO_V1(iso_check);
PG_FUNCTION_INFO_V1(iso_levels);
PG_FUNCTION_INFO_V1(iso_levels_jepsen);
PG_FUNCTION_INFO_V1(iso_levels_jepsen_file);
PG_FUNCTION_INFO_V1(iso_dot);
PG_FUNCTION_INFO_V1(iso_version_order_witness);

#define CHECK_NATTS 9

/* The anomaly of iso_check's row for a history it could not check. */
#define UNINTERPRETABLE "uninterpretable"

/*
 * While iso_check runs one history in a subtransaction: the resource owner
 * the result's tuplestore belongs to.  A tuplestore that spills to a
 * temporary file registers the file with the current resource owner, which
 * must not be the subtransaction's (released or rolled back per history).
 */
static ResourceOwner check_store_owner = NULL;

static void
put_check_row(Tuplestorestate *store, TupleDesc desc, Datum *values, bool *nulls)
{
	ResourceOwner owner = CurrentResourceOwner;

	if (check_store_owner != NULL)
		CurrentResourceOwner = check_store_owner;
	tuplestore_putvalues(store, desc, values, nulls);
	CurrentResourceOwner = owner;
}

static IsoLevel
parse_level(text *t)
{
	char	   *name = text_to_cstring(t);
	IsoLevel	level;

	if (!iso_level_parse(name, &level))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown isolation level \"%s\"", name),
				 errhint("Valid levels are pl-1 (read-uncommitted), pl-2 (read-committed), "
						 "pl-2.99 (repeatable-read), psi (parallel-snapshot-isolation), "
						 "si (snapshot-isolation), ser (serializable, pl-3), "
						 "strong-session-si, strong-session-serializable and strict-serializable.")));
	return level;
}

static Datum
int8_array(const int64 *v, int n)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(n, 1));
	int			i;

	for (i = 0; i < n; i++)
		d[i] = Int64GetDatum(v[i]);
	return PointerGetDatum(construct_array(d, n, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/* text[] of n C strings, NULL entries allowed. */
static Datum
text_array(char **v, int n)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(n, 1));
	bool	   *nulls = palloc(sizeof(bool) * Max(n, 1));
	int			dims[1] = {n};
	int			lbs[1] = {1};
	int			i;

	for (i = 0; i < n; i++)
	{
		nulls[i] = v[i] == NULL;
		d[i] = nulls[i] ? (Datum) 0 : CStringGetTextDatum(v[i]);
	}
	if (n == 0)
		return PointerGetDatum(construct_empty_array(TEXTOID));
	return PointerGetDatum(construct_md_array(d, nulls, 1, dims, lbs, TEXTOID, -1, false, TYPALIGN_INT));
}

/*
 * "T1 -ww x-> T2 -rw y-> T1": a cycle a forced edge's other order closes,
 * or a cycle of the solver's proof (forced: per edge, an order pruning
 * forced, written "-ww x (forced)->"; NULL: none)
 */
static void
append_reason_cycle(const IsoBuild *build, const IsoEdge *edges, uint32 n,
					const uint8 *forced, StringInfo out)
{
	uint32		i;

	for (i = 0; i < n; i++)
	{
		const IsoEdge *e = &edges[i];
		uint32		k = iso_edge_key(&build->history, e);
		char	   *key = k == ISO_NO_KEY ? NULL : iso_key_text(build, k);

		if (e->from >= build->inf.n_vertices || e->to >= build->inf.n_vertices)
		{
			/* a real-time hop through a time point */
			if (i == 0 || edges[i - 1].to < build->inf.n_vertices)
				appendStringInfo(out, "T%lld -rt", i == 0 && e->from < build->inf.n_vertices ?
								 (long long) iso_vertex_txn_id(build, e->from) : 0LL);
			if (e->to < build->inf.n_vertices)
				appendStringInfoString(out, "-> ");
			continue;
		}
		if (i == 0 || edges[i - 1].to < build->inf.n_vertices)
			appendStringInfo(out, "T%lld ", (long long) iso_vertex_txn_id(build, e->from));
		appendStringInfo(out, "-%s%s%s%s-> ", iso_edge_type_name(e->type), key ? " " : "",
						 key ? key : "", forced != NULL && forced[i] ? " (forced)" : "");
	}
	if (n > 0)
		appendStringInfo(out, "T%lld", (long long) iso_vertex_txn_id(build, edges[0].from));
}

/* the transaction of write op op, as iso_check names it */
static long long
op_txn_id(const IsoBuild *build, int32 op)
{
	return (long long) build->history.txns[iso_op_txn(&build->history, (uint32) op)].txn_id;
}

/* "T1 -ww :x-> T2 -rw :y-> T1 would be a cycle": proof cycle i */
static void
append_proof_leaf(const IsoBuild *build, const IsoSearchResult *sr, uint32 i, StringInfo out)
{
	append_reason_cycle(build, sr->proof_edges + sr->proof_start[i],
						sr->proof_start[i + 1] - sr->proof_start[i],
						sr->proof_forced ? sr->proof_forced + sr->proof_start[i] : NULL, out);
	appendStringInfoString(out, " would be a cycle");
}

/*
 * A node of the solver's case split (search.h, IsoChoiceNode): each branch
 * ends in a cycle its choices close.  A split one of whose sides closes a
 * cycle at once reads as a forced order; a split of two open sides as
 * "either ... or ...", in parentheses when nested.
 */
static void
append_choice(const IsoBuild *build, const IsoSearchResult *sr, uint32 n, bool nested,
			  StringInfo out)
{
	const IsoChoiceNode *nd;
	const IsoChoiceNode *c0,
			   *c1;
	char	   *key;

	if (n == ISO_NONE || n >= sr->n_choice_nodes)
	{
		appendStringInfoString(out, "...");
		return;
	}
	nd = &sr->choice_nodes[n];
	switch ((IsoChoiceKind) nd->kind)
	{
		case ISO_CHOICE_LEAF:
			append_proof_leaf(build, sr, nd->cycle, out);
			return;
		case ISO_CHOICE_CUT:
			appendStringInfoString(out, "... (the case split goes on; isograph shows a bounded part of it)");
			return;
		case ISO_CHOICE_IF:
			append_choice(build, sr, nd->child[0], nested, out);
			return;
		case ISO_CHOICE_SPLIT:
			break;
	}
	key = iso_key_text(build, nd->key);
	c0 = nd->child[0] < sr->n_choice_nodes ? &sr->choice_nodes[nd->child[0]] : NULL;
	c1 = nd->child[1] < sr->n_choice_nodes ? &sr->choice_nodes[nd->child[1]] : NULL;
	if (c0 && c0->kind == ISO_CHOICE_LEAF && !(c1 && c1->kind == ISO_CHOICE_LEAF))
	{
		appendStringInfo(out, "T%lld's write of %s must precede T%lld's (otherwise ",
						 op_txn_id(build, nd->second_op), key, op_txn_id(build, nd->first_op));
		append_proof_leaf(build, sr, c0->cycle, out);
		appendStringInfoString(out, "), and then ");
		append_choice(build, sr, nd->child[1], nested, out);
	}
	else if (c1 && c1->kind == ISO_CHOICE_LEAF && !(c0 && c0->kind == ISO_CHOICE_LEAF))
	{
		appendStringInfo(out, "T%lld's write of %s must precede T%lld's (otherwise ",
						 op_txn_id(build, nd->first_op), key, op_txn_id(build, nd->second_op));
		append_proof_leaf(build, sr, c1->cycle, out);
		appendStringInfoString(out, "), and then ");
		append_choice(build, sr, nd->child[0], nested, out);
	}
	else
	{
		if (nested)
			appendStringInfoChar(out, '(');
		appendStringInfo(out, "either T%lld's write of %s precedes T%lld's and ",
						 op_txn_id(build, nd->first_op), key, op_txn_id(build, nd->second_op));
		append_choice(build, sr, nd->child[0], true, out);
		appendStringInfoString(out, ", or it follows it and ");
		append_choice(build, sr, nd->child[1], true, out);
		if (nested)
			appendStringInfoChar(out, ')');
	}
}

/*
 * What the search says about a witness edge: forced by pruning (and the
 * cycle the other order would close), or chosen by the solver.  The edge
 * is found in g by its endpoints, type and ops (the cycle's copy may be a
 * collapsed real-time hop, which is neither).
 */
static void
explain_search_edge(const IsoBuild *build, const IsoGraph *g, const IsoSearchResult *sr,
					const IsoCycle *c, const IsoEdge *e, StringInfo out)
{
	uint32		i;

	for (i = 0; i < c->length; i++)
	{
		uint64		idx = c->edges[i];
		const IsoEdge *ge = &g->edges[idx];

		if (ge->from != e->from || ge->to != e->to || ge->type != e->type ||
			iso_edge_from_op(ge) != iso_edge_from_op(e) || ge->to_op != e->to_op)
			continue;
		if (sr->edge_origin[idx] == ISO_ORIGIN_FORCED)
		{
			if (e->type == ISO_EDGE_WW)
				appendStringInfo(out, " [forced: T%lld's write of %s must precede T%lld's",
								 (long long) iso_vertex_txn_id(build, e->from),
								 iso_key_text(build, iso_edge_key(&build->history, e)),
								 (long long) iso_vertex_txn_id(build, e->to));
			else
				appendStringInfo(out, " [forced: T%lld's write of %s must follow the version T%lld read",
								 (long long) iso_vertex_txn_id(build, e->to),
								 iso_key_text(build, iso_edge_key(&build->history, e)),
								 (long long) iso_vertex_txn_id(build, e->from));
			if (sr->edge_reason[idx] != ISO_NONE)
			{
				appendStringInfoString(out, ", otherwise ");
				append_reason_cycle(build, sr->reason_edges + sr->edge_reason[idx],
									sr->reason_len[sr->edge_reason[idx]], NULL, out);
				appendStringInfoString(out, " would be a cycle");
			}
			appendStringInfoChar(out, ']');
		}
		else if (sr->edge_origin[idx] == ISO_ORIGIN_CHOSEN && sr->edge_choice != NULL &&
				 sr->edge_choice[idx] < sr->n_choice_nodes)
		{
			const IsoChoiceNode *nd = &sr->choice_nodes[sr->edge_choice[idx]];

			/* the other order, and the cycle(s) it closes */
			appendStringInfo(out, " [choice: if instead T%lld's write of %s precedes T%lld's",
							 op_txn_id(build, nd->first_op), iso_key_text(build, nd->key),
							 op_txn_id(build, nd->second_op));
			if (nd->uses_earlier)
				appendStringInfoString(out, " (and the chosen edges before it as in this cycle)");
			appendStringInfoString(out, ", then ");
			append_choice(build, sr, nd->child[0], false, out);
			appendStringInfoChar(out, ']');
		}
		else if (sr->edge_origin[idx] == ISO_ORIGIN_CHOSEN)
			appendStringInfoString(out, " [an order the search chose: every order it tried closes a cycle]");
		return;
	}
}

/*
 * A witness cycle's row.  g: the graph the cycle's edges index (the
 * inferred one, or a search's); sr: the search it comes from, or NULL.
 */
static void
put_cycle_row(const IsoBuild *build, const IsoGraph *g, const IsoSearchResult *sr,
			  IsoLevel level, const IsoCycle *c, Tuplestorestate *store, TupleDesc desc)
{
	Datum		values[CHECK_NATTS];
	bool		nulls[CHECK_NATTS];
	int64	   *txns = palloc(sizeof(int64) * Max(c->length, 1));
	char	  **types = palloc(sizeof(char *) * Max(c->length, 1));
	char	  **keys = palloc(sizeof(char *) * Max(c->length, 1));
	IsoEdge    *cycle = palloc(sizeof(IsoEdge) * Max(c->length, 1));
	uint32		length;
	StringInfoData buf;
	uint32		i;

	/* time points stay internal: rt hops through them become T -> S */
	length = iso_rt_collapse_cycle(g, build->inf.n_vertices, c->edges, c->length, cycle);
	if (length == 0)
		elog(ERROR, "witness cycle without a transaction");
	initStringInfo(&buf);
	appendStringInfo(&buf, "%s: ", iso_cycle_name(c));
	for (i = 0; i < length; i++)
	{
		const IsoEdge *e = &cycle[i];
		uint32		k = iso_edge_key(&build->history, e);

		txns[i] = iso_vertex_txn_id(build, e->from);
		types[i] = (char *) iso_edge_type_name(e->type);
		keys[i] = k == ISO_NO_KEY ? NULL : iso_key_text(build, k);
		if (i > 0)
			appendStringInfoString(&buf, "; ");
		iso_explain_edge_ex(build, e, sr != NULL, &buf);
		if (sr != NULL)
			explain_search_edge(build, g, sr, c, e, &buf);
	}
	appendStringInfo(&buf, "; so T%lld depends on itself",
					 (long long) txns[0]);

	memset(nulls, 0, sizeof(nulls));
	values[0] = Int64GetDatum(build->history_id);
	values[1] = CStringGetTextDatum(build->name);
	values[2] = CStringGetTextDatum(iso_level_name(level));
	values[3] = CStringGetTextDatum(iso_cycle_name(c));
	values[4] = int8_array(txns, length);
	values[5] = text_array(types, length);
	values[6] = text_array(keys, length);
	values[7] = CStringGetTextDatum(buf.data);
	values[8] = values[4];
	put_check_row(store, desc, values, nulls);
}

static void
put_anomaly_check_row(const IsoBuild *build, IsoLevel level, const IsoAnomaly *a,
					  Tuplestorestate *store, TupleDesc desc)
{
	const IsoHistory *h = &build->history;
	Datum		values[CHECK_NATTS];
	bool		nulls[CHECK_NATTS];
	int64		txns[2];
	char	   *keys[1];
	int			n = 0;
	StringInfoData buf;

	if (a->txn_a != ISO_NONE)
		txns[n++] = h->txns[a->txn_a].txn_id;
	if (a->txn_b != ISO_NONE && a->txn_b != a->txn_a)
		txns[n++] = h->txns[a->txn_b].txn_id;
	keys[0] = iso_key_text(build, a->key);
	initStringInfo(&buf);
	appendStringInfo(&buf, "%s: ", iso_anomaly_name(a->kind));
	iso_explain_anomaly(build, a, &buf);

	memset(nulls, 0, sizeof(nulls));
	values[0] = Int64GetDatum(build->history_id);
	values[1] = CStringGetTextDatum(build->name);
	values[2] = CStringGetTextDatum(iso_level_name(level));
	values[3] = CStringGetTextDatum(iso_anomaly_name(a->kind));
	values[4] = int8_array(NULL, 0);
	values[5] = text_array(NULL, 0);
	values[6] = text_array(keys, keys[0] ? 1 : 0);
	values[7] = CStringGetTextDatum(buf.data);
	values[8] = int8_array(txns, n);
	put_check_row(store, desc, values, nulls);
}

/* The search's settings (isograph.search_timeout, isograph.max_memory). */
static void
search_options(IsoSearchOptions *o)
{
	memset(o, 0, sizeof(*o));
	o->timeout_seconds = iso_search_timeout_ms / 1000.0;
	o->no_search = iso_search_timeout_ms == 0;
	/* each ordered version pair takes a bit: at most 3/4 of the memory */
	o->max_pairs = (uint64) iso_max_memory_mb * 1024 * 1024 / 4 * 3 * 8;
	/* the solver (not in the memory context): about 250 bytes a variable */
	o->max_constraints = (uint64) iso_max_memory_mb * 1024 * 1024 / 2 / 256;
	/* both together (checked after pruning, which leaves few variables) */
	o->max_bytes = (uint64) iso_max_memory_mb * 1024 * 1024;
	o->max_witnesses = (uint32) iso_max_witnesses;
}

/* iso_decide_levels in the build's memory; a cancel is raised after it. */
static void
decide_levels(IsoBuild *build, uint32 wanted, IsoLevelDecision *d, IsoSccCache *cache)
{
	IsoSearchOptions o;
	MemoryContext old;

	search_options(&o);
	old = MemoryContextSwitchTo(build->cxt);
	iso_decide_levels(&build->history, &build->inf, wanted, &o, cache, d);
	MemoryContextSwitchTo(old);
	CHECK_FOR_INTERRUPTS();
}

/* The search result that shows a level's violation (following implications). */
static const IsoSearchResult *
violation_search(const IsoLevelDecision *d, IsoLevel level)
{
	int			hops;

	for (hops = 0; hops < ISO_LEVEL_COUNT; hops++)
	{
		if (d[level].method == ISO_BY_SEARCH && d[level].searched)
			return &d[level].search;
		if (d[level].method != ISO_BY_IMPLICATION || d[level].via == level)
			return NULL;
		level = d[level].via;
	}
	return NULL;
}

/* The search result whose version order shows a level holds, or NULL. */
static const IsoSearchResult *
pass_search(const IsoLevelDecision *d, IsoLevel level)
{
	return violation_search(d, level);
}

static const char *
search_note_reason(const IsoLevelDecision *dl)
{
	if (dl->searched && dl->search.reason)
		return dl->search.reason;
	return iso_search_timeout_ms == 0 ? "the search is off (isograph.search_timeout = 0)" :
		"the search did not finish";
}

/*
 * A level the evidence does not violate on a register history with keys of
 * unknown version order: the version-order search decides it.  Rows: the
 * search's witnesses.  Not decided: a WARNING, no row.
 */
static int64
check_level_by_search(IsoBuild *build, IsoLevel level, Tuplestorestate *store,
					  TupleDesc desc)
{
	IsoLevelDecision d[ISO_LEVEL_COUNT];
	const IsoSearchResult *sr;
	uint32		i;
	int64		n;

	decide_levels(build, 1u << level, d, NULL);
	if (d[level].method == ISO_NOT_DECIDED)
	{
		ereport(WARNING,
				(errcode(ERRCODE_WARNING),
				 errmsg("%s not decided for history %lld: %s",
						iso_level_name(level), (long long) build->history_id,
						search_note_reason(&d[level])),
				 errdetail("The version order of %u register key(s) is unknown; no witness is reported.",
						   build->inf.unknown_order_keys),
				 errhint("Raise isograph.search_timeout, or check a smaller history.")));
		return 0;
	}
	if (d[level].holds)
		return 0;
	sr = violation_search(d, level);
	if (sr == NULL || sr->cycles.n == 0)
		elog(ERROR, "version-order search found a violation of %s but no witness",
			 iso_level_name(level));
	n = sr->cycles.n;
	for (i = 0; store && i < sr->cycles.n; i++)
		put_cycle_row(build, &sr->graph, sr, level, &sr->cycles.cycles[i], store, desc);
	return n;
}

/*
 * Check one level on a built history.  Writes rows to store when given and
 * returns their number: the forbidden non-cycle anomalies and the witness
 * cycles, at most max_witnesses of each kind (iso_anomalies lists all).
 */
static int64
check_level(IsoBuild *build, IsoLevel level, uint32 max_witnesses,
			Tuplestorestate *store, TupleDesc desc, IsoSccCache *scc_cache)
{
	IsoCycleList cycles;
	uint32		shown[ISO_ANOM_KIND_COUNT];
	int64		violations = 0;
	uint32		i;
	MemoryContext old;

	memset(shown, 0, sizeof(shown));
	for (i = 0; i < build->inf.n_anomalies; i++)
	{
		const IsoAnomaly *a = &build->inf.anomalies[i];

		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!iso_level_forbids(level, (IsoAnomalyKind) a->kind) || shown[a->kind]++ >= max_witnesses)
			continue;
		violations++;
		if (store)
			put_anomaly_check_row(build, level, a, store, desc);
	}

	memset(&cycles, 0, sizeof(cycles));
	old = MemoryContextSwitchTo(build->cxt);
	if (iso_find_cycles_cached(&build->inf.graph, level, max_witnesses, &cycles,
							   scc_cache) &&
		cycles.n == 0)
		elog(ERROR, "cycle search found a violation of %s but no witness",
			 iso_level_name(level));
	MemoryContextSwitchTo(old);
	violations += cycles.n;
	for (i = 0; store && i < cycles.n; i++)
		put_cycle_row(build, &build->inf.graph, NULL, level, &cycles.cycles[i], store, desc);
	if (violations > 0 || build->inf.unknown.n_keys == 0 || !iso_search_applies(level))
		return violations;
	return check_level_by_search(build, level, store, desc);
}

/*
 * Whether an error stops iso_check over every history instead of becoming
 * that history's row: a cancel or shutdown (57), a serialization failure
 * or deadlock (40), a lack of resources (53) or I/O (58), an internal
 * error (XX).  Errors of the history itself (its data, 22; a value written
 * twice, 23; isograph.memory_limit, 54; ...) are its row.
 */
static bool
stops_every_check(const ErrorData *edata)
{
	switch (ERRCODE_TO_CATEGORY(edata->sqlerrcode))
	{
		case ERRCODE_TO_CATEGORY(ERRCODE_OPERATOR_INTERVENTION):
		case ERRCODE_TO_CATEGORY(ERRCODE_TRANSACTION_ROLLBACK):
		case ERRCODE_TO_CATEGORY(ERRCODE_INSUFFICIENT_RESOURCES):
		case ERRCODE_TO_CATEGORY(ERRCODE_SYSTEM_ERROR):
		case ERRCODE_TO_CATEGORY(ERRCODE_INTERNAL_ERROR):
			return true;
		default:
			return false;
	}
}

/* iso_check's row for a history it could not check: what the error said. */
static void
put_uninterpretable_row(int64 history_id, const char *name, IsoLevel level,
						const ErrorData *edata, ReturnSetInfo *rsinfo)
{
	Datum		values[CHECK_NATTS];
	bool		nulls[CHECK_NATTS];
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "%s: %s (SQLSTATE %s)", UNINTERPRETABLE,
					 edata->message ? edata->message : "unknown error",
					 unpack_sql_state(edata->sqlerrcode));
	if (edata->detail)
		appendStringInfo(&buf, "; %s", edata->detail);

	memset(nulls, 0, sizeof(nulls));
	values[0] = Int64GetDatum(history_id);
	nulls[1] = name == NULL;
	values[1] = name ? CStringGetTextDatum(name) : (Datum) 0;
	values[2] = CStringGetTextDatum(iso_level_name(level));
	values[3] = CStringGetTextDatum(UNINTERPRETABLE);
	values[4] = int8_array(NULL, 0);
	values[5] = text_array(NULL, 0);
	values[6] = text_array(NULL, 0);
	values[7] = CStringGetTextDatum(buf.data);
	values[8] = int8_array(NULL, 0);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

static IsoSccCache *primed_scc_cache(IsoBuild *build);

/*
 * Check one history of iso_check over every history, in a subtransaction
 * (as a PL/pgSQL exception block does): an ERROR while reading or checking
 * it becomes its "uninterpretable" row and the next history is checked.
 * Rows it wrote before the error stay.  A history deleted since the list
 * was made is skipped.
 */
static void
check_one_of_all(int64 history_id, IsoLevel level, uint32 max_witnesses,
				 ReturnSetInfo *rsinfo)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	IsoBuild   *build = palloc0(sizeof(IsoBuild));

	BeginInternalSubTransaction(NULL);
	/* the build lives in the caller's context, not the subtransaction's */
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		check_store_owner = owner;
		if (iso_build_try_open_unsorted(build, history_id))
		{
			check_level(build, level, max_witnesses, rsinfo->setResult,
						rsinfo->setDesc, primed_scc_cache(build));
			iso_build_close(build);
		}
		check_store_owner = NULL;
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		check_store_owner = NULL;
		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		if (build->cxt != NULL)
			MemoryContextDelete(build->cxt);
		if (stops_every_check(edata))
			ReThrowError(edata);
		put_uninterpretable_row(history_id, build->name, level, edata, rsinfo);
		FreeErrorData(edata);
	}
	PG_END_TRY();
	pfree(build);
}

/*
 * The strongly connected components of a built graph over every edge type,
 * for the levels to share.
 *
 * An unsorted build defers its graph (build_infer).  One linear pass over
 * its edges and the real-time order first decides whether the history has
 * any cycle (iso_infer_realtime_acyclic).  If not, every level's cycle
 * check passes: the graph becomes its vertices alone, every component a
 * single vertex, and neither the rt edges, nor the graph of the others,
 * nor the components are made.  Else, or when a version-order search will
 * run, the graph is built with its rt edges, unsorted; sorted, it is the
 * one a sorted build makes, and it is sorted when its components hold a
 * cycle or a search runs, the components then found again on the sorted
 * graph, whose order the witnesses follow.
 */
static IsoSccCache *
primed_scc_cache(IsoBuild *build)
{
	MemoryContext old = MemoryContextSwitchTo(build->cxt);
	IsoSccCache *cache = iso_scc_cache_create();

	if (build->inf.realtime_deferred && build->inf.unknown.n_keys == 0 &&
		iso_infer_realtime_acyclic(&build->inf))
	{
		iso_scc_cache_prime_acyclic(cache, &build->inf.graph);
		MemoryContextSwitchTo(old);
		return cache;
	}
	iso_build_add_realtime(build);
	iso_scc_cache_prime(cache, &build->inf.graph);
	if (build->inf.graph.unsorted &&
		(build->inf.unknown.n_keys > 0 ||
		 !iso_scc_cache_acyclic(cache, &build->inf.graph)))
	{
		iso_scc_cache_free(cache);
		iso_build_sort(build);
		cache = iso_scc_cache_create();
		iso_scc_cache_prime(cache, &build->inf.graph);
	}
	MemoryContextSwitchTo(old);
	return cache;
}

/*
 * iso_check(level text, history_id bigint DEFAULT NULL, max_witnesses integer DEFAULT NULL)
 *
 * Over every history (history_id NULL), a history that cannot be checked
 * is a row of its own (check_one_of_all); one history's ERROR is an ERROR.
 */
Datum
iso_check(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	IsoLevel	level;
	uint32		max_witnesses;

	iso_settings_ready();
	max_witnesses = (uint32) iso_max_witnesses;
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("isolation level must not be null")));
	level = parse_level(PG_GETARG_TEXT_PP(0));
	if (!PG_ARGISNULL(2))
	{
		int32		m = PG_GETARG_INT32(2);

		if (m < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("max_witnesses must be at least 1")));
		max_witnesses = (uint32) m;
	}

	InitMaterializedSRF(fcinfo, 0);
	if (PG_ARGISNULL(1))
	{
		List	   *ids = iso_all_history_ids();
		ListCell   *lc;

		foreach(lc, ids)
		{
			CHECK_FOR_INTERRUPTS();
			check_one_of_all(*(int64 *) lfirst(lc), level, max_witnesses, rsinfo);
		}
	}
	else
	{
		IsoBuild	build;

		iso_build_open_unsorted(&build, PG_GETARG_INT64(1));
		check_level(&build, level, max_witnesses, rsinfo->setResult, rsinfo->setDesc,
					primed_scc_cache(&build));
		iso_build_close(&build);
	}
	return (Datum) 0;
}

/*
 * Where strict-serializable's real-time order came from (docs/semantics.md,
 * "so and rt"), so that a pass without real time is not mistaken for one.
 */
static char *
realtime_note(const IsoBuild *build)
{
	const IsoRealtimeInfo *rt = &build->inf.realtime;
	const char *dense = rt->dense ?
		"; dense: not listed as rt edges" : "";
	char	   *untimed = "";

	if (build->time_source == ISO_TIME_NONE)
		return pstrdup("no real-time order (no transaction has times): same as strong-session-serializable");
	if (rt->n_timed < build->inf.n_vertices)
		untimed = psprintf("; %u transaction(s) without times take no part",
						   build->inf.n_vertices - rt->n_timed);
	if (build->time_source == ISO_TIME_RECORD_ORDER)
		return psprintf("real-time order from the order of records in the file (no :time)%s%s",
						untimed, dense);
	return psprintf("real-time order from invoke and complete times%s%s", untimed, dense);
}

/* A note on what the verdicts cannot see, or NULL. */
static char *
evidence_note(const IsoBuild *build, IsoLevel level, bool holds)
{
	char	   *note = NULL;

	if (build->inf.unknown_order_keys > 0 && level >= ISO_LEVEL_PL299 && !holds)
		note = psprintf("version order unknown for %u key(s): the evidence alone shows the violation",
						build->inf.unknown_order_keys);
	else if (build->inf.unknown_order_keys > 0 && level >= ISO_LEVEL_PL299)
		note = psprintf("version order unknown for %u key(s): their rw edges are missing, so a pass is not proof",
						build->inf.unknown_order_keys);
	else if (build->inf.unknown_order_keys > 0)
		note = psprintf("version order unknown for %u key(s): only write-follows-read ww edges are known there",
						build->inf.unknown_order_keys);
	if (level == ISO_LEVEL_STRICT_SER)
		note = note ? psprintf("%s; %s", note, realtime_note(build)) : realtime_note(build);
	return note;
}

#define LEVELS_NATTS 10

/* A note on a level the search decided, or did not. */
static char *
search_note(const IsoBuild *build, const IsoLevelDecision *d, IsoLevel level)
{
	const IsoLevelDecision *dl = &d[level];
	uint32		n = build->inf.unknown_order_keys;

	switch (dl->method)
	{
		case ISO_BY_SEARCH:
			return psprintf("version order unknown for %u key(s): decided by searching the version orders%s",
							n, dl->search.by_pruning ? " (pruning alone)" : "");
		case ISO_BY_IMPLICATION:
			return psprintf("version order unknown for %u key(s): %s, since %s %s",
							n, dl->holds ? "holds" : "violated", iso_level_name(dl->via),
							dl->holds ? "holds" : "is violated");
		case ISO_NOT_DECIDED:
			return psprintf("version order unknown for %u key(s): not decided: %s",
							n, search_note_reason(dl));
		case ISO_BY_EVIDENCE:
			break;
	}
	return NULL;
}

/* Check every level of a built graph; one row per level into rsinfo. */
static void
put_level_rows(IsoBuild *build, ReturnSetInfo *rsinfo)
{
	IsoSccCache *scc_cache;
	int64		violations[ISO_LEVEL_COUNT];
	bool		counted[ISO_LEVEL_COUNT];
	IsoLevelDecision d[ISO_LEVEL_COUNT];
	int			l;
	int			round;

	/* the levels share most of their strongly connected components */
	scc_cache = primed_scc_cache(build);
	decide_levels(build, (1u << ISO_LEVEL_COUNT) - 1, d, scc_cache);
	memset(counted, 0, sizeof(counted));
	for (l = 0; l < ISO_LEVEL_COUNT; l++)
	{
		violations[l] = 0;
		if (d[l].method == ISO_BY_EVIDENCE)
		{
			violations[l] = check_level(build, (IsoLevel) l, (uint32) iso_max_witnesses,
										NULL, NULL, scc_cache);
			counted[l] = true;
		}
		else if (d[l].method == ISO_BY_SEARCH)
		{
			violations[l] = d[l].holds ? 0 : d[l].search.cycles.n;
			counted[l] = true;
		}
		else if (d[l].method == ISO_BY_IMPLICATION && d[l].holds)
			counted[l] = true;
		iso_check_memory(build->cxt);
	}
	/* a violation by implication: as many witnesses as the level it follows from */
	for (round = 0; round < ISO_LEVEL_COUNT; round++)
		for (l = 0; l < ISO_LEVEL_COUNT; l++)
			if (!counted[l] && d[l].method == ISO_BY_IMPLICATION && counted[d[l].via])
			{
				violations[l] = violations[d[l].via];
				counted[l] = true;
			}

	for (l = 0; l < ISO_LEVEL_COUNT; l++)
	{
		Datum		values[LEVELS_NATTS];
		bool		nulls[LEVELS_NATTS];
		bool		decided = d[l].method != ISO_NOT_DECIDED;
		bool		holds = decided && d[l].holds;
		bool		strongest = holds;
		char	   *note = d[l].method == ISO_BY_EVIDENCE ? evidence_note(build, (IsoLevel) l, d[l].holds) :
			search_note(build, d, (IsoLevel) l);
		int			m;

		if (l == ISO_LEVEL_STRICT_SER && d[l].method != ISO_BY_EVIDENCE)
			note = psprintf("%s; %s", note, realtime_note(build));
		for (m = 0; m < ISO_LEVEL_COUNT && strongest; m++)
			if (d[m].method != ISO_NOT_DECIDED && d[m].holds &&
				iso_level_implies((IsoLevel) m, (IsoLevel) l))
				strongest = false;
		memset(nulls, 0, sizeof(nulls));
		values[0] = CStringGetTextDatum(iso_level_name((IsoLevel) l));
		values[1] = BoolGetDatum(holds);
		nulls[1] = !decided;
		values[2] = Int64GetDatum(violations[l]);
		nulls[2] = !decided || !counted[l];
		values[3] = BoolGetDatum(strongest);
		nulls[4] = note == NULL;
		if (note)
			values[4] = CStringGetTextDatum(note);
		values[5] = CStringGetTextDatum(iso_verdict_method_name(d[l].method));
		if (d[l].searched)
		{
			values[6] = Int64GetDatum((int64) d[l].search.stats.constraints);
			values[7] = Int64GetDatum((int64) d[l].search.stats.constraints_left);
			values[8] = Int32GetDatum((int32) Min(d[l].search.stats.solver_calls, PG_INT32_MAX));
			values[9] = Float8GetDatum(d[l].search.stats.seconds);
		}
		else
			nulls[6] = nulls[7] = nulls[8] = nulls[9] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/*
 * iso_levels(history_id bigint) returns (level, holds, violations, strongest, note,
 *	method, search_constraints, search_constraints_pruned, search_solver_calls,
 *	search_seconds)
 */
Datum
iso_levels(PG_FUNCTION_ARGS)
{
	int64		history_id = PG_GETARG_INT64(0);
	IsoBuild	build;

	InitMaterializedSRF(fcinfo, 0);
	iso_build_open_unsorted(&build, history_id);
	put_level_rows(&build, (ReturnSetInfo *) fcinfo->resultinfo);
	iso_build_close(&build);
	return (Datum) 0;
}

/*
 * iso_levels_jepsen(edn text, workload text DEFAULT NULL)
 *	returns (level, holds, violations, strongest, note)
 *
 * iso_levels of an EDN history that is parsed into memory and not stored:
 * the fastest way from a history file to verdicts.
 */
Datum
iso_levels_jepsen(PG_FUNCTION_ARGS)
{
	IsoWorkload expected = ISO_WORKLOAD_UNKNOWN;
	IsoBuild	build;
	text	   *edn;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("EDN text must not be null")));
	if (!PG_ARGISNULL(1))
		expected = iso_workload_from_text(PG_GETARG_TEXT_PP(1));
	InitMaterializedSRF(fcinfo, 0);

	/*
	 * A text read from a table arrives toasted and is detoasted here into
	 * a copy of this call's own (570 MB at 1M list-append transactions),
	 * freed once parsed.  Any other text belongs to the caller
	 * (pg_read_file's result: the executor's) and stays.
	 */
	edn = PG_GETARG_TEXT_PP(0);
	iso_build_open_edn(&build, edn, expected,
					   (Pointer) edn != DatumGetPointer(PG_GETARG_DATUM(0)));
	put_level_rows(&build, (ReturnSetInfo *) fcinfo->resultinfo);
	iso_build_close(&build);
	return (Datum) 0;
}

/*
 * iso_levels_jepsen_file(path text, workload text DEFAULT NULL)
 *	returns (level, holds, violations, strongest, note, ...)
 *
 * iso_levels_jepsen of an EDN file on the server, read in blocks: a file of
 * any size (a text value stops at 1 GB), and no copy of it in memory.
 * Relative paths are relative to the data directory, as for pg_read_file.
 */
Datum
iso_levels_jepsen_file(PG_FUNCTION_ARGS)
{
	IsoWorkload expected = ISO_WORKLOAD_UNKNOWN;
	IsoBuild	build;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("file path must not be null")));
	if (!PG_ARGISNULL(1))
		expected = iso_workload_from_text(PG_GETARG_TEXT_PP(1));
	InitMaterializedSRF(fcinfo, 0);
	iso_build_open_edn_file(&build, text_to_cstring(PG_GETARG_TEXT_PP(0)), expected);
	put_level_rows(&build, (ReturnSetInfo *) fcinfo->resultinfo);
	iso_build_close(&build);
	return (Datum) 0;
}

/* DOT-escape a label into out. */
static void
append_dot_label(StringInfo out, const char *s)
{
	for (; *s; s++)
	{
		if (*s == '"' || *s == '\\')
			appendStringInfoChar(out, '\\');
		appendStringInfoChar(out, *s);
	}
}

static const char *const dot_colors[ISO_EDGE_NTYPES] = {
	"#1f77b4", "#2ca02c", "#d62728", "#7f7f7f", "#9467bd"
};

static void
append_dot_edge(StringInfo out, const IsoBuild *build, const IsoEdge *edge, bool faint)
{
	char	   *key = iso_key_text(build, iso_edge_key(&build->history, edge));

	appendStringInfo(out, "  T%lld -> T%lld [label=\"%s",
					 (long long) iso_vertex_txn_id(build, edge->from),
					 (long long) iso_vertex_txn_id(build, edge->to),
					 iso_edge_type_name(edge->type));
	if (key)
	{
		appendStringInfoChar(out, ' ');
		append_dot_label(out, key);
	}
	/* faint: the edge statement's defaults (set by the caller) apply */
	if (faint)
		appendStringInfo(out, "\"%s];\n", edge->type == ISO_EDGE_RW ? ", style=dashed" : "");
	else
		appendStringInfo(out, "\", color=\"%s\", fontcolor=\"%s\"%s];\n",
						 dot_colors[edge->type], dot_colors[edge->type],
						 edge->type == ISO_EDGE_RW ? ", style=dashed" : "");
}

/*
 * A dense real-time order lives in the graph through time points, which a
 * picture must not show: draw the transitive reduction of rt among the
 * drawn transactions instead, unless that is dense too.
 */
static void
append_dot_dense_realtime(StringInfo out, const IsoBuild *build, const uint32 *wanted,
						  bool faint)
{
	uint32	   *subset = palloc(sizeof(uint32) * Max(build->inf.n_vertices, 1));
	uint32		n = 0;
	uint32		v;
	uint64		i;
	IsoEdgeBuf	buf;
	IsoRealtimeInfo info;

	for (v = 0; v < build->inf.n_vertices; v++)
		if (wanted[v])
			subset[n++] = v;
	iso_edgebuf_init(&buf, 64);
	iso_realtime_edges(&build->history, build->inf.vertex_txn, subset, n,
					   ISO_RT_LIMIT(n), build->inf.n_vertices, false, &buf, &info);
	if (info.dense)
		appendStringInfo(out, "  // real-time order among these %u transactions not drawn: "
						 "its transitive reduction has %llu edges\n",
						 n, (unsigned long long) info.n_reduction);
	for (i = 0; i < buf.n; i++)
		append_dot_edge(out, build, &buf.edges[i], faint);
	pfree(buf.edges);
	pfree(subset);
}

/* One transaction asked for by iso_dot, and whether the history has it. */
typedef struct DotTxn
{
	int64		id;
	bool		found;
} DotTxn;

/* The steps of a witness cycle given to iso_dot: T[i] -type[i] key[i]-> T[i+1]. */
typedef struct DotCycle
{
	int			n;
	int64	   *txns;
	char	  **types;
	char	  **keys;			/* NULL entries: no key */
} DotCycle;

/*
 * The transactions to draw, as a hash of DotTxn; every one must be in the
 * history (else an empty picture would look like "no edge between them").
 */
static HTAB *
dot_wanted_ids(const Datum *elems, const bool *enulls, int n)
{
	HASHCTL		ctl;
	HTAB	   *ids;
	int			i;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(int64);
	ctl.entrysize = sizeof(DotTxn);
	ctl.hcxt = CurrentMemoryContext;
	ids = hash_create("isograph dot transactions", Max(n, 16), &ctl,
					  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	for (i = 0; i < n; i++)
	{
		int64		id = DatumGetInt64(elems[i]);
		bool		found;
		DotTxn	   *t;

		if (enulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("transaction ids to draw must not be null")));
		t = hash_search(ids, &id, HASH_ENTER, &found);
		if (!found)
			t->found = false;
		if ((i & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	return ids;
}

static void
refuse_missing_ids(HTAB *ids, int64 history_id)
{
	HASH_SEQ_STATUS seq;
	DotTxn	   *t;
	StringInfoData missing;
	long		n_missing = 0;

	initStringInfo(&missing);
	hash_seq_init(&seq, ids);
	while ((t = hash_seq_search(&seq)) != NULL)
	{
		if (t->found)
			continue;
		if (n_missing < 10)
			appendStringInfo(&missing, "%s%lld", n_missing ? ", " : "", (long long) t->id);
		n_missing++;
	}
	if (n_missing > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%ld of the transactions to draw %s not in history %lld",
						n_missing, n_missing == 1 ? "is" : "are", (long long) history_id),
				 errdetail("Not in the history: %s%s.", missing.data, n_missing > 10 ? ", ..." : ""),
				 errhint("The ids are txn_id values of iso_event; iso_check's cycle column lists a witness's.")));
}

static char *
text_array_element(const Datum *elems, const bool *nulls, int i)
{
	return nulls[i] ? NULL : TextDatumGetCString(elems[i]);
}

/* The witness cycle from iso_dot's edge_types and keys arguments. */
static void
dot_cycle_from_args(FunctionCallInfo fcinfo, const Datum *txns, int n, DotCycle *cycle)
{
	Datum	   *types;
	bool	   *tnulls;
	int			ntypes;
	Datum	   *keys = NULL;
	bool	   *knulls = NULL;
	int			nkeys = 0;
	int			i;

	deconstruct_array(PG_GETARG_ARRAYTYPE_P(2), TEXTOID, -1, false, TYPALIGN_INT,
					  &types, &tnulls, &ntypes);
	if (PG_NARGS() > 3 && !PG_ARGISNULL(3))
		deconstruct_array(PG_GETARG_ARRAYTYPE_P(3), TEXTOID, -1, false, TYPALIGN_INT,
						  &keys, &knulls, &nkeys);
	if (ntypes != n || (keys != NULL && nkeys != n))
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("a witness needs one edge type%s per transaction of its cycle",
						keys != NULL ? " and one key" : ""),
				 errdetail("The cycle has %d transactions, edge_types %d elements%s.", n, ntypes,
						   keys != NULL ? psprintf(", keys %d", nkeys) : ""),
				 errhint("Pass the cycle, edge_types and keys columns of one iso_check row.")));
	cycle->n = n;
	cycle->txns = palloc(sizeof(int64) * Max(n, 1));
	cycle->types = palloc(sizeof(char *) * Max(n, 1));
	cycle->keys = palloc0(sizeof(char *) * Max(n, 1));
	for (i = 0; i < n; i++)
	{
		IsoEdgeType type;

		cycle->txns[i] = DatumGetInt64(txns[i]);
		cycle->types[i] = text_array_element(types, tnulls, i);
		if (cycle->types[i] == NULL || !iso_edge_type_parse(cycle->types[i], &type))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown edge type \"%s\" in a witness", cycle->types[i] ? cycle->types[i] : "NULL"),
					 errhint("Edge types are ww, wr, rw, so and rt, as iso_check's edge_types column gives them.")));
		if (keys != NULL)
			cycle->keys[i] = text_array_element(keys, knulls, i);
	}
}

/* Whether a graph edge is one of the witness's steps (then drawn as such). */
static bool
dot_edge_in_cycle(const IsoBuild *build, const IsoEdge *edge, const DotCycle *cycle)
{
	int64		from = iso_vertex_txn_id(build, edge->from);
	int64		to = iso_vertex_txn_id(build, edge->to);
	int			i;

	for (i = 0; i < cycle->n; i++)
		if (cycle->txns[i] == from && cycle->txns[(i + 1) % cycle->n] == to &&
			strcmp(cycle->types[i], iso_edge_type_name(edge->type)) == 0)
			return true;
	return false;
}

/* The witness's steps: bold, numbered in cycle order. */
static void
append_dot_cycle(StringInfo out, const DotCycle *cycle)
{
	int			i;

	for (i = 0; i < cycle->n; i++)
	{
		IsoEdgeType type;

		(void) iso_edge_type_parse(cycle->types[i], &type);
		appendStringInfo(out, "  T%lld -> T%lld [label=\"%d: %s",
						 (long long) cycle->txns[i],
						 (long long) cycle->txns[(i + 1) % cycle->n], i + 1, cycle->types[i]);
		if (cycle->keys[i])
		{
			appendStringInfoChar(out, ' ');
			append_dot_label(out, cycle->keys[i]);
		}
		appendStringInfo(out, "\", color=\"%s\", fontcolor=\"%s\", penwidth=3, style=bold];\n",
						 dot_colors[type], dot_colors[type]);
	}
}

/*
 * iso_dot(history_id bigint, txns bigint[]) returns text
 * iso_dot(history_id bigint, cycle bigint[], edge_types text[], keys text[] DEFAULT NULL)
 *
 * The second form draws a witness (the columns of an iso_check row): the
 * cycle's own edges bold and numbered, the other edges among its
 * transactions faint.
 */
Datum
iso_dot(PG_FUNCTION_ARGS)
{
	int64		history_id;
	ArrayType  *arr;
	Datum	   *elems;
	bool	   *enulls;
	int			n;
	IsoBuild	build;
	HTAB	   *ids;
	uint32	   *wanted;
	DotCycle	cycle = {0};
	bool		witness = PG_NARGS() > 2;
	StringInfoData out;
	StringInfoData op;
	uint32		v;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || (witness && PG_ARGISNULL(2)))
		PG_RETURN_NULL();
	history_id = PG_GETARG_INT64(0);
	arr = PG_GETARG_ARRAYTYPE_P(1);
	deconstruct_array(arr, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &elems, &enulls, &n);
	ids = dot_wanted_ids(elems, enulls, n);
	if (witness)
		dot_cycle_from_args(fcinfo, elems, n, &cycle);
	iso_build_open(&build, history_id);

	/* which vertices to draw: those of the listed transactions */
	wanted = palloc0(sizeof(uint32) * Max(build.inf.n_vertices, 1));
	for (v = 0; v < build.inf.n_vertices; v++)
	{
		int64		id = iso_vertex_txn_id(&build, v);
		DotTxn	   *t = hash_search(ids, &id, HASH_FIND, NULL);

		if (t != NULL)
		{
			wanted[v] = 1;
			t->found = true;
		}
		if ((v & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	/* aborted transactions are no vertices: in the history, nothing to draw */
	for (v = 0; v < build.history.n_txns; v++)
	{
		int64		id = build.history.txns[v].txn_id;
		DotTxn	   *t = hash_search(ids, &id, HASH_FIND, NULL);

		if (t != NULL)
			t->found = true;
		if ((v & 0xffff) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	refuse_missing_ids(ids, history_id);

	initStringInfo(&out);
	initStringInfo(&op);
	appendStringInfo(&out, "digraph \"history %lld\" {\n", (long long) history_id);
	appendStringInfoString(&out, "  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n");
	for (v = 0; v < build.inf.n_vertices; v++)
	{
		const IsoTxn *t = &build.history.txns[build.inf.vertex_txn[v]];
		uint32		o;

		/* a node costs a description of each op: check for cancel at each */
		CHECK_FOR_INTERRUPTS();
		if (!wanted[v])
			continue;
		appendStringInfo(&out, "  T%lld [label=\"T%lld", (long long) t->txn_id,
						 (long long) t->txn_id);
		for (o = t->first_op; o < t->first_op + t->n_ops; o++)
		{
			/* one buffer for all: a fresh 1 kB one per op adds up */
			resetStringInfo(&op);
			iso_describe_op(&build, o, &op);
			appendStringInfoString(&out, "\\l");
			/* drop the "Tn " prefix: the node already says who */
			append_dot_label(&out, strchr(op.data, ' ') + 1);
		}
		appendStringInfoString(&out, "\\l\"];\n");
	}
	if (witness)
	{
		append_dot_cycle(&out, &cycle);
		/* everything drawn after this is context, not the cycle */
		appendStringInfoString(&out, "  edge [color=\"#c8c8c8\", fontcolor=\"#a0a0a0\", penwidth=0.6];\n");
	}
	for (v = 0; v < build.inf.n_vertices; v++)
	{
		uint64		e;

		CHECK_FOR_INTERRUPTS();
		if (!wanted[v])
			continue;
		for (e = build.inf.graph.out_start[v]; e < build.inf.graph.out_start[v + 1]; e++)
		{
			const IsoEdge *edge = &build.inf.graph.edges[e];

			if (!iso_edge_is_listed(&build, edge) || !wanted[edge->to])
				continue;
			if (witness && dot_edge_in_cycle(&build, edge, &cycle))
				continue;
			append_dot_edge(&out, &build, edge, witness);
		}
	}
	if (build.inf.realtime.dense)
		append_dot_dense_realtime(&out, &build, wanted, witness);
	appendStringInfoString(&out, "}\n");
	iso_build_close(&build);
	PG_RETURN_TEXT_P(cstring_to_text(out.data));
}

/*
 * iso_version_order_witness(history_id bigint, level text)
 *	returns (key, position, value, txn_id)
 *
 * For each register key whose version order the evidence leaves open, its
 * versions in an order under which the level holds (the search's), first
 * version first (position 1; the initial nil precedes them all).  No rows
 * when no key's order is open.  An ERROR when no order satisfies the level
 * or the search did not decide.
 */
Datum
iso_version_order_witness(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int64		history_id = PG_GETARG_INT64(0);
	IsoLevel	level = parse_level(PG_GETARG_TEXT_PP(1));
	IsoBuild	build;
	IsoLevelDecision d[ISO_LEVEL_COUNT];
	const IsoSearchResult *sr;
	IsoSearchResult own;
	const IsoRegUnknown *u;
	uint32		s;

	InitMaterializedSRF(fcinfo, 0);
	iso_build_open(&build, history_id);
	u = &build.inf.unknown;
	if (u->n_keys == 0)
	{
		iso_build_close(&build);
		return (Datum) 0;
	}
	decide_levels(&build, 1u << level, d, NULL);
	if (d[level].method == ISO_NOT_DECIDED)
		ereport(ERROR,
				(errcode(ERRCODE_QUERY_CANCELED),
				 errmsg("%s not decided for history %lld: %s", iso_level_name(level),
						(long long) history_id, search_note_reason(&d[level])),
				 errhint("Raise isograph.search_timeout, or check a smaller history.")));
	if (!d[level].holds)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("no version order satisfies %s in history %lld",
						iso_level_name(level), (long long) history_id),
				 errhint("iso_check('%s', %lld) shows why.", iso_level_name(level),
						 (long long) history_id)));
	sr = pass_search(d, level);
	if (sr == NULL || sr->order_op == NULL)
	{
		/* decided by the evidence (pl-1, pl-2): search for an order anyway */
		IsoSearchOptions o;
		MemoryContext old;

		search_options(&o);
		old = MemoryContextSwitchTo(build.cxt);
		iso_search_level(&build.history, &build.inf, level, &o, &own);
		MemoryContextSwitchTo(old);
		CHECK_FOR_INTERRUPTS();
		if (own.verdict != ISO_SEARCH_HOLDS)
			ereport(ERROR,
					(errcode(ERRCODE_QUERY_CANCELED),
					 errmsg("no version order found for %s in history %lld: %s",
							iso_level_name(level), (long long) history_id,
							own.reason ? own.reason : "the search found none"),
					 errhint("Raise isograph.search_timeout.")));
		sr = &own;
	}
	for (s = 0; s < u->n_keys; s++)
	{
		char	   *key = iso_key_text(&build, u->key[s]);
		uint32		i;

		for (i = u->ver_start[s]; i < u->ver_start[s + 1]; i++)
		{
			const IsoOp *op = &build.history.ops[sr->order_op[i]];
			Datum		values[4];
			bool		nulls[4] = {false, false, false, false};
			int32		len;
			const char *v = iso_strtab_get(&build.history.values, op->value, &len);

			values[0] = CStringGetTextDatum(key);
			values[1] = Int32GetDatum((int32) (i - u->ver_start[s] + 1));
			values[2] = PointerGetDatum(cstring_to_text_with_len(v, len));
			values[3] = Int64GetDatum(build.history.txns[iso_op_txn(&build.history, sr->order_op[i])].txn_id);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
		if ((s & 0xfff) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	iso_build_close(&build);
	return (Datum) 0;
}
