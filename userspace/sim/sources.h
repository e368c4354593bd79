/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's source analytics replayed on a stream, against exact
 * answers: element ids stand for source addresses, element i arrives on
 * "CPU" i mod cpus, and sub-windows are counted in elements (the module
 * counts them in time). Per CPU, as in module/sources/src_state.c: a
 * jumping window of HyperLogLog sketches and Space-Saving summaries
 * (core/srcwin.c), and a new-source Stable Bloom Filter feeding a ring of
 * `ring` entries.
 * Addresses are hashed as the module hashes them (core/addrhash.h).
 */
#ifndef PD_SIM_SOURCES_H
#define PD_SIM_SOURCES_H

#include <stdbool.h>
#include <stdint.h>

#define SRC_MAX_SUB 64

struct src_cfg {
	unsigned int cpus;
	unsigned int nsub;		/* sub-windows */
	uint64_t sub_elems;		/* elements per sub-window */
	unsigned int counters;		/* Space-Saving counters per sub-window; 0: off */
	unsigned int ring;		/* new sources remembered per CPU */
	uint64_t new_mem;		/* new-source filter bytes per CPU */
	uint64_t new_gap;		/* its planner's gap; 0: auto */
	uint32_t phi_ppb;		/* heavy hitters: f > phi N */
	uint32_t support_ppb;		/* rare: f <= floor(s N) */
	uint64_t seed;
};

struct src_pr {
	uint64_t truth;			/* exact answer's size */
	uint64_t reported;
	uint64_t correct;		/* in both */
};

struct src_result {
	unsigned int nsub;
	uint64_t exact[SRC_MAX_SUB];	/* distinct in the last k + 1 sub-windows */
	uint64_t estimate[SRC_MAX_SUB];
	uint64_t window_elems;		/* N over the whole window */
	bool top;			/* top talkers on (counters): the rest */
	uint64_t ss_error;		/* merged Space-Saving error bound */
	struct src_pr hh;
	struct src_pr rare;
	struct src_pr rare_examined;	/* the same among the examined sources */
	uint64_t candidates;		/* rare: sources the rings held */
	uint64_t support_count;		/* floor(s N) */
};

struct src_sim;

/* NULL with a message in err if cfg cannot be built. */
struct src_sim *src_sim_new(const struct src_cfg *cfg, char *err,
			    unsigned int errlen);
void src_sim_add(struct src_sim *s, uint64_t id);
/* The measurements over the window that ends with the last element. */
int src_sim_finish(struct src_sim *s, struct src_result *r);
void src_sim_free(struct src_sim *s);

#endif /* PD_SIM_SOURCES_H */
