/* SPDX-License-Identifier: GPL-2.0 */
/*
 * splitmix64: a small, fast, statistically sound generator. The filter uses
 * it for the start of its decrement run (one per filter, so per CPU: no
 * shared state on the packet path); tests and the simulator use it for
 * reproducible streams from a fixed seed. Not for secrets: hash seeds come
 * from pd_random_u64().
 */
#ifndef PD_RNG_H
#define PD_RNG_H

#include "pd_port.h"

static inline u64 pd_rng_next(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) for n <= 2^32, by Lemire's multiply-shift. */
static inline u32 pd_rng_below(u64 *state, u32 n)
{
	return (u32)(((pd_rng_next(state) >> 32) * (u64)n) >> 32);
}

#endif /* PD_RNG_H */
