// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: new-source events on the "events" multicast group.
 *
 * While the new-source filter is on, a worker runs every 100 ms: it takes
 * what the source analytics' rings gained (pd_srcs_drain(), the one
 * interface between them and this file) and, while someone listens, sends
 * each new source as a NEW_SOURCE notification, at most event-rate per
 * second (a token bucket with a second's worth of burst). What cannot be
 * sent is counted, never queued.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <net/genetlink.h>

#include "../nl_gen.h"
#include "src_internal.h"

#define PD_EV_PERIOD (HZ / 10)	/* the worker's period */

struct pd_ev_ctx {
	bool listen;
	u64 now;		/* jiffies */
	u64 now_ms;		/* wall clock */
};

/* One NEW_SOURCE notification to the "events" group of net. */
static int pd_ev_send(struct pd_net *pn, const struct pd_src_event *ev,
		      int cpu, u64 time_ms)
{
	struct sk_buff *msg;
	struct nlattr *nest;
	void *hdr;
	int err;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put(msg, 0, 0, &pd_genl_family, 0,
			  PKTDEDUP_CMD_NEW_SOURCE);
	if (!hdr)
		goto fail;
	nest = nla_nest_start(msg, PKTDEDUP_A_EVENT);
	if (!nest ||
	    nla_put(msg, PKTDEDUP_A_EVENT_ADDR, ev->len, ev->addr) ||
	    nla_put_u32(msg, PKTDEDUP_A_EVENT_CPU, cpu) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_EVENT_TIME_MS, time_ms,
			  PKTDEDUP_A_EVENT_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_EVENT_DROPPED, pd_ev_dropped(pn),
			  PKTDEDUP_A_EVENT_PAD))
		goto fail;
	nla_nest_end(msg, nest);
	genlmsg_end(msg, hdr);
	err = genlmsg_multicast_netns(&pd_genl_family, pn->net, msg, 0,
				      PD_NL_MCGRP_EVENTS, GFP_KERNEL);
	/* -ESRCH: the last listener left meanwhile; not a failure */
	return err == -ESRCH ? 0 : err;
fail:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

static void pd_ev_emit(struct pd_net *pn, const struct pd_src_event *ev,
		       int cpu, void *arg)
{
	const struct pd_ev_ctx *c = arg;
	u64 age;

	if (!c->listen)
		return;
	if (pn->src.events.credit < HZ) {
		atomic64_inc(&pn->src.ev_ratelimited);
		return;
	}
	pn->src.events.credit -= HZ;
	age = time_after64(c->now, ev->when) ?
	      jiffies64_to_msecs(c->now - ev->when) : 0;
	if (pd_ev_send(pn, ev, cpu, c->now_ms - age))
		atomic64_inc(&pn->src.ev_failed);
	else
		atomic64_inc(&pn->src.ev_sent);
}

static void pd_ev_work(struct work_struct *work)
{
	struct pd_net *pn = container_of(to_delayed_work(work), struct pd_net,
					 src.events.work);
	struct pd_ev_ctx c = {
		.now = get_jiffies_64(),
		.now_ms = div_u64(ktime_get_real_ns(), NSEC_PER_MSEC),
	};
	struct pd_srcs *s;

	mutex_lock(&pn->lock);
	s = rcu_dereference_protected(pn->srcs, lockdep_is_held(&pn->lock));
	if (!s || !s->cfg.newsrc) {
		mutex_unlock(&pn->lock);
		return;
	}
	/*
	 * A token bucket counted in event_rate x jiffies: an event costs HZ,
	 * a jiffy earns event_rate; at most a second's worth of burst.
	 */
	pn->src.events.credit = min_t(u64, pn->src.events.credit +
				  (c.now - pn->src.events.refill) *
				  s->cfg.event_rate,
				  (u64)s->cfg.event_rate * HZ);
	pn->src.events.refill = c.now;
	c.listen = genl_has_listeners(&pd_genl_family, pn->net,
				      PD_NL_MCGRP_EVENTS);
	pd_srcs_drain(pn, s, pd_ev_emit, &c);
	schedule_delayed_work(&pn->src.events.work, PD_EV_PERIOD);
	mutex_unlock(&pn->lock);
}

void pd_events_init(struct pd_net *pn)
{
	INIT_DELAYED_WORK(&pn->src.events.work, pd_ev_work);
}

/* After the source state changed (pn->lock held): run if it wants events. */
void pd_events_start(struct pd_net *pn)
{
	struct pd_srcs *s;

	lockdep_assert_held(&pn->lock);
	s = rcu_dereference_protected(pn->srcs, lockdep_is_held(&pn->lock));
	if (!s || !s->cfg.newsrc)
		return;		/* a running worker stops by itself */
	pn->src.events.refill = get_jiffies_64();
	pn->src.events.credit = (u64)s->cfg.event_rate * HZ;
	schedule_delayed_work(&pn->src.events.work, PD_EV_PERIOD);
}

/* No more packets reach the hooks: stop the worker for good. */
void pd_events_stop(struct pd_net *pn)
{
	cancel_delayed_work_sync(&pn->src.events.work);
}
