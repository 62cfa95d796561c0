/*
 * isograph.c
 *	  Module entry point: magic block and settings (GUCs).
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/guc.h"

#include "isograph.h"

PG_MODULE_MAGIC;

/* Settings; see the README's "Settings" section. */
bool		iso_assume_sequential_keys = false;
bool		iso_assume_linearizable_keys = false;
int			iso_max_witnesses = 3;
int			iso_max_memory_mb = 4096;
bool		iso_use_image = true;

void		_PG_init(void);

void
_PG_init(void)
{
	DefineCustomBoolVariable("isograph.assume_sequential_keys",
							 "Assume session order orders each key's register writes.",
							 "When on, for two committed transactions of one process, the earlier one's write of a key is taken as the older version.",
							 &iso_assume_sequential_keys,
							 false, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("isograph.assume_linearizable_keys",
							 "Assume real-time order orders each key's register writes.",
							 "When on, if T1 completed before T2 was invoked, T1's write of a key is taken as the older version.",
							 &iso_assume_linearizable_keys,
							 false, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("isograph.max_witnesses",
							"Most witness cycles iso_check reports per anomaly and history.",
							"Valid range is 1..10000.",
							&iso_max_witnesses,
							3, 1, 10000, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("isograph.max_memory",
							"Most memory one graph build or check may use.",
							"Valid range is 16MB..1TB.",
							&iso_max_memory_mb,
							4096, 16, 1024 * 1024, PGC_USERSET, GUC_UNIT_MB,
							NULL, NULL, NULL);
	DefineCustomBoolVariable("isograph.use_image",
							 "Let checks read a history's stored image instead of its events.",
							 "Off makes every check read iso_event (for comparison or diagnosis).",
							 &iso_use_image,
							 true, PGC_USERSET, 0, NULL, NULL, NULL);
	MarkGUCPrefixReserved("isograph");
}
