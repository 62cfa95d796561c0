/*
 * session.h: the randomized run's shared state (RunState) and its client
 * sessions, one thread and one connection each.
 */
#ifndef ISOGRAPH_RECORD_SESSION_H
#define ISOGRAPH_RECORD_SESSION_H

#include "history.h"
#include "options.h"
#include "workload.h"

#include <pthread.h>

typedef struct RunState
{
	const Options *opt;
	History    *hist;
	Workload   *wl;
	volatile int stop;			/* set by the main thread */
	volatile int fatal;			/* set by a session on an unexpected error */
	pthread_mutex_t mu;
	char		fatal_msg[512];
	long		started;		/* transactions handed out (for --txns) */
	int		   *backend_pids;	/* per session, for the nemesis */
} RunState;

typedef struct Session
{
	RunState   *rs;
	int			id;
	int64_t		process;
	uint64_t	rng;
	PGconn	   *conn;
} Session;

/* The thread of one session (arg: its Session). */
void	   *session_main(void *arg);

/* Stop the run with this message (the first one wins). */
void		run_fatal(RunState *rs, const char *fmt,...) __attribute__((format(printf, 2, 3)));

#endif
