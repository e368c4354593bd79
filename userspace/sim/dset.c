// SPDX-License-Identifier: GPL-2.0
/* A compact set of 64-bit digests: see dset.h. */
#include <stdlib.h>

#include "dset.h"

#define DSET_MIN_CAP 16u

int dset_init(struct dset *d)
{
	unsigned int i;

	d->n = 0;
	d->bytes = 0;
	d->sh = calloc(DSET_SHARDS, sizeof(*d->sh));
	if (!d->sh)
		return -1;
	for (i = 0; i < DSET_SHARDS; i++) {
		d->sh[i].slot = calloc(DSET_MIN_CAP, sizeof(uint64_t));
		if (!d->sh[i].slot) {
			dset_free(d);
			return -1;
		}
		d->sh[i].cap = DSET_MIN_CAP;
		d->bytes += DSET_MIN_CAP * sizeof(uint64_t);
	}
	return 0;
}

/* The slot of x in s: where it is, or the free slot where it would go. */
static uint64_t *find(const struct dset_shard *s, uint64_t x)
{
	uint32_t i = (uint32_t)x & (s->cap - 1);

	while (s->slot[i] && s->slot[i] != x)
		i = (i + 1) & (s->cap - 1);
	return &s->slot[i];
}

static int grow(struct dset *d, struct dset_shard *s)
{
	struct dset_shard big = { .cap = s->cap * 2, .used = s->used };
	uint32_t i;

	big.slot = calloc(big.cap, sizeof(uint64_t));
	if (!big.slot)
		return -1;
	for (i = 0; i < s->cap; i++)
		if (s->slot[i])
			*find(&big, s->slot[i]) = s->slot[i];
	free(s->slot);
	d->bytes += (uint64_t)s->cap * sizeof(uint64_t);
	*s = big;
	return 0;
}

/* fmix64 (addrhash.h), a bijection: small synthetic ids spread as hashes */
int dset_add(struct dset *d, uint64_t digest)
{
	uint64_t x = pd_ah_fmix(digest);
	struct dset_shard *s = &d->sh[x >> (64 - DSET_SHARD_BITS)];
	uint64_t *p;

	x = x ? x : 1;		/* 0 marks a free slot */
	p = find(s, x);
	if (*p)
		return 1;
	if (4 * (uint64_t)(s->used + 1) > 3 * (uint64_t)s->cap) {
		if (grow(d, s))
			return -1;
		p = find(s, x);
	}
	*p = x;
	s->used++;
	d->n++;
	return 0;
}

void dset_free(struct dset *d)
{
	unsigned int i;

	if (d->sh)
		for (i = 0; i < DSET_SHARDS; i++)
			free(d->sh[i].slot);
	free(d->sh);
	d->sh = NULL;
}
