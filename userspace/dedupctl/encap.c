// SPDX-License-Identifier: GPL-2.0
/*
 * dedupctl: the tunnel settings (encap.h).
 *
 *   decap none | all | NAME[,NAME...]  tunnels looked into for the key,
 *                                      the names of pd_encap_names[]
 *   tunnel-id include | ignore         the key flag tunnel-id
 *   vxlan-port N, geneve-port N, gtpu-port N   1 to 65535
 */
#include <stdio.h>
#include <string.h>

#include "../../module/core/decap.h"
#include "../../module/uapi/pktdedup.h"
#include "../common/args.h"
#include "encap.h"

const struct encap_port encap_ports[ENCAP_NPORTS] = {
	{ "vxlan-port", "vxlan_port", PKTDEDUP_A_CONFIG_VXLAN_PORT,
	  PKTDEDUP_DECAP_VXLAN, PD_VXLAN_PORT },
	{ "geneve-port", "geneve_port", PKTDEDUP_A_CONFIG_GENEVE_PORT,
	  PKTDEDUP_DECAP_GENEVE, PD_GENEVE_PORT },
	{ "gtpu-port", "gtpu_port", PKTDEDUP_A_CONFIG_GTPU_PORT,
	  PKTDEDUP_DECAP_GTPU, PD_GTPU_PORT },
};

void encap_defaults(struct encap_cfg *c)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < ENCAP_NPORTS; i++)
		c->port[i] = encap_ports[i].dflt;
}

/* The valid names, for a message: "vxlan geneve gre erspan gtpu ip". */
static const char *valid_names(char *buf, size_t len)
{
	size_t o = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < PD_NENCAPS && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? " " : "",
				      pd_encap_names[i]);
	return buf;
}

/* A decap list (the core's parser) into *flags; -1 with why if it is bad. */
static int decap_arg(const char *v, uint32_t *flags, char *why, size_t len)
{
	struct pd_decap_bad bad;
	char names[64];
	uint8_t d;

	if (!pd_decap_parse(v, &d, &bad)) {
		*flags = d;
		return 0;
	}
	switch (bad.why) {
	case PD_DECAP_EMPTY:
		snprintf(why, len, "decap: '%s' has an empty name (give none, all or names separated by commas)",
			 v);
		break;
	case PD_DECAP_ALONE:
		snprintf(why, len, "decap: '%s': none and all stand alone, not in a list",
			 v);
		break;
	case PD_DECAP_TWICE:
		snprintf(why, len, "decap: '%s' names %.*s twice", v,
			 (int)bad.len, v + bad.at);
		break;
	default:
		snprintf(why, len, "decap: '%.*s' is not one of: %s (a comma-separated list of them, none or all)",
			 (int)bad.len, v + bad.at,
			 valid_names(names, sizeof(names)));
		break;
	}
	return -1;
}

int encap_setting(const char *k, const char *v, struct encap_cfg *c,
		  unsigned int *given, char *why, size_t len)
{
	unsigned int i;
	uint64_t x;

	if (!strcmp(k, "decap")) {
		if (decap_arg(v, &c->decap, why, len))
			return -1;
		*given |= ENCAP_GIVEN_DECAP;
		return 1;
	}
	if (!strcmp(k, "tunnel-id")) {
		if (strcmp(v, "include") && strcmp(v, "ignore")) {
			snprintf(why, len, "tunnel-id: '%s' is not include or ignore",
				 v);
			return -1;
		}
		c->tunnel_id = !strcmp(v, "include");
		*given |= ENCAP_GIVEN_TUNNEL_ID;
		return 1;
	}
	for (i = 0; i < ENCAP_NPORTS; i++) {
		if (strcmp(k, encap_ports[i].setting))
			continue;
		/* num_arg()'s words */
		if (!parse_u64(v, 1, 65535, &x)) {
			snprintf(why, len, "%s: '%s' is not a number from 1 to 65535",
				 k, v);
			return -1;
		}
		c->port[i] = (uint16_t)x;
		*given |= ENCAP_GIVEN_PORT(i);
		return 1;
	}
	return 0;
}

const char *encap_name(char *buf, size_t len, uint32_t flag)
{
	unsigned int i;

	for (i = 0; i < PD_NENCAPS; i++)
		if (flag == 1u << i)
			return pd_encap_names[i];
	snprintf(buf, len, "0x%x", flag);
	return buf;
}

const char *encap_list(char *buf, size_t len, uint32_t decap)
{
	char hex[16];
	size_t o = 0;
	unsigned int i;

	snprintf(buf, len, "none");
	for (i = 0; i < 32 && o < len; i++)
		if (decap & (1u << i))
			o += (size_t)snprintf(buf + o, len - o, "%s%s",
					      o ? "," : "",
					      encap_name(hex, sizeof(hex),
							 1u << i));
	return buf;
}

unsigned int encap_words(const struct encap_cfg *c,
			 char words[ENCAP_WORDS][ENCAP_WORD_LEN])
{
	unsigned int i, n = 0;

	snprintf(words[n++], ENCAP_WORD_LEN, "decap");
	encap_list(words[n++], ENCAP_WORD_LEN, c->decap);
	snprintf(words[n++], ENCAP_WORD_LEN, "tunnel-id");
	snprintf(words[n++], ENCAP_WORD_LEN, "%s",
		 c->tunnel_id ? "include" : "ignore");
	for (i = 0; i < ENCAP_NPORTS; i++) {
		snprintf(words[n++], ENCAP_WORD_LEN, "%s",
			 encap_ports[i].setting);
		snprintf(words[n++], ENCAP_WORD_LEN, "%u", c->port[i]);
	}
	return n;
}

const char *encap_show(char *buf, size_t len, const struct encap_cfg *c)
{
	size_t o;
	unsigned int i, n = 0;

	encap_list(buf, len, c->decap);
	if (!c->decap)
		return buf;
	o = strlen(buf);
	for (i = 0; i < ENCAP_NPORTS && o < len; i++)
		if (c->decap & encap_ports[i].flag)
			o += (size_t)snprintf(buf + o, len - o, "%s%s %u",
					      n++ ? ", " : " (",
					      encap_ports[i].setting,
					      c->port[i]);
	if (n && o < len)
		o += (size_t)snprintf(buf + o, len - o, ")");
	if (o < len)
		snprintf(buf + o, len - o, ", tunnel-id %s",
			 c->tunnel_id ? "include" : "ignore");
	return buf;
}
