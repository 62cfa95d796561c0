/*
 * infer.c
 *	  The graph builder: from an IsoHistory to vertices, edges and
 *	  non-cycle anomalies.  The rules are in docs/semantics.md; each step
 *	  below names the rule it implements.
 *
 * Everything is linear in the size of the history (ops plus elements of
 * list reads), except per-key sorting of small groups.  Arrays are sized
 * once from the history; no allocation per op or per edge.
 */
#include "port.h"

#include "infer.h"
#include "realtime.h"

/* Flags per op, computed once (step 1). */
#define OP_EXTERNAL_READ	0x01	/* first access of the key in its txn */
#define OP_FINAL_WRITE		0x02	/* last w/append of the key in its txn */
#define OP_TXN_WRITES_KEY	0x04	/* (reads) its txn also writes the key */

/* (key, value) -> op index of the write; open addressing. */
typedef struct WriteMap
{
	uint64	   *keys;			/* (key << 32 | value) + 1, 0 = empty */
	uint32	   *ops;
	uint64		mask;
} WriteMap;

typedef struct Builder
{
	const IsoHistory *h;
	IsoInference *out;
	IsoEdgeBuf	edges;
	uint8	   *op_flags;
	WriteMap	writes;
	uint32	   *key_start;		/* ops grouped by key: CSR over key ids */
	uint32	   *key_ops;
	uint32	   *value_stamp;	/* per value id: epoch it was marked in */
	uint32	   *value_pos;		/* per value id: position while marked */
	uint32	   *dup_stamp;
	uint32		epoch;
} Builder;

static inline uint32
op_txn(const Builder *b, uint32 op)
{
	return b->h->ops[op].txn;
}

static inline uint32
txn_vertex(const Builder *b, uint32 txn)
{
	return b->out->txn_vertex[txn];
}

static inline uint32
op_vertex(const Builder *b, uint32 op)
{
	return b->out->txn_vertex[b->h->ops[op].txn];
}

/*
 * The length of a list-append read, or -1 when it shows nothing.  Jepsen
 * clients return nil for a list that does not exist yet, so a committed
 * transaction's nil read is the empty list, the initial state (Elle reads
 * it so); an info transaction's reads are copied from its invocation, so
 * its nil means "unknown".
 */
static inline int32
list_read_len(const IsoHistory *h, const IsoOp *op)
{
	if (op->list_len >= 0)
		return op->list_len;
	if (op->kind == ISO_OP_READ && op->value == ISO_NONE &&
		h->txns[op->txn].status == ISO_STATUS_OK)
		return 0;
	return -1;
}

static void
add_anomaly(Builder *b, IsoAnomalyKind kind, uint32 key, uint32 value,
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

static void
add_edge(Builder *b, uint32 from_v, uint32 to_v, IsoEdgeType type, uint32 key,
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

static inline uint64
mix64(uint64 x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	return x;
}

/* Op index that wrote value to key, or ISO_NONE. */
static uint32
writer_of(const Builder *b, uint32 key, uint32 value)
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
	uint32		w = writer_of(b, key, value);
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
			add_anomaly(b, ISO_ANOM_FUTURE_READ, op->key, op->value, ops[i],
						b->value_pos[op->value]);
		for (j = 0; j < len; j++)
		{
			uint32		e = h->elems[op->list_first + j];

			if (b->value_stamp[e] == stamp && b->value_pos[e] > ops[i])
			{
				add_anomaly(b, ISO_ANOM_FUTURE_READ, op->key, e, ops[i],
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
				add_anomaly(b, ISO_ANOM_INTERNAL, op->key, ISO_NONE, ops[i],
							prev_read ? (uint32) (prev_read - h->ops) :
							app_buf[n_app - 1]);
			prev_read = op;
			n_app = 0;
		}
		else
		{
			if (known && op->value != known_value)
				add_anomaly(b, ISO_ANOM_INTERNAL, op->key, op->value, ops[i], ISO_NONE);
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

typedef struct RankedRead
{
	uint64		rank;
	uint32		op;
} RankedRead;

static int
cmp_ranked(const void *a, const void *b)
{
	const RankedRead *x = a;
	const RankedRead *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->op < y->op ? -1 : (x->op > y->op);
}

static void
report_lost_updates(Builder *b, uint32 key, RankedRead *reads, uint32 n)
{
	uint32		i;

	if (n < 2)
		return;
	qsort(reads, n, sizeof(RankedRead), cmp_ranked);
	for (i = 0; i + 1 < n; i++)
	{
		if (reads[i].rank != reads[i + 1].rank)
			continue;
		add_anomaly(b, ISO_ANOM_LOST_UPDATE, key, ISO_NONE, reads[i].op, reads[i + 1].op);
		/* one report per version */
		while (i + 1 < n && reads[i].rank == reads[i + 1].rank)
			i++;
	}
}

/* ---------------------------------------------------------------------
 * Step 4a: list-append keys
 * --------------------------------------------------------------------- */

/* Scratch arrays of infer_list_key, sized once for the whole history. */
typedef struct ListScratch
{
	uint32	   *reads;			/* the key's vertex reads (op indices) */
	bool	   *compatible;		/* per read: a prefix of the longest read */
	uint32	   *full_readers;	/* reads of the last known version */
	RankedRead *ranked;			/* lost-update candidates */
	uint32	   *known;			/* the known order: distinct elements */
	uint32	   *elem_op;		/* per known element: its append, or NONE */
	uint32	   *next_vertex;	/* per position: next element by a vertex */
	uint32	   *txn_stamp;		/* per txn: key + 1 when txn_last_op is set */
	uint32	   *txn_last_op;	/* per txn: its last append seen in the order */
} ListScratch;

/* True if read r has an element twice; *at: index of its second copy. */
static bool
has_duplicate(Builder *b, const IsoOp *r, int32 len, uint32 *dup_value, int32 *at)
{
	const uint32 *e = b->h->elems + r->list_first;
	uint32		stamp = ++b->epoch;
	int32		i;

	for (i = 0; i < len; i++)
	{
		if (b->dup_stamp[e[i]] == stamp)
		{
			*dup_value = e[i];
			*at = i;
			return true;
		}
		b->dup_stamp[e[i]] = stamp;
	}
	return false;
}

/* The vertices' list reads of key (every read, not only external ones). */
static uint32
collect_list_reads(Builder *b, uint32 key, ListScratch *s, uint32 *longest)
{
	const IsoHistory *h = b->h;
	const uint32 *kops = b->key_ops + b->key_start[key];
	uint32		nk = b->key_start[key + 1] - b->key_start[key];
	uint32		n = 0;
	int32		best = -1;
	uint32		i;

	for (i = 0; i < nk; i++)
	{
		uint32		o = kops[i];
		const IsoOp *op = &h->ops[o];
		int32		len;

		if (op->kind != ISO_OP_READ || op_vertex(b, o) == ISO_NONE)
			continue;
		len = list_read_len(h, op);
		if (len < 0)
			continue;
		s->reads[n++] = o;
		if (len > best)
		{
			best = len;
			*longest = o;
		}
	}
	return n;
}

/*
 * The known order: the longest read's elements, each once (a duplicate is
 * reported and its later copies dropped, as Elle does).  Marks the elements
 * with their position.  Returns the number of elements.
 */
static uint32
known_order(Builder *b, uint32 key, uint32 longest, ListScratch *s, uint32 *stamp)
{
	const IsoHistory *h = b->h;
	const IsoOp *L = &h->ops[longest];
	const uint32 *le = h->elems + L->list_first;
	int32		len = list_read_len(h, L);
	uint32		dup;
	int32		at;
	uint32		n = 0;
	int32		i;

	if (has_duplicate(b, L, len, &dup, &at))
		add_anomaly(b, ISO_ANOM_DUPLICATE_ELEMENTS, key, dup, longest, ISO_NONE);
	*stamp = ++b->epoch;
	for (i = 0; i < len; i++)
	{
		if (b->value_stamp[le[i]] == *stamp)
			continue;
		b->value_stamp[le[i]] = *stamp;
		b->value_pos[le[i]] = n;
		s->known[n++] = le[i];
	}
	return n;
}

/*
 * Every read must be a prefix of the longest (incompatible-order) and hold
 * each element once (duplicate-elements).  Reads that fail still give
 * edges, by their last element, as in Elle; compatible[i] says which pass.
 */
static void
check_read_orders(Builder *b, uint32 key, uint32 n_reads, uint32 longest,
				  ListScratch *s)
{
	const IsoHistory *h = b->h;
	const IsoOp *L = &h->ops[longest];
	const uint32 *le = h->elems + L->list_first;
	int32		llen = list_read_len(h, L);
	uint32		longest_dup = ISO_NONE;
	int32		dup_at = -1;
	uint32		i;

	/* a prefix of the longest holds its duplicate if it reaches the copy */
	if (!has_duplicate(b, L, llen, &longest_dup, &dup_at))
		dup_at = -1;
	for (i = 0; i < n_reads; i++)
	{
		const IsoOp *r = &h->ops[s->reads[i]];
		const uint32 *re = h->elems + r->list_first;
		int32		len = list_read_len(h, r);
		bool		prefix = len <= llen;
		int32		j;
		int32		at;
		uint32		dup;

		for (j = 0; prefix && j < len; j++)
			prefix = re[j] == le[j];
		s->compatible[i] = prefix;
		if (prefix)
		{
			if (dup_at >= 0 && len > dup_at && s->reads[i] != longest)
				add_anomaly(b, ISO_ANOM_DUPLICATE_ELEMENTS, key, longest_dup,
							s->reads[i], ISO_NONE);
		}
		else if (has_duplicate(b, r, len, &dup, &at))
			add_anomaly(b, ISO_ANOM_DUPLICATE_ELEMENTS, key, dup, s->reads[i], ISO_NONE);
		else
			add_anomaly(b, ISO_ANOM_INCOMPATIBLE_ORDER, key, ISO_NONE, s->reads[i],
						longest);
	}
}

/*
 * Who appended each known element; garbage reads, aborted elements and
 * dirty updates along the known order.  Returns the position of the first
 * element of a fail transaction, or ISO_NONE.
 */
static uint32
known_order_writers(Builder *b, uint32 key, uint32 n, uint32 longest,
					uint32 n_reads, ListScratch *s)
{
	const IsoHistory *h = b->h;
	uint32		first_fail = ISO_NONE;
	uint32		first_garbage = ISO_NONE;
	uint32		i;

	bool		misordered = false;

	for (i = 0; i < n; i++)
	{
		uint32		w = writer_of(b, key, s->known[i]);
		uint32		t;

		s->elem_op[i] = w;
		if (w == ISO_NONE)
		{
			if (first_garbage == ISO_NONE)
				first_garbage = i;
			continue;
		}

		/*
		 * A transaction's appends to the key must show in the order it made
		 * them: no list state ever held them otherwise.  (A reversed pair by
		 * two transactions is a ww cycle; by one, this is the only trace.)
		 */
		t = op_txn(b, w);
		if (s->txn_stamp[t] == key + 1 && s->txn_last_op[t] > w && !misordered)
		{
			/* value: the element shown too early; op_b: the earlier append */
			add_anomaly(b, ISO_ANOM_INCOMPATIBLE_ORDER, key,
						h->ops[s->txn_last_op[t]].value, longest, w);
			misordered = true;
		}
		s->txn_stamp[t] = key + 1;
		s->txn_last_op[t] = w;

		if (h->txns[t].status == ISO_STATUS_FAIL)
		{
			if (first_fail == ISO_NONE)
				first_fail = i;
		}
		else if (first_fail != ISO_NONE && op_vertex(b, w) != ISO_NONE)
			add_anomaly(b, ISO_ANOM_DIRTY_UPDATE, key, s->known[i], w,
						s->elem_op[first_fail]);
	}
	if (first_garbage != ISO_NONE)
	{
		/* report once, with the shortest compatible read that shows it */
		uint32		shower = longest;

		for (i = 0; i < n_reads; i++)
		{
			int32		len = list_read_len(h, &h->ops[s->reads[i]]);

			if (s->compatible[i] && len > 0 &&
				b->value_pos[h->elems[h->ops[s->reads[i]].list_first + len - 1]] >=
				first_garbage &&
				len < list_read_len(h, &h->ops[shower]))
				shower = s->reads[i];
		}
		add_anomaly(b, ISO_ANOM_GARBAGE_READ, key, s->known[first_garbage], shower,
					ISO_NONE);
	}

	/* next_vertex[i]: first element at position >= i appended by a vertex */
	s->next_vertex[n] = ISO_NONE;
	for (i = n; i > 0; i--)
		s->next_vertex[i - 1] = (s->elem_op[i - 1] != ISO_NONE &&
								 op_vertex(b, s->elem_op[i - 1]) != ISO_NONE) ?
			i - 1 : s->next_vertex[i];
	return first_fail;
}

/*
 * An incompatible read's elements outside the known order: aborted ones
 * (G1a) and ones nobody appended (garbage-read).
 */
static void
check_foreign_elements(Builder *b, uint32 key, uint32 ro, uint32 stamp)
{
	const IsoHistory *h = b->h;
	const IsoOp *r = &h->ops[ro];
	int32		len = list_read_len(h, r);
	int32		j;

	for (j = 0; j < len; j++)
	{
		uint32		e = h->elems[r->list_first + j];
		uint32		w;

		if (b->value_stamp[e] == stamp)
			continue;
		w = writer_of(b, key, e);
		if (w == ISO_NONE)
			add_anomaly(b, ISO_ANOM_GARBAGE_READ, key, e, ro, ISO_NONE);
		else if (h->txns[op_txn(b, w)].status == ISO_STATUS_FAIL)
			add_anomaly(b, ISO_ANOM_G1A, key, e, ro, w);
		else
			continue;
		return;					/* one report per read */
	}
}

/*
 * The edges and anomalies of one read.  A read is identified by the
 * version it shows: its last element (Elle's read index); the element's
 * position in the known order gives the next appender (rw).
 */
static void
list_read_edges(Builder *b, uint32 key, uint32 i, uint32 n, uint32 first_fail,
				uint32 stamp, ListScratch *s, uint32 *n_ranked, uint32 *n_full)
{
	const IsoHistory *h = b->h;
	uint32		ro = s->reads[i];
	const IsoOp *r = &h->ops[ro];
	int32		len = list_read_len(h, r);
	uint32		rv = op_vertex(b, ro);
	uint32		last = len > 0 ? h->elems[r->list_first + len - 1] : ISO_NONE;
	bool		known = last == ISO_NONE || b->value_stamp[last] == stamp;
	uint32		next = ISO_NONE;	/* position of the version after it */
	uint32		w = ISO_NONE;

	if (last != ISO_NONE && known)
	{
		uint32		q = b->value_pos[last];

		w = s->elem_op[q];
		next = q + 1;
		if (first_fail != ISO_NONE && first_fail <= q && s->compatible[i])
			add_anomaly(b, ISO_ANOM_G1A, key, s->known[first_fail], ro,
						s->elem_op[first_fail]);
	}
	else if (last != ISO_NONE)
		w = writer_of(b, key, last);
	else
		next = 0;
	if (!s->compatible[i])
		check_foreign_elements(b, key, ro, stamp);

	if (w != ISO_NONE)
	{
		if (!(b->op_flags[w] & OP_FINAL_WRITE) && op_txn(b, w) != r->txn &&
			h->txns[op_txn(b, w)].status != ISO_STATUS_FAIL)
			add_anomaly(b, ISO_ANOM_G1B, key, last, ro, w);
		add_edge(b, op_vertex(b, w), rv, ISO_EDGE_WR, key, w, ro);
	}
	/*
	 * A read of the reader's own version (a read after its own append)
	 * gives no rw edge: the next appender already follows it by ww, and a
	 * cycle through that rw edge would only repeat one through the ww edge
	 * under a weaker name.
	 */
	if (w != ISO_NONE && op_txn(b, w) == r->txn)
		next = ISO_NONE;
	if (next != ISO_NONE && s->next_vertex[next] != ISO_NONE)
		add_edge(b, rv, op_vertex(b, s->elem_op[s->next_vertex[next]]), ISO_EDGE_RW,
				 key, ro, s->elem_op[s->next_vertex[next]]);
	if (next == n)
		s->full_readers[(*n_full)++] = ro;
	/* lost update: external reads of transactions that also write the key */
	if (b->op_flags[ro] & OP_TXN_WRITES_KEY)
	{
		s->ranked[*n_ranked].rank = last == ISO_NONE ? 0 : (uint64) last + 1;
		s->ranked[*n_ranked].op = ro;
		(*n_ranked)++;
	}
}

static void
infer_list_key(Builder *b, uint32 key, ListScratch *s)
{
	const IsoHistory *h = b->h;
	const uint32 *kops = b->key_ops + b->key_start[key];
	uint32		nk = b->key_start[key + 1] - b->key_start[key];
	uint32		longest = ISO_NONE;
	uint32		n_reads;
	uint32		n;
	uint32		stamp;
	uint32		first_fail;
	uint32		last_vertex_elem = ISO_NONE;
	uint32		n_ranked = 0;
	uint32		n_full = 0;
	uint32		i;

	n_reads = collect_list_reads(b, key, s, &longest);
	if (n_reads == 0)
		return;
	n = known_order(b, key, longest, s, &stamp);
	check_read_orders(b, key, n_reads, longest, s);
	first_fail = known_order_writers(b, key, n, longest, n_reads, s);

	/* ww along the known order, between consecutive vertex elements */
	for (i = 0; i < n; i++)
	{
		if (s->next_vertex[i] != i)
			continue;
		if (last_vertex_elem != ISO_NONE)
			add_edge(b, op_vertex(b, s->elem_op[last_vertex_elem]),
					 op_vertex(b, s->elem_op[i]), ISO_EDGE_WW, key,
					 s->elem_op[last_vertex_elem], s->elem_op[i]);
		last_vertex_elem = i;
	}

	for (i = 0; i < n_reads; i++)
		list_read_edges(b, key, i, n, first_fail, stamp, s, &n_ranked, &n_full);
	report_lost_updates(b, key, s->ranked, n_ranked);

	/*
	 * Appends by vertices that no read shows come after the known order:
	 * the readers of its last version read a state they overwrote.
	 */
	for (i = 0; i < nk; i++)
	{
		uint32		o = kops[i];
		const IsoOp *op = &h->ops[o];
		uint32		v = op_vertex(b, o);
		uint32		j;

		if (op->kind != ISO_OP_APPEND || v == ISO_NONE ||
			b->value_stamp[op->value] == stamp)
			continue;
		for (j = 0; j < n_full; j++)
			add_edge(b, op_vertex(b, s->full_readers[j]), v, ISO_EDGE_RW, key,
					 s->full_readers[j], o);
		if (last_vertex_elem != ISO_NONE)
			add_edge(b, op_vertex(b, s->elem_op[last_vertex_elem]), v, ISO_EDGE_WW, key,
					 s->elem_op[last_vertex_elem], o);
		if ((i & 0xfff) == 0)
			ISO_CHECK_INTERRUPTS();
	}
}

static void
infer_lists(Builder *b)
{
	const IsoHistory *h = b->h;
	uint32		n = h->n_ops + 2;
	uint32		max_len = 0;
	ListScratch s;
	uint32		i;
	uint32		k;

	for (i = 0; i < h->n_ops; i++)
		if (h->ops[i].list_len > 0 && (uint32) h->ops[i].list_len > max_len)
			max_len = (uint32) h->ops[i].list_len;
	s.reads = iso_alloc(sizeof(uint32) * n);
	s.compatible = iso_alloc(sizeof(bool) * n);
	s.full_readers = iso_alloc(sizeof(uint32) * n);
	s.ranked = iso_alloc(sizeof(RankedRead) * n);
	s.known = iso_alloc(sizeof(uint32) * (max_len + 1));
	s.elem_op = iso_alloc(sizeof(uint32) * (max_len + 1));
	s.next_vertex = iso_alloc(sizeof(uint32) * (max_len + 1));
	s.txn_stamp = iso_alloc0(sizeof(uint32) * Max(h->n_txns, 1));
	s.txn_last_op = iso_alloc(sizeof(uint32) * Max(h->n_txns, 1));
	for (k = 0; k < h->keys.n; k++)
	{
		infer_list_key(b, k, &s);
		ISO_CHECK_INTERRUPTS();
	}
	iso_free(s.reads);
	iso_free(s.compatible);
	iso_free(s.full_readers);
	iso_free(s.ranked);
	iso_free(s.known);
	iso_free(s.elem_op);
	iso_free(s.next_vertex);
	iso_free(s.txn_stamp);
	iso_free(s.txn_last_op);
}

/* ---------------------------------------------------------------------
 * Step 4b: rw-register keys
 *
 * Versions of a key are numbered locally: 0 is the initial state (nil),
 * 1..m the final writes of vertices.  Constraints "a < b" between them come
 * from the log, nil, write-follows-read and the opt-in assumptions; if they
 * leave exactly one order, we know each version's successor.
 * --------------------------------------------------------------------- */

typedef struct RegScratch
{
	uint32	   *version_op;		/* local version -> write op (0: none) */
	uint32	   *cons_from;		/* constraint pairs */
	uint32	   *cons_to;
	uint32		n_cons;
	uint32		cap_cons;
	uint32	   *indeg;
	uint32	   *adj_start;
	uint32	   *adj;
	uint32		cap_adj;
	uint32	   *order;			/* topological order */
	uint32	   *rank;			/* local version -> index in order */
	uint32	   *queue;
	uint32	   *reads;			/* external read ops of vertices */
	uint32	   *read_version;	/* their local version, or ISO_NONE */
	RankedRead *ranked;
	uint32	   *sort_buf;
} RegScratch;

static void
add_constraint(RegScratch *s, uint32 a, uint32 b)
{
	if (a == b)
		return;
	if (s->n_cons == s->cap_cons)
	{
		s->cap_cons *= 2;
		s->cons_from = iso_realloc(s->cons_from, sizeof(uint32) * s->cap_cons);
		s->cons_to = iso_realloc(s->cons_to, sizeof(uint32) * s->cap_cons);
	}
	s->cons_from[s->n_cons] = a;
	s->cons_to[s->n_cons] = b;
	s->n_cons++;
}

/* Local version of (key, value) if it is a vertex's final write, else ISO_NONE. */
static inline uint32
local_version(const Builder *b, uint32 value, uint32 stamp)
{
	if (value == ISO_NONE)
		return 0;
	return b->value_stamp[value] == stamp ? b->value_pos[value] : ISO_NONE;
}

/*
 * Topological sort of versions 0..m under the constraints.  Returns false on
 * a cycle; *total tells whether the order is the only one.
 */
static bool
order_versions(RegScratch *s, uint32 m, bool *total)
{
	uint32		n = m + 1;
	uint32		head = 0,
				tail = 0,
				done = 0;
	uint32		i;

	if (s->n_cons > s->cap_adj)
	{
		if (s->adj)
			iso_free(s->adj);
		s->cap_adj = Max(s->n_cons, s->cap_adj * 2);
		s->adj = iso_alloc(sizeof(uint32) * s->cap_adj);
	}
	memset(s->indeg, 0, sizeof(uint32) * n);
	memset(s->adj_start, 0, sizeof(uint32) * (n + 1));
	for (i = 0; i < s->n_cons; i++)
	{
		s->adj_start[s->cons_from[i] + 1]++;
		s->indeg[s->cons_to[i]]++;
	}
	for (i = 0; i < n; i++)
		s->adj_start[i + 1] += s->adj_start[i];
	memcpy(s->sort_buf, s->adj_start, sizeof(uint32) * n);
	for (i = 0; i < s->n_cons; i++)
		s->adj[s->sort_buf[s->cons_from[i]]++] = s->cons_to[i];

	*total = true;
	for (i = 0; i < n; i++)
		if (s->indeg[i] == 0)
			s->queue[tail++] = i;
	while (head < tail)
	{
		uint32		u;
		uint32		e;

		if (tail - head > 1)
			*total = false;
		u = s->queue[head++];
		s->rank[u] = done;
		s->order[done++] = u;
		for (e = s->adj_start[u]; e < s->adj_start[u + 1]; e++)
			if (--s->indeg[s->adj[e]] == 0)
				s->queue[tail++] = s->adj[e];
	}
	return done == n;
}

/* Writers of a key's versions, for the opt-in assumptions. */
typedef struct VersionWriter
{
	int64		process;
	int64		txn_id;
	int64		invoke_time;
	int64		complete_time;
	uint32		local;
	bool		has_process;
} VersionWriter;

static int
cmp_by_session(const void *a, const void *b)
{
	const VersionWriter *x = a;
	const VersionWriter *y = b;

	if (x->has_process != y->has_process)
		return x->has_process ? -1 : 1;
	if (x->process != y->process)
		return x->process < y->process ? -1 : 1;
	return x->txn_id < y->txn_id ? -1 : (x->txn_id > y->txn_id);
}

static int
cmp_by_completion(const void *a, const void *b)
{
	const VersionWriter *x = a;
	const VersionWriter *y = b;

	return x->complete_time < y->complete_time ? -1 :
		(x->complete_time > y->complete_time);
}

/*
 * Opt-in rule 4: session order or real-time order orders each key's writes.
 * For real time we add, per version, one constraint from the version whose
 * writer completed last before it was invoked: sound, O(m log m), and enough
 * to chain versions of non-overlapping writers.
 */
static void
assumed_constraints(Builder *b, RegScratch *s, uint32 m, const IsoInferOptions *opt)
{
	const IsoHistory *h = b->h;
	VersionWriter *vw;
	uint32		i;

	if (m < 2 || (!opt->sequential_keys && !opt->linearizable_keys))
		return;
	vw = iso_alloc(sizeof(VersionWriter) * m);
	for (i = 0; i < m; i++)
	{
		const IsoTxn *t = &h->txns[op_txn(b, s->version_op[i + 1])];

		vw[i].process = t->process;
		vw[i].has_process = t->has_process;
		vw[i].txn_id = t->txn_id;
		vw[i].invoke_time = t->invoke_time;
		vw[i].complete_time = t->status == ISO_STATUS_OK ? t->complete_time : ISO_NO_TIME;
		vw[i].local = i + 1;
	}
	if (opt->sequential_keys)
	{
		qsort(vw, m, sizeof(VersionWriter), cmp_by_session);
		for (i = 0; i + 1 < m; i++)
			if (vw[i].has_process && vw[i + 1].has_process &&
				vw[i].process == vw[i + 1].process)
				add_constraint(s, vw[i].local, vw[i + 1].local);
	}
	if (opt->linearizable_keys)
	{
		uint32		n_done = 0;
		VersionWriter *done = iso_alloc(sizeof(VersionWriter) * m);

		for (i = 0; i < m; i++)
			if (vw[i].complete_time != ISO_NO_TIME)
				done[n_done++] = vw[i];
		qsort(done, n_done, sizeof(VersionWriter), cmp_by_completion);
		for (i = 0; i < m; i++)
		{
			uint32		lo = 0,
						hi = n_done;

			if (vw[i].invoke_time == ISO_NO_TIME)
				continue;
			/* first completion not before the invocation */
			while (lo < hi)
			{
				uint32		mid = lo + (hi - lo) / 2;

				if (done[mid].complete_time < vw[i].invoke_time)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo > 0)
				add_constraint(s, done[lo - 1].local, vw[i].local);
		}
		iso_free(done);
	}
	iso_free(vw);
}

static void
infer_register_key(Builder *b, uint32 key, const IsoVersionLog *log,
				   uint32 log_first, uint32 log_end,
				   const IsoInferOptions *opt, RegScratch *s)
{
	const IsoHistory *h = b->h;
	const uint32 *kops = b->key_ops + b->key_start[key];
	uint32		nk = b->key_start[key + 1] - b->key_start[key];
	uint32		stamp = ++b->epoch;
	uint32		m = 0;
	uint32		n_reads = 0;
	uint32		n_ranked = 0;
	uint32		prev_logged = ISO_NONE;
	bool		log_has_gap = false;
	bool		total;
	uint32		i;

	/* versions: final writes of vertices */
	for (i = 0; i < nk; i++)
	{
		uint32		o = kops[i];

		if (h->ops[o].kind == ISO_OP_WRITE && (b->op_flags[o] & OP_FINAL_WRITE) &&
			op_vertex(b, o) != ISO_NONE)
		{
			m++;
			s->version_op[m] = o;
			b->value_stamp[h->ops[o].value] = stamp;
			b->value_pos[h->ops[o].value] = m;
		}
	}
	s->n_cons = 0;

	/* rule 2: nil precedes every version */
	for (i = 1; i <= m; i++)
		add_constraint(s, 0, i);

	/* rule 1: the log, keeping the order of the versions it names */
	for (i = log_first; i < log_end; i++)
	{
		uint32		lv = local_version(b, log->values[i], stamp);

		if (lv == ISO_NONE)
		{
			/* a logged write of an unproven info txn may be a real version */
			uint32		w = writer_of(b, key, log->values[i]);

			if (w != ISO_NONE && h->txns[op_txn(b, w)].status == ISO_STATUS_INFO &&
				op_vertex(b, w) == ISO_NONE && (b->op_flags[w] & OP_FINAL_WRITE))
				log_has_gap = true;
			continue;
		}
		if (prev_logged != ISO_NONE)
			add_constraint(s, prev_logged, lv);
		prev_logged = lv;
	}

	/* reads: anomalies, wr edges; rule 3: write-follows-read */
	for (i = 0; i < nk; i++)
	{
		uint32		o = kops[i];
		const IsoOp *op = &h->ops[o];
		uint32		rv = op_vertex(b, o);
		uint32		lv = ISO_NONE;

		if (op->kind != ISO_OP_READ || !(b->op_flags[o] & OP_EXTERNAL_READ) ||
			rv == ISO_NONE || op->list_len >= 0)
			continue;
		/* an info txn's nil read means "unknown" (Jepsen), not the initial state */
		if (op->value == ISO_NONE && h->txns[op->txn].status != ISO_STATUS_OK)
			continue;
		if (op->value != ISO_NONE)
		{
			uint32		w = writer_of(b, key, op->value);

			if (w == ISO_NONE)
				add_anomaly(b, ISO_ANOM_GARBAGE_READ, key, op->value, o, ISO_NONE);
			else if (op_txn(b, w) == op->txn)
				add_anomaly(b, ISO_ANOM_INTERNAL, key, op->value, o, w);
			else if (h->txns[op_txn(b, w)].status == ISO_STATUS_FAIL)
				add_anomaly(b, ISO_ANOM_G1A, key, op->value, o, w);
			else if (!(b->op_flags[w] & OP_FINAL_WRITE))
			{
				/* not a version, but the reader did see the writer's effect */
				add_anomaly(b, ISO_ANOM_G1B, key, op->value, o, w);
				add_edge(b, op_vertex(b, w), rv, ISO_EDGE_WR, key, w, o);
			}
			else
			{
				lv = local_version(b, op->value, stamp);
				add_edge(b, op_vertex(b, w), rv, ISO_EDGE_WR, key, w, o);
			}
		}
		else
			lv = 0;
		s->reads[n_reads] = o;
		s->read_version[n_reads] = lv;
		n_reads++;
		if (lv == ISO_NONE)
			continue;
		if (b->op_flags[o] & OP_TXN_WRITES_KEY)
		{
			uint32		j;

			/* the txn's final write of the key follows in its group */
			for (j = i + 1; j < nk && op_txn(b, kops[j]) == op->txn; j++)
				if (b->op_flags[kops[j]] & OP_FINAL_WRITE)
					add_constraint(s, lv, local_version(b, h->ops[kops[j]].value, stamp));
			s->ranked[n_ranked].rank = lv;
			s->ranked[n_ranked].op = o;
			n_ranked++;
		}
	}
	report_lost_updates(b, key, s->ranked, n_ranked);

	assumed_constraints(b, s, m, opt);

	if (!order_versions(s, m, &total))
	{
		add_anomaly(b, ISO_ANOM_CYCLIC_VERSIONS, key, ISO_NONE,
					m > 0 ? s->version_op[1] : ISO_NONE, ISO_NONE);
		return;
	}

	if (total && !log_has_gap)
	{
		/* one order: ww between neighbours, rw to each read's successor */
		for (i = 2; i <= m; i++)
			add_edge(b, op_vertex(b, s->version_op[s->order[i - 1]]),
					 op_vertex(b, s->version_op[s->order[i]]), ISO_EDGE_WW, key,
					 s->version_op[s->order[i - 1]], s->version_op[s->order[i]]);
		for (i = 0; i < n_reads; i++)
		{
			uint32		lv = s->read_version[i];
			uint32		next;

			if (lv == ISO_NONE || s->rank[lv] >= m)
				continue;
			next = s->order[s->rank[lv] + 1];
			add_edge(b, op_vertex(b, s->reads[i]), op_vertex(b, s->version_op[next]),
					 ISO_EDGE_RW, key, s->reads[i], s->version_op[next]);
		}
		return;
	}

	/* partial order: ww along each known pair; rw unknown */
	for (i = 0; i < s->n_cons; i++)
		if (s->cons_from[i] != 0)
			add_edge(b, op_vertex(b, s->version_op[s->cons_from[i]]),
					 op_vertex(b, s->version_op[s->cons_to[i]]), ISO_EDGE_WW, key,
					 s->version_op[s->cons_from[i]], s->version_op[s->cons_to[i]]);
	if (m > 0)
		b->out->unknown_order_keys++;
}

static void
infer_registers(Builder *b, const IsoVersionLog *log, const IsoInferOptions *opt)
{
	const IsoHistory *h = b->h;
	RegScratch	s;
	uint32		n = h->n_ops + 2;
	uint32		li = 0;
	uint32		k;

	s.version_op = iso_alloc(sizeof(uint32) * n);
	s.cap_cons = 1024;
	s.cons_from = iso_alloc(sizeof(uint32) * s.cap_cons);
	s.cons_to = iso_alloc(sizeof(uint32) * s.cap_cons);
	s.indeg = iso_alloc(sizeof(uint32) * n);
	s.adj_start = iso_alloc(sizeof(uint32) * (n + 1));
	s.order = iso_alloc(sizeof(uint32) * n);
	s.rank = iso_alloc(sizeof(uint32) * n);
	s.queue = iso_alloc(sizeof(uint32) * n);
	s.reads = iso_alloc(sizeof(uint32) * n);
	s.read_version = iso_alloc(sizeof(uint32) * n);
	s.ranked = iso_alloc(sizeof(RankedRead) * n);
	s.sort_buf = iso_alloc(sizeof(uint32) * n);
	s.adj = NULL;
	s.cap_adj = 0;

	for (k = 0; k < h->keys.n; k++)
	{
		uint32		lf;

		/* the log is sorted by key id; skip entries of unknown keys */
		while (li < log->n && log->keys[li] < k)
			li++;
		lf = li;
		while (li < log->n && log->keys[li] == k)
			li++;
		infer_register_key(b, k, log, lf, li, opt, &s);
		ISO_CHECK_INTERRUPTS();
	}
	iso_free(s.version_op);
	iso_free(s.cons_from);
	iso_free(s.cons_to);
	iso_free(s.indeg);
	iso_free(s.adj_start);
	iso_free(s.order);
	iso_free(s.rank);
	iso_free(s.queue);
	iso_free(s.reads);
	iso_free(s.read_version);
	iso_free(s.ranked);
	iso_free(s.sort_buf);
	if (s.adj)
		iso_free(s.adj);
}

/* ---------------------------------------------------------------------
 * Step 5: session order and real-time order
 * --------------------------------------------------------------------- */

static const IsoHistory *sort_history;
static const uint32 *sort_vertex_txn;

static int
cmp_vertex_session(const void *a, const void *b)
{
	const IsoTxn *x = &sort_history->txns[sort_vertex_txn[*(const uint32 *) a]];
	const IsoTxn *y = &sort_history->txns[sort_vertex_txn[*(const uint32 *) b]];

	if (x->process != y->process)
		return x->process < y->process ? -1 : 1;
	return x->txn_id < y->txn_id ? -1 : (x->txn_id > y->txn_id);
}

/* Last vertex seen of each process: open addressing on the process id. */
typedef struct ProcessSlot
{
	int64		process;
	uint32		last;			/* vertex + 1; 0 = empty slot */
} ProcessSlot;

/*
 * so: consecutive vertices of one process, in txn_id order.  Vertices are
 * numbered in txn order, which is txn_id order when the history comes from
 * iso_event; then one pass with a per-process "last vertex" table does it.
 * Otherwise (standalone callers) sort first.
 */
static void
add_session_edges(Builder *b)
{
	const IsoHistory *h = b->h;
	IsoInference *out = b->out;
	uint32		nv = out->n_vertices;
	uint32	   *vs = iso_alloc(sizeof(uint32) * Max(nv, 1));
	uint32		n = 0;
	uint32		nslots = 64;
	ProcessSlot *slots;
	bool		sorted = true;
	uint32		v;

	for (v = 0; v < nv; v++)
	{
		if ((v & 0xffff) == 0)
			ISO_CHECK_INTERRUPTS();
		if (!h->txns[out->vertex_txn[v]].has_process)
			continue;
		if (n > 0 && h->txns[out->vertex_txn[vs[n - 1]]].txn_id >
			h->txns[out->vertex_txn[v]].txn_id)
			sorted = false;
		vs[n++] = v;
	}
	if (!sorted)
	{
		sort_history = h;
		sort_vertex_txn = out->vertex_txn;
		qsort(vs, n, sizeof(uint32), cmp_vertex_session);
		for (v = 0; v + 1 < n; v++)
		{
			if ((v & 0xffff) == 0)
				ISO_CHECK_INTERRUPTS();
			if (h->txns[out->vertex_txn[vs[v]]].process ==
				h->txns[out->vertex_txn[vs[v + 1]]].process)
				add_edge(b, vs[v], vs[v + 1], ISO_EDGE_SO, ISO_NO_KEY, ISO_NONE, ISO_NONE);
		}
		iso_free(vs);
		return;
	}

	while (nslots < 2 * Min(n, PG_UINT32_MAX / 4) + 2)
		nslots *= 2;
	slots = iso_alloc0(sizeof(ProcessSlot) * nslots);
	for (v = 0; v < n; v++)
	{
		int64		p = h->txns[out->vertex_txn[vs[v]]].process;
		uint32		i = (uint32) (mix64((uint64) p) & (nslots - 1));

		if ((v & 0xffff) == 0)
			ISO_CHECK_INTERRUPTS();
		while (slots[i].last != 0 && slots[i].process != p)
			i = (i + 1) & (nslots - 1);
		if (slots[i].last != 0)
			add_edge(b, slots[i].last - 1, vs[v], ISO_EDGE_SO, ISO_NO_KEY, ISO_NONE, ISO_NONE);
		slots[i].process = p;
		slots[i].last = vs[v] + 1;
	}
	iso_free(slots);
	iso_free(vs);
}

/*
 * rt: T1 -> T2 when T1 completed before T2 was invoked, as a transitive
 * reduction when that is small, else through time points (realtime.c).
 */
static void
add_realtime_edges(Builder *b)
{
	IsoInference *out = b->out;

	iso_realtime_edges(b->h, out->vertex_txn, NULL, out->n_vertices,
					   ISO_RT_LIMIT(out->n_vertices),
					   out->n_vertices, true, &b->edges, &out->realtime);
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
		infer_lists(&b);
	else
		infer_registers(&b, log ? log : &empty_log, options);

	add_session_edges(&b);
	add_realtime_edges(&b);

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
