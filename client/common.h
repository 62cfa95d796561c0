/*
 * common.h: what the parts of isograph-record share: exit statuses,
 * messages, memory that is never NULL, libpq connections and statements,
 * the isolation level (its BEGIN and its name), PostgreSQL's text form of
 * bigint[], and sleeping.
 */
#ifndef ISOGRAPH_RECORD_COMMON_H
#define ISOGRAPH_RECORD_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libpq-fe.h>

/*
 * The version of the extension this client belongs to: client/Makefile
 * reads it from isograph.control, so the two cannot drift apart.
 */
#ifndef ISOGRAPH_VERSION
#error "ISOGRAPH_VERSION is not defined: build with client/Makefile"
#endif

/* exit statuses */
#define EXIT_RUNTIME 1			/* connection, SQL or store failure */
#define EXIT_USAGE 2			/* bad options */

typedef enum
{
	ISO_RC,
	ISO_RR,
	ISO_SER
} IsoLevel;

/* messages and memory (out of memory exits with EXIT_RUNTIME) */
void		errmsg_out(const char *fmt,...) __attribute__((format(printf, 1, 2)));
void	   *xmalloc(size_t n);
void	   *xrealloc(void *p, size_t n);
char	   *xstrdup(const char *s);

/* libpq */
PGconn	   *connect_db(const char *dsn, const char *appname, char *err, size_t errlen);
bool		sql_run(PGconn *c, const char *sql, ExecStatusType expect, char *err,
					size_t errlen);
bool		sql_run_or_report(PGconn *c, const char *sql, ExecStatusType expect);
bool		committed(PGresult *r);

/* isolation levels */
const char *iso_begin_sql(IsoLevel l);
const char *iso_name(IsoLevel l);

/* values */
bool		parse_int_array(const char *s, int64_t **out, int *len);
int			cmp_int64_pair(const void *a, const void *b);

/* time */
void		sleep_s(double s);

#endif
