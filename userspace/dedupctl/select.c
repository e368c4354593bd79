// SPDX-License-Identifier: GPL-2.0
/*
 * dedupctl: traffic selection, the settings dev, proto and match-mark of
 * "set", and how show prints them.
 *
 *   dev NAME[,NAME...] | any      the devices whose packets are looked at
 *   proto P[,P...] | any          upper-layer protocols, by name or number
 *   match-mark VALUE[/MASK] | any (mark & MASK) == VALUE
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/uapi/pktdedup.h"
#include "../common/nl_spec.h"
#include "../common/protos.h"
#include "../../module/core/config.h"
#include "dedupctl.h"

/* Split v at commas into at most max words of buf; exits 2 if more. */
static int split_list(const char *what, const char *v, char *buf, size_t len,
		      char **words, int max)
{
	char *w, *save = NULL;
	int n = 0;

	if (snprintf(buf, len, "%s", v) >= (int)len)
		usage_error("%s: '%s' is too long", what, v);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (n == max)
			usage_error("%s: at most %d in '%s'", what, max, v);
		words[n++] = w;
	}
	if (!n)
		usage_error("%s: '%s' names nothing", what, v);
	return n;
}

static void put_devs(struct nlmsghdr *nlh, const char *v)
{
	char buf[PKTDEDUP_DEVS_MAX * (PKTDEDUP_IFNAME_MAX + 2)];
	char *names[PKTDEDUP_DEVS_MAX];
	struct nlattr *nest;
	int i, n = 0;

	if (strcmp(v, "any"))
		n = split_list("dev", v, buf, sizeof(buf), names,
			       PKTDEDUP_DEVS_MAX);
	for (i = 0; i < n; i++)
		if (strlen(names[i]) > PKTDEDUP_IFNAME_MAX ||
		    strchr(names[i], '/'))
			usage_error("dev: '%s' is not a device name", names[i]);
	nest = mnl_attr_nest_start(nlh, PKTDEDUP_A_CONFIG_DEVS);
	for (i = 0; i < n; i++)
		mnl_attr_put_strz(nlh, PKTDEDUP_A_DEVS_NAME, names[i]);
	mnl_attr_nest_end(nlh, nest);
}

static void put_protos(struct nlmsghdr *nlh, const char *v)
{
	uint8_t map[PKTDEDUP_PROTOS_LEN] = { 0 };
	char buf[1024], *words[256];	/* every protocol, as save writes it */
	int i, n, p;

	if (strcmp(v, "any")) {
		n = split_list("proto", v, buf, sizeof(buf), words, 256);
		for (i = 0; i < n; i++) {
			p = proto_num(words[i]);
			if (p < 0)
				usage_error("proto: '%s' is not a protocol (tcp, udp, icmp, icmpv6, sctp, ... or 0-255)",
					    words[i]);
			map[p >> 3] |= (uint8_t)(1u << (p & 7));
		}
	}
	mnl_attr_put(nlh, PKTDEDUP_A_CONFIG_PROTOS, sizeof(map), map);
}

bool put_select_setting(struct nlmsghdr *nlh, const char *k, const char *v)
{
	uint32_t value = 0, mask = 0;

	if (!strcmp(k, "dev")) {
		put_devs(nlh, v);
	} else if (!strcmp(k, "proto")) {
		put_protos(nlh, v);
	} else if (!strcmp(k, "match-mark")) {
		if (strcmp(v, "any"))
			mark_arg(v, &value, &mask);
		if (value & ~mask)
			usage_error("match-mark: '%s' has bits outside its mask",
				    v);
		mnl_attr_put_u32(nlh, PKTDEDUP_A_CONFIG_MATCH_MARK_VALUE, value);
		mnl_attr_put_u32(nlh, PKTDEDUP_A_CONFIG_MATCH_MARK_MASK, mask);
	} else {
		return false;
	}
	return true;
}

/* Append to a buffer of room bytes at *o, never past its end. */
static void add(char *buf, size_t room, size_t *o, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add(char *buf, size_t room, size_t *o, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*o >= room)
		return;
	va_start(ap, fmt);
	w = vsnprintf(buf + *o, room - *o, fmt, ap);
	va_end(ap);
	*o += w < 0 ? 0 : (size_t)w;
}

/*
 * One device nest of a devs nest into v's note, devices and absent: its
 * state, ifindex, the name it defers to (stacked on, same as) and why it
 * failed (xdp: the placement's enum pd_xdp_mode).
 */
static void device_view(const struct nlattr *nest, struct select_view *v,
			size_t *o, uint8_t xdp)
{
	const struct nlattr *d[PKTDEDUP_A_DEVICE_MAX + 1];
	const char *name, *lower, *state, *why = NULL;
	uint8_t st;

	nl_nest(nest, &nls_device, d);
	if (!d[PKTDEDUP_A_DEVICE_NAME] || !d[PKTDEDUP_A_DEVICE_STATE])
		return;
	name = mnl_attr_get_str(d[PKTDEDUP_A_DEVICE_NAME]);
	lower = d[PKTDEDUP_A_DEVICE_LOWER] ?
		mnl_attr_get_str(d[PKTDEDUP_A_DEVICE_LOWER]) : "";
	st = u8a(d, PKTDEDUP_A_DEVICE_STATE);
	state = st <= PKTDEDUP_DEV_STATE_MAX && pd_dev_state_names[st] ?
		pd_dev_state_names[st] : "unknown";
	if (st == PKTDEDUP_DEV_STATE_FAILED)
		why = pd_dev_why(d[PKTDEDUP_A_DEVICE_ERROR] ?
				 u32a(d, PKTDEDUP_A_DEVICE_ERROR) : 0, xdp);
	add(v->devices, sizeof(v->devices), &o[1],
	    "%s{\"name\":\"%s\",\"state\":\"%s\"", o[1] ? "," : "", name,
	    state);
	if (d[PKTDEDUP_A_DEVICE_IFINDEX])
		add(v->devices, sizeof(v->devices), &o[1], ",\"ifindex\":%u",
		    u32a(d, PKTDEDUP_A_DEVICE_IFINDEX));
	if (*lower)
		add(v->devices, sizeof(v->devices), &o[1], ",\"lower\":\"%s\"",
		    lower);
	if (why)
		add(v->devices, sizeof(v->devices), &o[1], ",\"why\":\"%s\"",
		    why);
	add(v->devices, sizeof(v->devices), &o[1], "}");
	if (st == PKTDEDUP_DEV_STATE_ABSENT)
		add(v->absent, sizeof(v->absent), &o[2], "%s%s",
		    o[2] ? "," : "", name);
	if (st == PKTDEDUP_DEV_STATE_ACTIVE)
		return;
	add(v->note, sizeof(v->note), &o[0], "%s%s %s%s%s%s%s", o[0] ? ", " : "",
	    name, state,
	    *lower ? st == PKTDEDUP_DEV_STATE_SAME ? " as " : " on " : "",
	    lower, why ? ": " : "", why ? why : "");
}

/* The selection of a config nest c as "dev", "proto", "match-mark" values. */
void select_view(const struct nlattr **c, struct select_view *v)
{
	const struct nlattr *a;
	const uint8_t *map = NULL;
	size_t o = 0, od[3] = { 0 };
	uint8_t hook;
	char num[8];
	unsigned int i;

	memset(v, 0, sizeof(*v));
	snprintf(v->dev, sizeof(v->dev), "any");
	snprintf(v->proto, sizeof(v->proto), "any");
	snprintf(v->mark, sizeof(v->mark), "any");
	hook = u8a(c, PKTDEDUP_A_CONFIG_HOOK);
	if (c[PKTDEDUP_A_CONFIG_DEVS]) {
		mnl_attr_for_each_nested(a, c[PKTDEDUP_A_CONFIG_DEVS]) {
			if (mnl_attr_get_type(a) == PKTDEDUP_A_DEVS_DEVICE) {
				device_view(a, v, od, hook < PD_NHOOKS ?
					    pd_placements[hook].xdp : 0);
				continue;
			}
			if (mnl_attr_get_type(a) != PKTDEDUP_A_DEVS_NAME ||
			    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
				continue;
			o += (size_t)snprintf(v->dev + o, sizeof(v->dev) - o,
					      "%s%s", o ? "," : "",
					      mnl_attr_get_str(a));
			if (o >= sizeof(v->dev))
				break;
		}
	}
	if (c[PKTDEDUP_A_CONFIG_PROTOS] &&
	    mnl_attr_get_payload_len(c[PKTDEDUP_A_CONFIG_PROTOS]) ==
	    PKTDEDUP_PROTOS_LEN)
		map = mnl_attr_get_payload(c[PKTDEDUP_A_CONFIG_PROTOS]);
	for (i = 0, o = 0; map && i < 256 && o < sizeof(v->proto); i++)
		if (map[i >> 3] >> (i & 7) & 1)
			o += (size_t)snprintf(v->proto + o, sizeof(v->proto) - o,
					      "%s%s", o ? "," : "",
					      proto_name(i, num, sizeof(num)));
	if (u32a(c, PKTDEDUP_A_CONFIG_MATCH_MARK_MASK))
		snprintf(v->mark, sizeof(v->mark), "0x%x/0x%x",
			 u32a(c, PKTDEDUP_A_CONFIG_MATCH_MARK_VALUE),
			 u32a(c, PKTDEDUP_A_CONFIG_MATCH_MARK_MASK));
}
