// SPDX-License-Identifier: GPL-2.0
/* HyperLogLog with Ertl's improved estimator: see hll.h. */
#include "hll.h"
#include "fixed.h"

#define PD_HLL_ALPHA_Q32 3098164009ULL	/* 1 / (2 ln 2), Q32.32 */

void pd_hll_clear(struct pd_hll *h)
{
	memset(h->reg, 0, sizeof(h->reg));
}

void pd_hll_merge(struct pd_hll *dst, const struct pd_hll *src)
{
	u32 i;

	for (i = 0; i < PD_HLL_M; i++)
		if (src->reg[i] > dst->reg[i])
			dst->reg[i] = src->reg[i];
}

/*
 * sigma(x) = x + sum_{k>=1} x^(2^k) 2^(k-1), for x = c/m < 1, as Q32.32.
 * The terms fall doubly exponentially; the loop ends when they vanish.
 */
static u64 pd_hll_sigma(u32 c)
{
	u64 x = (u64)c << (PD_Q62_SHIFT - PD_HLL_P);	/* Q62 */
	u64 z = x >> 30, term;
	unsigned int k;

	for (k = 1; k < 64; k++) {
		x = pd_mul_q62(x, x);
		/* x 2^(k-1) in Q32.32, shifted once: no amplified truncation */
		term = k <= 31 ? x >> (31 - k) : x << (k - 31);
		if (!term)
			break;
		z += term;
	}
	return z;
}

/*
 * tau(x) = (1 - x - sum_{k>=1} (1 - x^(2^-k))^2 2^-k) / 3, x = c/m, Q62.
 */
static u64 pd_hll_tau(u32 c)
{
	u64 x = (u64)c << (PD_Q62_SHIFT - PD_HLL_P), y = PD_Q62_ONE, z, term;
	unsigned int k;

	if (!c || c == PD_HLL_M)
		return 0;
	z = PD_Q62_ONE - x;
	for (k = 1; k < 62; k++) {
		x = pd_root_q62(x, 2);
		y >>= 1;
		term = pd_mul_q62(pd_mul_q62(PD_Q62_ONE - x, PD_Q62_ONE - x), y);
		if (!term)
			break;
		z -= term;
	}
	return z / 3;
}

u64 pd_hll_estimate(const struct pd_hll *h)
{
	u32 count[PD_HLL_Q + 2] = { 0 };
	u64 z;
	u32 i;
	int k;

	for (i = 0; i < PD_HLL_M; i++)
		count[h->reg[i]]++;
	if (count[0] == PD_HLL_M)
		return 0;
	/* Ertl, Algorithm 6, in Q32.32 */
	z = (u64)PD_HLL_M * (pd_hll_tau(PD_HLL_M - count[PD_HLL_Q + 1]) >> 30);
	for (k = PD_HLL_Q; k >= 1; k--)
		z = (z + ((u64)count[k] << 32)) >> 1;
	z += (u64)PD_HLL_M * pd_hll_sigma(count[0]);
	/* alpha m^2 / z */
	return pd_div64((PD_HLL_ALPHA_Q32 << (2 * PD_HLL_P)) + z / 2, z);
}
