/*
 * store.h: storing the history in isograph's tables on the store database,
 * and printing iso_levels for --check.
 */
#ifndef ISOGRAPH_RECORD_STORE_H
#define ISOGRAPH_RECORD_STORE_H

#include "history.h"
#include "options.h"

#include <stdio.h>

/* Connect; schema gets the extension's schema, quoted. */
PGconn	   *store_connect(const Options *o, char *schema, size_t schemalen);
bool		store_name_free(PGconn *c, const char *schema, const char *name);
/* Returns the new history_id, or -1 (the message is printed). */
int64_t		store_history(PGconn *c, const char *schema, const Options *o, History *h,
						  const char *metadata);
/*
 * --load: stream the EDN file o->load into iso_jepsen_input after
 * iso_begin_load(o->name, workload); returns the history_id, or -1.
 */
int64_t		store_load_file(PGconn *c, const char *schema, const Options *o);
bool		store_print_levels(PGconn *c, const char *schema, int64_t id, FILE *out);

#endif
