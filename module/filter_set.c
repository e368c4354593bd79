// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: the filter set of one configuration (struct pd_filter_set:
 * one filter of the core's per CPU, or one shared), built and inspected.
 *
 * The filters are of the family the configuration names (core/filter.h);
 * nothing here knows one family from another. Scope percpu gives each
 * possible CPU its own filter, its memory on that CPU's NUMA node; scope
 * shared gives one filter, guarded by a spinlock. Memory is charged to the
 * memory cgroup of the task that asks for it and fails rather than invoke
 * the OOM killer (PD_GFP); what filters hold is known before they are
 * built (pd_fset_bytes()), for the namespace's budget.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "pktdedup.h"

static u32 pd_cfg_filters(const struct pd_config *cfg)
{
	return cfg->scope == PKTDEDUP_SCOPE_SHARED ? 1 : num_possible_cpus();
}

u32 pd_fset_count(const struct pd_filter_set *fs)
{
	return pd_cfg_filters(&fs->cfg);
}

struct pd_filter *pd_fset_get(struct pd_filter_set *fs, int cpu)
{
	return fs->shared ? fs->shared : per_cpu_ptr(fs->pcpu, cpu);
}

/* Plan the filters of cfg; 0, or an error with an extack message. */
int pd_fset_plan(const struct pd_config *cfg, struct pd_filter_plan *plan,
		 struct netlink_ext_ack *extack)
{
	const char *why = NULL;
	int err = pd_filter_plan(&cfg->filter, plan, &why);

	if (err)
		pd_set_err_msg(extack, why);
	return err;
}

/* Bytes the filters of cfg (planned as plan) hold, all CPUs. */
u64 pd_fset_bytes(const struct pd_config *cfg,
		  const struct pd_filter_plan *plan)
{
	return sizeof(struct pd_filter_set) +
	       pd_cfg_filters(cfg) * (plan->bytes + sizeof(struct pd_filter));
}

void pd_fset_free(struct pd_filter_set *fs)
{
	int cpu;

	if (!fs)
		return;
	if (fs->shared) {
		kvfree(fs->shared->mem);
		kfree(fs->shared);
	}
	if (fs->pcpu) {
		for_each_possible_cpu(cpu)
			kvfree(per_cpu_ptr(fs->pcpu, cpu)->mem);
		free_percpu(fs->pcpu);
	}
	kfree(fs);
}

/*
 * The filters in force, for a reader of the statistics that takes no
 * namespace lock and may sleep while it reads them: a reference, or NULL.
 * A change meanwhile publishes new filters; the reader's are freed when
 * it puts them, at the end of its read.
 */
struct pd_filter_set *pd_fset_hold(struct pd_net *pn)
{
	struct pd_filter_set *fs;

	rcu_read_lock();
	fs = rcu_dereference(pn->filters);
	if (fs && !refcount_inc_not_zero(&fs->ref))
		fs = NULL;
	rcu_read_unlock();
	return fs;
}

/* The instance's reference after a grace period, or a reader's. */
void pd_fset_put(struct pd_filter_set *fs)
{
	if (fs && refcount_dec_and_test(&fs->ref))
		pd_fset_free(fs);
}

/*
 * One filter of cfg over new memory on node: random seeds, or the fixed
 * seed's, derived as dedup-sim --seed derives them. Every filter of an
 * instance with a fixed seed gets the same seeds (each CPU's too), so a
 * filter built again (a change, a reset, a failed rebuild's restore: all
 * come here) starts as the simulator's would.
 */
static int pd_filter_alloc(struct pd_filter *f, const struct pd_config *cfg,
			   const struct pd_filter_plan *plan, int node,
			   struct netlink_ext_ack *extack)
{
	const char *why = NULL;
	void *mem = kvzalloc_node(plan->bytes, PD_GFP, node);
	u64 state = cfg->seed;
	int err;

	if (!mem) {
		NL_SET_ERR_MSG(extack, "out of memory for the filters");
		return -ENOMEM;
	}
	err = pd_filter_init(f, plan, mem, &why);
	if (err) {
		kvfree(mem);
		pd_set_err_msg(extack, why);
		return err;
	}
	if (cfg->seed_mode == PKTDEDUP_SEED_MODE_FIXED)
		pd_filter_seed(f, &state);
	return 0;
}

/*
 * Allocate the filters of cfg, planned by pd_fset_plan(). Returns them,
 * or an ERR_PTR with an extack message; nothing is left allocated on
 * failure. The caller has admitted pd_fset_bytes() to the budget.
 */
struct pd_filter_set *pd_fset_build(const struct pd_config *cfg,
				    const struct pd_filter_plan *plan,
				    struct netlink_ext_ack *extack)
{
	struct pd_filter_set *fs;
	int cpu, err;

	fs = kzalloc(sizeof(*fs), PD_GFP);
	if (!fs) {
		NL_SET_ERR_MSG(extack, "out of memory for the filters");
		return ERR_PTR(-ENOMEM);
	}
	refcount_set(&fs->ref, 1);
	fs->cfg = *cfg;
	fs->plan = *plan;
	fs->bytes = pd_fset_bytes(cfg, plan);
	fs->kopts.mode = cfg->key;
	fs->kopts.flags = cfg->key_flags;
	fs->kopts.payload = cfg->key == PKTDEDUP_KEY_PACKET ? cfg->payload : 0;
	fs->kopts.decap = cfg->decap;
	fs->kopts.vxlan_port = cfg->vxlan_port;
	fs->kopts.geneve_port = cfg->geneve_port;
	fs->kopts.gtpu_port = cfg->gtpu_port;
	fs->copy_len = pd_key_look(&fs->kopts);
	fs->timed = pd_filter_plan_timed(plan);
	spin_lock_init(&fs->lock);

	if (cfg->scope == PKTDEDUP_SCOPE_SHARED) {
		fs->shared = kzalloc(sizeof(*fs->shared), PD_GFP);
		if (!fs->shared) {
			NL_SET_ERR_MSG(extack, "out of memory for the filters");
			err = -ENOMEM;
			goto fail;
		}
		err = pd_filter_alloc(fs->shared, cfg, plan, NUMA_NO_NODE,
				      extack);
		if (err) {
			kfree(fs->shared);
			fs->shared = NULL;
			goto fail;
		}
		return fs;
	}
	fs->pcpu = alloc_percpu_gfp(struct pd_filter, PD_GFP);
	if (!fs->pcpu) {
		NL_SET_ERR_MSG(extack, "out of memory for the filters");
		err = -ENOMEM;
		goto fail;
	}
	for_each_possible_cpu(cpu) {
		err = pd_filter_alloc(per_cpu_ptr(fs->pcpu, cpu), cfg, plan,
				      cpu_to_node(cpu), extack);
		if (err)
			goto fail;
		cond_resched();
	}
	return fs;
fail:
	pd_fset_free(fs);
	return ERR_PTR(err);
}

static u64 pd_occ(const struct pd_filter *f, struct pd_filter_occ *occ,
		  u64 max_bytes)
{
	pd_filter_occupancy_within(f, occ, max_bytes);
	return occ->units;
}

/*
 * A read's budget for each of n filters: PD_OCC_READ_BYTES in all, at
 * least one line each.
 */
u64 pd_occ_budget(u32 n)
{
	return max_t(u64, PD_OCC_LINE, PD_OCC_READ_BYTES / max(n, 1U));
}

/*
 * The occupancy of one CPU's filter (or the shared one): zero cells or set
 * bits, in the family's terms, from a read of at most max_bytes of it
 * (core/occ.h: exact if it fits, else estimated from evenly spaced lines).
 * Anyone may ask (/proc, GET_STATS), so it never takes the shared filter's
 * lock, which would stall every CPU's packets for the length of the read:
 * the filter is written while it is read, a word is read whole and the
 * answer is a statistic, so the race is benign (as for a per-CPU filter,
 * which its CPU writes meanwhile).
 */
void pd_fset_occupancy(struct pd_filter_set *fs, int cpu,
		       struct pd_filter_occ *occ, u64 max_bytes)
{
	/* a statistic read while its CPUs write: benign, as above */
	(void)data_race(pd_occ(pd_fset_get(fs, cpu), occ, max_bytes));
}

/* One CPU's filter window state (window families); false for the others. */
bool pd_fset_window(struct pd_filter_set *fs, int cpu,
		    struct pd_filter_win *w)
{
	struct pd_filter *f = pd_fset_get(fs, cpu);
	bool ok;

	if (fs->shared) {
		spin_lock_bh(&fs->lock);
		ok = pd_filter_window(f, w);
		spin_unlock_bh(&fs->lock);
	} else {
		/* a statistic read while the CPU writes: benign, as above */
		ok = data_race(pd_filter_window(f, w));
	}
	return ok;
}

/*
 * The window state of one CPU (cpu >= 0) or of all: entries and early
 * expiries summed, the effective and shortest windows the least.
 */
bool pd_fset_window_of(struct pd_filter_set *fs, int cpu,
		       struct pd_filter_win *w)
{
	struct pd_filter_win one;
	bool any = false;
	int i;

	for_each_possible_cpu(i) {
		if ((cpu >= 0 && i != cpu) || (fs->shared && any))
			continue;
		if (!pd_fset_window(fs, i, &one))
			return false;
		if (!any) {
			*w = one;
			any = true;
			continue;
		}
		w->entries += one.entries;
		w->early += one.early;
		w->stuck += one.stuck;
		w->effective = min(w->effective, one.effective);
		w->shortest = min(w->shortest, one.shortest);
	}
	return any;
}

/* Zero cells (counting families) or set bits (bit arrays), in ppb. */
u32 pd_occupancy_ppb(const struct pd_filter_occ *occ, bool counting)
{
	if (!occ->units)
		return 0;
	return (u32)mul_u64_u64_div_u64(counting ? occ->zero : occ->set,
					1000000000ULL, occ->units);
}

/* How many filters hold key now; nothing is inserted. */
int pd_fset_query(struct pd_filter_set *fs, const struct pd_key *key)
{
	int cpu, n = 0;

	if (fs->shared) {
		struct pd_filter *f = fs->shared;

		spin_lock_bh(&fs->lock);
		n = pd_filter_query_hash(f, pd_filter_hash(f, key));
		spin_unlock_bh(&fs->lock);
		return n;
	}
	for_each_possible_cpu(cpu) {
		struct pd_filter *f = per_cpu_ptr(fs->pcpu, cpu);

		/* racing with the filter's CPU is benign, as above */
		n += data_race(pd_filter_query_hash(f, pd_filter_hash(f, key)));
	}
	return n;
}
