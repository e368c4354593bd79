/* SPDX-License-Identifier: GPL-2.0 */
/*
 * FPBuffering, the baseline of Deng & Rafiei (SIGMOD 2006, Sec. 2.2 and
 * Sec. 5.2, "FPbuffering Implementation"): an exact buffer of the most
 * recent distinct elements with LRU replacement (the paper chose LRU after
 * Broder et al.), looked up through a hash table. An element found in the
 * buffer is a DUPLICATE; one not found is reported DUPLICATE with
 * probability q and DISTINCT otherwise, and is stored, evicting the least
 * recently used entry when the buffer is full. q is the FP rate: the paper
 * sets it to the SBF's measured FP rate so that both make the same number
 * of false positives and only their FN rates are compared. q = 0 is the
 * paper's plain Buffering.
 *
 * Memory, as the paper counts it: each entry takes entry_bits (32 bits "on
 * the synthetic data simulating the size of an IP address", 64 bits per URL
 * fingerprint on its Web data), so a buffer of mem bytes holds
 * floor(8 mem / entry_bits) entries; the hash table and the LRU list are
 * not counted ("our error rate comparison did not account for the extra
 * space we used in buffering", Sec. 5.2 and 5.5). An entry is the
 * element's fingerprint of entry_bits bits (here from the same two seeded
 * hashes the filters use), so two elements whose fingerprints collide share
 * an entry: at most capacity / 2^entry_bits more false positives, and never
 * a false negative for a copy whose predecessor is fewer than `capacity`
 * elements back (fewer than capacity other fingerprints can have been
 * touched since, so LRU has not evicted it).
 */
#ifndef PD_SIM_FPBUF_H
#define PD_SIM_FPBUF_H

#include <stdbool.h>
#include <stdint.h>

#define FPBUF_DEFAULT_ENTRY_BITS 32
#define FPBUF_MAX_CAPACITY (1ULL << 31)

struct fpbuf {
	uint64_t cap;		/* entries the memory holds */
	uint64_t used;
	unsigned int entry_bits;
	uint64_t fpmask;	/* the low entry_bits bits */
	uint64_t q_thresh;	/* report DUPLICATE if a draw < this (q 2^64) */
	uint64_t rng;		/* the q draws */
	uint64_t *fp;		/* fingerprint of each slot */
	uint32_t *prev, *next;	/* LRU list over slots; slot cap: the head */
	uint32_t *bucket;	/* hash table: first slot of each chain */
	uint32_t *chain;	/* next slot in the same chain */
	uint32_t nbuckets;	/* a power of two, >= cap */
};

/*
 * A buffer of mem_bytes holding entries of entry_bits (8..64, a multiple of
 * 8), reporting an element it does not hold as DUPLICATE with probability
 * q in [0, 1). 0, or -1 with a message in err.
 */
int fpbuf_init(struct fpbuf *b, uint64_t mem_bytes, unsigned int entry_bits,
	       double q, uint64_t rng, char *err, unsigned int errlen);
void fpbuf_free(struct fpbuf *b);
/* The memory the entries take, as the paper counts it. */
uint64_t fpbuf_bytes(const struct fpbuf *b);
/*
 * One element with fingerprint fp (its low entry_bits bits are used): the
 * verdict (true: DUPLICATE). *found says whether the buffer held it.
 */
bool fpbuf_step(struct fpbuf *b, uint64_t fp, bool *found);

#endif /* PD_SIM_FPBUF_H */
