/*
 * scc.h
 *	  Strongly connected components of an IsoGraph (scc.c): of the graph
 *	  restricted to some edge types, and of the 2-layer graph of the SI
 *	  check.  The cycle searches (cycle.c) build on these.
 */
#ifndef ISOGRAPH_SCC_H
#define ISOGRAPH_SCC_H

#include "graph.h"

/*
 * One step in the SI check's 2-layer graph (states 2v: "arrived not by rw",
 * 2v+1: "arrived by rw"): a ww/wr (or so/rt) edge leads from either state
 * of u to 2*to, an rw edge only from 2u to 2*to+1.  Returns false when the
 * edge leaves no state from state (an rw edge after an rw edge).  Without
 * layers, states are vertices.
 */
static inline bool
iso_edge_step(const IsoEdge *e, uint32 state, bool layered, uint32 *next)
{
	if (!layered)
		*next = e->to;
	else if (e->type != ISO_EDGE_RW)
		*next = e->to * 2;
	else if (state & 1)
		return false;
	else
		*next = e->to * 2 + 1;
	return true;
}

/* Iterative Tarjan: comp[v] = component id; returns the number of components. */
extern uint32 iso_scc(const IsoGraph *graph, uint32 edge_mask, uint32 *comp);

/* Non-trivial components (size >= 2) of ww|wr|rw and the largest one's size. */
extern void iso_scc_stats(const IsoGraph *graph, uint32 edge_mask,
						  uint32 *nontrivial, uint32 *largest);

/*
 * SCCs of the 2-layer graph of the SI check: comp has 2 * n_vertices
 * entries, state 2v = "v reached not by rw", 2v+1 = "v reached by rw"; a
 * d_mask edge u->v leads from both states of u to 2v, an rw edge only from
 * 2u to 2v+1.  Returns the number of components.
 */
extern uint32 iso_scc_si(const IsoGraph *graph, uint32 d_mask, uint32 *comp);

#endif							/* ISOGRAPH_SCC_H */
