/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tunnels looked into for the key (config decap): the packet a tunnel
 * carries is keyed in place of the tunnel's, so that a packet mirrored
 * twice, once bare and once encapsulated, or through two tunnels whose
 * outer addresses, ports and identities differ, has one key.
 *
 * Encapsulations (PKTDEDUP_DECAP_*, uapi):
 *  vxlan   UDP to the VXLAN port: 8 bytes (the I flag set, the VNI), an
 *          Ethernet frame;
 *  geneve  UDP to the GENEVE port: 8 bytes (version 0, the VNI, the
 *          protocol) and options of the length it says; Ethernet or IP;
 *  gre     GRE version 0 (RFC 2784, 2890): 4 bytes, then the checksum,
 *          key and sequence number its flags say (routing, strict source
 *          route or recursion bits, versions 2-7: malformed; version 1,
 *          PPTP's, is keyed as it is); the protocol's payload: IPv4, IPv6,
 *          MPLS, or an Ethernet frame (0x6558);
 *  erspan  GRE protocol 0x88be: type II (a sequence number and the 8-byte
 *          ERSPAN II header, version 1) or type I (neither); 0x22eb: type
 *          III (12 bytes, version 2; the 8-byte platform subheader when
 *          its O bit says so; an Ethernet frame, or IP by its frame type);
 *  gtpu    UDP to the GTP-U port: GTPv1 (PT 1) G-PDUs (message 255): 8
 *          bytes, 4 more when E, S or PN is set, the extension headers
 *          the E flag chains (length in 4-byte units, at most 8); IP by
 *          its version; other messages are not user packets (keyed as
 *          they are);
 *  ip      IPIP (4) and SIT or IP6-in-IP6 (41): the inner header's version
 *          must be the protocol's.
 * An Ethernet frame inside crosses VLAN tags and MPLS labels as an outer
 * one (pd_l2_skip). A fragment (first or later) is keyed as it is: what
 * it carries is cut. An outer packet whose IPv6 extension headers do not
 * lead to its protocol is keyed as it is too.
 *
 * Bounds: at most PKTDEDUP_DECAP_DEPTH tunnels crossed, and the innermost
 * IP header at most PKTDEDUP_DECAP_ROOM bytes past the outermost (else
 * PD_PARSE_DECAP_LIMIT: the read window would cut the inner packet short
 * of what its bare key reads); every header is checked against the end
 * of the packet that carries it. The inner packet is parsed on at most the
 * bytes a bare packet's headers are (PD_KEY_HDR_ROOM), and its tail runs
 * to its end in the whole packet, so that its key is the bare packet's.
 */
#ifndef PD_DECAP_H
#define PD_DECAP_H

#include "key.h"

#define PD_NENCAPS 6	/* the decap flags, bit n: encapsulation n */
#define PD_DECAP_ALL ((1u << PD_NENCAPS) - 1)
#define PD_VXLAN_PORT 4789	/* IANA */
#define PD_GENEVE_PORT 6081
#define PD_GTPU_PORT 2152
/* GTP-U extension headers crossed at most */
#define PD_GTPU_MAX_EXT 8

/* The names of the encapsulations (bit n of decap), dedupctl's and /proc's. */
extern const char *const pd_encap_names[PD_NENCAPS];

/*
 * pkt, parsed from data (data[0, len): what pd_parse_view() was given, of
 * whole bytes; cut: the capture cut the packet there), and while it is a
 * tunnel of an
 * encapsulation o->decap names, the packet it carries in its place. OK:
 * pkt is the innermost packet (pkt->encaps, depth, tun_id say how it
 * came). Else why not, with pkt->bad_encap the encapsulation whose header
 * failed and pkt->family 0 (no addresses: the analytics do not count the
 * tunnel's). Reads nothing outside data[0, len).
 */
enum pd_parse_result pd_decap(const u8 *data, u32 len, u32 whole,
			      const struct pd_key_opts *o, struct pd_pkt *pkt,
			      bool cut);

/* Why a list of encapsulations is refused, and where (pd_decap_parse). */
enum pd_decap_why {
	PD_DECAP_BAD_NAME = 1,	/* a name that is none of pd_encap_names */
	PD_DECAP_EMPTY,		/* an empty name: ",", "a,,b", "a," or "" */
	PD_DECAP_TWICE,		/* a name given twice */
	PD_DECAP_ALONE,		/* none or all inside a list */
};

struct pd_decap_bad {
	u8 why;			/* enum pd_decap_why */
	u16 at;			/* the name at fault: s[at, at + len) */
	u16 len;
};

/*
 * A list of encapsulations as users write it: "none", "all", or names of
 * pd_encap_names separated by commas, each once. 0, or -EINVAL and (if
 * bad is not NULL) why, for the front end's own words.
 */
int pd_decap_parse(const char *s, u8 *decap, struct pd_decap_bad *bad);

/*
 * The UDP tunnels, each on a port of its own: their flags, in the order of
 * the ports pd_decap_port_clash() takes (vxlan, geneve, gtpu).
 */
#define PD_NUDP_TUNNELS 3
extern const u8 pd_udp_tunnels[PD_NUDP_TUNNELS];

/*
 * Whether two UDP tunnels decap looks into share a port (port[] in the
 * order of pd_udp_tunnels): a packet would be both. *i < *j say which.
 */
bool pd_decap_port_clash(u8 decap, const u16 *port, unsigned int *i,
			 unsigned int *j);

/* The documented defaults of opts' decap settings: none, IANA's ports. */
void pd_decap_defaults(struct pd_key_opts *o);

#endif /* PD_DECAP_H */
