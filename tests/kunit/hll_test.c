// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the HyperLogLog sketch: merging is union, and estimates
 * stay within the estimator's error from 10^2 to 10^6 distinct elements.
 */
#include <kunit/test.h>

#include "../../module/core/hll.h"
#include "../../module/core/rng.h"

static struct pd_hll *pd_t_hll(struct kunit *test)
{
	struct pd_hll *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, h);
	return h;
}

static void pd_hll_empty_and_one(struct kunit *test)
{
	struct pd_hll *h = pd_t_hll(test);
	unsigned int i;

	KUNIT_EXPECT_EQ(test, pd_hll_estimate(h), 0ULL);
	for (i = 0; i < 10; i++)	/* the same element, again and again */
		pd_hll_add(h, 0x123456789abcdefULL);
	KUNIT_EXPECT_EQ(test, pd_hll_estimate(h), 1ULL);
	pd_hll_clear(h);
	KUNIT_EXPECT_EQ(test, pd_hll_estimate(h), 0ULL);
}

/*
 * The relative standard error is 1.04/sqrt(m) = 0.8125% (m = 2^14) at
 * every cardinality (Ertl 2017); each estimate must be within 4 of them
 * (3.25%: a 6e-5 chance per estimate), plus one element. Over the trials
 * at one cardinality the mean error must be within 4 sd of the mean.
 */
static void pd_hll_accuracy(struct kunit *test)
{
	static const u32 ns[] = { 100, 1000, 10000, 100000, 1000000 };
	const unsigned int trials = 4;
	struct pd_hll *h = pd_t_hll(test);
	unsigned int ni, t;

	for (ni = 0; ni < PD_ARRAY_SIZE(ns); ni++) {
		s64 sum = 0;

		for (t = 0; t < trials; t++) {
			u64 rng = 1000 * ni + t, est;
			s64 err;
			u32 i;

			pd_hll_clear(h);
			for (i = 0; i < ns[ni]; i++)
				pd_hll_add(h, pd_rng_next(&rng));
			est = pd_hll_estimate(h);
			err = (s64)est - ns[ni];
			sum += err;
			kunit_info(test, "n %u trial %u: estimate %llu", ns[ni], t,
				   (unsigned long long)est);
			/* |err| <= 3.25% n + 1, in integers */
			KUNIT_EXPECT_LE(test, (err < 0 ? -err : err) * 10000,
					(s64)ns[ni] * 325 + 10000);
		}
		/* mean: 4 sd / sqrt(trials) = 1.625% n */
		KUNIT_EXPECT_LE(test, (sum < 0 ? -sum : sum) * 10000,
				(s64)ns[ni] * 163 * trials + 10000);
	}
}

/* The merge of the sketches of A and B is the sketch of A u B. */
static void pd_hll_merge_is_union(struct kunit *test)
{
	struct pd_hll *a = pd_t_hll(test), *b = pd_t_hll(test);
	struct pd_hll *u = pd_t_hll(test), *ab = pd_t_hll(test);
	u64 rng = 77;
	u32 i;

	for (i = 0; i < 30000; i++) {
		u64 x = pd_rng_next(&rng);

		/* A: the first 20000, B: the last 20000 (10000 shared) */
		if (i < 20000)
			pd_hll_add(a, x);
		if (i >= 10000)
			pd_hll_add(b, x);
		pd_hll_add(u, x);
	}
	memcpy(ab, a, sizeof(*a));
	pd_hll_merge(ab, b);
	KUNIT_EXPECT_EQ(test, memcmp(ab->reg, u->reg, sizeof(u->reg)), 0);
	KUNIT_EXPECT_EQ(test, pd_hll_estimate(ab), pd_hll_estimate(u));
	/* the union's count, not the sum of the parts (40000) */
	KUNIT_EXPECT_LE(test, pd_hll_estimate(ab), 31000ULL);
	KUNIT_EXPECT_GE(test, pd_hll_estimate(ab), 29000ULL);
	/* merging is idempotent */
	pd_hll_merge(ab, b);
	KUNIT_EXPECT_EQ(test, memcmp(ab->reg, u->reg, sizeof(u->reg)), 0);
}

static struct kunit_case pd_hll_cases[] = {
	KUNIT_CASE(pd_hll_empty_and_one),
	KUNIT_CASE(pd_hll_accuracy),
	KUNIT_CASE(pd_hll_merge_is_union),
	{}
};

static struct kunit_suite pd_hll_suite = {
	.name = "pktdedup-hll",
	.test_cases = pd_hll_cases,
};

kunit_test_suite(pd_hll_suite);
