// SPDX-License-Identifier: GPL-2.0
/* Jumping-window distinct counting: see window.h. */
#include "window.h"

size_t pd_win_bytes(u32 nsub, u32 cap)
{
	return (size_t)nsub * (sizeof(struct pd_hll) +
			       (cap ? pd_ss_bytes(cap) : 0));
}

int pd_win_init(struct pd_win *w, u32 nsub, u32 cap, void *mem)
{
	u8 *p = mem;
	u32 s;

	if (!nsub || nsub > PD_WIN_MAX_SUB ||
	    (cap && (cap < PD_SS_MIN_CAP || cap > PD_SS_MAX_CAP)))
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	w->nsub = nsub;
	w->cap = cap;
	w->sk = mem;
	p += (size_t)nsub * sizeof(struct pd_hll);
	for (s = 0; cap && s < nsub; s++, p += pd_ss_bytes(cap))
		pd_ss_init(&w->ss[s], cap, p);
	return 0;
}

static u32 pd_win_slot(const struct pd_win *w, u64 tick)
{
	return (u32)(tick - pd_div64(tick, w->nsub) * w->nsub);
}

void pd_win_add(struct pd_win *w, u64 tick, u64 hash, const u8 *addr,
		u8 len)
{
	u32 s = pd_win_slot(w, tick);

	if (w->stamp[s] != tick + 1) {
		/* the slot held an older tick: it has left the window */
		pd_hll_clear(&w->sk[s]);
		if (w->cap)
			pd_ss_clear(&w->ss[s]);
		w->stamp[s] = tick + 1;
	}
	pd_hll_add(&w->sk[s], hash);
	if (w->cap)
		pd_ss_add(&w->ss[s], hash, addr, len);
}

u32 pd_win_collect(const struct pd_win *w, u64 now, u32 last,
		   struct pd_hll *out)
{
	u32 s, n = 0;

	if (last > w->nsub)
		last = w->nsub;
	for (s = 0; s < w->nsub; s++) {
		if (pd_win_within(w->stamp[s], now, last)) {
			pd_hll_merge(out, &w->sk[s]);
			n++;
		}
	}
	return n;
}

int pd_win_collect_top(const struct pd_win *w, u64 now, u32 last,
		       struct pd_ss_agg *out)
{
	u32 s;

	if (last > w->nsub)
		last = w->nsub;
	for (s = 0; w->cap && s < w->nsub; s++)
		if (pd_win_within(w->stamp[s], now, last) &&
		    pd_ss_agg_merge(out, &w->ss[s]))
			return -EINVAL;
	return 0;
}
