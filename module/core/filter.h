/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One interface for every de-duplication filter family, as the kernel's
 * own ops tables (struct tcp_congestion_ops) are: a family plans itself
 * from a request, says how much memory it needs, sets itself up over the
 * memory it is given, and runs one step per element (the verdict and its
 * update). The module, the simulator, the benchmark and the tests call
 * only this interface. A family is an entry of the spec's filter-kind enum
 * (families.h, generated from it, lists them for the registry and the
 * netlink nests) and its own file: its ops, its state and its settings
 * (struct and rows, settings.h), which nothing else names.
 *
 * Families: sbf (Deng & Rafiei), rsbf, bsbf, bsbfsd, rlbsbf (Bera et al.,
 * bitf.h), ibf-2c, ibf-mc (Boraskar et al., ibf.h), and the window
 * families sliding, jumping, landmark (Metwally et al., timewin.h). The
 * numbers are the uAPI's (enum pktdedup_filter_kind).
 */
#ifndef PD_FILTER_H
#define PD_FILTER_H

#include "pd_port.h"
#include "../uapi/pktdedup.h"
#include "families.h"
#include "key.h"
#include "occ.h"
#include "sbf.h"
#include "settings.h"
#include "step.h"

#define PD_FILTER_NKINDS (PKTDEDUP_FILTER_KIND_MAX + 1)
#define PD_FILTER_AUTO 0xffffffffu	/* "choose for me" */

/* Room for a family's own settings in a request, in u64 values. */
#define PD_FILTER_REQ_SLOTS 8

/*
 * What is asked of a filter: a family, memory and a target, then the
 * settings of the family, each PD_FILTER_AUTO (or 0 where it says so) for
 * the family's own choice. Those are the family's own struct of u64
 * values (struct pd_sbf_req, pd_ibf_req, pd_bitf_req, pd_tw_req), opaque
 * here: reached with the family's accessor (pd_sbf_req(), ...), checked to
 * fit by PD_FILTER_REQ_FITS(), and described by the family's rows
 * (pd_filter_ops.settings, settings.h), which the netlink layer,
 * dedupctl and dedup-sim read. A family refuses nothing it does not read.
 */
struct pd_filter_req {
	u8 kind;		/* PKTDEDUP_FILTER_KIND_* */
	/*
	 * every CPU steps the filter (scope shared): set by the shards'
	 * planner (shard.h), not by a user; a family may plan for it
	 */
	bool shared;
	u64 mem_bytes;		/* cells or bit arrays */
	u64 fps_ppb;		/* target FP rate; 0: the family's default */
	u64 fam[PD_FILTER_REQ_SLOTS];	/* the family's settings */
};

/* In a family's header: its settings struct fits in pd_filter_req.fam. */
#define PD_FILTER_REQ_FITS(type)					\
	static_assert(sizeof(type) <= sizeof(((struct pd_filter_req *)0)->fam), \
		      #type " does not fit in pd_filter_req.fam")

/* Which model values of a plan are given (pd_filter_plan.given). */
#define PD_PLAN_HAS_FP		0x1	/* fp_bound */
#define PD_PLAN_HAS_ZERO	0x2	/* stable_zero */
#define PD_PLAN_HAS_FN		0x4	/* fn_rate (and fn_low for IBF) */
#define PD_PLAN_HAS_LOAD	0x8	/* stable_load */
#define PD_PLAN_HAS_WINDOW	0x10	/* window_*, capacity, subwindows */

/* What a family made of a request; probabilities are Q62. */
struct pd_filter_plan {
	u8 kind;
	u32 k;			/* probes, or arrays */
	u64 cells;		/* cells, or bits per array */
	u64 bytes;		/* of the state's memory (pd_filter_ops.bytes) */
	u32 max;		/* counting: cell maximum */
	u32 bits;		/* counting: bits per cell */
	u32 p;			/* counting: decrements per element */
	u64 p_exact_q32;	/* counting: P before rounding (Q32.32) */
	u32 p_star_ppb;		/* rsbf */
	u8 importance;		/* ibf */
	u32 importance_mask;	/* ibf */
	u32 given;		/* PD_PLAN_HAS_* */
	u64 fp_bound;		/* FP of a new key at the stable point */
	u64 stable_zero;	/* counting: zero cells at the stable point */
	u64 stable_load;	/* bits: set bits at the stable point */
	u64 gap;		/* the gap fn_rate is given for */
	u64 fn_rate;		/* FN at gap (IBF: the most important class) */
	u64 fn_low;		/* IBF: FN at gap of the least important class */
	u64 window_ns;		/* windows: as asked (one of the two) */
	u64 window_pkts;
	u64 capacity;		/* windows: per window (jumping: subwindow) */
	u32 subwindows;		/* windows: s (1: sliding, landmark) */
	u64 rate;		/* time windows: packets/s the capacity holds */
	u32 warn_below;		/* windows: percent */
	u64 clean_pkts;		/* jumping, landmark: packets to empty a spare in */
	u8 layout;		/* sbf: PKTDEDUP_LAYOUT_* */
	u32 shards;		/* built in (shard.h); 1: one filter */
	/*
	 * Shared, one filter that every CPU steps without a lock (its
	 * family's step_cpu; shards 1).
	 */
	bool lockfree;
	/*
	 * At most this many lines of the filter's memory one step reads or
	 * writes (see PD_STEP_MAX_LINES); at most the lines of bytes.
	 */
	u64 step_lines;
	/* The setting (PKTDEDUP_A_SETTINGS_*) that drives step_lines. */
	u16 step_attr;
	/*
	 * The family's prefetch (pd_filter_prefetch()) asks for every line
	 * its step touches: a step kept for later (core/defer.h) then waits
	 * for nothing the prefetch did not ask for.
	 */
	bool prefetch_whole;
	/*
	 * Where a step touches them ("in its P decrements") and what to
	 * change when they are too many: static strings.
	 */
	const char *step_what;
	const char *step_hint;
	/*
	 * The refusal in one static string, without the numbers (the
	 * module's extack message, which outlives the request):
	 * PD_STEP_OVER, step_what, ": ", step_hint, PD_STEP_ASK (step.h).
	 */
	const char *step_msg;
};

/* Bit-array families: arrays whose load an occupancy reports, at most. */
#define PD_FILTER_MAX_LOADS 16

/*
 * Occupancy of one filter, in its family's terms: of what a read examined,
 * the whole filter or a sample of it (occ.h).
 */
struct pd_filter_occ {
	u64 units;		/* cells, or bits in all arrays, examined */
	u64 zero;		/* counting: zero cells */
	u64 set;		/* bits: set bits */
	u32 arrays;		/* bits: k, and the loads below */
	u32 load[PD_FILTER_MAX_LOADS];
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
	u64 stuck;		/* no counters stick any more: always 0 */
	u32 subwindows;
};

/*
 * What a filter remembers, for reports (pd_filter_memory()): copies this
 * many packets (or ns) after their original are still caught.
 */
struct pd_filter_mem {
	u64 packets;		/* 0: not known; 2^64 - 1: every gap */
	u64 ns;			/* 0: not known (no rate, or not timed) */
};

struct pd_filter;

/*
 * A CPU's own state for a lock-free step (pd_filter_ops.step_cpu): the
 * generator the family draws from, opaque here.
 */
struct pd_filter_cpu {
	u64 priv[2];
};

struct pd_filter_ops {
	const char *name;		/* "sbf", as dedupctl and /proc say */
	u8 kind;
	bool counting;			/* cells (zero cells) or bits (loads) */
	bool timed;			/* its step reads pd_pktinfo.now */
	/* The settings it takes, as rows (settings.h), in the order sent. */
	const struct pd_setting *settings;
	u32 default_fps_ppb;		/* when the request gives none */
	/*
	 * The family's own settings' defaults in a request otherwise zeroed
	 * (pd_filter_req_defaults()); NULL: all 0.
	 */
	void (*req_defaults)(struct pd_filter_req *req);
	/* Parameters and model for req; 0, or a negative errno with *why. */
	int (*plan)(const struct pd_filter_req *req,
		    struct pd_filter_plan *plan, const char **why);
	/* Set up over zeroed memory of plan->bytes bytes. */
	int (*init)(struct pd_filter *f, const struct pd_filter_plan *plan,
		    void *mem, const char **why);
	/* The state of the family's random generator. */
	void (*set_rng)(struct pd_filter *f, u64 rng);
	/* One element: the verdict (true: duplicate) and the update. */
	bool (*step)(struct pd_filter *f, u32 h1, u32 h2,
		     const struct pd_pktinfo *pi);
	/*
	 * A family whose update is word by word (the SBF): one element on
	 * a filter that other CPUs step at the same time, without a lock,
	 * c the stepping CPU's own state. NULL: the family's step needs
	 * its filter to itself (a shard and its lock: shard.h). One CPU
	 * stepping, c from cpu_init(f, c, NULL): step() word for word.
	 */
	bool (*step_cpu)(struct pd_filter *f, struct pd_filter_cpu *c,
			 u32 h1, u32 h2, const struct pd_pktinfo *pi);
	/* c for step_cpu: a copy of f's own generator (rng NULL), or *rng. */
	void (*cpu_init)(const struct pd_filter *f, struct pd_filter_cpu *c,
			 const u64 *rng);
	/* The verdict, with nothing changed. */
	bool (*query)(const struct pd_filter *f, u32 h1, u32 h2);
	/* Empty again (same seeds). */
	void (*clear)(struct pd_filter *f);
	/*
	 * Occupancy from reading at most max_bytes of the state (PD_OCC_ALL:
	 * all of it) in evenly spaced lines (occ.h).
	 */
	void (*occupancy)(const struct pd_filter *f, struct pd_filter_occ *o,
			  u64 max_bytes);
	/* Window families: the window's state; NULL for the others. */
	void (*window)(const struct pd_filter *f, struct pd_filter_win *w);
	/*
	 * The memory a filter of plan has by the family's model: the gap in
	 * packets at which a copy is still caught with probability 99%
	 * (PD_PLAN_MEMORY_FN_PPB), 2^64 - 1 for every gap. NULL: no model
	 * (a window family's memory is its effective window instead).
	 * May be slow (the SBF's search): callers keep what it gives.
	 */
	u64 (*memory_gap)(const struct pd_filter_plan *plan);
};

/* Room for a family's state inside struct pd_filter. */
#define PD_FILTER_PRIV_BYTES 192

/* A filter of any family. Not thread-safe: one writer at a time. */
struct pd_filter {
	const struct pd_filter_ops *ops;
	struct pd_hkey hkey;	/* the key hash's secret (pd_filter_hash()) */
	void *mem;		/* the state's memory (plan->bytes) */
	/*
	 * Set by a window family when its window fell below warn_below (at
	 * most once a second); the owner reports and clears it.
	 */
	bool alert;
	/* Packets a step kept for later waits (pd_defer_depth() of its plan) */
	u8 defer_depth;
	/*
	 * The family's own state (its struct, opaque here): reached with
	 * pd_filter_priv(), checked to fit by PD_FILTER_PRIV_FITS().
	 */
	u64 priv[PD_FILTER_PRIV_BYTES / sizeof(u64)];
};

static inline void *pd_filter_priv(const struct pd_filter *f)
{
	return (void *)f->priv;
}

/* In a family's file: its state struct fits in pd_filter.priv. */
#define PD_FILTER_PRIV_FITS(type)					\
	static_assert(sizeof(type) <= PD_FILTER_PRIV_BYTES,		\
		      #type " does not fit in pd_filter.priv")

extern const struct pd_filter_ops *const pd_filter_families[PD_FILTER_NKINDS];

/* The family of kind, or NULL. */
const struct pd_filter_ops *pd_filter_family(unsigned int kind);
/* The family named name, or NULL. */
const struct pd_filter_ops *pd_filter_family_by_name(const char *name);
/*
 * The families' names in the registry's order, sep between them, into buf
 * (NUL-terminated, cut to len - 1 bytes): for messages that list them.
 */
void pd_filter_family_names(char *buf, size_t len, const char *sep);
/* A family's name: at most this long. */
#define PD_FILTER_NAME_MAX 15
/* Room for all the names, a separator of up to 4 bytes after each. */
#define PD_FILTER_NAMES_LEN (PD_FILTER_NKINDS * (PD_FILTER_NAME_MAX + 4))
/* A request with every setting left to kind's family. */
void pd_filter_req_defaults(struct pd_filter_req *req, u8 kind, u64 mem);
/*
 * Plan req with its family; 0, or a negative errno with *why. A plan whose
 * step would touch more than PD_STEP_MAX_LINES lines is refused with
 * -EFBIG, *plan filled in (for pd_filter_refusal()).
 */
int pd_filter_plan(const struct pd_filter_req *req,
		   struct pd_filter_plan *plan, const char **why);
/*
 * The words of a refusal err of pd_filter_plan() (or of what calls it:
 * pd_filter_create(), pd_shards_plan()) of req: why, or for -EFBIG the
 * setting to change, its value and the numbers, written into buf (len
 * bytes) from plan, the refused plan. Returns the message.
 */
const char *pd_filter_refusal(const struct pd_filter_req *req,
			      const struct pd_filter_plan *plan, int err,
			      const char *why, char *buf, size_t len);
/* Room for pd_filter_refusal()'s words. */
#define PD_FILTER_REFUSAL_LEN 256
/*
 * Set f up for plan over zeroed memory of plan->bytes (the caller's: the
 * module allocates per CPU, on the CPU's node); random seeds.
 */
int pd_filter_init(struct pd_filter *f, const struct pd_filter_plan *plan,
		   void *mem, const char **why);
/*
 * A fixed hash key (k0, k1) and generator state: tests, the simulator,
 * and an administrator who wants a predictable filter.
 */
void pd_filter_set_seeds(struct pd_filter *f, u64 k0, u64 k1, u64 rng);
/*
 * The seeds of one number, as dedup-sim --seed and the module's seed
 * setting derive them: splitmix64 from *state gives the generator state,
 * then the key's second and first words. *state advances (the simulator
 * draws its sketch seed after them). A filter seeded this way is
 * predictable to anyone who knows the number.
 */
void pd_filter_seed(struct pd_filter *f, u64 *state);
/* Empty, with new random seeds. */
void pd_filter_reset(struct pd_filter *f);
/* Userspace and tests: plan, allocate and init; free. */
int pd_filter_create(struct pd_filter *f, const struct pd_filter_req *req,
		     struct pd_filter_plan *plan, const char **why);
void pd_filter_destroy(struct pd_filter *f);

/*
 * One element. The Stable Bloom Filter, the default, is called directly;
 * the other families through their ops (one indirect call).
 */
static inline bool pd_filter_step(struct pd_filter *f, u32 h1, u32 h2,
				  const struct pd_pktinfo *pi)
{
	if (f->ops == &pd_sbf_family)
		return pd_sbf_step(pd_sbf_of(f), h1, h2);
	return f->ops->step(f, h1, h2, pi);
}

/*
 * One element on a filter every CPU steps at once, without a lock (a
 * family with step_cpu; pd_filter_plan.lockfree), c this CPU's state.
 */
static inline bool pd_filter_step_cpu(struct pd_filter *f,
				      struct pd_filter_cpu *c, u64 h,
				      const struct pd_pktinfo *pi)
{
	if (f->ops == &pd_sbf_family)
		return pd_sbf_step_cpu(pd_sbf_of(f), (struct pd_sbf_gen *)c,
				       (u32)h, (u32)(h >> 32));
	return f->ops->step_cpu(f, c, (u32)h, (u32)(h >> 32), pi);
}

/*
 * Set c up for pd_filter_step_cpu() on f: from *rng, or (rng NULL) a
 * copy of f's own generator, so that one CPU stepping alone steps as f.
 */
static inline void pd_filter_cpu_init(const struct pd_filter *f,
				      struct pd_filter_cpu *c, const u64 *rng)
{
	f->ops->cpu_init(f, c, rng);
}

/* Whether the family of kind has a lock-free step (step_cpu). */
bool pd_filter_kind_lockfree(unsigned int kind);

static inline bool pd_filter_query(const struct pd_filter *f, u32 h1, u32 h2)
{
	return f->ops->query(f, h1, h2);
}

/*
 * A key's hash under f's secret key: one pass. Its low and high halves
 * are the two hashes h1, h2 of the filters' double hashing.
 */
static inline u64 pd_filter_hash(const struct pd_filter *f,
				 const struct pd_key *key)
{
	return pd_key_hash64(key, &f->hkey);
}

/*
 * Start fetching the line a step of hash h will probe (a blocked SBF's; the
 * other families do nothing): between hashing and stepping, e.g. before
 * a shared filter's lock.
 */
static inline void pd_filter_prefetch(const struct pd_filter *f, u64 h)
{
	if (f->ops == &pd_sbf_family)
		pd_sbf_prefetch(pd_sbf_of(f), (u32)h);
}

/* pd_filter_step() and pd_filter_query() by a pd_filter_hash() value. */
static inline bool pd_filter_step_hash(struct pd_filter *f, u64 h,
				       const struct pd_pktinfo *pi)
{
	return pd_filter_step(f, (u32)h, (u32)(h >> 32), pi);
}

static inline bool pd_filter_query_hash(const struct pd_filter *f, u64 h)
{
	return pd_filter_query(f, (u32)h, (u32)(h >> 32));
}

/* Occupancy, exact: the whole filter is read. */
void pd_filter_occupancy(const struct pd_filter *f, struct pd_filter_occ *o);
/*
 * Occupancy from a read of at most max_bytes of the filter's state: exact
 * if it fits, else estimated from evenly spaced lines (occ.h states the
 * error). What anyone may ask for at any time is read this way.
 */
void pd_filter_occupancy_within(const struct pd_filter *f,
				struct pd_filter_occ *o, u64 max_bytes);
/* Whether filters of plan read pd_pktinfo.now (a time window). */
bool pd_filter_plan_timed(const struct pd_filter_plan *plan);
/* A window family's state; false (and *w untouched) for the others. */
bool pd_filter_window(const struct pd_filter *f, struct pd_filter_win *w);
/*
 * The memory by the model of plan's family (pd_filter_ops.memory_gap), in
 * packets; 0 for a family without a model. Slow: keep it.
 */
u64 pd_filter_memory_gap(const struct pd_filter_plan *plan);
/*
 * What one filter remembers, seen at pps (the packets/s that filter
 * steps; 0: not known): a window family's from its window state w (the
 * effective window, in its unit), another's from gap (its
 * pd_filter_memory_gap()); the other unit from the rate. w NULL: not a
 * window family. False when neither packets nor ns is known.
 */
bool pd_filter_memory(const struct pd_filter_win *w, u64 gap, u64 pps,
		      struct pd_filter_mem *m);

/* The counting families' SBF, set up for a plan, and its occupancy. */
int pd_sbf_init_plan(struct pd_sbf *s, const struct pd_filter_plan *plan,
		     void *mem, const char **why);
void pd_sbf_occ(const struct pd_sbf *s, struct pd_filter_occ *o,
		u64 max_bytes);
/*
 * The counting families' step bound in plan (its cells, max, k, p and
 * layout planned), and what drives it: p if asked (max, k, p as asked,
 * PD_FILTER_AUTO if not), else the P the planner found for the k, the
 * cell maximum or the target asked, in that order.
 */
void pd_sbf_plan_step(struct pd_filter_plan *plan, u64 max, u64 k, u64 p);

#endif /* PD_FILTER_H */
