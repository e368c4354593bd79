// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for the module, for tests/cli/test_fake.py: dedupctl's
 * commands are linked as they are (userspace/dedupctl/, all but nl.c)
 * with this file's nl.c, which answers from a state file instead of the
 * kernel, so that what dedupctl sends and prints of a configuration is
 * checked on any host: set, then save, then -f of the saved file, then
 * save again; show, stats and -o prometheus of known values.
 *
 * The state file ($DEDUPCTL_FAKE) holds the config nest's attributes as
 * the kernel would send them. SET_CONFIG replaces each attribute its
 * config nest carries, as the module's pd_cfg_update() does (a seed makes
 * the seed mode fixed, seed-mode random drops it), but the filter nest,
 * which stays the initial one (the automatic filter with count: the
 * SBF, 256K); state changes only when
 * given. GET_CONFIG replies with it, and a budget nest of fixed values
 * (with $DEDUPCTL_FAKE_REFUSED, also what is not running for want of
 * memory: the source windows, a CPU; and GET_STATS's unjudged packets).
 * GET_STATS gives fixed counters and, for each encapsulation of the
 * state's decap (bit i), a decap nest of 1000 * (i + 1) frames and i
 * errors (per CPU, dump: two CPUs, each half), and in the totals a device
 * nest per name of the state's devs, and the rate and memory
 * $DEDUPCTL_FAKE_MEMORY says (put_memory()). GET_SOURCES gives fixed
 * settings; SET_SOURCES takes anything. Any other request is refused
 * (-EOPNOTSUPP). Of the checks the module makes, two are made here: two
 * UDP tunnels looked into on one port, refused with the module's message
 * about the attribute it points at (pd_cfg_ports()), and a filter whose
 * packet's step is over the bound (the core's refusal, pointing at its
 * setting), which dedupctl -f turns into the line to blame. The rest is
 * what dedupctl does with the replies, not what the module accepts.
 *
 * Each request's config nest is also written, as the names and values of
 * its attributes, to $DEDUPCTL_FAKE.req ("decap 0x5", "vxlan-port 4790",
 * a flag "force on"): what set sent. A request with config check is
 * checked as any other (the same two refusals) and changes nothing, as
 * the module's (pd_set_config()).
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/core/decap.h"
#include "../../module/core/filter.h"
#include "../../module/uapi/pktdedup.h"
#include "../../userspace/dedupctl/dedupctl.h"
#include "../../userspace/dedupctl/nl.h"

#define STATE_MAX 8192

static char state[STATE_MAX];	/* the config nest's attributes */
static size_t state_len;

/* nl.c's parse_attrs(), without its check of each type's length */
static void parse_attrs(const struct nlattr *first, size_t len,
			const struct nls_set *set, const struct nlattr **tb)
{
	const char *end = (const char *)first + len;
	const struct nlattr *a;

	memset(tb, 0, (set->max + 1u) * sizeof(*tb));
	for (a = first; mnl_attr_ok(a, (int)(end - (const char *)a));
	     a = mnl_attr_next(a)) {
		uint16_t t = mnl_attr_get_type(a);

		if (t <= set->max && set->attrs[t].name)
			tb[t] = a;
	}
}

void nl_nest(const struct nlattr *nest, const struct nls_set *set,
	     const struct nlattr **tb)
{
	if (!nest) {
		memset(tb, 0, (set->max + 1u) * sizeof(*tb));
		return;
	}
	parse_attrs(mnl_attr_get_payload(nest), mnl_attr_get_payload_len(nest),
		    set, tb);
}

static const char *state_path(void)
{
	const char *p = getenv("DEDUPCTL_FAKE");

	if (!p) {
		fprintf(stderr, "fake_nl: DEDUPCTL_FAKE is not set\n");
		exit(3);
	}
	return p;
}

/* The initial configuration: the module's defaults, an idle instance. */
static void state_initial(void)
{
	static char buf[STATE_MAX];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nlattr *f, *s;

	mnl_attr_put_u8(nlh, PKTDEDUP_A_CONFIG_KEY, PKTDEDUP_KEY_PACKET);
	mnl_attr_put_u32(nlh, PKTDEDUP_A_CONFIG_KEY_FLAGS, 0);
	mnl_attr_put_u16(nlh, PKTDEDUP_A_CONFIG_PAYLOAD, 64);
	mnl_attr_put_u8(nlh, PKTDEDUP_A_CONFIG_ACTION, PKTDEDUP_ACTION_COUNT);
	mnl_attr_put_u32(nlh, PKTDEDUP_A_CONFIG_MARK_VALUE, 0);
	mnl_attr_put_u32(nlh, PKTDEDUP_A_CONFIG_MARK_MASK, 0xffffffffu);
	mnl_attr_put_u8(nlh, PKTDEDUP_A_CONFIG_SCOPE, PKTDEDUP_SCOPE_PERCPU);
	mnl_attr_put_u8(nlh, PKTDEDUP_A_CONFIG_HOOK, PKTDEDUP_HOOK_PREROUTING);
	mnl_attr_put_u32(nlh, PKTDEDUP_A_CONFIG_PRIORITY, (uint32_t)-450);
	f = mnl_attr_nest_start(nlh, PKTDEDUP_A_CONFIG_FILTER);
	mnl_attr_put_u32(nlh, PKTDEDUP_A_FILTER_KIND, PKTDEDUP_FILTER_KIND_SBF);
	mnl_attr_put_u8(nlh, PKTDEDUP_A_FILTER_AUTO, 1);
	mnl_attr_put_u64(nlh, PKTDEDUP_A_FILTER_MEM, 262144);
	s = mnl_attr_nest_start(nlh, PKTDEDUP_A_FILTER_SBF);
	mnl_attr_put_u32(nlh, PKTDEDUP_A_SETTINGS_FPS, 10000000);
	mnl_attr_put_u8(nlh, PKTDEDUP_A_SETTINGS_CELL_BITS, 0);
	mnl_attr_put_u8(nlh, PKTDEDUP_A_SETTINGS_K, 0);
	mnl_attr_put_u32(nlh, PKTDEDUP_A_SETTINGS_P, PKTDEDUP_P_AUTO);
	mnl_attr_put_u64(nlh, PKTDEDUP_A_SETTINGS_GAP, 0);
	mnl_attr_put_u8(nlh, PKTDEDUP_A_SETTINGS_LAYOUT, PKTDEDUP_LAYOUT_FLAT);
	mnl_attr_nest_end(nlh, s);
	mnl_attr_nest_end(nlh, f);
	mnl_attr_put_u8(nlh, PKTDEDUP_A_CONFIG_STATE, PKTDEDUP_STATE_IDLE);
	mnl_attr_put_u32(nlh, PKTDEDUP_A_CONFIG_MATCH_MARK_VALUE, 0);
	mnl_attr_put_u32(nlh, PKTDEDUP_A_CONFIG_MATCH_MARK_MASK, 0);
	mnl_attr_put_u8(nlh, PKTDEDUP_A_CONFIG_SEED_MODE,
			PKTDEDUP_SEED_MODE_RANDOM);
	mnl_attr_put_u32(nlh, PKTDEDUP_A_CONFIG_DECAP, 0);
	mnl_attr_put_u16(nlh, PKTDEDUP_A_CONFIG_VXLAN_PORT, 4789);
	mnl_attr_put_u16(nlh, PKTDEDUP_A_CONFIG_GENEVE_PORT, 6081);
	mnl_attr_put_u16(nlh, PKTDEDUP_A_CONFIG_GTPU_PORT, 2152);
	mnl_attr_put_u32(nlh, PKTDEDUP_A_CONFIG_SHARDS, 0);
	state_len = nlh->nlmsg_len - MNL_NLMSG_HDRLEN;
	memcpy(state, mnl_nlmsg_get_payload(nlh), state_len);
}

static void state_load(void)
{
	FILE *f = fopen(state_path(), "rb");

	if (!f) {
		state_initial();
		return;
	}
	state_len = fread(state, 1, sizeof(state), f);
	fclose(f);
}

static void state_save(void)
{
	FILE *f = fopen(state_path(), "wb");

	if (!f || fwrite(state, 1, state_len, f) != state_len) {
		perror("fake_nl: state");
		exit(3);
	}
	fclose(f);
}

/* The request's config attributes, by name and value, to STATE.req. */
static void log_request(const struct nlattr **c)
{
	char path[4096];
	unsigned int t;
	FILE *f;

	snprintf(path, sizeof(path), "%s.req", state_path());
	f = fopen(path, "w");
	if (!f)
		return;
	for (t = 1; t <= PKTDEDUP_A_CONFIG_MAX; t++) {
		const struct nls_attr *sa = &nls_config.attrs[t];

		if (!c[t] || sa->type == NLS_NEST || sa->type == NLS_BINARY)
			continue;
		switch (mnl_attr_get_payload_len(c[t])) {
		case 0:		/* a flag */
			fprintf(f, "%s on\n", sa->name);
			break;
		case 1:
			fprintf(f, "%s 0x%x\n", sa->name,
				mnl_attr_get_u8(c[t]));
			break;
		case 2:
			fprintf(f, "%s %u\n", sa->name, mnl_attr_get_u16(c[t]));
			break;
		case 4:
			fprintf(f, "%s 0x%x\n", sa->name,
				mnl_attr_get_u32(c[t]));
			break;
		case 8:
			fprintf(f, "%s 0x%llx\n", sa->name, (unsigned long long)
				mnl_attr_get_u64(c[t]));
			break;
		}
	}
	fclose(f);
}

/*
 * The module's pd_cfg_ports(): two UDP tunnels looked into on one port
 * are refused, the message about the later one's port if the request
 * gave it, else the earlier one's, else decap.
 */
static int check_ports(struct nl *n, const struct nlattr **c,
		       const struct nlattr **req)
{
	/* in the order of pd_udp_tunnels */
	static const uint16_t attr[PD_NUDP_TUNNELS] = {
		PKTDEDUP_A_CONFIG_VXLAN_PORT, PKTDEDUP_A_CONFIG_GENEVE_PORT,
		PKTDEDUP_A_CONFIG_GTPU_PORT
	};
	uint16_t port[PD_NUDP_TUNNELS], at;
	unsigned int i, j;

	for (i = 0; i < PD_NUDP_TUNNELS; i++)
		port[i] = mnl_attr_get_u16(c[attr[i]]);
	if (!pd_decap_port_clash((uint8_t)mnl_attr_get_u32(c[PKTDEDUP_A_CONFIG_DECAP]),
				 port, &i, &j))
		return 0;
	at = req[attr[j]] ? attr[j] : req[attr[i]] ? attr[i] :
	     PKTDEDUP_A_CONFIG_DECAP;
	snprintf(n->err, sizeof(n->err),
		 "config.%s: decap: two UDP tunnels on one port (vxlan-port, geneve-port and gtpu-port must differ)",
		 nls_config.attrs[at].name);
	return -EINVAL;
}

/*
 * The module's plan of the request's filter (pd_set_config()), over the
 * state's filter, which stays the SBF of 256 KiB: one packet's step over
 * the bound (core/step.h) is refused with the module's words, about the
 * setting that drives it if the request gives it, else the memory.
 */
static int check_plan(struct nl *n, const struct nlattr *filter)
{
	const struct nlattr *f[PKTDEDUP_A_FILTER_MAX + 1],
		*s[PKTDEDUP_A_SETTINGS_MAX + 1];
	const struct pd_filter_ops *ops = &pd_sbf_family;
	char msg[PD_FILTER_REFUSAL_LEN];
	const struct pd_setting *row;
	struct pd_filter_plan plan;
	struct pd_filter_req req;
	const char *why = NULL;
	uint16_t nest;
	int err;

	if (!filter)
		return 0;
	nl_nest(filter, &nls_filter, f);
	if (f[PKTDEDUP_A_FILTER_KIND])
		ops = kind_family(mnl_attr_get_u32(f[PKTDEDUP_A_FILTER_KIND]));
	pd_filter_req_defaults(&req, ops->kind, f[PKTDEDUP_A_FILTER_MEM] ?
			       mnl_attr_get_u64(f[PKTDEDUP_A_FILTER_MEM]) : 262144);
	nest = family_nest(ops);
	nl_nest(f[nest], nls_filter.attrs[nest].nested, s);
	for (row = ops->settings; row->attr; row++)
		if (s[row->attr])
			pd_setting_from_wire(ops, &req, row,
					     uint_attr(s[row->attr]));
	err = pd_filter_plan(&req, &plan, &why);
	if (err != -EFBIG)
		return 0;	/* the stand-in checks this one only */
	/* the module's words: its static message, without the numbers */
	snprintf(msg, sizeof(msg), "%s", plan.step_msg);
	if (s[plan.step_attr])
		snprintf(n->err, sizeof(n->err), "config.filter.%s.%s: %s",
			 nls_filter.attrs[nest].name,
			 nls_settings.attrs[plan.step_attr].name, msg);
	else
		snprintf(n->err, sizeof(n->err), "config.filter.mem: %s", msg);
	return err;
}

/*
 * The filter nest of the state after a request's: the SBF's settings the
 * request gives in place of the state's, the others kept (as the module
 * keeps them); a request naming a kind leaves the state's filter as it was.
 * Its length, in buf.
 */
static size_t filter_merge(const struct nlattr *old, const struct nlattr *new,
			   char *buf)
{
	const struct nlattr *of[PKTDEDUP_A_FILTER_MAX + 1],
		*nf[PKTDEDUP_A_FILTER_MAX + 1],
		*os[PKTDEDUP_A_SETTINGS_MAX + 1],
		*ns[PKTDEDUP_A_SETTINGS_MAX + 1];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nlattr *f, *s;
	unsigned int t;

	nl_nest(old, &nls_filter, of);
	nl_nest(new, &nls_filter, nf);
	if (nf[PKTDEDUP_A_FILTER_KIND] || !nf[PKTDEDUP_A_FILTER_SBF] ||
	    !of[PKTDEDUP_A_FILTER_SBF]) {
		memcpy(buf, old, MNL_ALIGN(old->nla_len));
		return MNL_ALIGN(old->nla_len);
	}
	nl_nest(of[PKTDEDUP_A_FILTER_SBF], &nls_sbf, os);
	nl_nest(nf[PKTDEDUP_A_FILTER_SBF], &nls_sbf, ns);
	f = mnl_attr_nest_start(nlh, PKTDEDUP_A_CONFIG_FILTER);
	for (t = 1; t <= PKTDEDUP_A_FILTER_MAX; t++) {
		const struct nlattr *a = nf[t] ? nf[t] : of[t];

		if (!a || t == PKTDEDUP_A_FILTER_SBF)
			continue;
		mnl_attr_put(nlh, t, mnl_attr_get_payload_len(a),
			     mnl_attr_get_payload(a));
	}
	s = mnl_attr_nest_start(nlh, PKTDEDUP_A_FILTER_SBF);
	for (t = 1; t <= PKTDEDUP_A_SETTINGS_MAX; t++) {
		const struct nlattr *a = ns[t] ? ns[t] : os[t];

		if (a)
			mnl_attr_put(nlh, t, mnl_attr_get_payload_len(a),
				     mnl_attr_get_payload(a));
	}
	mnl_attr_nest_end(nlh, s);
	mnl_attr_nest_end(nlh, f);
	memmove(buf, f, MNL_ALIGN(f->nla_len));
	return MNL_ALIGN(((struct nlattr *)buf)->nla_len);
}

/* SET_CONFIG: the request's config attributes in place of the state's. */
static int state_merge(struct nl *n, const struct nlattr *req)
{
	const struct nlattr *old[PKTDEDUP_A_CONFIG_MAX + 1],
		*new[PKTDEDUP_A_CONFIG_MAX + 1],
		*merged[PKTDEDUP_A_CONFIG_MAX + 1];
	static char buf[STATE_MAX];
	size_t len = 0;
	unsigned int t;
	int err;

	parse_attrs((const struct nlattr *)state, state_len, &nls_config, old);
	nl_nest(req, &nls_config, new);
	log_request(new);
	for (t = 1; t <= PKTDEDUP_A_CONFIG_MAX; t++) {
		const struct nlattr *a =
			new[t] && t != PKTDEDUP_A_CONFIG_FILTER ? new[t] : old[t];
		size_t sz;

		/* a seed fixes the seed; seed-mode random forgets it */
		if ((t == PKTDEDUP_A_CONFIG_SEED_MODE &&
		     new[PKTDEDUP_A_CONFIG_SEED]) ||
		    (t == PKTDEDUP_A_CONFIG_SEED &&
		     new[PKTDEDUP_A_CONFIG_SEED_MODE]))
			continue;
		/* force and check are a request's, never kept */
		if (!a || t == PKTDEDUP_A_CONFIG_FORCE ||
		    t == PKTDEDUP_A_CONFIG_CHECK)
			continue;
		if (t == PKTDEDUP_A_CONFIG_FILTER && new[t] && old[t]) {
			len += filter_merge(old[t], new[t], buf + len);
			continue;
		}
		sz = MNL_ALIGN(a->nla_len);
		memcpy(buf + len, a, sz);
		len += sz;
	}
	if (new[PKTDEDUP_A_CONFIG_SEED]) {
		struct nlattr *a = (struct nlattr *)(buf + len);

		a->nla_type = PKTDEDUP_A_CONFIG_SEED_MODE;
		a->nla_len = MNL_ATTR_HDRLEN + 1;
		memset(a + 1, 0, MNL_ALIGN(1));
		*(uint8_t *)mnl_attr_get_payload(a) = PKTDEDUP_SEED_MODE_FIXED;
		len += MNL_ALIGN(a->nla_len);
	}
	parse_attrs((const struct nlattr *)buf, len, &nls_config, merged);
	err = check_ports(n, merged, new);
	if (!err)
		err = check_plan(n, new[PKTDEDUP_A_CONFIG_FILTER]);
	if (err || new[PKTDEDUP_A_CONFIG_CHECK])
		return err;	/* checked only: nothing changes */
	memcpy(state, buf, len);
	state_len = len;
	state_save();
	return 0;
}

/*
 * The totals' device nests: one per name of the state's devs, the name
 * i (from 0) with 1000 (i + 1) packets, 100 i duplicates, as many dropped.
 */
static void put_dev_stats(struct nlmsghdr *nlh, const struct nlattr *devs)
{
	const struct nlattr *a;
	struct nlattr *d;
	uint64_t i = 0;

	if (!devs)
		return;
	mnl_attr_for_each_nested(a, devs) {
		if (mnl_attr_get_type(a) != PKTDEDUP_A_DEVS_NAME)
			continue;
		d = mnl_attr_nest_start(nlh, PKTDEDUP_A_STATS_DEVICE);
		mnl_attr_put_strz(nlh, PKTDEDUP_A_DEVICE_STATS_NAME,
				  mnl_attr_get_str(a));
		mnl_attr_put_u64(nlh, PKTDEDUP_A_DEVICE_STATS_PACKETS,
				 1000 * (i + 1));
		mnl_attr_put_u64(nlh, PKTDEDUP_A_DEVICE_STATS_DUPLICATES,
				 100 * i);
		mnl_attr_put_u64(nlh, PKTDEDUP_A_DEVICE_STATS_MARKED, 0);
		mnl_attr_put_u64(nlh, PKTDEDUP_A_DEVICE_STATS_DROPPED, 100 * i);
		mnl_attr_nest_end(nlh, d);
		i++;
	}
}

/*
 * The totals' rate and memory: $DEDUPCTL_FAKE_MEMORY is "PACKETS,NS,RATE",
 * each empty for an attribute left out (unset: none of them).
 */
static void put_memory(struct nlmsghdr *nlh)
{
	static const uint16_t attr[] = { PKTDEDUP_A_STATS_MEMORY_PACKETS,
					 PKTDEDUP_A_STATS_MEMORY_NS,
					 PKTDEDUP_A_STATS_RATE };
	const char *v = getenv("DEDUPCTL_FAKE_MEMORY");
	unsigned int i;
	char *end;

	for (i = 0; v && i < 3; i++) {
		if (*v && *v != ',') {
			mnl_attr_put_u64(nlh, attr[i], strtoull(v, &end, 10));
			v = end;
		}
		if (*v == ',')
			v++;
	}
}

/*
 * A window family's state: $DEDUPCTL_FAKE_WINDOW is "ns" (a window of 2 ms,
 * effective 1.5 ms, shortest 1 ms) or "packets" (100000 packets, 90000,
 * 80000); unset, none.
 */
static void put_window(struct nlmsghdr *nlh)
{
	const char *v = getenv("DEDUPCTL_FAKE_WINDOW");
	uint64_t unit = v && !strcmp(v, "ns") ? 20 : 1;

	if (!v)
		return;
	mnl_attr_put_u64(nlh, unit > 1 ? PKTDEDUP_A_STATS_WINDOW_NS :
			 PKTDEDUP_A_STATS_WINDOW_PACKETS, 100000 * unit);
	mnl_attr_put_u64(nlh, PKTDEDUP_A_STATS_WINDOW_EFFECTIVE, 75000 * unit);
	mnl_attr_put_u64(nlh, PKTDEDUP_A_STATS_WINDOW_SHORTEST, 50000 * unit);
	mnl_attr_put_u64(nlh, PKTDEDUP_A_STATS_WINDOW_ENTRIES, 4242);
	mnl_attr_put_u64(nlh, PKTDEDUP_A_STATS_EARLY_EXPIRIES, 7);
}

/*
 * Fixed counters; a decap nest per encapsulation of the state's decap;
 * the totals, a device nest per named device.
 */
static void put_stats(struct nlmsghdr *nlh, int cpu, unsigned int div)
{
	const struct nlattr *c[PKTDEDUP_A_CONFIG_MAX + 1];
	struct nlattr *st, *d;
	uint32_t decap;
	unsigned int i;

	parse_attrs((const struct nlattr *)state, state_len, &nls_config, c);
	decap = c[PKTDEDUP_A_CONFIG_DECAP] ?
		mnl_attr_get_u32(c[PKTDEDUP_A_CONFIG_DECAP]) : 0;
	st = mnl_attr_nest_start(nlh, PKTDEDUP_A_STATS);
	if (cpu >= 0)
		mnl_attr_put_u32(nlh, PKTDEDUP_A_STATS_CPU, (uint32_t)cpu);
	mnl_attr_put_u64(nlh, PKTDEDUP_A_STATS_PACKETS, 10000 / div);
	mnl_attr_put_u64(nlh, PKTDEDUP_A_STATS_DUPLICATES, 4000 / div);
	mnl_attr_put_u64(nlh, PKTDEDUP_A_STATS_MARKED, 0);
	mnl_attr_put_u64(nlh, PKTDEDUP_A_STATS_DROPPED, 0);
	mnl_attr_put_u64(nlh, PKTDEDUP_A_STATS_UNPARSED, 20 / div);
	mnl_attr_put_u64(nlh, PKTDEDUP_A_STATS_NONIP, 0);
	if (getenv("DEDUPCTL_FAKE_REFUSED"))
		mnl_attr_put_u64(nlh, PKTDEDUP_A_STATS_UNJUDGED, 14 / div);
	mnl_attr_put_u32(nlh, PKTDEDUP_A_STATS_ZERO_CELLS, 900000000);
	for (i = 0; i < 32; i++) {
		if (!(decap & (1u << i)))
			continue;
		d = mnl_attr_nest_start(nlh, PKTDEDUP_A_STATS_DECAP);
		mnl_attr_put_u32(nlh, PKTDEDUP_A_DECAP_STATS_ENCAP, 1u << i);
		mnl_attr_put_u64(nlh, PKTDEDUP_A_DECAP_STATS_FRAMES,
				 1000 * (i + 1) / div);
		mnl_attr_put_u64(nlh, PKTDEDUP_A_DECAP_STATS_ERRORS, i / div);
		mnl_attr_nest_end(nlh, d);
	}
	if (cpu < 0)
		put_dev_stats(nlh, c[PKTDEDUP_A_CONFIG_DEVS]);
	if (cpu < 0)
		put_memory(nlh);
	put_window(nlh);
	mnl_attr_nest_end(nlh, st);
}

static struct nlmsghdr *reply_start(char *buf)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	mnl_nlmsg_put_extra_header(nlh, GENL_HDRLEN);
	return nlh;
}

static int deliver(struct nlmsghdr *nlh, nl_reply_cb cb, void *data)
{
	const struct nlattr *tb[PKTDEDUP_A_MAX + 1];

	if (!cb)
		return 0;
	parse_attrs(mnl_nlmsg_get_payload_offset(nlh, GENL_HDRLEN),
		    nlh->nlmsg_len - MNL_NLMSG_HDRLEN - GENL_HDRLEN,
		    &nls_pktdedup, tb);
	return cb(tb, data) == MNL_CB_OK ? 0 : -EINTR;
}

static int config_reply(nl_reply_cb cb, void *data)
{
	static char buf[STATE_MAX + 1024];
	struct nlmsghdr *nlh = reply_start(buf);
	struct nlattr *n;

	mnl_attr_put(nlh, PKTDEDUP_A_CONFIG, state_len, state);
	n = mnl_attr_nest_start(nlh, PKTDEDUP_A_BUDGET);
	mnl_attr_put_u64(nlh, PKTDEDUP_A_BUDGET_CAP, 268435456);
	mnl_attr_put_u8(nlh, PKTDEDUP_A_BUDGET_CAP_SOURCE,
			PKTDEDUP_CAP_SOURCE_INIT_USERNS);
	mnl_attr_put_u64(nlh, PKTDEDUP_A_BUDGET_TOTAL_CAP, 1073741824);
	if (getenv("DEDUPCTL_FAKE_REFUSED")) {
		/* what is not running: no room for the sources, a CPU */
		mnl_attr_put_u64(nlh, PKTDEDUP_A_BUDGET_USER_CAP, 50331648);
		mnl_attr_put_u8(nlh, PKTDEDUP_A_BUDGET_SOURCES_REFUSAL,
				PKTDEDUP_REFUSAL_CAP);
		mnl_attr_put_u64(nlh, PKTDEDUP_A_BUDGET_SOURCES_NEED,
				 101711872);
		mnl_attr_put_u32(nlh, PKTDEDUP_A_BUDGET_CPUS_ONLINE, 4);
		mnl_attr_put_u32(nlh, PKTDEDUP_A_BUDGET_CPUS_NO_FILTER, 1);
		mnl_attr_put_u32(nlh, PKTDEDUP_A_BUDGET_CPUS_NO_SOURCES, 1);
		mnl_attr_put_u8(nlh, PKTDEDUP_A_BUDGET_CPU_REFUSAL,
				PKTDEDUP_REFUSAL_USER);
		mnl_attr_put_u64(nlh, PKTDEDUP_A_BUDGET_CPU_NEED, 1310720);
	}
	mnl_attr_nest_end(nlh, n);
	return deliver(nlh, cb, data);
}

int nl_open(struct nl *n)
{
	memset(n, 0, sizeof(*n));
	n->version = PKTDEDUP_GENL_VERSION;
	state_load();
	return 0;
}

/* The stand-in says whether the namespace is there; it enters none. */
int nl_netns(const char *path, char *err, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	fclose(f);
	return 0;
}

void nl_close(struct nl *n)
{
}

struct nlmsghdr *nl_request(struct nl *n, uint8_t cmd, bool dump)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(n->buf);
	struct genlmsghdr *g;

	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0);
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = PKTDEDUP_GENL_VERSION;
	return nlh;
}

int nl_talk(struct nl *n, struct nlmsghdr *req, nl_reply_cb cb, void *data)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(req);
	const struct nlattr *tb[PKTDEDUP_A_MAX + 1];
	static char buf[4096];
	struct nlmsghdr *nlh;
	struct nlattr *s;
	int err, cpu;

	n->err[0] = '\0';
	parse_attrs(mnl_nlmsg_get_payload_offset(req, GENL_HDRLEN),
		    req->nlmsg_len - MNL_NLMSG_HDRLEN - GENL_HDRLEN,
		    &nls_pktdedup, tb);
	switch (g->cmd) {
	case PKTDEDUP_CMD_GET_CONFIG:
		return config_reply(cb, data);
	case PKTDEDUP_CMD_SET_CONFIG:
		err = tb[PKTDEDUP_A_CONFIG] ?
		      state_merge(n, tb[PKTDEDUP_A_CONFIG]) : 0;
		return err ? err : config_reply(cb, data);
	case PKTDEDUP_CMD_GET_STATS:
		if (!(req->nlmsg_flags & NLM_F_DUMP)) {
			nlh = reply_start(buf);
			put_stats(nlh, -1, 1);
			return deliver(nlh, cb, data);
		}
		for (cpu = 0; cpu < 2; cpu++) {
			nlh = reply_start(buf);
			put_stats(nlh, cpu, 2);
			err = deliver(nlh, cb, data);
			if (err)
				return err;
		}
		return 0;
	case PKTDEDUP_CMD_GET_SOURCES:
		nlh = reply_start(buf);
		s = mnl_attr_nest_start(nlh, PKTDEDUP_A_SOURCES);
		mnl_attr_put_u8(nlh, PKTDEDUP_A_SOURCES_ENABLED, 1);
		mnl_attr_put_u32(nlh, PKTDEDUP_A_SOURCES_WINDOW_MS, 60000);
		mnl_attr_put_u32(nlh, PKTDEDUP_A_SOURCES_SUBWINDOWS, 12);
		mnl_attr_put_u32(nlh, PKTDEDUP_A_SOURCES_COUNTERS, 0);
		mnl_attr_put_u8(nlh, PKTDEDUP_A_SOURCES_NEW, 1);
		mnl_attr_put_u64(nlh, PKTDEDUP_A_SOURCES_NEW_MEM, 65536);
		mnl_attr_put_u64(nlh, PKTDEDUP_A_SOURCES_NEW_GAP, 1000);
		mnl_attr_put_u32(nlh, PKTDEDUP_A_SOURCES_EVENT_RATE, 1000);
		mnl_attr_put_u32(nlh, PKTDEDUP_A_SOURCES_RING, 1024);
		mnl_attr_nest_end(nlh, s);
		return deliver(nlh, cb, data);
	case PKTDEDUP_CMD_SET_SOURCES:
		return 0;
	}
	snprintf(n->err, sizeof(n->err), "the fake module has no command %u",
		 g->cmd);
	return -EOPNOTSUPP;
}

int nl_talk_entries(struct nl *n, struct nlmsghdr *req, nl_reply_cb cb,
		    nl_reply_cb entry_cb, void *data)
{
	return nl_talk(n, req, cb, data);
}

int nl_listen(struct nl *n, nl_reply_cb cb, void *data)
{
	snprintf(n->err, sizeof(n->err), "the fake module sends no events");
	return -ENOENT;
}
