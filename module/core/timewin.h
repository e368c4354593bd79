/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The window families: de-duplication over a window of time ("any copy
 * seen in the last 2 ms") or of packets ("in the last 100000 packets"),
 * after Metwally, Agrawal and El Abbadi (WWW 2005), with a capacity that
 * bounds the false-positive rate under floods.
 *
 * A window is measured in ticks: nanoseconds for a time window (the time a
 * packet brings, pd_pktinfo.now), packets for a packet window (each packet
 * one tick). A packet is a duplicate iff its key was seen within the
 * window before it, duplicates included (editcap -w's semantics).
 *
 *   sliding   exact expiry: a counting Bloom filter of m 16-bit counters
 *             (K per key) and a ring of the hashes and ticks of the
 *             packets inside the window, oldest first. Before a packet's
 *             verdict, ring entries older than the window leave (at most
 *             PD_TW_EXPIRE_MAX per packet: after a quiet spell the backlog
 *             drains over the next packets, meanwhile remembered longer),
 *             each decrementing its K counters; if the ring is still full
 *             the oldest leaves early. A counter that reaches 65535 sticks
 *             there (counted): it can only add false positives. So no copy
 *             inside the window is missed while the ring holds the window,
 *             and the ring never holds more than its capacity, the load the
 *             Bloom bound (1 - e^(-K C / m))^K <= fps is planned for.
 *   jumping   the window cut into s subwindows of W / s ticks; subwindow i
 *             is a plain Bloom filter (m bits, K per key) kept in lane bit
 *             i of every position (lanes of 2..64 bits, one word holds
 *             64 / lane positions): a probe reads one word and tests every
 *             subwindow at once. The verdict is the union of the live
 *             subwindows (the current and the s - 1 before it) that hold a
 *             packet younger than the window. At a jump the eldest live
 *             subwindow becomes the spare, which is emptied a few words per
 *             packet (enough to be clean before the current one can fill),
 *             and the clean spare becomes the current. A subwindow that
 *             reaches its capacity of keys jumps early; a jump whose spare
 *             is not yet clean waits (the window is longer meanwhile). No
 *             copy less than (s - 1) W / s apart is missed while no jump
 *             comes early; each subwindow holds at most its capacity, planned
 *             so that the union's FP stays under fps. After a quiet
 *             spell longer than the window, until the spare is empty (at
 *             most PD_TW_CLEAN_FAST words a packet), packets are judged
 *             but not remembered: their copies may pass.
 *   landmark  jumping with one subwindow: one Bloom filter emptied at each
 *             landmark (every window, or earlier when it fills); copies
 *             that straddle a landmark are missed.
 *
 * The effective window is what a filter remembered when it forgot: the
 * span from the packet (or subwindow start) forgotten to the packet that
 * made room, at most the window asked. Early expiries make it shorter;
 * when it falls below warn_below percent of the window, the filter raises
 * pd_filter.alert (at most once a second of its ticks) for its owner to
 * report.
 *
 * All work per packet is bounded: K counters and at most PD_TW_EXPIRE_MAX + 1
 * entries' K counters (sliding); K words and a bounded cleaning run
 * (jumping, landmark).
 */
#ifndef PD_TIMEWIN_H
#define PD_TIMEWIN_H

#include "pd_port.h"

#define PD_TW_DEFAULT_FPS_PPB 1000000u	/* 0.001 */
#define PD_TW_DEFAULT_SUBWIN 7
#define PD_TW_MAX_SUBWIN 63
#define PD_TW_DEFAULT_WARN 50		/* percent */
#define PD_TW_MAX_K 16
#define PD_TW_EXPIRE_MAX 4		/* sliding: expiries by age per packet */
#define PD_TW_CLEAN_FAST 64		/* jumping: words a packet empties at most */
#define PD_TW_MIN_NS 1000ULL
#define PD_TW_MAX_NS 3600000000000ULL	/* an hour */
#define PD_TW_MAX_PACKETS 0x80000000ULL
#define PD_TW_MAX_CAP 0x80000000ULL	/* packets a window holds */
#define PD_TW_MAX_BYTES 0x100000000ULL	/* of one filter */
#define PD_TW_CNT_MAX 0xffff		/* a sliding counter sticks here */
#define PD_TW_NS_PER_SEC 1000000000ULL

/* What the window families share: the clock, the capacity, the report. */
struct pd_tw {
	u64 window;		/* ticks */
	bool timed;		/* ticks are ns (else packets) */
	u64 cap;		/* packets (sliding) or keys (a subwindow) */
	u64 now;		/* the latest tick */
	u64 packets;		/* seen */
	u64 eff_last;		/* effective window at the latest expiry */
	u64 eff_min;		/* the shortest */
	u64 early;		/* early expiries */
	u64 warn_ticks;		/* alert below this; 0: never */
	u64 warned;		/* tick of the latest alert */
	bool has_warned;
};

/* One packet inside a sliding window. */
struct pd_tw_ent {
	u32 h1;
	u32 h2;
	u64 t;
};

struct pd_slide {
	struct pd_tw w;
	u16 *cnt;		/* m counters */
	struct pd_tw_ent *ring;	/* cap entries */
	u32 m;
	u8 k;
	u32 head;		/* the oldest entry */
	u32 len;
	u64 stuck;		/* counters that reached PD_TW_CNT_MAX */
};

/* A subwindow's span and load. */
struct pd_jslot {
	u64 start;		/* tick it became the current one */
	u64 end;		/* tick of its latest insert */
	u64 keys;		/* inserts that set a bit */
};

struct pd_jump {
	struct pd_tw w;
	struct pd_jslot *slot;	/* s + 1 */
	u64 *words;		/* m positions of `lane` bits */
	u64 sub;		/* ticks per subwindow */
	u32 m;
	u32 nwords;
	u32 clean_pos;		/* words of the spare emptied */
	u32 clean_step;		/* words emptied per packet */
	u8 k;
	u8 s;			/* live subwindows */
	u8 slots;		/* s + 1 */
	u8 lane_shift;		/* log2 of lane bits */
	u8 cur;			/* the current subwindow's lane */
	u8 spare;		/* the one being emptied */
};

/* A window family's state, for reports (pd_filter_ops.window). */
struct pd_filter_win {
	bool timed;		/* ticks are ns */
	u64 window;		/* asked, ticks */
	u64 entries;		/* packets or keys remembered now */
	u64 capacity;		/* per window (sliding) or subwindow */
	u64 effective;		/* at the latest expiry (window if none) */
	u64 shortest;		/* since built (window if none) */
	u64 early;
	u64 stuck;		/* sliding: counters stuck at the maximum */
	u32 subwindows;
};

/* The lane bits for s live subwindows and a spare: 2, 4, ... 64. */
unsigned int pd_tw_lane_shift(unsigned int s);
/*
 * Enhanced double hashing onto [0, m) (m even; Dillinger & Manolios): the
 * first probe and stride from (h1, h2) as the SBF's, the stride growing by
 * i after probe i. Plain double hashing measured up to 10% above the
 * Bloom bound the planner promises in small filters (a jumping window's
 * subwindow at a flood); this stays within it.
 */
static inline u32 pd_tw_first(u32 h1, u32 m)
{
	return (u32)(((u64)h1 * m) >> 32);
}

static inline u32 pd_tw_stride(u32 h2, u32 m)
{
	return (u32)(((u64)h2 * m) >> 32) | 1;
}

static inline u32 pd_tw_next(u32 pos, u32 stride, u32 m)
{
	u64 p = (u64)pos + stride;

	return (u32)(p >= m ? p - m : p);
}

/* The probes of a key, in order. */
struct pd_tw_probe {
	u32 pos;
	u32 stride;
	u32 m;
	u32 i;
};

static inline void pd_tw_probe_init(struct pd_tw_probe *p, u32 h1, u32 h2,
				    u32 m)
{
	p->pos = pd_tw_first(h1, m);
	p->stride = pd_tw_stride(h2, m);
	p->m = m;
	p->i = 0;
}

static inline void pd_tw_probe_next(struct pd_tw_probe *p)
{
	p->pos = pd_tw_next(p->pos, p->stride, p->m);
	p->stride = pd_tw_next(p->stride, ++p->i, p->m);
}

struct pd_filter_req;
struct pd_filter_plan;
struct pd_pktinfo;

/*
 * Plan a window family: sliding (one ring) or a union of s subwindows of
 * bits (jumping; landmark is s = 1). 0, or a negative errno with *why.
 */
int pd_tw_plan(const struct pd_filter_req *req, struct pd_filter_plan *plan,
	       bool sliding, u32 s, const char **why);
void pd_tw_init(struct pd_tw *w, const struct pd_filter_plan *plan);
void pd_tw_clear(struct pd_tw *w);
/* The tick of a packet: its time (never earlier than the latest), or +1. */
u64 pd_tw_tick(struct pd_tw *w, const struct pd_pktinfo *pi);
/*
 * Something was forgotten after span ticks (early: before the window was
 * over). True if the owner should be alerted.
 */
bool pd_tw_forgot(struct pd_tw *w, u64 span, bool early);
void pd_tw_report(const struct pd_tw *w, struct pd_filter_win *r);

#endif /* PD_TIMEWIN_H */
