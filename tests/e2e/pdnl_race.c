// SPDX-License-Identifier: GPL-2.0
/*
 * pdnl xdp-race N: what a namespace's own root (a container's) may try
 * while the module attaches its XDP program for it. N SET_CONFIG requests
 * switch the instance between hook xdp and hook xdp-generic (no xdp-prog:
 * the program the module holds serves), while a second thread reads this
 * process's descriptor table over and over, looking for what the module
 * must never put there: a BPF program or link ("anon_inode:bpf-prog",
 * "anon_inode:bpf_link"); each one seen is taken (dup) if it can be.
 * Prints "requests N refused R seen S taken T" and what was seen; exit 0.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../module/uapi/pktdedup.h"
#include "pdnl.h"

static atomic_int stop, seen, taken;
static char what[256];

/* The descriptors this process holds now that are BPF objects. */
static void scan_once(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[300], link[128];
	ssize_t n;
	int fd;

	if (!d)
		return;
	while ((e = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (!strstr(link, "bpf-prog") && !strstr(link, "bpf_link"))
			continue;
		if (!atomic_fetch_add(&seen, 1))
			snprintf(what, sizeof(what), "%s", link);
		fd = fcntl(atoi(e->d_name), F_DUPFD_CLOEXEC, 100);
		if (fd >= 0) {
			atomic_fetch_add(&taken, 1);
			close(fd);
		}
	}
	closedir(d);
}

static void *scanner(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		scan_once();
	return NULL;
}

int cmd_xdp_race(int argc, char **argv)
{
	static char mem[4096];
	int n, i, refused = 0;
	pthread_t th;

	if (argc != 1 || (n = atoi(argv[0])) < 1) {
		fprintf(stderr, "pdnl: usage: pdnl xdp-race N\n");
		return 2;
	}
	if (pthread_create(&th, NULL, scanner, NULL))
		die("pthread_create");
	for (i = 0; i < n; i++) {
		struct talk t = { 0 };
		struct nlmsghdr *nlh = request(mem, family_id, 0,
					       PKTDEDUP_CMD_SET_CONFIG,
					       PKTDEDUP_GENL_VERSION, 0);
		struct nlattr *c = mnl_attr_nest_start(nlh, PKTDEDUP_A_CONFIG);

		mnl_attr_put_u8(nlh, PKTDEDUP_A_CONFIG_HOOK,
				i & 1 ? PKTDEDUP_HOOK_XDP :
					PKTDEDUP_HOOK_XDP_GENERIC);
		mnl_attr_nest_end(nlh, c);
		if (run(&t, nlh)) {
			if (!refused)
				fprintf(stderr, "pdnl: refused: %d %s\n",
					t.error, t.msg);
			refused++;
		}
	}
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	printf("requests %d refused %d seen %d taken %d%s%s\n", n, refused,
	       atomic_load(&seen), atomic_load(&taken),
	       what[0] ? " first " : "", what);
	return 0;
}
