/*
 * graph.h
 *	  The compact dependency graph every check runs on.
 *
 * Vertices are dense integers 0..n_vertices-1 (the caller maps them to
 * transaction ids).  Edges live in one array sorted by (from, to, type) and
 * indexed CSR-style: the edges leaving v are edges[out_start[v]] ..
 * edges[out_start[v + 1] - 1].  An edge keeps the two micro-operations
 * that caused it (and through them its key), so a witness can be explained.
 */
#ifndef ISOGRAPH_GRAPH_H
#define ISOGRAPH_GRAPH_H

#include "port.h"
#include "history.h"

typedef enum IsoEdgeType
{
	ISO_EDGE_WW = 0,			/* write dependency */
	ISO_EDGE_WR = 1,			/* read dependency */
	ISO_EDGE_RW = 2,			/* anti-dependency */
	ISO_EDGE_SO = 3,			/* session order */
	ISO_EDGE_RT = 4,			/* real-time order */
	ISO_EDGE_NTYPES = 5
} IsoEdgeType;

#define ISO_EDGE_BIT(t)		(1u << (t))
#define ISO_EDGES_D			(ISO_EDGE_BIT(ISO_EDGE_WW) | ISO_EDGE_BIT(ISO_EDGE_WR))
#define ISO_EDGES_DATA		(ISO_EDGES_D | ISO_EDGE_BIT(ISO_EDGE_RW))

#define ISO_NO_KEY			PG_UINT32_MAX
#define ISO_NO_OP			(-1)

/*
 * An edge is 16 bytes: to_op and type share a word, and the edge keeps no
 * key of its own.  So an op index on an edge is below 2^28
 * (iso_edgebuf_add stops a check past that: a history of 268M
 * micro-operations), and 3 bits hold every IsoEdgeType.
 *
 * The key.  Every edge the graph builder and the version-order search make
 * (ww, wr, rw) names the two ops that cause it, and both are ops on the
 * edge's key; so and rt edges name no op and have no key.  So the key of an
 * edge with a from op is that op's key, read from the history
 * (iso_edge_key), and from_ref holds the op.  Only an edge made without ops
 * can carry a key the ops do not give: iso_check_edges reads stored edges
 * (a key, no ops), and tests make such edges.  Then from_ref, whose op slot
 * is free, holds the key instead: ISO_NO_OP for no key, else -2 - key.  A
 * 20-byte edge with a key field cost 70 MB at 1M list-append transactions
 * (17.4M edges) and the page faults of writing them.
 *
 * The caller of iso_edgebuf_add promises that an edge with a from op has
 * that op's key (the key argument is then dropped); iso_edge_key needs the
 * history of those ops, and may get NULL for a graph with none.
 */
#define ISO_EDGE_OP_BITS	29
#define ISO_EDGE_MAX_OP		((1 << (ISO_EDGE_OP_BITS - 1)) - 1)

/* the largest key an edge without ops can hold in from_ref */
#define ISO_EDGE_MAX_REF_KEY	((uint32) PG_INT32_MAX - 1)

typedef struct IsoEdge
{
	uint32		from;
	uint32		to;
	int32		from_ref;		/* >= 0: from op index (IsoHistory.ops);
								 * else no from op, and ISO_NO_OP or
								 * -2 - key (see above) */
	signed int	to_op:ISO_EDGE_OP_BITS;	/* op index or ISO_NO_OP */
	unsigned int type:3;		/* IsoEdgeType */
} IsoEdge;

/* The op an edge comes from, or ISO_NO_OP. */
static inline int32
iso_edge_from_op(const IsoEdge *e)
{
	return e->from_ref >= 0 ? e->from_ref : ISO_NO_OP;
}

/*
 * The key of an edge: its from op's key, else the key it holds, else
 * ISO_NO_KEY.  h: the history whose ops the graph's edges name (NULL only
 * when no edge names one).
 */
static inline uint32
iso_edge_key(const IsoHistory *h, const IsoEdge *e)
{
	if (e->from_ref >= 0)
		return h->ops[e->from_ref].key;
	if (e->from_ref == ISO_NO_OP)
		return ISO_NO_KEY;
	return (uint32) (-2 - (int64) e->from_ref);
}

/*
 * The order iso_graph_finish gives one vertex's out-edges: (to, type, key,
 * from_op, to_op).  Inline: it is the edge sort's comparison; search.c
 * merges edges into finished graphs by the same order.
 *
 * Equal from_refs have equal keys and from ops, so the key is looked up
 * only when they differ.  After equal keys, from_ref orders as from_op: two
 * negative from_refs with one key are equal (one encoding), and a negative
 * one (no op, from_op -1) is below any op index.
 */
static inline int
iso_edge_cmp_same_from(const IsoHistory *h, const IsoEdge *a, const IsoEdge *b)
{
	if (a->to != b->to)
		return a->to < b->to ? -1 : 1;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	if (a->from_ref != b->from_ref)
	{
		uint32		ka = iso_edge_key(h, a);
		uint32		kb = iso_edge_key(h, b);

		if (ka != kb)
			return ka < kb ? -1 : 1;
		return a->from_ref < b->from_ref ? -1 : 1;
	}
	if (a->to_op != b->to_op)
		return a->to_op < b->to_op ? -1 : 1;
	return 0;
}

/* The order of a finished graph's edges: by from, then as above. */
static inline int
iso_edge_cmp(const IsoHistory *h, const IsoEdge *a, const IsoEdge *b)
{
	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	return iso_edge_cmp_same_from(h, a, b);
}

typedef struct IsoGraph
{
	uint32		n_vertices;
	uint64		n_edges;
	IsoEdge    *edges;			/* sorted by (from, to, type), unique */
	uint64	   *out_start;		/* n_vertices + 1 offsets into edges */
	/*
	 * True after iso_graph_finish_unsorted: each vertex's out-edges are in
	 * place but in no order, and repeats of (from, to, type) are kept.
	 * Enough for the strongly connected components; everything that walks
	 * edges in order or counts them needs iso_graph_sort first.
	 */
	bool		unsorted;
} IsoGraph;

/* A growable edge array; edges are appended, then finished into a graph. */
typedef struct IsoEdgeBuf
{
	IsoEdge    *edges;
	uint64		n;
	uint64		cap;
} IsoEdgeBuf;

extern void iso_edgebuf_init(IsoEdgeBuf *buf, uint64 initial);
/* key: the edge's; with a from op, that op's key (see IsoEdge) */
extern void iso_edgebuf_add(IsoEdgeBuf *buf, uint32 from, uint32 to,
							IsoEdgeType type, uint32 key,
							int32 from_op, int32 to_op);
/* Append a copy of an edge (of a graph on the same history). */
extern void iso_edgebuf_push(IsoEdgeBuf *buf, const IsoEdge *e);

/* Sort edges by iso_edge_cmp (h: as for iso_edge_key). */
extern void iso_edge_sort(const IsoHistory *h, IsoEdge *edges, uint64 n);

/*
 * Sort, drop self-edges and duplicates (keeping the first), build the CSR.
 * h: the history whose ops the edges name, as for iso_edge_key.
 */
extern void iso_graph_finish(IsoGraph *graph, uint32 n_vertices, IsoEdgeBuf *buf,
							 const IsoHistory *h);
/*
 * The first half of iso_graph_finish: self-edges dropped, out-edges bucketed
 * by `from` (the CSR), no order inside a vertex's edges, repeats kept
 * (graph->unsorted).  A history without cycles needs no more: the sort is
 * an eighth of a check that finds none (1M list-append transactions).
 */
extern void iso_graph_finish_unsorted(IsoGraph *graph, uint32 n_vertices,
									  IsoEdgeBuf *buf, const IsoHistory *h);
/* The second half: sort and drop repeats, as iso_graph_finish (no-op if sorted). */
extern void iso_graph_sort(IsoGraph *graph, const IsoHistory *h);
/* Frees a finished graph's arrays and zeroes it (a zeroed graph is fine). */
extern void iso_graph_free(IsoGraph *graph);

/* Edge counts per type. */
extern void iso_graph_count(const IsoGraph *graph, uint64 counts[ISO_EDGE_NTYPES]);

extern const char *iso_edge_type_name(IsoEdgeType type);
extern bool iso_edge_type_parse(const char *s, IsoEdgeType *type);

#endif							/* ISOGRAPH_GRAPH_H */
