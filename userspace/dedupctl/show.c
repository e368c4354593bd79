// SPDX-License-Identifier: GPL-2.0
/*
 * dedupctl show: the configuration, the filter's plan and the namespace's
 * memory, as text, JSON or Prometheus.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/core/bitf.h"
#include "../../module/core/config.h"
#include "../../module/core/filter.h"
#include "../../module/core/timewin.h"
#include "../../module/uapi/pktdedup.h"
#include "dedupctl.h"
#include "encap.h"
#include "prom.h"
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

/* What refused memory (enum pktdedup_refusal), by its parameter. */
static const char *refusal_name(uint8_t why, uint8_t src)
{
	switch (why) {
	case PKTDEDUP_REFUSAL_CAP:
		return cap_sources[src];
	case PKTDEDUP_REFUSAL_TOTAL:
		return "max_total_mem";
	case PKTDEDUP_REFUSAL_USER:
		return "max_user_mem";
	case PKTDEDUP_REFUSAL_USERNS:
		return "init_reserve_mem";
	default:
		return "out of memory";
	}
}

/* The cap a refusal names, for "NEED needed, cap CAP (PARAM)". */
static uint64_t refusal_cap(const struct nlattr **b, uint8_t why)
{
	switch (why) {
	case PKTDEDUP_REFUSAL_CAP:
		return u64a(b, PKTDEDUP_A_BUDGET_CAP);
	case PKTDEDUP_REFUSAL_TOTAL:
		return u64a(b, PKTDEDUP_A_BUDGET_TOTAL_CAP);
	case PKTDEDUP_REFUSAL_USER:
		return u64a(b, PKTDEDUP_A_BUDGET_USER_CAP);
	case PKTDEDUP_REFUSAL_USERNS:
		return u64a(b, PKTDEDUP_A_BUDGET_USERNS_CAP);
	default:
		return 0;
	}
}

/* "no room: 97.0M needed, cap 256M (max_netns_mem)", or no memory. */
static const char *refusal_str(char *buf, size_t len,
			       const struct nlattr **b, uint8_t why,
			       uint64_t need, uint8_t src)
{
	char n[32], c[32];

	size_str(n, sizeof(n), need);
	if (why > PKTDEDUP_REFUSAL_MAX || why == PKTDEDUP_REFUSAL_NOMEM)
		snprintf(buf, len, "out of memory (%s needed)", n);
	else
		snprintf(buf, len, "no room: %s needed, cap %s (%s)", n,
			 size_str(c, sizeof(c), refusal_cap(b, why)),
			 refusal_name(why, src));
	return buf;
}

/*
 * What is not running for want of memory: the source windows, and online
 * CPUs without a filter or source windows, with the reason.
 */
static void print_refusals(const struct nlattr **b, uint8_t src)
{
	uint32_t online = u32a(b, PKTDEDUP_A_BUDGET_CPUS_ONLINE),
		 nof = u32a(b, PKTDEDUP_A_BUDGET_CPUS_NO_FILTER),
		 nos = u32a(b, PKTDEDUP_A_BUDGET_CPUS_NO_SOURCES);
	uint8_t why;
	char r[160];

	if (json) {
		if (b[PKTDEDUP_A_BUDGET_CPUS_ONLINE])
			printf(",\"cpus_online\":%u,\"cpus_no_filter\":%u,"
			       "\"cpus_no_sources\":%u", online, nof, nos);
		if (b[PKTDEDUP_A_BUDGET_SOURCES_REFUSAL]) {
			why = u8a(b, PKTDEDUP_A_BUDGET_SOURCES_REFUSAL);
			printf(",\"sources_refused_by\":\"%s\",\"sources_refused_need_bytes\":%llu",
			       refusal_name(why, src), (unsigned long long)
			       u64a(b, PKTDEDUP_A_BUDGET_SOURCES_NEED));
		}
		if (b[PKTDEDUP_A_BUDGET_CPU_REFUSAL]) {
			why = u8a(b, PKTDEDUP_A_BUDGET_CPU_REFUSAL);
			printf(",\"cpu_refused_by\":\"%s\",\"cpu_refused_need_bytes\":%llu",
			       refusal_name(why, src), (unsigned long long)
			       u64a(b, PKTDEDUP_A_BUDGET_CPU_NEED));
		}
		return;
	}
	if (b[PKTDEDUP_A_BUDGET_SOURCES_REFUSAL])
		printf("sources  off: %s\n",
		       refusal_str(r, sizeof(r), b,
				   u8a(b, PKTDEDUP_A_BUDGET_SOURCES_REFUSAL),
				   u64a(b, PKTDEDUP_A_BUDGET_SOURCES_NEED),
				   src));
	if (!nof && !nos)
		return;
	printf("cpus     of %u online: %u without a filter (their packets pass unjudged), %u without source windows",
	       online, nof, nos);
	if (b[PKTDEDUP_A_BUDGET_CPU_REFUSAL])
		printf(": %s",
		       refusal_str(r, sizeof(r), b,
				   u8a(b, PKTDEDUP_A_BUDGET_CPU_REFUSAL),
				   u64a(b, PKTDEDUP_A_BUDGET_CPU_NEED), src));
	printf("\n");
}

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
		printf(",\"budget\":{\"cap_bytes\":%llu,\"cap_source\":\"%s\","
		       "\"held_bytes\":%llu,\"filters_bytes\":%llu,"
		       "\"sources_bytes\":%llu,\"peak_bytes\":%llu,"
		       "\"refused_bytes\":%llu,\"total_cap_bytes\":%llu,"
		       "\"total_held_bytes\":%llu",
		       (unsigned long long)u64a(b, PKTDEDUP_A_BUDGET_CAP),
		       cap_sources[src], filters + sources, filters, sources,
		       (unsigned long long)u64a(b, PKTDEDUP_A_BUDGET_PEAK),
		       (unsigned long long)u64a(b, PKTDEDUP_A_BUDGET_REFUSED),
		       (unsigned long long)u64a(b, PKTDEDUP_A_BUDGET_TOTAL_CAP),
		       (unsigned long long)u64a(b, PKTDEDUP_A_BUDGET_TOTAL_HELD));
		if (b[PKTDEDUP_A_BUDGET_USERNS_CAP])
			printf(",\"userns_cap_bytes\":%llu,\"userns_held_bytes\":%llu",
			       (unsigned long long)u64a(b, PKTDEDUP_A_BUDGET_USERNS_CAP),
			       (unsigned long long)u64a(b, PKTDEDUP_A_BUDGET_USERNS_HELD));
		if (b[PKTDEDUP_A_BUDGET_USER_CAP])
			printf(",\"user_cap_bytes\":%llu,\"user_held_bytes\":%llu",
			       (unsigned long long)u64a(b, PKTDEDUP_A_BUDGET_USER_CAP),
			       (unsigned long long)u64a(b, PKTDEDUP_A_BUDGET_USER_HELD));
		print_refusals(b, src);
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
	print_refusals(b, src);
}

bool config_encap(const struct nlattr **c, struct encap_cfg *ec)
{
	unsigned int i;

	encap_defaults(ec);
	if (!c[PKTDEDUP_A_CONFIG_DECAP])
		return false;
	ec->decap = u32a(c, PKTDEDUP_A_CONFIG_DECAP);
	ec->tunnel_id = u32a(c, PKTDEDUP_A_CONFIG_KEY_FLAGS) &
			PKTDEDUP_KEY_F_TUNNEL_ID;
	for (i = 0; i < ENCAP_NPORTS; i++)
		if (c[encap_ports[i].attr])
			ec->port[i] = u16a(c, encap_ports[i].attr);
	return true;
}

/* The tunnel settings as JSON members (decap: an array of names). */
static void print_encap_json(const struct encap_cfg *ec)
{
	char name[16];
	unsigned int i, n = 0;

	printf(",\"decap\":[");
	for (i = 0; i < 32; i++)
		if (ec->decap & (1u << i))
			printf("%s\"%s\"", n++ ? "," : "",
			       encap_name(name, sizeof(name), 1u << i));
	printf("],\"tunnel_id\":\"%s\"", ec->tunnel_id ? "include" : "ignore");
	for (i = 0; i < ENCAP_NPORTS; i++)
		printf(",\"%s\":%u", encap_ports[i].json, ec->port[i]);
}

static int show_cb(const struct nlattr **tb, void *data)
{
	const struct nlattr *c[PKTDEDUP_A_CONFIG_MAX + 1],
		*f[PKTDEDUP_A_FILTER_MAX + 1], *s[PKTDEDUP_A_SETTINGS_MAX + 1],
		*pl[PKTDEDUP_A_PLAN_MAX + 1];
	const char *key, *action, *scope, *hook, *xdp_why;
	const struct pd_filter_ops *ops;
	struct select_view sel;
	struct encap_cfg ec;
	bool tos, nonip, active, fixed, has_encap;
	char b1[32], b2[32], eb[160];
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
	nonip = u32a(c, PKTDEDUP_A_CONFIG_KEY_FLAGS) & PKTDEDUP_KEY_F_NONIP;
	prio = (int32_t)u32a(c, PKTDEDUP_A_CONFIG_PRIORITY);
	bits = u8a(s, PKTDEDUP_A_SETTINGS_CELL_BITS);
	imp = u8a(s, PKTDEDUP_A_SETTINGS_IMPORTANCE) ? 1 : 0;
	fixed = u8a(c, PKTDEDUP_A_CONFIG_SEED_MODE) == PKTDEDUP_SEED_MODE_FIXED;
	select_view(c, &sel);
	has_encap = config_encap(c, &ec);
	if (json) {
		/*
		 * units in the names (_bytes, _packets, _pps, _ns); "auto"
		 * (a string) where the planner or the module chooses, "all"
		 * for every byte of the packet
		 */
		printf("{\"state\":\"%s\",\"key\":\"%s\"",
		       active ? "active" : "idle", key);
		if (u16a(c, PKTDEDUP_A_CONFIG_PAYLOAD) == PKTDEDUP_PAYLOAD_ALL)
			printf(",\"payload_bytes\":\"all\"");
		else
			printf(",\"payload_bytes\":%u",
			       u16a(c, PKTDEDUP_A_CONFIG_PAYLOAD));
		printf(",\"ignore_tos\":%s,\"nonip\":\"%s\",\"action\":\"%s\","
		       "\"mark_value\":%u,\"mark_mask\":%u,\"hook\":\"%s\","
		       "\"priority\":%d,\"scope\":\"%s\"",
		       tos ? "true" : "false", nonip ? "dedup" : "pass", action,
		       u32a(c, PKTDEDUP_A_CONFIG_MARK_VALUE),
		       u32a(c, PKTDEDUP_A_CONFIG_MARK_MASK), hook, prio, scope);
		json_auto("shards", u32a(c, PKTDEDUP_A_CONFIG_SHARDS),
			  !u32a(c, PKTDEDUP_A_CONFIG_SHARDS));
		printf(",\"filter\":\"%s\",\"filter_auto\":%s,\"mem_bytes\":%llu",
		       ops->name,
		       u8a(f, PKTDEDUP_A_FILTER_AUTO) ? "true" : "false",
		       (unsigned long long)u64a(f, PKTDEDUP_A_FILTER_MEM));
		printf(",\"dev\":\"%s\",\"proto\":\"%s\",\"match_mark\":\"%s\"",
		       sel.dev, sel.proto, sel.mark);
		if (*sel.devices)
			printf(",\"devices\":[%s]", sel.devices);
		if (has_encap)
			print_encap_json(&ec);
		/* the value only for CAP_NET_ADMIN: the kernel sends no more */
		printf(",\"seed_mode\":\"%s\"", fixed ? "fixed" : "random");
		if (c[PKTDEDUP_A_CONFIG_SEED])
			printf(",\"seed\":%llu", (unsigned long long)
			       u64a(c, PKTDEDUP_A_CONFIG_SEED));
		if (s[PKTDEDUP_A_SETTINGS_FPS])
			printf(",\"fps\":%.9g",
			       u32a(s, PKTDEDUP_A_SETTINGS_FPS) / 1e9);
		if (s[PKTDEDUP_A_SETTINGS_CELL_BITS])
			json_auto("max", bits ? (1u << bits) - 1 : 0, !bits);
		if (s[PKTDEDUP_A_SETTINGS_K])
			json_auto("k", u8a(s, PKTDEDUP_A_SETTINGS_K),
				  !u8a(s, PKTDEDUP_A_SETTINGS_K));
		if (s[PKTDEDUP_A_SETTINGS_P])
			json_auto("p", u32a(s, PKTDEDUP_A_SETTINGS_P),
				  u32a(s, PKTDEDUP_A_SETTINGS_P) ==
				  PKTDEDUP_P_AUTO);
		if (s[PKTDEDUP_A_SETTINGS_GAP])
			json_auto("gap_packets", u64a(s, PKTDEDUP_A_SETTINGS_GAP),
				  !u64a(s, PKTDEDUP_A_SETTINGS_GAP));
		/* a default the kernel keeps as 0: the value it stands for */
		if (s[PKTDEDUP_A_SETTINGS_P_STAR])
			printf(",\"p_star\":%.9g",
			       (u32a(s, PKTDEDUP_A_SETTINGS_P_STAR) ?:
				PD_BITF_DEFAULT_PSTAR_PPB) / 1e9);
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
		/* rate 0: the planner sizes the window from mem */
		if (s[PKTDEDUP_A_SETTINGS_RATE])
			json_auto("rate_pps", u32a(s, PKTDEDUP_A_SETTINGS_RATE),
				  !u32a(s, PKTDEDUP_A_SETTINGS_RATE));
		if (s[PKTDEDUP_A_SETTINGS_SUBWINDOWS])
			printf(",\"subwindows\":%u",
			       u8a(s, PKTDEDUP_A_SETTINGS_SUBWINDOWS) ?:
			       PD_TW_DEFAULT_SUBWIN);
		if (s[PKTDEDUP_A_SETTINGS_LAYOUT])
			printf(",\"layout\":\"%s\"",
			       pd_sbf_layout_name(u8a(s, PKTDEDUP_A_SETTINGS_LAYOUT)));
		if (active && tb[PKTDEDUP_A_PLAN]) {
			printf(",\"plan\":{");
			print_plan(pl[PKTDEDUP_A_PLAN_FILTER], tb[PKTDEDUP_A_PLAN]);
			printf("}");
		}
		printf(",\"xdp\":\"%s\"", xdp_unavailable() ? "unavailable" :
		       "available");
		print_budget(tb[PKTDEDUP_A_BUDGET]);
		printf("}\n");
		return MNL_CB_OK;
	}
	printf("key      %s", key);
	if (!strcmp(key, "packet") &&
	    u16a(c, PKTDEDUP_A_CONFIG_PAYLOAD) == PKTDEDUP_PAYLOAD_ALL)
		printf(" (every byte, tos %s)", tos ? "ignored" : "counted");
	else if (!strcmp(key, "packet"))
		printf(" (L4 header + %u payload bytes, tos %s; packets that differ only after them are taken for copies)",
		       u16a(c, PKTDEDUP_A_CONFIG_PAYLOAD),
		       tos ? "ignored" : "counted");
	/* the tunnels looked into: their ports, whether their ids are keyed */
	if (has_encap)
		printf("\ndecap    %s", encap_show(eb, sizeof(eb), &ec));
	printf("\nnonip    %s", nonip ?
	       "dedup (frames that are not IP, at the L2 hooks: keyed from their EtherType on, judged)" :
	       "pass (frames that are not IP: counted in nonip, passed)");
	printf("\naction   %s", action);
	if (!strcmp(action, "mark"))
		printf(" 0x%x/0x%x", u32a(c, PKTDEDUP_A_CONFIG_MARK_VALUE),
		       u32a(c, PKTDEDUP_A_CONFIG_MARK_MASK));
	printf("\nhook     %s, priority %d\n", hook, prio);
	xdp_why = xdp_unavailable();	/* reads the kernel's BTF: once */
	printf("xdp      %s%s\n", xdp_why ? "unavailable: " :
	       "available (hook xdp, xdp-generic)", xdp_why ? xdp_why : "");
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
	else if (u8a(s, PKTDEDUP_A_SETTINGS_LAYOUT) == PKTDEDUP_LAYOUT_LINE)
		printf(", line (a key's cells and its decrements in one cache line)");
	else if (u8a(s, PKTDEDUP_A_SETTINGS_LAYOUT) == PKTDEDUP_LAYOUT_AUTO)
		printf(", layout auto (blocked or line for cell maximum 1)");
	if (u8a(f, PKTDEDUP_A_FILTER_AUTO))
		printf("; the action's family (filter auto)");
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
