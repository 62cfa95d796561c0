/*
 * image_store.c
 *	  History images in iso_history_image: writing them (iso_load_jepsen,
 *	  iso_save_image), reading them back for a check, and outdating them
 *	  when iso_event changes (the iso_event_changed triggers).
 *
 * An image is a cache of what reading iso_event would give (image.h).
 * Soundness rests on four things:
 *
 * - Only this file writes images: no role has INSERT or UPDATE on the
 *   table, and the writer builds them from events the caller can read.
 * - One lock per history, taken first: every writer of a history's rows
 *   locks the history's iso_history row FOR NO KEY UPDATE
 *   (iso_history_lock) before it reads or writes them: iso_save_image,
 *   iso_load_jepsen, iso_load_versions, iso_materialize_graph, and for any
 *   INSERT, UPDATE, DELETE or COPY on iso_event the row triggers' WHEN
 *   function, iso_history_has_image(), for every row's history, image or
 *   not (once per history and (sub)transaction, so a COPY of a new history
 *   pays one cached test per row).  iso_delete_history deletes the row
 *   (FOR UPDATE, stronger) before its cascade reaches the other tables.
 * - Any change to a history's events outdates its image in the same
 *   transaction: after taking the lock, iso_history_has_image() looks for
 *   an image with the latest snapshot and, if there is one, the trigger
 *   bumps iso_history.events_rev and drops the image.  (Statement triggers
 *   with transition tables would copy every inserted row: a 10M-transaction
 *   COPY spilled gigabytes.)
 * - iso_save_image takes the lock by updating the row (events_rev =
 *   events_rev, a new row version), runs only under READ COMMITTED and
 *   reads the events with a snapshot taken after the lock.  Take a saver S
 *   and a writer W of the same history: one of them gets the lock first.
 *   If W does, S waits for W to end, and its snapshot holds all of W's rows
 *   if W committed (also the rows W stored before its trigger took the
 *   lock: they are W's, committed with it).  If S does, W waits for S to
 *   end; under READ COMMITTED it then sees S's image and drops it in its
 *   own transaction; under REPEATABLE READ or SERIALIZABLE its lock finds a
 *   row version newer than its snapshot and fails to serialize, so its rows
 *   never commit.  Either way a committed image holds every committed event
 *   of its history.  A check reads the history row, the image and the
 *   events under one snapshot and uses an image only if its events_rev is
 *   current, it fits this build's layout, its checksums match and every id
 *   in it is in bounds.
 *
 * Only the one history's row is locked: loads and checks of other
 * histories never wait for a saver (a table lock on iso_event did that
 * until 0.3.0).  The lock order is the same everywhere: the history row
 * first, then its rows in other tables; a transaction that writes several
 * histories orders them itself.  TRUNCATE iso_event is the one exception:
 * it holds the table's lock and then drops every image the caller can see,
 * without touching iso_history rows (a saver holding a history row waits
 * for that table lock before it writes anything, so nothing waits in a
 * cycle); its events are gone for every later snapshot.
 *
 * The checksums (CRC-32C, one per section and one of the header) are what
 * turn damage into a WARNING: the bounds checks alone let a changed byte
 * in a txn's status or an op's value through, and such an image gives
 * other verdicts than the events.  They are computed here rather than in
 * image.c because pg_crc32c is the server's (image.c builds without it).
 */
#include "postgres.h"

#include "miscadmin.h"

#include "catalog/pg_type.h"
#include "access/genam.h"
#include "access/table.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "commands/trigger.h"
#include "utils/hsearch.h"
#include "storage/proc.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "port/pg_crc32c.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "check.h"
#include "image.h"
#include "isograph.h"

PG_FUNCTION_INFO_V1(iso_save_image);
PG_FUNCTION_INFO_V1(iso_history_has_image);
PG_FUNCTION_INFO_V1(iso_event_changed);

/*
 * Sections are stored in parts of at most this size.  Small enough that
 * the buffer each part is detoasted into is reused from one part to the
 * next (malloc serves blocks this size from its heap once one was freed),
 * instead of a fresh mapping whose pages all fault on first touch.
 */
#define IMAGE_PART_BYTES	((uint64) 4 * 1024 * 1024)

/* Columns of iso_history_image. */
enum
{
	IMAGE_HISTORY_ID = 1,
	IMAGE_SECTION,
	IMAGE_PART,
	IMAGE_DATA,
	IMAGE_NATTS = IMAGE_DATA
};

static void forget_image_state(void);

/*
 * Run "<verb> <table><rest> WHERE history_id = $1" for the rows of one
 * history, as the tables' owner: roles cannot update events_rev or delete
 * images (docs/security.md).  The callers are the triggers on the events,
 * for rows the caller could write, and the image writers, for a history
 * they have looked up and locked as the caller.
 */
static void
exec_for_history(const char *verb, IsoTable table, const char *rest,
				 int64 history_id, int expected)
{
	Oid			argtypes[1] = {INT8OID};
	Datum		args[1];
	IsoOwnerSwitch sw;
	int			ret;

	Assert(history_id > 0);
	args[0] = Int64GetDatum(history_id);
	iso_owner_begin(&sw);
	SPI_connect();
	ret = SPI_execute_with_args(psprintf("%s %s%s WHERE history_id OPERATOR(pg_catalog.=) $1",
										 verb, iso_qualified_table_name(table), rest),
								1, argtypes, args, NULL, false, 0);
	if (ret != expected)
		elog(ERROR, "could not change %s: %s", iso_table_name(table),
			 SPI_result_code_string(ret));
	SPI_finish();
	iso_owner_end(&sw);
}

/* CRC-32C of len bytes, with interrupt checks between parts. */
static pg_crc32c
checksum(pg_crc32c crc, const void *data, uint64 len)
{
	uint64		off;

	for (off = 0; off < len; off += IMAGE_PART_BYTES)
	{
		COMP_CRC32C(crc, (const char *) data + off, Min(len - off, IMAGE_PART_BYTES));
		CHECK_FOR_INTERRUPTS();
	}
	return crc;
}

/* The header's own checksum: of the header with header_crc = 0. */
static uint32
header_checksum(const IsoImageHeader *hd)
{
	IsoImageHeader copy = *hd;
	pg_crc32c	crc;

	copy.header_crc = 0;
	INIT_CRC32C(crc);
	COMP_CRC32C(crc, &copy, sizeof(copy));
	FIN_CRC32C(crc);
	return crc;
}

/* Put the checksum of every section, then of itself, into the header. */
static void
seal_header(IsoImageLayout *layout)
{
	int			s;

	StaticAssertStmt(offsetof(IsoImageHeader, section_crc) == ISO_IMAGE_HEADER_V1_BYTES,
					 "a format-1 header is the start of today's");
	for (s = ISO_IMAGE_HEADER + 1; s < ISO_IMAGE_NSECTIONS; s++)
	{
		pg_crc32c	crc;

		INIT_CRC32C(crc);
		crc = checksum(crc, layout->ptr[s], layout->bytes[s]);
		FIN_CRC32C(crc);
		layout->header.section_crc[s] = crc;
	}
	layout->header.section_crc[ISO_IMAGE_HEADER] = 0;
	layout->header.header_crc = header_checksum(&layout->header);
}

/* Drop the stored image of one history. */
static void
drop_image(int64 history_id)
{
	exec_for_history("DELETE FROM", ISO_TABLE_IMAGE, "", history_id, SPI_OK_DELETE);
}

/*
 * Drop the image of every history the caller can see (TRUNCATE of the
 * events, which only the table's owner or a superuser can do), as the
 * caller.
 */
static void
drop_all_images(void)
{
	int			ret;

	SPI_connect();
	ret = SPI_execute(psprintf("DELETE FROM %s", iso_qualified_table_name(ISO_TABLE_IMAGE)),
					  false, 0);
	if (ret != SPI_OK_DELETE)
		elog(ERROR, "could not change %s: %s", iso_table_name(ISO_TABLE_IMAGE),
			 SPI_result_code_string(ret));
	SPI_finish();
}

/* Store len bytes of section s at off (a part's start) as its row. */
static void
put_part(IsoTableWriter *writer, int64 history_id, int s, uint64 off, const void *data,
		 uint64 len)
{
	Datum		values[IMAGE_NATTS];
	bool		nulls[IMAGE_NATTS] = {false};
	bytea	   *b = palloc(VARHDRSZ + len);

	SET_VARSIZE(b, VARHDRSZ + len);
	memcpy(VARDATA(b), data, len);
	values[IMAGE_HISTORY_ID - 1] = Int64GetDatum(history_id);
	values[IMAGE_SECTION - 1] = Int16GetDatum(s);
	values[IMAGE_PART - 1] = Int32GetDatum((int32) (off / IMAGE_PART_BYTES));
	values[IMAGE_DATA - 1] = PointerGetDatum(b);
	iso_writer_put(writer, values, nulls);
	pfree(b);
	CHECK_FOR_INTERRUPTS();
}

/*
 * Store h as the image of history_id, replacing any older one.  h must have
 * been built from the history's events as they are in this transaction.
 */
void
iso_image_write(int64 history_id, const IsoHistory *h, int64 events_rev, bool replace)
{
	IsoImageLayout layout;
	IsoTableWriter writer;
	int			s;

	if (!iso_table_exists(ISO_TABLE_IMAGE))
		return;					/* schema 0.1.0: checks read the events */
	forget_image_state();
	if (replace)
		drop_image(history_id);
	iso_image_describe(h, &layout);
	layout.header.events_rev = events_rev;
	seal_header(&layout);
	iso_writer_open(&writer, ISO_TABLE_IMAGE);
	for (s = 0; s < ISO_IMAGE_NSECTIONS; s++)
	{
		uint64		off;

		/* an empty section has no rows; its size is in the header */
		for (off = 0; off < layout.bytes[s]; off += IMAGE_PART_BYTES)
			put_part(&writer, history_id, s, off, (const char *) layout.ptr[s] + off,
					 Min(layout.bytes[s] - off, IMAGE_PART_BYTES));
	}
	iso_writer_close(&writer);
}

/*
 * The image of a new history written while the history is being built (a
 * stored load, load.c): a section that only grows at its end -- the
 * transactions but the last, whose count of micro-ops may still grow, and
 * the micro-ops -- has its whole parts stored as they fill
 * (iso_image_stream_progress), so that most of the image's compression
 * and writing runs while the parallel worker still parses; the rest, and
 * the header with the checksums, at the end (iso_image_stream_finish).
 * The rows are those iso_image_write stores, written in another order.
 */
void
iso_image_stream_begin(IsoImageStream *st, int64 history_id)
{
	int			s;

	memset(st, 0, sizeof(*st));
	st->history_id = history_id;
	if (!iso_table_exists(ISO_TABLE_IMAGE))
		return;					/* schema 0.1.0: no images */
	forget_image_state();
	st->open = true;
	for (s = 0; s < ISO_IMAGE_NSECTIONS; s++)
		INIT_CRC32C(st->crc[s]);
	iso_writer_open(&st->writer, ISO_TABLE_IMAGE);
}

/* Store the parts of section s in [written, upto), whole parts unless last. */
static void
stream_section(IsoImageStream *st, int s, const void *data, uint64 upto, bool last)
{
	while (st->written[s] < upto &&
		   (last || upto - st->written[s] >= IMAGE_PART_BYTES))
	{
		uint64		off = st->written[s];
		uint64		len = Min(upto - off, IMAGE_PART_BYTES);

		COMP_CRC32C(st->crc[s], (const char *) data + off, len);
		put_part(&st->writer, st->history_id, s, off, (const char *) data + off, len);
		st->written[s] += len;
		st->any_part = true;
	}
}

void
iso_image_stream_progress(IsoImageStream *st, const IsoHistory *h)
{
	if (!st->open)
		return;
	stream_section(st, ISO_IMAGE_TXNS, h->txns,
				   sizeof(IsoTxn) * (uint64) (h->n_txns > 0 ? h->n_txns - 1 : 0), false);
	stream_section(st, ISO_IMAGE_OPS, h->ops, sizeof(IsoOp) * (uint64) h->n_ops, false);
}

/*
 * Drop the parts stored so far: the history is out of txn_id order, so it
 * will be sorted, and the event store is about to rewrite its chunks in
 * order (whose triggers would take the parts for an image and outdate
 * it).  iso_image_stream_finish then writes the whole image.
 */
void
iso_image_stream_restart(IsoImageStream *st)
{
	if (!st->open)
		return;
	iso_writer_close(&st->writer);
	if (st->any_part)
		drop_image(st->history_id);
	forget_image_state();
	st->open = false;
	st->whole = true;
}

/* The rest of the image of h, now complete (all of it after a restart). */
void
iso_image_stream_finish(IsoImageStream *st, const IsoHistory *h)
{
	IsoImageLayout layout;
	int			s;

	if (st->whole)
	{
		/* a new history's image: events_rev is the default 0 */
		iso_image_write(st->history_id, h, 0, false);
		st->whole = false;
		return;
	}
	if (!st->open)
		return;
	st->open = false;
	iso_image_describe(h, &layout);
	for (s = ISO_IMAGE_HEADER + 1; s < ISO_IMAGE_NSECTIONS; s++)
	{
		stream_section(st, s, layout.ptr[s], layout.bytes[s], true);
		FIN_CRC32C(st->crc[s]);
		layout.header.section_crc[s] = st->crc[s];
	}
	layout.header.section_crc[ISO_IMAGE_HEADER] = 0;
	layout.header.header_crc = header_checksum(&layout.header);
	put_part(&st->writer, st->history_id, ISO_IMAGE_HEADER, 0, &layout.header,
			 sizeof(layout.header));
	iso_writer_close(&st->writer);
}

/*
 * Why an image is not used: WARNING for damage, NOTICE for an image of an
 * older format (isograph 0.2.0), DEBUG1 for another build's memory layout.
 */
static bool
image_unusable(int64 history_id, const char *why, int elevel)
{
	ereport(elevel,
			(errmsg("not using the stored image of history %lld: %s",
					(long long) history_id, why),
			 errhint("SELECT iso_save_image(%lld) rewrites it; checks read iso_event meanwhile.",
					 (long long) history_id)));
	return false;
}

static const char *
section_sizes_match(const uint64 *expect, const uint64 *found)
{
	int			s;

	for (s = 0; s < ISO_IMAGE_NSECTIONS; s++)
		if (expect[s] != found[s])
			return "its sections do not have the sizes its header gives";
	return NULL;
}

/* Whether the section checksums the header gives are those of the parts read. */
static const char *
sections_checksums_match(const IsoImageHeader *hd, pg_crc32c *crc)
{
	int			s;

	for (s = ISO_IMAGE_HEADER + 1; s < ISO_IMAGE_NSECTIONS; s++)
	{
		FIN_CRC32C(crc[s]);
		if (crc[s] != hd->section_crc[s])
			return psprintf("the checksum of its section %d does not match", s);
	}
	return NULL;
}

/*
 * Whether a header part is one of isograph 0.2.0 (format 1): such an image
 * has no checksums and is not used, but it is not damaged either.  Only an
 * intact one qualifies (its exact size, magic and format): a damaged header
 * of today's format has another size, so damage never passes for age.
 */
static bool
is_format_1(const char *data, uint64 len)
{
	uint32		magic_format[2];

	if (len != ISO_IMAGE_HEADER_V1_BYTES)
		return false;
	memcpy(magic_format, data, sizeof(magic_format));
	return magic_format[0] == ISO_IMAGE_MAGIC && magic_format[1] == 1;
}

/*
 * Fill h from the stored image of history_id, allocating in build_cxt.
 * Returns false, leaving h untouched, when there is no usable image.
 */
bool
iso_image_read(int64 history_id, IsoWorkload workload, IsoHistory *h,
			   MemoryContext build_cxt)
{
	Oid			argtypes[1] = {INT8OID};
	Datum		args[1];
	uint64		found[ISO_IMAGE_NSECTIONS] = {0};
	uint64		expect[ISO_IMAGE_NSECTIONS];
	uint64		filled[ISO_IMAGE_NSECTIONS] = {0};
	pg_crc32c	crc[ISO_IMAGE_NSECTIONS];
	IsoImageHeader header;
	IsoImageLayout layout;
	IsoHistory	read;
	MemoryContext image_cxt;
	MemoryContext row_cxt;
	MemoryContext old;
	Portal		portal;
	const char *table = iso_qualified_table_name(ISO_TABLE_IMAGE);
	const char *why;
	bool		have_header = false;
	bool		isnull;
	int64		events_rev;
	uint64		i;
	int			ret;

	if (!iso_table_exists(ISO_TABLE_IMAGE))
		return false;			/* schema 0.1.0: no images, no events_rev */
	for (i = 0; i < ISO_IMAGE_NSECTIONS; i++)
		INIT_CRC32C(crc[i]);
	args[0] = Int64GetDatum(history_id);
	SPI_connect();

	/* the revision of the events the image must be of */
	ret = SPI_execute_with_args(psprintf("SELECT events_rev FROM %s WHERE history_id OPERATOR(pg_catalog.=) $1",
										 iso_qualified_table_name(ISO_TABLE_HISTORY)),
								1, argtypes, args, NULL, true, 0);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "could not read iso_history: %s", SPI_result_code_string(ret));
	if (SPI_processed != 1)
	{
		SPI_finish();
		return false;
	}
	events_rev = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	SPI_freetuptable(SPI_tuptable);

	/* the sizes first: nothing is allocated for an image that cannot fit */
	ret = SPI_execute_with_args(psprintf("SELECT section, part, pg_catalog.octet_length(data) "
										 "FROM %s WHERE history_id OPERATOR(pg_catalog.=) $1 "
										 "ORDER BY section, part", table),
								1, argtypes, args, NULL, true, 0);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "could not read iso_history_image: %s", SPI_result_code_string(ret));
	if (SPI_processed == 0)
	{
		SPI_finish();
		return false;
	}
	for (i = 0; i < SPI_processed; i++)
	{
		int			s = DatumGetInt16(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
		int32		part = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull));
		int32		len = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 3, &isnull));

		if (s < 0 || s >= ISO_IMAGE_NSECTIONS || isnull ||
			found[s] != (uint64) part * IMAGE_PART_BYTES)
		{
			SPI_finish();
			return image_unusable(history_id, "its parts are not contiguous", WARNING);
		}
		found[s] += len;
	}
	SPI_freetuptable(SPI_tuptable);

	portal = SPI_cursor_open_with_args(NULL,
									   psprintf("SELECT section, part, data FROM %s "
												"WHERE history_id OPERATOR(pg_catalog.=) $1 "
												"ORDER BY section, part", table),
									   1, argtypes, args, NULL, true, 0);
	image_cxt = AllocSetContextCreate(build_cxt, "isograph image", ALLOCSET_DEFAULT_SIZES);
	/* a part detoasted (IMAGE_PART_BYTES at most) lives until the next one */
	row_cxt = AllocSetContextCreate(image_cxt, "isograph image part", ALLOCSET_DEFAULT_SIZES);
	why = NULL;
	for (;;)
	{
		int			s;
		bytea	   *data;
		uint64		len;

		SPI_cursor_fetch(portal, true, 1);
		if (SPI_processed == 0)
			break;
		s = DatumGetInt16(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		MemoryContextReset(row_cxt);
		old = MemoryContextSwitchTo(row_cxt);
		data = DatumGetByteaPP(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull));
		MemoryContextSwitchTo(old);
		len = VARSIZE_ANY_EXHDR(data);
		if (s == ISO_IMAGE_HEADER)
		{
			if (is_format_1(VARDATA_ANY(data), len))
			{
				SPI_cursor_close(portal);
				SPI_finish();
				MemoryContextDelete(image_cxt);
				return image_unusable(history_id, "it was written by isograph 0.2.0 and has no checksums",
									  NOTICE);
			}
			if (len != sizeof(header))
			{
				why = "its header has the wrong size";
				break;
			}
			memcpy(&header, VARDATA_ANY(data), sizeof(header));
			if (header.header_crc != header_checksum(&header))
			{
				why = "its header's checksum does not match";
				break;
			}
			if (header.events_rev != events_rev)
			{
				/* the trigger drops outdated images; this one is left over */
				why = "the events changed since it was written";
				break;
			}
			iso_image_sizes(&header, expect);
			if ((why = section_sizes_match(expect, found)) != NULL)
				break;
			old = MemoryContextSwitchTo(image_cxt);
			why = iso_image_prepare(&header, &read, &layout);
			MemoryContextSwitchTo(old);
			if (why != NULL)
			{
				/* another build's layout: not damage, just not ours */
				SPI_cursor_close(portal);
				SPI_finish();
				MemoryContextDelete(image_cxt);
				return image_unusable(history_id, why, DEBUG1);
			}
			have_header = true;
		}
		else if (!have_header)
		{
			why = "it has no header";
			break;
		}
		else
		{
			/* sizes were checked against the header: this part fits */
			memcpy((char *) layout.ptr[s] + filled[s], VARDATA_ANY(data), len);
			COMP_CRC32C(crc[s], VARDATA_ANY(data), len);
			filled[s] += len;
		}
		SPI_freetuptable(SPI_tuptable);
		iso_check_memory(build_cxt);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
	SPI_finish();
	MemoryContextDelete(row_cxt);

	if (why == NULL && !have_header)
		why = "it has no header";
	if (why == NULL)
		why = sections_checksums_match(&header, crc);
	if (why == NULL)
		why = iso_image_validate(&read);
	if (why == NULL && read.workload != workload)
		why = "it was made for another workload";
	if (why != NULL)
	{
		MemoryContextDelete(image_cxt);
		return image_unusable(history_id, why, WARNING);
	}
	*h = read;
	return true;
}

/*
 * Read the history's events as they are now, in this transaction: with a
 * snapshot taken after the caller's own writes and, under READ COMMITTED,
 * after the lock it waited for (the statement's snapshot is older).
 */
void
iso_read_current_history(int64 history_id, IsoWorkload workload, IsoHistory *h,
						 MemoryContext cxt)
{
	iso_snapshot_push_latest();
	iso_read_history(history_id, workload, h, cxt);
	iso_snapshot_pop();
}

/*
 * The fast path after COPY without a step of the user's: a check that finds
 * no usable image reads the events as iso_save_image would and stores their
 * image for the checks that follow.  Only when that is exactly as sound as
 * iso_save_image and costs the check no wait: READ COMMITTED (the image
 * must hold every committed event), a read-write transaction outside
 * recovery, and the history's lock free right now (an open writer of the
 * history, or a saver, keeps it; the check then reads the events and
 * stores nothing).  Returns whether h was read here (and stored).
 * isograph.save_image_on_check = off turns it off.
 */
bool
iso_image_save_on_read(int64 history_id, IsoWorkload workload, IsoHistory *h,
					   MemoryContext cxt)
{
	int64		events_rev;

	if (!iso_save_image_on_check || !iso_use_image ||
		IsolationUsesXactSnapshot() || XactReadOnly || RecoveryInProgress() ||
		IsInParallelMode() || !iso_table_exists(ISO_TABLE_IMAGE))
		return false;
	if (!iso_history_lock_nowait(history_id))
		return false;
	events_rev = iso_history_lock_rev(history_id);
	iso_read_current_history(history_id, workload, h, cxt);
	iso_image_write(history_id, h, events_rev, true);
	return true;
}

/*
 * iso_save_image(history_id bigint) returns bigint: read the history's
 * events and store its image; returns the image's size in bytes.
 */
Datum
iso_save_image(PG_FUNCTION_ARGS)
{
	int64		history_id = PG_GETARG_INT64(0);
	char	   *name;
	IsoWorkload workload;
	IsoHistory	h;
	IsoImageLayout layout;
	MemoryContext cxt;
	uint64		bytes = 0;
	int64		events_rev;
	int			s;

	iso_history_id_check(history_id);
	iso_snapshot_push_latest();
	if (!iso_history_lookup(history_id, &name, &workload))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("history %lld does not exist", (long long) history_id),
				 errhint("See SELECT history_id, name FROM iso_history.")));
	iso_snapshot_pop();
	if (IsolationUsesXactSnapshot())
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("iso_save_image must run in a READ COMMITTED transaction"),
				 errdetail("The image must hold every committed event; a transaction snapshot may be older than the events."),
				 errhint("Run it in its own transaction, or in one started with ISOLATION LEVEL READ COMMITTED.")));
	/* the history's lock, then its events: see the header comment */
	events_rev = iso_history_lock_rev(history_id);
	cxt = AllocSetContextCreate(CurrentMemoryContext, "isograph save image",
								ALLOCSET_DEFAULT_SIZES);
	iso_read_current_history(history_id, workload, &h, cxt);
	iso_image_write(history_id, &h, events_rev, true);
	iso_image_describe(&h, &layout);
	for (s = 0; s < ISO_IMAGE_NSECTIONS; s++)
		bytes += layout.bytes[s];
	MemoryContextDelete(cxt);
	PG_RETURN_INT64((int64) bytes);
}

/*
 * The histories this transaction locked for writing their events, with the
 * subtransaction that locked each (a lock taken in a subtransaction that
 * rolls back is gone, so any other subtransaction locks again: a no-op if
 * a parent holds it).  In TopTransactionContext, made anew per transaction.
 */
typedef struct LockedHistory
{
	int64		history_id;
	SubTransactionId subxid;
} LockedHistory;

static HTAB *locked_histories = NULL;
static LocalTransactionId locked_lxid = InvalidLocalTransactionId;

/*
 * Lock history_id's row as a writer of its events does (the header
 * comment), once per history and subtransaction.  A history the caller
 * cannot see (any more) is not locked: its row was deleted by this
 * transaction (iso_delete_history's cascade reaching iso_event) or the
 * row's foreign key or row-level security rejects the write.
 */
static void
lock_for_events(int64 history_id)
{
	SubTransactionId subxid = GetCurrentSubTransactionId();
	LockedHistory *entry;
	bool		found;

	/* nobody writes events in a read-only transaction (nor on a standby) */
	if (XactReadOnly)
		return;
	if (locked_histories == NULL || locked_lxid != MyProc->lxid)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(int64);
		ctl.entrysize = sizeof(LockedHistory);
		ctl.hcxt = TopTransactionContext;
		locked_histories = hash_create("isograph locked histories", 16, &ctl,
									   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		locked_lxid = MyProc->lxid;
	}
	entry = hash_search(locked_histories, &history_id, HASH_ENTER, &found);
	if (found && entry->subxid == subxid)
		return;
	entry->subxid = InvalidSubTransactionId;	/* until the lock is ours */
	(void) iso_history_try_lock(history_id);
	entry->subxid = subxid;
}

/*
 * Whether history_id has an image, for the WHEN clause of the row triggers
 * (called for every row written to iso_event): first the history's lock
 * (lock_for_events), then the image, remembered per history, transaction
 * and command, looked up with the latest snapshot otherwise.
 */
static int64 known_history = 0;
static bool known_has_image;
static LocalTransactionId known_lxid = InvalidLocalTransactionId;
static CommandId known_cid;

static void
forget_image_state(void)
{
	known_lxid = InvalidLocalTransactionId;
}

static bool
image_exists_now(int64 history_id)
{
	Relation	rel = table_open(iso_table_oid(ISO_TABLE_IMAGE), AccessShareLock);
	Oid			pkey = RelationGetPrimaryKeyIndex(rel);
	ScanKeyData key;
	SysScanDesc scan;
	bool		found;

	ScanKeyInit(&key, IMAGE_HISTORY_ID, BTEqualStrategyNumber, F_INT8EQ,
				Int64GetDatum(history_id));
	scan = systable_beginscan(rel, pkey, true, GetLatestSnapshot(), 1, &key);
	found = HeapTupleIsValid(systable_getnext(scan));
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

static bool
has_image(int64 history_id)
{
	CommandId	cid;

	iso_history_id_check(history_id);
	lock_for_events(history_id);
	cid = GetCurrentCommandId(false);
	if (known_lxid != MyProc->lxid || known_cid != cid || known_history != history_id)
	{
		known_has_image = image_exists_now(history_id);
		known_history = history_id;
		known_lxid = MyProc->lxid;
		known_cid = cid;
	}
	return known_has_image;
}

/*
 * iso_history_has_image(history_id bigint) returns boolean
 *
 * No SET search_path (unlike the other functions): it is called per row
 * and resolves its names schema-qualified.  It locks the history's row
 * (the header comment): the triggers call it for every row.
 */
Datum
iso_history_has_image(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(has_image(PG_GETARG_INT64(0)));
}

/* Bump events_rev and drop the image of one history, whose row this
 * transaction has locked (has_image). */
static void
outdate_image(int64 history_id)
{
	exec_for_history("UPDATE", ISO_TABLE_HISTORY,
					 " SET events_rev = events_rev OPERATOR(pg_catalog.+) 1",
					 history_id, SPI_OK_UPDATE);
	drop_image(history_id);
	/* later rows of this command need not come back here */
	known_history = history_id;
	known_has_image = false;
	known_lxid = MyProc->lxid;
	known_cid = GetCurrentCommandId(false);
}

/*
 * A writer that bypasses the triggers (the packed events, event_store.c)
 * is about to change history_id's events: the same as the row triggers.
 */
void
iso_image_events_written(int64 history_id)
{
	if (has_image(history_id))
		outdate_image(history_id);
}

/* The row's history_id; false if it has none (NULL, or no such column). */
static bool
tuple_history_id(TriggerData *trigdata, HeapTuple tuple, int64 *history_id)
{
	bool		isnull;
	/* by name: a dropped and re-added column moves (table_layout.c) */
	AttrNumber	attnum = get_attnum(RelationGetRelid(trigdata->tg_relation), "history_id");
	Datum		d;

	if (attnum == InvalidAttrNumber)
		return false;
	d = heap_getattr(tuple, attnum, RelationGetDescr(trigdata->tg_relation), &isnull);
	if (isnull)
		return false;
	*history_id = DatumGetInt64(d);
	return true;
}

/*
 * Trigger on iso_event: rows of a history with an image (the triggers' WHEN
 * clause) outdate that image; TRUNCATE outdates every image the caller can
 * see.  Runs as the caller, so row-level security limits it to the
 * caller's histories, the only ones whose events it could change.
 */
Datum
iso_event_changed(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	HeapTuple	result = NULL;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("iso_event_changed() must be called as a trigger")));

	/* it reads history_id as iso_event's first column */
	if (RelationGetRelid(trigdata->tg_relation) !=
		iso_table_oid(iso_events_packed() ? ISO_TABLE_EVENT_CHUNK : ISO_TABLE_EVENT))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("iso_event_changed() fires only on iso_event, not on \"%s\"",
						RelationGetRelationName(trigdata->tg_relation)),
				 errhint("It is isograph's own trigger function; do not attach it to other tables.")));
	if (TRIGGER_FIRED_BY_TRUNCATE(trigdata->tg_event))
	{
		/* every history at once: its own path, no history row (header) */
		drop_all_images();
		forget_image_state();
		return PointerGetDatum(NULL);
	}
	if (!TRIGGER_FIRED_FOR_ROW(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("iso_event_changed() must be a row trigger, or a statement trigger on TRUNCATE")));

	if (TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event))
	{
		int64		old_id;
		int64		new_id;
		bool		have_old = tuple_history_id(trigdata, trigdata->tg_trigtuple, &old_id);
		bool		have_new = tuple_history_id(trigdata, trigdata->tg_newtuple, &new_id);

		if (have_old && has_image(old_id))
			outdate_image(old_id);
		if (have_new && (!have_old || new_id != old_id) && has_image(new_id))
			outdate_image(new_id);
		result = trigdata->tg_newtuple;
	}
	else
	{
		int64		id;

		if (tuple_history_id(trigdata, trigdata->tg_trigtuple, &id) && has_image(id))
			outdate_image(id);
		result = trigdata->tg_trigtuple;
	}
	/* BEFORE triggers let the row through; AFTER triggers' result is ignored */
	return PointerGetDatum(TRIGGER_FIRED_BEFORE(trigdata->tg_event) ? result : NULL);
}
