/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The deferred step: a packet's filter step taken when the next packet
 * comes, where nothing about the packet waits for its verdict (action
 * count).
 *
 * A step waits for the line its key's hash names (the SBF's: one line a
 * step in layout line, two in blocked): a miss, to memory when the filter
 * is beyond the caches, or, in a kernel, when the stack between two
 * packets has evicted it. Where the verdict changes nothing about the
 * packet, the caller asks for the line as soon as the hash is known,
 * keeps the hash here, and steps instead the hash kept PD_DEFER_DEPTH
 * packets before, whose line was asked for then: the wait overlaps the
 * work between the two packets. Steps are taken in the order the packets
 * came, so a filter stepped through the queue, then drained, ends as one
 * stepped at once, with the same verdicts, each PD_DEFER_DEPTH packets
 * later.
 *
 * One queue per CPU (per thread in userspace): no lock, no atomic. Only
 * its owner fills and takes its slots; in the module a reader settles
 * every CPU's queue on that CPU (module/defer.c).
 */
#ifndef PD_DEFER_H
#define PD_DEFER_H

#include "pd_port.h"
#include "key.h"

/* Packets a step waits: a power of two */
#define PD_DEFER_DEPTH	1
static_assert(PD_DEFER_DEPTH && !(PD_DEFER_DEPTH & (PD_DEFER_DEPTH - 1)),
	      "a power of two");

/* One packet's step, kept: its hash, what the filter reads of it, a tag */
struct pd_defer_ent {
	u64 h;
	struct pd_pktinfo pi;
	s32 tag;	/* the caller's: the module's named device, or -1 */
};

struct pd_defer {
	u32 n;		/* entries kept: at most PD_DEFER_DEPTH */
	u32 head;	/* the oldest's slot */
	struct pd_defer_ent e[PD_DEFER_DEPTH];
};

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
	*full = q->n == PD_DEFER_DEPTH;
	return &q->e[(q->head + (*full ? 0 : q->n)) & (PD_DEFER_DEPTH - 1)];
}

/* The slot pd_defer_slot() gave is filled: kept. */
static inline void pd_defer_commit(struct pd_defer *q, bool full)
{
	if (full)
		q->head = (q->head + 1) & (PD_DEFER_DEPTH - 1);
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
	q->head = (q->head + 1) & (PD_DEFER_DEPTH - 1);
	q->n--;
	return true;
}

#endif /* PD_DEFER_H */
