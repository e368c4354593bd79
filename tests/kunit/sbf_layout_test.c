// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the Stable Bloom Filter's lined layouts (sbf.h): blocked,
 * two cache lines per element, and line, one; each the same filter as a
 * naive model of it, its FP rate against the planner's model of its
 * cells, and the planner's choices and refusals.
 */
#include <kunit/test.h>

#include "../../module/core/filter.h"
#include "../../module/core/fixed.h"
#include "../../module/core/plan.h"
#include "../../module/core/rng.h"
#include "../../module/core/sbf.h"

static int pd_sbb_new(struct kunit *test, struct pd_sbf *f, u64 cells, u8 k,
		      u32 p, u64 seed, u8 layout)
{
	struct pd_sbf_params prm = { .cells = cells, .max = 1, .k = k, .p = p,
				     .layout = layout };
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

/* A layout's FP model (plan.h). */
static u64 pd_sbb_model(u8 layout, u32 k, u32 p)
{
	return layout == PKTDEDUP_LAYOUT_LINE ? pd_plan_fp_line(k, p, 512) :
	       pd_plan_fp_blocked(k, p, 512);
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

	KUNIT_ASSERT_EQ(test, pd_sbb_new(test, &f, 1 << 16, 12, 40, 1,
					 PKTDEDUP_LAYOUT_BLOCKED), 0);
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
	KUNIT_ASSERT_EQ(test, pd_sbb_new(test, &f, 1 << 16, 12, 40, 1,
					 PKTDEDUP_LAYOUT_LINE), 0);
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
 * same generator, the run wrapping inside its line: blocked, from the
 * start drawn one step earlier, in the line it falls in; line, from a
 * cell of the key's line drawn at the step. Probes before the run, the
 * set after it.
 */
static void pd_sbb_matches_model(struct kunit *test, u8 layout)
{
	static const struct { u8 k; u32 p; } cfg[] = {
		{ 3, 11 }, { 1, 512 }, { 6, 100 }, { 16, 300 }, { 2, 0 },
	};
	bool line = layout == PKTDEDUP_LAYOUT_LINE;
	unsigned int ci, i, j;

	for (ci = 0; ci < PD_ARRAY_SIZE(cfg); ci++) {
		u32 pos[PD_SBF_MAX_K], next, cpl;
		u64 rng = 7 + ci, mrng;
		struct pd_sbf f;
		u8 *model;

		KUNIT_ASSERT_EQ(test, pd_sbb_new(test, &f, 4096, cfg[ci].k,
						 cfg[ci].p, ci, layout), 0);
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
				u32 s, base;

				if (line) {
					base = pos[0] & ~(cpl - 1);
					s = (u32)pd_rng_below(&mrng, cpl);
				} else {
					s = next;
					base = s & ~(cpl - 1);
					next = pd_rng_below(&mrng, f.cells);
				}
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

static void pd_sbf_blocked_matches_model(struct kunit *test)
{
	pd_sbb_matches_model(test, PKTDEDUP_LAYOUT_BLOCKED);
}

static void pd_sbf_line_matches_model(struct kunit *test)
{
	pd_sbb_matches_model(test, PKTDEDUP_LAYOUT_LINE);
}

struct pd_sbb_cfg {
	u8 k;
	u32 p;
};

/*
 * A stream of new keys at the stable point: the FP rate a filter of the
 * layout gives is the planner's model of its cells, within 4 binomial
 * standard deviations plus tol_pct% for the model's independence
 * assumption (blocked: 2%, within about 1% measured; line, whose run
 * covers adjacent cells of the probes' line: 3%, within 2.3% measured).
 * Blocked: above the flat layout's Eq. 8, by the share the model
 * predicts.
 */
static void pd_sbb_fp(struct kunit *test, u8 layout,
		      const struct pd_sbb_cfg *cfg, unsigned int n_cfg,
		      u64 tol_pct)
{
	unsigned int ci;

	for (ci = 0; ci < n_cfg; ci++) {
		u64 rng = 100 + ci, i, fp = 0, warm, n = 1000000;
		u64 model, flat, got, sd, tol;
		struct pd_sbf f;

		KUNIT_ASSERT_EQ(test, pd_sbb_new(test, &f, 1 << 16, cfg[ci].k,
						 cfg[ci].p, ci, layout), 0);
		/* 20 lifetimes of a cell: the start is forgotten */
		warm = 20ULL * f.cells / (cfg[ci].k + cfg[ci].p);
		for (i = 0; i < warm + n; i++) {
			u64 h = pd_rng_next(&rng);
			bool dup = pd_sbf_step(&f, (u32)h, (u32)(h >> 32));

			if (i >= warm)
				fp += dup;
		}
		model = pd_sbb_model(layout, cfg[ci].k, cfg[ci].p);
		flat = pd_plan_fp_bound(1, cfg[ci].k, cfg[ci].p, f.cells);
		/* in parts per 10^9 */
		got = fp * 1000000000ULL / n;
		model = pd_q62_to_ppb(model);
		flat = pd_q62_to_ppb(flat);
		sd = pd_isqrt64(model * (1000000000ULL - model) / n);
		tol = 4 * sd + model * tol_pct / 100;
		kunit_info(test, "%s k %u p %u: fp %llu ppb, model %llu, flat %llu, tol %llu",
			   pd_sbf_layout_name(layout), cfg[ci].k, cfg[ci].p,
			   (unsigned long long)got, (unsigned long long)model,
			   (unsigned long long)flat, (unsigned long long)tol);
		KUNIT_EXPECT_LE(test, got, model + tol);
		KUNIT_EXPECT_GE(test, got + tol, model);
		if (layout == PKTDEDUP_LAYOUT_BLOCKED)
			KUNIT_EXPECT_GT(test, model, flat);
		pd_sbf_destroy(&f);
	}
}

static void pd_sbf_blocked_fp(struct kunit *test)
{
	static const struct pd_sbb_cfg cfg[] = {
		{ 3, 12 }, { 2, 19 }, { 4, 9 }, { 6, 8 },
	};

	pd_sbb_fp(test, PKTDEDUP_LAYOUT_BLOCKED, cfg, PD_ARRAY_SIZE(cfg), 2);
}

static void pd_sbf_line_fp(struct kunit *test)
{
	static const struct pd_sbb_cfg cfg[] = {
		{ 3, 11 }, { 2, 19 }, { 4, 9 }, { 6, 8 },
	};

	pd_sbb_fp(test, PKTDEDUP_LAYOUT_LINE, cfg, PD_ARRAY_SIZE(cfg), 3);
}

/*
 * The planner: P raised until the layout's model meets fps, at least the
 * flat filter's P for blocked; an explicit P kept with its model's FP;
 * refusals.
 */
static void pd_sbb_plan(struct kunit *test, u8 layout)
{
	static const u32 fpss[] = { 10000000, 1000000, 50000000 };
	struct pd_plan_req req = {
		.mem_bytes = 1 << 20, .max = PD_PLAN_AUTO, .k = PD_PLAN_AUTO,
		.p = PD_PLAN_AUTO,
	};
	struct pd_plan flat, lined;
	const char *why = NULL;
	unsigned int i;

	for (i = 0; i < PD_ARRAY_SIZE(fpss); i++) {
		u64 fps = pd_q62_from_ppb(fpss[i]);

		req.fps_ppb = fpss[i];
		req.layout = PKTDEDUP_LAYOUT_FLAT;
		KUNIT_ASSERT_EQ(test, pd_plan(&req, &flat, &why), 0);
		req.layout = layout;
		KUNIT_ASSERT_EQ(test, pd_plan(&req, &lined, &why), 0);
		KUNIT_EXPECT_EQ(test, lined.layout, layout);
		KUNIT_EXPECT_EQ(test, lined.max, 1u);
		KUNIT_EXPECT_EQ(test, lined.cells % 512, 0ULL);
		KUNIT_EXPECT_EQ(test, lined.fp_bound,
				pd_sbb_model(layout, lined.k, lined.p));
		KUNIT_EXPECT_LE(test, lined.fp_bound, fps);
		/* the least such P: one fewer misses fps */
		if (layout == PKTDEDUP_LAYOUT_BLOCKED)
			KUNIT_EXPECT_GE(test, lined.p, flat.p);
		if (lined.p > flat.p)
			KUNIT_EXPECT_GT(test,
					pd_sbb_model(layout, lined.k,
						     lined.p - 1), fps);
	}
	/* an explicit P is kept, its FP given by the layout's model */
	req.fps_ppb = 0;
	req.k = 3;
	req.p = 20;
	KUNIT_ASSERT_EQ(test, pd_plan(&req, &lined, &why), 0);
	KUNIT_EXPECT_EQ(test, lined.p, 20u);
	KUNIT_EXPECT_EQ(test, lined.fp_bound, pd_sbb_model(layout, 3, 20));
	/* refused: Max above 1, P beyond a line, an unknown layout */
	req.max = 3;
	KUNIT_EXPECT_EQ(test, pd_plan(&req, &lined, &why), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "cell maximum 1"));
	req.max = 1;
	req.p = 513;
	KUNIT_EXPECT_EQ(test, pd_plan(&req, &lined, &why), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "cells of a line"));
	req.p = 20;
	req.layout = PKTDEDUP_LAYOUT_MAX + 1;
	KUNIT_EXPECT_EQ(test, pd_plan(&req, &lined, &why), -EINVAL);
}

static void pd_sbf_blocked_plan(struct kunit *test)
{
	pd_sbb_plan(test, PKTDEDUP_LAYOUT_BLOCKED);
}

static void pd_sbf_line_plan(struct kunit *test)
{
	pd_sbb_plan(test, PKTDEDUP_LAYOUT_LINE);
}

/* Through the filter interface: the sbf family takes the layout. */
static void pd_sbb_family(struct kunit *test, u8 layout)
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
	pd_sbf_req(&req)->layout = layout;
	KUNIT_ASSERT_EQ(test, pd_filter_create(&f, &req, &plan, &why), 0);
	KUNIT_EXPECT_EQ(test, plan.layout, layout);
	KUNIT_EXPECT_TRUE(test, pd_sbf_of(&f)->blocked);
	KUNIT_EXPECT_EQ(test, pd_sbf_of(&f)->oneline,
			layout == PKTDEDUP_LAYOUT_LINE);
	KUNIT_EXPECT_EQ(test, plan.bytes, (u64)64 << 10);
	KUNIT_EXPECT_STREQ(test, pd_sbf_layout_name(plan.layout),
			   layout == PKTDEDUP_LAYOUT_LINE ? "line" : "blocked");
	pd_filter_destroy(&f);
}

static void pd_sbf_blocked_family(struct kunit *test)
{
	pd_sbb_family(test, PKTDEDUP_LAYOUT_BLOCKED);
}

static void pd_sbf_line_family(struct kunit *test)
{
	pd_sbb_family(test, PKTDEDUP_LAYOUT_LINE);
}

/* One configuration of pd_sbf_lined_matches_ref(): whether it ran run_word. */
static bool pd_sbb_ref_case(struct kunit *test, u8 max, u8 layout, u32 p,
			    u8 k, bool cc, u64 rng)
{
	struct pd_sbf_params prm = { .cells = 4096, .max = max, .k = k,
				     .p = p, .layout = layout };
	unsigned int i, diff = 0, d = pd_sbf_bits_for_max(max);
	struct pd_sbf_gen ga, gb;
	const char *why = NULL;
	struct pd_sbf a, b;
	bool fast;

	if (pd_sbf_create(&a, &prm, &why) || pd_sbf_create(&b, &prm, &why)) {
		KUNIT_FAIL(test, "pd_sbf_create: %s", why);
		return false;
	}
	fast = a.run_word;
	KUNIT_EXPECT_EQ(test, fast, p * d <= 64);
	pd_sbf_set_rng(&a, rng);
	pd_sbf_set_rng(&b, rng);
	pd_sbf_gen_init(&a, &ga, rng + 1);
	pd_sbf_gen_init(&b, &gb, rng + 1);
	for (i = 0; i < 3000; i++) {
		u64 h = pd_rng_next(&rng);
		u32 h1 = (u32)h, h2 = (u32)(h >> 32);

		if (cc)
			diff += pd_sbf_step_cpu(&a, &ga, h1, h2) !=
				pd_sbf_step_ref(&b, &gb, h1, h2, true);
		else
			diff += pd_sbf_step(&a, h1, h2) !=
				pd_sbf_step_ref(&b, &b.gen, h1, h2, false);
	}
	KUNIT_EXPECT_EQ_MSG(test, diff, 0u, "max %u %s p %u k %u cc %d: verdicts",
			    max, pd_sbf_layout_name(layout), p, k, cc);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(a.words, b.words,
					 a.nwords * sizeof(u64)), 0,
			    "max %u %s p %u k %u cc %d: cells",
			    max, pd_sbf_layout_name(layout), p, k, cc);
	KUNIT_EXPECT_EQ(test, a.gen.rng, b.gen.rng);
	KUNIT_EXPECT_EQ(test, a.gen.next_dec, b.gen.next_dec);
	KUNIT_EXPECT_EQ(test, ga.rng, gb.rng);
	KUNIT_EXPECT_EQ(test, ga.next_dec, gb.next_dec);
	/* in use, not saturated: some cells are zero */
	KUNIT_EXPECT_GT(test, pd_sbf_zero_cells(&a), 0ULL);
	pd_sbf_destroy(&a);
	pd_sbf_destroy(&b);
	return fast;
}

/*
 * The specialised step of a lined filter whose run fits a word (sbf.c's
 * pd_sbf_step_lined()) against the reference step, pd_sbf_step_ref(), on
 * two filters made alike: every cell width, both lined layouts, P from 0
 * to one past a word's cells (the reference's own path), K from 1 to 7
 * (7 probes of 6 to 9 bits need more bits than h2 has), the filter's own
 * step and a CPU's racing one alone. 8 lines at d = 1 to 64 at d = 8, so
 * that runs wrap inside lines and overlap the keys' cells: the verdicts,
 * every word and the generators must agree.
 */
static void pd_sbf_lined_matches_ref(struct kunit *test)
{
	static const u8 maxes[] = { 1, 3, 15, 255 };
	static const u8 ks[] = { 1, 3, 7 };
	unsigned int c, fast = 0;

	for (c = 0; c < 4 * 2 * 5 * 3 * 2; c++) {
		unsigned int mi = c % 4, li = c / 4 % 2, pi = c / 8 % 5;
		unsigned int ki = c / 40 % 3, cc = c / 120;
		u32 word = 64 / pd_sbf_bits_for_max(maxes[mi]);
		u32 ps[5] = { 0, 1, word - 1, word, word + 1 };

		fast += pd_sbb_ref_case(test, maxes[mi],
					li ? PKTDEDUP_LAYOUT_LINE :
					     PKTDEDUP_LAYOUT_BLOCKED,
					ps[pi], ks[ki], cc, c);
	}
	/* of P's five values, four fit a word at every width */
	KUNIT_EXPECT_EQ(test, fast, 4u * 2 * 4 * 3 * 2);
}

static struct kunit_case pd_sbf_blocked_cases[] = {
	KUNIT_CASE(pd_sbf_blocked_two_lines),
	KUNIT_CASE(pd_sbf_blocked_matches_model),
	KUNIT_CASE(pd_sbf_blocked_fp),
	KUNIT_CASE(pd_sbf_blocked_plan),
	KUNIT_CASE(pd_sbf_blocked_family),
	KUNIT_CASE(pd_sbf_lined_matches_ref),
	{}
};

static struct kunit_suite pd_sbf_blocked_suite = {
	.name = "pktdedup-sbf-blocked",
	.test_cases = pd_sbf_blocked_cases,
};

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

kunit_test_suites(&pd_sbf_blocked_suite, &pd_sbf_line_suite);
