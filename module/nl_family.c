// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: the "pktdedup" generic netlink family (protocol: uapi/pktdedup.h,
 * generated with the policies and the operation table in nl_gen.[ch] from
 * Documentation/netlink/specs/pktdedup.yaml), and the request/reply path
 * every command takes.
 *
 * Every command goes through pd_nl_do(): the request's header flags, then
 * under the namespace's lock the command's act() (a change: all or
 * nothing), prepare() (what the reply needs) and fill(). A change's reply
 * is allocated before the change is made, so a reply that cannot be sent
 * never follows a change that was. The commands: nl_config.c (the
 * configuration), nl_stats.c (statistics and queries), sources/ (the
 * source analytics' commands and notifications).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/sock.h>

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

