/*
 * rng.h: the random numbers of a run: splitmix64, so a --seed replays the
 * same transactions (each session and the nemesis have their own state).
 */
#ifndef ISOGRAPH_RECORD_RNG_H
#define ISOGRAPH_RECORD_RNG_H

#include <stdint.h>

static inline uint64_t
rng_next(uint64_t *s)
{
	uint64_t	z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* uniform in [0, 1) */
static inline double
rng_unit(uint64_t *s)
{
	return (double) (rng_next(s) >> 11) / (double) (1ULL << 53);
}

#endif
