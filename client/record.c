/*
 * record.c: isograph-record's main program.  It tests a live
 * PostgreSQL-protocol server with list-append or rw-register transactions,
 * records the history it observed, and stores it in isograph's tables.
 * Here: the randomized run (sessions, nemesis, progress lines, the final
 * read), the summary, and storing.  See --help.
 *
 * Files (each with its header):
 *   options.c        the command line
 *   common.c         what all share: messages, memory, libpq helpers,
 *                    isolation levels, bigint[] text, sleeping
 *   history.c        the in-memory history (invoke/completion records, indices)
 *   workload.c       workload table, key pool, random transactions, final read
 *   session.c        one client session (thread): run transactions, classify errors
 *   nemesis.c        --kill-every: terminate sessions' backends
 *   schedule.c       --schedule: deterministic step-by-step schedules
 *   ldbc.c           --ldbc: the LDBC SNB ACID tests, checked by LDBC and isograph
 *   version_order.c  rw-register: each key's version order, from RETURNING prev
 *   store.c          COPY the history into the store database, run iso_levels
 *   edn_out.c        Jepsen EDN writer
 *   rng.h            the random numbers (splitmix64)
 */
#include "edn_out.h"
#include "ldbc.h"
#include "nemesis.h"
#include "options.h"
#include "schedule.h"
#include "session.h"
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* One thread per session, each with its own process number and random seed. */
static Session *
start_sessions(RunState *rs, pthread_t *th)
{
	const Options *o = rs->opt;
	Session    *ss = xmalloc(sizeof(Session) * o->clients);

	for (int i = 0; i < o->clients; i++)
	{
		ss[i].rs = rs;
		ss[i].id = i;
		ss[i].process = i;
		ss[i].rng = o->seed * 0x100000001B3ULL + (uint64_t) i * 0x9E3779B97F4A7C15ULL + 1;
		if (pthread_create(&th[i], NULL, session_main, &ss[i]) != 0)
		{
			errmsg_out("cannot start a thread");
			exit(EXIT_RUNTIME);
		}
	}
	return ss;
}

/* With --txns: have that many transactions been handed out and finished? */
static bool
txns_done(RunState *rs)
{
	long		started,
				ok,
				fail,
				info;

	if (rs->opt->txns <= 0)
		return false;
	pthread_mutex_lock(&rs->mu);
	started = rs->started;
	pthread_mutex_unlock(&rs->mu);
	if (started < rs->opt->txns)
		return false;
	history_counts(rs->hist, &ok, &fail, &info);
	return ok + fail + info >= rs->opt->txns;
}

/* Until --duration, --txns or a fatal error; progress lines on the way. */
static void
wait_for_end(RunState *rs)
{
	const Options *o = rs->opt;
	double		next_progress = o->progress;

	for (;;)
	{
		double		t = (double) history_now(rs->hist) / 1e9;

		if (rs->fatal)
			break;
		if (o->duration > 0 && t >= o->duration)
			break;
		if (txns_done(rs))
			break;
		if (o->progress > 0 && t >= next_progress)
		{
			long		ok,
						fail,
						info;

			history_counts(rs->hist, &ok, &fail, &info);
			fprintf(stderr, "[%7.1fs] %ld transactions done: ok %ld, fail %ld, info %ld\n",
					t, ok + fail + info, ok, fail, info);
			next_progress += o->progress;
		}
		sleep_s(0.02);
	}
}

/* The highest process number the sessions used. */
static int64_t
max_process(const Session *ss, int n)
{
	int64_t		m = 0;

	for (int i = 0; i < n; i++)
		if (ss[i].process > m)
			m = ss[i].process;
	return m;
}

/* The randomized run on the target.  Returns 0 or an exit status. */
static int
random_run(Options *o, History *h, int *server_version, long *kills)
{
	char		err[512];
	PGconn	   *admin = connect_db(o->target, "isograph-record-admin", err, sizeof(err));
	RunState	rs;
	Session    *ss;
	pthread_t  *th;
	Nemesis		nem;
	Workload   *wl;

	if (!admin)
	{
		errmsg_out("cannot connect to the target database: %s", err);
		return EXIT_RUNTIME;
	}
	*server_version = PQserverVersion(admin);
	wl = workload_new(o, admin);
	if (!workload_setup_table(wl))
		return EXIT_RUNTIME;

	memset(&rs, 0, sizeof(rs));
	rs.opt = o;
	rs.hist = h;
	rs.wl = wl;
	pthread_mutex_init(&rs.mu, NULL);
	rs.backend_pids = xmalloc(sizeof(int) * o->clients);
	th = xmalloc(sizeof(pthread_t) * o->clients);
	history_init(h);
	ss = start_sessions(&rs, th);
	nemesis_start(&nem, &rs);
	wait_for_end(&rs);
	rs.stop = 1;
	for (int i = 0; i < o->clients; i++)
		pthread_join(th[i], NULL);
	*kills = nemesis_stop(&nem);
	if (rs.fatal)
	{
		errmsg_out("%s", rs.fatal_msg);
		return EXIT_RUNTIME;
	}
	if (o->final_read)
	{
		if (PQstatus(admin) != CONNECTION_OK)
			PQreset(admin);
		if (!workload_final_read(wl, admin, h, max_process(ss, o->clients) + 1))
		{
			errmsg_out("the final read of every key failed");
			return EXIT_RUNTIME;
		}
	}
	return 0;
}

/* What the run was, as iso_history.metadata (JSON). */
static void
run_metadata(char *buf, size_t len, const Options *o, History *h, double secs,
			 int server_version, long kills)
{
	long		ok,
				fail,
				info;

	history_counts(h, &ok, &fail, &info);
	snprintf(buf, len,
			 "{\"recorder\": \"isograph-record %s\", \"isolation\": \"%s\", \"clients\": %d, "
			 "\"seconds\": %.3f, \"seed\": %llu, \"keys\": %d, \"schedule\": %s%s%s, "
			 "\"server_version_num\": %d, \"write_order\": \"%s\", \"kills\": %ld, "
			 "\"ok\": %ld, \"fail\": %ld, \"info\": %ld}",
			 ISOGRAPH_VERSION, iso_name(o->isolation), o->schedule ? 2 : o->clients, secs,
			 (unsigned long long) o->seed, o->keys, o->schedule ? "\"" : "",
			 o->schedule ? o->schedule : "null", o->schedule ? "\"" : "", server_version,
			 o->ascending_writes ? "ascending" : "random", kills, ok, fail, info);
}

static void
print_summary(const Options *o, History *h, double secs, long kills)
{
	if (o->schedule)
		printf("schedule %s at %s: %zu records\n", o->schedule, iso_name(o->isolation),
			   h->nevents);
	else
		printf("%s at %s: %d clients, %.1f s, seed %llu, %d hot keys\n",
			   workload_kind_name(o->workload), iso_name(o->isolation), o->clients, secs,
			   (unsigned long long) o->seed, o->keys);
	if (o->kill_every > 0)
		printf("nemesis: %ld backends terminated\n", kills);
	print_counts(stdout, h);
	if (o->edn && strcmp(o->edn, "-") != 0)
		printf("EDN history written to %s\n", o->edn);
}

/* Store the history, then --check; 0 or an exit status. */
static int
store_and_check(PGconn *store, const char *schema, const Options *o, History *h,
				const char *meta)
{
	int64_t		id = store_history(store, schema, o, h, meta);

	if (id < 0)
		return EXIT_RUNTIME;
	printf("stored history \"%s\" as history_id %lld in database %s\n", o->name,
		   (long long) id, PQdb(store));
	if (o->check)
	{
		fflush(stdout);
		if (!store_print_levels(store, schema, id, stdout))
			return EXIT_RUNTIME;
	}
	PQfinish(store);
	printf("%lld\n", (long long) id);
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
	int			server_version = 0;
	long		kills = 0;
	char		meta[1024];
	double		secs;

	setvbuf(stdout, NULL, _IOLBF, 0);
	rc = options_parse(argc, argv, &o);
	if (rc)
		return rc;

	if (o.ldbc)
		return ldbc_run(&o);

	if (o.load)
	{
		int64_t		id;

		store = store_connect(&o, schema, sizeof(schema));
		if (!store || !store_name_free(store, schema, o.name))
			return EXIT_RUNTIME;
		id = store_load_file(store, schema, &o);
		if (id < 0)
			return EXIT_RUNTIME;
		printf("loaded history \"%s\" from %s as history_id %lld in database %s\n",
			   o.name, o.load, (long long) id, PQdb(store));
		if (o.check && !store_print_levels(store, schema, id, stdout))
			return EXIT_RUNTIME;
		PQfinish(store);
		printf("%lld\n", (long long) id);
		return 0;
	}

	/* the store and the name are checked before the run, not after it */
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
		rc = random_run(&o, &h, &server_version, &kills);
	secs = (double) history_now(&h) / 1e9;
	if (rc != 0)
	{
		if (o.edn && h.nevents > 0)
			edn_write(o.edn, &h, o.workload);
		return rc;
	}
	if (o.edn && !edn_write(o.edn, &h, o.workload))
		return EXIT_RUNTIME;
	print_summary(&o, &h, secs, kills);
	if (o.no_store)
		return 0;
	run_metadata(meta, sizeof(meta), &o, &h, secs, server_version, kills);
	return store_and_check(store, schema, &o, &h, meta);
}
