/*
 * host.h
 *	  The memory limit of a build (host.c); the rest of the host interface
 *	  is declared in src/core/port.h.
 */
#ifndef ISOGRAPH_HOST_H
#define ISOGRAPH_HOST_H

#include "postgres.h"

/* ERROR (54000) when cxt holds more than isograph.max_memory. */
extern void iso_check_memory(MemoryContext cxt);

/* Make cxt the context that ISO_CHECK_INTERRUPTS checks, until it is reset. */
extern void iso_memory_limit_context(MemoryContext cxt);

#endif							/* ISOGRAPH_HOST_H */
