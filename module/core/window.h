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

#define PD_WIN_MAX_SUB 64

struct pd_win {
	u32 nsub;
	u64 stamp[PD_WIN_MAX_SUB];	/* tick + 1 a slot holds; 0: empty */
	struct pd_hll *sk;		/* nsub sketches */
};

/* Bytes of sketch memory for nsub sub-windows. */
size_t pd_win_bytes(u32 nsub);
/* Set up over zeroed memory of pd_win_bytes(nsub); 0 or -22. */
int pd_win_init(struct pd_win *w, u32 nsub, struct pd_hll *mem);
/* Count an element (by its 64-bit hash) in tick `tick`. */
void pd_win_add(struct pd_win *w, u64 tick, u64 hash);
/*
 * Merge into out the sketches of ticks now - last + 1 .. now (last is at
 * most nsub); returns how many slots held one of those ticks.
 */
u32 pd_win_collect(const struct pd_win *w, u64 now, u32 last,
		   struct pd_hll *out);

#endif /* PD_WINDOW_H */
