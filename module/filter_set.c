// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: the filter set of one configuration (struct pd_filter_set:
 * one filter of the core's per CPU, or one shared), built and inspected.
 *
 * The filters are of the family the configuration names (core/filter.h);
 * nothing here knows one family from another. Scope percpu gives each
 * CPU its own filter: a filter's struct per possible CPU (an alloc_percpu()
 * of 232 bytes), its memory (the cells) for the CPUs online when the set
 * is built, on that CPU's NUMA node, and for each CPU that comes up later
 * while the set is in force, admitted to the budget then (cpus.c): a CPU
 * without cells passes its packets unjudged. Scope shared gives one
 * filter that every CPU steps without a lock, each with its own
 * generator, for a family whose step is word by word (the SBF's:
 * core/filter.h's step_cpu), else one filter in shards by key hash, each
 * with its own spinlock (core/shard.h). Memory comes from mem.c, which
 * says what each allocation takes: what filters hold is known to the
 * byte before they are built (pd_fset_bytes()), for the namespace's
 * budget.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "core/rng.h"
#include "pktdedup.h"

static bool pd_cfg_shared(const struct pd_config *cfg)
{
	return cfg->scope == PKTDEDUP_SCOPE_SHARED;
}

/* The filters of a set: one shared, or those of the CPUs with cells. */
u32 pd_fset_count(const struct pd_filter_set *fs)
{
	return pd_cfg_shared(&fs->cfg) ? 1 : READ_ONCE(fs->cpus.ncpus);
}

/* CPU cpu's filter; a shared filter's first shard (tests: seeds, ops). */
struct pd_filter *pd_fset_get(struct pd_filter_set *fs, int cpu)
{
	return fs->shards.n ? &fs->shards.sh[0].f : per_cpu_ptr(fs->pcpu, cpu);
}

/*
 * Scope percpu: CPU cpu's filter, or NULL if it has no cells (offline when
 * the set was built, or refused when it came up). Any CPU may ask.
 */
struct pd_filter *pd_fset_cpu(struct pd_filter_set *fs, int cpu)
{
	struct pd_filter *f = per_cpu_ptr(fs->pcpu, cpu);

	/* pairs with pd_filter_alloc(): the whole filter before its ops */
	return smp_load_acquire(&f->ops) ? f : NULL;
}

/*
 * Bytes of the shards' structs: a power of two, so that kmalloc() puts
 * them on cache lines of their own as vmalloc() does.
 */
/* none for a set without shards (roundup_pow_of_two(0) is undefined) */
static size_t pd_shards_struct_bytes(u32 n)
{
	return n ? roundup_pow_of_two(n * sizeof(struct pd_shard)) : 0;
}

/*
 * A shared filter's plan: the whole's in *plan, and (shard non-NULL) a
 * shard's: lock-free, or the shards asked for, or 16 per possible CPU
 * (core/shard.h). The same configuration always gives the same shards.
 */
static int pd_shared_plan(const struct pd_config *cfg,
			  struct pd_filter_plan *plan,
			  struct pd_filter_plan *shard, const char **why)
{
	struct pd_filter_plan one;

	return pd_shards_plan_shared(&cfg->filter, cfg->shards, nr_cpu_ids,
				     shard ?: &one, plan, why);
}

/* The lock-free shared filter's per-CPU generators. */
static u64 pd_fcpu_bytes(const struct pd_filter_plan *plan)
{
	return plan->lockfree ? pd_percpu_size(sizeof(struct pd_filter_cpu)) :
	       0;
}

/*
 * Plan the filters of cfg; 0, or an error with an extack message. A plan
 * whose step is over the bound (-EFBIG, core/step.h) is left in *plan,
 * its message the family's static words (plan->step_msg: an extack
 * message outlives the request, and two requests may be refused at once).
 * pn: the namespace whose lock is held, or NULL.
 */
int pd_fset_plan(struct pd_net *pn, const struct pd_config *cfg,
		 struct pd_filter_plan *plan, struct netlink_ext_ack *extack)
{
	const char *why = NULL;
	int err;

	if (pn)
		lockdep_assert_held(&pn->lock);
	if (pd_cfg_shared(cfg))
		err = pd_shared_plan(cfg, plan, NULL, &why);
	else
		err = pd_filter_plan(&cfg->filter, plan, &why);
	if (err)
		pd_set_err_msg(extack, err == -EFBIG && plan->step_msg ?
				       plan->step_msg : why);
	return err;
}

/* Bytes of the shards' cells (one allocation for all). */
static u64 pd_shards_cells(const struct pd_config *cfg,
			   const struct pd_filter_plan *plan)
{
	struct pd_filter_plan whole, shard;
	const char *why = NULL;

	if (pd_shared_plan(cfg, &whole, &shard, &why))
		return plan->bytes;
	return pd_shards_mem_bytes(&shard, whole.shards);
}

/*
 * Bytes the filters of cfg (planned as plan) take from the allocator,
 * scope percpu with cells for ncpus CPUs: what pd_fset_build() allocates,
 * to the byte (mem.c).
 */
u64 pd_fset_bytes_n(const struct pd_config *cfg,
		    const struct pd_filter_plan *plan, u32 ncpus)
{
	u64 set = pd_mem_size(sizeof(struct pd_filter_set));

	set += pd_defer_bytes(cfg, plan);
	if (pd_cfg_shared(cfg))	/* plan->bytes: all shards' */
		return set + pd_mem_size(pd_shards_cells(cfg, plan)) +
		       pd_mem_size(pd_shards_struct_bytes(plan->shards)) +
		       pd_fcpu_bytes(plan);
	return set + pd_percpu_size(sizeof(struct pd_filter)) +
	       ncpus * pd_mem_size(plan->bytes);
}

/* The same with cells for the CPUs online now. */
u64 pd_fset_bytes(const struct pd_config *cfg,
		  const struct pd_filter_plan *plan)
{
	return pd_fset_bytes_n(cfg, plan, num_online_cpus());
}

void pd_fset_free(struct pd_filter_set *fs)
{
	struct pd_filter *f;
	int cpu;

	if (!fs)
		return;
	pd_cpus_leave(&fs->cpus);
	pd_defer_free(fs);
	pd_mem_free(fs->shards.mem, fs->cells_bytes);
	pd_mem_free(fs->shards.sh, pd_shards_struct_bytes(fs->shards.n));
	pd_percpu_free(fs->fcpu, sizeof(struct pd_filter_cpu));
	if (fs->pcpu) {
		for_each_possible_cpu(cpu) {
			f = per_cpu_ptr(fs->pcpu, cpu);
			if (f->ops)
				pd_mem_free(f->mem, fs->plan.bytes);
		}
		pd_percpu_free(fs->pcpu, sizeof(struct pd_filter));
	}
	pd_mem_free(fs, sizeof(*fs));
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
	const struct pd_filter_ops *ops;
	const char *why = NULL;
	void *mem = pd_mem_zalloc(plan->bytes, node);
	struct pd_filter one;
	u64 state = cfg->seed;
	int err;

	if (!mem) {
		NL_SET_ERR_MSG(extack, "out of memory for the filters");
		return -ENOMEM;
	}
	err = pd_filter_init(&one, plan, mem, &why);
	if (err) {
		pd_mem_free(mem, plan->bytes);
		pd_set_err_msg(extack, why);
		return err;
	}
	if (cfg->seed_mode == PKTDEDUP_SEED_MODE_FIXED)
		pd_filter_seed(&one, &state);
	ops = one.ops;
	one.ops = NULL;
	*f = one;
	/*
	 * Readers on other CPUs take a filter with ops for a whole one:
	 * pairs with pd_fset_cpu()
	 */
	smp_store_release(&f->ops, ops);
	return 0;
}

/*
 * A lock-free shared filter's per-CPU generators: at random, or with a
 * fixed seed, CPU 0's the filter's own (a CPU stepping alone steps as
 * dedup-sim's one filter does) and each other possible CPU's the next
 * draw of the seed's state, in CPU order.
 */
static int pd_fcpu_build(struct pd_filter_set *fs,
			 const struct pd_config *cfg, u64 *state,
			 struct netlink_ext_ack *extack)
{
	const struct pd_filter *f = &fs->shards.sh[0].f;
	bool fixed = cfg->seed_mode == PKTDEDUP_SEED_MODE_FIXED;
	int cpu;

	fs->fcpu = (struct pd_filter_cpu __percpu *)
		   pd_percpu_zalloc(sizeof(struct pd_filter_cpu),
				    __alignof__(struct pd_filter_cpu));
	if (!fs->fcpu) {
		NL_SET_ERR_MSG(extack, "out of memory for the filters");
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		u64 rng;

		if (fixed && !cpu) {
			pd_filter_cpu_init(f, per_cpu_ptr(fs->fcpu, cpu), NULL);
			continue;
		}
		rng = fixed ? pd_rng_next(state) : get_random_u64();
		pd_filter_cpu_init(f, per_cpu_ptr(fs->fcpu, cpu), &rng);
	}
	return 0;
}

/*
 * The shards of a shared filter: their structs (each on its own lines,
 * lock beside state) and one array of cells for all, seeded at random or,
 * with a fixed seed, as dedup-sim --shards seeds them.
 */
static int pd_shared_build(struct pd_filter_set *fs,
			   const struct pd_config *cfg,
			   struct netlink_ext_ack *extack)
{
	struct pd_filter_plan whole, shard;
	const char *why = NULL;
	struct pd_shard *sh;
	u64 state = cfg->seed;
	void *mem;
	int err;

	err = pd_shared_plan(cfg, &whole, &shard, &why);
	if (err) {
		pd_set_err_msg(extack, why);
		return err;
	}
	fs->cells_bytes = pd_shards_mem_bytes(&shard, whole.shards);
	sh = pd_mem_zalloc(pd_shards_struct_bytes(whole.shards), NUMA_NO_NODE);
	mem = pd_mem_zalloc(fs->cells_bytes, NUMA_NO_NODE);
	if (!sh || !mem) {
		pd_mem_free(sh, pd_shards_struct_bytes(whole.shards));
		pd_mem_free(mem, fs->cells_bytes);
		NL_SET_ERR_MSG(extack, "out of memory for the filters");
		return -ENOMEM;
	}
	err = pd_shards_init(&fs->shards, sh, whole.shards, &shard, mem, &why);
	if (err) {
		/* pd_fset_free() frees them */
		pd_set_err_msg(extack, why);
		return err;
	}
	if (cfg->seed_mode == PKTDEDUP_SEED_MODE_FIXED)
		pd_shards_seed(&fs->shards, &state);
	if (fs->shards.lockfree)
		return pd_fcpu_build(fs, cfg, &state, extack);
	return 0;
}

/* A CPU came up (cpus.c): its filter's cells. */
static int pd_fset_cpu_up(struct pd_cpus *c, unsigned int cpu)
{
	struct pd_filter_set *fs = container_of(c, struct pd_filter_set, cpus);

	return pd_filter_alloc(per_cpu_ptr(fs->pcpu, cpu), &fs->cfg,
			       &fs->plan, cpu_to_node(cpu), NULL);
}

static bool pd_fset_cpu_has(struct pd_cpus *c, unsigned int cpu)
{
	struct pd_filter_set *fs = container_of(c, struct pd_filter_set, cpus);

	return pd_fset_cpu(fs, cpu);
}

/*
 * Allocate the filters of cfg, planned by pd_fset_plan(), scope percpu
 * with cells for at most ncpus of the CPUs online now (the others get
 * theirs once the set is in force: pd_fset_live()). Returns them, or an
 * ERR_PTR with an extack message; nothing is left allocated on failure.
 * The caller has admitted pd_fset_bytes_n(cfg, plan, ncpus) to the budget;
 * fs->cpus.bytes is what the set holds.
 */
struct pd_filter_set *pd_fset_build(const struct pd_config *cfg,
				    const struct pd_filter_plan *plan,
				    u32 ncpus, struct netlink_ext_ack *extack)
{
	struct pd_filter_set *fs;
	int cpu, err;

	fs = pd_mem_zalloc(sizeof(*fs), NUMA_NO_NODE);
	if (!fs) {
		NL_SET_ERR_MSG(extack, "out of memory for the filters");
		return ERR_PTR(-ENOMEM);
	}
	refcount_set(&fs->ref, 1);
	fs->cfg = *cfg;
	fs->sel_mark_value = cfg->sel.mark_value;
	fs->sel_mark_mask = cfg->sel.mark_mask;
	fs->mark_value = cfg->mark_value;
	fs->mark_mask = cfg->mark_mask;
	fs->action = cfg->action;
	fs->any_proto = cfg->sel.any_proto;
	fs->plan = *plan;
	fs->cpus.up = pd_fset_cpu_up;
	fs->cpus.has = pd_fset_cpu_has;
	fs->cpus.cpu_bytes = pd_mem_size(plan->bytes);
	fs->kopts.mode = cfg->key;
	fs->kopts.flags = cfg->key_flags;
	fs->kopts.payload = cfg->key == PKTDEDUP_KEY_PACKET ? cfg->payload : 0;
	fs->kopts.decap = cfg->decap;
	fs->kopts.vxlan_port = cfg->vxlan_port;
	fs->kopts.geneve_port = cfg->geneve_port;
	fs->kopts.gtpu_port = cfg->gtpu_port;
	/* as dedup-sim --seed derives it with a fixed seed */
	if (cfg->seed_mode == PKTDEDUP_SEED_MODE_FIXED)
		pd_nh_key_seed(&fs->nhkey, cfg->seed);
	else
		pd_nh_key_random(&fs->nhkey);
	fs->kopts.nh = &fs->nhkey;
	fs->copy_len = pd_key_hdr_look(&fs->kopts);
	fs->timed = pd_filter_plan_timed(plan);
	err = pd_defer_build(fs, extack);
	if (err)
		goto fail;

	if (pd_cfg_shared(cfg)) {
		err = pd_shared_build(fs, cfg, extack);
		if (err)
			goto fail;
		fs->cpus.bytes = pd_fset_bytes_n(cfg, plan, 0);
		return fs;
	}
	fs->pcpu = (struct pd_filter __percpu *)
		   pd_percpu_zalloc(sizeof(struct pd_filter),
				    /* on whole lines: two a packet reads */
				    SMP_CACHE_BYTES);
	if (!fs->pcpu) {
		NL_SET_ERR_MSG(extack, "out of memory for the filters");
		err = -ENOMEM;
		goto fail;
	}
	/* the CPUs online now, none coming or going meanwhile */
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		if (fs->cpus.ncpus == ncpus)
			break;
		err = pd_filter_alloc(per_cpu_ptr(fs->pcpu, cpu), cfg, plan,
				      cpu_to_node(cpu), extack);
		if (err) {
			cpus_read_unlock();
			goto fail;
		}
		fs->cpus.ncpus++;
		cond_resched();
	}
	cpus_read_unlock();
	fs->cpus.bytes = pd_fset_bytes_n(cfg, plan, fs->cpus.ncpus);
	return fs;
fail:
	pd_fset_free(fs);
	return ERR_PTR(err);
}

/*
 * fs is in force in pn (published, its bytes held): the CPUs that come up
 * get their filters, admitted to pn's budget; so do those that came up
 * since it was built. pn->lock held.
 */
void pd_fset_live(struct pd_net *pn, struct pd_filter_set *fs)
{
	if (fs->pcpu)
		pd_cpus_live(&fs->cpus, pn, PD_PART_FILTERS);
}

/* Scope percpu: how many online CPUs have no filter of fs. */
u32 pd_fset_cpus_without(struct pd_filter_set *fs)
{
	u32 n = 0;
	int cpu;

	if (!fs || !fs->pcpu)
		return 0;
	for_each_online_cpu(cpu)
		n += !pd_fset_cpu(fs, cpu);
	return n;
}

/* fs is withdrawn: no CPU coming up gets a filter of it any more. */
void pd_fset_leave(struct pd_filter_set *fs)
{
	if (fs)
		pd_cpus_leave(&fs->cpus);
}

static u64 pd_occ(const struct pd_filter *f, struct pd_filter_occ *occ,
		  u64 max_bytes)
{
	pd_filter_occupancy_within(f, occ, max_bytes);
	return occ->units;
}

static u64 pd_shared_occ(const struct pd_shards *s,
			 struct pd_filter_occ *occ, u64 max_bytes)
{
	pd_shards_occupancy(s, occ, max_bytes);
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
 * The occupancy of one CPU's filter (or the shared one, all its shards):
 * zero cells or set bits, in the family's terms, from a read of at most
 * max_bytes of it (core/occ.h: exact if it fits, else estimated from
 * evenly spaced lines). Anyone may ask (/proc, GET_STATS), so it never
 * takes a shard's lock, which would stall the packets of every CPU that
 * needs it for the length of the read: the filter is written while it is
 * read, a word is read whole and the answer is a statistic, so the race
 * is benign (as for a per-CPU filter, which its CPU writes meanwhile).
 */
void pd_fset_occupancy(struct pd_filter_set *fs, int cpu,
		       struct pd_filter_occ *occ, u64 max_bytes)
{
	if (fs->shards.n) {
		/* a statistic read while the CPUs write: benign, as above */
		(void)data_race(pd_shared_occ(&fs->shards, occ, max_bytes));
	} else {
		struct pd_filter *f = pd_fset_cpu(fs, cpu);

		if (!f) {	/* a CPU without a filter: nothing to read */
			memset(occ, 0, sizeof(*occ));
			return;
		}
		/* a statistic read while its CPU writes: benign, as above */
		(void)data_race(pd_occ(f, occ, max_bytes));
	}
}

/* One CPU's filter window state (window families); false for the others. */
static bool pd_fset_window(struct pd_filter_set *fs, int cpu,
			   struct pd_filter_win *w)
{
	struct pd_filter *f = pd_fset_cpu(fs, cpu);

	/* a statistic read while the CPU writes: benign, as above */
	return f && data_race(pd_filter_window(f, w));
}

/*
 * The window state of the shared filter: its shards', each read under its
 * lock (a window's state is several words that must agree).
 */
static bool pd_shared_window(struct pd_filter_set *fs, struct pd_filter_win *w)
{
	struct pd_filter_win one;
	u32 i;

	for (i = 0; i < fs->shards.n; i++) {
		struct pd_shard *sh = &fs->shards.sh[i];
		bool ok;

		spin_lock_bh(&sh->lock);
		ok = pd_filter_window(&sh->f, &one);
		spin_unlock_bh(&sh->lock);
		if (!ok)
			return false;
		pd_shards_window_add(w, &one, fs->shards.n, !i);
	}
	return true;
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

	if (fs->shards.n)
		return pd_shared_window(fs, w);
	for_each_possible_cpu(i) {
		if (cpu >= 0 && i != cpu)
			continue;
		if (!pd_fset_cpu(fs, i))	/* no filter: no window */
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

	if (fs->shards.n) {
		u64 h = pd_shards_hash(&fs->shards, key);
		struct pd_shard *sh = pd_shard_of(&fs->shards, h);

		spin_lock_bh(&sh->lock);
		n = pd_filter_query_hash(&sh->f, h);
		spin_unlock_bh(&sh->lock);
		return n;
	}
	for_each_possible_cpu(cpu) {
		struct pd_filter *f = pd_fset_cpu(fs, cpu);

		if (!f)
			continue;
		/* racing with the filter's CPU is benign, as above */
		n += data_race(pd_filter_query_hash(f, pd_filter_hash(f, key)));
	}
	return n;
}
