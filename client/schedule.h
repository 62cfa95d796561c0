/*
 * schedule.h: deterministic schedules (--schedule), replayed step by step.
 */
#ifndef ISOGRAPH_RECORD_SCHEDULE_H
#define ISOGRAPH_RECORD_SCHEDULE_H

#include "history.h"
#include "options.h"

/* Replay o->schedule into h; 0 or an exit status. */
int			schedule_run(const Options *o, History *h);

#endif
