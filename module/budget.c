// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: the memory budget of a namespace.
 *
 * One cap covers everything an instance holds: its filters and its source
 * windows (with their rings and new-source filters). The cap comes from
 * the user namespace that owns the network namespace: max_netns_mem for
 * the initial one, max_userns_mem (by default at most 1/32 of RAM) for
 * any other, so that the host's administrator decides what a container,
 * or any user with "unshare -Urn", may pin. A change is admitted or
 * refused on arithmetic alone, before anything is allocated, counting the
 * moment old and new state are both held (core/budget.c decides whether
 * the old state must go first). Everything is updated under pn->lock.
 *
 * A second cap, max_total_mem, covers the module across all namespaces:
 * each namespace charges what it holds (and, while a change is built,
 * what that change will hold at its fullest) to one global count under a
 * spinlock, and a change must fit both caps.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/user_namespace.h>
#include <net/net_namespace.h>

#include "pktdedup.h"

/*
 * The refusal messages, one per part and cap source, with the cap in
 * bytes: extack messages must outlive the request, so they are made once.
 */
static char pd_cap_msg[PD_NPARTS][PKTDEDUP_CAP_SOURCE_MAX + 1][192];
static char pd_total_msg[PD_NPARTS][192];

/* The module's memory across all namespaces. */
static DEFINE_SPINLOCK(pd_total_lock);
static u64 pd_total_held;	/* charged by all namespaces */

static const char *const pd_part_names[PD_NPARTS] = {
	[PD_PART_FILTERS] = "the filters",
	[PD_PART_SOURCES] = "the source windows",
};

static const char *const pd_cap_why[PKTDEDUP_CAP_SOURCE_MAX + 1] = {
	[PKTDEDUP_CAP_SOURCE_INIT_USERNS] =
		"max_netns_mem, for namespaces of the initial user namespace",
	[PKTDEDUP_CAP_SOURCE_USERNS] =
		"max_userns_mem, for namespaces of other user namespaces",
};

int pd_budget_msgs_init(void)
{
	int part, src;

	for (part = 0; part < PD_NPARTS; part++)
		for (src = 0; src <= PKTDEDUP_CAP_SOURCE_MAX; src++)
			snprintf(pd_cap_msg[part][src], sizeof(pd_cap_msg[0][0]),
				 "%s would take this namespace over its memory cap of %llu bytes (%s); dedupctl show gives what it holds",
				 pd_part_names[part],
				 src == PKTDEDUP_CAP_SOURCE_USERNS ?
				 pd_max_userns_mem : pd_max_netns_mem,
				 pd_cap_why[src]);
	for (part = 0; part < PD_NPARTS; part++)
		snprintf(pd_total_msg[part], sizeof(pd_total_msg[0]),
			 "%s would take the module over its memory cap across all namespaces, %llu bytes (max_total_mem); dedupctl show gives what is held",
			 pd_part_names[part], pd_max_total_mem);
	return 0;
}

/* Bytes charged to the global count by all namespaces now. */
u64 pd_budget_total_held(void)
{
	u64 held;

	spin_lock(&pd_total_lock);
	held = pd_total_held;
	spin_unlock(&pd_total_lock);
	return held;
}

/* Charge what pn holds, and nothing more, to the global count. */
static void pd_budget_sync(struct pd_net *pn)
{
	struct pd_budget *b = &pn->budget;
	u64 now = pd_budget_total(b);

	spin_lock(&pd_total_lock);
	pd_total_held = pd_total_held - b->charged + now;
	b->charged = now;
	spin_unlock(&pd_total_lock);
}

/* A change was refused or failed after its admission: charge what is held. */
void pd_budget_settle(struct pd_net *pn)
{
	lockdep_assert_held(&pn->lock);
	pd_budget_sync(pn);
}

/* The namespace goes away: it holds nothing any more. */
void pd_budget_release(struct pd_net *pn)
{
	spin_lock(&pd_total_lock);
	pd_total_held -= pn->budget.charged;
	pn->budget.charged = 0;
	spin_unlock(&pd_total_lock);
}

void pd_budget_init(struct pd_budget *b, const struct net *net)
{
	memset(b, 0, sizeof(*b));
	if (net->user_ns == &init_user_ns) {
		b->cap = pd_max_netns_mem;
		b->cap_source = PKTDEDUP_CAP_SOURCE_INIT_USERNS;
	} else {
		b->cap = pd_max_userns_mem;
		b->cap_source = PKTDEDUP_CAP_SOURCE_USERNS;
	}
}

u64 pd_budget_total(const struct pd_budget *b)
{
	u64 sum = 0;
	int i;

	for (i = 0; i < PD_NPARTS; i++)
		sum += b->held[i];
	return sum;
}

/*
 * May `part` be replaced by one of `need` bytes? PD_BUDGET_SWAP or
 * PD_BUDGET_IN_PLACE (the caller frees the old part first), or -E2BIG
 * with the cap in the extack message (and `need` kept for dedupctl show).
 * The peak is raised to what the chosen way will hold at its fullest.
 */
int pd_budget_admit(struct pd_net *pn, enum pd_part part, u64 need,
		    struct netlink_ext_ack *extack)
{
	struct pd_budget *b = &pn->budget;
	u64 total = pd_budget_total(b), most;
	enum pd_budget_way way, all;

	lockdep_assert_held(&pn->lock);
	way = pd_budget_way(b->cap, total, b->held[part], need);
	if (way == PD_BUDGET_REFUSE) {
		b->refused = need;
		pd_set_err_msg(extack, pd_cap_msg[part][b->cap_source]);
		return -E2BIG;
	}
	/* the same question for the module, charged by all namespaces */
	spin_lock(&pd_total_lock);
	all = pd_budget_way(pd_max_total_mem, pd_total_held, b->held[part],
			    need);
	if (all == PD_BUDGET_REFUSE) {
		spin_unlock(&pd_total_lock);
		b->refused = need;
		pd_set_err_msg(extack, pd_total_msg[part]);
		return -E2BIG;
	}
	if (all == PD_BUDGET_IN_PLACE)
		way = PD_BUDGET_IN_PLACE;
	most = way == PD_BUDGET_SWAP ? total + need :
	       total - b->held[part] + need;
	/* charged until the change settles (pd_budget_held, _settle) */
	if (most > b->charged) {
		pd_total_held += most - b->charged;
		b->charged = most;
	}
	spin_unlock(&pd_total_lock);
	b->peak = max(b->peak, most);
	return way;
}

/*
 * An idle instance keeps settings for later: refuse now those that could
 * never fit, `part` alone taking more than either cap. Nothing is charged.
 */
int pd_budget_check_alone(struct pd_net *pn, enum pd_part part, u64 need,
			  struct netlink_ext_ack *extack)
{
	struct pd_budget *b = &pn->budget;

	lockdep_assert_held(&pn->lock);
	if (need > b->cap) {
		b->refused = need;
		pd_set_err_msg(extack, pd_cap_msg[part][b->cap_source]);
		return -E2BIG;
	}
	if (need > pd_max_total_mem) {
		b->refused = need;
		pd_set_err_msg(extack, pd_total_msg[part]);
		return -E2BIG;
	}
	return 0;
}

/* After a change: `part` now holds `bytes`. */
void pd_budget_held(struct pd_net *pn, enum pd_part part, u64 bytes)
{
	lockdep_assert_held(&pn->lock);
	pn->budget.held[part] = bytes;
	pn->budget.peak = max(pn->budget.peak, pd_budget_total(&pn->budget));
	pd_budget_sync(pn);
}
