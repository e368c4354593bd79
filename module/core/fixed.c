// SPDX-License-Identifier: GPL-2.0
/* Integer fixed-point arithmetic for the planner; see fixed.h. */
#include "fixed.h"

static void pd_mul128(u64 a, u64 b, u64 *hi, u64 *lo)
{
	u64 al = (u32)a, ah = a >> 32, bl = (u32)b, bh = b >> 32;
	u64 ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	u64 mid = (ll >> 32) + (u32)lh + (u32)hl;

	*lo = (mid << 32) | (u32)ll;
	*hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

u64 pd_mul_q62(u64 a, u64 b)
{
	u64 hi, lo;

	pd_mul128(a, b, &hi, &lo);
	return (hi << (64 - PD_Q62_SHIFT)) | (lo >> PD_Q62_SHIFT);
}

u64 pd_muldiv(u64 a, u64 b, u64 c)
{
	u64 hi, lo, r, q = 0;
	int i;

	if (!c)
		return PD_U64_MAX;
	pd_mul128(a, b, &hi, &lo);
	if (hi >= c)
		return PD_U64_MAX;
	r = hi;
	for (i = 63; i >= 0; i--) {
		u64 carry = r >> 63;

		r = (r << 1) | ((lo >> i) & 1);
		q <<= 1;
		if (carry || r >= c) {
			r -= c;
			q |= 1;
		}
	}
	return q;
}

u64 pd_pow_q62(u64 x, u64 n)
{
	u64 r = PD_Q62_ONE;

	while (n) {
		if (n & 1)
			r = pd_mul_q62(r, x);
		n >>= 1;
		if (n)
			x = pd_mul_q62(x, x);
	}
	return r;
}

u64 pd_root_q62(u64 x, unsigned int n)
{
	u64 lo = 0, hi = PD_Q62_ONE;

	if (n <= 1 || x >= PD_Q62_ONE)
		return PD_MIN(x, PD_Q62_ONE);
	while (lo < hi) {
		u64 mid = lo + (hi - lo + 1) / 2;

		if (pd_pow_q62(mid, n) <= x)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

u64 pd_isqrt64(u64 x)
{
	u64 r = 0, bit = (u64)1 << 62;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

u64 pd_q62_from_ppb(u32 ppb)
{
	return pd_muldiv(ppb, PD_Q62_ONE, PD_PPB_ONE);
}

u32 pd_q62_to_ppb(u64 q)
{
	return (u32)pd_muldiv(q, PD_PPB_ONE, PD_Q62_ONE) +
	       (pd_muldiv(q, 2ULL * PD_PPB_ONE, PD_Q62_ONE) & 1);
}

u64 pd_neglog2_q62(u64 x)
{
	u64 r = 0, y = x;
	int i;

	if (!x)
		return PD_U64_MAX;
	if (x >= PD_Q62_ONE)
		return 0;
	/* x = 2^-e y, y in [1, 2) (Q62): the integer part is e */
	while (y < PD_Q62_ONE) {
		y <<= 1;
		r += PD_Q32_ONE;
	}
	/* -log2 x = e - log2 y: log2 y's bits, one squaring each */
	for (i = 31; i >= 0; i--) {
		y = pd_mul_q62(y, y);
		if (y >= 2 * PD_Q62_ONE) {
			y >>= 1;
			r -= (u64)1 << i;
		}
	}
	return r;
}
