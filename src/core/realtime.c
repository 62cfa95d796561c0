/*
 * realtime.c
 *	  Real-time order in linear space (realtime.h, docs/semantics.md "so
 *	  and rt").
 *
 * One sweep over the invocations and completions in time order (at equal
 * times invocations first, so equal times give no edge).  The transitive
 * reduction is the frontier algorithm: the frontier holds the completed
 * transactions not yet followed by a completed successor, an invocation
 * links from the whole frontier, and a completion removes its own
 * predecessors from it.  Those predecessors are exactly the frontier
 * members that completed before the completing transaction was invoked,
 * and the frontier is kept in completion order, so they are a prefix of it:
 * the frontier is a window [head, tail) of the completions, and the size of
 * the reduction is counted in O(n) before any edge is made.  When it is
 * larger than the caller's limit (ISO_RT_LIMIT: ISO_RT_MAX_FANOUT edges
 * per transaction) the order is built through time points instead (at
 * most 3n edges).
 */
#include "port.h"
#include "realtime.h"

#define TICK_MASK	0xFFFF

typedef struct RtEvent
{
	int64		time;
	uint32		idx;			/* index into the caller's vertex list */
	uint8		is_completion;	/* at equal times invocations come first */
} RtEvent;

static int
cmp_event(const void *a, const void *b)
{
	const RtEvent *x = a;
	const RtEvent *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->is_completion != y->is_completion)
		return x->is_completion ? 1 : -1;
	return x->idx < y->idx ? -1 : (x->idx > y->idx);
}

/*
 * An event of the sweeps: the caller's index of its transaction, with
 * RT_COMPLETION set for a completion.  4 bytes, not the 16 of an RtEvent:
 * the sweep that adds the edges holds them while the edge buffer is at its
 * fullest, the peak of a check.
 */
#define RT_COMPLETION	0x80000000u
#define RT_IDX(e)		((e) & ~RT_COMPLETION)

static inline uint32
vertex_of(const uint32 *vertices, uint32 idx)
{
	return vertices ? vertices[idx] : idx;
}

/*
 * Sort events by cmp_event.  Transactions are numbered by completion, so
 * their invocations come nearly in time order (a transaction is passed only
 * by those that run beside it): insertion sort, at most RT_SORT_MOVES moves
 * an event, takes them in a few moves each where qsort's comparisons through
 * a function pointer cost 3 % of a check; past the budget, qsort.  The keys
 * are unique (idx), so both give the one order.
 */
#define RT_SORT_MOVES	16

static void
sort_events(RtEvent *ev, uint32 n)
{
	uint64		budget = (uint64) n * RT_SORT_MOVES;
	uint32		i;

	for (i = 1; i < n; i++)
	{
		RtEvent		x = ev[i];
		uint32		j = i;

		while (j > 0 && cmp_event(&x, &ev[j - 1]) < 0)
		{
			ev[j] = ev[j - 1];
			j--;
			if (--budget == 0)
			{
				ev[j] = x;
				qsort(ev, n, sizeof(RtEvent), cmp_event);
				return;
			}
		}
		ev[j] = x;
		if ((i & TICK_MASK) == 0)
			ISO_CHECK_INTERRUPTS();
	}
}

/*
 * The invocations and completions, in time order.  A transaction takes
 * part when its invocation time is known; it completes (has outgoing rt)
 * when it committed and its completion time is known and not before its
 * invocation (an earlier one is unusable data: it would order the
 * transaction before itself).  Completions usually come in vertex order
 * already (Jepsen numbers transactions by completion), so the two kinds are
 * sorted apart and merged.
 */
static uint32
collect_events(const IsoHistory *h, const uint32 *vertex_txn,
			   const uint32 *vertices, uint32 n, uint32 *ev, uint32 *n_timed)
{
	RtEvent    *inv = iso_alloc(sizeof(RtEvent) * Max(n, 1));
	RtEvent    *comp = iso_alloc(sizeof(RtEvent) * Max(n, 1));
	uint32		ni = 0,
				nc = 0,
				i = 0,
				c = 0,
				m = 0;
	bool		comp_sorted = true;
	uint32		k;

	for (k = 0; k < n; k++)
	{
		const IsoTxn *t = &h->txns[vertex_txn[vertex_of(vertices, k)]];

		if ((k & TICK_MASK) == 0)
			ISO_CHECK_INTERRUPTS();
		if (t->invoke_time == ISO_NO_TIME)
			continue;
		inv[ni].time = t->invoke_time;
		inv[ni].idx = k;
		inv[ni].is_completion = 0;
		ni++;
		if (t->status == ISO_STATUS_OK && t->complete_time != ISO_NO_TIME &&
			t->complete_time >= t->invoke_time)
		{
			comp[nc].time = t->complete_time;
			comp[nc].idx = k;
			comp[nc].is_completion = 1;
			if (nc > 0 && cmp_event(&comp[nc - 1], &comp[nc]) > 0)
				comp_sorted = false;
			nc++;
		}
	}
	sort_events(inv, ni);
	if (!comp_sorted)
		sort_events(comp, nc);
	while (i < ni || c < nc)
	{
		if (c == nc || (i < ni && cmp_event(&inv[i], &comp[c]) <= 0))
			ev[m++] = inv[i++].idx;
		else
			ev[m++] = comp[c++].idx | RT_COMPLETION;
	}
	iso_free(inv);
	iso_free(comp);
	*n_timed = ni;
	return m;
}

/*
 * The frontier sweep.  With buf NULL it only counts the reduction's edges;
 * otherwise it adds them.
 *
 * The frontier, when a transaction is invoked, is the completions since the
 * latest invocation of a transaction that completed before it: each of them
 * precedes it with nothing in between.  fq holds the completions in time
 * order and the frontier is fq[head, tail): a completion moves head past
 * every completion before its transaction's invocation (they reach later
 * transactions through it), which are the first done_at_inv of them.  (A
 * count per transaction rather than each completion's position in ev: one
 * array less while the edge buffer is at its fullest.  Scanning ev itself
 * instead of a queue would save another, but would walk every invocation
 * still open at each invocation: quadratic when many start together.)
 */
static uint64
sweep_reduction(const uint32 *ev, uint32 n_ev, uint32 n, const uint32 *vertices,
				IsoEdgeBuf *buf)
{
	uint32	   *done_at_inv = iso_alloc(sizeof(uint32) * Max(n, 1));
	uint32	   *fq = iso_alloc(sizeof(uint32) * Max(n, 1));
	uint32		head = 0,
				tail = 0;
	uint64		total = 0;
	uint32		i;

	for (i = 0; i < n_ev; i++)
	{
		uint32		idx = RT_IDX(ev[i]);

		if ((i & TICK_MASK) == 0)
			ISO_CHECK_INTERRUPTS();
		if (!(ev[i] & RT_COMPLETION))
		{
			done_at_inv[idx] = tail;
			total += tail - head;
			if (buf != NULL)
			{
				uint32		f;

				for (f = head; f < tail; f++)
				{
					iso_edgebuf_add(buf, vertex_of(vertices, fq[f]),
									vertex_of(vertices, idx), ISO_EDGE_RT,
									ISO_NO_KEY, ISO_NO_OP, ISO_NO_OP);
					if ((buf->n & TICK_MASK) == 0)
						ISO_CHECK_INTERRUPTS();
				}
			}
		}
		else
		{
			/* its predecessors reach later transactions through it */
			if (head < done_at_inv[idx])
				head = done_at_inv[idx];
			fq[tail++] = idx;
		}
	}
	iso_free(done_at_inv);
	iso_free(fq);
	return total;
}

/*
 * The order through time points: a point per maximal run of completions,
 * chained; each completion links to its run's point, each invocation from
 * the latest point.  Returns the number of points.
 */
static uint32
sweep_points(const uint32 *ev, uint32 n_ev, const uint32 *vertices,
			 uint32 first_free, IsoEdgeBuf *buf)
{
	uint32		n_points = 0;
	uint32		cur = PG_UINT32_MAX;
	bool		in_run = false;
	uint32		i;

	for (i = 0; i < n_ev; i++)
	{
		uint32		v = vertex_of(vertices, RT_IDX(ev[i]));

		if ((i & TICK_MASK) == 0)
			ISO_CHECK_INTERRUPTS();
		if (ev[i] & RT_COMPLETION)
		{
			if (!in_run)
			{
				uint32		p = first_free + n_points++;

				if (cur != PG_UINT32_MAX)
					iso_edgebuf_add(buf, cur, p, ISO_EDGE_RT, ISO_NO_KEY,
									ISO_NO_OP, ISO_NO_OP);
				cur = p;
				in_run = true;
			}
			iso_edgebuf_add(buf, v, cur, ISO_EDGE_RT, ISO_NO_KEY,
							ISO_NO_OP, ISO_NO_OP);
		}
		else
		{
			in_run = false;
			if (cur != PG_UINT32_MAX)
				iso_edgebuf_add(buf, cur, v, ISO_EDGE_RT, ISO_NO_KEY,
								ISO_NO_OP, ISO_NO_OP);
		}
	}
	return n_points;
}

/*
 * The edges of the order: the reduction when it has at most max_reduction
 * edges (info->n_reduction, counted already), else through time points
 * numbered from first_free, or nothing with allow_points false.
 */
static void
emit_edges(const uint32 *ev, uint32 n_ev, uint32 n, const uint32 *vertices,
		   uint64 max_reduction, uint32 first_free, bool allow_points,
		   IsoEdgeBuf *buf, IsoRealtimeInfo *info)
{
	if (info->n_reduction <= max_reduction)
		(void) sweep_reduction(ev, n_ev, n, vertices, buf);
	else
	{
		info->dense = true;
		/* points are fewer than the completions: at most n more vertices */
		if (allow_points && (uint64) first_free + n > PG_UINT32_MAX - 1)
			iso_host_limit("too many transactions for the time points of a dense real-time order");
		if (allow_points)
			info->n_points = sweep_points(ev, n_ev, vertices, first_free, buf);
	}
}

/* The events of n vertices in time order, and info without the edges. */
static uint32 *
order_events(const IsoHistory *h, const uint32 *vertex_txn,
			 const uint32 *vertices, uint32 n, uint32 first_free,
			 uint32 *n_ev, IsoRealtimeInfo *info)
{
	uint32	   *ev;

	if (n > RT_COMPLETION - 1)
		iso_host_limit("more than 2^31 - 1 transactions for the real-time order");
	ev = iso_alloc(sizeof(uint32) * Max((uint64) 2 * n, 1));
	memset(info, 0, sizeof(*info));
	info->first_point = first_free;
	*n_ev = collect_events(h, vertex_txn, vertices, n, ev, &info->n_timed);
	/* the sort's arrays, freed, would stay resident while the buffer fills */
	iso_host_return_free_memory();
	info->n_reduction = sweep_reduction(ev, *n_ev, n, vertices, NULL);
	return ev;
}

void
iso_realtime_edges(const IsoHistory *h, const uint32 *vertex_txn,
				   const uint32 *vertices, uint32 n,
				   uint64 max_reduction,
				   uint32 first_free, bool allow_points,
				   IsoEdgeBuf *buf, IsoRealtimeInfo *info)
{
	uint32		n_ev;
	uint32	   *ev = order_events(h, vertex_txn, vertices, n, first_free, &n_ev, info);

	emit_edges(ev, n_ev, n, vertices, max_reduction, first_free, allow_points,
			   buf, info);
	iso_free(ev);
}

void
iso_realtime_order_build(const IsoHistory *h, const uint32 *vertex_txn, uint32 n,
						 uint64 max_reduction, IsoRealtimeOrder *order,
						 IsoRealtimeInfo *info)
{
	order->n = n;
	order->max_reduction = max_reduction;
	order->two_threads_from = UINT64_MAX;
	order->ev = order_events(h, vertex_txn, NULL, n, n, &order->n_ev, info);
	/* as iso_realtime_edges would find it (its note says so) */
	info->dense = info->n_reduction > max_reduction;
}

void
iso_realtime_order_edges(IsoRealtimeOrder *order, IsoEdgeBuf *buf,
						 IsoRealtimeInfo *info)
{
	info->dense = false;
	emit_edges(order->ev, order->n_ev, order->n, NULL, order->max_reduction,
			   order->n, true, buf, info);
}

void
iso_realtime_order_free(IsoRealtimeOrder *order)
{
	iso_free(order->ev);
	memset(order, 0, sizeof(*order));
}

/*
 * The edges' targets grouped by source, self-edges left out: for the
 * edges [from, to) of the buffer, succ[start[v] .. start[v + 1]) are v's
 * targets, and indeg[v] counts the edges into v.  4 bytes an edge: the
 * pass reads the builder's flat buffer (no graph is made for a history
 * that holds), and this is a quarter of moving its 16-byte edges into a
 * CSR.  A large buffer is grouped in two halves on two threads, each into
 * arrays of its own (one succ for both, each source's targets of one
 * half then the other's, had the two cores writing the same cache lines:
 * the pass was slower on two threads than on one).
 */
typedef enum GroupThread
{
	GROUP_ALONE,				/* this thread, nothing beside it */
	GROUP_BESIDE,				/* this thread, beside a helper */
	GROUP_HELPER				/* the helper: no host function */
} GroupThread;

typedef struct TargetGroup
{
	const IsoEdge *edges;
	uint64		from;			/* edges[from, to) */
	uint64		to;
	uint32		n;				/* vertices */
	uint64	   *start;			/* n + 1 entries, zeroed */
	uint32	   *indeg;			/* n entries, zeroed */
	uint32	   *succ;			/* room for to - from */
	GroupThread thread;
	bool		foreign;		/* an edge of a vertex >= n (not ALONE) */
	int		   *stop;			/* not ALONE */
} TargetGroup;

/* Every TICK_MASK + 1 edges: false if the grouping is to stop. */
static inline bool
group_goes_on(TargetGroup *g, uint64 e)
{
	if ((e & TICK_MASK) != 0)
		return true;
	if (g->thread == GROUP_ALONE)
	{
		ISO_CHECK_INTERRUPTS();
		return true;
	}
	if (g->thread == GROUP_BESIDE && iso_host_stop_requested())
		__atomic_store_n(g->stop, 1, __ATOMIC_RELAXED);
	return __atomic_load_n(g->stop, __ATOMIC_RELAXED) == 0;
}

static void
group_targets(void *arg)
{
	TargetGroup *g = arg;
	/* (in locals: each store would make the compiler load g's fields again) */
	const IsoEdge *edges = g->edges;
	uint64	   *start = g->start;
	uint32	   *indeg = g->indeg;
	uint32	   *succ = g->succ;
	uint32		n = g->n;
	uint64		from = g->from;
	uint64		to = g->to;
	uint64		e;
	uint32		i;

	for (e = from; e < to; e++)
	{
		if (edges[e].from >= n || edges[e].to >= n)
		{
			if (g->thread == GROUP_ALONE)
				iso_host_internal_error("real-time order checked against edges of other vertices");
			g->foreign = true;
			return;
		}
		if (edges[e].from != edges[e].to)
		{
			start[edges[e].from + 1]++;
			indeg[edges[e].to]++;
		}
		if (!group_goes_on(g, e))
			return;
	}
	for (i = 0; i < n; i++)
		start[i + 1] += start[i];
	for (e = from; e < to; e++)
	{
		if (edges[e].from != edges[e].to)
			succ[start[edges[e].from]++] = edges[e].to;
		if (!group_goes_on(g, e))
			return;
	}
	/* the scatter moved each start to the next vertex's: shift back */
	for (i = n; i > 0; i--)
		start[i] = start[i - 1];
	start[0] = 0;
}

/* A group of edges[from, to); indeg NULL: an array of its own. */
static void
group_init(TargetGroup *g, const IsoEdge *edges, uint64 from, uint64 to, uint32 n,
		   uint32 *indeg, int *stop)
{
	g->edges = edges;
	g->from = from;
	g->to = to;
	g->n = n;
	g->start = iso_alloc0(sizeof(uint64) * ((Size) n + 1));
	g->indeg = indeg ? indeg : iso_alloc0(sizeof(uint32) * Max(n, 1));
	g->succ = iso_alloc(sizeof(uint32) * Max(to - from, 1));
	g->thread = GROUP_ALONE;
	g->foreign = false;
	g->stop = stop;
}

static void
group_free(TargetGroup *g)
{
	iso_free(g->start);
	iso_free(g->succ);
}

/*
 * Group edges[0..n_edges): in one group, or in two halves on two threads
 * if n_edges >= two_threads_from.  Returns how many groups; a source's
 * targets are its targets in each.  indeg (n, zeroed) counts the edges
 * into each vertex, all groups together.
 */
static int
group_all_targets(const IsoEdge *edges, uint64 n_edges, uint32 n, uint64 two_threads_from,
				  uint32 *indeg, TargetGroup *groups)
{
	int			stop = 0;
	uint32		v;

	if (n_edges >= two_threads_from && n_edges >= 2)
	{
		group_init(&groups[0], edges, 0, n_edges / 2, n, indeg, &stop);
		group_init(&groups[1], edges, n_edges / 2, n_edges, n, NULL, &stop);
		groups[0].thread = GROUP_BESIDE;
		groups[1].thread = GROUP_HELPER;
		if (!iso_host_run_beside(group_targets, &groups[0], group_targets, &groups[1], &stop))
		{
			/* no thread: the halves one after the other */
			groups[0].thread = groups[1].thread = GROUP_ALONE;
			group_targets(&groups[0]);
			group_targets(&groups[1]);
		}
		if (groups[0].foreign || groups[1].foreign)
			iso_host_internal_error("real-time order checked against edges of other vertices");
		if (!stop)
		{
			for (v = 0; v < n; v++)
				indeg[v] += groups[1].indeg[v];
			iso_free(groups[1].indeg);
			return 2;
		}
		/* stopped for a cancel: raised here, or if the host holds it, all again alone */
		ISO_CHECK_INTERRUPTS();
		group_free(&groups[0]);
		group_free(&groups[1]);
		iso_free(groups[1].indeg);
		memset(indeg, 0, sizeof(uint32) * Max(n, 1));
	}
	group_init(&groups[0], edges, 0, n_edges, n, indeg, &stop);
	group_targets(&groups[0]);
	return 1;
}

/*
 * From the events in time order: each completion's rank among the
 * completions (rank, ISO_NONE for none), the number of completions before
 * each invocation (comps_before, 0 for a vertex never invoked), and the
 * invoked vertices in time order.  Returns how many completions.
 */
static uint32
rank_events(const IsoRealtimeOrder *order, uint32 *rank, uint32 *comps_before,
			uint32 *invoked, uint32 *n_inv)
{
	uint32		n_comp = 0;
	uint32		i;

	for (i = 0; i < order->n; i++)
		rank[i] = ISO_NONE;
	*n_inv = 0;
	for (i = 0; i < order->n_ev; i++)
	{
		uint32		idx = RT_IDX(order->ev[i]);

		if (order->ev[i] & RT_COMPLETION)
			rank[idx] = n_comp++;
		else
		{
			comps_before[idx] = n_comp;
			invoked[(*n_inv)++] = idx;
		}
	}
	return n_comp;
}

/*
 * Kahn's topological sort of the edges plus the real-time order, whose
 * edges stay implicit: a vertex is free once its in-edges are used up and
 * every transaction that completed before it was invoked has been taken.
 * Completions are ranked in time order; "every completion before this
 * invocation" is a prefix of that ranking, so one counter, the longest
 * prefix of completions taken, answers for all vertices: vertex v waits for
 * rank comps_before[v].  Invocations come in time order too, so the
 * vertices a longer prefix frees are the next ones of that order.  Each
 * vertex and edge is handled once: O(V + E) after the sort.
 */
bool
iso_realtime_order_acyclic(const IsoRealtimeOrder *order, const IsoEdge *edges,
						   uint64 n_edges)
{
	uint32		n = order->n;
	uint32	   *indeg = iso_alloc0(sizeof(uint32) * Max(n, 1));
	uint32	   *comps_before = iso_alloc0(sizeof(uint32) * Max(n, 1));
	uint32	   *rank = iso_alloc(sizeof(uint32) * Max(n, 1));
	uint32	   *invoked = iso_alloc(sizeof(uint32) * Max(n, 1));
	uint32	   *stack = iso_alloc(sizeof(uint32) * Max(n, 1));
	uint8	   *taken = iso_alloc0(Max(n, 1));
	TargetGroup groups[2];
	int			n_groups = group_all_targets(edges, n_edges, n, order->two_threads_from,
											 indeg, groups);
	int			g;
	uint32		n_inv;
	uint32		n_comp = rank_events(order, rank, comps_before, invoked, &n_inv);
	uint32		next_inv = 0,
				prefix = 0,
				top = 0,
				done = 0;
	uint64		e;
	uint32		i;

	/* untimed vertices wait for nothing but their in-edges */
	for (i = 0; i < n; i++)
		if (indeg[i] == 0 && comps_before[i] == 0)
			stack[top++] = i;
	/* the timed ones among them come again below: skip them there */
	while (next_inv < n_inv && comps_before[invoked[next_inv]] == 0)
		next_inv++;

	while (top > 0)
	{
		uint32		v = stack[--top];

		done++;
		for (g = 0; g < n_groups; g++)
		{
			const uint64 *start = groups[g].start;
			const uint32 *succ = groups[g].succ;

			for (e = start[v]; e < start[v + 1]; e++)
			{
				uint32		w = succ[e];

				if (--indeg[w] == 0 && comps_before[w] <= prefix)
					stack[top++] = w;
			}
		}
		if (rank[v] != ISO_NONE)
		{
			taken[rank[v]] = 1;
			while (prefix < n_comp && taken[prefix])
				prefix++;
			/* invocations the longer prefix frees, in time order */
			while (next_inv < n_inv && comps_before[invoked[next_inv]] <= prefix)
			{
				uint32		w = invoked[next_inv++];

				if (indeg[w] == 0)
					stack[top++] = w;
			}
		}
		if ((done & TICK_MASK) == 0)
			ISO_CHECK_INTERRUPTS();
	}
	for (g = 0; g < n_groups; g++)
		group_free(&groups[g]);
	iso_free(indeg);
	iso_free(comps_before);
	iso_free(rank);
	iso_free(invoked);
	iso_free(stack);
	iso_free(taken);
	return done == n;
}

uint32
iso_rt_collapse_cycle(const IsoGraph *graph, uint32 n_txn_vertices,
					  const uint64 *edges, uint32 length, IsoEdge *out)
{
	uint32		start = 0;
	uint32		m = 0;
	uint32		hop_from = 0;
	bool		in_hop = false;
	uint32		i;

	/* a cycle always has a transaction: points only lead forward in time */
	while (start < length && graph->edges[edges[start]].from >= n_txn_vertices)
		start++;
	if (start == length)
		return 0;
	for (i = 0; i < length; i++)
	{
		const IsoEdge *e = &graph->edges[edges[(start + i) % length]];

		if (e->to >= n_txn_vertices)
		{
			if (!in_hop)
				hop_from = e->from;
			in_hop = true;
			continue;
		}
		if (!in_hop)
		{
			out[m++] = *e;
			continue;
		}
		out[m].from = hop_from;
		out[m].to = e->to;
		out[m].from_ref = ISO_NO_OP;	/* no op, no key */
		out[m].to_op = ISO_NO_OP;
		out[m].type = ISO_EDGE_RT;
		m++;
		in_hop = false;
	}
	return m;
}
