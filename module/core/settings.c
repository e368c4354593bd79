// SPDX-License-Identifier: GPL-2.0
/* A filter family's settings: its rows, their values and the wire's. */
#include "settings.h"
#include "filter.h"

const struct pd_setting *pd_filter_setting(const struct pd_filter_ops *ops,
					   unsigned int attr)
{
	const struct pd_setting *s;

	for (s = ops->settings; s->attr; s++)
		if (s->attr == attr)
			return s;
	return NULL;
}

static u64 *pd_setting_at(const struct pd_filter_req *req,
			  const struct pd_setting *s)
{
	return (u64 *)((const u8 *)req + s->off);
}

u32 pd_setting_cell_bits(u64 max)
{
	u32 j = 0;

	/* not the cell's width in memory (pd_sbf_bits_for_max: 4 for 7) */
	while (max != PD_FILTER_AUTO && (max >> j))
		j++;
	return j;
}

u64 pd_setting_get(const struct pd_filter_req *req,
		   const struct pd_setting *s)
{
	return *pd_setting_at(req, s);
}

void pd_setting_set(struct pd_filter_req *req, const struct pd_setting *s,
		    u64 v)
{
	*pd_setting_at(req, s) = v;
}

void pd_setting_from_wire(const struct pd_filter_ops *ops,
			  struct pd_filter_req *req,
			  const struct pd_setting *s, u64 wire)
{
	const struct pd_setting *o;
	u64 v = wire;

	switch (s->codec) {
	case PD_SC_AUTO_ZERO:
		v = wire ? wire : PD_FILTER_AUTO;
		break;
	case PD_SC_CELL_MAX:
		v = wire ? (1ULL << wire) - 1 : PD_FILTER_AUTO;
		break;
	case PD_SC_P_AUTO:
		v = wire == PKTDEDUP_P_AUTO ? PD_FILTER_AUTO : wire;
		break;
	case PD_SC_EITHER:
		o = pd_filter_setting(ops, s->other);
		if (o)
			pd_setting_set(req, o, 0);
		break;
	}
	pd_setting_set(req, s, v);
}

bool pd_setting_to_wire(const struct pd_filter_ops *ops,
			const struct pd_filter_req *req,
			const struct pd_setting *s, u64 *wire)
{
	u64 v = pd_setting_get(req, s);

	switch (s->codec) {
	case PD_SC_AUTO_ZERO:
		*wire = v == PD_FILTER_AUTO ? 0 : v;
		return true;
	case PD_SC_CELL_MAX:
		*wire = pd_setting_cell_bits(v);
		return true;
	case PD_SC_P_AUTO:
		*wire = v == PD_FILTER_AUTO ? PKTDEDUP_P_AUTO : v;
		return true;
	case PD_SC_TARGET:
		*wire = v ? v : ops->default_fps_ppb;
		return *wire;
	case PD_SC_EITHER:
		*wire = v;
		return v;
	default:
		*wire = v;
		return true;
	}
}
