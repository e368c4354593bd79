/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exact ground truth for the simulator: for every element, was it seen
 * before in the whole stream (the papers' definition), and was it seen
 * among the last W elements (a sliding window)? One open-addressing hash
 * map from element id to the position it was last seen at, and for a
 * timed truth (truth_init_timed) to the time too: a time window's
 * verdict is then the caller's, from dt (editcap -w: a duplicate iff seen
 * less than W before, every packet, duplicates included, counting as
 * seen).
 */
#ifndef PD_SIM_TRUTH_H
#define PD_SIM_TRUTH_H

#include <stdbool.h>
#include <stdint.h>

#include "dset.h"

#define TRUTH_MAX_WORDS 2

struct truth_arrival {
	uint64_t id[TRUTH_MAX_WORDS];
	uint64_t pos;
};

struct truth {
	uint64_t *ids;		/* words per slot */
	unsigned int words;	/* 64-bit words an id: 1 or 2 */
	uint64_t *last;		/* 1 + position last seen at; 0: empty slot */
	uint64_t *when;		/* timed: time last seen at; else NULL */
	uint64_t now;		/* timed: the latest time seen */
	uint64_t cap;		/* power of two */
	uint64_t used;
	uint64_t pos;		/* elements seen so far */
	/* with a horizon (truth_set_horizon) */
	uint64_t horizon_pkts, horizon_ns;
	struct dset *ever;	/* every key seen */
	struct truth_arrival *ring;	/* arrivals inside the horizon */
	uint64_t ring_head, ring_n, ring_cap;
};

struct truth_verdict {
	bool seen;		/* anywhere before */
	bool in_window;		/* within the last `window` elements */
	uint64_t gap;		/* elements since the previous copy (if seen) */
	uint64_t dt;		/* timed: time since the previous copy */
};

int truth_init(struct truth *t, uint64_t expected);
/* A truth that also records times (truth_add_at). */
int truth_init_timed(struct truth *t, uint64_t expected);
/*
 * Either, of ids `words` (1 or 2) 64-bit words long (truth_add_id): the
 * frame truth's 128-bit digests.
 */
int truth_init_words(struct truth *t, uint64_t expected, bool timed,
		     unsigned int words);
void truth_free(struct truth *t);
/*
 * Keep where keys were last seen only while it can matter: keys last seen
 * more than pkts elements (0: no limit) or, a timed truth, ns (0: no
 * limit) before are forgotten, and "seen before" comes from a compact set
 * of every key (dset.h): the memory of a long capture is the set's plus
 * what the horizon holds. A forgotten key seen again is reported seen,
 * with gap and dt UINT64_MAX (further than the horizon).
 */
int truth_set_horizon(struct truth *t, uint64_t pkts, uint64_t ns);
/* Its memory, bytes. */
uint64_t truth_bytes(const struct truth *t);
/* Record element id; window 0 means "no window" (in_window = seen). */
int truth_add(struct truth *t, uint64_t id, uint64_t window,
	      struct truth_verdict *v);
/*
 * Record element id arriving at time now (a time earlier than the latest
 * counts as the latest, as the filters count it); v->dt is the time since
 * id was last seen. A timed truth only.
 */
int truth_add_at(struct truth *t, uint64_t id, uint64_t now, uint64_t window,
		 struct truth_verdict *v);
/* truth_add_at() of an id of the truth's words. */
int truth_add_id(struct truth *t, const uint64_t *id, uint64_t now,
		 uint64_t window, struct truth_verdict *v);

#endif /* PD_SIM_TRUTH_H */
