/*
 * history.c: the history a run observed, as Jepsen records it: one
 * invocation record when a transaction starts and one completion record
 * (ok, fail or info) when it ends.  Every record gets the next :index, and a
 * transaction's id is the :index of its completion record, so the EDN file
 * and the stored rows agree.
 */
#include "history.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void
history_init(History *h)
{
	memset(h, 0, sizeof(*h));
	pthread_mutex_init(&h->mu, NULL);
	clock_gettime(CLOCK_MONOTONIC, &h->t0);
}

int64_t
history_now(History *h)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t) (ts.tv_sec - h->t0.tv_sec) * 1000000000LL +
		(ts.tv_nsec - h->t0.tv_nsec);
}

static void
push_event(History *h, Txn *t, bool completion)
{
	if (h->nevents == h->cap)
	{
		h->cap = h->cap ? h->cap * 2 : 1024;
		h->events = xrealloc(h->events, h->cap * sizeof(HistEvent));
	}
	h->events[h->nevents].txn = t;
	h->events[h->nevents].completion = completion;
	h->nevents++;
}

Txn *
txn_new(int64_t process, int nops)
{
	Txn		   *t = xmalloc(sizeof(Txn));

	t->process = process;
	t->status = ST_PENDING;
	t->nops = nops;
	t->ops = xmalloc(sizeof(Op) * (nops ? nops : 1));
	return t;
}

/* Forget what reads returned (fail and info transactions: reads unknown). */
void
txn_clear_reads(Txn *t)
{
	for (int i = 0; i < t->nops; i++)
	{
		Op		   *op = &t->ops[i];

		if (op->type != OP_R)
			continue;
		free(op->read_list);
		op->read_list = NULL;
		op->read_len = 0;
		op->has_read = false;
		op->read_nil = false;
	}
}

/* Record the invocation: time taken now, before BEGIN is sent. */
void
history_invoke(History *h, Txn *t)
{
	pthread_mutex_lock(&h->mu);
	t->invoke_time = history_now(h);
	t->invoke_index = (int64_t) h->nevents;
	push_event(h, t, false);
	pthread_mutex_unlock(&h->mu);
}

/* Count a fail outcome under its SQLSTATE (the first 16 kinds). */
static void
count_fail(History *h, const char *code)
{
	int			i;

	h->n_fail++;
	for (i = 0; i < h->ncodes; i++)
		if (strncmp(h->codes[i], code, 7) == 0)
			break;
	if (i == h->ncodes && h->ncodes < 16)
	{
		snprintf(h->codes[i], sizeof(h->codes[i]), "%.7s", code);
		h->ncodes++;
	}
	if (i < 16)
		h->code_n[i]++;
}

/* Record the completion: time taken now, after COMMIT's result arrived. */
void
history_complete(History *h, Txn *t, TxnStatus st, const char *error)
{
	if (st != ST_OK)
		txn_clear_reads(t);
	pthread_mutex_lock(&h->mu);
	t->complete_time = history_now(h);
	t->complete_index = (int64_t) h->nevents;
	t->status = st;
	if (error)
		snprintf(t->error, sizeof(t->error), "%s", error);
	push_event(h, t, true);
	if (st == ST_OK)
		h->n_ok++;
	else if (st == ST_FAIL)
		count_fail(h, error ? error : "?");
	else
		h->n_info++;
	pthread_mutex_unlock(&h->mu);
}

void
history_counts(History *h, long *ok, long *fail, long *info)
{
	pthread_mutex_lock(&h->mu);
	*ok = h->n_ok;
	*fail = h->n_fail;
	*info = h->n_info;
	pthread_mutex_unlock(&h->mu);
}
