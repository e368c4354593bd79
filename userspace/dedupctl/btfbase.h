/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BTF a module's own is split against: its digest (the POSIX cksum of
 * its bytes, as scripts/btf-base.sh digest and the module's parameter
 * btf_base give it), and what dedupctl show says when the module's does
 * not fit the running kernel's. Pure functions (tests/native/btfbase_test.c).
 */
#ifndef DEDUPCTL_BTFBASE_H
#define DEDUPCTL_BTFBASE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The POSIX cksum (cksum(1)) of what f holds; -1 on a read error. */
int64_t btf_cksum(FILE *f);

/* "%08x" of path's cksum into out (9 bytes); 0, or -1 */
int btf_digest(const char *path, char out[9]);

/*
 * Why a module built against BTF base built (btf_base: 8 hex digits or
 * "none") cannot serve this kernel, whose base is running: NULL when they
 * agree, else the reason in buf.
 */
const char *btf_base_mismatch(const char *built, const char *running,
			      char *buf, size_t len);

#endif
