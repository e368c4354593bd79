// SPDX-License-Identifier: GPL-2.0
/*
 * dedupctl: configure and watch pktdedup, iproute2 style.
 *
 *   dedupctl [-j] show | set ... | stats [percpu] | reset | query ... |
 *                 distinct ... | sources ... | top ... | rare ... |
 *                 monitor ... | plan ...
 *
 * Exit status: 0 done, 1 the kernel refused or could not be reached,
 * 2 the command line is wrong. See dedupctl(8).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/core/config.h"
#include "../../module/core/fixed.h"
#include "../../module/core/key.h"
#include "../../module/core/plan.h"
#include "../../module/core/sbf.h"
#include "../../module/uapi/pktdedup.h"
#include "../common/args.h"
#include "dedupctl.h"
#include "nl.h"


bool json;

static const char usage_text[] =
"usage: dedupctl [-j] COMMAND\n"
"\n"
"  show                          the configuration and filter parameters\n"
"  set SETTING VALUE ...         change settings (all or nothing):\n"
"      key packet|src|dst|pair|flow    payload BYTES    ignore-tos on|off\n"
"      action count|mark|drop          mark VALUE[/MASK]\n"
"      mem SIZE    fps RATE    max auto|N    k auto|N    p auto|N\n"
"      gap auto|PACKETS    scope percpu|shared\n"
"      hook prerouting|input|forward|output|postrouting    priority N\n"
"  stats [percpu]                counters (totals, or one row per CPU)\n"
"  reset                         empty the filters, new seeds, zero counters\n"
"  query src ADDR | dst ADDR | pair SRC DST |\n"
"        flow PROTO SRC SPORT DST DPORT | packet-hex HEX\n"
"                                is this key in the filters now?\n"
"  distinct [window DURATION]    distinct source and destination addresses\n"
"                                in the recent window (default: all of it)\n"
"  sources [SETTING VALUE ...]   show or change the source windows:\n"
"      window DURATION    subwindows N    counters N    new on|off\n"
"      new-mem SIZE    new-gap auto|PACKETS    event-rate N    ring N\n"
"  top [N] [window DURATION]     the N heaviest sources (10), with bounds\n"
"  rare [support S] [window DURATION] [limit N]\n"
"                                sources that sent at most S x all packets\n"
"  monitor [count N]             print new sources as the module reports them\n"
"  plan mem SIZE [fps RATE] [max N] [k N] [p N] [gap PACKETS]\n"
"                                run the planner here, no kernel needed\n"
"\n"
"  -j, --json    JSON output (monitor: one JSON object per line)\n"
"SIZE takes K, M, G suffixes; RATE is a fraction (0.01) or a percentage (1%);\n"
"DURATION is a number with ms, s, m or h (seconds if bare).\n";


void __attribute__((noreturn)) refused(const struct nl *n, int err)
{
	if (err == -EPERM)
		fprintf(stderr, "dedupctl: %s (needs CAP_NET_ADMIN)\n",
			n->err[0] ? n->err : strerror(-err));
	else
		fprintf(stderr, "dedupctl: %s\n", n->err[0] ? n->err :
			strerror(-err));
	exit(EXIT_REFUSED);
}

void open_nl(struct nl *n)
{
	if (nl_open(n)) {
		fprintf(stderr, "dedupctl: %s\n", n->err);
		exit(EXIT_REFUSED);
	}
}

/* Send req, hand the replies to cb, exit 1 if the kernel refuses; close. */
void talk(struct nl *n, struct nlmsghdr *req, nl_reply_cb cb,
		 void *data)
{
	int err = nl_talk(n, req, cb, data);

	if (err)
		refused(n, err);
	nl_close(n);
}

/* ---- values ---- */

static int name_arg(const char *what, const char *v, const char *const *names,
		    unsigned int n)
{
	int i = pd_name_index(v, names, n);
	unsigned int j;

	if (i >= 0)
		return i;
	fprintf(stderr, "dedupctl: %s: '%s' is not one of:", what, v);
	for (j = 0; j < n; j++)
		fprintf(stderr, " %s", names[j]);
	fprintf(stderr, "\n");
	exit(EXIT_USAGE);
}

uint32_t ppb_arg(const char *what, const char *v)
{
	u32 ppb;

	if (pd_parse_ppb(v, &ppb))
		usage_error("%s: '%s' is not a probability between 0 and 1 (e.g. 0.01 or 1%%)",
			    what, v);
	return ppb;
}

uint64_t size_arg(const char *what, const char *v)
{
	uint64_t s;

	if (!parse_size(v, &s) || !s)
		usage_error("%s: '%s' is not a size (e.g. 256K, 4M)", what, v);
	return s;
}

uint64_t num_arg(const char *what, const char *v, uint64_t lo,
			uint64_t hi)
{
	uint64_t x;

	if (!parse_u64(v, lo, hi, &x))
		usage_error("%s: '%s' is not a number from %llu to %llu", what,
			    v, (unsigned long long)lo, (unsigned long long)hi);
	return x;
}

/* "auto" or a number in [lo, hi] */
static uint32_t auto_arg(const char *what, const char *v, uint32_t autoval,
			 uint64_t lo, uint64_t hi)
{
	return strcmp(v, "auto") ? (uint32_t)num_arg(what, v, lo, hi) : autoval;
}

bool onoff_arg(const char *what, const char *v)
{
	if (!strcmp(v, "on"))
		return true;
	if (!strcmp(v, "off"))
		return false;
	usage_error("%s: '%s' is not on or off", what, v);
}

static void mark_arg(const char *v, uint32_t *value, uint32_t *mask)
{
	char buf[64], *slash;
	uint64_t x;

	snprintf(buf, sizeof(buf), "%s", v);
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	if (!parse_u64(buf, 0, 0xffffffffu, &x))
		usage_error("mark: '%s' is not VALUE[/MASK] (e.g. 0x10/0xff)", v);
	*value = (uint32_t)x;
	*mask = 0xffffffffu;
	if (slash) {
		if (!parse_u64(slash, 0, 0xffffffffu, &x))
			usage_error("mark: '%s' is not VALUE[/MASK] (e.g. 0x10/0xff)",
				    v);
		*mask = (uint32_t)x;
	}
}

static const char *pct(char *buf, size_t len, uint32_t ppb)
{
	snprintf(buf, len, "%.4g%%", ppb / 1e7);
	return buf;
}

/* A size: exact where it is a whole number of units, else to 0.1. */
const char *size_str(char *buf, size_t len, uint64_t b)
{
	static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB" };
	unsigned int u = 0;

	while (u < 3 && b >= (1ULL << (10 * (u + 1))))
		u++;
	if (!u)
		snprintf(buf, len, "%llu bytes", (unsigned long long)b);
	else if (!(b & ((1ULL << (10 * u)) - 1)))
		snprintf(buf, len, "%llu %s", (unsigned long long)(b >> (10 * u)),
			 unit[u]);
	else
		snprintf(buf, len, "%.1f %s", (double)b / (1ULL << (10 * u)),
			 unit[u]);
	return buf;
}

/* ---- show ---- */

uint64_t u64a(const struct nlattr **tb, int t)
{
	return tb[t] ? mnl_attr_get_u64(tb[t]) : 0;
}

uint32_t u32a(const struct nlattr **tb, int t)
{
	return tb[t] ? mnl_attr_get_u32(tb[t]) : 0;
}

uint16_t u16a(const struct nlattr **tb, int t)
{
	return tb[t] ? mnl_attr_get_u16(tb[t]) : 0;
}

uint8_t u8a(const struct nlattr **tb, int t)
{
	return tb[t] ? mnl_attr_get_u8(tb[t]) : 0;
}

static const char *name_of(const char *const *names, unsigned int n,
			   unsigned int i)
{
	return i < n && names[i] ? names[i] : "?";
}

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

/* The budget nest of a reply: JSON members, or a line of text. */
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
		       "\"peak\":%llu,\"refused\":%llu}",
		       (unsigned long long)u64a(b, PKTDEDUP_A_BUDGET_CAP),
		       cap_sources[src], filters + sources, filters, sources,
		       (unsigned long long)u64a(b, PKTDEDUP_A_BUDGET_PEAK),
		       (unsigned long long)u64a(b, PKTDEDUP_A_BUDGET_REFUSED));
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
}

static int show_cb(const struct nlattr **tb, void *data)
{
	const struct nlattr *c[PKTDEDUP_A_CONFIG_MAX + 1],
		*f[PKTDEDUP_A_FILTER_MAX + 1], *b[PKTDEDUP_A_SBF_MAX + 1],
		*pl[PKTDEDUP_A_PLAN_MAX + 1], *sp[PKTDEDUP_A_SBF_PLAN_MAX + 1];
	const char *key, *action, *scope, *hook;
	bool tos, active = tb[PKTDEDUP_A_PLAN];
	char b1[32], b2[32], b3[32], b4[32];
	uint8_t bits;
	int32_t prio;

	(void)data;
	nl_nest(tb[PKTDEDUP_A_CONFIG], &nls_config, c);
	nl_nest(c[PKTDEDUP_A_CONFIG_FILTER], &nls_filter, f);
	nl_nest(f[PKTDEDUP_A_FILTER_SBF], &nls_sbf, b);
	nl_nest(tb[PKTDEDUP_A_PLAN], &nls_plan, pl);
	nl_nest(pl[PKTDEDUP_A_PLAN_SBF], &nls_sbf_plan, sp);
	key = name_of(pd_key_mode_names, PD_KEY_NMODES,
		      u8a(c, PKTDEDUP_A_CONFIG_KEY));
	action = name_of(pd_action_names, PD_NACTIONS,
			 u8a(c, PKTDEDUP_A_CONFIG_ACTION));
	scope = name_of(pd_scope_names, PD_NSCOPES,
			u8a(c, PKTDEDUP_A_CONFIG_SCOPE));
	hook = name_of(pd_hook_names, PD_NHOOKS, u8a(c, PKTDEDUP_A_CONFIG_HOOK));
	tos = u32a(c, PKTDEDUP_A_CONFIG_KEY_FLAGS) & PKTDEDUP_KEY_F_IGNORE_TOS;
	prio = (int32_t)u32a(c, PKTDEDUP_A_CONFIG_PRIORITY);
	bits = u8a(b, PKTDEDUP_A_SBF_CELL_BITS);
	if (json) {
		printf("{\"state\":\"%s\",\"key\":\"%s\",\"payload\":%u,"
		       "\"ignore_tos\":%s,\"action\":\"%s\","
		       "\"mark_value\":%u,\"mark_mask\":%u,\"hook\":\"%s\","
		       "\"priority\":%d,\"scope\":\"%s\",\"filter\":\"sbf\","
		       "\"mem\":%llu,\"fps\":%.9g,\"max\":%u,\"k\":%u,"
		       "\"p\":%u,\"gap\":%llu",
		       active ? "active" : "idle", key,
		       u16a(c, PKTDEDUP_A_CONFIG_PAYLOAD), tos ? "true" : "false",
		       action, u32a(c, PKTDEDUP_A_CONFIG_MARK_VALUE),
		       u32a(c, PKTDEDUP_A_CONFIG_MARK_MASK), hook, prio, scope,
		       (unsigned long long)u64a(f, PKTDEDUP_A_FILTER_MEM),
		       u32a(b, PKTDEDUP_A_SBF_FPS) / 1e9,
		       bits ? (1u << bits) - 1 : 0, u8a(b, PKTDEDUP_A_SBF_K),
		       u32a(b, PKTDEDUP_A_SBF_P),
		       (unsigned long long)u64a(b, PKTDEDUP_A_SBF_GAP));
		if (active)
			printf(",\"plan\":{\"max\":%u,\"bits\":%u,\"k\":%u,"
			       "\"p\":%u,\"cells\":%llu,\"filters\":%u,"
			       "\"mem_total\":%llu,\"fp_bound\":%.9g,"
			       "\"stable_point\":%.9g,\"gap\":%llu,"
			       "\"fn_at_gap\":%.9g}",
			       u32a(sp, PKTDEDUP_A_SBF_PLAN_CELL_MAX),
			       u32a(sp, PKTDEDUP_A_SBF_PLAN_BITS),
			       u32a(sp, PKTDEDUP_A_SBF_PLAN_K),
			       u32a(sp, PKTDEDUP_A_SBF_PLAN_P),
			       (unsigned long long)u64a(sp, PKTDEDUP_A_SBF_PLAN_CELLS),
			       u32a(pl, PKTDEDUP_A_PLAN_FILTERS),
			       (unsigned long long)u64a(pl, PKTDEDUP_A_PLAN_MEM_TOTAL),
			       u32a(sp, PKTDEDUP_A_SBF_PLAN_FP_BOUND) / 1e9,
			       u32a(sp, PKTDEDUP_A_SBF_PLAN_STABLE_ZERO) / 1e9,
			       (unsigned long long)u64a(sp, PKTDEDUP_A_SBF_PLAN_GAP),
			       u32a(sp, PKTDEDUP_A_SBF_PLAN_FN) / 1e9);
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
	printf("memory   %s per filter (Stable Bloom Filter), target fp %s\n",
	       size_str(b1, sizeof(b1), u64a(f, PKTDEDUP_A_FILTER_MEM)),
	       pct(b2, sizeof(b2), u32a(b, PKTDEDUP_A_SBF_FPS)));
	if (!active) {
		printf("state    idle: no filters could be built\n");
		print_budget(tb[PKTDEDUP_A_BUDGET]);
		return MNL_CB_OK;
	}
	printf("filters  %u (%s), %s in all\n", u32a(pl, PKTDEDUP_A_PLAN_FILTERS),
	       scope, size_str(b1, sizeof(b1),
			       u64a(pl, PKTDEDUP_A_PLAN_MEM_TOTAL)));
	printf("cells    %llu of %u bits: max %u, k %u, p %u\n",
	       (unsigned long long)u64a(sp, PKTDEDUP_A_SBF_PLAN_CELLS),
	       u32a(sp, PKTDEDUP_A_SBF_PLAN_BITS),
	       u32a(sp, PKTDEDUP_A_SBF_PLAN_CELL_MAX),
	       u32a(sp, PKTDEDUP_A_SBF_PLAN_K), u32a(sp, PKTDEDUP_A_SBF_PLAN_P));
	printf("model    fp bound %s, stable zeros %s, fn at gap %llu: %s\n",
	       pct(b2, sizeof(b2), u32a(sp, PKTDEDUP_A_SBF_PLAN_FP_BOUND)),
	       pct(b3, sizeof(b3), u32a(sp, PKTDEDUP_A_SBF_PLAN_STABLE_ZERO)),
	       (unsigned long long)u64a(sp, PKTDEDUP_A_SBF_PLAN_GAP),
	       pct(b4, sizeof(b4), u32a(sp, PKTDEDUP_A_SBF_PLAN_FN)));
	print_budget(tb[PKTDEDUP_A_BUDGET]);
	return MNL_CB_OK;
}

static int cmd_show(int argc, char **argv)
{
	struct nl n;

	if (argc)
		usage_error("show: unexpected '%s'", argv[0]);
	open_nl(&n);
	talk(&n, nl_request(&n, PKTDEDUP_CMD_GET_CONFIG, false), show_cb, NULL);
	return 0;
}

/* ---- set ---- */

/* Where a setting lives in the request: its nest. */
enum { IN_CONFIG, IN_FILTER, IN_SBF, NLEVELS };

static int setting_level(const char *k)
{
	if (!strcmp(k, "mem"))
		return IN_FILTER;
	if (!strcmp(k, "fps") || !strcmp(k, "max") || !strcmp(k, "k") ||
	    !strcmp(k, "p") || !strcmp(k, "gap"))
		return IN_SBF;
	return IN_CONFIG;
}

/* Put one setting of level `level`; a bad value exits with status 2. */
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
		mnl_attr_put_u8(nlh, PKTDEDUP_A_CONFIG_HOOK,
				(uint8_t)name_arg(k, v, pd_hook_names,
						  PD_NHOOKS));
	} else if (!strcmp(k, "priority")) {
		char *end;
		long p;

		errno = 0;
		p = strtol(v, &end, 0);
		if (errno || *end || !*v || p <= INT32_MIN || p >= INT32_MAX)
			usage_error("priority: '%s' is not a hook priority", v);
		mnl_attr_put_u32(nlh, PKTDEDUP_A_CONFIG_PRIORITY, (uint32_t)p);
	} else if (!strcmp(k, "mem")) {
		mnl_attr_put_u64(nlh, PKTDEDUP_A_FILTER_MEM, size_arg(k, v));
	} else if (!strcmp(k, "fps")) {
		mnl_attr_put_u32(nlh, PKTDEDUP_A_SBF_FPS, ppb_arg(k, v));
	} else if (!strcmp(k, "max")) {
		uint32_t max = auto_arg(k, v, 0, 1, 255);
		uint8_t bits = max ? pd_sbf_bits_for_max(max) : 0;

		if (max && !bits)
			usage_error("max: '%s' is not 2^j - 1 (1, 3, 7, 15, ... 255) or auto",
				    v);
		mnl_attr_put_u8(nlh, PKTDEDUP_A_SBF_CELL_BITS, bits);
	} else if (!strcmp(k, "k")) {
		mnl_attr_put_u8(nlh, PKTDEDUP_A_SBF_K,
				(uint8_t)auto_arg(k, v, 0, 1, PKTDEDUP_K_MAX));
	} else if (!strcmp(k, "p")) {
		mnl_attr_put_u32(nlh, PKTDEDUP_A_SBF_P,
				 auto_arg(k, v, PKTDEDUP_P_AUTO, 0,
					  0xfffffffeu));
	} else if (!strcmp(k, "gap")) {
		mnl_attr_put_u64(nlh, PKTDEDUP_A_SBF_GAP,
				 auto_arg(k, v, 0, 1, 1ULL << 32));
	} else {
		usage_error("set: unknown setting '%s'", k);
	}
}

/*
 * Put the settings of argv into nlh, each in its nest (config, its filter,
 * the filter's sbf settings); a bad one exits with status 2.
 */
static void put_settings(struct nlmsghdr *nlh, int argc, char **argv)
{
	static const uint16_t nest_type[NLEVELS] = {
		PKTDEDUP_A_CONFIG, PKTDEDUP_A_CONFIG_FILTER,
		PKTDEDUP_A_FILTER_SBF,
	};
	struct nlattr *nest[NLEVELS];
	int level, i;

	for (level = 0; level < NLEVELS; level++) {
		nest[level] = mnl_attr_nest_start(nlh, nest_type[level]);
		for (i = 0; i < argc; i += 2)
			if (setting_level(argv[i]) == level)
				put_setting(nlh, argv[i], argv[i + 1]);
	}
	while (level--)
		mnl_attr_nest_end(nlh, nest[level]);
}

/* "N bytes (x.y MiB)" */
static const char *bytes_str(char *buf, size_t len, uint64_t b)
{
	if (b >= 1 << 20)
		snprintf(buf, len, "%llu bytes (%.1f MiB)", (unsigned long long)b,
			 b / 1048576.0);
	else
		snprintf(buf, len, "%llu bytes (%.1f KiB)", (unsigned long long)b,
			 b / 1024.0);
	return buf;
}

static int budget_cb(const struct nlattr **tb, void *data)
{
	const struct nlattr *b[PKTDEDUP_A_BUDGET_MAX + 1];
	char b1[48], b2[48], b3[48];

	(void)data;
	nl_nest(tb[PKTDEDUP_A_BUDGET], &nls_budget, b);
	fprintf(stderr, "dedupctl: the change needed %s; this namespace holds %s of its cap of %s\n",
		bytes_str(b1, sizeof(b1), u64a(b, PKTDEDUP_A_BUDGET_REFUSED)),
		bytes_str(b2, sizeof(b2), u64a(b, PKTDEDUP_A_BUDGET_FILTERS) +
			  u64a(b, PKTDEDUP_A_BUDGET_SOURCES)),
		bytes_str(b3, sizeof(b3), u64a(b, PKTDEDUP_A_BUDGET_CAP)));
	return MNL_CB_OK;
}

/*
 * Send a change; if the kernel refuses it for the namespace's memory cap,
 * say how much it needed and what the namespace holds, then exit 1.
 */
void talk_change(struct nl *n, struct nlmsghdr *req, nl_reply_cb cb,
		 void *data)
{
	int err = nl_talk(n, req, cb, data);

	if (err == -E2BIG) {
		fprintf(stderr, "dedupctl: %s\n", n->err);
		nl_talk(n, nl_request(n, PKTDEDUP_CMD_GET_CONFIG, false),
			budget_cb, NULL);
		exit(EXIT_REFUSED);
	}
	if (err)
		refused(n, err);
	nl_close(n);
}

static int cmd_set(int argc, char **argv)
{
	static char scratch[8192];
	struct nlmsghdr *nlh;
	struct nl n;

	if (!argc)
		usage_error("set: nothing to set");
	if (argc % 2)
		usage_error("set: '%s' needs a value", argv[argc - 1]);
	/* check every value before the kernel sees any */
	put_settings(mnl_nlmsg_put_header(scratch), argc, argv);
	open_nl(&n);
	nlh = nl_request(&n, PKTDEDUP_CMD_SET_CONFIG, false);
	put_settings(nlh, argc, argv);
	talk_change(&n, nlh, NULL, NULL);
	return 0;
}

/* ---- stats ---- */

struct stats_ctx {
	bool percpu;
	unsigned int rows;
};

static int stats_cb(const struct nlattr **tb, void *data)
{
	struct stats_ctx *c = data;
	const struct nlattr *st[PKTDEDUP_A_STATS_MAX + 1];
	char cpu[16] = "total";

	nl_nest(tb[PKTDEDUP_A_STATS], &nls_stats, st);
	tb = st;
	if (tb[PKTDEDUP_A_STATS_CPU])
		snprintf(cpu, sizeof(cpu), "%u", u32a(tb, PKTDEDUP_A_STATS_CPU));
	if (json) {
		printf("%s{", c->percpu ? (c->rows ? "," : "[") : "");
		if (tb[PKTDEDUP_A_STATS_CPU])
			printf("\"cpu\":%s,", cpu);
		printf("\"packets\":%llu,\"duplicates\":%llu,\"marked\":%llu,"
		       "\"dropped\":%llu,\"unparsed\":%llu,\"zero_cells\":%.9g}",
		       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_PACKETS),
		       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_DUPLICATES),
		       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_MARKED),
		       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_DROPPED),
		       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_UNPARSED),
		       u32a(tb, PKTDEDUP_A_STATS_ZERO_CELLS) / 1e9);
		if (!c->percpu)
			printf("\n");
	} else {
		if (!c->rows)
			printf("%-6s %12s %12s %12s %12s %12s %11s\n", "cpu",
			       "packets", "duplicates", "marked", "dropped",
			       "unparsed", "zero cells");
		printf("%-6s %12llu %12llu %12llu %12llu %12llu %10.2f%%\n", cpu,
		       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_PACKETS),
		       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_DUPLICATES),
		       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_MARKED),
		       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_DROPPED),
		       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_UNPARSED),
		       u32a(tb, PKTDEDUP_A_STATS_ZERO_CELLS) / 1e7);
	}
	c->rows++;
	return MNL_CB_OK;
}

static int cmd_stats(int argc, char **argv)
{
	struct stats_ctx c = { 0 };
	struct nl n;

	if (argc == 1 && !strcmp(argv[0], "percpu"))
		c.percpu = true;
	else if (argc)
		usage_error("stats: unexpected '%s'", argv[0]);
	open_nl(&n);
	talk(&n, nl_request(&n, PKTDEDUP_CMD_GET_STATS, c.percpu), stats_cb,
	     &c);
	if (json && c.percpu)
		printf("%s]\n", c.rows ? "" : "[");
	return 0;
}

static int cmd_reset(int argc, char **argv)
{
	struct nl n;

	if (argc)
		usage_error("reset: unexpected '%s'", argv[0]);
	open_nl(&n);
	talk(&n, nl_request(&n, PKTDEDUP_CMD_RESET, false), NULL, NULL);
	return 0;
}

/* ---- query ---- */

/* An address into buf (4 or 16 bytes); its family must match *family. */
static void addr_arg(const char *what, const char *v, uint8_t *family,
		     uint8_t *buf)
{
	uint8_t fam;

	if (inet_pton(AF_INET, v, buf) == 1)
		fam = PD_FAMILY_IPV4;
	else if (inet_pton(AF_INET6, v, buf) == 1)
		fam = PD_FAMILY_IPV6;
	else
		usage_error("%s: '%s' is not an IPv4 or IPv6 address", what, v);
	if (*family && *family != fam)
		usage_error("%s: '%s' is not of the same family as the other address",
			    what, v);
	*family = fam;
}

static uint8_t proto_arg(const char *v)
{
	static const struct { const char *name; uint8_t num; } p[] = {
		{ "tcp", IPPROTO_TCP }, { "udp", IPPROTO_UDP },
		{ "icmp", IPPROTO_ICMP }, { "icmpv6", IPPROTO_ICMPV6 },
		{ "sctp", IPPROTO_SCTP }, { "dccp", IPPROTO_DCCP },
		{ "udplite", IPPROTO_UDPLITE },
	};
	unsigned int i;

	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		if (!strcmp(v, p[i].name))
			return p[i].num;
	return (uint8_t)num_arg("protocol", v, 0, 255);
}

static int query_cb(const struct nlattr **tb, void *data)
{
	const struct nlattr *p[PKTDEDUP_A_PRESENCE_MAX + 1];
	uint32_t n;

	(void)data;
	nl_nest(tb[PKTDEDUP_A_PRESENCE], &nls_presence, p);
	n = u32a(p, PKTDEDUP_A_PRESENCE_FILTERS);
	if (json)
		printf("{\"present\":%s,\"filters\":%u}\n",
		       u8a(p, PKTDEDUP_A_PRESENCE_PRESENT) ? "true" : "false", n);
	else if (u8a(p, PKTDEDUP_A_PRESENCE_PRESENT))
		printf("present (in %u filter%s)\n", n, n == 1 ? "" : "s");
	else
		printf("absent\n");
	return MNL_CB_OK;
}

static int cmd_query(int argc, char **argv)
{
	uint8_t src[16], dst[16], family = 0, pkt[PKTDEDUP_QUERY_PACKET_MAX];
	const char *kind = argc ? argv[0] : "";
	struct nlattr *nest;
	struct nlmsghdr *nlh;
	struct nl n;
	int need;

	need = !strcmp(kind, "src") || !strcmp(kind, "dst") ? 2 :
	       !strcmp(kind, "pair") ? 3 : !strcmp(kind, "flow") ? 6 :
	       !strcmp(kind, "packet-hex") ? 2 : 0;
	if (!need)
		usage_error("query: give src ADDR, dst ADDR, pair SRC DST, flow PROTO SRC SPORT DST DPORT or packet-hex HEX");
	if (argc != need)
		usage_error("query %s: takes %d value%s", kind, need - 1,
			    need == 2 ? "" : "s");
	/* parse everything before touching the kernel */
	if (!strcmp(kind, "packet-hex")) {
		const char *h = argv[1];
		size_t len = strlen(h), i;

		if (len % 2 || len / 2 < PKTDEDUP_QUERY_PACKET_MIN ||
		    len / 2 > sizeof(pkt))
			usage_error("packet-hex: an even number of hex digits, %d to %zu bytes",
				    PKTDEDUP_QUERY_PACKET_MIN, sizeof(pkt));
		for (i = 0; i < len / 2; i++) {
			unsigned int b;

			if (sscanf(h + 2 * i, "%2x", &b) != 1 ||
			    !strchr("0123456789abcdefABCDEF", h[2 * i]) ||
			    !strchr("0123456789abcdefABCDEF", h[2 * i + 1]))
				usage_error("packet-hex: '%.2s' is not a hex byte",
					    h + 2 * i);
			pkt[i] = (uint8_t)b;
		}
		open_nl(&n);
		nlh = nl_request(&n, PKTDEDUP_CMD_QUERY, false);
		nest = mnl_attr_nest_start(nlh, PKTDEDUP_A_QUERY);
		mnl_attr_put(nlh, PKTDEDUP_A_QUERY_PACKET, len / 2, pkt);
	} else if (!strcmp(kind, "flow")) {
		uint8_t proto = proto_arg(argv[1]);
		uint16_t sport, dport;

		addr_arg("source", argv[2], &family, src);
		sport = (uint16_t)num_arg("source port", argv[3], 0, 65535);
		addr_arg("destination", argv[4], &family, dst);
		dport = (uint16_t)num_arg("destination port", argv[5], 0, 65535);
		open_nl(&n);
		nlh = nl_request(&n, PKTDEDUP_CMD_QUERY, false);
		nest = mnl_attr_nest_start(nlh, PKTDEDUP_A_QUERY);
		mnl_attr_put_u8(nlh, PKTDEDUP_A_QUERY_PROTO, proto);
		mnl_attr_put(nlh, PKTDEDUP_A_QUERY_SRC, family == 4 ? 4 : 16, src);
		mnl_attr_put(nlh, PKTDEDUP_A_QUERY_DST, family == 4 ? 4 : 16, dst);
		mnl_attr_put_u16(nlh, PKTDEDUP_A_QUERY_SPORT, sport);
		mnl_attr_put_u16(nlh, PKTDEDUP_A_QUERY_DPORT, dport);
	} else {
		bool has_src = strcmp(kind, "dst"), has_dst = strcmp(kind, "src");

		if (has_src)
			addr_arg("source", argv[1], &family, src);
		if (has_dst)
			addr_arg("destination", argv[has_src ? 2 : 1], &family,
				 dst);
		open_nl(&n);
		nlh = nl_request(&n, PKTDEDUP_CMD_QUERY, false);
		nest = mnl_attr_nest_start(nlh, PKTDEDUP_A_QUERY);
		if (has_src)
			mnl_attr_put(nlh, PKTDEDUP_A_QUERY_SRC,
				     family == 4 ? 4 : 16, src);
		if (has_dst)
			mnl_attr_put(nlh, PKTDEDUP_A_QUERY_DST,
				     family == 4 ? 4 : 16, dst);
	}
	mnl_attr_nest_end(nlh, nest);
	talk(&n, nlh, query_cb, NULL);
	return 0;
}

/* ---- plan ---- */

static int cmd_plan(int argc, char **argv)
{
	struct pd_plan_req req = { .fps_ppb = PD_PLAN_DEFAULT_FPS_PPB,
				   .max = PD_PLAN_AUTO, .k = PD_PLAN_AUTO,
				   .p = PD_PLAN_AUTO };
	struct pd_plan pl;
	const char *why = NULL;
	char b1[32], b2[32], b3[32], b4[32];
	int i;

	if (argc % 2)
		usage_error("plan: '%s' needs a value", argv[argc - 1]);
	for (i = 0; i < argc; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];

		if (!strcmp(k, "mem"))
			req.mem_bytes = size_arg(k, v);
		else if (!strcmp(k, "fps"))
			req.fps_ppb = ppb_arg(k, v);
		else if (!strcmp(k, "max"))
			req.max = auto_arg(k, v, PD_PLAN_AUTO, 1, 255);
		else if (!strcmp(k, "k"))
			req.k = auto_arg(k, v, PD_PLAN_AUTO, 1, PD_SBF_MAX_K);
		else if (!strcmp(k, "p"))
			req.p = auto_arg(k, v, PD_PLAN_AUTO, 0, 0xfffffffeu);
		else if (!strcmp(k, "gap"))
			req.gap = auto_arg(k, v, 0, 1, 1ULL << 32);
		else
			usage_error("plan: unknown setting '%s'", k);
	}
	if (!req.mem_bytes)
		usage_error("plan: mem SIZE is required");
	if (req.max != PD_PLAN_AUTO && !pd_sbf_bits_for_max(req.max))
		usage_error("max: '%u' is not 2^j - 1 (1, 3, 7, 15, ... 255)",
			    req.max);
	if (pd_plan(&req, &pl, &why))
		usage_error("plan: %s", why);
	if (json) {
		printf("{\"mem\":%llu,\"fps\":%.9g,\"max\":%u,\"bits\":%u,"
		       "\"k\":%u,\"p\":%u,\"p_exact\":%.6f,\"cells\":%llu,"
		       "\"fp_bound\":%.9g,\"stable_point\":%.9g,\"gap\":%llu,"
		       "\"fn_at_gap\":%.9g}\n",
		       (unsigned long long)req.mem_bytes, req.fps_ppb / 1e9,
		       pl.max, pl.bits, pl.k, pl.p,
		       (double)pl.p_exact_q32 / 4294967296.0,
		       (unsigned long long)pl.cells,
		       (double)pl.fp_bound / (double)PD_Q62_ONE,
		       (double)pl.stable_zero / (double)PD_Q62_ONE,
		       (unsigned long long)pl.gap,
		       (double)pl.fn_rate / (double)PD_Q62_ONE);
		return 0;
	}
	printf("memory   %s for a target fp of %s\n",
	       size_str(b1, sizeof(b1), req.mem_bytes),
	       pct(b2, sizeof(b2), req.fps_ppb));
	printf("cells    %llu of %u bits: max %u, k %u, p %u (Eq. 17: %.2f)\n",
	       (unsigned long long)pl.cells, pl.bits, pl.max, pl.k, pl.p,
	       (double)pl.p_exact_q32 / 4294967296.0);
	printf("model    fp bound %s, stable zeros %s, fn at gap %llu: %s\n",
	       pct(b2, sizeof(b2), pd_q62_to_ppb(pl.fp_bound)),
	       pct(b3, sizeof(b3), pd_q62_to_ppb(pl.stable_zero)),
	       (unsigned long long)pl.gap,
	       pct(b4, sizeof(b4), pd_q62_to_ppb(pl.fn_rate)));
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "show", cmd_show }, { "set", cmd_set }, { "stats", cmd_stats },
		{ "reset", cmd_reset }, { "query", cmd_query },
		{ "distinct", cmd_distinct }, { "plan", cmd_plan },
		{ "sources", cmd_sources }, { "top", cmd_top },
		{ "rare", cmd_rare }, { "monitor", cmd_monitor },
	};
	unsigned int i;

	argc--;
	argv++;
	while (argc && argv[0][0] == '-') {
		if (!strcmp(argv[0], "-j") || !strcmp(argv[0], "--json")) {
			json = true;
		} else if (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help")) {
			fputs(usage_text, stdout);
			return 0;
		} else {
			usage_error("unknown option '%s'", argv[0]);
		}
		argc--;
		argv++;
	}
	if (!argc)
		usage_error("no command");
	if (!strcmp(argv[0], "help")) {
		fputs(usage_text, stdout);
		return 0;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[0], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	usage_error("unknown command '%s'", argv[0]);
}
