// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: /proc/net/pktdedup/, per network namespace, read-only.
 *
 * stats: a header line, one row per possible CPU and a "total" row:
 *	cpu packets duplicates marked dropped unparsed zero_cells
 * (zero_cells: the measured fraction of zero cells of that CPU's filter,
 * "-" for a CPU without one; for the total, their mean), then "name
 * value" lines: nonip (frames neither IPv4 nor IPv6 at an ingress or
 * bridge hook), unjudged (passed on a CPU without a filter: cpus.c) and
 * for the current settings: stable_point (Theorem 3) and fp_bound (Eq. 8),
 * then rate_pps (measured between reads at least a second apart),
 * memory_packets and memory_ns (what the filters remember: stats.c),
 * "-" when not known.
 * (An idle instance's stats is one line saying so.)
 * config: "name value" lines: state, settings (the traffic selection as
 * dev, protos and match_mark: "any" or what is selected), filter
 * parameters and the namespace's memory (cap, where the cap comes from,
 * what is held), and the module's across all namespaces (what its budgets
 * hold, and what the allocator gave: mem.c); what is not running for
 * want of memory (online CPUs without their state, the source windows).
 * devices: the named devices' counters, one row per name (below).
 * distinct, sources: the source analytics' (sources/src_proc.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>

#include "core/fixed.h"
#include "pktdedup.h"

/* A ppb value as a decimal fraction: 785700000 -> "0.785700000". */
static void pd_seq_ppb(struct seq_file *m, const char *sep, u32 ppb)
{
	seq_printf(m, "%s%u.%09u", sep, ppb / 1000000000, ppb % 1000000000);
}

static void pd_seq_row(struct seq_file *m, const char *name,
		       const struct pd_counts *c)
{
	seq_printf(m, "%-6s %12llu %12llu %12llu %12llu %12llu", name,
		   c->packets, c->duplicates, c->marked, c->dropped,
		   c->unparsed);
}

/*
 * A window family's state over all CPUs, in the window's unit: entries
 * and early expiries summed, effective and shortest the least.
 */
static void pd_window_show(struct seq_file *m, struct pd_filter_set *fs)
{
	struct pd_filter_win w;
	const char *unit;

	if (!pd_fset_window_of(fs, -1, &w))
		return;
	unit = w.timed ? "ns" : "packets";
	seq_printf(m, "window_%s %llu\nwindow_capacity %llu\nwindow_entries %llu\n",
		   unit, w.window, w.capacity, w.entries);
	seq_printf(m, "window_effective_%s %llu\nwindow_shortest_%s %llu\nearly_expiries %llu\n",
		   unit, w.effective, unit, w.shortest, w.early);
}

/* One "name value" line, "-" for a value not known (0). */
static void pd_seq_known(struct seq_file *m, const char *name, bool known,
			 u64 v)
{
	if (known)
		seq_printf(m, "%s %llu\n", name, v);
	else
		seq_printf(m, "%s -\n", name);
}

/*
 * The packet rate (a sample of stats.c's: the first read gives "-") and
 * what the filters remember, in packets and ns ("-": not known).
 */
static void pd_memory_show(struct seq_file *m, struct pd_stats_view *sv)
{
	struct pd_stats_mem mem;

	pd_stats_memory(sv, &mem);
	pd_seq_known(m, "rate_pps", mem.rate_known, mem.pps);
	pd_seq_known(m, "memory_packets", mem.m.packets, mem.m.packets);
	pd_seq_known(m, "memory_ns", mem.m.ns, mem.m.ns);
}

/* A read of stats.c's, row by row. */
/* "decap ENCAP FRAMES errors N": the encapsulations looked into. */
static void pd_decap_show(struct seq_file *m, const struct pd_filter_set *fs,
			  const struct pd_counts *c)
{
	unsigned int i;

	for (i = 0; i < PD_NENCAPS; i++)
		if (fs->kopts.decap & BIT(i))
			seq_printf(m, "decap %s %llu errors %llu\n",
				   pd_encap_names[i], c->decap[i],
				   c->decap_err[i]);
}

/*
 * "decap LIST" (or none), and with any: whether the tunnels' identities
 * are keyed and the UDP tunnels' ports.
 */
static void pd_decap_config_show(struct seq_file *m, const struct pd_config *c)
{
	const char *sep = "";
	unsigned int i;

	seq_puts(m, "decap ");
	for (i = 0; i < PD_NENCAPS; i++)
		if (c->decap & BIT(i)) {
			seq_printf(m, "%s%s", sep, pd_encap_names[i]);
			sep = ",";
		}
	if (!c->decap) {
		seq_puts(m, "none\n");
		return;
	}
	seq_printf(m, "\ntunnel_id %s\nvxlan_port %u\ngeneve_port %u\ngtpu_port %u\n",
		   c->key_flags & PKTDEDUP_KEY_F_TUNNEL_ID ? "include" : "ignore",
		   c->vxlan_port, c->geneve_port, c->gtpu_port);
}

static int pd_stats_show(struct seq_file *m, void *v)
{
	struct pd_net *pn = pd_pernet(seq_file_single_net(m));
	struct pd_counts total = {};
	struct pd_stats_view sv;
	struct pd_filter_occ buf;
	struct pd_stats_row r;
	struct pd_filter_set *fs;
	u64 occ_sum = 0;
	char name[16];
	int cpu, n = 0;

	if (!pd_stats_begin(pn, &sv)) {
		seq_puts(m, "idle: no filters and no hook in this namespace; dedupctl enable (or any dedupctl set) starts it\n");
		return 0;
	}
	fs = sv.fs;
	seq_printf(m, "%-6s %12s %12s %12s %12s %12s %12s\n", "cpu",
		   "packets", "duplicates", "marked", "dropped", "unparsed",
		   sv.counting ? "zero_cells" : "set_bits");
	for_each_possible_cpu(cpu) {
		pd_stats_cpu(&sv, cpu, &r, &buf);
		pd_counts_add(&total, &r.c);
		snprintf(name, sizeof(name), "%d", cpu);
		pd_seq_row(m, name, &r.c);
		if (r.occ) {
			occ_sum += r.ppb;
			n++;
			pd_seq_ppb(m, " ", r.ppb);
		} else {	/* no filter on this CPU */
			seq_printf(m, " %11s", "-");
		}
		seq_putc(m, '\n');
	}
	pd_seq_row(m, "total", &total);
	pd_seq_ppb(m, " ", n ? (u32)div_u64(occ_sum, n) : 0);
	seq_putc(m, '\n');
	seq_printf(m, "nonip %llu\nunjudged %llu\n", total.nonip,
		   total.unjudged);
	if (fs)
		pd_decap_show(m, fs, &total);
	if (fs) {
		if (fs->plan.given & PD_PLAN_HAS_ZERO)
			pd_seq_ppb(m, "stable_point ",
				   pd_q62_to_ppb(fs->plan.stable_zero));
		if (fs->plan.given & PD_PLAN_HAS_LOAD)
			pd_seq_ppb(m, "stable_load ",
				   pd_q62_to_ppb(fs->plan.stable_load));
		pd_seq_ppb(m, "\nfp_bound ", pd_q62_to_ppb(fs->plan.fp_bound));
		seq_putc(m, '\n');
		pd_window_show(m, fs);
	}
	pd_memory_show(m, &sv);
	pd_stats_end(&sv);
	return 0;
}

/*
 * devices: a header line, then one row per named device, in the
 * configuration's order: dev packets duplicates marked dropped dup_pct
 * (dup_pct: duplicates per hundred packets, "-" before any packet).
 */
static int pd_devices_show(struct seq_file *m, void *v)
{
	struct pd_net *pn = pd_pernet(seq_file_single_net(m));
	struct pd_dev_counts c[PKTDEDUP_DEVS_MAX];
	struct pd_stats_view sv;
	struct pd_filter_set *fs;
	unsigned int i;
	u64 pct;

	if (!pd_stats_begin(pn, &sv)) {
		seq_puts(m, "idle: no filters and no hook in this namespace; dedupctl enable (or any dedupctl set) starts it\n");
		return 0;
	}
	fs = sv.fs;
	seq_printf(m, "%-15s %12s %12s %12s %12s %8s\n", "dev", "packets",
		   "duplicates", "marked", "dropped", "dup_pct");
	if (fs && fs->cfg.sel.ndev) {
		rcu_read_lock();
		pd_dev_counts_read(rcu_dereference(pn->ctr), fs, c);
		rcu_read_unlock();
		for (i = 0; i < fs->cfg.sel.ndev; i++) {
			seq_printf(m, "%-15s %12llu %12llu %12llu %12llu",
				   fs->cfg.sel.dev[i], c[i].packets,
				   c[i].duplicates, c[i].marked, c[i].dropped);
			if (!c[i].packets) {
				seq_printf(m, " %8s\n", "-");
				continue;
			}
			/* hundredths of a percent, rounded down */
			pct = div64_u64(min(c[i].duplicates, c[i].packets) *
					10000, c[i].packets);
			seq_printf(m, " %5llu.%02llu\n", div_u64(pct, 100),
				   pct % 100);
		}
	}
	pd_stats_end(&sv);
	return 0;
}

/* The filter's parameters, and what its family's model says. */
static void pd_plan_show(struct seq_file *m, const struct pd_filter_set *fs)
{
	const struct pd_filter_plan *p = &fs->plan;
	const struct pd_filter_ops *ops = pd_filter_family(p->kind);

	seq_printf(m, "filters %u\nshards %u\nlock_free %u\nk %u\n",
		   pd_fset_count(fs), p->shards, p->lockfree, p->k);
	if (p->given & PD_PLAN_HAS_WINDOW)	/* counters, or positions */
		seq_printf(m, "cells %llu\n", p->cells);
	else if (ops->counting)
		seq_printf(m, "cells %llu\nbits %u\nmax %u\np %u\n", p->cells,
			   p->bits, p->max, p->p);
	if (pd_filter_takes(ops, PKTDEDUP_A_SETTINGS_LAYOUT))
		seq_printf(m, "layout %s\n", pd_sbf_layout_name(p->layout));
	else
		seq_printf(m, "bits_per_array %llu\n", p->cells);
	if (pd_filter_takes(ops, PKTDEDUP_A_SETTINGS_P_STAR))
		pd_seq_ppb(m, "p_star ", p->p_star_ppb);
	if (pd_filter_takes(ops, PKTDEDUP_A_SETTINGS_P_STAR))
		seq_putc(m, '\n');
	if (p->given & PD_PLAN_HAS_WINDOW) {
		if (p->window_ns)
			seq_printf(m, "window_ns %llu\nrate %llu\n",
				   p->window_ns, p->rate);
		else
			seq_printf(m, "window_packets %llu\n", p->window_pkts);
		seq_printf(m, "capacity %llu\nsubwindows %u\nwarn_below %u\n",
			   p->capacity, p->subwindows, p->warn_below);
	}
	if (pd_filter_takes(ops, PKTDEDUP_A_SETTINGS_IMPORTANCE))
		seq_printf(m, "importance %s\nimportance_mask 0x%x\n",
			   p->importance == PKTDEDUP_IMPORTANCE_MARK ?
			   "mark" : "dscp", p->importance_mask);
	pd_seq_ppb(m, "fp_bound ", pd_q62_to_ppb(p->fp_bound));
	seq_putc(m, '\n');
	if (p->given & PD_PLAN_HAS_ZERO)
		pd_seq_ppb(m, "stable_point ", pd_q62_to_ppb(p->stable_zero));
	if (p->given & PD_PLAN_HAS_LOAD)
		pd_seq_ppb(m, "stable_load ", pd_q62_to_ppb(p->stable_load));
	seq_putc(m, '\n');
	if (p->given & PD_PLAN_HAS_FN) {
		seq_printf(m, "gap %llu", p->gap);
		pd_seq_ppb(m, "\nfn_at_gap ", pd_q62_to_ppb(p->fn_rate));
		if (pd_filter_takes(ops, PKTDEDUP_A_SETTINGS_IMPORTANCE))
			pd_seq_ppb(m, "\nfn_low_at_gap ",
				   pd_q62_to_ppb(p->fn_low));
		seq_putc(m, '\n');
	}
}

/* The traffic selection: dev, protos and match_mark lines ("any"). */
static void pd_select_show(struct seq_file *m, const struct pd_select *sel)
{
	unsigned int i, n = 0;

	seq_puts(m, "dev");
	for (i = 0; i < sel->ndev; i++)
		seq_printf(m, "%c%s", i ? ',' : ' ', sel->dev[i]);
	seq_puts(m, sel->ndev ? "\nprotos" : " any\nprotos");
	for (i = 0; i < 256 && !sel->any_proto; i++)
		if (pd_select_proto(sel, i))
			seq_printf(m, "%c%u", n++ ? ',' : ' ', i);
	if (sel->any_proto)
		seq_puts(m, " any");
	if (sel->mark_mask)
		seq_printf(m, "\nmatch_mark 0x%x/0x%x\n", sel->mark_value,
			   sel->mark_mask);
	else
		seq_puts(m, "\nmatch_mark any\n");
}

/*
 * The hooks in force: netfilter_hooks registered (all the configuration
 * asks for), partial (hook ingress: some named devices are absent,
 * stacked or failed) or none, at an XDP hook xdp_programs attached,
 * partial or none; then each named device's binding.
 */
static void pd_hooks_show(struct seq_file *m, struct pd_net *pn)
{
	struct pd_hooks *h = pn->hooks;
	unsigned int i;
	u32 n;

	if (!h) {
		seq_puts(m, "netfilter_hooks none\n");
		return;
	}
	mutex_lock(&pn->dev_lock);
	n = pd_hooks_count(h);
	if (h->xdp)	/* the programs attached, not netfilter's hooks */
		for (i = 0, n = 0; i < h->ndev; i++)
			n += !!h->xlink[i];
	seq_printf(m, "%s %s\n", h->xdp ? "xdp_programs" : "netfilter_hooks",
		   !n ? "none" : h->per_dev && n < h->ndev ? "partial" :
		   h->xdp ? "attached" : "registered");
	for (i = 0; i < h->ndev; i++) {
		const struct pd_dev_bind *b = &h->dev[i];

		seq_printf(m, "%s%s %s", i ? ", " : "dev_state ", b->name,
			   pd_dev_state_names[b->state] ?: "?");
		if (b->state == PKTDEDUP_DEV_STATE_STACKED ||
		    b->state == PKTDEDUP_DEV_STATE_SAME)
			seq_printf(m, " %s %s",
				   b->state == PKTDEDUP_DEV_STATE_STACKED ?
				   "on" : "as", h->dev[b->lower].name);
		if (b->dev)
			seq_printf(m, " (ifindex %d)", b->dev->ifindex);
		if (b->state == PKTDEDUP_DEV_STATE_FAILED)
			seq_printf(m, " (%s)", pd_dev_why(b->err, h->xdp));
	}
	if (h->ndev)
		seq_putc(m, '\n');
	mutex_unlock(&pn->dev_lock);
}

/*
 * What is not running for want of memory (as GET_CONFIG's budget says):
 * cpus_online, cpus_without_filters, cpus_without_sources, and a
 * "cpu_refused WHY NEED" line, a "sources_refused WHY NEED" line.
 */
static void pd_refusals_show(struct seq_file *m, struct pd_net *pn,
			     struct pd_filter_set *fs,
			     const struct pd_budget *b)
{
	static const char *const why[PKTDEDUP_REFUSAL_MAX + 1] = {
		[PKTDEDUP_REFUSAL_CAP] = "cap",
		[PKTDEDUP_REFUSAL_TOTAL] = "max_total_mem",
		[PKTDEDUP_REFUSAL_USER] = "max_user_mem",
		[PKTDEDUP_REFUSAL_USERNS] = "init_reserve_mem",
		[PKTDEDUP_REFUSAL_NOMEM] = "nomem",
	};
	u8 off = 0;
	u64 need;

	seq_printf(m, "cpus_online %u\ncpus_without_filters %u\ncpus_without_sources %u\n",
		   num_online_cpus(), pd_fset_cpus_without(fs),
		   pd_srcs_cpus_without(pn));
	if (b->cpu_refused)
		seq_printf(m, "cpu_refused %s %llu\n", why[b->cpu_why],
			   b->cpu_need);
	need = pd_srcs_refused(pn, &off);
	if (need)
		seq_printf(m, "sources_refused %s %llu\n", why[off], need);
}

static int pd_config_show(struct seq_file *m, void *v)
{
	struct pd_net *pn = pd_pernet(seq_file_single_net(m));
	const struct pd_config *c = &pn->cfg;
	const struct pd_filter_ops *ops = pd_filter_family(c->filter.kind);
	u64 user_held, userns_held;
	struct pd_filter_set *fs;
	struct pd_budget b;

	mutex_lock(&pn->lock);
	fs = rcu_dereference_protected(pn->filters, lockdep_is_held(&pn->lock));
	seq_printf(m, "state %s\n", pn->active ? "active" :
		   "idle (no filters, no hook: dedupctl enable starts it)");
	pd_hooks_show(m, pn);
	seq_printf(m, "key %s\n", pd_key_mode_names[c->key]);
	if (c->key == PKTDEDUP_KEY_PACKET && c->payload == PKTDEDUP_PAYLOAD_ALL)
		seq_puts(m, "payload all\n");
	else if (c->key == PKTDEDUP_KEY_PACKET)
		seq_printf(m, "payload %u\n", c->payload);
	if (c->key == PKTDEDUP_KEY_PACKET)
		seq_printf(m, "ignore_tos %s\n",
			   c->key_flags & PKTDEDUP_KEY_F_IGNORE_TOS ? "yes" : "no");
	seq_printf(m, "nonip %s\n",
		   c->key_flags & PKTDEDUP_KEY_F_NONIP ? "dedup" : "pass");
	pd_decap_config_show(m, c);
	seq_printf(m, "action %s\n", pd_action_names[c->action]);
	if (c->action == PKTDEDUP_ACTION_MARK)
		seq_printf(m, "mark 0x%x/0x%x\n", c->mark_value, c->mark_mask);
	seq_printf(m, "hook %s\npriority %d\nscope %s\nfilter %s\nmem %llu\n",
		   pd_placement_name(c->hook), c->priority,
		   pd_scope_names[c->scope], ops->name, c->filter.mem_bytes);
	seq_printf(m, "filter_auto %s\n", c->filter_auto ? "yes" : "no");
	pd_select_show(m, &c->sel);
	/* whether, never what: this file is world-readable (nl_config.c) */
	seq_printf(m, "seed %s\n",
		   c->seed_mode == PKTDEDUP_SEED_MODE_FIXED ? "fixed" : "random");
	if (pd_filter_takes(ops, PKTDEDUP_A_SETTINGS_FPS)) {
		pd_seq_ppb(m, "fps ", c->filter.fps_ppb ? c->filter.fps_ppb :
			   ops->default_fps_ppb);
		seq_putc(m, '\n');
	}
	if (fs)
		pd_plan_show(m, fs);
	pd_budget_copy(&pn->budget, &b);
	seq_printf(m, "mem_cap %llu\nmem_cap_source %s\nmem_filters %llu\nmem_sources %llu\nmem_peak %llu\n",
		   b.cap, b.cap_source == PKTDEDUP_CAP_SOURCE_USERNS ?
		   "max_userns_mem" : "max_netns_mem",
		   b.held[PD_PART_FILTERS], b.held[PD_PART_SOURCES], b.peak);
	seq_printf(m, "mem_total_cap %llu\nmem_total_held %llu\nmem_total_allocated %llu\n",
		   pd_max_total_mem, pd_budget_total_held(), pd_mem_taken());
	pd_refusals_show(m, pn, fs, &b);
	pd_budget_report(&pn->budget, &user_held, &userns_held);
	seq_printf(m, "mem_userns_cap %llu\nmem_userns_held %llu\n",
		   pd_max_total_mem - pd_init_reserve_mem, userns_held);
	if (pn->budget.userns)
		seq_printf(m, "mem_user_cap %llu\nmem_user_held %llu\n",
			   pd_max_user_mem, user_held);
	mutex_unlock(&pn->lock);
	return 0;
}

int pd_proc_init(struct pd_net *pn)
{
	struct net *net = pn->net;

	pn->proc = proc_net_mkdir(net, "pktdedup", net->proc_net);
	if (!pn->proc)
		return -ENOMEM;
	if (!proc_create_net_single("stats", 0444, pn->proc, pd_stats_show,
				    NULL) ||
	    !proc_create_net_single("config", 0444, pn->proc, pd_config_show,
				    NULL) ||
	    !proc_create_net_single("devices", 0444, pn->proc,
				    pd_devices_show, NULL) ||
	    pd_srcs_proc_init(pn->proc)) {
		remove_proc_subtree("pktdedup", net->proc_net);
		pn->proc = NULL;
		return -ENOMEM;
	}
	return 0;
}

void pd_proc_exit(struct pd_net *pn)
{
	if (pn->proc)
		remove_proc_subtree("pktdedup", pn->net->proc_net);
	pn->proc = NULL;
}
