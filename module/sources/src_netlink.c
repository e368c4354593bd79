// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: the netlink commands about source addresses in the recent
 * window (GET_DISTINCT, GET_SOURCES, SET_SOURCES, GET_TOP, GET_RARE), on
 * the request/reply path of ../nl_family.c.
 *
 * The reading commands (GET_DISTINCT, GET_TOP, GET_RARE) walk every CPU's
 * sketches and summaries: they take no namespace lock that a change or
 * the device notifier waits for, but a reference to the state in force
 * (pd_srcs_get()) and the readers' own lock (pd_src_net.read_lock), one
 * request at a time. The buffers they need (the merged summaries of
 * GET_TOP and GET_RARE, the candidates of GET_RARE) are charged to the
 * caller's memory cgroup and fail rather than invoke the OOM killer
 * (PD_GFP); each is at most the size of what it summarises, which the
 * namespace's cap bounds.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <net/genetlink.h>

#include "../core/fixed.h"
#include "../core/hllpg.h"
#include "../nl_gen.h"
#include "src_internal.h"

/* Top talkers are opt-in: counters 0, the default, is off. */
#define PD_TOP_OFF_MSG \
	"top talkers are off in this namespace (dedupctl sources counters 128 turns them on)"

/* What a reading command gathers. */
struct pd_src_req {
	bool locked;		/* holds pn->src.read_lock */
	struct pd_srcs *s;	/* a reference */
	u32 last;		/* sub-windows covering the span */
	u32 count;		/* entries to list */
	u32 support;		/* ppb */
	u64 src, dst;		/* distinct counts */
	struct pd_ss_agg *agg;
	struct pd_src_event *cand;
	int ncand;
	u32 found;		/* rare candidates */
};

/* The readers' lock and a reference to the state in force, or why not. */
static int pd_src_state(struct pd_nl_req *req)
{
	struct pd_src_req *r = req->data;
	struct pd_net *pn = req->pn;

	if (mutex_lock_killable(&pn->src.read_lock))
		return -EINTR;
	r->locked = true;
	r->s = pd_srcs_get(pn);
	if (!r->s) {
		/* why: read without pn->lock, a change may be under way */
		if (!data_race(pn->src.cfg.enabled))
			NL_SET_ERR_MSG(req->extack,
				       "source analytics are off in this namespace (dedupctl sources on turns them on)");
		/* the same: a message, whichever way a change goes */
		else if (data_race(pn->active))
			NL_SET_ERR_MSG(req->extack,
				       "no source windows in this namespace (no room for them)");
		else
			NL_SET_ERR_MSG(req->extack,
				       "the instance is idle in this namespace: no source windows (dedupctl enable starts it)");
		return -ENODATA;
	}
	return 0;
}

/* The state in force, and the sub-windows covering the window nest's span. */
static int pd_src_span(struct pd_nl_req *req)
{
	struct nlattr *tb[PKTDEDUP_A_WINDOW_MAX + 1], *a;
	struct pd_src_req *r = req->data;
	int err;

	err = pd_nl_nest(req, PKTDEDUP_A_WINDOW, pd_window_nl_policy,
			 PKTDEDUP_A_WINDOW_MAX, tb);
	if (!err)
		err = pd_src_state(req);
	if (err)
		return err;
	a = tb[PKTDEDUP_A_WINDOW_LAST_MS];
	if (a && nla_get_u32(a) > r->s->cfg.window_ms) {
		NL_SET_ERR_MSG_ATTR(req->extack, a,
				    "longer than the window (dedupctl sources window)");
		return -ERANGE;
	}
	r->last = pd_srcs_span(r->s, a ? nla_get_u32(a) : 0);
	return 0;
}

static int pd_put_window(struct sk_buff *msg, const struct pd_src_req *r)
{
	struct nlattr *nest = nla_nest_start(msg, PKTDEDUP_A_WINDOW);
	u32 ms = (u32)div_u64((u64)r->s->cfg.window_ms * r->last,
			      r->s->cfg.nsub);

	if (!nest || nla_put_u32(msg, PKTDEDUP_A_WINDOW_LAST_MS, ms))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/* What pd_src_span() took. */
static void pd_cleanup_src(struct pd_nl_req *req)
{
	struct pd_src_req *r = req->data;

	if (r->s)
		pd_srcs_put(r->s);
	if (r->locked)
		mutex_unlock(&req->pn->src.read_lock);
}

/* ---- GET_DISTINCT ---- */

static int pd_prepare_distinct(struct pd_nl_req *req)
{
	struct pd_src_req *r = req->data;
	int err = pd_src_span(req);

	return err ? err : pd_srcs_distinct(r->s, r->last, &r->src, &r->dst);
}

static int pd_fill_distinct(struct sk_buff *msg, struct pd_nl_req *req)
{
	const struct pd_src_req *r = req->data;
	struct nlattr *nest;

	if (pd_put_window(msg, r))
		return -EMSGSIZE;
	nest = nla_nest_start(msg, PKTDEDUP_A_DISTINCT);
	if (!nest ||
	    nla_put_u32(msg, PKTDEDUP_A_DISTINCT_WINDOW_MS, r->s->cfg.window_ms) ||
	    nla_put_u32(msg, PKTDEDUP_A_DISTINCT_SUBWINDOWS, r->s->cfg.nsub) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_DISTINCT_SRC, r->src,
			  PKTDEDUP_A_DISTINCT_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_DISTINCT_DST, r->dst,
			  PKTDEDUP_A_DISTINCT_PAD))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static const struct pd_nl_cmd pd_cmd_get_distinct = {
	.reply_cmd = PKTDEDUP_CMD_GET_DISTINCT,
	.unlocked = true,
	.data_size = sizeof(struct pd_src_req),
	.prepare = pd_prepare_distinct,
	.fill = pd_fill_distinct,
	.cleanup = pd_cleanup_src,
};

int pd_nl_get_distinct_doit(struct sk_buff *skb, struct genl_info *info)
{
	return pd_nl_do(&pd_cmd_get_distinct, skb, info);
}

/* ---- GET_SKETCH ---- */

/* One sub-window's sketches, merged and encoded (core/hllpg.h). */
struct pd_sketch_req {
	struct pd_src_req src;		/* first: pd_src_state() reads it */
	u64 tick, now;
	u64 start_ns, end_ns;
	struct pd_hll *u;		/* sources, destinations */
	u8 *enc;			/* their encodings, PD_HLLPG_MAX each */
	u32 len[2];
};

static int pd_prepare_sketch(struct pd_nl_req *req)
{
	struct nlattr *tb[PKTDEDUP_A_SKETCH_MAX + 1], *a;
	struct pd_sketch_req *r = req->data;
	struct pd_srcs *s;
	int err, i;

	err = pd_nl_nest(req, PKTDEDUP_A_SKETCH, pd_sketch_nl_policy,
			 PKTDEDUP_A_SKETCH_MAX, tb);
	if (!err)
		err = pd_src_state(req);
	if (err)
		return err;
	s = r->src.s;
	r->now = pd_srcs_tick(s);
	a = tb[PKTDEDUP_A_SKETCH_TICK];
	r->tick = a ? nla_get_u64(a) : r->now;
	if (r->tick > r->now || r->now - r->tick >= s->cfg.nsub) {
		NL_SET_ERR_MSG_ATTR(req->extack, a,
				    "not a sub-window of the window: one of the last subwindows up to now (a reply's now and subwindows)");
		return -ERANGE;
	}
	r->start_ns = pd_srcs_tick_start(s, r->tick);
	r->end_ns = pd_srcs_tick_start(s, r->tick + 1);
	r->u = kvzalloc(2 * sizeof(*r->u), PD_GFP);
	r->enc = kvmalloc(2 * PD_HLLPG_MAX, PD_GFP);
	if (!r->u || !r->enc)
		return -ENOMEM;
	pd_srcs_merge(s, r->tick, 1, r->u);
	for (i = 0; i < 2; i++)
		r->len[i] = pd_hllpg_encode(&r->u[i], r->enc + i * PD_HLLPG_MAX);
	return 0;
}

static size_t pd_sketch_size(const struct pd_nl_req *req)
{
	const struct pd_sketch_req *r = req->data;

	return NLMSG_GOODSIZE + nla_total_size(r->len[0]) +
	       nla_total_size(r->len[1]);
}

static int pd_fill_sketch(struct sk_buff *msg, struct pd_nl_req *req)
{
	const struct pd_sketch_req *r = req->data;
	const struct pd_srcs *s = r->src.s;
	struct nlattr *nest = nla_nest_start(msg, PKTDEDUP_A_SKETCH);

	if (!nest ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_SKETCH_TICK, r->tick,
			  PKTDEDUP_A_SKETCH_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_SKETCH_NOW, r->now,
			  PKTDEDUP_A_SKETCH_PAD) ||
	    nla_put_u32(msg, PKTDEDUP_A_SKETCH_SUBWINDOWS, s->cfg.nsub) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_SKETCH_START_NS, r->start_ns,
			  PKTDEDUP_A_SKETCH_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_SKETCH_END_NS, r->end_ns,
			  PKTDEDUP_A_SKETCH_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_SKETCH_FINGERPRINT,
			  pd_akey_fingerprint(&s->key), PKTDEDUP_A_SKETCH_PAD) ||
	    nla_put_u8(msg, PKTDEDUP_A_SKETCH_FLEET, s->cfg.key_set) ||
	    nla_put(msg, PKTDEDUP_A_SKETCH_SRC, r->len[0], r->enc) ||
	    nla_put(msg, PKTDEDUP_A_SKETCH_DST, r->len[1],
		    r->enc + PD_HLLPG_MAX))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static void pd_cleanup_sketch(struct pd_nl_req *req)
{
	struct pd_sketch_req *r = req->data;

	kvfree(r->u);
	kvfree(r->enc);
	pd_cleanup_src(req);
}

static const struct pd_nl_cmd pd_cmd_get_sketch = {
	.reply_cmd = PKTDEDUP_CMD_GET_SKETCH,
	.unlocked = true,
	.data_size = sizeof(struct pd_sketch_req),
	.prepare = pd_prepare_sketch,
	.reply_size = pd_sketch_size,
	.fill = pd_fill_sketch,
	.cleanup = pd_cleanup_sketch,
};

int pd_nl_get_sketch_doit(struct sk_buff *skb, struct genl_info *info)
{
	return pd_nl_do(&pd_cmd_get_sketch, skb, info);
}

/* ---- GET_SOURCES, SET_SOURCES ---- */

static int pd_fill_sources(struct sk_buff *msg, struct pd_nl_req *req)
{
	struct pd_net *pn = req->pn;
	const struct pd_src_cfg *c = &pn->src.cfg;
	struct nlattr *nest;
	struct pd_srcs *s;
	u64 seen = 0;
	int cpu;

	s = rcu_dereference_protected(pn->srcs, lockdep_is_held(&pn->lock));
	nest = nla_nest_start(msg, PKTDEDUP_A_SOURCES);
	if (!nest ||
	    nla_put_u32(msg, PKTDEDUP_A_SOURCES_WINDOW_MS, c->window_ms) ||
	    nla_put_u32(msg, PKTDEDUP_A_SOURCES_SUBWINDOWS, c->nsub) ||
	    nla_put_u32(msg, PKTDEDUP_A_SOURCES_COUNTERS, c->counters) ||
	    nla_put_u8(msg, PKTDEDUP_A_SOURCES_NEW, c->newsrc) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_SOURCES_NEW_MEM, c->newsrc_mem,
			  PKTDEDUP_A_SOURCES_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_SOURCES_NEW_GAP, c->newsrc_gap,
			  PKTDEDUP_A_SOURCES_PAD) ||
	    nla_put_u32(msg, PKTDEDUP_A_SOURCES_EVENT_RATE, c->event_rate) ||
	    nla_put_u32(msg, PKTDEDUP_A_SOURCES_RING, c->ring) ||
	    nla_put_u8(msg, PKTDEDUP_A_SOURCES_ENABLED, c->enabled) ||
	    nla_put_u8(msg, PKTDEDUP_A_SOURCES_KEY_FLEET, c->key_set) ||
	    /* the key of the state in force, else the one set */
	    ((s || c->key_set) &&
	     pd_nl_put_u64(msg, PKTDEDUP_A_SOURCES_KEY_FINGERPRINT,
			   pd_akey_fingerprint(s ? &s->key : &c->key),
			   PKTDEDUP_A_SOURCES_PAD)))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	if (s) {
		if (s->cfg.newsrc)
			for_each_possible_cpu(cpu)
				seen += pd_srcs_ring_head(s, cpu);
		nest = nla_nest_start(msg, PKTDEDUP_A_SOURCE_STATE);
		if (!nest ||
		    pd_nl_put_u64(msg, PKTDEDUP_A_SOURCE_STATE_MEM_TOTAL,
				  pd_srcs_mem(s), PKTDEDUP_A_SOURCE_STATE_PAD) ||
		    pd_nl_put_u64(msg, PKTDEDUP_A_SOURCE_STATE_NEW_SEEN, seen,
				  PKTDEDUP_A_SOURCE_STATE_PAD) ||
		    (s->cfg.newsrc &&
		     pd_nl_put_plan(msg, PKTDEDUP_A_SOURCE_STATE_NEW_FILTER,
				    &s->plan)))
			return -EMSGSIZE;
		nla_nest_end(msg, nest);
	}
	nest = nla_nest_start(msg, PKTDEDUP_A_EVENTS);
	if (!nest ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_EVENTS_SENT,
			  atomic64_read(&pn->src.ev_sent), PKTDEDUP_A_EVENTS_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_EVENTS_OVERRUN,
			  atomic64_read(&pn->src.ev_overrun), PKTDEDUP_A_EVENTS_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_EVENTS_RATELIMITED,
			  atomic64_read(&pn->src.ev_ratelimited),
			  PKTDEDUP_A_EVENTS_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_EVENTS_FAILED,
			  atomic64_read(&pn->src.ev_failed), PKTDEDUP_A_EVENTS_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_EVENTS_REPEAT,
			  atomic64_read(&pn->src.ev_repeat), PKTDEDUP_A_EVENTS_PAD))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/*
 * The request's sources nest over *c (the settings in force): each
 * attribute present replaces its setting. SET_SOURCES and SET_CONFIG
 * (nl_config.c) read it alike.
 */
int pd_nl_sources_read(struct pd_nl_req *req, struct pd_src_cfg *c)
{
	struct nlattr *tb[PKTDEDUP_A_SOURCES_MAX + 1];
	int err;

	err = pd_nl_nest(req, PKTDEDUP_A_SOURCES, pd_sources_nl_policy,
			 PKTDEDUP_A_SOURCES_MAX, tb);
	if (err)
		return err;
	if (tb[PKTDEDUP_A_SOURCES_RING] &&
	    !is_power_of_2(nla_get_u32(tb[PKTDEDUP_A_SOURCES_RING]))) {
		NL_SET_ERR_MSG_ATTR(req->extack, tb[PKTDEDUP_A_SOURCES_RING],
				    "ring: not a power of two");
		return -EINVAL;
	}
	if (tb[PKTDEDUP_A_SOURCES_WINDOW_MS])
		c->window_ms = nla_get_u32(tb[PKTDEDUP_A_SOURCES_WINDOW_MS]);
	if (tb[PKTDEDUP_A_SOURCES_SUBWINDOWS])
		c->nsub = nla_get_u32(tb[PKTDEDUP_A_SOURCES_SUBWINDOWS]);
	if (tb[PKTDEDUP_A_SOURCES_COUNTERS])
		c->counters = nla_get_u32(tb[PKTDEDUP_A_SOURCES_COUNTERS]);
	if (tb[PKTDEDUP_A_SOURCES_NEW])
		c->newsrc = nla_get_u8(tb[PKTDEDUP_A_SOURCES_NEW]);
	if (tb[PKTDEDUP_A_SOURCES_NEW_MEM])
		c->newsrc_mem = nla_get_u64(tb[PKTDEDUP_A_SOURCES_NEW_MEM]);
	if (tb[PKTDEDUP_A_SOURCES_NEW_GAP])
		c->newsrc_gap = nla_get_u64(tb[PKTDEDUP_A_SOURCES_NEW_GAP]);
	if (tb[PKTDEDUP_A_SOURCES_EVENT_RATE])
		c->event_rate = nla_get_u32(tb[PKTDEDUP_A_SOURCES_EVENT_RATE]);
	if (tb[PKTDEDUP_A_SOURCES_RING])
		c->ring = nla_get_u32(tb[PKTDEDUP_A_SOURCES_RING]);
	if (tb[PKTDEDUP_A_SOURCES_ENABLED])
		c->enabled = nla_get_u8(tb[PKTDEDUP_A_SOURCES_ENABLED]);
	if (tb[PKTDEDUP_A_SOURCES_KEY] && tb[PKTDEDUP_A_SOURCES_KEY_RANDOM]) {
		NL_SET_ERR_MSG_ATTR(req->extack, tb[PKTDEDUP_A_SOURCES_KEY_RANDOM],
				    "a key and key-random together");
		return -EINVAL;
	}
	if (tb[PKTDEDUP_A_SOURCES_KEY]) {
		pd_akey_from_bytes(&c->key, nla_data(tb[PKTDEDUP_A_SOURCES_KEY]));
		c->key_set = 1;
	}
	if (tb[PKTDEDUP_A_SOURCES_KEY_RANDOM] &&
	    nla_get_u8(tb[PKTDEDUP_A_SOURCES_KEY_RANDOM])) {
		memzero_explicit(&c->key, sizeof(c->key));
		c->key_set = 0;
	}
	return 0;
}

static int pd_act_set_sources(struct pd_nl_req *req)
{
	struct pd_net *pn = req->pn;
	struct pd_src_cfg c = pn->src.cfg;
	int err;

	err = pd_nl_sources_read(req, &c);
	if (err)
		return err;
	return pd_srcs_apply(pn, &c, req->extack);
}

static const struct pd_nl_cmd pd_cmd_get_sources = {
	.reply_cmd = PKTDEDUP_CMD_GET_SOURCES,
	.fill = pd_fill_sources,
};

static const struct pd_nl_cmd pd_cmd_set_sources = {
	.reply_cmd = PKTDEDUP_CMD_SET_SOURCES,
	.act = pd_act_set_sources,
	.fill = pd_fill_sources,
};

int pd_nl_get_sources_doit(struct sk_buff *skb, struct genl_info *info)
{
	return pd_nl_do(&pd_cmd_get_sources, skb, info);
}

int pd_nl_set_sources_doit(struct sk_buff *skb, struct genl_info *info)
{
	return pd_nl_do(&pd_cmd_set_sources, skb, info);
}

/* ---- GET_TOP, GET_RARE ---- */

static int pd_put_entry(struct sk_buff *msg, const u8 *addr, u8 len, u64 lo,
			u64 hi)
{
	struct nlattr *e = nla_nest_start(msg, PKTDEDUP_A_ENTRY);

	if (!e || nla_put(msg, PKTDEDUP_A_ENTRY_ADDR, len, addr) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_ENTRY_COUNT_LO, lo,
			  PKTDEDUP_A_ENTRY_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_ENTRY_COUNT_HI, hi,
			  PKTDEDUP_A_ENTRY_PAD))
		return -EMSGSIZE;
	nla_nest_end(msg, e);
	return 0;
}

/* Room for a reply of the entries asked for. */
static size_t pd_list_size(const struct pd_nl_req *req)
{
	const struct pd_src_req *r = req->data;
	size_t one = nla_total_size(0) + nla_total_size(16) +
		     2 * nla_total_size_64bit(8);

	return NLMSG_GOODSIZE + (size_t)r->count * one;
}

static int pd_put_list(struct sk_buff *msg, const struct pd_src_req *r,
		       bool rare)
{
	const struct pd_ss_agg *a = r->agg;
	struct nlattr *nest;

	if (pd_put_window(msg, r))
		return -EMSGSIZE;
	nest = nla_nest_start(msg, PKTDEDUP_A_LIST);
	if (!nest ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_LIST_TOTAL, a->total,
			  PKTDEDUP_A_LIST_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_LIST_ERROR, a->absent,
			  PKTDEDUP_A_LIST_PAD) ||
	    (rare &&
	     (nla_put_u32(msg, PKTDEDUP_A_LIST_SUPPORT, r->support) ||
	      pd_nl_put_u64(msg, PKTDEDUP_A_LIST_SUPPORT_COUNT,
			    pd_ss_support_count(a->total, r->support),
			    PKTDEDUP_A_LIST_PAD) ||
	      nla_put_u32(msg, PKTDEDUP_A_LIST_CANDIDATES, r->ncand) ||
	      nla_put_u32(msg, PKTDEDUP_A_LIST_FOUND, r->found))))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static void pd_cleanup_list(struct pd_nl_req *req)
{
	struct pd_src_req *r = req->data;

	kvfree(r->agg);
	kvfree(r->cand);
	pd_cleanup_src(req);
}

static int pd_prepare_top(struct pd_nl_req *req)
{
	struct nlattr *tb[PKTDEDUP_A_TOP_MAX + 1];
	struct pd_src_req *r = req->data;
	int err;

	err = pd_nl_nest(req, PKTDEDUP_A_TOP, pd_top_nl_policy,
			 PKTDEDUP_A_TOP_MAX, tb);
	if (!err)
		err = pd_src_span(req);
	if (err)
		return err;
	r->count = tb[PKTDEDUP_A_TOP_COUNT] ?
		   nla_get_u32(tb[PKTDEDUP_A_TOP_COUNT]) : 10;
	if (!r->s->cfg.counters) {
		NL_SET_ERR_MSG(req->extack, PD_TOP_OFF_MSG);
		return -ENODATA;
	}
	/* keep more than asked for, so that cutting the list costs little */
	r->agg = pd_srcs_top(r->s, r->last,
			     max_t(u32, 4 * r->count, 2 * r->s->cfg.counters));
	if (!r->agg)
		return -ENOMEM;
	pd_ss_agg_sort(r->agg);
	return 0;
}

static int pd_fill_top(struct sk_buff *msg, struct pd_nl_req *req)
{
	const struct pd_src_req *r = req->data;
	const struct pd_ss_agg *a = r->agg;
	u32 i, put;

	if (pd_put_list(msg, r, false))
		return -EMSGSIZE;
	for (i = 0, put = 0; put < r->count && i < a->n; i++) {
		const struct pd_ss_item *it = &a->it[i];

		/* a counter caught while its CPU was filling it in */
		if (it->len != 4 && it->len != 16)
			continue;
		if (pd_put_entry(msg, it->addr, it->len, it->count - it->err,
				 it->count))
			return -EMSGSIZE;
		put++;
	}
	return 0;
}

static const struct pd_nl_cmd pd_cmd_get_top = {
	.reply_cmd = PKTDEDUP_CMD_GET_TOP,
	.unlocked = true,
	.data_size = sizeof(struct pd_src_req),
	.prepare = pd_prepare_top,
	.reply_size = pd_list_size,
	.fill = pd_fill_top,
	.cleanup = pd_cleanup_list,
};

int pd_nl_get_top_doit(struct sk_buff *skb, struct genl_info *info)
{
	return pd_nl_do(&pd_cmd_get_top, skb, info);
}

/* Whether candidate c is rare (BFSS), and its bounds. */
static bool pd_rare_bounds(const struct pd_src_req *r,
			   const struct pd_src_event *c, u64 *lo, u64 *hi)
{
	u64 h = pd_srcs_hash(r->s, c->addr, c->len);

	return pd_ss_rare(r->agg, h, c->addr, c->len, r->support, lo, hi);
}

static int pd_prepare_rare(struct pd_nl_req *req)
{
	struct nlattr *tb[PKTDEDUP_A_RARE_MAX + 1];
	struct pd_src_req *r = req->data;
	u64 lo, hi;
	int err, i;

	err = pd_nl_nest(req, PKTDEDUP_A_RARE, pd_rare_nl_policy,
			 PKTDEDUP_A_RARE_MAX, tb);
	if (!err)
		err = pd_src_span(req);
	if (err)
		return err;
	r->count = tb[PKTDEDUP_A_RARE_COUNT] ?
		   nla_get_u32(tb[PKTDEDUP_A_RARE_COUNT]) : 100;
	r->support = tb[PKTDEDUP_A_RARE_SUPPORT] ?
		     nla_get_u32(tb[PKTDEDUP_A_RARE_SUPPORT]) : 100000;
	if (!r->s->cfg.newsrc) {
		NL_SET_ERR_MSG(req->extack,
			       "rare sources need the new-source filter (dedupctl sources new on)");
		return -ENODATA;
	}
	if (!r->s->cfg.counters) {
		NL_SET_ERR_MSG(req->extack,
			       "rare sources need the top talkers' counts, which are off in this namespace (dedupctl sources counters 128 turns them on)");
		return -ENODATA;
	}
	/* every listed address keeps its bounds: room for all summaries */
	r->agg = pd_srcs_top(r->s, r->last, r->s->cfg.counters *
			     min_t(u32, r->s->cfg.nsub * num_possible_cpus(),
				   64));
	if (!r->agg)
		return -ENOMEM;
	r->ncand = pd_srcs_candidates(r->s, r->last, &r->cand);
	if (r->ncand < 0)
		return r->ncand;
	for (i = 0; i < r->ncand; i++)
		r->found += pd_rare_bounds(r, &r->cand[i], &lo, &hi);
	return 0;
}

static int pd_fill_rare(struct sk_buff *msg, struct pd_nl_req *req)
{
	const struct pd_src_req *r = req->data;
	u32 put = 0;
	u64 lo, hi;
	int i;

	if (pd_put_list(msg, r, true))
		return -EMSGSIZE;
	for (i = 0; i < r->ncand && put < r->count; i++) {
		const struct pd_src_event *c = &r->cand[i];

		if (!pd_rare_bounds(r, c, &lo, &hi))
			continue;
		if (pd_put_entry(msg, c->addr, c->len, lo, hi))
			return -EMSGSIZE;
		put++;
	}
	return 0;
}

static const struct pd_nl_cmd pd_cmd_get_rare = {
	.reply_cmd = PKTDEDUP_CMD_GET_RARE,
	.unlocked = true,
	.data_size = sizeof(struct pd_src_req),
	.prepare = pd_prepare_rare,
	.reply_size = pd_list_size,
	.fill = pd_fill_rare,
	.cleanup = pd_cleanup_list,
};

int pd_nl_get_rare_doit(struct sk_buff *skb, struct genl_info *info)
{
	return pd_nl_do(&pd_cmd_get_rare, skb, info);
}
