/*
 * edn.c
 *	  Streaming reader for Jepsen EDN histories (see edn.h).
 *
 * Structure
 * ---------
 * lex() turns the text into tokens without any allocation: string tokens
 * are validated (escapes, UTF-8, no NUL byte) but only unescaped when their
 * content is needed, integers are converted on the fly.  skip_value() skips
 * one complete EDN value iteratively (an explicit stack of at most
 * EDN_MAX_DEPTH entries), so arbitrarily deep input cannot overflow the C
 * stack; nothing in this file recurses.
 *
 * A record (one map) is parsed field by field.  The fields the checker uses
 * (:type :f :process :value :time :index) get a typed parse; everything else
 * is skipped.  Whether a record is a transaction at all is only known at the
 * end of the map (:f and :process may come after :value), so semantic
 * errors found inside a record are "deferred": the first one is remembered,
 * the offending value is re-scanned with skip_value() (which still reports
 * syntax errors and nesting limits), and the deferred error is raised at the
 * end of the map only if the record turns out to be a transaction.  Nemesis
 * records may therefore carry any value at all.
 *
 * Records of the common shape (keywords, canonical integers, nil, the
 * :value vector) are first tried by fast_record(), one pass over the bytes
 * without tokens, which gives up at anything else; the general parser then
 * reads the record from its start.  The unique-writes check keeps small
 * integer values as per-key bitmaps (unique_write).  edn_fast_paths turns
 * all of this off, for the tests that compare.
 *
 * Keys and values of micro-operations point into the input text whenever
 * the text is already canonical (plain strings, keywords, canonical
 * integers); otherwise they are built in a block arena that is reset for
 * every record.  Pending invocations copy what they need out of the arena
 * into a per-invocation blob that is recycled through a free list.  An
 * invocation's value is used only if its completion has none (or it never
 * completes), so on the fast path it is only checked (fr_ops_scan, the
 * same texts accepted) and its micro-ops are read from its text when they
 * are used (pending_src).
 */
#include "edn.h"
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#if defined(__GNUC__)
#define ISO_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define ISO_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ISO_UNLIKELY(x) (x)
#define ISO_ALWAYS_INLINE inline
#endif

#define QUOTE_BUF	ISO_QUOTE_BUF

/* ----------------------------------------------------------------------
 * Character classes
 * ---------------------------------------------------------------------- */
#define C_WS	0x01			/* whitespace other than newline (incl. ',') */
#define C_DELIM 0x02			/* ends a number/symbol token */
#define C_SYM	0x04			/* symbol constituent */
#define C_DIGIT 0x08
#define C_SYM1	0x10			/* may start a symbol */

static const unsigned char edn_cls[256] = {
	['\t'] = C_WS | C_DELIM,['\r'] = C_WS | C_DELIM,['\f'] = C_WS | C_DELIM,
	['\v'] = C_WS | C_DELIM,[' '] = C_WS | C_DELIM,[','] = C_WS | C_DELIM,
	['\n'] = C_DELIM,
	['('] = C_DELIM,[')'] = C_DELIM,['['] = C_DELIM,[']'] = C_DELIM,
	['{'] = C_DELIM,['}'] = C_DELIM,['"'] = C_DELIM,[';'] = C_DELIM,
	['0'] = C_SYM | C_DIGIT,['1'] = C_SYM | C_DIGIT,['2'] = C_SYM | C_DIGIT,
	['3'] = C_SYM | C_DIGIT,['4'] = C_SYM | C_DIGIT,['5'] = C_SYM | C_DIGIT,
	['6'] = C_SYM | C_DIGIT,['7'] = C_SYM | C_DIGIT,['8'] = C_SYM | C_DIGIT,
	['9'] = C_SYM | C_DIGIT,
	['.'] = C_SYM | C_SYM1,['*'] = C_SYM | C_SYM1,['+'] = C_SYM | C_SYM1,
	['!'] = C_SYM | C_SYM1,['-'] = C_SYM | C_SYM1,['_'] = C_SYM | C_SYM1,
	['?'] = C_SYM | C_SYM1,['$'] = C_SYM | C_SYM1,['%'] = C_SYM | C_SYM1,
	['&'] = C_SYM | C_SYM1,['='] = C_SYM | C_SYM1,['<'] = C_SYM | C_SYM1,
	['>'] = C_SYM | C_SYM1,['/'] = C_SYM | C_SYM1,['\''] = C_SYM,
	[':'] = C_SYM,['#'] = C_SYM,
	['a'] = C_SYM | C_SYM1,['b'] = C_SYM | C_SYM1,['c'] = C_SYM | C_SYM1,
	['d'] = C_SYM | C_SYM1,['e'] = C_SYM | C_SYM1,['f'] = C_SYM | C_SYM1,
	['g'] = C_SYM | C_SYM1,['h'] = C_SYM | C_SYM1,['i'] = C_SYM | C_SYM1,
	['j'] = C_SYM | C_SYM1,['k'] = C_SYM | C_SYM1,['l'] = C_SYM | C_SYM1,
	['m'] = C_SYM | C_SYM1,['n'] = C_SYM | C_SYM1,['o'] = C_SYM | C_SYM1,
	['p'] = C_SYM | C_SYM1,['q'] = C_SYM | C_SYM1,['r'] = C_SYM | C_SYM1,
	['s'] = C_SYM | C_SYM1,['t'] = C_SYM | C_SYM1,['u'] = C_SYM | C_SYM1,
	['v'] = C_SYM | C_SYM1,['w'] = C_SYM | C_SYM1,['x'] = C_SYM | C_SYM1,
	['y'] = C_SYM | C_SYM1,['z'] = C_SYM | C_SYM1,
	['A'] = C_SYM | C_SYM1,['B'] = C_SYM | C_SYM1,['C'] = C_SYM | C_SYM1,
	['D'] = C_SYM | C_SYM1,['E'] = C_SYM | C_SYM1,['F'] = C_SYM | C_SYM1,
	['G'] = C_SYM | C_SYM1,['H'] = C_SYM | C_SYM1,['I'] = C_SYM | C_SYM1,
	['J'] = C_SYM | C_SYM1,['K'] = C_SYM | C_SYM1,['L'] = C_SYM | C_SYM1,
	['M'] = C_SYM | C_SYM1,['N'] = C_SYM | C_SYM1,['O'] = C_SYM | C_SYM1,
	['P'] = C_SYM | C_SYM1,['Q'] = C_SYM | C_SYM1,['R'] = C_SYM | C_SYM1,
	['S'] = C_SYM | C_SYM1,['T'] = C_SYM | C_SYM1,['U'] = C_SYM | C_SYM1,
	['V'] = C_SYM | C_SYM1,['W'] = C_SYM | C_SYM1,['X'] = C_SYM | C_SYM1,
	['Y'] = C_SYM | C_SYM1,['Z'] = C_SYM | C_SYM1,
};

/* Bytes that stop the fast scan inside a string. */
static const unsigned char str_special[256] = {
	[0] = 1,['\n'] = 1,['"'] = 1,['\\'] = 1,
	[0x80] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/* ----------------------------------------------------------------------
 * Small helpers shared by the error paths
 * ---------------------------------------------------------------------- */


/*
 * End of the value starting at s, for quoting it in a message: a balanced
 * bracket scan over at most a few hundred bytes (strings roughly skipped);
 * the quote is truncated anyway.
 */
static const char *
value_extent(const char *s, const char *end)
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
		else if (c == '[' || c == '(' || c == '{')
			depth++;
		else if (c == ']' || c == ')' || c == '}')
		{
			if (--depth <= 0)
				break;
		}
		else if (depth == 0 && p - s > 1 && (c == ' ' || c == ',' || c == '\n'))
		{
			p--;
			break;
		}
	}
	return p < end ? p : end;
}

static void ISO_PRINTF(5, 6)
set_error(IsoParseError *e, IsoErrorKind kind, int64 record, int64 line,
		  const char *fmt,...)
{
	va_list		ap;

	e->kind = kind;
	e->record = record;
	e->line = line;
	e->detail[0] = '\0';
	e->hint[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof(e->message), fmt, ap);
	va_end(ap);
	iso_trim_partial(e->message);
}

static void ISO_PRINTF(2, 3)
set_detail(IsoParseError *e, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(e->detail, sizeof(e->detail), fmt, ap);
	va_end(ap);
	iso_trim_partial(e->detail);
}

static void ISO_PRINTF(2, 3)
set_hint(IsoParseError *e, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(e->hint, sizeof(e->hint), fmt, ap);
	va_end(ap);
	iso_trim_partial(e->hint);
}

/* ----------------------------------------------------------------------
 * Block arena: stable pointers, reset per record
 * ---------------------------------------------------------------------- */
typedef struct ArenaBlock
{
	struct ArenaBlock *next;
	size_t		cap;
	size_t		used;
	/* data follows */
} ArenaBlock;

typedef struct Arena
{
	ArenaBlock *head;
	ArenaBlock *cur;
} Arena;

#define ARENA_BLOCK 65536

static char *
arena_alloc(Arena *a, size_t n)
{
	ArenaBlock *b;
	char	   *r;

	n = (n + 7) & ~(size_t) 7;
	b = a->cur;
	while (b != NULL && b->cap - b->used < n)
		b = b->next;
	if (b == NULL)
	{
		size_t		cap = n > ARENA_BLOCK ? n : ARENA_BLOCK;

		b = (ArenaBlock *) iso_alloc(sizeof(ArenaBlock) + cap);
		b->cap = cap;
		b->used = 0;
		b->next = NULL;
		if (a->head == NULL)
			a->head = b;
		else
		{
			ArenaBlock *t = a->cur ? a->cur : a->head;

			while (t->next)
				t = t->next;
			t->next = b;
		}
	}
	a->cur = b;
	r = (char *) (b + 1) + b->used;
	b->used += n;
	return r;
}

static void
arena_reset(Arena *a)
{
	ArenaBlock *b;

	for (b = a->head; b != NULL; b = b->next)
		b->used = 0;
	a->cur = a->head;
}

static void
arena_free(Arena *a)
{
	ArenaBlock *b = a->head;

	while (b)
	{
		ArenaBlock *n = b->next;

		iso_free(b);
		b = n;
	}
	a->head = a->cur = NULL;
}

/* Grow *buf (elements of size elsz) to hold at least need elements. */
static void *
grow_array(void *buf, size_t elsz, int32 *cap, size_t need)
{
	size_t		ncap = *cap > 0 ? (size_t) *cap : 16;

	while (ncap < need)
		ncap *= 2;
	if (ncap > (size_t) PG_INT32_MAX)
		ncap = (size_t) PG_INT32_MAX;
	buf = buf ? iso_realloc(buf, ncap * elsz) : iso_alloc(ncap * elsz);
	*cap = (int32) ncap;
	return buf;
}

/* ----------------------------------------------------------------------
 * Hashing (writes table and process table)
 * ---------------------------------------------------------------------- */
#define HASH_K1 UINT64_C(0x9E3779B97F4A7C15)
#define HASH_K2 UINT64_C(0xC2B2AE3D27D4EB4F)

static inline uint64
hash_mix(uint64 h)
{
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64_C(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return h;
}

static inline uint64
hash_bytes(const char *s, size_t n, uint64 h)
{
	uint64		w;

	while (n >= 8)
	{
		memcpy(&w, s, 8);
		h = (h ^ w) * HASH_K1;
		h ^= h >> 29;
		s += 8;
		n -= 8;
	}
	if (n > 0)
	{
		w = 0;
		memcpy(&w, s, n);
		h = (h ^ w ^ ((uint64) n << 56)) * HASH_K2;
		h ^= h >> 31;
	}
	return h;
}

/* ----------------------------------------------------------------------
 * Tokens
 * ---------------------------------------------------------------------- */
typedef enum TokKind
{
	TK_EOF = 0,
	TK_LBRACE,					/* { */
	TK_LBRACK,					/* [ */
	TK_LPAREN,					/* ( */
	TK_SET,						/* #{ */
	TK_RBRACE,					/* } */
	TK_RBRACK,					/* ] */
	TK_RPAREN,					/* ) */
	TK_DISCARD,					/* #_ */
	TK_TAG,						/* #sym */
	TK_STRING,
	TK_INT,
	TK_FLOAT,
	TK_KEYWORD,
	TK_SYMBOL,
	TK_NIL,
	TK_TRUE,
	TK_FALSE,
	TK_CHAR
} TokKind;

#define TK_IS_OPEN(k)	((k) >= TK_LBRACE && (k) <= TK_SET)
#define TK_IS_CLOSE(k)	((k) >= TK_RBRACE && (k) <= TK_RPAREN)
#define TK_IS_ATOM(k)	((k) >= TK_STRING)

typedef struct Tok
{
	TokKind		kind;
	bool		overflow;		/* TK_INT outside int64 */
	bool		canonical;		/* TK_INT text is canonical decimal */
	bool		escaped;		/* TK_STRING has backslash escapes */
	const char *start;			/* first byte of the token */
	const char *stop;			/* one past its last byte */
	int64		line;			/* line of the first byte */
	int64		ival;			/* TK_INT value */
} Tok;

/* An open collection, for error messages. */
typedef struct Open
{
	TokKind		kind;
	const char *start;
	int64		line;
} Open;

static TokKind
closer_for(TokKind open)
{
	switch (open)
	{
		case TK_LBRACK:
			return TK_RBRACK;
		case TK_LPAREN:
			return TK_RPAREN;
		default:
			return TK_RBRACE;
	}
}

static const char *
coll_name(TokKind open)
{
	switch (open)
	{
		case TK_LBRACE:
			return "map";
		case TK_LBRACK:
			return "vector";
		case TK_LPAREN:
			return "list";
		default:
			return "set";
	}
}

static const char *
closer_text(TokKind k)
{
	switch (k)
	{
		case TK_RBRACK:
			return "]";
		case TK_RPAREN:
			return ")";
		default:
			return "}";
	}
}

/* ----------------------------------------------------------------------
 * Parser state
 * ---------------------------------------------------------------------- */

/* A micro-operation while parsing (lists as offsets into an elems array). */
typedef struct IOp
{
	IsoOpKind	op;
	int32		list_len;		/* -1: not a list read */
	int32		list_off;
	int32		src_len;
	IsoSlice	key;
	IsoSlice	value;
	IsoSlice	read_value;
	const char *src;			/* micro-op text in the input */
	int64		line;
} IOp;

#define REC_INVOKE	3			/* beyond IsoStatus values */

#define F_TYPE		0x01
#define F_F			0x02
#define F_PROCESS	0x04
#define F_VALUE		0x08
#define F_TIME		0x10
#define F_INDEX		0x20

typedef struct Rec
{
	int64		pos;			/* 0-based record position */
	int64		number;			/* 1-based record number */
	int64		line;
	const char *start;			/* the '{' */
	unsigned	seen;
	int			type;			/* IsoStatus or REC_INVOKE; -1 unknown */
	bool		f_present;
	bool		f_txn;
	bool		has_process;
	bool		process_keyword;	/* :process :nemesis and the like */
	bool		has_time;
	bool		has_index;
	bool		has_value;		/* :value present and not nil */
	bool		lazy_value;		/* an invocation's value, checked, not read */
	bool		deferred;		/* rec_err holds a pending error */
	int64		process;
	int64		time;
	int64		index;
	const char *value_text;		/* lazy_value: the value's text, its line */
	size_t		value_len;
	int64		value_line;
	IsoParseError rec_err;
} Rec;

/* A pending invocation. */
typedef struct Pending
{
	int64		pos;
	int64		number;
	int64		line;
	int64		process;
	int64		time;
	int64		index;
	bool		has_process;
	bool		has_time;
	bool		has_index;
	bool		active;
	bool		lazy;			/* its ops are read from value_text */
	int32		n_ops;
	int32		next_free;
	IOp		   *ops;
	IsoSlice   *elems;
	const char *value_text;		/* lazy: the value's text (input or blob) */
	size_t		value_len;
	int64		value_line;
	char	   *blob;
	size_t		blob_cap;
} Pending;

typedef struct ProcSlot
{
	int64		process;
	int32		pend;			/* index into pend[], -1 none, PROC_UNSEEN
								 * before the process's first record */
	bool		used;
} ProcSlot;

#define PROC_UNSEEN		(-2)

/*
 * Unique-writes table: open addressing over 8-byte slots (high 32 bits:
 * hash bits, low 32 bits: entry number + 1; 0 = empty); entries are
 * appended to a dense array and their text to a byte pool, all growing by
 * doubling, so there is no per-entry allocation and probing touches one
 * cache line per slot.
 */
typedef struct WEnt
{
	size_t		off;			/* key then value bytes in the pool */
	int32		klen;
	int32		vlen;
	int64		record;
	int64		line;
} WEnt;

typedef struct Parser
{
	const char *text;
	const char *p;
	const char *end;
	size_t		len;
	int64		line;
	int			depth;			/* open collections around p */
	IsoParseError *err;
	Arena		arena;

	Rec			rec;
	IOp		   *ops;
	int32		n_ops;
	int32		cap_ops;
	IsoSlice   *elems;
	int32		n_elems;
	int32		cap_elems;
	IsoSlice	fast_int;		/* the element fast_list_int just read */

	EdnOp	   *out;
	int32		cap_out;

	Pending    *pend;
	int32		n_pend;
	int32		cap_pend;
	int32		free_pend;
	ProcSlot   *procs;
	size_t		proc_cap;
	size_t		proc_n;
	int32		anon_pend;

	uint64	   *wslots;
	size_t		wcap;			/* slots, a power of two */
	WEnt	   *wents;
	size_t		wn;				/* entries */
	size_t		wents_cap;
	char	   *wpool;
	size_t		wpool_len;
	size_t		wpool_cap;

	/*
	 * The unique-writes check's bitmaps (fast_unique): per key, a bitmap of
	 * the small integer values written (ukeys, found by the key's text
	 * through ukslots); other values go to the table above.  A whole text
	 * names the first write of a duplicate found there by reading the text
	 * again (reread_dups); a stream cannot, and names only the second.
	 */
	bool		fast_unique;
	bool		reread_dups;
	bool		fast_dup;		/* fast_unique found a value written twice */
	uint32	   *ukslots;		/* open addressing: ukeys index + 1, 0 = empty */
	size_t		ukcap;			/* slots, a power of two */
	struct UKey *ukeys;
	size_t		nuk;
	size_t		ukeys_cap;
	char	   *ukpool;
	size_t		ukpool_len;
	size_t		ukpool_cap;
	IsoSmallIndex uksmall;		/* keys that are small integers: ukeys index + 1 */

	IsoWorkload workload;
	bool		wl_expected;
	int64		wl_record;
	int64		wl_line;

	IsoTimeSource time_mode;	/* decided by the first transaction record */
	bool		any_timed;		/* a transaction got an invocation time */

	bool		utf8;			/* the database encoding is UTF-8 */

	EdnStats   *stats;
	EdnTxnCallback callback;
	void	   *arg;
	bool		stopped;

	/*
	 * Streaming (edn_stream_*): the input comes in chunks that do not
	 * outlive their feed, so pending invocations copy all their text
	 * (copy_all); hit_eof says the lexer reached the end of the chunk, so
	 * that an error after it may only mean that the record goes on in the
	 * next chunk.
	 */
	bool		copy_all;
	bool		hit_eof;
} Parser;

static const IsoSlice empty_list[1] = {{"", 0}};

/* ----------------------------------------------------------------------
 * Lexer
 * ---------------------------------------------------------------------- */

static bool
lex_error(Parser *P, IsoErrorKind kind, int64 line, const char *fmt,...)
ISO_PRINTF(4, 5);

static bool
lex_error(Parser *P, IsoErrorKind kind, int64 line, const char *fmt,...)
{
	va_list		ap;
	IsoParseError *e = P->err;

	e->kind = kind;
	e->record = P->rec.number;
	e->line = line;
	e->detail[0] = '\0';
	e->hint[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof(e->message), fmt, ap);
	va_end(ap);
	iso_trim_partial(e->message);
	return false;
}

/* Lex a string starting at the opening quote P->p. */
static bool
lex_string(Parser *P, Tok *t)
{
	const unsigned char *p = (const unsigned char *) P->p + 1;
	const unsigned char *end = (const unsigned char *) P->end;
	int64		line = P->line;
	char		q[QUOTE_BUF];

	t->kind = TK_STRING;
	t->escaped = false;
	for (;;)
	{
		unsigned char c;

		while (p < end && !str_special[*p])
			p++;
		if (ISO_UNLIKELY(p >= end))
		{
			P->hit_eof = true;
			lex_error(P, ISO_PARSE_SYNTAX, t->line,
					  "unterminated string %s at end of input, expected '\"'",
					  iso_quote_text(q, t->start, P->end));
			set_detail(P->err, "The string opened at line %lld is not closed before the input ends at line %lld.",
					   (long long) t->line, (long long) line);
			set_hint(P->err, "The file may be truncated, or a quote inside the string is not escaped as \\\".");
			return false;
		}
		c = *p;
		if (c == '"')
		{
			p++;
			break;
		}
		if (c == '\n')
		{
			line++;
			p++;
		}
		else if (c == '\\')
		{
			t->escaped = true;
			if (p + 1 >= end)
			{
				p++;
				continue;		/* reported as unterminated */
			}
			switch (p[1])
			{
				case '"':
				case '\\':
				case 'n':
				case 't':
				case 'r':
				case 'b':
				case 'f':
				case '/':
					p += 2;
					break;
				case 'u':
					{
						int32		cp;

						if (end - p < 6 || (cp = iso_hex4(p + 2)) < 0)
						{
							lex_error(P, ISO_PARSE_SYNTAX, line,
									  "invalid \\u escape %s in string, expected four hex digits",
									  iso_quote_text(q, (const char *) p, (const char *) (end - p > 6 ? p + 6 : end)));
							set_detail(P->err, "The string starts at line %lld.", (long long) t->line);
							set_hint(P->err, "Write a Unicode escape as \\u followed by exactly four hex digits, for example \\u00e9.");
							return false;
						}
						if (cp >= 0xD800 && cp <= 0xDBFF)
						{
							int32		lo = -1;

							if (end - p >= 12 && p[6] == '\\' && p[7] == 'u')
								lo = iso_hex4(p + 8);
							if (lo < 0xDC00 || lo > 0xDFFF)
							{
								lex_error(P, ISO_PARSE_SYNTAX, line,
										  "unpaired surrogate escape %s in string, expected a low surrogate \\udc00-\\udfff to follow",
										  iso_quote_text(q, (const char *) p, (const char *) (end - p > 6 ? p + 6 : end)));
								set_detail(P->err, "A high surrogate \\ud800-\\udbff must be followed by a low surrogate escape.");
								set_hint(P->err, "Encode characters outside the Basic Multilingual Plane as a surrogate pair or as raw UTF-8.");
								return false;
							}
							p += 12;
						}
						else if (cp >= 0xDC00 && cp <= 0xDFFF)
						{
							lex_error(P, ISO_PARSE_SYNTAX, line,
									  "unpaired surrogate escape %s in string, expected a character escape",
									  iso_quote_text(q, (const char *) p, (const char *) p + 6));
							set_detail(P->err, "A low surrogate \\udc00-\\udfff may only follow a high surrogate.");
							set_hint(P->err, "Encode characters outside the Basic Multilingual Plane as a surrogate pair or as raw UTF-8.");
							return false;
						}
						else
							p += 6;
						break;
					}
				default:
					lex_error(P, ISO_PARSE_SYNTAX, line,
							  "invalid escape %s in string, expected one of \\\" \\\\ \\n \\t \\r \\b \\f \\uXXXX",
							  iso_quote_text(q, (const char *) p, (const char *) p + 2));
					set_detail(P->err, "The string starts at line %lld.", (long long) t->line);
					set_hint(P->err, "Escape a backslash inside a string as \\\\.");
					return false;
			}
		}
		else if (c == 0)
		{
			lex_error(P, ISO_PARSE_SYNTAX, line,
					  "string %s contains a NUL byte, expected text",
					  iso_quote_text(q, t->start, (const char *) p + 1));
			set_detail(P->err, "Strings may not contain the byte 0x00; the string starts at line %lld.",
					   (long long) t->line);
			set_hint(P->err, "The file may be binary or corrupted; check its encoding.");
			return false;
		}
		else
		{
			/*
			 * Raw bytes: the text came from the server, valid in the
			 * database encoding; checked again here, for the fuzzers and
			 * the unit tests, in that encoding.
			 */
			int			n = P->utf8 ? iso_utf8_seq_len(p, end) : iso_host_char_len(p, end);

			if (n == 0)
			{
				if (P->utf8)
				{
					lex_error(P, ISO_PARSE_SYNTAX, line,
							  "invalid UTF-8 byte 0x%02x in string %s",
							  c, iso_quote_text(q, t->start, (const char *) p + 1));
					set_detail(P->err, "Strings must be valid UTF-8; the string starts at line %lld.",
							   (long long) t->line);
					set_hint(P->err, "Convert the file to UTF-8, for example with iconv.");
				}
				else
				{
					lex_error(P, ISO_PARSE_SYNTAX, line,
							  "invalid byte 0x%02x in string %s, expected a character of encoding \"%s\"",
							  c, iso_quote_text(q, t->start, (const char *) p + 1), iso_host_encoding_name());
					set_detail(P->err, "Strings must be text in the database encoding; the string starts at line %lld.",
							   (long long) t->line);
					set_hint(P->err, "Convert the file to the database encoding, for example with iconv.");
				}
				return false;
			}
			p += n;
		}
	}
	if (ISO_UNLIKELY((const char *) p - t->start > PG_INT32_MAX / 2))
	{
		lex_error(P, ISO_PARSE_LIMIT, t->line, "string of %lld bytes is too long, expected at most %d bytes",
				  (long long) ((const char *) p - t->start), PG_INT32_MAX / 2);
		set_detail(P->err, "The string starts at line %lld.", (long long) t->line);
		set_hint(P->err, "Keys and values must be short.");
		return false;
	}
	t->stop = (const char *) p;
	P->p = (const char *) p;
	P->line = line;
	return true;
}

static inline bool
delim_ok(const Parser *P, const char *p)
{
	return p >= P->end || (edn_cls[(unsigned char) *p] & C_DELIM);
}

/* The token ends at p: the next byte must be a delimiter. */
static bool
lex_check_delim(Parser *P, Tok *t, const char *p, const char *what)
{
	char		q[QUOTE_BUF];
	const char *e;

	if (p >= P->end || (edn_cls[(unsigned char) *p] & C_DELIM))
		return true;
	/* quote the whole bad token */
	e = p;
	while (e < P->end && !(edn_cls[(unsigned char) *e] & C_DELIM))
		e++;
	lex_error(P, ISO_PARSE_SYNTAX, t->line, "invalid %s %s, expected a delimiter after %s",
			  what, iso_quote_text(q, t->start, e), what);
	set_detail(P->err, "The character right after the %s is not allowed there.", what);
	set_hint(P->err, "Separate values with whitespace or commas.");
	return false;
}

static bool
lex_number(Parser *P, Tok *t)
{
	const char *p = P->p;
	const char *end = P->end;
	const char *ds;
	bool		neg = false;
	bool		plus = false;
	bool		big = false;
	uint64		u = 0;
	bool		ovf = false;

	if (*p == '+' || *p == '-')
	{
		neg = (*p == '-');
		plus = !neg;
		p++;
	}
	ds = p;
	while (p < end && (unsigned char) (*p - '0') <= 9)
	{
		unsigned	d = (unsigned) (*p - '0');

		if (u > (UINT64_MAX - d) / 10)
			ovf = true;
		else
			u = u * 10 + d;
		p++;
	}
	if (p < end && (*p == '.' || *p == 'e' || *p == 'E' || *p == 'M'))
	{
		/* a floating point number: lexed only, never used */
		if (*p == '.')
		{
			p++;
			while (p < end && (unsigned char) (*p - '0') <= 9)
				p++;
		}
		if (p < end && (*p == 'e' || *p == 'E'))
		{
			const char *ed;

			p++;
			if (p < end && (*p == '+' || *p == '-'))
				p++;
			ed = p;
			while (p < end && (unsigned char) (*p - '0') <= 9)
				p++;
			if (p == ed)
			{
				char		q[QUOTE_BUF];

				while (p < end && !(edn_cls[(unsigned char) *p] & C_DELIM))
					p++;
				lex_error(P, ISO_PARSE_SYNTAX, t->line, "invalid number %s, expected digits after the exponent",
						  iso_quote_text(q, t->start, p));
				set_detail(P->err, "A floating point exponent needs at least one digit, as in 1e3.");
				set_hint(P->err, "Check the number for a typo.");
				return false;
			}
		}
		if (p < end && *p == 'M')
			p++;
		t->kind = TK_FLOAT;
		t->stop = p;
		if ((!delim_ok(P, p) && !lex_check_delim(P, t, p, "number")))
			return false;
		P->p = p;
		return true;
	}
	if (p < end && *p == 'N')
	{
		big = true;
		p++;
	}
	t->stop = p;
	if ((!delim_ok(P, p) && !lex_check_delim(P, t, p, "number")))
		return false;
	if (ds[0] == '0' && p - ds > 1 && (unsigned char) (ds[1] - '0') <= 9)
	{
		/* the EDN spec forbids it, and readers disagree on what it means */
		char		q[QUOTE_BUF];

		lex_error(P, ISO_PARSE_SYNTAX, t->line, "invalid integer %s, expected no leading zero",
				  iso_quote_text(q, t->start, p));
		set_detail(P->err, "EDN integers other than 0 do not begin with 0: Clojure would read 0777 as the octal number 511, other readers as 777.");
		set_hint(P->err, "Write the integer without leading zeros, or as a string (\"0777\") if the zeros matter.");
		return false;
	}
	if (!ovf)
	{
		if (neg)
			ovf = u > (uint64) PG_INT64_MAX + 1;
		else
			ovf = u > (uint64) PG_INT64_MAX;
	}
	t->kind = TK_INT;
	t->overflow = ovf;
	if (!ovf)
	{
		if (neg)
			t->ival = (u == (uint64) PG_INT64_MAX + 1) ? PG_INT64_MIN : -(int64) u;
		else
			t->ival = (int64) u;
	}
	t->canonical = !plus && !big && !(ds[0] == '0' && (p - ds) > 1) &&
		!(neg && u == 0);
	P->p = p;
	return true;
}

/*
 * Next token.  Whitespace, commas and comments are skipped.  Returns false
 * with P->err set on a lexical error.
 */
static bool
lex(Parser *P, Tok *t)
{
	const char *p = P->p;
	const char *end = P->end;
	unsigned char c;
	char		q[QUOTE_BUF];

	for (;;)
	{
		if (ISO_UNLIKELY(p >= end))
		{
			P->p = p;
			P->hit_eof = true;
			t->kind = TK_EOF;
			t->start = t->stop = p;
			t->line = P->line;
			return true;
		}
		c = (unsigned char) *p;
		if (edn_cls[c] & C_WS)
			p++;
		else if (c == '\n')
		{
			P->line++;
			p++;
		}
		else if (c == ';')
		{
			const char *nl = memchr(p, '\n', (size_t) (end - p));

			p = nl ? nl : end;
		}
		else
			break;
	}
	t->start = p;
	t->line = P->line;
	P->p = p;
	switch (c)
	{
		case '{':
			t->kind = TK_LBRACE;
			break;
		case '}':
			t->kind = TK_RBRACE;
			break;
		case '[':
			t->kind = TK_LBRACK;
			break;
		case ']':
			t->kind = TK_RBRACK;
			break;
		case '(':
			t->kind = TK_LPAREN;
			break;
		case ')':
			t->kind = TK_RPAREN;
			break;
		case '"':
			return lex_string(P, t);
		case ':':
			{
				const char *s = p + 1;

				while (s < end && (edn_cls[(unsigned char) *s] & C_SYM))
					s++;
				t->kind = TK_KEYWORD;
				t->stop = s;
				if (s == p + 1)
				{
					const char *e = s < end ? s + 1 : s;

					lex_error(P, ISO_PARSE_SYNTAX, t->line, "invalid keyword %s, expected a name after ':'",
							  iso_quote_text(q, p, e));
					set_detail(P->err, "A keyword is a colon followed by a name, such as :ok.");
					set_hint(P->err, "Check for a stray colon.");
					return false;
				}
				if ((!delim_ok(P, s) && !lex_check_delim(P, t, s, "keyword")))
					return false;
				P->p = s;
				return true;
			}
		case '#':
			if (p + 1 < end)
			{
				unsigned char d = (unsigned char) p[1];

				if (d == '{')
				{
					t->kind = TK_SET;
					P->p = p + 2;
					t->stop = p + 2;
					return true;
				}
				if (d == '_')
				{
					t->kind = TK_DISCARD;
					P->p = p + 2;
					t->stop = p + 2;
					return true;
				}
				if (d == '#' || ((d | 0x20) >= 'a' && (d | 0x20) <= 'z'))
				{
					const char *s = p + 2;

					while (s < end && (edn_cls[(unsigned char) *s] & C_SYM))
						s++;
					/* ##Inf etc. are values, #foo/bar is a tag prefix */
					t->kind = (d == '#') ? TK_SYMBOL : TK_TAG;
					t->stop = s;
					if (d == '#' && s == p + 2)
						goto bad_dispatch;	/* "##" without a name */
					if (d == '#' && (!delim_ok(P, s) && !lex_check_delim(P, t, s, "symbolic value")))
						return false;
					P->p = s;
					return true;
				}
			}
	bad_dispatch:
			if (p + 1 >= end)
				P->hit_eof = true;
			lex_error(P, ISO_PARSE_SYNTAX, t->line, "unexpected character sequence %s, expected a value",
					  iso_quote_text(q, p, (end - p >= 2) ? p + 2 : end));
			set_detail(P->err, "A '#' must start a set #{...}, a discard #_ or a tagged literal such as #inst.");
			set_hint(P->err, "Check that the file is EDN as written by Jepsen.");
			return false;
		case '\\':
			{
				/* character literal: \a \newline \u00e9 */
				const unsigned char *s = (const unsigned char *) p + 1;
				const unsigned char *ue = (const unsigned char *) end;

				if (s >= ue || (edn_cls[*s] & C_WS) || *s == '\n')
				{
					lex_error(P, ISO_PARSE_SYNTAX, t->line, "invalid character literal %s, expected a character after '\\'",
							  iso_quote_text(q, p, (const char *) (s < ue ? s + 1 : s)));
					set_detail(P->err, "A backslash outside a string starts a character literal such as \\a.");
					set_hint(P->err, "Backslashes belong inside strings.");
					return false;
				}
				if (*s >= 0x80)
				{
					int			n = P->utf8 ? iso_utf8_seq_len(s, ue) : iso_host_char_len(s, ue);

					if (n == 0)
					{
						lex_error(P, ISO_PARSE_SYNTAX, t->line, "invalid %s in character literal %s",
								  P->utf8 ? "UTF-8" : "byte",
								  iso_quote_text(q, p, (const char *) s + 1));
						set_detail(P->err, "The input must be valid text in encoding \"%s\".", iso_host_encoding_name());
						set_hint(P->err, "Convert the file to the database encoding, for example with iconv.");
						return false;
					}
					s += n;
				}
				else
					s++;
				while (s < ue && (((*s | 0x20) >= 'a' && (*s | 0x20) <= 'z') || (*s >= '0' && *s <= '9')))
					s++;
				t->kind = TK_CHAR;
				t->stop = (const char *) s;
				if ((!delim_ok(P, (const char *) s) && !lex_check_delim(P, t, (const char *) s, "character literal")))
					return false;
				P->p = (const char *) s;
				return true;
			}
		default:
			if ((unsigned char) (c - '0') <= 9 ||
				((c == '+' || c == '-') && p + 1 < end && (unsigned char) (p[1] - '0') <= 9))
				return lex_number(P, t);
			if (edn_cls[c] & C_SYM1)
			{
				const char *s = p + 1;

				while (s < end && (edn_cls[(unsigned char) *s] & C_SYM))
					s++;
				t->stop = s;
				t->kind = TK_SYMBOL;
				if (s - p == 3 && memcmp(p, "nil", 3) == 0)
					t->kind = TK_NIL;
				else if (s - p == 4 && memcmp(p, "true", 4) == 0)
					t->kind = TK_TRUE;
				else if (s - p == 5 && memcmp(p, "false", 5) == 0)
					t->kind = TK_FALSE;
				if ((!delim_ok(P, s) && !lex_check_delim(P, t, s, "symbol")))
					return false;
				P->p = s;
				return true;
			}
			{
				const char *e = p + 1;

				if (c >= 0x80)
				{
					int			n = iso_utf8_seq_len((const unsigned char *) p, (const unsigned char *) end);

					e = p + (n > 0 ? n : 1);
				}
				lex_error(P, ISO_PARSE_SYNTAX, t->line, "unexpected character %s, expected a value",
						  iso_quote_text(q, p, e));
				set_detail(P->err, "EDN values are maps, vectors, lists, sets, strings, numbers, keywords, symbols, nil and booleans.");
				set_hint(P->err, "Check that the file is EDN as written by Jepsen, not JSON or another format.");
				return false;
			}
	}
	/* single-character punctuation */
	P->p = p + 1;
	t->stop = p + 1;
	return true;
}

/* ----------------------------------------------------------------------
 * Skipping values (iterative)
 * ---------------------------------------------------------------------- */

static bool
err_unterminated(Parser *P, const Open *o)
{
	char		q[QUOTE_BUF];

	lex_error(P, ISO_PARSE_SYNTAX, o->line, "unterminated %s %s at end of input, expected '%s'",
			  coll_name(o->kind), iso_quote_text(q, o->start, P->end),
			  closer_text(closer_for(o->kind)));
	set_detail(P->err, "The %s opened at line %lld is not closed before the input ends at line %lld.",
			   coll_name(o->kind), (long long) o->line, (long long) P->line);
	set_hint(P->err, "The file may be truncated; check that the last record is complete.");
	return false;
}

static bool
err_mismatch(Parser *P, const Open *o, const Tok *t)
{
	lex_error(P, ISO_PARSE_SYNTAX, t->line, "unexpected '%s', expected '%s' to close the %s",
			  closer_text(t->kind), closer_text(closer_for(o->kind)), coll_name(o->kind));
	set_detail(P->err, "The %s was opened at line %lld.", coll_name(o->kind), (long long) o->line);
	set_hint(P->err, "Check that brackets and braces are balanced.");
	return false;
}

static bool
err_limit(Parser *P, const Tok *t)
{
	char		q[QUOTE_BUF];

	lex_error(P, ISO_PARSE_LIMIT, t->line, "nesting deeper than %d levels at %s",
			  EDN_MAX_DEPTH, iso_quote_text(q, t->start, P->end));
	set_detail(P->err, "Collections may be nested at most %d deep; a history needs 4.", EDN_MAX_DEPTH);
	set_hint(P->err, "Check that the file is a Jepsen history; nothing in one nests this deep.");
	return false;
}

/*
 * A closing bracket or end of input where a value was expected; ctx is the
 * innermost open collection (NULL at top level).
 */
static bool
err_no_value(Parser *P, const Open *ctx, const Tok *t)
{
	if (t->kind == TK_EOF)
	{
		if (ctx)
			return err_unterminated(P, ctx);
		lex_error(P, ISO_PARSE_SYNTAX, t->line, "unexpected end of input, expected a value");
		set_detail(P->err, "The input ends after a #_ discard or a tag that needs a value.");
		set_hint(P->err, "The file may be truncated.");
		return false;
	}
	if (ctx && closer_for(ctx->kind) != t->kind)
		return err_mismatch(P, ctx, t);
	if (ctx && ctx->kind == TK_LBRACE)
	{
		char		q[QUOTE_BUF];

		lex_error(P, ISO_PARSE_SYNTAX, t->line, "map %s has a key without a value, expected a value before '}'",
				  iso_quote_text(q, ctx->start, t->stop));
		set_detail(P->err, "A map needs an even number of forms: key value key value; it was opened at line %lld.",
				   (long long) ctx->line);
		set_hint(P->err, "Check for a missing value or a stray key.");
		return false;
	}
	lex_error(P, ISO_PARSE_SYNTAX, t->line, "unexpected '%s', expected a value", closer_text(t->kind));
	set_detail(P->err, "A #_ discard or a tag must be followed by a value.");
	set_hint(P->err, "Check that brackets and braces are balanced.");
	return false;
}

/*
 * Skip exactly one value starting at P->p (after any #_ discarded values and
 * tag prefixes).  Iterative: the nesting is kept in a fixed stack, limited by
 * EDN_MAX_DEPTH counted from the top of the input.
 */
static bool
skip_value(Parser *P, const Open *ctx)
{
	Open		stack[EDN_MAX_DEPTH + 1];
	int			d = 0;
	int64		need = 1;
	Tok			t;

	for (;;)
	{
		if (!lex(P, &t))
			return false;
		switch (t.kind)
		{
			case TK_EOF:
				if (d > 0)
					return err_unterminated(P, &stack[d - 1]);
				return err_no_value(P, ctx, &t);
			case TK_LBRACE:
			case TK_LBRACK:
			case TK_LPAREN:
			case TK_SET:
				if (P->depth + d + 1 > EDN_MAX_DEPTH)
					return err_limit(P, &t);
				stack[d].kind = t.kind;
				stack[d].start = t.start;
				stack[d].line = t.line;
				d++;
				break;
			case TK_RBRACE:
			case TK_RBRACK:
			case TK_RPAREN:
				if (d == 0)
					return err_no_value(P, ctx, &t);
				if (closer_for(stack[d - 1].kind) != t.kind)
					return err_mismatch(P, &stack[d - 1], &t);
				d--;
				if (d == 0 && --need == 0)
					return true;
				break;
			case TK_DISCARD:
				if (d == 0)
					need++;
				break;
			case TK_TAG:
				break;
			default:
				if (d == 0 && --need == 0)
					return true;
				break;
		}
	}
}

/* Next token for a typed parse: discarded values are skipped. */
static bool
next_tok(Parser *P, Tok *t, const Open *ctx)
{
	for (;;)
	{
		if (!lex(P, t))
			return false;
		if (t->kind != TK_DISCARD)
			return true;
		if (!skip_value(P, ctx))
			return false;
	}
}

/* ----------------------------------------------------------------------
 * Scalars
 * ---------------------------------------------------------------------- */

/* Record a deferred (semantic) error for the current record: first wins. */
static IsoParseError *
defer_error(Parser *P)
{
	if (P->rec.deferred)
		return NULL;
	P->rec.deferred = true;
	return &P->rec.rec_err;
}

/*
 * Unescape string token t into arena memory; returns false (deferred error
 * set if first) when the string holds a NUL character or a character that
 * the database encoding does not have.  A \uXXXX escape (or surrogate pair)
 * becomes that character in the database encoding (port.h), never UTF-8
 * bytes in a database of another encoding: those would be stored, dumped,
 * and fail the restore.
 */
static bool
unescape_string(Parser *P, const Tok *t, IsoSlice *out)
{
	const unsigned char *s = (const unsigned char *) t->start + 1;
	const unsigned char *e = (const unsigned char *) t->stop - 1;
	char	   *buf;
	char	   *o;

	if (!t->escaped)
	{
		out->ptr = (const char *) s;
		out->len = (int32) (e - s);
		return true;
	}
	buf = o = arena_alloc(&P->arena, (size_t) (e - s) + 1);
	while (s < e)
	{
		uint32		cp;
		const unsigned char *esc;
		int			n;

		if (*s != '\\')
		{
			*o++ = (char) *s++;
			continue;
		}
		switch (s[1])
		{
			case 'n':
				*o++ = '\n';
				s += 2;
				continue;
			case 't':
				*o++ = '\t';
				s += 2;
				continue;
			case 'r':
				*o++ = '\r';
				s += 2;
				continue;
			case 'b':
				*o++ = '\b';
				s += 2;
				continue;
			case 'f':
				*o++ = '\f';
				s += 2;
				continue;
			case 'u':
				esc = s;
				cp = (uint32) iso_hex4(s + 2);
				s += 6;
				if (cp >= 0xD800 && cp <= 0xDBFF)
				{
					/* validated by the lexer: a low surrogate follows */
					cp = 0x10000 + ((cp - 0xD800) << 10) + ((uint32) iso_hex4(s + 2) - 0xDC00);
					s += 6;
				}
				if (cp == 0)
				{
					IsoParseError *de = defer_error(P);
					char		q[QUOTE_BUF];

					if (de)
					{
						set_error(de, ISO_PARSE_SYNTAX, P->rec.number, t->line,
								  "string %s contains the NUL character \\u0000, expected text",
								  iso_quote_text(q, t->start, t->stop));
						set_detail(de, "Keys and values are stored as text, which cannot contain NUL characters.");
						set_hint(de, "Remove the \\u0000 escape from the history.");
					}
					return false;
				}
				if (cp < 0x80)
				{
					*o = (char) cp;
					n = 1;
				}
				else if (P->utf8)
					n = (int) (iso_utf8_encode(o, cp) - o);
				else
					n = iso_host_unicode_char(cp, o);
				if (n == 0)
				{
					IsoParseError *de = defer_error(P);
					char		q[QUOTE_BUF];
					char		q2[QUOTE_BUF];

					if (de)
					{
						set_error(de, ISO_PARSE_UNTRANSLATABLE, P->rec.number, t->line,
								  "escape %s in string %s has no equivalent in encoding \"%s\"",
								  iso_quote_text(q, (const char *) esc, (const char *) s),
								  iso_quote_text(q2, t->start, t->stop), iso_host_encoding_name());
						set_detail(de, "The string is at line %lld of the history; keys and values are stored as text in the database encoding, which has no character U+%04X.",
								   (long long) t->line, (unsigned) cp);
						set_hint(de, "Load the history into a database of encoding UTF8, which has every character, or replace the character in the history.");
					}
					return false;
				}
				o += n;
				continue;
			default:			/* \" \\ \/ */
				*o++ = (char) s[1];
				s += 2;
				continue;
		}
	}
	out->ptr = buf;
	out->len = (int32) (o - buf);
	return true;
}

/* Canonical decimal text of an integer token. */
static void
int_text(Parser *P, const Tok *t, IsoSlice *out)
{
	char		tmp[24];
	char	   *b = tmp + sizeof(tmp);
	uint64		u;
	bool		neg = t->ival < 0;
	char	   *r;
	size_t		n;

	if (t->canonical)
	{
		out->ptr = t->start;
		out->len = (int32) (t->stop - t->start);
		return;
	}
	u = neg ? (uint64) 0 - (uint64) t->ival : (uint64) t->ival;
	do
	{
		*--b = (char) ('0' + u % 10);
		u /= 10;
	} while (u);
	if (neg)
		*--b = '-';
	n = (size_t) (tmp + sizeof(tmp) - b);
	r = arena_alloc(&P->arena, n);
	memcpy(r, b, n);
	out->ptr = r;
	out->len = (int32) n;
}

static void
defer_range(Parser *P, const Tok *t, const char *what)
{
	IsoParseError *de = defer_error(P);
	char		q[QUOTE_BUF];

	if (!de)
		return;
	set_error(de, ISO_PARSE_RANGE, P->rec.number, t->line,
			  "integer %s in %s is out of range, expected a value between -9223372036854775808 and 9223372036854775807",
			  iso_quote_text(q, t->start, t->stop), what);
	set_detail(de, "Keys, values, :time, :index and :process must fit in a signed 64-bit integer.");
	set_hint(de, "Use strings for keys or values that do not fit in 64 bits.");
}

typedef enum ScalarResult
{
	SC_OK,
	SC_BAD						/* deferred error set (or already was) */
} ScalarResult;

/* Convert an atom token to key/value text: integer, string or keyword. */
static ScalarResult
scalar_text(Parser *P, const Tok *t, IsoSlice *out, const char *what)
{
	switch (t->kind)
	{
		case TK_INT:
			if (t->overflow)
			{
				defer_range(P, t, what);
				return SC_BAD;
			}
			int_text(P, t, out);
			return SC_OK;
		case TK_STRING:
			return unescape_string(P, t, out) ? SC_OK : SC_BAD;
		case TK_KEYWORD:
			out->ptr = t->start;
			out->len = (int32) (t->stop - t->start);
			return SC_OK;
		default:
			{
				IsoParseError *de = defer_error(P);
				char		q[QUOTE_BUF];

				if (de)
				{
					set_error(de, ISO_PARSE_INVALID, P->rec.number, t->line,
							  "%s %s is not an integer, string or keyword",
							  what, iso_quote_text(q, t->start, TK_IS_ATOM(t->kind) ? t->stop : value_extent(t->start, P->end)));
					set_detail(de, "Keys and values of micro-operations must be integers, strings or keywords.");
					set_hint(de, "Micro-operations look like [:r 1 nil], [:w 1 2] or [:append 1 2].");
				}
				return SC_BAD;
			}
	}
}

/* ----------------------------------------------------------------------
 * Record fields
 * ---------------------------------------------------------------------- */

/* Start of a field's value: a closing bracket or EOF here is a syntax error. */
static bool
field_value_tok(Parser *P, Tok *t, const Open *map)
{
	if (!next_tok(P, t, map))
		return false;
	if (t->kind == TK_EOF || TK_IS_CLOSE(t->kind))
		return err_no_value(P, map, t);
	return true;
}

/* The value started at t is not what the field needs: skip all of it. */
static bool
skip_from(Parser *P, const Tok *t, const Open *map)
{
	P->p = t->start;
	P->line = t->line;
	return skip_value(P, map);
}

static bool
append_op(Parser *P)
{
	if (P->n_ops >= P->cap_ops)
	{
		if (P->n_ops >= PG_INT32_MAX / 2)
			return false;
		P->ops = grow_array(P->ops, sizeof(IOp), &P->cap_ops, (size_t) P->n_ops + 1);
	}
	P->n_ops++;
	return true;
}

/*
 * The fast path of list reads, which are most of a history's text: after
 * blanks on the same line, a run of 1 to 18 digits, not a lone leading
 * zero's prefix, ending at a delimiter, is a canonical integer whose text is
 * itself (what lex + int_text would give, without a token).  Anything else
 * (a sign, a newline, a comment, a discard, a float, 0-prefixed digits)
 * leaves P untouched for the general path.
 */
bool		edn_fast_paths = true;

static bool
fast_list_int(Parser *P)
{
	const char *p = P->p;
	const char *end = P->end;
	const char *d;

	if (!edn_fast_paths)
		return false;
	while (p < end && (edn_cls[(unsigned char) *p] & C_WS))
		p++;
	d = p;
	while (p < end && (unsigned char) (*p - '0') <= 9 && p - d < 19)
		p++;
	if (p == d || p - d > 18 || (*d == '0' && p - d > 1) ||
		!(p >= end || (edn_cls[(unsigned char) *p] & C_DELIM)) ||
		(p < end && *p == '#'))
		return false;
	P->fast_int.ptr = d;
	P->fast_int.len = (int32) (p - d);
	P->p = p;
	return true;
}

static bool
append_elem(Parser *P)
{
	if (P->n_elems >= P->cap_elems)
	{
		if (P->n_elems >= PG_INT32_MAX / 2)
			return false;
		P->elems = grow_array(P->elems, sizeof(IsoSlice), &P->cap_elems, (size_t) P->n_elems + 1);
	}
	P->n_elems++;
	return true;
}

static void
defer_invalid(Parser *P, const Tok *t, const char *detail, const char *hint,
			  const char *fmt,...)
ISO_PRINTF(5, 6);

static void
defer_invalid(Parser *P, const Tok *t, const char *detail, const char *hint,
			  const char *fmt,...)
{
	IsoParseError *de = defer_error(P);
	va_list		ap;

	if (!de)
		return;
	de->kind = ISO_PARSE_INVALID;
	de->record = P->rec.number;
	de->line = t->line;
	va_start(ap, fmt);
	vsnprintf(de->message, sizeof(de->message), fmt, ap);
	va_end(ap);
	iso_trim_partial(de->message);
	snprintf(de->detail, sizeof(de->detail), "%s", detail);
	snprintf(de->hint, sizeof(de->hint), "%s", hint);
}

#define OP_HINT "Micro-operations look like [:r 1 nil], [:r 1 [2 3]], [:w 1 2] or [:append 1 2]."

/*
 * Parse the :value of a record.  VAL_HARD: a syntax error (P->err set).
 * VAL_GAVE_UP: a semantic problem (deferred error set unless one already
 * was); the caller rewinds and skips the value as plain EDN.
 */
#define VAL_OK		1
#define VAL_HARD	0
#define VAL_GAVE_UP (-1)

static int
parse_value_field(Parser *P, const Open *map)
{
	Tok			vt,
				t;
	Open		vo,
				oo;
	char		q[QUOTE_BUF];

	P->n_ops = 0;
	P->n_elems = 0;
	if (!field_value_tok(P, &vt, map))
		return VAL_HARD;
	if (vt.kind == TK_NIL)
	{
		P->rec.has_value = false;
		return VAL_OK;
	}
	if (vt.kind != TK_LBRACK && vt.kind != TK_LPAREN)
	{
		const char *e = vt.stop;

		if (TK_IS_OPEN(vt.kind) || vt.kind == TK_TAG)
			e = value_extent(vt.start, P->end);
		defer_invalid(P, &vt, "The :value of a transaction is a vector of micro-operations.", OP_HINT,
					  ":value %s is not a vector, expected a vector of micro-operations",
					  iso_quote_text(q, vt.start, e));
		goto bad;
	}
	vo.kind = vt.kind;
	vo.start = vt.start;
	vo.line = vt.line;
	P->depth++;
	for (;;)
	{
		IOp		   *op;
		Tok			t1,
					t2,
					t3,
					t4;

		if (!next_tok(P, &t, &vo))
			goto hard;
		if (t.kind == closer_for(vo.kind))
			break;
		if (t.kind != TK_LBRACK && t.kind != TK_LPAREN)
		{
			if (t.kind == TK_EOF || TK_IS_CLOSE(t.kind))
				goto bad_in;	/* skip_value reports it */
			defer_invalid(P, &t, "Every element of :value must be a micro-operation vector [f key value].", OP_HINT,
						  "micro-op %s is not a vector, expected [f key value]",
						  iso_quote_text(q, t.start, TK_IS_ATOM(t.kind) ? t.stop : value_extent(t.start, P->end)));
			goto bad_in;
		}
		oo.kind = t.kind;
		oo.start = t.start;
		oo.line = t.line;
		P->depth++;
		if (!append_op(P))
			goto bad_limit;
		op = &P->ops[P->n_ops - 1];
		op->src = t.start;
		op->line = t.line;
		op->list_len = -1;
		op->list_off = 0;
		op->key.ptr = op->value.ptr = op->read_value.ptr = NULL;
		op->key.len = op->value.len = op->read_value.len = 0;

		/* f */
		if (!next_tok(P, &t1, &oo))
			goto hard;
		if (t1.kind == closer_for(oo.kind))
		{
			defer_invalid(P, &t, "A micro-operation is a vector of exactly three elements: [f key value].", OP_HINT,
						  "micro-op %s has 0 elements, expected 3",
						  iso_quote_text(q, t.start, t1.stop));
			goto bad_in;
		}
		if (t1.kind == TK_KEYWORD && t1.stop - t1.start == 2 && t1.start[1] == 'r')
			op->op = ISO_OP_READ;
		else if (t1.kind == TK_KEYWORD && t1.stop - t1.start == 2 && t1.start[1] == 'w')
			op->op = ISO_OP_WRITE;
		else if (t1.kind == TK_KEYWORD && t1.stop - t1.start == 7 && memcmp(t1.start, ":append", 7) == 0)
			op->op = ISO_OP_APPEND;
		else
		{
			char		q2[QUOTE_BUF];

			if (t1.kind == TK_EOF || TK_IS_CLOSE(t1.kind))
				goto bad_in;
			defer_invalid(P, &t1, "The first element of a micro-operation names it: :r (read), :w (write) or :append.", OP_HINT,
						  "unknown micro-op %s in %s, expected :r, :w or :append",
						  iso_quote_text(q, t1.start, TK_IS_ATOM(t1.kind) ? t1.stop : value_extent(t1.start, P->end)),
						  iso_quote_text(q2, t.start, value_extent(t.start, P->end)));
			goto bad_in;
		}

		/* key */
		if (!next_tok(P, &t2, &oo))
			goto hard;
		if (t2.kind == closer_for(oo.kind))
		{
			defer_invalid(P, &t, "A micro-operation is a vector of exactly three elements: [f key value].", OP_HINT,
						  "micro-op %s has 1 element, expected 3",
						  iso_quote_text(q, t.start, t2.stop));
			goto bad_in;
		}
		if (t2.kind == TK_EOF || TK_IS_CLOSE(t2.kind))
			goto bad_in;
		if (scalar_text(P, &t2, &op->key, "micro-op key") != SC_OK)
			goto bad_in;

		/* value */
		if (!next_tok(P, &t3, &oo))
			goto hard;
		if (t3.kind == closer_for(oo.kind))
		{
			defer_invalid(P, &t, "A micro-operation is a vector of exactly three elements: [f key value].", OP_HINT,
						  "micro-op %s has 2 elements, expected 3",
						  iso_quote_text(q, t.start, t3.stop));
			goto bad_in;
		}
		if (t3.kind == TK_EOF || TK_IS_CLOSE(t3.kind))
			goto bad_in;
		if (op->op == ISO_OP_READ)
		{
			if (t3.kind == TK_NIL)
				;				/* nil read */
			else if (t3.kind == TK_LBRACK || t3.kind == TK_LPAREN)
			{
				TokKind		lc = closer_for(t3.kind);
				int32		n = 0;

				op->list_off = P->n_elems;
				for (;;)
				{
					Tok			te;

					/* most elements are small plain integers */
					if (fast_list_int(P))
					{
						if (!append_elem(P))
							goto bad_limit;
						P->elems[P->n_elems - 1] = P->fast_int;
						n++;
						continue;
					}
					if (!next_tok(P, &te, &oo))
						goto hard;
					if (te.kind == lc)
						break;
					if (te.kind == TK_EOF || TK_IS_CLOSE(te.kind) || TK_IS_OPEN(te.kind) || te.kind == TK_TAG)
					{
						if (TK_IS_OPEN(te.kind) || te.kind == TK_TAG)
							defer_invalid(P, &te, "A list read holds the elements read, each an integer, string or keyword.", OP_HINT,
										  "list element %s is not an integer, string or keyword",
										  iso_quote_text(q, te.start, value_extent(te.start, P->end)));
						goto bad_in;
					}
					if (!append_elem(P))
						goto bad_limit;
					if (scalar_text(P, &te, &P->elems[P->n_elems - 1], "list element") != SC_OK)
						goto bad_in;
					n++;
				}
				op->list_len = n;
			}
			else if (TK_IS_ATOM(t3.kind))
			{
				if (scalar_text(P, &t3, &op->read_value, "value read") != SC_OK)
					goto bad_in;
			}
			else
			{
				defer_invalid(P, &t3, "A read returns nil, a single value or a list of values.", OP_HINT,
							  "value read %s is not nil, an integer, string, keyword or list",
							  iso_quote_text(q, t3.start, value_extent(t3.start, P->end)));
				goto bad_in;
			}
		}
		else
		{
			if (t3.kind == TK_NIL)
			{
				defer_invalid(P, &t3, "A write or append needs the value written.", OP_HINT,
							  "micro-op %s writes nil, expected an integer, string or keyword",
							  iso_quote_text(q, t.start, t3.stop));
				goto bad_in;
			}
			if (!TK_IS_ATOM(t3.kind))
			{
				defer_invalid(P, &t3, "A write or append writes a single value.", OP_HINT,
							  "value written %s is not an integer, string or keyword",
							  iso_quote_text(q, t3.start, value_extent(t3.start, P->end)));
				goto bad_in;
			}
			if (scalar_text(P, &t3, &op->value, "value written") != SC_OK)
				goto bad_in;
		}

		/* end of the micro-op */
		if (!next_tok(P, &t4, &oo))
			goto hard;
		if (t4.kind != closer_for(oo.kind))
		{
			if (t4.kind == TK_EOF || TK_IS_CLOSE(t4.kind))
				goto bad_in;
			defer_invalid(P, &t, "A micro-operation is a vector of exactly three elements: [f key value].", OP_HINT,
						  "micro-op %s has more than 3 elements, expected 3",
						  iso_quote_text(q, t.start, value_extent(t.start, P->end)));
			goto bad_in;
		}
		P->depth--;
		op->src_len = (int32) (t4.stop - op->src > PG_INT32_MAX ? PG_INT32_MAX : t4.stop - op->src);
	}
	P->depth--;
	P->rec.has_value = true;
	return VAL_OK;

bad_limit:
	{
		IsoParseError *de = defer_error(P);

		if (de)
		{
			set_error(de, ISO_PARSE_LIMIT, P->rec.number, vt.line, "too many micro-operations in :value");
			set_detail(de, "A transaction may have at most %d micro-operations and list elements.", PG_INT32_MAX / 2);
			set_hint(de, "Split the transaction.");
		}
	}
bad_in:
bad:
	/* the caller rewinds to the value and skips it as plain EDN */
	P->n_ops = 0;
	P->n_elems = 0;
	P->rec.has_value = false;
	return VAL_GAVE_UP;

hard:
	return VAL_HARD;
}

/* Parse a record map; the '{' token is *open.  Fields go to P->rec. */
static bool
parse_record(Parser *P, const Tok *open)
{
	Open		mo;
	Tok			k,
				v;
	Rec		   *r = &P->rec;
	char		q[QUOTE_BUF];
	int			map_depth;

	mo.kind = TK_LBRACE;
	mo.start = open->start;
	mo.line = open->line;
	r->start = open->start;
	r->line = open->line;
	P->depth++;
	map_depth = P->depth;
	for (;;)
	{
		unsigned	field = 0;

		if (!next_tok(P, &k, &mo))
			return false;
		if (k.kind == TK_RBRACE)
			break;
		if (k.kind == TK_EOF)
			return err_unterminated(P, &mo);
		if (TK_IS_CLOSE(k.kind))
			return err_mismatch(P, &mo, &k);
		if (k.kind == TK_KEYWORD)
		{
			const char *n = k.start + 1;
			size_t		len = (size_t) (k.stop - n);

			switch (len)
			{
				case 1:
					if (n[0] == 'f')
						field = F_F;
					break;
				case 4:
					if (memcmp(n, "type", 4) == 0)
						field = F_TYPE;
					else if (memcmp(n, "time", 4) == 0)
						field = F_TIME;
					break;
				case 5:
					if (memcmp(n, "value", 5) == 0)
						field = F_VALUE;
					else if (memcmp(n, "index", 5) == 0)
						field = F_INDEX;
					break;
				case 7:
					if (memcmp(n, "process", 7) == 0)
						field = F_PROCESS;
					break;
				default:
					break;
			}
		}
		else if (!TK_IS_ATOM(k.kind))
		{
			/* a collection or tagged value as key: skip it */
			if (!skip_from(P, &k, &mo))
				return false;
		}
		if (field != 0 && (r->seen & field))
			defer_invalid(P, &k, "Each key may appear only once in a map.",
						  "Check that the record was not edited or concatenated by mistake.",
						  "duplicate key %s in record, expected each key once",
						  iso_quote_text(q, k.start, k.stop));
		r->seen |= field;

		if (field == F_VALUE)
		{
			const char *vstart;
			int64		vline;
			int			rc;

			/* remember where the value starts, for a rewind */
			if (!next_tok(P, &v, &mo))
				return false;
			if (v.kind == TK_EOF || TK_IS_CLOSE(v.kind))
				return err_no_value(P, &mo, &v);
			vstart = v.start;
			vline = v.line;
			P->p = vstart;
			P->line = vline;
			rc = parse_value_field(P, &mo);
			if (rc == VAL_HARD)
				return false;
			if (rc == VAL_GAVE_UP)
			{
				/* the typed parse gave up: skip the value as plain EDN */
				P->depth = map_depth;
				P->p = vstart;
				P->line = vline;
				if (!skip_value(P, &mo))
					return false;
			}
			continue;
		}

		if (!field_value_tok(P, &v, &mo))
			return false;
		if (!TK_IS_ATOM(v.kind))
		{
			if (!skip_from(P, &v, &mo))
				return false;
		}
		switch (field)
		{
			case F_TYPE:
				r->type = -1;
				if (v.kind == TK_KEYWORD)
				{
					const char *n = v.start + 1;
					size_t		len = (size_t) (v.stop - n);

					if (len == 6 && memcmp(n, "invoke", 6) == 0)
						r->type = REC_INVOKE;
					else if (len == 2 && memcmp(n, "ok", 2) == 0)
						r->type = ISO_STATUS_OK;
					else if (len == 4 && memcmp(n, "fail", 4) == 0)
						r->type = ISO_STATUS_FAIL;
					else if (len == 4 && memcmp(n, "info", 4) == 0)
						r->type = ISO_STATUS_INFO;
				}
				if (r->type < 0)
					defer_invalid(P, &v, "The :type of a record says whether it is an invocation or a completion.",
								  "Valid types are :invoke, :ok, :fail and :info.",
								  "unknown :type %s, expected :invoke, :ok, :fail or :info",
								  iso_quote_text(q, v.start, TK_IS_ATOM(v.kind) ? v.stop : value_extent(v.start, P->end)));
				break;
			case F_F:
				r->f_present = true;
				r->f_txn = (v.kind == TK_KEYWORD && v.stop - v.start == 4 &&
							memcmp(v.start, ":txn", 4) == 0);
				break;
			case F_PROCESS:

				/*
				 * One rule (docs/input.md): an integer names the
				 * client; nil is the same as no :process (kept, no session
				 * order); a keyword (:nemesis) marks a record of no client,
				 * skipped and counted; anything else cannot name a client
				 * and is an error if the record is a transaction.
				 */
				r->has_process = false;
				r->process_keyword = false;
				if (v.kind == TK_INT)
				{
					if (v.overflow)
						defer_range(P, &v, ":process");
					else
					{
						r->has_process = true;
						r->process = v.ival;
					}
				}
				else if (v.kind == TK_KEYWORD)
					r->process_keyword = true;
				else if (v.kind != TK_NIL)
					defer_invalid(P, &v, "The :process of a transaction names the client that ran it: an integer, or nil when unknown; a keyword such as :nemesis marks a record of no client, which is skipped.",
								  "Give the record an integer :process, nil, or remove the key.",
								  ":process %s is not an integer, expected an integer, nil or a keyword such as :nemesis",
								  iso_quote_text(q, v.start, TK_IS_ATOM(v.kind) ? v.stop : value_extent(v.start, P->end)));
				break;
			case F_TIME:
			case F_INDEX:
				{
					const char *fname = field == F_TIME ? ":time" : ":index";

					if (v.kind == TK_INT)
					{
						if (v.overflow)
							defer_range(P, &v, fname);
						else if (field == F_TIME)
						{
							r->has_time = true;
							r->time = v.ival;
						}
						else
						{
							r->has_index = true;
							r->index = v.ival;
						}
					}
					else if (v.kind != TK_NIL)
						defer_invalid(P, &v, field == F_TIME ?
									  "The :time of a record is an integer number of nanoseconds." :
									  "The :index of a record is its integer position in the history.",
									  "Remove the key or give it an integer value.",
									  "%s %s is not an integer, expected an integer or nil",
									  fname, iso_quote_text(q, v.start, TK_IS_ATOM(v.kind) ? v.stop : value_extent(v.start, P->end)));
					break;
				}
			default:
				break;
		}
	}
	P->depth--;
	return true;
}

/* ----------------------------------------------------------------------
 * The fast path of whole records
 *
 * Most records of a Jepsen history have one shape: a map of the keys
 * :type :f :value :time :process :index (each at most once) whose values
 * are keywords, canonical integers, nil, and a :value vector of
 * micro-operations [:r|:w|:append key value] with integer or keyword keys
 * and values and list reads of integers; other keyword keys (:error) with
 * a keyword, integer or nil are passed over.  fast_record() reads such a
 * record in one pass over the bytes, without tokens, and leaves exactly
 * what parse_record() would have left (P->rec, P->ops, P->elems, P->p,
 * P->line).  At anything else (another kind of key or value, a string, a
 * comment, a discard or tag, a '(' list, a '+' sign, a leading zero, -0,
 * an integer of more than 18 digits, a token not followed by a delimiter,
 * the end of the text) it gives up without a trace and parse_record()
 * reads the record
 * from its '{', so errors and their positions come from the general path
 * only.  The unit tests (test_edn) and the fuzzer compare both paths.
 * ---------------------------------------------------------------------- */

/* Blanks (whitespace, commas, newlines counted). */
static inline const char *
fr_blank(const char *p, const char *end, int64 *line)
{
	/* most blanks are one space before a token: no loop for them */
	if (p + 1 < end && p[0] == ' ' && !(edn_cls[(unsigned char) p[1]] & C_WS) &&
		p[1] != '\n')
		return p + 1;
	while (p < end)
	{
		unsigned char c = (unsigned char) *p;

		if (edn_cls[c] & C_WS)
			p++;
		else if (c == '\n')
		{
			(*line)++;
			p++;
		}
		else
			break;
	}
	return p;
}

/*
 * A canonical integer (optional '-', 1 to 18 digits, no leading zero, not
 * -0) followed by a delimiter: its end, and its value in *val; NULL if not.
 */
static inline const char *
fr_int(const char *p, const char *end, int64 *val)
{
	const char *d;
	bool		neg = false;
	uint64		u = 0;

	if (p < end && *p == '-')
	{
		neg = true;
		p++;
	}
	d = p;
	while (p < end && (unsigned char) (*p - '0') <= 9 && p - d < 19)
	{
		u = u * 10 + (uint64) (*p - '0');
		p++;
	}
	if (p == d || p - d > 18 || (*d == '0' && (p - d > 1 || neg)))
		return NULL;
	if (p < end && !(edn_cls[(unsigned char) *p] & C_DELIM))
		return NULL;
	*val = neg ? -(int64) u : (int64) u;
	return p;
}

/* A keyword at p (*p == ':') followed by a delimiter: its end; NULL if not. */
static inline const char *
fr_keyword(const char *p, const char *end)
{
	const char *s = p + 1;

	while (s < end && (edn_cls[(unsigned char) *s] & C_SYM))
		s++;
	if (s == p + 1 || (s < end && !(edn_cls[(unsigned char) *s] & C_DELIM)))
		return NULL;
	return s;
}

/*
 * The keyword `word` (wlen bytes, its colon included) at p, followed by a
 * delimiter: its end; NULL if not (also at the end of the text, which
 * fr_keyword handles).  The names every record repeats are tried this way
 * before fr_keyword scans for a keyword's end.
 */
static inline const char *
fr_word(const char *p, const char *end, const char *word, size_t wlen)
{
	if (end - p > (ptrdiff_t) wlen && memcmp(p, word, wlen) == 0 &&
		(edn_cls[(unsigned char) p[wlen]] & C_DELIM))
		return p + wlen;
	return NULL;
}

/* nil followed by a delimiter at p: its end; NULL if not. */
static inline const char *
fr_nil(const char *p, const char *end)
{
	if (end - p >= 3 && p[0] == 'n' && p[1] == 'i' && p[2] == 'l' &&
		(end - p == 3 || (edn_cls[(unsigned char) p[3]] & C_DELIM)))
		return p + 3;
	return NULL;
}

/* An integer or keyword scalar at p: its text in *out, its end; NULL if not. */
static inline const char *
fr_scalar(const char *p, const char *end, IsoSlice *out)
{
	const char *s;
	int64		v;

	if (p >= end)
		return NULL;
	if (*p == ':')
		s = fr_keyword(p, end);
	else
		s = fr_int(p, end, &v);
	if (s == NULL)
		return NULL;
	out->ptr = p;
	out->len = (int32) (s - p);
	return s;
}

/*
 * The :value vector's micro-operations at p (the '['); its end, NULL if not.
 * With build false the same text is only checked, nothing is kept: an
 * invocation's value is used only when its completion has none (its ops
 * are read again then, see lazy_ops), so fast_record checks it this way.
 * Both accept exactly the same texts (one function, inlined twice).
 */
static ISO_ALWAYS_INLINE const char *
fr_ops_scan(Parser *P, const char *p, const char *end, int64 *line, bool build)
{
	int32		n_ops = 0,		/* what append_op/append_elem would count */
				n_elems = 0;

	p++;
	for (;;)
	{
		IOp		   *op = NULL;
		IOp			scratch;
		const char *s;
		const char *start;
		size_t		n;

		p = fr_blank(p, end, line);
		if (p >= end)
			return NULL;
		if (*p == ']')
			return p + 1;
		if (*p != '[')
			return NULL;
		if (build)
		{
			if (!append_op(P))
				return NULL;
			op = &P->ops[P->n_ops - 1];
			op->src = p;
			op->line = *line;
			op->list_len = -1;
			op->list_off = 0;
			op->value.ptr = op->read_value.ptr = NULL;
			op->value.len = op->read_value.len = 0;
		}
		else
		{
			if (n_ops >= PG_INT32_MAX / 2)
				return NULL;
			n_ops++;
			op = &scratch;
		}
		start = p;

		/* f */
		p = fr_blank(p + 1, end, line);
		if (p >= end || *p != ':')
			return NULL;
		if ((s = fr_word(p, end, ":r", 2)) != NULL)
			op->op = ISO_OP_READ;
		else if ((s = fr_word(p, end, ":append", 7)) != NULL)
			op->op = ISO_OP_APPEND;
		else
		{
			if ((s = fr_keyword(p, end)) == NULL)
				return NULL;
			n = (size_t) (s - p);
			if (n == 2 && p[1] == 'r')
				op->op = ISO_OP_READ;
			else if (n == 2 && p[1] == 'w')
				op->op = ISO_OP_WRITE;
			else if (n == 7 && memcmp(p, ":append", 7) == 0)
				op->op = ISO_OP_APPEND;
			else
				return NULL;
		}

		/* key */
		p = fr_blank(s, end, line);
		if ((p = fr_scalar(p, end, &op->key)) == NULL)
			return NULL;

		/* value */
		p = fr_blank(p, end, line);
		if (p >= end)
			return NULL;
		if (op->op != ISO_OP_READ)
		{
			if ((p = fr_scalar(p, end, &op->value)) == NULL)
				return NULL;
		}
		else if (*p == 'n')
		{
			if ((p = fr_nil(p, end)) == NULL)
				return NULL;
		}
		else if (*p == '[')
		{
			int32		first = P->n_elems;

			p++;
			for (;;)
			{
				int64		v;

				p = fr_blank(p, end, line);
				if (p >= end)
					return NULL;
				if (*p == ']')
				{
					p++;
					break;
				}
				if ((s = fr_int(p, end, &v)) == NULL)
					return NULL;
				if (!build)
				{
					if (n_elems >= PG_INT32_MAX / 2)
						return NULL;
					n_elems++;
				}
				else
				{
					if (!append_elem(P))
						return NULL;
					P->elems[P->n_elems - 1].ptr = p;
					P->elems[P->n_elems - 1].len = (int32) (s - p);
				}
				p = s;
			}
			if (build)
			{
				op->list_off = first;
				op->list_len = P->n_elems - first;
			}
		}
		else if ((p = fr_scalar(p, end, &op->read_value)) == NULL)
			return NULL;

		/* end of the micro-op */
		p = fr_blank(p, end, line);
		if (p >= end || *p != ']')
			return NULL;
		p++;
		if (build)
			op->src_len = (int32) (p - start > PG_INT32_MAX ? PG_INT32_MAX : p - start);
	}
}

static const char *
fr_ops(Parser *P, const char *p, const char *end, int64 *line)
{
	return fr_ops_scan(P, p, end, line, true);
}

static const char *
fr_ops_check(Parser *P, const char *p, const char *end, int64 *line)
{
	return fr_ops_scan(P, p, end, line, false);
}

/*
 * Read the record whose '{' is *open along the fast path; false (and
 * nothing changed but the contents of P->ops and P->elems beyond their
 * counts) if it does not have the common shape.
 */
static bool
fast_record(Parser *P, const Tok *open)
{
	const char *p = open->stop;
	const char *end = P->end;
	const char *s;
	int64		line = P->line;
	Rec		   *r = &P->rec;
	unsigned	seen = 0;
	int			type = -1;
	bool		f_present = false,
				f_txn = false,
				has_process = false,
				process_keyword = false,
				has_time = false,
				has_index = false,
				has_value = false;
	int64		process = 0,
				time = 0,
				index = 0,
				value_line = 0,
				v;
	const char *value_text = NULL;
	const char *value_end = NULL;

	if (!edn_fast_paths)
		return false;
	for (;;)
	{
		unsigned	field = 0;
		const char *n;
		size_t		len;

		p = fr_blank(p, end, &line);
		if (p >= end)
			goto give_up;
		if (*p == '}')
		{
			p++;
			break;
		}
		if (*p != ':')
			goto give_up;
		if ((s = fr_word(p, end, ":type", 5)) != NULL)
			field = F_TYPE;
		else if ((s = fr_word(p, end, ":f", 2)) != NULL)
			field = F_F;
		else if ((s = fr_word(p, end, ":value", 6)) != NULL)
			field = F_VALUE;
		else if ((s = fr_word(p, end, ":time", 5)) != NULL)
			field = F_TIME;
		else if ((s = fr_word(p, end, ":process", 8)) != NULL)
			field = F_PROCESS;
		else if ((s = fr_word(p, end, ":index", 6)) != NULL)
			field = F_INDEX;
		else if ((s = fr_keyword(p, end)) == NULL)
			goto give_up;
		n = p + 1;
		len = (size_t) (s - n);
		switch (field != 0 ? 0 : len)
		{
			case 1:
				if (n[0] == 'f')
					field = F_F;
				break;
			case 4:
				if (memcmp(n, "type", 4) == 0)
					field = F_TYPE;
				else if (memcmp(n, "time", 4) == 0)
					field = F_TIME;
				break;
			case 5:
				if (memcmp(n, "value", 5) == 0)
					field = F_VALUE;
				else if (memcmp(n, "index", 5) == 0)
					field = F_INDEX;
				break;
			case 7:
				if (memcmp(n, "process", 7) == 0)
					field = F_PROCESS;
				break;
			default:
				break;
		}
		if (seen & field)
			goto give_up;
		seen |= field;
		p = fr_blank(s, end, &line);
		if (p >= end)
			goto give_up;
		switch (field)
		{
			case 0:
				/* another key (:error :timeout): a keyword, integer or nil */
				if (*p == ':')
					s = fr_keyword(p, end);
				else if (*p == 'n')
					s = fr_nil(p, end);
				else
					s = fr_int(p, end, &v);
				if (s == NULL)
					goto give_up;
				break;
			case F_TYPE:
				if (*p != ':')
					goto give_up;
				if ((s = fr_word(p, end, ":invoke", 7)) != NULL)
				{
					type = REC_INVOKE;
					break;
				}
				if ((s = fr_word(p, end, ":ok", 3)) != NULL)
				{
					type = ISO_STATUS_OK;
					break;
				}
				if ((s = fr_keyword(p, end)) == NULL)
					goto give_up;
				n = p + 1;
				len = (size_t) (s - n);
				if (len == 6 && memcmp(n, "invoke", 6) == 0)
					type = REC_INVOKE;
				else if (len == 2 && memcmp(n, "ok", 2) == 0)
					type = ISO_STATUS_OK;
				else if (len == 4 && memcmp(n, "fail", 4) == 0)
					type = ISO_STATUS_FAIL;
				else if (len == 4 && memcmp(n, "info", 4) == 0)
					type = ISO_STATUS_INFO;
				else
					goto give_up;
				break;
			case F_F:
				if (*p != ':')
					goto give_up;
				if ((s = fr_word(p, end, ":txn", 4)) != NULL)
					f_txn = true;
				else if ((s = fr_keyword(p, end)) == NULL)
					goto give_up;
				else
					f_txn = (s - p == 4 && memcmp(p, ":txn", 4) == 0);
				f_present = true;
				break;
			case F_PROCESS:
				if (*p == ':')
				{
					if ((s = fr_keyword(p, end)) == NULL)
						goto give_up;
					process_keyword = true;
				}
				else if (*p == 'n')
				{
					if ((s = fr_nil(p, end)) == NULL)
						goto give_up;
				}
				else
				{
					if ((s = fr_int(p, end, &v)) == NULL)
						goto give_up;
					has_process = true;
					process = v;
				}
				break;
			case F_TIME:
			case F_INDEX:
				if (*p == 'n')
				{
					if ((s = fr_nil(p, end)) == NULL)
						goto give_up;
				}
				else
				{
					if ((s = fr_int(p, end, &v)) == NULL)
						goto give_up;
					if (field == F_TIME)
					{
						has_time = true;
						time = v;
					}
					else
					{
						has_index = true;
						index = v;
					}
				}
				break;
			case F_VALUE:
				P->n_ops = 0;
				P->n_elems = 0;
				if (*p == 'n')
				{
					if ((s = fr_nil(p, end)) == NULL)
						goto give_up;
					has_value = false;
				}
				else if (type == REC_INVOKE)
				{
					/* read only if its completion has no value */
					value_line = line;
					if (*p != '[' || (s = fr_ops_check(P, p, end, &line)) == NULL)
						goto give_up;
					value_text = p;
					value_end = s;
					has_value = true;
				}
				else
				{
					if (*p != '[' || (s = fr_ops(P, p, end, &line)) == NULL)
						goto give_up;
					has_value = true;
				}
				break;
		}
		p = s;
	}
	r->start = open->start;
	r->line = open->line;
	r->seen = seen;
	r->type = type;
	r->f_present = f_present;
	r->f_txn = f_txn;
	r->has_process = has_process;
	r->process_keyword = process_keyword;
	r->process = process;
	r->has_time = has_time;
	r->time = time;
	r->has_index = has_index;
	r->index = index;
	r->has_value = has_value;
	r->lazy_value = value_text != NULL;
	if (r->lazy_value)
	{
		r->value_text = value_text;
		r->value_len = (size_t) (value_end - value_text);
		r->value_line = value_line;
	}
	P->p = p;
	P->line = line;
	return true;

give_up:
	P->n_ops = 0;
	P->n_elems = 0;
	return false;
}

/* ----------------------------------------------------------------------
 * Unique writes
 * ---------------------------------------------------------------------- */

/*
 * A value written twice to a key: the second write is at record, line
 * (op); first is the first write's entry, or NULL when it is not known (a
 * stream's bitmaps keep a bit per value, not where it was written).
 */
static void
duplicate_error(Parser *P, const IsoSlice *key, const IsoSlice *val, int64 record,
				int64 line, const IOp *op, const WEnt *first)
{
	char		qk[QUOTE_BUF],
				qv[QUOTE_BUF],
				qo[QUOTE_BUF];

	set_error(P->err, ISO_PARSE_DUPLICATE, record, line,
			  "value %s written twice to key %s in record %lld, expected each value written once per key",
			  iso_quote_text(qv, val->ptr, val->ptr + val->len),
			  iso_quote_text(qk, key->ptr, key->ptr + key->len),
			  (long long) record);
	iso_quote_text(qo, op->src, op->src + op->src_len);
	if (first)
	{
		set_detail(P->err, "Record %lld (line %lld) already wrote value %s to key %s; the second write is %s.",
				   (long long) first->record, (long long) first->line, qv, qk, qo);
		set_hint(P->err, "Checking needs unique writes: every value may be written to a key at most once in the whole history.");
	}
	else
	{
		set_detail(P->err, "An earlier record already wrote value %s to key %s; the second write is %s.",
				   qv, qk, qo);
		set_hint(P->err, "Checking needs unique writes: every value may be written to a key at most once in the whole history. "
				 "A streaming load keeps one bit per small integer written, not where it was written: look for the key and value in the lines before.");
	}
}

static bool
check_write(Parser *P, const IsoSlice *key, const IsoSlice *val, int64 record,
			int64 line, const IOp *op)
{
	uint64		h;
	uint64		tag;
	size_t		mask,
				i;
	WEnt	   *e;

	if (P->wn * 2 >= P->wcap)
	{
		size_t		ncap = P->wcap ? P->wcap * 2 : 4096;
		uint64	   *ns = (uint64 *) iso_alloc0(ncap * sizeof(uint64));
		size_t		j;

		for (j = 0; j < P->wcap; j++)
		{
			uint64		sl = P->wslots[j];

			if (sl != 0)
			{
				/* position from the stored hash bits plus the entry's own */
				size_t		k = (size_t) ((sl >> 32) ^ ((sl >> 32) << 17)) & (ncap - 1);

				while (ns[k] != 0)
					k = (k + 1) & (ncap - 1);
				ns[k] = sl;
			}
		}
		iso_free(P->wslots);
		P->wslots = ns;
		P->wcap = ncap;
	}
	h = hash_bytes(key->ptr, (size_t) key->len, HASH_K1 ^ (uint64) key->len);
	h = hash_mix(hash_bytes(val->ptr, (size_t) val->len, h ^ ((uint64) val->len * HASH_K2)));
	tag = h >> 32;
	mask = P->wcap - 1;
	i = (size_t) (tag ^ (tag << 17)) & mask;
	for (;;)
	{
		uint64		sl = P->wslots[i];

		if (sl == 0)
			break;
		if ((sl >> 32) == tag)
		{
			e = &P->wents[(sl & 0xFFFFFFFF) - 1];
			if (e->klen == key->len && e->vlen == val->len &&
				memcmp(P->wpool + e->off, key->ptr, (size_t) key->len) == 0 &&
				memcmp(P->wpool + e->off + key->len, val->ptr, (size_t) val->len) == 0)
			{
				duplicate_error(P, key, val, record, line, op, e);
				return false;
			}
		}
		i = (i + 1) & mask;
	}
	/* insert */
	if (ISO_UNLIKELY(P->wn >= (size_t) 0xFFFFFFFE))
	{
		set_error(P->err, ISO_PARSE_LIMIT, record, line, "too many writes in the history, expected at most %u",
				  (unsigned) 0xFFFFFFFE);
		set_detail(P->err, "The unique-writes check keeps every write of the history.");
		set_hint(P->err, "Split the history.");
		return false;
	}
	if (P->wn >= P->wents_cap)
	{
		size_t		ncap = P->wents_cap ? P->wents_cap * 2 : 2048;

		P->wents = P->wents ? iso_realloc(P->wents, ncap * sizeof(WEnt)) : iso_alloc(ncap * sizeof(WEnt));
		P->wents_cap = ncap;
	}
	{
		size_t		need = (size_t) key->len + (size_t) val->len;

		if (P->wpool_len + need > P->wpool_cap)
		{
			size_t		ncap = P->wpool_cap ? P->wpool_cap : 65536;

			while (ncap < P->wpool_len + need)
				ncap *= 2;
			P->wpool = P->wpool ? iso_realloc(P->wpool, ncap) : iso_alloc(ncap);
			P->wpool_cap = ncap;
		}
		if (key->len)
			memcpy(P->wpool + P->wpool_len, key->ptr, (size_t) key->len);
		if (val->len)
			memcpy(P->wpool + P->wpool_len + key->len, val->ptr, (size_t) val->len);
		e = &P->wents[P->wn];
		e->off = P->wpool_len;
		e->klen = key->len;
		e->vlen = val->len;
		e->record = record;
		e->line = line;
		P->wpool_len += need;
		P->wn++;
		P->wslots[i] = (tag << 32) | (uint64) P->wn;
	}
	return true;
}

/*
 * The unique-writes check: check_write keeps every write's text, record
 * and line (about 60 bytes each, hashed at random over hundreds of
 * megabytes), so that a duplicate can name the first write.  Most
 * histories write small integers (Jepsen's list-append writes 1, 2, 3, ...
 * to each key): those become bits of a per-key bitmap.  A duplicate found
 * there is reported, for a whole text, by reading the text again with
 * check_write alone (edn_parse_history), which stops at the same write and
 * names the first one; a stream has no text to read again, and its error
 * names the second write only.
 *
 * A value is "small" if its text is a canonical decimal of at most 9
 * digits.  A key's bitmap covers the values below nwords * 64 and grows
 * (doubling) while it stays below 128 bits per write of the key; once it
 * cannot, it is frozen, and the key's small values at or above its end go
 * to check_write.  So whether a (key, value) is looked up in the bitmap or
 * in check_write's table is the same at every write of it: before the
 * freeze every small value went to the bitmap, after it the bitmap's end
 * no longer moves.
 */
typedef struct UKey
{
	size_t		off;			/* key text in ukpool */
	int32		len;
	uint32		hash;
	uint64		inl;			/* the bitmap while nwords == 1 */
	uint64	   *bits;			/* the bitmap when nwords > 1 */
	uint32		nwords;
	uint32		writes;			/* values set */
	bool		frozen;
} UKey;

static UKey *ukey_find_hashed(Parser *P, const IsoSlice *key);

/*
 * The entry of a key, created if new.  A key that is a small integer is
 * found through uksmall (IsoSmallIndex), any other through the hash, which
 * holds every key.
 */
static UKey *
ukey_find(Parser *P, const IsoSlice *key)
{
	int64		v = iso_small_int_text(key->ptr, key->len);
	uint32	   *slot;
	UKey	   *k;

	if (v < 0 || (slot = iso_small_index_slot(&P->uksmall, v, P->nuk)) == NULL)
		return ukey_find_hashed(P, key);
	if (*slot != 0)
		return &P->ukeys[*slot - 1];
	k = ukey_find_hashed(P, key);
	if (k != NULL)
		*slot = (uint32) (k - P->ukeys) + 1;
	return k;
}

static UKey *
ukey_find_hashed(Parser *P, const IsoSlice *key)
{
	uint64		h = hash_mix(hash_bytes(key->ptr, (size_t) key->len, HASH_K1 ^ (uint64) key->len));
	uint32		h32 = (uint32) h;
	size_t		mask,
				i;
	UKey	   *k;

	if (P->nuk * 2 >= P->ukcap)
	{
		size_t		ncap = P->ukcap ? P->ukcap * 2 : 1024;
		uint32	   *ns = (uint32 *) iso_alloc0(ncap * sizeof(uint32));
		size_t		j;

		for (j = 0; j < P->nuk; j++)
		{
			size_t		q = P->ukeys[j].hash & (ncap - 1);

			while (ns[q] != 0)
				q = (q + 1) & (ncap - 1);
			ns[q] = (uint32) j + 1;
		}
		iso_free(P->ukslots);
		P->ukslots = ns;
		P->ukcap = ncap;
	}
	mask = P->ukcap - 1;
	i = h32 & mask;
	for (;;)
	{
		uint32		sl = P->ukslots[i];

		if (sl == 0)
			break;
		k = &P->ukeys[sl - 1];
		/* an empty key has no bytes in the pool, which may not exist yet */
		if (k->hash == h32 && k->len == key->len &&
			(key->len == 0 ||
			 memcmp(P->ukpool + k->off, key->ptr, (size_t) key->len) == 0))
			return k;
		i = (i + 1) & mask;
	}
	if (P->nuk >= (size_t) PG_INT32_MAX)
		return NULL;
	if (P->nuk >= P->ukeys_cap)
	{
		size_t		ncap = P->ukeys_cap ? P->ukeys_cap * 2 : 1024;

		P->ukeys = P->ukeys ? iso_realloc(P->ukeys, ncap * sizeof(UKey)) : iso_alloc(ncap * sizeof(UKey));
		P->ukeys_cap = ncap;
	}
	if (P->ukpool_len + (size_t) key->len > P->ukpool_cap)
	{
		size_t		ncap = P->ukpool_cap ? P->ukpool_cap : 65536;

		while (ncap < P->ukpool_len + (size_t) key->len)
			ncap *= 2;
		P->ukpool = P->ukpool ? iso_realloc(P->ukpool, ncap) : iso_alloc(ncap);
		P->ukpool_cap = ncap;
	}
	if (key->len > 0)
		memcpy(P->ukpool + P->ukpool_len, key->ptr, (size_t) key->len);
	k = &P->ukeys[P->nuk];
	memset(k, 0, sizeof(*k));
	k->off = P->ukpool_len;
	k->len = key->len;
	k->hash = h32;
	k->nwords = 1;
	P->ukpool_len += (size_t) key->len;
	P->ukslots[i] = (uint32) ++P->nuk;
	return k;
}

static bool
unique_write(Parser *P, const IsoSlice *key, const IsoSlice *val, int64 record,
			 int64 line, const IOp *op)
{
	int64		sv;
	uint32		v;
	UKey	   *k;
	uint32		w;
	uint64	   *word;
	uint64		bit;

	if (!P->fast_unique || (sv = iso_small_int_text(val->ptr, val->len)) < 0)
		return check_write(P, key, val, record, line, op);
	v = (uint32) sv;
	k = ukey_find(P, key);
	if (k == NULL)
		return check_write(P, key, val, record, line, op);
	w = v >> 6;
	if (w >= k->nwords)
	{
		uint32		nw = k->nwords;
		uint64	   *nb;

		if (k->frozen)
			return check_write(P, key, val, record, line, op);
		while (nw <= w)
			nw *= 2;
		if ((uint64) nw > 2 * ((uint64) k->writes + 1))
		{
			k->frozen = true;
			return check_write(P, key, val, record, line, op);
		}
		nb = (uint64 *) iso_alloc0((size_t) nw * sizeof(uint64));
		if (k->nwords == 1)
			nb[0] = k->inl;
		else
		{
			memcpy(nb, k->bits, (size_t) k->nwords * sizeof(uint64));
			iso_free(k->bits);
		}
		k->bits = nb;
		k->nwords = nw;
	}
	word = k->nwords == 1 ? &k->inl : &k->bits[w];
	bit = UINT64_C(1) << (v & 63);
	if (ISO_UNLIKELY(*word & bit))
	{
		if (!P->reread_dups)
		{
			duplicate_error(P, key, val, record, line, op, NULL);
			return false;
		}
		/* edn_parse_history reads the text again to name the first write */
		set_error(P->err, ISO_PARSE_DUPLICATE, record, line, "value written twice");
		P->fast_dup = true;
		return false;
	}
	*word |= bit;
	k->writes++;
	return true;
}

/* ----------------------------------------------------------------------
 * Emitting transactions
 * ---------------------------------------------------------------------- */

static bool
workload_error(Parser *P, const IOp *op, int64 record, const char *what,
			   IsoWorkload need)
{
	char		q[QUOTE_BUF];

	set_error(P->err, ISO_PARSE_INVALID, record, op->line,
			  "micro-op %s %s, but the history is %s, expected %s",
			  iso_quote_text(q, op->src, op->src + op->src_len), what,
			  iso_workload_name(P->workload),
			  P->workload == ISO_WORKLOAD_LIST_APPEND ?
			  ":append and list reads" : ":w and single-value reads");
	if (P->wl_expected)
		set_detail(P->err, "The caller asked for a %s history; this micro-op belongs to a %s history.",
				   iso_workload_name(P->workload), iso_workload_name(need));
	else
		set_detail(P->err, "The history was taken to be %s because of record %lld (line %lld).",
				   iso_workload_name(P->workload), (long long) P->wl_record,
				   (long long) P->wl_line);
	set_hint(P->err, "A history is either list-append (:append, list reads) or rw-register (:w, single-value reads), never both; check the workload you asked for and the file.");
	return false;
}

typedef struct TxnSrc
{
	const IOp  *ops;
	const IsoSlice *elems;
	int32		n_ops;
} TxnSrc;

static bool
emit_txn(Parser *P, EdnTxn *txn, const TxnSrc *src)
{
	int32		i;

	if (txn->has_invoke_time)
		P->any_timed = true;
	if (src->n_ops > P->cap_out)
		P->out = grow_array(P->out, sizeof(EdnOp), &P->cap_out, (size_t) src->n_ops);
	for (i = 0; i < src->n_ops; i++)
	{
		const IOp  *o = &src->ops[i];
		EdnOp	   *d = &P->out[i];
		IsoWorkload need = ISO_WORKLOAD_UNKNOWN;

		switch (o->op)
		{
			case ISO_OP_APPEND:
				need = ISO_WORKLOAD_LIST_APPEND;
				break;
			case ISO_OP_WRITE:
				need = ISO_WORKLOAD_RW_REGISTER;
				break;
			case ISO_OP_READ:
				if (o->list_len >= 0)
					need = ISO_WORKLOAD_LIST_APPEND;
				else if (o->read_value.ptr != NULL)
					need = ISO_WORKLOAD_RW_REGISTER;
				break;
		}
		if (need != ISO_WORKLOAD_UNKNOWN)
		{
			if (P->workload == ISO_WORKLOAD_UNKNOWN)
			{
				P->workload = need;
				P->wl_record = txn->record;
				P->wl_line = o->line;
			}
			else if (P->workload != need)
			{
				const char *what;

				if (o->op == ISO_OP_APPEND)
					what = "appends to a list";
				else if (o->op == ISO_OP_WRITE)
					what = "writes a register";
				else if (o->list_len >= 0)
					what = "reads a list";
				else
					what = "reads a single value";
				return workload_error(P, o, txn->record, what, need);
			}
		}
		if (o->op != ISO_OP_READ &&
			!unique_write(P, &o->key, &o->value, txn->record, o->line, o))
			return false;
		d->op = o->op;
		d->key = o->key;
		d->value = o->value;
		d->read_value = o->read_value;
		d->list_len = o->list_len;
		d->list = (o->list_len > 0) ? (IsoSlice *) src->elems + o->list_off :
			(o->list_len == 0 ? (IsoSlice *) empty_list : NULL);
	}
	txn->n_ops = src->n_ops;
	txn->ops = src->n_ops > 0 ? P->out : NULL;
	P->stats->txns++;
	P->stats->events += src->n_ops;
	switch (txn->status)
	{
		case ISO_STATUS_OK:
			P->stats->ok++;
			break;
		case ISO_STATUS_FAIL:
			P->stats->fail++;
			break;
		case ISO_STATUS_INFO:
			P->stats->info++;
			break;
	}
	if (!P->callback(txn, P->arg))
	{
		P->stopped = true;
		return false;
	}
	return true;
}

/*
 * The micro-ops of a pending invocation, for a completion without a value
 * or an invocation never completed.  A lazy one is read now from the text
 * that fast_record checked with the same function and limits, so this
 * cannot fail (the error is a guard); it takes P->ops and P->elems, which
 * the record at hand does not use then.
 */
static bool
pending_src(Parser *P, const Pending *pd, TxnSrc *src)
{
	if (pd->lazy)
	{
		int64		line = pd->value_line;

		P->n_ops = 0;
		P->n_elems = 0;
		if (fr_ops(P, pd->value_text, pd->value_text + pd->value_len, &line) == NULL)
		{
			set_error(P->err, ISO_PARSE_LIMIT, pd->number, pd->value_line,
					  "the :value of the invocation could not be read again");
			return false;
		}
		src->ops = P->ops;
		src->elems = P->elems;
		src->n_ops = P->n_ops;
		return true;
	}
	src->ops = pd->ops;
	src->elems = pd->elems;
	src->n_ops = pd->n_ops;
	return true;
}

/* Emit a pending invocation as a never-completed (info) transaction. */
static bool
emit_pending_info(Parser *P, Pending *pd)
{
	EdnTxn		txn;
	TxnSrc		src;

	memset(&txn, 0, sizeof(txn));
	txn.txn_id = pd->has_index ? pd->index : pd->pos;
	if (!pd->has_index)
		P->stats->unindexed++;
	txn.process = pd->process;
	txn.has_process = pd->has_process;
	txn.invoke_time = pd->time;
	txn.has_invoke_time = pd->has_time;
	txn.has_complete_time = false;
	txn.status = ISO_STATUS_INFO;
	txn.record = pd->number;
	txn.line = pd->line;
	if (!pending_src(P, pd, &src))
		return false;
	return emit_txn(P, &txn, &src);
}

static bool
in_input(const Parser *P, const char *p)
{
	if (P->copy_all)
		return false;
	return (uintptr_t) p - (uintptr_t) P->text < (uintptr_t) P->len;
}

/* Copy a slice that lives in the arena into the blob at *bp. */
static void
relocate(const Parser *P, IsoSlice *s, char **bp)
{
	if (s->ptr == NULL || s->len == 0 || in_input(P, s->ptr))
		return;
	memcpy(*bp, s->ptr, (size_t) s->len);
	s->ptr = *bp;
	*bp += s->len;
}

static size_t
arena_bytes(const Parser *P, const IsoSlice *s)
{
	if (s->ptr == NULL || s->len == 0 || in_input(P, s->ptr))
		return 0;
	return (size_t) s->len;
}

/*
 * Bytes of a micro-op's source text that a streaming pending invocation
 * keeps: what iso_quote_text can show (ISO_QUOTE_CHARS characters of up to
 * 4 bytes) and one more, so that its "..." appears as before.
 */
static size_t
src_copy_len(const IOp *op)
{
	size_t		max = 4 * ISO_QUOTE_CHARS + 1;

	if (op->src == NULL || op->src_len <= 0)
		return 0;
	return (size_t) op->src_len < max ? (size_t) op->src_len : max;
}

/* Store the current record (an invocation) in pending slot pd. */
static void
store_pending(Parser *P, Pending *pd)
{
	const Rec  *r = &P->rec;
	int32		n_ops = r->has_value ? P->n_ops : 0;
	int32		n_elems = r->has_value ? P->n_elems : 0;
	size_t		bytes = 0,
				need;
	int32		i;
	char	   *bp;

	for (i = 0; i < n_ops; i++)
	{
		bytes += arena_bytes(P, &P->ops[i].key);
		bytes += arena_bytes(P, &P->ops[i].value);
		bytes += arena_bytes(P, &P->ops[i].read_value);
	}
	for (i = 0; i < n_elems; i++)
		bytes += arena_bytes(P, &P->elems[i]);
	if (P->copy_all)
		for (i = 0; i < n_ops; i++)
			bytes += src_copy_len(&P->ops[i]);
	if (r->lazy_value && P->copy_all)
		bytes += r->value_len;
	need = (size_t) n_ops * sizeof(IOp) + (size_t) n_elems * sizeof(IsoSlice) + bytes;
	if (need > pd->blob_cap || pd->blob == NULL)
	{
		size_t		ncap = pd->blob_cap ? pd->blob_cap : 512;

		while (ncap < need)
			ncap *= 2;
		iso_free(pd->blob);
		pd->blob = iso_alloc(ncap);
		pd->blob_cap = ncap;
	}
	pd->ops = (IOp *) pd->blob;
	pd->elems = (IsoSlice *) (pd->blob + (size_t) n_ops * sizeof(IOp));
	bp = (char *) (pd->elems + n_elems);
	if (n_ops > 0)
		memcpy(pd->ops, P->ops, (size_t) n_ops * sizeof(IOp));
	if (n_elems > 0)
		memcpy(pd->elems, P->elems, (size_t) n_elems * sizeof(IsoSlice));
	for (i = 0; i < n_ops; i++)
	{
		relocate(P, &pd->ops[i].key, &bp);
		relocate(P, &pd->ops[i].value, &bp);
		relocate(P, &pd->ops[i].read_value, &bp);
	}
	for (i = 0; i < n_elems; i++)
		relocate(P, &pd->elems[i], &bp);
	if (P->copy_all)
	{
		/* the micro-op's text, for error messages: as much as they quote */
		for (i = 0; i < n_ops; i++)
		{
			size_t		n = src_copy_len(&pd->ops[i]);

			if (n > 0)
				memcpy(bp, pd->ops[i].src, n);
			pd->ops[i].src = bp;
			pd->ops[i].src_len = (int32) n;
			bp += n;
		}
	}
	pd->lazy = r->lazy_value;
	if (r->lazy_value)
	{
		pd->value_text = r->value_text;
		if (P->copy_all)
		{
			memcpy(bp, r->value_text, r->value_len);
			pd->value_text = bp;
			bp += r->value_len;
		}
		pd->value_len = r->value_len;
		pd->value_line = r->value_line;
	}
	pd->n_ops = n_ops;
	pd->pos = r->pos;
	pd->number = r->number;
	pd->line = r->line;
	pd->process = r->has_process ? r->process : 0;
	pd->has_process = r->has_process;
	pd->time = r->has_time ? r->time : 0;
	pd->has_time = r->has_time;
	pd->index = r->has_index ? r->index : 0;
	pd->has_index = r->has_index;
	pd->active = true;
}

static int32
pending_alloc(Parser *P)
{
	int32		i;

	if (P->free_pend >= 0)
	{
		i = P->free_pend;
		P->free_pend = P->pend[i].next_free;
	}
	else
	{
		if (P->n_pend >= P->cap_pend)
		{
			int32		old = P->cap_pend;

			P->pend = grow_array(P->pend, sizeof(Pending), &P->cap_pend, (size_t) P->n_pend + 1);
			memset(P->pend + old, 0, (size_t) (P->cap_pend - old) * sizeof(Pending));
		}
		i = P->n_pend++;
	}
	P->pend[i].active = false;
	P->pend[i].next_free = -1;
	return i;
}

static void
pending_release(Parser *P, int32 i)
{
	P->pend[i].active = false;
	P->pend[i].next_free = P->free_pend;
	P->free_pend = i;
}

/* The slot holding the pending index of a process (created if absent). */
static int32 *
proc_slot(Parser *P, bool has_process, int64 process)
{
	size_t		mask,
				i;

	if (!has_process)
		return &P->anon_pend;
	if (P->proc_n * 2 >= P->proc_cap)
	{
		size_t		ncap = P->proc_cap ? P->proc_cap * 2 : 64;
		ProcSlot   *ns = (ProcSlot *) iso_alloc0(ncap * sizeof(ProcSlot));
		size_t		j;

		for (j = 0; j < P->proc_cap; j++)
		{
			if (P->procs[j].used)
			{
				size_t		k = (size_t) hash_mix((uint64) P->procs[j].process) & (ncap - 1);

				while (ns[k].used)
					k = (k + 1) & (ncap - 1);
				ns[k] = P->procs[j];
			}
		}
		iso_free(P->procs);
		P->procs = ns;
		P->proc_cap = ncap;
	}
	mask = P->proc_cap - 1;
	i = (size_t) hash_mix((uint64) process) & mask;
	while (P->procs[i].used)
	{
		if (P->procs[i].process == process)
			return &P->procs[i].pend;
		i = (i + 1) & mask;
	}
	P->procs[i].used = true;
	P->procs[i].process = process;
	P->procs[i].pend = PROC_UNSEEN;
	P->proc_n++;
	return &P->procs[i].pend;
}

/* End of a record: classify it and pair it. */
static bool
finish_record(Parser *P)
{
	Rec		   *r = &P->rec;
	int32	   *slot;

	if (r->f_present && !r->f_txn)
	{
		P->stats->skipped++;
		P->stats->skipped_f++;
		return true;
	}
	if (r->process_keyword)
	{
		P->stats->skipped++;
		P->stats->skipped_process++;
		return true;
	}
	if (r->deferred)
	{
		*P->err = r->rec_err;
		return false;
	}
	if (!(r->seen & F_TYPE))
	{
		char		q[QUOTE_BUF];

		set_error(P->err, ISO_PARSE_INVALID, r->number, r->line,
				  "record %s has no :type, expected :invoke, :ok, :fail or :info",
				  iso_quote_text(q, r->start, P->p));
		set_detail(P->err, "Every transaction record needs a :type saying whether it is an invocation or a completion.");
		set_hint(P->err, "Add :type, for example {:type :ok, :value [[:r 1 nil]]}.");
		return false;
	}
	/*
	 * Real time (docs/semantics.md, "so and rt"): Jepsen writes :time on
	 * every record; without it the file's record order is the time, as in
	 * Elle.  The first transaction record decides for the whole file, so
	 * that one clock orders everything (a streaming load cannot look ahead).
	 */
	if (P->time_mode == ISO_TIME_NONE)
		P->time_mode = r->has_time ? ISO_TIME_VALUES : ISO_TIME_RECORD_ORDER;
	if (P->time_mode == ISO_TIME_RECORD_ORDER)
	{
		r->has_time = true;
		r->time = r->pos;
	}
	slot = proc_slot(P, r->has_process, r->process);
	if (r->type == REC_INVOKE)
	{
		int32		old = *slot;
		int32		i;
		bool		ok = true;

		/* stored first: emitting the earlier one may reuse P->ops */
		i = pending_alloc(P);
		store_pending(P, &P->pend[i]);
		/* proc_slot may not move: no insertion since */
		*slot = i;
		if (old >= 0)
		{
			/* the earlier invocation never completed */
			ok = emit_pending_info(P, &P->pend[old]);
			pending_release(P, old);
		}
		return ok;
	}
	else
	{
		EdnTxn		txn;
		TxnSrc		src;
		Pending    *pd = *slot >= 0 ? &P->pend[*slot] : NULL;
		bool		ok;

		memset(&txn, 0, sizeof(txn));
		txn.txn_id = r->has_index ? r->index : r->pos;
		if (!r->has_index)
			P->stats->unindexed++;
		txn.first_of_process = pd == NULL && *slot == PROC_UNSEEN;
		txn.own_value = r->has_value;
		txn.process = r->has_process ? r->process : 0;
		txn.has_process = r->has_process;
		txn.complete_time = r->has_time ? r->time : 0;
		txn.has_complete_time = r->has_time;
		txn.status = (IsoStatus) r->type;
		txn.record = r->number;
		txn.line = r->line;
		if (pd)
		{
			txn.invoke_time = pd->time;
			txn.has_invoke_time = pd->has_time;
		}
		else if (P->time_mode == ISO_TIME_RECORD_ORDER)
			txn.has_complete_time = false;	/* no invocation: no part in rt */
		if (r->has_value || pd == NULL)
		{
			src.ops = P->ops;
			src.elems = P->elems;
			src.n_ops = r->has_value ? P->n_ops : 0;
		}
		else if (!pending_src(P, pd, &src))
		{
			pending_release(P, *slot);
			*slot = -1;
			return false;
		}
		ok = emit_txn(P, &txn, &src);
		if (pd)
			pending_release(P, *slot);
		*slot = -1;
		return ok;
	}
}

static int
pending_cmp(const void *a, const void *b)
{
	const Pending *x = *(const Pending *const *) a;
	const Pending *y = *(const Pending *const *) b;

	return (x->pos > y->pos) - (x->pos < y->pos);
}

/* End of input: the invocations that never completed, in record order. */
static bool
flush_pending(Parser *P)
{
	Pending   **list;
	int32		n = 0,
				i;
	bool		ok = true;

	if (P->n_pend == 0)
		return true;
	list = (Pending **) iso_alloc((size_t) P->n_pend * sizeof(Pending *));
	for (i = 0; i < P->n_pend; i++)
		if (P->pend[i].active)
			list[n++] = &P->pend[i];
	if (n > 1)
		qsort(list, (size_t) n, sizeof(Pending *), pending_cmp);
	for (i = 0; i < n && ok; i++)
		ok = emit_pending_info(P, list[i]);
	iso_free(list);
	return ok;
}

static void
parser_free(Parser *P)
{
	int32		i;

	arena_free(&P->arena);
	iso_free(P->ops);
	iso_free(P->elems);
	iso_free(P->out);
	for (i = 0; i < P->n_pend; i++)
		iso_free(P->pend[i].blob);
	iso_free(P->pend);
	iso_free(P->procs);
	iso_free(P->wslots);
	iso_free(P->wents);
	iso_free(P->wpool);
	for (i = 0; i < (int32) P->nuk; i++)
		if (P->ukeys[i].nwords > 1)
			iso_free(P->ukeys[i].bits);
	iso_free(P->ukeys);
	iso_free(P->ukslots);
	iso_free(P->ukpool);
	iso_small_index_free(&P->uksmall);
}

static bool
not_a_map(Parser *P, const Tok *t)
{
	char		q[QUOTE_BUF];

	set_error(P->err, ISO_PARSE_INVALID, P->rec.number, t->line,
			  "record %lld is not a map: %s, expected a map such as {:type :ok, :value [...]}",
			  (long long) P->rec.number,
			  iso_quote_text(q, t->start, TK_IS_ATOM(t->kind) ? t->stop : value_extent(t->start, P->end)));
	set_detail(P->err, "A history is a sequence of operation maps, one per record, optionally inside one vector.");
	set_hint(P->err, "Check that the file is a Jepsen history.edn, not another EDN file.");
	return false;
}

/* ----------------------------------------------------------------------
 * The record loop, over a whole text or a stream of chunks
 * ---------------------------------------------------------------------- */

typedef enum StreamState
{
	SS_START,					/* nothing read yet */
	SS_BODY,					/* records (inside the vector if enclosed) */
	SS_CLOSED					/* after the enclosing vector's closer */
} StreamState;

/* Most bytes of an unfinished record that a stream holds between lines. */
#define EDN_STREAM_MAX_PENDING	((size_t) 64 * 1024 * 1024)

struct EdnStream
{
	Parser		P;
	EdnStats   *stats;
	IsoParseError *err;
	StreamState state;
	bool		enclosed;
	Open		outer;
	int64		pos;			/* 0-based position of the next record */
	bool		streaming;		/* chunks die after their feed */
	bool		failed;
	/* streaming: the unfinished record's text, then the line being fed */
	char	   *buf;
	size_t		buf_len;
	size_t		buf_cap;
	/* streaming: the start of the enclosing vector, for its error message */
	char		outer_text[4 * ISO_QUOTE_CHARS + 1];
	size_t		outer_len;
};

static void
stream_init(EdnStream *S, IsoWorkload expected, EdnTxnCallback callback,
			void *arg, EdnStats *stats, IsoParseError *err)
{
	Parser	   *P = &S->P;

	memset(S, 0, sizeof(*S));
	memset(err, 0, sizeof(*err));
	memset(stats, 0, sizeof(*stats));
	S->stats = stats;
	S->err = err;
	S->state = SS_START;
	P->line = 1;
	P->err = err;
	P->stats = stats;
	P->callback = callback;
	P->arg = arg;
	P->free_pend = -1;
	P->anon_pend = PROC_UNSEEN;
	P->workload = expected;
	P->wl_expected = (expected != ISO_WORKLOAD_UNKNOWN);
	P->utf8 = iso_host_encoding_utf8();
	P->text = P->p = P->end = "";
}

/* Point the parser at a chunk of text. */
static void
stream_set_text(EdnStream *S, const char *text, size_t len)
{
	Parser	   *P = &S->P;

	P->text = text;
	P->p = text;
	P->end = text + len;
	P->len = len;
}

/*
 * Parse the records of the current chunk.  If !final, a record that the
 * chunk's end cuts short is not an error: *rest is set to where it starts
 * (the parser is put back there) and the caller feeds it again with more
 * text.  *rest is NULL when the chunk was used up.
 */
static bool
parse_records(EdnStream *S, bool final, const char **rest)
{
	Parser	   *P = &S->P;
	Tok			t;

	*rest = NULL;
	for (;;)
	{
		Rec		   *r = &P->rec;
		const char *mark = P->p;
		int64		mark_line = P->line;
		int			mark_depth = P->depth;
		const Open *ctx = (S->enclosed && S->state == SS_BODY) ? &S->outer : NULL;

		P->hit_eof = false;
		/* errors between records name the next one (none after the vector) */
		P->rec.number = S->state == SS_CLOSED ? 0 : S->pos + 1;
		if (!next_tok(P, &t, ctx))
			goto fail;
		if (t.kind == TK_EOF)
			return true;
		if (S->state == SS_START)
		{
			S->state = SS_BODY;
			if (t.kind == TK_LBRACK || t.kind == TK_LPAREN)
			{
				S->enclosed = true;
				S->outer.kind = t.kind;
				S->outer.start = t.start;
				S->outer.line = t.line;
				P->depth = 1;
				continue;
			}
		}
		if (S->state == SS_CLOSED)
		{
			char		q[QUOTE_BUF];

			set_error(P->err, ISO_PARSE_SYNTAX, 0, t.line,
					  "unexpected %s after the end of the history vector, expected end of input",
					  iso_quote_text(q, t.start, P->end));
			set_detail(P->err, "The vector enclosing the history was closed at an earlier line.");
			set_hint(P->err, "Check that brackets are balanced.");
			return false;
		}
		if (S->enclosed && t.kind == closer_for(S->outer.kind))
		{
			S->state = SS_CLOSED;
			P->depth = 0;
			continue;
		}

		/* a new record */
		memset(r, 0, offsetof(Rec, rec_err));
		r->pos = S->pos;
		r->number = S->pos + 1;
		r->type = -1;
		arena_reset(&P->arena);
		P->n_ops = 0;
		P->n_elems = 0;
		if ((S->pos & 4095) == 0)
			ISO_CHECK_INTERRUPTS();

		if (t.kind == TK_TAG)
		{
			/* #jepsen.history.Op{...} */
			Tok			t2;

			if (!next_tok(P, &t2, ctx))
				goto fail;
			if (t2.kind == TK_EOF || TK_IS_CLOSE(t2.kind))
			{
				err_no_value(P, NULL, &t2);
				goto fail;
			}
			if (t2.kind != TK_LBRACE)
				return not_a_map(P, &t);
			t = t2;
		}
		if (t.kind != TK_LBRACE)
		{
			if (TK_IS_CLOSE(t.kind))
			{
				if (S->enclosed)
					return err_mismatch(P, &S->outer, &t);
				set_error(P->err, ISO_PARSE_SYNTAX, r->number, t.line,
						  "unexpected '%s', expected a map", closer_text(t.kind));
				set_detail(P->err, "There is no open collection for this bracket to close.");
				set_hint(P->err, "Check that brackets and braces are balanced.");
				return false;
			}
			return not_a_map(P, &t);
		}
		if (fast_record(P, &t))
			P->stats->fast_records++;
		else if (!parse_record(P, &t))
			goto fail;
		P->stats->records++;
		if (!finish_record(P))
			return false;
		S->pos++;
		continue;

fail:
		if (final || !P->hit_eof)
			return false;
		/* the record goes on in the next chunk: nothing of it was used */
		memset(P->err, 0, sizeof(*P->err));
		P->p = mark;
		P->line = mark_line;
		P->depth = mark_depth;
		*rest = mark;
		return true;
	}
}

/* End of input: the enclosing vector must be closed, pending invocations go out. */
static bool
parse_end(EdnStream *S)
{
	Parser	   *P = &S->P;

	if (S->enclosed && S->state == SS_BODY)
	{
		P->rec.number = 0;
		if (S->streaming)
		{
			/* the vector's chunk is gone: quote the copy of its start */
			S->outer.start = S->outer_text;
			P->end = S->outer_text + S->outer_len;
		}
		return err_unterminated(P, &S->outer);
	}
	P->rec.number = 0;
	return flush_pending(P);
}

static void
stream_result(EdnStream *S, bool ok)
{
	Parser	   *P = &S->P;

	S->stats->workload = P->workload;
	S->stats->time_source = P->any_timed ? P->time_mode : ISO_TIME_NONE;
	if (!ok && P->stopped)
		memset(S->err, 0, sizeof(*S->err));
	if (!ok)
		S->failed = true;
}

static bool
skip_txn(const EdnTxn *txn, void *arg)
{
	(void) txn;
	(void) arg;
	return true;
}

bool
edn_parse_history(const char *text, size_t len, IsoWorkload expected,
				  EdnTxnCallback callback, void *arg,
				  EdnStats *stats, IsoParseError *err)
{
	EdnStream	S;
	const char *rest;
	bool		ok;

	stream_init(&S, expected, callback, arg, stats, err);
	S.P.fast_unique = edn_fast_paths;
	S.P.reread_dups = true;
	stream_set_text(&S, text ? text : "", text ? len : 0);
	ok = parse_records(&S, true, &rest) && parse_end(&S);
	stream_result(&S, ok);
	if (!ok && S.P.fast_dup)
	{
		/*
		 * A value written twice, found by the bitmaps of unique_write: read
		 * the text again with check_write alone, which stops at the same
		 * write (everything before it is read the same way) and can name
		 * the first one.  The callback has seen the transactions before it
		 * already.
		 */
		parser_free(&S.P);
		stream_init(&S, expected, skip_txn, NULL, stats, err);
		stream_set_text(&S, text, len);
		ok = parse_records(&S, true, &rest) && parse_end(&S);
		stream_result(&S, ok);
		if (ok)
		{
			/* cannot happen: both checks are exact */
			set_error(err, ISO_PARSE_DUPLICATE, 0, 0, "value written twice, not found again");
			ok = false;
		}
	}
	parser_free(&S.P);
	return ok;
}

EdnStream *
edn_stream_begin(IsoWorkload expected, EdnTxnCallback callback, void *arg,
				 EdnStats *stats, IsoParseError *err)
{
	EdnStream  *S = (EdnStream *) iso_alloc(sizeof(EdnStream));

	stream_init(S, expected, callback, arg, stats, err);
	S->streaming = true;
	S->P.copy_all = true;
	/*
	 * The bitmaps too: the table of every write, probed at random, was a
	 * quarter of a 10M-transaction streaming load and about 3 GB
	 * (docs/performance.md).  A duplicate they find names only its second
	 * write.
	 */
	S->P.fast_unique = edn_fast_paths;
	return S;
}

/* Whether a line holds a closing bracket (only then can a record end). */
static bool
has_closer(const char *s, size_t len)
{
	size_t		i;

	for (i = 0; i < len; i++)
		if (s[i] == '}' || s[i] == ']' || s[i] == ')')
			return true;
	return false;
}

/* An unfinished record of n bytes is more than a stream holds. */
static bool
stream_too_long(EdnStream *S, size_t n)
{
	set_error(S->err, ISO_PARSE_LIMIT, S->pos + 1, S->P.line,
			  "record %lld is not complete after %zu bytes",
			  (long long) (S->pos + 1), n);
	set_detail(S->err, "A record may span several lines, but a streaming load holds at most %zu bytes of an unfinished record.",
			   EDN_STREAM_MAX_PENDING);
	set_hint(S->err, "Check for an unterminated string or a missing closing brace.");
	stream_result(S, false);
	return false;
}

/* Keep the start of the enclosing vector for "unterminated vector": its chunk dies. */
static void
stream_keep_outer(EdnStream *S)
{
	if (S->enclosed && S->outer_len == 0 && S->outer.start != NULL)
	{
		size_t		n = (size_t) (S->P.end - S->outer.start);

		if (n > sizeof(S->outer_text))
			n = sizeof(S->outer_text);
		memcpy(S->outer_text, S->outer.start, n);
		S->outer_len = n;
		S->outer.start = NULL;
	}
}

bool
edn_stream_line(EdnStream *S, const char *line, size_t len)
{
	Parser	   *P = &S->P;
	bool		held = S->buf_len > 0;
	const char *rest;
	size_t		need = S->buf_len + len + 1;
	bool		ok;

	if (S->failed)
		return false;
	if (need > S->buf_cap)
	{
		size_t		ncap = S->buf_cap ? S->buf_cap : 8192;

		while (ncap < need)
			ncap *= 2;
		S->buf = S->buf ? iso_realloc(S->buf, ncap) : iso_alloc(ncap);
		S->buf_cap = ncap;
	}
	memcpy(S->buf + S->buf_len, line, len);
	S->buf[S->buf_len + len] = '\n';
	S->buf_len = need;

	/*
	 * A record that began on an earlier line can only end on a line with a
	 * closing bracket: until one comes, just hold the text (so that a map
	 * spread over many lines is parsed once, not once per line).
	 */
	if (held && !has_closer(line, len))
		return S->buf_len <= EDN_STREAM_MAX_PENDING || stream_too_long(S, S->buf_len);

	stream_set_text(S, S->buf, S->buf_len);
	ok = parse_records(S, false, &rest);
	if (!ok)
	{
		stream_result(S, false);
		return false;
	}
	stream_keep_outer(S);
	if (rest == NULL)
		S->buf_len = 0;
	else
	{
		size_t		n = (size_t) (P->end - rest);

		if (n > EDN_STREAM_MAX_PENDING)
			return stream_too_long(S, n);
		memmove(S->buf, rest, n);
		S->buf_len = n;
	}
	return true;
}

/*
 * Whole lines of a file read in blocks, parsed where they lie (no copy into
 * the stream's buffer): *used is how much of text the complete records
 * took; the caller passes the rest again at the front of its next block.
 */
bool
edn_stream_text(EdnStream *S, const char *text, size_t len, size_t *used)
{
	const char *rest;

	*used = 0;
	if (S->failed)
		return false;
	stream_set_text(S, text, len);
	if (!parse_records(S, false, &rest))
	{
		stream_result(S, false);
		return false;
	}
	stream_keep_outer(S);
	*used = rest == NULL ? len : (size_t) (rest - text);
	if (len - *used > EDN_STREAM_MAX_PENDING)
		return stream_too_long(S, len - *used);
	return true;
}

bool
edn_stream_finish(EdnStream *S)
{
	const char *rest;
	bool		ok;

	if (S->failed)
		return false;
	stream_set_text(S, S->buf ? S->buf : "", S->buf_len);
	ok = parse_records(S, true, &rest) && parse_end(S);
	S->buf_len = 0;
	stream_result(S, ok);
	return ok;
}

bool
edn_stream_stop(EdnStream *S, EdnPending **pending, int32 *n_pending)
{
	Parser	   *P = &S->P;
	int32		n = 0;
	int32		i;

	*pending = NULL;
	*n_pending = 0;
	if (S->failed || S->buf_len > 0 || S->enclosed || P->depth != 0)
		return false;
	*pending = iso_alloc(sizeof(EdnPending) * (size_t) Max(P->n_pend, 1));
	for (i = 0; i < P->n_pend; i++)
	{
		const Pending *pd = &P->pend[i];

		if (!pd->active)
			continue;
		(*pending)[n].process = pd->process;
		(*pending)[n].has_process = pd->has_process;
		(*pending)[n].time = pd->time;
		(*pending)[n].has_time = pd->has_time;
		n++;
	}
	*n_pending = n;
	stream_result(S, true);
	return true;
}

void
edn_stream_free(EdnStream *S)
{
	if (S == NULL)
		return;
	parser_free(&S->P);
	iso_free(S->buf);
	iso_free(S);
}
