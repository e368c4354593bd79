/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Packet rates from two samples of a packet counter, and a filter's
 * memory in packets turned into time at a rate (and back): the arithmetic
 * of the statistics' "memory" line, shared by the module and userspace.
 * No timer: a reader samples the counters when it reads them.
 */
#ifndef PD_RATE_H
#define PD_RATE_H

#include "fixed.h"

#define PD_NS_PER_SEC 1000000000ULL
/* A sample at least this old gives a new rate; a younger one the last. */
#define PD_RATE_MIN_NS PD_NS_PER_SEC

/*
 * Packets per second between two samples (packets, time in ns) of one
 * monotonic counter: unsigned differences, so a counter or clock that
 * wrapped between them still gives the packets and ns in between. 0 for
 * an empty interval; saturates at 2^64 - 1.
 */
static inline u64 pd_rate_pps(u64 pkts0, u64 t0_ns, u64 pkts1, u64 t1_ns)
{
	u64 dt = t1_ns - t0_ns;

	if (!dt)
		return 0;
	return pd_muldiv(pkts1 - pkts0, PD_NS_PER_SEC, dt);
}

/*
 * The ns that pkts packets take at pps packets/s: 0 when the rate is 0 or
 * unknown (no time can be given); 2^64 - 1 for an unbounded memory
 * (pkts 2^64 - 1) and when it does not fit.
 */
static inline u64 pd_rate_pkts_ns(u64 pkts, u64 pps)
{
	if (!pps)
		return 0;
	if (pkts == PD_U64_MAX)
		return PD_U64_MAX;
	return pd_muldiv(pkts, PD_NS_PER_SEC, pps);
}

/* The packets that arrive in ns at pps packets/s (rounded down). */
static inline u64 pd_rate_ns_pkts(u64 ns, u64 pps)
{
	if (ns == PD_U64_MAX && pps)
		return PD_U64_MAX;
	return pd_muldiv(ns, pps, PD_NS_PER_SEC);
}

/* a times b, 2^64 - 1 when it does not fit (an unbounded memory stays so) */
static inline u64 pd_mul_sat(u64 a, u64 b)
{
	u64 r;

	if (__builtin_mul_overflow(a, b, &r))
		return PD_U64_MAX;
	return r;
}

#endif /* PD_RATE_H */
