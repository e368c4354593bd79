/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parameter planner for the Stable Bloom Filter (Deng & Rafiei, Sec. 4).
 *
 * Given memory and a target false-positive rate FPS it computes:
 *  - P from Eq. 17, rounded UP so the stable FP rate stays under FPS (the
 *    paper's example rounds 10.93 down to 10, which overshoots: errata 3);
 *  - for each candidate Max, the K in 1..10 that minimises the average FN
 *    rate f(gap, k) of Eq. 16 (Eq. 9-13 evaluated exactly as the Markov
 *    chain they describe), with the cell-set probability k = K/m
 *    (the paper's phi = 0, f_i/N = 0);
 *  - Max: 1 when the typical gap is unknown (the paper's advice), otherwise
 *    the candidate of {1, 3, 7, 15} with the lowest FN rate at that gap;
 *    a larger K or Max (more work per packet) must beat a smaller one by
 *    more than 1% (relative), so near-ties go to the cheaper setting;
 *  - the FP bound of Eq. 8 and the stable zero fraction of Theorem 3 for
 *    the final parameters, and the expected FN rate at the gap;
 *  - with the blocked layout (sbf.h; Max 1 only), P rises until the FP
 *    rate of blocked cells (pd_plan_fp_blocked()) meets FPS, and that
 *    model is the FP bound; the FN rate is the flat filter's with that P
 *    (a cell's own chain does not change: each cell is still set with
 *    probability K/m and decremented with probability P/m per element);
 *    the line layout likewise, with pd_plan_fp_line().
 * All arithmetic is integer (Q62 probabilities) so the same function runs
 * in the kernel and in userspace.
 */
#ifndef PD_PLAN_H
#define PD_PLAN_H

#include "pd_port.h"

#define PD_PLAN_AUTO 0xffffffffu	/* "choose for me" for max, k, p */
#define PD_PLAN_DEFAULT_FPS_PPB 10000000u	/* 1% */
#define PD_PLAN_DEFAULT_GAP 200		/* the paper's test value, Sec. 4.1 */
#define PD_PLAN_MAX_K 10		/* K candidates 1..10 (Sec. 4.1) */
/*
 * Layout auto plans a filter of this many bytes or more line, as it does
 * a shared one (plan.c).
 */
#define PD_PLAN_LINE_BYTES (4ULL << 20)

struct pd_plan_req {
	u64 mem_bytes;	/* memory for the cells */
	u32 fps_ppb;	/* target FP rate in parts per 10^9; 0 = 1% */
	u32 max;	/* PD_PLAN_AUTO or 2^j - 1 */
	u32 k;		/* PD_PLAN_AUTO or 1..16 */
	u32 p;		/* PD_PLAN_AUTO (Eq. 17) or an explicit P, 0 allowed */
	u64 gap;	/* typical gap between copies; 0 = unknown */
	u8 layout;	/* PKTDEDUP_LAYOUT_*: AUTO is blocked or line if it can be */
	bool shared;	/* every CPU steps it: AUTO is line if it can be */
};

struct pd_plan {
	u32 max;
	u32 bits;		/* d */
	u32 k;
	u32 p;
	u64 cells;		/* m */
	u64 p_exact_q32;	/* Eq. 17 before rounding, Q32.32 */
	u64 fp_bound;		/* Eq. 8, Q62 */
	u64 stable_zero;	/* Theorem 3, Q62 */
	u64 gap;		/* gap the FN rate is given for */
	u64 fn_rate;		/* Eq. 16 at that gap, Q62 */
	u8 layout;
};

/* Returns 0, or a negative errno with *why set; *out is untouched then. */
int pd_plan(const struct pd_plan_req *req, struct pd_plan *out,
	    const char **why);

struct pd_sbf_params;

/* The parameters of an SBF that plan p gives (sbf.h). */
void pd_plan_params(const struct pd_plan *p, struct pd_sbf_params *prm);

/* Eq. 17 (unrounded, Q32.32) for m cells; 0 if FPS cannot be reached. */
u64 pd_plan_p_exact(u64 fps_q62, u32 max, u32 k, u64 m);
/* Theorem 3: the stable fraction of zeros (Q62). */
u64 pd_plan_stable_zero(u32 max, u32 k, u32 p, u64 m);
/* Eq. 8: the FP bound (Q62). */
u64 pd_plan_fp_bound(u32 max, u32 k, u32 p, u64 m);
/*
 * The FP rate of a blocked filter with Max 1 at its stable point (Q62):
 * K cells of a line of cpl cells, P decrements per element. See plan.c.
 */
u64 pd_plan_fp_blocked(u32 k, u32 p, u32 cpl);
/*
 * The same for the line layout, whose decrement run lies in the key's
 * line. See plan.c.
 */
u64 pd_plan_fp_line(u32 k, u32 p, u32 cpl);
/*
 * Eq. 9-16: average FN rate for a duplicate whose predecessor is gap
 * elements back (Q62). Returns PD_U64_MAX when out of memory.
 */
u64 pd_plan_fn_rate(u32 max, u32 k, u32 p, u64 m, u64 gap);

/* The FN rate at which a copy still counts as caught: 1% (99% caught). */
#define PD_PLAN_MEMORY_FN_PPB 10000000u
/* The largest gap the memory search tries: beyond it, never forgets. */
#define PD_PLAN_MEMORY_TOP ((u64)1 << 62)

/*
 * The filter's memory in packets: the largest gap G with
 * pd_plan_fn_rate(max, k, p, m, G) <= fn (Q62) < the rate at G + 1, found
 * by doubling then halving (at most 125 evaluations of the model, each
 * O(Max^3 log G): costly for Max 15, so callers keep the result). The FN
 * rate grows with the gap (a cell set to Max only decays in
 * distribution). PD_U64_MAX when no gap up to PD_PLAN_MEMORY_TOP exceeds
 * fn (P = 0: the filter never forgets); 0 when even gap 1 does, or out
 * of memory.
 */
u64 pd_plan_memory_gap(u32 max, u32 k, u32 p, u64 m, u64 fn);

#define PD_PLAN_STATES 16	/* Markov chains on cell values 0..15 */

/*
 * The chain of one cell of a counting filter: each element decrements it
 * with probability pdec (Q62; if non-zero), then with probability pset
 * raises it to at least v, v drawn from vprob[1..max] (Q62, summing to
 * one; the SBF's is all on Max). Returns the probability that a cell at
 * value `from` is zero gap elements later (Q62), or PD_U64_MAX (no
 * memory, or max above 15). A large gap gives the stationary P(zero).
 */
u64 pd_plan_chain(u32 max, const u64 *vprob, u64 pdec, u64 pset, u32 from,
		  u64 gap);
/* The same chain's stable P(zero), in closed form (Q62). */
u64 pd_plan_chain_zero(u32 max, const u64 *vprob, u64 pdec, u64 pset);

#endif /* PD_PLAN_H */
