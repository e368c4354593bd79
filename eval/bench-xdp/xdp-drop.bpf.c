// SPDX-License-Identifier: GPL-2.0
/*
 * make bench-xdp's reference program: every frame is dropped. The least
 * a frame can cost at XDP (eval/bench-xdp/guest.sh).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_drop(struct xdp_md *ctx)
{
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
