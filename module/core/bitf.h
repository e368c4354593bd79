/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bit-array filters of Bera, Dutta, Narang and Bhattacherjee
 * ("Advanced Bloom Filter Based Algorithms for Efficient Approximate Data
 * De-Duplication in Streams"): k arrays of s bits; an element has one
 * position in each array and is a DUPLICATE iff all k of its bits are set
 * (the printed BSBF/BSBFSD/RLBSBF pseudo-code swaps the verdicts: errata 5).
 * They differ in what they insert and what they reset, always resetting
 * before the element's own bits are set:
 *
 *   RSBF    (reservoir sampling, Algorithm 1) phase 1, the first s
 *           elements: every element sets its bits. Phase 2, while
 *           s/iter > p*: a DISTINCT element is inserted with probability
 *           s/iter, resetting one random bit of every array first. Phase 3,
 *           once s/iter <= p*: every DISTINCT element sets each of its zero
 *           bits and, for each, resets a set bit of that array, searched
 *           from a random position over at most PD_BITF_SEARCH words (the
 *           paper's search is unbounded: errata 7). iter counts the
 *           elements this filter has seen (one filter per CPU: per CPU),
 *           from 1 when the filter is built or reset; phase 3 arrives after
 *           s/p* elements, seconds on a busy link, and lasts.
 *   BSBF    (biased sampling, Algorithm 2) every DISTINCT element resets
 *           one random bit of every array, then sets its bits.
 *   BSBFSD  (single deletion, Algorithm 3) every DISTINCT element resets one
 *           random bit of one random array, then sets its bits.
 *   RLBSBF  (randomized load balancing, Algorithm 4) every DISTINCT element
 *           picks a random bit of every array and resets it with probability
 *           L_i / s (L_i the array's set bits), then sets its bits.
 *
 * Every array keeps L_i, its number of set bits, exact (updated when a bit
 * changes), so occupancy is known without a scan. Positions come from two
 * 32-bit hashes by double hashing onto [0, s), as the SBF's do. Randomness
 * comes from the filter's own splitmix64 state: nothing is shared between
 * filters (CPUs).
 */
#ifndef PD_BITF_H
#define PD_BITF_H

#include "pd_port.h"
#include "../uapi/pktdedup.h"

#define PD_BITF_MAX_K 16
#define PD_BITF_MIN_BITS 64		/* per array */
#define PD_BITF_MAX_BITS 0xffffffc0ULL	/* per array: 32-bit indices */
#define PD_BITF_SEARCH 8		/* RSBF phase 3: words searched */
#define PD_BITF_DEFAULT_PSTAR_PPB 30000000u	/* p* = 0.03, the paper's */

struct pd_bitf_params {
	u64 bits;		/* s, per array; rounded down to 64 by init */
	u32 k;			/* arrays, 1..PD_BITF_MAX_K */
	u8 kind;		/* PKTDEDUP_FILTER_KIND_RSBF ... _RLBSBF */
	u32 p_star_ppb;		/* RSBF: the insertion floor p*, (0, 10^9) */
};

struct pd_bitf {
	u64 *words;		/* k arrays of nwords words, array i first */
	u32 s;			/* bits per array, a multiple of 64 */
	u32 nwords;		/* words per array */
	u8 k;
	u8 kind;		/* PKTDEDUP_FILTER_KIND_* */
	u64 iter;		/* RSBF: elements seen, saturating at iter3 */
	u64 iter3;		/* RSBF: the first iter of phase 3, s / p* */
	u64 rng;		/* resets, sampling */
	u32 load[PD_BITF_MAX_K];	/* set bits per array */
};

/* The state of a filter of a bit-array family (filter.h's pd_filter_priv()). */
#define pd_bitf_of(f) ((struct pd_bitf *)pd_filter_priv(f))

/* The bit-array families' settings in a request (pd_filter_req.fam). */
struct pd_bitf_req {
	u64 k;			/* arrays, or PD_FILTER_AUTO */
	u64 p_star_ppb;		/* rsbf: the insertion floor; 0: 0.03 */
};

#define pd_bitf_req(r) ((struct pd_bitf_req *)(r)->fam)

/* Validate params; 0 or a negative errno with *why. */
int pd_bitf_check(const struct pd_bitf_params *prm, const char **why);
/* Bits per array init will use (s rounded down to whole words). */
u64 pd_bitf_usable_bits(const struct pd_bitf_params *prm);
/* Bytes of memory the arrays take. */
size_t pd_bitf_bytes(const struct pd_bitf_params *prm);
/*
 * The most 64-byte lines of its arrays one step of family kind with k
 * arrays reads or writes (filter.h's step_lines): a probe and a reset
 * per array (BSBFSD: one reset), RSBF's phase-3 search instead of the
 * reset; never more than 5 k.
 */
u64 pd_bitf_step_lines(u8 kind, u32 k);
/* Set up over zeroed memory of pd_bitf_bytes(); 0 or a negative errno. */
int pd_bitf_init(struct pd_bitf *f, const struct pd_bitf_params *prm,
		 u64 *words, const char **why);
/* The state of the random generator (tests and the simulator fix it). */
void pd_bitf_set_rng(struct pd_bitf *f, u64 rng);
/* All bits zero, loads zero, RSBF back to phase 1. */
void pd_bitf_clear(struct pd_bitf *f);

/* One element with hashes h1, h2: the verdict (true: duplicate), and the
 * family's update.
 */
bool pd_bitf_step(struct pd_bitf *f, u32 h1, u32 h2);
/* The verdict, without changing the filter. */
bool pd_bitf_query(const struct pd_bitf *f, u32 h1, u32 h2);
/* The element's position in each array (k of them). */
void pd_bitf_positions(const struct pd_bitf *f, u32 h1, u32 h2, u32 *pos);
/* Bit i of array a. */
bool pd_bitf_bit(const struct pd_bitf *f, unsigned int a, u32 i);
/* Set bits of array a, counted (tests compare it with load[a]). */
u64 pd_bitf_count(const struct pd_bitf *f, unsigned int a);
/* All set bits, from the loads. */
u64 pd_bitf_set_bits(const struct pd_bitf *f);

#endif /* PD_BITF_H */
