// SPDX-License-Identifier: GPL-2.0
/*
 * The sliding window: cells stamped with the sequence number of the
 * latest packet that set them and a ring of the times of the last C
 * packets; a lookup checks the age of what it matched (timewin.h).
 */
#include "filter.h"
#include "timewin.h"

PD_FILTER_PRIV_FITS(struct pd_slide);

/*
 * Cells the stamps' sweep visits a packet: each cell before its age can
 * pass the mask (timewin.h); one with 32-bit stamps.
 */
static u32 pd_slide_sweep_step(u64 cells, u64 cap)
{
	if (!pd_tw_slide_narrow(cells, cap))
		return 1;
	return (u32)((cells + 0xfffe - cap) / (0xffff - cap));
}

static int pd_slide_plan(const struct pd_filter_req *req,
			 struct pd_filter_plan *plan, const char **why)
{
	u64 stamp;
	int err = pd_tw_plan(req, plan, true, 1, why);

	if (err)
		return err;
	stamp = pd_tw_slide_narrow(plan->cells, plan->capacity) ? 16 : 32;
	/*
	 * K cells read and stamped and K ring times read (while the
	 * frontier lags); the frontier's entries, from the oldest on (at
	 * most PD_TW_EXPIRE_MAX + 1 read, wrapping in the ring); the time
	 * appended; the sweep's cells, wrapping at m
	 */
	plan->step_lines = 2 * plan->k +
		pd_step_run_lines(64 * (PD_TW_EXPIRE_MAX + 1)) + 1 +
		pd_step_run_lines(stamp * pd_slide_sweep_step(plan->cells,
							      plan->capacity));
	plan->step_attr = PKTDEDUP_A_SETTINGS_FPS;
	plan->step_what = "in its probes, its ring and its sweep";
	plan->step_hint = "raise fps";
	plan->step_msg = PD_STEP_OVER
		"in its probes, its ring and its sweep: raise fps"
		PD_STEP_ASK;
	return 0;
}

static inline u32 pd_slide_stamp_bytes(const struct pd_slide *sl)
{
	return sl->wide ? sizeof(u32) : sizeof(u16);
}

/* The stamp of cell pos, and stamping it. */
static inline u32 pd_slide_get(const struct pd_slide *sl, u32 pos)
{
	return sl->wide ? ((const u32 *)sl->cell)[pos] :
			  ((const u16 *)sl->cell)[pos];
}

static inline void pd_slide_put(struct pd_slide *sl, u32 pos, u32 v)
{
	if (sl->wide)
		((u32 *)sl->cell)[pos] = v;
	else
		((u16 *)sl->cell)[pos] = (u16)v;
}

/*
 * The ring's position as one lookup sees it: its latest packet's number,
 * its frontier and its length, each read once. A reader of the
 * statistics (QUERY, /proc) looks up a CPU's filter while that CPU steps
 * it: read field by field, as often as the compiler liked, a frontier
 * and a length of two different steps could put a lookup outside the
 * ring. Taken once and clamped, every position a lookup computes from
 * them is inside the ring (pd_slide_pos()), whatever the writer did
 * meanwhile; the step takes its own the same way.
 */
struct pd_slide_at {
	u32 seq;
	u32 head;	/* < cap */
	u32 len;	/* <= cap */
};

static inline void pd_slide_at(const struct pd_slide *sl, struct pd_slide_at *at)
{
	at->seq = pd_load_u32(&sl->seq);
	at->head = pd_load_u32(&sl->head);
	at->len = pd_load_u32(&sl->len);
	if (at->head >= sl->cap)
		at->head = 0;
	if (at->len > sl->cap)
		at->len = sl->cap;
}

/* The age, in packets, of the packet that stamped cell pos. */
static inline u32 pd_slide_age(const struct pd_slide *sl,
			       const struct pd_slide_at *at, u32 pos)
{
	return (at->seq - pd_slide_get(sl, pos)) & sl->mask;
}

static int pd_slide_init(struct pd_filter *f, const struct pd_filter_plan *plan,
			 void *mem, const char **why)
{
	struct pd_slide *sl = pd_slide_of(f);

	if (plan->k < 1 || plan->k > PD_TW_MAX_K || !plan->capacity ||
	    plan->capacity > PD_TW_MAX_CAP || plan->cells < 2 ||
	    plan->cells > PD_TW_MAX_SLIDE_CELLS || (plan->cells & 1)) {
		*why = "not a plan of the sliding window";
		return -EINVAL;
	}
	pd_tw_init(&sl->w, plan);
	sl->m = (u32)plan->cells;
	sl->k = (u8)plan->k;
	sl->cap = (u32)plan->capacity;
	sl->wide = !pd_tw_slide_narrow(plan->cells, plan->capacity);
	sl->mask = sl->wide ? 0xffffffffu : 0xffffu;
	sl->sweep_step = pd_slide_sweep_step(plan->cells, plan->capacity);
	sl->cell = mem;
	sl->ring = (u64 *)((u8 *)mem +
			   ((plan->cells * pd_slide_stamp_bytes(sl) + 63) &
			    ~63ULL));
	/* zeroed memory: every cell stamped 0, as old as the packets seen */
	return 0;
}

static void pd_slide_set_rng(struct pd_filter *f, u64 rng)
{
}

/*
 * The ring position of the packet `age` (below at->len) packets before the
 * latest: head + len - 1 - age is below 2 cap.
 */
static inline u32 pd_slide_pos(const struct pd_slide *sl,
			       const struct pd_slide_at *at, u32 age)
{
	u32 tail = at->head + at->len - 1 - age;

	return tail >= sl->cap ? tail - sl->cap : tail;
}

/*
 * Whether cell pos was set by a packet inside the window at t: one of the
 * ring's len newest (its age below len), and (unless every ring entry
 * from the frontier on is known to be inside: fresh) its time.
 */
static inline bool pd_slide_live(const struct pd_slide *sl,
				 const struct pd_slide_at *at, u32 pos, u64 t,
				 bool fresh)
{
	u32 age = pd_slide_age(sl, at, pos);

	if (age >= at->len)
		return false;
	return fresh || t - sl->ring[pd_slide_pos(sl, at, age)] < sl->w.window;
}

/* Whether the oldest ring entry (the frontier), so every one, is inside. */
static inline bool pd_slide_fresh(const struct pd_slide *sl,
				  const struct pd_slide_at *at, u64 t)
{
	return !at->len || t - sl->ring[at->head] < sl->w.window;
}

static bool pd_slide_query_at(const struct pd_slide *sl, u32 h1, u32 h2,
			      u64 t)
{
	struct pd_tw_probe p;
	struct pd_slide_at at;
	unsigned int i;
	bool fresh;

	pd_slide_at(sl, &at);
	fresh = pd_slide_fresh(sl, &at, t);
	pd_tw_probe_init(&p, h1, h2, sl->m);
	for (i = 0; i < sl->k; i++, pd_tw_probe_next(&p))
		if (!pd_slide_live(sl, &at, p.pos, t, fresh))
			return false;
	return true;
}

/* The oldest entry leaves; true if the owner should be alerted. */
static bool pd_slide_pop(struct pd_slide *sl, u64 t)
{
	u64 span = t - sl->ring[sl->head];

	if (++sl->head == sl->cap)
		sl->head = 0;
	sl->len--;
	return pd_tw_forgot(&sl->w, span, span < sl->w.window);
}

/*
 * sweep_step cells a packet: one stamped cap or more packets ago is
 * stamped again cap packets back (as old for every lookup), so no stamp
 * gets old enough to alias a recent one (timewin.h). Every visited cell
 * is written, re-stamped or not: no branch on its age.
 */
static void pd_slide_sweep(struct pd_slide *sl)
{
	u32 n, pos = sl->sweep, old = sl->seq - sl->cap;

	if (sl->wide) {
		u32 *c = sl->cell;

		for (n = 0; n < sl->sweep_step; n++) {
			c[pos] = sl->seq - c[pos] >= sl->cap ? old : c[pos];
			if (++pos == sl->m)
				pos = 0;
		}
	} else {
		u16 *c = sl->cell;

		for (n = 0; n < sl->sweep_step; n++) {
			c[pos] = (u16)(sl->seq - c[pos]) >= sl->cap ?
				 (u16)old : c[pos];
			if (++pos == sl->m)
				pos = 0;
		}
	}
	sl->sweep = pos;
}

static bool pd_slide_step(struct pd_filter *f, u32 h1, u32 h2,
			  const struct pd_pktinfo *pi)
{
	struct pd_slide *sl = pd_slide_of(f);
	u64 t = pd_tw_tick(&sl->w, pi);
	struct pd_tw_probe p;
	unsigned int n, i;
	u32 tail;
	bool dup;

	/*
	 * The frontier advances over at most PD_TW_EXPIRE_MAX entries older
	 * than the window; after a quiet spell the rest of the backlog is
	 * judged by the times of what a lookup matched.
	 */
	for (n = 0; n < PD_TW_EXPIRE_MAX && sl->len &&
	     t - sl->ring[sl->head] >= sl->w.window; n++)
		f->alert |= pd_slide_pop(sl, t);
	dup = pd_slide_query_at(sl, h1, h2, t);
	if (sl->len == sl->cap)		/* full: the oldest leaves (early?) */
		f->alert |= pd_slide_pop(sl, t);
	tail = sl->head + sl->len;
	if (tail >= sl->cap)
		tail -= sl->cap;
	sl->ring[tail] = t;
	sl->len++;
	sl->seq++;
	pd_tw_probe_init(&p, h1, h2, sl->m);
	for (i = 0; i < sl->k; i++, pd_tw_probe_next(&p))
		pd_slide_put(sl, p.pos, sl->seq);
	pd_slide_sweep(sl);
	return dup;
}

static bool pd_slide_query(const struct pd_filter *f, u32 h1, u32 h2)
{
	const struct pd_slide *sl = pd_slide_of(f);

	return pd_slide_query_at(sl, h1, h2, sl->w.now);
}

static void pd_slide_clear(struct pd_filter *f)
{
	struct pd_slide *sl = pd_slide_of(f);

	memset(sl->cell, 0, (size_t)sl->m * pd_slide_stamp_bytes(sl));
	sl->head = 0;
	sl->len = 0;
	sl->seq = 0;
	sl->sweep = 0;
	pd_tw_clear(&sl->w);
}

/*
 * The ring entries inside the window at t, exactly: the times from the
 * frontier on do not decrease, so a binary search finds the first one
 * inside (at most log2(cap) + 1 reads). For a reader of the statistics:
 * from the ring's position as at says.
 */
static u32 pd_slide_inside(const struct pd_slide *sl,
			   const struct pd_slide_at *at, u64 t)
{
	u32 lo = 0, hi = at->len;	/* entries from the frontier */

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2, pos = at->head + mid;

		if (pos >= sl->cap)
			pos -= sl->cap;
		if (t - sl->ring[pos] >= sl->w.window)
			lo = mid + 1;
		else
			hi = mid;
	}
	return at->len - lo;
}

/* Bytes of the ring a pd_slide_inside() reads at most. */
static u64 pd_slide_inside_bytes(const struct pd_slide *sl)
{
	u64 reads = 1;
	u32 n = sl->cap;

	while (n) {
		reads++;
		n >>= 1;
	}
	return reads * sizeof(u64);
}

/* Zero cells: those no packet inside the window set. */
static void pd_slide_occupancy(const struct pd_filter *f,
			       struct pd_filter_occ *o, u64 max_bytes)
{
	const struct pd_slide *sl = pd_slide_of(f);
	u64 ring_bytes = pd_slide_inside_bytes(sl);
	struct pd_occ_span sp;
	struct pd_slide_at at;
	u64 r, i, first, len;
	u32 inside;

	pd_slide_at(sl, &at);
	inside = pd_slide_inside(sl, &at, sl->w.now);
	/* the search's reads come out of the budget */
	if (max_bytes != PD_OCC_ALL)
		max_bytes = max_bytes > ring_bytes ? max_bytes - ring_bytes : 0;
	pd_occ_span_init(&sp, sl->m, pd_slide_stamp_bytes(sl), max_bytes);
	for (r = 0; r < sp.runs; r++) {
		len = pd_occ_run(&sp, r, &first);
		for (i = first; i < first + len; i++)
			o->zero += pd_slide_age(sl, &at, (u32)i) >= inside;
		o->units += len;
	}
}

static void pd_slide_window(const struct pd_filter *f, struct pd_filter_win *w)
{
	const struct pd_slide *sl = pd_slide_of(f);
	struct pd_slide_at at;

	pd_slide_at(sl, &at);
	pd_tw_report(&sl->w, w);
	w->entries = pd_slide_inside(sl, &at, sl->w.now);
	w->stuck = 0;	/* no counters */
	w->subwindows = 1;
}

const struct pd_filter_ops pd_sliding_family = {
	.name = "sliding",
	.kind = PKTDEDUP_FILTER_KIND_SLIDING,
	.counting = true,
	.timed = true,
	.settings = PD_TW_SETTINGS,
	.default_fps_ppb = PD_TW_DEFAULT_FPS_PPB,
	.req_defaults = pd_tw_req_defaults,
	.plan = pd_slide_plan,
	.init = pd_slide_init,
	.set_rng = pd_slide_set_rng,
	.step = pd_slide_step,
	.query = pd_slide_query,
	.clear = pd_slide_clear,
	.occupancy = pd_slide_occupancy,
	.window = pd_slide_window,
};
