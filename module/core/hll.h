/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HyperLogLog distinct counting (Flajolet et al. 2007) with the improved
 * estimator of Ertl ("New cardinality estimation algorithms for
 * HyperLogLog sketches", 2017): no empirical bias tables, a relative
 * standard error of about 1.04/sqrt(m) from tiny to huge cardinalities.
 *
 * m = 2^14 registers of one byte (16 KiB): standard error 0.81%, so 95% of
 * estimates fall within 1.6%. Sketches merge by register-wise maximum: the
 * merge of the sketches of A and B is exactly the sketch of A u B, which is
 * what lets per-CPU and per-sub-window sketches answer for their union.
 * The estimator is integer arithmetic (Q32.32 and Q62), for the kernel.
 */
#ifndef PD_HLL_H
#define PD_HLL_H

#include "pd_port.h"

#define PD_HLL_P 14
#define PD_HLL_M 16384u		/* 2^PD_HLL_P registers */
#define PD_HLL_Q (64 - PD_HLL_P)	/* register values 0..Q+1 */

struct pd_hll {
	u8 reg[PD_HLL_M];
};

void pd_hll_clear(struct pd_hll *h);

/*
 * Add an element by its 64-bit hash (uniform bits). The register is the
 * hash's low P bits and its value the rank of the lowest 1 bit above them,
 * 1..Q+1 (Q+1: none): the convention of PostgreSQL's hll extension, whose
 * sketches these registers are (hllpg.h), for the same hashes.
 *
 * In two halves, for a batch of additions (srcwin.h): the update of a
 * hash, its register in the low 16 bits and the value above them (never
 * 0), then the update's application to a sketch.
 */
static inline u32 pd_hll_update(u64 hash)
{
	return ((u32)hash & (PD_HLL_M - 1)) |
	       (u32)(__builtin_ctzll((hash >> PD_HLL_P) |
				     ((u64)1 << PD_HLL_Q)) + 1) << 16;
}

static inline void pd_hll_apply(struct pd_hll *h, u32 upd)
{
	u8 *r = &h->reg[upd & 0xffff];

	if ((u8)(upd >> 16) > *r)
		*r = (u8)(upd >> 16);
}

static inline void pd_hll_add(struct pd_hll *h, u64 hash)
{
	pd_hll_apply(h, pd_hll_update(hash));
}

/* dst = dst u src */
void pd_hll_merge(struct pd_hll *dst, const struct pd_hll *src);
/* The estimated number of distinct elements added. */
u64 pd_hll_estimate(const struct pd_hll *h);

#endif /* PD_HLL_H */
