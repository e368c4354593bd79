// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: traffic selection (which packets an instance looks at) as a
 * SET_CONFIG request carries it and GET_CONFIG reports it, and the
 * devices it names.
 *
 * Devices are named, and followed by name. A request may only name
 * devices that are there (a typo is refused), each once. From then on the
 * configuration's hooks (struct pd_hooks) bind each name to the device of
 * that name in the namespace, whenever there is one: the device notifier
 * below binds a device that appears under a configured name (created,
 * moved in from another namespace, renamed to it) and unbinds one that
 * goes (deleted, moved out, renamed away), before it can be freed, as
 * later nftables releases do for their netdev chains. An unbound name
 * matches nothing, and a bound one matches its device alone: an ifindex
 * is never remembered past its device, so a device that takes a departed
 * one's ifindex is not selected in its place. At hook ingress each bound
 * device has its own netdev hook, registered and unregistered with the
 * binding.
 *
 * A frame is judged once: at hook ingress, two named devices of which one
 * is stacked on the other (a VLAN device on its port, a bridge over its
 * port, a macvlan or bond over its lower device) would each judge the
 * frame that passes both, and the second would find it a copy of itself.
 * A request naming such a pair is refused with both names; a pair that
 * becomes stacked later (NETDEV_CHANGEUPPER) leaves the upper device
 * unhooked (state stacked) while it is, and its frames are judged at the
 * lower device's hook.
 *
 * The binding changes under pn->dev_lock, which the notifier (holding
 * RTNL) takes alone; the packet path reads only pd_hooks.ifindex[].
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <net/net_namespace.h>

#include "nl_gen.h"
#include "pktdedup.h"

/*
 * The selection attributes of a SET_CONFIG's config nest (tb) into sel:
 * each present attribute replaces its part. Named devices must be there,
 * each named once. 0, or an error with extack set and sel half-written
 * (the caller's copy is thrown away).
 */
int pd_nl_select_read(struct net *net, struct nlattr **tb,
		      struct pd_select *sel, struct netlink_ext_ack *extack)
{
	struct nlattr *a = tb[PKTDEDUP_A_CONFIG_DEVS], *d;
	struct net_device *dev;
	int rem, n = 0, i;

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
		if (nla_type(d) == PKTDEDUP_A_DEVS_DEVICE) {
			NL_SET_ERR_MSG_ATTR(extack, d,
					    "devs: device is reported, not set (name the devices)");
			return -EINVAL;
		}
		if (nla_type(d) != PKTDEDUP_A_DEVS_NAME)
			continue;
		if (n == PKTDEDUP_DEVS_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, d,
					    "dev: at most 8 devices");
			return -E2BIG;
		}
		memset(sel->dev[n], 0, sizeof(sel->dev[n]));
		nla_strscpy(sel->dev[n], d, sizeof(sel->dev[n]));
		for (i = 0; i < n; i++) {
			if (strcmp(sel->dev[i], sel->dev[n]))
				continue;
			NL_SET_ERR_MSG_ATTR(extack, d,
					    "dev: a device named twice (it would be hooked, and its packets judged, twice)");
			return -EINVAL;
		}
		dev = dev_get_by_name(net, sel->dev[n]);
		if (!dev) {
			NL_SET_ERR_MSG_ATTR(extack, d,
					    "dev: no such device in this namespace");
			return -ENODEV;
		}
		dev_put(dev);
		n++;
	}
	sel->ndev = n;
	return 0;
}

/* Whether a and b name the same devices, in the same order. */
bool pd_select_same_devs(const struct pd_select *a, const struct pd_select *b)
{
	unsigned int i;

	if (a->ndev != b->ndev)
		return false;
	for (i = 0; i < a->ndev; i++)
		if (strcmp(a->dev[i], b->dev[i]))
			return false;
	return true;
}

/* Named device i as it is bound now, into a devs nest. */
static int pd_nl_device_put(struct sk_buff *msg, const struct pd_hooks *h,
			    unsigned int i)
{
	const struct pd_dev_bind *b = &h->dev[i];
	struct nlattr *nest = nla_nest_start(msg, PKTDEDUP_A_DEVS_DEVICE);

	if (!nest || nla_put_string(msg, PKTDEDUP_A_DEVICE_NAME, b->name) ||
	    nla_put_u8(msg, PKTDEDUP_A_DEVICE_STATE, b->state) ||
	    (b->dev && nla_put_u32(msg, PKTDEDUP_A_DEVICE_IFINDEX,
				   b->dev->ifindex)) ||
	    (b->state == PKTDEDUP_DEV_STATE_STACKED &&
	     nla_put_string(msg, PKTDEDUP_A_DEVICE_LOWER,
			    h->dev[b->lower].name)))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/*
 * The selection into a GET_CONFIG's config nest; with each named device's
 * binding while the instance has hooks (pn->lock held).
 */
int pd_nl_select_put(struct sk_buff *msg, struct pd_net *pn,
		     const struct pd_select *sel)
{
	struct pd_hooks *h = pn->hooks;
	struct nlattr *devs;
	unsigned int i;
	int err = 0;

	lockdep_assert_held(&pn->lock);
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
	if (h) {
		mutex_lock(&pn->dev_lock);
		for (i = 0; i < h->ndev && !err; i++)
			err = pd_nl_device_put(msg, h, i);
		mutex_unlock(&pn->dev_lock);
	}
	nla_nest_end(msg, devs);
	return err;
}

/* ---- the binding: pn->dev_lock held ---- */

static void pd_dev_bind(struct pd_hooks *h, unsigned int i,
			struct net_device *dev)
{
	h->dev[i].dev = dev;
	h->dev[i].state = PKTDEDUP_DEV_STATE_ACTIVE;
}

static void pd_dev_unbind(struct pd_hooks *h, unsigned int i)
{
	if (h->per_dev)
		pd_hook_dev_off(h, i);
	WRITE_ONCE(h->ifindex[i], 0);
	h->dev[i].dev = NULL;
	h->dev[i].state = PKTDEDUP_DEV_STATE_ABSENT;
}

/* The bound slot that bound slot i is stacked on, or -1. */
static int pd_dev_lower(const struct pd_hooks *h, unsigned int i)
{
	unsigned int j;
	bool up;

	for (j = 0; j < h->ndev; j++) {
		if (j == i || !h->dev[j].dev)
			continue;
		rcu_read_lock();
		up = netdev_has_upper_dev_all_rcu(h->dev[j].dev,
						  h->dev[i].dev);
		rcu_read_unlock();
		if (up)
			return j;
	}
	return -1;
}

/*
 * After the binding changed: each bound device's state, its hook at
 * ingress (off while it is stacked on another named device), and the
 * ifindexes the packet path matches.
 */
static void pd_dev_settle(struct pd_hooks *h)
{
	unsigned int i;
	int lower;

	for (i = 0; i < h->ndev; i++) {
		struct pd_dev_bind *b = &h->dev[i];

		if (!b->dev)
			continue;
		lower = h->per_dev ? pd_dev_lower(h, i) : -1;
		if (lower >= 0) {
			pd_hook_dev_off(h, i);
			b->state = PKTDEDUP_DEV_STATE_STACKED;
			b->lower = (u8)lower;
			WRITE_ONCE(h->ifindex[i], 0);
			continue;
		}
		if (h->per_dev && pd_hook_dev_on(h, i)) {
			b->state = PKTDEDUP_DEV_STATE_FAILED;
			WRITE_ONCE(h->ifindex[i], 0);
			continue;
		}
		b->state = PKTDEDUP_DEV_STATE_ACTIVE;
		WRITE_ONCE(h->ifindex[i], b->dev->ifindex);
	}
}

/*
 * Bind h's names to the devices of those names now, and at ingress hook
 * them; refuse two of them stacked one on the other, naming both (the
 * message in pn->msg, which lives past the request: pn->lock held).
 */
int pd_hooks_bind(struct pd_hooks *h, struct netlink_ext_ack *extack)
{
	struct pd_net *pn = h->pn;
	struct net_device *dev;
	unsigned int i;
	int lower;

	lockdep_assert_held(&pn->lock);
	lockdep_assert_held(&pn->dev_lock);
	for (i = 0; i < h->ndev; i++) {
		h->dev[i].state = PKTDEDUP_DEV_STATE_ABSENT;
		rcu_read_lock();
		dev = dev_get_by_name_rcu(pn->net, h->dev[i].name);
		/* it cannot go unseen: its notifier waits for dev_lock */
		if (dev)
			pd_dev_bind(h, i, dev);
		rcu_read_unlock();
	}
	for (i = 0; h->per_dev && i < h->ndev; i++) {
		if (!h->dev[i].dev)
			continue;
		lower = pd_dev_lower(h, i);
		if (lower < 0)
			continue;
		snprintf(pn->msg, sizeof(pn->msg),
			 "dev: %s is stacked on %s: a frame through both passes both hooks and would be judged twice; name one of them",
			 h->dev[i].name, h->dev[lower].name);
		pd_set_err_msg(extack, pn->msg);
		return -EINVAL;
	}
	pd_dev_settle(h);
	for (i = 0; i < h->ndev; i++) {
		if (h->dev[i].state != PKTDEDUP_DEV_STATE_FAILED)
			continue;
		NL_SET_ERR_MSG(extack, "cannot register the netfilter hooks");
		return -ENOMEM;
	}
	return 0;
}

/* A device event for h's binding; whether anything changed. */
static bool pd_dev_follow(struct pd_hooks *h, unsigned long event,
			  struct net_device *dev)
{
	bool changed = false;
	unsigned int i;

	for (i = 0; i < h->ndev; i++) {
		struct pd_dev_bind *b = &h->dev[i];

		switch (event) {
		case NETDEV_UNREGISTER:
			if (b->dev != dev)
				break;
			pd_dev_unbind(h, i);
			changed = true;
			break;
		case NETDEV_CHANGENAME:
			if (b->dev == dev && strcmp(b->name, dev->name)) {
				pd_dev_unbind(h, i);
				changed = true;
			}
			fallthrough;
		case NETDEV_REGISTER:
			if (b->dev || strcmp(b->name, dev->name))
				break;
			pd_dev_bind(h, i, dev);
			changed = true;
			break;
		case NETDEV_CHANGEUPPER:
			changed |= h->per_dev && b->dev;
			break;
		}
	}
	return changed;
}

/*
 * A device appears, goes, is renamed, or is stacked or unstacked: the
 * bindings of the namespace's hooks, those in force and those a change is
 * about to publish, follow. RTNL held; the device is not freed before
 * this returns.
 */
static int pd_netdev_event(struct notifier_block *nb, unsigned long event,
			   void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct pd_hooks *hs[2];
	struct pd_net *pn;
	unsigned int i;

	if (event != NETDEV_REGISTER && event != NETDEV_UNREGISTER &&
	    event != NETDEV_CHANGENAME && event != NETDEV_CHANGEUPPER)
		return NOTIFY_DONE;
	pn = pd_pernet(dev_net(dev));
	mutex_lock(&pn->dev_lock);
	hs[0] = pn->hooks;
	hs[1] = pn->hooks_next;
	for (i = 0; i < ARRAY_SIZE(hs); i++) {
		if (!hs[i] || !pd_dev_follow(hs[i], event, dev))
			continue;
		pd_dev_settle(hs[i]);
		if (i == 0)
			pr_info_ratelimited("netns %u: %s %s: the devices named follow\n",
					    pn->net->ns.inum, dev->name,
					    netdev_cmd_to_name(event));
	}
	mutex_unlock(&pn->dev_lock);
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
