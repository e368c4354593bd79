// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the filter in shards by key hash (shard.h): a copy meets
 * its original's shard, the shards' loads are uniform, the shard index is
 * independent of the cells a shard's filter picks (the FP rate in a shard
 * is the model's, in the SBF's layouts and the windows), the whole's plan
 * is a shard's n times, fixed seeds rebuild one filter and any sharded
 * one, the whole's reads are the sums of the shards', and every family
 * works in shards. One thread: the concurrent tests are native
 * (tests/native/shard_mt_test.c).
 *
 * Tolerances: a count of n verdicts each positive with probability p is
 * checked against n p +- 5 sqrt(n p (1 - p)) (five binomial standard
 * deviations), plus what the model itself leaves out where it says so;
 * chi-square statistics against the Laurent-Massart bound
 * (pd_st_chi2_limit()). Every stream has a fixed seed.
 */
#include <kunit/test.h>

#include "../../module/core/filter.h"
#include "../../module/core/fixed.h"
#include "../../module/core/key.h"
#include "../../module/core/plan.h"
#include "../../module/core/rng.h"
#include "../../module/core/shard.h"
#include "../../module/core/timewin.h"
#include "shard_test.h"

#define PD_ST_UDP 17

void pd_st_key(struct pd_key *key, u64 id)
{
	u8 src[4], dst[4];
	unsigned int i;

	for (i = 0; i < 4; i++) {
		src[i] = (u8)(id >> (8 * i));
		dst[i] = (u8)(id >> (32 + 8 * i));
	}
	pd_key_build(key, PKTDEDUP_KEY_FLOW, PD_FAMILY_IPV4, src, dst,
		     PD_ST_UDP, 4789, 53);
}

/* A shard's lock, as the module and userspace callers take it. */
static void pd_st_lock(struct pd_shard *sh)
{
#ifdef __KERNEL__
	spin_lock(&sh->lock);
#else
	pd_lock(&sh->lock);
#endif
}

static void pd_st_unlock(struct pd_shard *sh)
{
#ifdef __KERNEL__
	spin_unlock(&sh->lock);
#else
	pd_unlock(&sh->lock);
#endif
}

/* One element of hash h, the way callers step it (shard.h). */
static bool pd_st_step(struct pd_shards *s, u64 h,
		       const struct pd_pktinfo *pi)
{
	struct pd_shard *sh = pd_shard_of(s, h);
	bool dup;

	pd_st_lock(sh);
	dup = pd_filter_step_hash(&sh->f, h, pi);
	pd_st_unlock(sh);
	return dup;
}

/* The element of id: its key's hash under the shards' key, stepped. */
static bool pd_st_step_id(struct pd_shards *s, u64 id,
			  const struct pd_pktinfo *pi)
{
	struct pd_key key;

	pd_st_key(&key, id);
	return pd_st_step(s, pd_shards_hash(s, &key), pi);
}

/* n shards (or fewer: the plan's) for req, seeded from seed. */
static int pd_st_new(struct kunit *test, struct pd_shards *s,
		     const struct pd_filter_req *req, u32 n,
		     struct pd_filter_plan *whole, u64 seed)
{
	const char *why = NULL;
	int err = pd_shards_create(s, req, n, whole, &why);

	if (err)
		kunit_err(test, "kind %u: %s", req->kind, why);
	else
		pd_shards_seed(s, &seed);
	return err;
}

/* kind's defaults for mem bytes; a window family's window of w packets. */
static void pd_st_req(struct pd_filter_req *req, unsigned int kind, u64 mem,
		      u64 w)
{
	pd_filter_req_defaults(req, (u8)kind, mem);
	if (pd_filter_family(kind)->window)
		pd_tw_req(req)->window_pkts = w;
}

/* The index of the shard of h. */
static u32 pd_st_index(const struct pd_shards *s, u64 h)
{
	return (u32)(pd_shard_of(s, h) - s->sh);
}

/*
 * Pearson's statistic of the counts c[0..bins) against the uniform:
 * sum (c_i - N / bins)^2 / (N / bins) = bins sum c_i^2 / N - N.
 */
static u64 pd_st_chi2(const u32 *c, u32 bins)
{
	u64 sum = 0, sq = 0;
	u32 i;

	for (i = 0; i < bins; i++) {
		sum += c[i];
		sq += (u64)c[i] * c[i];
	}
	return sum ? (bins * sq - sum * sum) / sum : 0;
}

/*
 * The bound a chi-square statistic of d degrees of freedom passes:
 * Laurent and Massart (Ann. Statist. 2000, Lemma 1) give P(X >= d +
 * 2 sqrt(d x) + 2 x) <= e^-x; with x = 20, d + 2 sqrt(20 d) + 40, which
 * uniform counts exceed with probability below 2 * 10^-9 (Pearson's
 * statistic is chi-square to within its O(1 / expected count) error; every
 * expected count here is 24 or more). The root is rounded up.
 */
static u64 pd_st_chi2_limit(u64 d)
{
	return d + 2 * (pd_isqrt64(20 * d) + 1) + 40;
}

/*
 * A copy always goes to its original's shard: the same key built again
 * (another struct, the same fields) has the same hash under every shard's
 * filter and the same shard; a key of other fields may go elsewhere, and
 * some do.
 */
static void pd_shard_copy_same_shard(struct kunit *test)
{
	struct pd_filter_req req;
	struct pd_filter_plan whole;
	struct pd_shards s;
	u64 id, moved = 0;
	u32 i;

	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF, 64 << 10);
	KUNIT_ASSERT_EQ(test, pd_st_new(test, &s, &req, 16, &whole, 3), 0);
	KUNIT_ASSERT_EQ(test, s.n, 16u);
	for (id = 0; id < 10000; id++) {
		struct pd_key a, b, c;
		u64 ha, hb, hc;

		pd_st_key(&a, id * 0x9e3779b97f4a7c15ULL);
		pd_st_key(&b, id * 0x9e3779b97f4a7c15ULL);
		pd_st_key(&c, id * 0x9e3779b97f4a7c15ULL + 1);
		ha = pd_shards_hash(&s, &a);
		hb = pd_shards_hash(&s, &b);
		hc = pd_shards_hash(&s, &c);
		KUNIT_ASSERT_EQ(test, ha, hb);
		KUNIT_ASSERT_TRUE(test, pd_shard_of(&s, ha) ==
				  pd_shard_of(&s, hb));
		KUNIT_ASSERT_LT(test, pd_shard_index(&s, ha), s.n);
		for (i = 0; i < s.n; i++)
			KUNIT_ASSERT_EQ(test, pd_filter_hash(&s.sh[i].f, &b), ha);
		moved += pd_shard_of(&s, hc) != pd_shard_of(&s, ha);
	}
	/* 15/16 of 10^4 move: 9375, sd 24 */
	KUNIT_EXPECT_GT(test, moved, 9375ULL - 5 * 25);
	KUNIT_EXPECT_LT(test, moved, 9375ULL + 5 * 25);
	pd_shards_destroy(&s);
}

/*
 * The shards' loads for 2^17 distinct keys (built, hashed with a fixed
 * key) are uniform: Pearson's statistic over the n shards, n - 1 degrees
 * of freedom, within the Laurent-Massart bound at e^-20.
 */
static void pd_shard_loads_uniform(struct kunit *test)
{
	static const u32 ns[] = { 2, 16, 256 };
	const u64 keys = 1 << 17;
	unsigned int ni;

	for (ni = 0; ni < PD_ARRAY_SIZE(ns); ni++) {
		struct pd_filter_req req;
		struct pd_filter_plan whole;
		struct pd_shards s;
		u64 id, chi, lim;
		u32 *load;

		pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF,
				       (u64)ns[ni] * PD_SHARD_MIN_BYTES);
		KUNIT_ASSERT_EQ(test, pd_st_new(test, &s, &req, ns[ni], &whole,
						11 + ni), 0);
		KUNIT_ASSERT_EQ(test, s.n, ns[ni]);
		load = kunit_kzalloc(test, s.n * sizeof(*load), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, load);
		for (id = 0; id < keys; id++) {
			struct pd_key key;

			pd_st_key(&key, id);
			load[pd_st_index(&s, pd_shards_hash(&s, &key))]++;
		}
		chi = pd_st_chi2(load, s.n);
		lim = pd_st_chi2_limit(s.n - 1);
		kunit_info(test, "n %u: chi-square %llu, bound %llu", s.n,
			   (unsigned long long)chi, (unsigned long long)lim);
		KUNIT_EXPECT_LE(test, chi, lim);
		pd_shards_destroy(&s);
	}
}

/*
 * Within one shard the bits a filter picks its cells by stay uniform:
 * the top four bits of h1 (the flat SBF's first probe, the blocked SBF's
 * line, a window's first probe, map(h1) in sbf.h) and of h2 (the flat
 * SBF's stride) of the keys of each of 16 shards, 15 degrees of freedom
 * each, within the bound at e^-20 (32 statistics: below 10^-7 in all). An
 * index taken from the same bits puts every key of a shard in one bin.
 */
static void pd_shard_cells_uniform(struct kunit *test)
{
	const u64 keys = 1 << 17;
	struct pd_filter_req req;
	struct pd_filter_plan whole;
	struct pd_shards s;
	u64 id, lim = pd_st_chi2_limit(15);
	u32 (*c1)[16], (*c2)[16], i;

	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF, 64 << 10);
	KUNIT_ASSERT_EQ(test, pd_st_new(test, &s, &req, 16, &whole, 5), 0);
	KUNIT_ASSERT_EQ(test, s.n, 16u);
	c1 = kunit_kzalloc(test, 16 * sizeof(*c1), GFP_KERNEL);
	c2 = kunit_kzalloc(test, 16 * sizeof(*c2), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c1);
	KUNIT_ASSERT_NOT_NULL(test, c2);
	for (id = 0; id < keys; id++) {
		struct pd_key key;
		u64 h;

		pd_st_key(&key, id);
		h = pd_shards_hash(&s, &key);
		i = pd_st_index(&s, h);
		c1[i][(u32)h >> 28]++;
		c2[i][(u32)(h >> 32) >> 28]++;
	}
	for (i = 0; i < s.n; i++) {
		u64 x1 = pd_st_chi2(c1[i], 16), x2 = pd_st_chi2(c2[i], 16);

		KUNIT_EXPECT_LE_MSG(test, x1, lim, "shard %u: h1", i);
		KUNIT_EXPECT_LE_MSG(test, x2, lim, "shard %u: h2", i);
	}
	pd_shards_destroy(&s);
}

/*
 * Independence of shard and cells, as the FP rate shows it: a stream of
 * new keys past the stable point, and in every shard (and over all) the
 * FP rate of new keys is the model's (plan.fp_bound: Eq. 8 for the flat
 * layout, pd_plan_fp_blocked() for the blocked one), within 5 binomial sd
 * plus 2% of the model for its independence assumption (the SBF's tests
 * measure the two models within about 1%). A shard whose keys shared the
 * bits that place their cells would crowd them into part of its cells.
 *
 * The stable point: a cell set by an element forgets its past, and it is
 * set or decremented with probability (K + P) / m per element of the
 * whole (a shard's m / n cells see 1 / n of the elements), so after
 * 20 m / (K + P) elements all but e^-20 of the start is forgotten.
 */
static void pd_shard_fp_stable(struct kunit *test)
{
	static const u8 layouts[] = {
		PKTDEDUP_LAYOUT_FLAT, PKTDEDUP_LAYOUT_BLOCKED,
	};
	const u64 q = 1000000;
	unsigned int li;

	for (li = 0; li < PD_ARRAY_SIZE(layouts); li++) {
		struct pd_filter_req req;
		struct pd_filter_plan whole;
		struct pd_pktinfo pi = { 0 };
		struct pd_shards s;
		u64 rng = 1000 + li, i, warm, fp = 0, model, got, sd, tol;
		u64 *sfp, *sq;
		u32 j;

		pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF, 64 << 10);
		pd_sbf_req(&req)->layout = layouts[li];
		KUNIT_ASSERT_EQ(test, pd_st_new(test, &s, &req, 16, &whole,
						21 + li), 0);
		KUNIT_ASSERT_EQ(test, s.n, 16u);
		KUNIT_ASSERT_EQ(test, (unsigned int)whole.layout,
				(unsigned int)layouts[li]);
		sfp = kunit_kzalloc(test, s.n * sizeof(*sfp), GFP_KERNEL);
		sq = kunit_kzalloc(test, s.n * sizeof(*sq), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, sfp);
		KUNIT_ASSERT_NOT_NULL(test, sq);
		warm = 20 * whole.cells / (whole.k + whole.p);
		/* a key's hash is uniform: random hashes are new keys */
		for (i = 0; i < warm; i++)
			pd_st_step(&s, pd_rng_next(&rng), &pi);
		for (i = 0; i < q; i++) {
			u64 h = pd_rng_next(&rng);
			bool dup = pd_st_step(&s, h, &pi);

			j = pd_st_index(&s, h);
			sq[j]++;
			sfp[j] += dup;
			fp += dup;
		}
		model = pd_q62_to_ppb(whole.fp_bound);
		got = fp * 1000000000ULL / q;
		sd = pd_isqrt64(model * (1000000000ULL - model) / q);
		tol = 5 * sd + model / 50;
		kunit_info(test, "layout %u, n %u, K %u P %u: fp %llu ppb, model %llu, tol %llu",
			   layouts[li], s.n, whole.k, whole.p,
			   (unsigned long long)got, (unsigned long long)model,
			   (unsigned long long)tol);
		KUNIT_EXPECT_LE(test, got, model + tol);
		KUNIT_EXPECT_GE(test, got + tol, model);
		for (j = 0; j < s.n; j++) {
			got = sfp[j] * 1000000000ULL / sq[j];
			sd = pd_isqrt64(model * (1000000000ULL - model) / sq[j]);
			tol = 5 * sd + model / 50;
			KUNIT_EXPECT_LE_MSG(test, got, model + tol,
					    "layout %u shard %u", layouts[li], j);
			KUNIT_EXPECT_GE_MSG(test, got + tol, model,
					    "layout %u shard %u", layouts[li], j);
		}
		pd_shards_destroy(&s);
	}
}

/*
 * The same in the window families, whose probes (enhanced double hashing,
 * timewin.h) take their start from the top bits of h1 and their stride
 * from those of h2: a sliding and a jumping window of 4096 packets a
 * shard, at capacity (twice the window of new keys stepped first), then
 * 5 * 10^5 new keys. The FP rate is at most the plan's Bloom bound at
 * capacity, within 5 binomial sd (+ 5), and at least half of it
 * (timewin_test.c's terms: a sliding window at capacity is at the bound;
 * a jumping one's current subwindow fills as it goes). A shard index from
 * the top bits of h2 crowds a shard's strides into 1/16 of their range,
 * which the jumping window's FP rate shows (twice its bound); the flat
 * SBF's barely. (4096 packets: the jumping window's planner, a Bloom
 * formula, underestimates small subwindows, by 12-20% at 1024 packets.)
 */
static void pd_shard_fp_windows(struct kunit *test)
{
	const u64 q = 500000, w = 16 * 4096;
	unsigned int kind;

	for (kind = PKTDEDUP_FILTER_KIND_SLIDING;
	     kind <= PKTDEDUP_FILTER_KIND_JUMPING; kind++) {
		struct pd_filter_req req;
		struct pd_filter_plan whole;
		struct pd_pktinfo pi = { 0 };
		struct pd_shards s;
		u64 rng = 2000 + kind, i, fp = 0, np, var, lim;

		pd_st_req(&req, kind, 1 << 20, w);
		KUNIT_ASSERT_EQ(test, pd_st_new(test, &s, &req, 16, &whole,
						41 + kind), 0);
		KUNIT_ASSERT_EQ(test, s.n, 16u);
		for (i = 0; i < 2 * w; i++)
			pd_st_step(&s, pd_rng_next(&rng), &pi);
		for (i = 0; i < q; i++)
			fp += pd_st_step(&s, pd_rng_next(&rng), &pi);
		np = pd_muldiv(q, whole.fp_bound, PD_Q62_ONE);
		var = pd_muldiv(np, PD_Q62_ONE - whole.fp_bound, PD_Q62_ONE);
		lim = np + 5 * pd_isqrt64(var) + 5;
		kunit_info(test, "%s, n %u, K %u, C %llu a shard: %llu fps in %llu, bound %llu",
			   pd_filter_family(kind)->name, s.n, whole.k,
			   (unsigned long long)whole.capacity / s.n,
			   (unsigned long long)fp, (unsigned long long)q,
			   (unsigned long long)np);
		KUNIT_EXPECT_LE(test, fp, lim);
		KUNIT_EXPECT_GE(test, 2 * fp, np);
		pd_shards_destroy(&s);
	}
}

/* The model's values of two plans are the same. */
static void pd_st_same_model(struct kunit *test,
			     const struct pd_filter_plan *a,
			     const struct pd_filter_plan *b)
{
	KUNIT_EXPECT_EQ(test, (unsigned int)a->kind, (unsigned int)b->kind);
	KUNIT_EXPECT_EQ(test, a->k, b->k);
	KUNIT_EXPECT_EQ(test, a->max, b->max);
	KUNIT_EXPECT_EQ(test, a->p, b->p);
	KUNIT_EXPECT_EQ(test, a->given, b->given);
	KUNIT_EXPECT_EQ(test, a->fp_bound, b->fp_bound);
	KUNIT_EXPECT_EQ(test, a->stable_zero, b->stable_zero);
	KUNIT_EXPECT_EQ(test, a->fn_rate, b->fn_rate);
	KUNIT_EXPECT_EQ(test, a->subwindows, b->subwindows);
	KUNIT_EXPECT_EQ(test, a->window_ns, b->window_ns);
	KUNIT_EXPECT_EQ(test, (unsigned int)a->layout,
			(unsigned int)b->layout);
}

/* Plan req in n shards: it must stay n; the shard's plan and the whole's. */
static void pd_st_plan(struct kunit *test, const struct pd_filter_req *req,
		       u32 n, struct pd_filter_plan *shard,
		       struct pd_filter_plan *whole)
{
	const char *why = NULL;
	u32 got = n;

	KUNIT_ASSERT_EQ(test, pd_shards_plan(req, &got, shard, whole, &why), 0);
	KUNIT_ASSERT_EQ(test, got, n);
}

/*
 * The whole's plan is a shard's with its sizes and counts n times, and
 * the model's values a shard's: an SBF with a gap (the gap a count: a
 * shard's is 1/n of it), packet windows (sliding, jumping) and a time
 * window with a rate (a count; the time is not). The shard is what its
 * family plans for 1/n of the memory and the counts. The whole takes no
 * more memory than asked, whether or not a shard's share is whole lines.
 */
static void pd_shard_plan_whole(struct kunit *test)
{
	static const u64 mems[] = { 1 << 20, 100000, 300000 };
	struct pd_filter_req req, r;
	struct pd_filter_plan shard, whole, want;
	const char *why = NULL;
	unsigned int i, kind;

	/* SBF, 1 MiB in 16, gap 1600: a shard's gap is 100 */
	pd_st_req(&req, PKTDEDUP_FILTER_KIND_SBF, 1 << 20, 0);
	pd_sbf_req(&req)->gap = 1600;
	pd_st_plan(test, &req, 16, &shard, &whole);
	r = req;
	r.mem_bytes = (1 << 20) / 16;
	pd_sbf_req(&r)->gap = 100;
	KUNIT_ASSERT_EQ(test, pd_filter_plan(&r, &want, &why), 0);
	KUNIT_EXPECT_EQ(test, shard.cells, want.cells);
	KUNIT_EXPECT_EQ(test, shard.bytes, want.bytes);
	KUNIT_EXPECT_EQ(test, shard.gap, 100ULL);
	pd_st_same_model(test, &shard, &want);
	pd_st_same_model(test, &whole, &shard);
	KUNIT_EXPECT_EQ(test, whole.cells, 16 * shard.cells);
	KUNIT_EXPECT_EQ(test, whole.bytes, 16 * shard.bytes);
	KUNIT_EXPECT_EQ(test, whole.gap, 1600ULL);
	KUNIT_EXPECT_EQ(test, whole.fn_rate,
			pd_plan_fn_rate(shard.max, shard.k, shard.p,
					shard.cells, 100));
	KUNIT_EXPECT_EQ(test, pd_shards_mem_bytes(&shard, 16), whole.bytes);

	/* packet windows: 16000 packets, 1000 a shard */
	for (kind = PKTDEDUP_FILTER_KIND_SLIDING;
	     kind <= PKTDEDUP_FILTER_KIND_JUMPING; kind++) {
		pd_st_req(&req, kind, 1 << 20, 16 * 1000);
		pd_st_plan(test, &req, 16, &shard, &whole);
		pd_st_req(&r, kind, 1 << 20, 1000);
		KUNIT_ASSERT_EQ(test, pd_filter_plan(&r, &want, &why), 0);
		pd_st_same_model(test, &shard, &want);
		pd_st_same_model(test, &whole, &shard);
		KUNIT_EXPECT_EQ(test, shard.window_pkts, 1000ULL);
		KUNIT_EXPECT_EQ(test, shard.capacity, want.capacity);
		KUNIT_EXPECT_EQ(test, shard.cells, want.cells);
		KUNIT_EXPECT_EQ(test, whole.window_pkts, 16000ULL);
		KUNIT_EXPECT_EQ(test, whole.capacity, 16 * shard.capacity);
		KUNIT_EXPECT_EQ(test, whole.clean_pkts, 16 * shard.clean_pkts);
		KUNIT_EXPECT_EQ(test, whole.cells, 16 * shard.cells);
		KUNIT_EXPECT_GE(test, whole.bytes, 16 * shard.bytes);
		KUNIT_EXPECT_LT(test, whole.bytes, 16 * (shard.bytes + 64));
	}
	/* a time window of 1 ms at 1.6 Mpps: 100 kpps a shard */
	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SLIDING, 1 << 20);
	pd_tw_req(&req)->window_ns = 1000000;
	pd_tw_req(&req)->rate = 1600000;
	pd_st_plan(test, &req, 16, &shard, &whole);
	r = req;
	r.mem_bytes = (1 << 20) / 16;
	pd_tw_req(&r)->rate = 100000;
	KUNIT_ASSERT_EQ(test, pd_filter_plan(&r, &want, &why), 0);
	pd_st_same_model(test, &shard, &want);
	KUNIT_EXPECT_EQ(test, shard.capacity, want.capacity);
	KUNIT_EXPECT_EQ(test, whole.window_ns, 1000000ULL);
	KUNIT_EXPECT_EQ(test, whole.capacity, 16 * shard.capacity);
	KUNIT_EXPECT_EQ(test, whole.rate, 16 * shard.rate);

	/*
	 * Memory: the whole's bytes (what pd_shards_mem_bytes() allocates)
	 * within the memory asked, for every family sized by memory, at
	 * shares that are and are not whole lines.
	 */
	for (kind = 0; kind < PD_FILTER_NKINDS; kind++) {
		if (pd_filter_family(kind)->window)
			continue;
		for (i = 0; i < PD_ARRAY_SIZE(mems); i++) {
			u32 n;

			for (n = 1; n <= 16; n *= 2) {
				u32 got = n;

				pd_filter_req_defaults(&req, kind, mems[i]);
				KUNIT_ASSERT_EQ(test,
						pd_shards_plan(&req, &got, &shard,
							       &whole, &why), 0);
				KUNIT_EXPECT_LE_MSG(test, whole.bytes, mems[i],
						    "%s, n %u",
						    pd_filter_family(kind)->name,
						    got);
				KUNIT_EXPECT_EQ(test,
						pd_shards_mem_bytes(&shard, got),
						whole.bytes);
			}
		}
	}
}

/*
 * Fewer shards where a shard would be too small (under
 * PD_SHARD_MIN_BYTES, a line) or its family refuses its share: 4 lines in
 * 64 is 4 of a line; 4 KiB of an SBF of P = 12000 is 2 (a shard of 2^14
 * cells takes it, one of 2^13 is refused); a count that is no power of
 * two is the one below it, none is one, and no more than PD_SHARDS_MAX.
 * The automatic count: 16 a CPU, a power of two, none under
 * PD_SHARD_AUTO_BYTES, at most the most.
 */
static void pd_shard_plan_halves(struct kunit *test)
{
	struct pd_filter_req req;
	struct pd_filter_plan shard, whole;
	const char *why = NULL;
	u32 n;

	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF,
			       4 * PD_SHARD_MIN_BYTES);
	n = 64;
	KUNIT_ASSERT_EQ(test, pd_shards_plan(&req, &n, &shard, &whole, &why), 0);
	KUNIT_EXPECT_EQ(test, n, 4u);
	KUNIT_EXPECT_EQ(test, shard.bytes, (u64)PD_SHARD_MIN_BYTES);
	KUNIT_EXPECT_EQ(test, whole.bytes, 4ULL * PD_SHARD_MIN_BYTES);
	n = 64;
	req.mem_bytes = 4 * PD_SHARD_MIN_BYTES - 1;
	KUNIT_ASSERT_EQ(test, pd_shards_plan(&req, &n, &shard, &whole, &why), 0);
	KUNIT_EXPECT_EQ(test, n, 2u);

	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF, 4 << 10);
	pd_sbf_req(&req)->max = 1;
	pd_sbf_req(&req)->k = 3;
	pd_sbf_req(&req)->p = 12000;
	n = 16;
	KUNIT_ASSERT_EQ(test, pd_shards_plan(&req, &n, &shard, &whole, &why), 0);
	KUNIT_EXPECT_EQ(test, n, 2u);
	KUNIT_EXPECT_EQ(test, shard.cells, 1ULL << 14);
	KUNIT_EXPECT_EQ(test, shard.p, 12000u);

	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF, 1 << 20);
	n = 6;
	KUNIT_ASSERT_EQ(test, pd_shards_plan(&req, &n, &shard, &whole, &why), 0);
	KUNIT_EXPECT_EQ(test, n, 4u);
	n = 0;
	KUNIT_ASSERT_EQ(test, pd_shards_plan(&req, &n, &shard, &whole, &why), 0);
	KUNIT_EXPECT_EQ(test, n, 1u);
	req.mem_bytes = 256ULL << 20;
	n = 1 << 20;
	KUNIT_ASSERT_EQ(test, pd_shards_plan(&req, &n, &shard, &whole, &why), 0);
	KUNIT_EXPECT_EQ(test, n, (u32)PD_SHARDS_MAX);
	/* the automatic count: 16 a CPU, a power of two, at most the most */
	KUNIT_EXPECT_EQ(test, pd_shards_auto(1, 1 << 20), 16u);
	KUNIT_EXPECT_EQ(test, pd_shards_auto(2, 1 << 20), 32u);
	KUNIT_EXPECT_EQ(test, pd_shards_auto(3, 1 << 20), 64u);
	KUNIT_EXPECT_EQ(test, pd_shards_auto(100000, 1ULL << 40),
			(u32)PD_SHARDS_MAX);
	KUNIT_EXPECT_EQ(test, pd_shards_auto(2, 32 * PD_SHARD_AUTO_BYTES), 32u);
	KUNIT_EXPECT_EQ(test, pd_shards_auto(2, 32 * PD_SHARD_AUTO_BYTES - 1),
			16u);
	KUNIT_EXPECT_EQ(test, pd_shards_auto(2, 2 * PD_SHARD_AUTO_BYTES), 2u);
	KUNIT_EXPECT_EQ(test, pd_shards_auto(2, PD_SHARD_AUTO_BYTES - 1), 1u);
}

/*
 * A window of W packets is W / n packets a shard in the sliding and
 * jumping windows (rounded to nearest); the whole reports W when n
 * divides it, else n times a shard's. A shard gets no less than
 * PD_SHARD_MIN_WINDOW packets of it: fewer shards instead (a window of 16
 * packets in 16 shards, 1 a shard, would find no copy).
 */
static void pd_shard_plan_window(struct kunit *test)
{
	static const u64 ws[] = { PD_SHARD_MIN_WINDOW, 1024, 100000, 1 << 20 };
	static const struct {
		u64 w;		/* the whole's window, packets */
		u32 n;		/* the shards it gets of 16 */
		u64 shard;	/* a shard's window */
	} few[] = {
		{ 16, 1, 16 },
		{ PD_SHARD_MIN_WINDOW * 16 - 1, 8, 2 * PD_SHARD_MIN_WINDOW },
		{ 1000, 2, 500 },
		{ 4000, 8, 500 },
		/* 4100 in 16: 256.25 -> 256 a shard */
		{ 4100, 16, 256 },
	};
	unsigned int kind, i;

	for (kind = PKTDEDUP_FILTER_KIND_SLIDING;
	     kind <= PKTDEDUP_FILTER_KIND_JUMPING; kind++) {
		for (i = 0; i < PD_ARRAY_SIZE(ws); i++) {
			struct pd_filter_req req;
			struct pd_filter_plan shard, whole;

			pd_st_req(&req, kind, 1 << 20, 16 * ws[i]);
			pd_st_plan(test, &req, 16, &shard, &whole);
			KUNIT_EXPECT_EQ(test, shard.window_pkts, ws[i]);
			KUNIT_EXPECT_EQ(test, whole.window_pkts, 16 * ws[i]);
			KUNIT_EXPECT_EQ(test, whole.window_ns, 0ULL);
		}
		for (i = 0; i < PD_ARRAY_SIZE(few); i++) {
			struct pd_filter_req req;
			struct pd_filter_plan shard, whole;
			const char *why = NULL;
			u32 n = 16;

			pd_st_req(&req, kind, 1 << 20, few[i].w);
			KUNIT_ASSERT_EQ(test, pd_shards_plan(&req, &n, &shard,
							     &whole, &why), 0);
			KUNIT_EXPECT_EQ(test, n, few[i].n);
			KUNIT_EXPECT_EQ(test, shard.window_pkts, few[i].shard);
			KUNIT_EXPECT_EQ(test, whole.window_pkts,
					few[i].shard * few[i].n);
		}
	}
}

/*
 * A request its family refuses is refused as the family refuses it, with
 * its error and its words, whatever n; one that stands is planned.
 */
static void pd_shard_plan_refused(struct kunit *test)
{
	struct pd_filter_req req;
	struct pd_filter_plan shard, whole, one;
	const char *why, *fwhy;
	unsigned int c;

	for (c = 0; c < 5; c++) {
		u32 n = 16;
		int err;

		switch (c) {
		case 0:	/* no window */
			pd_filter_req_defaults(&req,
					       PKTDEDUP_FILTER_KIND_SLIDING,
					       1 << 20);
			break;
		case 1:	/* two windows */
			pd_st_req(&req, PKTDEDUP_FILTER_KIND_SLIDING, 1 << 20,
				  1000);
			pd_tw_req(&req)->window_ns = 1000000;
			break;
		case 2:	/* fps of 1 */
			pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF,
					       1 << 20);
			req.fps_ppb = 1000000000;
			break;
		case 3:	/* k of 17 */
			pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_BSBF,
					       1 << 20);
			pd_setting_set(&req,
				       pd_filter_setting(&pd_bsbf_family,
							 PKTDEDUP_A_SETTINGS_K),
				       17);
			break;
		default:	/* no such family */
			pd_filter_req_defaults(&req, PD_FILTER_NKINDS, 1 << 20);
			break;
		}
		fwhy = NULL;
		err = pd_filter_plan(&req, &one, &fwhy);
		KUNIT_ASSERT_LT_MSG(test, err, 0, "case %u", c);
		KUNIT_ASSERT_NOT_NULL(test, fwhy);
		why = NULL;
		KUNIT_EXPECT_EQ_MSG(test,
				    pd_shards_plan(&req, &n, &shard, &whole,
						   &why), err, "case %u", c);
		KUNIT_ASSERT_NOT_NULL(test, why);
		KUNIT_EXPECT_STREQ(test, why, fwhy);
	}
}

/*
 * One shard is one filter: its plan and the whole's are the family's plan
 * of the request itself, for every family, sizes and model alike.
 */
static void pd_shard_plan_one(struct kunit *test)
{
	static const u64 mems[] = { 4096, 100000, 1 << 20 };
	unsigned int kind, i;

	for (kind = 0; kind < PD_FILTER_NKINDS; kind++) {
		for (i = 0; i < PD_ARRAY_SIZE(mems); i++) {
			struct pd_filter_req req;
			struct pd_filter_plan shard, whole, one;
			const char *why = NULL;

			pd_st_req(&req, kind, mems[i], 5000);
			KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &one, &why), 0);
			pd_st_plan(test, &req, 1, &shard, &whole);
			pd_st_same_model(test, &shard, &one);
			pd_st_same_model(test, &whole, &one);
			KUNIT_EXPECT_EQ(test, whole.cells, one.cells);
			KUNIT_EXPECT_EQ_MSG(test, whole.bytes, one.bytes,
					    "%s, %llu bytes",
					    pd_filter_family(kind)->name,
					    (unsigned long long)mems[i]);
			KUNIT_EXPECT_EQ(test, whole.gap, one.gap);
			KUNIT_EXPECT_EQ(test, whole.window_pkts,
					one.window_pkts);
			KUNIT_EXPECT_EQ(test, whole.capacity, one.capacity);
		}
	}
}

/*
 * Fixed seeds: a filter of one shard seeded by pd_shards_seed() from a
 * state is the filter pd_filter_seed() makes of the same state, verdict
 * for verdict over a stream with repeats and cell for cell at its end
 * (every family); the state advances the same.
 */
static void pd_shard_seed_one_filter(struct kunit *test)
{
	unsigned int kind;

	for (kind = 0; kind < PD_FILTER_NKINDS; kind++) {
		struct pd_filter_req req;
		struct pd_filter_plan whole, plan;
		struct pd_shards s;
		struct pd_filter f;
		u64 st1 = 77, st2 = 77, rng = 5, i, diff = 0, dups = 0;
		const char *why = NULL;
		u32 n = 1;

		pd_st_req(&req, kind, 16 << 10, 500);
		KUNIT_ASSERT_EQ(test, pd_shards_create(&s, &req, n, &whole,
						       &why), 0);
		KUNIT_ASSERT_EQ(test, s.n, 1u);
		KUNIT_ASSERT_EQ(test, pd_filter_create(&f, &req, &plan, &why),
				0);
		pd_shards_seed(&s, &st1);
		pd_filter_seed(&f, &st2);
		KUNIT_EXPECT_EQ(test, st1, st2);
		KUNIT_EXPECT_EQ(test, s.sh[0].f.hkey.k[0], f.hkey.k[0]);
		KUNIT_EXPECT_EQ(test, s.sh[0].f.hkey.k[1], f.hkey.k[1]);
		for (i = 0; i < 30000; i++) {
			struct pd_pktinfo pi = { .dscp = (u8)(i % 64) };
			struct pd_key key;
			u64 h;
			bool a, b;

			pd_st_key(&key, pd_rng_next(&rng) % 8000);
			h = pd_shards_hash(&s, &key);
			KUNIT_ASSERT_EQ(test, h, pd_filter_hash(&f, &key));
			KUNIT_ASSERT_TRUE(test, pd_shard_of(&s, h) == &s.sh[0]);
			a = pd_st_step(&s, h, &pi);
			b = pd_filter_step_hash(&f, h, &pi);
			diff += a != b;
			dups += a;
		}
		KUNIT_EXPECT_EQ_MSG(test, diff, 0ULL, "%s", f.ops->name);
		/* repeats, found and missed: the stream exercises both */
		KUNIT_EXPECT_GT(test, dups, 0ULL);
		KUNIT_EXPECT_LT(test, dups, 30000ULL);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(s.sh[0].f.mem, f.mem,
						 plan.bytes), 0,
				    "%s", f.ops->name);
		pd_filter_destroy(&f);
		pd_shards_destroy(&s);
	}
}

/*
 * In 16 shards: every shard has shard 0's hash key; shard 0 is seeded as
 * pd_filter_seed() seeds one filter and shard i > 0 takes the state's
 * next draw for its generator (a filter given those seeds by
 * pd_filter_set_seeds() has its generator's state); two builds from one
 * seed give the same verdicts step for step and the same cells; another
 * seed other cells.
 */
static void pd_shard_seed_reproducible(struct kunit *test)
{
	struct pd_filter_req req;
	struct pd_filter_plan whole, plan;
	struct pd_shards a, b, c;
	struct pd_filter one;
	u64 st = 99, ref = 99, rng = 3, i, diff = 0, dups = 0;
	const char *why = NULL;
	u32 j;

	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF, 64 << 10);
	KUNIT_ASSERT_EQ(test, pd_shards_create(&a, &req, 16, &whole, &why), 0);
	KUNIT_ASSERT_EQ(test, a.n, 16u);
	pd_shards_seed(&a, &st);
	/* the reference: pd_filter_seed()'s three draws, then one a shard */
	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF, 4096);
	KUNIT_ASSERT_EQ(test, pd_filter_create(&one, &req, &plan, &why), 0);
	pd_filter_seed(&one, &ref);
	KUNIT_EXPECT_EQ(test, a.sh[0].f.hkey.k[0], one.hkey.k[0]);
	KUNIT_EXPECT_EQ(test, a.sh[0].f.hkey.k[1], one.hkey.k[1]);
	/* the key the shards are hashed with, kept apart from their lines */
	KUNIT_EXPECT_EQ(test, a.hkey.k[0], one.hkey.k[0]);
	KUNIT_EXPECT_EQ(test, a.hkey.k[1], one.hkey.k[1]);
	KUNIT_EXPECT_EQ(test, pd_sbf_of(&a.sh[0].f)->gen.rng,
			pd_sbf_of(&one)->gen.rng);
	for (j = 1; j < a.n; j++) {
		pd_filter_set_seeds(&one, one.hkey.k[0], one.hkey.k[1],
				    pd_rng_next(&ref));
		KUNIT_EXPECT_EQ(test, a.sh[j].f.hkey.k[0], a.sh[0].f.hkey.k[0]);
		KUNIT_EXPECT_EQ(test, a.sh[j].f.hkey.k[1], a.sh[0].f.hkey.k[1]);
		KUNIT_EXPECT_EQ_MSG(test, pd_sbf_of(&a.sh[j].f)->gen.rng,
				    pd_sbf_of(&one)->gen.rng, "shard %u", j);
		KUNIT_EXPECT_EQ(test, pd_sbf_of(&a.sh[j].f)->gen.next_dec,
				pd_sbf_of(&one)->gen.next_dec);
		KUNIT_EXPECT_NE(test, pd_sbf_of(&a.sh[j].f)->gen.rng,
				pd_sbf_of(&a.sh[j - 1].f)->gen.rng);
	}
	KUNIT_EXPECT_EQ(test, st, ref);
	pd_filter_destroy(&one);

	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF, 64 << 10);
	KUNIT_ASSERT_EQ(test, pd_st_new(test, &b, &req, 16, &whole, 99), 0);
	KUNIT_ASSERT_EQ(test, pd_st_new(test, &c, &req, 16, &whole, 98), 0);
	for (i = 0; i < 200000; i++) {
		struct pd_pktinfo pi = { 0 };
		u64 id = pd_rng_next(&rng) % 50000;
		bool va = pd_st_step_id(&a, id, &pi);

		diff += va != pd_st_step_id(&b, id, &pi);
		pd_st_step_id(&c, id, &pi);
		dups += va;
	}
	KUNIT_EXPECT_EQ(test, diff, 0ULL);
	KUNIT_EXPECT_GT(test, dups, 0ULL);
	KUNIT_EXPECT_LT(test, dups, 200000ULL);
	KUNIT_EXPECT_EQ(test, memcmp(a.mem, b.mem, whole.bytes), 0);
	KUNIT_EXPECT_NE(test, memcmp(a.mem, c.mem, whole.bytes), 0);
	pd_shards_destroy(&a);
	pd_shards_destroy(&b);
	pd_shards_destroy(&c);
}

/* o's counts, each the sum of the shards' own reads of budget each. */
static void pd_st_occ_check(struct kunit *test, const struct pd_shards *s,
			    const struct pd_filter_occ *o, u64 each)
{
	struct pd_filter_occ sum = { 0 }, one;
	u32 i, j;

	for (i = 0; i < s->n; i++) {
		pd_filter_occupancy_within(&s->sh[i].f, &one, each);
		sum.units += one.units;
		sum.zero += one.zero;
		sum.set += one.set;
		sum.arrays = one.arrays;
		for (j = 0; j < one.arrays; j++)
			sum.load[j] += one.load[j];
	}
	KUNIT_EXPECT_EQ(test, o->units, sum.units);
	KUNIT_EXPECT_EQ(test, o->zero, sum.zero);
	KUNIT_EXPECT_EQ(test, o->set, sum.set);
	KUNIT_EXPECT_EQ(test, o->arrays, sum.arrays);
	for (j = 0; j < PD_FILTER_MAX_LOADS; j++)
		KUNIT_EXPECT_EQ(test, o->load[j], sum.load[j]);
}

/*
 * The whole's occupancy is the sum of the shards' reads: a full read is
 * the sum of their exact occupancies; a read of B bytes reads B / n of
 * each (a line at least), for a counting family (SBF) and a bit-array one
 * (BSBF, its loads summed array by array).
 */
static void pd_shard_occupancy_sum(struct kunit *test)
{
	static const u8 kinds[] = {
		PKTDEDUP_FILTER_KIND_SBF, PKTDEDUP_FILTER_KIND_BSBF,
	};
	unsigned int ki;

	for (ki = 0; ki < PD_ARRAY_SIZE(kinds); ki++) {
		struct pd_filter_req req;
		struct pd_filter_plan whole;
		struct pd_filter_occ o;
		struct pd_pktinfo pi = { 0 };
		struct pd_shards s;
		u64 i;

		pd_filter_req_defaults(&req, kinds[ki], 64 << 10);
		KUNIT_ASSERT_EQ(test, pd_st_new(test, &s, &req, 8, &whole, 4),
				0);
		KUNIT_ASSERT_EQ(test, s.n, 8u);
		for (i = 0; i < 50000; i++)
			pd_st_step_id(&s, i, &pi);
		pd_shards_occupancy(&s, &o, PD_OCC_ALL);
		KUNIT_EXPECT_EQ(test, o.units, kinds[ki] ==
				PKTDEDUP_FILTER_KIND_SBF ? whole.cells :
				whole.cells * whole.k);
		/* busy, not full */
		KUNIT_EXPECT_GT(test, o.zero + o.set, 0ULL);
		KUNIT_EXPECT_LT(test, o.zero + o.set, o.units);
		pd_st_occ_check(test, &s, &o, PD_OCC_ALL);
		pd_shards_occupancy(&s, &o, 8192);
		pd_st_occ_check(test, &s, &o, 1024);
		pd_shards_occupancy(&s, &o, 100);
		pd_st_occ_check(test, &s, &o, 64);
		pd_shards_destroy(&s);
	}
}

/*
 * The whole's window state from its shards' (pd_shards_window_add()):
 * entries, early expiries and capacities summed, the effective and
 * shortest windows the least, a window of packets n times a shard's (a
 * time window as it is); for a packet window (sliding, jumping) and a time
 * window that a flood shortens (early expiries).
 */
static void pd_shard_window_sum(struct kunit *test)
{
	unsigned int c;

	for (c = 0; c < 3; c++) {
		struct pd_filter_req req;
		struct pd_filter_plan whole;
		struct pd_filter_win w, sum, ref = { 0 };
		struct pd_shards s;
		u64 i, x;
		u32 j;

		if (c < 2) {
			pd_st_req(&req, c ? PKTDEDUP_FILTER_KIND_JUMPING :
				  PKTDEDUP_FILTER_KIND_SLIDING, 1 << 20,
				  8 * 700);
		} else {
			/* 1 ms at 800 kpps, a packet a ns: a flood */
			pd_filter_req_defaults(&req,
					       PKTDEDUP_FILTER_KIND_SLIDING,
					       1 << 20);
			pd_tw_req(&req)->window_ns = 1000000;
			pd_tw_req(&req)->rate = 800000;
		}
		KUNIT_ASSERT_EQ(test, pd_st_new(test, &s, &req, 8, &whole, 6),
				0);
		KUNIT_ASSERT_EQ(test, s.n, 8u);
		for (i = 0; i < 20000; i++) {
			struct pd_pktinfo pi = { .now = 1000 + i };

			/* a copy now and then */
			pd_st_step_id(&s, i % 7 ? i : i / 2, &pi);
		}
		x = c < 2 ? s.n : 1;
		for (j = 0; j < s.n; j++) {
			KUNIT_ASSERT_TRUE(test, pd_filter_window(&s.sh[j].f, &w));
			pd_shards_window_add(&sum, &w, s.n, j == 0);
			if (!j) {
				ref = w;
				ref.window = w.window * x;
				ref.effective = w.effective * x;
				ref.shortest = w.shortest * x;
				continue;
			}
			ref.entries += w.entries;
			ref.early += w.early;
			ref.capacity += w.capacity;
			ref.stuck += w.stuck;
			ref.effective = PD_MIN(ref.effective, w.effective * x);
			ref.shortest = PD_MIN(ref.shortest, w.shortest * x);
		}
		KUNIT_EXPECT_EQ(test, sum.timed, c == 2);
		KUNIT_EXPECT_EQ(test, sum.window, c < 2 ? 8 * 700ULL : 1000000ULL);
		KUNIT_EXPECT_EQ(test, sum.window, ref.window);
		KUNIT_EXPECT_EQ(test, sum.entries, ref.entries);
		KUNIT_EXPECT_EQ(test, sum.early, ref.early);
		KUNIT_EXPECT_EQ(test, sum.capacity, ref.capacity);
		KUNIT_EXPECT_EQ(test, sum.capacity, whole.capacity);
		KUNIT_EXPECT_EQ(test, sum.effective, ref.effective);
		KUNIT_EXPECT_EQ(test, sum.shortest, ref.shortest);
		KUNIT_EXPECT_EQ(test, sum.subwindows, ref.subwindows);
		KUNIT_EXPECT_GT(test, sum.entries, 0ULL);
		if (c == 2) {
			/* 2500 packets a shard in 20 us, room for 141 */
			KUNIT_EXPECT_GT(test, sum.early, 0ULL);
			KUNIT_EXPECT_LT(test, sum.shortest, sum.window);
		}
		pd_shards_destroy(&s);
	}
}

/*
 * Every family plans in 16 shards, builds, and steps 10^4 elements:
 * 5000 new keys, each followed at once by its copy (a gap of 1, in the
 * whole stream and so in its shard). Every copy is found, but by the
 * landmark window, which misses a copy only across a landmark: at most
 * one a window of a shard's packets. A new key is a duplicate only by a
 * false positive: far from the stable point, at most fp_bound of them
 * (+ 5 sd).
 */
static void pd_shard_every_family(struct kunit *test)
{
	const u64 pairs = 5000, w = 16 * PD_SHARD_MIN_WINDOW;
	unsigned int kind;

	for (kind = 0; kind < PD_FILTER_NKINDS; kind++) {
		const struct pd_filter_ops *ops = pd_filter_families[kind];
		struct pd_filter_req req;
		struct pd_filter_plan whole;
		struct pd_shards s;
		u64 i, fn = 0, fp = 0, miss, np, lim;

		KUNIT_ASSERT_NOT_NULL(test, ops);
		pd_st_req(&req, kind, 1 << 20, w);
		KUNIT_ASSERT_EQ(test, pd_st_new(test, &s, &req, 16, &whole,
						31 + kind), 0);
		KUNIT_EXPECT_EQ_MSG(test, s.n, 16u, "%s", ops->name);
		KUNIT_EXPECT_EQ(test, (unsigned int)whole.kind, kind);
		for (i = 0; i < pairs; i++) {
			struct pd_pktinfo pi = { .dscp = (u8)(i % 64),
						 .mark = (u32)i };
			u64 id = 1000000 + i * 7919;

			fp += pd_st_step_id(&s, id, &pi);
			fn += !pd_st_step_id(&s, id, &pi);
		}
		/* a landmark a shard's window: pairs * 2 / (w / 16) of them */
		miss = kind == PKTDEDUP_FILTER_KIND_LANDMARK ?
		       2 * pairs * 16 / w + s.n : 0;
		np = pd_muldiv(pairs, whole.fp_bound, PD_Q62_ONE);
		lim = np + 5 * pd_isqrt64(np) + 5;
		kunit_info(test, "%s: %llu of %llu copies missed, %llu of the new keys found",
			   ops->name, (unsigned long long)fn,
			   (unsigned long long)pairs, (unsigned long long)fp);
		KUNIT_EXPECT_LE_MSG(test, fn, miss, "%s", ops->name);
		KUNIT_EXPECT_LE_MSG(test, fp, lim, "%s", ops->name);
		pd_shards_destroy(&s);
	}
}

/*
 * The lock-free step (filter.h's step_cpu) with one CPU stepping is the
 * filter's own step: two filters of the same seed, one stepped by
 * pd_filter_step_hash(), the other by pd_filter_step_cpu() with a copy of
 * its generator, give the same verdict at every element of a stream with
 * repeats, the same cells at its end and generators in the same state;
 * every cell width, both layouts, P 0 (no decrements) and a run of P that
 * wraps at m or inside a line.
 */
static void pd_shard_lockfree_twin(struct kunit *test)
{
	static const struct {
		u8 max, k, layout;
		u32 p;
		u64 mem;
	} cfg[] = {
		{ 1, 3, PKTDEDUP_LAYOUT_FLAT, 11, 4096 },
		{ 3, 4, PKTDEDUP_LAYOUT_FLAT, 40, 4096 },
		{ 15, 2, PKTDEDUP_LAYOUT_FLAT, 7, 1000 },
		{ 255, 3, PKTDEDUP_LAYOUT_FLAT, 3, 1024 },
		{ 1, 3, PKTDEDUP_LAYOUT_FLAT, 0, 4096 },
		{ 1, 3, PKTDEDUP_LAYOUT_BLOCKED, 30, 4096 },
		{ 1, 5, PKTDEDUP_LAYOUT_BLOCKED, 500, 8192 },
		{ 1, 2, PKTDEDUP_LAYOUT_BLOCKED, 9, 1024 },
	};
	unsigned int ci, i, diff, dups;

	for (ci = 0; ci < PD_ARRAY_SIZE(cfg); ci++) {
		struct pd_filter_plan plan;
		struct pd_filter_req req;
		struct pd_filter a, b;
		struct pd_filter_cpu c;
		struct pd_pktinfo pi = { 0 };
		const char *why = NULL;
		u64 sa = 90 + ci, sb = 90 + ci;
		const struct pd_sbf *x, *y;

		KUNIT_ASSERT_TRUE(test,
				  pd_filter_kind_lockfree(PKTDEDUP_FILTER_KIND_SBF));
		pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF,
				       cfg[ci].mem);
		pd_sbf_req(&req)->max = cfg[ci].max;
		pd_sbf_req(&req)->k = cfg[ci].k;
		pd_sbf_req(&req)->p = cfg[ci].p;
		pd_sbf_req(&req)->layout = cfg[ci].layout;
		KUNIT_ASSERT_EQ_MSG(test, pd_filter_create(&a, &req, &plan, &why),
				    0, "%s", why);
		KUNIT_ASSERT_EQ_MSG(test, pd_filter_create(&b, &req, &plan, &why),
				    0, "%s", why);
		KUNIT_ASSERT_EQ(test, plan.p, cfg[ci].p);
		pd_filter_seed(&a, &sa);
		pd_filter_seed(&b, &sb);
		pd_filter_cpu_init(&b, &c, NULL);
		diff = 0;
		dups = 0;
		for (i = 0; i < 20000; i++) {
			struct pd_key key;
			bool da, db;

			/* a key again every third element, 50 back */
			pd_st_key(&key, i % 3 || i < 50 ? i : i - 50);
			da = pd_filter_step_hash(&a, pd_filter_hash(&a, &key),
						 &pi);
			db = pd_filter_step_cpu(&b, &c,
						pd_filter_hash(&b, &key), &pi);
			diff += da != db;
			dups += da;
		}
		x = pd_sbf_of(&a);
		y = pd_sbf_of(&b);
		KUNIT_EXPECT_EQ_MSG(test, diff, 0U, "config %u", ci);
		KUNIT_EXPECT_EQ_MSG(test,
				    memcmp(x->words, y->words,
					   (size_t)x->nwords * sizeof(u64)),
				    0, "config %u", ci);
		KUNIT_EXPECT_EQ(test, ((struct pd_sbf_gen *)&c)->rng,
				x->gen.rng);
		KUNIT_EXPECT_EQ(test, ((struct pd_sbf_gen *)&c)->next_dec,
				x->gen.next_dec);
		/* b's own generator was never drawn from */
		if (cfg[ci].p)
			KUNIT_EXPECT_NE(test, y->gen.rng, x->gen.rng);
		/* both verdicts were given */
		KUNIT_EXPECT_GT_MSG(test, dups, 0U, "config %u", ci);
		KUNIT_EXPECT_LT_MSG(test, dups, 20000U, "config %u", ci);
		pd_filter_destroy(&a);
		pd_filter_destroy(&b);
	}
}

/*
 * The shared filter's plan: the SBF with no shard count asked is one
 * filter stepped lock-free (its plan the family's of the request, shared
 * set); with a count asked, or a family without a lock-free step, shards
 * with locks.
 */
static void pd_shard_plan_lockfree(struct kunit *test)
{
	struct pd_filter_plan shard, whole, one;
	struct pd_filter_req req, sreq;
	const char *why = NULL;
	unsigned int kind;

	for (kind = 0; kind < PD_FILTER_NKINDS; kind++) {
		bool lf = !!pd_filter_family(kind)->step_cpu;

		pd_st_req(&req, kind, 1 << 20, 1 << 16);
		sreq = req;
		sreq.shared = true;
		KUNIT_ASSERT_EQ(test, pd_filter_plan(&sreq, &one, &why), 0);
		KUNIT_ASSERT_EQ(test,
				pd_shards_plan_shared(&req, 0, 2, &shard, &whole,
						      &why), 0);
		KUNIT_EXPECT_EQ(test, lf, kind == PKTDEDUP_FILTER_KIND_SBF);
		KUNIT_EXPECT_EQ(test, whole.lockfree, lf);
		KUNIT_EXPECT_EQ(test, shard.lockfree, lf);
		KUNIT_EXPECT_EQ(test, pd_filter_kind_lockfree(kind), lf);
		if (lf) {
			KUNIT_EXPECT_EQ(test, whole.shards, 1U);
			pd_st_same_model(test, &whole, &one);
			KUNIT_EXPECT_EQ(test, whole.bytes, one.bytes);
			KUNIT_EXPECT_TRUE(test,
					  !!pd_filter_family(kind)->cpu_init);
		} else {
			/* 16 per CPU, windows permitting */
			KUNIT_EXPECT_GT(test, whole.shards, 1U);
		}
		KUNIT_ASSERT_EQ(test,
				pd_shards_plan_shared(&req, 8, 2, &shard, &whole,
						      &why), 0);
		KUNIT_EXPECT_FALSE(test, whole.lockfree);
		KUNIT_EXPECT_EQ(test, whole.shards, 8U);
		KUNIT_ASSERT_EQ(test,
				pd_shards_plan_shared(&req, 1, 2, &shard, &whole,
						      &why), 0);
		KUNIT_EXPECT_FALSE(test, whole.lockfree);
		KUNIT_EXPECT_EQ(test, whole.shards, 1U);
	}
}

/*
 * The SBF's layout auto: blocked for a filter of one CPU (the plan of a
 * filter of mem planned blocked, model and all), line for a shared one
 * (in shards too) and for one of PD_PLAN_LINE_BYTES or more (the plan of
 * a filter planned line), and flat where neither can serve: a cell
 * maximum above 1 asked, or a gap for which the planner finds a larger
 * maximum better.
 */
static void pd_shard_layout_auto(struct kunit *test)
{
	struct pd_filter_plan one, shared, blocked, line;
	struct pd_filter_req req;
	const char *why = NULL;

	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF, 1 << 20);
	KUNIT_ASSERT_EQ(test, (unsigned int)pd_sbf_req(&req)->layout,
			(unsigned int)PKTDEDUP_LAYOUT_AUTO);
	KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &one, &why), 0);
	KUNIT_EXPECT_EQ(test, (unsigned int)one.layout,
			(unsigned int)PKTDEDUP_LAYOUT_BLOCKED);
	pd_sbf_req(&req)->layout = PKTDEDUP_LAYOUT_BLOCKED;
	KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &blocked, &why), 0);
	pd_st_same_model(test, &one, &blocked);
	KUNIT_EXPECT_EQ(test, one.cells, blocked.cells);
	/* the whole, lock-free, as the module plans it: line */
	pd_sbf_req(&req)->layout = PKTDEDUP_LAYOUT_LINE;
	KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &line, &why), 0);
	pd_sbf_req(&req)->layout = PKTDEDUP_LAYOUT_AUTO;
	KUNIT_ASSERT_EQ(test, pd_shards_plan_shared(&req, 0, 2, &one, &shared,
						    &why), 0);
	KUNIT_EXPECT_TRUE(test, shared.lockfree);
	pd_st_same_model(test, &shared, &line);
	KUNIT_EXPECT_EQ(test, shared.cells, line.cells);
	/* in shards with locks, line too */
	KUNIT_ASSERT_EQ(test, pd_shards_plan_shared(&req, 8, 2, &one, &shared,
						    &why), 0);
	KUNIT_EXPECT_EQ(test, (unsigned int)shared.layout,
			(unsigned int)PKTDEDUP_LAYOUT_LINE);
	/* one CPU's: blocked below PD_PLAN_LINE_BYTES, line from there */
	req.mem_bytes = PD_PLAN_LINE_BYTES - 4096;
	KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &one, &why), 0);
	KUNIT_EXPECT_EQ(test, (unsigned int)one.layout,
			(unsigned int)PKTDEDUP_LAYOUT_BLOCKED);
	req.mem_bytes = PD_PLAN_LINE_BYTES;
	KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &one, &why), 0);
	pd_sbf_req(&req)->layout = PKTDEDUP_LAYOUT_LINE;
	KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &line, &why), 0);
	pd_st_same_model(test, &one, &line);
	pd_sbf_req(&req)->layout = PKTDEDUP_LAYOUT_AUTO;
	req.mem_bytes = 1 << 20;
	/* cell maximum 3 asked: flat */
	pd_sbf_req(&req)->max = 3;
	KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &shared, &why), 0);
	KUNIT_EXPECT_EQ(test, (unsigned int)shared.layout,
			(unsigned int)PKTDEDUP_LAYOUT_FLAT);
	KUNIT_EXPECT_EQ(test, shared.max, 3U);
	/* a gap the planner serves best with a larger maximum: flat */
	pd_sbf_req(&req)->max = PD_FILTER_AUTO;
	pd_sbf_req(&req)->gap = 1600;
	KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &shared, &why), 0);
	KUNIT_EXPECT_GT(test, shared.max, 1U);
	KUNIT_EXPECT_EQ(test, (unsigned int)shared.layout,
			(unsigned int)PKTDEDUP_LAYOUT_FLAT);
}

static struct kunit_case pd_shard_cases[] = {
	KUNIT_CASE(pd_shard_copy_same_shard),
	KUNIT_CASE(pd_shard_loads_uniform),
	KUNIT_CASE(pd_shard_cells_uniform),
	KUNIT_CASE(pd_shard_fp_stable),
	KUNIT_CASE(pd_shard_fp_windows),
	KUNIT_CASE(pd_shard_plan_whole),
	KUNIT_CASE(pd_shard_plan_halves),
	KUNIT_CASE(pd_shard_plan_window),
	KUNIT_CASE(pd_shard_plan_refused),
	KUNIT_CASE(pd_shard_plan_one),
	KUNIT_CASE(pd_shard_seed_one_filter),
	KUNIT_CASE(pd_shard_seed_reproducible),
	KUNIT_CASE(pd_shard_occupancy_sum),
	KUNIT_CASE(pd_shard_window_sum),
	KUNIT_CASE(pd_shard_every_family),
	KUNIT_CASE(pd_shard_lockfree_twin),
	KUNIT_CASE(pd_shard_plan_lockfree),
	KUNIT_CASE(pd_shard_layout_auto),
	{}
};

static struct kunit_suite pd_shard_suite = {
	.name = "pktdedup-shard",
	.test_cases = pd_shard_cases,
};

kunit_test_suite(pd_shard_suite);
