// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the module itself (kernel only): keys from real skbs,
 * linear and paged; the hook's verdicts and actions; the reconfiguration
 * swap and its all-or-nothing behaviour.
 */
#include <kunit/test.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/netfilter.h>
#include <linux/skbuff.h>
#include <linux/bpf.h>
#include <net/xdp.h>
#include <linux/udp.h>
#include <linux/vmalloc.h>
#include <linux/vmstat.h>
#include <net/net_namespace.h>

#include "../../../module/core/rng.h"
#include "../../../module/core/timewin.h"
#include "../../../module/nl_gen.h"
#include "../../../module/pktdedup.h"
#include "../../../module/sources/src_internal.h"

#define PAYLOAD 200

/* IPv4 (or IPv6) UDP packet i into buf; returns its length. */
static u32 pd_t_packet(u8 *buf, bool v6, u32 i, u8 ttl)
{
	u32 hl = v6 ? 40 : 20, len = hl + 8 + PAYLOAD, k;
	u8 *udp = buf + hl;

	memset(buf, 0, len);
	if (v6) {
		buf[0] = 0x60;
		buf[4] = (u8)((len - 40) >> 8);
		buf[5] = (u8)(len - 40);
		buf[6] = IPPROTO_UDP;
		buf[7] = ttl;
		buf[8] = 0x20;
		buf[23] = 1;
		buf[24] = 0x20;
		buf[39] = 2;
	} else {
		buf[0] = 0x45;
		buf[2] = (u8)(len >> 8);
		buf[3] = (u8)len;
		buf[5] = (u8)i;
		buf[8] = ttl;
		buf[9] = IPPROTO_UDP;
		buf[12] = 10;
		buf[15] = 1;
		buf[16] = 10;
		buf[19] = 2;
	}
	udp[0] = 0x4e;
	udp[1] = (u8)i;
	udp[3] = 53;
	udp[5] = 8 + PAYLOAD;
	for (k = 0; k < PAYLOAD; k++)
		udp[8 + k] = (u8)(i * 31 + k);
	return len;
}

/*
 * An skb holding bytes[0..len) from its network header: all linear, or
 * only the first `linear` bytes linear and the rest in a page fragment.
 */
static struct sk_buff *pd_t_skb(struct kunit *test, const u8 *bytes, u32 len,
				u32 linear)
{
	struct sk_buff *skb = alloc_skb(64 + len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, 64);
	skb_reset_network_header(skb);
	if (linear >= len) {
		skb_put_data(skb, bytes, len);
	} else {
		struct page *page = alloc_page(GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, page);
		skb_put_data(skb, bytes, linear);
		memcpy(page_address(page), bytes + linear, len - linear);
		skb_add_rx_frag(skb, 0, page, 0, len - linear, PAGE_SIZE);
		KUNIT_EXPECT_TRUE(test, skb_is_nonlinear(skb));
	}
	return skb;
}

/*
 * Filters for testing the module's logic, not the filter's statistics:
 * P = 0 (a plain Bloom filter never forgets, so no copy is missed) and
 * 2^19 cells for a few dozen packets (a false positive has probability
 * below 1e-11), with fixed seeds.
 */
static struct pd_filter_set *pd_t_filters_mem(struct kunit *test, u8 key,
					      u8 action, u64 mem)
{
	struct pd_config cfg;
	struct pd_filter_set *fs;
	struct pd_filter_plan plan;
	int cpu;

	pd_config_defaults(&cfg);
	cfg.key = key;
	cfg.action = action;
	cfg.mark_value = 0x10;
	cfg.mark_mask = 0xff;
	cfg.filter.mem_bytes = mem;
	pd_sbf_req(&cfg.filter)->k = 3;
	pd_sbf_req(&cfg.filter)->p = 0;
	KUNIT_ASSERT_EQ(test, pd_fset_plan(NULL, &cfg, &plan, NULL), 0);
	fs = pd_fset_build(&cfg, &plan, nr_cpu_ids, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(fs));
	for_each_possible_cpu(cpu)
		if (pd_fset_cpu(fs, cpu))
			pd_filter_set_seeds(pd_fset_get(fs, cpu), 11 + cpu,
					    23 + cpu, 5);
	return fs;
}

static struct pd_filter_set *pd_t_filters(struct kunit *test, u8 key, u8 action)
{
	return pd_t_filters_mem(test, key, action, 64 << 10);
}

/*
 * One packet, one key mode: every split gives the flat bytes' key. With
 * frag, an IPv4 packet becomes a later fragment (offset 1480, no L4
 * header in it).
 */
static void pd_t_skb_keys_one(struct kunit *test, u8 *buf, u8 *scratch,
			      bool v6, bool frag, u8 mode)
{
	static const u32 splits[] = { 8, 20, 28, 40, 60, 100 };
	struct pd_filter_set *fs = pd_t_filters(test, mode, PKTDEDUP_ACTION_COUNT);
	static const struct pd_hkey hk = { { 1, 2 } };
	u32 len = pd_t_packet(buf, v6, 7, 64), s;
	u64 want;
	struct pd_key flat, k;
	struct pd_pkt pkt;
	enum pd_parse_result r;

	if (frag) {
		buf[6] = 0x00;
		buf[7] = 1480 / 8;
	}
	r = pd_key_extract(buf, len, &fs->kopts, &flat);
	KUNIT_ASSERT_EQ(test, (int)r, PD_PARSE_OK);
	/* no ports in a later fragment: after the addresses, family, proto */
	if (frag && mode == PKTDEDUP_KEY_FLOW)
		KUNIT_EXPECT_EQ(test, pd_load_le32(flat.buf + flat.len - 4), 0u);
	want = pd_key_hash64(&flat, &hk);
	for (s = 0; s < ARRAY_SIZE(splits); s++) {
		struct sk_buff *skb = pd_t_skb(test, buf, len, splits[s]);

		r = pd_skb_key(skb, fs, scratch, &pkt, &k, 0);
		KUNIT_EXPECT_EQ(test, (int)r, PD_PARSE_OK);
		KUNIT_EXPECT_EQ_MSG(test, pd_key_hash64(&k, &hk), want,
				    "v6 %d frag %d mode %u linear %u", v6, frag,
				    mode, splits[s]);
		kfree_skb(skb);
	}
	pd_fset_free(fs);
}

/*
 * Keys from linear and paged skbs equal the keys of the flat bytes: IPv4,
 * IPv6 and an IPv4 later fragment, every key mode.
 */
static void pd_t_skb_keys(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, 512, GFP_KERNEL);
	u8 *scratch = kunit_kzalloc(test, PD_SCRATCH, GFP_KERNEL);
	unsigned int kind, mode;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, scratch);
	for (kind = 0; kind < 3; kind++)
		for (mode = 0; mode < PD_KEY_NMODES; mode++)
			pd_t_skb_keys_one(test, buf, scratch, kind == 1,
					  kind == 2, mode);
}

/*
 * A packet behind a VLAN tag left on and behind MPLS labels (what the L2
 * hooks hand pd_l2_skip()): with the offset it finds, every split of the
 * skb gives the key of the bare packet.
 */
static void pd_t_skb_keys_behind_tags(struct kunit *test)
{
	static const u8 heads[][8] = {
		{ 0x00, 0x0a, 0x08, 0x00 },			/* 802.1Q */
		{ 0x00, 0x01, 0x00, 0x40, 0x00, 0x02, 0x01, 0x40 },	/* MPLS */
	};
	static const u16 types[] = { 0x8100, 0x8847 };
	static const u32 hlen[] = { 4, 8 }, splits[] = { 4, 12, 30, 200 };
	static const struct pd_hkey hk = { { 1, 2 } };
	u8 *buf = kunit_kzalloc(test, 512, GFP_KERNEL);
	u8 *scratch = kunit_kzalloc(test, PD_SCRATCH, GFP_KERNEL);
	struct pd_filter_set *fs = pd_t_filters(test, PKTDEDUP_KEY_PACKET,
					     PKTDEDUP_ACTION_COUNT);
	unsigned int i, s, tags;
	struct pd_key flat, k;
	struct pd_pkt pkt;
	u32 len, l3;
	u64 want;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, scratch);
	len = pd_t_packet(buf + 8, false, 3, 64);
	KUNIT_ASSERT_EQ(test, (int)pd_key_extract(buf + 8, len, &fs->kopts,
						  &flat), PD_PARSE_OK);
	want = pd_key_hash64(&flat, &hk);
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		u8 *frame = buf + 8 - hlen[i];

		memcpy(frame, heads[i], hlen[i]);
		tags = 0;
		KUNIT_ASSERT_EQ(test, (int)pd_l2_skip(frame, hlen[i] + len,
						      types[i], &l3, &tags),
				PD_L2_IP);
		KUNIT_EXPECT_EQ(test, l3, hlen[i]);
		for (s = 0; s < ARRAY_SIZE(splits); s++) {
			struct sk_buff *skb = pd_t_skb(test, frame,
						       hlen[i] + len,
						       splits[s]);

			KUNIT_EXPECT_EQ(test, (int)pd_skb_key(skb, fs, scratch,
							      &pkt, &k, l3),
					PD_PARSE_OK);
			KUNIT_EXPECT_EQ(test, pd_key_hash64(&k, &hk), want);
			kfree_skb(skb);
		}
	}
	pd_fset_free(fs);
}

/* A short or garbled skb is "cannot parse", whatever its layout. */
static void pd_t_skb_truncated(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, 512, GFP_KERNEL);
	u8 *scratch = kunit_kzalloc(test, PD_SCRATCH, GFP_KERNEL);
	struct pd_filter_set *fs = pd_t_filters(test, PKTDEDUP_KEY_FLOW,
					     PKTDEDUP_ACTION_COUNT);
	struct sk_buff *skb;
	struct pd_pkt pkt;
	struct pd_key k;
	u32 len = pd_t_packet(buf, false, 1, 64);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, scratch);
	skb = pd_t_skb(test, buf, 22, 22);	/* IP header and 2 bytes */
	KUNIT_EXPECT_EQ(test, (int)pd_skb_key(skb, fs, scratch, &pkt, &k, 0),
			PD_PARSE_TRUNCATED);
	kfree_skb(skb);
	skb = pd_t_skb(test, buf, 12, 4);	/* paged and short */
	KUNIT_EXPECT_EQ(test, (int)pd_skb_key(skb, fs, scratch, &pkt, &k, 0),
			PD_PARSE_TRUNCATED);
	kfree_skb(skb);
	buf[0] = 0x75;				/* version 7 */
	skb = pd_t_skb(test, buf, len, 40);
	KUNIT_EXPECT_EQ(test, (int)pd_skb_key(skb, fs, scratch, &pkt, &k, 0),
			PD_PARSE_BAD_VERSION);
	kfree_skb(skb);
	pd_fset_free(fs);
}

static struct pd_counters *pd_t_ctr(struct pd_net *pn)
{
	return rcu_dereference_protected(pn->ctr, true);
}

/* An instance with no hooks, for pd_process(). */
static struct pd_net *pd_t_net(struct kunit *test)
{
	struct pd_net *pn = kunit_kzalloc(test, sizeof(*pn), GFP_KERNEL);
	struct pd_counters *ctr = kunit_kzalloc(test, sizeof(*ctr),
						GFP_KERNEL);
	int cpu;

	KUNIT_ASSERT_NOT_NULL(test, pn);
	KUNIT_ASSERT_NOT_NULL(test, ctr);
	ctr->cpu = alloc_percpu(struct pd_cpu_stats);
	ctr->base = alloc_percpu(struct pd_counts);
	KUNIT_ASSERT_NOT_NULL(test, ctr->cpu);
	KUNIT_ASSERT_NOT_NULL(test, ctr->base);
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(ctr->cpu, cpu)->syncp);
	RCU_INIT_POINTER(pn->ctr, ctr);
	mutex_init(&pn->lock);
	mutex_init(&pn->src.read_lock);
	return pn;
}

static void pd_t_net_free(struct pd_net *pn)
{
	free_percpu(pd_t_ctr(pn)->cpu);
	free_percpu(pd_t_ctr(pn)->base);
}

/* One packet through pd_process(), counted in pn's counters. */
static unsigned int pd_t_process(struct pd_net *pn, struct pd_filter_set *fs,
				 struct sk_buff *skb)
{
	unsigned int v;

	fs->stats = pd_t_ctr(pn)->cpu;
	rcu_read_lock();
	v = pd_process(pn, fs, skb, 0, -1);
	rcu_read_unlock();
	return v;
}

/* pn's counters, fs's deferred steps (action count) settled first */
static void pd_t_totals(struct pd_net *pn, struct pd_filter_set *fs,
			struct pd_counts *t)
{
	struct pd_counts c;
	int cpu;

	pd_defer_settle(pn, fs);
	memset(t, 0, sizeof(*t));
	for_each_possible_cpu(cpu) {
		pd_counters_read(pd_t_ctr(pn), cpu, &c);
		pd_counts_add(t, &c);
	}
}

/* Run packet i through pd_process; returns the verdict, *mark the mark. */
static unsigned int pd_t_run(struct kunit *test, struct pd_net *pn,
			     struct pd_filter_set *fs, u32 i, u8 ttl, u32 *mark)
{
	u8 buf[300];
	u32 len = pd_t_packet(buf, i & 1, i, ttl);
	struct sk_buff *skb = pd_t_skb(test, buf, len, len);
	unsigned int v;

	skb->mark = 0xabcd0001;
	v = pd_t_process(pn, fs, skb);
	*mark = skb->mark;
	kfree_skb(skb);
	return v;
}

/* First copies pass untouched; duplicates are counted, marked or dropped. */
static void pd_t_actions(struct kunit *test)
{
	static const u8 actions[] = { PKTDEDUP_ACTION_COUNT, PKTDEDUP_ACTION_MARK,
				      PKTDEDUP_ACTION_DROP };
	unsigned int a, i;

	for (a = 0; a < ARRAY_SIZE(actions); a++) {
		struct pd_net *pn = pd_t_net(test);
		struct pd_filter_set *fs = pd_t_filters(test, PKTDEDUP_KEY_PACKET,
						     actions[a]);
		struct pd_counts t;
		u32 mark;

		for (i = 0; i < 20; i++) {
			KUNIT_EXPECT_EQ(test, pd_t_run(test, pn, fs, i, 64, &mark),
					(unsigned int)NF_ACCEPT);
			KUNIT_EXPECT_EQ(test, mark, 0xabcd0001u);
		}
		/* the same packets again, one hop later (TTL - 1) */
		for (i = 0; i < 20; i++) {
			unsigned int v = pd_t_run(test, pn, fs, i, 63, &mark);

			switch (actions[a]) {
			case PKTDEDUP_ACTION_COUNT:
				KUNIT_EXPECT_EQ(test, v, (unsigned int)NF_ACCEPT);
				KUNIT_EXPECT_EQ(test, mark, 0xabcd0001u);
				break;
			case PKTDEDUP_ACTION_MARK:
				/* --set-xmark 0x10/0xff */
				KUNIT_EXPECT_EQ(test, v, (unsigned int)NF_ACCEPT);
				KUNIT_EXPECT_EQ(test, mark, 0xabcd0010u);
				break;
			case PKTDEDUP_ACTION_DROP:
				KUNIT_EXPECT_EQ(test, v, (unsigned int)NF_DROP);
				break;
			}
		}
		pd_t_totals(pn, fs, &t);
		KUNIT_EXPECT_EQ(test, t.packets, 40ULL);
		KUNIT_EXPECT_EQ(test, t.duplicates, 20ULL);
		KUNIT_EXPECT_EQ(test, t.marked,
				actions[a] == PKTDEDUP_ACTION_MARK ? 20ULL : 0ULL);
		KUNIT_EXPECT_EQ(test, t.dropped,
				actions[a] == PKTDEDUP_ACTION_DROP ? 20ULL : 0ULL);
		pd_fset_free(fs);
		pd_t_net_free(pn);
	}
}

/*
 * Action count keeps each CPU's steps in a queue as deep as its filter
 * needs: one packet for a filter in the caches, PD_DEFER_DEEP from
 * PD_PLAN_LINE_BYTES. The steps kept wait there until later packets or a
 * reader settle them, and the totals then count every duplicate.
 */
static void pd_t_defer_depth(struct kunit *test)
{
	static const u64 mems[] = { 64 << 10, PD_PLAN_LINE_BYTES };
	unsigned int m, i;

	for (m = 0; m < ARRAY_SIZE(mems); m++) {
		struct pd_net *pn = pd_t_net(test);
		struct pd_filter_set *fs;
		u32 depth = m ? PD_DEFER_DEEP : 1, kept = 0, mark;
		struct pd_counts t;
		int cpu;

		fs = pd_t_filters_mem(test, PKTDEDUP_KEY_PACKET,
				      PKTDEDUP_ACTION_COUNT, mems[m]);
		for_each_possible_cpu(cpu)
			KUNIT_EXPECT_EQ(test,
					per_cpu_ptr(fs->defer, cpu)->depth,
					depth);
		/* all on one CPU: its queue full, the rest stepped */
		migrate_disable();
		for (i = 0; i < 2 * PD_DEFER_DEEP; i++)
			pd_t_run(test, pn, fs, i % PD_DEFER_DEEP,
				 64 - i / PD_DEFER_DEEP, &mark);
		migrate_enable();
		for_each_possible_cpu(cpu)
			kept += per_cpu_ptr(fs->defer, cpu)->n;
		KUNIT_EXPECT_EQ(test, kept, depth);
		pd_t_totals(pn, fs, &t);
		for_each_possible_cpu(cpu)
			KUNIT_EXPECT_EQ(test, per_cpu_ptr(fs->defer, cpu)->n, 0u);
		KUNIT_EXPECT_EQ(test, t.packets, 2ULL * PD_DEFER_DEEP);
		KUNIT_EXPECT_EQ(test, t.duplicates, (u64)PD_DEFER_DEEP);
		pd_fset_free(fs);
		pd_t_net_free(pn);
	}
}

/* Packet i through pd_process() as if on named device dev (-1: none). */
static unsigned int pd_t_run_dev(struct kunit *test, struct pd_net *pn,
				 struct pd_filter_set *fs, u32 i, u8 ttl,
				 int dev)
{
	u8 buf[300];
	u32 len = pd_t_packet(buf, i & 1, i, ttl);
	struct sk_buff *skb = pd_t_skb(test, buf, len, len);
	unsigned int v;

	fs->stats = pd_t_ctr(pn)->cpu;
	rcu_read_lock();
	v = pd_process(pn, fs, skb, 0, dev);
	rcu_read_unlock();
	kfree_skb(skb);
	return v;
}

/* The names of sel: n of them from names. */
static void pd_t_sel_devs(struct pd_select *sel, const char *const *names,
			  unsigned int n)
{
	unsigned int i;

	memset(sel, 0, sizeof(*sel));
	sel->ndev = n;
	for (i = 0; i < n; i++)
		strscpy(sel->dev[i], names[i], sizeof(sel->dev[i]));
}

/* What pd_net_publish() does with the slots: fs and pn take them. */
static void pd_t_dev_publish(struct pd_net *pn, struct pd_filter_set *fs,
			     const struct pd_select *sel, const u8 *slots)
{
	memcpy(fs->cfg.sel.dev, sel->dev, sizeof(sel->dev));
	fs->cfg.sel.ndev = sel->ndev;
	memcpy(fs->dev_slot, slots, PKTDEDUP_DEVS_MAX);
	pn->cfg.sel = fs->cfg.sel;
	memcpy(pn->dev_slot, slots, PKTDEDUP_DEVS_MAX);
}

/*
 * The named devices' counters: each judged packet counted in its device's
 * slot as in the totals, so that the totals are the devices' sums when
 * every packet came in on a named device; a packet on no named device in
 * the totals alone. A change that keeps a name keeps its slot and counts
 * (wherever the name moves in the list); a new name gets a slot neither
 * the old nor the new names count in, from zero. A hook finds its slot
 * and its hooks from its priv.
 */
static void pd_t_dev_counters(struct kunit *test)
{
	static const char *const first[] = { "tap0", "tap1" };
	static const char *const second[] = { "tap1", "tap2", "tap0" };
	struct pd_net *pn = pd_t_net(test);
	struct pd_filter_set *fs = pd_t_filters(test, PKTDEDUP_KEY_PACKET,
						PKTDEDUP_ACTION_DROP);
	struct pd_dev_counts d[PKTDEDUP_DEVS_MAX];
	u8 slots[PKTDEDUP_DEVS_MAX], again[PKTDEDUP_DEVS_MAX];
	struct pd_hooks *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	struct pd_select sel;
	struct pd_counts t;
	unsigned int i, slot;

	KUNIT_ASSERT_NOT_NULL(test, h);
	for (i = 0; i < PKTDEDUP_DEVS_MAX; i++)
		h->idx[i] = i;
	KUNIT_EXPECT_PTR_EQ(test, pd_hooks_of(&h->idx[5], &slot),
			    (const struct pd_hooks *)h);
	KUNIT_EXPECT_EQ(test, slot, 5u);

	pd_t_sel_devs(&sel, first, 2);
	mutex_lock(&pn->lock);
	KUNIT_ASSERT_EQ(test, pd_devc_assign(pn, &sel, slots, NULL), 0);
	mutex_unlock(&pn->lock);
	KUNIT_ASSERT_NOT_NULL(test, pd_t_ctr(pn)->devc);
	KUNIT_EXPECT_NE(test, slots[0], slots[1]);
	pd_t_dev_publish(pn, fs, &sel, slots);

	/* tap0 the originals, tap1 the copies (a hop later), then 5 more */
	for (i = 0; i < 20; i++)
		KUNIT_EXPECT_EQ(test, pd_t_run_dev(test, pn, fs, i, 64, 0),
				(unsigned int)NF_ACCEPT);
	for (i = 0; i < 20; i++)
		KUNIT_EXPECT_EQ(test, pd_t_run_dev(test, pn, fs, i, 63, 1),
				(unsigned int)NF_DROP);
	pd_dev_counts_read(pd_t_ctr(pn), fs, d);
	KUNIT_EXPECT_EQ(test, d[0].packets, 20ULL);
	KUNIT_EXPECT_EQ(test, d[0].duplicates, 0ULL);
	KUNIT_EXPECT_EQ(test, d[0].dropped, 0ULL);
	KUNIT_EXPECT_EQ(test, d[1].packets, 20ULL);
	KUNIT_EXPECT_EQ(test, d[1].duplicates, 20ULL);
	KUNIT_EXPECT_EQ(test, d[1].marked, 0ULL);
	KUNIT_EXPECT_EQ(test, d[1].dropped, 20ULL);
	pd_t_totals(pn, fs, &t);
	KUNIT_EXPECT_EQ(test, t.packets, d[0].packets + d[1].packets);
	KUNIT_EXPECT_EQ(test, t.duplicates, d[0].duplicates + d[1].duplicates);
	KUNIT_EXPECT_EQ(test, t.dropped, d[0].dropped + d[1].dropped);
	/* on a device not named (an inet hook's unmatched one never gets here) */
	for (i = 100; i < 105; i++)
		pd_t_run_dev(test, pn, fs, i, 64, -1);
	pd_dev_counts_read(pd_t_ctr(pn), fs, d);
	pd_t_totals(pn, fs, &t);
	KUNIT_EXPECT_EQ(test, t.packets, 45ULL);
	KUNIT_EXPECT_EQ(test, d[0].packets + d[1].packets, 40ULL);

	/* tap1 kept (first now), tap0 kept (third), tap2 new */
	pd_t_sel_devs(&sel, second, 3);
	mutex_lock(&pn->lock);
	KUNIT_ASSERT_EQ(test, pd_devc_assign(pn, &sel, again, NULL), 0);
	mutex_unlock(&pn->lock);
	KUNIT_EXPECT_EQ(test, again[0], slots[1]);
	KUNIT_EXPECT_EQ(test, again[2], slots[0]);
	KUNIT_EXPECT_NE(test, again[1], slots[0]);
	KUNIT_EXPECT_NE(test, again[1], slots[1]);
	pd_t_dev_publish(pn, fs, &sel, again);
	pd_t_run_dev(test, pn, fs, 200, 64, 1);
	pd_t_run_dev(test, pn, fs, 200, 63, 1);
	pd_dev_counts_read(pd_t_ctr(pn), fs, d);
	KUNIT_EXPECT_EQ(test, d[0].packets, 20ULL);
	KUNIT_EXPECT_EQ(test, d[0].dropped, 20ULL);
	KUNIT_EXPECT_EQ(test, d[1].packets, 2ULL);
	KUNIT_EXPECT_EQ(test, d[1].dropped, 1ULL);
	KUNIT_EXPECT_EQ(test, d[2].packets, 20ULL);
	KUNIT_EXPECT_EQ(test, d[2].dropped, 0ULL);

	/* tap1 goes, tap3 comes: not in tap1's slot, which the old counts */
	pd_t_sel_devs(&sel, (const char *const[]){ "tap3", "tap2" }, 2);
	mutex_lock(&pn->lock);
	KUNIT_ASSERT_EQ(test, pd_devc_assign(pn, &sel, slots, NULL), 0);
	mutex_unlock(&pn->lock);
	KUNIT_EXPECT_NE(test, slots[0], again[0]);
	KUNIT_EXPECT_NE(test, slots[0], again[2]);
	KUNIT_EXPECT_EQ(test, slots[1], again[1]);
	pd_t_dev_publish(pn, fs, &sel, slots);
	pd_dev_counts_read(pd_t_ctr(pn), fs, d);
	KUNIT_EXPECT_EQ(test, d[0].packets, 0ULL);
	KUNIT_EXPECT_EQ(test, d[1].packets, 2ULL);

	mutex_lock(&pn->lock);
	pd_devc_drop(pn);
	mutex_unlock(&pn->lock);
	KUNIT_EXPECT_NULL(test, pd_t_ctr(pn)->devc);
	pd_fset_free(fs);
	pd_t_net_free(pn);
}

/* CPU cpu's raw counters, nothing settled; and the steps its queue keeps */
static u32 pd_t_kept(struct pd_net *pn, struct pd_filter_set *fs, int cpu,
		     struct pd_counts *c)
{
	pd_counters_read(pd_t_ctr(pn), cpu, c);
	return per_cpu_ptr(fs->defer, cpu)->n;
}

/*
 * Action count: a packet is counted at once and its step taken when the
 * CPU's next packet comes; a reader settles the step kept (on its CPU),
 * in the totals and in the named device's counts, and finds the counts
 * of the actions that judge at once. Mark and drop keep no queue. On one
 * CPU (migration off) so that one queue holds the step.
 */
static void pd_t_deferred(struct kunit *test)
{
	static const char *const taps[] = { "tap0", "tap1" };
	struct pd_net *pn = pd_t_net(test);
	struct pd_filter_set *fs = pd_t_filters(test, PKTDEDUP_KEY_PACKET,
						PKTDEDUP_ACTION_COUNT);
	struct pd_filter_set *mk = pd_t_filters(test, PKTDEDUP_KEY_PACKET,
						PKTDEDUP_ACTION_MARK);
	struct pd_dev_counts d[PKTDEDUP_DEVS_MAX];
	u8 slots[PKTDEDUP_DEVS_MAX];
	struct pd_counts c, t;
	struct pd_select sel;
	unsigned int i;
	u32 mark;
	int cpu;

	KUNIT_ASSERT_NOT_NULL(test, fs->defer);
	KUNIT_EXPECT_NULL(test, mk->defer);
	pd_t_sel_devs(&sel, taps, 2);
	mutex_lock(&pn->lock);
	KUNIT_ASSERT_EQ(test, pd_devc_assign(pn, &sel, slots, NULL), 0);
	mutex_unlock(&pn->lock);
	pd_t_dev_publish(pn, fs, &sel, slots);

	/* tap0 the originals, tap1 each one's copy right after it */
	migrate_disable();
	cpu = smp_processor_id();
	for (i = 0; i < 20; i++) {
		pd_t_run_dev(test, pn, fs, i, 64, 0);
		pd_t_run_dev(test, pn, fs, i, 63, 1);
	}
	/* every packet counted; the last copy's step kept */
	KUNIT_EXPECT_EQ(test, pd_t_kept(pn, fs, cpu, &c), 1u);
	migrate_enable();
	KUNIT_EXPECT_EQ(test, c.packets, 40ULL);
	KUNIT_EXPECT_EQ(test, c.duplicates, 19ULL);
	pd_dev_counts_read(pd_t_ctr(pn), fs, d);
	KUNIT_EXPECT_EQ(test, d[1].packets, 20ULL);
	KUNIT_EXPECT_EQ(test, d[1].duplicates, 19ULL);

	/* a reader settles it: the copy counted on its CPU and device */
	pd_t_totals(pn, fs, &t);
	KUNIT_EXPECT_EQ(test, pd_t_kept(pn, fs, cpu, &c), 0u);
	KUNIT_EXPECT_EQ(test, c.duplicates, 20ULL);
	KUNIT_EXPECT_EQ(test, t.packets, 40ULL);
	KUNIT_EXPECT_EQ(test, t.duplicates, 20ULL);
	KUNIT_EXPECT_EQ(test, t.marked, 0ULL);
	KUNIT_EXPECT_EQ(test, t.dropped, 0ULL);
	pd_dev_counts_read(pd_t_ctr(pn), fs, d);
	KUNIT_EXPECT_EQ(test, d[0].duplicates, 0ULL);
	KUNIT_EXPECT_EQ(test, d[1].duplicates, 20ULL);
	/* again: nothing kept, nothing changes */
	pd_t_totals(pn, fs, &t);
	KUNIT_EXPECT_EQ(test, t.duplicates, 20ULL);

	/* after a settle the queue starts again: a copy, kept, then judged */
	migrate_disable();
	pd_t_run_dev(test, pn, fs, 3, 62, 1);
	KUNIT_EXPECT_EQ(test, pd_t_kept(pn, fs, cpu, &c), 1u);
	migrate_enable();
	KUNIT_EXPECT_EQ(test, c.duplicates, 20ULL);
	pd_t_totals(pn, fs, &t);
	KUNIT_EXPECT_EQ(test, t.packets, 41ULL);
	KUNIT_EXPECT_EQ(test, t.duplicates, 21ULL);

	/* the same packets through mark, judged at once: the same counts */
	for (i = 0; i < 20; i++) {
		pd_t_run(test, pn, mk, i, 64, &mark);
		pd_t_run(test, pn, mk, i, 63, &mark);
	}
	pd_t_run(test, pn, mk, 3, 62, &mark);
	pd_t_totals(pn, mk, &t);
	KUNIT_EXPECT_EQ(test, t.packets, 82ULL);
	KUNIT_EXPECT_EQ(test, t.duplicates, 42ULL);
	KUNIT_EXPECT_EQ(test, t.marked, 21ULL);

	mutex_lock(&pn->lock);
	pd_devc_drop(pn);
	mutex_unlock(&pn->lock);
	pd_fset_free(mk);
	pd_fset_free(fs);
	pd_t_net_free(pn);
}

/*
 * Every family through the packet path: each packet followed at once by
 * its copy (TTL - 1) is one duplicate, whatever the family (a family's own
 * bits are set after its resets, and a copy probes before it changes
 * anything); drop drops exactly the copies. Memory is large for 40 keys:
 * a false positive has probability below 10^-7.
 */
static void pd_t_families(struct kunit *test)
{
	unsigned int kind, i;

	for (kind = 0; kind < PD_FILTER_NKINDS; kind++) {
		struct pd_net *pn = pd_t_net(test);
		struct pd_filter_plan plan;
		struct pd_filter_set *fs;
		struct pd_config cfg;
		struct pd_counts t;
		u32 mark;
		int cpu;

		pd_config_defaults(&cfg);
		cfg.action = PKTDEDUP_ACTION_DROP;
		pd_filter_req_defaults(&cfg.filter, kind, 64 << 10);
		/* the window families: a time window, on the kernel's clock */
		if (pd_filter_family(kind)->window)
			pd_tw_req(&cfg.filter)->window_ns =
				50 * NSEC_PER_MSEC;
		KUNIT_ASSERT_EQ(test, pd_fset_plan(NULL, &cfg, &plan, NULL), 0);
		fs = pd_fset_build(&cfg, &plan, nr_cpu_ids, NULL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(fs));
		KUNIT_EXPECT_EQ(test, fs->timed, !!pd_filter_family(kind)->window);
		for_each_possible_cpu(cpu) {
			KUNIT_EXPECT_PTR_EQ(test, pd_fset_get(fs, cpu)->ops,
					    pd_filter_family(kind));
			pd_filter_set_seeds(pd_fset_get(fs, cpu), 3 + cpu,
					    7 + cpu, 11 + kind);
		}
		for (i = 0; i < 20; i++) {
			KUNIT_EXPECT_EQ_MSG(test, pd_t_run(test, pn, fs, i, 64, &mark),
					    (unsigned int)NF_ACCEPT, "%s packet %u",
					    pd_filter_family(kind)->name, i);
			KUNIT_EXPECT_EQ_MSG(test, pd_t_run(test, pn, fs, i, 63, &mark),
					    (unsigned int)NF_DROP, "%s copy %u",
					    pd_filter_family(kind)->name, i);
		}
		pd_t_totals(pn, fs, &t);
		KUNIT_EXPECT_EQ(test, t.packets, 40ULL);
		KUNIT_EXPECT_EQ(test, t.duplicates, 20ULL);
		KUNIT_EXPECT_EQ(test, t.dropped, 20ULL);
		if (fs->timed) {
			struct pd_filter_win w;

			/* 40 packets (20 keys) well inside 50 ms, none early */
			KUNIT_ASSERT_TRUE(test, pd_fset_window_of(fs, -1, &w));
			KUNIT_EXPECT_TRUE(test, w.timed);
			KUNIT_EXPECT_EQ(test, w.window, 50 * NSEC_PER_MSEC);
			KUNIT_EXPECT_GE(test, w.entries, 20ULL);
			KUNIT_EXPECT_LE(test, w.entries, 40ULL);
			KUNIT_EXPECT_EQ(test, w.early, 0ULL);
			KUNIT_EXPECT_EQ(test, w.shortest, w.window);
		}
		pd_fset_free(fs);
		pd_t_net_free(pn);
	}
}

/* What cannot be parsed is counted and passed untouched, even in drop. */
static void pd_t_unparsed(struct kunit *test)
{
	struct pd_net *pn = pd_t_net(test);
	struct pd_filter_set *fs = pd_t_filters(test, PKTDEDUP_KEY_FLOW, PKTDEDUP_ACTION_DROP);
	u8 junk[16] = { 0x45, 0x00, 0x00, 0x10 };
	struct pd_counts t;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		struct sk_buff *skb = pd_t_skb(test, junk, sizeof(junk), 16);

		skb->mark = 7;
		KUNIT_EXPECT_EQ(test, pd_t_process(pn, fs, skb),
				(unsigned int)NF_ACCEPT);
		KUNIT_EXPECT_EQ(test, skb->mark, 7u);
		kfree_skb(skb);
	}
	pd_t_totals(pn, fs, &t);
	KUNIT_EXPECT_EQ(test, t.unparsed, 3ULL);
	KUNIT_EXPECT_EQ(test, t.packets, 0ULL);
	pd_fset_free(fs);
	pd_t_net_free(pn);
}

/* Frame i of pd_t_xdp_frames(): Ethernet, then head (tags), then packet. */
static u32 pd_t_frame(u8 *buf, const u8 *head, u32 hlen, __be16 type,
		      bool v6, u32 i)
{
	struct ethhdr *eth = (struct ethhdr *)buf;

	memset(eth, 0, ETH_HLEN);
	eth->h_dest[5] = 2;
	eth->h_source[5] = 1;
	eth->h_proto = type;
	memcpy(buf + ETH_HLEN, head, hlen);
	return ETH_HLEN + hlen + pd_t_packet(buf + ETH_HLEN + hlen, v6, i, 64);
}

/*
 * Native XDP hooks on one device for pn, with fs the filters in force
 * (generation 4 both), counting into pn's counters.
 */
static struct pd_hooks *pd_t_xdp_hooks(struct kunit *test, struct pd_net *pn,
				       struct pd_filter_set *fs)
{
	struct pd_hooks *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, h);
	h->pn = pn;
	h->xdp = PD_XDP_NATIVE;
	h->ndev = 1;
	h->gen = 4;
	fs->hook_gen = 4;
	fs->stats = pd_t_ctr(pn)->cpu;
	RCU_INIT_POINTER(pn->filters, fs);
	return h;
}

/* A frame of one buffer, data[0, len), as XDP hands it to the kfunc. */
static bool pd_t_xdp(struct pd_net *pn, const struct pd_hooks *h, u8 *data,
		     u32 len, bool l3)
{
	struct xdp_buff xdp;

	memset(&xdp, 0, sizeof(xdp));
	xdp.data_hard_start = data;
	xdp.data = data;
	xdp.data_end = data + len;
	xdp.data_meta = data;
	return pd_xdp_frame(pn, h, &xdp, l3, -1);
}

/*
 * Frames as an XDP hook gets them from the driver (pd_xdp_frame): a
 * packet bare, behind a VLAN tag (the tag still in the frame: no
 * hardware untagging is assumed), two tags, and MPLS labels, IPv4 and
 * IPv6, is one packet whatever its L2 (its copies are dropped), and so
 * is the same packet from a device without a link layer (l3: tun,
 * wireguard, ipip), whose frames start at the IP header; a runt, a frame
 * cut inside its IP header, and a truncated tag are counted (unparsed,
 * non-IP) and passed; ARP, and a bare frame that is not IP, are non-IP;
 * frames judged by hooks of another generation are neither judged nor
 * counted. (Which device's frames are judged is the kfunc's to say:
 * xdp.c, tested in the e2e guest.)
 */
static void pd_t_xdp_frames(struct kunit *test)
{
	static const struct {
		u8 head[8];
		u32 hlen;
		u16 type;
	} l2[] = {
		{ { 0 }, 0, 0 },				/* bare */
		{ { 0x00, 0x0a, 0x00, 0x00 }, 4, ETH_P_8021Q },	/* 802.1Q */
		{ { 0x00, 0x0b, 0x81, 0x00, 0x00, 0x0c }, 8, ETH_P_8021AD },
		{ { 0x00, 0x01, 0x00, 0x40, 0x00, 0x02, 0x01, 0x40 }, 8,
		  ETH_P_MPLS_UC },
	};
	struct pd_net *pn = pd_t_net(test);
	struct pd_filter_set *fs = pd_t_filters(test, PKTDEDUP_KEY_PACKET,
					     PKTDEDUP_ACTION_DROP);
	struct pd_hooks *h = pd_t_xdp_hooks(test, pn, fs);
	u8 *buf = kunit_kzalloc(test, 512, GFP_KERNEL);
	unsigned int v, i, n;
	struct pd_counts t;
	u32 len;
	bool drop;

	KUNIT_ASSERT_NOT_NULL(test, buf);

	rcu_read_lock();
	for (v = 0; v < 2; v++) {
		/* packet 10 + v bare first, then behind each L2 head */
		for (i = 0; i < ARRAY_SIZE(l2); i++) {
			__be16 type = l2[i].hlen ? htons(l2[i].type) :
				      htons(v ? ETH_P_IPV6 : ETH_P_IP);
			u8 head[8];

			memcpy(head, l2[i].head, sizeof(head));
			/* the last tag or label says what follows */
			if (l2[i].type == ETH_P_8021Q || l2[i].type == ETH_P_8021AD)
				*(__be16 *)&head[l2[i].hlen - 2] =
					htons(v ? ETH_P_IPV6 : ETH_P_IP);
			len = pd_t_frame(buf, head, l2[i].hlen, type, v, 10 + v);
			drop = pd_t_xdp(pn, h, buf, len, false);
			KUNIT_EXPECT_EQ_MSG(test, drop, i > 0,
					    "v6 %u l2 %u: a copy after the first",
					    v, i);
		}
		/* and bare, from a device without a link layer */
		len = pd_t_frame(buf, NULL, 0, htons(ETH_P_IP), v, 10 + v);
		KUNIT_EXPECT_TRUE_MSG(test, pd_t_xdp(pn, h, buf + ETH_HLEN,
						     len - ETH_HLEN, true),
				      "v6 %u: bare IP, a copy", v);
	}
	pd_t_totals(pn, fs, &t);
	n = 2 * (ARRAY_SIZE(l2) + 1);
	KUNIT_EXPECT_EQ(test, t.packets, (u64)n);
	KUNIT_EXPECT_EQ(test, t.duplicates, (u64)n - 2);
	KUNIT_EXPECT_EQ(test, t.dropped, (u64)n - 2);

	/* hooks of another generation than the filters: nothing at all */
	h->gen = 5;
	KUNIT_EXPECT_FALSE(test, pd_t_xdp(pn, h, buf, len, false));
	h->gen = 4;
	pd_t_totals(pn, fs, &t);
	KUNIT_EXPECT_EQ(test, t.packets, (u64)n);

	/* a runt, a cut IP header, a cut tag, ARP: counted, passed */
	len = pd_t_frame(buf, NULL, 0, htons(ETH_P_IP), false, 20);
	KUNIT_EXPECT_FALSE(test, pd_t_xdp(pn, h, buf, ETH_HLEN - 1, false));
	KUNIT_EXPECT_FALSE(test, pd_t_xdp(pn, h, buf, ETH_HLEN + 10, false));
	KUNIT_EXPECT_FALSE(test, pd_t_xdp(pn, h, buf, ETH_HLEN + 10, false));
	/* bare: cut inside its IP header; not IP (the Ethernet header) */
	KUNIT_EXPECT_FALSE(test, pd_t_xdp(pn, h, buf + ETH_HLEN, 10, true));
	KUNIT_EXPECT_FALSE(test, pd_t_xdp(pn, h, buf, len, true));
	((struct ethhdr *)buf)->h_proto = htons(ETH_P_8021Q);
	KUNIT_EXPECT_FALSE(test, pd_t_xdp(pn, h, buf, ETH_HLEN + 2, false));
	((struct ethhdr *)buf)->h_proto = htons(ETH_P_ARP);
	KUNIT_EXPECT_FALSE(test, pd_t_xdp(pn, h, buf, len, false));
	rcu_read_unlock();
	pd_t_totals(pn, fs, &t);
	KUNIT_EXPECT_EQ(test, t.packets, (u64)n);
	KUNIT_EXPECT_EQ(test, t.unparsed, 4ULL);
	KUNIT_EXPECT_EQ(test, t.nonip, 3ULL);
	RCU_INIT_POINTER(pn->filters, NULL);
	pd_fset_free(fs);
	pd_t_net_free(pn);
}

/* Build source state for cfg and publish it in pn. */
static struct pd_srcs *pd_t_srcs(struct kunit *test, struct pd_net *pn,
				 const struct pd_src_cfg *cfg)
{
	struct pd_srcs *s = pd_srcs_build(cfg, nr_cpu_ids, NULL);

	KUNIT_ASSERT_FALSE(test, IS_ERR(s));
	rcu_assign_pointer(pn->srcs, s);
	return s;
}

/*
 * Distinct addresses: packets from one source to 40 destinations (each
 * sent twice, so duplicates do not inflate the count) through
 * pd_process() give 1 source and 40 destinations over the window.
 */
static void pd_t_distinct(struct kunit *test)
{
	struct pd_net *pn = pd_t_net(test);
	struct pd_filter_set *fs = pd_t_filters(test, PKTDEDUP_KEY_PACKET,
					     PKTDEDUP_ACTION_COUNT);
	u8 buf[300];
	u64 src, dst;
	struct pd_src_cfg cfg;
	struct pd_srcs *s;
	u32 i, j, len;

	pd_srcs_defaults(&cfg);
	cfg.window_ms = 60000;
	cfg.nsub = 4;
	s = pd_t_srcs(test, pn, &cfg);
	for (j = 0; j < 2; j++)
		for (i = 0; i < 40; i++) {
			struct sk_buff *skb;

			len = pd_t_packet(buf, false, i, 64);
			buf[19] = (u8)(i + 1);		/* 10.0.0.(i+1) */
			skb = pd_t_skb(test, buf, len, len);
			pd_t_process(pn, fs, skb);
			kfree_skb(skb);
		}
	KUNIT_ASSERT_EQ(test, pd_srcs_distinct(s, 4, &src, &dst), 0);
	KUNIT_EXPECT_EQ(test, src, 1ULL);
	KUNIT_EXPECT_GE(test, dst, 39ULL);	/* one register collision */
	KUNIT_EXPECT_LE(test, dst, 40ULL);
	RCU_INIT_POINTER(pn->srcs, NULL);
	pd_srcs_free(s);
	pd_fset_free(fs);
	pd_t_net_free(pn);
}

/*
 * Frames that are not IP, judged under nonip dedup at an XDP hook (counted
 * as non-IP, then keyed and stepped as packets), have no addresses: the
 * source analytics count none of them (no empty address as a source or a
 * destination), and an IP packet after them is the only source and
 * destination of the window.
 */
static void pd_t_nonip_no_sources(struct kunit *test)
{
	struct pd_net *pn = pd_t_net(test);
	struct pd_filter_set *fs = pd_t_filters(test, PKTDEDUP_KEY_PACKET,
					     PKTDEDUP_ACTION_COUNT);
	struct pd_hooks *h = pd_t_xdp_hooks(test, pn, fs);
	u8 *buf = kunit_kzalloc(test, 512, GFP_KERNEL);
	struct pd_src_cfg cfg;
	struct pd_counts t;
	struct pd_srcs *s;
	u64 src, dst;
	u32 i, len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	fs->kopts.flags |= PKTDEDUP_KEY_F_NONIP;
	pd_srcs_defaults(&cfg);
	cfg.window_ms = 60000;
	cfg.nsub = 4;
	s = pd_t_srcs(test, pn, &cfg);
	rcu_read_lock();
	for (i = 0; i < 20; i++) {
		memset(buf, 0, 64);
		((struct ethhdr *)buf)->h_proto = htons(0x88b5);
		buf[ETH_HLEN] = (u8)i;
		KUNIT_EXPECT_FALSE(test, pd_t_xdp(pn, h, buf, 64, false));
	}
	len = pd_t_frame(buf, NULL, 0, htons(ETH_P_IP), false, 30);
	KUNIT_EXPECT_FALSE(test, pd_t_xdp(pn, h, buf, len, false));
	rcu_read_unlock();
	pd_t_totals(pn, fs, &t);
	KUNIT_EXPECT_EQ(test, t.nonip, 20ULL);
	KUNIT_EXPECT_EQ(test, t.packets, 21ULL);
	KUNIT_ASSERT_EQ(test, pd_srcs_distinct(s, 4, &src, &dst), 0);
	KUNIT_EXPECT_EQ(test, src, 1ULL);
	KUNIT_EXPECT_EQ(test, dst, 1ULL);
	RCU_INIT_POINTER(pn->srcs, NULL);
	pd_srcs_free(s);
	RCU_INIT_POINTER(pn->filters, NULL);
	pd_fset_free(fs);
	pd_t_net_free(pn);
}

/*
 * One packet from 10.9.x.y (source number id) through the analytics'
 * calls, as the packet path makes them.
 */
static void pd_t_src(struct pd_net *pn, u32 id)
{
	u8 src[4] = { 10, 9, (u8)(id >> 8), (u8)id }, dst[4] = { 10, 0, 0, 2 };
	struct pd_pkt pkt = { .family = PD_FAMILY_IPV4, .addr_len = 4,
			      .src = src, .dst = dst };
	struct pd_src_ref sr;

	local_bh_disable();
	rcu_read_lock();
	pd_srcs_ask(pn);
	pd_srcs_find(pn, &sr);
	pd_srcs_add(&sr, &pkt);
	rcu_read_unlock();
	local_bh_enable();
}

/*
 * Sub-windows start at multiples of their length since the epoch, to
 * within a jiffy, and the one in progress holds the time now; its
 * sketches, after packets from 40 sources to one destination, merged over
 * the CPUs as GET_SKETCH reads them, count 40 and 1.
 */
static void pd_t_srcs_aligned(struct kunit *test)
{
	struct pd_net *pn = pd_t_net(test);
	struct pd_src_cfg cfg;
	struct pd_srcs *s;
	struct pd_hll *u = kunit_kzalloc(test, 2 * sizeof(*u), GFP_KERNEL);
	u64 len, t, start, end, now, rem, jn = jiffies64_to_nsecs(1);
	u32 windows[] = { 60000, 7000, 3600000 }, nsub[] = { 60, 7, 64 };
	u32 k, i, tries;

	KUNIT_ASSERT_NOT_NULL(test, u);
	for (k = 0; k < ARRAY_SIZE(windows); k++) {
		pd_srcs_defaults(&cfg);
		cfg.window_ms = windows[k];
		cfg.nsub = nsub[k];
		s = pd_t_srcs(test, pn, &cfg);
		len = jiffies64_to_nsecs(s->tick_j);
		t = pd_srcs_tick(s);
		now = ktime_get_real_ns();
		start = pd_srcs_tick_start(s, t);
		end = pd_srcs_tick_start(s, t + 1);
		KUNIT_EXPECT_EQ(test, end - start, len);
		/* now, less the jiffy it may be ahead of the ticks */
		KUNIT_EXPECT_LE(test, start, now + jn);
		KUNIT_EXPECT_GT(test, end + jn, now);
		div64_u64_rem(start, len, &rem);
		KUNIT_EXPECT_TRUE(test, rem <= jn || len - rem <= jn);
		/* again if a sub-window began meanwhile */
		for (tries = 0; tries < 3; tries++) {
			t = pd_srcs_tick(s);
			for (i = 0; i < 40; i++)
				pd_t_src(pn, 100 * tries + i);
			memset(u, 0, 2 * sizeof(*u));
			pd_srcs_merge(s, t, 1, u);
			if (pd_srcs_tick(s) == t)
				break;
		}
		/* two of 40 may share a register: 5% */
		KUNIT_EXPECT_GE(test, pd_hll_estimate(&u[0]), 39ULL);
		KUNIT_EXPECT_LE(test, pd_hll_estimate(&u[0]), 40ULL);
		KUNIT_EXPECT_EQ(test, pd_hll_estimate(&u[1]), 1ULL);
		RCU_INIT_POINTER(pn->srcs, NULL);
		pd_srcs_free(s);
	}
	pd_t_net_free(pn);
}

/*
 * Top talkers, the new-source ring and the rare-source candidates, as the
 * netlink commands read them: source 0 sends 50 packets, sources 1..10
 * one each; then 20 more sources overrun a 16-entry ring.
 */
static void pd_t_sources(struct kunit *test)
{
	struct pd_net *pn = pd_t_net(test);
	struct pd_src_event ev, *cand = NULL;
	struct pd_ss_agg *a;
	struct pd_src_cfg cfg;
	struct pd_srcs *s;
	u32 i, head = 0;
	int cpu, n;

	pd_srcs_defaults(&cfg);
	cfg.nsub = 4;
	cfg.counters = 16;
	cfg.newsrc = 1;
	cfg.ring = 16;
	s = pd_t_srcs(test, pn, &cfg);
	for (i = 0; i < 50; i++)
		pd_t_src(pn, 0);
	for (i = 1; i <= 10; i++)
		pd_t_src(pn, i);

	a = pd_srcs_top(s, cfg.nsub, 64);
	KUNIT_ASSERT_NOT_NULL(test, a);
	pd_ss_agg_sort(a);
	KUNIT_EXPECT_EQ(test, a->total, 60ULL);
	KUNIT_EXPECT_EQ(test, a->it[0].len, 4);
	KUNIT_EXPECT_EQ(test, a->it[0].addr[3], 0);
	KUNIT_EXPECT_EQ(test, a->it[0].count, 50ULL);	/* 11 sources, 16 counters */
	KUNIT_EXPECT_EQ(test, a->it[0].err, 0ULL);
	/* the summary's hash is the one the rare-source query looks up */
	KUNIT_EXPECT_EQ(test, a->it[0].hash,
			pd_srcs_hash(s, a->it[0].addr, a->it[0].len));
	kvfree(a);

	/* each source was new once, on whichever CPU ran this test */
	for_each_possible_cpu(cpu)
		head += pd_srcs_ring_head(s, cpu);
	KUNIT_EXPECT_EQ(test, head, 11U);
	n = pd_srcs_candidates(s, cfg.nsub, &cand);
	KUNIT_EXPECT_EQ(test, n, 11);
	kvfree(cand);

	/* 20 more: the ring keeps the newest 16, older entries read as gone */
	for (i = 100; i < 120; i++)
		pd_t_src(pn, i);
	for_each_possible_cpu(cpu) {
		u32 h = pd_srcs_ring_head(s, cpu);

		if (!h)
			continue;
		KUNIT_EXPECT_EQ(test, h, 31U);
		KUNIT_EXPECT_FALSE(test, pd_srcs_ring_read(s, cpu, h - 17, &ev));
		KUNIT_EXPECT_TRUE(test, pd_srcs_ring_read(s, cpu, h - 16, &ev));
		KUNIT_EXPECT_EQ(test, ev.addr[3], (u8)(119 - 15));
		KUNIT_EXPECT_FALSE(test, pd_srcs_ring_read(s, cpu, h, &ev));
	}
	n = pd_srcs_candidates(s, cfg.nsub, &cand);
	KUNIT_EXPECT_EQ(test, n, 16);
	kvfree(cand);
	RCU_INIT_POINTER(pn->srcs, NULL);
	pd_srcs_free(s);
	pd_t_net_free(pn);
}

/*
 * A namespace starts without top talkers (counters 0: they cost more per
 * packet than the rest of the analytics together); 1 to 7 counters are
 * refused. The packet path then fills the sketches of the current tick,
 * whose end it keeps so as to divide the time only once per tick, and no
 * summary; the state is smaller by every summary.
 */
static void pd_t_sources_defaults(struct kunit *test)
{
	struct pd_net *pn = pd_t_net(test);
	struct pd_filter_plan plan;
	struct pd_src_cfg cfg, top;
	static const u8 a[4] = { 10, 9, 0, 1 };
	struct pd_src_cpu *c;
	struct pd_srcs *s;
	u64 t0, src, dst, bytes;
	u32 i;

	pd_srcs_defaults(&cfg);
	KUNIT_EXPECT_EQ(test, cfg.counters, 0u);
	KUNIT_EXPECT_EQ(test, cfg.newsrc, 0u);
	KUNIT_EXPECT_EQ(test, pd_srcs_check(&cfg, &plan, NULL), 0);
	bytes = pd_srcs_bytes(&cfg, &plan);
	top = cfg;
	top.counters = 7;
	KUNIT_EXPECT_EQ(test, pd_srcs_check(&top, &plan, NULL), -ERANGE);
	top.counters = 8;
	KUNIT_EXPECT_EQ(test, pd_srcs_check(&top, &plan, NULL), 0);
	top.counters = 128;
	KUNIT_EXPECT_EQ(test, pd_srcs_bytes(&top, &plan) - bytes,
			(u64)num_online_cpus() *
			(pd_mem_size(pd_srcwin_bytes(cfg.nsub, 128)) -
			 pd_mem_size(pd_srcwin_bytes(cfg.nsub, 0))));

	s = pd_t_srcs(test, pn, &cfg);
	t0 = get_jiffies_64();
	for (i = 0; i < 30; i++)
		pd_t_src(pn, i);
	c = s->cpu[raw_smp_processor_id()];
	/* (unless the test moved to another CPU in between) */
	if (c->win.cur) {
		KUNIT_EXPECT_NULL(test, c->win.top);
		KUNIT_EXPECT_GT(test, c->win.end, t0);
		KUNIT_EXPECT_LE(test, c->win.end,
				(pd_srcs_tick(s) + 1) * s->tick_j);
		KUNIT_EXPECT_EQ(test, c->win.len, s->tick_j);
	}
	KUNIT_ASSERT_EQ(test, pd_srcs_distinct(s, cfg.nsub, &src, &dst), 0);
	KUNIT_EXPECT_GE(test, src, 28ULL);	/* a register collision or two */
	KUNIT_EXPECT_LE(test, src, 30ULL);
	KUNIT_EXPECT_EQ(test, dst, 1ULL);
	KUNIT_EXPECT_EQ(test, pd_srcs_hash(s, a, 4), pd_addr_hash(&s->key, a, 4));
	RCU_INIT_POINTER(pn->srcs, NULL);
	pd_srcs_free(s);
	pd_t_net_free(pn);
}

/*
 * The live instance of init_net: a change publishes new filters (and a new
 * hook generation when the hook moves); a refused change leaves filters
 * and configuration alone; reset empties, reseeds and zeroes the counters.
 */
static void pd_t_reconfigure(struct kunit *test)
{
	struct pd_net *pn = pd_pernet(&init_net);
	struct pd_filter_set *before, *after;
	struct pd_config saved, cfg;
	struct pd_filter_occ occ;
	struct pd_counts t;
	u32 gen, mark;
	u64 seed;
	int err;

	mutex_lock(&pn->lock);
	saved = pn->cfg;
	before = rcu_dereference_protected(pn->filters, true);
	gen = pn->hook_gen;
	KUNIT_ASSERT_NOT_NULL(test, before);

	cfg = saved;
	cfg.key = PKTDEDUP_KEY_FLOW;
	cfg.filter.mem_bytes = 128 << 10;
	KUNIT_EXPECT_EQ(test, pd_net_apply(pn, &cfg, NULL), 0);
	after = rcu_dereference_protected(pn->filters, true);
	KUNIT_EXPECT_PTR_NE(test, after, before);
	KUNIT_EXPECT_EQ(test, after->cfg.key, (u8)PKTDEDUP_KEY_FLOW);
	KUNIT_EXPECT_EQ(test, after->plan.cells, 1ULL << 20);
	KUNIT_EXPECT_EQ(test, pn->hook_gen, gen);	/* same hook point */
	KUNIT_EXPECT_EQ(test, after->hook_gen, gen);

	cfg.hook = PKTDEDUP_HOOK_INPUT;
	KUNIT_EXPECT_EQ(test, pd_net_apply(pn, &cfg, NULL), 0);
	KUNIT_EXPECT_EQ(test, pn->hook_gen, gen + 1);
	before = rcu_dereference_protected(pn->filters, true);
	KUNIT_EXPECT_EQ(test, before->hook_gen, gen + 1);

	/* another family: an RCU swap like any change, and back */
	cfg.filter.kind = PKTDEDUP_FILTER_KIND_RLBSBF;
	KUNIT_EXPECT_EQ(test, pd_net_apply(pn, &cfg, NULL), 0);
	after = rcu_dereference_protected(pn->filters, true);
	KUNIT_EXPECT_EQ(test, after->plan.kind, (u8)PKTDEDUP_FILTER_KIND_RLBSBF);
	KUNIT_EXPECT_PTR_EQ(test, pd_fset_get(after, 0)->ops,
			    pd_filter_family(PKTDEDUP_FILTER_KIND_RLBSBF));
	cfg.filter.kind = PKTDEDUP_FILTER_KIND_SBF;
	KUNIT_EXPECT_EQ(test, pd_net_apply(pn, &cfg, NULL), 0);
	before = rcu_dereference_protected(pn->filters, true);

	/* refused: too much memory; nothing changes */
	cfg.filter.mem_bytes = 1ULL << 33;
	cfg.action = PKTDEDUP_ACTION_DROP;
	err = pd_net_apply(pn, &cfg, NULL);
	KUNIT_EXPECT_LT(test, err, 0);
	KUNIT_EXPECT_PTR_EQ(test, rcu_dereference_protected(pn->filters, true),
			    before);
	KUNIT_EXPECT_EQ(test, pn->cfg.action, (u8)PKTDEDUP_ACTION_COUNT);
	KUNIT_EXPECT_EQ(test, pn->hook_gen, gen + 1);

	/* counters go on across changes; reset zeroes them and reseeds */
	pd_t_run(test, pn, before, 1, 64, &mark);
	pd_t_totals(pn, before, &t);
	KUNIT_EXPECT_GT(test, t.packets, 0ULL);
	seed = pd_fset_get(before, 0)->hkey.k[0];
	KUNIT_EXPECT_EQ(test, pd_net_reset(pn, NULL), 0);
	pd_t_totals(pn, NULL, &t);
	KUNIT_EXPECT_EQ(test, t.packets, 0ULL);
	after = rcu_dereference_protected(pn->filters, true);
	KUNIT_EXPECT_PTR_NE(test, after, before);
	pd_fset_occupancy(after, 0, &occ, PD_OCC_ALL);
	KUNIT_EXPECT_EQ(test, pd_occupancy_ppb(&occ, true), 1000000000u);
	KUNIT_EXPECT_NE(test, pd_fset_get(after, 0)->hkey.k[0], seed);

	KUNIT_EXPECT_EQ(test, pd_net_apply(pn, &saved, NULL), 0);
	mutex_unlock(&pn->lock);
}

/*
 * A configuration whose packet's step is over the bound (core/step.h) is
 * refused before anything changes, on the live instance of init_net: the
 * report's p 100000000 over 16 MiB, per CPU and shared; the message names
 * p in the family's static words (an extack message outlives the
 * request; two refused at once must not share a buffer); the filters
 * and the settings in force stay. The largest P allowed is applied.
 */
static void pd_t_step_bound(struct kunit *test)
{
	static const char words[] =
		"more than 256 lines (16384 bytes) of the filter in its P decrements";
	struct pd_net *pn = pd_pernet(&init_net);
	struct netlink_ext_ack extack;
	struct pd_filter_set *before;
	struct pd_config saved, cfg;
	unsigned int shared;

	mutex_lock(&pn->lock);
	saved = pn->cfg;
	before = rcu_dereference_protected(pn->filters, true);
	for (shared = 0; shared < 2; shared++) {
		cfg = saved;
		cfg.scope = shared ? PKTDEDUP_SCOPE_SHARED :
			    PKTDEDUP_SCOPE_PERCPU;
		pd_filter_req_defaults(&cfg.filter, PKTDEDUP_FILTER_KIND_SBF,
				       16 << 20);
		pd_sbf_req(&cfg.filter)->max = 1;
		pd_sbf_req(&cfg.filter)->k = 1;
		pd_sbf_req(&cfg.filter)->p = 100000000;
		pd_sbf_req(&cfg.filter)->layout = PKTDEDUP_LAYOUT_FLAT;
		memset(&extack, 0, sizeof(extack));
		KUNIT_EXPECT_EQ(test, pd_net_apply(pn, &cfg, &extack), -EFBIG);
		KUNIT_ASSERT_NOT_NULL(test, extack._msg);
		KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(extack._msg, words),
					  "%s", extack._msg);
		KUNIT_EXPECT_PTR_EQ(test,
				    rcu_dereference_protected(pn->filters, true),
				    before);
		KUNIT_EXPECT_EQ(test, memcmp(&pn->cfg, &saved, sizeof(saved)), 0);
	}
	cfg = saved;
	pd_filter_req_defaults(&cfg.filter, PKTDEDUP_FILTER_KIND_SBF, 1 << 20);
	pd_sbf_req(&cfg.filter)->max = 1;
	pd_sbf_req(&cfg.filter)->k = 3;
	pd_sbf_req(&cfg.filter)->p = 128000;
	pd_sbf_req(&cfg.filter)->layout = PKTDEDUP_LAYOUT_FLAT;
	KUNIT_EXPECT_EQ(test, pd_net_apply(pn, &cfg, NULL), 0);
	KUNIT_EXPECT_EQ(test,
			rcu_dereference_protected(pn->filters, true)->plan.step_lines,
			(u64)PD_STEP_MAX_LINES);
	KUNIT_EXPECT_EQ(test, pd_net_apply(pn, &saved, NULL), 0);
	mutex_unlock(&pn->lock);
}

/*
 * Each family's rows are the settings its nest's policy (the spec's subset
 * for it) accepts, no more and no fewer: the netlink layer reads and
 * writes a nest from the rows alone.
 */
static void pd_t_settings_rows(struct kunit *test)
{
	static const u16 nest[PD_FILTER_NKINDS] = {
#define PD_FAMILY(KIND, id) \
	[PKTDEDUP_FILTER_KIND_##KIND] = PKTDEDUP_A_FILTER_##KIND,
#include "../../../module/core/families.h"
#undef PD_FAMILY
	};
	unsigned int kind, a;

	for (kind = 0; kind < PD_FILTER_NKINDS; kind++) {
		const struct pd_filter_ops *ops = pd_filter_family(kind);
		const struct nla_policy *pol =
			pd_filter_nl_policy[nest[kind]].nested_policy;

		KUNIT_ASSERT_NOT_NULL(test, pol);
		for (a = PKTDEDUP_A_SETTINGS_PAD + 1;
		     a <= PKTDEDUP_A_SETTINGS_MAX; a++) {
			const struct pd_setting *s = pd_filter_setting(ops, a);

			KUNIT_EXPECT_EQ_MSG(test, !!s, pol[a].type != NLA_UNSPEC,
					    "%s, setting %u", ops->name, a);
		}
	}
}

/*
 * Each inet placement (the ones this test kernel has) registers IPv4 and
 * IPv6 ops at its row's hook number, and a change of placement is a new
 * hook generation.
 */
static void pd_t_placements(struct kunit *test)
{
	struct pd_net *pn = pd_pernet(&init_net);
	struct pd_config saved, cfg;
	const struct pd_hooks *h;
	unsigned int hook, n = 0;
	u32 gen;

	mutex_lock(&pn->lock);
	saved = pn->cfg;
	cfg = saved;
	for (hook = 0; hook < PD_NHOOKS; hook++) {
		const struct pd_placement *pl = &pd_placements[hook];

		if (pl->pf != NFPROTO_INET)
			continue;
		gen = pn->hook_gen;
		cfg.hook = hook;
		KUNIT_ASSERT_EQ(test, pd_net_apply(pn, &cfg, NULL), 0);
		h = pn->hooks;
		KUNIT_ASSERT_NOT_NULL(test, h);
		KUNIT_EXPECT_EQ(test, h->n, 2);
		KUNIT_EXPECT_EQ(test, h->ops[0].pf, (u8)NFPROTO_IPV4);
		KUNIT_EXPECT_EQ(test, h->ops[1].pf, (u8)NFPROTO_IPV6);
		KUNIT_EXPECT_EQ(test, h->ops[0].hooknum, (unsigned int)pl->hooknum);
		KUNIT_EXPECT_EQ(test, h->ops[1].hooknum, (unsigned int)pl->hooknum);
		KUNIT_EXPECT_FALSE(test, h->l2 || h->per_dev);
		KUNIT_EXPECT_EQ(test, pn->hook_gen,
				saved.hook == hook && !n ? gen : gen + 1);
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, 5U);
	KUNIT_EXPECT_EQ(test, pd_net_apply(pn, &saved, NULL), 0);
	mutex_unlock(&pn->lock);
}

/*
 * Filter f against a filter of the same plan seeded by hand from seed
 * (pd_filter_seed(), as dedup-sim --seed): the same hash key, and over a
 * stream that makes the filter forget (its decrements come from the
 * generator) the same verdicts and, at the end, the same cells.
 */
static void pd_t_same_as_seeded(struct kunit *test, struct pd_filter *f,
				const struct pd_filter_plan *plan, u64 seed)
{
	struct pd_pktinfo pi = {};
	struct pd_filter ref;
	const char *why = NULL;
	void *mem = kvzalloc(plan->bytes, GFP_KERNEL);
	u64 state = seed, i, h;
	u32 differ = 0;

	KUNIT_ASSERT_NOT_NULL(test, mem);
	KUNIT_ASSERT_EQ(test, pd_filter_init(&ref, plan, mem, &why), 0);
	pd_filter_seed(&ref, &state);
	KUNIT_EXPECT_EQ(test, f->hkey.k[0], ref.hkey.k[0]);
	KUNIT_EXPECT_EQ(test, f->hkey.k[1], ref.hkey.k[1]);
	for (i = 0; i < 3000; i++) {
		u64 id = i % 700;	/* copies 700 apart: some forgotten */

		h = pd_hash64(&ref.hkey, &id, sizeof(id));
		differ += pd_filter_step_hash(f, h, &pi) !=
			  pd_filter_step_hash(&ref, h, &pi);
	}
	KUNIT_EXPECT_EQ(test, differ, 0u);
	KUNIT_EXPECT_EQ(test, memcmp(f->mem, ref.mem, plan->bytes), 0);
	kvfree(mem);
}

/*
 * A shared filter's shards against shards of the same request (planned
 * as a shared one: pd_filter_req.shared) seeded by hand from seed
 * (pd_shards_seed(), as dedup-sim --shards --seed): the same count, hash
 * key, verdicts over a stream that makes them forget, and cells.
 */
static void pd_t_same_shards(struct kunit *test, struct pd_filter_set *fs,
			     u64 seed)
{
	struct pd_filter_req req = fs->cfg.filter;
	struct pd_filter_plan whole;
	struct pd_pktinfo pi = {};
	struct pd_shards ref;
	const char *why = NULL;
	u64 state = seed, i, h;
	u32 differ = 0;

	req.shared = true;
	KUNIT_ASSERT_EQ(test, pd_shards_create(&ref, &req, fs->shards.n,
					       &whole, &why), 0);
	pd_shards_seed(&ref, &state);
	KUNIT_EXPECT_EQ(test, ref.n, fs->shards.n);
	KUNIT_EXPECT_EQ(test, whole.bytes, fs->plan.bytes);
	KUNIT_EXPECT_EQ(test, fs->shards.sh[0].f.hkey.k[0],
			ref.sh[0].f.hkey.k[0]);
	for (i = 0; i < 3000; i++) {
		u64 id = i % 700;	/* copies 700 apart: some forgotten */

		h = pd_hash64(&ref.sh[0].f.hkey, &id, sizeof(id));
		differ += pd_filter_step_hash(&pd_shard_of(&fs->shards, h)->f,
					      h, &pi) !=
			  pd_filter_step_hash(&pd_shard_of(&ref, h)->f, h, &pi);
	}
	KUNIT_EXPECT_EQ(test, differ, 0u);
	KUNIT_EXPECT_EQ(test, memcmp(fs->shards.mem, ref.mem, whole.bytes), 0);
	pd_shards_destroy(&ref);
}

/*
 * A lock-free shared filter's per-CPU generators under a fixed seed: CPU
 * 0's a copy of the filter's own, each other possible CPU's from the next
 * draw of the seed's state after the filter's seeds, in CPU order.
 */
static void pd_t_lockfree_gens(struct kunit *test, struct pd_filter_set *fs,
			       u64 seed)
{
	const struct pd_filter *f = &fs->shards.sh[0].f;
	struct pd_filter_cpu want;
	u64 state = seed, rng;
	int cpu;

	KUNIT_ASSERT_TRUE(test, fs->shards.lockfree);
	KUNIT_ASSERT_NOT_NULL(test, fs->fcpu);
	KUNIT_EXPECT_EQ(test, fs->shards.n, 1u);
	KUNIT_EXPECT_TRUE(test, fs->plan.lockfree);
	/* the filter's seeds: the generator state, then k1, then k0 */
	pd_rng_next(&state);
	pd_rng_next(&state);
	pd_rng_next(&state);
	for_each_possible_cpu(cpu) {
		if (!cpu) {
			pd_filter_cpu_init(f, &want, NULL);
		} else {
			rng = pd_rng_next(&state);
			pd_filter_cpu_init(f, &want, &rng);
		}
		KUNIT_EXPECT_EQ_MSG(test,
				    memcmp(per_cpu_ptr(fs->fcpu, cpu), &want,
					   sizeof(want)), 0, "CPU %d", cpu);
	}
}

/*
 * A fixed seed (the config's seed): every filter of the instance, each
 * CPU's alike, and the shared one (lock-free: its CPUs' generators too;
 * in shards: each shard), is seeded as pd_filter_seed() seeds a filter
 * (pd_shards_seed() shards) by hand, and again so after a reset and
 * after a change; random seeds again once it is unset.
 */
static void pd_t_fixed_seed(struct kunit *test)
{
	struct pd_net *pn = pd_pernet(&init_net);
	const u64 seed = 0x5eed0123456789abULL;
	struct pd_filter_set *fs;
	struct pd_config saved, cfg;
	u64 state = seed;
	int cpu, round;

	mutex_lock(&pn->lock);
	saved = pn->cfg;
	cfg = saved;
	cfg.seed_mode = PKTDEDUP_SEED_MODE_FIXED;
	cfg.seed = seed;
	cfg.filter.mem_bytes = 8 << 10;	/* small: decrements matter */
	for (round = 0; round < 5; round++) {
		/*
		 * 0: built; 1: reset; 2: a change to scope shared (the SBF:
		 * lock-free); 3: its reset; 4: in shards (a count asked)
		 */
		if (round == 0)
			KUNIT_ASSERT_EQ(test, pd_net_apply(pn, &cfg, NULL), 0);
		else if (round == 1 || round == 3)
			KUNIT_ASSERT_EQ(test, pd_net_reset(pn, NULL), 0);
		if (round == 2) {
			cfg.scope = PKTDEDUP_SCOPE_SHARED;
			KUNIT_ASSERT_EQ(test, pd_net_apply(pn, &cfg, NULL), 0);
		} else if (round == 4) {
			cfg.shards = 2;
			KUNIT_ASSERT_EQ(test, pd_net_apply(pn, &cfg, NULL), 0);
		}
		fs = rcu_dereference_protected(pn->filters, true);
		KUNIT_ASSERT_NOT_NULL(test, fs);
		if (fs->shards.lockfree) {
			KUNIT_EXPECT_LT(test, round, 4);
			pd_t_lockfree_gens(test, fs, seed);
			pd_t_same_shards(test, fs, seed);
			continue;
		}
		if (fs->shards.n) {
			/* 2 shards of 4 KiB, no generators per CPU */
			KUNIT_EXPECT_EQ(test, round, 4);
			KUNIT_EXPECT_EQ(test, fs->shards.n, 2u);
			KUNIT_EXPECT_NULL(test, fs->fcpu);
			pd_t_same_shards(test, fs, seed);
			continue;
		}
		for_each_possible_cpu(cpu)
			pd_t_same_as_seeded(test, pd_fset_get(fs, cpu),
					    &fs->plan, seed);
	}
	/* random seeds again: not the fixed seed's key */
	cfg.seed_mode = PKTDEDUP_SEED_MODE_RANDOM;
	KUNIT_ASSERT_EQ(test, pd_net_apply(pn, &cfg, NULL), 0);
	fs = rcu_dereference_protected(pn->filters, true);
	/* the fixed seed's key: the generator state, then k1, then k0 */
	pd_rng_next(&state);
	pd_rng_next(&state);
	KUNIT_EXPECT_NE(test, pd_fset_get(fs, 0)->hkey.k[0],
			pd_rng_next(&state));
	KUNIT_EXPECT_EQ(test, pd_net_apply(pn, &saved, NULL), 0);
	mutex_unlock(&pn->lock);
}

/* What the filters of cfg take, to the byte. */
static u64 pd_t_need(struct kunit *test, const struct pd_config *cfg)
{
	struct pd_filter_plan plan;

	KUNIT_ASSERT_EQ(test, pd_fset_plan(NULL, cfg, &plan, NULL), 0);
	return pd_fset_bytes(cfg, &plan);
}

/*
 * The budget, on the live instance of init_net with its cap lowered: a
 * change old and new cannot share the cap with is made in the old
 * filters' room (never holding more than the cap); one the cap cannot
 * hold at all is refused before anything changes, and says what it
 * needed; with room, old and new coexist for a moment and the peak says
 * so.
 */
static void pd_t_budget(struct kunit *test)
{
	struct pd_net *pn = pd_pernet(&init_net);
	struct pd_budget saved_budget;
	struct pd_config saved, cfg;
	struct pd_filter_set *before, *after;
	u64 others, need, total;
	int err;

	mutex_lock(&pn->lock);
	saved = pn->cfg;
	saved_budget = pn->budget;
	cfg = saved;
	cfg.filter.mem_bytes = 64 << 10;
	KUNIT_ASSERT_EQ(test, pd_net_apply(pn, &cfg, NULL), 0);
	KUNIT_EXPECT_EQ(test, pn->budget.held[PD_PART_FILTERS],
			pd_t_need(test, &cfg));
	others = pd_budget_total(&pn->budget) -
		 pn->budget.held[PD_PART_FILTERS];

	/* room for the others and the new filters, not for the old too */
	cfg.filter.mem_bytes = 128 << 10;
	need = pd_t_need(test, &cfg);
	pn->budget.cap = others + need + (need / 4);
	pn->budget.peak = 0;
	before = rcu_dereference_protected(pn->filters, true);
	KUNIT_EXPECT_EQ(test, pd_net_apply(pn, &cfg, NULL), 0);
	after = rcu_dereference_protected(pn->filters, true);
	KUNIT_EXPECT_PTR_NE(test, after, before);
	KUNIT_ASSERT_NOT_NULL(test, after);
	KUNIT_EXPECT_EQ(test, after->cfg.filter.mem_bytes, 128ULL << 10);
	KUNIT_EXPECT_EQ(test, pn->budget.held[PD_PART_FILTERS], need);
	KUNIT_EXPECT_LE(test, pn->budget.peak, pn->budget.cap);
	KUNIT_EXPECT_EQ(test, pn->budget.peak, others + need);

	/* a reset at that size is a rebuild in place too */
	KUNIT_EXPECT_EQ(test, pd_net_reset(pn, NULL), 0);
	KUNIT_EXPECT_LE(test, pn->budget.peak, pn->budget.cap);
	KUNIT_EXPECT_NOT_NULL(test, rcu_dereference_protected(pn->filters,
							      true));

	/* too large for the cap even alone: refused, nothing changes */
	before = rcu_dereference_protected(pn->filters, true);
	cfg.filter.mem_bytes = 1 << 20;
	cfg.action = PKTDEDUP_ACTION_DROP;
	err = pd_net_apply(pn, &cfg, NULL);
	KUNIT_EXPECT_EQ(test, err, -E2BIG);
	KUNIT_EXPECT_EQ(test, pn->budget.refused, pd_t_need(test, &cfg));
	KUNIT_EXPECT_PTR_EQ(test, rcu_dereference_protected(pn->filters, true),
			    before);
	KUNIT_EXPECT_EQ(test, pn->cfg.filter.mem_bytes, 128ULL << 10);
	KUNIT_EXPECT_EQ(test, pn->cfg.action, saved.action);
	KUNIT_EXPECT_LE(test, pn->budget.peak, pn->budget.cap);

	/* with room for both, both are held for a moment */
	pn->budget.cap = saved_budget.cap;
	pn->budget.peak = 0;
	total = pd_budget_total(&pn->budget);
	cfg = saved;
	cfg.filter.mem_bytes = 64 << 10;
	need = pd_t_need(test, &cfg);
	KUNIT_EXPECT_EQ(test, pd_net_apply(pn, &cfg, NULL), 0);
	KUNIT_EXPECT_EQ(test, pn->budget.peak, total + need);

	KUNIT_EXPECT_EQ(test, pd_net_apply(pn, &saved, NULL), 0);
	pn->budget.peak = max(saved_budget.peak, pn->budget.peak);
	pn->budget.refused = saved_budget.refused;
	mutex_unlock(&pn->lock);
}

/*
 * The live instance of init_net goes idle and back: idle, it holds
 * nothing (no filters, source windows, counters or hooks) and the
 * module's total drops by what it held; a reset does nothing; enabled
 * again, everything is back. The module's cap across namespaces refuses
 * what the namespace's own cap allows, naming max_total_mem, charging
 * and changing nothing; with room for the new filters but not for old
 * and new at once, they are rebuilt in the old ones' room.
 */
static void pd_t_idle_and_total(struct kunit *test)
{
	struct pd_net *pn = pd_pernet(&init_net);
	struct netlink_ext_ack extack = {};
	u64 held, total, saved_cap = pd_max_total_mem, need;
	struct pd_src_cfg saved_src, src;
	struct pd_config saved, cfg;
	struct pd_filter_set *before;
	struct pd_counts c;

	mutex_lock(&pn->lock);
	saved = pn->cfg;
	saved_src = pn->src.cfg;
	KUNIT_ASSERT_TRUE(test, pn->active);
	/* the new-source filter on: its event worker runs */
	src = saved_src;
	src.newsrc = 1;
	KUNIT_ASSERT_EQ(test, pd_srcs_apply(pn, &src, NULL), 0);
	KUNIT_EXPECT_TRUE(test, delayed_work_pending(&pn->src.events.work));
	held = pd_budget_total(&pn->budget);
	total = pd_budget_total_held();
	KUNIT_EXPECT_GE(test, total, held);
	KUNIT_EXPECT_EQ(test, pn->budget.charged, held);

	pd_net_disable(pn);
	KUNIT_EXPECT_FALSE(test, pn->active);
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(pn->filters));
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(pn->srcs));
	KUNIT_EXPECT_NULL(test, pn->hooks);
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(pn->ctr));
	KUNIT_EXPECT_EQ(test, pd_budget_total(&pn->budget), 0ULL);
	KUNIT_EXPECT_EQ(test, pn->budget.charged, 0ULL);
	KUNIT_EXPECT_EQ(test, pd_budget_total_held(), total - held);
	KUNIT_EXPECT_EQ(test, pd_net_reset(pn, NULL), 0);
	pd_counters_read(pd_t_ctr(pn), 0, &c);
	KUNIT_EXPECT_EQ(test, c.packets, 0ULL);

	/* idle: the worker's next run (it takes the lock) finds nothing */
	mutex_unlock(&pn->lock);
	flush_delayed_work(&pn->src.events.work);
	mutex_lock(&pn->lock);
	KUNIT_EXPECT_FALSE(test, delayed_work_pending(&pn->src.events.work));

	KUNIT_ASSERT_EQ(test, pd_net_enable(pn, &saved, NULL), 0);
	KUNIT_EXPECT_TRUE(test, pn->active);
	/* enabled again, with the filter on: the worker runs again */
	KUNIT_EXPECT_TRUE(test, delayed_work_pending(&pn->src.events.work));
	KUNIT_EXPECT_NOT_NULL(test, pn->hooks);
	KUNIT_EXPECT_NOT_NULL(test, rcu_access_pointer(pn->ctr));
	KUNIT_EXPECT_NOT_NULL(test, rcu_access_pointer(pn->filters));
	KUNIT_EXPECT_NOT_NULL(test, rcu_access_pointer(pn->srcs));
	KUNIT_EXPECT_EQ(test, pd_budget_total(&pn->budget), held);
	KUNIT_EXPECT_EQ(test, pd_budget_total_held(), total);

	/* within the namespace's cap, beyond the module's: refused */
	before = rcu_dereference_protected(pn->filters, true);
	cfg = saved;
	cfg.filter.mem_bytes = 4 << 20;
	need = pd_t_need(test, &cfg);
	KUNIT_ASSERT_LE(test, held - pn->budget.held[PD_PART_FILTERS] + need,
			pn->budget.cap);
	pd_max_total_mem = total - pn->budget.held[PD_PART_FILTERS] + need / 2;
	KUNIT_EXPECT_EQ(test, pd_net_apply(pn, &cfg, &extack), -E2BIG);
	KUNIT_ASSERT_NOT_NULL(test, extack._msg);
	KUNIT_EXPECT_NOT_NULL(test, strstr(extack._msg, "max_total_mem"));
	KUNIT_EXPECT_PTR_EQ(test, rcu_dereference_protected(pn->filters, true),
			    before);
	KUNIT_EXPECT_EQ(test, pn->budget.refused, need);
	KUNIT_EXPECT_EQ(test, pd_budget_total_held(), total);

	/* room for the new filters alone: rebuilt in place, never over */
	need = pn->budget.held[PD_PART_FILTERS];
	pd_max_total_mem = total + need / 2;
	KUNIT_EXPECT_EQ(test, pd_net_apply(pn, &saved, NULL), 0);
	KUNIT_EXPECT_PTR_NE(test, rcu_dereference_protected(pn->filters, true),
			    before);
	KUNIT_EXPECT_EQ(test, pd_budget_total_held(), total);
	KUNIT_EXPECT_EQ(test, pn->budget.charged, held);

	pd_max_total_mem = saved_cap;
	KUNIT_EXPECT_EQ(test, pd_srcs_apply(pn, &saved_src, NULL), 0);
	pn->budget.refused = 0;
	mutex_unlock(&pn->lock);
}

/*
 * The packet path's one call into the source analytics is patched out
 * while no namespace keeps source windows (a second after the last one
 * stops; at once here, the delay flushed) and back as soon as one keeps
 * them; a rebuild with new settings keeps it as it is, and every change
 * leaves the key's count as it found it.
 */
static void pd_t_sources_key(struct kunit *test)
{
	struct static_key *key = &pd_srcs_used.key.key;
	struct pd_net *pn = pd_pernet(&init_net);
	struct pd_src_cfg saved, cfg;
	int n;

	mutex_lock(&pn->lock);
	saved = pn->src.cfg;
	KUNIT_ASSERT_NOT_NULL(test, rcu_access_pointer(pn->srcs));
	static_key_deferred_flush(&pd_srcs_used);
	n = static_key_count(key);
	KUNIT_EXPECT_GE(test, n, 1);

	cfg = saved;
	cfg.counters = 256;	/* rebuilt: on all along */
	KUNIT_EXPECT_EQ(test, pd_srcs_apply(pn, &cfg, NULL), 0);
	static_key_deferred_flush(&pd_srcs_used);
	KUNIT_EXPECT_EQ(test, static_key_count(key), n);

	cfg.enabled = 0;
	KUNIT_EXPECT_EQ(test, pd_srcs_apply(pn, &cfg, NULL), 0);
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(pn->srcs));
	KUNIT_EXPECT_EQ(test, pd_srcs_apply(pn, &cfg, NULL), 0);	/* again */
	static_key_deferred_flush(&pd_srcs_used);
	KUNIT_EXPECT_EQ(test, static_key_count(key), n - 1);
	if (n == 1)	/* the only namespace with windows: patched out */
		KUNIT_EXPECT_FALSE(test, static_key_enabled(key));

	KUNIT_EXPECT_EQ(test, pd_srcs_apply(pn, &saved, NULL), 0);
	KUNIT_EXPECT_TRUE(test, static_key_enabled(key));
	static_key_deferred_flush(&pd_srcs_used);
	KUNIT_EXPECT_EQ(test, static_key_count(key), n);
	mutex_unlock(&pn->lock);
}

/*
 * The source windows share the budget: with a cap that holds the filters
 * and the new windows but not the old windows too, the windows are
 * rebuilt in the old ones' room; beyond it, refused and unchanged.
 */
static void pd_t_budget_sources(struct kunit *test)
{
	struct pd_net *pn = pd_pernet(&init_net);
	struct pd_src_cfg saved, cfg;
	struct pd_srcs *before, *after;
	struct pd_budget saved_budget;
	struct pd_filter_plan plan;
	u64 others, need;

	mutex_lock(&pn->lock);
	saved = pn->src.cfg;
	saved_budget = pn->budget;
	before = rcu_dereference_protected(pn->srcs, true);
	KUNIT_ASSERT_NOT_NULL(test, before);
	cfg = saved;
	cfg.counters = 512;
	KUNIT_ASSERT_EQ(test, pd_srcs_check(&cfg, &plan, NULL), 0);
	need = pd_srcs_bytes(&cfg, &plan);
	others = pd_budget_total(&pn->budget) -
		 pn->budget.held[PD_PART_SOURCES];
	pn->budget.cap = others + need;
	pn->budget.peak = 0;
	KUNIT_EXPECT_EQ(test, pd_srcs_apply(pn, &cfg, NULL), 0);
	after = rcu_dereference_protected(pn->srcs, true);
	KUNIT_ASSERT_NOT_NULL(test, after);
	KUNIT_EXPECT_PTR_NE(test, after, before);
	KUNIT_EXPECT_EQ(test, after->cfg.counters, 512u);
	KUNIT_EXPECT_EQ(test, pn->budget.held[PD_PART_SOURCES], need);
	KUNIT_EXPECT_EQ(test, pn->budget.peak, pn->budget.cap);

	cfg.counters = 4096;
	KUNIT_EXPECT_EQ(test, pd_srcs_apply(pn, &cfg, NULL), -E2BIG);
	KUNIT_EXPECT_PTR_EQ(test, rcu_dereference_protected(pn->srcs, true),
			    after);
	KUNIT_EXPECT_EQ(test, pn->src.cfg.counters, 512u);

	pn->budget.cap = saved_budget.cap;
	KUNIT_EXPECT_EQ(test, pd_srcs_apply(pn, &saved, NULL), 0);
	pn->budget.peak = max(saved_budget.peak, pn->budget.peak);
	pn->budget.refused = saved_budget.refused;
	mutex_unlock(&pn->lock);
}

/* A namespace of a user namespace that user uid created. */
static struct pd_net *pd_t_userns_net(struct kunit *test, u32 uid)
{
	struct pd_net *pn = kunit_kzalloc(test, sizeof(*pn), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, pn);
	mutex_init(&pn->lock);
	pd_budget_init(&pn->budget, &init_net);
	pn->budget.cap = pd_max_userns_mem;
	pn->budget.cap_source = PKTDEDUP_CAP_SOURCE_USERNS;
	pn->budget.userns = true;
	pn->budget.uid = KUIDT_INIT(uid);
	return pn;
}

/* Admit need bytes of filters to pn and hold them; the admission's verdict. */
static int pd_t_hold(struct pd_net *pn, u64 need,
		     struct netlink_ext_ack *extack)
{
	int way;

	mutex_lock(&pn->lock);
	way = pd_budget_admit(pn, PD_PART_FILTERS, need, extack);
	if (way >= 0)
		pd_budget_held(pn, PD_PART_FILTERS, need);
	mutex_unlock(&pn->lock);
	return way;
}

/*
 * Namespaces of other user namespaces are counted per user and together:
 * one user's second namespace is refused past max_user_mem (naming it),
 * another user's past the share init_reserve_mem leaves; what a user's
 * namespaces hold is theirs until each goes; the initial user namespace's
 * instance is in neither count.
 */
static void pd_t_budget_users(struct kunit *test)
{
	u64 saved_user = pd_max_user_mem, saved_res = pd_init_reserve_mem;
	u64 saved_total = pd_max_total_mem, user, others, others0;
	struct pd_net *a1 = pd_t_userns_net(test, 60001);
	struct pd_net *a2 = pd_t_userns_net(test, 60001);
	struct pd_net *b1 = pd_t_userns_net(test, 60002);
	struct netlink_ext_ack extack = {};

	pd_budget_report(&a1->budget, &user, &others0);
	pd_max_total_mem = pd_budget_total_held() + (64ULL << 20);
	pd_max_user_mem = 1 << 20;
	/* a share of 1.5 MiB beside what other user namespaces hold */
	pd_init_reserve_mem = pd_max_total_mem - others0 - (3ULL << 19);

	KUNIT_EXPECT_GE(test, pd_t_hold(a1, 600 << 10, &extack), 0);
	KUNIT_EXPECT_EQ(test, pd_t_hold(a2, 600 << 10, &extack), -E2BIG);
	KUNIT_ASSERT_NOT_NULL(test, extack._msg);
	KUNIT_EXPECT_NOT_NULL(test, strstr(extack._msg, "max_user_mem"));
	KUNIT_EXPECT_EQ(test, a2->budget.charged, 0ULL);
	KUNIT_EXPECT_GE(test, pd_t_hold(a2, 300 << 10, &extack), 0);
	pd_budget_report(&a2->budget, &user, &others);
	KUNIT_EXPECT_EQ(test, user, 900ULL << 10);
	KUNIT_EXPECT_EQ(test, others, others0 + (900 << 10));
	/* the same user through its other namespace: the same count */
	KUNIT_EXPECT_PTR_EQ(test, a1->budget.owner, a2->budget.owner);

	/* another user: under max_user_mem, but past the share */
	extack._msg = NULL;
	KUNIT_EXPECT_EQ(test, pd_t_hold(b1, 700 << 10, &extack), -E2BIG);
	KUNIT_ASSERT_NOT_NULL(test, extack._msg);
	KUNIT_EXPECT_NOT_NULL(test, strstr(extack._msg, "init_reserve_mem"));
	KUNIT_EXPECT_GE(test, pd_t_hold(b1, 500 << 10, &extack), 0);
	KUNIT_EXPECT_FALSE(test, pd_budget_fits(b1, 700 << 10));
	KUNIT_EXPECT_TRUE(test, pd_budget_fits(b1, 600 << 10));

	/* a1 goes: its user's count and the share keep the others' */
	pd_budget_release(a1);
	pd_budget_report(&a2->budget, &user, &others);
	KUNIT_EXPECT_EQ(test, user, 300ULL << 10);
	KUNIT_EXPECT_EQ(test, others, others0 + (800 << 10));
	pd_budget_release(a2);
	pd_budget_release(b1);
	pd_budget_report(&b1->budget, &user, &others);
	KUNIT_EXPECT_EQ(test, others, others0);
	pd_max_user_mem = saved_user;
	pd_init_reserve_mem = saved_res;
	pd_max_total_mem = saved_total;
}

/* Free pages now, those on the per-CPU lists given back first. */
static long pd_t_free_pages(void)
{
	drain_all_pages(NULL);
	return global_zone_page_state(NR_FREE_PAGES);
}

/* What a vmalloc()ed address's area holds: its pages and page array. */
static u64 pd_t_vm_bytes(const void *p)
{
	struct vm_struct *area = find_vm_area(p);
	u64 b;

	if (!area)
		return 0;
	b = (u64)area->nr_pages << PAGE_SHIFT;
	if (is_vmalloc_addr(area->pages))
		return b + pd_t_vm_bytes(area->pages);
	return b + ksize(area->pages);
}

/*
 * What one pd_mem_zalloc() takes, as the allocator reports it: a slab
 * object's ksize(), a vmalloc() area's pages, or the pages the free count
 * lost (tried a few times: the kernel may allocate meanwhile).
 */
static u64 pd_t_taken(struct kunit *test, size_t size)
{
	long before, after;
	u64 got = 0;
	int i;
	void *p;

	for (i = 0; i < 5; i++) {
		before = pd_t_free_pages();
		p = pd_mem_zalloc(size, NUMA_NO_NODE);
		after = pd_t_free_pages();
		KUNIT_ASSERT_NOT_NULL(test, p);
		if (size <= KMALLOC_MAX_CACHE_SIZE)
			got = ksize(p);
		else if (is_vmalloc_addr(p))
			got = pd_t_vm_bytes(p);
		else
			got = (u64)(before - after) << PAGE_SHIFT;
		pd_mem_free(p, size);
		if (got == pd_mem_size(size))
			break;
	}
	return got;
}

/*
 * The allocations the caps govern take what pd_mem_size() says, to the
 * byte, whatever the size: slab objects their size class, larger ones
 * exactly their pages (not kvmalloc()'s power of two: 384 KiB took 512,
 * 544 KiB 1 MiB), above 4 MiB vmalloc()'s 2 MiB units with their page
 * array; and pd_mem_taken() goes back to where it was.
 */
static void pd_t_mem_sizes(struct kunit *test)
{
	static const size_t sizes[] = {
		1, 100, 232, 4097, 8192, 8193, 12 * 32768, 17 * 32768,
		100000, 3 << 20, (4 << 20) - 1, 4 << 20, (5 << 20) + 7,
		(8 << 20) + 1,
	};
	u64 taken0 = pd_mem_taken();
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		u64 want = pd_mem_size(sizes[i]);

		KUNIT_EXPECT_EQ_MSG(test, pd_t_taken(test, sizes[i]), want,
				    "size %zu", sizes[i]);
		KUNIT_EXPECT_GE(test, want, (u64)sizes[i]);
	}
	KUNIT_EXPECT_EQ(test, pd_mem_size(12 * 32768), 12ULL * 32768);
	KUNIT_EXPECT_EQ(test, pd_mem_size(17 * 32768), 17ULL * 32768);
	KUNIT_EXPECT_EQ(test, pd_mem_size(100000), (u64)PAGE_ALIGN(100000));
	KUNIT_EXPECT_EQ(test, pd_mem_taken(), taken0);
}

/*
 * pd_fset_bytes() and pd_srcs_bytes() predict, to the byte, what a build
 * then takes (pd_mem_taken(): every allocation's size as made), for odd
 * sizes of every part: per-CPU filters not a power of two, small and above
 * 4 MiB, a shared filter in shards and lock-free, source windows of 17
 * sub-windows with top talkers and new sources.
 */
static void pd_t_mem_predicted(struct kunit *test)
{
	static const struct {
		u64 mem;
		u8 scope;
		u32 shards;
	} sets[] = {
		{ 100000, PKTDEDUP_SCOPE_PERCPU, 0 },
		{ (5 << 20) + 4096, PKTDEDUP_SCOPE_PERCPU, 0 },
		{ 3 << 20, PKTDEDUP_SCOPE_SHARED, 0 },
		{ 300000, PKTDEDUP_SCOPE_SHARED, 8 },
	};
	struct pd_filter_plan plan;
	struct pd_filter_set *fs;
	struct pd_src_cfg src;
	struct pd_config cfg;
	struct pd_srcs *s;
	unsigned int i;
	u64 t0;

	for (i = 0; i < ARRAY_SIZE(sets); i++) {
		pd_config_defaults(&cfg);
		cfg.filter.mem_bytes = sets[i].mem;
		cfg.scope = sets[i].scope;
		cfg.shards = sets[i].shards;
		KUNIT_ASSERT_EQ(test, pd_fset_plan(NULL, &cfg, &plan, NULL), 0);
		t0 = pd_mem_taken();
		fs = pd_fset_build(&cfg, &plan, num_online_cpus(), NULL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(fs));
		KUNIT_EXPECT_EQ_MSG(test, pd_mem_taken() - t0,
				    pd_fset_bytes(&cfg, &plan),
				    "filters %u of %llu", i, sets[i].mem);
		KUNIT_EXPECT_EQ(test, fs->cpus.bytes, pd_fset_bytes(&cfg, &plan));
		pd_fset_free(fs);
		KUNIT_EXPECT_EQ(test, pd_mem_taken(), t0);
	}
	pd_srcs_defaults(&src);
	src.nsub = 17;
	src.counters = 100;
	src.newsrc = 1;
	src.newsrc_mem = 70000;
	src.ring = 512;
	KUNIT_ASSERT_EQ(test, pd_srcs_check(&src, &plan, NULL), 0);
	t0 = pd_mem_taken();
	s = pd_srcs_build(&src, num_online_cpus(), NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(s));
	KUNIT_EXPECT_EQ(test, pd_mem_taken() - t0, pd_srcs_bytes(&src, &plan));
	KUNIT_EXPECT_EQ(test, pd_srcs_mem(s), pd_srcs_bytes(&src, &plan));
	pd_srcs_free(s);
	KUNIT_EXPECT_EQ(test, pd_mem_taken(), t0);
}

/* A namespace whose budget a test may fill: cap bytes, counted as any. */
static struct pd_net *pd_t_budget_net(struct kunit *test, u64 cap)
{
	struct pd_net *pn = pd_t_net(test);

	pd_budget_init(&pn->budget, &init_net);
	pn->budget.cap = cap;
	return pn;
}

/*
 * A CPU that comes up (the hotplug callback, driven here: UML has one
 * CPU) while per-CPU filters are in force: refused by the namespace's cap
 * it gets no filter, its packets pass counted as unjudged, and the
 * refusal is kept with its need; admitted, it gets its filter, charged
 * (what the budget holds is what was allocated), and its packets are
 * judged; refused by the module's cap across namespaces, that is said.
 */
static void pd_t_cpu_up_filters(struct kunit *test)
{
	u64 saved_total = pd_max_total_mem, t0 = pd_mem_taken(), one;
	struct pd_net *pn = pd_t_budget_net(test, 0);
	struct pd_filter_plan plan;
	struct pd_filter_set *fs;
	struct pd_config cfg;
	struct pd_counts t;
	int cpu = raw_smp_processor_id();
	u32 mark;

	pd_config_defaults(&cfg);
	cfg.filter.mem_bytes = 100000;
	KUNIT_ASSERT_EQ(test, pd_fset_plan(NULL, &cfg, &plan, NULL), 0);
	/* built while no CPU was online: none has a filter */
	fs = pd_fset_build(&cfg, &plan, 0, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(fs));
	KUNIT_EXPECT_EQ(test, fs->cpus.bytes, pd_fset_bytes_n(&cfg, &plan, 0));
	one = pd_mem_size(plan.bytes);
	KUNIT_EXPECT_EQ(test, fs->cpus.cpu_bytes, one);
	KUNIT_EXPECT_EQ(test, pd_mem_taken() - t0, fs->cpus.bytes);
	KUNIT_EXPECT_NULL(test, pd_fset_cpu(fs, cpu));
	KUNIT_EXPECT_EQ(test, pd_fset_count(fs), 0u);

	/* in force with room for the set but not for a CPU's cells */
	mutex_lock(&pn->lock);
	pn->budget.cap = fs->cpus.bytes + one - 1;
	pd_budget_held(pn, PD_PART_FILTERS, fs->cpus.bytes);
	pd_fset_live(pn, fs);
	mutex_unlock(&pn->lock);
	KUNIT_EXPECT_TRUE(test, fs->cpus.live);
	KUNIT_EXPECT_NULL(test, pd_fset_cpu(fs, cpu));
	KUNIT_EXPECT_EQ(test, pd_fset_cpus_without(fs), num_online_cpus());
	KUNIT_EXPECT_TRUE(test, pn->budget.cpu_refused);
	KUNIT_EXPECT_EQ(test, pn->budget.cpu_why, PKTDEDUP_REFUSAL_CAP);
	KUNIT_EXPECT_EQ(test, pn->budget.cpu_need, one);
	KUNIT_EXPECT_EQ(test, pn->budget.held[PD_PART_FILTERS], fs->cpus.bytes);
	/* its packets pass, counted */
	KUNIT_EXPECT_EQ(test, pd_t_run(test, pn, fs, 1, 64, &mark), NF_ACCEPT);
	pd_t_totals(pn, fs, &t);
	KUNIT_EXPECT_EQ(test, t.unjudged, 1ULL);
	KUNIT_EXPECT_EQ(test, t.packets, 0ULL);

	/* the module's cap across namespaces refuses it too */
	pn->budget.cap = U64_MAX;
	pd_max_total_mem = pd_budget_total_held();
	KUNIT_EXPECT_EQ(test, pd_cpus_up(&fs->cpus, cpu), 0);
	KUNIT_EXPECT_NULL(test, pd_fset_cpu(fs, cpu));
	KUNIT_EXPECT_EQ(test, pn->budget.cpu_why, PKTDEDUP_REFUSAL_TOTAL);
	pd_max_total_mem = saved_total;

	/* room: the CPU coming up gets its filter, charged */
	KUNIT_EXPECT_EQ(test, pd_cpus_up(&fs->cpus, cpu), 0);
	KUNIT_ASSERT_NOT_NULL(test, pd_fset_cpu(fs, cpu));
	KUNIT_EXPECT_EQ(test, fs->cpus.bytes, pd_fset_bytes_n(&cfg, &plan, 1));
	KUNIT_EXPECT_EQ(test, pn->budget.held[PD_PART_FILTERS], fs->cpus.bytes);
	KUNIT_EXPECT_EQ(test, pn->budget.charged, fs->cpus.bytes);
	KUNIT_EXPECT_EQ(test, pd_mem_taken() - t0, fs->cpus.bytes);
	KUNIT_EXPECT_EQ(test, pd_fset_count(fs), 1u);
	/* again: it has one, nothing more is taken */
	KUNIT_EXPECT_EQ(test, pd_cpus_up(&fs->cpus, cpu), 0);
	KUNIT_EXPECT_EQ(test, pn->budget.held[PD_PART_FILTERS], fs->cpus.bytes);
	/* judged now: a first sighting, then its copy */
	pd_t_run(test, pn, fs, 1, 64, &mark);
	pd_t_run(test, pn, fs, 1, 64, &mark);
	pd_t_totals(pn, fs, &t);
	KUNIT_EXPECT_EQ(test, t.packets, 2ULL);
	KUNIT_EXPECT_EQ(test, t.duplicates, 1ULL);
	KUNIT_EXPECT_EQ(test, t.unjudged, 1ULL);

	/* withdrawn: no CPU coming up charges the namespace any more */
	pd_fset_leave(fs);
	KUNIT_EXPECT_FALSE(test, fs->cpus.live);
	KUNIT_EXPECT_NULL(test, fs->cpus.pn);
	pd_fset_free(fs);
	KUNIT_EXPECT_EQ(test, pd_mem_taken(), t0);
	pd_budget_release(pn);
	pd_t_net_free(pn);
}

/*
 * The same for the source windows: a CPU refused counts no address (the
 * packet path skips it), one admitted gets its windows and counts.
 */
static void pd_t_cpu_up_sources(struct kunit *test)
{
	struct pd_net *pn = pd_t_budget_net(test, 0);
	int cpu = raw_smp_processor_id();
	struct pd_filter_plan plan;
	struct pd_src_cfg cfg;
	struct pd_srcs *s;
	u64 src, dst, t0 = pd_mem_taken();

	pd_srcs_defaults(&cfg);
	cfg.enabled = 1;
	cfg.nsub = 17;
	KUNIT_ASSERT_EQ(test, pd_srcs_check(&cfg, &plan, NULL), 0);
	s = pd_srcs_build(&cfg, 0, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(s));
	KUNIT_EXPECT_EQ(test, pd_mem_taken() - t0, pd_srcs_mem(s));
	KUNIT_EXPECT_NULL(test, pd_src_of(s, cpu));
	rcu_assign_pointer(pn->srcs, s);
	mutex_lock(&pn->lock);
	pn->budget.cap = pd_srcs_mem(s);
	pd_budget_held(pn, PD_PART_SOURCES, pd_srcs_mem(s));
	pd_cpus_live(&s->cpus, pn, PD_PART_SOURCES);
	KUNIT_EXPECT_EQ(test, pd_srcs_cpus_without(pn), num_online_cpus());
	mutex_unlock(&pn->lock);
	KUNIT_EXPECT_EQ(test, pn->budget.cpu_need, s->cpus.cpu_bytes);
	pd_t_src(pn, 1);	/* counted nowhere, and no fault */
	KUNIT_ASSERT_EQ(test, pd_srcs_distinct(s, cfg.nsub, &src, &dst), 0);
	KUNIT_EXPECT_EQ(test, src, 0ULL);

	pn->budget.cap = U64_MAX;
	KUNIT_EXPECT_EQ(test, pd_cpus_up(&s->cpus, cpu), 0);
	KUNIT_ASSERT_NOT_NULL(test, pd_src_of(s, cpu));
	KUNIT_EXPECT_EQ(test, pn->budget.held[PD_PART_SOURCES], pd_srcs_mem(s));
	KUNIT_EXPECT_EQ(test, pd_mem_taken() - t0, pd_srcs_mem(s));
	KUNIT_EXPECT_EQ(test, pd_srcs_mem(s),
			pd_srcs_bytes_n(&cfg, &plan, 1));
	pd_t_src(pn, 1);
	pd_t_src(pn, 2);
	KUNIT_ASSERT_EQ(test, pd_srcs_distinct(s, cfg.nsub, &src, &dst), 0);
	KUNIT_EXPECT_EQ(test, src, 2ULL);
	RCU_INIT_POINTER(pn->srcs, NULL);
	synchronize_rcu();
	pd_cpus_leave(&s->cpus);
	pd_srcs_free(s);
	KUNIT_EXPECT_EQ(test, pd_mem_taken(), t0);
	pd_budget_release(pn);
	pd_t_net_free(pn);
}

/* A UDP/IPv4 packet of len bytes whose payload bytes are (i * 13 + salt). */
static void pd_t_long(u8 *buf, u32 len, u8 salt)
{
	u32 i;

	pd_t_packet(buf, false, 3, 64);
	buf[2] = (u8)(len >> 8);
	buf[3] = (u8)len;
	buf[24] = (u8)((len - 20) >> 8);	/* UDP length */
	buf[25] = (u8)(len - 20);
	for (i = 28; i < len; i++)
		buf[i] = (u8)(i * 13 + salt);
}

/*
 * An skb of bytes[0, len): linear bytes in its head, the rest in page
 * fragments of at most frag bytes each, or (frag 0) in one skb on its
 * frag list, as GRO and IP defragmentation build them.
 */
static struct sk_buff *pd_t_skb_paged(struct kunit *test, const u8 *bytes,
				      u32 len, u32 linear, u32 frag)
{
	struct sk_buff *skb = alloc_skb(64 + linear, GFP_KERNEL), *list;
	u32 at = linear, n, i = 0;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, 64);
	skb_reset_network_header(skb);
	skb_put_data(skb, bytes, linear);
	if (!frag) {
		list = alloc_skb(len - linear, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, list);
		skb_put_data(list, bytes + linear, len - linear);
		skb_shinfo(skb)->frag_list = list;
		skb->len += list->len;
		skb->data_len += list->len;
		skb->truesize += list->truesize;
		return skb;
	}
	for (; at < len; at += n, i++) {
		struct page *page = alloc_page(GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, page);
		n = min_t(u32, frag, len - at);
		memcpy(page_address(page), bytes + at, n);
		skb_add_rx_frag(skb, i, page, 0, n, PAGE_SIZE);
	}
	return skb;
}

/*
 * The key of every byte from skbs whose tail lies past the headers' room:
 * linear, in page fragments of several sizes, on a frag list; each equals
 * the flat bytes' key, and a copy that differs only in its last byte (in
 * the last fragment) gets another key.
 */
static void pd_t_skb_keys_long(struct kunit *test)
{
	static const u32 lens[] = { 300, 1500, 2100, 9000, 30000 };
	static const u32 shapes[][2] = {	/* linear bytes, fragment size */
		{ 0xffffffff, 0 }, { 64, 4096 }, { 300, 1000 }, { 128, 0 },
	};
	static const struct pd_hkey hk = { { 1, 2 } };
	struct pd_filter_set *fs = pd_t_filters(test, PKTDEDUP_KEY_PACKET,
					     PKTDEDUP_ACTION_COUNT);
	u8 *scratch = kunit_kzalloc(test, PD_SCRATCH, GFP_KERNEL);
	u8 *buf = kunit_kzalloc(test, 30000, GFP_KERNEL);
	unsigned int i, s, last;

	KUNIT_ASSERT_NOT_NULL(test, scratch);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, fs->kopts.payload, PKTDEDUP_PAYLOAD_ALL);
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		for (last = 0; last < 2; last++) {
			struct pd_key flat, k;
			struct pd_pkt pkt;
			u64 want;

			pd_t_long(buf, lens[i], 5);
			buf[lens[i] - 1] ^= (u8)last;
			KUNIT_ASSERT_EQ(test, (int)pd_key_extract(buf, lens[i],
								  &fs->kopts,
								  &flat),
					PD_PARSE_OK);
			want = pd_key_hash64(&flat, &hk);
			for (s = 0; s < ARRAY_SIZE(shapes); s++) {
				u32 lin = min(shapes[s][0], lens[i]);
				struct sk_buff *skb;

				/* a frag list needs bytes for it */
				if (!shapes[s][1] && lin == lens[i])
					continue;
				skb = pd_t_skb_paged(test, buf, lens[i], lin,
						     shapes[s][1]);
				KUNIT_EXPECT_EQ(test, (int)pd_skb_key(skb, fs,
								      scratch,
								      &pkt, &k,
								      0),
						PD_PARSE_OK);
				KUNIT_EXPECT_EQ_MSG(test,
						    pd_key_hash64(&k, &hk), want,
						    "%u bytes, %u linear, frags %u",
						    lens[i], lin, shapes[s][1]);
				kfree_skb(skb);
			}
			if (last) {
				struct pd_key first;

				pd_t_long(buf, lens[i], 5);
				pd_key_extract(buf, lens[i], &fs->kopts, &first);
				KUNIT_EXPECT_NE(test, pd_key_hash64(&first, &hk),
						want);
			}
		}
	}
	pd_fset_free(fs);
}

/*
 * A multi-buffer XDP frame (a jumbo frame: Ethernet and the first bytes
 * in its first buffer, the rest in fragments) judged as the same packet
 * in one buffer: a copy of it is dropped; a frame that differs only in
 * its last fragment's last byte is not, and neither is one whose
 * fragments end before its IP length says (keyed on what it holds).
 */
static void pd_t_xdp_multibuffer(struct kunit *test)
{
	struct pd_net *pn = pd_t_net(test);
	struct pd_filter_set *fs = pd_t_filters(test, PKTDEDUP_KEY_PACKET,
					     PKTDEDUP_ACTION_DROP);
	struct pd_hooks *h = pd_t_xdp_hooks(test, pn, fs);
	u8 *flat = kunit_kzalloc(test, ETH_HLEN + 9000, GFP_KERNEL);
	struct page *head = alloc_page(GFP_KERNEL), *pages[3];
	const u32 first = 200, len = ETH_HLEN + 9000;
	struct skb_shared_info *si;
	struct xdp_buff xdp;
	struct pd_counts t;
	u32 at, i;

	KUNIT_ASSERT_NOT_NULL(test, flat);
	KUNIT_ASSERT_NOT_NULL(test, head);
	pd_t_frame(flat, NULL, 0, htons(ETH_P_IP), false, 1);
	pd_t_long(flat + ETH_HLEN, 9000, 9);
	/* the frame: first bytes in the head page, the rest in 3 pages */
	xdp_init_buff(&xdp, PAGE_SIZE, NULL);
	xdp_prepare_buff(&xdp, page_address(head), XDP_PACKET_HEADROOM, first,
			 false);
	memcpy(xdp.data, flat, first);
	si = xdp_get_shared_info_from_buff(&xdp);
	memset(si, 0, sizeof(*si));
	for (i = 0, at = first; i < 3; i++) {
		u32 n = min_t(u32, PAGE_SIZE, len - at);

		pages[i] = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		memcpy(page_address(pages[i]), flat + at, n);
		__skb_frag_set_page(&si->frags[i], pages[i]);
		skb_frag_off_set(&si->frags[i], 0);
		skb_frag_size_set(&si->frags[i], n);
		si->xdp_frags_size += n;
		at += n;
	}
	KUNIT_ASSERT_EQ(test, at, len);
	si->nr_frags = 3;
	xdp_buff_set_frags_flag(&xdp);
	KUNIT_ASSERT_EQ(test, xdp_get_buff_len(&xdp), len);

	rcu_read_lock();
	KUNIT_EXPECT_FALSE(test, pd_xdp_frame(pn, h, &xdp, false, -1));
	/* the same packet in one buffer: a copy */
	KUNIT_EXPECT_TRUE(test, pd_t_xdp(pn, h, flat, len, false));
	/* its last byte changed, in the last fragment: another packet */
	((u8 *)page_address(pages[2]))[skb_frag_size(&si->frags[2]) - 1] ^= 1;
	KUNIT_EXPECT_FALSE(test, pd_xdp_frame(pn, h, &xdp, false, -1));
	KUNIT_EXPECT_TRUE(test, pd_xdp_frame(pn, h, &xdp, false, -1));
	/* fragments that end before the IP length: keyed on what is there */
	skb_frag_size_sub(&si->frags[2], 100);
	si->xdp_frags_size -= 100;
	KUNIT_EXPECT_FALSE(test, pd_xdp_frame(pn, h, &xdp, false, -1));
	rcu_read_unlock();
	pd_t_totals(pn, fs, &t);
	KUNIT_EXPECT_EQ(test, t.dropped, 2ULL);
	RCU_INIT_POINTER(pn->filters, NULL);
	for (i = 0; i < 3; i++)
		__free_page(pages[i]);
	__free_page(head);
	pd_fset_free(fs);
}

static struct kunit_case pd_module_cases[] = {
	KUNIT_CASE(pd_t_skb_keys),
	KUNIT_CASE(pd_t_skb_keys_long),
	KUNIT_CASE(pd_t_xdp_multibuffer),
	KUNIT_CASE(pd_t_skb_keys_behind_tags),
	KUNIT_CASE(pd_t_skb_truncated),
	KUNIT_CASE(pd_t_actions),
	KUNIT_CASE(pd_t_defer_depth),
	KUNIT_CASE(pd_t_dev_counters),
	KUNIT_CASE(pd_t_deferred),
	KUNIT_CASE(pd_t_families),
	KUNIT_CASE(pd_t_unparsed),
	KUNIT_CASE(pd_t_xdp_frames),
	KUNIT_CASE(pd_t_distinct),
	KUNIT_CASE(pd_t_nonip_no_sources),
	KUNIT_CASE(pd_t_srcs_aligned),
	KUNIT_CASE(pd_t_sources),
	KUNIT_CASE(pd_t_sources_defaults),
	KUNIT_CASE(pd_t_reconfigure),
	KUNIT_CASE(pd_t_step_bound),
	KUNIT_CASE(pd_t_placements),
	KUNIT_CASE(pd_t_settings_rows),
	KUNIT_CASE(pd_t_fixed_seed),
	KUNIT_CASE(pd_t_budget),
	KUNIT_CASE(pd_t_idle_and_total),
	KUNIT_CASE(pd_t_budget_users),
	KUNIT_CASE(pd_t_budget_sources),
	KUNIT_CASE(pd_t_sources_key),
	KUNIT_CASE(pd_t_mem_sizes),
	KUNIT_CASE(pd_t_mem_predicted),
	KUNIT_CASE(pd_t_cpu_up_filters),
	KUNIT_CASE(pd_t_cpu_up_sources),
	{}
};

static struct kunit_suite pd_module_suite = {
	.name = "pktdedup-module",
	.test_cases = pd_module_cases,
};

kunit_test_suite(pd_module_suite);
