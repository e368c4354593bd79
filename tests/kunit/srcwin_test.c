// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the jumping window: sub-window queries, expiry, slot
 * reuse, the union of per-CPU windows, sources apart from destinations,
 * ticks of the caller's time, top talkers on and off, and the layout of
 * what a packet reads.
 */
#include <kunit/test.h>

#include "../../module/core/rng.h"
#include "../../module/core/srcwin.h"

#define NSUB 4
#define TOPCAP 16

static const struct pd_akey pd_t_key = {
	{ 0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL, 0xa4093822299f31d0ULL,
	  0x082efa98ec4e6c89ULL }, 0x452821e638d01377ULL
};

/* A window of NSUB ticks of len time units, top talkers of cap. */
static struct pd_srcwin *pd_t_win_of(struct kunit *test, u32 cap, u64 len)
{
	struct pd_srcwin *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	void *mem = kunit_kzalloc(test, pd_srcwin_bytes(NSUB, cap), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, mem);
	KUNIT_ASSERT_EQ(test, pd_srcwin_init(w, NSUB, cap, len, &pd_t_key, mem), 0);
	return w;
}

static struct pd_srcwin *pd_t_win(struct kunit *test)
{
	return pd_t_win_of(test, TOPCAP, 1);
}

static void pd_t_addr(u64 s, u8 *a)
{
	a[0] = (u8)(s >> 24);
	a[1] = (u8)(s >> 16);
	a[2] = (u8)(s >> 8);
	a[3] = (u8)s;
}

/* Sources first..first+n-1 (distinct ids) to one destination at `now`. */
static void pd_t_fill(struct pd_srcwin *w, u64 now, u64 first, u32 n)
{
	static const u8 dst[4] = { 192, 0, 2, 1 };
	u32 i;

	for (i = 0; i < n; i++) {
		u8 a[4];

		pd_t_addr(first + i, a);
		pd_srcwin_add(w, now, a, dst, 4);
	}
}

/* The estimate over the last `last` ticks as of tick now, from w[]. */
static u64 pd_t_count_of(struct kunit *test, struct pd_srcwin **w, int nw,
			 u64 now, u32 last, int which)
{
	struct pd_hll *out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, out);
	for (i = 0; i < nw; i++)
		pd_srcwin_collect(w[i], now, last, which, out);
	return pd_hll_estimate(out);
}

static u64 pd_t_count(struct kunit *test, struct pd_srcwin **w, int nw, u64 now,
		      u32 last)
{
	return pd_t_count_of(test, w, nw, now, last, PD_SRCWIN_SRC);
}

/* |est - want| <= 3.25% want + 1 (4 standard errors of the sketch) */
static void pd_t_expect_about(struct kunit *test, u64 est, u64 want)
{
	u64 err = est > want ? est - want : want - est;

	KUNIT_EXPECT_TRUE_MSG(test, err * 10000 <= want * 325 + 10000,
			      "estimate %llu, want about %llu",
			      (unsigned long long)est, (unsigned long long)want);
}

static void pd_srcwin_rejects(struct kunit *test)
{
	struct pd_srcwin *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_LT(test, pd_srcwin_init(w, 0, 0, 1, &pd_t_key, NULL), 0);
	KUNIT_EXPECT_LT(test, pd_srcwin_init(w, PD_SRCWIN_MAX_SUB + 1, 0, 1,
					     &pd_t_key, NULL), 0);
	KUNIT_EXPECT_LT(test, pd_srcwin_init(w, 1, PD_SS_MIN_CAP - 1, 1,
					     &pd_t_key, NULL), 0);
	KUNIT_EXPECT_LT(test, pd_srcwin_init(w, 1, 0, 0, &pd_t_key, NULL), 0);
}

/* Sub-windows: the last 1, 2 and all ticks; ticks 10, 11, 12 disjoint. */
static void pd_srcwin_subwindows(struct kunit *test)
{
	struct pd_srcwin *w = pd_t_win(test);

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
static void pd_srcwin_expiry(struct kunit *test)
{
	struct pd_srcwin *w = pd_t_win(test);

	pd_t_fill(w, 100, 0, 5000);
	pd_t_expect_about(test, pd_t_count(test, &w, 1, 100 + NSUB - 1, NSUB), 5000);
	KUNIT_EXPECT_EQ(test, pd_t_count(test, &w, 1, 100 + NSUB, NSUB), 0ULL);
	KUNIT_EXPECT_EQ(test, pd_t_count(test, &w, 1, 5000, NSUB), 0ULL);
	/* and a tick before the data is not "within" either */
	KUNIT_EXPECT_EQ(test, pd_t_count(test, &w, 1, 99, NSUB), 0ULL);
}

/* A slot is reused NSUB ticks later and forgets what it held. */
static void pd_srcwin_reuse(struct kunit *test)
{
	struct pd_srcwin *w = pd_t_win(test);

	pd_t_fill(w, 0, 0, 3000);
	pd_t_fill(w, NSUB, 500000, 10);	/* same slot as tick 0 */
	pd_t_expect_about(test, pd_t_count(test, &w, 1, NSUB, NSUB), 10);
	pd_t_expect_about(test, pd_t_count_of(test, &w, 1, NSUB, NSUB,
					      PD_SRCWIN_DST), 1);
}

/* Per-CPU windows merge into the union: 6000 + 6000 sharing 3000. */
static void pd_srcwin_union_of_cpus(struct kunit *test)
{
	struct pd_srcwin *w[2] = { pd_t_win(test), pd_t_win(test) };

	pd_t_fill(w[0], 7, 0, 6000);
	pd_t_fill(w[1], 7, 3000, 6000);
	pd_t_fill(w[1], 8, 0, 1000);
	pd_t_expect_about(test, pd_t_count(test, w, 2, 8, NSUB), 9000);
	pd_t_expect_about(test, pd_t_count(test, w, 2, 8, 1), 1000);
	pd_t_expect_about(test, pd_t_count(test, w, 1, 8, NSUB), 6000);
}

/*
 * Sources and destinations are counted apart: 3000 sources to 7
 * destinations, 2 sources to 5000 destinations; an address that is a
 * source is not thereby a destination.
 */
static void pd_srcwin_sources_and_destinations(struct kunit *test)
{
	struct pd_srcwin *w = pd_t_win_of(test, 0, 1);
	u8 s[16], d[16];
	u32 i;

	for (i = 0; i < 3000; i++) {
		pd_t_addr(i, s);
		pd_t_addr(1000000 + i % 7, d);
		pd_srcwin_add(w, 3, s, d, 4);
	}
	memset(s, 0, sizeof(s));
	memset(d, 0, sizeof(d));
	s[0] = 0x20;		/* IPv6: 2000::N and 2000::1:N */
	d[0] = 0x20;
	d[13] = 1;
	for (i = 0; i < 5000; i++) {
		s[15] = (u8)(i & 1);
		d[14] = (u8)(i >> 8);
		d[15] = (u8)i;
		pd_srcwin_add(w, 3, s, d, 16);
	}
	pd_t_expect_about(test, pd_t_count_of(test, &w, 1, 3, 1, PD_SRCWIN_SRC),
			  3002);
	pd_t_expect_about(test, pd_t_count_of(test, &w, 1, 3, 1, PD_SRCWIN_DST),
			  5007);
}

/*
 * Time is the caller's: ticks of 1000 units, so times 0..999 are tick 0
 * and 1000..1999 tick 1; what a tick counted leaves the window NSUB ticks
 * after it.
 */
static void pd_srcwin_ticks_of_time(struct kunit *test)
{
	struct pd_srcwin *w = pd_t_win_of(test, 0, 1000);
	u8 a[4];
	u32 i;

	for (i = 0; i < 500; i++) {
		pd_t_addr(i, a);
		pd_srcwin_add(w, 2 * i, a, a, 4);		/* times 0..998 */
	}
	for (i = 0; i < 300; i++) {
		pd_t_addr(10000 + i, a);
		pd_srcwin_add(w, 1000 + 3 * i, a, a, 4);	/* times 1000..1897 */
	}
	KUNIT_EXPECT_EQ(test, pd_srcwin_tick(w, 999), 0ULL);
	KUNIT_EXPECT_EQ(test, pd_srcwin_tick(w, 1000), 1ULL);
	pd_t_expect_about(test, pd_t_count(test, &w, 1, 0, 1), 500);
	pd_t_expect_about(test, pd_t_count(test, &w, 1, 1, 1), 300);
	pd_t_expect_about(test, pd_t_count(test, &w, 1, 1, NSUB), 800);
	pd_t_expect_about(test, pd_t_count(test, &w, 1, NSUB, NSUB), 300);
	KUNIT_EXPECT_EQ(test, pd_t_count(test, &w, 1, NSUB + 1, NSUB), 0ULL);
	/* a packet of an earlier time counts in the current tick (1) */
	pd_t_addr(99999, a);
	pd_srcwin_add(w, 5, a, a, 4);
	pd_t_expect_about(test, pd_t_count(test, &w, 1, 1, 1), 301);
	pd_t_expect_about(test, pd_t_count(test, &w, 1, 0, 1), 500);
}

/* pd_srcwin_add() hashes the source as pd_addr_hash() does, and returns it. */
static void pd_srcwin_returns_source_hash(struct kunit *test)
{
	struct pd_srcwin *w = pd_t_win_of(test, 0, 1);
	u8 s[16] = { 0x20, 1, 0xd, 0xb8 }, d[16] = { 0xfe, 0x80 };

	KUNIT_EXPECT_EQ(test, pd_srcwin_add(w, 1, s, d, 4),
			pd_addr_hash(&pd_t_key, s, 4));
	KUNIT_EXPECT_EQ(test, pd_srcwin_add(w, 1, s, d, 16),
			pd_addr_hash(&pd_t_key, s, 16));
}

/*
 * Top talkers are optional: without counters a window holds sketches
 * only (32 KiB a sub-window), keeps no summary and merges none.
 */
static void pd_srcwin_top_off(struct kunit *test)
{
	struct pd_srcwin *w = pd_t_win_of(test, 0, 1);
	struct pd_ss_agg *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	void *mem = kunit_kzalloc(test, pd_ss_agg_bytes(64, TOPCAP), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, mem);
	KUNIT_EXPECT_EQ(test, pd_srcwin_bytes(NSUB, 0),
			(size_t)NSUB * 2 * sizeof(struct pd_hll));
	KUNIT_EXPECT_GT(test, pd_srcwin_bytes(NSUB, TOPCAP), pd_srcwin_bytes(NSUB, 0));
	pd_t_fill(w, 2, 0, 100);
	KUNIT_EXPECT_NULL(test, w->top);
	KUNIT_ASSERT_EQ(test, pd_ss_agg_init(a, 64, TOPCAP, mem), 0);
	KUNIT_EXPECT_EQ(test, pd_srcwin_collect_top(w, 2, NSUB, a), 0);
	KUNIT_EXPECT_EQ(test, a->total, 0ULL);
	KUNIT_EXPECT_EQ(test, a->n, 0u);
	pd_t_expect_about(test, pd_t_count(test, &w, 1, 2, NSUB), 100);
}

/*
 * What pd_srcwin_add() reads while a tick lasts (the tick's end, its
 * sketches and summary, the hash key) lies in the window's first 64
 * bytes: with the window at the start of a line, one line.
 */
static void pd_srcwin_hot_line(struct kunit *test)
{
	KUNIT_EXPECT_LE(test, offsetof(struct pd_srcwin, end) + sizeof(u64), 64UL);
	KUNIT_EXPECT_LE(test, offsetof(struct pd_srcwin, cur) + sizeof(void *),
			64UL);
	KUNIT_EXPECT_LE(test, offsetof(struct pd_srcwin, top) + sizeof(void *),
			64UL);
	KUNIT_EXPECT_LE(test, offsetof(struct pd_srcwin, key) +
			sizeof(struct pd_akey), 64UL);
}

/*
 * The batch: fewer than PD_SRCWIN_BATCH packets leave the registers as
 * they were, yet a reader sees every one, register for register what
 * pd_hll_add() of each hash gives; the batch's packets are folded at the
 * PD_SRCWIN_BATCH-th packet, and into the tick they came in when the next
 * tick begins (a reader of that tick alone sees them, one of the next
 * does not).
 */
static void pd_srcwin_batch(struct kunit *test)
{
	static const u8 dst[4] = { 192, 0, 2, 1 };
	struct pd_srcwin *w = pd_t_win_of(test, 0, 1);
	struct pd_hll *want = kunit_kzalloc(test, 2 * sizeof(*want), GFP_KERNEL);
	struct pd_hll *out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	struct pd_hll *empty = kunit_kzalloc(test, sizeof(*empty), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_ASSERT_NOT_NULL(test, empty);
	for (i = 0; i < PD_SRCWIN_BATCH - 1; i++) {
		u8 a[4];

		pd_t_addr(100 + i, a);
		pd_hll_add(&want[0], pd_addr_hash(&pd_t_key, a, 4));
		pd_srcwin_add(w, 3, a, dst, 4);
	}
	pd_hll_add(&want[1], pd_addr_hash(&pd_t_key, dst, 4));
	KUNIT_EXPECT_EQ(test, w->nb, (u32)PD_SRCWIN_BATCH - 1);
	KUNIT_EXPECT_EQ(test, memcmp(w->cur, empty, sizeof(*empty)), 0);
	pd_srcwin_collect(w, 3, 1, PD_SRCWIN_SRC, out);
	KUNIT_EXPECT_EQ(test, memcmp(out, &want[0], sizeof(*out)), 0);
	memset(out, 0, sizeof(*out));
	pd_srcwin_collect(w, 3, 1, PD_SRCWIN_DST, out);
	KUNIT_EXPECT_EQ(test, memcmp(out, &want[1], sizeof(*out)), 0);
	/* the batch's last packet folds it */
	pd_t_fill(w, 3, 100, 1);
	KUNIT_EXPECT_EQ(test, w->nb, 0U);
	KUNIT_EXPECT_EQ(test, memcmp(&w->cur[0], &want[0], sizeof(*out)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&w->cur[1], &want[1], sizeof(*out)), 0);
	/* tick 3's batch goes into tick 3 when tick 4 begins */
	pd_t_fill(w, 3, 5000, 10);
	pd_t_fill(w, 4, 9000, 1);
	KUNIT_EXPECT_EQ(test, w->nb, 1U);
	pd_t_expect_about(test, pd_t_count(test, &w, 1, 3, 1),
			  PD_SRCWIN_BATCH - 1 + 10);
	KUNIT_EXPECT_EQ(test, pd_t_count(test, &w, 1, 4, 1), 1ULL);
	/* a reader of ticks the batch is not of leaves it out */
	KUNIT_EXPECT_EQ(test, pd_t_count(test, &w, 1, 2, 1), 0ULL);
}

/*
 * The summaries live and expire with their sub-windows: tick 20's heavy
 * address leads while tick 20 is within the span, and is gone after.
 */
static void pd_srcwin_top_expiry(struct kunit *test)
{
	struct pd_srcwin *w[2] = { pd_t_win(test), pd_t_win(test) };
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
		KUNIT_ASSERT_EQ(test, pd_srcwin_collect_top(w[i], 22, NSUB, a), 0);
	pd_ss_agg_sort(a);
	KUNIT_EXPECT_EQ(test, a->total, 700ULL);
	KUNIT_EXPECT_EQ(test, a->it[0].addr[3], 7);
	KUNIT_EXPECT_GE(test, a->it[0].count - a->it[0].err, 300ULL - a->absent);
	KUNIT_EXPECT_GE(test, a->it[0].count, 300ULL);
	/* one tick later tick 20 (slot 0) is out of the last 2 */
	KUNIT_ASSERT_EQ(test, pd_ss_agg_init(a, 64, TOPCAP, mem), 0);
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, pd_srcwin_collect_top(w[i], 22, 2, a), 0);
	KUNIT_EXPECT_EQ(test, a->total, 100ULL);
	/* and once tick 24 reuses slot 0, what it held is gone */
	pd_t_fill(w[0], 24, 9000, 1);
	KUNIT_ASSERT_EQ(test, pd_ss_agg_init(a, 64, TOPCAP, mem), 0);
	KUNIT_ASSERT_EQ(test, pd_srcwin_collect_top(w[0], 24, NSUB, a), 0);
	KUNIT_EXPECT_EQ(test, a->total, 101ULL);
}

static struct kunit_case pd_srcwin_cases[] = {
	KUNIT_CASE(pd_srcwin_rejects),
	KUNIT_CASE(pd_srcwin_subwindows),
	KUNIT_CASE(pd_srcwin_expiry),
	KUNIT_CASE(pd_srcwin_reuse),
	KUNIT_CASE(pd_srcwin_union_of_cpus),
	KUNIT_CASE(pd_srcwin_sources_and_destinations),
	KUNIT_CASE(pd_srcwin_ticks_of_time),
	KUNIT_CASE(pd_srcwin_returns_source_hash),
	KUNIT_CASE(pd_srcwin_top_off),
	KUNIT_CASE(pd_srcwin_hot_line),
	KUNIT_CASE(pd_srcwin_batch),
	KUNIT_CASE(pd_srcwin_top_expiry),
	{}
};

static struct kunit_suite pd_srcwin_suite = {
	.name = "pktdedup-srcwin",
	.test_cases = pd_srcwin_cases,
};

kunit_test_suite(pd_srcwin_suite);
