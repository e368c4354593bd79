// SPDX-License-Identifier: GPL-2.0
/* Key extraction from L3 packets: see key.h. */
#include "decap.h"
#include "key.h"

/*
 * IPv6 extension headers that neither the kernel nor libc names: IANA's
 * "Assigned Internet Protocol Numbers" and "IPv6 Extension Header Types".
 */
#define PD_IPPROTO_HIP		139	/* Host Identity Protocol, RFC 7401 */
#define PD_IPPROTO_SHIM6	140	/* Shim6, RFC 5533 */

const char *const pd_key_mode_names[PD_KEY_NMODES] = {
	[PKTDEDUP_KEY_PACKET] = "packet",
	[PKTDEDUP_KEY_SRC] = "src",
	[PKTDEDUP_KEY_DST] = "dst",
	[PKTDEDUP_KEY_PAIR] = "pair",
	[PKTDEDUP_KEY_FLOW] = "flow",
};

const char *const pd_parse_result_names[PD_PARSE_NRESULTS] = {
	[PD_PARSE_OK] = "ok",
	[PD_PARSE_TRUNCATED] = "truncated",
	[PD_PARSE_BAD_VERSION] = "bad-version",
	[PD_PARSE_BAD_HEADER] = "bad-header",
	[PD_PARSE_EXT_LIMIT] = "ext-limit",
	[PD_PARSE_DECAP_LIMIT] = "decap-limit",
	[PD_PARSE_NOT_IP] = "not-ip",
};

static inline u16 pd_be16(const u8 *p)
{
	return (u16)(p[0] << 8 | p[1]);
}

#define PD_ETH_IP	0x0800
#define PD_ETH_IPV6	0x86dd
#define PD_ETH_MPLS_UC	0x8847
#define PD_ETH_MPLS_MC	0x8848

static bool pd_l2_tag(u16 t)
{
	/* 802.1Q, 802.1ad, and the QinQ types before 802.1ad */
	return t == 0x8100 || t == 0x88a8 || t == 0x9100 || t == 0x9200;
}

enum pd_l2_result pd_l2_skip(const u8 *p, u32 len, u16 t, u32 *off,
			     unsigned int *tags)
{
	u32 o = 0;
	unsigned int n;

	for (n = 0; pd_l2_tag(t); n++) {
		if (n == PD_L2_MAX_TAGS)
			return PD_L2_NOT_IP;
		if (o + 4 > len)
			return PD_L2_TRUNCATED;
		t = pd_be16(p + o + 2);	/* after the tag's TCI */
		o += 4;
		(*tags)++;
	}
	if (t == PD_ETH_MPLS_UC || t == PD_ETH_MPLS_MC) {
		for (n = 0;; n++) {
			if (n == PD_L2_MAX_LABELS)
				return PD_L2_NOT_IP;
			if (o + 4 > len)
				return PD_L2_TRUNCATED;
			(*tags)++;
			o += 4;
			if (p[o - 2] & 1)	/* bottom of stack */
				break;
		}
		if (o >= len)
			return PD_L2_TRUNCATED;
		t = p[o] >> 4 == 4 ? PD_ETH_IP :
		    p[o] >> 4 == 6 ? PD_ETH_IPV6 : 0;
	}
	if (t != PD_ETH_IP && t != PD_ETH_IPV6)
		return PD_L2_NOT_IP;
	*off = o;
	return PD_L2_IP;
}

static enum pd_parse_result pd_parse_v4(const u8 *d, u32 len,
					struct pd_pkt *pkt, bool cut)
{
	u32 ihl, tot, frag;

	if (len < 20)
		return PD_PARSE_TRUNCATED;
	ihl = (d[0] & 0x0f) * 4u;
	tot = pd_be16(d + 2);
	if (ihl < 20 || tot < ihl)
		return PD_PARSE_BAD_HEADER;
	if (ihl > len && !cut)
		return PD_PARSE_TRUNCATED;
	pkt->family = PD_FAMILY_IPV4;
	pkt->addr_len = 4;
	pkt->fixed_len = 20;
	pkt->len = PD_MIN(len, tot);
	pkt->proto = d[9];
	pkt->dscp = d[1] >> 2;
	frag = pd_be16(d + 6);
	pkt->later_fragment = (frag & 0x1fff) != 0;
	pkt->fragment = (frag & 0x3fff) != 0;	/* MF or an offset */
	pkt->l4off = ihl;
	pkt->src = d + 12;
	pkt->dst = d + 16;
	if (ihl > pkt->len) {
		/* a cut packet whose options end past the cut */
		pkt->l4off = pkt->len;
		pkt->l4_err = PD_PARSE_TRUNCATED;
	}
	return PD_PARSE_OK;
}

static bool pd_ipv6_ext(u8 nh)
{
	switch (nh) {
	case IPPROTO_HOPOPTS:
	case IPPROTO_ROUTING:
	case IPPROTO_FRAGMENT:
	case IPPROTO_AH:
	case IPPROTO_DSTOPTS:
	case IPPROTO_MH:
	case PD_IPPROTO_HIP:
	case PD_IPPROTO_SHIM6:
		return true;
	default:
		return false;
	}
}

static enum pd_parse_result pd_parse_v6(const u8 *d, u32 len,
					struct pd_pkt *pkt)
{
	u32 plen, off = 40, n;
	u8 nh;

	if (len < 40)
		return PD_PARSE_TRUNCATED;
	plen = pd_be16(d + 4);
	pkt->family = PD_FAMILY_IPV6;
	pkt->addr_len = 16;
	pkt->fixed_len = 40;
	/* A zero payload length is a jumbogram: the buffer gives the end. */
	pkt->len = plen ? PD_MIN(len, 40 + plen) : len;
	pkt->src = d + 8;
	pkt->dscp = (u8)(((d[0] & 0x0f) << 2) | (d[1] >> 6));
	pkt->dst = d + 24;
	pkt->later_fragment = false;
	nh = d[6];
	/*
	 * A chain that does not lead to the L4 header fails only the keys
	 * that need it (pd_key_from_pkt): the addresses are read already.
	 */
	for (n = 0; pd_ipv6_ext(nh); n++) {
		const u8 *h = d + off;
		u32 hlen;

		if (n == PD_IPV6_MAX_EXT) {
			pkt->l4_err = PD_PARSE_EXT_LIMIT;
			break;
		}
		if (off + 8 > pkt->len) {
			pkt->l4_err = PD_PARSE_TRUNCATED;
			break;
		}
		if (nh == IPPROTO_FRAGMENT) {
			hlen = 8;
			pkt->fragment = true;
			pkt->later_fragment = (pd_be16(h + 2) & 0xfff8) != 0;
		} else if (nh == IPPROTO_AH) {
			hlen = (h[1] + 2u) * 4;
		} else {
			hlen = (h[1] + 1u) * 8;
		}
		if (off + hlen > pkt->len) {
			pkt->l4_err = PD_PARSE_TRUNCATED;
			break;
		}
		nh = h[0];
		off += hlen;
		if (pkt->later_fragment)
			break;	/* what follows is not a header */
	}
	pkt->proto = nh;
	pkt->l4off = off;
	return PD_PARSE_OK;
}

static inline enum pd_parse_result pd_parse_any(const u8 *data, u32 len,
						struct pd_pkt *pkt, bool cut)
{
	enum pd_parse_result r;

	memset(pkt, 0, sizeof(*pkt));
	pkt->data = data;
	pkt->cut = cut;
	if (!len)
		return PD_PARSE_TRUNCATED;
	switch (data[0] >> 4) {
	case 4:
		r = pd_parse_v4(data, len, pkt, cut);
		break;
	case 6:
		r = pd_parse_v6(data, len, pkt);
		break;
	default:
		return PD_PARSE_BAD_VERSION;
	}
	/* what the parser was given is all there is (pd_parse_view: more) */
	pkt->view = len;
	pkt->end = pkt->len;
	return r;
}

enum pd_parse_result pd_parse(const u8 *data, u32 len, struct pd_pkt *pkt)
{
	return pd_parse_any(data, len, pkt, false);
}

enum pd_parse_result pd_parse_cut(const u8 *data, u32 len, struct pd_pkt *pkt)
{
	return pd_parse_any(data, len, pkt, true);
}

static bool pd_has_ports(u8 proto)
{
	/* TCP, UDP, DCCP, SCTP, UDP-Lite: ports are the first 4 bytes. */
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_DCCP || proto == IPPROTO_SCTP ||
	       proto == IPPROTO_UDPLITE;
}

static bool pd_is_echo(u8 family, u8 proto, u8 type)
{
	if (family == PD_FAMILY_IPV4 && proto == IPPROTO_ICMP)
		return type == ICMP_ECHOREPLY || type == ICMP_ECHO;
	if (family == PD_FAMILY_IPV6 && proto == IPPROTO_ICMPV6)
		return type == ICMPV6_ECHO_REQUEST || type == ICMPV6_ECHO_REPLY;
	return false;
}

/* Failures of pd_l4_hdr_len(): not errno values, the caller maps them. */
enum {
	PD_L4_TRUNCATED = -1,	/* the buffer does not hold the header */
	PD_L4_BAD_HEADER = -2,	/* its length field is below the minimum */
};

/* Length of the L4 header, or one of the PD_L4_ failures above. */
static int pd_l4_hdr_len(const struct pd_pkt *pkt)
{
	u32 avail = pkt->len - pkt->l4off;
	u32 need;

	if (pkt->later_fragment)
		return 0;
	switch (pkt->proto) {
	case IPPROTO_TCP:	/* data offset */
		if (avail < 20)
			return PD_L4_TRUNCATED;
		need = (pkt->data[pkt->l4off + 12] >> 4) * 4u;
		if (need < 20)
			return PD_L4_BAD_HEADER;
		break;
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		need = 8;
		break;
	case IPPROTO_SCTP:	/* common header */
		need = 12;
		break;
	default:
		return 0;
	}
	return need <= avail ? (int)need : PD_L4_TRUNCATED;
}

/*
 * The address and flow keys are built with whole 64-bit stores at 8-byte
 * offsets, the words the hash then loads: a load that spans several
 * smaller stores cannot be forwarded from them and waits for them to
 * reach the cache (measured: 8 ns of a 17 ns key + hash).
 *
 * Layout: the addresses (source first), then a word of the family and,
 * for flow keys, the protocol and the ports in network order.
 */
int pd_key_build(struct pd_key *key, u8 mode, u8 family, const u8 *src,
		 const u8 *dst, u8 proto, u16 sport, u16 dport)
{
	const u8 *a1 = mode == PKTDEDUP_KEY_DST ? dst : src;
	bool two = mode == PKTDEDUP_KEY_PAIR || mode == PKTDEDUP_KEY_FLOW;
	u64 meta = family;
	u8 *b = key->buf;
	u32 mlen = 1;

	if (family != PD_FAMILY_IPV4 && family != PD_FAMILY_IPV6)
		return -EINVAL;
	if (mode != PKTDEDUP_KEY_SRC && mode != PKTDEDUP_KEY_DST && !two)
		return -EINVAL;
	key->tail = NULL;
	key->tail_len = 0;
	if (mode == PKTDEDUP_KEY_FLOW) {
		meta |= (u64)proto << 8 | (u64)(sport >> 8) << 16 |
			(u64)(sport & 0xff) << 24 | (u64)(dport >> 8) << 32 |
			(u64)(dport & 0xff) << 40;
		mlen = 6;
	}
	if (family == PD_FAMILY_IPV6) {
		pd_store_le64(b, pd_load_le64(a1));
		pd_store_le64(b + 8, pd_load_le64(a1 + 8));
		b += 16;
		if (two) {
			pd_store_le64(b, pd_load_le64(dst));
			pd_store_le64(b + 8, pd_load_le64(dst + 8));
			b += 16;
		}
	} else if (two) {
		pd_store_le64(b, pd_load_le32(src) |
			      (u64)pd_load_le32(dst) << 32);
		b += 8;
	} else {
		/* one IPv4 address and the family: one word */
		meta = pd_load_le32(a1) | meta << 32;
		mlen += 4;
	}
	pd_store_le64(b, meta);
	key->len = (u16)(b - key->buf + mlen);
	return 0;
}

/*
 * The identities of the tunnels a packet came through, as a word of the
 * key after its bytes (PKTDEDUP_KEY_F_TUNNEL_ID): at the next multiple of
 * 8, the bytes between zero.
 */
static void pd_key_tunnel(struct pd_key *key, u64 id)
{
	u32 at = (key->len + 7u) & ~7u;

	memset(key->buf + key->len, 0, at - key->len);
	pd_store_le64(key->buf + at, id);
	key->len = (u16)(at + 8);
}

/*
 * The masked IP header (the fields routers rewrite zeroed) into the key's
 * buffer, and the tunnels' word if the key takes it; form 1 in the TTL /
 * hop limit byte marks a compressed key.
 */
static __always_inline void pd_key_header(const struct pd_pkt *pkt,
					  const struct pd_key_opts *o,
					  struct pd_key *key, u8 form)
{
	u8 *b = key->buf;

	/* whole words of known length: no call to memcpy() */
	if (pkt->family == PD_FAMILY_IPV4)
		memcpy(b, pkt->data, 20);
	else
		memcpy(b, pkt->data, 40);
	key->len = pkt->fixed_len;
	if (pkt->encaps && (o->flags & PKTDEDUP_KEY_F_TUNNEL_ID))
		pd_key_tunnel(key, pkt->tun_id);
	if (pkt->family == PD_FAMILY_IPV4) {
		b[8] = form;		/* TTL */
		b[10] = 0;		/* header checksum */
		b[11] = 0;
		if (o->flags & PKTDEDUP_KEY_F_IGNORE_TOS)
			b[1] = 0;
	} else {
		b[7] = form;		/* hop limit */
		if (o->flags & PKTDEDUP_KEY_F_IGNORE_TOS) {
			b[0] &= 0xf0;	/* traffic class */
			b[1] &= 0x0f;
		}
	}
}

/* A compressed key's words: the tail's two (nh.h), then its length. */
static void pd_key_words(struct pd_key *key, const u64 v[2], u32 tail_len)
{
	u32 at = (key->len + 7u) & ~7u;

	memset(key->buf + key->len, 0, at - key->len);
	pd_store_le64(key->buf + at, v[0]);
	pd_store_le64(key->buf + at + 8, v[1]);
	pd_store_le64(key->buf + at + 16, tail_len);
	key->len = (u16)(at + 24);
}

void pd_key_close(struct pd_key *key, struct pd_nh *nh)
{
	u64 v[2];

	pd_nh_final(nh, v);
	pd_key_words(key, v, nh->len);
	key->more_len = 0;
}

/*
 * The packet key. A cut packet (cut: its data ends where a capture's
 * snaplen cut it) whose L4 header or payload ends past the cut covers
 * what was captured; one cut after the bytes the key covers gets the key
 * the whole packet would. A tail of more than PD_KEY_DIRECT bytes is
 * compressed (key.h), its bytes past the view left to the caller.
 */
/* The compressed form: the tail's bytes in the view, the rest the caller's. */
static noinline enum pd_parse_result pd_key_compress(const struct pd_pkt *pkt,
						     const struct pd_key_opts *o,
						     struct pd_key *key,
						     struct pd_nh *nh, u32 end)
{
	if (!o->nh)
		return PD_PARSE_BAD_VERSION;	/* a caller's defect */
	pd_key_header(pkt, o, key, 1);
	key->tail_len = 0;
	pd_nh_init(nh, o->nh);
	pd_nh_update(nh, key->tail, PD_MIN(end, pkt->view) - pkt->fixed_len);
	if (end > pkt->view) {
		key->more_off = pkt->at + pkt->view;
		key->more_len = end - pkt->view;
		return PD_PARSE_OK;
	}
	pd_key_close(key, nh);
	return PD_PARSE_OK;
}

static __always_inline enum pd_parse_result
pd_key_packet(const struct pd_pkt *pkt, const struct pd_key_opts *o,
	      struct pd_key *key, bool cut, struct pd_nh *nh)
{
	/* only a cut packet gets here with l4_err set (pd_key_any) */
	int l4len = cut && pkt->l4_err ? PD_L4_TRUNCATED : pd_l4_hdr_len(pkt);
	u32 end, tail;

	if (l4len == PD_L4_BAD_HEADER)
		return PD_PARSE_BAD_HEADER;
	if (l4len == PD_L4_TRUNCATED && !cut)
		return PD_PARSE_TRUNCATED;
	if (l4len == PD_L4_TRUNCATED || o->payload == PKTDEDUP_PAYLOAD_ALL)
		end = pkt->end;
	else
		end = PD_MIN(pkt->end, pkt->l4off + (u32)l4len + o->payload);
	tail = end - pkt->fixed_len;
	key->tail = pkt->data + pkt->fixed_len;
	if (tail > PD_KEY_DIRECT || end > pkt->view)
		return pd_key_compress(pkt, o, key, nh, end);
	pd_key_header(pkt, o, key, 0);
	key->tail_len = (u16)tail;
	return PD_PARSE_OK;
}

static inline enum pd_parse_result pd_key_any(const struct pd_pkt *pkt,
					      const struct pd_key_opts *o,
					      struct pd_key *key, bool cut,
					      struct pd_nh *nh)
{
	u16 sport = 0, dport = 0;

	key->more_off = 0;
	key->more_len = 0;
	if (o->mode == PKTDEDUP_KEY_PACKET) {
		/* a chain past the limit fails cut or not */
		if (pkt->l4_err != PD_PARSE_OK &&
		    !(cut && pkt->l4_err == PD_PARSE_TRUNCATED))
			return (enum pd_parse_result)pkt->l4_err;
		return pd_key_packet(pkt, o, key, cut, nh);
	}
	if (o->mode == PKTDEDUP_KEY_FLOW && pkt->l4_err != PD_PARSE_OK)
		return (enum pd_parse_result)pkt->l4_err;
	if (o->mode == PKTDEDUP_KEY_FLOW && !pkt->later_fragment) {
		const u8 *l4 = pkt->data + pkt->l4off;
		u32 avail = pkt->len - pkt->l4off;

		if (pd_has_ports(pkt->proto)) {
			if (avail < 4)
				return PD_PARSE_TRUNCATED;
			sport = pd_be16(l4);
			dport = pd_be16(l4 + 2);
		} else if ((pkt->proto == IPPROTO_ICMP ||
			    pkt->proto == IPPROTO_ICMPV6) && avail >= 1 &&
			   pd_is_echo(pkt->family, pkt->proto, l4[0])) {
			if (avail < 8)
				return PD_PARSE_TRUNCATED;
			sport = pd_be16(l4 + 4);	/* echo identifier */
		}
	}
	if (pd_key_build(key, o->mode, pkt->family, pkt->src, pkt->dst,
			 pkt->proto, sport, dport))
		return PD_PARSE_BAD_VERSION;
	if (pkt->encaps && (o->flags & PKTDEDUP_KEY_F_TUNNEL_ID))
		pd_key_tunnel(key, pkt->tun_id);
	return PD_PARSE_OK;
}

/*
 * A key whose tail is all in the parsed bytes (userspace's: they are the
 * whole packet); one that is not fails as truncated.
 */
static enum pd_parse_result pd_key_whole(const struct pd_pkt *pkt,
					 const struct pd_key_opts *o,
					 struct pd_key *key, bool cut)
{
	struct pd_nh nh;
	enum pd_parse_result r = pd_key_any(pkt, o, key, cut, &nh);

	return r == PD_PARSE_OK && key->more_len ? PD_PARSE_TRUNCATED : r;
}

enum pd_parse_result pd_key_from_pkt(const struct pd_pkt *pkt,
				     const struct pd_key_opts *o,
				     struct pd_key *key)
{
	return pd_key_whole(pkt, o, key, false);
}

enum pd_parse_result pd_key_from_cut(const struct pd_pkt *pkt,
				     const struct pd_key_opts *o,
				     struct pd_key *key)
{
	return pd_key_whole(pkt, o, key, true);
}

enum pd_parse_result pd_parse_view(const u8 *data, u32 view, u32 whole,
				   const struct pd_key_opts *o,
				   struct pd_pkt *pkt, bool cut)
{
	/* the headers, on the bytes every reader has in one piece */
	u32 w = PD_MIN(view, (u32)PD_KEY_HDR_ROOM);
	enum pd_parse_result r = pd_parse_any(data, w, pkt, cut && w == whole);

	if (r != PD_PARSE_OK)
		return r;
	pkt->view = view;
	pkt->end = pd_ip_extent(data, pkt->family, whole);
	if (!o->decap)
		return r;
	/* only these protocols carry what decap looks into */
	if (pkt->proto != IPPROTO_UDP && pkt->proto != IPPROTO_GRE &&
	    pkt->proto != IPPROTO_IPIP && pkt->proto != IPPROTO_IPV6)
		return r;
	return pd_decap(data, view, whole, o, pkt, cut);
}

/*
 * The common case of pd_parse_view() (not cut, no decap): an IPv4 header
 * of 20 bytes or an IPv6 header with no extension, TCP (a data offset of
 * 20 to 60 bytes) or UDP, not a fragment, the IP length covering the L4
 * header and the view holding it. pkt as pd_parse_view() leaves it, and
 * true; false for anything else, pkt then undefined.
 */
static __always_inline bool pd_parse_fast(const u8 *d, u32 view, u32 whole,
					  struct pd_pkt *pkt)
{
	u32 tot, hl, room, l4len;
	u8 proto;

	if (view < 20)
		return false;
	if (d[0] == 0x45) {
		tot = pd_be16(d + 2);
		if (pd_be16(d + 6) & 0x3fff)	/* MF or an offset */
			return false;
		proto = d[9];
		hl = 20;
	} else if ((d[0] >> 4) == 6 && view >= 40) {
		tot = pd_be16(d + 4);
		if (!tot)			/* a jumbogram */
			return false;
		tot += 40;
		proto = d[6];
		hl = 40;
	} else {
		return false;
	}
	if (proto == IPPROTO_TCP) {
		if (tot < hl + 20 || view < hl + 20)
			return false;
		l4len = (d[hl + 12] >> 4) * 4u;
		if (l4len < 20)
			return false;
	} else if (proto == IPPROTO_UDP) {
		l4len = 8;
	} else {
		return false;
	}
	if (tot < hl + l4len || view < hl + l4len)
		return false;
	/*
	 * Every field set, none cleared first: a kernel built without SSE
	 * clears a struct this size with rep stosq, which costs more than
	 * all these stores (results/bench-kernel.md).
	 */
	pkt->data = d;
	room = PD_MIN(view, (u32)PD_KEY_HDR_ROOM);
	pkt->len = PD_MIN(room, tot);
	pkt->at = 0;
	pkt->end = PD_MIN(whole, tot);
	pkt->view = view;
	pkt->proto = proto;
	pkt->later_fragment = false;
	pkt->l4_err = PD_PARSE_OK;
	pkt->fixed_len = (u16)hl;
	pkt->l4off = hl;
	pkt->fragment = false;
	pkt->cut = false;
	pkt->encaps = 0;
	pkt->bad_encap = 0;
	pkt->depth = 0;
	pkt->tun_id = 0;
	if (hl == 20) {
		pkt->family = PD_FAMILY_IPV4;
		pkt->addr_len = 4;
		pkt->src = d + 12;
		pkt->dst = d + 16;
		pkt->dscp = d[1] >> 2;
	} else {
		pkt->family = PD_FAMILY_IPV6;
		pkt->addr_len = 16;
		pkt->src = d + 8;
		pkt->dst = d + 24;
		pkt->dscp = (u8)(((d[0] & 0x0f) << 2) | (d[1] >> 6));
	}
	return true;
}

enum pd_parse_result pd_parse_key_open(const u8 *data, u32 view, u32 whole,
				       const struct pd_key_opts *o,
				       struct pd_pkt *pkt, struct pd_key *key,
				       struct pd_nh *nh)
{
	enum pd_parse_result r;

	/*
	 * The key built here too, not by pd_key_any(), whose checks the
	 * packet has passed: measured, a tenth of the parse and key's time.
	 */
	if (!o->decap && pd_parse_fast(data, view, whole, pkt)) {
		key->more_off = 0;
		key->more_len = 0;
		if (o->mode == PKTDEDUP_KEY_PACKET)
			return pd_key_packet(pkt, o, key, false, nh);
		/* the ports of TCP and UDP, in the view */
		if (pd_key_build(key, o->mode, pkt->family, pkt->src, pkt->dst,
				 pkt->proto, pd_be16(data + pkt->l4off),
				 pd_be16(data + pkt->l4off + 2)))
			return PD_PARSE_BAD_VERSION;
		return PD_PARSE_OK;
	}
	r = pd_parse_view(data, view, whole, o, pkt, false);
	if (r == PD_PARSE_OK)
		r = pd_key_any(pkt, o, key, false, nh);
	return r;
}

enum pd_parse_result pd_parse_key(const u8 *data, u32 len,
				  const struct pd_key_opts *o,
				  struct pd_pkt *pkt, bool cut)
{
	return pd_parse_view(data, len, len, o, pkt, cut);
}

enum pd_parse_result pd_key_of(const struct pd_pkt *pkt,
			       const struct pd_key_opts *o,
			       struct pd_key *key)
{
	return pd_key_whole(pkt, o, key, pkt->cut);
}

enum pd_parse_result pd_key_open(const struct pd_pkt *pkt,
				 const struct pd_key_opts *o,
				 struct pd_key *key, struct pd_nh *nh)
{
	return pd_key_any(pkt, o, key, pkt->cut, nh);
}

enum pd_parse_result pd_key_nonip(const u8 *p, u32 view, u32 whole, u16 type,
				  const struct pd_key_opts *o,
				  struct pd_key *key, struct pd_nh *nh)
{
	u32 off = 0, n, in;
	unsigned int tags;

	view = PD_MIN(view, whole);
	/* the tags pd_l2_skip() crosses: their bytes are in the view */
	for (tags = 0; pd_l2_tag(type); tags++) {
		if (tags == PD_L2_MAX_TAGS || off + 4 > view)
			return PD_PARSE_NOT_IP;
		type = pd_be16(p + off + 2);
		off += 4;
	}
	if (type < 0x0600)
		type = 0;	/* 802.3: a length, or the kernel's 802.2 */
	n = PD_MIN(whole - off, (u32)o->payload);
	memset(key->buf, 0, 8);
	key->buf[2] = (u8)(type >> 8);
	key->buf[3] = (u8)type;
	key->len = 4;
	key->tail = p + off;
	key->more_off = 0;
	key->more_len = 0;
	if (n <= PD_KEY_DIRECT && off + n <= view) {
		key->tail_len = (u16)n;
		return PD_PARSE_OK;
	}
	if (!o->nh)
		return PD_PARSE_BAD_VERSION;	/* a caller's defect */
	key->buf[1] = 1;	/* compressed */
	key->tail_len = 0;
	in = PD_MIN(n, view - off);
	pd_nh_init(nh, o->nh);
	pd_nh_update(nh, p + off, in);
	if (in < n) {
		key->more_off = off + in;
		key->more_len = n - in;
		return PD_PARSE_OK;
	}
	pd_key_close(key, nh);
	return PD_PARSE_OK;
}

enum pd_parse_result pd_key_nonip_whole(const u8 *p, u32 len, u16 type,
					const struct pd_key_opts *o,
					struct pd_key *key)
{
	struct pd_nh nh;

	return pd_key_nonip(p, len, len, type, o, key, &nh);
}

enum pd_parse_result pd_key_extract(const u8 *data, u32 len,
				    const struct pd_key_opts *o,
				    struct pd_key *key)
{
	struct pd_pkt pkt;
	enum pd_parse_result r;

	r = pd_parse_key(data, PD_MIN(len, pd_key_look(o)), o, &pkt, false);
	return r == PD_PARSE_OK ? pd_key_of(&pkt, o, key) : r;
}

u64 pd_key_hash64(const struct pd_key *key, const struct pd_hkey *hk)
{
	struct pd_sip s __uninitialized;	/* pd_sip_init() writes it all */

	/* buf is whole words: its last partial word may be read whole */
	if (!key->tail_len)
		return pd_hash64_padded(hk, key->buf, key->len);
	pd_sip_init(&s, hk);
	pd_sip_update(&s, key->buf, key->len);
	pd_sip_update(&s, key->tail, key->tail_len);
	return pd_sip_final(&s);
}
