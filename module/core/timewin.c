// SPDX-License-Identifier: GPL-2.0
/*
 * The window families' planner and what they share: see timewin.h.
 *
 * Planning: the capacity C (packets a window holds, or keys a subwindow
 * holds) comes from the window and the rate one filter must take
 * (C = rate W / s for s subwindows, plus four standard deviations of
 * Poisson arrivals), from the window itself for a
 * packet window, or else from the memory given (the largest C that fits).
 * For C and the target fps it then picks, for every K of 1..16, the
 * fewest cells m with (1 - (1 - 1/m)^(K C))^K <= f (the Bloom bound at C
 * keys), where f = fps for one filter and fps / s for each of the s
 * subwindows of the union, and keeps the K that needs the least memory.
 */
#include "filter.h"
#include "fixed.h"
#include "timewin.h"

/* ln 2 in Q32.32 */
#define PD_LN2_Q32 2977044472ULL

unsigned int pd_tw_lane_shift(unsigned int s)
{
	unsigned int shift = 1;

	while ((1u << shift) < s + 1)
		shift++;
	return shift;
}

/* The Bloom bound for C keys in m cells, K each (Q62). */
static u64 pd_tw_bloom_fp(u64 c, u32 k, u64 m)
{
	u64 zero = pd_pow_q62(PD_Q62_ONE - pd_div64(PD_Q62_ONE, m),
			      c * k);

	return pd_pow_q62(PD_Q62_ONE - zero, k);
}

/* What a family is made of, for a capacity. */
struct pd_tw_geom {
	u32 k;
	u64 m;			/* counters, or positions */
	u64 bytes;
	u64 fp;			/* of the whole filter at capacity, Q62 */
};

static u64 pd_tw_round64(u64 x)
{
	return (x + 63) & ~63ULL;
}

/*
 * Bytes of a family's memory for m cells and capacity c: sliding, m
 * stamps of 2 or 4 bytes (pd_tw_slide_narrow()) and c times of 8;
 * jumping, the slots, m positions of lane bits and a mark of 4 bytes per
 * line of 8 words.
 */
static u64 pd_tw_bytes(bool sliding, u32 s, u64 m, u64 c)
{
	u64 words;

	if (sliding)
		return pd_tw_round64(m * (pd_tw_slide_narrow(m, c) ?
					  sizeof(u16) : sizeof(u32))) +
		       c * sizeof(u64);
	words = (m << pd_tw_lane_shift(s)) / 64;
	return pd_tw_round64((s + 1) * sizeof(struct pd_jslot)) +
	       words * sizeof(u64) +
	       (words + PD_TW_LINE_WORDS - 1) / PD_TW_LINE_WORDS * sizeof(u32);
}

/*
 * The fewest cells for c keys, K each, at FP f (Q62): m = K c / -ln(1 -
 * f^(1/K)), then raised until the exact bound holds. 0 if none fits in
 * max.
 */
static u64 pd_tw_cells(u64 c, u32 k, u64 f, u64 unit, u64 max)
{
	u64 root = pd_root_q62(f, k), nl, den, m;

	if (root >= PD_Q62_ONE)
		return unit;
	nl = pd_neglog2_q62(PD_Q62_ONE - root);	/* -log2(1 - root) */
	den = pd_muldiv(nl, PD_LN2_Q32, PD_Q32_ONE);	/* -ln, Q32.32 */
	if (!den)
		return 0;
	m = pd_muldiv(c * k, PD_Q32_ONE, den) + 1;
	m = (m + unit - 1) / unit * unit;
	while (m <= max && pd_tw_bloom_fp(c, k, m) > f)
		m += unit;
	return m <= max ? m : 0;
}

/* The cheapest K and its cells for capacity c; false if none fits. */
static bool pd_tw_geom_for(bool sliding, u32 s, u64 c, u64 fps,
			   struct pd_tw_geom *g)
{
	/*
	 * sliding: an even count, 32 stamps at a time; jumping:
	 * whole words of 64 / lane positions
	 */
	u64 unit = sliding ? 32 : 64 >> pd_tw_lane_shift(s);
	u64 f = sliding ? fps : pd_div64(fps, s);
	bool found = false;
	u32 k;

	for (k = 1; k <= PD_TW_MAX_K; k++) {
		u64 m = pd_tw_cells(c, k, f, unit, sliding ?
				    PD_TW_MAX_SLIDE_CELLS : PD_SBF_MAX_CELLS), b;

		if (!m)
			continue;
		b = pd_tw_bytes(sliding, s, m, c);
		if (!found || b < g->bytes) {
			g->k = k;
			g->m = m;
			g->bytes = b;
			found = true;
		}
	}
	if (!found)
		return false;
	g->fp = pd_tw_bloom_fp(c, g->k, g->m);
	if (!sliding)	/* the union of s subwindows at capacity */
		g->fp = PD_Q62_ONE - pd_pow_q62(PD_Q62_ONE - g->fp, s);
	return true;
}

/* The largest capacity whose filter fits mem bytes; 0 if none. */
static u64 pd_tw_cap_for_mem(bool sliding, u32 s, u64 fps, u64 mem)
{
	u64 lo = 0, hi = PD_TW_MAX_CAP;
	struct pd_tw_geom g;

	while (lo < hi) {
		u64 mid = lo + (hi - lo + 1) / 2;

		if (pd_tw_geom_for(sliding, s, mid, fps, &g) &&
		    g.bytes <= mem)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/*
 * Packets a time window must hold for a mean of n: arrivals at a steady
 * rate still vary (Poisson: standard deviation sqrt(n)), so n plus four
 * standard deviations, which a window exceeds with probability about
 * 3 x 10^-5; beyond that the window shortens (early expiries).
 */
static u64 pd_tw_headroom(u64 n)
{
	return n + 4 * pd_isqrt64(n) + 1;
}

PD_FILTER_REQ_FITS(struct pd_tw_req);

/* The jumping window's first, then every window family's (timewin.h). */
const struct pd_setting pd_tw_jump_settings[] = {
	PD_SETTING(SUBWINDOWS, struct pd_tw_req, subwindows, PLAIN),
	PD_SETTING_FPS,
	PD_SETTING_EITHER(WINDOW_NS, struct pd_tw_req, window_ns,
			  WINDOW_PACKETS, 0),
	PD_SETTING_EITHER(WINDOW_PACKETS, struct pd_tw_req, window_pkts,
			  WINDOW_NS, PD_SF_COUNT | PD_SF_WINDOW),
	PD_SETTING_COUNT(RATE, struct pd_tw_req, rate, PLAIN),
	PD_SETTING(WARN_BELOW, struct pd_tw_req, warn_below, PLAIN),
	{ }
};

void pd_tw_req_defaults(struct pd_filter_req *req)
{
	pd_tw_req(req)->warn_below = PD_TW_DEFAULT_WARN;
}

int pd_tw_plan(const struct pd_filter_req *req, struct pd_filter_plan *c,
	       bool sliding, u32 s, const char **why)
{
	const struct pd_tw_req *tw = pd_tw_req(req);
	u64 fps = pd_q62_from_ppb(req->fps_ppb), cap, mean = 0;
	struct pd_tw_geom g;

	if (!!tw->window_ns == !!tw->window_pkts) {
		*why = "give the window as a time or a packet count (window 2ms, window 100000p)";
		return -EINVAL;
	}
	if (tw->window_ns &&
	    (tw->window_ns < PD_TW_MIN_NS || tw->window_ns > PD_TW_MAX_NS)) {
		*why = "a time window must be between 1us and 1h";
		return -ERANGE;
	}
	if (tw->window_pkts > PD_TW_MAX_PACKETS) {
		*why = "a packet window must be at most 2^31 packets";
		return -ERANGE;
	}
	if (s < 1 || s > PD_TW_MAX_SUBWIN) {
		*why = "subwindows must be between 2 and 63";
		return -EINVAL;
	}
	if (tw->warn_below > 100) {
		*why = "warn-below is a percentage (0 to 100)";
		return -EINVAL;
	}
	memset(c, 0, sizeof(*c));
	if (tw->window_pkts || tw->rate) {
		/* a subwindow's share, with its own headroom */
		mean = tw->window_pkts ? (tw->window_pkts + s - 1) / s :
		       pd_muldiv(tw->rate, tw->window_ns,
				 PD_TW_NS_PER_SEC * s);
		cap = tw->window_pkts ? mean : pd_tw_headroom(mean);
		if (cap > PD_TW_MAX_CAP) {
			*why = "window of over 2^31 packets: shorten it or lower rate";
			return -ERANGE;
		}
		if (!pd_tw_geom_for(sliding, s, cap, fps, &g) ||
		    g.bytes > PD_TW_MAX_BYTES) {
			*why = "window needs over 4 GiB: shorten it, lower rate, raise fps";
			return -ERANGE;
		}
	} else {
		cap = pd_tw_cap_for_mem(sliding, s, fps, req->mem_bytes);
		if (!cap || !pd_tw_geom_for(sliding, s, cap, fps, &g)) {
			*why = "memory too small for a window of one packet";
			return -EINVAL;
		}
	}
	c->k = g.k;
	c->cells = g.m;
	c->bytes = g.bytes;
	c->fp_bound = g.fp;
	c->capacity = cap;
	c->subwindows = s;
	c->window_ns = tw->window_ns;
	c->window_pkts = tw->window_pkts;
	c->warn_below = tw->warn_below;
	/*
	 * A spare is emptied over half a subwindow's packets at the planned
	 * rate (over its capacity when sized by memory): jumps come on time
	 * down to half that rate, and are late below it.
	 */
	c->clean_pkts = mean / 2 ? mean / 2 : cap;
	if (tw->window_ns)
		c->rate = pd_muldiv(cap * s, PD_TW_NS_PER_SEC, tw->window_ns);
	c->given = PD_PLAN_HAS_FP | PD_PLAN_HAS_WINDOW;
	return 0;
}

void pd_tw_init(struct pd_tw *w, const struct pd_filter_plan *plan)
{
	memset(w, 0, sizeof(*w));
	w->timed = plan->window_ns != 0;
	w->window = w->timed ? plan->window_ns : plan->window_pkts;
	w->cap = plan->capacity;
	w->eff_last = w->window;
	w->eff_min = w->window;
	w->warn_ticks = w->timed ? pd_muldiv(w->window, plan->warn_below, 100)
				 : 0;
}

void pd_tw_clear(struct pd_tw *w)
{
	w->now = 0;
	w->packets = 0;
	w->eff_last = w->window;
	w->eff_min = w->window;
	w->early = 0;
	w->warned = 0;
	w->has_warned = false;
}

u64 pd_tw_tick(struct pd_tw *w, const struct pd_pktinfo *pi)
{
	/* a time that goes back (another CPU's, in scope shared) counts as now */
	if (!w->timed)
		w->now++;
	else if (pi->now > w->now || !w->packets)
		w->now = pi->now;
	w->packets++;
	return w->now;
}

bool pd_tw_forgot(struct pd_tw *w, u64 span, bool early)
{
	u64 eff = span < w->window ? span : w->window;

	w->eff_last = eff;
	if (eff < w->eff_min)
		w->eff_min = eff;
	if (early)
		w->early++;
	if (!w->warn_ticks || eff >= w->warn_ticks ||
	    (w->has_warned && w->now - w->warned < PD_TW_NS_PER_SEC))
		return false;
	w->warned = w->now;
	w->has_warned = true;
	return true;
}

void pd_tw_report(const struct pd_tw *w, struct pd_filter_win *r)
{
	r->timed = w->timed;
	r->window = w->window;
	r->capacity = w->cap;
	r->effective = w->eff_last;
	r->shortest = w->eff_min;
	r->early = w->early;
}
