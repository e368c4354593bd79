// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: building and inspecting the filters of one configuration.
 *
 * Scope percpu gives each possible CPU its own Stable Bloom Filter, its
 * cells on that CPU's NUMA node; scope shared gives one filter, guarded by
 * a spinlock. Memory is charged to the memory cgroup of the task that asks
 * for it and fails rather than invoke the OOM killer (PD_GFP); what filters
 * hold is known before they are built (pd_filters_bytes()), for the
 * namespace's budget.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "pktdedup.h"

static u32 pd_cfg_filters(const struct pd_config *cfg)
{
	return cfg->scope == PKTDEDUP_SCOPE_SHARED ? 1 : num_possible_cpus();
}

u32 pd_filters_count(const struct pd_filters *fs)
{
	return pd_cfg_filters(&fs->cfg);
}

static void pd_sbf_prm(const struct pd_plan *plan, struct pd_sbf_params *prm)
{
	prm->cells = plan->cells;
	prm->max = (u8)plan->max;
	prm->k = (u8)plan->k;
	prm->p = plan->p;
}

/* Plan the filters of cfg; 0, or an error with an extack message. */
int pd_filters_plan(const struct pd_config *cfg, struct pd_plan *plan,
		    struct netlink_ext_ack *extack)
{
	struct pd_plan_req req = {
		.mem_bytes = cfg->mem, .fps_ppb = cfg->fps_ppb,
		.max = cfg->max ? cfg->max : PD_PLAN_AUTO,
		.k = cfg->k ? cfg->k : PD_PLAN_AUTO,
		.p = cfg->p == PKTDEDUP_P_AUTO ? PD_PLAN_AUTO : cfg->p,
		.gap = cfg->gap,
	};
	const char *why = NULL;
	int err = pd_plan(&req, plan, &why);

	if (err)
		pd_set_err_msg(extack, why);
	return err;
}

/* Bytes the filters of cfg (planned as plan) hold, all CPUs. */
u64 pd_filters_bytes(const struct pd_config *cfg, const struct pd_plan *plan)
{
	struct pd_sbf_params prm;
	u64 one;

	pd_sbf_prm(plan, &prm);
	one = pd_sbf_bytes(&prm) + sizeof(struct pd_sbf);
	return sizeof(struct pd_filters) + pd_cfg_filters(cfg) * one;
}

struct pd_sbf *pd_filters_get(struct pd_filters *fs, int cpu)
{
	return fs->shared ? fs->shared : per_cpu_ptr(fs->pcpu, cpu);
}

void pd_filters_free(struct pd_filters *fs)
{
	int cpu;

	if (!fs)
		return;
	if (fs->shared) {
		kvfree(fs->shared->words);
		kfree(fs->shared);
	}
	if (fs->pcpu) {
		for_each_possible_cpu(cpu)
			kvfree(per_cpu_ptr(fs->pcpu, cpu)->words);
		free_percpu(fs->pcpu);
	}
	kfree(fs);
}

static int pd_filter_init(struct pd_sbf *f, const struct pd_sbf_params *prm,
			  int node, struct netlink_ext_ack *extack)
{
	const char *why = NULL;
	u64 *words = kvzalloc_node(pd_sbf_bytes(prm), PD_GFP, node);
	int err;

	if (!words) {
		NL_SET_ERR_MSG(extack, "out of memory for the filter cells");
		return -ENOMEM;
	}
	err = pd_sbf_init(f, prm, words, &why);
	if (err) {
		kvfree(words);
		pd_set_err_msg(extack, why);
	}
	return err;
}

/*
 * Allocate the filters of cfg, planned by pd_filters_plan(). Returns them,
 * or an ERR_PTR with an extack message; nothing is left allocated on
 * failure. The caller has admitted pd_filters_bytes() to the budget.
 */
struct pd_filters *pd_filters_build(const struct pd_config *cfg,
				    const struct pd_plan *plan,
				    struct netlink_ext_ack *extack)
{
	struct pd_sbf_params prm;
	struct pd_filters *fs;
	int cpu, err;

	fs = kzalloc(sizeof(*fs), PD_GFP);
	if (!fs) {
		NL_SET_ERR_MSG(extack, "out of memory for the filters");
		return ERR_PTR(-ENOMEM);
	}
	fs->cfg = *cfg;
	fs->plan = *plan;
	fs->bytes = pd_filters_bytes(cfg, plan);
	fs->kopts.mode = cfg->key;
	fs->kopts.flags = cfg->key_flags;
	fs->kopts.payload = cfg->key == PKTDEDUP_KEY_PACKET ? cfg->payload : 0;
	fs->copy_len = PD_HDR_ROOM + fs->kopts.payload;
	spin_lock_init(&fs->lock);
	pd_sbf_prm(plan, &prm);

	if (cfg->scope == PKTDEDUP_SCOPE_SHARED) {
		fs->shared = kzalloc(sizeof(*fs->shared), PD_GFP);
		if (!fs->shared) {
			NL_SET_ERR_MSG(extack, "out of memory for the filters");
			err = -ENOMEM;
			goto fail;
		}
		err = pd_filter_init(fs->shared, &prm, NUMA_NO_NODE, extack);
		if (err) {
			kfree(fs->shared);
			fs->shared = NULL;
			goto fail;
		}
		return fs;
	}
	fs->pcpu = alloc_percpu_gfp(struct pd_sbf, PD_GFP);
	if (!fs->pcpu) {
		NL_SET_ERR_MSG(extack, "out of memory for the filters");
		err = -ENOMEM;
		goto fail;
	}
	for_each_possible_cpu(cpu) {
		err = pd_filter_init(per_cpu_ptr(fs->pcpu, cpu), &prm,
				     cpu_to_node(cpu), extack);
		if (err)
			goto fail;
		cond_resched();
	}
	return fs;
fail:
	pd_filters_free(fs);
	return ERR_PTR(err);
}

/* Fraction of zero cells of one CPU's filter (or the shared one), in ppb. */
u32 pd_filters_zero_ppb(struct pd_filters *fs, int cpu)
{
	struct pd_sbf *f = pd_filters_get(fs, cpu);
	u64 zeros;

	if (fs->shared) {
		spin_lock_bh(&fs->lock);
		zeros = pd_sbf_zero_cells(f);
		spin_unlock_bh(&fs->lock);
	} else {
		/*
		 * The CPU may be writing its filter: a word is read whole
		 * and the answer is a statistic, so the race is benign.
		 */
		zeros = data_race(pd_sbf_zero_cells(f));
	}
	return (u32)div64_u64(zeros * 1000000000ULL, f->cells);
}

/* How many filters hold key now; nothing is inserted. */
int pd_filters_query(struct pd_filters *fs, const struct pd_key *key)
{
	int cpu, n = 0;

	if (fs->shared) {
		struct pd_sbf *f = fs->shared;

		spin_lock_bh(&fs->lock);
		n = pd_sbf_query(f, pd_key_hash(key, f->seed[0]),
				 pd_key_hash(key, f->seed[1]));
		spin_unlock_bh(&fs->lock);
		return n;
	}
	for_each_possible_cpu(cpu) {
		struct pd_sbf *f = per_cpu_ptr(fs->pcpu, cpu);

		/* racing with the filter's CPU is benign, as above */
		n += data_race(pd_sbf_query(f, pd_key_hash(key, f->seed[0]),
					    pd_key_hash(key, f->seed[1])));
	}
	return n;
}
