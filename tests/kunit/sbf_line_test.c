// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the Stable Bloom Filter's line layout (sbf.h): one cache
 * line per element, the same filter as a naive model of it, the FP rate
 * against the planner's model of one-line cells, and the planner's
 * choices and refusals.
 */
#include <kunit/test.h>

#include "../../module/core/filter.h"
#include "../../module/core/fixed.h"
#include "../../module/core/plan.h"
#include "../../module/core/rng.h"
#include "../../module/core/sbf.h"

static int pd_sbl_new(struct kunit *test, struct pd_sbf *f, u64 cells, u8 k,
		      u32 p, u64 seed)
{
	struct pd_sbf_params prm = { .cells = cells, .max = 1, .k = k, .p = p,
				     .layout = PKTDEDUP_LAYOUT_LINE };
	const char *why = NULL;
	int err = pd_sbf_create(f, &prm, &why);

	if (err)
		kunit_err(test, "pd_sbf_create: %s", why);
	else
		pd_sbf_set_rng(f, seed);
	return err;
}

/*
 * An element's K cells share one line, as blocked; a step changes that
 * line and no other, and with every cell at 1 and a run of 40 it always
 * changes it.
 */
static void pd_sbf_line_one_line(struct kunit *test)
{
	struct pd_sbf_params prm = { .cells = 1 << 16, .max = 1, .k = 12,
				     .p = 40, .layout = PKTDEDUP_LAYOUT_LINE };
	u32 pos[PD_SBF_MAX_K], i, j, l, key_line;
	u64 *before, rng = 5;
	struct pd_sbf f;

	KUNIT_EXPECT_EQ(test, pd_sbf_step_lines(&prm), 1ULL);
	KUNIT_ASSERT_EQ(test, pd_sbl_new(test, &f, 1 << 16, 12, 40, 1), 0);
	KUNIT_EXPECT_TRUE(test, f.blocked);
	KUNIT_EXPECT_TRUE(test, f.oneline);
	KUNIT_EXPECT_EQ(test, f.lines, (u32)(1 << 16) / 512);
	before = kunit_kzalloc(test, f.nwords * sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, before);
	memset(f.words, 0xff, f.nwords * sizeof(u64));
	for (i = 0; i < 4000; i++) {
		u64 h = pd_rng_next(&rng);

		pd_sbf_positions(&f, (u32)h, (u32)(h >> 32), pos);
		key_line = pos[0] >> f.cpl_shift;
		for (j = 1; j < f.k; j++)
			KUNIT_ASSERT_EQ(test, pos[j] >> f.cpl_shift, key_line);
		memcpy(before, f.words, f.nwords * sizeof(u64));
		pd_sbf_step(&f, (u32)h, (u32)(h >> 32));
		for (l = 0; l < f.lines; l++) {
			bool same = !memcmp(before + l * PD_SBF_LINE_WORDS,
					    f.words + l * PD_SBF_LINE_WORDS,
					    PD_SBF_LINE_WORDS * sizeof(u64));

			KUNIT_ASSERT_EQ_MSG(test, same, l != key_line,
					    "step %u line %u (key's %u)", i, l,
					    key_line);
		}
		memset(f.words, 0xff, f.nwords * sizeof(u64));
	}
	pd_sbf_destroy(&f);
}

/*
 * The packed filter against a naive one fed the same positions and the
 * same generator: each step's run starts at a cell of the key's line the
 * generator draws, and wraps inside it; probes before the run, the set
 * after it.
 */
static void pd_sbf_line_matches_model(struct kunit *test)
{
	static const struct { u8 k; u32 p; } cfg[] = {
		{ 3, 11 }, { 1, 512 }, { 6, 100 }, { 16, 300 }, { 2, 0 },
	};
	unsigned int ci, i, j;

	for (ci = 0; ci < PD_ARRAY_SIZE(cfg); ci++) {
		u32 pos[PD_SBF_MAX_K], cpl;
		u64 rng = 7 + ci, mrng;
		struct pd_sbf f;
		u8 *model;

		KUNIT_ASSERT_EQ(test, pd_sbl_new(test, &f, 4096, cfg[ci].k,
						 cfg[ci].p, ci), 0);
		cpl = 1u << f.cpl_shift;
		KUNIT_ASSERT_EQ(test, cpl, 512u);
		model = kunit_kzalloc(test, f.cells, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, model);
		mrng = f.gen.rng;
		for (i = 0; i < 20000; i++) {
			u64 h = pd_rng_next(&rng) % 2500;	/* repeats */
			bool dup = true;

			h = pd_rng_next(&h);
			pd_sbf_positions(&f, (u32)h, (u32)(h >> 32), pos);
			for (j = 0; j < cfg[ci].k; j++)
				dup &= model[pos[j]] != 0;
			if (cfg[ci].p) {
				u32 base = pos[0] & ~(cpl - 1);
				u32 s = (u32)pd_rng_below(&mrng, cpl);

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
 * A stream of new keys at the stable point: the FP rate a one-line
 * filter gives is the planner's model of it (pd_plan_fp_line()), within
 * 4 binomial standard deviations plus 3% for the model's independence
 * assumption (a run covers adjacent cells, the probes are K distinct
 * ones: the model treats them as independent).
 */
static void pd_sbf_line_fp(struct kunit *test)
{
	static const struct { u8 k; u32 p; } cfg[] = {
		{ 3, 11 }, { 2, 19 }, { 4, 9 }, { 6, 8 },
	};
	unsigned int ci;

	for (ci = 0; ci < PD_ARRAY_SIZE(cfg); ci++) {
		u64 rng = 200 + ci, i, fp = 0, warm, n = 1000000;
		u64 model, got, sd, tol;
		struct pd_sbf f;

		KUNIT_ASSERT_EQ(test, pd_sbl_new(test, &f, 1 << 16, cfg[ci].k,
						 cfg[ci].p, ci), 0);
		/* 20 lifetimes of a cell: the start is forgotten */
		warm = 20ULL * f.cells / (cfg[ci].k + cfg[ci].p);
		for (i = 0; i < warm + n; i++) {
			u64 h = pd_rng_next(&rng);
			bool dup = pd_sbf_step(&f, (u32)h, (u32)(h >> 32));

			if (i >= warm)
				fp += dup;
		}
		model = pd_q62_to_ppb(pd_plan_fp_line(cfg[ci].k, cfg[ci].p,
						      512));
		got = fp * 1000000000ULL / n;	/* parts per 10^9 */
		sd = pd_isqrt64(model * (1000000000ULL - model) / n);
		tol = 4 * sd + 3 * model / 100;
		kunit_info(test, "k %u p %u: fp %llu ppb, line model %llu, tol %llu",
			   cfg[ci].k, cfg[ci].p, (unsigned long long)got,
			   (unsigned long long)model, (unsigned long long)tol);
		KUNIT_EXPECT_LE(test, got, model + tol);
		KUNIT_EXPECT_GE(test, got + tol, model);
		pd_sbf_destroy(&f);
	}
}

/* The planner: P raised until the line model meets fps; refusals. */
static void pd_sbf_line_plan(struct kunit *test)
{
	static const u32 fpss[] = { 10000000, 1000000, 50000000 };
	struct pd_plan_req req = {
		.mem_bytes = 1 << 20, .max = PD_PLAN_AUTO, .k = PD_PLAN_AUTO,
		.p = PD_PLAN_AUTO,
	};
	struct pd_plan ln;
	const char *why = NULL;
	unsigned int i;

	for (i = 0; i < PD_ARRAY_SIZE(fpss); i++) {
		u64 fps = pd_q62_from_ppb(fpss[i]);

		req.fps_ppb = fpss[i];
		req.layout = PKTDEDUP_LAYOUT_LINE;
		KUNIT_ASSERT_EQ(test, pd_plan(&req, &ln, &why), 0);
		KUNIT_EXPECT_EQ(test, ln.layout, PKTDEDUP_LAYOUT_LINE);
		KUNIT_EXPECT_EQ(test, ln.max, 1u);
		KUNIT_EXPECT_EQ(test, ln.cells % 512, 0ULL);
		KUNIT_EXPECT_EQ(test, ln.fp_bound,
				pd_plan_fp_line(ln.k, ln.p, 512));
		KUNIT_EXPECT_LE(test, ln.fp_bound, fps);
		/* the least such P: one fewer misses fps */
		if (ln.p > 1)
			KUNIT_EXPECT_GT(test,
					pd_plan_fp_line(ln.k, ln.p - 1, 512),
					fps);
	}
	/* an explicit P is kept, its FP given by the line model */
	req.fps_ppb = 0;
	req.k = 3;
	req.p = 20;
	KUNIT_ASSERT_EQ(test, pd_plan(&req, &ln, &why), 0);
	KUNIT_EXPECT_EQ(test, ln.p, 20u);
	KUNIT_EXPECT_EQ(test, ln.fp_bound, pd_plan_fp_line(3, 20, 512));
	/* refused: Max above 1, P beyond a line */
	req.max = 3;
	KUNIT_EXPECT_EQ(test, pd_plan(&req, &ln, &why), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "cell maximum 1"));
	req.max = 1;
	req.p = 513;
	KUNIT_EXPECT_EQ(test, pd_plan(&req, &ln, &why), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "cells of a line"));
}

/* Through the filter interface: the sbf family takes layout line. */
static void pd_sbf_line_family(struct kunit *test)
{
	struct pd_filter_plan plan;
	struct pd_filter_req req;
	const char *why = NULL;
	struct pd_filter f;

	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF, 64 << 10);
	pd_sbf_req(&req)->layout = PKTDEDUP_LAYOUT_LINE;
	KUNIT_ASSERT_EQ(test, pd_filter_create(&f, &req, &plan, &why), 0);
	KUNIT_EXPECT_EQ(test, plan.layout, PKTDEDUP_LAYOUT_LINE);
	KUNIT_EXPECT_TRUE(test, pd_sbf_of(&f)->oneline);
	KUNIT_EXPECT_EQ(test, plan.bytes, (u64)64 << 10);
	KUNIT_EXPECT_STREQ(test, pd_sbf_layout_name(plan.layout), "line");
	pd_filter_destroy(&f);
}

static struct kunit_case pd_sbf_line_cases[] = {
	KUNIT_CASE(pd_sbf_line_one_line),
	KUNIT_CASE(pd_sbf_line_matches_model),
	KUNIT_CASE(pd_sbf_line_fp),
	KUNIT_CASE(pd_sbf_line_plan),
	KUNIT_CASE(pd_sbf_line_family),
	{}
};

static struct kunit_suite pd_sbf_line_suite = {
	.name = "pktdedup-sbf-line",
	.test_cases = pd_sbf_line_cases,
};

kunit_test_suite(pd_sbf_line_suite);
