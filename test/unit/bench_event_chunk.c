/*
 * bench_event_chunk.c
 *	  Packing and unpacking a list-append-like sequence of reads (20 keys,
 *	  each read 1 to 3 elements longer than the key's read before:
 *	  list_append.h), as the server does: chunks closed by
 *	  iso_chunk_writer_full, then read back.  Prints the chunks' bytes and
 *	  the best CPU time of a few runs of each.
 *
 *	  build/bench_event_chunk [ROWS [RUNS]]     (default 5000 rows, 20 runs)
 */
#define _POSIX_C_SOURCE 200809L	/* clock_gettime under -std=c99 */

#include "port.h"
#include "event_chunk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "list_append.h"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);	/* the machine may be shared */
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

typedef struct Chunk
{
	uint8	   *data;
	size_t		len;
} Chunk;

/* pack rows[0..n) into chunks; returns how many */
static int
pack(const IsoEventRow *rows, int n, Chunk *chunks, size_t *bytes)
{
	IsoChunkWriter w;
	int			nchunks = 0;
	int			i;

	*bytes = 0;
	iso_chunk_writer_init(&w, 6);
	for (i = 0; i <= n; i++)
	{
		if (i < n)
			iso_chunk_writer_add(&w, &rows[i]);
		if ((i == n && w.nrows > 0) || iso_chunk_writer_full(&w))
		{
			const uint8 *d = iso_chunk_writer_data(&w, &chunks[nchunks].len);

			chunks[nchunks].data = realloc(chunks[nchunks].data, chunks[nchunks].len);
			memcpy(chunks[nchunks].data, d, chunks[nchunks].len);
			*bytes += chunks[nchunks].len;
			nchunks++;
			iso_chunk_writer_reset(&w);
		}
	}
	iso_chunk_writer_free(&w);
	return nchunks;
}

/* read every chunk; returns the list elements read */
static int64
unpack(const Chunk *chunks, int nchunks)
{
	int64		elements = 0;
	int			c;

	for (c = 0; c < nchunks; c++)
	{
		IsoChunkReader r;
		int			rc;

		if (!iso_chunk_reader_init(&r, chunks[c].data, chunks[c].len))
		{
			fprintf(stderr, "chunk %d: %s\n", c, r.error);
			exit(1);
		}
		while ((rc = iso_chunk_reader_next(&r)) == 1)
			elements += r.row.list_len;
		if (rc < 0)
		{
			fprintf(stderr, "chunk %d: %s\n", c, r.error);
			exit(1);
		}
		iso_chunk_reader_free(&r);
	}
	return elements;
}

int
main(int argc, char **argv)
{
	int			nrows = argc > 1 ? atoi(argv[1]) : 5000;
	int			runs = argc > 2 ? atoi(argv[2]) : 20;
	ListAppend	la;
	IsoEventRow *rows;
	Chunk	   *chunks;
	int64		elements = 0;
	int64		check;
	size_t		bytes = 0;
	int			nchunks = 0;
	double		best_pack = 1e9;
	double		best_unpack = 1e9;
	int			i;

	if (nrows < 1 || runs < 1)
	{
		fprintf(stderr, "usage: bench_event_chunk [ROWS [RUNS]]\n");
		return 2;
	}
	rng_state = 42;
	list_append_init(&la, 20, nrows);
	rows = malloc(sizeof(IsoEventRow) * (size_t) nrows);
	chunks = calloc((size_t) nrows, sizeof(Chunk));
	for (i = 0; i < nrows; i++)
	{
		const IsoEventRow *r = list_append_next(&la, i + 1);
		IsoSlice   *list = malloc(sizeof(IsoSlice) * (size_t) (r->list_len + 1));

		memcpy(list, r->list, sizeof(IsoSlice) * (size_t) r->list_len);
		rows[i] = *r;
		rows[i].list = list;
		elements += r->list_len;
	}

	for (i = 0; i < runs; i++)
	{
		double		t0 = now();
		double		t1;

		nchunks = pack(rows, nrows, chunks, &bytes);
		t1 = now();
		check = unpack(chunks, nchunks);
		if (check != elements)
		{
			fprintf(stderr, "read %lld list elements, not %lld\n",
					(long long) check, (long long) elements);
			return 1;
		}
		best_pack = Min(best_pack, t1 - t0);
		best_unpack = Min(best_unpack, now() - t1);
	}
	printf("version %d: %d rows, %lld list elements, %d chunks, %zu bytes; "
		   "pack %.2f ms, unpack %.2f ms (best of %d)\n",
		   chunks[0].data[2], nrows, (long long) elements, nchunks, bytes,
		   best_pack * 1e3, best_unpack * 1e3, runs);

	for (i = 0; i < nrows; i++)
	{
		free((void *) rows[i].list);
		free(chunks[i].data);
	}
	free(rows);
	free(chunks);
	list_append_free(&la);
	return 0;
}
