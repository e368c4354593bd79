// SPDX-License-Identifier: GPL-2.0
/*
 * XDP programs that are not the module's own, for the e2e scenarios of
 * the XDP placements (tests/e2e/scen-xdpdev.sh, loaded by pdxdp): the
 * module must refuse to take them (xdp-prog), and its kfunc must judge
 * nothing for them, whatever they do with it.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

extern __u32 pd_xdp_judge(struct xdp_md *ctx) __ksym;

/* entry 0: the device (and its program) a redirect sends frames to */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
} pd_devmap SEC(".maps");

/* no kfunc: drops every frame */
SEC("xdp.frags")
int drop_all(struct xdp_md *ctx)
{
	return XDP_DROP;
}

/* a devmap's program, not a device's */
SEC("xdp/devmap")
int devmap_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

/* calls the kfunc, then drops whatever it said */
SEC("xdp.frags")
int judge_then_drop(struct xdp_md *ctx)
{
	pd_xdp_judge(ctx);
	return XDP_DROP;
}

/* judges, then sends the frame on through the devmap: judged twice */
SEC("xdp")
int judge_redirect(struct xdp_md *ctx)
{
	pd_xdp_judge(ctx);
	return bpf_redirect_map(&pd_devmap, 0, 0);
}

/* the devmap's program of the redirect: judges the frame again */
SEC("xdp/devmap")
int devmap_judge(struct xdp_md *ctx)
{
	return pd_xdp_judge(ctx);
}

char LICENSE[] SEC("license") = "GPL";
