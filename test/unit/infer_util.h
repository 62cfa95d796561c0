/*
 * infer_util.h
 *	  Freeing an inference in the standalone unit tests (those that link
 *	  infer.c and graph.c).
 */
#ifndef ISOGRAPH_TEST_INFER_UTIL_H
#define ISOGRAPH_TEST_INFER_UTIL_H

#include <string.h>

#include "graph.h"
#include "infer.h"

static inline void
inference_free(IsoInference *inf)
{
	if (inf->vertex_txn)
		iso_free(inf->vertex_txn);
	if (inf->txn_vertex)
		iso_free(inf->txn_vertex);
	iso_graph_free(&inf->graph);
	if (inf->anomalies)
		iso_free(inf->anomalies);
	iso_infer_free_unknown(&inf->unknown);
	if (inf->realtime_deferred)
	{
		iso_realtime_order_free(&inf->realtime_order);
		iso_free(inf->edges_pending.edges);
	}
	memset(inf, 0, sizeof(*inf));
}

#endif							/* ISOGRAPH_TEST_INFER_UTIL_H */
