// SPDX-License-Identifier: GPL-2.0
/*
 * pdxb: make bench-xdp's guest tool (static, libbpf).
 *
 *   pdxb testrun OBJ REPEAT RUNS   load OBJ's first program (an XDP program:
 *                                  eval/bench-xdp/xdp-pass.bpf.o, xdp-drop,
 *                                  or pktdedup's own, whose kfunc libbpf
 *                                  finds in the module's BTF) and run it
 *                                  RUNS times through BPF_PROG_TEST_RUN,
 *                                  each over REPEAT copies of one 128-byte
 *                                  IPv4/UDP frame; a line per run:
 *                                  "run I ns NS retval R", NS the kernel's
 *                                  own mean time per frame (ns)
 *
 * BPF_PROG_TEST_RUN hands the frame to the program as if received on the
 * loopback device of the caller's namespace (rxq dev = lo): pktdedup's
 * kfunc judges it only where that namespace's instance is at an XDP hook
 * on lo (dedupctl set hook xdp-generic dev lo).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define FRAME_LEN 128

static int warn_only(enum libbpf_print_level level, const char *fmt,
		     va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static __u16 ip_csum(const __u8 *p, size_t n)
{
	__u32 s = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (__u32)p[i] << 8 | p[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (__u16)~s;
}

/* Ethernet, IPv4 10.77.0.1 > 10.77.0.2, UDP 40000 > 9000, a payload */
static void frame(__u8 *f)
{
	static const __u8 eth[14] = {
		0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00
	};
	__u8 *ip = f + 14, *udp = ip + 20;
	__u16 c, ulen = FRAME_LEN - 14 - 20;
	size_t i;

	memset(f, 0, FRAME_LEN);
	memcpy(f, eth, sizeof(eth));
	ip[0] = 0x45;
	ip[2] = (FRAME_LEN - 14) >> 8;
	ip[3] = (FRAME_LEN - 14) & 0xff;
	ip[4] = 0x12;
	ip[5] = 0x34;
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, (__u8[]){ 10, 77, 0, 1 }, 4);
	memcpy(ip + 16, (__u8[]){ 10, 77, 0, 2 }, 4);
	c = ip_csum(ip, 20);
	ip[10] = c >> 8;
	ip[11] = c & 0xff;
	udp[0] = 40000 >> 8;
	udp[1] = 40000 & 0xff;
	udp[2] = 9000 >> 8;
	udp[3] = 9000 & 0xff;
	udp[4] = ulen >> 8;
	udp[5] = ulen & 0xff;
	for (i = 8; i < ulen; i++)
		udp[i] = (__u8)i;
}

static int cmd_testrun(const char *path, unsigned int repeat,
		       unsigned int runs)
{
	__u8 in[FRAME_LEN], out[FRAME_LEN + 512];
	struct bpf_program *prog;
	struct bpf_object *obj;
	unsigned int i;
	int fd, err;

	obj = bpf_object__open_file(path, NULL);
	if (!obj) {
		fprintf(stderr, "pdxb: cannot open %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "pdxb: cannot load %s: %s\n", path,
			strerror(-err));
		return 1;
	}
	prog = bpf_object__next_program(obj, NULL);
	if (!prog) {
		fprintf(stderr, "pdxb: no program in %s\n", path);
		return 1;
	}
	fd = bpf_program__fd(prog);
	frame(in);
	for (i = 0; i < runs; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, o,
			    .data_in = in,
			    .data_size_in = sizeof(in),
			    .data_out = out,
			    .data_size_out = sizeof(out),
			    .repeat = repeat);

		err = bpf_prog_test_run_opts(fd, &o);
		if (err) {
			fprintf(stderr, "pdxb: BPF_PROG_TEST_RUN: %s\n",
				strerror(errno));
			return 1;
		}
		printf("run %u ns %u retval %u\n", i, o.duration, o.retval);
		fflush(stdout);
	}
	bpf_object__close(obj);
	return 0;
}

int main(int argc, char **argv)
{
	libbpf_set_print(warn_only);
	if (argc == 5 && !strcmp(argv[1], "testrun"))
		return cmd_testrun(argv[2], (unsigned int)strtoul(argv[3], NULL, 0),
				   (unsigned int)strtoul(argv[4], NULL, 0));
	fprintf(stderr, "usage: pdxb testrun OBJ REPEAT RUNS\n");
	return 2;
}
