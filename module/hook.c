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
 * The packet path takes no lock in scope percpu and touches no atomic
 * shared between CPUs; in scope shared, either none (a family with a
 * lock-free step, the SBF: its cells' words read and written whole, with
 * no locked instruction, racing by design (core/sbf.h), each CPU its own
 * generator) or one spinlock, the packet's shard's
 * (core/shard.h), on a line with that shard's state. It
 * allocates nothing and does bounded work whatever the settings: at most
 * PD_SCRATCH bytes of the packet are read, one filter (one shard) is
 * stepped, and a step reads or writes at most PD_STEP_MAX_LINES (256)
 * lines of 64 bytes of its filter (core/step.h; 16 KiB, a few
 * microseconds): each family bounds its step in its plan (K probes and a
 * run of P decrements; k probes, k resets and RSBF's search of 8 words;
 * a window's probes, expiries, sweep and the spare's cleaning), and a
 * configuration whose plan is above the bound is refused, naming the
 * setting, before anything is built (nl_config.c). A time window
 * reads one clock per packet, ktime_get_mono_fast_ns(): nanoseconds, the
 * same clock on every CPU (scope shared compares times taken on several
 * CPUs), lock-free and NMI-safe. A CPU without a filter of its own
 * (one that came up when its memory was refused: cpus.c) passes its
 * packets, counted as unjudged; one without source windows counts nothing
 * there.
 * BHs are disabled around the per-CPU state, as hooks also run in process
 * context (OUTPUT) where a softirq could otherwise interleave.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_ether.h>
#include <linux/net.h>
#include <linux/timekeeping.h>
#include <net/net_namespace.h>
#include <net/xdp.h>

#include "pktdedup.h"

struct pd_scratch {
	u8 buf[PD_SCRATCH];
};

static struct pd_scratch __percpu *pd_scratch;
/* a non-IP frame's first bytes, in one piece (pd_key_nonip) */
static_assert(PD_KEY_NONIP_ROOM <= PD_SCRATCH);

/*
 * len bytes of skb from byte from on into nh, wherever they are: its
 * linear area, its page fragments (mapped one at a time), the skbs of its
 * frag list. Nothing is copied. Whether all were there.
 */
static bool pd_skb_feed(struct sk_buff *skb, u32 from, u32 len,
			struct pd_nh *nh)
{
	struct skb_seq_state st __uninitialized;	/* prepared whole */
	u32 done = 0, n;
	const u8 *p;

	skb_prepare_seq_read(skb, from, from + len, &st);
	while (done < len) {
		n = skb_seq_read(done, &p, &st);
		if (!n)
			return false;	/* the sequence ended and is undone */
		n = min(n, len - done);
		pd_nh_update(nh, p, n);
		done += n;
	}
	skb_abort_seq_read(&st);
	return true;
}

/*
 * The key of skb, and in *pkt what the parser learnt (pkt->family is 0 if
 * not even the IP header could be read, or a tunnel's could not). The IP
 * header is l3 bytes past the network header (VLAN tags or MPLS labels at
 * the L2 hooks). The headers are parsed on the first fs->copy_len bytes
 * from it (fewer if the packet is shorter: pd_key_hdr_look(), with the
 * tunnels' headers when decapsulating): in place when the linear area
 * holds them, else copied into scratch (PD_SCRATCH bytes). The packet
 * key's tail is then read where it is (the rest of the linear area, page
 * fragments, the frag list: pd_skb_feed()), so linear and paged copies of
 * one packet give one key.
 */
enum pd_parse_result pd_skb_key(struct sk_buff *skb,
				const struct pd_filter_set *fs, u8 *scratch,
				struct pd_pkt *pkt, struct pd_key *key, u32 l3)
{
	int off = skb_network_offset(skb) + (int)l3;
	enum pd_parse_result r;
	u32 whole, view;
	struct pd_nh nh __uninitialized;	/* set where a tail needs it */
	const u8 *data;

	pkt->family = 0;
	pkt->encaps = 0;
	pkt->bad_encap = 0;
	if (off < 0 || skb->len <= (unsigned int)off)
		return PD_PARSE_TRUNCATED;
	whole = skb->len - off;
	view = min_t(u32, whole, fs->copy_len);
	if (off + view <= skb_headlen(skb)) {
		/* the linear area, all of it one piece */
		data = skb->data + off;
		view = skb_headlen(skb) - off;
	} else {
		data = skb_header_pointer(skb, off, view, scratch);
		if (!data)
			return PD_PARSE_TRUNCATED;
	}
	r = pd_parse_key_open(data, view, whole, &fs->kopts, pkt, key, &nh);
	if (r != PD_PARSE_OK || !key->more_len)
		return r;
	if (!pd_skb_feed(skb, off + key->more_off, key->more_len, &nh))
		return PD_PARSE_TRUNCATED;
	pd_key_close(key, &nh);
	return PD_PARSE_OK;
}

/*
 * A window filter's window fell below warn-below percent of the window
 * asked (the filter says so at most once a second): say so, rate-limited.
 */
static void pd_window_alert(struct pd_net *pn, const struct pd_filter_set *fs,
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
static inline bool pd_step(struct pd_net *pn, const struct pd_filter_set *fs,
			   struct pd_filter *f, u64 h,
			   const struct pd_pktinfo *pi)
{
	bool dup = pd_filter_step_hash(f, h, pi);

	if (unlikely(f->alert))
		pd_window_alert(pn, fs, f);
	return dup;
}

/*
 * The encapsulations a packet came through, and the one whose header was
 * malformed (config decap only).
 */
static void pd_count_encaps(struct pd_cpu_stats *st, const struct pd_pkt *pkt)
{
	unsigned int i;

	u64_stats_update_begin(&st->syncp);
	for (i = 0; i < PD_NENCAPS; i++) {
		if (pkt->encaps & BIT(i))
			u64_stats_inc(&st->decap[i]);
		if (pkt->bad_encap & BIT(i))
			u64_stats_inc(&st->decap_err[i]);
	}
	u64_stats_update_end(&st->syncp);
}

/*
 * This CPU's counters of named device dev (its index in the selection), or
 * NULL: none named, the packet's device not found among them (dev < 0), or
 * no slots on this CPU. Prefetched for writing: the filter's step hides
 * the miss. The pointer shares the line of st->packets.
 */
static inline struct pd_dev_stats *pd_dev_stats_of(struct pd_cpu_stats *st,
						   const struct pd_filter_set *fs,
						   int dev)
{
	struct pd_dev_cpu *dc;
	struct pd_dev_stats *ds;

	if (dev < 0)
		return NULL;
	dc = READ_ONCE(st->dev);
	if (!dc)
		return NULL;
	ds = &dc->slot[fs->dev_slot[dev]];
	prefetchw(ds);
	return ds;
}

/*
 * One step of fs's filter for hash h on CPU cpu (this one, or one that is
 * offline: defer.c): f, that CPU's filter in scope percpu, or NULL for
 * the shared filter's shard h names (lock-free with that CPU's
 * generator, or under the shard's lock). Whether h was seen. BHs
 * disabled.
 */
static inline bool pd_run(struct pd_net *pn, struct pd_filter_set *fs,
			  struct pd_filter *f, int cpu, u64 h,
			  const struct pd_pktinfo *pi)
{
	struct pd_shard *sh;
	bool dup;

	if (f)
		return pd_step(pn, fs, f, h, pi);
	sh = pd_shard_of(&fs->shards, h);
	if (fs->shards.lockfree)	/* every CPU at once, no lock */
		return pd_filter_step_cpu(&sh->f, per_cpu_ptr(fs->fcpu, cpu),
					  h, pi);
	spin_lock(&sh->lock);
	dup = pd_step(pn, fs, &sh->f, h, pi);
	spin_unlock(&sh->lock);
	return dup;
}

/*
 * The acts on a duplicate, counted in st (and ds, its named device's
 * counters, if not NULL): whether to drop it. In st's update section.
 */
static inline bool pd_act(const struct pd_filter_set *fs,
			  struct pd_cpu_stats *st, struct pd_dev_stats *ds,
			  u32 *mark)
{
	u64_stats_inc(&st->duplicates);
	if (ds)
		u64_stats_inc(&ds->duplicates);
	switch (fs->action) {
	case PKTDEDUP_ACTION_MARK:
		/* MARK --set-xmark VALUE/MASK */
		*mark = (*mark & ~fs->mark_mask) ^ fs->mark_value;
		u64_stats_inc(&st->marked);
		if (ds)
			u64_stats_inc(&ds->marked);
		return false;
	case PKTDEDUP_ACTION_DROP:
		u64_stats_inc(&st->dropped);
		if (ds)
			u64_stats_inc(&ds->dropped);
		return true;
	default:
		return false;
	}
}

/*
 * Action count: the packet whose hash is h (its info pi, its named
 * device dev) is counted now and its step kept on this CPU's queue; the
 * step kept before it is taken now, its line asked for a packet ago
 * (core/defer.h). f: as pd_run(). BHs disabled.
 */
static void pd_judge_later(struct pd_net *pn, struct pd_filter_set *fs,
			   struct pd_cpu_stats *st, struct pd_dev_stats *ds,
			   struct pd_filter *f, u64 h,
			   const struct pd_pktinfo *pi, int dev)
{
	struct pd_defer *q = this_cpu_ptr(fs->defer);
	struct pd_dev_stats *ods = NULL;
	struct pd_defer_ent *e;
	bool full, dup = false;
	u32 mark = 0;

	e = pd_defer_slot(q, &full);
	if (full) {
		/* stepped where it is kept, then its slot filled */
		dup = pd_run(pn, fs, f, smp_processor_id(), e->h, &e->pi);
		if (dup)
			ods = e->tag == dev ? ds :
			      pd_dev_stats_of(st, fs, e->tag);
	}
	pd_defer_fill(e, h, pi->dscp, pi->mark, pi->now, dev);
	pd_defer_commit(q, full);
	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->packets);
	if (ds)
		u64_stats_inc(&ds->packets);
	if (dup)
		pd_act(fs, st, ods, &mark);
	u64_stats_update_end(&st->syncp);
}

/*
 * Take the steps kept on CPU cpu's queue of fs, and count their
 * duplicates in that CPU's counters: on cpu, or with cpu offline (then no
 * packet path runs there), never while another settles it. BHs disabled.
 */
void pd_defer_drain(struct pd_net *pn, struct pd_filter_set *fs, int cpu)
{
	struct pd_cpu_stats *st = per_cpu_ptr(fs->stats, cpu);
	struct pd_defer *q = per_cpu_ptr(fs->defer, cpu);
	struct pd_filter *f = NULL;
	struct pd_defer_ent e;
	u32 mark = 0;

	if (!fs->shards.n)
		f = per_cpu_ptr(fs->pcpu, cpu);
	while (pd_defer_pop(q, &e)) {
		if (!pd_run(pn, fs, f, cpu, e.h, &e.pi))
			continue;
		u64_stats_update_begin(&st->syncp);
		pd_act(fs, st, pd_dev_stats_of(st, fs, e.tag), &mark);
		u64_stats_update_end(&st->syncp);
	}
}

/*
 * The judgement of one packet whose key was extracted (r, pkt, key): run
 * the filter, count (in the named device dev's counters too, if dev >= 0),
 * act; the source analytics see every selected packet whose addresses are
 * known, between the filter's prefetch and its step. With action count
 * the step is the packet kept before this one's (pd_judge_later()).
 * *mark is the packet's mark (action mark sets it). Whether to drop it.
 * Of a frame that is not IP (family 0: pd_judge_nonip()), only pkt's
 * family, encapsulations and DSCP are read. BHs disabled.
 */
static bool pd_judge(struct pd_net *pn, struct pd_filter_set *fs,
		     enum pd_parse_result r, const struct pd_pkt *pkt,
		     const struct pd_key *key, u32 *mark, int dev)
{
	struct pd_cpu_stats *st = this_cpu_ptr(fs->stats);
	struct pd_filter *f = NULL;
	struct pd_dev_stats *ds;
	/* not zeroed for every packet: each field is set before it is read */
	struct pd_src_ref sr __uninitialized;
	struct pd_pktinfo pi __uninitialized;
	bool dup, drop = false;
	u64 h;

	/* traffic selection by protocol, once the header says it */
	if (pkt->family && !pkt->l4_err && !fs->any_proto &&
	    !pd_select_proto_bit(fs->cfg.sel.protos, pkt->proto))
		return false;
	/*
	 * the analytics' window, its line asked for while the key is hashed;
	 * none without addresses to count (no IP header read, or a frame
	 * that is not IP under nonip dedup)
	 */
	if (likely(pkt->family))
		pd_srcs_find(pn, &sr);
	else
		sr.c = NULL;
	if (unlikely(pkt->encaps | pkt->bad_encap))
		pd_count_encaps(st, pkt);
	if (unlikely(r != PD_PARSE_OK)) {
		pd_srcs_add(&sr, pkt);
		u64_stats_update_begin(&st->syncp);
		/* a tunnel that carries ARP, ...: a frame that is not IP */
		if (r == PD_PARSE_NOT_IP)
			u64_stats_inc(&st->nonip);
		else
			u64_stats_inc(&st->unparsed);
		u64_stats_update_end(&st->syncp);
		return false;
	}
	ds = pd_dev_stats_of(st, fs, dev);
	pi.dscp = pkt->dscp;
	pi.mark = *mark;
	/* time windows: one clock read, ns, the same clock on every CPU */
	pi.now = fs->timed ? ktime_get_mono_fast_ns() : 0;
	if (fs->shards.n) {
		/* one filter in shards: the hash names the shard */
		h = pd_shards_hash(&fs->shards, key);
		pd_filter_prefetch(&pd_shard_of(&fs->shards, h)->f, h);
	} else {
		f = this_cpu_ptr(fs->pcpu);
		if (unlikely(!f->ops)) {
			/* no filter on this CPU (cpus.c): passed, counted */
			pd_srcs_add(&sr, pkt);
			u64_stats_update_begin(&st->syncp);
			u64_stats_inc(&st->unjudged);
			u64_stats_update_end(&st->syncp);
			return false;
		}
		h = pd_filter_hash(f, key);
		pd_filter_prefetch(f, h);
	}
	/* the source analytics while the filter's line comes */
	pd_srcs_add(&sr, pkt);
	if (fs->defer) {
		pd_judge_later(pn, fs, st, ds, f, h, &pi, dev);
		return false;
	}
	dup = pd_run(pn, fs, f, smp_processor_id(), h, &pi);

	/* the device's counters in the same section: one reader's retry */
	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->packets);
	if (ds)
		u64_stats_inc(&ds->packets);
	if (dup)
		drop = pd_act(fs, st, ds, mark);
	u64_stats_update_end(&st->syncp);
	return drop;
}

/*
 * Ask for this CPU's lines of the judgement (its counters, its queue of
 * deferred steps, its filter's struct, the way to its source windows)
 * before the key is parsed: their misses overlap the parse instead of
 * following one another after it. The source windows' own line comes
 * after the parse: it is found through the lines asked for here
 * (pd_srcs_ask()). BHs disabled.
 */
static __always_inline void pd_judge_prefetch(const struct pd_net *pn,
					      const struct pd_filter_set *fs)
{
	pd_srcs_ask(pn);
	prefetchw(this_cpu_ptr(fs->stats));
	if (fs->defer)
		prefetchw(this_cpu_ptr(fs->defer));
	if (!fs->shards.n) {
		const struct pd_filter *f = this_cpu_ptr(fs->pcpu);

		prefetch(f);
		prefetch((const u8 *)f + SMP_CACHE_BYTES);
	}
}

/*
 * One packet through the filters fs of instance pn: the verdict. dev: the
 * index of its device among the named ones, or -1.
 */
unsigned int pd_process(struct pd_net *pn, struct pd_filter_set *fs,
			struct sk_buff *skb, u32 l3, int dev)
{
	enum pd_parse_result r;
	/*
	 * Not zeroed for every packet (CONFIG_INIT_STACK_ALL_ZERO would):
	 * pd_skb_key() and the parser write all that is read of them.
	 */
	struct pd_pkt pkt __uninitialized;
	struct pd_key key __uninitialized;
	bool drop;

	local_bh_disable();
	pd_judge_prefetch(pn, fs);
	r = pd_skb_key(skb, fs, this_cpu_ptr(pd_scratch)->buf, &pkt, &key, l3);
	drop = pd_judge(pn, fs, r, &pkt, &key, &skb->mark, dev);
	local_bh_enable();
	return drop ? NF_DROP : NF_ACCEPT;
}

/* A frame that is not IP at an L2 hook: counted, passed. */
static unsigned int pd_nonip(const struct pd_filter_set *fs)
{
	struct pd_cpu_stats *st;

	local_bh_disable();
	st = this_cpu_ptr(fs->stats);
	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->nonip);
	u64_stats_update_end(&st->syncp);
	local_bh_enable();
	return NF_ACCEPT;
}

/*
 * A frame that is not IP, under nonip dedup, its key extracted (r, key):
 * counted in nonip, then judged as a packet, unless its key could not be
 * read or the protocol selection names protocols (IP's: a frame that is
 * not IP has none). Whether to drop it. BHs disabled.
 */
static bool pd_judge_nonip(struct pd_net *pn, struct pd_filter_set *fs,
			   enum pd_parse_result r, const struct pd_key *key,
			   u32 *mark, int dev)
{
	struct pd_cpu_stats *st = this_cpu_ptr(fs->stats);
	/* what pd_judge() reads of a packet without a family, set below */
	struct pd_pkt pkt __uninitialized;

	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->nonip);
	u64_stats_update_end(&st->syncp);
	if (r != PD_PARSE_OK || !fs->any_proto)
		return false;
	/* no family: no address, no protocol; no encapsulation, no DSCP */
	pkt.family = 0;
	pkt.encaps = 0;
	pkt.bad_encap = 0;
	pkt.dscp = 0;
	return pd_judge(pn, fs, r, &pkt, key, mark, dev);
}

/*
 * A frame that is not IP at an skb hook, under nonip dedup: its key from
 * skb->protocol (the kernel took one tag off) and the bytes from the
 * network header on (pd_key_nonip): the first PD_KEY_NONIP_ROOM in one
 * piece (in place, or copied to scratch), the rest read where they are.
 */
static unsigned int pd_nonip_skb(struct pd_net *pn, struct pd_filter_set *fs,
				 struct sk_buff *skb, int dev)
{
	int off = skb_network_offset(skb);
	enum pd_parse_result r = PD_PARSE_TRUNCATED;
	/* not zeroed for every frame: pd_key_nonip() writes what is read */
	struct pd_key key __uninitialized;
	struct pd_nh nh __uninitialized;
	u32 whole, view;
	const u8 *p;
	bool drop;

	local_bh_disable();
	whole = skb->len - off;
	view = min_t(u32, whole, PD_KEY_NONIP_ROOM);
	if (off + view <= skb_headlen(skb)) {
		p = skb->data + off;
		view = skb_headlen(skb) - off;
	} else {
		p = skb_header_pointer(skb, off, view,
				       this_cpu_ptr(pd_scratch)->buf);
	}
	if (p)
		r = pd_key_nonip(p, view, whole, ntohs(skb->protocol),
				 &fs->kopts, &key, &nh);
	if (r == PD_PARSE_OK && key.more_len) {
		if (pd_skb_feed(skb, off + key.more_off, key.more_len, &nh))
			pd_key_close(&key, &nh);
		else
			r = PD_PARSE_TRUNCATED;
	}
	drop = pd_judge_nonip(pn, fs, r, &key, &skb->mark, dev);
	local_bh_enable();
	return drop ? NF_DROP : NF_ACCEPT;
}

/* Which of the named devices that are there dev is, or -1. */
static int pd_hooks_match(const struct pd_hooks *h,
			  const struct net_device *dev)
{
	unsigned int i;

	if (!dev)
		return -1;
	for (i = 0; i < h->ndev; i++)
		if (READ_ONCE(h->ifindex[i]) == dev->ifindex)
			return i;
	return -1;
}

/*
 * At an L2 hook, a frame that is not IP on its face: VLAN tags the kernel
 * left on (it takes one off before these hooks) or MPLS labels may carry
 * IP, found as dedup-sim finds it in a capture (pd_l2_skip); else it is
 * counted as non-IP and passed, or under nonip dedup also keyed and
 * judged (pd_nonip_skb). Only such frames read these bytes.
 */
static unsigned int pd_l2_inner(struct pd_net *pn, struct pd_filter_set *fs,
				struct sk_buff *skb, int dev)
{
	int off = skb_network_offset(skb);
	unsigned int tags = 0;
	u8 buf[PD_L2_ROOM] __uninitialized;	/* read where copied to */
	const u8 *p;
	u32 len, l3;

	if (off < 0 || skb->len <= (unsigned int)off)
		return pd_nonip(fs);
	len = min_t(u32, skb->len - off, sizeof(buf));
	p = skb_header_pointer(skb, off, len, buf);
	if (p && pd_l2_skip(p, len, ntohs(skb->protocol), &l3, &tags) ==
		 PD_L2_IP)
		return pd_process(pn, fs, skb, l3, dev);
	if (fs->kopts.flags & PKTDEDUP_KEY_F_NONIP)
		return pd_nonip_skb(pn, fs, skb, dev);
	return pd_nonip(fs);
}

/*
 * The netfilter hook of every placement: the packet path's entry. priv is
 * &hooks->idx[i] of ops i: at a per-device placement, i is the named
 * device the hook is on; elsewhere the device is matched by ifindex.
 */
unsigned int pd_hook(void *priv, struct sk_buff *skb,
		     const struct nf_hook_state *state)
{
	unsigned int slot;
	const struct pd_hooks *hooks = pd_hooks_of(priv, &slot);
	struct pd_filter_set *fs = rcu_dereference(hooks->pn->filters);
	int dev = -1;

	if (likely(fs))
		pd_fset_prefetch(fs);

	/*
	 * While a hook point changes, the old and the new hooks are both
	 * registered for a moment: only the generation the filters were
	 * built for acts.
	 */
	if (unlikely(!fs || fs->hook_gen != hooks->gen))
		return NF_ACCEPT;
	/* traffic selection: before anything is read of the packet */
	if (!pd_mark_match(skb->mark, fs->sel_mark_value, fs->sel_mark_mask))
		return NF_ACCEPT;
	if (hooks->per_dev) {
		dev = slot;
	} else if (hooks->match_dev) {
		dev = pd_hooks_match(hooks, state->in ?: state->out);
		if (dev < 0)
			return NF_ACCEPT;
	}
	if (hooks->l2 && skb->protocol != htons(ETH_P_IP) &&
	    skb->protocol != htons(ETH_P_IPV6))
		return pd_l2_inner(hooks->pn, fs, skb, dev);
	return pd_process(hooks->pn, fs, skb, 0, dev);
}

/*
 * Bytes [from, from + len) of an XDP frame (its first buffer, then its
 * fragments' in order) into nh, or copied to dst if nh is NULL. Whether
 * all were there.
 */
static bool pd_xdp_bytes(const struct xdp_buff *xdp, u32 from, u32 len,
			 struct pd_nh *nh, u8 *dst)
{
	const struct skb_shared_info *si = NULL;
	u32 first = xdp->data_end - xdp->data, n, at = 0, i = 0;
	const u8 *p = xdp->data;

	if (xdp_buff_has_frags((struct xdp_buff *)xdp))
		si = xdp_get_shared_info_from_buff((struct xdp_buff *)xdp);
	for (n = first; len; ) {
		if (from < at + n) {
			u32 k = min(len, at + n - from);

			if (nh)
				pd_nh_update(nh, p + (from - at), k);
			else
				memcpy(dst, p + (from - at), k);
			dst += nh ? 0 : k;
			from += k;
			len -= k;
		}
		at += n;
		if (!len || !si || i >= si->nr_frags)
			break;
		p = skb_frag_address(&si->frags[i]);
		n = skb_frag_size(&si->frags[i]);
		i++;
	}
	return !len;
}

/*
 * A frame that is not IP at an XDP hook, under nonip dedup: its key from
 * its protocol field type and the bytes after its Ethernet header
 * (pd_key_nonip), the first PD_KEY_NONIP_ROOM in one piece (copied to
 * scratch if its first buffer holds fewer), the rest read from its
 * fragments. Whether to drop it.
 */
static bool pd_xdp_nonip(struct pd_net *pn, struct pd_filter_set *fs,
			 const struct xdp_buff *xdp, u16 type, int dev)
{
	u32 whole = xdp_get_buff_len((struct xdp_buff *)xdp) - ETH_HLEN;
	u32 view = xdp->data_end - xdp->data - ETH_HLEN, mark = 0;
	enum pd_parse_result r = PD_PARSE_TRUNCATED;
	const u8 *p = xdp->data + ETH_HLEN;
	/* as in pd_nonip_skb() */
	struct pd_key key __uninitialized;
	struct pd_nh nh __uninitialized;
	bool drop;

	local_bh_disable();
	if (view < min_t(u32, whole, PD_KEY_NONIP_ROOM)) {
		/* its first bytes past the first buffer: in one piece */
		view = min_t(u32, whole, PD_KEY_NONIP_ROOM);
		p = this_cpu_ptr(pd_scratch)->buf;
		if (!pd_xdp_bytes(xdp, ETH_HLEN, view, NULL, (u8 *)p))
			p = NULL;
	}
	if (p)
		r = pd_key_nonip(p, view, whole, type, &fs->kopts, &key, &nh);
	if (r == PD_PARSE_OK && key.more_len) {
		if (pd_xdp_bytes(xdp, ETH_HLEN + key.more_off, key.more_len,
				 &nh, NULL))
			pd_key_close(&key, &nh);
		else
			r = PD_PARSE_TRUNCATED;
	}
	drop = pd_judge_nonip(pn, fs, r, &key, &mark, dev);
	local_bh_enable();
	return drop;
}

/*
 * A frame at an XDP hook of instance pn, as the driver has it: its first
 * buffer holds the link-layer headers, from its Ethernet header, or from
 * its IP header on a device without a link layer (l3: tun, wireguard,
 * ipip); a multi-buffer frame's further buffers hold the rest, which the
 * packet key reads as it reads a paged skb's. VLAN tags and MPLS labels
 * are skipped as at the other L2 hooks (no tag is taken off by the
 * hardware before XDP); a frame too short for its headers is counted as
 * unparsed, one that carries no IP as non-IP. The kfunc found the frame's
 * device among hooks' (xdp.c): named device dev. Whether to drop it. Under
 * rcu_read_lock(), as XDP programs run.
 */
bool pd_xdp_frame(struct pd_net *pn, const struct pd_hooks *hooks,
		  const struct xdp_buff *xdp, bool l3, int dev)
{
	struct pd_filter_set *fs = rcu_dereference(pn->filters);
	const u8 *data = xdp->data;
	u32 len = xdp->data_end - xdp->data;
	enum pd_parse_result r = PD_PARSE_TRUNCATED;
	u32 off = len, mark = 0, whole, view;
	unsigned int tags = 0;
	const u8 *ip = NULL;
	/* not zeroed for every frame: as in pd_process() */
	struct pd_pkt pkt __uninitialized;
	struct pd_key key __uninitialized;
	struct pd_nh nh __uninitialized;
	__be16 proto;
	bool drop;

	/* a generation of hooks acts only with the filters built for it */
	if (unlikely(!fs || fs->hook_gen != hooks->gen))
		return false;
	pkt.family = 0;
	pkt.encaps = 0;
	pkt.bad_encap = 0;
	if (l3) {
		/* the IP version tells the protocol */
		if (len && (data[0] >> 4 != 4 && data[0] >> 4 != 6)) {
			pd_nonip(fs);
			return false;
		}
		off = 0;
	} else if (len >= ETH_HLEN) {
		proto = ((const struct ethhdr *)data)->h_proto;
		off = 0;
		if (proto != htons(ETH_P_IP) && proto != htons(ETH_P_IPV6) &&
		    pd_l2_skip(data + ETH_HLEN, len - ETH_HLEN, ntohs(proto),
			       &off, &tags) != PD_L2_IP) {
			if (fs->kopts.flags & PKTDEDUP_KEY_F_NONIP)
				return pd_xdp_nonip(pn, fs, xdp, ntohs(proto),
						    dev);
			pd_nonip(fs);
			return false;
		}
		off += ETH_HLEN;
	}
	local_bh_disable();
	pd_judge_prefetch(pn, fs);
	whole = xdp_get_buff_len((struct xdp_buff *)xdp);
	if (len > off) {
		whole -= off;
		view = len - off;
		ip = data + off;
		if (view < min_t(u32, whole, fs->copy_len)) {
			/* headers past the first buffer: in one piece */
			view = min_t(u32, whole, fs->copy_len);
			ip = this_cpu_ptr(pd_scratch)->buf;
			if (!pd_xdp_bytes(xdp, off, view, NULL, (u8 *)ip))
				ip = NULL;
		}
	}
	if (ip) {
		r = pd_parse_key_open(ip, view, whole, &fs->kopts, &pkt, &key,
				      &nh);
		if (r == PD_PARSE_OK && key.more_len) {
			if (pd_xdp_bytes(xdp, off + key.more_off, key.more_len,
					 &nh, NULL))
				pd_key_close(&key, &nh);
			else
				r = PD_PARSE_TRUNCATED;
		}
	}
	drop = pd_judge(pn, fs, r, &pkt, &key, &mark, dev);
	local_bh_enable();
	return drop;
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
