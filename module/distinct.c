// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: distinct source and destination addresses within a recent
 * time window, always on.
 *
 * Each CPU keeps, for sources and for destinations, a jumping window of
 * HyperLogLog sketches (core/window.c): the window is cut into
 * sub-windows ("ticks" of jiffies); a reader merges the sketches of every
 * CPU and of the sub-windows it asks about, so the answer is the
 * cardinality of the union, never a sum of per-CPU counts. Memory: 2 x
 * subwindows x 16 KiB per possible CPU, charged to the memory cgroup of
 * the namespace's creator.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "core/rng.h"
#include "pktdedup.h"

int pd_distinct_init(struct pd_net *pn, u32 window_s, u32 nsub)
{
	size_t bytes = pd_win_bytes(nsub);
	int cpu;

	pn->dist_nsub = nsub;
	pn->dist_window_s = window_s;
	pn->dist_tick_j = max_t(u64, 1, div_u64((u64)window_s * HZ, nsub));
	pn->dist_seed[0] = get_random_u32();
	pn->dist_seed[1] = get_random_u32();
	pn->dist = alloc_percpu_gfp(struct pd_distinct, GFP_KERNEL_ACCOUNT);
	if (!pn->dist)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct pd_distinct *d = per_cpu_ptr(pn->dist, cpu);
		int node = cpu_to_node(cpu);
		void *s = kvzalloc_node(bytes, GFP_KERNEL_ACCOUNT, node);
		void *t = kvzalloc_node(bytes, GFP_KERNEL_ACCOUNT, node);

		if (!s || !t || pd_win_init(&d->src, nsub, s) ||
		    pd_win_init(&d->dst, nsub, t)) {
			kvfree(s);
			kvfree(t);
			pd_distinct_free(pn);
			return -ENOMEM;
		}
	}
	return 0;
}

void pd_distinct_free(struct pd_net *pn)
{
	int cpu;

	if (!pn->dist)
		return;
	for_each_possible_cpu(cpu) {
		struct pd_distinct *d = per_cpu_ptr(pn->dist, cpu);

		kvfree(d->src.sk);
		kvfree(d->dst.sk);
	}
	free_percpu(pn->dist);
	pn->dist = NULL;
}

static u64 pd_distinct_tick(const struct pd_net *pn)
{
	return div64_u64(get_jiffies_64(), pn->dist_tick_j);
}

/* 64 well-mixed bits of an address: one seeded jhash, then splitmix64. */
static u64 pd_addr_hash(const u8 *addr, u8 len, u32 seed)
{
	u32 h = jhash(addr, len, seed);
	u64 s = ((u64)h << 32) | h;

	return pd_rng_next(&s);
}

/* Count pkt's addresses on this CPU; BHs are off. */
void pd_distinct_add(struct pd_net *pn, const struct pd_pkt *pkt)
{
	struct pd_distinct *d;
	u64 tick;

	if (!pn->dist)
		return;
	d = this_cpu_ptr(pn->dist);
	tick = pd_distinct_tick(pn);
	pd_win_add(&d->src, tick, pd_addr_hash(pkt->src, pkt->addr_len,
					       pn->dist_seed[0]));
	pd_win_add(&d->dst, tick, pd_addr_hash(pkt->dst, pkt->addr_len,
					       pn->dist_seed[1]));
}

/*
 * Distinct sources and destinations over the last `last` sub-windows, all
 * CPUs merged. The CPUs may be writing their sketches: a register is a
 * byte, read whole; at worst a reader misses the newest few additions.
 */
int pd_distinct_count(struct pd_net *pn, u32 last, u64 *src, u64 *dst)
{
	struct pd_hll *u = kvzalloc(2 * sizeof(*u), GFP_KERNEL);
	u64 now;
	int cpu;

	if (!u)
		return -ENOMEM;
	if (!pn->dist) {
		kvfree(u);
		return -ENODATA;
	}
	now = pd_distinct_tick(pn);
	for_each_possible_cpu(cpu) {
		struct pd_distinct *d = per_cpu_ptr(pn->dist, cpu);

		/* racing with the sketches' CPU is benign, as said above */
		data_race(pd_win_collect(&d->src, now, last, &u[0]));
		/* and here too */
		data_race(pd_win_collect(&d->dst, now, last, &u[1]));
	}
	*src = pd_hll_estimate(&u[0]);
	*dst = pd_hll_estimate(&u[1]);
	kvfree(u);
	return 0;
}
