// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: the configuration commands (GET_CONFIG, SET_CONFIG, RESET) on
 * the request/reply path of nl_family.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "nl_gen.h"
#include "pktdedup.h"

/* ---- the configuration ---- */

static void pd_cfg_update(struct pd_config *c, struct nlattr **a)
{
	if (a[PKTDEDUP_A_CONFIG_KEY])
		c->key = nla_get_u8(a[PKTDEDUP_A_CONFIG_KEY]);
	if (a[PKTDEDUP_A_CONFIG_KEY_FLAGS])
		c->key_flags = nla_get_u32(a[PKTDEDUP_A_CONFIG_KEY_FLAGS]);
	if (a[PKTDEDUP_A_CONFIG_PAYLOAD])
		c->payload = nla_get_u16(a[PKTDEDUP_A_CONFIG_PAYLOAD]);
	if (a[PKTDEDUP_A_CONFIG_ACTION])
		c->action = nla_get_u8(a[PKTDEDUP_A_CONFIG_ACTION]);
	if (a[PKTDEDUP_A_CONFIG_MARK_VALUE])
		c->mark_value = nla_get_u32(a[PKTDEDUP_A_CONFIG_MARK_VALUE]);
	if (a[PKTDEDUP_A_CONFIG_MARK_MASK])
		c->mark_mask = nla_get_u32(a[PKTDEDUP_A_CONFIG_MARK_MASK]);
	if (a[PKTDEDUP_A_CONFIG_SCOPE])
		c->scope = nla_get_u8(a[PKTDEDUP_A_CONFIG_SCOPE]);
	if (a[PKTDEDUP_A_CONFIG_HOOK])
		c->hook = nla_get_u8(a[PKTDEDUP_A_CONFIG_HOOK]);
	if (a[PKTDEDUP_A_CONFIG_PRIORITY])
		c->priority = nla_get_s32(a[PKTDEDUP_A_CONFIG_PRIORITY]);
	if (a[PKTDEDUP_A_CONFIG_DECAP])
		c->decap = (u8)nla_get_u32(a[PKTDEDUP_A_CONFIG_DECAP]);
	if (a[PKTDEDUP_A_CONFIG_VXLAN_PORT])
		c->vxlan_port = nla_get_u16(a[PKTDEDUP_A_CONFIG_VXLAN_PORT]);
	if (a[PKTDEDUP_A_CONFIG_GENEVE_PORT])
		c->geneve_port = nla_get_u16(a[PKTDEDUP_A_CONFIG_GENEVE_PORT]);
	if (a[PKTDEDUP_A_CONFIG_GTPU_PORT])
		c->gtpu_port = nla_get_u16(a[PKTDEDUP_A_CONFIG_GTPU_PORT]);
	if (a[PKTDEDUP_A_CONFIG_SHARDS])
		c->shards = nla_get_u32(a[PKTDEDUP_A_CONFIG_SHARDS]);
}

/*
 * The UDP tunnels looked into have a port each: two on one port would make
 * a packet both.
 */
static int pd_cfg_ports(const struct pd_config *c, struct nlattr **a,
			struct netlink_ext_ack *extack)
{
	/* in the order of pd_udp_tunnels */
	static const u8 attr[PD_NUDP_TUNNELS] = {
		PKTDEDUP_A_CONFIG_VXLAN_PORT, PKTDEDUP_A_CONFIG_GENEVE_PORT,
		PKTDEDUP_A_CONFIG_GTPU_PORT
	};
	const u16 port[PD_NUDP_TUNNELS] = {
		c->vxlan_port, c->geneve_port, c->gtpu_port
	};
	unsigned int i, j;

	if (!pd_decap_port_clash(c->decap, port, &i, &j))
		return 0;
	NL_SET_ERR_MSG_ATTR(extack, a[attr[j]] ?: a[attr[i]] ?:
			    a[PKTDEDUP_A_CONFIG_DECAP],
			    "decap: two UDP tunnels on one port (vxlan-port, geneve-port and gtpu-port must differ)");
	return -EINVAL;
}

/*
 * The seed: a seed makes it fixed; seed-mode random returns to random
 * seeds (and forgets the number), fixed alone keeps the seed in force.
 */
static int pd_cfg_seed(struct pd_config *c, struct nlattr **a,
		       struct netlink_ext_ack *extack)
{
	struct nlattr *mode = a[PKTDEDUP_A_CONFIG_SEED_MODE];
	struct nlattr *seed = a[PKTDEDUP_A_CONFIG_SEED];

	if (mode && nla_get_u8(mode) == PKTDEDUP_SEED_MODE_RANDOM) {
		if (seed) {
			NL_SET_ERR_MSG_ATTR(extack, seed,
					    "a fixed seed beside seed-mode random: one or the other");
			return -EINVAL;
		}
		c->seed_mode = PKTDEDUP_SEED_MODE_RANDOM;
		c->seed = 0;
		return 0;
	}
	if (seed) {
		c->seed_mode = PKTDEDUP_SEED_MODE_FIXED;
		c->seed = nla_get_u64(seed);
	} else if (mode && c->seed_mode != PKTDEDUP_SEED_MODE_FIXED) {
		NL_SET_ERR_MSG_ATTR(extack, mode,
				    "fixed, but no seed given and none in force");
		return -EINVAL;
	}
	return 0;
}

/*
 * With a sources nest, the filters' and the source windows' memory
 * together (src_need bytes for the latter) must fit the namespace's cap
 * (and, to be active, the module's) before either is changed.
 */
static int pd_check_both(struct pd_nl_req *req, const struct pd_config *cfg,
			 const struct pd_filter_plan *plan, u64 src_need,
			 bool active)
{
	u64 need;

	if (!src_need)
		return 0;
	need = pd_fset_bytes(cfg, plan) + src_need;
	/* active: the counts across namespaces too (what others hold now) */
	if (need <= req->pn->budget.cap &&
	    (!active || pd_budget_fits(req->pn, need)))
		return 0;
	req->pn->budget.refused = need;
	req->pn->budget.why = need > req->pn->budget.cap ?
			      PKTDEDUP_REFUSAL_CAP : PKTDEDUP_REFUSAL_TOTAL;
	NL_SET_ERR_MSG(req->extack,
		       "the filters and the source windows together would take this namespace over its memory cap, or the module over max_total_mem; dedupctl show gives what is held");
	return -E2BIG;
}

/*
 * config check: what applying cfg (planned as plan) would still refuse
 * after the checks above, asked without building, registering, attaching
 * or charging anything: pd_net_rebuild()'s admission of the filters (and
 * the named devices' counters), and the devices pd_hooks_register() and
 * pd_xdp_attach() would refuse when the hooks are made anew (or, for
 * "enable" with nothing else, attached again).
 */
static int pd_check_apply(struct pd_nl_req *req, const struct pd_config *cfg,
			  const struct pd_filter_plan *plan, bool again)
{
	struct pd_net *pn = req->pn;
	u32 ncpus = num_online_cpus();
	u64 need;
	int err;

	if (again) {
		mutex_lock(&pn->dev_lock);
		err = pd_xdp_check(pn, pn->hooks, req->extack);
		mutex_unlock(&pn->dev_lock);
		return err;
	}
	need = pd_fset_bytes_n(cfg, plan, ncpus);
	if (cfg->sel.ndev)
		need += pd_devc_bytes(ncpus);
	err = pd_budget_try(pn, PD_PART_FILTERS, need, req->extack);
	if (err)
		return err;
	if (pn->hooks && cfg->hook == pn->cfg.hook &&
	    cfg->priority == pn->cfg.priority &&
	    pd_select_same_devs(&cfg->sel, &pn->cfg.sel))
		return 0;	/* the hooks in force stay (pd_net_apply()) */
	return pd_hooks_check(pn, cfg, req->extack);
}

/* SET_CONFIG's config nest; src_need: see pd_check_both(). */
static int pd_set_config(struct pd_nl_req *req, u64 src_need)
{
	struct nlattr *tb[PKTDEDUP_A_CONFIG_MAX + 1], *blame;
	struct pd_net *pn = req->pn;
	struct pd_config cfg = pn->cfg;
	struct pd_filter_plan plan;
	const char *why;
	bool by_action;
	u8 state;
	int err;

	err = pd_nl_nest(req, PKTDEDUP_A_CONFIG, pd_config_nl_policy,
			 PKTDEDUP_A_CONFIG_MAX, tb);
	if (err)
		return err;
	pd_cfg_update(&cfg, tb);
	err = pd_cfg_seed(&cfg, tb, req->extack);
	if (err)
		return err;
	err = pd_cfg_ports(&cfg, tb, req->extack);
	if (err)
		return err;
	if (cfg.shards & (cfg.shards - 1)) {
		NL_SET_ERR_MSG_ATTR(req->extack, tb[PKTDEDUP_A_CONFIG_SHARDS],
				    "shards: a power of two (1, 2, 4, ... 4096), or 0 for 16 per possible CPU");
		return -EINVAL;
	}
	err = pd_nl_select_read(tb, &cfg.sel, req->extack);
	if (err)
		return err;
	if (pd_placements[cfg.hook].per_dev && !cfg.sel.ndev) {
		NL_SET_ERR_MSG_ATTR(req->extack, tb[PKTDEDUP_A_CONFIG_HOOK] ?:
				    tb[PKTDEDUP_A_CONFIG_DEVS],
				    "this hook is per device: name the devices to hook (dev)");
		return -EINVAL;
	}
	/* an automatic filter takes its action's family, then the settings */
	err = pd_nl_filter_auto(tb[PKTDEDUP_A_CONFIG_FILTER], &cfg.filter_auto,
				req->extack);
	if (err)
		return err;
	pd_config_follow_action(&cfg);
	err = pd_nl_filter_read(tb[PKTDEDUP_A_CONFIG_FILTER], &cfg.filter,
				&blame, req->extack);
	if (err)
		return err;
	/* drop with a key of flows or hosts: only if the request insists */
	why = pd_config_coarse_drop(&cfg);
	if (why && !tb[PKTDEDUP_A_CONFIG_FORCE] &&
	    (tb[PKTDEDUP_A_CONFIG_ACTION] || tb[PKTDEDUP_A_CONFIG_KEY])) {
		pd_set_err_msg(req->extack, why);
		NL_SET_BAD_ATTR(req->extack, tb[PKTDEDUP_A_CONFIG_ACTION] ?:
				tb[PKTDEDUP_A_CONFIG_KEY]);
		return -EINVAL;
	}
	why = pd_placement_refusal(&cfg, &by_action);
	if (why) {
		pd_set_err_msg(req->extack, why);
		NL_SET_BAD_ATTR(req->extack, by_action ?
				tb[PKTDEDUP_A_CONFIG_ACTION] :
				tb[PKTDEDUP_A_CONFIG_MATCH_MARK_MASK] ?:
				tb[PKTDEDUP_A_CONFIG_MATCH_MARK_VALUE]);
		if (!req->extack->bad_attr)
			NL_SET_BAD_ATTR(req->extack,
					tb[PKTDEDUP_A_CONFIG_HOOK]);
		return -EINVAL;
	}
	/* nonip dedup: at the L2 placements, with key packet */
	why = pd_config_nonip_refusal(&cfg, &by_action);
	if (why) {
		pd_set_err_msg(req->extack, why);
		NL_SET_BAD_ATTR(req->extack, tb[PKTDEDUP_A_CONFIG_KEY_FLAGS] ?:
				(by_action ? tb[PKTDEDUP_A_CONFIG_HOOK] :
				 tb[PKTDEDUP_A_CONFIG_KEY]));
		return -EINVAL;
	}
	if (cfg.mark_value & ~cfg.mark_mask) {
		NL_SET_ERR_MSG_ATTR(req->extack,
				    tb[PKTDEDUP_A_CONFIG_MARK_VALUE] ?:
				    tb[PKTDEDUP_A_CONFIG_MARK_MASK],
				    "mark: the value has bits outside the mask (the mask must cover the value)");
		return -EINVAL;
	}
	/*
	 * The filters' plan, before anything changes: a refusal points at the
	 * setting it names (one packet's step over the bound: the setting
	 * that drives it, if the request gives it), else at the filter nest
	 */
	err = pd_fset_plan(pn, &cfg, &plan, req->extack);
	if (err == -EFBIG)
		blame = pd_nl_filter_setting(tb[PKTDEDUP_A_CONFIG_FILTER],
					     cfg.filter.kind,
					     plan.step_attr) ?: blame;
	if (err) {
		if (err != -ENOMEM)
			NL_SET_BAD_ATTR(req->extack, blame ?:
					tb[PKTDEDUP_A_CONFIG_SCOPE]);
		return err;
	}
	state = tb[PKTDEDUP_A_CONFIG_STATE] ?
		nla_get_u8(tb[PKTDEDUP_A_CONFIG_STATE]) : PKTDEDUP_STATE_ACTIVE;
	err = pd_check_both(req, &cfg, &plan, src_need,
			    state == PKTDEDUP_STATE_ACTIVE);
	if (err)
		return err;
	if (state == PKTDEDUP_STATE_IDLE) {
		/* the settings are checked and kept; everything is freed */
		err = pd_budget_check_alone(pn, PD_PART_FILTERS,
					    pd_fset_bytes(&cfg, &plan),
					    req->extack);
		if (err || req->check)
			return err;
		pd_net_disable(pn);
		pn->cfg = cfg;
		return 0;
	}
	/*
	 * "enable" on an active instance with nothing else: nothing to do
	 * but attach the XDP program to named devices that wait for it
	 */
	if (req->check)
		err = pd_check_apply(req, &cfg, &plan, pn->active &&
				     tb[PKTDEDUP_A_CONFIG_STATE] &&
				     !memcmp(&cfg, &pn->cfg, sizeof(cfg)));
	else if (pn->active && tb[PKTDEDUP_A_CONFIG_STATE] &&
		 !memcmp(&cfg, &pn->cfg, sizeof(cfg)))
		err = pd_xdp_attach(pn, pn->hooks, false, req->extack);
	else
		err = pd_net_enable(pn, &cfg, req->extack);
	/* the extack message is set; point at the device, or the culprit */
	if (err && pn->blame >= 0)
		NL_SET_BAD_ATTR(req->extack,
				pd_nl_select_dev(tb, (unsigned int)pn->blame));
	if (err && err != -ENOMEM && err != -E2BIG && !req->extack->bad_attr &&
	    pn->blame < 0)
		NL_SET_BAD_ATTR(req->extack, blame ?: tb[PKTDEDUP_A_CONFIG_SCOPE]);
	return err;
}

/*
 * SET_CONFIG: the config nest and, if the request has one, the sources
 * nest, both or neither. Both are read and checked, and their memory
 * together against the cap, before anything changes; then the
 * configuration is applied, then the source windows. These can still
 * fail (no memory, or the module's cap across namespaces taken by
 * another namespace in between): then the configuration before the
 * request is applied again (its filters rebuilt, empty).
 */
static int pd_set_both(struct pd_nl_req *req)
{
	struct pd_net *pn = req->pn;
	struct pd_src_cfg src = pn->src.cfg;
	struct pd_config old = pn->cfg;
	bool was_active = pn->active;
	struct pd_filter_plan splan;
	int err;

	if (!req->info->attrs[PKTDEDUP_A_SOURCES])
		return pd_set_config(req, 0);
	err = pd_nl_sources_read(req, &src);
	if (!err)
		err = pd_srcs_check(&src, &splan, req->extack);
	if (!err)
		err = pd_budget_check_alone(pn, PD_PART_SOURCES,
					    pd_srcs_bytes(&src, &splan),
					    req->extack);
	if (err) {
		/* which nest of the two the refusal is about */
		if (!req->extack->bad_attr)
			NL_SET_BAD_ATTR(req->extack,
					req->info->attrs[PKTDEDUP_A_SOURCES]);
		return err;
	}
	/* a sum of 0 checks nothing: sources off need no room */
	err = pd_set_config(req, pd_srcs_bytes(&src, &splan));
	if (err || req->check)
		return err;
	err = pd_srcs_apply(pn, &src, req->extack);
	if (!err)
		return 0;
	/* back to the configuration before the request */
	if (!was_active) {
		pd_net_disable(pn);
		pn->cfg = old;	/* disable keeps the settings */
	} else if (pd_net_apply(pn, &old, NULL)) {
		pr_warn_ratelimited("netns %u: the configuration before a refused request could not be rebuilt: the new one stays\n",
				    pn->net->ns.inum);
	}
	return err;
}

/* Whether a SET_CONFIG's config nest asks for a check alone. */
static bool pd_nl_config_check(const struct nlattr *config)
{
	return config && nla_find_nested(config, PKTDEDUP_A_CONFIG_CHECK);
}

/*
 * SET_CONFIG; an XDP program the request brings is held while it is
 * applied (the XDP hooks attach it) and kept if the configuration in
 * force is then at an XDP hook. With config check, everything is checked
 * and nothing changed: the budget's last refusal is put back too (a
 * refused check is not a refused change).
 */
static int pd_act_set_config(struct pd_nl_req *req)
{
	struct pd_budget *b = &req->pn->budget;
	u64 refused = b->refused;
	u8 why = b->why;
	int err;

	req->pn->blame = -1;
	req->check = pd_nl_config_check(req->info->attrs[PKTDEDUP_A_CONFIG]);
	err = pd_xdp_prog_take(req->pn, req->info->attrs[PKTDEDUP_A_XDP_PROG],
			       req->extack);
	if (err)
		return err;
	err = pd_set_both(req);
	/* a check keeps nothing: not the program, not its refusal */
	pd_xdp_prog_settle(req->pn, !err && !req->check);
	if (req->check) {
		b->refused = refused;
		b->why = why;
	}
	return err;
}

/*
 * The settings in force. The fixed seed's value goes only to a caller who
 * may set it (admin): with it anyone can predict the filter (which cells a
 * packet sets, which packets collide), and GET_CONFIG is open to all.
 */
static int pd_fill_settings(struct sk_buff *msg, struct pd_net *pn,
			    const struct pd_config *c, bool active, bool admin)
{
	struct nlattr *cfg;

	cfg = nla_nest_start(msg, PKTDEDUP_A_CONFIG);
	if (!cfg ||
	    nla_put_u8(msg, PKTDEDUP_A_CONFIG_STATE, active ?
		       PKTDEDUP_STATE_ACTIVE : PKTDEDUP_STATE_IDLE) ||
	    nla_put_u8(msg, PKTDEDUP_A_CONFIG_KEY, c->key) ||
	    nla_put_u32(msg, PKTDEDUP_A_CONFIG_KEY_FLAGS, c->key_flags) ||
	    nla_put_u16(msg, PKTDEDUP_A_CONFIG_PAYLOAD, c->payload) ||
	    nla_put_u8(msg, PKTDEDUP_A_CONFIG_ACTION, c->action) ||
	    nla_put_u32(msg, PKTDEDUP_A_CONFIG_MARK_VALUE, c->mark_value) ||
	    nla_put_u32(msg, PKTDEDUP_A_CONFIG_MARK_MASK, c->mark_mask) ||
	    nla_put_u8(msg, PKTDEDUP_A_CONFIG_SCOPE, c->scope) ||
	    nla_put_u8(msg, PKTDEDUP_A_CONFIG_HOOK, c->hook) ||
	    nla_put_s32(msg, PKTDEDUP_A_CONFIG_PRIORITY, c->priority) ||
	    nla_put_u32(msg, PKTDEDUP_A_CONFIG_DECAP, c->decap) ||
	    nla_put_u16(msg, PKTDEDUP_A_CONFIG_VXLAN_PORT, c->vxlan_port) ||
	    nla_put_u16(msg, PKTDEDUP_A_CONFIG_GENEVE_PORT, c->geneve_port) ||
	    nla_put_u16(msg, PKTDEDUP_A_CONFIG_GTPU_PORT, c->gtpu_port) ||
	    nla_put_u32(msg, PKTDEDUP_A_CONFIG_SHARDS, c->shards) ||
	    nla_put_u8(msg, PKTDEDUP_A_CONFIG_SEED_MODE, c->seed_mode) ||
	    (admin && c->seed_mode == PKTDEDUP_SEED_MODE_FIXED &&
	     pd_nl_put_u64(msg, PKTDEDUP_A_CONFIG_SEED, c->seed,
			   PKTDEDUP_A_CONFIG_PAD)) ||
	    pd_nl_select_put(msg, pn, &c->sel) ||
	    pd_nl_filter_put(msg, &c->filter, c->filter_auto))
		return -EMSGSIZE;
	nla_nest_end(msg, cfg);
	return 0;
}

/*
 * What is not running for want of memory: the source windows (on, in an
 * active namespace, none built) and the online CPUs without a filter or
 * source windows, with what refused them. pn->lock held.
 */
static int pd_fill_refusals(struct sk_buff *msg, struct pd_net *pn,
			    const struct pd_budget *b)
{
	struct pd_filter_set *fs;
	u8 why = 0;
	u64 need = pd_srcs_refused(pn, &why);

	fs = rcu_dereference_protected(pn->filters, lockdep_is_held(&pn->lock));
	if (need &&
	    (nla_put_u8(msg, PKTDEDUP_A_BUDGET_SOURCES_REFUSAL, why) ||
	     pd_nl_put_u64(msg, PKTDEDUP_A_BUDGET_SOURCES_NEED, need,
			   PKTDEDUP_A_BUDGET_PAD)))
		return -EMSGSIZE;
	if (nla_put_u32(msg, PKTDEDUP_A_BUDGET_CPUS_ONLINE,
			num_online_cpus()) ||
	    nla_put_u32(msg, PKTDEDUP_A_BUDGET_CPUS_NO_FILTER,
			pd_fset_cpus_without(fs)) ||
	    nla_put_u32(msg, PKTDEDUP_A_BUDGET_CPUS_NO_SOURCES,
			pd_srcs_cpus_without(pn)))
		return -EMSGSIZE;
	if (b->cpu_refused &&
	    (nla_put_u8(msg, PKTDEDUP_A_BUDGET_CPU_REFUSAL, b->cpu_why) ||
	     pd_nl_put_u64(msg, PKTDEDUP_A_BUDGET_CPU_NEED, b->cpu_need,
			   PKTDEDUP_A_BUDGET_PAD)))
		return -EMSGSIZE;
	return 0;
}

static int pd_fill_budget(struct sk_buff *msg, struct pd_net *pn)
{
	struct nlattr *nest = nla_nest_start(msg, PKTDEDUP_A_BUDGET);
	u64 user_held, userns_held;
	struct pd_budget copy, *b = &copy;

	pd_budget_copy(&pn->budget, &copy);
	pd_budget_report(&pn->budget, &user_held, &userns_held);

	if (!nest ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_BUDGET_CAP, b->cap,
			  PKTDEDUP_A_BUDGET_PAD) ||
	    nla_put_u8(msg, PKTDEDUP_A_BUDGET_CAP_SOURCE, b->cap_source) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_BUDGET_FILTERS,
			  b->held[PD_PART_FILTERS], PKTDEDUP_A_BUDGET_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_BUDGET_SOURCES,
			  b->held[PD_PART_SOURCES], PKTDEDUP_A_BUDGET_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_BUDGET_PEAK, b->peak,
			  PKTDEDUP_A_BUDGET_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_BUDGET_REFUSED, b->refused,
			  PKTDEDUP_A_BUDGET_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_BUDGET_TOTAL_CAP, pd_max_total_mem,
			  PKTDEDUP_A_BUDGET_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_BUDGET_TOTAL_HELD,
			  pd_budget_total_held(), PKTDEDUP_A_BUDGET_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_BUDGET_USERNS_CAP,
			  pd_max_total_mem - pd_init_reserve_mem,
			  PKTDEDUP_A_BUDGET_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_BUDGET_USERNS_HELD, userns_held,
			  PKTDEDUP_A_BUDGET_PAD) ||
	    (b->userns &&
	     (pd_nl_put_u64(msg, PKTDEDUP_A_BUDGET_USER_CAP, pd_max_user_mem,
			    PKTDEDUP_A_BUDGET_PAD) ||
	      pd_nl_put_u64(msg, PKTDEDUP_A_BUDGET_USER_HELD, user_held,
			    PKTDEDUP_A_BUDGET_PAD))) ||
	    pd_fill_refusals(msg, pn, b))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int pd_fill_config(struct sk_buff *msg, struct pd_nl_req *req)
{
	struct pd_net *pn = req->pn;
	struct pd_filter_set *fs;
	struct nlattr *plan;

	fs = rcu_dereference_protected(pn->filters, lockdep_is_held(&pn->lock));
	if (pd_fill_settings(msg, pn, &pn->cfg, pn->active, req->admin))
		return -EMSGSIZE;
	if (fs) {	/* absent while idle */
		plan = nla_nest_start(msg, PKTDEDUP_A_PLAN);
		if (!plan ||
		    nla_put_u32(msg, PKTDEDUP_A_PLAN_FILTERS,
				pd_fset_count(fs)) ||
		    pd_nl_put_u64(msg, PKTDEDUP_A_PLAN_MEM_TOTAL,
				  pd_fset_count(fs) * fs->plan.bytes,
				  PKTDEDUP_A_PLAN_PAD) ||
		    pd_nl_put_plan(msg, PKTDEDUP_A_PLAN_FILTER, &fs->plan) ||
		    nla_put_u32(msg, PKTDEDUP_A_PLAN_SHARDS, fs->plan.shards) ||
		    (fs->plan.lockfree &&
		     nla_put_flag(msg, PKTDEDUP_A_PLAN_LOCK_FREE)))
			return -EMSGSIZE;
		nla_nest_end(msg, plan);
	}
	return pd_fill_budget(msg, pn);
}

static const struct pd_nl_cmd pd_cmd_get_config = {
	.reply_cmd = PKTDEDUP_CMD_GET_CONFIG,
	.fill = pd_fill_config,
};

static const struct pd_nl_cmd pd_cmd_set_config = {
	.reply_cmd = PKTDEDUP_CMD_SET_CONFIG,
	.act = pd_act_set_config,
	.fill = pd_fill_config,
};

int pd_nl_get_config_doit(struct sk_buff *skb, struct genl_info *info)
{
	return pd_nl_do(&pd_cmd_get_config, skb, info);
}

int pd_nl_set_config_doit(struct sk_buff *skb, struct genl_info *info)
{
	return pd_nl_do(&pd_cmd_set_config, skb, info);
}

static int pd_act_reset(struct pd_nl_req *req)
{
	return pd_net_reset(req->pn, req->extack);
}

static const struct pd_nl_cmd pd_cmd_reset = {
	.act = pd_act_reset,
};

int pd_nl_reset_doit(struct sk_buff *skb, struct genl_info *info)
{
	return pd_nl_do(&pd_cmd_reset, skb, info);
}

