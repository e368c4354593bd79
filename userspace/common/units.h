/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Values with units, for the simulator and dedupctl: times (2ms, 500us,
 * 1.5s, 10ns, 2min, 1h), windows (a time, or a packet count 100000p) and
 * rates (1M, 2.5k, 500000 packets per second). Decimals are allowed where the value they give is
 * whole (1.5us is 1500 ns; 1.5ns is refused).
 */
#ifndef PD_UNITS_H
#define PD_UNITS_H

#include <stdbool.h>
#include <stdint.h>

/* A time with a unit ns, us, ms, s, min or h (a bare 0 is 0), in ns. */
bool parse_time_ns(const char *s, uint64_t *ns);
/*
 * A window: a time (*ns set, *pkts 0) or a packet count with the suffix p
 * (*pkts set, *ns 0). Zero is parsed (the caller refuses it).
 */
bool parse_window(const char *s, uint64_t *ns, uint64_t *pkts);
/* A whole rate with an optional suffix k, M or G (powers of 1000). */
bool parse_rate(const char *s, uint64_t *out);

#endif /* PD_UNITS_H */
