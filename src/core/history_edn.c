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

static void
keep_orphan(IsoEdnHistory *eh, const EdnTxn *txn)
{
	IsoEdnOrphan *o;

	if (eh->n_orphans == eh->cap_orphans)
	{
		eh->cap_orphans = Max(eh->cap_orphans * 2, 16);
		eh->orphans = eh->orphans ?
			iso_realloc(eh->orphans, sizeof(IsoEdnOrphan) * (size_t) eh->cap_orphans) :
			iso_alloc(sizeof(IsoEdnOrphan) * (size_t) eh->cap_orphans);
	}
	o = &eh->orphans[eh->n_orphans++];
	o->txn = txn->n_ops > 0 ? eh->h.n_txns : ISO_NONE;
	o->process = txn->process;
	o->has_process = txn->has_process;
	o->own_value = txn->own_value;
}

bool
iso_edn_history_add(const EdnTxn *txn, void *arg)
{
	IsoEdnHistory *eh = arg;
	IsoHistory *h = &eh->h;
	int			i;

	if (txn->first_of_process && eh->keep_orphans)
		keep_orphan(eh, txn);
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

/* The orphan of process p (the first: a process has one), or NULL. */
static const IsoEdnOrphan *
orphan_of(const IsoEdnOrphan *orphans, int32 n, int64 process)
{
	int32		i;

	for (i = 0; i < n; i++)
		if (orphans[i].has_process && orphans[i].process == process)
			return &orphans[i];
	return NULL;
}

bool
iso_edn_split_joinable(const EdnStats *head_stats, const EdnPending *pending, int32 n_pending,
					   const EdnStats *tail_stats, const IsoEdnOrphan *orphans, int32 n_orphans)
{
	int32		i;

	/* what one parse decides from the start: the clock, the ids, the workload */
	if (head_stats->time_source != ISO_TIME_VALUES ||
		tail_stats->time_source != ISO_TIME_VALUES ||
		tail_stats->unindexed > 0)
		return false;
	if (head_stats->workload != ISO_WORKLOAD_UNKNOWN &&
		tail_stats->workload != ISO_WORKLOAD_UNKNOWN &&
		tail_stats->workload != head_stats->workload)
		return false;
	/* each pending invocation and its completion (the orphans are few) */
	if ((int64) n_pending * n_orphans > 10 * 1000 * 1000)
		return false;
	for (i = 0; i < n_pending; i++)
	{
		const IsoEdnOrphan *o = pending[i].has_process ?
			orphan_of(orphans, n_orphans, pending[i].process) : NULL;

		if (o == NULL || !o->own_value)
			return false;
	}
	return true;
}

void
iso_edn_history_joined(IsoEdnHistory *head, EdnStats *head_stats,
					   const EdnPending *pending, int32 n_pending,
					   const IsoEdnOrphan *orphans, int32 n_orphans, uint32 base_txn,
					   bool tail_in_order, int64 tail_last_txn_id, const EdnStats *tail_stats)
{
	int32		i;

	for (i = 0; i < n_pending; i++)
	{
		const IsoEdnOrphan *o = orphan_of(orphans, n_orphans, pending[i].process);

		if (o->txn != ISO_NONE && pending[i].has_time)
			head->h.txns[base_txn + o->txn].invoke_time = pending[i].time;
	}
	if (head->h.n_txns > base_txn)
	{
		if (!tail_in_order ||
			(base_txn > 0 && head->h.txns[base_txn].txn_id <= head->last_txn_id))
			head->in_order = false;
		head->last_txn_id = tail_last_txn_id;
	}
	if (head_stats->workload == ISO_WORKLOAD_UNKNOWN)
		head_stats->workload = tail_stats->workload;
	head_stats->records += tail_stats->records;
	head_stats->skipped += tail_stats->skipped;
	head_stats->skipped_f += tail_stats->skipped_f;
	head_stats->skipped_process += tail_stats->skipped_process;
	head_stats->txns += tail_stats->txns;
	head_stats->ok += tail_stats->ok;
	head_stats->fail += tail_stats->fail;
	head_stats->info += tail_stats->info;
	head_stats->events += tail_stats->events;
	head_stats->fast_records += tail_stats->fast_records;
}

bool
iso_edn_history_join(IsoEdnHistory *head, EdnStats *head_stats,
					 const EdnPending *pending, int32 n_pending,
					 IsoEdnHistory *tail, const EdnStats *tail_stats)
{
	uint32		base_txn = head->h.n_txns;

	if (!iso_edn_split_joinable(head_stats, pending, n_pending, tail_stats,
								tail->orphans, tail->n_orphans))
		return false;
	iso_history_end_input(&head->h);
	iso_history_end_input(&tail->h);
	iso_history_append(&head->h, &tail->h);
	iso_edn_history_joined(head, head_stats, pending, n_pending, tail->orphans, tail->n_orphans,
						   base_txn, tail->in_order, tail->last_txn_id, tail_stats);
	return true;
}

void
iso_edn_history_free_parts(IsoEdnHistory *eh)
{
	iso_free(eh->orphans);
	eh->orphans = NULL;
	eh->n_orphans = eh->cap_orphans = 0;
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
