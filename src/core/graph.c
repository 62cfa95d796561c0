/*
 * graph.c
 *	  Edge buffer and the CSR dependency graph (graph.h).
 *
 * iso_graph_finish takes the buffer's array over: drop self-edges, bucket by
 * `from` in place (a permutation into a few hundred coarse vertex ranges,
 * then a counting sort inside each range through a scratch array of one
 * range's size), sort each vertex's out-edges by (to, type, key, from_op,
 * to_op) (an edge's key is its from op's, looked up in the history:
 * graph.h), keep the first edge of each (from, to, type) group, build
 * out_start and shrink the array to the edges kept.  No global O(E log E)
 * sort.  iso_graph_finish_unsorted stops after the bucketing, and
 * iso_graph_sort does the rest when something needs it.  Peak memory: the buffer, plus about n / 256 edges of scratch
 * (more only when one vertex range holds more), plus two (V + 1)-entry
 * arrays.
 */
#include "port.h"
#include "graph.h"

#define INTERRUPT_MASK	0xFFFF

/* a hint, no more: fetch for writing what a loop touches soon */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH_W(p)	__builtin_prefetch((p), 1)
#define PREFETCH_R(p)	__builtin_prefetch((p), 0)
#else
#define PREFETCH_R(p)	((void) 0)
#define PREFETCH_W(p)	((void) 0)
#endif

static Size
edge_bytes(uint64 n)
{
	if (n > (uint64) (((Size) -1) / sizeof(IsoEdge)))
		iso_host_limit("its dependency graph has too many edges for one array");
	return (Size) n * sizeof(IsoEdge);
}

void
iso_edgebuf_init(IsoEdgeBuf *buf, uint64 initial)
{
	if (initial < 16)
		initial = 16;
	buf->edges = (IsoEdge *) iso_alloc(edge_bytes(initial));
	buf->n = 0;
	buf->cap = initial;
}

void
iso_edgebuf_add(IsoEdgeBuf *buf, uint32 from, uint32 to, IsoEdgeType type,
				uint32 key, int32 from_op, int32 to_op)
{
	IsoEdge    *e;

	if (buf->n >= buf->cap)
	{
		uint64		newcap;

		if (buf->cap == 0 || buf->edges == NULL)
		{
			newcap = 64;
			buf->edges = (IsoEdge *) iso_alloc(edge_bytes(newcap));
		}
		else
		{
			if (buf->cap > PG_INT64_MAX / 2)
				iso_host_limit("its dependency graph has too many edges");
			newcap = buf->cap * 2;
			buf->edges = (IsoEdge *) iso_realloc(buf->edges, edge_bytes(newcap));
		}
		buf->cap = newcap;
		/* the edge array is what grows with the history: check each doubling */
		ISO_CHECK_MEMORY();
	}
	if (to_op > ISO_EDGE_MAX_OP)
		iso_host_limit("more than 2^28 micro-operations");
	e = &buf->edges[buf->n++];
	e->from = from;
	e->to = to;
	/* with a from op, the key is the op's (graph.h); else keep it here */
	if (from_op >= 0)
		e->from_ref = from_op;
	else if (key == ISO_NO_KEY)
		e->from_ref = ISO_NO_OP;
	else if (key > ISO_EDGE_MAX_REF_KEY)
		iso_host_limit("more than 2^31 - 1 keys");
	else
		e->from_ref = (int32) (-2 - (int64) key);
	e->to_op = to_op;
	e->type = (unsigned int) type;
}

/* as it is: from_ref holds the from op or the key already */
void
iso_edgebuf_push(IsoEdgeBuf *buf, const IsoEdge *e)
{
	iso_edgebuf_add(buf, e->from, e->to, (IsoEdgeType) e->type, ISO_NO_KEY,
					ISO_NO_OP, e->to_op);
	buf->edges[buf->n - 1].from_ref = e->from_ref;
}

static inline void
edge_swap(IsoEdge *a, IsoEdge *b)
{
	IsoEdge		t = *a;

	*a = *b;
	*b = t;
}

static void
insertion_sort(const IsoHistory *h, IsoEdge *e, uint64 n)
{
	uint64		i;

	for (i = 1; i < n; i++)
	{
		IsoEdge		x = e[i];
		uint64		j = i;

		while (j > 0 && iso_edge_cmp(h, &x, &e[j - 1]) < 0)
		{
			e[j] = e[j - 1];
			j--;
		}
		e[j] = x;
	}
}

/*
 * Sort edges by iso_edge_cmp (in the graph build, one vertex's out-edges):
 * a quicksort with the comparison inlined (qsort's call per comparison cost
 * more than the rest of the sort), the smaller side recursed into so the
 * depth stays O(log n), short runs by insertion.
 */
void
iso_edge_sort(const IsoHistory *h, IsoEdge *e, uint64 n)
{
	while (n > 24)
	{
		uint64		mid = n / 2;
		uint64		i = 0,
					j = n - 1;
		IsoEdge		pivot;

		/* median of three as the pivot */
		if (iso_edge_cmp(h, &e[mid], &e[0]) < 0)
			edge_swap(&e[mid], &e[0]);
		if (iso_edge_cmp(h, &e[n - 1], &e[0]) < 0)
			edge_swap(&e[n - 1], &e[0]);
		if (iso_edge_cmp(h, &e[n - 1], &e[mid]) < 0)
			edge_swap(&e[n - 1], &e[mid]);
		pivot = e[mid];
		for (;;)
		{
			while (iso_edge_cmp(h, &e[i], &pivot) < 0)
				i++;
			while (iso_edge_cmp(h, &pivot, &e[j]) < 0)
				j--;
			if (i >= j)
				break;
			edge_swap(&e[i], &e[j]);
			i++;
			j--;
		}
		/* e[0..j] <= pivot <= e[j+1..n-1] */
		if (j + 1 < n - j - 1)
		{
			iso_edge_sort(h, e, j + 1);
			e += j + 1;
			n -= j + 1;
		}
		else
		{
			iso_edge_sort(h, e + j + 1, n - j - 1);
			n = j + 1;
		}
	}
	insertion_sort(h, e, n);
}

/*
 * Coarse buckets of the CSR build: consecutive vertex ranges holding about
 * n / COARSE_TARGET edges each (a vertex with more edges gets a range of its
 * own), so that few enough of them exist for the in-place permutation into
 * them to write through a few hundred cache lines and pages only.
 */
#define COARSE_TARGET	256

/* how far ahead in a coarse bucket the permutation prefetches, in edges */
#define PREFETCH_AHEAD	16

void
iso_graph_free(IsoGraph *graph)
{
	iso_free(graph->edges);
	iso_free(graph->out_start);
	memset(graph, 0, sizeof(*graph));
}

/*
 * Bucket the edges by `from` in place (start: where each vertex's go), in
 * two levels.  (A scatter into a fresh array held the buffer and its sorted
 * copy at once, the peak of a check; an in-place permutation straight into
 * the vertices' buckets waits for a cache and TLB miss at each move: at 1M
 * transactions it was 5 s slower.)
 *
 * a. In-place permutation (American flag sort) into coarse buckets,
 *    ranges of consecutive vertices, few enough that their write
 *    positions stay in cache.
 * b. Inside each coarse bucket of more than one vertex: copy it out to a
 *    scratch array of the largest such bucket's size, scatter back by
 *    vertex.  The scatter's targets lie within the bucket.
 */
static void
bucket_by_from(IsoEdge *edges, uint64 n, const uint64 *start, uint32 n_vertices)
{
	uint32		v;
	uint64		i;
	uint64		target = Max(n / COARSE_TARGET, 1);
	uint16	   *vbucket;
	uint64	   *bstart;		/* edge offset where coarse bucket b begins */
	uint32	   *bfirst;		/* its first vertex */
	uint64	   *head;
	uint32		nb = 0;
	uint32		b;
	uint64		cur = 0;
	uint64		scratch_n = 0;
	uint64		moves = 0;
	IsoEdge    *scratch;
	uint64	   *next;

	/*
	 * Greedy ranges: two consecutive ones hold more than `target` edges
	 * together, so there are at most 2 n / target + 1 <= 2 *
	 * 2 * COARSE_TARGET + 1 of them.
	 */
	vbucket = (uint16 *) iso_alloc(((Size) n_vertices + 1) * sizeof(uint16));
	bstart = (uint64 *) iso_alloc((4 * COARSE_TARGET + 2) * sizeof(uint64));
	bfirst = (uint32 *) iso_alloc((4 * COARSE_TARGET + 2) * sizeof(uint32));
	for (v = 0; v < n_vertices; v++)
	{
		uint64		cnt = start[v + 1] - start[v];

		if (nb == 0 || (cur > 0 && cur + cnt > target))
		{
			if (nb >= 4 * COARSE_TARGET + 1)
				iso_host_internal_error("too many coarse edge buckets");
			bstart[nb] = start[v];
			bfirst[nb] = v;
			nb++;
			cur = 0;
		}
		cur += cnt;
		vbucket[v] = (uint16) (nb - 1);
	}
	bstart[nb] = n;
	bfirst[nb] = n_vertices;

	/* a. permute in place into the coarse buckets */
	head = (uint64 *) iso_alloc(((Size) nb + 1) * sizeof(uint64));
	memcpy(head, bstart, ((Size) nb + 1) * sizeof(uint64));
	for (b = 0; b < nb; b++)
	{
		while (head[b] < bstart[b + 1])
		{
			IsoEdge		x = edges[head[b]];
			uint32		t = vbucket[x.from];

			while (t != b)
			{
				IsoEdge		y = edges[head[t]];

				edges[head[t]++] = x;
				/*
				 * The next move into bucket t reads the edge now at
				 * head[t] and looks its source's bucket up: fetch that
				 * entry of vbucket now (the edge itself came with an
				 * earlier prefetch), and the edge PREFETCH_AHEAD further
				 * on.  Without them each move waited for a miss: the
				 * permutation took about 40 ns an edge on random sources
				 * instead of under 20.
				 */
				if (head[t] + PREFETCH_AHEAD < n)
					PREFETCH_W(&edges[head[t] + PREFETCH_AHEAD]);
				if (head[t] < bstart[t + 1])
					PREFETCH_R(&vbucket[edges[head[t]].from]);
				x = y;
				t = vbucket[x.from];
				if ((++moves & INTERRUPT_MASK) == 0)
					ISO_CHECK_INTERRUPTS();
			}
			edges[head[b]++] = x;
			if ((++moves & INTERRUPT_MASK) == 0)
				ISO_CHECK_INTERRUPTS();
		}
	}
	iso_free(head);
	iso_free(vbucket);

	/* b. inside each coarse bucket of several vertices, by vertex */
	for (b = 0; b < nb; b++)
		if (bfirst[b + 1] - bfirst[b] > 1 &&
			bstart[b + 1] - bstart[b] > scratch_n)
			scratch_n = bstart[b + 1] - bstart[b];
	if (scratch_n > 0)
	{
		scratch = (IsoEdge *) iso_alloc(edge_bytes(scratch_n));
		next = (uint64 *) iso_alloc(((Size) n_vertices + 1) * sizeof(uint64));
		memcpy(next, start, ((Size) n_vertices + 1) * sizeof(uint64));
		for (b = 0; b < nb; b++)
		{
			uint64		bs = bstart[b];
			uint64		bn = bstart[b + 1] - bs;

			if (bfirst[b + 1] - bfirst[b] <= 1 || bn == 0)
				continue;
			memcpy(scratch, edges + bs, (Size) bn * sizeof(IsoEdge));
			for (i = 0; i < bn; i++)
				edges[next[scratch[i].from]++] = scratch[i];
			ISO_CHECK_INTERRUPTS();
		}
		iso_free(next);
		iso_free(scratch);
	}
	iso_free(bfirst);
	iso_free(bstart);
}

/*
 * Hand an edge array over to a graph, shrunk to n edges (one edge for an
 * empty graph, so that edges is never NULL).
 */
static void
graph_take(IsoGraph *graph, uint32 n_vertices, IsoEdge *edges, uint64 n,
		   uint64 *start, IsoEdgeBuf *buf)
{
	if (edges == NULL)
		edges = (IsoEdge *) iso_alloc(sizeof(IsoEdge));
	else if (n > 0)
		edges = (IsoEdge *) iso_realloc(edges, edge_bytes(n));

	graph->n_vertices = n_vertices;
	graph->n_edges = n;
	graph->edges = edges;
	graph->out_start = start;

	buf->edges = NULL;
	buf->n = 0;
	buf->cap = 0;
}

void
iso_graph_finish_unsorted(IsoGraph *graph, uint32 n_vertices, IsoEdgeBuf *buf,
						  const IsoHistory *h)
{
	IsoEdge    *edges = buf->edges;
	uint64		n = (edges != NULL) ? buf->n : 0;
	uint64		i,
				w;
	uint64	   *start;
	uint32		v;

	/*
	 * 1. validate, drop self-edges (compaction keeps the relative order),
	 * count each vertex's out-edges (one pass over the buffer for the three)
	 */
	start = (uint64 *) iso_alloc0(((Size) n_vertices + 1) * sizeof(uint64));
	w = 0;
	for (i = 0; i < n; i++)
	{
		if (edges[i].from >= n_vertices || edges[i].to >= n_vertices)
			iso_host_internal_error("edge endpoint out of range");
		/* the sort looks the keys of from ops up in h */
		if (edges[i].from_ref >= 0 &&
			(h == NULL || (uint32) edges[i].from_ref >= h->n_ops))
			iso_host_internal_error("edge op out of range");
		if (edges[i].from == edges[i].to)
			continue;
		start[edges[i].from + 1]++;
		if (w != i)
			edges[w] = edges[i];
		w++;
		if ((i & INTERRUPT_MASK) == 0)
			ISO_CHECK_INTERRUPTS();
	}
	n = w;

	/* 2. where each vertex's out-edges go: prefix sums of the counts */
	for (v = 0; v < n_vertices; v++)
		start[v + 1] += start[v];

	if (n > 0)
		bucket_by_from(edges, n, start, n_vertices);

	graph_take(graph, n_vertices, edges, n, start, buf);
	graph->unsorted = true;
}

void
iso_graph_sort(IsoGraph *graph, const IsoHistory *h)
{
	IsoEdge    *edges = graph->edges;
	uint64	   *start = graph->out_start;
	uint64		w = 0;
	uint32		v;

	if (!graph->unsorted)
		return;

	/* 3. sort each bucket, keep the first of each (to, type) group */
	for (v = 0; v < graph->n_vertices; v++)
	{
		uint64		b = start[v];
		uint64		e = start[v + 1];
		uint64		j;

		iso_edge_sort(h, edges + b, e - b);
		start[v] = w;
		for (j = b; j < e; j++)
		{
			if (j > b && edges[j].to == edges[w - 1].to &&
				edges[j].type == edges[w - 1].type)
				continue;
			if (w != j)
				edges[w] = edges[j];
			w++;
		}
		if ((v & INTERRUPT_MASK) == 0)
			ISO_CHECK_INTERRUPTS();
	}
	start[graph->n_vertices] = w;

	/* 4. shrunk to the edges kept */
	if (w > 0 && w < graph->n_edges)
		graph->edges = (IsoEdge *) iso_realloc(edges, edge_bytes(w));
	graph->n_edges = w;
	graph->unsorted = false;
}

void
iso_graph_finish(IsoGraph *graph, uint32 n_vertices, IsoEdgeBuf *buf,
				 const IsoHistory *h)
{
	iso_graph_finish_unsorted(graph, n_vertices, buf, h);
	iso_graph_sort(graph, h);
}

void
iso_graph_count(const IsoGraph *graph, uint64 counts[ISO_EDGE_NTYPES])
{
	uint64		i;
	int			t;

	if (graph->unsorted)
		iso_host_internal_error("edges counted before their repeats are dropped");
	for (t = 0; t < ISO_EDGE_NTYPES; t++)
		counts[t] = 0;
	for (i = 0; i < graph->n_edges; i++)
	{
		if (graph->edges[i].type < ISO_EDGE_NTYPES)
			counts[graph->edges[i].type]++;
		if ((i & INTERRUPT_MASK) == 0)
			ISO_CHECK_INTERRUPTS();
	}
}
