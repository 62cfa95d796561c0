/*
 * test_image.c
 *	  History images (src/image.c), standalone: a history is described,
 *	  every section copied into its own malloc'd buffer (as if stored as
 *	  rows and read back), the arrays rebuilt from the header alone and
 *	  filled from the buffers, validated, and compared field by field with
 *	  the original.  Then every rule of iso_image_prepare and
 *	  iso_image_validate is broken once, on a fresh read-back, and the exact
 *	  message asserted.
 *
 * Histories:
 *	  - list-append: appends, list reads through iso_history_add_list (with
 *		its memo of the previous read) and through add_list_read/add_elem,
 *		an empty list read, ok/fail/info, with and without process and
 *		times, odd keys ("" and one with a NUL byte), and 1,500 values so
 *		the value table has rehashed;
 *	  - rw-register: writes, reads of values and nil reads;
 *	  - the empty history (every section but the header is 0 bytes).
 *
 * Every allocation is freed (LeakSanitizer must stay quiet).
 */
#include "port.h"
#include "history.h"
#include "image.h"

#include <stdlib.h>

#include "child.h"
#include "history_util.h"
#include "rng.h"
#include "tap.h"

static IsoSlice
sl(const char *s)
{
	IsoSlice	r;

	r.ptr = s;
	r.len = (int32) strlen(s);
	return r;
}

static IsoSlice
sln(const char *s, int32 len)
{
	IsoSlice	r;

	r.ptr = s;
	r.len = len;
	return r;
}

static const IsoSlice nil_slice = {NULL, 0};


/* ---- the histories ---- */

#define MANY_VALUES 1500

static void
build_list_append(IsoHistory *h)
{
	static const char nul_key[] = {'k', '\0', 'z'};
	IsoSlice	l1[1];
	IsoSlice	l12[2];
	IsoSlice	l123[3];
	char		buf[32];
	int			i;

	l1[0] = sl("1");
	l12[0] = sl("1");
	l12[1] = sl("2");
	l123[0] = sl("1");
	l123[1] = sl("2");
	l123[2] = sl("3");

	iso_history_init(h, ISO_WORKLOAD_LIST_APPEND);

	/* T10: ok, process 1, both times */
	iso_history_add_txn(h, 10, ISO_STATUS_OK, true, 1, 100, 200);
	iso_history_add_op(h, ISO_OP_APPEND, 0, sl("x"), sl("1"), NULL, -1);
	iso_history_add_op(h, ISO_OP_APPEND, 1, sl("y"), sl("1"), NULL, -1);
	iso_history_add_list(h, 2, sl("x"), l1, 1);

	/* T11: ok, process 2, no times; the memo reuses the ids of [1] */
	iso_history_add_txn(h, 11, ISO_STATUS_OK, true, 2, ISO_NO_TIME, ISO_NO_TIME);
	iso_history_add_list(h, 0, sl("x"), l1, 1);
	iso_history_add_op(h, ISO_OP_APPEND, 1, sl("x"), sl("2"), NULL, -1);
	iso_history_add_list(h, 2, sl("x"), l12, 2);

	/* T12: fail, no process, invoke time only */
	iso_history_add_txn(h, 12, ISO_STATUS_FAIL, false, 0, 300, ISO_NO_TIME);
	iso_history_add_op(h, ISO_OP_APPEND, 0, sl("y"), sl("3"), NULL, -1);

	/* T13: info; an empty read, a read element by element, odd keys */
	iso_history_add_txn(h, 13, ISO_STATUS_INFO, false, 0, ISO_NO_TIME, 400);
	iso_history_add_list(h, 0, sl("y"), NULL, 0);
	iso_history_add_list_read(h, 1, sl("z"), 3);
	iso_history_add_elem(h, sl("1"));
	iso_history_add_elem(h, sl("2"));
	iso_history_add_elem(h, sl("3"));
	iso_history_add_op(h, ISO_OP_APPEND, 2, sl(""), sl(""), NULL, -1);
	iso_history_add_op(h, ISO_OP_APPEND, 3, sln(nul_key, 3), sl("4"), NULL, -1);
	iso_history_add_list(h, 4, sln(nul_key, 3), l123, 3);

	/* T14: enough distinct values that the value table rehashed */
	iso_history_add_txn(h, 14, ISO_STATUS_OK, true, 1, 500, 600);
	for (i = 0; i < MANY_VALUES; i++)
	{
		snprintf(buf, sizeof(buf), "v%d", i);
		iso_history_add_op(h, ISO_OP_APPEND, i, sl("w"), sl(buf), NULL, -1);
	}
	iso_history_end_input(h);
}

static void
build_rw_register(IsoHistory *h)
{
	iso_history_init(h, ISO_WORKLOAD_RW_REGISTER);

	iso_history_add_txn(h, 0, ISO_STATUS_OK, true, 0, 1, 2);
	iso_history_add_op(h, ISO_OP_WRITE, 0, sl("x"), sl("1"), NULL, -1);
	iso_history_add_op(h, ISO_OP_WRITE, 1, sl("y"), sl("2"), NULL, -1);

	/* positions 0, 1, 5: a CSV's may have gaps, and the history keeps them */
	iso_history_add_txn(h, 1, ISO_STATUS_OK, true, 1, 3, 4);
	iso_history_add_op(h, ISO_OP_READ, 0, sl("x"), sl("1"), NULL, -1);
	iso_history_add_op(h, ISO_OP_READ, 1, sl("y"), nil_slice, NULL, -1);
	iso_history_add_op(h, ISO_OP_WRITE, 5, sl("x"), sl("3"), NULL, -1);

	iso_history_add_txn(h, 2, ISO_STATUS_INFO, false, 0, ISO_NO_TIME, ISO_NO_TIME);
	iso_history_add_op(h, ISO_OP_READ, 0, sl("z"), nil_slice, NULL, -1);

	iso_history_add_txn(h, 5, ISO_STATUS_FAIL, true, 7, 5, 6);
	iso_history_add_op(h, ISO_OP_WRITE, 0, sl("z"), sl("4"), NULL, -1);
	iso_history_end_input(h);
}

/* ---- storing and reading back ---- */

/* The sections as stored: one malloc'd copy each. */
typedef struct Stored
{
	void	   *data[ISO_IMAGE_NSECTIONS];
	uint64		bytes[ISO_IMAGE_NSECTIONS];
} Stored;

static void
store(const IsoHistory *h, Stored *st, IsoImageLayout *layout)
{
	int			s;

	iso_image_describe(h, layout);
	for (s = 0; s < ISO_IMAGE_NSECTIONS; s++)
	{
		st->bytes[s] = layout->bytes[s];
		st->data[s] = malloc(layout->bytes[s] ? layout->bytes[s] : 1);
		if (layout->bytes[s] > 0)
			memcpy(st->data[s], layout->ptr[s], layout->bytes[s]);
	}
}

static void
stored_free(Stored *st)
{
	int			s;

	for (s = 0; s < ISO_IMAGE_NSECTIONS; s++)
		free(st->data[s]);
	memset(st, 0, sizeof(*st));
}

static IsoImageHeader
stored_header(const Stored *st)
{
	IsoImageHeader hd;

	memcpy(&hd, st->data[ISO_IMAGE_HEADER], sizeof(hd));
	return hd;
}

/*
 * Rebuild a history from the stored sections, as image_store.c does: the
 * header alone sizes and allocates everything.  Returns prepare's message.
 */
static const char *
read_back(const Stored *st, IsoHistory *r)
{
	IsoImageHeader hd = stored_header(st);
	IsoImageLayout layout;
	const char *why;
	int			s;

	if ((why = iso_image_prepare(&hd, r, &layout)) != NULL)
		return why;
	for (s = 1; s < ISO_IMAGE_NSECTIONS; s++)
	{
		if (layout.bytes[s] != st->bytes[s])
			return "(test) a prepared section has another size";
		if (st->bytes[s] > 0)
			memcpy(layout.ptr[s], st->data[s], st->bytes[s]);
	}
	return NULL;
}

/* ---- comparing ---- */

static bool
same_txn(const IsoTxn *a, const IsoTxn *b)
{
	return a->txn_id == b->txn_id && a->process == b->process &&
		a->invoke_time == b->invoke_time && a->complete_time == b->complete_time &&
		a->first_op == b->first_op && a->n_ops == b->n_ops &&
		a->status == b->status && a->has_process == b->has_process;
}

static bool
same_op(const IsoOp *a, const IsoOp *b)
{
	/* value and list_first share a word (history.h) */
	return a->key == b->key && a->value == b->value &&
		a->list_len == b->list_len && a->kind == b->kind;
}

static void
compare_strtab(const char *name, const char *what, const IsoStrTab *a, const IsoStrTab *b)
{
	uint32		id;
	bool		found = true;

	ok(a->n == b->n && a->nslots == b->nslots && a->arena_len == b->arena_len,
	   "%s: %s table: %u strings, %u slots, %llu bytes of text", name, what,
	   b->n, b->nslots, (unsigned long long) b->arena_len);
	ok(a->arena_len == 0 || memcmp(a->arena, b->arena, a->arena_len) == 0,
	   "%s: %s table: same text", name, what);
	ok(memcmp(a->offsets, b->offsets, sizeof(uint64) * ((size_t) a->n + 1)) == 0,
	   "%s: %s table: same offsets", name, what);
	ok(a->n == 0 || memcmp(a->hashes, b->hashes, sizeof(uint32) * a->n) == 0,
	   "%s: %s table: same hashes", name, what);
	ok(memcmp(a->slots, b->slots, sizeof(uint32) * a->nslots) == 0,
	   "%s: %s table: same hash slots", name, what);
	for (id = 0; id < a->n; id++)
	{
		int32		len;
		const char *s = iso_strtab_get(a, id, &len);

		if (iso_strtab_find(b, s, len) != id)
			found = false;
	}
	ok(found, "%s: %s table: iso_strtab_find finds each of the %u strings at its id",
	   name, what, a->n);
	ok(iso_strtab_find(b, "no such string", 14) == ISO_NONE,
	   "%s: %s table: an unknown string is not found", name, what);
}

static void
compare(const char *name, const IsoHistory *a, const IsoHistory *b)
{
	uint32		i;
	bool		same;

	ok(a->workload == b->workload, "%s: workload", name);
	ok(a->n_txns == b->n_txns && a->n_ops == b->n_ops && a->n_elems == b->n_elems,
	   "%s: %u txns, %u ops, %llu elements", name, b->n_txns, b->n_ops,
	   (unsigned long long) b->n_elems);
	same = a->n_txns == b->n_txns;
	for (i = 0; same && i < a->n_txns; i++)
		same = same_txn(&a->txns[i], &b->txns[i]);
	ok(same, "%s: every txn equal, field by field", name);
	same = a->n_ops == b->n_ops;
	for (i = 0; same && i < a->n_ops; i++)
		same = same_op(&a->ops[i], &b->ops[i]);
	ok(same, "%s: every op equal, field by field", name);
	same = a->n_ops == b->n_ops && (a->op_pos == NULL) == (b->op_pos == NULL);
	for (i = 0; same && i < a->n_ops; i++)
		same = iso_op_pos(a, i) == iso_op_pos(b, i);
	ok(same, "%s: every op's position equal, kept %s", name,
	   b->op_pos ? "per op" : "as the op's index in its transaction");
	ok(a->n_elems == b->n_elems &&
	   (a->n_elems == 0 || memcmp(a->elems, b->elems, sizeof(uint32) * a->n_elems) == 0),
	   "%s: same list elements", name);
	compare_strtab(name, "key", &a->keys, &b->keys);
	compare_strtab(name, "value", &a->values, &b->values);
	ok(b->memo == NULL && b->n_memo == 0, "%s: no load-time memo", name);
}

/* Interning goes on in a read-back table (prepare keeps its invariants). */
static void
intern_more(const char *name, IsoStrTab *t)
{
	uint32		n0 = t->n;
	uint32		i;
	bool		good = true;
	char		buf[32];

	if (n0 > 0)
	{
		int32		len;
		const char *s = iso_strtab_get(t, 0, &len);
		char		copy[64];

		memcpy(copy, s, Min(len, 63));
		ok(iso_strtab_intern(t, copy, Min(len, 63)) == 0 && t->n == n0,
		   "%s: interning a known string gives its id", name);
	}
	for (i = 0; i < 3000; i++)
	{
		snprintf(buf, sizeof(buf), "new-%u", i);
		if (iso_strtab_intern(t, buf, (int32) strlen(buf)) != n0 + i)
			good = false;
	}
	for (i = 0; i < 3000; i++)
	{
		snprintf(buf, sizeof(buf), "new-%u", i);
		if (iso_strtab_find(t, buf, (int32) strlen(buf)) != n0 + i)
			good = false;
	}
	ok(good && t->n == n0 + 3000,
	   "%s: 3000 new strings interned after the read-back (table grew to %u slots)",
	   name, t->nslots);
}

static void
round_trip(const char *name, IsoHistory *h)
{
	IsoImageLayout layout;
	Stored		st;
	IsoHistory	r;
	uint64		sizes[ISO_IMAGE_NSECTIONS];
	IsoImageHeader hd;
	uint64		total = 0;
	const char *why;
	bool		same = true;
	int			s;

	store(h, &st, &layout);
	for (s = 0; s < ISO_IMAGE_NSECTIONS; s++)
		total += st.bytes[s];
	hd = stored_header(&st);
	ok(hd.magic == ISO_IMAGE_MAGIC && hd.format == ISO_IMAGE_FORMAT &&
	   hd.txn_size == sizeof(IsoTxn) && hd.op_size == sizeof(IsoOp) &&
	   hd.workload == (uint32) h->workload && hd.events_rev == 0,
	   "%s: the header identifies the layout", name);
	ok(st.bytes[ISO_IMAGE_HEADER] == sizeof(IsoImageHeader),
	   "%s: the header section is one IsoImageHeader", name);
	iso_image_sizes(&hd, sizes);
	for (s = 0; s < ISO_IMAGE_NSECTIONS; s++)
		if (sizes[s] != st.bytes[s])
		{
			diag("section %d: iso_image_sizes %llu, described %llu", s,
				 (unsigned long long) sizes[s], (unsigned long long) st.bytes[s]);
			same = false;
		}
	ok(same, "%s: iso_image_sizes of the header = the described sizes (%llu bytes)",
	   name, (unsigned long long) total);

	why = read_back(&st, &r);
	ok(why == NULL, "%s: iso_image_prepare accepts the header, sections fit", name);
	if (why != NULL)
	{
		diag("%s", why);
		stored_free(&st);
		return;
	}
	why = iso_image_validate(&r);
	ok(why == NULL, "%s: iso_image_validate accepts the read-back", name);
	if (why != NULL)
		diag("%s", why);
	compare(name, h, &r);
	intern_more(name, &r.values);
	history_free(&r);
	stored_free(&st);
}

/* ---- breaking the rules ---- */

/*
 * A header change must be refused by iso_image_prepare with want, leaving
 * the history untouched.
 */
typedef void (*HeaderBreak) (IsoImageHeader *hd);

static void
expect_prepare(const Stored *st, const char *desc, HeaderBreak breaker, const char *want)
{
	IsoImageHeader hd = stored_header(st);
	IsoImageLayout layout;
	IsoHistory	r;
	IsoHistory	sentinel;
	const char *why;

	memset(&r, 0xa5, sizeof(r));
	memset(&sentinel, 0xa5, sizeof(sentinel));
	breaker(&hd);
	why = iso_image_prepare(&hd, &r, &layout);
	is_str(why ? why : "(accepted)", want, desc);
	ok(memcmp(&r, &sentinel, sizeof(r)) == 0, "%s: the history is untouched", desc);
	if (why == NULL)
		history_free(&r);
}

static void hd_magic(IsoImageHeader *hd) { hd->magic ^= 1; }
static void hd_format(IsoImageHeader *hd) { hd->format = ISO_IMAGE_FORMAT + 1; }
static void hd_txn_size(IsoImageHeader *hd) { hd->txn_size += 8; }
static void hd_op_size(IsoImageHeader *hd) { hd->op_size -= 4; }
static void hd_workload_0(IsoImageHeader *hd) { hd->workload = ISO_WORKLOAD_UNKNOWN; }
static void hd_workload_3(IsoImageHeader *hd) { hd->workload = 3; }
static void hd_key_slots_3(IsoImageHeader *hd) { hd->n_keys = 1; hd->key_slots = 3; }
static void hd_key_slots_1(IsoImageHeader *hd) { hd->n_keys = 0; hd->key_slots = 1; }
static void hd_key_slots_0(IsoImageHeader *hd) { hd->n_keys = 0; hd->key_slots = 0; }
static void hd_key_slots_full(IsoImageHeader *hd) { hd->n_keys = 4; hd->key_slots = 4; }
static void hd_value_slots_6(IsoImageHeader *hd) { hd->value_slots = 6144; }
static void hd_value_slots_full(IsoImageHeader *hd) { hd->n_values = hd->value_slots + 1; }
static void hd_n_ops_max(IsoImageHeader *hd) { hd->n_ops = PG_UINT32_MAX; }
static void hd_n_elems_big(IsoImageHeader *hd) { hd->n_elems = (uint64) PG_UINT32_MAX + 1; }
static void hd_has_op_pos_2(IsoImageHeader *hd) { hd->has_op_pos = 2; }

/* A change to a fresh read-back must make iso_image_validate say want. */
typedef void (*HistoryBreak) (IsoHistory *h);

static void
expect_validate(const Stored *st, const char *desc, HistoryBreak breaker, const char *want)
{
	IsoHistory	r;
	const char *why = read_back(st, &r);

	if (why != NULL)
	{
		ok(0, "%s: read back (%s)", desc, why);
		return;
	}
	breaker(&r);
	why = iso_image_validate(&r);
	is_str(why ? why : "(valid)", want, desc);
	history_free(&r);
}

/* the index of an empty (want_empty) or used hash slot of t */
static uint32
a_slot(const IsoStrTab *t, bool want_empty)
{
	uint32		i;

	for (i = 0; i < t->nslots; i++)
		if ((t->slots[i] == 0) == want_empty)
			return i;
	abort();
}

/* the first list read with at least one element */
static IsoOp *
a_list_read(IsoHistory *h)
{
	uint32		i;

	for (i = 0; i < h->n_ops; i++)
		if (h->ops[i].list_len > 0)
			return &h->ops[i];
	abort();
}

static void no_change(IsoHistory *h) { (void) h; }
static void key_offset0(IsoHistory *h) { h->keys.offsets[0] = 1; }
static void value_offset_end(IsoHistory *h) { h->values.offsets[h->values.n]--; }
static void key_arena_len(IsoHistory *h) { h->keys.arena_len++; }
static void key_offsets_order(IsoHistory *h) { h->keys.offsets[1] = h->keys.offsets[2] + 1; }
static void value_offsets_order(IsoHistory *h)
{
	uint32		n = h->values.n;

	h->values.offsets[n - 1] = h->values.offsets[n] + 1;
}
static void value_string_too_long(IsoHistory *h)
{
	/* numbers only: validation reads no text */
	uint32		n = h->values.n;

	h->values.arena_len = h->values.offsets[n - 1] + (uint64) PG_INT32_MAX + 1;
	h->values.offsets[n] = h->values.arena_len;
}
static void key_slot_beyond(IsoHistory *h) { h->keys.slots[a_slot(&h->keys, true)] = h->keys.n + 1; }
static void value_slot_max(IsoHistory *h) { h->values.slots[a_slot(&h->values, true)] = PG_UINT32_MAX; }
static void key_slot_emptied(IsoHistory *h) { h->keys.slots[a_slot(&h->keys, false)] = 0; }
static void value_slot_twice(IsoHistory *h) { h->values.slots[a_slot(&h->values, true)] = 1; }
static void txn_first_op(IsoHistory *h) { h->txns[1].first_op++; }
static void txn_first_op_back(IsoHistory *h) { h->txns[2].first_op--; }
static void txn_too_many_ops(IsoHistory *h) { h->txns[h->n_txns - 1].n_ops++; }
static void txn_status(IsoHistory *h) { h->txns[0].status = ISO_STATUS_INFO + 1; }
/* found by fuzz_image: a damaged bool, read by iso_infer (undefined behaviour) */
static void txn_too_few_ops(IsoHistory *h) { h->txns[h->n_txns - 1].n_ops--; }
static void no_txns(IsoHistory *h) { h->n_txns = 0; }
static void op_key(IsoHistory *h) { h->ops[0].key = h->keys.n; }
static void op_key_none(IsoHistory *h) { h->ops[0].key = ISO_NONE; }
static void op_value(IsoHistory *h) { h->ops[0].value = h->values.n; }
static void op_value_last(IsoHistory *h) { h->ops[0].value = h->values.n - 1; }
static void op_kind(IsoHistory *h) { h->ops[0].kind = ISO_OP_APPEND + 1; }
/* ops[0] is an append, ops[2] a list read (build_list_append) */
static void op_append_no_value(IsoHistory *h) { h->ops[0].value = ISO_NONE; }
static void op_register_write(IsoHistory *h) { h->ops[0].kind = ISO_OP_WRITE; }
static void op_register_read(IsoHistory *h) { h->ops[2].list_len = -1; h->ops[2].value = 0; }
/* the first write and the first read of build_rw_register */
static void reg_write_no_value(IsoHistory *h) { h->ops[0].value = ISO_NONE; }
static void reg_append(IsoHistory *h) { h->ops[0].kind = ISO_OP_APPEND; }
static void reg_list_read(IsoHistory *h)
{
	uint32		i;

	for (i = 0; i < h->n_ops; i++)
		if (h->ops[i].kind == ISO_OP_READ)
		{
			h->ops[i].list_first = 0;
			h->ops[i].list_len = 0;
			return;
		}
}
static void op_pos(IsoHistory *h) { h->op_pos[6] = -1; }
static void list_past_end(IsoHistory *h)
{
	IsoOp	   *op = a_list_read(h);

	op->list_first = (uint32) (h->n_elems - (uint64) op->list_len + 1);
}
static void list_at_end(IsoHistory *h)
{
	IsoOp	   *op = a_list_read(h);

	op->list_first = (uint32) (h->n_elems - (uint64) op->list_len);
}
static void list_wraps(IsoHistory *h) { a_list_read(h)->list_first = PG_UINT32_MAX; }
static void list_len_neg(IsoHistory *h) { a_list_read(h)->list_len = -2; }
static void list_len_huge(IsoHistory *h) { a_list_read(h)->list_len = ISO_OP_MAX_LIST_LEN; }
static void elem_value(IsoHistory *h) { h->elems[0] = h->values.n; }
static void elem_none(IsoHistory *h) { h->elems[h->n_elems - 1] = ISO_NONE; }

static void
break_rules(void)
{
	IsoHistory	h;
	IsoImageLayout layout;
	Stored		st;

	build_list_append(&h);
	store(&h, &st, &layout);
	history_free(&h);			/* the stored copy is all that is left */

	/* iso_image_prepare: the header */
	expect_prepare(&st, "prepare: wrong magic", hd_magic,
				   "the image has another format");
	expect_prepare(&st, "prepare: wrong format", hd_format,
				   "the image has another format");
	expect_prepare(&st, "prepare: wrong txn_size", hd_txn_size,
				   "the image was written by a build with another memory layout");
	expect_prepare(&st, "prepare: wrong op_size", hd_op_size,
				   "the image was written by a build with another memory layout");
	expect_prepare(&st, "prepare: unknown workload 0", hd_workload_0,
				   "the image has an unknown workload");
	expect_prepare(&st, "prepare: unknown workload 3", hd_workload_3,
				   "the image has an unknown workload");
	expect_prepare(&st, "prepare: key slots not a power of two (3)", hd_key_slots_3,
				   "the image's hash tables are malformed");
	expect_prepare(&st, "prepare: 1 key slot", hd_key_slots_1,
				   "the image's hash tables are malformed");
	expect_prepare(&st, "prepare: 0 key slots", hd_key_slots_0,
				   "the image's hash tables are malformed");
	expect_prepare(&st, "prepare: key slots too full (4 keys, 4 slots)", hd_key_slots_full,
				   "the image's hash tables are malformed");
	expect_prepare(&st, "prepare: value slots not a power of two (6144)", hd_value_slots_6,
				   "the image's hash tables are malformed");
	expect_prepare(&st, "prepare: value slots too full", hd_value_slots_full,
				   "the image's hash tables are malformed");
	expect_prepare(&st, "prepare: n_ops = UINT32_MAX", hd_n_ops_max,
				   "the image's counts are out of range");
	expect_prepare(&st, "prepare: n_elems > UINT32_MAX", hd_n_elems_big,
				   "the image's counts are out of range");
	expect_prepare(&st, "prepare: has_op_pos neither 0 nor 1", hd_has_op_pos_2,
				   "the image's counts are out of range");

	/* iso_image_validate: boundaries that are fine */
	expect_validate(&st, "validate: the read-back unchanged", no_change, "(valid)");
	expect_validate(&st, "validate: op value = the last value id", op_value_last, "(valid)");
	expect_validate(&st, "validate: a list read ending at the last element", list_at_end, "(valid)");

	/* string tables */
	expect_validate(&st, "validate: key offsets[0] != 0", key_offset0,
					"a string table's offsets do not span its text");
	expect_validate(&st, "validate: value offsets[n] short of the text", value_offset_end,
					"a string table's offsets do not span its text");
	expect_validate(&st, "validate: key text longer than offsets[n]", key_arena_len,
					"a string table's offsets do not span its text");
	expect_validate(&st, "validate: key offsets out of order", key_offsets_order,
					"a string table's offsets are out of order");
	expect_validate(&st, "validate: value offsets out of order", value_offsets_order,
					"a string table's offsets are out of order");
	expect_validate(&st, "validate: a value longer than 2^31-1 bytes", value_string_too_long,
					"a string table's offsets are out of order");
	expect_validate(&st, "validate: a key slot naming id n (no string)", key_slot_beyond,
					"a string table's hash slot names no string");
	expect_validate(&st, "validate: a value slot naming UINT32_MAX", value_slot_max,
					"a string table's hash slot names no string");
	expect_validate(&st, "validate: a key slot emptied (slots < strings)", key_slot_emptied,
					"a string table's hash slots do not match its strings");
	expect_validate(&st, "validate: a value in two slots (slots > strings)", value_slot_twice,
					"a string table's hash slots do not match its strings");

	/* transactions */
	expect_validate(&st, "validate: txn first_op one too far", txn_first_op,
					"a transaction's micro-operations are out of range");
	expect_validate(&st, "validate: txn first_op one too early", txn_first_op_back,
					"a transaction's micro-operations are out of range");
	expect_validate(&st, "validate: last txn with one op too many", txn_too_many_ops,
					"a transaction's micro-operations are out of range");
	expect_validate(&st, "validate: txn status > info", txn_status,
					"a transaction's micro-operations are out of range");
	expect_validate(&st, "validate: last op of no txn", txn_too_few_ops,
					"micro-operations belong to no transaction");
	expect_validate(&st, "validate: ops without txns", no_txns,
					"micro-operations belong to no transaction");

	/* micro-operations */
	expect_validate(&st, "validate: op key = n_keys", op_key,
					"a micro-operation names an unknown key or value");
	expect_validate(&st, "validate: op key ISO_NONE", op_key_none,
					"a micro-operation names an unknown key or value");
	expect_validate(&st, "validate: op value = n_values", op_value,
					"a micro-operation names an unknown key or value");
	expect_validate(&st, "validate: op kind 3", op_kind,
					"a micro-operation names an unknown key or value");
	expect_validate(&st, "validate: list read one past the elements", list_past_end,
					"a list read is out of range");
	expect_validate(&st, "validate: list read from UINT32_MAX (no wrap-around)", list_wraps,
					"a list read is out of range");
	expect_validate(&st, "validate: list_len -2", list_len_neg,
					"a list read is out of range");
	expect_validate(&st, "validate: list_len 2^29-1 (the largest an op holds)", list_len_huge,
					"a list read is out of range");

	/* list elements */
	expect_validate(&st, "validate: element = n_values", elem_value,
					"a list element names an unknown value");
	expect_validate(&st, "validate: element ISO_NONE", elem_none,
					"a list element names an unknown value");

	/* what infer.c relies on: writes have values, ops fit the workload */
	expect_validate(&st, "validate: an append without a value", op_append_no_value,
					"a write has no value");
	expect_validate(&st, "validate: a register write in a list-append history", op_register_write,
					"a micro-operation does not belong to the workload");
	expect_validate(&st, "validate: a register read in a list-append history", op_register_read,
					"a micro-operation does not belong to the workload");
	stored_free(&st);

	build_rw_register(&h);
	store(&h, &st, &layout);
	history_free(&h);
	expect_validate(&st, "validate: rw-register read-back unchanged", no_change, "(valid)");
	expect_validate(&st, "validate: a register write without a value", reg_write_no_value,
					"a write has no value");
	expect_validate(&st, "validate: an append in a rw-register history", reg_append,
					"a micro-operation does not belong to the workload");
	expect_validate(&st, "validate: a list read in a rw-register history", reg_list_read,
					"a micro-operation does not belong to the workload");
	expect_validate(&st, "validate: op pos -1", op_pos,
					"a micro-operation names an unknown key or value");
	stored_free(&st);
}

/* A section of the wrong size is caught by comparing with iso_image_sizes. */
static void
sizes_follow_header(void)
{
	IsoHistory	h;
	IsoImageLayout layout;
	Stored		st;
	IsoImageHeader hd;
	uint64		sizes[ISO_IMAGE_NSECTIONS];

	build_rw_register(&h);
	store(&h, &st, &layout);
	hd = stored_header(&st);
	hd.n_ops++;
	iso_image_sizes(&hd, sizes);
	ok(sizes[ISO_IMAGE_OPS] == st.bytes[ISO_IMAGE_OPS] + sizeof(IsoOp) &&
	   sizes[ISO_IMAGE_OP_POS] == st.bytes[ISO_IMAGE_OP_POS] + sizeof(int32) &&
	   sizes[ISO_IMAGE_TXNS] == st.bytes[ISO_IMAGE_TXNS],
	   "sizes: one more op in the header = one IsoOp and one position more, nothing else");
	hd.has_op_pos = 0;
	iso_image_sizes(&hd, sizes);
	ok(sizes[ISO_IMAGE_OP_POS] == 0,
	   "sizes: no positions section when the ops' positions are their indexes");
	hd = stored_header(&st);
	hd.n_keys++;
	hd.value_arena += 5;
	iso_image_sizes(&hd, sizes);
	ok(sizes[ISO_IMAGE_KEY_OFFSETS] == st.bytes[ISO_IMAGE_KEY_OFFSETS] + 8 &&
	   sizes[ISO_IMAGE_KEY_HASHES] == st.bytes[ISO_IMAGE_KEY_HASHES] + 4 &&
	   sizes[ISO_IMAGE_KEY_SLOTS] == st.bytes[ISO_IMAGE_KEY_SLOTS] &&
	   sizes[ISO_IMAGE_VALUE_ARENA] == st.bytes[ISO_IMAGE_VALUE_ARENA] + 5,
	   "sizes: one more key, 5 more bytes of value text");
	stored_free(&st);
	history_free(&h);
}

/*
 * The string table's cache of small integer texts (history.c) only speeds
 * interning up: ids are those of first appearance, equal texts get one id,
 * texts that merely have the same number ("017", "17") do not, and numbers
 * beyond the cache go by the hash.  Checked against a linear reference.
 */
static void
strtab_small_ints(void)
{
	static const char *const fixed[] = {
		"17", "017", "0", "00", "-1", "1", "17", "999999999", "1000000000",
		"123456789", "x17", "17x", "", "4095", "4096", "0", "-0", "+1",
	};
	IsoStrTab	t;
	char	  **ref = malloc(sizeof(char *) * 20000);
	uint32		n_ref = 0;
	bool		good = true;
	uint32		i;
	char		buf[32];

	iso_strtab_init(&t, 16);
	for (i = 0; i < 20000 && good; i++)
	{
		const char *s;
		uint32		j,
					want,
					got;

		if (i < sizeof(fixed) / sizeof(fixed[0]))
			s = fixed[i];
		else
		{
			/* dense runs, repeats, and numbers far beyond the cache */
			uint32		v = (i % 7 == 0) ? (i * 7919u) % 5000u :
				(i % 11 == 0) ? 100000000u + i : i;

			snprintf(buf, sizeof(buf), "%u", v);
			s = buf;
		}
		for (j = 0; j < n_ref; j++)
			if (strcmp(ref[j], s) == 0)
				break;
		want = j;
		if (j == n_ref)
		{
			ref[n_ref] = malloc(strlen(s) + 1);
			memcpy(ref[n_ref++], s, strlen(s) + 1);
		}
		got = iso_strtab_intern(&t, s, (int32) strlen(s));
		if (got != want || iso_strtab_find(&t, s, (int32) strlen(s)) != want)
		{
			diag("'%s': interned as %u, expected %u", s, got, want);
			good = false;
		}
	}
	ok(good && t.n == n_ref, "small integer cache: %u strings, ids of first appearance", n_ref);
	ok(t.small.slots != NULL && t.small.cap <= 4 * t.n + 4096 + 4096,
	   "small integer cache in use, bounded (%u entries for %u strings)", t.small.cap, t.n);
	for (i = 0; i < n_ref; i++)
		free(ref[i]);
	free(ref);
	iso_strtab_free(&t);
}

/*
 * An op does not name its transaction (history.h): iso_op_txn finds it by
 * the transactions' first ops, and iso_history_op_txns lists them all.
 * Transactions without ops share their first op with the next one, at the
 * start, in the middle and at the end; every op is checked against the
 * transaction it was added to.
 */
static void
op_transactions(void)
{
	static const int n_ops[] = {0, 0, 3, 1, 0, 0, 2, 0, 5, 1, 0};
	const int	n = (int) (sizeof(n_ops) / sizeof(n_ops[0]));
	IsoHistory	h;
	uint32		want[16];
	uint32	   *all;
	uint32		o = 0;
	bool		good = true;
	int			t,
				i;

	iso_history_init(&h, ISO_WORKLOAD_RW_REGISTER);
	for (t = 0; t < n; t++)
	{
		iso_history_add_txn(&h, t, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
		for (i = 0; i < n_ops[t]; i++)
		{
			char		v[16];

			snprintf(v, sizeof(v), "%u", o);
			iso_history_add_op(&h, ISO_OP_WRITE, i, sl("k"), sl(v), NULL, -1);
			want[o++] = (uint32) t;
		}
	}
	iso_history_end_input(&h);
	all = iso_history_op_txns(&h);
	for (o = 0; o < h.n_ops; o++)
	{
		if (iso_op_txn(&h, o) != want[o] || all[o] != want[o] ||
			iso_op_txn_near(&h, 0, o) != want[o] ||
			iso_op_txn_near(&h, want[o], o) != want[o] ||
			iso_op_pos(&h, o) != iso_op_pos_in(&h, want[o], o))
		{
			diag("op %u: iso_op_txn %u, listed %u, expected %u", o,
				 iso_op_txn(&h, o), all[o], want[o]);
			good = false;
		}
	}
	ok(good && h.n_ops == 12,
	   "every op's transaction found, through empty transactions (%u ops)", h.n_ops);
	free(all);
	history_free(&h);
}

/*
 * List reads reuse the ids of the key's previous read for their common
 * prefix, and the remembered read is extended in place when a read only
 * adds elements (history.c): every element's id must still name its text,
 * through reads that grow, repeat, shrink, diverge and change lengths.
 */
static void
list_memo_ids(void)
{
	static const char *const reads[][8] = {
		{"1", NULL}, {"1", "22", NULL}, {"1", "22", "333", NULL},
		{"1", "22", "333", NULL}, {"1", "22", NULL}, {"1", "22", "4", "55", NULL},
		{"1", "2", "333", NULL}, {"1", "2", "333", "4444", "5", NULL}, {NULL},
		{"1", "2", "333", "4444", "5", "66", "7", NULL}, {"9", "2", NULL},
		{"9", "2", "aaaaaaaaaaaaaaaaaaaaaaaa", NULL},
		{"9", "2", "aaaaaaaaaaaaaaaaaaaaaaab", NULL},
		{"9", "2", "aaaaaaaaaaaaaaaaaaaaaaab", "x", NULL},
	};
	IsoHistory	h;
	size_t		r;
	bool		good = true;
	uint64		e = 0;

	iso_history_init(&h, ISO_WORKLOAD_LIST_APPEND);
	for (r = 0; r < sizeof(reads) / sizeof(reads[0]); r++)
	{
		IsoSlice	el[8];
		IsoSlice	key = {r % 3 == 2 ? "other" : "k", r % 3 == 2 ? 5 : 1};
		char		copies[8][32];
		int32		n = 0;

		/* fresh copies: the reader's texts are transient */
		while (reads[r][n] != NULL)
		{
			snprintf(copies[n], sizeof(copies[n]), "%s", reads[r][n]);
			el[n].ptr = copies[n];
			el[n].len = (int32) strlen(copies[n]);
			n++;
		}
		iso_history_add_txn(&h, (int64) r, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
		iso_history_add_list(&h, 0, key, el, n);
		memset(copies, 'z', sizeof(copies));
	}
	iso_history_end_input(&h);
	for (r = 0; r < sizeof(reads) / sizeof(reads[0]); r++)
	{
		const IsoOp *op = &h.ops[r];	/* one op per transaction */
		int32		j;

		for (j = 0; reads[r][j] != NULL; j++, e++)
		{
			int32		len;
			uint32		id = h.elems[op->list_first + j];
			const char *t = iso_strtab_get(&h.values, id, &len);

			if (len != (int32) strlen(reads[r][j]) || memcmp(t, reads[r][j], len) != 0)
			{
				diag("read %zu element %d: id %u is '%.*s', expected '%s'",
					 r, j, id, len, t, reads[r][j]);
				good = false;
			}
		}
		if (op->list_len != j)
		{
			diag("read %zu: length %d, expected %d", r, op->list_len, j);
			good = false;
		}
	}
	ok(good, "list reads: every element's id names its text (%llu elements read)",
	   (unsigned long long) e);

	/*
	 * Shared, in regions of elems that grow at its end or move there with
	 * twice the room: k's [1] grows in place to [1 22] (0-1); "other"'s
	 * [1 22 333] (2-4); k's [1 22 333] moves (5-8, room 4; [1 22] shares
	 * it); "other"'s [1 22 4 55] differs (9-12); k's [1 2 333] differs
	 * (13-15) and grows in place to 7 (to 19); [] stores nothing; k's [9 2]
	 * (20-21); "other"'s [9 2 aaa..a] (22-24); k's [9 2 aaa..b] moves
	 * (25-28, room 4) and [9 2 aaa..b x] fills it: 29 for the 42 read.
	 */
	ok(h.n_elems == 29, "list reads: shared, %llu elements stored for 42 read",
	   (unsigned long long) h.n_elems);
	iso_history_free(&h);
}

/*
 * Random list reads through iso_history_add_list: a few keys, each read
 * mostly repeating a prefix of the key's last read or extending it,
 * sometimes differing; some lists as long as many others together, so that
 * regions grow in place, move and are shared.  Every read must name its
 * own texts afterwards, whatever the sharing did.  With kept, through
 * iso_history_add_list_kept told (as a chunk's list delta tells it) how
 * many first elements equal the key's previous read, or fewer.
 */
#define RL_READS	20000
#define RL_KEYS		7
#define RL_MAX		300

static void
list_reads_random(bool kept)
{
	static int	lists[RL_READS][RL_MAX];
	static int	lens[RL_READS];
	static int	keys[RL_READS];
	int			last[RL_KEYS];
	int			prev[RL_KEYS];	/* the key's previous read */
	const char *how = kept ? "random list reads, kept" : "random list reads";
	IsoHistory	h;
	uint64		total = 0;
	int			bad = -1;
	int			r;

	rng_state = 20261127;
	for (r = 0; r < RL_KEYS; r++)
		last[r] = prev[r] = -1;
	iso_history_init(&h, ISO_WORKLOAD_LIST_APPEND);
	for (r = 0; r < RL_READS; r++)
	{
		int			k = rnd_int(RL_KEYS);
		int			p = last[k];
		int			plen = p >= 0 ? lens[p] : 0;
		int			kind = rnd_int(10);
		int			n,
					j;
		IsoSlice	el[RL_MAX];
		char		texts[RL_MAX][12];
		char		key[8];

		if (kind < 3 && plen > 0)
			n = rnd_int(plen + 1);	/* a prefix (possibly all, or none) */
		else if (kind < 9)
		{
			int			grow = 1 + rnd_int(k == 0 ? 40 : 3);	/* extends */

			n = Min(RL_MAX, plen + grow);
		}
		else
			n = rnd_int(RL_MAX / 4);	/* anything */
		for (j = 0; j < n; j++)
			lists[r][j] = (kind < 9 && j < plen) ? lists[p][j] : rnd_int(1000);
		if (kind == 9 && n > 0)
			lists[r][rnd_int(n)] = 1000 + rnd_int(50);	/* differs somewhere */
		lens[r] = n;
		keys[r] = k;
		for (j = 0; j < n; j++)
		{
			snprintf(texts[j], sizeof(texts[j]), "%d", lists[r][j]);
			el[j].ptr = texts[j];
			el[j].len = (int32) strlen(texts[j]);
		}
		snprintf(key, sizeof(key), "k%d", k);
		iso_history_add_txn(&h, r, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
		if (kept)
		{
			int			same = 0;

			while (prev[k] >= 0 && same < n && same < lens[prev[k]] &&
				   lists[r][same] == lists[prev[k]][same])
				same++;
			if (rnd_int(4) == 0)
				same = rnd_int(same + 1);	/* less than it could: still right */
			for (j = 0; j < same; j++)
				el[j] = (IsoSlice) {"not read", 8};	/* the kept are not read */
			iso_history_add_list_kept(&h, 0, (IsoSlice) {key, (int32) strlen(key)},
									  el, n, same);
		}
		else
			iso_history_add_list(&h, 0, (IsoSlice) {key, (int32) strlen(key)}, el, n);
		prev[k] = r;
		memset(texts, 'z', sizeof(texts));
		if (kind >= 3 || plen == 0)
			last[k] = r;		/* the read later ones repeat or extend */
		total += (uint64) n;
	}
	iso_history_end_input(&h);
	for (r = 0; r < RL_READS && bad < 0; r++)
	{
		const IsoOp *op = &h.ops[r];
		int			j;

		if (op->list_len != lens[r] ||
			(uint64) op->list_first + (uint64) op->list_len > h.n_elems)
			bad = r;
		for (j = 0; j < lens[r] && bad < 0; j++)
		{
			int32		len;
			const char *t = iso_strtab_get(&h.values, h.elems[op->list_first + j], &len);
			char		want[12];

			snprintf(want, sizeof(want), "%d", lists[r][j]);
			if (len != (int32) strlen(want) || memcmp(t, want, len) != 0)
			{
				diag("read %d (key %d) element %d: '%.*s', expected '%s'",
					 r, keys[r], j, len, t, want);
				bad = r;
			}
		}
	}
	ok(bad < 0, "%s: each of %d names its own texts (first wrong: %d)",
	   how, RL_READS, bad);
	ok(h.n_elems < total / 3,
	   "%s: shared, %llu elements stored for %llu read",
	   how, (unsigned long long) h.n_elems, (unsigned long long) total);
	for (r = 0; r < (int) h.n_elems && h.elems[r] < h.values.n; r++)
		;
	ok((uint64) r == h.n_elems, "%s: every stored element is a value id (room too)", how);
	iso_history_free(&h);
}

/* A list read of *(int32 *) arg elements; exit 4 if its op lost the length or kind. */
static void
add_list_read_of_len(void *arg)
{
	int32		len = *(int32 *) arg;
	IsoHistory	h;
	uint32		o;

	iso_history_init(&h, ISO_WORKLOAD_LIST_APPEND);
	iso_history_add_txn(&h, 1, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
	o = iso_history_add_list_read(&h, 0, (IsoSlice) {"k", 1}, len);
	if (h.ops[o].list_len != len || h.ops[o].kind != ISO_OP_READ)
		_exit(4);
}

/*
 * An op added to a transaction that already counts *arg ops (the count is
 * set, not built: 2^28 ops would take 3 GB), with the status and process
 * flag that share the count's word.
 */
static void
add_op_to_txn_of(void *arg)
{
	uint32		n = *(uint32 *) arg;
	IsoHistory	h;

	iso_history_init(&h, ISO_WORKLOAD_RW_REGISTER);
	iso_history_add_txn(&h, 1, ISO_STATUS_INFO, true, 7, ISO_NO_TIME, ISO_NO_TIME);
	h.txns[0].n_ops = n;
	iso_history_add_op(&h, ISO_OP_WRITE, 0, (IsoSlice) {"k", 1}, (IsoSlice) {"1", 1}, NULL, -1);
	if (h.txns[0].n_ops != n + 1 || h.txns[0].status != ISO_STATUS_INFO || !h.txns[0].has_process)
		_exit(4);
}

/* A read of key x after [a], said to keep *arg elements of it. */
static void
add_list_keeping(void *arg)
{
	int32		kept = *(int32 *) arg;
	IsoSlice	abc[3] = {{"a", 1}, {"b", 1}, {"c", 1}};
	IsoHistory	h;

	iso_history_init(&h, ISO_WORKLOAD_LIST_APPEND);
	iso_history_add_txn(&h, 1, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
	iso_history_add_list(&h, 0, (IsoSlice) {"x", 1}, abc, 1);
	iso_history_add_list_kept(&h, 1, (IsoSlice) {"x", 1}, abc, 3, kept);
}

static void
list_kept_limit(void)
{
	int32		kept = 1;
	char		said[256];

	ok(run_in_child(add_list_keeping, &kept) == CHILD_RETURNED,
	   "a list read keeping the 1 element of the key's previous read");
	kept = 2;
	ok(child_stops_saying(add_list_keeping, &kept,
						  "a list read keeps more elements than the key's previous read has",
						  said, sizeof(said)),
	   "keeping 2 of the previous read's 1 stops the check, saying so (%s)", said);
	kept = -1;
	ok(child_stops_saying(add_list_keeping, &kept,
						  "a list read keeps more elements than the key's previous read has",
						  said, sizeof(said)),
	   "keeping -1 stops the check (%s)", said);
}

static void
list_len_limit(void)
{
	int32		len = ISO_OP_MAX_LIST_LEN;
	char		said[256];

	ok(sizeof(IsoOp) == 12, "an op is 12 bytes (%zu)", sizeof(IsoOp));
	ok(sizeof(IsoTxn) == 40, "a transaction is 40 bytes (%zu)", sizeof(IsoTxn));
	/* list_len shares a word with kind: the largest length is kept, the next stops */
	ok(run_in_child(add_list_read_of_len, &len) == CHILD_RETURNED,
	   "a list read of 2^29 - 1 elements keeps its length and kind");
	len++;
	ok(child_stops_saying(add_list_read_of_len, &len, "a list read of more than 2^29 - 1 elements",
						  said, sizeof(said)),
	   "a list read of 2^29 elements stops the check, saying so (%s)", said);
}

static void
txn_ops_limit(void)
{
	uint32		n = ISO_TXN_MAX_OPS - 1;
	char		said[256];

	/* n_ops shares a word with status and has_process: 2^28 - 1 fit, no more */
	ok(run_in_child(add_op_to_txn_of, &n) == CHILD_RETURNED,
	   "a transaction's 2^28 - 1st op is counted, its status and process flag kept");
	n++;
	ok(child_stops_saying(add_op_to_txn_of, &n, "a transaction of more than 2^28 - 1 micro-operations",
						  said, sizeof(said)),
	   "a transaction's 2^28th op stops the check, saying so (%s)", said);
}

/*
 * The memos of the keys' last list reads live in two pools of the history,
 * not in allocations of their own: in the server, small allocations a key
 * (125,000 keys at 1M list-append transactions) stayed in the history's
 * memory context as 50 MB of free chunks after the input ended.  Here the
 * standalone host counts the blocks: a few for the whole history, however
 * many keys it has.
 */
extern int64 iso_standalone_live_blocks(void);

static void
list_memos_pooled(void)
{
	IsoHistory	h;
	int64		before;
	int64		during;
	int			k;

	before = iso_standalone_live_blocks();
	iso_history_init(&h, ISO_WORKLOAD_LIST_APPEND);
	for (k = 0; k < 5000; k++)
	{
		char		key[16];
		char		texts[3][16];
		IsoSlice	el[3];
		int			j;

		snprintf(key, sizeof(key), "k%d", k);
		for (j = 0; j < 3; j++)
		{
			snprintf(texts[j], sizeof(texts[j]), "%d", k * 3 + j);
			el[j] = (IsoSlice) {texts[j], (int32) strlen(texts[j])};
		}
		iso_history_add_txn(&h, k, ISO_STATUS_OK, false, 0, ISO_NO_TIME, ISO_NO_TIME);
		iso_history_add_list(&h, 0, (IsoSlice) {key, (int32) strlen(key)}, el, 3);
	}
	during = iso_standalone_live_blocks() - before;
	ok(during < 40, "list memos: %lld blocks live for the lists of 5000 keys",
	   (long long) during);
	iso_history_end_input(&h);
	iso_history_free(&h);
	ok(iso_standalone_live_blocks() == before,
	   "list memos: every block freed with the history (%lld left)",
	   (long long) (iso_standalone_live_blocks() - before));
}

int
main(void)
{
	IsoHistory	h;

	build_list_append(&h);
	/* elements: x's [1], [1] and [1 2] share 2 (grown in place); z's 3; [1 2 3] */
	ok(h.n_txns == 5 && h.n_ops == 12 + MANY_VALUES && h.n_elems == 3 + 2 + 3 &&
	   h.keys.n == 6 && h.values.n == 5 + MANY_VALUES && h.values.nslots > 2048,
	   "list-append: built (%u txns, %u ops, %llu elements, %u keys, %u values in %u slots)",
	   h.n_txns, h.n_ops, (unsigned long long) h.n_elems, h.keys.n, h.values.n,
	   h.values.nslots);
	ok(h.op_pos == NULL && iso_op_pos(&h, h.txns[4].first_op + 7) == 7,
	   "list-append: positions 0, 1, 2, ... in each transaction are not stored");
	round_trip("list-append", &h);
	history_free(&h);

	build_rw_register(&h);
	ok(h.n_txns == 4 && h.n_ops == 7 && h.n_elems == 0 && h.ops[3].value == ISO_NONE &&
	   h.ops[5].value == ISO_NONE && h.ops[3].list_len == -1 && h.ops[2].value == 0,
	   "rw-register: built (nil reads have value ISO_NONE, no list)");
	ok(h.op_pos != NULL && iso_op_pos(&h, 0) == 0 && iso_op_pos(&h, 1) == 1 &&
	   iso_op_pos(&h, 3) == 1 && iso_op_pos(&h, 4) == 5 && iso_op_pos(&h, 5) == 0,
	   "rw-register: a gap in the positions keeps every op's (0 1 | 0 1 5 | 0 | 0)");
	round_trip("rw-register", &h);
	history_free(&h);

	iso_history_init(&h, ISO_WORKLOAD_LIST_APPEND);
	iso_history_end_input(&h);
	round_trip("empty", &h);
	history_free(&h);

	break_rules();
	sizes_follow_header();
	strtab_small_ints();
	list_memo_ids();
	op_transactions();
	txn_ops_limit();
	list_reads_random(false);
	list_reads_random(true);
	list_memos_pooled();
	list_kept_limit();
	list_len_limit();
	return tap_done();
}
