// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: the netlink commands about source addresses in the recent
 * window (GET_DISTINCT, GET_SOURCES, SET_SOURCES, GET_TOP, GET_RARE) and
 * their policies; the family itself is in netlink.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <net/genetlink.h>

#include "core/fixed.h"
#include "pktdedup.h"
#include "uapi/pktdedup.h"

static struct netlink_range_validation pd_last_range __ro_after_init = {
	.min = 1, .max = 3600 * 1000,
};

static struct netlink_range_validation pd_window_range __ro_after_init = {
	.min = 1000, .max = 3600 * 1000,
};

static struct netlink_range_validation pd_rate_range __ro_after_init = {
	.min = 1, .max = 1000000,
};

static struct netlink_range_validation pd_ring_range __ro_after_init = {
	.min = 16, .max = 65536,
};

static struct netlink_range_validation pd_support_range __ro_after_init = {
	.min = 1, .max = 999999999,
};

static struct netlink_range_validation pd_newgap_range __ro_after_init = {
	.min = 0, .max = 1ULL << 48,
};

static struct netlink_range_validation pd_newmem_range __ro_after_init = {
	.min = 8, .max = 1ULL << 30,
};

const struct nla_policy pd_distinct_policy[PKTDEDUP_A_DISTINCT_LAST_MS + 1] = {
	[PKTDEDUP_A_DISTINCT_LAST_MS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &pd_last_range),
};

const struct nla_policy pd_sources_policy[PKTDEDUP_A_SRC_NEW_GAP + 1] = {
	[PKTDEDUP_A_DISTINCT_WINDOW_MS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &pd_window_range),
	[PKTDEDUP_A_DISTINCT_SUBWINDOWS] =
		NLA_POLICY_RANGE(NLA_U32, 1, PD_WIN_MAX_SUB),
	[PKTDEDUP_A_SRC_COUNTERS] =
		NLA_POLICY_RANGE(NLA_U32, PD_SS_MIN_CAP, PD_SS_MAX_CAP),
	[PKTDEDUP_A_SRC_NEW] = NLA_POLICY_MAX(NLA_U8, 1),
	[PKTDEDUP_A_SRC_NEW_MEM] =
		NLA_POLICY_FULL_RANGE(NLA_U64, &pd_newmem_range),
	[PKTDEDUP_A_SRC_EVENT_RATE] = NLA_POLICY_FULL_RANGE(NLA_U32, &pd_rate_range),
	[PKTDEDUP_A_SRC_RING] = NLA_POLICY_FULL_RANGE(NLA_U32, &pd_ring_range),
	[PKTDEDUP_A_SRC_NEW_GAP] =
		NLA_POLICY_FULL_RANGE(NLA_U64, &pd_newgap_range),
};

const struct nla_policy pd_top_policy[PKTDEDUP_A_RARE_SUPPORT + 1] = {
	[PKTDEDUP_A_DISTINCT_LAST_MS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &pd_last_range),
	[PKTDEDUP_A_TOP_N] = NLA_POLICY_RANGE(NLA_U32, 1, 1000),
	[PKTDEDUP_A_RARE_SUPPORT] = NLA_POLICY_FULL_RANGE(NLA_U32, &pd_support_range),
};

/*
 * The state to read, and the sub-windows covering the requested span
 * (DISTINCT_LAST_MS, default the whole window); pn->lock held.
 */
static struct pd_srcs *pd_nl_srcs(struct pd_net *pn, struct genl_info *info,
				  u32 *last)
{
	struct nlattr *a = info->attrs[PKTDEDUP_A_DISTINCT_LAST_MS];
	struct pd_srcs *s;

	s = rcu_dereference_protected(pn->srcs, lockdep_is_held(&pn->lock));
	if (!s) {
		NL_SET_ERR_MSG(info->extack,
			       "no source windows in this namespace (no memory)");
		return ERR_PTR(-ENODATA);
	}
	if (a && nla_get_u32(a) > s->cfg.window_ms) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "longer than the window (dedupctl sources window)");
		return ERR_PTR(-ERANGE);
	}
	*last = pd_srcs_span(s, a ? nla_get_u32(a) : 0);
	return s;
}

static u32 pd_span_ms(const struct pd_srcs *s, u32 last)
{
	return (u32)div_u64((u64)s->cfg.window_ms * last, s->cfg.nsub);
}

/*
 * The skeleton of the reading commands: a reply of `size` bytes, the
 * state and span under pn->lock, then fill() puts the attributes.
 */
static int pd_nl_srcs_reply(struct genl_info *info, u8 cmd, size_t size,
			    int (*fill)(struct sk_buff *msg, struct pd_srcs *s,
					u32 last, struct genl_info *info))
{
	struct pd_net *pn = pd_pernet(genl_info_net(info));
	struct sk_buff *msg;
	struct pd_srcs *s;
	void *hdr = NULL;
	u32 last;
	int err;

	msg = genlmsg_new(size, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&pn->lock);
	s = pd_nl_srcs(pn, info, &last);
	err = PTR_ERR_OR_ZERO(s);
	if (!err) {
		hdr = pd_nl_put_reply(msg, info, cmd);
		err = hdr ? fill(msg, s, last, info) : -EMSGSIZE;
	}
	mutex_unlock(&pn->lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int pd_fill_distinct(struct sk_buff *msg, struct pd_srcs *s, u32 last,
			    struct genl_info *info)
{
	u64 src, dst;
	int err = pd_srcs_distinct(s, last, &src, &dst);

	if (err)
		return err;
	if (nla_put_u32(msg, PKTDEDUP_A_DISTINCT_LAST_MS, pd_span_ms(s, last)) ||
	    nla_put_u32(msg, PKTDEDUP_A_DISTINCT_WINDOW_MS, s->cfg.window_ms) ||
	    nla_put_u32(msg, PKTDEDUP_A_DISTINCT_SUBWINDOWS, s->cfg.nsub) ||
	    nla_put_u64_64bit(msg, PKTDEDUP_A_DISTINCT_SRC, src, PKTDEDUP_A_PAD) ||
	    nla_put_u64_64bit(msg, PKTDEDUP_A_DISTINCT_DST, dst, PKTDEDUP_A_PAD))
		return -EMSGSIZE;
	return 0;
}

int pd_nl_get_distinct(struct sk_buff *skb, struct genl_info *info)
{
	return pd_nl_srcs_reply(info, PKTDEDUP_CMD_GET_DISTINCT, NLMSG_GOODSIZE,
				pd_fill_distinct);
}

static int pd_put_u64(struct sk_buff *msg, int type, u64 v)
{
	return nla_put_u64_64bit(msg, type, v, PKTDEDUP_A_PAD);
}

static int pd_fill_sources(struct sk_buff *msg, struct pd_net *pn)
{
	const struct pd_src_cfg *c = &pn->src_cfg;
	struct pd_srcs *s;
	u64 seen = 0;
	int cpu;

	s = rcu_dereference_protected(pn->srcs, lockdep_is_held(&pn->lock));
	if (nla_put_u32(msg, PKTDEDUP_A_DISTINCT_WINDOW_MS, c->window_ms) ||
	    nla_put_u32(msg, PKTDEDUP_A_DISTINCT_SUBWINDOWS, c->nsub) ||
	    nla_put_u32(msg, PKTDEDUP_A_SRC_COUNTERS, c->counters) ||
	    nla_put_u8(msg, PKTDEDUP_A_SRC_NEW, c->newsrc) ||
	    pd_put_u64(msg, PKTDEDUP_A_SRC_NEW_MEM, c->newsrc_mem) ||
	    pd_put_u64(msg, PKTDEDUP_A_SRC_NEW_GAP, c->newsrc_gap) ||
	    nla_put_u32(msg, PKTDEDUP_A_SRC_EVENT_RATE, c->event_rate) ||
	    nla_put_u32(msg, PKTDEDUP_A_SRC_RING, c->ring) ||
	    pd_put_u64(msg, PKTDEDUP_A_EV_SENT, atomic64_read(&pn->ev_sent)) ||
	    pd_put_u64(msg, PKTDEDUP_A_EV_OVERRUN,
		       atomic64_read(&pn->ev_overrun)) ||
	    pd_put_u64(msg, PKTDEDUP_A_EV_RATELIMITED,
		       atomic64_read(&pn->ev_ratelimited)) ||
	    pd_put_u64(msg, PKTDEDUP_A_EV_FAILED, atomic64_read(&pn->ev_failed)) ||
	    pd_put_u64(msg, PKTDEDUP_A_EV_REPEAT, atomic64_read(&pn->ev_repeat)))
		return -EMSGSIZE;
	if (!s)
		return 0;
	if (s->cfg.newsrc)
		for_each_possible_cpu(cpu)
			seen += pd_srcs_ring_head(s, cpu);
	if (pd_put_u64(msg, PKTDEDUP_A_SRC_MEM_TOTAL, pd_srcs_mem(s)) ||
	    pd_put_u64(msg, PKTDEDUP_A_SRC_NEW_SEEN, seen))
		return -EMSGSIZE;
	if (s->cfg.newsrc &&
	    (nla_put_u32(msg, PKTDEDUP_A_PLAN_MAX, s->plan.max) ||
	     nla_put_u32(msg, PKTDEDUP_A_PLAN_K, s->plan.k) ||
	     nla_put_u32(msg, PKTDEDUP_A_PLAN_P, s->plan.p) ||
	     pd_put_u64(msg, PKTDEDUP_A_PLAN_CELLS, s->plan.cells) ||
	     nla_put_u32(msg, PKTDEDUP_A_PLAN_FP_BOUND,
			 pd_q62_to_ppb(s->plan.fp_bound)) ||
	     nla_put_u32(msg, PKTDEDUP_A_PLAN_FN,
			 pd_q62_to_ppb(s->plan.fn_rate)) ||
	     pd_put_u64(msg, PKTDEDUP_A_PLAN_GAP, s->plan.gap)))
		return -EMSGSIZE;
	return 0;
}

int pd_nl_get_sources(struct sk_buff *skb, struct genl_info *info)
{
	struct pd_net *pn = pd_pernet(genl_info_net(info));
	int err;

	mutex_lock(&pn->lock);
	err = pd_nl_reply_fill(pn, info, PKTDEDUP_CMD_GET_SOURCES,
			       pd_fill_sources);
	mutex_unlock(&pn->lock);
	return err;
}

int pd_nl_set_sources(struct sk_buff *skb, struct genl_info *info)
{
	struct pd_net *pn = pd_pernet(genl_info_net(info));
	struct nlattr **tb = info->attrs;
	struct pd_src_cfg c;
	int err;

	if (tb[PKTDEDUP_A_SRC_RING] &&
	    !is_power_of_2(nla_get_u32(tb[PKTDEDUP_A_SRC_RING]))) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[PKTDEDUP_A_SRC_RING],
				    "ring: not a power of two");
		return -EINVAL;
	}
	mutex_lock(&pn->lock);
	c = pn->src_cfg;
	if (tb[PKTDEDUP_A_DISTINCT_WINDOW_MS])
		c.window_ms = nla_get_u32(tb[PKTDEDUP_A_DISTINCT_WINDOW_MS]);
	if (tb[PKTDEDUP_A_DISTINCT_SUBWINDOWS])
		c.nsub = nla_get_u32(tb[PKTDEDUP_A_DISTINCT_SUBWINDOWS]);
	if (tb[PKTDEDUP_A_SRC_COUNTERS])
		c.counters = nla_get_u32(tb[PKTDEDUP_A_SRC_COUNTERS]);
	if (tb[PKTDEDUP_A_SRC_NEW])
		c.newsrc = nla_get_u8(tb[PKTDEDUP_A_SRC_NEW]);
	if (tb[PKTDEDUP_A_SRC_NEW_MEM])
		c.newsrc_mem = nla_get_u64(tb[PKTDEDUP_A_SRC_NEW_MEM]);
	if (tb[PKTDEDUP_A_SRC_NEW_GAP])
		c.newsrc_gap = nla_get_u64(tb[PKTDEDUP_A_SRC_NEW_GAP]);
	if (tb[PKTDEDUP_A_SRC_EVENT_RATE])
		c.event_rate = nla_get_u32(tb[PKTDEDUP_A_SRC_EVENT_RATE]);
	if (tb[PKTDEDUP_A_SRC_RING])
		c.ring = nla_get_u32(tb[PKTDEDUP_A_SRC_RING]);
	err = pd_srcs_apply(pn, &c, info->extack);
	if (!err)
		err = pd_nl_reply_fill(pn, info, PKTDEDUP_CMD_SET_SOURCES,
				       pd_fill_sources);
	mutex_unlock(&pn->lock);
	return err;
}

static int pd_put_entry(struct sk_buff *msg, const u8 *addr, u8 len, u64 lo,
			u64 hi)
{
	struct nlattr *e = nla_nest_start(msg, PKTDEDUP_A_ENTRY);

	if (!e || nla_put_u8(msg, PKTDEDUP_A_ADDR_FAMILY, len == 4 ? 4 : 6) ||
	    nla_put(msg, PKTDEDUP_A_ADDR, len, addr) ||
	    pd_put_u64(msg, PKTDEDUP_A_COUNT_HI, hi) ||
	    pd_put_u64(msg, PKTDEDUP_A_COUNT_LO, lo))
		return -EMSGSIZE;
	nla_nest_end(msg, e);
	return 0;
}

/* Room for a reply of n entries. */
static size_t pd_entries_size(u32 n)
{
	return NLMSG_GOODSIZE + (size_t)n * nla_total_size(0) +
	       (size_t)n * (nla_total_size(1) + nla_total_size(16) +
			    2 * nla_total_size_64bit(8));
}

/* TOP_N, with its default n, from a request. */
static u32 pd_top_n(struct genl_info *info, u32 n)
{
	struct nlattr *na = info->attrs[PKTDEDUP_A_TOP_N];

	return na ? nla_get_u32(na) : n;
}

static int pd_fill_top(struct sk_buff *msg, struct pd_srcs *s, u32 last,
		       struct genl_info *info)
{
	u32 n = pd_top_n(info, 10), i, put;
	struct pd_ss_agg *a;
	int err = -EMSGSIZE;

	/* keep more than asked for, so that cutting the list costs little */
	a = pd_srcs_top(s, last, max_t(u32, 4 * n, 2 * s->cfg.counters));
	if (!a)
		return -ENOMEM;
	pd_ss_agg_sort(a);
	if (nla_put_u32(msg, PKTDEDUP_A_DISTINCT_LAST_MS, pd_span_ms(s, last)) ||
	    pd_put_u64(msg, PKTDEDUP_A_TOTAL, a->total) ||
	    pd_put_u64(msg, PKTDEDUP_A_TOP_ERROR, a->absent))
		goto out;
	for (i = 0, put = 0; put < n && i < a->n; i++) {
		const struct pd_ss_item *it = &a->it[i];

		/* a counter caught while its CPU was filling it in */
		if (it->len != 4 && it->len != 16)
			continue;
		if (pd_put_entry(msg, it->addr, it->len, it->count - it->err,
				 it->count))
			goto out;
		put++;
	}
	err = 0;
out:
	kvfree(a);
	return err;
}

int pd_nl_get_top(struct sk_buff *skb, struct genl_info *info)
{
	if (info->attrs[PKTDEDUP_A_RARE_SUPPORT]) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[PKTDEDUP_A_RARE_SUPPORT],
				    "support: only for GET_RARE");
		return -EINVAL;
	}
	return pd_nl_srcs_reply(info, PKTDEDUP_CMD_GET_TOP,
				pd_entries_size(pd_top_n(info, 10)),
				pd_fill_top);
}

static int pd_fill_rare(struct sk_buff *msg, struct pd_srcs *s, u32 last,
			struct genl_info *info)
{
	struct nlattr *sa = info->attrs[PKTDEDUP_A_RARE_SUPPORT];
	u32 n = pd_top_n(info, 100), ppb = sa ? nla_get_u32(sa) : 100000;
	struct pd_src_event *cand = NULL;
	struct pd_ss_agg *a;
	int err, nc, i;
	u32 found = 0;

	if (!s->cfg.newsrc) {
		NL_SET_ERR_MSG(info->extack,
			       "rare sources need the new-source filter (dedupctl sources new on)");
		return -ENODATA;
	}
	/* every listed address keeps its bounds: room for all summaries */
	a = pd_srcs_top(s, last, s->cfg.counters * min_t(u32, s->cfg.nsub *
					num_possible_cpus(), 64));
	nc = pd_srcs_candidates(s, last, &cand);
	err = nc < 0 ? nc : -ENOMEM;
	if (!a || nc < 0)
		goto out;
	err = -EMSGSIZE;
	if (nla_put_u32(msg, PKTDEDUP_A_DISTINCT_LAST_MS, pd_span_ms(s, last)) ||
	    pd_put_u64(msg, PKTDEDUP_A_TOTAL, a->total) ||
	    nla_put_u32(msg, PKTDEDUP_A_RARE_SUPPORT, ppb) ||
	    pd_put_u64(msg, PKTDEDUP_A_RARE_SUPPORT_COUNT,
		       pd_ss_support_count(a->total, ppb)) ||
	    pd_put_u64(msg, PKTDEDUP_A_TOP_ERROR, a->absent) ||
	    nla_put_u32(msg, PKTDEDUP_A_RARE_CANDIDATES, nc))
		goto out;
	for (i = 0; i < nc; i++) {
		const struct pd_src_event *c = &cand[i];
		u64 h = pd_srcs_hash(s, c->addr, c->len), lo, hi;

		if (!pd_ss_rare(a, h, c->addr, c->len, ppb, &lo, &hi))
			continue;
		if (found++ < n && pd_put_entry(msg, c->addr, c->len, lo, hi))
			goto out;
	}
	err = nla_put_u32(msg, PKTDEDUP_A_RARE_FOUND, found) ? -EMSGSIZE : 0;
out:
	kvfree(a);
	kvfree(cand);
	return err;
}

int pd_nl_get_rare(struct sk_buff *skb, struct genl_info *info)
{
	return pd_nl_srcs_reply(info, PKTDEDUP_CMD_GET_RARE,
				pd_entries_size(pd_top_n(info, 100)),
				pd_fill_rare);
}
