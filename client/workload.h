/*
 * workload.h: the workload on the target: its table, the pool of hot keys,
 * the random transactions, and the final read of every key.
 */
#ifndef ISOGRAPH_RECORD_WORKLOAD_H
#define ISOGRAPH_RECORD_WORKLOAD_H

#include "history.h"
#include "options.h"

typedef struct Workload Workload;

Workload   *workload_new(const Options *o, PGconn *admin);
bool		workload_setup_table(Workload *w);
Txn		   *workload_gen(Workload *w, uint64_t *rng, int64_t process, char *err,
						 size_t errlen);
int64_t		workload_max_key(Workload *w);
const char *workload_table(Workload *w);
bool		workload_final_read(Workload *w, PGconn *conn, History *h, int64_t process);

#endif
