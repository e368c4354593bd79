// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: per-namespace state and its configuration changes.
 *
 * A change is planned and admitted to the namespace's memory budget
 * (budget.c) before anything is allocated. Normally the new filters are
 * built complete beside the old ones and published with one pointer store
 * under RCU, so the packet path sees the old filters or the new ones,
 * never a half-built or freed one; the old ones are freed after a grace
 * period. When old and new together would exceed the cap but the new ones
 * alone fit, the old filters are withdrawn first (packets pass unexamined
 * for the few milliseconds of the rebuild) and the new ones built in their
 * room; if that allocation fails, the old configuration is rebuilt.
 *
 * If the hook point changes, the new hooks are registered before the
 * switch and the old ones removed after it; during the overlap only the
 * hooks whose generation matches the published filters act. A refused
 * change leaves everything as it was.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/netlink.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "pktdedup.h"

static struct pd_counters *pd_net_ctr(struct pd_net *pn)
{
	return rcu_dereference_protected(pn->ctr, lockdep_is_held(&pn->lock));
}

/*
 * What the filters' part of the budget holds: the filters in force, and
 * the named devices' counters while there are any.
 */
static void pd_net_held(struct pd_net *pn)
{
	struct pd_filter_set *fs;
	struct pd_counters *ctr = pd_net_ctr(pn);
	u64 bytes = 0;

	fs = rcu_dereference_protected(pn->filters, lockdep_is_held(&pn->lock));
	if (fs)
		bytes += READ_ONCE(fs->cpus.bytes);
	if (ctr && ctr->devc)
		bytes += READ_ONCE(ctr->devc->cpus.bytes);
	pd_budget_held(pn, PD_PART_FILTERS, bytes);
}

/* ---- the named devices' counters ---- */

/*
 * A configuration that names devices counts each one's packets,
 * duplicates, marked and dropped in a slot of its own on each CPU (struct
 * pd_devc): the named device the packet path found (the ingress or XDP
 * hook it runs on, or the device an inet or bridge hook matched) picks
 * the slot, through fs->dev_slot[]. A slot belongs to a name, not to a
 * device: a device renamed, removed or come back counts in its name's
 * slot, and a change that keeps a name keeps its counts, wherever the
 * name moves in the list. A name new to a change gets a slot that neither
 * the hooks in force nor the new ones count into, zeroed before the new
 * ones are published: no packet of another name is ever counted in it.
 */

static struct pd_devc *pd_devc_of(struct pd_cpus *c)
{
	return container_of(c, struct pd_devc, cpus);
}

static bool pd_devc_has(struct pd_cpus *c, unsigned int cpu)
{
	return per_cpu_ptr(pd_devc_of(c)->stats, cpu)->dev_mem;
}

/*
 * cpu's slots: in place from now on, for its packet path. Under the
 * hotplug lock (cpus.c).
 */
static int pd_devc_up(struct pd_cpus *c, unsigned int cpu)
{
	struct pd_dev_cpu *dc = pd_mem_zalloc(sizeof(*dc), cpu_to_node(cpu));
	struct pd_cpu_stats *st = per_cpu_ptr(pd_devc_of(c)->stats, cpu);

	if (!dc)
		return -ENOMEM;
	st->dev_mem = dc;
	WRITE_ONCE(st->dev, dc);
	return 0;
}

/* What the named devices' counters hold, with ncpus CPUs' slots. */
u64 pd_devc_bytes(u32 ncpus)
{
	return pd_mem_size(sizeof(struct pd_devc)) +
	       (u64)ncpus * pd_mem_size(sizeof(struct pd_dev_cpu));
}

/*
 * Take each CPU's slots away, and after a grace period (no packet path
 * or reader has them any more) free them. pn->lock held, or the instance
 * out of every path.
 */
static void pd_devc_free(struct pd_devc *d)
{
	struct pd_cpu_stats *st;
	int cpu;

	if (!d)
		return;
	pd_cpus_leave(&d->cpus);	/* no CPU coming up adds its slots */
	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(d->stats, cpu)->dev, NULL);
	synchronize_rcu();
	for_each_possible_cpu(cpu) {
		st = per_cpu_ptr(d->stats, cpu);
		pd_mem_free(st->dev_mem, sizeof(struct pd_dev_cpu));
		st->dev_mem = NULL;
	}
	pd_mem_free(d, sizeof(*d));
}

/*
 * The named devices' counters, with the slots of the CPUs online now
 * (the change that makes them admitted their bytes); from the change's
 * publication on, CPUs that come up get theirs (pd_cpus_live()).
 */
static struct pd_devc *pd_devc_alloc(struct pd_counters *ctr)
{
	struct pd_devc *d = pd_mem_zalloc(sizeof(*d), NUMA_NO_NODE);
	unsigned int cpu;
	int err = 0;

	if (!d)
		return NULL;
	d->stats = ctr->cpu;
	d->cpus.up = pd_devc_up;
	d->cpus.has = pd_devc_has;
	d->cpus.cpu_bytes = pd_mem_size(sizeof(struct pd_dev_cpu));
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		err = pd_devc_up(&d->cpus, cpu);
		if (err)
			break;
		d->cpus.ncpus++;
	}
	cpus_read_unlock();
	if (err) {
		pd_devc_free(d);
		return NULL;
	}
	d->cpus.bytes = pd_devc_bytes(d->cpus.ncpus);
	return d;
}

/*
 * A reset: every slot's counts as they stand now are its base, which
 * readers subtract (each CPU writes its own counters alone).
 */
static void pd_devc_reset(struct pd_devc *d)
{
	struct pd_dev_cpu *dc;
	unsigned int j;
	int cpu;

	for_each_possible_cpu(cpu) {
		dc = per_cpu_ptr(d->stats, cpu)->dev_mem;
		for (j = 0; dc && j < PD_DEVC_SLOTS; j++) {
			struct pd_dev_counts now = {
				.packets = u64_stats_read(&dc->slot[j].packets),
				.duplicates =
					u64_stats_read(&dc->slot[j].duplicates),
				.marked = u64_stats_read(&dc->slot[j].marked),
				.dropped = u64_stats_read(&dc->slot[j].dropped),
			};

			/* readers may see the old base: one reset behind */
			data_race(dc->base[j] = now);
		}
	}
}

/* Slot j of every CPU back to zero: no hook counts in it. */
static void pd_devc_zero(struct pd_devc *d, unsigned int j)
{
	struct pd_dev_cpu *dc;
	int cpu;

	for_each_possible_cpu(cpu) {
		dc = per_cpu_ptr(d->stats, cpu)->dev_mem;
		if (!dc)
			continue;
		u64_stats_set(&dc->slot[j].packets, 0);
		u64_stats_set(&dc->slot[j].duplicates, 0);
		u64_stats_set(&dc->slot[j].marked, 0);
		u64_stats_set(&dc->slot[j].dropped, 0);
		/* readers take the base as it is, as pd_counts' */
		data_race(memset(&dc->base[j], 0, sizeof(dc->base[j])));
	}
}

/*
 * The slots of the devices sel names, into slots[]: a name the
 * configuration in force names keeps its slot, a new one gets a free
 * slot, zeroed. The counters are made when the first devices are named.
 * pn->lock held; before the hooks for sel are published.
 */
int pd_devc_assign(struct pd_net *pn, const struct pd_select *sel, u8 *slots,
		   struct netlink_ext_ack *extack)
{
	struct pd_counters *ctr = pd_net_ctr(pn);
	const struct pd_select *old = &pn->cfg.sel;
	unsigned long used = 0, taken = 0;
	struct pd_devc *d;
	unsigned int i, j;

	lockdep_assert_held(&pn->lock);
	memset(slots, 0, PKTDEDUP_DEVS_MAX);
	if (!sel->ndev || !ctr)
		return 0;
	d = ctr->devc;
	if (d) {
		for (i = 0; i < old->ndev; i++)
			used |= BIT(pn->dev_slot[i]);
	} else {
		d = pd_devc_alloc(ctr);
		if (!d) {
			NL_SET_ERR_MSG(extack,
				       "out of memory for the named devices' counters");
			return -ENOMEM;
		}
		ctr->devc = d;
	}
	for (i = 0; i < sel->ndev; i++) {
		for (j = 0; j < PD_DEVC_SLOTS; j++)
			if ((used & ~taken & BIT(j)) &&
			    !strcmp(d->name[j], sel->dev[i]))
				break;
		if (j == PD_DEVC_SLOTS) {
			/* at most 8 used and 7 taken: one of 16 is free */
			j = ffz(used | taken);
			pd_devc_zero(d, j);
			strscpy(d->name[j], sel->dev[i], IFNAMSIZ);
		}
		taken |= BIT(j);
		slots[i] = j;
	}
	return 0;
}

/*
 * No device is named any more (the hooks that named them are gone): the
 * counters go. pn->lock held.
 */
void pd_devc_drop(struct pd_net *pn)
{
	struct pd_counters *ctr = pd_net_ctr(pn);
	struct pd_devc *d = ctr ? ctr->devc : NULL;

	if (!d)
		return;
	ctr->devc = NULL;
	pd_devc_free(d);
	pd_net_held(pn);
}

static void pd_net_drop_filters(struct pd_net *pn)
{
	struct pd_filter_set *old;

	old = rcu_replace_pointer(pn->filters, NULL,
				  lockdep_is_held(&pn->lock));
	if (!old)
		return;
	synchronize_rcu();
	pd_defer_settle(pn, old);
	pd_fset_leave(old);
	pd_fset_put(old);
	pd_net_held(pn);	/* the named devices' counters stay */
}

/*
 * Publish fs (built for hook generation fs->hook_gen), with new hooks if
 * hooks is not NULL; free the old.
 */
static void pd_net_publish(struct pd_net *pn, struct pd_filter_set *fs,
			   struct pd_hooks *hooks)
{
	struct pd_hooks *old_hooks;
	struct pd_filter_set *old;

	struct pd_counters *ctr = pd_net_ctr(pn);

	/* the packet path counts through its filters */
	fs->stats = ctr->cpu;
	old_hooks = pd_hooks_commit(pn, hooks, fs, &old);
	pn->cfg = fs->cfg;
	memcpy(pn->dev_slot, fs->dev_slot, sizeof(pn->dev_slot));
	/* one grace period covers both: hooks run under rcu_read_lock() */
	if (old || old_hooks)
		synchronize_rcu();
	kfree(old_hooks);
	/* its steps kept counted before the counters change hands */
	pd_defer_settle(pn, old);
	pd_fset_leave(old);
	pd_fset_put(old);
	/* no hook names devices any more: their counters go */
	if (!fs->cfg.sel.ndev)
		pd_devc_drop(pn);
	pd_net_held(pn);
	/* CPUs that come up get filters of fs from now on (cpus.c) */
	pd_fset_live(pn, fs);
	if (ctr->devc)	/* and their slots of the named devices */
		pd_cpus_live(&ctr->devc->cpus, pn, PD_PART_FILTERS);
	pd_xdp_sync(pn);	/* the programs the old hooks alone wanted */
}

/*
 * After an in-place rebuild failed: the old configuration again, in the
 * room just freed. Without it the instance stays idle (no filters).
 */
static void pd_net_restore(struct pd_net *pn)
{
	struct pd_filter_set *fs;
	struct pd_filter_plan plan;

	if (!pd_fset_plan(pn, &pn->cfg, &plan, NULL)) {
		fs = pd_fset_build(&pn->cfg, &plan, num_online_cpus(), NULL);
		if (!IS_ERR(fs)) {
			fs->hook_gen = pn->hook_gen;
			memcpy(fs->dev_slot, pn->dev_slot, sizeof(fs->dev_slot));
			pd_net_publish(pn, fs, NULL);
			return;
		}
	}
	pr_warn_ratelimited("a namespace is idle: its filters could not be rebuilt\n");
}

/* New filters for cfg; with rehook, at a new hook point (or priority). */
static int pd_net_rebuild(struct pd_net *pn, const struct pd_config *cfg,
			  bool rehook, struct netlink_ext_ack *extack)
{
	struct pd_hooks *hooks = NULL;
	struct pd_filter_set *fs;
	struct pd_filter_plan plan;
	/* scope percpu: cells for the CPUs online now (cpus.c) */
	u32 ncpus = num_online_cpus();
	u8 slots[PKTDEDUP_DEVS_MAX];
	u64 need;
	int way, err;

	lockdep_assert_held(&pn->lock);
	err = pd_fset_plan(pn, cfg, &plan, extack);
	if (err)
		return err;
	/* the filters' part: with the named devices' counters, if any */
	need = pd_fset_bytes_n(cfg, &plan, ncpus);
	if (cfg->sel.ndev)
		need += pd_devc_bytes(ncpus);
	way = pd_budget_admit(pn, PD_PART_FILTERS, need, extack);
	if (way < 0)
		return way;
	memcpy(slots, pn->dev_slot, sizeof(slots));
	if (rehook) {
		hooks = pd_hooks_register(pn, cfg, pn->hook_gen + 1, extack);
		if (IS_ERR(hooks)) {
			pd_budget_settle(pn);
			return PTR_ERR(hooks);
		}
		err = pd_devc_assign(pn, &cfg->sel, slots, extack);
		if (err) {
			pd_hooks_abort(pn, hooks);
			pd_budget_settle(pn);
			return err;
		}
	}
	if (way == PD_BUDGET_IN_PLACE)
		pd_net_drop_filters(pn);
	fs = pd_fset_build(cfg, &plan, ncpus, extack);
	/*
	 * At an XDP hook, the program goes on the devices once the filters
	 * are built (it passes frames until they are published): for new
	 * hooks all or nothing; when the hooks stay, tried again on those
	 * that failed, each for itself (their state says)
	 */
	if (IS_ERR(fs))
		err = PTR_ERR(fs);
	else if (hooks)
		err = pd_xdp_attach(pn, hooks, true, extack);
	else
		pd_xdp_attach(pn, pn->hooks, false, NULL);
	if (err) {
		if (!IS_ERR(fs))
			pd_fset_free(fs);
		if (hooks)
			pd_hooks_abort(pn, hooks);
		if (way == PD_BUDGET_IN_PLACE)
			pd_net_restore(pn);
		/* counters made for this change alone */
		if (pn->active && !pn->cfg.sel.ndev)
			pd_devc_drop(pn);
		pd_xdp_sync(pn);
		pd_budget_settle(pn);
		return err;
	}
	fs->hook_gen = pn->hook_gen + !!hooks;
	memcpy(fs->dev_slot, slots, sizeof(fs->dev_slot));
	pd_net_publish(pn, fs, hooks);
	return 0;
}

int pd_net_apply(struct pd_net *pn, const struct pd_config *cfg,
		 struct netlink_ext_ack *extack)
{
	/* the hooks carry the named devices' binding */
	bool rehook = !pn->hooks || cfg->hook != pn->cfg.hook ||
		      cfg->priority != pn->cfg.priority ||
		      !pd_select_same_devs(&cfg->sel, &pn->cfg.sel);

	return pd_net_rebuild(pn, cfg, rehook, extack);
}

static void pd_counters_free(struct pd_counters *ctr)
{
	if (!ctr)
		return;
	pd_devc_free(ctr->devc);
	free_percpu(ctr->cpu);
	free_percpu(ctr->base);
	free_percpu(ctr->rate);
	kfree(ctr);
}

static struct pd_counters *pd_counters_alloc(void)
{
	struct pd_counters *ctr = kzalloc(sizeof(*ctr), PD_GFP);
	int cpu;

	if (!ctr)
		return NULL;
	/* a line's alignment: dev, packets ... dropped on one line */
	ctr->cpu = __alloc_percpu_gfp(sizeof(struct pd_cpu_stats),
				      SMP_CACHE_BYTES, PD_GFP);
	ctr->base = alloc_percpu_gfp(struct pd_counts, PD_GFP);
	ctr->rate = alloc_percpu_gfp(struct pd_rate_cpu, PD_GFP);
	if (!ctr->cpu || !ctr->base || !ctr->rate) {
		pd_counters_free(ctr);
		return NULL;
	}
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(ctr->cpu, cpu)->syncp);
	return ctr;
}

/*
 * Empty the filters with new seeds (a fixed seed's again: pd_fset_build)
 * and zero the counters. The per-CPU
 * counters are only ever written by their CPU; a reset records where they
 * stand instead, and readers subtract that.
 */
int pd_net_reset(struct pd_net *pn, struct netlink_ext_ack *extack)
{
	struct pd_counters *ctr;
	int cpu, err;

	lockdep_assert_held(&pn->lock);
	if (!pn->active)
		return 0;	/* nothing held, nothing counted */
	if (rcu_access_pointer(pn->filters)) {
		err = pd_net_rebuild(pn, &pn->cfg, false, extack);
		if (err)
			return err;
	}
	ctr = pd_net_ctr(pn);
	for_each_possible_cpu(cpu) {
		struct pd_counts now;

		pd_counters_read(ctr, cpu, &now);
		pd_counts_add(per_cpu_ptr(ctr->base, cpu), &now);
	}
	if (ctr->devc)
		pd_devc_reset(ctr->devc);
	return 0;
}

/*
 * Make an idle instance active with cfg: its counters, its filters and
 * hooks (all or nothing: on failure it stays idle, nothing held), then
 * its source windows as pn->src.cfg says, if there is room for them (the
 * filters come first; without room the namespace has no windows, as
 * dedupctl sources says). pn->lock held.
 */
int pd_net_enable(struct pd_net *pn, const struct pd_config *cfg,
		  struct netlink_ext_ack *extack)
{
	struct pd_counters *ctr;
	int err;

	lockdep_assert_held(&pn->lock);
	if (pn->active)
		return pd_net_apply(pn, cfg, extack);
	ctr = pd_counters_alloc();
	if (!ctr) {
		NL_SET_ERR_MSG(extack, "out of memory for the counters");
		return -ENOMEM;
	}
	rcu_assign_pointer(pn->ctr, ctr);
	err = pd_net_apply(pn, cfg, extack);
	if (err) {
		/* nothing counts through ctr any more (if anything did) */
		pd_net_drop_filters(pn);
		RCU_INIT_POINTER(pn->ctr, NULL);
		synchronize_rcu();	/* readers */
		pd_counters_free(ctr);
		pd_net_held(pn);	/* the named devices' counters gone too */
		return err;
	}
	pn->active = true;
	if (pd_srcs_apply(pn, &pn->src.cfg, NULL))
		pr_warn_ratelimited("no source windows in a namespace: no room for them\n");
	return 0;
}

/*
 * Back to idle: hooks removed, filters, source windows and counters freed
 * (the settings are kept). pn->lock held; may sleep (grace periods).
 */
void pd_net_disable(struct pd_net *pn)
{
	struct pd_counters *ctr = pd_net_ctr(pn);
	struct pd_hooks *hooks;

	lockdep_assert_held(&pn->lock);
	if (!pn->active) {
		pd_xdp_sync(pn);	/* nothing can be left: make sure */
		return;
	}
	hooks = pd_hooks_withdraw(pn);
	pd_srcs_withdraw(pn);
	pn->src.off_need = 0;
	pd_net_drop_filters(pn);
	RCU_INIT_POINTER(pn->ctr, NULL);
	/* no packet is inside pd_process() any more, no reader has ctr */
	synchronize_rcu();
	kfree(hooks);
	pn->active = false;
	pd_counters_free(ctr);
	pd_net_held(pn);	/* the named devices' counters gone too */
	pd_xdp_sync(pn);	/* every program off */
}

/*
 * Every namespace gets an instance; only those `active` says start with
 * state (the netns module parameter): the others hold nothing and have no
 * hook until configured. A failure to activate leaves the namespace idle
 * rather than failing it.
 */
int pd_net_setup(struct pd_net *pn, struct net *net,
		 const struct pd_config *cfg, bool active)
{
	int err;

	pn->net = net;
	mutex_init(&pn->lock);
	mutex_init(&pn->dev_lock);
	mutex_init(&pn->rate_lock);
	pn->cfg = *cfg;
	pd_xdp_net_init(pn);
	pd_srcs_net_init(pn);
	pd_budget_init(&pn->budget, net);
	if (active) {
		mutex_lock(&pn->lock);
		err = pd_net_enable(pn, cfg, NULL);
		mutex_unlock(&pn->lock);
		if (err)
			pr_warn_ratelimited("idle in a namespace: default filters failed (%d)\n",
					    err);
	}
	err = pd_proc_init(pn);
	if (err)
		pr_warn_ratelimited("no /proc/net/pktdedup in a namespace (%d)\n",
				    err);
	return 0;
}

/* Before the namespace's grace period: no new packets reach the hooks. */
void pd_net_detach(struct pd_net *pn)
{
	pd_proc_exit(pn);
	mutex_lock(&pn->lock);
	pn->detached = pd_hooks_withdraw(pn);
	mutex_unlock(&pn->lock);
	pd_xdp_net_exit(pn);
	pd_events_stop(pn);
}

/* After the grace period: nothing can reach the state any more. */
void pd_net_teardown(struct pd_net *pn)
{
	struct pd_filter_set *fs;

	kfree(pn->detached);
	pn->detached = NULL;
	fs = rcu_dereference_protected(pn->filters, true);
	RCU_INIT_POINTER(pn->filters, NULL);
	pd_fset_leave(fs);
	pd_fset_put(fs);
	pd_counters_free(rcu_dereference_protected(pn->ctr, true));
	RCU_INIT_POINTER(pn->ctr, NULL);
	pd_srcs_net_teardown(pn);
	pd_budget_release(pn);
	mutex_destroy(&pn->rate_lock);
	mutex_destroy(&pn->dev_lock);
	mutex_destroy(&pn->lock);
}
