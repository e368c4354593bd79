// SPDX-License-Identifier: GPL-2.0
/*
 * make bench-xdp's reference program: every frame passes. What an XDP
 * program costs that decides nothing (eval/bench-xdp/guest.sh).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
