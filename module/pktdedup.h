/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pktdedup: internal interfaces between the module's files (and its KUnit
 * tests). One instance per network namespace (struct pd_net); its filters
 * and configuration (struct pd_filters) are replaced as a whole under RCU.
 */
#ifndef PKTDEDUP_H
#define PKTDEDUP_H

#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/netfilter.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/u64_stats_sync.h>

#include "core/config.h"
#include "core/key.h"
#include "core/plan.h"
#include "core/sbf.h"
#include "core/window.h"

/*
 * Bytes of a packet the key extraction may look at, from the IP header on:
 * headers (IPv4 with options and TCP with options take 120; IPv6 leaves
 * the rest of this room for extension headers) plus the payload bytes of
 * the packet key. Linear and paged packets yield the same key.
 */
#define PD_HDR_ROOM 256
#define PD_SCRATCH (PD_HDR_ROOM + PD_KEY_MAX_PAYLOAD)

/* Per-CPU counters; written only by their CPU, with BHs off. */
struct pd_cpu_stats {
	u64_stats_t packets;
	u64_stats_t duplicates;
	u64_stats_t marked;
	u64_stats_t dropped;
	u64_stats_t unparsed;
	struct u64_stats_sync syncp;
};

/* A plain snapshot of the counters. */
struct pd_counts {
	u64 packets;
	u64 duplicates;
	u64 marked;
	u64 dropped;
	u64 unparsed;
};

/* The filters of one configuration; immutable but for the cells. */
struct pd_filters {
	struct pd_config cfg;
	struct pd_plan plan;
	struct pd_key_opts kopts;
	u32 copy_len;			/* bytes extraction may read */
	u32 hook_gen;			/* the hooks that may use these */
	struct pd_sbf __percpu *pcpu;	/* scope percpu */
	struct pd_sbf *shared;		/* scope shared */
	spinlock_t lock;		/* guards *shared */
	struct rcu_head rcu;
};

/* A registered pair of hooks (IPv4, IPv6) at one hook point. */
struct pd_hooks {
	struct nf_hook_ops ops[2];
	struct pd_net *pn;
	u32 gen;
};

/* Distinct addresses in the recent window, per CPU (distinct.c). */
struct pd_distinct {
	struct pd_win src;
	struct pd_win dst;
};

struct pd_net {
	struct net *net;
	struct mutex lock;		/* serialises configuration changes */
	struct pd_filters __rcu *filters;
	struct pd_config cfg;		/* in force; under lock */
	struct pd_hooks *hooks;		/* under lock */
	u32 hook_gen;			/* under lock */
	struct pd_cpu_stats __percpu *stats;
	struct pd_counts __percpu *base;	/* counts at the last reset */
	struct proc_dir_entry *proc;
	struct pd_distinct __percpu *dist;	/* NULL: no memory for it */
	u32 dist_nsub;
	u32 dist_window_s;
	u64 dist_tick_j;		/* jiffies per sub-window */
	u32 dist_seed[2];
};

/*
 * NL_SET_ERR_MSG() takes a literal; the core's messages and the memory cap
 * message are static strings as well, so they may be kept the same way.
 */
static inline void pd_set_err_msg(struct netlink_ext_ack *extack,
				  const char *msg)
{
	if (extack)
		extack->_msg = msg;
}

/* main.c */
struct pd_net *pd_pernet(const struct net *net);
extern unsigned long pd_max_netns_mem;
extern unsigned int pd_distinct_window_s, pd_distinct_subwindows;
extern const char *pd_mem_cap_msg;

/* filters.c */
struct pd_filters *pd_filters_build(const struct pd_config *cfg,
				    struct netlink_ext_ack *extack);
void pd_filters_free(struct pd_filters *fs);
u32 pd_filters_count(const struct pd_filters *fs);
struct pd_sbf *pd_filters_get(struct pd_filters *fs, int cpu);
u32 pd_filters_zero_ppb(struct pd_filters *fs, int cpu);
int pd_filters_query(struct pd_filters *fs, const struct pd_key *key);

/* distinct.c */
int pd_distinct_init(struct pd_net *pn, u32 window_s, u32 nsub);
void pd_distinct_free(struct pd_net *pn);
void pd_distinct_add(struct pd_net *pn, const struct pd_pkt *pkt);
int pd_distinct_count(struct pd_net *pn, u32 last, u64 *src, u64 *dst);

/* netns.c */
int pd_net_apply(struct pd_net *pn, const struct pd_config *cfg,
		 struct netlink_ext_ack *extack);
int pd_net_reset(struct pd_net *pn, struct netlink_ext_ack *extack);
void pd_net_counts(struct pd_net *pn, int cpu, struct pd_counts *c);
void pd_counts_add(struct pd_counts *sum, const struct pd_counts *c);
int pd_net_setup(struct pd_net *pn, struct net *net,
		 const struct pd_config *cfg);
void pd_net_detach(struct pd_net *pn);
void pd_net_teardown(struct pd_net *pn);

/* hook.c */
int pd_hook_init(void);
void pd_hook_exit(void);
struct pd_hooks *pd_hooks_register(struct pd_net *pn, u8 hook, s32 priority,
				   u32 gen);
void pd_hooks_detach(struct pd_hooks *hooks);
unsigned int pd_process(struct pd_net *pn, struct pd_filters *fs,
			struct sk_buff *skb);
enum pd_parse_result pd_skb_key(struct sk_buff *skb,
				const struct pd_filters *fs, u8 *scratch,
				struct pd_pkt *pkt, struct pd_key *key);

/* netlink.c */
int pd_netlink_init(void);
void pd_netlink_exit(void);

/* proc.c */
int pd_proc_init(struct pd_net *pn);
void pd_proc_exit(struct pd_net *pn);

#endif /* PKTDEDUP_H */
