/*
 * test_wal.c
 *	  Unit tests for the write-ahead-log JSON lines reader (src/wal.c).
 *	  Standalone build (-DISOGRAPH_STANDALONE), TAP output.
 */
#include "wal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

typedef struct Out
{
	char		buf[8192];
	size_t		len;
	int			calls;
	int			stop_after;
} Out;

static bool
out_cb(const WalVersion *v, void *arg)
{
	Out		   *o = arg;

	o->calls++;
	o->len += (size_t) snprintf(o->buf + o->len, sizeof(o->buf) - o->len,
								"%s%lld:%.*s=%.*s", o->len ? " " : "", (long long) v->line,
								v->key.len, v->key.ptr, v->value.len, v->value.ptr);
	return !(o->stop_after && o->calls == o->stop_after);
}

static bool
run(const char *text, size_t len, Out *o, int64 *skipped, IsoParseError *e)
{
	char	   *copy = malloc(len ? len : 1);
	bool		r;

	memcpy(copy, text, len);
	memset(o, 0, sizeof(*o));
	r = wal_parse(copy, len, out_cb, o, skipped, e);
	free(copy);
	return r;
}

static void
check_wal(const char *desc, const char *text, const char *want, int64 want_skipped)
{
	Out			o;
	int64		sk = -1;
	IsoParseError e;
	bool		r = run(text, strlen(text), &o, &sk, &e);

	if (!ok(r, "%s: parses", desc))
		diag("kind %d line %lld: %s", e.kind, (long long) e.line, e.message);
	is_str(o.buf, want, desc);
	if (!ok(sk == want_skipped, "%s: %lld skipped lines", desc, (long long) want_skipped))
		diag("got %lld", (long long) sk);
}

static int
final_period(const char *m)
{
	size_t		n = strlen(m);

	return n > 0 && m[n - 1] == '.';
}

static void
check_wal_err_n(const char *desc, const char *text, size_t len, IsoErrorKind kind,
				int64 line, const char *msg_sub)
{
	Out			o;
	int64		sk;
	IsoParseError e;
	bool		r = run(text, len, &o, &sk, &e);

	ok(!r, "%s: fails", desc);
	if (!ok(e.kind == kind, "%s: kind %d", desc, (int) kind))
		diag("got kind %d: %s", e.kind, e.message);
	if (!ok(e.line == line && e.record == line, "%s: line/record %lld", desc, (long long) line))
		diag("got line %lld record %lld", (long long) e.line, (long long) e.record);
	if (!ok(strstr(e.message, msg_sub) != NULL, "%s: message mentions \"%s\"", desc, msg_sub))
		diag("message: %s", e.message);
	ok(e.message[0] >= 'a' && e.message[0] <= 'z' && !final_period(e.message),
	   "%s: message lower case, no final period", desc);
	ok(e.detail[0] >= 'A' && e.detail[0] <= 'Z' && final_period(e.detail), "%s: detail is a sentence", desc);
	ok(e.hint[0] >= 'A' && e.hint[0] <= 'Z' && final_period(e.hint), "%s: hint is a sentence", desc);
}

static void
check_wal_err(const char *desc, const char *text, IsoErrorKind kind, int64 line,
			  const char *msg_sub)
{
	check_wal_err_n(desc, text, strlen(text), kind, line, msg_sub);
}

#define W(k, v) "{\"tick\":\"1\",\"type\":2300,\"db\":\"rwRegister\",\"tid\":\"1\",\"data\":{\"_key\":" k ",\"rwAttr\":" v "}}"

int
main(void)
{
	check_wal("ArangoDB sample",
			  "{\"tick\":\"1\",\"type\":2300,\"db\":\"rwRegister\",\"cuid\":\"h93E1A82983B2/133\",\"tid\":\"1\",\"data\":{\"_key\":\"1\",\"rwAttr\":1}}\n"
			  "{\"tick\":\"2\",\"type\":2300,\"db\":\"rwRegister\",\"cuid\":\"h93E1A82983B2/133\",\"tid\":\"2\",\"data\":{\"_key\":\"2\",\"rwAttr\":1}}\n",
			  "1:1=1 2:2=1", 0);
	check_wal("markers skipped, blank lines, CRLF, no final newline",
			  "{\"tick\":\"1\",\"type\":2200,\"tid\":\"1\"}\r\n\r\n   \n" W("\"a\"", "2") "\r\n{\"type\":2201}\n" W("3", "\"x\""),
			  "4:a=2 6:3=x", 2);
	check_wal("empty input", "", "", 0);
	check_wal("only blank lines", "\n \n\t\r\n", "", 0);
	check_wal("integers canonical",
			  W("-0", "-12") "\n" W("9223372036854775807", "-9223372036854775808") "\n" W("0", "\"007\""),
			  "1:0=-12 2:9223372036854775807=-9223372036854775808 3:0=007", 0);
	check_wal("escapes unescaped",
			  W("\"k\\\"\\\\\\/\\n\"", "\"\\u00e9\\ud83d\\ude00\\t\""),
			  "1:k\"\\/\n=\xc3\xa9\xf0\x9f\x98\x80\t", 0);
	check_wal("raw UTF-8", W("\"cl\xc3\xa9\"", "\"\xe2\x82\xac\""), "1:cl\xc3\xa9=\xe2\x82\xac", 0);
	check_wal("key order and whitespace",
			  " { \"data\" : { \"rwAttr\" : 5 , \"_key\" : \"k\" } , \"type\" : 2300 } ",
			  "1:k=5", 0);
	check_wal("escaped field names",
			  "{\"\\u0074ype\":2300,\"d\\u0061ta\":{\"_k\\u0065y\":1,\"rwAttr\":2}}", "1:1=2", 0);
	check_wal("type as a string or float is not a write",
			  "{\"type\":\"2300\",\"data\":{}}\n{\"type\":2300.0,\"data\":{}}\n{\"type\":23000}\n{\"data\":{\"type\":2300}}",
			  "", 4);
	check_wal("other types and values skipped",
			  "{\"type\":2300,\"x\":[1,[2,[3,{\"_key\":9}]]],\"data\":{\"_key\":1,\"rwAttr\":2,\"o\":{\"_key\":7},\"f\":-1.5e-3,\"t\":true,\"n\":null,\"b\":false,\"big\":123456789012345678901234567890,\"z\":\"\\u0000\"}}",
			  "1:1=2", 0);
	check_wal("type given twice: the last one counts",
			  "{\"type\":2300,\"type\":{\"a\":1},\"data\":{\"_key\":1,\"rwAttr\":2}}\n{\"type\":1,\"type\":2300,\"data\":{\"_key\":1,\"rwAttr\":3}}",
			  "2:1=3", 1);
	check_wal("duplicate fields: last wins", "{\"type\":2300,\"data\":{\"_key\":1,\"_key\":2,\"rwAttr\":3}}", "1:2=3", 0);
	check_wal("nested data ignored",
			  "{\"type\":2300,\"meta\":{\"data\":{\"_key\":5}},\"data\":{\"_key\":1,\"rwAttr\":2}}", "1:1=2", 0);

	/* invalid */
	check_wal_err("missing _key", "{\"type\":2201}\n{\"type\":2300,\"data\":{\"rwAttr\":1}}",
				  ISO_PARSE_INVALID, 2, "document write has no data._key");
	check_wal_err("missing rwAttr", W("1", "2") "\n\n" "{\"type\":2300,\"data\":{\"_key\":1}}",
				  ISO_PARSE_INVALID, 3, "no data.rwAttr");
	check_wal_err("missing data", "{\"type\":2300}", ISO_PARSE_INVALID, 1, "no data._key");
	check_wal_err("data not an object", "{\"type\":2300,\"data\":[1,2]}", ISO_PARSE_INVALID, 1, "no data._key");
	check_wal_err("rwAttr null", W("1", "null"), ISO_PARSE_INVALID, 1, "data.rwAttr 'null' is not a string or integer");
	check_wal_err("rwAttr float", W("1", "1.5"), ISO_PARSE_INVALID, 1, "data.rwAttr '1.5'");
	check_wal_err("_key boolean", W("true", "1"), ISO_PARSE_INVALID, 1, "data._key 'true'");
	check_wal_err("rwAttr object", W("1", "{\"a\":1}"), ISO_PARSE_INVALID, 1, "data.rwAttr '{");
	check_wal_err("line not an object", W("1", "1") "\n[1,2]", ISO_PARSE_INVALID, 2, "line is not a JSON object");
	check_wal_err("number line", "42", ISO_PARSE_INVALID, 1, "line is not a JSON object: '42'");

	/* range */
	check_wal_err("rwAttr overflow", W("1", "9223372036854775808"), ISO_PARSE_RANGE, 1,
				  "integer '9223372036854775808' in data.rwAttr is out of range");
	check_wal_err("_key underflow", W("-9223372036854775809", "1"), ISO_PARSE_RANGE, 1, "data._key");
	check_wal("overflow in a skipped line is fine",
			  "{\"type\":2201,\"data\":{\"_key\":99999999999999999999,\"rwAttr\":1}}", "", 1);

	/* syntax */
	check_wal_err("unterminated object", W("1", "1") "\n{\"type\":2300,\"data\":{\"_key\":1", ISO_PARSE_SYNTAX, 2, "unexpected end of line");
	check_wal_err("unterminated string", "{\"type\":\"abc}", ISO_PARSE_SYNTAX, 1, "unterminated JSON string");
	check_wal_err("trailing comma", "{\"type\":2300,}", ISO_PARSE_SYNTAX, 1, "expected an object key");
	check_wal_err("missing colon", "{\"type\" 2300}", ISO_PARSE_SYNTAX, 1, "expected ':'");
	check_wal_err("missing comma", "{\"type\":2300 \"data\":1}", ISO_PARSE_SYNTAX, 1, "expected ',' or '}'");
	check_wal_err("mismatched bracket", "{\"a\":[1,2}", ISO_PARSE_SYNTAX, 1, "expected ',' or ']'");
	check_wal_err("leading zero", "{\"type\":02300}", ISO_PARSE_SYNTAX, 1, "invalid JSON number '02300'");
	check_wal_err("bare minus", "{\"type\":-}", ISO_PARSE_SYNTAX, 1, "invalid JSON number");
	check_wal_err("bad fraction", "{\"type\":1.}", ISO_PARSE_SYNTAX, 1, "invalid JSON number");
	check_wal_err("bad exponent", "{\"type\":1e+}", ISO_PARSE_SYNTAX, 1, "invalid JSON number");
	check_wal_err("bare word", "{\"type\":nul}", ISO_PARSE_SYNTAX, 1, "expected a JSON value");
	check_wal_err("single quotes", "{'type':2300}", ISO_PARSE_SYNTAX, 1, "expected an object key in double quotes");
	check_wal_err("two objects on a line", "{\"type\":1} {\"type\":2}", ISO_PARSE_SYNTAX, 1, "after the JSON object");
	check_wal_err("bad escape", "{\"type\":\"a\\x\"}", ISO_PARSE_SYNTAX, 1, "invalid escape '\\x'");
	check_wal_err("bad \\u escape", "{\"type\":\"\\u12\"}", ISO_PARSE_SYNTAX, 1, "invalid \\u escape");
	check_wal_err("control character", "{\"type\":\"a\tb\"}", ISO_PARSE_SYNTAX, 1, "control character 0x09");
	check_wal_err_n("NUL byte", "{\"type\":\"a\0b\"}", 14, ISO_PARSE_SYNTAX, 1, "control character 0x00");
	check_wal_err("invalid UTF-8", "{\"x\":1}\n{\"type\":\"\xc3\x28\"}", ISO_PARSE_SYNTAX, 2, "invalid UTF-8 byte 0xc3");
	check_wal_err("NUL escape in a value", W("\"a\\u0000\"", "1"), ISO_PARSE_SYNTAX, 1, "contains the NUL character");
	check_wal_err("lone surrogate in a value", W("1", "\"\\udc00\""), ISO_PARSE_SYNTAX, 1, "unpaired surrogate");
	check_wal_err("high surrogate without low", W("1", "\"\\ud800x\""), ISO_PARSE_SYNTAX, 1, "unpaired surrogate");
	{
		char		buf[400];
		size_t		n = 0;
		int			i;

		n += (size_t) snprintf(buf, sizeof(buf), "{\"a\":");
		for (i = 0; i < 63; i++)
			buf[n++] = '[';
		for (i = 0; i < 63; i++)
			buf[n++] = ']';
		buf[n++] = '}';
		buf[n] = '\0';
		check_wal("nesting of exactly 64", buf, "", 1);
		n = 0;
		n += (size_t) snprintf(buf, sizeof(buf), "{\"a\":");
		for (i = 0; i < 64; i++)
			buf[n++] = '[';
		buf[n] = '\0';
		check_wal_err("nesting of 65", buf, ISO_PARSE_LIMIT, 1, "nesting deeper than 64");
	}
	{
		size_t		n = 1000000;
		char	   *big = malloc(n);

		memset(big, '[', n);
		big[0] = '{';
		check_wal_err_n("a million brackets", big, n, ISO_PARSE_SYNTAX, 1, "expected an object key");
		memcpy(big, "{\"a\":", 5);
		check_wal_err_n("a million brackets in a value", big, n, ISO_PARSE_LIMIT, 1, "nesting deeper");
		free(big);
	}
	{
		Out			o;
		int64		sk;
		IsoParseError e;
		const char *t = W("1", "1") "\n" W("1", "2") "\n" W("1", "3") "\n";
		bool		r;

		memset(&o, 0, sizeof(o));
		o.stop_after = 2;
		{
			char	   *copy = malloc(strlen(t));

			memcpy(copy, t, strlen(t));

			r = wal_parse(copy, strlen(t), out_cb, &o, &sk, &e);
			free(copy);
		}
		ok(!r && e.kind == ISO_PARSE_OK && o.calls == 2, "callback stop: false, err unset, no more calls");
		r = wal_parse(t, strlen(t), out_cb, &o, NULL, &e);
		ok(r, "skipped_lines may be NULL");
	}
	/* \u escapes in the database encoding (see test_edn.c, test_encodings) */
	check_wal("UTF-8: kanji and astral escapes",
			  W("\"\\u6f22\"", "\"\\uD83D\\uDE00\""), "1:\xe6\xbc\xa2=\xf0\x9f\x98\x80", 0);
	iso_standalone_encoding = ISO_STANDALONE_LATIN1;
	check_wal("LATIN1: \\u00e9 is one byte, raw bytes pass",
			  W("\"caf\\u00e9\"", "\"\xe9\""), "1:caf\xe9=\xe9", 0);
	check_wal_err("LATIN1: kanji escape has no equivalent", W("1", "\"\\u6f22\""),
				  ISO_PARSE_UNTRANSLATABLE, 1, "escape '\\u6f22' in JSON string '\"\\u6f22\"' has no equivalent in encoding \"LATIN1\"");
	check_wal_err("LATIN1: astral pair has no equivalent", W("\"\\ud83d\\ude00\"", "1"),
				  ISO_PARSE_UNTRANSLATABLE, 1, "escape '\\ud83d\\ude00'");
	check_wal_err("LATIN1: lone surrogate", W("1", "\"\\udc00\""), ISO_PARSE_SYNTAX, 1, "unpaired surrogate");
	check_wal_err("LATIN1: NUL escape", W("1", "\"\\u0000\""), ISO_PARSE_SYNTAX, 1, "NUL character");
	iso_standalone_encoding = ISO_STANDALONE_UTF8;
	return tap_done();
}
