/*
 * history_util.h
 *	  Freeing what the history builder allocates (the cores have no free
 *	  functions), for the standalone unit tests.
 */
#ifndef ISOGRAPH_TEST_HISTORY_UTIL_H
#define ISOGRAPH_TEST_HISTORY_UTIL_H

#include "history.h"

static inline void
strtab_free(IsoStrTab *t)
{
	iso_free(t->arena);
	iso_free(t->offsets);
	iso_free(t->slots);
	iso_free(t->hashes);
}

static inline void
history_free(IsoHistory *h)
{
	iso_free(h->txns);
	iso_free(h->ops);
	iso_free(h->elems);
	strtab_free(&h->keys);
	strtab_free(&h->values);
	memset(h, 0, sizeof(*h));
}

#endif							/* ISOGRAPH_TEST_HISTORY_UTIL_H */
