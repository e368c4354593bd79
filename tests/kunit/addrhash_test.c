// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the source analytics' address hash (addrhash.h): it is
 * the formula it states, on every machine (the 128-bit product both ways);
 * an IPv4 address is its IPv4-mapped IPv6 address; it depends on the key;
 * and sequential addresses, the analytics' common case, spread evenly and
 * are counted by a sketch within its error.
 */
#include <kunit/test.h>

#include "../../module/core/addrhash.h"
#include "../../module/core/hll.h"
#include "../../module/core/rng.h"

static void pd_t_akey(u64 *rng, struct pd_akey *k)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		k->a[i] = pd_rng_next(rng);
	k->b = pd_rng_next(rng);
}

/* The product two ways: the compiler's 128-bit type and 32-bit pieces. */
static void pd_ah_product(struct kunit *test)
{
	u64 rng = 11, x, y, h1, l1, h2, l2;
	unsigned int i;

	for (i = 0; i < 100000; i++) {
		x = pd_rng_next(&rng);
		y = pd_rng_next(&rng);
		if (i < 4) {		/* and the extremes */
			x = i & 1 ? ~0ULL : 0;
			y = i & 2 ? ~0ULL : 1;
		}
		pd_ah_mul(x, y, &h1, &l1);
		pd_ah_mul_portable(x, y, &h2, &l2);
		KUNIT_ASSERT_EQ(test, h1, h2);
		KUNIT_ASSERT_EQ(test, l1, l2);
	}
	pd_ah_mul_portable(~0ULL, ~0ULL, &h2, &l2);
	KUNIT_EXPECT_EQ(test, h2, ~0ULL - 1);
	KUNIT_EXPECT_EQ(test, l2, 1ULL);
}

/* The header's formula, spelt out on 32-bit pieces. */
static u64 pd_t_ref(const struct pd_akey *k, u64 x1, u64 x2)
{
	u64 h1, l1, h2, l2, lo, hi;

	pd_ah_mul_portable(k->a[0], x1, &h1, &l1);
	pd_ah_mul_portable(k->a[2], x2, &h2, &l2);
	lo = l1 + l2;
	/* (a1 x1 + a2 x2) mod 2^128, its upper half */
	hi = h1 + h2 + (lo < l1 ? 1 : 0) + k->a[1] * x1 + k->a[3] * x2;
	return pd_ah_fmix(hi + k->b);
}

static u64 pd_t_le64(const u8 *p)
{
	u64 v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void pd_ah_formula(struct kunit *test)
{
	u64 rng = 12;
	struct pd_akey k;
	u8 a[16];
	unsigned int i, j;

	for (i = 0; i < 20000; i++) {
		pd_t_akey(&rng, &k);
		for (j = 0; j < 16; j++)
			a[j] = (u8)pd_rng_next(&rng);
		if (i & 1)
			memset(a, 0, 8);	/* x1 = 0: the IPv4 shortcut */
		KUNIT_ASSERT_EQ(test, pd_addr_hash(&k, a, 16),
				pd_t_ref(&k, pd_t_le64(a), pd_t_le64(a + 8)));
	}
	/* an IPv4 address is ::ffff:a.b.c.d */
	for (i = 0; i < 20000; i++) {
		u8 m[16] = { 0 };

		pd_t_akey(&rng, &k);
		for (j = 0; j < 4; j++)
			a[j] = (u8)pd_rng_next(&rng);
		m[10] = 0xff;
		m[11] = 0xff;
		memcpy(m + 12, a, 4);
		KUNIT_ASSERT_EQ(test, pd_addr_hash(&k, a, 4),
				pd_addr_hash(&k, m, 16));
		KUNIT_ASSERT_EQ(test, pd_addr_hash(&k, a, 4),
				pd_t_ref(&k, 0, pd_t_le64(m + 8)));
	}
	/* other lengths: zero-padded to 16 */
	memset(a, 0, sizeof(a));
	a[0] = 0xab;
	a[5] = 0xcd;
	KUNIT_EXPECT_EQ(test, pd_addr_hash(&k, a, 8), pd_addr_hash(&k, a, 16));
}

/* Another key, other hashes; the offset moves even the zero address. */
static void pd_ah_keyed(struct kunit *test)
{
	u64 rng = 13;
	struct pd_akey k1, k2;
	u8 a[16] = { 0 };
	unsigned int i, same = 0;

	pd_t_akey(&rng, &k1);
	pd_t_akey(&rng, &k2);
	for (i = 0; i < 1000; i++) {
		a[15] = (u8)i;
		a[14] = (u8)(i >> 8);
		same += pd_addr_hash(&k1, a, 16) == pd_addr_hash(&k2, a, 16);
		same += pd_addr_hash(&k1, a + 12, 4) == pd_addr_hash(&k2, a + 12, 4);
	}
	KUNIT_EXPECT_EQ(test, same, 0u);
	memset(a, 0, sizeof(a));
	KUNIT_EXPECT_NE(test, pd_addr_hash(&k1, a, 4), pd_addr_hash(&k2, a, 4));
	KUNIT_EXPECT_NE(test, pd_addr_hash(&k1, a, 16), pd_addr_hash(&k2, a, 16));
}

/*
 * Sequential addresses, 10.0.0.0 up and 2001:db8:: up: the top 8 bits
 * of their hashes fall evenly in 256 bins (chi-square, 255 degrees of
 * freedom, under 400: p < 1e-7 by chance), and a sketch counts them
 * within 4 standard errors.
 */
static void pd_ah_sequential(struct kunit *test)
{
	static const u32 ns[] = { 1000, 65536, 300000 };
	struct pd_hll *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	u32 *bin = kunit_kzalloc(test, 256 * sizeof(u32), GFP_KERNEL);
	u64 rng = 14;
	struct pd_akey k;
	unsigned int v6, ni, i;

	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_NOT_NULL(test, bin);
	pd_t_akey(&rng, &k);
	for (v6 = 0; v6 < 2; v6++) {
		for (ni = 0; ni < PD_ARRAY_SIZE(ns); ni++) {
			u8 a[16] = { 0x20, 0x01, 0x0d, 0xb8 };
			u64 est, err, chi = 0;

			pd_hll_clear(h);
			memset(bin, 0, 256 * sizeof(u32));
			for (i = 0; i < ns[ni]; i++) {
				u8 *p = v6 ? a + 12 : a;
				u32 x = (v6 ? 0 : 10u << 24) + i;
				u64 hv;

				p[0] = (u8)(x >> 24);
				p[1] = (u8)(x >> 16);
				p[2] = (u8)(x >> 8);
				p[3] = (u8)x;
				hv = pd_addr_hash(&k, a, v6 ? 16 : 4);
				pd_hll_add(h, hv);
				bin[hv >> 56]++;
			}
			est = pd_hll_estimate(h);
			err = est > ns[ni] ? est - ns[ni] : ns[ni] - est;
			KUNIT_EXPECT_TRUE_MSG(test, err * 10000 <= ns[ni] * 325ULL + 10000,
					      "%s %u: estimate %llu",
					      v6 ? "IPv6" : "IPv4", ns[ni],
					      (unsigned long long)est);
			if (ns[ni] < 65536)
				continue;
			for (i = 0; i < 256; i++) {
				s64 d = (s64)bin[i] * 256 - ns[ni];

				chi += (u64)(d * d) / ns[ni];
			}
			/* chi = sum (obs - e)^2 / e, scaled by 256 */
			KUNIT_EXPECT_LT_MSG(test, chi / 256, 400ULL, "%s %u",
					    v6 ? "IPv6" : "IPv4", ns[ni]);
		}
	}
}

static struct kunit_case pd_ah_cases[] = {
	KUNIT_CASE(pd_ah_product),
	KUNIT_CASE(pd_ah_formula),
	KUNIT_CASE(pd_ah_keyed),
	KUNIT_CASE(pd_ah_sequential),
	{}
};

static struct kunit_suite pd_ah_suite = {
	.name = "pktdedup-addrhash",
	.test_cases = pd_ah_cases,
};

kunit_test_suite(pd_ah_suite);
