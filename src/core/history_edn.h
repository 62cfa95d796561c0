/*
 * history_edn.h
 *	  An EDN history (edn.h) as an IsoHistory: the one conversion the
 *	  loader's images, the in-memory checks and the unit tests share.
 */
#ifndef ISOGRAPH_HISTORY_EDN_H
#define ISOGRAPH_HISTORY_EDN_H

#include "edn.h"
#include "history.h"

/*
 * A history being built from EDN transactions, exactly as storing the
 * transactions and reading their rows back (ORDER BY txn_id, pos) builds
 * it: same calls, same texts, and in the end the same txn_id order.
 */
/*
 * A completion that is the first record of its process in the input
 * (EdnTxn.first_of_process), kept by the second part of a split parse:
 * the invocation pending at the end of the first part is its own.
 */
typedef struct IsoEdnOrphan
{
	uint32		txn;			/* its transaction, ISO_NONE if it has none
								 * (no micro-operations) */
	int64		process;
	bool		has_process;
	bool		own_value;
} IsoEdnOrphan;

typedef struct IsoEdnHistory
{
	IsoHistory	h;
	int64		last_txn_id;
	bool		in_order;		/* txn_ids arrived strictly increasing */
	bool		keep_orphans;	/* the second part of a split parse */
	IsoEdnOrphan *orphans;
	int32		n_orphans;
	int32		cap_orphans;
} IsoEdnHistory;

extern void iso_edn_history_begin(IsoEdnHistory *eh);

/* Add one transaction; an edn_parse_history callback (arg: the history). */
extern bool iso_edn_history_add(const EdnTxn *txn, void *arg);

/*
 * Set the workload and sort by txn_id.  Returns false, with *dup_txn_id
 * set, if two transactions share an id.
 */
extern bool iso_edn_history_finish(IsoEdnHistory *eh, IsoWorkload workload,
								   int64 *dup_txn_id);

/*
 * Join the two parts of a split parse, cut at a record boundary: head, the
 * first part's history (pending: the invocations still waiting at the cut,
 * from edn_stream_stop), and tail, the rest's (parsed with keep_orphans),
 * with their stats.  Each pending invocation must be completed by its
 * process's first record in the tail, with a :value of its own; that
 * completion gets the invocation's time, as one parse of the whole input
 * gives it.  Then tail is appended to head, and tail_stats added to
 * head_stats.  Returns false, changing nothing, where one parse could give
 * anything else (an invocation the tail does not complete so, times that
 * are record positions, a transaction id that is one, workloads that
 * differ): the caller parses the whole input instead.  The duplicate
 * checks that span the cut (a value written in both parts, a transaction
 * id in both) are the checker's: iso_infer and iso_edn_history_finish
 * fail on them.
 */
extern bool iso_edn_history_join(IsoEdnHistory *head, EdnStats *head_stats,
								 const EdnPending *pending, int32 n_pending,
								 IsoEdnHistory *tail, const EdnStats *tail_stats);

/*
 * The same in steps, for a tail that arrives in runs (edn_split.c): whether
 * the parts join, from what the tail says of itself; then, with the tail's
 * transactions appended to head's history from base_txn on
 * (iso_history_append_*, after iso_history_end_input of head's), what the
 * join sets: the pending invocations' times, the order, the stats.
 */
extern bool iso_edn_split_joinable(const EdnStats *head_stats,
								   const EdnPending *pending, int32 n_pending,
								   const EdnStats *tail_stats,
								   const IsoEdnOrphan *orphans, int32 n_orphans);
extern void iso_edn_history_joined(IsoEdnHistory *head, EdnStats *head_stats,
								   const EdnPending *pending, int32 n_pending,
								   const IsoEdnOrphan *orphans, int32 n_orphans,
								   uint32 base_txn, bool tail_in_order,
								   int64 tail_last_txn_id, const EdnStats *tail_stats);

/* Free what eh holds besides its history. */
extern void iso_edn_history_free_parts(IsoEdnHistory *eh);

/*
 * Parse EDN text into h (initialized here).  Returns false with *err set
 * on a parse error or a duplicate transaction id (ISO_PARSE_INVALID).
 */
extern bool iso_history_parse_edn(const char *text, size_t len, IsoWorkload expected,
								  IsoHistory *h, EdnStats *stats, IsoParseError *err);

#endif							/* ISOGRAPH_HISTORY_EDN_H */
