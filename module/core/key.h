/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Key extraction from the bytes of an L3 packet (IPv4 or IPv6 header first).
 *
 * Modes:
 *  packet  invariant content: the IP header without the fields routers
 *          rewrite (IPv4 TTL and header checksum, IPv6 hop limit; TOS /
 *          traffic class too with PKTDEDUP_KEY_F_IGNORE_TOS), then every
 *          byte after it (IPv4 options or IPv6 extension headers, the L4
 *          header and the payload: the tail), or with `payload` N the L4
 *          header and at most N bytes after it;
 *  src     the source address;
 *  dst     the destination address;
 *  pair    source and destination addresses;
 *  flow    protocol, addresses and ports (the ICMP/ICMPv6 echo identifier
 *          for echo messages; zero where a packet has no ports, e.g. a
 *          non-first fragment, as the kernel's flow dissector does).
 *
 * A key is a small canonical byte string plus, in packet mode, a tail that
 * points into the packet. Address and flow keys: the address(es), source
 * first, then the family and, for flow keys, the protocol and the ports
 * in network order (built in whole words: pd_key_build()). Parsing never
 * reads outside [pkt, pkt + len).
 *
 * The packet key's tail: up to PD_KEY_DIRECT bytes it is hashed as it is
 * (direct form: the key is the masked IP header and the tail); a longer
 * one is compressed by NH (nh.h) under the instance's NH key, and the key
 * is the masked IP header, with 1 in the TTL / hop limit byte that both
 * forms otherwise zero, then the tail's NH value and its length
 * (compressed form). Either key is then hashed by each filter's SipHash.
 * Two packets whose masked headers and tails differ get keys that differ,
 * but for a probability of at most 2^-63 (nh.h) per pair.
 */
#ifndef PD_KEY_H
#define PD_KEY_H

#include "pd_port.h"
#include "../uapi/pktdedup.h"
#include "hash.h"
#include "nh.h"

#define PD_KEY_NMODES (PKTDEDUP_KEY_MAX + 1)
/* The packet key covers every byte by default: Documentation/design/keys.md. */
#define PD_KEY_DEFAULT_PAYLOAD PKTDEDUP_PAYLOAD_ALL
#define PD_KEY_MAX_PAYLOAD PKTDEDUP_PAYLOAD_ALL
/*
 * Bytes of a packet its headers are parsed on, from the IP header on
 * (IPv4 with options and TCP with options take 120; IPv6 leaves the rest
 * of this room for extension headers): the module reads them into one
 * piece (pd_key_hdr_look()), and dedup-sim parses no more, so that both
 * parse the same bytes; the packet key's tail is then read from the
 * packet wherever its bytes are.
 */
#define PD_KEY_HDR_ROOM 256
/*
 * Longest tail hashed as it is (direct form); longer ones go through NH.
 * 128: the L4 header (TCP's 60 at most) and 64 payload bytes, so that
 * `payload 64` keys as it did before every byte was covered (the bench's
 * baseline); past about 60 bytes NH is the cheaper (Documentation/design/
 * keys.md).
 */
#define PD_KEY_DIRECT 128
/* At most this many VLAN tags, and MPLS labels, are crossed (pd_l2_skip). */
#define PD_L2_MAX_TAGS 8
#define PD_L2_MAX_LABELS 8
/* The most bytes pd_l2_skip() reads: every tag and label, a version. */
#define PD_L2_ROOM (4 * (PD_L2_MAX_TAGS + PD_L2_MAX_LABELS) + 1)
/* At most this many IPv6 extension headers are walked. */
#define PD_IPV6_MAX_EXT 8

enum pd_parse_result {
	PD_PARSE_OK = 0,
	PD_PARSE_TRUNCATED,	/* a needed header ends past the buffer */
	PD_PARSE_BAD_VERSION,	/* neither IPv4 nor IPv6 */
	PD_PARSE_BAD_HEADER,	/* a length field contradicts itself */
	PD_PARSE_EXT_LIMIT,	/* more IPv6 extension headers than walked */
	/* tunnels nested deeper, or their headers longer, than decap reads */
	PD_PARSE_DECAP_LIMIT,
	PD_PARSE_NOT_IP,	/* a tunnel that carries no IP (ARP, ...) */
	PD_PARSE_NRESULTS,
};

#define PD_FAMILY_IPV4 4
#define PD_FAMILY_IPV6 6

/*
 * What the parser learnt about a packet. A field added here is set in
 * pd_parse_fast() (key.c) too.
 */
struct pd_pkt {
	const u8 *data;
	u32 len;		/* parsed bytes: min(header room, IP length) */
	/*
	 * This (innermost) packet's IP header at data, at byte at of the
	 * outermost one; it ends at byte end from data (its IP length, or
	 * where the bytes of the packet, or its carrier, end); the bytes
	 * [0, view) from data are in one piece, the rest are in the source
	 * (the module's skb or frame).
	 */
	u32 at;
	u32 end;
	u32 view;
	u8 family;		/* PD_FAMILY_IPV4 / PD_FAMILY_IPV6 */
	u8 proto;		/* upper-layer protocol */
	u8 addr_len;		/* 4 or 16 */
	bool later_fragment;	/* a non-first fragment: no L4 header */
	/*
	 * PD_PARSE_OK, or why the IPv6 extension headers do not lead to the
	 * L4 header (truncated, ext-limit): the packet and flow keys fail
	 * with it, the address keys do not need it.
	 */
	u8 l4_err;
	u16 fixed_len;		/* 20 or 40: the fixed IP header */
	u32 l4off;		/* offset of the L4 header (or payload) */
	const u8 *src;
	const u8 *dst;
	u8 dscp;		/* DiffServ code point of the IP header */
	bool fragment;		/* any fragment (first, later): not decapsulated */
	bool cut;		/* parsed as cut by a capture (pd_parse_cut) */
	/*
	 * With decap (decap.h): the encapsulations (PKTDEDUP_DECAP_*) this
	 * packet came through, the one whose header failed, how deep it
	 * was, and the identities of its tunnels folded into one word.
	 */
	u8 encaps;
	u8 bad_encap;
	u8 depth;
	u64 tun_id;
};

/*
 * What a filter may learn of a packet besides its key: the importance-aware
 * filters take a packet's class from its DSCP or from skb->mark (the
 * simulator puts a stream's importance in mark); the time windows its
 * arrival time in ns (read only for the families that say they use it,
 * pd_filter_ops.timed; any clock that does not go back).
 */
struct pd_pktinfo {
	u8 dscp;
	u32 mark;
	u64 now;
};

struct pd_key_opts {
	u8 mode;	/* enum pktdedup_key */
	u8 flags;	/* PKTDEDUP_KEY_F_IGNORE_TOS, _TUNNEL_ID, _NONIP */
	/* packet mode: payload bytes after the L4 header, or _PAYLOAD_ALL */
	u16 payload;
	/* packet mode: the NH key of tails past PD_KEY_DIRECT (the instance's) */
	const struct pd_nh_key *nh;
	/* the encapsulations looked into (PKTDEDUP_DECAP_*), decap.h */
	u8 decap;
	u16 vxlan_port;	/* UDP destination ports, host order */
	u16 geneve_port;
	u16 gtpu_port;
};

/*
 * A multiple of 8: pd_key_hash64() reads the last partial word whole.
 * The longest key (a compressed IPv6 packet key: its header, 40 bytes,
 * and three words) and a word of tunnel identities
 * (PKTDEDUP_KEY_F_TUNNEL_ID).
 */
#define PD_KEY_BUF 72

struct pd_key {
	u16 len;		/* bytes used in buf */
	u16 tail_len;		/* bytes at tail (direct form) */
	const u8 *tail;		/* packet mode: options/ext, L4, payload */
	/*
	 * A compressed key still open (pd_key_open()): its tail's bytes
	 * from byte more_off of the outermost IP header, more_len of them,
	 * are the caller's to give (pd_key_close()).
	 */
	u32 more_off;
	u32 more_len;
	u8 buf[PD_KEY_BUF];
};

/*
 * Parse the IP header(s): OK once the fixed header is read, even if the
 * IPv6 extension headers after it are not (pkt->l4_err says why).
 */
enum pd_parse_result pd_parse(const u8 *data, u32 len, struct pd_pkt *pkt);
/* The key for opts of a parsed packet; the key may point into its data. */
enum pd_parse_result pd_key_from_pkt(const struct pd_pkt *pkt,
				     const struct pd_key_opts *opts,
				     struct pd_key *key);
/*
 * The same for a packet cut short by a capture's snapshot length (data
 * holds its first len bytes, the IP header's length fields say how long
 * it was): only the fields a key needs must be present. IPv4 options or
 * IPv6 extension headers cut off fail only the keys that need what
 * follows them (l4_err). The packet key then covers what was captured
 * of the headers and the payload it would take; its IP header holds the
 * packet's original length. Cut after the bytes the key covers, a packet
 * gets the key the whole packet would. Offline use (dedup-sim): the
 * module always has the whole packet.
 */
enum pd_parse_result pd_parse_cut(const u8 *data, u32 len, struct pd_pkt *pkt);
enum pd_parse_result pd_key_from_cut(const struct pd_pkt *pkt,
				     const struct pd_key_opts *opts,
				     struct pd_key *key);
/*
 * The bytes of a packet, from its (outermost) IP header on, that its key
 * for opts may depend on: the headers' room and the payload hashed, and
 * the tunnels' headers when opts decapsulates. The module reads no more
 * of a packet, dedup-sim gives its parser no more.
 */
static inline u32 pd_key_look(const struct pd_key_opts *opts)
{
	if (opts->mode == PKTDEDUP_KEY_PACKET &&
	    opts->payload == PKTDEDUP_PAYLOAD_ALL)
		return 0xffffffffu;
	return PD_KEY_HDR_ROOM + opts->payload +
	       (opts->decap ? PKTDEDUP_DECAP_ROOM : 0);
}

/*
 * The bytes from the outermost IP header on that the headers are parsed
 * on (the tunnels' too when opts decapsulates): what pd_parse_view() must
 * have in one piece.
 */
static inline u32 pd_key_hdr_look(const struct pd_key_opts *opts)
{
	return PD_KEY_HDR_ROOM + (opts->decap ? PKTDEDUP_DECAP_ROOM : 0);
}

/*
 * Parse a packet as its key for opts sees it: data holds its first len
 * bytes (at most pd_key_look(opts)); cut: the packet was cut there by a
 * capture's snapshot length (pd_parse_cut), else it ends there or later.
 * The IP header (as pd_parse on the bytes a bare packet's key reads),
 * then with opts->decap the tunnels it carries (pd_decap, decap.h): pkt
 * is then the innermost packet.
 */
enum pd_parse_result pd_parse_key(const u8 *data, u32 len,
				  const struct pd_key_opts *opts,
				  struct pd_pkt *pkt, bool cut);
/*
 * The same for a packet of whole bytes of which the first view are at
 * data (view >= min(whole, pd_key_hdr_look(opts))): the module's, whose
 * tail it then reads from the skb or frame (pd_key_open()).
 */
enum pd_parse_result pd_parse_view(const u8 *data, u32 view, u32 whole,
				   const struct pd_key_opts *opts,
				   struct pd_pkt *pkt, bool cut);
/* The key of a packet parsed by pd_parse_key: pd_key_from_pkt, or _cut. */
enum pd_parse_result pd_key_of(const struct pd_pkt *pkt,
			       const struct pd_key_opts *opts,
			       struct pd_key *key);
/*
 * The same for a packet parsed by pd_parse_view, whose tail may run past
 * its view: then key->more_len is not 0, nh holds the digest begun, and
 * the caller gives the tail's further bytes (from key->more_off) to
 * pd_nh_update(nh) and closes the key with pd_key_close().
 */
enum pd_parse_result pd_key_open(const struct pd_pkt *pkt,
				 const struct pd_key_opts *opts,
				 struct pd_key *key, struct pd_nh *nh);
void pd_key_close(struct pd_key *key, struct pd_nh *nh);
/*
 * pd_parse_view() then pd_key_open(), not cut: the packet path's one call.
 * The common case (an IPv4 header without options or an IPv6 header
 * without extensions, then TCP or UDP, not a fragment, its L4 header in
 * the view, no tunnel looked into) is parsed and keyed in one pass, to
 * the same pkt and key; anything else takes the two.
 */
enum pd_parse_result pd_parse_key_open(const u8 *data, u32 view, u32 whole,
				       const struct pd_key_opts *opts,
				       struct pd_pkt *pkt, struct pd_key *key,
				       struct pd_nh *nh);
/* Parse (pd_parse_key) and extract the key for opts; the key may point into data. */
enum pd_parse_result pd_key_extract(const u8 *data, u32 len,
				    const struct pd_key_opts *opts,
				    struct pd_key *key);
enum pd_l2_result {
	PD_L2_IP,		/* an IPv4 or IPv6 header at *off */
	PD_L2_NOT_IP,		/* another protocol, or too many tags */
	PD_L2_TRUNCATED,	/* the frame ends inside a tag or label */
};

/*
 * Where the IP header of a frame begins, from its protocol field (type,
 * an EtherType) and the bytes p[0, len) after that field: VLAN tags
 * (802.1Q, 802.1ad, and the older QinQ types 0x9100 and 0x9200), then an
 * MPLS label stack (0x8847, 0x8848) over IPv4 or IPv6 by the version
 * nibble. *tags counts the tags and labels crossed. The module's L2 hooks
 * see a frame after the kernel took one tag off; captures have them all.
 */
enum pd_l2_result pd_l2_skip(const u8 *p, u32 len, u16 type, u32 *off,
			     unsigned int *tags);
/*
 * The bytes of an IP packet (header at d, of family) within avail: its
 * IP length, or avail for an IPv6 jumbogram (payload length 0).
 */
static inline u32 pd_ip_extent(const u8 *d, u8 family, u32 avail)
{
	u32 n = family == PD_FAMILY_IPV4 ? (u32)(d[2] << 8 | d[3]) :
		d[4] | d[5] ? 40u + (u32)(d[4] << 8 | d[5]) : avail;

	return PD_MIN(avail, n);
}

/*
 * The key of a frame that carries neither IPv4 nor IPv6, at the L2
 * placements with PKTDEDUP_KEY_F_NONIP (nonip dedup; key packet only):
 * type is the frame's protocol field (an EtherType; an 802.3 length, or
 * the kernel's ETH_P_802_2 / _802_3 for one, all below 0x0600, counts as
 * one type 0), p the bytes after it (the kernel's network header at the
 * skb hooks), view of them in one piece at p, whole in all. The VLAN tags
 * pd_l2_skip() crosses are crossed, and the key is the innermost EtherType
 * then at most opts->payload bytes after it (PKTDEDUP_PAYLOAD_ALL: 65535):
 * the MAC addresses and the tags, which differ between taps, are left
 * out. It is hashed as the packet key's tail: as it is up to
 * PD_KEY_DIRECT bytes, else compressed by NH under opts->nh; its first
 * byte, 0, is no IP header's. view >= min(whole, PD_KEY_NONIP_ROOM) gives
 * one key whatever the view. Bytes past the view are the caller's, as for
 * pd_key_open() (key->more_off from p). PD_PARSE_NOT_IP: the frame ends
 * inside its tags, or has more than PD_L2_MAX_TAGS (passed, as without
 * the flag).
 */
#define PD_KEY_NONIP_ROOM (4 * PD_L2_MAX_TAGS + PD_KEY_DIRECT)
enum pd_parse_result pd_key_nonip(const u8 *p, u32 view, u32 whole, u16 type,
				  const struct pd_key_opts *opts,
				  struct pd_key *key, struct pd_nh *nh);
/* The same for a frame whose bytes are all at p (dedup-sim's). */
enum pd_parse_result pd_key_nonip_whole(const u8 *p, u32 len, u16 type,
					const struct pd_key_opts *opts,
					struct pd_key *key);

/*
 * Build a src/dst/pair/flow key from fields (ports in host order), as the
 * extractor would from a packet carrying them.
 */
int pd_key_build(struct pd_key *key, u8 mode, u8 family, const u8 *src,
		 const u8 *dst, u8 proto, u16 sport, u16 dport);
/*
 * A key's 64-bit keyed hash: SipHash-1-3 (hash.h) of its bytes followed
 * by its tail, in one pass.
 */
u64 pd_key_hash64(const struct pd_key *key, const struct pd_hkey *hk);

extern const char *const pd_key_mode_names[PD_KEY_NMODES];
extern const char *const pd_parse_result_names[PD_PARSE_NRESULTS];

#endif /* PD_KEY_H */
