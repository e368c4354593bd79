// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: the deferred steps of action count, and their settling.
 *
 * With action count nothing about a packet waits for its verdict, so the
 * packet path counts the packet at once, asks for its filter line, keeps
 * its hash on this CPU's queue, and takes the step kept a packet before,
 * whose line has come meanwhile (core/defer.h, hook.c). A CPU's count of
 * duplicates then lags its packets by at most its queue's depth (one
 * packet, or PD_DEFER_DEEP for a filter beyond the caches) until its
 * next packets, or until a reader settles the queues: every reader of the
 * statistics does first (stats.c), and so does whoever withdraws a set of
 * filters (netns.c), after the grace period that ends its packet paths and
 * before its counters are read or freed. What is found is the same: the
 * steps are taken in the order the packets came.
 *
 * A queue is its CPU's alone. A settler takes its steps on that CPU, with
 * bottom halves off as the packet path runs (work_on_cpu(): a work item
 * on the caller's stack, run there by that CPU's workqueue), or, for a
 * CPU that is offline (no packet path runs there), itself under the
 * hotplug lock; one settler at a time (fs->defer_lock). A queue with
 * nothing kept costs a settler one load, and never wakes its CPU: a CPU
 * keeps steps only between packets, and a reader that comes while
 * traffic flows finds at most a queue's depth of them per CPU.
 *
 * The queues are allocated with the set, for action count only: nothing
 * for mark or drop, whose verdicts are needed at once.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/workqueue.h>

#include "pktdedup.h"

/*
 * Bytes of the queues of cfg, its filters planned as plan (the whole
 * shared one's in scope shared): what pd_defer_build() allocates (mem.c).
 */
u64 pd_defer_bytes(const struct pd_config *cfg,
		   const struct pd_filter_plan *plan)
{
	return cfg->action == PKTDEDUP_ACTION_COUNT ?
	       pd_percpu_size(PD_DEFER_BYTES(pd_defer_depth(plan))) : 0;
}

/*
 * fs's queues, if its action is count, as deep as its plan asks: 0, or
 * -ENOMEM with a message.
 */
int pd_defer_build(struct pd_filter_set *fs, struct netlink_ext_ack *extack)
{
	u32 depth = pd_defer_depth(&fs->plan);
	int cpu;

	mutex_init(&fs->defer_lock);
	if (!pd_defer_bytes(&fs->cfg, &fs->plan))
		return 0;
	fs->defer = (struct pd_defer __percpu *)
		    pd_percpu_zalloc(PD_DEFER_BYTES(depth), SMP_CACHE_BYTES);
	if (!fs->defer) {
		NL_SET_ERR_MSG(extack, "out of memory for the filters");
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu)
		pd_defer_init(per_cpu_ptr(fs->defer, cpu), depth);
	return 0;
}

/* Settled, or never used: nothing kept. */
void pd_defer_free(struct pd_filter_set *fs)
{
	pd_percpu_free(fs->defer, PD_DEFER_BYTES(pd_defer_depth(&fs->plan)));
	fs->defer = NULL;
}

struct pd_settle {
	struct pd_net *pn;
	struct pd_filter_set *fs;
	int cpu;
};

static long pd_defer_settle_cpu(void *arg)
{
	const struct pd_settle *s = arg;

	local_bh_disable();
	pd_defer_drain(s->pn, s->fs, s->cpu);
	local_bh_enable();
	return 0;
}

/*
 * Take every step kept on fs's queues, each on its CPU, and count its
 * duplicates, before a reader reads the counters of pn that fs counts in
 * (or they are freed). May sleep; the caller holds a reference to fs.
 */
void pd_defer_settle(struct pd_net *pn, struct pd_filter_set *fs)
{
	struct pd_settle s = { .pn = pn, .fs = fs };

	if (!fs || !fs->defer)
		return;
	mutex_lock(&fs->defer_lock);
	cpus_read_lock();
	for_each_possible_cpu(s.cpu) {
		/* its CPU writes it: a step kept before the read is seen */
		if (!data_race(READ_ONCE(per_cpu_ptr(fs->defer, s.cpu)->n)))
			continue;
		if (cpu_online(s.cpu))
			work_on_cpu(s.cpu, pd_defer_settle_cpu, &s);
		else
			pd_defer_settle_cpu(&s);
	}
	cpus_read_unlock();
	mutex_unlock(&fs->defer_lock);
}
