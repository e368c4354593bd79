// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: the source analytics' files in /proc/net/pktdedup/ (proc.c
 * makes the folder), per network namespace, read-only.
 *
 * distinct: distinct sources and destinations over three spans.
 * sources: the source-window settings, memory and new-source events.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>

#include "src_internal.h"

/*
 * distinct: the window, then distinct sources and destinations over the
 * last sub-window, the last half of the window and the whole window.
 */
static int pd_distinct_show(struct seq_file *m, void *v)
{
	struct pd_net *pn = pd_pernet(seq_file_single_net(m));
	u32 nsub, lasts[3], i;
	struct pd_srcs *s;
	u64 src, dst;

	/* the readers' lock, and a reference: see pd_srcs_get() */
	if (mutex_lock_killable(&pn->src.read_lock))
		return -EINTR;
	s = pd_srcs_get(pn);
	if (!s)
		goto out;
	nsub = s->cfg.nsub;
	lasts[0] = 1;
	lasts[1] = max_t(u32, 1, nsub / 2);
	lasts[2] = nsub;
	seq_printf(m, "window_ms %u\nsubwindows %u\n", s->cfg.window_ms, nsub);
	seq_printf(m, "%-12s %12s %12s\n", "last_ms", "src", "dst");
	for (i = 0; i < 3; i++) {
		if (i && lasts[i] == lasts[i - 1])
			continue;
		if (pd_srcs_distinct(s, lasts[i], &src, &dst))
			break;
		seq_printf(m, "%-12u %12llu %12llu\n",
			   (u32)div_u64((u64)s->cfg.window_ms * lasts[i], nsub),
			   src, dst);
	}
	pd_srcs_put(s);
out:
	mutex_unlock(&pn->src.read_lock);
	return 0;
}

/* sources: the source-window settings, memory and new-source events. */
static int pd_sources_show(struct seq_file *m, void *v)
{
	struct pd_net *pn = pd_pernet(seq_file_single_net(m));
	const struct pd_src_cfg *c = &pn->src.cfg;
	struct pd_srcs *s;
	u64 seen = 0;
	int cpu;

	mutex_lock(&pn->lock);
	s = rcu_dereference_protected(pn->srcs, lockdep_is_held(&pn->lock));
	seq_printf(m, "enabled %s\nwindow_ms %u\nsubwindows %u\ncounters %u\nnew %s\nnew_mem %llu\nnew_gap %llu\nevent_rate %u\nring %u\n",
		   c->enabled ? "on" : "off", c->window_ms, c->nsub, c->counters,
		   c->newsrc ? "on" : "off", c->newsrc_mem, c->newsrc_gap,
		   c->event_rate, c->ring);
	if (s) {
		if (s->cfg.newsrc)
			for_each_possible_cpu(cpu)
				seen += pd_srcs_ring_head(s, cpu);
		seq_printf(m, "mem_total %llu\nnew_seen %llu\n",
			   pd_srcs_mem(s), seen);
	}
	seq_printf(m, "events_repeat %lld\nevents_sent %lld\nevents_overrun %lld\nevents_ratelimited %lld\nevents_failed %lld\n",
		   atomic64_read(&pn->src.ev_repeat),
		   atomic64_read(&pn->src.ev_sent), atomic64_read(&pn->src.ev_overrun),
		   atomic64_read(&pn->src.ev_ratelimited),
		   atomic64_read(&pn->src.ev_failed));
	mutex_unlock(&pn->lock);
	return 0;
}

int pd_srcs_proc_init(struct proc_dir_entry *dir)
{
	if (!proc_create_net_single("distinct", 0444, dir, pd_distinct_show,
				    NULL) ||
	    !proc_create_net_single("sources", 0444, dir, pd_sources_show,
				    NULL))
		return -ENOMEM;
	return 0;
}
