/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bound of one element's work, which every filter family gives in its
 * plan (filter.h's pd_filter_plan.step_lines) and pd_filter_plan()
 * enforces.
 *
 * The work of one element is bounded whatever the settings: the module
 * steps a filter with bottom halves off, once per packet, so no setting
 * may make a packet's step grow with the filter (a P of 10^8, a window's
 * spare emptied in one packet). The unit is a line: a 64-byte block of
 * the filter's memory (plan->bytes), counted from its start, a cache line
 * where that memory is line-aligned (the module's filters of a page or
 * more, userspace's always). A step's cost is the lines it reads or
 * writes, not its bytes: a probe of one bit costs a line as a run of 64
 * bytes does, and a run costs its lines whatever it does to them.
 *
 * Each family's plan gives step_lines, an upper bound of the lines one
 * step reads or writes, for any state and any element (the worst case,
 * not the mean), and step_attr, the setting that drives it, with a hint
 * of what to change (step_hint). pd_filter_plan() refuses a plan whose
 * bound exceeds PD_STEP_MAX_LINES (-EFBIG), before anything is built;
 * pd_filter_refusal() words the refusal with its numbers (dedupctl plan,
 * dedup-sim); step_msg is the same in one static string without them
 * (the module's extack message, which must outlive the request, so is
 * never formatted into memory another request may write). The bound covers the filter's
 * memory only: the struct pd_filter itself (PD_FILTER_PRIV_BYTES), the
 * key and its hash are the same for every setting.
 *
 * 256 lines (16 KiB), the least power of two that admits every default,
 * every setting the tree's documents, tests, benchmarks and papers'
 * tables use but those that test the bound itself (at most 51 lines: a
 * jumping window of 1 s over 8 subwindows at 1 Mpps), and every family's
 * own choices at its default target: a jumping window over 63
 * subwindows at fps 0.001 needs up to 168 at a low rate (its spare
 * emptied over a few packets), RSBF with k 16 80, a sliding window 41,
 * the IBFs' planned P 37; the SBF's planner chooses no K or Max above
 * the bound while one below it exists (plan.c). What it refuses: an
 * SBF's P above about 120000 1-bit cells, a jumping window of 63
 * subwindows at fps 10^-9. A step of 256 lines, the worst allowed (a
 * decrement run of 16 KiB read and written), costs 0.4 to 5.3 us
 * natively, in cache or from memory, against the defaults' 40 to 410 ns
 * (Documentation/results/packet-path.md).
 */
#ifndef PD_STEP_H
#define PD_STEP_H

#include "pd_port.h"
#include "../uapi/pktdedup.h"

#define PD_STEP_LINE_BYTES	64
/* The spec's step-lines-max, which the plans' step-lines report against */
#define PD_STEP_MAX_LINES	PKTDEDUP_STEP_LINES_MAX

/*
 * Lines a run of n consecutive bits may touch: from any bit, wrapping at
 * most once at the end of a region that may itself start inside a line
 * (ceil(n / 512) lines, one more for a start inside a line, one for the
 * region's end and one for its start inside lines).
 */
static inline u64 pd_step_run_lines(u64 n)
{
	return n ? (n + 8 * PD_STEP_LINE_BYTES - 1) /
		   (8 * PD_STEP_LINE_BYTES) + 3 : 0;
}

/*
 * A step's refusal in one static string (plan->step_msg): PD_STEP_OVER,
 * the family's "in its P decrements: lower p, or leave it auto" (its
 * step_what, ": ", its step_hint), PD_STEP_ASK.
 */
#define PD_STEP_OVER "one packet would touch more than 256 lines (16384 bytes) of the filter "
#define PD_STEP_ASK " (dedupctl plan with these settings gives the numbers)"

#endif /* PD_STEP_H */
