#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-make.sh KVER KDIR [MAKE-ARG...]: DKMS's MAKE[0] (dkms.conf), run in
# its build directory (a copy of the source tree): pktdedup.ko for kernel
# KVER against the headers in KDIR (with the arguments DKMS adds, such as
# CC=clang for a kernel built by clang), then its own BTF, split against KVER's
# (scripts/btf-base.sh find: the running kernel's /sys/kernel/btf/vmlinux,
# or the .BTF of /boot/vmlinuz-KVER), which BPF programs need to call the
# module (dedupctl's XDP placements). The module records the base's digest
# (its parameter btf_base). Without a base, pahole (Debian's pahole), or
# the project's btfids (libbpf-dev, libelf-dev), the module is built
# without BTF, btf_base "none", and this log says why; it loads and works
# at every netfilter hook, and dedupctl says the XDP placements cannot.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: dkms-make.sh KVER KDIR [MAKE-ARG...]" >&2; exit 2; }
kver=$1 kdir=$2
shift 2
cd "$(dirname "$0")/.." || exit 1
dir=$PWD
btfdir=$dir/.btf
rm -rf "$btfdir"
mkdir -p "$btfdir"

why=
base=$(scripts/btf-base.sh find "$kver" "$btfdir" 2>"$btfdir/why") ||
	why=$(cat "$btfdir/why")
if [ -z "$why" ] && ! command -v pahole >/dev/null; then
	why="no pahole (Debian's pahole package)"
fi
if [ -z "$why" ] && ! gcc -O2 -o "$btfdir/btfids" scripts/btfids/btfids.c \
	-lbpf -lelf >"$btfdir/cc.log" 2>&1; then
	why="scripts/btfids/btfids.c does not build (libbpf-dev, libelf-dev): $(head -n 3 "$btfdir/cc.log")"
fi
args=("$@")
digest=none
[ -n "$why" ] || digest=$(scripts/btf-base.sh digest "$base")

build() {	# DIGEST
	make -j"$(nproc)" -C "$kdir" M="$dir" CONFIG_PKTDEDUP=m \
		PD_BTF_BASE="$1" "${args[@]}" modules
}
build "$digest"
if [ -z "$why" ]; then
	if BTFIDS=$btfdir/btfids scripts/module-btf.sh "$dir/pktdedup.ko" "$base" "$kdir"; then
		echo "pktdedup: BTF split against $base (btf_base $digest)"
		exit 0
	fi
	why="scripts/module-btf.sh failed (above)"
	objcopy --remove-section=.BTF "$dir/pktdedup.ko"
	build none
fi
echo "pktdedup: built without BTF (btf_base none), so the XDP placements cannot be used: $why"
