/*
 * text.c
 *	  Small text helpers shared by the EDN and WAL readers (plain C, see
 *	  port.h): UTF-8 validation, \uXXXX escapes, quoting offending input
 *	  in error messages.
 */
#include "port.h"

#include "text.h"

/*
 * Length of the valid UTF-8 sequence at s (s < end, *s >= 0x80), or 0 if
 * the bytes there are not valid UTF-8 (overlong forms and surrogates
 * rejected).
 */
int
iso_utf8_seq_len(const unsigned char *s, const unsigned char *end)
{
	unsigned char c = s[0];
	size_t		avail = (size_t) (end - s);

	if (c >= 0xC2 && c <= 0xDF)
	{
		if (avail >= 2 && (s[1] & 0xC0) == 0x80)
			return 2;
		return 0;
	}
	if (c >= 0xE0 && c <= 0xEF)
	{
		if (avail < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80)
			return 0;
		if (c == 0xE0 && s[1] < 0xA0)
			return 0;			/* overlong */
		if (c == 0xED && s[1] >= 0xA0)
			return 0;			/* surrogate */
		return 3;
	}
	if (c >= 0xF0 && c <= 0xF4)
	{
		if (avail < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 ||
			(s[3] & 0xC0) != 0x80)
			return 0;
		if (c == 0xF0 && s[1] < 0x90)
			return 0;			/* overlong */
		if (c == 0xF4 && s[1] >= 0x90)
			return 0;			/* beyond U+10FFFF */
		return 4;
	}
	return 0;
}

/*
 * Render up to ISO_QUOTE_CHARS characters of [s, end) into buf for an error
 * message: control characters and bytes that are not a character of the
 * database encoding (UTF-8 outside the server) are escaped, "..." marks
 * truncation, so the message is valid text in that encoding.  buf must hold
 * ISO_QUOTE_BUF bytes.
 */
const char *
iso_quote_text(char *buf, const char *s, const char *end)
{
	const unsigned char *p = (const unsigned char *) s;
	const unsigned char *e = (const unsigned char *) end;
	size_t		o = 0;
	int			chars = 0;

	if (s == NULL)
		p = e = NULL;
	buf[o++] = '\'';
	while (p < e && chars < ISO_QUOTE_CHARS)
	{
		unsigned char c = *p;

		if (c == '\n' || c == '\t' || c == '\r')
		{
			buf[o++] = '\\';
			buf[o++] = (c == '\n') ? 'n' : (c == '\t') ? 't' : 'r';
			p++;
		}
		else if (c < 0x20 || c == 0x7f)
		{
			o += (size_t) snprintf(buf + o, 8, "\\x%02x", c);
			p++;
		}
		else if (c < 0x80)
		{
			buf[o++] = (char) c;
			p++;
		}
		else
		{
			int			n = iso_host_char_len(p, e);

			if (n == 0)
			{
				o += (size_t) snprintf(buf + o, 8, "\\x%02x", c);
				p++;
			}
			else
			{
				memcpy(buf + o, p, (size_t) n);
				o += (size_t) n;
				p += n;
			}
		}
		chars++;
	}
	if (p < e)
	{
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o++] = '\'';
	buf[o] = '\0';
	return buf;
}

static int
hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The 4 hex digits at s (the caller checked s + 4 <= end); -1 if invalid. */
int32
iso_hex4(const unsigned char *s)
{
	int			a = hexval(s[0]),
				b = hexval(s[1]),
				c = hexval(s[2]),
				d = hexval(s[3]);

	if ((a | b | c | d) < 0)
		return -1;
	return (a << 12) | (b << 8) | (c << 4) | d;
}

/*
 * Write code point cp (<= U+10FFFF, not a surrogate) as UTF-8 at o; returns
 * the end.  Text for the database goes through iso_host_unicode_char.
 */
char *
iso_utf8_encode(char *o, uint32 cp)
{
	if (cp < 0x80)
		*o++ = (char) cp;
	else if (cp < 0x800)
	{
		*o++ = (char) (0xC0 | (cp >> 6));
		*o++ = (char) (0x80 | (cp & 0x3F));
	}
	else if (cp < 0x10000)
	{
		*o++ = (char) (0xE0 | (cp >> 12));
		*o++ = (char) (0x80 | ((cp >> 6) & 0x3F));
		*o++ = (char) (0x80 | (cp & 0x3F));
	}
	else
	{
		*o++ = (char) (0xF0 | (cp >> 18));
		*o++ = (char) (0x80 | ((cp >> 12) & 0x3F));
		*o++ = (char) (0x80 | ((cp >> 6) & 0x3F));
		*o++ = (char) (0x80 | (cp & 0x3F));
	}
	return o;
}

/*
 * How many bytes of s[0, len) (text in the database encoding) to show when
 * at most max bytes fit: never a character cut in two.
 */
int32
iso_clip_len(const char *s, int32 len, int32 max)
{
	const unsigned char *p = (const unsigned char *) s;
	const unsigned char *e = p + len;
	int32		keep = 0;

	if (len <= max)
		return len;
	while (keep < max)
	{
		int			n = p[keep] < 0x80 ? 1 : iso_host_char_len(p + keep, e);

		if (n == 0)
			n = 1;				/* not text: byte by byte */
		if (keep + n > max)
			break;
		keep += n;
	}
	return keep;
}

/*
 * End a message (NUL-terminated, built of text in the database encoding)
 * before a character that vsnprintf's truncation cut in two.
 */
void
iso_trim_partial(char *buf)
{
	unsigned char *p = (unsigned char *) buf;
	unsigned char *e = p + strlen(buf);

	while (p < e)
	{
		int			n = *p < 0x80 ? 1 : iso_host_char_len(p, e);

		if (n == 0)
		{
			*p = '\0';
			return;
		}
		p += n;
	}
}

/*
 * Grow the window of ix to cover v, keeping what it holds; false (and ix
 * unchanged) if it would be over 4 slots per entry plus 4096.
 */
bool
iso_small_index_cover(IsoSmallIndex *ix, uint32 v, uint64 entries)
{
	uint64		lo = ix->cap ? ix->base : (v & ~(uint32) 1023);
	uint64		hi = lo + ix->cap;
	uint64		ncap = ix->cap ? (uint64) ix->cap * 2 : 1024;
	uint32	   *ns;

	while ((v < lo ? hi - v : (uint64) v + 1 - lo) > ncap)
		ncap *= 2;
	if (ncap > 4 * entries + 4096 || ncap > ((uint64) 1 << 31))
		return false;
	if (v < lo)
		lo = hi > ncap ? hi - ncap : 0;
	ns = (uint32 *) iso_alloc0(ncap * sizeof(uint32));
	if (ix->slots)
	{
		memcpy(ns + (ix->base - lo), ix->slots, (size_t) ix->cap * sizeof(uint32));
		iso_free(ix->slots);
	}
	ix->slots = ns;
	ix->base = (uint32) lo;
	ix->cap = (uint32) ncap;
	return true;
}
