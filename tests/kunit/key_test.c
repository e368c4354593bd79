// SPDX-License-Identifier: GPL-2.0
/* KUnit tests of key extraction on hand-built IPv4/IPv6 packets. */
#include <kunit/test.h>

#include "../../module/core/decap.h"
#include "../../module/core/key.h"
#include "../../module/core/rng.h"
#include "nh_test.h"

/* the hash key of these tests */
static const struct pd_hkey pd_kt_hkey = { { 0x5eed, 0x5eed5eed } };

static const u8 src4[4] = { 10, 0, 0, 1 }, dst4[4] = { 192, 0, 2, 7 };
static const u8 src6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const u8 dst6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xff, [15] = 2 };

static void put16(u8 *p, u16 v)
{
	p[0] = (u8)(v >> 8);
	p[1] = (u8)v;
}

/* IPv4 header with ihl words (options zero-filled); returns its length. */
static u32 ip4(u8 *b, u32 ihl, u8 proto, u16 tot, u16 frag, u8 ttl, u8 tos)
{
	memset(b, 0, ihl * 4);
	b[0] = (u8)(0x40 | ihl);
	b[1] = tos;
	put16(b + 2, tot);
	put16(b + 4, 0x1234);
	put16(b + 6, frag);
	b[8] = ttl;
	b[9] = proto;
	put16(b + 10, (u16)(0xbeef + ttl));	/* any checksum */
	memcpy(b + 12, src4, 4);
	memcpy(b + 16, dst4, 4);
	return ihl * 4;
}

static u32 ip6(u8 *b, u8 nh, u16 plen, u8 hlim, u8 tclass)
{
	memset(b, 0, 40);
	b[0] = (u8)(0x60 | tclass >> 4);
	b[1] = (u8)(tclass << 4 | 0x1);	/* flow label 0x1abcd */
	put16(b + 2, 0xabcd);
	put16(b + 4, plen);
	b[6] = nh;
	b[7] = hlim;
	memcpy(b + 8, src6, 16);
	memcpy(b + 24, dst6, 16);
	return 40;
}

static u32 tcp(u8 *b, u16 sport, u16 dport, u32 doff)
{
	memset(b, 0, doff * 4);
	put16(b, sport);
	put16(b + 2, dport);
	b[12] = (u8)(doff << 4);
	return doff * 4;
}

static void payload(u8 *b, u32 n, u8 salt)
{
	u32 i;

	for (i = 0; i < n; i++)
		b[i] = (u8)(i * 7 + salt);
}

static u64 hash_of(struct kunit *test, const u8 *p, u32 len, u8 mode,
		   u8 flags, u16 n)
{
	struct pd_key_opts o = { .nh = pd_kt_nh(), .mode = mode, .flags = flags, .payload = n };
	struct pd_key key;

	KUNIT_EXPECT_EQ(test, (int)pd_key_extract(p, len, &o, &key), PD_PARSE_OK);
	return pd_key_hash64(&key, &pd_kt_hkey);
}

static u64 built(u8 mode, u8 fam, u8 proto, u16 sport, u16 dport)
{
	struct pd_key key;

	if (fam == PD_FAMILY_IPV4)
		pd_key_build(&key, mode, fam, src4, dst4, proto, sport, dport);
	else
		pd_key_build(&key, mode, fam, src6, dst6, proto, sport, dport);
	return pd_key_hash64(&key, &pd_kt_hkey);
}

/* A TCP/IPv4 packet: tot bytes, TTL and TOS given, payload salted. */
static u32 tcp4(u8 *b, u8 ttl, u8 tos, u8 salt, u32 plen)
{
	u32 tot = 20 + 20 + plen;
	u32 o = ip4(b, 5, IPPROTO_TCP, (u16)tot, 0, ttl, tos);

	o += tcp(b + o, 40000, 443, 5);
	payload(b + o, plen, salt);
	return tot;
}

static void pd_key_ipv4_fields(struct kunit *test)
{
	u8 b[200];
	u32 len = tcp4(b, 64, 0, 1, 100), m;

	KUNIT_EXPECT_EQ(test, hash_of(test, b, len, PKTDEDUP_KEY_SRC, 0, 0),
			built(PKTDEDUP_KEY_SRC, 4, 0, 0, 0));
	KUNIT_EXPECT_EQ(test, hash_of(test, b, len, PKTDEDUP_KEY_DST, 0, 0),
			built(PKTDEDUP_KEY_DST, 4, 0, 0, 0));
	KUNIT_EXPECT_EQ(test, hash_of(test, b, len, PKTDEDUP_KEY_PAIR, 0, 0),
			built(PKTDEDUP_KEY_PAIR, 4, 0, 0, 0));
	KUNIT_EXPECT_EQ(test, hash_of(test, b, len, PKTDEDUP_KEY_FLOW, 0, 0),
			built(PKTDEDUP_KEY_FLOW, 4, IPPROTO_TCP, 40000, 443));
	/* the modes give different keys for the same packet */
	for (m = 0; m < PD_KEY_NMODES; m++)
		KUNIT_EXPECT_NE(test, hash_of(test, b, len, (u8)m, 0, 64),
				hash_of(test, b, len, (u8)((m + 1) % PD_KEY_NMODES),
					0, 64));
}

/* Packet mode ignores TTL and checksum; TOS only on request; N bytes. */
static void pd_key_ipv4_packet_invariance(struct kunit *test)
{
	u8 a[300], b[300];
	u32 la = tcp4(a, 64, 0, 1, 200), lb;
	u64 h = hash_of(test, a, la, PKTDEDUP_KEY_PACKET, 0, 64);

	lb = tcp4(b, 61, 0, 1, 200);
	KUNIT_EXPECT_EQ(test, hash_of(test, b, lb, PKTDEDUP_KEY_PACKET, 0, 64), h);
	lb = tcp4(b, 64, 0x2e, 1, 200);
	KUNIT_EXPECT_NE(test, hash_of(test, b, lb, PKTDEDUP_KEY_PACKET, 0, 64), h);
	KUNIT_EXPECT_EQ(test, hash_of(test, b, lb, PKTDEDUP_KEY_PACKET,
				      PKTDEDUP_KEY_F_IGNORE_TOS, 64),
			hash_of(test, a, la, PKTDEDUP_KEY_PACKET, PKTDEDUP_KEY_F_IGNORE_TOS,
				64));
	/* a payload byte inside the first N counts, one after it does not */
	memcpy(b, a, la);
	b[40 + 63] ^= 0xff;
	KUNIT_EXPECT_NE(test, hash_of(test, b, la, PKTDEDUP_KEY_PACKET, 0, 64), h);
	memcpy(b, a, la);
	b[40 + 64] ^= 0xff;
	KUNIT_EXPECT_EQ(test, hash_of(test, b, la, PKTDEDUP_KEY_PACKET, 0, 64), h);
	/* the TCP header is always in */
	memcpy(b, a, la);
	b[20 + 4] ^= 1;		/* sequence number */
	KUNIT_EXPECT_NE(test, hash_of(test, b, la, PKTDEDUP_KEY_PACKET, 0, 0),
			hash_of(test, a, la, PKTDEDUP_KEY_PACKET, 0, 0));
	/* the IP ID is content: a retransmitted copy differs */
	memcpy(b, a, la);
	b[5] ^= 1;
	KUNIT_EXPECT_NE(test, hash_of(test, b, la, PKTDEDUP_KEY_PACKET, 0, 64), h);
	/* link-layer padding after the IP total length is not content */
	memcpy(b, a, la);
	memset(b + la, 0xaa, 20);
	KUNIT_EXPECT_EQ(test, hash_of(test, b, la + 20, PKTDEDUP_KEY_PACKET, 0, 1500),
			hash_of(test, a, la, PKTDEDUP_KEY_PACKET, 0, 1500));
}

static void pd_key_ipv4_options_udp_icmp(struct kunit *test)
{
	u8 b[100];
	u32 o;

	/* 8 bytes of options: ports are found after them */
	o = ip4(b, 7, IPPROTO_UDP, 28 + 8, 0, 64, 0);
	put16(b + o, 53);
	put16(b + o + 2, 5353);
	put16(b + o + 4, 8);
	KUNIT_EXPECT_EQ(test, hash_of(test, b, o + 8, PKTDEDUP_KEY_FLOW, 0, 0),
			built(PKTDEDUP_KEY_FLOW, 4, IPPROTO_UDP, 53, 5353));
	/* ICMP echo: the identifier stands in for the source port */
	o = ip4(b, 5, IPPROTO_ICMP, 28, 0, 64, 0);
	memset(b + o, 0, 8);
	b[o] = ICMP_ECHO;
	put16(b + o + 4, 0x4242);
	KUNIT_EXPECT_EQ(test, hash_of(test, b, o + 8, PKTDEDUP_KEY_FLOW, 0, 0),
			built(PKTDEDUP_KEY_FLOW, 4, IPPROTO_ICMP, 0x4242, 0));
	/* ICMP destination unreachable has no identifier */
	b[o] = ICMP_DEST_UNREACH;
	KUNIT_EXPECT_EQ(test, hash_of(test, b, o + 8, PKTDEDUP_KEY_FLOW, 0, 0),
			built(PKTDEDUP_KEY_FLOW, 4, IPPROTO_ICMP, 0, 0));
}

static void pd_key_ipv4_fragments(struct kunit *test)
{
	struct pd_key_opts o = { .nh = pd_kt_nh(), .mode = PKTDEDUP_KEY_PACKET, .payload = 64 };
	struct pd_key key;
	struct pd_pkt pkt;
	u8 b[100];
	u32 off, h;

	/* first fragment (MF, offset 0) carries the ports */
	off = ip4(b, 5, IPPROTO_TCP, 60, 0x2000, 64, 0);
	tcp(b + off, 1000, 2000, 5);
	KUNIT_EXPECT_EQ(test, hash_of(test, b, 60, PKTDEDUP_KEY_FLOW, 0, 0),
			built(PKTDEDUP_KEY_FLOW, 4, IPPROTO_TCP, 1000, 2000));
	/* a later fragment has no L4 header: ports are zero */
	off = ip4(b, 5, IPPROTO_TCP, 60, 0x2000 | 3, 64, 0);
	payload(b + off, 40, 9);
	KUNIT_EXPECT_EQ(test, (int)pd_parse(b, 60, &pkt), PD_PARSE_OK);
	KUNIT_EXPECT_TRUE(test, pkt.later_fragment);
	KUNIT_EXPECT_EQ(test, hash_of(test, b, 60, PKTDEDUP_KEY_FLOW, 0, 0),
			built(PKTDEDUP_KEY_FLOW, 4, IPPROTO_TCP, 0, 0));
	/* its packet key needs no L4 header: 4 bytes are not a TCP header */
	KUNIT_EXPECT_EQ(test, (int)pd_key_extract(b, 24, &o, &key), PD_PARSE_OK);
	KUNIT_EXPECT_EQ(test, key.tail_len, 4);
	/* two later fragments differing only in offset differ */
	h = hash_of(test, b, 60, PKTDEDUP_KEY_PACKET, 0, 64);
	put16(b + 6, 0x2000 | 8);
	KUNIT_EXPECT_NE(test, hash_of(test, b, 60, PKTDEDUP_KEY_PACKET, 0, 64), h);
}

static void pd_key_ipv6(struct kunit *test)
{
	u8 a[200], b[200];
	u32 o = ip6(a, IPPROTO_TCP, 20 + 50, 64, 0);
	u64 h;

	o += tcp(a + o, 5555, 80, 5);
	payload(a + o, 50, 3);
	o += 50;
	KUNIT_EXPECT_EQ(test, hash_of(test, a, o, PKTDEDUP_KEY_SRC, 0, 0),
			built(PKTDEDUP_KEY_SRC, 6, 0, 0, 0));
	KUNIT_EXPECT_EQ(test, hash_of(test, a, o, PKTDEDUP_KEY_PAIR, 0, 0),
			built(PKTDEDUP_KEY_PAIR, 6, 0, 0, 0));
	KUNIT_EXPECT_EQ(test, hash_of(test, a, o, PKTDEDUP_KEY_FLOW, 0, 0),
			built(PKTDEDUP_KEY_FLOW, 6, IPPROTO_TCP, 5555, 80));
	h = hash_of(test, a, o, PKTDEDUP_KEY_PACKET, 0, 64);
	memcpy(b, a, o);
	b[7] = 3;				/* hop limit */
	KUNIT_EXPECT_EQ(test, hash_of(test, b, o, PKTDEDUP_KEY_PACKET, 0, 64), h);
	ip6(b, IPPROTO_TCP, 20 + 50, 64, 0xb8);	/* traffic class */
	KUNIT_EXPECT_NE(test, hash_of(test, b, o, PKTDEDUP_KEY_PACKET, 0, 64), h);
	KUNIT_EXPECT_EQ(test, hash_of(test, b, o, PKTDEDUP_KEY_PACKET,
				      PKTDEDUP_KEY_F_IGNORE_TOS, 64),
			hash_of(test, a, o, PKTDEDUP_KEY_PACKET, PKTDEDUP_KEY_F_IGNORE_TOS, 64));
	/* the flow label is content */
	memcpy(b, a, o);
	b[3] ^= 1;
	KUNIT_EXPECT_NE(test, hash_of(test, b, o, PKTDEDUP_KEY_PACKET, 0, 64), h);
	/* an address family never aliases another */
	KUNIT_EXPECT_NE(test, built(PKTDEDUP_KEY_SRC, 6, 0, 0, 0),
			built(PKTDEDUP_KEY_SRC, 4, 0, 0, 0));
}

/* Hop-by-hop, destination options and fragment headers are walked. */
static void pd_key_ipv6_ext_headers(struct kunit *test)
{
	u8 b[200];
	u32 o = ip6(b, IPPROTO_HOPOPTS, 16 + 8 + 8 + 8, 64, 0);
	struct pd_pkt pkt;

	memset(b + o, 0, 16);			/* hop-by-hop, 16 bytes */
	b[o] = IPPROTO_DSTOPTS;
	b[o + 1] = 1;
	o += 16;
	memset(b + o, 0, 8);			/* destination options */
	b[o] = IPPROTO_FRAGMENT;
	o += 8;
	memset(b + o, 0, 8);			/* fragment, offset 0, M */
	b[o] = IPPROTO_UDP;
	b[o + 3] = 1;
	o += 8;
	put16(b + o, 123);			/* UDP */
	put16(b + o + 2, 456);
	put16(b + o + 4, 8);
	put16(b + o + 6, 0);
	o += 8;
	KUNIT_ASSERT_EQ(test, (int)pd_parse(b, o, &pkt), PD_PARSE_OK);
	KUNIT_EXPECT_EQ(test, pkt.proto, IPPROTO_UDP);
	KUNIT_EXPECT_EQ(test, pkt.l4off, 72u);
	KUNIT_EXPECT_FALSE(test, pkt.later_fragment);
	KUNIT_EXPECT_EQ(test, hash_of(test, b, o, PKTDEDUP_KEY_FLOW, 0, 0),
			built(PKTDEDUP_KEY_FLOW, 6, IPPROTO_UDP, 123, 456));
	/* a later fragment: the walk stops, no ports */
	put16(b + 64 + 2, 185 << 3);
	KUNIT_ASSERT_EQ(test, (int)pd_parse(b, o, &pkt), PD_PARSE_OK);
	KUNIT_EXPECT_TRUE(test, pkt.later_fragment);
	KUNIT_EXPECT_EQ(test, hash_of(test, b, o, PKTDEDUP_KEY_FLOW, 0, 0),
			built(PKTDEDUP_KEY_FLOW, 6, IPPROTO_UDP, 0, 0));
}

/*
 * An extension chain that does not lead to L4 (fails with want) fails the
 * keys that need L4, not those that need only the addresses.
 */
static void ext_keys(struct kunit *test, const u8 *b, u32 len,
		     enum pd_parse_result want)
{
	u8 mode;

	for (mode = 0; mode < PD_KEY_NMODES; mode++) {
		struct pd_key_opts o = { .nh = pd_kt_nh(), .mode = mode, .payload = 64 };
		struct pd_key key;
		bool l4 = mode == PKTDEDUP_KEY_PACKET || mode == PKTDEDUP_KEY_FLOW;

		KUNIT_EXPECT_EQ(test, (int)pd_key_extract(b, len, &o, &key),
				(int)(l4 ? want : PD_PARSE_OK));
	}
}

static void pd_key_ipv6_ext_limit(struct kunit *test)
{
	u8 b[40 + 8 * (PD_IPV6_MAX_EXT + 1) + 8];
	u32 o = ip6(b, IPPROTO_DSTOPTS, 8 * (PD_IPV6_MAX_EXT + 1) + 8, 64, 0);
	u32 i;
	struct pd_pkt pkt;

	for (i = 0; i <= PD_IPV6_MAX_EXT; i++, o += 8) {
		memset(b + o, 0, 8);
		b[o] = i == PD_IPV6_MAX_EXT ? IPPROTO_UDP : IPPROTO_DSTOPTS;
	}
	memset(b + o, 0, 8);
	o += 8;
	KUNIT_EXPECT_EQ(test, (int)pd_parse(b, o, &pkt), PD_PARSE_OK);
	KUNIT_EXPECT_EQ(test, (int)pkt.l4_err, PD_PARSE_EXT_LIMIT);
	ext_keys(test, b, o, PD_PARSE_EXT_LIMIT);
	/* a header's length past the packet: the same */
	b[40 + 1] = 200;
	ext_keys(test, b, o, PD_PARSE_TRUNCATED);
	b[40 + 1] = 0;
	/* one fewer header is within the bound */
	b[6] = IPPROTO_UDP;
	memmove(b + 40, b + 48, o - 48);
	put16(b + 4, (u16)(o - 48));
	b[40 + 8 * (PD_IPV6_MAX_EXT - 1)] = IPPROTO_UDP;
	KUNIT_EXPECT_EQ(test, (int)pd_parse(b, o - 8, &pkt), PD_PARSE_OK);
}

static void pd_key_malformed(struct kunit *test)
{
	struct pd_key_opts o = { .nh = pd_kt_nh(), .mode = PKTDEDUP_KEY_PACKET, .payload = 64 };
	struct pd_key key;
	u8 b[100];
	u32 len;

	memset(b, 0, sizeof(b));
	KUNIT_EXPECT_EQ(test, (int)pd_key_extract(b, 0, &o, &key), PD_PARSE_TRUNCATED);
	b[0] = 0x50;
	KUNIT_EXPECT_EQ(test, (int)pd_key_extract(b, 40, &o, &key),
			PD_PARSE_BAD_VERSION);
	ip4(b, 5, IPPROTO_TCP, 40, 0, 64, 0);
	b[0] = 0x44;				/* ihl 4 < 5 */
	KUNIT_EXPECT_EQ(test, (int)pd_key_extract(b, 40, &o, &key),
			PD_PARSE_BAD_HEADER);
	ip4(b, 5, IPPROTO_TCP, 12, 0, 64, 0);	/* total length < header */
	KUNIT_EXPECT_EQ(test, (int)pd_key_extract(b, 40, &o, &key),
			PD_PARSE_BAD_HEADER);
	len = tcp4(b, 64, 0, 0, 10);
	b[20 + 12] = 0x40;			/* TCP data offset 4 < 5 */
	KUNIT_EXPECT_EQ(test, (int)pd_key_extract(b, len, &o, &key),
			PD_PARSE_BAD_HEADER);
	/* addresses alone still parse: the malformed part is not needed */
	o.mode = PKTDEDUP_KEY_SRC;
	KUNIT_EXPECT_EQ(test, (int)pd_key_extract(b, len, &o, &key), PD_PARSE_OK);
}

/* IPv6, a hop-by-hop header, TCP, 10 bytes of payload: 78 bytes. */
static u32 tcp6_hop(u8 *b)
{
	ip6(b, IPPROTO_HOPOPTS, 8 + 20 + 10, 64, 0);
	memset(b + 40, 0, 8);
	b[40] = IPPROTO_TCP;
	tcp(b + 48, 1, 2, 5);
	payload(b + 68, 10, 1);
	return 78;
}

/*
 * Every prefix of valid packets, in every mode, copied into a buffer of
 * exactly that size (so ASan/KASAN catch any over-read): the result is OK
 * or TRUNCATED, and OK once all the needed headers are there.
 */
static void pd_key_truncations(struct kunit *test)
{
	u8 full[3][200];
	u32 flen[3], i, len, mode;

	flen[0] = tcp4(full[0], 64, 0, 4, 60);
	flen[1] = tcp6_hop(full[1]);
	flen[2] = ip4(full[2], 5, IPPROTO_ICMP, 28, 0, 64, 0) + 8;
	memset(full[2] + 20, 0, 8);
	full[2][20] = ICMP_ECHO;
	for (i = 0; i < 3; i++)
		for (len = 0; len <= flen[i]; len++) {
			u8 *p = kmalloc(len ? len : 1, GFP_KERNEL);

			KUNIT_ASSERT_NOT_NULL(test, p);
			memcpy(p, full[i], len);
			for (mode = 0; mode < PD_KEY_NMODES; mode++) {
				struct pd_key_opts o = { .nh = pd_kt_nh(), .mode = (u8)mode,
							 .payload = 64 };
				struct pd_key key;
				enum pd_parse_result r;

				r = pd_key_extract(p, len, &o, &key);
				KUNIT_EXPECT_TRUE(test, r == PD_PARSE_OK ||
						  r == PD_PARSE_TRUNCATED);
				if (len == flen[i])
					KUNIT_EXPECT_EQ(test, (int)r, PD_PARSE_OK);
				if (r == PD_PARSE_OK)
					pd_key_hash64(&key, &pd_kt_hkey);
			}
			kfree(p);
		}
}

/* A cut packet's key (pd_parse_cut, pd_key_from_cut) for a prefix. */
static enum pd_parse_result cut_key(const u8 *p, u32 len, u8 mode, u16 n,
				    struct pd_key *key)
{
	struct pd_key_opts o = { .nh = pd_kt_nh(), .mode = mode, .payload = n };
	struct pd_pkt pkt;
	enum pd_parse_result r = pd_parse_cut(p, len, &pkt);

	return r == PD_PARSE_OK ? pd_key_from_cut(&pkt, &o, key) : r;
}

/*
 * Every prefix of an IPv4/TCP packet with options, an IPv6 packet with a
 * hop-by-hop header and an IPv4 packet with IP options, in a buffer of
 * exactly that size: the address keys need only the fixed header, the
 * flow key the ports, the packet key the fixed header; a prefix that
 * holds every byte the whole packet's key covers gets its key.
 */
static void pd_key_cut_prefixes(struct kunit *test)
{
	u8 full[3][200];
	u32 flen[3], need_flow[3], i, len, mode;

	/* TCP with 20 bytes of options, 60 bytes of payload */
	flen[0] = 20 + 40 + 60;
	ip4(full[0], 5, IPPROTO_TCP, (u16)flen[0], 0, 64, 0);
	tcp(full[0] + 20, 40000, 443, 10);
	payload(full[0] + 60, 60, 3);
	need_flow[0] = 24;
	flen[1] = tcp6_hop(full[1]);
	need_flow[1] = 52;
	/* IPv4 with 40 bytes of options, UDP */
	flen[2] = 60 + 8 + 30;
	ip4(full[2], 15, IPPROTO_UDP, (u16)flen[2], 0, 64, 0);
	memset(full[2] + 60, 0, 8);
	put16(full[2] + 60, 53);
	put16(full[2] + 62, 5353);
	payload(full[2] + 68, 30, 9);
	need_flow[2] = 64;
	for (i = 0; i < 3; i++) {
		u32 fixed = full[i][0] >> 4 == 4 ? 20 : 40;

		for (mode = 0; mode < PD_KEY_NMODES; mode++) {
			struct pd_key_opts o = { .nh = pd_kt_nh(), .mode = (u8)mode,
						 .payload = 16 };
			struct pd_key whole;
			u32 covers;
			u64 h;

			KUNIT_ASSERT_EQ(test, (int)pd_key_extract(full[i], flen[i],
								  &o, &whole),
					PD_PARSE_OK);
			h = pd_key_hash64(&whole, &pd_kt_hkey);
			covers = whole.tail_len ?
				 (u32)(whole.tail - full[i]) + whole.tail_len : 0;
			for (len = 0; len <= flen[i]; len++) {
				u8 *p = kmalloc(len ? len : 1, GFP_KERNEL);
				struct pd_key key;
				enum pd_parse_result r;
				bool ok;

				KUNIT_ASSERT_NOT_NULL(test, p);
				memcpy(p, full[i], len);
				r = cut_key(p, len, (u8)mode, 16, &key);
				if (mode == PKTDEDUP_KEY_FLOW)
					ok = len >= need_flow[i];
				else
					ok = len >= fixed;
				KUNIT_EXPECT_EQ(test, (int)r,
						ok ? PD_PARSE_OK :
						PD_PARSE_TRUNCATED);
				if (r == PD_PARSE_OK && key.tail_len)
					KUNIT_EXPECT_TRUE(test, key.tail + key.tail_len <=
							  p + len);
				if (r == PD_PARSE_OK && len >= covers)
					KUNIT_EXPECT_EQ(test,
							pd_key_hash64(&key, &pd_kt_hkey),
							h);
				kfree(p);
			}
		}
	}
}

/*
 * A header-only capture (a 60-byte Ethernet snaplen leaves 46 bytes of
 * IP) of TCP with options: the whole-packet parser wants the whole TCP
 * header; the cut parser keys what is there. Copies one hop apart match,
 * segments with another sequence number or original length do not.
 */
static void pd_key_cut_header_only(struct kunit *test)
{
	u8 a[120], b[120];
	struct pd_key ka, kb;
	struct pd_key_opts o = { .nh = pd_kt_nh(), .mode = PKTDEDUP_KEY_PACKET, .payload = 0 };
	u64 ha;

	ip4(a, 5, IPPROTO_TCP, 20 + 32 + 60, 0, 64, 0);
	tcp(a + 20, 40000, 443, 8);
	payload(a + 52, 60, 1);
	KUNIT_EXPECT_EQ(test, (int)pd_key_extract(a, 46, &o, &ka),
			PD_PARSE_TRUNCATED);
	KUNIT_ASSERT_EQ(test, (int)cut_key(a, 46, PKTDEDUP_KEY_PACKET, 0, &ka),
			PD_PARSE_OK);
	KUNIT_EXPECT_EQ(test, (u32)ka.len + ka.tail_len, 46u);
	ha = pd_key_hash64(&ka, &pd_kt_hkey);
	/* one hop later: TTL and checksum differ */
	memcpy(b, a, sizeof(b));
	b[8] = 63;
	b[10] ^= 0x5a;
	KUNIT_ASSERT_EQ(test, (int)cut_key(b, 46, PKTDEDUP_KEY_PACKET, 0, &kb),
			PD_PARSE_OK);
	KUNIT_EXPECT_EQ(test, pd_key_hash64(&kb, &pd_kt_hkey), ha);
	/* another segment: sequence number */
	memcpy(b, a, sizeof(b));
	b[24] ^= 1;
	KUNIT_ASSERT_EQ(test, (int)cut_key(b, 46, PKTDEDUP_KEY_PACKET, 0, &kb),
			PD_PARSE_OK);
	KUNIT_EXPECT_NE(test, pd_key_hash64(&kb, &pd_kt_hkey), ha);
	/* another original length: the IP total length */
	memcpy(b, a, sizeof(b));
	put16(b + 2, 20 + 32 + 61);
	KUNIT_ASSERT_EQ(test, (int)cut_key(b, 46, PKTDEDUP_KEY_PACKET, 0, &kb),
			PD_PARSE_OK);
	KUNIT_EXPECT_NE(test, pd_key_hash64(&kb, &pd_kt_hkey), ha);
	/* a bad data offset is bad cut or not */
	memcpy(b, a, sizeof(b));
	b[32] = 4 << 4;
	KUNIT_EXPECT_EQ(test, (int)cut_key(b, 46, PKTDEDUP_KEY_PACKET, 0, &kb),
			PD_PARSE_BAD_HEADER);
}

/*
 * Where IP begins behind tags and labels: 802.1Q in 802.1ad, the older
 * QinQ types, an MPLS stack over IPv4 and IPv6; too many tags, a stack
 * over something else and frames cut inside a tag are not IP (every
 * prefix in a buffer of its exact size: no read past it).
 */
static void pd_key_l2_skip(struct kunit *test)
{
	static const struct {
		u16 type;
		u8 bytes[24];
		u32 len;
		int result;
		u32 off;
		unsigned int tags;
	} c[] = {
		{ 0x0800, { 0x45 }, 1, PD_L2_IP, 0, 0 },
		{ 0x8100, { 0, 10, 0x08, 0x00, 0x45 }, 5, PD_L2_IP, 4, 1 },
		{ 0x88a8, { 0, 100, 0x81, 0x00, 0, 10, 0x86, 0xdd, 0x60 }, 9,
		  PD_L2_IP, 8, 2 },
		{ 0x9100, { 0, 7, 0x92, 0x00, 0, 8, 0x08, 0x00, 0x45 }, 9,
		  PD_L2_IP, 8, 2 },
		/* two labels, the second the bottom of the stack, IPv6 */
		{ 0x8847, { 0, 1, 0, 64, 0, 2, 1, 64, 0x60 }, 9, PD_L2_IP, 8, 2 },
		{ 0x8848, { 0, 1, 1, 64, 0x45 }, 5, PD_L2_IP, 4, 1 },
		/* a pseudowire (control word 0): not IP */
		{ 0x8847, { 0, 1, 1, 64, 0x00 }, 5, PD_L2_NOT_IP, 0, 1 },
		{ 0x0806, { 0 }, 1, PD_L2_NOT_IP, 0, 0 },
		{ 0x8100, { 0, 10, 0x08, 0x06 }, 4, PD_L2_NOT_IP, 0, 1 },
	};
	u8 many[4 * (PD_L2_MAX_TAGS + 1) + 1];
	unsigned int i, tags;
	u32 len, off;

	for (i = 0; i < PD_ARRAY_SIZE(c); i++) {
		for (len = 0; len <= c[i].len; len++) {
			u8 *p = kmalloc(len ? len : 1, GFP_KERNEL);
			int r;

			KUNIT_ASSERT_NOT_NULL(test, p);
			memcpy(p, c[i].bytes, len);
			tags = 0;
			off = 99;
			r = pd_l2_skip(p, len, c[i].type, &off, &tags);
			if (len == c[i].len) {
				KUNIT_EXPECT_EQ(test, r, c[i].result);
				KUNIT_EXPECT_EQ(test, tags, c[i].tags);
				if (r == PD_L2_IP)
					KUNIT_EXPECT_EQ(test, off, c[i].off);
			} else if (r == PD_L2_IP) {
				/* found before the end: inside the bytes */
				KUNIT_EXPECT_LE(test, off, len);
			}
			kfree(p);
		}
	}
	/* one tag more than crossed */
	for (i = 0; i <= PD_L2_MAX_TAGS; i++) {
		many[4 * i] = 0;
		many[4 * i + 1] = 1;
		many[4 * i + 2] = 0x81;
		many[4 * i + 3] = 0;
	}
	many[4 * PD_L2_MAX_TAGS + 2] = 0x08;
	many[4 * PD_L2_MAX_TAGS + 3] = 0x00;
	tags = 0;
	KUNIT_EXPECT_EQ(test, (int)pd_l2_skip(many, sizeof(many), 0x8100, &off,
					      &tags), PD_L2_NOT_IP);
	/* as many as crossed */
	tags = 0;
	KUNIT_EXPECT_EQ(test, (int)pd_l2_skip(many + 4, sizeof(many) - 4, 0x8100,
					      &off, &tags), PD_L2_IP);
	KUNIT_EXPECT_EQ(test, off, 4u * PD_L2_MAX_TAGS);
}

/* Random bytes of random lengths: a defined result, no out-of-bounds read. */
static void pd_key_random_garbage(struct kunit *test)
{
	u64 rng = 2024;
	unsigned int i, j, ok = 0;

	for (i = 0; i < 20000; i++) {
		u32 len = pd_rng_below(&rng, 120);
		u8 *p = kmalloc(len ? len : 1, GFP_KERNEL);
		struct pd_key_opts o = { .nh = pd_kt_nh(), .mode = (u8)(i % PD_KEY_NMODES),
					 .payload = (u16)(i % 100) };
		struct pd_key key;
		enum pd_parse_result r;

		KUNIT_ASSERT_NOT_NULL(test, p);
		for (j = 0; j < len; j++)
			p[j] = (u8)pd_rng_next(&rng);
		if (len)	/* mostly plausible versions */
			p[0] = (u8)((i & 1 ? 0x40 : 0x60) | (p[0] & 0x0f));
		r = pd_key_extract(p, len, &o, &key);
		KUNIT_ASSERT_LT(test, (unsigned int)r, (unsigned int)PD_PARSE_NRESULTS);
		if (r == PD_PARSE_OK) {
			ok++;
			pd_key_hash64(&key, &pd_kt_hkey);
			KUNIT_EXPECT_LE(test, key.len, (u16)PD_KEY_BUF);
			if (key.tail_len)
				KUNIT_EXPECT_TRUE(test, key.tail + key.tail_len <=
						  p + len);
		}
		kfree(p);
	}
	KUNIT_EXPECT_GT(test, ok, 100u);
}

/*
 * The evasion pairs: two segments equal in every header byte, in the L4
 * checksum field and in their first 200 payload bytes, different after
 * them (TCP and UDP, IPv4 and IPv6, 1000 payload bytes). The key of every
 * byte tells them apart; a key of 64 payload bytes does not (what it
 * gives up); a real copy (a router's: TTL and IPv4 checksum rewritten)
 * gets the same key.
 */
static void pd_key_evasion_pairs(struct kunit *test)
{
	u8 *a = kunit_kzalloc(test, 2000, GFP_KERNEL);
	u8 *b = kunit_kzalloc(test, 2000, GFP_KERNEL);
	const u8 protos[2] = { IPPROTO_TCP, IPPROTO_UDP };
	unsigned int fam, pr;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	for (fam = 0; fam < 2; fam++) {
		for (pr = 0; pr < 2; pr++) {
			u32 l4 = protos[pr] == IPPROTO_TCP ? 20 : 8;
			u32 h = fam ? 40 : 20, len = h + l4 + 1000;

			if (fam)
				ip6(a, protos[pr], (u16)(l4 + 1000), 64, 0);
			else
				ip4(a, 5, protos[pr], (u16)len, 0, 64, 0);
			if (protos[pr] == IPPROTO_TCP)
				tcp(a + h, 1000, 80, 5);
			else
				put16(a + h + 4, (u16)(l4 + 1000));
			put16(a + h + (pr ? 6 : 16), 0x1234);	/* checksum */
			payload(a + h + l4, 1000, 3);
			memcpy(b, a, len);
			/* the hidden content, past byte 200 of the payload */
			b[h + l4 + 200] ^= 0x5a;
			b[h + l4 + 201] ^= 0xa5;
			KUNIT_EXPECT_NE(test, hash_of(test, a, len, PKTDEDUP_KEY_PACKET,
						      0, PKTDEDUP_PAYLOAD_ALL),
					hash_of(test, b, len, PKTDEDUP_KEY_PACKET,
						0, PKTDEDUP_PAYLOAD_ALL));
			KUNIT_EXPECT_EQ(test, hash_of(test, a, len, PKTDEDUP_KEY_PACKET,
						      0, 64),
					hash_of(test, b, len, PKTDEDUP_KEY_PACKET,
						0, 64));
			memcpy(b, a, len);
			b[fam ? 7 : 8] = 63;	/* TTL / hop limit */
			if (!fam)
				put16(b + 10, 0x4321);
			KUNIT_EXPECT_EQ(test, hash_of(test, a, len, PKTDEDUP_KEY_PACKET,
						      0, PKTDEDUP_PAYLOAD_ALL),
					hash_of(test, b, len, PKTDEDUP_KEY_PACKET,
						0, PKTDEDUP_PAYLOAD_ALL));
		}
	}
}

/*
 * A packet whose first view bytes are in one piece and the rest in pieces
 * (the module's paged skbs and multi-buffer frames): pd_parse_view(),
 * pd_key_open() and its further bytes given in pieces give the key the
 * whole packet in one piece gives, for tails of one chunk and of several,
 * and for views that end in the headers' room or past it.
 */
static void pd_key_open_pieces(struct kunit *test)
{
	struct pd_key_opts o = { .nh = pd_kt_nh(), .mode = PKTDEDUP_KEY_PACKET,
				 .payload = PKTDEDUP_PAYLOAD_ALL };
	const u32 lens[] = { 100, 1500, 2100, 9000, 60000 };
	const u32 views[] = { PD_KEY_HDR_ROOM, 300, 1024, 4000 };
	u8 *p = kunit_kzalloc(test, 60000, GFP_KERNEL);
	u64 rng = 3;
	unsigned int i, v;

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < PD_ARRAY_SIZE(lens); i++) {
		struct pd_key whole, key;
		struct pd_pkt pkt;
		struct pd_nh nh;
		u64 hw;

		ip4(p, 5, IPPROTO_UDP, (u16)lens[i], 0, 64, 0);
		payload(p + 20, lens[i] - 20, (u8)i);
		KUNIT_ASSERT_EQ(test, (int)pd_key_extract(p, lens[i], &o, &whole),
				PD_PARSE_OK);
		hw = pd_key_hash64(&whole, &pd_kt_hkey);
		for (v = 0; v < PD_ARRAY_SIZE(views); v++) {
			u32 view = PD_MIN(views[v], lens[i]), at, n;

			KUNIT_ASSERT_EQ(test, (int)pd_parse_view(p, view, lens[i], &o,
								 &pkt, false),
					PD_PARSE_OK);
			KUNIT_ASSERT_EQ(test, (int)pd_key_open(&pkt, &o, &key, &nh),
					PD_PARSE_OK);
			KUNIT_EXPECT_EQ(test, key.more_len, lens[i] - view);
			for (at = key.more_off; key.more_len && at < lens[i];
			     at += n) {
				n = PD_MIN(1 + pd_rng_below(&rng, 700), lens[i] - at);
				pd_nh_update(&nh, p + at, n);
			}
			if (key.more_len)
				pd_key_close(&key, &nh);
			KUNIT_EXPECT_EQ_MSG(test, pd_key_hash64(&key, &pd_kt_hkey), hw,
					    "%u bytes, view %u", lens[i], view);
		}
	}
}

/*
 * A packet around pd_parse_key_open()'s one-pass case in p, with options
 * o drawn for it (every key mode, payload and flag): IPv4 with and
 * without options, IPv6 with and without an extension, TCP with every
 * data offset, UDP, ICMP; fragments; IP lengths short of, at and past the
 * L4 header; views from 0 bytes to the whole; random bytes elsewhere.
 * Its length in *whole, its view in *view; whether it is the one pass's.
 */
static bool one_pass_packet(u8 *p, u64 *rng, struct pd_key_opts *o,
			    u32 *whole, u32 *view)
{
	static const u8 protos[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP,
				     IPPROTO_TCP, IPPROTO_UDP };
	static const u16 payloads[] = { 0, 1, 64, 200, PKTDEDUP_PAYLOAD_ALL };
	u8 proto = protos[pd_rng_below(rng, PD_ARRAY_SIZE(protos))];
	bool v6 = pd_rng_below(rng, 2), odd = !pd_rng_below(rng, 6);
	u32 hl, j, tot;

	memset(o, 0, sizeof(*o));
	o->nh = pd_kt_nh();
	o->mode = (u8)pd_rng_below(rng, PD_KEY_NMODES);
	o->flags = (u8)(pd_rng_below(rng, 4) ? 0 : PKTDEDUP_KEY_F_IGNORE_TOS);
	o->payload = payloads[pd_rng_below(rng, 5)];
	*whole = 20 + pd_rng_below(rng, 1500);
	for (j = 0; j < *whole; j++)
		p[j] = (u8)pd_rng_next(rng);
	/* the IP length: the whole, or short of or past it */
	tot = pd_rng_below(rng, 4) ? *whole : pd_rng_below(rng, 100);
	if (v6) {
		hl = ip6(p, odd ? IPPROTO_DSTOPTS : proto,
			 (u16)(tot > 40 ? tot - 40 : 0),
			 (u8)pd_rng_next(rng), (u8)pd_rng_next(rng));
		if (odd) {	/* one extension header of 8 bytes */
			p[40] = proto;
			p[41] = 0;
			hl += 8;
		}
	} else {
		hl = ip4(p, odd ? 5 + pd_rng_below(rng, 11) : 5, proto,
			 (u16)tot, pd_rng_below(rng, 5) ? 0 :
			 (u16)pd_rng_next(rng),
			 (u8)pd_rng_next(rng), (u8)pd_rng_next(rng));
	}
	if (proto == IPPROTO_TCP && hl + 13 <= *whole)
		p[hl + 12] = (u8)(pd_rng_below(rng, 4) ?
				  5 + pd_rng_below(rng, 11) :
				  pd_rng_below(rng, 16)) << 4;
	*view = pd_rng_below(rng, 3) ? *whole : pd_rng_below(rng, *whole + 1);
	return !odd && *whole >= hl + 20 && *view >= hl + 20 &&
	       (proto == IPPROTO_TCP || proto == IPPROTO_UDP);
}

/* n bytes of p from the generator at rng */
static void noise(u64 *rng, void *p, size_t n)
{
	u8 *b = p;

	while (n--)
		*b++ = (u8)pd_rng_next(rng);
}

/*
 * The hash of a key the parse left open, its tail past the view fed from
 * the packet p first, as the module reads it where it lies.
 */
static u64 fed_hash(const u8 *p, struct pd_key *key, struct pd_nh *nh)
{
	if (key->more_len) {
		pd_nh_update(nh, p + key->more_off, key->more_len);
		pd_key_close(key, nh);
	}
	return pd_key_hash64(key, &pd_kt_hkey);
}

/*
 * pd_parse_key_open(), the packet path's one call, against the two calls
 * it stands for (pd_parse_view(), then pd_key_open()): the same result,
 * the same key (its words, its tail, what it leaves to the caller) and
 * the same pkt, for the packets of one_pass_packet().
 */
static void pd_key_one_pass(struct kunit *test)
{
	u8 *p = kunit_kzalloc(test, 2048, GFP_KERNEL);
	unsigned int i, one_pass = 0, ok = 0;
	u64 rng = 39, prior = 40;

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < 60000; i++) {
		struct pd_key_opts o;
		struct pd_pkt a, b;
		struct pd_key ka, kb;
		struct pd_nh na, nb;
		enum pd_parse_result ra, rb;
		u32 whole, view;
		bool common = one_pass_packet(p, &rng, &o, &whole, &view);

		/* each pkt field is written by each path: none left as it was */
		noise(&prior, &a, sizeof(a));
		noise(&prior, &b, sizeof(b));
		ra = pd_parse_key_open(p, view, whole, &o, &a, &ka, &na);
		rb = pd_parse_view(p, view, whole, &o, &b, false);
		if (rb == PD_PARSE_OK)
			rb = pd_key_open(&b, &o, &kb, &nb);
		KUNIT_ASSERT_EQ_MSG(test, (int)ra, (int)rb, "packet %u", i);
		if (ra != PD_PARSE_OK)
			continue;
		ok++;
		one_pass += common;
		KUNIT_ASSERT_EQ_MSG(test, ka.len, kb.len, "packet %u", i);
		KUNIT_ASSERT_EQ_MSG(test, memcmp(ka.buf, kb.buf, ka.len), 0,
				    "packet %u", i);
		KUNIT_ASSERT_EQ(test, ka.tail_len, kb.tail_len);
		if (ka.tail_len)
			KUNIT_ASSERT_TRUE(test, ka.tail == kb.tail);
		KUNIT_ASSERT_EQ(test, ka.more_off, kb.more_off);
		KUNIT_ASSERT_EQ(test, ka.more_len, kb.more_len);
		if (ka.more_len) {
			pd_nh_update(&na, p + ka.more_off, ka.more_len);
			pd_nh_update(&nb, p + kb.more_off, kb.more_len);
			pd_key_close(&ka, &na);
			pd_key_close(&kb, &nb);
		}
		KUNIT_ASSERT_EQ_MSG(test, pd_key_hash64(&ka, &pd_kt_hkey),
				    pd_key_hash64(&kb, &pd_kt_hkey), "packet %u", i);
		KUNIT_ASSERT_TRUE_MSG(test, a.data == b.data && a.len == b.len &&
				      a.at == b.at && a.end == b.end &&
				      a.view == b.view && a.family == b.family &&
				      a.proto == b.proto &&
				      a.addr_len == b.addr_len &&
				      a.later_fragment == b.later_fragment &&
				      a.l4_err == b.l4_err &&
				      a.fixed_len == b.fixed_len &&
				      a.l4off == b.l4off && a.src == b.src &&
				      a.dst == b.dst && a.dscp == b.dscp &&
				      a.fragment == b.fragment &&
				      a.cut == b.cut && a.encaps == b.encaps &&
				      a.bad_encap == b.bad_encap &&
				      a.depth == b.depth &&
				      a.tun_id == b.tun_id,
				      "packet %u: pkt differs", i);
	}
	/* both kinds were many: the one pass and the rest */
	KUNIT_EXPECT_GT(test, one_pass, 10000u);
	KUNIT_EXPECT_GT(test, ok - one_pass, 5000u);
}

/*
 * The packet path's pkt, key and tail state (hook.c, xdp.c) are left
 * uninitialized on the stack (the kernel would zero them for every
 * packet): the module sets pkt's family, encaps and bad_encap, then
 * pd_parse_key_open() must write everything that is read after it. The
 * same packets (one_pass_packet(), half of them decapsulated, some of
 * those VXLAN with a packet inside) parsed over zeros and over random
 * bytes give the same result, key, hash and every field of pkt the
 * module reads (the addresses where the family is known, the DSCP, the
 * protocol where the L4 header was found).
 */
static void pd_key_prior_contents(struct kunit *test)
{
	u8 *p = kunit_kzalloc(test, 2048, GFP_KERNEL);
	unsigned int i, j, ok = 0, encap = 0;
	u64 rng = 41;

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < 40000; i++) {
		struct { struct pd_pkt pkt; struct pd_key key; struct pd_nh nh; }
			s[2];
		enum pd_parse_result r[2];
		struct pd_key_opts o;
		u32 whole, view;
		u64 h[2];

		one_pass_packet(p, &rng, &o, &whole, &view);
		if (pd_rng_below(&rng, 2)) {
			o.decap = PD_DECAP_ALL;
			o.vxlan_port = PD_VXLAN_PORT;
			o.geneve_port = PD_GENEVE_PORT;
			/* IPv4 UDP to VXLAN's port, a packet inside */
			if (!(p[0] >> 4 == 4 && p[9] == IPPROTO_UDP &&
			      whole >= 20 + 8 + 8 + 14 + 20 &&
			      pd_rng_below(&rng, 2)))
				goto parse;
			ip4(p, 5, IPPROTO_UDP, (u16)whole, 0, 64, 0);
			put16(p + 22, PD_VXLAN_PORT);
			p[28] = 0x08;	/* the VNI is valid */
			put16(p + 28 + 8 + 12, 0x0800);
			ip4(p + 50, 5, IPPROTO_UDP, (u16)(whole - 50), 0,
			    (u8)pd_rng_next(&rng), (u8)pd_rng_next(&rng));
			view = whole;
		}
parse:
		for (j = 0; j < 2; j++) {
			if (j)
				noise(&rng, &s[j], sizeof(s[j]));
			else
				memset(&s[j], 0, sizeof(s[j]));
			/* as pd_skb_key() and the XDP path set them */
			s[j].pkt.family = 0;
			s[j].pkt.encaps = 0;
			s[j].pkt.bad_encap = 0;
			r[j] = pd_parse_key_open(p, view, whole, &o, &s[j].pkt,
						 &s[j].key, &s[j].nh);
			h[j] = 0;
			if (r[j] != PD_PARSE_OK)
				continue;
			h[j] = fed_hash(p, &s[j].key, &s[j].nh);
		}
		KUNIT_ASSERT_EQ_MSG(test, (int)r[0], (int)r[1], "packet %u", i);
		KUNIT_ASSERT_EQ_MSG(test, h[0], h[1], "packet %u", i);
		KUNIT_ASSERT_TRUE_MSG(test,
				      s[0].pkt.family == s[1].pkt.family &&
				      s[0].pkt.encaps == s[1].pkt.encaps &&
				      s[0].pkt.bad_encap == s[1].pkt.bad_encap,
				      "packet %u: pkt differs", i);
		encap += s[0].pkt.encaps != 0;
		if (!s[0].pkt.family)
			continue;
		KUNIT_ASSERT_EQ(test, s[0].pkt.addr_len, s[1].pkt.addr_len);
		KUNIT_ASSERT_EQ(test, memcmp(s[0].pkt.src, s[1].pkt.src,
					     s[0].pkt.addr_len), 0);
		KUNIT_ASSERT_EQ(test, memcmp(s[0].pkt.dst, s[1].pkt.dst,
					     s[0].pkt.addr_len), 0);
		KUNIT_ASSERT_EQ(test, s[0].pkt.l4_err, s[1].pkt.l4_err);
		if (!s[0].pkt.l4_err)
			KUNIT_ASSERT_EQ(test, s[0].pkt.proto, s[1].pkt.proto);
		if (r[0] != PD_PARSE_OK)
			continue;
		ok++;
		KUNIT_ASSERT_EQ(test, s[0].pkt.dscp, s[1].pkt.dscp);
	}
	/* most were keyed, and the tunnels were looked into */
	KUNIT_EXPECT_GT(test, ok, 20000u);
	KUNIT_EXPECT_GT(test, encap, 1000u);
}

/* ---- non-IP frames (PKTDEDUP_KEY_F_NONIP): pd_key_nonip() ---- */

static u64 nonip_hash(struct kunit *test, const u8 *p, u32 len, u16 type,
		      u16 payload)
{
	struct pd_key_opts o = { .nh = pd_kt_nh(), .mode = PKTDEDUP_KEY_PACKET,
				 .flags = PKTDEDUP_KEY_F_NONIP,
				 .payload = payload };
	struct pd_key key;

	KUNIT_EXPECT_EQ(test, (int)pd_key_nonip_whole(p, len, type, &o, &key),
			PD_PARSE_OK);
	return pd_key_hash64(&key, &pd_kt_hkey);
}

/*
 * frame: an Ethernet frame of type 0x88b5 (local experimental) and n
 * payload bytes, with ntags tags (802.1ad outer, 802.1Q inner) of VLAN
 * vid, MAC addresses from mac; the bytes after its type field at
 * *after; its length.
 */
static u32 nonip_frame(u8 *f, const u8 *pl, u32 n, unsigned int ntags,
		       u16 vid, u8 mac, const u8 **after, u16 *type)
{
	u32 o = 12;
	unsigned int t;

	memset(f, mac, 12);
	for (t = 0; t < ntags; t++) {
		put16(f + o, t + 1 < ntags ? 0x88a8 : 0x8100);
		put16(f + o + 2, (u16)(vid + t));
		o += 4;
	}
	put16(f + o, 0x88b5);
	memcpy(f + o + 2, pl, n);
	*after = f + 14;
	*type = (u16)(f[12] << 8 | f[13]);
	return o + 2 + n;
}

/*
 * One frame untagged, tagged once and twice (as a capture has it), with
 * the outer tag taken off (as the kernel's skb hooks see it), and with
 * other MAC addresses: one key; in the direct form (short frames) and the
 * compressed one (long).
 */
static void pd_key_nonip_taps(struct kunit *test)
{
	const u32 lens[] = { 0, 1, 46, 126, 127, 128, 129, 200, 1500 };
	u8 *pl = kunit_kzalloc(test, 1500, GFP_KERNEL);
	u8 *f = kunit_kzalloc(test, 1600, GFP_KERNEL);
	unsigned int i, t;

	KUNIT_ASSERT_NOT_NULL(test, pl);
	KUNIT_ASSERT_NOT_NULL(test, f);
	for (i = 0; i < PD_ARRAY_SIZE(lens); i++) {
		const u8 *after;
		u16 type;
		u32 len;
		u64 h0;

		payload(pl, lens[i], (u8)i);
		len = nonip_frame(f, pl, lens[i], 0, 0, 0xaa, &after, &type);
		h0 = nonip_hash(test, after, len - 14, type,
				PKTDEDUP_PAYLOAD_ALL);
		KUNIT_EXPECT_EQ(test, h0, nonip_hash(test, pl, lens[i], 0x88b5,
						     PKTDEDUP_PAYLOAD_ALL));
		for (t = 0; t <= PD_L2_MAX_TAGS; t++) {
			len = nonip_frame(f, pl, lens[i], t, (u16)(10 * t + i),
					  (u8)(0x10 + t), &after, &type);
			KUNIT_EXPECT_EQ_MSG(test, nonip_hash(test, after,
							     len - 14, type,
							     PKTDEDUP_PAYLOAD_ALL),
					    h0, "%u bytes, %u tags", lens[i], t);
			if (!t)
				continue;
			/* the kernel took the outer tag off */
			KUNIT_EXPECT_EQ(test, nonip_hash(test, after + 4,
							 len - 18,
							 (u16)(after[2] << 8 |
							       after[3]),
							 PKTDEDUP_PAYLOAD_ALL),
					h0);
		}
	}
}

/*
 * Any byte from the innermost EtherType on, and the length, make another
 * key; the payload setting bounds the bytes keyed; an 802.3 length is one
 * type whatever its value; a frame ending inside its tags, or with more
 * tags than crossed, is not keyed.
 */
static void pd_key_nonip_bytes(struct kunit *test)
{
	struct pd_key_opts o = { .nh = pd_kt_nh(), .mode = PKTDEDUP_KEY_PACKET,
				 .flags = PKTDEDUP_KEY_F_NONIP,
				 .payload = PKTDEDUP_PAYLOAD_ALL };
	const u32 lens[] = { 60, 300 };
	u8 *pl = kunit_kzalloc(test, 2000, GFP_KERNEL);
	u8 tags[4 * (PD_L2_MAX_TAGS + 1) + 2];
	struct pd_key key;
	unsigned int i, j;

	KUNIT_ASSERT_NOT_NULL(test, pl);
	for (i = 0; i < PD_ARRAY_SIZE(lens); i++) {
		u64 h;

		payload(pl, lens[i], 3);
		h = nonip_hash(test, pl, lens[i], 0x88cc, PKTDEDUP_PAYLOAD_ALL);
		KUNIT_EXPECT_NE(test, h, nonip_hash(test, pl, lens[i], 0x88cd,
						    PKTDEDUP_PAYLOAD_ALL));
		KUNIT_EXPECT_NE(test, h, nonip_hash(test, pl, lens[i] - 1,
						    0x88cc,
						    PKTDEDUP_PAYLOAD_ALL));
		for (j = 0; j < lens[i]; j++) {
			pl[j] ^= 0x20;
			KUNIT_EXPECT_NE_MSG(test, h,
					    nonip_hash(test, pl, lens[i], 0x88cc,
						       PKTDEDUP_PAYLOAD_ALL),
					    "byte %u of %u", j, lens[i]);
			pl[j] ^= 0x20;
		}
	}
	/* payload 64: the bytes past the 64th after the type are not read */
	payload(pl, 2000, 5);
	for (j = 64; j < 2000; j += 97) {
		u64 h = nonip_hash(test, pl, 2000, 0x0806, 64);

		pl[j] ^= 0xff;
		KUNIT_EXPECT_EQ(test, h, nonip_hash(test, pl, 2000, 0x0806, 64));
		KUNIT_EXPECT_EQ(test, h, nonip_hash(test, pl, j, 0x0806, 64));
	}
	pl[63] ^= 1;
	KUNIT_EXPECT_NE(test, nonip_hash(test, pl, 2000, 0x0806, 64),
			nonip_hash(test, pl, 2000, 0x0806, 63));
	/* every byte, bounded: at most PKTDEDUP_PAYLOAD_ALL */
	KUNIT_EXPECT_EQ(test, (int)pd_key_nonip_whole(pl, 2000, 0x0806, &o,
						      &key), PD_PARSE_OK);
	KUNIT_EXPECT_EQ(test, key.more_len, 0u);
	KUNIT_EXPECT_EQ(test, (u32)key.len, 8u + 24u);
	KUNIT_EXPECT_EQ(test, key.buf[0], 0);	/* no IP header's */
	/* 802.3: the length (XDP, captures) or ETH_P_802_2 (skb hooks) */
	KUNIT_EXPECT_EQ(test, nonip_hash(test, pl, 100, 0x0026, 200),
			nonip_hash(test, pl, 100, 0x0004, 200));
	/* tags: cut inside, or one more than crossed */
	memset(tags, 0, sizeof(tags));
	for (j = 0; j <= PD_L2_MAX_TAGS; j++)
		put16(tags + 4 * j + 2, 0x8100);
	put16(tags + 4 * PD_L2_MAX_TAGS + 2, 0x88b5);
	for (j = 0; j < 4; j++)
		KUNIT_EXPECT_EQ(test, (int)pd_key_nonip_whole(tags, j, 0x8100,
							      &o, &key),
				PD_PARSE_NOT_IP);
	KUNIT_EXPECT_EQ(test, (int)pd_key_nonip_whole(tags, sizeof(tags),
						      0x8100, &o, &key),
			PD_PARSE_NOT_IP);
	KUNIT_EXPECT_EQ(test, (int)pd_key_nonip_whole(tags + 4,
						      sizeof(tags) - 4,
						      0x8100, &o, &key),
			PD_PARSE_OK);
}

/*
 * A frame of which the first view bytes are in one piece (view at least
 * min(whole, PD_KEY_NONIP_ROOM)) and the rest given in pieces: the key
 * of the whole frame in one piece.
 */
static void pd_key_nonip_pieces(struct kunit *test)
{
	struct pd_key_opts o = { .nh = pd_kt_nh(), .mode = PKTDEDUP_KEY_PACKET,
				 .flags = PKTDEDUP_KEY_F_NONIP,
				 .payload = PKTDEDUP_PAYLOAD_ALL };
	const u32 lens[] = { 40, 140, 165, 1500, 9000 };
	const u32 views[] = { PD_KEY_NONIP_ROOM, 200, 1024 };
	u8 *p = kunit_kzalloc(test, 9000, GFP_KERNEL);
	u64 rng = 5;
	unsigned int i, v;

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < PD_ARRAY_SIZE(lens); i++) {
		u64 hw;

		payload(p, lens[i], (u8)i);
		put16(p + 2, 0x88b5);	/* after one tag */
		hw = nonip_hash(test, p, lens[i], 0x8100, PKTDEDUP_PAYLOAD_ALL);
		for (v = 0; v < PD_ARRAY_SIZE(views); v++) {
			u32 view = PD_MIN(views[v], lens[i]), at, n;
			struct pd_key key;
			struct pd_nh nh;

			KUNIT_ASSERT_EQ(test, (int)pd_key_nonip(p, view, lens[i],
								0x8100, &o,
								&key, &nh),
					PD_PARSE_OK);
			KUNIT_EXPECT_EQ(test, key.more_len, lens[i] - view);
			for (at = key.more_off; key.more_len && at < lens[i];
			     at += n) {
				n = PD_MIN(1 + pd_rng_below(&rng, 700),
					   lens[i] - at);
				pd_nh_update(&nh, p + at, n);
			}
			if (key.more_len)
				pd_key_close(&key, &nh);
			KUNIT_EXPECT_EQ_MSG(test,
					    pd_key_hash64(&key, &pd_kt_hkey), hw,
					    "%u bytes, view %u", lens[i], view);
		}
	}
}

/*
 * The same for a frame that is not IP (hook.c's pd_nonip_skb(), xdp.c's
 * pd_xdp_nonip()): its key and tail state are left uninitialized, and
 * pd_key_nonip() must write everything that is read after it. Frames of
 * random bytes up to 9000 long, as the skb hooks (after a tag or not) and
 * XDP see them, random payload settings, views from the least allowed to
 * the whole, the rest fed in one piece: the same verdict and hash whether
 * the key and tail state were zeroed or filled with random bytes first.
 */
static void pd_key_nonip_prior_contents(struct kunit *test)
{
	static const u16 payloads[] = { 0, 1, 64, 126, 1500,
					PKTDEDUP_PAYLOAD_ALL };
	static const u16 types[] = { 0x0806, 0x88b5, 0x88cc, 0x8100, 0x88a8 };
	u8 *p = kunit_kzalloc(test, 9000, GFP_KERNEL);
	unsigned int i, j, ok = 0, more = 0;
	u64 rng = 43;

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < 4000; i++) {
		struct pd_key_opts o = { .nh = pd_kt_nh(),
					 .mode = PKTDEDUP_KEY_PACKET,
					 .flags = PKTDEDUP_KEY_F_NONIP };
		struct { struct pd_key key; struct pd_nh nh; } st[2];
		u32 whole = (u32)pd_rng_below(&rng, 9001), view;
		enum pd_parse_result r[2];
		u16 type = types[pd_rng_below(&rng, PD_ARRAY_SIZE(types))];
		u64 h[2];

		o.payload = payloads[pd_rng_below(&rng, PD_ARRAY_SIZE(payloads))];
		noise(&rng, p, whole);
		/* behind a tag, most often a type that is not one */
		if (whole >= 4 && (type == 0x8100 || type == 0x88a8) &&
		    pd_rng_below(&rng, 4))
			put16(p + 2, 0x88b5);
		view = whole;
		if (whole > PD_KEY_NONIP_ROOM)
			view = PD_KEY_NONIP_ROOM + (u32)pd_rng_below(&rng,
					whole - PD_KEY_NONIP_ROOM + 1);
		for (j = 0; j < 2; j++) {
			if (j)
				noise(&rng, &st[j], sizeof(st[j]));
			else
				memset(&st[j], 0, sizeof(st[j]));
			r[j] = pd_key_nonip(p, view, whole, type, &o,
					    &st[j].key, &st[j].nh);
			h[j] = 0;
			if (r[j] != PD_PARSE_OK)
				continue;
			more += !j && st[j].key.more_len;
			h[j] = fed_hash(p, &st[j].key, &st[j].nh);
		}
		KUNIT_ASSERT_EQ_MSG(test, (int)r[0], (int)r[1], "frame %u", i);
		KUNIT_ASSERT_EQ_MSG(test, h[0], h[1], "frame %u", i);
		ok += r[0] == PD_PARSE_OK;
	}
	/* the cases compared: keyed frames, and tails past the view */
	kunit_info(test, "%u of 4000 frames keyed, %u with a tail past the view",
		   ok, more);
	KUNIT_EXPECT_GT(test, ok, 2000u);
	KUNIT_EXPECT_GT(test, more, 200u);
}

static struct kunit_case pd_key_cases[] = {
	KUNIT_CASE(pd_key_ipv4_fields),
	KUNIT_CASE(pd_key_ipv4_packet_invariance),
	KUNIT_CASE(pd_key_ipv4_options_udp_icmp),
	KUNIT_CASE(pd_key_ipv4_fragments),
	KUNIT_CASE(pd_key_ipv6),
	KUNIT_CASE(pd_key_ipv6_ext_headers),
	KUNIT_CASE(pd_key_ipv6_ext_limit),
	KUNIT_CASE(pd_key_malformed),
	KUNIT_CASE(pd_key_truncations),
	KUNIT_CASE(pd_key_cut_prefixes),
	KUNIT_CASE(pd_key_cut_header_only),
	KUNIT_CASE(pd_key_l2_skip),
	KUNIT_CASE(pd_key_random_garbage),
	KUNIT_CASE(pd_key_evasion_pairs),
	KUNIT_CASE(pd_key_open_pieces),
	KUNIT_CASE(pd_key_one_pass),
	KUNIT_CASE(pd_key_prior_contents),
	KUNIT_CASE(pd_key_nonip_taps),
	KUNIT_CASE(pd_key_nonip_bytes),
	KUNIT_CASE(pd_key_nonip_pieces),
	KUNIT_CASE(pd_key_nonip_prior_contents),
	{}
};

static struct kunit_suite pd_key_suite = {
	.name = "pktdedup-key",
	.test_cases = pd_key_cases,
};

kunit_test_suite(pd_key_suite);
