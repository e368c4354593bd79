// SPDX-License-Identifier: GPL-2.0
/*
 * The packet key's cost in instructions, which a shared machine's load
 * does not change: N keys (extraction and one hash pass) of a TCP/IPv4
 * packet of LEN bytes with the core's default key, the IP ID varied.
 * Built against any revision's core by eval/bench/key-insn.sh, which
 * counts the instructions under callgrind.
 *
 *   key_insn LEN N
 */
#include <stdio.h>
#include <stdlib.h>

#include "key.h"

static const struct pd_hkey hk = { { 1, 2 } };

int main(int argc, char **argv)
{
	static u8 pkt[9000];
	struct pd_key_opts o = { .mode = PKTDEDUP_KEY_PACKET,
				 .payload = PD_KEY_DEFAULT_PAYLOAD };
	u32 len, n, j, acc = 0;
	struct pd_key key;
#ifdef PD_HAVE_NH
	static struct pd_nh_key nk;

	pd_nh_key_seed(&nk, 1);
	o.nh = &nk;
#endif
	if (argc != 3)
		return 2;
	len = (u32)atoi(argv[1]);
	n = (u32)atoi(argv[2]);
	if (len < 40 || len > sizeof(pkt))
		return 2;
	memset(pkt, 0x5a, len);
	pkt[0] = 0x45;
	pkt[2] = (u8)(len >> 8);
	pkt[3] = (u8)len;
	pkt[6] = 0x40;
	pkt[7] = 0;
	pkt[8] = 64;
	pkt[9] = IPPROTO_TCP;
	pkt[32] = 5 << 4;
	for (j = 0; j < n; j++) {
		pkt[4] = (u8)j;
		if (pd_key_extract(pkt, len, &o, &key) != PD_PARSE_OK)
			return 1;
		acc += (u32)pd_key_hash64(&key, &hk);
	}
	printf("%u\n", acc & 1);
	return 0;
}
