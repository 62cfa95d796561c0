/*
 * options.c: isograph-record's command line: --help, --version, parsing
 * and checking every option, and the defaults that depend on others
 * (--store, --table, --seed, --name).
 */
#include "options.h"

#include "ldbc.h"

#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static void
usage(FILE *f)
{
	fputs(
		  "isograph-record: test a live PostgreSQL-protocol database for isolation anomalies\n"
		  "and store the history it saw in isograph's tables.\n"
		  "\n"
		  "Usage: isograph-record [OPTION]...\n"
		  "\n"
		  "Connections (DSN = a libpq connection string or URI; empty = PG* environment):\n"
		  "  --target DSN            database to test; the workload table is created there\n"
		  "  --store DSN             database with CREATE EXTENSION isograph, where the history\n"
		  "                          is stored (default: same as --target)\n"
		  "\n"
		  "Workload:\n"
		  "  --workload KIND         list-append (default) or rw-register\n"
		  "  --isolation LEVEL       read-committed, repeatable-read or serializable (default);\n"
		  "                          also rc, rr, ser, and (with --ldbc) all\n"
		  "  --clients N             concurrent sessions, one connection each (default 10)\n"
		  "  --duration SECONDS      how long to run (default 10, unless --txns is given)\n"
		  "  --txns N                stop after N transactions (with --duration: whichever first)\n"
		  "  --keys N                hot keys in use at any time (default 5)\n"
		  "  --min-txn-len N         fewest micro-operations per transaction (default 1)\n"
		  "  --max-txn-len N         most micro-operations per transaction (default 4)\n"
		  "  --writes-per-key N      retire a key after N writes and use a fresh one; 0 = never\n"
		  "                          (default 32)\n"
		  "  --read-fraction F       probability that a micro-op is a read, 0..1 (default 0.5)\n"
		  "  --write-order ORDER     ascending (default): each transaction writes its keys in\n"
		  "                          ascending key order, so sessions never deadlock;\n"
		  "                          random: writes in drawn order (use a server with a short\n"
		  "                          deadlock_timeout, e.g. 20ms, or lock waits dominate)\n"
		  "  --seed N                random seed (default: from the clock; printed)\n"
		  "  --table NAME            workload table on the target, dropped and re-created\n"
		  "                          (default isograph_la or isograph_kv)\n"
		  "  --no-final-read         skip the last transaction that reads every key\n"
		  "  --kill-every SECONDS    fault injection: every SECONDS terminate one session's\n"
		  "                          backend with pg_terminate_backend (default: off)\n"
		  "\n"
		  "Deterministic schedules (two sessions step by step, plus a final reader):\n"
		  "  --schedule NAME         lost-update, read-skew or write-skew, at --isolation;\n"
		  "                          every step's result is checked against PostgreSQL 15's\n"
		  "                          documented behaviour; a mismatch stops with an error\n"
		  "\n"
		  "LDBC SNB ACID tests (Person, KNOWS, Post, LIKES tables in schema isograph_ldbc):\n"
		  "  --ldbc TEST             run the LDBC ACID test TEST (g0, g1a, g1b, g1c, imp, pmp,\n"
		  "                          otv, fr, lu, ws) or all of them, at --isolation (rc, rr,\n"
		  "                          ser or all; default all); store one history per test and\n"
		  "                          level and print test x level: LDBC verdict, isograph\n"
		  "                          verdict, anomalies.  Exit 3 if they disagree unexplained\n"
		  "                          or a level PostgreSQL guarantees is violated\n"
		  "  --ldbc-sleep MS         the tests' sleeps inside transactions (default 250, as LDBC)\n"
		  "  --ldbc-schedule         instead of concurrent clients, one fixed interleaving of\n"
		  "                          two sessions per test that forces the anomaly where the\n"
		  "                          level allows it (deterministic verdicts)\n"
		  "  (--clients N sets the LDBC runs' threads, default 8 as LDBC's driver)\n"
		  "\n"
		  "Output:\n"
		  "  --name NAME             name of the stored history (default: generated, unique)\n"
		  "  --edn FILE              also write the history as a Jepsen EDN file ('-' = stdout)\n"
		  "  --no-store              do not store the history (use with --edn)\n"
		  "  --check                 after storing, print SELECT * FROM iso_levels(id)\n"
		  "  --progress SECONDS      progress line on stderr every SECONDS (default 1; 0 = off)\n"
		  "  --quiet                 no progress lines\n"
		  "  --load FILE             run no test: load the Jepsen EDN FILE ('-' = stdin) into\n"
		  "                          --store (default: --target), streaming it with COPY into\n"
		  "                          iso_jepsen_input (any size; --name, --workload, --check)\n"
		  "  --help                  this text\n"
		  "  --version               program version\n"
		  "\n"
		  "Outcomes: ok = COMMIT returned the tag COMMIT; fail = definite abort (SQLSTATE 40001,\n"
		  "40P01, 23505, 55P03, 57014, 25P02, or COMMIT returning the tag ROLLBACK); info =\n"
		  "connection lost or COMMIT failed otherwise (the outcome is unknown).\n"
		  "On success the last line on standard output is the stored history id.\n"
		  "Exit status: 0 success, 1 connection/SQL/store error, 2 bad options.\n",
		  f);
}

static bool
parse_long(const char *s, long min, long max, long *out)
{
	char	   *end;
	long		v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static bool
parse_double(const char *s, double min, double max, double *out)
{
	char	   *end;
	double		v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= min && v <= max))
		return false;
	*out = v;
	return true;
}

enum
{
	O_TARGET = 1000, O_STORE, O_ISOLATION, O_WORKLOAD, O_CLIENTS, O_DURATION, O_TXNS,
	O_SEED, O_NAME, O_KEYS, O_MINLEN, O_MAXLEN, O_WPK, O_READFRAC, O_WORDER, O_TABLE,
	O_EDN, O_NOSTORE, O_CHECK, O_SCHEDULE, O_KILL, O_PROGRESS, O_QUIET, O_NOFINAL,
	O_HELP, O_VERSION, O_LOAD, O_LDBC, O_LDBC_SLEEP, O_LDBC_SCHEDULE
};

static const struct option longopts[] = {
	{"target", required_argument, NULL, O_TARGET},
	{"store", required_argument, NULL, O_STORE},
	{"isolation", required_argument, NULL, O_ISOLATION},
	{"workload", required_argument, NULL, O_WORKLOAD},
	{"clients", required_argument, NULL, O_CLIENTS},
	{"duration", required_argument, NULL, O_DURATION},
	{"txns", required_argument, NULL, O_TXNS},
	{"seed", required_argument, NULL, O_SEED},
	{"name", required_argument, NULL, O_NAME},
	{"keys", required_argument, NULL, O_KEYS},
	{"min-txn-len", required_argument, NULL, O_MINLEN},
	{"max-txn-len", required_argument, NULL, O_MAXLEN},
	{"writes-per-key", required_argument, NULL, O_WPK},
	{"read-fraction", required_argument, NULL, O_READFRAC},
	{"write-order", required_argument, NULL, O_WORDER},
	{"table", required_argument, NULL, O_TABLE},
	{"edn", required_argument, NULL, O_EDN},
	{"no-store", no_argument, NULL, O_NOSTORE},
	{"check", no_argument, NULL, O_CHECK},
	{"schedule", required_argument, NULL, O_SCHEDULE},
	{"kill-every", required_argument, NULL, O_KILL},
	{"progress", required_argument, NULL, O_PROGRESS},
	{"quiet", no_argument, NULL, O_QUIET},
	{"no-final-read", no_argument, NULL, O_NOFINAL},
	{"load", required_argument, NULL, O_LOAD},
	{"ldbc", required_argument, NULL, O_LDBC},
	{"ldbc-sleep", required_argument, NULL, O_LDBC_SLEEP},
	{"ldbc-schedule", no_argument, NULL, O_LDBC_SCHEDULE},
	{"help", no_argument, NULL, O_HELP},
	{"version", no_argument, NULL, O_VERSION},
	{NULL, 0, NULL, 0}
};

/* returned by the parse_*_option functions for an option not theirs */
#define NOT_MINE (-1)

static int
usage_error(void)
{
	fputs("Try \"isograph-record --help\" for more information.\n", stderr);
	return EXIT_USAGE;
}

static int
bad_option(const char *opt, const char *val, const char *expect)
{
	errmsg_out("invalid value \"%s\" for %s: expected %s", val, opt, expect);
	return usage_error();
}

static void
set_defaults(Options *o)
{
	memset(o, 0, sizeof(*o));
	o->target = NULL;
	o->isolation = ISO_SER;
	o->workload = WL_LIST_APPEND;
	o->clients = 10;
	o->duration = 10;
	o->keys = 5;
	o->min_txn_len = 1;
	o->max_txn_len = 4;
	o->writes_per_key = 32;
	o->read_fraction = 0.5;
	o->ascending_writes = true;
	o->progress = 1;
	o->final_read = true;
	o->levels = 1 << ISO_SER;
	o->ldbc_sleep_ms = 250;
}

/* Options that name one of a few choices. */
static int
parse_choice_option(int c, const char *a, Options *o)
{
	switch (c)
	{
		case O_ISOLATION:
			if (strcmp(a, "read-committed") == 0 || strcasecmp(a, "read committed") == 0 ||
				strcasecmp(a, "rc") == 0)
				o->isolation = ISO_RC;
			else if (strcmp(a, "repeatable-read") == 0 || strcasecmp(a, "repeatable read") == 0 ||
					 strcasecmp(a, "rr") == 0)
				o->isolation = ISO_RR;
			else if (strcmp(a, "serializable") == 0 || strcasecmp(a, "ser") == 0)
				o->isolation = ISO_SER;
			else if (strcasecmp(a, "all") == 0)
			{
				o->isolation = ISO_SER;
				o->levels = (1 << ISO_RC) | (1 << ISO_RR) | (1 << ISO_SER);
				o->isolation_given = true;
				return 0;
			}
			else
				return bad_option("--isolation", a,
								  "read-committed (rc), repeatable-read (rr), serializable (ser) "
								  "or all");
			o->levels = 1 << o->isolation;
			o->isolation_given = true;
			return 0;
		case O_LDBC:
			if (!ldbc_test_name_ok(a))
				return bad_option("--ldbc", a,
								  "g0, g1a, g1b, g1c, imp, pmp, otv, fr, lu, ws or all");
			o->ldbc = a;
			return 0;
		case O_WORKLOAD:
			if (strcmp(a, "list-append") == 0)
				o->workload = WL_LIST_APPEND;
			else if (strcmp(a, "rw-register") == 0)
				o->workload = WL_RW_REGISTER;
			else
				return bad_option("--workload", a, "list-append or rw-register");
			o->workload_given = true;
			return 0;
		case O_WORDER:
			if (strcmp(a, "ascending") == 0)
				o->ascending_writes = true;
			else if (strcmp(a, "random") == 0)
				o->ascending_writes = false;
			else
				return bad_option("--write-order", a, "ascending or random");
			return 0;
		case O_SCHEDULE:
			if (strcmp(a, "lost-update") && strcmp(a, "read-skew") && strcmp(a, "write-skew"))
				return bad_option("--schedule", a, "lost-update, read-skew or write-skew");
			o->schedule = a;
			return 0;
	}
	return NOT_MINE;
}

static bool
parse_seed(const char *a, uint64_t *out)
{
	char	   *end;

	errno = 0;
	*out = strtoull(a, &end, 10);
	return !(errno || end == a || *end || *a == '-');
}

typedef enum
{
	NUM_INT,
	NUM_LONG,
	NUM_DOUBLE
} NumberType;

/* An option that takes a number: its range, and where it goes in Options. */
typedef struct NumberOption
{
	int			id;
	const char *flag;
	NumberType	type;
	double		min;
	double		max;
	size_t		field;			/* offsetof(Options, ...) */
	const char *expect;			/* for the message about a bad value */
} NumberOption;

static const NumberOption number_options[] = {
	{O_CLIENTS, "--clients", NUM_INT, 1, 1000, offsetof(Options, clients),
	"an integer from 1 to 1000"},
	{O_DURATION, "--duration", NUM_DOUBLE, 0.001, 86400 * 7, offsetof(Options, duration),
	"a number of seconds > 0"},
	{O_TXNS, "--txns", NUM_LONG, 1, 1000000000L, offsetof(Options, txns),
	"a positive integer"},
	{O_KEYS, "--keys", NUM_INT, 1, 1000000, offsetof(Options, keys),
	"an integer from 1 to 1000000"},
	{O_MINLEN, "--min-txn-len", NUM_INT, 1, 10000, offsetof(Options, min_txn_len),
	"an integer from 1 to 10000"},
	{O_MAXLEN, "--max-txn-len", NUM_INT, 1, 10000, offsetof(Options, max_txn_len),
	"an integer from 1 to 10000"},
	{O_WPK, "--writes-per-key", NUM_INT, 0, 1000000000L, offsetof(Options, writes_per_key),
	"a non-negative integer"},
	{O_READFRAC, "--read-fraction", NUM_DOUBLE, 0, 1, offsetof(Options, read_fraction),
	"a number from 0 to 1"},
	{O_KILL, "--kill-every", NUM_DOUBLE, 0.01, 86400, offsetof(Options, kill_every),
	"a number of seconds >= 0.01"},
	{O_PROGRESS, "--progress", NUM_DOUBLE, 0, 86400, offsetof(Options, progress),
	"a number of seconds >= 0"},
	{O_LDBC_SLEEP, "--ldbc-sleep", NUM_INT, 0, 60000, offsetof(Options, ldbc_sleep_ms),
	"an integer number of milliseconds from 0 to 60000"},
};

/* Parse a into the field of o that no names; false if it is out of range. */
static bool
parse_number(const NumberOption *no, const char *a, Options *o)
{
	char	   *field = (char *) o + no->field;
	long		l;

	if (no->type == NUM_DOUBLE)
		return parse_double(a, no->min, no->max, (double *) field);
	if (!parse_long(a, (long) no->min, (long) no->max, &l))
		return false;
	if (no->type == NUM_INT)
		*(int *) field = (int) l;
	else
		*(long *) field = l;
	return true;
}

/* Options that take a number. */
static int
parse_number_option(int c, const char *a, Options *o, bool *duration_given)
{
	if (c == O_SEED)
	{
		if (!parse_seed(a, &o->seed))
			return bad_option("--seed", a, "a non-negative integer");
		o->seed_given = true;
		return 0;
	}
	for (size_t i = 0; i < sizeof(number_options) / sizeof(number_options[0]); i++)
	{
		const NumberOption *no = &number_options[i];

		if (no->id != c)
			continue;
		if (!parse_number(no, a, o))
			return bad_option(no->flag, a, no->expect);
		if (c == O_DURATION)
			*duration_given = true;
		if (c == O_CLIENTS)
			o->clients_given = true;
		return 0;
	}
	return NOT_MINE;
}

/* Options without a value: the bool each sets, and to what. */
static const struct
{
	int			id;
	size_t		field;			/* offsetof(Options, ...) */
	bool		value;
}			flag_options[] = {
	{O_NOSTORE, offsetof(Options, no_store), true},
	{O_CHECK, offsetof(Options, check), true},
	{O_QUIET, offsetof(Options, quiet), true},
	{O_NOFINAL, offsetof(Options, final_read), false},
	{O_LDBC_SCHEDULE, offsetof(Options, ldbc_schedule), true},
};

/* Options that take a name, and flags. */
static int
parse_name_or_flag(int c, const char *a, Options *o)
{
	for (size_t i = 0; i < sizeof(flag_options) / sizeof(flag_options[0]); i++)
		if (flag_options[i].id == c)
		{
			*(bool *) ((char *) o + flag_options[i].field) = flag_options[i].value;
			return 0;
		}
	switch (c)
	{
		case O_TARGET:
			o->target = a;
			return 0;
		case O_STORE:
			o->store = a;
			return 0;
		case O_NAME:
			if (!*a)
				return bad_option("--name", a, "a non-empty name");
			o->name = a;
			return 0;
		case O_TABLE:
			if (!*a || strlen(a) > 63)
				return bad_option("--table", a, "a table name of 1 to 63 characters");
			o->table = a;
			return 0;
		case O_EDN:
			o->edn = a;
			return 0;
		case O_LOAD:
			o->load = a;
			return 0;
		case O_HELP:
			usage(stdout);
			exit(0);
		case O_VERSION:
			printf("isograph-record %s\n", ISOGRAPH_VERSION);
			exit(0);
	}
	return NOT_MINE;
}

/* getopt_long's '?': an unknown option, or one without its value. */
static int
getopt_error(char **argv)
{
	const struct option *lo = NULL;

	if (optopt)
		for (lo = longopts; lo->name; lo++)
			if (lo->val == optopt)
				break;
	if (lo && lo->name)
		errmsg_out("option --%s needs a value", lo->name);
	else
		errmsg_out("unknown option \"%s\"", argv[optind - 1]);
	return usage_error();
}

static int
parse_one(int c, const char *a, Options *o, bool *duration_given)
{
	int			rc = parse_choice_option(c, a, o);

	if (rc == NOT_MINE)
		rc = parse_number_option(c, a, o, duration_given);
	if (rc == NOT_MINE)
		rc = parse_name_or_flag(c, a, o);
	return rc;
}

/* Options that cannot go together. */
static int
check_combinations(const Options *o)
{
	if (o->min_txn_len > o->max_txn_len)
	{
		errmsg_out("--min-txn-len (%d) is larger than --max-txn-len (%d)",
				   o->min_txn_len, o->max_txn_len);
		return EXIT_USAGE;
	}
	if (o->no_store && o->check)
	{
		errmsg_out("--check needs the history stored; it cannot be used with --no-store");
		return EXIT_USAGE;
	}
	if (o->no_store && !o->edn)
	{
		errmsg_out("--no-store without --edn would throw the history away");
		return EXIT_USAGE;
	}
	if (o->load && (o->no_store || o->edn || o->schedule))
	{
		errmsg_out("--load only loads a file; it cannot be used with --no-store, --edn or --schedule");
		return EXIT_USAGE;
	}
	if (!o->ldbc && (o->levels & ~(1 << o->isolation)))
	{
		errmsg_out("--isolation all runs every level of the LDBC tests; it needs --ldbc");
		return EXIT_USAGE;
	}
	if (!o->ldbc && o->ldbc_schedule)
	{
		errmsg_out("--ldbc-schedule needs --ldbc");
		return EXIT_USAGE;
	}
	if (o->ldbc && (o->load || o->schedule || o->no_store || o->edn || o->kill_every > 0))
	{
		errmsg_out("--ldbc runs its own tests and stores one history per test and level; "
				   "it cannot be used with --load, --schedule, --no-store, --edn or --kill-every");
		return EXIT_USAGE;
	}
	if (o->schedule && o->workload != WL_LIST_APPEND)
	{
		errmsg_out("--schedule replays list-append schedules; it cannot be used with "
				   "--workload rw-register");
		return EXIT_USAGE;
	}
	return 0;
}

static uint64_t
clock_seed(void)
{
	struct timespec ts;
	uint64_t	seed;

	clock_gettime(CLOCK_REALTIME, &ts);
	seed = ((uint64_t) ts.tv_sec * 1000000007ULL) ^ (uint64_t) ts.tv_nsec ^
		((uint64_t) getpid() << 32);
	return seed % 1000000000000ULL;
}

static void
default_name(Options *o)
{
	static char buf[256];
	struct timespec ts;
	struct tm	tm;
	char		seed[48] = "";

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);

	if (o->ldbc)
	{
		snprintf(buf, sizeof(buf), "ldbc %04d-%02d-%02dT%02d:%02d:%02d.%06ldZ pid %d",
				 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
				 tm.tm_sec, ts.tv_nsec / 1000, (int) getpid());
		o->name = buf;
		return;
	}
	if (!o->schedule)
		snprintf(seed, sizeof(seed), " seed %llu", (unsigned long long) o->seed);
	snprintf(buf, sizeof(buf), "%s %s %s %04d-%02d-%02dT%02d:%02d:%02d.%06ldZ%s pid %d",
			 o->schedule ? o->schedule : "record",
			 workload_kind_name(o->workload),
			 iso_name(o->isolation), tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			 tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000, seed, (int) getpid());
	o->name = buf;
}

/* The defaults that depend on other options. */
static void
complete_defaults(Options *o, bool duration_given)
{
	if (o->txns > 0 && !duration_given)
		o->duration = 0;		/* only --txns */
	if (!o->store)
	{
		o->store = o->target;
		o->store_is_target = true;
	}
	if (!o->table)
		o->table = o->workload == WL_LIST_APPEND ? "isograph_la" : "isograph_kv";
	if (o->quiet)
		o->progress = 0;
	if (!o->seed_given)
		o->seed = clock_seed();
	if (!o->name && o->load)
		o->name = o->load;		/* the file's name */
	if (o->ldbc && !o->isolation_given)
		o->levels = (1 << ISO_RC) | (1 << ISO_RR) | (1 << ISO_SER);
	if (o->ldbc && !o->clients_given)
		o->clients = 8;			/* LDBC's driver: a pool of 8 threads */
	if (!o->name)
		default_name(o);
}

int
options_parse(int argc, char **argv, Options *o)
{
	int			c;
	int			rc;
	bool		duration_given = false;

	set_defaults(o);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1)
	{
		rc = parse_one(c, optarg, o, &duration_given);
		if (rc == NOT_MINE)
			return getopt_error(argv);
		if (rc != 0)
			return rc;
	}
	if (optind < argc)
	{
		errmsg_out("unexpected argument \"%s\"", argv[optind]);
		return usage_error();
	}
	rc = check_combinations(o);
	if (rc != 0)
		return rc;
	complete_defaults(o, duration_given);
	return 0;
}

const char *
workload_kind_name(WorkloadKind k)
{
	return k == WL_LIST_APPEND ? "list-append" : "rw-register";
}
