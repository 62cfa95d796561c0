/*
 * graph.h
 *	  The compact dependency graph every check runs on.
 *
 * Vertices are dense integers 0..n_vertices-1 (the caller maps them to
 * transaction ids).  Edges live in one array sorted by (from, to, type) and
 * indexed CSR-style: the edges leaving v are edges[out_start[v]] ..
 * edges[out_start[v + 1] - 1].  An edge keeps its key and the two
 * micro-operations that caused it, so a witness can be explained.
 */
#ifndef ISOGRAPH_GRAPH_H
#define ISOGRAPH_GRAPH_H

#include "port.h"

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
 * An edge is 20 bytes: to_op and type share a word.  So an op index on an
 * edge is below 2^28 (iso_edgebuf_add stops a check past that: a history
 * of 268M micro-operations), and 3 bits hold every IsoEdgeType.
 */
#define ISO_EDGE_OP_BITS	29
#define ISO_EDGE_MAX_OP		((1 << (ISO_EDGE_OP_BITS - 1)) - 1)

typedef struct IsoEdge
{
	uint32		from;
	uint32		to;
	uint32		key;			/* dense key id, ISO_NO_KEY for so/rt */
	int32		from_op;		/* op index (IsoHistory.ops) or ISO_NO_OP */
	signed int	to_op:ISO_EDGE_OP_BITS;	/* op index or ISO_NO_OP */
	unsigned int type:3;		/* IsoEdgeType */
} IsoEdge;

/*
 * The order iso_graph_finish gives one vertex's out-edges: (to, type, key,
 * from_op, to_op).  Inline: it is the edge sort's comparison; search.c
 * merges edges into finished graphs by the same order.
 */
static inline int
iso_edge_cmp_same_from(const IsoEdge *a, const IsoEdge *b)
{
	if (a->to != b->to)
		return a->to < b->to ? -1 : 1;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->from_op != b->from_op)
		return a->from_op < b->from_op ? -1 : 1;
	if (a->to_op != b->to_op)
		return a->to_op < b->to_op ? -1 : 1;
	return 0;
}

typedef struct IsoGraph
{
	uint32		n_vertices;
	uint64		n_edges;
	IsoEdge    *edges;			/* sorted by (from, to, type), unique */
	uint64	   *out_start;		/* n_vertices + 1 offsets into edges */
} IsoGraph;

/* A growable edge array; edges are appended, then finished into a graph. */
typedef struct IsoEdgeBuf
{
	IsoEdge    *edges;
	uint64		n;
	uint64		cap;
} IsoEdgeBuf;

extern void iso_edgebuf_init(IsoEdgeBuf *buf, uint64 initial);
extern void iso_edgebuf_add(IsoEdgeBuf *buf, uint32 from, uint32 to,
							IsoEdgeType type, uint32 key,
							int32 from_op, int32 to_op);

/* Sort, drop self-edges and duplicates (keeping the first), build the CSR. */
extern void iso_graph_finish(IsoGraph *graph, uint32 n_vertices, IsoEdgeBuf *buf);
/* Frees a finished graph's arrays and zeroes it (a zeroed graph is fine). */
extern void iso_graph_free(IsoGraph *graph);

/* Edge counts per type. */
extern void iso_graph_count(const IsoGraph *graph, uint64 counts[ISO_EDGE_NTYPES]);

extern const char *iso_edge_type_name(IsoEdgeType type);
extern bool iso_edge_type_parse(const char *s, IsoEdgeType *type);

#endif							/* ISOGRAPH_GRAPH_H */
