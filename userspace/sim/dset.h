/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A compact set of 64-bit key digests (or of wider ones, in words of 64
 * bits: the frame truth's 128-bit digests): the exact ground truth of a
 * long capture when all it must say is whether a key was seen before.
 *
 * 4096 open-addressing shards (linear probing, 8-byte slots, the digest
 * itself, 0 marking a free slot) chosen by a digest's top bits; a shard
 * doubles when it is three quarters full, so a set holds a key in 10.7
 * to 21.3 bytes, and growing copies one shard (1/4096 of the set) at a
 * time: no moment holds two copies of the whole set. Exact for the
 * digests: two keys are taken for one only if their 64-bit digests
 * collide; the chance of any collision among n keys is about n^2 / 2^65
 * (3e-8 for 10^6 keys, 3% for 10^9). A set of two-word digests takes
 * twice the bytes (21.3 to 42.7 a digest) and collides as its digests
 * do (frametruth.h).
 */
#ifndef PD_SIM_DSET_H
#define PD_SIM_DSET_H

#include <stdint.h>

#include "../../module/core/addrhash.h"

#define DSET_SHARD_BITS 12
#define DSET_SHARDS (1u << DSET_SHARD_BITS)

struct dset_shard {
	uint64_t *slot;
	uint32_t cap;		/* a power of two */
	uint32_t used;
};

struct dset {
	struct dset_shard *sh;
	unsigned int words;	/* 64-bit words a digest: 1 or 2 */
	uint64_t n;		/* digests held */
	uint64_t bytes;		/* slots allocated, in bytes */
};

int dset_init(struct dset *d);
/* A set of digests of `words` (1 or 2) 64-bit words. */
int dset_init_words(struct dset *d, unsigned int words);
/* 1: seen before; 0: new, added; -1: out of memory (nothing added). */
int dset_add(struct dset *d, uint64_t digest);
/* The same for a digest of the set's words. */
int dset_add_id(struct dset *d, const uint64_t *id);
void dset_free(struct dset *d);

#endif /* PD_SIM_DSET_H */
