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

/*
 * The value of s if it is a canonical decimal of at most 9 digits ("0",
 * "17", not "017" or "-1"), else -1.
 */
static inline int64
iso_small_int_text(const char *s, int32 len)
{
	uint32		v = 0;
	int32		i;

	if (len < 1 || len > 9 || (s[0] == '0' && len > 1))
		return -1;
	for (i = 0; i < len; i++)
	{
		unsigned	d = (unsigned) ((unsigned char) s[i] - '0');

		if (d > 9)
			return -1;
		v = v * 10 + d;
	}
	return v;
}

/*
 * A direct index of small integers (the texts of most keys and values of a
 * Jepsen history) in front of a hash table: slots[v - base] is an entry
 * number plus one, 0 = not there.  The window [base, base + cap) grows by
 * doubling, either way, while it stays within 4 slots per entry of the
 * table behind it plus 4096, so that a few large numbers do not blow it
 * up: those go by the hash alone, which holds every entry anyway.  It
 * starts where the first number is, not at 0: a history's second half,
 * parsed on its own (edn_split.c), starts at its keys, which may already
 * be far above 4 per entry.
 */
typedef struct IsoSmallIndex
{
	uint32	   *slots;
	uint32		base;
	uint32		cap;
} IsoSmallIndex;

extern bool iso_small_index_cover(IsoSmallIndex *ix, uint32 v, uint64 entries);

/* The slot of v (0 <= v < 10^9), NULL if the window may not cover it. */
static inline uint32 *
iso_small_index_slot(IsoSmallIndex *ix, int64 v, uint64 entries)
{
	uint32		off = (uint32) v - ix->base;	/* wraps below base */

	if (off >= ix->cap)
	{
		if (!iso_small_index_cover(ix, (uint32) v, entries))
			return NULL;
		off = (uint32) v - ix->base;
	}
	return &ix->slots[off];
}

static inline void
iso_small_index_free(IsoSmallIndex *ix)
{
	iso_free(ix->slots);
	ix->slots = NULL;
	ix->base = ix->cap = 0;
}

#endif							/* ISOGRAPH_TEXT_H */
