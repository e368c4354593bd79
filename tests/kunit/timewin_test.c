// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the window families (timewin.h): expiry at the right tick
 * with a fake clock, no missed copy inside the guaranteed window on
 * fixed-seed streams, the FP rate at capacity within the Bloom bound, and
 * floods that shorten the window instead of raising the FP rate.
 *
 * Tolerances: a count of n verdicts each positive with probability at most
 * p is checked against n p + 5 sqrt(n p (1 - p)) (five binomial standard
 * deviations; the verdicts of one filter are weakly dependent, which the
 * margin covers), and against n p / 2 from below where the filter runs at
 * its capacity (the bound is then the expected rate).
 */
#include <kunit/test.h>

#include "../../module/core/filter.h"
#include "../../module/core/timewin.h"
#include "../../module/core/fixed.h"
#include "../../module/core/rng.h"

#define NS_MS 1000000ULL

static void tw_elem(u64 id, u32 *h1, u32 *h2)
{
	u64 x = pd_rng_next(&id);

	*h1 = (u32)x;
	*h2 = (u32)(x >> 32);
}

static const struct pd_filter_ops *const tw_kinds[] = {
	&pd_sliding_family, &pd_jumping_family, &pd_landmark_family,
};

static int tw_new(struct kunit *test, struct pd_filter *f, u8 kind,
		  u64 window_ns, u64 window_pkts, u32 rate, u32 fps_ppb,
		  struct pd_filter_plan *plan)
{
	struct pd_filter_req req;
	const char *why = NULL;
	int err;

	pd_filter_req_defaults(&req, kind, 1 << 20);
	pd_tw_req(&req)->window_ns = window_ns;
	pd_tw_req(&req)->window_pkts = window_pkts;
	pd_tw_req(&req)->rate = rate;
	req.fps_ppb = fps_ppb;
	err = pd_filter_create(f, &req, plan, &why);
	if (err)
		kunit_err(test, "kind %u: %s", kind, why);
	else
		pd_filter_set_seeds(f, 0x2468ace0, 0x13579bdf, 1);
	return err;
}

/*
 * The span in which no copy is missed, of a window of w ticks planned as
 * plan: all of it (sliding), (s - 1) / s of it (jumping), none (landmark).
 */
static u64 tw_sure(u8 kind, u64 w, const struct pd_filter_plan *plan)
{
	if (kind == PKTDEDUP_FILTER_KIND_SLIDING)
		return w;
	if (kind == PKTDEDUP_FILTER_KIND_JUMPING)
		return w / plan->subwindows * (plan->subwindows - 1);
	return 0;
}

static bool tw_step(struct pd_filter *f, u64 id, u64 t)
{
	struct pd_pktinfo pi = { .now = t };
	u32 h1, h2;

	tw_elem(id, &h1, &h2);
	return pd_filter_step(f, h1, h2, &pi);
}

/* The tolerance above for n verdicts at rate p (Q62). */
static u64 tw_upper(u64 n, u64 p_q62)
{
	u64 np = pd_muldiv(n, p_q62, PD_Q62_ONE);
	u64 var = pd_muldiv(np, PD_Q62_ONE - p_q62, PD_Q62_ONE);

	return np + 5 * pd_isqrt64(var) + 5;
}

/*
 * Sliding, fake clock: a copy 999 ns after its original (window 1000 ns)
 * is a duplicate, one 1000 ns after is not; a packet window of 3 forgets
 * the packet 3 back. Every copy is re-remembered (editcap -w's semantics).
 */
static void tw_sliding_expiry(struct kunit *test)
{
	struct pd_filter_plan plan;
	struct pd_filter f;

	KUNIT_ASSERT_EQ(test, tw_new(test, &f, PKTDEDUP_FILTER_KIND_SLIDING,
				     1000, 0, 0, 0, &plan), 0);
	KUNIT_EXPECT_FALSE(test, tw_step(&f, 1, 5000));
	KUNIT_EXPECT_TRUE(test, tw_step(&f, 1, 5999));	/* 999 later */
	KUNIT_EXPECT_TRUE(test, tw_step(&f, 1, 6998));	/* 999 after that */
	KUNIT_EXPECT_FALSE(test, tw_step(&f, 1, 7998));	/* exactly 1000 */
	KUNIT_EXPECT_FALSE(test, tw_step(&f, 2, 7998));
	/* a clock that goes back counts as the latest time */
	KUNIT_EXPECT_TRUE(test, tw_step(&f, 2, 10));
	pd_filter_destroy(&f);

	KUNIT_ASSERT_EQ(test, tw_new(test, &f, PKTDEDUP_FILTER_KIND_SLIDING,
				     0, 3, 0, 0, &plan), 0);
	KUNIT_EXPECT_EQ(test, plan.capacity, 3ULL);
	KUNIT_EXPECT_FALSE(test, tw_step(&f, 1, 0));
	KUNIT_EXPECT_FALSE(test, tw_step(&f, 2, 0));
	KUNIT_EXPECT_FALSE(test, tw_step(&f, 3, 0));
	KUNIT_EXPECT_TRUE(test, tw_step(&f, 2, 0));	/* 2 back */
	KUNIT_EXPECT_FALSE(test, tw_step(&f, 1, 0));	/* 4 back */
	pd_filter_destroy(&f);
}

/*
 * A reader of the statistics looks up a CPU's sliding window while that
 * CPU steps it (QUERY, /proc's occupancy and window): it may see the
 * ring's frontier, length and latest number from different steps, and a
 * frontier the writer has just stepped to cap before wrapping it to 0.
 * Set by hand, such states must keep every lookup inside the ring (an
 * access past it fails under ASan natively, KASAN in the kernel) and
 * give an answer: a lookup of what was stepped, and the occupancy and
 * window reports, on each.
 */
static void tw_sliding_torn_reader(struct kunit *test)
{
	static const struct {
		u32 head_add, len_add, seq_add;
	} torn[] = {
		{ 0, 0, 0 },		/* as the writer left it */
		{ 1, 0, 0 },		/* the frontier at cap, not yet 0 */
		{ 1, 1, 0 },		/* and a length one past cap */
		{ 0, 1, 3 },		/* a later number with an older frontier */
		{ 1, 1, 70 },		/* every cell older than the ring says */
	};
	struct pd_filter_plan plan;
	struct pd_filter_occ occ;
	struct pd_filter_win w;
	struct pd_slide *sl;
	struct pd_filter f;
	u32 h1, h2, saved[3];
	unsigned int i;
	u64 id;

	KUNIT_ASSERT_EQ(test, tw_new(test, &f, PKTDEDUP_FILTER_KIND_SLIDING,
				     0, 64, 0, 0, &plan), 0);
	KUNIT_ASSERT_EQ(test, plan.capacity, 64ULL);
	for (id = 0; id < 200; id++)
		tw_step(&f, id, 0);
	sl = pd_slide_of(&f);
	saved[0] = sl->head;
	saved[1] = sl->len;
	saved[2] = sl->seq;
	KUNIT_EXPECT_EQ(test, saved[1], 64U);
	for (i = 0; i < PD_ARRAY_SIZE(torn); i++) {
		sl->head = torn[i].head_add ? sl->cap : saved[0];
		sl->len = saved[1] + torn[i].len_add;
		sl->seq = saved[2] + torn[i].seq_add;
		for (id = 130; id < 200; id++) {
			tw_elem(id, &h1, &h2);
			pd_filter_query(&f, h1, h2);
		}
		memset(&occ, 0, sizeof(occ));
		pd_filter_occupancy(&f, &occ);
		KUNIT_EXPECT_EQ_MSG(test, occ.units, plan.cells, "state %u", i);
		KUNIT_EXPECT_TRUE(test, pd_filter_window(&f, &w));
		KUNIT_EXPECT_LE_MSG(test, w.entries, 64ULL, "state %u", i);
	}
	/* as the writer left it, the last 64 are inside */
	sl->head = saved[0];
	sl->len = saved[1];
	sl->seq = saved[2];
	tw_elem(199, &h1, &h2);
	KUNIT_EXPECT_TRUE(test, pd_filter_query(&f, h1, h2));
	pd_filter_destroy(&f);
}

/*
 * Jumping (s = 4 of 250 ns) and landmark (1000 ns), fake clock: a copy
 * inside the guaranteed span is caught; the landmark forgets at its
 * landmark; after a quiet spell longer than the window nothing stale is
 * reported and the packets after it are remembered at once.
 */
static void tw_jumping_expiry(struct kunit *test)
{
	struct pd_filter_req req;
	struct pd_filter_plan plan;
	struct pd_filter f;
	const char *why;
	u32 i;

	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_JUMPING, 1 << 16);
	pd_tw_req(&req)->window_ns = 1000;
	pd_tw_req(&req)->subwindows = 4;
	KUNIT_ASSERT_EQ(test, pd_filter_create(&f, &req, &plan, &why), 0);
	KUNIT_EXPECT_EQ(test, plan.subwindows, 4u);
	KUNIT_EXPECT_FALSE(test, tw_step(&f, 1, 100000));
	/* 3 of 4 subwindows stay live: 750 ns are always remembered */
	KUNIT_EXPECT_TRUE(test, tw_step(&f, 1, 100749));
	KUNIT_EXPECT_FALSE(test, tw_step(&f, 1, 102000));	/* 1251 later */
	/*
	 * quiet for 10 windows: the old key is not reported, and the packets
	 * after the spell are remembered from the first (a new epoch)
	 */
	KUNIT_EXPECT_FALSE(test, tw_step(&f, 1, 112000));
	KUNIT_EXPECT_TRUE(test, tw_step(&f, 1, 112001));
	for (i = 0; i < 20; i++)
		KUNIT_EXPECT_FALSE(test, tw_step(&f, 100 + i, 112002));
	KUNIT_EXPECT_TRUE(test, tw_step(&f, 100, 112003));
	KUNIT_EXPECT_TRUE(test, tw_step(&f, 119, 112003));
	pd_filter_destroy(&f);

	KUNIT_ASSERT_EQ(test, tw_new(test, &f, PKTDEDUP_FILTER_KIND_LANDMARK,
				     1000, 0, 0, 0, &plan), 0);
	KUNIT_EXPECT_EQ(test, plan.subwindows, 1u);
	KUNIT_EXPECT_FALSE(test, tw_step(&f, 1, 0));
	KUNIT_EXPECT_TRUE(test, tw_step(&f, 1, 999));
	/* the landmark at 1000: a copy straddling it is missed */
	KUNIT_EXPECT_FALSE(test, tw_step(&f, 1, 1001));
	KUNIT_EXPECT_TRUE(test, tw_step(&f, 1, 1500));
	pd_filter_destroy(&f);
}

/*
 * A timed stream: packets every 1..2*mean ticks (uniform), each a fresh
 * key with probability 1/2, else a copy of the key of a packet up to
 * `reach` ticks back (uniform over those packets). Counts the copies
 * missed at gaps below `sure` (must be none), the FPs of fresh keys, and
 * the verdicts against the exact window truth.
 */
struct tw_counts {
	u64 fresh, fp, copies, missed_sure, dup_truth;
};

#define TW_HIST 4096

static void tw_run(struct pd_filter *f, u64 seed, u64 n, u64 mean,
		   u64 reach, u64 window, u64 sure, struct tw_counts *c)
{
	static u64 hist_t[TW_HIST], hist_id[TW_HIST];
	u64 rng = seed, t = 1000000, next_id = 1, i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < n; i++) {
		u64 id, last = 0, j, back;
		bool dup, have = false;

		t += 1 + pd_rng_below(&rng, (u32)(2 * mean));
		if (i < 16 || pd_rng_below(&rng, 2)) {
			id = next_id++;
		} else {
			/* a packet within reach, among the last TW_HIST */
			back = 1 + pd_rng_below(&rng, (u32)PD_MIN(i, (u64)TW_HIST - 1));
			while (back > 1 && t - hist_t[(i - back) % TW_HIST] > reach)
				back /= 2;
			id = hist_id[(i - back) % TW_HIST];
		}
		/* the truth: the latest earlier packet with this key */
		for (j = 1; j <= PD_MIN(i, (u64)TW_HIST - 1); j++) {
			if (hist_id[(i - j) % TW_HIST] == id) {
				last = hist_t[(i - j) % TW_HIST];
				have = true;
				break;
			}
		}
		dup = tw_step(f, id, t);
		if (!have) {
			c->fresh++;
			c->fp += dup;
		} else {
			c->copies++;
			c->dup_truth += t - last < window;
			if (t - last < sure && !dup)
				c->missed_sure++;
		}
		hist_t[i % TW_HIST] = t;
		hist_id[i % TW_HIST] = id;
	}
}

/*
 * Each model at half its planned rate on a fixed-seed stream with copies
 * up to two windows back: no copy inside the guaranteed span (the window;
 * (s - 1) / s of it for jumping) is missed, fresh keys are reported within
 * the bound, and nothing expired early.
 */
static void tw_no_fn_inside(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < PD_ARRAY_SIZE(tw_kinds); i++) {
		const struct pd_filter_ops *ops = tw_kinds[i];
		u64 w = NS_MS, sure;
		struct pd_filter_plan plan;
		struct pd_filter_win win;
		struct tw_counts c;
		struct pd_filter f;

		/* 1 ms planned at 2 Mpps; the stream brings 1 Mpps */
		KUNIT_ASSERT_EQ(test, tw_new(test, &f, ops->kind, w, 0,
					     2000000, 10000000, &plan), 0);
		sure = tw_sure(ops->kind, w, &plan);
		tw_run(&f, 42 + i, 60000, 1000, 2 * w, w, sure, &c);
		kunit_info(test, "%s: %llu copies (%llu inside the window), %llu missed inside %llu ns; %llu FP of %llu fresh",
			   ops->name, (unsigned long long)c.copies,
			   (unsigned long long)c.dup_truth,
			   (unsigned long long)c.missed_sure,
			   (unsigned long long)sure, (unsigned long long)c.fp,
			   (unsigned long long)c.fresh);
		KUNIT_EXPECT_EQ_MSG(test, c.missed_sure, 0ULL, "%s", ops->name);
		KUNIT_EXPECT_GT(test, c.copies, 20000ULL);
		KUNIT_EXPECT_GT(test, c.dup_truth, 5000ULL);
		KUNIT_EXPECT_LE_MSG(test, c.fp, tw_upper(c.fresh, plan.fp_bound),
				    "%s", ops->name);
		KUNIT_ASSERT_TRUE(test, pd_filter_window(&f, &win));
		KUNIT_EXPECT_EQ_MSG(test, win.early, 0ULL, "%s", ops->name);
		KUNIT_EXPECT_EQ(test, win.shortest, w);
		KUNIT_EXPECT_FALSE(test, f.alert);
		pd_filter_destroy(&f);
	}
}

/*
 * At capacity: distinct keys only, exactly the planned rate (sliding: a
 * packet window of C). The measured FP rate is the Bloom bound's within
 * the tolerance, from above and below.
 */
static void tw_fp_at_capacity(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < PD_ARRAY_SIZE(tw_kinds); i++) {
		const struct pd_filter_ops *ops = tw_kinds[i];
		struct pd_filter_plan plan;
		struct pd_filter f;
		u64 n = 100000, fp = 0, j, ppw;

		/* a window of 7000 packets, fps 0.01 */
		KUNIT_ASSERT_EQ(test, tw_new(test, &f, ops->kind, 0, 7000, 0,
					     10000000, &plan), 0);
		KUNIT_EXPECT_LE(test, plan.fp_bound,
				pd_q62_from_ppb(10000000));
		ppw = plan.capacity * plan.subwindows;
		KUNIT_EXPECT_GE(test, ppw, 7000ULL);
		for (j = 0; j < ppw; j++)	/* fill */
			tw_step(&f, (u64)1 << 40 | j, 0);
		for (j = 0; j < n; j++)
			fp += tw_step(&f, j + 1, 0);
		kunit_info(test, "%s: k %u cells %llu capacity %llu: %llu FP in %llu, bound %u ppb",
			   ops->name, plan.k, (unsigned long long)plan.cells,
			   (unsigned long long)plan.capacity,
			   (unsigned long long)fp, (unsigned long long)n,
			   pd_q62_to_ppb(plan.fp_bound));
		KUNIT_EXPECT_LE_MSG(test, fp, tw_upper(n, plan.fp_bound), "%s",
				    ops->name);
		/*
		 * jumping and landmark are at capacity only at the end of a
		 * subwindow; their mean load is lower
		 */
		if (ops->kind == PKTDEDUP_FILTER_KIND_SLIDING)
			KUNIT_EXPECT_GE(test, fp,
					pd_muldiv(n, plan.fp_bound,
						  2 * PD_Q62_ONE));
		pd_filter_destroy(&f);
	}
}

/*
 * A flood: 1 ms planned for 1 Mpps receives 10 Mpps of distinct keys.
 * The window shortens (early expiries, the shortest effective window
 * about a tenth of the window), the FP rate stays within the bound, and
 * the alert comes once (the flood lasts 10 ms of the filter's clock).
 */
static void tw_flood(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < PD_ARRAY_SIZE(tw_kinds); i++) {
		const struct pd_filter_ops *ops = tw_kinds[i];
		struct pd_filter_plan plan;
		struct pd_filter_win win;
		struct pd_filter f;
		u64 n = 100000, fp = 0, j, alerts = 0;

		KUNIT_ASSERT_EQ(test, tw_new(test, &f, ops->kind, NS_MS, 0,
					     1000000, 10000000, &plan), 0);
		for (j = 0; j < n; j++) {
			fp += tw_step(&f, j + 1, 5 * NS_MS + 100 * j);
			alerts += f.alert;
			f.alert = false;
		}
		KUNIT_EXPECT_LE_MSG(test, fp, tw_upper(n, plan.fp_bound), "%s",
				    ops->name);
		KUNIT_ASSERT_TRUE(test, pd_filter_window(&f, &win));
		kunit_info(test, "%s flood: %llu FP in %llu (bound %u ppb), %llu early, shortest %llu ns",
			   ops->name, (unsigned long long)fp,
			   (unsigned long long)n, pd_q62_to_ppb(plan.fp_bound),
			   (unsigned long long)win.early,
			   (unsigned long long)win.shortest);
		KUNIT_EXPECT_GT_MSG(test, win.early, 0ULL, "%s", ops->name);
		/* ~1000 packets of 100 ns per window instead of 10000 */
		KUNIT_EXPECT_LT_MSG(test, win.shortest, NS_MS / 5, "%s",
				    ops->name);
		KUNIT_EXPECT_LE(test, win.effective, NS_MS / 5);
		KUNIT_EXPECT_EQ_MSG(test, alerts, 1ULL, "%s", ops->name);
		/* calm again: the window recovers */
		for (j = 0; j < 20000; j++)
			tw_step(&f, n + j + 1, 20 * NS_MS + 2000 * j);
		pd_filter_window(&f, &win);
		KUNIT_EXPECT_EQ_MSG(test, win.effective, NS_MS, "%s",
				    ops->name);
		pd_filter_destroy(&f);
	}
}

/*
 * The planner: a rate sizes the filter (capacity rate x window, split over
 * the subwindows) and memory does not; without a rate the filter fits
 * the memory; bad windows are refused with a message.
 */
static void tw_planner(struct kunit *test)
{
	struct pd_filter_req req;
	struct pd_filter_plan plan;
	const char *why = NULL;
	unsigned int i;
	u64 n;

	for (i = 0; i < PD_ARRAY_SIZE(tw_kinds); i++) {
		u8 kind = tw_kinds[i]->kind;

		pd_filter_req_defaults(&req, kind, 4096);
		pd_tw_req(&req)->window_ns = 2 * NS_MS;
		pd_tw_req(&req)->rate = 1000000;
		KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &plan, &why), 0);
		/*
		 * a subwindow's mean share n = 2000 / s and four Poisson
		 * deviations of it, 4 sqrt(n) (rounded down), and one; at
		 * least the whole window's headroom, 2000 + 4 sqrt(2000)
		 */
		n = 2000 / plan.subwindows;
		KUNIT_EXPECT_EQ(test, plan.capacity, n + 4 * pd_isqrt64(n) + 1);
		KUNIT_EXPECT_GE(test, plan.capacity * plan.subwindows, 2177ULL);
		KUNIT_EXPECT_GT(test, plan.bytes, 4096ULL);
		KUNIT_EXPECT_LE(test, plan.fp_bound,
				pd_q62_from_ppb(PD_TW_DEFAULT_FPS_PPB));
		KUNIT_EXPECT_GE(test, plan.rate, 1000000ULL);
		pd_tw_req(&req)->rate = 0;	/* sized by the memory */
		KUNIT_ASSERT_EQ(test, pd_filter_plan(&req, &plan, &why), 0);
		KUNIT_EXPECT_LE(test, plan.bytes, 4096ULL);
		KUNIT_EXPECT_GT(test, plan.capacity, 10ULL);
		/* both, or neither, kinds of window */
		pd_tw_req(&req)->window_pkts = 1000;
		why = NULL;
		KUNIT_EXPECT_EQ(test, pd_filter_plan(&req, &plan, &why),
				-EINVAL);
		KUNIT_EXPECT_NOT_NULL(test, strstr(why, "window"));
		pd_tw_req(&req)->window_pkts = 0;
		pd_tw_req(&req)->window_ns = 0;
		KUNIT_EXPECT_EQ(test, pd_filter_plan(&req, &plan, &why),
				-EINVAL);
		pd_tw_req(&req)->window_ns = 999;
		KUNIT_EXPECT_EQ(test, pd_filter_plan(&req, &plan, &why),
				-ERANGE);
		/* an hour at 4 Gpps does not fit 4 GiB */
		pd_tw_req(&req)->window_ns = PD_TW_MAX_NS;
		pd_tw_req(&req)->rate = 4000000000u;
		KUNIT_EXPECT_EQ(test, pd_filter_plan(&req, &plan, &why),
				-ERANGE);
		KUNIT_EXPECT_NOT_NULL(test, why);
	}
	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_JUMPING, 1 << 20);
	pd_tw_req(&req)->window_ns = NS_MS;
	pd_tw_req(&req)->subwindows = 1;
	KUNIT_EXPECT_EQ(test, pd_filter_plan(&req, &plan, &why), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "subwindows"));
	pd_tw_req(&req)->subwindows = 64;
	KUNIT_EXPECT_EQ(test, pd_filter_plan(&req, &plan, &why), -EINVAL);
	/* lanes: s + 1 a power of two fills them */
	KUNIT_EXPECT_EQ(test, pd_tw_lane_shift(1), 1u);
	KUNIT_EXPECT_EQ(test, pd_tw_lane_shift(7), 3u);
	KUNIT_EXPECT_EQ(test, pd_tw_lane_shift(8), 4u);
	KUNIT_EXPECT_EQ(test, pd_tw_lane_shift(63), 6u);
}

/* Clear forgets everything and restarts the window's report. */
static void tw_clear(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < PD_ARRAY_SIZE(tw_kinds); i++) {
		struct pd_filter_plan plan;
		struct pd_filter_win win;
		struct pd_filter f;
		u64 j;

		KUNIT_ASSERT_EQ(test, tw_new(test, &f, tw_kinds[i]->kind,
					     NS_MS, 0, 100000, 0, &plan), 0);
		for (j = 0; j < 5000; j++)
			tw_step(&f, j, 1000 * j);
		pd_filter_reset(&f);
		pd_filter_window(&f, &win);
		KUNIT_EXPECT_EQ(test, win.entries, 0ULL);
		KUNIT_EXPECT_EQ(test, win.early, 0ULL);
		KUNIT_EXPECT_EQ(test, win.shortest, NS_MS);
		pd_filter_set_seeds(&f, 0x2468ace0, 0x13579bdf, 1);
		KUNIT_EXPECT_FALSE(test, tw_step(&f, 4999, 5000000));
		KUNIT_EXPECT_TRUE(test, tw_step(&f, 4999, 5000001));
		pd_filter_destroy(&f);
	}
}

/*
 * After a quiet spell, copies older than the window are not reported,
 * even while the spare is still being emptied (a filter far larger than
 * the 200 packets before the spell could clean): the stale subwindow is
 * not brought back to life by new inserts.
 */
static void tw_quiet_spell(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < PD_ARRAY_SIZE(tw_kinds); i++) {
		struct pd_filter_plan plan;
		struct pd_filter f;
		u64 j, dups = 0, t = NS_MS;

		/* 50 ms at 1 Mpps: ~50000 packets of capacity */
		KUNIT_ASSERT_EQ(test, tw_new(test, &f, tw_kinds[i]->kind,
					     50 * NS_MS, 0, 1000000, 0, &plan),
				0);
		for (j = 0; j < 200; j++)
			dups += tw_step(&f, j, t + 1000 * j);
		t += 300 * NS_MS;
		for (j = 0; j < 200; j++)
			dups += tw_step(&f, j, t + 1000 * j);
		KUNIT_EXPECT_EQ_MSG(test, dups, 0ULL, "%s",
				    tw_kinds[i]->name);
		pd_filter_destroy(&f);
	}
}

/*
 * The Bloom bound for load keys, k probes each, in m cells (Q62): the FP
 * rate of a key none of them shares at that load.
 */
static u64 tw_bloom_at(u64 load, u32 k, u64 m)
{
	u64 zero = pd_pow_q62(PD_Q62_ONE - pd_div64(PD_Q62_ONE, m), load * k);

	return pd_pow_q62(PD_Q62_ONE - zero, k);
}

/* What a quiet-then-burst run saw: copies reported, of how many. */
struct tw_qb {
	u64 copies, found, load;
};

#define TW_QB_BUSY 2000		/* one window at the planned 1 Mpps */
#define TW_QB_BURST 200		/* eight bursts of 25 */

/*
 * A busy window (2000 distinct keys, 1000 ns apart: the planned rate,
 * every subwindow and the ring filled), a quiet spell, then eight bursts
 * of 25 new keys (100 ns apart, the bursts 10 us apart), then a copy of
 * each burst packet `delta` after it. The copies alone are counted.
 */
static void tw_qb_run(struct pd_filter *f, u64 w, u64 quiet, u64 delta,
		      struct tw_qb *r)
{
	u64 t = 10 * w, t0, j, id0 = 1ULL << 41;

	memset(r, 0, sizeof(*r));
	for (j = 0; j < TW_QB_BUSY; j++)
		tw_step(f, (1ULL << 40) | j, t + 1000 * j);
	t0 = t + 1000 * (TW_QB_BUSY - 1) + quiet;
	for (j = 0; j < TW_QB_BURST; j++)
		tw_step(f, id0 + j, t0 + (j / 25) * 10000 + (j % 25) * 100);
	for (j = 0; j < TW_QB_BURST; j++) {
		r->copies++;
		r->found += tw_step(f, id0 + j,
				    t0 + (j / 25) * 10000 + (j % 25) * 100 +
				    delta);
	}
	/* what the window holds at the copies: the bursts and the copies */
	r->load = quiet + delta < w ? TW_QB_BUSY + 2 * TW_QB_BURST :
		  2 * TW_QB_BURST;
}

/*
 * Quiet then burst: "drop any copy seen in the last W" whatever the
 * traffic's pattern. A 2 ms window planned for 1 Mpps or sized by 1 MiB
 * (a larger ring, a larger array to empty); after a busy
 * window and a quiet spell of W/2, W or 20 W, copies W/2 after their
 * packets are all found (sliding: inside W; jumping: inside its
 * guaranteed span (s - 1) W / s); copies 1.01 W after theirs (sliding)
 * or 4 W (both) are not reported, but for the Bloom filter's false
 * positives at the window's load: at most the tolerance of the bound at
 * that load (sliding; at most the capacity, so within the plan's
 * fp_bound) or of the plan's bound (jumping, whose subwindows may keep a
 * packet up to W + W / s: 1.01 W is only logged). Landmark guarantees no
 * span and is left out.
 */
static void tw_quiet_burst(struct kunit *test)
{
	static const u64 quiet_x100[] = { 50, 100, 2000 };
	static const u64 delta_x100[] = { 50, 101, 400 };
	const u64 w = 2 * NS_MS;
	unsigned int i, q, d;

	/* sliding, jumping; planned for 1 Mpps, or sized by 1 MiB */
	for (i = 0; i < 4; i++) {
		const struct pd_filter_ops *ops = tw_kinds[i & 1];
		u32 rate = i < 2 ? 1000000 : 0;

		for (q = 0; q < PD_ARRAY_SIZE(quiet_x100); q++) {
			for (d = 0; d < PD_ARRAY_SIZE(delta_x100); d++) {
				u64 quiet = w * quiet_x100[q] / 100;
				u64 delta = w * delta_x100[d] / 100, p;
				struct pd_filter_plan plan;
				struct pd_filter f;
				struct tw_qb r;

				KUNIT_ASSERT_EQ(test,
						tw_new(test, &f, ops->kind, w,
						       0, rate, 0, &plan),
						0);
				tw_qb_run(&f, w, quiet, delta, &r);
				kunit_info(test, "%s (%s): quiet %llu%% W, copies %llu%% W later: %llu of %llu reported",
					   ops->name, rate ? "1 Mpps" : "1 MiB",
					   (unsigned long long)quiet_x100[q],
					   (unsigned long long)delta_x100[d],
					   (unsigned long long)r.found,
					   (unsigned long long)r.copies);
				if (delta < w) {
					KUNIT_EXPECT_EQ_MSG(test, r.found,
							    r.copies,
							    "%s quiet %llu%%",
							    ops->name,
							    (unsigned long long)quiet_x100[q]);
				} else if (ops->kind ==
					   PKTDEDUP_FILTER_KIND_SLIDING ||
					   delta >= 2 * w) {
					p = ops->kind ==
					    PKTDEDUP_FILTER_KIND_SLIDING ?
					    tw_bloom_at(r.load, plan.k,
							plan.cells) :
					    plan.fp_bound;
					KUNIT_EXPECT_LE_MSG(test, r.found,
							    tw_upper(r.copies,
								     p),
							    "%s quiet %llu%% delta %llu%%",
							    ops->name,
							    (unsigned long long)quiet_x100[q],
							    (unsigned long long)delta_x100[d]);
				}
				pd_filter_destroy(&f);
			}
		}
	}
}

/*
 * A random pattern, fixed seed: packets at the planned rate (gaps uniform
 * in 1..4000 ns for 0.5 Mpps) broken by a quiet spell of up to 5 W about
 * every 300 packets, a third of them copies of one of the last 4095
 * packets: the sliding window misses no copy inside W, the jumping
 * window none inside its guaranteed span (but those whose packet may
 * have left early: an early expiry since it), and no copy older than W
 * is reported by the sliding window beyond the tolerance of the bound.
 */
static void tw_quiet_burst_random(struct kunit *test)
{
	const u64 w = NS_MS;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		const struct pd_filter_ops *ops = tw_kinds[i];
		static u64 ids[TW_HIST], ts[TW_HIST], early[TW_HIST];
		u64 rng = 77 + i, t = w, next = 1, n, sure;
		u64 stale = 0, stale_dup = 0, inside = 0, missed = 0;
		struct pd_filter_plan plan;
		struct pd_filter_win win;
		struct pd_filter f;

		KUNIT_ASSERT_EQ(test, tw_new(test, &f, ops->kind, w, 0,
					     500000, 0, &plan), 0);
		sure = tw_sure(ops->kind, w, &plan);
		for (n = 0; n < 60000; n++) {
			u64 id, gap, j, last = 0, early_then = 0;
			bool have = false, dup;

			/* a quiet spell every 300 packets or so */
			gap = pd_rng_below(&rng, 300) ?
			      1 + pd_rng_below(&rng, 4000) :
			      pd_rng_below(&rng, (u32)(5 * w));
			t += gap;
			if (n < 16 || pd_rng_below(&rng, 3)) {
				id = next++;
			} else {
				/* a copy of one of the last packets */
				j = 1 + pd_rng_below(&rng,
						     (u32)PD_MIN(n, (u64)TW_HIST - 1));
				id = ids[(n - j) % TW_HIST];
			}
			for (j = 1; j <= PD_MIN(n, (u64)TW_HIST - 1); j++) {
				if (ids[(n - j) % TW_HIST] == id) {
					last = ts[(n - j) % TW_HIST];
					early_then = early[(n - j) % TW_HIST];
					have = true;
					break;
				}
			}
			dup = tw_step(&f, id, t);
			pd_filter_window(&f, &win);
			/* a copy whose packet may have expired early is not judged */
			if (have && t - last < sure && win.early == early_then) {
				inside++;
				missed += !dup;
			}
			if (have && t - last >= w) {
				stale++;
				stale_dup += dup;
			}
			ids[n % TW_HIST] = id;
			ts[n % TW_HIST] = t;
			early[n % TW_HIST] = win.early;
		}
		kunit_info(test, "%s: %llu of %llu copies inside %llu ns missed; %llu of %llu older than W reported; %llu early",
			   ops->name, (unsigned long long)missed,
			   (unsigned long long)inside, (unsigned long long)sure,
			   (unsigned long long)stale_dup,
			   (unsigned long long)stale,
			   (unsigned long long)win.early);
		KUNIT_EXPECT_GT(test, inside, 1000ULL);
		KUNIT_EXPECT_GT(test, stale, 1000ULL);
		KUNIT_EXPECT_EQ_MSG(test, missed, 0ULL, "%s", ops->name);
		if (ops->kind == PKTDEDUP_FILTER_KIND_SLIDING)
			KUNIT_EXPECT_LE(test, stale_dup,
					tw_upper(stale, plan.fp_bound));
		pd_filter_destroy(&f);
	}
}

/*
 * The numbers wrap: a sliding window whose packet numbers pass 2^32 (with
 * 16-bit stamps, planned by rate, and 32-bit ones, sized by 4 MiB), and a
 * jumping window whose epoch passes it at a reset, behave as any other in
 * the quiet-then-burst pattern (copies W/2 late all found, 4 W late none
 * beyond the tolerance of the bound).
 */
static void tw_wrap(struct kunit *test)
{
	const u64 w = 2 * NS_MS;
	unsigned int i, d;

	/* sliding by rate (16-bit stamps), by 4 MiB (32-bit); jumping */
	for (i = 0; i < 3; i++) {
		for (d = 0; d < 2; d++) {
			const struct pd_filter_ops *ops = tw_kinds[i / 2];
			struct pd_filter_plan plan;
			struct pd_filter_req req;
			struct pd_filter f;
			const char *why;
			struct tw_qb r;

			pd_filter_req_defaults(&req, ops->kind, 4 << 20);
			pd_tw_req(&req)->window_ns = w;
			pd_tw_req(&req)->rate = i == 1 ? 0 : 1000000;
			KUNIT_ASSERT_EQ(test,
					pd_filter_create(&f, &req, &plan, &why),
					0);
			pd_filter_set_seeds(&f, 0x2468ace0, 0x13579bdf, 1);
			if (i < 2) {
				KUNIT_EXPECT_EQ(test, pd_slide_of(&f)->wide, i == 1);
				/* 2^32 - 2100: the busy window crosses it */
				pd_slide_of(&f)->seq = 0xffffffffu - 2100;
			} else {
				/* every line of epoch 2^32 - 1; a reset wraps */
				memset(pd_jump_of(&f)->mark, 0xff,
				       pd_jump_of(&f)->nlines * sizeof(u32));
				pd_jump_of(&f)->epoch = 0xffffffffu;
			}
			tw_qb_run(&f, w, 20 * w, d ? 4 * w : w / 2, &r);
			if (i == 2)
				KUNIT_EXPECT_LT(test, pd_jump_of(&f)->epoch, 3u);
			else
				KUNIT_EXPECT_LT(test, pd_slide_of(&f)->seq, 3000u);
			if (d)
				KUNIT_EXPECT_LE_MSG(test, r.found,
						    tw_upper(r.copies,
							     plan.fp_bound),
						    "%s", ops->name);
			else
				KUNIT_EXPECT_EQ_MSG(test, r.found, r.copies,
						    "%s", ops->name);
			pd_filter_destroy(&f);
		}
	}
}

/*
 * What a window reports after a quiet spell: no entry (sliding: the ring's
 * entries less than W old, whatever the frontier; jumping: no live
 * subwindow) and no cell set by a packet inside (occupancy), then the
 * burst's packets alone.
 */
static void tw_report_after_quiet(struct kunit *test)
{
	const u64 w = 2 * NS_MS;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct pd_filter_plan plan;
		struct pd_filter_win win;
		struct pd_filter_occ occ = { 0 };
		struct pd_filter f;
		u64 j, t = w;

		KUNIT_ASSERT_EQ(test, tw_new(test, &f, tw_kinds[i]->kind, w, 0,
					     1000000, 0, &plan), 0);
		for (j = 0; j < 2000; j++)
			tw_step(&f, j, t + 1000 * j);
		pd_filter_window(&f, &win);
		KUNIT_EXPECT_GE(test, win.entries, 1900ULL);
		/* 20 W later: ten packets */
		t += 2000 * 1000 + 20 * w;
		for (j = 0; j < 10; j++)
			tw_step(&f, 5000 + j, t + j);
		pd_filter_window(&f, &win);
		KUNIT_EXPECT_EQ_MSG(test, win.entries, 10ULL, "%s",
				    tw_kinds[i]->name);
		KUNIT_EXPECT_EQ(test, win.stuck, 0ULL);
		pd_filter_occupancy(&f, &occ);
		/* at most K cells or positions for each of the ten */
		if (f.ops->counting)
			KUNIT_EXPECT_GE(test, occ.zero,
					occ.units - 10 * plan.k);
		else
			KUNIT_EXPECT_LE(test, occ.set, 10ULL * plan.k);
		pd_filter_destroy(&f);
	}
}

static struct kunit_case pd_timewin_cases[] = {
	KUNIT_CASE(tw_quiet_spell),
	KUNIT_CASE(tw_quiet_burst),
	KUNIT_CASE(tw_quiet_burst_random),
	KUNIT_CASE(tw_wrap),
	KUNIT_CASE(tw_report_after_quiet),
	KUNIT_CASE(tw_sliding_expiry),
	KUNIT_CASE(tw_sliding_torn_reader),
	KUNIT_CASE(tw_jumping_expiry),
	KUNIT_CASE(tw_no_fn_inside),
	KUNIT_CASE(tw_fp_at_capacity),
	KUNIT_CASE(tw_flood),
	KUNIT_CASE(tw_planner),
	KUNIT_CASE(tw_clear),
	{}
};

static struct kunit_suite pd_timewin_suite = {
	.name = "pktdedup-timewin",
	.test_cases = pd_timewin_cases,
};

kunit_test_suite(pd_timewin_suite);
