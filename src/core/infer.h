/*
 * infer.h
 *	  The graph builder: vertices, version orders, dependency edges and
 *	  non-cycle anomalies of one history (rules: docs/semantics.md).
 */
#ifndef ISOGRAPH_INFER_H
#define ISOGRAPH_INFER_H

#include "edn.h"
#include "graph.h"
#include "history.h"
#include "realtime.h"

typedef enum IsoAnomalyKind
{
	ISO_ANOM_G1A = 0,
	ISO_ANOM_G1B,
	ISO_ANOM_DIRTY_UPDATE,
	ISO_ANOM_INTERNAL,
	ISO_ANOM_LOST_UPDATE,
	ISO_ANOM_GARBAGE_READ,
	ISO_ANOM_DUPLICATE_ELEMENTS,
	ISO_ANOM_INCOMPATIBLE_ORDER,
	ISO_ANOM_CYCLIC_VERSIONS,
	ISO_ANOM_FUTURE_READ,
	ISO_ANOM_KIND_COUNT
} IsoAnomalyKind;

/*
 * A non-cycle anomaly.  txn_a/op_a: the transaction and micro-op that show
 * it (usually the reader); txn_b/op_b: the other party (writer, second
 * reader), or ISO_NONE.
 */
typedef struct IsoAnomaly
{
	uint8		kind;			/* IsoAnomalyKind */
	uint32		key;
	uint32		value;			/* the value involved, or ISO_NONE */
	uint32		txn_a;
	uint32		op_a;
	uint32		txn_b;
	uint32		op_b;
} IsoAnomaly;

/* Externally supplied version order: (key, value) ids sorted by key, position. */
typedef struct IsoVersionLog
{
	uint32		n;
	uint32	   *keys;
	uint32	   *values;
} IsoVersionLog;

typedef struct IsoInferOptions
{
	bool		sequential_keys;	/* session order orders register writes */
	bool		linearizable_keys;	/* real-time order orders register writes */
	bool		unsorted_graph; /* leave out.graph unsorted (graph.h) */
	bool		defer_realtime; /* no graph yet: the edges without rt kept
								 * for iso_infer_realtime_acyclic and
								 * iso_infer_add_realtime (unsorted) */
	uint8		parallel_keys;	/* IsoParallelKeys: list-append keys on two
								 * threads (the same result as on one) */
	uint32		parallel_test_room; /* tests: at most this many edges and
									 * anomalies a thread (0: as needed) */
} IsoInferOptions;

typedef enum IsoParallelKeys
{
	ISO_PARALLEL_OFF = 0,
	ISO_PARALLEL_AUTO,			/* for histories of ISO_PARALLEL_MIN_OPS or more */
	ISO_PARALLEL_ALWAYS			/* tests: any history of two keys or more */
} IsoParallelKeys;

#define ISO_PARALLEL_MIN_OPS	(1u << 18)

/*
 * The rw-register keys whose version order the evidence leaves open, kept
 * for the version-order search (search.c).  Slot s is one such key:
 * key[s]; its versions 1..m (m = ver_start[s+1] - ver_start[s]) are the
 * final writes ver_op[ver_start[s] + v - 1]; its external reads are
 * rd_op/rd_ver[rd_start[s] ..] (rd_ver: the version read, 0 = nil); the
 * known constraints "a before b" (a, b >= 1) are cons_a/cons_b[cons_start[s] ..].
 */
typedef struct IsoRegUnknown
{
	uint32		n_keys;
	uint32		cap_keys;
	uint32	   *key;
	uint32	   *ver_start;		/* n_keys + 1 */
	uint32	   *rd_start;		/* n_keys + 1 */
	uint32	   *cons_start;		/* n_keys + 1 */
	uint32		n_ver,
				cap_ver;
	uint32	   *ver_op;
	uint32		n_rd,
				cap_rd;
	uint32	   *rd_op;
	uint32	   *rd_ver;
	uint32		n_cons,
				cap_cons;
	uint32	   *cons_a;
	uint32	   *cons_b;
} IsoRegUnknown;

typedef struct IsoInference
{
	uint32		n_vertices;
	uint32	   *vertex_txn;		/* vertex -> txn index */
	uint32	   *txn_vertex;		/* txn index -> vertex or ISO_NONE */
	IsoGraph	graph;			/* vertices: n_vertices transactions, then
								 * realtime.n_points time points */
	IsoRealtimeInfo realtime;	/* how rt is represented (realtime.h) */
	/*
	 * With defer_realtime, until one of the calls below: graph is empty,
	 * the other edges wait in edges_pending, rt in realtime_order.
	 */
	bool		realtime_deferred;
	IsoEdgeBuf	edges_pending;
	IsoRealtimeOrder realtime_order;
	IsoAnomaly *anomalies;
	uint32		n_anomalies;
	uint32		cap_anomalies;
	uint32		unknown_order_keys; /* register keys without a total version order */
	IsoRegUnknown unknown;		/* those keys, for the search (search.c) */
	uint32		n_fail;
	uint32		n_info;
	uint32		helper_keys;	/* list-append keys inferred on the helper
								 * thread (IsoInferOptions.parallel_keys) */
} IsoInference;

/*
 * Build the graph.  Returns false with *err set when the history cannot be
 * interpreted at all (a value written twice to one key).
 */
extern bool iso_infer(const IsoHistory *h, const IsoVersionLog *log,
					  const IsoInferOptions *options, IsoInference *out,
					  IsoParseError *err);

/*
 * With the real-time order deferred (IsoInferOptions.defer_realtime): whether
 * the edges plus that order have no cycle, without making the rt edges.
 * If so, every level's cycle check passes, and inf->graph becomes the
 * graph of the vertices without any edge (the same verdicts: nothing to
 * find); else nothing changes and iso_infer_add_realtime comes next.
 */
extern bool iso_infer_realtime_acyclic(IsoInference *inf);

/*
 * Build the deferred graph, rt edges (and time points) included, left
 * unsorted: sorted, it is the graph iso_infer makes without deferring.
 * Nothing when nothing is deferred.
 */
extern void iso_infer_add_realtime(IsoInference *inf, const IsoHistory *h);

extern const char *iso_anomaly_name(IsoAnomalyKind kind);

/* Free inf->unknown (the server frees it with the build's context). */
extern void iso_infer_free_unknown(IsoRegUnknown *u);

#endif							/* ISOGRAPH_INFER_H */
