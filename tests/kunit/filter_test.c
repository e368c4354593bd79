// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the filter interface (filter.h): the registry, and what
 * every family promises through it: a plan within the memory asked, a
 * working filter, queries that change nothing, runs reproducible from
 * fixed seeds, and bad settings refused with -EINVAL and a message.
 */
#include <kunit/test.h>

#include "../../module/core/bitf.h"
#include "../../module/core/filter.h"
#include "../../module/core/fixed.h"
#include "../../module/core/ibf.h"
#include "../../module/core/plan.h"
#include "../../module/core/rng.h"
#include "../../module/core/timewin.h"

/* The hashes of element id: splitmix64 of the id, split in two. */
static void pd_ft_elem(u64 id, u32 *h1, u32 *h2)
{
	u64 x = pd_rng_next(&id);

	*h1 = (u32)x;
	*h2 = (u32)(x >> 32);
}

/* A DSCP and a mark that vary with the element (IBF classes). */
static struct pd_pktinfo pd_ft_info(u64 id)
{
	struct pd_pktinfo pi = { .dscp = (u8)(id * 7 % 64),
				 .mark = (u32)(id % 5) };

	return pi;
}

/*
 * The defaults of kind for mem bytes; a window family also needs its
 * window (one second: every test element here comes at time 0).
 */
static void pd_ft_defaults(struct pd_filter_req *req, unsigned int kind,
			   u64 mem)
{
	pd_filter_req_defaults(req, (u8)kind, mem);
	if (pd_filter_family(kind) && pd_filter_family(kind)->window)
		pd_tw_req(req)->window_ns = 1000000000ULL;
}

/* Set setting attr of req's family to v (a value, not the wire's). */
static void pd_ft_set(struct pd_filter_req *req, unsigned int attr, u64 v)
{
	pd_setting_set(req, pd_filter_setting(pd_filter_family(req->kind),
					      attr), v);
}

static int pd_ft_new(struct kunit *test, struct pd_filter *f,
		     const struct pd_filter_req *req,
		     struct pd_filter_plan *plan, u64 rng)
{
	const char *why = NULL;
	int err = pd_filter_create(f, req, plan, &why);

	if (err)
		kunit_err(test, "kind %u: %s", req->kind, why);
	else
		pd_filter_set_seeds(f, 0x12345678, 0x9abcdef0, rng);
	return err;
}

/*
 * Every uAPI kind has a family whose kind is its index; names are unique
 * and found again by name; every operation is there.
 */
static void pd_filter_registry(struct kunit *test)
{
	unsigned int i, j;

	KUNIT_EXPECT_EQ(test, (unsigned int)PD_FILTER_NKINDS,
			(unsigned int)PKTDEDUP_FILTER_KIND_MAX + 1);
	for (i = 0; i <= PKTDEDUP_FILTER_KIND_MAX; i++) {
		const struct pd_filter_ops *ops = pd_filter_family(i);

		KUNIT_ASSERT_NOT_NULL(test, ops);
		KUNIT_EXPECT_PTR_EQ(test, ops, pd_filter_families[i]);
		KUNIT_EXPECT_EQ_MSG(test, (unsigned int)ops->kind, i,
				    "family %s", ops->name);
		KUNIT_ASSERT_NOT_NULL(test, ops->name);
		KUNIT_EXPECT_GT(test, strlen(ops->name), (size_t)0);
		KUNIT_EXPECT_PTR_EQ(test, pd_filter_family_by_name(ops->name),
				    ops);
		KUNIT_EXPECT_TRUE(test, ops->plan && ops->init &&
				  ops->set_rng && ops->step && ops->query &&
				  ops->clear && ops->occupancy);
		/* every family takes k (probes or arrays), or a window */
		KUNIT_EXPECT_TRUE(test, pd_filter_takes(ops, ops->window ?
						       PKTDEDUP_A_SETTINGS_WINDOW_NS :
						       PKTDEDUP_A_SETTINGS_K));
		/* a family that reads the time is a window family */
		KUNIT_EXPECT_EQ(test, ops->timed, !!ops->window);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE_MSG(test,
					    strcmp(ops->name,
						   pd_filter_families[j]->name),
					    0, "kinds %u and %u", i, j);
	}
	KUNIT_EXPECT_NULL(test, pd_filter_family(PD_FILTER_NKINDS));
	KUNIT_EXPECT_NULL(test, pd_filter_family(~0u));
	KUNIT_EXPECT_NULL(test, pd_filter_family_by_name("no-such-filter"));
	KUNIT_EXPECT_NULL(test, pd_filter_family_by_name(""));
	KUNIT_EXPECT_NULL(test, pd_filter_family_by_name("SBF"));
	KUNIT_EXPECT_PTR_EQ(test, pd_filter_family_by_name("sbf"),
			    &pd_sbf_family);
	KUNIT_EXPECT_PTR_EQ(test, pd_filter_family_by_name("rlbsbf"),
			    &pd_rlbsbf_family);
	KUNIT_EXPECT_PTR_EQ(test, pd_filter_family_by_name("ibf-mc"),
			    &pd_ibf_mc_family);
}

/*
 * Every family plans 1 MiB with its defaults within the memory asked,
 * and the filter works: empty, it reports nothing; an element just
 * stepped is a duplicate (1000 elements stay in every family's first
 * phase at 1 MiB); its occupancy counts what was set; reset empties it.
 */
/*
 * The list of names messages give: every family's, in the registry's
 * order, each within PD_FILTER_NAME_MAX, the whole within
 * PD_FILTER_NAMES_LEN; cut short (never overrun) in a short buffer.
 */
static void pd_filter_names(struct kunit *test)
{
	char names[PD_FILTER_NAMES_LEN], want[PD_FILTER_NAMES_LEN] = "";
	size_t at = 0;
	unsigned int i;

	for (i = 0; i < PD_FILTER_NKINDS; i++) {
		const struct pd_filter_ops *ops = pd_filter_family(i);
		size_t n;

		if (!ops)
			continue;
		n = strlen(ops->name);
		KUNIT_EXPECT_LE(test, n, (size_t)PD_FILTER_NAME_MAX);
		if (at) {
			memcpy(want + at, " | ", 3);
			at += 3;
		}
		memcpy(want + at, ops->name, n);
		at += n;
	}
	KUNIT_ASSERT_LT(test, at, sizeof(want));
	want[at] = 0;
	pd_filter_family_names(names, sizeof(names), " | ");
	KUNIT_EXPECT_STREQ(test, names, want);
	memset(names, 'x', sizeof(names));
	pd_filter_family_names(names, 6, " | ");
	KUNIT_EXPECT_STREQ(test, names, "sbf |");
	KUNIT_EXPECT_EQ(test, names[6], 'x');
}

/* A wire value of a row's codec, and the value it stands for. */
static void pd_ft_codec_case(const struct pd_setting *s, unsigned int i,
			     u64 *wire, u64 *value)
{
	switch (s->codec) {
	case PD_SC_AUTO_ZERO:
		*wire = i ? 3 : 0;
		*value = i ? 3 : PD_FILTER_AUTO;
		break;
	case PD_SC_CELL_MAX:
		*wire = i ? 3 : 0;
		*value = i ? 7 : PD_FILTER_AUTO;
		break;
	case PD_SC_P_AUTO:
		*wire = i ? 5 : PKTDEDUP_P_AUTO;
		*value = i ? 5 : PD_FILTER_AUTO;
		break;
	default:
		*wire = i ? 7 : 1;
		*value = *wire;
		break;
	}
}

/*
 * Every family's rows: a value off the wire lands where the row says, as
 * its codec reads it, and goes back on the wire as it came; a target left
 * at 0 goes as the family's default (or not at all); one of two clears
 * the other.
 */
static void pd_filter_settings_codecs(struct kunit *test)
{
	unsigned int kind, i;
	u64 wire, value, back;

	for (kind = 0; kind < PD_FILTER_NKINDS; kind++) {
		const struct pd_filter_ops *ops = pd_filter_family(kind);
		const struct pd_setting *s;

		KUNIT_EXPECT_NE(test, (unsigned int)ops->settings[0].attr, 0u);
		for (s = ops->settings; s->attr; s++) {
			struct pd_filter_req req;

			KUNIT_EXPECT_PTR_EQ(test, pd_filter_setting(ops, s->attr),
					    s);
			for (i = 0; i < 2; i++) {
				pd_filter_req_defaults(&req, (u8)kind, 1 << 20);
				pd_ft_codec_case(s, i, &wire, &value);
				pd_setting_from_wire(ops, &req, s, wire);
				KUNIT_EXPECT_EQ_MSG(test, pd_setting_get(&req, s),
						    value, "%s, setting %u",
						    ops->name, s->attr);
				KUNIT_EXPECT_TRUE(test,
						  pd_setting_to_wire(ops, &req,
								     s, &back));
				KUNIT_EXPECT_EQ_MSG(test, back, wire,
						    "%s, setting %u", ops->name,
						    s->attr);
			}
			if (s->codec == PD_SC_TARGET) {
				pd_setting_set(&req, s, 0);
				KUNIT_EXPECT_EQ(test,
						pd_setting_to_wire(ops, &req, s,
								   &back),
						ops->default_fps_ppb != 0);
				if (ops->default_fps_ppb)
					KUNIT_EXPECT_EQ(test, back,
							(u64)ops->default_fps_ppb);
			}
			if (s->codec == PD_SC_EITHER) {
				const struct pd_setting *o =
					pd_filter_setting(ops, s->other);

				KUNIT_ASSERT_NOT_NULL(test, o);
				KUNIT_EXPECT_EQ(test, (unsigned int)o->codec,
						(unsigned int)PD_SC_EITHER);
				KUNIT_EXPECT_EQ(test, (unsigned int)o->other,
						(unsigned int)s->attr);
				pd_setting_from_wire(ops, &req, o, 9);
				KUNIT_EXPECT_EQ(test, pd_setting_get(&req, s),
						0ULL);
				KUNIT_EXPECT_FALSE(test,
						   pd_setting_to_wire(ops, &req,
								      s, &back));
			}
		}
	}
}

static void pd_filter_defaults(struct kunit *test)
{
	unsigned int kind;

	for (kind = 0; kind < PD_FILTER_NKINDS; kind++) {
		const struct pd_filter_ops *ops = pd_filter_family(kind);
		struct pd_filter_req req;
		struct pd_filter_plan plan;
		struct pd_filter_occ o;
		struct pd_filter f;
		u64 i, units, seen = 0;
		u32 h1, h2;

		pd_ft_defaults(&req, kind, 1 << 20);
		KUNIT_ASSERT_EQ(test, pd_ft_new(test, &f, &req, &plan, 1), 0);
		KUNIT_EXPECT_EQ(test, (unsigned int)plan.kind, kind);
		KUNIT_EXPECT_LE_MSG(test, plan.bytes, (u64)(1 << 20), "%s",
				    ops->name);
		/* whole words are all a family may leave unused */
		KUNIT_EXPECT_GT_MSG(test, plan.bytes, (u64)(1 << 20) - 8 * 16,
				    "%s", ops->name);
		KUNIT_EXPECT_GE(test, plan.k, 1u);
		KUNIT_EXPECT_LE(test, plan.k, 16u);
		KUNIT_EXPECT_TRUE(test, plan.given & PD_PLAN_HAS_FP);
		KUNIT_EXPECT_TRUE(test, plan.fp_bound > 0 &&
				  plan.fp_bound <= PD_Q62_ONE);
		KUNIT_EXPECT_TRUE_MSG(test, plan.given &
				      (ops->window ? PD_PLAN_HAS_WINDOW :
				       ops->counting ? PD_PLAN_HAS_ZERO :
				       PD_PLAN_HAS_LOAD), "%s", ops->name);
		/* window families: cells, or the positions of one subwindow */
		units = ops->counting || ops->window ? plan.cells :
			plan.cells * plan.k;

		pd_filter_occupancy(&f, &o);
		KUNIT_EXPECT_EQ(test, o.units, units);
		KUNIT_EXPECT_EQ(test, ops->counting ? o.zero : o.set,
				ops->counting ? units : 0);
		for (i = 0; i < 1000; i++) {
			struct pd_pktinfo pi = pd_ft_info(i);

			pd_ft_elem(i, &h1, &h2);
			KUNIT_EXPECT_FALSE(test, pd_filter_query(&f, h1 ^ 1,
								 h2));
			seen += pd_filter_step(&f, h1, h2, &pi);
			KUNIT_EXPECT_TRUE_MSG(test, pd_filter_query(&f, h1, h2),
					      "%s element %llu", ops->name,
					      (unsigned long long)i);
		}
		/* 1000 of ~2^23 units: a false positive is a 10^-5 event */
		KUNIT_EXPECT_LE(test, seen, (u64)1);
		pd_filter_occupancy(&f, &o);
		KUNIT_EXPECT_EQ(test, o.units, units);
		if (ops->counting) {
			/* at most k cells per element left zero */
			KUNIT_EXPECT_LT(test, o.zero, units);
			KUNIT_EXPECT_GE(test, o.zero, units - 1000 * plan.k);
		} else if (ops->window) {
			/* the current subwindow holds every element */
			KUNIT_EXPECT_GE(test, o.set, (u64)1000);
			KUNIT_EXPECT_LE(test, o.set, 1000 * (u64)plan.k);
		} else {
			u64 sum = 0;

			KUNIT_EXPECT_EQ(test, o.arrays, plan.k);
			for (i = 0; i < o.arrays; i++) {
				sum += o.load[i];
				KUNIT_EXPECT_GT(test, o.load[i], 990u);
				KUNIT_EXPECT_LE(test, o.load[i], 1000u);
			}
			KUNIT_EXPECT_EQ(test, sum, o.set);
		}
		pd_filter_reset(&f);
		pd_filter_occupancy(&f, &o);
		KUNIT_EXPECT_EQ(test, ops->counting ? o.zero : o.set,
				ops->counting ? units : 0);
		pd_ft_elem(3, &h1, &h2);
		KUNIT_EXPECT_FALSE(test, pd_filter_query(&f, h1, h2));
		pd_filter_destroy(&f);
	}
}

/* Step n elements from a universe of u (repeats); count duplicates. */
static u64 pd_ft_run(struct pd_filter *f, u64 *rng, u64 n, u64 u)
{
	u64 i, dups = 0;
	u32 h1, h2;

	for (i = 0; i < n; i++) {
		u64 id = pd_rng_next(rng) % u;
		struct pd_pktinfo pi = pd_ft_info(id);

		pd_ft_elem(id, &h1, &h2);
		dups += pd_filter_step(f, h1, h2, &pi);
	}
	return dups;
}

/*
 * A query changes nothing: not the cells or bits, not the filter's
 * struct (generator state, loads, RSBF's iter). The filter is small and
 * busy (4 KiB, 20000 elements from a universe of 5000) so that both
 * verdicts come up.
 */
static void pd_filter_query_pure(struct kunit *test)
{
	unsigned int kind;

	for (kind = 0; kind < PD_FILTER_NKINDS; kind++) {
		struct pd_filter_req req;
		struct pd_filter_plan plan;
		struct pd_filter f, fcopy;
		u64 rng = 17 + kind, i, yes = 0;
		void *mem;
		u32 h1, h2;

		pd_ft_defaults(&req, kind, 4096);
		KUNIT_ASSERT_EQ(test, pd_ft_new(test, &f, &req, &plan, 5), 0);
		pd_ft_run(&f, &rng, 20000, 5000);
		mem = kunit_kzalloc(test, plan.bytes, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, mem);
		memcpy(mem, f.mem, plan.bytes);
		memcpy(&fcopy, &f, sizeof(f));
		for (i = 0; i < 10000; i++) {
			pd_ft_elem(i, &h1, &h2);
			yes += pd_filter_query(&f, h1, h2);
		}
		KUNIT_EXPECT_GT_MSG(test, yes, (u64)0, "%s", f.ops->name);
		KUNIT_EXPECT_LT_MSG(test, yes, (u64)10000, "%s", f.ops->name);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(mem, f.mem, plan.bytes), 0,
				    "%s", f.ops->name);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(&fcopy, &f, sizeof(f)), 0,
				    "%s", f.ops->name);
		pd_filter_destroy(&f);
	}
}

/* The occupied fraction of o, in ppm: zero cells or set bits. */
static u64 pd_ft_occ_ppm(const struct pd_filter *f,
			 const struct pd_filter_occ *o)
{
	u64 n = f->ops->counting ? o->zero : o->set;

	return o->units ? n * 1000000 / o->units : 0;
}

/*
 * Occupancy from a bounded read (occ.h), in every family: a read of 64 KiB
 * of a busy 1 MiB filter examines at most that much and estimates the
 * exact fraction within four standard errors of its worst case, 4 x 0.5 /
 * sqrt(1024 lines) = 6.25%; a budget that holds the filter gives the exact
 * answer.
 */
static void pd_filter_occupancy_sampled(struct kunit *test)
{
	const u64 budget = 64 << 10, runs = budget / PD_OCC_LINE;
	const u64 tol = 4 * 500000 / 32;	/* ppm: 4 x 0.5 / sqrt(runs) */
	unsigned int kind;

	for (kind = 0; kind < PD_FILTER_NKINDS; kind++) {
		struct pd_filter_occ all, part;
		struct pd_filter_req req;
		struct pd_filter_plan plan;
		struct pd_filter f;
		u64 rng = 29 + kind, a, b;

		pd_ft_defaults(&req, kind, 1 << 20);
		KUNIT_ASSERT_EQ(test, pd_ft_new(test, &f, &req, &plan, 7), 0);
		pd_ft_run(&f, &rng, 300000, 1ULL << 40);
		pd_filter_occupancy(&f, &all);
		pd_filter_occupancy_within(&f, &part, budget);
		a = pd_ft_occ_ppm(&f, &all);
		b = pd_ft_occ_ppm(&f, &part);
		KUNIT_EXPECT_LE_MSG(test, a > b ? a - b : b - a, tol,
				    "%s: exact %llu ppm, sampled %llu ppm",
				    f.ops->name, (unsigned long long)a,
				    (unsigned long long)b);
		/*
		 * what was examined: no more than the budget's lines hold (at
		 * most 8 units a byte), a part of the filter; the bit-array
		 * families count their loads as they go and answer exactly
		 */
		if (f.ops->counting || f.ops->window) {
			KUNIT_EXPECT_LE(test, part.units,
					runs * PD_OCC_LINE * 8);
			KUNIT_EXPECT_LT_MSG(test, part.units, all.units, "%s",
					    f.ops->name);
		} else {
			KUNIT_EXPECT_EQ(test, part.units, all.units);
		}
		pd_filter_occupancy_within(&f, &part, plan.bytes);
		KUNIT_EXPECT_EQ(test, part.units, all.units);
		KUNIT_EXPECT_EQ(test, part.zero, all.zero);
		KUNIT_EXPECT_EQ(test, part.set, all.set);
		pd_filter_destroy(&f);
	}
}

/*
 * pd_filter_set_seeds makes a run reproducible: two filters of one plan
 * with the same seeds give the same verdicts and end in the same state,
 * whether stepped by pd_filter_step() (the SBF's direct call) or by the
 * family's ops; a different generator state ends elsewhere (every family
 * draws random numbers once it is busy). The seeds are the ones given.
 */
static void pd_filter_reproducible(struct kunit *test)
{
	unsigned int kind;

	for (kind = 0; kind < PD_FILTER_NKINDS; kind++) {
		struct pd_filter_req req;
		struct pd_filter_plan plan;
		struct pd_filter a, b, c;
		u64 i, diff = 0, rng = 99;
		u32 h1, h2;

		pd_ft_defaults(&req, kind, 2048);
		KUNIT_ASSERT_EQ(test, pd_ft_new(test, &a, &req, &plan, 7), 0);
		KUNIT_ASSERT_EQ(test, pd_ft_new(test, &b, &req, &plan, 7), 0);
		KUNIT_ASSERT_EQ(test, pd_ft_new(test, &c, &req, &plan, 8), 0);
		KUNIT_EXPECT_EQ(test, a.hkey.k[0], 0x12345678ULL);
		KUNIT_EXPECT_EQ(test, a.hkey.k[1], 0x9abcdef0ULL);
		for (i = 0; i < 30000; i++) {
			u64 id = pd_rng_next(&rng) % 8000;
			struct pd_pktinfo pi = pd_ft_info(id);
			bool va, vb;

			pd_ft_elem(id, &h1, &h2);
			va = pd_filter_step(&a, h1, h2, &pi);
			vb = b.ops->step(&b, h1, h2, &pi);
			pd_filter_step(&c, h1, h2, &pi);
			if (va != vb)
				diff++;
		}
		KUNIT_EXPECT_EQ_MSG(test, diff, (u64)0, "%s", a.ops->name);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(a.mem, b.mem, plan.bytes), 0,
				    "%s", a.ops->name);
		/* the window families draw no random numbers */
		if (!a.ops->window)
			KUNIT_EXPECT_NE_MSG(test,
					    memcmp(a.mem, c.mem, plan.bytes),
					    0, "%s", a.ops->name);
		pd_filter_destroy(&a);
		pd_filter_destroy(&b);
		pd_filter_destroy(&c);
	}
}

/* pd_filter_plan(req) fails with -EINVAL and a message containing what. */
static void pd_ft_refused(struct kunit *test, const struct pd_filter_req *req,
			  const char *what)
{
	struct pd_filter_plan plan;
	const char *why = NULL;

	KUNIT_EXPECT_EQ_MSG(test, pd_filter_plan(req, &plan, &why), -EINVAL,
			    "kind %u, expected to refuse: %s", req->kind, what);
	KUNIT_ASSERT_NOT_NULL(test, why);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(why, what), "\"%s\"", why);
}

/* pd_filter_create(req) fails with -EINVAL and a message containing what. */
static void pd_ft_create_refused(struct kunit *test,
				 const struct pd_filter_req *req,
				 const char *what)
{
	struct pd_filter_plan plan;
	struct pd_filter f;
	const char *why = NULL;

	KUNIT_EXPECT_EQ(test, pd_filter_create(&f, req, &plan, &why), -EINVAL);
	KUNIT_ASSERT_NOT_NULL(test, why);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(why, what), "\"%s\"", why);
}

/* Bad settings: -EINVAL, and a message that names the setting. */
static void pd_filter_refuses(struct kunit *test)
{
	static const u32 bad_k[] = { 0, 17, 257, PD_FILTER_AUTO - 1 };
	struct pd_filter_req req;
	struct pd_filter_plan plan;
	struct pd_filter f;
	const char *why;
	unsigned int kind, i;

	for (kind = 0; kind < PD_FILTER_NKINDS; kind++) {
		bool takes_k = pd_filter_takes(pd_filter_family(kind), PKTDEDUP_A_SETTINGS_K);

		for (i = 0; takes_k && i < PD_ARRAY_SIZE(bad_k); i++) {
			pd_filter_req_defaults(&req, kind, 1 << 20);
			pd_ft_set(&req, PKTDEDUP_A_SETTINGS_K, bad_k[i]);
			pd_ft_refused(test, &req, "k ");
		}
		pd_filter_req_defaults(&req, kind, 1 << 20);
		req.fps_ppb = 1000000000;
		pd_ft_refused(test, &req, "fps");
	}
	/* rsbf: p* in (0, 1) */
	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_RSBF, 1 << 20);
	pd_bitf_req(&req)->p_star_ppb = 1000000000;
	pd_ft_refused(test, &req, "p-star");
	pd_bitf_req(&req)->p_star_ppb = ~0u;
	pd_ft_refused(test, &req, "p-star");
	/* counting families: max is 2^j - 1; ibf's classes need max >= 3 */
	for (kind = 0; kind < PD_FILTER_NKINDS; kind++) {
		if (!pd_filter_takes(pd_filter_family(kind), PKTDEDUP_A_SETTINGS_CELL_BITS))
			continue;
		pd_filter_req_defaults(&req, kind, 1 << 20);
		pd_ft_set(&req, PKTDEDUP_A_SETTINGS_CELL_BITS, 5);
		pd_ft_refused(test, &req, "max");
		if (kind == PKTDEDUP_FILTER_KIND_SBF)
			continue;
		pd_ibf_req(&req)->max = 1;
		pd_ft_refused(test, &req, "max");
		/* beyond the chains the planner solves */
		pd_ibf_req(&req)->max = 31;
		pd_ft_refused(test, &req, "max");
		/* an importance the uAPI does not have; a mark without mask */
		pd_filter_req_defaults(&req, kind, 1 << 20);
		pd_ibf_req(&req)->importance = PKTDEDUP_IMPORTANCE_MAX + 1;
		pd_ft_create_refused(test, &req, "importance");
		pd_ibf_req(&req)->importance = PKTDEDUP_IMPORTANCE_MARK;
		pd_ft_create_refused(test, &req, "mask");
	}
	/* no such family */
	pd_filter_req_defaults(&req, PD_FILTER_NKINDS, 1 << 20);
	pd_ft_refused(test, &req, "family");
	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF, 1 << 20);
	KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &plan, &why), 0);
	plan.kind = PD_FILTER_NKINDS;
	why = NULL;
	KUNIT_EXPECT_EQ(test, pd_filter_init(&f, &plan, NULL, &why), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, why);
	/* too little memory is refused by every family (not always EINVAL) */
	for (kind = 0; kind < PD_FILTER_NKINDS; kind++) {
		pd_ft_defaults(&req, kind, 4);
		why = NULL;
		KUNIT_EXPECT_LT(test, pd_filter_plan(&req, &plan, &why), 0);
		KUNIT_EXPECT_NOT_NULL(test, why);
	}
}

/*
 * What a filter remembers: the SBF's model gap is the planner's search on
 * its plan; a window's is its effective window, in its unit and the other
 * at the rate; families without either say nothing.
 */
static void pd_filter_memory_of(struct kunit *test)
{
	struct pd_filter_win w = { .timed = true, .effective = 2000000 };
	struct pd_filter_req req;
	struct pd_filter_plan plan;
	struct pd_filter_mem m;
	const char *why = NULL;
	u64 gap;

	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF, 64 << 10);
	pd_sbf_req(&req)->layout = PKTDEDUP_LAYOUT_FLAT;
	KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &plan, &why), 0);
	gap = pd_filter_memory_gap(&plan);
	KUNIT_EXPECT_EQ(test, gap,
			pd_plan_memory_gap(plan.max, plan.k, plan.p,
					   plan.cells,
					   pd_q62_from_ppb(PD_PLAN_MEMORY_FN_PPB)));
	/* 64 KiB of 1-bit cells, flat, K 3, P 11: 159 packets */
	KUNIT_EXPECT_EQ(test, gap, (u64)159);
	/* at 10,000 packets/s */
	KUNIT_EXPECT_TRUE(test, pd_filter_memory(NULL, gap, 10000, &m));
	KUNIT_EXPECT_EQ(test, m.packets, gap);
	KUNIT_EXPECT_EQ(test, m.ns, gap * 100000);
	/* no rate yet: packets alone */
	KUNIT_EXPECT_TRUE(test, pd_filter_memory(NULL, gap, 0, &m));
	KUNIT_EXPECT_EQ(test, m.ns, (u64)0);
	/* a time window of 2 ms at 10,000/s: 20 packets */
	KUNIT_EXPECT_TRUE(test, pd_filter_memory(&w, gap, 10000, &m));
	KUNIT_EXPECT_EQ(test, m.ns, (u64)2000000);
	KUNIT_EXPECT_EQ(test, m.packets, (u64)20);
	/* a packet window of 5000 packets at 10,000/s: 0.5 s */
	w.timed = false;
	w.effective = 5000;
	KUNIT_EXPECT_TRUE(test, pd_filter_memory(&w, 0, 10000, &m));
	KUNIT_EXPECT_EQ(test, m.packets, (u64)5000);
	KUNIT_EXPECT_EQ(test, m.ns, (u64)500000000);
	/* the windows and the bit arrays have no model */
	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_BSBF, 64 << 10);
	KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &plan, &why), 0);
	KUNIT_EXPECT_EQ(test, pd_filter_memory_gap(&plan), (u64)0);
	KUNIT_EXPECT_FALSE(test, pd_filter_memory(NULL, 0, 10000, &m));
}

static struct kunit_case pd_filter_cases[] = {
	KUNIT_CASE(pd_filter_registry),
	KUNIT_CASE(pd_filter_names),
	KUNIT_CASE(pd_filter_settings_codecs),
	KUNIT_CASE(pd_filter_defaults),
	KUNIT_CASE(pd_filter_query_pure),
	KUNIT_CASE(pd_filter_occupancy_sampled),
	KUNIT_CASE(pd_filter_reproducible),
	KUNIT_CASE(pd_filter_refuses),
	KUNIT_CASE(pd_filter_memory_of),
	{}
};

static struct kunit_suite pd_filter_suite = {
	.name = "pktdedup-filter",
	.test_cases = pd_filter_cases,
};

kunit_test_suite(pd_filter_suite);
