/*
 * nemesis.h: fault injection (--kill-every): a thread that terminates a
 * random session's backend every so often.
 */
#ifndef ISOGRAPH_RECORD_NEMESIS_H
#define ISOGRAPH_RECORD_NEMESIS_H

#include "session.h"

typedef struct Nemesis
{
	RunState   *rs;
	PGconn	   *conn;
	pthread_t	thread;
	long		kills;
	uint64_t	rng;
} Nemesis;

/* Start it, unless --kill-every is off; a failure stops the run. */
void		nemesis_start(Nemesis *n, RunState *rs);

/* After the sessions stopped: end it; returns the backends it terminated. */
long		nemesis_stop(Nemesis *n);

#endif
