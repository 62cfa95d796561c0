/*
 * edn_parallel.c
 *	  EDN parsed by a parallel worker while the backend stores what it
 *	  parsed (iso_load_jepsen_file, iso_load_jepsen).
 *
 * A stored load spends about a third of its time reading and parsing the
 * EDN, the rest packing and writing the events and building the image; a
 * backend alone does one after the other, on one core.  Here one parallel
 * worker parses: a file on the server it reads itself (edn_file.c,
 * unchanged), a text of the backend's it is sent a block (1 MB) at a time
 * through a second queue, and it reads those blocks as it would the file's.
 * It sends the transactions its parser produces, in batches, through a
 * shared memory queue; the backend (the leader) turns each back into an
 * EdnTxn and gives it to the callback the serial load uses, in the same
 * order.  So the rows stored are the serial load's, byte for byte.
 *
 * A stored load of packed events (0.5.0) asks for chunks instead: the
 * worker packs the transactions' events with the event store's own writer
 * (event_chunk.c) and sends each chunk when it is full, where the serial
 * load's store would write it; the leader writes the chunk
 * (iso_event_store_add_chunk) and adds its events to the image's history
 * as a check reads a stored chunk (iso_history_add_packed).  Packing the
 * events and decoding the transactions the worker had encoded were more
 * than a third of the leader's time, the side that bounded the load
 * (docs/performance.md).
 *
 * The worker is PostgreSQL's own parallel machinery (access/parallel.h):
 * it runs as the calling role, in the same database, with the same
 * settings; an error it raises (a parse error, an unreadable file) is
 * raised again in the leader with its message, detail, hint and context,
 * PostgreSQL adding the context line "parallel worker"; when the leader
 * stops (an error, a cancel), PostgreSQL stops the worker.  The leader
 * writes while in parallel mode, which PostgreSQL allows the leader (not
 * a worker): its transaction id is taken first, the load's queries run
 * before (history row, lock, the chunk writer), and only rows are inserted
 * during it, no commands.
 *
 * The in-memory checks (iso_levels_jepsen_file, iso_levels_jepsen) do not
 * use this reader: a worker parsing all of it while the backend only built
 * the history bought them nothing, so they parse in two halves at once
 * instead (edn_split.c, docs/performance.md).
 *
 * No worker is used for a file or text under EDN_PARALLEL_MIN_BYTES (a
 * worker takes 5-20 ms to start, longer than such a text takes to parse),
 * when max_parallel_workers_per_gather is 0, when none is free
 * (max_parallel_workers, max_worker_processes), in a serializable
 * transaction, or in a backend already in parallel mode; the caller then
 * parses the EDN itself.
 *
 * A text block on its queue: up to 1 MB of the text, the end of the text
 * when the backend detaches from the queue.
 *
 * A batch on the queue: 'T', then transactions, each
 *	  txn_id, process, invoke_time, complete_time, record, line (int64),
 *	  flags (uint8: has_process, has_invoke_time, has_complete_time),
 *	  status (uint8), n_ops (uint32),
 *	  and each op: kind (uint8), list_len (int32), key, value, read_value
 *	  and list_len elements, each a text: length + 1 as a varint (0 = no
 *	  text), then its bytes.
 * A chunk, instead of the batches when the leader asks for chunks: 'C',
 * its IsoChunkMeta, its bytes.
 * The last message: 'S', the parser's EdnStats and whether the EDN held
 * more than white space.
 */
#include "postgres.h"

#include <sys/stat.h>

#include "access/parallel.h"
#include "access/xact.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "optimizer/cost.h"
#include "storage/proc.h"
#include "storage/shm_mq.h"
#include "storage/shm_toc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/wait_event.h"

#include "event_chunk.h"
#include "isograph.h"
#include "text.h"

PGDLLEXPORT void iso_edn_file_worker(dsm_segment *seg, shm_toc *toc);

#define KEY_SHARED		UINT64CONST(0x150E0F11E0000001)
#define KEY_QUEUE		UINT64CONST(0x150E0F11E0000002)
#define KEY_TEXT_QUEUE	UINT64CONST(0x150E0F11E0000003)

/* The smallest file or text read by a worker: a block of the reader. */
#define EDN_PARALLEL_MIN_BYTES	ISO_EDN_BLOCK_BYTES

/* The queue: room for the worker to run ahead of the leader. */
#define QUEUE_BYTES		((Size) 8 * 1024 * 1024)
/* The text's queue, the other way: eight blocks (run_reader keeps it full). */
#define TEXT_QUEUE_BYTES	((Size) 8 * ISO_EDN_BLOCK_BYTES + 1024)
/* A batch is sent once it holds this much. */
#define BATCH_BYTES		(256 * 1024)

typedef struct EdnFileShared
{
	IsoWorkload expected;
	bool		from_text;		/* the text's queue, not a file at path */
	bool		pack_events;	/* send the events' chunks, not the transactions */
	char		path[FLEXIBLE_ARRAY_MEMBER];
} EdnFileShared;

/* ---------------------------------------------------------------------
 * The worker: parse, encode, send
 * --------------------------------------------------------------------- */

typedef struct Sender
{
	shm_mq_handle *mqh;
	StringInfoData batch;
	IsoChunkWriter *chunk;		/* the events packed here (no batches), or NULL */
} Sender;

static void
send_message(Sender *s)
{
	if (shm_mq_send(s->mqh, s->batch.len, s->batch.data, false, true) != SHM_MQ_SUCCESS)
		ereport(ERROR,
				(errcode(ERRCODE_QUERY_CANCELED),
				 errmsg("the backend stopped reading the history's transactions")));
	resetStringInfo(&s->batch);
}

/*
 * The batch is written through a cursor into room reserved up front (the
 * 55M list elements of a 1M-transaction history make a call and a check
 * per element too dear for appendBinaryStringInfo).
 */
static inline char *
reserve(StringInfo b, Size n)
{
	if ((Size) (b->maxlen - b->len) <= n)
		enlargeStringInfo(b, (int) n);
	return b->data + b->len;
}

static inline char *
put_varint(char *w, uint32 v)
{
	while (v >= 0x80)
	{
		*w++ = (char) (v | 0x80);
		v >>= 7;
	}
	*w++ = (char) v;
	return w;
}

/* The most a text takes: its length + 1 (up to 5 bytes), its bytes. */
#define SLICE_MAX(s)	(5 + (Size) ((s).ptr ? (s).len : 0))

static inline char *
put_slice(char *w, IsoSlice s)
{
	if (s.ptr == NULL)
		return put_varint(w, 0);
	w = put_varint(w, (uint32) s.len + 1);
	iso_copy_bytes(w, s.ptr, s.len);
	return w + s.len;
}

/* The chunk packed so far, as one message, if it has rows. */
static void
send_chunk(Sender *s)
{
	IsoChunkMeta meta;
	shm_mq_iovec iov[3];
	const uint8 *data;
	size_t		len;
	char		tag = 'C';

	if (s->chunk->nrows == 0)
		return;
	data = iso_chunk_writer_data(s->chunk, &len);
	iso_chunk_writer_meta(s->chunk, &meta);
	iov[0].data = &tag;
	iov[0].len = 1;
	iov[1].data = (const char *) &meta;
	iov[1].len = sizeof(meta);
	iov[2].data = (const char *) data;
	iov[2].len = len;
	if (shm_mq_sendv(s->mqh, iov, 3, false, true) != SHM_MQ_SUCCESS)
		ereport(ERROR,
				(errcode(ERRCODE_QUERY_CANCELED),
				 errmsg("the backend stopped reading the history's transactions")));
	iso_chunk_writer_reset(s->chunk);
}

/* The events of txn into the chunk, sent each time it is full. */
static void
pack_txn(Sender *s, const EdnTxn *txn)
{
	int32		i;

	for (i = 0; i < txn->n_ops; i++)
	{
		IsoEventRow row;

		iso_event_of_txn(txn, i, &row);
		iso_chunk_writer_add(s->chunk, &row);
		if (iso_chunk_writer_full(s->chunk))
			send_chunk(s);
	}
}

/* The worker's EdnTxnCallback: txn into the batch, sent once it is full. */
static bool
send_txn(const EdnTxn *txn, void *arg)
{
	Sender	   *s = arg;
	StringInfo	b = &s->batch;
	int64		head[6];
	uint32		n_ops = (uint32) txn->n_ops;
	char	   *w;
	int32		i;

	if (s->chunk != NULL)
	{
		pack_txn(s, txn);
		return true;
	}
	w = reserve(b, 1 + sizeof(head) + 2 + sizeof(n_ops));
	if (b->len == 0)
		*w++ = 'T';
	head[0] = txn->txn_id;
	head[1] = txn->process;
	head[2] = txn->invoke_time;
	head[3] = txn->complete_time;
	head[4] = txn->record;
	head[5] = txn->line;
	memcpy(w, head, sizeof(head));
	w += sizeof(head);
	*w++ = (char) ((txn->has_process ? 1 : 0) | (txn->has_invoke_time ? 2 : 0) |
				   (txn->has_complete_time ? 4 : 0));
	*w++ = (char) txn->status;
	memcpy(w, &n_ops, sizeof(n_ops));
	w += sizeof(n_ops);
	b->len = (int) (w - b->data);

	for (i = 0; i < txn->n_ops; i++)
	{
		const EdnOp *op = &txn->ops[i];
		Size		need = 1 + sizeof(int32) + SLICE_MAX(op->key) +
			SLICE_MAX(op->value) + SLICE_MAX(op->read_value);
		int32		j;

		for (j = 0; j < op->list_len; j++)
			need += SLICE_MAX(op->list[j]);
		w = reserve(b, need);
		*w++ = (char) op->op;
		memcpy(w, &op->list_len, sizeof(int32));
		w += sizeof(int32);
		w = put_slice(w, op->key);
		w = put_slice(w, op->value);
		w = put_slice(w, op->read_value);
		for (j = 0; j < op->list_len; j++)
			w = put_slice(w, op->list[j]);
		b->len = (int) (w - b->data);
	}
	if (b->len >= BATCH_BYTES)
		send_message(s);
	return true;
}

/* An EdnBlockSource's read: the next block of the backend's text, 0 at its end. */
size_t
iso_edn_read_text_block(void *arg, char *buf, size_t max)
{
	Size		nbytes;
	void	   *data;

	if (shm_mq_receive((shm_mq_handle *) arg, &nbytes, &data, false) != SHM_MQ_SUCCESS)
		return 0;				/* the backend sent it all and detached */
	if (nbytes > max || nbytes == 0)
		elog(ERROR, "isograph: a block of %zu bytes from the backend, expected 1 to %zu",
			 (size_t) nbytes, max);
	memcpy(buf, data, nbytes);
	return nbytes;
}

void
iso_edn_file_worker(dsm_segment *seg, shm_toc *toc)
{
	EdnBlockSource text;
	EdnFileShared *shared = iso_edn_worker_attach(seg, toc, &text);
	Sender		s;
	EdnStats	stats;
	IsoParseError err;
	EdnStream  *stream;
	bool		saw_text;

	s.mqh = iso_edn_worker_queue(seg, toc);
	initStringInfo(&s.batch);
	s.chunk = NULL;
	if (shared->pack_events)
	{
		s.chunk = palloc(sizeof(IsoChunkWriter));
		iso_chunk_writer_init(s.chunk, GetDatabaseEncoding());
	}

	stream = edn_stream_begin(shared->expected, send_txn, &s, &stats, &err);
	if (shared->from_text)
		iso_edn_read_blocks(&text, stream, &err, &saw_text);
	else
		iso_edn_read_file(shared->path, stream, &err, &saw_text);
	edn_stream_free(stream);
	if (s.batch.len > 0)
		send_message(&s);
	if (s.chunk != NULL)
		send_chunk(&s);

	appendStringInfoChar(&s.batch, 'S');
	appendBinaryStringInfo(&s.batch, (const char *) &stats, sizeof(stats));
	appendStringInfoChar(&s.batch, saw_text ? 1 : 0);
	send_message(&s);
	shm_mq_detach(s.mqh);
}

/* ---------------------------------------------------------------------
 * The leader: receive, decode, add
 * --------------------------------------------------------------------- */

/* A batch being read, and the ops and texts of its current transaction. */
typedef struct Receiver
{
	const char *p;
	const char *end;
	EdnOp	   *ops;
	int32		cap_ops;
	IsoSlice   *texts;
	Size		cap_texts;
} Receiver;

static void pg_attribute_noreturn()
bad_message(void)
{
	elog(ERROR, "isograph: a malformed message from the parallel worker parsing a history");
}

static inline void
get_bytes(Receiver *r, void *out, Size n)
{
	if ((Size) (r->end - r->p) < n)
		bad_message();
	memcpy(out, r->p, n);
	r->p += n;
}

static inline IsoSlice
get_slice(Receiver *r)
{
	IsoSlice	s = {NULL, 0};
	uint32		v = 0;
	int			shift = 0;

	for (;;)
	{
		uint8		c;

		if (r->p >= r->end || shift > 28)
			bad_message();
		c = (uint8) *r->p++;
		v |= (uint32) (c & 0x7F) << shift;
		if (c < 0x80)
			break;
		shift += 7;
	}
	if (v == 0)
		return s;
	if ((Size) (r->end - r->p) < v - 1)
		bad_message();
	s.ptr = r->p;
	s.len = (int32) (v - 1);
	r->p += v - 1;
	return s;
}

/* The texts of n more list elements. */
static IsoSlice *
reserve_texts(Receiver *r, Size used, Size n)
{
	if (used + n > r->cap_texts)
	{
		Size		cap = Max(r->cap_texts * 2, used + n);

		r->texts = r->texts ? repalloc_huge(r->texts, cap * sizeof(IsoSlice)) :
			palloc_extended(cap * sizeof(IsoSlice), MCXT_ALLOC_HUGE);
		r->cap_texts = cap;
	}
	return r->texts + used;
}

/* Decode one transaction of the batch into txn (valid until the next). */
static void
get_txn(Receiver *r, EdnTxn *txn)
{
	int64		head[6];
	uint8		flags;
	uint8		status;
	uint32		n_ops;
	Size		used = 0;
	uint32		i;

	get_bytes(r, head, sizeof(head));
	get_bytes(r, &flags, 1);
	get_bytes(r, &status, 1);
	get_bytes(r, &n_ops, sizeof(n_ops));
	if (n_ops > (uint32) PG_INT32_MAX / sizeof(EdnOp))
		bad_message();
	if ((int32) n_ops > r->cap_ops)
	{
		r->cap_ops = Max((int32) n_ops, r->cap_ops * 2);
		r->ops = r->ops ? repalloc(r->ops, sizeof(EdnOp) * r->cap_ops) :
			palloc(sizeof(EdnOp) * r->cap_ops);
	}
	txn->txn_id = head[0];
	txn->process = head[1];
	txn->invoke_time = head[2];
	txn->complete_time = head[3];
	txn->record = head[4];
	txn->line = head[5];
	txn->has_process = (flags & 1) != 0;
	txn->has_invoke_time = (flags & 2) != 0;
	txn->has_complete_time = (flags & 4) != 0;
	txn->status = (IsoStatus) status;
	txn->n_ops = (int32) n_ops;
	txn->ops = r->ops;

	/* the list texts of all ops first, then point each op at its own */
	for (i = 0; i < n_ops; i++)
	{
		EdnOp	   *op = &r->ops[i];
		uint8		kind;
		int32		j;

		get_bytes(r, &kind, 1);
		op->op = (IsoOpKind) kind;
		get_bytes(r, &op->list_len, sizeof(int32));
		op->key = get_slice(r);
		op->value = get_slice(r);
		op->read_value = get_slice(r);
		op->list = NULL;
		if (op->list_len > 0)
		{
			IsoSlice   *t = reserve_texts(r, used, (Size) op->list_len);

			for (j = 0; j < op->list_len; j++)
				t[j] = get_slice(r);
			op->list = (IsoSlice *) (uintptr_t) used;	/* an index for now */
			used += (Size) op->list_len;
		}
	}
	for (i = 0; i < n_ops; i++)
		if (r->ops[i].list_len > 0)
			r->ops[i].list = r->texts + (Size) (uintptr_t) r->ops[i].list;
}

/* One worker of a file or text (as IsoEdnWorker: the transactions come out, the text goes in). */
typedef IsoEdnWorker Reader;

static bool
launch_reader(Reader *rd, const char *path, bool from_text, IsoWorkload expected,
			  bool pack_events)
{
	Size		size = add_size(offsetof(EdnFileShared, path), strlen(path) + 1);
	EdnFileShared *shared = palloc(size);
	bool		ok;

	shared->expected = expected;
	shared->from_text = from_text;
	shared->pack_events = pack_events;
	strcpy(shared->path, path);
	ok = iso_edn_worker_launch(rd, "iso_edn_file_worker", shared, size, QUEUE_BYTES,
							   from_text ? TEXT_QUEUE_BYTES : 0);
	pfree(shared);
	return ok;
}

/* The worker stopped early: its error, raised here (or one of ours). */
static void pg_attribute_noreturn()
worker_stopped(Reader *rd)
{
	WaitForParallelWorkersToFinish(rd->pcxt);
	elog(ERROR, "isograph: the parallel worker parsing a history stopped without an error");
}

/*
 * Take what the worker sends, giving each transaction to callback, until
 * its last message; meanwhile send it text[0..len) a block at a time (a
 * text source).  Neither queue is waited on alone: the worker may wait to
 * send transactions while the backend has text left to send, and the other
 * way round.
 */
static void
run_reader(Reader *rd, const char *text, size_t len, EdnTxnCallback callback,
		   IsoPackedChunkCallback chunk_callback, void *arg, EdnStats *stats, bool *saw_text)
{
	Receiver	r;
	size_t		sent = 0;
	bool		done = false;

	memset(&r, 0, sizeof(r));
	while (!done)
	{
		bool		progress = false;
		Size		nbytes;
		void	   *data;
		shm_mq_result res;

		/*
		 * As many blocks as the queue takes: the callback of the message
		 * below may keep the backend away for longer than one block lasts
		 * the worker (a chunk is about a block of text; an image part
		 * takes several chunks' time), and a worker without text waits.
		 */
		while (rd->in != NULL)
		{
			size_t		n = Min(ISO_EDN_BLOCK_BYTES, len - sent);

			/* a send that would block is repeated with the same bytes */
			res = shm_mq_send(rd->in, n, text + sent, true, true);
			if (res == SHM_MQ_DETACHED)
				worker_stopped(rd);
			if (res != SHM_MQ_SUCCESS)
				break;
			sent += n;
			progress = true;
			if (sent == len)
			{
				shm_mq_detach(rd->in);	/* the end of the text */
				rd->in = NULL;
			}
		}

		res = shm_mq_receive(rd->out, &nbytes, &data, true);
		if (res == SHM_MQ_DETACHED)
			worker_stopped(rd);
		if (res == SHM_MQ_SUCCESS)
		{
			progress = true;
			if (nbytes == 0)
				bad_message();
			r.p = (const char *) data + 1;
			r.end = (const char *) data + nbytes;
			switch (*(const char *) data)
			{
				case 'T':
					if (chunk_callback != NULL)
						bad_message();
					while (r.p < r.end)
					{
						EdnTxn		txn;

						get_txn(&r, &txn);
						/* the load's callback never stops the parse */
						(void) callback(&txn, arg);
					}
					break;
				case 'C':
					{
						IsoChunkMeta meta;

						get_bytes(&r, &meta, sizeof(meta));
						if (chunk_callback == NULL || r.end - r.p < ISO_CHUNK_HEADER_SIZE)
							bad_message();
						chunk_callback(&meta, (const uint8 *) r.p, (size_t) (r.end - r.p), arg);
					}
					break;
				case 'S':
					{
						uint8		saw;

						get_bytes(&r, stats, sizeof(*stats));
						get_bytes(&r, &saw, 1);
						*saw_text = saw != 0;
					}
					done = true;
					break;
				default:
					bad_message();
			}
		}

		if (!progress)
		{
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH, -1,
							 WAIT_EVENT_MQ_RECEIVE);
			ResetLatch(MyLatch);
		}
		CHECK_FOR_INTERRUPTS();
	}

	WaitForParallelWorkersToFinish(rd->pcxt);
	iso_edn_worker_end(rd);
	if (r.ops)
		pfree(r.ops);
	if (r.texts)
		pfree(r.texts);
}

/* Whether this backend may start a worker now (see the top). */
bool
iso_edn_worker_possible(void)
{
	return max_parallel_workers_per_gather > 0 && !IsInParallelMode() &&
		!IsolationIsSerializable() && ActiveSnapshotSet();
}

/* ---------------------------------------------------------------------
 * One parallel worker of EDN, for this file and edn_split.c
 * --------------------------------------------------------------------- */

bool
iso_edn_worker_launch(IsoEdnWorker *w, const char *function, const void *shared, Size size,
					  Size out_bytes, Size in_bytes)
{
	ParallelContext *pcxt;
	shm_mq	   *mq;
	shm_mq	   *text_mq = NULL;

	EnterParallelMode();
	pcxt = CreateParallelContext("isograph", function, 1);
	shm_toc_estimate_chunk(&pcxt->estimator, size);
	shm_toc_estimate_chunk(&pcxt->estimator, out_bytes);
	if (in_bytes > 0)
		shm_toc_estimate_chunk(&pcxt->estimator, in_bytes);
	shm_toc_estimate_keys(&pcxt->estimator, in_bytes > 0 ? 3 : 2);
	InitializeParallelDSM(pcxt);
	if (pcxt->seg == NULL)
	{
		/* no dynamic shared memory: no worker either */
		DestroyParallelContext(pcxt);
		ExitParallelMode();
		return false;
	}

	shm_toc_insert(pcxt->toc, KEY_SHARED, memcpy(shm_toc_allocate(pcxt->toc, size), shared, size));
	mq = shm_mq_create(shm_toc_allocate(pcxt->toc, out_bytes), out_bytes);
	shm_toc_insert(pcxt->toc, KEY_QUEUE, mq);
	shm_mq_set_receiver(mq, MyProc);
	if (in_bytes > 0)
	{
		text_mq = shm_mq_create(shm_toc_allocate(pcxt->toc, in_bytes), in_bytes);
		shm_toc_insert(pcxt->toc, KEY_TEXT_QUEUE, text_mq);
		shm_mq_set_sender(text_mq, MyProc);
	}

	LaunchParallelWorkers(pcxt);
	if (pcxt->nworkers_launched == 0)
	{
		DestroyParallelContext(pcxt);
		ExitParallelMode();
		return false;
	}
	w->pcxt = pcxt;
	w->out = shm_mq_attach(mq, pcxt->seg, pcxt->worker[0].bgwhandle);
	w->in = text_mq ? shm_mq_attach(text_mq, pcxt->seg, pcxt->worker[0].bgwhandle) : NULL;
	return true;
}

void
iso_edn_worker_end(IsoEdnWorker *w)
{
	DestroyParallelContext(w->pcxt);
	ExitParallelMode();
	w->pcxt = NULL;
}

void *
iso_edn_worker_attach(dsm_segment *seg, shm_toc *toc, EdnBlockSource *text)
{
	shm_mq	   *text_mq = shm_toc_lookup(toc, KEY_TEXT_QUEUE, true);

	memset(text, 0, sizeof(*text));
	if (text_mq != NULL)
	{
		shm_mq_set_receiver(text_mq, MyProc);
		text->read = iso_edn_read_text_block;
		text->arg = shm_mq_attach(text_mq, seg, NULL);
		text->name = "the EDN text";
		text->max_line = MaxAllocHugeSize;	/* a text has no line limit */
	}
	return shm_toc_lookup(toc, KEY_SHARED, false);
}

shm_mq_handle *
iso_edn_worker_queue(dsm_segment *seg, shm_toc *toc)
{
	shm_mq	   *mq = shm_toc_lookup(toc, KEY_QUEUE, false);

	shm_mq_set_sender(mq, MyProc);
	return shm_mq_attach(mq, seg, NULL);
}

bool
iso_edn_read_file_parallel(const char *path, IsoWorkload expected,
						   EdnTxnCallback callback, IsoPackedChunkCallback chunk_callback,
						   void *arg, EdnStats *stats, bool *saw_text)
{
	Reader		rd;
	struct stat st;

	if (!iso_edn_worker_possible())
		return false;
	/* refused before anything is looked at (the worker checks again) */
	iso_check_read_server_files();
	/* a small file, or one that cannot be read: the serial path (its errors) */
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
		st.st_size < (off_t) EDN_PARALLEL_MIN_BYTES)
		return false;
	if (!launch_reader(&rd, path, false, expected, chunk_callback != NULL))
		return false;
	run_reader(&rd, NULL, 0, callback, chunk_callback, arg, stats, saw_text);
	return true;
}

bool
iso_edn_read_text_parallel(const char *text, size_t len, IsoWorkload expected,
						   EdnTxnCallback callback, IsoPackedChunkCallback chunk_callback,
						   void *arg, EdnStats *stats)
{
	Reader		rd;
	bool		saw_text;

	if (!iso_edn_worker_possible() || len < EDN_PARALLEL_MIN_BYTES)
		return false;
	if (!launch_reader(&rd, "", true, expected, chunk_callback != NULL))
		return false;
	run_reader(&rd, text, len, callback, chunk_callback, arg, stats, &saw_text);
	return true;
}
