// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: the XDP placements (hook xdp and xdp-generic).
 *
 * The module's XDP program (userspace/xdp/pktdedup.bpf.c) makes one call,
 * pd_xdp_judge(ctx): a kfunc the module registers for XDP programs, which
 * finds the instance of the namespace of the frame's device and judges
 * the frame as the netfilter hooks judge packets (hook.c, pd_xdp_frame()).
 * dedupctl loads the program (libbpf finds the kfunc in the module's BTF)
 * and hands its file descriptor over in SET_CONFIG (xdp-prog, CAP_BPF);
 * the module takes only its own program (two instructions: the kfunc's
 * call, exit), holds it while the configuration in force is at an XDP
 * hook, and attaches it to each named device that is there: one bpf_link
 * per device, which the module alone holds, made by its own kernel thread
 * (xdp_link.c), never through the requester's descriptor table.
 *
 * The module attaches, not dedupctl, so that the attachments follow the
 * configuration as the netfilter hooks do: the program is attached to a
 * named device when it appears (a NIC whose driver loads after the
 * configuration was set, a veth made later, a device that comes back:
 * created again, moved back in, renamed back), and detached when the
 * configuration stops naming its device or leaves XDP (a change,
 * disable), when the device goes (the kernel detaches a program at
 * unregistration; a device moved to another namespace keeps it, so the
 * module detaches it) and when the namespace goes. A request is all or
 * nothing: a program that cannot go on a named device that is there
 * refuses it, and the attachments in force before it are as they were
 * (a device switched between native and generic XDP gets its old mode
 * back). A program holds a reference on the module, so rmmod is refused
 * while one is attached or held.
 *
 * The kfunc judges a frame only where the module put its program: on a
 * receive queue a driver or generic XDP registered (not a devmap's or
 * cpumap's, whose programs run on frames already judged), of a device of
 * the hooks in force (or the bond whose slave it is: a bond's native
 * program runs on its slaves' queues) that runs the program the module
 * attached there. Any other XDP program calling it (root's, on a device
 * the module did not attach to, or twice on one frame) gets XDP_PASS and
 * judges nothing.
 *
 * Frames are read as their device has them: from an Ethernet header, or
 * from the IP header on a device without a link layer (tun, wireguard,
 * ipip, sit: hard_header_len 0); a device with another link layer is
 * refused (state failed at a later appearance).
 *
 * Locking: the attachments change under pn->lock and pn->dev_lock both,
 * and are read under either; making and detaching links (which take RTNL)
 * happens under pn->lock alone. The device notifier, holding RTNL and
 * pn->dev_lock, rebinds the names (placement.c), forgets the device of an
 * attachment whose device goes, and queues pn's work, which attaches and
 * lets go under pn->lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/file.h>
#include <linux/filter.h>
#include <linux/if_arp.h>
#include <linux/netdevice.h>
#include <net/net_namespace.h>
#include <net/xdp.h>

#include "pktdedup.h"

#ifdef PD_XDP

/* ---- the kfunc ---- */

/*
 * The slot of h whose device is dev and runs the link the module attached
 * there in h's mode, or -1. Under RCU.
 */
static int pd_xdp_slot_of(const struct pd_hooks *h,
			  const struct net_device *dev)
{
	enum bpf_xdp_mode m = pd_xdp_kmode(h->xdp);
	const struct bpf_xdp_link *run;
	unsigned int i;

	/* changed under RTNL: a racing read sees the old or the new one */
	run = data_race(READ_ONCE(dev->xdp_state[m].link));
	if (!run)
		return -1;
	for (i = 0; i < h->ndev; i++)
		if (READ_ONCE(h->ifindex[i]) == dev->ifindex &&
		    READ_ONCE(h->xlink[i]) == run)
			return i;
	return -1;
}

__diag_push();
__diag_ignore_all("-Wmissing-prototypes",
		  "a kfunc is global for its BTF, and called by programs only");

/*
 * The verdict on the frame of ctx (XDP_PASS or XDP_DROP): judged by the
 * instance of its device's namespace when the frame came in on a device
 * of its XDP hooks in force that runs the module's program (above),
 * passed otherwise.
 */
noinline u32 pd_xdp_judge(struct xdp_md *ctx)
{
	struct xdp_buff *xdp = (struct xdp_buff *)ctx;
	struct net_device *dev, *upper;
	struct pd_hooks *h;
	struct pd_net *pn;
	bool drop = false;
	int i;

	/* a driver's (or generic XDP's) queue: not a devmap's, a cpumap's */
	if (!xdp_rxq_info_is_reg(xdp->rxq))
		return XDP_PASS;
	dev = xdp->rxq->dev;
	pn = pd_pernet(dev_net(dev));
	rcu_read_lock();
	h = rcu_dereference(pn->xdp.hooks);
	if (!h)
		goto out;
	i = pd_xdp_slot_of(h, dev);
	/* native XDP on a bond: its program runs on its slaves' queues */
	if (i < 0 && netif_is_bond_slave(dev)) {
		upper = netdev_master_upper_dev_get_rcu(dev);
		if (upper)
			i = pd_xdp_slot_of(h, upper);
	}
	if (i >= 0)
		drop = pd_xdp_frame(pn, h, xdp, READ_ONCE(h->l3) & BIT(i), i);
out:
	rcu_read_unlock();
	return drop ? XDP_DROP : XDP_PASS;
}

__diag_pop();

BTF_SET8_START(pd_xdp_kfunc_ids)
BTF_ID_FLAGS(func, pd_xdp_judge)
BTF_SET8_END(pd_xdp_kfunc_ids)

static const struct btf_kfunc_id_set pd_xdp_kfuncs = {
	.owner = THIS_MODULE,
	.set = &pd_xdp_kfunc_ids,
};

/*
 * Without the module's BTF (or with BTF the kernel rejects) this still
 * succeeds, and the kernel logs why: then the program cannot be loaded,
 * and dedupctl says so.
 */
int pd_xdp_init(void)
{
	return register_btf_kfunc_id_set(BPF_PROG_TYPE_XDP, &pd_xdp_kfuncs);
}

/* At unload, every namespace gone: the links' kernel thread too. */
void pd_xdp_exit(void)
{
	pd_xdp_link_exit();
}

/* ---- the program a request brings ---- */

/*
 * Whether prog is the module's own program, as dedupctl loads it: an XDP
 * program for devices (not a devmap's or cpumap's), multi-buffer, of two
 * instructions after the verifier: the call of pd_xdp_judge() (its
 * immediate the kfunc's address from __bpf_call_base) and exit.
 */
static bool pd_xdp_prog_ours(const struct bpf_prog *prog)
{
	const struct bpf_insn *in = prog->insnsi;

	return prog->type == BPF_PROG_TYPE_XDP &&
	       prog->expected_attach_type == BPF_XDP &&
	       prog->aux->xdp_has_frags && !bpf_prog_is_dev_bound(prog->aux) &&
	       prog->len == 2 && in[0].code == (BPF_JMP | BPF_CALL) &&
	       in[0].src_reg == BPF_PSEUDO_KFUNC_CALL &&
	       (s64)in[0].imm == BPF_CALL_IMM(pd_xdp_judge) &&
	       in[1].code == (BPF_JMP | BPF_EXIT);
}

/*
 * A SET_CONFIG's xdp-prog: the program is checked (the module's own, and
 * the caller may hand programs over) and held in pn->xdp.next until the
 * request ends (pd_xdp_prog_settle()). The program held can be attached
 * again by any later request of the namespace's admin (a mode switch, a
 * device that comes back): it is the module's own, so that needs no more
 * than SET_CONFIG does. pn->lock held.
 */
int pd_xdp_prog_take(struct pd_net *pn, const struct nlattr *attr,
		     struct netlink_ext_ack *extack)
{
	struct bpf_prog *prog;
	struct file *f;
	u32 fd;

	lockdep_assert_held(&pn->lock);
	if (!attr)
		return 0;
	if (!bpf_capable()) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "xdp-prog: handing an XDP program over needs CAP_BPF (or CAP_SYS_ADMIN) in the initial user namespace; without xdp-prog, the program the module holds serves");
		return -EPERM;
	}
	fd = nla_get_u32(attr);
	f = fget(fd);
	prog = bpf_prog_get_type_dev(fd, BPF_PROG_TYPE_XDP, false);
	if (!f || IS_ERR(prog) || f->private_data != prog) {
		if (!IS_ERR(prog))
			bpf_prog_put(prog);
		if (f)
			fput(f);
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "xdp-prog: not the descriptor of an XDP program");
		return -EINVAL;
	}
	bpf_prog_put(prog);	/* the file holds it */
	if (!pd_xdp_prog_ours(prog)) {
		fput(f);
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "xdp-prog: not the module's own XDP program (userspace/xdp/pktdedup.bpf.c, as dedupctl loads it): the module attaches no other");
		return -EINVAL;
	}
	pn->xdp.next = f;
	return 0;
}

/*
 * The program held goes when nothing is at an XDP hook and no request is
 * applying one (a held program holds the module). pn->lock held.
 */
static void pd_xdp_prog_unneeded(struct pd_net *pn)
{
	if (!pn->xdp.prog || pn->xdp.next || (pn->hooks && pn->hooks->xdp))
		return;
	fput(pn->xdp.prog);
	pn->xdp.prog = NULL;
}

/*
 * After a request: the program it brought replaces the one held if the
 * request was applied, and is dropped if not; the module keeps a program
 * only while its configuration in force is at an XDP hook (a held program
 * holds the module). pn->lock held.
 */
void pd_xdp_prog_settle(struct pd_net *pn, bool applied)
{
	struct file *drop = NULL;

	lockdep_assert_held(&pn->lock);
	if (pn->xdp.next) {
		if (applied) {
			drop = pn->xdp.prog;
			pn->xdp.prog = pn->xdp.next;
		} else {
			drop = pn->xdp.next;
		}
		pn->xdp.next = NULL;
	}
	if (drop)
		fput(drop);
	pd_xdp_prog_unneeded(pn);
}

/* ---- the attachments ---- */

/* The attachment on dev, or NULL. pn->lock or pn->dev_lock held. */
static struct pd_xdp_att *pd_xdp_att_of(struct pd_net *pn,
					const struct net_device *dev)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pn->xdp.att); i++)
		if (pn->xdp.att[i].link && pn->xdp.att[i].dev == dev)
			return &pn->xdp.att[i];
	return NULL;
}

/* Whether dev's frames start at the IP header: no link layer. */
static bool pd_xdp_l3(const struct net_device *dev)
{
	return dev->type != ARPHRD_ETHER && dev->type != ARPHRD_LOOPBACK &&
	       !dev->hard_header_len;
}

/* Whether an XDP hook can read dev's frames: Ethernet's, or bare IP. */
bool pd_xdp_framing_ok(const struct net_device *dev)
{
	return dev->type == ARPHRD_ETHER || dev->type == ARPHRD_LOOPBACK ||
	       pd_xdp_l3(dev);
}

/*
 * Slot i of XDP hooks h, bound and not stacked: its state and what the
 * kfunc reads, from the attachment on its device (a failure to attach,
 * recorded in err, stays until the next try). pn->dev_lock held.
 */
void pd_xdp_slot_settle(struct pd_hooks *h, unsigned int i)
{
	struct pd_dev_bind *b = &h->dev[i];
	struct pd_xdp_att *a;

	lockdep_assert_held(&h->pn->dev_lock);
	a = pd_xdp_framing_ok(b->dev) ? pd_xdp_att_of(h->pn, b->dev) : NULL;
	if (!a || a->mode != h->xdp) {
		WRITE_ONCE(h->xlink[i], NULL);
		WRITE_ONCE(h->ifindex[i], 0);
		if (!pd_xdp_framing_ok(b->dev))
			b->err = EPFNOSUPPORT;
		b->state = b->err ? PKTDEDUP_DEV_STATE_FAILED :
				    PKTDEDUP_DEV_STATE_WAITING;
		return;
	}
	WRITE_ONCE(h->l3, pd_xdp_l3(b->dev) ? h->l3 | BIT(i) :
					      h->l3 & ~BIT(i));
	WRITE_ONCE(h->ifindex[i], b->dev->ifindex);
	WRITE_ONCE(h->xlink[i], a->tok);
	b->state = PKTDEDUP_DEV_STATE_ACTIVE;
	b->err = 0;
}

/* Whether hooks h (in force) want attachment a kept. pn->dev_lock held. */
static bool pd_xdp_wanted(const struct pd_hooks *h, const struct pd_xdp_att *a)
{
	unsigned int i;

	if (!h || !h->xdp || !a->dev || a->mode != h->xdp)
		return false;
	for (i = 0; i < h->ndev; i++)
		if (h->dev[i].dev == a->dev &&
		    h->dev[i].state != PKTDEDUP_DEV_STATE_STACKED)
			return true;
	return false;
}

/*
 * Let go of the attachments that neither the hooks in force nor also
 * (hooks a request is about to put in force, or NULL) want, and settle
 * the hooks in force. pn->lock held; RTNL and pn->dev_lock not held.
 */
static void pd_xdp_drop(struct pd_net *pn, const struct pd_hooks *also)
{
	struct bpf_link *drop[ARRAY_SIZE(pn->xdp.att)];
	unsigned int i, n = 0;

	lockdep_assert_held(&pn->lock);
	mutex_lock(&pn->dev_lock);
	for (i = 0; i < ARRAY_SIZE(pn->xdp.att); i++) {
		struct pd_xdp_att *a = &pn->xdp.att[i];

		if (!a->link || pd_xdp_wanted(pn->hooks, a) ||
		    pd_xdp_wanted(also, a))
			continue;
		drop[n++] = a->link;
		memset(a, 0, sizeof(*a));
	}
	if (pn->hooks && pn->hooks->xdp)
		pd_dev_settle(pn->hooks);
	mutex_unlock(&pn->dev_lock);
	for (i = 0; i < n; i++)
		pd_xdp_unlink(drop[i]);
}

/*
 * Let go of every attachment the hooks in force do not want: all of them
 * when the configuration in force is not at an XDP hook (or there is
 * none), those whose device went or is not named (or is stacked) any
 * more, those of the other mode; then of the program, if nothing is at
 * an XDP hook. pn->lock held; RTNL and pn->dev_lock not held.
 */
void pd_xdp_sync(struct pd_net *pn)
{
	lockdep_assert_held(&pn->lock);
	pd_xdp_drop(pn, NULL);
	pd_xdp_prog_unneeded(pn);
}

/* (a table: the line is the message's alone) */
static const char *const pd_xdp_no_prog[] = {
	"hook xdp: no XDP program given, and none held: dedupctl loads the module's program and hands it over (xdp-prog), which needs CAP_BPF (or CAP_SYS_ADMIN) in the initial user namespace",
};

/* One device's part of an attachment request. */
struct pd_xdp_try {
	struct net_device *dev;		/* held; NULL: nothing to do */
	struct bpf_link *made;		/* the new link, until kept */
	const struct bpf_xdp_link *tok;	/* the device's pointer to it */
	bool switched;			/* the other mode's was detached */
	u8 old_mode;
	u32 err;			/* positive errno, 0: done */
};

/*
 * Keep link (the device's tok, on dev, in mode) in a free slot; false if
 * there is none (the hooks in force's devices and a change's: there
 * always is). pn->lock and pn->dev_lock held.
 */
static bool pd_xdp_keep(struct pd_net *pn, struct bpf_link *link,
			const struct bpf_xdp_link *tok,
			struct net_device *dev, u8 mode)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pn->xdp.att); i++) {
		struct pd_xdp_att *a = &pn->xdp.att[i];

		if (a->link)
			continue;
		a->link = link;
		a->tok = tok;
		a->dev = dev;
		a->mode = mode;
		return true;
	}
	return false;
}

/*
 * Put the old mode's program back on t's device (a switch that did not
 * go through); a failure leaves the device without one, which its state
 * then says. pn->lock held.
 */
static void pd_xdp_restore(struct pd_net *pn, struct pd_xdp_try *t)
{
	const struct bpf_xdp_link *tok = NULL;
	struct file *prog = pn->xdp.prog;
	struct bpf_link *link;
	bool kept;

	if (!t->switched)
		return;
	t->switched = false;
	link = prog ? pd_xdp_link_make(prog, pn->net, t->dev, t->old_mode,
				       &tok) : ERR_PTR(-ENOENT);
	if (IS_ERR(link))
		return;
	mutex_lock(&pn->dev_lock);
	kept = pd_xdp_keep(pn, link, tok, t->dev, t->old_mode);
	mutex_unlock(&pn->dev_lock);
	if (!kept)
		pd_xdp_unlink(link);
}

/*
 * The devices of h that want the program and do not have it in h's mode,
 * held, into t; an attachment of the other mode on one is detached
 * (t->switched: put back if the request does not go through). Returns how
 * many.
 */
static unsigned int pd_xdp_wants(struct pd_net *pn, struct pd_hooks *h,
				 struct pd_xdp_try *t)
{
	struct bpf_link *old[PKTDEDUP_DEVS_MAX] = {};
	unsigned int i, n = 0;

	mutex_lock(&pn->dev_lock);
	for (i = 0; i < h->ndev; i++) {
		struct pd_dev_bind *b = &h->dev[i];
		struct pd_xdp_att *a;

		if (!b->dev || b->state == PKTDEDUP_DEV_STATE_STACKED ||
		    !pd_xdp_framing_ok(b->dev))
			continue;
		a = pd_xdp_att_of(pn, b->dev);
		if (a && a->mode == h->xdp)
			continue;
		t[i].dev = b->dev;
		dev_hold(t[i].dev);
		n++;
		if (!a)
			continue;
		/* one mode at a time on a device: the other's comes off */
		old[i] = a->link;
		t[i].switched = true;
		t[i].old_mode = a->mode;
		memset(a, 0, sizeof(*a));
	}
	mutex_unlock(&pn->dev_lock);
	for (i = 0; i < h->ndev; i++)
		if (old[i])
			pd_xdp_unlink(old[i]);
	return n;
}

/*
 * Put the program on each device of h (XDP hooks about to be put in
 * force, or in force) that is there and wants it, keeping the
 * attachments already there in the same mode. With all (a request), all
 * or nothing: on a failure the links this call made are let go, the
 * devices it switched between modes get their old mode back, and the
 * extack says why (pn->blame: the device); otherwise (the work, after a
 * device appeared) each device's failure is its own, in its state. pn->lock
 * held; RTNL and pn->dev_lock not held.
 */
int pd_xdp_attach(struct pd_net *pn, struct pd_hooks *h, bool all,
		  struct netlink_ext_ack *extack)
{
	struct pd_xdp_try t[PKTDEDUP_DEVS_MAX] = {};
	struct file *prog = pn->xdp.next ?: pn->xdp.prog;
	int err = 0, first = -1;
	unsigned int i;

	lockdep_assert_held(&pn->lock);
	if (!h || !h->xdp)
		return 0;
	/* new hooks need the program, for devices there now or later */
	if (!prog && all) {
		pd_set_err_msg(extack, pd_xdp_no_prog[0]);
		return -EINVAL;
	}
	pd_xdp_drop(pn, h);	/* went, or unwanted: room for h's */
	if (!pd_xdp_wants(pn, h, t))
		goto settle;
	for (i = 0; i < h->ndev && !(err && all); i++) {
		if (!t[i].dev)
			continue;
		t[i].made = prog ? pd_xdp_link_make(prog, pn->net, t[i].dev,
						    h->xdp, &t[i].tok) :
				   ERR_PTR(-ENOENT);
		if (!IS_ERR(t[i].made))
			continue;
		err = PTR_ERR(t[i].made);
		t[i].err = -err;
		t[i].made = NULL;
		if (first < 0)
			first = i;
		if (!all)
			pd_xdp_restore(pn, &t[i]);
	}
	if (err && all) {
		for (i = 0; i < h->ndev; i++) {
			if (t[i].made)
				pd_xdp_unlink(t[i].made);
			t[i].made = NULL;
			if (t[i].dev)
				pd_xdp_restore(pn, &t[i]);
		}
	}

	/* kept only if it went to the device still bound there */
	mutex_lock(&pn->dev_lock);
	for (i = 0; i < h->ndev; i++) {
		if (t[i].err && h->dev[i].dev == t[i].dev)
			h->dev[i].err = t[i].err;
		if (t[i].made && h->dev[i].dev == t[i].dev &&
		    pd_xdp_keep(pn, t[i].made, t[i].tok, t[i].dev, h->xdp))
			t[i].made = NULL;
	}
	mutex_unlock(&pn->dev_lock);
	for (i = 0; i < h->ndev; i++) {
		if (t[i].made)
			pd_xdp_unlink(t[i].made);
		if (t[i].dev)
			dev_put(t[i].dev);
	}
settle:
	mutex_lock(&pn->dev_lock);
	pd_dev_settle(h);
	if (pn->hooks && pn->hooks != h && pn->hooks->xdp)
		pd_dev_settle(pn->hooks);
	mutex_unlock(&pn->dev_lock);
	if (!err)
		return 0;
	pn->blame = first;
	pd_set_err_msg(extack, pd_dev_why(t[first].err, h->xdp));
	return err;
}

/*
 * Whether dev carries an XDP program in any mode that is not the module's
 * attachment a (or a is NULL): the kernel refuses a second program in a
 * mode (EBUSY) and a program in the other (EEXIST); the module's own in
 * the other mode is switched. pn->dev_lock held: dev stays; the modes
 * change under RTNL, and a racing read sees the old or the new program.
 */
static bool pd_xdp_foreign(const struct net_device *dev,
			   const struct pd_xdp_att *a)
{
	const struct bpf_xdp_link *link;
	const struct bpf_prog *prog;
	unsigned int m;

	for (m = 0; m < __MAX_XDP_MODE; m++) {
		/* changed under RTNL: the old or the new one is seen */
		link = data_race(READ_ONCE(dev->xdp_state[m].link));
		/* as the link: only whether there is one matters */
		prog = data_race(READ_ONCE(dev->xdp_state[m].prog));
		if (!link && !prog)
			continue;
		if (!a || !link || link != a->tok)
			return true;
	}
	return false;
}

/*
 * What pd_xdp_attach(pn, h, true) would refuse before it attaches
 * anything (config check): no program given or held, a native hook on a
 * driver without XDP, another XDP program on a device of h (bound and not
 * stacked: pd_hooks_check() has resolved them). Attaches nothing.
 * pn->lock and pn->dev_lock held.
 */
int pd_xdp_check(struct pd_net *pn, struct pd_hooks *h,
		 struct netlink_ext_ack *extack)
{
	struct net_device *dev;
	u32 err = 0;
	unsigned int i;

	lockdep_assert_held(&pn->lock);
	lockdep_assert_held(&pn->dev_lock);
	if (!h->xdp)
		return 0;
	if (!pn->xdp.next && !pn->xdp.prog) {
		pd_set_err_msg(extack, pd_xdp_no_prog[0]);
		return -EINVAL;
	}
	for (i = 0; i < h->ndev && !err; i++) {
		dev = h->dev[i].dev;
		if (!dev || !pd_xdp_framing_ok(dev))
			continue;
		if (h->xdp == PD_XDP_NATIVE && !dev->netdev_ops->ndo_bpf)
			err = EOPNOTSUPP;
		else if (pd_xdp_foreign(dev, pd_xdp_att_of(pn, dev)))
			err = EBUSY;
	}
	if (!err)
		return 0;
	pn->blame = (int)(i - 1);
	pd_set_err_msg(extack, pd_dev_why(err, h->xdp));
	return -(int)err;
}

/*
 * The device notifier saw dev go from pn (deleted, moved out), or the
 * binding of the hooks in force change (changed), or a device that
 * failed change: an attachment on a departed device forgets it (the
 * device may be freed once RTNL is released), and the work attaches what
 * was bound and lets go what is not wanted any more. RTNL and
 * pn->dev_lock held.
 */
void pd_xdp_dev_event(struct pd_net *pn, const struct net_device *dev,
		      bool gone, bool changed)
{
	struct pd_hooks *h = pn->hooks;
	struct pd_xdp_att *a;
	bool work = false;
	unsigned int i;

	lockdep_assert_held(&pn->dev_lock);
	a = gone ? pd_xdp_att_of(pn, dev) : NULL;
	if (a) {
		a->dev = NULL;
		work = true;
	}
	if (h && h->xdp) {
		work |= changed;
		/* a device that failed: tried again at its next change */
		for (i = 0; i < h->ndev; i++)
			work |= h->dev[i].dev == dev &&
				h->dev[i].state == PKTDEDUP_DEV_STATE_FAILED;
	}
	if (work && !pn->xdp.dead)
		schedule_work(&pn->xdp.work);
}

static void pd_xdp_work(struct work_struct *work)
{
	struct pd_net *pn = container_of(work, struct pd_net, xdp.work);

	mutex_lock(&pn->lock);
	pd_xdp_sync(pn);
	if (pn->active)
		pd_xdp_attach(pn, pn->hooks, false, NULL);
	mutex_unlock(&pn->lock);
}

void pd_xdp_net_init(struct pd_net *pn)
{
	INIT_WORK(&pn->xdp.work, pd_xdp_work);
}

/*
 * The namespace goes: no more work from the notifier, then every
 * attachment and the program let go (the hooks were withdrawn).
 */
void pd_xdp_net_exit(struct pd_net *pn)
{
	mutex_lock(&pn->dev_lock);
	pn->xdp.dead = true;
	mutex_unlock(&pn->dev_lock);
	cancel_work_sync(&pn->xdp.work);
	mutex_lock(&pn->lock);
	pd_xdp_sync(pn);
	mutex_unlock(&pn->lock);
}

#endif /* PD_XDP */
