/*
 * bench_realtime.c
 *	  Build the graph of an EDN history and check strict-serializable on it,
 *	  printing sizes and times: the standalone measure of real-time order's
 *	  memory (run under /usr/bin/time -v for the peak RSS).
 *
 *	  build/bench_realtime FILE.edn
 *
 *	  bench/isograph-gen --shape two-waves --txns 20000 makes the history
 *	  whose real-time reduction has n^2/4 edges.
 */
#define _POSIX_C_SOURCE 200809L	/* clock_gettime under -std=c99 */

#include "port.h"
#include "cycle.h"
#include "edn.h"
#include "history.h"
#include "history_edn.h"
#include "infer.h"

#include <stdio.h>
#include <time.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	FILE	   *f;
	char	   *text;
	long		len;
	IsoHistory	h;
	EdnStats	stats;
	IsoParseError err;
	IsoInference inf;
	IsoInferOptions opt = {false, false, false};
	IsoCycleList cycles;
	uint64		counts[ISO_EDGE_NTYPES];
	double		t0,
				t1,
				t2;
	bool		violated;

	if (argc != 2 || (f = fopen(argv[1], "rb")) == NULL)
	{
		fprintf(stderr, "usage: bench_realtime FILE.edn\n");
		return 2;
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = iso_alloc((size_t) len + 1);
	if (fread(text, 1, (size_t) len, f) != (size_t) len)
		return 2;
	fclose(f);
	if (!iso_history_parse_edn(text, (size_t) len, ISO_WORKLOAD_UNKNOWN, &h, &stats, &err))
	{
		fprintf(stderr, "parse error: %s\n", err.message);
		return 1;
	}
	t0 = now();
	if (!iso_infer(&h, NULL, &opt, &inf, &err))
	{
		fprintf(stderr, "infer error: %s\n", err.message);
		return 1;
	}
	t1 = now();
	memset(&cycles, 0, sizeof(cycles));
	violated = iso_find_cycles(&inf.graph, ISO_LEVEL_STRICT_SER, 4, &cycles);
	t2 = now();
	iso_graph_count(&inf.graph, counts);
	printf("transactions %u, graph vertices %u, edges %llu (rt %llu), strict-serializable %s; "
		   "build %.2f s, check %.2f s\n",
		   inf.n_vertices, inf.graph.n_vertices, (unsigned long long) inf.graph.n_edges,
		   (unsigned long long) counts[ISO_EDGE_RT], violated ? "violated" : "holds",
		   t1 - t0, t2 - t1);
	return 0;
}
