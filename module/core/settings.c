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

static const char *const pd_setting_words[PKTDEDUP_A_SETTINGS_MAX + 1] = {
	[PKTDEDUP_A_SETTINGS_FPS] = "fps",
	[PKTDEDUP_A_SETTINGS_CELL_BITS] = "max",
	[PKTDEDUP_A_SETTINGS_K] = "k",
	[PKTDEDUP_A_SETTINGS_P] = "p",
	[PKTDEDUP_A_SETTINGS_GAP] = "gap",
	[PKTDEDUP_A_SETTINGS_P_STAR] = "p-star",
	[PKTDEDUP_A_SETTINGS_IMPORTANCE] = "importance",
	[PKTDEDUP_A_SETTINGS_WINDOW_NS] = "window",
	[PKTDEDUP_A_SETTINGS_WINDOW_PACKETS] = "window",
	[PKTDEDUP_A_SETTINGS_RATE] = "rate",
	[PKTDEDUP_A_SETTINGS_SUBWINDOWS] = "subwindows",
	[PKTDEDUP_A_SETTINGS_WARN_BELOW] = "warn-below",
	[PKTDEDUP_A_SETTINGS_LAYOUT] = "layout",
};

const char *pd_setting_word(unsigned int attr)
{
	return attr < PD_ARRAY_SIZE(pd_setting_words) ? pd_setting_words[attr] :
	       NULL;
}

const char *pd_setting_name(unsigned int attr)
{
	return pd_setting_word(attr) ?: "?";
}

void pd_setting_value(const struct pd_filter_ops *ops,
		      const struct pd_filter_req *req, unsigned int attr,
		      char *buf, size_t len)
{
	const struct pd_setting *s = pd_filter_setting(ops, attr);
	u64 v, whole;
	size_t n;

	if (!s) {
		snprintf(buf, len, "?");
		return;
	}
	v = pd_setting_get(req, s);
	if (s->codec == PD_SC_TARGET) {
		/* a fraction of 10^9, its trailing zeros dropped */
		v = v ?: ops->default_fps_ppb;
		whole = pd_div64(v, 1000000000u);
		snprintf(buf, len, "%llu.%09llu", (unsigned long long)whole,
			 (unsigned long long)(v - whole * 1000000000u));
		for (n = strlen(buf); n > 2 && buf[n - 1] == '0' &&
		     buf[n - 2] != '.'; n--)
			buf[n - 1] = 0;
	} else if (v == PD_FILTER_AUTO && s->codec != PD_SC_PLAIN &&
		   s->codec != PD_SC_EITHER) {
		snprintf(buf, len, "auto");
	} else {
		snprintf(buf, len, "%llu", (unsigned long long)v);
	}
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
