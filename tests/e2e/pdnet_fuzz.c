// SPDX-License-Identifier: GPL-2.0
/*
 * pdnet fuzz: malformed IPv4 and IPv6 packets as Ethernet frames.
 *
 *   pdnet fuzz IFACE DST_MAC [options]
 *	--seed S       the packets are a function of S (default 1)
 *	--count N      distinct packets per class (default 24; l4trunc takes
 *	               six times as many, to cut every header at every length
 *	               in both families, mutate twice); each is sent twice,
 *	               back to back
 *	--class C      only class C (default: all, in the order below)
 *	--key M        predict for key mode M: packet, src, dst, pair, flow
 *	               (default packet)
 *	--payload P    packet mode's payload bytes (default 64)
 *	--cpu N        send from CPU N (default 0): one filter sees them all
 *	--dry-run      build and predict, send nothing (IFACE and DST_MAC are
 *	               still read, but may be "-")
 *	--list         print the classes
 *
 * The frames go out through an AF_PACKET socket, so the sender's IP stack
 * checks nothing. For each frame it predicts what the receiver does: its
 * ip_rcv / ipv6_rcv (Linux 6.1) drops some before netfilter's PREROUTING
 * (bad version, IHL or header checksum, a length longer than the frame, a
 * bad first hop-by-hop header, loopback or multicast where RFC 4291 forbids
 * them); the rest reach the hook, trimmed to their IP length. What reaches
 * it goes through the core's own parser and key extraction
 * (module/core/key.c, linked in) over the bytes the module reads, so the
 * counts printed are what pktdedup should count: per class
 *
 *   class NAME sent F reach R unparsed U dups D skipped K truncated T
 *         bad-header H ext-limit E
 *
 * F frames sent, R of them reach the hook, U of those the core cannot
 * parse for the key (T, H, E by reason), D are parsed and carry a key seen
 * before in this run (copies, and distinct packets with equal keys: every
 * packet from one source under key src), K packets were not sent because
 * the prediction could not tell their fate (a first hop-by-hop header with
 * an option the kernel interprets). A final "total" line sums them.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pdnet.h"
#include "../../module/core/key.h"

/*
 * Bytes from the IP header the module reads, besides the packet key's
 * payload: its PD_HDR_ROOM (module/pktdedup.h), which module/main.c
 * asserts is the uAPI's query maximum less the largest payload.
 */
#define HDR_ROOM (PKTDEDUP_QUERY_PACKET_MAX - PKTDEDUP_QUERY_PAYLOAD_MAX)
#define PKT_MAX 1500		/* L3 bytes: veth's MTU */
#define TRIES 8			/* attempts at a packet whose fate is known */

/* IP protocol numbers libc may not name */
#define P_MH 135
#define P_HIP 139
#define P_SHIM6 140
#define P_NONE 59

struct fz {
	uint64_t rng;
	uint8_t src4[4], dst4[4], src6[16], dst6[16];
};

/* splitmix64 */
static uint64_t rnd(struct fz *z)
{
	uint64_t x = (z->rng += 0x9e3779b97f4a7c15ULL);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static unsigned int rn(struct fz *z, unsigned int n)
{
	return n ? (unsigned int)(rnd(z) % n) : 0;
}

static void fill(struct fz *z, uint8_t *p, size_t n)
{
	while (n--)
		*p++ = (uint8_t)rnd(z);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* ---- building ---- */

static void ip4_csum(uint8_t *b)
{
	size_t hl = (b[0] & 0x0f) * 4u;

	b[10] = b[11] = 0;
	put16(b + 10, fold(sum16(b, hl, 0)));
}

/* An IPv4 header of ihl words, options random, tot_len hl + l4len. */
static size_t ip4(struct fz *z, uint8_t *b, uint8_t proto, unsigned int ihl,
		  size_t l4len)
{
	size_t hl = ihl * 4u;

	memset(b, 0, 20);
	b[0] = (uint8_t)(0x40 | ihl);
	put16(b + 2, (uint16_t)(hl + l4len));
	put16(b + 4, (uint16_t)rnd(z));
	b[8] = 64;
	b[9] = proto;
	memcpy(b + 12, z->src4, 4);
	memcpy(b + 16, z->dst4, 4);
	if (hl > 20)
		fill(z, b + 20, hl - 20);
	ip4_csum(b);
	return hl;
}

static size_t ip6(struct fz *z, uint8_t *b, uint8_t nh, size_t plen)
{
	uint32_t fl = (uint32_t)rnd(z) & 0xfffff;

	memset(b, 0, 40);
	b[0] = 0x60;
	b[1] = (uint8_t)(fl >> 16);
	put16(b + 2, (uint16_t)fl);
	put16(b + 4, (uint16_t)plen);
	b[6] = nh;
	b[7] = 64;
	memcpy(b + 8, z->src6, 16);
	memcpy(b + 24, z->dst6, 16);
	return 40;
}

/* The L4 checksum at l4 + at over len bytes (a pseudo-header unless ICMP). */
static void l4_csum(const uint8_t *ip, bool v6, uint8_t proto, uint8_t *l4,
		    size_t len, size_t at)
{
	uint32_t s = 0;

	if (at + 2 > len)
		return;
	l4[at] = l4[at + 1] = 0;
	if (v6)
		s = sum16(ip + 8, 32, 0);
	else if (proto != IPPROTO_ICMP)
		s = sum16(ip + 12, 8, 0);
	if (v6 || proto != IPPROTO_ICMP)
		s += proto + (uint32_t)len;
	put16(l4 + at, fold(sum16(l4, len, s)));
}

/* The protocols with an L4 header the core reads, and its length. */
static const uint8_t l4_protos[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP,
	IPPROTO_SCTP, IPPROTO_UDPLITE, IPPROTO_DCCP };
static const uint8_t l4_hlen[] = { 20, 8, 8, 12, 8, 12 };

static uint8_t icmp_of(bool v6, uint8_t proto)
{
	return proto == IPPROTO_ICMP && v6 ? IPPROTO_ICMPV6 : proto;
}

/*
 * A valid L4 header of proto and paylen random bytes after it at l4 (ip
 * its IP header, for checksums); returns the L4 length.
 */
static size_t l4(struct fz *z, bool v6, const uint8_t *ip, uint8_t proto,
		 uint8_t *h, size_t paylen)
{
	size_t hl = 0, at = SIZE_MAX;

	switch (proto) {
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
		hl = 8;
		put16(h, (uint16_t)(20000 + rn(z, 40000)));
		put16(h + 2, (uint16_t)(9000 + rn(z, 100)));
		put16(h + 4, (uint16_t)(8 + paylen));
		at = 6;
		break;
	case IPPROTO_TCP:
		hl = 20;
		fill(z, h, 20);
		put16(h + 2, (uint16_t)(9000 + rn(z, 100)));
		h[12] = 5 << 4;
		h[13] = (const uint8_t[]){ 0x02, 0x10, 0x18, 0x11 }[rn(z, 4)];
		h[18] = h[19] = 0;
		at = 16;
		break;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		hl = 8;
		fill(z, h, 8);
		h[0] = proto == IPPROTO_ICMP ? 8 : 128;	/* echo request */
		h[1] = 0;
		at = 2;
		break;
	case IPPROTO_SCTP:
	case IPPROTO_DCCP:
		hl = 12;
		fill(z, h, 12);
		put16(h + 2, (uint16_t)(9000 + rn(z, 100)));
		break;
	default:
		break;
	}
	fill(z, h + hl, paylen);
	if (at != SIZE_MAX)
		l4_csum(ip, v6, proto, h, hl + paylen, at);
	return hl + paylen;
}

/* Set the IP length field to len (v4: and the header checksum). */
static void set_len(uint8_t *b, bool v6, size_t len)
{
	if (v6) {
		put16(b + 4, (uint16_t)(len - 40));
	} else {
		put16(b + 2, (uint16_t)len);
		ip4_csum(b);
	}
}

/* A valid packet of proto (ICMP means ICMPv6 for v6); returns its length. */
static size_t valid(struct fz *z, bool v6, uint8_t proto, size_t paylen,
		    uint8_t *b)
{
	uint8_t p = icmp_of(v6, proto);
	size_t hl = v6 ? ip6(z, b, p, 0) : ip4(z, b, p, 5, 0);
	size_t n = l4(z, v6, b, p, b + hl, paylen);

	set_len(b, v6, hl + n);
	return hl + n;
}

/*
 * An IPv6 extension header of type t at h (nh next), of n bytes past its
 * first 8 (n a multiple of 8, or of 4 for AH); option headers are filled
 * with one option the kernel skips (type 0x1e: "skip if unknown");
 * returns its length.
 */
static size_t ext(struct fz *z, uint8_t *h, uint8_t t, uint8_t nh, size_t n)
{
	size_t len = 8 + n;

	fill(z, h, len);
	h[0] = nh;
	switch (t) {
	case IPPROTO_FRAGMENT:
		len = 8;
		h[1] = 0;
		put16(h + 2, 0);	/* offset 0, M 0: atomic */
		break;
	case IPPROTO_AH:
		h[1] = (uint8_t)(len / 4 - 2);
		break;
	case IPPROTO_HOPOPTS:
	case IPPROTO_DSTOPTS:
		h[1] = (uint8_t)(n / 8);
		h[2] = 0x1e;
		h[3] = (uint8_t)(len - 4);
		break;
	default:
		h[1] = (uint8_t)(n / 8);
		if (t == IPPROTO_ROUTING)
			h[3] = 0;	/* segments left */
		break;
	}
	return len;
}

/* ---- the classes: each builds packet i into b, L3 bytes ---- */

struct pkt {
	uint8_t b[PKT_MAX + 64];
	size_t len;
	bool v6;		/* ethertype IPv6 (else IPv4) */
};

static uint8_t any_l4(struct fz *z, bool v6)
{
	return icmp_of(v6, (const uint8_t[]){ IPPROTO_TCP, IPPROTO_UDP,
		IPPROTO_ICMP, IPPROTO_SCTP }[rn(z, 4)]);
}

static void c_valid(struct fz *z, unsigned long i, struct pkt *p)
{
	p->v6 = i & 1;
	p->len = valid(z, p->v6, any_l4(z, p->v6), rn(z, 200), p->b);
}

/* A version other than the ethertype's. */
static void c_version(struct fz *z, unsigned long i, struct pkt *p)
{
	unsigned int want;

	c_valid(z, i, p);
	want = p->v6 ? 6 : 4;
	p->b[0] = (uint8_t)((((want + 1 + rn(z, 15)) & 15) << 4) |
			    (p->b[0] & 0x0f));
}

/* IPv4: IHL below 5, past the frame, past the total length; options. */
static void c_ihl(struct fz *z, unsigned long i, struct pkt *p)
{
	unsigned int ihl = 6 + rn(z, 10);
	uint8_t *b = p->b;
	size_t hl;

	p->v6 = false;
	switch (i % 4) {
	case 0:		/* below 5 */
		p->len = valid(z, false, any_l4(z, false), rn(z, 64), b);
		b[0] = (uint8_t)(0x40 | rn(z, 5));
		ip4_csum(b);
		break;
	case 1:		/* past the frame */
		p->len = 20 + rn(z, ihl * 4 - 20);
		ip4(z, b, any_l4(z, false), 5, p->len - 20);
		fill(z, b + 20, p->len - 20);
		b[0] = (uint8_t)(0x40 | ihl);
		break;
	case 2:		/* past the total length */
		hl = ip4(z, b, IPPROTO_UDP, ihl, 0);
		p->len = hl + l4(z, false, b, IPPROTO_UDP, b + hl, rn(z, 32));
		set_len(b, false, 20 + rn(z, hl - 20));
		break;
	default:	/* options, valid or not, and a valid packet */
		hl = ip4(z, b, any_l4(z, false), ihl, 0);
		if (rn(z, 2))
			memset(b + 20, 1, hl - 20);	/* NOPs */
		p->len = hl + l4(z, false, b, b[9], b + hl, rn(z, 64));
		set_len(b, false, p->len);
		break;
	}
}

/* Total / payload length longer or shorter than the frame, or zero. */
static void c_len(struct fz *z, unsigned long i, struct pkt *p)
{
	uint8_t *b = p->b;
	size_t real, fixed;

	p->v6 = i & 1;
	fixed = p->v6 ? 40 : 20;
	switch ((i >> 1) % 3) {
	case 0:		/* longer */
		p->len = valid(z, p->v6, any_l4(z, p->v6), rn(z, 100), b);
		set_len(b, p->v6, p->len + 1 + rn(z, 200));
		break;
	case 1:		/* shorter: the receiver trims the frame */
		p->len = valid(z, p->v6, any_l4(z, p->v6), rn(z, 100), b);
		set_len(b, p->v6, fixed + rn(z, (unsigned int)(p->len - fixed)));
		break;
	default:
		if (!p->v6) {	/* below the header */
			p->len = valid(z, false, any_l4(z, false), rn(z, 64), b);
			put16(b + 2, (uint16_t)rn(z, 20));
			ip4_csum(b);
			break;
		}
		/* zero with a hop-by-hop header first: a jumbogram's
		 * length without its option, not trimmed */
		ip6(z, b, IPPROTO_HOPOPTS, 0);
		real = 40 + ext(z, b + 40, IPPROTO_HOPOPTS, IPPROTO_UDP, 0);
		p->len = real + l4(z, true, b, IPPROTO_UDP, b + real, rn(z, 64));
		put16(b + 4, 0);
		break;
	}
}

/* Bad IPv4 header checksums; bad L4 checksums (both families). */
static void c_csum(struct fz *z, unsigned long i, struct pkt *p)
{
	size_t hl;

	p->v6 = (i % 3) == 2;
	p->len = valid(z, p->v6, any_l4(z, p->v6), rn(z, 100), p->b);
	if (i % 3 == 0) {
		put16(p->b + 10, (uint16_t)(get16(p->b + 10) ^ (1 + rn(z, 0xfffe))));
		return;
	}
	hl = p->v6 ? 40 : 20;
	if (p->len > hl + 4)
		p->b[hl + 4 + rn(z, (unsigned int)(p->len - hl - 4))] ^= 0x5a;
}

/* Fragments: first with a truncated L4, later, tiny, overlapping, past 64K. */
static void c_frag(struct fz *z, unsigned long i, struct pkt *p)
{
	unsigned int k = rn(z, 6), v = (unsigned int)(i >> 1) % 6;
	uint8_t proto = l4_protos[k], *b = p->b, *f;
	size_t n, hl;
	uint16_t off = 0;
	bool mf = rn(z, 2);

	p->v6 = i & 1;
	proto = icmp_of(p->v6, proto);
	hl = p->v6 ? ip6(z, b, IPPROTO_FRAGMENT, 0) + 8 :
		     ip4(z, b, proto, 5, 0);
	switch (v) {
	case 0:		/* first, L4 cut short */
		mf = true;
		n = l4(z, p->v6, b, proto, b + hl, 0);
		n = rn(z, (unsigned int)n);
		break;
	case 1:		/* later */
		off = (uint16_t)(1 + rn(z, 8191));
		n = rn(z, 64);
		fill(z, b + hl, n);
		break;
	case 2:		/* tiny, later */
		off = (uint16_t)(1 + rn(z, 8));
		mf = true;
		n = 1 + rn(z, 8);
		fill(z, b + hl, n);
		break;
	case 3:		/* overlapping: offsets 0 to 2, 16 to 31 bytes */
		proto = IPPROTO_UDP;
		if (!p->v6)
			b[9] = proto;
		off = (uint16_t)rn(z, 3);
		mf = true;
		n = 16 + rn(z, 16);
		if (off)
			fill(z, b + hl, n);
		else
			l4(z, p->v6, b, proto, b + hl, n - 8);
		break;
	case 4:		/* past 64 KiB */
		off = (uint16_t)(8189 + rn(z, 3));
		n = 24 + rn(z, 40);
		fill(z, b + hl, n);
		break;
	default:	/* v4: no data; v6: the fragment header cut short */
		n = 0;
		break;
	}
	p->len = hl + n;
	if (p->v6) {
		f = b + 40;
		fill(z, f, 8);
		f[0] = proto;
		f[1] = 0;
		put16(f + 2, (uint16_t)(off << 3 | mf));
		if (v == 5) {
			p->len = 40 + rn(z, 8);
			if (rn(z, 2))	/* a second fragment header */
				f[0] = IPPROTO_FRAGMENT;
		}
	} else {
		put16(b + 6, (uint16_t)(off | (mf ? 0x2000 : 0)));
	}
	set_len(b, p->v6, p->len);
}

static const uint8_t ext_types[] = { IPPROTO_HOPOPTS, IPPROTO_DSTOPTS,
	IPPROTO_ROUTING, IPPROTO_FRAGMENT, IPPROTO_AH, P_MH, P_HIP, P_SHIM6 };

/*
 * IPv6 extension headers: long chains, one type repeated ("loops"), a
 * header length past the packet, headers past what the module reads, a
 * first hop-by-hop header of random options.
 */
static void c_ext(struct fz *z, unsigned long i, struct pkt *p)
{
	unsigned int v = (unsigned int)(i % 5), n, j;
	uint8_t *b = p->b, t, types[24];
	size_t off = 40, last = 40;

	p->v6 = true;
	n = v == 0 ? 1 + rn(z, 20) : v == 1 ? 2 + rn(z, 14) : 1 + rn(z, 4);
	for (j = 0; j < n; j++) {
		t = ext_types[rn(z, sizeof(ext_types))];
		if (v == 1 && j)	/* a loop: the first's type again */
			t = types[0];
		if (v == 4 && !j)	/* hop-by-hop first */
			t = IPPROTO_HOPOPTS;
		types[j] = t;
	}
	ip6(z, b, types[0], 0);
	for (j = 0; j < n; j++) {
		uint8_t nh = j + 1 < n ? types[j + 1] : IPPROTO_UDP;
		size_t more = 8 * rn(z, 3);

		if (v == 3 && j == n - 1)
			more = 8 * (12 + rn(z, 150));	/* 104 to 1296 bytes */
		if (off + 8 + more + 8 > PKT_MAX)
			more = 0;
		last = off;
		off += ext(z, b + off, types[j], nh, more);
	}
	p->len = off + l4(z, true, b, IPPROTO_UDP, b + off, rn(z, 48));
	if (v == 2)		/* the last header's length past the packet */
		b[last + 1] = (uint8_t)(b[last + 1] + 1 + rn(z, 255));
	if (v == 4)		/* the first (hop-by-hop) header's options random */
		fill(z, b + 42, 6);
	set_len(b, true, p->len);
}

/*
 * L4 headers cut at every length (both families, TCP, UDP, ICMP/ICMPv6,
 * SCTP, UDP-Lite, DCCP), and TCP data offsets below 5 or past the packet.
 */
static void c_l4trunc(struct fz *z, unsigned long i, struct pkt *p)
{
	unsigned long k = i % 70;
	unsigned int pi = 0, cut;
	uint8_t *b = p->b, proto;
	size_t hl;

	/* 70 variants, the family alternating: 140 packets cover them all */
	p->v6 = (i + i / 70) & 1;
	if (k >= 68) {		/* TCP data offset */
		p->len = valid(z, p->v6, IPPROTO_TCP, 0, b);
		b[p->len - 20 + 12] = (uint8_t)((k == 68 ? rn(z, 5) :
						  6 + rn(z, 10)) << 4);
		return;
	}
	for (cut = (unsigned int)k; cut >= l4_hlen[pi]; pi++)
		cut -= l4_hlen[pi];
	proto = icmp_of(p->v6, l4_protos[pi]);
	hl = p->v6 ? ip6(z, b, proto, 0) : ip4(z, b, proto, 5, 0);
	l4(z, p->v6, b, proto, b + hl, 0);
	p->len = hl + cut;
	set_len(b, p->v6, p->len);
}

/* ICMP / ICMPv6 errors quoting truncated or garbage packets. */
static void c_icmperr(struct fz *z, unsigned long i, struct pkt *p)
{
	static const uint8_t t4[] = { 3, 11, 12, 5, 4 }, t6[] = { 1, 2, 3, 4 };
	unsigned int v = (unsigned int)(i >> 1) % 4;
	uint8_t *b = p->b, proto, *ic;
	size_t hl, n, q;

	p->v6 = i & 1;
	proto = p->v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
	hl = p->v6 ? ip6(z, b, proto, 0) : ip4(z, b, proto, 5, 0);
	ic = b + hl;
	fill(z, ic, 8);
	ic[0] = p->v6 ? t6[rn(z, 4)] : t4[rn(z, 5)];
	ic[1] = (uint8_t)rn(z, 5);
	switch (v) {
	case 0:		/* a valid packet of either family, cut */
	case 1:
		q = valid(z, v == 1 ? !p->v6 : p->v6, any_l4(z, p->v6),
			  rn(z, 64), ic + 8);
		n = 8 + rn(z, (unsigned int)q + 1);
		break;
	case 2:		/* garbage */
		n = 8 + rn(z, 100);
		fill(z, ic + 8, n - 8);
		break;
	default:	/* the ICMP header itself cut */
		n = rn(z, 8);
		break;
	}
	l4_csum(b, p->v6, proto, ic, n, 2);
	p->len = hl + n;
	set_len(b, p->v6, p->len);
}

/* No payload: bare L4 headers, no L4 at all. */
static void c_zero(struct fz *z, unsigned long i, struct pkt *p)
{
	unsigned int v = (unsigned int)(i >> 1) % 6;
	uint8_t *b = p->b, proto;
	size_t hl;

	p->v6 = i & 1;
	if (v < 4) {
		proto = icmp_of(p->v6, l4_protos[v]);
		p->len = valid(z, p->v6, proto, 0, b);
		return;
	}
	proto = v == 4 ? icmp_of(p->v6, IPPROTO_UDP) : P_NONE;
	hl = p->v6 ? ip6(z, b, proto, 0) : ip4(z, b, proto, 5, 0);
	p->len = hl;
	set_len(b, p->v6, p->len);
}

static bool known_proto(uint8_t t)
{
	size_t k;

	if (t == IPPROTO_ICMPV6)
		return true;
	for (k = 0; k < sizeof(l4_protos); k++)
		if (l4_protos[k] == t)
			return true;
	for (k = 0; k < sizeof(ext_types); k++)
		if (ext_types[k] == t)
			return true;
	return false;
}

/* Protocols the core knows nothing of. */
static void c_proto(struct fz *z, unsigned long i, struct pkt *p)
{
	uint8_t proto, *b = p->b;
	size_t hl, n = rn(z, 65);

	p->v6 = i & 1;
	do
		proto = (uint8_t)rn(z, 256);
	while (known_proto(proto));
	hl = p->v6 ? ip6(z, b, proto, 0) : ip4(z, b, proto, 5, 0);
	fill(z, b + hl, n);
	p->len = hl + n;
	set_len(b, p->v6, p->len);
}

/* Valid packets, mutated: bit flips, truncation, insertion, deletion. */
static void c_mutate(struct fz *z, unsigned long i, struct pkt *p)
{
	unsigned int m = 1 + rn(z, 3), pos, k;
	uint8_t *b = p->b;

	c_valid(z, i, p);
	while (m--) {
		switch (rn(z, 4)) {
		case 0:		/* 1 to 8 bit flips */
			for (k = 1 + rn(z, 8); k; k--) {
				pos = rn(z, (unsigned int)p->len * 8);
				b[pos / 8] ^= (uint8_t)(1 << (pos % 8));
			}
			break;
		case 1:		/* truncation */
			p->len = rn(z, (unsigned int)p->len + 1);
			break;
		case 2:		/* 1 to 16 bytes inserted */
			k = 1 + rn(z, 16);
			if (p->len + k > PKT_MAX)
				break;
			pos = rn(z, (unsigned int)p->len + 1);
			memmove(b + pos + k, b + pos, p->len - pos);
			fill(z, b + pos, k);
			p->len += k;
			break;
		default:	/* 1 to 16 bytes deleted */
			k = 1 + rn(z, 16);
			if (k > p->len)
				k = (unsigned int)p->len;
			pos = rn(z, (unsigned int)(p->len - k) + 1);
			memmove(b + pos, b + pos + k, p->len - pos - k);
			p->len -= k;
			break;
		}
		if (!p->len)
			break;
	}
	/* half of them get their lengths and checksum right again */
	if (rn(z, 2) && p->len >= (p->v6 ? 40u : 20u)) {
		if (p->v6)
			set_len(b, true, p->len);
		else if ((b[0] & 0x0f) * 4u <= p->len && (b[0] & 0x0f) >= 5)
			set_len(b, false, p->len);
	}
}

struct fz_class {
	const char *name;
	void (*gen)(struct fz *z, unsigned long i, struct pkt *p);
	unsigned int weight;	/* packets: weight * --count */
};

static const struct fz_class classes[] = {
	{ "valid", c_valid, 1 },
	{ "version", c_version, 1 },
	{ "ihl", c_ihl, 1 },
	{ "len", c_len, 1 },
	{ "csum", c_csum, 1 },
	{ "frag", c_frag, 1 },
	{ "ext", c_ext, 1 },
	{ "l4trunc", c_l4trunc, 6 },
	{ "icmperr", c_icmperr, 1 },
	{ "zero", c_zero, 1 },
	{ "proto", c_proto, 1 },
	{ "mutate", c_mutate, 2 },
};

/* ---- what the receiver does ---- */

enum { RX_DROP = -1, RX_UNSURE = -2 };

static bool v6_zero15_one(const uint8_t *a)
{
	static const uint8_t lo[16] = { [15] = 1 };

	return !memcmp(a, lo, 16);
}

/* ip6_parse_tlv() of a first hop-by-hop header of extlen bytes at h. */
static int rx_hbh(const uint8_t *h, int extlen)
{
	int off = 2, len = extlen - 2, padlen = 0, count = 0, i;

	while (len > 0) {
		int optlen;

		if (h[off] == 0) {		/* Pad1 */
			if (++padlen > 7)
				return RX_DROP;
			off++;
			len--;
			continue;
		}
		if (len < 2)
			return RX_DROP;
		optlen = h[off + 1] + 2;
		if (optlen > len)
			return RX_DROP;
		if (h[off] == 1) {		/* PadN */
			padlen += optlen;
			if (padlen > 7)
				return RX_DROP;
			for (i = 2; i < optlen; i++)
				if (h[off + i])
					return RX_DROP;
		} else {
			if (++count > 8)	/* max_hbh_opts_cnt */
				return RX_DROP;
			switch (h[off]) {
			case 5:			/* router alert */
				if (h[off + 1] != 2)
					return RX_DROP;
				break;
			case 7:			/* CALIPSO */
			case 49:		/* IOAM */
			case 194:		/* jumbo */
				return RX_UNSURE;
			default:		/* unknown */
				if (h[off] >> 6)
					return RX_DROP;
				break;
			}
			padlen = 0;
		}
		off += optlen;
		len -= optlen;
	}
	return 0;
}

/*
 * The bytes Linux 6.1's ip_rcv_core() / ip6_rcv_core() pass on to
 * PREROUTING: their length, RX_DROP, or RX_UNSURE.
 */
static long rx_reach(const struct pkt *p)
{
	const uint8_t *b = p->b;
	size_t len = p->len, hl, tot;
	int r;

	if (!p->v6) {
		if (len < 20 || b[0] >> 4 != 4 || (b[0] & 0x0f) < 5)
			return RX_DROP;
		hl = (b[0] & 0x0f) * 4u;
		if (hl > len || fold(sum16(b, hl, 0)))
			return RX_DROP;
		tot = get16(b + 2);
		if (tot > len || tot < hl)
			return RX_DROP;
		return (long)tot;
	}
	if (len < 40 || b[0] >> 4 != 6)
		return RX_DROP;
	if (v6_zero15_one(b + 8) || v6_zero15_one(b + 24))
		return RX_DROP;		/* loopback */
	if (b[24] == 0xff && (b[25] & 0x0f) <= 1)
		return RX_DROP;		/* multicast, scope 0 or 1 */
	if (b[8] == 0xff)
		return RX_DROP;		/* multicast source */
	tot = get16(b + 4);
	if (tot || b[6] != IPPROTO_HOPOPTS) {
		if (tot + 40 > len)
			return RX_DROP;
		len = tot + 40;
	}
	if (b[6] == IPPROTO_HOPOPTS) {
		if (len < 48 || 40 + (b[41] + 1u) * 8 > len)
			return RX_DROP;
		r = rx_hbh(b + 40, (b[41] + 1) * 8);
		if (r)
			return r;
	}
	return (long)len;
}

/* ---- keys seen: a set of 64-bit hashes of whole keys ---- */

struct keyset {
	uint64_t *h;
	size_t cap, n;
};

static uint64_t fnv(const uint8_t *p, size_t n, uint64_t h)
{
	while (n--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

/* Insert; whether it was there. */
static bool keyset_add(struct keyset *s, const struct pd_key *k)
{
	uint64_t h = fnv(k->buf, k->len, 0xcbf29ce484222325ULL);
	size_t i;

	h = fnv(k->tail ? k->tail : (const uint8_t *)"", k->tail_len, h);
	h = fnv((const uint8_t *)&k->len, sizeof(k->len), h) | 1;
	if (2 * (s->n + 1) > s->cap) {
		struct keyset t = { .cap = s->cap ? 2 * s->cap : 1024 };

		t.h = calloc(t.cap, sizeof(*t.h));
		if (!t.h)
			die("calloc");
		for (i = 0; i < s->cap; i++)
			if (s->h[i]) {
				size_t j = s->h[i] & (t.cap - 1);

				while (t.h[j])
					j = (j + 1) & (t.cap - 1);
				t.h[j] = s->h[i];
			}
		t.n = s->n;
		free(s->h);
		*s = t;
	}
	for (i = h & (s->cap - 1); s->h[i]; i = (i + 1) & (s->cap - 1))
		if (s->h[i] == h)
			return true;
	s->h[i] = h;
	s->n++;
	return false;
}

/* ---- running ---- */

struct counts {
	unsigned long sent, reach, unparsed, dups, skipped;
	unsigned long why[PD_PARSE_NRESULTS];
};

struct run {
	struct fz z;
	struct pd_key_opts kopts;
	struct keyset seen;
	int fd;
	bool dry;
	struct sockaddr_ll to;
	uint8_t mac_src[6], mac_dst[6];
	unsigned long frames;
};

static void tx(struct run *r, const struct pkt *p)
{
	uint8_t f[sizeof(p->b) + 14];

	if (r->dry)
		return;
	memcpy(f, r->mac_dst, 6);
	memcpy(f + 6, r->mac_src, 6);
	put16(f + 12, p->v6 ? ETHERTYPE_IPV6 : ETHERTYPE_IP);
	memcpy(f + 14, p->b, p->len);
	if (sendto(r->fd, f, 14 + p->len, 0, (void *)&r->to,
		   sizeof(r->to)) < 0)
		die("sendto");
	/* the receiver's backlog holds 1000 */
	if (++r->frames % 64 == 0)
		usleep(1000);
}

/* One packet, twice: predict, count, send. */
static void one(struct run *r, const struct pkt *p, struct counts *c)
{
	long len = rx_reach(p);
	u32 n = (u32)PD_MIN((unsigned long)(len < 0 ? 0 : len),
			    (unsigned long)(HDR_ROOM + r->kopts.payload));
	struct pd_key key;
	enum pd_parse_result res;
	int copy;

	for (copy = 0; copy < 2; copy++) {
		tx(r, p);
		c->sent++;
		if (len < 0)
			continue;
		c->reach++;
		res = pd_key_extract(p->b, n, &r->kopts, &key);
		if (res != PD_PARSE_OK) {
			c->unparsed++;
			c->why[res]++;
		} else if (keyset_add(&r->seen, &key)) {
			c->dups++;
		}
	}
}

static void print_counts(const char *name, const struct counts *c)
{
	printf("class %s sent %lu reach %lu unparsed %lu dups %lu skipped %lu "
	       "truncated %lu bad-header %lu ext-limit %lu bad-version %lu\n",
	       name, c->sent, c->reach, c->unparsed, c->dups, c->skipped,
	       c->why[PD_PARSE_TRUNCATED], c->why[PD_PARSE_BAD_HEADER],
	       c->why[PD_PARSE_EXT_LIMIT], c->why[PD_PARSE_BAD_VERSION]);
}

static void run_class(struct run *r, unsigned int ci, unsigned long count,
		      uint64_t seed, struct counts *total)
{
	const struct fz_class *cl = &classes[ci];
	struct counts c = { 0 };
	unsigned long i, n = count * cl->weight, k;
	struct pkt p;
	int t;

	/* a class's packets do not depend on which others run */
	r->z.rng = seed * 0x9e3779b97f4a7c15ULL + ci + 1;
	for (i = 0; i < n; i++) {
		for (t = 0; t < TRIES; t++) {
			memset(&p, 0, sizeof(p));
			cl->gen(&r->z, i, &p);
			/* b answering itself would add packets to its count */
			if (p.v6 && p.len >= 40 && !memcmp(p.b + 8, r->z.dst6, 16))
				continue;
			if (rx_reach(&p) != RX_UNSURE)
				break;
		}
		if (t == TRIES)
			c.skipped++;
		else
			one(r, &p, &c);
	}
	print_counts(cl->name, &c);
	total->sent += c.sent;
	total->reach += c.reach;
	total->unparsed += c.unparsed;
	total->dups += c.dups;
	total->skipped += c.skipped;
	for (k = 0; k < PD_PARSE_NRESULTS; k++)
		total->why[k] += c.why[k];
}

static int parse_mac(const char *s, uint8_t *m)
{
	unsigned int v[6], k;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4],
		   &v[5]) != 6)
		return -1;
	for (k = 0; k < 6; k++)
		m[k] = (uint8_t)v[k];
	return 0;
}

static void setup_socket(struct run *r, const char *ifname)
{
	struct ifreq ifr = { 0 };

	r->fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (r->fd < 0)
		die("socket(AF_PACKET)");
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(r->fd, SIOCGIFHWADDR, &ifr))
		die(ifname);
	memcpy(r->mac_src, ifr.ifr_hwaddr.sa_data, 6);
	r->to.sll_family = AF_PACKET;
	r->to.sll_ifindex = (int)if_nametoindex(ifname);
	if (!r->to.sll_ifindex)
		die(ifname);
	r->to.sll_halen = 6;
	memcpy(r->to.sll_addr, r->mac_dst, 6);
}

int cmd_fuzz(int argc, char **argv)
{
	static struct pd_nh_key nhkey;
	struct run r = { .kopts = { .mode = PKTDEDUP_KEY_PACKET,
				    .payload = PD_KEY_DEFAULT_PAYLOAD } };
	unsigned long count = 24, cpu = 0, seed = 1, payload = r.kopts.payload;
	const char *only = NULL;
	struct counts total = { 0 };
	unsigned int ci, m;
	bool found = false;
	int a;

	if (argc >= 1 && !strcmp(argv[0], "--list")) {
		for (ci = 0; ci < PD_ARRAY_SIZE(classes); ci++)
			printf("%s\n", classes[ci].name);
		return 0;
	}
	if (argc < 2) {
		fprintf(stderr, "fuzz: IFACE DST_MAC [options]\n");
		return 2;
	}
	inet_pton(AF_INET, "10.1.0.1", r.z.src4);
	inet_pton(AF_INET, "10.1.0.2", r.z.dst4);
	inet_pton(AF_INET6, "fd01::1", r.z.src6);
	inet_pton(AF_INET6, "fd01::2", r.z.dst6);
	for (a = 2; a < argc; a++) {
		unsigned long *v = NULL;

		if (!strcmp(argv[a], "--dry-run")) {
			r.dry = true;
			continue;
		}
		if (a + 1 == argc) {
			fprintf(stderr, "fuzz: %s needs a value\n", argv[a]);
			return 2;
		}
		if (!strcmp(argv[a], "--seed"))
			v = &seed;
		else if (!strcmp(argv[a], "--count"))
			v = &count;
		else if (!strcmp(argv[a], "--cpu"))
			v = &cpu;
		else if (!strcmp(argv[a], "--payload"))
			v = &payload;
		else if (!strcmp(argv[a], "--class"))
			only = argv[a + 1];
		else if (!strcmp(argv[a], "--key")) {
			for (m = 0; m < PD_KEY_NMODES; m++)
				if (pd_key_mode_names[m] &&
				    !strcmp(pd_key_mode_names[m], argv[a + 1]))
					break;
			if (m == PD_KEY_NMODES) {
				fprintf(stderr, "fuzz: no key %s\n", argv[a + 1]);
				return 2;
			}
			r.kopts.mode = (u8)m;
		} else {
			fprintf(stderr, "fuzz: unknown option %s\n", argv[a]);
			return 2;
		}
		if (v)
			*v = strtoul(argv[a + 1], NULL, 0);
		a++;
	}
	if (payload > PD_KEY_MAX_PAYLOAD) {
		fprintf(stderr, "fuzz: payload above %d\n", PD_KEY_MAX_PAYLOAD);
		return 2;
	}
	/* the module reads payload bytes in packet mode only */
	r.kopts.payload = r.kopts.mode == PKTDEDUP_KEY_PACKET ? (u16)payload : 0;
	/* any NH key tells this run's frames apart as the module's does */
	pd_nh_key_seed(&nhkey, seed);
	r.kopts.nh = &nhkey;
	if (!r.dry) {
		if (parse_mac(argv[1], r.mac_dst)) {
			fprintf(stderr, "fuzz: bad MAC %s\n", argv[1]);
			return 2;
		}
		setup_socket(&r, argv[0]);
		pin(cpu);
	}
	for (ci = 0; ci < PD_ARRAY_SIZE(classes); ci++) {
		if (only && strcmp(only, classes[ci].name))
			continue;
		found = true;
		run_class(&r, ci, count, seed, &total);
	}
	if (!found) {
		fprintf(stderr, "fuzz: no class %s\n", only);
		return 2;
	}
	print_counts("total", &total);
	free(r.seen.h);
	return 0;
}
