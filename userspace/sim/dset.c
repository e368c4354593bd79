// SPDX-License-Identifier: GPL-2.0
/* A compact set of 64-bit digests: see dset.h. */
#include <stdbool.h>
#include <stdlib.h>

#include "dset.h"

#define DSET_MIN_CAP 16u
#define DSET_MAX_WORDS 2u

int dset_init(struct dset *d)
{
	return dset_init_words(d, 1);
}

int dset_init_words(struct dset *d, unsigned int words)
{
	unsigned int i;

	d->n = 0;
	d->bytes = 0;
	d->words = words;
	d->sh = calloc(DSET_SHARDS, sizeof(*d->sh));
	if (!d->sh || !words || words > DSET_MAX_WORDS) {
		free(d->sh);
		d->sh = NULL;
		return -1;
	}
	for (i = 0; i < DSET_SHARDS; i++) {
		d->sh[i].slot = calloc((size_t)DSET_MIN_CAP * words,
				       sizeof(uint64_t));
		if (!d->sh[i].slot) {
			dset_free(d);
			return -1;
		}
		d->sh[i].cap = DSET_MIN_CAP;
		d->bytes += DSET_MIN_CAP * sizeof(uint64_t) * words;
	}
	return 0;
}

static bool same(const uint64_t *a, const uint64_t *b, unsigned int words)
{
	return a[0] == b[0] && (words < 2 || a[1] == b[1]);
}

/*
 * The slot of x (words long) in s: where it is, or the free slot where it
 * would go (a slot's first word 0: free).
 */
static uint64_t *find(const struct dset_shard *s, const uint64_t *x,
		      unsigned int words)
{
	uint32_t i = (uint32_t)x[0] & (s->cap - 1);

	while (s->slot[(size_t)i * words] &&
	       !same(&s->slot[(size_t)i * words], x, words))
		i = (i + 1) & (s->cap - 1);
	return &s->slot[(size_t)i * words];
}

static void put(uint64_t *p, const uint64_t *x, unsigned int words)
{
	p[0] = x[0];
	if (words > 1)
		p[1] = x[1];
}

static int grow(struct dset *d, struct dset_shard *s)
{
	struct dset_shard big = { .cap = s->cap * 2, .used = s->used };
	unsigned int w = d->words;
	uint32_t i;

	big.slot = calloc((size_t)big.cap * w, sizeof(uint64_t));
	if (!big.slot)
		return -1;
	for (i = 0; i < s->cap; i++)
		if (s->slot[(size_t)i * w])
			put(find(&big, &s->slot[(size_t)i * w], w),
			    &s->slot[(size_t)i * w], w);
	free(s->slot);
	d->bytes += (uint64_t)s->cap * sizeof(uint64_t) * w;
	*s = big;
	return 0;
}

int dset_add(struct dset *d, uint64_t digest)
{
	return dset_add_id(d, &digest);
}

/* fmix64 (addrhash.h), a bijection: small synthetic ids spread as hashes */
int dset_add_id(struct dset *d, const uint64_t *id)
{
	uint64_t x[DSET_MAX_WORDS] = { pd_ah_fmix(id[0]) };
	struct dset_shard *s = &d->sh[x[0] >> (64 - DSET_SHARD_BITS)];
	uint64_t *p;

	x[0] = x[0] ? x[0] : 1;		/* 0 marks a free slot */
	if (d->words > 1)
		x[1] = id[1];
	p = find(s, x, d->words);
	if (*p)
		return 1;
	if (4 * (uint64_t)(s->used + 1) > 3 * (uint64_t)s->cap) {
		if (grow(d, s))
			return -1;
		p = find(s, x, d->words);
	}
	put(p, x, d->words);
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
