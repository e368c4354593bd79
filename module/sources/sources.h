/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pktdedup's source analytics, as the rest of the module sees them: what
 * is learnt of source and destination addresses in a recent time window
 * (distinct counts, top talkers, new-source events, rare sources), per
 * network namespace. Their state, readers and commands live in this
 * folder (src_internal.h); the packet path reaches them through three
 * calls (pd_srcs_ask(), pd_srcs_find(), pd_srcs_add()), which cost a
 * patched-out branch while no namespace keeps source windows.
 */
#ifndef PD_SOURCES_H
#define PD_SOURCES_H

#include <linux/atomic.h>
#include <linux/jump_label_ratelimit.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/workqueue.h>

#include "../core/addrhash.h"

struct pd_filter_plan;
struct pd_net;
struct pd_nl_req;
struct pd_pkt;
struct pd_src_cpu;
struct pd_srcs;
struct proc_dir_entry;

#define PD_SRC_DEFAULT_NEW_MEM (64 * 1024)
#define PD_SRC_DEFAULT_NEW_GAP 1000	/* packets a source is remembered for */
#define PD_SRC_DEFAULT_EVENT_RATE 1000
#define PD_SRC_DEFAULT_RING 1024

struct pd_src_cfg {
	u32 window_ms;
	u32 nsub;		/* sub-windows */
	u32 counters;		/* top-talker counters per sub-window, per CPU; 0: off */
	u32 newsrc;		/* 1: new-source filter, events, rare sources */
	u64 newsrc_mem;		/* bytes of cells of each CPU's filter */
	u64 newsrc_gap;		/* its planner's gap (packets); 0: auto */
	u32 event_rate;		/* events sent per second, at most */
	u32 ring;		/* new sources remembered per CPU, 2^n */
	u8 enabled;		/* 0: no source windows at all */
	/*
	 * 1: the addresses are hashed with key (SET_SOURCES key: a fleet's,
	 * whose hosts' sketches merge); 0: each state draws its own
	 */
	u8 key_set;
	struct pd_akey key;
};

/* The new-source event worker's state (src_events.c). */
struct pd_events {
	struct delayed_work work;
	u64 credit;			/* token bucket, under pn->lock */
	u64 refill;			/* jiffies of the last refill */
};

/* A namespace's source analytics (pd_net.src). */
struct pd_src_net {
	struct pd_src_cfg cfg;		/* in force; under pn->lock */
	/*
	 * Taken by the readers that walk the source windows (GET_TOP,
	 * GET_RARE, GET_DISTINCT, /proc's distinct), one at a time, so that
	 * what they allocate stays bounded; nothing else waits for it.
	 */
	struct mutex read_lock;
	struct pd_events events;
	atomic64_t ev_sent;
	atomic64_t ev_repeat;		/* new to a CPU, not to the namespace */
	atomic64_t ev_overrun;		/* overwritten before sent */
	atomic64_t ev_ratelimited;
	atomic64_t ev_failed;		/* no memory, no room in a socket */
	/*
	 * Enabled in an active namespace but none built: what refused them
	 * (enum pktdedup_refusal) and their bytes; under pn->lock.
	 */
	u8 off_why;
	u64 off_need;
};

/*
 * On while any namespace keeps source windows (src_state.c); turned off a
 * second after the last one stops, so that toggling them costs no code
 * patching per toggle.
 */
extern struct static_key_false_deferred pd_srcs_used;

/* This CPU's windows of a namespace, found for one packet. */
struct pd_src_ref {
	struct pd_srcs *s;
	struct pd_src_cpu *c;	/* NULL: none, nothing counted */
};

void pd_srcs_ask_slow(const struct pd_net *pn);
void pd_srcs_find_slow(const struct pd_net *pn, struct pd_src_ref *r);
void pd_srcs_add_slow(const struct pd_src_ref *r, const struct pd_pkt *pkt);

/*
 * The packet path's calls, in this order, BHs off from the first to the
 * last (src_state.c): before the packet is parsed, ask for the lines that
 * lead to this CPU's windows; once it is parsed, find them; then count
 * its addresses (as often as its judgement needs, with the same r).
 */
static __always_inline void pd_srcs_ask(const struct pd_net *pn)
{
	if (static_branch_unlikely(&pd_srcs_used.key))
		pd_srcs_ask_slow(pn);
}

static __always_inline void pd_srcs_find(const struct pd_net *pn,
					 struct pd_src_ref *r)
{
	r->c = NULL;
	if (static_branch_unlikely(&pd_srcs_used.key))
		pd_srcs_find_slow(pn, r);
}

static __always_inline void pd_srcs_add(const struct pd_src_ref *r,
					const struct pd_pkt *pkt)
{
	if (r->c)
		pd_srcs_add_slow(r, pkt);
}

/* src_state.c: the module parameters, a namespace's state */
int pd_srcs_params_check(void);
void pd_srcs_module_exit(void);
void pd_srcs_net_init(struct pd_net *pn);
void pd_srcs_net_teardown(struct pd_net *pn);
int pd_srcs_check(const struct pd_src_cfg *c, struct pd_filter_plan *plan,
		  struct netlink_ext_ack *extack);
u64 pd_srcs_bytes(const struct pd_src_cfg *c,
		  const struct pd_filter_plan *plan);
u64 pd_srcs_bytes_n(const struct pd_src_cfg *c,
		    const struct pd_filter_plan *plan, u32 ncpus);
int pd_srcs_apply(struct pd_net *pn, const struct pd_src_cfg *cfg,
		  struct netlink_ext_ack *extack);
void pd_srcs_withdraw(struct pd_net *pn);
u32 pd_srcs_cpus_without(struct pd_net *pn);
u64 pd_srcs_refused(struct pd_net *pn, u8 *why);

/* src_events.c */
void pd_events_stop(struct pd_net *pn);

/* src_netlink.c: SET_CONFIG's sources nest */
int pd_nl_sources_read(struct pd_nl_req *req, struct pd_src_cfg *c);

/* src_proc.c: /proc/net/pktdedup/distinct and sources */
int pd_srcs_proc_init(struct proc_dir_entry *dir);

#endif /* PD_SOURCES_H */
