/*
 * fuzz_image.c
 *	  libFuzzer harness for reading history images back (image.c).
 *
 * In the server a damaged image is caught by its checksums (image_store.c);
 * the bounds checks of iso_image_validate are what stands behind them, for
 * damage a CRC cannot see (a forged image, a collision).  So this harness
 * damages images without checksums.  An input that starts with a byte
 * below 8 gives that many mutations (a position and a byte to xor there)
 * followed by an EDN history; any other input is all EDN (the seeds), and
 * one mutation is derived from a hash of it.  The
 * history is parsed and built, its image laid out as image_store.c stores
 * it, the mutations applied, and the image read back as iso_image_read
 * does: the header's sizes must match, iso_image_prepare must accept it,
 * then iso_image_validate.  An image validate accepts must be safe to build
 * a graph from: iso_infer runs on it under ASan and UBSan.
 */
#include "edn.h"
#include "history.h"
#include "history_edn.h"
#include "image.h"
#include "infer.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MUTATION_BYTES 5		/* uint32 position, uint8 xor */

/* EDN -> IsoHistory, as the loader does (history_edn.c), at most 2000
 * transactions to keep each input fast. */
static bool
add_txn(const EdnTxn *t, void *arg)
{
	IsoEdnHistory *eh = arg;

	iso_edn_history_add(t, eh);
	return eh->h.n_txns < 2000;
}

/* Read an image back from its sections as iso_image_read does; infer on it. */
static void
read_back(uint8_t *flat, const uint64 *bytes)
{
	IsoImageHeader header;
	IsoImageLayout layout;
	IsoHistory	read;
	uint64		expect[ISO_IMAGE_NSECTIONS];
	uint64		off = bytes[ISO_IMAGE_HEADER];
	int			s;

	memcpy(&header, flat, sizeof(header));
	iso_image_sizes(&header, expect);
	for (s = 0; s < ISO_IMAGE_NSECTIONS; s++)
		if (expect[s] != bytes[s])
			return;				/* "its sections do not have the sizes its header gives" */
	if (iso_image_prepare(&header, &read, &layout) != NULL)
		return;
	for (s = ISO_IMAGE_HEADER + 1; s < ISO_IMAGE_NSECTIONS; s++)
	{
		if (bytes[s] > 0)
			memcpy(layout.ptr[s], flat + off, bytes[s]);
		off += bytes[s];
	}
	if (iso_image_validate(&read) == NULL)
	{
		IsoInferOptions opt = {false, false, false, false, ISO_PARALLEL_OFF, 0};
		IsoInference inf;
		IsoParseError err;

		memset(&inf, 0, sizeof(inf));
		memset(&err, 0, sizeof(err));
		if (iso_infer(&read, NULL, &opt, &inf, &err))
		{
			free(inf.vertex_txn);
			free(inf.txn_vertex);
			free(inf.graph.edges);
			free(inf.graph.out_start);
			free(inf.anomalies);
			iso_infer_free_unknown(&inf.unknown);
		}
	}
	iso_history_free(&read);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	IsoHistory	h;
	IsoEdnHistory eh;
	int64		dup;
	EdnStats	stats;
	IsoParseError err;
	IsoImageLayout layout;
	uint64		total = 0;
	uint8_t    *flat;
	size_t		nmut;
	const uint8_t *muts;
	const uint8_t *edn;
	uint8_t		own[MUTATION_BYTES];
	size_t		i;
	int			s;

	if (size < 1)
		return 0;
	if (data[0] < 8)
	{
		nmut = data[0];
		muts = data + 1;
		if (size < 1 + nmut * MUTATION_BYTES)
			return 0;
		edn = data + 1 + nmut * MUTATION_BYTES;
	}
	else
	{
		/* plain EDN: one mutation from an FNV-1a hash of the text */
		uint64_t	hash = 14695981039346656037ULL;

		for (i = 0; i < size; i++)
			hash = (hash ^ data[i]) * 1099511628211ULL;
		memcpy(own, &hash, 4);
		own[4] = (uint8_t) (hash >> 32);
		nmut = 1;
		muts = own;
		edn = data;
	}
	iso_edn_history_begin(&eh);
	memset(&err, 0, sizeof(err));
	edn_parse_history((const char *) edn, size - (size_t) (edn - data), ISO_WORKLOAD_UNKNOWN,
					  add_txn, &eh, &stats, &err);
	if (eh.h.n_txns == 0 || stats.workload == ISO_WORKLOAD_UNKNOWN ||
		!iso_edn_history_finish(&eh, stats.workload, &dup))
	{
		iso_history_free(&eh.h);
		return 0;
	}
	h = eh.h;

	/* the sections one after the other, as their parts are stored */
	iso_image_describe(&h, &layout);
	for (s = 0; s < ISO_IMAGE_NSECTIONS; s++)
		total += layout.bytes[s];
	flat = malloc(total);
	for (total = 0, s = 0; s < ISO_IMAGE_NSECTIONS; s++)
	{
		if (layout.bytes[s] > 0)	/* an empty section may have no array */
			memcpy(flat + total, layout.ptr[s], layout.bytes[s]);
		total += layout.bytes[s];
	}
	for (i = 0; i < nmut; i++)
	{
		const uint8_t *m = muts + i * MUTATION_BYTES;
		uint32_t	pos;

		memcpy(&pos, m, sizeof(pos));
		flat[pos % total] ^= m[4] ? m[4] : 1;
	}
	read_back(flat, layout.bytes);
	free(flat);
	iso_history_free(&h);
	return 0;
}
