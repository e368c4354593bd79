// SPDX-License-Identifier: GPL-2.0
/*
 * dedupctl: traffic selection, the settings dev, proto and match-mark of
 * "set", and how show prints them.
 *
 *   dev NAME[,NAME...] | any      the devices whose packets are looked at
 *   proto P[,P...] | any          upper-layer protocols, by name or number
 *   match-mark VALUE[/MASK] | any (mark & MASK) == VALUE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/uapi/pktdedup.h"
#include "../common/nl_spec.h"
#include "../common/protos.h"
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

static const char *const dev_states[PKTDEDUP_DEV_STATE_MAX + 1] = {
	[PKTDEDUP_DEV_STATE_ACTIVE] = "active",
	[PKTDEDUP_DEV_STATE_ABSENT] = "absent",
	[PKTDEDUP_DEV_STATE_STACKED] = "stacked",
	[PKTDEDUP_DEV_STATE_FAILED] = "failed",
	[PKTDEDUP_DEV_STATE_WAITING] = "waiting",
};

/* One device nest of a devs nest into v's note and devices. */
static void device_view(const struct nlattr *nest, struct select_view *v,
			size_t *on, size_t *od)
{
	const struct nlattr *d[PKTDEDUP_A_DEVICE_MAX + 1];
	const char *name, *lower, *state;
	uint8_t st;

	nl_nest(nest, &nls_device, d);
	if (!d[PKTDEDUP_A_DEVICE_NAME] || !d[PKTDEDUP_A_DEVICE_STATE])
		return;
	name = mnl_attr_get_str(d[PKTDEDUP_A_DEVICE_NAME]);
	lower = d[PKTDEDUP_A_DEVICE_LOWER] ?
		mnl_attr_get_str(d[PKTDEDUP_A_DEVICE_LOWER]) : "";
	st = u8a(d, PKTDEDUP_A_DEVICE_STATE);
	state = st <= PKTDEDUP_DEV_STATE_MAX ? dev_states[st] : "unknown";
	if (*od < sizeof(v->devices))
		*od += (size_t)snprintf(v->devices + *od,
					sizeof(v->devices) - *od,
					"%s{\"name\":\"%s\",\"state\":\"%s\"",
					*od ? "," : "", name, state);
	if (*od < sizeof(v->devices) && d[PKTDEDUP_A_DEVICE_IFINDEX])
		*od += (size_t)snprintf(v->devices + *od,
					sizeof(v->devices) - *od,
					",\"ifindex\":%u",
					u32a(d, PKTDEDUP_A_DEVICE_IFINDEX));
	if (*od < sizeof(v->devices) && *lower)
		*od += (size_t)snprintf(v->devices + *od,
					sizeof(v->devices) - *od,
					",\"lower\":\"%s\"", lower);
	if (*od < sizeof(v->devices))
		*od += (size_t)snprintf(v->devices + *od,
					sizeof(v->devices) - *od, "}");
	if (st == PKTDEDUP_DEV_STATE_ACTIVE || *on >= sizeof(v->note))
		return;
	*on += (size_t)snprintf(v->note + *on, sizeof(v->note) - *on,
				"%s%s %s%s%s", *on ? ", " : "", name, state,
				*lower ? " on " : "", lower);
}

/* The selection of a config nest c as "dev", "proto", "match-mark" values. */
void select_view(const struct nlattr **c, struct select_view *v)
{
	const struct nlattr *a;
	const uint8_t *map = NULL;
	char num[8];
	size_t o = 0, on = 0, od = 0;
	unsigned int i;

	memset(v, 0, sizeof(*v));
	snprintf(v->dev, sizeof(v->dev), "any");
	snprintf(v->proto, sizeof(v->proto), "any");
	snprintf(v->mark, sizeof(v->mark), "any");
	if (c[PKTDEDUP_A_CONFIG_DEVS]) {
		mnl_attr_for_each_nested(a, c[PKTDEDUP_A_CONFIG_DEVS]) {
			if (mnl_attr_get_type(a) == PKTDEDUP_A_DEVS_DEVICE) {
				device_view(a, v, &on, &od);
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
