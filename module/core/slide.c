// SPDX-License-Identifier: GPL-2.0
/*
 * The sliding window with exact expiry: a counting Bloom filter and a ring
 * of the packets inside the window (timewin.h).
 */
#include "filter.h"
#include "timewin.h"

static int pd_slide_plan(const struct pd_filter_req *req,
			 struct pd_filter_plan *plan, const char **why)
{
	return pd_tw_plan(req, plan, true, 1, why);
}

static int pd_slide_init(struct pd_filter *f, const struct pd_filter_plan *plan,
			 void *mem, const char **why)
{
	struct pd_slide *sl = &f->u.slide;

	if (plan->k < 1 || plan->k > PD_TW_MAX_K || !plan->capacity ||
	    plan->capacity > PD_TW_MAX_CAP || plan->cells < 2 ||
	    plan->cells > PD_SBF_MAX_CELLS || (plan->cells & 1)) {
		*why = "not a plan of the sliding window";
		return -EINVAL;
	}
	pd_tw_init(&sl->w, plan);
	sl->m = (u32)plan->cells;
	sl->k = (u8)plan->k;
	sl->cnt = mem;
	sl->ring = (struct pd_tw_ent *)((u8 *)mem +
			((plan->cells * sizeof(u16) + 63) & ~63ULL));
	return 0;
}

static void pd_slide_set_rng(struct pd_filter *f, u64 rng)
{
}

/* Add d (1 or -1) to the K counters of (h1, h2). */
static void pd_slide_add(struct pd_slide *sl, u32 h1, u32 h2, int d)
{
	struct pd_tw_probe p;
	unsigned int i;

	pd_tw_probe_init(&p, h1, h2, sl->m);
	for (i = 0; i < sl->k; i++, pd_tw_probe_next(&p)) {
		u16 *c = &sl->cnt[p.pos];

		if (*c == PD_TW_CNT_MAX)	/* stuck: never decremented */
			continue;
		*c += d;
		if (*c == PD_TW_CNT_MAX)
			sl->stuck++;
	}
}

/* The oldest entry leaves; true if the owner should be alerted. */
static bool pd_slide_pop(struct pd_slide *sl, u64 t, bool early)
{
	const struct pd_tw_ent *e = &sl->ring[sl->head];
	u64 span = t - e->t;

	pd_slide_add(sl, e->h1, e->h2, -1);
	if (++sl->head == sl->w.cap)
		sl->head = 0;
	sl->len--;
	return pd_tw_forgot(&sl->w, span, early);
}

static bool pd_slide_query_at(const struct pd_slide *sl, u32 h1, u32 h2)
{
	struct pd_tw_probe p;
	unsigned int i;

	pd_tw_probe_init(&p, h1, h2, sl->m);
	for (i = 0; i < sl->k; i++, pd_tw_probe_next(&p))
		if (!sl->cnt[p.pos])
			return false;
	return true;
}

static bool pd_slide_step(struct pd_filter *f, u32 h1, u32 h2,
			  const struct pd_pktinfo *pi)
{
	struct pd_slide *sl = &f->u.slide;
	u64 t = pd_tw_tick(&sl->w, pi);
	struct pd_tw_ent *e;
	unsigned int n;
	u32 tail;
	bool dup;

	for (n = 0; n < PD_TW_EXPIRE_MAX && sl->len &&
	     t - sl->ring[sl->head].t >= sl->w.window; n++)
		f->alert |= pd_slide_pop(sl, t, false);
	if (sl->len == sl->w.cap)
		f->alert |= pd_slide_pop(sl, t,
					 t - sl->ring[sl->head].t <
					 sl->w.window);
	dup = pd_slide_query_at(sl, h1, h2);
	pd_slide_add(sl, h1, h2, 1);
	tail = sl->head + sl->len;
	if (tail >= sl->w.cap)
		tail -= (u32)sl->w.cap;
	e = &sl->ring[tail];
	e->h1 = h1;
	e->h2 = h2;
	e->t = t;
	sl->len++;
	return dup;
}

static bool pd_slide_query(const struct pd_filter *f, u32 h1, u32 h2)
{
	return pd_slide_query_at(&f->u.slide, h1, h2);
}

static void pd_slide_clear(struct pd_filter *f)
{
	struct pd_slide *sl = &f->u.slide;

	memset(sl->cnt, 0, (size_t)sl->m * sizeof(u16));
	sl->head = 0;
	sl->len = 0;
	sl->stuck = 0;
	pd_tw_clear(&sl->w);
}

static void pd_slide_occupancy(const struct pd_filter *f,
			       struct pd_filter_occ *o, u64 max_bytes)
{
	const struct pd_slide *sl = &f->u.slide;
	struct pd_occ_span sp;
	u64 r, i, first, len;

	pd_occ_span_init(&sp, sl->m, sizeof(u16), max_bytes);
	for (r = 0; r < sp.runs; r++) {
		len = pd_occ_run(&sp, r, &first);
		for (i = first; i < first + len; i++)
			o->zero += !sl->cnt[i];
		o->units += len;
	}
}

static void pd_slide_window(const struct pd_filter *f, struct pd_filter_win *w)
{
	const struct pd_slide *sl = &f->u.slide;

	pd_tw_report(&sl->w, w);
	w->entries = sl->len;
	w->stuck = sl->stuck;
	w->subwindows = 1;
}

const struct pd_filter_ops pd_sliding_family = {
	.name = "sliding",
	.kind = PKTDEDUP_FILTER_KIND_SLIDING,
	.counting = true,
	.timed = true,
	.settings = PD_SET_FPS | PD_SET_WINDOW | PD_SET_WARN,
	.default_fps_ppb = PD_TW_DEFAULT_FPS_PPB,
	.plan = pd_slide_plan,
	.init = pd_slide_init,
	.set_rng = pd_slide_set_rng,
	.step = pd_slide_step,
	.query = pd_slide_query,
	.clear = pd_slide_clear,
	.occupancy = pd_slide_occupancy,
	.window = pd_slide_window,
};
