/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The frame truth: what a capture's frame is, compared byte for byte,
 * independently of the filter's key (module/core/key.c and decap.c are
 * not called: this parser is the simulator's own, written from the
 * protocols' specifications, so that a mistake in the key shows as a
 * disagreement with it instead of being scored as right).
 *
 * A frame is normalised to the innermost packet it carries:
 *  - the link layer is stripped whatever the capture's link type: Ethernet
 *    (MAC addresses, any number of 802.1Q, 802.1ad, 0x9100 and 0x9200
 *    tags, an MPLS label stack over IPv4 or IPv6), Linux cooked SLL and
 *    SLL2, raw IP, BSD loopback (DLT_NULL, DLT_LOOP, either byte order);
 *  - every tunnel it knows is decapsulated, always, up to FT_MAX_DEPTH
 *    deep: VXLAN, GENEVE and GTP-U (G-PDUs, extension headers) on their
 *    UDP ports, GRE version 0 (checksum, key, sequence; IP, MPLS or
 *    Ethernet inside), ERSPAN types I, II and III (the platform
 *    subheader; Ethernet or IP), IPIP, SIT and IPv6 in IPv6. A header
 *    that is not that tunnel's (a flag, a version, a length past its
 *    carrier) leaves the carrier as the packet; a fragment is not looked
 *    into (what it carries is cut);
 *  - the IP packet then compares from its first header byte to the end
 *    its IP length says (bytes after it, an Ethernet frame's padding or
 *    FCS, are not the packet's), every byte but the ones routers rewrite
 *    between two taps: the IPv4 TTL and header checksum, the IPv6 hop
 *    limit. The IP ID, TOS, options, extension headers, L4 headers and
 *    payload all count: a retransmission with a new IP ID or timestamp
 *    is not a copy;
 *  - a frame that is not IP (ARP, LLDP, 802.3/LLC, a tunnel carrying
 *    one) compares from its protocol field on, after its link addresses
 *    and tags: two taps that differ only in MAC addresses or VLANs see
 *    one ARP request as a copy;
 *  - a frame whose IP header is not one (a length under its header,
 *    another version than its link layer says) compares as its bytes
 *    after the link layer; a frame shorter than its link header, or of a
 *    link type not parsed here, compares whole.
 * A frame cut by the snaplen compares by the bytes captured (its IP
 * length field, in the compared header, still says its length on the
 * wire).
 *
 * The compared bytes, with their kind, the IP version or protocol and
 * their length, go through BLAKE2b with a 128-bit digest (blake2b.h):
 * two distinct frames are taken for one with a chance of about
 * n^2 / 2^129 among n distinct frames (3e-21 for 10^9), so the truth is
 * exact for any capture. Reads nothing outside the frame.
 */
#ifndef PD_SIM_FRAMETRUTH_H
#define PD_SIM_FRAMETRUTH_H

#include <stdbool.h>
#include <stdint.h>

#include "linktype.h"

/* Tunnels decapsulated at most, one inside the other. */
#define FT_MAX_DEPTH 16

/* The UDP tunnels' destination ports (the run's --*-port). */
struct ft_ports {
	uint16_t vxlan, geneve, gtpu;
};

enum ft_kind {
	FT_IP,		/* an IP packet, the innermost */
	FT_BAD_IP,	/* IP by its link layer, but no IP header */
	FT_NOT_IP,	/* another protocol */
	FT_RAW,		/* shorter than its link header, or a link not parsed */
	FT_NKINDS,
};

struct ft_frame {
	uint8_t kind;		/* enum ft_kind */
	uint8_t version;	/* FT_IP: 4 or 6 */
	uint8_t tunnels;	/* tunnels decapsulated */
	bool cut;		/* the packet runs past the bytes captured */
	uint32_t proto;		/* FT_NOT_IP: the EtherType or address family */
	uint32_t off, len;	/* the compared bytes: frame[off, off + len) */
	uint64_t digest[2];
};

/* The frame p[0, len) of link type lt, normalised and digested into *f. */
void ft_frame(enum link_type lt, const uint8_t *p, uint32_t len,
	      const struct ft_ports *ports, struct ft_frame *f);
/*
 * The compared bytes of f (a frame of p), the rewritten fields zeroed, in
 * out[0, cap): the bytes the digest covers. Returns f->len.
 */
uint32_t ft_bytes(const uint8_t *p, const struct ft_frame *f, uint8_t *out,
		  uint32_t cap);

extern const char *const ft_kind_names[FT_NKINDS];

#endif /* PD_SIM_FRAMETRUTH_H */
