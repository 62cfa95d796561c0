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
#include <sched.h>

#include "port.h"

#include "infer_int.h"

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

	b->op_flags = iso_alloc(Max(h->n_ops, 1));
	/*
	 * Without a jump on the op's kind: kinds come in no order the processor
	 * can guess, and a jump per op mispredicted was most of this step (98
	 * ms of 8M ops).  Each flag is computed from comparisons, and a table
	 * entry rewritten with the value it keeps when nothing changes.
	 */
	for (t = 0; t < h->n_txns; t++)
	{
		const IsoTxn *txn = &h->txns[t];
		const IsoOp *ops = h->ops + txn->first_op;
		uint8	   *flags = b->op_flags + txn->first_op;
		uint32		stamp = t + 1;
		int64		i;

		/* backwards: the first write seen is the final one */
		for (i = (int64) txn->n_ops - 1; i >= 0; i--)
		{
			uint32		k = ops[i].key;
			uint32		is_write = ops[i].kind != ISO_OP_READ;
			uint32		final = is_write & (written[k] != stamp);

			written[k] = is_write ? stamp : written[k];
			flags[i] = (uint8) (final * OP_FINAL_WRITE);
		}
		/* forwards: the first access of a key, if a read, is external */
		for (i = 0; i < txn->n_ops; i++)
		{
			uint32		k = ops[i].key;
			uint32		external = (ops[i].kind == ISO_OP_READ) & (first_seen[k] != stamp);

			first_seen[k] = stamp;
			flags[i] |= (uint8) (external * OP_EXTERNAL_READ |
								 (external & (written[k] == stamp)) * OP_TXN_WRITES_KEY);
		}
		if ((t & 0xffff) == 0)
			ISO_CHECK_INTERRUPTS();
	}
	iso_free(first_seen);
	iso_free(written);
}

/*
 * The ops grouped by key (a counting sort of op indices, stable, so in txn
 * order per key), into tables given to it: key_start (n_keys + 1, zeroed),
 * key_ops (n_ops) and fill (n_keys).  It allocates nothing and calls no
 * host function, so that the helper thread can run it beside the next
 * steps (prefault_edges_start); false if *stop was set first.
 */
typedef struct KeyGroups
{
	uint32	   *key_start;
	uint32	   *key_ops;
	uint32	   *fill;
} KeyGroups;

static void
key_groups_alloc(KeyGroups *g, const IsoHistory *h)
{
	g->key_start = iso_alloc0(sizeof(uint32) * ((uint64) h->keys.n + 1));
	g->key_ops = iso_alloc(sizeof(uint32) * Max(h->n_ops, 1));
	g->fill = iso_alloc(sizeof(uint32) * Max(h->keys.n, 1));
}

static void
key_groups_free(KeyGroups *g)
{
	iso_free(g->key_start);
	iso_free(g->key_ops);
	iso_free(g->fill);
	memset(g, 0, sizeof(*g));
}

static bool
group_ops_into(const IsoOp *ops, uint32 n_ops, uint32 n_keys, const KeyGroups *g,
			   const int *stop)
{
	/*
	 * (In locals: the server is built with -fno-strict-aliasing, so each
	 * store into the tables would make the compiler load g's fields again.)
	 */
	uint32	   *key_start = g->key_start;
	uint32	   *key_ops = g->key_ops;
	uint32	   *fill = g->fill;
	uint32		i;

	for (i = 0; i < n_ops; i++)
	{
		key_start[ops[i].key + 1]++;
		if ((i & 0xffff) == 0 && stop && __atomic_load_n(stop, __ATOMIC_RELAXED))
			return false;
	}
	for (i = 0; i < n_keys; i++)
		key_start[i + 1] += key_start[i];
	memcpy(fill, key_start, sizeof(uint32) * n_keys);
	for (i = 0; i < n_ops; i++)
	{
		key_ops[fill[ops[i].key]++] = i;
		if ((i & 0xffff) == 0 && stop && __atomic_load_n(stop, __ATOMIC_RELAXED))
			return false;
	}
	return true;
}

/* The grouped tables are the builder's from now on. */
static void
take_key_groups(Builder *b, KeyGroups *g)
{
	b->key_start = g->key_start;
	b->key_ops = g->key_ops;
	iso_free(g->fill);
	memset(g, 0, sizeof(*g));
}

/* The grouping on this thread. */
static void
group_ops_by_key(Builder *b)
{
	KeyGroups	g;

	key_groups_alloc(&g, b->h);
	(void) group_ops_into(b->h->ops, b->h->n_ops, b->h->keys.n, &g, NULL);
	take_key_groups(b, &g);
}

/* ---------------------------------------------------------------------
 * Step 2: vertices (ok, and info proven committed by a vertex's read)
 * --------------------------------------------------------------------- */

/*
 * The writes of info transactions, (key, value) -> op: the only writes a
 * read can prove, in a table small enough to stay in the caches (the write
 * map of the whole history is probed at random otherwise).
 */
typedef struct InfoWrites
{
	uint64	   *keys;			/* (key << 32 | value) + 1; 0 = empty */
	uint32	   *ops;
	uint64		mask;
} InfoWrites;

static inline uint64
info_write_key(uint32 key, uint32 value)
{
	return (((uint64) key << 32) | value) + 1;
}

/* The ops of info transactions: a bound on their writes. */
static uint64
info_write_count(const IsoHistory *h)
{
	uint64		n = 0;
	uint32		t;

	for (t = 0; t < h->n_txns; t++)
		if (h->txns[t].status == ISO_STATUS_INFO)
			n += h->txns[t].n_ops;
	return n;
}

static void
info_writes_build(const IsoHistory *h, InfoWrites *iw)
{
	uint64		n = info_write_count(h);
	uint64		nslots = 64;
	uint32		t,
				i;

	while (nslots < n * 2)
		nslots *= 2;
	iw->keys = iso_alloc0(sizeof(uint64) * nslots);
	iw->ops = iso_alloc(sizeof(uint32) * nslots);
	iw->mask = nslots - 1;
	for (t = 0; t < h->n_txns; t++)
	{
		if (h->txns[t].status != ISO_STATUS_INFO)
			continue;
		for (i = 0; i < h->txns[t].n_ops; i++)
		{
			uint32		o = h->txns[t].first_op + i;
			const IsoOp *op = &h->ops[o];
			uint64		k,
						q;

			if (op->kind == ISO_OP_READ)
				continue;
			/* the write map is built: each (key, value) is written once */
			k = info_write_key(op->key, op->value);
			q = mix64(k) & iw->mask;
			while (iw->keys[q] != 0)
				q = (q + 1) & iw->mask;
			iw->keys[q] = k;
			iw->ops[q] = o;
		}
	}
}

/*
 * A bit per hash of each (key, value) an info transaction wrote, 16 bits a
 * write: what the dense bit table (find_vertices) does when keys x values
 * is too large for it, in a table the size of the info writes.  A set bit
 * may be another pair's (about 6 % of the pairs tested): the write map
 * decides.
 */
typedef struct InfoFilter
{
	uint64	   *bits;
	uint64		mask;			/* of bit numbers */
} InfoFilter;

static void
info_filter_init(InfoFilter *f, uint64 n_writes)
{
	uint64		nbits = 4096;

	while (nbits < n_writes * 16)
		nbits *= 2;
	f->bits = iso_alloc0(sizeof(uint64) * (nbits / 64));
	f->mask = nbits - 1;
}

static inline uint64
info_filter_bit(const InfoFilter *f, uint32 key, uint32 value)
{
	return (mix64(info_write_key(key, value)) >> 20) & f->mask;
}

static inline void
info_filter_add(InfoFilter *f, uint32 key, uint32 value)
{
	uint64		b = info_filter_bit(f, key, value);

	f->bits[b / 64] |= UINT64_C(1) << (b % 64);
}

static inline bool
info_filter_has(const InfoFilter *f, uint32 key, uint32 value)
{
	uint64		b = info_filter_bit(f, key, value);

	return (f->bits[b / 64] >> (b % 64)) & 1;
}

/*
 * The list elements of each key tested already, as the region of elems
 * (list_first) and how many of its first elements: a key's reads mostly
 * repeat or extend its last one and share its region (history.c), so each
 * element is tested about once instead of once for every read that
 * includes it.  (elems does not change during inference: the same
 * list_first and position are the same id.)
 */
typedef struct TestedLists
{
	uint32	   *first;			/* by key: list_first, or ISO_NONE */
	uint32	   *len;
} TestedLists;

/* The first element of op's list not tested yet; the rest count as tested. */
static inline int32
list_untested(TestedLists *t, const IsoOp *op)
{
	uint32		k = op->key;
	uint32		len = (uint32) op->list_len;
	uint32		from = 0;

	if (t->first[k] == op->list_first)
	{
		from = Min(t->len[k], len);
		t->len[k] = Max(t->len[k], len);
	}
	else
	{
		t->first[k] = op->list_first;
		t->len[k] = len;
	}
	return (int32) from;
}

/* If the write of value to key is by an unproven info txn, prove it. */
static void
prove_writer(Builder *b, const InfoWrites *iw, uint32 key, uint32 value,
			 uint32 *worklist, uint32 *n_work)
{
	uint64		k = info_write_key(key, value);
	uint64		q = mix64(k) & iw->mask;
	uint32		w = ISO_NONE;
	uint32		t;

	while (iw->keys[q] != 0)
	{
		if (iw->keys[q] == k)
		{
			w = iw->ops[q];
			break;
		}
		q = (q + 1) & iw->mask;
	}

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
	uint64	   *info_kv = NULL;
	InfoFilter	filter = {NULL, 0};
	TestedLists tested = {NULL, NULL};
	uint64		row_words = ((uint64) h->values.n + 63) / 64;
	uint32		n_work = 0;
	uint32		t;
	uint32		v;
	InfoWrites	iw = {NULL, NULL, 0};

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
		 * And only (key, value) pairs an info transaction wrote can name
		 * one: a bit test spares the write-map lookup of every other list
		 * element, which is nearly all of them.  The bit is exact, a bit
		 * per (key, value), when keys x values is small (at most 8 MB of
		 * bits), else a hash filter.  (A byte per value is not enough:
		 * list-append values repeat across keys, 1, 2, 3... on every key,
		 * so nearly every value is written by some info transaction to
		 * some key.  At 10M transactions, with keys x values past the
		 * dense table, that sent nearly every element to the write map:
		 * 4 % of a check.)
		 */
		info_key = iso_alloc0(Max(h->keys.n, 1));
		tested.first = iso_alloc(sizeof(uint32) * Max(h->keys.n, 1));
		memset(tested.first, 0xFF, sizeof(uint32) * Max(h->keys.n, 1));
		tested.len = iso_alloc0(sizeof(uint32) * Max(h->keys.n, 1));
		if ((uint64) h->keys.n * row_words <= (UINT64_C(1) << 20))
			info_kv = iso_alloc0(sizeof(uint64) * Max((uint64) h->keys.n * row_words, 1));
		else
			info_filter_init(&filter, info_write_count(h));
		info_writes_build(h, &iw);
		for (t = 0; t < h->n_txns; t++)
		{
			uint32		i;

			if (h->txns[t].status != ISO_STATUS_INFO)
				continue;
			for (i = 0; i < h->txns[t].n_ops; i++)
			{
				const IsoOp *op = &h->ops[h->txns[t].first_op + i];

				if (op->kind != ISO_OP_READ && op->value != ISO_NONE)
				{
					info_key[op->key] = 1;
					if (info_kv)
						info_kv[op->key * row_words + op->value / 64] |=
							UINT64_C(1) << (op->value % 64);
					else
						info_filter_add(&filter, op->key, op->value);
				}
			}
		}
	}
	/*
	 * The worklist is a stack: reversed, its first round reads the
	 * committed transactions' ops and list elements forwards, in memory
	 * order (the set proven is the same in any order).
	 */
	for (t = 0; t < n_work / 2; t++)
	{
		uint32		x = worklist[t];

		worklist[t] = worklist[n_work - 1 - t];
		worklist[n_work - 1 - t] = x;
	}
	while (n_work > 0)
	{
		const IsoTxn *txn = &h->txns[worklist[--n_work]];
		/* (locals: the stores below would reload b's and h's fields) */
		const IsoOp *ops = h->ops + txn->first_op;
		const uint8 *flags = b->op_flags + txn->first_op;
		const uint32 *elems = h->elems;
		uint32		n = txn->n_ops;
		uint32		i;

		for (i = 0; i < n; i++)
		{
			const IsoOp *op = &ops[i];
			int32		j;

			if (!(flags[i] & OP_EXTERNAL_READ) || !info_key[op->key])
				continue;
			if (op->list_len < 0)
			{
				if (op->value != ISO_NONE &&
					(info_kv ? (info_kv[op->key * row_words + op->value / 64] >> (op->value % 64)) & 1 :
					 info_filter_has(&filter, op->key, op->value)))
					prove_writer(b, &iw, op->key, op->value, worklist, &n_work);
			}
			else if ((j = list_untested(&tested, op)) >= op->list_len)
				continue;
			else if (info_kv)
			{
				const uint64 *row = info_kv + op->key * row_words;

				for (; j < op->list_len; j++)
				{
					uint32		e = elems[op->list_first + j];

					if ((row[e / 64] >> (e % 64)) & 1)
						prove_writer(b, &iw, op->key, e, worklist, &n_work);
				}
			}
			else
				for (; j < op->list_len; j++)
				{
					uint32		e = elems[op->list_first + j];

					if (info_filter_has(&filter, op->key, e))
						prove_writer(b, &iw, op->key, e, worklist, &n_work);
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
		iso_free(tested.first);
		iso_free(tested.len);
		iso_free(info_kv);
		iso_free(filter.bits);
		iso_free(iw.keys);
		iso_free(iw.ops);
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
	uint32		rlen = (uint32) list_read_len(b, r);
	uint32		i;
	uint32		base;

	if (prev)
	{
		uint32		plen = (uint32) list_read_len(b, prev);

		if (rlen != plen + n_app)
			return false;
		/* reads sharing a region of elems (history.h): same address */
		if (r->list_first != prev->list_first)
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
	uint32		last_write = 0;	/* index in ops of the group's last write */
	uint32		i;

	for (i = 1; i < n; i++)		/* a first-op write has no read before it */
	{
		const IsoOp *op = &h->ops[ops[i]];

		if (op->kind == ISO_OP_READ)
			continue;
		b->value_stamp[op->value] = stamp;
		b->value_pos[op->value] = ops[i];
		last_write = i;
	}
	/* only reads before the last write can show a later write */
	for (i = 0; i < last_write; i++)
	{
		const IsoOp *op = &h->ops[ops[i]];
		int32		len = list_read_len(b, op);
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
			if (list_read_len(b, op) < 0)
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
			{
				prefetch_key_op(h, b->key_ops, j, end);
				j++;
			}
			/* info txns' reads are mostly unknown: check committed ones only */
			if (txn_status(b, t) == ISO_STATUS_OK && j - i > 1)
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

/* Free the builder's tables (those it has), keep the edges. */
static void
builder_free_tables(Builder *b)
{
	void	   *tables[] = {b->writes.keys, b->writes.ops, b->op_flags, b->op_txn,
		b->txn_status, b->key_start, b->key_ops, b->value_stamp, b->value_pos,
	b->dup_stamp};
	size_t		i;

	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		iso_free(tables[i]);
	memset(&b->writes, 0, sizeof(b->writes));
	b->op_flags = NULL;
	b->op_txn = NULL;
	b->txn_status = NULL;
	b->key_start = NULL;
	b->key_ops = NULL;
	b->value_stamp = NULL;
	b->value_pos = NULL;
	b->dup_stamp = NULL;
}

/*
 * The ops grouped by key, then the edge buffer's first pages made
 * resident, on a second thread while this one does the steps before the
 * edges (op flags, vertices, internal consistency), where the second core
 * would be idle.  The grouping reads only the history (and was a fifth of
 * those steps on one thread).  A fresh page costs far more on first touch
 * than its zeroing, in a virtual machine most of all (10M transactions:
 * half of the list keys' time was the kernel zeroing the buffer's pages as
 * edges arrived).  As many edges as the history is estimated to make
 * (list_edges_estimate), where the two threads' shares will put them
 * (infer_keys_parallel), so that few pages are made resident that the
 * edges would not have touched.
 */
struct Prefault
{
	/*
	 * The history's ops, copied: the history itself may be on the first
	 * thread's stack, which an error unwinds before the helper is stopped
	 * (its arrays are in the memory context whose reset stops it).
	 */
	const IsoOp *ops;
	uint32		n_ops;
	uint32		n_keys;
	char	   *base;
	uint64		cap;			/* edges the buffer holds */
	uint64		estimate;		/* list_edges_estimate, by the helper */
	KeyGroups	groups;			/* the ops grouped by key, by the helper */
	int			grouped;		/* set (release) once groups is complete */
	int			stop;
	IsoHelper  *helper;
};

#define PREFAULT_PAGE	4096

/*
 * The list edges a history is about to make: an append gives a ww edge, a
 * read a wr and mostly an rw (1.31 an op in bench/run's histories, whose
 * estimate is 1.30).  infer_list.c lays the two threads' shares out by it.
 */
static uint64
list_edges_estimate(const IsoOp *ops, uint32 n_ops)
{
	uint64		appends = 0,
				reads = 0;
	uint32		i;

	for (i = 0; i < n_ops; i++)
	{
		if (ops[i].kind == ISO_OP_READ)
			reads++;
		else
			appends++;
	}
	return appends + reads * 8 / 5;
}

#define PREFAULT_CHUNK	((uint64) 1 << 20)

static void
prefault_pages(void *arg)
{
	Prefault   *pf = arg;
	uint64		share_bytes;
	uint64		helper_at;
	uint64		off;
	char	   *share[2];

	/*
	 * The grouping by key first (the first thread needs it after the op
	 * flags and the vertices: key_groups_beside), then the estimate, then
	 * the pages of the two shares, a chunk of each in turn, until done or
	 * stopped (prefault_edges_end stops it when this thread's steps are
	 * done: what is left is faulted in by the list keys' two threads as
	 * they go, each its own share's).
	 */
	if (!group_ops_into(pf->ops, pf->n_ops, pf->n_keys, &pf->groups, &pf->stop))
		return;
	__atomic_store_n(&pf->grouped, 1, __ATOMIC_RELEASE);
	pf->estimate = list_edges_estimate(pf->ops, pf->n_ops);
	/* (where infer_keys_parallel begins the helper's share, for half the ops) */
	helper_at = helper_share_start(pf->estimate, pf->n_ops / 2, pf->n_ops);
	if (helper_at + pf->estimate / 2 > pf->cap)
		return;
	share_bytes = sizeof(IsoEdge) * (pf->estimate / 2);
	share[0] = pf->base;
	share[1] = pf->base + sizeof(IsoEdge) * helper_at;
	for (off = 0; off < share_bytes; off += PREFAULT_CHUNK)
	{
		int			i;
		uint64		p;

		if (__atomic_load_n(&pf->stop, __ATOMIC_RELAXED))
			return;
		for (i = 0; i < 2; i++)
			for (p = off; p < Min(off + PREFAULT_CHUNK, share_bytes); p += PREFAULT_PAGE)
				/* a write, so the page is there for writing; its bytes are no one's yet */
				((volatile char *) share[i])[p] = 0;
	}
}

static Prefault *
prefault_edges_start(Builder *b)
{
	Prefault   *pf;

	if (b->h->workload != ISO_WORKLOAD_LIST_APPEND || b->parallel == ISO_PARALLEL_OFF ||
		(b->parallel == ISO_PARALLEL_AUTO && b->h->n_ops < ISO_PARALLEL_MIN_OPS))
		return NULL;
	/* (allocated, not on this stack: an error may leave iso_infer first) */
	pf = iso_alloc(sizeof(Prefault));
	pf->ops = b->h->ops;
	pf->n_ops = b->h->n_ops;
	pf->n_keys = b->h->keys.n;
	pf->base = (char *) b->edges.edges;
	pf->cap = b->edges.cap;
	pf->estimate = 0;
	key_groups_alloc(&pf->groups, b->h);
	pf->grouped = 0;
	pf->stop = 0;
	pf->helper = iso_host_helper_start(prefault_pages, pf, &pf->stop);
	if (pf->helper == NULL)
	{
		key_groups_free(&pf->groups);
		iso_free(pf);
		return NULL;
	}
	return pf;
}

/* Stop it and wait: the edges go into the buffer next. */
static void
prefault_edges_end(Builder *b, Prefault *pf)
{
	if (pf == NULL)
		return;
	__atomic_store_n(&pf->stop, 1, __ATOMIC_RELAXED);
	iso_host_helper_join(pf->helper);
	b->list_edges_estimate = pf->estimate;
	key_groups_free(&pf->groups);	/* (the builder's already, if grouped) */
	iso_free(pf);
}

/*
 * The ops grouped by key: the helper's tables if it is done with them (the
 * op flags and the vertices, before, take longer than the grouping: at 1M
 * transactions 160 against 80 ms), else, all the rest of the helper's work
 * stopped, grouped again on this thread.  Tests (ISO_PARALLEL_ALWAYS) wait
 * for the helper instead, so that its tables are the ones used: in small
 * histories the helper has barely started by then.
 */
static void
key_groups_beside(Builder *b, Prefault **pf)
{
	if (*pf == NULL)
		return;
	if (b->parallel == ISO_PARALLEL_ALWAYS)
		while (!__atomic_load_n(&(*pf)->grouped, __ATOMIC_ACQUIRE))
			sched_yield();
	if (__atomic_load_n(&(*pf)->grouped, __ATOMIC_ACQUIRE))
	{
		take_key_groups(b, &(*pf)->groups);
		return;
	}
	prefault_edges_end(b, *pf);
	*pf = NULL;
	group_ops_by_key(b);
}

/* ---------------------------------------------------------------------
 * Entry point
 * --------------------------------------------------------------------- */

bool
iso_infer(const IsoHistory *h, const IsoVersionLog *log,
		  const IsoInferOptions *options, IsoInference *out, IsoParseError *err)
{
	Builder		b;
	Prefault   *prefault;
	IsoVersionLog empty_log = {0, NULL, NULL};
	uint32		n_values = Max(h->values.n, 1);

	memset(out, 0, sizeof(*out));
	memset(&b, 0, sizeof(b));
	b.h = h;
	b.out = out;
	if (options)
	{
		b.parallel = options->parallel_keys;
		b.parallel_room = options->parallel_test_room;
	}
	b.op_txn = iso_history_op_txns(h);
	b.txn_status = iso_alloc(Max(h->n_txns, 1));
	{
		uint32		t;

		for (t = 0; t < h->n_txns; t++)
			b.txn_status[t] = (uint8) h->txns[t].status;
	}

	/*
	 * Unique writes (step 0).  A list-append history looks its writers up
	 * key by key (infer_list.c), so the write map of the whole history
	 * (16 bytes a slot, two slots a write) serves only to name a duplicate:
	 * the key-by-key walk finds whether there is one, and only then is the
	 * map built, to name the first one as before.
	 */
	if (h->workload != ISO_WORKLOAD_LIST_APPEND &&
		!iso_infer_build_write_map(&b, err))
	{
		builder_free_tables(&b);
		return false;
	}
	/* data edges are about 2 per op, real-time ones a few per txn: one
	 * allocation up front (pages are only touched as edges arrive) */
	iso_edgebuf_init(&b.edges, (uint64) h->n_ops * 3 + 16);
	/* (large list-append histories: the helper groups the ops by key) */
	prefault = prefault_edges_start(&b);
	mark_op_flags(&b);
	if (prefault == NULL)
		group_ops_by_key(&b);
	find_vertices(&b);

	b.value_stamp = iso_alloc0(sizeof(uint32) * n_values);
	b.value_pos = iso_alloc(sizeof(uint32) * n_values);
	b.dup_stamp = iso_alloc0(sizeof(uint32) * n_values);

	key_groups_beside(&b, &prefault);
	check_internal(&b);

	prefault_edges_end(&b, prefault);
	if (h->workload == ISO_WORKLOAD_LIST_APPEND)
	{
		if (!iso_infer_lists(&b))
		{
			/* a value written twice: the map names the first one */
			if (iso_infer_build_write_map(&b, err))
				iso_host_internal_error("a value written twice that the write map does not find");
			builder_free_tables(&b);
			iso_free(b.edges.edges);
			iso_free(out->txn_vertex);
			iso_free(out->vertex_txn);
			iso_free(out->anomalies);
			memset(out, 0, sizeof(*out));
			return false;
		}
	}
	else
		iso_infer_registers(&b, log ? log : &empty_log, options);

	/*
	 * The builder's tables serve the data edges only: they go before the
	 * session and real-time edges, whose time points, with the edge buffer
	 * at its fullest, are the peak of a check (1M list-append txns: 1132 ->
	 * 1059 MB after the parse).
	 */
	builder_free_tables(&b);

	iso_infer_session_edges(&b);
	if (options && options->defer_realtime)
	{
		/* the graph waits: a history that holds never needs it whole */
		iso_infer_defer_realtime(&b);
		return true;
	}
	iso_infer_realtime_edges(&b);
	iso_host_return_free_memory();

	if (options && options->unsorted_graph)
		iso_graph_finish_unsorted(&out->graph, out->n_vertices + out->realtime.n_points,
								  &b.edges, h);
	else
		iso_graph_finish(&out->graph, out->n_vertices + out->realtime.n_points,
						 &b.edges, h);
	return true;
}
