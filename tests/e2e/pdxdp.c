// SPDX-License-Identifier: GPL-2.0
/*
 * pdxdp: the e2e guest's XDP tool (static, libbpf), for the scenarios of
 * the XDP placements (tests/e2e/scen-xdpdev.sh).
 *
 *   pdxdp hand OBJ PROG FD CMD...   load OBJ's programs, put PROG's
 *                                   descriptor at FD, run CMD (pdnl send
 *                                   set-config ... xdp-prog=u32:FD: a
 *                                   program handed to the module)
 *   pdxdp attach OBJ PROG DEV drv|skb [TARGET DMPROG]
 *                                   attach PROG to DEV (native or
 *                                   generic XDP, not through a link: it
 *                                   stays when pdxdp ends), after putting
 *                                   device TARGET with devmap program
 *                                   DMPROG in the devmap's entry 0
 *
 * OBJ's programs that call the module's kfunc load only while the module
 * (and its BTF) is there.
 */
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static int warn_only(enum libbpf_print_level level, const char *fmt,
		     va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void die(const char *what, int err)
{
	fprintf(stderr, "pdxdp: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static struct bpf_object *load(const char *path)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	int err = libbpf_get_error(obj);

	if (err)
		die(path, err);
	err = bpf_object__load(obj);
	if (err)
		die("load", err);
	return obj;
}

static int prog_fd(struct bpf_object *obj, const char *name)
{
	struct bpf_program *p = bpf_object__find_program_by_name(obj, name);

	if (!p)
		die(name, ENOENT);
	return bpf_program__fd(p);
}

static unsigned int ifindex(const char *dev)
{
	unsigned int i = if_nametoindex(dev);

	if (!i)
		die(dev, errno);
	return i;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	int fd, err;

	libbpf_set_print(warn_only);
	if (argc >= 6 && !strcmp(argv[1], "hand")) {
		obj = load(argv[2]);
		fd = atoi(argv[4]);
		if (dup2(prog_fd(obj, argv[3]), fd) < 0)
			die("dup2", errno);
		execvp(argv[5], argv + 5);
		die(argv[5], errno);
	}
	if ((argc == 6 || argc == 8) && !strcmp(argv[1], "attach")) {
		obj = load(argv[2]);
		if (argc == 8) {
			struct bpf_map *m = bpf_object__find_map_by_name(obj,
									"pd_devmap");
			struct bpf_devmap_val v = {
				.ifindex = ifindex(argv[6]),
				.bpf_prog.fd = prog_fd(obj, argv[7]),
			};
			__u32 key = 0;

			if (!m)
				die("pd_devmap", ENOENT);
			err = bpf_map_update_elem(bpf_map__fd(m), &key, &v, 0);
			if (err)
				die("devmap entry", errno);
		}
		err = bpf_xdp_attach((int)ifindex(argv[4]), prog_fd(obj, argv[3]),
				     !strcmp(argv[5], "drv") ? XDP_FLAGS_DRV_MODE :
				     XDP_FLAGS_SKB_MODE, NULL);
		if (err)
			die("attach", err);
		return 0;
	}
	fprintf(stderr, "usage: pdxdp hand OBJ PROG FD CMD... | attach OBJ PROG DEV drv|skb [TARGET DMPROG]\n");
	return 2;
}
