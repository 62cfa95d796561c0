/*
 * history_util.h
 *	  Freeing a history in the standalone unit tests.
 */
#ifndef ISOGRAPH_TEST_HISTORY_UTIL_H
#define ISOGRAPH_TEST_HISTORY_UTIL_H

#include "history.h"

static inline void
history_free(IsoHistory *h)
{
	iso_history_free(h);
}

#endif							/* ISOGRAPH_TEST_HISTORY_UTIL_H */
