/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Occupancy from a bounded read.
 *
 * A filter's occupancy (zero cells, set bits) is a statistic anyone may ask
 * for, of filters as large as a namespace's cap, on machines with hundreds
 * of possible CPUs. A reader therefore gives a byte budget: a family whose
 * state fits in it is read whole (the answer is exact); a larger one is
 * read in evenly spaced runs of one 64-byte line, as many as the budget
 * holds, and what the runs hold estimates the whole. The families' cells
 * are placed by hashing, so a line is as likely as any other to be where a
 * key went. Counting a line as one sample of the fraction (its cells are
 * not independent: a blocked SBF puts a key's probes and decrements in one
 * line), the estimate's standard error is at most 0.5 / sqrt(runs): at
 * most 0.4% at 16384 runs (1 MiB), 1.6% at 1024 runs (64 KiB). The mean of
 * n filters read this way has at most 1 / sqrt(n) times that error.
 *
 * A read costs at most budget + 63 bytes of the filter, whatever its size.
 */
#ifndef PD_OCC_H
#define PD_OCC_H

#include "pd_port.h"

#define PD_OCC_ALL (~(u64)0)		/* a budget that reads everything */
#define PD_OCC_LINE 64			/* bytes of one run */

/* The runs of one read: over n elements of esz bytes each. */
struct pd_occ_span {
	u64 n;
	u64 runs;
	u64 len;		/* elements per run (n when read whole) */
};

/* The runs of a read of at most max_bytes over n elements of esz bytes. */
static inline void pd_occ_span_init(struct pd_occ_span *s, u64 n, u32 esz,
				    u64 max_bytes)
{
	u64 per_line = PD_OCC_LINE / esz;

	s->n = n;
	if (!n || max_bytes / esz >= n) {
		s->runs = 1;
		s->len = n;
		return;
	}
	s->len = per_line ? per_line : 1;
	s->runs = max_bytes / PD_OCC_LINE;
	if (!s->runs)
		s->runs = 1;
	/* more runs than lines: read whole */
	if (s->runs * s->len >= n) {
		s->runs = 1;
		s->len = n;
	}
}

/* Whether the span reads every element. */
static inline bool pd_occ_whole(const struct pd_occ_span *s)
{
	return s->runs == 1 && s->len == s->n;
}

/*
 * Run r of the span: its first element in *first, its length returned.
 * Runs start on line boundaries (of elements of the span's size) spread
 * evenly over [0, n).
 */
static inline u64 pd_occ_run(const struct pd_occ_span *s, u64 r, u64 *first)
{
	u64 start, lines = s->n / s->len;

	if (pd_occ_whole(s)) {
		*first = 0;
		return s->n;
	}
	/*
	 * line r * lines / runs: r < runs < lines, and a filter of at most
	 * 2^32 bytes has at most 2^26 lines, so the product fits
	 */
	start = pd_div64(r * lines, s->runs) * s->len;
	*first = start;
	return PD_MIN(s->len, s->n - start);
}

#endif /* PD_OCC_H */
