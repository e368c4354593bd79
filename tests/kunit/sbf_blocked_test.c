// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the Stable Bloom Filter's blocked layout (sbf.h): two
 * cache lines per element, the same filter as a naive model of it, the
 * FP rate against the planner's model of blocked cells, and the planner's
 * choices and refusals.
 */
#include <kunit/test.h>

#include "../../module/core/filter.h"
#include "../../module/core/fixed.h"
#include "../../module/core/plan.h"
#include "../../module/core/rng.h"
#include "../../module/core/sbf.h"

static int pd_sbb_new(struct kunit *test, struct pd_sbf *f, u64 cells, u8 k,
		      u32 p, u64 seed)
{
	struct pd_sbf_params prm = { .cells = cells, .max = 1, .k = k, .p = p,
				     .layout = PKTDEDUP_LAYOUT_BLOCKED };
	const char *why = NULL;
	int err = pd_sbf_create(f, &prm, &why);

	if (err)
		kunit_err(test, "pd_sbf_create: %s", why);
	else
		pd_sbf_set_rng(f, seed);
	return err;
}

/* The 64-byte line cell i lies in. */
static u32 pd_sbb_line(const struct pd_sbf *f, u32 i)
{
	return i >> f->cpl_shift;
}

/*
 * An element's K cells are distinct and share one line; the lines are
 * used evenly; a step changes at most two lines (its cells', its run's).
 */
static void pd_sbf_blocked_two_lines(struct kunit *test)
{
	u32 pos[PD_SBF_MAX_K], *hits, i, j, l, changed, most = 0;
	u64 *before, rng = 5;
	struct pd_sbf f;

	KUNIT_ASSERT_EQ(test, pd_sbb_new(test, &f, 1 << 16, 12, 40, 1), 0);
	KUNIT_EXPECT_EQ(test, f.lines, (u32)(1 << 16) / 512);
	hits = kunit_kzalloc(test, f.lines * sizeof(*hits), GFP_KERNEL);
	before = kunit_kzalloc(test, f.nwords * sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hits);
	KUNIT_ASSERT_NOT_NULL(test, before);
	for (i = 0; i < 64 * f.lines; i++) {
		u64 h = pd_rng_next(&rng);

		pd_sbf_positions(&f, (u32)h, (u32)(h >> 32), pos);
		for (j = 0; j < f.k; j++) {
			KUNIT_ASSERT_EQ(test, pd_sbb_line(&f, pos[j]),
					pd_sbb_line(&f, pos[0]));
			for (l = 0; l < j; l++)
				KUNIT_ASSERT_NE(test, pos[j], pos[l]);
		}
		hits[pd_sbb_line(&f, pos[0])]++;
	}
	/* 64 per line on average: Poisson, 64 + 6 sd = 112 */
	for (l = 0; l < f.lines; l++)
		if (hits[l] > most)
			most = hits[l];
	KUNIT_EXPECT_LT(test, most, 112u);
	/* every cell at 1: a step's changes show where it wrote */
	memset(f.words, 0xff, f.nwords * sizeof(u64));
	for (i = 0; i < 2000; i++) {
		u64 h = pd_rng_next(&rng);

		memcpy(before, f.words, f.nwords * sizeof(u64));
		pd_sbf_step(&f, (u32)h, (u32)(h >> 32));
		for (changed = 0, l = 0; l < f.lines; l++)
			changed += !!memcmp(before + l * PD_SBF_LINE_WORDS,
					    f.words + l * PD_SBF_LINE_WORDS,
					    PD_SBF_LINE_WORDS * sizeof(u64));
		KUNIT_ASSERT_LE(test, changed, 2u);
		/* the run is 40 cells, so it always lands somewhere */
		KUNIT_ASSERT_GE(test, changed, 1u);
		memset(f.words, 0xff, f.nwords * sizeof(u64));
	}
	pd_sbf_destroy(&f);
}

/*
 * The packed blocked filter against a naive one fed the same positions
 * and the same decrement starts, the run wrapping inside its line.
 */
static void pd_sbf_blocked_matches_model(struct kunit *test)
{
	static const struct { u8 k; u32 p; } cfg[] = {
		{ 3, 11 }, { 1, 512 }, { 6, 100 }, { 16, 300 }, { 2, 0 },
	};
	unsigned int ci, i, j;

	for (ci = 0; ci < PD_ARRAY_SIZE(cfg); ci++) {
		u32 pos[PD_SBF_MAX_K], next, cpl;
		u64 rng = 7 + ci, mrng;
		struct pd_sbf f;
		u8 *model;

		KUNIT_ASSERT_EQ(test, pd_sbb_new(test, &f, 4096, cfg[ci].k,
						 cfg[ci].p, ci), 0);
		cpl = 1u << f.cpl_shift;
		KUNIT_ASSERT_EQ(test, cpl, 512u);
		model = kunit_kzalloc(test, f.cells, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, model);
		mrng = f.gen.rng;
		next = f.gen.next_dec;
		for (i = 0; i < 20000; i++) {
			u64 h = pd_rng_next(&rng) % 2500;	/* repeats */
			bool dup = true;

			h = pd_rng_next(&h);
			pd_sbf_positions(&f, (u32)h, (u32)(h >> 32), pos);
			for (j = 0; j < cfg[ci].k; j++)
				dup &= model[pos[j]] != 0;
			if (cfg[ci].p) {
				u32 s = next, base = s & ~(cpl - 1);

				next = pd_rng_below(&mrng, f.cells);
				for (j = 0; j < cfg[ci].p; j++) {
					u32 c = base + ((s + j) & (cpl - 1));

					if (model[c])
						model[c]--;
				}
			}
			for (j = 0; j < cfg[ci].k; j++)
				model[pos[j]] = 1;
			KUNIT_ASSERT_EQ_MSG(test,
					    pd_sbf_step(&f, (u32)h, (u32)(h >> 32)),
					    dup, "cfg %u step %u", ci, i);
		}
		for (j = 0; j < f.cells; j++)
			KUNIT_ASSERT_EQ_MSG(test, pd_sbf_cell(&f, j),
					    (unsigned int)model[j],
					    "cfg %u cell %u", ci, j);
		pd_sbf_destroy(&f);
	}
}

/*
 * A stream of new keys at the stable point: the FP rate a blocked filter
 * gives is the planner's model of blocked cells (pd_plan_fp_blocked()),
 * within 4 binomial standard deviations plus 2% for the model's
 * independence assumption (against simulation it is within about 1%);
 * the flat layout's Eq. 8 is exceeded, by the share the model predicts.
 */
static void pd_sbf_blocked_fp(struct kunit *test)
{
	static const struct { u8 k; u32 p; } cfg[] = {
		{ 3, 12 }, { 2, 19 }, { 4, 9 }, { 6, 8 },
	};
	unsigned int ci;

	for (ci = 0; ci < PD_ARRAY_SIZE(cfg); ci++) {
		u64 rng = 100 + ci, i, fp = 0, warm, n = 1000000;
		u64 model, flat, got, sd, tol;
		struct pd_sbf f;

		KUNIT_ASSERT_EQ(test, pd_sbb_new(test, &f, 1 << 16, cfg[ci].k,
						 cfg[ci].p, ci), 0);
		/* 20 lifetimes of a cell: the start is forgotten */
		warm = 20ULL * f.cells / (cfg[ci].k + cfg[ci].p);
		for (i = 0; i < warm + n; i++) {
			u64 h = pd_rng_next(&rng);
			bool dup = pd_sbf_step(&f, (u32)h, (u32)(h >> 32));

			if (i >= warm)
				fp += dup;
		}
		model = pd_plan_fp_blocked(cfg[ci].k, cfg[ci].p, 512);
		flat = pd_plan_fp_bound(1, cfg[ci].k, cfg[ci].p, f.cells);
		/* in parts per 10^9 */
		got = fp * 1000000000ULL / n;
		model = pd_q62_to_ppb(model);
		flat = pd_q62_to_ppb(flat);
		sd = pd_isqrt64(model * (1000000000ULL - model) / n);
		tol = 4 * sd + model / 50;
		kunit_info(test, "k %u p %u: fp %llu ppb, blocked model %llu, flat %llu, tol %llu",
			   cfg[ci].k, cfg[ci].p, (unsigned long long)got,
			   (unsigned long long)model, (unsigned long long)flat,
			   (unsigned long long)tol);
		KUNIT_EXPECT_LE(test, got, model + tol);
		KUNIT_EXPECT_GE(test, got + tol, model);
		KUNIT_EXPECT_GT(test, model, flat);
		pd_sbf_destroy(&f);
	}
}

/* The planner: P raised until the blocked model meets fps; refusals. */
static void pd_sbf_blocked_plan(struct kunit *test)
{
	static const u32 fpss[] = { 10000000, 1000000, 50000000 };
	struct pd_plan_req req = {
		.mem_bytes = 1 << 20, .max = PD_PLAN_AUTO, .k = PD_PLAN_AUTO,
		.p = PD_PLAN_AUTO, .layout = PKTDEDUP_LAYOUT_BLOCKED,
	};
	struct pd_plan flat, blk;
	const char *why = NULL;
	unsigned int i;

	for (i = 0; i < PD_ARRAY_SIZE(fpss); i++) {
		u64 fps = pd_q62_from_ppb(fpss[i]);

		req.fps_ppb = fpss[i];
		req.layout = PKTDEDUP_LAYOUT_FLAT;
		KUNIT_ASSERT_EQ(test, pd_plan(&req, &flat, &why), 0);
		req.layout = PKTDEDUP_LAYOUT_BLOCKED;
		KUNIT_ASSERT_EQ(test, pd_plan(&req, &blk, &why), 0);
		KUNIT_EXPECT_EQ(test, blk.layout, PKTDEDUP_LAYOUT_BLOCKED);
		KUNIT_EXPECT_EQ(test, blk.max, 1u);
		KUNIT_EXPECT_EQ(test, blk.cells % 512, 0ULL);
		KUNIT_EXPECT_EQ(test, blk.fp_bound,
				pd_plan_fp_blocked(blk.k, blk.p, 512));
		KUNIT_EXPECT_LE(test, blk.fp_bound, fps);
		/* the least such P: one fewer misses fps */
		KUNIT_EXPECT_GE(test, blk.p, flat.p);
		if (blk.p > flat.p)
			KUNIT_EXPECT_GT(test,
					pd_plan_fp_blocked(blk.k, blk.p - 1, 512),
					fps);
	}
	/* an explicit P is kept, its FP given by the blocked model */
	req.fps_ppb = 0;
	req.k = 3;
	req.p = 20;
	KUNIT_ASSERT_EQ(test, pd_plan(&req, &blk, &why), 0);
	KUNIT_EXPECT_EQ(test, blk.p, 20u);
	KUNIT_EXPECT_EQ(test, blk.fp_bound, pd_plan_fp_blocked(3, 20, 512));
	/* refused: Max above 1, P beyond a line, an unknown layout */
	req.max = 3;
	KUNIT_EXPECT_EQ(test, pd_plan(&req, &blk, &why), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "cell maximum 1"));
	req.max = 1;
	req.p = 513;
	KUNIT_EXPECT_EQ(test, pd_plan(&req, &blk, &why), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "cells of a line"));
	req.p = 20;
	req.layout = PKTDEDUP_LAYOUT_MAX + 1;
	KUNIT_EXPECT_EQ(test, pd_plan(&req, &blk, &why), -EINVAL);
}

/* Through the filter interface: the sbf family takes the layout. */
static void pd_sbf_blocked_family(struct kunit *test)
{
	struct pd_filter_plan plan;
	struct pd_filter_req req;
	const char *why = NULL;
	struct pd_filter f;

	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF, 64 << 10);
	KUNIT_EXPECT_TRUE(test, pd_filter_takes(&pd_sbf_family,
						PKTDEDUP_A_SETTINGS_LAYOUT));
	KUNIT_EXPECT_FALSE(test, pd_filter_takes(&pd_ibf_2c_family,
						 PKTDEDUP_A_SETTINGS_LAYOUT));
	pd_sbf_req(&req)->layout = PKTDEDUP_LAYOUT_BLOCKED;
	KUNIT_ASSERT_EQ(test, pd_filter_create(&f, &req, &plan, &why), 0);
	KUNIT_EXPECT_EQ(test, plan.layout, PKTDEDUP_LAYOUT_BLOCKED);
	KUNIT_EXPECT_TRUE(test, pd_sbf_of(&f)->blocked);
	KUNIT_EXPECT_EQ(test, plan.bytes, (u64)64 << 10);
	pd_filter_destroy(&f);
}

static struct kunit_case pd_sbf_blocked_cases[] = {
	KUNIT_CASE(pd_sbf_blocked_two_lines),
	KUNIT_CASE(pd_sbf_blocked_matches_model),
	KUNIT_CASE(pd_sbf_blocked_fp),
	KUNIT_CASE(pd_sbf_blocked_plan),
	KUNIT_CASE(pd_sbf_blocked_family),
	{}
};

static struct kunit_suite pd_sbf_blocked_suite = {
	.name = "pktdedup-sbf-blocked",
	.test_cases = pd_sbf_blocked_cases,
};

kunit_test_suite(pd_sbf_blocked_suite);
