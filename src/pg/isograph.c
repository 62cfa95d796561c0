/*
 * isograph.c
 *	  Module entry point: magic block and settings (GUCs).
 */
#include "postgres.h"

#include "access/xact.h"
#include "fmgr.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "isograph.h"

PG_MODULE_MAGIC;

/* Settings; see the README's "Settings" section. */
bool		iso_assume_sequential_keys = false;
bool		iso_assume_linearizable_keys = false;
int			iso_max_witnesses = 3;
int			iso_search_timeout_ms = 60000;
int			iso_max_memory_mb = 4096;
bool		iso_use_image = true;
bool		iso_save_image_on_check = true;
bool		iso_parallel_inference = true;

void		_PG_init(void);

/*
 * Settings and parallel queries.
 *
 * Without shared_preload_libraries, a session's "SET isograph.x" (or ALTER
 * ROLE/DATABASE ... SET) before the library is loaded creates a placeholder,
 * and the DefineCustom*Variable calls below replace it and apply its value.
 * PostgreSQL cannot apply it during a parallel operation ("cannot set
 * parameters during a parallel operation", a WARNING) and the setting then
 * silently keeps its default: in a parallel worker that loads the library
 * for a parallel-safe function, and in the leader too, which loads a C
 * function's library when the function is first called, after the executor
 * entered parallel mode.  (A worker that starts after the leader loaded the
 * library loads it before restoring the leader's settings, so it is fine.)
 *
 * The fix is complete in two parts:
 * - Every function that reads a setting is PARALLEL UNSAFE (the install
 *   script), so no query calling one runs in parallel mode: the library is
 *   loaded outside it and the settings apply.  (It has to be UNSAFE, not
 *   RESTRICTED: a restricted function runs in the leader in parallel mode,
 *   which is exactly where the leader's lazy load loses the settings.)
 * - Should the library still be loaded in parallel mode (a caller's own
 *   function mislabelled PARALLEL SAFE or RESTRICTED), _PG_init keeps the
 *   placeholders' values, and iso_settings_ready(), which every function
 *   that reads a setting calls first, applies them as session values once
 *   out of parallel mode, or raises an ERROR while still in it: never a
 *   check under silently wrong settings.  SET is transactional, so values
 *   applied in a (sub)transaction that then aborts are rolled back: the
 *   transaction callbacks below keep them pending until the applying
 *   transaction commits.  (What is lost: an ALTER ROLE/DATABASE value
 *   comes back as a session value, so RESET then goes to the default.)
 */
static const char *const setting_names[] = {
	"isograph.assume_sequential_keys",
	"isograph.assume_linearizable_keys",
	"isograph.max_witnesses",
	"isograph.search_timeout",
	"isograph.max_memory",
	"isograph.use_image",
	"isograph.save_image_on_check",
	"isograph.parallel_inference",
};

#define NSETTINGS lengthof(setting_names)

/* placeholder values _PG_init could not apply, by setting_names index */
static char *pending_values[NSETTINGS];
static bool settings_pending = false;

/*
 * The transaction nesting level whose commit makes the applied values
 * stick (0: none applied and uncommitted).  Moves to the parent when a
 * subtransaction commits.
 */
static int	applied_level = 0;

static void
forget_pending(void)
{
	int			i;

	for (i = 0; i < NSETTINGS; i++)
	{
		if (pending_values[i])
			pfree(pending_values[i]);
		pending_values[i] = NULL;
	}
}

static void
settings_xact_callback(XactEvent event, void *arg)
{
	if (applied_level == 0)
		return;
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_PREPARE)
	{
		forget_pending();
		applied_level = 0;
	}
	else if (event == XACT_EVENT_ABORT)
	{
		settings_pending = true;	/* rolled back: apply them again */
		applied_level = 0;
	}
}

static void
settings_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						  SubTransactionId parentSubid, void *arg)
{
	int			level = GetCurrentTransactionNestLevel();

	if (applied_level == 0 || applied_level < level)
		return;
	if (event == SUBXACT_EVENT_COMMIT_SUB && applied_level == level)
		applied_level = level - 1;
	else if (event == SUBXACT_EVENT_ABORT_SUB)
	{
		settings_pending = true;
		applied_level = 0;
	}
}

static void
remember_placeholders(void)
{
	int			i;

	if (!IsInParallelMode())
		return;
	for (i = 0; i < NSETTINGS; i++)
	{
		const char *v = GetConfigOption(setting_names[i], true, false);

		if (v != NULL)
		{
			pending_values[i] = MemoryContextStrdup(TopMemoryContext, v);
			settings_pending = true;
		}
	}
	if (settings_pending)
	{
		RegisterXactCallback(settings_xact_callback, NULL);
		RegisterSubXactCallback(settings_subxact_callback, NULL);
	}
}

/* Apply the settings _PG_init could not; see the comment above. */
void
iso_settings_ready(void)
{
	int			i;

	if (likely(!settings_pending))
		return;
	if (IsInParallelMode())
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("isograph's settings cannot be applied during a parallel operation"),
				 errdetail("The isograph library was first loaded in this session during a parallel query, when settings such as isograph.max_memory cannot take effect."),
				 errhint("Mark functions that call isograph functions PARALLEL UNSAFE, or load the library first (LOAD 'isograph', or session_preload_libraries).")));
	for (i = 0; i < NSETTINGS; i++)
	{
		char	   *now;

		if (pending_values[i] == NULL)
			continue;
		/* a value SET since then (it differs from the default) wins */
		now = pstrdup(GetConfigOption(setting_names[i], false, false));
		/* an invalid value warns, as at any load; the default stays */
		if (strcmp(now, GetConfigOptionResetString(setting_names[i])) == 0)
			(void) set_config_option(setting_names[i], pending_values[i],
									 PGC_USERSET, PGC_S_SESSION,
									 GUC_ACTION_SET, true, WARNING, false);
		pfree(now);
	}
	settings_pending = false;
	applied_level = GetCurrentTransactionNestLevel();
}

void
_PG_init(void)
{
	remember_placeholders();
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
	DefineCustomIntVariable("isograph.search_timeout",
							"Longest the version-order search may run in one call (all levels of one history).",
							"Black-box register histories: past it the level is \"not decided\". 0 turns the search off.",
							&iso_search_timeout_ms,
							60000, 0, INT_MAX, PGC_USERSET, GUC_UNIT_MS,
							NULL, NULL, NULL);
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
	DefineCustomBoolVariable("isograph.save_image_on_check",
							 "Let a check that read a history's events store its image for the next ones.",
							 "Only when it can lock the history without waiting, in a READ COMMITTED read-write transaction.",
							 &iso_save_image_on_check,
							 true, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("isograph.parallel_inference",
							 "Let a check infer a large list-append history's keys on two threads.",
							 "The result is the same as on one; off keeps a check on one core.",
							 &iso_parallel_inference,
							 true, PGC_USERSET, 0, NULL, NULL, NULL);
	MarkGUCPrefixReserved("isograph");
}
