/*
 * nemesis.c: fault injection (--kill-every): every so many seconds a thread
 * terminates the backend of a random session with pg_terminate_backend, on
 * a connection of its own.  The session sees its connection lost: its
 * transaction in flight is info, and it goes on as a new process.
 */
#include "nemesis.h"

#include "rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Terminate the backend of a random session, if it has one now. */
static void
kill_one(Nemesis *n)
{
	RunState   *rs = n->rs;
	int			sid = (int) (rng_next(&n->rng) % (uint64_t) rs->opt->clients);
	int			pid = rs->backend_pids[sid];
	char		sql[128];
	PGresult   *r;

	if (pid == 0)
		return;
	snprintf(sql, sizeof(sql), "SELECT pg_catalog.pg_terminate_backend(%d)", pid);
	r = PQexec(n->conn, sql);
	if (PQresultStatus(r) == PGRES_TUPLES_OK && strcmp(PQgetvalue(r, 0, 0), "t") == 0)
		n->kills++;
	else if (PQresultStatus(r) != PGRES_TUPLES_OK)
		errmsg_out("nemesis: %s", PQerrorMessage(n->conn));
	PQclear(r);
}

static void *
nemesis_main(void *arg)
{
	Nemesis    *n = arg;
	RunState   *rs = n->rs;
	double		waited = 0;

	/* short sleeps, so the run's end is not kept waiting */
	while (!rs->stop && !rs->fatal)
	{
		sleep_s(0.01);
		waited += 0.01;
		if (waited + 1e-9 < rs->opt->kill_every)
			continue;
		waited = 0;
		kill_one(n);
	}
	return NULL;
}

void
nemesis_start(Nemesis *n, RunState *rs)
{
	const Options *o = rs->opt;
	char		err[512];

	memset(n, 0, sizeof(*n));
	if (o->kill_every <= 0)
		return;
	n->rs = rs;
	n->rng = o->seed ^ 0xDEADBEEFULL;
	n->conn = connect_db(o->target, "isograph-record-nemesis", err, sizeof(err));
	if (!n->conn)
		run_fatal(rs, "nemesis cannot connect to the target: %s", err);
	else if (pthread_create(&n->thread, NULL, nemesis_main, n) != 0)
	{
		errmsg_out("cannot start a thread");
		exit(EXIT_RUNTIME);
	}
}

long
nemesis_stop(Nemesis *n)
{
	if (n->conn)
	{
		pthread_join(n->thread, NULL);
		PQfinish(n->conn);
		n->conn = NULL;
	}
	return n->kills;
}
