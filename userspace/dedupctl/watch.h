/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dedupctl stats -w: rates between two GET_STATS samples, and the lines
 * that show them. Pure functions (tests/native/prom_test.c checks them).
 */
#ifndef DEDUPCTL_WATCH_H
#define DEDUPCTL_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The totals of one GET_STATS, and when they were read (monotonic ns). */
struct watch_sample {
	uint64_t packets, duplicates, marked, dropped;
	uint64_t ns;
};

/* Per second over an interval; share: duplicates per packet, in %. */
struct watch_rates {
	double packets, duplicates, share_pct, dropped, marked;
	double seconds;			/* the interval */
	bool reset;			/* the counters were reset within it */
};

/*
 * The rates from prev to cur. A counter lower than before means the
 * counters were reset in between (dedupctl reset): then what cur holds
 * was counted since the reset, within the interval, and is the interval's
 * count (as Prometheus' rate() reads a counter reset): never negative.
 */
void watch_rates(const struct watch_sample *prev,
		 const struct watch_sample *cur, struct watch_rates *r);
/* The header line, and one interval's line (no newline); snprintf's value. */
int watch_header(char *buf, size_t len);
int watch_line(char *buf, size_t len, const struct watch_rates *r);

#endif /* DEDUPCTL_WATCH_H */
