/*
 * infer_int.h
 *	  What the graph builder's files share (infer.c, infer_common.c,
 *	  infer_list.c, infer_register.c, infer_order.c): the builder's state and its small
 *	  helpers.  Private to the graph builder; callers use infer.h.
 */
#ifndef ISOGRAPH_INFER_INT_H
#define ISOGRAPH_INFER_INT_H

#include "infer.h"

/* Flags per op, computed once (step 1). */
#define OP_EXTERNAL_READ	0x01	/* first access of the key in its txn */
#define OP_FINAL_WRITE		0x02	/* last w/append of the key in its txn */
#define OP_TXN_WRITES_KEY	0x04	/* (reads) its txn also writes the key */

/* (key, value) -> op index of the write; open addressing. */
typedef struct WriteMap
{
	uint64	   *keys;			/* (key << 32 | value) + 1, 0 = empty */
	uint32	   *ops;
	uint64		mask;
} WriteMap;

typedef struct Prefault Prefault;

typedef struct Builder
{
	const IsoHistory *h;
	IsoInference *out;
	IsoEdgeBuf	edges;
	uint8	   *op_flags;
	uint32	   *op_txn;			/* per op, its transaction (the ops do not
								 * name it: history.h) */
	uint8	   *txn_status;		/* per txn, its IsoStatus: the key-by-key
								 * walks look it up at random, a byte each
								 * stays in the caches, a 40-byte IsoTxn
								 * does not */
	WriteMap	writes;
	uint32	   *key_start;		/* ops grouped by key: CSR over key ids */
	uint32	   *key_ops;
	uint32	   *value_stamp;	/* per value id: epoch it was marked in */
	uint32	   *value_pos;		/* per value id: position while marked */
	uint32	   *dup_stamp;
	uint32		epoch;

	/*
	 * Keys inferred on two threads (infer_list.c): each thread's edges and
	 * anomalies go into room given to it beforehand (bounded: what does not
	 * fit sets overflow and is dropped, and the key is done again later),
	 * and the helper thread (in_helper) calls no host function.
	 */
	bool		bounded;
	bool		overflow;
	bool		in_helper;
	uint8		parallel;		/* IsoInferOptions.parallel_keys */
	uint32		parallel_room;	/* IsoInferOptions.parallel_test_room */
	uint64		list_edges_estimate;	/* infer.c, 0: none */
} Builder;

/* A read with the version it shows, for the lost-update rule. */
typedef struct RankedRead
{
	uint64		rank;
	uint32		op;
} RankedRead;

/*
 * A hint, no more: fetch what a walk over the ops grouped by key reads
 * soon.  Such walks read h->ops at about one cache line an op, at random
 * (a key's ops are spread over the whole history), and the loops are too
 * short for the processor to look that far ahead by itself.
 */
#if defined(__GNUC__) || defined(__clang__)
#define INFER_PREFETCH(p)	__builtin_prefetch((p), 0)
#else
#define INFER_PREFETCH(p)	((void) 0)
#endif
/* how far ahead, in ops of the group */
#define INFER_AHEAD			16

/* Prefetch the op kops[i + INFER_AHEAD] of a group of n. */
static inline void
prefetch_key_op(const IsoHistory *h, const uint32 *kops, uint32 i, uint32 n)
{
	if (i + INFER_AHEAD < n)
		INFER_PREFETCH(&h->ops[kops[i + INFER_AHEAD]]);
}

static inline uint32
op_txn(const Builder *b, uint32 op)
{
	return b->op_txn[op];
}

static inline IsoStatus
txn_status(const Builder *b, uint32 txn)
{
	return (IsoStatus) b->txn_status[txn];
}

static inline uint32
txn_vertex(const Builder *b, uint32 txn)
{
	return b->out->txn_vertex[txn];
}

static inline uint32
op_vertex(const Builder *b, uint32 op)
{
	return b->out->txn_vertex[b->op_txn[op]];
}

/*
 * The length of a list-append read, or -1 when it shows nothing.  Jepsen
 * clients return nil for a list that does not exist yet, so a committed
 * transaction's nil read is the empty list, the initial state (Elle reads
 * it so); an info transaction's reads are copied from its invocation, so
 * its nil means "unknown".
 */
static inline int32
list_read_len(const Builder *b, const IsoOp *op)
{
	if (op->list_len >= 0)
		return op->list_len;
	if (op->kind == ISO_OP_READ && op->value == ISO_NONE &&
		txn_status(b, b->op_txn[op - b->h->ops]) == ISO_STATUS_OK)
		return 0;
	return -1;
}

/* A 64-bit hash finalizer, for the open-addressing tables. */
static inline uint64
mix64(uint64 x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	return x;
}

/*
 * Where the helper thread's share of the list keys begins in the edge
 * buffer (infer_list.c), given the list edges estimated (infer.c, which
 * makes those pages resident beforehand): 15 % past where the first
 * share, of ops_before of the n_ops ops, is expected to end.
 */
static inline uint64
helper_share_start(uint64 estimate, uint32 ops_before, uint32 n_ops)
{
	return 4096 + (uint64) ((double) estimate * 1.15 * ops_before / Max(n_ops, 1));
}

/* infer_common.c */
/* Room for more anomalies in out, at least (its array grown once). */
extern void iso_infer_reserve_anomalies(IsoInference *out, uint32 more);
extern void iso_infer_add_anomaly(Builder *b, IsoAnomalyKind kind, uint32 key,
								  uint32 value, uint32 op_a, uint32 op_b);
extern void iso_infer_add_edge(Builder *b, uint32 from_v, uint32 to_v, IsoEdgeType type,
							   uint32 key, uint32 from_op, uint32 to_op);
/* Map each written (key, value) to its op; false with *err if one repeats. */
extern bool iso_infer_build_write_map(Builder *b, IsoParseError *err);
/* Op index that wrote value to key, or ISO_NONE. */
extern uint32 iso_infer_writer_of(const Builder *b, uint32 key, uint32 value);
/* reads[i] = (version rank, reader op); sorted here. */
extern void iso_infer_report_lost_updates(Builder *b, uint32 key, RankedRead *reads,
										  uint32 n);

/* infer_list.c: list-append keys */
/* False if a key has a value written twice (nothing reported: infer.c). */
extern bool iso_infer_lists(Builder *b);

/* infer_register.c: rw-register keys */
extern void iso_infer_registers(Builder *b, const IsoVersionLog *log,
								const IsoInferOptions *opt);

/* infer_order.c: session order and real-time order */
extern void iso_infer_session_edges(Builder *b);
extern void iso_infer_realtime_edges(Builder *b);
extern void iso_infer_defer_realtime(Builder *b);

#endif							/* ISOGRAPH_INFER_INT_H */
