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
#include <linux/timekeeping.h>

#include "core/rate.h"

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
	/* action count: the steps each CPU keeps, counted first */
	pd_defer_settle(pn, v->fs);
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

/* CPU cpu's packets since the counters were made: no reset subtracted. */
static u64 pd_packets_raw(const struct pd_counters *ctr, int cpu)
{
	const struct pd_cpu_stats *st = per_cpu_ptr(ctr->cpu, cpu);
	unsigned int seq;
	u64 n;

	do {
		seq = u64_stats_fetch_begin(&st->syncp);
		n = u64_stats_read(&st->packets);
	} while (u64_stats_fetch_retry(&st->syncp, seq));
	return n;
}

/*
 * A new rate sample when the last is at least PD_RATE_MIN_NS old (or there
 * is none): the rates since the last, of all CPUs and of each. The raw
 * counters, so that a reset in between changes no rate. Under
 * pn->rate_lock and RCU (ctr).
 */
static void pd_rate_sample(struct pd_counters *ctr)
{
	u64 now = ktime_get_ns(), total = 0, n;
	struct pd_rate_cpu *rc;
	int cpu;

	if (ctr->rate_sampled && now - ctr->rate_ns < PD_RATE_MIN_NS)
		return;
	for_each_possible_cpu(cpu) {
		n = pd_packets_raw(ctr, cpu);
		rc = per_cpu_ptr(ctr->rate, cpu);
		if (ctr->rate_sampled)
			rc->pps = pd_rate_pps(rc->packets, ctr->rate_ns, n, now);
		rc->packets = n;
		total += n;
	}
	if (ctr->rate_sampled) {
		ctr->rate_pps = pd_rate_pps(ctr->rate_packets, ctr->rate_ns,
					    total, now);
		ctr->rate_known = true;
	}
	ctr->rate_packets = total;
	ctr->rate_ns = now;
	ctr->rate_sampled = true;
}

/* The plan's memory by its model: found once per set of filters. */
static u64 pd_fset_memory_gap(struct pd_filter_set *fs)
{
	u64 gap;

	/* pairs with the release below: mem_gap is written before */
	if (smp_load_acquire(&fs->mem_gap_known))
		return READ_ONCE(fs->mem_gap);
	/* two first readers find the same value */
	gap = pd_filter_memory_gap(&fs->plan);
	WRITE_ONCE(fs->mem_gap, gap);
	/* mem_gap before the flag that says it holds */
	smp_store_release(&fs->mem_gap_known, true);
	return gap;
}

/*
 * Whether a (of a filter that sees a_busy traffic) is the one to report
 * rather than b: a filter with traffic first, then the shorter memory, in
 * time when both have one, else in packets.
 */
static bool pd_mem_shorter(const struct pd_filter_mem *a, bool a_busy,
			   const struct pd_filter_mem *b, bool b_busy)
{
	if (a_busy != b_busy)
		return a_busy;
	if (a->ns && b->ns)
		return a->ns < b->ns;
	if (a->ns != b->ns)
		return a->ns;
	return a->packets < b->packets;
}

/*
 * What the filters of fs remember, each at the rate it sees: scope percpu,
 * each CPU's filter at its CPU's rate, the shortest reported; shared, the
 * one filter (its shards, each a share of every CPU's packets), whose
 * window state sw (NULL: not a window family) was read before. Under RCU
 * (ctr) and pn->rate_lock.
 */
static void pd_fset_memory(struct pd_filter_set *fs,
			   const struct pd_counters *ctr, u64 gap,
			   const struct pd_filter_win *sw,
			   struct pd_filter_mem *best)
{
	struct pd_filter_mem m;
	struct pd_filter_win w;
	bool win, busy, any = false, best_busy = false;
	u64 pps;
	int cpu;

	if (fs->shards.n) {
		struct pd_filter_win ws;

		/*
		 * A shard sees one packet in n of the stream's: its gap (and
		 * a packet window's) in the stream's packets is n times its
		 * own, in time at the stream's rate.
		 */
		pps = ctr->rate_known ? ctr->rate_pps : 0;
		if (sw && !sw->timed) {
			ws = *sw;
			ws.effective = pd_mul_sat(ws.effective, fs->shards.n);
			sw = &ws;
		}
		pd_filter_memory(sw, pd_mul_sat(gap, fs->shards.n), pps, best);
		return;
	}
	for_each_possible_cpu(cpu) {
		if (!pd_fset_cpu(fs, cpu))
			continue;
		win = pd_fset_window_of(fs, cpu, &w);
		pps = ctr->rate_known ? per_cpu_ptr(ctr->rate, cpu)->pps : 0;
		if (!pd_filter_memory(win ? &w : NULL, gap, pps, &m))
			continue;
		busy = pps > 0;
		if (!any || pd_mem_shorter(&m, busy, best, best_busy)) {
			*best = m;
			best_busy = busy;
			any = true;
		}
	}
}

/*
 * The packet rate (a new sample if the last is a second old) and what the
 * filters remember at it. The first read of an instance takes the first
 * sample: no rate yet. Readers take turns on pn->rate_lock, which nothing
 * else takes; the model's memory is found before it, once per filters,
 * and a shared filter's window read; under RCU, a few words per CPU.
 */
void pd_stats_memory(struct pd_stats_view *v, struct pd_stats_mem *out)
{
	struct pd_net *pn = v->pn;
	struct pd_counters *ctr;
	struct pd_filter_win sw;
	bool swin = false;
	u64 gap = 0;

	memset(out, 0, sizeof(*out));
	if (v->fs)
		gap = pd_fset_memory_gap(v->fs);
	/* a shared window's shards, each under its lock: not under RCU */
	if (v->fs && v->fs->shards.n)
		swin = pd_fset_window_of(v->fs, -1, &sw);
	mutex_lock(&pn->rate_lock);
	rcu_read_lock();
	ctr = rcu_dereference(pn->ctr);
	if (ctr) {
		pd_rate_sample(ctr);
		out->rate_known = ctr->rate_known;
		out->pps = ctr->rate_pps;
		if (v->fs)
			pd_fset_memory(v->fs, ctr, gap, swin ? &sw : NULL,
				       &out->m);
	}
	rcu_read_unlock();
	mutex_unlock(&pn->rate_lock);
}
