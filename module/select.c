// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: traffic selection (which packets an instance looks at) as a
 * SET_CONFIG request carries it and GET_CONFIG reports it, and the
 * devices it names.
 *
 * Devices are named in a request and resolved to ifindexes when it is
 * applied, under the namespace's lock: an unknown name is refused. The
 * packet path compares ifindexes (hook.c). Hook ingress registers one
 * netdev hook on each device; a device that goes away (unregistered, or
 * moved to another namespace) takes its hook with it: the notifier below
 * removes it under the same lock before the device can be freed, as
 * nf_tables does for its netdev chains. Such a device is not selected
 * again until a configuration naming it is applied.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <net/net_namespace.h>

#include "nl_gen.h"
#include "pktdedup.h"

/*
 * The selection attributes of a SET_CONFIG's config nest (tb) into sel:
 * each present attribute replaces its part. Device names are resolved in
 * net. 0, or an error with extack set and sel half-written (the caller's
 * copy is thrown away).
 */
int pd_nl_select_read(struct net *net, struct nlattr **tb,
		      struct pd_select *sel, struct netlink_ext_ack *extack)
{
	struct nlattr *a = tb[PKTDEDUP_A_CONFIG_DEVS], *d;
	struct net_device *dev;
	int rem, n = 0;

	if (tb[PKTDEDUP_A_CONFIG_MATCH_MARK_VALUE])
		sel->mark_value =
			nla_get_u32(tb[PKTDEDUP_A_CONFIG_MATCH_MARK_VALUE]);
	if (tb[PKTDEDUP_A_CONFIG_MATCH_MARK_MASK])
		sel->mark_mask =
			nla_get_u32(tb[PKTDEDUP_A_CONFIG_MATCH_MARK_MASK]);
	if (sel->mark_value & ~sel->mark_mask) {
		NL_SET_ERR_MSG_ATTR(extack,
				    tb[PKTDEDUP_A_CONFIG_MATCH_MARK_VALUE] ?:
				    tb[PKTDEDUP_A_CONFIG_MATCH_MARK_MASK],
				    "match-mark: the value has bits outside the mask (the mask must cover the value)");
		return -EINVAL;
	}
	if (tb[PKTDEDUP_A_CONFIG_PROTOS]) {
		memcpy(sel->protos, nla_data(tb[PKTDEDUP_A_CONFIG_PROTOS]),
		       sizeof(sel->protos));
		pd_select_update(sel);
	}
	if (!a)
		return 0;
	/* validated by the policy: names of at most IFNAMSIZ - 1 bytes */
	nla_for_each_nested(d, a, rem) {
		if (nla_type(d) != PKTDEDUP_A_DEVS_NAME)
			continue;
		if (n == PKTDEDUP_DEVS_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, d,
					    "dev: at most 8 devices");
			return -E2BIG;
		}
		nla_strscpy(sel->dev[n], d, sizeof(sel->dev[n]));
		dev = dev_get_by_name(net, sel->dev[n]);
		if (!dev) {
			NL_SET_ERR_MSG_ATTR(extack, d,
					    "dev: no such device in this namespace");
			return -ENODEV;
		}
		sel->ifindex[n++] = dev->ifindex;
		dev_put(dev);
	}
	sel->ndev = n;
	return 0;
}

/* The selection into a GET_CONFIG's config nest. */
int pd_nl_select_put(struct sk_buff *msg, const struct pd_select *sel)
{
	struct nlattr *devs;
	unsigned int i;

	if (nla_put_u32(msg, PKTDEDUP_A_CONFIG_MATCH_MARK_VALUE,
			sel->mark_value) ||
	    nla_put_u32(msg, PKTDEDUP_A_CONFIG_MATCH_MARK_MASK,
			sel->mark_mask) ||
	    nla_put(msg, PKTDEDUP_A_CONFIG_PROTOS, sizeof(sel->protos),
		    sel->protos))
		return -EMSGSIZE;
	devs = nla_nest_start(msg, PKTDEDUP_A_CONFIG_DEVS);
	if (!devs)
		return -EMSGSIZE;
	for (i = 0; i < sel->ndev; i++)
		if (nla_put_string(msg, PKTDEDUP_A_DEVS_NAME, sel->dev[i]))
			return -EMSGSIZE;
	nla_nest_end(msg, devs);
	return 0;
}

/* A device goes away: the hooks on it go first. */
static int pd_netdev_event(struct notifier_block *nb, unsigned long event,
			   void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct pd_net *pn;

	if (event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;
	pn = pd_pernet(dev_net(dev));
	mutex_lock(&pn->lock);
	if (pn->hooks && pd_hooks_forget_dev(pn->hooks, dev))
		pr_info_ratelimited("netns %u: %s went away: its ingress hook removed\n",
				    pn->net->ns.inum, dev->name);
	mutex_unlock(&pn->lock);
	return NOTIFY_DONE;
}

static struct notifier_block pd_netdev_nb = {
	.notifier_call = pd_netdev_event,
};

int pd_select_init(void)
{
	return register_netdevice_notifier(&pd_netdev_nb);
}

/*
 * Unregistering the notifier replays NETDEV_UNREGISTER for every device:
 * every ingress hook is removed here, before the namespaces' exit.
 */
void pd_select_exit(void)
{
	unregister_netdevice_notifier(&pd_netdev_nb);
}
