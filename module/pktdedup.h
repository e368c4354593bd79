/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pktdedup: internal interfaces between the module's files (and its KUnit
 * tests). One instance per network namespace (struct pd_net); its filters
 * and configuration (struct pd_filter_set) are replaced whole under RCU.
 */
#ifndef PKTDEDUP_H
#define PKTDEDUP_H

#include <linux/mutex.h>
#include <linux/netlink.h>
#include <net/genetlink.h>
#include <linux/netfilter.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sizes.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <net/netns/generic.h>

#include "core/budget.h"
#include "core/config.h"
#include "core/decap.h"
#include "core/defer.h"
#include "core/filter.h"
#include "core/key.h"
#include "core/plan.h"
#include "core/sbf.h"
#include "core/shard.h"
#include "uapi/pktdedup.h"
#include "sources/sources.h"

/*
 * Allocations of an instance's state and of request buffers: charged to
 * the memory cgroup of the task that asks for them; one that cannot be met
 * fails (ENOMEM, silently) instead of invoking the OOM killer.
 */
#define PD_GFP (GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/* mem.c: the allocations the memory caps govern, and what each takes */
u64 pd_mem_size(size_t size);
void *pd_mem_zalloc(size_t size, int node);
void pd_mem_free(void *p, size_t size);
u64 pd_percpu_size(size_t size);
void __percpu *pd_percpu_zalloc(size_t size, size_t align);
void pd_percpu_free(void __percpu *p, size_t size);
u64 pd_mem_taken(void);

/* The parts of a namespace's memory budget (core/budget.h). */
enum pd_part { PD_PART_FILTERS, PD_PART_SOURCES, PD_NPARTS };

struct pd_net;

/*
 * cpus.c: a state whose large per-CPU parts exist for the online CPUs only
 * (scope percpu's filters, the source windows), kept with CPU hotplug.
 */
struct pd_cpus {
	struct hlist_node node;		/* an instance of the hotplug state */
	/* gives cpu its part: 0, or -ENOMEM (nothing left allocated) */
	int (*up)(struct pd_cpus *c, unsigned int cpu);
	/* whether cpu has its part */
	bool (*has)(struct pd_cpus *c, unsigned int cpu);
	u64 cpu_bytes;			/* what up() takes (pd_mem_size()) */
	u64 bytes;			/* what the state holds, all CPUs' */
	u32 ncpus;			/* CPUs with their part */
	/* while live: the namespace charged for CPUs that come up */
	struct pd_net *pn;
	enum pd_part part;
	struct mem_cgroup *memcg;	/* of the task that published it */
	bool live;
};

int pd_cpus_init(void);
void pd_cpus_exit(void);
int pd_cpus_up(struct pd_cpus *c, unsigned int cpu);
void pd_cpus_live(struct pd_cpus *c, struct pd_net *pn, enum pd_part part);
void pd_cpus_leave(struct pd_cpus *c);

/*
 * Bytes of a packet the headers are parsed on, in one piece (core/key.h):
 * the packet key's tail is read where it is.
 */
#define PD_HDR_ROOM PD_KEY_HDR_ROOM
#define PD_SCRATCH (PD_HDR_ROOM + PKTDEDUP_DECAP_ROOM)

/*
 * The counters of the named devices: a slot per name, twice as many slots
 * as a configuration may name devices, so that a change gives a name new
 * to it a slot that neither the hooks in force nor the new ones count
 * into (netns.c). Each CPU's slots (struct pd_dev_cpu) exist while devices
 * are named, for the online CPUs (cpus.c), charged to the filters' part of
 * the budget.
 */
#define PD_DEVC_SLOTS (2 * PKTDEDUP_DEVS_MAX)

/* One named device's counters on one CPU: half a cache line. */
struct pd_dev_stats {
	u64_stats_t packets;
	u64_stats_t duplicates;
	u64_stats_t marked;
	u64_stats_t dropped;
};

/* A plain snapshot of them. */
struct pd_dev_counts {
	u64 packets;
	u64 duplicates;
	u64 marked;
	u64 dropped;
};

/*
 * One CPU's slots, written by their CPU under its pd_cpu_stats.syncp; the
 * counts at the last reset apart, on lines the packet path never writes.
 */
struct pd_dev_cpu {
	struct pd_dev_stats slot[PD_DEVC_SLOTS];
	struct pd_dev_counts base[PD_DEVC_SLOTS];
};

/*
 * The named devices' counters of an active instance (pd_counters.devc),
 * while its configuration names devices. Changed under pn->lock.
 */
struct pd_devc {
	struct pd_cpus cpus;	/* the CPUs with their slots (cpus.c) */
	/* where each CPU's pointer to its slots is */
	struct pd_cpu_stats __percpu *stats;
	/* the name each slot counts, as the configuration gives it */
	char name[PD_DEVC_SLOTS][IFNAMSIZ];
};

/* Per-CPU counters; written only by their CPU, with BHs off. */
struct pd_cpu_stats {
	/*
	 * This CPU's slots of the named devices, or NULL (none named, or its
	 * memory refused): on the line of packets, which every judged
	 * packet writes; set and cleared by pn->lock's holder (netns.c)
	 */
	struct pd_dev_cpu *dev;
	u64_stats_t packets;
	u64_stats_t duplicates;
	u64_stats_t marked;
	u64_stats_t dropped;
	u64_stats_t unparsed;
	u64_stats_t nonip;
	u64_stats_t unjudged;	/* passed: this CPU has no filter (cpus.c) */
	/* config decap: frames through each encapsulation, and its errors */
	u64_stats_t decap[PD_NENCAPS];
	u64_stats_t decap_err[PD_NENCAPS];
	/*
	 * dev's slots for the control path (zeroed, reset, freed by pn->lock's
	 * holder): kept a grace period after dev is cleared
	 */
	struct pd_dev_cpu *dev_mem;
	struct u64_stats_sync syncp;
};

/*
 * The counters of an active instance. The packet path reaches them through
 * its filters (pd_filter_set.stats); readers, who take no lock, through
 * pd_net.ctr under RCU: they are freed a grace period after the instance
 * goes idle.
 */
/* One CPU's part of a rate sample (stats.c). */
struct pd_rate_cpu {
	u64 packets;		/* at the sample, no reset subtracted */
	u64 pps;		/* between the last two samples */
};

struct pd_counters {
	struct pd_cpu_stats __percpu *cpu;
	struct pd_counts __percpu *base;	/* counts at the last reset */
	struct pd_devc *devc;	/* while devices are named; pn->lock */
	/*
	 * The packet rate, sampled by the statistics' readers (stats.c), at
	 * most once a second, under pn->rate_lock; nothing on the packet
	 * path reads or writes it. New counters (an instance enabled) start
	 * without a sample.
	 */
	struct pd_rate_cpu __percpu *rate;
	u64 rate_ns;		/* the sample's time (ktime_get_ns()) */
	u64 rate_packets;	/* all CPUs' packets then */
	u64 rate_pps;		/* all CPUs', between the last two samples */
	bool rate_sampled;	/* a sample was taken */
	bool rate_known;	/* two were: rate_pps and rate's pps hold */
};

/* A plain snapshot of the counters. */
struct pd_counts {
	u64 packets;
	u64 duplicates;
	u64 marked;
	u64 dropped;
	u64 unparsed;
	u64 nonip;
	u64 unjudged;
	u64 decap[PD_NENCAPS];
	u64 decap_err[PD_NENCAPS];
};

/* The filters of one configuration; immutable but for the cells. */
struct pd_filter_set {
	/*
	 * What the packet path reads, first, on two lines: the hook reads
	 * the first and asks for the second as soon as it has the set
	 * (pd_fset_prefetch()): the
	 * configuration's selection and action copied from cfg (a set is
	 * never changed once built), the key's options, the pointers to the
	 * counters and the filters.
	 */
	u32 hook_gen;			/* the hooks that may use these */
	u32 copy_len;			/* header bytes read in one piece */
	u32 sel_mark_value;		/* cfg.sel's match-mark */
	u32 sel_mark_mask;
	u32 mark_value;			/* cfg's, of action mark */
	u32 mark_mask;
	u8 action;			/* cfg.action */
	bool any_proto;			/* cfg.sel.any_proto */
	bool timed;			/* the filter reads packets' times */
	struct pd_cpu_stats __percpu *stats;	/* the instance's counters */
	struct pd_filter __percpu *pcpu;	/* scope percpu */
	/* shared, lock-free (shards.lockfree): each CPU's generator */
	struct pd_filter_cpu __percpu *fcpu;
	/* action count: each CPU's deferred steps (defer.c); NULL otherwise */
	struct pd_defer __percpu *defer;
	/* named device i (cfg.sel.dev[i]) counts in slot dev_slot[i] */
	u8 dev_slot[PKTDEDUP_DEVS_MAX];
	struct pd_key_opts kopts;
	struct pd_shards shards;	/* scope shared; n 0 otherwise */
	/* the rest: the control path's */
	/*
	 * The instance's reference while published, and one for each reader
	 * of the statistics (pd_fset_hold()): the last one frees them.
	 */
	refcount_t ref;
	struct pd_config cfg;
	struct pd_filter_plan plan;
	/*
	 * Scope percpu: the CPUs with cells and what the set holds
	 * (pd_fset_bytes_n()), CPUs that came up included; kept with CPU
	 * hotplug while the set is in force (cpus.c). Scope shared: bytes.
	 */
	struct pd_cpus cpus;
	u64 cells_bytes;		/* scope shared: the shards' cells */
	/* the packet key's NH key (kopts.nh): random, or the fixed seed's */
	struct pd_nh_key nhkey;
	/*
	 * The plan's memory by its family's model (pd_filter_memory_gap()),
	 * found by the first read of the statistics that asks (stats.c)
	 */
	u64 mem_gap;
	bool mem_gap_known;
	struct mutex defer_lock;	/* one settler at a time (defer.c) */
	struct rcu_head rcu;
} ____cacheline_aligned;

static_assert(offsetofend(struct pd_filter_set, shards.hkey) <=
	      2 * SMP_CACHE_BYTES);

/*
 * The packet path's part of fs, two lines: the second asked for, as the
 * hook reads the first right away.
 */
static inline void pd_fset_prefetch(const struct pd_filter_set *fs)
{
	prefetch((const u8 *)fs + SMP_CACHE_BYTES);
}

/*
 * A device a configuration names, bound to the device that name (or
 * altname) resolves to in the namespace now (placement.c), or to none.
 */
struct pd_dev_bind {
	char name[IFNAMSIZ];
	/*
	 * The bound device. No reference is held: the device notifier
	 * unbinds it at its NETDEV_UNREGISTER, before it can be freed.
	 */
	struct net_device *dev;
	u8 state;		/* enum pktdedup_dev_state */
	u8 lower;		/* stacked, same: the slot it defers to */
	bool hooked;		/* per_dev: its hook registered (XDP: bound) */
	u32 err;		/* failed: why, a positive errno */
};

/*
 * The hooks of one configuration's hook point and the devices it names:
 * IPv4 and IPv6 at an inet hook, one bridge hook, at ingress one netdev
 * hook on each named device that is there (ops[i] on dev[i]), at an XDP
 * hook the module's program on each (xdp.c). The device notifier keeps
 * the binding under pn->dev_lock, for the hooks in force and for those a
 * change is about to publish; the packet path reads only ifindex[] and
 * (XDP) xlink[] and l3.
 */
struct pd_hooks {
	struct nf_hook_ops ops[PKTDEDUP_DEVS_MAX];
	struct pd_net *pn;
	u32 gen;
	/*
	 * ops[i].priv is &idx[i], which holds i: the hook finds its slot (a
	 * per-device placement's device) and the hooks from it alone, on
	 * the line it reads anyway (pd_hooks_of())
	 */
	u8 idx[PKTDEDUP_DEVS_MAX];
	u8 n;			/* ops in use at an inet or bridge hook */
	bool l2;		/* frames: non-IP ones are counted, passed */
	bool per_dev;		/* ingress, XDP: one hook per named device */
	u8 xdp;			/* enum pd_xdp_mode: an XDP placement's */
	bool match_dev;		/* the packet path matches the devices */
	u8 ndev;
	/* XDP: bit i, slot i's frames start at the IP header (no L2) */
	u8 l3;
	/* of the active devices, 0 for the others: the packet path's */
	s32 ifindex[PKTDEDUP_DEVS_MAX];
	/*
	 * XDP: the link the module attached to slot i's device, as the
	 * device knows it (NULL: none, so not judged): the kfunc judges a
	 * frame only on a device running it
	 */
	const struct bpf_xdp_link *xlink[PKTDEDUP_DEVS_MAX];
	struct pd_dev_bind dev[PKTDEDUP_DEVS_MAX];
};

struct pd_owner;

struct pd_budget {
	u64 cap;			/* bytes */
	u8 cap_source;			/* enum pktdedup_cap_source */
	/*
	 * What is held, and charged to the counts across namespaces: under
	 * the budget's spinlock (budget.c), since a CPU coming up adds to
	 * them without pn->lock (cpus.c); a change writes them under both.
	 * Readers without the spinlock take a copy (pd_budget_copy()).
	 */
	u64 held[PD_NPARTS];
	u64 peak;			/* most ever held, transients included */
	u64 charged;			/* counted in the module's total */
	/* the last CPU whose state was refused (cpus.c); spinlock */
	u64 cpu_need;
	u8 cpu_why;			/* enum pktdedup_refusal */
	bool cpu_refused;
	/* under pn->lock */
	u64 refused;			/* need of the last change refused */
	u8 why;				/* and what refused it */
	/*
	 * A namespace of another user namespace: the user who created its
	 * outermost user namespace (as the initial one knows them), and what
	 * that user's namespaces hold together, from the first admission.
	 */
	bool userns;
	kuid_t uid;
	struct pd_owner *owner;
};

/*
 * An XDP attachment: a bpf_link of the module's program on a device, held
 * by the module alone (xdp.c, xdp_link.c). Changed under pn->lock and
 * pn->dev_lock both; read under either.
 */
struct pd_xdp_att {
	struct bpf_link *link;		/* NULL: the slot is free */
	/* the device's pointer to it: compared, never followed */
	const struct bpf_xdp_link *tok;
	struct net_device *dev;		/* NULL once it went */
	u8 mode;			/* enum pd_xdp_mode */
};

/* A namespace's XDP placement: its program and attachments (xdp.c). */
struct pd_xdp {
	struct file *prog;		/* held while at an XDP hook; lock */
	struct file *next;		/* a request's, until it ends; lock */
	/* the hooks in force when they are XDP's: what the kfunc reads */
	struct pd_hooks __rcu *hooks;
	/*
	 * The hooks in force's and a change's: a change attaches its devices
	 * before the old ones are let go
	 */
	struct pd_xdp_att att[2 * PKTDEDUP_DEVS_MAX];
	/* attaches what the notifier bound, lets go what it unbound */
	struct work_struct work;
	bool dead;			/* the namespace goes; dev_lock */
};

struct pd_net {
	struct net *net;
	struct mutex lock;		/* serialises configuration changes */
	bool active;			/* under lock; idle: nothing held */
	struct pd_filter_set __rcu *filters;
	/*
	 * The source analytics' state (sources/), NULL: none or no memory
	 * for it; on the line of filters, which every packet reads too.
	 */
	struct pd_srcs __rcu *srcs;
	struct pd_config cfg;		/* in force; under lock */
	/*
	 * Serialises the hooks' registrations and their device binding with
	 * the device notifier, which holds RTNL: taken inside lock, for
	 * short work only (never a grace period, never an allocation of
	 * state), so RTNL never waits for a change to be built.
	 */
	struct mutex dev_lock;
	struct pd_hooks *hooks;		/* in force; lock and dev_lock */
	struct pd_hooks *hooks_next;	/* registered, not yet in force */
	struct pd_hooks *detached;	/* at exit, freed after its grace */
	u32 hook_gen;			/* under lock */
	/*
	 * A refusal about one named device: its slot (-1: none), which the
	 * reply points at (extack messages are static strings). Under lock,
	 * set and read by the request that holds it.
	 */
	int blame;
	struct pd_counters __rcu *ctr;	/* NULL while idle */
	/*
	 * Serialises the statistics' readers' rate samples (stats.c): taken
	 * by readers alone, never with lock, so no change waits for a reader
	 */
	struct mutex rate_lock;
	/* the counter slots of the named devices in force; under lock */
	u8 dev_slot[PKTDEDUP_DEVS_MAX];
	struct proc_dir_entry *proc;
	struct pd_budget budget;	/* under lock */
	struct pd_src_net src;		/* the source analytics' (sources/) */
	struct pd_xdp xdp;
};

/*
 * NL_SET_ERR_MSG() takes a literal; the core's messages and the memory cap
 * messages (formatted once, at load) are static strings as well, so they
 * may be kept the same way.
 */
static inline void pd_set_err_msg(struct netlink_ext_ack *extack,
				  const char *msg)
{
	if (extack)
		extack->_msg = msg;
}

/* main.c */
extern unsigned int pd_net_id;

/* The instance of namespace net. */
static inline struct pd_net *pd_pernet(const struct net *net)
{
	return net_generic(net, pd_net_id);
}

extern u64 pd_max_netns_mem, pd_max_userns_mem, pd_max_total_mem,
	pd_max_user_mem, pd_init_reserve_mem;

/* budget.c */
void pd_budget_init(struct pd_budget *b, const struct net *net);
int pd_budget_admit(struct pd_net *pn, enum pd_part part, u64 need,
		    struct netlink_ext_ack *extack);
int pd_budget_try(struct pd_net *pn, enum pd_part part, u64 need,
		  struct netlink_ext_ack *extack);
void pd_budget_held(struct pd_net *pn, enum pd_part part, u64 bytes);
u64 pd_budget_total(const struct pd_budget *b);
void pd_budget_msgs_init(void);
u64 pd_budget_total_held(void);
void pd_budget_settle(struct pd_net *pn);
int pd_budget_check_alone(struct pd_net *pn, enum pd_part part, u64 need,
			  struct netlink_ext_ack *extack);
void pd_budget_release(struct pd_net *pn);
bool pd_budget_fits(struct pd_net *pn, u64 need);
void pd_budget_report(const struct pd_budget *b, u64 *user_held,
		      u64 *userns_held);
void pd_budget_copy(const struct pd_budget *b, struct pd_budget *out);
int pd_budget_cpu_admit(struct pd_net *pn, enum pd_part part, u64 bytes);
void pd_budget_cpu_undo(struct pd_net *pn, enum pd_part part, u64 bytes);

/* filter_set.c */
int pd_fset_plan(struct pd_net *pn, const struct pd_config *cfg,
		 struct pd_filter_plan *plan, struct netlink_ext_ack *extack);
u64 pd_fset_bytes(const struct pd_config *cfg,
		  const struct pd_filter_plan *plan);
u64 pd_fset_bytes_n(const struct pd_config *cfg,
		    const struct pd_filter_plan *plan, u32 ncpus);
struct pd_filter_set *pd_fset_build(const struct pd_config *cfg,
				    const struct pd_filter_plan *plan,
				    u32 ncpus, struct netlink_ext_ack *extack);
void pd_fset_live(struct pd_net *pn, struct pd_filter_set *fs);
void pd_fset_leave(struct pd_filter_set *fs);
void pd_fset_free(struct pd_filter_set *fs);
struct pd_filter *pd_fset_cpu(struct pd_filter_set *fs, int cpu);
u32 pd_fset_cpus_without(struct pd_filter_set *fs);
struct pd_filter_set *pd_fset_hold(struct pd_net *pn);
void pd_fset_put(struct pd_filter_set *fs);
u32 pd_fset_count(const struct pd_filter_set *fs);
struct pd_filter *pd_fset_get(struct pd_filter_set *fs, int cpu);
/*
 * What one read of the statistics (a GET_STATS request or dump, /proc's
 * stats) may read of all the filters it reports together: bounded,
 * whatever the filters' size and the number of possible CPUs.
 */
#define PD_OCC_READ_BYTES SZ_1M
u64 pd_occ_budget(u32 n);
void pd_fset_occupancy(struct pd_filter_set *fs, int cpu,
		       struct pd_filter_occ *occ, u64 max_bytes);
u32 pd_occupancy_ppb(const struct pd_filter_occ *occ, bool counting);
int pd_fset_query(struct pd_filter_set *fs, const struct pd_key *key);
bool pd_fset_window_of(struct pd_filter_set *fs, int cpu,
		       struct pd_filter_win *w);

/*
 * defer.c: with action count, each CPU steps its filter for a packet when
 * its next packet comes (core/defer.h); the statistics' readers settle
 * the steps kept first, each CPU's on that CPU.
 */
u64 pd_defer_bytes(const struct pd_config *cfg,
		   const struct pd_filter_plan *plan);
int pd_defer_build(struct pd_filter_set *fs, struct netlink_ext_ack *extack);
void pd_defer_free(struct pd_filter_set *fs);
void pd_defer_settle(struct pd_net *pn, struct pd_filter_set *fs);

/* netns.c */
int pd_net_apply(struct pd_net *pn, const struct pd_config *cfg,
		 struct netlink_ext_ack *extack);
int pd_net_reset(struct pd_net *pn, struct netlink_ext_ack *extack);
u64 pd_devc_bytes(u32 ncpus);
int pd_devc_assign(struct pd_net *pn, const struct pd_select *sel, u8 *slots,
		   struct netlink_ext_ack *extack);
void pd_devc_drop(struct pd_net *pn);
int pd_net_setup(struct pd_net *pn, struct net *net,
		 const struct pd_config *cfg, bool active);
int pd_net_enable(struct pd_net *pn, const struct pd_config *cfg,
		  struct netlink_ext_ack *extack);
void pd_net_disable(struct pd_net *pn);
void pd_net_detach(struct pd_net *pn);
void pd_net_teardown(struct pd_net *pn);

/* hook.c: the packet path */
int pd_hook_init(void);
void pd_hook_exit(void);
unsigned int pd_hook(void *priv, struct sk_buff *skb,
		     const struct nf_hook_state *state);
unsigned int pd_process(struct pd_net *pn, struct pd_filter_set *fs,
			struct sk_buff *skb, u32 l3, int dev);
void pd_defer_drain(struct pd_net *pn, struct pd_filter_set *fs, int cpu);
enum pd_parse_result pd_skb_key(struct sk_buff *skb,
				const struct pd_filter_set *fs, u8 *scratch,
				struct pd_pkt *pkt, struct pd_key *key, u32 l3);
struct xdp_buff;
bool pd_xdp_frame(struct pd_net *pn, const struct pd_hooks *hooks,
		  const struct xdp_buff *xdp, bool l3, int dev);

/* The hooks whose ops' priv is priv, and in *slot that ops' index. */
static inline const struct pd_hooks *pd_hooks_of(const void *priv,
						 unsigned int *slot)
{
	const u8 *p = priv;

	*slot = *p;
	return (const struct pd_hooks *)(p - *p -
					 offsetof(struct pd_hooks, idx));
}

/*
 * xdp.c: the XDP placements' program and attachments. They need BPF, and
 * a devmap that gives the programs it runs a receive queue of their own:
 * 6.1 before 6.1.115 leaves it uninitialised, so that a devmap program
 * calling the kfunc (root's doing) would make it read garbage where it
 * tells such a program from the module's own. Kbuild then builds the
 * module without them (PD_DEVMAP_DEFECT: its XDP hooks refused); later
 * 6.1 releases, and 6.12 on, have the fix ("bpf: devmap: provide rxq
 * after redirect").
 */
#if IS_ENABLED(CONFIG_BPF_SYSCALL) && !defined(PD_DEVMAP_DEFECT)
#define PD_XDP 1
#endif

#ifdef PD_XDP
struct xdp_md;
u32 pd_xdp_judge(struct xdp_md *ctx);	/* the kfunc */
int pd_xdp_init(void);
void pd_xdp_exit(void);
int pd_xdp_prog_take(struct pd_net *pn, const struct nlattr *attr,
		     struct netlink_ext_ack *extack);
void pd_xdp_prog_settle(struct pd_net *pn, bool applied);
int pd_xdp_attach(struct pd_net *pn, struct pd_hooks *h, bool all,
		  struct netlink_ext_ack *extack);
int pd_xdp_check(struct pd_net *pn, struct pd_hooks *h,
		 struct netlink_ext_ack *extack);
void pd_xdp_sync(struct pd_net *pn);
bool pd_xdp_framing_ok(const struct net_device *dev);
void pd_xdp_slot_settle(struct pd_hooks *h, unsigned int i);
void pd_xdp_dev_event(struct pd_net *pn, const struct net_device *dev,
		      bool gone, bool changed);
void pd_xdp_net_init(struct pd_net *pn);
void pd_xdp_net_exit(struct pd_net *pn);
/* The kernel's mode of an XDP placement (enum pd_xdp_mode). */
static inline enum bpf_xdp_mode pd_xdp_kmode(u8 mode)
{
	return mode == PD_XDP_NATIVE ? XDP_MODE_DRV : XDP_MODE_SKB;
}

/* xdp_link.c: the links, made by the module's kernel thread */
struct bpf_link *pd_xdp_link_make(struct file *prog, struct net *net,
				  struct net_device *dev, u8 mode,
				  const struct bpf_xdp_link **tok);
void pd_xdp_unlink(struct bpf_link *link);
void pd_xdp_link_exit(void);
#else
/*
 * a kernel without BPF (KUnit's UML), or with the devmap defect: the XDP
 * placements are refused
 */
static inline int pd_xdp_init(void)
{
	return 0;
}

static inline void pd_xdp_exit(void)
{
}

static inline int pd_xdp_prog_take(struct pd_net *pn,
				   const struct nlattr *attr,
				   struct netlink_ext_ack *extack)
{
	return 0;
}

static inline void pd_xdp_prog_settle(struct pd_net *pn, bool applied)
{
}

static inline int pd_xdp_attach(struct pd_net *pn, struct pd_hooks *h,
				bool all, struct netlink_ext_ack *extack)
{
	if (!h || !h->xdp)
		return 0;
	NL_SET_ERR_MSG(extack,
		       "hook xdp: the module was built without the XDP hooks: this kernel has no BPF, or a devmap defect (6.1 before 6.1.115)");
	return -EOPNOTSUPP;
}

static inline int pd_xdp_check(struct pd_net *pn, struct pd_hooks *h,
			       struct netlink_ext_ack *extack)
{
	return pd_xdp_attach(pn, h, true, extack);
}

static inline void pd_xdp_sync(struct pd_net *pn)
{
}

static inline bool pd_xdp_framing_ok(const struct net_device *dev)
{
	return true;
}

static inline void pd_xdp_slot_settle(struct pd_hooks *h, unsigned int i)
{
	h->dev[i].state = PKTDEDUP_DEV_STATE_WAITING;
}

static inline void pd_xdp_dev_event(struct pd_net *pn,
				    const struct net_device *dev, bool gone,
				    bool changed)
{
}

static inline void pd_xdp_net_init(struct pd_net *pn)
{
}

static inline void pd_xdp_net_exit(struct pd_net *pn)
{
}
#endif

/* placement.c: the hooks of a configuration, the devices it names */
int pd_placement_init(void);
void pd_placement_exit(void);
int pd_hooks_check(struct pd_net *pn, const struct pd_config *cfg,
		   struct netlink_ext_ack *extack);
struct pd_hooks *pd_hooks_register(struct pd_net *pn,
				   const struct pd_config *cfg, u32 gen,
				   struct netlink_ext_ack *extack);
struct pd_hooks *pd_hooks_commit(struct pd_net *pn, struct pd_hooks *h,
				 struct pd_filter_set *fs,
				 struct pd_filter_set **old);
void pd_hooks_abort(struct pd_net *pn, struct pd_hooks *h);
struct pd_hooks *pd_hooks_withdraw(struct pd_net *pn);
void pd_dev_settle(struct pd_hooks *h);
void pd_hooks_detach(struct pd_hooks *hooks);
u32 pd_hooks_count(const struct pd_hooks *h);

/* select.c: the traffic selection of a request and a reply */
int pd_nl_select_read(struct nlattr **tb, struct pd_select *sel,
		      struct netlink_ext_ack *extack);
int pd_nl_select_put(struct sk_buff *msg, struct pd_net *pn,
		     const struct pd_select *sel);
bool pd_select_same_devs(const struct pd_select *a, const struct pd_select *b);
struct nlattr *pd_nl_select_dev(struct nlattr **tb, unsigned int i);

/* nl_family.c: the family, and one request/reply path for every command */
struct pd_nl_req {
	struct pd_net *pn;
	struct genl_info *info;
	struct netlink_ext_ack *extack;
	void *data;		/* the command's data_size bytes, zeroed */
	u32 n;			/* a count prepare() found */
	/*
	 * The caller has CAP_NET_ADMIN over the namespace, as the
	 * GENL_UNS_ADMIN_PERM commands require: only then does a reply carry
	 * the fixed seed.
	 */
	bool admin;
	/* SET_CONFIG's config check: checked only, nothing changed */
	bool check;
};

struct pd_nl_cmd {
	u8 reply_cmd;
	/*
	 * A read that takes what it needs itself (under RCU, or a reference)
	 * instead of the namespace's lock: statistics and the source
	 * analytics, which anyone may ask for and which read much.
	 */
	bool unlocked;
	size_t data_size;
	/* changes state (SET, RESET): before any reply is built */
	int (*act)(struct pd_nl_req *req);
	/* gathers what the reply needs; may allocate into req->data */
	int (*prepare)(struct pd_nl_req *req);
	size_t (*reply_size)(const struct pd_nl_req *req);
	int (*fill)(struct sk_buff *msg, struct pd_nl_req *req);
	void (*cleanup)(struct pd_nl_req *req);
};

extern struct genl_family pd_genl_family;
int pd_nl_do(const struct pd_nl_cmd *cmd, struct sk_buff *skb,
	     struct genl_info *info);
int pd_nl_nest(struct pd_nl_req *req, int type, const struct nla_policy *pol,
	       unsigned int max, struct nlattr **tb);
int pd_nl_put_u64(struct sk_buff *msg, int type, u64 v, int pad);
int pd_netlink_init(void);
void pd_netlink_exit(void);

/* stats.c: a read of the statistics */
struct pd_stats_view {
	struct pd_net *pn;
	struct pd_filter_set *fs;		/* a reference, or NULL */
	bool counting;			/* zero cells (else set bits) */
	u64 budget;			/* bytes read of each filter */
	struct pd_filter_occ shared;	/* the shared filter's, read once */
};

/* One CPU's row of a read. */
struct pd_stats_row {
	struct pd_counts c;
	const struct pd_filter_occ *occ;	/* NULL: no filters */
	u32 ppb;				/* of zero cells or set bits */
};

void pd_counters_read(const struct pd_counters *ctr, int cpu,
		      struct pd_counts *c);
void pd_dev_counts_read(const struct pd_counters *ctr,
			const struct pd_filter_set *fs,
			struct pd_dev_counts *c);
void pd_counts_add(struct pd_counts *sum, const struct pd_counts *c);
bool pd_stats_begin(struct pd_net *pn, struct pd_stats_view *v);
void pd_stats_end(struct pd_stats_view *v);
void pd_stats_cpu(struct pd_stats_view *v, int cpu, struct pd_stats_row *r,
		  struct pd_filter_occ *buf);

/* The packet rate and what the filters remember, of a read (stats.c). */
struct pd_stats_mem {
	bool rate_known;	/* else pps is 0: not measured yet */
	u64 pps;		/* all CPUs' packets per second */
	struct pd_filter_mem m;	/* 0s: not known */
};

void pd_stats_memory(struct pd_stats_view *v, struct pd_stats_mem *out);

/* nl_filter.c */
int pd_nl_filter_read(const struct nlattr *nest, struct pd_filter_req *req,
		      struct nlattr **blame, struct netlink_ext_ack *extack);
int pd_nl_filter_auto(const struct nlattr *nest, bool *follow,
		      struct netlink_ext_ack *extack);
int pd_nl_filter_put(struct sk_buff *msg, const struct pd_filter_req *r,
		     bool follow);
struct nlattr *pd_nl_filter_setting(const struct nlattr *nest, u8 kind,
				    u16 attr);
int pd_nl_put_plan(struct sk_buff *msg, int type,
		   const struct pd_filter_plan *p);

/* proc.c */
int pd_proc_init(struct pd_net *pn);
void pd_proc_exit(struct pd_net *pn);

#endif /* PKTDEDUP_H */
