/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The source window of the source analytics (the filters' time windows are
 * timewin.h's): distinct counting over a jumping window (Metwally, Agrawal &
 * El Abbadi, WWW 2005), of the sources and the destinations of packets: time
 * is cut into sub-windows ("ticks"); the window is the last nsub of them,
 * each with a HyperLogLog sketch of the sources and one of the destinations
 * in a ring, and optionally a Space-Saving summary of the sources (top
 * talkers). A slot is emptied when a new tick first writes it, and a reader
 * merges only the slots whose stamp lies within the ticks it asks about, so
 * a quiet source drops out once the window has passed. Sketches of several
 * windows (one per CPU) merge into the sketch of the union.
 *
 * The core is time-agnostic: callers pass the time in any unit that does
 * not go back (jiffies, a packet count) and the tick's length in it.
 *
 * The packet path is pd_srcwin_add(). What it reads and writes is laid out
 * for few cache lines: the first line of struct pd_srcwin holds all it reads
 * while the tick lasts (the tick's end, its sketches and summary, the hash
 * key); the division of the time into ticks and the slot's bookkeeping
 * happen once per tick (pd_srcwin_roll()). The sketches' registers are
 * not written per packet: a packet appends its two register updates to a
 * batch (the next lines, written in order), and every PD_SRCWIN_BATCH
 * packets, or when the tick ends, the batch is folded into the tick's
 * sketches with every register line asked for first, so that their
 * misses overlap instead of costing two a packet. A reader merges the
 * batch too (an addition is idempotent): what it sees is what was added.
 * With top talkers on, the summary's update adds its own lines (ss.h).
 */
#ifndef PD_SRCWIN_H
#define PD_SRCWIN_H

#include "addrhash.h"
#include "hll.h"
#include "ss.h"

#define PD_SRCWIN_MAX_SUB 64
/*
 * Top-talker counters a namespace starts with: none (off). Top talkers
 * cost more per packet than the rest of the analytics together
 * (Documentation/results/packet-path.md): an administrator turns them on
 * (dedupctl sources counters).
 */
#define PD_SRCWIN_DEFAULT_COUNTERS 0
#define PD_SRCWIN_SRC 0
#define PD_SRCWIN_DST 1
/* Packets whose register updates wait in a batch (4 cache lines). */
#define PD_SRCWIN_BATCH 32

struct pd_srcwin {
	/* what every packet reads: the first 64 bytes */
	u64 end;		/* the current tick ends at this time; 0: none yet */
	struct pd_hll *cur;	/* its sketches: sources, then destinations */
	struct pd_ss *top;	/* its summary; NULL: no top talkers */
	struct pd_akey key;	/* of the addresses' hash (addrhash.h) */
	/*
	 * the batch: updates of sources (low half) and destinations (high),
	 * nb of them (released after its entries), of the tick btick - 1
	 */
	u32 nb;
	u64 btick;
	u64 batch[PD_SRCWIN_BATCH];
	/* the rest: once per tick, and for readers */
	u64 len;		/* time units per tick */
	u32 nsub;
	u32 cap;			/* counters per summary; 0: none */
	u64 stamp[PD_SRCWIN_MAX_SUB];	/* tick + 1 a slot holds; 0: empty */
	struct pd_hll *sk;		/* slot s: sources 2 s, destinations 2 s + 1 */
	struct pd_ss ss[PD_SRCWIN_MAX_SUB];
};

/* Bytes of memory for nsub sub-windows with summaries of cap (0: none). */
size_t pd_srcwin_bytes(u32 nsub, u32 cap);
/*
 * Set up over zeroed memory of pd_srcwin_bytes(nsub, cap), for ticks of len
 * time units and addresses hashed with key; 0 or -EINVAL.
 */
int pd_srcwin_init(struct pd_srcwin *w, u32 nsub, u32 cap, u64 len,
		   const struct pd_akey *key, void *mem);
/* Start the tick that holds time now (pd_srcwin_add() calls it). */
void pd_srcwin_roll(struct pd_srcwin *w, u64 now);
/* Fold the batch into the tick's sketches (pd_srcwin_add() calls it). */
void pd_srcwin_fold(struct pd_srcwin *w);

/*
 * Count a packet at time now from address src to address dst (len bytes
 * each, 4 or 16; any length up to 16 works, more slowly): returns the
 * source's hash, pd_addr_hash(&w->key, src, len). Time must not go back;
 * a packet of an earlier time counts in the current tick.
 */
static inline u64 pd_srcwin_add(struct pd_srcwin *w, u64 now, const u8 *src,
				const u8 *dst, u8 len)
{
	u64 hs, hd;
	u32 n;

	if (now >= w->end)
		pd_srcwin_roll(w, now);
	hs = pd_addr_hash(&w->key, src, len);
	hd = pd_addr_hash(&w->key, dst, len);
	n = w->nb;
	pd_store_word(&w->batch[n], pd_hll_update(hs) |
				    (u64)pd_hll_update(hd) << 32);
	pd_store_release_u32(&w->nb, ++n);
	if (n == PD_SRCWIN_BATCH)
		pd_srcwin_fold(w);
	if (w->top)
		pd_ss_add(w->top, hs, src, len);
	return hs;
}

/* The tick that holds time now. */
static inline u64 pd_srcwin_tick(const struct pd_srcwin *w, u64 now)
{
	return pd_div64(now, w->len);
}

/* Whether a slot stamped st holds one of ticks now - last + 1 .. now. */
static inline bool pd_srcwin_within(u64 st, u64 now, u32 last)
{
	return st && st - 1 <= now && st - 1 + last > now;
}

/*
 * Merge into out the sketches of sources (PD_SRCWIN_SRC) or destinations
 * (PD_SRCWIN_DST) of ticks now - last + 1 .. now (last is at most nsub; now
 * is a tick); returns how many slots held one of those ticks.
 */
u32 pd_srcwin_collect(const struct pd_srcwin *w, u64 now, u32 last, int which,
		      struct pd_hll *out);
/* The same for the summaries, into a merge; -EINVAL if it has no room. */
int pd_srcwin_collect_top(const struct pd_srcwin *w, u64 now, u32 last,
			  struct pd_ss_agg *out);

#endif /* PD_SRCWIN_H */
