/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dedup-sim --sketches: the module's distinct-count sketches of a capture,
 * for a fleet's database (Documentation/user/fleet.md). The source and
 * destination addresses of every packet the module's source analytics
 * count, hashed as the module hashes them (core/addrhash.h) with the
 * fleet's key, into one HyperLogLog sketch of the sources and one of the
 * destinations per interval of the capture's time. Intervals start at
 * multiples of their length since the epoch, so one minute's rows of many
 * hosts and captures have one start. A packet whose time goes back counts
 * in the current interval, as in the module.
 *
 * Each interval that saw a packet is a row, as dedupctl writes the
 * module's (common/sketchrow.h: CSV that psql's \copy takes).
 */
#ifndef PD_SIM_SKETCHES_H
#define PD_SIM_SKETCHES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../module/core/addrhash.h"

struct sketch_out;

/* Rows to f (the caller's); NULL if out of memory. */
struct sketch_out *sketch_open(FILE *f, const char *host,
			       const struct pd_akey *key, uint64_t every_ns);
/* A packet at t_ns from src to dst (len bytes each, 4 or 16). */
int sketch_add(struct sketch_out *so, uint64_t t_ns, const uint8_t *src,
	       const uint8_t *dst, uint8_t len);
/* The last interval's row, flushed and freed: 0, or -1 (write error). */
int sketch_close(struct sketch_out *so);
/* Rows written so far. */
uint64_t sketch_rows(const struct sketch_out *so);
/* The key's fingerprint, as the rows give it. */
uint64_t sketch_fingerprint(const struct sketch_out *so);

#endif /* PD_SIM_SKETCHES_H */
