// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: the netfilter hook.
 *
 * For each IPv4/IPv6 packet: extract the configured key from the bytes at
 * the network header, run one step of this CPU's filter (of whatever
 * family: core/filter.h), count, and act on duplicates (count, mark,
 * drop). First copies are never touched; packets the parser cannot read
 * are counted and passed.
 *
 * The packet path takes no lock (in scope percpu), touches no atomic shared
 * between CPUs, allocates nothing, and does bounded work: at most
 * PD_SCRATCH bytes are read, and the filter's step is bounded (K probes
 * and one run of P decrements for the counting families, k bits and k
 * resets for the bit-array ones, a bounded search in RSBF's phase 3, K
 * counters and at most five expiries for the sliding window, K words and
 * a bounded cleaning run for jumping and landmark windows). A time window
 * reads one clock per packet, ktime_get_mono_fast_ns(): nanoseconds, the
 * same clock on every CPU (scope shared compares times taken on several
 * CPUs), lock-free and NMI-safe.
 * BHs are disabled around the per-CPU state, as hooks also run in process
 * context (OUTPUT) where a softirq could otherwise interleave.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <net/net_namespace.h>

#include "pktdedup.h"

struct pd_scratch {
	u8 buf[PD_SCRATCH];
};

static struct pd_scratch __percpu *pd_scratch;

static const u8 pd_nf_hooks[PD_NHOOKS] = {
	[PKTDEDUP_HOOK_PREROUTING] = NF_INET_PRE_ROUTING,
	[PKTDEDUP_HOOK_INPUT] = NF_INET_LOCAL_IN,
	[PKTDEDUP_HOOK_FORWARD] = NF_INET_FORWARD,
	[PKTDEDUP_HOOK_OUTPUT] = NF_INET_LOCAL_OUT,
	[PKTDEDUP_HOOK_POSTROUTING] = NF_INET_POST_ROUTING,
};

/*
 * The key of skb, and in *pkt what the parser learnt (pkt->family is 0 if
 * not even the IP header could be read). The first fs->copy_len bytes
 * from the network header (fewer if the packet is shorter) are read
 * through skb_header_pointer(): in place when the linear area holds them,
 * copied into scratch (PD_SCRATCH bytes) when the packet is paged, so
 * linear and paged copies of one packet give one key.
 */
enum pd_parse_result pd_skb_key(struct sk_buff *skb,
				const struct pd_filters *fs, u8 *scratch,
				struct pd_pkt *pkt, struct pd_key *key)
{
	int off = skb_network_offset(skb);
	enum pd_parse_result r;
	const u8 *data;
	u32 len;

	pkt->family = 0;
	if (off < 0 || skb->len <= (unsigned int)off)
		return PD_PARSE_TRUNCATED;
	len = min_t(u32, skb->len - off, fs->copy_len);
	data = skb_header_pointer(skb, off, len, scratch);
	if (!data)
		return PD_PARSE_TRUNCATED;
	r = pd_parse(data, len, pkt);
	return r == PD_PARSE_OK ? pd_key_from_pkt(pkt, &fs->kopts, key) : r;
}

/*
 * A window filter's window fell below warn-below percent of the window
 * asked (the filter says so at most once a second): say so, rate-limited.
 */
static void pd_window_alert(struct pd_net *pn, const struct pd_filters *fs,
			    struct pd_filter *f)
{
	struct pd_filter_win w;

	f->alert = false;
	if (!pd_filter_window(f, &w))
		return;
	net_warn_ratelimited("netns %u: %s window at %llu us of the %llu us asked (%llu early expiries, capacity %llu): traffic above the planned rate; raise rate or mem\n",
			     pn->net->ns.inum, f->ops->name,
			     div_u64(w.effective, NSEC_PER_USEC),
			     div_u64(w.window, NSEC_PER_USEC), w.early,
			     w.capacity);
}

/* One step of filter f, and its window's alert if it raised one. */
static inline bool pd_step(struct pd_net *pn, const struct pd_filters *fs,
			   struct pd_filter *f, u64 h,
			   const struct pd_pktinfo *pi)
{
	bool dup = pd_filter_step_hash(f, h, pi);

	if (unlikely(f->alert))
		pd_window_alert(pn, fs, f);
	return dup;
}

/* One packet through the filters fs of instance pn: the verdict. */
unsigned int pd_process(struct pd_net *pn, struct pd_filters *fs,
			struct sk_buff *skb)
{
	unsigned int verdict = NF_ACCEPT;
	enum pd_parse_result r;
	struct pd_cpu_stats *st;
	struct pd_pkt pkt;
	struct pd_pktinfo pi;
	struct pd_filter *f;
	struct pd_key key;
	bool dup;
	u64 h;

	local_bh_disable();
	st = this_cpu_ptr(pn->stats);
	r = pd_skb_key(skb, fs, this_cpu_ptr(pd_scratch)->buf, &pkt, &key);
	if (pkt.family)		/* the addresses are known */
		pd_srcs_add(pn, &pkt);
	if (unlikely(r != PD_PARSE_OK)) {
		u64_stats_update_begin(&st->syncp);
		u64_stats_inc(&st->unparsed);
		u64_stats_update_end(&st->syncp);
		goto out;
	}
	/* a filter's hash key never changes: hash outside the shared lock */
	f = fs->shared ? fs->shared : this_cpu_ptr(fs->pcpu);
	h = pd_filter_hash(f, &key);
	pd_filter_prefetch(f, h);
	pi.dscp = pkt.dscp;
	pi.mark = skb->mark;
	/* time windows: one clock read, ns, the same clock on every CPU */
	pi.now = fs->timed ? ktime_get_mono_fast_ns() : 0;
	if (fs->shared) {
		spin_lock(&fs->lock);
		dup = pd_step(pn, fs, f, h, &pi);
		spin_unlock(&fs->lock);
	} else {
		dup = pd_step(pn, fs, f, h, &pi);
	}

	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->packets);
	if (dup) {
		u64_stats_inc(&st->duplicates);
		switch (fs->cfg.action) {
		case PKTDEDUP_ACTION_MARK:
			/* MARK --set-xmark VALUE/MASK */
			skb->mark = (skb->mark & ~fs->cfg.mark_mask) ^
				    fs->cfg.mark_value;
			u64_stats_inc(&st->marked);
			break;
		case PKTDEDUP_ACTION_DROP:
			u64_stats_inc(&st->dropped);
			verdict = NF_DROP;
			break;
		default:
			break;
		}
	}
	u64_stats_update_end(&st->syncp);
out:
	local_bh_enable();
	return verdict;
}

static unsigned int pd_hook(void *priv, struct sk_buff *skb,
			    const struct nf_hook_state *state)
{
	const struct pd_hooks *hooks = priv;
	struct pd_filters *fs = rcu_dereference(hooks->pn->filters);

	/*
	 * While a hook point changes, the old and the new hooks are both
	 * registered for a moment: only the generation the filters were
	 * built for acts.
	 */
	if (unlikely(!fs || fs->hook_gen != hooks->gen))
		return NF_ACCEPT;
	return pd_process(hooks->pn, fs, skb);
}

struct pd_hooks *pd_hooks_register(struct pd_net *pn, u8 hook, s32 priority,
				   u32 gen)
{
	struct pd_hooks *h = kzalloc(sizeof(*h), GFP_KERNEL);
	int i, err;

	if (!h)
		return ERR_PTR(-ENOMEM);
	h->pn = pn;
	h->gen = gen;
	for (i = 0; i < 2; i++) {
		h->ops[i].hook = pd_hook;
		h->ops[i].priv = h;
		h->ops[i].pf = i ? NFPROTO_IPV6 : NFPROTO_IPV4;
		h->ops[i].hooknum = pd_nf_hooks[hook];
		h->ops[i].priority = priority;
	}
	err = nf_register_net_hooks(pn->net, h->ops, ARRAY_SIZE(h->ops));
	if (err) {
		kfree(h);
		return ERR_PTR(err);
	}
	return h;
}

/* Stop new packets from reaching h; CPUs may still be inside pd_hook(). */
void pd_hooks_detach(struct pd_hooks *h)
{
	nf_unregister_net_hooks(h->pn->net, h->ops, ARRAY_SIZE(h->ops));
}

int pd_hook_init(void)
{
	pd_scratch = alloc_percpu(struct pd_scratch);
	return pd_scratch ? 0 : -ENOMEM;
}

void pd_hook_exit(void)
{
	free_percpu(pd_scratch);
}
