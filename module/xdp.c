// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: the XDP placements (hook xdp and xdp-generic).
 *
 * The module's XDP program (userspace/xdp/pktdedup.bpf.c) makes one call,
 * pd_xdp_judge(ctx): a kfunc the module registers for XDP programs, which
 * finds the instance of the namespace of the frame's device and judges
 * the frame as the netfilter hooks judge packets (hook.c, pd_xdp_frame()).
 * dedupctl loads the program (libbpf finds the kfunc in the module's BTF)
 * and hands its file descriptor over in SET_CONFIG (xdp-prog); the module
 * holds the program while the configuration in force is at an XDP hook,
 * and attaches it to each named device that is there: one bpf_link per
 * device, which the module alone holds (created by BPF_LINK_CREATE through
 * kern_sys_bpf() in the requesting process, its descriptor closed at
 * once).
 *
 * The module attaches, not dedupctl, so that the attachments follow the
 * configuration as the netfilter hooks do: a link is detached when the
 * configuration stops naming its device or leaves XDP (a change, disable),
 * when the device goes (the kernel detaches a program at unregistration;
 * a device moved to another namespace keeps it, so the module detaches
 * it) and when the namespace goes. A program holds a reference on the
 * module, so rmmod is refused while one is attached or held. The kernel
 * attaches an XDP program only for a process (BPF_LINK_CREATE takes the
 * program's descriptor and finds the device in the caller's namespace),
 * which the device notifier is not: a named device that appears later
 * waits (dev-state waiting) for the namespace's next SET_CONFIG.
 *
 * Locking: the attachments change under pn->lock, never under
 * pn->dev_lock or RTNL (attaching and detaching take RTNL). The device
 * notifier, holding RTNL and pn->dev_lock, clears the device of an
 * attachment whose device goes, and queues pn's work to release it; so
 * an attachment's dev is read and set under pn->dev_lock as well.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/filter.h>
#include <linux/netdevice.h>
#include <net/net_namespace.h>
#include <net/xdp.h>

#include "pktdedup.h"

/* ---- the kfunc ---- */

__diag_push();
__diag_ignore_all("-Wmissing-prototypes",
		  "a kfunc is global for its BTF, and called by programs only");

/*
 * The verdict on the frame of ctx (XDP_PASS or XDP_DROP): judged by the
 * instance of its device's namespace when its configuration in force is
 * at an XDP hook on that device, passed otherwise (a device whose program
 * the module has not detached yet, one moved to another namespace).
 */
noinline u32 pd_xdp_judge(struct xdp_md *ctx)
{
	struct xdp_buff *xdp = (struct xdp_buff *)ctx;
	struct net_device *dev = xdp->rxq->dev;
	struct pd_net *pn = pd_pernet(dev_net(dev));
	struct pd_hooks *h;
	bool drop = false;

	rcu_read_lock();
	h = rcu_dereference(pn->xdp.hooks);
	if (h)
		drop = pd_xdp_frame(pn, h, dev, xdp->data,
				    xdp->data_end - xdp->data);
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

/* ---- the program a request brings ---- */

/*
 * A SET_CONFIG's xdp-prog: the program is checked (an XDP program, the
 * caller may load such) and held in pn->xdp.next until the request ends
 * (pd_xdp_prog_settle()). pn->lock held.
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
				    "xdp-prog: attaching an XDP program needs CAP_BPF (and CAP_NET_ADMIN) in the initial user namespace");
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

/* ---- the links ---- */

/* Detach link and let it go. Neither RTNL nor pn->dev_lock held. */
static void pd_xdp_unlink(struct bpf_link *link)
{
	/* another holder (BPF_LINK_GET_FD_BY_ID) would keep it attached */
	if (link->ops->detach)
		link->ops->detach(link);
	bpf_link_put(link);
}

/*
 * A bpf_link of prog on the device of ifindex in the caller's namespace,
 * in mode; the module holds the only reference. The program gets a
 * descriptor in the caller's table for the call (BPF_LINK_CREATE takes
 * one), and so does the link: both are closed before returning.
 */
static struct bpf_link *pd_xdp_link(struct file *prog, int ifindex, u8 mode)
{
	union bpf_attr attr = {};
	struct bpf_link *link;
	int pfd, lfd;

	pfd = get_unused_fd_flags(O_CLOEXEC);
	if (pfd < 0)
		return ERR_PTR(pfd);
	fd_install(pfd, get_file(prog));
	attr.link_create.prog_fd = pfd;
	attr.link_create.target_ifindex = ifindex;
	attr.link_create.attach_type = BPF_XDP;
	attr.link_create.flags = mode == PD_XDP_NATIVE ? XDP_FLAGS_DRV_MODE :
							 XDP_FLAGS_SKB_MODE;
	lfd = kern_sys_bpf(BPF_LINK_CREATE, &attr, sizeof(attr));
	close_fd(pfd);
	if (lfd < 0)
		return ERR_PTR(lfd);
	link = bpf_link_get_from_fd(lfd);
	close_fd(lfd);
	return link;
}

/* The attachment on dev, or NULL. pn->dev_lock held. */
static struct pd_xdp_att *pd_xdp_att_of(struct pd_net *pn,
					const struct net_device *dev)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pn->xdp.att); i++)
		if (pn->xdp.att[i].link && pn->xdp.att[i].dev == dev)
			return &pn->xdp.att[i];
	return NULL;
}

static struct pd_xdp_att *pd_xdp_att_free(struct pd_net *pn)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pn->xdp.att); i++)
		if (!pn->xdp.att[i].link)
			return &pn->xdp.att[i];
	return NULL;
}

/* Whether slot i of h wants the program: bound, not stacked. */
static bool pd_xdp_wants(const struct pd_hooks *h, unsigned int i)
{
	return h->dev[i].dev &&
	       (h->dev[i].state == PKTDEDUP_DEV_STATE_ACTIVE ||
		h->dev[i].state == PKTDEDUP_DEV_STATE_WAITING);
}

/* Slot i of h has the program on its device now. pn->dev_lock held. */
static void pd_xdp_mark(struct pd_hooks *h, unsigned int i)
{
	h->dev[i].attached = true;
	h->dev[i].state = PKTDEDUP_DEV_STATE_ACTIVE;
}

/* Why BPF_LINK_CREATE refused, by its error. */
static const char *const pd_xdp_whys[] = {
	"its driver has no native XDP; hook xdp-generic works on any device",
	"the device takes no XDP program",
	"another XDP program is attached to it (ip link show says which); detach it first",
	"the device refused the program (MTU too large for XDP without frags, or the device is not there any more)",
	"the kernel refused the attachment",
};

/*
 * The error of attaching to h's slot i (err from BPF_LINK_CREATE), in
 * words for the extack (pn->msg: pn->lock held).
 */
static void pd_xdp_refusal(struct pd_hooks *h, unsigned int i, int err,
			   struct netlink_ext_ack *extack)
{
	struct pd_net *pn = h->pn;
	unsigned int why;

	switch (err) {
	case -EOPNOTSUPP:
		why = h->xdp == PD_XDP_NATIVE ? 0 : 1;
		break;
	case -EBUSY:
	case -EEXIST:
		why = 2;
		break;
	case -ERANGE:
	case -EINVAL:
		why = 3;
		break;
	default:
		why = 4;
		break;
	}
	snprintf(pn->msg, sizeof(pn->msg), "dev %s: cannot attach the XDP program (%d): %s",
		 h->dev[i].name, err, pd_xdp_whys[why]);
	pd_set_err_msg(extack, pn->msg);
}

/*
 * Put the program on each device h wants it on (h: XDP hooks about to be
 * put in force, or in force), keeping the attachments already there in
 * the same mode: from a request, in the caller's context. All or nothing:
 * on failure the links this call made are let go, and the extack says
 * which device and why. pn->lock held; RTNL and pn->dev_lock not held.
 */
int pd_xdp_attach(struct pd_net *pn, struct pd_hooks *h,
		  struct netlink_ext_ack *extack)
{
	struct bpf_link *made[PKTDEDUP_DEVS_MAX] = {};
	struct net_device *want[PKTDEDUP_DEVS_MAX] = {};
	struct file *prog = pn->xdp.next ?: pn->xdp.prog;
	struct bpf_link *old;
	struct pd_xdp_att *a;
	unsigned int i;
	int err = 0;

	lockdep_assert_held(&pn->lock);
	if (!h || !h->xdp)
		return 0;
	/* what went or is not wanted in force: room for h's attachments */
	pd_xdp_sync(pn);
	/* the devices wanted and not attached, held for the calls */
	mutex_lock(&pn->dev_lock);
	for (i = 0; i < h->ndev; i++) {
		if (!pd_xdp_wants(h, i))
			continue;
		a = pd_xdp_att_of(pn, h->dev[i].dev);
		if (a && a->mode == h->xdp) {
			pd_xdp_mark(h, i);
			continue;
		}
		want[i] = h->dev[i].dev;
		dev_hold(want[i]);
	}
	mutex_unlock(&pn->dev_lock);

	for (i = 0; i < h->ndev && !err; i++) {
		if (!want[i])
			continue;
		if (!prog) {
			NL_SET_ERR_MSG(extack,
				       "hook xdp: no XDP program given, and none held: dedupctl loads the module's program and sends it (xdp-prog)");
			err = -EINVAL;
			break;
		}
		if ((current->flags & PF_KTHREAD) ||
		    !net_eq(current->nsproxy->net_ns, pn->net)) {
			NL_SET_ERR_MSG(extack,
				       "hook xdp: the request must come from a process in the instance's network namespace (the kernel attaches XDP programs there)");
			err = -EINVAL;
			break;
		}
		/* the other mode's attachment first: one mode at a time */
		mutex_lock(&pn->dev_lock);
		a = pd_xdp_att_of(pn, want[i]);
		old = a ? a->link : NULL;
		if (a)
			memset(a, 0, sizeof(*a));
		mutex_unlock(&pn->dev_lock);
		if (old)
			pd_xdp_unlink(old);
		made[i] = pd_xdp_link(prog, want[i]->ifindex, h->xdp);
		if (IS_ERR(made[i])) {
			err = PTR_ERR(made[i]);
			made[i] = NULL;
			pd_xdp_refusal(h, i, err, extack);
		}
	}

	mutex_lock(&pn->dev_lock);
	for (i = 0; i < h->ndev; i++) {
		/* kept only if it went to the device still bound there */
		if (!made[i] || err || h->dev[i].dev != want[i])
			continue;
		/* the new hooks' and the old ones': one slot each at most */
		a = pd_xdp_att_free(pn);
		if (WARN_ON_ONCE(!a))
			continue;
		a->link = made[i];
		a->dev = want[i];
		a->mode = h->xdp;
		made[i] = NULL;
		pd_xdp_mark(h, i);
	}
	mutex_unlock(&pn->dev_lock);
	for (i = 0; i < h->ndev; i++) {
		if (made[i])
			pd_xdp_unlink(made[i]);
		if (want[i])
			dev_put(want[i]);
	}
	return err;
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
	struct bpf_link *drop[ARRAY_SIZE(pn->xdp.att)];
	struct pd_hooks *h;
	unsigned int i, j, n = 0;
	bool keep;

	lockdep_assert_held(&pn->lock);
	mutex_lock(&pn->dev_lock);
	h = pn->hooks && pn->hooks->xdp ? pn->hooks : NULL;
	for (i = 0; i < ARRAY_SIZE(pn->xdp.att); i++) {
		struct pd_xdp_att *a = &pn->xdp.att[i];

		if (!a->link)
			continue;
		keep = false;
		for (j = 0; h && a->dev && j < h->ndev; j++) {
			if (h->dev[j].dev != a->dev || !pd_xdp_wants(h, j) ||
			    a->mode != h->xdp)
				continue;
			pd_xdp_mark(h, j);	/* renamed away and back */
			keep = true;
		}
		if (keep)
			continue;
		drop[n++] = a->link;
		memset(a, 0, sizeof(*a));
	}
	mutex_unlock(&pn->dev_lock);
	for (i = 0; i < n; i++)
		pd_xdp_unlink(drop[i]);
	pd_xdp_prog_unneeded(pn);
}

/*
 * The device notifier saw dev go from pn (deleted, moved out; RTNL and
 * pn->dev_lock held) or the binding of XDP hooks change: an attachment on
 * dev forgets it (the device may be freed once RTNL is released), and the
 * work lets go of what is not wanted any more.
 */
void pd_xdp_dev_event(struct pd_net *pn, const struct net_device *dev,
		      bool gone)
{
	struct pd_xdp_att *a;

	lockdep_assert_held(&pn->dev_lock);
	a = gone ? pd_xdp_att_of(pn, dev) : NULL;
	if (a)
		a->dev = NULL;
	if ((a || (pn->hooks && pn->hooks->xdp)) && !pn->xdp.dead)
		schedule_work(&pn->xdp.work);
}

static void pd_xdp_work(struct work_struct *work)
{
	struct pd_net *pn = container_of(work, struct pd_net, xdp.work);

	mutex_lock(&pn->lock);
	pd_xdp_sync(pn);
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
