/*
 * list_append.h
 *	  A list-append-like sequence of read rows for the event chunk test and
 *	  bench: nkeys keys, each read returning the key's read before and 1 to
 *	  3 more elements (decimal strings of values appended in turn), each row
 *	  its own transaction.
 */
#ifndef ISOGRAPH_TEST_LIST_APPEND_H
#define ISOGRAPH_TEST_LIST_APPEND_H

#include <stdio.h>
#include <stdlib.h>

#include "event_chunk.h"
#include "rng.h"

typedef struct ListAppend
{
	int			nkeys;
	char	  (*keys)[16];
	char	  (*values)[12];	/* the strings of values 1..nvalues */
	int32		nvalues;
	int32	  **lists;			/* each key's values */
	int32	   *lens;
	IsoSlice   *slices;			/* the current row's list */
	IsoEventRow row;
} ListAppend;

static void
list_append_init(ListAppend *la, int nkeys, int nrows)
{
	int32		maxvalues = nrows * 3 + 1;
	int			i;

	memset(la, 0, sizeof(*la));
	la->nkeys = nkeys;
	la->keys = malloc(sizeof(*la->keys) * (size_t) nkeys);
	la->values = malloc(sizeof(*la->values) * (size_t) maxvalues);
	la->lists = malloc(sizeof(int32 *) * (size_t) nkeys);
	la->lens = calloc((size_t) nkeys, sizeof(int32));
	la->slices = malloc(sizeof(IsoSlice) * (size_t) maxvalues);
	for (i = 0; i < nkeys; i++)
	{
		snprintf(la->keys[i], sizeof(la->keys[i]), "%d", i);
		la->lists[i] = malloc(sizeof(int32) * (size_t) maxvalues);
	}
	for (i = 0; i < maxvalues; i++)
		snprintf(la->values[i], sizeof(la->values[i]), "%d", i);
}

/* the next row (valid until the next call) */
static const IsoEventRow *
list_append_next(ListAppend *la, int64 txn)
{
	IsoEventRow *r = &la->row;
	int			k = rnd_int(la->nkeys);
	int			grow = 1 + rnd_int(3);
	int32		i;

	while (grow-- > 0)
		la->lists[k][la->lens[k]++] = ++la->nvalues;
	for (i = 0; i < la->lens[k]; i++)
	{
		la->slices[i].ptr = la->values[la->lists[k][i]];
		la->slices[i].len = (int32) strlen(la->slices[i].ptr);
	}
	memset(r, 0, sizeof(*r));
	r->txn_id = txn;
	r->status = ISO_STATUS_OK;
	r->has_process = r->has_invoke_time = r->has_complete_time = true;
	r->process = txn % 10;
	r->invoke_time = txn * 1000;
	r->complete_time = txn * 1000 + 500;
	r->op = ISO_OP_READ;
	r->key.ptr = la->keys[k];
	r->key.len = (int32) strlen(la->keys[k]);
	r->has_list = true;
	r->list_len = la->lens[k];
	r->list = la->slices;
	return r;
}

static void
list_append_free(ListAppend *la)
{
	int			i;

	for (i = 0; i < la->nkeys; i++)
		free(la->lists[i]);
	free(la->keys);
	free(la->values);
	free(la->lists);
	free(la->lens);
	free(la->slices);
}

#endif							/* ISOGRAPH_TEST_LIST_APPEND_H */
