// SPDX-License-Identifier: GPL-2.0
/*
 * make bench: what keying a tunnelled packet costs (config decap,
 * core/decap.h) against keying the packet it carries bare, in the same
 * run: the key extraction (pd_key_extract(): pd_parse_key() on the bytes
 * the module reads, pd_key_of()) and its one hash pass, per key mode, for
 * a 1500-byte TCP/IPv4 packet bare (decap none, and decap all: the cost of
 * looking at a packet that is no tunnel), in VXLAN over IPv4, in ERSPAN
 * III (GRE over IPv4), in GENEVE with 16 bytes of options, and in VXLAN in
 * GRE (two tunnels). The rounds interleave the variants, so that the
 * machine's drift falls on all of them alike; the ratio of each median to
 * the bare packet's is the figure that carries over.
 *
 * bench --trace-decap N: the same keys for eval/bench/lines-touched.sh,
 * which counts the 64-byte lines of each packet and of the key that one
 * key extraction touches, per variant and key mode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/core/decap.h"
#include "bench.h"

/*
 * Each packet in a buffer of its own, its IP header 14 bytes into a
 * 64-byte line: where an skb's network header is on x86 (NET_SKB_PAD 64,
 * NET_IP_ALIGN 0, the Ethernet header first), so that the lines a key
 * touches are the module's.
 */
#define DEC_BUF 2048
#define DEC_IP 14
#define DEC_INNER 1500		/* the inner packet: TCP/IPv4 */
#define DEC_ROUNDS 7
#define DEC_KEYS (STEPS / 16)

enum dec_variant {
	DEC_BARE,	/* decap none */
	DEC_BARE_ALL,	/* the same packet, decap all */
	DEC_VXLAN,
	DEC_ERSPAN3,
	DEC_GENEVE,
	DEC_GRE_VXLAN,
	DEC_NVARIANTS,
};

static const char *const dec_names[DEC_NVARIANTS] = {
	"bare", "bare-decap", "vxlan", "erspan3", "geneve-opts", "gre-vxlan",
};

static const char *const dec_desc[DEC_NVARIANTS] = {
	"bare, decap none",
	"bare, decap all (no tunnel)",
	"VXLAN in IPv4",
	"ERSPAN III in GRE in IPv4",
	"GENEVE in IPv4, 16 option bytes",
	"VXLAN in GRE in IPv4 (2 levels)",
};

static const u8 dec_modes[] = {
	PKTDEDUP_KEY_PACKET, PKTDEDUP_KEY_SRC, PKTDEDUP_KEY_DST,
	PKTDEDUP_KEY_PAIR, PKTDEDUP_KEY_FLOW,
};

struct dec_pkt {
	u8 *buf;	/* DEC_BUF bytes, 64-aligned; the IP header at DEC_IP */
	u32 len;	/* from the outer IP header */
	u32 inner;	/* the inner IP header, from the outer one */
};

/* Lines per key, read from lines-touched.sh's file (--lines). */
static double dec_lines[PD_ARRAY_SIZE(dec_modes)][DEC_NVARIANTS];

static void put16(u8 *p, u16 v)
{
	p[0] = (u8)(v >> 8);
	p[1] = (u8)v;
}

static void put32(u8 *p, u32 v)
{
	put16(p, (u16)(v >> 16));
	put16(p + 2, (u16)v);
}

/* An IPv4 header of total length tot and protocol proto: 20 bytes. */
static u32 put_ipv4(u8 *p, u32 tot, u8 proto, u8 last)
{
	memset(p, 0, 20);
	p[0] = 0x45;
	put16(p + 2, (u16)tot);
	p[6] = 0x40;		/* DF: a whole packet, not a fragment */
	p[8] = 64;
	p[9] = proto;
	p[12] = 10;
	p[15] = last;
	p[16] = 10;
	p[19] = (u8)(last + 1);
	return 20;
}

static u32 put_udp(u8 *p, u16 dport, u32 len)
{
	put16(p, 49152);
	put16(p + 2, dport);
	put16(p + 4, (u16)len);
	put16(p + 6, 0);
	return 8;
}

static u32 put_eth(u8 *p, u16 type)
{
	memset(p, 0x02, 12);
	put16(p + 12, type);
	return 14;
}

static u32 put_vxlan(u8 *p, u32 vni)
{
	memset(p, 0, 8);
	p[0] = 0x08;		/* I: the VNI is valid */
	put32(p + 4, vni << 8);
	return 8;
}

/* The bare packet: 1500 bytes of TCP/IPv4, a 20-byte TCP header. */
static void put_inner(u8 *p)
{
	memset(p, 0x5a, DEC_INNER);
	put_ipv4(p, DEC_INNER, IPPROTO_TCP, 1);
	memset(p + 20, 0, 20);
	put16(p + 20, 40000);
	put16(p + 22, 443);
	p[20 + 12] = 5 << 4;
}

/*
 * Variant v's packet: its headers, then the inner packet; returns where
 * the inner IP header is (from the outer one).
 */
static u32 dec_build(u8 *p, enum dec_variant v)
{
	u32 h = 0, n;

	switch (v) {
	case DEC_VXLAN:
		n = 20 + 8 + 8 + 14 + DEC_INNER;
		h += put_ipv4(p, n, IPPROTO_UDP, 100);
		h += put_udp(p + h, PD_VXLAN_PORT, n - 20);
		h += put_vxlan(p + h, 100);
		h += put_eth(p + h, 0x0800);
		break;
	case DEC_ERSPAN3:
		n = 20 + 8 + 12 + 14 + DEC_INNER;
		h += put_ipv4(p, n, IPPROTO_GRE, 100);
		put16(p + h, 0x1000);		/* S: a sequence number */
		put16(p + h + 2, 0x22eb);	/* ERSPAN III */
		put32(p + h + 4, 1);
		h += 8;
		memset(p + h, 0, 12);
		put16(p + h, 2 << 12);		/* version 2, VLAN 0 */
		put16(p + h + 2, 34);		/* session ID */
		put32(p + h + 4, 123456);	/* timestamp */
		h += 12;			/* frame type 0, no subheader */
		h += put_eth(p + h, 0x0800);
		break;
	case DEC_GENEVE:
		n = 20 + 8 + 8 + 16 + 14 + DEC_INNER;
		h += put_ipv4(p, n, IPPROTO_UDP, 100);
		h += put_udp(p + h, PD_GENEVE_PORT, n - 20);
		p[h] = 16 / 4;			/* version 0, 16 option bytes */
		p[h + 1] = 0;
		put16(p + h + 2, 0x6558);
		put32(p + h + 4, 200 << 8);
		h += 8;
		put16(p + h, 0x0102);		/* one option: its class, */
		p[h + 2] = 0x80;		/* type, */
		p[h + 3] = 3;			/* 3 words of data */
		memset(p + h + 4, 0x11, 12);
		h += 16;
		h += put_eth(p + h, 0x0800);
		break;
	case DEC_GRE_VXLAN:
		n = 20 + 4 + 20 + 8 + 8 + 14 + DEC_INNER;
		h += put_ipv4(p, n, IPPROTO_GRE, 100);
		put16(p + h, 0);
		put16(p + h + 2, 0x0800);
		h += 4;
		n -= 24;
		h += put_ipv4(p + h, n, IPPROTO_UDP, 200);
		h += put_udp(p + h, PD_VXLAN_PORT, n - 20);
		h += put_vxlan(p + h, 300);
		h += put_eth(p + h, 0x0800);
		break;
	default:
		break;
	}
	put_inner(p + h);
	return h;
}

static void dec_setup(struct dec_pkt *pk)
{
	unsigned int v;

	for (v = 0; v < DEC_NVARIANTS; v++) {
		if (posix_memalign((void **)&pk[v].buf, 64, DEC_BUF)) {
			fprintf(stderr, "bench: out of memory\n");
			exit(1);
		}
		memset(pk[v].buf, 0, DEC_BUF);
		pk[v].inner = dec_build(pk[v].buf + DEC_IP, v);
		pk[v].len = pk[v].inner + DEC_INNER;
	}
}

/* the NH key of every option set (any: costs do not depend on it) */
static struct pd_nh_key dec_nh;

static void dec_opts(struct pd_key_opts *o, u8 mode, enum dec_variant v)
{
	memset(o, 0, sizeof(*o));
	o->mode = mode;
	o->payload = PD_KEY_DEFAULT_PAYLOAD;
	pd_nh_key_seed(&dec_nh, 1);
	o->nh = &dec_nh;
	pd_decap_defaults(o);
	if (v != DEC_BARE)
		o->decap = PD_DECAP_ALL;
}

/* One key: extraction and hash, the inner IP ID varied by i. */
static inline u64 dec_key(const struct dec_pkt *p,
			  const struct pd_key_opts *o, u32 i)
{
	struct pd_key key;
	u8 *ip = p->buf + DEC_IP;

	ip[p->inner + 4] = (u8)i;	/* a new packet's IP ID */
	if (pd_key_extract(ip, p->len, o, &key) != PD_PARSE_OK)
		return 0;
	return pd_key_hash64(&key, &bench_hkey);
}

/* Every variant keys to the bare packet's key: else the bench is wrong. */
static void dec_check(const struct dec_pkt *pk)
{
	struct pd_key_opts o;
	unsigned int m, v;
	u64 want;

	for (m = 0; m < PD_ARRAY_SIZE(dec_modes); m++) {
		dec_opts(&o, dec_modes[m], DEC_BARE);
		want = dec_key(&pk[DEC_BARE], &o, 7);
		for (v = 0; v < DEC_NVARIANTS; v++) {
			dec_opts(&o, dec_modes[m], v);
			if (!want || dec_key(&pk[v], &o, 7) != want) {
				fprintf(stderr, "bench: %s, key %s: not the bare packet's key\n",
					dec_names[v], pd_key_mode_names[dec_modes[m]]);
				exit(1);
			}
		}
	}
}

static double dec_run(const struct dec_pkt *p, const struct pd_key_opts *o,
		      u32 n)
{
	double t0 = now_ns();
	u64 acc = 0;
	u32 i;

	for (i = 0; i < n; i++)
		acc += dec_key(p, o, i);
	keep((u32)acc);
	return (now_ns() - t0) / n;
}

void bench_decap(void)
{
	static double t[PD_ARRAY_SIZE(dec_modes)][DEC_NVARIANTS][DEC_ROUNDS];
	struct dec_pkt pk[DEC_NVARIANTS];
	struct pd_key_opts o;
	unsigned int m, v, r;
	char name[48];

	dec_setup(pk);
	dec_check(pk);
	for (r = 0; r < DEC_ROUNDS; r++)
		for (m = 0; m < PD_ARRAY_SIZE(dec_modes); m++)
			for (v = 0; v < DEC_NVARIANTS; v++) {
				dec_opts(&o, dec_modes[m], v);
				t[m][v][r] = dec_run(&pk[v], &o, DEC_KEYS);
			}
	printf("\ntunnelled packets (decap all) against the bare packet: a 1500-byte\n"
	       "TCP/IPv4 packet keyed (extraction + one SipHash-1-3 pass), ns per key,\n"
	       "median of %u rounds of %u keys, the variants interleaved; ratio:\n"
	       "against the bare packet with decap none, in the same run\n",
	       DEC_ROUNDS, DEC_KEYS);
	for (v = 0; v < DEC_NVARIANTS; v++)
		printf("  %-12s %s: %u bytes of tunnel headers\n",
		       dec_names[v], dec_desc[v], pk[v].inner);
	printf("%-7s", "key");
	for (v = 0; v < DEC_NVARIANTS; v++)
		printf(" %17s", dec_names[v]);
	printf("\n");
	for (m = 0; m < PD_ARRAY_SIZE(dec_modes); m++) {
		double base = 0;

		printf("%-7s", pd_key_mode_names[dec_modes[m]]);
		for (v = 0; v < DEC_NVARIANTS; v++) {
			double ns, lines = dec_lines[m][v];

			qsort(t[m][v], DEC_ROUNDS, sizeof(double), cmp_double);
			ns = t[m][v][DEC_ROUNDS / 2];
			if (!v)
				base = ns;
			printf(" %8.1f (%5.2fx)", ns, ns / base);
			snprintf(name, sizeof(name), "key-%s-%s",
				 pd_key_mode_names[dec_modes[m]], dec_names[v]);
			json_row(name, ns, lines ? lines : JSON_NONE,
				 JSON_NONE);
		}
		printf("\n");
	}
	for (v = 0; v < DEC_NVARIANTS; v++)
		free(pk[v].buf);
}

/* The trace's levels: "MODE-VARIANT" for the packet and flow keys. */
static const u8 dec_trace_modes[] = { PKTDEDUP_KEY_PACKET, PKTDEDUP_KEY_FLOW };
static u32 dec_marker[PD_ARRAY_SIZE(dec_trace_modes)][DEC_NVARIANTS];
static u32 dec_idle;

int trace_decap(u32 n)
{
	struct dec_pkt pk[DEC_NVARIANTS];
	struct pd_key_opts o;
	unsigned int m, v;
	struct pd_key key;
	u64 acc = 0;
	u32 i;

	dec_setup(pk);
	dec_check(pk);
	for (v = 0; v < DEC_NVARIANTS; v++)
		print_range("packet", pk[v].buf, DEC_BUF);
	print_range("key", &key, sizeof(key));
	for (m = 0; m < PD_ARRAY_SIZE(dec_trace_modes); m++)
		for (v = 0; v < DEC_NVARIANTS; v++)
			printf("marker %s-%s %lx\n",
			       pd_key_mode_names[dec_trace_modes[m]],
			       dec_names[v], (unsigned long)&dec_marker[m][v]);
	printf("marker - %lx\n", (unsigned long)&dec_idle);
	fflush(stdout);
	for (m = 0; m < PD_ARRAY_SIZE(dec_trace_modes); m++)
		for (v = 0; v < DEC_NVARIANTS; v++) {
			u8 *ip = pk[v].buf + DEC_IP;

			dec_opts(&o, dec_trace_modes[m], v);
			for (i = 0; i < n; i++) {
				__atomic_store_n(&dec_marker[m][v], i,
						 __ATOMIC_RELAXED);
				ip[pk[v].inner + 4] = (u8)i;
				if (pd_key_extract(ip, pk[v].len, &o, &key) ==
				    PD_PARSE_OK)
					acc += pd_key_hash64(&key, &bench_hkey);
			}
			__atomic_store_n(&dec_idle, v, __ATOMIC_RELAXED);
		}
	keep((u32)acc);
	for (v = 0; v < DEC_NVARIANTS; v++)
		free(pk[v].buf);
	return 0;
}

void decap_read_lines(const char *path)
{
	char name[64], want[64];
	FILE *in = fopen(path, "r");
	unsigned int m, v;
	double x;

	if (!in) {
		perror(path);
		exit(1);
	}
	while (fscanf(in, "%63s %lf", name, &x) == 2)
		for (m = 0; m < PD_ARRAY_SIZE(dec_modes); m++)
			for (v = 0; v < DEC_NVARIANTS; v++) {
				snprintf(want, sizeof(want), "%s-%s",
					 pd_key_mode_names[dec_modes[m]],
					 dec_names[v]);
				if (!strcmp(name, want))
					dec_lines[m][v] = x;
			}
	fclose(in);
}
