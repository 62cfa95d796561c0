/*
 * test_ldbc.c: unit tests of isograph-record's LDBC checks (client/ldbc.c),
 * without a server: the checks and the verdict logic get results a
 * correct PostgreSQL never gives (an aborted read, a vanished transaction,
 * a G0 with lists in different orders), so each check is seen to fail.
 * ldbc.c is included whole to reach its static functions.
 */
#include "ldbc.c"

static int	failures;
static int	checks;

/* TAP, like test_version_order */
#define CHECK(cond, what) \
	do { \
		checks++; \
		if (cond) \
			printf("ok %d - %s\n", checks, what); \
		else \
		{ \
			failures++; \
			printf("not ok %d - %s (line %d)\n", checks, what, __LINE__); \
		} \
	} while (0)

/* a Ctx with nw writers and nr readers, every task done and committed */
static void
ctx_init(Ctx *c, TestId t, int nw, int nr)
{
	static Options o;

	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->mu, NULL);
	c->o = &o;
	c->test = t;
	forced_tasks(c, nw, nr);
	for (int i = 0; i < c->ntasks; i++)
		c->res[i].ok = true;
}

static void
ctx_free(Ctx *c)
{
	free(c->tasks);
	free(c->res);
}

static bool
check_readers(TestId t, int64_t v0, int64_t v1)
{
	Ctx			c;
	bool		pass;

	ctx_init(&c, t, 1, 1);
	c.res[1].v[0] = v0;
	c.res[1].v[1] = v1;
	result_check(&c);
	pass = c.ldbc_pass;
	ctx_free(&c);
	return pass;
}

static bool
check_cycle_reads(TestId t, const int64_t first[4], const int64_t second[4])
{
	Ctx			c;
	bool		pass;

	ctx_init(&c, t, 1, 1);
	memcpy(&c.res[1].v[0], first, sizeof(int64_t) * 4);
	memcpy(&c.res[1].v[4], second, sizeof(int64_t) * 4);
	result_check(&c);
	pass = c.ldbc_pass;
	ctx_free(&c);
	return pass;
}

static bool
g1c(int64_t read0, int64_t read1, bool ok1)
{
	Ctx			c;
	bool		pass;

	ctx_init(&c, T_G1C, 2, 0);
	c.res[0].v[0] = read0;
	c.res[1].v[0] = read1;
	c.res[1].ok = ok1;
	result_check(&c);
	pass = c.ldbc_pass;
	ctx_free(&c);
	return pass;
}

static bool
g0(int64_t *a, int na, int64_t *b, int nb, int64_t *d, int nd)
{
	int64_t    *l[3] = {a, b, d};
	int			n[3] = {na, nb, nd};
	int			nc;

	return g0_lists_agree(l, n, &nc);
}

static Row
judged(TestId t, IsoLevel l, bool ldbc, bool iso, bool forced)
{
	Row			r;

	memset(&r, 0, sizeof(r));
	r.test = t;
	r.lvl = l;
	r.ldbc_pass = ldbc;
	r.iso_pass = iso;
	judge(&r, forced);
	return r;
}

int
main(void)
{
	int64_t		a[] = {1, 2, 3},
				b[] = {4, 1, 2, 3},
				d[] = {1, 2, 5, 3},
				swapped[] = {2, 1, 3};
	int64_t		zero[4] = {0, 0, 0, 0},
				one[4] = {1, 1, 1, 1},
				vanished[4] = {1, 0, 1, 1},
				torn[4] = {1, 1, 0, 0};
	Row			r;

	/* G0 */
	CHECK(g0(a, 3, b, 4, d, 4), "G0: the same order of the common ids passes");
	CHECK(!g0(a, 3, swapped, 3, a, 3), "G0: the common ids in another order fail");
	CHECK(g0(a, 0, b, 0, d, 0), "G0: empty lists pass");

	/* G1a, G1b */
	CHECK(check_readers(T_G1A, 1, 0), "G1a: reading the initial version passes");
	CHECK(!check_readers(T_G1A, 2, 0), "G1a: reading the aborted version 2 fails");
	CHECK(check_readers(T_G1B, 1, 0), "G1b: reading an odd (final) version passes");
	CHECK(check_readers(T_G1B, 99, 0), "G1b: reading the initial 99 passes");
	CHECK(!check_readers(T_G1B, 0, 0), "G1b: reading the even (intermediate) version fails");

	/* G1c: T1 read T2's version and T2 read T1's */
	CHECK(g1c(0, 0, true), "G1c: neither saw the other: passes");
	CHECK(g1c(2, 0, true), "G1c: one saw the other: passes");
	CHECK(!g1c(2, 1, true), "G1c: each saw the other: fails");
	CHECK(!g1c(2, 0, false), "G1c: a read of an aborted transaction's version fails");

	/* IMP, PMP: two reads of one transaction */
	CHECK(check_readers(T_IMP, 3, 3), "IMP: the same value twice passes");
	CHECK(!check_readers(T_IMP, 3, 4), "IMP: two values fail");
	CHECK(!check_readers(T_PMP, 0, 1), "PMP: two counts fail");

	/* OTV, FR */
	CHECK(check_cycle_reads(T_OTV, zero, one), "OTV: newer versions later pass");
	CHECK(!check_cycle_reads(T_OTV, one, vanished), "OTV: a version older than seen before fails");
	CHECK(!check_cycle_reads(T_FR, zero, one), "FR: the two reads differ: fails");
	CHECK(!check_cycle_reads(T_FR, one, torn), "FR: a torn read fails");
	CHECK(check_cycle_reads(T_FR, one, one), "FR: the same versions pass");

	/* failed readers are not judged */
	{
		Ctx			c;

		ctx_init(&c, T_IMP, 1, 1);
		c.res[1].v[0] = 1;
		c.res[1].v[1] = 2;
		c.res[1].ok = false;
		result_check(&c);
		CHECK(c.ldbc_pass, "IMP: an aborted reader's reads are not judged");
		ctx_free(&c);
	}

	/* what PostgreSQL guarantees */
	CHECK(pg_guarantees(T_LU, ISO_RC, false), "LU (LDBC's in-place update) is guaranteed at RC");
	CHECK(!pg_guarantees(T_LU, ISO_RC, true), "the read-then-write LU may fail at RC");
	CHECK(!pg_guarantees(T_WS, ISO_RR, false), "WS may fail at RR");
	CHECK(pg_guarantees(T_WS, ISO_SER, false), "WS is guaranteed at SER");
	CHECK(!pg_guarantees(T_IMP, ISO_RC, false), "IMP may fail at RC");
	CHECK(pg_guarantees(T_OTV, ISO_RC, false), "OTV is guaranteed at RC");

	/* the verdicts compared */
	r = judged(T_WS, ISO_RR, false, false, false);
	CHECK(!r.bad && !r.note, "WS failing at RR by both checks is fine");
	r = judged(T_G1A, ISO_RC, false, false, false);
	CHECK(r.bad && strstr(r.note, "VIOLATION"), "G1a failing at RC is a violation");
	r = judged(T_IMP, ISO_SER, false, false, false);
	CHECK(r.bad, "IMP failing at SER is a violation");
	r = judged(T_OTV, ISO_RC, true, false, false);
	CHECK(!r.bad && strstr(r.note, "explained"), "OTV: isograph's non-repeatable read is explained");
	r = judged(T_IMP, ISO_RC, true, false, false);
	CHECK(r.bad && strstr(r.note, "UNEXPLAINED"), "IMP: disagreeing verdicts are unexplained");
	r = judged(T_WS, ISO_RC, false, true, false);
	CHECK(r.bad && strstr(r.note, "UNEXPLAINED"), "WS: LDBC fails but isograph passes: unexplained");

	/* SER: the SSI commit race may make either check fail, and is noted */
	memset(&r, 0, sizeof(r));
	r.test = T_WS;
	r.lvl = ISO_SER;
	r.ldbc_pass = true;
	r.iso_pass = false;
	r.race = true;
	r.note = RACE_NOTE;
	judge(&r, false);
	CHECK(!r.bad && strstr(r.note, "SSI commit race"), "WS at SER: the race's G2-item is explained");
	r.ldbc_pass = false;
	judge(&r, false);
	CHECK(!r.bad, "WS at SER: LDBC failing with the race's G2-item is explained");
	r.race = false;
	r.note = NULL;
	judge(&r, false);
	CHECK(r.bad && strstr(r.note, "VIOLATION"), "WS at SER: failing without the race is a violation");

	printf("1..%d\n", checks);
	return failures ? 1 : 0;
}
