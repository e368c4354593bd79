// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: the bpf_links of the XDP placements, made by the module's own
 * kernel thread.
 *
 * The kernel attaches an XDP program through BPF_LINK_CREATE only: the
 * program is named by a file descriptor of the caller's table, the device
 * by an ifindex of the caller's network namespace, and the link comes back
 * as a descriptor in the caller's table. A requesting process's table is
 * not the module's to use: every thread sharing it (and any process that
 * may ptrace the requester, a container's root among them) could take the
 * program or the link from it while it is there (run it, attach it
 * elsewhere, keep it), or put another file under the number. Nor is there
 * a process at all when a named device appears later (a NIC whose driver
 * loads after the configuration was set, a device that comes back).
 *
 * So one kernel thread of the module's ("pktdedup-xdp", made at the first
 * attachment, stopped at unload) makes every link. Its descriptors are
 * those of the kernel's own threads (a table that no user process shares;
 * its entries are closed before the thread takes the next request), and
 * for each link it enters the device's network namespace for the one
 * call, through a namespace proxy of its own whose net_ns is switched
 * under task_lock() as setns() switches a task's (readers of another
 * task's namespaces take their references under that lock). A reference
 * someone took to the proxy meanwhile (setns() through a pidfd of the
 * thread: the initial namespace's root alone may) is waited for before
 * the proxy changes again. The link made is checked before it is kept: an
 * XDP link of the program asked for, on the device asked for, in the mode
 * asked for, in the namespace asked for; otherwise it is detached and the
 * attachment refused. Requests are served one at a time; the requester
 * waits.
 *
 * A device's state keeps the link of each mode (dev->xdp_state[].link),
 * not its program, when the program came by a link: the kfunc tells the
 * module's attachment from another by that pointer, which it compares
 * and never follows.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf.h>
#include <linux/completion.h>
#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/kthread.h>
#include <linux/netdevice.h>
#include <linux/nsproxy.h>
#include <linux/rtnetlink.h>
#include <linux/sched/task.h>
#include <net/net_namespace.h>

#include "pktdedup.h"

#ifdef PD_XDP

/* bpf_sys_bpf() for modules (kernel/bpf/syscall.c): in no header */
int kern_sys_bpf(int cmd, union bpf_attr *attr, unsigned int size);

struct pd_link_req {
	struct kthread_work work;
	struct file *prog;		/* the module's program: held */
	struct net *net;		/* where dev must be */
	struct net_device *dev;		/* held by the requester */
	u8 mode;			/* enum pd_xdp_mode */
	struct bpf_link *link;		/* the answer, or an ERR_PTR */
	const struct bpf_xdp_link *tok;	/* the device's, for it */
	struct completion done;
};

static DEFINE_MUTEX(pd_link_mutex);	/* makes and ends the worker */
static struct kthread_worker *pd_link_worker;
/* the worker's namespace proxy while it makes a link: its net_ns switched */
static struct nsproxy *pd_link_nsp;

/* Detach link and let it go. Neither RTNL nor pn->dev_lock held. */
void pd_xdp_unlink(struct bpf_link *link)
{
	/* another holder (BPF_LINK_GET_FD_BY_ID) would keep it attached */
	if (link->ops->detach)
		link->ops->detach(link);
	bpf_link_put(link);
}

/* The worker into net (for one call), and back. */
static struct nsproxy *pd_link_enter(struct net *net)
{
	struct nsproxy *saved;

	task_lock(current);
	saved = current->nsproxy;
	pd_link_nsp->net_ns = net;
	current->nsproxy = pd_link_nsp;
	task_unlock(current);
	return saved;
}

static void pd_link_leave(struct nsproxy *saved)
{
	task_lock(current);
	current->nsproxy = saved;
	task_unlock(current);
	/* a reference taken meanwhile (setns() through a pidfd) goes first */
	while (atomic_read(&pd_link_nsp->count) > 1)
		schedule_timeout_uninterruptible(1);
	pd_link_nsp->net_ns = saved->net_ns;
}

/*
 * Whether link is what r asked for, attached where r asked: an XDP link
 * of r's program, on r's device (by the link's own account), which is in
 * r's namespace and has a link in r's mode, which is then this one (a
 * device has one per mode); that (an opaque pointer, never dereferenced)
 * in *tok: the kfunc knows the link running on a device by it.
 */
static bool pd_link_is(const struct bpf_link *link, struct pd_link_req *r)
{
	struct bpf_link_info info = {};
	struct net_device *dev = r->dev;
	enum bpf_xdp_mode m = pd_xdp_kmode(r->mode);

	if (link->type != BPF_LINK_TYPE_XDP ||
	    link->prog != r->prog->private_data ||
	    !link->ops->fill_link_info ||
	    link->ops->fill_link_info(link, &info) ||
	    info.xdp.ifindex != dev->ifindex)
		return false;
	rtnl_lock();
	r->tok = dev->reg_state == NETREG_REGISTERED &&
		 net_eq(dev_net(dev), r->net) ? dev->xdp_state[m].link : NULL;
	rtnl_unlock();
	return r->tok;
}

/* In the worker: BPF_LINK_CREATE for r, from the worker's own table. */
static struct bpf_link *pd_link_create(struct pd_link_req *r)
{
	union bpf_attr attr = {};
	struct nsproxy *saved;
	struct bpf_link *link;
	int pfd, lfd;

	pfd = get_unused_fd_flags(O_CLOEXEC);
	if (pfd < 0)
		return ERR_PTR(pfd);
	fd_install(pfd, get_file(r->prog));
	attr.link_create.prog_fd = pfd;
	attr.link_create.target_ifindex = r->dev->ifindex;
	attr.link_create.attach_type = BPF_XDP;
	attr.link_create.flags = r->mode == PD_XDP_NATIVE ? XDP_FLAGS_DRV_MODE :
							    XDP_FLAGS_SKB_MODE;
	saved = pd_link_enter(r->net);
	lfd = kern_sys_bpf(BPF_LINK_CREATE, &attr, sizeof(attr));
	pd_link_leave(saved);
	close_fd(pfd);
	if (lfd < 0)
		return ERR_PTR(lfd);
	link = bpf_link_get_from_fd(lfd);
	close_fd(lfd);
	if (IS_ERR(link))
		return link;
	if (!pd_link_is(link, r)) {
		pd_xdp_unlink(link);
		return ERR_PTR(-EINVAL);
	}
	return link;
}

static void pd_link_work(struct kthread_work *work)
{
	struct pd_link_req *r = container_of(work, struct pd_link_req, work);

	r->link = pd_link_create(r);
	complete(&r->done);
}

/* The worker, made at the first attachment. */
static struct kthread_worker *pd_link_worker_get(void)
{
	struct kthread_worker *w;
	struct task_struct *t;

	mutex_lock(&pd_link_mutex);
	w = pd_link_worker;
	if (w)
		goto out;
	pd_link_nsp = kmalloc(sizeof(*pd_link_nsp), GFP_KERNEL);
	if (!pd_link_nsp) {
		w = ERR_PTR(-ENOMEM);
		goto out;
	}
	w = kthread_create_worker(0, "pktdedup-xdp");
	if (IS_ERR(w)) {
		kfree(pd_link_nsp);
		pd_link_nsp = NULL;
		goto out;
	}
	/* the kernel threads' own namespaces, but for net_ns */
	t = w->task;
	task_lock(t);
	*pd_link_nsp = *t->nsproxy;
	task_unlock(t);
	atomic_set(&pd_link_nsp->count, 1);
	pd_link_worker = w;
out:
	mutex_unlock(&pd_link_mutex);
	return w;
}

/*
 * A bpf_link of prog on dev (held by the caller, in net) in mode, which
 * the caller alone holds, and in *tok the device's pointer to it (what
 * dev->xdp_state[] holds while it is attached); or an ERR_PTR: the
 * kernel's refusal (-EBUSY: another program there, -EOPNOTSUPP: no native
 * XDP, ...). Sleeps; takes RTNL (the caller must not hold it, nor
 * pn->dev_lock).
 */
struct bpf_link *pd_xdp_link_make(struct file *prog, struct net *net,
				  struct net_device *dev, u8 mode,
				  const struct bpf_xdp_link **tok)
{
	struct kthread_worker *w = pd_link_worker_get();
	struct pd_link_req r = {
		.prog = prog, .net = net, .dev = dev, .mode = mode,
	};

	if (IS_ERR(w))
		return ERR_CAST(w);
	kthread_init_work(&r.work, pd_link_work);
	init_completion(&r.done);
	kthread_queue_work(w, &r.work);
	wait_for_completion(&r.done);
	*tok = r.tok;
	return r.link;
}

/* At unload: the worker stopped, its proxy freed. */
void pd_xdp_link_exit(void)
{
	if (!pd_link_worker)
		return;
	kthread_destroy_worker(pd_link_worker);
	pd_link_worker = NULL;
	while (atomic_read(&pd_link_nsp->count) > 1)
		schedule_timeout_uninterruptible(1);
	kfree(pd_link_nsp);
	pd_link_nsp = NULL;
}

#endif /* PD_XDP */
