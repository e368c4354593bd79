/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Space-Saving (Metwally, Agrawal & El Abbadi, ICDT 2005) over addresses,
 * and the merge of many summaries into one answer.
 *
 * A summary has cap counters. A monitored address's counter is
 * incremented; an unmonitored one takes over the counter with the least
 * count `min`, starting at min + 1 with error min. Every monitored
 * address's true count f satisfies count - err <= f <= count, and any
 * unmonitored address has f <= min <= N / cap (N: elements counted).
 *
 * Per element: one lookup in an open-addressed index (at most a quarter full,
 * linear probing) and O(1) list surgery in the paper's Stream-Summary:
 * counters with equal counts share a bucket, buckets are kept in a list
 * sorted by count, so the least counter is the first bucket's and an
 * increment moves a counter to the next bucket (or renumbers a bucket it
 * is alone in). No allocation: buckets come from a free list of cap.
 *
 * Merging (per-CPU and per-sub-window summaries into one answer): for an
 * address, the merged upper bound is the sum over summaries of its count,
 * or of the summary's min where it is not monitored; the merged lower
 * bound the sum of its count - err where monitored (0 elsewhere). So the
 * guarantees of a single summary hold for the union, with N the total
 * and the sum of the mins in place of min (still at most N / cap).
 */
#ifndef PD_SS_H
#define PD_SS_H

#include "pd_port.h"

#define PD_SS_MIN_CAP 8
#define PD_SS_MAX_CAP 4096

struct pd_ss_item {
	u64 count;		/* upper bound of the true count */
	u64 err;		/* count - err is a lower bound */
	u64 hash;		/* of the address; the caller's seeded hash */
	u8 addr[16];
	u8 len;			/* 4 or 16 */
	u8 seen;		/* merge bookkeeping */
	u16 next;		/* in its bucket's list (PD_SS_NIL ends it) */
	u16 prev;
	u16 bucket;
};

#define PD_SS_NIL 0xffff

struct pd_ss_bucket {
	u64 count;
	u16 head;		/* first counter with this count */
	u16 next;		/* bucket with the next larger count */
	u16 prev;
	u16 pad;
};

struct pd_ss {
	u32 cap;
	u32 n;			/* counters in use */
	u32 mask;		/* index slots - 1 */
	u64 total;		/* N: elements counted */
	u16 low;		/* the bucket of least count, or PD_SS_NIL */
	u16 free;		/* unused buckets, linked by next */
	struct pd_ss_item *it;	/* cap */
	struct pd_ss_bucket *b;	/* cap */
	u16 *idx;		/* mask + 1 slots: item number + 1, 0 empty */
};

/* Bytes of memory for a summary of cap counters. */
size_t pd_ss_bytes(u32 cap);
/* Set up over zeroed memory of pd_ss_bytes(cap); 0 or -EINVAL. */
int pd_ss_init(struct pd_ss *s, u32 cap, void *mem);
void pd_ss_clear(struct pd_ss *s);
/* Count one element: address addr (len 4 or 16) with hash `hash`. */
void pd_ss_add(struct pd_ss *s, u64 hash, const u8 *addr, u8 len);
/* The least count once every counter is in use; 0 before. */
u64 pd_ss_min(const struct pd_ss *s);
/* The counter of an address, or NULL. */
const struct pd_ss_item *pd_ss_find(const struct pd_ss *s, u64 hash,
				    const u8 *addr, u8 len);

/*
 * The merge of summaries. It lists at most `keep` addresses after each
 * merge, the ones with the largest upper bounds; `absent` bounds the count
 * of every address not listed (the sum of the mins, raised to the largest
 * upper bound dropped when the list is cut).
 */
struct pd_ss_agg {
	u32 keep;
	u32 room;		/* keep + the largest summary merged */
	u32 n;
	u32 mask;
	u64 absent;
	u64 total;		/* N of all merged summaries */
	struct pd_ss_item *it;	/* room */
	u32 *idx;		/* mask + 1 slots */
};

/* Bytes for a merge keeping `keep` addresses of summaries of <= cap. */
size_t pd_ss_agg_bytes(u32 keep, u32 cap);
int pd_ss_agg_init(struct pd_ss_agg *a, u32 keep, u32 cap, void *mem);
/* a = a merged with s; -EINVAL if s is larger than the cap given at init. */
int pd_ss_agg_merge(struct pd_ss_agg *a, const struct pd_ss *s);
/* Sort the listed addresses by upper bound, largest first. */
void pd_ss_agg_sort(struct pd_ss_agg *a);
/* Bounds of an address: lo <= f <= hi. */
void pd_ss_agg_bounds(const struct pd_ss_agg *a, u64 hash, const u8 *addr,
		      u8 len, u64 *lo, u64 *hi);

/*
 * The BFSS rule (Liu et al., "Finding low-frequency items in data
 * streams", Algorithm 2) for an address known to have been seen: it may
 * be rare (true count at most floor(s N)) unless its lower bound says
 * otherwise. No address with f <= floor(s N) is ever refused; an address
 * accepted has f <= floor(s N) + the merged error, at most N / cap.
 * support_ppb: s in parts per 10^9. The address's bounds come back in
 * *lo and *hi (as pd_ss_agg_bounds()).
 */
bool pd_ss_rare(const struct pd_ss_agg *a, u64 hash, const u8 *addr, u8 len,
		u32 support_ppb, u64 *lo, u64 *hi);
/* floor(s N) */
u64 pd_ss_support_count(u64 total, u32 support_ppb);

#endif /* PD_SS_H */
