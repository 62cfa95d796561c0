/*
 * history.c
 *	  Building an IsoHistory: interning keys and values, growing arrays.
 *
 * Arrays grow by doubling (amortized O(1) per op, no per-op allocation).
 */
#include "port.h"

#include "history.h"

/* 64-bit FNV-1a folded to 32 bits: cheap and good enough for short texts. */
static uint32
hash_text(const char *s, int32 len)
{
	uint64		h = UINT64_C(14695981039346656037);
	int32		i;

	for (i = 0; i < len; i++)
	{
		h ^= (unsigned char) s[i];
		h *= UINT64_C(1099511628211);
	}
	return (uint32) (h ^ (h >> 32));
}

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
	uint32		h = hash_text(s, len);
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

/*
 * The value of s if it is a canonical decimal of at most 9 digits ("0",
 * "17", not "017" or "-1"), else -1.
 */
static inline int64
small_int_text(const char *s, int32 len)
{
	uint32		v = 0;
	int32		i;

	if (len < 1 || len > 9 || (s[0] == '0' && len > 1))
		return -1;
	for (i = 0; i < len; i++)
	{
		unsigned	d = (unsigned) ((unsigned char) s[i] - '0');

		if (d > 9)
			return -1;
		v = v * 10 + d;
	}
	return v;
}

static uint32 strtab_intern_hashed(IsoStrTab *tab, const char *s, int32 len);

/*
 * Intern s.  A small integer text is looked up in tab->small first (one
 * array read instead of a hash, a probe and a comparison); the cache grows
 * to cover v while it stays within 4 entries per string of the table (plus
 * 4096), so that a few large numbers do not blow it up: those go by the
 * hash alone, which holds every string anyway.
 */
uint32
iso_strtab_intern(IsoStrTab *tab, const char *s, int32 len)
{
	int64		v = small_int_text(s, len);
	uint32		id;

	if (v < 0)
		return strtab_intern_hashed(tab, s, len);
	if ((uint64) v >= tab->small_cap)
	{
		uint64		ncap = tab->small_cap ? tab->small_cap : 1024;
		uint32	   *ns;

		while (ncap <= (uint64) v)
			ncap *= 2;
		if (ncap > 4 * (uint64) tab->n + 4096)
			return strtab_intern_hashed(tab, s, len);
		ns = iso_alloc0(sizeof(uint32) * ncap);
		if (tab->small)
		{
			memcpy(ns, tab->small, sizeof(uint32) * tab->small_cap);
			iso_free(tab->small);
		}
		tab->small = ns;
		tab->small_cap = (uint32) ncap;
	}
	if (tab->small[v] != 0)
		return tab->small[v] - 1;
	id = strtab_intern_hashed(tab, s, len);
	if (id != ISO_NONE)
		tab->small[v] = id + 1;
	return id;
}

static uint32
strtab_intern_hashed(IsoStrTab *tab, const char *s, int32 len)
{
	uint32		h = hash_text(s, len);
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
	IsoTxn	   *t;
	uint64		cap = h->cap_txns;

	h->txns = grow_array(h->txns, &cap, (uint64) h->n_txns + 1, sizeof(IsoTxn));
	h->cap_txns = (uint32) Min(cap, PG_UINT32_MAX);
	t = &h->txns[h->n_txns];
	t->txn_id = txn_id;
	t->status = (uint8) status;
	t->has_process = has_process;
	t->process = process;
	t->invoke_time = invoke_time;
	t->complete_time = complete_time;
	t->first_op = h->n_ops;
	t->n_ops = 0;
	return h->n_txns++;
}

static IsoOp *
new_op(IsoHistory *h, IsoOpKind kind, int32 pos, IsoSlice key)
{
	IsoOp	   *op;
	uint64		cap = h->cap_ops;

	h->ops = grow_array(h->ops, &cap, (uint64) h->n_ops + 1, sizeof(IsoOp));
	h->cap_ops = (uint32) Min(cap, PG_UINT32_MAX);
	op = &h->ops[h->n_ops];
	op->txn = h->n_txns - 1;
	op->kind = (uint8) kind;
	op->pos = pos;
	op->key = iso_strtab_intern(&h->keys, key.ptr, key.len);
	op->value = ISO_NONE;
	op->list_first = 0;
	op->list_len = -1;
	op->list_in_run = 0;
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
 * Make room in memo for the offsets of n elements and nbytes of their
 * texts, keeping what it holds.
 */
static void
memo_reserve(IsoListMemo *m, uint32 n, uint32 nbytes)
{
	if (n > m->cap_n || m->offs == NULL)
	{
		uint32		cap = Max(Max(n, m->cap_n * 2), 8);

		m->offs = m->offs ? iso_realloc(m->offs, sizeof(uint32) * (cap + 1)) :
			iso_alloc(sizeof(uint32) * (cap + 1));
		m->cap_n = cap;
	}
	if (nbytes > m->cap_bytes || m->bytes == NULL)
	{
		uint32		cap = Max(Max(nbytes, m->cap_bytes * 2), 64);

		m->bytes = m->bytes ? iso_realloc(m->bytes, cap) : iso_alloc(cap);
		m->cap_bytes = cap;
	}
}

/* Whether n bytes at a and b are equal (inline for the short texts of lists). */
static inline bool
same_bytes(const char *a, const char *b, int32 n)
{
	int32		i;

	if (n > 16)
		return memcmp(a, b, n) == 0;
	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* The memo of key k, made (empty) if it is new. */
static IsoListMemo *
memo_of_key(IsoHistory *h, uint32 k)
{
	if (k >= h->n_memo)
	{
		uint32		cap = Max(k + 1, h->n_memo * 2);
		uint32		i;

		h->memo = h->memo ? iso_realloc(h->memo, sizeof(IsoListMemo) * cap) :
			iso_alloc(sizeof(IsoListMemo) * cap);
		memset(h->memo + h->n_memo, 0, sizeof(IsoListMemo) * (cap - h->n_memo));
		for (i = h->n_memo; i < cap; i++)
			h->memo[i].run = ISO_NONE;
		h->n_memo = cap;
	}
	return &h->memo[k];
}

/* A new run with room for n elements; returns its id. */
static uint32
new_run(IsoHistory *h, uint32 n)
{
	uint64		cap = h->cap_runs;
	IsoListRun *r;

	if (h->n_runs == PG_UINT32_MAX - 1)
		iso_host_limit("more than 2^32 - 1 list reads");
	h->runs = grow_array(h->runs, &cap, (uint64) h->n_runs + 1, sizeof(IsoListRun));
	h->cap_runs = (uint32) Min(cap, PG_UINT32_MAX);
	r = &h->runs[h->n_runs];
	r->cap = Max(n, 4);
	r->ids = iso_alloc(sizeof(uint32) * r->cap);
	r->n = 0;
	return h->n_runs++;
}

/* Append the id of each of n texts to run r (interned). */
static void
run_append(IsoHistory *h, uint32 run, const IsoSlice *elems, uint32 n)
{
	IsoListRun *r = &h->runs[run];
	uint32		i;

	if ((uint64) r->n + n > r->cap)
	{
		uint64		cap = Max((uint64) r->n + n, (uint64) r->cap * 2);

		if (cap > PG_UINT32_MAX)
			iso_host_limit("a list read of 2^32 elements or more");
		r->ids = iso_realloc(r->ids, sizeof(uint32) * cap);
		r->cap = (uint32) cap;
	}
	for (i = 0; i < n; i++)
		r->ids[r->n + i] = iso_strtab_intern(&h->values, elems[i].ptr, elems[i].len);
	r->n += n;
}

/* Remember the texts of elems[from..n) in m, after its first from. */
static void
memo_remember(IsoListMemo *m, const IsoSlice *elems, uint32 from, uint32 n,
			  uint64 nbytes)
{
	uint32		off = from > 0 ? m->offs[from] : 0;
	uint32		i;

	memo_reserve(m, n, (uint32) nbytes);
	m->offs[0] = 0;
	for (i = from; i < n; i++)
	{
		memcpy(m->bytes + off, elems[i].ptr, elems[i].len);
		off += elems[i].len;
		m->offs[i + 1] = off;
	}
	m->n = n;
}

uint32
iso_history_add_list(IsoHistory *h, int32 pos, IsoSlice key,
					 const IsoSlice *elems, int32 n)
{
	uint32		o = iso_history_add_list_read(h, pos, key, n);
	IsoOp	   *op = &h->ops[o];
	IsoListMemo *m = memo_of_key(h, op->key);
	uint32		same = 0;
	uint64		nbytes = 0;
	uint32		run;
	int32		i;

	if (n == 0)
		return o;				/* nothing to store (list_first 0) */

	/* the prefix equal to the remembered read */
	while (same < m->n && same < (uint32) n &&
		   (uint32) elems[same].len == m->offs[same + 1] - m->offs[same] &&
		   same_bytes(elems[same].ptr, m->bytes + m->offs[same], elems[same].len))
		same++;
	for (i = 0; i < n; i++)
		nbytes += elems[i].len;

	if (same == (uint32) n)
		run = m->run;			/* a prefix of the remembered read: shared */
	else if (same == m->n && nbytes <= PG_UINT32_MAX / 2)
	{
		/* it extends the remembered read: the run grows */
		run = m->run != ISO_NONE ? m->run : new_run(h, (uint32) n);
		run_append(h, run, elems + same, (uint32) n - same);
		m->run = run;
		memo_remember(m, elems, same, (uint32) n, nbytes);
	}
	else
	{
		/*
		 * It differs: a run of its own, which the key's later reads share
		 * (remembered unless absurdly long).  The common prefix keeps its
		 * ids without a lookup.
		 */
		run = new_run(h, (uint32) n);
		if (same > 0)
		{
			memcpy(h->runs[run].ids, h->runs[m->run].ids, sizeof(uint32) * same);
			h->runs[run].n = same;
		}
		run_append(h, run, elems + same, (uint32) n - same);
		if (nbytes <= PG_UINT32_MAX / 2)
		{
			m->run = run;
			memo_remember(m, elems, same, (uint32) n, nbytes);
		}
	}
	op = &h->ops[o];
	op->list_first = run;
	op->list_in_run = 1;
	return o;
}

/*
 * Lay the runs out at the end of elems and point their reads at them: a
 * pass over the ops, after which no op is in a run.
 */
static void
lay_out_runs(IsoHistory *h)
{
	uint64	   *base = iso_alloc(sizeof(uint64) * h->n_runs);
	uint64		total = h->n_elems;
	uint32		r;
	uint32		o;

	for (r = 0; r < h->n_runs; r++)
	{
		base[r] = total;
		total += h->runs[r].n;
	}
	if (total > PG_UINT32_MAX)
		iso_host_limit("more than 2^32 - 1 list elements");
	h->elems = grow_array(h->elems, &h->cap_elems, total, sizeof(uint32));
	for (r = 0; r < h->n_runs; r++)
	{
		if (h->runs[r].n > 0)
			memcpy(h->elems + base[r], h->runs[r].ids, sizeof(uint32) * h->runs[r].n);
		iso_free(h->runs[r].ids);
	}
	h->n_elems = total;
	for (o = 0; o < h->n_ops; o++)
	{
		IsoOp	   *op = &h->ops[o];

		if (op->list_in_run)
		{
			op->list_first = (uint32) base[op->list_first];
			op->list_in_run = 0;
		}
	}
	iso_free(base);
	iso_free(h->runs);
	h->runs = NULL;
	h->n_runs = h->cap_runs = 0;
}

void
iso_history_end_input(IsoHistory *h)
{
	uint32		k;

	if (h->runs)
		lay_out_runs(h);
	for (k = 0; k < h->n_memo; k++)
	{
		if (h->memo[k].offs)
			iso_free(h->memo[k].offs);
		if (h->memo[k].bytes)
			iso_free(h->memo[k].bytes);
	}
	if (h->memo)
		iso_free(h->memo);
	h->memo = NULL;
	h->n_memo = 0;
}

/* Free everything of h (the tables, the arrays and any list memos). */
void
iso_history_free(IsoHistory *h)
{
	iso_history_end_input(h);
	if (h->txns)
		iso_free(h->txns);
	if (h->ops)
		iso_free(h->ops);
	if (h->elems)
		iso_free(h->elems);
	iso_strtab_free(&h->keys);
	iso_strtab_free(&h->values);
	memset(h, 0, sizeof(*h));
}

void
iso_strtab_free(IsoStrTab *tab)
{
	if (tab->arena)
		iso_free(tab->arena);
	if (tab->offsets)
		iso_free(tab->offsets);
	if (tab->slots)
		iso_free(tab->slots);
	if (tab->hashes)
		iso_free(tab->hashes);
	if (tab->small)
		iso_free(tab->small);
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
					if (list)
						iso_free(list);
					list = iso_alloc(sizeof(IsoSlice) * list_cap);
				}
				for (j = 0; j < op->list_len; j++)
					list[j] = strtab_slice(&src->values, src->elems[op->list_first + j]);
				iso_history_add_list(dst, op->pos, key, list, op->list_len);
				continue;
			}
			if (op->value != ISO_NONE)
				value = strtab_slice(&src->values, op->value);
			iso_history_add_op(dst, (IsoOpKind) op->kind, op->pos, key, value, NULL, -1);
		}
		ISO_CHECK_INTERRUPTS();
	}
	iso_history_end_input(dst);
	if (list)
		iso_free(list);
	iso_free(order);
	return true;
}
