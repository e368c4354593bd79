// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: the filter nest of the configuration, and the plan nest of
 * replies, for every filter family alike.
 *
 * A family's settings travel in a nest named after it (config.filter.sbf,
 * .rsbf, ...); all those nests number their attributes as the "settings"
 * set does, each accepting its own subset (the policies generated from the
 * spec), so one reader and one writer serve every family, with the family's
 * pd_filter_ops.settings saying which settings it takes. Settings of a
 * family other than the one the request leaves in force are refused,
 * naming the first of them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <net/genetlink.h>

#include "core/fixed.h"
#include "nl_gen.h"
#include "pktdedup.h"

/* Each family's nest in the filter set: the spec's list (families.h). */
static const u16 pd_family_nest[PD_FILTER_NKINDS] = {
#define PD_FAMILY(KIND, id) \
	[PKTDEDUP_FILTER_KIND_##KIND] = PKTDEDUP_A_FILTER_##KIND,
#include "core/families.h"
#undef PD_FAMILY
};

/* The family whose nest is attribute type, or -1. */
static int pd_nest_family(int type)
{
	int kind;

	for (kind = 0; kind < PD_FILTER_NKINDS; kind++)
		if (pd_family_nest[kind] == type)
			return kind;
	return -1;
}

/* Apply the settings of a family's nest (already validated) to req. */
static void pd_settings_read(struct nlattr **tb, struct pd_filter_req *req)
{
	if (tb[PKTDEDUP_A_SETTINGS_FPS])
		req->fps_ppb = nla_get_u32(tb[PKTDEDUP_A_SETTINGS_FPS]);
	if (tb[PKTDEDUP_A_SETTINGS_CELL_BITS]) {
		u8 bits = nla_get_u8(tb[PKTDEDUP_A_SETTINGS_CELL_BITS]);

		req->max = bits ? (1u << bits) - 1 : PD_FILTER_AUTO;
	}
	if (tb[PKTDEDUP_A_SETTINGS_K]) {
		u8 k = nla_get_u8(tb[PKTDEDUP_A_SETTINGS_K]);

		req->k = k ? k : PD_FILTER_AUTO;
	}
	if (tb[PKTDEDUP_A_SETTINGS_P]) {
		u32 p = nla_get_u32(tb[PKTDEDUP_A_SETTINGS_P]);

		req->p = p == PKTDEDUP_P_AUTO ? PD_FILTER_AUTO : p;
	}
	if (tb[PKTDEDUP_A_SETTINGS_GAP])
		req->gap = nla_get_u64(tb[PKTDEDUP_A_SETTINGS_GAP]);
	if (tb[PKTDEDUP_A_SETTINGS_P_STAR])
		req->p_star_ppb = nla_get_u32(tb[PKTDEDUP_A_SETTINGS_P_STAR]);
	if (tb[PKTDEDUP_A_SETTINGS_IMPORTANCE])
		req->importance = nla_get_u8(tb[PKTDEDUP_A_SETTINGS_IMPORTANCE]);
	if (tb[PKTDEDUP_A_SETTINGS_IMPORTANCE_MASK])
		req->importance_mask =
			nla_get_u32(tb[PKTDEDUP_A_SETTINGS_IMPORTANCE_MASK]);
	/* a window is a time or a packet count: one replaces the other */
	if (tb[PKTDEDUP_A_SETTINGS_WINDOW_NS]) {
		req->window_ns = nla_get_u64(tb[PKTDEDUP_A_SETTINGS_WINDOW_NS]);
		req->window_pkts = 0;
	}
	if (tb[PKTDEDUP_A_SETTINGS_WINDOW_PACKETS]) {
		req->window_pkts =
			nla_get_u32(tb[PKTDEDUP_A_SETTINGS_WINDOW_PACKETS]);
		req->window_ns = 0;
	}
	if (tb[PKTDEDUP_A_SETTINGS_RATE])
		req->rate = nla_get_u32(tb[PKTDEDUP_A_SETTINGS_RATE]);
	if (tb[PKTDEDUP_A_SETTINGS_SUBWINDOWS])
		req->subwindows = nla_get_u8(tb[PKTDEDUP_A_SETTINGS_SUBWINDOWS]);
	if (tb[PKTDEDUP_A_SETTINGS_WARN_BELOW])
		req->warn_below = nla_get_u8(tb[PKTDEDUP_A_SETTINGS_WARN_BELOW]);
	if (tb[PKTDEDUP_A_SETTINGS_LAYOUT])
		req->layout = nla_get_u8(tb[PKTDEDUP_A_SETTINGS_LAYOUT]);
}

/*
 * Update req from a filter nest: kind, mem, and the settings of the kind in
 * force afterwards (a new kind starts from its family's defaults). *blame
 * is the attribute to point at if the planner then refuses.
 */
int pd_nl_filter_read(const struct nlattr *nest, struct pd_filter_req *req,
		      struct nlattr **blame, struct netlink_ext_ack *extack)
{
	struct nlattr *tb[PKTDEDUP_A_FILTER_MAX + 1];
	struct nlattr *set[PKTDEDUP_A_SETTINGS_MAX + 1];
	struct nlattr *a;
	int rem, kind, err;
	u8 new_kind = req->kind;

	*blame = NULL;
	if (!nest)
		return 0;
	err = nla_parse_nested(tb, PKTDEDUP_A_FILTER_MAX, nest,
			       pd_filter_nl_policy, extack);
	if (err)
		return err;
	if (tb[PKTDEDUP_A_FILTER_KIND])
		new_kind = (u8)nla_get_u32(tb[PKTDEDUP_A_FILTER_KIND]);
	nla_for_each_nested(a, nest, rem) {
		kind = pd_nest_family(nla_type(a));
		if (kind < 0 || kind == new_kind)
			continue;
		/* point at the first setting in it, or the nest if empty */
		NL_SET_ERR_MSG_ATTR(extack, nla_len(a) ? nla_data(a) : a,
				    "a setting of another filter family than the one in force (dedupctl show)");
		return -EINVAL;
	}
	if (new_kind != req->kind)
		pd_filter_req_defaults(req, new_kind, req->mem_bytes);
	if (tb[PKTDEDUP_A_FILTER_MEM]) {
		req->mem_bytes = nla_get_u64(tb[PKTDEDUP_A_FILTER_MEM]);
		*blame = tb[PKTDEDUP_A_FILTER_MEM];
	}
	a = tb[pd_family_nest[new_kind]];
	if (!a)
		return 0;
	err = nla_parse_nested(set, PKTDEDUP_A_SETTINGS_MAX, a,
			       pd_filter_nl_policy[pd_family_nest[new_kind]].nested_policy,
			       extack);
	if (err)
		return err;
	if (set[PKTDEDUP_A_SETTINGS_WINDOW_NS] &&
	    set[PKTDEDUP_A_SETTINGS_WINDOW_PACKETS]) {
		NL_SET_ERR_MSG_ATTR(extack, set[PKTDEDUP_A_SETTINGS_WINDOW_PACKETS],
				    "a window is a time (window-ns) or a packet count (window-packets), not both");
		return -EINVAL;
	}
	pd_settings_read(set, req);
	*blame = nla_len(a) ? nla_data(a) : a;
	return 0;
}

/* The window families' settings: the window (whichever is set), rate. */
static int pd_window_settings_put(struct sk_buff *msg,
				  const struct pd_filter_req *r)
{
	u32 s = pd_filter_family(r->kind)->settings;

	if (!(s & PD_SET_WINDOW))
		return 0;
	if ((r->window_ns &&
	     pd_nl_put_u64(msg, PKTDEDUP_A_SETTINGS_WINDOW_NS, r->window_ns,
			   PKTDEDUP_A_SETTINGS_PAD)) ||
	    (r->window_pkts &&
	     nla_put_u32(msg, PKTDEDUP_A_SETTINGS_WINDOW_PACKETS,
			 (u32)r->window_pkts)) ||
	    nla_put_u32(msg, PKTDEDUP_A_SETTINGS_RATE, r->rate) ||
	    ((s & PD_SET_SUBWIN) &&
	     nla_put_u8(msg, PKTDEDUP_A_SETTINGS_SUBWINDOWS,
			(u8)r->subwindows)) ||
	    ((s & PD_SET_WARN) &&
	     nla_put_u8(msg, PKTDEDUP_A_SETTINGS_WARN_BELOW,
			(u8)r->warn_below)))
		return -EMSGSIZE;
	return 0;
}

/* The settings of the kind in force, in its nest. */
static int pd_settings_put(struct sk_buff *msg, const struct pd_filter_req *r)
{
	const struct pd_filter_ops *ops = pd_filter_family(r->kind);
	struct nlattr *nest = nla_nest_start(msg, pd_family_nest[r->kind]);
	u32 s = ops->settings, fps = r->fps_ppb ?: ops->default_fps_ppb;

	/* fps is left out where the family has no target (bit arrays) */
	if (!nest ||
	    ((s & PD_SET_FPS) && fps &&
	     nla_put_u32(msg, PKTDEDUP_A_SETTINGS_FPS, fps)) ||
	    ((s & PD_SET_MAX) &&
	     nla_put_u8(msg, PKTDEDUP_A_SETTINGS_CELL_BITS,
			r->max == PD_FILTER_AUTO ? 0 :
			pd_sbf_bits_for_max(r->max))) ||
	    ((s & PD_SET_K) &&
	     nla_put_u8(msg, PKTDEDUP_A_SETTINGS_K,
			r->k == PD_FILTER_AUTO ? 0 : r->k)) ||
	    ((s & PD_SET_P) &&
	     nla_put_u32(msg, PKTDEDUP_A_SETTINGS_P,
			 r->p == PD_FILTER_AUTO ? PKTDEDUP_P_AUTO : r->p)) ||
	    ((s & PD_SET_GAP) &&
	     pd_nl_put_u64(msg, PKTDEDUP_A_SETTINGS_GAP, r->gap,
			   PKTDEDUP_A_SETTINGS_PAD)) ||
	    ((s & PD_SET_PSTAR) &&
	     nla_put_u32(msg, PKTDEDUP_A_SETTINGS_P_STAR, r->p_star_ppb)) ||
	    ((s & PD_SET_IMPORTANCE) &&
	     (nla_put_u8(msg, PKTDEDUP_A_SETTINGS_IMPORTANCE, r->importance) ||
	      nla_put_u32(msg, PKTDEDUP_A_SETTINGS_IMPORTANCE_MASK,
			  r->importance_mask))) ||
	    ((s & PD_SET_LAYOUT) &&
	     nla_put_u8(msg, PKTDEDUP_A_SETTINGS_LAYOUT, r->layout)) ||
	    pd_window_settings_put(msg, r))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/* The filter nest of a configuration: kind, memory, its settings. */
int pd_nl_filter_put(struct sk_buff *msg, const struct pd_filter_req *r)
{
	struct nlattr *nest = nla_nest_start(msg, PKTDEDUP_A_CONFIG_FILTER);

	if (!nest ||
	    nla_put_u32(msg, PKTDEDUP_A_FILTER_KIND, r->kind) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_FILTER_MEM, r->mem_bytes,
			  PKTDEDUP_A_FILTER_PAD) ||
	    pd_settings_put(msg, r))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int pd_put_ppb(struct sk_buff *msg, int type, u64 q62)
{
	return nla_put_u32(msg, type, pd_q62_to_ppb(q62));
}

/* A plan (and its family's model values) as a filter-plan nest. */
int pd_nl_put_plan(struct sk_buff *msg, int type,
		   const struct pd_filter_plan *p)
{
	const struct pd_filter_ops *ops = pd_filter_family(p->kind);
	struct nlattr *nest = nla_nest_start(msg, type);

	if (!nest ||
	    nla_put_u32(msg, PKTDEDUP_A_FILTER_PLAN_KIND, p->kind) ||
	    nla_put_u32(msg, PKTDEDUP_A_FILTER_PLAN_K, p->k) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_FILTER_PLAN_CELLS, p->cells,
			  PKTDEDUP_A_FILTER_PLAN_PAD) ||
	    ((ops->settings & PD_SET_MAX) &&
	     (nla_put_u32(msg, PKTDEDUP_A_FILTER_PLAN_CELL_MAX, p->max) ||
	      nla_put_u32(msg, PKTDEDUP_A_FILTER_PLAN_BITS, p->bits) ||
	      nla_put_u32(msg, PKTDEDUP_A_FILTER_PLAN_P, p->p))) ||
	    ((p->given & PD_PLAN_HAS_FP) &&
	     pd_put_ppb(msg, PKTDEDUP_A_FILTER_PLAN_FP_BOUND, p->fp_bound)) ||
	    ((p->given & PD_PLAN_HAS_ZERO) &&
	     pd_put_ppb(msg, PKTDEDUP_A_FILTER_PLAN_STABLE_ZERO,
			p->stable_zero)) ||
	    ((p->given & PD_PLAN_HAS_LOAD) &&
	     pd_put_ppb(msg, PKTDEDUP_A_FILTER_PLAN_STABLE_LOAD,
			p->stable_load)) ||
	    ((p->given & PD_PLAN_HAS_FN) &&
	     (pd_put_ppb(msg, PKTDEDUP_A_FILTER_PLAN_FN, p->fn_rate) ||
	      pd_nl_put_u64(msg, PKTDEDUP_A_FILTER_PLAN_GAP, p->gap,
			    PKTDEDUP_A_FILTER_PLAN_PAD))) ||
	    ((ops->settings & PD_SET_PSTAR) &&
	     nla_put_u32(msg, PKTDEDUP_A_FILTER_PLAN_P_STAR, p->p_star_ppb)) ||
	    ((ops->settings & PD_SET_IMPORTANCE) &&
	     (pd_put_ppb(msg, PKTDEDUP_A_FILTER_PLAN_FN_LOW, p->fn_low) ||
	      nla_put_u8(msg, PKTDEDUP_A_FILTER_PLAN_IMPORTANCE,
			 p->importance) ||
	      nla_put_u32(msg, PKTDEDUP_A_FILTER_PLAN_IMPORTANCE_MASK,
			  p->importance_mask))) ||
	    ((p->given & PD_PLAN_HAS_WINDOW) &&
	     ((p->window_ns &&
	       (pd_nl_put_u64(msg, PKTDEDUP_A_FILTER_PLAN_WINDOW_NS,
			      p->window_ns, PKTDEDUP_A_FILTER_PLAN_PAD) ||
		pd_nl_put_u64(msg, PKTDEDUP_A_FILTER_PLAN_RATE, p->rate,
			      PKTDEDUP_A_FILTER_PLAN_PAD))) ||
	      (p->window_pkts &&
	       pd_nl_put_u64(msg, PKTDEDUP_A_FILTER_PLAN_WINDOW_PACKETS,
			     p->window_pkts, PKTDEDUP_A_FILTER_PLAN_PAD)) ||
	      pd_nl_put_u64(msg, PKTDEDUP_A_FILTER_PLAN_CAPACITY, p->capacity,
			    PKTDEDUP_A_FILTER_PLAN_PAD) ||
	      nla_put_u32(msg, PKTDEDUP_A_FILTER_PLAN_SUBWINDOWS,
			  p->subwindows) ||
	      nla_put_u32(msg, PKTDEDUP_A_FILTER_PLAN_WARN_BELOW,
			  p->warn_below))))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}
