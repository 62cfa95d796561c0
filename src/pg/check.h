/*
 * check.h
 *	  Backend glue shared by the graph and check SQL functions: building the
 *	  in-memory graph of a stored history, and explaining what it found.
 */
#ifndef ISOGRAPH_CHECK_H
#define ISOGRAPH_CHECK_H

#include "postgres.h"

#include "access/tupdesc.h"
#include "lib/stringinfo.h"
#include "utils/tuplestore.h"

#include "cycle.h"
#include "host.h"
#include "image.h"
#include "infer.h"
#include "isograph.h"

/* A stored history, read and built, with everything in one memory context. */
typedef struct IsoBuild
{
	MemoryContext cxt;			/* holds all of the below; deleted by close */
	int64		history_id;
	char	   *name;
	IsoWorkload workload;
	bool		has_log;		/* iso_version has rows for it */
	IsoHistory	history;
	IsoVersionLog log;
	IsoInference inf;
	IsoTimeSource time_source;	/* of the rt edges; NONE if no vertex has times */
} IsoBuild;

/* history_read.c */
extern void iso_history_add_packed(IsoHistory *h, const uint8 *data, size_t len,
								   int64 *last_txn, MemoryContext build_cxt);
extern void iso_read_history(int64 history_id, IsoWorkload workload, IsoHistory *h,
							 MemoryContext build_cxt);
extern bool iso_read_version_log(int64 history_id, const IsoHistory *h,
								 IsoVersionLog *log, MemoryContext build_cxt);

/* image_store.c */
extern void iso_image_write(int64 history_id, const IsoHistory *h, int64 events_rev,
							bool replace);
typedef struct IsoImageStream
{
	int64		history_id;
	bool		open;			/* rows are being written */
	bool		whole;			/* restarted: finish writes the whole image */
	bool		any_part;		/* a part is stored */
	IsoTableWriter writer;
	uint64		written[ISO_IMAGE_NSECTIONS];	/* bytes stored of each section */
	uint32		crc[ISO_IMAGE_NSECTIONS];	/* CRC-32C of those bytes, so far */
} IsoImageStream;
extern void iso_image_stream_begin(IsoImageStream *st, int64 history_id);
extern void iso_image_stream_progress(IsoImageStream *st, const IsoHistory *h);
extern void iso_image_stream_restart(IsoImageStream *st);
extern void iso_image_stream_finish(IsoImageStream *st, const IsoHistory *h);
extern void iso_read_current_history(int64 history_id, IsoWorkload workload,
									 IsoHistory *h, MemoryContext cxt);
extern bool iso_image_save_on_read(int64 history_id, IsoWorkload workload,
								   IsoHistory *h, MemoryContext cxt);
extern bool iso_image_read(int64 history_id, IsoWorkload workload, IsoHistory *h,
						   MemoryContext build_cxt);

/* build.c */
extern void iso_build_open(IsoBuild *build, int64 history_id);
/*
 * The same with the graph deferred (IsoInference.realtime_deferred): the
 * caller first asks whether the history has any cycle at all
 * (iso_infer_realtime_acyclic, as primed_scc_cache does); if not, the
 * graph is its vertices alone; else iso_build_add_realtime builds it
 * unsorted (graph.h: IsoGraph.unsorted), and iso_build_sort sorts it.
 * The try_ form returns false for a history that does not exist (or is
 * not the caller's) instead of raising an ERROR.
 */
extern void iso_build_open_unsorted(IsoBuild *build, int64 history_id);
extern bool iso_build_try_open_unsorted(IsoBuild *build, int64 history_id);
extern void iso_build_add_realtime(IsoBuild *build);
extern void iso_build_sort(IsoBuild *build);
extern void iso_build_open_edn(IsoBuild *build, text *edn, IsoWorkload expected,
							   bool free_text);
extern void iso_build_open_edn_file(IsoBuild *build, const char *path,
									IsoWorkload expected);
extern void iso_build_close(IsoBuild *build);
extern int64 iso_vertex_txn_id(const IsoBuild *build, uint32 vertex);
extern List *iso_all_history_ids(void);

/*
 * Whether an edge of the built graph is shown in edge listings: not when it
 * touches a time point (realtime.h), an internal vertex with no transaction.
 */
static inline bool
iso_edge_is_listed(const IsoBuild *build, const IsoEdge *e)
{
	return e->from < build->inf.n_vertices && e->to < build->inf.n_vertices;
}

/* graph_sql.c */
extern void iso_put_anomaly_row(const IsoBuild *build, const IsoAnomaly *a,
								Tuplestorestate *store, TupleDesc desc);

/* explain.c */
extern char *iso_key_text(const IsoBuild *build, uint32 key);
extern void iso_explain_anomaly(const IsoBuild *build, const IsoAnomaly *a, StringInfo out);
extern void iso_explain_edge(const IsoBuild *build, const IsoEdge *e, StringInfo out);
extern void iso_explain_edge_ex(const IsoBuild *build, const IsoEdge *e, bool later,
								StringInfo out);
extern void iso_describe_op(const IsoBuild *build, uint32 op, StringInfo out);

#endif							/* ISOGRAPH_CHECK_H */
