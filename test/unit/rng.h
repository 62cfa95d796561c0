/*
 * rng.h
 *	  The unit tests' random numbers: splitmix64, tiny and the same on every
 *	  machine, so that a printed seed replays a run.  Set rng_state to the
 *	  seed.
 */
#ifndef ISOGRAPH_TEST_RNG_H
#define ISOGRAPH_TEST_RNG_H

#include <stdbool.h>

#include "port.h"

static uint64 rng_state;

static inline uint64
rnd(void)
{
	uint64		z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* 0 .. n - 1 */
static inline int
rnd_int(int n)
{
	return (int) (rnd() % (uint64) n);
}

static inline bool
chance(int percent)
{
	return rnd_int(100) < percent;
}

#endif							/* ISOGRAPH_TEST_RNG_H */
