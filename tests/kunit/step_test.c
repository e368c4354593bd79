// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the bound on one element's step (step.h). Each family's
 * plan gives step_lines, the most 64-byte lines of its memory a step
 * reads or writes; the tests compare the filter's memory before and after
 * each step and count the lines that changed: at most the bound in the
 * worst states they can build (a decrement run over non-zero cells that
 * wraps, probes in lines of their own, a jumping window's spare emptied
 * nine steps at once, a sweep after a quiet spell) and over busy runs of
 * every family. The generic check admits a plan at PD_STEP_MAX_LINES and
 * refuses one line above it, naming the setting; the planners' own
 * choices are never refused. Seeds are fixed.
 */
#include <kunit/test.h>

#include "../../module/core/bitf.h"
#include "../../module/core/filter.h"
#include "../../module/core/ibf.h"
#include "../../module/core/rng.h"
#include "../../module/core/shard.h"
#include "../../module/core/timewin.h"

/* Lines (64-byte blocks from the start) that differ between a and b. */
static u64 pd_st_changed(const u8 *a, const u8 *b, u64 bytes)
{
	u64 at, n = 0;

	for (at = 0; at < bytes; at += PD_STEP_LINE_BYTES)
		n += memcmp(a + at, b + at,
			    PD_MIN((u64)PD_STEP_LINE_BYTES, bytes - at)) != 0;
	return n;
}

/* The hashes of element id. */
static void pd_st_elem(u64 id, u32 *h1, u32 *h2)
{
	u64 x = pd_rng_next(&id);

	*h1 = (u32)x;
	*h2 = (u32)(x >> 32);
}

/* One step of f, and the lines it changed (snap: room for its memory). */
static u64 pd_st_step(struct pd_filter *f, const struct pd_filter_plan *plan,
		      u8 *snap, u32 h1, u32 h2, const struct pd_pktinfo *pi)
{
	memcpy(snap, f->mem, plan->bytes);
	pd_filter_step(f, h1, h2, pi);
	return pd_st_changed(snap, f->mem, plan->bytes);
}

static int pd_st_create(struct kunit *test, struct pd_filter *f,
			const struct pd_filter_req *req,
			struct pd_filter_plan *plan)
{
	const char *why = NULL;
	int err = pd_filter_create(f, req, plan, &why);

	if (err)
		kunit_err(test, "kind %u: %s", req->kind, why);
	else
		pd_filter_set_seeds(f, 0x5eed, 0xb0b, 99);
	return err;
}

/* Every d-bit cell 1: a byte of 0xff, 0x55, 0x11 or 0x01. */
static u8 pd_st_ones(unsigned int d)
{
	return d == 1 ? 0xff : d == 2 ? 0x55 : d == 4 ? 0x11 : 0x01;
}

/* Whether line l is in the n lines of ls. */
static bool pd_st_has(const u64 *ls, unsigned int n, u64 l)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ls[i] == l)
			return true;
	return false;
}

/* Mark in inrun (a byte per line) the lines the decrement run from start covers. */
static u64 pd_st_run_lines(const struct pd_sbf *s, u64 start, u8 *inrun,
			   u64 nlines)
{
	u64 i, c, cpl = 1ULL << s->cpl_shift, n = 0;

	memset(inrun, 0, nlines);
	for (i = 0; i < s->p; i++) {
		/* blocked: wrapping inside start's line; flat: at m */
		c = s->blocked ? (start & ~(cpl - 1)) + ((start + i) & (cpl - 1)) :
		    (start + i) % s->cells;
		n += !inrun[c * s->d / 512];
		inrun[c * s->d / 512] = 1;
	}
	return n;
}

/*
 * The counting families' worst step: every cell 1, the decrement run from
 * a start inside a line that wraps at m (or, blocked, inside its line),
 * and a key whose K probes are zero cells in K lines of their own, away
 * from the run's: the run changes every line it covers and each set a
 * line more, exactly those; at most the bound, which is tight within its
 * lines of alignment (3: a run's start, the filter's end and start).
 */
static void pd_step_sbf_worst(struct kunit *test)
{
	static const struct {
		u8 kind;
		u32 max, k, p;
		u8 layout;
		u64 mem;
	} cfg[] = {
		{ PKTDEDUP_FILTER_KIND_SBF, 1, 3, 11, PKTDEDUP_LAYOUT_FLAT, 64 << 10 },
		{ PKTDEDUP_FILTER_KIND_SBF, 1, 16, 120000, PKTDEDUP_LAYOUT_FLAT, 1 << 20 },
		{ PKTDEDUP_FILTER_KIND_SBF, 3, 7, 3001, PKTDEDUP_LAYOUT_FLAT, 64 << 10 },
		{ PKTDEDUP_FILTER_KIND_SBF, 255, 16, 15000, PKTDEDUP_LAYOUT_FLAT, 1 << 20 },
		{ PKTDEDUP_FILTER_KIND_SBF, 1, 8, 512, PKTDEDUP_LAYOUT_BLOCKED, 64 << 10 },
		{ PKTDEDUP_FILTER_KIND_IBF_MC, 15, 16, 30000, PKTDEDUP_LAYOUT_FLAT, 1 << 20 },
		{ PKTDEDUP_FILTER_KIND_IBF_2C, 7, 5, 1000, PKTDEDUP_LAYOUT_FLAT, 64 << 10 },
	};
	unsigned int ci, w, i;

	for (ci = 0; ci < PD_ARRAY_SIZE(cfg); ci++) {
		struct pd_pktinfo pi = { .dscp = 46, .mark = 15 };
		u64 start, changed, want, nlines, ls[PD_SBF_MAX_K];
		u32 pos[PD_SBF_MAX_K], h1, h2, id;
		struct pd_filter_plan plan;
		struct pd_filter_req req;
		struct pd_filter f;
		struct pd_sbf *s;
		u8 *snap, *inrun;

		pd_filter_req_defaults(&req, cfg[ci].kind, cfg[ci].mem);
		if (cfg[ci].kind == PKTDEDUP_FILTER_KIND_SBF) {
			pd_sbf_req(&req)->max = cfg[ci].max;
			pd_sbf_req(&req)->k = cfg[ci].k;
			pd_sbf_req(&req)->p = cfg[ci].p;
			pd_sbf_req(&req)->layout = cfg[ci].layout;
		} else {
			pd_ibf_req(&req)->max = cfg[ci].max;
			pd_ibf_req(&req)->k = cfg[ci].k;
			pd_ibf_req(&req)->p = cfg[ci].p;
		}
		KUNIT_ASSERT_EQ(test, pd_st_create(test, &f, &req, &plan), 0);
		KUNIT_ASSERT_LE(test, plan.step_lines, (u64)PD_STEP_MAX_LINES);
		s = cfg[ci].kind == PKTDEDUP_FILTER_KIND_SBF ? pd_sbf_of(&f) :
		    &pd_ibf_of(&f)->sbf;
		nlines = (plan.bytes + 63) / 64;
		snap = kunit_kzalloc(test, plan.bytes, GFP_KERNEL);
		inrun = kunit_kzalloc(test, nlines, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, snap);
		KUNIT_ASSERT_NOT_NULL(test, inrun);
		/* runs that wrap at m, or in a blocked line; one from mid-line */
		for (w = 0; w < 2; w++) {
			memset(f.mem, pd_st_ones(s->d), plan.bytes);
			if (s->blocked)
				start = ((u64)(s->lines / 2) << s->cpl_shift) +
					(1ULL << s->cpl_shift) - s->p / 2 + w;
			else
				start = w ? s->cells / 2 + 5 :
				      s->cells - s->p / 2 - 3;
			s->gen.next_dec = (u32)start;
			want = pd_st_run_lines(s, start, inrun, nlines);
			/* a key whose K cells lie in lines of their own */
			for (id = 1; ; id++) {
				unsigned int n = 0;
				bool ok = true;

				KUNIT_ASSERT_LT(test, id, 1000000u);
				pd_st_elem(id, &h1, &h2);
				pd_sbf_positions(s, h1, h2, pos);
				for (i = 0; i < s->k && ok; i++) {
					u64 l = (u64)pos[i] * s->d / 512;

					ok = !inrun[l];
					if (!pd_st_has(ls, n, l))
						ls[n++] = l;
				}
				/* flat: K lines; blocked: the key's one */
				if (ok && n == (s->blocked ? 1u : s->k)) {
					want += n;
					break;
				}
			}
			/* the probes zero: setting them changes their lines */
			for (i = 0; i < s->k; i++) {
				u64 *wd = &s->words[pos[i] >> s->cpw_shift];
				unsigned int sh = (pos[i] &
						   ((1u << s->cpw_shift) - 1)) * s->d;

				*wd &= ~((u64)s->max << sh);
			}
			changed = pd_st_step(&f, &plan, snap, h1, h2, &pi);
			KUNIT_EXPECT_EQ_MSG(test, changed, want,
					    "%s max %u k %u p %u, run from %llu",
					    f.ops->name, s->max, s->k, s->p,
					    (unsigned long long)start);
			KUNIT_EXPECT_LE_MSG(test, changed, plan.step_lines,
					    "%s max %u k %u p %u, run from %llu",
					    f.ops->name, s->max, s->k, s->p,
					    (unsigned long long)start);
			KUNIT_EXPECT_GE_MSG(test, changed + 3, plan.step_lines,
					    "%s max %u k %u p %u: bound %llu",
					    f.ops->name, s->max, s->k, s->p,
					    (unsigned long long)plan.step_lines);
		}
		pd_filter_destroy(&f);
	}
}

/*
 * RSBF in phase 3 (as after s / p* elements), its arrays half set: a
 * distinct element's zero bits each reset a set bit found by a search.
 */
static void pd_st_rsbf_phase3(struct pd_filter *f,
			      const struct pd_filter_plan *plan)
{
	struct pd_bitf *b = pd_bitf_of(f);
	u64 rng = 4242, *w = f->mem, i;
	unsigned int a;

	for (i = 0; i < plan->bytes / sizeof(u64); i++)
		w[i] = pd_rng_next(&rng);
	for (a = 0; a < b->k; a++)
		b->load[a] = (u32)pd_bitf_count(b, a);
	b->iter = b->iter3;
}

/*
 * Every family over a busy run: 4000 elements of a universe of 1500 (both
 * verdicts come up; the bit families reach their resets, RSBF starts in
 * its phase 3), each step's changed lines within the bound; windows at
 * 1 Mpps, at the rate they are planned for, with a quiet spell of 1 ms
 * (five windows) halfway: they jump, expire, clean and sweep.
 */
static void pd_step_busy(struct kunit *test)
{
	unsigned int kind, ki;

	for (kind = 0; kind < PD_FILTER_NKINDS; kind++) {
		const struct pd_filter_ops *ops = pd_filter_family(kind);
		static const u64 ks[] = { PD_FILTER_AUTO, 16 };

		for (ki = 0; ki < PD_ARRAY_SIZE(ks); ki++) {
			const struct pd_setting *k =
				pd_filter_setting(ops, PKTDEDUP_A_SETTINGS_K);
			struct pd_filter_plan plan;
			struct pd_filter_req req;
			struct pd_filter f;
			u64 rng = 7 + kind, i, worst = 0;
			u8 *snap;

			if (ki && !k)
				continue;
			pd_filter_req_defaults(&req, (u8)kind, 16 << 10);
			if (ops->window) {
				pd_tw_req(&req)->window_ns = 200000;	/* 200 us */
				pd_tw_req(&req)->rate = 1000000;
			}
			if (ki)
				pd_setting_set(&req, k, ks[ki]);
			KUNIT_ASSERT_EQ(test, pd_st_create(test, &f, &req, &plan),
					0);
			if (kind == PKTDEDUP_FILTER_KIND_RSBF)
				pd_st_rsbf_phase3(&f, &plan);
			KUNIT_EXPECT_GE(test, plan.step_lines, 1ULL);
			KUNIT_EXPECT_LE(test, plan.step_lines,
					(u64)PD_STEP_MAX_LINES);
			snap = kunit_kzalloc(test, plan.bytes, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, snap);
			for (i = 0; i < 4000; i++) {
				u64 id = pd_rng_next(&rng) % 1500;
				/* 1 Mpps, a quiet spell of 1 ms halfway */
				struct pd_pktinfo pi = {
					.now = i * 1000 + (i > 2000) * 1000000,
					.dscp = (u8)(id % 64), .mark = (u32)id,
				};
				u32 h1, h2;

				pd_st_elem(id, &h1, &h2);
				worst = PD_MAX(worst, pd_st_step(&f, &plan, snap,
								 h1, h2, &pi));
			}
			KUNIT_EXPECT_LE_MSG(test, worst, plan.step_lines,
					    "%s k %u", ops->name, plan.k);
			kunit_info(test, "%s k %u: at most %llu lines changed, bound %llu",
				   ops->name, plan.k, (unsigned long long)worst,
				   (unsigned long long)plan.step_lines);
			pd_filter_destroy(&f);
		}
	}
}

/*
 * A jumping window's worst steps: its spare, every word dirty, emptied
 * at its step and eight times it at once while a due jump waits for it;
 * and after a quiet spell, the sweep of the epoch's lines (every mark
 * old, every word set). 63 subwindows of 4 packets (a 252-packet window
 * at fps 10^-6): the spare is emptied over 2 packets.
 */
static void pd_step_jump_worst(struct kunit *test)
{
	struct pd_filter_plan plan;
	struct pd_filter_req req;
	struct pd_pktinfo pi = { 0 };
	struct pd_filter f;
	struct pd_jump *j;
	u64 changed, least;
	u32 h1, h2, l;
	u8 *snap;

	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_JUMPING, 0);
	pd_tw_req(&req)->window_pkts = 252;
	pd_tw_req(&req)->subwindows = 63;
	req.fps_ppb = 1000;
	KUNIT_ASSERT_EQ(test, pd_st_create(test, &f, &req, &plan), 0);
	j = pd_jump_of(&f);
	KUNIT_ASSERT_GT(test, j->clean_step, 1u);
	snap = kunit_kzalloc(test, plan.bytes, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, snap);
	pd_st_elem(1, &h1, &h2);
	pd_filter_step(&f, h1, h2, &pi);	/* the clock starts */
	/* a due jump, a dirty spare from its first word */
	memset(j->words, 0xff, (size_t)j->nwords * sizeof(u64));
	j->clean_pos = 0;
	j->slot[j->cur].start = j->w.now - j->sub;
	j->slot[j->cur].keys = 1;
	pd_st_elem(2, &h1, &h2);
	changed = pd_st_step(&f, &plan, snap, h1, h2, &pi);
	least = PD_MIN(9ULL * j->clean_step, (u64)j->nwords) / 8;
	KUNIT_EXPECT_LE(test, changed, plan.step_lines);
	KUNIT_EXPECT_GE_MSG(test, changed, least, "clean step %u, %u words",
			    j->clean_step, j->nwords);
	/* a quiet spell of a window: a new epoch, then its sweep */
	memset(j->words, 0xff, (size_t)j->nwords * sizeof(u64));
	for (l = 0; l < j->nlines; l++)
		j->mark[l] = j->epoch;
	j->slot[j->cur].keys = 1;
	j->slot[j->cur].end = j->w.now;
	j->w.now += j->w.window;	/* the next packet is a window later */
	pd_st_elem(3, &h1, &h2);
	changed = pd_st_step(&f, &plan, snap, h1, h2, &pi);
	l = PD_MIN(j->sweep_step, j->nlines);	/* the lines it swept */
	KUNIT_EXPECT_EQ(test, j->sweep_left, j->nlines - l);
	KUNIT_EXPECT_LE(test, changed, plan.step_lines);
	KUNIT_EXPECT_GE(test, changed, (u64)PD_MIN(j->sweep_step, j->nlines));
	pd_filter_destroy(&f);
}

/*
 * The generic check: a plan of PD_STEP_MAX_LINES lines is built, one of a
 * line more is refused with -EFBIG and a message that names the setting
 * and its value, the numbers and what to change; its plan is left for
 * that message. Flat SBF, Max 1, K 3 over 1 MiB: 3 + ceil(P / 512) + 3
 * lines; IBF-MC, Max 15 (4-bit cells), K 5: 5 + ceil(P / 128) + 3.
 */
static void pd_step_check_edges(struct kunit *test)
{
	static const struct {
		u8 kind;
		u32 max, k, p;
	} cfg[] = {
		{ PKTDEDUP_FILTER_KIND_SBF, 1, 3, 250 * 512 },
		{ PKTDEDUP_FILTER_KIND_IBF_MC, 15, 5, 248 * 128 },
	};
	static const char tail[] =
		"at most 256 lines (16384 bytes) a packet: lower p";
	char msg[PD_FILTER_REFUSAL_LEN], want[96];
	struct pd_filter_plan plan;
	struct pd_filter_req req;
	const char *why;
	struct pd_filter f;
	unsigned int ci;
	int err;

	for (ci = 0; ci < PD_ARRAY_SIZE(cfg); ci++) {
		pd_filter_req_defaults(&req, cfg[ci].kind, 1 << 20);
		if (cfg[ci].kind == PKTDEDUP_FILTER_KIND_SBF) {
			pd_sbf_req(&req)->max = cfg[ci].max;
			pd_sbf_req(&req)->k = cfg[ci].k;
			pd_sbf_req(&req)->p = cfg[ci].p;
			pd_sbf_req(&req)->layout = PKTDEDUP_LAYOUT_FLAT;
		} else {
			pd_ibf_req(&req)->max = cfg[ci].max;
			pd_ibf_req(&req)->k = cfg[ci].k;
			pd_ibf_req(&req)->p = cfg[ci].p;
		}
		why = NULL;
		KUNIT_ASSERT_EQ(test, pd_filter_create(&f, &req, &plan, &why), 0);
		KUNIT_EXPECT_EQ(test, plan.step_lines, (u64)PD_STEP_MAX_LINES);
		pd_filter_destroy(&f);
		if (cfg[ci].kind == PKTDEDUP_FILTER_KIND_SBF)
			pd_sbf_req(&req)->p = cfg[ci].p + 1;
		else
			pd_ibf_req(&req)->p = cfg[ci].p + 1;
		why = NULL;
		err = pd_filter_plan(&req, &plan, &why);
		KUNIT_EXPECT_EQ(test, err, -EFBIG);
		KUNIT_ASSERT_NOT_NULL(test, why);
		KUNIT_EXPECT_EQ(test, plan.step_lines, PD_STEP_MAX_LINES + 1ULL);
		KUNIT_EXPECT_EQ(test, plan.step_attr,
				(u16)PKTDEDUP_A_SETTINGS_P);
		snprintf(want, sizeof(want),
			 "p %u: one packet would touch up to 257 lines (16448 bytes)",
			 cfg[ci].p + 1);
		pd_filter_refusal(&req, &plan, err, why, msg, sizeof(msg));
		KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(msg, want), "%s", msg);
		KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(msg, tail), "%s", msg);
		why = NULL;
		KUNIT_EXPECT_EQ(test, pd_filter_create(&f, &req, &plan, &why),
				-EFBIG);
		/* other refusals keep their own words */
		why = pd_filter_refusal(&req, &plan, -EINVAL, tail, msg,
					sizeof(msg));
		KUNIT_EXPECT_TRUE(test, why == tail);
	}
	/* a filter smaller than the bound: its lines, whatever P */
	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF, 4096);
	pd_sbf_req(&req)->max = 1;
	pd_sbf_req(&req)->k = 16;
	pd_sbf_req(&req)->p = 32768;
	KUNIT_EXPECT_EQ(test, pd_filter_plan(&req, &plan, &why), 0);
	KUNIT_EXPECT_EQ(test, plan.step_lines, 64ULL);
}

/*
 * The report's configuration, and where the refusal points: p asked,
 * then the k that makes the planner's P too many, then fps (a jumping
 * window of 63 subwindows at fps 10^-9, its spare emptied over a few
 * packets). Scope shared, lock-free and in shards, refuses the same.
 */
static void pd_step_refusal_words(struct kunit *test)
{
	static const char *const words[] = {
		"p 100000000: one packet would touch up to 195317 lines (12500288 bytes) of the filter in its P decrements; at most 256 lines (16384 bytes) a packet: lower p, or leave it auto",
		"k 1: one packet would touch up to",
		"fps 0.000000001: one packet would touch up to",
	};
	char msg[PD_FILTER_REFUSAL_LEN];
	struct pd_filter_plan plan, shard;
	struct pd_filter_req req;
	const char *why = NULL;
	unsigned int i;
	int err;

	for (i = 0; i < PD_ARRAY_SIZE(words); i++) {
		if (i < 2) {
			pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF,
					       16 << 20);
			pd_sbf_req(&req)->max = 1;
			pd_sbf_req(&req)->k = 1;
			pd_sbf_req(&req)->p = i ? PD_FILTER_AUTO : 100000000;
			pd_sbf_req(&req)->layout = PKTDEDUP_LAYOUT_FLAT;
			req.fps_ppb = i ? 1000 : 0;
		} else {
			pd_filter_req_defaults(&req,
					       PKTDEDUP_FILTER_KIND_JUMPING, 0);
			pd_tw_req(&req)->window_ns = 1000000000;
			pd_tw_req(&req)->rate = 1486;
			pd_tw_req(&req)->subwindows = 63;
			req.fps_ppb = 1;
		}
		err = pd_filter_plan(&req, &plan, &why);
		KUNIT_EXPECT_EQ(test, err, -EFBIG);
		pd_filter_refusal(&req, &plan, err, why, msg, sizeof(msg));
		KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(msg, words[i]), "%s",
					  msg);
		if (i)
			continue;
		err = pd_shards_plan_shared(&req, 0, 2, &shard, &plan, &why);
		KUNIT_EXPECT_EQ(test, err, -EFBIG);
		pd_filter_refusal(&req, &plan, err, why, msg, sizeof(msg));
		KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(msg, words[i]), "%s",
					  msg);
		err = pd_shards_plan_shared(&req, 16, 2, &shard, &plan, &why);
		KUNIT_EXPECT_EQ(test, err, -EFBIG);
	}
}

/*
 * The planners' own choices are never refused: the SBF's K and Max for
 * targets from 10^-9 to 0.5, gaps to 2^48 and filters to 512 MiB (its
 * planner picks within the bound: at fps 10^-9 and a gap far beyond the
 * filter it once took K 1, P 10^9), the IBFs' P, the bit arrays' k, the
 * windows at their default target and any number of subwindows, at rates
 * from 1 to 10^6 packets a second.
 */
static void pd_step_auto_within(struct kunit *test)
{
	static const u64 fps[] = { 1, 1000, 1000000, 10000000, 500000000 };
	static const u64 mems[] = { 64 << 10, 512ULL << 20 };
	static const u64 gaps[] = { 0, 100000, 1ULL << 48 };
	static const u64 maxes[] = { PD_FILTER_AUTO, 3, 15 };
	struct pd_filter_plan plan;
	struct pd_filter_req req;
	unsigned int a, b, c, d, kind;
	const char *why;
	u64 rate;
	u32 s;

	for (a = 0; a < PD_ARRAY_SIZE(fps); a++)
		for (b = 0; b < PD_ARRAY_SIZE(mems); b++)
			for (c = 0; c < PD_ARRAY_SIZE(gaps); c++)
				for (d = 0; d < PD_ARRAY_SIZE(maxes); d++) {
					pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF,
							       mems[b]);
					req.fps_ppb = fps[a];
					pd_sbf_req(&req)->gap = gaps[c];
					pd_sbf_req(&req)->max = maxes[d];
					why = NULL;
					KUNIT_EXPECT_NE_MSG(test,
							    pd_filter_plan(&req, &plan, &why),
							    -EFBIG,
							    "sbf fps %llu mem %llu gap %llu max %llu: %s",
							    (unsigned long long)fps[a],
							    (unsigned long long)mems[b],
							    (unsigned long long)gaps[c],
							    (unsigned long long)maxes[d], why);
				}
	for (kind = 0; kind < PD_FILTER_NKINDS; kind++) {
		const struct pd_filter_ops *ops = pd_filter_family(kind);

		for (a = 0; a < PD_ARRAY_SIZE(fps); a++) {
			if (ops->window || kind == PKTDEDUP_FILTER_KIND_SBF)
				continue;
			for (d = 0; d < PD_ARRAY_SIZE(maxes); d++) {
				pd_filter_req_defaults(&req, (u8)kind, 1 << 20);
				req.fps_ppb = fps[a];
				if (pd_filter_takes(ops, PKTDEDUP_A_SETTINGS_CELL_BITS))
					pd_ibf_req(&req)->max = maxes[d];
				else if (d)
					continue;
				why = NULL;
				KUNIT_EXPECT_NE_MSG(test,
						    pd_filter_plan(&req, &plan, &why),
						    -EFBIG, "%s fps %llu: %s",
						    ops->name,
						    (unsigned long long)fps[a], why);
			}
		}
		if (!ops->window)
			continue;
		for (s = 1; s <= PD_TW_MAX_SUBWIN; s = s * 2 + 1)
			for (rate = 1; rate <= 1000000; rate *= 3) {
				if (s > 1 && kind != PKTDEDUP_FILTER_KIND_JUMPING)
					continue;
				pd_filter_req_defaults(&req, (u8)kind, 0);
				pd_tw_req(&req)->window_ns = 1000000000;
				pd_tw_req(&req)->rate = rate;
				if (s > 1)
					pd_tw_req(&req)->subwindows = s;
				why = NULL;
				KUNIT_EXPECT_NE_MSG(test,
						    pd_filter_plan(&req, &plan, &why),
						    -EFBIG, "%s s %u rate %llu: %s",
						    ops->name, s,
						    (unsigned long long)rate, why);
			}
	}
}

static struct kunit_case pd_step_cases[] = {
	KUNIT_CASE(pd_step_sbf_worst),
	KUNIT_CASE(pd_step_busy),
	KUNIT_CASE(pd_step_jump_worst),
	KUNIT_CASE(pd_step_check_edges),
	KUNIT_CASE(pd_step_refusal_words),
	KUNIT_CASE(pd_step_auto_within),
	{}
};

static struct kunit_suite pd_step_suite = {
	.name = "pktdedup-step",
	.test_cases = pd_step_cases,
};

kunit_test_suite(pd_step_suite);
