/*
 * port.h
 *	  The few things the parsing and graph cores need from their host.
 *
 * Everything under src/core is plain C that never includes postgres.h: the
 * parsers, the history, the graph builder, the cycle searches and the level
 * rules.  The server links it with src/pg/host.c, the unit tests and fuzzers
 * with port_standalone.c (built with -DISOGRAPH_STANDALONE).
 */
#ifndef ISOGRAPH_PORT_H
#define ISOGRAPH_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * PostgreSQL's integer names.  A backend file includes postgres.h first,
 * whose c.h (include guard C_H) defines the same types; the core's own
 * files never include it and get them here.
 */
#ifndef C_H
typedef int8_t int8;
typedef int16_t int16;
typedef int32_t int32;
typedef int64_t int64;
typedef uint8_t uint8;
typedef uint16_t uint16;
typedef uint32_t uint32;
typedef uint64_t uint64;
typedef size_t Size;

#define PG_INT32_MAX	INT32_MAX
#define PG_INT64_MAX	INT64_MAX
#define PG_INT64_MIN	INT64_MIN
#define PG_UINT32_MAX	UINT32_MAX
#define Min(x, y)		((x) < (y) ? (x) : (y))
#define Max(x, y)		((x) > (y) ? (x) : (y))
#endif							/* C_H */

#if defined(__GNUC__) || defined(__clang__)
#define ISO_PRINTF(f, a)	__attribute__((format(printf, f, a)))
#define ISO_NORETURN		__attribute__((noreturn))
#else
#define ISO_PRINTF(f, a)
#define ISO_NORETURN
#endif

/*
 * The host: src/pg/host.c inside the server (palloc in the current memory
 * context, so everything goes with that context, also on ERROR; interrupts
 * and isograph.max_memory checked), port_standalone.c in unit tests and
 * fuzzers (malloc; exhaustion and errors abort).
 */
extern void *iso_alloc(size_t size);
extern void *iso_alloc0(size_t size);
extern void *iso_realloc(void *ptr, size_t size);
extern void iso_free(void *ptr);	/* NULL: nothing to free, as free() */

/* Long loops call this: CHECK_FOR_INTERRUPTS and the memory limit. */
extern void iso_host_tick(void);
/*
 * Whether a query cancel or termination is pending, without acting on it:
 * for code that must first release what the host does not own (the SAT
 * solver's heap) and then call ISO_CHECK_INTERRUPTS.  Never throws.
 */
extern bool iso_host_stop_requested(void);

/*
 * Run helper(helper_arg) on a second thread while main(main_arg) runs on
 * this one, and return once both are done; false, running neither, when no
 * thread could be started (the caller then does the work alone).  The
 * helper may call no function of this file, nor allocate, nor raise: it
 * works in memory given to it, takes no signal, and stops early when *stop
 * becomes nonzero (__atomic_load_n), which is set if main raises an error
 * (the error then goes on once the helper has stopped).  main may call
 * iso_host_stop_requested, no other host function.
 */
extern bool iso_host_run_beside(void (*main) (void *), void *main_arg,
								void (*helper) (void *), void *helper_arg,
								int *stop);

/*
 * The same helper, started while the caller goes on with anything (host
 * functions, errors included).  It is stopped (*stop set) and waited for
 * by iso_host_helper_join, or, if an error comes first, when the memory
 * context current at the start is reset, before any memory of that context
 * is freed: so it must use only memory allocated before it started, in
 * that context or an older one, and nothing on the caller's stack (an
 * error unwinds the stack before the helper is stopped).  NULL when no
 * thread could be started.
 */
typedef struct IsoHelper IsoHelper;
extern IsoHelper *iso_host_helper_start(void (*helper) (void *), void *arg, int *stop);
extern void iso_host_helper_join(IsoHelper *helper);

/*
 * Arrange for free_fn(*slot) when the current allocation scope goes away
 * (the server: the current memory context is reset or deleted, also on
 * ERROR), unless *slot is NULL by then.  For memory the host's allocator
 * does not own (a C++ library's).  The standalone host does nothing.
 */
extern void iso_host_on_release(void **slot, void (*free_fn) (void *));

/* The memory limit alone, every time: after a big allocation. */
extern void iso_host_check_memory(void);

/* give memory freed in large pieces back to the system (a hint) */
extern void iso_host_return_free_memory(void);
/* A size limit of the algorithms that a user's history reached (54000). */
extern void iso_host_limit(const char *what) ISO_NORETURN;
/* A broken invariant: a bug, never the user's input (XX000). */
extern void iso_host_internal_error(const char *what) ISO_NORETURN;

/*
 * The database encoding.  The text the core reads comes from the server as
 * text, so it is already valid in that encoding; every string the core makes
 * itself (the character of a \uXXXX escape, a quote of the input in an
 * error message) must be valid in it too, or a dump of the stored history
 * would not restore.  All server encodings keep ASCII bytes for ASCII
 * characters, so the parsers' syntax (quotes, brackets, backslashes) is the
 * same in every one of them.  Outside the server the encoding is UTF-8.
 */
#define ISO_MAX_CHAR_LEN	4	/* bytes of one character, any encoding */

/* Whether the database encoding is UTF-8. */
extern bool iso_host_encoding_utf8(void);
/* Its name, for messages ("UTF8", "LATIN1", "EUC_JP"). */
extern const char *iso_host_encoding_name(void);
/*
 * Length of the valid character of the database encoding at s (s < end,
 * *s >= 0x80), or 0 if the bytes there are not one.
 */
extern int	iso_host_char_len(const unsigned char *s, const unsigned char *end);
/*
 * Unicode code point cp (1..U+10FFFF, not a surrogate) as a character of
 * the database encoding at out (ISO_MAX_CHAR_LEN bytes, not terminated):
 * returns its length, or 0 when the encoding has no such character.
 */
extern int	iso_host_unicode_char(uint32 cp, char *out);

#ifdef ISOGRAPH_STANDALONE
/*
 * Tests only: the encoding the standalone host pretends the database has.
 * ISO_STANDALONE_LATIN1 maps U+0001..U+00FF to one byte each and has no
 * other character; every byte but 0 is a valid character.
 */
typedef enum IsoStandaloneEncoding
{
	ISO_STANDALONE_UTF8 = 0,
	ISO_STANDALONE_LATIN1
} IsoStandaloneEncoding;
extern IsoStandaloneEncoding iso_standalone_encoding;
#endif

#ifdef ISOGRAPH_STANDALONE
#define ISO_CHECK_INTERRUPTS()	((void) 0)
#define ISO_CHECK_MEMORY()		((void) 0)
#else
#define ISO_CHECK_INTERRUPTS()	iso_host_tick()
#define ISO_CHECK_MEMORY()		iso_host_check_memory()
#endif

/* A piece of text; ptr == NULL means SQL NULL.  Not NUL-terminated. */
typedef struct IsoSlice
{
	const char *ptr;
	int32		len;
} IsoSlice;

#endif							/* ISOGRAPH_PORT_H */
