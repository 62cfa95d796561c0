/*
 * infer_register.c
 *	  The graph builder for rw-register keys: version orders from the log,
 *	  the initial state, write-follows-read and the opt-in assumptions (docs/semantics.md).
 */
#include "port.h"

#include "infer_int.h"

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

/* Grow an array of uint32 to hold at least need entries. */
static uint32 *
grow_u32(uint32 *a, uint32 *cap, uint32 need)
{
	if (need <= *cap)
		return a;
	*cap = Max(need, Max(*cap * 2, 64));
	return a ? iso_realloc(a, sizeof(uint32) * *cap) : iso_alloc(sizeof(uint32) * *cap);
}

/* Keep a key whose order is open for the version-order search (infer.h). */
static void
keep_unknown_key(Builder *b, uint32 key, uint32 m, uint32 n_reads, const RegScratch *s)
{
	IsoRegUnknown *u = &b->out->unknown;
	uint32		slot = u->n_keys;
	uint32		cap;
	uint32		i;

	if (slot + 2 > u->cap_keys)
	{
		cap = u->cap_keys;
		u->key = grow_u32(u->key, &cap, slot + 2);
		cap = u->cap_keys;
		u->ver_start = grow_u32(u->ver_start, &cap, slot + 2);
		cap = u->cap_keys;
		u->rd_start = grow_u32(u->rd_start, &cap, slot + 2);
		cap = u->cap_keys;
		u->cons_start = grow_u32(u->cons_start, &cap, slot + 2);
		u->cap_keys = cap;
	}
	if (slot == 0)
		u->ver_start[0] = u->rd_start[0] = u->cons_start[0] = 0;
	u->key[slot] = key;
	u->ver_op = grow_u32(u->ver_op, &u->cap_ver, u->n_ver + m);
	for (i = 1; i <= m; i++)
		u->ver_op[u->n_ver++] = s->version_op[i];
	for (i = 0; i < n_reads; i++)
	{
		uint32		cap_rd;

		if (s->read_version[i] == ISO_NONE)
			continue;
		cap_rd = u->cap_rd;
		u->rd_op = grow_u32(u->rd_op, &cap_rd, u->n_rd + 1);
		cap_rd = u->cap_rd;
		u->rd_ver = grow_u32(u->rd_ver, &cap_rd, u->n_rd + 1);
		u->cap_rd = cap_rd;
		u->rd_op[u->n_rd] = s->reads[i];
		u->rd_ver[u->n_rd] = s->read_version[i];
		u->n_rd++;
	}
	for (i = 0; i < s->n_cons; i++)
	{
		uint32		cap_c;

		if (s->cons_from[i] == 0)
			continue;
		cap_c = u->cap_cons;
		u->cons_a = grow_u32(u->cons_a, &cap_c, u->n_cons + 1);
		cap_c = u->cap_cons;
		u->cons_b = grow_u32(u->cons_b, &cap_c, u->n_cons + 1);
		u->cap_cons = cap_c;
		u->cons_a[u->n_cons] = s->cons_from[i];
		u->cons_b[u->n_cons] = s->cons_to[i];
		u->n_cons++;
	}
	u->n_keys = slot + 1;
	u->ver_start[slot + 1] = u->n_ver;
	u->rd_start[slot + 1] = u->n_rd;
	u->cons_start[slot + 1] = u->n_cons;
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
			uint32		w = iso_infer_writer_of(b, key, log->values[i]);

			if (w != ISO_NONE && txn_status(b, op_txn(b, w)) == ISO_STATUS_INFO &&
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
		if (op->value == ISO_NONE && txn_status(b, op_txn(b, o)) != ISO_STATUS_OK)
			continue;
		if (op->value != ISO_NONE)
		{
			uint32		w = iso_infer_writer_of(b, key, op->value);

			if (w == ISO_NONE)
				iso_infer_add_anomaly(b, ISO_ANOM_GARBAGE_READ, key, op->value, o, ISO_NONE);
			else if (op_txn(b, w) == op_txn(b, o))
				iso_infer_add_anomaly(b, ISO_ANOM_INTERNAL, key, op->value, o, w);
			else if (txn_status(b, op_txn(b, w)) == ISO_STATUS_FAIL)
				iso_infer_add_anomaly(b, ISO_ANOM_G1A, key, op->value, o, w);
			else if (!(b->op_flags[w] & OP_FINAL_WRITE))
			{
				/* not a version, but the reader did see the writer's effect */
				iso_infer_add_anomaly(b, ISO_ANOM_G1B, key, op->value, o, w);
				iso_infer_add_edge(b, op_vertex(b, w), rv, ISO_EDGE_WR, key, w, o);
			}
			else
			{
				lv = local_version(b, op->value, stamp);
				iso_infer_add_edge(b, op_vertex(b, w), rv, ISO_EDGE_WR, key, w, o);
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
			for (j = i + 1; j < nk && op_txn(b, kops[j]) == op_txn(b, o); j++)
				if (b->op_flags[kops[j]] & OP_FINAL_WRITE)
					add_constraint(s, lv, local_version(b, h->ops[kops[j]].value, stamp));
			s->ranked[n_ranked].rank = lv;
			s->ranked[n_ranked].op = o;
			n_ranked++;
		}
	}
	iso_infer_report_lost_updates(b, key, s->ranked, n_ranked);

	assumed_constraints(b, s, m, opt);

	if (!order_versions(s, m, &total))
	{
		iso_infer_add_anomaly(b, ISO_ANOM_CYCLIC_VERSIONS, key, ISO_NONE,
					m > 0 ? s->version_op[1] : ISO_NONE, ISO_NONE);
		return;
	}

	if (total && !log_has_gap)
	{
		/* one order: ww between neighbours, rw to each read's successor */
		for (i = 2; i <= m; i++)
			iso_infer_add_edge(b, op_vertex(b, s->version_op[s->order[i - 1]]),
					 op_vertex(b, s->version_op[s->order[i]]), ISO_EDGE_WW, key,
					 s->version_op[s->order[i - 1]], s->version_op[s->order[i]]);
		for (i = 0; i < n_reads; i++)
		{
			uint32		lv = s->read_version[i];
			uint32		next;

			if (lv == ISO_NONE || s->rank[lv] >= m)
				continue;
			next = s->order[s->rank[lv] + 1];
			iso_infer_add_edge(b, op_vertex(b, s->reads[i]), op_vertex(b, s->version_op[next]),
					 ISO_EDGE_RW, key, s->reads[i], s->version_op[next]);
		}
		return;
	}

	/* partial order: ww along each known pair; rw unknown */
	if (m > 1)
		keep_unknown_key(b, key, m, n_reads, s);
	for (i = 0; i < s->n_cons; i++)
		if (s->cons_from[i] != 0)
			iso_infer_add_edge(b, op_vertex(b, s->version_op[s->cons_from[i]]),
					 op_vertex(b, s->version_op[s->cons_to[i]]), ISO_EDGE_WW, key,
					 s->version_op[s->cons_from[i]], s->version_op[s->cons_to[i]]);
	if (m > 0)
		b->out->unknown_order_keys++;
}

void
iso_infer_registers(Builder *b, const IsoVersionLog *log, const IsoInferOptions *opt)
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
	iso_free(s.adj);
}


void
iso_infer_free_unknown(IsoRegUnknown *u)
{
	void	   *arrays[] = {u->key, u->ver_start, u->rd_start, u->cons_start, u->ver_op,
	u->rd_op, u->rd_ver, u->cons_a, u->cons_b};
	uint32		i;

	for (i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
		iso_free(arrays[i]);
	memset(u, 0, sizeof(*u));
}
