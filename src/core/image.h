/*
 * image.h
 *	  The compact image of a history: its in-memory arrays (history.h) as a
 *	  few flat sections, so a check can read them back in one piece instead
 *	  of reading, parsing and interning millions of iso_event rows.
 *
 * Plain C (no backend calls besides allocation): image_store.c writes and
 * reads the sections as rows of iso_history_image; the unit tests round-trip
 * and corrupt them.  An image is a cache: the events stay the truth, and an
 * image that does not match this build's layout is ignored.  The checksums
 * are computed by image_store.c with PostgreSQL's CRC-32C, so this file and
 * the unit tests need nothing of the server.
 */
#ifndef ISOGRAPH_IMAGE_H
#define ISOGRAPH_IMAGE_H

#include "history.h"

#define ISO_IMAGE_MAGIC		0x49534f49	/* "ISOI" */
/*
 * 1: isograph 0.2.0, no checksums.  2: a CRC-32C of every section and of
 * the header itself; images of format 1 are stale (not damaged): checks read
 * the events until iso_save_image rewrites them.  3: 12-byte ops, whose
 * positions in their transactions are a section of their own, empty when
 * each op's is its index (history.h); older images are of another layout,
 * and the first check rewrites them.
 */
#define ISO_IMAGE_FORMAT	3
/* The size of a format-1 header: today's header up to events_rev. */
#define ISO_IMAGE_HEADER_V1_BYTES	80

typedef enum IsoImageSection
{
	ISO_IMAGE_HEADER = 0,
	ISO_IMAGE_TXNS,
	ISO_IMAGE_OPS,
	ISO_IMAGE_ELEMS,
	ISO_IMAGE_KEY_ARENA,
	ISO_IMAGE_KEY_OFFSETS,
	ISO_IMAGE_KEY_HASHES,
	ISO_IMAGE_KEY_SLOTS,
	ISO_IMAGE_VALUE_ARENA,
	ISO_IMAGE_VALUE_OFFSETS,
	ISO_IMAGE_VALUE_HASHES,
	ISO_IMAGE_VALUE_SLOTS,
	ISO_IMAGE_OP_POS,			/* format 3; no bytes when h->op_pos is NULL */
	ISO_IMAGE_NSECTIONS
} IsoImageSection;

/* Counts that size every other section, plus what identifies the layout. */
typedef struct IsoImageHeader
{
	uint32		magic;
	uint32		format;
	uint32		txn_size;		/* sizeof(IsoTxn) of the writer */
	uint32		op_size;		/* sizeof(IsoOp) */
	uint32		workload;		/* IsoWorkload */
	uint32		n_txns;
	uint32		n_ops;
	uint32		has_op_pos;		/* format 3: 1 if the ops' positions are kept */
	uint64		n_elems;
	uint32		n_keys;
	uint32		key_slots;
	uint64		key_arena;
	uint32		n_values;
	uint32		value_slots;
	uint64		value_arena;
	int64		events_rev;		/* iso_history.events_rev the image is of */
	/* format 2: CRC-32C of each section's bytes (that of the header unused) */
	uint32		section_crc[ISO_IMAGE_NSECTIONS];
	uint32		header_crc;		/* of this header with header_crc = 0 */
} IsoImageHeader;

/* Where each section of a history lies in memory, and its size in bytes. */
typedef struct IsoImageLayout
{
	IsoImageHeader header;
	void	   *ptr[ISO_IMAGE_NSECTIONS];
	uint64		bytes[ISO_IMAGE_NSECTIONS];
} IsoImageLayout;

/* The sections of a built history (after iso_history_end_input). */
extern void iso_image_describe(const IsoHistory *h, IsoImageLayout *layout);

/* The size of each section a header announces (nothing is allocated). */
extern void iso_image_sizes(const IsoImageHeader *header,
							uint64 bytes[ISO_IMAGE_NSECTIONS]);

/*
 * Check a header read back and allocate h's arrays for it: afterwards
 * layout->ptr/bytes say where each section's bytes go.  Returns NULL, or
 * why the header does not belong to this build (then h is untouched).
 */
extern const char *iso_image_prepare(const IsoImageHeader *header, IsoHistory *h,
									 IsoImageLayout *layout);

/*
 * Check every id and offset of a history filled from an image, so that no
 * later array access can go out of bounds.  Returns NULL or what is wrong.
 */
extern const char *iso_image_validate(const IsoHistory *h);

#endif							/* ISOGRAPH_IMAGE_H */
