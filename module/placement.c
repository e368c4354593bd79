// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: where an instance judges packets. The netfilter hooks of its
 * placement (a row of pd_placements[], core/config.h: IPv4 and IPv6 at an
 * inet hook, one bridge hook, or at hook ingress one netdev hook on each
 * named device that is there), registered for a configuration, put in
 * force with its filters and withdrawn; and the devices it names.
 *
 * Devices are named, and followed by name. A request may only name
 * devices that are there (a typo is refused: select.c), each once. From
 * then on the configuration's hooks (struct pd_hooks) bind each name to
 * the device of that name in the namespace, whenever there is one: the
 * device notifier below binds a device that appears under a configured
 * name (created, moved in from another namespace, renamed to it) and
 * unbinds one that goes (deleted, moved out, renamed away), before it can
 * be freed, as later nftables releases do for their netdev chains. An
 * unbound name matches nothing, and a bound one matches its device alone:
 * an ifindex is never remembered past its device, so a device that takes
 * a departed one's ifindex is not selected in its place. At a per-device
 * placement each bound device has its own netdev hook, registered and
 * unregistered with the binding.
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
 * RTNL) takes alone; the packet path (hook.c) reads only
 * pd_hooks.ifindex[].
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "pktdedup.h"

/* ---- a per-device placement's hooks ---- */

/*
 * Hook ingress: register the hook of named device i on the device it is
 * bound to. pn->dev_lock held (the device notifier's: the device cannot
 * go away unseen meanwhile).
 */
static int pd_hook_dev_on(struct pd_hooks *h, unsigned int i)
{
	struct pd_dev_bind *b = &h->dev[i];
	int err;

	lockdep_assert_held(&h->pn->dev_lock);
	if (b->hooked)
		return 0;
	if (h->xdp) {	/* the device's program: xdp.c attaches it */
		b->hooked = true;
		return 0;
	}
	h->ops[i].dev = b->dev;
	err = nf_register_net_hook(h->pn->net, &h->ops[i]);
	b->hooked = !err;
	return err;
}

static void pd_hook_dev_off(struct pd_hooks *h, unsigned int i)
{
	lockdep_assert_held(&h->pn->dev_lock);
	if (!h->dev[i].hooked)
		return;
	if (!h->xdp)
		nf_unregister_net_hook(h->pn->net, &h->ops[i]);
	h->dev[i].hooked = false;
	h->ops[i].dev = NULL;
}

/* The netfilter hooks h has registered now. */
u32 pd_hooks_count(const struct pd_hooks *h)
{
	unsigned int i;
	u32 n = 0;

	if (!h->per_dev)
		return h->n;
	for (i = 0; i < h->ndev; i++)
		n += h->dev[i].hooked;
	return n;
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
	h->dev[i].attached = false;
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
		/* XDP: judged once the program is on it (xdp.c) */
		b->state = h->xdp && !b->attached ? PKTDEDUP_DEV_STATE_WAITING :
						    PKTDEDUP_DEV_STATE_ACTIVE;
		WRITE_ONCE(h->ifindex[i], b->dev->ifindex);
	}
}

/*
 * Bind h's names to the devices of those names now, and at ingress hook
 * them; refuse two of them stacked one on the other, naming both (the
 * message in pn->msg, which lives past the request: pn->lock held).
 */
static int pd_hooks_bind(struct pd_hooks *h, struct netlink_ext_ack *extack)
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

/* ---- a configuration's hooks ---- */

/*
 * Register the hooks of cfg's placement, generation gen: IPv4 and IPv6 at
 * an inet hook, the bridge family's hook, or a netdev ingress hook on each
 * named device that is there (pd_hooks_bind() binds them, and refuses two
 * named devices of which one is stacked on the other). The hooks are then known
 * to the device notifier (pn->hooks_next) until pd_hooks_commit() puts
 * them in force or pd_hooks_abort() removes them. pn->lock held.
 */
struct pd_hooks *pd_hooks_register(struct pd_net *pn,
				   const struct pd_config *cfg, u32 gen,
				   struct netlink_ext_ack *extack)
{
	const struct pd_placement *pl = &pd_placements[cfg->hook];
	struct pd_hooks *h = kzalloc(sizeof(*h), PD_GFP);
	unsigned int i;
	int err = 0;

	lockdep_assert_held(&pn->lock);
	if (!h) {
		NL_SET_ERR_MSG(extack, "out of memory for the hooks");
		return ERR_PTR(-ENOMEM);
	}
	h->pn = pn;
	h->gen = gen;
	h->l2 = pl->l2;
	h->per_dev = pl->per_dev;
	h->xdp = pl->xdp;
	h->match_dev = cfg->sel.ndev && !h->per_dev;
	h->ndev = cfg->sel.ndev;
	for (i = 0; i < h->ndev; i++)
		strscpy(h->dev[i].name, cfg->sel.dev[i], IFNAMSIZ);
	/* per device: an ops per named device, registered as it comes */
	for (i = 0; i < PKTDEDUP_DEVS_MAX; i++) {
		h->ops[i].hook = pd_hook;
		h->ops[i].priv = h;
		h->ops[i].pf = pl->pf;
		h->ops[i].hooknum = pl->hooknum;
		h->ops[i].priority = cfg->priority;
	}
	if (pl->pf == NFPROTO_INET) {	/* IPv4 and IPv6 */
		h->ops[0].pf = NFPROTO_IPV4;
		h->ops[1].pf = NFPROTO_IPV6;
		h->n = 2;
	} else if (!pl->per_dev) {
		h->n = 1;
	}
	mutex_lock(&pn->dev_lock);
	err = pd_hooks_bind(h, extack);
	for (i = 0; i < h->n && !err; i++) {
		err = nf_register_net_hook(pn->net, &h->ops[i]);
		if (err) {
			h->n = i;	/* the ones registered */
			NL_SET_ERR_MSG(extack,
				       "cannot register the netfilter hooks");
		}
	}
	if (err) {
		pd_hooks_detach(h);
		mutex_unlock(&pn->dev_lock);
		synchronize_rcu();	/* a CPU may be in one */
		kfree(h);
		return ERR_PTR(err);
	}
	pn->hooks_next = h;
	mutex_unlock(&pn->dev_lock);
	return h;
}

/*
 * Put h (from pd_hooks_register()) in force with the filters fs, built for
 * its generation, and take the old hooks off: under pn->dev_lock, so that
 * the device notifier sees the old hooks until they are unregistered and
 * the new ones from then on. With h NULL, only fs is published. Returns
 * the old hooks (CPUs may still be inside them: free after a grace
 * period), the old filters in *old. pn->lock held.
 */
struct pd_hooks *pd_hooks_commit(struct pd_net *pn, struct pd_hooks *h,
				 struct pd_filter_set *fs,
				 struct pd_filter_set **old)
{
	struct pd_hooks *prev = NULL;

	lockdep_assert_held(&pn->lock);
	mutex_lock(&pn->dev_lock);
	if (h) {
		prev = pn->hooks;
		pn->hooks = h;
		pn->hooks_next = NULL;
		pn->hook_gen = fs->hook_gen;
		rcu_assign_pointer(pn->xdp.hooks, h->xdp ? h : NULL);
	}
	*old = rcu_replace_pointer(pn->filters, fs,
				   lockdep_is_held(&pn->lock));
	if (prev)
		pd_hooks_detach(prev);
	mutex_unlock(&pn->dev_lock);
	return prev;
}

/* h (from pd_hooks_register()) is not wanted after all. pn->lock held. */
void pd_hooks_abort(struct pd_net *pn, struct pd_hooks *h)
{
	lockdep_assert_held(&pn->lock);
	mutex_lock(&pn->dev_lock);
	pd_hooks_detach(h);
	pn->hooks_next = NULL;
	mutex_unlock(&pn->dev_lock);
	synchronize_rcu();
	kfree(h);
}

/*
 * The hooks in force leave: unregistered, forgotten by the device
 * notifier. Returns them (CPUs may still be inside: free after a grace
 * period), or NULL.
 */
struct pd_hooks *pd_hooks_withdraw(struct pd_net *pn)
{
	struct pd_hooks *h;

	mutex_lock(&pn->dev_lock);
	h = pn->hooks;
	pn->hooks = NULL;
	RCU_INIT_POINTER(pn->xdp.hooks, NULL);
	if (h)
		pd_hooks_detach(h);
	mutex_unlock(&pn->dev_lock);
	return h;
}

/*
 * Stop new packets from reaching h; CPUs may still be inside pd_hook().
 * pn->dev_lock held.
 */
void pd_hooks_detach(struct pd_hooks *h)
{
	unsigned int i;

	lockdep_assert_held(&h->pn->dev_lock);
	for (i = 0; i < h->n; i++)
		nf_unregister_net_hook(h->pn->net, &h->ops[i]);
	h->n = 0;
	for (i = 0; i < h->ndev; i++) {
		pd_hook_dev_off(h, i);
		WRITE_ONCE(h->ifindex[i], 0);
	}
}

/* ---- the device notifier ---- */

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
	pd_xdp_dev_event(pn, dev, event == NETDEV_UNREGISTER);
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

int pd_placement_init(void)
{
	return register_netdevice_notifier(&pd_netdev_nb);
}

/*
 * Unregistering the notifier replays NETDEV_UNREGISTER for every device:
 * every ingress hook is removed here, before the namespaces' exit.
 */
void pd_placement_exit(void)
{
	unregister_netdevice_notifier(&pd_netdev_nb);
}
