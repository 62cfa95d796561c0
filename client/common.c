/*
 * common.c: what the parts of isograph-record share (see common.h).
 */
#include "common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- messages and memory ---- */

void
errmsg_out(const char *fmt,...)
{
	va_list		ap;

	fputs("isograph-record: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void
out_of_memory(void)
{
	fprintf(stderr, "isograph-record: out of memory\n");
	exit(EXIT_RUNTIME);
}

/* Zeroed memory. */
void *
xmalloc(size_t n)
{
	void	   *p = calloc(1, n ? n : 1);

	if (!p)
		out_of_memory();
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		out_of_memory();
	return p;
}

char *
xstrdup(const char *s)
{
	size_t		n = strlen(s) + 1;
	char	   *p = xmalloc(n);

	memcpy(p, s, n);
	return p;
}

/* ---- libpq ---- */

/* Server notices (e.g. of DROP TABLE IF EXISTS) would only clutter stderr. */
static void
quiet_notice(void *arg, const char *msg)
{
	(void) arg;
	(void) msg;
}

/*
 * Connect to dsn (empty or NULL: the PG* environment).  On failure returns
 * NULL with libpq's message, without its trailing newline, in err.
 */
PGconn *
connect_db(const char *dsn, const char *appname, char *err, size_t errlen)
{
	const char *kw[] = {"dbname", "fallback_application_name", "connect_timeout", NULL};
	const char *val[] = {dsn ? dsn : "", appname, "10", NULL};
	PGconn	   *c = PQconnectdbParams(kw, val, 1);

	if (c == NULL || PQstatus(c) != CONNECTION_OK)
	{
		const char *m = c ? PQerrorMessage(c) : "out of memory";
		size_t		l;

		snprintf(err, errlen, "%s", m);
		l = strlen(err);
		while (l > 0 && (err[l - 1] == '\n' || err[l - 1] == ' '))
			err[--l] = '\0';
		if (c)
			PQfinish(c);
		return NULL;
	}
	PQsetNoticeProcessor(c, quiet_notice, NULL);
	return c;
}

/*
 * Run sql and drop its result.  True when the result status is expect;
 * otherwise false with libpq's message in err.
 */
bool
sql_run(PGconn *c, const char *sql, ExecStatusType expect, char *err, size_t errlen)
{
	PGresult   *r = PQexec(c, sql);
	bool		ok = PQresultStatus(r) == expect;

	if (!ok)
		snprintf(err, errlen, "%s", PQerrorMessage(c));
	PQclear(r);
	return ok;
}

/* sql_run, and on failure say which statement failed and why. */
bool
sql_run_or_report(PGconn *c, const char *sql, ExecStatusType expect)
{
	char		err[512];

	if (!sql_run(c, sql, expect, err, sizeof(err)))
	{
		errmsg_out("%s failed: %s", sql, err);
		return false;
	}
	return true;
}

/*
 * Did this result of COMMIT commit?  COMMIT of a transaction that already
 * failed succeeds with the tag ROLLBACK, so the status alone does not say.
 */
bool
committed(PGresult *r)
{
	return PQresultStatus(r) == PGRES_COMMAND_OK && strcmp(PQcmdStatus(r), "COMMIT") == 0;
}

/* ---- isolation levels ---- */

const char *
iso_begin_sql(IsoLevel l)
{
	switch (l)
	{
		case ISO_RC:
			return "BEGIN ISOLATION LEVEL READ COMMITTED";
		case ISO_RR:
			return "BEGIN ISOLATION LEVEL REPEATABLE READ";
		default:
			return "BEGIN ISOLATION LEVEL SERIALIZABLE";
	}
}

/* The name --isolation takes and the summary prints. */
const char *
iso_name(IsoLevel l)
{
	switch (l)
	{
		case ISO_RC:
			return "read-committed";
		case ISO_RR:
			return "repeatable-read";
		default:
			return "serializable";
	}
}

/* ---- values ---- */

/* Parse a bigint[] text value such as {1,2,3} or {}. */
bool
parse_int_array(const char *s, int64_t **out, int *len)
{
	int			cap = 8,
				n = 0;
	int64_t    *a;
	const char *p = s;

	*out = NULL;
	*len = 0;
	if (*p != '{')
		return false;
	p++;
	a = xmalloc(sizeof(int64_t) * cap);
	while (*p && *p != '}')
	{
		char	   *end;
		long long	v = strtoll(p, &end, 10);

		if (end == p)
		{
			free(a);
			return false;
		}
		if (n == cap)
		{
			cap *= 2;
			a = xrealloc(a, sizeof(int64_t) * cap);
		}
		a[n++] = v;
		p = end;
		if (*p == ',')
			p++;
	}
	if (*p != '}')
	{
		free(a);
		return false;
	}
	*out = a;
	*len = n;
	return true;
}

/* qsort/bsearch order of (int64_t, int64_t) pairs: by the first, then the second. */
int
cmp_int64_pair(const void *a, const void *b)
{
	const int64_t *x = a,
			   *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* ---- time ---- */

/* Sleep s seconds, through signals. */
void
sleep_s(double s)
{
	struct timespec ts;

	ts.tv_sec = (time_t) s;
	ts.tv_nsec = (long) ((s - (double) ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}
