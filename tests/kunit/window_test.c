// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the jumping window: sub-window queries, expiry, slot
 * reuse, and the union of per-CPU windows.
 */
#include <kunit/test.h>

#include "../../module/core/rng.h"
#include "../../module/core/window.h"

#define NSUB 4
#define TOPCAP 16

static struct pd_win *pd_t_win(struct kunit *test)
{
	struct pd_win *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	void *mem = kunit_kzalloc(test, pd_win_bytes(NSUB, TOPCAP), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, mem);
	KUNIT_ASSERT_EQ(test, pd_win_init(w, NSUB, TOPCAP, mem), 0);
	return w;
}

/* Elements first..first+n-1 (distinct ids) into tick `tick`. */
static void pd_t_fill(struct pd_win *w, u64 tick, u64 first, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		u64 s = first + i;
		u8 a[4] = { (u8)(s >> 24), (u8)(s >> 16), (u8)(s >> 8), (u8)s };

		pd_win_add(w, tick, pd_rng_next(&s), a, 4);
	}
}

/* The estimate over the last `last` ticks as of `now`, from windows w[]. */
static u64 pd_t_count(struct kunit *test, struct pd_win **w, int nw, u64 now,
		      u32 last)
{
	struct pd_hll *out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, out);
	for (i = 0; i < nw; i++)
		pd_win_collect(w[i], now, last, out);
	return pd_hll_estimate(out);
}

/* |est - want| <= 3.25% want + 1 (4 standard errors of the sketch) */
static void pd_t_expect_about(struct kunit *test, u64 est, u64 want)
{
	u64 err = est > want ? est - want : want - est;

	KUNIT_EXPECT_TRUE_MSG(test, err * 10000 <= want * 325 + 10000,
			      "estimate %llu, want about %llu",
			      (unsigned long long)est, (unsigned long long)want);
}

static void pd_win_rejects(struct kunit *test)
{
	struct pd_win w;

	KUNIT_EXPECT_LT(test, pd_win_init(&w, 0, 0, NULL), 0);
	KUNIT_EXPECT_LT(test, pd_win_init(&w, PD_WIN_MAX_SUB + 1, 0, NULL), 0);
	KUNIT_EXPECT_LT(test, pd_win_init(&w, 1, PD_SS_MIN_CAP - 1, NULL), 0);
}

/* Sub-windows: the last 1, 2 and all ticks; ticks 10, 11, 12 disjoint. */
static void pd_win_subwindows(struct kunit *test)
{
	struct pd_win *w = pd_t_win(test);

	pd_t_fill(w, 10, 0, 1000);
	pd_t_fill(w, 11, 100000, 2000);
	pd_t_fill(w, 12, 200000, 4000);
	pd_t_fill(w, 12, 0, 1000);	/* tick 10's elements again */
	pd_t_expect_about(test, pd_t_count(test, &w, 1, 12, 1), 5000);
	pd_t_expect_about(test, pd_t_count(test, &w, 1, 12, 2), 7000);
	pd_t_expect_about(test, pd_t_count(test, &w, 1, 12, NSUB), 7000);
	pd_t_expect_about(test, pd_t_count(test, &w, 1, 11, NSUB), 3000);
}

/* Once the window has passed with no traffic, the count is zero. */
static void pd_win_expiry(struct kunit *test)
{
	struct pd_win *w = pd_t_win(test);

	pd_t_fill(w, 100, 0, 5000);
	pd_t_expect_about(test, pd_t_count(test, &w, 1, 100 + NSUB - 1, NSUB), 5000);
	KUNIT_EXPECT_EQ(test, pd_t_count(test, &w, 1, 100 + NSUB, NSUB), 0ULL);
	KUNIT_EXPECT_EQ(test, pd_t_count(test, &w, 1, 5000, NSUB), 0ULL);
	/* and a tick before the data is not "within" either */
	KUNIT_EXPECT_EQ(test, pd_t_count(test, &w, 1, 99, NSUB), 0ULL);
}

/* A slot is reused NSUB ticks later and forgets what it held. */
static void pd_win_reuse(struct kunit *test)
{
	struct pd_win *w = pd_t_win(test);

	pd_t_fill(w, 0, 0, 3000);
	pd_t_fill(w, NSUB, 500000, 10);	/* same slot as tick 0 */
	pd_t_expect_about(test, pd_t_count(test, &w, 1, NSUB, NSUB), 10);
}

/* Per-CPU windows merge into the union: 6000 + 6000 sharing 3000. */
static void pd_win_union_of_cpus(struct kunit *test)
{
	struct pd_win *w[2] = { pd_t_win(test), pd_t_win(test) };

	pd_t_fill(w[0], 7, 0, 6000);
	pd_t_fill(w[1], 7, 3000, 6000);
	pd_t_fill(w[1], 8, 0, 1000);
	pd_t_expect_about(test, pd_t_count(test, w, 2, 8, NSUB), 9000);
	pd_t_expect_about(test, pd_t_count(test, w, 2, 8, 1), 1000);
	pd_t_expect_about(test, pd_t_count(test, w, 1, 8, NSUB), 6000);
}

/*
 * The summaries live and expire with their sub-windows: tick 20's heavy
 * address leads while tick 20 is within the span, and is gone after.
 */
static void pd_win_top_expiry(struct kunit *test)
{
	struct pd_win *w[2] = { pd_t_win(test), pd_t_win(test) };
	struct pd_ss_agg *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	void *mem = kunit_kzalloc(test, pd_ss_agg_bytes(64, TOPCAP), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, mem);
	for (i = 0; i < 300; i++) {
		pd_t_fill(w[i & 1], 20, 7, 1);	/* address 7: 150 per "CPU" */
		pd_t_fill(w[i & 1], 20, 1000 + i, 1);
	}
	pd_t_fill(w[0], 22, 5000, 100);
	KUNIT_ASSERT_EQ(test, pd_ss_agg_init(a, 64, TOPCAP, mem), 0);
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, pd_win_collect_top(w[i], 22, NSUB, a), 0);
	pd_ss_agg_sort(a);
	KUNIT_EXPECT_EQ(test, a->total, 700ULL);
	KUNIT_EXPECT_EQ(test, a->it[0].addr[3], 7);
	KUNIT_EXPECT_GE(test, a->it[0].count - a->it[0].err, 300ULL - a->absent);
	KUNIT_EXPECT_GE(test, a->it[0].count, 300ULL);
	/* one tick later tick 20 (slot 0) is out of the last 2 */
	KUNIT_ASSERT_EQ(test, pd_ss_agg_init(a, 64, TOPCAP, mem), 0);
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, pd_win_collect_top(w[i], 22, 2, a), 0);
	KUNIT_EXPECT_EQ(test, a->total, 100ULL);
	/* and once tick 24 reuses slot 0, what it held is gone */
	pd_t_fill(w[0], 24, 9000, 1);
	KUNIT_ASSERT_EQ(test, pd_ss_agg_init(a, 64, TOPCAP, mem), 0);
	KUNIT_ASSERT_EQ(test, pd_win_collect_top(w[0], 24, NSUB, a), 0);
	KUNIT_EXPECT_EQ(test, a->total, 101ULL);
}

static struct kunit_case pd_win_cases[] = {
	KUNIT_CASE(pd_win_rejects),
	KUNIT_CASE(pd_win_subwindows),
	KUNIT_CASE(pd_win_expiry),
	KUNIT_CASE(pd_win_reuse),
	KUNIT_CASE(pd_win_union_of_cpus),
	KUNIT_CASE(pd_win_top_expiry),
	{}
};

static struct kunit_suite pd_win_suite = {
	.name = "pktdedup-window",
	.test_cases = pd_win_cases,
};

kunit_test_suite(pd_win_suite);
