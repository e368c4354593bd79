// SPDX-License-Identifier: GPL-2.0
/* Link layers of captured frames: see linktype.h. */
#include "../../module/core/key.h"
#include "linktype.h"

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

/*
 * A frame's protocol t (an EtherType), its data at off: tags, an MPLS
 * label stack, then IP or not (the core's pd_l2_skip(), which the
 * module's L2 hooks use too).
 */
static enum l2_result after_type(const uint8_t *p, uint32_t len, uint16_t t,
				 uint32_t off, struct l2_info *out)
{
	uint32_t o = 0;

	switch (pd_l2_skip(p + off, len - off, t, &o, &out->tags)) {
	case PD_L2_IP:
		break;
	case PD_L2_TRUNCATED:
		return L2_RUNT;
	default:
		return L2_NOT_IP;
	}
	if (off + o >= len)
		return L2_RUNT;	/* nothing after the link header */
	out->l3off = off + o;
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

bool l2_proto_field(enum link_type lt, const uint8_t *p, uint32_t len,
		    uint16_t *type, uint32_t *after)
{
	static const uint8_t at[LINK_NTYPES][2] = {
		[LINK_ETHERNET] = { 12, 14 },
		[LINK_SLL] = { 14, 16 },
		[LINK_SLL2] = { 0, 20 },
	};

	if ((unsigned int)lt >= LINK_NTYPES || !at[lt][1] || len < at[lt][1])
		return false;
	*type = be16(p + at[lt][0]);
	*after = at[lt][1];
	return true;
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
