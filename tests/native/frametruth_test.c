// SPDX-License-Identifier: GPL-2.0
/*
 * Native tests of the simulator's frame truth (userspace/sim/frametruth.c):
 * one IP packet behind every link layer and inside every tunnel it knows
 * is one frame; the fields routers rewrite are all that is left out; what
 * is not IP compares after its link addresses; malformed frames never
 * read outside themselves. And its digest (BLAKE2b, RFC 7693) and the
 * truth's stores of two-word digests. The frames are built here from the
 * protocols' layouts, not by the key's parser.
 */
#include <kunit/test.h>
#include <stdlib.h>
#include <string.h>

#include "../../userspace/sim/blake2b.h"
#include "../../userspace/sim/dset.h"
#include "../../userspace/sim/frametruth.h"
#include "../../userspace/sim/truth.h"

#define FT_BUF 512

struct buf {
	uint8_t b[FT_BUF];
	uint32_t n;
};

static void put(struct buf *f, const void *p, uint32_t n)
{
	memcpy(f->b + f->n, p, n);
	f->n += n;
}

static void put8(struct buf *f, unsigned int v)
{
	f->b[f->n++] = (uint8_t)v;
}

static void put16(struct buf *f, unsigned int v)
{
	put8(f, v >> 8);
	put8(f, v);
}

static void put32(struct buf *f, uint32_t v)
{
	put16(f, v >> 16);
	put16(f, v);
}

static const struct ft_ports ports = { 4789, 6081, 2152 };

/*
 * The packet: IPv4 UDP 10.0.0.1:1000 -> 10.0.0.2:53 with 12 bytes of
 * data, the IPv4 header checksum left as chk (the truth ignores it).
 */
static void inner(struct buf *f, unsigned int ttl, unsigned int id,
		  unsigned int tos, unsigned int chk, uint8_t last)
{
	static const uint8_t data[12] = "what a query";

	put8(f, 0x45);
	put8(f, tos);
	put16(f, 20 + 8 + sizeof(data));
	put16(f, id);
	put16(f, 0x4000);
	put8(f, ttl);
	put8(f, 17);
	put16(f, chk);
	put32(f, 0x0a000001);
	put32(f, 0x0a000002);
	put16(f, 1000);
	put16(f, 53);
	put16(f, 8 + sizeof(data));
	put16(f, 0);
	put(f, data, sizeof(data) - 1);
	put8(f, last);
}

static void packet(struct buf *f)
{
	inner(f, 64, 7, 0, 0x1234, 'y');
}

static void eth(struct buf *f, uint8_t mac, unsigned int type)
{
	uint8_t m[12];

	memset(m, mac, sizeof(m));
	put(f, m, sizeof(m));
	put16(f, type);
}

/* An outer IPv4 header of protocol proto around len bytes. */
static void outer4(struct buf *f, unsigned int proto, uint32_t len,
		   unsigned int frag)
{
	put8(f, 0x45);
	put8(f, 0);
	put16(f, 20 + len);
	put16(f, 99);
	put16(f, frag);
	put8(f, 30);
	put8(f, proto);
	put16(f, 0);
	put32(f, 0xc0000201);
	put32(f, 0xc0000202);
}

static void outer_udp(struct buf *f, unsigned int dport, uint32_t len)
{
	outer4(f, 17, 8 + len, 0);
	put16(f, 49152);
	put16(f, dport);
	put16(f, 8 + len);
	put16(f, 0);
}

/* Ethernet (MACs m, a VLAN tag) around the packet: 18 + 40 bytes. */
static void eth_packet(struct buf *f, uint8_t m)
{
	eth(f, m, 0x8100);
	put16(f, 5);
	put16(f, 0x0800);
	packet(f);
}

static void frame_of(struct kunit *test, enum link_type lt,
		     const struct buf *f, struct ft_frame *out,
		     const struct ft_ports *p)
{
	ft_frame(lt, f->b, f->n, p ? p : &ports, out);
	KUNIT_EXPECT_LE(test, out->off + out->len, f->n);
}

/* RFC 7693's example, and digests of 16 bytes Python's hashlib gives. */
static void ft_blake2b(struct kunit *test)
{
	static const uint8_t abc512[8] = {
		0xba, 0x80, 0xa5, 0x3f, 0x98, 0x1c, 0x4d, 0x0d,
	};
	static const struct { uint32_t len; uint8_t d[16]; } v[] = {
		{ 127, { 0x28, 0xb1, 0x29, 0x6c, 0x7d, 0x48, 0x07, 0x88,
			 0x3d, 0xe6, 0xee, 0x4e, 0xc0, 0x4d, 0xcc, 0x0a } },
		{ 128, { 0xa7, 0x47, 0x87, 0x00, 0x4e, 0xf5, 0x89, 0xe3,
			 0x11, 0x49, 0x18, 0x39, 0x00, 0xd0, 0x29, 0x4a } },
		{ 129, { 0xaa, 0xf1, 0xb0, 0x37, 0x1f, 0x6d, 0x4e, 0xe4,
			 0x9e, 0xe4, 0xfb, 0x5d, 0xdd, 0x9c, 0x49, 0xef } },
		{ 1000, { 0x97, 0x8a, 0x3f, 0x8b, 0x45, 0x50, 0x8a, 0x42,
			  0xfe, 0x7f, 0x0f, 0x99, 0xca, 0xf2, 0xc4, 0x23 } },
	};
	uint8_t in[1000], out[64];
	struct blake2b s;
	unsigned int i;

	blake2b_init(&s, 64);
	blake2b_update(&s, "abc", 3);
	blake2b_final(&s, out);
	KUNIT_EXPECT_EQ(test, memcmp(out, abc512, sizeof(abc512)), 0);
	KUNIT_EXPECT_EQ(test, out[63], 0x23);
	for (i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)i;
	for (i = 0; i < PD_ARRAY_SIZE(v); i++) {
		/* in two pieces: the split does not matter */
		blake2b_init(&s, 16);
		blake2b_update(&s, in, 3);
		blake2b_update(&s, in + 3, v[i].len - 3);
		blake2b_final(&s, out);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(out, v[i].d, 16), 0,
				    "length %u", v[i].len);
	}
}

/* Each builds one frame around the packet: its link type, its tunnels. */
struct carrier {
	const char *what;
	enum link_type lt;
	unsigned int tunnels;
	void (*build)(struct buf *f);
};

static void c_eth(struct buf *f)
{
	eth(f, 0xa1, 0x0800);
	packet(f);
}

/* another tap: other MACs, QinQ, one hop on, padding and an FCS after */
static void c_eth_hop(struct buf *f)
{
	eth(f, 0xb2, 0x88a8);
	put16(f, 10);
	put16(f, 0x8100);
	put16(f, 20);
	put16(f, 0x0800);
	inner(f, 63, 7, 0, 0x4321, 'y');
	put32(f, 0);
	put32(f, 0xdeadbeef);
}

static void c_sll(struct buf *f)
{
	put16(f, 0);
	put16(f, 1);
	put16(f, 6);
	put32(f, 0x02020202);
	put32(f, 0x02020000);
	put16(f, 0x0800);
	packet(f);
}

static void c_sll2(struct buf *f)
{
	put16(f, 0x0800);
	put16(f, 0);
	put32(f, 3);
	put16(f, 1);
	put8(f, 4);
	put8(f, 6);
	put32(f, 0x02020202);
	put32(f, 0x02020000);
	packet(f);
}

static void c_raw(struct buf *f)
{
	packet(f);
}

static void c_null(struct buf *f)
{
	put32(f, 0x02000000);	/* AF_INET, little-endian */
	packet(f);
}

static void c_loop(struct buf *f)
{
	put32(f, 2);
	packet(f);
}

static void c_mpls(struct buf *f)
{
	eth(f, 0xa1, 0x8847);
	put32(f, 100 << 12 | 64);
	put32(f, 200 << 12 | 1 << 8 | 64);	/* bottom of stack */
	packet(f);
}

static void c_vxlan(struct buf *f)
{
	eth(f, 0xc3, 0x0800);
	outer_udp(f, 4789, 8 + 58);
	put32(f, 0x08000000);
	put32(f, 42 << 8);
	eth_packet(f, 0xa1);
}

static void c_geneve(struct buf *f)
{
	eth(f, 0xc3, 0x0800);
	outer_udp(f, 6081, 16 + 40);
	put8(f, 2);		/* version 0, 2 words of options */
	put8(f, 0);
	put16(f, 0x0800);
	put32(f, 9 << 8);
	put32(f, 0x01020301);
	put32(f, 0xabcdef01);
	packet(f);
}

static void c_gre(struct buf *f)
{
	eth(f, 0xc3, 0x0800);
	outer4(f, 47, 16 + 40, 0);
	put16(f, 0xb000);	/* checksum, key, sequence */
	put16(f, 0x0800);
	put32(f, 0x12340000);
	put32(f, 77);
	put32(f, 5);
	packet(f);
}

static void c_gretap(struct buf *f)
{
	eth(f, 0xc3, 0x0800);
	outer4(f, 47, 4 + 58, 0);
	put16(f, 0);
	put16(f, 0x6558);
	eth_packet(f, 0xa1);
}

static void c_erspan1(struct buf *f)
{
	eth(f, 0xc3, 0x0800);
	outer4(f, 47, 4 + 58, 0);
	put16(f, 0);
	put16(f, 0x88be);
	eth_packet(f, 0xa1);
}

static void c_erspan2(struct buf *f)
{
	eth(f, 0xc3, 0x0800);
	outer4(f, 47, 8 + 8 + 58, 0);
	put16(f, 0x1000);
	put16(f, 0x88be);
	put32(f, 1);
	put32(f, 0x10000000 | 3);	/* version 1, session 3 */
	put32(f, 0);
	eth_packet(f, 0xa1);
}

static void c_erspan3(struct buf *f)
{
	eth(f, 0xc3, 0x0800);
	outer4(f, 47, 8 + 20 + 58, 0);
	put16(f, 0x1000);
	put16(f, 0x22eb);
	put32(f, 1);
	put32(f, 0x20000000 | 3);	/* version 2, session 3 */
	put32(f, 0x01020304);		/* timestamp */
	put16(f, 0);
	put16(f, 1);			/* frame type 0, O: the subheader */
	put32(f, 3u << 26 | 7);
	put32(f, 0);
	eth_packet(f, 0xa1);
}

static void c_gtpu(struct buf *f)
{
	eth(f, 0xc3, 0x0800);
	outer_udp(f, 2152, 16 + 40);
	put8(f, 0x34);		/* version 1, PT, E */
	put8(f, 255);
	put16(f, 8 + 40);
	put32(f, 0x1001);
	put16(f, 0);
	put8(f, 0);
	put8(f, 0x85);		/* a PDU session container */
	put8(f, 1);
	put8(f, 0x10);
	put8(f, 9);
	put8(f, 0);		/* no more */
	packet(f);
}

static void c_ipip(struct buf *f)
{
	outer4(f, 4, 40, 0);
	packet(f);
}

static void c_4in6(struct buf *f)
{
	uint8_t a[16] = { 0x20, 0x01, 0x0d, 0xb8 };

	put32(f, 0x60000000);
	put16(f, 40);
	put8(f, 4);
	put8(f, 64);
	put(f, a, 16);
	a[15] = 2;
	put(f, a, 16);
	packet(f);
}

/* VXLAN in GRE in IPv4 over Ethernet */
static void c_nested(struct buf *f)
{
	eth(f, 0xc3, 0x0800);
	outer4(f, 47, 4 + 20 + 8 + 8 + 58, 0);
	put16(f, 0);
	put16(f, 0x0800);
	outer_udp(f, 4789, 8 + 58);
	put32(f, 0x08000000);
	put32(f, 42 << 8);
	eth_packet(f, 0xa1);
}

static const struct carrier carriers[] = {
	{ "ethernet", LINK_ETHERNET, 0, c_eth },
	{ "another tap, a hop on", LINK_ETHERNET, 0, c_eth_hop },
	{ "sll", LINK_SLL, 0, c_sll },
	{ "sll2", LINK_SLL2, 0, c_sll2 },
	{ "raw", LINK_RAW, 0, c_raw },
	{ "raw ipv4", LINK_IPV4, 0, c_raw },
	{ "null", LINK_NULL, 0, c_null },
	{ "loop", LINK_LOOP, 0, c_loop },
	{ "mpls", LINK_ETHERNET, 0, c_mpls },
	{ "vxlan", LINK_ETHERNET, 1, c_vxlan },
	{ "geneve", LINK_ETHERNET, 1, c_geneve },
	{ "gre", LINK_ETHERNET, 1, c_gre },
	{ "gretap", LINK_ETHERNET, 1, c_gretap },
	{ "erspan I", LINK_ETHERNET, 1, c_erspan1 },
	{ "erspan II", LINK_ETHERNET, 1, c_erspan2 },
	{ "erspan III", LINK_ETHERNET, 1, c_erspan3 },
	{ "gtp-u", LINK_ETHERNET, 1, c_gtpu },
	{ "ipip", LINK_RAW, 1, c_ipip },
	{ "ipv4 in ipv6", LINK_RAW, 1, c_4in6 },
	{ "vxlan in gre", LINK_ETHERNET, 2, c_nested },
};

/* One packet however it was captured and carried is one frame. */
static void ft_one_packet(struct kunit *test)
{
	struct buf *f = calloc(1, sizeof(*f)), want = { .n = 0 };
	struct ft_frame first, fr;
	uint8_t out[FT_BUF];
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, f);
	packet(&want);
	want.b[8] = 0;		/* TTL and checksum, zeroed */
	want.b[10] = 0;
	want.b[11] = 0;
	for (i = 0; i < PD_ARRAY_SIZE(carriers); i++) {
		f->n = 0;
		carriers[i].build(f);
		frame_of(test, carriers[i].lt, f, &fr, NULL);
		KUNIT_EXPECT_EQ_MSG(test, fr.kind, FT_IP, "%s", carriers[i].what);
		KUNIT_EXPECT_EQ_MSG(test, fr.version, 4, "%s", carriers[i].what);
		KUNIT_EXPECT_EQ_MSG(test, fr.tunnels, carriers[i].tunnels, "%s",
				    carriers[i].what);
		KUNIT_EXPECT_EQ_MSG(test, ft_bytes(f->b, &fr, out, sizeof(out)),
				    want.n, "%s", carriers[i].what);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(out, want.b, want.n), 0, "%s",
				    carriers[i].what);
		if (!i)
			first = fr;
		KUNIT_EXPECT_TRUE_MSG(test, fr.digest[0] == first.digest[0] &&
				      fr.digest[1] == first.digest[1], "%s",
				      carriers[i].what);
	}
	free(f);
}

static void digest_of(struct kunit *test, const struct buf *f,
		      enum link_type lt, uint64_t *d)
{
	struct ft_frame fr;

	frame_of(test, lt, f, &fr, NULL);
	d[0] = fr.digest[0];
	d[1] = fr.digest[1];
}

/* Every byte but TTL, hop limit and IPv4 checksum counts. */
static void ft_what_counts(struct kunit *test)
{
	struct buf a = { .n = 0 }, b = { .n = 0 };
	uint64_t da[2], db[2];
	struct ft_frame fr;
	unsigned int i;

	packet(&a);
	digest_of(test, &a, LINK_RAW, da);
	/* a new IP ID (a retransmission), TOS, one payload byte */
	inner(&b, 64, 8, 0, 0x1234, 'y');
	digest_of(test, &b, LINK_RAW, db);
	KUNIT_EXPECT_NE(test, da[0], db[0]);
	b.n = 0;
	inner(&b, 64, 7, 4, 0x1234, 'y');
	digest_of(test, &b, LINK_RAW, db);
	KUNIT_EXPECT_NE(test, da[0], db[0]);
	b.n = 0;
	inner(&b, 64, 7, 0, 0x1234, 'z');
	digest_of(test, &b, LINK_RAW, db);
	KUNIT_EXPECT_NE(test, da[0], db[0]);
	/* IPv6: the hop limit is left out, the flow label is not */
	for (i = 0; i < 3; i++) {
		struct buf *p = i ? &b : &a;

		p->n = 0;
		put32(p, 0x60000000 | (i == 2 ? 5 : 0));
		put16(p, 8);
		put8(p, 17);
		put8(p, i == 1 ? 7 : 64);
		memset(p->b + p->n, 0xfd, 32);
		p->n += 32;
		put32(p, 0x00010002);
		put32(p, 0x00080000);
		digest_of(test, p, LINK_RAW, i ? db : da);
		if (i)
			KUNIT_EXPECT_EQ_MSG(test, da[0] == db[0], i == 1,
					    "v6 case %u", i);
	}
	/* a VXLAN header without its I flag: the carrier is the packet */
	a.n = 0;
	c_vxlan(&a);
	a.b[14 + 28] = 0;
	frame_of(test, LINK_ETHERNET, &a, &fr, NULL);
	KUNIT_EXPECT_EQ(test, fr.tunnels, 0);
	KUNIT_EXPECT_EQ(test, fr.off, 14u);
	/* VXLAN on the port the run says */
	a.n = 0;
	c_vxlan(&a);
	a.b[14 + 22] = 0x21;	/* port 8472 */
	a.b[14 + 23] = 0x18;
	frame_of(test, LINK_ETHERNET, &a, &fr, NULL);
	KUNIT_EXPECT_EQ(test, fr.tunnels, 0);
	{
		const struct ft_ports linux_port = { 8472, 6081, 2152 };

		frame_of(test, LINK_ETHERNET, &a, &fr, &linux_port);
		KUNIT_EXPECT_EQ(test, fr.tunnels, 1);
	}
	/* a fragment is not looked into */
	a.n = 0;
	eth(&a, 0xc3, 0x0800);
	outer4(&a, 4, 40, 0x2000);
	packet(&a);
	frame_of(test, LINK_ETHERNET, &a, &fr, NULL);
	KUNIT_EXPECT_EQ(test, fr.tunnels, 0);
	KUNIT_EXPECT_EQ(test, fr.len, 60u);
	/* an IHL under 5 is no IP header: the bytes as they are */
	a.n = 0;
	packet(&a);
	a.b[0] = 0x44;
	frame_of(test, LINK_RAW, &a, &fr, NULL);
	KUNIT_EXPECT_EQ(test, fr.kind, FT_BAD_IP);
	KUNIT_EXPECT_EQ(test, fr.len, a.n);
	/* a frame cut short: what was captured, said cut */
	a.n = 0;
	packet(&a);
	ft_frame(LINK_RAW, a.b, 30, &ports, &fr);
	KUNIT_EXPECT_TRUE(test, fr.cut);
	KUNIT_EXPECT_EQ(test, fr.len, 30u);
}

/* ARP from two taps (other MACs, a VLAN, cooked) is one frame. */
static void ft_not_ip(struct kunit *test)
{
	static const uint8_t arp[28] = { 0, 1, 8, 0, 6, 4, 0, 1, 2, 2, 2, 2,
					 2, 2, 10, 0, 0, 1 };
	struct buf a = { .n = 0 }, b = { .n = 0 }, c = { .n = 0 };
	uint64_t da[2], db[2], dc[2];
	struct ft_frame fr;

	eth(&a, 0xa1, 0x0806);
	put(&a, arp, sizeof(arp));
	eth(&b, 0xb2, 0x8100);
	put16(&b, 7);
	put16(&b, 0x0806);
	put(&b, arp, sizeof(arp));
	c_sll(&c);
	c.n = 14;
	put16(&c, 0x0806);
	put(&c, arp, sizeof(arp));
	digest_of(test, &a, LINK_ETHERNET, da);
	digest_of(test, &b, LINK_ETHERNET, db);
	digest_of(test, &c, LINK_SLL, dc);
	KUNIT_EXPECT_TRUE(test, da[0] == db[0] && da[1] == db[1]);
	KUNIT_EXPECT_TRUE(test, da[0] == dc[0] && da[1] == dc[1]);
	frame_of(test, LINK_ETHERNET, &a, &fr, NULL);
	KUNIT_EXPECT_EQ(test, fr.kind, FT_NOT_IP);
	KUNIT_EXPECT_EQ(test, fr.proto, 0x0806u);
	/* another ARP request differs */
	b.b[b.n - 1] = 9;
	digest_of(test, &b, LINK_ETHERNET, db);
	KUNIT_EXPECT_NE(test, da[0], db[0]);
	/* shorter than its link header: the frame whole */
	ft_frame(LINK_ETHERNET, a.b, 10, &ports, &fr);
	KUNIT_EXPECT_EQ(test, fr.kind, FT_RAW);
	KUNIT_EXPECT_EQ(test, fr.len, 10u);
}

/* Every prefix of every carrier: nothing read past it (ASan). */
static void ft_every_prefix(struct kunit *test)
{
	struct buf full = { .n = 0 };
	struct ft_frame fr;
	unsigned int i;
	uint32_t n;

	for (i = 0; i < PD_ARRAY_SIZE(carriers); i++) {
		full.n = 0;
		carriers[i].build(&full);
		for (n = 0; n <= full.n; n++) {
			/* a copy on the heap of exactly n bytes */
			uint8_t *p = malloc(n ? n : 1);

			KUNIT_ASSERT_NOT_NULL(test, p);
			memcpy(p, full.b, n);
			ft_frame(carriers[i].lt, p, n, &ports, &fr);
			KUNIT_EXPECT_LE(test, fr.off + fr.len, n);
			KUNIT_EXPECT_LE(test, fr.tunnels, carriers[i].tunnels);
			free(p);
		}
	}
}

/* Two-word digests: the second word tells apart what the first does not. */
static void ft_wide_stores(struct kunit *test)
{
	const uint64_t a[2] = { 1, 2 }, b[2] = { 1, 3 };
	struct truth_verdict v;
	struct truth t;
	struct dset d;
	uint64_t i, x[2];

	KUNIT_ASSERT_EQ(test, dset_init_words(&d, 2), 0);
	KUNIT_EXPECT_EQ(test, dset_add_id(&d, a), 0);
	KUNIT_EXPECT_EQ(test, dset_add_id(&d, b), 0);
	KUNIT_EXPECT_EQ(test, dset_add_id(&d, a), 1);
	for (i = 0; i < 100000; i++) {	/* growth keeps both words */
		x[0] = i / 2;
		x[1] = 1000 + i;
		KUNIT_ASSERT_EQ(test, dset_add_id(&d, x), 0);
	}
	KUNIT_EXPECT_EQ(test, dset_add_id(&d, b), 1);
	KUNIT_EXPECT_EQ(test, d.n, 100002u);
	dset_free(&d);
	KUNIT_ASSERT_EQ(test, truth_init_words(&t, 0, false, 2), 0);
	KUNIT_ASSERT_EQ(test, truth_set_horizon(&t, 4, 0), 0);
	KUNIT_ASSERT_EQ(test, truth_add_id(&t, a, 0, 0, &v), 0);
	KUNIT_EXPECT_FALSE(test, v.seen);
	KUNIT_ASSERT_EQ(test, truth_add_id(&t, b, 0, 0, &v), 0);
	KUNIT_EXPECT_FALSE(test, v.seen);
	KUNIT_ASSERT_EQ(test, truth_add_id(&t, a, 0, 0, &v), 0);
	KUNIT_EXPECT_TRUE(test, v.seen);
	KUNIT_EXPECT_EQ(test, v.gap, 2u);
	for (i = 0; i < 10; i++) {	/* a and b fall behind the horizon */
		x[0] = 1;
		x[1] = 100 + i;
		KUNIT_ASSERT_EQ(test, truth_add_id(&t, x, 0, 0, &v), 0);
	}
	KUNIT_ASSERT_EQ(test, truth_add_id(&t, b, 0, 0, &v), 0);
	KUNIT_EXPECT_TRUE(test, v.seen);
	KUNIT_EXPECT_EQ(test, v.gap, UINT64_MAX);
	truth_free(&t);
}

static struct kunit_case ft_cases[] = {
	KUNIT_CASE(ft_blake2b),
	KUNIT_CASE(ft_one_packet),
	KUNIT_CASE(ft_what_counts),
	KUNIT_CASE(ft_not_ip),
	KUNIT_CASE(ft_every_prefix),
	KUNIT_CASE(ft_wide_stores),
	{}
};

static struct kunit_suite ft_suite = {
	.name = "sim-frametruth",
	.test_cases = ft_cases,
};

kunit_test_suite(ft_suite);
