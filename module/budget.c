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
 * Creating namespaces is free, so caps per namespace alone bound nothing:
 * each namespace charges what it holds (and, while a change is built,
 * what that change will hold at its fullest) to counts shared under one
 * spinlock, and a change must fit under every cap that applies:
 *  - max_total_mem, the module across all namespaces;
 *  - for a namespace of another user namespace, max_user_mem over all
 *    namespaces whose outermost user namespace one user created (the
 *    owner as the initial user namespace knows them: nesting user
 *    namespaces, or making many, gains nothing), as the kernel's own
 *    ucounts limits count per user;
 *  - and max_total_mem less init_reserve_mem over the namespaces of all
 *    other user namespaces together: whatever local users do, the
 *    initial user namespace keeps init_reserve_mem for itself.
 * A user's count is an entry made at their namespaces' first admission
 * (memory-cgroup charged, like everything here) and freed with the last
 * of them.
 *
 * A CPU that comes up adds its part of the per-CPU state in force
 * (cpus.c): admitted, under the spinlock alone, against the same caps as
 * a change (pd_budget_cpu_admit()), or refused, and the refusal kept for
 * dedupctl show. So what a namespace holds (held[], charged, peak) is
 * written under the spinlock: by a change, which also holds pn->lock, or
 * by a CPU coming up.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hashtable.h>
#include <linux/user_namespace.h>
#include <net/net_namespace.h>

#include "pktdedup.h"

/*
 * The refusal messages, one per part and cap, with the cap in bytes:
 * extack messages must outlive the request, so they are made once.
 */
enum pd_agg { PD_AGG_TOTAL, PD_AGG_USER, PD_AGG_USERNS, PD_NAGGS };

static char pd_cap_msg[PD_NPARTS][PKTDEDUP_CAP_SOURCE_MAX + 1][192];
static char pd_agg_msg[PD_NPARTS][PD_NAGGS][224];

/* What a user's namespaces hold together (PD_AGG_USER). */
struct pd_owner {
	struct hlist_node node;
	kuid_t uid;
	u64 held;
	unsigned int refs;	/* namespaces that charge it */
};

/* The module's memory across namespaces, and its users' counts. */
static DEFINE_SPINLOCK(pd_total_lock);
static u64 pd_total_held;	/* charged by all namespaces */
static u64 pd_userns_held;	/* by those of other user namespaces */
static DEFINE_HASHTABLE(pd_owners, 6);

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

static const char *const pd_agg_what[PD_NAGGS] = {
	[PD_AGG_TOTAL] = "the module over its memory cap across all namespaces",
	[PD_AGG_USER] =
		"the namespaces of the user namespaces this namespace's owner created over their cap together",
	[PD_AGG_USERNS] =
		"the namespaces of all user namespaces but the initial one over their share",
};

static const char *const pd_agg_param[PD_NAGGS] = {
	[PD_AGG_TOTAL] = "max_total_mem",
	[PD_AGG_USER] = "max_user_mem",
	[PD_AGG_USERNS] = "max_total_mem less init_reserve_mem",
};

/* The cap of an aggregate count. */
static u64 pd_agg_cap(enum pd_agg agg)
{
	switch (agg) {
	case PD_AGG_USER:
		return pd_max_user_mem;
	case PD_AGG_USERNS:
		return pd_max_total_mem - pd_init_reserve_mem;
	default:
		return pd_max_total_mem;
	}
}

void pd_budget_msgs_init(void)
{
	int part, src, agg;

	for (part = 0; part < PD_NPARTS; part++)
		for (src = 0; src <= PKTDEDUP_CAP_SOURCE_MAX; src++)
			snprintf(pd_cap_msg[part][src], sizeof(pd_cap_msg[0][0]),
				 "%s would take this namespace over its memory cap of %llu bytes (%s); dedupctl show gives what it holds",
				 pd_part_names[part],
				 src == PKTDEDUP_CAP_SOURCE_USERNS ?
				 pd_max_userns_mem : pd_max_netns_mem,
				 pd_cap_why[src]);
	for (part = 0; part < PD_NPARTS; part++)
		for (agg = 0; agg < PD_NAGGS; agg++)
			snprintf(pd_agg_msg[part][agg], sizeof(pd_agg_msg[0][0]),
				 "%s would take %s, %llu bytes (%s); dedupctl show gives what is held",
				 pd_part_names[part], pd_agg_what[agg],
				 pd_agg_cap(agg), pd_agg_param[agg]);
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

/* A copy of b, its counts consistent (readers: show, /proc). */
void pd_budget_copy(const struct pd_budget *b, struct pd_budget *out)
{
	spin_lock(&pd_total_lock);
	*out = *b;
	spin_unlock(&pd_total_lock);
}

/* What b's user's namespaces, and all other user namespaces', hold. */
void pd_budget_report(const struct pd_budget *b, u64 *user_held,
		      u64 *userns_held)
{
	spin_lock(&pd_total_lock);
	*user_held = b->owner ? b->owner->held : 0;
	*userns_held = pd_userns_held;
	spin_unlock(&pd_total_lock);
}

/* The counts b charges, and what is held in each. pd_total_lock held. */
static unsigned int pd_aggs(struct pd_budget *b, u64 **held)
{
	unsigned int n = 0;

	lockdep_assert_held(&pd_total_lock);
	held[n++] = &pd_total_held;
	if (b->owner) {
		held[n++] = &b->owner->held;
		held[n++] = &pd_userns_held;
	}
	return n;
}

/* Charge `now` instead of what b charged. pd_total_lock held. */
static void pd_charge(struct pd_budget *b, u64 now)
{
	u64 *held[PD_NAGGS];
	unsigned int i, n = pd_aggs(b, held);

	for (i = 0; i < n; i++)
		*held[i] = *held[i] - b->charged + now;
	b->charged = now;
}

/* Charge what pn holds, and nothing more, to the shared counts. */
static void pd_budget_sync(struct pd_net *pn)
{
	struct pd_budget *b = &pn->budget;

	spin_lock(&pd_total_lock);
	pd_charge(b, pd_budget_total(b));
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
	struct pd_budget *b = &pn->budget;
	struct pd_owner *gone = NULL;

	spin_lock(&pd_total_lock);
	pd_charge(b, 0);
	if (b->owner && !--b->owner->refs) {
		gone = b->owner;
		hash_del(&gone->node);
	}
	b->owner = NULL;
	spin_unlock(&pd_total_lock);
	kfree(gone);
}

/* The user who created the outermost user namespace of ns. */
static kuid_t pd_userns_owner(const struct user_namespace *ns)
{
	while (ns->parent && ns->parent != &init_user_ns)
		ns = ns->parent;
	return ns->owner;
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
		b->userns = true;
		b->uid = pd_userns_owner(net->user_ns);
	}
}

/*
 * A namespace of another user namespace: its user's count, made at its
 * first admission. 0, or -ENOMEM. pn->lock held.
 */
static int pd_budget_owner(struct pd_budget *b)
{
	struct pd_owner *o, *mine;
	u32 key = __kuid_val(b->uid);

	if (!b->userns || b->owner)
		return 0;
	mine = kzalloc(sizeof(*mine), PD_GFP);
	if (!mine)
		return -ENOMEM;
	spin_lock(&pd_total_lock);
	hash_for_each_possible(pd_owners, o, node, key)
		if (uid_eq(o->uid, b->uid))
			break;
	if (!o) {
		o = mine;
		mine = NULL;
		o->uid = b->uid;
		hash_add(pd_owners, &o->node, key);
	}
	o->refs++;
	b->owner = o;
	spin_unlock(&pd_total_lock);
	kfree(mine);
	return 0;
}

u64 pd_budget_total(const struct pd_budget *b)
{
	u64 sum = 0;
	int i;

	for (i = 0; i < PD_NPARTS; i++)
		sum += b->held[i];
	return sum;
}

/* Which aggregate held[i] of pd_aggs() is. */
static enum pd_agg pd_agg_of(unsigned int i)
{
	return i == 0 ? PD_AGG_TOTAL : i == 1 ? PD_AGG_USER : PD_AGG_USERNS;
}

/* The refusal an aggregate's cap makes (enum pktdedup_refusal). */
static u8 pd_agg_refusal(enum pd_agg agg)
{
	return agg == PD_AGG_TOTAL ? PKTDEDUP_REFUSAL_TOTAL :
	       agg == PD_AGG_USER ? PKTDEDUP_REFUSAL_USER :
	       PKTDEDUP_REFUSAL_USERNS;
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
	u64 total, most, *held[PD_NAGGS];
	enum pd_budget_way way, all;
	unsigned int i, n;

	lockdep_assert_held(&pn->lock);
	spin_lock(&pd_total_lock);
	way = pd_budget_way(b->cap, pd_budget_total(b), b->held[part], need);
	spin_unlock(&pd_total_lock);
	if (way == PD_BUDGET_REFUSE)
		goto refuse;
	if (pd_budget_owner(b)) {
		NL_SET_ERR_MSG(extack, "out of memory");
		return -ENOMEM;
	}
	/*
	 * The same question for each count the namespace is part of, and
	 * its own cap again: a CPU may have come up meanwhile
	 */
	spin_lock(&pd_total_lock);
	total = pd_budget_total(b);
	way = pd_budget_way(b->cap, total, b->held[part], need);
	if (way == PD_BUDGET_REFUSE) {
		spin_unlock(&pd_total_lock);
		goto refuse;
	}
	n = pd_aggs(b, held);
	for (i = 0; i < n; i++) {
		all = pd_budget_way(pd_agg_cap(pd_agg_of(i)), *held[i],
				    b->held[part], need);
		if (all == PD_BUDGET_REFUSE) {
			spin_unlock(&pd_total_lock);
			b->refused = need;
			b->why = pd_agg_refusal(pd_agg_of(i));
			pd_set_err_msg(extack, pd_agg_msg[part][pd_agg_of(i)]);
			return -E2BIG;
		}
		if (all == PD_BUDGET_IN_PLACE)
			way = PD_BUDGET_IN_PLACE;
	}
	most = way == PD_BUDGET_SWAP ? total + need :
	       total - b->held[part] + need;
	/* charged until the change settles (pd_budget_held, _settle) */
	if (most > b->charged)
		pd_charge(b, most);
	b->peak = max(b->peak, most);
	spin_unlock(&pd_total_lock);
	return way;
refuse:
	b->refused = need;
	b->why = PKTDEDUP_REFUSAL_CAP;
	pd_set_err_msg(extack, pd_cap_msg[part][b->cap_source]);
	return -E2BIG;
}

/*
 * pd_budget_admit()'s question alone, for a request that is only checked
 * (config check): 0 or -E2BIG with the same extack message, nothing
 * charged, no peak raised, no refusal kept, no owner's count made (a
 * namespace before its first admission: alone under its user's share, as
 * pd_budget_fits() asks). pn->lock held.
 */
int pd_budget_try(struct pd_net *pn, enum pd_part part, u64 need,
		  struct netlink_ext_ack *extack)
{
	struct pd_budget *b = &pn->budget;
	u64 *held[PD_NAGGS];
	enum pd_agg agg;
	unsigned int i, n;
	int err = 0;

	lockdep_assert_held(&pn->lock);
	spin_lock(&pd_total_lock);
	if (pd_budget_way(b->cap, pd_budget_total(b), b->held[part], need) ==
	    PD_BUDGET_REFUSE) {
		pd_set_err_msg(extack, pd_cap_msg[part][b->cap_source]);
		err = -E2BIG;
		goto out;
	}
	n = pd_aggs(b, held);
	for (i = 0; i < n; i++) {
		agg = pd_agg_of(i);
		if (pd_budget_way(pd_agg_cap(agg), *held[i], b->held[part],
				  need) == PD_BUDGET_REFUSE) {
			pd_set_err_msg(extack, pd_agg_msg[part][agg]);
			err = -E2BIG;
			goto out;
		}
	}
	if (b->userns && !b->owner) {
		agg = need > pd_agg_cap(PD_AGG_USER) ? PD_AGG_USER :
		      pd_userns_held > pd_agg_cap(PD_AGG_USERNS) ||
		      need > pd_agg_cap(PD_AGG_USERNS) - pd_userns_held ?
		      PD_AGG_USERNS : PD_AGG_TOTAL;
		if (agg != PD_AGG_TOTAL) {
			pd_set_err_msg(extack, pd_agg_msg[part][agg]);
			err = -E2BIG;
		}
	}
out:
	spin_unlock(&pd_total_lock);
	return err;
}

/*
 * A CPU came up (cpus.c): may part, in force, grow by `bytes` for it?
 * 0, charged; or the refusal (enum pktdedup_refusal + 1), kept for
 * dedupctl show. Without pn->lock: the hotplug callback must not wait
 * for a change.
 */
int pd_budget_cpu_admit(struct pd_net *pn, enum pd_part part, u64 bytes)
{
	struct pd_budget *b = &pn->budget;
	u64 now, cap, *held[PD_NAGGS];
	unsigned int i, n;
	int why = 0;

	spin_lock(&pd_total_lock);
	now = max(b->charged, pd_budget_total(b));
	if (now > b->cap || bytes > b->cap - now)
		why = PKTDEDUP_REFUSAL_CAP + 1;
	n = pd_aggs(b, held);
	for (i = 0; i < n && !why; i++) {
		cap = pd_agg_cap(pd_agg_of(i));
		if (*held[i] - b->charged + now > cap ||
		    bytes > cap - (*held[i] - b->charged + now))
			why = pd_agg_refusal(pd_agg_of(i)) + 1;
	}
	if (why) {
		b->cpu_refused = true;
		b->cpu_why = why - 1;
		b->cpu_need = bytes;
	} else {
		b->held[part] += bytes;
		pd_charge(b, now + bytes);
		b->peak = max(b->peak, now + bytes);
	}
	spin_unlock(&pd_total_lock);
	return why;
}

/* That CPU's allocation failed after its admission: nothing held for it. */
void pd_budget_cpu_undo(struct pd_net *pn, enum pd_part part, u64 bytes)
{
	struct pd_budget *b = &pn->budget;

	spin_lock(&pd_total_lock);
	b->held[part] -= bytes;
	pd_charge(b, b->charged - bytes);
	b->cpu_refused = true;
	b->cpu_why = PKTDEDUP_REFUSAL_NOMEM;
	b->cpu_need = bytes;
	spin_unlock(&pd_total_lock);
}

/*
 * Whether pn could hold `need` bytes in all, its parts replaced, under
 * every count it is part of (what the others hold now).
 */
bool pd_budget_fits(struct pd_net *pn, u64 need)
{
	struct pd_budget *b = &pn->budget;
	u64 *held[PD_NAGGS], cap;
	unsigned int i, n;
	bool fits = need <= b->cap;

	spin_lock(&pd_total_lock);
	n = pd_aggs(b, held);
	for (i = 0; i < n && fits; i++) {
		cap = pd_agg_cap(pd_agg_of(i));
		fits = need <= cap && *held[i] - b->charged <= cap - need;
	}
	/* before its first admission: alone under its user's share */
	if (fits && b->userns && !b->owner)
		fits = need <= pd_agg_cap(PD_AGG_USER) &&
		       need <= pd_agg_cap(PD_AGG_USERNS) &&
		       pd_userns_held <= pd_agg_cap(PD_AGG_USERNS) - need;
	spin_unlock(&pd_total_lock);
	return fits;
}

/*
 * An idle instance keeps settings for later: refuse now those that could
 * never fit, `part` alone taking more than a cap. Nothing is charged.
 */
int pd_budget_check_alone(struct pd_net *pn, enum pd_part part, u64 need,
			  struct netlink_ext_ack *extack)
{
	struct pd_budget *b = &pn->budget;
	enum pd_agg agg = PD_AGG_TOTAL;

	lockdep_assert_held(&pn->lock);
	if (need > b->cap) {
		b->refused = need;
		b->why = PKTDEDUP_REFUSAL_CAP;
		pd_set_err_msg(extack, pd_cap_msg[part][b->cap_source]);
		return -E2BIG;
	}
	if (b->userns && need > pd_agg_cap(PD_AGG_USER))
		agg = PD_AGG_USER;
	else if (b->userns && need > pd_agg_cap(PD_AGG_USERNS))
		agg = PD_AGG_USERNS;
	else if (need <= pd_max_total_mem)
		return 0;
	b->refused = need;
	b->why = pd_agg_refusal(agg);
	pd_set_err_msg(extack, pd_agg_msg[part][agg]);
	return -E2BIG;
}

/* After a change: `part` now holds `bytes`. */
void pd_budget_held(struct pd_net *pn, enum pd_part part, u64 bytes)
{
	struct pd_budget *b = &pn->budget;

	lockdep_assert_held(&pn->lock);
	spin_lock(&pd_total_lock);
	b->held[part] = bytes;
	b->peak = max(b->peak, pd_budget_total(b));
	pd_charge(b, pd_budget_total(b));
	spin_unlock(&pd_total_lock);
}
