// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the bit-array filters of Bera et al. (bitf.h): what each
 * family changes on each verdict, RSBF's three phases, exact loads, the
 * stable loads and FP rates of the plan's model, and the planner's k.
 * Statistical checks use fixed seeds and tolerances derived from the
 * distributions (stated where they are used).
 */
#include <kunit/test.h>

#include "../../module/core/bitf.h"
#include "../../module/core/filter.h"
#include "../../module/core/fixed.h"
#include "../../module/core/rng.h"

#define PPB 1000000000ULL

static const struct pd_pktinfo pd_bt_pi;

static void pd_bt_elem(u64 id, u32 *h1, u32 *h2)
{
	u64 x = pd_rng_next(&id);

	*h1 = (u32)x;
	*h2 = (u32)(x >> 32);
}

/* A bit filter of kind with k arrays (or AUTO) over mem bytes. */
static int pd_bt_new(struct kunit *test, struct pd_filter *f,
		     struct pd_filter_plan *plan, u8 kind, u32 k, u64 mem,
		     u64 seed)
{
	struct pd_filter_req req;
	const char *why = NULL;
	int err;

	pd_filter_req_defaults(&req, kind, mem);
	pd_bitf_req(&req)->k = k;
	err = pd_filter_create(f, &req, plan, &why);
	if (err)
		kunit_err(test, "kind %u k %u mem %llu: %s", kind, k,
			  (unsigned long long)mem, why);
	else
		pd_filter_set_seeds(f, (u32)seed, (u32)(seed >> 32),
				    seed * 7 + 3);
	return err;
}

static size_t pd_bt_words(const struct pd_bitf *b)
{
	return (size_t)b->nwords * b->k;
}

/* Bits of array a that were set in old and are clear in b (and back). */
static unsigned int pd_bt_cleared(const struct pd_bitf *b, const u64 *old,
				  unsigned int a)
{
	unsigned int n = 0;
	u32 w;

	for (w = 0; w < b->nwords; w++)
		n += pd_popcount64(old[a * b->nwords + w] &
				   ~b->words[a * b->nwords + w]);
	return n;
}

static unsigned int pd_bt_set(const struct pd_bitf *b, const u64 *old,
			      unsigned int a)
{
	unsigned int n = 0;
	u32 w;

	for (w = 0; w < b->nwords; w++)
		n += pd_popcount64(~old[a * b->nwords + w] &
				   b->words[a * b->nwords + w]);
	return n;
}

static bool pd_bt_old_bit(const struct pd_bitf *b, const u64 *old,
			  unsigned int a, u32 i)
{
	return (old[a * b->nwords + (i >> 6)] >> (i & 63)) & 1;
}

/* Count in [lo, lo + n) of a sum of Bernoulli(p_j): mean, var in Q32. */
static void pd_bt_expect_count(struct kunit *test, u64 count, u64 mean_q32,
			       u64 var_q32, const char *what)
{
	u64 mean = mean_q32 >> 32, tol = 5 * pd_isqrt64(var_q32 >> 32) + 2;

	kunit_info(test, "%s: %llu, expected %llu +- %llu", what,
		   (unsigned long long)count, (unsigned long long)mean,
		   (unsigned long long)tol);
	KUNIT_EXPECT_LE_MSG(test, count, mean + tol, "%s", what);
	KUNIT_EXPECT_GE_MSG(test, count + tol, mean, "%s", what);
}

/*
 * BSBF, BSBFSD, RLBSBF: an element reported DUPLICATE changes nothing
 * (bits, loads, generator). An element reported DISTINCT sets its own
 * bits and clears at most one other bit per array (BSBF, RLBSBF) or one
 * in all (BSBFSD). Which bits are cleared is each family's rule: over the
 * run, the number cleared is the sum of the per-insertion probabilities
 * computed from the state before it: a random bit of each array, cleared
 * if set (BSBF); the same after a coin with probability L_i/s (RLBSBF);
 * a random bit of one random array (BSBFSD). A bit is seen cleared only
 * if it is not the element's own (which is set again): probability
 * (L_i - own_i)/s, times L_i/s for RLBSBF, times 1/k for BSBFSD. The
 * count is a sum of independent Bernoulli draws (the generator's): 5 sd.
 */
static void pd_bitf_changes(struct kunit *test)
{
	static const u8 kinds[] = { PKTDEDUP_FILTER_KIND_BSBF,
				    PKTDEDUP_FILTER_KIND_BSBFSD,
				    PKTDEDUP_FILTER_KIND_RLBSBF };
	unsigned int ki, k;

	for (ki = 0; ki < PD_ARRAY_SIZE(kinds); ki++)
		for (k = 1; k <= 3; k++) {
			struct pd_filter_plan plan;
			struct pd_filter f;
			struct pd_bitf *b = pd_bitf_of(&f);
			u64 *old, rng = 5 + k, i, dups = 0, cleared = 0;
			u64 mean = 0, var = 0;
			u32 oload[PD_BITF_MAX_K], pos[PD_BITF_MAX_K];

			KUNIT_ASSERT_EQ(test, pd_bt_new(test, &f, &plan,
							kinds[ki], k, 128 * k,
							k), 0);
			KUNIT_ASSERT_EQ(test, b->s, 1024u);
			old = kunit_kzalloc(test, pd_bt_words(b) * 8,
					    GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, old);
			for (i = 0; i < 30000; i++) {
				u64 id = pd_rng_next(&rng) % 4000, orng = b->rng;
				unsigned int a, tot = 0;
				u64 p[PD_BITF_MAX_K];
				u32 h1, h2;
				bool dup;

				pd_bt_elem(id, &h1, &h2);
				memcpy(old, b->words, pd_bt_words(b) * 8);
				memcpy(oload, b->load, sizeof(oload));
				pd_bitf_positions(b, h1, h2, pos);
				for (a = 0; a < k; a++) {
					u64 l = b->load[a];
					u64 vis = l - pd_bitf_bit(b, a, pos[a]);

					/* Q32 probability it is seen cleared */
					p[a] = (vis << 32) / b->s;
					if (kinds[ki] == PKTDEDUP_FILTER_KIND_RLBSBF)
						p[a] = ((l * vis) << 32) /
						       ((u64)b->s * b->s);
					if (kinds[ki] == PKTDEDUP_FILTER_KIND_BSBFSD)
						p[a] /= k;
				}
				dup = pd_filter_step(&f, h1, h2, &pd_bt_pi);
				if (dup) {
					dups++;
					KUNIT_ASSERT_EQ(test, memcmp(old, b->words,
								     pd_bt_words(b) * 8), 0);
					KUNIT_ASSERT_EQ(test, memcmp(oload, b->load,
								     sizeof(oload)), 0);
					KUNIT_ASSERT_EQ(test, b->rng, orng);
					continue;
				}
				for (a = 0; a < k; a++) {
					unsigned int c = pd_bt_cleared(b, old, a);
					unsigned int s = pd_bt_set(b, old, a);

					/* at most its own bit set, and it is */
					KUNIT_ASSERT_TRUE(test, pd_bitf_bit(b, a, pos[a]));
					KUNIT_ASSERT_EQ(test, s, pd_bt_old_bit(b, old, a,
									       pos[a]) ? 0u : 1u);
					KUNIT_ASSERT_LE_MSG(test, c, 1u, "%s k %u",
							    f.ops->name, k);
					tot += c;
					mean += p[a];
					var += p[a] - ((p[a] * p[a]) >> 32);
				}
				if (kinds[ki] == PKTDEDUP_FILTER_KIND_BSBFSD)
					KUNIT_ASSERT_LE(test, tot, 1u);
				cleared += tot;
			}
			/* both verdicts come up often (k = 1 and BSBFSD fill up) */
			KUNIT_EXPECT_GT(test, dups, (u64)3000);
			KUNIT_EXPECT_LT(test, dups, (u64)29000);
			pd_bt_expect_count(test, cleared, mean, var, f.ops->name);
			pd_filter_destroy(&f);
		}
}

/*
 * Every family keeps L_i, the set bits of array i, as a counter: after
 * every step of a long run (through all of RSBF's phases: iter3 = 34134
 * here) it equals the bits counted, and occupancy reports the same.
 */
static void pd_bitf_loads_exact(struct kunit *test)
{
	u8 kind;
	u32 k;

	for (kind = PKTDEDUP_FILTER_KIND_RSBF;
	     kind <= PKTDEDUP_FILTER_KIND_RLBSBF; kind++)
		for (k = 2; k <= 3; k++) {
			struct pd_filter_plan plan;
			struct pd_filter_occ o;
			struct pd_filter f;
			struct pd_bitf *b = pd_bitf_of(&f);
			u64 rng = kind * 10 + k, i, sum;
			unsigned int a;

			KUNIT_ASSERT_EQ(test, pd_bt_new(test, &f, &plan, kind, k,
							128 * k, 40 + k), 0);
			for (i = 0; i < 100000; i++) {
				u64 id = pd_rng_next(&rng) % 60000;
				u32 h1, h2;

				pd_bt_elem(id, &h1, &h2);
				pd_filter_step(&f, h1, h2, &pd_bt_pi);
				for (a = 0; a < k; a++)
					KUNIT_ASSERT_EQ_MSG(test, (u64)b->load[a],
							    pd_bitf_count(b, a),
							    "%s k %u step %llu array %u",
							    f.ops->name, k,
							    (unsigned long long)i, a);
			}
			pd_filter_occupancy(&f, &o);
			KUNIT_EXPECT_EQ(test, o.arrays, k);
			KUNIT_EXPECT_EQ(test, o.units, (u64)b->s * k);
			for (a = 0, sum = 0; a < k; a++) {
				KUNIT_EXPECT_EQ(test, o.load[a], b->load[a]);
				sum += pd_bitf_count(b, a);
			}
			KUNIT_EXPECT_EQ(test, o.set, sum);
			KUNIT_EXPECT_EQ(test, pd_bitf_set_bits(b), sum);
			pd_filter_destroy(&f);
		}
}

/*
 * RSBF's phases, k = 3, s = 1024, p* = 0.03, on distinct elements.
 * Phase 1 (iter <= s): every element sets its bits, nothing is cleared.
 * Phase 2 (s < iter < s/p*): an element reported DUPLICATE changes
 * nothing; one reported DISTINCT is inserted with probability s/iter
 * (the generator's 32-bit draw against floor(2^32 s / iter)); inserted,
 * it clears at most one bit per array and sets its own. The insertions
 * in a window are a sum of independent Bernoulli(s/iter): 5 sd. Phase 3
 * (iter >= s/p*): every DISTINCT element is inserted, and each zero bit
 * it sets is paired with a set bit cleared in the same array, so every
 * load stays as it was. iter stops at the first iter of phase 3.
 */
static void pd_rsbf_phases(struct kunit *test)
{
	struct pd_filter_plan plan;
	struct pd_filter f;
	struct pd_bitf *b = pd_bitf_of(&f);
	u64 *old, id, win_ins[2] = { 0 }, win_mean[2] = { 0 };
	u64 win_var[2] = { 0 }, ph3 = 0;
	u32 pos[PD_BITF_MAX_K], oload[PD_BITF_MAX_K];
	unsigned int a;

	KUNIT_ASSERT_EQ(test, pd_bt_new(test, &f, &plan,
					PKTDEDUP_FILTER_KIND_RSBF,
					PD_FILTER_AUTO, 384, 11), 0);
	KUNIT_ASSERT_EQ(test, b->k, 3);
	KUNIT_ASSERT_EQ(test, b->s, 1024u);
	KUNIT_EXPECT_EQ(test, plan.p_star_ppb, 30000000u);
	/* the first iter with s / iter <= p*: ceil(1024 / 0.03) */
	KUNIT_EXPECT_EQ(test, b->iter3, (u64)34134);
	old = kunit_kzalloc(test, pd_bt_words(b) * 8, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, old);
	for (id = 0; id < b->iter3 + 8 * 1024; id++) {
		u64 iter = id + 1, orng = b->rng;
		u32 h1, h2;
		bool dup, in;

		pd_bt_elem(id + (1ULL << 40), &h1, &h2);
		memcpy(old, b->words, pd_bt_words(b) * 8);
		memcpy(oload, b->load, sizeof(oload));
		pd_bitf_positions(b, h1, h2, pos);
		dup = pd_filter_step(&f, h1, h2, &pd_bt_pi);
		KUNIT_ASSERT_EQ(test, b->iter, PD_MIN(iter, b->iter3));
		in = pd_filter_query(&f, h1, h2);
		if (iter <= b->s) {
			for (a = 0; a < 3; a++)
				KUNIT_ASSERT_EQ(test, pd_bt_cleared(b, old, a), 0u);
			KUNIT_ASSERT_TRUE(test, in);
			continue;
		}
		if (dup) {
			KUNIT_ASSERT_EQ(test, memcmp(old, b->words,
						     pd_bt_words(b) * 8), 0);
			KUNIT_ASSERT_EQ(test, b->rng, orng);
			continue;
		}
		if (iter < b->iter3) {
			u64 p = ((u64)b->s << 32) / iter;
			unsigned int w = iter <= 4 * b->s ? 0 : 1;

			/* not inserted: nothing changed (its zero bit stays) */
			if (!in)
				KUNIT_ASSERT_EQ(test, memcmp(old, b->words,
							     pd_bt_words(b) * 8), 0);
			for (a = 0; a < 3 && in; a++) {
				KUNIT_ASSERT_LE(test, pd_bt_cleared(b, old, a), 1u);
				KUNIT_ASSERT_LE(test, pd_bt_set(b, old, a), 1u);
			}
			win_ins[w] += in;
			win_mean[w] += p;
			win_var[w] += p - ((p * p) >> 32);
			continue;
		}
		KUNIT_ASSERT_TRUE_MSG(test, in, "iter %llu",
				      (unsigned long long)iter);
		for (a = 0; a < 3; a++) {
			unsigned int c = pd_bt_cleared(b, old, a);

			KUNIT_ASSERT_EQ(test, b->load[a], oload[a]);
			KUNIT_ASSERT_EQ(test, c, pd_bt_set(b, old, a));
			KUNIT_ASSERT_EQ(test, c, pd_bt_old_bit(b, old, a, pos[a]) ?
					0u : 1u);
			ph3 += c;
		}
	}
	pd_bt_expect_count(test, win_ins[0], win_mean[0], win_var[0],
			   "phase 2 insertions, iter 1025..4096");
	pd_bt_expect_count(test, win_ins[1], win_mean[1], win_var[1],
			   "phase 2 insertions, iter 4097..34133");
	/* phase 3 did insert (about 8192 (1 - x^3) elements, each >= 1 bit) */
	KUNIT_EXPECT_GT(test, ph3, (u64)6000);
	KUNIT_EXPECT_EQ(test, b->iter, b->iter3);
	pd_filter_destroy(&f);
}

/* Step n distinct elements from id first on. */
static void pd_bt_feed(struct pd_filter *f, u64 first, u64 n)
{
	u64 id;
	u32 h1, h2;

	for (id = first; id < first + n; id++) {
		pd_bt_elem(id, &h1, &h2);
		pd_filter_step(f, h1, h2, &pd_bt_pi);
	}
}

/* FP of q new elements against the product of the loads (5 sd). */
static u64 pd_bt_fp(struct kunit *test, struct pd_filter *f, u64 q)
{
	const struct pd_bitf *b = pd_bitf_of(f);
	u64 id, fp = 0, want = q, sd;
	unsigned int a;
	u32 h1, h2;

	for (id = 0; id < q; id++) {
		pd_bt_elem(id | (1ULL << 62), &h1, &h2);
		fp += pd_filter_query(f, h1, h2);
	}
	/* given the state, each query is Bernoulli(prod L_a / s) */
	for (a = 0; a < b->k; a++)
		want = want * b->load[a] / b->s;
	sd = pd_isqrt64(want) + 1;
	KUNIT_EXPECT_LE_MSG(test, fp, want + 5 * sd, "%s", f->ops->name);
	KUNIT_EXPECT_GE_MSG(test, fp + 5 * sd, want, "%s", f->ops->name);
	return fp;
}

/*
 * The stable loads of the plan's model (pd_bitf_load) on long streams
 * of distinct elements, and the FP rate of new elements there, about
 * load^k. BSBF and RLBSBF relax in fewer than 3 s elements (the linear
 * drift's rate below); they run 32 s. RSBF runs through phase 2 into
 * phase 3, where its load is frozen.
 *
 * Tolerance: the set bits T are a sum of ks bits. Were the bits
 * independent Bernoulli(x), Var T = ks x (1 - x). They are not: the
 * linear-noise approximation of the load's chain gives Var T =
 * s V / (2 |d'(x)|), V the variance of T's change per element and d(x) =
 * 1 - 2x + x^(k+1) (BSBF; the load's drift per element, over s) with
 * d'(x) = (k + 1) x^k - 2; for BSBF that is exactly half the binomial
 * value, for RLBSBF 0.44 to 0.47 of it (k = 2, 3), which 40 seeds each
 * confirmed within 12%. RSBF ends phase 2 relaxed to BSBF's spread. We
 * allow 4.5 binomial sd, i.e. at least 6 sd of the actual spread, plus
 * 0.1% for the model's O(1/s) terms and RSBF's integration.
 */
static void pd_bitf_stable_loads(struct kunit *test)
{
	static const struct { u8 kind; u32 k; } cfg[] = {
		{ PKTDEDUP_FILTER_KIND_BSBF, 2 },
		{ PKTDEDUP_FILTER_KIND_BSBF, 3 },
		{ PKTDEDUP_FILTER_KIND_RLBSBF, 2 },
		{ PKTDEDUP_FILTER_KIND_RLBSBF, 3 },
		{ PKTDEDUP_FILTER_KIND_RSBF, PD_FILTER_AUTO },	/* k = 3 */
		{ PKTDEDUP_FILTER_KIND_RSBF, 2 },
	};
	unsigned int ci;

	for (ci = 0; ci < PD_ARRAY_SIZE(cfg); ci++) {
		struct pd_filter_plan plan;
		struct pd_filter_occ o;
		struct pd_filter f;
		const struct pd_bitf *b = pd_bitf_of(&f);
		u64 x, load, tol, n, q = 1 << 16, fp, want, ftol;

		KUNIT_ASSERT_EQ(test, pd_bt_new(test, &f, &plan, cfg[ci].kind,
						cfg[ci].k, 4096, 100 + ci), 0);
		n = cfg[ci].kind == PKTDEDUP_FILTER_KIND_RSBF ?
		    b->iter3 + 2 * (u64)b->s : 32 * (u64)b->s;
		pd_bt_feed(&f, 0, n);
		pd_filter_occupancy(&f, &o);
		x = pd_q62_to_ppb(plan.stable_load);
		load = o.set * PPB / o.units;
		/* 4.5 sd of a sum of ks Bernoulli(x), in ppb, and 0.1% */
		tol = 9 * pd_isqrt64(x * (PPB - x) / o.units) / 2 + 1000000;
		kunit_info(test, "%s k %u s %u: load %llu ppb, model %llu, tol %llu",
			   f.ops->name, b->k, b->s, (unsigned long long)load,
			   (unsigned long long)x, (unsigned long long)tol);
		KUNIT_EXPECT_LE_MSG(test, load, x + tol, "%s k %u",
				    f.ops->name, b->k);
		KUNIT_EXPECT_GE_MSG(test, load + tol, x, "%s k %u",
				    f.ops->name, b->k);
		KUNIT_EXPECT_EQ(test, plan.fp_bound,
				pd_pow_q62(plan.stable_load, b->k));
		/*
		 * FP of new elements: the product of the loads (5 binomial
		 * sd), and so load^k within k x^(k-1) tol of the load's
		 * tolerance and 5 sd of the q queries.
		 */
		fp = pd_bt_fp(test, &f, q);
		want = pd_q62_to_ppb(plan.fp_bound) * q / PPB;
		ftol = b->k * tol * q / PPB + 5 * pd_isqrt64(want) + 1;
		kunit_info(test, "  fp %llu of %llu, model %llu +- %llu",
			   (unsigned long long)fp, (unsigned long long)q,
			   (unsigned long long)want, (unsigned long long)ftol);
		KUNIT_EXPECT_LE(test, fp, want + ftol);
		KUNIT_EXPECT_GE(test, fp + ftol, want);
		pd_filter_destroy(&f);
	}
}

/*
 * BSBFSD has no stable load below 1: per insertion it clears one bit in
 * all (probability x) and sets (1 - x) k / (1 - x^k) >= x of its own, so
 * the load keeps rising, and the plan says 1. With e = 1 - x, the mean
 * load follows de/dn = -(k + 1) e^2 / (2s) + O(e^3): after n >> s
 * distinct elements Z = ks e zero bits, Z = 2ks^2 / ((k + 1) n) (the
 * exact mean-field ODE is within 1% of it at n = 16s and beyond).
 * Tolerance: Z is a sum of bits that are each rarely zero; independent,
 * it would be Poisson (Var Z = Z), and the chain's restoring drift
 * narrows it (measured over 20 seeds: 0.5 to 0.8 of that). 4.5 Poisson
 * sd, plus 2% for the model.
 */
static void pd_bsbfsd_rises(struct kunit *test)
{
	static const u64 at[] = { 16, 64 };
	struct pd_filter_plan plan;
	struct pd_filter_occ o;
	struct pd_filter f;
	const struct pd_bitf *b = pd_bitf_of(&f);
	u64 done = 0, z, want, tol, fp;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, pd_bt_new(test, &f, &plan,
					PKTDEDUP_FILTER_KIND_BSBFSD, 2, 2048,
					77), 0);
	KUNIT_EXPECT_EQ(test, plan.stable_load, PD_Q62_ONE);
	KUNIT_EXPECT_EQ(test, plan.fp_bound, PD_Q62_ONE);
	for (i = 0; i < PD_ARRAY_SIZE(at); i++) {
		u64 n = at[i] * b->s;

		pd_bt_feed(&f, done, n - done);
		done = n;
		pd_filter_occupancy(&f, &o);
		z = o.units - o.set;
		want = 2 * 2 * (u64)b->s * b->s / (3 * n);
		tol = 9 * pd_isqrt64(want) / 2 + want / 50 + 1;
		kunit_info(test, "n = %llu s: %llu zero bits, expected %llu +- %llu",
			   (unsigned long long)at[i], (unsigned long long)z,
			   (unsigned long long)want, (unsigned long long)tol);
		KUNIT_EXPECT_LE(test, z, want + tol);
		KUNIT_EXPECT_GE(test, z + tol, want);
	}
	/* its FP rate is that of its loads: near 1 */
	fp = pd_bt_fp(test, &f, 1 << 14);
	KUNIT_EXPECT_GT(test, fp, (u64)(1 << 14) * 95 / 100);
	pd_filter_destroy(&f);
}

/*
 * BSBF, BSBFSD and RLBSBF with a target: the least k whose FP at the
 * stable load (load^k) meets it, so k - 1 does not. BSBF's FP falls
 * towards 2^-k (k = 3 0.161, 5 0.0340, 7 0.00804), RLBSBF's towards
 * 0.618^k (k = 10 0.00832); where no k up to 16 meets it, the k of the
 * lowest FP (16); BSBFSD, whose FP is 1 at every k, keeps the paper's 2.
 */
static void pd_bitf_planner_fps(struct kunit *test)
{
	static const struct { u8 kind; u32 fps_ppb, k; } want[] = {
		{ PKTDEDUP_FILTER_KIND_BSBF, 200000000, 3 },
		{ PKTDEDUP_FILTER_KIND_BSBF, 50000000, 5 },
		{ PKTDEDUP_FILTER_KIND_BSBF, 10000000, 7 },
		{ PKTDEDUP_FILTER_KIND_BSBF, 1000, 16 },
		{ PKTDEDUP_FILTER_KIND_RLBSBF, 10000000, 10 },
		{ PKTDEDUP_FILTER_KIND_RLBSBF, 1000, 16 },
		{ PKTDEDUP_FILTER_KIND_BSBFSD, 10000000, 2 },
		{ PKTDEDUP_FILTER_KIND_BSBFSD, 1000, 2 },
	};
	struct pd_filter_plan plan;
	struct pd_filter_req req;
	const char *why = NULL;
	unsigned int i;
	u64 fps;

	for (i = 0; i < PD_ARRAY_SIZE(want); i++) {
		pd_filter_req_defaults(&req, want[i].kind, 1 << 20);
		req.fps_ppb = want[i].fps_ppb;
		fps = pd_q62_from_ppb(want[i].fps_ppb);
		KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &plan, &why), 0);
		KUNIT_EXPECT_EQ_MSG(test, plan.k, want[i].k, "kind %u fps %u",
				    want[i].kind, want[i].fps_ppb);
		if (want[i].kind == PKTDEDUP_FILTER_KIND_BSBFSD ||
		    want[i].k == PD_BITF_MAX_K)
			continue;
		KUNIT_EXPECT_LE(test, plan.fp_bound, fps);
		pd_bitf_req(&req)->k = plan.k - 1;
		KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &plan, &why), 0);
		KUNIT_EXPECT_GT(test, plan.fp_bound, fps);
	}
	/* a given k wins */
	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_BSBF, 1 << 20);
	req.fps_ppb = 10000000;
	pd_bitf_req(&req)->k = 3;
	KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &plan, &why), 0);
	KUNIT_EXPECT_EQ(test, plan.k, 3u);
}

/*
 * The planner: RSBF's k is the mean of 1 and Eq. 6.1's
 * ln(FPR_t) / ln(1 - 1/e), rounded: 3 for the paper's FPR_t = 0.1
 * (mean of 1 and 5.02), its default; BSBF, BSBFSD and RLBSBF default to
 * the paper's k = 2 when no fps is given. Arrays take all the memory they
 * can in whole words; the model's stable loads are the roots named in
 * bitf.c.
 */
static void pd_bitf_planner(struct kunit *test)
{
	static const struct { u32 fps_ppb, k; } rsbf[] = {
		{ 0, 3 },		/* the default, 0.1: (1 + 5.02) / 2 */
		{ 100000000, 3 },
		{ 10000000, 6 },	/* (1 + 10.04) / 2 = 5.52 */
		{ 1000000, 8 },		/* (1 + 15.06) / 2 = 8.03 */
		{ 500000000, 1 },	/* (1 + 1.51) / 2 = 1.25 */
	};
	struct pd_filter_req req;
	struct pd_filter_plan plan;
	const char *why = NULL;
	unsigned int i;
	u8 kind;
	u64 d;

	for (i = 0; i < PD_ARRAY_SIZE(rsbf); i++) {
		pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_RSBF, 1 << 20);
		req.fps_ppb = rsbf[i].fps_ppb;
		KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &plan, &why), 0);
		KUNIT_EXPECT_EQ_MSG(test, plan.k, rsbf[i].k, "fps %u ppb",
				    rsbf[i].fps_ppb);
	}
	KUNIT_EXPECT_EQ(test, pd_rsbf_family.default_fps_ppb, 100000000u);
	for (kind = PKTDEDUP_FILTER_KIND_BSBF;
	     kind <= PKTDEDUP_FILTER_KIND_RLBSBF; kind++) {
		pd_filter_req_defaults(&req, kind, 1 << 20);
		KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &plan, &why), 0);
		KUNIT_EXPECT_EQ(test, plan.k, 2u);
		KUNIT_EXPECT_EQ(test, plan.cells, (u64)(4 << 20));
		KUNIT_EXPECT_EQ(test, plan.bytes, (u64)(1 << 20));
	}
	pd_bitf_planner_fps(test);
	/* 1000 bytes in 3 arrays: 2666 bits each, 2624 in whole words */
	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_RSBF, 1000);
	KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &plan, &why), 0);
	KUNIT_EXPECT_EQ(test, plan.cells, (u64)2624);
	KUNIT_EXPECT_EQ(test, plan.bytes, (u64)984);
	/* BSBF k = 2: (sqrt 5 - 1) / 2 = 0.6180339887 */
	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_BSBF, 1 << 20);
	KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &plan, &why), 0);
	d = pd_q62_to_ppb(plan.stable_load);
	KUNIT_EXPECT_EQ(test, d, (u64)618033989);
	/* RLBSBF k = 2: x^2 + x^3 = 1 at 0.7548776662 */
	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_RLBSBF, 1 << 20);
	KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &plan, &why), 0);
	KUNIT_EXPECT_EQ(test, (u64)pd_q62_to_ppb(plan.stable_load),
			(u64)754877666);
	/* RSBF k = 1: the ODE's closed form 1 - 1 / (e + ln(1/p*)) */
	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_RSBF, 1 << 20);
	pd_bitf_req(&req)->k = 1;
	KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &plan, &why), 0);
	d = pd_q62_to_ppb(plan.stable_load);
	/* 1 - 1 / (2.718281828 + 3.506557897) = 0.839353 */
	KUNIT_EXPECT_LE(test, d, (u64)839353000 + 50000);
	KUNIT_EXPECT_GE(test, d + 50000, (u64)839353000);
}

static struct kunit_case pd_bitf_cases[] = {
	KUNIT_CASE(pd_bitf_changes),
	KUNIT_CASE(pd_bitf_loads_exact),
	KUNIT_CASE(pd_rsbf_phases),
	KUNIT_CASE(pd_bitf_stable_loads),
	KUNIT_CASE(pd_bsbfsd_rises),
	KUNIT_CASE(pd_bitf_planner),
	{}
};

static struct kunit_suite pd_bitf_suite = {
	.name = "pktdedup-bitf",
	.test_cases = pd_bitf_cases,
};

kunit_test_suite(pd_bitf_suite);
