// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: the statistics as their readers see them (GET_STATS, its
 * per-CPU dump, /proc/net/pktdedup/stats and devices).
 *
 * Anyone may read them, in a loop, on a machine with hundreds of possible
 * CPUs and filters as large as the namespace's cap. So a read takes no
 * namespace lock (a configuration change, or the device notifier holding
 * RTNL, never waits for it); it holds the filters by a reference, never
 * inside a long RCU read-side section (which would hold up every grace
 * period, and with them whoever waits for one under RTNL); it reads the
 * counters under RCU one CPU at a time; and it reads at most
 * PD_OCC_READ_BYTES of the filters (core/occ.h: the occupancy is exact
 * when they fit, estimated from evenly spaced lines when they do not), a
 * shared filter once, yielding the CPU between filters.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sched.h>

#include "pktdedup.h"

/*
 * The counters of one CPU since the last reset; zeros without counters
 * (an idle instance). Under RCU, or pn->lock.
 */
void pd_counters_read(const struct pd_counters *ctr, int cpu,
		      struct pd_counts *c)
{
	const struct pd_cpu_stats *st;
	const struct pd_counts *base;
	struct pd_counts b;
	unsigned int seq, i;

	if (!ctr) {
		memset(c, 0, sizeof(*c));
		return;
	}
	st = per_cpu_ptr(ctr->cpu, cpu);
	base = per_cpu_ptr(ctr->base, cpu);
	do {
		seq = u64_stats_fetch_begin(&st->syncp);
		c->packets = u64_stats_read(&st->packets);
		c->duplicates = u64_stats_read(&st->duplicates);
		c->marked = u64_stats_read(&st->marked);
		c->dropped = u64_stats_read(&st->dropped);
		c->unparsed = u64_stats_read(&st->unparsed);
		c->nonip = u64_stats_read(&st->nonip);
		c->unjudged = u64_stats_read(&st->unjudged);
		for (i = 0; i < PD_NENCAPS; i++) {
			c->decap[i] = u64_stats_read(&st->decap[i]);
			c->decap_err[i] = u64_stats_read(&st->decap_err[i]);
		}
	} while (u64_stats_fetch_retry(&st->syncp, seq));
	/* a reset writes the base under pn->lock: a reader may be one behind */
	b = data_race(*base);
	c->packets -= b.packets;
	c->duplicates -= b.duplicates;
	c->marked -= b.marked;
	c->dropped -= b.dropped;
	c->unparsed -= b.unparsed;
	c->nonip -= b.nonip;
	c->unjudged -= b.unjudged;
	for (i = 0; i < PD_NENCAPS; i++) {
		c->decap[i] -= b.decap[i];
		c->decap_err[i] -= b.decap_err[i];
	}
}

/*
 * The counters of fs's named devices since the last reset, summed over
 * the CPUs, into c[0..fs->cfg.sel.ndev). Under RCU (the slots go a grace
 * period after the devices stop being named); zeros without counters.
 */
void pd_dev_counts_read(const struct pd_counters *ctr,
			const struct pd_filter_set *fs,
			struct pd_dev_counts *c)
{
	unsigned int n = fs->cfg.sel.ndev, seq, i;
	const struct pd_cpu_stats *st;
	const struct pd_dev_cpu *dc;
	struct pd_dev_counts v, b;
	int cpu;

	memset(c, 0, n * sizeof(*c));
	if (!ctr)
		return;
	for_each_possible_cpu(cpu) {
		st = per_cpu_ptr(ctr->cpu, cpu);
		dc = READ_ONCE(st->dev);
		if (!dc)
			continue;
		for (i = 0; i < n; i++) {
			const struct pd_dev_stats *ds;
			u8 s = fs->dev_slot[i];

			ds = &dc->slot[s];
			do {
				seq = u64_stats_fetch_begin(&st->syncp);
				v.packets = u64_stats_read(&ds->packets);
				v.duplicates = u64_stats_read(&ds->duplicates);
				v.marked = u64_stats_read(&ds->marked);
				v.dropped = u64_stats_read(&ds->dropped);
			} while (u64_stats_fetch_retry(&st->syncp, seq));
			/* written by a reset under pn->lock, as pd_counts' */
			b = data_race(dc->base[s]);
			c[i].packets += v.packets - b.packets;
			c[i].duplicates += v.duplicates - b.duplicates;
			c[i].marked += v.marked - b.marked;
			c[i].dropped += v.dropped - b.dropped;
		}
	}
}

void pd_counts_add(struct pd_counts *sum, const struct pd_counts *c)
{
	unsigned int i;

	sum->packets += c->packets;
	sum->duplicates += c->duplicates;
	sum->marked += c->marked;
	sum->dropped += c->dropped;
	sum->unparsed += c->unparsed;
	sum->nonip += c->nonip;
	sum->unjudged += c->unjudged;
	for (i = 0; i < PD_NENCAPS; i++) {
		sum->decap[i] += c->decap[i];
		sum->decap_err[i] += c->decap_err[i];
	}
}

/*
 * Begin a read: false for an idle instance (no counters), else the filters
 * in force (a reference; none for a moment while they are rebuilt in
 * place) and, for a shared filter, its occupancy.
 */
bool pd_stats_begin(struct pd_net *pn, struct pd_stats_view *v)
{
	bool active;

	memset(v, 0, sizeof(*v));
	v->pn = pn;
	v->counting = true;
	rcu_read_lock();
	active = rcu_access_pointer(pn->ctr);
	rcu_read_unlock();
	if (!active)
		return false;
	v->fs = pd_fset_hold(pn);
	if (!v->fs)
		return true;
	v->counting = pd_filter_family(v->fs->plan.kind)->counting;
	v->budget = pd_occ_budget(pd_fset_count(v->fs));
	if (v->fs->shards.n)
		pd_fset_occupancy(v->fs, 0, &v->shared, v->budget);
	return true;
}

void pd_stats_end(struct pd_stats_view *v)
{
	pd_fset_put(v->fs);
	v->fs = NULL;
}

/*
 * CPU cpu's counters since the last reset, and the occupancy of its filter
 * (the shared one's) in *r; buf holds a per-CPU filter's. A CPU without a
 * filter has none (r->occ NULL), and no part in the mean.
 */
void pd_stats_cpu(struct pd_stats_view *v, int cpu, struct pd_stats_row *r,
		  struct pd_filter_occ *buf)
{
	rcu_read_lock();
	pd_counters_read(rcu_dereference(v->pn->ctr), cpu, &r->c);
	rcu_read_unlock();
	r->occ = NULL;
	r->ppb = 0;
	if (!v->fs)
		return;
	if (v->fs->shards.n) {
		r->occ = &v->shared;
	} else if (pd_fset_cpu(v->fs, cpu)) {
		pd_fset_occupancy(v->fs, cpu, buf, v->budget);
		r->occ = buf;
		cond_resched();
	} else {	/* a CPU without a filter (cpus.c): no occupancy */
		return;
	}
	r->ppb = pd_occupancy_ppb(r->occ, v->counting);
}
