/*
 * infer.c
 *	  The graph builder: from an IsoHistory to vertices, edges and
 *	  non-cycle anomalies.  The rules are in docs/semantics.md; each step
 *	  below names the rule it implements.  This file holds what every
 *	  workload shares (unique writes, external reads and final writes,
 *	  vertices, internal consistency, lost updates) and the entry point;
 *	  the families of edges live in infer_list.c, infer_register.c and
 *	  infer_order.c.
 *
 * Everything is linear in the size of the history (ops plus elements of
 * list reads), except per-key sorting of small groups.  Arrays are sized
 * once from the history; no allocation per op or per edge.
 */
#include "port.h"

#include "infer_int.h"

void
iso_infer_add_anomaly(Builder *b, IsoAnomalyKind kind, uint32 key, uint32 value,
			uint32 op_a, uint32 op_b)
{
	IsoInference *out = b->out;
	IsoAnomaly *a;

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
iso_infer_add_edge(Builder *b, uint32 from_v, uint32 to_v, IsoEdgeType type, uint32 key,
		 uint32 from_op, uint32 to_op)
{
	if (from_v == ISO_NONE || to_v == ISO_NONE || from_v == to_v)
		return;
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

static bool
build_write_map(Builder *b, IsoParseError *err)
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
					 Min(vl, 40), vs, Min(kl, 40), ks);
			snprintf(err->detail, sizeof(err->detail),
					 "Transactions %lld and %lld both write it.",
					 (long long) first->txn_id,
					 (long long) h->txns[op->txn].txn_id);
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
 * Step 1: external reads, final writes, ops grouped by key
 * --------------------------------------------------------------------- */

static void
mark_op_flags(Builder *b)
{
	const IsoHistory *h = b->h;
	uint32		n_keys = h->keys.n;
	uint32	   *first_seen = iso_alloc0(sizeof(uint32) * Max(n_keys, 1));
	uint32	   *written = iso_alloc0(sizeof(uint32) * Max(n_keys, 1));
	uint32		t;

	b->op_flags = iso_alloc0(Max(h->n_ops, 1));
	for (t = 0; t < h->n_txns; t++)
	{
		const IsoTxn *txn = &h->txns[t];
		uint32		stamp = t + 1;
		int64		i;

		/* backwards: the first write seen is the final one */
		for (i = (int64) txn->n_ops - 1; i >= 0; i--)
		{
			uint32		o = txn->first_op + (uint32) i;
			const IsoOp *op = &h->ops[o];

			if (op->kind != ISO_OP_READ && written[op->key] != stamp)
			{
				written[op->key] = stamp;
				b->op_flags[o] |= OP_FINAL_WRITE;
			}
		}
		/* forwards: the first access of a key, if a read, is external */
		for (i = 0; i < txn->n_ops; i++)
		{
			uint32		o = txn->first_op + (uint32) i;
			const IsoOp *op = &h->ops[o];

			if (first_seen[op->key] == stamp)
				continue;
			first_seen[op->key] = stamp;
			if (op->kind == ISO_OP_READ)
			{
				b->op_flags[o] |= OP_EXTERNAL_READ;
				if (written[op->key] == stamp)
					b->op_flags[o] |= OP_TXN_WRITES_KEY;
			}
		}
		if ((t & 0xffff) == 0)
			ISO_CHECK_INTERRUPTS();
	}
	iso_free(first_seen);
	iso_free(written);
}

/* Counting sort of op indices by key, stable (so in txn order per key). */
static void
group_ops_by_key(Builder *b)
{
	const IsoHistory *h = b->h;
	uint32		n_keys = h->keys.n;
	uint32	   *fill;
	uint32		i;

	b->key_start = iso_alloc0(sizeof(uint32) * (n_keys + 1));
	b->key_ops = iso_alloc(sizeof(uint32) * Max(h->n_ops, 1));
	for (i = 0; i < h->n_ops; i++)
		b->key_start[h->ops[i].key + 1]++;
	for (i = 0; i < n_keys; i++)
		b->key_start[i + 1] += b->key_start[i];
	fill = iso_alloc(sizeof(uint32) * Max(n_keys, 1));
	memcpy(fill, b->key_start, sizeof(uint32) * n_keys);
	for (i = 0; i < h->n_ops; i++)
		b->key_ops[fill[h->ops[i].key]++] = i;
	iso_free(fill);
}

/* ---------------------------------------------------------------------
 * Step 2: vertices (ok, and info proven committed by a vertex's read)
 * --------------------------------------------------------------------- */

/* If the write of value to key is by an unproven info txn, prove it. */
static void
prove_writer(Builder *b, uint32 key, uint32 value, uint32 *worklist, uint32 *n_work)
{
	uint32		w = iso_infer_writer_of(b, key, value);
	uint32		t;

	if (w == ISO_NONE)
		return;
	t = op_txn(b, w);
	if (b->h->txns[t].status == ISO_STATUS_INFO && b->out->txn_vertex[t] == ISO_NONE)
	{
		b->out->txn_vertex[t] = 0;	/* marked; numbered below */
		worklist[(*n_work)++] = t;
	}
}

static void
find_vertices(Builder *b)
{
	const IsoHistory *h = b->h;
	IsoInference *out = b->out;
	uint32	   *worklist = iso_alloc(sizeof(uint32) * Max(h->n_txns, 1));
	uint8	   *info_key = NULL;
	uint8	   *info_value = NULL;
	uint32		n_work = 0;
	uint32		t;
	uint32		v;

	out->txn_vertex = iso_alloc(sizeof(uint32) * Max(h->n_txns, 1));
	for (t = 0; t < h->n_txns; t++)
	{
		out->txn_vertex[t] = ISO_NONE;
		if (h->txns[t].status == ISO_STATUS_OK)
		{
			out->txn_vertex[t] = 0;
			worklist[n_work++] = t;
		}
		else if (h->txns[t].status == ISO_STATUS_FAIL)
			out->n_fail++;
		else
			out->n_info++;
	}

	/*
	 * Only info transactions need proving, and only reads of keys an info
	 * transaction wrote can prove one: skip the rest (most keys, usually).
	 */
	if (out->n_info == 0)
		n_work = 0;
	else
	{
		/*
		 * And only values an info transaction wrote (to any key) can name
		 * one: a byte test spares the write-map lookup of every other list
		 * element, which is nearly all of them.
		 */
		info_key = iso_alloc0(Max(h->keys.n, 1));
		info_value = iso_alloc0(Max(h->values.n, 1));
		for (t = 0; t < h->n_txns; t++)
		{
			uint32		i;

			if (h->txns[t].status != ISO_STATUS_INFO)
				continue;
			for (i = 0; i < h->txns[t].n_ops; i++)
			{
				const IsoOp *op = &h->ops[h->txns[t].first_op + i];

				if (op->kind != ISO_OP_READ)
				{
					info_key[op->key] = 1;
					info_value[op->value] = 1;
				}
			}
		}
	}
	while (n_work > 0)
	{
		const IsoTxn *txn = &h->txns[worklist[--n_work]];
		uint32		i;

		for (i = 0; i < txn->n_ops; i++)
		{
			uint32		o = txn->first_op + i;
			const IsoOp *op = &h->ops[o];
			int32		j;

			if (!(b->op_flags[o] & OP_EXTERNAL_READ) || !info_key[op->key])
				continue;
			if (op->list_len < 0)
			{
				if (op->value != ISO_NONE && info_value[op->value])
					prove_writer(b, op->key, op->value, worklist, &n_work);
			}
			else
				for (j = 0; j < op->list_len; j++)
				{
					uint32		e = h->elems[op->list_first + j];

					if (info_value[e])
						prove_writer(b, op->key, e, worklist, &n_work);
				}
		}
		ISO_CHECK_INTERRUPTS();
	}

	/* number vertices in txn order */
	out->vertex_txn = iso_alloc(sizeof(uint32) * Max(h->n_txns, 1));
	v = 0;
	for (t = 0; t < h->n_txns; t++)
		if (out->txn_vertex[t] != ISO_NONE)
		{
			out->txn_vertex[t] = v;
			out->vertex_txn[v++] = t;
		}
	out->n_vertices = v;
	iso_free(worklist);
	if (info_key)
	{
		iso_free(info_key);
		iso_free(info_value);
	}
}

/* ---------------------------------------------------------------------
 * Step 3: internal consistency (per txn and key, in op order)
 * --------------------------------------------------------------------- */

/* Does list read r equal prev ++ appends (prev may be absent)? */
static bool
list_read_consistent(const Builder *b, const IsoOp *r, const IsoOp *prev,
					 const uint32 *app_ops, uint32 n_app)
{
	const IsoHistory *h = b->h;
	const uint32 *re = h->elems + r->list_first;
	uint32		rlen = (uint32) list_read_len(h, r);
	uint32		i;
	uint32		base;

	if (prev)
	{
		uint32		plen = (uint32) list_read_len(h, prev);

		if (rlen != plen + n_app)
			return false;
		for (i = 0; i < plen; i++)
			if (re[i] != h->elems[prev->list_first + i])
				return false;
		base = plen;
	}
	else
	{
		if (rlen < n_app)
			return false;
		base = rlen - n_app;
	}
	for (i = 0; i < n_app; i++)
		if (re[base + i] != h->ops[app_ops[i]].value)
			return false;
	return true;
}

/*
 * Future reads: a read that shows a value its own transaction writes only
 * later (Elle's future-read, a trivial wr cycle T -> T, hence G1c-like).
 * The group's writes are stamped with their op index first; then each read
 * is scanned once.  Reported once per read.
 */
static void
check_future_reads(Builder *b, const uint32 *ops, uint32 n)
{
	const IsoHistory *h = b->h;
	uint32		stamp = ++b->epoch;
	bool		any = false;
	uint32		i;

	for (i = 0; i < n; i++)
	{
		const IsoOp *op = &h->ops[ops[i]];

		if (op->kind == ISO_OP_READ || i == 0)
			continue;			/* a write nothing reads before */
		b->value_stamp[op->value] = stamp;
		b->value_pos[op->value] = ops[i];
		any = true;
	}
	if (!any)
		return;
	for (i = 0; i < n; i++)
	{
		const IsoOp *op = &h->ops[ops[i]];
		int32		len = list_read_len(h, op);
		int32		j;

		if (op->kind != ISO_OP_READ)
			continue;
		if (len < 0 && op->value != ISO_NONE &&
			b->value_stamp[op->value] == stamp && b->value_pos[op->value] > ops[i])
			iso_infer_add_anomaly(b, ISO_ANOM_FUTURE_READ, op->key, op->value, ops[i],
						b->value_pos[op->value]);
		for (j = 0; j < len; j++)
		{
			uint32		e = h->elems[op->list_first + j];

			if (b->value_stamp[e] == stamp && b->value_pos[e] > ops[i])
			{
				iso_infer_add_anomaly(b, ISO_ANOM_FUTURE_READ, op->key, e, ops[i],
							b->value_pos[e]);
				break;
			}
		}
	}
}

/*
 * Check the ops of one committed txn on one key (ops[first..last) of
 * key_ops, all of the same txn).  app_buf has room for the group's appends.
 */
static void
check_internal_group(Builder *b, const uint32 *ops, uint32 n, uint32 *app_buf)
{
	const IsoHistory *h = b->h;
	const IsoOp *prev_read = NULL;
	uint32		n_app = 0;
	bool		known = false;
	uint32		known_value = ISO_NONE;
	uint32		i;

	for (i = 0; i < n; i++)
	{
		const IsoOp *op = &h->ops[ops[i]];

		if (op->kind == ISO_OP_APPEND)
			app_buf[n_app++] = ops[i];
		else if (op->kind == ISO_OP_WRITE)
		{
			known = true;
			known_value = op->value;
		}
		else if (h->workload == ISO_WORKLOAD_LIST_APPEND)
		{
			if (list_read_len(h, op) < 0)
				continue;
			if ((prev_read || n_app > 0) &&
				!list_read_consistent(b, op, prev_read, app_buf, n_app))
				iso_infer_add_anomaly(b, ISO_ANOM_INTERNAL, op->key, ISO_NONE, ops[i],
							prev_read ? (uint32) (prev_read - h->ops) :
							app_buf[n_app - 1]);
			prev_read = op;
			n_app = 0;
		}
		else
		{
			if (known && op->value != known_value)
				iso_infer_add_anomaly(b, ISO_ANOM_INTERNAL, op->key, op->value, ops[i], ISO_NONE);
			known = true;
			known_value = op->value;
		}
	}
}

static void
check_internal(Builder *b)
{
	const IsoHistory *h = b->h;
	uint32	   *app_buf = iso_alloc(sizeof(uint32) * Max(h->n_ops, 1));
	uint32		k;

	for (k = 0; k < h->keys.n; k++)
	{
		uint32		i = b->key_start[k];
		uint32		end = b->key_start[k + 1];

		while (i < end)
		{
			uint32		t = op_txn(b, b->key_ops[i]);
			uint32		j = i;

			while (j < end && op_txn(b, b->key_ops[j]) == t)
				j++;
			/* info txns' reads are mostly unknown: check committed ones only */
			if (b->h->txns[t].status == ISO_STATUS_OK && j - i > 1)
			{
				check_internal_group(b, b->key_ops + i, j - i, app_buf);
				check_future_reads(b, b->key_ops + i, j - i);
			}
			i = j;
		}
		if ((k & 0xfff) == 0)
			ISO_CHECK_INTERRUPTS();
	}
	iso_free(app_buf);
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

/* ---------------------------------------------------------------------
 * Entry point
 * --------------------------------------------------------------------- */

bool
iso_infer(const IsoHistory *h, const IsoVersionLog *log,
		  const IsoInferOptions *options, IsoInference *out, IsoParseError *err)
{
	Builder		b;
	IsoVersionLog empty_log = {0, NULL, NULL};
	uint32		n_values = Max(h->values.n, 1);

	memset(out, 0, sizeof(*out));
	memset(&b, 0, sizeof(b));
	b.h = h;
	b.out = out;

	if (!build_write_map(&b, err))
		return false;
	mark_op_flags(&b);
	group_ops_by_key(&b);
	find_vertices(&b);

	/* data edges are about 2 per op, real-time ones a few per txn: one
	 * allocation up front (pages are only touched as edges arrive) */
	iso_edgebuf_init(&b.edges, (uint64) h->n_ops * 3 + 16);
	b.value_stamp = iso_alloc0(sizeof(uint32) * n_values);
	b.value_pos = iso_alloc(sizeof(uint32) * n_values);
	b.dup_stamp = iso_alloc0(sizeof(uint32) * n_values);

	check_internal(&b);

	if (h->workload == ISO_WORKLOAD_LIST_APPEND)
		iso_infer_lists(&b);
	else
		iso_infer_registers(&b, log ? log : &empty_log, options);

	iso_infer_session_edges(&b);
	iso_infer_realtime_edges(&b);

	/* the builder's tables go before the CSR build, the peak of a check */
	iso_free(b.writes.keys);
	iso_free(b.writes.ops);
	iso_free(b.op_flags);
	iso_free(b.key_start);
	iso_free(b.key_ops);
	iso_free(b.value_stamp);
	iso_free(b.value_pos);
	iso_free(b.dup_stamp);

	iso_graph_finish(&out->graph, out->n_vertices + out->realtime.n_points, &b.edges);
	return true;
}
