// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of Space-Saving and of the merge of summaries: the bounds
 * hold for every address of fixed-seed skewed streams, per summary and
 * merged over per-CPU summaries (with and without cutting the list), the
 * index stays consistent through replacements, and the BFSS rule for rare
 * addresses has no false negatives and bounded false positives.
 */
#include <kunit/test.h>

#include "../../module/core/rng.h"
#include "../../module/core/ss.h"

#define U 3000		/* distinct addresses in the streams */
#define NELEM 60000
#define CAP 64
#define NSUM 4		/* "CPUs" */

struct pd_t_ss {
	u32 truth[U];
	u32 stream[NELEM];
	struct pd_ss s[NSUM];
};

static void pd_t_addr(u32 id, u8 *a)
{
	a[0] = 10;
	a[1] = (u8)(id >> 16);
	a[2] = (u8)(id >> 8);
	a[3] = (u8)id;
}

static u64 pd_t_hash(u32 id)
{
	u64 s = 0x5eed0000ULL + id;

	return pd_rng_next(&s);
}

/*
 * A skewed stream: an eighth of the elements go to 8 heavy addresses, half
 * of those to address 0 (about 3750, 540 each for 1..7); the rest are
 * uniform over all U (about 17 each).
 */
static struct pd_t_ss *pd_t_setup(struct kunit *test, u64 seed)
{
	struct pd_t_ss *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, t);
	for (i = 0; i < NELEM; i++) {
		u32 r = pd_rng_below(&seed, 8);

		if (r)
			t->stream[i] = pd_rng_below(&seed, U);
		else
			t->stream[i] = pd_rng_below(&seed, 2) ?
				       0 : 1 + pd_rng_below(&seed, 7);
		t->truth[t->stream[i]]++;
	}
	for (i = 0; i < NSUM; i++) {
		void *mem = kunit_kzalloc(test, pd_ss_bytes(CAP), GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, mem);
		KUNIT_ASSERT_EQ(test, pd_ss_init(&t->s[i], CAP, mem), 0);
	}
	return t;
}

/* Elements i with i % NSUM == which go to summary `which` (-1: all to 0). */
static void pd_t_feed(struct pd_t_ss *t, int which)
{
	u32 i;

	for (i = 0; i < NELEM; i++) {
		u32 id = t->stream[i];
		struct pd_ss *s = &t->s[which < 0 ? 0 : i % NSUM];
		u8 a[4];

		pd_t_addr(id, a);
		pd_ss_add(s, pd_t_hash(id), a, 4);
	}
}

static void pd_ss_rejects(struct kunit *test)
{
	struct pd_ss s;
	struct pd_ss_agg a;

	KUNIT_EXPECT_LT(test, pd_ss_init(&s, PD_SS_MIN_CAP - 1, NULL), 0);
	KUNIT_EXPECT_LT(test, pd_ss_init(&s, PD_SS_MAX_CAP + 1, NULL), 0);
	KUNIT_EXPECT_LT(test, pd_ss_agg_init(&a, 0, CAP, NULL), 0);
}

/* With no more addresses than counters, every count is exact. */
static void pd_ss_exact_when_roomy(struct kunit *test)
{
	void *mem = kunit_kzalloc(test, pd_ss_bytes(CAP), GFP_KERNEL);
	const struct pd_ss_item *it;
	struct pd_ss s;
	u32 i, id;
	u8 a[4];

	KUNIT_ASSERT_NOT_NULL(test, mem);
	KUNIT_ASSERT_EQ(test, pd_ss_init(&s, CAP, mem), 0);
	for (i = 0; i < 10000; i++) {
		id = i % CAP;
		pd_t_addr(id, a);
		pd_ss_add(&s, pd_t_hash(id), a, 4);
	}
	KUNIT_EXPECT_EQ(test, s.n, (u32)CAP);
	KUNIT_EXPECT_EQ(test, s.total, 10000ULL);
	for (id = 0; id < CAP; id++) {
		pd_t_addr(id, a);
		it = pd_ss_find(&s, pd_t_hash(id), a, 4);
		KUNIT_ASSERT_NOT_NULL(test, it);
		KUNIT_EXPECT_EQ(test, it->count, 10000ULL / CAP + (id < 10000 % CAP));
		KUNIT_EXPECT_EQ(test, it->err, 0ULL);
	}
	/* the same bytes under another length are another address */
	pd_t_addr(0, a);
	KUNIT_EXPECT_NULL(test, pd_ss_find(&s, pd_t_hash(0), a, 3));
}

/*
 * One summary on the whole skewed stream: every monitored address's true
 * count lies in [count - err, count], min <= N / cap, every address with
 * f > min is monitored, the index holds exactly the n counters, and the
 * first bucket holds the least count, and the buckets, in order, hold
 * every counter once with strictly increasing counts.
 */
static void pd_ss_bounds(struct kunit *test)
{
	struct pd_t_ss *t = pd_t_setup(test, 1);
	struct pd_ss *s = &t->s[0];
	u32 id, slots = 0, e;
	u64 least = ~0ULL;

	pd_t_feed(t, -1);
	KUNIT_EXPECT_EQ(test, s->n, (u32)CAP);
	KUNIT_EXPECT_LE(test, pd_ss_min(s), (u64)NELEM / CAP);
	for (id = 0; id < U; id++) {
		const struct pd_ss_item *it;
		u8 a[4];

		pd_t_addr(id, a);
		it = pd_ss_find(s, pd_t_hash(id), a, 4);
		if (!it) {
			KUNIT_EXPECT_LE(test, (u64)t->truth[id], pd_ss_min(s));
			continue;
		}
		KUNIT_EXPECT_LE(test, it->count - it->err, (u64)t->truth[id]);
		KUNIT_EXPECT_GE(test, it->count, (u64)t->truth[id]);
	}
	for (e = 0; e <= s->mask; e++)
		slots += !!s->idx[e];
	KUNIT_EXPECT_EQ(test, slots, s->n);
	for (e = 0; e < s->n; e++)
		if (s->it[e].count < least)
			least = s->it[e].count;
	KUNIT_EXPECT_EQ(test, least, pd_ss_min(s));
	slots = 0;
	for (e = s->low; e != PD_SS_NIL; e = s->b[e].next) {
		u32 i;

		if (s->b[e].next != PD_SS_NIL)
			KUNIT_EXPECT_LT(test, s->b[e].count,
					s->b[s->b[e].next].count);
		for (i = s->b[e].head; i != PD_SS_NIL; i = s->it[i].next) {
			KUNIT_EXPECT_EQ(test, s->it[i].count, s->b[e].count);
			KUNIT_EXPECT_EQ(test, (u32)s->it[i].bucket, e);
			slots++;
		}
	}
	KUNIT_EXPECT_EQ(test, slots, s->n);
}

/* Check merged bounds against the truth for every address. */
static void pd_t_check_agg(struct kunit *test, struct pd_t_ss *t,
			   const struct pd_ss_agg *a)
{
	u32 id, heavy = 0;
	u64 lo, hi;
	u8 x[4];

	KUNIT_EXPECT_EQ(test, a->total, (u64)NELEM);
	for (id = 0; id < U; id++) {
		pd_t_addr(id, x);
		pd_ss_agg_bounds(a, pd_t_hash(id), x, 4, &lo, &hi);
		KUNIT_EXPECT_LE(test, lo, (u64)t->truth[id]);
		KUNIT_EXPECT_GE(test, hi, (u64)t->truth[id]);
		if (t->truth[id] > t->truth[heavy])
			heavy = id;
	}
	/* the merged error stays within N / cap */
	KUNIT_EXPECT_LE(test, a->absent, (u64)NELEM / CAP);
	/* the heaviest address is listed first once sorted */
	pd_t_addr(heavy, x);
	KUNIT_EXPECT_EQ(test, memcmp(a->it[0].addr, x, 4), 0);
}

static struct pd_ss_agg *pd_t_merge(struct kunit *test, struct pd_t_ss *t,
				    u32 keep)
{
	struct pd_ss_agg *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	void *mem = kunit_kzalloc(test, pd_ss_agg_bytes(keep, CAP), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, mem);
	KUNIT_ASSERT_EQ(test, pd_ss_agg_init(a, keep, CAP, mem), 0);
	for (i = 0; i < NSUM; i++)
		KUNIT_ASSERT_EQ(test, pd_ss_agg_merge(a, &t->s[i]), 0);
	pd_ss_agg_sort(a);
	return a;
}

/* Per-CPU summaries of a split stream merge into valid bounds. */
static void pd_ss_merge_bounds(struct kunit *test)
{
	struct pd_t_ss *t = pd_t_setup(test, 2);

	pd_t_feed(t, 0);
	pd_t_check_agg(test, t, pd_t_merge(test, t, NSUM * CAP));
	/* cutting the list to CAP after each merge keeps them valid */
	pd_t_check_agg(test, t, pd_t_merge(test, t, CAP));
}

/*
 * BFSS rule at s = 1%: every address with f <= floor(sN) is rare (no
 * false negatives); every address called rare has f <= floor(sN) + error.
 */
static void pd_ss_rare_rule(struct kunit *test)
{
	struct pd_t_ss *t = pd_t_setup(test, 3);
	const u32 ppb = 10000000;	/* 1% */
	struct pd_ss_agg *a;
	u64 sn, err, lo, hi;
	u32 id, rare = 0, truly = 0;

	pd_t_feed(t, 0);
	a = pd_t_merge(test, t, NSUM * CAP);
	sn = pd_ss_support_count(NELEM, ppb);
	KUNIT_EXPECT_EQ(test, sn, (u64)NELEM / 100);
	err = a->absent;
	for (id = 0; id < U; id++) {
		bool r;
		u8 x[4];

		if (!t->truth[id])
			continue;	/* the rule is asked of seen addresses */
		pd_t_addr(id, x);
		r = pd_ss_rare(a, pd_t_hash(id), x, 4, ppb, &lo, &hi);
		if (t->truth[id] <= sn)
			KUNIT_EXPECT_TRUE(test, r);
		if (r)
			KUNIT_EXPECT_LE(test, (u64)t->truth[id], sn + err);
		rare += r;
		truly += t->truth[id] <= sn;
	}
	/* not vacuous: some addresses are rare and some are not */
	KUNIT_EXPECT_GT(test, truly, 0U);
	KUNIT_EXPECT_LT(test, rare, (u32)U);
}

static void pd_ss_support(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, pd_ss_support_count(12345, 100000000), 1234ULL);
	KUNIT_EXPECT_EQ(test, pd_ss_support_count(~0ULL, 999999999),
			(u64)(~0ULL / 1000000000ULL) * 999999999ULL +
			(~0ULL % 1000000000ULL) * 999999999ULL / 1000000000ULL);
}

static struct kunit_case pd_ss_cases[] = {
	KUNIT_CASE(pd_ss_rejects),
	KUNIT_CASE(pd_ss_exact_when_roomy),
	KUNIT_CASE(pd_ss_bounds),
	KUNIT_CASE(pd_ss_merge_bounds),
	KUNIT_CASE(pd_ss_rare_rule),
	KUNIT_CASE(pd_ss_support),
	{}
};

static struct kunit_suite pd_ss_suite = {
	.name = "pktdedup-space-saving",
	.test_cases = pd_ss_cases,
};

kunit_test_suite(pd_ss_suite);
