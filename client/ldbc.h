/*
 * ldbc.h: --ldbc: the LDBC SNB ACID tests (G0, G1a, G1b, G1c, IMP, PMP,
 * OTV, FR, LU, WS) on PostgreSQL tables shaped like the tests' graph,
 * each run checked by the test's own check and by isograph.
 */
#ifndef ISOGRAPH_RECORD_LDBC_H
#define ISOGRAPH_RECORD_LDBC_H

#include "options.h"

/* Exit status when a verdict disagrees unexplained or a guarantee is broken. */
#define EXIT_LDBC_VIOLATION 3

/* Is a one of the test names (any case) or "all"? */
bool		ldbc_test_name_ok(const char *a);

/* Run o->ldbc at every level in o->levels; 0 or an exit status. */
int			ldbc_run(const Options *o);

#endif
