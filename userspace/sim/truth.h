/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exact ground truth for the simulator: for every element, was it seen
 * before in the whole stream (the papers' definition), and was it seen
 * among the last W elements (a sliding window)? One open-addressing hash
 * map from element id to the position it was last seen at.
 */
#ifndef PD_SIM_TRUTH_H
#define PD_SIM_TRUTH_H

#include <stdbool.h>
#include <stdint.h>

struct truth {
	uint64_t *ids;
	uint64_t *last;		/* 1 + position last seen at; 0: empty slot */
	uint64_t cap;		/* power of two */
	uint64_t used;
	uint64_t pos;		/* elements seen so far */
};

struct truth_verdict {
	bool seen;		/* anywhere before */
	bool in_window;		/* within the last `window` elements */
	uint64_t gap;		/* elements since the previous copy (if seen) */
};

int truth_init(struct truth *t, uint64_t expected);
void truth_free(struct truth *t);
/* Record element id; window 0 means "no window" (in_window = seen). */
int truth_add(struct truth *t, uint64_t id, uint64_t window,
	      struct truth_verdict *v);

#endif /* PD_SIM_TRUTH_H */
