// SPDX-License-Identifier: GPL-2.0
/* KUnit tests of the planner's fixed-point arithmetic. */
#include <kunit/test.h>

#include "../../module/core/fixed.h"

static void pd_fixed_mul(struct kunit *test)
{
	u64 half = PD_Q62_ONE / 2, quarter = PD_Q62_ONE / 4;

	KUNIT_EXPECT_EQ(test, pd_mul_q62(half, half), quarter);
	KUNIT_EXPECT_EQ(test, pd_mul_q62(PD_Q62_ONE, PD_Q62_ONE), PD_Q62_ONE);
	KUNIT_EXPECT_EQ(test, pd_mul_q62(PD_Q62_ONE, 12345), (u64)12345);
	KUNIT_EXPECT_EQ(test, pd_mul_q62(0, PD_Q62_ONE), (u64)0);
	/* 3 * 2^61 squared is 9 * 2^122 / 2^62 = 9 * 2^60 */
	KUNIT_EXPECT_EQ(test, pd_mul_q62(3ULL << 61, 3ULL << 61), 9ULL << 60);
}

static void pd_fixed_muldiv(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, pd_muldiv(10, 20, 7), (u64)28);
	/* a 128-bit intermediate: (2^63 * 6) / 3 = 2^64 would overflow */
	KUNIT_EXPECT_EQ(test, pd_muldiv(1ULL << 63, 6, 4), 3ULL << 62);
	KUNIT_EXPECT_EQ(test, pd_muldiv(~0ULL, ~0ULL, ~0ULL), ~0ULL);
	KUNIT_EXPECT_EQ(test, pd_muldiv(1ULL << 40, 1ULL << 40, 1ULL << 30),
			1ULL << 50);
	KUNIT_EXPECT_EQ(test, pd_muldiv(1, 1, 0), PD_U64_MAX);
	KUNIT_EXPECT_EQ(test, pd_muldiv(1ULL << 63, 4, 2), PD_U64_MAX);
}

static void pd_fixed_pow_root(struct kunit *test)
{
	u64 x = PD_Q62_ONE / 10, r;
	unsigned int n;

	KUNIT_EXPECT_EQ(test, pd_pow_q62(PD_Q62_ONE / 2, 3), PD_Q62_ONE / 8);
	KUNIT_EXPECT_EQ(test, pd_pow_q62(x, 0), PD_Q62_ONE);
	KUNIT_EXPECT_EQ(test, pd_root_q62(PD_Q62_ONE / 4, 2), PD_Q62_ONE / 2);
	for (n = 1; n <= 15; n++) {
		r = pd_root_q62(x, n);
		/* r is the largest value whose n-th power is at most x */
		KUNIT_EXPECT_LE(test, pd_pow_q62(r, n), x);
		KUNIT_EXPECT_GT(test, pd_pow_q62(r + 1024, n), x);
	}
}

static void pd_fixed_isqrt(struct kunit *test)
{
	u64 v[] = { 0, 1, 2, 3, 4, 15, 16, 17, 1000000, 999999999999ULL,
		    ~0ULL };
	unsigned int i;

	for (i = 0; i < PD_ARRAY_SIZE(v); i++) {
		u64 r = pd_isqrt64(v[i]);

		KUNIT_EXPECT_LE(test, r * r, v[i]);
		if (r < 0xffffffffULL)
			KUNIT_EXPECT_GT(test, (r + 1) * (r + 1), v[i]);
	}
}

static void pd_fixed_ppb(struct kunit *test)
{
	u32 v[] = { 0, 1, 1000, 10000000, 100000000, 999999999 };
	unsigned int i;

	for (i = 0; i < PD_ARRAY_SIZE(v); i++)
		KUNIT_EXPECT_EQ(test, pd_q62_to_ppb(pd_q62_from_ppb(v[i])), v[i]);
	KUNIT_EXPECT_EQ(test, pd_q62_from_ppb(500000000), PD_Q62_ONE / 2);
}

/*
 * -log2 in Q32.32 against values known to more digits than it keeps:
 * exact for powers of two, within 2^-28 (16 units) otherwise.
 */
static void pd_fixed_neglog2(struct kunit *test)
{
	static const struct { u64 x, want; } near[] = {
		/* 0.1: 3.3219280948873623 */
		{ 461168601842738790ULL, 14267572527ULL },
		/* 0.01: 6.6438561897747247 */
		{ 46116860184273879ULL, 28535145054ULL },
		/* 1 - 1/e: 0.6617283576289673 (Eq. 6.1's denominator) */
		{ 2915141543110166585ULL, 2842101654ULL },
		/* 0.9: 0.1520030934450500 */
		{ 4150517416584649113ULL, 652848315ULL },
	};
	unsigned int i;
	u64 prev = 0;

	KUNIT_EXPECT_EQ(test, pd_neglog2_q62(PD_Q62_ONE), (u64)0);
	KUNIT_EXPECT_EQ(test, pd_neglog2_q62(0), PD_U64_MAX);
	KUNIT_EXPECT_EQ(test, pd_neglog2_q62(PD_Q62_ONE / 2), PD_Q32_ONE);
	KUNIT_EXPECT_EQ(test, pd_neglog2_q62(PD_Q62_ONE / 4), 2 * PD_Q32_ONE);
	KUNIT_EXPECT_EQ(test, pd_neglog2_q62(1), 62 * PD_Q32_ONE);
	KUNIT_EXPECT_EQ(test, pd_q62_from_ppb(100000000), near[0].x);
	for (i = 0; i < PD_ARRAY_SIZE(near); i++) {
		u64 got = pd_neglog2_q62(near[i].x);

		KUNIT_EXPECT_LE_MSG(test, got, near[i].want + 16, "case %u", i);
		KUNIT_EXPECT_GE_MSG(test, got + 16, near[i].want, "case %u", i);
	}
	/* decreasing in x */
	for (i = 1; i <= 64; i++) {
		u64 got = pd_neglog2_q62(PD_Q62_ONE / 64 * i);

		if (i > 1)
			KUNIT_EXPECT_LT(test, got, prev);
		prev = got;
	}
}

static struct kunit_case pd_fixed_cases[] = {
	KUNIT_CASE(pd_fixed_mul),
	KUNIT_CASE(pd_fixed_muldiv),
	KUNIT_CASE(pd_fixed_pow_root),
	KUNIT_CASE(pd_fixed_isqrt),
	KUNIT_CASE(pd_fixed_ppb),
	KUNIT_CASE(pd_fixed_neglog2),
	{}
};

static struct kunit_suite pd_fixed_suite = {
	.name = "pktdedup-fixed",
	.test_cases = pd_fixed_cases,
};

kunit_test_suite(pd_fixed_suite);
