// SPDX-License-Identifier: GPL-2.0
/* FPBuffering, the SBF paper's LRU-buffer baseline: see fpbuf.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/core/rng.h"
#include "fpbuf.h"

#define NIL 0xffffffffu

int fpbuf_init(struct fpbuf *b, uint64_t mem_bytes, unsigned int entry_bits,
	       double q, uint64_t rng, char *err, unsigned int errlen)
{
	uint64_t i;

	memset(b, 0, sizeof(*b));
	if (entry_bits < 8 || entry_bits > 64 || entry_bits % 8) {
		snprintf(err, errlen, "entry bits must be 8, 16, ... 64");
		return -1;
	}
	if (!(q >= 0 && q < 1)) {
		snprintf(err, errlen, "q must be in [0, 1)");
		return -1;
	}
	b->entry_bits = entry_bits;
	b->cap = mem_bytes / (entry_bits / 8);
	if (!b->cap) {
		snprintf(err, errlen, "%llu bytes hold no entry of %u bits",
			 (unsigned long long)mem_bytes, entry_bits);
		return -1;
	}
	if (b->cap > FPBUF_MAX_CAPACITY) {
		snprintf(err, errlen, "at most 2^31 entries");
		return -1;
	}
	b->fpmask = entry_bits == 64 ? UINT64_MAX : (1ULL << entry_bits) - 1;
	/* q 2^64, exact for q = 0 */
	b->q_thresh = (uint64_t)ldexp(q, 64);
	b->rng = rng;
	for (b->nbuckets = 2; b->nbuckets < b->cap; b->nbuckets <<= 1)
		;
	b->fp = calloc(b->cap, sizeof(*b->fp));
	b->prev = calloc(b->cap + 1, sizeof(*b->prev));
	b->next = calloc(b->cap + 1, sizeof(*b->next));
	b->chain = calloc(b->cap, sizeof(*b->chain));
	b->bucket = malloc(b->nbuckets * sizeof(*b->bucket));
	if (!b->fp || !b->prev || !b->next || !b->chain || !b->bucket) {
		fpbuf_free(b);
		snprintf(err, errlen, "out of memory for the buffer");
		return -1;
	}
	for (i = 0; i < b->nbuckets; i++)
		b->bucket[i] = NIL;
	/* the empty LRU list: the head (slot cap) points at itself */
	b->prev[b->cap] = (uint32_t)b->cap;
	b->next[b->cap] = (uint32_t)b->cap;
	return 0;
}

void fpbuf_free(struct fpbuf *b)
{
	free(b->fp);
	free(b->prev);
	free(b->next);
	free(b->chain);
	free(b->bucket);
	memset(b, 0, sizeof(*b));
}

uint64_t fpbuf_bytes(const struct fpbuf *b)
{
	return b->cap * (b->entry_bits / 8);
}

static uint32_t bucket_of(const struct fpbuf *b, uint64_t fp)
{
	unsigned int shift = 64 - (unsigned int)__builtin_ctz(b->nbuckets);

	return (uint32_t)((fp * 0x9e3779b97f4a7c15ULL) >> shift);
}

static void lru_unlink(struct fpbuf *b, uint32_t s)
{
	b->next[b->prev[s]] = b->next[s];
	b->prev[b->next[s]] = b->prev[s];
}

/* Make s the most recently used: right after the head. */
static void lru_push_front(struct fpbuf *b, uint32_t s)
{
	uint32_t head = (uint32_t)b->cap;

	b->prev[s] = head;
	b->next[s] = b->next[head];
	b->prev[b->next[head]] = s;
	b->next[head] = s;
}

/* Take slot s out of its hash chain. */
static void chain_remove(struct fpbuf *b, uint32_t s)
{
	uint32_t *link = &b->bucket[bucket_of(b, b->fp[s])];

	while (*link != s)
		link = &b->chain[*link];
	*link = b->chain[s];
}

bool fpbuf_step(struct fpbuf *b, uint64_t fp, bool *found)
{
	uint32_t bk, s;

	fp &= b->fpmask;
	bk = bucket_of(b, fp);
	for (s = b->bucket[bk]; s != NIL; s = b->chain[s])
		if (b->fp[s] == fp)
			break;
	*found = s != NIL;
	if (*found) {
		lru_unlink(b, s);
		lru_push_front(b, s);
		return true;
	}
	if (b->used < b->cap) {
		s = (uint32_t)b->used++;
	} else {
		s = b->prev[b->cap];		/* the least recently used */
		lru_unlink(b, s);
		chain_remove(b, s);
	}
	b->fp[s] = fp;
	b->chain[s] = b->bucket[bk];
	b->bucket[bk] = s;
	lru_push_front(b, s);
	return b->q_thresh && pd_rng_next(&b->rng) < b->q_thresh;
}
