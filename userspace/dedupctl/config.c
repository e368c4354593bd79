// SPDX-License-Identifier: GPL-2.0
/*
 * dedupctl: the configuration commands, show, set and plan.
 *
 * Settings of the filter belong to its family: a request carries them in
 * the nest of the family in force (the one the same command sets, or the
 * kernel's), named after the family as the spec's filter set names them.
 * A setting that family does not take goes in the nest of the first family
 * that does, so that the kernel, which decides, refuses it by name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/core/bitf.h"
#include "../../module/core/config.h"
#include "../../module/core/filter.h"
#include "../../module/core/fixed.h"
#include "../../module/core/timewin.h"
#include "../../module/uapi/pktdedup.h"
#include "dedupctl.h"
#include "prom.h"
#include "units.h"

/* ---- show ---- */

static const char *const cap_sources[] = {
	[PKTDEDUP_CAP_SOURCE_INIT_USERNS] = "max_netns_mem",
	[PKTDEDUP_CAP_SOURCE_USERNS] = "max_userns_mem",
};

static const char *const cap_why[] = {
	[PKTDEDUP_CAP_SOURCE_INIT_USERNS] =
		"the namespace belongs to the initial user namespace",
	[PKTDEDUP_CAP_SOURCE_USERNS] =
		"the namespace belongs to another user namespace",
};

static const char *const importance_names[] = {
	[PKTDEDUP_IMPORTANCE_DSCP] = "dscp",
	[PKTDEDUP_IMPORTANCE_MARK] = "mark",
};

/* The budget nest of a reply: JSON members, or lines of text. */
static void print_budget(const struct nlattr *nest)
{
	const struct nlattr *b[PKTDEDUP_A_BUDGET_MAX + 1];
	uint8_t src;
	unsigned long long filters, sources;
	char b1[32], b2[32], b3[32], b4[32], b5[32];

	nl_nest(nest, &nls_budget, b);
	src = u8a(b, PKTDEDUP_A_BUDGET_CAP_SOURCE);
	if (src > PKTDEDUP_CAP_SOURCE_MAX)
		src = PKTDEDUP_CAP_SOURCE_INIT_USERNS;
	filters = u64a(b, PKTDEDUP_A_BUDGET_FILTERS);
	sources = u64a(b, PKTDEDUP_A_BUDGET_SOURCES);
	if (json) {
		printf(",\"budget\":{\"cap\":%llu,\"cap_source\":\"%s\","
		       "\"held\":%llu,\"filters\":%llu,\"sources\":%llu,"
		       "\"peak\":%llu,\"refused\":%llu,\"total_cap\":%llu,"
		       "\"total_held\":%llu",
		       (unsigned long long)u64a(b, PKTDEDUP_A_BUDGET_CAP),
		       cap_sources[src], filters + sources, filters, sources,
		       (unsigned long long)u64a(b, PKTDEDUP_A_BUDGET_PEAK),
		       (unsigned long long)u64a(b, PKTDEDUP_A_BUDGET_REFUSED),
		       (unsigned long long)u64a(b, PKTDEDUP_A_BUDGET_TOTAL_CAP),
		       (unsigned long long)u64a(b, PKTDEDUP_A_BUDGET_TOTAL_HELD));
		if (b[PKTDEDUP_A_BUDGET_USERNS_CAP])
			printf(",\"userns_cap\":%llu,\"userns_held\":%llu",
			       (unsigned long long)u64a(b, PKTDEDUP_A_BUDGET_USERNS_CAP),
			       (unsigned long long)u64a(b, PKTDEDUP_A_BUDGET_USERNS_HELD));
		if (b[PKTDEDUP_A_BUDGET_USER_CAP])
			printf(",\"user_cap\":%llu,\"user_held\":%llu",
			       (unsigned long long)u64a(b, PKTDEDUP_A_BUDGET_USER_CAP),
			       (unsigned long long)u64a(b, PKTDEDUP_A_BUDGET_USER_HELD));
		printf("}");
		return;
	}
	printf("budget   %s held of a %s cap (filters %s, source windows %s), peak %s\n"
	       "         the cap is %s: %s\n",
	       size_str(b1, sizeof(b1), filters + sources),
	       size_str(b2, sizeof(b2), u64a(b, PKTDEDUP_A_BUDGET_CAP)),
	       size_str(b3, sizeof(b3), filters),
	       size_str(b4, sizeof(b4), sources),
	       size_str(b5, sizeof(b5), u64a(b, PKTDEDUP_A_BUDGET_PEAK)),
	       cap_sources[src], cap_why[src]);
	printf("module   %s held in all namespaces of a %s cap (max_total_mem)\n",
	       size_str(b1, sizeof(b1),
			u64a(b, PKTDEDUP_A_BUDGET_TOTAL_HELD)),
	       size_str(b2, sizeof(b2), u64a(b, PKTDEDUP_A_BUDGET_TOTAL_CAP)));
	if (b[PKTDEDUP_A_BUDGET_USER_CAP])
		printf("user     %s held by the namespaces of this owner's user namespaces of a %s cap (max_user_mem)\n",
		       size_str(b1, sizeof(b1),
				u64a(b, PKTDEDUP_A_BUDGET_USER_HELD)),
		       size_str(b2, sizeof(b2),
				u64a(b, PKTDEDUP_A_BUDGET_USER_CAP)));
	if (b[PKTDEDUP_A_BUDGET_USERNS_CAP])
		printf("others   %s held by the namespaces of all other user namespaces of a %s share (max_total_mem less init_reserve_mem)\n",
		       size_str(b1, sizeof(b1),
				u64a(b, PKTDEDUP_A_BUDGET_USERNS_HELD)),
		       size_str(b2, sizeof(b2),
				u64a(b, PKTDEDUP_A_BUDGET_USERNS_CAP)));
}

/* The nest attribute of family ops in the filter set (by its name). */
static uint16_t family_nest(const struct pd_filter_ops *ops)
{
	uint16_t t;

	for (t = 1; t <= nls_filter.max; t++)
		if (nls_filter.attrs[t].name &&
		    !strcmp(nls_filter.attrs[t].name, ops->name))
			return t;
	fprintf(stderr, "dedupctl: the protocol has no nest for filter %s\n",
		ops->name);
	dedupctl_exit(EXIT_REFUSED);
}

static const struct pd_filter_ops *kind_family(uint32_t kind)
{
	const struct pd_filter_ops *ops = pd_filter_family(kind);

	if (!ops) {
		fprintf(stderr, "dedupctl: the kernel's filter %u is unknown to this dedupctl\n",
			kind);
		dedupctl_exit(EXIT_REFUSED);
	}
	return ops;
}

/*
 * A filter's plan as dedupctl prints it, from the kernel's filter-plan nest
 * or from the local planner: its model values in ppb, converted from the
 * planner's Q62 as the kernel converts them, so both print the same.
 */
struct plan_view {
	const struct pd_filter_ops *ops;
	uint32_t k, max, bits, p, p_star, given;
	uint64_t cells, gap, p_exact_q32;
	uint32_t fp, zero, load, fn, fn_low;	/* ppb */
	/* window families */
	uint64_t window_ns, window_pkts, capacity, rate;
	uint32_t subwindows, warn_below;
};

/* A time in ns as people write it: "2 ms", "500 us", "1.5 s". */
const char *time_str(char *buf, size_t len, uint64_t ns)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "h", 3600e9 }, { "min", 60e9 }, { "s", 1e9 }, { "ms", 1e6 },
		{ "us", 1e3 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (ns >= units[i].ns) {
			snprintf(buf, len, "%.4g %s", ns / units[i].ns,
				 units[i].unit);
			return buf;
		}
	snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	return buf;
}

static void plan_view_nl(const struct nlattr *nest, struct plan_view *v)
{
	const struct nlattr *p[PKTDEDUP_A_FILTER_PLAN_MAX + 1];
	static const struct {
		uint16_t attr;
		uint32_t given;
	} model[] = {
		{ PKTDEDUP_A_FILTER_PLAN_FP_BOUND, PD_PLAN_HAS_FP },
		{ PKTDEDUP_A_FILTER_PLAN_STABLE_ZERO, PD_PLAN_HAS_ZERO },
		{ PKTDEDUP_A_FILTER_PLAN_STABLE_LOAD, PD_PLAN_HAS_LOAD },
		{ PKTDEDUP_A_FILTER_PLAN_FN, PD_PLAN_HAS_FN },
	};
	unsigned int i;

	nl_nest(nest, &nls_filter_plan, p);
	memset(v, 0, sizeof(*v));
	v->ops = kind_family(u32a(p, PKTDEDUP_A_FILTER_PLAN_KIND));
	v->k = u32a(p, PKTDEDUP_A_FILTER_PLAN_K);
	v->cells = u64a(p, PKTDEDUP_A_FILTER_PLAN_CELLS);
	v->max = u32a(p, PKTDEDUP_A_FILTER_PLAN_CELL_MAX);
	v->bits = u32a(p, PKTDEDUP_A_FILTER_PLAN_BITS);
	v->p = u32a(p, PKTDEDUP_A_FILTER_PLAN_P);
	v->p_star = u32a(p, PKTDEDUP_A_FILTER_PLAN_P_STAR);
	for (i = 0; i < sizeof(model) / sizeof(model[0]); i++)
		if (p[model[i].attr])
			v->given |= model[i].given;
	v->fp = u32a(p, PKTDEDUP_A_FILTER_PLAN_FP_BOUND);
	v->zero = u32a(p, PKTDEDUP_A_FILTER_PLAN_STABLE_ZERO);
	v->load = u32a(p, PKTDEDUP_A_FILTER_PLAN_STABLE_LOAD);
	v->fn = u32a(p, PKTDEDUP_A_FILTER_PLAN_FN);
	v->fn_low = u32a(p, PKTDEDUP_A_FILTER_PLAN_FN_LOW);
	v->gap = u64a(p, PKTDEDUP_A_FILTER_PLAN_GAP);
	if (p[PKTDEDUP_A_FILTER_PLAN_CAPACITY])
		v->given |= PD_PLAN_HAS_WINDOW;
	v->window_ns = u64a(p, PKTDEDUP_A_FILTER_PLAN_WINDOW_NS);
	v->window_pkts = u64a(p, PKTDEDUP_A_FILTER_PLAN_WINDOW_PACKETS);
	v->capacity = u64a(p, PKTDEDUP_A_FILTER_PLAN_CAPACITY);
	v->rate = u64a(p, PKTDEDUP_A_FILTER_PLAN_RATE);
	v->subwindows = u32a(p, PKTDEDUP_A_FILTER_PLAN_SUBWINDOWS);
	v->warn_below = u32a(p, PKTDEDUP_A_FILTER_PLAN_WARN_BELOW);
}

static void plan_view_local(const struct pd_filter_ops *ops,
			    const struct pd_filter_plan *pl,
			    struct plan_view *v)
{
	*v = (struct plan_view){
		.ops = ops, .k = pl->k, .max = pl->max, .bits = pl->bits,
		.p = pl->p, .p_star = pl->p_star_ppb, .given = pl->given,
		.cells = pl->cells, .gap = pl->gap,
		.p_exact_q32 = pl->p_exact_q32,
		.fp = pd_q62_to_ppb(pl->fp_bound),
		.zero = pd_q62_to_ppb(pl->stable_zero),
		.load = pd_q62_to_ppb(pl->stable_load),
		.fn = pd_q62_to_ppb(pl->fn_rate),
		.fn_low = pd_q62_to_ppb(pl->fn_low),
		.window_ns = pl->window_ns, .window_pkts = pl->window_pkts,
		.capacity = pl->capacity, .rate = pl->rate,
		.subwindows = pl->subwindows, .warn_below = pl->warn_below,
	};
}

/* Packets per second as people write them: "2.5 Mpps", "100 pps". */
static const char *rate_str(char *buf, size_t len, uint64_t pps)
{
	if (pps >= 1000000)
		snprintf(buf, len, "%.4g Mpps", pps / 1e6);
	else if (pps >= 1000)
		snprintf(buf, len, "%.4g kpps", pps / 1e3);
	else
		snprintf(buf, len, "%llu pps", (unsigned long long)pps);
	return buf;
}

/* A window family's plan: JSON members, or its lines of text. */
static void print_window_view(const struct plan_view *v)
{
	const char *what = v->ops->counting ? "packets" : "keys";
	char b1[32];

	if (json) {
		printf(",\"k\":%u,\"cells\":%llu,\"capacity\":%llu,\"subwindows\":%u,\"warn_below\":%u,\"fp_bound\":%.9g",
		       v->k, (unsigned long long)v->cells,
		       (unsigned long long)v->capacity, v->subwindows,
		       v->warn_below, v->fp / 1e9);
		if (v->window_ns)
			printf(",\"window_ns\":%llu,\"rate\":%llu",
			       (unsigned long long)v->window_ns,
			       (unsigned long long)v->rate);
		else
			printf(",\"window_packets\":%llu",
			       (unsigned long long)v->window_pkts);
		return;
	}
	if (v->window_ns)
		printf("window   %s", time_str(b1, sizeof(b1), v->window_ns));
	else
		printf("window   the last %llu packets",
		       (unsigned long long)v->window_pkts);
	if (v->subwindows > 1)
		printf(" in %u subwindows", v->subwindows);
	printf("; holds %llu %s per %s", (unsigned long long)v->capacity,
	       what, v->subwindows > 1 ? "subwindow" :
	       v->ops->counting ? "window" : "period");
	if (v->window_ns)
		printf(" (%s over the window)", rate_str(b1, sizeof(b1), v->rate));
	printf("\n");
	printf("cells    %llu %s, k %u\n", (unsigned long long)v->cells,
	       v->ops->counting ?
	       (pd_tw_slide_narrow(v->cells, v->capacity) ?
		"16-bit packet stamps (and a ring of the times of the last packets)" :
		"32-bit packet stamps (and a ring of the times of the last packets)") :
	       v->subwindows > 1 ? "positions of one bit per subwindow and a spare" :
	       "positions of two bits (the filter and its spare)", v->k);
	printf("model    fp bound %s at capacity", pct(b1, sizeof(b1), v->fp));
	if (v->window_ns)
		printf("; beyond it the window shortens (early expiries)");
	if (v->window_ns && v->warn_below)
		printf(", logged below %u%% of the window", v->warn_below);
	printf("\n");
}

/* JSON members (each after a comma), or the lines of text of a plan. */
static void print_plan_view(const struct plan_view *v)
{
	const struct pd_filter_ops *ops = v->ops;
	bool fn_low = (v->given & PD_PLAN_HAS_FN) &&
		      (ops->settings & PD_SET_IMPORTANCE);
	char b1[32], b2[32];

	if (v->given & PD_PLAN_HAS_WINDOW) {
		print_window_view(v);
		return;
	}
	if (json) {
		printf(",\"k\":%u,\"cells\":%llu", v->k,
		       (unsigned long long)v->cells);
		if (ops->counting)
			printf(",\"max\":%u,\"bits\":%u,\"p\":%u", v->max,
			       v->bits, v->p);
		if (v->p_exact_q32)
			printf(",\"p_exact\":%.6f",
			       (double)v->p_exact_q32 / 4294967296.0);
		printf(",\"fp_bound\":%.9g", v->fp / 1e9);
		if (v->given & PD_PLAN_HAS_ZERO)
			printf(",\"stable_point\":%.9g", v->zero / 1e9);
		if (v->given & PD_PLAN_HAS_LOAD)
			printf(",\"stable_load\":%.9g", v->load / 1e9);
		if (v->given & PD_PLAN_HAS_FN)
			printf(",\"gap\":%llu,\"fn_at_gap\":%.9g",
			       (unsigned long long)v->gap, v->fn / 1e9);
		if (fn_low)
			printf(",\"fn_low_at_gap\":%.9g", v->fn_low / 1e9);
		if (ops->settings & PD_SET_PSTAR)
			printf(",\"p_star\":%.9g", v->p_star / 1e9);
		return;
	}
	if (ops->counting) {
		printf("cells    %llu of %u bits: max %u, k %u, p %u",
		       (unsigned long long)v->cells, v->bits, v->max, v->k,
		       v->p);
		if (v->p_exact_q32)
			printf(" (Eq. 17: %.2f)",
			       (double)v->p_exact_q32 / 4294967296.0);
		printf("\n");
	} else {
		printf("arrays   %u of %llu bits\n", v->k,
		       (unsigned long long)v->cells);
	}
	if (ops->settings & PD_SET_PSTAR)
		printf("p*       %s (phase 3 after bits / p* packets)\n",
		       pct(b1, sizeof(b1), v->p_star));
	printf("model    fp bound %s", pct(b1, sizeof(b1), v->fp));
	if (v->given & PD_PLAN_HAS_ZERO)
		printf(", stable zeros %s", pct(b2, sizeof(b2), v->zero));
	if ((v->given & PD_PLAN_HAS_LOAD) && v->load >= PD_PPB_ONE)
		printf(", no stable load: the load and fp rise towards 100%% (our model)");
	else if (v->given & PD_PLAN_HAS_LOAD)
		printf(", stable load %s (our model: the paper gives none)",
		       pct(b2, sizeof(b2), v->load));
	if (v->given & PD_PLAN_HAS_FN)
		printf(", fn at gap %llu: %s", (unsigned long long)v->gap,
		       pct(b2, sizeof(b2), v->fn));
	if (fn_low)
		printf(" (most important), %s (least)",
		       pct(b2, sizeof(b2), v->fn_low));
	printf("\n");
}

/* The kernel's plan: the plan nest of a reply, its filter-plan within. */
static void print_plan(const struct nlattr *nest, const struct nlattr *plan_top)
{
	const struct nlattr *t[PKTDEDUP_A_PLAN_MAX + 1];
	struct plan_view v;
	char b1[32];

	plan_view_nl(nest, &v);
	nl_nest(plan_top, &nls_plan, t);
	if (json) {
		printf("\"kind\":\"%s\",\"filters\":%u,\"mem_total\":%llu",
		       v.ops->name, u32a(t, PKTDEDUP_A_PLAN_FILTERS),
		       (unsigned long long)u64a(t, PKTDEDUP_A_PLAN_MEM_TOTAL));
	} else {
		printf("filters  %u (%s), %s in all\n",
		       u32a(t, PKTDEDUP_A_PLAN_FILTERS), v.ops->name,
		       size_str(b1, sizeof(b1),
				u64a(t, PKTDEDUP_A_PLAN_MEM_TOTAL)));
	}
	print_plan_view(&v);
}

static int show_cb(const struct nlattr **tb, void *data)
{
	const struct nlattr *c[PKTDEDUP_A_CONFIG_MAX + 1],
		*f[PKTDEDUP_A_FILTER_MAX + 1], *s[PKTDEDUP_A_SETTINGS_MAX + 1],
		*pl[PKTDEDUP_A_PLAN_MAX + 1];
	const char *key, *action, *scope, *hook;
	const struct pd_filter_ops *ops;
	struct select_view sel;
	bool tos, active, fixed;
	char b1[32], b2[32];
	uint8_t bits, imp;
	int32_t prio;

	(void)data;
	nl_nest(tb[PKTDEDUP_A_CONFIG], &nls_config, c);
	nl_nest(c[PKTDEDUP_A_CONFIG_FILTER], &nls_filter, f);
	ops = kind_family(u32a(f, PKTDEDUP_A_FILTER_KIND));
	nl_nest(f[family_nest(ops)], nls_filter.attrs[family_nest(ops)].nested,
		s);
	nl_nest(tb[PKTDEDUP_A_PLAN], &nls_plan, pl);
	active = u8a(c, PKTDEDUP_A_CONFIG_STATE) == PKTDEDUP_STATE_ACTIVE;
	key = name_of(pd_key_mode_names, PD_KEY_NMODES,
		      u8a(c, PKTDEDUP_A_CONFIG_KEY));
	action = name_of(pd_action_names, PD_NACTIONS,
			 u8a(c, PKTDEDUP_A_CONFIG_ACTION));
	scope = name_of(pd_scope_names, PD_NSCOPES,
			u8a(c, PKTDEDUP_A_CONFIG_SCOPE));
	hook = pd_placement_name(u8a(c, PKTDEDUP_A_CONFIG_HOOK));
	tos = u32a(c, PKTDEDUP_A_CONFIG_KEY_FLAGS) & PKTDEDUP_KEY_F_IGNORE_TOS;
	prio = (int32_t)u32a(c, PKTDEDUP_A_CONFIG_PRIORITY);
	bits = u8a(s, PKTDEDUP_A_SETTINGS_CELL_BITS);
	imp = u8a(s, PKTDEDUP_A_SETTINGS_IMPORTANCE) ? 1 : 0;
	fixed = u8a(c, PKTDEDUP_A_CONFIG_SEED_MODE) == PKTDEDUP_SEED_MODE_FIXED;
	select_view(c, &sel);
	if (json) {
		printf("{\"state\":\"%s\",\"key\":\"%s\",\"payload\":%u,"
		       "\"ignore_tos\":%s,\"action\":\"%s\","
		       "\"mark_value\":%u,\"mark_mask\":%u,\"hook\":\"%s\","
		       "\"priority\":%d,\"scope\":\"%s\",\"filter\":\"%s\","
		       "\"mem\":%llu",
		       active ? "active" : "idle", key,
		       u16a(c, PKTDEDUP_A_CONFIG_PAYLOAD), tos ? "true" : "false",
		       action, u32a(c, PKTDEDUP_A_CONFIG_MARK_VALUE),
		       u32a(c, PKTDEDUP_A_CONFIG_MARK_MASK), hook, prio, scope,
		       ops->name,
		       (unsigned long long)u64a(f, PKTDEDUP_A_FILTER_MEM));
		printf(",\"dev\":\"%s\",\"proto\":\"%s\",\"match_mark\":\"%s\"",
		       sel.dev, sel.proto, sel.mark);
		if (*sel.devices)
			printf(",\"devices\":[%s]", sel.devices);
		/* the value only for CAP_NET_ADMIN: the kernel sends no more */
		printf(",\"seed_mode\":\"%s\"", fixed ? "fixed" : "random");
		if (c[PKTDEDUP_A_CONFIG_SEED])
			printf(",\"seed\":%llu", (unsigned long long)
			       u64a(c, PKTDEDUP_A_CONFIG_SEED));
		if (s[PKTDEDUP_A_SETTINGS_FPS])
			printf(",\"fps\":%.9g",
			       u32a(s, PKTDEDUP_A_SETTINGS_FPS) / 1e9);
		if (s[PKTDEDUP_A_SETTINGS_CELL_BITS])
			printf(",\"max\":%u", bits ? (1u << bits) - 1 : 0);
		if (s[PKTDEDUP_A_SETTINGS_K])
			printf(",\"k\":%u", u8a(s, PKTDEDUP_A_SETTINGS_K));
		if (s[PKTDEDUP_A_SETTINGS_P])
			printf(",\"p\":%u", u32a(s, PKTDEDUP_A_SETTINGS_P));
		if (s[PKTDEDUP_A_SETTINGS_GAP])
			printf(",\"gap\":%llu",
			       (unsigned long long)u64a(s, PKTDEDUP_A_SETTINGS_GAP));
		if (s[PKTDEDUP_A_SETTINGS_P_STAR])
			printf(",\"p_star\":%.9g",
			       u32a(s, PKTDEDUP_A_SETTINGS_P_STAR) / 1e9);
		if (s[PKTDEDUP_A_SETTINGS_IMPORTANCE])
			printf(",\"importance\":\"%s\",\"importance_mask\":%u",
			       importance_names[imp],
			       u32a(s, PKTDEDUP_A_SETTINGS_IMPORTANCE_MASK));
		if (s[PKTDEDUP_A_SETTINGS_WINDOW_NS])
			printf(",\"window_ns\":%llu", (unsigned long long)
			       u64a(s, PKTDEDUP_A_SETTINGS_WINDOW_NS));
		if (s[PKTDEDUP_A_SETTINGS_WINDOW_PACKETS])
			printf(",\"window_packets\":%u",
			       u32a(s, PKTDEDUP_A_SETTINGS_WINDOW_PACKETS));
		if (s[PKTDEDUP_A_SETTINGS_RATE])
			printf(",\"rate\":%u", u32a(s, PKTDEDUP_A_SETTINGS_RATE));
		if (s[PKTDEDUP_A_SETTINGS_SUBWINDOWS])
			printf(",\"subwindows\":%u",
			       u8a(s, PKTDEDUP_A_SETTINGS_SUBWINDOWS));
		if (s[PKTDEDUP_A_SETTINGS_LAYOUT])
			printf(",\"layout\":\"%s\"",
			       u8a(s, PKTDEDUP_A_SETTINGS_LAYOUT) ==
			       PKTDEDUP_LAYOUT_BLOCKED ? "blocked" : "flat");
		if (active && tb[PKTDEDUP_A_PLAN]) {
			printf(",\"plan\":{");
			print_plan(pl[PKTDEDUP_A_PLAN_FILTER], tb[PKTDEDUP_A_PLAN]);
			printf("}");
		}
		print_budget(tb[PKTDEDUP_A_BUDGET]);
		printf("}\n");
		return MNL_CB_OK;
	}
	printf("key      %s", key);
	if (!strcmp(key, "packet"))
		printf(" (L4 header + %u payload bytes, tos %s)",
		       u16a(c, PKTDEDUP_A_CONFIG_PAYLOAD),
		       tos ? "ignored" : "counted");
	printf("\naction   %s", action);
	if (!strcmp(action, "mark"))
		printf(" 0x%x/0x%x", u32a(c, PKTDEDUP_A_CONFIG_MARK_VALUE),
		       u32a(c, PKTDEDUP_A_CONFIG_MARK_MASK));
	printf("\nhook     %s, priority %d\n", hook, prio);
	if (strcmp(sel.dev, "any") || strcmp(sel.proto, "any") ||
	    strcmp(sel.mark, "any"))
		printf("select   dev %s%s%s%s, proto %s, match-mark %s\n",
		       sel.dev, *sel.note ? " (" : "", sel.note,
		       *sel.note ? ")" : "", sel.proto, sel.mark);
	else
		printf("select   every packet (dev, proto, match-mark any)\n");
	if (fixed && c[PKTDEDUP_A_CONFIG_SEED])
		printf("seed     fixed, %llu: the filters are predictable to whoever knows it (testing and replay only)\n",
		       (unsigned long long)u64a(c, PKTDEDUP_A_CONFIG_SEED));
	else if (fixed)
		printf("seed     fixed (its value is shown to CAP_NET_ADMIN only)\n");
	if (ops->window && (u32a(s, PKTDEDUP_A_SETTINGS_RATE) ||
			    s[PKTDEDUP_A_SETTINGS_WINDOW_PACKETS]))
		printf("filter   %s, sized by its %s", ops->name,
		       s[PKTDEDUP_A_SETTINGS_WINDOW_PACKETS] ? "window" : "rate");
	else
		printf("filter   %s, %s per filter", ops->name,
		       size_str(b1, sizeof(b1), u64a(f, PKTDEDUP_A_FILTER_MEM)));
	if (s[PKTDEDUP_A_SETTINGS_FPS])
		printf(", target fp %s",
		       pct(b2, sizeof(b2), u32a(s, PKTDEDUP_A_SETTINGS_FPS)));
	if (u8a(s, PKTDEDUP_A_SETTINGS_LAYOUT) == PKTDEDUP_LAYOUT_BLOCKED)
		printf(", blocked (a key's cells in one cache line)");
	printf("\n");
	if (s[PKTDEDUP_A_SETTINGS_IMPORTANCE]) {
		if (imp)
			printf("import.  from the mark under 0x%x\n",
			       u32a(s, PKTDEDUP_A_SETTINGS_IMPORTANCE_MASK));
		else
			printf("import.  from the DSCP: 7 levels, CS0/LE/CS1 lowest, CS6/CS7 highest%s\n",
			       ops->kind == PKTDEDUP_FILTER_KIND_IBF_2C ?
			       "; CS4/AF4x and above important" : "");
	}
	if (!active)
		printf("state    idle: nothing allocated and no hook in this namespace;\n"
		       "         'dedupctl enable' (or any 'dedupctl set') starts it with these settings\n");
	else if (!tb[PKTDEDUP_A_PLAN])
		printf("state    active, but its filters could not be rebuilt: see dmesg\n");
	else
		print_plan(pl[PKTDEDUP_A_PLAN_FILTER], tb[PKTDEDUP_A_PLAN]);
	print_budget(tb[PKTDEDUP_A_BUDGET]);
	return MNL_CB_OK;
}

/* A GET_CONFIG reply as the configuration gauges of stats -o prometheus. */
int config_prom_cb(const struct nlattr **tb, void *data)
{
	const struct nlattr *c[PKTDEDUP_A_CONFIG_MAX + 1],
		*f[PKTDEDUP_A_FILTER_MAX + 1], *pl[PKTDEDUP_A_PLAN_MAX + 1],
		*fp[PKTDEDUP_A_FILTER_PLAN_MAX + 1],
		*b[PKTDEDUP_A_BUDGET_MAX + 1];
	struct prom_config *pc = data;

	nl_nest(tb[PKTDEDUP_A_CONFIG], &nls_config, c);
	nl_nest(c[PKTDEDUP_A_CONFIG_FILTER], &nls_filter, f);
	nl_nest(tb[PKTDEDUP_A_PLAN], &nls_plan, pl);
	nl_nest(pl[PKTDEDUP_A_PLAN_FILTER], &nls_filter_plan, fp);
	nl_nest(tb[PKTDEDUP_A_BUDGET], &nls_budget, b);
	pc->active = u8a(c, PKTDEDUP_A_CONFIG_STATE) == PKTDEDUP_STATE_ACTIVE &&
		     tb[PKTDEDUP_A_PLAN];
	pc->filter = kind_family(u32a(f, PKTDEDUP_A_FILTER_KIND))->name;
	pc->key = name_of(pd_key_mode_names, PD_KEY_NMODES,
			  u8a(c, PKTDEDUP_A_CONFIG_KEY));
	pc->action = name_of(pd_action_names, PD_NACTIONS,
			     u8a(c, PKTDEDUP_A_CONFIG_ACTION));
	pc->scope = name_of(pd_scope_names, PD_NSCOPES,
			    u8a(c, PKTDEDUP_A_CONFIG_SCOPE));
	pc->hook = pd_placement_name(u8a(c, PKTDEDUP_A_CONFIG_HOOK));
	pc->seed_fixed = u8a(c, PKTDEDUP_A_CONFIG_SEED_MODE) ==
			 PKTDEDUP_SEED_MODE_FIXED;
	pc->filters = u32a(pl, PKTDEDUP_A_PLAN_FILTERS);
	pc->filter_mem = u64a(f, PKTDEDUP_A_FILTER_MEM);
	pc->has_fp_bound = fp[PKTDEDUP_A_FILTER_PLAN_FP_BOUND];
	pc->fp_bound_ppb = u32a(fp, PKTDEDUP_A_FILTER_PLAN_FP_BOUND);
	pc->mem_filters = u64a(b, PKTDEDUP_A_BUDGET_FILTERS);
	pc->mem_sources = u64a(b, PKTDEDUP_A_BUDGET_SOURCES);
	pc->mem_cap = u64a(b, PKTDEDUP_A_BUDGET_CAP);
	pc->mem_peak = u64a(b, PKTDEDUP_A_BUDGET_PEAK);
	return MNL_CB_OK;
}

int cmd_show(int argc, char **argv)
{
	struct nl n;

	if (argc)
		usage_error("show: unexpected '%s'", argv[0]);
	open_nl(&n);
	talk(&n, nl_request(&n, PKTDEDUP_CMD_GET_CONFIG, false), show_cb, NULL);
	return 0;
}

/* ---- set and plan: the filter settings ---- */

/* A filter setting: its name, the PD_SET_* it is, its values. */
struct fsetting {
	const char *name;
	uint32_t flag;
};

/*
 * The rate is a setting of the window families (PD_SET_WINDOW) but goes
 * into a request on its own: a window given alone keeps the rate.
 */
#define DC_SET_RATE 0x10000

static const struct fsetting fsettings[] = {
	{ "fps", PD_SET_FPS }, { "max", PD_SET_MAX }, { "k", PD_SET_K },
	{ "p", PD_SET_P }, { "gap", PD_SET_GAP }, { "p-star", PD_SET_PSTAR },
	{ "importance", PD_SET_IMPORTANCE }, { "window", PD_SET_WINDOW },
	{ "rate", DC_SET_RATE }, { "subwindows", PD_SET_SUBWIN },
	{ "warn-below", PD_SET_WARN }, { "layout", PD_SET_LAYOUT },
};

/* What a family must take for a setting's flag. */
static uint32_t family_flag(uint32_t flag)
{
	return flag == DC_SET_RATE ? PD_SET_WINDOW : flag;
}

static uint32_t fsetting_flag(const char *k)
{
	unsigned int i;

	for (i = 0; i < sizeof(fsettings) / sizeof(fsettings[0]); i++)
		if (!strcmp(fsettings[i].name, k))
			return fsettings[i].flag;
	return 0;
}

/* The arguments a setting takes: importance mark takes a mask too. */
static int setting_args(int argc, char **argv, int i)
{
	if (i + 1 >= argc)
		usage_error("'%s' needs a value", argv[i]);
	if (!strcmp(argv[i], "importance") && !strcmp(argv[i + 1], "mark")) {
		if (i + 2 >= argc)
			usage_error("importance mark: needs a MASK (e.g. 0xff)");
		return 3;
	}
	return 2;
}

/* Whether argv has setting name. */
static bool has_setting(int argc, char **argv, const char *name)
{
	int i;

	for (i = 0; i < argc; i += setting_args(argc, argv, i))
		if (!strcmp(argv[i], name))
			return true;
	return false;
}

/* The filter family a command names with "filter F", or NULL. */
static const struct pd_filter_ops *named_family(int argc, char **argv)
{
	const struct pd_filter_ops *ops = NULL;
	int i;

	for (i = 0; i < argc; i += setting_args(argc, argv, i)) {
		if (strcmp(argv[i], "filter"))
			continue;
		ops = pd_filter_family_by_name(argv[i + 1]);
		if (!ops) {
			char names[PD_FILTER_NAMES_LEN];

			pd_filter_family_names(names, sizeof(names), ", ");
			usage_error("filter: '%s' is not one of %s", argv[i + 1],
				    names);
		}
	}
	return ops;
}

/* A filter setting into req (the values, validated; exits 2 if bad). */
static void fsetting_read(const char *k, char **v, struct pd_filter_req *req)
{
	if (!strcmp(k, "fps")) {
		req->fps_ppb = ppb_arg(k, v[0]);
	} else if (!strcmp(k, "max")) {
		req->max = auto_arg(k, v[0], PD_FILTER_AUTO, 1, 255);
		if (req->max != PD_FILTER_AUTO && !pd_sbf_bits_for_max(req->max))
			usage_error("max: '%s' is not 2^j - 1 (1, 3, 7, 15, ... 255) or auto",
				    v[0]);
	} else if (!strcmp(k, "k")) {
		req->k = auto_arg(k, v[0], PD_FILTER_AUTO, 1, PKTDEDUP_K_MAX);
	} else if (!strcmp(k, "p")) {
		req->p = auto_arg(k, v[0], PD_FILTER_AUTO, 0, 0xfffffffeu);
	} else if (!strcmp(k, "gap")) {
		/* a u64: through auto_arg(), 2^32 came out as 0, auto */
		req->gap = strcmp(v[0], "auto") ?
			   num_arg(k, v[0], 1, 1ULL << 32) : 0;
	} else if (!strcmp(k, "p-star")) {
		req->p_star_ppb = ppb_arg(k, v[0]);
	} else if (!strcmp(k, "window")) {
		if (!parse_window(v[0], &req->window_ns, &req->window_pkts) ||
		    (!req->window_ns && !req->window_pkts) ||
		    (req->window_ns && (req->window_ns < PD_TW_MIN_NS ||
					req->window_ns > PD_TW_MAX_NS)) ||
		    req->window_pkts > PD_TW_MAX_PACKETS)
			usage_error("window: '%s' is not a time from 1us to 1h (e.g. 2ms, 500us, 10s) or a packet count up to 2^31 (e.g. 100000p)",
				    v[0]);
	} else if (!strcmp(k, "rate")) {
		uint64_t r;

		if (!parse_rate(v[0], &r) || r > UINT32_MAX)
			usage_error("rate: '%s' is not packets per second up to 4G (e.g. 2M, 500k, 0 to size by mem)",
				    v[0]);
		req->rate = (uint32_t)r;
	} else if (!strcmp(k, "subwindows")) {
		req->subwindows = (uint32_t)num_arg(k, v[0], 2,
						    PD_TW_MAX_SUBWIN);
	} else if (!strcmp(k, "warn-below")) {
		char pct_buf[8];
		size_t l = strlen(v[0]);

		/* a percentage, "50" or "50%" */
		if (l && l < sizeof(pct_buf) && v[0][l - 1] == '%') {
			memcpy(pct_buf, v[0], l - 1);
			pct_buf[l - 1] = '\0';
			req->warn_below = (uint32_t)num_arg(k, pct_buf, 0, 100);
		} else {
			req->warn_below = (uint32_t)num_arg(k, v[0], 0, 100);
		}
	} else if (!strcmp(k, "layout")) {
		if (!strcmp(v[0], "flat"))
			req->layout = PKTDEDUP_LAYOUT_FLAT;
		else if (!strcmp(v[0], "blocked"))
			req->layout = PKTDEDUP_LAYOUT_BLOCKED;
		else
			usage_error("layout: '%s' is not flat or blocked", v[0]);
	} else if (!strcmp(k, "importance")) {
		if (!strcmp(v[0], "dscp")) {
			req->importance = PKTDEDUP_IMPORTANCE_DSCP;
		} else if (!strcmp(v[0], "mark")) {
			req->importance = PKTDEDUP_IMPORTANCE_MARK;
			req->importance_mask =
				(uint32_t)num_arg("importance mask", v[1], 1,
						  0xffffffffu);
		} else {
			usage_error("importance: '%s' is not dscp or mark MASK",
				    v[0]);
		}
	}
}

/* Put the settings of flags (PD_SET_*) from req into a settings nest. */
static void fsettings_put(struct nlmsghdr *nlh, const struct pd_filter_req *r,
			  uint32_t flags)
{
	if (flags & PD_SET_FPS)
		mnl_attr_put_u32(nlh, PKTDEDUP_A_SETTINGS_FPS, r->fps_ppb);
	if (flags & PD_SET_MAX)
		mnl_attr_put_u8(nlh, PKTDEDUP_A_SETTINGS_CELL_BITS,
				r->max == PD_FILTER_AUTO ? 0 :
				(uint8_t)pd_sbf_bits_for_max(r->max));
	if (flags & PD_SET_K)
		mnl_attr_put_u8(nlh, PKTDEDUP_A_SETTINGS_K,
				r->k == PD_FILTER_AUTO ? 0 : (uint8_t)r->k);
	if (flags & PD_SET_P)
		mnl_attr_put_u32(nlh, PKTDEDUP_A_SETTINGS_P,
				 r->p == PD_FILTER_AUTO ? PKTDEDUP_P_AUTO : r->p);
	if (flags & PD_SET_GAP)
		mnl_attr_put_u64(nlh, PKTDEDUP_A_SETTINGS_GAP, r->gap);
	if (flags & PD_SET_PSTAR)
		mnl_attr_put_u32(nlh, PKTDEDUP_A_SETTINGS_P_STAR, r->p_star_ppb);
	if ((flags & PD_SET_WINDOW) && r->window_ns)
		mnl_attr_put_u64(nlh, PKTDEDUP_A_SETTINGS_WINDOW_NS, r->window_ns);
	if ((flags & PD_SET_WINDOW) && r->window_pkts)
		mnl_attr_put_u32(nlh, PKTDEDUP_A_SETTINGS_WINDOW_PACKETS,
				 (uint32_t)r->window_pkts);
	if (flags & DC_SET_RATE)
		mnl_attr_put_u32(nlh, PKTDEDUP_A_SETTINGS_RATE, r->rate);
	if (flags & PD_SET_SUBWIN)
		mnl_attr_put_u8(nlh, PKTDEDUP_A_SETTINGS_SUBWINDOWS,
				(uint8_t)r->subwindows);
	if (flags & PD_SET_WARN)
		mnl_attr_put_u8(nlh, PKTDEDUP_A_SETTINGS_WARN_BELOW,
				(uint8_t)r->warn_below);
	if (flags & PD_SET_LAYOUT)
		mnl_attr_put_u8(nlh, PKTDEDUP_A_SETTINGS_LAYOUT, r->layout);
	if (flags & PD_SET_IMPORTANCE) {
		mnl_attr_put_u8(nlh, PKTDEDUP_A_SETTINGS_IMPORTANCE,
				r->importance);
		if (r->importance == PKTDEDUP_IMPORTANCE_MARK)
			mnl_attr_put_u32(nlh, PKTDEDUP_A_SETTINGS_IMPORTANCE_MASK,
					 r->importance_mask);
	}
}

/* A fixed seed: a u64, decimal or 0x hex; exits 2 if bad. */
static uint64_t seed_arg(const char *v)
{
	uint64_t x;

	if (!parse_u64(v, 0, UINT64_MAX, &x))
		usage_error("seed: '%s' is not random or a number from 0 to 2^64 - 1 (decimal or 0x hex)",
			    v);
	return x;
}

/* A configuration setting, into the config nest; exits 2 if bad. */
static void put_setting(struct nlmsghdr *nlh, const char *k, const char *v)
{
	if (!strcmp(k, "key")) {
		mnl_attr_put_u8(nlh, PKTDEDUP_A_CONFIG_KEY,
				(uint8_t)name_arg(k, v, pd_key_mode_names,
						  PD_KEY_NMODES));
	} else if (!strcmp(k, "payload")) {
		mnl_attr_put_u16(nlh, PKTDEDUP_A_CONFIG_PAYLOAD,
				 (uint16_t)num_arg(k, v, 0, PKTDEDUP_PAYLOAD_MAX));
	} else if (!strcmp(k, "ignore-tos")) {
		mnl_attr_put_u32(nlh, PKTDEDUP_A_CONFIG_KEY_FLAGS,
				 onoff_arg(k, v) ? PKTDEDUP_KEY_F_IGNORE_TOS : 0);
	} else if (!strcmp(k, "action")) {
		mnl_attr_put_u8(nlh, PKTDEDUP_A_CONFIG_ACTION,
				(uint8_t)name_arg(k, v, pd_action_names,
						  PD_NACTIONS));
	} else if (!strcmp(k, "mark")) {
		uint32_t value, mask;

		mark_arg(v, &value, &mask);
		mnl_attr_put_u32(nlh, PKTDEDUP_A_CONFIG_MARK_VALUE, value);
		mnl_attr_put_u32(nlh, PKTDEDUP_A_CONFIG_MARK_MASK, mask);
	} else if (!strcmp(k, "scope")) {
		mnl_attr_put_u8(nlh, PKTDEDUP_A_CONFIG_SCOPE,
				(uint8_t)name_arg(k, v, pd_scope_names,
						  PD_NSCOPES));
	} else if (!strcmp(k, "hook")) {
		const char *hooks[PD_NHOOKS];
		unsigned int h;

		for (h = 0; h < PD_NHOOKS; h++)
			hooks[h] = pd_placements[h].name;
		mnl_attr_put_u8(nlh, PKTDEDUP_A_CONFIG_HOOK,
				(uint8_t)name_arg(k, v, hooks, PD_NHOOKS));
	} else if (!strcmp(k, "state")) {
		static const char *const states[] = {
			[PKTDEDUP_STATE_IDLE] = "idle",
			[PKTDEDUP_STATE_ACTIVE] = "active",
		};

		mnl_attr_put_u8(nlh, PKTDEDUP_A_CONFIG_STATE,
				(uint8_t)name_arg(k, v, states, 2));
	} else if (!strcmp(k, "priority")) {
		char *end;
		long p;

		errno = 0;
		p = strtol(v, &end, 0);
		if (errno || *end || !*v || p <= INT32_MIN || p >= INT32_MAX)
			usage_error("priority: '%s' is not a hook priority", v);
		mnl_attr_put_u32(nlh, PKTDEDUP_A_CONFIG_PRIORITY, (uint32_t)p);
	} else if (!strcmp(k, "seed")) {
		/* random, or a fixed seed: a u64, as dedup-sim --seed reads it */
		if (!strcmp(v, "random"))
			mnl_attr_put_u8(nlh, PKTDEDUP_A_CONFIG_SEED_MODE,
					PKTDEDUP_SEED_MODE_RANDOM);
		else
			mnl_attr_put_u64(nlh, PKTDEDUP_A_CONFIG_SEED,
					 seed_arg(v));
	} else if (!put_select_setting(nlh, k, v)) {
		usage_error("set: unknown setting '%s'", k);
	}
}

/*
 * Put the settings of argv into nlh: the configuration's in its nest, the
 * filter's kind and memory in the filter nest, and each family setting in
 * the nest of family target if it takes it, else in that of the first
 * family that does. Bad values exit with status 2 before anything is sent.
 */
void put_settings(struct nlmsghdr *nlh, int argc, char **argv,
		  const struct pd_filter_ops *target)
{
	struct pd_filter_req req;
	struct nlattr *cfg, *filter, *fam;
	uint32_t set[PD_FILTER_NKINDS] = { 0 };
	unsigned int kind;
	int i, n;

	memset(&req, 0, sizeof(req));
	cfg = mnl_attr_nest_start(nlh, PKTDEDUP_A_CONFIG);
	for (i = 0; i < argc; i += n) {
		n = setting_args(argc, argv, i);
		if (!strcmp(argv[i], "filter") || !strcmp(argv[i], "mem") ||
		    fsetting_flag(argv[i]))
			continue;
		/*
		 * seed N and seed random are two attributes: only the last
		 * is sent (checked all the same), as the last of a setting
		 * given twice is the kernel's
		 */
		if (!strcmp(argv[i], "seed") && i + n < argc &&
		    has_setting(argc - i - n, argv + i + n, "seed")) {
			if (strcmp(argv[i + 1], "random"))
				seed_arg(argv[i + 1]);
			continue;
		}
		put_setting(nlh, argv[i], argv[i + 1]);
	}
	filter = mnl_attr_nest_start(nlh, PKTDEDUP_A_CONFIG_FILTER);
	for (i = 0; i < argc; i += n) {
		uint32_t flag = fsetting_flag(argv[i]);

		n = setting_args(argc, argv, i);
		if (!strcmp(argv[i], "filter")) {
			mnl_attr_put_u32(nlh, PKTDEDUP_A_FILTER_KIND,
					 named_family(2, argv + i)->kind);
		} else if (!strcmp(argv[i], "mem")) {
			mnl_attr_put_u64(nlh, PKTDEDUP_A_FILTER_MEM,
					 size_arg("mem", argv[i + 1]));
		} else if (flag) {
			fsetting_read(argv[i], argv + i + 1, &req);
			if (target->settings & family_flag(flag)) {
				set[target->kind] |= flag;
				continue;
			}
			for (kind = 0; kind < PD_FILTER_NKINDS; kind++)
				if (pd_filter_family(kind)->settings &
				    family_flag(flag))
					break;
			set[kind] |= flag;
		}
	}
	for (kind = 0; kind < PD_FILTER_NKINDS; kind++) {
		if (!set[kind])
			continue;
		fam = mnl_attr_nest_start(nlh,
					  family_nest(pd_filter_family(kind)));
		fsettings_put(nlh, &req, set[kind]);
		mnl_attr_nest_end(nlh, fam);
	}
	mnl_attr_nest_end(nlh, filter);
	mnl_attr_nest_end(nlh, cfg);
}

static int kind_cb(const struct nlattr **tb, void *data)
{
	const struct nlattr *c[PKTDEDUP_A_CONFIG_MAX + 1],
		*f[PKTDEDUP_A_FILTER_MAX + 1];

	nl_nest(tb[PKTDEDUP_A_CONFIG], &nls_config, c);
	nl_nest(c[PKTDEDUP_A_CONFIG_FILTER], &nls_filter, f);
	*(uint32_t *)data = u32a(f, PKTDEDUP_A_FILTER_KIND);
	return MNL_CB_OK;
}

/*
 * The reply to a change: with action drop, warn when the model's FP of a
 * new packet in the filter's steady state exceeds the target in force (1%,
 * the SBF's default, for the families that take none): such packets are
 * dropped as copies. The change is made; the warning says what it costs.
 */
static int set_cb(const struct nlattr **tb, void *data)
{
	const struct nlattr *c[PKTDEDUP_A_CONFIG_MAX + 1],
		*f[PKTDEDUP_A_FILTER_MAX + 1], *s[PKTDEDUP_A_SETTINGS_MAX + 1],
		*pl[PKTDEDUP_A_PLAN_MAX + 1];
	const struct pd_filter_ops *ops;
	struct plan_view v;
	uint32_t target;
	char b1[32], b2[32];

	(void)data;
	if (!tb[PKTDEDUP_A_CONFIG] || !tb[PKTDEDUP_A_PLAN])
		return MNL_CB_OK;
	nl_nest(tb[PKTDEDUP_A_CONFIG], &nls_config, c);
	if (u8a(c, PKTDEDUP_A_CONFIG_ACTION) != PKTDEDUP_ACTION_DROP)
		return MNL_CB_OK;
	nl_nest(c[PKTDEDUP_A_CONFIG_FILTER], &nls_filter, f);
	ops = kind_family(u32a(f, PKTDEDUP_A_FILTER_KIND));
	nl_nest(f[family_nest(ops)], nls_filter.attrs[family_nest(ops)].nested,
		s);
	target = s[PKTDEDUP_A_SETTINGS_FPS] ?
		 u32a(s, PKTDEDUP_A_SETTINGS_FPS) :
		 pd_sbf_family.default_fps_ppb;
	nl_nest(tb[PKTDEDUP_A_PLAN], &nls_plan, pl);
	plan_view_nl(pl[PKTDEDUP_A_PLAN_FILTER], &v);
	if (v.fp > target)
		fprintf(stderr,
			"dedupctl: warning: action drop with %s: by the model, %s of new packets are taken for copies and dropped once the filter is in its steady state (target %s; see 'dedupctl show')\n",
			ops->name, pct(b1, sizeof(b1), v.fp),
			pct(b2, sizeof(b2), target));
	return MNL_CB_OK;
}

/*
 * "landmark D" is the landmark window's own way to say it: "filter
 * landmark window D". Returns argv with it spelled out (argc updated).
 */
static char **expand_landmark(int *argc, char **argv)
{
	static char *out[256];
	int i, j, k, n = 0;

	for (i = 0; i < *argc; i += k) {
		k = setting_args(*argc, argv, i);
		if (n + 4 > (int)(sizeof(out) / sizeof(out[0])))
			usage_error("too many settings");
		if (!strcmp(argv[i], "landmark")) {
			out[n++] = "filter";
			out[n++] = "landmark";
			out[n++] = "window";
			out[n++] = argv[i + 1];
			continue;
		}
		for (j = 0; j < k; j++)
			out[n++] = argv[i + j];
	}
	*argc = n;
	return out;
}

char **set_expand(int *argc, char **argv)
{
	return expand_landmark(argc, argv);
}

int set_setting_args(int argc, char **argv, int i)
{
	return setting_args(argc, argv, i);
}

/* Check the settings of set (argv expanded): exits 2 if one is bad. */
void set_check(int argc, char **argv)
{
	static char scratch[8192];
	const struct pd_filter_ops *target = named_family(argc, argv);

	if (!argc)
		usage_error("set: nothing to set");
	put_settings(mnl_nlmsg_put_header(scratch), argc, argv,
		     target ? target : &pd_sbf_family);
}

/*
 * Send the change of set (argv expanded and checked), a family's settings
 * in its nest: the family it names, or the one in force; with the words
 * of a sources change (sargc > 0), in the same request, both or neither.
 * 0 or the error (n->err says why).
 */
int set_send(struct nl *n, int argc, char **argv, int sargc, char **sargv)
{
	const struct pd_filter_ops *target = named_family(argc, argv);
	struct nlmsghdr *nlh;
	uint32_t kind = 0;
	int err;

	if (!target) {
		/* the family in force decides where its settings go */
		err = nl_talk(n, nl_request(n, PKTDEDUP_CMD_GET_CONFIG, false),
			      kind_cb, &kind);
		if (err)
			return err;
		target = kind_family(kind);
	}
	nlh = nl_request(n, PKTDEDUP_CMD_SET_CONFIG, false);
	put_settings(nlh, argc, argv, target);
	if (sargc)
		put_sources(nlh, sargc, sargv);
	return nl_talk(n, nlh, set_cb, NULL);
}

int cmd_set(int argc, char **argv)
{
	struct nl n;
	int err;

	if (!argc)
		usage_error("set: nothing to set");
	argv = expand_landmark(&argc, argv);
	/* check every value before the kernel sees any */
	set_check(argc, argv);
	open_nl(&n);
	err = set_send(&n, argc, argv, 0, NULL);
	if (err) {
		report_change_refused(&n, err);
		dedupctl_exit(EXIT_REFUSED);
	}
	nl_close(&n);
	return 0;
}

/* ---- save: the configuration as set's words ---- */

/* A rate (ppb, below 1) as a decimal fraction ppb_arg() reads back. */
static const char *ppb_word(char *buf, size_t len, uint32_t ppb)
{
	size_t end;

	snprintf(buf, len, "0.%09u", ppb);
	end = strlen(buf);
	while (end > 3 && buf[end - 1] == '0')
		buf[--end] = '\0';
	return buf;
}

/* A time in ns in the largest unit that gives it whole: "2ms", "1500us". */
static const char *ns_word(char *buf, size_t len, uint64_t ns)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "h", 3600000000000ULL }, { "min", 60000000000ULL },
		{ "s", 1000000000 }, { "ms", 1000000 }, { "us", 1000 },
		{ "ns", 1 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!(ns % units[i].ns))
			break;
	snprintf(buf, len, "%llu%s", (unsigned long long)(ns / units[i].ns),
		 units[i].unit);
	return buf;
}

/*
 * The words of a set that gives the configuration of a GET_CONFIG reply:
 * every setting, the family's own as the kernel reports them. An auto the
 * kernel reports as such (max, k, p, gap) stays auto; a default it keeps
 * as 0 and reports as 0 (p-star, subwindows) is written as the value 0
 * stands for; fps is reported as the target in force (the family's
 * default where none was asked) and written so.
 */
void config_words(const struct nlattr **tb, struct words *w)
{
	const struct nlattr *c[PKTDEDUP_A_CONFIG_MAX + 1],
		*f[PKTDEDUP_A_FILTER_MAX + 1], *s[PKTDEDUP_A_SETTINGS_MAX + 1];
	const struct pd_filter_ops *ops;
	struct select_view sel;
	char b[48];
	uint32_t v;
	uint64_t g;

	nl_nest(tb[PKTDEDUP_A_CONFIG], &nls_config, c);
	nl_nest(c[PKTDEDUP_A_CONFIG_FILTER], &nls_filter, f);
	ops = kind_family(u32a(f, PKTDEDUP_A_FILTER_KIND));
	nl_nest(f[family_nest(ops)], nls_filter.attrs[family_nest(ops)].nested,
		s);
	words_add(w, "key");
	words_add(w, "%s", name_of(pd_key_mode_names, PD_KEY_NMODES,
				   u8a(c, PKTDEDUP_A_CONFIG_KEY)));
	words_add(w, "payload");
	words_add(w, "%u", u16a(c, PKTDEDUP_A_CONFIG_PAYLOAD));
	words_add(w, "ignore-tos");
	words_add(w, "%s", u32a(c, PKTDEDUP_A_CONFIG_KEY_FLAGS) &
		  PKTDEDUP_KEY_F_IGNORE_TOS ? "on" : "off");
	words_add(w, "action");
	words_add(w, "%s", name_of(pd_action_names, PD_NACTIONS,
				   u8a(c, PKTDEDUP_A_CONFIG_ACTION)));
	words_add(w, "mark");
	words_add(w, "0x%x/0x%x", u32a(c, PKTDEDUP_A_CONFIG_MARK_VALUE),
		  u32a(c, PKTDEDUP_A_CONFIG_MARK_MASK));
	words_add(w, "scope");
	words_add(w, "%s", name_of(pd_scope_names, PD_NSCOPES,
				   u8a(c, PKTDEDUP_A_CONFIG_SCOPE)));
	words_add(w, "hook");
	words_add(w, "%s", pd_placement_name(u8a(c, PKTDEDUP_A_CONFIG_HOOK)));
	words_add(w, "priority");
	words_add(w, "%d", (int32_t)u32a(c, PKTDEDUP_A_CONFIG_PRIORITY));
	/* traffic selection, as set takes it ("any" where unset) */
	select_view(c, &sel);
	words_add(w, "dev");
	words_add(w, "%s", sel.dev);
	words_add(w, "proto");
	words_add(w, "%s", sel.proto);
	words_add(w, "match-mark");
	words_add(w, "%s", sel.mark);
	words_add(w, "filter");
	words_add(w, "%s", ops->name);
	words_add(w, "mem");
	words_add(w, "%s", size_word(b, sizeof(b),
				     u64a(f, PKTDEDUP_A_FILTER_MEM)));
	if (s[PKTDEDUP_A_SETTINGS_FPS]) {
		words_add(w, "fps");
		words_add(w, "%s", ppb_word(b, sizeof(b),
					    u32a(s, PKTDEDUP_A_SETTINGS_FPS)));
	} else if (ops->settings & PD_SET_FPS) {
		/* the bit arrays: no target; one set cannot be unset */
		w->note = "no fps: where this family is already in force with an fps, that fps stays (set another filter first to clear it)";
	}
	if (s[PKTDEDUP_A_SETTINGS_CELL_BITS]) {
		v = u8a(s, PKTDEDUP_A_SETTINGS_CELL_BITS);
		words_auto(w, "max", v ? (1u << v) - 1 : 0, !v);
	}
	if (s[PKTDEDUP_A_SETTINGS_K]) {
		v = u8a(s, PKTDEDUP_A_SETTINGS_K);
		words_auto(w, "k", v, !v);
	}
	if (s[PKTDEDUP_A_SETTINGS_P]) {
		v = u32a(s, PKTDEDUP_A_SETTINGS_P);
		words_auto(w, "p", v, v == PKTDEDUP_P_AUTO);
	}
	if (s[PKTDEDUP_A_SETTINGS_GAP]) {
		g = u64a(s, PKTDEDUP_A_SETTINGS_GAP);
		words_auto(w, "gap", g, !g);
	}
	if (s[PKTDEDUP_A_SETTINGS_P_STAR]) {
		v = u32a(s, PKTDEDUP_A_SETTINGS_P_STAR);
		words_add(w, "p-star");
		words_add(w, "%s", ppb_word(b, sizeof(b), v ? v :
					    PD_BITF_DEFAULT_PSTAR_PPB));
	}
	if (s[PKTDEDUP_A_SETTINGS_IMPORTANCE]) {
		words_add(w, "importance");
		if (u8a(s, PKTDEDUP_A_SETTINGS_IMPORTANCE) ==
		    PKTDEDUP_IMPORTANCE_MARK) {
			words_add(w, "mark");
			words_add(w, "0x%x",
				  u32a(s, PKTDEDUP_A_SETTINGS_IMPORTANCE_MASK));
		} else {
			words_add(w, "dscp");
		}
	}
	if (s[PKTDEDUP_A_SETTINGS_WINDOW_NS]) {
		words_add(w, "window");
		words_add(w, "%s", ns_word(b, sizeof(b),
					   u64a(s, PKTDEDUP_A_SETTINGS_WINDOW_NS)));
	} else if (s[PKTDEDUP_A_SETTINGS_WINDOW_PACKETS]) {
		words_add(w, "window");
		words_add(w, "%up", u32a(s, PKTDEDUP_A_SETTINGS_WINDOW_PACKETS));
	}
	if (s[PKTDEDUP_A_SETTINGS_RATE]) {
		words_add(w, "rate");
		words_add(w, "%u", u32a(s, PKTDEDUP_A_SETTINGS_RATE));
	}
	if (s[PKTDEDUP_A_SETTINGS_SUBWINDOWS]) {
		v = u8a(s, PKTDEDUP_A_SETTINGS_SUBWINDOWS);
		words_add(w, "subwindows");
		words_add(w, "%u", v ? v : PD_TW_DEFAULT_SUBWIN);
	}
	if (s[PKTDEDUP_A_SETTINGS_WARN_BELOW]) {
		words_add(w, "warn-below");
		words_add(w, "%u", u8a(s, PKTDEDUP_A_SETTINGS_WARN_BELOW));
	}
	if (s[PKTDEDUP_A_SETTINGS_LAYOUT]) {
		words_add(w, "layout");
		words_add(w, "%s", u8a(s, PKTDEDUP_A_SETTINGS_LAYOUT) ==
			  PKTDEDUP_LAYOUT_BLOCKED ? "blocked" : "flat");
	}
	/* a fixed seed's value comes only to CAP_NET_ADMIN (save fails) */
	words_add(w, "seed");
	if (u8a(c, PKTDEDUP_A_CONFIG_SEED_MODE) != PKTDEDUP_SEED_MODE_FIXED)
		words_add(w, "random");
	else if (c[PKTDEDUP_A_CONFIG_SEED])
		words_add(w, "%llu", (unsigned long long)
			  u64a(c, PKTDEDUP_A_CONFIG_SEED));
	else
		w->hidden = "the seed is fixed and only CAP_NET_ADMIN may read its value: run save as root (without it the file would restore another seed)";
	words_add(w, "state");
	words_add(w, "%s", u8a(c, PKTDEDUP_A_CONFIG_STATE) ==
		  PKTDEDUP_STATE_ACTIVE ? "active" : "idle");
}

/* enable, disable: the instance of this namespace active, or idle. */
int cmd_enable(int argc, char **argv)
{
	char *set[] = { "state", "active" };

	if (argc)
		usage_error("enable: unexpected '%s'", argv[0]);
	return cmd_set(2, set);
}

int cmd_disable(int argc, char **argv)
{
	char *set[] = { "state", "idle" };

	if (argc)
		usage_error("disable: unexpected '%s'", argv[0]);
	return cmd_set(2, set);
}

/* plan [filter F] mem SIZE [settings]: the family's planner, locally. */
int cmd_plan(int argc, char **argv)
{
	const struct pd_filter_ops *ops;
	struct pd_filter_plan pl;
	struct plan_view v;
	struct pd_filter_req req;
	uint32_t fps;
	const char *why = NULL;
	char b1[32], b2[32];
	bool have_mem = false;
	int i, n;

	argv = expand_landmark(&argc, argv);
	ops = named_family(argc, argv);
	if (!ops)	/* a window asks for the sliding window */
		ops = has_setting(argc, argv, "window") ? &pd_sliding_family :
		      &pd_sbf_family;
	pd_filter_req_defaults(&req, ops->kind, 0);
	for (i = 0; i < argc; i += n) {
		uint32_t flag = fsetting_flag(argv[i]);

		n = setting_args(argc, argv, i);
		if (!strcmp(argv[i], "filter"))
			continue;
		if (!strcmp(argv[i], "mem")) {
			req.mem_bytes = size_arg("mem", argv[i + 1]);
			have_mem = true;
		} else if (!flag) {
			usage_error("plan: unknown setting '%s'", argv[i]);
		} else if (!(ops->settings & family_flag(flag))) {
			usage_error("plan: %s is not a setting of the %s filter",
				    argv[i], ops->name);
		} else {
			fsetting_read(argv[i], argv + i + 1, &req);
		}
	}
	if (!have_mem && !(ops->window && (req.rate || req.window_pkts)))
		usage_error(ops->window ?
			    "plan: mem SIZE or rate PPS is required (or a packet window)" :
			    "plan: mem SIZE is required");
	if (pd_filter_plan(&req, &pl, &why))
		usage_error("plan: %s", why);
	/* sized by its rate or window, mem given is a limit (as dedup-sim's) */
	if (have_mem && pl.bytes > req.mem_bytes)
		usage_error("plan: the window needs %s per filter, more than mem %s: shorten it, lower rate or fps, or raise mem",
			    size_str(b1, sizeof(b1), pl.bytes),
			    size_str(b2, sizeof(b2), req.mem_bytes));
	plan_view_local(ops, &pl, &v);
	/* the target, where the family has one (the bit arrays: if given) */
	fps = ops->settings & PD_SET_FPS ?
	      (req.fps_ppb ? req.fps_ppb : ops->default_fps_ppb) : 0;
	if (json) {
		printf("{\"filter\":\"%s\",\"mem\":%llu,\"mem_bytes\":%llu",
		       ops->name, (unsigned long long)req.mem_bytes,
		       (unsigned long long)pl.bytes);
		if (fps)
			printf(",\"fps\":%.9g", fps / 1e9);
		else
			printf(",\"fps\":null");
	} else if (!have_mem) {	/* a window family sized by rate or window */
		printf("filter   %s, sized by its %s (uses %s)", ops->name,
		       req.window_pkts ? "window" : "rate",
		       size_str(b2, sizeof(b2), pl.bytes));
	} else {
		printf("filter   %s, %s (uses %s)", ops->name,
		       size_str(b1, sizeof(b1), req.mem_bytes),
		       size_str(b2, sizeof(b2), pl.bytes));
	}
	if (!json) {
		if (fps)
			printf(", target fp %s%s", pct(b1, sizeof(b1), fps),
			       v.fp > fps ? " (not met by the model)" : "");
		printf("\n");
	}
	print_plan_view(&v);
	if (json)
		printf("}\n");
	return 0;
}
