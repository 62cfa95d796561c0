/*
 * bench_edn.c
 *	  Parse speed of edn_parse_history() on a generated Jepsen-like
 *	  list-append history (or on a file given as argument).
 *
 *	  bench_edn                 generate ~50 MB in memory and parse it
 *	  bench_edn -o FILE [MB]    also write the generated history to FILE
 *	  bench_edn FILE            parse FILE (workload inferred)
 */
#define _POSIX_C_SOURCE 199309L

#include "edn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static bool
count_cb(const EdnTxn *t, void *arg)
{
	(*(int64 *) arg) += t->n_ops;
	return true;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);	/* CPU time: the machine may be shared */
	return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* A Jepsen list-append history: invoke/ok pairs of 30 processes. */
static char *
generate(size_t target, size_t *len_out)
{
	size_t		cap = target + (1 << 20),
				len = 0;
	char	   *b = malloc(cap);
	int64		index = 0,
				time = 18000000000;
	int		   *counts = calloc(target / 16 + 64, sizeof(int));	/* appends per key */
	int			key_base = 0;
	unsigned	rng = 12345;
	int			proc = 0;

	while (len < target)
	{
		int			nops = 4 + (int) ((rng >> 16) % 5);
		int			kind[8],
					key[8],
					val[8],
					i,
					pass;

		for (i = 0; i < nops; i++)
		{
			rng = rng * 1103515245u + 12345u;
			key[i] = (int) ((rng >> 8) % 8);
			kind[i] = (int) ((rng >> 20) % 2);	/* 0 read, 1 append */
			if (kind[i] == 1)
				val[i] = ++counts[key_base + key[i]];
		}
		for (pass = 0; pass < 2; pass++)
		{
			len += (size_t) snprintf(b + len, cap - len, "{:type %s, :f :txn, :value [",
									 pass ? ":ok" : ":invoke");
			for (i = 0; i < nops; i++)
			{
				int			k = key_base + key[i];

				if (kind[i] == 1)
					len += (size_t) snprintf(b + len, cap - len, "%s[:append %d %d]", i ? " " : "", k, val[i]);
				else if (!pass)
					len += (size_t) snprintf(b + len, cap - len, "%s[:r %d nil]", i ? " " : "", k);
				else
				{
					int			n = counts[k],
								j;

					len += (size_t) snprintf(b + len, cap - len, "%s[:r %d [", i ? " " : "", k);
					for (j = 1; j <= n && j <= 40; j++)
						len += (size_t) snprintf(b + len, cap - len, "%s%d", j > 1 ? " " : "", j);
					len += (size_t) snprintf(b + len, cap - len, "]]");
				}
			}
			time += 1000000 + (rng % 9999999);
			len += (size_t) snprintf(b + len, cap - len, "], :time %lld, :process %d, :index %lld}\n",
									 (long long) time, proc, (long long) index++);
		}
		proc = (proc + 1) % 30;
		/* Jepsen rotates keys: retire the oldest after ~40 appends */
		while (counts[key_base] > 40)
			key_base++;
	}
	free(counts);
	*len_out = len;
	return b;
}

int
main(int argc, char **argv)
{
	char	   *text;
	size_t		len;
	EdnStats	st;
	IsoParseError err;
	int64		events = 0;
	double		best = 1e9;
	int			rep;

	if (argc == 2 && strcmp(argv[1], "-o") != 0)
	{
		FILE	   *f = fopen(argv[1], "rb");
		long		n;

		if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0)
		{
			perror(argv[1]);
			return 2;
		}
		rewind(f);
		text = malloc((size_t) n + 1);
		len = fread(text, 1, (size_t) n, f);
		fclose(f);
	}
	else
	{
		size_t		mb = (argc >= 4) ? (size_t) atoi(argv[3]) : 50;

		text = generate(mb << 20, &len);
		if (argc >= 3)
		{
			FILE	   *f = fopen(argv[2], "wb");

			if (!f || fwrite(text, 1, len, f) != len)
			{
				perror(argv[2]);
				return 2;
			}
			fclose(f);
		}
	}
	for (rep = 0; rep < 5; rep++)
	{
		double		t0 = now(),
					dt;

		events = 0;
		if (!edn_parse_history(text, len, ISO_WORKLOAD_UNKNOWN, count_cb, &events, &st, &err))
		{
			fprintf(stderr, "parse error %d at record %lld line %lld: %s\n", err.kind,
					(long long) err.record, (long long) err.line, err.message);
			return 1;
		}
		dt = now() - t0;
		if (dt < best)
			best = dt;
	}
	printf("%.1f MB, %lld records (%lld by the fast path), %lld txns, %lld micro-ops, workload %s\n",
		   (double) len / 1e6, (long long) st.records, (long long) st.fast_records,
		   (long long) st.txns, (long long) events, iso_workload_name(st.workload));
	printf("best of 5 (CPU time): %.3f s = %.0f MB/s, %.2f M records/s\n",
		   best, (double) len / 1e6 / best, (double) st.records / 1e6 / best);
	free(text);
	return 0;
}
