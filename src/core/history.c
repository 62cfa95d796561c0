/*
 * history.c
 *	  Building an IsoHistory: interning keys and values, growing arrays.
 *
 * Arrays grow by doubling (amortized O(1) per op, no per-op allocation).
 */
#include "port.h"

#include "history.h"
#include "text.h"

/* Grow *ptr (element size elem) to hold at least need elements. */
static void *
grow_array(void *ptr, uint64 *cap, uint64 need, size_t elem)
{
	uint64		newcap = *cap ? *cap : 16;

	if (need <= *cap)
		return ptr;
	while (newcap < need)
		newcap *= 2;
	ptr = ptr ? iso_realloc(ptr, newcap * elem) : iso_alloc(newcap * elem);
	*cap = newcap;
	return ptr;
}

void
iso_strtab_init(IsoStrTab *tab, uint32 expected)
{
	uint32		nslots = 64;

	while (nslots < expected * 2)
		nslots *= 2;
	memset(tab, 0, sizeof(*tab));
	tab->nslots = nslots;
	tab->slots = iso_alloc0(sizeof(uint32) * nslots);
	tab->cap = 64;
	tab->hashes = iso_alloc(sizeof(uint32) * tab->cap);
	tab->offsets = iso_alloc(sizeof(uint64) * (tab->cap + 1));
	tab->offsets[0] = 0;
	tab->arena_cap = 1024;
	tab->arena = iso_alloc(tab->arena_cap);
}

static bool
strtab_equal(const IsoStrTab *tab, uint32 id, const char *s, int32 len)
{
	int32		l;
	const char *t = iso_strtab_get(tab, id, &l);

	return l == len && memcmp(t, s, len) == 0;
}

static void
strtab_rehash(IsoStrTab *tab)
{
	uint32		nslots = tab->nslots * 2;
	uint32		mask = nslots - 1;
	uint32		id;

	iso_free(tab->slots);
	tab->slots = iso_alloc0(sizeof(uint32) * nslots);
	tab->nslots = nslots;
	for (id = 0; id < tab->n; id++)
	{
		uint32		i = tab->hashes[id] & mask;

		while (tab->slots[i] != 0)
			i = (i + 1) & mask;
		tab->slots[i] = id + 1;
	}
}

uint32
iso_strtab_find(const IsoStrTab *tab, const char *s, int32 len)
{
	uint32		h = iso_hash_text(s, len);
	uint32		mask = tab->nslots - 1;
	uint32		i = h & mask;

	while (tab->slots[i] != 0)
	{
		uint32		id = tab->slots[i] - 1;

		if (tab->hashes[id] == h && strtab_equal(tab, id, s, len))
			return id;
		i = (i + 1) & mask;
	}
	return ISO_NONE;
}

static uint32 strtab_intern_hashed(IsoStrTab *tab, const char *s, int32 len);

/*
 * Intern s.  A small integer text is looked up in tab->small first (one
 * array read instead of a hash, a probe and a comparison, see
 * IsoSmallIndex).
 */
uint32
iso_strtab_intern(IsoStrTab *tab, const char *s, int32 len)
{
	int64		v = iso_small_int_text(s, len);
	uint32	   *slot;
	uint32		id;

	if (v < 0 || (slot = iso_small_index_slot(&tab->small, v, tab->n)) == NULL)
		return strtab_intern_hashed(tab, s, len);
	if (*slot != 0)
		return *slot - 1;
	id = strtab_intern_hashed(tab, s, len);
	if (id != ISO_NONE)
		*slot = id + 1;
	return id;
}

static uint32
strtab_intern_hashed(IsoStrTab *tab, const char *s, int32 len)
{
	uint32		h = iso_hash_text(s, len);
	uint32		mask = tab->nslots - 1;
	uint32		i = h & mask;
	uint32		id;
	uint64		cap;

	while (tab->slots[i] != 0)
	{
		id = tab->slots[i] - 1;
		if (tab->hashes[id] == h && strtab_equal(tab, id, s, len))
			return id;
		i = (i + 1) & mask;
	}

	id = tab->n;
	if (id >= PG_UINT32_MAX - 1)
		return ISO_NONE;		/* caller reports; cannot happen below 4G strings */
	if (id + 1 >= tab->cap)
	{
		uint32		newcap = tab->cap * 2;

		tab->hashes = iso_realloc(tab->hashes, sizeof(uint32) * newcap);
		tab->offsets = iso_realloc(tab->offsets, sizeof(uint64) * (newcap + 1));
		tab->cap = newcap;
	}
	cap = tab->arena_cap;
	tab->arena = grow_array(tab->arena, &cap, tab->arena_len + len, 1);
	tab->arena_cap = cap;
	memcpy(tab->arena + tab->arena_len, s, len);
	tab->arena_len += len;
	tab->offsets[id + 1] = tab->arena_len;
	tab->hashes[id] = h;
	tab->slots[i] = id + 1;
	tab->n++;

	/* keep the load factor under 1/2 */
	if ((uint64) tab->n * 2 > tab->nslots)
		strtab_rehash(tab);
	return id;
}

void
iso_history_init(IsoHistory *h, IsoWorkload workload)
{
	memset(h, 0, sizeof(*h));
	h->workload = workload;
	iso_strtab_init(&h->keys, 1024);
	iso_strtab_init(&h->values, 1024);
}

uint32
iso_history_add_txn(IsoHistory *h, int64 txn_id, IsoStatus status,
					bool has_process, int64 process,
					int64 invoke_time, int64 complete_time)
{
	IsoTxn		t = {0};
	uint64		cap = h->cap_txns;

	h->txns = grow_array(h->txns, &cap, (uint64) h->n_txns + 1, sizeof(IsoTxn));
	h->cap_txns = (uint32) Min(cap, PG_UINT32_MAX);
	t.txn_id = txn_id;
	t.status = (unsigned int) status;
	t.has_process = has_process ? 1 : 0;
	t.process = process;
	t.invoke_time = invoke_time;
	t.complete_time = complete_time;
	t.first_op = h->n_ops;
	t.n_ops = 0;
	/* stored whole: see new_op */
	h->txns[h->n_txns] = t;
	return h->n_txns++;
}

uint32
iso_op_txn(const IsoHistory *h, uint32 o)
{
	uint32		lo = 0,
				hi = h->n_txns;

	/*
	 * The last transaction whose first op is at most o: o's, even when
	 * transactions without ops share its first op (they come before it).
	 */
	while (hi - lo > 1)
	{
		uint32		mid = lo + (hi - lo) / 2;

		if (h->txns[mid].first_op <= o)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

uint32 *
iso_history_op_txns(const IsoHistory *h)
{
	uint32	   *txn = iso_alloc(sizeof(uint32) * Max((uint64) h->n_ops, 1));
	const IsoTxn *txns = h->txns;
	uint32		n_txns = h->n_txns;
	uint32		t;

	/*
	 * (In locals: the server is built with -fno-strict-aliasing, so each
	 * store into txn would make the compiler load h's fields again.)
	 */
	for (t = 0; t < n_txns; t++)
	{
		uint32	   *out = txn + txns[t].first_op;
		uint32		n = txns[t].n_ops;
		uint32		i;

		for (i = 0; i < n; i++)
			out[i] = t;
		if ((t & 0xffff) == 0)
			ISO_CHECK_INTERRUPTS();
	}
	return txn;
}

/*
 * Keep pos as the position of op o (the last transaction's last, being
 * added): nothing while every op's position is its index in its
 * transaction, else the op_pos array, filled for the ops before o the first
 * time a position differs.
 */
static void
set_op_pos(IsoHistory *h, uint32 o, int32 pos)
{
	uint64		cap = h->cap_op_pos;
	uint32		last = h->n_txns - 1;

	if (h->op_pos == NULL && pos == (int32) (o - h->txns[last].first_op))
		return;
	if (h->op_pos == NULL)
	{
		int32	   *all;
		uint32		t;
		uint32		i;

		cap = 0;
		all = grow_array(NULL, &cap, Max(h->cap_ops, 1), sizeof(int32));
		for (t = 0; t < h->n_txns; t++)
			for (i = 0; i < h->txns[t].n_ops; i++)
				all[h->txns[t].first_op + i] = (int32) i;
		h->op_pos = all;
	}
	else
		h->op_pos = grow_array(h->op_pos, &cap, (uint64) o + 1, sizeof(int32));
	h->cap_op_pos = (uint32) Min(cap, PG_UINT32_MAX);
	h->op_pos[o] = pos;
}

static IsoOp *
new_op(IsoHistory *h, IsoOpKind kind, int32 pos, IsoSlice key)
{
	IsoOp		init = {0};
	IsoOp	   *op;
	uint64		cap = h->cap_ops;

	h->ops = grow_array(h->ops, &cap, (uint64) h->n_ops + 1, sizeof(IsoOp));
	h->cap_ops = (uint32) Min(cap, PG_UINT32_MAX);
	init.kind = (uint8) kind;
	init.key = iso_strtab_intern(&h->keys, key.ptr, key.len);
	init.value = ISO_NONE;
	init.list_len = -1;

	/*
	 * Stored whole, not field by field: a bit-field is read before it is
	 * written, and a read of a fresh page of the array maps the zero page,
	 * so that the write then faults again to copy it (at 10M transactions
	 * those second faults were 6 % of iso_levels_jepsen_file).
	 */
	op = &h->ops[h->n_ops];
	*op = init;
	set_op_pos(h, h->n_ops, pos);
	if (h->txns[h->n_txns - 1].n_ops == ISO_TXN_MAX_OPS)
		iso_host_limit("a transaction of more than 2^28 - 1 micro-operations");
	h->txns[h->n_txns - 1].n_ops++;
	h->n_ops++;
	return op;
}

uint32
iso_history_add_op(IsoHistory *h, IsoOpKind kind, int32 pos,
				   IsoSlice key, IsoSlice value,
				   const IsoSlice *list, int32 list_len)
{
	IsoOp	   *op = new_op(h, kind, pos, key);
	int32		i;

	if (value.ptr != NULL)
		op->value = iso_strtab_intern(&h->values, value.ptr, value.len);
	if (list_len >= 0)
	{
		if (list_len > ISO_OP_MAX_LIST_LEN)
			iso_host_limit("a list read of more than 2^29 - 1 elements");
		op->list_first = (uint32) h->n_elems;
		op->list_len = list_len;
		for (i = 0; i < list_len; i++)
			iso_history_add_elem(h, list[i]);
	}
	return h->n_ops - 1;
}

uint32
iso_history_add_list_read(IsoHistory *h, int32 pos, IsoSlice key, int32 list_len)
{
	IsoOp	   *op = new_op(h, ISO_OP_READ, pos, key);

	if (list_len > ISO_OP_MAX_LIST_LEN)
		iso_host_limit("a list read of more than 2^29 - 1 elements");
	op->list_first = (uint32) h->n_elems;
	op->list_len = list_len;
	return h->n_ops - 1;
}

void
iso_history_add_elem(IsoHistory *h, IsoSlice elem)
{
	h->elems = grow_array(h->elems, &h->cap_elems, h->n_elems + 1, sizeof(uint32));
	h->elems[h->n_elems++] = iso_strtab_intern(&h->values, elem.ptr, elem.len);
}

/*
 * Make room in m for the offsets of n elements and nbytes of their texts,
 * keeping what it holds.  A region that must grow moves to the end of its
 * pool, with twice the room; the old one is left behind (the pools are at
 * most twice what the memos hold, and go at the end of the input).
 */
static void
memo_reserve(IsoHistory *h, IsoListMemo *m, uint32 n, uint32 nbytes)
{
	uint32		used_bytes = m->n > 0 ? h->memo_offs[m->offs_at + m->n] : 0;

	if (n > m->cap_n || m->cap_n == 0)
	{
		uint32		cap = Max(Max(n, m->cap_n * 2), 8);
		uint64		at = h->n_memo_offs;

		h->memo_offs = grow_array(h->memo_offs, &h->cap_memo_offs,
								  at + cap + 1, sizeof(uint32));
		if (m->n > 0)
			memcpy(h->memo_offs + at, h->memo_offs + m->offs_at,
				   sizeof(uint32) * (m->n + 1));
		h->n_memo_offs = at + cap + 1;
		m->offs_at = at;
		m->cap_n = cap;
	}
	if (nbytes > m->cap_bytes || m->cap_bytes == 0)
	{
		uint32		cap = Max(Max(nbytes, m->cap_bytes * 2), 64);
		uint64		at = h->n_memo_bytes;

		h->memo_bytes = grow_array(h->memo_bytes, &h->cap_memo_bytes,
								   at + cap, 1);
		if (used_bytes > 0)
			memcpy(h->memo_bytes + at, h->memo_bytes + m->bytes_at, used_bytes);
		h->n_memo_bytes = at + cap;
		m->bytes_at = at;
		m->cap_bytes = cap;
	}
}

/* The memo of key k, made (empty) if it is new. */
static IsoListMemo *
memo_of_key(IsoHistory *h, uint32 k)
{
	if (k >= h->n_memo)
	{
		uint32		cap = Max(k + 1, h->n_memo * 2);

		h->memo = h->memo ? iso_realloc(h->memo, sizeof(IsoListMemo) * cap) :
			iso_alloc(sizeof(IsoListMemo) * cap);
		memset(h->memo + h->n_memo, 0, sizeof(IsoListMemo) * (cap - h->n_memo));
		h->n_memo = cap;
	}
	return &h->memo[k];
}

/*
 * Room for n more elements at the end of elems; returns where they start.
 * Reserved room is zero (value id 0): every element of elems is a valid id
 * even where no read points, as an image requires.
 */
static uint64
elems_reserve(IsoHistory *h, uint64 n)
{
	uint64		start = h->n_elems;

	if (start + n > PG_UINT32_MAX)
		iso_host_limit("more than 2^32 - 1 list elements");
	h->elems = grow_array(h->elems, &h->cap_elems, start + n, sizeof(uint32));
	h->n_elems = start + n;
	return start;
}

/* Intern the texts of n elements into ids. */
static void
intern_elems(IsoHistory *h, uint32 *ids, const IsoSlice *elems, uint32 n)
{
	uint32		i;

	for (i = 0; i < n; i++)
		ids[i] = iso_strtab_intern(&h->values, elems[i].ptr, elems[i].len);
}

/* Remember the texts of elems[from..n) in m, after its first from. */
static void
memo_remember(IsoHistory *h, IsoListMemo *m, const IsoSlice *elems, uint32 from,
			  uint32 n, uint64 nbytes)
{
	uint32		off = from > 0 ? h->memo_offs[m->offs_at + from] : 0;
	uint32	   *offs;
	char	   *bytes;
	uint32		i;

	memo_reserve(h, m, n, (uint32) nbytes);
	offs = h->memo_offs + m->offs_at;
	bytes = h->memo_bytes + m->bytes_at;
	offs[0] = 0;
	for (i = from; i < n; i++)
	{
		iso_copy_bytes(bytes + off, elems[i].ptr, elems[i].len);
		off += elems[i].len;
		offs[i + 1] = off;
	}
	m->n = n;
}

/*
 * Make room for the remembered read of m to grow to n elements in place:
 * its region of elems grows at the end of elems, or moves there with twice
 * the room.  The old region stays as it is: earlier reads point into it.
 */
static void
region_grow(IsoHistory *h, IsoListMemo *m, uint32 n)
{
	uint64		start;

	if (n <= m->room)
		return;
	if (m->start + m->room == h->n_elems)
	{
		(void) elems_reserve(h, n - m->room);
		memset(h->elems + m->start + m->room, 0, sizeof(uint32) * (n - m->room));
		m->room = n;
		return;
	}
	start = elems_reserve(h, Max((uint64) n, (uint64) m->room * 2));
	memcpy(h->elems + start, h->elems + m->start, sizeof(uint32) * m->n);
	m->room = (uint32) (h->n_elems - start);
	memset(h->elems + start + m->n, 0, sizeof(uint32) * (m->room - m->n));
	m->start = start;
}

uint32
iso_history_add_list(IsoHistory *h, int32 pos, IsoSlice key,
					 const IsoSlice *elems, int32 n)
{
	return iso_history_add_list_kept(h, pos, key, elems, n, 0);
}

/*
 * The remembered read of a key is its previous read, or one that read
 * began with (a read that repeats a prefix of it leaves it as it is), so
 * the first kept elements the caller vouches for are its first kept too.
 * The memo is forgotten when a read is not remembered (below).
 */
uint32
iso_history_add_list_kept(IsoHistory *h, int32 pos, IsoSlice key,
						  const IsoSlice *elems, int32 n, int32 kept)
{
	uint32		o = iso_history_add_list_read(h, pos, key, n);
	IsoListMemo *m = memo_of_key(h, h->ops[o].key);
	uint32		same;
	uint64		nbytes;
	uint64		start;
	int32		i;

	if (n == 0)
		return o;				/* no elements to point at */

	/* the prefix equal to the remembered read */
	if (kept < 0 || kept > n || (uint32) kept > m->n)
		iso_host_internal_error("a list read keeps more elements than the key's previous read has");
	same = (uint32) kept;
	if (m->n > 0)
	{
		const uint32 *offs = h->memo_offs + m->offs_at;
		const char *bytes = h->memo_bytes + m->bytes_at;

		while (same < m->n && same < (uint32) n &&
			   (uint32) elems[same].len == offs[same + 1] - offs[same] &&
			   iso_same_bytes(elems[same].ptr, bytes + offs[same], elems[same].len))
			same++;
	}
	/* equal elements, equal lengths */
	nbytes = same > 0 ? h->memo_offs[m->offs_at + same] : 0;
	for (i = (int32) same; i < n; i++)
		nbytes += elems[i].len;

	if (same == (uint32) n)
		start = m->start;		/* a prefix of the remembered read: shared */
	else if (same == m->n && same > 0 && nbytes <= PG_UINT32_MAX / 2)
	{
		/* it extends the remembered read, which grows in place */
		region_grow(h, m, (uint32) n);
		intern_elems(h, h->elems + m->start + same, elems + same, (uint32) n - same);
		memo_remember(h, m, elems, same, (uint32) n, nbytes);
		start = m->start;
	}
	else
	{
		/*
		 * A first read of the key, or one that differs: its own region, as
		 * long as the read, which the key's later reads share (remembered
		 * unless absurdly long).  The common prefix keeps its ids.
		 */
		start = elems_reserve(h, (uint64) n);
		if (same > 0)
			memcpy(h->elems + start, h->elems + m->start, sizeof(uint32) * same);
		intern_elems(h, h->elems + start + same, elems + same, (uint32) n - same);
		if (nbytes <= PG_UINT32_MAX / 2)
		{
			m->start = start;
			m->room = (uint32) n;
			memo_remember(h, m, elems, same, (uint32) n, nbytes);
		}
		else
			m->n = 0;			/* not this read: a later kept would be wrong */
	}
	h->ops[o].list_first = (uint32) start;
	return o;
}

void
iso_history_end_input(IsoHistory *h)
{
	iso_free(h->memo);
	iso_free(h->memo_offs);
	iso_free(h->memo_bytes);
	h->memo = NULL;
	h->n_memo = 0;
	h->memo_offs = NULL;
	h->n_memo_offs = h->cap_memo_offs = 0;
	h->memo_bytes = NULL;
	h->n_memo_bytes = h->cap_memo_bytes = 0;
}

/* Intern every text of src into dst, in src's id order: map[id] is dst's. */
static uint32 *
strtab_map(IsoStrTab *dst, const IsoStrTab *src)
{
	uint32	   *map = iso_alloc(sizeof(uint32) * Max((uint64) src->n, 1));
	uint32		i;

	for (i = 0; i < src->n; i++)
	{
		int32		len;
		const char *text = iso_strtab_get(src, i, &len);

		map[i] = iso_strtab_intern(dst, text, len);
	}
	return map;
}

void
iso_history_append_begin(IsoHistoryAppend *a, IsoHistory *dst, const IsoStrTab *keys,
						 const IsoStrTab *values, uint32 n_txns, uint32 n_ops, uint64 n_elems)
{
	uint64		cap;

	if (dst->op_pos != NULL || dst->memo != NULL)
		iso_host_internal_error("a history appended to keeps op positions or list memos");
	if ((uint64) dst->n_txns + n_txns > PG_UINT32_MAX - 1 ||
		(uint64) dst->n_ops + n_ops > PG_UINT32_MAX - 1)
		iso_host_limit("more than 2^32 - 2 transactions or micro-operations");
	if (dst->n_elems + n_elems > PG_UINT32_MAX)
		iso_host_limit("more than 2^32 - 1 list elements");
	memset(a, 0, sizeof(*a));
	a->dst = dst;
	a->kmap = strtab_map(&dst->keys, keys);
	a->vmap = strtab_map(&dst->values, values);
	a->n_values = values->n;
	a->base_op = dst->n_ops;
	a->base_elem = dst->n_elems;

	/* room for all of it now: the parts come in runs */
	cap = dst->cap_txns;
	dst->txns = grow_array(dst->txns, &cap, (uint64) dst->n_txns + n_txns, sizeof(IsoTxn));
	dst->cap_txns = (uint32) Min(cap, PG_UINT32_MAX);
	cap = dst->cap_ops;
	dst->ops = grow_array(dst->ops, &cap, (uint64) dst->n_ops + n_ops, sizeof(IsoOp));
	dst->cap_ops = (uint32) Min(cap, PG_UINT32_MAX);
	cap = dst->cap_elems;
	dst->elems = grow_array(dst->elems, &cap, dst->n_elems + n_elems, sizeof(uint32));
	dst->cap_elems = cap;
	a->room_txns = n_txns;
	a->room_ops = n_ops;
	a->room_elems = n_elems;
}

void
iso_history_append_txns(IsoHistoryAppend *a, const IsoTxn *txns, uint32 n)
{
	IsoHistory *dst = a->dst;
	IsoTxn	   *out = dst->txns + dst->n_txns;
	uint32		base_op = a->base_op;
	uint32		i;

	if (n > a->room_txns)
		iso_host_internal_error("more transactions appended than announced");
	for (i = 0; i < n; i++)
	{
		IsoTxn		t = txns[i];

		t.first_op += base_op;
		out[i] = t;
	}
	dst->n_txns += n;
	a->room_txns -= n;
}

void
iso_history_append_ops(IsoHistoryAppend *a, const IsoOp *ops, uint32 n)
{
	IsoHistory *dst = a->dst;
	IsoOp	   *out = dst->ops + dst->n_ops;
	const uint32 *kmap = a->kmap;
	const uint32 *vmap = a->vmap;
	uint32		base_elem = (uint32) a->base_elem;
	uint32		i;

	if (n > a->room_ops)
		iso_host_internal_error("more micro-operations appended than announced");
	/* (locals: see iso_history_op_txns) */
	for (i = 0; i < n; i++)
	{
		IsoOp		op = ops[i];

		op.key = kmap[op.key];
		if (op.list_len >= 0)
			op.list_first += base_elem;
		else if (op.value != ISO_NONE)
			op.value = vmap[op.value];
		out[i] = op;
	}
	dst->n_ops += n;
	a->room_ops -= n;
}

void
iso_history_append_elems(IsoHistoryAppend *a, const uint32 *elems, uint64 n)
{
	IsoHistory *dst = a->dst;
	uint32	   *out = dst->elems + dst->n_elems;
	const uint32 *vmap = a->vmap;
	uint64		e;

	if (n > a->room_elems)
		iso_host_internal_error("more list elements appended than announced");
	/* room no read points at holds id 0, which need not exist in the part */
	if (a->n_values == 0)
		memset(out, 0, sizeof(uint32) * n);
	else
		for (e = 0; e < n; e++)
			out[e] = vmap[elems[e]];
	dst->n_elems += n;
	a->room_elems -= n;
}

void
iso_history_append_end(IsoHistoryAppend *a)
{
	if (a->room_txns != 0 || a->room_ops != 0 || a->room_elems != 0)
		iso_host_internal_error("fewer transactions, micro-operations or list elements appended than announced");
	iso_free(a->kmap);
	iso_free(a->vmap);
	a->kmap = a->vmap = NULL;
}

void
iso_history_append(IsoHistory *dst, const IsoHistory *src)
{
	IsoHistoryAppend a;

	if (src->op_pos != NULL || src->memo != NULL)
		iso_host_internal_error("a history appended keeps op positions or list memos");
	iso_history_append_begin(&a, dst, &src->keys, &src->values,
							 src->n_txns, src->n_ops, src->n_elems);
	iso_history_append_txns(&a, src->txns, src->n_txns);
	iso_history_append_ops(&a, src->ops, src->n_ops);
	iso_history_append_elems(&a, src->elems, src->n_elems);
	iso_history_append_end(&a);
}

/* Free everything of h (the tables, the arrays and any list memos). */
void
iso_history_free(IsoHistory *h)
{
	iso_history_end_input(h);
	iso_free(h->txns);
	iso_free(h->ops);
	iso_free(h->op_pos);
	iso_free(h->elems);
	iso_strtab_free(&h->keys);
	iso_strtab_free(&h->values);
	memset(h, 0, sizeof(*h));
}

void
iso_strtab_free(IsoStrTab *tab)
{
	iso_free(tab->arena);
	iso_free(tab->offsets);
	iso_free(tab->slots);
	iso_free(tab->hashes);
	iso_small_index_free(&tab->small);
	memset(tab, 0, sizeof(*tab));
}

/* A transaction's id and index, sorted by id for iso_history_reorder. */
typedef struct TxnOrder
{
	int64		txn_id;
	uint32		index;
} TxnOrder;

static int
cmp_txn_order(const void *a, const void *b)
{
	const TxnOrder *x = a;
	const TxnOrder *y = b;

	if (x->txn_id != y->txn_id)
		return x->txn_id < y->txn_id ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

static IsoSlice
strtab_slice(const IsoStrTab *tab, uint32 id)
{
	IsoSlice	s;

	s.ptr = iso_strtab_get(tab, id, &s.len);
	return s;
}

bool
iso_history_reorder(const IsoHistory *src, IsoHistory *dst, int64 *dup_txn_id)
{
	TxnOrder   *order = iso_alloc(sizeof(TxnOrder) * Max(src->n_txns, 1));
	IsoSlice   *list = NULL;
	uint32		list_cap = 0;
	uint32		i;

	for (i = 0; i < src->n_txns; i++)
	{
		order[i].txn_id = src->txns[i].txn_id;
		order[i].index = i;
	}
	qsort(order, src->n_txns, sizeof(TxnOrder), cmp_txn_order);
	for (i = 1; i < src->n_txns; i++)
		if (order[i].txn_id == order[i - 1].txn_id)
		{
			*dup_txn_id = order[i].txn_id;
			iso_free(order);
			return false;
		}

	iso_history_init(dst, src->workload);
	for (i = 0; i < src->n_txns; i++)
	{
		const IsoTxn *t = &src->txns[order[i].index];
		uint32		o;

		iso_history_add_txn(dst, t->txn_id, (IsoStatus) t->status, t->has_process,
							t->process, t->invoke_time, t->complete_time);
		for (o = t->first_op; o < t->first_op + t->n_ops; o++)
		{
			const IsoOp *op = &src->ops[o];
			IsoSlice	key = strtab_slice(&src->keys, op->key);
			IsoSlice	value = {NULL, 0};
			int32		j;

			if (op->kind == ISO_OP_READ && op->list_len >= 0)
			{
				if ((uint32) op->list_len > list_cap)
				{
					list_cap = Max((uint32) op->list_len, list_cap * 2);
					iso_free(list);
					list = iso_alloc(sizeof(IsoSlice) * list_cap);
				}
				for (j = 0; j < op->list_len; j++)
					list[j] = strtab_slice(&src->values, src->elems[op->list_first + j]);
				iso_history_add_list(dst, iso_op_pos_in(src, order[i].index, o), key, list, op->list_len);
				continue;
			}
			if (op->value != ISO_NONE)
				value = strtab_slice(&src->values, op->value);
			iso_history_add_op(dst, (IsoOpKind) op->kind, iso_op_pos_in(src, order[i].index, o), key, value, NULL, -1);
		}
		ISO_CHECK_INTERRUPTS();
	}
	iso_history_end_input(dst);
	iso_free(list);
	iso_free(order);
	return true;
}
