/*
 * image.c
 *	  The compact image of a history: describing its sections, allocating
 *	  them for a read-back, validating what was read.
 *
 * The sections are the arrays of IsoHistory as they are in memory, so
 * writing is a copy and reading is a copy: no parsing, no interning.  The
 * layout is this build's (struct sizes, byte order); the header records it
 * and a header from another layout is refused, so the checker falls back to
 * the events.  Validation is one linear pass over the ids, cheap next to the
 * graph build, and keeps a damaged image from sending any later array
 * access out of bounds.
 */
#include "port.h"

#include "image.h"

static void
describe_strtab(const IsoStrTab *tab, IsoImageLayout *layout, int first)
{
	layout->ptr[first] = tab->arena;
	layout->bytes[first] = tab->arena_len;
	layout->ptr[first + 1] = tab->offsets;
	layout->bytes[first + 1] = sizeof(uint64) * ((uint64) tab->n + 1);
	layout->ptr[first + 2] = tab->hashes;
	layout->bytes[first + 2] = sizeof(uint32) * (uint64) tab->n;
	layout->ptr[first + 3] = tab->slots;
	layout->bytes[first + 3] = sizeof(uint32) * (uint64) tab->nslots;
}

void
iso_image_describe(const IsoHistory *h, IsoImageLayout *layout)
{
	IsoImageHeader *hd = &layout->header;

	memset(layout, 0, sizeof(*layout));
	hd->magic = ISO_IMAGE_MAGIC;
	hd->format = ISO_IMAGE_FORMAT;
	hd->txn_size = sizeof(IsoTxn);
	hd->op_size = sizeof(IsoOp);
	hd->workload = (uint32) h->workload;
	hd->n_txns = h->n_txns;
	hd->n_ops = h->n_ops;
	hd->has_op_pos = h->op_pos != NULL;
	hd->n_elems = h->n_elems;
	hd->n_keys = h->keys.n;
	hd->key_slots = h->keys.nslots;
	hd->key_arena = h->keys.arena_len;
	hd->n_values = h->values.n;
	hd->value_slots = h->values.nslots;
	hd->value_arena = h->values.arena_len;

	layout->ptr[ISO_IMAGE_HEADER] = hd;
	layout->bytes[ISO_IMAGE_HEADER] = sizeof(*hd);
	layout->ptr[ISO_IMAGE_TXNS] = h->txns;
	layout->bytes[ISO_IMAGE_TXNS] = sizeof(IsoTxn) * (uint64) h->n_txns;
	layout->ptr[ISO_IMAGE_OPS] = h->ops;
	layout->bytes[ISO_IMAGE_OPS] = sizeof(IsoOp) * (uint64) h->n_ops;
	layout->ptr[ISO_IMAGE_ELEMS] = h->elems;
	layout->bytes[ISO_IMAGE_ELEMS] = sizeof(uint32) * h->n_elems;
	layout->ptr[ISO_IMAGE_OP_POS] = h->op_pos;
	layout->bytes[ISO_IMAGE_OP_POS] = h->op_pos ? sizeof(int32) * (uint64) h->n_ops : 0;
	describe_strtab(&h->keys, layout, ISO_IMAGE_KEY_ARENA);
	describe_strtab(&h->values, layout, ISO_IMAGE_VALUE_ARENA);
}

void
iso_image_sizes(const IsoImageHeader *hd, uint64 bytes[ISO_IMAGE_NSECTIONS])
{
	bytes[ISO_IMAGE_HEADER] = sizeof(IsoImageHeader);
	bytes[ISO_IMAGE_TXNS] = sizeof(IsoTxn) * (uint64) hd->n_txns;
	bytes[ISO_IMAGE_OPS] = sizeof(IsoOp) * (uint64) hd->n_ops;
	bytes[ISO_IMAGE_ELEMS] = sizeof(uint32) * hd->n_elems;
	bytes[ISO_IMAGE_KEY_ARENA] = hd->key_arena;
	bytes[ISO_IMAGE_KEY_OFFSETS] = sizeof(uint64) * ((uint64) hd->n_keys + 1);
	bytes[ISO_IMAGE_KEY_HASHES] = sizeof(uint32) * (uint64) hd->n_keys;
	bytes[ISO_IMAGE_KEY_SLOTS] = sizeof(uint32) * (uint64) hd->key_slots;
	bytes[ISO_IMAGE_VALUE_ARENA] = hd->value_arena;
	bytes[ISO_IMAGE_VALUE_OFFSETS] = sizeof(uint64) * ((uint64) hd->n_values + 1);
	bytes[ISO_IMAGE_VALUE_HASHES] = sizeof(uint32) * (uint64) hd->n_values;
	bytes[ISO_IMAGE_VALUE_SLOTS] = sizeof(uint32) * (uint64) hd->value_slots;
	bytes[ISO_IMAGE_OP_POS] = hd->has_op_pos ? sizeof(int32) * (uint64) hd->n_ops : 0;
}

/* Allocate a string table of n strings for a read-back. */
static void
prepare_strtab(IsoStrTab *tab, uint32 n, uint32 nslots, uint64 arena_len)
{
	memset(tab, 0, sizeof(*tab));
	tab->n = n;
	tab->cap = n + 1;			/* interning may go on: keep its invariants */
	tab->nslots = nslots;
	tab->arena_len = arena_len;
	tab->arena_cap = Max(arena_len, 1);
	tab->arena = iso_alloc(tab->arena_cap);
	tab->offsets = iso_alloc(sizeof(uint64) * ((uint64) tab->cap + 1));
	tab->hashes = iso_alloc(sizeof(uint32) * (uint64) tab->cap);
	tab->slots = iso_alloc(sizeof(uint32) * (uint64) nslots);
}

static bool
slots_fit(uint32 n, uint32 nslots)
{
	/* a power of two with at least one empty slot, so probing ends */
	return nslots >= 2 && (nslots & (nslots - 1)) == 0 && n < nslots &&
		n < PG_UINT32_MAX - 2;
}

const char *
iso_image_prepare(const IsoImageHeader *hd, IsoHistory *h, IsoImageLayout *layout)
{
	if (hd->magic != ISO_IMAGE_MAGIC || hd->format != ISO_IMAGE_FORMAT)
		return "the image has another format";
	if (hd->txn_size != sizeof(IsoTxn) || hd->op_size != sizeof(IsoOp))
		return "the image was written by a build with another memory layout";
	if (hd->workload != ISO_WORKLOAD_LIST_APPEND && hd->workload != ISO_WORKLOAD_RW_REGISTER)
		return "the image has an unknown workload";
	if (!slots_fit(hd->n_keys, hd->key_slots) || !slots_fit(hd->n_values, hd->value_slots))
		return "the image's hash tables are malformed";
	if (hd->n_ops == PG_UINT32_MAX || hd->n_elems > PG_UINT32_MAX || hd->has_op_pos > 1)
		return "the image's counts are out of range";

	memset(h, 0, sizeof(*h));
	h->workload = (IsoWorkload) hd->workload;
	h->n_txns = h->cap_txns = hd->n_txns;
	h->n_ops = h->cap_ops = hd->n_ops;
	h->n_elems = h->cap_elems = hd->n_elems;
	h->txns = iso_alloc(sizeof(IsoTxn) * Max((uint64) hd->n_txns, 1));
	h->ops = iso_alloc(sizeof(IsoOp) * Max((uint64) hd->n_ops, 1));
	if (hd->has_op_pos)
	{
		h->op_pos = iso_alloc(sizeof(int32) * Max((uint64) hd->n_ops, 1));
		h->cap_op_pos = h->n_ops;
	}
	h->elems = iso_alloc(sizeof(uint32) * Max(hd->n_elems, 1));
	prepare_strtab(&h->keys, hd->n_keys, hd->key_slots, hd->key_arena);
	prepare_strtab(&h->values, hd->n_values, hd->value_slots, hd->value_arena);

	iso_image_describe(h, layout);
	layout->header = *hd;
	layout->ptr[ISO_IMAGE_HEADER] = &layout->header;
	return NULL;
}

static const char *
validate_strtab(const IsoStrTab *tab)
{
	uint32		i;
	uint32		used = 0;

	if (tab->offsets[0] != 0 || tab->offsets[tab->n] != tab->arena_len)
		return "a string table's offsets do not span its text";
	for (i = 0; i < tab->n; i++)
		if (tab->offsets[i + 1] < tab->offsets[i] ||
			tab->offsets[i + 1] - tab->offsets[i] > PG_INT32_MAX)
			return "a string table's offsets are out of order";
	for (i = 0; i < tab->nslots; i++)
	{
		if (tab->slots[i] > tab->n)
			return "a string table's hash slot names no string";
		used += tab->slots[i] != 0;
	}
	if (used != tab->n)
		return "a string table's hash slots do not match its strings";
	return NULL;
}

const char *
iso_image_validate(const IsoHistory *h)
{
	uint64		next_op = 0;
	uint64		i;
	uint32		t;
	const char *why;

	if ((why = validate_strtab(&h->keys)) != NULL ||
		(why = validate_strtab(&h->values)) != NULL)
		return why;
	for (t = 0; t < h->n_txns; t++)
	{
		const IsoTxn *txn = &h->txns[t];

		if (txn->first_op != next_op || txn->status > ISO_STATUS_INFO ||
			(uint64) txn->n_ops > h->n_ops - next_op)
			return "a transaction's micro-operations are out of range";
		next_op += txn->n_ops;
	}
	if (next_op != h->n_ops)
		return "micro-operations belong to no transaction";
	for (i = 0; i < h->n_ops; i++)
	{
		const IsoOp *op = &h->ops[i];

		bool		list = op->list_len >= 0;

		if (op->key >= h->keys.n || op->kind > ISO_OP_APPEND ||
			(h->op_pos != NULL && h->op_pos[i] < 0) ||
			(!list && op->value != ISO_NONE && op->value >= h->values.n))
			return "a micro-operation names an unknown key or value";
		if (op->kind != ISO_OP_READ && op->value == ISO_NONE)
			return "a write has no value";
		if (op->list_len < -1 ||
			(list && (op->kind != ISO_OP_READ ||
					  (uint64) op->list_first + (uint64) op->list_len > h->n_elems)))
			return "a list read is out of range";
		/* what reading the events would have refused (history_read.c) */
		if (h->workload == ISO_WORKLOAD_LIST_APPEND ?
			(op->kind == ISO_OP_WRITE || (op->kind == ISO_OP_READ && !list && op->value != ISO_NONE)) :
			(op->kind == ISO_OP_APPEND || list))
			return "a micro-operation does not belong to the workload";
	}
	for (i = 0; i < h->n_elems; i++)
		if (h->elems[i] >= h->values.n)
			return "a list element names an unknown value";
	return NULL;
}
