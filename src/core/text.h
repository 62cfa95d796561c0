/*
 * text.h
 *	  Small text helpers shared by the parsers (text.c).
 */
#ifndef ISOGRAPH_TEXT_H
#define ISOGRAPH_TEXT_H

#include "port.h"

#define ISO_QUOTE_CHARS 40		/* characters of offending text quoted */
#define ISO_QUOTE_BUF	200		/* buffer iso_quote_text needs */

extern int	iso_utf8_seq_len(const unsigned char *s, const unsigned char *end);
extern const char *iso_quote_text(char *buf, const char *s, const char *end);
extern int32 iso_hex4(const unsigned char *s);
extern char *iso_utf8_encode(char *o, uint32 cp);
extern int32 iso_clip_len(const char *s, int32 len, int32 max);
extern void iso_trim_partial(char *buf);

/*
 * 64-bit FNV-1a folded to 32 bits: cheap and good enough for short texts
 * (keys and values), and the same bytes give the same hash everywhere.
 */
static inline uint32
iso_hash_text(const char *s, int32 len)
{
	uint64		h = UINT64_C(14695981039346656037);
	int32		i;

	for (i = 0; i < len; i++)
	{
		h ^= (unsigned char) s[i];
		h *= UINT64_C(1099511628211);
	}
	return (uint32) (h ^ (h >> 32));
}

/*
 * Whether n bytes at a and b are equal, and a copy of n bytes: inline for
 * the short texts of keys and list elements (one or two bytes in most
 * histories), where a call of memcmp or memcpy per element costs more
 * than the bytes (docs/performance.md).
 */
static inline bool
iso_same_bytes(const char *a, const char *b, int32 n)
{
	int32		i;

	if (n > 16)
		return memcmp(a, b, (size_t) n) == 0;
	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

static inline void
iso_copy_bytes(char *dst, const char *src, int32 n)
{
	int32		i;

	if (n > 16)
	{
		memcpy(dst, src, (size_t) n);
		return;
	}
	for (i = 0; i < n; i++)
		dst[i] = src[i];
}

#endif							/* ISOGRAPH_TEXT_H */
