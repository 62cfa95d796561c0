/*
 * history_edn.c
 *	  EDN transactions into an IsoHistory (history_edn.h).
 */
#include "port.h"

#include "history_edn.h"

void
iso_edn_history_begin(IsoEdnHistory *eh)
{
	memset(eh, 0, sizeof(*eh));
	eh->in_order = true;
	iso_history_init(&eh->h, ISO_WORKLOAD_UNKNOWN);
}

bool
iso_edn_history_add(const EdnTxn *txn, void *arg)
{
	IsoEdnHistory *eh = arg;
	IsoHistory *h = &eh->h;
	int			i;

	if (txn->n_ops == 0)
		return true;			/* it has no rows, so reading back has no trace */
	if (h->n_txns > 0 && txn->txn_id <= eh->last_txn_id)
		eh->in_order = false;
	eh->last_txn_id = txn->txn_id;
	iso_history_add_txn(h, txn->txn_id, txn->status, txn->has_process,
						txn->has_process ? txn->process : 0,
						txn->has_invoke_time ? txn->invoke_time : ISO_NO_TIME,
						txn->has_complete_time ? txn->complete_time : ISO_NO_TIME);
	for (i = 0; i < txn->n_ops; i++)
	{
		const EdnOp *op = &txn->ops[i];

		if (op->op == ISO_OP_READ && op->list_len >= 0)
			iso_history_add_list(h, i, op->key, op->list, op->list_len);
		else
			iso_history_add_op(h, op->op, i, op->key,
							   op->op == ISO_OP_READ ? op->read_value : op->value,
							   NULL, -1);
	}
	return true;
}

bool
iso_edn_history_finish(IsoEdnHistory *eh, IsoWorkload workload, int64 *dup_txn_id)
{
	eh->h.workload = workload;
	iso_history_end_input(&eh->h);
	if (!eh->in_order)
	{
		IsoHistory	sorted;

		if (!iso_history_reorder(&eh->h, &sorted, dup_txn_id))
			return false;
		iso_history_free(&eh->h);
		eh->h = sorted;
		eh->in_order = true;
	}
	return true;
}

bool
iso_history_parse_edn(const char *text, size_t len, IsoWorkload expected,
					  IsoHistory *h, EdnStats *stats, IsoParseError *err)
{
	IsoEdnHistory eh;
	int64		dup;

	iso_edn_history_begin(&eh);
	if (!edn_parse_history(text, len, expected, iso_edn_history_add, &eh, stats, err))
	{
		iso_history_free(&eh.h);
		return false;
	}
	if (!iso_edn_history_finish(&eh, stats->workload, &dup))
	{
		iso_history_free(&eh.h);
		memset(err, 0, sizeof(*err));
		err->kind = ISO_PARSE_INVALID;
		snprintf(err->message, sizeof(err->message),
				 "transaction id %lld occurs twice in the history", (long long) dup);
		return false;
	}
	*h = eh.h;
	return true;
}
