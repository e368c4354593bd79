// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: state kept for the online CPUs only, with CPU hotplug.
 *
 * Servers report many more possible CPUs than they have online (128 to
 * 512 possible are common): the large per-CPU parts of an instance (the
 * per-CPU filters' cells, the source windows' sketches, top-talker
 * summaries, new-source filters and rings) are built for the CPUs online
 * when the state is built, and a CPU that comes up later gets its part
 * from a multi-instance hotplug state (CPUHP_BP_PREPARE_DYN, as the
 * kernel's own per-CPU users keep theirs): the prepare callback runs on a
 * control CPU before the new CPU runs, so that CPU's packet path finds its
 * part there, or none. Each state in force is an instance (struct
 * pd_cpus), added when it is published and removed when it is withdrawn,
 * before it is freed.
 *
 * A CPU coming up adds memory: it is admitted against the namespace's
 * caps like any change (pd_budget_cpu_admit(), under the budget's
 * spinlock), charged to the memory cgroup of the task that built the
 * state (set_active_memcg()), or refused. A refused CPU has no part: its
 * packets pass unjudged (counted, stats.c), its addresses are not counted
 * by the source analytics, and dedupctl show says why. The callback never
 * fails the CPU's bring-up.
 *
 * A CPU that goes offline keeps its part until the state is next built
 * (a change, a reset): readers may be reading it, and it comes back with
 * the CPU.
 *
 * Locking: whoever holds pn->lock may take the hotplug lock (adding and
 * removing an instance takes cpus_read_lock()); the callback never takes
 * pn->lock, only the budget's spinlock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/memcontrol.h>
#include <linux/sched/mm.h>

#include "pktdedup.h"

static enum cpuhp_state pd_cpuhp_state;

/*
 * Give cpu its part of state c if it has none, admitted to the budget of
 * the namespace that holds c. 0 whatever happens: a CPU without its part
 * works, unjudged. Under the hotplug lock (the callback, or a caller that
 * holds cpus_read_lock()).
 */
int pd_cpus_up(struct pd_cpus *c, unsigned int cpu)
{
	struct mem_cgroup *old;
	int err;

	if (c->has(c, cpu) || !c->pn)
		return 0;
	if (pd_budget_cpu_admit(c->pn, c->part, c->cpu_bytes))
		return 0;
	old = set_active_memcg(c->memcg);
	err = c->up(c, cpu);
	set_active_memcg(old);
	if (err) {
		pd_budget_cpu_undo(c->pn, c->part, c->cpu_bytes);
		return 0;
	}
	WRITE_ONCE(c->ncpus, c->ncpus + 1);
	WRITE_ONCE(c->bytes, c->bytes + c->cpu_bytes);
	return 0;
}

static int pd_cpu_prepare(unsigned int cpu, struct hlist_node *node)
{
	return pd_cpus_up(hlist_entry(node, struct pd_cpus, node), cpu);
}

/*
 * State c was published as part `part` of pn's: from now on a CPU that
 * comes up gets its part, charged to pn's budget and to the memory cgroup
 * of the current task; so do the CPUs that came up since c was built.
 * pn->lock held.
 */
void pd_cpus_live(struct pd_cpus *c, struct pd_net *pn, enum pd_part part)
{
	unsigned int cpu;
	int err;

	lockdep_assert_held(&pn->lock);
	if (c->live)
		return;
	c->memcg = get_mem_cgroup_from_mm(current->mm);
	c->part = part;
	c->pn = pn;
	err = cpuhp_state_add_instance_nocalls(pd_cpuhp_state, &c->node);
	c->live = !err;
	if (err)
		pr_warn_ratelimited("CPUs that come up get no state in a namespace (%d)\n",
				    err);
	cpus_read_lock();
	for_each_online_cpu(cpu)
		pd_cpus_up(c, cpu);
	cpus_read_unlock();
}

/*
 * State c is withdrawn (no packet reaches it any more) or freed: no CPU
 * coming up gets a part of it now, nor charges the namespace for it.
 */
void pd_cpus_leave(struct pd_cpus *c)
{
	if (c->live)
		cpuhp_state_remove_instance_nocalls(pd_cpuhp_state, &c->node);
	c->live = false;
	c->pn = NULL;
	mem_cgroup_put(c->memcg);
	c->memcg = NULL;
}

int pd_cpus_init(void)
{
	int ret = cpuhp_setup_state_multi(CPUHP_BP_PREPARE_DYN,
					  "net/pktdedup:prepare",
					  pd_cpu_prepare, NULL);

	if (ret < 0)
		return ret;
	pd_cpuhp_state = ret;
	return 0;
}

void pd_cpus_exit(void)
{
	cpuhp_remove_multi_state(pd_cpuhp_state);
}
