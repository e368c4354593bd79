// SPDX-License-Identifier: GPL-2.0
/* Jumping-window distinct counting and top talkers: see srcwin.h. */
#include "srcwin.h"

size_t pd_srcwin_bytes(u32 nsub, u32 cap)
{
	return (size_t)nsub * (2 * sizeof(struct pd_hll) +
			       (cap ? pd_ss_bytes(cap) : 0));
}

int pd_srcwin_init(struct pd_srcwin *w, u32 nsub, u32 cap, u64 len,
		   const struct pd_akey *key, void *mem)
{
	u8 *p = mem;
	u32 s;

	if (!nsub || nsub > PD_SRCWIN_MAX_SUB || !len ||
	    (cap && (cap < PD_SS_MIN_CAP || cap > PD_SS_MAX_CAP)))
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	w->nsub = nsub;
	w->cap = cap;
	w->len = len;
	w->key = *key;
	w->sk = mem;
	p += (size_t)nsub * 2 * sizeof(struct pd_hll);
	for (s = 0; cap && s < nsub; s++, p += pd_ss_bytes(cap))
		pd_ss_init(&w->ss[s], cap, p);
	return 0;
}

void pd_srcwin_roll(struct pd_srcwin *w, u64 now)
{
	u64 tick = pd_srcwin_tick(w, now);
	u32 s = (u32)(tick - pd_div64(tick, w->nsub) * w->nsub);

	if (w->stamp[s] != tick + 1) {
		/* the slot held an older tick: it has left the window */
		pd_hll_clear(&w->sk[2 * s]);
		pd_hll_clear(&w->sk[2 * s + 1]);
		if (w->cap)
			pd_ss_clear(&w->ss[s]);
		w->stamp[s] = tick + 1;
	}
	w->cur = &w->sk[2 * s];
	w->top = w->cap ? &w->ss[s] : NULL;
	w->end = (tick + 1) * w->len;
}

u32 pd_srcwin_collect(const struct pd_srcwin *w, u64 now, u32 last, int which,
		      struct pd_hll *out)
{
	u32 s, n = 0;

	if (last > w->nsub)
		last = w->nsub;
	for (s = 0; s < w->nsub; s++) {
		if (pd_srcwin_within(w->stamp[s], now, last)) {
			pd_hll_merge(out, &w->sk[2 * s + (which != PD_SRCWIN_SRC)]);
			n++;
		}
	}
	return n;
}

int pd_srcwin_collect_top(const struct pd_srcwin *w, u64 now, u32 last,
			  struct pd_ss_agg *out)
{
	u32 s;

	if (last > w->nsub)
		last = w->nsub;
	for (s = 0; w->cap && s < w->nsub; s++)
		if (pd_srcwin_within(w->stamp[s], now, last) &&
		    pd_ss_agg_merge(out, &w->ss[s]))
			return -EINVAL;
	return 0;
}
