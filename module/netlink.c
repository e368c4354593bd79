// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: the "pktdedup" generic netlink family (protocol described in
 * uapi/pktdedup.h). Strict per-command policies; requests without
 * attributes get the core's reject-all policy (resv_start_op).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "core/fixed.h"
#include "pktdedup.h"
#include "uapi/pktdedup.h"

static struct genl_family pd_genl_family;

/* the policy macros want non-const pointers; these are only read */
static struct netlink_range_validation pd_mem_range __ro_after_init = {
	.min = 8, .max = 4ULL << 30,	/* 64 cells .. 2^32 8-bit cells */
};

static struct netlink_range_validation pd_fps_range __ro_after_init = {
	.min = 1, .max = 999999999,
};

static struct netlink_range_validation pd_gap_range __ro_after_init = {
	.min = 0, .max = 1ULL << 48,
};

/* INT_MIN and INT_MAX mean "first" and "last" to netfilter: keep them. */
static struct netlink_range_validation_signed pd_prio_range __ro_after_init = {
	.min = S32_MIN + 1, .max = S32_MAX - 1,
};

static int pd_validate_max(const struct nlattr *attr,
			   struct netlink_ext_ack *extack)
{
	u32 max = nla_get_u32(attr);

	if (max == PKTDEDUP_AUTO || pd_sbf_bits_for_max(max))
		return 0;
	NL_SET_ERR_MSG_ATTR(extack, attr,
			    "max: not 0 (auto) or 2^j - 1 (1, 3, 7, 15, ... 255)");
	return -EINVAL;
}

static const struct nla_policy pd_set_policy[PKTDEDUP_A_PRIORITY + 1] = {
	[PKTDEDUP_A_KEY] = NLA_POLICY_MAX(NLA_U8, PKTDEDUP_KEY_MAX),
	[PKTDEDUP_A_KEY_FLAGS] = NLA_POLICY_MASK(NLA_U32, PKTDEDUP_KEY_F_ALL),
	[PKTDEDUP_A_PAYLOAD] = NLA_POLICY_MAX(NLA_U16, PD_KEY_MAX_PAYLOAD),
	[PKTDEDUP_A_ACTION] = NLA_POLICY_MAX(NLA_U8, PKTDEDUP_ACTION_MAX),
	[PKTDEDUP_A_MARK_VALUE] = { .type = NLA_U32 },
	[PKTDEDUP_A_MARK_MASK] = { .type = NLA_U32 },
	[PKTDEDUP_A_MEM] = NLA_POLICY_FULL_RANGE(NLA_U64, &pd_mem_range),
	[PKTDEDUP_A_FPS] = NLA_POLICY_FULL_RANGE(NLA_U32, &pd_fps_range),
	[PKTDEDUP_A_CELL_MAX] = NLA_POLICY_VALIDATE_FN(NLA_U32, pd_validate_max),
	[PKTDEDUP_A_K] = NLA_POLICY_MAX(NLA_U32, PD_SBF_MAX_K),
	[PKTDEDUP_A_P] = { .type = NLA_U32 },
	[PKTDEDUP_A_GAP] = NLA_POLICY_FULL_RANGE(NLA_U64, &pd_gap_range),
	[PKTDEDUP_A_SCOPE] = NLA_POLICY_MAX(NLA_U8, PKTDEDUP_SCOPE_MAX),
	[PKTDEDUP_A_HOOK] = NLA_POLICY_MAX(NLA_U8, PKTDEDUP_HOOK_MAX),
	[PKTDEDUP_A_PRIORITY] =
		NLA_POLICY_FULL_RANGE_SIGNED(NLA_S32, &pd_prio_range),
};

static const struct nla_policy pd_query_policy[PKTDEDUP_A_QUERY_PACKET + 1] = {
	[PKTDEDUP_A_QUERY_FAMILY] = NLA_POLICY_RANGE(NLA_U8, 4, 6),
	[PKTDEDUP_A_QUERY_SRC] = NLA_POLICY_RANGE(NLA_BINARY, 4, 16),
	[PKTDEDUP_A_QUERY_DST] = NLA_POLICY_RANGE(NLA_BINARY, 4, 16),
	[PKTDEDUP_A_QUERY_PROTO] = { .type = NLA_U8 },
	[PKTDEDUP_A_QUERY_SPORT] = { .type = NLA_U16 },
	[PKTDEDUP_A_QUERY_DPORT] = { .type = NLA_U16 },
	[PKTDEDUP_A_QUERY_PACKET] = NLA_POLICY_RANGE(NLA_BINARY, 1, PD_SCRATCH),
};

static struct pd_net *pd_info_net(struct genl_info *info)
{
	return pd_pernet(genl_info_net(info));
}

static int pd_fill_config(struct sk_buff *msg, struct pd_net *pn)
{
	const struct pd_config *c = &pn->cfg;
	struct pd_filters *fs;

	fs = rcu_dereference_protected(pn->filters, lockdep_is_held(&pn->lock));
	if (nla_put_u8(msg, PKTDEDUP_A_KEY, c->key) ||
	    nla_put_u32(msg, PKTDEDUP_A_KEY_FLAGS, c->key_flags) ||
	    nla_put_u16(msg, PKTDEDUP_A_PAYLOAD, c->payload) ||
	    nla_put_u8(msg, PKTDEDUP_A_ACTION, c->action) ||
	    nla_put_u32(msg, PKTDEDUP_A_MARK_VALUE, c->mark_value) ||
	    nla_put_u32(msg, PKTDEDUP_A_MARK_MASK, c->mark_mask) ||
	    nla_put_u64_64bit(msg, PKTDEDUP_A_MEM, c->mem, PKTDEDUP_A_PAD) ||
	    nla_put_u32(msg, PKTDEDUP_A_FPS, c->fps_ppb) ||
	    nla_put_u32(msg, PKTDEDUP_A_CELL_MAX, c->max) ||
	    nla_put_u32(msg, PKTDEDUP_A_K, c->k) ||
	    nla_put_u32(msg, PKTDEDUP_A_P, c->p) ||
	    nla_put_u64_64bit(msg, PKTDEDUP_A_GAP, c->gap, PKTDEDUP_A_PAD) ||
	    nla_put_u8(msg, PKTDEDUP_A_SCOPE, c->scope) ||
	    nla_put_u8(msg, PKTDEDUP_A_HOOK, c->hook) ||
	    nla_put_s32(msg, PKTDEDUP_A_PRIORITY, c->priority))
		return -EMSGSIZE;
	if (!fs)	/* idle: no filters could be built */
		return 0;
	if (nla_put_u32(msg, PKTDEDUP_A_PLAN_MAX, fs->plan.max) ||
	    nla_put_u32(msg, PKTDEDUP_A_PLAN_BITS, fs->plan.bits) ||
	    nla_put_u32(msg, PKTDEDUP_A_PLAN_K, fs->plan.k) ||
	    nla_put_u32(msg, PKTDEDUP_A_PLAN_P, fs->plan.p) ||
	    nla_put_u64_64bit(msg, PKTDEDUP_A_PLAN_CELLS, fs->plan.cells,
			      PKTDEDUP_A_PAD) ||
	    nla_put_u32(msg, PKTDEDUP_A_PLAN_FILTERS, pd_filters_count(fs)) ||
	    nla_put_u64_64bit(msg, PKTDEDUP_A_PLAN_MEM_TOTAL,
			      pd_filters_count(fs) * fs->plan.cells *
			      fs->plan.bits / 8, PKTDEDUP_A_PAD) ||
	    nla_put_u32(msg, PKTDEDUP_A_PLAN_FP_BOUND,
			pd_q62_to_ppb(fs->plan.fp_bound)) ||
	    nla_put_u32(msg, PKTDEDUP_A_PLAN_STABLE_ZERO,
			pd_q62_to_ppb(fs->plan.stable_zero)) ||
	    nla_put_u32(msg, PKTDEDUP_A_PLAN_FN,
			pd_q62_to_ppb(fs->plan.fn_rate)) ||
	    nla_put_u64_64bit(msg, PKTDEDUP_A_PLAN_GAP, fs->plan.gap,
			      PKTDEDUP_A_PAD))
		return -EMSGSIZE;
	return 0;
}

/* Reply to info with what fill puts in a message; pn->lock held. */
int pd_nl_reply_fill(struct pd_net *pn, struct genl_info *info, u8 cmd,
		     int (*fill)(struct sk_buff *msg, struct pd_net *pn))
{
	struct sk_buff *msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	void *hdr;

	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &pd_genl_family, 0, cmd);
	if (!hdr || fill(msg, pn)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int pd_nl_get_config(struct sk_buff *skb, struct genl_info *info)
{
	struct pd_net *pn = pd_info_net(info);
	int err;

	mutex_lock(&pn->lock);
	err = pd_nl_reply_fill(pn, info, PKTDEDUP_CMD_GET_CONFIG,
			       pd_fill_config);
	mutex_unlock(&pn->lock);
	return err;
}

/* The attribute to blame when the planner refuses a configuration. */
static struct nlattr *pd_plan_attr(struct nlattr **tb)
{
	static const int order[] = { PKTDEDUP_A_P, PKTDEDUP_A_K,
				     PKTDEDUP_A_CELL_MAX, PKTDEDUP_A_MEM,
				     PKTDEDUP_A_FPS, PKTDEDUP_A_SCOPE };
	int i;

	for (i = 0; i < ARRAY_SIZE(order); i++)
		if (tb[order[i]])
			return tb[order[i]];
	return NULL;
}

static void pd_config_update(struct pd_config *c, struct nlattr **tb)
{
	if (tb[PKTDEDUP_A_KEY])
		c->key = nla_get_u8(tb[PKTDEDUP_A_KEY]);
	if (tb[PKTDEDUP_A_KEY_FLAGS])
		c->key_flags = nla_get_u32(tb[PKTDEDUP_A_KEY_FLAGS]);
	if (tb[PKTDEDUP_A_PAYLOAD])
		c->payload = nla_get_u16(tb[PKTDEDUP_A_PAYLOAD]);
	if (tb[PKTDEDUP_A_ACTION])
		c->action = nla_get_u8(tb[PKTDEDUP_A_ACTION]);
	if (tb[PKTDEDUP_A_MARK_VALUE])
		c->mark_value = nla_get_u32(tb[PKTDEDUP_A_MARK_VALUE]);
	if (tb[PKTDEDUP_A_MARK_MASK])
		c->mark_mask = nla_get_u32(tb[PKTDEDUP_A_MARK_MASK]);
	if (tb[PKTDEDUP_A_MEM])
		c->mem = nla_get_u64(tb[PKTDEDUP_A_MEM]);
	if (tb[PKTDEDUP_A_FPS])
		c->fps_ppb = nla_get_u32(tb[PKTDEDUP_A_FPS]);
	if (tb[PKTDEDUP_A_CELL_MAX])
		c->max = nla_get_u32(tb[PKTDEDUP_A_CELL_MAX]);
	if (tb[PKTDEDUP_A_K])
		c->k = nla_get_u32(tb[PKTDEDUP_A_K]);
	if (tb[PKTDEDUP_A_P])
		c->p = nla_get_u32(tb[PKTDEDUP_A_P]);
	if (tb[PKTDEDUP_A_GAP])
		c->gap = nla_get_u64(tb[PKTDEDUP_A_GAP]);
	if (tb[PKTDEDUP_A_SCOPE])
		c->scope = nla_get_u8(tb[PKTDEDUP_A_SCOPE]);
	if (tb[PKTDEDUP_A_HOOK])
		c->hook = nla_get_u8(tb[PKTDEDUP_A_HOOK]);
	if (tb[PKTDEDUP_A_PRIORITY])
		c->priority = nla_get_s32(tb[PKTDEDUP_A_PRIORITY]);
}

static int pd_nl_set_config(struct sk_buff *skb, struct genl_info *info)
{
	struct pd_net *pn = pd_info_net(info);
	struct pd_config cfg;
	int err;

	mutex_lock(&pn->lock);
	cfg = pn->cfg;
	pd_config_update(&cfg, info->attrs);
	err = pd_net_apply(pn, &cfg, info->extack);
	if (err) {
		/* the extack message is set; point at the likely culprit */
		if (err != -ENOMEM && !info->extack->bad_attr)
			NL_SET_BAD_ATTR(info->extack, pd_plan_attr(info->attrs));
	} else {
		err = pd_nl_reply_fill(pn, info, PKTDEDUP_CMD_SET_CONFIG,
				       pd_fill_config);
	}
	mutex_unlock(&pn->lock);
	return err;
}

static int pd_nl_reset(struct sk_buff *skb, struct genl_info *info)
{
	struct pd_net *pn = pd_info_net(info);
	int err;

	mutex_lock(&pn->lock);
	err = pd_net_reset(pn, info->extack);
	mutex_unlock(&pn->lock);
	return err;
}

/* Counters of one CPU, or the totals (cpu < 0); pn->lock held. */
static int pd_fill_stats(struct sk_buff *msg, struct pd_net *pn, int cpu)
{
	struct pd_filters *fs;
	struct pd_counts c = {}, one;
	u64 zero = 0;
	int i, n = 0;

	fs = rcu_dereference_protected(pn->filters, lockdep_is_held(&pn->lock));
	for_each_possible_cpu(i) {
		if (cpu >= 0 && i != cpu)
			continue;
		pd_net_counts(pn, i, &one);
		pd_counts_add(&c, &one);
		if (fs && (!fs->shared || !n)) {
			zero += pd_filters_zero_ppb(fs, i);
			n++;
		}
	}
	if ((cpu >= 0 && nla_put_u32(msg, PKTDEDUP_A_STATS_CPU, cpu)) ||
	    nla_put_u64_64bit(msg, PKTDEDUP_A_STATS_PACKETS, c.packets,
			      PKTDEDUP_A_PAD) ||
	    nla_put_u64_64bit(msg, PKTDEDUP_A_STATS_DUPLICATES, c.duplicates,
			      PKTDEDUP_A_PAD) ||
	    nla_put_u64_64bit(msg, PKTDEDUP_A_STATS_MARKED, c.marked,
			      PKTDEDUP_A_PAD) ||
	    nla_put_u64_64bit(msg, PKTDEDUP_A_STATS_DROPPED, c.dropped,
			      PKTDEDUP_A_PAD) ||
	    nla_put_u64_64bit(msg, PKTDEDUP_A_STATS_UNPARSED, c.unparsed,
			      PKTDEDUP_A_PAD) ||
	    (n && nla_put_u32(msg, PKTDEDUP_A_STATS_ZERO_CELLS,
			      (u32)div_u64(zero, n))))
		return -EMSGSIZE;
	return 0;
}

static int pd_nl_get_stats(struct sk_buff *skb, struct genl_info *info)
{
	struct pd_net *pn = pd_info_net(info);
	struct sk_buff *msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	void *hdr;
	int err;

	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &pd_genl_family, 0,
				PKTDEDUP_CMD_GET_STATS);
	mutex_lock(&pn->lock);
	err = hdr ? pd_fill_stats(msg, pn, -1) : -EMSGSIZE;
	mutex_unlock(&pn->lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* One message per possible CPU; cb->args[0] is the next CPU to send. */
static int pd_nl_dump_stats(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct pd_net *pn = pd_pernet(sock_net(skb->sk));
	int cpu, err = 0;

	mutex_lock(&pn->lock);
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
		err = pd_fill_stats(skb, pn, cpu);
		if (err) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0] = cpu + 1;
	}
	mutex_unlock(&pn->lock);
	/* a full message ends this part of the dump; the next goes on */
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ? err : skb->len;
}

/* The key a QUERY request describes, for the configured key mode. */
static int pd_query_key(struct genl_info *info, const struct pd_filters *fs,
			struct pd_key *key)
{
	struct nlattr **tb = info->attrs;
	struct netlink_ext_ack *extack = info->extack;
	u8 mode = fs->cfg.key, family, alen;
	u16 sport = 0, dport = 0;
	const u8 *src = NULL, *dst = NULL;

	if (mode == PD_KEY_PACKET) {
		enum pd_parse_result r;

		if (GENL_REQ_ATTR_CHECK(info, PKTDEDUP_A_QUERY_PACKET))
			return -EINVAL;
		r = pd_key_extract(nla_data(tb[PKTDEDUP_A_QUERY_PACKET]),
				   nla_len(tb[PKTDEDUP_A_QUERY_PACKET]),
				   &fs->kopts, key);
		if (r != PD_PARSE_OK) {
			NL_SET_ERR_MSG_ATTR(extack, tb[PKTDEDUP_A_QUERY_PACKET],
					    "query packet: cannot be parsed as an IPv4 or IPv6 packet");
			return -EINVAL;
		}
		return 0;
	}
	if (tb[PKTDEDUP_A_QUERY_PACKET]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[PKTDEDUP_A_QUERY_PACKET],
				    "query packet: the filters are not keyed by packet");
		return -EINVAL;
	}
	if (GENL_REQ_ATTR_CHECK(info, PKTDEDUP_A_QUERY_FAMILY))
		return -EINVAL;
	family = nla_get_u8(tb[PKTDEDUP_A_QUERY_FAMILY]);
	if (family != PD_FAMILY_IPV4 && family != PD_FAMILY_IPV6) {
		NL_SET_ERR_MSG_ATTR(extack, tb[PKTDEDUP_A_QUERY_FAMILY],
				    "query family: 4 or 6");
		return -EINVAL;
	}
	alen = family == PD_FAMILY_IPV4 ? 4 : 16;
	if (mode != PD_KEY_DST) {
		if (GENL_REQ_ATTR_CHECK(info, PKTDEDUP_A_QUERY_SRC))
			return -EINVAL;
		if (nla_len(tb[PKTDEDUP_A_QUERY_SRC]) != alen) {
			NL_SET_ERR_MSG_ATTR(extack, tb[PKTDEDUP_A_QUERY_SRC],
					    "query src: length does not match the family");
			return -EINVAL;
		}
		src = nla_data(tb[PKTDEDUP_A_QUERY_SRC]);
	}
	if (mode != PD_KEY_SRC) {
		if (GENL_REQ_ATTR_CHECK(info, PKTDEDUP_A_QUERY_DST))
			return -EINVAL;
		if (nla_len(tb[PKTDEDUP_A_QUERY_DST]) != alen) {
			NL_SET_ERR_MSG_ATTR(extack, tb[PKTDEDUP_A_QUERY_DST],
					    "query dst: length does not match the family");
			return -EINVAL;
		}
		dst = nla_data(tb[PKTDEDUP_A_QUERY_DST]);
	}
	if (mode == PD_KEY_FLOW) {
		if (GENL_REQ_ATTR_CHECK(info, PKTDEDUP_A_QUERY_PROTO))
			return -EINVAL;
		if (tb[PKTDEDUP_A_QUERY_SPORT])
			sport = nla_get_u16(tb[PKTDEDUP_A_QUERY_SPORT]);
		if (tb[PKTDEDUP_A_QUERY_DPORT])
			dport = nla_get_u16(tb[PKTDEDUP_A_QUERY_DPORT]);
	}
	return pd_key_build(key, mode, family, src, dst,
			    tb[PKTDEDUP_A_QUERY_PROTO] ?
			    nla_get_u8(tb[PKTDEDUP_A_QUERY_PROTO]) : 0,
			    sport, dport) ? -EINVAL : 0;
}

static int pd_nl_query(struct sk_buff *skb, struct genl_info *info)
{
	struct pd_net *pn = pd_info_net(info);
	struct pd_filters *fs;
	struct sk_buff *msg;
	struct pd_key key;
	void *hdr;
	int n, err;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&pn->lock);
	fs = rcu_dereference_protected(pn->filters, lockdep_is_held(&pn->lock));
	if (!fs) {
		NL_SET_ERR_MSG(info->extack, "no filters: the instance is idle");
		err = -ENODATA;
		goto out;
	}
	err = pd_query_key(info, fs, &key);
	if (err)
		goto out;
	n = pd_filters_query(fs, &key);
	hdr = genlmsg_put_reply(msg, info, &pd_genl_family, 0,
				PKTDEDUP_CMD_QUERY);
	if (!hdr || nla_put_u8(msg, PKTDEDUP_A_QUERY_PRESENT, n > 0) ||
	    nla_put_u32(msg, PKTDEDUP_A_QUERY_CPUS, n)) {
		err = -EMSGSIZE;
		goto out;
	}
	mutex_unlock(&pn->lock);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
out:
	mutex_unlock(&pn->lock);
	nlmsg_free(msg);
	return err;
}

static const struct genl_ops pd_genl_ops[] = {
	{
		.cmd = PKTDEDUP_CMD_GET_CONFIG,
		.doit = pd_nl_get_config,
	},
	{
		.cmd = PKTDEDUP_CMD_SET_CONFIG,
		.doit = pd_nl_set_config,
		.policy = pd_set_policy,
		.maxattr = ARRAY_SIZE(pd_set_policy) - 1,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = PKTDEDUP_CMD_RESET,
		.doit = pd_nl_reset,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = PKTDEDUP_CMD_GET_STATS,
		.doit = pd_nl_get_stats,
		.dumpit = pd_nl_dump_stats,
	},
	{
		.cmd = PKTDEDUP_CMD_QUERY,
		.doit = pd_nl_query,
		.policy = pd_query_policy,
		.maxattr = ARRAY_SIZE(pd_query_policy) - 1,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = PKTDEDUP_CMD_GET_DISTINCT,
		.doit = pd_nl_get_distinct,
		.policy = pd_distinct_policy,
		.maxattr = ARRAY_SIZE(pd_distinct_policy) - 1,
	},
	{
		.cmd = PKTDEDUP_CMD_GET_SOURCES,
		.doit = pd_nl_get_sources,
	},
	{
		.cmd = PKTDEDUP_CMD_SET_SOURCES,
		.doit = pd_nl_set_sources,
		.policy = pd_sources_policy,
		.maxattr = ARRAY_SIZE(pd_sources_policy) - 1,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = PKTDEDUP_CMD_GET_TOP,
		.doit = pd_nl_get_top,
		.policy = pd_top_policy,
		.maxattr = ARRAY_SIZE(pd_top_policy) - 1,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = PKTDEDUP_CMD_GET_RARE,
		.doit = pd_nl_get_rare,
		.policy = pd_top_policy,
		.maxattr = ARRAY_SIZE(pd_top_policy) - 1,
		.flags = GENL_UNS_ADMIN_PERM,
	},
};

/* events name source addresses, as GET_TOP does: admins only */
static const struct genl_multicast_group pd_mcgrps[] = {
	{ .name = PKTDEDUP_MCGRP_EVENTS, .flags = GENL_MCAST_CAP_NET_ADMIN },
};

static struct genl_family pd_genl_family __ro_after_init = {
	.name = PKTDEDUP_GENL_NAME,
	.version = PKTDEDUP_GENL_VERSION,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = pd_genl_ops,
	.n_ops = ARRAY_SIZE(pd_genl_ops),
	.resv_start_op = PKTDEDUP_CMD_MAX + 1,
	.mcgrps = pd_mcgrps,
	.n_mcgrps = ARRAY_SIZE(pd_mcgrps),
};

void *pd_nl_put_reply(struct sk_buff *msg, struct genl_info *info, u8 cmd)
{
	return genlmsg_put_reply(msg, info, &pd_genl_family, 0, cmd);
}

bool pd_netlink_listening(struct net *net)
{
	return genl_has_listeners(&pd_genl_family, net, 0);
}

/* One NEW_SOURCE event to the "events" group of net; process context. */
int pd_netlink_event(struct net *net, const struct pd_src_event *ev, int cpu,
		     u64 time_ms)
{
	struct pd_net *pn = pd_pernet(net);
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put(msg, 0, 0, &pd_genl_family, 0,
			  PKTDEDUP_CMD_NEW_SOURCE);
	if (!hdr ||
	    nla_put_u8(msg, PKTDEDUP_A_ADDR_FAMILY, ev->len == 4 ? 4 : 6) ||
	    nla_put(msg, PKTDEDUP_A_ADDR, ev->len, ev->addr) ||
	    nla_put_u32(msg, PKTDEDUP_A_EV_CPU, cpu) ||
	    nla_put_u64_64bit(msg, PKTDEDUP_A_EV_TIME_MS, time_ms,
			      PKTDEDUP_A_PAD) ||
	    nla_put_u64_64bit(msg, PKTDEDUP_A_EV_DROPPED, pd_ev_dropped(pn),
			      PKTDEDUP_A_PAD)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	/* -ESRCH: the last listener left meanwhile; not a failure */
	err = genlmsg_multicast_netns(&pd_genl_family, net, msg, 0, 0,
				      GFP_KERNEL);
	return err == -ESRCH ? 0 : err;
}

int pd_netlink_init(void)
{
	return genl_register_family(&pd_genl_family);
}

void pd_netlink_exit(void)
{
	genl_unregister_family(&pd_genl_family);
}
