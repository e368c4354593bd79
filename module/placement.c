// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: where an instance judges packets. The netfilter hooks of its
 * placement (a row of pd_placements[], core/config.h: IPv4 and IPv6 at an
 * inet hook, one bridge hook, or at hook ingress one netdev hook on each
 * named device that is there), registered for a configuration, put in
 * force with its filters and withdrawn; and the devices it names.
 *
 * Devices are named, and followed by name: a name (or an altname, `ip
 * link property add altname`) may be set before its device exists (a NIC
 * whose driver loads later, a veth made later), and is absent until then.
 * The configuration's hooks (struct pd_hooks) bind each name to the device
 * that name resolves to in the namespace, whenever there is one: the
 * device notifier resolves every name again when a device appears
 * (created, moved in from another namespace), goes (deleted, moved out),
 * is renamed, or gains or loses an altname, and binds or unbinds, before
 * a departed device can be freed, as later nftables releases do for their
 * netdev chains. An unbound name matches nothing, and a bound one matches
 * its device alone: an ifindex is never remembered past its device, so a
 * device that takes a departed one's ifindex is not selected in its
 * place. At a per-device placement each bound device has its own hook (a
 * netdev hook at ingress, the module's XDP program at xdp and
 * xdp-generic: xdp.c), made and unmade with the binding.
 *
 * Devices are compared by identity, never by name: two names of one
 * device (its name and an altname, two altnames) in one request are
 * refused; two that come to name one device later bind it once (the first
 * name; the other's state is "same"), so no device is hooked twice.
 *
 * A frame is judged once: at a per-device hook, two named devices of
 * which one is stacked on the other (a VLAN device on its port, a bridge
 * over its port, a macvlan or bond over its lower device) would each judge
 * the frame that passes both, and the second would find it a copy of
 * itself. A request naming such a pair is refused; a pair that becomes
 * stacked later (NETDEV_CHANGEUPPER) leaves the upper device unhooked
 * (state stacked) while it is, and its frames are judged at the lower
 * device's hook.
 *
 * A refusal about one named device leaves its slot in pn->blame (the
 * request's reply points at its name: nl_config.c), since extack messages
 * must be static strings in this kernel.
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
 * bound to (at an XDP hook, xdp.c puts the program on it instead).
 * pn->dev_lock held (the device notifier's: the device cannot
 * go away unseen meanwhile).
 */
static int pd_hook_dev_on(struct pd_hooks *h, unsigned int i)
{
	struct pd_dev_bind *b = &h->dev[i];
	int err;

	lockdep_assert_held(&h->pn->dev_lock);
	if (b->hooked)
		return 0;
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
	h->dev[i].err = 0;
}

static void pd_dev_unbind(struct pd_hooks *h, unsigned int i)
{
	if (h->per_dev)
		pd_hook_dev_off(h, i);
	WRITE_ONCE(h->ifindex[i], 0);
	WRITE_ONCE(h->xlink[i], NULL);
	h->dev[i].dev = NULL;
	h->dev[i].err = 0;
	h->dev[i].state = PKTDEDUP_DEV_STATE_ABSENT;
}

/*
 * Resolve every name of h again (gone: a device on its way out, which
 * names no longer find, or NULL): each slot bound to the device its name
 * finds, the later of two names of one device left unbound (state same).
 * Whether a binding changed. The devices found cannot be freed while
 * pn->dev_lock is held: their unregistration waits for it in the notifier.
 */
static bool pd_dev_resolve(struct pd_hooks *h, const struct net_device *gone)
{
	struct net_device *now[PKTDEDUP_DEVS_MAX];
	bool changed = false;
	unsigned int i, j;

	lockdep_assert_held(&h->pn->dev_lock);
	rcu_read_lock();
	for (i = 0; i < h->ndev; i++) {
		now[i] = dev_get_by_name_rcu(h->pn->net, h->dev[i].name);
		if (now[i] == gone)
			now[i] = NULL;
	}
	rcu_read_unlock();
	for (i = 0; i < h->ndev; i++) {
		struct pd_dev_bind *b = &h->dev[i];
		bool same = false;

		for (j = 0; j < i && !same; j++)
			same = now[j] && now[j] == now[i];
		if (same) {
			if (b->dev)
				pd_dev_unbind(h, i);
			changed |= b->state != PKTDEDUP_DEV_STATE_SAME;
			b->state = PKTDEDUP_DEV_STATE_SAME;
			b->lower = (u8)(j - 1);
			continue;
		}
		if (b->dev == now[i] && b->state != PKTDEDUP_DEV_STATE_SAME) {
			if (!b->dev)
				b->state = PKTDEDUP_DEV_STATE_ABSENT;
			continue;
		}
		if (b->dev)
			pd_dev_unbind(h, i);
		b->state = PKTDEDUP_DEV_STATE_ABSENT;
		if (now[i])
			pd_dev_bind(h, i, now[i]);
		changed = true;
	}
	return changed;
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
 * After the binding changed: each bound device's state, its hook at a
 * per-device placement (off while it is stacked on another named
 * device), and what the packet path matches.
 */
void pd_dev_settle(struct pd_hooks *h)
{
	unsigned int i;
	int lower;

	lockdep_assert_held(&h->pn->dev_lock);
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
			WRITE_ONCE(h->xlink[i], NULL);
			continue;
		}
		if (h->xdp) {	/* the program on the device: xdp.c */
			b->hooked = true;
			pd_xdp_slot_settle(h, i);
			continue;
		}
		if (h->per_dev && pd_hook_dev_on(h, i)) {
			b->state = PKTDEDUP_DEV_STATE_FAILED;
			b->err = ENOMEM;
			WRITE_ONCE(h->ifindex[i], 0);
			continue;
		}
		b->state = PKTDEDUP_DEV_STATE_ACTIVE;
		b->err = 0;
		WRITE_ONCE(h->ifindex[i], b->dev->ifindex);
	}
}

/* Refuse slot i of h with a static message: its name is pointed at. */
static int pd_dev_refuse(struct pd_hooks *h, unsigned int i,
			 struct netlink_ext_ack *extack, const char *msg)
{
	h->pn->blame = (int)i;
	pd_set_err_msg(extack, msg);
	return -EINVAL;
}

/*
 * Bind h's names to the devices they name now; refuse two names of one
 * device, at a per-device placement two of them stacked one on the
 * other, and a device an XDP hook cannot read. pn->dev_lock held.
 */
static int pd_hooks_refuse(struct pd_hooks *h, struct netlink_ext_ack *extack)
{
	unsigned int i;

	pd_dev_resolve(h, NULL);
	for (i = 0; i < h->ndev; i++)
		if (h->dev[i].state == PKTDEDUP_DEV_STATE_SAME)
			return pd_dev_refuse(h, i, extack,
					     "names a device another name here names (an altname and its name, or two altnames): it would be hooked, and its packets judged, twice");
	for (i = 0; h->per_dev && i < h->ndev; i++) {
		if (!h->dev[i].dev)
			continue;
		if (pd_dev_lower(h, i) >= 0)
			return pd_dev_refuse(h, i, extack,
					     "stacked on another device named here (a VLAN on its port, a bridge over its port, a bond over its slave): a frame through both would be judged twice; name one of them");
		if (h->xdp && !pd_xdp_framing_ok(h->dev[i].dev))
			return pd_dev_refuse(h, i, extack,
					     "hook xdp: its link layer is neither Ethernet nor none (bare IP): the XDP hooks cannot read its frames; hook ingress can");
	}
	return 0;
}

/* pd_hooks_refuse(), then at a per-device placement hook the devices. */
static int pd_hooks_bind(struct pd_hooks *h, struct netlink_ext_ack *extack)
{
	struct pd_net *pn = h->pn;
	unsigned int i;
	int err;

	lockdep_assert_held(&pn->lock);
	lockdep_assert_held(&pn->dev_lock);
	err = pd_hooks_refuse(h, extack);
	if (err)
		return err;
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
 * names of one device, two named devices of which one is stacked on the
 * other, and at an XDP hook a device whose frames it cannot read; the XDP
 * program is attached by pd_xdp_attach()). The hooks are then known
 * to the device notifier (pn->hooks_next) until pd_hooks_commit() puts
 * them in force or pd_hooks_abort() removes them. pn->lock held.
 */
/* Hooks for cfg's placement and names, nothing bound or registered. */
static struct pd_hooks *pd_hooks_new(struct pd_net *pn,
				     const struct pd_config *cfg,
				     struct netlink_ext_ack *extack)
{
	const struct pd_placement *pl = &pd_placements[cfg->hook];
	struct pd_hooks *h = kzalloc(sizeof(*h), PD_GFP);
	unsigned int i;

	if (!h) {
		NL_SET_ERR_MSG(extack, "out of memory for the hooks");
		return NULL;
	}
	h->pn = pn;
	h->l2 = pl->l2;
	h->per_dev = pl->per_dev;
	h->xdp = pl->xdp;
	h->match_dev = cfg->sel.ndev && !h->per_dev;
	h->ndev = cfg->sel.ndev;
	for (i = 0; i < h->ndev; i++)
		strscpy(h->dev[i].name, cfg->sel.dev[i], IFNAMSIZ);
	return h;
}

/*
 * What pd_hooks_register() and pd_xdp_attach() would refuse about cfg's
 * devices as they are now (config check): two names of one device, two
 * named devices stacked, at an XDP hook a device it cannot read, no
 * program, a native hook on a driver without XDP, another XDP program on
 * a device. Nothing is bound, registered or attached, nothing kept.
 * pn->lock held.
 */
int pd_hooks_check(struct pd_net *pn, const struct pd_config *cfg,
		   struct netlink_ext_ack *extack)
{
	struct pd_hooks *h;
	int err;

	lockdep_assert_held(&pn->lock);
	h = pd_hooks_new(pn, cfg, extack);
	if (!h)
		return -ENOMEM;
	mutex_lock(&pn->dev_lock);
	err = pd_hooks_refuse(h, extack);
	if (!err && h->xdp)
		err = pd_xdp_check(pn, h, extack);
	mutex_unlock(&pn->dev_lock);
	kfree(h);
	return err;
}

struct pd_hooks *pd_hooks_register(struct pd_net *pn,
				   const struct pd_config *cfg, u32 gen,
				   struct netlink_ext_ack *extack)
{
	const struct pd_placement *pl = &pd_placements[cfg->hook];
	struct pd_hooks *h;
	unsigned int i;
	int err = 0;

	lockdep_assert_held(&pn->lock);
	h = pd_hooks_new(pn, cfg, extack);
	if (!h)
		return ERR_PTR(-ENOMEM);
	h->gen = gen;
	/* per device: an ops per named device, registered as it comes */
	for (i = 0; i < PKTDEDUP_DEVS_MAX; i++) {
		h->idx[i] = i;
		h->ops[i].hook = pd_hook;
		h->ops[i].priv = &h->idx[i];
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
		WRITE_ONCE(h->xlink[i], NULL);
	}
}

/* ---- the device notifier ---- */

/*
 * A device appears, goes, is renamed, gains or loses an altname, or is
 * stacked or unstacked: the bindings of the namespace's hooks, those in
 * force and those a change is about to publish, follow; at an XDP hook,
 * the work of xdp.c attaches the program to what was bound (and retries a
 * device that failed). RTNL held; the device is not freed before this
 * returns.
 */
static int pd_netdev_event(struct notifier_block *nb, unsigned long event,
			   void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	bool gone = event == NETDEV_UNREGISTER;
	bool changed, in_force = false;
	struct pd_hooks *hs[2];
	struct pd_net *pn;
	unsigned int i;

	if (event != NETDEV_REGISTER && !gone &&
	    event != NETDEV_CHANGENAME && event != NETDEV_CHANGE &&
	    event != NETDEV_UP && event != NETDEV_CHANGEUPPER)
		return NOTIFY_DONE;
	pn = pd_pernet(dev_net(dev));
	mutex_lock(&pn->dev_lock);
	hs[0] = pn->hooks;
	hs[1] = pn->hooks_next;
	for (i = 0; i < ARRAY_SIZE(hs); i++) {
		if (!hs[i])
			continue;
		changed = pd_dev_resolve(hs[i], gone ? dev : NULL);
		if (!changed && !(event == NETDEV_CHANGEUPPER && hs[i]->per_dev))
			continue;
		pd_dev_settle(hs[i]);
		in_force |= i == 0;
		if (i == 0 && changed)
			pr_info_ratelimited("netns %u: %s %s: the devices named follow\n",
					    pn->net->ns.inum, dev->name,
					    netdev_cmd_to_name(event));
	}
	pd_xdp_dev_event(pn, dev, gone, in_force);
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
