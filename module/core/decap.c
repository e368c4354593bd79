// SPDX-License-Identifier: GPL-2.0
/* Tunnels looked into for the key: see decap.h. */
#include "decap.h"

const char *const pd_encap_names[PD_NENCAPS] = {
	"vxlan", "geneve", "gre", "erspan", "gtpu", "ip",
};

const u8 pd_udp_tunnels[PD_NUDP_TUNNELS] = {
	PKTDEDUP_DECAP_VXLAN, PKTDEDUP_DECAP_GENEVE, PKTDEDUP_DECAP_GTPU,
};

#define PD_ETH_HLEN	14
#define PD_ETH_IP	0x0800
#define PD_ETH_IPV6	0x86dd
#define PD_ETH_TEB	0x6558	/* transparent Ethernet bridging */
#define PD_ETH_ERSPAN2	0x88be	/* ERSPAN type I and II */
#define PD_ETH_ERSPAN3	0x22eb
/* what a tunnel carries when it does not say: IP, by its version nibble */
#define PD_TYPE_VERSION	0x10000
#define PD_TYPE_NONE	0x10001	/* something else than IP or Ethernet */

#define PD_GRE_C	0x8000	/* checksum present */
#define PD_GRE_R	0x4000	/* routing present (RFC 1701): refused */
#define PD_GRE_K	0x2000	/* key present */
#define PD_GRE_S	0x1000	/* sequence number present */
#define PD_GRE_SSR	0x0800	/* strict source route (RFC 1701): refused */
#define PD_GRE_RECUR	0x0700	/* recursion control (RFC 1701): refused */
#define PD_GRE_VER	0x0007

#define PD_VXLAN_I	0x08	/* the VNI is valid */
#define PD_GTP_GPDU	255

/* a private result of pd_tunnel(): not a tunnel that o names */
#define PD_TUN_NONE	PD_PARSE_NRESULTS

static inline u16 pd_get16(const u8 *p)
{
	return (u16)(p[0] << 8 | p[1]);
}

static inline u32 pd_get24(const u8 *p)
{
	return (u32)p[0] << 16 | (u32)p[1] << 8 | p[2];
}

static inline u32 pd_get32(const u8 *p)
{
	return (u32)pd_get24(p) << 8 | p[3];
}

/* What one tunnel header says. */
struct pd_tun {
	u8 kind;	/* PKTDEDUP_DECAP_* */
	u8 family;	/* IPIP, SIT: the version the inner header must have */
	u32 id;		/* VNI, GRE key, ERSPAN session, TEID; else 0 */
	u32 inner;	/* offset of what it carries in data */
	u32 type;	/* its EtherType, or PD_TYPE_VERSION, PD_TYPE_NONE */
};

/* VXLAN: UDP payload at h. */
static int pd_vxlan(const u8 *d, u32 h, u32 end, struct pd_tun *t)
{
	t->kind = PKTDEDUP_DECAP_VXLAN;
	if (h + 8 > end)
		return PD_PARSE_TRUNCATED;
	if (!(d[h] & PD_VXLAN_I))
		return PD_PARSE_BAD_HEADER;
	t->id = pd_get24(d + h + 4);
	t->inner = h + 8;
	t->type = PD_ETH_TEB;
	return PD_PARSE_OK;
}

/* GENEVE: UDP payload at h. */
static int pd_geneve(const u8 *d, u32 h, u32 end, struct pd_tun *t)
{
	u32 hl;

	t->kind = PKTDEDUP_DECAP_GENEVE;
	if (h + 8 > end)
		return PD_PARSE_TRUNCATED;
	if (d[h] >> 6)			/* version 0 only */
		return PD_PARSE_BAD_HEADER;
	hl = 8 + (d[h] & 0x3fu) * 4;	/* options: 4-byte units */
	if (h + hl > end)
		return PD_PARSE_TRUNCATED;
	t->id = pd_get24(d + h + 4);
	t->inner = h + hl;
	t->type = pd_get16(d + h + 2) ?: PD_TYPE_NONE;
	return PD_PARSE_OK;
}

/* GTP-U: UDP payload at h. */
static int pd_gtpu(const u8 *d, u32 h, u32 end, struct pd_tun *t)
{
	u32 hl = 8, el;
	unsigned int n;
	u8 next = 0;

	t->kind = PKTDEDUP_DECAP_GTPU;
	if (h + 8 > end)
		return PD_PARSE_TRUNCATED;
	if (d[h] >> 5 != 1 || !(d[h] & 0x10))	/* GTPv1, PT 1 (not GTP') */
		return PD_PARSE_BAD_HEADER;
	if (d[h + 1] != PD_GTP_GPDU)
		return PD_TUN_NONE;		/* signalling: no user packet */
	if (d[h] & 0x07) {			/* E, S or PN: 4 more bytes */
		hl = 12;
		if (h + hl > end)
			return PD_PARSE_TRUNCATED;
		if (d[h] & 0x04)
			next = d[h + 11];
	}
	for (n = 0; next; n++) {
		if (n == PD_GTPU_MAX_EXT)
			return PD_PARSE_DECAP_LIMIT;
		if (h + hl + 1 > end)
			return PD_PARSE_TRUNCATED;
		el = d[h + hl] * 4u;		/* length, 4-byte units */
		if (!el)
			return PD_PARSE_BAD_HEADER;
		if (h + hl + el > end)
			return PD_PARSE_TRUNCATED;
		next = d[h + hl + el - 1];
		hl += el;
	}
	t->id = pd_get32(d + h + 4);		/* TEID */
	t->inner = h + hl;
	t->type = PD_TYPE_VERSION;
	return PD_PARSE_OK;
}

/* ERSPAN: its GRE header at h, hl bytes long, with flags. */
static int pd_erspan(const u8 *d, u32 h, u32 hl, u16 flags, u16 proto,
		     u32 end, struct pd_tun *t)
{
	u32 e = h + hl, ft;

	t->type = PD_ETH_TEB;
	if (proto == PD_ETH_ERSPAN2 && !(flags & PD_GRE_S)) {
		t->inner = e;		/* type I: the frame, no header */
		return PD_PARSE_OK;
	}
	if (e + (proto == PD_ETH_ERSPAN2 ? 8 : 12) > end)
		return PD_PARSE_TRUNCATED;
	/* version: 1 for type II, 2 for type III */
	if (d[e] >> 4 != (proto == PD_ETH_ERSPAN2 ? 1 : 2))
		return PD_PARSE_BAD_HEADER;
	t->id = (d[e + 2] & 0x03u) << 8 | d[e + 3];	/* session ID */
	if (proto == PD_ETH_ERSPAN2) {
		t->inner = e + 8;
		return PD_PARSE_OK;
	}
	t->inner = e + 12 + (d[e + 11] & 0x01 ? 8 : 0);	/* O: subheader */
	if (t->inner > end)
		return PD_PARSE_TRUNCATED;
	ft = (d[e + 10] >> 2) & 0x1f;	/* frame type: 0 Ethernet, 2 IP */
	if (ft)
		t->type = ft == 2 ? PD_TYPE_VERSION : PD_TYPE_NONE;
	return PD_PARSE_OK;
}

/* GRE (and ERSPAN in it): the IP payload at h. */
static int pd_gre(const u8 *d, u32 h, u32 end, u8 decap, struct pd_tun *t)
{
	u16 flags, proto;
	u32 hl;

	if (h + 4 > end) {
		/* the protocol is past the end: whichever is looked into */
		t->kind = decap & PKTDEDUP_DECAP_GRE ? PKTDEDUP_DECAP_GRE :
						       PKTDEDUP_DECAP_ERSPAN;
		return PD_PARSE_TRUNCATED;
	}
	flags = pd_get16(d + h);
	proto = pd_get16(d + h + 2);
	if ((flags & PD_GRE_VER) == 1)
		return PD_TUN_NONE;	/* version 1: PPTP's, no packet key */
	t->kind = proto == PD_ETH_ERSPAN2 || proto == PD_ETH_ERSPAN3 ?
		  PKTDEDUP_DECAP_ERSPAN : PKTDEDUP_DECAP_GRE;
	if (!(decap & t->kind))
		return PD_TUN_NONE;
	/* versions 2-7 are no GRE's (RFC 2784: 0, RFC 2637: 1) */
	if (flags & (PD_GRE_R | PD_GRE_SSR | PD_GRE_RECUR | PD_GRE_VER))
		return PD_PARSE_BAD_HEADER;
	hl = 4 + (flags & PD_GRE_C ? 4 : 0) + (flags & PD_GRE_K ? 4 : 0) +
	     (flags & PD_GRE_S ? 4 : 0);
	if (h + hl > end)
		return PD_PARSE_TRUNCATED;
	if (t->kind == PKTDEDUP_DECAP_ERSPAN)
		return pd_erspan(d, h, hl, flags, proto, end, t);
	if (flags & PD_GRE_K)
		t->id = pd_get32(d + h + (flags & PD_GRE_C ? 8 : 4));
	t->inner = h + hl;
	t->type = proto;
	return PD_PARSE_OK;
}

/*
 * The tunnel that pkt (its IP header at data + at, its end at end) is, if
 * o looks into it: OK (t says what it carries), PD_TUN_NONE, or why its
 * header cannot be read (t->kind says whose).
 */
static int pd_tunnel(const u8 *d, u32 at, u32 end, const struct pd_pkt *pkt,
		     const struct pd_key_opts *o, struct pd_tun *t)
{
	u32 l4 = at + pkt->l4off;
	u16 port;

	if (pkt->fragment || pkt->l4_err)
		return PD_TUN_NONE;
	switch (pkt->proto) {
	case IPPROTO_UDP:
		if (!(o->decap & (PKTDEDUP_DECAP_VXLAN | PKTDEDUP_DECAP_GENEVE |
				  PKTDEDUP_DECAP_GTPU)) || l4 + 8 > end)
			return PD_TUN_NONE;	/* the packet's key fails it */
		port = pd_get16(d + l4 + 2);
		if ((o->decap & PKTDEDUP_DECAP_VXLAN) && port == o->vxlan_port)
			return pd_vxlan(d, l4 + 8, end, t);
		if ((o->decap & PKTDEDUP_DECAP_GENEVE) &&
		    port == o->geneve_port)
			return pd_geneve(d, l4 + 8, end, t);
		if ((o->decap & PKTDEDUP_DECAP_GTPU) && port == o->gtpu_port)
			return pd_gtpu(d, l4 + 8, end, t);
		return PD_TUN_NONE;
	case IPPROTO_GRE:
		if (!(o->decap & (PKTDEDUP_DECAP_GRE | PKTDEDUP_DECAP_ERSPAN)))
			return PD_TUN_NONE;
		return pd_gre(d, l4, end, o->decap, t);
	case IPPROTO_IPIP:
	case IPPROTO_IPV6:
		if (!(o->decap & PKTDEDUP_DECAP_IP))
			return PD_TUN_NONE;
		t->kind = PKTDEDUP_DECAP_IP;
		t->inner = l4;
		if (pkt->proto == IPPROTO_IPIP) {
			t->type = PD_ETH_IP;
			t->family = PD_FAMILY_IPV4;
		} else {
			t->type = PD_ETH_IPV6;
			t->family = PD_FAMILY_IPV6;
		}
		return PD_PARSE_OK;
	default:
		return PD_TUN_NONE;
	}
}

/*
 * The end of the packet whose IP header pkt parsed: its length, within
 * len (the end of the packet that carries it, or of data).
 */
static u32 pd_ip_end(const struct pd_pkt *pkt, u32 at, u32 len)
{
	return at + pd_ip_extent(pkt->data, pkt->family, len - at);
}

/*
 * Where the IP header of what a tunnel carries begins (*off), from its
 * type: an Ethernet frame's header, tags and labels; IP by its version.
 */
static enum pd_parse_result pd_inner(const u8 *d, u32 end, u32 type,
				     u32 *off)
{
	unsigned int tags = 0;
	u32 o = 0;

	if (type == PD_ETH_TEB) {
		if (*off + PD_ETH_HLEN > end)
			return PD_PARSE_TRUNCATED;
		type = pd_get16(d + *off + 12);
		*off += PD_ETH_HLEN;
	} else if (type == PD_TYPE_VERSION) {
		if (*off >= end)
			return PD_PARSE_TRUNCATED;
		type = d[*off] >> 4 == 4 ? PD_ETH_IP :
		       d[*off] >> 4 == 6 ? PD_ETH_IPV6 : PD_TYPE_NONE;
	}
	if (type == PD_TYPE_NONE)
		return PD_PARSE_NOT_IP;
	switch (pd_l2_skip(d + *off, end - *off, (u16)type, &o, &tags)) {
	case PD_L2_IP:
		*off += o;
		return PD_PARSE_OK;
	case PD_L2_TRUNCATED:
		return PD_PARSE_TRUNCATED;
	default:
		return PD_PARSE_NOT_IP;
	}
}

enum pd_parse_result pd_decap(const u8 *data, u32 len, u32 whole,
			      const struct pd_key_opts *o, struct pd_pkt *pkt,
			      bool cut)
{
	u32 look = PD_KEY_HDR_ROOM, lim = len, wlim = whole, wend;
	u8 encaps = 0, depth = 0;
	struct pd_tun t;
	u64 id = 0;
	int r;

	for (;;) {
		u32 at = (u32)(pkt->data - data), end, off, w;

		memset(&t, 0, sizeof(t));
		end = pd_ip_end(pkt, at, lim);
		wend = pd_ip_end(pkt, at, wlim);
		r = pd_tunnel(data, at, end, pkt, o, &t);
		if (r == PD_TUN_NONE)
			break;
		if (r == PD_PARSE_OK && depth == PKTDEDUP_DECAP_DEPTH)
			r = PD_PARSE_DECAP_LIMIT;
		if (r != PD_PARSE_OK)
			goto fail;
		off = t.inner;
		r = pd_inner(data, end, t.type, &off);
		if (r != PD_PARSE_OK)
			goto fail;
		if (off > PKTDEDUP_DECAP_ROOM) {
			r = PD_PARSE_DECAP_LIMIT;
			goto fail;
		}
		if (off >= end) {
			r = PD_PARSE_TRUNCATED;
			goto fail;
		}
		encaps |= t.kind;
		depth++;
		id = (id << 21 | id >> 43) ^ ((u64)t.kind << 32 | t.id);
		/* the bytes its bare key would read, cut where data is */
		w = PD_MIN(end - off, look);
		r = cut && off + w == len ? pd_parse_cut(data + off, w, pkt) :
					    pd_parse(data + off, w, pkt);
		if (r == PD_PARSE_OK && t.family && pkt->family != t.family)
			r = PD_PARSE_BAD_HEADER;
		if (r != PD_PARSE_OK)
			goto fail;
		/* the inner packet ends where its carrier does */
		lim = end;
		wlim = wend;
		pkt->at = off;
		pkt->view = len - off;
		pkt->end = pd_ip_extent(pkt->data, pkt->family, wend - off);
	}
	pkt->encaps = encaps;
	pkt->depth = depth;
	pkt->tun_id = id;
	return PD_PARSE_OK;
fail:
	pkt->family = 0;
	pkt->depth = depth;
	if (r == PD_PARSE_NOT_IP) {
		/* crossed, and what it carries is not IP: not an error */
		pkt->encaps = encaps | t.kind;
		return PD_PARSE_NOT_IP;
	}
	pkt->encaps = encaps;
	pkt->bad_encap = t.kind;
	return (enum pd_parse_result)r;
}

/* Whether the n bytes at p are the word w. */
static bool pd_word_is(const char *p, size_t n, const char *w)
{
	return strlen(w) == n && !memcmp(w, p, n);
}

int pd_decap_parse(const char *s, u8 *decap, struct pd_decap_bad *bad)
{
	const char *p = s;
	u8 v = 0, why;
	size_t n;

	if (!strcmp(s, "none") || !strcmp(s, "all")) {
		*decap = *s == 'a' ? PD_DECAP_ALL : 0;
		return 0;
	}
	for (;; p += n + 1) {
		unsigned int i;

		for (n = 0; p[n] && p[n] != ','; n++)
			;
		for (i = 0; i < PD_NENCAPS; i++)
			if (pd_word_is(p, n, pd_encap_names[i]))
				break;
		if (!n)
			why = PD_DECAP_EMPTY;
		else if (pd_word_is(p, n, "none") || pd_word_is(p, n, "all"))
			why = PD_DECAP_ALONE;
		else if (i == PD_NENCAPS)
			why = PD_DECAP_BAD_NAME;
		else if (v & (1u << i))
			why = PD_DECAP_TWICE;
		else
			why = 0;
		if (why) {
			if (bad) {
				bad->why = why;
				bad->at = (u16)(p - s);
				bad->len = (u16)n;
			}
			return -EINVAL;
		}
		v |= (u8)(1u << i);
		if (!p[n])
			break;
	}
	*decap = v;
	return 0;
}

bool pd_decap_port_clash(u8 decap, const u16 *port, unsigned int *i,
			 unsigned int *j)
{
	for (*i = 0; *i < PD_NUDP_TUNNELS; (*i)++)
		for (*j = *i + 1; *j < PD_NUDP_TUNNELS; (*j)++)
			if ((decap & pd_udp_tunnels[*i]) &&
			    (decap & pd_udp_tunnels[*j]) &&
			    port[*i] == port[*j])
				return true;
	return false;
}

void pd_decap_defaults(struct pd_key_opts *o)
{
	o->decap = 0;
	o->flags &= (u8)~PKTDEDUP_KEY_F_TUNNEL_ID;
	o->vxlan_port = PD_VXLAN_PORT;
	o->geneve_port = PD_GENEVE_PORT;
	o->gtpu_port = PD_GTPU_PORT;
}
