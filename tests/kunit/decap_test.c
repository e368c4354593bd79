// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the tunnels looked into for the key (core/decap.c): one
 * inner packet, bare and inside every encapsulation, nested, cut at every
 * length, with bad flags, lengths and options.
 */
#include <kunit/test.h>

#include "../../module/core/decap.h"
#include "nh_test.h"

static const struct pd_hkey pd_dt_hkey = { { 0xdeca, 0x9decab } };

/* A frame under construction: headers are put in front of what is there. */
struct pd_dt_frame {
	u8 buf[2600];
	u32 at;		/* the frame is buf[at, sizeof(buf)) */
};

static u32 fr_len(const struct pd_dt_frame *f)
{
	return (u32)sizeof(f->buf) - f->at;
}

static const u8 *fr_data(const struct pd_dt_frame *f)
{
	return f->buf + f->at;
}

static void be16_put(u8 *p, u32 v)
{
	p[0] = (u8)(v >> 8);
	p[1] = (u8)v;
}

static void be32_put(u8 *p, u32 v)
{
	be16_put(p, v >> 16);
	be16_put(p + 2, v);
}

/* n bytes put in front, zeroed: their address */
static u8 *fr_push(struct pd_dt_frame *f, u32 n)
{
	f->at -= n;
	memset(f->buf + f->at, 0, n);
	return f->buf + f->at;
}

/*
 * The inner packet: IPv4 (or IPv6) TCP 10.1.0.1:40000 -> 10.2.0.2:80 with
 * plen bytes of payload; its TTL as a router on the way would leave it.
 */
static void fr_inner(struct pd_dt_frame *f, bool v6, u32 plen, u8 ttl)
{
	u8 *p;
	u32 i;

	f->at = sizeof(f->buf);
	p = fr_push(f, plen);
	for (i = 0; i < plen; i++)
		p[i] = (u8)(i * 13 + 5);
	p = fr_push(f, 20);
	be16_put(p, 40000);
	be16_put(p + 2, 80);
	be32_put(p + 4, 0x01020304);
	p[12] = 5 << 4;
	p[13] = 0x18;
	if (v6) {
		p = fr_push(f, 40);
		p[0] = 0x60;
		be16_put(p + 4, 20 + plen);
		p[6] = IPPROTO_TCP;
		p[7] = ttl;
		p[8] = 0xfd;
		p[23] = 1;
		p[24] = 0xfd;
		p[39] = 2;
	} else {
		p = fr_push(f, 20);
		p[0] = 0x45;
		be16_put(p + 2, 40 + plen);
		p[8] = ttl;
		p[9] = IPPROTO_TCP;
		be16_put(p + 10, 0x1111u * ttl);
		p[12] = 10;
		p[13] = 1;
		p[15] = 1;
		p[16] = 10;
		p[17] = 2;
		p[19] = 2;
	}
}

/* An outer IP header (source varied by salt) for what is in the frame. */
static void fr_ip(struct pd_dt_frame *f, bool v6, u8 proto, u8 salt)
{
	u32 len = fr_len(f);
	u8 *p;

	if (v6) {
		p = fr_push(f, 40);
		p[0] = 0x60;
		be16_put(p + 4, len);
		p[6] = proto;
		p[7] = 64;
		p[8] = 0x20;
		p[9] = 0x01;
		p[23] = salt;
		p[24] = 0x20;
		p[25] = 0x01;
		p[39] = 0xee;
	} else {
		p = fr_push(f, 20);
		p[0] = 0x45;
		be16_put(p + 2, len + 20);
		p[8] = 64;
		p[9] = proto;
		p[12] = 172;
		p[13] = 16;
		p[15] = salt;
		p[16] = 172;
		p[17] = 16;
		p[19] = 0xee;
	}
}

/* A UDP header to dport (source port varied by salt) and the outer IP. */
static void fr_udp(struct pd_dt_frame *f, bool v6, u16 dport, u8 salt)
{
	u32 len = fr_len(f) + 8;
	u8 *p = fr_push(f, 8);

	be16_put(p, 50000u + salt);
	be16_put(p + 2, dport);
	be16_put(p + 4, len);
	fr_ip(f, v6, IPPROTO_UDP, salt);
}

/* An Ethernet header (and a VLAN tag if vid) for what is in the frame. */
static void fr_eth(struct pd_dt_frame *f, u16 vid, u16 type)
{
	u8 *p;

	if (vid) {
		p = fr_push(f, 4);
		be16_put(p, vid);
		be16_put(p + 2, type);
		type = 0x8100;
	}
	p = fr_push(f, 14);
	memset(p, 0x02, 12);
	be16_put(p + 12, type);
}

static u16 fr_ether_type(const struct pd_dt_frame *f)
{
	return fr_data(f)[0] >> 4 == 6 ? 0x86dd : 0x0800;
}

static void fr_vxlan(struct pd_dt_frame *f, u32 vni, u8 salt)
{
	u8 *p;

	fr_eth(f, 0, fr_ether_type(f));
	p = fr_push(f, 8);
	p[0] = 0x08;
	be32_put(p + 4, vni << 8);
	fr_udp(f, false, PD_VXLAN_PORT, salt);
}

/* GENEVE with optw words of options over Ethernet (eth) or bare IP. */
static void fr_geneve(struct pd_dt_frame *f, u32 vni, u8 optw, bool eth,
		      u8 salt)
{
	u16 type = fr_ether_type(f);
	u8 *p;
	u32 i;

	if (eth) {
		fr_eth(f, 0, type);
		type = 0x6558;
	}
	p = fr_push(f, 8 + optw * 4u);
	p[0] = optw;
	be16_put(p + 2, type);
	be32_put(p + 4, vni << 8);
	for (i = 0; i < optw; i++)	/* class 0x0102, type 3, length 0 */
		be32_put(p + 8 + i * 4, 0x01020300);
	fr_udp(f, true, PD_GENEVE_PORT, salt);
}

/* GRE with the flags given (checksum, key, sequence) and protocol. */
static void fr_gre(struct pd_dt_frame *f, u16 flags, u16 proto, u32 key,
		   bool v6, u8 salt)
{
	u32 n = 4 + (flags & 0x8000 ? 4 : 0) + (flags & 0x2000 ? 4 : 0) +
		(flags & 0x1000 ? 4 : 0);
	u8 *p = fr_push(f, n);

	be16_put(p, flags);
	be16_put(p + 2, proto);
	if (flags & 0x2000)
		be32_put(p + 4 + (flags & 0x8000 ? 4 : 0), key);
	if (flags & 0x1000)
		be32_put(p + n - 4, 77);
	fr_ip(f, v6, IPPROTO_GRE, salt);
}

/* ERSPAN II (ver 1) of session, over Ethernet, in GRE with a sequence. */
static void fr_erspan2(struct pd_dt_frame *f, u16 session, u8 ver, u8 salt)
{
	u8 *p;

	fr_eth(f, 0, fr_ether_type(f));
	p = fr_push(f, 8);
	p[0] = (u8)(ver << 4);
	p[2] = (u8)(session >> 8 & 3);
	p[3] = (u8)session;
	fr_gre(f, 0x1000, 0x88be, 0, false, salt);
}

/* ERSPAN III of session: frame type ft, platform subheader if sub. */
static void fr_erspan3(struct pd_dt_frame *f, u16 session, u8 ft, bool sub,
		       u8 salt)
{
	u8 *p;

	if (ft == 0)
		fr_eth(f, 0, fr_ether_type(f));
	if (sub)
		memset(fr_push(f, 8), 0x5a, 8);
	p = fr_push(f, 12);
	p[0] = 2 << 4;
	p[2] = (u8)(session >> 8 & 3);
	p[3] = (u8)session;
	be32_put(p + 4, 0xabcdef);		/* timestamp */
	p[10] = (u8)(ft << 2);
	p[11] = sub ? 1 : 0;
	fr_gre(f, 0x1000, 0x22eb, 0, false, salt);
}

/* GTP-U of teid, message type, with next extension headers of nwords. */
static void fr_gtpu(struct pd_dt_frame *f, u32 teid, u8 type, u32 next,
		    const u8 *nwords, u8 salt)
{
	u32 n;
	u8 *p;
	int i;

	for (i = (int)next - 1; i >= 0; i--) {
		n = nwords[i] ? nwords[i] * 4u : 4;
		p = fr_push(f, n);
		p[0] = nwords[i];
		p[n - 1] = i + 1 < (int)next ? 0x85 : 0;
	}
	if (next) {
		p = fr_push(f, 4);
		p[3] = 0x85;		/* PDU session container */
	}
	p = fr_push(f, 8);
	p[0] = 0x30 | (next ? 0x04 : 0);	/* version 1, PT 1, E */
	p[1] = type;
	be16_put(p + 2, fr_len(f) - 8);
	be32_put(p + 4, teid);
	fr_udp(f, false, PD_GTPU_PORT, salt);
}

static const struct pd_key_opts pd_dt_all = {
	.mode = PKTDEDUP_KEY_PACKET, .payload = 64, .decap = PD_DECAP_ALL,
	.vxlan_port = PD_VXLAN_PORT, .geneve_port = PD_GENEVE_PORT,
	.gtpu_port = PD_GTPU_PORT,
};

/* The key hash of data[0, len) for o (mode set), and the parse in *pkt. */
static enum pd_parse_result dt_key(const u8 *data, u32 len,
				   const struct pd_key_opts *o,
				   struct pd_pkt *pkt, u64 *h)
{
	struct pd_key_opts ko = *o;
	struct pd_key key;
	enum pd_parse_result r;

	ko.nh = ko.nh ?: pd_kt_nh();
	r = pd_parse_key(data, PD_MIN(len, pd_key_look(&ko)), &ko, pkt, false);
	if (r == PD_PARSE_OK)
		r = pd_key_of(pkt, &ko, &key);
	*h = r == PD_PARSE_OK ? pd_key_hash64(&key, &pd_dt_hkey) : 0;
	return r;
}

/* Every key mode of f equals the bare packet's (b) with o; encaps seen. */
static void dt_same(struct kunit *test, const struct pd_dt_frame *b,
		    const struct pd_dt_frame *f, const struct pd_key_opts *o,
		    u8 encaps, u8 depth)
{
	struct pd_key_opts m = *o;
	struct pd_pkt pkt;
	u64 hb, hf;

	for (m.mode = 0; m.mode < PD_KEY_NMODES; m.mode++) {
		KUNIT_ASSERT_EQ(test, (int)dt_key(fr_data(b), fr_len(b), &m,
						  &pkt, &hb), PD_PARSE_OK);
		KUNIT_ASSERT_EQ(test, (int)pkt.encaps, 0);
		KUNIT_ASSERT_EQ(test, (int)dt_key(fr_data(f), fr_len(f), &m,
						  &pkt, &hf), PD_PARSE_OK);
		KUNIT_EXPECT_EQ(test, hf, hb);
		KUNIT_EXPECT_EQ(test, (int)pkt.encaps, (int)encaps);
		KUNIT_EXPECT_EQ(test, (int)pkt.depth, (int)depth);
		KUNIT_EXPECT_EQ(test, (int)pkt.bad_encap, 0);
	}
}

/* The failure of f with o, and the encapsulation blamed. */
static void dt_fails(struct kunit *test, const struct pd_dt_frame *f,
		     const struct pd_key_opts *o, enum pd_parse_result want,
		     u8 blamed)
{
	struct pd_pkt pkt;
	u64 h;

	KUNIT_EXPECT_EQ(test, (int)dt_key(fr_data(f), fr_len(f), o, &pkt, &h),
			(int)want);
	KUNIT_EXPECT_EQ(test, (int)pkt.bad_encap, (int)blamed);
	KUNIT_EXPECT_EQ(test, (int)pkt.family, 0);
}

/* The key of f with o is its outer packet's: nothing looked into. */
static void dt_outer(struct kunit *test, const struct pd_dt_frame *f,
		     const struct pd_key_opts *o)
{
	struct pd_key_opts none = *o;
	struct pd_pkt pkt;
	u64 h, hn;

	none.decap = 0;
	KUNIT_ASSERT_EQ(test, (int)dt_key(fr_data(f), fr_len(f), o, &pkt, &h),
			PD_PARSE_OK);
	KUNIT_EXPECT_EQ(test, (int)pkt.encaps, 0);
	KUNIT_ASSERT_EQ(test, (int)dt_key(fr_data(f), fr_len(f), &none, &pkt,
					  &hn), PD_PARSE_OK);
	KUNIT_EXPECT_EQ(test, h, hn);
}

/*
 * Each encapsulation, over IPv4 and IPv6 inner packets: every key mode is
 * the bare packet's (whose TTL differs: it was mirrored elsewhere), and
 * without decap (or with only the others) the packet key is not.
 */
static void pd_decap_each(struct kunit *test)
{
	static const u8 ext[] = { 1, 2 };
	struct pd_dt_frame *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct pd_dt_frame *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct pd_key_opts o = pd_dt_all;

	o.nh = pd_kt_nh();
	unsigned int v6, c;
	u8 kind = 0;

	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, f);
	for (v6 = 0; v6 < 2; v6++)
		for (c = 0; c < 14; c++) {
			fr_inner(b, v6, 100, 64);
			fr_inner(f, v6, 100, 61);
			switch (c) {
			case 0:
				fr_vxlan(f, 42, 1);
				kind = PKTDEDUP_DECAP_VXLAN;
				break;
			case 1:
				fr_geneve(f, 7, 0, true, 1);
				kind = PKTDEDUP_DECAP_GENEVE;
				break;
			case 2:
				fr_geneve(f, 7, 6, false, 1);
				kind = PKTDEDUP_DECAP_GENEVE;
				break;
			case 3:	/* IP in GRE, every optional field */
				fr_gre(f, 0xb000, fr_ether_type(f), 99, false,
				       1);
				kind = PKTDEDUP_DECAP_GRE;
				break;
			case 4:	/* gretap over IPv6, a VLAN tag inside */
				fr_eth(f, 12, fr_ether_type(f));
				fr_gre(f, 0x2000, 0x6558, 5, true, 1);
				kind = PKTDEDUP_DECAP_GRE;
				break;
			case 5:	/* IP over MPLS in GRE */
				be32_put(fr_push(f, 4), 16u << 12 | 1u << 8 | 64);
				fr_gre(f, 0, 0x8847, 0, false, 1);
				kind = PKTDEDUP_DECAP_GRE;
				break;
			case 6:	/* ERSPAN type I: no sequence, no header */
				fr_eth(f, 0, fr_ether_type(f));
				fr_gre(f, 0, 0x88be, 0, false, 1);
				kind = PKTDEDUP_DECAP_ERSPAN;
				break;
			case 7:
				fr_erspan2(f, 300, 1, 1);
				kind = PKTDEDUP_DECAP_ERSPAN;
				break;
			case 8:
				fr_erspan3(f, 300, 0, false, 1);
				kind = PKTDEDUP_DECAP_ERSPAN;
				break;
			case 9:
				fr_erspan3(f, 300, 0, true, 1);
				kind = PKTDEDUP_DECAP_ERSPAN;
				break;
			case 10:	/* frame type IP */
				fr_erspan3(f, 300, 2, true, 1);
				kind = PKTDEDUP_DECAP_ERSPAN;
				break;
			case 11:
				fr_gtpu(f, 0x1234567, 255, 0, NULL, 1);
				kind = PKTDEDUP_DECAP_GTPU;
				break;
			case 12:
				fr_gtpu(f, 0x1234567, 255, 2, ext, 1);
				kind = PKTDEDUP_DECAP_GTPU;
				break;
			case 13:	/* IPIP, SIT, IP6-in-IP6, IPv4-in-IPv6 */
				fr_ip(f, !v6, v6 ? IPPROTO_IPV6 : IPPROTO_IPIP,
				      1);
				kind = PKTDEDUP_DECAP_IP;
				break;
			}
			o.decap = PD_DECAP_ALL;
			dt_same(test, b, f, &o, kind, 1);
			o.decap = kind;
			dt_same(test, b, f, &o, kind, 1);
			/* the others only: keyed as it is */
			o.decap = PD_DECAP_ALL & ~kind;
			dt_outer(test, f, &o);
		}
}

/* The key of f with o (mode packet). */
static u64 dt_hash(struct kunit *test, const struct pd_dt_frame *f,
		   const struct pd_key_opts *o)
{
	struct pd_pkt pkt;
	u64 h;

	KUNIT_EXPECT_EQ(test, (int)dt_key(fr_data(f), fr_len(f), o, &pkt, &h),
			PD_PARSE_OK);
	return h;
}

/*
 * tunnel-id include: copies through one session (VNI, key, ERSPAN
 * session, TEID) from two mirrors (outer sources and ports differ) have
 * one key; through two sessions, or bare, two.
 */
static void pd_decap_tunnel_id(struct kunit *test)
{
	struct pd_dt_frame *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct pd_key_opts o = pd_dt_all;

	o.nh = pd_kt_nh();
	u64 same[2], other = 0, bare, plain;
	unsigned int c, m;

	KUNIT_ASSERT_NOT_NULL(test, f);
	o.flags = PKTDEDUP_KEY_F_TUNNEL_ID;
	for (c = 0; c < 5; c++) {
		for (m = 0; m < 3; m++) {
			u32 id = m == 2 ? 43 : 42;

			fr_inner(f, false, 50, 64);
			if (c == 0)
				fr_vxlan(f, id, (u8)(m + 1));
			else if (c == 1)
				fr_geneve(f, id, 1, true, (u8)(m + 1));
			else if (c == 2)
				fr_gre(f, 0x2000, 0x0800, id, false,
				       (u8)(m + 1));
			else if (c == 3)
				fr_erspan2(f, (u16)id, 1, (u8)(m + 1));
			else
				fr_gtpu(f, id, 255, 0, NULL, (u8)(m + 1));
			if (m < 2)
				same[m] = dt_hash(test, f, &o);
			else
				other = dt_hash(test, f, &o);
		}
		fr_inner(f, false, 50, 64);
		bare = dt_hash(test, f, &o);
		KUNIT_EXPECT_EQ(test, same[0], same[1]);
		KUNIT_EXPECT_NE(test, same[0], other);
		KUNIT_EXPECT_NE(test, same[0], bare);
		/* and ignored: one key for all */
		o.flags = 0;
		plain = dt_hash(test, f, &o);
		fr_vxlan(f, 43, 9);
		KUNIT_EXPECT_EQ(test, dt_hash(test, f, &o), plain);
		o.flags = PKTDEDUP_KEY_F_TUNNEL_ID;
	}
	/* the same number in two kinds: two identities */
	fr_inner(f, false, 50, 64);
	fr_vxlan(f, 42, 1);
	same[0] = dt_hash(test, f, &o);
	fr_inner(f, false, 50, 64);
	fr_gre(f, 0x2000, 0x0800, 42, false, 1);
	KUNIT_EXPECT_NE(test, dt_hash(test, f, &o), same[0]);
}

/*
 * Nested: VXLAN in GRE over IPv6, GENEVE in IPIP in ERSPAN; four levels
 * are crossed, a fifth is too deep; tunnel headers past decap-room are
 * too long.
 */
static void pd_decap_nested(struct kunit *test)
{
	struct pd_dt_frame *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct pd_dt_frame *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	unsigned int n;

	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, f);
	fr_inner(b, false, 200, 64);
	fr_inner(f, false, 200, 1);
	fr_vxlan(f, 1, 1);
	fr_gre(f, 0, 0x0800, 0, true, 2);
	dt_same(test, b, f, &pd_dt_all,
		PKTDEDUP_DECAP_VXLAN | PKTDEDUP_DECAP_GRE, 2);

	fr_inner(f, false, 200, 1);
	fr_geneve(f, 3, 2, false, 1);
	fr_ip(f, false, IPPROTO_IPV6, 2);	/* IPv6 in IPv4 (SIT) */
	fr_erspan2(f, 5, 1, 3);
	dt_same(test, b, f, &pd_dt_all, PKTDEDUP_DECAP_GENEVE |
		PKTDEDUP_DECAP_IP | PKTDEDUP_DECAP_ERSPAN, 3);

	for (n = 1; n <= PKTDEDUP_DECAP_DEPTH + 1; n++) {
		unsigned int i;

		fr_inner(f, false, 200, 1);
		for (i = 0; i < n; i++)
			fr_ip(f, false, IPPROTO_IPIP, (u8)i);
		if (n <= PKTDEDUP_DECAP_DEPTH)
			dt_same(test, b, f, &pd_dt_all, PKTDEDUP_DECAP_IP,
				(u8)n);
		else
			dt_fails(test, f, &pd_dt_all, PD_PARSE_DECAP_LIMIT,
				 PKTDEDUP_DECAP_IP);
	}
	/* GENEVE over IPv6: 40 + 8 + 8 + 4 * 51 + 14 = 274 bytes */
	fr_inner(f, false, 200, 1);
	fr_geneve(f, 3, 51, true, 1);
	dt_fails(test, f, &pd_dt_all, PD_PARSE_DECAP_LIMIT,
		 PKTDEDUP_DECAP_GENEVE);
	fr_inner(f, false, 200, 1);
	fr_geneve(f, 3, 46, true, 1);	/* 40 + 8 + 8 + 184 + 14 = 254 */
	dt_same(test, b, f, &pd_dt_all, PKTDEDUP_DECAP_GENEVE, 1);
}

/*
 * The inner packet's key covers what its bare key covers, whatever the
 * tunnel's headers take: the largest payload hashed, a long tunnel.
 */
static void pd_decap_long_payload(struct kunit *test)
{
	struct pd_dt_frame *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct pd_dt_frame *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct pd_key_opts o = pd_dt_all;

	o.nh = pd_kt_nh();

	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, f);
	o.payload = PD_KEY_MAX_PAYLOAD;
	fr_inner(b, true, 1400, 64);
	fr_inner(f, true, 1400, 3);
	fr_geneve(f, 3, 40, true, 1);
	dt_same(test, b, f, &o, PKTDEDUP_DECAP_GENEVE, 1);
	/* the last payload byte is in the key */
	f->buf[sizeof(f->buf) - 1] ^= 1;
	KUNIT_EXPECT_NE(test, dt_hash(test, f, &o), dt_hash(test, b, &o));
}

/*
 * Headers that say something else than a tunnel's, or contradict
 * themselves: counted against their encapsulation, or keyed as they are.
 */
static void pd_decap_bad_headers(struct kunit *test)
{
	static const u8 zero_ext[] = { 0 }, many[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	struct pd_dt_frame *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct pd_key_opts o = pd_dt_all;

	o.nh = pd_kt_nh();
	struct pd_pkt pkt;
	u8 *p;
	u64 h;

	KUNIT_ASSERT_NOT_NULL(test, f);
	/* VXLAN without its I flag */
	fr_inner(f, false, 40, 1);
	fr_vxlan(f, 1, 1);
	f->buf[f->at + 28] = 0;
	dt_fails(test, f, &o, PD_PARSE_BAD_HEADER, PKTDEDUP_DECAP_VXLAN);
	/* GENEVE version 1 */
	fr_inner(f, false, 40, 1);
	fr_geneve(f, 1, 0, true, 1);
	f->buf[f->at + 48] |= 0x40;
	dt_fails(test, f, &o, PD_PARSE_BAD_HEADER, PKTDEDUP_DECAP_GENEVE);
	/* GENEVE options past the end */
	fr_inner(f, false, 0, 1);
	fr_geneve(f, 1, 0, false, 1);
	f->buf[f->at + 48] = 63;
	dt_fails(test, f, &o, PD_PARSE_TRUNCATED, PKTDEDUP_DECAP_GENEVE);
	/* GRE routing present, strict source route, recursion */
	fr_inner(f, false, 40, 1);
	fr_gre(f, 0x4000, 0x0800, 0, false, 1);
	dt_fails(test, f, &o, PD_PARSE_BAD_HEADER, PKTDEDUP_DECAP_GRE);
	fr_inner(f, false, 40, 1);
	fr_gre(f, 0x0100, 0x0800, 0, false, 1);
	dt_fails(test, f, &o, PD_PARSE_BAD_HEADER, PKTDEDUP_DECAP_GRE);
	/* GRE versions 2-7 are no GRE's */
	fr_inner(f, false, 40, 1);
	fr_gre(f, 0x0002, 0x0800, 0, false, 1);
	dt_fails(test, f, &o, PD_PARSE_BAD_HEADER, PKTDEDUP_DECAP_GRE);
	/* GRE version 1 (PPTP): not looked into */
	fr_inner(f, false, 40, 1);
	fr_gre(f, 0x0001, 0x880b, 0, false, 1);
	dt_outer(test, f, &o);
	/* a protocol GRE does not carry IP in: not IP */
	fr_inner(f, false, 40, 1);
	fr_gre(f, 0, 0x0806, 0, false, 1);
	KUNIT_EXPECT_EQ(test, (int)dt_key(fr_data(f), fr_len(f), &o, &pkt, &h),
			PD_PARSE_NOT_IP);
	KUNIT_EXPECT_EQ(test, (int)pkt.encaps, PKTDEDUP_DECAP_GRE);
	KUNIT_EXPECT_EQ(test, (int)pkt.bad_encap, 0);
	/* ARP in VXLAN: not IP either */
	fr_inner(f, false, 40, 1);
	fr_vxlan(f, 1, 1);
	be16_put(f->buf + f->at + 20 + 8 + 8 + 12, 0x0806);
	KUNIT_EXPECT_EQ(test, (int)dt_key(fr_data(f), fr_len(f), &o, &pkt, &h),
			PD_PARSE_NOT_IP);
	/* ERSPAN II and III of the wrong version */
	fr_inner(f, false, 40, 1);
	fr_erspan2(f, 1, 2, 1);
	dt_fails(test, f, &o, PD_PARSE_BAD_HEADER, PKTDEDUP_DECAP_ERSPAN);
	fr_inner(f, false, 40, 1);
	fr_erspan3(f, 1, 0, false, 1);
	f->buf[f->at + 28] = 1 << 4;
	dt_fails(test, f, &o, PD_PARSE_BAD_HEADER, PKTDEDUP_DECAP_ERSPAN);
	/* ERSPAN III of a frame type neither Ethernet nor IP */
	fr_inner(f, false, 40, 1);
	fr_erspan3(f, 1, 0, false, 1);
	f->buf[f->at + 28 + 10] = 5 << 2;
	KUNIT_EXPECT_EQ(test, (int)dt_key(fr_data(f), fr_len(f), &o, &pkt, &h),
			PD_PARSE_NOT_IP);
	/* GTP-U: an extension header of length 0; too many; GTP' */
	fr_inner(f, false, 40, 1);
	fr_gtpu(f, 1, 255, 1, zero_ext, 1);
	dt_fails(test, f, &o, PD_PARSE_BAD_HEADER, PKTDEDUP_DECAP_GTPU);
	fr_inner(f, false, 40, 1);
	fr_gtpu(f, 1, 255, 9, many, 1);
	dt_fails(test, f, &o, PD_PARSE_DECAP_LIMIT, PKTDEDUP_DECAP_GTPU);
	fr_inner(f, false, 40, 1);
	fr_gtpu(f, 1, 255, 0, NULL, 1);
	f->buf[f->at + 28] &= (u8)~0x10;
	dt_fails(test, f, &o, PD_PARSE_BAD_HEADER, PKTDEDUP_DECAP_GTPU);
	/* GTP-U echo request: no user packet, keyed as it is */
	fr_inner(f, false, 40, 1);
	fr_gtpu(f, 1, 1, 0, NULL, 1);
	dt_outer(test, f, &o);
	/* IPIP whose inner header is IPv6 */
	fr_inner(f, true, 40, 1);
	fr_ip(f, false, IPPROTO_IPIP, 1);
	dt_fails(test, f, &o, PD_PARSE_BAD_HEADER, PKTDEDUP_DECAP_IP);
	/* a fragment of a tunnel packet is keyed as it is */
	fr_inner(f, false, 40, 1);
	fr_vxlan(f, 1, 1);
	be16_put(f->buf + f->at + 6, 0x2000);		/* MF */
	dt_outer(test, f, &o);
	/* VXLAN on another port: only where it is configured */
	fr_inner(f, false, 40, 1);
	fr_vxlan(f, 1, 1);
	be16_put(f->buf + f->at + 22, 8472);
	dt_outer(test, f, &o);
	o.vxlan_port = 8472;
	KUNIT_EXPECT_EQ(test, (int)dt_key(fr_data(f), fr_len(f), &o, &pkt, &h),
			PD_PARSE_OK);
	KUNIT_EXPECT_EQ(test, (int)pkt.encaps, PKTDEDUP_DECAP_VXLAN);
	/*
	 * A packet ends where the one carrying it does: VXLAN in IPIP whose
	 * outer length ends inside the VXLAN header (the rest of the frame
	 * is trailing bytes, not the tunnel's)
	 */
	o.vxlan_port = PD_VXLAN_PORT;
	fr_inner(f, false, 40, 1);
	fr_vxlan(f, 1, 1);
	fr_ip(f, false, IPPROTO_IPIP, 2);
	be16_put(f->buf + f->at + 2, 20 + 30);
	dt_fails(test, f, &o, PD_PARSE_TRUNCATED, PKTDEDUP_DECAP_VXLAN);
	/* an inner packet whose length says more than the tunnel holds */
	fr_inner(f, false, 40, 1);
	p = f->buf + f->at;
	be16_put(p + 2, 200);
	fr_vxlan(f, 1, 1);
	o.vxlan_port = PD_VXLAN_PORT;
	KUNIT_EXPECT_EQ(test, (int)dt_key(fr_data(f), fr_len(f), &o, &pkt, &h),
			PD_PARSE_OK);
}

/*
 * Every prefix of tunnelled packets, in a buffer of exactly its length:
 * as a packet that ends there (its IP lengths say more), nothing is read
 * outside it and a failure inside a tunnel's header blames it; as a
 * capture cut there, a prefix that holds the bytes the inner key covers
 * has the whole packet's key.
 */
static void pd_decap_prefixes(struct kunit *test)
{
	/* where each case's tunnel header begins: past the outer L4 one */
	static const u32 past[] = { 28, 48, 20, 24, 28, 24 };
	static const u8 ext[] = { 1 };
	struct pd_dt_frame *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct pd_key_opts o = pd_dt_all;

	o.nh = pd_kt_nh();
	unsigned int c;

	KUNIT_ASSERT_NOT_NULL(test, f);
	o.payload = 16;
	for (c = 0; c < 7; c++) {
		u32 len, flen, hdrs, need;
		u64 whole, h;
		u8 kind;

		fr_inner(f, c & 1, 40, 1);
		hdrs = fr_len(f);
		switch (c) {
		case 0:
			fr_vxlan(f, 1, 1);
			kind = PKTDEDUP_DECAP_VXLAN;
			break;
		case 1:
			fr_geneve(f, 1, 3, true, 1);
			kind = PKTDEDUP_DECAP_GENEVE;
			break;
		case 2:
			fr_gre(f, 0xb000, 0x0800, 1, false, 1);
			kind = PKTDEDUP_DECAP_GRE;
			break;
		case 3:
			fr_erspan3(f, 1, 0, true, 1);
			kind = PKTDEDUP_DECAP_ERSPAN;
			break;
		case 4:
			fr_gtpu(f, 1, 255, 1, ext, 1);
			kind = PKTDEDUP_DECAP_GTPU;
			break;
		case 5:
			fr_erspan2(f, 1, 1, 1);
			kind = PKTDEDUP_DECAP_ERSPAN;
			break;
		default:
			fr_vxlan(f, 1, 1);
			fr_gre(f, 0x2000, 0x0800, 1, true, 2);
			kind = PKTDEDUP_DECAP_GRE;
			break;
		}
		flen = fr_len(f);
		hdrs = flen - hdrs;	/* tunnel headers before the inner IP */
		/* what the inner key covers: its headers, 16 bytes of payload */
		need = hdrs + (c & 1 ? 40 : 20) + 20 + 16;
		whole = dt_hash(test, f, &o);
		for (len = 0; len <= flen; len++) {
			u8 *p = kmalloc(len ? len : 1, GFP_KERNEL);
			struct pd_key key;
			struct pd_pkt pkt;
			enum pd_parse_result r;

			KUNIT_ASSERT_NOT_NULL(test, p);
			memcpy(p, fr_data(f), len);
			r = dt_key(p, len, &o, &pkt, &h);
			/* a tunnel's failure leaves no addresses to count */
			if (r != PD_PARSE_OK && pkt.bad_encap)
				KUNIT_EXPECT_EQ(test, (int)pkt.family, 0);
			/* inside the tunnel headers, past the outer L4 one */
			if (c < PD_ARRAY_SIZE(past) && len > past[c] &&
			    len <= hdrs) {
				KUNIT_EXPECT_EQ(test, (int)r,
						PD_PARSE_TRUNCATED);
				KUNIT_EXPECT_EQ(test, (int)pkt.bad_encap,
						(int)kind);
			}
			if (len == flen) {
				KUNIT_EXPECT_EQ(test, (int)r, PD_PARSE_OK);
				KUNIT_EXPECT_EQ(test, h, whole);
			}
			/* cut by a capture */
			r = pd_parse_key(p, PD_MIN(len, pd_key_look(&o)), &o,
					 &pkt, len < flen);
			if (r == PD_PARSE_OK)
				r = pd_key_of(&pkt, &o, &key);
			if (len >= need) {
				KUNIT_ASSERT_EQ(test, (int)r, PD_PARSE_OK);
				KUNIT_EXPECT_EQ(test,
						pd_key_hash64(&key, &pd_dt_hkey),
						whole);
			}
			kfree(p);
		}
	}
}

/* The lists users write (dedupctl set decap, decap=, dedup-sim --decap). */
static void pd_decap_lists(struct kunit *test)
{
	static const struct {
		const char *s;
		int want;	/* the flags, or -1: refused */
		u8 why, at, len;	/* refused: why, the name at fault */
	} c[] = {
		{ "none", 0, 0, 0, 0 }, { "all", PD_DECAP_ALL, 0, 0, 0 },
		{ "vxlan", PKTDEDUP_DECAP_VXLAN, 0, 0, 0 },
		{ "gre,erspan", PKTDEDUP_DECAP_GRE | PKTDEDUP_DECAP_ERSPAN, 0, 0, 0 },
		{ "ip,gtpu,geneve", PKTDEDUP_DECAP_IP | PKTDEDUP_DECAP_GTPU |
				    PKTDEDUP_DECAP_GENEVE, 0, 0, 0 },
		{ "vxlan,geneve,gre,erspan,gtpu,ip", PD_DECAP_ALL, 0, 0, 0 },
		{ "", -1, PD_DECAP_EMPTY, 0, 0 },
		{ "vxlan,", -1, PD_DECAP_EMPTY, 6, 0 },
		{ ",vxlan", -1, PD_DECAP_EMPTY, 0, 0 },
		{ "gre,,ip", -1, PD_DECAP_EMPTY, 4, 0 },
		{ "vxlan,vxlan", -1, PD_DECAP_TWICE, 6, 5 },
		{ "vxla", -1, PD_DECAP_BAD_NAME, 0, 4 },
		{ "gre,vxlanx", -1, PD_DECAP_BAD_NAME, 4, 6 },
		{ "VXLAN", -1, PD_DECAP_BAD_NAME, 0, 5 },
		{ "none,vxlan", -1, PD_DECAP_ALONE, 0, 4 },
		{ "gre,all", -1, PD_DECAP_ALONE, 4, 3 },
	};
	u16 port[PD_NUDP_TUNNELS] = { 4789, 4789, 2152 };
	unsigned int i, j;

	for (i = 0; i < PD_ARRAY_SIZE(c); i++) {
		struct pd_decap_bad bad = { 0 };
		u8 v = 0x80;
		int r = pd_decap_parse(c[i].s, &v, &bad);

		KUNIT_EXPECT_EQ_MSG(test, r, c[i].want < 0 ? -EINVAL : 0,
				    "%s", c[i].s);
		KUNIT_EXPECT_EQ_MSG(test, (int)v, c[i].want < 0 ? 0x80 :
				    c[i].want, "%s", c[i].s);
		if (c[i].want >= 0)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, bad.why, c[i].why, "%s", c[i].s);
		KUNIT_EXPECT_EQ_MSG(test, bad.at, c[i].at, "%s", c[i].s);
		KUNIT_EXPECT_EQ_MSG(test, bad.len, c[i].len, "%s", c[i].s);
	}
	/* two UDP tunnels on one port: only when both are looked into */
	KUNIT_EXPECT_FALSE(test, pd_decap_port_clash(PKTDEDUP_DECAP_VXLAN |
						     PKTDEDUP_DECAP_GTPU,
						     port, &i, &j));
	KUNIT_EXPECT_TRUE(test, pd_decap_port_clash(PD_DECAP_ALL, port, &i,
						    &j));
	KUNIT_EXPECT_EQ(test, i * 10 + j, 1u);
	port[1] = 2152;
	KUNIT_EXPECT_TRUE(test, pd_decap_port_clash(PKTDEDUP_DECAP_GENEVE |
						    PKTDEDUP_DECAP_GTPU,
						    port, &i, &j));
	KUNIT_EXPECT_EQ(test, i * 10 + j, 12u);
}

static struct kunit_case pd_decap_cases[] = {
	KUNIT_CASE(pd_decap_lists),
	KUNIT_CASE(pd_decap_each),
	KUNIT_CASE(pd_decap_tunnel_id),
	KUNIT_CASE(pd_decap_nested),
	KUNIT_CASE(pd_decap_long_payload),
	KUNIT_CASE(pd_decap_bad_headers),
	KUNIT_CASE(pd_decap_prefixes),
	{}
};

static struct kunit_suite pd_decap_suite = {
	.name = "pktdedup-decap",
	.test_cases = pd_decap_cases,
};

kunit_test_suite(pd_decap_suite);
