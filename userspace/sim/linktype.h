/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Link layers of captured frames: where the IP header starts.
 *
 *   ethernet  DIX Ethernet; then the core's pd_l2_skip() (key.h): up to
 *             8 802.1Q, 802.1ad and QinQ (0x9100, 0x9200) tags, an MPLS
 *             label stack over IPv4 or IPv6; an 802.3 length field (LLC)
 *             is not IP
 *   sll       Linux cooked v1 (16 bytes, protocol at 14), then tags
 *   sll2      Linux cooked v2 (20 bytes, protocol at 0), then tags
 *   raw       raw IP (DLT_RAW): the version nibble decides
 *   ipv4, ipv6  raw IP of one version
 *   null, loop  BSD loopback: a 4-byte address family (null: the
 *             capturing host's byte order, loop: network order; both are
 *             read either way), AF_INET 2, AF_INET6 10, 24, 28 or 30
 *
 * A frame with nothing after its link header is a runt (an empty one
 * too); a frame whose link
 * header says anything but IPv4 or IPv6 (ARP, LLDP, 802.3/LLC, ...) is
 * not IP. The IP header itself is the key parser's (core/key.h).
 */
#ifndef PD_SIM_LINKTYPE_H
#define PD_SIM_LINKTYPE_H

#include <stdbool.h>
#include <stdint.h>

enum link_type {
	LINK_UNKNOWN,
	LINK_ETHERNET,
	LINK_SLL,
	LINK_SLL2,
	LINK_RAW,
	LINK_IPV4,
	LINK_IPV6,
	LINK_NULL,
	LINK_LOOP,
	LINK_NTYPES,
};

enum l2_result {
	L2_IP,			/* an IP header at l3off (or nothing there) */
	L2_NOT_IP,		/* the link header says another protocol */
	L2_RUNT,		/* nothing after its link header */
	L2_UNKNOWN_LINK,	/* a link type this reader does not parse */
	L2_NRESULTS,
};

struct l2_info {
	uint32_t l3off;		/* the IP header's offset in the frame */
	unsigned int tags;	/* VLAN tags and MPLS labels crossed */
};

/*
 * The protocol field of a frame of link type lt that l2_parse() found not
 * IP (an EtherType, or an 802.3 length), and where the bytes after it
 * begin: what the module's nonip dedup keys (pd_key_nonip()). False for
 * link types without one (raw IP, loopback) and frames too short for it.
 */
bool l2_proto_field(enum link_type lt, const uint8_t *p, uint32_t len,
		    uint16_t *type, uint32_t *after);

enum l2_result l2_parse(enum link_type lt, const uint8_t *p, uint32_t len,
			struct l2_info *out);

extern const char *const link_type_names[LINK_NTYPES];

#endif /* PD_SIM_LINKTYPE_H */
