/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The deferred step: a packet's filter step taken when a later packet
 * comes, where nothing about the packet waits for its verdict (action
 * count).
 *
 * A step waits for the line its key's hash names (the SBF's: one line a
 * step in layout line, two in blocked): a miss, to memory when the filter
 * is beyond the caches, or, in a kernel, when the stack between two
 * packets has evicted it. Where the verdict changes nothing about the
 * packet, the caller asks for the line as soon as the hash is known,
 * keeps the hash here, and steps instead the hash kept a queue's depth of
 * packets before, whose line was asked for then: the wait overlaps the
 * work between them. Steps are taken in the order the packets came, so a
 * filter stepped through the queue, then drained, ends as one stepped at
 * once, with the same verdicts, each a depth of packets later.
 *
 * The depth follows the filter a CPU steps (pd_defer_depth()): one packet
 * where it is in the core's caches, and the next packet's work hides a
 * hit in them; PD_DEFER_DEEP beyond them, where each step's line is a
 * trip to memory (or a move from another core's cache), longer than a
 * packet's work on a fast path, if the family's prefetch asks for every
 * line of the step (the SBF's line layout: one). Deeper queues cost a
 * filter in the caches time on two threads, and one whose step has lines
 * the prefetch does not ask for (blocked's decrement run, drawn a step
 * ahead) time on one (Documentation/results/packet-path.md).
 *
 * One queue per CPU (per thread in userspace): no lock, no atomic. Only
 * its owner fills and takes its slots; in the module a reader settles
 * every CPU's queue on that CPU (module/defer.c).
 */
#ifndef PD_DEFER_H
#define PD_DEFER_H

#include "pd_port.h"
#include "key.h"

struct pd_filter_plan;

/* Packets a step waits beyond the caches: a power of two */
#define PD_DEFER_DEEP	8
static_assert(PD_DEFER_DEEP && !(PD_DEFER_DEEP & (PD_DEFER_DEEP - 1)),
	      "a power of two");

/*
 * The depth of the queue for the filter planned as plan (the one a CPU
 * steps: its own, or the whole shared one): PD_DEFER_DEEP if its family's
 * prefetch asks for all of a step and it is as large as layout auto plans
 * a filter beyond a core's caches (plan.h); 1 otherwise. filter.c.
 */
u32 pd_defer_depth(const struct pd_filter_plan *plan);

/*
 * One packet's step, kept: its hash, what the filter reads of it, a tag.
 * 32 bytes, aligned so that none straddles two lines.
 */
struct pd_defer_ent {
	u64 h;
	struct pd_pktinfo pi;
	s32 tag;	/* the caller's: the module's named device, or -1 */
} __aligned(32);
static_assert(sizeof(struct pd_defer_ent) == 32, "two a line");

struct pd_defer {
	u32 n;		/* entries kept: at most depth */
	u32 head;	/* the oldest's slot */
	u32 depth;	/* its slots: pd_defer_depth(), a power of two */
	struct pd_defer_ent e[];
};

/* The bytes of a queue of depth slots: the header and one slot in a line. */
#define PD_DEFER_BYTES(depth) \
	(sizeof(struct pd_defer) + (depth) * sizeof(struct pd_defer_ent))

/* An empty queue of depth slots, over PD_DEFER_BYTES(depth) bytes. */
static inline void pd_defer_init(struct pd_defer *q, u32 depth)
{
	q->n = 0;
	q->head = 0;
	q->depth = depth;
}

/*
 * The slot of the next entry. If the queue is full (*full), it holds the
 * oldest entry, to be stepped from there before the caller fills it in
 * place, field by field (a copy of an entry built on the stack out of
 * narrower stores would wait for them: a failed store-to-load forward);
 * then pd_defer_commit().
 */
static inline struct pd_defer_ent *pd_defer_slot(struct pd_defer *q,
						 bool *full)
{
	*full = q->n == q->depth;
	return &q->e[(q->head + (*full ? 0 : q->n)) & (q->depth - 1)];
}

/* The slot pd_defer_slot() gave is filled: kept. */
static inline void pd_defer_commit(struct pd_defer *q, bool full)
{
	if (full)
		q->head = (q->head + 1) & (q->depth - 1);
	else
		q->n++;
}

/* Keep h, pi, tag in slot e. */
static inline void pd_defer_fill(struct pd_defer_ent *e, u64 h, u8 dscp,
				 u32 mark, u64 now, s32 tag)
{
	e->h = h;
	e->pi.dscp = dscp;
	e->pi.mark = mark;
	e->pi.now = now;
	e->tag = tag;
}

/* The oldest entry kept, taken from the queue, in *out: false if none. */
static inline bool pd_defer_pop(struct pd_defer *q, struct pd_defer_ent *out)
{
	if (!q->n)
		return false;
	*out = q->e[q->head];
	q->head = (q->head + 1) & (q->depth - 1);
	q->n--;
	return true;
}

#endif /* PD_DEFER_H */
