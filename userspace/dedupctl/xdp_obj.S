/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The XDP program's object file (built by clang -target bpf from
 * userspace/xdp/pktdedup.bpf.c), inside dedupctl: nothing to find at run
 * time, and always the program of this dedupctl's uapi.
 */
	.section .rodata
	.balign 8
	.global pd_xdp_obj
pd_xdp_obj:
	.incbin PD_XDP_OBJ
	.global pd_xdp_obj_end
pd_xdp_obj_end:
	.section .note.GNU-stack, "", @progbits
