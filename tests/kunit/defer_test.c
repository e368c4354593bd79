// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the deferred step (core/defer.h): its queue, and that a
 * filter stepped through it, then drained, gives the verdicts and ends in
 * the state of one stepped at once.
 */
#include <kunit/test.h>

#include "../../module/core/defer.h"
#include "../../module/core/filter.h"
#include "../../module/core/plan.h"
#include "../../module/core/rng.h"
#include "../../module/core/sbf.h"
#include "../../module/core/timewin.h"

/* The depths a queue may have: one packet, and beyond the caches. */
static const u32 pd_defer_depths[] = { 1, PD_DEFER_DEEP };

/* An empty queue of depth slots, freed with the test. */
static struct pd_defer *pd_defer_new(struct kunit *test, u32 depth)
{
	struct pd_defer *q = kunit_kzalloc(test, PD_DEFER_BYTES(depth),
					   GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, q);
	pd_defer_init(q, depth);
	return q;
}

/* The depth of the queue for family kind over mem, in layout (SBF only). */
static u32 pd_defer_depth_of(struct kunit *test, u8 kind, u64 mem, u8 layout)
{
	struct pd_filter_req req;
	struct pd_filter_plan plan;
	const char *why = NULL;

	pd_filter_req_defaults(&req, kind, mem);
	if (kind == PKTDEDUP_FILTER_KIND_SBF)
		pd_sbf_req(&req)->layout = layout;
	KUNIT_EXPECT_EQ_MSG(test, pd_filter_plan(&req, &plan, &why), 0, "%s",
			    why);
	return pd_defer_depth(&plan);
}

/*
 * The depth follows the filter a CPU steps: PD_DEFER_DEEP where the
 * family's prefetch asks for all of a step (the SBF in layout line) and
 * the filter is as large as layout auto plans one beyond the caches, one
 * otherwise; a power of two either way; a slot never straddles two lines,
 * and a queue of one shares its line with its header.
 */
static void pd_defer_depths_by_size(struct kunit *test)
{
	const u8 sbf = PKTDEDUP_FILTER_KIND_SBF;

	KUNIT_EXPECT_EQ(test, pd_defer_depth_of(test, sbf, 1 << 20,
						PKTDEDUP_LAYOUT_AUTO), 1u);
	KUNIT_EXPECT_EQ(test, pd_defer_depth_of(test, sbf, 1 << 20,
						PKTDEDUP_LAYOUT_LINE), 1u);
	KUNIT_EXPECT_EQ(test, pd_defer_depth_of(test, sbf, PD_PLAN_LINE_BYTES,
						PKTDEDUP_LAYOUT_AUTO),
			(u32)PD_DEFER_DEEP);
	KUNIT_EXPECT_EQ(test, pd_defer_depth_of(test, sbf, 64ULL << 20,
						PKTDEDUP_LAYOUT_LINE),
			(u32)PD_DEFER_DEEP);
	/* blocked's run, flat's cells: lines the prefetch does not ask for */
	KUNIT_EXPECT_EQ(test, pd_defer_depth_of(test, sbf, 64ULL << 20,
						PKTDEDUP_LAYOUT_BLOCKED), 1u);
	KUNIT_EXPECT_EQ(test, pd_defer_depth_of(test, sbf, 64ULL << 20,
						PKTDEDUP_LAYOUT_FLAT), 1u);
	KUNIT_EXPECT_EQ(test,
			pd_defer_depth_of(test, PKTDEDUP_FILTER_KIND_RSBF,
					  64ULL << 20, 0), 1u);
	KUNIT_EXPECT_GT(test, PD_DEFER_DEEP, 1);
	KUNIT_EXPECT_EQ(test, PD_DEFER_DEEP & (PD_DEFER_DEEP - 1), 0);
	KUNIT_EXPECT_EQ(test, offsetof(struct pd_defer, e) % 32, 0ul);
	KUNIT_EXPECT_EQ(test, 64 % sizeof(struct pd_defer_ent), 0ul);
	KUNIT_EXPECT_EQ(test, PD_DEFER_BYTES(1), (size_t)64);
}

/*
 * A slot at a time, at each depth: the queue keeps depth entries, then
 * hands back the oldest in the slot to fill, and pops them in order.
 */
static void pd_defer_order(struct kunit *test)
{
	struct pd_defer_ent *e, out;
	unsigned int di;
	bool full;

	for (di = 0; di < PD_ARRAY_SIZE(pd_defer_depths); di++) {
		u32 depth = pd_defer_depths[di], i, next = 0;
		struct pd_defer *q = pd_defer_new(test, depth);

		KUNIT_EXPECT_FALSE(test, pd_defer_pop(q, &out));
		for (i = 0; i < 3 * depth + 1; i++) {
			e = pd_defer_slot(q, &full);
			KUNIT_EXPECT_EQ(test, full, i >= depth);
			if (full) {
				KUNIT_EXPECT_EQ(test, e->h, 1000ULL + next);
				KUNIT_EXPECT_EQ(test, e->pi.now, (u64)next);
				KUNIT_EXPECT_EQ(test, e->pi.dscp, (u8)next);
				KUNIT_EXPECT_EQ(test, e->pi.mark, 7 * next);
				KUNIT_EXPECT_EQ(test, e->tag, (s32)next - 1);
				next++;
			}
			pd_defer_fill(e, 1000 + i, (u8)i, 7 * i, i,
				      (s32)i - 1);
			pd_defer_commit(q, full);
		}
		KUNIT_EXPECT_EQ(test, q->n, depth);
		while (pd_defer_pop(q, &out))
			KUNIT_EXPECT_EQ(test, out.h, 1000ULL + next++);
		KUNIT_EXPECT_EQ(test, next, 3u * depth + 1);
		KUNIT_EXPECT_EQ(test, q->n, 0u);
		KUNIT_EXPECT_FALSE(test, pd_defer_pop(q, &out));
	}
}

#define DEFER_N		20000
#define DEFER_KEYS	3000	/* recurring keys: copies, FPs and FNs */

/* Packet i's hash and time: keys recur, a millisecond apart */
static void pd_defer_pkt(u64 *rng, u32 i, u64 *h, struct pd_pktinfo *pi)
{
	u64 id = pd_rng_below(rng, DEFER_KEYS);

	*h = (id + 1) * 0x9e3779b97f4a7c15ULL;
	*h ^= *h >> 29;
	pi->dscp = (u8)(id & 63);
	pi->mark = 0;
	pi->now = (u64)(i + 1) * 1000000;
}

/*
 * Family kind (its defaults at 16 KiB: small, so that the stream has
 * false positives and negatives; a time window of 50 packets' time)
 * stepped at once and through a queue of depth slots, from the same
 * seeds: the same verdict for every packet, and the same state after (the
 * cells, and the verdicts of more packets).
 */
static void pd_defer_same_kind(struct kunit *test, u8 kind, u32 depth)
{
	struct pd_defer *q = pd_defer_new(test, depth);
	struct pd_filter_req req;
	struct pd_filter_plan plan;
	struct pd_filter now, later;
	struct pd_pktinfo pi;
	struct pd_defer_ent out;
	const char *why = NULL;
	u64 rng = 42, h;
	u32 i, dups = 0, got = 0, mism = 0;
	bool *v, full;

	v = kunit_kzalloc(test, DEFER_N, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, v);
	pd_filter_req_defaults(&req, kind, 16 << 10);
	if (pd_filter_family(kind)->timed) {
		/* 50 packets' time: keys expire and come back */
		pd_tw_req(&req)->window_ns = 50000000;
		pd_tw_req(&req)->rate = 1000;
	}
	KUNIT_ASSERT_EQ_MSG(test, pd_filter_create(&now, &req, &plan, &why), 0,
			    "kind %u: %s", kind, why);
	KUNIT_ASSERT_EQ(test, pd_filter_create(&later, &req, &plan, &why), 0);
	pd_filter_set_seeds(&now, 1, 2, 3);
	pd_filter_set_seeds(&later, 1, 2, 3);
	for (i = 0; i < DEFER_N; i++) {
		pd_defer_pkt(&rng, i, &h, &pi);
		v[i] = pd_filter_step_hash(&now, h, &pi);
		dups += v[i];
	}
	rng = 42;
	for (i = 0; i < DEFER_N; i++) {
		struct pd_defer_ent *e = pd_defer_slot(q, &full);

		pd_defer_pkt(&rng, i, &h, &pi);
		pd_filter_prefetch(&later, h);
		if (full) {
			KUNIT_EXPECT_EQ(test, (u32)e->tag, got);
			mism += pd_filter_step_hash(&later, e->h, &e->pi) !=
				v[got++];
		}
		pd_defer_fill(e, h, pi.dscp, pi.mark, pi.now, (s32)i);
		pd_defer_commit(q, full);
	}
	KUNIT_EXPECT_EQ(test, got, DEFER_N - depth);
	while (pd_defer_pop(q, &out))
		mism += pd_filter_step_hash(&later, out.h, &out.pi) != v[got++];
	KUNIT_EXPECT_EQ(test, got, (u32)DEFER_N);
	KUNIT_EXPECT_EQ_MSG(test, mism, 0u, "%s, depth %u", now.ops->name,
			    depth);
	/* the stream had both verdicts */
	KUNIT_EXPECT_GT(test, dups, 0u);
	KUNIT_EXPECT_LT(test, dups, (u32)DEFER_N);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(now.mem, later.mem, plan.bytes), 0,
			    "%s", now.ops->name);
	for (i = DEFER_N; i < DEFER_N + 2000; i++) {
		pd_defer_pkt(&rng, i, &h, &pi);
		mism += pd_filter_step_hash(&now, h, &pi) !=
			pd_filter_step_hash(&later, h, &pi);
	}
	KUNIT_EXPECT_EQ_MSG(test, mism, 0u, "%s after", now.ops->name);
	pd_filter_destroy(&now);
	pd_filter_destroy(&later);
}

static void pd_defer_same(struct kunit *test)
{
	unsigned int di;
	u8 kind;

	for (di = 0; di < PD_ARRAY_SIZE(pd_defer_depths); di++)
		for (kind = 0; kind <= PKTDEDUP_FILTER_KIND_MAX; kind++)
			pd_defer_same_kind(test, kind, pd_defer_depths[di]);
}

static struct kunit_case pd_defer_cases[] = {
	KUNIT_CASE(pd_defer_depths_by_size),
	KUNIT_CASE(pd_defer_order),
	KUNIT_CASE(pd_defer_same),
	{}
};

static struct kunit_suite pd_defer_suite = {
	.name = "pktdedup-defer",
	.test_cases = pd_defer_cases,
};

kunit_test_suite(pd_defer_suite);
