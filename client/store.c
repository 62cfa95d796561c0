/*
 * store.c: store a recorded history in isograph's tables on the store
 * database, in one transaction: INSERT INTO iso_history ... RETURNING
 * history_id, then COPY iso_event_load (iso_event before 0.5.0) FROM STDIN
 * (FORMAT csv), then (register runs) COPY iso_version.  Also prints
 * iso_levels for --check.
 */
#include "store.h"

#include "version_order.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

PGconn *
store_connect(const Options *o, char *schema, size_t schemalen)
{
	char		err[512];
	PGconn	   *c = connect_db(o->store, "isograph-record-store", err, sizeof(err));
	PGresult   *r;
	char	   *q;

	if (!c)
	{
		errmsg_out("cannot connect to the %s database: %s",
				   o->store_is_target ? "target (and store)" : "store", err);
		return NULL;
	}
	r = PQexec(c, "SELECT n.nspname FROM pg_catalog.pg_extension e "
			   "JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace "
			   "WHERE e.extname = 'isograph'");
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
	{
		errmsg_out("cannot query the store database: %s", PQerrorMessage(c));
		PQclear(r);
		PQfinish(c);
		return NULL;
	}
	if (PQntuples(r) != 1)
	{
		errmsg_out("the store database \"%s\" has no isograph extension "
				   "(run CREATE EXTENSION isograph there)", PQdb(c));
		PQclear(r);
		PQfinish(c);
		return NULL;
	}
	q = PQescapeIdentifier(c, PQgetvalue(r, 0, 0), strlen(PQgetvalue(r, 0, 0)));
	snprintf(schema, schemalen, "%s", q);
	PQfreemem(q);
	PQclear(r);
	return c;
}

bool
store_name_free(PGconn *c, const char *schema, const char *name)
{
	char		sql[512];
	const char *params[1] = {name};
	PGresult   *r;
	bool		free_;

	/*
	 * Names are unique per owner: a superuser sees every role's histories
	 * and may reuse their names.  owner is the role's name up to isograph
	 * 0.3.0 and a regrole (shown quoted as needed) since 0.4.0.
	 */
	snprintf(sql, sizeof(sql),
			 "SELECT 1 FROM %s.iso_history WHERE name = $1 "
			 "AND owner::text IN (current_user, quote_ident(current_user))", schema);
	r = PQexecParams(c, sql, 1, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
	{
		errmsg_out("cannot read iso_history on the store: %s", PQerrorMessage(c));
		PQclear(r);
		return false;
	}
	free_ = PQntuples(r) == 0;
	PQclear(r);
	if (!free_)
		errmsg_out("a history named \"%s\" already exists in the store "
				   "(choose another --name or run SELECT iso_delete_history(...))", name);
	return free_;
}

/* COPY data buffer */
typedef struct CopyBuf
{
	PGconn	   *c;
	char	   *buf;
	size_t		len;
	size_t		cap;
	bool		ok;
} CopyBuf;

static void
cb_flush(CopyBuf *b)
{
	if (b->ok && b->len > 0 && PQputCopyData(b->c, b->buf, (int) b->len) != 1)
		b->ok = false;
	b->len = 0;
}

static void
cb_put(CopyBuf *b, const char *s, size_t n)
{
	if (b->len + n > b->cap)
	{
		cb_flush(b);
		if (n > b->cap)
		{
			b->cap = n * 2;
			b->buf = xrealloc(b->buf, b->cap);
		}
	}
	memcpy(b->buf + b->len, s, n);
	b->len += n;
}

static void
cb_str(CopyBuf *b, const char *s)
{
	cb_put(b, s, strlen(s));
}

static void
cb_int(CopyBuf *b, long long v)
{
	char		t[24];
	int			n = snprintf(t, sizeof(t), "%lld", v);

	cb_put(b, t, (size_t) n);
}

static bool
copy_end(CopyBuf *b, const char *what)
{
	PGresult   *r;
	bool		ok;

	cb_flush(b);
	if (PQputCopyEnd(b->c, b->ok ? NULL : "client error") != 1)
		b->ok = false;
	r = PQgetResult(b->c);
	ok = b->ok && PQresultStatus(r) == PGRES_COMMAND_OK;
	if (!ok)
		errmsg_out("COPY %s failed: %s", what, PQerrorMessage(b->c));
	PQclear(r);
	while ((r = PQgetResult(b->c)) != NULL)
		PQclear(r);
	return ok;
}

static const char *
status_name(TxnStatus s)
{
	return s == ST_OK ? "ok" : s == ST_FAIL ? "fail" : "info";
}

static void
abort_store(PGconn *c)
{
	PQclear(PQexec(c, "ROLLBACK"));
}

/* INSERT the iso_history row; its history_id, or -1. */
static int64_t
insert_history(PGconn *c, const char *schema, const Options *o, const char *metadata)
{
	char		sql[1024];
	const char *params[3];
	PGresult   *r;
	int64_t		id;

	snprintf(sql, sizeof(sql),
			 "INSERT INTO %s.iso_history (name, workload, source, metadata) "
			 "VALUES ($1, $2, 'isograph-record', $3::jsonb) RETURNING history_id", schema);
	params[0] = o->name;
	params[1] = workload_kind_name(o->workload);
	params[2] = metadata;
	r = PQexecParams(c, sql, 3, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
	{
		errmsg_out("cannot insert into iso_history: %s", PQerrorMessage(c));
		PQclear(r);
		return -1;
	}
	id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return id;
}

/* One iso_event row: micro-op j of the completed transaction t. */
static void
put_event(CopyBuf *b, const char *idbuf, const Options *o, Txn *t, int j)
{
	Op		   *op = &t->ops[j];

	cb_str(b, idbuf);
	cb_str(b, ",");
	cb_int(b, t->complete_index);
	cb_str(b, ",");
	cb_int(b, t->process);
	cb_str(b, ",");
	cb_str(b, status_name(t->status));
	cb_str(b, ",");
	cb_int(b, t->invoke_time);
	cb_str(b, ",");
	cb_int(b, t->complete_time);
	cb_str(b, ",");
	cb_int(b, j);
	cb_str(b, op->type == OP_R ? ",r," : op->type == OP_W ? ",w," : ",append,");
	cb_int(b, op->key);
	cb_str(b, ",");
	if (op->type != OP_R)
		cb_int(b, op->value);
	cb_str(b, ",");
	/* read_value (register) */
	if (op->type == OP_R && op->has_read && !op->read_nil &&
		o->workload == WL_RW_REGISTER)
		cb_int(b, op->read_val);
	cb_str(b, ",");
	/* read_list (list-append) */
	if (op->type == OP_R && op->has_read && !op->read_nil &&
		o->workload == WL_LIST_APPEND)
	{
		cb_str(b, "\"{");
		for (int k = 0; k < op->read_len; k++)
		{
			if (k)
				cb_str(b, ",");
			cb_int(b, op->read_list[k]);
		}
		cb_str(b, "}\"");
	}
	cb_str(b, "\n");
}

/*
 * The relation the events are copied into: iso_event_load (isograph
 * 0.5.0), which takes read_list as the text of its literal and cuts it
 * faster than the server's array parser, or the view iso_event on older
 * versions.
 */
static const char *
events_view(PGconn *c, const char *schema)
{
	char		sql[512];
	PGresult   *r;
	bool		has_load;

	snprintf(sql, sizeof(sql),
			 "SELECT 1 FROM pg_catalog.pg_class WHERE relname = 'iso_event_load' "
			 "AND relnamespace = pg_catalog.to_regnamespace($1)");
	{
		const char *params[1] = {schema};

		r = PQexecParams(c, sql, 1, NULL, params, NULL, NULL, 0);
	}
	has_load = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
	PQclear(r);
	return has_load ? "iso_event_load" : "iso_event";
}

static bool
copy_events(CopyBuf *b, const char *schema, const char *idbuf, const Options *o, History *h)
{
	char		sql[1024];
	const char *view = events_view(b->c, schema);

	snprintf(sql, sizeof(sql),
			 "COPY %s.%s (history_id, txn_id, process, status, invoke_time, "
			 "complete_time, pos, op, key, value, read_value, read_list) "
			 "FROM STDIN (FORMAT csv)", schema, view);
	if (!sql_run_or_report(b->c, sql, PGRES_COPY_IN))
		return false;
	b->ok = true;
	for (size_t i = 0; i < h->nevents; i++)
	{
		Txn		   *t = h->events[i].txn;

		if (!h->events[i].completion)
			continue;
		for (int j = 0; j < t->nops; j++)
			put_event(b, idbuf, o, t, j);
	}
	return copy_end(b, view);
}

/* rw-register: the version order the server showed (version_order.c). */
static bool
copy_versions(CopyBuf *b, const char *schema, const char *idbuf, History *h)
{
	char		sql[1024];
	int64_t    *ks,
			   *vs;
	int		   *ps;
	size_t		n = version_order(h, &ks, &vs, &ps);
	bool		ok;

	snprintf(sql, sizeof(sql),
			 "COPY %s.iso_version (history_id, key, position, value) FROM STDIN (FORMAT csv)",
			 schema);
	ok = sql_run_or_report(b->c, sql, PGRES_COPY_IN);
	b->ok = true;
	for (size_t i = 0; ok && i < n; i++)
	{
		cb_str(b, idbuf);
		cb_str(b, ",");
		cb_int(b, ks[i]);
		cb_str(b, ",");
		cb_int(b, ps[i]);
		cb_str(b, ",");
		cb_int(b, vs[i]);
		cb_str(b, "\n");
	}
	free(ks);
	free(vs);
	free(ps);
	return ok && copy_end(b, "iso_version");
}

/*
 * Store the history in one transaction: the iso_history row, its events,
 * and (register) its version order.  The new history_id, or -1.
 */
int64_t
store_history(PGconn *c, const char *schema, const Options *o, History *h,
			  const char *metadata)
{
	PGresult   *r;
	int64_t		id;
	char		idbuf[24];
	CopyBuf		b = {c, NULL, 0, 1 << 16, true};
	bool		ok;

	PQclear(PQexec(c, "BEGIN"));
	id = insert_history(c, schema, o, metadata);
	if (id < 0)
	{
		abort_store(c);
		return -1;
	}
	snprintf(idbuf, sizeof(idbuf), "%lld", (long long) id);
	b.buf = xmalloc(b.cap);
	ok = copy_events(&b, schema, idbuf, o, h) &&
		(o->workload != WL_RW_REGISTER || copy_versions(&b, schema, idbuf, h));
	free(b.buf);
	if (!ok)
	{
		abort_store(c);
		return -1;
	}
	r = PQexec(c, "COMMIT");
	if (!committed(r))
	{
		errmsg_out("cannot commit the stored history: %s", PQerrorMessage(c));
		PQclear(r);
		return -1;
	}
	PQclear(r);
	return id;
}

bool
store_print_levels(PGconn *c, const char *schema, int64_t id, FILE *out)
{
	char		sql[512];
	char		idbuf[24];
	const char *params[1] = {idbuf};
	PGresult   *r;
	int			w[5] = {0};
	const char *hdr[5] = {"level", "holds", "violations", "strongest", "note"};
	int			nt;

	snprintf(idbuf, sizeof(idbuf), "%lld", (long long) id);
	snprintf(sql, sizeof(sql),
			 "SELECT level, CASE WHEN holds THEN 'yes' ELSE 'NO' END, violations, "
			 "CASE WHEN strongest THEN 'strongest' ELSE '' END, coalesce(note, '') "
			 "FROM %s.iso_levels($1::bigint)", schema);
	r = PQexecParams(c, sql, 1, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
	{
		errmsg_out("iso_levels(%s) failed: %s", idbuf, PQerrorMessage(c));
		PQclear(r);
		return false;
	}
	nt = PQntuples(r);
	for (int j = 0; j < 5; j++)
	{
		w[j] = (int) strlen(hdr[j]);
		for (int i = 0; i < nt; i++)
			if ((int) strlen(PQgetvalue(r, i, j)) > w[j])
				w[j] = (int) strlen(PQgetvalue(r, i, j));
	}
	for (int j = 0; j < 5; j++)
		fprintf(out, "%s%-*s", j ? "  " : " ", j < 4 ? w[j] : 0, hdr[j]);
	fputc('\n', out);
	for (int j = 0; j < 5; j++)
	{
		fputs(j ? "  " : " ", out);
		for (int k = 0; k < (j < 4 ? w[j] : (int) strlen(hdr[4])); k++)
			fputc('-', out);
	}
	fputc('\n', out);
	for (int i = 0; i < nt; i++)
	{
		for (int j = 0; j < 5; j++)
			fprintf(out, "%s%-*s", j ? "  " : " ", j < 4 ? w[j] : 0, PQgetvalue(r, i, j));
		fputc('\n', out);
	}
	PQclear(r);
	return true;
}

/* The PGCOPY binary format's header: signature, flags, no extension. */
static const char copy_binary_header[19] = "PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0";

/* One row of COPY ... (FORMAT binary) with one text field of n bytes. */
static bool
put_binary_row(PGconn *c, const char *data, size_t n)
{
	unsigned char head[6];
	uint32_t	len = (uint32_t) n;

	head[0] = 0;				/* one field */
	head[1] = 1;
	head[2] = (unsigned char) (len >> 24);
	head[3] = (unsigned char) (len >> 16);
	head[4] = (unsigned char) (len >> 8);
	head[5] = (unsigned char) len;
	return PQputCopyData(c, (const char *) head, 6) == 1 &&
		(n == 0 || PQputCopyData(c, data, (int) n) == 1);
}

/* The largest row: a text value holds at most 1 GB. */
#define LOAD_MAX_ROW	((size_t) 0x3FFFFFFF)

/*
 * The size of a row, unless a line is longer.  Each row is copied a few
 * times in the server (the message, the text value, the view's tuple, the
 * parser's buffer); below glibc's mmap threshold (128 kB) those copies reuse
 * freed memory, above it each is a fresh mapping whose pages fault: 1M
 * transactions loaded in 3.4-3.6 s with rows of 16 or 64 kB, 3.7-4.3 s with
 * 256 kB, 4.4-4.7 s with 1 MB.
 */
#define LOAD_ROW_BYTES	((size_t) 64 * 1024)

/*
 * --load: the file goes to the server as rows of COPY iso_jepsen_input
 * FROM STDIN (FORMAT binary), each row some 64 kB of whole lines (the lines
 * joined by their newlines, the row's last newline left out: the server
 * reads each row as a line).  Binary rows pass every byte as it is (a line
 * "\." or a 0x01 byte is no concern of a binary COPY) and cost the server
 * no parsing of its own: a row per line in csv format spent as long in
 * COPY's parsing as the load itself spent (1M transactions: about 3 of
 * 6.5 s).  A line longer than the buffer grows it (that row is longer).
 * Neither side holds the whole file.
 */
int64_t
store_load_file(PGconn *c, const char *schema, const Options *o)
{
	const char *params[2];
	char		sql[512];
	PGresult   *r;
	FILE	   *f;
	char	   *buf;
	size_t		cap;
	size_t		held = 0;
	size_t		n;
	bool		ok = true;
	bool		eof = false;
	int64_t		id = -1;

	f = strcmp(o->load, "-") == 0 ? stdin : fopen(o->load, "rb");
	if (!f)
	{
		errmsg_out("cannot open \"%s\": %s", o->load, strerror(errno));
		return -1;
	}
	params[0] = o->name;
	params[1] = o->workload_given ? workload_kind_name(o->workload) : NULL;
	snprintf(sql, sizeof(sql), "SELECT %s.iso_begin_load($1, $2)", schema);
	r = PQexecParams(c, sql, 2, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
	{
		errmsg_out("cannot begin the load: %s", PQerrorMessage(c));
		PQclear(r);
		if (f != stdin)
			fclose(f);
		return -1;
	}
	PQclear(r);
	snprintf(sql, sizeof(sql),
			 "COPY %s.iso_jepsen_input FROM STDIN WITH (FORMAT binary)", schema);
	r = PQexec(c, sql);
	if (PQresultStatus(r) != PGRES_COPY_IN)
	{
		errmsg_out("cannot start COPY into iso_jepsen_input: %s", PQerrorMessage(c));
		PQclear(r);
		if (f != stdin)
			fclose(f);
		return -1;
	}
	PQclear(r);
	cap = LOAD_ROW_BYTES;
	buf = xmalloc(cap);
	ok = PQputCopyData(c, copy_binary_header, (int) sizeof(copy_binary_header)) == 1;
	while (ok && !eof)
	{
		size_t		cut;

		n = fread(buf + held, 1, cap - held, f);
		if (n == 0)
			eof = true;
		held += n;
		/* whole lines up to the last newline; at the end, the rest too */
		cut = held;
		while (!eof && cut > 0 && buf[cut - 1] != '\n')
			cut--;
		if (cut == 0 && !eof)
		{
			/* a line longer than the buffer */
			if (cap > LOAD_MAX_ROW)
			{
				errmsg_out("\"%s\" has a line of more than 1 GB, the most a row can hold",
						   o->load);
				ok = false;
				break;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
			continue;
		}
		if (cut > 0 && !put_binary_row(c, buf, eof ? cut : cut - 1))
			ok = false;
		memmove(buf, buf + cut, held - cut);
		held -= cut;
	}
	/* the end of the rows */
	if (ok && PQputCopyData(c, "\377\377", 2) != 1)
		ok = false;
	if (ferror(f))
	{
		errmsg_out("cannot read \"%s\": %s", o->load, strerror(errno));
		ok = false;
	}
	free(buf);
	if (f != stdin)
		fclose(f);
	if (PQputCopyEnd(c, ok ? NULL : "isograph-record could not read the file") != 1)
		ok = false;
	r = PQgetResult(c);
	if (PQresultStatus(r) != PGRES_COMMAND_OK)
	{
		if (ok)
			errmsg_out("loading \"%s\" failed: %s", o->load, PQerrorMessage(c));
		ok = false;
	}
	PQclear(r);
	while ((r = PQgetResult(c)) != NULL)
		PQclear(r);
	if (!ok)
	{
		/* (a failed COPY has used up the load already) */
		snprintf(sql, sizeof(sql), "SELECT %s.iso_cancel_load()", schema);
		PQclear(PQexec(c, sql));
		return -1;
	}
	snprintf(sql, sizeof(sql), "SELECT history_id FROM %s.iso_history WHERE name = $1", schema);
	r = PQexecParams(c, sql, 1, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
		id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	else
		errmsg_out("the loaded history \"%s\" is not in iso_history: %s", o->name,
				   PQerrorMessage(c));
	PQclear(r);
	return id;
}
