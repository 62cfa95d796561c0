/*
 * scc.c
 *	  Strongly connected components: iterative Tarjan with explicit stacks
 *	  (a million-long chain must not recurse), on the graph restricted to an
 *	  edge-type mask, or on the 2-layer graph of the SI check.
 *
 * The 2-layer ("SI") graph has states 2v (v reached not by rw) and 2v+1
 * (v reached by rw).  An edge u->v of a D type (d_mask) leads from both
 * states of u to 2v; an rw edge leads only from 2u to 2v+1.  A closed walk
 * there is exactly a closed walk of the original graph with no two
 * cyclically adjacent rw edges, i.e. a cycle of (D ; rw?).
 */
#include "port.h"
#include "scc.h"

#define SCC_NONE		PG_UINT32_MAX
#define INTERRUPT_MASK	0xFFFF

/*
 * Tarjan over the plain (layered = false) or 2-layer graph.  comp[] has one
 * entry per state.  Components are numbered in the order Tarjan completes
 * them (reverse topological order of the condensation).
 */
static uint32
scc_core(const IsoGraph *g, uint32 mask, bool layered, uint32 *comp)
{
	const IsoEdge *edges = g->edges;
	const uint64 *out_start = g->out_start;
	uint32		nstates;
	uint32	   *idx;			/* DFS number; SCC_NONE once in a component */
	uint32	   *low;
	uint32	   *cs;				/* call stack: states */
	uint64	   *cpos;			/* call stack: next edge position */
	uint32	   *ts;				/* Tarjan stack */
	uint32		csp = 0,
				tsp = 0,
				next_index = 1,
				ncomp = 0,
				root;
	uint32		shift = layered ? 1 : 0;
	uint64		work = 0;

	if (layered && g->n_vertices > PG_UINT32_MAX / 2 - 1)
		iso_host_limit("more than 2^31 transactions for the 2-layer graph of the SI check");
	nstates = layered ? g->n_vertices * 2 : g->n_vertices;
	if (nstates == 0)
		return 0;

	idx = (uint32 *) iso_alloc0((Size) nstates * sizeof(uint32));
	low = (uint32 *) iso_alloc((Size) nstates * sizeof(uint32));
	cs = (uint32 *) iso_alloc((Size) nstates * sizeof(uint32));
	cpos = (uint64 *) iso_alloc((Size) nstates * sizeof(uint64));
	ts = (uint32 *) iso_alloc((Size) nstates * sizeof(uint32));
	for (root = 0; root < nstates; root++)
		comp[root] = SCC_NONE;

	for (root = 0; root < nstates; root++)
	{
		if (idx[root] != 0)
			continue;

		idx[root] = low[root] = next_index++;
		ts[tsp++] = root;
		cs[csp] = root;
		cpos[csp] = out_start[root >> shift];
		csp++;

		while (csp > 0)
		{
			uint32		u = cs[csp - 1];
			uint64		pos = cpos[csp - 1];
			uint64		end = out_start[(u >> shift) + 1];
			bool		descended = false;

			while (pos < end)
			{
				const IsoEdge *e = &edges[pos++];
				uint32		t;

				if ((++work & INTERRUPT_MASK) == 0)
					ISO_CHECK_INTERRUPTS();
				if (!(mask & ISO_EDGE_BIT(e->type)))
					continue;
				if (!iso_edge_step(e, u, layered, &t))
					continue;

				if (idx[t] == 0)
				{
					cpos[csp - 1] = pos;
					idx[t] = low[t] = next_index++;
					ts[tsp++] = t;
					cs[csp] = t;
					cpos[csp] = out_start[t >> shift];
					csp++;
					descended = true;
					break;
				}
				/* idx[t] == SCC_NONE: t's component is done (not on the stack) */
				if (idx[t] < low[u])
					low[u] = idx[t];
			}
			if (descended)
				continue;

			/* u is finished */
			csp--;
			if (low[u] == idx[u])
			{
				uint32		x;

				do
				{
					x = ts[--tsp];
					comp[x] = ncomp;
					idx[x] = SCC_NONE;
				} while (x != u);
				ncomp++;
			}
			if (csp > 0)
			{
				uint32		p = cs[csp - 1];

				if (low[u] < low[p])
					low[p] = low[u];
			}
		}
	}

	iso_free(idx);
	iso_free(low);
	iso_free(cs);
	iso_free(cpos);
	iso_free(ts);
	return ncomp;
}

uint32
iso_scc(const IsoGraph *graph, uint32 edge_mask, uint32 *comp)
{
	return scc_core(graph, edge_mask, false, comp);
}

uint32
iso_scc_si(const IsoGraph *graph, uint32 d_mask, uint32 *comp)
{
	return scc_core(graph, (d_mask & ~ISO_EDGE_BIT(ISO_EDGE_RW)) |
					ISO_EDGE_BIT(ISO_EDGE_RW), true, comp);
}

/*
 * Number of components with at least two vertices (in this graph without
 * self-edges, exactly the components containing a cycle) and the size of
 * the largest of them (0 if there is none).
 */
void
iso_scc_stats(const IsoGraph *graph, uint32 edge_mask,
			  uint32 *nontrivial, uint32 *largest)
{
	uint32		n = graph->n_vertices;
	uint32	   *comp;
	uint32	   *size;
	uint32		ncomp,
				v,
				c;

	*nontrivial = 0;
	*largest = 0;
	if (n == 0)
		return;
	comp = (uint32 *) iso_alloc((Size) n * sizeof(uint32));
	ncomp = iso_scc(graph, edge_mask, comp);
	size = (uint32 *) iso_alloc0((Size) ncomp * sizeof(uint32));
	for (v = 0; v < n; v++)
		size[comp[v]]++;
	for (c = 0; c < ncomp; c++)
	{
		if (size[c] >= 2)
		{
			(*nontrivial)++;
			if (size[c] > *largest)
				*largest = size[c];
		}
	}
	iso_free(size);
	iso_free(comp);
}
