#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The BTF pktdedup.ko's own is split against, and its digest, for make
# module and DKMS (scripts/dkms-make.sh).
#
#   btf-base.sh digest FILE     the digest of a base: its POSIX cksum, 8
#                               hex digits (the module's parameter btf_base;
#                               dedupctl computes it of the running kernel's)
#   btf-base.sh find KVER DIR   the base for kernel KVER, printed: the
#                               running kernel's /sys/kernel/btf/vmlinux when
#                               KVER is uname -r, else the .BTF section of
#                               /boot/vmlinuz-KVER's vmlinux, extracted into
#                               DIR/vmlinux.btf. Exit 1, saying why on
#                               stderr, when there is none.
#
# PKTDEDUP_BTF_BASE=FILE names the base instead, PKTDEDUP_BTF_BASE=none
# none; PKTDEDUP_BOOT=DIR is where vmlinuz-KVER is looked for (/boot).
set -euo pipefail

digest() {
	local crc
	crc=$(cksum <"$1")
	printf '%08x\n' "${crc%% *}"
}

# the vmlinux inside a vmlinuz: Debian's is XZ-compressed; the first XZ
# stream (magic FD 37 7A 58 5A 00) that unpacks to an ELF file
unpack() {	# VMLINUZ OUT
	local off
	for off in $(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$1" | head -n 8 | cut -d: -f1); do
		tail -c "+$((off + 1))" "$1" | xz -dc --single-stream >"$2" 2>/dev/null || true
		[ "$(head -c 4 "$2" | od -An -c | tr -d ' ')" = '177ELF' ] && return 0
	done
	return 1
}

find_base() {	# KVER DIR
	local kver=$1 dir=$2 boot=${PKTDEDUP_BOOT:-/boot} img
	if [ -n "${PKTDEDUP_BTF_BASE+set}" ]; then
		case $PKTDEDUP_BTF_BASE in
		'' | none)
			echo "PKTDEDUP_BTF_BASE says none" >&2
			return 1
			;;
		esac
		[ -s "$PKTDEDUP_BTF_BASE" ] ||
			{ echo "PKTDEDUP_BTF_BASE=$PKTDEDUP_BTF_BASE is no file" >&2; return 1; }
		echo "$PKTDEDUP_BTF_BASE"
		return 0
	fi
	if [ "$kver" = "$(uname -r)" ]; then
		[ -s /sys/kernel/btf/vmlinux ] ||
			{ echo "the running kernel $kver has no BTF (/sys/kernel/btf/vmlinux)" >&2; return 1; }
		echo /sys/kernel/btf/vmlinux
		return 0
	fi
	img=$boot/vmlinuz-$kver
	[ -r "$img" ] || { echo "no $img to take kernel $kver's BTF from" >&2; return 1; }
	command -v xz >/dev/null || { echo "no xz (xz-utils) to unpack $img" >&2; return 1; }
	mkdir -p "$dir"
	unpack "$img" "$dir/vmlinux" ||
		{ rm -f "$dir/vmlinux"; echo "found no XZ-compressed vmlinux in $img" >&2; return 1; }
	objcopy -O binary --only-section=.BTF "$dir/vmlinux" "$dir/vmlinux.btf" 2>/dev/null || true
	rm -f "$dir/vmlinux"
	[ -s "$dir/vmlinux.btf" ] ||
		{ echo "kernel $kver's vmlinux (in $img) has no .BTF" >&2; return 1; }
	echo "$dir/vmlinux.btf"
}

case "${1:-}" in
digest)
	[ $# -eq 2 ] || { echo "usage: btf-base.sh digest FILE" >&2; exit 2; }
	digest "$2"
	;;
find)
	[ $# -eq 3 ] || { echo "usage: btf-base.sh find KVER DIR" >&2; exit 2; }
	find_base "$2" "$3"
	;;
*)
	echo "usage: btf-base.sh digest FILE | find KVER DIR" >&2
	exit 2
	;;
esac
