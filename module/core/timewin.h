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
 *   sliding   exact: m cells (K per key) that each hold the number
 *             (mod 2^16 or 2^32) of the latest packet that set it, and a ring of
 *             the times of the last C packets (C the capacity). A key is
 *             inside iff every one of its cells was set by a packet that
 *             is among the ring's live entries and whose time is inside
 *             the window: its age is checked, so no copy older than the
 *             window is reported (but for Bloom false positives: an old
 *             key whose K cells were all set again by packets inside the
 *             window, at most C of them, the load the bound (1 - e^(-K C
 *             / m))^K <= fps is planned for), and none inside it is
 *             missed while the ring holds it (each cell of a key holds
 *             its number or a later one, of a packet no older). Nothing
 *             is decremented and nothing drains. A frontier (the oldest
 *             entry not known old) advances at most PD_TW_EXPIRE_MAX
 *             entries a packet; while it lags (after a quiet spell) a
 *             lookup reads the ring time of each cell it matched, else
 *             none. If the ring is full the oldest entry leaves, early if
 *             inside the window. Numbers wrap: a sweep re-stamps r cells
 *             a packet, any stamped C or more packets ago as C packets
 *             old, so a cell's age stays at most C + m / r and never
 *             aliases a recent one: 16-bit stamps where C + m / r <=
 *             65535 with r <= PD_TW_SWEEP_MAX (small windows), else
 *             32-bit ones and r = 1 (C + m < 2^32).
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
 *             is not yet clean waits (the window is longer meanwhile;
 *             nothing is forgotten). No copy less than (s - 1) W / s apart
 *             is missed while no jump comes early; each subwindow holds at
 *             most its capacity, planned so that the union's FP stays
 *             under fps. A subwindow stays live while its latest packet is
 *             younger than W: a copy up to W plus a subwindow's span old
 *             may be found. After a quiet spell of W or more (the current
 *             subwindow, the latest written, is older than W) everything
 *             is forgotten at once: a new epoch. Each line of 8 words has
 *             a mark; a line whose mark is not the epoch reads as empty
 *             and is emptied and marked at its first write, or by a sweep
 *             of a few lines a packet (every line within as many packets
 *             as a spare is emptied in), after which no mark is read
 *             until the next reset. A reset comes at most once a packet
 *             and the sweep visits every line within nlines packets, so
 *             no mark falls 2^32 epochs behind.
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
 * All work per packet is bounded. Sliding: K cells read and K stamped, at
 * most K ring times read (only while the frontier lags), at most
 * PD_TW_EXPIRE_MAX + 1 frontier steps (a ring time each), one ring time
 * written, at most PD_TW_SWEEP_MAX cells swept (one with 32-bit stamps).
 * Jumping, landmark: K words (while a sweep is under way also K marks,
 * and at most K lines of 8 words emptied), the spare's cleaning (its step,
 * eight times it while a jump waits), the sweep's step of lines, and at a
 * reset s + 1 subwindows' states. Each plan gives those as the most lines
 * a step touches (step.h; slide.c, jump.c), and a plan above the bound,
 * a jumping window's spare emptied over too few packets for its size, is
 * refused.
 */
#ifndef PD_TIMEWIN_H
#define PD_TIMEWIN_H

#include "pd_port.h"
#include "settings.h"

#define PD_TW_DEFAULT_FPS_PPB 1000000u	/* 0.001 */
#define PD_TW_DEFAULT_SUBWIN 7
#define PD_TW_MAX_SUBWIN 63
#define PD_TW_DEFAULT_WARN 50		/* percent */
#define PD_TW_MAX_K 16
#define PD_TW_EXPIRE_MAX 4		/* sliding: frontier steps per packet */
#define PD_TW_LINE_WORDS 8		/* jumping: words of a line, one mark */
#define PD_TW_MIN_NS 1000ULL
#define PD_TW_MAX_NS 3600000000000ULL	/* an hour */
#define PD_TW_MAX_PACKETS 0x80000000ULL
#define PD_TW_MAX_CAP 0x80000000ULL	/* packets a window holds */
#define PD_TW_MAX_BYTES 0x100000000ULL	/* of one filter */
/* sliding: cells plus capacity stay below 2^32 (the stamps' sweep) */
#define PD_TW_MAX_SLIDE_CELLS 0x40000000ULL
#define PD_TW_SWEEP_MAX 16		/* sliding: 16-bit stamps swept a packet */
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

/*
 * The sliding window. Packet number seq stamps its K cells (mod 2^16 or
 * 2^32: pd_tw_slide_narrow()); the ring holds the times of the last len
 * packets (len <= cap), oldest at head; (seq - stamp) & mask is the age,
 * in packets, of the packet that last set a cell.
 */
struct pd_slide {
	struct pd_tw w;
	void *cell;		/* m stamps of 16 or 32 bits */
	u64 *ring;		/* cap times */
	u32 m;
	u32 cap;
	u32 mask;		/* 0xffff or 0xffffffff */
	u8 k;
	bool wide;		/* 32-bit stamps */
	u32 seq;		/* the latest packet's number */
	u32 head;		/* the frontier: the oldest entry not known old */
	u32 len;		/* entries from the frontier to the latest */
	u32 sweep;		/* the next cell the stamps' sweep visits */
	u32 sweep_step;		/* cells it visits a packet */
};

/* The state of a filter of the sliding window (filter.h's pd_filter_priv()). */
#define pd_slide_of(f) ((struct pd_slide *)pd_filter_priv(f))

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
	u32 *mark;		/* nlines: the epoch of each line of 8 words */
	u64 sub;		/* ticks per subwindow */
	u32 m;
	u32 nwords;
	u32 nlines;
	u32 clean_pos;		/* words of the spare emptied */
	u32 clean_step;		/* words emptied per packet */
	u32 epoch;		/* a line marked otherwise reads as empty */
	u32 sweep_pos;		/* the next line the epoch's sweep visits */
	u32 sweep_left;		/* lines to visit; 0: every line is of the epoch */
	u32 sweep_step;		/* lines visited per packet */
	u8 k;
	u8 s;			/* live subwindows */
	u8 slots;		/* s + 1 */
	u8 lane_shift;		/* log2 of lane bits */
	u8 cur;			/* the current subwindow's lane */
	u8 spare;		/* the one being emptied */
};

/* The state of a filter of a jumping or landmark window (filter.h's pd_filter_priv()). */
#define pd_jump_of(f) ((struct pd_jump *)pd_filter_priv(f))

/*
 * Whether a sliding window of m cells and capacity c stamps in 16 bits: a
 * sweep of at most PD_TW_SWEEP_MAX cells a packet then visits each cell
 * before its age can pass c + m / PD_TW_SWEEP_MAX <= 65535.
 */
static inline bool pd_tw_slide_narrow(u64 m, u64 c)
{
	return c + (m + PD_TW_SWEEP_MAX - 1) / PD_TW_SWEEP_MAX <= 0xffff;
}

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

/* The window families' request defaults (pd_filter_ops.req_defaults). */
void pd_tw_req_defaults(struct pd_filter_req *req);

/* The window families' settings in a request (pd_filter_req.fam). */
struct pd_tw_req {
	u64 window_ns;		/* a time window, or 0 */
	u64 window_pkts;	/* a packet window, or 0 */
	u64 rate;		/* time windows: packets/s; 0: size from mem */
	u64 subwindows;		/* jumping: s; 0: PD_TW_DEFAULT_SUBWIN */
	u64 warn_below;		/* percent; 0: never */
};

#define pd_tw_req(r) ((struct pd_tw_req *)(r)->fam)

/*
 * The window families' settings (settings.h): a target, the window as a
 * time or a packet count, the rate that sizes it, the alert's threshold;
 * the jumping window's add its subwindows, before those (so that the
 * others' are the same table from its second row).
 */
extern const struct pd_setting pd_tw_jump_settings[];
#define PD_TW_SETTINGS (&pd_tw_jump_settings[1])

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
struct pd_filter_win;
void pd_tw_report(const struct pd_tw *w, struct pd_filter_win *r);

#endif /* PD_TIMEWIN_H */
