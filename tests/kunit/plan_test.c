// SPDX-License-Identifier: GPL-2.0
/* KUnit tests of the SBF parameter planner (Deng & Rafiei, Sec. 4). */
#include <kunit/test.h>

#include "../../module/core/fixed.h"
#include "../../module/core/plan.h"

#define Q32_MILLI (PD_Q32_ONE / 1000)

static struct pd_plan_req pd_req(u64 mem, u32 fps_ppb)
{
	struct pd_plan_req r = {
		.mem_bytes = mem, .fps_ppb = fps_ppb, .max = PD_PLAN_AUTO,
		.k = PD_PLAN_AUTO, .p = PD_PLAN_AUTO,
	};
	return r;
}

/* Sec. 4.1: Max = 1, FPS = 0.01, K = 3 gives P = 10.93 before rounding. */
static void pd_plan_paper_example(struct kunit *test)
{
	u64 m = 8ULL << 23;	/* 8 MiB of 1-bit cells: 1/m negligible */
	u64 p = pd_plan_p_exact(pd_q62_from_ppb(10000000), 1, 3, m);

	/* 10.925 exactly; the paper prints 10.93 */
	KUNIT_EXPECT_GE(test, p, 10 * PD_Q32_ONE + 920 * Q32_MILLI);
	KUNIT_EXPECT_LE(test, p, 10 * PD_Q32_ONE + 930 * Q32_MILLI);
	/* Max = 15, FPS = 0.01, K = 6: "the value of P computed is 141" */
	p = pd_plan_p_exact(pd_q62_from_ppb(10000000), 15, 6, m);
	KUNIT_EXPECT_GE(test, p >> 32, (u64)140);
	KUNIT_EXPECT_LE(test, p >> 32, (u64)141);
}

/* The plan rounds P up, so the stable FP rate stays under the target. */
static void pd_plan_rounds_p_up(struct kunit *test)
{
	struct pd_plan_req r = pd_req(1 << 20, 10000000);
	struct pd_plan pl;
	const char *why = NULL;
	u64 fps = pd_q62_from_ppb(10000000);

	r.max = 1;
	r.k = 3;
	KUNIT_ASSERT_EQ(test, pd_plan(&r, &pl, &why), 0);
	KUNIT_EXPECT_EQ(test, pl.p, 11u);
	KUNIT_EXPECT_EQ(test, pl.cells, 8ULL << 20);
	KUNIT_EXPECT_LE(test, pl.fp_bound, fps);
	/* the paper's rounding down (P = 10) overshoots the target */
	KUNIT_EXPECT_GT(test, pd_plan_fp_bound(1, 3, 10, pl.cells), fps);
	/* Eq. 8 and Theorem 3 agree: FPS = (1 - stable)^K */
	KUNIT_EXPECT_EQ(test, pl.fp_bound,
			pd_pow_q62(PD_Q62_ONE - pl.stable_zero, 3));
}

/* With no gap known: Max = 1 and the K with the smallest FN rate. */
static void pd_plan_chooses_k(struct kunit *test)
{
	struct pd_plan_req r = pd_req(1 << 20, 10000000);
	struct pd_plan pl, other;
	const char *why = NULL;
	u32 k;

	KUNIT_ASSERT_EQ(test, pd_plan(&r, &pl, &why), 0);
	KUNIT_EXPECT_EQ(test, pl.max, 1u);
	KUNIT_EXPECT_EQ(test, pl.k, 3u);	/* the paper's optimal K */
	KUNIT_EXPECT_EQ(test, pl.gap, (u64)PD_PLAN_DEFAULT_GAP);
	for (k = 1; k <= PD_PLAN_MAX_K; k++) {
		r.k = k;
		KUNIT_ASSERT_EQ(test, pd_plan(&r, &other, &why), 0);
		KUNIT_EXPECT_LE(test, pl.fn_rate, other.fn_rate);
		KUNIT_EXPECT_LE(test, other.fp_bound, pd_q62_from_ppb(10000000));
	}
}

/*
 * For Max = 1 the chain of Eq. 9-13 has a closed form: with
 * a = (1 - k)(1 - p), P(non-zero after g steps) = s + (1 - s) a^g where
 * s = k / (1 - a). The matrix-power evaluation must agree.
 */
static void pd_plan_fn_closed_form(struct kunit *test)
{
	u64 m = 1 << 20, gaps[] = { 1, 2, 200, 5000, 1 << 20, 1ULL << 34 };
	u32 kk = 3, p = 11;
	u64 pd = pd_muldiv(p, PD_Q62_ONE, m), ps = pd_muldiv(kk, PD_Q62_ONE, m);
	u64 a = pd_mul_q62(PD_Q62_ONE - ps, PD_Q62_ONE - pd);
	u64 s = pd_muldiv(ps, PD_Q62_ONE, PD_Q62_ONE - a);
	unsigned int i;

	for (i = 0; i < PD_ARRAY_SIZE(gaps); i++) {
		u64 nz = s + pd_mul_q62(PD_Q62_ONE - s, pd_pow_q62(a, gaps[i]));
		u64 want = PD_Q62_ONE - pd_pow_q62(nz, kk);
		u64 got = pd_plan_fn_rate(1, kk, p, m, gaps[i]);
		u64 diff = got > want ? got - want : want - got;

		/*
		 * Each fixed-point product rounds down by < 1 ulp (2^-62); a
		 * squaring at most doubles the error already there and adds
		 * n = 2 ulps per entry, so after log2(gap) squarings the
		 * error is below 4 * gap ulps. The closed form adds its own
		 * rounding of a^gap, of the same order, and of s (< 2^20 ulp).
		 */
		KUNIT_EXPECT_LT_MSG(test, diff, 8 * gaps[i] + (1 << 22),
				    "gap %llu", (unsigned long long)gaps[i]);
	}
	/* no decrement within fewer than Max steps: no FN */
	KUNIT_EXPECT_EQ(test, pd_plan_fn_rate(3, 2, 20, m, 2), (u64)0);
	KUNIT_EXPECT_GT(test, pd_plan_fn_rate(3, 2, 20, m, 3), (u64)0);
}

/*
 * Fig. 2: small gaps favour a larger Max, larger gaps Max = 1, and when the
 * gaps are large enough there is no difference (every choice forgets: the
 * FN rate tends to 1 - FPS), so the cheapest, Max = 1, is kept.
 */
static void pd_plan_max_follows_gap(struct kunit *test)
{
	struct pd_plan_req r = pd_req(64 << 10, 10000000);
	struct pd_plan small, mid, huge;
	const char *why = NULL;

	r.gap = 1000;
	KUNIT_ASSERT_EQ(test, pd_plan(&r, &small, &why), 0);
	r.gap = 20000;
	KUNIT_ASSERT_EQ(test, pd_plan(&r, &mid, &why), 0);
	r.gap = 100000000;
	KUNIT_ASSERT_EQ(test, pd_plan(&r, &huge, &why), 0);
	KUNIT_EXPECT_GT(test, small.max, 1u);
	KUNIT_EXPECT_EQ(test, mid.max, 1u);
	KUNIT_EXPECT_EQ(test, huge.max, 1u);
	KUNIT_EXPECT_LT(test, small.fn_rate, mid.fn_rate);
	/* FN tends to 1 - FPS: within 0.1% of 0.99 */
	KUNIT_EXPECT_LT(test, huge.fn_rate - pd_q62_from_ppb(990000000),
			pd_q62_from_ppb(1000000));
}

static void pd_plan_explicit(struct kunit *test)
{
	struct pd_plan_req r = pd_req(64 << 10, 100000000);
	struct pd_plan pl;
	const char *why = NULL;

	/* the paper's typical setting for FPS = 10% */
	r.max = 1;
	r.k = 2;
	r.p = 4;
	KUNIT_ASSERT_EQ(test, pd_plan(&r, &pl, &why), 0);
	KUNIT_EXPECT_EQ(test, pl.k, 2u);
	KUNIT_EXPECT_EQ(test, pl.p, 4u);
	KUNIT_EXPECT_EQ(test, pl.cells, (u64)(64 << 13));
	KUNIT_EXPECT_EQ(test, pl.fp_bound, pd_plan_fp_bound(1, 2, 4, pl.cells));
	/* P = 0 is a plain Bloom filter: it never forgets */
	r.p = 0;
	KUNIT_ASSERT_EQ(test, pd_plan(&r, &pl, &why), 0);
	KUNIT_EXPECT_EQ(test, pl.p, 0u);
	KUNIT_EXPECT_EQ(test, pl.fp_bound, PD_Q62_ONE);
	KUNIT_EXPECT_EQ(test, pl.fn_rate, (u64)0);
}

static void pd_plan_rejects(struct kunit *test)
{
	struct pd_plan_req r;
	struct pd_plan pl = { .k = 77 };
	const char *why;

	r = pd_req(4, 10000000);		/* 32 cells */
	why = NULL;
	KUNIT_EXPECT_LT(test, pd_plan(&r, &pl, &why), 0);
	KUNIT_EXPECT_NOT_NULL(test, why);
	r = pd_req(1 << 20, 1000000000);	/* FPS = 1 */
	why = NULL;
	KUNIT_EXPECT_LT(test, pd_plan(&r, &pl, &why), 0);
	KUNIT_EXPECT_NOT_NULL(test, why);
	r = pd_req(1 << 20, 10000000);
	r.max = 5;
	why = NULL;
	KUNIT_EXPECT_LT(test, pd_plan(&r, &pl, &why), 0);
	KUNIT_EXPECT_NOT_NULL(test, why);
	r.max = PD_PLAN_AUTO;
	r.k = 17;
	KUNIT_EXPECT_LT(test, pd_plan(&r, &pl, &why), 0);
	r.k = PD_PLAN_AUTO;
	r.p = 1 << 30;				/* more than m */
	KUNIT_EXPECT_LT(test, pd_plan(&r, &pl, &why), 0);
	r = pd_req(1ULL << 40, 10000000);	/* beyond 2^32 cells */
	KUNIT_EXPECT_LT(test, pd_plan(&r, &pl, &why), 0);
	/* a refused plan leaves the output alone */
	KUNIT_EXPECT_EQ(test, pl.k, 77u);
}

static struct kunit_case pd_plan_cases[] = {
	KUNIT_CASE(pd_plan_paper_example),
	KUNIT_CASE(pd_plan_rounds_p_up),
	KUNIT_CASE(pd_plan_chooses_k),
	KUNIT_CASE(pd_plan_fn_closed_form),
	KUNIT_CASE(pd_plan_max_follows_gap),
	KUNIT_CASE(pd_plan_explicit),
	KUNIT_CASE(pd_plan_rejects),
	{}
};

static struct kunit_suite pd_plan_suite = {
	.name = "pktdedup-plan",
	.test_cases = pd_plan_cases,
};

kunit_test_suite(pd_plan_suite);
