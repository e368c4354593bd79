// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: the "pktdedup" generic netlink family (protocol: uapi/pktdedup.h,
 * generated with the policies and the operation table in nl_gen.[ch] from
 * Documentation/netlink/specs/pktdedup.yaml).
 *
 * Every command goes through pd_nl_do(): the request's header flags, then
 * under the namespace's lock the command's act() (a change: all or
 * nothing), prepare() (what the reply needs) and fill(). A change's reply
 * is allocated before the change is made, so a reply that cannot be sent
 * never follows a change that was. This file holds the configuration,
 * statistics and query commands; sources/src_netlink.c those about
 * sources and sources/src_events.c the notifications.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "core/fixed.h"
#include "nl_gen.h"
#include "pktdedup.h"

/* ---- the request/reply path every command shares ---- */

/* Parse a nest (validated by its policy already); tb is zeroed if absent. */
static int pd_nl_parse(const struct nlattr *nest, const struct nla_policy *pol,
		       unsigned int max, struct nlattr **tb,
		       struct netlink_ext_ack *extack)
{
	if (!nest) {
		memset(tb, 0, (max + 1) * sizeof(*tb));
		return 0;
	}
	return nla_parse_nested(tb, max, nest, pol, extack);
}

/* The top-level nest `type` of the request, parsed into tb. */
int pd_nl_nest(struct pd_nl_req *req, int type, const struct nla_policy *pol,
	       unsigned int max, struct nlattr **tb)
{
	return pd_nl_parse(req->info->attrs[type], pol, max, tb, req->extack);
}

int pd_nl_put_u64(struct sk_buff *msg, int type, u64 v, int pad)
{
	return nla_put_u64_64bit(msg, type, v, pad);
}

int pd_nl_do(const struct pd_nl_cmd *cmd, struct sk_buff *skb,
	     struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct pd_nl_req req = {
		.pn = pd_pernet(net),
		.info = info,
		.extack = info->extack,
		/* genetlink's own test for GENL_UNS_ADMIN_PERM */
		.admin = netlink_ns_capable(skb, net->user_ns, CAP_NET_ADMIN),
	};
	struct nlattr *tb[PKTDEDUP_A_HEADER_MAX + 1];
	struct sk_buff *msg = NULL;
	void *hdr = NULL;
	bool reply;
	int err;

	err = pd_nl_nest(&req, PKTDEDUP_A_HEADER, pd_header_nl_policy,
			 PKTDEDUP_A_HEADER_MAX, tb);
	if (err)
		return err;
	reply = cmd->fill && !(tb[PKTDEDUP_A_HEADER_FLAGS] &&
			       (nla_get_u32(tb[PKTDEDUP_A_HEADER_FLAGS]) &
				PKTDEDUP_HEADER_F_OMIT_REPLY));
	if (cmd->data_size) {
		req.data = kzalloc(cmd->data_size, GFP_KERNEL);
		if (!req.data)
			return -ENOMEM;
	}
	/* a change's reply exists before the change is made */
	if (reply && cmd->act) {
		msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
		if (!msg) {
			kfree(req.data);
			return -ENOMEM;
		}
	}
	if (!cmd->unlocked)
		mutex_lock(&req.pn->lock);
	if (cmd->act) {
		err = cmd->act(&req);
		if (err)
			goto out;
	}
	if (!reply)
		goto out;
	if (cmd->prepare) {
		err = cmd->prepare(&req);
		if (err)
			goto out;
	}
	if (!msg) {
		msg = genlmsg_new(cmd->reply_size ? cmd->reply_size(&req) :
				  NLMSG_GOODSIZE, GFP_KERNEL);
		if (!msg) {
			err = -ENOMEM;
			goto out;
		}
	}
	hdr = genlmsg_put_reply(msg, info, &pd_genl_family, 0, cmd->reply_cmd);
	err = hdr ? cmd->fill(msg, &req) : -EMSGSIZE;
out:
	if (cmd->cleanup)
		cmd->cleanup(&req);
	if (!cmd->unlocked)
		mutex_unlock(&req.pn->lock);
	kfree(req.data);
	if (err || !reply) {
		nlmsg_free(msg);
		return err;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

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
			 u64 src_need, bool active)
{
	struct pd_filter_plan plan;
	u64 need;
	int err;

	if (!src_need)
		return 0;
	err = pd_filters_plan(cfg, &plan, req->extack);
	if (err)
		return err;
	need = pd_filters_bytes(cfg, &plan) + src_need;
	/* active: the counts across namespaces too (what others hold now) */
	if (need <= req->pn->budget.cap &&
	    (!active || pd_budget_fits(req->pn, need)))
		return 0;
	req->pn->budget.refused = need;
	NL_SET_ERR_MSG(req->extack,
		       "the filters and the source windows together would take this namespace over its memory cap, or the module over max_total_mem; dedupctl show gives what is held");
	return -E2BIG;
}

/* SET_CONFIG's config nest; src_need: see pd_check_both(). */
static int pd_set_config(struct pd_nl_req *req, u64 src_need)
{
	struct nlattr *tb[PKTDEDUP_A_CONFIG_MAX + 1], *blame;
	struct pd_net *pn = req->pn;
	struct pd_config cfg = pn->cfg;
	struct pd_filter_plan plan;
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
	err = pd_nl_select_read(pn->net, tb, &cfg.sel, req->extack);
	if (err)
		return err;
	if (pd_placements[cfg.hook].per_dev && !cfg.sel.ndev) {
		NL_SET_ERR_MSG_ATTR(req->extack, tb[PKTDEDUP_A_CONFIG_HOOK] ?:
				    tb[PKTDEDUP_A_CONFIG_DEVS],
				    "this hook is per device: name the devices to hook (dev)");
		return -EINVAL;
	}
	err = pd_nl_filter_read(tb[PKTDEDUP_A_CONFIG_FILTER], &cfg.filter,
				&blame, req->extack);
	if (err)
		return err;
	if (cfg.mark_value & ~cfg.mark_mask) {
		NL_SET_ERR_MSG_ATTR(req->extack,
				    tb[PKTDEDUP_A_CONFIG_MARK_VALUE] ?:
				    tb[PKTDEDUP_A_CONFIG_MARK_MASK],
				    "mark: the value has bits outside the mask (the mask must cover the value)");
		return -EINVAL;
	}
	state = tb[PKTDEDUP_A_CONFIG_STATE] ?
		nla_get_u8(tb[PKTDEDUP_A_CONFIG_STATE]) : PKTDEDUP_STATE_ACTIVE;
	err = pd_check_both(req, &cfg, src_need,
			    state == PKTDEDUP_STATE_ACTIVE);
	if (err)
		return err;
	if (state == PKTDEDUP_STATE_IDLE) {
		/* the settings are checked and kept; everything is freed */
		err = pd_filters_plan(&cfg, &plan, req->extack);
		if (err) {
			NL_SET_BAD_ATTR(req->extack, blame ?:
					tb[PKTDEDUP_A_CONFIG_SCOPE]);
			return err;
		}
		err = pd_budget_check_alone(pn, PD_PART_FILTERS,
					    pd_filters_bytes(&cfg, &plan),
					    req->extack);
		if (err)
			return err;
		pd_net_disable(pn);
		pn->cfg = cfg;
		return 0;
	}
	/* "enable" on an active instance with nothing else: nothing to do */
	if (pn->active && tb[PKTDEDUP_A_CONFIG_STATE] &&
	    !memcmp(&cfg, &pn->cfg, sizeof(cfg)))
		return 0;
	err = pd_net_enable(pn, &cfg, req->extack);
	/* the extack message is set; point at the likely culprit */
	if (err && err != -ENOMEM && err != -E2BIG && !req->extack->bad_attr)
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
static int pd_act_set_config(struct pd_nl_req *req)
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
	if (err)
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
	    nla_put_u8(msg, PKTDEDUP_A_CONFIG_SEED_MODE, c->seed_mode) ||
	    (admin && c->seed_mode == PKTDEDUP_SEED_MODE_FIXED &&
	     pd_nl_put_u64(msg, PKTDEDUP_A_CONFIG_SEED, c->seed,
			   PKTDEDUP_A_CONFIG_PAD)) ||
	    pd_nl_select_put(msg, pn, &c->sel) ||
	    pd_nl_filter_put(msg, &c->filter))
		return -EMSGSIZE;
	nla_nest_end(msg, cfg);
	return 0;
}

static int pd_fill_budget(struct sk_buff *msg, const struct pd_budget *b)
{
	struct nlattr *nest = nla_nest_start(msg, PKTDEDUP_A_BUDGET);
	u64 user_held, userns_held;

	pd_budget_report(b, &user_held, &userns_held);

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
			    PKTDEDUP_A_BUDGET_PAD))))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int pd_fill_config(struct sk_buff *msg, struct pd_nl_req *req)
{
	struct pd_net *pn = req->pn;
	struct pd_filters *fs;
	struct nlattr *plan;

	fs = rcu_dereference_protected(pn->filters, lockdep_is_held(&pn->lock));
	if (pd_fill_settings(msg, pn, &pn->cfg, pn->active, req->admin))
		return -EMSGSIZE;
	if (fs) {	/* absent while idle */
		plan = nla_nest_start(msg, PKTDEDUP_A_PLAN);
		if (!plan ||
		    nla_put_u32(msg, PKTDEDUP_A_PLAN_FILTERS,
				pd_filters_count(fs)) ||
		    pd_nl_put_u64(msg, PKTDEDUP_A_PLAN_MEM_TOTAL,
				  pd_filters_count(fs) * fs->plan.bytes,
				  PKTDEDUP_A_PLAN_PAD) ||
		    pd_nl_put_plan(msg, PKTDEDUP_A_PLAN_FILTER, &fs->plan))
			return -EMSGSIZE;
		nla_nest_end(msg, plan);
	}
	return pd_fill_budget(msg, &pn->budget);
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

/* ---- statistics ---- */

/* A window family's state: of one CPU, or of all (cpu < 0). */
static int pd_window_stats_put(struct sk_buff *msg, struct pd_filters *fs,
			       int cpu)
{
	struct pd_filter_win w;

	if (!pd_filters_window_of(fs, cpu, &w))
		return 0;
	if (pd_nl_put_u64(msg, w.timed ? PKTDEDUP_A_STATS_WINDOW_NS :
			  PKTDEDUP_A_STATS_WINDOW_PACKETS, w.window,
			  PKTDEDUP_A_STATS_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_STATS_WINDOW_ENTRIES, w.entries,
			  PKTDEDUP_A_STATS_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_STATS_WINDOW_EFFECTIVE, w.effective,
			  PKTDEDUP_A_STATS_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_STATS_WINDOW_SHORTEST, w.shortest,
			  PKTDEDUP_A_STATS_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_STATS_EARLY_EXPIRIES, w.early,
			  PKTDEDUP_A_STATS_PAD))
		return -EMSGSIZE;
	return 0;
}

/*
 * Counters of one CPU, or the totals (cpu < 0), and the occupancy of the
 * filters in their family's terms (one CPU's message also gives the loads
 * of a bit-array filter): a read of stats.c's.
 */
static int pd_fill_stats_of(struct sk_buff *msg, struct pd_stats_view *v,
			    int cpu)
{
	const struct pd_filter_occ *occ = NULL;
	struct pd_filters *fs = v->fs;
	struct pd_filter_occ buf;
	struct pd_counts c = {};
	struct pd_stats_row r;
	struct nlattr *nest;
	u64 ppb = 0;
	int i, n = 0;
	u32 a;

	for_each_possible_cpu(i) {
		if (cpu >= 0 && i != cpu)
			continue;
		pd_stats_cpu(v, i, &r, &buf);
		pd_counts_add(&c, &r.c);
		if (r.occ && (!fs->shared || !n)) {
			occ = r.occ;
			ppb += r.ppb;
			n++;
		}
	}
	nest = nla_nest_start(msg, PKTDEDUP_A_STATS);
	if (!nest ||
	    (cpu >= 0 && nla_put_u32(msg, PKTDEDUP_A_STATS_CPU, cpu)) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_STATS_PACKETS, c.packets,
			  PKTDEDUP_A_STATS_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_STATS_DUPLICATES, c.duplicates,
			  PKTDEDUP_A_STATS_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_STATS_MARKED, c.marked,
			  PKTDEDUP_A_STATS_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_STATS_DROPPED, c.dropped,
			  PKTDEDUP_A_STATS_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_STATS_UNPARSED, c.unparsed,
			  PKTDEDUP_A_STATS_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_STATS_NONIP, c.nonip,
			  PKTDEDUP_A_STATS_PAD) ||
	    (n && nla_put_u32(msg, v->counting ? PKTDEDUP_A_STATS_ZERO_CELLS :
			      PKTDEDUP_A_STATS_SET_BITS,
			      (u32)div_u64(ppb, n))))
		return -EMSGSIZE;
	if (fs && pd_window_stats_put(msg, fs, cpu))
		return -EMSGSIZE;
	/* one filter's loads: a CPU's, or the shared one */
	if (occ && !v->counting && (cpu >= 0 || fs->shared))
		for (a = 0; a < occ->arrays; a++)
			if (pd_nl_put_u64(msg, PKTDEDUP_A_STATS_LOAD,
					  occ->load[a], PKTDEDUP_A_STATS_PAD))
				return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int pd_fill_stats(struct sk_buff *msg, struct pd_nl_req *req)
{
	struct pd_stats_view v;
	int err;

	pd_stats_begin(req->pn, &v);
	err = pd_fill_stats_of(msg, &v, -1);
	pd_stats_end(&v);
	return err;
}

static const struct pd_nl_cmd pd_cmd_get_stats = {
	.reply_cmd = PKTDEDUP_CMD_GET_STATS,
	.unlocked = true,
	.fill = pd_fill_stats,
};

int pd_nl_get_stats_doit(struct sk_buff *skb, struct genl_info *info)
{
	return pd_nl_do(&pd_cmd_get_stats, skb, info);
}

/*
 * One message per possible CPU; cb->args[0] is the next CPU to send. Each
 * part of the dump is a read of its own (stats.c): a shared filter is read
 * once per part, a CPU's filter once per message.
 */
int pd_nl_get_stats_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct pd_net *pn = pd_pernet(sock_net(skb->sk));
	struct pd_stats_view v;
	int cpu, err = 0;

	pd_stats_begin(pn, &v);
	for_each_possible_cpu(cpu) {
		void *hdr;

		if (cpu < cb->args[0])
			continue;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &pd_genl_family,
				  NLM_F_MULTI, PKTDEDUP_CMD_GET_STATS);
		if (!hdr) {
			err = -EMSGSIZE;
			break;
		}
		err = pd_fill_stats_of(skb, &v, cpu);
		if (err) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0] = cpu + 1;
	}
	pd_stats_end(&v);
	/* a full message ends this part of the dump; the next goes on */
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ? err : skb->len;
}

/* ---- query ---- */

/* An address of a query: 4 or 16 bytes, the length of *alen if set. */
static const u8 *pd_query_addr(struct pd_nl_req *req, struct nlattr *a,
			       u8 *alen)
{
	u8 len = nla_len(a);

	if (len != 4 && len != 16) {
		NL_SET_ERR_MSG_ATTR(req->extack, a,
				    "an address is 4 (IPv4) or 16 (IPv6) bytes");
		return NULL;
	}
	if (*alen && *alen != len) {
		NL_SET_ERR_MSG_ATTR(req->extack, a,
				    "src and dst are not of one family");
		return NULL;
	}
	*alen = len;
	return nla_data(a);
}

/* The key a QUERY request describes, for the configured key mode. */
static int pd_query_key(struct pd_nl_req *req, const struct pd_filters *fs,
			struct pd_key *key)
{
	struct nlattr *tb[PKTDEDUP_A_QUERY_MAX + 1], *q;
	u8 mode = fs->cfg.key, alen = 0;
	const u8 *src = NULL, *dst = NULL;
	u16 sport = 0, dport = 0;
	int err;

	err = pd_nl_nest(req, PKTDEDUP_A_QUERY, pd_query_nl_policy,
			 PKTDEDUP_A_QUERY_MAX, tb);
	if (err)
		return err;
	q = req->info->attrs[PKTDEDUP_A_QUERY];
	if (!q) {
		NL_SET_ERR_MSG(req->extack, "query: no key given");
		return -EINVAL;
	}
	if (mode == PKTDEDUP_KEY_PACKET) {
		if (NL_REQ_ATTR_CHECK(req->extack, q, tb,
				      PKTDEDUP_A_QUERY_PACKET))
			return -EINVAL;
		if (pd_key_extract(nla_data(tb[PKTDEDUP_A_QUERY_PACKET]),
				   nla_len(tb[PKTDEDUP_A_QUERY_PACKET]),
				   &fs->kopts, key) != PD_PARSE_OK) {
			NL_SET_ERR_MSG_ATTR(req->extack,
					    tb[PKTDEDUP_A_QUERY_PACKET],
					    "query packet: cannot be parsed as an IPv4 or IPv6 packet");
			return -EINVAL;
		}
		return 0;
	}
	if (tb[PKTDEDUP_A_QUERY_PACKET]) {
		NL_SET_ERR_MSG_ATTR(req->extack, tb[PKTDEDUP_A_QUERY_PACKET],
				    "query packet: the filters are not keyed by packet");
		return -EINVAL;
	}
	if (mode != PKTDEDUP_KEY_DST) {
		if (NL_REQ_ATTR_CHECK(req->extack, q, tb, PKTDEDUP_A_QUERY_SRC))
			return -EINVAL;
		src = pd_query_addr(req, tb[PKTDEDUP_A_QUERY_SRC], &alen);
		if (!src)
			return -EINVAL;
	}
	if (mode != PKTDEDUP_KEY_SRC) {
		if (NL_REQ_ATTR_CHECK(req->extack, q, tb, PKTDEDUP_A_QUERY_DST))
			return -EINVAL;
		dst = pd_query_addr(req, tb[PKTDEDUP_A_QUERY_DST], &alen);
		if (!dst)
			return -EINVAL;
	}
	if (mode == PKTDEDUP_KEY_FLOW) {
		if (NL_REQ_ATTR_CHECK(req->extack, q, tb,
				      PKTDEDUP_A_QUERY_PROTO))
			return -EINVAL;
		if (tb[PKTDEDUP_A_QUERY_SPORT])
			sport = nla_get_u16(tb[PKTDEDUP_A_QUERY_SPORT]);
		if (tb[PKTDEDUP_A_QUERY_DPORT])
			dport = nla_get_u16(tb[PKTDEDUP_A_QUERY_DPORT]);
	}
	return pd_key_build(key, mode,
			    alen == 4 ? PD_FAMILY_IPV4 : PD_FAMILY_IPV6, src, dst,
			    tb[PKTDEDUP_A_QUERY_PROTO] ?
			    nla_get_u8(tb[PKTDEDUP_A_QUERY_PROTO]) : 0,
			    sport, dport) ? -EINVAL : 0;
}

static int pd_prepare_query(struct pd_nl_req *req)
{
	struct pd_net *pn = req->pn;
	struct pd_filters *fs;
	struct pd_key key;
	int err;

	fs = rcu_dereference_protected(pn->filters, lockdep_is_held(&pn->lock));
	if (!fs) {
		NL_SET_ERR_MSG(req->extack,
			       "no filters: the instance is idle in this namespace (dedupctl enable starts it)");
		return -ENODATA;
	}
	err = pd_query_key(req, fs, &key);
	if (!err)
		req->n = pd_filters_query(fs, &key);
	return err;
}

static int pd_fill_query(struct sk_buff *msg, struct pd_nl_req *req)
{
	struct nlattr *nest = nla_nest_start(msg, PKTDEDUP_A_PRESENCE);

	if (!nest ||
	    nla_put_u8(msg, PKTDEDUP_A_PRESENCE_PRESENT, req->n > 0) ||
	    nla_put_u32(msg, PKTDEDUP_A_PRESENCE_FILTERS, req->n))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static const struct pd_nl_cmd pd_cmd_query = {
	.reply_cmd = PKTDEDUP_CMD_QUERY,
	.prepare = pd_prepare_query,
	.fill = pd_fill_query,
};

int pd_nl_query_doit(struct sk_buff *skb, struct genl_info *info)
{
	return pd_nl_do(&pd_cmd_query, skb, info);
}

/* ---- the family ---- */

/* Version 1's flat layout is gone: say so rather than misread a request. */
static int pd_nl_version(const struct genlmsghdr *g,
			 struct netlink_ext_ack *extack)
{
	if (g->version == PKTDEDUP_GENL_VERSION)
		return 0;
	if (g->version == 1)
		NL_SET_ERR_MSG(extack,
			       "pktdedup protocol version 1 is gone: this module speaks version 2 (update dedupctl)");
	else
		NL_SET_ERR_MSG(extack,
			       "this pktdedup module speaks protocol version 2 only");
	return -EPROTO;
}

static int pd_nl_pre_doit(const struct genl_ops *ops, struct sk_buff *skb,
			  struct genl_info *info)
{
	return pd_nl_version(info->genlhdr, info->extack);
}

/* cb->extack is NULL here in 6.1: the refusal goes without a message */
int pd_nl_dump_start(struct netlink_callback *cb)
{
	return pd_nl_version(nlmsg_data(cb->nlh), cb->extack);
}

struct genl_family pd_genl_family __ro_after_init = {
	.name = PKTDEDUP_GENL_NAME,
	.version = PKTDEDUP_GENL_VERSION,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.pre_doit = pd_nl_pre_doit,
	.ops = pd_nl_ops,
	.n_ops = ARRAY_SIZE(pd_nl_ops),
	.resv_start_op = 0,	/* strict validation for every command */
	.mcgrps = pd_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(pd_nl_mcgrps),
};

int pd_netlink_init(void)
{
	return genl_register_family(&pd_genl_family);
}

void pd_netlink_exit(void)
{
	genl_unregister_family(&pd_genl_family);
}
