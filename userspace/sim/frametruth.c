// SPDX-License-Identifier: GPL-2.0
/* The frame truth: see frametruth.h. */
#include <string.h>

#include "blake2b.h"
#include "frametruth.h"

/* EtherTypes (IEEE 802 numbers) */
#define ET_IPV4		0x0800
#define ET_IPV6		0x86dd
#define ET_VLAN		0x8100	/* 802.1Q */
#define ET_QINQ		0x88a8	/* 802.1ad */
#define ET_QINQ1	0x9100	/* pre-standard QinQ */
#define ET_QINQ2	0x9200
#define ET_MPLS		0x8847
#define ET_MPLS_MC	0x8848
#define ET_TEB		0x6558	/* transparent Ethernet bridging */
#define ET_ERSPAN2	0x88be	/* ERSPAN types I and II */
#define ET_ERSPAN3	0x22eb
#define ET_MIN		0x0600	/* below: an 802.3 length */
/* IP protocols */
#define IPP_HOPOPTS	0
#define IPP_IPIP	4
#define IPP_UDP		17
#define IPP_IPV6	41
#define IPP_ROUTING	43
#define IPP_FRAGMENT	44
#define IPP_GRE		47
#define IPP_AH		51
#define IPP_DSTOPTS	60
/* IPv6 extension headers walked at most */
#define FT_MAX_EXT	16

const char *const ft_kind_names[FT_NKINDS] = {
	[FT_IP] = "ip",
	[FT_BAD_IP] = "bad-ip",
	[FT_NOT_IP] = "not-ip",
	[FT_RAW] = "raw",
};

struct walk {
	const uint8_t *p;
	const struct ft_ports *ports;
	struct ft_frame *f;
	unsigned int depth;	/* tunnels crossed */
};

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void set(struct walk *w, uint8_t kind, uint32_t proto, uint32_t o,
		uint32_t end)
{
	w->f->kind = kind;
	w->f->version = 0;
	w->f->proto = proto;
	w->f->off = o;
	w->f->len = end > o ? end - o : 0;
	w->f->cut = false;
	w->f->tunnels = (uint8_t)w->depth;
}

static void ip(struct walk *w, uint32_t o, uint32_t end, unsigned int ver);
static void ethernet(struct walk *w, uint32_t o, uint32_t end);

/* Is there an IP header of version ver at o (its first nibble)? */
static bool is_ver(const struct walk *w, uint32_t o, uint32_t end,
		   unsigned int ver)
{
	return o < end && w->p[o] >> 4 == ver;
}

/* An MPLS label stack at o, then IPv4 or IPv6 by its version. */
static void mpls(struct walk *w, uint32_t o, uint32_t end, uint16_t type)
{
	uint32_t x = o;

	for (;;) {
		if (x + 4 > end) {
			set(w, FT_NOT_IP, type, o, end);
			return;
		}
		x += 4;
		if (w->p[x - 2] & 1)	/* bottom of stack */
			break;
	}
	if (is_ver(w, x, end, 4))
		ip(w, x, end, 4);
	else if (is_ver(w, x, end, 6))
		ip(w, x, end, 6);
	else
		set(w, FT_NOT_IP, type, x, end);
}

/* The frame's protocol type at o - 2, its data at o: tags, then IP or not. */
static void after_type(struct walk *w, uint32_t o, uint32_t end, uint16_t t)
{
	while (t == ET_VLAN || t == ET_QINQ || t == ET_QINQ1 ||
	       t == ET_QINQ2) {
		if (o + 4 > end)
			break;		/* a tag cut short: not IP */
		t = be16(w->p + o + 2);
		o += 4;
	}
	if (t == ET_IPV4)
		ip(w, o, end, 4);
	else if (t == ET_IPV6)
		ip(w, o, end, 6);
	else if (t == ET_MPLS || t == ET_MPLS_MC)
		mpls(w, o, end, t);
	else
		set(w, FT_NOT_IP, t, o, end);
}

/* An Ethernet frame at o: its addresses left out. */
static void ethernet(struct walk *w, uint32_t o, uint32_t end)
{
	uint16_t t;

	if (o + 14 > end) {
		set(w, FT_RAW, 0, o, end);
		return;
	}
	t = be16(w->p + o + 12);
	if (t < ET_MIN)		/* 802.3: the length and the LLC on */
		set(w, FT_NOT_IP, 0, o + 12, end);
	else
		after_type(w, o + 14, end, t);
}

/* Enter a tunnel whose header checked out: what it carries is the frame. */
static bool enter(struct walk *w)
{
	if (w->depth >= FT_MAX_DEPTH)
		return false;
	w->depth++;
	return true;
}

/* IP by its version at o, inside a tunnel that says only "IP". */
static void ip_any(struct walk *w, uint32_t o, uint32_t end, uint32_t type)
{
	if (is_ver(w, o, end, 4))
		ip(w, o, end, 4);
	else if (is_ver(w, o, end, 6))
		ip(w, o, end, 6);
	else
		set(w, FT_NOT_IP, type, o, end);
}

/* VXLAN (RFC 7348) at h: the I flag, 8 bytes, an Ethernet frame. */
static bool vxlan(struct walk *w, uint32_t h, uint32_t end)
{
	if (h + 8 > end || !(w->p[h] & 0x08) || !enter(w))
		return false;
	ethernet(w, h + 8, end);
	return true;
}

/* GENEVE (RFC 8926) at h: version 0, options, then its protocol type. */
static bool geneve(struct walk *w, uint32_t h, uint32_t end)
{
	uint32_t hl;
	uint16_t t;

	if (h + 8 > end || w->p[h] >> 6)
		return false;
	hl = 8 + (w->p[h] & 0x3fu) * 4;
	if (h + hl > end || !enter(w))
		return false;
	t = be16(w->p + h + 2);
	if (t == ET_TEB)
		ethernet(w, h + hl, end);
	else
		after_type(w, h + hl, end, t);
	return true;
}

/* GTP-U (3GPP TS 29.281) at h: a GTPv1 G-PDU and its extension headers. */
static bool gtpu(struct walk *w, uint32_t h, uint32_t end)
{
	uint32_t hl = 8, el;
	unsigned int n;
	uint8_t next = 0;

	if (h + 8 > end || w->p[h] >> 5 != 1 || !(w->p[h] & 0x10) ||
	    w->p[h + 1] != 255)
		return false;
	if (w->p[h] & 0x07) {		/* E, S, PN: sequence, N-PDU, next */
		hl = 12;
		if (h + hl > end)
			return false;
		if (w->p[h] & 0x04)
			next = w->p[h + 11];
	}
	for (n = 0; next; n++) {
		if (n == FT_MAX_EXT || h + hl + 1 > end)
			return false;
		el = w->p[h + hl] * 4u;	/* 4-byte units, these two included */
		if (!el || h + hl + el > end)
			return false;
		next = w->p[h + hl + el - 1];
		hl += el;
	}
	if (!enter(w))
		return false;
	ip_any(w, h + hl, end, 0);
	return true;
}

/* ERSPAN in GRE of flags and type t, its header at h. */
static bool erspan(struct walk *w, uint16_t flags, uint16_t t, uint32_t h,
		   uint32_t end)
{
	uint32_t in;
	unsigned int ft;

	if (t == ET_ERSPAN2 && !(flags & 0x1000)) {
		if (!enter(w))	/* type I: no sequence, no header */
			return false;
		ethernet(w, h, end);
		return true;
	}
	if (t == ET_ERSPAN2) {		/* type II: 8 bytes, version 1 */
		if (h + 8 > end || w->p[h] >> 4 != 1 || !enter(w))
			return false;
		ethernet(w, h + 8, end);
		return true;
	}
	/* type III: 12 bytes, version 2, the platform subheader if O */
	if (h + 12 > end || w->p[h] >> 4 != 2)
		return false;
	in = h + 12 + (w->p[h + 11] & 0x01 ? 8 : 0);
	if (in > end || !enter(w))
		return false;
	ft = (w->p[h + 10] >> 2) & 0x1f;	/* 0 Ethernet, 2 IP */
	if (!ft)
		ethernet(w, in, end);
	else if (ft == 2)
		ip_any(w, in, end, 0);
	else
		set(w, FT_NOT_IP, 0, in, end);
	return true;
}

/* GRE version 0 (RFC 2784, 2890) at h, and ERSPAN in it. */
static bool gre(struct walk *w, uint32_t h, uint32_t end)
{
	uint16_t flags, t;
	uint32_t hl;

	if (h + 4 > end)
		return false;
	flags = be16(w->p + h);
	t = be16(w->p + h + 2);
	/* routing, strict source route, recursion, versions 1-7 */
	if (flags & 0x4fff)
		return false;
	hl = 4 + (flags & 0x8000 ? 4 : 0) + (flags & 0x2000 ? 4 : 0) +
	     (flags & 0x1000 ? 4 : 0);
	if (h + hl > end)
		return false;
	h += hl;
	switch (t) {
	case ET_ERSPAN2:
	case ET_ERSPAN3:
		return erspan(w, flags, t, h, end);
	case ET_TEB:
		if (!enter(w))
			return false;
		ethernet(w, h, end);
		return true;
	case ET_IPV4:
	case ET_IPV6:
		if (!is_ver(w, h, end, t == ET_IPV4 ? 4 : 6) || !enter(w))
			return false;
		ip(w, h, end, t == ET_IPV4 ? 4 : 6);
		return true;
	case ET_MPLS:
	case ET_MPLS_MC:
		if (!enter(w))
			return false;
		mpls(w, h, end, t);
		return true;
	default:
		return false;
	}
}

/*
 * The L4 header of protocol proto at l4, the packet ending at end: the
 * packet a tunnel there carries in place of this one (true), or nothing.
 */
static bool tunnel(struct walk *w, uint8_t proto, uint32_t l4, uint32_t end)
{
	uint16_t port;

	switch (proto) {
	case IPP_IPIP:
	case IPP_IPV6:
		if (!is_ver(w, l4, end, proto == IPP_IPIP ? 4 : 6) ||
		    !enter(w))
			return false;
		ip(w, l4, end, proto == IPP_IPIP ? 4 : 6);
		return true;
	case IPP_UDP:
		if (l4 + 8 > end)
			return false;
		port = be16(w->p + l4 + 2);
		/* on a port two share, the first whose header fits */
		return (port == w->ports->vxlan && vxlan(w, l4 + 8, end)) ||
		       (port == w->ports->geneve && geneve(w, l4 + 8, end)) ||
		       (port == w->ports->gtpu && gtpu(w, l4 + 8, end));
	case IPP_GRE:
		return gre(w, l4, end);
	default:
		return false;
	}
}

/* An IP header of version ver at o, the bytes ending at end. */
static void ip(struct walk *w, uint32_t o, uint32_t end, unsigned int ver)
{
	const uint8_t *p = w->p;
	uint32_t pend, l4, hl, i;
	uint8_t nh;
	bool cut;

	if (!is_ver(w, o, end, ver)) {
		set(w, FT_BAD_IP, 0, o, end);
		return;
	}
	if (ver == 4) {
		hl = (p[o] & 0x0fu) * 4;
		if (end - o < 20 || hl < 20 || hl > end - o ||
		    be16(p + o + 2) < hl) {
			set(w, FT_BAD_IP, 0, o, end);
			return;
		}
		pend = o + be16(p + o + 2);
		nh = p[o + 9];
		l4 = o + hl;
	} else {
		if (end - o < 40) {
			set(w, FT_BAD_IP, 0, o, end);
			return;
		}
		pend = o + 40 + be16(p + o + 4);
		nh = p[o + 6];
		/* a payload length of 0 with hop-by-hop options: a jumbogram */
		if (pend == o + 40 && nh == IPP_HOPOPTS)
			pend = end;
		l4 = o + 40;
	}
	cut = pend > end;
	if (cut)
		pend = end;
	set(w, FT_IP, 0, o, pend);
	w->f->version = (uint8_t)ver;
	w->f->cut = cut;
	if (ver == 4) {
		if (be16(p + o + 6) & 0x3fff)	/* MF or an offset: a fragment */
			return;
	} else {
		for (i = 0; i < FT_MAX_EXT; i++) {
			if (nh == IPP_FRAGMENT)
				return;
			if (nh != IPP_HOPOPTS && nh != IPP_ROUTING &&
			    nh != IPP_DSTOPTS && nh != IPP_AH)
				break;
			if (l4 + 2 > pend)
				return;
			hl = nh == IPP_AH ? (p[l4 + 1] + 2u) * 4 :
					    (p[l4 + 1] + 1u) * 8;
			nh = p[l4];
			l4 += hl;
		}
		if (i == FT_MAX_EXT || l4 > pend)
			return;
	}
	tunnel(w, nh, l4, pend);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)be16(p) << 16 | be16(p + 2);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* BSD loopback's address family: AF_INET 2, AF_INET6 10, 24, 28 or 30. */
static unsigned int af_version(uint32_t af)
{
	if (af == 2)
		return 4;
	if (af == 10 || af == 24 || af == 28 || af == 30)
		return 6;
	return 0;
}

static void link_layer(struct walk *w, enum link_type lt, uint32_t len)
{
	const uint8_t *p = w->p;
	unsigned int v;

	switch (lt) {
	case LINK_ETHERNET:
		ethernet(w, 0, len);
		return;
	case LINK_SLL:		/* 16 bytes, the protocol at 14 */
		if (len < 16)
			break;
		after_type(w, 16, len, be16(p + 14));
		return;
	case LINK_SLL2:		/* 20 bytes, the protocol at 0 */
		if (len < 20)
			break;
		after_type(w, 20, len, be16(p));
		return;
	case LINK_RAW:
		if (is_ver(w, 0, len, 6))
			ip(w, 0, len, 6);
		else
			ip(w, 0, len, 4);
		return;
	case LINK_IPV4:
	case LINK_IPV6:
		ip(w, 0, len, lt == LINK_IPV4 ? 4 : 6);
		return;
	case LINK_NULL:
	case LINK_LOOP:		/* either byte order */
		if (len < 4)
			break;
		v = af_version(be32(p));
		if (!v)
			v = af_version(le32(p));
		if (v)
			ip(w, 4, len, v);
		else
			set(w, FT_NOT_IP, be32(p), 4, len);
		return;
	default:
		break;
	}
	set(w, FT_RAW, 0, 0, len);
}

/* The bytes of f at p with the fields routers rewrite zeroed: n from at. */
static void masked(const uint8_t *p, const struct ft_frame *f, uint32_t at,
		   uint8_t *out, uint32_t n)
{
	uint32_t i;

	memcpy(out, p + f->off + at, n);
	if (f->kind != FT_IP)
		return;
	for (i = at; i < at + n; i++)
		if ((f->version == 4 && (i == 8 || i == 10 || i == 11)) ||
		    (f->version == 6 && i == 7))
			out[i - at] = 0;
}

void ft_frame(enum link_type lt, const uint8_t *p, uint32_t len,
	      const struct ft_ports *ports, struct ft_frame *f)
{
	struct walk w = { .p = p, .ports = ports, .f = f };
	struct blake2b s;
	uint8_t head[12], hdr[12], d[16];
	uint32_t n;
	int i;

	memset(f, 0, sizeof(*f));
	link_layer(&w, lt, len);
	/* what is compared, and how long, then the bytes */
	head[0] = f->kind;
	head[1] = f->version;
	head[2] = 0;
	head[3] = 0;
	for (i = 0; i < 4; i++) {
		head[4 + i] = (uint8_t)(f->proto >> (8 * i));
		head[8 + i] = (uint8_t)(f->len >> (8 * i));
	}
	blake2b_init(&s, sizeof(d));
	blake2b_update(&s, head, sizeof(head));
	/* the rewritten fields are in the first 12 bytes */
	n = f->len < sizeof(hdr) ? f->len : sizeof(hdr);
	masked(p, f, 0, hdr, n);
	blake2b_update(&s, hdr, n);
	blake2b_update(&s, p + f->off + n, f->len - n);
	blake2b_final(&s, d);
	f->digest[0] = 0;
	f->digest[1] = 0;
	for (i = 0; i < 8; i++) {
		f->digest[0] |= (uint64_t)d[i] << (8 * i);
		f->digest[1] |= (uint64_t)d[8 + i] << (8 * i);
	}
}

uint32_t ft_bytes(const uint8_t *p, const struct ft_frame *f, uint8_t *out,
		  uint32_t cap)
{
	masked(p, f, 0, out, f->len < cap ? f->len : cap);
	return f->len;
}
