// SPDX-License-Identifier: GPL-2.0
/* Link layers of captured frames: see linktype.h. */
#include "linktype.h"

#define ETH_IP		0x0800
#define ETH_IPV6	0x86dd
#define ETH_8021Q	0x8100
#define ETH_8021AD	0x88a8
#define ETH_QINQ1	0x9100
#define ETH_QINQ2	0x9200
#define ETH_MPLS_UC	0x8847
#define ETH_MPLS_MC	0x8848
#define ETH_MIN_TYPE	0x0600	/* below: an 802.3 length */

const char *const link_type_names[LINK_NTYPES] = {
	[LINK_UNKNOWN] = "unknown",
	[LINK_ETHERNET] = "ethernet",
	[LINK_SLL] = "linux-sll",
	[LINK_SLL2] = "linux-sll2",
	[LINK_RAW] = "raw-ip",
	[LINK_IPV4] = "raw-ipv4",
	[LINK_IPV6] = "raw-ipv6",
	[LINK_NULL] = "null",
	[LINK_LOOP] = "loop",
};

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static int is_tag(uint16_t t)
{
	return t == ETH_8021Q || t == ETH_8021AD || t == ETH_QINQ1 ||
	       t == ETH_QINQ2;
}

/*
 * A frame's protocol t (an EtherType), its data at off: tags, an MPLS
 * label stack, then IP or not.
 */
static enum l2_result after_type(const uint8_t *p, uint32_t len, uint16_t t,
				 uint32_t off, struct l2_info *out)
{
	unsigned int n;

	for (n = 0; is_tag(t); n++) {
		if (n == LINK_MAX_TAGS)
			return L2_NOT_IP;
		if (off + 4 > len)
			return L2_RUNT;
		t = be16(p + off + 2);	/* after the tag's TCI */
		off += 4;
		out->tags++;
	}
	if (t == ETH_MPLS_UC || t == ETH_MPLS_MC) {
		for (n = 0;; n++) {
			if (n == LINK_MAX_LABELS)
				return L2_NOT_IP;
			if (off + 4 > len)
				return L2_RUNT;
			out->tags++;
			off += 4;
			if (p[off - 2] & 1)	/* bottom of stack */
				break;
		}
		if (off >= len)
			return L2_RUNT;
		t = p[off] >> 4 == 4 ? ETH_IP :
		    p[off] >> 4 == 6 ? ETH_IPV6 : 0;
	}
	if (t != ETH_IP && t != ETH_IPV6)
		return L2_NOT_IP;
	if (off >= len)
		return L2_RUNT;	/* nothing after the link header */
	out->l3off = off;
	return L2_IP;
}

static int af_inet(uint32_t af)
{
	return af == 2;
}

static int af_inet6(uint32_t af)
{
	return af == 10 || af == 24 || af == 28 || af == 30;
}

enum l2_result l2_parse(enum link_type lt, const uint8_t *p, uint32_t len,
			struct l2_info *out)
{
	out->l3off = 0;
	out->tags = 0;
	switch (lt) {
	case LINK_ETHERNET:
		if (len < 14)
			return L2_RUNT;
		if (be16(p + 12) < ETH_MIN_TYPE)
			return L2_NOT_IP;	/* 802.3 with LLC */
		return after_type(p, len, be16(p + 12), 14, out);
	case LINK_SLL:
		if (len < 16)
			return L2_RUNT;
		return after_type(p, len, be16(p + 14), 16, out);
	case LINK_SLL2:
		if (len < 20)
			return L2_RUNT;
		return after_type(p, len, be16(p), 20, out);
	case LINK_RAW:
	case LINK_IPV4:
	case LINK_IPV6:
		return len ? L2_IP : L2_RUNT;
	case LINK_NULL:
	case LINK_LOOP: {
		uint32_t be, le;

		if (len <= 4)
			return L2_RUNT;
		be = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		     (uint32_t)p[2] << 8 | p[3];
		le = (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
		     (uint32_t)p[1] << 8 | p[0];
		if (!af_inet(be) && !af_inet(le) && !af_inet6(be) &&
		    !af_inet6(le))
			return L2_NOT_IP;
		out->l3off = 4;
		return L2_IP;
	}
	default:
		return L2_UNKNOWN_LINK;
	}
}
