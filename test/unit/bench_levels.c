/*
 * bench_levels.c
 *	  All nine verdicts of an EDN history in memory, phase by phase, without
 *	  PostgreSQL: what iso_levels_jepsen does, for profiling the core with
 *	  perf and measuring its peak memory (printed from /proc/self/status).
 *
 *	  build/bench_levels FILE.edn
 */
#define _POSIX_C_SOURCE 200809L	/* clock_gettime under -std=c99 */

#include "port.h"
#include "cycle.h"
#include "edn.h"
#include "history.h"
#include "history_edn.h"
#include "infer.h"
#include "levels.h"
#include "names.h"
#include "search.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long
rss_kb(const char *field)
{
	FILE	   *f = fopen("/proc/self/status", "r");
	char		line[256];
	long		kb = -1;

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, field, strlen(field)) == 0)
			sscanf(line + strlen(field), "%ld", &kb);
	if (f)
		fclose(f);
	return kb;
}

static long
peak_rss_kb(void)
{
	FILE	   *f = fopen("/proc/self/status", "r");
	char		line[256];
	long		kb = -1;

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "VmHWM:", 6) == 0)
			sscanf(line + 6, "%ld", &kb);
	if (f)
		fclose(f);
	return kb;
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
	IsoSccCache *cache;
	double		t0, t1, t2, t3, t4;
	int			l;
	long		peak_parse;

	bool		search = true;
	bool		prune_bfs = false;
	double		search_timeout = 60;
	uint64		max_memory_mb = 4096;	/* as isograph.max_memory: 3 GB of
										 * order bits, 8M variables, 4 GB
										 * for both */

	while (argc > 2 && argv[1][0] == '-')
	{
		if (strcmp(argv[1], "--no-search") == 0)
			search = false;
		else if (strcmp(argv[1], "--prune-bfs") == 0)
			prune_bfs = true;
		else if (strcmp(argv[1], "--max-memory") == 0 && argc > 3)
		{
			max_memory_mb = strtoull(argv[2], NULL, 10);
			argv++;
			argc--;
		}
		else if (strcmp(argv[1], "--timeout") == 0 && argc > 3)
		{
			search_timeout = atof(argv[2]);
			argv++;
			argc--;
		}
		argv++;
		argc--;
	}
	if (argc != 2 || (f = fopen(argv[1], "rb")) == NULL)
	{
		fprintf(stderr, "usage: bench_levels [--no-search] [--prune-bfs] [--timeout SECONDS] [--max-memory MB] FILE.edn\n");
		return 2;
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = iso_alloc((size_t) len + 1);
	if (fread(text, 1, (size_t) len, f) != (size_t) len)
		return 2;
	fclose(f);
	t0 = now();
	if (!iso_history_parse_edn(text, (size_t) len, ISO_WORKLOAD_UNKNOWN, &h, &stats, &err))
	{
		fprintf(stderr, "parse error: %s\n", err.message);
		return 1;
	}
	iso_free(text);
	t1 = now();
	/* the parse's peak, then reset the high-water mark (Linux) so the
	 * final peak is that of the inference, graph and checks alone */
	peak_parse = peak_rss_kb();
	printf("after parse: peak %ld MB, now %ld MB\n", peak_parse / 1024, rss_kb("VmRSS:") / 1024);
	printf("history: %u txns (%zu MB), %u ops (%zu MB), %llu list elements (%llu MB), "
		   "%u keys, %u values (%llu MB of text and tables)\n",
		   h.n_txns, (size_t) h.n_txns * sizeof(IsoTxn) >> 20,
		   h.n_ops, (size_t) h.n_ops * sizeof(IsoOp) >> 20,
		   (unsigned long long) h.n_elems, (unsigned long long) (h.n_elems * 4) >> 20,
		   h.keys.n, h.values.n,
		   (unsigned long long) (h.values.arena_len + (uint64) h.values.n * 12 +
								 (uint64) h.values.nslots * 4 + h.keys.arena_len +
								 (uint64) h.keys.n * 12 + (uint64) h.keys.nslots * 4) >> 20);
	{
		FILE	   *cr = fopen("/proc/self/clear_refs", "w");

		if (cr)
		{
			fputs("5", cr);
			fclose(cr);
		}
	}
	if (!iso_infer(&h, NULL, &opt, &inf, &err))
	{
		fprintf(stderr, "infer error: %s\n", err.message);
		return 1;
	}
	t2 = now();
	cache = iso_scc_cache_create();
	iso_scc_cache_prime(cache, &inf.graph);
	t3 = now();
	if (search)
	{
		/* the limits the server derives from isograph.max_memory (check_sql.c) */
		IsoSearchOptions so = {search_timeout, max_memory_mb * 1024 * 1024 / 4 * 3 * 8,
			max_memory_mb * 1024 * 1024 / 2 / 256, 3, false, false, 0.0,
			prune_bfs ? ISO_PRUNE_BFS : ISO_PRUNE_AUTO, max_memory_mb * 1024 * 1024};
		IsoLevelDecision d[ISO_LEVEL_COUNT];

		iso_decide_levels(&h, &inf, (1u << ISO_LEVEL_COUNT) - 1, &so, cache, d);
		for (l = 0; l < ISO_LEVEL_COUNT; l++)
		{
			printf("  %-28s %-9s %-11s", iso_level_name((IsoLevel) l),
				   d[l].method == ISO_NOT_DECIDED ? "undecided" : d[l].holds ? "holds" : "violated",
				   iso_verdict_method_name(d[l].method));
			if (d[l].method == ISO_BY_IMPLICATION)
				printf(" (from %s)", iso_level_name(d[l].via));
			if (d[l].searched)
				printf(" (search: %llu constraints, %llu after pruning, %u rounds (%u by closure), %llu forced, %u solver calls, %llu clauses, %.3f s%s%s)",
					   (unsigned long long) d[l].search.stats.constraints,
					   (unsigned long long) d[l].search.stats.constraints_left,
					   d[l].search.stats.prune_rounds, d[l].search.stats.closure_rounds,
					   (unsigned long long) d[l].search.stats.forced,
					   d[l].search.stats.solver_calls,
					   (unsigned long long) d[l].search.stats.clauses, d[l].search.stats.seconds,
					   d[l].search.reason ? ": " : "", d[l].search.reason ? d[l].search.reason : "");
			printf("\n");
		}
	}
	else
		for (l = 0; l < ISO_LEVEL_COUNT; l++)
		{
			IsoCycleList cycles;
			double		s = now();
			bool		v;

			memset(&cycles, 0, sizeof(cycles));
			v = iso_find_cycles_cached(&inf.graph, (IsoLevel) l, 3, &cycles, cache);
			printf("  %-28s %s %.3f s\n", iso_level_name((IsoLevel) l),
				   v ? "violated" : "holds   ", now() - s);
		}
	t4 = now();
	{
		uint64		counts[ISO_EDGE_NTYPES];
		int			t;

		iso_graph_count(&inf.graph, counts);
		printf("edges by type:");
		for (t = 0; t < ISO_EDGE_NTYPES; t++)
			printf(" %s %llu", iso_edge_type_name((IsoEdgeType) t), (unsigned long long) counts[t]);
		printf(" (%zu bytes each)\n", sizeof(IsoEdge));
	}
	printf("txns %u, edges %llu: parse %.2f s, infer+graph %.2f s, scc %.2f s, "
		   "levels %.2f s, total %.2f s, peak RSS %ld MB (parse %ld MB, after it %ld MB)\n",
		   inf.n_vertices, (unsigned long long) inf.graph.n_edges,
		   t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0,
		   Max(peak_parse, peak_rss_kb()) / 1024, peak_parse / 1024,
		   peak_rss_kb() / 1024);
	return 0;
}
