/*
 * options.h: isograph-record's command line, parsed into Options.
 */
#ifndef ISOGRAPH_RECORD_OPTIONS_H
#define ISOGRAPH_RECORD_OPTIONS_H

#include "common.h"

typedef enum
{
	WL_LIST_APPEND,
	WL_RW_REGISTER
} WorkloadKind;

typedef struct Options
{
	const char *target;
	const char *store;
	bool		store_is_target;	/* --store not given */
	IsoLevel	isolation;
	WorkloadKind workload;
	int			clients;
	double		duration;
	long		txns;
	uint64_t	seed;
	bool		seed_given;
	const char *name;
	int			keys;
	int			min_txn_len;
	int			max_txn_len;
	int			writes_per_key;
	double		read_fraction;
	bool		ascending_writes;
	const char *table;
	const char *edn;
	bool		no_store;
	bool		check;
	const char *schedule;
	double		kill_every;
	double		progress;
	bool		quiet;
	bool		final_read;
	const char *load;			/* --load FILE: load an EDN file, run nothing */
	bool		workload_given;
	/* --ldbc: the LDBC SNB ACID tests (ldbc.c) */
	const char *ldbc;			/* a test name or "all"; NULL = not an LDBC run */
	int			levels;			/* bit (1 << IsoLevel) per level to run */
	bool		isolation_given;
	bool		clients_given;
	int			ldbc_sleep_ms;	/* the tests' sleeps (LDBC: 250 ms) */
	bool		ldbc_schedule;	/* fixed two-session interleavings instead */
} Options;

/* Fill o from argv; 0, or the exit status (--help and --version exit 0). */
int			options_parse(int argc, char **argv, Options *o);

/* list-append or rw-register, as --workload and iso_history.workload name it */
const char *workload_kind_name(WorkloadKind k);

#endif
