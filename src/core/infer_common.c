/*
 * infer_common.c
 *	  What the graph builder's steps and families share: recording anomalies
 *	  and edges, the map from written values to their writes (unique
 *	  writes, step 0 of docs/semantics.md), and the lost-update rule.
 */
#include "port.h"

#include "infer_int.h"
#include "text.h"

void
iso_infer_add_anomaly(Builder *b, IsoAnomalyKind kind, uint32 key, uint32 value,
			uint32 op_a, uint32 op_b)
{
	IsoInference *out = b->out;
	IsoAnomaly *a;

	if (out->n_anomalies == out->cap_anomalies && b->bounded)
	{
		b->overflow = true;
		return;
	}
	if (out->n_anomalies == out->cap_anomalies)
	{
		uint32		cap = out->cap_anomalies ? out->cap_anomalies * 2 : 64;

		out->anomalies = out->anomalies ?
			iso_realloc(out->anomalies, sizeof(IsoAnomaly) * cap) :
			iso_alloc(sizeof(IsoAnomaly) * cap);
		out->cap_anomalies = cap;
	}
	a = &out->anomalies[out->n_anomalies++];
	a->kind = (uint8) kind;
	a->key = key;
	a->value = value;
	a->op_a = op_a;
	a->txn_a = op_a == ISO_NONE ? ISO_NONE : op_txn(b, op_a);
	a->op_b = op_b;
	a->txn_b = op_b == ISO_NONE ? ISO_NONE : op_txn(b, op_b);
}

void
iso_infer_reserve_anomalies(IsoInference *out, uint32 more)
{
	uint32		want = out->n_anomalies + more;

	if (out->cap_anomalies >= want)
		return;
	out->anomalies = out->anomalies ?
		iso_realloc(out->anomalies, sizeof(IsoAnomaly) * want) :
		iso_alloc(sizeof(IsoAnomaly) * want);
	out->cap_anomalies = want;
}

void
iso_infer_add_edge(Builder *b, uint32 from_v, uint32 to_v, IsoEdgeType type, uint32 key,
		 uint32 from_op, uint32 to_op)
{
	if (from_v == ISO_NONE || to_v == ISO_NONE || from_v == to_v)
		return;
	/* bounded: no growth, and none of iso_edgebuf_add's limits (an edge
	 * without a from op names its key, which may be past one) */
	if (b->bounded && (b->edges.n == b->edges.cap || from_op == ISO_NONE))
	{
		b->overflow = true;
		return;
	}
	iso_edgebuf_add(&b->edges, from_v, to_v, type, key,
					from_op == ISO_NONE ? ISO_NO_OP : (int32) from_op,
					to_op == ISO_NONE ? ISO_NO_OP : (int32) to_op);
}

/* ---------------------------------------------------------------------
 * Step 0: who wrote what (unique writes)
 * --------------------------------------------------------------------- */

static inline uint64
write_key(uint32 key, uint32 value)
{
	return (((uint64) key << 32) | value) + 1;
}

/* Op index that wrote value to key, or ISO_NONE. */
uint32
iso_infer_writer_of(const Builder *b, uint32 key, uint32 value)
{
	uint64		k = write_key(key, value);
	uint64		i = mix64(k) & b->writes.mask;

	while (b->writes.keys[i] != 0)
	{
		if (b->writes.keys[i] == k)
			return b->writes.ops[i];
		i = (i + 1) & b->writes.mask;
	}
	return ISO_NONE;
}

bool
iso_infer_build_write_map(Builder *b, IsoParseError *err)
{
	const IsoHistory *h = b->h;
	uint64		nslots = 64;
	uint64		n_writes = 0;
	uint32		i;

	/* sized by the writes, about half the ops: the table is random-access */
	for (i = 0; i < h->n_ops; i++)
		n_writes += h->ops[i].kind != ISO_OP_READ;
	while (nslots < n_writes * 2)
		nslots *= 2;
	b->writes.keys = iso_alloc0(sizeof(uint64) * nslots);
	b->writes.ops = iso_alloc(sizeof(uint32) * nslots);
	b->writes.mask = nslots - 1;

	for (i = 0; i < h->n_ops; i++)
	{
		const IsoOp *op = &h->ops[i];
		uint64		k;
		uint64		s;

		if (op->kind == ISO_OP_READ)
			continue;
		k = write_key(op->key, op->value);
		s = mix64(k) & b->writes.mask;
		while (b->writes.keys[s] != 0 && b->writes.keys[s] != k)
			s = (s + 1) & b->writes.mask;
		if (b->writes.keys[s] == k)
		{
			int32		kl,
						vl;
			const char *ks = iso_strtab_get(&h->keys, op->key, &kl);
			const char *vs = iso_strtab_get(&h->values, op->value, &vl);
			const IsoTxn *first = &h->txns[op_txn(b, b->writes.ops[s])];

			memset(err, 0, sizeof(*err));
			err->kind = ISO_PARSE_DUPLICATE;
			snprintf(err->message, sizeof(err->message),
					 "value \"%.*s\" is written to key \"%.*s\" more than once",
					 iso_clip_len(vs, vl, 40), vs, iso_clip_len(ks, kl, 40), ks);
			snprintf(err->detail, sizeof(err->detail),
					 "Transactions %lld and %lld both write it.",
					 (long long) first->txn_id,
					 (long long) h->txns[op_txn(b, i)].txn_id);
			snprintf(err->hint, sizeof(err->hint),
					 "isograph needs unique written values per key, so that a read names the one write it observed.");
			iso_free(b->writes.keys);
			iso_free(b->writes.ops);
			b->writes.keys = NULL;
			b->writes.ops = NULL;
			return false;
		}
		b->writes.keys[s] = k;
		b->writes.ops[s] = i;
	}
	return true;
}

/* ---------------------------------------------------------------------
 * Lost update: two vertices read the same version of k and both write k.
 * reads[i] = (version rank, reader op); sorted here.
 * --------------------------------------------------------------------- */

static int
cmp_ranked(const void *a, const void *b)
{
	const RankedRead *x = a;
	const RankedRead *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->op < y->op ? -1 : (x->op > y->op);
}

void
iso_infer_report_lost_updates(Builder *b, uint32 key, RankedRead *reads, uint32 n)
{
	uint32		i;

	if (n < 2)
		return;
	qsort(reads, n, sizeof(RankedRead), cmp_ranked);
	for (i = 0; i + 1 < n; i++)
	{
		if (reads[i].rank != reads[i + 1].rank)
			continue;
		iso_infer_add_anomaly(b, ISO_ANOM_LOST_UPDATE, key, ISO_NONE, reads[i].op, reads[i + 1].op);
		/* one report per version */
		while (i + 1 < n && reads[i].rank == reads[i + 1].rank)
			i++;
	}
}

