/*
 * test_edn.c
 *	  Unit tests for the EDN history reader (src/edn.c) and the enum names
 *	  (src/port.c).  Standalone build (-DISOGRAPH_STANDALONE), TAP output.
 *
 * Every input is copied into a malloc'd buffer of exactly its length, so
 * AddressSanitizer catches any read past the end of the text.
 */
#include "edn.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

/* ------------------------------------------------------------------ */
/* Rendering transactions to text, for compact assertions              */
/* ------------------------------------------------------------------ */

typedef struct Sink
{
	char	   *buf;
	size_t		len;
	size_t		cap;
	int			calls;
	int			stop_after;		/* return false on this call (1-based) */
	int			render;			/* 0: count only */
} Sink;

static void
sink_put(Sink *s, const char *p, size_t n)
{
	if (s->len + n + 1 > s->cap)
	{
		s->cap = (s->len + n + 1) * 2 + 1024;
		s->buf = realloc(s->buf, s->cap);
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	s->buf[s->len] = '\0';
}

static void
sink_str(Sink *s, const char *p)
{
	sink_put(s, p, strlen(p));
}

static void
sink_slice(Sink *s, IsoSlice sl)
{
	if (sl.ptr == NULL)
		sink_str(s, "NULL");
	else
		sink_put(s, sl.ptr, (size_t) sl.len);
}

static bool
sink_cb(const EdnTxn *t, void *arg)
{
	Sink	   *s = arg;
	char		tmp[256];
	int			i;

	s->calls++;
	if (s->render)
	{
		/* "id status p<process> i<invoke time> c<complete time> r<record> l<line>:"; '-' = absent */
		snprintf(tmp, sizeof(tmp), "%s%lld %s ", s->len ? " | " : "",
				 (long long) t->txn_id, iso_status_name(t->status));
		sink_str(s, tmp);
		if (t->has_process)
			snprintf(tmp, sizeof(tmp), "p%lld ", (long long) t->process);
		else
			snprintf(tmp, sizeof(tmp), "p- ");
		sink_str(s, tmp);
		if (t->has_invoke_time)
			snprintf(tmp, sizeof(tmp), "i%lld ", (long long) t->invoke_time);
		else
			snprintf(tmp, sizeof(tmp), "i- ");
		sink_str(s, tmp);
		if (t->has_complete_time)
			snprintf(tmp, sizeof(tmp), "c%lld ", (long long) t->complete_time);
		else
			snprintf(tmp, sizeof(tmp), "c- ");
		sink_str(s, tmp);
		snprintf(tmp, sizeof(tmp), "r%lld l%lld:", (long long) t->record, (long long) t->line);
		sink_str(s, tmp);
		for (i = 0; i < t->n_ops; i++)
		{
			const EdnOp *o = &t->ops[i];

			sink_str(s, " ");
			sink_str(s, iso_op_name(o->op));
			sink_str(s, " ");
			sink_slice(s, o->key);
			sink_str(s, " ");
			if (o->op != ISO_OP_READ)
			{
				sink_slice(s, o->value);
				if (o->read_value.ptr != NULL || o->list_len != -1)
					sink_str(s, "<BAD>");
			}
			else if (o->list_len >= 0)
			{
				int			j;

				if (o->value.ptr != NULL || o->read_value.ptr != NULL || o->list == NULL)
					sink_str(s, "<BAD>");
				sink_str(s, "[");
				for (j = 0; j < o->list_len; j++)
				{
					if (j)
						sink_str(s, ",");
					sink_slice(s, o->list[j]);
				}
				sink_str(s, "]");
			}
			else if (o->read_value.ptr != NULL)
				sink_slice(s, o->read_value);
			else
				sink_str(s, "nil");
			if (i + 1 < t->n_ops)
				sink_str(s, ";");
		}
	}
	if (s->stop_after && s->calls == s->stop_after)
		return false;
	return true;
}

/*
 * When set, every test parses through the streaming reader instead, fed
 * one line at a time as a COPY into iso_jepsen_input would feed it (each
 * line copied, without its newline), and must give the same results.
 */
static bool stream_lines = false;

/*
 * When stream_lines is set and this is above 0, the lines go in blocks of
 * this many through edn_stream_text instead, parsed where they lie in a
 * buffer that keeps what a cut record left, as a server file is read
 * (src/pg/edn_file.c); the bytes moved away are overwritten, so that a
 * transaction still pointing into the buffer shows.
 */
static int	stream_block_lines = 0;

static bool
parse_stream_blocks(EdnStream *S, const char *text, size_t len)
{
	char	   *buf = malloc(len + 1);
	size_t		blen = 0,
				fed = 0;
	const char *p = text,
			   *end = text + len;
	bool		r = true;

	while (r && p < end)
	{
		const char *q = p;
		const char *last_nl;
		int			i;

		for (i = 0; i < stream_block_lines && q < end; i++)
		{
			const char *nl = memchr(q, '\n', (size_t) (end - q));

			q = nl ? nl + 1 : end;
		}
		memcpy(buf + blen, p, (size_t) (q - p));
		blen += (size_t) (q - p);
		p = q;
		last_nl = NULL;
		for (q = buf + blen; q > buf + fed; q--)
			if (q[-1] == '\n')
			{
				last_nl = q - 1;
				break;
			}
		if (last_nl != NULL)
		{
			size_t		used;

			fed = (size_t) (last_nl - buf) + 1;
			r = edn_stream_text(S, buf, fed, &used);
			memmove(buf, buf + used, blen - used);
			memset(buf + blen - used, 0xAA, used);
			blen -= used;
			fed -= used;
		}
	}
	if (r && blen > 0)
		r = edn_stream_line(S, buf, blen);
	free(buf);
	return r;
}

static bool
parse_stream(const char *text, size_t len, IsoWorkload exp, EdnTxnCallback cb,
			 void *arg, EdnStats *st, IsoParseError *e)
{
	EdnStream  *S = edn_stream_begin(exp, cb, arg, st, e);
	const char *p = text,
			   *end = text + len;
	bool		r = true;

	if (stream_block_lines > 0)
	{
		r = parse_stream_blocks(S, text, len);
		p = end;
	}
	while (r && p < end)
	{
		const char *nl = memchr(p, '\n', (size_t) (end - p));
		size_t		n = nl ? (size_t) (nl - p) : (size_t) (end - p);
		char	   *line = malloc(n ? n : 1);

		memcpy(line, p, n);
		r = edn_stream_line(S, line, n);
		free(line);
		p += n + (nl ? 1 : 0);
	}
	if (r)
		r = edn_stream_finish(S);
	edn_stream_free(S);
	return r;
}

/* Parse text (exactly len bytes, copied) into sink s. */
static bool
parse_n(const char *text, size_t len, IsoWorkload exp, Sink *s,
		EdnStats *st, IsoParseError *e)
{
	char	   *copy = malloc(len ? len : 1);
	bool		r;

	memcpy(copy, text, len);
	if (stream_lines)
		r = parse_stream(copy, len, exp, sink_cb, s, st, e);
	else
		r = edn_parse_history(copy, len, exp, sink_cb, s, st, e);
	free(copy);
	return r;
}

static void
sink_init(Sink *s)
{
	memset(s, 0, sizeof(*s));
	s->render = 1;
	sink_str(s, "");
	s->len = 0;
}

/* Parse and compare the rendering. */
static void
check_parse(const char *desc, const char *text, IsoWorkload exp,
			const char *want, IsoWorkload want_wl)
{
	Sink		s;
	EdnStats	st;
	IsoParseError e;
	bool		r;

	sink_init(&s);
	r = parse_n(text, strlen(text), exp, &s, &st, &e);
	if (!ok(r, "%s: parses", desc))
		diag("error kind %d record %lld line %lld: %s", e.kind,
			 (long long) e.record, (long long) e.line, e.message);
	is_str(s.buf, want, desc);
	ok(st.workload == want_wl, "%s: workload %s", desc, iso_workload_name(want_wl));
	free(s.buf);
}

/* Parse and compare the rendering and the source of real time. */
static void
check_time_source(const char *desc, const char *text, const char *want,
				  IsoTimeSource want_source)
{
	Sink		s;
	EdnStats	st;
	IsoParseError e;

	sink_init(&s);
	ok(parse_n(text, strlen(text), ISO_WORKLOAD_UNKNOWN, &s, &st, &e), "%s: parses", desc);
	is_str(s.buf, want, desc);
	ok(st.time_source == want_source, "%s: real time from %s (got %s)", desc,
	   iso_time_source_name(want_source), iso_time_source_name(st.time_source));
	free(s.buf);
}

/*
 * Real time: the first transaction record decides between :time and the
 * record order; completions without an invocation get no times then.
 */
static void
test_time_source(void)
{
	check_time_source("record order: :time on a later record is ignored",
					  "{:type :invoke, :process 0, :value [[:append 1 1]]}\n"
					  "{:type :info, :f :kill, :process :nemesis}\n"
					  "{:type :ok, :process 0, :value [[:append 1 1]], :time 50}\n"
					  "{:type :invoke, :process 1, :value [[:r 1 nil]], :time 60}\n"
					  "{:type :ok, :process 1, :value [[:r 1 [1]]]}\n",
					  "2 ok p0 i0 c2 r3 l3: append 1 1 | 4 ok p1 i3 c4 r5 l5: r 1 [1]",
					  ISO_TIME_RECORD_ORDER);
	check_time_source(":time values: a later record without :time has none",
					  "{:type :invoke, :process 0, :value [[:append 1 1]], :time 10}\n"
					  "{:type :ok, :process 0, :value [[:append 1 1]], :time 20}\n"
					  "{:type :invoke, :process 1, :value [[:r 1 nil]]}\n"
					  "{:type :ok, :process 1, :value [[:r 1 [1]]], :time 40}\n",
					  "1 ok p0 i10 c20 r2 l2: append 1 1 | 3 ok p1 i- c40 r4 l4: r 1 [1]",
					  ISO_TIME_VALUES);
	check_time_source("completions only: no real time",
					  "{:type :ok, :value [[:append 1 1]]}\n{:type :ok, :value [[:r 1 [1]]]}\n",
					  "0 ok p- i- c- r1 l1: append 1 1 | 1 ok p- i- c- r2 l2: r 1 [1]",
					  ISO_TIME_NONE);
}

static int
has_final_period(const char *m)
{
	size_t		n = strlen(m);

	return n > 0 && m[n - 1] == '.';
}

/* Check that an error is well-formed: message, detail and hint. */
static void
check_error_text(const char *desc, const IsoParseError *e)
{
	ok(e->message[0] != '\0' && !(e->message[0] >= 'A' && e->message[0] <= 'Z') &&
	   !has_final_period(e->message),
	   "%s: message lower case, no final period", desc);
	ok(e->detail[0] != '\0' && has_final_period(e->detail) &&
	   e->detail[0] >= 'A' && e->detail[0] <= 'Z',
	   "%s: detail is a sentence", desc);
	ok(e->hint[0] != '\0' && has_final_period(e->hint) &&
	   e->hint[0] >= 'A' && e->hint[0] <= 'Z',
	   "%s: hint is a sentence", desc);
}

static void
check_err_n(const char *desc, const char *text, size_t len, IsoWorkload exp,
			IsoErrorKind kind, int64 record, int64 line, const char *msg_sub)
{
	Sink		s;
	EdnStats	st;
	IsoParseError e;
	bool		r;

	sink_init(&s);
	s.render = 0;
	if (stream_lines && (len == 0 || text[len - 1] != '\n'))
	{
		/*
		 * A stream's lines all end: its errors at the end of the input are
		 * those of the whole text with a final newline (one line on).
		 */
		char	   *ended = malloc(len + 1);
		Sink		s2;
		EdnStats	st2;
		static IsoParseError e2;	/* msg_sub points into it */

		memcpy(ended, text, len);
		ended[len] = '\n';
		sink_init(&s2);
		s2.render = 0;
		stream_lines = false;
		ok(!parse_n(ended, len + 1, exp, &s2, &st2, &e2), "%s: fails with a final newline", desc);
		stream_lines = true;
		free(ended);
		free(s2.buf);
		line = e2.line;
		record = e2.record;
		msg_sub = e2.message;
		kind = e2.kind;
	}
	r = parse_n(text, len, exp, &s, &st, &e);
	ok(!r, "%s: fails", desc);
	if (!ok(e.kind == kind, "%s: kind %d", desc, (int) kind))
		diag("got kind %d: %s", e.kind, e.message);
	if (!ok(e.record == record, "%s: record %lld", desc, (long long) record))
		diag("got record %lld", (long long) e.record);
	if (!ok(e.line == line, "%s: line %lld", desc, (long long) line))
		diag("got line %lld", (long long) e.line);
	if (!ok(strstr(e.message, msg_sub) != NULL, "%s: message mentions \"%s\"", desc, msg_sub))
		diag("message: %s", e.message);
	check_error_text(desc, &e);
	free(s.buf);
}

static void
check_err(const char *desc, const char *text, IsoWorkload exp,
		  IsoErrorKind kind, int64 record, int64 line, const char *msg_sub)
{
	check_err_n(desc, text, strlen(text), exp, kind, record, line, msg_sub);
}

#define UNK ISO_WORKLOAD_UNKNOWN
#define LA	ISO_WORKLOAD_LIST_APPEND
#define RR	ISO_WORKLOAD_RW_REGISTER

/* ------------------------------------------------------------------ */

/* Statuses and ops as texts of a length: the whole text names one, or none. */
static void
names_parse_len(void)
{
	IsoStatus	st = ISO_STATUS_INFO;
	IsoOpKind	op = ISO_OP_READ;
	static const char okx[] = "okx";
	static const char appendx[] = "appendx";

	ok(iso_status_parse_len(okx, 2, &st) && st == ISO_STATUS_OK, "status of 2 bytes 'ok'");
	ok(iso_status_parse_len("fail", 4, &st) && st == ISO_STATUS_FAIL, "status 'fail'");
	ok(iso_status_parse_len("info", 4, &st) && st == ISO_STATUS_INFO, "status 'info'");
	ok(!iso_status_parse_len(okx, 3, &st) && !iso_status_parse_len(okx, 1, &st) &&
	   !iso_status_parse_len(okx, 0, &st) && !iso_status_parse_len("OK", 2, &st),
	   "no status: 'okx', 'o', '', 'OK'");
	ok(iso_op_parse_len(appendx, 6, &op) && op == ISO_OP_APPEND, "op of 6 bytes 'append'");
	ok(iso_op_parse_len("r", 1, &op) && op == ISO_OP_READ &&
	   iso_op_parse_len("w", 1, &op) && op == ISO_OP_WRITE, "ops 'r', 'w'");
	ok(!iso_op_parse_len(appendx, 7, &op) && !iso_op_parse_len(appendx, 5, &op) &&
	   !iso_op_parse_len("rw", 2, &op) && !iso_op_parse_len("ok", 2, &op),
	   "no op: 'appendx', 'appen', 'rw', 'ok'");
}

static void
test_names(void)
{
	is_str(iso_status_name(ISO_STATUS_OK), "ok", "status name ok");
	is_str(iso_status_name(ISO_STATUS_FAIL), "fail", "status name fail");
	is_str(iso_status_name(ISO_STATUS_INFO), "info", "status name info");
	is_str(iso_op_name(ISO_OP_READ), "r", "op name r");
	is_str(iso_op_name(ISO_OP_WRITE), "w", "op name w");
	is_str(iso_op_name(ISO_OP_APPEND), "append", "op name append");
	is_str(iso_workload_name(ISO_WORKLOAD_LIST_APPEND), "list-append", "workload name list-append");
	is_str(iso_workload_name(ISO_WORKLOAD_RW_REGISTER), "rw-register", "workload name rw-register");
	is_str(iso_workload_name(ISO_WORKLOAD_UNKNOWN), "unknown", "workload name unknown");
	names_parse_len();
}

static void
test_basic(void)
{
	/* the tiny hand-made register files: completions only */
	check_parse("register file (g1a)",
				"{:type :fail, :value [[:w 1 1]]}\n"
				"{:type :ok, :value [[:r 1 1] [:w 1 2]]}\n"
				"{:type :ok, :value [[:r 1 2] [:r 2 3]]}",
				UNK,
				"0 fail p- i- c- r1 l1: w 1 1 | "
				"1 ok p- i- c- r2 l2: r 1 1; w 1 2 | "
				"2 ok p- i- c- r3 l3: r 1 2; r 2 3", RR);

	/* real Jepsen list-append: invoke/ok pairing */
	check_parse("list-append invoke/ok",
				"{:type :invoke, :f :txn, :value [[:append 4 1] [:r 2 nil]], :time 18483060462, :process 5, :index 0}\n"
				"{:type :invoke, :f :txn, :value [[:r 4 nil] [:append 3 1]], :time 18460547580, :process 14, :index 1}\n"
				"{:type :ok, :f :txn, :value [[:append 4 1] [:r 2 []]], :time 18532025593, :process 5, :index 2}\n"
				"{:type :fail, :f :txn, :value [[:r 4 nil] [:append 3 1]], :time 18560547580, :process 14, :error :ww-conflict, :index 3}\n",
				UNK,
				"2 ok p5 i18483060462 c18532025593 r3 l3: append 4 1; r 2 [] | "
				"3 fail p14 i18460547580 c18560547580 r4 l4: r 4 nil; append 3 1", LA);

	/* rw-register from the formats doc, keys in another order */
	check_parse("rw-register key order",
				"{:index 4, :time 16315834531, :type :invoke, :process 2, :f :txn, :value [[:r 0 nil] [:w 2 4] [:r 2 nil]]}\n"
				"{:index 5, :time 16323925741, :type :ok, :process 2, :f :txn, :value [[:r 0 nil] [:w 2 4] [:r 2 4]]}\n",
				UNK,
				"5 ok p2 i16315834531 c16323925741 r2 l2: r 0 nil; w 2 4; r 2 4", RR);

	check_parse("list read with elements",
				"{:type :ok, :value [[:r 5 [1 2 3]] [:r 6 (7)] [:append 5 4]]}", UNK,
				"0 ok p- i- c- r1 l1: r 5 [1,2,3]; r 6 [7]; append 5 4", LA);

	check_parse("empty value vector",
				"{:type :ok, :value []}", UNK, "0 ok p- i- c- r1 l1:", UNK);
	check_parse("only nil reads: workload unknown",
				"{:type :ok, :value [[:r 1 nil]]}", UNK, "0 ok p- i- c- r1 l1: r 1 nil", UNK);
	check_parse("expected workload reported with no evidence",
				"{:type :ok, :value [[:r 1 nil]]}", LA, "0 ok p- i- c- r1 l1: r 1 nil", LA);
	check_parse("empty input", "", UNK, "", UNK);
	check_parse("only whitespace and comments", "  \n; a comment\n,,\n;x", RR, "", RR);
}

static void
test_syntax_variants(void)
{
	check_parse("enclosing vector, commas, comments, blank lines",
				"; history\n[\n\n{:type :ok, :value [[:w 1 1]]} ; first\n,\n{:type :ok :value [[:r 1 1]]}\n]\n; end\n",
				UNK,
				"0 ok p- i- c- r1 l4: w 1 1 | 1 ok p- i- c- r2 l6: r 1 1", RR);
	check_parse("enclosing list",
				"({:type :ok, :value [[:w 1 1]]})", UNK, "0 ok p- i- c- r1 l1: w 1 1", RR);
	check_parse("map wrapped over lines",
				"{:type :ok,\n :value [[:w 1 1]\n         [:w 2 1]],\n :index 7}\n{:type :ok, :value [[:r 1 1]]}",
				UNK, "7 ok p- i- c- r1 l1: w 1 1; w 2 1 | 1 ok p- i- c- r2 l5: r 1 1", RR);
	check_parse("CRLF line endings",
				"{:type :ok, :value [[:w 1 1]]}\r\n{:type :ok, :value [[:r 1 1]]}\r\n", UNK,
				"0 ok p- i- c- r1 l1: w 1 1 | 1 ok p- i- c- r2 l2: r 1 1", RR);
	check_parse("unknown keys of every shape are ignored",
				"{:error [:ww-conflict {:key 3, :msg \"conflict \\\"x\\\"\\n\\t\\\\ \\u00e9\"}], :type :ok, "
				":node \"n1\", :sym foo/bar, :flags #{:a :b #{1}}, :l (1 2 (3)), :t true, :f2 false, "
				":n nil, :fl 1.5e3, :fl2 -2.5M, :big 123456789012345678901234567890N, :ch \\a, :ch2 \\newline, "
				":inst #inst \"2020-01-01\", :inf ##Inf, :nested {:a {:b {:c [1 [2 [3]]]}}}, "
				"\"string key\" 1, 42 43, [1 2] {3 4}, :value [[:w 1 1]]}",
				UNK, "0 ok p- i- c- r1 l1: w 1 1", RR);
	check_parse("error keyword and string values",
				"{:type :fail, :error :timeout, :value [[:w 1 1]]}\n{:type :info, :error \"indeterminate: \\\"x\\\"\", :value [[:w 2 1]]}",
				UNK, "0 fail p- i- c- r1 l1: w 1 1 | 1 info p- i- c- r2 l2: w 2 1", RR);
	check_parse("#_ discard everywhere",
				"#_ {:type :bogus} {:type :ok, #_ :type #_ :fail :value [#_ [:w 9 9] [:w 1 #_ 2 1] #_ #_ [:r] [:x]]}\n#_ [1 2 [3]]",
				UNK, "0 ok p- i- c- r1 l1: w 1 1", RR);
	check_parse("tagged record map",
				"#jepsen.history.Op{:index 3, :type :ok, :value [[:append 1 2]]}", UNK,
				"3 ok p- i- c- r1 l1: append 1 2", LA);
	check_parse("list micro-ops and list :value",
				"{:type :ok, :value ((:append 1 2) (:r 1 [2]))}", UNK,
				"0 ok p- i- c- r1 l1: append 1 2; r 1 [2]", LA);
}

static void
test_scalars(void)
{
	check_parse("a float may start with zeros (it is skipped)",
				"{:type :ok, :fl 00.5, :value [[:w 1 1]]}",
				UNK, "0 ok p- i- c- r1 l1: w 1 1", RR);
	check_parse("integer canonical forms",
				"{:type :ok, :value [[:w +5 7] [:w -0 5N] [:w -12 -9223372036854775808] [:w 9223372036854775807 0]]}",
				UNK,
				"0 ok p- i- c- r1 l1: w 5 7; w 0 5; w -12 -9223372036854775808; w 9223372036854775807 0", RR);
	/* EDN has no octal: a leading zero is an error, not 777 (nor 511) */
	check_err("leading zero", "{:type :ok, :value [[:w 1 0777]]}", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "invalid integer '0777', expected no leading zero");
	check_err("leading zeros, negative, in a list read", "{:type :ok, :value [[:r 1 [1 -007]]]}", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "invalid integer '-007'");
	check_err("leading zero in :process", "{:type :ok, :process 01, :value [[:w 1 1]]}", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "invalid integer '01'");
	check_err("leading zero in a nemesis record", "{:type :info, :f :start, :process :nemesis, :value 00}", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "invalid integer '00'");
	check_parse("string and keyword keys and values",
				"{:type :ok, :value [[:w \"k\" \"v 1\"] [:w :x :y] [:w \"a\\\"b\\\\c\\n\\t\" \"\\u00e9\\ud83d\\ude00/\\/\"] [:w \"\" \"e\"]]}",
				UNK,
				"0 ok p- i- c- r1 l1: w k v 1; w :x :y; w a\"b\\c\n\t \xc3\xa9\xf0\x9f\x98\x80//; w  e", RR);
	check_parse("raw UTF-8 in strings",
				"{:type :ok, :value [[:append \"cl\xc3\xa9\" \"\xe2\x82\xac\xf0\x9f\x98\x80\"]]}", UNK,
				"0 ok p- i- c- r1 l1: append cl\xc3\xa9 \xe2\x82\xac\xf0\x9f\x98\x80", LA);
	check_parse("list read of strings and keywords",
				"{:type :ok, :value [[:r :k [\"a\" :b -3 +4]]]}", UNK,
				"0 ok p- i- c- r1 l1: r :k [a,:b,-3,4]", LA);
	check_parse("multi-line string counts lines",
				"{:type :ok, :error \"line1\nline2\", :value [[:w 1 1]]}\n{:type :ok, :value [[:r 1 1]]}", UNK,
				"0 ok p- i- c- r1 l1: w 1 1 | 1 ok p- i- c- r2 l3: r 1 1", RR);
}

static void
test_pairing(void)
{
	check_parse("nemesis and non-txn records are skipped but count as positions",
				"{:type :info, :f :start-partition, :process :nemesis, :value [:isolated {\"n1\" #{\"n2\"}}]}\n"
				"{:type :invoke, :f :txn, :value [[:w 1 1]], :process 0}\n"
				"{:type :info, :f :kill, :process :nemesis, :value nil}\n"
				"{:type :ok, :f :txn, :value [[:w 1 1]], :process 0}\n"
				"{:type :ok, :f :read, :process 3, :value 12}\n"
				"{:type :sleep, :f :txn, :process :nemesis, :value 99999999999999999999999}\n",
				UNK, "3 ok p0 i1 c3 r4 l4: w 1 1", RR);
	{
		Sink		s;
		EdnStats	st;
		IsoParseError e;
		const char *t =
			"{:type :info, :f :start, :process :nemesis}\n"
			"{:type :invoke, :f :txn, :value [[:w 1 1]], :process 0}\n"
			"{:type :ok, :f :txn, :value [[:w 1 1] [:r 2 3]], :process 0}\n"
			"{:type :fail, :value [[:w 1 2]]}\n"
			"{:type :info, :value [[:w 1 3]]}\n"
			"{:type :invoke, :value [[:w 1 4]], :process 9}\n";

		sink_init(&s);
		s.render = 0;
		ok(parse_n(t, strlen(t), UNK, &s, &st, &e), "stats: parses");
		ok(st.records == 6, "stats: records 6 (got %lld)", (long long) st.records);
		ok(st.skipped == 1, "stats: skipped 1");
		ok(st.txns == 4, "stats: txns 4 (got %lld)", (long long) st.txns);
		ok(st.ok == 1 && st.fail == 1 && st.info == 2, "stats: ok 1, fail 1, info 2");
		ok(st.events == 5, "stats: events 5 (got %lld)", (long long) st.events);
		ok(st.workload == RR, "stats: workload rw-register");
		ok(s.calls == 4, "stats: 4 callbacks");
		ok(st.skipped_f == 1 && st.skipped_process == 0, "stats: skipped for :f 1, for :process 0");
		free(s.buf);
	}
	/*
	 * One :process rule: nil = absent (kept, no process); a keyword = no
	 * client (skipped, counted); anything else in a transaction = error.
	 */
	check_parse(":process nil is kept like a missing :process",
				"{:type :ok, :process nil, :value [[:w 1 1]]}\n"
				"{:type :ok, :value [[:w 1 2]]}\n",
				UNK, "0 ok p- i- c- r1 l1: w 1 1 | 1 ok p- i- c- r2 l2: w 1 2", RR);
	check_parse(":process nil pairs with a :process nil invocation",
				"{:type :invoke, :process nil, :value [[:w 1 1]]}\n"
				"{:type :ok, :value [[:w 1 1]]}\n",
				UNK, "1 ok p- i0 c1 r2 l2: w 1 1", RR);	/* record order: times */
	check_parse("a keyword :process is no client's: skipped",
				"{:type :ok, :process :nemesis, :value [[:w 1 1]]}\n"
				"{:type :ok, :f :txn, :process :other, :value [[:w 1 2]]}\n"
				"{:type :ok, :process 0, :value [[:w 1 3]]}\n",
				UNK, "2 ok p0 i- c- r3 l3: w 1 3", RR);
	{
		Sink		s;
		EdnStats	st;
		IsoParseError e;
		const char *t =
			"{:type :ok, :process :nemesis, :value [[:w 1 1]]}\n"
			"{:type :info, :f :kill, :process 3}\n"
			"{:type :ok, :process nil, :value [[:w 1 2]]}\n";

		sink_init(&s);
		s.render = 0;
		ok(parse_n(t, strlen(t), UNK, &s, &st, &e), "process stats: parses");
		ok(st.skipped == 2 && st.skipped_f == 1 && st.skipped_process == 1 && st.txns == 1,
		   "process stats: skipped 2 (1 for :f, 1 for :process), 1 txn");
		free(s.buf);
	}
	check_err(":process 1.5", "{:type :ok, :process 1.5, :value [[:w 1 1]]}", UNK,
			  ISO_PARSE_INVALID, 1, 1, ":process '1.5' is not an integer");
	check_err(":process \"p\"", "{:type :ok, :value [[:w 1 1]]}\n{:type :ok, :process \"p\", :value [[:w 1 2]]}", UNK,
			  ISO_PARSE_INVALID, 2, 2, ":process '\"p\"' is not an integer");
	check_err(":process [1]", "{:type :invoke, :process [1], :value [[:w 1 1]]}", UNK,
			  ISO_PARSE_INVALID, 1, 1, ":process '[1]' is not an integer");
	check_parse("a bad :process in a non-:txn record is not an error",
				"{:type :info, :f :start, :process 1.5}\n{:type :ok, :value [[:w 1 1]]}",
				UNK, "1 ok p- i- c- r2 l2: w 1 1", RR);
	check_parse("completion without :value takes the invocation's ops",
				"{:type :invoke, :value [[:append 1 1] [:r 1 nil]], :process 1, :time 10}\n"
				"{:type :info, :process 1, :time 20}\n"
				"{:type :invoke, :value [[:append 1 2]], :process 1, :time 30}\n"
				"{:type :ok, :process 1, :time 40, :value nil}\n",
				UNK,
				"1 info p1 i10 c20 r2 l2: append 1 1; r 1 nil | 3 ok p1 i30 c40 r4 l4: append 1 2", LA);
	check_parse("info completion with nil reads",
				"{:type :invoke, :value [[:r 1 nil] [:append 2 1]], :process 1, :index 10}\n"
				"{:type :info, :value [[:r 1 nil] [:append 2 1]], :process 1, :index 11}\n",
				UNK, "11 info p1 i0 c1 r2 l2: r 1 nil; append 2 1", LA);
	check_parse("invocation superseded by a new one becomes info",
				"{:type :invoke, :value [[:w 1 1]], :process 1, :time 5, :index 100}\n"
				"{:type :invoke, :value [[:w 1 2]], :process 1, :time 6}\n"
				"{:type :ok, :value [[:w 1 2]], :process 1, :time 7}\n",
				UNK, "100 info p1 i5 c- r1 l1: w 1 1 | 2 ok p1 i6 c7 r3 l3: w 1 2", RR);
	check_parse("pending invocations at end of input, in record order",
				"{:type :invoke, :value [[:w 3 1]], :process 7}\n"
				"{:type :invoke, :value [[:w 1 1]], :process 2, :index 41}\n"
				"{:type :invoke, :value [[:w 2 1]]}\n"
				"{:type :invoke, :value [[:w 4 1]], :process 3}\n"
				"{:type :ok, :value [[:w 4 1]], :process 3}\n",
				UNK,
				"4 ok p3 i3 c4 r5 l5: w 4 1 | 0 info p7 i0 c- r1 l1: w 3 1 | "
				"41 info p2 i1 c- r2 l2: w 1 1 | 2 info p- i2 c- r3 l3: w 2 1", RR);
	check_parse("records without :process pair among themselves",
				"{:type :invoke, :value [[:w 1 1]]}\n{:type :ok, :value [[:w 1 1]]}\n"
				"{:type :invoke, :value [[:r 1 nil]]}\n{:type :ok, :value [[:r 1 1]]}\n",
				UNK, "1 ok p- i0 c1 r2 l2: w 1 1 | 3 ok p- i2 c3 r4 l4: r 1 1", RR);
	check_parse("same write in invoke and completion is not a duplicate",
				"{:type :invoke, :value [[:append 1 1]], :process 1}\n{:type :fail, :value [[:append 1 1]], :process 1}\n",
				UNK, "1 fail p1 i0 c1 r2 l2: append 1 1", LA);
	check_parse("negative and large processes",
				"{:type :invoke, :value [[:w 1 1]], :process -9223372036854775808}\n"
				"{:type :invoke, :value [[:w 1 2]], :process 9223372036854775807}\n"
				"{:type :ok, :value [[:w 1 1]], :process -9223372036854775808}\n"
				"{:type :ok, :value [[:w 1 2]], :process 9223372036854775807}\n",
				UNK,
				"2 ok p-9223372036854775808 i0 c2 r3 l3: w 1 1 | 3 ok p9223372036854775807 i1 c3 r4 l4: w 1 2", RR);
	/* escaped strings in a pending invocation must survive later records */
	check_parse("pending invocation keeps unescaped strings",
				"{:type :invoke, :value [[:w \"k\\\"1\" \"v\\u00e9\"] [:r \"q\\n\" nil]], :process 1}\n"
				"{:type :ok, :value [[:w \"other\\t\" \"x\\\\\"]], :process 2}\n"
				"{:type :ok, :value [[:w \"more\\\"\" \"y\\\"\"]], :process 3}\n"
				"{:type :ok, :process 1}\n",
				UNK,
				"1 ok p2 i- c- r2 l2: w other\t x\\ | 2 ok p3 i- c- r3 l3: w more\" y\" | "
				"3 ok p1 i0 c3 r4 l4: w k\"1 v\xc3\xa9; r q\n nil", RR);
	check_parse("pending list reads keep their elements",
				"{:type :invoke, :value [[:r 1 [1 2 \"a\\\"\"]] [:append 1 3]], :process 1}\n"
				"{:type :ok, :value [[:r 2 [9 8]]], :process 2}\n"
				"{:type :info, :process 1}\n",
				UNK, "1 ok p2 i- c- r2 l2: r 2 [9,8] | 2 info p1 i0 c2 r3 l3: r 1 [1,2,a\"]; append 1 3", LA);
}

static void
test_many(void)
{
	/* many processes and many writes: hash tables grow */
	size_t		cap = 4 << 20,
				len = 0;
	char	   *t = malloc(cap);
	int			i;
	Sink		s;
	EdnStats	st;
	IsoParseError e;
	bool		r;

	for (i = 0; i < 5000; i++)
		len += (size_t) snprintf(t + len, cap - len,
								 "{:type :invoke, :f :txn, :value [[:append %d %d] [:r %d nil]], :process %d, :time %d, :index %d}\n",
								 i % 97, i, i % 89, i, 2 * i, 2 * i);
	for (i = 0; i < 5000; i++)
		len += (size_t) snprintf(t + len, cap - len,
								 "{:type %s, :f :txn, :value [[:append %d %d] [:r %d [1 2 \"x\\\"\"]]], :process %d, :time %d, :index %d}\n",
								 i % 3 == 0 ? ":ok" : (i % 3 == 1 ? ":fail" : ":info"),
								 i % 97, i, i % 89, 4999 - i, 10000 + i, 10000 + i);
	sink_init(&s);
	s.render = 0;
	r = parse_n(t, len, UNK, &s, &st, &e);
	ok(r, "5000 processes: parses");
	ok(st.txns == 5000 && s.calls == 5000, "5000 processes: 5000 txns");
	ok(st.events == 10000, "5000 processes: 10000 events");
	ok(st.ok == 1667 && st.fail == 1667 && st.info == 1666, "5000 processes: status counts");

	/* now append a duplicate of an early write */
	len += (size_t) snprintf(t + len, cap - len, "{:type :ok, :value [[:append 5 5]]}\n");
	r = parse_n(t, len, UNK, &s, &st, &e);
	ok(!r && e.kind == ISO_PARSE_DUPLICATE && e.record == 10001,
	   "duplicate found after 10000 records (record %lld)", (long long) e.record);
	/* a stream's bitmaps know the value was written, not where */
	ok(strstr(e.detail, stream_lines ? "An earlier record already wrote value '5' to key '5'; the second write is '[:append 5 5]'." :
			  "Record 5006 (line 5006)") != NULL,
	   "duplicate detail names the earlier completion record, or in a stream says an earlier one (%s)", e.detail);
	free(s.buf);
	free(t);
}

static void
test_callback_stop(void)
{
	Sink		s;
	EdnStats	st;
	IsoParseError e;
	const char *t = "{:type :ok, :value [[:w 1 1]]}\n{:type :ok, :value [[:w 1 2]]}\n{:type :ok, :value [[:w 1 3]]}\n";
	bool		r;

	sink_init(&s);
	s.stop_after = 2;
	r = parse_n(t, strlen(t), UNK, &s, &st, &e);
	ok(!r, "callback stop: returns false");
	ok(e.kind == ISO_PARSE_OK && e.message[0] == '\0', "callback stop: err unset");
	ok(s.calls == 2, "callback stop: no call after the stop");
	free(s.buf);

	sink_init(&s);
	s.stop_after = 1;
	t = "{:type :invoke, :value [[:w 1 1]], :process 1}\n{:type :invoke, :value [[:w 1 2]], :process 2}\n";
	r = parse_n(t, strlen(t), UNK, &s, &st, &e);
	ok(!r && e.kind == ISO_PARSE_OK && s.calls == 1, "callback stop during end-of-input flush");
	free(s.buf);
}

static void
test_syntax_errors(void)
{
	char	   *big;
	size_t		i,
				n;

	check_err("truncated map", "{:type :ok, :value [[:w 1 1]]}\n{:type :ok, :val", UNK,
			  ISO_PARSE_SYNTAX, 2, 2, "unterminated map");
	check_err("truncated vector (innermost reported)", "{:type :ok, :value [[:w 1 1]]}\n\n{:type :ok, :value [[:w 1 2]\n [:w", UNK,
			  ISO_PARSE_SYNTAX, 2, 4, "unterminated vector '[:w'");
	check_err("truncated inner micro-op", "{:type :ok, :value [[:w 1 1]]}\n{:type :ok, :value [[:w 1 2] [:w 3\n", UNK,
			  ISO_PARSE_SYNTAX, 2, 2, "unterminated vector '[:w 3");
	check_err("truncated string", "{:type :ok, :value [[:w 1 1]]}\n{:type :ok, :error \"abc\ndef", UNK,
			  ISO_PARSE_SYNTAX, 2, 2, "unterminated string '\"abc\\ndef'");
	check_err("truncated enclosing vector", "[{:type :ok, :value [[:w 1 1]]}\n", UNK,
			  ISO_PARSE_SYNTAX, 0, 1, "unterminated vector");
	/* the vector's start is quoted, though the stream's chunk of it is gone */
	check_err("truncated enclosing vector, quoted", "[{:type :ok, :value [[:w 1 1]]}\n{:type :ok, :value [[:w 1 2]]}\n", UNK,
			  ISO_PARSE_SYNTAX, 0, 1, "unterminated vector '[{:type :ok");
	check_err("unexpected character", "{:type :ok, :value [[:w 1 1]]}\n{:type :ok, :value [[:w 1 @2]]}", UNK,
			  ISO_PARSE_SYNTAX, 2, 2, "unexpected character '@'");
	check_err("unexpected non-ASCII outside strings", "{:type :ok, :value [[:w 1 1]] \xc3\xa9}", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "unexpected character '\xc3\xa9'");
	check_err("mismatched bracket", "{:type :ok, :value [[:w 1 1}}", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "expected ']'");
	check_err("mismatched bracket in skipped value", "{:type :ok, :x [1 2}, :value []}", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "expected ']'");
	check_err("map closed by ]", "{:type :ok, :value []]", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "expected '}'");
	check_err("odd map", "{:type :ok, :value [[:w 1 1]], :type}", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "key without a value");
	check_err("stray closing brace", "{:type :ok, :value []}\n}", UNK,
			  ISO_PARSE_SYNTAX, 2, 2, "unexpected '}'");
	check_err("text after enclosing vector", "[{:type :ok, :value []}]\n{:type :ok}", UNK,
			  ISO_PARSE_SYNTAX, 0, 2, "after the end of the history vector");
	check_err("invalid escape", "{:type :ok, :value [[:w \"a\\qb\" 1]]}", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "invalid escape '\\q'");
	check_err("bad \\u escape", "{:type :ok, :value [[:w \"a\\u12G4\" 1]]}", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "invalid \\u escape");
	check_err("truncated \\u escape", "{:type :ok, :value [[:w \"\\u12", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "invalid \\u escape");
	check_err("unpaired high surrogate", "{:type :ok, :value [[:w \"\\ud83dx\" 1]]}", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "unpaired surrogate");
	check_err("unpaired low surrogate", "{:type :ok, :value [[:w \"\\ude00\" 1]]}", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "unpaired surrogate");
	check_err_n("NUL byte in string", "{:type :ok, :value [[:w \"a\0b\" 1]]}", 34, UNK,
				ISO_PARSE_SYNTAX, 1, 1, "contains a NUL byte");
	check_err_n("NUL byte outside string", "{:type :ok, :value [[:w 1 1]] \0}", 32, UNK,
				ISO_PARSE_SYNTAX, 1, 1, "unexpected character '\\x00'");
	check_err("invalid UTF-8 in string", "{:type :ok,\n :node \"n\xff\"}", UNK,
			  ISO_PARSE_SYNTAX, 1, 2, "invalid UTF-8 byte 0xff");
	check_err("overlong UTF-8 in string", "{:type :ok, :node \"\xc0\xaf\"}", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "invalid UTF-8");
	check_err("UTF-8 surrogate in string", "{:type :ok, :node \"\xed\xa0\x80\"}", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "invalid UTF-8");
	check_err("truncated UTF-8 at end of input", "{:type :ok, :node \"\xe2\x82", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "invalid UTF-8");
	check_err("NUL escape in a used key", "{:type :ok, :value [[:w \"a\\u0000\" 1]]}", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "contains the NUL character");
	check_parse("NUL escape in an ignored string is fine",
				"{:type :ok, :node \"a\\u0000\", :value [[:w 1 1]]}", UNK, "0 ok p- i- c- r1 l1: w 1 1", RR);
	check_err("invalid number", "{:type :ok, :value [[:w 12abc 1]]}", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "invalid number '12abc'");
	check_err("invalid exponent", "{:type :ok, :x 1e, :value []}", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "invalid number '1e'");
	check_err("lone colon", "{:type :ok, : 1}", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "invalid keyword");
	check_err("bad dispatch", "{:type :ok, :x #!foo}", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "unexpected character sequence '#!'");
	check_err("## without a name", "{:type :ok, :x ##}", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "unexpected character sequence '##'");
	check_err("## at end of input", "{:type :ok, :x ##", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "unexpected character sequence '##'");
	check_err("discard at end of input", "{:type :ok, :value []} #_", UNK,
			  ISO_PARSE_SYNTAX, 2, 1, "unexpected end of input");
	check_err("discard before closing bracket", "[{:type :ok, :value []} #_]", UNK,
			  ISO_PARSE_SYNTAX, 2, 1, "unexpected ']'");
	check_err("backslash at end of input", "{:type :ok, :x \\", UNK,
			  ISO_PARSE_SYNTAX, 1, 1, "invalid character literal");

	/* nesting */
	{
		char		buf[512];

		n = 0;
		n += (size_t) snprintf(buf, sizeof(buf), "{:type :ok, :x ");
		for (i = 0; i < EDN_MAX_DEPTH - 1; i++)
			buf[n++] = '[';
		for (i = 0; i < EDN_MAX_DEPTH - 1; i++)
			buf[n++] = ']';
		n += (size_t) snprintf(buf + n, sizeof(buf) - n, ", :value [[:w 1 1]]}");
		buf[n] = '\0';
		check_parse("nesting of exactly EDN_MAX_DEPTH", buf, UNK, "0 ok p- i- c- r1 l1: w 1 1", RR);
		n = 0;
		n += (size_t) snprintf(buf, sizeof(buf), "{:type :ok, :x ");
		for (i = 0; i < EDN_MAX_DEPTH; i++)
			buf[n++] = (i % 3 == 0) ? '[' : (i % 3 == 1 ? '(' : '{');
		buf[n] = '\0';
		check_err("nesting of EDN_MAX_DEPTH + 1", buf, UNK, ISO_PARSE_LIMIT, 1, 1, "nesting deeper than 64");
	}
	n = 1000000;
	big = malloc(n + 32);
	memcpy(big, "{:type :ok, :x ", 15);
	memset(big + 15, '[', n);
	check_err_n("a million open brackets", big, n + 15, UNK, ISO_PARSE_LIMIT, 1, 1, "nesting deeper");
	memset(big, '[', n);
	check_err_n("a million open brackets at top level", big, n, UNK, ISO_PARSE_INVALID, 1, 1, "is not a map");
	for (i = 0; i + 2 <= n; i += 2)
		memcpy(big + i, "#_", 2);
	check_err_n("half a million discards", big, n, UNK, ISO_PARSE_SYNTAX, 1, 1, "unexpected end of input");
	memcpy(big, "{:type :ok, :x ", 15);
	for (i = 15; i + 5 <= n; i += 5)
		memcpy(big + i, "#{#_ ", 5);
	check_err_n("deep sets with discards", big, i, UNK, ISO_PARSE_LIMIT, 1, 1, "nesting deeper");
	for (i = 0; i + 3 <= n; i += 3)
		memcpy(big + i, "#a ", 3);
	check_err_n("many tags", big, i, UNK, ISO_PARSE_INVALID, 1, 1, "is not a map");
	free(big);
}

static void
test_invalid(void)
{
	check_err("record not a map", "{:type :ok, :value []}\n[:type :ok]", UNK,
			  ISO_PARSE_INVALID, 2, 2, "record 2 is not a map: '[:type :ok]");
	check_err("number as record", "42", UNK, ISO_PARSE_INVALID, 1, 1, "record 1 is not a map: '42'");
	check_err("tag without map", "#foo [1]", UNK, ISO_PARSE_INVALID, 1, 1, "is not a map");
	check_err("missing :type", "{:type :ok, :value []}\n{:process 1, :value [[:w 1 1]]}", UNK,
			  ISO_PARSE_INVALID, 2, 2, "no :type");
	check_err("unknown :type", "{:type :ok, :value []}\n{:value [[:w 1 1]],\n :type :done}", UNK,
			  ISO_PARSE_INVALID, 2, 3, "unknown :type ':done'");
	check_err("string :type", "{:type \"ok\", :value []}", UNK, ISO_PARSE_INVALID, 1, 1, "unknown :type '\"ok\"'");
	check_err("vector :type", "{:type [:ok], :value []}", UNK, ISO_PARSE_INVALID, 1, 1, "unknown :type '[:ok]'");
	check_err(":value not a vector", "{:type :ok, :value 3}", UNK, ISO_PARSE_INVALID, 1, 1, ":value '3' is not a vector");
	check_err(":value a map", "{:type :ok, :value {:a 1}}", UNK, ISO_PARSE_INVALID, 1, 1, ":value '{:a 1}' is not a vector");
	check_err("micro-op not a vector", "{:type :ok, :value [:r 1 2]}", UNK, ISO_PARSE_INVALID, 1, 1, "micro-op ':r' is not a vector");
	check_err("micro-op with 0 elements", "{:type :ok, :value [[]]}", UNK, ISO_PARSE_INVALID, 1, 1, "has 0 elements");
	check_err("micro-op with 1 element", "{:type :ok, :value [[:r]]}", UNK, ISO_PARSE_INVALID, 1, 1, "has 1 element");
	check_err("micro-op with 2 elements", "{:type :ok, :value [[:w 1 1]\n [:r 1]]}", UNK, ISO_PARSE_INVALID, 1, 2, "micro-op '[:r 1]' has 2 elements");
	check_err("micro-op with 4 elements", "{:type :ok, :value [[:w 1 1 1]]}", UNK, ISO_PARSE_INVALID, 1, 1, "has more than 3 elements");
	check_err("unknown micro-op", "{:type :ok, :value [[:cas 1 [1 2]]]}", UNK, ISO_PARSE_INVALID, 1, 1, "unknown micro-op ':cas'");
	check_err("string micro-op name", "{:type :ok, :value [[\"r\" 1 2]]}", UNK, ISO_PARSE_INVALID, 1, 1, "unknown micro-op '\"r\"'");
	check_err("write of nil", "{:type :ok, :value [[:w 1 nil]]}", UNK, ISO_PARSE_INVALID, 1, 1, "writes nil");
	check_err("append of a vector", "{:type :ok, :value [[:append 1 [2]]]}", UNK, ISO_PARSE_INVALID, 1, 1, "value written '[2]'");
	check_err("nil key", "{:type :ok, :value [[:r nil 1]]}", UNK, ISO_PARSE_INVALID, 1, 1, "micro-op key 'nil'");
	check_err("float key", "{:type :ok, :value [[:r 1.5 1]]}", UNK, ISO_PARSE_INVALID, 1, 1, "micro-op key '1.5'");
	check_err("boolean value read", "{:type :ok, :value [[:r 1 true]]}", UNK, ISO_PARSE_INVALID, 1, 1, "value read 'true'");
	check_err("map value read", "{:type :ok, :value [[:r 1 {}]]}", UNK, ISO_PARSE_INVALID, 1, 1, "value read '{}");
	check_err("nested list element", "{:type :ok, :value [[:r 1 [1 [2]]]]}", UNK, ISO_PARSE_INVALID, 1, 1, "list element '[2]");
	check_err("nil list element", "{:type :ok, :value [[:r 1 [1 nil]]]}", UNK, ISO_PARSE_INVALID, 1, 1, "list element 'nil'");
	check_err(":time not an integer", "{:type :ok, :time \"now\", :value []}", UNK, ISO_PARSE_INVALID, 1, 1, ":time '\"now\"' is not an integer");
	check_err(":index not an integer", "{:type :ok, :index 1.0, :value []}", UNK, ISO_PARSE_INVALID, 1, 1, ":index '1.0' is not an integer");
	check_err("duplicate :type key", "{:type :ok, :value [], :type :fail}", UNK, ISO_PARSE_INVALID, 1, 1, "duplicate key ':type'");
	check_err("first deferred error wins",
			  "{:type :bad, :value [[:x 1 1]], :process 1}", UNK, ISO_PARSE_INVALID, 1, 1, "unknown :type ':bad'");
	check_err("error in value before :f decides it is a txn",
			  "{:value [[:r 1 2.5]], :type :ok, :f :txn, :process 3}", UNK, ISO_PARSE_INVALID, 1, 1, "value read '2.5'");
	check_err("syntax error inside a bad :value still reported",
			  "{:type :ok, :value [[:x 1 \"a\\q\"]]}", UNK, ISO_PARSE_SYNTAX, 1, 1, "invalid escape");
}

static void
test_range(void)
{
	check_err("key overflow", "{:type :ok, :value [[:w 9223372036854775808 1]]}", UNK,
			  ISO_PARSE_RANGE, 1, 1, "integer '9223372036854775808' in micro-op key is out of range");
	check_err("value underflow", "{:type :ok, :value [[:w 1 -9223372036854775809]]}", UNK,
			  ISO_PARSE_RANGE, 1, 1, "'-9223372036854775809' in value written");
	check_err("bigint suffix out of range", "{:type :ok, :value [[:append 1 99999999999999999999999N]]}", UNK,
			  ISO_PARSE_RANGE, 1, 1, "out of range");
	check_err("read value overflow", "{:type :ok, :value [[:r 1 18446744073709551616]]}", UNK,
			  ISO_PARSE_RANGE, 1, 1, "value read");
	check_err("list element overflow", "{:type :ok, :value [[:r 1 [1 18446744073709551617]]]}", UNK,
			  ISO_PARSE_RANGE, 1, 1, "list element");
	check_err(":time overflow", "{:type :ok, :value [],\n :time 99999999999999999999}", UNK,
			  ISO_PARSE_RANGE, 1, 2, ":time");
	check_err(":index overflow", "{:type :ok, :value [], :index 9223372036854775808}", UNK,
			  ISO_PARSE_RANGE, 1, 1, ":index");
	check_err(":process overflow", "{:type :ok, :value [], :process -9223372036854775809}", UNK,
			  ISO_PARSE_RANGE, 1, 1, ":process");
	check_parse("big integers elsewhere are fine",
				"{:type :ok, :x 99999999999999999999999, :y [-99999999999999999999N], :value [[:w 1 1]]}", UNK,
				"0 ok p- i- c- r1 l1: w 1 1", RR);
}

static void
test_workload(void)
{
	check_err("append in a register history",
			  "{:type :ok, :value [[:w 1 1]]}\n{:type :ok, :value [[:r 1 1] [:append 1 2]]}", UNK,
			  ISO_PARSE_INVALID, 2, 2, "micro-op '[:append 1 2]' appends to a list, but the history is rw-register");
	check_err("w in a list-append history",
			  "{:type :ok, :value [[:append 1 1]]}\n{:type :ok, :value [[:w 1 2]]}", UNK,
			  ISO_PARSE_INVALID, 2, 2, "writes a register, but the history is list-append");
	check_err("list read in a register history",
			  "{:type :ok, :value [[:w 1 1]]}\n{:type :ok,\n :value [[:r 1 [1]]]}", UNK,
			  ISO_PARSE_INVALID, 2, 3, "reads a list, but the history is rw-register");
	check_err("scalar read in a list-append history",
			  "{:type :ok, :value [[:r 1 []]]}\n{:type :ok, :value [[:r 1 1]]}", UNK,
			  ISO_PARSE_INVALID, 2, 2, "reads a single value, but the history is list-append");
	check_err("expected workload fixes it up front",
			  "{:type :ok, :value [[:append 1 1]]}", RR,
			  ISO_PARSE_INVALID, 1, 1, "appends to a list");
	{
		Sink		s;
		EdnStats	st;
		IsoParseError e;
		const char *t = "{:type :ok, :value [[:append 1 1]]}";

		sink_init(&s);
		parse_n(t, strlen(t), RR, &s, &st, &e);
		ok(strstr(e.detail, "caller asked for a rw-register") != NULL, "expected workload: detail says the caller asked");
		t = "{:type :ok, :value [[:r 1 nil]]}\n{:type :ok, :value [[:r 1 [1]]]}\n{:type :ok, :value [[:w 1 1]]}";
		parse_n(t, strlen(t), UNK, &s, &st, &e);
		ok(strstr(e.detail, "because of record 2 (line 2)") != NULL, "inferred workload: detail names the record (%s)", e.detail);
		ok(st.workload == LA, "inferred workload reported on error too");
		free(s.buf);
	}
	check_err("workload error in an info leftover names the invocation",
			  "{:type :ok, :value [[:append 1 1]]}\n{:type :invoke, :value [[:w 1 2]], :process 4}\n{:type :ok, :value [[:append 1 3]]}", UNK,
			  ISO_PARSE_INVALID, 2, 2, "writes a register");
}

static void
test_duplicates(void)
{
	check_err("duplicate write across transactions",
			  "{:type :ok, :value [[:w 1 1]]}\n{:type :fail, :value [[:w 1 2]]}\n{:type :info, :value [[:w 2 1] [:w 1 1]]}", UNK,
			  ISO_PARSE_DUPLICATE, 3, 3, "value '1' written twice to key '1' in record 3");
	check_err("duplicate append, integer vs string",
			  "{:type :ok, :value [[:append 3 \"7\"]]}\n{:type :ok, :value [[:append \"3\" 7]]}", UNK,
			  ISO_PARSE_DUPLICATE, 2, 2, "value '7' written twice to key '3'");
	check_err("duplicate within one transaction",
			  "{:type :ok, :value [[:w :x \"a\"]\n [:w :x \"a\"]]}", UNK,
			  ISO_PARSE_DUPLICATE, 1, 2, "key ':x'");
	check_err("duplicate by a superseded invocation",
			  "{:type :invoke, :value [[:w 1 1]], :process 1}\n{:type :invoke, :value [[:w 1 1]], :process 1}\n{:type :ok, :process 1}", UNK,
			  ISO_PARSE_DUPLICATE, 3, 2, "written twice");
	check_err("duplicate long value truncated in the message",
			  "{:type :ok, :value [[:w 1 \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"]]}\n"
			  "{:type :ok, :value [[:w 1 \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"]]}", UNK,
			  ISO_PARSE_DUPLICATE, 2, 2, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...'");
	{
		Sink		s;
		EdnStats	st;
		IsoParseError e;
		const char *t = "{:type :ok, :value [[:w 1 1]]}\n\n{:type :ok, :value [[:w 1 1]]}";

		sink_init(&s);
		parse_n(t, strlen(t), UNK, &s, &st, &e);
		ok(strstr(e.detail, stream_lines ? "An earlier record already wrote value '1' to key '1'" :
				  "Record 1 (line 1)") != NULL,
		   "duplicate detail names the earlier record, or in a stream says an earlier one (%s)", e.detail);
		free(s.buf);
	}
	{
		/* a value that is no small integer goes to the table: named in a stream too */
		Sink		s;
		EdnStats	st;
		IsoParseError e;
		const char *t = "{:type :ok, :value [[:w 1 \"a\"]]}\n{:type :ok, :value [[:w 1 \"a\"]]}\n";

		sink_init(&s);
		parse_n(t, strlen(t), UNK, &s, &st, &e);
		ok(e.kind == ISO_PARSE_DUPLICATE && strstr(e.detail, "Record 1 (line 1)") != NULL,
		   "a duplicate string value names the earlier record (%s)", e.detail);
		free(s.buf);
	}
	check_parse("same value to different keys is fine",
				"{:type :ok, :value [[:w 1 1] [:w 2 1] [:w \"1\" \"2\"]]}", UNK,
				"0 ok p- i- c- r1 l1: w 1 1; w 2 1; w 1 2", RR);
	check_parse("keyword :1 and integer 1 differ",
				"{:type :ok, :value [[:w 1 1] [:w :1 1]]}", UNK,
				"0 ok p- i- c- r1 l1: w 1 1; w :1 1", RR);
}

/* Regression inputs found by fuzzing (see test/fuzz). */
static void
test_fuzz_regressions(void)
{
	/* UBSan: zero offset applied to a NULL blob for an invocation without ops */
	check_parse("fuzz: invocation without :value, completion without :value",
				"{:type :invoke, :f :txn, :valum [[:append 1 1]], :process 0}\n{:type :ok, :process 0, :index 1}",
				UNK, "1 ok p0 i0 c1 r2 l2:", UNK);
	check_err("fuzz: value ends the input after the key",
			  "{:type :ok :value", UNK, ISO_PARSE_SYNTAX, 1, 1, "unterminated map");
	check_err("fuzz: micro-op closed by the map brace",
			  "{:type :ok :value [[:r 1}", UNK, ISO_PARSE_SYNTAX, 1, 1, "expected ']'");
	check_err("fuzz: tag at end of input", "{:type :ok} #x", UNK, ISO_PARSE_SYNTAX, 2, 1, "unexpected end of input");
}

/*
 * The parser's fast path for plain integers in list reads must give exactly
 * what the general path gives: the same transactions, the same errors at
 * the same place.  Hand-picked edges of the fast path, each parsed both
 * ways (the fuzzer does the same on random input).
 */
static void
test_fast_paths(void)
{
	static const char *const lists[] = {
		"[1 2 3]", "[]", "[ ]", "[0]", "[00]", "[007]", "[-1 2]", "[+1]", "[1N]",
		"[1M]", "[1.5]", "[1e3]", "[123456789012345678]", "[1234567890123456789]",
		"[99999999999999999999]", "[1,2,,3]", "[1\n2]", "[1 ;c\n 2]",
		"[1 #_ 2 3]", "[1 #_[4 5] 6]", "[1#]", "[1 #inst \"x\"]", "[1 \"a\" :b]",
		"[12abc]", "[1]]", "[1", "[1 2 [3]]", "[1 {:a 1}]", "[1 nil]",
		"[\t1\t2\t]", "(1 2)", "[1 2)", "[9 8 7 6 5 4 3 2 1 0]",
	};
	size_t		i;

	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
	{
		char		text[512];
		char		unescaped[512];
		const char *in = lists[i];
		char	   *o = unescaped;
		int			mode;
		Sink		out[2];
		bool		r[2];
		IsoParseError e[2];
		EdnStats	st;

		/* the table writes \n and \" to keep one line each */
		for (; *in; in++)
		{
			if (in[0] == '\\' && in[1] == 'n')
			{
				*o++ = '\n';
				in++;
			}
			else if (in[0] == '\\' && in[1] == '"')
			{
				*o++ = '"';
				in++;
			}
			else
				*o++ = *in;
		}
		*o = '\0';
		snprintf(text, sizeof(text),
				 "{:type :ok, :f :txn, :value [[:append 1 1] [:r 1 %s]], :index 0}\n"
				 "{:type :ok, :f :txn, :value [[:r 2 [1 2]]], :index 1}\n", unescaped);
		for (mode = 0; mode < 2; mode++)
		{
			edn_fast_paths = mode == 0;
			sink_init(&out[mode]);
			r[mode] = parse_n(text, strlen(text), ISO_WORKLOAD_UNKNOWN, &out[mode], &st, &e[mode]);
		}
		edn_fast_paths = true;
		ok(r[0] == r[1] && strcmp(out[0].buf, out[1].buf) == 0 &&
		   (r[0] || (e[0].kind == e[1].kind && e[0].line == e[1].line &&
					 e[0].record == e[1].record && strcmp(e[0].message, e[1].message) == 0)),
		   "fast path == general path for list %s", lists[i]);
		free(out[0].buf);
		free(out[1].buf);
	}
}

/*
 * The same detail and hint, fast path (a) and general path (b); but a
 * stream's bitmaps (the fast path) name only the second write of a
 * duplicate, where the general path's table names the first.
 */
static bool
same_detail(const IsoParseError *a, const IsoParseError *b)
{
	if (stream_lines && a->kind == ISO_PARSE_DUPLICATE &&
		strncmp(a->detail, "An earlier record already wrote ", 32) == 0)
	{
		const char *sa = strstr(a->detail, "; the second write is ");
		const char *sb = strstr(b->detail, "; the second write is ");

		return strncmp(b->detail, "Record ", 7) == 0 && sa && sb && strcmp(sa, sb) == 0;
	}
	return strcmp(a->detail, b->detail) == 0 && strcmp(a->hint, b->hint) == 0;
}

/*
 * Both paths of one text: the same transactions, the same result, the same
 * error (kind, place, message, detail, hint) and statistics.  Returns the
 * records the fast path read (fast paths on).
 */
static int64
compare_paths(const char *desc, const char *text, size_t len)
{
	Sink		out[2];
	bool		r[2];
	IsoParseError e[2];
	EdnStats	st[2];
	int			mode;

	for (mode = 0; mode < 2; mode++)
	{
		edn_fast_paths = mode == 0;
		sink_init(&out[mode]);
		memset(&e[mode], 0, sizeof(e[mode]));
		r[mode] = parse_n(text, len, ISO_WORKLOAD_UNKNOWN, &out[mode], &st[mode], &e[mode]);
	}
	edn_fast_paths = true;
	ok(r[0] == r[1] && strcmp(out[0].buf, out[1].buf) == 0 &&
	   out[0].calls == out[1].calls &&
	   e[0].kind == e[1].kind && e[0].line == e[1].line && e[0].record == e[1].record &&
	   strcmp(e[0].message, e[1].message) == 0 && same_detail(&e[0], &e[1]) &&
	   st[0].records == st[1].records && st[0].skipped == st[1].skipped &&
	   st[0].txns == st[1].txns && st[0].events == st[1].events &&
	   st[0].workload == st[1].workload && st[0].time_source == st[1].time_source &&
	   st[1].fast_records == 0,
	   "fast record == general path: %.60s (%.60s | %.60s)", desc, r[0] ? out[0].buf : e[0].message,
	   r[1] ? out[1].buf : e[1].message);
	free(out[0].buf);
	free(out[1].buf);
	return st[0].fast_records;
}

/*
 * The fast path of whole records (fast_record) and the bitmaps of the
 * unique-writes check: records of the common shape, and each way out of
 * it, both ways; fast is how many records the fast path must read (in the
 * streaming reader, which has them too), so that a case that silently fell
 * back would be noticed.
 */
static void
test_fast_records(void)
{
	static const struct
	{
		const char *text;
		int			fast;
	}			cases[] = {
		{"{:type :invoke, :f :txn, :value [[:append 1 2] [:r 1 nil]], :time 10, :process 0, :index 0}\n"
		"{:type :ok, :f :txn, :value [[:append 1 2] [:r 1 [1 2]]], :time 20, :process 0, :index 1}\n", 2},
		{"{:type :ok, :value [[:w -5 :a] [:r :k -7] [:r 3 :x] [:w 0 0]], :process nil, :time nil, :index nil}", 1},
		{"{:index 7, :process 3, :time 5, :value [[:r 1 []]], :f :txn, :type :fail}", 1},
		{"{:type :info, :f :start, :value nil, :process :nemesis}", 1},
		{"{:type :info, :f :start, :value :x, :process :nemesis}", 0},
		{"{:type :ok,\n :value [[:append\n 1 2]\n [:r 1\n [1\n 2]]]\n}\n{:type :ok :value [[:r 1 [1 2]]] :index 9}", 2},
		{"{:type :ok :f :txn :value [[:w 1 2]] :process 1 :time 1 :index 1}", 1},
		{"{:type :ok,\t:value [[:w 1 2]],\r :process 1,}", 1},
		{"{:type :ok, :value [[:r 1 [123456789012345678 -123456789012345678]]], :time 123456789012345678}", 1},
		{"{:type :ok, :value [], :process 18446744073709551615}", 0},
		{"{:type :ok, :value [], :time -9223372036854775808}", 0},
		{"{:type :ok, :value [[:r 1 [1234567890123456789]]]}", 0},
		{"{:type :ok, :value [[:r 1 [+1]]]}", 0},
		{"{:type :ok, :value [[:r 1 [01]]]}", 0},
		{"{:type :ok, :value [[:r 1 [-0]]]}", 0},
		{"{:type :ok, :value [[:r 1 [1N]]]}", 0},
		{"{:type :ok, :value [[:r 1 [1.5]]]}", 0},
		{"{:type :ok, :value [[:r 1 [1 :a]]]}", 0},
		{"{:type :ok, :value [[:r 1 [1 -]]]}", 0},
		{"{:type :ok, :value [[:w 1 \"a\"]]}", 0},
		{"{:type :ok, :value [[:w \"1\" 2]]}", 0},
		{"{:type :ok, :value ([:w 1 2])}", 0},
		{"{:type :ok, :value [(:w 1 2)]}", 0},
		{"{:type :ok, :value [[:r 1 (1 2)]]}", 0},
		{"{:type :ok, :value [[:w 1 2]] ; c\n}", 0},
		{"{:type :ok, #_ :x :value [[:w 1 2]]}", 0},
		{"{:type :ok, :value [[:w 1 2]], :error [:x 1]}", 0},
		{"{:type :fail, :value [[:w 1 2]], :error :ww-conflict}", 1},
		{"{:type :info, :error 5, :value [[:w 1 2]], :error nil, :error :x, :node -3}", 1},
		{"{:type :fail, :value [[:w 1 2]], :error \"x\"}", 0},
		{"{:type :fail, :value [[:w 1 2]], :error :x@}", 0},
		{"{:type :fail, :value [[:w 1 2]], :error 01}", 0},
		{"{:type :fail, :value [[:w 1 2]], :error 99999999999999999999}", 0},
		{"{:type :fail, :value [[:w 1 2]], :error}", 0},
		{"{:type :fail, :value [[:w 1 2]], :error #_ 1 :x}", 0},
		{"{:type :fail, :value [[:w 1 2]], :e/rr :x, :x.y 1}", 1},
		{"{:type :ok, :type :ok, :value [[:w 1 2]]}", 0},
		{"{:type :ok, :value [[:w 1 2]], :value nil}", 0},
		{"{:type :weird, :value [[:w 1 2]]}", 0},
		{"{:type \"ok\", :value [[:w 1 2]]}", 0},
		{"{:type :ok, :value 5}", 0},
		{"{:type :ok, :value [[:w 1]]}", 0},
		{"{:type :ok, :value [[:w 1 2 3]]}", 0},
		{"{:type :ok, :value [[:x 1 2]]}", 0},
		{"{:type :ok, :value [[:w 1 nil]]}", 0},
		{"{:type :ok, :value [[:r 1 nilx]]}", 0},
		{"{:type :ok, :value [[:r 1 nil]]}", 1},
		{"{:type :ok, :value [[:r 1 nil]], :process nil}", 1},
		{"{:type :ok@, :value []}", 0},
		{"{:type :ok, :value [[:w 1 2]]", 0},
		{"{:type :ok, :value [[:w 1 2]]} {:type", 1},
		{"{:type :ok, :value [[:w 1 2]]}x", 1},
		{"{:type :ok, :value [[:w 1 2]]}}", 1},
		{"{:value [[:w 1 2]]}", 1},
		{"{:type :ok, :value [[:append 1 2] [:w 1 3]]}", 1},
		{"{:type :ok, :value [[:w 1 2]], :process 1.5}", 0},
		{"{:type :ok, :value [[:w 1 2]], :process \"p\"}", 0},
		{"{:type :ok, :value [[:w 1 2]], :time :t}", 0},
		{"{:type :ok, :value [[:w 1 2]], :f \"txn\"}", 0},
		{"{:type :ok, :value [[:w 1 2]], 5 6}", 0},
		{"{:type :ok, :value [[:w 1 2]], :f :txn2}", 1},
		{"[{:type :ok, :value [[:w 1 2]]}\n{:type :ok, :value [[:w 1 3]]}]", 2},
		{"#jepsen.history.Op{:type :ok, :value [[:w 1 2]]}", 1},
		{"{:type :invoke, :value [[:append 1 2]], :process 1}\n{:type :invoke, :value [[:append 1 3]], :process 1}\n{:type :ok, :value nil, :process 1}", 3},
		/* integers read 8 bytes at a time: every length to 8, what may follow */
		{"{:type :ok, :value [[:r 1 [9 98 987 9876 98765 987654 9876543 98765432 1]]], :time 1234567, :process 12345678, :index 0}", 1},
		{"{:type :ok, :value [[:w -1 -1234567] [:w -12345678 7] [:r 2 [1 2]]], :index 0}", 1},
		{"{:type :ok, :value [[:r 1 [0 1 2 3 4 5 6 7]]], :index 0}", 1},
		{"{:type :ok, :value [[:r 1 [01 2 3 4 5 6 7]]], :index 0}", 0},
		{"{:type :ok, :value [[:r 1 [-0 1 2 3 4 5 6]]], :index 0}", 0},
		{"{:type :ok, :value [[:r 1 [0000000 1 2 3]]], :index 0}", 0},
		{"{:type :ok, :value [[:r 1 [1:2 3 4 5 6 7]]], :index 0}", 0},
		{"{:type :ok, :value [[:r 1 [1?2 3 4 5 6 7]]], :index 0}", 0},
		{"{:type :ok, :value [[:r 1 [12/4 3 4 5 6 7]]], :index 0}", 0},
		{"{:type :ok, :value [[:r 1 [7\xfa 3 4 5 6 7]]], :index 0}", 0},
		{"{:type :ok, :value [[:r 1 [1;c\n 2 3 4 5 6]]], :index 0}", 0},
		{"{:type :ok, :value [[:r 1 [1,2,3,4,5,6,7]]], :index 0}", 1},
		{"{:type :ok, :value [[:r 1 [1234567\n2 3]]], :index 0}", 1},
		{"{:type :ok, :value [[:r 1 [1 2]]], :time 12345678901}", 1},
		{"{:type :ok, :value [[:r 1 [1 2]]], :time 1234567", 0},
		/* an empty key written twice before any other key (the fuzzer's find) */
		{"{:type :fail, :value [[:w \"\" 10] [:w \"\" 30]]}", 0},
		{"{:type :ok, :value [[:append \"\" 1] [:append \"\" 2] [:append \"\" 1]]}", 0},
		/* the unique-writes check: bitmap, general table, both */
		{"{:type :ok, :value [[:append 1 1] [:append 1 2]]}\n{:type :ok, :value [[:append 1 2]]}", 2},
		{"{:type :ok, :value [[:append 1 1] [:append :k 1] [:append -1 1] [:append 1 0] [:append 1 -0]]}", 0},
		{"{:type :ok, :value [[:append 1 0] [:append 1 63] [:append 1 64] [:append 1 0]]}", 1},
		{"{:type :ok, :value [[:append 1 999999999] [:append 1 1000000000] [:append 1 999999999]]}", 1},
		{"{:type :ok, :value [[:append 1 1000000000] [:append 1 1000000000]]}", 1},
		{"{:type :ok, :value [[:append 1 1] [:append 1 1000000]]}\n{:type :ok, :value [[:append 1 64] [:append 1 1000000]]}", 2},
		{"{:type :ok, :value [[:append 1 1] [:append 1 1000000]]}\n{:type :ok, :value [[:append 1 64] [:append 1 2] [:append 1 64]]}", 2},
		{"{:type :ok, :value [[:append 1 1] [:append 1 1000000] [:append 1 5]]}\n{:type :ok, :value [[:append 1 5]]}", 2},
		{"{:type :ok, :value [[:append 1 3]]}\n{:type :ok, :value [[:append \"1\" 3]]}", 1},
		{"{:type :ok, :value [[:append 1 7]]}\n{:type :ok, :value [[:append 1 \"7\"]]}", 1},
		{"{:type :ok, :value [[:append 1 7] [:append 1 \"007\"] [:append 1 \"07\"]]}", 0},
		{"{:type :ok, :value [[:append :a 7]]}\n{:type :ok, :value [[:append :a 7]]}", 2},
		{"{:type :invoke, :value [[:append 1 1]], :process 1}\n{:type :invoke, :value [[:append 1 1]], :process 1}\n{:type :ok, :process 1}", 3},
		/*
		 * An invocation's value is checked, and read only when it is used
		 * (lazy_value): by a completion without one, by an invocation that
		 * never completed; its ops keep their lines.
		 */
		{"{:type :invoke, :value [[:append 1 1]\n [:r 2 nil]\n [:append 1 1]], :process 1}\n{:type :info, :process 1}", 2},
		{"{:type :invoke, :value [[:append 1 1]\n [:append 1 2]], :process 1, :time 5}\n{:type :info, :value nil, :process 1}\n{:type :ok, :value [[:append 1 2]]}", 3},
		{"{:type :invoke, :value [[:append 1 1] [:r 2 nil]], :process 1}\n{:type :invoke, :value [[:append \"k\" 2]], :process 1}\n{:type :info, :process 1}", 2},
		{"{:type :invoke, :value [[:append \"k\" 2]], :process 1}\n{:type :invoke, :value [[:append 1 1] [:r 2 nil]], :process 1}\n{:type :ok, :value [[:append 1 1] [:r 2 [1]]], :process 1}", 2},
		{"{:type :invoke, :value [[:append 1 1]], :process 1}\n{:type :invoke, :value [[:append 1 2]], :process 2}\n{:type :invoke, :value [[:append 1 2]], :process 1}", 3},
		{"{:value [[:append 1 1] [:r 1 nil]], :type :invoke, :process 1}\n{:type :info, :process 1}\n{:type :ok, :value [[:append 1 1]]}", 3},
		{"{:type :invoke, :value [[:append 1]], :process 1}\n{:type :ok, :value [[:append 1 1]], :process 1}", 0},
		{"{:type :invoke, :value [[:append 1 1] [:r 1 [x]]], :process 1}\n{:type :ok, :value [[:append 1 1]], :process 1}", 0},
		{"{:type :invoke, :value [[:append 1 5] [:r 1 nil]], :process 1}\n{:type :ok, :value [[:append 1 1] [:r 1 [1]]], :process 1}\n{:type :ok, :value [[:append 1 5]]}", 3},
		{"{:type :invoke, :value [[:w 1 5] [:r 1 nil]], :process 1}\n{:type :info, :process 1}\n{:type :ok, :value [[:append 2 5]]}", 3},
	};
	size_t		i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		int64		fast = compare_paths(cases[i].text, cases[i].text, strlen(cases[i].text));

		if (!stream_lines)
			ok(fast == cases[i].fast, "fast path read %lld of the records, expected %d: %s",
			   (long long) fast, cases[i].fast, cases[i].text);
	}

	/* a key's bitmap grown by doubling, then frozen, duplicates on both sides */
	{
		char	   *text = malloc(1 << 16);
		size_t		len = 0;
		int			v;
		int64		fast;

		len += (size_t) sprintf(text + len, "{:type :ok, :value [");
		for (v = 1; v <= 300; v++)
			len += (size_t) sprintf(text + len, "[:append 5 %d] ", v);
		len += (size_t) sprintf(text + len, "]}\n{:type :ok, :value [[:append 5 100000] [:append 5 299]]}\n");
		fast = compare_paths("grown bitmap, duplicate below its end", text, len);
		ok(fast == 2, "grown bitmap: both records fast (%lld)", (long long) fast);
		len = 0;
		len += (size_t) sprintf(text + len, "{:type :ok, :value [");
		for (v = 1; v <= 300; v++)
			len += (size_t) sprintf(text + len, "[:append 5 %d] ", v);
		len += (size_t) sprintf(text + len, "[:append 5 100000]]}\n{:type :ok, :value [[:append 5 700] [:append 5 100000] [:append 5 700]]}\n");
		compare_paths("frozen bitmap, duplicate beyond its end", text, len);
		/* a value beyond a frozen bitmap stays in the general table */
		len = 0;
		len += (size_t) sprintf(text + len, "{:type :ok, :value [[:append 5 1] [:append 5 1000] ");
		for (v = 2; v <= 300; v++)
			len += (size_t) sprintf(text + len, "[:append 5 %d] ", v);
		len += (size_t) sprintf(text + len, "]}\n{:type :ok, :value [[:append 5 1000]]}\n");
		compare_paths("frozen early, duplicate that a grown bitmap would miss", text, len);
		free(text);
	}
}

/*
 * \u escapes become characters of the database encoding (port.h): UTF-8 in
 * the default standalone host, one byte each in the pretend LATIN1 one,
 * where a character LATIN1 lacks is an error naming the escape and raw
 * bytes (valid LATIN1) pass unchanged.
 */
static void
test_encodings(void)
{
	/* UTF-8 */
	check_parse("UTF-8: BMP escapes, lower and upper case hex",
				"{:type :ok, :value [[:w \"\\u00e9\" \"\\u6F22\\u5b57\"]]}", UNK,
				"0 ok p- i- c- r1 l1: w \xc3\xa9 \xe6\xbc\xa2\xe5\xad\x97", RR);
	check_parse("UTF-8: surrogate pair is one astral character",
				"{:type :ok, :value [[:w \"a\\uD83D\\uDE00b\" \"\\ud800\\udc00\\udbff\\udfff\"]]}", UNK,
				"0 ok p- i- c- r1 l1: w a\xf0\x9f\x98\x80" "b \xf0\x90\x80\x80\xf4\x8f\xbf\xbf", RR);
	check_parse("UTF-8: escape next to raw UTF-8",
				"{:type :ok, :value [[:w \"\xe6\xbc\xa2\\u5b57\" 1]]}", UNK,
				"0 ok p- i- c- r1 l1: w \xe6\xbc\xa2\xe5\xad\x97 1", RR);
	check_err("UTF-8: high surrogate at the end of a string",
			  "{:type :ok, :value [[:w \"\\ud83d\" 1]]}", UNK, ISO_PARSE_SYNTAX, 1, 1, "unpaired surrogate escape '\\ud83d'");
	check_err("UTF-8: two high surrogates",
			  "{:type :ok, :value [[:w \"\\ud83d\\ud83d\" 1]]}", UNK, ISO_PARSE_SYNTAX, 1, 1, "unpaired surrogate");
	check_err("UTF-8: lone low surrogate in an ignored field",
			  "{:type :ok, :node \"\\udfff\", :value []}", UNK, ISO_PARSE_SYNTAX, 1, 1, "unpaired surrogate");
	check_err("UTF-8: \\u0000 in a list element",
			  "{:type :ok, :value [[:r 1 [\"a\" \"\\u0000\"]]]}", UNK, ISO_PARSE_SYNTAX, 1, 1, "NUL character \\u0000");
	is_str(iso_host_encoding_name(), "UTF8", "standalone host: UTF8 by default");
	{
		/* a message cut by its buffer ends before a character, never inside one */
		char		text[2048];
		char		k[400],
					v[400];
		Sink		s;
		EdnStats	st;
		IsoParseError e;
		const unsigned char *m;
		bool		valid = true;
		int			i;

		k[0] = v[0] = '\0';
		for (i = 0; i < 60; i++)
		{
			strcat(k, "\xe6\xbc\xa2");
			strcat(v, "\xe5\xad\x97");
		}
		snprintf(text, sizeof(text), "{:type :ok, :value [[:w \"%s\" \"%s\"]]}\n{:type :ok, :value [[:w \"%s\" \"%s\"]]}",
				 k, v, k, v);
		sink_init(&s);
		ok(!parse_n(text, strlen(text), UNK, &s, &st, &e) && e.kind == ISO_PARSE_DUPLICATE &&
		   strlen(e.message) > 200, "UTF-8: duplicate write of long kanji key and value fails (%zu bytes)", strlen(e.message));
		for (m = (const unsigned char *) e.message; *m && valid; m++)
		{
			if (*m >= 0x80)
			{
				int			n = iso_utf8_seq_len(m, m + strlen((const char *) m));

				valid = n > 0;
				m += n > 0 ? n - 1 : 0;
			}
		}
		ok(valid, "UTF-8: the cut message is valid UTF-8");
		free(s.buf);
		ok(iso_clip_len("\xc3\xa9\xc3\xa9\xc3\xa9", 6, 5) == 4, "iso_clip_len keeps whole characters");
		ok(iso_clip_len("ab", 2, 5) == 2, "iso_clip_len of a short text");
	}

	/* LATIN1 */
	iso_standalone_encoding = ISO_STANDALONE_LATIN1;
	is_str(iso_host_encoding_name(), "LATIN1", "standalone host: pretend LATIN1");
	check_parse("LATIN1: \\u00e9 is one byte 0xe9, not UTF-8",
				"{:type :ok, :value [[:w \"caf\\u00e9\" \"\\u00FF\\u0041\"]]}", UNK,
				"0 ok p- i- c- r1 l1: w caf\xe9 \xff" "A", RR);
	check_parse("LATIN1: raw bytes of the encoding pass unchanged",
				"{:type :ok, :value [[:w \"caf\xe9\" \"\xe9\\u00e9\"]]}", UNK,
				"0 ok p- i- c- r1 l1: w caf\xe9 \xe9\xe9", RR);
	check_parse("LATIN1: raw byte in a list element and a character literal",
				"{:type :ok, :x \\\xe9, :value [[:r \"k\xe9\" [\"\xe9\" \"\\u00e9\"]]]}", UNK,
				"0 ok p- i- c- r1 l1: r k\xe9 [\xe9,\xe9]", LA);
	check_err("LATIN1: kanji escape has no equivalent",
			  "{:type :ok, :value [[:w 1 1]]}\n{:type :ok,\n :value [[:w \"a\\u6f22\" 1]]}", UNK,
			  ISO_PARSE_UNTRANSLATABLE, 2, 3, "escape '\\u6f22' in string '\"a\\u6f22\"' has no equivalent in encoding \"LATIN1\"");
	check_err("LATIN1: astral surrogate pair has no equivalent",
			  "{:type :ok, :value [[:w 1 \"\\ud83d\\ude00\"]]}", UNK,
			  ISO_PARSE_UNTRANSLATABLE, 1, 1, "escape '\\ud83d\\ude00'");
	check_err("LATIN1: untranslatable read value",
			  "{:type :ok, :value [[:r 1 \"\\u0100\"]]}", UNK,
			  ISO_PARSE_UNTRANSLATABLE, 1, 1, "escape '\\u0100'");
	check_err("LATIN1: untranslatable list element",
			  "{:type :ok, :value [[:r 1 [\"\\u20ac\"]]]}", UNK,
			  ISO_PARSE_UNTRANSLATABLE, 1, 1, "escape '\\u20ac'");
	{
		Sink		s;
		EdnStats	st;
		IsoParseError e;
		const char *t = "{:type :ok, :value [[:w 1 \"\\u6f22\"]]}";

		sink_init(&s);
		ok(!parse_n(t, strlen(t), UNK, &s, &st, &e) &&
		   strstr(e.detail, "line 1") != NULL && strstr(e.detail, "U+6F22") != NULL,
		   "LATIN1: detail names the line and the code point");
		diag("%s", e.detail);
		free(s.buf);
	}
	check_parse("LATIN1: untranslatable escape in an ignored field is fine",
				"{:type :ok, :node \"\\u6f22\", :value [[:w 1 1]]}", UNK, "0 ok p- i- c- r1 l1: w 1 1", RR);
	check_parse("LATIN1: untranslatable escape in a nemesis record is fine",
				"{:type :info, :f :kill, :process :nemesis, :value \"\\u6f22\"}\n{:type :ok, :value [[:w 1 1]]}", UNK,
				"1 ok p- i- c- r2 l2: w 1 1", RR);
	check_err("LATIN1: lone surrogate still a syntax error",
			  "{:type :ok, :value [[:w \"\\udc00\" 1]]}", UNK, ISO_PARSE_SYNTAX, 1, 1, "unpaired surrogate");
	check_err("LATIN1: \\u0000 still rejected",
			  "{:type :ok, :value [[:w \"\\u0000\" 1]]}", UNK, ISO_PARSE_SYNTAX, 1, 1, "NUL character");
	check_err("LATIN1: quotes in messages keep the encoding's characters",
			  "{:type :ok, :value [[:w \"caf\xe9\" 1 2]]}", UNK, ISO_PARSE_INVALID, 1, 1, "caf\xe9");
	ok(iso_clip_len("\xe9\xe9\xe9", 3, 2) == 2, "LATIN1: iso_clip_len byte by byte");
	iso_standalone_encoding = ISO_STANDALONE_UTF8;
	check_err("UTF-8 again: the same byte is invalid",
			  "{:type :ok, :value [[:w \"caf\xe9\" 1]]}", UNK, ISO_PARSE_SYNTAX, 1, 1, "invalid UTF-8 byte 0xe9");
}

/*
 * The streaming reader on its own: records over several lines and several
 * records on a line give what the whole text gives, and an unfinished
 * record is held up to a limit, not without end.
 */
static void
test_stream(void)
{
	const char *lines[] = {
		"[{:type :invoke, :process 0,",
		" :value [[:append 1 1]",
		"         [:r 2 nil]]}",
		"{:type :ok, :process 0, :value [[:append 1 1] [:r 2 []]]} {:type :ok, :process 1,",
		"  :value [[:r 1 [1]] [:append 5 \"a\\\"",
		"b\"]]}",
		"#jepsen.history.Op",
		"{:type :ok, :process 2, :value [[:append 6 7]]}",
		"]",
	};
	const char *whole =
		"[{:type :invoke, :process 0,\n :value [[:append 1 1]\n         [:r 2 nil]]}\n"
		"{:type :ok, :process 0, :value [[:append 1 1] [:r 2 []]]} {:type :ok, :process 1,\n"
		"  :value [[:r 1 [1]] [:append 5 \"a\\\"\nb\"]]}\n#jepsen.history.Op\n"
		"{:type :ok, :process 2, :value [[:append 6 7]]}\n]\n";
	Sink		s1,
				s2;
	EdnStats	st1,
				st2;
	IsoParseError e1,
				e2;
	EdnStream  *S;
	bool		r = true;
	size_t		i;
	char	   *big;

	sink_init(&s1);
	ok(edn_parse_history(whole, strlen(whole), ISO_WORKLOAD_UNKNOWN, sink_cb, &s1, &st1, &e1), "stream: the whole text parses");
	sink_init(&s2);
	S = edn_stream_begin(ISO_WORKLOAD_UNKNOWN, sink_cb, &s2, &st2, &e2);
	for (i = 0; r && i < sizeof(lines) / sizeof(lines[0]); i++)
		r = edn_stream_line(S, lines[i], strlen(lines[i]));
	ok(r && edn_stream_finish(S), "stream: the lines parse");
	edn_stream_free(S);
	is_str(s2.buf, s1.buf, "stream: maps over lines, maps on one line, a string over lines, a tag on its own line");
	ok(st1.records == st2.records && st1.txns == st2.txns && st2.txns == 3,
	   "stream: the same records and transactions (%lld, %lld)", (long long) st2.records, (long long) st2.txns);
	free(s1.buf);
	free(s2.buf);

	/* an unterminated string: held up to the limit, then an error */
	big = malloc(1 << 20);
	memset(big, 'x', 1 << 20);
	sink_init(&s2);
	S = edn_stream_begin(ISO_WORKLOAD_UNKNOWN, sink_cb, &s2, &st2, &e2);
	r = edn_stream_line(S, "{:type :ok, :value [[:w 1 \"", 26);
	for (i = 0; r && i < 100; i++)
		r = edn_stream_line(S, big, 1 << 20);
	ok(!r && i <= 65, "stream: an unfinished record stops at 64 MB (after %zu lines of 1 MB)", i);
	ok(e2.kind == ISO_PARSE_LIMIT && strstr(e2.message, "is not complete after") != NULL,
	   "stream: with a limit error: %s", e2.message);
	ok(!edn_stream_line(S, "}", 1) && !edn_stream_finish(S), "stream: a failed stream stays failed");
	edn_stream_free(S);
	free(s2.buf);
	free(big);
}

/*
 * The small-integer index (text.c) in front of the key and value tables:
 * windows that start above 0 (a history's second half), grow up and down,
 * keep every slot through each move, and refuse what would be sparse.
 */
static void
test_small_index(void)
{
	static const uint32 order[] = {63157, 63200, 62000, 70000, 100, 0, 64000, 5000, 131071};
	IsoSmallIndex ix = {0};
	uint32	   *slot;
	size_t		i,
				j;
	bool		all = true;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
	{
		slot = iso_small_index_slot(&ix, order[i], 100000);
		if (slot == NULL || *slot != 0)
		{
			all = false;
			break;
		}
		*slot = (uint32) i + 1;
		for (j = 0; j <= i; j++)
		{
			slot = iso_small_index_slot(&ix, order[j], 100000);
			all &= slot != NULL && *slot == j + 1;
		}
	}
	ok(all, "small index: every number found again after each move of the window");
	ok(ix.base == 0 && ix.cap == 131072, "small index: window [%u, +%u)", ix.base, ix.cap);
	iso_small_index_free(&ix);

	slot = iso_small_index_slot(&ix, 63157, 0);
	ok(slot != NULL && ix.base == 62464 && ix.cap == 1024,
	   "small index: the first window starts at the first number (%u, +%u)", ix.base, ix.cap);
	ok(iso_small_index_slot(&ix, 100, 0) == NULL && ix.base == 62464,
	   "small index: a number far below, with few entries, goes by the hash");
	ok(iso_small_index_slot(&ix, 999999999, 10) == NULL,
	   "small index: so does a large one");
	slot = iso_small_index_slot(&ix, 100, 20000);
	ok(slot != NULL && ix.base == 0 && ix.cap == 65536,
	   "small index: the window reaches down once entries are many (%u, +%u)", ix.base, ix.cap);
	iso_small_index_free(&ix);
}

/* The cases that every way of feeding the reader must pass alike. */
static void
test_parsing(void)
{
	test_basic();
	test_syntax_variants();
	test_scalars();
	test_pairing();
	test_time_source();
	test_many();
	test_callback_stop();
	test_syntax_errors();
	test_invalid();
	test_range();
	test_workload();
	test_duplicates();
	test_fuzz_regressions();
	test_fast_paths();
	test_fast_records();
}

int
main(void)
{
	test_names();
	test_small_index();
	test_parsing();
	test_encodings();

	test_stream();

	/* everything again, line by line through the streaming reader */
	stream_lines = true;
	test_parsing();

	/* and again in blocks of whole lines, parsed in place, as a server file */
	for (stream_block_lines = 1; stream_block_lines <= 3; stream_block_lines += 2)
		test_parsing();
	return tap_done();
}
