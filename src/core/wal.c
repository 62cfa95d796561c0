/*
 * wal.c
 *	  Reader for version-order evidence in write-ahead-log JSON lines (see
 *	  wal.h).
 *
 * Each line is scanned by a small non-recursive JSON scanner: an explicit
 * stack of open containers (at most WAL_MAX_DEPTH) and a state machine.
 * Only three things are extracted: the top-level "type", and "_key" and
 * "rwAttr" of the top-level "data" object.  Everything else is validated
 * and skipped.  Strings are unescaped only when they are a value we keep;
 * they then go to a per-line buffer that is sized to the line up front, so
 * slices into it stay valid for the whole line.
 */
#include "wal.h"
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define WAL_MAX_DEPTH 64
#define WQUOTE_BUF ISO_QUOTE_BUF

/* Container roles: only the top object and its "data" object matter. */
#define ROLE_TOP	0
#define ROLE_DATA	1
#define ROLE_OTHER	2

/* Which kept field the next value belongs to. */
#define K_NONE		0
#define K_TYPE		1
#define K_DATA		2
#define K_KEY		3
#define K_RWATTR	4

/* Scanner states */
#define ST_VALUE			0	/* a value must follow */
#define ST_VALUE_OR_END		1	/* after '[' */
#define ST_KEY_OR_END		2	/* after '{' */
#define ST_KEY				3	/* after ',' in an object */
#define ST_COLON			4
#define ST_COMMA_OR_END		5
#define ST_DONE				6

/* State of data._key / data.rwAttr on the current line. */
#define FV_ABSENT	0
#define FV_OK		1
#define FV_BADKIND	2			/* not a string or integer */
#define FV_RANGE	3			/* integer outside 64 bits */

typedef struct WalField
{
	int			state;
	IsoSlice	text;
	const char *src;			/* the JSON value text, for messages */
	const char *src_end;
	char		num[24];		/* canonical integer text */
} WalField;

typedef struct WalParser
{
	const char *text;
	const char *end;
	int64		line;
	IsoParseError *err;
	char	   *buf;			/* unescaped strings of the current line */
	size_t		buf_cap;
	size_t		buf_len;
	const char *ls;				/* current line */
	const char *le;
} WalParser;


/* End of the JSON object/array at s, for quoting (bounded, approximate). */
static const char *
wextent(const char *s, const char *end)
{
	const char *p = s;
	const char *lim = (end - s > 400) ? s + 400 : end;
	int			depth = 0;

	while (p < lim)
	{
		char		c = *p++;

		if (c == '"')
		{
			while (p < lim && *p != '"')
				p += (*p == '\\') ? 2 : 1;
			p++;
		}
		else if (c == '[' || c == '{')
			depth++;
		else if ((c == ']' || c == '}') && --depth <= 0)
			break;
	}
	return p < end ? p : end;
}

static bool
wal_error(WalParser *W, IsoErrorKind kind, const char *detail, const char *hint,
		  const char *fmt,...)
ISO_PRINTF(5, 6);

static bool
wal_error(WalParser *W, IsoErrorKind kind, const char *detail, const char *hint,
		  const char *fmt,...)
{
	IsoParseError *e = W->err;
	va_list		ap;

	e->kind = kind;
	e->record = W->line;
	e->line = W->line;
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof(e->message), fmt, ap);
	va_end(ap);
	iso_trim_partial(e->message);	/* a long quote may have been cut */
	snprintf(e->detail, sizeof(e->detail), "%s", detail);
	snprintf(e->hint, sizeof(e->hint), "%s", hint);
	return false;
}

#define JSON_HINT "Each line must be one JSON object, as written by ArangoDB's WAL tailing API."

/*
 * Scan a JSON string starting at the quote *pp; on success *pp is past the
 * closing quote and *escaped tells whether it had escapes.
 */
static bool
scan_string(WalParser *W, const char **pp, bool *escaped)
{
	const unsigned char *s = (const unsigned char *) *pp;
	const unsigned char *p = s + 1;
	const unsigned char *e = (const unsigned char *) W->le;
	char		q[WQUOTE_BUF];

	*escaped = false;
	for (;;)
	{
		unsigned char c;

		if (p >= e)
			return wal_error(W, ISO_PARSE_SYNTAX,
							 "A JSON string must end with a double quote on the same line.", JSON_HINT,
							 "unterminated JSON string %s, expected '\"'",
							 iso_quote_text(q, (const char *) s, (const char *) e));
		c = *p;
		if (c == '"')
			break;
		if (c == '\\')
		{
			*escaped = true;
			if (p + 1 >= e)
			{
				p++;
				continue;
			}
			switch (p[1])
			{
				case '"':
				case '\\':
				case '/':
				case 'b':
				case 'f':
				case 'n':
				case 'r':
				case 't':
					p += 2;
					break;
				case 'u':
					if (e - p < 6 || iso_hex4(p + 2) < 0)
						return wal_error(W, ISO_PARSE_SYNTAX,
										 "A \\u escape needs exactly four hex digits.", JSON_HINT,
										 "invalid \\u escape %s in JSON string, expected four hex digits",
										 iso_quote_text(q, (const char *) p, (const char *) (e - p > 6 ? p + 6 : e)));
					p += 6;
					break;
				default:
					return wal_error(W, ISO_PARSE_SYNTAX,
									 "JSON allows the escapes \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX.", JSON_HINT,
									 "invalid escape %s in JSON string, expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX",
									 iso_quote_text(q, (const char *) p, (const char *) p + 2));
			}
		}
		else if (c < 0x20)
			return wal_error(W, ISO_PARSE_SYNTAX,
							 "Control characters, including NUL, must be escaped inside JSON strings.", JSON_HINT,
							 "control character 0x%02x in JSON string %s, expected an escape",
							 c, iso_quote_text(q, (const char *) s, (const char *) p + 1));
		else if (c >= 0x80)
		{
			/* text from the server: valid in the database encoding */
			int			n = iso_host_char_len(p, e);

			if (n == 0 && iso_host_encoding_utf8())
				return wal_error(W, ISO_PARSE_SYNTAX,
								 "JSON text must be valid UTF-8.",
								 "Convert the file to UTF-8, for example with iconv.",
								 "invalid UTF-8 byte 0x%02x in JSON string %s",
								 c, iso_quote_text(q, (const char *) s, (const char *) p + 1));
			if (n == 0)
				return wal_error(W, ISO_PARSE_SYNTAX,
								 "The log must be text in the database encoding.",
								 "Convert the file to the database encoding, for example with iconv.",
								 "invalid byte 0x%02x in JSON string %s, expected a character of encoding \"%s\"",
								 c, iso_quote_text(q, (const char *) s, (const char *) p + 1),
								 iso_host_encoding_name());
			p += n;
		}
		else
			p++;
	}
	*pp = (const char *) p + 1;
	return true;
}

/* Unescape the string [s, e) (quotes included) into W->buf. */
static bool
unescape_json(WalParser *W, const char *s, const char *e, IsoSlice *out)
{
	const unsigned char *p = (const unsigned char *) s + 1;
	const unsigned char *pe = (const unsigned char *) e - 1;
	char	   *o;
	char		q[WQUOTE_BUF];

	if (W->buf_cap < (size_t) (W->le - W->ls) + 8)
	{
		size_t		ncap = W->buf_cap ? W->buf_cap : 256;

		while (ncap < (size_t) (W->le - W->ls) + 8)
			ncap *= 2;
		iso_free(W->buf);	/* nothing of this line is in it yet */
		W->buf = iso_alloc(ncap);
		W->buf_cap = ncap;
		W->buf_len = 0;
	}
	o = W->buf + W->buf_len;
	out->ptr = o;
	while (p < pe)
	{
		uint32		cp;
		const unsigned char *esc;
		int			n;

		if (*p != '\\')
		{
			*o++ = (char) *p++;
			continue;
		}
		switch (p[1])
		{
			case 'b':
				*o++ = '\b';
				p += 2;
				continue;
			case 'f':
				*o++ = '\f';
				p += 2;
				continue;
			case 'n':
				*o++ = '\n';
				p += 2;
				continue;
			case 'r':
				*o++ = '\r';
				p += 2;
				continue;
			case 't':
				*o++ = '\t';
				p += 2;
				continue;
			case 'u':
				esc = p;
				cp = (uint32) iso_hex4(p + 2);
				if (cp >= 0xD800 && cp <= 0xDBFF)
				{
					int32		lo = -1;

					if (pe - p >= 12 && p[6] == '\\' && p[7] == 'u')
						lo = iso_hex4(p + 8);
					if (lo < 0xDC00 || lo > 0xDFFF)
						return wal_error(W, ISO_PARSE_SYNTAX,
										 "A high surrogate \\ud800-\\udbff must be followed by a low surrogate escape.",
										 JSON_HINT,
										 "unpaired surrogate escape %s in JSON string, expected a low surrogate to follow",
										 iso_quote_text(q, (const char *) p, (const char *) p + 6));
					cp = 0x10000 + ((cp - 0xD800) << 10) + ((uint32) lo - 0xDC00);
					p += 12;
				}
				else if (cp >= 0xDC00 && cp <= 0xDFFF)
					return wal_error(W, ISO_PARSE_SYNTAX,
									 "A low surrogate \\udc00-\\udfff may only follow a high surrogate.",
									 JSON_HINT,
									 "unpaired surrogate escape %s in JSON string, expected a character escape",
									 iso_quote_text(q, (const char *) p, (const char *) p + 6));
				else
					p += 6;
				if (cp == 0)
					return wal_error(W, ISO_PARSE_SYNTAX,
									 "Keys and values are stored as text, which cannot contain NUL characters.",
									 "Remove the \\u0000 escape from the log.",
									 "string %s contains the NUL character \\u0000, expected text",
									 iso_quote_text(q, s, e));
				/* the character in the database encoding (see edn.c) */
				n = iso_host_unicode_char(cp, o);
				if (n == 0)
				{
					char		q2[WQUOTE_BUF];
					char		detail[160];

					snprintf(detail, sizeof(detail),
							 "Keys and values are stored as text in the database encoding, which has no character U+%04X.",
							 (unsigned) cp);
					return wal_error(W, ISO_PARSE_UNTRANSLATABLE, detail,
									 "Load the log into a database of encoding UTF8, which has every character, or replace the character in the log.",
									 "escape %s in JSON string %s has no equivalent in encoding \"%s\"",
									 iso_quote_text(q, (const char *) esc, (const char *) p),
									 iso_quote_text(q2, s, e), iso_host_encoding_name());
				}
				o += n;
				continue;
			default:			/* \" \\ \/ */
				*o++ = (char) p[1];
				p += 2;
				continue;
		}
	}
	out->len = (int32) (o - out->ptr);
	W->buf_len = (size_t) (o - W->buf);
	return true;
}

/*
 * Scan a JSON number at *pp.  *is_int: no fraction or exponent; then
 * *overflow / *val hold the integer.
 */
static bool
scan_number(WalParser *W, const char **pp, bool *is_int, bool *overflow,
			int64 *val)
{
	const char *s = *pp;
	const char *p = s;
	const char *e = W->le;
	bool		neg = false;
	uint64		u = 0;
	bool		ovf = false;
	char		q[WQUOTE_BUF];

	if (*p == '-')
	{
		neg = true;
		p++;
	}
	if (p >= e || (unsigned char) (*p - '0') > 9)
		goto bad;
	if (*p == '0' && p + 1 < e && (unsigned char) (p[1] - '0') <= 9)
		goto bad;				/* leading zero */
	while (p < e && (unsigned char) (*p - '0') <= 9)
	{
		unsigned	d = (unsigned) (*p - '0');

		if (u > (UINT64_MAX - d) / 10)
			ovf = true;
		else
			u = u * 10 + d;
		p++;
	}
	*is_int = true;
	if (p < e && *p == '.')
	{
		*is_int = false;
		p++;
		if (p >= e || (unsigned char) (*p - '0') > 9)
			goto bad;
		while (p < e && (unsigned char) (*p - '0') <= 9)
			p++;
	}
	if (p < e && (*p == 'e' || *p == 'E'))
	{
		*is_int = false;
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			p++;
		if (p >= e || (unsigned char) (*p - '0') > 9)
			goto bad;
		while (p < e && (unsigned char) (*p - '0') <= 9)
			p++;
	}
	if (!ovf)
		ovf = neg ? u > (uint64) PG_INT64_MAX + 1 : u > (uint64) PG_INT64_MAX;
	*overflow = ovf;
	if (!ovf)
		*val = neg ? (u == (uint64) PG_INT64_MAX + 1 ? PG_INT64_MIN : -(int64) u) : (int64) u;
	*pp = p;
	return true;

bad:
	while (p < e && *p != ',' && *p != '}' && *p != ']' && *p != ' ')
		p++;
	return wal_error(W, ISO_PARSE_SYNTAX,
					 "A JSON number is an optional minus sign, digits without leading zeros, an optional fraction and an optional exponent.",
					 JSON_HINT, "invalid JSON number %s", iso_quote_text(q, s, p));
}

static void
canonical_int(WalField *f, int64 v)
{
	char		tmp[24];
	char	   *b = tmp + sizeof(tmp);
	uint64		u = v < 0 ? (uint64) 0 - (uint64) v : (uint64) v;
	size_t		n;

	do
	{
		*--b = (char) ('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--b = '-';
	n = (size_t) (tmp + sizeof(tmp) - b);
	memcpy(f->num, b, n);
	f->text.ptr = f->num;
	f->text.len = (int32) n;
}

static bool
key_is(const char *s, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

/*
 * Scan one line [W->ls, W->le) holding a JSON object.  *is_write is set if
 * its top-level "type" is 2300; fk/fv receive data._key and data.rwAttr.
 */
static bool
scan_line(WalParser *W, bool *is_write, WalField *fk, WalField *fv)
{
	unsigned char roles[WAL_MAX_DEPTH];
	char		kinds[WAL_MAX_DEPTH];
	int			depth = 0;
	int			state = ST_VALUE;
	int			key = K_NONE;
	const char *p = W->ls;
	const char *e = W->le;
	char		q[WQUOTE_BUF];

	*is_write = false;
	while (p < e)
	{
		unsigned char c = (unsigned char) *p;
		const char *vs = p;

		if (c == ' ' || c == '\t' || c == '\r')
		{
			p++;
			continue;
		}
		switch (state)
		{
			case ST_DONE:
				return wal_error(W, ISO_PARSE_SYNTAX,
								 "Each line holds exactly one JSON object.", JSON_HINT,
								 "unexpected %s after the JSON object, expected end of line",
								 iso_quote_text(q, p, e));
			case ST_COLON:
				if (c != ':')
					return wal_error(W, ISO_PARSE_SYNTAX,
									 "In a JSON object every key is followed by a colon and a value.", JSON_HINT,
									 "unexpected %s after an object key, expected ':'", iso_quote_text(q, p, e));
				p++;
				state = ST_VALUE;
				continue;
			case ST_COMMA_OR_END:
				if (c == ',')
				{
					p++;
					state = kinds[depth - 1] == '{' ? ST_KEY : ST_VALUE;
					key = K_NONE;
					continue;
				}
				if ((c == '}' && kinds[depth - 1] == '{') || (c == ']' && kinds[depth - 1] == '['))
				{
					p++;
					depth--;
					state = depth == 0 ? ST_DONE : ST_COMMA_OR_END;
					continue;
				}
				return wal_error(W, ISO_PARSE_SYNTAX,
								 "JSON values in objects and arrays are separated by commas.", JSON_HINT,
								 "unexpected %s, expected ',' or '%c'", iso_quote_text(q, p, e),
								 kinds[depth - 1] == '{' ? '}' : ']');
			case ST_KEY_OR_END:
			case ST_KEY:
				if (c == '}' && state == ST_KEY_OR_END)
				{
					p++;
					depth--;
					state = depth == 0 ? ST_DONE : ST_COMMA_OR_END;
					continue;
				}
				if (c != '"')
					return wal_error(W, ISO_PARSE_SYNTAX,
									 "JSON object keys are double-quoted strings.", JSON_HINT,
									 "unexpected %s, expected an object key in double quotes%s",
									 iso_quote_text(q, p, e), state == ST_KEY_OR_END ? " or '}'" : "");
				{
					bool		esc;
					const char *ks;
					size_t		kn;
					IsoSlice	ku;

					if (!scan_string(W, &p, &esc))
						return false;
					ks = vs + 1;
					kn = (size_t) (p - vs - 2);
					key = K_NONE;
					if (roles[depth - 1] != ROLE_OTHER)
					{
						if (esc)
						{
							size_t		save = W->buf_len;

							if (!unescape_json(W, vs, p, &ku))
								return false;
							ks = ku.ptr;
							kn = (size_t) ku.len;
							W->buf_len = save;	/* key text no longer needed */
						}
						if (roles[depth - 1] == ROLE_TOP)
						{
							if (key_is(ks, kn, "type"))
								key = K_TYPE;
							else if (key_is(ks, kn, "data"))
								key = K_DATA;
						}
						else
						{
							if (key_is(ks, kn, "_key"))
								key = K_KEY;
							else if (key_is(ks, kn, "rwAttr"))
								key = K_RWATTR;
						}
					}
					state = ST_COLON;
					continue;
				}
			case ST_VALUE_OR_END:
				if (c == ']')
				{
					p++;
					depth--;
					state = depth == 0 ? ST_DONE : ST_COMMA_OR_END;
					continue;
				}
				/* FALLTHROUGH */
			case ST_VALUE:
				{
					WalField   *f = key == K_KEY ? fk : key == K_RWATTR ? fv : NULL;

					if (depth == 0 && c != '{')
						return wal_error(W, ISO_PARSE_INVALID,
										 "Each line of a write-ahead log holds one JSON object.", JSON_HINT,
										 "line is not a JSON object: %s, expected '{'", iso_quote_text(q, p, e));
					if (c == '{' || c == '[')
					{
						if (depth >= WAL_MAX_DEPTH)
							return wal_error(W, ISO_PARSE_LIMIT,
											 "JSON objects and arrays may be nested at most 64 deep.",
											 "Check that the file is a write-ahead log; nothing in one nests this deep.",
											 "nesting deeper than %d levels at %s", WAL_MAX_DEPTH, iso_quote_text(q, p, e));
						if (key == K_TYPE)
							*is_write = false;
						kinds[depth] = (char) c;
						if (c == '{' && depth == 0)
							roles[depth] = ROLE_TOP;
						else if (c == '{' && depth == 1 && key == K_DATA)
							roles[depth] = ROLE_DATA;
						else
							roles[depth] = ROLE_OTHER;
						depth++;
						p++;
						state = c == '{' ? ST_KEY_OR_END : ST_VALUE_OR_END;
						if (f)
						{
							f->state = FV_BADKIND;
							f->src = vs;
							f->src_end = wextent(vs, e);
						}
						key = K_NONE;
						continue;
					}
					if (c == '"')
					{
						bool		esc;

						if (!scan_string(W, &p, &esc))
							return false;
						if (f)
						{
							f->src = vs;
							f->src_end = p;
							f->state = FV_OK;
							if (esc)
							{
								if (!unescape_json(W, vs, p, &f->text))
									return false;
							}
							else
							{
								f->text.ptr = vs + 1;
								f->text.len = (int32) (p - vs - 2);
							}
						}
					}
					else if (c == '-' || (c >= '0' && c <= '9'))
					{
						bool		is_int = false,
									ovf = false;
						int64		v = 0;

						if (!scan_number(W, &p, &is_int, &ovf, &v))
							return false;
						if (key == K_TYPE)
							*is_write = is_int && !ovf && v == WAL_DOCUMENT_WRITE;
						if (f)
						{
							f->src = vs;
							f->src_end = p;
							if (!is_int)
								f->state = FV_BADKIND;
							else if (ovf)
								f->state = FV_RANGE;
							else
							{
								f->state = FV_OK;
								canonical_int(f, v);
							}
						}
					}
					else if ((c == 't' && e - p >= 4 && memcmp(p, "true", 4) == 0) ||
							 (c == 'n' && e - p >= 4 && memcmp(p, "null", 4) == 0) ||
							 (c == 'f' && e - p >= 5 && memcmp(p, "false", 5) == 0))
					{
						p += (c == 'f') ? 5 : 4;
						if (f)
						{
							f->state = FV_BADKIND;
							f->src = vs;
							f->src_end = p;
						}
					}
					else
						return wal_error(W, ISO_PARSE_SYNTAX,
										 "JSON values are objects, arrays, strings, numbers, true, false and null.", JSON_HINT,
										 "unexpected %s, expected a JSON value", iso_quote_text(q, p, e));
					if (key == K_TYPE && c != '-' && (c < '0' || c > '9'))
						*is_write = false;
					key = K_NONE;
					state = ST_COMMA_OR_END;
					continue;
				}
		}
	}
	if (state != ST_DONE)
		return wal_error(W, ISO_PARSE_SYNTAX,
						 "A JSON object must be complete on its line.", JSON_HINT,
						 "unexpected end of line in JSON object %s, expected %s",
						 iso_quote_text(q, W->ls, W->le),
						 state == ST_COLON ? "':'" :
						 (state == ST_COMMA_OR_END ? (kinds[depth - 1] == '{' ? "',' or '}'" : "',' or ']'") :
						  (state == ST_KEY || state == ST_KEY_OR_END) ? "an object key" : "a value"));
	return true;
}

static bool
field_check(WalParser *W, const WalField *f, const char *name)
{
	char		q[WQUOTE_BUF];

	switch (f->state)
	{
		case FV_OK:
			return true;
		case FV_ABSENT:
			return wal_error(W, ISO_PARSE_INVALID,
							 "A document write (\"type\": 2300) carries the key in data._key and the value written in data.rwAttr.",
							 "Write-ahead log lines of type 2300 must have a \"data\" object with \"_key\" and \"rwAttr\"; check that the log comes from the rw-register test collection.",
							 "document write has no data.%s, expected a string or integer", name);
		case FV_RANGE:
			return wal_error(W, ISO_PARSE_RANGE,
							 "Keys and values must fit in a signed 64-bit integer.",
							 "Use strings for keys or values that do not fit in 64 bits.",
							 "integer %s in data.%s is out of range, expected a value between -9223372036854775808 and 9223372036854775807",
							 iso_quote_text(q, f->src, f->src_end), name);
		default:
			return wal_error(W, ISO_PARSE_INVALID,
							 "Keys and values in the log must be JSON strings or integers.",
							 "Check that the log comes from the rw-register test collection.",
							 "data.%s %s is not a string or integer", name,
							 iso_quote_text(q, f->src, f->src_end));
	}
}

bool
wal_parse(const char *text, size_t len,
		  WalVersionCallback callback, void *arg,
		  int64 *skipped_lines, IsoParseError *err)
{
	WalParser	W;
	const char *p;
	int64		skipped = 0;
	bool		ok = true;
	bool		stopped = false;

	memset(err, 0, sizeof(*err));
	memset(&W, 0, sizeof(W));
	if (text == NULL)
	{
		text = "";
		len = 0;
	}
	W.text = text;
	W.end = text + len;
	W.err = err;
	p = text;
	while (p < W.end)
	{
		const char *nl = memchr(p, '\n', (size_t) (W.end - p));
		const char *le = nl ? nl : W.end;
		const char *s = p;
		bool		is_write;
		WalField	fk,
					fv;

		W.line++;
		W.ls = p;
		W.le = le;
		W.buf_len = 0;
		p = nl ? nl + 1 : W.end;
		while (s < le && (*s == ' ' || *s == '\t' || *s == '\r'))
			s++;
		if (s == le)
			continue;			/* blank line */
		if ((W.line & 4095) == 0)
			ISO_CHECK_INTERRUPTS();
		fk.state = fv.state = FV_ABSENT;
		if (!scan_line(&W, &is_write, &fk, &fv))
		{
			ok = false;
			break;
		}
		if (!is_write)
		{
			skipped++;
			continue;
		}
		if (!field_check(&W, &fk, "_key") || !field_check(&W, &fv, "rwAttr"))
		{
			ok = false;
			break;
		}
		{
			WalVersion	v;

			v.key = fk.text;
			v.value = fv.text;
			/* the integer texts live in fk/fv: fine, they outlive the call */
			v.line = W.line;
			if (!callback(&v, arg))
			{
				ok = false;
				stopped = true;
				break;
			}
		}
	}
	if (skipped_lines)
		*skipped_lines = skipped;
	if (stopped)
		memset(err, 0, sizeof(*err));
	iso_free(W.buf);
	return ok;
}
