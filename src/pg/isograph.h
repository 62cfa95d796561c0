/*
 * isograph.h
 *	  Backend-side declarations shared by the SQL glue files.
 */
#ifndef ISOGRAPH_H
#define ISOGRAPH_H

#include "postgres.h"

#include "access/tupdesc.h"
#include "fmgr.h"
#include "executor/tuptable.h"
#include "nodes/execnodes.h"
#include "utils/relcache.h"

#include "edn.h"

/* Settings (isograph.c). */
extern bool iso_assume_sequential_keys;
extern bool iso_assume_linearizable_keys;
extern int	iso_max_witnesses;
extern int	iso_search_timeout_ms;
extern int	iso_max_memory_mb;
extern bool iso_use_image;
extern bool iso_save_image_on_check;
extern bool iso_parallel_inference;
extern void iso_settings_ready(void);

/* The extension's own tables (catalog.c). */
typedef enum IsoTable
{
	ISO_TABLE_HISTORY,
	ISO_TABLE_EVENT,
	ISO_TABLE_VERSION,
	ISO_TABLE_EDGE,
	ISO_TABLE_IMAGE,
	ISO_TABLE_EVENT_CHUNK		/* 0.5.0: where iso_event's rows are stored, packed */
} IsoTable;

extern Oid	iso_table_oid(IsoTable table);
extern bool iso_table_exists(IsoTable table);
extern const char *iso_table_name(IsoTable table);
extern char *iso_qualified_table_name(IsoTable table);
extern Oid	iso_table_public_oid(IsoTable table);
extern Oid	iso_relation_oid(const char *name);

/* Running isograph's own writes as the tables' owner (catalog.c). */
typedef struct IsoOwnerSwitch
{
	Oid			save_userid;
	int			save_sec_context;
} IsoOwnerSwitch;
extern void iso_owner_begin(IsoOwnerSwitch *sw);
extern void iso_owner_end(const IsoOwnerSwitch *sw);

/* The columns isograph writes into a table, as its install script made them. */
extern int	iso_table_ncolumns(IsoTable table);
extern const char *iso_table_column(IsoTable table, int i, Oid *type);

/* Column numbers of iso_event, 1-based as in the table. */
enum
{
	EVENT_HISTORY_ID = 1,
	EVENT_TXN_ID,
	EVENT_PROCESS,
	EVENT_STATUS,
	EVENT_INVOKE_TIME,
	EVENT_COMPLETE_TIME,
	EVENT_POS,
	EVENT_OP,
	EVENT_KEY,
	EVENT_VALUE,
	EVENT_READ_VALUE,
	EVENT_READ_LIST,
	EVENT_NATTS = EVENT_READ_LIST
};

/*
 * Where the writer's columns are in a table as it is now, and how to fill
 * the columns someone added (table_layout.c).
 */
typedef struct IsoTableLayout
{
	int			natts;			/* columns of the table's descriptor */
	int			ncols;			/* columns the writer supplies */
	int		   *attidx;			/* for each: 0-based index in the descriptor */
	bool		canonical;		/* exactly our columns, at attnums 1..ncols */
	int			nextra;			/* live columns we do not supply */
	bool		has_generated;	/* some of them are generated (stored) */
	struct ExprState **defaults;	/* natts: default of an extra column, or NULL */
} IsoTableLayout;

extern void iso_table_layout_init(IsoTableLayout *layout, Relation rel, IsoTable table,
								  EState *estate);
extern void iso_table_layout_fill(const IsoTableLayout *layout, EState *estate,
								  const Datum *values, const bool *nulls,
								  TupleTableSlot *slot);

/*
 * Bulk writer into one of our tables: direct heap insert plus index
 * maintenance, for loading millions of rows without SPI per row (writer.c).
 */
typedef struct IsoTableWriter
{
	Relation	rel;
	EState	   *estate;
	ResultRelInfo *rri;
	TupleTableSlot *slot;
	CommandId	cid;
	int64		rows;
	/* rows buffered for table_multi_insert (writer.c) */
	TupleTableSlot **batch;
	int			nbatch;
	struct BulkInsertStateData *bistate;
	MemoryContext batch_cxt;
	IsoTableLayout layout;
} IsoTableWriter;

extern void iso_writer_open(IsoTableWriter *writer, IsoTable table);
extern void iso_writer_put(IsoTableWriter *writer, Datum *values, bool *nulls);
extern void iso_writer_close(IsoTableWriter *writer);

/*
 * Events packed into iso_event_chunk since 0.5.0 (packed by event_store.c,
 * unpacked by event_unpack.c; whether the extension has the table:
 * catalog.c); under older versions of the extension they are rows of
 * iso_event(_data).
 */
struct IsoEventRow;
struct IsoChunkReader;
struct IsoChunkMeta;
typedef struct IsoEventStore IsoEventStore;
extern bool iso_events_packed(void);
/* Rows written into the table iso_event_load (event_input.c, for load_am.c). */
extern void iso_event_load_rows(Relation rel, TupleTableSlot **slots, int nslots,
								void (*before_row) (void *arg, int i), void *arg);
extern IsoEventStore *iso_event_store_open(void);
extern void iso_event_store_add(IsoEventStore *st, int64 history_id,
								const struct IsoEventRow *row);
extern bool iso_event_store_add_chunk(IsoEventStore *st, int64 history_id,
									  const struct IsoChunkMeta *meta,
									  const uint8 *data, size_t len);
extern void iso_event_store_prepare(IsoEventStore *st, int64 history_id);
extern void iso_event_store_delete(IsoEventStore *st, int64 history_id,
								   int64 txn_id, int32 pos);
extern void iso_event_store_close(IsoEventStore *st);
extern void iso_event_chunk_open(struct IsoChunkReader *r, bytea *data, const char *what);
extern const struct IsoEventRow *iso_event_chunk_next(struct IsoChunkReader *r, const char *what);
/* A text Datum's bytes, detoasted as needed (in the current context). */
static inline IsoSlice
iso_datum_slice(Datum d)
{
	text	   *t = (text *) DatumGetPointer(d);
	IsoSlice	s;

	/* DatumGetTextPP's test, inline: most datums need no detoasting */
	if (VARATT_IS_COMPRESSED(t) || VARATT_IS_EXTERNAL(t))
		t = DatumGetTextPP(d);

	s.ptr = VARDATA_ANY(t);
	s.len = VARSIZE_ANY_EXHDR(t);
	return s;
}

/* A text Datum naming a status or an op (false: it names none). */
static inline bool
iso_datum_status(Datum d, IsoStatus *status)
{
	IsoSlice	s = iso_datum_slice(d);

	return iso_status_parse_len(s.ptr, (size_t) s.len, status);
}

static inline bool
iso_datum_op(Datum d, IsoOpKind *op)
{
	IsoSlice	s = iso_datum_slice(d);

	return iso_op_parse_len(s.ptr, (size_t) s.len, op);
}

/* read_list as slices (list_input.c) */
typedef enum IsoListCheck
{
	ISO_LIST_OK,
	ISO_LIST_DIMENSIONS,		/* more than one dimension */
	ISO_LIST_NULL_ELEMENT
} IsoListCheck;
extern IsoListCheck iso_text_array_slices(Datum d, IsoSlice **elems, int *n);
extern IsoListCheck iso_list_literal_slices(Datum d, IsoSlice **elems, int *n);
/* a history's events are about to change: outdate its image (image_store.c) */
extern void iso_image_events_written(int64 history_id);

/* Turn a parser error into ereport(ERROR) (parse_error.c). */
extern void iso_report_parse_error(const IsoParseError *err, const char *what) pg_attribute_noreturn();
extern void iso_report_edn_error(const IsoParseError *err, const char *text, size_t len) pg_attribute_noreturn();

/* History rows (history_meta.c). */
extern int64 iso_history_create(const char *name, const char *workload, const char *source);
extern void iso_history_finish_load(int64 history_id, const char *workload, int64 skipped,
									IsoTimeSource time_source);
extern IsoTimeSource iso_history_time_source(int64 history_id);
extern bool iso_history_lookup(int64 history_id, char **name, IsoWorkload *workload);
extern void iso_history_id_check(int64 history_id);
extern bool iso_history_try_lock(int64 history_id);
extern void iso_history_lock(int64 history_id);
extern bool iso_history_lock_nowait(int64 history_id);
extern int64 iso_history_lock_rev(int64 history_id);

extern text *iso_slice_to_text(IsoSlice slice);

/* The snapshot checks read with (snapshot.c). */
extern void iso_snapshot_push_latest(void);
extern void iso_snapshot_pop(void);

/* An EDN history parsed into memory only (load.c). */
struct IsoHistory;
extern struct IsoHistory *iso_history_from_edn(text *edn, IsoWorkload expected,
												MemoryContext cxt,
												IsoTimeSource *time_source,
												bool *split);
extern IsoWorkload iso_workload_from_text(text *t);

/*
 * Where blocks of EDN text come from (edn_file.c): a file on the server, or
 * in a parallel worker the backend's text (edn_parallel.c).  read puts at
 * most max bytes at buf and says how many, 0 at the end; name is the file
 * a line longer than max_line is said to be in.
 */
#define ISO_EDN_BLOCK_BYTES		((size_t) 1024 * 1024)
typedef struct EdnBlockSource
{
	size_t		(*read) (void *arg, char *buf, size_t max);
	void	   *arg;
	const char *name;
	size_t		max_line;
} EdnBlockSource;
extern void iso_edn_read_blocks(const EdnBlockSource *src, EdnStream *stream,
								IsoParseError *err, bool *saw_text);

/* The same from a file on the server, read in blocks (edn_file.c, load.c). */
extern void iso_edn_read_file(const char *path, EdnStream *stream, IsoParseError *err,
							  bool *saw_text);

/*
 * A part of a file for a split parse (edn_split.c): bytes [from, to) (to <
 * 0: to the end).  quiet: an error of the EDN only makes the read return
 * false (one parse of the whole file will raise it); errors of the file are
 * raised.  stop: the part must end at a record boundary, where the stream
 * is stopped (edn_stream_stop, its pending invocations put in pending),
 * not finished; false if it does not end so.
 */
typedef struct EdnReadSplit
{
	bool		quiet;
	bool		stop;
	EdnPending *pending;
	int32		n_pending;
} EdnReadSplit;
extern bool iso_edn_read_file_part(const char *path, off_t from, off_t to,
								   EdnStream *stream, IsoParseError *err,
								   EdnReadSplit *split);
/* The same from any source of blocks. */
extern bool iso_edn_read_source_part(const EdnBlockSource *src, EdnStream *stream,
									 IsoParseError *err, EdnReadSplit *split);
/*
 * An EdnBlockSource's read in a parallel worker: the blocks of the
 * backend's text from a shared memory queue (arg), 0 at its end.
 */
extern size_t iso_edn_read_text_block(void *arg, char *buf, size_t max);
extern void iso_check_read_server_files(void);
/*
 * The same read by a parallel worker while callback(txn, arg) runs in the
 * caller (edn_parallel.c); false, having read nothing, when no worker can.
 * With a chunk_callback, the worker packs the transactions' events itself
 * (event_chunk.h) and sends them as chunks, each given to
 * chunk_callback(meta, data, len, arg) where the serial load's store would
 * write it, instead of the transactions: callback is then not called.
 */
typedef void (*IsoPackedChunkCallback) (const struct IsoChunkMeta *meta, const uint8 *data,
										size_t len, void *arg);
extern bool iso_edn_read_file_parallel(const char *path, IsoWorkload expected,
									   EdnTxnCallback callback,
									   IsoPackedChunkCallback chunk_callback, void *arg,
									   EdnStats *stats, bool *saw_text);
/* Whether this backend may start a parallel worker now (edn_parallel.c). */
extern bool iso_edn_worker_possible(void);

/*
 * One parallel worker of EDN (edn_parallel.c, edn_split.c): launched
 * (false: none could start, nothing is left) with a copy of shared (size
 * bytes), a queue of out_bytes from it and, if in_bytes > 0, one to it
 * for the blocks of a text; ended with iso_edn_worker_end.  In the worker,
 * iso_edn_worker_attach gives the shared struct and the text's blocks as a
 * source (read NULL when there is no text), iso_edn_worker_queue the queue
 * to the backend.
 */
struct ParallelContext;
struct shm_mq_handle;
struct dsm_segment;
struct shm_toc;
typedef struct IsoEdnWorker
{
	struct ParallelContext *pcxt;
	struct shm_mq_handle *out;	/* from the worker */
	struct shm_mq_handle *in;	/* a text, to the worker (NULL: none) */
} IsoEdnWorker;
extern bool iso_edn_worker_launch(IsoEdnWorker *w, const char *function,
								  const void *shared, Size size,
								  Size out_bytes, Size in_bytes);
extern void iso_edn_worker_end(IsoEdnWorker *w);
extern void *iso_edn_worker_attach(struct dsm_segment *seg, struct shm_toc *toc,
								   EdnBlockSource *text);
extern struct shm_mq_handle *iso_edn_worker_queue(struct dsm_segment *seg,
												  struct shm_toc *toc);
/* The same for an EDN text of the backend, sent to the worker in blocks. */
extern bool iso_edn_read_text_parallel(const char *text, size_t len, IsoWorkload expected,
									   EdnTxnCallback callback,
									   IsoPackedChunkCallback chunk_callback, void *arg,
									   EdnStats *stats);
extern struct IsoHistory *iso_history_from_edn_file(const char *path, IsoWorkload expected,
													 MemoryContext cxt,
													 IsoTimeSource *time_source,
													 bool *split);

/*
 * An EDN file parsed in two parts at once, by the backend and a parallel
 * worker, into head (edn_split.c); false, with head to be thrown away, when
 * it cannot be (the caller parses the file whole).
 */
struct IsoEdnHistory;
extern bool iso_edn_read_file_split(const char *path, IsoWorkload expected,
									EdnTxnCallback callback, void *arg,
									struct IsoEdnHistory *head, MemoryContext head_cxt,
									EdnStats *stats);
/* The same for an EDN text of the backend, its second half sent to the worker. */
extern bool iso_edn_parse_text_split(const char *text, size_t len, IsoWorkload expected,
									 EdnTxnCallback callback, void *arg,
									 struct IsoEdnHistory *head, MemoryContext head_cxt,
									 EdnStats *stats);

#endif							/* ISOGRAPH_H */
