/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The source analytics' own interfaces, between the files of this folder
 * (and their KUnit tests): the state a namespace keeps (src_state.c), its
 * readers (src_netlink.c, src_proc.c) and the event worker
 * (src_events.c). The rest of the module sees sources.h only.
 */
#ifndef PD_SRC_INTERNAL_H
#define PD_SRC_INTERNAL_H

#include <linux/refcount.h>

#include "../core/addrhash.h"
#include "../core/sbf.h"
#include "../core/srcwin.h"
#include "../core/ss.h"
#include "../pktdedup.h"

#define PD_SRC_DEFAULT_COUNTERS PD_SRCWIN_DEFAULT_COUNTERS	/* 0: top talkers off */

/* A new source, as remembered in a CPU's ring. */
struct pd_src_event {
	u32 seq;		/* 2 i + 2 once entry i is whole; odd: writing */
	u8 len;			/* 4 or 16 */
	u8 addr[16];
	u64 when;		/* jiffies64 */
};

/*
 * A CPU's state; its first cache line is what every packet reads (the
 * window's, core/srcwin.h).
 */
struct pd_src_cpu {
	struct pd_srcwin win;	/* sources, destinations; top talkers */
	struct pd_sbf newsrc;	/* if cfg.newsrc */
	struct pd_src_event *ring;
	u32 head;		/* entries pushed; this CPU's, store-release */
	u32 tail;		/* the event worker's cursor */
	void *mem;		/* of the window's sketches and summaries */
};

struct pd_srcs {
	/*
	 * The instance's reference while published, and one for each reader
	 * that walks the state without the namespace's lock (pd_srcs_get()):
	 * the last one frees it.
	 */
	refcount_t ref;
	/*
	 * Sub-windows start at multiples of their length since the epoch
	 * (to within a jiffy), on every host alike: the windows' time is
	 * jiffies + phase, and sub-window t began at real_base + t tick_j
	 * jiffies (CLOCK_REALTIME, ns), both fixed when the state was built.
	 * On the first line with cfg.newsrc, which every packet reads.
	 */
	u64 phase;
	struct pd_src_cfg cfg;
	struct pd_filter_plan plan;	/* of the new-source filters (SBF) */
	u64 tick_j;		/* jiffies per sub-window */
	u64 real_base;		/* with phase, above */
	struct pd_akey key;	/* of the address hash (core/addrhash.h) */
	/*
	 * The event worker's own filter, over what the CPUs report: a source
	 * new to two CPUs is one event. Only the worker touches it.
	 */
	struct pd_sbf ev_sbf;
	/* the CPUs with windows, what the state holds; CPU hotplug */
	struct pd_cpus cpus;
	/*
	 * Each CPU's windows: [nr_cpu_ids], NULL for a CPU without them
	 * (offline when the state was built, or refused when it came up:
	 * cpus.c); pd_src_of(). In the state's own allocation, so that a
	 * packet finds its CPU's pointer from s alone: the packet path asks
	 * for that line before the parse and reads it after
	 * (pd_srcs_find_slow()).
	 */
	struct pd_src_cpu *cpu[];
};

/* CPU cpu's windows, or NULL; any CPU may ask. */
static inline struct pd_src_cpu *pd_src_of(const struct pd_srcs *s, int cpu)
{
	/* pairs with pd_srcs_cpu_up(): the whole state before its pointer */
	return smp_load_acquire(&s->cpu[cpu]);
}

/* src_state.c */
extern bool pd_sources_on;
void pd_srcs_defaults(struct pd_src_cfg *c);
struct pd_srcs *pd_srcs_build(const struct pd_src_cfg *cfg, u32 ncpus,
			      struct netlink_ext_ack *extack);
void pd_srcs_free(struct pd_srcs *s);
struct pd_srcs *pd_srcs_get(struct pd_net *pn);
void pd_srcs_put(struct pd_srcs *s);
void pd_srcs_teardown(struct pd_net *pn);
u64 pd_srcs_mem(const struct pd_srcs *s);
u64 pd_srcs_tick(const struct pd_srcs *s);
u64 pd_srcs_tick_start(const struct pd_srcs *s, u64 tick);
u64 pd_srcs_hash(const struct pd_srcs *s, const u8 *addr, u8 len);
u32 pd_srcs_span(const struct pd_srcs *s, u32 ms);
int pd_srcs_distinct(struct pd_srcs *s, u32 last, u64 *src, u64 *dst);
void pd_srcs_merge(struct pd_srcs *s, u64 now, u32 last, struct pd_hll *u);
struct pd_ss_agg *pd_srcs_top(struct pd_srcs *s, u32 last, u32 keep);
int pd_srcs_candidates(struct pd_srcs *s, u32 last,
		       struct pd_src_event **out);
u32 pd_srcs_ring_head(const struct pd_srcs *s, int cpu);
bool pd_srcs_ring_read(const struct pd_srcs *s, int cpu, u32 i,
		       struct pd_src_event *out);
/* Called for each source new to the namespace by pd_srcs_drain(). */
typedef void (*pd_src_emit_t)(struct pd_net *pn, const struct pd_src_event *ev,
			      int cpu, void *arg);
void pd_srcs_drain(struct pd_net *pn, struct pd_srcs *s, pd_src_emit_t emit,
		   void *arg);
u64 pd_ev_dropped(struct pd_net *pn);

/* src_events.c */
void pd_events_init(struct pd_net *pn);
void pd_events_start(struct pd_net *pn);

#endif /* PD_SRC_INTERNAL_H */
