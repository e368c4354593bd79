/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pktdedup generic netlink protocol, version 1.
 *
 * Family name "pktdedup" (PKTDEDUP_GENL_NAME), resolved through the generic
 * netlink controller. The family is per network namespace: a request acts
 * on the instance of the namespace of the socket that sends it.
 *
 * Permissions: SET_CONFIG, RESET and QUERY need CAP_NET_ADMIN in the user
 * namespace that owns the network namespace. GET_CONFIG and GET_STATS are
 * open to everyone, as /proc/net/pktdedup is. QUERY is privileged because
 * it tells whether a given host's or flow's traffic was seen.
 *
 * Validation is strict: each command has its own policy, unknown
 * attributes are refused, and an error carries an extack message that
 * names the offending attribute. A refused request changes nothing.
 *
 * Commands
 * --------
 * PKTDEDUP_CMD_GET_CONFIG  (do)
 *	request: no attributes.
 *	reply:   every configuration attribute, and the derived filter
 *	         parameters (PKTDEDUP_A_PLAN_*).
 *
 * PKTDEDUP_CMD_SET_CONFIG  (do, admin)
 *	request: any subset of the configuration attributes; the others keep
 *	         their values. The whole new configuration is validated and
 *	         new filters are built before anything changes; then the new
 *	         filters (and hook, if it changed) replace the old ones at
 *	         once under RCU. The filters start empty; counters continue.
 *	reply:   as GET_CONFIG, for the configuration now in force.
 *
 * PKTDEDUP_CMD_RESET  (do, admin)
 *	request: no attributes.
 *	Empties the filters, draws new hash seeds and zeroes the counters.
 *
 * PKTDEDUP_CMD_GET_STATS  (do or dump)
 *	do:   the totals over all CPUs (PKTDEDUP_A_STATS_CPU absent).
 *	dump: one message per possible CPU, with PKTDEDUP_A_STATS_CPU.
 *	Counters: packets seen, duplicates, duplicates marked, duplicates
 *	dropped, packets not parsed (passed untouched); and the measured
 *	fraction of zero cells of the CPU's filter (the mean, for totals).
 *
 * PKTDEDUP_CMD_QUERY  (do, admin)
 *	request: a key in the form of the configured key mode:
 *	         src: FAMILY + SRC;  dst: FAMILY + DST;  pair: FAMILY + SRC + DST;
 *	         flow: FAMILY + SRC + DST + PROTO [+ SPORT + DPORT];
 *	         packet: PACKET (the L3 packet's bytes, from the IP header on).
 *	reply:   PKTDEDUP_A_QUERY_PRESENT (whether any filter holds the key
 *	         now) and PKTDEDUP_A_QUERY_CPUS (how many filters do).
 *	Nothing is inserted: the filters are unchanged.
 *
 * PKTDEDUP_CMD_GET_DISTINCT  (do)
 *	request: optionally PKTDEDUP_A_DISTINCT_LAST_MS, the span to count over
 *	         (default: the whole window); it may not exceed the window.
 *	reply:   the window (WINDOW_MS, SUBWINDOWS), the span actually
 *	         covered (LAST_MS, whole sub-windows, the newest partly
 *	         elapsed) and the distinct source and destination addresses
 *	         seen in it (SRC, DST): HyperLogLog estimates of the union
 *	         over all CPUs, relative standard error 0.81%.
 *
 * PKTDEDUP_CMD_GET_SOURCES  (do)
 *	request: no attributes.
 *	reply:   the source-window settings (as SET_SOURCES takes them), the
 *	         memory they use (SRC_MEM_TOTAL, all CPUs), the new-source
 *	         filter's parameters when it is on (PLAN_MAX, PLAN_K, PLAN_P,
 *	         PLAN_CELLS, PLAN_FP_BOUND, PLAN_FN at PLAN_GAP), and the
 *	         event counters
 *	         (SRC_NEW_SEEN: reports of the per-CPU filters; EV_REPEAT:
 *	         reports dropped as already reported from another CPU;
 *	         EV_SENT, EV_OVERRUN, EV_RATELIMITED, EV_FAILED).
 *
 * PKTDEDUP_CMD_SET_SOURCES  (do, admin)
 *	request: any subset of DISTINCT_WINDOW_MS (1000..3600000),
 *	         DISTINCT_SUBWINDOWS (1..64), SRC_COUNTERS (8..4096), SRC_NEW,
 *	         SRC_NEW_MEM, SRC_NEW_GAP (the new-source filter's planner
 *	         minimises the FN rate at this gap: how many packets apart a
 *	         source's packets may be and still not be new again),
 *	         SRC_EVENT_RATE (1..10^6 per second), SRC_RING (2^n,
 *	         16..65536). The new state is built whole, then replaces
 *	         the old one: distinct counts, top talkers and new-source
 *	         memory start empty.
 *	reply:   as GET_SOURCES.
 *
 * PKTDEDUP_CMD_GET_TOP  (do, admin)
 *	request: optionally TOP_N (1..1000, default 10) and DISTINCT_LAST_MS.
 *	reply:   LAST_MS, TOTAL (packets counted in the span, N), TOP_ERROR
 *	         (no unlisted source sent more; at most N / SRC_COUNTERS),
 *	         then up to TOP_N nested ENTRY attributes, heaviest first:
 *	         ADDR_FAMILY, ADDR, COUNT_HI and COUNT_LO (the source sent
 *	         between COUNT_LO and COUNT_HI packets). Space-Saving
 *	         summaries of every CPU and sub-window, merged.
 *	Privileged: it names hosts.
 *
 * PKTDEDUP_CMD_GET_RARE  (do, admin; needs SRC_NEW on)
 *	request: optionally RARE_SUPPORT (s, ppb, default 100000 = 0.0001),
 *	         DISTINCT_LAST_MS, TOP_N (most entries to list, 1..1000,
 *	         default 100).
 *	reply:   LAST_MS, TOTAL (N), RARE_SUPPORT_COUNT (floor(s N)),
 *	         TOP_ERROR (e: the merged summaries' error bound),
 *	         RARE_CANDIDATES (sources examined), RARE_FOUND (how many are
 *	         rare; more than the entries if TOP_N cut the list), entries
 *	         as for GET_TOP. BFSS's rule: a source is listed unless its
 *	         lower bound exceeds floor(s N), so every examined source
 *	         that sent at most floor(s N) packets is listed (no false
 *	         negatives), and none that sent more than floor(s N) + e.
 *	         The sources examined are those the new-source filters
 *	         reported within the span and the per-CPU rings (SRC_RING
 *	         entries each) still hold.
 *
 * Multicast group "events" (PKTDEDUP_MCGRP_EVENTS; joining it needs
 * CAP_NET_ADMIN in the namespace's owning user namespace)
 *	PKTDEDUP_CMD_NEW_SOURCE: a source address the new-source filters had
 *	not seen recently: new to the filter of the CPU that saw it (EV_CPU)
 *	and to a second filter over all CPUs' reports, so a source arriving
 *	on several CPUs is one event (ADDR_FAMILY, ADDR, EV_TIME_MS:
 *	wall-clock milliseconds since the epoch; EV_DROPPED: events not
 *	sent so far). Sent only while SRC_NEW is on, at most SRC_EVENT_RATE
 *	per second, from per-CPU rings drained every 100 ms: an event is
 *	dropped (and counted) when the ring overflows, the rate is
 *	exceeded, or it cannot be sent; never queued without bound.
 *
 * Numbers: probabilities are in parts per 10^9 (ppb); memory in bytes.
 */
#ifndef _UAPI_LINUX_PKTDEDUP_H
#define _UAPI_LINUX_PKTDEDUP_H

#define PKTDEDUP_GENL_NAME	"pktdedup"
#define PKTDEDUP_GENL_VERSION	1
#define PKTDEDUP_MCGRP_EVENTS	"events"

enum pktdedup_cmd {
	PKTDEDUP_CMD_UNSPEC,
	PKTDEDUP_CMD_GET_CONFIG,
	PKTDEDUP_CMD_SET_CONFIG,
	PKTDEDUP_CMD_RESET,
	PKTDEDUP_CMD_GET_STATS,
	PKTDEDUP_CMD_QUERY,
	PKTDEDUP_CMD_GET_DISTINCT,
	PKTDEDUP_CMD_GET_SOURCES,
	PKTDEDUP_CMD_SET_SOURCES,
	PKTDEDUP_CMD_GET_TOP,
	PKTDEDUP_CMD_GET_RARE,
	PKTDEDUP_CMD_NEW_SOURCE,	/* notification only */

	__PKTDEDUP_CMD_MAX,
	PKTDEDUP_CMD_MAX = __PKTDEDUP_CMD_MAX - 1
};

/* PKTDEDUP_A_KEY */
enum pktdedup_key {
	PKTDEDUP_KEY_PACKET,	/* invariant packet content */
	PKTDEDUP_KEY_SRC,	/* source address */
	PKTDEDUP_KEY_DST,	/* destination address */
	PKTDEDUP_KEY_PAIR,	/* source and destination addresses */
	PKTDEDUP_KEY_FLOW,	/* protocol, addresses, ports */

	__PKTDEDUP_KEY_MAX,
	PKTDEDUP_KEY_MAX = __PKTDEDUP_KEY_MAX - 1
};

/* PKTDEDUP_A_KEY_FLAGS */
#define PKTDEDUP_KEY_F_IGNORE_TOS	0x1	/* packet key: skip TOS/TC */
#define PKTDEDUP_KEY_F_ALL		0x1

/* PKTDEDUP_A_ACTION: what happens to duplicates; first copies never change */
enum pktdedup_action {
	PKTDEDUP_ACTION_COUNT,	/* count only */
	PKTDEDUP_ACTION_MARK,	/* skb->mark = (mark & ~MASK) ^ VALUE */
	PKTDEDUP_ACTION_DROP,	/* drop */

	__PKTDEDUP_ACTION_MAX,
	PKTDEDUP_ACTION_MAX = __PKTDEDUP_ACTION_MAX - 1
};

/* PKTDEDUP_A_SCOPE */
enum pktdedup_scope {
	PKTDEDUP_SCOPE_PERCPU,	/* a filter per CPU, no shared state */
	PKTDEDUP_SCOPE_SHARED,	/* one filter for all CPUs, under a lock */

	__PKTDEDUP_SCOPE_MAX,
	PKTDEDUP_SCOPE_MAX = __PKTDEDUP_SCOPE_MAX - 1
};

/* PKTDEDUP_A_HOOK: netfilter hook point, IPv4 and IPv6 alike */
enum pktdedup_hook {
	PKTDEDUP_HOOK_PREROUTING,
	PKTDEDUP_HOOK_INPUT,
	PKTDEDUP_HOOK_FORWARD,
	PKTDEDUP_HOOK_OUTPUT,
	PKTDEDUP_HOOK_POSTROUTING,

	__PKTDEDUP_HOOK_MAX,
	PKTDEDUP_HOOK_MAX = __PKTDEDUP_HOOK_MAX - 1
};

/* Automatic choice, for PKTDEDUP_A_CELL_MAX, _K (0) and _P (PKTDEDUP_P_AUTO) */
#define PKTDEDUP_AUTO		0
#define PKTDEDUP_P_AUTO		0xffffffffu

enum pktdedup_attr {
	PKTDEDUP_A_UNSPEC,
	PKTDEDUP_A_PAD,

	/* configuration (GET_CONFIG reply, SET_CONFIG request) */
	PKTDEDUP_A_KEY,			/* u8, enum pktdedup_key */
	PKTDEDUP_A_KEY_FLAGS,		/* u32, PKTDEDUP_KEY_F_* */
	PKTDEDUP_A_PAYLOAD,		/* u16, packet key: payload bytes, 0..1500 */
	PKTDEDUP_A_ACTION,		/* u8, enum pktdedup_action */
	PKTDEDUP_A_MARK_VALUE,		/* u32 */
	PKTDEDUP_A_MARK_MASK,		/* u32, must cover MARK_VALUE */
	PKTDEDUP_A_MEM,			/* u64, bytes of cells per filter */
	PKTDEDUP_A_FPS,			/* u32, target FP rate, ppb, 1..999999999 */
	PKTDEDUP_A_CELL_MAX,		/* u32, cell maximum 2^j - 1, or AUTO */
	PKTDEDUP_A_K,			/* u32, probes 1..16, or AUTO */
	PKTDEDUP_A_P,			/* u32, decrements, or PKTDEDUP_P_AUTO */
	PKTDEDUP_A_GAP,			/* u64, typical gap (packets), 0: unknown */
	PKTDEDUP_A_SCOPE,		/* u8, enum pktdedup_scope */
	PKTDEDUP_A_HOOK,		/* u8, enum pktdedup_hook */
	PKTDEDUP_A_PRIORITY,		/* s32, netfilter hook priority */

	/* derived filter parameters (GET_CONFIG / SET_CONFIG replies) */
	PKTDEDUP_A_PLAN_MAX,		/* u32 */
	PKTDEDUP_A_PLAN_BITS,		/* u32, bits per cell */
	PKTDEDUP_A_PLAN_K,		/* u32 */
	PKTDEDUP_A_PLAN_P,		/* u32 */
	PKTDEDUP_A_PLAN_CELLS,		/* u64, cells per filter */
	PKTDEDUP_A_PLAN_FILTERS,	/* u32, number of filters (CPUs or 1) */
	PKTDEDUP_A_PLAN_MEM_TOTAL,	/* u64, bytes of cells, all filters */
	PKTDEDUP_A_PLAN_FP_BOUND,	/* u32, ppb, Eq. 8 */
	PKTDEDUP_A_PLAN_STABLE_ZERO,	/* u32, ppb, Theorem 3 */
	PKTDEDUP_A_PLAN_FN,		/* u32, ppb, Eq. 16 at PLAN_GAP */
	PKTDEDUP_A_PLAN_GAP,		/* u64, gap PLAN_FN is given for */

	/* statistics (GET_STATS replies) */
	PKTDEDUP_A_STATS_CPU,		/* u32, absent in the totals */
	PKTDEDUP_A_STATS_PACKETS,	/* u64 */
	PKTDEDUP_A_STATS_DUPLICATES,	/* u64 */
	PKTDEDUP_A_STATS_MARKED,	/* u64 */
	PKTDEDUP_A_STATS_DROPPED,	/* u64 */
	PKTDEDUP_A_STATS_UNPARSED,	/* u64 */
	PKTDEDUP_A_STATS_ZERO_CELLS,	/* u32, ppb of the cells */

	/* QUERY */
	PKTDEDUP_A_QUERY_FAMILY,	/* u8, 4 or 6 */
	PKTDEDUP_A_QUERY_SRC,		/* binary, 4 or 16 bytes */
	PKTDEDUP_A_QUERY_DST,		/* binary, 4 or 16 bytes */
	PKTDEDUP_A_QUERY_PROTO,		/* u8 */
	PKTDEDUP_A_QUERY_SPORT,		/* u16, host order (ICMP echo: id) */
	PKTDEDUP_A_QUERY_DPORT,		/* u16, host order */
	PKTDEDUP_A_QUERY_PACKET,	/* binary, 20..2048 bytes */
	PKTDEDUP_A_QUERY_PRESENT,	/* u8, reply: 1 if any filter holds it */
	PKTDEDUP_A_QUERY_CPUS,		/* u32, reply: how many filters do */

	/* GET_DISTINCT */
	PKTDEDUP_A_DISTINCT_LAST_MS,	/* u32, span (request and reply) */
	PKTDEDUP_A_DISTINCT_WINDOW_MS,	/* u32, the window */
	PKTDEDUP_A_DISTINCT_SUBWINDOWS,	/* u32 */
	PKTDEDUP_A_DISTINCT_SRC,	/* u64, distinct source addresses */
	PKTDEDUP_A_DISTINCT_DST,	/* u64, distinct destination addresses */

	/* GET_SOURCES / SET_SOURCES */
	PKTDEDUP_A_SRC_COUNTERS,	/* u32, top-talker counters per sub-window per CPU */
	PKTDEDUP_A_SRC_NEW,		/* u8, 1: new-source filter on */
	PKTDEDUP_A_SRC_NEW_MEM,		/* u64, bytes of cells per CPU */
	PKTDEDUP_A_SRC_EVENT_RATE,	/* u32, events per second at most */
	PKTDEDUP_A_SRC_RING,		/* u32, new sources remembered per CPU */
	PKTDEDUP_A_SRC_MEM_TOTAL,	/* u64, reply: bytes, all CPUs */
	PKTDEDUP_A_SRC_NEW_SEEN,	/* u64, reply: new sources reported */
	PKTDEDUP_A_EV_SENT,		/* u64 */
	PKTDEDUP_A_EV_OVERRUN,		/* u64, overwritten in a ring unsent */
	PKTDEDUP_A_EV_RATELIMITED,	/* u64 */
	PKTDEDUP_A_EV_FAILED,		/* u64, no memory or no socket room */
	PKTDEDUP_A_EV_REPEAT,		/* u64, new to a CPU, not to the namespace */

	/* GET_TOP / GET_RARE */
	PKTDEDUP_A_TOP_N,		/* u32 */
	PKTDEDUP_A_TOTAL,		/* u64, packets counted in the span */
	PKTDEDUP_A_TOP_ERROR,		/* u64 */
	PKTDEDUP_A_ENTRY,		/* nested, one per address */
	PKTDEDUP_A_ADDR_FAMILY,		/* u8, 4 or 6 */
	PKTDEDUP_A_ADDR,		/* binary, 4 or 16 bytes */
	PKTDEDUP_A_COUNT_HI,		/* u64 */
	PKTDEDUP_A_COUNT_LO,		/* u64 */
	PKTDEDUP_A_RARE_SUPPORT,	/* u32, ppb */
	PKTDEDUP_A_RARE_SUPPORT_COUNT,	/* u64 */
	PKTDEDUP_A_RARE_CANDIDATES,	/* u32 */
	PKTDEDUP_A_RARE_FOUND,		/* u32 */

	/* NEW_SOURCE events (with ADDR_FAMILY, ADDR) */
	PKTDEDUP_A_EV_CPU,		/* u32 */
	PKTDEDUP_A_EV_TIME_MS,		/* u64, ms since the epoch */
	PKTDEDUP_A_EV_DROPPED,		/* u64, events not sent so far */

	PKTDEDUP_A_SRC_NEW_GAP,		/* u64, planner's gap (packets), 0: auto */

	__PKTDEDUP_A_MAX,
	PKTDEDUP_A_MAX = __PKTDEDUP_A_MAX - 1
};

#endif /* _UAPI_LINUX_PKTDEDUP_H */
