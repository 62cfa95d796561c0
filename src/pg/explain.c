/*
 * explain.c
 *	  Human-readable text for edges, micro-ops and anomalies, so a violation
 *	  can be checked by reading it ("T12 read key 3 = [1 2] written by T9").
 */
#include "postgres.h"

#include "check.h"

#define LIST_SHOWN 8			/* list reads longer than this are elided */

static void
append_text(StringInfo out, const IsoStrTab *tab, uint32 id)
{
	int32		len;
	const char *s;

	if (id == ISO_NONE)
	{
		appendStringInfoString(out, "nil");
		return;
	}
	s = iso_strtab_get(tab, id, &len);
	appendBinaryStringInfo(out, s, len);
}

char *
iso_key_text(const IsoBuild *build, uint32 key)
{
	int32		len;
	const char *s;

	if (key == ISO_NONE)
		return NULL;
	s = iso_strtab_get(&build->history.keys, key, &len);
	return pnstrdup(s, len);
}

static int64
txn_id_of_op(const IsoBuild *build, uint32 op)
{
	return build->history.txns[iso_op_txn(&build->history, op)].txn_id;
}

/* The value an op read: "nil", "4", "[1 2 3]". */
static void
append_read(const IsoBuild *build, const IsoOp *op, StringInfo out)
{
	const IsoHistory *h = &build->history;
	int32		i;

	if (op->list_len < 0)
	{
		append_text(out, &h->values, op->value);
		return;
	}
	appendStringInfoChar(out, '[');
	for (i = 0; i < op->list_len; i++)
	{
		if (op->list_len > 2 * LIST_SHOWN && i == LIST_SHOWN)
		{
			appendStringInfo(out, " ...%d more...", op->list_len - 2 * LIST_SHOWN);
			i = op->list_len - LIST_SHOWN;
		}
		if (i > 0)
			appendStringInfoChar(out, ' ');
		append_text(out, &h->values, h->elems[op->list_first + i]);
	}
	appendStringInfoChar(out, ']');
}

/* "T12 read key 3 = [1 2]", "T9 appended 2 to key 3", "T4 wrote 7 to key x" */
void
iso_describe_op(const IsoBuild *build, uint32 op_index, StringInfo out)
{
	const IsoHistory *h = &build->history;
	const IsoOp *op = &h->ops[op_index];

	appendStringInfo(out, "T%lld ", (long long) txn_id_of_op(build, op_index));
	switch ((IsoOpKind) op->kind)
	{
		case ISO_OP_READ:
			appendStringInfoString(out, "read key ");
			append_text(out, &h->keys, op->key);
			appendStringInfoString(out, " = ");
			append_read(build, op, out);
			break;
		case ISO_OP_WRITE:
		case ISO_OP_APPEND:
			appendStringInfoString(out, op->kind == ISO_OP_WRITE ? "wrote " : "appended ");
			append_text(out, &h->values, op->value);
			appendStringInfoString(out, " to key ");
			append_text(out, &h->keys, op->key);
			break;
	}
}

void
iso_explain_edge(const IsoBuild *build, const IsoEdge *e, StringInfo out)
{
	iso_explain_edge_ex(build, e, false, out);
}

/*
 * later: the edge is of the version-order search (search.h), whose ww and rw
 * edges go to any later version, not only the next one.
 */
void
iso_explain_edge_ex(const IsoBuild *build, const IsoEdge *e, bool later, StringInfo out)
{
	const IsoHistory *h = &build->history;
	int64		from = iso_vertex_txn_id(build, e->from);
	int64		to = iso_vertex_txn_id(build, e->to);

	switch ((IsoEdgeType) e->type)
	{
		case ISO_EDGE_WR:
			iso_describe_op(build, e->to_op, out);
			appendStringInfo(out, ", written by T%lld", (long long) from);
			break;
		case ISO_EDGE_WW:
			iso_describe_op(build, e->to_op, out);
			appendStringInfo(out, later ? ", a later version than T%lld's " :
							 ", the version right after T%lld's ", (long long) from);
			append_text(out, &h->values, h->ops[iso_edge_from_op(e)].value);
			break;
		case ISO_EDGE_RW:
			iso_describe_op(build, e->to_op, out);
			appendStringInfoString(out, later ? ", a later version than the one " :
								   ", overwriting the version ");
			if (h->ops[iso_edge_from_op(e)].kind == ISO_OP_READ)
			{
				appendStringInfo(out, "T%lld read (", (long long) from);
				append_read(build, &h->ops[iso_edge_from_op(e)], out);
				appendStringInfoChar(out, ')');
			}
			else
				appendStringInfo(out, "T%lld read", (long long) from);
			break;
		case ISO_EDGE_SO:
			appendStringInfo(out, "T%lld ran after T%lld in process %lld",
							 (long long) to, (long long) from,
							 (long long) h->txns[build->inf.vertex_txn[e->from]].process);
			break;
		case ISO_EDGE_RT:
			appendStringInfo(out, "T%lld was invoked after T%lld had completed",
							 (long long) to, (long long) from);
			break;
		default:
			elog(ERROR, "unknown edge type %d", e->type);
	}
}

void
iso_explain_anomaly(const IsoBuild *build, const IsoAnomaly *a, StringInfo out)
{
	const IsoHistory *h = &build->history;

	switch ((IsoAnomalyKind) a->kind)
	{
		case ISO_ANOM_G1A:
			iso_describe_op(build, a->op_a, out);
			appendStringInfoString(out, ", but ");
			append_text(out, &h->values, a->value);
			appendStringInfo(out, " was written by T%lld, which aborted",
							 (long long) h->txns[a->txn_b].txn_id);
			break;
		case ISO_ANOM_G1B:
			iso_describe_op(build, a->op_a, out);
			appendStringInfoString(out, ", but ");
			append_text(out, &h->values, a->value);
			appendStringInfo(out, " is an intermediate version: T%lld wrote key ",
							 (long long) h->txns[a->txn_b].txn_id);
			append_text(out, &h->keys, a->key);
			appendStringInfoString(out, " again later");
			break;
		case ISO_ANOM_DIRTY_UPDATE:
			iso_describe_op(build, a->op_a, out);
			appendStringInfo(out, " on top of a version of aborted T%lld",
							 (long long) h->txns[a->txn_b].txn_id);
			break;
		case ISO_ANOM_INTERNAL:
			iso_describe_op(build, a->op_a, out);
			appendStringInfoString(out, ", which disagrees with its own earlier ");
			if (a->op_b != ISO_NONE)
			{
				appendStringInfoString(out, "micro-op (");
				iso_describe_op(build, a->op_b, out);
				appendStringInfoChar(out, ')');
			}
			else
				appendStringInfoString(out, "micro-ops on that key");
			break;
		case ISO_ANOM_LOST_UPDATE:
			iso_describe_op(build, a->op_a, out);
			appendStringInfoString(out, " and ");
			iso_describe_op(build, a->op_b, out);
			appendStringInfoString(out, "; both then wrote key ");
			append_text(out, &h->keys, a->key);
			appendStringInfoString(out, ", so one overwrote a version the other never saw");
			break;
		case ISO_ANOM_GARBAGE_READ:
			iso_describe_op(build, a->op_a, out);
			appendStringInfoString(out, ", but no transaction wrote ");
			append_text(out, &h->values, a->value);
			appendStringInfoString(out, " to key ");
			append_text(out, &h->keys, a->key);
			break;
		case ISO_ANOM_DUPLICATE_ELEMENTS:
			iso_describe_op(build, a->op_a, out);
			appendStringInfoString(out, ", which contains ");
			append_text(out, &h->values, a->value);
			appendStringInfoString(out, " more than once");
			break;
		case ISO_ANOM_INCOMPATIBLE_ORDER:
			iso_describe_op(build, a->op_a, out);
			if (h->ops[a->op_b].kind == ISO_OP_APPEND)
			{
				/* the order of one transaction's own appends */
				appendStringInfoString(out, ", which shows ");
				append_text(out, &h->values, a->value);
				appendStringInfoString(out, " before ");
				append_text(out, &h->values, h->ops[a->op_b].value);
				appendStringInfoString(out, ", although ");
				iso_describe_op(build, a->op_b, out);
				appendStringInfoString(out, " first");
			}
			else
			{
				appendStringInfoString(out, ", which is not a prefix of ");
				iso_describe_op(build, a->op_b, out);
			}
			break;
		case ISO_ANOM_FUTURE_READ:
			iso_describe_op(build, a->op_a, out);
			appendStringInfoString(out, ", which shows ");
			append_text(out, &h->values, a->value);
			appendStringInfoString(out, " before its own later micro-op wrote it (");
			iso_describe_op(build, a->op_b, out);
			appendStringInfoChar(out, ')');
			break;
		case ISO_ANOM_CYCLIC_VERSIONS:
			appendStringInfoString(out, "the version order of key ");
			append_text(out, &h->keys, a->key);
			appendStringInfoString(out, " (from the version log, the initial state and write-follows-read) has a cycle");
			break;
		default:
			elog(ERROR, "unknown anomaly kind %d", a->kind);
	}
}
