// SPDX-License-Identifier: GPL-2.0
/*
 * pdnet nonip IFACE DST_MAC COUNT [--vid VID]: COUNT distinct frames that
 * are not IP (EtherType 0x88b5, local experimental; 46 bytes of payload
 * numbering them), each sent twice through a packet socket on IFACE, as
 * two taps deliver one frame: first untagged from 02:aa:00:00:00:01, then
 * under an 802.1Q tag of VLAN VID (default 7) from 02:bb:00:00:00:01.
 * The module's nonip dedup takes the second for a copy of the first (its
 * MAC addresses and tags left out of the key). Prints the frames sent.
 */
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "pdnet.h"

#define NONIP_TYPE 0x88b5
#define NONIP_PAYLOAD 46

static int mac_arg(const char *s, uint8_t *mac)
{
	unsigned int b[6], i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5]) != 6)
		return -1;
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

int cmd_nonip(int argc, char **argv)
{
	static const uint8_t src[2][6] = {
		{ 0x02, 0xaa, 0, 0, 0, 1 }, { 0x02, 0xbb, 0, 0, 0, 1 },
	};
	struct sockaddr_ll sll;
	unsigned long count, i, sent = 0;
	unsigned int vid = 7, c, j;
	uint8_t dst[6], f[64];
	int fd;

	if (argc == 5 && !strcmp(argv[3], "--vid"))
		vid = (unsigned int)strtoul(argv[4], NULL, 0) & 0xfff;
	else if (argc != 3)
		goto usage;
	if (mac_arg(argv[1], dst))
		goto usage;
	count = strtoul(argv[2], NULL, 0);
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0)
		die("socket");
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = (int)if_nametoindex(argv[0]);
	sll.sll_halen = 6;
	memcpy(sll.sll_addr, dst, 6);
	if (!sll.sll_ifindex)
		die(argv[0]);
	for (i = 0; i < count; i++)
		for (c = 0; c < 2; c++) {
			size_t o = 12;

			memcpy(f, dst, 6);
			memcpy(f + 6, src[c], 6);
			if (c) {
				put16(f + o, 0x8100);
				put16(f + o + 2, (uint16_t)vid);
				o += 4;
			}
			put16(f + o, NONIP_TYPE);
			o += 2;
			for (j = 0; j < NONIP_PAYLOAD; j++)
				f[o + j] = (uint8_t)(i >> (8 * (j % 4)) ^ j);
			o += NONIP_PAYLOAD;
			if (sendto(fd, f, o, 0, (struct sockaddr *)&sll,
				   sizeof(sll)) != (ssize_t)o)
				die("sendto");
			sent++;
		}
	printf("%lu\n", sent);
	return 0;
usage:
	fprintf(stderr, "usage: pdnet nonip IFACE DST_MAC COUNT [--vid VID]\n");
	return 2;
}
