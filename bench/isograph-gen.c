/*
 * isograph-gen.c: deterministic generator of synthetic Jepsen-style
 * transaction histories (list-append or rw-register) for isograph's
 * benchmarks and tests.
 *
 * Build:  cc -O2 -o isograph-gen isograph-gen.c     (or: make -C bench gen)
 *
 * Model.  P worker processes each run one transaction at a time.  A
 * transaction is invoked at time t, takes effect atomically at its
 * serialization point t+d1 and completes at t+d1+d2; the worker thinks a
 * little and invokes its next transaction.  All events of all workers are
 * processed by one event queue in time order, so serialization points form
 * a global serial order that lies inside each transaction's real-time
 * interval: without injections the history is strict-serializable.  The
 * database state is an in-memory key -> list (or key -> value) store.
 * Written values are unique per key (a counter per key, assigned at
 * invocation like Jepsen does); a key is retired after W assigned values
 * and replaced by a fresh key id, so lists stay short and memory bounded.
 * Failed transactions have no effect; info transactions take effect with
 * probability 1/2 (decided in advance, invisible in the output except
 * through later reads).  Like Jepsen, a worker whose transaction ended
 * :info continues under a fresh process id.
 *
 * Records are emitted in time order with strictly increasing :time, so
 * "sorted by time" and "emission order" coincide.  The output is a pure
 * function of the arguments (own xoshiro256** PRNG; no rand(), no clock).
 *
 * Injected anomalies use fresh keys that no ordinary transaction touches,
 * and fresh process ids; all members of one injection are invoked before
 * any of them completes (they overlap in real time), so neither rt nor so
 * edges can connect them and the only cycles/anomalies involving them are
 * the ones described in inject_build().
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------------ */
/* PRNG: splitmix64 seeding + xoshiro256**                             */
/* ------------------------------------------------------------------ */
typedef struct { uint64_t s[4]; } Rng;

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rng_seed(Rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1b54a32d192ed03ULL);
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rng_next(Rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
	s[2] ^= t; s[3] = rotl(s[3], 45);
	return result;
}

/* uniform in [0, n) (multiply-shift; negligible bias, deterministic) */
static inline uint64_t rng_below(Rng *r, uint64_t n)
{
	return (uint64_t) (((unsigned __int128) rng_next(r) * n) >> 64);
}

static inline double rng_double(Rng *r) { return (rng_next(r) >> 11) * 0x1.0p-53; }

static inline int64_t rng_range(Rng *r, int64_t lo, int64_t hi)	/* [lo, hi] */
{
	return lo + (int64_t) rng_below(r, (uint64_t) (hi - lo + 1));
}

/* ------------------------------------------------------------------ */
/* Buffered output                                                     */
/* ------------------------------------------------------------------ */
typedef struct { FILE *f; char *buf; size_t len, cap; const char *name; } Out;

static void die(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "isograph-gen: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void out_init(Out *o, FILE *f, const char *name)
{
	o->f = f; o->name = name; o->cap = 4u << 20; o->len = 0;
	o->buf = malloc(o->cap);
	if (!o->buf) die("out of memory");
}

static void out_flush(Out *o)
{
	if (o->len && fwrite(o->buf, 1, o->len, o->f) != o->len)
		die("write error on %s: %s", o->name, strerror(errno));
	o->len = 0;
}

static inline void out_reserve(Out *o, size_t n) { if (o->len + n > o->cap) out_flush(o); }

static inline void out_str(Out *o, const char *s, size_t n)
{
	if (n > o->cap) { out_flush(o); if (fwrite(s, 1, n, o->f) != n) die("write error"); return; }
	out_reserve(o, n);
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}
#define OUT_LIT(o, lit) out_str((o), (lit), sizeof(lit) - 1)

static inline void out_ch(Out *o, char c) { out_reserve(o, 1); o->buf[o->len++] = c; }

static inline void out_int(Out *o, int64_t v)
{
	char tmp[24];
	int n = 0;
	uint64_t u = v < 0 ? (uint64_t) 0 - (uint64_t) v : (uint64_t) v;
	do { tmp[n++] = (char) ('0' + u % 10); u /= 10; } while (u);
	out_reserve(o, 24);
	if (v < 0) o->buf[o->len++] = '-';
	while (n) o->buf[o->len++] = tmp[--n];
}

/* ------------------------------------------------------------------ */
/* Data structures                                                     */
/* ------------------------------------------------------------------ */
enum { WL_LIST, WL_REG };
enum { ST_OK, ST_FAIL, ST_INFO };
enum { OP_R, OP_W };			/* OP_W = append (list) or w (register) */
enum { EV_INVOKE, EV_SER, EV_COMPLETE };

typedef struct KeyRec {
	int64_t id;
	int64_t nvals;				/* values assigned so far (1..nvals) */
	int64_t reg;				/* register value, 0 = nil */
	int64_t *vals;				/* list contents */
	int32_t len, cap;
	int32_t refcnt;				/* ops of in-flight txns referencing it */
	int32_t retired;
} KeyRec;

typedef struct Op {
	int kind;
	KeyRec *kr;
	int64_t key, val;
	int32_t roff, rlen;			/* read result in txn rbuf; rlen -1 = nil */
} Op;

typedef struct Txn {
	int64_t proc;
	int status, commit, injected, group, member;
	int nops, opcap;
	Op *ops;
	int64_t *rbuf;
	size_t rlen, rcap;
	int64_t t_inv;
} Txn;

typedef struct Ev { int64_t time; uint64_t seq; int32_t slot, kind; } Ev;

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */
static int wl = WL_LIST, dist_hot = 0, fmt_csv = 0, verbose = 0, wal_aborted = 0;
static int64_t n_txns = 10000, n_procs = 10, n_keys = 100, ops_min = 4, ops_max = 12;
static int64_t max_writes = 32, history_id = 1, inject_every = 0;
static double read_ratio = 0.5, fail_ratio = 0.05, info_ratio = 0.01;
static uint64_t seed = 0;
static const char *out_path = NULL, *wal_path = NULL, *inject_arg = NULL;

/* ------------------------------------------------------------------ */
/* Global state                                                        */
/* ------------------------------------------------------------------ */
static Rng rng_txn, rng_time, rng_nem;
static Out out, wal;
static int have_wal = 0;
static int64_t next_index = 0, last_time = 0, next_key = 0, next_proc = 0;
static int64_t started = 0, wal_tick = 0, wal_tid = 0, nemesis_count = 0;
static uint64_t ev_seq = 0;
static KeyRec **slots;			/* active keys */
static int64_t hot_n;

static Ev *heap; static size_t heap_len, heap_cap;
static Txn **txns; static size_t txns_cap;	/* slot -> txn; [0,P) workers */
static int32_t *free_slots; static size_t free_len, free_cap;

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) die("out of memory");
	return p;
}

static inline int ev_less(const Ev *a, const Ev *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void heap_push(int64_t time, int32_t slot, int32_t kind)
{
	if (heap_len == heap_cap) { heap_cap = heap_cap ? 2 * heap_cap : 64; heap = xrealloc(heap, heap_cap * sizeof(Ev)); }
	Ev e = { time, ev_seq++, slot, kind };
	size_t i = heap_len++;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!ev_less(&e, &heap[p])) break;
		heap[i] = heap[p]; i = p;
	}
	heap[i] = e;
}

static Ev heap_pop(void)
{
	Ev top = heap[0], last = heap[--heap_len];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= heap_len) break;
		if (c + 1 < heap_len && ev_less(&heap[c + 1], &heap[c])) c++;
		if (!ev_less(&heap[c], &last)) break;
		heap[i] = heap[c]; i = c;
	}
	if (heap_len) heap[i] = last;
	return top;
}

static KeyRec *key_new(int64_t id)
{
	KeyRec *k = calloc(1, sizeof(KeyRec));
	if (!k) die("out of memory");
	k->id = id;
	return k;
}

static void key_release(KeyRec *k)
{
	if (--k->refcnt == 0 && k->retired) { free(k->vals); free(k); }
}

static Txn *txn_new(void) { Txn *t = calloc(1, sizeof(Txn)); if (!t) die("out of memory"); return t; }

static Op *txn_add_op(Txn *t)
{
	if (t->nops == t->opcap) { t->opcap = t->opcap ? 2 * t->opcap : 16; t->ops = xrealloc(t->ops, t->opcap * sizeof(Op)); }
	Op *o = &t->ops[t->nops++];
	memset(o, 0, sizeof *o);
	o->rlen = -1;
	return o;
}

static int32_t txn_store_read(Txn *t, const int64_t *v, int32_t n)
{
	if (t->rlen + (size_t) n > t->rcap) {
		while (t->rlen + (size_t) n > t->rcap) t->rcap = t->rcap ? 2 * t->rcap : 256;
		t->rbuf = xrealloc(t->rbuf, t->rcap * sizeof(int64_t));
	}
	int32_t off = (int32_t) t->rlen;
	if (n) memcpy(t->rbuf + off, v, n * sizeof(int64_t));
	t->rlen += n;
	return off;
}

static int32_t slot_alloc(void)
{
	if (free_len) return free_slots[--free_len];
	size_t s = txns_cap;
	txns_cap = txns_cap * 2;
	txns = xrealloc(txns, txns_cap * sizeof(Txn *));
	for (size_t i = s; i < txns_cap; i++) txns[i] = NULL;
	for (size_t i = txns_cap; i-- > s + 1;) {
		if (free_len == free_cap) { free_cap = free_cap ? 2 * free_cap : 64; free_slots = xrealloc(free_slots, free_cap * sizeof(int32_t)); }
		free_slots[free_len++] = (int32_t) i;
	}
	return (int32_t) s;
}

static void slot_free(int32_t s)
{
	if (free_len == free_cap) { free_cap = free_cap ? 2 * free_cap : 64; free_slots = xrealloc(free_slots, free_cap * sizeof(int32_t)); }
	free_slots[free_len++] = s;
	txns[s] = NULL;
}

/* every emitted record gets a strictly larger time than the previous one */
static inline int64_t emit_time(int64_t t)
{
	if (t <= last_time) t = last_time + 1;
	last_time = t;
	return t;
}

/* ------------------------------------------------------------------ */
/* WAL (rw-register version order, ArangoDB-like JSON lines)           */
/* ------------------------------------------------------------------ */
static void wal_marker(int type, int64_t tid)
{
	OUT_LIT(&wal, "{\"tick\":\""); out_int(&wal, ++wal_tick);
	OUT_LIT(&wal, "\",\"type\":"); out_int(&wal, type);
	OUT_LIT(&wal, ",\"db\":\"rwRegister\",\"tid\":\""); out_int(&wal, tid);
	OUT_LIT(&wal, "\"}\n");
}

static void wal_write(int64_t tid, int64_t key, int64_t val)
{
	OUT_LIT(&wal, "{\"tick\":\""); out_int(&wal, ++wal_tick);
	OUT_LIT(&wal, "\",\"type\":2300,\"db\":\"rwRegister\",\"cuid\":\"isograph-gen\",\"tid\":\""); out_int(&wal, tid);
	OUT_LIT(&wal, "\",\"data\":{\"_key\":\""); out_int(&wal, key);
	OUT_LIT(&wal, "\",\"rwAttr\":"); out_int(&wal, val);
	OUT_LIT(&wal, "}}\n");
}

/* ------------------------------------------------------------------ */
/* Record output                                                       */
/* ------------------------------------------------------------------ */
static const char *status_kw[] = { ":ok", ":fail", ":info" };
static const char *status_csv[] = { "ok", "fail", "info" };

static void edn_value(const Txn *t, int with_reads)
{
	OUT_LIT(&out, "[");
	for (int i = 0; i < t->nops; i++) {
		const Op *o = &t->ops[i];
		if (i) out_ch(&out, ' ');
		if (o->kind == OP_R) {
			OUT_LIT(&out, "[:r "); out_int(&out, o->key); out_ch(&out, ' ');
			if (!with_reads || o->rlen < 0)
				OUT_LIT(&out, "nil");
			else if (wl == WL_REG)
				out_int(&out, t->rbuf[o->roff]);
			else {
				out_ch(&out, '[');
				for (int j = 0; j < o->rlen; j++) {
					if (j) out_ch(&out, ' ');
					out_int(&out, t->rbuf[o->roff + j]);
				}
				out_ch(&out, ']');
			}
			out_ch(&out, ']');
		} else {
			if (wl == WL_LIST) OUT_LIT(&out, "[:append "); else OUT_LIT(&out, "[:w ");
			out_int(&out, o->key); out_ch(&out, ' '); out_int(&out, o->val); out_ch(&out, ']');
		}
	}
	OUT_LIT(&out, "]");
}

static void maybe_nemesis(void)
{
	if (rng_below(&rng_nem, 1000) != 0) return;
	int64_t t = emit_time(last_time + 1);
	int64_t idx = next_index++;
	if (!fmt_csv) {
		if (nemesis_count++ & 1) OUT_LIT(&out, "{:type :info, :f :stop-partition, :process :nemesis, :time ");
		else OUT_LIT(&out, "{:type :info, :f :start-partition, :process :nemesis, :time ");
		out_int(&out, t); OUT_LIT(&out, ", :index "); out_int(&out, idx); OUT_LIT(&out, "}\n");
	} else
		nemesis_count++;
}

static void emit_invoke(Txn *t, int64_t time)
{
	t->t_inv = time;
	int64_t idx = next_index++;
	if (!fmt_csv) {
		OUT_LIT(&out, "{:type :invoke, :f :txn, :value ");
		edn_value(t, 0);
		OUT_LIT(&out, ", :time "); out_int(&out, time);
		OUT_LIT(&out, ", :process "); out_int(&out, t->proc);
		OUT_LIT(&out, ", :index "); out_int(&out, idx);
		OUT_LIT(&out, "}\n");
	}
	maybe_nemesis();
}

static int64_t emit_complete(Txn *t, int64_t time)
{
	int64_t idx = next_index++;
	int reads = t->status == ST_OK;
	if (!fmt_csv) {
		OUT_LIT(&out, "{:type "); out_str(&out, status_kw[t->status], strlen(status_kw[t->status]));
		OUT_LIT(&out, ", :f :txn, :value ");
		edn_value(t, reads);
		OUT_LIT(&out, ", :time "); out_int(&out, time);
		OUT_LIT(&out, ", :process "); out_int(&out, t->proc);
		if (t->status == ST_FAIL) OUT_LIT(&out, ", :error :ww-conflict");
		else if (t->status == ST_INFO) OUT_LIT(&out, ", :error :timeout");
		OUT_LIT(&out, ", :index "); out_int(&out, idx);
		OUT_LIT(&out, "}\n");
	} else {
		/* history_id,txn_id,process,status,invoke_time,complete_time,pos,op,key,value,read_value,read_list */
		char head[160];
		size_t hl;
		{
			Out tmp = { NULL, head, 0, sizeof head, NULL };
			out_int(&tmp, history_id); out_ch(&tmp, ',');
			out_int(&tmp, idx); out_ch(&tmp, ',');
			out_int(&tmp, t->proc); out_ch(&tmp, ',');
			out_str(&tmp, status_csv[t->status], strlen(status_csv[t->status])); out_ch(&tmp, ',');
			out_int(&tmp, t->t_inv); out_ch(&tmp, ',');
			out_int(&tmp, time); out_ch(&tmp, ',');
			hl = tmp.len;
		}
		for (int i = 0; i < t->nops; i++) {
			const Op *o = &t->ops[i];
			out_str(&out, head, hl);
			out_int(&out, i);
			if (o->kind == OP_R) {
				OUT_LIT(&out, ",r,"); out_int(&out, o->key); OUT_LIT(&out, ",,");
				if (!reads || o->rlen < 0)
					OUT_LIT(&out, ",\n");
				else if (wl == WL_REG) {
					out_int(&out, t->rbuf[o->roff]); OUT_LIT(&out, ",\n");
				} else {
					OUT_LIT(&out, ",\"{");
					for (int j = 0; j < o->rlen; j++) {
						if (j) out_ch(&out, ',');
						out_int(&out, t->rbuf[o->roff + j]);
					}
					OUT_LIT(&out, "}\"\n");
				}
			} else {
				if (wl == WL_LIST) OUT_LIT(&out, ",append,"); else OUT_LIT(&out, ",w,");
				out_int(&out, o->key); out_ch(&out, ','); out_int(&out, o->val);
				OUT_LIT(&out, ",,\n");
			}
		}
	}
	maybe_nemesis();
	return idx;
}

/* ------------------------------------------------------------------ */
/* Ordinary transactions                                               */
/* ------------------------------------------------------------------ */
/* zipfian key choice (exponent 1): cumulative weights 1/(i+1), built once */
static double *zipf_cdf;

static int64_t pick_zipf(void)
{
	if (!zipf_cdf) {
		zipf_cdf = malloc(sizeof(double) * (size_t) n_keys);
		if (!zipf_cdf) { fprintf(stderr, "isograph-gen: out of memory\n"); exit(1); }
		double sum = 0;
		for (int64_t i = 0; i < n_keys; i++) zipf_cdf[i] = (sum += 1.0 / (double) (i + 1));
		for (int64_t i = 0; i < n_keys; i++) zipf_cdf[i] /= sum;
	}
	double u = rng_double(&rng_txn);
	int64_t lo = 0, hi = n_keys - 1;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (zipf_cdf[mid] < u) lo = mid + 1; else hi = mid;
	}
	return lo;
}

static int64_t pick_slot(void)
{
	if (dist_hot == 2)
		return pick_zipf();
	if (!dist_hot || n_keys <= hot_n)
		return (int64_t) rng_below(&rng_txn, (uint64_t) n_keys);
	if (rng_double(&rng_txn) < 0.8)
		return (int64_t) rng_below(&rng_txn, (uint64_t) hot_n);
	return hot_n + (int64_t) rng_below(&rng_txn, (uint64_t) (n_keys - hot_n));
}

static void txn_generate(Txn *t)
{
	t->nops = 0; t->rlen = 0;
	double u = rng_double(&rng_txn);
	t->status = u < fail_ratio ? ST_FAIL : u < fail_ratio + info_ratio ? ST_INFO : ST_OK;
	t->commit = t->status == ST_OK || (t->status == ST_INFO && (rng_next(&rng_txn) & 1));
	int n = (int) rng_range(&rng_txn, ops_min, ops_max);
	for (int i = 0; i < n; i++) {
		Op *o = txn_add_op(t);
		int64_t s = pick_slot();
		KeyRec *k = slots[s];
		o->kr = k; o->key = k->id;
		k->refcnt++;
		if (rng_double(&rng_txn) < read_ratio)
			o->kind = OP_R;
		else {
			o->kind = OP_W;
			o->val = ++k->nvals;
			if (k->nvals >= max_writes) {	/* retire: later txns use a fresh key */
				k->retired = 1;
				slots[s] = key_new(next_key++);
			}
		}
	}
}

/* the serialization point: apply to the store, capture reads */
static void txn_serialize(Txn *t)
{
	int64_t tid = 0;
	if (t->commit) {
		int wal_open = 0;
		for (int i = 0; i < t->nops; i++) {
			Op *o = &t->ops[i];
			KeyRec *k = o->kr;
			if (o->kind == OP_R) {
				if (wl == WL_LIST)
					o->roff = txn_store_read(t, k->vals, k->len), o->rlen = k->len;
				else if (k->reg)
					o->roff = txn_store_read(t, &k->reg, 1), o->rlen = 1;
				else
					o->rlen = -1;
			} else if (wl == WL_LIST) {
				if (k->len == k->cap) { k->cap = k->cap ? 2 * k->cap : 8; k->vals = xrealloc(k->vals, k->cap * sizeof(int64_t)); }
				k->vals[k->len++] = o->val;
			} else {
				k->reg = o->val;
				if (have_wal) {
					if (!wal_open) { tid = ++wal_tid; wal_marker(2200, tid); wal_open = 1; }
					wal_write(tid, o->key, o->val);
				}
			}
		}
		if (wal_open) wal_marker(2201, tid);
	} else if (have_wal && wal_aborted && wl == WL_REG && t->status == ST_FAIL) {
		int wal_open = 0;
		for (int i = 0; i < t->nops; i++) {
			Op *o = &t->ops[i];
			if (o->kind != OP_W) continue;
			if (!wal_open) { tid = ++wal_tid; wal_marker(2200, tid); wal_open = 1; }
			wal_write(tid, o->key, o->val);
		}
		if (wal_open) wal_marker(2202, tid);
	}
	if (t->status != ST_OK)		/* completion shows no reads */
		for (int i = 0; i < t->nops; i++) t->ops[i].rlen = -1;
	for (int i = 0; i < t->nops; i++) { key_release(t->ops[i].kr); t->ops[i].kr = NULL; }
}

/* ------------------------------------------------------------------ */
/* Injected anomalies                                                  */
/* ------------------------------------------------------------------ */
enum {
	A_G0, A_G1A, A_G1B, A_G1C, A_GSINGLE, A_GNONADJ, A_G2ITEM, A_LOST, A_INTERNAL,
	A_INCOMPAT, A_DUP, A_GARBAGE, A_CYCLIC, A_COUNT
};

static const char *anom_name[A_COUNT] = {
	"G0", "G1a", "G1b", "G1c", "G-single", "G-nonadjacent", "G2-item", "lost-update",
	"internal", "incompatible-order", "duplicate-elements", "garbage-read", "cyclic-versions"
};

/* what a correct checker must report (docs/semantics.md), per workload */
static const char *anom_expect[A_COUNT][2] = {
	[A_G0] = {
		"T1=[append x 1, append y 1] T2=[append x 2, append y 2] T3=[r x [1 2], r y [2 1]]; "
		"edges T1-ww(x)->T2-ww(y)->T1, T2-wr(x)->T3, T1-wr(y)->T3; expect G0 (cycle T1,T2), violates pl-1 and up",
		"T1=[w x 1, w y 1] T2=[w x 2, w y 2]; WAL x: 1,2  y: 2,1; "
		"edges T1-ww(x)->T2-ww(y)->T1; expect G0 (cycle T1,T2), violates pl-1 and up" },
	[A_G1A] = {
		"T1(:fail)=[append x 1] T2=[r x [1]]; no edges; expect G1a (reader T2, writer T1), violates pl-2 and up",
		"T1(:fail)=[w x 1] T2=[r x 1]; WAL x: - (or 1 inside an aborted WAL txn with --wal-aborted); no edges; "
		"expect G1a (reader T2, writer T1), violates pl-2 and up" },
	[A_G1B] = {
		"T1=[append x 1, append x 2] T2=[r x [1]]; expect G1b (T2 reads T1's intermediate element 1), violates pl-2 and up; "
		"by the list-append rules a checker also derives T1-wr(x)->T2-rw(x)->T1 (2 is an unobserved append after [1]), "
		"a one-key cycle with one rw named lost-update (pl-2.99/psi and up)",
		"T1=[w x 1, w x 2] T2=[r x 1]; WAL x: 1,2 (both in T1's WAL txn; 1 is skipped as non-final); "
		"edge T1-wr(x)->T2 at most, no cycle; expect G1b, violates pl-2 and up" },
	[A_G1C] = {
		"T1=[append x 1, r y [1]] T2=[append y 1, r x [1]]; edges T1-wr(x)->T2-wr(y)->T1; expect G1c, violates pl-2 and up",
		"T1=[w x 1, r y 1] T2=[w y 1, r x 1]; WAL x: 1  y: 1; edges T1-wr(x)->T2-wr(y)->T1; expect G1c, violates pl-2 and up" },
	[A_GSINGLE] = {
		"T1=[r x [], r y [1]] T2=[append x 1, append y 1]; edges T1-rw(x)->T2-wr(y)->T1; "
		"expect G-single (read skew), violates psi, si, pl-2.99, ser; allowed at pl-2",
		"T1=[r x nil, r y 1] T2=[w x 1, w y 1]; WAL x: 1  y: 1; edges T1-rw(x)->T2-wr(y)->T1; "
		"expect G-single, violates psi, si, pl-2.99, ser; allowed at pl-2" },
	[A_GNONADJ] = {
		"T1=[r x [], r w [1]] T2=[append x 1, append y 1] T3=[r y [1], r z []] T4=[append z 1, append w 1]; "
		"edges T1-rw(x)->T2-wr(y)->T3-rw(z)->T4-wr(w)->T1; expect G-nonadjacent (long fork), violates si, pl-2.99, ser; allowed at psi",
		"T1=[r x nil, r w 1] T2=[w x 1, w y 1] T3=[r y 1, r z nil] T4=[w z 1, w w 1]; WAL x,y,z,w: 1; "
		"edges T1-rw(x)->T2-wr(y)->T3-rw(z)->T4-wr(w)->T1; expect G-nonadjacent, violates si, pl-2.99, ser; allowed at psi" },
	[A_G2ITEM] = {
		"T1=[r x [], r y [], append x 1] T2=[r x [], r y [], append y 1]; edges T1-rw(y)->T2-rw(x)->T1; "
		"expect G2-item (write skew), violates pl-2.99, ser; allowed at si, psi",
		"T1=[r x nil, r y nil, w x 1] T2=[r x nil, r y nil, w y 1]; WAL x: 1  y: 1; edges T1-rw(y)->T2-rw(x)->T1; "
		"expect G2-item (write skew), violates pl-2.99, ser; allowed at si, psi" },
	[A_LOST] = {
		"T1=[r x [], append x 1] T2=[r x [], append x 2] T3=[r x [1 2]]; edges T1-ww(x)->T2-rw(x)->T1, T2-wr(x)->T3; "
		"expect lost-update (non-cycle: T1,T2 both read [] and append x; cycle: one rw, one key), violates pl-2.99, psi, si, ser",
		"T1=[r x nil, w x 1] T2=[r x nil, w x 2] T3=[r x 2]; WAL x: 1,2; edges T1-ww(x)->T2-rw(x)->T1, T2-wr(x)->T3; "
		"expect lost-update (non-cycle and cycle), violates pl-2.99, psi, si, ser" },
	[A_INTERNAL] = {
		"T1=[append x 1, r x []]; no edges; expect internal, violates psi, si, ser (not pl-1/pl-2/pl-2.99)",
		"T1=[w x 1, r x nil]; WAL x: 1; no edges; expect internal, violates psi, si, ser (not pl-1/pl-2/pl-2.99)" },
	[A_INCOMPAT] = {
		"T1=[append x 1] T2=[append x 2] T3=[r x [1]] T4=[r x [2]]; key x gets no edges; "
		"expect incompatible-order, violates pl-1 and up",
		NULL },
	[A_DUP] = {
		"T1=[append x 1] T2=[r x [1 1]]; expect duplicate-elements, violates pl-1 and up",
		NULL },
	[A_GARBAGE] = {
		"T1=[r x [1]] (nobody appends to x); expect garbage-read, violates pl-1 and up",
		"T1=[r x 1] (nobody writes x); expect garbage-read, violates pl-1 and up" },
	[A_CYCLIC] = {
		NULL,
		"T1=[w x 1] T2=[r x 1, w x 2]; WAL x: 2,1 (contradicts write-follows-read 1<2); "
		"expect cyclic-versions on x (x gets no ww/rw edges; T1-wr(x)->T2 remains), violates pl-1 and up" },
};

typedef struct Group {
	int anom, n, done;
	int64_t pos;				/* `started` when injected */
	int64_t keys[4];
	int64_t idx[4], proc[4];
} Group;

static Group *groups; static size_t groups_len, groups_cap;
static int *inj_list; static int inj_n;
static int64_t *inj_at; static int inj_next = 0;	/* once-mode trigger positions */
static int64_t every_next = 0;
static int64_t inj_total_txns = 0, inj_groups_done = 0;

static int anom_size(int a)
{
	switch (a) {
	case A_G0: return wl == WL_LIST ? 3 : 2;
	case A_G1A: case A_G1B: case A_G1C: case A_GSINGLE: case A_G2ITEM: case A_DUP: case A_CYCLIC: return 2;
	case A_GNONADJ: case A_INCOMPAT: return 4;
	case A_LOST: return 3;
	default: return 1;
	}
}

/* op builders for injected txns; reads: n = -1 means nil */
static void iw(Txn *t, int64_t key, int64_t v)
{
	Op *o = txn_add_op(t); o->kind = OP_W; o->key = key; o->val = v;
}

static void ir(Txn *t, int64_t key, int n, ...)
{
	Op *o = txn_add_op(t); o->kind = OP_R; o->key = key;
	if (n < 0) return;
	int64_t v[8];
	va_list ap; va_start(ap, n);
	for (int i = 0; i < n; i++) v[i] = va_arg(ap, int64_t);
	va_end(ap);
	o->roff = txn_store_read(t, v, n); o->rlen = n;
}

#define V(x) ((int64_t) (x))
#define NIL -1
/* register read of a single value, list read with the given elements */
#define RREG(t, k, v) ((v) ? ir((t), (k), 1, V(v)) : ir((t), (k), NIL))

static void wal_inj(Txn **m, int who, int64_t key, int64_t val, int aborted)
{
	(void) m;
	if (!have_wal) return;
	int64_t tid = ++wal_tid;
	wal_marker(2200, tid);
	wal_write(tid, key, val);
	wal_marker(aborted ? 2202 : 2201, tid);
	(void) who;
}

/*
 * Build the member transactions of one injection.  x, y, z, w are fresh
 * keys; all members are ok unless noted.  See anom_expect[] for the edges
 * and the anomaly a checker must report (also printed with --verbose).
 */
static void inject_build(Group *g, Txn **m)
{
	int L = wl == WL_LIST;
	int64_t x = g->keys[0], y = g->keys[1], z = g->keys[2], w = g->keys[3];
	switch (g->anom) {
	case A_G0:
		/* ww cycle.  list: the final reader T3 fixes x = T1<T2, y = T2<T1.
		 * register: the WAL fixes the same orders. */
		if (L) {
			iw(m[0], x, 1); iw(m[0], y, 1);
			iw(m[1], x, 2); iw(m[1], y, 2);
			ir(m[2], x, 2, V(1), V(2)); ir(m[2], y, 2, V(2), V(1));
		} else {
			iw(m[0], x, 1); iw(m[0], y, 1);
			iw(m[1], x, 2); iw(m[1], y, 2);
			if (have_wal) {	/* interleaved like ../shared g0.wal.jsonl */
				int64_t t1 = ++wal_tid, t2 = ++wal_tid;
				wal_write(t1, x, 1); wal_write(t2, x, 2); wal_write(t2, y, 2); wal_write(t1, y, 1);
			}
		}
		break;
	case A_G1A:
		/* aborted read: T1 fails, T2 commits having read T1's write */
		m[0]->status = ST_FAIL;
		iw(m[0], x, 1);
		if (L) ir(m[1], x, 1, V(1)); else RREG(m[1], x, 1);
		if (!L && wal_aborted) wal_inj(m, 0, x, 1, 1);
		break;
	case A_G1B:
		/* intermediate read: T2 sees T1's non-final write/append 1 of x */
		iw(m[0], x, 1); iw(m[0], x, 2);
		if (L) ir(m[1], x, 1, V(1));
		else {
			RREG(m[1], x, 1);
			if (have_wal) { int64_t t1 = ++wal_tid; wal_marker(2200, t1); wal_write(t1, x, 1); wal_write(t1, x, 2); wal_marker(2201, t1); }
		}
		break;
	case A_G1C:
		/* circular information flow: T1 -wr(x)-> T2 -wr(y)-> T1 */
		iw(m[0], x, 1); if (L) ir(m[0], y, 1, V(1)); else RREG(m[0], y, 1);
		iw(m[1], y, 1); if (L) ir(m[1], x, 1, V(1)); else RREG(m[1], x, 1);
		if (!L) { wal_inj(m, 0, x, 1, 0); wal_inj(m, 1, y, 1, 0); }
		break;
	case A_GSINGLE:
		/* read skew: T1 misses T2's x but sees T2's y: T1 -rw(x)-> T2 -wr(y)-> T1 */
		if (L) { ir(m[0], x, 0); ir(m[0], y, 1, V(1)); }
		else { RREG(m[0], x, 0); RREG(m[0], y, 1); }
		iw(m[1], x, 1); iw(m[1], y, 1);
		if (!L && have_wal) { int64_t t2 = ++wal_tid; wal_marker(2200, t2); wal_write(t2, x, 1); wal_write(t2, y, 1); wal_marker(2201, t2); }
		break;
	case A_GNONADJ:
		/* long fork: T1 -rw(x)-> T2 -wr(y)-> T3 -rw(z)-> T4 -wr(w)-> T1 */
		if (L) {
			ir(m[0], x, 0); ir(m[0], w, 1, V(1));
			iw(m[1], x, 1); iw(m[1], y, 1);
			ir(m[2], y, 1, V(1)); ir(m[2], z, 0);
			iw(m[3], z, 1); iw(m[3], w, 1);
		} else {
			RREG(m[0], x, 0); RREG(m[0], w, 1);
			iw(m[1], x, 1); iw(m[1], y, 1);
			RREG(m[2], y, 1); RREG(m[2], z, 0);
			iw(m[3], z, 1); iw(m[3], w, 1);
			wal_inj(m, 1, x, 1, 0); wal_inj(m, 1, y, 1, 0); wal_inj(m, 3, z, 1, 0); wal_inj(m, 3, w, 1, 0);
		}
		break;
	case A_G2ITEM:
		/* write skew: both read x,y empty, T1 writes x, T2 writes y:
		 * T1 -rw(y)-> T2 -rw(x)-> T1 (two adjacent rw) */
		if (L) { ir(m[0], x, 0); ir(m[0], y, 0); ir(m[1], x, 0); ir(m[1], y, 0); }
		else { RREG(m[0], x, 0); RREG(m[0], y, 0); RREG(m[1], x, 0); RREG(m[1], y, 0); }
		iw(m[0], x, 1); iw(m[1], y, 1);
		if (!L) { wal_inj(m, 0, x, 1, 0); wal_inj(m, 1, y, 1, 0); }
		break;
	case A_LOST:
		/* both read the initial x and write x; T3 fixes the order 1<2:
		 * T1 -ww(x)-> T2 -rw(x)-> T1 */
		if (L) {
			ir(m[0], x, 0); iw(m[0], x, 1);
			ir(m[1], x, 0); iw(m[1], x, 2);
			ir(m[2], x, 2, V(1), V(2));
		} else {
			RREG(m[0], x, 0); iw(m[0], x, 1);
			RREG(m[1], x, 0); iw(m[1], x, 2);
			RREG(m[2], x, 2);
			wal_inj(m, 0, x, 1, 0); wal_inj(m, 1, x, 2, 0);
		}
		break;
	case A_INTERNAL:
		/* a read after the txn's own write that does not show it */
		iw(m[0], x, 1);
		if (L) ir(m[0], x, 0); else RREG(m[0], x, 0);
		if (!L) wal_inj(m, 0, x, 1, 0);
		break;
	case A_INCOMPAT:
		/* two reads of x, neither a prefix of the other */
		iw(m[0], x, 1); iw(m[1], x, 2);
		ir(m[2], x, 1, V(1)); ir(m[3], x, 1, V(2));
		break;
	case A_DUP:
		iw(m[0], x, 1);
		ir(m[1], x, 2, V(1), V(1));
		break;
	case A_GARBAGE:
		if (L) ir(m[0], x, 1, V(1)); else RREG(m[0], x, 1);
		break;
	case A_CYCLIC:
		/* write-follows-read says 1 < 2, the WAL says 2 < 1 */
		iw(m[0], x, 1);
		RREG(m[1], x, 1); iw(m[1], x, 2);
		wal_inj(m, 1, x, 2, 0); wal_inj(m, 0, x, 1, 0);
		break;
	}
}

static void inject(int a, int64_t now)
{
	if (groups_len == groups_cap) { groups_cap = groups_cap ? 2 * groups_cap : 16; groups = xrealloc(groups, groups_cap * sizeof(Group)); }
	int gi = (int) groups_len++;
	Group *g = &groups[gi];
	memset(g, 0, sizeof *g);
	g->anom = a; g->n = anom_size(a); g->pos = started;
	for (int i = 0; i < 4; i++) g->keys[i] = next_key++;
	Txn *m[4];
	for (int i = 0; i < g->n; i++) {
		m[i] = txn_new();
		m[i]->status = ST_OK; m[i]->commit = 1; m[i]->injected = 1;
		m[i]->group = gi; m[i]->member = i;
		m[i]->proc = g->proc[i] = next_proc++;
	}
	inject_build(g, m);
	/* all members invoke before any completes: pairwise real-time overlap */
	int64_t t_last_inv = now + g->n;
	for (int i = 0; i < g->n; i++) {
		int32_t s = slot_alloc();
		txns[s] = m[i];
		heap_push(now + 1 + i, s, EV_INVOKE);
		heap_push(t_last_inv + rng_range(&rng_time, 100000, 2000000), s, EV_COMPLETE);
	}
	started += g->n;
	inj_total_txns += g->n;
}

static void group_done(Group *g)
{
	inj_groups_done++;
	if (!verbose) return;
	fprintf(stderr, "inject %s (after %" PRId64 " txns):", anom_name[g->anom], g->pos);
	for (int i = 0; i < g->n; i++)
		fprintf(stderr, " T%d=%" PRId64 "(p%" PRId64 ")", i + 1, g->idx[i], g->proc[i]);
	fprintf(stderr, " x=%" PRId64 " y=%" PRId64 " z=%" PRId64 " w=%" PRId64 "; %s\n",
			g->keys[0], g->keys[1], g->keys[2], g->keys[3], anom_expect[g->anom][wl]);
}

static void run_injections(int64_t now)
{
	if (!inj_n) return;
	if (inject_every) {
		while (started >= every_next) {
			for (int i = 0; i < inj_n; i++)
				if (started + anom_size(inj_list[i]) <= n_txns)
					inject(inj_list[i], now);
			every_next += inject_every;
		}
	} else {
		while (inj_next < inj_n && started >= inj_at[inj_next])
			inject(inj_list[inj_next++], now);
	}
}

/* ------------------------------------------------------------------ */
/* Main loop                                                           */
/* ------------------------------------------------------------------ */
static void simulate(void)
{
	txns_cap = (size_t) n_procs + 8;
	txns = xrealloc(NULL, txns_cap * sizeof(Txn *));
	for (size_t i = 0; i < txns_cap; i++) txns[i] = NULL;
	for (size_t i = txns_cap; i-- > (size_t) n_procs;) {
		if (free_len == free_cap) { free_cap = free_cap ? 2 * free_cap : 64; free_slots = xrealloc(free_slots, free_cap * sizeof(int32_t)); }
		free_slots[free_len++] = (int32_t) i;
	}
	slots = xrealloc(NULL, (size_t) n_keys * sizeof(KeyRec *));
	for (int64_t i = 0; i < n_keys; i++) slots[i] = key_new(next_key++);
	next_proc = n_procs;

	int64_t t0 = 1000000000 + rng_range(&rng_time, 0, 999999);
	for (int64_t p = 0; p < n_procs; p++) {
		Txn *t = txn_new();
		t->proc = p;
		txns[p] = t;
		heap_push(t0 + rng_range(&rng_time, 0, 1000000), (int32_t) p, EV_INVOKE);
	}

	while (heap_len) {
		Ev e = heap_pop();
		Txn *t = txns[e.slot];
		switch (e.kind) {
		case EV_INVOKE:
			if (t->injected) {
				emit_invoke(t, emit_time(e.time));
				break;
			}
			run_injections(e.time);
			if (started >= n_txns) break;	/* this worker is done */
			started++;
			txn_generate(t);
			{
				int64_t ti = emit_time(e.time);
				emit_invoke(t, ti);
				heap_push(ti + rng_range(&rng_time, 50000, 2000000), e.slot, EV_SER);
			}
			break;
		case EV_SER:
			txn_serialize(t);
			heap_push(e.time + rng_range(&rng_time, 50000, 2000000), e.slot, EV_COMPLETE);
			break;
		case EV_COMPLETE: {
			int64_t tc = emit_time(e.time);
			int64_t idx = emit_complete(t, tc);
			if (t->injected) {
				Group *g = &groups[t->group];
				g->idx[t->member] = idx;
				if (++g->done == g->n) group_done(g);
				free(t->ops); free(t->rbuf); free(t);
				slot_free(e.slot);
			} else {
				if (t->status == ST_INFO) t->proc = next_proc++;	/* Jepsen: crashed process is replaced */
				heap_push(tc + rng_range(&rng_time, 1000, 500000), e.slot, EV_INVOKE);
			}
			break;
		}
		}
	}
}

/* ------------------------------------------------------------------ */
/* Command line                                                        */
/* ------------------------------------------------------------------ */
static void usage(FILE *f)
{
	fprintf(f,
"usage: isograph-gen [options]\n"
"Deterministic generator of synthetic Jepsen-style transaction histories.\n"
"Same arguments and seed give byte-identical output.  Without --inject the\n"
"history is strict-serializable and free of anomalies.\n"
"\n"
"  --workload list-append|rw-register  workload (default list-append)\n"
"  --txns N               transactions in total, ok+fail+info, injected ones\n"
"                         included (default 10000); every invoke completes\n"
"  --processes P          concurrent worker processes (default 10); a worker\n"
"                         whose txn ended :info continues under a new process id\n"
"  --keys K               active keys (default 100)\n"
"  --distribution uniform|hot|zipf  key choice; hot: 80%% of accesses go to\n"
"                         10%% of the keys; zipf: key i with weight 1/(i+1)\n"
"                         (default uniform).  rw-register without --wal is a\n"
"                         black-box history (no version order)\n"
"  --ops-min N            min micro-ops per txn (default 4)\n"
"  --ops-max N            max micro-ops per txn (default 12)\n"
"  --read-ratio R         probability that a micro-op is a read (default 0.5)\n"
"  --max-writes-per-key W retire a key after W written values and use a fresh\n"
"                         key id instead (default 32)\n"
"  --fail-ratio R         fraction of :fail txns, no effect (default 0.05)\n"
"  --info-ratio R         fraction of :info txns, half of them take effect\n"
"                         (default 0.01)\n"
"  --seed S               PRNG seed, unsigned 64-bit (default 0)\n"
"  --format edn|csv       edn: Jepsen records, one per line; csv: iso_event rows\n"
"                         with header, for \\copy iso_event FROM 'f.csv' WITH\n"
"                         (FORMAT csv, HEADER true) after creating the\n"
"                         iso_history row (default edn)\n"
"  --history-id N         history_id column of the csv (default 1)\n"
"  --output FILE          write the history to FILE (default stdout)\n"
"  --wal FILE             rw-register only: write the per-key version order as\n"
"                         ArangoDB-style WAL JSON lines (type 2300 = write in\n"
"                         commit order, includes intermediate writes; 2200/2201/\n"
"                         2202 = begin/commit/abort markers)\n"
"  --wal-aborted          also log the writes of :fail txns (inside 2202-ended\n"
"                         WAL txns), to exercise skipping\n"
"  --inject LIST          comma-separated anomalies to inject on fresh keys and\n"
"                         fresh process ids: G0, G1a, G1b, G1c, G-single,\n"
"                         G-nonadjacent, G2-item (write skew), lost-update,\n"
"                         internal, incompatible-order, duplicate-elements,\n"
"                         garbage-read (list-append only: incompatible-order,\n"
"                         duplicate-elements; rw-register only: cyclic-versions).\n"
"                         Each is injected once, spread evenly over the history\n"
"  --inject-every N       inject the whole list again every N txns instead\n"
"  --verbose              report each injection on stderr: txn ids (:index of\n"
"                         the completions = csv txn_id), keys, edges, the\n"
"                         anomaly a checker must report; and a summary\n"
"  --shape steady|two-waves  steady: the worker model above (default);\n"
"                         two-waves: --txns/2 overlapping transactions that all\n"
"                         complete before the others are invoked (list-append\n"
"                         EDN; n^2/4 real-time reduction edges)\n"
"  --help                 this text\n"
"\n"
"Options take their value as the next argument or after '='.  Bad options:\n"
"message on stderr, exit status 2.\n");
}

static void bad(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "isograph-gen: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(try --help)\n");
	exit(2);
}

static int64_t parse_int(const char *opt, const char *s, int64_t min)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < min)
		bad("%s: expected an integer >= %" PRId64 ", got '%s'", opt, min, s);
	return v;
}

static double parse_ratio(const char *opt, const char *s)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0.0 && v <= 1.0))
		bad("%s: expected a number in [0,1], got '%s'", opt, s);
	return v;
}

static void parse_inject(const char *s)
{
	char *copy = strdup(s), *save = NULL;
	if (!copy) die("out of memory");
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int a = -1;
		for (int i = 0; i < A_COUNT; i++)
			if (strcasecmp(tok, anom_name[i]) == 0) a = i;
		if (a < 0 && (strcasecmp(tok, "write-skew") == 0 || strcasecmp(tok, "G2") == 0)) a = A_G2ITEM;
		if (a < 0 && strcasecmp(tok, "G-nonadj") == 0) a = A_GNONADJ;
		if (a < 0) bad("--inject: unknown anomaly '%s'", tok);
		if (!anom_expect[a][wl])
			bad("--inject: %s does not apply to the %s workload", anom_name[a], wl == WL_LIST ? "list-append" : "rw-register");
		inj_list = xrealloc(inj_list, (size_t) (inj_n + 1) * sizeof(int));
		inj_list[inj_n++] = a;
	}
	free(copy);
	if (!inj_n) bad("--inject: empty list");
}

/*
 * --shape two-waves: n/2 overlapping transactions that all complete before
 * the other n/2 are invoked (each on its own process).  Wave 1 transaction
 * i appends 1 to key i; wave 2 transaction j reads key j mod (n/2) and sees
 * [1].  Strict-serializable, and its real-time order's transitive reduction
 * has n^2/4 edges: the shape that checks that isograph keeps real time
 * linear (docs/semantics.md, "so and rt").  EDN, one record per line,
 * strictly increasing :time.
 */
static void emit_two_waves(Out *o, int64_t n)
{
	int64_t w1 = n / 2 > 0 ? n / 2 : 1, w2 = n - w1 > 0 ? n - w1 : 0;
	int64_t t = 0, index = 0;

	for (int pass = 0; pass < 4; pass++) {
		int64_t m = pass < 2 ? w1 : w2;
		for (int64_t i = 0; i < m; i++) {
			int wave2 = pass >= 2;
			int ok = pass & 1;
			OUT_LIT(o, "{:type ");
			if (ok) OUT_LIT(o, ":ok"); else OUT_LIT(o, ":invoke");
			OUT_LIT(o, ", :f :txn, :value [[");
			if (!wave2) { OUT_LIT(o, ":append "); out_int(o, i); OUT_LIT(o, " 1"); }
			else {
				OUT_LIT(o, ":r "); out_int(o, i % w1);
				if (ok) OUT_LIT(o, " [1]"); else OUT_LIT(o, " nil");
			}
			OUT_LIT(o, "]], :process ");
			out_int(o, wave2 ? w1 + i : i);
			OUT_LIT(o, ", :time ");
			out_int(o, t++);
			OUT_LIT(o, ", :index ");
			out_int(o, index++);
			OUT_LIT(o, "}\n");
		}
	}
}

int main(int argc, char **argv)
{
	int two_waves = 0;

	for (int i = 1; i < argc; i++) {
		char *arg = argv[i], *val = NULL;
		char name[64];
		if (strncmp(arg, "--", 2) != 0) bad("unexpected argument '%s'", arg);
		char *eq = strchr(arg, '=');
		size_t nl = eq ? (size_t) (eq - arg) : strlen(arg);
		if (nl >= sizeof name) bad("unknown option '%s'", arg);
		memcpy(name, arg, nl); name[nl] = 0;
		if (!strcmp(name, "--help")) { usage(stdout); return 0; }
		if (!strcmp(name, "--verbose")) { if (eq) bad("--verbose takes no value"); verbose = 1; continue; }
		if (!strcmp(name, "--wal-aborted")) { if (eq) bad("--wal-aborted takes no value"); wal_aborted = 1; continue; }
		static const char *known[] = {
			"--workload", "--txns", "--processes", "--keys", "--distribution", "--ops-min", "--ops-max",
			"--read-ratio", "--max-writes-per-key", "--fail-ratio", "--info-ratio", "--seed", "--format",
			"--history-id", "--output", "--inject", "--inject-every", "--wal", "--shape", NULL };
		int ok = 0;
		for (int k = 0; known[k]; k++) if (!strcmp(name, known[k])) ok = 1;
		if (!ok) bad("unknown option '%s'", name);
		if (eq) val = eq + 1;
		else if (i + 1 < argc) val = argv[++i];
		else bad("%s needs a value", name);

		if (!strcmp(name, "--workload")) {
			if (!strcmp(val, "list-append")) wl = WL_LIST;
			else if (!strcmp(val, "rw-register")) wl = WL_REG;
			else bad("--workload: expected list-append or rw-register, got '%s'", val);
		} else if (!strcmp(name, "--txns")) n_txns = parse_int(name, val, 0);
		else if (!strcmp(name, "--processes")) n_procs = parse_int(name, val, 1);
		else if (!strcmp(name, "--keys")) n_keys = parse_int(name, val, 1);
		else if (!strcmp(name, "--distribution")) {
			if (!strcmp(val, "uniform")) dist_hot = 0;
			else if (!strcmp(val, "hot")) dist_hot = 1;
			else if (!strcmp(val, "zipf")) dist_hot = 2;
			else bad("--distribution: expected uniform, hot or zipf, got '%s'", val);
		} else if (!strcmp(name, "--ops-min")) ops_min = parse_int(name, val, 1);
		else if (!strcmp(name, "--ops-max")) ops_max = parse_int(name, val, 1);
		else if (!strcmp(name, "--read-ratio")) read_ratio = parse_ratio(name, val);
		else if (!strcmp(name, "--max-writes-per-key")) max_writes = parse_int(name, val, 1);
		else if (!strcmp(name, "--fail-ratio")) fail_ratio = parse_ratio(name, val);
		else if (!strcmp(name, "--info-ratio")) info_ratio = parse_ratio(name, val);
		else if (!strcmp(name, "--seed")) {
			char *end; errno = 0;
			if (*val == '-') bad("--seed: expected an unsigned integer, got '%s'", val);
			seed = strtoull(val, &end, 0);
			if (errno || end == val || *end) bad("--seed: expected an unsigned integer, got '%s'", val);
		} else if (!strcmp(name, "--format")) {
			if (!strcmp(val, "edn")) fmt_csv = 0;
			else if (!strcmp(val, "csv")) fmt_csv = 1;
			else bad("--format: expected edn or csv, got '%s'", val);
		} else if (!strcmp(name, "--history-id")) history_id = parse_int(name, val, 1);
		else if (!strcmp(name, "--output")) out_path = val;
		else if (!strcmp(name, "--inject")) inject_arg = val;
		else if (!strcmp(name, "--inject-every")) inject_every = parse_int(name, val, 1);
		else if (!strcmp(name, "--wal")) wal_path = val;
		else if (!strcmp(name, "--shape")) {
			if (!strcmp(val, "steady")) two_waves = 0;
			else if (!strcmp(val, "two-waves")) two_waves = 1;
			else bad("--shape: expected steady or two-waves, got '%s'", val);
		}
	}
	if (two_waves && (fmt_csv || inject_arg || wal_path || wl != WL_LIST))
		bad("--shape two-waves writes list-append EDN only (no --format csv, --inject, --wal)");
	if (ops_min > ops_max) bad("--ops-min (%" PRId64 ") > --ops-max (%" PRId64 ")", ops_min, ops_max);
	if (ops_max > 1000000) bad("--ops-max too large");
	if (n_procs > 1000000) bad("--processes too large");
	if (fail_ratio + info_ratio > 1.0) bad("--fail-ratio + --info-ratio > 1");
	if (wal_path && wl != WL_REG) bad("--wal applies to --workload rw-register only");
	if (wal_aborted && !wal_path) bad("--wal-aborted needs --wal");
	if (inject_every && !inject_arg) bad("--inject-every needs --inject");
	if (inject_arg) parse_inject(inject_arg);

	if (inj_n && !inject_every) {	/* spread evenly, total stays n_txns */
		int64_t total = 0;
		for (int i = 0; i < inj_n; i++) total += anom_size(inj_list[i]);
		if (total > n_txns) bad("--txns %" PRId64 " too small for the injections (%" PRId64 " txns)", n_txns, total);
		inj_at = xrealloc(NULL, (size_t) inj_n * sizeof(int64_t));
		int64_t before = 0;
		for (int i = 0; i < inj_n; i++) {
			inj_at[i] = (int64_t) ((n_txns - total) * (double) (i + 1) / (inj_n + 1)) + before;
			before += anom_size(inj_list[i]);
		}
	}
	every_next = inject_every;
	hot_n = n_keys / 10 > 0 ? n_keys / 10 : 1;

	rng_seed(&rng_txn, seed, 1);
	rng_seed(&rng_time, seed, 2);
	rng_seed(&rng_nem, seed, 3);

	FILE *f = stdout;
	if (out_path && !(f = fopen(out_path, "w"))) die("cannot open %s: %s", out_path, strerror(errno));
	out_init(&out, f, out_path ? out_path : "stdout");
	if (wal_path) {
		FILE *wf = fopen(wal_path, "w");
		if (!wf) die("cannot open %s: %s", wal_path, strerror(errno));
		out_init(&wal, wf, wal_path);
		have_wal = 1;
	}
	if (fmt_csv)
		OUT_LIT(&out, "history_id,txn_id,process,status,invoke_time,complete_time,pos,op,key,value,read_value,read_list\n");

	if (two_waves)
		emit_two_waves(&out, n_txns);
	else
		simulate();

	out_flush(&out);
	if (fflush(f) || (f != stdout && fclose(f))) die("write error on %s", out.name);
	if (have_wal) { out_flush(&wal); if (fclose(wal.f)) die("write error on %s", wal_path); }
	if (verbose)
		fprintf(stderr, "isograph-gen: %" PRId64 " txns (%" PRId64 " injected in %" PRId64 " groups), %" PRId64
				" records, %" PRId64 " nemesis records, %" PRId64 " keys used, %" PRId64 " process ids\n",
				started, inj_total_txns, inj_groups_done, next_index, nemesis_count, next_key, next_proc);
	return 0;
}
