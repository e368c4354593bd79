// SPDX-License-Identifier: GPL-2.0
/*
 * dedupctl: the module's XDP program (userspace/xdp/pktdedup.bpf.c, built
 * into dedupctl), loaded through libbpf for a change that leaves the
 * instance at an XDP hook, and handed to the module in the request: the
 * module attaches it and holds it (module/xdp.c). When it cannot be
 * loaded, what is missing on this host, in words: the module's BTF, the
 * JIT, the privileges.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <net/if.h>

#include "btfbase.h"
#include "dedupctl.h"

/* the object file, assembled in by xdp_obj.S */
extern const char pd_xdp_obj[], pd_xdp_obj_end[];

#define MODULE_BTF "/sys/kernel/btf/pktdedup"
#define JIT_SYSCTL "/proc/sys/net/core/bpf_jit_enable"
#define BTF_BASE_PARAM "/sys/module/pktdedup/parameters/btf_base"
#define KERNEL_BTF "/sys/kernel/btf/vmlinux"

static struct bpf_object *xdp_obj;

/* libbpf's messages are kept for a refusal, not printed as they come */
static char libbpf_log[2048];

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	size_t used = strlen(libbpf_log);

	if (level == LIBBPF_DEBUG || used + 1 >= sizeof(libbpf_log))
		return 0;
	return vsnprintf(libbpf_log + used, sizeof(libbpf_log) - used, fmt,
			 ap);
}

static const char jit_msg[] =
	"the BPF JIT is off (net.core.bpf_jit_enable = 0), and a program calling the module needs it: sysctl net.core.bpf_jit_enable=1 (in the initial network namespace)";

/* The kernel's "not supported" (ENOTSUPP): what it says without a JIT */
#define ENOTSUPP_KERNEL 524

/*
 * Whether the kernel's JIT is off (then a kfunc call cannot load). The
 * sysctl is the initial namespace's alone: elsewhere it cannot be read,
 * and the load's refusal says it (ENOTSUPP_KERNEL).
 */
static bool jit_off(void)
{
	FILE *f = fopen(JIT_SYSCTL, "r");
	int v = 1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 1;
		fclose(f);
	}
	return v == 0;
}

/*
 * The module's BTF base (its parameter btf_base) against the running
 * kernel's: NULL when they agree or the module does not say (an older one).
 */
static const char *btf_base_unfit(void)
{
	static char why[512];
	char built[32] = "", running[9];
	FILE *f = fopen(BTF_BASE_PARAM, "r");

	if (!f)
		return NULL;
	if (!fgets(built, sizeof(built), f))
		built[0] = '\0';
	fclose(f);
	built[strcspn(built, "\n")] = '\0';
	if (!built[0] || btf_digest(KERNEL_BTF, running))
		return NULL;
	return btf_base_mismatch(built, running, why, sizeof(why));
}

const char *xdp_unavailable(void)
{
	const char *why;

	if (access(KERNEL_BTF, F_OK))
		return "this kernel has no BTF (/sys/kernel/btf/vmlinux): XDP programs cannot call the module";
	if (access("/sys/module/pktdedup", F_OK))
		return "the module is not loaded";
	why = btf_base_unfit();
	if (why)
		return why;
	if (access(MODULE_BTF, F_OK))
		return "the module has no BTF this kernel accepts (" MODULE_BTF " is missing): it was built without one, or against another kernel's BTF; the kernel log says which. Rebuild it for this kernel (make module, or dkms with the running kernel's BTF)";
	if (jit_off())
		return jit_msg;
	return NULL;
}

int xdp_prog_fd(void)
{
	const char *why = xdp_unavailable();
	struct bpf_program *prog;
	int err;

	if (why) {
		fprintf(stderr, "%s: hook xdp: %s\n", dc_prog, why);
		dedupctl_exit(EXIT_REFUSED);
	}
	libbpf_set_print(libbpf_print);
	xdp_obj = bpf_object__open_mem(pd_xdp_obj, pd_xdp_obj_end - pd_xdp_obj,
				       NULL);
	err = libbpf_get_error(xdp_obj);
	if (!err)
		err = bpf_object__load(xdp_obj);
	if (err) {
		err = err < 0 ? -err : err;
		/*
		 * Not allowed to load it (no CAP_BPF in the initial user
		 * namespace: a container's root): the request goes without
		 * it, and the program the module holds serves, if it holds
		 * one (a mode switch, a device changed); the module says so
		 * if it holds none
		 */
		if (err == EPERM) {
			xdp_prog_close();
			return -1;
		}
		if (err == ENOTSUPP_KERNEL && strstr(libbpf_log, "JIT is required"))
			fprintf(stderr, "%s: hook xdp: %s\n", dc_prog, jit_msg);
		else
			fprintf(stderr, "%s: hook xdp: cannot load the XDP program: %s\n%s",
				dc_prog, strerror(err), libbpf_log);
		dedupctl_exit(EXIT_REFUSED);
	}
	prog = bpf_object__find_program_by_name(xdp_obj, "pktdedup");
	return prog ? bpf_program__fd(prog) : -1;
}

void xdp_prog_close(void)
{
	bpf_object__close(xdp_obj);
	xdp_obj = NULL;
}

/*
 * The kernel's refusal "dev NAME: another XDP program is attached to it
 * ..." (its extack messages are static: it cannot name the program) said
 * with the program: its id and mode from the device (bpf_xdp_query(),
 * RTM_GETLINK's IFLA_XDP), its name from the program (BPF_PROG_GET_FD_BY_ID,
 * which needs CAP_SYS_ADMIN: without it, the id alone). NULL if why is not
 * that refusal or the device has no program now.
 */
const char *xdp_foreign(const char *why)
{
	static const char busy[] = "another XDP program is attached to it";
	static char out[512];
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct bpf_prog_info info;
	__u32 len = sizeof(info), id;
	char dev[IF_NAMESIZE], name[sizeof(info.name) + 3] = "";
	const char *mode;
	unsigned int ifindex;
	int fd;

	if (sscanf(why, "dev %15[^:]: ", dev) != 1 || !strstr(why, busy))
		return NULL;
	ifindex = if_nametoindex(dev);
	if (!ifindex || bpf_xdp_query((int)ifindex, 0, &q))
		return NULL;
	if (q.drv_prog_id) {
		id = q.drv_prog_id;
		mode = "driver";
	} else if (q.skb_prog_id) {
		id = q.skb_prog_id;
		mode = "generic";
	} else if (q.hw_prog_id) {
		id = q.hw_prog_id;
		mode = "offload";
	} else {
		return NULL;
	}
	memset(&info, 0, sizeof(info));
	fd = bpf_prog_get_fd_by_id(id);
	if (fd >= 0) {
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.name[0])
			snprintf(name, sizeof(name), " \"%.*s\"",
				 (int)sizeof(info.name), info.name);
		close(fd);
	}
	snprintf(out, sizeof(out),
		 "%s already has XDP program %u%s attached (%s mode); detach it or choose another hook",
		 dev, id, name, mode);
	return out;
}
