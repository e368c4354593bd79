// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: the filter nest of the configuration, and the plan nest of
 * replies, for every filter family alike.
 *
 * A family's settings travel in a nest named after it (config.filter.sbf,
 * .rsbf, ...); all those nests number their attributes as the "settings"
 * set does, each accepting its own subset (the policies generated from the
 * spec), so one reader and one writer serve every family: they walk the
 * family's rows (pd_filter_ops.settings, core/settings.h), which say where
 * a request keeps each setting, and take each attribute's width from the
 * nest's policy. Settings of a
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

/* An integer attribute's value, by the type its policy gives it. */
static u64 pd_nla_get_uint(const struct nlattr *a, const struct nla_policy *pol)
{
	switch (pol->type) {
	case NLA_U8:
		return nla_get_u8(a);
	case NLA_U16:
		return nla_get_u16(a);
	case NLA_U32:
		return nla_get_u32(a);
	default:
		return nla_get_u64(a);
	}
}

static int pd_nla_put_uint(struct sk_buff *msg, int type,
			   const struct nla_policy *pol, u64 v)
{
	switch (pol->type) {
	case NLA_U8:
		return nla_put_u8(msg, type, (u8)v);
	case NLA_U16:
		return nla_put_u16(msg, type, (u16)v);
	case NLA_U32:
		return nla_put_u32(msg, type, (u32)v);
	default:
		return pd_nl_put_u64(msg, type, v, PKTDEDUP_A_SETTINGS_PAD);
	}
}

/* The policy of kind's nest: the types of its settings. */
static const struct nla_policy *pd_settings_policy(u8 kind)
{
	return pd_filter_nl_policy[pd_family_nest[kind]].nested_policy;
}

/* Apply a family's nest (already validated) to req, row by row. */
static void pd_settings_read(struct nlattr **tb, struct pd_filter_req *req)
{
	const struct pd_filter_ops *ops = pd_filter_family(req->kind);
	const struct nla_policy *pol = pd_settings_policy(req->kind);
	const struct pd_setting *s;

	for (s = ops->settings; s->attr; s++)
		if (tb[s->attr])
			pd_setting_from_wire(ops, req, s,
					     pd_nla_get_uint(tb[s->attr],
							     &pol[s->attr]));
}

/*
 * Refuse both of two settings of which a request gives one (the window as
 * a time or a packet count), pointing at the second.
 */
static int pd_settings_check_either(struct nlattr **tb,
				    const struct pd_filter_ops *ops,
				    struct netlink_ext_ack *extack)
{
	const struct pd_setting *s;

	for (s = ops->settings; s->attr; s++) {
		if (s->codec != PD_SC_EITHER || !tb[s->attr] ||
		    !tb[s->other] || s->attr > s->other)
			continue;
		NL_SET_ERR_MSG_ATTR(extack, tb[s->other],
				    "a window is a time (window-ns) or a packet count (window-packets), not both");
		return -EINVAL;
	}
	return 0;
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
	err = pd_settings_check_either(set, pd_filter_family(new_kind), extack);
	if (err)
		return err;
	pd_settings_read(set, req);
	*blame = nla_len(a) ? nla_data(a) : a;
	return 0;
}

/*
 * The attribute of setting attr (PKTDEDUP_A_SETTINGS_*) in kind's nest of
 * a filter nest, or NULL: what a refusal of that setting points at.
 */
struct nlattr *pd_nl_filter_setting(const struct nlattr *nest, u8 kind,
				    u16 attr)
{
	const struct nlattr *fam;

	if (!nest || kind >= PD_FILTER_NKINDS || !attr)
		return NULL;
	fam = nla_find_nested(nest, pd_family_nest[kind]);
	return fam ? nla_find_nested(fam, attr) : NULL;
}

/* The settings of the kind in force, in its nest, row by row. */
static int pd_settings_put(struct sk_buff *msg, const struct pd_filter_req *r)
{
	const struct pd_filter_ops *ops = pd_filter_family(r->kind);
	const struct nla_policy *pol = pd_settings_policy(r->kind);
	struct nlattr *nest = nla_nest_start(msg, pd_family_nest[r->kind]);
	const struct pd_setting *s;
	u64 v;

	if (!nest)
		return -EMSGSIZE;
	for (s = ops->settings; s->attr; s++)
		if (pd_setting_to_wire(ops, r, s, &v) &&
		    pd_nla_put_uint(msg, s->attr, &pol[s->attr], v))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/*
 * A request's filter nest (validated) on whether its family follows the
 * action: a kind makes it the user's choice, auto 1 gives it back to the
 * action, and the two together are refused. *follow is left as it is
 * when the nest says neither.
 */
int pd_nl_filter_auto(const struct nlattr *nest, bool *follow,
		      struct netlink_ext_ack *extack)
{
	const struct nlattr *kind, *aut;

	if (!nest)
		return 0;
	kind = nla_find_nested(nest, PKTDEDUP_A_FILTER_KIND);
	aut = nla_find_nested(nest, PKTDEDUP_A_FILTER_AUTO);
	if (kind && aut && nla_get_u8(aut)) {
		NL_SET_ERR_MSG_ATTR(extack, aut,
				    "filter: a family (kind) or auto, not both");
		return -EINVAL;
	}
	if (aut)
		*follow = nla_get_u8(aut);
	else if (kind)
		*follow = false;
	return 0;
}

/*
 * The filter nest of a configuration: kind, memory, its settings, and
 * whether the family follows the action.
 */
int pd_nl_filter_put(struct sk_buff *msg, const struct pd_filter_req *r,
		     bool follow)
{
	struct nlattr *nest = nla_nest_start(msg, PKTDEDUP_A_CONFIG_FILTER);

	if (!nest ||
	    nla_put_u32(msg, PKTDEDUP_A_FILTER_KIND, r->kind) ||
	    nla_put_u8(msg, PKTDEDUP_A_FILTER_AUTO, follow) ||
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
	    nla_put_u32(msg, PKTDEDUP_A_FILTER_PLAN_STEP_LINES,
			(u32)p->step_lines) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_FILTER_PLAN_CELLS, p->cells,
			  PKTDEDUP_A_FILTER_PLAN_PAD) ||
	    (pd_filter_takes(ops, PKTDEDUP_A_SETTINGS_CELL_BITS) &&
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
	    (pd_filter_takes(ops, PKTDEDUP_A_SETTINGS_P_STAR) &&
	     nla_put_u32(msg, PKTDEDUP_A_FILTER_PLAN_P_STAR, p->p_star_ppb)) ||
	    (pd_filter_takes(ops, PKTDEDUP_A_SETTINGS_LAYOUT) &&
	     nla_put_u8(msg, PKTDEDUP_A_FILTER_PLAN_LAYOUT, p->layout)) ||
	    (pd_filter_takes(ops, PKTDEDUP_A_SETTINGS_IMPORTANCE) &&
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
