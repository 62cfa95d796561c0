/*
 * edn.h
 *	  Streaming reader for Jepsen EDN histories.
 *
 * The reader has no backend dependencies (see port.h): it turns EDN text into
 * transactions and hands each one to a callback as soon as it is complete
 * (an invocation paired with its completion by process), so the caller can
 * store it, return it as rows or drop it.  Errors are returned in an
 * IsoParseError, never thrown, so a fuzzer can drive the reader directly;
 * the SQL glue turns them into ereport(ERROR).
 */
#ifndef ISOGRAPH_EDN_H
#define ISOGRAPH_EDN_H

#include "names.h"

/* Classes of input errors; the SQL glue maps each to one SQLSTATE. */
typedef enum IsoErrorKind
{
	ISO_PARSE_OK = 0,
	ISO_PARSE_SYNTAX,			/* malformed text: 22P02 */
	ISO_PARSE_RANGE,			/* integer outside 64 bits: 22003 */
	ISO_PARSE_LIMIT,			/* nesting or size beyond what we accept: 54000 */
	ISO_PARSE_INVALID,			/* well-formed, but not a valid history: 22000 */
	ISO_PARSE_DUPLICATE,		/* a value written twice to one key: 23505 */
	ISO_PARSE_UNTRANSLATABLE	/* a \u escape the database encoding lacks: 22P05 */
} IsoErrorKind;

typedef struct IsoParseError
{
	IsoErrorKind kind;
	int64		record;			/* 1-based record (EDN map / JSON line), 0 if none */
	int64		line;			/* 1-based line where the problem is */
	char		message[256];	/* lower case, no final period */
	char		detail[512];	/* a sentence, or empty */
	char		hint[256];		/* a sentence, or empty */
} IsoParseError;

/*
 * One micro-operation.  Keys and values are text: integers in canonical
 * decimal form ("-12"), strings unescaped, keywords with their colon (":x").
 */
typedef struct EdnOp
{
	IsoOpKind	op;
	IsoSlice	key;
	IsoSlice	value;			/* w / append: the value written; reads: NULL */
	IsoSlice	read_value;		/* register read: value read; NULL = nil */
	int32		list_len;		/* list read: number of elements; -1 = no list */
	IsoSlice   *list;			/* list read: the elements */
} EdnOp;

/* One transaction, valid only during the callback. */
typedef struct EdnTxn
{
	int64		txn_id;			/* completion's :index, else its 0-based record position */
	int64		process;
	int64		invoke_time;	/* :time, or a record position (time_source) */
	int64		complete_time;
	bool		has_process;
	bool		has_invoke_time;
	bool		has_complete_time;
	IsoStatus	status;
	int64		record;			/* 1-based record number of the completion (or invocation) */
	int64		line;			/* line where that record starts */
	int32		n_ops;
	EdnOp	   *ops;
	/*
	 * For a split parse (edn_stream_stop): a completion that is the first
	 * record of its process in the input, so without an invocation (one may
	 * be pending in the part before); and whether it has its own :value.
	 */
	bool		first_of_process;
	bool		own_value;
} EdnTxn;

typedef struct EdnStats
{
	int64		records;		/* maps read */
	int64		skipped;		/* records that are not transactions: */
	int64		skipped_f;		/* ... with an :f other than :txn */
	int64		skipped_process;	/* ... of a keyword :process (:nemesis) */
	int64		txns;
	int64		ok;
	int64		fail;
	int64		info;
	int64		events;			/* micro-operations */
	int64		fast_records;	/* records read by the fast path (for tests) */
	int64		unindexed;		/* transactions whose id is a position (no :index) */
	IsoWorkload workload;		/* what the history turned out to be */
	IsoTimeSource time_source;	/* what the transactions' times are: the
								 * records' :time, or (when the first
								 * transaction record has no :time) their
								 * positions; NONE if no transaction has one */
} EdnStats;

/* Called for every transaction; return false to stop (err is then unset). */
typedef bool (*EdnTxnCallback) (const EdnTxn *txn, void *arg);

/*
 * Parse a whole history.  expected may be ISO_WORKLOAD_UNKNOWN (infer it).
 * Returns true on success; false with *err filled in on bad input.
 */
extern bool edn_parse_history(const char *text, size_t len,
							  IsoWorkload expected,
							  EdnTxnCallback callback, void *arg,
							  EdnStats *stats, IsoParseError *err);

/*
 * The same reader fed line by line (a streaming load: COPY rows), so that
 * no more than the unfinished record's text is held.  A record may span
 * lines and a line may hold several records.  stats and err must live as
 * long as the stream; the callback sees the transactions as in
 * edn_parse_history, with the same errors.  After a false return the
 * stream only reports that failure again; free it in any case.
 */
typedef struct EdnStream EdnStream;

extern EdnStream *edn_stream_begin(IsoWorkload expected,
								   EdnTxnCallback callback, void *arg,
								   EdnStats *stats, IsoParseError *err);
/* One line, without its newline. */
extern bool edn_stream_line(EdnStream *stream, const char *line, size_t len);
/*
 * Or fed blocks of whole lines (with their newlines) that it parses in
 * place: *used is set to the bytes its complete records took, and the
 * caller passes the rest again, followed by more lines.  Not mixed with
 * edn_stream_line but for the very end: the last unfinished bytes (a file
 * without a final newline, or a record cut short) go to edn_stream_line
 * before edn_stream_finish.
 */
extern bool edn_stream_text(EdnStream *stream, const char *text, size_t len,
							size_t *used);
/* End of input: the last checks, and the invocations that never completed. */
extern bool edn_stream_finish(EdnStream *stream);

/* An invocation waiting for its completion (edn_stream_stop). */
typedef struct EdnPending
{
	int64		process;
	int64		time;
	bool		has_process;
	bool		has_time;
} EdnPending;

/*
 * Or stop, for a parse split in two at a record boundary whose second part
 * is parsed elsewhere (edn_split.c): no checks of the end and no
 * invocation goes out; the stats are set as at the end.  The invocations
 * still waiting are put in *pending (n_pending of them, freed by the
 * caller with iso_free).  False if the input so far does not end between
 * records at the top level (a record left unfinished, the enclosing vector
 * open): the split is then no good, and nothing is set.
 */
extern bool edn_stream_stop(EdnStream *stream, EdnPending **pending, int32 *n_pending);
extern void edn_stream_free(EdnStream *stream);

/* Deepest nesting of EDN collections accepted (a history needs 4). */
#define EDN_MAX_DEPTH 64

/*
 * Whether the parser may take its fast paths (records of the common shape,
 * plain integers in list reads, bitmaps for the unique-writes check).  Always on in the server; the unit tests and the fuzzer turn it
 * off to check that both paths give the same transactions and errors.
 */
extern bool edn_fast_paths;

#endif							/* ISOGRAPH_EDN_H */
