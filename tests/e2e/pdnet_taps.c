// SPDX-License-Identifier: GPL-2.0
/*
 * pdnet taps: what two taps (or two paths) and a traffic mirror deliver to
 * one host, for the task pages' recipe scenarios.
 *
 *   pdnet taps SRC DST COUNT IF1=MAC1 IF2=MAC2 [--mirror IF=MAC,VSRC,VDST]
 *              [--mirror-every K] [--again-after MS] [--late-ns NS]
 *              [--first N]
 *	COUNT distinct UDP datagrams from SRC to DST (IPv4, port 9000, each
 *	its own sequence number in its IP ID and its 32 bytes of payload).
 *	Each is sent as an Ethernet frame to MAC1 through a packet socket on
 *	IF1, then at once to MAC2 on IF2 one hop later (TTL one less, its
 *	header checksum again): the same packet from two taps, or from two
 *	paths into a router. With --mirror, every Kth (1) is sent a third
 *	time on IF, whole (its Ethernet header too) inside VXLAN (VNI 100)
 *	from VSRC to VDST, UDP port 4789, to MAC: a traffic mirror's copy.
 *	With --again-after, the whole of it again (each datagram, its copy
 *	and its mirrored copy) MS ms later: a retransmission of every
 *	datagram, byte for byte. 1 ms of sleep after every 32 frames (veth's
 *	ring holds 256). Prints "sent N copies C late L": the frames sent,
 *	how many of them were copies (on IF2 and the mirror), and how many
 *	copies went NS ns (10 ms) or more after their datagram's first frame
 *	(a preempted sender), which a window that short may pass.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pdnet.h"

#define TAPS_PORT 9000
#define TAPS_VXLAN_PORT 4789
#define TAPS_VNI 100
#define TAPS_PAYLOAD 32
#define TAPS_FRAME (ETH_HLEN + 20 + 8 + TAPS_PAYLOAD)
#define TAPS_OUTER (ETH_HLEN + 20 + 8 + 8)

struct taps_out {
	int fd;
	uint8_t mac[ETH_ALEN];
	struct in_addr vsrc, vdst;	/* the mirror's */
};

static void taps_mac(const char *s, uint8_t *mac)
{
	unsigned int m[ETH_ALEN];
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4],
		   &m[5]) != ETH_ALEN) {
		fprintf(stderr, "pdnet: taps: %s: not a MAC address\n", s);
		exit(2);
	}
	for (i = 0; i < ETH_ALEN; i++)
		mac[i] = (uint8_t)m[i];
}

static void taps_addr(const char *s, struct in_addr *a)
{
	if (inet_pton(AF_INET, s, a) != 1) {
		fprintf(stderr, "pdnet: taps: %s: not an IPv4 address\n", s);
		exit(2);
	}
}

/* "IF=MAC" or "IF=MAC,VSRC,VDST": a packet socket on IF */
static void taps_open(char *arg, struct taps_out *o, bool mirror)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	char *mac = strchr(arg, '='), *vsrc, *vdst;

	if (!mac) {
		fprintf(stderr, "pdnet: taps: %s: want IF=MAC\n", arg);
		exit(2);
	}
	*mac++ = '\0';
	if (mirror) {
		vsrc = strchr(mac, ',');
		vdst = vsrc ? strchr(vsrc + 1, ',') : NULL;
		if (!vdst) {
			fprintf(stderr, "pdnet: taps: --mirror IF=MAC,VSRC,VDST\n");
			exit(2);
		}
		*vsrc++ = '\0';
		*vdst++ = '\0';
		taps_addr(vsrc, &o->vsrc);
		taps_addr(vdst, &o->vdst);
	}
	taps_mac(mac, o->mac);
	sll.sll_ifindex = (int)if_nametoindex(arg);
	if (!sll.sll_ifindex)
		die(arg);
	o->fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (o->fd < 0)
		die("socket(AF_PACKET)");
	if (bind(o->fd, (void *)&sll, sizeof(sll)))
		die("bind");
}

/* An IPv4 header of len bytes in all, its checksum made */
static void taps_ip(uint8_t *ip, size_t len, uint16_t id, uint8_t ttl,
		    struct in_addr src, struct in_addr dst)
{
	memset(ip, 0, 20);
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)len);
	put16(ip + 4, id);
	ip[8] = ttl;
	ip[9] = 17;	/* UDP */
	memcpy(ip + 12, &src, 4);
	memcpy(ip + 16, &dst, 4);
	put16(ip + 10, fold(sum16(ip, 20, 0)));
}

/* Datagram seq as sent to mac, hop later; UDP checksum 0 (none) */
static void taps_frame(uint8_t *f, const uint8_t *mac, unsigned long seq,
		       int hop, struct in_addr src, struct in_addr dst)
{
	static const uint8_t smac[ETH_ALEN] = { 2, 0, 0, 0, 0x5a, 1 };
	uint8_t *ip = f + ETH_HLEN, *udp = ip + 20;

	memcpy(f, mac, ETH_ALEN);
	memcpy(f + ETH_ALEN, smac, ETH_ALEN);
	put16(f + 12, ETH_P_IP);
	taps_ip(ip, 20 + 8 + TAPS_PAYLOAD, (uint16_t)seq, (uint8_t)(64 - hop),
		src, dst);
	put16(udp, (uint16_t)(20000 + seq % 40000));
	put16(udp + 2, TAPS_PORT);
	put16(udp + 4, 8 + TAPS_PAYLOAD);
	put16(udp + 6, 0);
	memset(udp + 8, 0, TAPS_PAYLOAD);
	snprintf((char *)udp + 8, TAPS_PAYLOAD, "pdnet taps %lu", seq);
}

/* f inside VXLAN to the mirror's MAC, from VSRC to VDST */
static size_t taps_vxlan(uint8_t *out, const uint8_t *f, size_t flen,
			 const struct taps_out *m, unsigned long seq)
{
	static const uint8_t smac[ETH_ALEN] = { 2, 0, 0, 0, 0x5a, 0xee };
	uint8_t *ip = out + ETH_HLEN, *udp = ip + 20, *vx = udp + 8;

	memcpy(out, m->mac, ETH_ALEN);
	memcpy(out + ETH_ALEN, smac, ETH_ALEN);
	put16(out + 12, ETH_P_IP);
	taps_ip(ip, 20 + 8 + 8 + flen, (uint16_t)(seq + 0x8000), 64, m->vsrc,
		m->vdst);
	put16(udp, (uint16_t)(49152 + seq % 16384));
	put16(udp + 2, TAPS_VXLAN_PORT);
	put16(udp + 4, (uint16_t)(8 + 8 + flen));
	put16(udp + 6, 0);
	memset(vx, 0, 8);
	vx[0] = 0x08;	/* I: the VNI is valid */
	vx[4] = (TAPS_VNI >> 16) & 0xff;
	vx[5] = (TAPS_VNI >> 8) & 0xff;
	vx[6] = TAPS_VNI & 0xff;
	memcpy(vx + 8, f, flen);
	return TAPS_OUTER + flen;
}

static long long taps_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

struct taps_run {
	struct taps_out tap[2], mirror;
	struct in_addr src, dst;
	unsigned long first, count, every, sent, copies, late;
	long long late_ns;
	bool mirrored;
};

static void taps_send(struct taps_run *r, int fd, const uint8_t *f, size_t len)
{
	if (send(fd, f, len, 0) != (ssize_t)len)
		die("send");
	if (++r->sent % 32 == 0)
		usleep(1000);
}

static void taps_round(struct taps_run *r)
{
	uint8_t f[TAPS_FRAME], v[TAPS_OUTER + TAPS_FRAME];
	unsigned long i, seq;
	long long t0;
	size_t vl;

	for (i = 0; i < r->count; i++) {
		seq = r->first + i;
		t0 = taps_ns();
		taps_frame(f, r->tap[0].mac, seq, 0, r->src, r->dst);
		taps_send(r, r->tap[0].fd, f, sizeof(f));
		taps_frame(f, r->tap[1].mac, seq, 1, r->src, r->dst);
		taps_send(r, r->tap[1].fd, f, sizeof(f));
		r->copies++;
		if (taps_ns() - t0 >= r->late_ns)
			r->late++;
		if (!r->mirrored || i % r->every)
			continue;
		taps_frame(f, r->tap[0].mac, seq, 0, r->src, r->dst);
		vl = taps_vxlan(v, f, sizeof(f), &r->mirror, seq);
		taps_send(r, r->mirror.fd, v, vl);
		r->copies++;
		if (taps_ns() - t0 >= r->late_ns)
			r->late++;
	}
}

int cmd_taps(int argc, char **argv)
{
	struct taps_run r = { .every = 1, .late_ns = 10000000 };
	unsigned long again_ms = 0;
	int a;

	if (argc < 5) {
		fprintf(stderr, "usage: pdnet taps SRC DST COUNT IF1=MAC1 IF2=MAC2 [--mirror IF=MAC,VSRC,VDST]\n"
			"                  [--mirror-every K] [--again-after MS] [--late-ns NS] [--first N]\n");
		return 2;
	}
	taps_addr(argv[0], &r.src);
	taps_addr(argv[1], &r.dst);
	r.count = strtoul(argv[2], NULL, 0);
	taps_open(argv[3], &r.tap[0], false);
	taps_open(argv[4], &r.tap[1], false);
	for (a = 5; a < argc; a++) {
		if (!strcmp(argv[a], "--mirror") && a + 1 < argc) {
			taps_open(argv[++a], &r.mirror, true);
			r.mirrored = true;
		} else if (!strcmp(argv[a], "--mirror-every") && a + 1 < argc) {
			r.every = strtoul(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "--again-after") && a + 1 < argc) {
			again_ms = strtoul(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "--late-ns") && a + 1 < argc) {
			r.late_ns = strtoll(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "--first") && a + 1 < argc) {
			r.first = strtoul(argv[++a], NULL, 0);
		} else {
			fprintf(stderr, "pdnet: taps: unknown option %s\n", argv[a]);
			return 2;
		}
	}
	if (!r.count || !r.every) {
		fprintf(stderr, "pdnet: taps: COUNT and K must not be 0\n");
		return 2;
	}
	taps_round(&r);
	if (again_ms) {
		usleep(again_ms * 1000);
		taps_round(&r);
	}
	printf("sent %lu copies %lu late %lu\n", r.sent, r.copies, r.late);
	return 0;
}
