/*
 * test_infer.c
 *	  The graph builder (infer.c) and the cycle searches (cycle.c, scc.c) on
 *	  generated histories, standalone (no server), for running under
 *	  AddressSanitizer + UndefinedBehaviorSanitizer + LeakSanitizer.
 *	  See Makefile.infer.  TAP output; timings as "# " comments.
 *
 * Shapes, each with asserted vertices, edges, anomalies and the verdict of
 * every isolation level:
 *	  - empty history; one transaction (ok, then fail);
 *	  - a small write skew parsed from EDN (src/edn.c), as in the README;
 *	  - giant strongly connected components: a ring of N rw edges (G2-item),
 *		of N wr edges (G1c) and of N ww edges through a version log (G0);
 *	  - a 1M-long chain (wr + so + rt), acyclic;
 *	  - a star of 100k readers on one version (+ one unobserved append);
 *	  - info transactions proven committed by reads that repeat, extend or
 *		differ from their key's last read (each element is tested once per
 *		key and region), with keys x values small (the dense bit table) and
 *		large (the hash filter).
 *
 * Every allocation is freed (LeakSanitizer must stay quiet).
 * ISO_INFER_SCALE=k divides the big sizes by k (quick runs).
 */
#define _POSIX_C_SOURCE 200809L	/* clock_gettime under -std=c99 */

#include "port.h"
#include "history.h"
#include "infer.h"
#include "graph.h"
#include "cycle.h"
#include "edn.h"

#include <stdlib.h>
#include <time.h>

#include "history_edn.h"
#include "history_util.h"
#include "infer_util.h"
#include "tap.h"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static IsoSlice
sl(const char *s)
{
	IsoSlice	r;

	r.ptr = s;
	r.len = (int32) strlen(s);
	return r;
}

static IsoSlice nil_slice = {NULL, 0};


/* ---- running one history through everything ---- */

typedef struct Result
{
	bool		built;
	uint32		n_vertices;
	uint64		counts[ISO_EDGE_NTYPES];
	uint64		n_edges;
	uint32		n_anomalies;
	uint32		anomaly_kinds;	/* bit per IsoAnomalyKind */
	bool		violated[ISO_LEVEL_COUNT];
	uint32		witnesses[ISO_LEVEL_COUNT];
	uint32		kinds[ISO_LEVEL_COUNT];	/* bit per IsoCycleKind found */
	bool		witnesses_valid;	/* every witness is a closed walk */
	uint32		longest_witness;
	double		secs;
} Result;

/* A witness must be a closed walk over existing edges. */
static bool
witness_valid(const IsoGraph *g, const IsoCycle *c)
{
	uint32		i;

	if (c->length == 0)
		return false;
	for (i = 0; i < c->length; i++)
	{
		const IsoEdge *e;
		const IsoEdge *next;

		if (c->edges[i] >= g->n_edges)
			return false;
		e = &g->edges[c->edges[i]];
		next = &g->edges[c->edges[(i + 1) % c->length]];
		if (next >= g->edges + g->n_edges || e->to != next->from)
			return false;
	}
	return true;
}

static Result
run(const IsoHistory *h, const IsoVersionLog *log, bool sequential)
{
	Result		r;
	IsoInference inf;
	IsoInferOptions opt = {sequential, false, false, false, ISO_PARALLEL_OFF, 0};
	IsoParseError err;
	double		t0 = now();
	int			l;
	uint32		i;

	memset(&r, 0, sizeof(r));
	memset(&err, 0, sizeof(err));
	r.built = iso_infer(h, log, &opt, &inf, &err);
	if (!r.built)
	{
		diag("iso_infer failed: %s", err.message);
		return r;
	}
	r.n_vertices = inf.n_vertices;
	r.n_edges = inf.graph.n_edges;
	iso_graph_count(&inf.graph, r.counts);
	r.n_anomalies = inf.n_anomalies;
	for (i = 0; i < inf.n_anomalies; i++)
		r.anomaly_kinds |= 1u << inf.anomalies[i].kind;
	r.witnesses_valid = true;
	for (l = 0; l < ISO_LEVEL_COUNT; l++)
	{
		IsoCycleList cl;

		memset(&cl, 0, sizeof(cl));
		r.violated[l] = iso_find_cycles(&inf.graph, (IsoLevel) l, 3, &cl);
		r.witnesses[l] = cl.n;
		for (i = 0; i < cl.n; i++)
		{
			r.kinds[l] |= 1u << cl.cycles[i].kind;
			if (!witness_valid(&inf.graph, &cl.cycles[i]))
				r.witnesses_valid = false;
			if (cl.cycles[i].length > r.longest_witness)
				r.longest_witness = cl.cycles[i].length;
		}
		/* a violated level must come with a witness, a holding one without */
		if ((cl.n > 0) != r.violated[l])
			r.witnesses_valid = false;
		iso_cycle_list_free(&cl);
	}
	inference_free(&inf);
	r.secs = now() - t0;
	return r;
}

/* "violated" levels as a string of 0/1, weakest first (pl-1 ... strict) */
static const char *
verdicts(const Result *r)
{
	static char buf[ISO_LEVEL_COUNT + 1];
	int			l;

	for (l = 0; l < ISO_LEVEL_COUNT; l++)
		buf[l] = r->violated[l] ? '1' : '0';
	buf[ISO_LEVEL_COUNT] = '\0';
	return buf;
}

#define NONE_VIOLATED	"000000000"
#define ALL_VIOLATED	"111111111"

static void
expect(const char *name, const Result *r, uint32 vertices,
	   int64 ww, int64 wr, int64 rw, int64 so, int64 rt,
	   uint32 anomalies, const char *want_verdicts)
{
	ok(r->built, "%s: graph built", name);
	ok(r->n_vertices == vertices, "%s: %u vertices (got %u)", name, vertices, r->n_vertices);
	ok((ww < 0 || r->counts[ISO_EDGE_WW] == (uint64) ww) &&
	   (wr < 0 || r->counts[ISO_EDGE_WR] == (uint64) wr) &&
	   (rw < 0 || r->counts[ISO_EDGE_RW] == (uint64) rw) &&
	   (so < 0 || r->counts[ISO_EDGE_SO] == (uint64) so) &&
	   (rt < 0 || r->counts[ISO_EDGE_RT] == (uint64) rt),
	   "%s: edges ww %llu wr %llu rw %llu so %llu rt %llu", name,
	   (unsigned long long) r->counts[ISO_EDGE_WW],
	   (unsigned long long) r->counts[ISO_EDGE_WR],
	   (unsigned long long) r->counts[ISO_EDGE_RW],
	   (unsigned long long) r->counts[ISO_EDGE_SO],
	   (unsigned long long) r->counts[ISO_EDGE_RT]);
	ok(r->n_anomalies == anomalies, "%s: %u non-cycle anomalies (got %u)", name,
	   anomalies, r->n_anomalies);
	is_str(verdicts(r), want_verdicts, "verdicts pl-1..strict-serializable");
	ok(r->witnesses_valid, "%s: witnesses are closed walks, one per violated level", name);
	diag("%s: %.2f s, longest witness %u edges", name, r->secs, r->longest_witness);
}

/* ---- shapes ---- */

static char *
num(char *buf, const char *prefix, uint32 i)
{
	sprintf(buf, "%s%u", prefix, i);
	return buf;
}

static void
test_empty(void)
{
	IsoHistory	h;
	Result		r;

	iso_history_init(&h, ISO_WORKLOAD_LIST_APPEND);
	r = run(&h, NULL, false);
	expect("empty list-append", &r, 0, 0, 0, 0, 0, 0, 0, NONE_VIOLATED);
	history_free(&h);

	iso_history_init(&h, ISO_WORKLOAD_RW_REGISTER);
	r = run(&h, NULL, true);
	expect("empty rw-register", &r, 0, 0, 0, 0, 0, 0, 0, NONE_VIOLATED);
	history_free(&h);
}

static void
test_single(void)
{
	IsoHistory	h;
	Result		r;
	IsoSlice	list[1];

	/* [[:append x 1] [:r x [1]]], committed */
	iso_history_init(&h, ISO_WORKLOAD_LIST_APPEND);
	iso_history_add_txn(&h, 0, ISO_STATUS_OK, true, 0, 10, 20);
	iso_history_add_op(&h, ISO_OP_APPEND, 0, sl("x"), sl("1"), NULL, -1);
	list[0] = sl("1");
	iso_history_add_op(&h, ISO_OP_READ, 1, sl("x"), nil_slice, list, 1);
	r = run(&h, NULL, false);
	expect("one ok transaction", &r, 1, 0, 0, 0, 0, 0, 0, NONE_VIOLATED);
	history_free(&h);

	/* [[:w x 1] [:r x 2]], aborted: no vertex; its internal anomaly is moot */
	iso_history_init(&h, ISO_WORKLOAD_RW_REGISTER);
	iso_history_add_txn(&h, 0, ISO_STATUS_FAIL, false, 0, ISO_NO_TIME, ISO_NO_TIME);
	iso_history_add_op(&h, ISO_OP_WRITE, 0, sl("x"), sl("1"), NULL, -1);
	r = run(&h, NULL, false);
	expect("one failed transaction", &r, 0, 0, 0, 0, 0, 0, 0, NONE_VIOLATED);
	history_free(&h);

	/* a transaction with no micro-ops at all */
	iso_history_init(&h, ISO_WORKLOAD_RW_REGISTER);
	iso_history_add_txn(&h, 7, ISO_STATUS_OK, true, 1, ISO_NO_TIME, ISO_NO_TIME);
	r = run(&h, NULL, false);
	expect("one empty transaction", &r, 1, 0, 0, 0, 0, 0, 0, NONE_VIOLATED);
	history_free(&h);
}

static void
test_edn(void)
{
	static const char write_skew[] =
		"{:type :invoke, :process 0, :value [[:r 1 nil] [:r 2 nil] [:w 1 1]], :index 0}\n"
		"{:type :invoke, :process 1, :value [[:r 1 nil] [:r 2 nil] [:w 2 1]], :index 1}\n"
		"{:type :ok, :process 0, :value [[:r 1 nil] [:r 2 nil] [:w 1 1]], :index 2}\n"
		"{:type :ok, :process 1, :value [[:r 1 nil] [:r 2 nil] [:w 2 1]], :index 3}\n";
	static const char bad[] = "{:type :ok, :value [[:w 1 1]]}\n{:type :ok, :value [[:w 1 1]]}\n";
	IsoHistory	h;
	EdnStats	stats;
	IsoParseError err;
	IsoInference inf;
	IsoInferOptions opt = {false, false, false, false, ISO_PARALLEL_OFF, 0};
	Result		r;
	bool		parsed;

	memset(&err, 0, sizeof(err));
	parsed = iso_history_parse_edn(write_skew, sizeof(write_skew) - 1, ISO_WORKLOAD_UNKNOWN,
								   &h, &stats, &err);
	ok(parsed && h.n_txns == 2 && stats.workload == ISO_WORKLOAD_RW_REGISTER,
	   "EDN write skew parsed: 2 transactions, rw-register");
	h.workload = stats.workload;
	r = run(&h, NULL, false);
	/* G2-item: violates pl-2.99, ser, strong-session-ser, strict-ser */
	expect("EDN write skew", &r, 2, 0, 0, 2, 0, 0, 0, "001001011");
	ok(r.kinds[ISO_LEVEL_SER] == (1u << ISO_CYCLE_G2_ITEM), "EDN write skew: ser witness is G2-item");
	history_free(&h);

	/* a value written twice: the parser rejects it, and so does iso_infer */
	memset(&err, 0, sizeof(err));
	parsed = iso_history_parse_edn(bad, sizeof(bad) - 1, ISO_WORKLOAD_UNKNOWN,
								   &h, &stats, &err);
	ok(!parsed && err.kind == ISO_PARSE_DUPLICATE, "EDN duplicate write rejected by the parser (%s)",
	   err.message);

	iso_history_init(&h, ISO_WORKLOAD_RW_REGISTER);
	iso_history_add_txn(&h, 0, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
	iso_history_add_op(&h, ISO_OP_WRITE, 0, sl("1"), sl("1"), NULL, -1);
	iso_history_add_txn(&h, 1, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
	iso_history_add_op(&h, ISO_OP_WRITE, 0, sl("1"), sl("1"), NULL, -1);
	memset(&err, 0, sizeof(err));
	ok(!iso_infer(&h, NULL, &opt, &inf, &err) && err.kind == ISO_PARSE_DUPLICATE,
	   "iso_infer rejects a value written twice (%s)", err.message);
	/* on failure iso_infer may leave partial state; free what it allocated */
	history_free(&h);

	/*
	 * list-append: duplicates are found key by key, then named by the write
	 * map in op order, as before: the first duplicate write of the history
	 * (key 1, value 7, op 2), not that of the first key (key 2 has id 0)
	 */
	iso_history_init(&h, ISO_WORKLOAD_LIST_APPEND);
	iso_history_add_txn(&h, 10, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
	iso_history_add_op(&h, ISO_OP_APPEND, 0, sl("2"), sl("5"), NULL, -1);
	iso_history_add_txn(&h, 11, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
	iso_history_add_op(&h, ISO_OP_APPEND, 0, sl("1"), sl("7"), NULL, -1);
	iso_history_add_txn(&h, 12, ISO_STATUS_FAIL, false, 0, ISO_NO_TIME, ISO_NO_TIME);
	iso_history_add_op(&h, ISO_OP_APPEND, 0, sl("1"), sl("7"), NULL, -1);
	iso_history_add_txn(&h, 13, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
	iso_history_add_op(&h, ISO_OP_APPEND, 0, sl("2"), sl("5"), NULL, -1);
	memset(&err, 0, sizeof(err));
	ok(!iso_infer(&h, NULL, &opt, &inf, &err) && err.kind == ISO_PARSE_DUPLICATE &&
	   strcmp(err.message, "value \"7\" is written to key \"1\" more than once") == 0 &&
	   strcmp(err.detail, "Transactions 11 and 12 both write it.") == 0,
	   "iso_infer rejects a list-append value written twice, the first in op order (%s %s)",
	   err.message, err.detail);
	/* the same with the keys on two threads: the duplicate is in the helper's */
	opt.parallel_keys = ISO_PARALLEL_ALWAYS;
	memset(&err, 0, sizeof(err));
	ok(!iso_infer(&h, NULL, &opt, &inf, &err) && err.kind == ISO_PARSE_DUPLICATE &&
	   strcmp(err.message, "value \"7\" is written to key \"1\" more than once") == 0,
	   "on two threads too (%s)", err.message);
	opt.parallel_keys = ISO_PARALLEL_OFF;
	history_free(&h);
	/*
	 * a key with edges and an anomaly first, then one with a value written
	 * twice: the check stops there, with what the first key made freed (the
	 * sanitizer build finds a leak)
	 */
	{
		IsoSlice	l1[1];

		iso_history_init(&h, ISO_WORKLOAD_LIST_APPEND);
		iso_history_add_txn(&h, 0, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
		iso_history_add_op(&h, ISO_OP_APPEND, 0, sl("a"), sl("1"), NULL, -1);
		iso_history_add_txn(&h, 1, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
		l1[0] = sl("9");
		iso_history_add_list(&h, 0, sl("a"), l1, 1);	/* garbage read: an anomaly */
		iso_history_add_txn(&h, 2, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
		l1[0] = sl("1");
		iso_history_add_list(&h, 0, sl("a"), l1, 1);	/* wr, rw edges */
		iso_history_add_txn(&h, 3, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
		iso_history_add_op(&h, ISO_OP_APPEND, 0, sl("b"), sl("5"), NULL, -1);
		iso_history_add_txn(&h, 4, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
		iso_history_add_op(&h, ISO_OP_APPEND, 0, sl("b"), sl("5"), NULL, -1);
		memset(&err, 0, sizeof(err));
		ok(!iso_infer(&h, NULL, &opt, &inf, &err) && err.kind == ISO_PARSE_DUPLICATE &&
		   strcmp(err.message, "value \"5\" is written to key \"b\" more than once") == 0 &&
		   strcmp(err.detail, "Transactions 3 and 4 both write it.") == 0,
		   "iso_infer stops at a later key's value written twice (%s %s)",
		   err.message, err.detail);
		/* on two threads: key "a" on this one, "b" on the helper (no leak either) */
		opt.parallel_keys = ISO_PARALLEL_ALWAYS;
		memset(&err, 0, sizeof(err));
		ok(!iso_infer(&h, NULL, &opt, &inf, &err) && err.kind == ISO_PARSE_DUPLICATE &&
		   strcmp(err.detail, "Transactions 3 and 4 both write it.") == 0,
		   "on two threads too (%s %s)", err.message, err.detail);
		opt.parallel_keys = ISO_PARALLEL_OFF;
		history_free(&h);
	}
	iso_history_init(&h, ISO_WORKLOAD_LIST_APPEND);
	iso_history_add_txn(&h, 0, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
	iso_history_add_op(&h, ISO_OP_APPEND, 0, sl("1"), sl("7"), NULL, -1);
	iso_history_add_op(&h, ISO_OP_APPEND, 1, sl("2"), sl("7"), NULL, -1);
	iso_history_add_txn(&h, 1, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
	iso_history_add_op(&h, ISO_OP_APPEND, 0, sl("1"), sl("8"), NULL, -1);
	memset(&err, 0, sizeof(err));
	ok(iso_infer(&h, NULL, &opt, &inf, &err), "list-append: one value to two keys is no duplicate");
	inference_free(&inf);
	history_free(&h);
}

/*
 * Ring of n rw edges: T_i reads k_i = [] and appends i to k_{i+1 mod n}.
 * The read of k_{i+1} by T_{i+1} misses T_i's append: rw T_{i+1} -> T_i.
 * One SCC of n vertices, every cycle all-rw (adjacent): G2-item.
 */
static void
test_ring_rw(uint32 n)
{
	IsoHistory	h;
	Result		r;
	char		k[32],
				v[32];
	uint32		i;
	char		name[64];

	iso_history_init(&h, ISO_WORKLOAD_LIST_APPEND);
	for (i = 0; i < n; i++)
	{
		iso_history_add_txn(&h, i, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
		iso_history_add_op(&h, ISO_OP_READ, 0, sl(num(k, "k", i)), nil_slice, NULL, 0);
		iso_history_add_op(&h, ISO_OP_APPEND, 1, sl(num(k, "k", (i + 1) % n)),
						   sl(num(v, "", i)), NULL, -1);
	}
	r = run(&h, NULL, false);
	snprintf(name, sizeof(name), "giant SCC, ring of %u rw", n);
	expect(name, &r, n, 0, 0, n, 0, 0, 0, "001001011");
	ok(r.kinds[ISO_LEVEL_SER] == (1u << ISO_CYCLE_G2_ITEM) && r.longest_witness == n,
	   "%s: ser witness is the whole ring, G2-item", name);
	history_free(&h);
}

/*
 * Ring of n wr edges: T_i reads k_i = [i-1 mod n] and appends i to
 * k_{i+1 mod n}: wr T_{i-1} -> T_i.  G1c: everything but pl-1 violated.
 */
static void
test_ring_wr(uint32 n)
{
	IsoHistory	h;
	Result		r;
	char		k[32],
				v[32];
	uint32		i;
	IsoSlice	list[1];
	char		name[64];

	iso_history_init(&h, ISO_WORKLOAD_LIST_APPEND);
	for (i = 0; i < n; i++)
	{
		iso_history_add_txn(&h, i, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
		list[0] = sl(num(v, "", (i + n - 1) % n));
		iso_history_add_op(&h, ISO_OP_READ, 0, sl(num(k, "k", i)), nil_slice, list, 1);
		iso_history_add_op(&h, ISO_OP_APPEND, 1, sl(num(k, "k", (i + 1) % n)),
						   sl(num(v, "", i)), NULL, -1);
	}
	r = run(&h, NULL, false);
	snprintf(name, sizeof(name), "giant SCC, ring of %u wr", n);
	expect(name, &r, n, 0, n, 0, 0, 0, 0, "011111111");
	ok(r.kinds[ISO_LEVEL_PL2] == (1u << ISO_CYCLE_G1C), "%s: pl-2 witness is G1c", name);
	history_free(&h);
}

/*
 * Ring of n ww edges through an explicit version order: T_i writes 2i to
 * k_i and 2i+1 to k_{i+1 mod n}; the log orders k_j as [2j-1, 2j], so
 * ww T_{j-1} -> T_j.  G0: every level violated.
 */
static void
test_ring_ww(uint32 n)
{
	IsoHistory	h;
	IsoVersionLog log;
	Result		r;
	char		k[32],
				v[32];
	uint32		i,
				j;
	char		name[64];

	iso_history_init(&h, ISO_WORKLOAD_RW_REGISTER);
	for (i = 0; i < n; i++)
	{
		iso_history_add_txn(&h, i, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
		iso_history_add_op(&h, ISO_OP_WRITE, 0, sl(num(k, "k", i)), sl(num(v, "", 2 * i)), NULL, -1);
		iso_history_add_op(&h, ISO_OP_WRITE, 1, sl(num(k, "k", (i + 1) % n)),
						   sl(num(v, "", 2 * i + 1)), NULL, -1);
	}
	/* the log: (key id, value id) sorted by key id, positions ascending */
	log.n = 2 * n;
	log.keys = iso_alloc(sizeof(uint32) * log.n);
	log.values = iso_alloc(sizeof(uint32) * log.n);
	for (j = 0; j < n; j++)
	{
		uint32		kid,
					older = j == 0 ? 2 * n - 1 : 2 * j - 1;

		num(k, "k", j);
		kid = iso_strtab_find(&h.keys, k, (int32) strlen(k));
		log.keys[2 * kid] = kid;
		log.keys[2 * kid + 1] = kid;
		num(v, "", older);
		log.values[2 * kid] = iso_strtab_find(&h.values, v, (int32) strlen(v));
		num(v, "", 2 * j);
		log.values[2 * kid + 1] = iso_strtab_find(&h.values, v, (int32) strlen(v));
	}
	r = run(&h, &log, false);
	snprintf(name, sizeof(name), "giant SCC, ring of %u ww (version log)", n);
	expect(name, &r, n, n, 0, 0, 0, 0, 0, ALL_VIOLATED);
	ok(r.kinds[ISO_LEVEL_PL1] == (1u << ISO_CYCLE_G0), "%s: pl-1 witness is G0", name);
	iso_free(log.keys);
	iso_free(log.values);
	history_free(&h);
}

/*
 * A chain of n transactions, one process, back to back in real time:
 * T_i reads k_i = [i-1] and appends i to k_{i+1}.  wr, so and rt chains of
 * n-1 edges each, no cycle.
 */
static void
test_chain(uint32 n)
{
	IsoHistory	h;
	Result		r;
	char		k[32],
				v[32];
	uint32		i;
	IsoSlice	list[1];
	char		name[64];

	iso_history_init(&h, ISO_WORKLOAD_LIST_APPEND);
	for (i = 0; i < n; i++)
	{
		iso_history_add_txn(&h, i, ISO_STATUS_OK, true, 0, 2 * (int64) i, 2 * (int64) i + 1);
		list[0] = sl(num(v, "", i - 1));
		iso_history_add_op(&h, ISO_OP_READ, 0, sl(num(k, "k", i)), nil_slice, list, i > 0 ? 1 : 0);
		iso_history_add_op(&h, ISO_OP_APPEND, 1, sl(num(k, "k", i + 1)), sl(num(v, "", i)), NULL, -1);
	}
	r = run(&h, NULL, false);
	snprintf(name, sizeof(name), "chain of %u", n);
	expect(name, &r, n, 0, n - 1, 0, n - 1, n - 1, 0, NONE_VIOLATED);
	history_free(&h);
}

/*
 * Session order over many processes: transaction i of process i % p, three
 * rounds, each appending to a key of its own.  so links each process's
 * three transactions: 2p edges, whatever p (the table of processes the
 * session edges use starts small and grows: 1000 processes outgrow it
 * several times, p = 1 never).
 */
static void
test_many_processes(uint32 p)
{
	IsoHistory	h;
	Result		r;
	char		k[32],
				v[32];
	uint32		i;
	char		name[64];

	iso_history_init(&h, ISO_WORKLOAD_LIST_APPEND);
	for (i = 0; i < 3 * p; i++)
	{
		iso_history_add_txn(&h, i, ISO_STATUS_OK, true, (int64) (i % p) * 7919 - 500,
							ISO_NO_TIME, ISO_NO_TIME);
		iso_history_add_op(&h, ISO_OP_APPEND, 0, sl(num(k, "k", i)), sl(num(v, "", i)), NULL, -1);
	}
	r = run(&h, NULL, false);
	snprintf(name, sizeof(name), "%u processes, 3 transactions each", p);
	expect(name, &r, 3 * p, 0, 0, 0, 2 * p, 0, 0, NONE_VIOLATED);
	history_free(&h);
}

/*
 * A star: T_0 appends 1 to x, n readers read [1], and T_w appends 2 to x
 * after them all, seen by nobody.  wr T_0 -> each reader, rw each reader ->
 * T_w, ww T_0 -> T_w.  Acyclic.
 */
static void
test_star(uint32 n)
{
	IsoHistory	h;
	Result		r;
	uint32		i;
	IsoSlice	list[1];
	char		name[64];

	iso_history_init(&h, ISO_WORKLOAD_LIST_APPEND);
	iso_history_add_txn(&h, 0, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
	iso_history_add_op(&h, ISO_OP_APPEND, 0, sl("x"), sl("1"), NULL, -1);
	list[0] = sl("1");
	for (i = 0; i < n; i++)
	{
		iso_history_add_txn(&h, i + 1, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
		iso_history_add_op(&h, ISO_OP_READ, 0, sl("x"), nil_slice, list, 1);
	}
	iso_history_add_txn(&h, n + 1, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
	iso_history_add_op(&h, ISO_OP_APPEND, 0, sl("x"), sl("2"), NULL, -1);
	r = run(&h, NULL, false);
	snprintf(name, sizeof(name), "star of %u readers", n);
	expect(name, &r, n + 2, 1, n, n, 0, 0, 0, NONE_VIOLATED);
	history_free(&h);

	/* the same on a register: n readers of x = 1, a later write x = 2 */
	iso_history_init(&h, ISO_WORKLOAD_RW_REGISTER);
	iso_history_add_txn(&h, 0, ISO_STATUS_OK, true, 0, ISO_NO_TIME, ISO_NO_TIME);
	iso_history_add_op(&h, ISO_OP_WRITE, 0, sl("x"), sl("1"), NULL, -1);
	for (i = 0; i < n; i++)
	{
		iso_history_add_txn(&h, i + 1, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
		iso_history_add_op(&h, ISO_OP_READ, 0, sl("x"), sl("1"), NULL, -1);
	}
	iso_history_add_txn(&h, n + 1, ISO_STATUS_OK, true, 0, ISO_NO_TIME, ISO_NO_TIME);
	iso_history_add_op(&h, ISO_OP_WRITE, 0, sl("x"), sl("2"), NULL, -1);
	/* sequential keys: process 0's later write is the newer version */
	r = run(&h, NULL, true);
	snprintf(name, sizeof(name), "register star of %u readers", n);
	expect(name, &r, n + 2, 1, n, n, 1, 0, 0, NONE_VIOLATED);
	history_free(&h);
}

/* iso_infer of h; whether exactly the txns listed (by index) are vertices */
static bool
vertices_are(const IsoHistory *h, const uint32 *want, uint32 n_want, uint32 *n_vertices)
{
	IsoInference inf;
	IsoInferOptions opt = {false, false, false, false, ISO_PARALLEL_OFF, 0};
	IsoParseError err;
	bool		same;
	uint32		i;

	memset(&err, 0, sizeof(err));
	if (!iso_infer(h, NULL, &opt, &inf, &err))
	{
		diag("iso_infer failed: %s", err.message);
		return false;
	}
	*n_vertices = inf.n_vertices;
	same = inf.n_vertices == n_want;
	for (i = 0; i < n_want && same; i++)
		same = inf.txn_vertex[want[i]] != ISO_NONE;
	inference_free(&inf);
	return same;
}

/*
 * Info transactions whose appends committed reads see are vertices; those
 * nobody reads are not.  Key x: R1 [1], R2 [1 2] (extends R1: only 2 is
 * new, and proves I1), R3 [1 2 3] (proves I2), R4 [1 2] (a prefix: nothing
 * new); I3's 4 is never read.  Key y: R5 [5 6], R6 [5 7] (differs: its own
 * region, and its 7 proves I4); I5 appends 8, read only by I6, an info
 * transaction nobody proves, so I5 stays out too.
 */
static void
test_info_proven_small(void)
{
	IsoHistory	h;
	IsoSlice	l[3];
	uint32		want[] = {0, 1, 2, 3, 4, 5, 6, 8, 9, 10};
	uint32		nv = 0;
	bool		same;

	iso_history_init(&h, ISO_WORKLOAD_LIST_APPEND);
	iso_history_add_txn(&h, 0, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);	/* 0 */
	iso_history_add_op(&h, ISO_OP_APPEND, 0, sl("x"), sl("1"), NULL, -1);
	iso_history_add_op(&h, ISO_OP_APPEND, 1, sl("y"), sl("5"), NULL, -1);
	iso_history_add_txn(&h, 1, ISO_STATUS_INFO, false, 0, ISO_NO_TIME, ISO_NO_TIME);	/* 1: I1 */
	iso_history_add_op(&h, ISO_OP_APPEND, 0, sl("x"), sl("2"), NULL, -1);
	iso_history_add_txn(&h, 2, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);	/* 2: R1 */
	l[0] = sl("1");
	iso_history_add_list(&h, 0, sl("x"), l, 1);
	iso_history_add_txn(&h, 3, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);	/* 3: R2 */
	l[1] = sl("2");
	iso_history_add_list(&h, 0, sl("x"), l, 2);
	iso_history_add_txn(&h, 4, ISO_STATUS_INFO, false, 0, ISO_NO_TIME, ISO_NO_TIME);	/* 4: I2 */
	iso_history_add_op(&h, ISO_OP_APPEND, 0, sl("x"), sl("3"), NULL, -1);
	iso_history_add_txn(&h, 5, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);	/* 5: R3 */
	l[2] = sl("3");
	iso_history_add_list(&h, 0, sl("x"), l, 3);
	iso_history_add_txn(&h, 6, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);	/* 6: R4 */
	iso_history_add_list(&h, 0, sl("x"), l, 2);
	iso_history_add_txn(&h, 7, ISO_STATUS_INFO, false, 0, ISO_NO_TIME, ISO_NO_TIME);	/* 7: I3 */
	iso_history_add_op(&h, ISO_OP_APPEND, 0, sl("x"), sl("4"), NULL, -1);
	iso_history_add_txn(&h, 8, ISO_STATUS_INFO, false, 0, ISO_NO_TIME, ISO_NO_TIME);	/* 8: I4 */
	iso_history_add_op(&h, ISO_OP_APPEND, 0, sl("y"), sl("7"), NULL, -1);
	iso_history_add_txn(&h, 9, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);	/* 9: R5 */
	l[0] = sl("5");
	l[1] = sl("6");
	iso_history_add_list(&h, 0, sl("y"), l, 2);
	iso_history_add_txn(&h, 10, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);	/* 10: R6 */
	l[1] = sl("7");
	iso_history_add_list(&h, 0, sl("y"), l, 2);
	iso_history_add_txn(&h, 11, ISO_STATUS_INFO, false, 0, ISO_NO_TIME, ISO_NO_TIME);	/* 11: I5 */
	iso_history_add_op(&h, ISO_OP_APPEND, 0, sl("y"), sl("8"), NULL, -1);
	iso_history_add_txn(&h, 12, ISO_STATUS_INFO, false, 0, ISO_NO_TIME, ISO_NO_TIME);	/* 12: I6 */
	l[1] = sl("7");
	l[2] = sl("8");
	iso_history_add_list(&h, 0, sl("y"), l, 3);
	same = vertices_are(&h, want, sizeof(want) / sizeof(want[0]), &nv);
	ok(same, "info transactions proven by repeated, extended and differing reads: %u vertices (want %u)",
	   nv, (uint32) (sizeof(want) / sizeof(want[0])));
	history_free(&h);
}

/*
 * The same with keys x values past the dense table (2048 keys, 65536
 * values: 2M words of bits), so the hash filter decides: on every 64th key
 * the last of 32 appends is by an info transaction a committed read sees
 * (proven), and another info append nobody reads (not proven).
 */
static void
test_info_proven_filter(void)
{
	IsoHistory	h;
	IsoSlice	l[32];
	char		kb[16],
				vb[32][16],
				xb[16];
	uint32	   *want = malloc(sizeof(uint32) * 70000);
	uint32		n_want = 0;
	uint32		nv = 0;
	bool		same;
	uint32		k,
				i;
	int64		id = 0;

	iso_history_init(&h, ISO_WORKLOAD_LIST_APPEND);
	for (k = 0; k < 2048; k++)
	{
		bool		info_key = k % 64 == 0;

		num(kb, "k", k);
		for (i = 0; i < 32; i++)
		{
			bool		info = info_key && i == 31;

			num(vb[i], "", k * 32 + i);
			iso_history_add_txn(&h, id, info ? ISO_STATUS_INFO : ISO_STATUS_OK, false, 0,
								ISO_NO_TIME, ISO_NO_TIME);
			want[n_want++] = (uint32) id++;
			iso_history_add_op(&h, ISO_OP_APPEND, 0, sl(kb), sl(vb[i]), NULL, -1);
			l[i] = sl(vb[i]);
		}
		iso_history_add_txn(&h, id, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
		want[n_want++] = (uint32) id++;
		iso_history_add_list(&h, 0, sl(kb), l, 32);
		if (info_key)
		{
			num(xb, "", 100000 + k);
			iso_history_add_txn(&h, id++, ISO_STATUS_INFO, false, 0, ISO_NO_TIME, ISO_NO_TIME);
			iso_history_add_op(&h, ISO_OP_APPEND, 0, sl(kb), sl(xb), NULL, -1);
		}
	}
	same = vertices_are(&h, want, n_want, &nv);
	ok(same, "info transactions proven through the hash filter (2048 keys x 65536 values): %u vertices (want %u)",
	   nv, n_want);
	free(want);
	history_free(&h);
}

int
main(void)
{
	const char *s = getenv("ISO_INFER_SCALE");
	uint32		scale = s ? (uint32) atoi(s) : 1;

	if (scale == 0)
		scale = 1;
	test_empty();
	test_single();
	test_edn();
	test_ring_rw(100000 / scale);
	test_ring_wr(100000 / scale);
	test_ring_ww(100000 / scale);
	test_chain(1000000 / scale);
	test_star(100000 / scale);
	test_many_processes(1);
	test_many_processes(1000);
	test_info_proven_small();
	test_info_proven_filter();
	return tap_done();
}
