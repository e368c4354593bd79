// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of what no setting may do to one packet's step, through the
 * interfaces every caller has (pd_filter_plan(), pd_shards_plan_shared(),
 * the positions of a key): a plan whose step walks its filter (an SBF's
 * P, a window's cleaning) is refused, whatever the scope; the planner's
 * own choices make no such step; and a key's positions in a filter of
 * more than 2^31 cells or bits are those of the double hashing its model
 * assumes. step_test.c holds the bound itself.
 */
#include <kunit/test.h>

#include "../../module/core/bitf.h"
#include "../../module/core/filter.h"
#include "../../module/core/ibf.h"
#include "../../module/core/sbf.h"
#include "../../module/core/shard.h"
#include "../../module/core/timewin.h"

/*
 * The reproduction of a user's own namespace taking every packet through
 * its filter: dedupctl set max 1 k 1 p 100000000 mem 16M layout flat
 * (scope shared too): 10^8 cells decremented a packet.
 */
static void pd_step_req_walks(struct pd_filter_req *req)
{
	pd_filter_req_defaults(req, PKTDEDUP_FILTER_KIND_SBF, 16 << 20);
	pd_sbf_req(req)->max = 1;
	pd_sbf_req(req)->k = 1;
	pd_sbf_req(req)->p = 100000000;
	pd_sbf_req(req)->layout = PKTDEDUP_LAYOUT_FLAT;
}

static void pd_step_refuses_walk(struct kunit *test)
{
	struct pd_filter_plan plan, shard, whole;
	struct pd_filter_req req;
	const char *why = NULL;
	struct pd_filter f;
	int err;

	pd_step_req_walks(&req);
	KUNIT_EXPECT_NE_MSG(test, pd_filter_plan(&req, &plan, &why), 0,
			    "p %u over %llu cells accepted", plan.p,
			    (unsigned long long)plan.cells);
	KUNIT_EXPECT_NOT_NULL(test, why);
	why = NULL;
	err = pd_filter_create(&f, &req, &plan, &why);
	if (!err)
		pd_filter_destroy(&f);
	KUNIT_EXPECT_NE(test, err, 0);
	KUNIT_EXPECT_NOT_NULL(test, why);
	/* scope shared: one filter that every CPU steps, and in shards */
	why = NULL;
	KUNIT_EXPECT_NE(test, pd_shards_plan_shared(&req, 0, 2, &shard, &whole,
						    &why), 0);
	KUNIT_EXPECT_NOT_NULL(test, why);
	why = NULL;
	KUNIT_EXPECT_NE(test, pd_shards_plan_shared(&req, 16, 2, &shard,
						    &whole, &why), 0);
	KUNIT_EXPECT_NOT_NULL(test, why);
	/* the importance-aware filters decrement as the SBF does */
	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_IBF_MC, 16 << 20);
	pd_ibf_req(&req)->p = 100000000;
	KUNIT_EXPECT_NE(test, pd_filter_plan(&req, &plan, &why), 0);
}

/*
 * A jumping window of 63 subwindows at fps 10^-9 planned for 1486 packets
 * a second over 1 s: 23 packets a subwindow (its capacity 40), whose
 * spare, a 64-bit lane at each of 2696 positions, is emptied over 11
 * packets, nine steps of it at once while a jump waits: 372 lines a
 * packet. Refused.
 */
static void pd_step_refuses_window(struct kunit *test)
{
	struct pd_filter_plan plan;
	struct pd_filter_req req;
	const char *why = NULL;

	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_JUMPING, 0);
	pd_tw_req(&req)->window_ns = 1000000000;
	pd_tw_req(&req)->rate = 1486;
	pd_tw_req(&req)->subwindows = 63;
	req.fps_ppb = 1;
	KUNIT_EXPECT_NE_MSG(test, pd_filter_plan(&req, &plan, &why), 0,
			    "%llu cells, capacity %llu, emptied over %llu packets",
			    (unsigned long long)plan.cells,
			    (unsigned long long)plan.capacity,
			    (unsigned long long)plan.clean_pkts);
}

/*
 * The SBF's planner, left K: at fps 10^-9 and a gap far beyond the filter
 * every K has the same FN rate, and the first, K 1, needed P 10^9. The
 * plan it makes now decrements no more than a step may: K + P d / 512
 * lines at most 256.
 */
static void pd_step_planner_cheap(struct kunit *test)
{
	static const struct {
		u64 fps, mem, max;
	} cfg[] = {
		{ 1, 256 << 20, PD_FILTER_AUTO },
		{ 1, 256 << 20, 1 },
		{ 10, 512 << 20, 7 },
		{ 1, 64 << 10, 3 },
	};
	struct pd_filter_plan plan;
	struct pd_filter_req req;
	const char *why = NULL;
	unsigned int i;

	for (i = 0; i < PD_ARRAY_SIZE(cfg); i++) {
		pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF,
				       cfg[i].mem);
		req.fps_ppb = cfg[i].fps;
		pd_sbf_req(&req)->gap = i == 3 ? 100000 : 1ULL << 48;
		pd_sbf_req(&req)->max = cfg[i].max;
		KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &plan, &why), 0);
		KUNIT_EXPECT_LE_MSG(test, plan.k + ((u64)plan.p * plan.bits +
						   511) / 512 + 3, 256ULL,
				    "fps %llu ppb, max %u: K %u, P %u",
				    (unsigned long long)cfg[i].fps, plan.max,
				    plan.k, plan.p);
	}
}

/*
 * The K positions of a key in an SBF of 2^32 - 64 cells: g_i = (map(h1) +
 * i step) mod m in whole numbers. With g and step near m their sum passes
 * 2^32; added in 32 bits it wrapped to 64 cells past the right one.
 */
static void pd_step_positions_wide(struct kunit *test)
{
	struct pd_sbf_params prm = {
		.cells = PD_SBF_MAX_CELLS, .max = 1, .k = 4, .p = 1,
		.layout = PKTDEDUP_LAYOUT_FLAT,
	};
	struct pd_bitf_params bprm = {
		.bits = PD_BITF_MAX_BITS, .k = 4,
		.kind = PKTDEDUP_FILTER_KIND_BSBF,
	};
	u32 pos[PD_SBF_MAX_K], h1 = 0xfffffff0u, h2 = 0xffffff00u;
	const char *why = NULL;
	struct pd_bitf b;
	struct pd_sbf f;
	u64 m, g, step;
	unsigned int i;

	/* positions are computed, no cell is touched: no memory needed */
	KUNIT_ASSERT_EQ(test, pd_sbf_init(&f, &prm, NULL, &why), 0);
	m = f.cells;
	g = ((u64)h1 * m) >> 32;
	step = (((u64)h2 * m) >> 32) | 1;
	KUNIT_ASSERT_GT(test, g + step, 0xffffffffULL);	/* passes 2^32 */
	pd_sbf_positions(&f, h1, h2, pos);
	for (i = 0; i < prm.k; i++) {
		KUNIT_EXPECT_EQ_MSG(test, (u64)pos[i], g, "sbf probe %u", i);
		KUNIT_EXPECT_LT(test, (u64)pos[i], m);
		g = (g + step) % m;
	}
	KUNIT_ASSERT_EQ(test, pd_bitf_init(&b, &bprm, NULL, &why), 0);
	m = b.s;
	g = ((u64)h1 * m) >> 32;
	step = (((u64)h2 * m) >> 32) | 1;
	KUNIT_ASSERT_GT(test, g + step, 0xffffffffULL);
	pd_bitf_positions(&b, h1, h2, pos);
	for (i = 0; i < bprm.k; i++) {
		KUNIT_EXPECT_EQ_MSG(test, (u64)pos[i], g, "bit array %u", i);
		KUNIT_EXPECT_LT(test, (u64)pos[i], m);
		g = (g + step) % m;
	}
}

static struct kunit_case pd_step_refuse_cases[] = {
	KUNIT_CASE(pd_step_refuses_walk),
	KUNIT_CASE(pd_step_refuses_window),
	KUNIT_CASE(pd_step_planner_cheap),
	KUNIT_CASE(pd_step_positions_wide),
	{}
};

static struct kunit_suite pd_step_refuse_suite = {
	.name = "pktdedup-step-refuse",
	.test_cases = pd_step_refuse_cases,
};

kunit_test_suite(pd_step_refuse_suite);
