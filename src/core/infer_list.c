/*
 * infer_list.c
 *	  The graph builder for list-append keys: the known order of each key,
 *	  its ww/wr/rw edges and the anomalies of list reads (docs/semantics.md).
 */
#include "port.h"

#include "infer_int.h"

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
	uint32	   *w_stamp;		/* per value: w_epoch when w_op holds its writer */
	uint32	   *w_op;			/* per value: the key's write of it */
	uint32		w_epoch;
} ListScratch;

/*
 * The writes of one key by value, so that the key's lookups are an array
 * read rather than a probe of the whole history's write map at random.
 * False if the key has a value written twice: the map, which names the
 * first such write of the history, is then built to report it (infer.c);
 * this walk over every key is the history's test of unique writes.
 */
static bool
key_writers(Builder *b, uint32 key, ListScratch *s)
{
	const IsoHistory *h = b->h;
	const uint32 *kops = b->key_ops + b->key_start[key];
	uint32		nk = b->key_start[key + 1] - b->key_start[key];
	uint32		i;

	s->w_epoch++;
	for (i = 0; i < nk; i++)
	{
		const IsoOp *op = &h->ops[kops[i]];

		prefetch_key_op(h, kops, i, nk);
		if (op->kind == ISO_OP_READ || op->value == ISO_NONE)
			continue;
		if (s->w_stamp[op->value] == s->w_epoch)
			return false;
		s->w_stamp[op->value] = s->w_epoch;
		s->w_op[op->value] = kops[i];
	}
	return true;
}

static inline uint32
key_writer_of(const ListScratch *s, uint32 value)
{
	return s->w_stamp[value] == s->w_epoch ? s->w_op[value] : ISO_NONE;
}

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

		prefetch_key_op(h, kops, i, nk);
		if (op->kind != ISO_OP_READ || op_vertex(b, o) == ISO_NONE)
			continue;
		len = list_read_len(b, op);
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
 * with their position.  Returns the number of elements; *dup_at is the
 * index of the first repeated copy in the longest read, or -1.
 */
static uint32
known_order(Builder *b, uint32 key, uint32 longest, ListScratch *s, uint32 *stamp,
			int32 *dup_at)
{
	const IsoHistory *h = b->h;
	const IsoOp *L = &h->ops[longest];
	const uint32 *le = h->elems + L->list_first;
	int32		len = list_read_len(b, L);
	uint32		n = 0;
	int32		i;

	*stamp = ++b->epoch;
	*dup_at = -1;
	for (i = 0; i < len; i++)
	{
		if (b->value_stamp[le[i]] == *stamp)
		{
			if (*dup_at < 0)
			{
				*dup_at = i;
				iso_infer_add_anomaly(b, ISO_ANOM_DUPLICATE_ELEMENTS, key, le[i],
									  longest, ISO_NONE);
			}
			continue;
		}
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
				  int32 dup_at, ListScratch *s)
{
	const IsoHistory *h = b->h;
	const IsoOp *L = &h->ops[longest];
	const uint32 *le = h->elems + L->list_first;
	int32		llen = list_read_len(b, L);
	/* a prefix of the longest holds its duplicate if it reaches the copy */
	uint32		longest_dup = dup_at >= 0 ? le[dup_at] : ISO_NONE;
	uint32		i;

	for (i = 0; i < n_reads; i++)
	{
		const IsoOp *r = &h->ops[s->reads[i]];
		const uint32 *re = h->elems + r->list_first;
		int32		len = list_read_len(b, r);
		bool		prefix = len <= llen;
		int32		at;
		uint32		dup;

		/* reads sharing a region of elems (history.h): same address */
		if (prefix && len > 0 && re != le)
			prefix = memcmp(re, le, sizeof(uint32) * (size_t) len) == 0;
		s->compatible[i] = prefix;
		if (prefix)
		{
			if (dup_at >= 0 && len > dup_at && s->reads[i] != longest)
				iso_infer_add_anomaly(b, ISO_ANOM_DUPLICATE_ELEMENTS, key, longest_dup,
							s->reads[i], ISO_NONE);
		}
		else if (has_duplicate(b, r, len, &dup, &at))
			iso_infer_add_anomaly(b, ISO_ANOM_DUPLICATE_ELEMENTS, key, dup, s->reads[i], ISO_NONE);
		else
			iso_infer_add_anomaly(b, ISO_ANOM_INCOMPATIBLE_ORDER, key, ISO_NONE, s->reads[i],
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
		uint32		w = key_writer_of(s, s->known[i]);
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
			iso_infer_add_anomaly(b, ISO_ANOM_INCOMPATIBLE_ORDER, key,
						h->ops[s->txn_last_op[t]].value, longest, w);
			misordered = true;
		}
		s->txn_stamp[t] = key + 1;
		s->txn_last_op[t] = w;

		if (txn_status(b, t) == ISO_STATUS_FAIL)
		{
			if (first_fail == ISO_NONE)
				first_fail = i;
		}
		else if (first_fail != ISO_NONE && op_vertex(b, w) != ISO_NONE)
			iso_infer_add_anomaly(b, ISO_ANOM_DIRTY_UPDATE, key, s->known[i], w,
						s->elem_op[first_fail]);
	}
	if (first_garbage != ISO_NONE)
	{
		/* report once, with the shortest compatible read that shows it */
		uint32		shower = longest;

		for (i = 0; i < n_reads; i++)
		{
			int32		len = list_read_len(b, &h->ops[s->reads[i]]);

			if (s->compatible[i] && len > 0 &&
				b->value_pos[h->elems[h->ops[s->reads[i]].list_first + len - 1]] >=
				first_garbage &&
				len < list_read_len(b, &h->ops[shower]))
				shower = s->reads[i];
		}
		iso_infer_add_anomaly(b, ISO_ANOM_GARBAGE_READ, key, s->known[first_garbage], shower,
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
check_foreign_elements(Builder *b, uint32 key, uint32 ro, uint32 stamp,
					   const ListScratch *s)
{
	const IsoHistory *h = b->h;
	const IsoOp *r = &h->ops[ro];
	int32		len = list_read_len(b, r);
	int32		j;

	for (j = 0; j < len; j++)
	{
		uint32		e = h->elems[r->list_first + j];
		uint32		w;

		if (b->value_stamp[e] == stamp)
			continue;
		w = key_writer_of(s, e);
		if (w == ISO_NONE)
			iso_infer_add_anomaly(b, ISO_ANOM_GARBAGE_READ, key, e, ro, ISO_NONE);
		else if (txn_status(b, op_txn(b, w)) == ISO_STATUS_FAIL)
			iso_infer_add_anomaly(b, ISO_ANOM_G1A, key, e, ro, w);
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
	int32		len = list_read_len(b, r);
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
			iso_infer_add_anomaly(b, ISO_ANOM_G1A, key, s->known[first_fail], ro,
						s->elem_op[first_fail]);
	}
	else if (last != ISO_NONE)
		w = key_writer_of(s, last);
	else
		next = 0;
	if (!s->compatible[i])
		check_foreign_elements(b, key, ro, stamp, s);

	if (w != ISO_NONE)
	{
		if (!(b->op_flags[w] & OP_FINAL_WRITE) && op_txn(b, w) != op_txn(b, ro) &&
			txn_status(b, op_txn(b, w)) != ISO_STATUS_FAIL)
			iso_infer_add_anomaly(b, ISO_ANOM_G1B, key, last, ro, w);
		iso_infer_add_edge(b, op_vertex(b, w), rv, ISO_EDGE_WR, key, w, ro);
	}
	/*
	 * A read of the reader's own version (a read after its own append)
	 * gives no rw edge: the next appender already follows it by ww, and a
	 * cycle through that rw edge would only repeat one through the ww edge
	 * under a weaker name.
	 */
	if (w != ISO_NONE && op_txn(b, w) == op_txn(b, ro))
		next = ISO_NONE;
	if (next != ISO_NONE && s->next_vertex[next] != ISO_NONE)
		iso_infer_add_edge(b, rv, op_vertex(b, s->elem_op[s->next_vertex[next]]), ISO_EDGE_RW,
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

/* The key's edges and anomalies; false if a value is written to it twice. */
static bool
infer_list_key(Builder *b, uint32 key, ListScratch *s)
{
	const IsoHistory *h = b->h;
	const uint32 *kops = b->key_ops + b->key_start[key];
	uint32		nk = b->key_start[key + 1] - b->key_start[key];
	uint32		longest = ISO_NONE;
	uint32		n_reads;
	uint32		n;
	uint32		stamp;
	int32		dup_at;
	uint32		first_fail;
	uint32		last_vertex_elem = ISO_NONE;
	uint32		n_ranked = 0;
	uint32		n_full = 0;
	uint32		i;

	if (!key_writers(b, key, s))
		return false;
	n_reads = collect_list_reads(b, key, s, &longest);
	if (n_reads == 0)
		return true;
	n = known_order(b, key, longest, s, &stamp, &dup_at);
	check_read_orders(b, key, n_reads, longest, dup_at, s);
	first_fail = known_order_writers(b, key, n, longest, n_reads, s);

	/* ww along the known order, between consecutive vertex elements */
	for (i = 0; i < n; i++)
	{
		if (s->next_vertex[i] != i)
			continue;
		if (last_vertex_elem != ISO_NONE)
			iso_infer_add_edge(b, op_vertex(b, s->elem_op[last_vertex_elem]),
					 op_vertex(b, s->elem_op[i]), ISO_EDGE_WW, key,
					 s->elem_op[last_vertex_elem], s->elem_op[i]);
		last_vertex_elem = i;
	}

	for (i = 0; i < n_reads; i++)
		list_read_edges(b, key, i, n, first_fail, stamp, s, &n_ranked, &n_full);
	iso_infer_report_lost_updates(b, key, s->ranked, n_ranked);

	/*
	 * Appends by vertices that no read shows come after the known order:
	 * the readers of its last version read a state they overwrote.
	 */
	for (i = 0; i < nk; i++)
	{
		uint32		o = kops[i];
		const IsoOp *op = &h->ops[o];
		uint32		v;
		uint32		j;

		prefetch_key_op(h, kops, i, nk);
		if (op->kind != ISO_OP_APPEND || b->value_stamp[op->value] == stamp)
			continue;
		v = op_vertex(b, o);
		if (v == ISO_NONE)
			continue;
		for (j = 0; j < n_full; j++)
			iso_infer_add_edge(b, op_vertex(b, s->full_readers[j]), v, ISO_EDGE_RW, key,
					 s->full_readers[j], o);
		if (last_vertex_elem != ISO_NONE)
			iso_infer_add_edge(b, op_vertex(b, s->elem_op[last_vertex_elem]), v, ISO_EDGE_WW, key,
					 s->elem_op[last_vertex_elem], o);
		/* beside a helper (bounded), neither thread acts on interrupts here:
		 * infer_key_range tests for them between keys */
		if ((i & 0xfff) == 0 && !b->bounded)
			ISO_CHECK_INTERRUPTS();
	}
	return true;
}

/* The scratch arrays of one thread, sized for the key with the most ops. */
static void
scratch_init(ListScratch *s, const IsoHistory *h, uint32 max_key_ops, uint32 max_len)
{
	uint32		n = max_key_ops + 2;

	s->reads = iso_alloc(sizeof(uint32) * n);
	s->compatible = iso_alloc(sizeof(bool) * n);
	s->full_readers = iso_alloc(sizeof(uint32) * n);
	s->ranked = iso_alloc(sizeof(RankedRead) * n);
	s->known = iso_alloc(sizeof(uint32) * (max_len + 1));
	s->elem_op = iso_alloc(sizeof(uint32) * (max_len + 1));
	s->next_vertex = iso_alloc(sizeof(uint32) * (max_len + 1));
	s->txn_stamp = iso_alloc0(sizeof(uint32) * Max(h->n_txns, 1));
	s->txn_last_op = iso_alloc(sizeof(uint32) * Max(h->n_txns, 1));
	s->w_stamp = iso_alloc0(sizeof(uint32) * Max(h->values.n, 1));
	s->w_op = iso_alloc(sizeof(uint32) * Max(h->values.n, 1));
	s->w_epoch = 0;
}

static void
scratch_free(ListScratch *s)
{
	iso_free(s->reads);
	iso_free(s->compatible);
	iso_free(s->full_readers);
	iso_free(s->ranked);
	iso_free(s->known);
	iso_free(s->elem_op);
	iso_free(s->next_vertex);
	iso_free(s->txn_stamp);
	iso_free(s->txn_last_op);
	iso_free(s->w_stamp);
	iso_free(s->w_op);
}

/*
 * Undo what a key left in the scratch that its next turn would read: the
 * stamps of its transactions (known_order_writers reads key + 1 as "seen
 * in this key's order"); the other stamps are epochs, new at each turn.
 */
static void
forget_key(Builder *b, uint32 key, ListScratch *s)
{
	uint32		i;

	for (i = b->key_start[key]; i < b->key_start[key + 1]; i++)
		s->txn_stamp[op_txn(b, b->key_ops[i])] = 0;
}

/*
 * Keys [from, to) in order, until one has a value written twice (*unique
 * false), a bounded builder's room runs out (that key's edges and anomalies
 * are dropped: it is done again later, with room), or *stop is set.
 * Returns the first key not done.
 */
static uint32
infer_key_range(Builder *b, ListScratch *s, uint32 from, uint32 to, int *stop,
				bool *unique)
{
	uint32		k;

	*unique = true;
	for (k = from; k < to; k++)
	{
		uint64		n_edges = b->edges.n;
		uint32		n_anomalies = b->out->n_anomalies;

		if (stop && __atomic_load_n(stop, __ATOMIC_RELAXED))
			break;
		if (!infer_list_key(b, k, s))
		{
			*unique = false;
			break;
		}
		if (b->overflow)
		{
			b->edges.n = n_edges;
			b->out->n_anomalies = n_anomalies;
			b->overflow = false;
			forget_key(b, k, s);
			break;
		}
		if (b->in_helper)
			continue;
		if (b->bounded)
		{
			/* the main thread beside a helper: raise nothing until it ends */
			if (iso_host_stop_requested())
			{
				__atomic_store_n(stop, 1, __ATOMIC_RELAXED);
				break;
			}
		}
		else
			ISO_CHECK_INTERRUPTS();
	}
	return k;
}

/* One thread's share of the keys (infer_keys_parallel). */
typedef struct KeyShare
{
	Builder    *b;
	ListScratch *s;
	uint32		from;
	uint32		to;
	uint32		next;			/* the first key not done */
	bool		unique;
	int		   *stop;
} KeyShare;

static void
infer_share(void *arg)
{
	KeyShare   *ks = arg;

	ks->next = infer_key_range(ks->b, ks->s, ks->from, ks->to, ks->stop, &ks->unique);
	if (!ks->unique)
		__atomic_store_n(ks->stop, 1, __ATOMIC_RELAXED);
}

/* The key at which the ops divide in two halves (0 if none does). */
static uint32
middle_key(const Builder *b)
{
	uint32		lo = 0,
				hi = b->h->keys.n;
	uint32		half = b->h->n_ops / 2;

	while (lo < hi)
	{
		uint32		mid = lo + (hi - lo) / 2;

		if (b->key_start[mid] < half)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < b->h->keys.n ? lo : 0;
}

#define ANOMALY_ROOM	4096

/*
 * The keys on two threads: this one takes the keys up to the middle of the
 * ops, a helper the rest, each into room of its own given beforehand (the
 * helper's edges in the edge buffer past this one's, its anomalies in an
 * array of its own), then the helper's edges and anomalies are moved after
 * this one's.  That is the order one thread makes, key by key: the result
 * is the same, edge for edge.  Returns the first key not done (a share
 * that ran out of room stops short, and the caller goes on from there
 * alone); *unique as for infer_key_range.
 */
static uint32
infer_keys_parallel(Builder *b, ListScratch *s, uint32 max_key_ops, uint32 max_len,
					bool *unique)
{
	const IsoHistory *h = b->h;
	uint32		mid = middle_key(b);
	Builder		hb;
	IsoInference hout;
	ListScratch hs;
	KeyShare	mine,
				theirs;
	int			stop = 0;
	uint64		room = b->edges.cap - b->edges.n;
	uint64		full_cap = b->edges.cap;
	uint64		cap = full_cap;
	uint64		split;
	uint32		anomaly_room = b->parallel_room ? b->parallel_room : ANOMALY_ROOM;
	uint32		n_values = Max(h->values.n, 1);
	uint32		next;

	*unique = true;
	if (mid == 0 || h->n_ops > ISO_EDGE_MAX_OP)
		return 0;
	/*
	 * The edge buffer's room, by the shares' ops; with an estimate of the
	 * edges (infer.c, whose pages it made resident), the helper's share
	 * begins a little past where this one's is expected to end, so that
	 * moving its edges after this one's moves them a little only, into
	 * pages already there.  (A share whose edges outgrow the estimate by
	 * more stops short of its room: the rest is then done alone.)
	 */
	split = b->edges.n + (uint64) ((double) room * b->key_start[mid] / Max(h->n_ops, 1));
	if (b->list_edges_estimate > 0)
		split = Min(split, b->edges.n +
					helper_share_start(b->list_edges_estimate, b->key_start[mid], h->n_ops));
	if (b->parallel_room)
	{
		split = Min(split, b->edges.n + b->parallel_room);
		cap = Min(cap, split + b->parallel_room);
	}
	iso_infer_reserve_anomalies(b->out, anomaly_room);

	/* the helper's builder: its own stamps, scratch, room and anomalies */
	hb = *b;
	hout = *b->out;
	hout.anomalies = iso_alloc(sizeof(IsoAnomaly) * anomaly_room);
	hout.n_anomalies = 0;
	hout.cap_anomalies = anomaly_room;
	hb.out = &hout;
	hb.value_stamp = iso_alloc0(sizeof(uint32) * n_values);
	hb.value_pos = iso_alloc(sizeof(uint32) * n_values);
	hb.dup_stamp = iso_alloc0(sizeof(uint32) * n_values);
	hb.epoch = 0;
	hb.edges.edges = b->edges.edges + split;
	hb.edges.n = 0;
	hb.edges.cap = cap - split;
	hb.bounded = true;
	hb.in_helper = true;
	scratch_init(&hs, h, max_key_ops, max_len);

	b->bounded = true;
	b->edges.cap = split;
	mine = (KeyShare) {b, s, 0, mid, 0, true, &stop};
	theirs = (KeyShare) {&hb, &hs, mid, h->keys.n, mid, true, &stop};
	if (!iso_host_run_beside(infer_share, &mine, infer_share, &theirs, &stop))
		mine.next = 0;			/* no thread: all keys alone */
	b->bounded = false;
	b->edges.cap = full_cap;

	if (!mine.unique || !theirs.unique)
	{
		*unique = false;
		next = h->keys.n;
	}
	else if (mine.next < mid)
		next = mine.next;		/* the helper's share is done again after */
	else
	{
		memmove(b->edges.edges + b->edges.n, hb.edges.edges, sizeof(IsoEdge) * hb.edges.n);
		b->edges.n += hb.edges.n;
		iso_infer_reserve_anomalies(b->out, hout.n_anomalies);
		memcpy(b->out->anomalies + b->out->n_anomalies, hout.anomalies,
			   sizeof(IsoAnomaly) * hout.n_anomalies);
		b->out->n_anomalies += hout.n_anomalies;
		next = theirs.next;
		b->out->helper_keys = theirs.next - mid;
	}
	iso_free(hout.anomalies);
	iso_free(hb.value_stamp);
	iso_free(hb.value_pos);
	iso_free(hb.dup_stamp);
	scratch_free(&hs);
	return next;
}

bool
iso_infer_lists(Builder *b)
{
	const IsoHistory *h = b->h;
	uint32		max_len = 0;
	uint32		max_key_ops = 0;
	ListScratch s;
	bool		unique = true;
	uint32		i;
	uint32		k = 0;

	for (i = 0; i < h->n_ops; i++)
		if (h->ops[i].list_len > 0 && (uint32) h->ops[i].list_len > max_len)
			max_len = (uint32) h->ops[i].list_len;
	for (i = 0; i < h->keys.n; i++)
		max_key_ops = Max(max_key_ops, b->key_start[i + 1] - b->key_start[i]);
	scratch_init(&s, h, max_key_ops, max_len);
	if (h->keys.n >= 2 &&
		(b->parallel == ISO_PARALLEL_ALWAYS ||
		 (b->parallel == ISO_PARALLEL_AUTO && h->n_ops >= ISO_PARALLEL_MIN_OPS)))
		k = infer_keys_parallel(b, &s, max_key_ops, max_len, &unique);
	if (unique)
		(void) infer_key_range(b, &s, k, h->keys.n, NULL, &unique);
	scratch_free(&s);
	return unique;
}
