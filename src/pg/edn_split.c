/*
 * edn_split.c
 *	  A history file or text checked in memory (iso_levels_jepsen_file,
 *	  iso_levels_jepsen) parsed in two parts at once: the backend the first
 *	  half, a parallel worker the second, each into a history of its own;
 *	  the two are then joined.
 *
 * Reading a history file is most of an in-memory check: at 1M list-append
 * transactions, 2.05 s of parse and history of 3.1 s, and the parse has no
 * part that a second core could take over (docs/performance.md).  So the
 * file is cut in two at a record boundary near its middle, and each part
 * is parsed as a file of its own, by one core each.
 *
 * One parse of the whole file is the reference, and a split must give the
 * same history, id for id.  What crosses the cut:
 *
 * - Invocations still waiting at the cut: each must be completed by the
 *   first record of its process after the cut (with a :value of its own),
 *   which then gets the invocation's time (iso_edn_history_join).
 * - What one parse decides from the start (the workload, whether times are
 *   :time values or record positions) and transaction ids that are record
 *   positions: the join refuses what the parts cannot give alike.
 * - Duplicates across the cut (a value written in both parts, a
 *   transaction id in both): neither part sees them; the check does
 *   (iso_infer, the txn_id order), and the caller then parses the whole
 *   file, whose parse names them as always (build.c).
 *
 * An input whose first records have no :time or no :index is not split
 * at all (first_records_join): its halves could never join, and it would
 * be read twice.  Anything else makes the split give up, and the caller parses the whole
 * file, so that errors, their messages and their positions are those of
 * one parse.  The worker's part is read quietly (an error of the EDN there
 * is only a reason to give up); the backend's part of a file raises its
 * errors, as one parse would at the same bytes (a text's part gives up
 * quietly too: one parse of a whole text reports its errors its own way).
 * Where the cut is no record boundary after all (a "\n{" inside a
 * string), the backend's part does not end between records and the split
 * gives up.  A text's second half goes to the worker through a second
 * queue, a block at a time, between the blocks the backend parses.
 *
 * The worker's history comes back through a shared memory queue, in
 * messages of up to MESSAGE_BYTES: a header (its stats, counts and order)
 * and its orphans (the completions that may finish the backend's pending
 * invocations), from which the backend decides whether the parts join;
 * then the texts of its keys and values, its transactions, micro-ops and
 * list elements, which the backend appends to its own history a run at a
 * time as they arrive (iso_history_append_*: keys and values renumbered).
 * Worker and backend run the same binary, so the arrays travel as they are.
 *
 * A worker is used for files and texts of SPLIT_MIN_BYTES or more, when one may start
 * (iso_edn_worker_possible: max_parallel_workers_per_gather above 0, a
 * worker free, not in a serializable transaction).
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/parallel.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/shm_mq.h"
#include "storage/shm_toc.h"
#include "utils/memutils.h"

#include "history_edn.h"
#include "host.h"
#include "isograph.h"

PGDLLEXPORT void iso_edn_split_worker(dsm_segment *seg, shm_toc *toc);

/* The smallest file split: below it, a worker's start is not worth it. */
#define SPLIT_MIN_BYTES		((off_t) 16 * 1024 * 1024)
/* How far after the middle a record boundary is looked for, and how much
 * of the start is read for its first records (first_records_join). */
#define CUT_WINDOW			((size_t) 1024 * 1024)
#define QUEUE_BYTES			((Size) 8 * 1024 * 1024)
#define MESSAGE_BYTES		((Size) 1024 * 1024)
/* A text's second half goes to the worker a block at a time: four blocks of room. */
#define TEXT_QUEUE_BYTES	((Size) 4 * ISO_EDN_BLOCK_BYTES + 1024)

typedef struct SplitShared
{
	IsoWorkload expected;
	bool		from_text;		/* the text's queue, not the file at path */
	off_t		cut;
	char		path[FLEXIBLE_ARRAY_MEMBER];
} SplitShared;

/* What the worker's history is: the first message. */
typedef struct TailHeader
{
	bool		parsed;			/* false: the worker's part did not parse */
	EdnStats	stats;
	uint32		n_txns;
	uint32		n_ops;
	uint64		n_elems;
	uint32		n_keys;
	uint32		n_values;
	uint64		key_bytes;
	uint64		value_bytes;
	int32		n_orphans;
	bool		in_order;
	int64		last_txn_id;
} TailHeader;

/* ---------------------------------------------------------------------
 * The worker: parse the second part, send its history
 * --------------------------------------------------------------------- */

typedef struct Sender
{
	shm_mq_handle *mqh;
	StringInfoData msg;
} Sender;

static void
send_message(Sender *s)
{
	if (s->msg.len == 0)
		return;
	if (shm_mq_send(s->mqh, s->msg.len, s->msg.data, false, true) != SHM_MQ_SUCCESS)
		ereport(ERROR,
				(errcode(ERRCODE_QUERY_CANCELED),
				 errmsg("the backend stopped reading the history's second part")));
	resetStringInfo(&s->msg);
}

/* n bytes into the stream of messages. */
static void
send_bytes(Sender *s, const void *data, Size n)
{
	const char *p = data;

	while (n > 0)
	{
		Size		room = MESSAGE_BYTES - (Size) s->msg.len;
		Size		k = Min(room, n);

		appendBinaryStringInfo(&s->msg, p, (int) k);
		p += k;
		n -= k;
		if ((Size) s->msg.len == MESSAGE_BYTES)
			send_message(s);
	}
}

static void
send_strtab(Sender *s, const IsoStrTab *tab)
{
	send_bytes(s, tab->offsets, sizeof(uint64) * ((Size) tab->n + 1));
	send_bytes(s, tab->arena, (Size) tab->offsets[tab->n]);
}

void
iso_edn_split_worker(dsm_segment *seg, shm_toc *toc)
{
	EdnBlockSource text;
	SplitShared *shared = iso_edn_worker_attach(seg, toc, &text);
	Sender		s;
	TailHeader	hd;
	IsoEdnHistory tail;
	IsoParseError err;
	EdnStream  *stream;
	EdnReadSplit quiet = {true, false, NULL, 0};
	IsoHistory *h = &tail.h;
	MemoryContext cxt;

	s.mqh = iso_edn_worker_queue(seg, toc);
	initStringInfo(&s.msg);

	/* the second part's history is bounded as the backend's build is */
	cxt = AllocSetContextCreate(CurrentMemoryContext, "isograph EDN second part",
								ALLOCSET_DEFAULT_SIZES);
	iso_memory_limit_context(cxt);
	MemoryContextSwitchTo(cxt);
	memset(&hd, 0, sizeof(hd));
	iso_edn_history_begin(&tail);
	tail.keep_orphans = true;
	stream = edn_stream_begin(shared->expected, iso_edn_history_add, &tail, &hd.stats, &err);
	if (shared->from_text)
		hd.parsed = iso_edn_read_source_part(&text, stream, &err, &quiet);
	else
		hd.parsed = iso_edn_read_file_part(shared->path, shared->cut, -1, stream, &err, &quiet);
	edn_stream_free(stream);
	iso_history_end_input(h);
	/* an EDN history numbers each transaction's ops 0, 1, ...: no positions kept */
	if (h->op_pos != NULL)
		hd.parsed = false;
	if (hd.parsed)
	{
		hd.n_txns = h->n_txns;
		hd.n_ops = h->n_ops;
		hd.n_elems = h->n_elems;
		hd.n_keys = h->keys.n;
		hd.n_values = h->values.n;
		hd.key_bytes = h->keys.n > 0 ? h->keys.offsets[h->keys.n] : 0;
		hd.value_bytes = h->values.n > 0 ? h->values.offsets[h->values.n] : 0;
		hd.n_orphans = tail.n_orphans;
		hd.in_order = tail.in_order;
		hd.last_txn_id = tail.last_txn_id;
	}
	send_bytes(&s, &hd, sizeof(hd));
	if (hd.parsed)
	{
		/* the orphans first: the backend decides from them whether to take the rest */
		send_bytes(&s, tail.orphans, sizeof(IsoEdnOrphan) * (Size) tail.n_orphans);
		if (h->keys.n > 0)
			send_strtab(&s, &h->keys);
		if (h->values.n > 0)
			send_strtab(&s, &h->values);
		send_bytes(&s, h->txns, sizeof(IsoTxn) * (Size) h->n_txns);
		send_bytes(&s, h->ops, sizeof(IsoOp) * (Size) h->n_ops);
		send_bytes(&s, h->elems, sizeof(uint32) * (Size) h->n_elems);
	}
	send_message(&s);
	shm_mq_detach(s.mqh);
}

/* ---------------------------------------------------------------------
 * The backend: choose the cut, parse the first part, take the second
 * --------------------------------------------------------------------- */

/*
 * The first record boundary in buf[0..n) (a newline followed by '{' or
 * '#': Jepsen writes a record a line), as an offset of the input buf
 * begins at offset at of; -1 if none.
 */
static off_t
record_boundary(const char *buf, size_t n, off_t at)
{
	size_t		i;

	for (i = 0; i + 1 < n; i++)
		if (buf[i] == '\n' && (buf[i + 1] == '{' || buf[i + 1] == '#'))
			return at + (off_t) (i + 1);
	return -1;
}

static bool
ignore_txn(const EdnTxn *txn, void *arg)
{
	return true;
}

/*
 * Whether the first records of an input (text[0..len): its start) allow a
 * split: transactions without :time (the record order is then the clock)
 * or without :index (their ids are then positions) never join, and such an
 * input would be read twice.  A parse error is left to one parse.
 */
static bool
first_records_join(const char *text, size_t len, IsoWorkload expected)
{
	EdnStats	stats;
	IsoParseError err;
	EdnStream  *stream = edn_stream_begin(expected, ignore_txn, NULL, &stats, &err);
	EdnPending *pending = NULL;
	int32		n_pending;
	size_t		used;
	bool		ok;

	while (len > 0 && text[len - 1] != '\n')
		len--;
	ok = edn_stream_text(stream, text, len, &used) &&
		edn_stream_stop(stream, &pending, &n_pending) &&
		stats.time_source != ISO_TIME_RECORD_ORDER && stats.unindexed == 0;
	edn_stream_free(stream);
	if (pending)
		pfree(pending);
	if (!ok)
		elog(DEBUG1, "isograph: history read in one part: its first records have no :time or :index, or do not parse");
	return ok;
}

/*
 * Where to cut a file of size bytes: the first record boundary after its
 * middle, or -1 (also when its first records say the halves will not
 * join).  The backend's parse proves the cut a boundary (edn_stream_stop).
 */
static off_t
choose_cut(const char *path, off_t size, IsoWorkload expected)
{
	int			fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	char	   *buf;
	ssize_t		n;
	off_t		cut = -1;

	if (fd < 0)
		return -1;
	buf = palloc(CUT_WINDOW);
	n = pg_pread(fd, buf, CUT_WINDOW, 0);
	if (n > 0 && first_records_join(buf, (size_t) n, expected))
	{
		n = pg_pread(fd, buf, CUT_WINDOW, size / 2);
		if (n > 0)
			cut = record_boundary(buf, (size_t) n, size / 2);
	}
	pfree(buf);
	CloseTransientFile(fd);
	return cut;
}

/* The worker's messages read as one stream of bytes. */
typedef struct Receiver
{
	IsoEdnWorker w;
	const char *p;
	const char *end;
} Receiver;

static void
get_bytes(Receiver *r, void *out, Size n)
{
	char	   *w = out;

	while (n > 0)
	{
		Size		k;

		if (r->p == r->end)
		{
			Size		nbytes;
			void	   *data;

			if (shm_mq_receive(r->w.out, &nbytes, &data, false) != SHM_MQ_SUCCESS)
			{
				/* the worker stopped: its error is raised here */
				WaitForParallelWorkersToFinish(r->w.pcxt);
				elog(ERROR, "isograph: the parallel worker parsing a history's second part stopped without an error");
			}
			r->p = data;
			r->end = r->p + nbytes;
			CHECK_FOR_INTERRUPTS();
		}
		k = Min(n, (Size) (r->end - r->p));
		memcpy(w, r->p, k);
		w += k;
		r->p += k;
		n -= k;
	}
}

static void *
get_array(Receiver *r, Size elem, uint64 n)
{
	void	   *a = palloc_extended(Max(elem * n, 1), MCXT_ALLOC_HUGE);

	get_bytes(r, a, elem * n);
	return a;
}

/* A string table of n texts sent by send_strtab, interned in their order. */
static void
get_strtab(Receiver *r, IsoStrTab *tab, uint32 n, uint64 bytes)
{
	uint64	   *offsets;
	char	   *arena;
	uint32		i;

	iso_strtab_init(tab, Max(n, 1));
	if (n == 0)
		return;
	offsets = get_array(r, sizeof(uint64), (uint64) n + 1);
	arena = get_array(r, 1, bytes);
	if (offsets[n] != bytes)
		elog(ERROR, "isograph: a malformed message from the parallel worker parsing a history");
	for (i = 0; i < n; i++)
		if (iso_strtab_intern(tab, arena + offsets[i], (int32) (offsets[i + 1] - offsets[i])) != i)
			elog(ERROR, "isograph: a malformed message from the parallel worker parsing a history");
	pfree(offsets);
	pfree(arena);
}

/*
 * Start the worker on the part after cut of the file at path, or (text) of
 * a text whose blocks the backend sends it.
 */
static bool
launch_worker(Receiver *r, const char *path, off_t cut, IsoWorkload expected, bool text)
{
	Size		size = add_size(offsetof(SplitShared, path), strlen(path) + 1);
	SplitShared *shared = palloc(size);
	bool		ok;

	shared->expected = expected;
	shared->from_text = text;
	shared->cut = cut;
	strcpy(shared->path, path);
	ok = iso_edn_worker_launch(&r->w, "iso_edn_split_worker", shared, size, QUEUE_BYTES,
							   text ? TEXT_QUEUE_BYTES : 0);
	pfree(shared);
	r->p = r->end = NULL;
	return ok;
}

/* The parts of the worker's history, each appended as it comes. */
typedef enum
{
	PART_TXNS,
	PART_OPS,
	PART_ELEMS
} TailPart;

#define RUN_BYTES			((Size) 1024 * 1024)

static void
append_part(Receiver *r, IsoHistoryAppend *a, TailPart part, uint64 n)
{
	Size		elem = part == PART_TXNS ? sizeof(IsoTxn) :
		part == PART_OPS ? sizeof(IsoOp) : sizeof(uint32);
	uint64		per_run = RUN_BYTES / elem;
	void	   *run = palloc(RUN_BYTES);

	while (n > 0)
	{
		uint64		k = Min(n, per_run);

		get_bytes(r, run, (Size) (k * elem));
		switch (part)
		{
			case PART_TXNS:
				iso_history_append_txns(a, run, (uint32) k);
				break;
			case PART_OPS:
				iso_history_append_ops(a, run, (uint32) k);
				break;
			case PART_ELEMS:
				iso_history_append_elems(a, run, k);
				break;
		}
		n -= k;
		CHECK_FOR_INTERRUPTS();
	}
	pfree(run);
}

/*
 * Take the worker's history and join it to head (whose memory is
 * head_cxt): its header and orphans say whether the parts join; if they
 * do, its transactions, micro-ops and list elements are appended to
 * head's as they arrive (no copy of the worker's history is kept).  The
 * worker is ended.  what and cut: for the DEBUG message.
 */
static bool
join_tail(Receiver *r, IsoEdnHistory *head, MemoryContext head_cxt, EdnStats *stats,
		  EdnReadSplit *stop, const char *what, off_t cut)
{
	MemoryContext tail_cxt = AllocSetContextCreate(CurrentMemoryContext,
												   "isograph EDN second part",
												   ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(tail_cxt);
	TailHeader	hd;
	IsoEdnOrphan *orphans = NULL;
	bool		joined = false;

	get_bytes(r, &hd, sizeof(hd));
	if (hd.parsed)
	{
		orphans = get_array(r, sizeof(IsoEdnOrphan), (uint64) hd.n_orphans);
		joined = iso_edn_split_joinable(stats, stop->pending, stop->n_pending, &hd.stats,
										orphans, hd.n_orphans);
	}
	if (joined)
	{
		IsoStrTab	keys;
		IsoStrTab	values;
		IsoHistoryAppend a;
		uint32		base_txn = head->h.n_txns;

		get_strtab(r, &keys, hd.n_keys, hd.key_bytes);
		get_strtab(r, &values, hd.n_values, hd.value_bytes);
		MemoryContextSwitchTo(head_cxt);
		iso_history_end_input(&head->h);
		iso_history_append_begin(&a, &head->h, &keys, &values, hd.n_txns, hd.n_ops, hd.n_elems);
		MemoryContextSwitchTo(tail_cxt);
		append_part(r, &a, PART_TXNS, hd.n_txns);
		append_part(r, &a, PART_OPS, hd.n_ops);
		append_part(r, &a, PART_ELEMS, hd.n_elems);
		iso_history_append_end(&a);
		iso_edn_history_joined(head, stats, stop->pending, stop->n_pending, orphans,
							   hd.n_orphans, base_txn, hd.in_order, hd.last_txn_id, &hd.stats);
	}
	MemoryContextSwitchTo(old);
	iso_edn_worker_end(&r->w);
	MemoryContextDelete(tail_cxt);
	if (stop->pending)
		pfree(stop->pending);
	if (joined)
		elog(DEBUG1, "isograph: history %s parsed in two parts, cut at byte %lld",
			 what, (long long) cut);
	else
		elog(DEBUG1, "isograph: history %s read again in one part: its parts do not join", what);
	return joined;
}

bool
iso_edn_read_file_split(const char *path, IsoWorkload expected,
						EdnTxnCallback callback, void *arg,
						IsoEdnHistory *head, MemoryContext head_cxt, EdnStats *stats)
{
	struct stat st;
	off_t		cut;
	Receiver	r;
	EdnStream  *stream;
	IsoParseError err;
	EdnReadSplit stop = {false, true, NULL, 0};

	if (!iso_edn_worker_possible())
		return false;
	iso_check_read_server_files();
	/* a small file, or one that cannot be read: one parse (and its errors) */
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < SPLIT_MIN_BYTES)
		return false;
	cut = choose_cut(path, st.st_size, expected);
	if (cut < 0)
		return false;
	if (!launch_worker(&r, path, cut, expected, false))
		return false;

	/* the first part, meanwhile: its errors are one parse's */
	stream = edn_stream_begin(expected, callback, arg, stats, &err);
	if (!iso_edn_read_file_part(path, 0, cut, stream, &err, &stop))
	{
		edn_stream_free(stream);
		iso_edn_worker_end(&r.w);
		elog(DEBUG1, "isograph: history file read again in one part: no record boundary at byte %lld",
			 (long long) cut);
		return false;
	}
	edn_stream_free(stream);
	return join_tail(&r, head, head_cxt, stats, &stop, "file", cut);
}

/* The same for a text. */
static off_t
choose_text_cut(const char *text, size_t len, IsoWorkload expected)
{
	if (!first_records_join(text, Min(len, CUT_WINDOW), expected))
		return -1;
	return record_boundary(text + len / 2, Min(len - len / 2, CUT_WINDOW), (off_t) (len / 2));
}

/*
 * Send the worker the text's blocks from *sent on, as many as its queue
 * takes now (or, wait, all of them); the end of the text detaches the
 * queue.  A send that would block is repeated with the same bytes.  A
 * worker gone stops the sending: its reason is read with its history.
 */
static void
send_text(shm_mq_handle **text_mqh, const char *text, size_t len, size_t *sent, bool wait)
{
	while (*text_mqh != NULL && *sent < len)
	{
		size_t		n = Min(ISO_EDN_BLOCK_BYTES, len - *sent);
		shm_mq_result res = shm_mq_send(*text_mqh, n, text + *sent, !wait, true);

		if (res == SHM_MQ_WOULD_BLOCK)
			return;
		if (res == SHM_MQ_DETACHED)
			break;
		*sent += n;
	}
	if (*text_mqh != NULL)
	{
		shm_mq_detach(*text_mqh);
		*text_mqh = NULL;
	}
}

bool
iso_edn_parse_text_split(const char *text, size_t len, IsoWorkload expected,
						 EdnTxnCallback callback, void *arg,
						 IsoEdnHistory *head, MemoryContext head_cxt, EdnStats *stats)
{
	off_t		cut;
	Receiver	r;
	EdnStream  *stream;
	IsoParseError err;
	EdnReadSplit stop = {false, true, NULL, 0};
	size_t		used_all = 0;
	size_t		fed = 0;
	size_t		sent;
	bool		ok = true;

	if (!iso_edn_worker_possible() || len < (size_t) SPLIT_MIN_BYTES)
		return false;
	cut = choose_text_cut(text, len, expected);
	if (cut < 0)
		return false;
	if (!launch_worker(&r, "", cut, expected, true))
		return false;
	sent = (size_t) cut;

	/*
	 * The first part, fed a block of whole lines at a time where it lies,
	 * and between blocks as much of the second as the worker takes.  Its
	 * errors only make the split give up: one parse of the whole text
	 * raises them, as it reports them (iso_report_edn_error).
	 */
	stream = edn_stream_begin(expected, callback, arg, stats, &err);
	while (ok && fed < (size_t) cut)
	{
		size_t		upto = Min((size_t) cut, fed + ISO_EDN_BLOCK_BYTES);
		size_t		used;

		while (upto < (size_t) cut && text[upto - 1] != '\n')
			upto++;
		ok = edn_stream_text(stream, text + used_all, upto - used_all, &used);
		used_all += used;
		fed = upto;
		send_text(&r.w.in, text, len, &sent, false);
		CHECK_FOR_INTERRUPTS();
	}
	ok = ok && used_all == (size_t) cut &&
		edn_stream_stop(stream, &stop.pending, &stop.n_pending);
	edn_stream_free(stream);
	if (!ok)
	{
		iso_edn_worker_end(&r.w);
		elog(DEBUG1, "isograph: history text read again in one part: no record boundary at byte %lld",
			 (long long) cut);
		return false;
	}
	send_text(&r.w.in, text, len, &sent, true);
	return join_tail(&r, head, head_cxt, stats, &stop, "text", cut);
}
