// SPDX-License-Identifier: GPL-2.0
/*
 * The jumping and landmark windows: subwindows of Bloom filters, one lane
 * bit per subwindow at every position, and a spare emptied as packets
 * arrive (timewin.h).
 */
#include "filter.h"
#include "timewin.h"

PD_FILTER_PRIV_FITS(struct pd_jump);

static u32 pd_jump_s(const struct pd_filter_req *req)
{
	return pd_tw_req(req)->subwindows ? pd_tw_req(req)->subwindows : PD_TW_DEFAULT_SUBWIN;
}

/* A plan's array, and the work its packets share out. */
struct pd_jump_geom {
	u32 nwords;
	u32 nlines;		/* of PD_TW_LINE_WORDS words, one mark each */
	u32 clean_step;		/* words of the spare emptied a packet */
	u32 sweep_step;		/* lines visited a packet after a reset */
};

static void pd_jump_geom(const struct pd_filter_plan *plan,
			 struct pd_jump_geom *g)
{
	u64 n;

	g->nwords = (u32)((plan->cells << pd_tw_lane_shift(plan->subwindows)) /
			  64);
	g->nlines = (g->nwords + PD_TW_LINE_WORDS - 1) / PD_TW_LINE_WORDS;
	/*
	 * the spare is clean within clean_pkts packets (at most the
	 * capacity: before the current subwindow can fill)
	 */
	n = plan->clean_pkts && plan->clean_pkts < plan->capacity ?
	    plan->clean_pkts : plan->capacity;
	g->clean_step = (u32)((g->nwords + n - 1) / n);
	/* after a reset, every line visited within as many packets */
	g->sweep_step = (u32)((g->nlines + n - 1) / n);
}

/*
 * The most lines of its memory a step reads or writes: the subwindows'
 * states (all of them at a reset; on the memory's first lines); the
 * sweep's lines and their marks; the spare's cleaning, its step and eight
 * times it while a jump waits, in one run (at most the array); K words
 * and, while a sweep is under way, K marks (a line of an older epoch is
 * the probe's own).
 */
static int pd_jump_plan_step(struct pd_filter_plan *plan)
{
	struct pd_jump_geom g;
	u64 sweep;

	pd_jump_geom(plan, &g);
	sweep = PD_MIN(g.sweep_step, g.nlines);
	plan->step_lines =
		((plan->subwindows + 1) * sizeof(struct pd_jslot) + 63) / 64 +
		sweep + pd_step_run_lines(32ULL * sweep) +
		pd_step_run_lines(64 * PD_MIN(9ULL * g.clean_step,
					      (u64)g.nwords)) + 2 * plan->k;
	plan->step_attr = PKTDEDUP_A_SETTINGS_FPS;
	plan->step_what = "emptying its spare subwindow over too few packets";
	plan->step_hint = "raise fps or rate, lengthen the window, or use fewer subwindows";
	plan->step_msg = PD_STEP_OVER
		"emptying its spare subwindow over too few packets: raise fps or rate, lengthen the window, or use fewer subwindows"
		PD_STEP_ASK;
	return 0;
}

static int pd_jump_plan(const struct pd_filter_req *req,
			struct pd_filter_plan *plan, const char **why)
{
	u32 s = pd_jump_s(req);

	if (s < 2) {
		*why = "subwindows must be between 2 and 63 (one subwindow is the landmark window)";
		return -EINVAL;
	}
	return pd_tw_plan(req, plan, false, s, why) ?: pd_jump_plan_step(plan);
}

static int pd_landmark_plan(const struct pd_filter_req *req,
			    struct pd_filter_plan *plan, const char **why)
{
	return pd_tw_plan(req, plan, false, 1, why) ?: pd_jump_plan_step(plan);
}

static int pd_jump_init(struct pd_filter *f, const struct pd_filter_plan *plan,
			void *mem, const char **why)
{
	struct pd_jump *j = pd_jump_of(f);
	u32 s = plan->subwindows, shift;
	struct pd_jump_geom g;
	u64 slot_bytes;

	if (s < 1 || s > PD_TW_MAX_SUBWIN || plan->k < 1 ||
	    plan->k > PD_TW_MAX_K || !plan->capacity ||
	    plan->capacity > PD_TW_MAX_CAP || plan->cells > PD_SBF_MAX_CELLS) {
		*why = "not a plan of a jumping or landmark window";
		return -EINVAL;
	}
	shift = pd_tw_lane_shift(s);
	if (!plan->cells || (plan->cells & ((64 >> shift) - 1))) {
		*why = "not a plan of a jumping or landmark window";
		return -EINVAL;
	}
	pd_tw_init(&j->w, plan);
	pd_jump_geom(plan, &g);
	slot_bytes = ((s + 1) * sizeof(struct pd_jslot) + 63) & ~63ULL;
	j->slot = mem;
	j->words = (u64 *)((u8 *)mem + slot_bytes);
	j->m = (u32)plan->cells;
	j->nwords = g.nwords;
	j->nlines = g.nlines;
	j->mark = (u32 *)(j->words + j->nwords);
	j->k = (u8)plan->k;
	j->s = (u8)s;
	j->slots = (u8)(s + 1);
	j->lane_shift = (u8)shift;
	j->sub = (j->w.window + s - 1) / s;
	j->clean_step = g.clean_step;
	j->sweep_step = g.sweep_step;
	j->epoch = 0;		/* zeroed memory: every line of epoch 0 */
	j->sweep_pos = 0;
	j->sweep_left = 0;
	/* live: cur, cur - 1, ... cur - s + 1; the spare is cur + 1 */
	j->cur = 0;
	j->spare = 1;
	j->clean_pos = j->nwords;	/* zeroed memory */
	return 0;
}

static void pd_jump_set_rng(struct pd_filter *f, u64 rng)
{
}

/*
 * Lines of the epoch: a line whose mark is not the epoch holds what was
 * forgotten at a reset and reads as empty; it is emptied and marked at
 * its first write, or by the sweep, whichever comes first. While no sweep
 * is under way every line is of the epoch and no mark is read.
 */
static inline bool pd_jump_line_old(const struct pd_jump *j, u32 word)
{
	return j->sweep_left &&
	       j->mark[word / PD_TW_LINE_WORDS] != j->epoch;
}

static void pd_jump_line_renew(struct pd_jump *j, u32 line)
{
	u32 w = line * PD_TW_LINE_WORDS,
	    end = PD_MIN(w + PD_TW_LINE_WORDS, j->nwords);

	for (; w < end; w++)
		j->words[w] = 0;
	j->mark[line] = j->epoch;
}

/*
 * The sweep after a reset: sweep_step lines a packet, in a circle, so
 * that every line is visited within nlines packets of any reset. A reset
 * comes at most once a packet, so no mark falls 2^32 epochs behind and
 * aliases the epoch.
 */
static void pd_jump_sweep(struct pd_jump *j)
{
	u32 n;

	for (n = 0; n < j->sweep_step && j->sweep_left; n++) {
		if (j->mark[j->sweep_pos] != j->epoch)
			pd_jump_line_renew(j, j->sweep_pos);
		if (++j->sweep_pos == j->nlines)
			j->sweep_pos = 0;
		j->sweep_left--;
	}
}

/* Lane bit `lane` of every position in words [from, to). */
static void pd_jump_wipe(struct pd_jump *j, unsigned int lane, u32 from,
			 u32 to)
{
	u64 keep = ~0ULL;
	unsigned int b;

	/* every position's bit `lane`: one bit per lane-width field */
	for (b = lane; b < 64; b += 1u << j->lane_shift)
		keep &= ~(1ULL << b);
	/* a line of an older epoch reads as empty whatever it holds */
	for (; from < to; from++)
		j->words[from] &= keep;
}

/* The current subwindow holds nothing younger than the window. */
static bool pd_jump_stale(const struct pd_jump *j, u64 t)
{
	const struct pd_jslot *c = &j->slot[j->cur];

	return c->keys && t - c->end >= j->w.window;
}

/*
 * Everything remembered is older than the window (the current subwindow,
 * the latest written, is): forget it all at once. A new epoch makes every
 * line read as empty; the subwindows restart from t with a clean spare.
 * O(s + 1). True if the owner should be alerted.
 */
static bool pd_jump_reset(struct pd_jump *j, u64 t)
{
	unsigned int l;

	for (l = 0; l < j->slots; l++) {
		j->slot[l].keys = 0;
		j->slot[l].start = t;
		j->slot[l].end = t;
	}
	j->epoch++;
	j->sweep_left = j->nlines;
	j->spare = j->cur + 1u == j->slots ? 0 : j->cur + 1;
	j->clean_pos = j->nwords;
	return pd_tw_forgot(&j->w, j->w.window, false);
}

/* Empty n more words of the spare: its step, or eight times that. */
static void pd_jump_clean(struct pd_jump *j, u64 n)
{
	u32 to = j->nwords - j->clean_pos < n ? j->nwords :
		 j->clean_pos + (u32)n;

	pd_jump_wipe(j, j->spare, j->clean_pos, to);
	j->clean_pos = to;
}

/*
 * Jump if it is time (or the current subwindow is full) and the spare is
 * clean: the spare becomes the current subwindow, the eldest live one
 * the spare. True if the owner should be alerted.
 */
static bool pd_jump_maybe(struct pd_jump *j, u64 t)
{
	struct pd_jslot *c = &j->slot[j->cur], *old;
	bool full = c->keys >= j->w.cap, due = t - c->start >= j->sub;
	unsigned int eldest;
	bool alert = false;

	if (!full && !due)
		return false;
	if (j->clean_pos < j->nwords) {	/* wait for the spare */
		pd_jump_clean(j, 8ULL * j->clean_step);
		if (j->clean_pos < j->nwords)
			return false;
	}
	/* the eldest live subwindow: s - 1 before the current */
	eldest = (j->cur + j->slots - (j->s - 1)) % j->slots;
	old = &j->slot[eldest];
	if (old->keys)
		alert = pd_tw_forgot(&j->w, t - old->start, full && !due);
	else if (full && !due)
		alert = pd_tw_forgot(&j->w, t - c->start, true);
	j->cur = j->spare;
	j->slot[j->cur].start = t;
	j->slot[j->cur].end = t;
	j->slot[j->cur].keys = 0;
	j->spare = (u8)eldest;
	j->clean_pos = 0;
	return alert;
}

/* The lanes that hold packets younger than the window. */
static u64 pd_jump_live(const struct pd_jump *j, u64 t)
{
	u64 live = 0;
	unsigned int i, l = j->cur;

	for (i = 0; i < j->s; i++) {
		const struct pd_jslot *sl = &j->slot[l];

		if (sl->keys && t - sl->end < j->w.window)
			live |= 1ULL << l;
		l = l ? l - 1 : j->slots - 1u;
	}
	return live;
}

/* Bits of every lane at one position. */
static inline u64 pd_jump_lanes(const struct pd_jump *j)
{
	return (1u << j->lane_shift) == 64 ? ~0ULL :
	       (1ULL << (1u << j->lane_shift)) - 1;
}

/* The word of position pos, and in *sh the shift of its lanes there. */
static inline u32 pd_jump_word(const struct pd_jump *j, u32 pos,
			       unsigned int *sh)
{
	unsigned int per_word = 6 - j->lane_shift;

	*sh = (pos & ((1u << per_word) - 1)) << j->lane_shift;
	return pos >> per_word;
}

/* The lanes in which every probe of (h1, h2) is set. */
static u64 pd_jump_test(const struct pd_jump *j, u32 h1, u32 h2)
{
	u64 lanes = pd_jump_lanes(j), all = lanes;
	struct pd_tw_probe p;
	unsigned int i, sh;

	pd_tw_probe_init(&p, h1, h2, j->m);
	for (i = 0; i < j->k; i++, pd_tw_probe_next(&p)) {
		u32 wi = pd_jump_word(j, p.pos, &sh);

		if (pd_jump_line_old(j, wi))
			return 0;
		all &= (j->words[wi] >> sh) & lanes;
	}
	return all;
}

/*
 * The same, and the current lane set at every probe (a line of an older
 * epoch is emptied and marked first).
 */
static u64 pd_jump_probe(struct pd_jump *j, u32 h1, u32 h2)
{
	u64 lanes = pd_jump_lanes(j), all = lanes;
	struct pd_tw_probe p;
	unsigned int i, sh;

	pd_tw_probe_init(&p, h1, h2, j->m);
	for (i = 0; i < j->k; i++, pd_tw_probe_next(&p)) {
		u32 wi = pd_jump_word(j, p.pos, &sh);
		u64 *w = &j->words[wi];

		if (pd_jump_line_old(j, wi))
			pd_jump_line_renew(j, wi / PD_TW_LINE_WORDS);
		all &= (*w >> sh) & lanes;
		*w |= 1ULL << (sh + j->cur);
	}
	return all;
}

static bool pd_jump_step(struct pd_filter *f, u32 h1, u32 h2,
			 const struct pd_pktinfo *pi)
{
	struct pd_jump *j = pd_jump_of(f);
	u64 t = pd_tw_tick(&j->w, pi), live, all;

	if (j->w.packets == 1) {	/* the first packet starts the clock */
		j->slot[j->cur].start = t;
		j->slot[j->cur].end = t;
	}
	/*
	 * After a quiet spell of a window or more nothing remembered counts:
	 * all of it is forgotten in O(s) by a new epoch, so the packets
	 * after the spell are remembered from the first (no copy inside the
	 * guaranteed span missed) and none older than the window is found.
	 */
	if (pd_jump_stale(j, t))
		f->alert |= pd_jump_reset(j, t);
	if (j->sweep_left)
		pd_jump_sweep(j);
	if (j->clean_pos < j->nwords)
		pd_jump_clean(j, j->clean_step);
	f->alert |= pd_jump_maybe(j, t);
	live = pd_jump_live(j, t);
	all = pd_jump_probe(j, h1, h2);
	if (!(all & (1ULL << j->cur)))	/* a bit of the current one was 0 */
		j->slot[j->cur].keys++;
	j->slot[j->cur].end = t;
	return all & live;
}

static bool pd_jump_query(const struct pd_filter *f, u32 h1, u32 h2)
{
	const struct pd_jump *j = pd_jump_of(f);

	return pd_jump_test(j, h1, h2) & pd_jump_live(j, j->w.now);
}

static void pd_jump_clear(struct pd_filter *f)
{
	struct pd_jump *j = pd_jump_of(f);

	memset(j->words, 0, (size_t)j->nwords * sizeof(u64));
	memset(j->mark, 0, (size_t)j->nlines * sizeof(u32));
	memset(j->slot, 0, j->slots * sizeof(*j->slot));
	j->cur = 0;
	j->spare = 1;
	j->clean_pos = j->nwords;
	j->epoch = 0;
	j->sweep_pos = 0;
	j->sweep_left = 0;
	pd_tw_clear(&j->w);
}

/*
 * Set bits of the current subwindow (a line of an older epoch holds none).
 * While a sweep is under way the marks are read too: the words' share of
 * the budget is 16 / 17 of it (a mark of 4 bytes per line of 64).
 */
static void pd_jump_occupancy(const struct pd_filter *f,
			      struct pd_filter_occ *o, u64 max_bytes)
{
	const struct pd_jump *j = pd_jump_of(f);
	struct pd_occ_span sp;
	u64 mask = 0, r, i, first, len, words = 0;
	unsigned int b;

	for (b = j->cur; b < 64; b += 1u << j->lane_shift)
		mask |= 1ULL << b;
	if (j->sweep_left && max_bytes != PD_OCC_ALL)
		max_bytes = pd_div64(max_bytes, 17) * 16;
	pd_occ_span_init(&sp, j->nwords, sizeof(u64), max_bytes);
	for (r = 0; r < sp.runs; r++) {
		len = pd_occ_run(&sp, r, &first);
		for (i = first; i < first + len; i++)
			if (!pd_jump_line_old(j, (u32)i))
				o->set += pd_popcount64(j->words[i] & mask);
		words += len;
	}
	/* positions examined: 64 / lane of them a word */
	o->units = pd_occ_whole(&sp) ? j->m : (words << 6) >> j->lane_shift;
}

static void pd_jump_window(const struct pd_filter *f, struct pd_filter_win *w)
{
	const struct pd_jump *j = pd_jump_of(f);
	u64 live = pd_jump_live(j, j->w.now);
	unsigned int l;

	pd_tw_report(&j->w, w);
	for (l = 0; l < j->slots; l++)
		if (live & (1ULL << l))
			w->entries += j->slot[l].keys;
	w->subwindows = j->s;
}

#define PD_JUMP_FAMILY(id, fname, KIND, planner, sets)			\
const struct pd_filter_ops id = {					\
	.name = fname,							\
	.kind = PKTDEDUP_FILTER_KIND_##KIND,				\
	.timed = true,							\
	.settings = sets,						\
	.default_fps_ppb = PD_TW_DEFAULT_FPS_PPB,			\
	.req_defaults = pd_tw_req_defaults,				\
	.plan = planner,						\
	.init = pd_jump_init,						\
	.set_rng = pd_jump_set_rng,					\
	.step = pd_jump_step,						\
	.query = pd_jump_query,						\
	.clear = pd_jump_clear,						\
	.occupancy = pd_jump_occupancy,					\
	.window = pd_jump_window,					\
}

PD_JUMP_FAMILY(pd_jumping_family, "jumping", JUMPING, pd_jump_plan,
	       pd_tw_jump_settings);
PD_JUMP_FAMILY(pd_landmark_family, "landmark", LANDMARK, pd_landmark_plan,
	       PD_TW_SETTINGS);
