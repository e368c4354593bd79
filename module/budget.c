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
	return 0;
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
	enum pd_budget_way way;

	lockdep_assert_held(&pn->lock);
	way = pd_budget_way(b->cap, total, b->held[part], need);
	if (way == PD_BUDGET_REFUSE) {
		b->refused = need;
		pd_set_err_msg(extack, pd_cap_msg[part][b->cap_source]);
		return -E2BIG;
	}
	most = way == PD_BUDGET_SWAP ? total + need :
	       total - b->held[part] + need;
	b->peak = max(b->peak, most);
	return way;
}

/* After a change: `part` now holds `bytes`. */
void pd_budget_held(struct pd_net *pn, enum pd_part part, u64 bytes)
{
	lockdep_assert_held(&pn->lock);
	pn->budget.held[part] = bytes;
	pn->budget.peak = max(pn->budget.peak, pd_budget_total(&pn->budget));
}
