/*
 * test_search.c
 *	  The version-order search (search.c) on black-box rw-register
 *	  histories: hand-made ones with hand-checked verdicts, and the
 *	  published black-box histories of ../shared/data/blackbox (read in
 *	  place; skipped with a message when absent).  TAP output.
 *
 *	  ISOGRAPH_BLACKBOX_DIR overrides where the published histories are
 *	  (default: ../shared/data/blackbox beside the repository).
 */
#include "port.h"
#include "cycle.h"
#include "history.h"
#include "history_edn.h"
#include "infer.h"
#include "levels.h"
#include "search.h"

#include <stdlib.h>

#include "history_util.h"
#include "tap.h"

#define ALL_LEVELS	((1u << ISO_LEVEL_COUNT) - 1)

typedef struct Checked
{
	IsoHistory	h;
	IsoInference inf;
	IsoLevelDecision d[ISO_LEVEL_COUNT];
} Checked;

static const IsoSearchOptions opts = {60.0, UINT64_C(1) << 28, 0, 3, false, false, 0.0, ISO_PRUNE_AUTO, 0};

static bool
check_text(const char *text, size_t len, Checked *c)
{
	EdnStats	stats;
	IsoParseError err;
	IsoInferOptions io = {false, false};

	if (!iso_history_parse_edn(text, len, ISO_WORKLOAD_RW_REGISTER, &c->h, &stats, &err))
	{
		diag("parse error: %s", err.message);
		return false;
	}
	if (!iso_infer(&c->h, NULL, &io, &c->inf, &err))
	{
		diag("infer error: %s", err.message);
		return false;
	}
	iso_decide_levels(&c->h, &c->inf, ALL_LEVELS, &opts, NULL, c->d);
	return true;
}

static void
checked_free(Checked *c)
{
	iso_level_decisions_free(c->d);
	iso_free(c->inf.vertex_txn);
	iso_free(c->inf.txn_vertex);
	iso_free(c->inf.graph.edges);
	iso_free(c->inf.graph.out_start);
	if (c->inf.anomalies)
		iso_free(c->inf.anomalies);
	iso_infer_free_unknown(&c->inf.unknown);
	history_free(&c->h);
}

/* "h" holds, "v" violated, "?" not decided; one letter per level, weakest first */
static void
verdicts(const Checked *c, char *out)
{
	int			l;

	for (l = 0; l < ISO_LEVEL_COUNT; l++)
		out[l] = c->d[l].method == ISO_NOT_DECIDED ? '?' : c->d[l].holds ? 'h' : 'v';
	out[ISO_LEVEL_COUNT] = '\0';
}

/* one letter per level: e evidence, s search, i implied, ? not decided */
static void
methods(const Checked *c, char *out)
{
	static const char letters[] = "esi?";
	int			l;

	for (l = 0; l < ISO_LEVEL_COUNT; l++)
		out[l] = letters[c->d[l].method];
	out[ISO_LEVEL_COUNT] = '\0';
}

/*
 * Levels in order: pl-1 pl-2 pl-2.99 psi si ser strong-session-si
 * strong-session-serializable strict-serializable.
 */
static void
expect(const char *name, const char *edn, const char *want_verdicts, const char *want_methods,
	   Checked *keep)
{
	Checked		c;
	char		got[ISO_LEVEL_COUNT + 1];
	char		desc[256];

	memset(&c, 0, sizeof(c));
	if (!ok(check_text(edn, strlen(edn), &c), "%s: parsed and inferred", name))
		return;
	ok(c.inf.unknown.n_keys > 0, "%s: has keys of unknown version order (%u)", name,
	   c.inf.unknown.n_keys);
	verdicts(&c, got);
	snprintf(desc, sizeof(desc), "%s: verdicts", name);
	is_str(got, want_verdicts, desc);
	if (want_methods)
	{
		methods(&c, got);
		snprintf(desc, sizeof(desc), "%s: methods", name);
		is_str(got, want_methods, desc);
	}
	if (keep)
		*keep = c;
	else
		checked_free(&c);
}

/* The write op of (key text, value text) in c's history, or ISO_NONE. */
static uint32
write_op(const Checked *c, const char *key, const char *value)
{
	uint32		o;

	for (o = 0; o < c->h.n_ops; o++)
	{
		const IsoOp *op = &c->h.ops[o];
		int32		klen,
					vlen;
		const char *k = iso_strtab_get(&c->h.keys, op->key, &klen);
		const char *v;

		if (op->kind != ISO_OP_WRITE || op->value == ISO_NONE)
			continue;
		v = iso_strtab_get(&c->h.values, op->value, &vlen);
		if ((size_t) klen == strlen(key) && memcmp(k, key, klen) == 0 &&
			(size_t) vlen == strlen(value) && memcmp(v, value, vlen) == 0)
			return o;
	}
	return ISO_NONE;
}

static void
hand_made(void)
{
	Checked		c;

	/*
	 * Lost update: T1 and T2 both read x's initial nil and both write x.
	 * Either order of 1 and 2 makes a cycle ww + rw (G-single): psi, si
	 * and ser are violated; pl-2 holds.  The evidence shows it (two writers
	 * read one version: the lost-update anomaly).
	 */
	expect("lost update",
		   "{:type :ok, :value [[:r :x nil] [:w :x 1]], :process 1, :index 1}\n"
		   "{:type :ok, :value [[:r :x nil] [:w :x 2]], :process 2, :index 2}\n",
		   "hhvvvvvvv", NULL, NULL);

	/*
	 * Write skew, black-box: T1 and T2 read x and y as nil and write one
	 * each; T3 and T4 write x and y too, read by nobody.  rw T1 -> T2
	 * (y) and T2 -> T1 (x): two adjacent rw, so ser is violated, si holds
	 * whatever the order of x's (and y's) two versions: the search finds an
	 * order.
	 */
	expect("write skew",
		   "{:type :ok, :value [[:r :x nil] [:r :y nil] [:w :x 1]], :process 1, :index 1}\n"
		   "{:type :ok, :value [[:r :x nil] [:r :y nil] [:w :y 2]], :process 2, :index 2}\n"
		   "{:type :ok, :value [[:w :x 3]], :process 3, :index 3}\n"
		   "{:type :ok, :value [[:w :y 4]], :process 4, :index 4}\n",
		   "hhvhhvhvv", NULL, NULL);

	/*
	 * Long fork: T3 sees T1's x but not T2's y, T4 sees T2's y but not
	 * T1's x; T5 and T6 write x and y again (order unknown).  T1 -wr-> T3
	 * -rw-> T2 -wr-> T4 -rw-> T1 has two non-adjacent rw: si (and ser)
	 * violated, psi holds.
	 */
	expect("long fork",
		   "{:type :ok, :value [[:w :x 1]], :process 1, :index 1}\n"
		   "{:type :ok, :value [[:w :y 1]], :process 2, :index 2}\n"
		   "{:type :ok, :value [[:r :x 1] [:r :y nil]], :process 3, :index 3}\n"
		   "{:type :ok, :value [[:r :x nil] [:r :y 1]], :process 4, :index 4}\n"
		   "{:type :ok, :value [[:w :x 2]], :process 5, :index 5}\n"
		   "{:type :ok, :value [[:w :y 2]], :process 6, :index 6}\n",
		   "hhvhvvvvv", NULL, NULL);

	/*
	 * Passes only by a non-obvious version order: T1 writes x 1, T2 x 2;
	 * T3 reads x 2 and writes y 1; T4 reads y 1 and x 1.  If 1 came
	 * before 2, T4 -rw-> T2 -wr-> T3 -wr-> T4 (one rw) would be a cycle;
	 * so 2 precedes 1, and then T2, T3, T1, T4 is a serial order: every
	 * level holds, x's order is [2 1].
	 */
	memset(&c, 0, sizeof(c));
	expect("non-obvious order",
		   "{:type :ok, :value [[:w :x 1]], :process 1, :index 1}\n"
		   "{:type :ok, :value [[:w :x 2]], :process 2, :index 2}\n"
		   "{:type :ok, :value [[:r :x 2] [:w :y 1]], :process 3, :index 3}\n"
		   "{:type :ok, :value [[:r :y 1] [:r :x 1]], :process 4, :index 4}\n",
		   "hhhhhhhhh", NULL, &c);
	if (c.inf.unknown.n_keys == 1)
	{
		const IsoLevelDecision *d = &c.d[ISO_LEVEL_SER];
		IsoLevel	via = d->method == ISO_BY_IMPLICATION ? d->via : ISO_LEVEL_SER;
		const IsoSearchResult *r = &c.d[via].search;

		ok(c.d[via].searched && r->order_op != NULL &&
		   r->order_op[0] == write_op(&c, ":x", "2") &&
		   r->order_op[1] == write_op(&c, ":x", "1"),
		   "non-obvious order: ser's version order of x is [2 1]");
		ok(r->stats.constraints == 1, "non-obvious order: one constraint (%llu)",
		   (unsigned long long) r->stats.constraints);
		checked_free(&c);
	}

	/*
	 * Causality violation that needs the version order: as above, plus T5
	 * reads x 1 and writes z 1, T6 reads z 1 and x 2.  Now 2 before 1
	 * closes T1 -wr-> T5 -wr-> T6 -rw-> T1 as well: both orders make a
	 * cycle with one rw, so psi (and all above it) is violated, by the
	 * search; pl-2 holds.  The witness has a forced edge.
	 */
	memset(&c, 0, sizeof(c));
	expect("causality violation",
		   "{:type :ok, :value [[:w :x 1]], :process 1, :index 1}\n"
		   "{:type :ok, :value [[:w :x 2]], :process 2, :index 2}\n"
		   "{:type :ok, :value [[:r :x 2] [:w :y 1]], :process 3, :index 3}\n"
		   "{:type :ok, :value [[:r :y 1] [:r :x 1]], :process 4, :index 4}\n"
		   "{:type :ok, :value [[:r :x 1] [:w :z 1]], :process 5, :index 5}\n"
		   "{:type :ok, :value [[:r :z 1] [:r :x 2]], :process 6, :index 6}\n",
		   "hhvvvvvvv", "eessiiiii", &c);
	if (c.d[ISO_LEVEL_PSI].searched)
	{
		const IsoSearchResult *r = &c.d[ISO_LEVEL_PSI].search;
		uint32		forced = 0,
					with_reason = 0,
					i;

		ok(r->by_pruning && r->stats.solver_calls == 0,
		   "causality violation: decided by pruning alone");
		ok(r->cycles.n >= 1, "causality violation: a witness cycle");
		for (i = 0; r->cycles.n >= 1 && i < r->cycles.cycles[0].length; i++)
		{
			uint64		e = r->cycles.cycles[0].edges[i];

			if (r->edge_origin[e] == ISO_ORIGIN_FORCED)
			{
				forced++;
				if (r->edge_reason[e] != ISO_NONE && r->reason_len[r->edge_reason[e]] >= 2)
					with_reason++;
			}
		}
		ok(forced >= 1 && forced == with_reason,
		   "causality violation: the witness has forced edges (%u), each with the cycle the other order closes (%u)",
		   forced, with_reason);
	}
	checked_free(&c);

	/*
	 * Free orders: three transactions of three sessions write x and y,
	 * nobody reads.  No order is forbidden, none is forced: pruning leaves
	 * the constraints and the solver picks orders (x and y alike, or a
	 * ww cycle would appear).  (No invocations, so no real-time order:
	 * strict-serializable is strong-session-serializable.)
	 */
	memset(&c, 0, sizeof(c));
	expect("free orders",
		   "{:type :ok, :value [[:w :x 1] [:w :y 1]], :process 1, :index 1}\n"
		   "{:type :ok, :value [[:w :x 2] [:w :y 2]], :process 2, :index 2}\n"
		   "{:type :ok, :value [[:w :x 3] [:w :y 3]], :process 3, :index 3}\n",
		   "hhhhhhhhh", "eeiiiiiis", &c);
	if (c.d[ISO_LEVEL_STRICT_SER].searched)
	{
		const IsoSearchResult *r = &c.d[ISO_LEVEL_STRICT_SER].search;
		uint32		i,
					same = 1;

		ok(r->stats.constraints == 6 && r->stats.constraints_left == 6 &&
		   r->stats.solver_calls >= 1,
		   "free orders: 6 constraints, none pruned, solver called (%llu, %llu, %u)",
		   (unsigned long long) r->stats.constraints,
		   (unsigned long long) r->stats.constraints_left, r->stats.solver_calls);
		/* x's and y's orders name the same writers in the same order */
		for (i = 0; i < 3; i++)
			same &= c.h.ops[r->order_op[i]].txn == c.h.ops[r->order_op[3 + i]].txn;
		ok(same, "free orders: x and y ordered alike");
	}
	checked_free(&c);

	/*
	 * The variables' cap applies after pruning, to what it leaves: process
	 * 1 writes x 1..10 in ten transactions (blind writes: the evidence
	 * leaves x's order open, 45 pairs), processes 2 and 3 write y once each
	 * (1 pair).  At strong-session-serializable the session order orders
	 * every pair of x (the other order closes a ww + so cycle), so pruning
	 * forces them: only the nine consecutive ones get a constraint (the
	 * others follow by transitivity, their edges by the paths of those
	 * nine), and y's pair is left to the solver.  46 pairs before
	 * pruning, 10 variables after: a cap of 10 decides (holds, x in
	 * session order), a cap of 9 does not.  Before the variables were
	 * made only for the pairs pruning leaves, a cap below 46 refused it
	 * before pruning.
	 */
	memset(&c, 0, sizeof(c));
	expect("cap after pruning",
		   "{:type :ok, :value [[:w :x 1]], :process 1, :index 1}\n"
		   "{:type :ok, :value [[:w :x 2]], :process 1, :index 2}\n"
		   "{:type :ok, :value [[:w :x 3]], :process 1, :index 3}\n"
		   "{:type :ok, :value [[:w :x 4]], :process 1, :index 4}\n"
		   "{:type :ok, :value [[:w :x 5]], :process 1, :index 5}\n"
		   "{:type :ok, :value [[:w :x 6]], :process 1, :index 6}\n"
		   "{:type :ok, :value [[:w :x 7]], :process 1, :index 7}\n"
		   "{:type :ok, :value [[:w :x 8]], :process 1, :index 8}\n"
		   "{:type :ok, :value [[:w :x 9]], :process 1, :index 9}\n"
		   "{:type :ok, :value [[:w :x 10]], :process 1, :index 10}\n"
		   "{:type :ok, :value [[:w :y 1]], :process 2, :index 11}\n"
		   "{:type :ok, :value [[:w :y 2]], :process 3, :index 12}\n",
		   "hhhhhhhhh", NULL, &c);
	if (c.inf.unknown.n_keys == 2)
	{
		IsoSearchOptions o = opts;
		IsoSearchResult r;
		uint32		sx = c.inf.unknown.key[0] == c.h.ops[write_op(&c, ":x", "1")].key ? 0 : 1;
		uint32		i,
					in_order = 1;

		o.max_constraints = 10;
		iso_search_level(&c.h, &c.inf, ISO_LEVEL_STRONG_SESSION_SER, &o, &r);
		ok(r.verdict == ISO_SEARCH_HOLDS && !r.by_pruning && r.stats.solver_calls >= 1,
		   "cap after pruning: a cap of 10 variables decides it by the solver (%d, %s)",
		   (int) r.verdict, r.reason ? r.reason : "");
		ok(r.stats.constraints == 46 && r.stats.constraints_left == 1 && r.stats.forced == 45,
		   "cap after pruning: 46 pairs, 45 forced, 1 left (%llu, %llu, %llu)",
		   (unsigned long long) r.stats.constraints, (unsigned long long) r.stats.forced,
		   (unsigned long long) r.stats.constraints_left);
		for (i = 0; r.order_op != NULL && i < 10; i++)
		{
			char		v[8];

			snprintf(v, sizeof(v), "%u", i + 1);
			in_order &= r.order_op[c.inf.unknown.ver_start[sx] + i] == write_op(&c, ":x", v);
		}
		ok(r.order_op != NULL && in_order, "cap after pruning: x's versions in session order");
		iso_search_result_free(&r);
		o.max_constraints = 9;
		iso_search_level(&c.h, &c.inf, ISO_LEVEL_STRONG_SESSION_SER, &o, &r);
		ok(r.verdict == ISO_SEARCH_UNDECIDED && r.reason != NULL &&
		   strstr(r.reason, "too many unordered version pairs") != NULL &&
		   r.stats.prune_rounds >= 1,
		   "cap after pruning: a cap of 9 does not decide it, after pruning (%s)",
		   r.reason ? r.reason : "");
		iso_search_result_free(&r);
		/*
		 * The joint bound: order bits (x: 10 rows of a word, y: 2) 96
		 * bytes, plus 256 per variable: 2656 bytes decide, 2655 do not.
		 */
		o.max_constraints = 0;
		o.max_bytes = 2656;
		iso_search_level(&c.h, &c.inf, ISO_LEVEL_STRONG_SESSION_SER, &o, &r);
		ok(r.verdict == ISO_SEARCH_HOLDS, "cap after pruning: 2656 bytes for bits and variables decide it (%d)",
		   (int) r.verdict);
		iso_search_result_free(&r);
		o.max_bytes = 2655;
		iso_search_level(&c.h, &c.inf, ISO_LEVEL_STRONG_SESSION_SER, &o, &r);
		ok(r.verdict == ISO_SEARCH_UNDECIDED && r.stats.prune_rounds >= 1,
		   "cap after pruning: 2655 bytes do not, after pruning (%d)", (int) r.verdict);
		iso_search_result_free(&r);
	}
	else
		ok(false, "cap after pruning: two open keys (%u)", c.inf.unknown.n_keys);
	checked_free(&c);

	/*
	 * Soundness: no version order violates only one side.  Versions 1 and
	 * 2 of x, each read by one transaction that wrote nothing: any order
	 * is fine at every level (one rw only from the older's reader).
	 */
	expect("readers only",
		   "{:type :ok, :value [[:w :x 1]], :process 1, :index 1}\n"
		   "{:type :ok, :value [[:w :x 2]], :process 2, :index 2}\n"
		   "{:type :ok, :value [[:r :x 1]], :process 3, :index 3}\n"
		   "{:type :ok, :value [[:r :x 2]], :process 4, :index 4}\n",
		   "hhhhhhhhh", NULL, NULL);
}

static char *
read_file(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	char	   *buf;
	long		n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = iso_alloc((size_t) n + 1);
	if (fread(buf, 1, (size_t) n, f) != (size_t) n)
	{
		fclose(f);
		iso_free(buf);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	*len = (size_t) n;
	return buf;
}

static const char *const violations[] = {
	"si-violations/mariadb-galera.edn",
	"si-violations/yugabytedb.edn",
	"si-violations/dgraph.edn",
};

static const char *const postgres[] = {
	"postgres-repeatable-read/20_100_15_10000_0.25_uniform-hist-00000.edn",
	"postgres-repeatable-read/20_100_15_10000_0.5_hotspot-hist-00000.edn",
	"postgres-repeatable-read/20_100_15_10000_0.5_uniform-hist-00000.edn",
	"postgres-repeatable-read/20_100_15_10000_0.5_zipf-hist-00000.edn",
	"postgres-repeatable-read/20_100_15_10000_0.75_uniform-hist-00000.edn",
	"postgres-repeatable-read/20_100_15_1000_0.5_uniform-hist-00000.edn",
	"postgres-repeatable-read/20_100_5_10000_0.5_uniform-hist-00000.edn",
	"postgres-repeatable-read/20_10_15_10000_0.5_uniform-hist-00000.edn",
	"postgres-repeatable-read/20_30_15_10000_0.5_uniform-hist-00002.edn",
	"postgres-repeatable-read/5_100_15_10000_0.5_uniform-hist-00000.edn",
};

static void
published_one(const char *dir, const char *file, bool si_holds)
{
	char		path[1024];
	char	   *text;
	size_t		len = 0;
	Checked		c;
	uint32		wanted = (1u << ISO_LEVEL_STRONG_SESSION_SI) | (1u << ISO_LEVEL_SI) |
		(1u << ISO_LEVEL_PSI);

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	text = read_file(path, &len);
	if (!ok(text != NULL, "%s: read", file))
		return;
	memset(&c, 0, sizeof(c));
	{
		EdnStats	stats;
		IsoParseError err;
		IsoInferOptions io = {false, false};

		if (!ok(iso_history_parse_edn(text, len, ISO_WORKLOAD_RW_REGISTER, &c.h, &stats, &err) &&
				iso_infer(&c.h, NULL, &io, &c.inf, &err), "%s: parsed", file))
		{
			iso_free(text);
			return;
		}
	}
	iso_free(text);
	iso_decide_levels(&c.h, &c.inf, wanted, &opts, NULL, c.d);
	if (si_holds)
	{
		ok(c.d[ISO_LEVEL_STRONG_SESSION_SI].method != ISO_NOT_DECIDED &&
		   c.d[ISO_LEVEL_STRONG_SESSION_SI].holds,
		   "%s: strong-session-si holds (published: SI holds), by %s", file,
		   iso_verdict_method_name(c.d[ISO_LEVEL_STRONG_SESSION_SI].method));
		ok(c.d[ISO_LEVEL_SI].method != ISO_NOT_DECIDED && c.d[ISO_LEVEL_SI].holds &&
		   c.d[ISO_LEVEL_PSI].method != ISO_NOT_DECIDED && c.d[ISO_LEVEL_PSI].holds,
		   "%s: si and psi hold", file);
	}
	else
	{
		ok(c.d[ISO_LEVEL_STRONG_SESSION_SI].method != ISO_NOT_DECIDED &&
		   !c.d[ISO_LEVEL_STRONG_SESSION_SI].holds,
		   "%s: strong-session-si violated (published: SI violated), by %s", file,
		   iso_verdict_method_name(c.d[ISO_LEVEL_STRONG_SESSION_SI].method));
		ok(c.d[ISO_LEVEL_SI].method != ISO_NOT_DECIDED && !c.d[ISO_LEVEL_SI].holds,
		   "%s: si violated too", file);
	}
	checked_free(&c);
}

static void
published(void)
{
	const char *dir = getenv("ISOGRAPH_BLACKBOX_DIR");
	size_t		i;
	FILE	   *probe;
	char		path[1024];

	if (dir == NULL)
		dir = "../../../shared/data/blackbox";
	snprintf(path, sizeof(path), "%s/README.md", dir);
	probe = fopen(path, "r");
	if (probe == NULL)
	{
		diag("SKIP published black-box histories: %s not found "
			 "(set ISOGRAPH_BLACKBOX_DIR)", dir);
		return;
	}
	fclose(probe);
	for (i = 0; i < sizeof(violations) / sizeof(violations[0]); i++)
		published_one(dir, violations[i], false);
	for (i = 0; i < sizeof(postgres) / sizeof(postgres[0]); i++)
		published_one(dir, postgres[i], true);
}

/*
 * The timeout is the whole call's: with its deadline already past, every
 * level the evidence leaves open is not decided (none is searched on a
 * fresh budget of its own), and the evidence's verdicts stand.  The
 * history is "free orders" above, which needs the solver at every level.
 */
static void
deadline_of_the_call(void)
{
	static const char edn[] =
		"{:type :ok, :value [[:w :x 1] [:w :y 1]], :process 1, :index 1}\n"
		"{:type :ok, :value [[:w :x 2] [:w :y 2]], :process 2, :index 2}\n"
		"{:type :ok, :value [[:w :x 3] [:w :y 3]], :process 3, :index 3}\n";
	IsoSearchOptions past = opts;
	Checked		c;
	char		got[ISO_LEVEL_COUNT + 1];
	EdnStats	stats;
	IsoParseError err;
	IsoInferOptions io = {false, false};

	memset(&c, 0, sizeof(c));
	if (!ok(iso_history_parse_edn(edn, strlen(edn), ISO_WORKLOAD_RW_REGISTER, &c.h, &stats, &err) &&
			iso_infer(&c.h, NULL, &io, &c.inf, &err), "deadline: parsed and inferred"))
		return;
	/* one second after the monotonic clock's start: long past */
	past.deadline = 1.0;
	iso_decide_levels(&c.h, &c.inf, ALL_LEVELS, &past, NULL, c.d);
	verdicts(&c, got);
	is_str(got, "hh???????", "deadline: a past deadline leaves the searched levels undecided");
	checked_free(&c);
}

/*
 * The pruning's two ways to ask "does this side close a forbidden cycle"
 * (a reachability closure per round, a BFS per side) force the same sides
 * the same way on random small histories, at every searched level: same
 * verdicts, forced counts, digests of which constraints went which way,
 * rounds and constraints left.  A wrong closure (a missed or extra path,
 * a wrong automaton state) forces differently.
 */
static uint64 rng_state = UINT64_C(88172645463325252);

static uint32
rnd(uint32 n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32) (rng_state % n);
}

static void
closure_vs_bfs(void)
{
	IsoSearchOptions bfs = opts;
	IsoSearchOptions win = opts;
	uint32		win_compared = 0,
				win_mismatches = 0,
				win_rounds = 0;
	uint32		iter,
				compared = 0,
				with_forced = 0,
				mismatches = 0,
				by_closure = 0;
	char	   *buf = iso_alloc(1 << 16);

	bfs.prune_method = ISO_PRUNE_BFS;
	win.prune_method = ISO_PRUNE_WINDOW;
	for (iter = 0; iter < 1000; iter++)
	{
		uint32		n_txn = 4 + rnd(14),
					n_keys = 1 + rnd(4),
					n_proc = 1 + rnd(4),
					next_val[4] = {0},
					t,
					l;
		size_t		len = 0;
		Checked		a,
					b,
					w;
		EdnStats	stats;
		IsoParseError err;
		IsoInferOptions io = {false, false};

		/*
		 * Values 1.. per key: each write a fresh one; each read one of the
		 * key's values (or nil), chosen once the writes are known.
		 */
		{
			uint32		kind[18 * 4],
						key[18 * 4],
						n_ops[18],
						o = 0;

			for (t = 0; t < n_txn; t++)
			{
				uint32		i;

				n_ops[t] = 1 + rnd(4);
				for (i = 0; i < n_ops[t]; i++, o++)
				{
					key[o] = rnd(n_keys);
					kind[o] = rnd(2);
					if (kind[o] == 0)
						next_val[key[o]]++;
				}
			}
			o = 0;
			for (t = 0; t < n_txn; t++)
			{
				uint32		i;

				len += snprintf(buf + len, (1 << 16) - len, "{:type :ok, :value [");
				for (i = 0; i < n_ops[t]; i++, o++)
				{
					uint32		k = key[o];

					if (kind[o] == 0)
					{
						/* the txn's writes: the key's values in generation order */
						uint32		before = 0,
									j;

						for (j = 0; j < o; j++)
							before += key[j] == k && kind[j] == 0;
						len += snprintf(buf + len, (1 << 16) - len, "[:w :k%u %u] ", k, before + 1);
					}
					else if (next_val[k] == 0 || rnd(8) == 0)
						len += snprintf(buf + len, (1 << 16) - len, "[:r :k%u nil] ", k);
					else
						len += snprintf(buf + len, (1 << 16) - len, "[:r :k%u %u] ", k,
										1 + rnd(next_val[k]));
				}
				len += snprintf(buf + len, (1 << 16) - len, "], :process %u, :index %u}\n",
								rnd(n_proc), t + 1);
			}
		}
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		memset(&w, 0, sizeof(w));
		if (!iso_history_parse_edn(buf, len, ISO_WORKLOAD_RW_REGISTER, &a.h, &stats, &err) ||
			!iso_infer(&a.h, NULL, &io, &a.inf, &err) ||
			!iso_history_parse_edn(buf, len, ISO_WORKLOAD_RW_REGISTER, &b.h, &stats, &err) ||
			!iso_infer(&b.h, NULL, &io, &b.inf, &err) ||
			!iso_history_parse_edn(buf, len, ISO_WORKLOAD_RW_REGISTER, &w.h, &stats, &err) ||
			!iso_infer(&w.h, NULL, &io, &w.inf, &err))
		{
			diag("closure vs bfs: history %u not parsed/inferred: %s", iter, err.message);
			mismatches++;
			break;
		}
		iso_decide_levels(&a.h, &a.inf, ALL_LEVELS, &opts, NULL, a.d);
		iso_decide_levels(&b.h, &b.inf, ALL_LEVELS, &bfs, NULL, b.d);
		iso_decide_levels(&w.h, &w.inf, ALL_LEVELS, &win, NULL, w.d);
		/*
		 * The windowed closure (64 positions; these graphs have at most 36
		 * product nodes, so it misses no path): the same as the BFS.
		 */
		for (l = 0; l < ISO_LEVEL_COUNT; l++)
		{
			const IsoLevelDecision *x = &w.d[l],
					   *y = &b.d[l];

			if (x->method != y->method || x->holds != y->holds || x->searched != y->searched ||
				(x->searched &&
				 (x->search.stats.forced != y->search.stats.forced ||
				  x->search.stats.forced_digest != y->search.stats.forced_digest ||
				  x->search.stats.prune_rounds != y->search.stats.prune_rounds ||
				  x->search.stats.constraints_left != y->search.stats.constraints_left ||
				  x->search.verdict != y->search.verdict)))
			{
				diag("window vs bfs: history %u level %s differs", iter, iso_level_name((IsoLevel) l));
				win_mismatches++;
			}
			if (x->searched)
			{
				win_compared++;
				win_rounds += x->search.stats.closure_rounds;
			}
		}
		checked_free(&w);
		for (l = 0; l < ISO_LEVEL_COUNT; l++)
		{
			const IsoLevelDecision *x = &a.d[l],
					   *y = &b.d[l];

			if (x->method != y->method || x->holds != y->holds || x->searched != y->searched)
			{
				diag("closure vs bfs: history %u level %s: decisions differ", iter,
					 iso_level_name((IsoLevel) l));
				mismatches++;
				continue;
			}
			if (!x->searched)
				continue;
			compared++;
			if (x->search.stats.forced > 0)
				with_forced++;
			if (x->search.stats.forced != y->search.stats.forced ||
				x->search.stats.forced_digest != y->search.stats.forced_digest ||
				x->search.stats.prune_rounds != y->search.stats.prune_rounds ||
				x->search.stats.constraints_left != y->search.stats.constraints_left ||
				x->search.verdict != y->search.verdict ||
				x->search.by_pruning != y->search.by_pruning)
			{
				diag("closure vs bfs: history %u level %s: closure forced %llu (%u rounds, %llu left), bfs %llu (%u rounds, %llu left)",
					 iter, iso_level_name((IsoLevel) l),
					 (unsigned long long) x->search.stats.forced, x->search.stats.prune_rounds,
					 (unsigned long long) x->search.stats.constraints_left,
					 (unsigned long long) y->search.stats.forced, y->search.stats.prune_rounds,
					 (unsigned long long) y->search.stats.constraints_left);
				mismatches++;
			}
			by_closure += x->search.stats.closure_rounds;
			if (y->search.stats.closure_rounds != 0)
			{
				diag("closure vs bfs: history %u level %s: not by the method asked", iter,
					 iso_level_name((IsoLevel) l));
				mismatches++;
			}
		}
		checked_free(&a);
		checked_free(&b);
	}
	iso_free(buf);
	ok(mismatches == 0 && compared >= 200 && with_forced >= 100 && by_closure >= 100,
	   "closure vs bfs: the same sides forced on random histories (%u searched levels, %u with forced sides, %u rounds by closure, %u mismatches)",
	   compared, with_forced, by_closure, mismatches);
	ok(win_mismatches == 0 && win_compared >= 200 && win_rounds >= 100,
	   "window vs bfs: the windowed closure forces the same sides (%u searched levels, %u rounds by it, %u mismatches)",
	   win_compared, win_rounds, win_mismatches);
}

/*
 * The windowed closure's blocks: one session writes x 1, then y 1..198,
 * then x 2 (blind writes: both keys' orders open).  At
 * strong-session-serializable the session order forces every pair; x's
 * two versions are 199 positions apart, past the 64-position window, so
 * only the block bits (x 1's transaction reaches all of x 2's block)
 * force that pair.  A missed block leaves it to the solver.
 */
static void
window_blocks(void)
{
	Checked		c;
	char	   *buf = iso_alloc(1 << 16);
	size_t		len = 0;
	uint32		t;
	EdnStats	stats;
	IsoParseError err;
	IsoInferOptions io = {false, false};
	IsoSearchOptions o = opts;
	IsoSearchResult r;

	memset(&c, 0, sizeof(c));
	len += snprintf(buf + len, (1 << 16) - len, "{:type :ok, :value [[:w :x 1]], :process 1, :index 1}\n");
	for (t = 1; t <= 198; t++)
		len += snprintf(buf + len, (1 << 16) - len,
						"{:type :ok, :value [[:w :y %u]], :process 1, :index %u}\n", t, t + 1);
	len += snprintf(buf + len, (1 << 16) - len, "{:type :ok, :value [[:w :x 2]], :process 1, :index 200}\n");
	if (!ok(iso_history_parse_edn(buf, len, ISO_WORKLOAD_RW_REGISTER, &c.h, &stats, &err) &&
			iso_infer(&c.h, NULL, &io, &c.inf, &err), "window blocks: parsed and inferred"))
	{
		iso_free(buf);
		return;
	}
	o.prune_method = ISO_PRUNE_WINDOW;
	iso_search_level(&c.h, &c.inf, ISO_LEVEL_STRONG_SESSION_SER, &o, &r);
	ok(r.verdict == ISO_SEARCH_HOLDS && r.by_pruning && r.stats.constraints_left == 0 &&
	   r.stats.constraints == 1 + 198 * 197 / 2 && r.stats.forced == r.stats.constraints &&
	   r.stats.closure_rounds >= 1,
	   "window blocks: every pair forced by the windowed closure (%d, %llu pairs, %llu forced, %llu left)",
	   (int) r.verdict, (unsigned long long) r.stats.constraints,
	   (unsigned long long) r.stats.forced, (unsigned long long) r.stats.constraints_left);
	iso_search_result_free(&r);
	memset(c.d, 0, sizeof(c.d));
	checked_free(&c);
	iso_free(buf);
}

int
main(void)
{
	hand_made();
	deadline_of_the_call();
	closure_vs_bfs();
	window_blocks();
	published();
	return tap_done();
}
