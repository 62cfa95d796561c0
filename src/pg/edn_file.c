/*
 * edn_file.c
 *	  A Jepsen EDN file on the server read block by block into an EDN
 *	  stream, for a history in memory (iso_levels_jepsen_file) or a load
 *	  (iso_load_jepsen_file, load.c): no text value holds the file, so it
 *	  may be of any size, and the backend holds one block of it.  The same
 *	  block reader takes a text sent to a parallel worker (edn_parallel.c).
 *
 * Reading a server file is what COPY FROM a file and pg_read_file do, and
 * is allowed to the same roles: members of pg_read_server_files (and
 * superusers).  Any other role loads the file from the client, with COPY
 * into iso_jepsen_input.
 */
#include "postgres.h"

#include <ctype.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog/pg_authid.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/acl.h"
#include "utils/wait_event.h"

#include "isograph.h"

/* What one read() asks for: a read a MB costs nothing against parsing it. */
#define EDN_FILE_BLOCK		ISO_EDN_BLOCK_BYTES
/* The longest line read (a line may hold several records, or a part of one). */
#define EDN_FILE_MAX_LINE	((size_t) 64 * 1024 * 1024)

void
iso_check_read_server_files(void)
{
	if (!has_privs_of_role(GetUserId(), ROLE_PG_READ_SERVER_FILES))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to read a history file on the server"),
				 errdetail("Only roles with privileges of the \"pg_read_server_files\" role may read server files, as with COPY FROM a file."),
				 errhint("From the client, any role can load the file: SELECT iso_begin_load(name, workload), then "
						 "\\copy iso_jepsen_input FROM 'file' WITH (FORMAT csv, QUOTE E'\\x01', DELIMITER E'\\x02').")));
}

/*
 * The buffer: [0, fed) are whole lines the stream has seen but not used
 * (a record that goes on past them), [fed, len) the start of a line.
 */
typedef struct EdnFileBuffer
{
	char	   *data;
	size_t		len;
	size_t		fed;
	size_t		cap;
} EdnFileBuffer;

/*
 * Read more of the source after what the buffer holds; false at its end,
 * or (quiet) at a line too long, which is otherwise raised.
 */
static bool
read_block(const EdnBlockSource *src, EdnFileBuffer *b, bool quiet, bool *too_long)
{
	size_t		n;

	if (b->cap - b->len < EDN_FILE_BLOCK)
	{
		if (b->len > src->max_line && quiet)
		{
			*too_long = true;
			return false;
		}
		if (b->len > src->max_line)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("a line of file \"%s\" is longer than %zu bytes", src->name, src->max_line),
					 errdetail("A history file is read line by line; a line may hold several records, but not more than %zu bytes.",
							   src->max_line),
					 errhint("Put the records on lines of their own, as Jepsen writes them.")));
		b->cap = b->len + EDN_FILE_BLOCK;
		b->data = repalloc_huge(b->data, b->cap);
	}
	n = src->read(src->arg, b->data + b->len, EDN_FILE_BLOCK);
	b->len += n;
	return n > 0;
}

/* An EdnBlockSource's read: the file's next bytes, up to left of them. */
typedef struct EdnFile
{
	int			fd;
	const char *path;
	off_t		left;
} EdnFile;

static size_t
read_file_block(void *arg, char *buf, size_t max)
{
	EdnFile    *f = arg;
	ssize_t		n;

	if ((off_t) max > f->left)
		max = (size_t) f->left;
	if (max == 0)
		return 0;
	pgstat_report_wait_start(WAIT_EVENT_COPY_FILE_READ);
	n = read(f->fd, buf, max);
	pgstat_report_wait_end();
	if (n < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read file \"%s\": %m", f->path)));
	f->left -= n;
	return (size_t) n;
}

/*
 * Give the stream the whole lines read so far (checked to be in the
 * database encoding, as a text value would be) and keep what it did not
 * use.  An error of the EDN is raised, or only returned (false) if quiet.
 */
static bool
feed_lines(EdnStream *stream, EdnFileBuffer *b, const IsoParseError *err, bool quiet)
{
	size_t		end;
	size_t		used;

	for (end = b->len; end > b->fed && b->data[end - 1] != '\n'; end--)
		;
	if (end == b->fed)
		return true;
	if (!pg_verifymbstr(b->data + b->fed, (int) (end - b->fed), quiet))
		return false;
	b->fed = end;
	if (!edn_stream_text(stream, b->data, b->fed, &used))
	{
		if (quiet)
			return false;
		iso_report_edn_error(err, b->data, b->len);
	}
	memmove(b->data, b->data + used, b->len - used);
	b->len -= used;
	b->fed -= used;
	return true;
}

/*
 * Read src into stream to its end, then finish the stream (or, with a
 * split, stop it: see EdnReadSplit).  *saw_text: whether the source holds
 * more than white space.  An error of the source is raised; one of the EDN
 * too, unless split->quiet (then false).
 */
static bool
read_blocks(const EdnBlockSource *src, EdnStream *stream, IsoParseError *err,
			bool *saw_text, EdnReadSplit *split)
{
	EdnFileBuffer b;
	size_t		i;
	bool		quiet = split != NULL && split->quiet;
	bool		too_long = false;
	bool		ok = true;

	*saw_text = false;
	b.cap = EDN_FILE_BLOCK;
	b.data = palloc(b.cap);
	b.len = b.fed = 0;
	while (ok && read_block(src, &b, quiet, &too_long))
	{
		CHECK_FOR_INTERRUPTS();
		for (i = 0; !*saw_text && i < b.len; i++)
			*saw_text = !isspace((unsigned char) b.data[i]);
		ok = feed_lines(stream, &b, err, quiet);
	}

	if (too_long)
		ok = false;
	if (ok && split != NULL && split->stop)
	{
		/* the part ends at a record boundary: nothing may be left over */
		ok = b.len == 0 && edn_stream_stop(stream, &split->pending, &split->n_pending);
		pfree(b.data);
		return ok;
	}
	/* the last line, if it has no newline, and what a record left unused */
	if (ok)
	{
		if (!pg_verifymbstr(b.data + b.fed, (int) (b.len - b.fed), quiet))
			ok = false;
		else if (b.len > 0 && !edn_stream_line(stream, b.data, b.len))
		{
			if (!quiet)
				iso_report_edn_error(err, b.data, b.len);
			ok = false;
		}
	}
	if (ok && !edn_stream_finish(stream))
	{
		if (!quiet)
			iso_report_parse_error(err, "EDN");
		ok = false;
	}
	pfree(b.data);
	return ok;
}

/*
 * Read src into stream, to its end (edn_stream_finish included); an error
 * of the source or of its EDN is raised here.  *saw_text: whether it holds
 * more than white space.
 */
void
iso_edn_read_blocks(const EdnBlockSource *src, EdnStream *stream, IsoParseError *err,
					bool *saw_text)
{
	(void) read_blocks(src, stream, err, saw_text, NULL);
}

/* Open a history file on the server (who may, and what, see below). */
static int
open_edn_file(const char *path)
{
	struct stat st;
	int			fd;

	iso_check_read_server_files();
	/* O_NONBLOCK: opening a FIFO without a writer would wait (see below) */
	fd = OpenTransientFile(path, O_RDONLY | O_NONBLOCK | PG_BINARY);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\" for reading: %m", path)));
	if (fstat(fd, &st) < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not stat file \"%s\": %m", path)));
	if (S_ISDIR(st.st_mode))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is a directory", path)));

	/*
	 * A FIFO or a device is refused too: opening or reading a FIFO without
	 * a writer blocks the backend where no cancel reaches it (the server's
	 * signal handlers restart the call), and a device may never end.  A
	 * regular file ignores O_NONBLOCK.
	 */
	if (!S_ISREG(st.st_mode))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a regular file", path),
				 errhint("Copy the history into a file first.")));
	return fd;
}

/* Read bytes [from, to) of the file at path into stream (to < 0: to its end). */
static bool
read_file_range(const char *path, off_t from, off_t to, EdnStream *stream,
				IsoParseError *err, bool *saw_text, EdnReadSplit *split)
{
	EdnBlockSource src;
	EdnFile		f;
	int			fd = open_edn_file(path);
	bool		ok;

	if (from > 0 && lseek(fd, from, SEEK_SET) != from)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not seek in file \"%s\": %m", path)));
	f.fd = fd;
	f.path = path;
	f.left = to < 0 ? PG_INT64_MAX : to - from;
	src.read = read_file_block;
	src.arg = &f;
	src.name = path;
	src.max_line = EDN_FILE_MAX_LINE;
	ok = read_blocks(&src, stream, err, saw_text, split);
	CloseTransientFile(fd);
	return ok;
}

/*
 * Read the file at path into stream, to its end (edn_stream_finish
 * included); an error of the file or of its EDN is raised here.  *saw_text:
 * whether the file holds more than white space.
 */
void
iso_edn_read_file(const char *path, EdnStream *stream, IsoParseError *err, bool *saw_text)
{
	(void) read_file_range(path, 0, -1, stream, err, saw_text, NULL);
}

bool
iso_edn_read_source_part(const EdnBlockSource *src, EdnStream *stream, IsoParseError *err,
						 EdnReadSplit *split)
{
	bool		saw_text;

	return read_blocks(src, stream, err, &saw_text, split);
}

bool
iso_edn_read_file_part(const char *path, off_t from, off_t to, EdnStream *stream,
					   IsoParseError *err, EdnReadSplit *split)
{
	bool		saw_text;

	return read_file_range(path, from, to, stream, err, &saw_text, split);
}
