// SPDX-License-Identifier: GPL-2.0
/* Upper-layer protocol names: see protos.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protos.h"

static const struct {
	const char *name;
	unsigned int num;
} protos[] = {
	{ "icmp", 1 }, { "igmp", 2 }, { "tcp", 6 }, { "udp", 17 },
	{ "dccp", 33 }, { "gre", 47 }, { "esp", 50 }, { "ah", 51 },
	{ "icmpv6", 58 }, { "ipv6-icmp", 58 }, { "ospf", 89 }, { "pim", 103 },
	{ "vrrp", 112 }, { "sctp", 132 }, { "udplite", 136 },
};

int proto_num(const char *s)
{
	unsigned int i;
	char *end;
	long v;

	for (i = 0; i < sizeof(protos) / sizeof(protos[0]); i++)
		if (!strcmp(s, protos[i].name))
			return (int)protos[i].num;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 255)
		return -1;
	return (int)v;
}

const char *proto_name(unsigned int num, char *buf, size_t len)
{
	unsigned int i;

	for (i = 0; i < sizeof(protos) / sizeof(protos[0]); i++)
		if (protos[i].num == num)
			return protos[i].name;
	snprintf(buf, len, "%u", num);
	return buf;
}
