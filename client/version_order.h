/*
 * version_order.h: the version order of each register key, rebuilt from
 * what the server returned to the writes (rw-register runs).
 */
#ifndef ISOGRAPH_RECORD_VERSION_ORDER_H
#define ISOGRAPH_RECORD_VERSION_ORDER_H

#include "history.h"

/* Fills (key, position, value) rows, malloc'd (NULL if none); returns their count. */
size_t		version_order(History *h, int64_t **keys, int64_t **vals, int **positions);

#endif
