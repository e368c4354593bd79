// SPDX-License-Identifier: GPL-2.0
/* Jumping-window distinct counting: see window.h. */
#include "window.h"

size_t pd_win_bytes(u32 nsub)
{
	return (size_t)nsub * sizeof(struct pd_hll);
}

int pd_win_init(struct pd_win *w, u32 nsub, struct pd_hll *mem)
{
	if (!nsub || nsub > PD_WIN_MAX_SUB)
		return -22;
	memset(w, 0, sizeof(*w));
	w->nsub = nsub;
	w->sk = mem;
	return 0;
}

static u32 pd_win_slot(const struct pd_win *w, u64 tick)
{
	return (u32)(tick - pd_div64(tick, w->nsub) * w->nsub);
}

void pd_win_add(struct pd_win *w, u64 tick, u64 hash)
{
	u32 s = pd_win_slot(w, tick);

	if (w->stamp[s] != tick + 1) {
		/* the slot held an older tick: it has left the window */
		pd_hll_clear(&w->sk[s]);
		w->stamp[s] = tick + 1;
	}
	pd_hll_add(&w->sk[s], hash);
}

u32 pd_win_collect(const struct pd_win *w, u64 now, u32 last,
		   struct pd_hll *out)
{
	u32 s, n = 0;

	if (last > w->nsub)
		last = w->nsub;
	for (s = 0; s < w->nsub; s++) {
		u64 st = w->stamp[s];

		/* holds tick st - 1; wanted: now - last < st - 1 <= now */
		if (st && st - 1 <= now && st - 1 + last > now) {
			pd_hll_merge(out, &w->sk[s]);
			n++;
		}
	}
	return n;
}
