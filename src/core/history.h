/*
 * history.h
 *	  A history in memory: transactions and micro-ops with dense integer
 *	  ids for transactions, keys and values.
 *
 * Built once per check from iso_event (history_read.c) or from parsed EDN
 * (standalone tests), then read by the graph builder (infer.c).  Plain C,
 * no backend calls besides allocation (see port.h).
 */
#ifndef ISOGRAPH_HISTORY_H
#define ISOGRAPH_HISTORY_H

#include "names.h"
#include "text.h"

#define ISO_NONE			PG_UINT32_MAX	/* no id */
#define ISO_NO_TIME			PG_INT64_MIN	/* time unknown */

/* Interned strings: id -> text, text -> id. */
typedef struct IsoStrTab
{
	char	   *arena;
	uint64		arena_len;
	uint64		arena_cap;
	uint64	   *offsets;		/* n + 1 offsets into arena */
	uint32		n;
	uint32		cap;
	uint32	   *slots;			/* open addressing: id + 1, 0 = empty */
	uint32	   *hashes;			/* hash of each id, for rehashing */
	uint32		nslots;			/* power of two */
	/*
	 * A cache in front of the hash for texts that are small canonical
	 * integers (most keys and values of a Jepsen history): the id of the
	 * text of v, plus one; 0 = not cached.  Only an accelerator: not
	 * stored in an image, empty in a table read back.
	 */
	IsoSmallIndex small;
} IsoStrTab;

extern void iso_strtab_init(IsoStrTab *tab, uint32 expected);
extern uint32 iso_strtab_intern(IsoStrTab *tab, const char *s, int32 len);
extern uint32 iso_strtab_find(const IsoStrTab *tab, const char *s, int32 len);
extern void iso_strtab_free(IsoStrTab *tab);
static inline const char *
iso_strtab_get(const IsoStrTab *tab, uint32 id, int32 *len)
{
	*len = (int32) (tab->offsets[id + 1] - tab->offsets[id]);
	return tab->arena + tab->offsets[id];
}

/*
 * A transaction: 40 bytes, its op count, status and process flag sharing a
 * word.  So a transaction has at most ISO_TXN_MAX_OPS micro-operations, as
 * many as a check's edges can name (graph.h) in the whole history.
 */
#define ISO_TXN_OPS_BITS	28
#define ISO_TXN_MAX_OPS		((1u << ISO_TXN_OPS_BITS) - 1)

typedef struct IsoTxn
{
	int64		txn_id;
	int64		process;		/* valid if has_process */
	int64		invoke_time;	/* ISO_NO_TIME if unknown */
	int64		complete_time;	/* ISO_NO_TIME if unknown */
	uint32		first_op;		/* index into ops */
	unsigned int n_ops:ISO_TXN_OPS_BITS;
	unsigned int status:3;		/* IsoStatus */
	unsigned int has_process:1;
} IsoTxn;

/*
 * A micro-operation: 12 bytes (a check holds one per micro-operation: 8M
 * of them at 1M list-append transactions).  A list read has no value of its
 * own, so the value and the list's first element share a word; list_len
 * and kind share another.  So a list read holds at most ISO_OP_MAX_LIST_LEN
 * elements; a longer one stops the check (its text alone would be over
 * 1 GB).  An op does not name its transaction: a transaction's ops are
 * txns[t].first_op .. + n_ops - 1, so iso_op_txn finds it, and the checker,
 * which asks for every op, keeps a table of them while it builds the graph
 * (iso_history_op_txns).  The op's position in its transaction
 * (iso_event.pos) is kept apart, and only for histories that need it:
 * iso_op_pos.
 */
#define ISO_OP_LIST_LEN_BITS	30
#define ISO_OP_MAX_LIST_LEN		((1 << (ISO_OP_LIST_LEN_BITS - 1)) - 1)

typedef struct IsoOp
{
	uint32		key;			/* key id */
	union
	{
		uint32		value;		/* w/append: value written; register read:
								 * value read; ISO_NONE = nil / none */
		uint32		list_first; /* list read (list_len >= 0): index into
								 * elems */
	};
	signed int	list_len:ISO_OP_LIST_LEN_BITS;	/* list read: length; -1 = not
												 * a list read */
	unsigned int kind:2;		/* IsoOpKind */
} IsoOp;

/*
 * The last list read of one key, remembered while loading (history.c).
 * Its ids are in elems, in a region with room to grow that the key's later
 * reads share while they repeat or extend it.  Its texts are in the
 * history's two memo pools (offsets, bytes), in regions that move to the
 * pool's end when they must grow: one allocation each for every key, so
 * that forgetting them all hands the memory back (a small allocation a key
 * would stay in the history's context as free chunks, 50 MB of 125,000
 * keys at 1M list-append transactions).
 */
typedef struct IsoListMemo
{
	uint32		n;				/* elements */
	uint32		room;			/* of its region: n and the room to grow */
	uint64		start;			/* its region in elems */
	uint64		offs_at;		/* n + 1 offsets into its bytes, in memo_offs */
	uint64		bytes_at;		/* their texts, concatenated, in memo_bytes */
	uint32		cap_n;			/* 0: no regions yet */
	uint32		cap_bytes;
} IsoListMemo;

typedef struct IsoHistory
{
	IsoWorkload workload;
	IsoTxn	   *txns;
	uint32		n_txns;
	uint32		cap_txns;
	IsoOp	   *ops;
	uint32		n_ops;
	uint32		cap_ops;
	int32	   *op_pos;			/* per op, its iso_event.pos; NULL while each
								 * op's is its index in its transaction */
	uint32		cap_op_pos;
	uint32	   *elems;			/* value ids of list reads */
	uint64		n_elems;
	uint64		cap_elems;
	IsoStrTab	keys;
	IsoStrTab	values;
	IsoListMemo *memo;			/* per key id, while loading; NULL after */
	uint32		n_memo;
	uint32	   *memo_offs;		/* the memos' pools, while loading */
	uint64		n_memo_offs;
	uint64		cap_memo_offs;
	char	   *memo_bytes;
	uint64		n_memo_bytes;
	uint64		cap_memo_bytes;
} IsoHistory;

extern void iso_history_init(IsoHistory *h, IsoWorkload workload);

/*
 * The transaction of op o: a binary search over the transactions, for the
 * few ops a result names.  iso_op_txn_near first tries hint, a transaction
 * the caller expects o in (an edge's from or to vertex's).
 */
extern uint32 iso_op_txn(const IsoHistory *h, uint32 o);

static inline uint32
iso_op_txn_near(const IsoHistory *h, uint32 hint, uint32 o)
{
	if (hint < h->n_txns && o >= h->txns[hint].first_op &&
		o - h->txns[hint].first_op < h->txns[hint].n_ops)
		return hint;
	return iso_op_txn(h, o);
}

/* Every op's transaction, in an array of n_ops the caller frees. */
extern uint32 *iso_history_op_txns(const IsoHistory *h);

/*
 * The position of op o, of transaction t, in t (iso_event.pos).  Loaders
 * number a transaction's ops 0, 1, 2, ... (EDN) and CSV files mostly do the
 * same, so a history keeps the positions only once one differs (4 bytes an
 * op).  iso_op_pos finds the transaction first.
 */
static inline int32
iso_op_pos_in(const IsoHistory *h, uint32 t, uint32 o)
{
	if (h->op_pos != NULL)
		return h->op_pos[o];
	return (int32) (o - h->txns[t].first_op);
}

static inline int32
iso_op_pos(const IsoHistory *h, uint32 o)
{
	return h->op_pos != NULL ? h->op_pos[o] : iso_op_pos_in(h, iso_op_txn(h, o), o);
}

/* The same, trying first the transaction hint (as iso_op_txn_near). */
static inline int32
iso_op_pos_near(const IsoHistory *h, uint32 hint, uint32 o)
{
	return h->op_pos != NULL ? h->op_pos[o] :
		iso_op_pos_in(h, iso_op_txn_near(h, hint, o), o);
}

extern uint32 iso_history_add_txn(IsoHistory *h, int64 txn_id, IsoStatus status,
								  bool has_process, int64 process,
								  int64 invoke_time, int64 complete_time);

/*
 * Append a micro-op to the last transaction added.  value: written value for
 * w/append, value read for a register read (ptr NULL = nil); list/list_len:
 * a list read (list_len -1 = none).  Returns the op index.
 */
extern uint32 iso_history_add_op(IsoHistory *h, IsoOpKind kind, int32 pos,
								 IsoSlice key, IsoSlice value,
								 const IsoSlice *list, int32 list_len);

/*
 * Add a list read.  Reads of a key mostly repeat the previous read of that
 * key and add a few elements: elements equal to the remembered ones reuse
 * their ids without a hash lookup, which matters once the value table no
 * longer fits in the CPU caches, and a read that repeats or extends the
 * previous one shares its elements in elems instead of a copy (a key's
 * elements are then stored a few times, not once per read).  Call
 * iso_history_end_input when done.
 */
extern uint32 iso_history_add_list(IsoHistory *h, int32 pos, IsoSlice key,
								   const IsoSlice *elems, int32 n);
/*
 * The same when the caller knows that the first kept elements are those of
 * the key's previous list read, the one added last (an event chunk's list
 * delta): elems[0..kept) are not read (they may be unset).
 */
extern uint32 iso_history_add_list_kept(IsoHistory *h, int32 pos, IsoSlice key,
										const IsoSlice *elems, int32 n, int32 kept);
extern void iso_history_end_input(IsoHistory *h);

/*
 * Append src's transactions after dst's, for two parts of one input (a
 * split parse, history_edn.c): src's keys and values are interned into
 * dst's tables in src's id order (so a text new to dst gets the id one
 * input would have given it), its ops and list elements renumbered.  Both
 * must be past their input (iso_history_end_input) and keep no op
 * positions.  src is left as it was.
 */
extern void iso_history_append(IsoHistory *dst, const IsoHistory *src);

/*
 * The same in steps, for a part that arrives in runs (edn_split.c): begin
 * with its string tables and counts (dst's arrays get their room), append
 * its transactions, micro-ops and list elements in runs, each kind in its
 * order, and end.
 */
typedef struct IsoHistoryAppend
{
	IsoHistory *dst;
	uint32	   *kmap;			/* the part's key id -> dst's */
	uint32	   *vmap;			/* the part's value id -> dst's */
	uint32		n_values;
	uint32		base_op;		/* dst's counts when it began */
	uint64		base_elem;
	uint32		room_txns;		/* what is still to come */
	uint32		room_ops;
	uint64		room_elems;
} IsoHistoryAppend;

extern void iso_history_append_begin(IsoHistoryAppend *a, IsoHistory *dst,
									 const IsoStrTab *keys, const IsoStrTab *values,
									 uint32 n_txns, uint32 n_ops, uint64 n_elems);
extern void iso_history_append_txns(IsoHistoryAppend *a, const IsoTxn *txns, uint32 n);
extern void iso_history_append_ops(IsoHistoryAppend *a, const IsoOp *ops, uint32 n);
extern void iso_history_append_elems(IsoHistoryAppend *a, const uint32 *elems, uint64 n);
extern void iso_history_append_end(IsoHistoryAppend *a);

/* Free everything h holds (inside the server its memory context does). */
extern void iso_history_free(IsoHistory *h);

/* Start a list read of list_len elements, then add each with add_elem. */
extern uint32 iso_history_add_list_read(IsoHistory *h, int32 pos, IsoSlice key,
										int32 list_len);
extern void iso_history_add_elem(IsoHistory *h, IsoSlice elem);

/*
 * Rebuild src into dst (initialized here) with the transactions in txn_id
 * order, interning keys and values in that order: exactly the history that
 * reading its rows back (ORDER BY txn_id, pos) builds.  For histories whose
 * transactions arrived in another order (EDN: transactions that never
 * completed come last).  Returns false, with *dup_txn_id set, if two
 * transactions share an id.  src must outlive the call only.
 */
extern bool iso_history_reorder(const IsoHistory *src, IsoHistory *dst,
								int64 *dup_txn_id);

#endif							/* ISOGRAPH_HISTORY_H */
