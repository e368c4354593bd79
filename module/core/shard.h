/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One filter that every CPU steps (scope shared), in shards by key hash.
 *
 * A filter behind one lock does not scale: the lock's line moves between
 * CPUs on every element and they wait for each other (measured: two CPUs
 * on one 1 MiB SBF take 12x the time per element of two CPUs on their own
 * filters). Here the filter is n independent filters of the same family
 * ("shards"), each over 1/n of the memory and with its own lock on its own
 * cache line; an element goes to the shard its key's hash selects, so a
 * copy always meets its original's shard, whichever CPU it comes on. Two
 * CPUs meet in one shard with probability 1/n per element; each shard's
 * generator state (the SBF's decrement start, a window's expiry) is its
 * own and is touched under its lock.
 *
 * The model carries over: a shard sees 1/n of the elements over 1/n of the
 * cells, so the decrements a cell takes per element of the whole stream,
 * and hence the stable point, the FP rate and the FN rate at a gap, are a
 * single filter's. A setting that counts elements (a window of packets, a
 * rate, the gap the FN is planned for: settings.h's PD_SF_COUNT) is 1/n of
 * it in a shard, and the plan reported for the whole is a shard's with its
 * sizes n times (pd_shards_plan()).
 *
 * The shard is chosen by bits of the key's hash remixed (splitmix64's
 * finaliser), not by bits the filter itself uses for its cells: within a
 * shard, the filter's hashes stay uniform.
 *
 * Every shard has the same hash key (one hash per element, before the
 * lock) and its own generator state. With a fixed seed, shard 0 is seeded
 * as pd_filter_seed() seeds one filter, and shard i > 0 takes the next
 * draws for its generator: a sharded filter of one shard is the filter
 * of pd_filter_seed(), and the simulator rebuilds any of them.
 *
 * Locks are the platform's (pd_lock_t: a spinlock in the kernel, a
 * test-and-test-and-set lock in userspace); the caller takes a shard's
 * around its step (pd_shard_of()).
 *
 * A family whose update is word by word (filter.h's step_cpu: the SBF)
 * needs no lock: with no count asked, scope shared builds it as one
 * filter (n 1, lockfree) that every CPU steps at once with its own
 * generator (pd_filter_step_cpu(); pd_shards_plan_shared() decides).
 * Its model is one filter's exactly, and a CPU stepping alone with
 * generator state copied from the filter steps as the filter does.
 */
#ifndef PD_SHARD_H
#define PD_SHARD_H

#include "pd_port.h"
#include "filter.h"

#define PD_SHARDS_MAX		4096
/* A shard's memory: at least a line, or fewer shards. */
#define PD_SHARD_MIN_BYTES	64
/*
 * The automatic count: this many per possible CPU, a power of two, but
 * none under PD_SHARD_AUTO_BYTES (a shard smaller than a page gains no
 * more from spreading the CPUs than it pays in its lock's line).
 */
#define PD_SHARDS_PER_CPU	16
#define PD_SHARD_AUTO_BYTES	4096
/*
 * A window of W packets is W / n of a shard's own packets: a copy g
 * packets after its original in the whole stream comes a Binomial(g, 1/n)
 * of its shard's after it, so the window's edge is soft by about
 * sqrt(W / n) packets. At least 256 a shard (one standard deviation of
 * the edge within 1/16 of the window), or fewer shards.
 */
#define PD_SHARD_MIN_WINDOW	256

/* A shard: its lock beside its filter's state, on lines of its own. */
struct pd_shard {
	pd_lock_t lock;
	struct pd_filter f;
} PD_LINE_ALIGNED;

struct pd_shards {
	/* what every packet reads first: the hook's line (pktdedup.h) */
	u32 n;			/* a power of two */
	u8 bits;		/* log2(n) */
	/*
	 * One filter (n 1) that every CPU steps without its lock, each
	 * with its own generator (pd_filter_step_cpu()).
	 */
	bool lockfree;
	struct pd_shard *sh;	/* n of them */
	/*
	 * Every shard's hash key, read here: not on a shard's first line,
	 * which its CPUs write.
	 */
	struct pd_hkey hkey;
	void *mem;		/* the cells: pd_shards_mem_bytes() */
	u64 stride;		/* bytes of a shard's memory, whole lines */
};

/* The automatic shard count for ncpus possible CPUs and mem bytes. */
u32 pd_shards_auto(u32 ncpus, u64 mem);
/*
 * Plan *n shards for req (*n a power of two, at most PD_SHARDS_MAX): the
 * plan of one shard (*shard) and of the whole as it will be reported
 * (*whole: the shard's, its sizes and counts n times). Halves *n while a
 * shard would hold less than PD_SHARD_MIN_BYTES or its family refuses the
 * shard's request; 0, or the family's refusal of req itself (*why; the
 * refused plan in *shard and *whole, for pd_filter_refusal()). A shard's
 * step is never planned above one filter's: a shard count whose shard
 * the step's bound refuses is halved too.
 */
int pd_shards_plan(const struct pd_filter_req *req, u32 *n,
		   struct pd_filter_plan *shard, struct pd_filter_plan *whole,
		   const char **why);
/*
 * Plan the shared filter of req with asked shards (0: automatic, for
 * ncpus possible CPUs): a family with a lock-free step (filter.h's
 * step_cpu) and no count asked gives one filter that every CPU steps
 * without a lock (plans' lockfree); else asked shards, or
 * pd_shards_auto()'s, each with its lock (pd_shards_plan()). The family
 * plans it with req's shared set (the SBF's layout auto: line).
 */
int pd_shards_plan_shared(const struct pd_filter_req *req, u32 asked,
			  u32 ncpus, struct pd_filter_plan *shard,
			  struct pd_filter_plan *whole, const char **why);
/*
 * Bytes of cell memory n shards of plan shard take: a stride each, the
 * last only its filter's bytes. Within the memory asked of a family sized
 * by memory (a shard is planned for whole lines), and one shard's are one
 * filter's.
 */
u64 pd_shards_mem_bytes(const struct pd_filter_plan *shard, u32 n);
/*
 * Set s up: n shards (a power of two, else -EINVAL) in sh (zeroed, on
 * their own lines) over mem (zeroed, pd_shards_mem_bytes(), line-aligned);
 * random seeds, one hash key for all.
 */
int pd_shards_init(struct pd_shards *s, struct pd_shard *sh, u32 n,
		   const struct pd_filter_plan *shard, void *mem,
		   const char **why);
/* Fixed seeds from *state (see above); *state advances. */
void pd_shards_seed(struct pd_shards *s, u64 *state);
/* Userspace and tests: plan, allocate and init; free. */
int pd_shards_create(struct pd_shards *s, const struct pd_filter_req *req,
		     u32 n, struct pd_filter_plan *whole, const char **why);
/* The same, planned as the module plans scope shared (above). */
int pd_shards_create_shared(struct pd_shards *s,
			    const struct pd_filter_req *req, u32 asked,
			    u32 ncpus, struct pd_filter_plan *whole,
			    const char **why);
void pd_shards_destroy(struct pd_shards *s);

/* The shard of a key's hash h (pd_filter_hash() under any shard's key). */
static inline u32 pd_shard_index(const struct pd_shards *s, u64 h)
{
	if (!s->bits)	/* one shard (lock-free, or asked): no mixing */
		return 0;
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
	return (u32)((h ^ (h >> 31)) >> (64 - s->bits));
}

static inline struct pd_shard *pd_shard_of(const struct pd_shards *s, u64 h)
{
	return &s->sh[pd_shard_index(s, h)];
}

/* The key's hash, the same under every shard. */
static inline u64 pd_shards_hash(const struct pd_shards *s,
				 const struct pd_key *key)
{
	return pd_key_hash64(key, &s->hkey);
}

/*
 * Occupancy of the whole from a read of at most max_bytes (each shard
 * max_bytes / n, at least a line): the shards' sums. Unlocked: a
 * statistic, read while the shards are written.
 */
void pd_shards_occupancy(const struct pd_shards *s, struct pd_filter_occ *o,
			 u64 max_bytes);
/*
 * Add one of n shards' window state w to the whole's *sum (first: start
 * it): entries, early expiries and capacities summed, the effective and
 * shortest windows the least; a window of packets is n times a shard's.
 */
void pd_shards_window_add(struct pd_filter_win *sum,
			  const struct pd_filter_win *w, u32 n, bool first);

#endif /* PD_SHARD_H */
