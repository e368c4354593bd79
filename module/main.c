// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: de-duplicate packets in the kernel with per-CPU filters of the
 * family an administrator picks (core/filter.h): the Stable Bloom Filter
 * (Deng & Rafiei, SIGMOD 2006) by default.
 *
 * Module parameters give the configuration every network namespace starts
 * with; it only observes (action count) until an administrator changes it
 * through the "pktdedup" generic netlink family (dedupctl). Only the
 * namespaces the netns parameter names start active (by default the
 * initial one): the others hold nothing and hook nothing until configured.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sysfs.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "pktdedup.h"
#include "uapi/pktdedup.h"

/*
 * The BTF the module's own is split against: a digest of it (scripts/
 * btf-base.sh digest, the POSIX cksum of the base's bytes in hex), given
 * by make module or DKMS (Kbuild: PD_BTF_BASE=), "none" when built without
 * BTF. dedupctl compares it with the running kernel's. Read-only.
 */
#ifndef PD_BTF_BASE
#define PD_BTF_BASE "none"
#endif

static int pd_btf_base_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", PD_BTF_BASE);
}

static int pd_btf_base_set(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static const struct kernel_param_ops pd_btf_base_ops = {
	.get = pd_btf_base_get,
	.set = pd_btf_base_set,
};

module_param_cb(btf_base, &pd_btf_base_ops, NULL, 0444);
MODULE_PARM_DESC(btf_base,
		 "digest of the kernel BTF the module's BTF was built against, none without BTF (read-only)");

static char *key = "packet";
module_param(key, charp, 0444);
MODULE_PARM_DESC(key, "default key: packet, src, dst, pair or flow (packet)");

static char *decap = "none";
module_param(decap, charp, 0444);
MODULE_PARM_DESC(decap,
		 "default tunnels looked into: none, all, or a list of vxlan, geneve, gre, erspan, gtpu, ip (none)");

static char *filter = "auto";
module_param(filter, charp, 0444);
MODULE_PARM_DESC(filter,
		 "default filter family, by the name dedupctl set filter takes, or auto for the action's (sbf to count or mark, a 10 ms sliding window to drop); not a time window, which needs a window no parameter gives (auto)");

static char *mem = "256K";
module_param(mem, charp, 0444);
MODULE_PARM_DESC(mem, "default memory per filter, K/M/G suffixes (256K)");

static char *fps = "";
module_param(fps, charp, 0444);
MODULE_PARM_DESC(fps,
		 "default target false-positive rate, e.g. 0.01 or 1% (the family's: 1%, rsbf 10%)");

static char *max_netns_mem = "256M";
module_param(max_netns_mem, charp, 0444);
MODULE_PARM_DESC(max_netns_mem,
		 "memory cap of a namespace owned by the initial user namespace: filters and source windows (256M)");

static char *max_userns_mem = "auto";
module_param(max_userns_mem, charp, 0444);
MODULE_PARM_DESC(max_userns_mem,
		 "memory cap of a namespace owned by any other user namespace (auto: 1/32 of RAM, at most max_netns_mem)");

static char *netns = "init";
module_param(netns, charp, 0444);
MODULE_PARM_DESC(netns,
		 "namespaces that start active: init (the initial one), all, or none; the others are idle until configured (init)");

static char *max_total_mem = "auto";
module_param(max_total_mem, charp, 0444);
MODULE_PARM_DESC(max_total_mem,
		 "memory cap of the module across all namespaces (auto: 1/16 of RAM)");

static char *max_user_mem = "auto";
module_param(max_user_mem, charp, 0444);
MODULE_PARM_DESC(max_user_mem,
		 "memory cap of all namespaces owned by the user namespaces one user created, together (auto: max_userns_mem)");

static char *init_reserve_mem = "auto";
module_param(init_reserve_mem, charp, 0444);
MODULE_PARM_DESC(init_reserve_mem,
		 "of max_total_mem, what namespaces of other user namespaces can never take: the initial user namespace's share (auto: half of max_total_mem)");

u64 pd_max_netns_mem, pd_max_userns_mem, pd_max_total_mem, pd_max_user_mem,
	pd_init_reserve_mem;

enum pd_start { PD_START_INIT, PD_START_ALL, PD_START_NONE, PD_NSTARTS };

static const char *const pd_start_names[PD_NSTARTS] = {
	[PD_START_INIT] = "init", [PD_START_ALL] = "all",
	[PD_START_NONE] = "none",
};

static int pd_start;

static struct pd_config pd_default_cfg;
unsigned int pd_net_id __read_mostly;

/* QUERY takes the headers a hook reads in one piece and a payload. */
static_assert(PD_SCRATCH + PKTDEDUP_QUERY_PAYLOAD_MAX ==
	      PKTDEDUP_QUERY_PACKET_MAX);

static int __net_init pd_net_init(struct net *net)
{
	bool active = pd_start == PD_START_ALL ||
		      (pd_start == PD_START_INIT && net_eq(net, &init_net));

	return pd_net_setup(pd_pernet(net), net, &pd_default_cfg, active);
}

static void __net_exit pd_net_pre_exit(struct net *net)
{
	pd_net_detach(pd_pernet(net));
}

static void __net_exit pd_net_exit(struct net *net)
{
	pd_net_teardown(pd_pernet(net));
}

static struct pernet_operations pd_net_ops = {
	.init = pd_net_init,
	.pre_exit = pd_net_pre_exit,
	.exit = pd_net_exit,
	.id = &pd_net_id,
	.size = sizeof(struct pd_net),
};

/* A size parameter: K/M/G suffixes, or auto (auto_val) if can_auto. */
static int __init pd_size_param(const char *name, const char *s,
				bool can_auto, u64 auto_val, u64 *out)
{
	char *end;

	if (can_auto && !strcmp(s, "auto")) {
		*out = auto_val;
		return 0;
	}
	*out = memparse(s, &end);
	if (!*end)
		return 0;
	pr_err("%s=%s: not a size (e.g. 16M, 1G)%s\n", name, s,
	       can_auto ? " or auto" : "");
	return -EINVAL;
}

static int __init pd_parse_params(void)
{
	bool follow = !strcmp(filter, "auto");
	u8 kind = pd_auto_kind(PKTDEDUP_ACTION_COUNT);
	const struct pd_filter_ops *ops = follow ? pd_filter_family(kind) :
					  pd_filter_family_by_name(filter);
	char msg[PD_FILTER_REFUSAL_LEN];
	struct pd_filter_plan plan;
	const char *why = NULL;
	char *end;
	u64 ram;
	u32 ppb;
	int i, err;

	pd_config_defaults(&pd_default_cfg);
	if (!ops) {
		char names[PD_FILTER_NAMES_LEN];

		pd_filter_family_names(names, sizeof(names), ", ");
		pr_err("filter=%s: not auto nor a filter family (%s)\n",
		       filter, names);
		return -EINVAL;
	}
	pd_default_cfg.filter_auto = follow;
	pd_filter_req_defaults(&pd_default_cfg.filter, ops->kind,
			       pd_default_cfg.filter.mem_bytes);
	i = pd_name_index(key, pd_key_mode_names, PD_KEY_NMODES);
	if (i < 0) {
		pr_err("key=%s: not packet, src, dst, pair or flow\n", key);
		return -EINVAL;
	}
	pd_default_cfg.key = i;
	if (pd_decap_parse(decap, &pd_default_cfg.decap, NULL)) {
		pr_err("decap=%s: not none, all or a list of vxlan, geneve, gre, erspan, gtpu, ip\n",
		       decap);
		return -EINVAL;
	}
	pd_default_cfg.filter.mem_bytes = memparse(mem, &end);
	if (*end || !pd_default_cfg.filter.mem_bytes) {
		pr_err("mem=%s: not a size (e.g. 256K, 4M)\n", mem);
		return -EINVAL;
	}
	if (*fps && pd_parse_ppb(fps, &ppb)) {
		pr_err("fps=%s: not a probability between 0 and 1 (e.g. 0.01, 1%%)\n",
		       fps);
		return -EINVAL;
	}
	if (*fps)
		pd_default_cfg.filter.fps_ppb = ppb;
	if (pd_srcs_params_check())
		return -EINVAL;
	ram = (u64)totalram_pages() << PAGE_SHIFT;
	if (pd_size_param("max_netns_mem", max_netns_mem, false, 0,
			  &pd_max_netns_mem) ||
	    pd_size_param("max_userns_mem", max_userns_mem, true,
			  min_t(u64, pd_max_netns_mem, ram / 32),
			  &pd_max_userns_mem) ||
	    pd_size_param("max_total_mem", max_total_mem, true, ram / 16,
			  &pd_max_total_mem) ||
	    pd_size_param("max_user_mem", max_user_mem, true,
			  pd_max_userns_mem, &pd_max_user_mem) ||
	    pd_size_param("init_reserve_mem", init_reserve_mem, true,
			  pd_max_total_mem / 2, &pd_init_reserve_mem))
		return -EINVAL;
	if (pd_init_reserve_mem > pd_max_total_mem) {
		pr_err("init_reserve_mem=%s: more than max_total_mem (%llu bytes)\n",
		       init_reserve_mem, pd_max_total_mem);
		return -EINVAL;
	}
	pd_start = pd_name_index(netns, pd_start_names, PD_NSTARTS);
	if (pd_start < 0) {
		pr_err("netns=%s: not init, all or none\n", netns);
		return -EINVAL;
	}
	pd_budget_msgs_init();
	err = pd_filter_plan(&pd_default_cfg.filter, &plan, &why);
	if (err) {
		pr_err("filter=%s mem=%s fps=%s: %s\n", filter, mem, fps,
		       pd_filter_refusal(&pd_default_cfg.filter, &plan, err,
					 why, msg, sizeof(msg)));
		return -EINVAL;
	}
	return 0;
}

static int __init pd_init(void)
{
	int err = pd_parse_params();

	if (err)
		return err;
	err = pd_hook_init();
	if (err)
		return err;
	err = pd_cpus_init();
	if (err)
		goto out_hook;
	err = register_pernet_subsys(&pd_net_ops);
	if (err)
		goto out_cpus;
	err = pd_placement_init();
	if (err)
		goto out_pernet;
	err = pd_xdp_init();
	if (err)
		goto out_placement;
	err = pd_netlink_init();
	if (err)
		goto out_xdp;
	pr_info("loaded: key %s, filter %s of %llu bytes, action count; active at load: %s namespaces; namespace caps %llu (initial user namespace), %llu (others); %llu for one user's user namespaces; %llu in all, of which %llu kept for the initial user namespace\n",
		pd_key_mode_names[pd_default_cfg.key], filter,
		pd_default_cfg.filter.mem_bytes, netns, pd_max_netns_mem,
		pd_max_userns_mem, pd_max_user_mem, pd_max_total_mem,
		pd_init_reserve_mem);
	return 0;
out_xdp:
	pd_xdp_exit();
out_placement:
	pd_placement_exit();
out_pernet:
	unregister_pernet_subsys(&pd_net_ops);
	pd_srcs_module_exit();
out_cpus:
	pd_cpus_exit();
out_hook:
	pd_hook_exit();
	return err;
}

static void __exit pd_exit(void)
{
	pd_netlink_exit();
	pd_placement_exit();
	unregister_pernet_subsys(&pd_net_ops);
	pd_xdp_exit();
	pd_srcs_module_exit();
	pd_cpus_exit();
	pd_hook_exit();
}

module_init(pd_init);
module_exit(pd_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Packet de-duplication with per-CPU stable Bloom filters");
MODULE_AUTHOR("pktdedup developers");
/* the release; dkms.conf's PACKAGE_VERSION is the same (make dkms-check) */
MODULE_VERSION("0.9.0");
MODULE_ALIAS_GENL_FAMILY(PKTDEDUP_GENL_NAME);
