/*
 * infer_order.c
 *	  The graph builder's order edges: session order (so) and real-time
 *	  order (rt, built by realtime.c) (docs/semantics.md).
 */
#include "port.h"

#include "infer_int.h"
#include "realtime.h"

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

/* The table twice as large, its entries placed again. */
static ProcessSlot *
grow_process_slots(ProcessSlot *slots, uint32 *nslots)
{
	uint32		n = *nslots * 2;
	ProcessSlot *grown = iso_alloc0(sizeof(ProcessSlot) * n);
	uint32		k;

	for (k = 0; k < *nslots; k++)
	{
		uint32		i;

		if (slots[k].last == 0)
			continue;
		i = (uint32) (mix64((uint64) slots[k].process) & (n - 1));
		while (grown[i].last != 0)
			i = (i + 1) & (n - 1);
		grown[i] = slots[k];
	}
	iso_free(slots);
	*nslots = n;
	return grown;
}

/*
 * so: consecutive vertices of one process, in txn_id order.  Vertices are
 * numbered in txn order, which is txn_id order when the history comes from
 * iso_event; then one pass with a per-process "last vertex" table does it.
 * Otherwise (standalone callers) sort first.
 */
void
iso_infer_session_edges(Builder *b)
{
	const IsoHistory *h = b->h;
	IsoInference *out = b->out;
	uint32		nv = out->n_vertices;
	uint32	   *vs = iso_alloc(sizeof(uint32) * Max(nv, 1));
	uint32		n = 0;
	uint32		nslots = 64;
	uint32		n_processes = 0;
	ProcessSlot *slots;
	bool		sorted = true;
	uint32		v;

	/* (locals: each store into vs would reload h's and out's fields) */
	const IsoTxn *txns = h->txns;
	const uint32 *vertex_txn = out->vertex_txn;

	for (v = 0; v < nv; v++)
	{
		if ((v & 0xffff) == 0)
			ISO_CHECK_INTERRUPTS();
		if (!txns[vertex_txn[v]].has_process)
			continue;
		if (n > 0 && txns[vertex_txn[vs[n - 1]]].txn_id > txns[vertex_txn[v]].txn_id)
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
				iso_infer_add_edge(b, vs[v], vs[v + 1], ISO_EDGE_SO, ISO_NO_KEY, ISO_NONE, ISO_NONE);
		}
		iso_free(vs);
		return;
	}

	/* sized for the processes seen, not the vertices: a few, usually */
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
			iso_infer_add_edge(b, slots[i].last - 1, vs[v], ISO_EDGE_SO, ISO_NO_KEY, ISO_NONE, ISO_NONE);
		else if (++n_processes * 2 > nslots)
		{
			slots = grow_process_slots(slots, &nslots);
			i = (uint32) (mix64((uint64) p) & (nslots - 1));
			while (slots[i].last != 0)
				i = (i + 1) & (nslots - 1);
		}
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
void
iso_infer_realtime_edges(Builder *b)
{
	IsoInference *out = b->out;

	iso_realtime_edges(b->h, out->vertex_txn, NULL, out->n_vertices,
					   ISO_RT_LIMIT(out->n_vertices),
					   out->n_vertices, true, &b->edges, &out->realtime);
}

/*
 * The rt order kept as events (realtime.h) and the other edges as they
 * were made, for a check that builds the graph only if it must
 * (iso_infer_realtime_acyclic): rt edges are a third of the edges of an
 * ordinary history, and a history that holds needs neither them nor a
 * graph of the others.
 */
void
iso_infer_defer_realtime(Builder *b)
{
	IsoInference *out = b->out;

	iso_realtime_order_build(b->h, out->vertex_txn, out->n_vertices,
							 ISO_RT_LIMIT(out->n_vertices),
							 &out->realtime_order, &out->realtime);
	/* as the list keys: on two threads for large histories */
	if (b->parallel == ISO_PARALLEL_ALWAYS)
		out->realtime_order.two_threads_from = 2;
	else if (b->parallel == ISO_PARALLEL_AUTO)
		out->realtime_order.two_threads_from = ISO_PARALLEL_MIN_OPS;
	out->edges_pending = b->edges;
	memset(&b->edges, 0, sizeof(b->edges));
	out->realtime_deferred = true;
}

bool
iso_infer_realtime_acyclic(IsoInference *inf)
{
	IsoEdgeBuf	none = {NULL, 0, 0};

	if (!inf->realtime_deferred)
		iso_host_internal_error("no deferred real-time order to check");
	if (!iso_realtime_order_acyclic(&inf->realtime_order, inf->edges_pending.edges,
									inf->edges_pending.n))
		return false;
	iso_free(inf->edges_pending.edges);
	memset(&inf->edges_pending, 0, sizeof(inf->edges_pending));
	iso_realtime_order_free(&inf->realtime_order);
	inf->realtime_deferred = false;
	/* no cycle: the vertices alone give every cycle check's answer */
	iso_graph_finish_unsorted(&inf->graph, inf->n_vertices, &none, NULL);
	inf->graph.unsorted = false;
	return true;
}

void
iso_infer_add_realtime(IsoInference *inf, const IsoHistory *h)
{
	IsoEdgeBuf	buf = inf->edges_pending;
	uint64		more;

	if (!inf->realtime_deferred)
		return;
	/* room for the rt edges at once: the buffer is the largest array */
	more = inf->realtime.dense ? (uint64) 3 * inf->n_vertices : inf->realtime.n_reduction;
	if (buf.edges != NULL && buf.cap < buf.n + more)
	{
		buf.cap = buf.n + more;
		buf.edges = iso_realloc(buf.edges, sizeof(IsoEdge) * buf.cap);
	}
	memset(&inf->edges_pending, 0, sizeof(inf->edges_pending));
	iso_realtime_order_edges(&inf->realtime_order, &buf, &inf->realtime);
	iso_realtime_order_free(&inf->realtime_order);
	inf->realtime_deferred = false;
	iso_host_return_free_memory();
	iso_graph_finish_unsorted(&inf->graph, inf->n_vertices + inf->realtime.n_points,
							  &buf, h);
}
