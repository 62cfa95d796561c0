/*
 * realtime.h
 *	  Real-time order (rt edges) in space linear in the history.
 *
 * T1 -> T2 when T1 completed before T2 was invoked.  The relation itself
 * can have n^2 pairs and so can its transitive reduction (n transactions
 * that all complete before n others are invoked).  isograph keeps the
 * reduction when it is small (at most ISO_RT_MAX_FANOUT edges per timed
 * transaction, which covers ordinary histories: their fan-out is about the
 * number of concurrent processes) and otherwise represents the order
 * through auxiliary "time point" vertices numbered after the transactions:
 *
 *	T --rt--> point(T's completion) --rt--> next point ... --rt--> S
 *
 * for every S invoked after that point.  A point is a maximal run of
 * completions between two invocations, so there are at most 3n edges and
 * T reaches S through points iff T completed before S was invoked: cycle
 * verdicts are those of the full relation.  Points have no transaction;
 * every user-facing output hides them (iso_rt_collapse_cycle).
 */
#ifndef ISOGRAPH_REALTIME_H
#define ISOGRAPH_REALTIME_H

#include "graph.h"
#include "history.h"

/*
 * The largest transitive reduction kept as edges between transactions, for
 * n transactions: ISO_RT_MAX_FANOUT edges per transaction (plus a little
 * for tiny histories).
 */
#define ISO_RT_MAX_FANOUT	16
#define ISO_RT_LIMIT(n)		((uint64) ISO_RT_MAX_FANOUT * (n) + 1024)

/* How the rt relation of a graph is represented. */
typedef struct IsoRealtimeInfo
{
	uint32		n_timed;		/* vertices with a known invocation time */
	uint32		n_points;		/* auxiliary vertices (0 unless dense) */
	uint32		first_point;	/* vertex number of the first point */
	bool		dense;			/* reduction too large: built through points */
	uint64		n_reduction;	/* edges of the transitive reduction */
} IsoRealtimeInfo;

/*
 * Add the rt edges among n vertices (graph vertex numbers vertices[0..n),
 * or 0..n-1 when vertices is NULL; vertex_txn maps them to transactions of
 * h) to buf: the transitive reduction if it has at most max_reduction
 * edges (normally ISO_RT_LIMIT(n)), else the order through time points
 * numbered from first_free (the first vertex number transactions do not
 * use), or, with allow_points false, nothing (info->dense says which).
 * Time O(n log n) for the sort plus O(n + edges added); memory O(n).
 */
extern void iso_realtime_edges(const IsoHistory *h, const uint32 *vertex_txn,
							   const uint32 *vertices, uint32 n,
							   uint64 max_reduction,
							   uint32 first_free, bool allow_points,
							   IsoEdgeBuf *buf, IsoRealtimeInfo *info);

/*
 * The real-time order of n vertices (0..n-1, vertex_txn mapping them to
 * transactions) kept as its events in time order, without edges, for a
 * check that needs the edges only when the order closes a cycle: a history
 * that holds never makes them (docs/performance.md).  info is filled as
 * iso_realtime_edges(..., max_reduction, n, true, ...) would fill it, but
 * for n_points: no point exists until iso_realtime_order_edges.
 */
typedef struct IsoRealtimeOrder
{
	uint32	   *ev;				/* invocations and completions in time order */
	uint32		n_ev;
	uint32		n;				/* vertices */
	uint64		max_reduction;
	uint64		two_threads_from;	/* edges from which the check groups them
									 * on two threads (UINT64_MAX: never) */
} IsoRealtimeOrder;

extern void iso_realtime_order_build(const IsoHistory *h, const uint32 *vertex_txn,
									 uint32 n, uint64 max_reduction,
									 IsoRealtimeOrder *order, IsoRealtimeInfo *info);

/*
 * Whether edges[0..n_edges) (among the order's n vertices, in any order;
 * self-edges count for nothing, as in a graph) together with the
 * real-time order have no cycle.  O(V + E) time; about 30 bytes a vertex
 * (42 when the edges are grouped on two threads, two_threads_from) and 4
 * an edge of memory, for the pass only.
 */
extern bool iso_realtime_order_acyclic(const IsoRealtimeOrder *order,
									   const IsoEdge *edges, uint64 n_edges);

/* Add the order's edges to buf, as iso_realtime_edges would (points from n). */
extern void iso_realtime_order_edges(IsoRealtimeOrder *order, IsoEdgeBuf *buf,
									 IsoRealtimeInfo *info);
extern void iso_realtime_order_free(IsoRealtimeOrder *order);

/*
 * A witness cycle over a graph with points (graph vertices >= n_txn_vertices),
 * as edges between transactions: rotated to start at a transaction, each
 * run of rt edges through points replaced by one rt edge T -> S (no key, no
 * ops).  out needs room for length edges.  Returns the new length.
 */
extern uint32 iso_rt_collapse_cycle(const IsoGraph *graph, uint32 n_txn_vertices,
									const uint64 *edges, uint32 length,
									IsoEdge *out);

#endif							/* ISOGRAPH_REALTIME_H */
