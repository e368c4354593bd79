// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the importance-aware Bloom filters of Boraskar et al.
 * (ibf.h): the value each class raises its cells to, an insert that only
 * raises cells (against a naive model of Algorithm 2), the stable zero
 * fraction of the cell's Markov chain (pd_plan_chain_zero, Theorem 3 for
 * the SBF's case), important elements outliving the others as the chain
 * predicts, and the planner's P. Fixed seeds; tolerances from the
 * distributions, stated where used.
 */
#include <kunit/test.h>

#include "../../module/core/filter.h"
#include "../../module/core/ibf.h"
#include "../../module/core/fixed.h"
#include "../../module/core/plan.h"
#include "../../module/core/rng.h"

#define PPB 1000000000ULL

/* A DSCP of each level of the table, 1 (lowest) to 7. */
static const u8 pd_it_dscp[8] = { 0, 0, 10, 18, 26, 34, 46, 48 };

static void pd_it_elem(u64 id, u32 *h1, u32 *h2)
{
	u64 x = pd_rng_next(&id);

	*h1 = (u32)x;
	*h2 = (u32)(x >> 32);
}

static int pd_it_new(struct kunit *test, struct pd_filter *f,
		     struct pd_filter_plan *plan,
		     const struct pd_filter_req *req, u64 seed)
{
	const char *why = NULL;
	int err = pd_filter_create(f, req, plan, &why);

	if (err)
		kunit_err(test, "%u: %s", req->kind, why);
	else
		pd_filter_set_seeds(f, (u32)seed, (u32)(seed >> 32),
				    seed * 5 + 1);
	return err;
}

static void pd_it_req(struct pd_filter_req *req, u8 kind, u64 mem, u32 max,
		      u32 p)
{
	pd_filter_req_defaults(req, kind, mem);
	pd_ibf_req(req)->max = max;
	pd_ibf_req(req)->p = p;
}

/* The DSCP table: the DiffServ classes, lowest to highest. */
static void pd_ibf_dscp_table(struct kunit *test)
{
	static const struct { u8 dscp, level; } t[] = {
		{ 0, 1 },	/* CS0, best effort */
		{ 1, 1 },	/* LE, RFC 8622 */
		{ 8, 1 },	/* CS1, lower effort (RFC 3662) */
		{ 10, 2 }, { 12, 2 }, { 14, 2 },	/* AF1x */
		{ 16, 3 }, { 18, 3 }, { 22, 3 },	/* CS2, AF2x */
		{ 24, 4 }, { 26, 4 }, { 30, 4 },	/* CS3, AF3x */
		{ 32, 5 }, { 34, 5 }, { 38, 5 },	/* CS4, AF4x */
		{ 40, 6 }, { 44, 6 }, { 46, 6 },	/* CS5, VOICE-ADMIT, EF */
		{ 48, 7 }, { 56, 7 },			/* CS6, CS7 */
	};
	static const u8 v15[8] = { 0, 1, 3, 5, 8, 10, 12, 15 };
	static const u8 v3[8] = { 0, 1, 1, 1, 2, 2, 2, 3 };
	unsigned int i, l;

	for (i = 0; i < PD_ARRAY_SIZE(t); i++) {
		KUNIT_EXPECT_EQ_MSG(test, pd_ibf_dscp_level(t[i].dscp),
				    (unsigned int)t[i].level, "dscp %u",
				    t[i].dscp);
		/* the ECN bits are not the DSCP's: only 6 bits count */
		KUNIT_EXPECT_EQ(test, pd_ibf_dscp_level(t[i].dscp + 64),
				(unsigned int)t[i].level);
	}
	for (i = 1; i < 64; i++)
		KUNIT_EXPECT_GE(test, pd_ibf_dscp_level(i),
				i == 8 ? 1 : pd_ibf_dscp_level(i - 1));
	/* levels scaled to 1..Max: 1 and Max at the ends, in between evenly */
	for (l = 1; l <= PD_IBF_LEVELS; l++) {
		KUNIT_EXPECT_EQ(test, pd_ibf_level_value(l, 7), l);
		KUNIT_EXPECT_EQ(test, pd_ibf_level_value(l, 15),
				(unsigned int)v15[l]);
		KUNIT_EXPECT_EQ(test, pd_ibf_level_value(l, 3),
				(unsigned int)v3[l]);
	}
}

/*
 * The value each class raises its cells to, as the packet gives it:
 * ibf-2c Max for an important DSCP (level 5 and up: CS4/AF4x and above),
 * (Max + 1)/2 otherwise; ibf-mc the level's value. With the mark source,
 * the bits under the mask, shifted down: ibf-2c Max if any is set, ibf-mc
 * the value, clamped to 1..Max; other bits of the mark do not count. Each
 * checked through the filter too: on an empty filter with P = 0, a step
 * leaves the element's K cells at exactly that value.
 */
static void pd_ibf_class_values(struct kunit *test)
{
	static const u32 maxes[] = { 3, 7, 15 };
	static const struct { u32 mark, v2c, vmc; } marks[] = {
		/* mask 0x0f00; Max 7 */
		{ 0x0000, 4, 1 }, { 0x0100, 7, 1 }, { 0x0300, 7, 3 },
		{ 0x0700, 7, 7 }, { 0x0f00, 7, 7 }, { 0xf0ff, 4, 1 },
		{ 0x1500, 7, 5 },
	};
	unsigned int mi, d, i, j;
	u8 kind;

	for (kind = PKTDEDUP_FILTER_KIND_IBF_2C;
	     kind <= PKTDEDUP_FILTER_KIND_IBF_MC; kind++)
		for (mi = 0; mi < PD_ARRAY_SIZE(maxes); mi++) {
			u32 max = maxes[mi];
			struct pd_filter_req req;
			struct pd_filter_plan plan;
			struct pd_filter f;
			u32 pos[PD_SBF_MAX_K], h1, h2;
			struct pd_ibf *ibf = pd_ibf_of(&f);

			pd_it_req(&req, kind, 4096, max, 0);
			KUNIT_ASSERT_EQ(test, pd_it_new(test, &f, &plan, &req, 1),
					0);
			for (d = 0; d < 64; d++) {
				struct pd_pktinfo pi = { .dscp = (u8)d };
				unsigned int l = pd_ibf_dscp_level(d);
				unsigned int want = kind ==
					PKTDEDUP_FILTER_KIND_IBF_2C ?
					(l >= 5 ? max : (max + 1) / 2) :
					pd_ibf_level_value(l, max);

				KUNIT_EXPECT_EQ(test, pd_ibf_value(pd_ibf_of(&f), &pi),
						want);
				pd_it_elem(d, &h1, &h2);
				pd_sbf_positions(&ibf->sbf, h1, h2, pos);
				f.ops->clear(&f);
				pd_filter_step(&f, h1, h2, &pi);
				for (j = 0; j < plan.k; j++)
					KUNIT_EXPECT_EQ_MSG(test,
							    pd_sbf_cell(&ibf->sbf, pos[j]),
							    want, "%s max %u dscp %u",
							    f.ops->name, max, d);
			}
			pd_filter_destroy(&f);
		}
	for (kind = PKTDEDUP_FILTER_KIND_IBF_2C;
	     kind <= PKTDEDUP_FILTER_KIND_IBF_MC; kind++) {
		struct pd_filter_req req;
		struct pd_filter_plan plan;
		struct pd_filter f;

		pd_it_req(&req, kind, 4096, 7, 0);
		pd_ibf_req(&req)->importance = PKTDEDUP_IMPORTANCE_MARK;
		pd_ibf_req(&req)->importance_mask = 0x0f00;
		KUNIT_ASSERT_EQ(test, pd_it_new(test, &f, &plan, &req, 2), 0);
		for (i = 0; i < PD_ARRAY_SIZE(marks); i++) {
			/* the DSCP is not the source: it must not count */
			struct pd_pktinfo pi = { .dscp = 46,
						 .mark = marks[i].mark };

			KUNIT_EXPECT_EQ_MSG(test, pd_ibf_value(pd_ibf_of(&f), &pi),
					    kind == PKTDEDUP_FILTER_KIND_IBF_2C ?
					    marks[i].v2c : marks[i].vmc,
					    "%s mark %#x", f.ops->name,
					    marks[i].mark);
		}
		pd_filter_destroy(&f);
	}
}

/*
 * Algorithm 2 (and Algorithm 1 read as raising only, see ibf.h) against a
 * naive model, a byte per cell, fed the same positions and decrement
 * starts: probe K cells (duplicate iff none is zero), decrement P cells
 * from a random start, raise each of the K cells to at least the
 * element's value. Verdicts agree at every step and every cell at the
 * end: an insert never lowers a cell an important element set.
 */
static void pd_ibf_matches_model(struct kunit *test)
{
	static const struct { u8 kind, importance; u32 max, p; } cfg[] = {
		{ PKTDEDUP_FILTER_KIND_IBF_2C, PKTDEDUP_IMPORTANCE_DSCP, 7, 6 },
		{ PKTDEDUP_FILTER_KIND_IBF_2C, PKTDEDUP_IMPORTANCE_DSCP, 15, 40 },
		{ PKTDEDUP_FILTER_KIND_IBF_MC, PKTDEDUP_IMPORTANCE_DSCP, 7, 9 },
		{ PKTDEDUP_FILTER_KIND_IBF_MC, PKTDEDUP_IMPORTANCE_DSCP, 3, 3 },
		{ PKTDEDUP_FILTER_KIND_IBF_MC, PKTDEDUP_IMPORTANCE_MARK, 15, 20 },
	};
	unsigned int ci, j;

	for (ci = 0; ci < PD_ARRAY_SIZE(cfg); ci++) {
		struct pd_filter_req req;
		struct pd_filter_plan plan;
		struct pd_filter f;
		struct pd_sbf *s = &pd_ibf_of(&f)->sbf;
		u64 rng = 300 + ci, mrng, i, dups = 0, lowered = 0;
		u32 pos[PD_SBF_MAX_K], max = cfg[ci].max, next;
		u8 *model;

		pd_it_req(&req, cfg[ci].kind, 512, max, cfg[ci].p);
		pd_ibf_req(&req)->importance = cfg[ci].importance;
		pd_ibf_req(&req)->importance_mask = 0xf;
		KUNIT_ASSERT_EQ(test, pd_it_new(test, &f, &plan, &req, 3 + ci), 0);
		model = kunit_kzalloc(test, s->cells, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, model);
		/* the filter draws each start one element ahead */
		mrng = s->gen.rng;
		next = s->gen.next_dec;
		for (i = 0; i < 30000; i++) {
			u64 x = pd_rng_next(&rng), id = x % 1500;
			struct pd_pktinfo pi = { .dscp = (u8)(x >> 20),
						 .mark = (u32)(x >> 40) };
			unsigned int l = pd_ibf_dscp_level(pi.dscp), v;
			u32 h1, h2, start;
			bool dup = true;

			if (cfg[ci].importance == PKTDEDUP_IMPORTANCE_MARK)
				v = pi.mark & 0xf ? PD_MIN(pi.mark & 0xf, max) : 1;
			else if (cfg[ci].kind == PKTDEDUP_FILTER_KIND_IBF_2C)
				v = l >= 5 ? max : (max + 1) / 2;
			else
				v = 1 + (l - 1) * (max - 1) / 6;
			pd_it_elem(id, &h1, &h2);
			pd_sbf_positions(s, h1, h2, pos);
			for (j = 0; j < plan.k; j++)
				dup &= model[pos[j]] != 0;
			start = next;
			next = pd_rng_below(&mrng, s->cells);
			for (j = 0; j < plan.p; j++)
				if (model[(start + j) % s->cells])
					model[(start + j) % s->cells]--;
			for (j = 0; j < plan.k; j++) {
				if (model[pos[j]] > v)
					lowered++;	/* a cell to keep */
				if (model[pos[j]] < v)
					model[pos[j]] = (u8)v;
			}
			KUNIT_ASSERT_EQ_MSG(test, pd_filter_step(&f, h1, h2, &pi),
					    dup, "%s step %llu", f.ops->name,
					    (unsigned long long)i);
			dups += dup;
		}
		/* both verdicts, and many inserts below a cell's value */
		KUNIT_EXPECT_GT(test, dups, (u64)1000);
		KUNIT_EXPECT_LT(test, dups, (u64)29000);
		KUNIT_EXPECT_GT(test, lowered, (u64)1000);
		for (j = 0; j < s->cells; j++)
			KUNIT_ASSERT_EQ_MSG(test, pd_sbf_cell(s, j),
					    (unsigned int)model[j], "%s cell %u",
					    f.ops->name, j);
		pd_filter_destroy(&f);
	}
}

/* The values a stream's elements raise cells to: vprob[1..max], Q62. */
static void pd_it_vprob(u64 *vprob, bool two_class, u32 max, bool mark)
{
	unsigned int l;

	memset(vprob, 0, PD_PLAN_STATES * sizeof(*vprob));
	if (two_class) {
		vprob[(max + 1) / 2] = PD_Q62_ONE / 2;
		vprob[max] = PD_Q62_ONE / 2;
		return;
	}
	for (l = 1; l <= (mark ? max : PD_IBF_LEVELS); l++)
		vprob[mark ? l : pd_ibf_level_value(l, max)] +=
			PD_Q62_ONE / (mark ? max : PD_IBF_LEVELS);
}

/* Element id's packet: its class uniform as vprob has it. */
static struct pd_pktinfo pd_it_info(u64 id, bool two_class, u32 max,
				    bool mark)
{
	u64 x = pd_rng_next(&id);
	struct pd_pktinfo pi = { 0 };

	x = pd_rng_next(&x);
	if (two_class) {
		pi.dscp = x & 1 ? 46 : 0;
		pi.mark = x & 1;
	} else if (mark) {
		pi.mark = 1 + (u32)((x >> 8) % max);
	} else {
		pi.dscp = pd_it_dscp[1 + (x >> 8) % PD_IBF_LEVELS];
	}
	return pi;
}

/*
 * The chain's stable zero fraction (pd_plan_chain_zero) is the matrix
 * chain's limit (pd_plan_chain over a gap of 2^24, far beyond the mixing
 * time of ~Max m/P steps), and for the SBF's case (all values Max) it is
 * Theorem 3 (pd_plan_stable_zero).
 *
 * Rounding: pdec = P/m and pset = K/m are Q62 with an error below one
 * ulp, i.e. relative errors below m/(P 2^62) and m/(K 2^62); each of the
 * Max factors down/(down + up) inherits at most twice their sum, so the
 * closed forms differ by less than 2 Max (m/P + m/K) ulps plus one ulp per
 * product: we allow 4 Max (m/P + m/K) + 64. The matrix power errs by less
 * than 4 gap ulps (plan_test.c): 2^28.
 */
static void pd_ibf_chain_zero(struct kunit *test)
{
	static const u32 maxes[] = { 1, 3, 7, 15 }, ks[] = { 1, 3, 6, 10 };
	static const u32 ps[] = { 1, 4, 11, 142, 1000 };
	static const u64 ms[] = { 64, 1000, 1 << 20, 0xffffffc0ULL };
	u64 vprob[PD_PLAN_STATES];
	unsigned int a, b, c, d;

	for (a = 0; a < PD_ARRAY_SIZE(maxes); a++)
		for (b = 0; b < PD_ARRAY_SIZE(ks); b++)
			for (c = 0; c < PD_ARRAY_SIZE(ps); c++)
				for (d = 0; d < PD_ARRAY_SIZE(ms); d++) {
					u32 max = maxes[a], k = ks[b], p = ps[c];
					u64 m = ms[d], z, t, diff;

					if (p > m || k >= m)
						continue;
					memset(vprob, 0, sizeof(vprob));
					vprob[max] = PD_Q62_ONE;
					z = pd_plan_chain_zero(max, vprob,
							       pd_muldiv(p, PD_Q62_ONE, m),
							       pd_muldiv(k, PD_Q62_ONE, m));
					t = pd_plan_stable_zero(max, k, p, m);
					diff = z > t ? z - t : t - z;
					KUNIT_EXPECT_LE_MSG(test, diff,
							    4 * max * (m / p + m / k) + 64,
							    "max %u k %u p %u m %llu",
							    max, k, p,
							    (unsigned long long)m);
				}
	for (a = 0; a < 4; a++) {
		bool two = a & 1, mark = a & 2;
		u64 m = 1 << 14, pdec = pd_muldiv(10, PD_Q62_ONE, m);
		u64 pset = pd_muldiv(5, PD_Q62_ONE, m), z, w, diff;
		u32 from;

		pd_it_vprob(vprob, two, 7, mark);
		z = pd_plan_chain_zero(7, vprob, pdec, pset);
		for (from = 0; from <= 7; from += 7) {
			w = pd_plan_chain(7, vprob, pdec, pset, from, 1 << 24);
			diff = z > w ? z - w : w - z;
			KUNIT_EXPECT_LE_MSG(test, diff, (u64)1 << 28,
					    "two-class %d mark %d from %u", two,
					    mark, from);
		}
	}
}

/*
 * The stable fraction of zero cells on a stream of distinct elements
 * whose classes are distributed as the plan assumes (two classes equally
 * likely; the DSCP table's seven levels, or marks 1..Max, equally likely)
 * is the plan's stable_zero, the chain's. Convergence: a cell set once
 * has forgotten its start, and cells are set with probability K/m per
 * element: 20 m/K + m elements. Tolerance as for the SBF (sbf_test.c):
 * the zero count's variance is at most 2P z(1 - z) m (cells within one
 * run of P adjacent decrements are correlated); 4 sd, and 1000 ppb.
 */
static void pd_ibf_stable_zero(struct kunit *test)
{
	static const struct { u8 kind, importance; u32 p; } cfg[] = {
		{ PKTDEDUP_FILTER_KIND_IBF_2C, PKTDEDUP_IMPORTANCE_DSCP, 2 },
		{ PKTDEDUP_FILTER_KIND_IBF_2C, PKTDEDUP_IMPORTANCE_DSCP,
		  PD_FILTER_AUTO },
		{ PKTDEDUP_FILTER_KIND_IBF_2C, PKTDEDUP_IMPORTANCE_MARK, 5 },
		{ PKTDEDUP_FILTER_KIND_IBF_MC, PKTDEDUP_IMPORTANCE_DSCP, 3 },
		{ PKTDEDUP_FILTER_KIND_IBF_MC, PKTDEDUP_IMPORTANCE_DSCP,
		  PD_FILTER_AUTO },
		{ PKTDEDUP_FILTER_KIND_IBF_MC, PKTDEDUP_IMPORTANCE_MARK, 4 },
	};
	unsigned int ci;

	for (ci = 0; ci < PD_ARRAY_SIZE(cfg); ci++) {
		bool two = cfg[ci].kind == PKTDEDUP_FILTER_KIND_IBF_2C;
		bool mark = cfg[ci].importance == PKTDEDUP_IMPORTANCE_MARK;
		u64 vprob[PD_PLAN_STATES], id, n, z, zero, var, tol, m;
		struct pd_filter_req req;
		struct pd_filter_plan plan;
		struct pd_filter_occ o;
		struct pd_filter f;

		pd_it_req(&req, cfg[ci].kind, 32 << 10, 7, cfg[ci].p);
		pd_ibf_req(&req)->importance = cfg[ci].importance;
		pd_ibf_req(&req)->importance_mask = mark ? (two ? 0x1 : 0xf) : 0;
		KUNIT_ASSERT_EQ(test, pd_it_new(test, &f, &plan, &req, 50 + ci),
				0);
		m = plan.cells;
		/* the plan's model is the chain of these classes */
		pd_it_vprob(vprob, two, 7, mark);
		KUNIT_EXPECT_EQ(test, plan.stable_zero,
				pd_plan_chain_zero(7, vprob,
						   pd_muldiv(plan.p, PD_Q62_ONE, m),
						   pd_muldiv(plan.k, PD_Q62_ONE, m)));
		n = 20 * m / plan.k + m;
		for (id = 0; id < n; id++) {
			struct pd_pktinfo pi = pd_it_info(id, two, 7, mark);
			u32 h1, h2;

			pd_it_elem(id, &h1, &h2);
			pd_filter_step(&f, h1, h2, &pi);
		}
		pd_filter_occupancy(&f, &o);
		z = pd_q62_to_ppb(plan.stable_zero);
		zero = o.zero * PPB / o.units;
		var = 2 * plan.p * (z * (PPB - z) / m);
		tol = 4 * pd_isqrt64(var) + 1000;
		kunit_info(test, "%s %s p %u: zeros %llu ppb, chain %llu, tol %llu",
			   f.ops->name, mark ? "mark" : "dscp", plan.p,
			   (unsigned long long)zero, (unsigned long long)z,
			   (unsigned long long)tol);
		KUNIT_EXPECT_LE(test, zero, z + tol);
		KUNIT_EXPECT_GE(test, zero + tol, z);
		pd_filter_destroy(&f);
	}
}

/*
 * The chain's FN rate for an element of value v queried gap elements
 * after its insert, in a stable filter (Q62): its K cells start at
 * max(c, v), c a stable cell's value after the insert's own decrement,
 * then follow the chain for gap elements; FN iff any is zero then.
 * The stable distribution comes from the chain's balance across each cut
 * (plan.c): S_i = S_(i-1) (down_i + up_i) / down_i from S_0 = P(zero).
 */
static u64 pd_it_fn(struct kunit *test, const u64 *vprob, u32 max, u32 k,
		    u64 pdec, u64 pset, u32 v, u64 gap)
{
	u64 pi[PD_PLAN_STATES + 1] = { 0 }, dec[PD_PLAN_STATES] = { 0 };
	u64 s, t = 0, p0 = 0, sum = 0, start;
	u32 i;

	s = pd_plan_chain_zero(max, vprob, pdec, pset);
	pi[0] = s;
	for (i = 1; i <= max; i++)
		t += vprob[i];
	for (i = 1; i <= max; i++) {
		u64 up = pd_mul_q62(pset, t), down = pd_mul_q62(pdec,
							      PD_Q62_ONE - up);
		u64 next = pd_muldiv(s, down + up, down);

		pi[i] = next - s;
		s = next;
		t -= vprob[i];
	}
	/* the S_i end at 1, up to rounding (1 ppm) */
	KUNIT_EXPECT_LE(test, s, PD_Q62_ONE + PD_Q62_ONE / 1000000);
	KUNIT_EXPECT_GE(test, s + PD_Q62_ONE / 1000000, PD_Q62_ONE);
	for (i = 0; i <= max; i++) {
		dec[i ? i - 1 : 0] += pd_mul_q62(pi[i], pdec);
		dec[i] += pd_mul_q62(pi[i], PD_Q62_ONE - pdec);
	}
	for (i = 0; i <= max; i++) {
		sum += dec[i];
		if (i < v)
			continue;
		start = i == v ? sum : dec[i];
		p0 += pd_mul_q62(start, pd_plan_chain(max, vprob, pdec, pset,
						      i, gap));
	}
	return PD_Q62_ONE - pd_pow_q62(PD_Q62_ONE - PD_MIN(p0, PD_Q62_ONE), k);
}

/*
 * Important elements outlive the others. In a stable filter (m = 2^14
 * cells of Max 7, K 5, P 10), every element is queried again gap = 6000
 * elements after its insert; the FN rate of each class is the chain's
 * (pd_it_fn: from Max for the most important, from max(c, v) for the
 * others), and strictly ordered: ibf-2c important below unimportant,
 * ibf-mc level 7 below level 4 below level 1.
 *
 * Tolerance: each query is a Bernoulli(FN) trial; two elements' cells
 * share a decrement run rarely, so trials are nearly independent: we
 * double the binomial variance and allow 5 sd, plus 0.5% for the model
 * (the K cells taken as independent).
 */
static void pd_ibf_important_outlive(struct kunit *test)
{
	u64 gap = 6000, queries = 40000;
	u8 kind;

	for (kind = PKTDEDUP_FILTER_KIND_IBF_2C;
	     kind <= PKTDEDUP_FILTER_KIND_IBF_MC; kind++) {
		bool two = kind == PKTDEDUP_FILTER_KIND_IBF_2C;
		u64 vprob[PD_PLAN_STATES], fn[8] = { 0 }, cnt[8] = { 0 };
		u64 want[8] = { 0 }, id, warm, m, pdec, pset;
		struct pd_filter_req req;
		struct pd_filter_plan plan;
		struct pd_filter f;
		unsigned int v;

		pd_it_req(&req, kind, 8192, 7, 10);
		KUNIT_ASSERT_EQ(test, pd_it_new(test, &f, &plan, &req, 8), 0);
		m = plan.cells;
		KUNIT_ASSERT_EQ(test, m, (u64)1 << 14);
		KUNIT_ASSERT_EQ(test, plan.k, 5u);
		warm = 20 * m / plan.k;
		for (id = 0; id < warm + gap + queries; id++) {
			struct pd_pktinfo pi = pd_it_info(id, two, 7, false);
			u32 h1, h2;

			pd_it_elem(id, &h1, &h2);
			pd_filter_step(&f, h1, h2, &pi);
			if (id < warm + gap)
				continue;
			pi = pd_it_info(id - gap, two, 7, false);
			v = pd_ibf_value(pd_ibf_of(&f), &pi);
			pd_it_elem(id - gap, &h1, &h2);
			cnt[v]++;
			fn[v] += !pd_filter_query(&f, h1, h2);
		}
		pd_it_vprob(vprob, two, 7, false);
		pdec = pd_muldiv(plan.p, PD_Q62_ONE, m);
		pset = pd_muldiv(plan.k, PD_Q62_ONE, m);
		for (v = 1; v <= 7; v++) {
			u64 sd, tol;

			if (!cnt[v])
				continue;
			want[v] = pd_q62_to_ppb(pd_it_fn(test, vprob, 7, plan.k,
							 pdec, pset, v, gap));
			sd = pd_isqrt64(2 * want[v] * (PPB - want[v]) / cnt[v]);
			tol = 5 * sd + 5000000;
			fn[v] = fn[v] * PPB / cnt[v];
			kunit_info(test, "%s value %u: FN %llu ppb of %llu, chain %llu +- %llu",
				   f.ops->name, v, (unsigned long long)fn[v],
				   (unsigned long long)cnt[v],
				   (unsigned long long)want[v],
				   (unsigned long long)tol);
			KUNIT_EXPECT_LE(test, fn[v], want[v] + tol);
			KUNIT_EXPECT_GE(test, fn[v] + tol, want[v]);
		}
		/* the ordering, by more than the tolerances */
		if (two) {
			KUNIT_EXPECT_LT(test, fn[7] + 100000000, fn[4]);
		} else {
			KUNIT_EXPECT_LT(test, fn[7] + 50000000, fn[4]);
			KUNIT_EXPECT_LT(test, fn[4], fn[1]);
		}
		KUNIT_EXPECT_LT(test, plan.fn_rate, plan.fn_low);
		pd_filter_destroy(&f);
	}
}

/*
 * The planner's P is the least that meets the fps target: the plan with
 * P meets it, the plan with P - 1 does not.
 */
static void pd_ibf_planner(struct kunit *test)
{
	static const u64 mems[] = { 8 << 10, 64 << 10, 1 << 20 };
	static const u32 fps[] = { 100000000, 10000000, 1000000 };
	unsigned int mi, fi;
	u8 kind;

	for (kind = PKTDEDUP_FILTER_KIND_IBF_2C;
	     kind <= PKTDEDUP_FILTER_KIND_IBF_MC; kind++)
		for (mi = 0; mi < PD_ARRAY_SIZE(mems); mi++)
			for (fi = 0; fi < PD_ARRAY_SIZE(fps); fi++) {
				struct pd_filter_req req;
				struct pd_filter_plan plan, less;
				const char *why = NULL;
				u64 target = pd_q62_from_ppb(fps[fi]);

				pd_filter_req_defaults(&req, kind, mems[mi]);
				req.fps_ppb = fps[fi];
				KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &plan,
								     &why), 0);
				KUNIT_EXPECT_EQ(test, plan.max, 7u);
				KUNIT_EXPECT_EQ(test, plan.k, 5u);
				KUNIT_EXPECT_EQ(test, plan.cells, mems[mi] * 2);
				KUNIT_EXPECT_LE(test, plan.fp_bound, target);
				KUNIT_EXPECT_EQ(test, plan.fp_bound,
						pd_pow_q62(PD_Q62_ONE -
							   plan.stable_zero, 5));
				KUNIT_EXPECT_TRUE(test, plan.given & PD_PLAN_HAS_FN);
				KUNIT_EXPECT_LE(test, plan.fn_rate, plan.fn_low);
				KUNIT_ASSERT_GT(test, plan.p, 1u);
				pd_ibf_req(&req)->p = plan.p - 1;
				KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &less,
								     &why), 0);
				KUNIT_EXPECT_GT_MSG(test, less.fp_bound, target,
						    "%s mem %llu fps %u: p %u",
						    pd_filter_family(kind)->name,
						    (unsigned long long)mems[mi],
						    fps[fi], plan.p);
			}
}

/*
 * Importance from a mark with no mask bits is refused by the planner, not
 * only when the filter is built: an idle instance keeps a plan unbuilt.
 */
static void pd_ibf_plan_refuses_no_mask(struct kunit *test)
{
	u8 kind;

	for (kind = PKTDEDUP_FILTER_KIND_IBF_2C;
	     kind <= PKTDEDUP_FILTER_KIND_IBF_MC; kind++) {
		struct pd_filter_req req;
		struct pd_filter_plan plan;
		const char *why = NULL;

		pd_filter_req_defaults(&req, kind, 64 << 10);
		pd_ibf_req(&req)->importance = PKTDEDUP_IMPORTANCE_MARK;
		pd_ibf_req(&req)->importance_mask = 0;
		KUNIT_EXPECT_EQ(test, pd_filter_plan(&req, &plan, &why),
				-EINVAL);
		KUNIT_EXPECT_NOT_NULL(test, why);
		pd_ibf_req(&req)->importance_mask = 0x7;
		KUNIT_EXPECT_EQ(test, pd_filter_plan(&req, &plan, &why), 0);
		pd_ibf_req(&req)->importance = PKTDEDUP_IMPORTANCE_MAX + 1;
		KUNIT_EXPECT_EQ(test, pd_filter_plan(&req, &plan, &why),
				-EINVAL);
	}
}

static struct kunit_case pd_ibf_cases[] = {
	KUNIT_CASE(pd_ibf_dscp_table),
	KUNIT_CASE(pd_ibf_class_values),
	KUNIT_CASE(pd_ibf_matches_model),
	KUNIT_CASE(pd_ibf_chain_zero),
	KUNIT_CASE(pd_ibf_stable_zero),
	KUNIT_CASE(pd_ibf_important_outlive),
	KUNIT_CASE(pd_ibf_planner),
	KUNIT_CASE(pd_ibf_plan_refuses_no_mask),
	{}
};

static struct kunit_suite pd_ibf_suite = {
	.name = "pktdedup-ibf",
	.test_cases = pd_ibf_cases,
};

kunit_test_suite(pd_ibf_suite);
