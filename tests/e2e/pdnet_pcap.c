// SPDX-License-Identifier: GPL-2.0
/*
 * pdnet replay, record, pcapcmp: captures into and out of the guest, for
 * the scenario that replays a capture through the module and compares what
 * comes through with dedup-sim --write on the host.
 *
 *   pdnet replay FILE IFACE [--pause-every N] [--end] [--times]
 *	Send the frames of FILE, a classic pcap capture of Ethernet (either
 *	byte order, microsecond or nanosecond times), in order, through a
 *	packet socket on IFACE, from CPU 0 (veth hands a frame to the peer's
 *	stack on the sending CPU: one CPU keeps the order), sleeping 1 ms
 *	after every N frames (32). A frame the capture cut (caplen < len)
 *	cannot be replayed: refused before anything is sent. With --end, one
 *	more frame after the capture's: the end frame (broadcast, EtherType
 *	0x88b5, the IEEE's local experimental one, "pdnet end"), which tells
 *	pdnet record --until-end that every frame before it has come. Prints
 *	"sent N" (the capture's frames). With --times, then a line "frame
 *	I START END" for each frame: when its send began and when it
 *	returned, in us since the first began (CLOCK_MONOTONIC, the clock the
 *	module's time windows read). veth hands a frame to the receiver's
 *	stack in the sender's softirq, which runs before the send returns
 *	(unless ksoftirqd has this CPU's softirqs: then later), so a hook
 *	judges frame I from START on, usually by END.
 *
 *   pdnet record FILE IFACE IDLE_MS [--max-seconds S] [--until-end]
 *	Write every frame IFACE receives, in order, to FILE (classic pcap,
 *	microsecond times), until IDLE_MS pass without one once the first
 *	has come (or S seconds, 60, in all); frames IFACE sends are not
 *	written. With --until-end, until the end frame comes instead (not
 *	written; no idle time ends it: a guest's clock that leaps while
 *	the sender waits for its CPU cannot cut the record short); without
 *	it by S seconds is an error. Prints "ready" once it listens, then
 *	"recorded N dropped D" (D: frames the socket dropped, which fails
 *	the run).
 *
 *   pdnet pcapcmp A B
 *	Whether the frames of A and B are the same bytes in the same order
 *	(times and the header's fields aside): prints "same N", or the first
 *	difference, and exits 1.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "pdnet.h"

#define PCAP_MAGIC_US 0xa1b2c3d4u
#define PCAP_MAGIC_NS 0xa1b23c4du
#define FRAME_MAX 65535
#define END_TYPE 0x88b5
#define END_TEXT "pdnet end"

/*
 * The end frame: broadcast from a locally administered address (a bridge
 * drops a frame from a zero or multicast one), END_TYPE, END_TEXT, 60
 * bytes.
 */
static size_t end_frame(uint8_t *b)
{
	memset(b, 0, 60);
	memset(b, 0xff, ETH_ALEN);
	b[ETH_ALEN] = 0x02;
	b[ETH_ALEN + 5] = 0x01;
	b[12] = END_TYPE >> 8;
	b[13] = END_TYPE & 0xff;
	memcpy(b + ETH_HLEN, END_TEXT, sizeof(END_TEXT));
	return 60;
}

static bool is_end_frame(const uint8_t *b, size_t len)
{
	return len >= ETH_HLEN + sizeof(END_TEXT) &&
	       b[12] == END_TYPE >> 8 && b[13] == (END_TYPE & 0xff) &&
	       !memcmp(b + ETH_HLEN, END_TEXT, sizeof(END_TEXT));
}

struct pcap_in {
	FILE *f;
	const char *path;
	bool swap;
	uint32_t linktype;
};

static uint32_t swap32(uint32_t v, bool swap)
{
	return swap ? __builtin_bswap32(v) : v;
}

static void pcap_open(struct pcap_in *p, const char *path)
{
	uint32_t h[6];

	p->path = path;
	p->f = fopen(path, "rb");
	if (!p->f)
		die(path);
	if (fread(h, sizeof(h), 1, p->f) != 1) {
		fprintf(stderr, "pdnet: %s: no pcap header\n", path);
		exit(1);
	}
	if (h[0] == PCAP_MAGIC_US || h[0] == PCAP_MAGIC_NS) {
		p->swap = false;
	} else if (h[0] == __builtin_bswap32(PCAP_MAGIC_US) ||
		   h[0] == __builtin_bswap32(PCAP_MAGIC_NS)) {
		p->swap = true;
	} else {
		fprintf(stderr, "pdnet: %s: not a classic pcap file (magic 0x%08x)\n",
			path, h[0]);
		exit(1);
	}
	p->linktype = swap32(h[5], p->swap) & 0x0fffffff;
}

/* The next frame into buf: its captured length, its original in *len; -1 at the end. */
static long pcap_next(struct pcap_in *p, uint8_t *buf, uint32_t *len)
{
	uint32_t r[4], cap;

	if (fread(r, sizeof(r), 1, p->f) != 1)
		return -1;
	cap = swap32(r[2], p->swap);
	*len = swap32(r[3], p->swap);
	if (cap > FRAME_MAX || fread(buf, 1, cap, p->f) != cap) {
		fprintf(stderr, "pdnet: %s: a record cut short or too long\n",
			p->path);
		exit(1);
	}
	return cap;
}

static int ifindex_of(const char *name)
{
	int i = (int)if_nametoindex(name);

	if (!i)
		die(name);
	return i;
}

/*
 * A packet socket bound to iface: receiving every protocol (ETH_P_ALL), or
 * none (0: a sender's).
 */
static int packet_socket(const char *iface, uint16_t proto)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(proto),
		.sll_ifindex = ifindex_of(iface),
	};
	int fd = socket(AF_PACKET, SOCK_RAW, htons(proto));

	if (fd < 0)
		die("socket(AF_PACKET)");
	if (bind(fd, (void *)&sll, sizeof(sll)))
		die("bind");
	return fd;
}

/* Microseconds from t0 to now, CLOCK_MONOTONIC. */
static long us_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000000L +
	       (t.tv_nsec - t0->tv_nsec) / 1000;
}

int cmd_replay(int argc, char **argv)
{
	static uint8_t buf[FRAME_MAX];
	unsigned long pause_every = 32, n = 0, i;
	struct timespec t0 = { 0 };
	long *times = NULL;
	struct pcap_in p;
	bool end = false, timed = false;
	uint32_t len;
	long cap;
	int fd, a;

	if (argc < 2)
		die("replay: FILE IFACE [--pause-every N] [--end] [--times]");
	for (a = 2; a < argc; a++) {
		if (!strcmp(argv[a], "--pause-every") && a + 1 < argc) {
			pause_every = strtoul(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "--end")) {
			end = true;
		} else if (!strcmp(argv[a], "--times")) {
			timed = true;
		} else {
			fprintf(stderr, "replay: unknown option %s\n", argv[a]);
			return 2;
		}
	}
	if (!pause_every)
		return 2;
	/* every record whole first: nothing is sent from a capture that is cut */
	pcap_open(&p, argv[0]);
	if (p.linktype != 1) {
		fprintf(stderr, "pdnet: %s: link type %u, not Ethernet\n",
			argv[0], p.linktype);
		return 1;
	}
	for (i = 0; (cap = pcap_next(&p, buf, &len)) >= 0; i++)
		if ((uint32_t)cap != len || cap < ETH_HLEN) {
			fprintf(stderr, "pdnet: %s: frame %lu has %ld of %u bytes: cannot be replayed\n",
				argv[0], i + 1, cap, len);
			return 1;
		}
	fclose(p.f);
	/* each frame's two times, kept until the sending is over */
	if (timed) {
		times = calloc(2 * i + 2, sizeof(*times));
		if (!times)
			die("calloc");
	}
	pin(0);
	fd = packet_socket(argv[1], 0);
	pcap_open(&p, argv[0]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((cap = pcap_next(&p, buf, &len)) >= 0) {
		if (timed)
			times[2 * n] = us_since(&t0);
		if (send(fd, buf, (size_t)cap, 0) != cap)
			die("send");
		if (timed)
			times[2 * n + 1] = us_since(&t0);
		if (++n % pause_every == 0)
			usleep(1000);
	}
	fclose(p.f);
	if (end) {
		size_t el = end_frame(buf);

		if (send(fd, buf, el, 0) != (ssize_t)el)
			die("send");
	}
	printf("sent %lu\n", n);
	for (i = 0; timed && i < n; i++)
		printf("frame %lu %ld %ld\n", i + 1, times[2 * i],
		       times[2 * i + 1]);
	free(times);
	return 0;
}

static void put32(FILE *f, uint32_t v)
{
	if (fwrite(&v, sizeof(v), 1, f) != 1)
		die("write");
}

/*
 * One frame as it was on the wire: a VLAN tag the kernel took off into
 * the skb (veth offloads it) comes in PACKET_AUXDATA and goes back after
 * the MAC addresses, as libpcap puts it back.
 */
static ssize_t recv_frame(int fd, uint8_t *buf, size_t size,
			  struct sockaddr_ll *from)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = size - 4 };
	struct msghdr m = {
		.msg_name = from, .msg_namelen = sizeof(*from),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = &ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c;
	ssize_t len = recvmsg(fd, &m, MSG_DONTWAIT);

	if (len < 12)
		return len;
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		struct tpacket_auxdata aux;
		uint16_t tpid;

		if (c->cmsg_level != SOL_PACKET ||
		    c->cmsg_type != PACKET_AUXDATA)
			continue;
		memcpy(&aux, CMSG_DATA(c), sizeof(aux));
		if (!(aux.tp_status & TP_STATUS_VLAN_VALID))
			continue;
		tpid = aux.tp_status & TP_STATUS_VLAN_TPID_VALID ?
		       aux.tp_vlan_tpid : ETH_P_8021Q;
		memmove(buf + 16, buf + 12, (size_t)len - 12);
		buf[12] = (uint8_t)(tpid >> 8);
		buf[13] = (uint8_t)tpid;
		buf[14] = (uint8_t)(aux.tp_vlan_tci >> 8);
		buf[15] = (uint8_t)aux.tp_vlan_tci;
		len += 4;
	}
	return len;
}

int cmd_record(int argc, char **argv)
{
	static uint8_t buf[FRAME_MAX];
	struct tpacket_stats st;
	socklen_t sl = sizeof(st);
	unsigned long n = 0, max_s = 60;
	int fd, idle, a, on = 1, bufsz = 64 << 20;
	bool any = false, until_end = false, ended = false;
	struct timespec t0, now;
	FILE *f;

	if (argc < 3)
		die("record: FILE IFACE IDLE_MS [--max-seconds S] [--until-end]");
	idle = atoi(argv[2]);
	for (a = 3; a < argc; a++) {
		if (!strcmp(argv[a], "--max-seconds") && a + 1 < argc) {
			max_s = strtoul(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "--until-end")) {
			until_end = true;
		} else {
			fprintf(stderr, "record: bad option %s\n", argv[a]);
			return 2;
		}
	}
	fd = packet_socket(argv[1], ETH_P_ALL);
	if (setsockopt(fd, SOL_PACKET, PACKET_AUXDATA, &on, sizeof(on)))
		die("PACKET_AUXDATA");
	/* root: past rmem_max, so that a burst is not dropped */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bufsz, sizeof(bufsz)))
		die("SO_RCVBUFFORCE");
	f = fopen(argv[0], "wb");
	if (!f)
		die(argv[0]);
	put32(f, PCAP_MAGIC_US);
	put32(f, 2 | 4 << 16);	/* version 2.4 */
	put32(f, 0);
	put32(f, 0);
	put32(f, FRAME_MAX);
	put32(f, 1);		/* Ethernet */
	printf("ready\n");
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct sockaddr_ll from;
		struct timeval tv;
		ssize_t len;
		int r;

		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((unsigned long)(now.tv_sec - t0.tv_sec) >= max_s)
			break;
		r = poll(&pfd, 1, any && !until_end ? idle : 1000);
		if (r < 0 && errno != EINTR)
			die("poll");
		if (r == 0 && any && !until_end)
			break;
		if (r <= 0)
			continue;
		len = recv_frame(fd, buf, sizeof(buf), &from);
		if (len < 0)
			continue;
		if (from.sll_pkttype == PACKET_OUTGOING)
			continue;
		if (until_end && is_end_frame(buf, (size_t)len)) {
			ended = true;
			break;
		}
		any = true;
		gettimeofday(&tv, NULL);
		put32(f, (uint32_t)tv.tv_sec);
		put32(f, (uint32_t)tv.tv_usec);
		put32(f, (uint32_t)len);
		put32(f, (uint32_t)len);
		if (fwrite(buf, 1, (size_t)len, f) != (size_t)len)
			die("write");
		n++;
	}
	if (fclose(f))
		die("close");
	if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &sl))
		die("PACKET_STATISTICS");
	printf("recorded %lu dropped %u\n", n, st.tp_drops);
	if (until_end && !ended) {
		printf("no end frame in %lu s\n", max_s);
		return 1;
	}
	return st.tp_drops ? 1 : 0;
}

int cmd_pcapcmp(int argc, char **argv)
{
	static uint8_t ba[FRAME_MAX], bb[FRAME_MAX];
	struct pcap_in a, b;
	unsigned long n = 0;
	uint32_t la, lb;
	long ca, cb;

	if (argc != 2)
		die("pcapcmp: A B");
	pcap_open(&a, argv[0]);
	pcap_open(&b, argv[1]);
	for (;;) {
		ca = pcap_next(&a, ba, &la);
		cb = pcap_next(&b, bb, &lb);
		if (ca < 0 && cb < 0)
			break;
		n++;
		if (ca < 0 || cb < 0) {
			printf("frame %lu: only in %s\n", n,
			       ca < 0 ? argv[1] : argv[0]);
			return 1;
		}
		if (ca != cb || la != lb || memcmp(ba, bb, (size_t)ca)) {
			long i = 0;

			while (i < ca && i < cb && ba[i] == bb[i])
				i++;
			printf("frame %lu differs: %ld and %ld bytes, first at byte %ld\n",
			       n, ca, cb, i);
			return 1;
		}
	}
	printf("same %lu\n", n);
	return 0;
}
