/*
 * edn_out.h: the history as a Jepsen EDN file (--edn).
 */
#ifndef ISOGRAPH_RECORD_EDN_OUT_H
#define ISOGRAPH_RECORD_EDN_OUT_H

#include "history.h"
#include "options.h"

/* path "-" = standard output */
bool		edn_write(const char *path, History *h, WorkloadKind wk);

#endif
