/*
 * record.c: isograph-record's main program: options, the run (sessions,
 * optional nemesis, progress), the final read, and storing the history.
 * See --help, and docs/testing-live.md.
 */
#include "record.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
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
		  "  --isolation LEVEL       read-committed, repeatable-read or serializable (default)\n"
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
		  "Output:\n"
		  "  --name NAME             name of the stored history (default: generated, unique)\n"
		  "  --edn FILE              also write the history as a Jepsen EDN file ('-' = stdout)\n"
		  "  --no-store              do not store the history (use with --edn)\n"
		  "  --check                 after storing, print SELECT * FROM iso_levels(id)\n"
		  "  --progress SECONDS      progress line on stderr every SECONDS (default 1; 0 = off)\n"
		  "  --quiet                 no progress lines\n"
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
	O_HELP, O_VERSION
};

static int
bad_option(const char *opt, const char *val, const char *expect)
{
	errmsg_out("invalid value \"%s\" for %s: expected %s", val, opt, expect);
	fputs("Try \"isograph-record --help\" for more information.\n", stderr);
	return EXIT_USAGE;
}

static int
parse_options(int argc, char **argv, Options *o)
{
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
		{"help", no_argument, NULL, O_HELP},
		{"version", no_argument, NULL, O_VERSION},
		{NULL, 0, NULL, 0}
	};
	int			c;
	long		l;
	bool		duration_given = false;

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

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1)
	{
		const char *a = optarg;

		switch (c)
		{
			case O_TARGET:
				o->target = a;
				break;
			case O_STORE:
				o->store = a;
				break;
			case O_ISOLATION:
				if (strcmp(a, "read-committed") == 0 || strcasecmp(a, "read committed") == 0)
					o->isolation = ISO_RC;
				else if (strcmp(a, "repeatable-read") == 0 || strcasecmp(a, "repeatable read") == 0)
					o->isolation = ISO_RR;
				else if (strcmp(a, "serializable") == 0)
					o->isolation = ISO_SER;
				else
					return bad_option("--isolation", a,
									  "read-committed, repeatable-read or serializable");
				break;
			case O_WORKLOAD:
				if (strcmp(a, "list-append") == 0)
					o->workload = WL_LIST_APPEND;
				else if (strcmp(a, "rw-register") == 0)
					o->workload = WL_RW_REGISTER;
				else
					return bad_option("--workload", a, "list-append or rw-register");
				break;
			case O_CLIENTS:
				if (!parse_long(a, 1, 1000, &l))
					return bad_option("--clients", a, "an integer from 1 to 1000");
				o->clients = (int) l;
				break;
			case O_DURATION:
				if (!parse_double(a, 0.001, 86400 * 7, &o->duration))
					return bad_option("--duration", a, "a number of seconds > 0");
				duration_given = true;
				break;
			case O_TXNS:
				if (!parse_long(a, 1, 1000000000L, &o->txns))
					return bad_option("--txns", a, "a positive integer");
				break;
			case O_SEED:
				{
					char	   *end;

					errno = 0;
					o->seed = strtoull(a, &end, 10);
					if (errno || end == a || *end || *a == '-')
						return bad_option("--seed", a, "a non-negative integer");
					o->seed_given = true;
				}
				break;
			case O_NAME:
				if (!*a)
					return bad_option("--name", a, "a non-empty name");
				o->name = a;
				break;
			case O_KEYS:
				if (!parse_long(a, 1, 1000000, &l))
					return bad_option("--keys", a, "an integer from 1 to 1000000");
				o->keys = (int) l;
				break;
			case O_MINLEN:
				if (!parse_long(a, 1, 10000, &l))
					return bad_option("--min-txn-len", a, "an integer from 1 to 10000");
				o->min_txn_len = (int) l;
				break;
			case O_MAXLEN:
				if (!parse_long(a, 1, 10000, &l))
					return bad_option("--max-txn-len", a, "an integer from 1 to 10000");
				o->max_txn_len = (int) l;
				break;
			case O_WPK:
				if (!parse_long(a, 0, 1000000000L, &l))
					return bad_option("--writes-per-key", a, "a non-negative integer");
				o->writes_per_key = (int) l;
				break;
			case O_READFRAC:
				if (!parse_double(a, 0, 1, &o->read_fraction))
					return bad_option("--read-fraction", a, "a number from 0 to 1");
				break;
			case O_WORDER:
				if (strcmp(a, "ascending") == 0)
					o->ascending_writes = true;
				else if (strcmp(a, "random") == 0)
					o->ascending_writes = false;
				else
					return bad_option("--write-order", a, "ascending or random");
				break;
			case O_TABLE:
				if (!*a || strlen(a) > 63)
					return bad_option("--table", a, "a table name of 1 to 63 characters");
				o->table = a;
				break;
			case O_EDN:
				o->edn = a;
				break;
			case O_NOSTORE:
				o->no_store = true;
				break;
			case O_CHECK:
				o->check = true;
				break;
			case O_SCHEDULE:
				if (strcmp(a, "lost-update") && strcmp(a, "read-skew") && strcmp(a, "write-skew"))
					return bad_option("--schedule", a, "lost-update, read-skew or write-skew");
				o->schedule = a;
				break;
			case O_KILL:
				if (!parse_double(a, 0.01, 86400, &o->kill_every))
					return bad_option("--kill-every", a, "a number of seconds >= 0.01");
				break;
			case O_PROGRESS:
				if (!parse_double(a, 0, 86400, &o->progress))
					return bad_option("--progress", a, "a number of seconds >= 0");
				break;
			case O_QUIET:
				o->quiet = true;
				break;
			case O_NOFINAL:
				o->final_read = false;
				break;
			case O_HELP:
				usage(stdout);
				exit(0);
			case O_VERSION:
				printf("isograph-record %s\n", RECORD_VERSION);
				exit(0);
			default:
				if (optopt)
				{
					const struct option *lo;

					for (lo = longopts; lo->name; lo++)
						if (lo->val == optopt)
							break;
					if (lo->name)
						errmsg_out("option --%s needs a value", lo->name);
					else
						errmsg_out("unknown option \"%s\"", argv[optind - 1]);
				}
				else
					errmsg_out("unknown option \"%s\"", argv[optind - 1]);
				fputs("Try \"isograph-record --help\" for more information.\n", stderr);
				return EXIT_USAGE;
		}
	}
	if (optind < argc)
	{
		errmsg_out("unexpected argument \"%s\"", argv[optind]);
		fputs("Try \"isograph-record --help\" for more information.\n", stderr);
		return EXIT_USAGE;
	}
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
	if (o->schedule && o->workload != WL_LIST_APPEND)
	{
		errmsg_out("--schedule replays list-append schedules; it cannot be used with "
				   "--workload rw-register");
		return EXIT_USAGE;
	}
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
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		o->seed = ((uint64_t) ts.tv_sec * 1000000007ULL) ^ (uint64_t) ts.tv_nsec ^
			((uint64_t) getpid() << 32);
		o->seed %= 1000000000000ULL;
	}
	return 0;
}

static void
sleep_s(double s)
{
	struct timespec ts;

	ts.tv_sec = (time_t) s;
	ts.tv_nsec = (long) ((s - (double) ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* ---- nemesis: terminate a random session's backend now and then ---- */

typedef struct Nemesis
{
	RunState   *rs;
	PGconn	   *conn;
	long		kills;
	uint64_t	rng;
} Nemesis;

static void *
nemesis_main(void *arg)
{
	Nemesis    *n = arg;
	RunState   *rs = n->rs;
	double		waited = 0;

	while (!rs->stop && !rs->fatal)
	{
		int			sid,
					pid;
		char		sql[128];
		PGresult   *r;

		sleep_s(0.01);
		waited += 0.01;
		if (waited + 1e-9 < rs->opt->kill_every)
			continue;
		waited = 0;
		sid = (int) (rng_next(&n->rng) % (uint64_t) rs->opt->clients);
		pid = rs->backend_pids[sid];
		if (pid == 0)
			continue;
		snprintf(sql, sizeof(sql), "SELECT pg_catalog.pg_terminate_backend(%d)", pid);
		r = PQexec(n->conn, sql);
		if (PQresultStatus(r) == PGRES_TUPLES_OK && strcmp(PQgetvalue(r, 0, 0), "t") == 0)
			n->kills++;
		else if (PQresultStatus(r) != PGRES_TUPLES_OK)
			errmsg_out("nemesis: %s", PQerrorMessage(n->conn));
		PQclear(r);
	}
	return NULL;
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

	if (!o->schedule)
		snprintf(seed, sizeof(seed), " seed %llu", (unsigned long long) o->seed);
	snprintf(buf, sizeof(buf), "%s %s %s %04d-%02d-%02dT%02d:%02d:%02d.%06ldZ%s pid %d",
			 o->schedule ? o->schedule : "record",
			 o->workload == WL_LIST_APPEND ? "list-append" : "rw-register",
			 iso_name(o->isolation), tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			 tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000, seed, (int) getpid());
	o->name = buf;
}

static void
print_counts(FILE *f, History *h)
{
	long		ok,
				fail,
				info;

	history_counts(h, &ok, &fail, &info);
	fprintf(f, "transactions: %ld (ok %ld, fail %ld, info %ld)", ok + fail + info, ok, fail, info);
	if (h->ncodes > 0)
	{
		fputs("; fail causes:", f);
		for (int i = 0; i < h->ncodes; i++)
			fprintf(f, "%s %s %ld", i ? "," : "", h->codes[i], h->code_n[i]);
	}
	fputc('\n', f);
}

/* The randomized run.  Returns 0 or an exit status. */
static int
random_run(Options *o, History *h, Workload **wl_out, int *server_version, long *kills)
{
	char		err[512];
	PGconn	   *admin = connect_db(o->target, "isograph-record-admin", err, sizeof(err));
	RunState	rs;
	Session    *ss;
	pthread_t  *th;
	pthread_t	nth;
	Nemesis		nem = {0};
	Workload   *wl;
	double		next_progress;
	int64_t		max_process;

	if (!admin)
	{
		errmsg_out("cannot connect to the target database: %s", err);
		return EXIT_RUNTIME;
	}
	*server_version = PQserverVersion(admin);
	wl = workload_new(o, admin);
	*wl_out = wl;
	if (!workload_setup_table(wl))
		return EXIT_RUNTIME;

	memset(&rs, 0, sizeof(rs));
	rs.opt = o;
	rs.hist = h;
	rs.wl = wl;
	pthread_mutex_init(&rs.mu, NULL);
	rs.backend_pids = xmalloc(sizeof(int) * o->clients);
	ss = xmalloc(sizeof(Session) * o->clients);
	th = xmalloc(sizeof(pthread_t) * o->clients);
	history_init(h);
	for (int i = 0; i < o->clients; i++)
	{
		ss[i].rs = &rs;
		ss[i].id = i;
		ss[i].process = i;
		ss[i].rng = o->seed * 0x100000001B3ULL + (uint64_t) i * 0x9E3779B97F4A7C15ULL + 1;
		if (pthread_create(&th[i], NULL, session_main, &ss[i]) != 0)
		{
			errmsg_out("cannot start a thread");
			exit(EXIT_RUNTIME);
		}
	}
	if (o->kill_every > 0)
	{
		nem.rs = &rs;
		nem.rng = o->seed ^ 0xDEADBEEFULL;
		nem.conn = connect_db(o->target, "isograph-record-nemesis", err, sizeof(err));
		if (!nem.conn)
		{
			run_fatal(&rs, "nemesis cannot connect to the target: %s", err);
		}
		else if (pthread_create(&nth, NULL, nemesis_main, &nem) != 0)
		{
			errmsg_out("cannot start a thread");
			exit(EXIT_RUNTIME);
		}
	}

	next_progress = o->progress;
	for (;;)
	{
		double		t = (double) history_now(h) / 1e9;
		long		started;

		if (rs.fatal)
			break;
		if (o->duration > 0 && t >= o->duration)
			break;
		pthread_mutex_lock(&rs.mu);
		started = rs.started;
		pthread_mutex_unlock(&rs.mu);
		if (o->txns > 0 && started >= o->txns)
		{
			long		ok,
						fail,
						info;

			history_counts(h, &ok, &fail, &info);
			if (ok + fail + info >= o->txns)
				break;
		}
		if (o->progress > 0 && t >= next_progress)
		{
			long		ok,
						fail,
						info;

			history_counts(h, &ok, &fail, &info);
			fprintf(stderr, "[%7.1fs] %ld transactions done: ok %ld, fail %ld, info %ld\n",
					t, ok + fail + info, ok, fail, info);
			next_progress += o->progress;
		}
		sleep_s(0.02);
	}
	rs.stop = 1;
	for (int i = 0; i < o->clients; i++)
		pthread_join(th[i], NULL);
	if (o->kill_every > 0 && nem.conn)
	{
		pthread_join(nth, NULL);
		PQfinish(nem.conn);
		*kills = nem.kills;
	}
	if (rs.fatal)
	{
		errmsg_out("%s", rs.fatal_msg);
		return EXIT_RUNTIME;
	}
	max_process = 0;
	for (int i = 0; i < o->clients; i++)
		if (ss[i].process > max_process)
			max_process = ss[i].process;
	if (o->final_read)
	{
		if (PQstatus(admin) != CONNECTION_OK)
			PQreset(admin);
		if (!workload_final_read(wl, admin, h, max_process + 1))
		{
			errmsg_out("the final read of every key failed");
			return EXIT_RUNTIME;
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	Options		o;
	History		h;
	int			rc;
	PGconn	   *store = NULL;
	char		schema[256] = "";
	Workload   *wl = NULL;
	int			server_version = 0;
	long		kills = 0;
	int64_t		id;
	char		meta[1024];
	double		secs;
	long		ok,
				fail,
				info;

	setvbuf(stdout, NULL, _IOLBF, 0);
	rc = parse_options(argc, argv, &o);
	if (rc)
		return rc;
	if (!o.name)
		default_name(&o);

	if (!o.no_store)
	{
		store = store_connect(&o, schema, sizeof(schema));
		if (!store)
			return EXIT_RUNTIME;
		if (!store_name_free(store, schema, o.name))
			return EXIT_RUNTIME;
	}

	history_init(&h);
	if (o.schedule)
		rc = schedule_run(&o, &h);
	else
		rc = random_run(&o, &h, &wl, &server_version, &kills);
	secs = (double) history_now(&h) / 1e9;
	if (rc != 0)
	{
		if (o.edn && h.nevents > 0)
			edn_write(o.edn, &h, o.workload);
		return rc;
	}

	if (o.edn && !edn_write(o.edn, &h, o.workload))
		return EXIT_RUNTIME;

	if (o.schedule)
		printf("schedule %s at %s: %zu records\n", o.schedule, iso_name(o.isolation), h.nevents);
	else
		printf("%s at %s: %d clients, %.1f s, seed %llu, %d hot keys%s\n",
			   o.workload == WL_LIST_APPEND ? "list-append" : "rw-register",
			   iso_name(o.isolation), o.clients, secs, (unsigned long long) o.seed, o.keys,
			   o.kill_every > 0 ? "" : "");
	if (o.kill_every > 0)
		printf("nemesis: %ld backends terminated\n", kills);
	print_counts(stdout, &h);
	if (o.edn && strcmp(o.edn, "-") != 0)
		printf("EDN history written to %s\n", o.edn);
	if (o.no_store)
		return 0;

	history_counts(&h, &ok, &fail, &info);
	snprintf(meta, sizeof(meta),
			 "{\"recorder\": \"isograph-record %s\", \"isolation\": \"%s\", \"clients\": %d, "
			 "\"seconds\": %.3f, \"seed\": %llu, \"keys\": %d, \"schedule\": %s%s%s, "
			 "\"server_version_num\": %d, \"write_order\": \"%s\", \"kills\": %ld, "
			 "\"ok\": %ld, \"fail\": %ld, \"info\": %ld}",
			 RECORD_VERSION, iso_name(o.isolation), o.schedule ? 2 : o.clients, secs,
			 (unsigned long long) o.seed, o.keys, o.schedule ? "\"" : "",
			 o.schedule ? o.schedule : "null", o.schedule ? "\"" : "", server_version,
			 o.ascending_writes ? "ascending" : "random", kills, ok, fail, info);
	id = store_history(store, schema, &o, &h, wl, meta);
	if (id < 0)
		return EXIT_RUNTIME;
	printf("stored history \"%s\" as history_id %lld in database %s\n", o.name,
		   (long long) id, PQdb(store));
	if (o.check)
	{
		fflush(stdout);
		if (!store_print_levels(store, schema, id, stdout))
			return EXIT_RUNTIME;
	}
	PQfinish(store);
	printf("%lld\n", (long long) id);
	return 0;
}
