// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the Stable Bloom Filter: exact behaviour against a naive
 * model, and the paper's properties with fixed seeds and tolerances derived
 * from the math.
 */
#include <kunit/test.h>

#include "../../module/core/fixed.h"
#include "../../module/core/occ.h"
#include "../../module/core/plan.h"
#include "../../module/core/rng.h"
#include "../../module/core/sbf.h"

static int pd_sbf_new(struct kunit *test, struct pd_sbf *f, u64 cells,
		      u8 max, u8 k, u32 p, u64 seed)
{
	struct pd_sbf_params prm = { .cells = cells, .max = max, .k = k,
				     .p = p };
	const char *why = NULL;
	int err = pd_sbf_create(f, &prm, &why);

	if (err)
		kunit_err(test, "pd_sbf_create: %s", why);
	else
		pd_sbf_set_rng(f, seed * 3 + 1);
	return err;
}

static void pd_sbf_bits(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, pd_sbf_bits_for_max(1), 1u);
	KUNIT_EXPECT_EQ(test, pd_sbf_bits_for_max(3), 2u);
	KUNIT_EXPECT_EQ(test, pd_sbf_bits_for_max(7), 4u);
	KUNIT_EXPECT_EQ(test, pd_sbf_bits_for_max(15), 4u);
	KUNIT_EXPECT_EQ(test, pd_sbf_bits_for_max(255), 8u);
	KUNIT_EXPECT_EQ(test, pd_sbf_bits_for_max(0), 0u);
	KUNIT_EXPECT_EQ(test, pd_sbf_bits_for_max(2), 0u);
	KUNIT_EXPECT_EQ(test, pd_sbf_bits_for_max(256), 0u);
}

static void pd_sbf_rejects(struct kunit *test)
{
	struct pd_sbf_params ok = { .cells = 1024, .max = 1, .k = 3, .p = 5 };
	struct pd_sbf_params bad;
	const char *why;

	why = NULL;
	KUNIT_EXPECT_EQ(test, pd_sbf_check(&ok, &why), 0);
	bad = ok;
	bad.max = 2;
	KUNIT_EXPECT_LT(test, pd_sbf_check(&bad, &why), 0);
	bad = ok;
	bad.k = 0;
	KUNIT_EXPECT_LT(test, pd_sbf_check(&bad, &why), 0);
	bad.k = PD_SBF_MAX_K + 1;
	KUNIT_EXPECT_LT(test, pd_sbf_check(&bad, &why), 0);
	bad = ok;
	bad.cells = 63;
	KUNIT_EXPECT_LT(test, pd_sbf_check(&bad, &why), 0);
	bad.cells = PD_SBF_MAX_CELLS + 64;
	KUNIT_EXPECT_LT(test, pd_sbf_check(&bad, &why), 0);
	bad = ok;
	bad.p = 1025;
	KUNIT_EXPECT_LT(test, pd_sbf_check(&bad, &why), 0);
	KUNIT_EXPECT_NOT_NULL(test, why);
	/* cells are rounded down to whole words: 100 2-bit cells -> 96 */
	bad = ok;
	bad.cells = 100;
	bad.max = 3;
	KUNIT_EXPECT_EQ(test, pd_sbf_usable_cells(&bad), (u64)96);
	KUNIT_EXPECT_EQ(test, pd_sbf_bytes(&bad), (size_t)24);
}

/* Decrements saturate at zero, stay in their range and wrap at m. */
static void pd_sbf_decrement_range(struct kunit *test)
{
	static const u8 maxes[] = { 1, 3, 7, 15, 255 };
	unsigned int mi, i;

	for (mi = 0; mi < PD_ARRAY_SIZE(maxes); mi++) {
		struct pd_sbf f;
		u32 m;

		KUNIT_ASSERT_EQ(test, pd_sbf_new(test, &f, 640, maxes[mi], 1, 0,
						 1), 0);
		m = f.cells;
		for (i = 0; i < m; i++)
			pd_sbf_step(&f, (u32)(((u64)i << 32) / m) + 1, 0);
		for (i = 0; i < m; i++)
			KUNIT_ASSERT_EQ(test, pd_sbf_cell(&f, i), (unsigned int)maxes[mi]);
		pd_sbf_decrement(&f, m - 3, 7);	/* m-3 .. m-1 and 0 .. 3 */
		pd_sbf_decrement(&f, 100, 200);	/* crosses word boundaries */
		for (i = 0; i < m; i++) {
			bool hit = i >= m - 3 || i <= 3 || (i >= 100 && i < 300);

			KUNIT_EXPECT_EQ_MSG(test, pd_sbf_cell(&f, i),
					    maxes[mi] - (hit ? 1u : 0u),
					    "max %u cell %u", maxes[mi], i);
		}
		for (i = 0; i < 300; i++)
			pd_sbf_decrement(&f, 0, m);
		KUNIT_EXPECT_EQ(test, pd_sbf_zero_cells(&f), (u64)m);
		pd_sbf_destroy(&f);
	}
}

/*
 * The packed filter against a naive one (a byte per cell) fed the same
 * positions and decrement starts: verdicts and every cell must agree. The
 * naive verdict is taken from the K probes before any update.
 */
static void pd_sbf_matches_model(struct kunit *test)
{
	static const struct { u8 max, k; u32 p; } cfg[] = {
		/* runs of <= 64 bits (one or two words) and longer ones */
		{ 1, 3, 11 }, { 3, 2, 20 }, { 15, 3, 16 }, { 255, 2, 8 },
		{ 3, 2, 37 }, { 7, 4, 70 }, { 15, 6, 141 }, { 255, 2, 300 },
		{ 1, 1, 0 },
	};
	unsigned int ci, i, j;

	for (ci = 0; ci < PD_ARRAY_SIZE(cfg); ci++) {
		struct pd_sbf f;
		u8 *model;
		u64 rng = 42 + ci, mrng;
		u32 pos[PD_SBF_MAX_K], next;

		KUNIT_ASSERT_EQ(test, pd_sbf_new(test, &f, 1000, cfg[ci].max,
						 cfg[ci].k, cfg[ci].p, ci), 0);
		model = kunit_kzalloc(test, f.cells, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, model);
		/* the filter draws each start one element ahead */
		mrng = f.gen.rng;
		next = f.gen.next_dec;
		for (i = 0; i < 20000; i++) {
			/* 3000 keys, each with its two hashes: repeats */
			u64 key = pd_rng_next(&rng) % 3000;
			u32 h1 = (u32)pd_rng_next(&key);
			u32 h2 = (u32)pd_rng_next(&key);
			bool dup = true, got;

			pd_sbf_positions(&f, h1, h2, pos);
			for (j = 0; j < cfg[ci].k; j++)
				dup &= model[pos[j]] != 0;
			if (cfg[ci].p) {
				u32 s = next;

				next = pd_rng_below(&mrng, f.cells);

				for (j = 0; j < cfg[ci].p; j++)
					if (model[(s + j) % f.cells])
						model[(s + j) % f.cells]--;
			}
			for (j = 0; j < cfg[ci].k; j++)
				model[pos[j]] = cfg[ci].max;
			got = pd_sbf_step(&f, h1, h2);
			KUNIT_ASSERT_EQ_MSG(test, got, dup, "cfg %u step %u", ci, i);
			KUNIT_EXPECT_EQ(test, pd_sbf_query(&f, h1, h2), true);
		}
		for (j = 0; j < f.cells; j++)
			KUNIT_ASSERT_EQ_MSG(test, pd_sbf_cell(&f, j),
					    (unsigned int)model[j], "cfg %u cell %u",
					    ci, j);
		pd_sbf_destroy(&f);
	}
}

/* A query answers without changing anything; reset clears and reseeds. */
static void pd_sbf_query_reset(struct kunit *test)
{
	struct pd_sbf f;
	u64 *copy, rng;
	u32 i;

	KUNIT_ASSERT_EQ(test, pd_sbf_new(test, &f, 4096, 3, 3, 20, 5), 0);
	for (i = 0; i < 3000; i++)
		pd_sbf_step(&f, i * 2654435761u, i);
	copy = kunit_kzalloc(test, f.nwords * sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, copy);
	memcpy(copy, f.words, f.nwords * sizeof(u64));
	rng = f.gen.rng;
	for (i = 0; i < 3000; i++)
		pd_sbf_query(&f, i * 40503u, i);
	KUNIT_EXPECT_EQ(test, memcmp(copy, f.words, f.nwords * sizeof(u64)), 0);
	KUNIT_EXPECT_EQ(test, f.gen.rng, rng);
	pd_sbf_reset(&f);
	KUNIT_EXPECT_EQ(test, pd_sbf_zero_cells(&f), (u64)f.cells);
	KUNIT_EXPECT_NE(test, f.gen.rng, rng);
	pd_sbf_destroy(&f);
}

/* Feed n elements never seen before; return how many were called dups. */
static u64 pd_sbf_feed_distinct(struct pd_sbf *f, u64 *rng, u64 n)
{
	u64 i, dups = 0;

	for (i = 0; i < n; i++) {
		u64 x = pd_rng_next(rng);

		dups += pd_sbf_step(f, (u32)x, (u32)(x >> 32));
	}
	return dups;
}

/*
 * Theorem 3 on a stream of distinct elements (each cell equally likely to
 * be set): the measured fraction of zeros equals the stable point.
 *
 * Convergence: a cell set once has forgotten its initial state, and a cell
 * is set with probability K/m per element, so after 20 m/K elements all
 * but e^-20 of the cells have been. Tolerance: the zero count of m cells
 * has variance z(1-z)m if cells were independent; cells within one run of
 * P adjacent decrements are correlated, which multiplies the variance by
 * at most 1 + 2(P-1) < 2P. We allow 4 such sd, plus the fixed-point
 * rounding (< 1 ppm). Small-P settings make the check sharp; the planner's
 * settings check the formula where P is large.
 */
static void pd_sbf_stable_point(struct kunit *test)
{
	static const struct { u8 max, k; u32 p; } cfg[] = {
		{ 1, 2, 1 }, { 1, 3, 11 }, { 3, 2, 3 }, { 3, 4, 30 },
		{ 15, 2, 4 }, { 15, 6, 142 },
	};
	unsigned int ci;

	for (ci = 0; ci < PD_ARRAY_SIZE(cfg); ci++) {
		u64 m = 1 << 17, rng = 1000 + ci, z, zero, tol, var;
		struct pd_sbf f;

		KUNIT_ASSERT_EQ(test, pd_sbf_new(test, &f, m, cfg[ci].max,
						 cfg[ci].k, cfg[ci].p, ci), 0);
		m = f.cells;
		pd_sbf_feed_distinct(&f, &rng, 20 * m / cfg[ci].k + m);
		z = pd_q62_to_ppb(pd_plan_stable_zero(cfg[ci].max, cfg[ci].k,
						      cfg[ci].p, m));
		zero = pd_sbf_zero_cells(&f) * 1000000000 / m;
		/* in ppb^2: 2P z (1 - z) / m */
		var = 2 * cfg[ci].p * (z * (1000000000 - z) / m);
		tol = 4 * pd_isqrt64(var) + 1000;
		kunit_info(test, "max %u k %u p %u: zeros %llu ppb, theorem 3 %llu ppb, tol %llu",
			   cfg[ci].max, cfg[ci].k, cfg[ci].p,
			   (unsigned long long)zero, (unsigned long long)z,
			   (unsigned long long)tol);
		KUNIT_EXPECT_LE(test, zero, z + tol);
		KUNIT_EXPECT_GE(test, zero + tol, z);
		pd_sbf_destroy(&f);
	}
}

/*
 * Corollary 5: the FP rate never exceeds the Eq. 8 bound, before or after
 * the filter is stable. Every element is new, so every "duplicate" is a
 * false positive; each checkpoint interval of c elements may exceed
 * bound * c by at most 4 binomial sd (+1).
 */
static void pd_sbf_fp_bound(struct kunit *test)
{
	static const struct { u8 max, k; u32 p; } cfg[] = {
		{ 1, 2, 4 }, { 1, 3, 11 }, { 3, 2, 30 }, { 15, 6, 142 },
	};
	unsigned int ci, cp;

	for (ci = 0; ci < PD_ARRAY_SIZE(cfg); ci++) {
		u64 m = 1 << 16, rng = 77 + ci;
		struct pd_sbf f;
		u64 bound, done = 0;

		KUNIT_ASSERT_EQ(test, pd_sbf_new(test, &f, m, cfg[ci].max,
						 cfg[ci].k, cfg[ci].p, 9 + ci), 0);
		bound = pd_q62_to_ppb(pd_plan_fp_bound(cfg[ci].max, cfg[ci].k,
						       cfg[ci].p, f.cells));
		/* checkpoints at m/64, m/8, m, 8m, 32m elements */
		for (cp = 0; cp < 5; cp++) {
			u64 upto = cp < 3 ? f.cells >> (6 - 3 * cp) :
					    (u64)f.cells << (cp == 3 ? 3 : 5);
			u64 c = upto - done;
			u64 fp = pd_sbf_feed_distinct(&f, &rng, c);
			u64 mean = bound * c / 1000000000;
			u64 lim = mean + 4 * pd_isqrt64(mean + 1) + 1;

			KUNIT_EXPECT_LE_MSG(test, fp, lim,
					    "max %u k %u p %u: %llu fps in %llu, bound %llu ppb",
					    cfg[ci].max, cfg[ci].k, cfg[ci].p,
					    (unsigned long long)fp,
					    (unsigned long long)c,
					    (unsigned long long)bound);
			done = upto;
		}
		pd_sbf_destroy(&f);
	}
}

/*
 * Max = 1, P = 0 is a plain Bloom filter: after n insertions a fresh key is
 * a false positive with probability (1 - (1 - 1/m)^(Kn))^K.
 */
static void pd_sbf_plain_bloom(struct kunit *test)
{
	static const u32 loads[] = { 2000, 5000, 10000 };
	u64 m = 1 << 16, q = 100000;
	unsigned int li;

	for (li = 0; li < PD_ARRAY_SIZE(loads); li++) {
		struct pd_sbf f;
		u64 rng = 5 + li, fp = 0, i, want, sd;
		u64 miss;

		KUNIT_ASSERT_EQ(test, pd_sbf_new(test, &f, m, 1, 4, 0, li), 0);
		pd_sbf_feed_distinct(&f, &rng, loads[li]);
		for (i = 0; i < q; i++) {
			u64 x = pd_rng_next(&rng);

			fp += pd_sbf_query(&f, (u32)x, (u32)(x >> 32));
		}
		miss = pd_pow_q62(PD_Q62_ONE - PD_Q62_ONE / m, 4 * loads[li]);
		want = pd_q62_to_ppb(pd_pow_q62(PD_Q62_ONE - miss, 4)) * q /
		       1000000000;
		sd = pd_isqrt64(want + 1);
		kunit_info(test, "n %u: %llu false positives in %llu, expected %llu",
			   loads[li], (unsigned long long)fp,
			   (unsigned long long)q, (unsigned long long)want);
		KUNIT_EXPECT_LE(test, fp, want + 5 * sd + 2);
		KUNIT_EXPECT_GE(test, fp + 5 * sd + 2, want);
		/* and nothing inserted is ever forgotten */
		KUNIT_EXPECT_EQ(test, pd_sbf_zero_cells(&f) < f.cells, true);
		pd_sbf_destroy(&f);
	}
}

/* P = 0: every inserted element stays a duplicate forever (no FN). */
static void pd_sbf_no_forgetting_without_p(struct kunit *test)
{
	struct pd_sbf f;
	u64 rng = 3, rng2 = 3, i;

	KUNIT_ASSERT_EQ(test, pd_sbf_new(test, &f, 1 << 14, 1, 3, 0, 3), 0);
	pd_sbf_feed_distinct(&f, &rng, 2000);
	for (i = 0; i < 2000; i++) {
		u64 x = pd_rng_next(&rng2);

		KUNIT_EXPECT_TRUE(test, pd_sbf_step(&f, (u32)x, (u32)(x >> 32)));
	}
	pd_sbf_destroy(&f);
}

/*
 * A bounded read spreads its lines over the whole filter: with exactly the
 * first half of the cells set, every budget that reads n lines sees half
 * of them zero, to within one line; a budget that holds the filter reads
 * it whole, and a read never examines more than its budget.
 */
static void pd_sbf_zero_sampled(struct kunit *test)
{
	static const u64 budgets[] = { 64, 640, 4096, 65536, 128 << 10 };
	struct pd_sbf f;
	u64 cells, zero, i, runs;
	u32 pos;

	KUNIT_ASSERT_EQ(test, pd_sbf_new(test, &f, 1 << 20, 3, 1, 0, 1), 0);
	for (i = 0; i < f.cells / 2; i++) {
		pos = (u32)i;
		pd_sbf_set_cells(&f, &pos);
	}
	KUNIT_EXPECT_EQ(test, pd_sbf_zero_cells(&f), (u64)f.cells / 2);
	for (i = 0; i < PD_ARRAY_SIZE(budgets); i++) {
		zero = pd_sbf_zero_within(&f, budgets[i], &cells);
		runs = budgets[i] / PD_OCC_LINE;
		KUNIT_EXPECT_LE(test, cells * 2 / 8, budgets[i]);
		KUNIT_EXPECT_EQ(test, cells, runs * PD_OCC_LINE * 8 / 2);
		/* half the runs, give or take one, fall in the zero half */
		KUNIT_EXPECT_LE_MSG(test, zero * runs,
				    (runs / 2 + 1) * cells, "budget %llu",
				    (unsigned long long)budgets[i]);
		KUNIT_EXPECT_GE_MSG(test, (zero + cells / runs) * runs,
				    (runs / 2) * cells, "budget %llu",
				    (unsigned long long)budgets[i]);
	}
	/* the filter is 256 KiB: a budget that holds it reads it whole */
	zero = pd_sbf_zero_within(&f, 256 << 10, &cells);
	KUNIT_EXPECT_EQ(test, cells, (u64)f.cells);
	KUNIT_EXPECT_EQ(test, zero, (u64)f.cells / 2);
	zero = pd_sbf_zero_within(&f, PD_OCC_ALL, &cells);
	KUNIT_EXPECT_EQ(test, cells, (u64)f.cells);
	pd_sbf_destroy(&f);
}

static struct kunit_case pd_sbf_cases[] = {
	KUNIT_CASE(pd_sbf_zero_sampled),
	KUNIT_CASE(pd_sbf_bits),
	KUNIT_CASE(pd_sbf_rejects),
	KUNIT_CASE(pd_sbf_decrement_range),
	KUNIT_CASE(pd_sbf_matches_model),
	KUNIT_CASE(pd_sbf_query_reset),
	KUNIT_CASE(pd_sbf_stable_point),
	KUNIT_CASE(pd_sbf_fp_bound),
	KUNIT_CASE(pd_sbf_plain_bloom),
	KUNIT_CASE(pd_sbf_no_forgetting_without_p),
	{}
};

static struct kunit_suite pd_sbf_suite = {
	.name = "pktdedup-sbf",
	.test_cases = pd_sbf_cases,
};

kunit_test_suite(pd_sbf_suite);
