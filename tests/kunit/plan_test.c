// SPDX-License-Identifier: GPL-2.0
/* KUnit tests of the SBF parameter planner (Deng & Rafiei, Sec. 4). */
#include <kunit/test.h>

#include "../../module/core/fixed.h"
#include "../../module/core/plan.h"
#include "../../module/core/rate.h"

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

/*
 * The memory search: G is where the model crosses 1%, fn(G) <= 1% <
 * fn(G + 1), by pd_plan_fn_rate() itself; more cells remember longer,
 * more decrements shorter; P = 0 never forgets.
 */
static void pd_plan_memory_search(struct kunit *test)
{
	static const struct {
		u32 max, k, p;
		u64 m;
	} c[] = {
		{ 1, 3, 11, 1 << 20 }, { 1, 2, 6, 64 << 10 }, { 3, 4, 30, 1 << 18 },
		{ 15, 6, 141, 1 << 16 },
	};
	u64 fn = pd_q62_from_ppb(PD_PLAN_MEMORY_FN_PPB), g, prev = 0;
	struct pd_plan_req r = pd_req(64 << 10, 10000000);
	struct pd_plan pl;
	const char *why = NULL;
	unsigned int i;

	for (i = 0; i < PD_ARRAY_SIZE(c); i++) {
		g = pd_plan_memory_gap(c[i].max, c[i].k, c[i].p, c[i].m, fn);
		KUNIT_EXPECT_GT_MSG(test, g, (u64)0, "case %u", i);
		KUNIT_EXPECT_LT_MSG(test, g, PD_PLAN_MEMORY_TOP, "case %u", i);
		KUNIT_EXPECT_LE_MSG(test, pd_plan_fn_rate(c[i].max, c[i].k,
							  c[i].p, c[i].m, g),
				    fn, "case %u", i);
		KUNIT_EXPECT_GT_MSG(test, pd_plan_fn_rate(c[i].max, c[i].k,
							  c[i].p, c[i].m, g + 1),
				    fn, "case %u", i);
	}
	/* monotone in the memory and in the decrements */
	for (i = 12; i <= 22; i += 2) {
		g = pd_plan_memory_gap(1, 3, 11, 1ULL << i, fn);
		KUNIT_EXPECT_GT_MSG(test, g, prev, "2^%u cells", i);
		prev = g;
	}
	KUNIT_EXPECT_LT(test, pd_plan_memory_gap(1, 3, 22, 1 << 20, fn),
			pd_plan_memory_gap(1, 3, 11, 1 << 20, fn));
	/* a looser threshold, a longer memory */
	KUNIT_EXPECT_GT(test, pd_plan_memory_gap(1, 3, 11, 1 << 20, 4 * fn),
			pd_plan_memory_gap(1, 3, 11, 1 << 20, fn));
	/* 10 of 4096 cells set and 1000 decremented per packet: none */
	KUNIT_EXPECT_EQ(test, pd_plan_memory_gap(1, 10, 1000, 4096, fn),
			(u64)0);
	KUNIT_EXPECT_GT(test, pd_plan_fn_rate(1, 10, 1000, 4096, 1), fn);
	/* no decrement: no gap forgets */
	KUNIT_EXPECT_EQ(test, pd_plan_memory_gap(1, 3, 0, 1 << 20, fn),
			PD_U64_MAX);
	/* Max 3 takes three decrements to forget: FN 0 below gap 3 */
	KUNIT_EXPECT_GE(test, pd_plan_memory_gap(3, 2, 20, 1 << 20, 0),
			(u64)2);
	/* the planner's own filter: its 1% memory is past its FN at gap */
	r.gap = 200;
	KUNIT_ASSERT_EQ(test, pd_plan(&r, &pl, &why), 0);
	g = pd_plan_memory_gap(pl.max, pl.k, pl.p, pl.cells, fn);
	KUNIT_EXPECT_EQ(test, pl.fn_rate <= fn, g >= 200);
}

/* Rates from two samples: wrap-safe, an empty interval, time and back. */
static void pd_plan_rate_arith(struct kunit *test)
{
	u64 t = 5 * PD_NS_PER_SEC;

	KUNIT_EXPECT_EQ(test, pd_rate_pps(1000, t, 21000, t + 2 * PD_NS_PER_SEC),
			(u64)10000);
	/* the counter and the clock wrapped in between */
	KUNIT_EXPECT_EQ(test, pd_rate_pps(PD_U64_MAX - 99, PD_U64_MAX - 499999999,
					  400, 500000000), (u64)500);
	KUNIT_EXPECT_EQ(test, pd_rate_pps(7, t, 9, t), (u64)0);
	KUNIT_EXPECT_EQ(test, pd_rate_pps(7, t, 7, t + 1), (u64)0);
	/* more than 2^64 per second saturates */
	KUNIT_EXPECT_EQ(test, pd_rate_pps(0, t, PD_U64_MAX, t + 1), PD_U64_MAX);
	/* 41,300 packets at 19,600/s: 2.107 s */
	KUNIT_EXPECT_EQ(test, pd_rate_pkts_ns(41300, 19600), (u64)2107142857);
	KUNIT_EXPECT_EQ(test, pd_rate_pkts_ns(41300, 0), (u64)0);
	KUNIT_EXPECT_EQ(test, pd_rate_pkts_ns(PD_U64_MAX, 2000000000),
			PD_U64_MAX);
	KUNIT_EXPECT_EQ(test, pd_rate_pkts_ns(PD_U64_MAX / 2, 1), PD_U64_MAX);
	KUNIT_EXPECT_EQ(test, pd_rate_ns_pkts(2 * PD_NS_PER_SEC, 19600),
			(u64)39200);
	KUNIT_EXPECT_EQ(test, pd_rate_ns_pkts(2 * PD_NS_PER_SEC, 0), (u64)0);
	KUNIT_EXPECT_EQ(test, pd_rate_ns_pkts(PD_U64_MAX, 1), PD_U64_MAX);
	/* a shard's gap in the stream's packets: n times, saturating */
	KUNIT_EXPECT_EQ(test, pd_mul_sat(146, 32), (u64)4672);
	KUNIT_EXPECT_EQ(test, pd_mul_sat(PD_U64_MAX, 32), PD_U64_MAX);
	KUNIT_EXPECT_EQ(test, pd_mul_sat(PD_U64_MAX / 2 + 1, 2), PD_U64_MAX);
	KUNIT_EXPECT_EQ(test, pd_mul_sat(PD_U64_MAX / 2, 2), PD_U64_MAX - 1);
	KUNIT_EXPECT_EQ(test, pd_mul_sat(0, 7), (u64)0);
}

static struct kunit_case pd_plan_cases[] = {
	KUNIT_CASE(pd_plan_paper_example),
	KUNIT_CASE(pd_plan_rounds_p_up),
	KUNIT_CASE(pd_plan_chooses_k),
	KUNIT_CASE(pd_plan_fn_closed_form),
	KUNIT_CASE(pd_plan_max_follows_gap),
	KUNIT_CASE(pd_plan_explicit),
	KUNIT_CASE(pd_plan_rejects),
	KUNIT_CASE(pd_plan_memory_search),
	KUNIT_CASE(pd_plan_rate_arith),
	{}
};

static struct kunit_suite pd_plan_suite = {
	.name = "pktdedup-plan",
	.test_cases = pd_plan_cases,
};

kunit_test_suite(pd_plan_suite);
