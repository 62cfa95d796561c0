/*
 * test_version_order.c: unit tests of client/version_order.c, the register
 * version order rebuilt from what UPDATE ... RETURNING prev returned.  No
 * server needed.  Built with AddressSanitizer by client/Makefile, so a
 * write past the rows' arrays fails the test.  Emits TAP.
 *
 * Run: make -C client check (runs it before record.t)
 */
#include "version_order.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int	failed;
static int	ntests;

static History hist;
static int64_t key = 1;			/* the key of the next write_ or read_ */

/* A completed one-op transaction of key. */
static Op  *
add_txn(TxnStatus st, OpType type)
{
	Txn		   *t = txn_new(hist.nevents, 1);

	t->status = st;
	t->ops[0].type = type;
	t->ops[0].key = key;
	hist.events = realloc(hist.events, sizeof(HistEvent) * (hist.nevents + 1));
	hist.events[hist.nevents].txn = t;
	hist.events[hist.nevents].completion = true;
	hist.nevents++;
	return &t->ops[0];
}

/* A write of val that overwrote prev (0 = NULL; -1 = RETURNING never arrived). */
static void
write_(TxnStatus st, int64_t val, int64_t prev)
{
	Op		   *op = add_txn(st, OP_W);

	op->value = val;
	op->has_prev = prev >= 0;
	op->prev_nil = prev == 0;
	op->prev = prev > 0 ? prev : 0;
}

static void
read_(int64_t val)
{
	Op		   *op = add_txn(ST_OK, OP_R);

	op->has_read = true;
	op->read_val = val;
}

/* The rows must be want: n (key, position, value) triples. */
static void
expect(const char *name, const int64_t (*want)[3], size_t n)
{
	int64_t    *ks,
			   *vs;
	int		   *ps;
	size_t		got = version_order(&hist, &ks, &vs, &ps);
	bool		ok = got == n;

	for (size_t i = 0; ok && i < n; i++)
		ok = ks[i] == want[i][0] && ps[i] == want[i][1] && vs[i] == want[i][2];
	ntests++;
	printf("%sok %d - %s\n", ok ? "" : "not ", ntests, name);
	if (!ok)
	{
		failed++;
		printf("# got %zu rows:", got);
		for (size_t i = 0; i < got; i++)
			printf(" (%lld, %d, %lld)", (long long) ks[i], ps[i], (long long) vs[i]);
		printf("\n");
	}
	free(ks);
	free(vs);
	free(ps);
	for (size_t i = 0; i < hist.nevents; i++)
	{
		free(hist.events[i].txn->ops);
		free(hist.events[i].txn);
	}
	free(hist.events);
	memset(&hist, 0, sizeof(hist));
}

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* committed writes chain from NULL */
	write_(ST_OK, 1, 0);
	write_(ST_OK, 2, 1);
	write_(ST_OK, 3, 2);
	expect("ok writes chain from NULL", (const int64_t[][3]) {{1, 0, 1}, {1, 1, 2}, {1, 2, 3}}, 3);

	/* rolled-back writes are left out */
	write_(ST_FAIL, 1, 0);
	write_(ST_OK, 2, 0);
	expect("writes of fail transactions are left out", (const int64_t[][3]) {{1, 0, 2}}, 1);

	/* an info write nobody read: followed, not logged */
	write_(ST_OK, 1, 0);
	write_(ST_INFO, 2, 1);
	write_(ST_OK, 3, 2);
	expect("an unproven info version is passed through, not logged",
		   (const int64_t[][3]) {{1, 0, 1}, {1, 1, 3}}, 2);

	/* two committed writes overwrote one version: the order stops there */
	write_(ST_OK, 1, 0);
	write_(ST_OK, 2, 1);
	write_(ST_OK, 3, 1);
	expect("two ok writes of one version stop the order", (const int64_t[][3]) {{1, 0, 1}}, 1);

	/*
	 * In each of three keys, an info write whose RETURNING never arrived
	 * (version 2), read by an ok transaction: the order goes through it and
	 * logs it, so there are more rows (9) than recorded writes (6).
	 */
	for (key = 1; key <= 3; key++)
	{
		write_(ST_OK, 1, 0);
		write_(ST_INFO, 2, -1);
		read_(2);
		write_(ST_OK, 3, 2);
	}
	expect("unrecorded versions that ok reads saw are logged (more rows than writes)",
		   (const int64_t[][3]) {{1, 0, 1}, {1, 1, 2}, {1, 2, 3}, {2, 0, 1}, {2, 1, 2}, {2, 2, 3},
		   {3, 0, 1}, {3, 1, 2}, {3, 2, 3}}, 9);

	printf("1..%d\n", ntests);
	return failed ? 1 : 0;
}
