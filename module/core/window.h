/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Distinct counting over a jumping window (Metwally, Agrawal & El Abbadi,
 * WWW 2005): time is cut into sub-windows ("ticks"); the window is the
 * last nsub of them, each with its own HyperLogLog sketch in a ring. A
 * slot is emptied when a new tick first writes it, and a reader merges
 * only the slots whose stamp lies within the ticks it asks about, so a
 * quiet source drops out once the window has passed. Sketches of several
 * windows (one per CPU) merge into the sketch of the union.
 *
 * The core is time-agnostic: callers pass the tick number (e.g. the time
 * divided by the sub-window length).
 */
#ifndef PD_WINDOW_H
#define PD_WINDOW_H

#include "hll.h"
#include "ss.h"

#define PD_WIN_MAX_SUB 64

/*
 * A window may also keep, per sub-window, a Space-Saving summary of the
 * elements (top talkers): it then lives and expires with the sketch.
 */
struct pd_win {
	u32 nsub;
	u32 cap;			/* counters per summary; 0: none */
	u64 stamp[PD_WIN_MAX_SUB];	/* tick + 1 a slot holds; 0: empty */
	struct pd_hll *sk;		/* nsub sketches */
	struct pd_ss ss[PD_WIN_MAX_SUB];
};

/* Bytes of memory for nsub sub-windows with summaries of cap (0: none). */
size_t pd_win_bytes(u32 nsub, u32 cap);
/* Set up over zeroed memory of pd_win_bytes(nsub, cap); 0 or -EINVAL. */
int pd_win_init(struct pd_win *w, u32 nsub, u32 cap, void *mem);
/*
 * Count an element in tick `tick`: by its 64-bit hash in the sketch and,
 * if the window keeps summaries, as address addr (len 4 or 16).
 */
void pd_win_add(struct pd_win *w, u64 tick, u64 hash, const u8 *addr,
		u8 len);
/* Whether a slot stamped st holds one of ticks now - last + 1 .. now. */
static inline bool pd_win_within(u64 st, u64 now, u32 last)
{
	return st && st - 1 <= now && st - 1 + last > now;
}

/*
 * Merge into out the sketches of ticks now - last + 1 .. now (last is at
 * most nsub); returns how many slots held one of those ticks.
 */
u32 pd_win_collect(const struct pd_win *w, u64 now, u32 last,
		   struct pd_hll *out);
/* The same for the summaries, into a merge; -EINVAL if it has no room. */
int pd_win_collect_top(const struct pd_win *w, u64 now, u32 last,
		       struct pd_ss_agg *out);

#endif /* PD_WINDOW_H */
