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
typedef struct IsoEdnHistory
{
	IsoHistory	h;
	int64		last_txn_id;
	bool		in_order;		/* txn_ids arrived strictly increasing */
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
 * Parse EDN text into h (initialized here).  Returns false with *err set
 * on a parse error or a duplicate transaction id (ISO_PARSE_INVALID).
 */
extern bool iso_history_parse_edn(const char *text, size_t len, IsoWorkload expected,
								  IsoHistory *h, EdnStats *stats, IsoParseError *err);

#endif							/* ISOGRAPH_HISTORY_EDN_H */
