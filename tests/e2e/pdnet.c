// SPDX-License-Identifier: GPL-2.0
/*
 * pdnet: the e2e guest's traffic tool (static).
 *
 *   pdnet send -4|-6 SRC DST [options]   emit known packets and copies
 *	--count N      distinct packets (default 100)
 *	--first I      index of the first packet (default 0): packets I..I+N-1
 *	--copies C     times each packet is sent, back to back (default 1)
 *	--ttl-step     copy j has TTL (hop limit) 64 - j: TTL-only differences
 *	--flows F      distinct packets spread over F flows (source ports);
 *	               0 (default): every packet its own flow
 *	--port P       UDP destination port (default 9000)
 *	--proto N      IP protocol (next header) N instead of UDP's 17: the
 *	               same bytes follow the IP header (traffic selection)
 *	--dsts N       destination addresses DST, DST+1, ... (default 1)
 *	--srcs N       source addresses SRC + (I + i % N) (default 1), with
 *	--src-first I  the first offset (default 0); the offset is added to
 *	               the address's last two bytes
 *	--pause-every N  sleep 1 ms after every N packets (default 64)
 *	--again-after MS  send every packet once more MS ms after it (one
 *	               process: the gap is the sleep's, not a spawn's);
 *	               prints the gap measured between the two first packets
 *	--late-ns NS   count the copies that may have been judged NS ns or
 *	               more after their packet (from the start of the
 *	               packet's send to the end of the copy's) and print
 *	               "late N": what a window of NS may miss, measured
 *	--loop         repeat until killed (background traffic)
 *	--keep-going   a packet refused (EPERM: a netfilter drop at the
 *	               sender's output hook; no route) is skipped, not fatal
 *	--cpu N        send everything from CPU N (default 0): veth hands a
 *	               packet to the stack on the sending CPU, so this is
 *	               what RSS/RPS flow steering does to copies of a flow
 *	--alternate-cpus  copy j from CPU j % (CPUs online): copies of one
 *	               packet on different CPUs
 *	--gtpu FROM TO TEID  each packet inside a GTP-U G-PDU (TEID, no
 *	               extension header) in UDP from FROM:2152 to TO:2152
 *	               over IPv4, sent to TO: the kernel has no GTP-U device
 *	               an e2e guest could configure without a control plane
 *   pdnet dgram -4|-6 SRC DST [options]  UDP datagrams through a socket
 *	                                  (SOCK_DGRAM, bound to SRC), to
 *	                                  DST:PORT, DF set: an IPv4 ID of 0
 *	                                  in each (unconnected), so that a
 *	                                  copy is the same bytes
 *	--size N       payload bytes of each (default 8000)
 *	--count D      distinct datagrams (default 10), payloads unique to each
 *	--copies C     times each is sent, back to back (default 2)
 *	--near         copy j > 0 differs from the first in its last payload
 *	               byte (xor j): near-copies, none a copy of another
 *	--port P       destination port (default 9000)
 *	--segment S    UDP_SEGMENT S (default N): with S >= N the kernel
 *	               builds each datagram in page fragments (a non-linear
 *	               skb, checksum offloaded); with S < N it sends each as
 *	               a GSO train of N / S datagrams of S bytes (the last
 *	               one shorter), which the receiver's GRO may merge
 *   pdnet recv PORT IDLE_MS             count UDP datagrams to PORT (IPv4 and
 *	                                  IPv6) until IDLE_MS pass without one
 *   pdnet asuser UID CMD [ARG...]        run CMD as UID with no capabilities
 *   pdnet netns N                        create N network namespaces (each
 *	                                  held by an open /proc/self/ns/net),
 *	                                  then release them; prints "KIB
 *	                                  MS_CREATE MS_RELEASE": what Slab,
 *	                                  Percpu and VmallocUsed grew by while
 *	                                  they lived (caches dropped first),
 *	                                  and how long until the kernel gave
 *	                                  99% of it back (30 s at most)
 *   pdnet fuzz IFACE DST_MAC [options]   malformed IPv4/IPv6 frames, each
 *	                                  sent twice (pdnet_fuzz.c)
 *   pdnet replay FILE IFACE, pdnet record FILE IFACE IDLE_MS,
 *   pdnet pcapcmp A B                    a capture's frames sent in order
 *	                                  through a packet socket, the frames
 *	                                  an interface receives written to a
 *	                                  capture, two captures' frames
 *	                                  compared (pdnet_pcap.c)
 *   pdnet taps SRC DST COUNT IF1=MAC1 IF2=MAC2 [options]
 *	                                  datagrams as two taps and a mirror
 *	                                  deliver them (pdnet_taps.c)
 *   pdnet nonip IFACE DST_MAC COUNT [--vid VID]
 *	                                  frames that are not IP, each
 *	                                  untagged and again tagged from
 *	                                  other MACs (pdnet_nonip.c)
 *   pdnet time CMD [ARG...]              run CMD (its output discarded) and
 *	                                  print how long it took, ms; exit
 *	                                  with its status
 *   pdnet pty MS CMD [ARG...]            run CMD with its stdout and stderr
 *	                                  on a new pseudo-terminal, SIGINT it
 *	                                  MS ms after its first output (its
 *	                                  start-up does not count; MS + 30 s
 *	                                  after the start if it writes none),
 *	                                  print what it wrote
 *	                                  (a CR as the two characters \r) and
 *	                                  exit with its status (128 + signal)
 *
 * Packets are UDP with an IP ID / flow label and a payload unique to each
 * distinct packet; copies are byte-identical (raw IP with IP_HDRINCL /
 * IPV6_HDRINCL, checksums computed here), except TTL with --ttl-step.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pdnet.h"

#ifndef IPV6_HDRINCL
#define IPV6_HDRINCL 36
#endif

void die(const char *what)
{
	perror(what);
	exit(1);
}

uint32_t sum16(const uint8_t *p, size_t len, uint32_t s)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		s += (uint32_t)p[len - 1] << 8;
	return s;
}

uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

struct opts {
	bool v6, ttl_step, loop, alternate, keep_going, gtpu;
	uint8_t src[16], dst[16], gtpu_from[4], gtpu_to[4];
	unsigned long teid;
	unsigned long count, copies, flows, port, dsts, pause_every, cpu, first;
	unsigned long srcs, src_first, proto, again_ms, late_ns;
};

void pin(unsigned long cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

/* Build distinct packet i, copy j, into b; returns its length. */
static size_t build(const struct opts *o, unsigned long i, unsigned long j,
		    uint8_t *b, uint8_t *dst)
{
	unsigned long flow = o->flows ? i % o->flows : i;
	size_t alen = o->v6 ? 16 : 4, hl = o->v6 ? 40 : 20, plen = 32;
	uint8_t *udp = b + hl, *pl = udp + 8;
	uint8_t ttl = (uint8_t)(64 - (o->ttl_step ? j : 0));
	uint32_t s;
	size_t k;

	uint8_t src[16];
	unsigned long so = o->src_first + i % o->srcs;
	uint16_t low;

	memcpy(dst, o->dst, alen);
	dst[alen - 1] = (uint8_t)(dst[alen - 1] + i % o->dsts);
	memcpy(src, o->src, alen);
	low = (uint16_t)((src[alen - 2] << 8 | src[alen - 1]) + so);
	put16(src + alen - 2, low);
	memset(b, 0, hl + 8 + plen);
	if (o->v6) {
		b[0] = 0x60;
		b[1] = (uint8_t)((i >> 16) & 0x0f);	/* flow label: i */
		put16(b + 2, (uint16_t)i);
		put16(b + 4, (uint16_t)(8 + plen));
		b[6] = (uint8_t)o->proto;
		b[7] = ttl;
		memcpy(b + 8, src, 16);
		memcpy(b + 24, dst, 16);
	} else {
		b[0] = 0x45;
		put16(b + 2, (uint16_t)(hl + 8 + plen));
		put16(b + 4, (uint16_t)(i + 1));	/* IP ID: i + 1 */
		b[8] = ttl;
		b[9] = (uint8_t)o->proto;
		memcpy(b + 12, src, 4);
		memcpy(b + 16, dst, 4);
	}
	put16(udp, (uint16_t)(20000 + flow % 40000));
	put16(udp + 2, (uint16_t)o->port);
	put16(udp + 4, (uint16_t)(8 + plen));
	for (k = 0; k < plen; k++)
		pl[k] = (uint8_t)(i >> (8 * (k % 4)) ^ k);
	/* UDP checksum over the pseudo-header */
	s = sum16(b + (o->v6 ? 8 : 12), 2 * alen, 0);
	s += IPPROTO_UDP + 8 + (uint32_t)plen;
	s = sum16(udp, 8 + plen, s);
	put16(udp + 6, fold(s) ? fold(s) : 0xffff);
	if (!o->v6)
		put16(b + 10, fold(sum16(b, hl, 0)));
	return hl + 8 + plen;
}

/*
 * Packet p (len bytes) in a GTP-U G-PDU of o's TEID, in UDP over IPv4 from
 * o->gtpu_from to o->gtpu_to, into b; returns its length.
 */
static size_t gtpu_wrap(const struct opts *o, const uint8_t *p, size_t len,
			uint8_t *b)
{
	uint8_t *udp = b + 20, *g = udp + 8;

	memset(b, 0, 36);
	b[0] = 0x45;
	put16(b + 2, (uint16_t)(36 + len));
	put16(b + 4, (uint16_t)(p[4] << 8 | p[5]));	/* the inner's ID */
	b[8] = 64;
	b[9] = IPPROTO_UDP;
	memcpy(b + 12, o->gtpu_from, 4);
	memcpy(b + 16, o->gtpu_to, 4);
	put16(b + 10, fold(sum16(b, 20, 0)));
	put16(udp, 2152);
	put16(udp + 2, 2152);
	put16(udp + 4, (uint16_t)(16 + len));	/* UDP checksum 0: none */
	g[0] = 0x30;				/* version 1, PT 1 */
	g[1] = 255;				/* G-PDU */
	put16(g + 2, (uint16_t)len);
	g[4] = (uint8_t)(o->teid >> 24);
	g[5] = (uint8_t)(o->teid >> 16);
	g[6] = (uint8_t)(o->teid >> 8);
	g[7] = (uint8_t)o->teid;
	memcpy(g + 8, p, len);
	return 36 + len;
}

static int cmd_send(int argc, char **argv)
{
	struct opts o = { .count = 100, .copies = 1, .port = 9000, .dsts = 1,
			  .pause_every = 64, .srcs = 1,
			  .proto = IPPROTO_UDP };
	uint8_t pkt[128], dst[16], wrapped[192];
	unsigned long i, j, sent = 0, late = 0;
	struct timespec t0 = { 0 }, t1 = { 0 }, first = { 0 }, done;
	unsigned int round;
	int fd, one = 1, a;

	if (argc < 3)
		die("send: -4|-6 SRC DST");
	o.v6 = !strcmp(argv[0], "-6");
	if (inet_pton(o.v6 ? AF_INET6 : AF_INET, argv[1], o.src) != 1 ||
	    inet_pton(o.v6 ? AF_INET6 : AF_INET, argv[2], o.dst) != 1) {
		fprintf(stderr, "send: bad address\n");
		return 2;
	}
	for (a = 3; a < argc; a++) {
		unsigned long *v = NULL;

		if (!strcmp(argv[a], "--ttl-step"))
			o.ttl_step = true;
		else if (!strcmp(argv[a], "--loop"))
			o.loop = true;
		else if (!strcmp(argv[a], "--keep-going"))
			o.keep_going = true;
		else if (!strcmp(argv[a], "--alternate-cpus"))
			o.alternate = true;
		else if (!strcmp(argv[a], "--cpu"))
			v = &o.cpu;
		else if (!strcmp(argv[a], "--first"))
			v = &o.first;
		else if (!strcmp(argv[a], "--srcs"))
			v = &o.srcs;
		else if (!strcmp(argv[a], "--src-first"))
			v = &o.src_first;
		else if (!strcmp(argv[a], "--count"))
			v = &o.count;
		else if (!strcmp(argv[a], "--copies"))
			v = &o.copies;
		else if (!strcmp(argv[a], "--flows"))
			v = &o.flows;
		else if (!strcmp(argv[a], "--port"))
			v = &o.port;
		else if (!strcmp(argv[a], "--dsts"))
			v = &o.dsts;
		else if (!strcmp(argv[a], "--pause-every"))
			v = &o.pause_every;
		else if (!strcmp(argv[a], "--proto"))
			v = &o.proto;
		else if (!strcmp(argv[a], "--again-after"))
			v = &o.again_ms;
		else if (!strcmp(argv[a], "--late-ns"))
			v = &o.late_ns;
		else if (!strcmp(argv[a], "--gtpu")) {
			if (a + 3 >= argc ||
			    inet_pton(AF_INET, argv[a + 1], o.gtpu_from) != 1 ||
			    inet_pton(AF_INET, argv[a + 2], o.gtpu_to) != 1) {
				fprintf(stderr, "send: --gtpu FROM TO TEID (IPv4)\n");
				return 2;
			}
			o.gtpu = true;
			o.teid = strtoul(argv[a + 3], NULL, 0);
			a += 3;
		} else {
			fprintf(stderr, "send: unknown option %s\n", argv[a]);
			return 2;
		}
		if (v) {
			if (++a == argc) {
				fprintf(stderr, "send: %s needs a value\n",
					argv[a - 1]);
				return 2;
			}
			*v = strtoul(argv[a], NULL, 0);
		}
	}
	if (!o.dsts || !o.pause_every || !o.srcs || o.proto > 255)
		return 2;
	pin(o.cpu);
	fd = socket(o.v6 && !o.gtpu ? AF_INET6 : AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0)
		die("socket");
	if (o.v6 && !o.gtpu && setsockopt(fd, IPPROTO_IPV6, IPV6_HDRINCL, &one,
			       sizeof(one)))
		die("IPV6_HDRINCL");
	for (round = 0; round < (o.again_ms ? 2u : 1u); round++) {
		if (round) {
			usleep((useconds_t)(o.again_ms * 1000));
			clock_gettime(CLOCK_MONOTONIC, &t1);
		} else {
			clock_gettime(CLOCK_MONOTONIC, &t0);
		}
		do {
			for (i = o.first; i < o.first + o.count; i++)
				for (j = 0; j < o.copies; j++) {
					size_t len = build(&o, i, j, pkt, dst);
					const uint8_t *out = pkt;
					struct sockaddr_storage ss = { 0 };
					socklen_t sl;

					if (o.gtpu) {
						len = gtpu_wrap(&o, pkt, len, wrapped);
						out = wrapped;
						memcpy(dst, o.gtpu_to, 4);
					}

					if (o.alternate)
						pin(j % (unsigned long)sysconf(_SC_NPROCESSORS_ONLN));

					if (o.v6 && !o.gtpu) {
						struct sockaddr_in6 *s6 = (void *)&ss;

						s6->sin6_family = AF_INET6;
						memcpy(&s6->sin6_addr, dst, 16);
						sl = sizeof(*s6);
					} else {
						struct sockaddr_in *s4 = (void *)&ss;

						s4->sin_family = AF_INET;
						memcpy(&s4->sin_addr, dst, 4);
						sl = sizeof(*s4);
					}
					if (o.late_ns && !j)
						clock_gettime(CLOCK_MONOTONIC,
							      &first);
					if (sendto(fd, out, len, 0, (void *)&ss, sl) < 0 &&
					    !o.keep_going)
						die("sendto");
					/*
					 * a copy judged W or more after its
					 * packet may be: from the packet's
					 * send to the copy's end
					 */
					if (o.late_ns && j) {
						clock_gettime(CLOCK_MONOTONIC,
							      &done);
						if ((done.tv_sec - first.tv_sec) *
						    1000000000LL + done.tv_nsec -
						    first.tv_nsec >=
						    (long long)o.late_ns)
							late++;
					}
					if (++sent % o.pause_every == 0)
						usleep(1000);
				}
		} while (o.loop);
	}
	if (o.again_ms)
		printf("again after %ld us\n",
		       (long)((t1.tv_sec - t0.tv_sec) * 1000000 +
			      (t1.tv_nsec - t0.tv_nsec) / 1000));
	if (o.late_ns)
		printf("late %lu\n", late);
	printf("sent %lu\n", sent);
	return 0;
}

/* Datagram i's payload: i in its first 4 bytes, then bytes of i's own. */
static void dgram_fill(uint8_t *b, size_t size, unsigned long i)
{
	size_t k;

	for (k = 0; k < size; k++)
		b[k] = k < 4 ? (uint8_t)(i >> (24 - 8 * k)) :
			       (uint8_t)(i + 7 * k + (k >> 8));
}

static int cmd_dgram(int argc, char **argv)
{
	unsigned long size = 8000, count = 10, copies = 2, port = 9000;
	unsigned long seg = 0, i, j, sent = 0;
	struct sockaddr_storage src = { 0 }, dst = { 0 };
	struct sockaddr_in6 *s6 = (void *)&src, *d6 = (void *)&dst;
	struct sockaddr_in *s4 = (void *)&src, *d4 = (void *)&dst;
	int fd, a, v, pmtu;
	bool v6, near = false;
	socklen_t sl;
	uint8_t *b;

	if (argc < 3)
		die("dgram: -4|-6 SRC DST");
	v6 = !strcmp(argv[0], "-6");
	if (inet_pton(v6 ? AF_INET6 : AF_INET, argv[1],
		      v6 ? (void *)&s6->sin6_addr : (void *)&s4->sin_addr) != 1 ||
	    inet_pton(v6 ? AF_INET6 : AF_INET, argv[2],
		      v6 ? (void *)&d6->sin6_addr : (void *)&d4->sin_addr) != 1) {
		fprintf(stderr, "dgram: bad address\n");
		return 2;
	}
	for (a = 3; a < argc; a++) {
		unsigned long *o = NULL;

		if (!strcmp(argv[a], "--near")) {
			near = true;
			continue;
		}
		if (!strcmp(argv[a], "--size"))
			o = &size;
		else if (!strcmp(argv[a], "--count"))
			o = &count;
		else if (!strcmp(argv[a], "--copies"))
			o = &copies;
		else if (!strcmp(argv[a], "--port"))
			o = &port;
		else if (!strcmp(argv[a], "--segment"))
			o = &seg;
		if (!o || a + 1 == argc) {
			fprintf(stderr, "dgram: bad option %s\n", argv[a]);
			return 2;
		}
		*o = strtoul(argv[++a], NULL, 0);
	}
	if (size < 4 || size > 65000 || !copies || copies > 256 ||
	    !port || port > 65535)
		return 2;
	if (!seg || seg > size)
		seg = size;
	b = malloc(size);
	if (!b)
		die("malloc");
	if (v6) {
		s6->sin6_family = AF_INET6;
		d6->sin6_family = AF_INET6;
		d6->sin6_port = htons((uint16_t)port);
		sl = sizeof(*s6);
	} else {
		s4->sin_family = AF_INET;
		d4->sin_family = AF_INET;
		d4->sin_port = htons((uint16_t)port);
		sl = sizeof(*s4);
	}
	pin(0);
	fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (void *)&src, sl))
		die("dgram: socket");
	pmtu = v6 ? IPV6_PMTUDISC_DO : IP_PMTUDISC_DO;
	v = (int)seg;
	if (setsockopt(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP,
		       v6 ? IPV6_MTU_DISCOVER : IP_MTU_DISCOVER, &pmtu,
		       sizeof(pmtu)) ||
	    setsockopt(fd, IPPROTO_UDP, UDP_SEGMENT, &v, sizeof(v)))
		die("dgram: setsockopt");
	for (i = 0; i < count; i++) {
		dgram_fill(b, size, i);
		for (j = 0; j < copies; j++) {
			if (near && j)
				b[size - 1] ^= (uint8_t)(j ^ (j - 1));
			if (sendto(fd, b, size, 0, (void *)&dst, sl) !=
			    (ssize_t)size)
				die("dgram: sendto");
			sent++;
		}
	}
	free(b);
	close(fd);
	printf("sent %lu\n", sent);
	return 0;
}

static int cmd_recv(int argc, char **argv)
{
	struct pollfd p[2];
	unsigned long n = 0;
	struct sockaddr_in s4 = { .sin_family = AF_INET };
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };
	int one = 1, bufsz = 4 << 20, i, idle;
	char buf[2048];

	if (argc != 2)
		die("recv: PORT IDLE_MS");
	idle = atoi(argv[1]);
	s4.sin_port = htons((uint16_t)atoi(argv[0]));
	s6.sin6_port = s4.sin_port;
	p[0].fd = socket(AF_INET, SOCK_DGRAM, 0);
	p[1].fd = socket(AF_INET6, SOCK_DGRAM, 0);
	if (p[0].fd < 0 || p[1].fd < 0)
		die("socket");
	setsockopt(p[1].fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	for (i = 0; i < 2; i++) {
		setsockopt(p[i].fd, SOL_SOCKET, SO_RCVBUF, &bufsz, sizeof(bufsz));
		p[i].events = POLLIN;
	}
	if (bind(p[0].fd, (void *)&s4, sizeof(s4)) ||
	    bind(p[1].fd, (void *)&s6, sizeof(s6)))
		die("bind");
	printf("ready\n");
	fflush(stdout);
	while (poll(p, 2, idle) > 0)
		for (i = 0; i < 2; i++)
			if (p[i].revents & POLLIN &&
			    recv(p[i].fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
				n++;
	printf("received %lu\n", n);
	return 0;
}

static int cmd_asuser(int argc, char **argv)
{
	uid_t uid;

	if (argc < 2)
		die("asuser: UID CMD");
	uid = (uid_t)strtoul(argv[0], NULL, 0);
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
		die("asuser");
	execvp(argv[1], argv + 1);
	die(argv[1]);
	return 1;
}

/* Slab + Percpu + VmallocUsed, KiB, with the caches dropped first. */
static long kmem_kib(void)
{
	char line[256];
	long sum = 0, v;
	FILE *f;
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	sync();
	if (fd >= 0) {
		if (write(fd, "3", 1) != 1)
			perror("drop_caches");
		close(fd);
	}
	f = fopen("/proc/meminfo", "r");
	if (!f)
		die("/proc/meminfo");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld", &v) == 1 ||
		    sscanf(line, "Percpu: %ld", &v) == 1 ||
		    sscanf(line, "VmallocUsed: %ld", &v) == 1)
			sum += v;
	fclose(f);
	return sum;
}

static long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000L + t.tv_nsec / 1000000;
}

static int cmd_netns(int argc, char **argv)
{
	long n, i, m0, m1, t0, t1, t2;
	int *fds;

	if (argc != 1 || (n = strtol(argv[0], NULL, 10)) <= 0)
		die("netns: N");
	fds = calloc(n, sizeof(*fds));
	if (!fds)
		die("calloc");
	m0 = kmem_kib();
	t0 = now_ms();
	for (i = 0; i < n; i++) {
		if (unshare(CLONE_NEWNET))
			die("unshare");
		fds[i] = open("/proc/self/ns/net", O_RDONLY);
		if (fds[i] < 0)
			die("/proc/self/ns/net");
	}
	t1 = now_ms();
	m1 = kmem_kib();
	for (i = 0; i < n; i++)
		close(fds[i]);
	/* released once the kernel's cleanup work gave back 99% (30 s at most) */
	do {
		usleep(100000);
		t2 = now_ms();
	} while (kmem_kib() > m0 + (m1 - m0) / 100 && t2 - t1 < 30000);
	free(fds);
	printf("%ld %ld %ld\n", m1 - m0, t1 - t0, t2 - t1);
	return 0;
}

/*
 * What the terminal's master side gives, CRs made visible, to stdout;
 * true if it gave anything.
 */
static bool pty_copy(int m, int wait_ms)
{
	struct pollfd p = { .fd = m, .events = POLLIN };
	bool got = false;
	char buf[512];
	ssize_t n, i;

	while (poll(&p, 1, wait_ms) > 0) {
		n = read(m, buf, sizeof(buf));
		if (n <= 0)	/* EIO: the slave side is closed */
			return got;
		got = true;
		for (i = 0; i < n; i++)
			if (buf[i] == '\r')
				fputs("\\r", stdout);
			else
				putchar(buf[i]);
	}
	return got;
}

static int cmd_pty(int argc, char **argv)
{
	int m, s, status;
	long start, t0, ms;
	bool sent = false;
	char *name;
	pid_t pid;

	if (argc < 2)
		die("pty: MS CMD [ARG...]");
	ms = atol(argv[0]);
	m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) || unlockpt(m) || !(name = ptsname(m)))
		die("pty: posix_openpt (is devpts mounted on /dev/pts?)");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		/* a session of its own, the terminal its controlling one */
		setsid();
		s = open(name, O_RDWR);
		if (s < 0 || dup2(s, 1) < 0 || dup2(s, 2) < 0)
			_exit(126);
		close(m);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	/* from its first output; a command that writes nothing, 30 s later */
	start = now_ms();
	t0 = -1;
	for (;;) {
		if (pty_copy(m, 20) && t0 < 0)
			t0 = now_ms();
		if (!sent && ((t0 >= 0 && now_ms() - t0 >= ms) ||
			      now_ms() - start >= ms + 30000)) {
			kill(pid, SIGINT);
			sent = true;
		}
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
	}
	pty_copy(m, 100);
	fflush(stdout);
	return WIFEXITED(status) ? WEXITSTATUS(status) :
	       128 + WTERMSIG(status);
}

/* pdnet time CMD [ARG...]: CMD's wall-clock time in ms, on stdout. */
static int cmd_time(int argc, char **argv)
{
	int status, null;
	long t0;
	pid_t pid;

	if (argc < 1)
		die("time: CMD [ARG...]");
	t0 = now_ms();
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		null = open("/dev/null", O_WRONLY);
		if (null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	printf("%ld\n", now_ms() - t0);
	return WIFEXITED(status) ? WEXITSTATUS(status) :
	       128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "time"))
		return cmd_time(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "send"))
		return cmd_send(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "dgram"))
		return cmd_dgram(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "recv"))
		return cmd_recv(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "asuser"))
		return cmd_asuser(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "netns"))
		return cmd_netns(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "fuzz"))
		return cmd_fuzz(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "pty"))
		return cmd_pty(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "replay"))
		return cmd_replay(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "record"))
		return cmd_record(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "pcapcmp"))
		return cmd_pcapcmp(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "taps"))
		return cmd_taps(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "nonip"))
		return cmd_nonip(argc - 2, argv + 2);
	fprintf(stderr, "usage: pdnet send|dgram|recv|asuser|netns|fuzz|pty|time|\n"
		"             replay|record|pcapcmp|taps|nonip ...\n");
	return 2;
}
