// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup's XDP program: every frame goes to the module, which judges it
 * with the namespace's instance (module/xdp.c, pd_xdp_judge) and says
 * pass or drop. Nothing else is decided here: the key, the filter, the
 * counters and the configuration are the module's, as at its netfilter
 * hooks. dedupctl loads it (the kfunc is found in the module's BTF) and
 * the module attaches it. GPL: the kernel lets only GPL programs call
 * kernel functions. Multi-buffer frames are taken (xdp.frags): the
 * headers are in the first buffer, which is what the module reads.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

extern __u32 pd_xdp_judge(struct xdp_md *ctx) __ksym;

SEC("xdp.frags")
int pktdedup(struct xdp_md *ctx)
{
	return pd_xdp_judge(ctx);
}

char LICENSE[] SEC("license") = "GPL";
