#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# module-btf.sh KO BASE KDIR: pktdedup.ko's own BTF, split against BASE,
# the BTF of the kernel KO is built for; what Kbuild does for a module
# when it has that kernel's vmlinux, which Debian's headers lack ("Skipping
# BTF generation"). pahole encodes the module's types from its DWARF
# (with the flags KDIR's scripts/pahole-flags.sh gives that kernel), then
# the project's btfids (scripts/btfids/btfids.c, what the kernel's
# resolve_btfids does) fills the module's BTF ID lists. BTFIDS=PATH names
# a built btfids; without it, it is compiled here (libbpf-dev, libelf-dev).
# Run again on a module that has BTF, it encodes it afresh.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: module-btf.sh KO BASE KDIR" >&2; exit 2; }
ko=$1 base=$2 kdir=$3
cd "$(dirname "$0")/.." || exit 1
[ -s "$base" ] || { echo "module-btf: no BTF base at $base" >&2; exit 1; }
tmp=
trap '[ -z "$tmp" ] || rm -rf "$tmp"' EXIT
btfids=${BTFIDS:-}
if [ -z "$btfids" ]; then
	tmp=$(mktemp -d)
	btfids=$tmp/btfids
	gcc -O2 -o "$btfids" scripts/btfids/btfids.c -lbpf -lelf
fi
flags=$(PAHOLE=pahole sh "$kdir/scripts/pahole-flags.sh")
objcopy --remove-section=.BTF "$ko"
# shellcheck disable=SC2086 # the flags are words
LLVM_OBJCOPY=objcopy pahole -J $flags --btf_base "$base" "$ko"
readelf -S "$ko" | grep ' \.BTF ' >/dev/null ||
	{ echo "module-btf: pahole left $ko without .BTF" >&2; exit 1; }
"$btfids" -b "$base" "$ko"
