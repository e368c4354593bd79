#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Kernel material pktdedup's tests use, unpacked once into a cache outside
# the work tree (PKTDEDUP_CACHE, default ~/.cache/pktdedup). Each
# subcommand prints the directory it prepared.
#
#   checkpatch  checkpatch.pl and its data files, from linux-source-6.1
#   tree        the whole linux-source-6.1 tree, scripts/patches/ applied
#               (KUnit on UML, make bench-kernel's UML kernel)
#   tree-name   that tree's folder's name (the source's version and the
#               patches'), without unpacking it
#   kver        the version of Debian's current amd64 kernel (6.1.0-NN-amd64)
#   image       that kernel's image and modules, unpacked from its .deb
#               (downloaded, never installed on this machine)
#   btf-base    that kernel's BTF, raw (vmlinux.btf), from the vmlinux inside
#               its image's vmlinuz: the base of pktdedup.ko's own BTF
#   resolve-btfids  the kernel's resolve_btfids (in no Debian package),
#               built from linux-source-6.1's tools/bpf/resolve_btfids
#   fragment-check NAME FRAGMENT CONFIG
#               whether every line of a config fragment survived into a
#               .config (CONFIG_X=v present, "# CONFIG_X is not set" not
#               set); prints what did not, as NAME, and exits 1 then
set -euo pipefail
# CACHE, TARBALL and kc_source, shared with the cached kernels' builders
# shellcheck source=scripts/lib/kernel-cache.sh
. "$(dirname "$0")/lib/kernel-cache.sh"

need_source() {
	kc_source kernel-tools
	echo "$KC_VER"
}

kver() {
	# linux-headers-amd64 depends on linux-headers-6.1.0-NN-amd64
	dpkg-query -W -f='${Depends}' linux-headers-amd64 |
		grep -o 'linux-headers-[0-9][^ ,]*-amd64' | head -n 1 |
		sed 's/^linux-headers-//'
}

# Run "$@" to fill directory $1 unless it is complete; atomic via a
# temporary directory, so an interrupted run leaves nothing half-made.
fill() {
	local dir=$1
	shift
	[ -e "$dir/.complete" ] && return 0
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	"$@" "$dir.tmp"
	touch "$dir.tmp/.complete"
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
}

do_checkpatch() {
	tar -xJf "$TARBALL" -C "$1" --strip-components=1 \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
}

# The tree with the project's patches to it (scripts/patches/*.patch, in
# order: UML's fixes for today's hosts); the tree's folder is named after
# them, so a change to them unpacks a new tree.
patches_tag() {
	local p
	for p in "$(dirname "$0")"/patches/*.patch; do cat "$p"; done |
		sha256sum | cut -c1-8
}

do_tree() {
	local p
	tar -xJf "$TARBALL" -C "$1" --strip-components=1
	for p in "$(dirname "$0")"/patches/*.patch; do
		patch -s -p1 -d "$1" <"$p" || { echo "kernel-tools: $p does not apply" >&2; return 1; }
	done
}

do_image() {
	local v=$2
	(cd "$1" && apt-get download "linux-image-$v" >/dev/null 2>&1 ||
		{ apt-get update -qq && apt-get download "linux-image-$v"; })
	dpkg -x "$1"/linux-image-"$v"_*.deb "$1"
	rm -f "$1"/linux-image-"$v"_*.deb
}

do_btf_base() {	# VMLINUZ DIR
	tar -xJf "$TARBALL" -C "$2" --strip-components=2 \
		linux-source-6.1/scripts/extract-vmlinux
	sh "$2/extract-vmlinux" "$1" >"$2/vmlinux"
	objcopy --dump-section .BTF="$2/vmlinux.btf" "$2/vmlinux" "$2/vmlinux.tmp"
	rm -f "$2/vmlinux" "$2/vmlinux.tmp" "$2/extract-vmlinux"
	[ -s "$2/vmlinux.btf" ]
}

do_resolve_btfids() {	# TREE DIR
	mkdir -p "$2/build"
	make -s -C "$1/tools/bpf/resolve_btfids" OUTPUT="$2/build/" \
		-j"$(nproc)" >"$2/build.log" 2>&1 ||
		{ tail -n 20 "$2/build.log" >&2; return 1; }
	mv "$2/build/resolve_btfids" "$2/resolve_btfids"
	rm -rf "$2/build"
}

fragment_check() {	# NAME FRAGMENT CONFIG
	local line name missing=0
	while read -r line; do
		case "$line" in
		CONFIG_*=*)
			grep -qx -- "$line" "$3" || {
				echo "$1: $line did not survive: $(grep "^${line%%=*}=\|^# ${line%%=*} is not set" "$3" || echo unset)" >&2
				missing=1
			}
			;;
		"# CONFIG_"*" is not set")
			name=${line#\# }
			name=${name%% *}
			! grep -q "^$name=" "$3" || {
				echo "$1: $name should be off: $(grep "^$name=" "$3")" >&2
				missing=1
			}
			;;
		esac
	done <"$2"
	[ "$missing" = 0 ] || { echo "$1: config incomplete (see $3)" >&2; return 1; }
}

case "${1:-}" in
checkpatch)
	dir="$CACHE/checkpatch-$(need_source)"
	fill "$dir" do_checkpatch
	echo "$dir"
	;;
tree)
	dir="$CACHE/linux-$(need_source)-$(patches_tag)"
	fill "$dir" do_tree
	echo "$dir"
	;;
tree-name)
	echo "linux-$(need_source)-$(patches_tag)"
	;;
kver)
	kver
	;;
image)
	v=$(kver)
	dir="$CACHE/image-$v"
	fill "$dir" sh -c "$(declare -f do_image); do_image \"\$1\" $v" sh
	echo "$dir"
	;;
btf-base)
	v=$(kver)
	img=$("$0" image)
	dir="$CACHE/btf-$v"
	fill "$dir" do_btf_base "$img/boot/vmlinuz-$v"
	echo "$dir"
	;;
resolve-btfids)
	tree=$("$0" tree)
	dir="$CACHE/resolve_btfids-$(need_source)"
	fill "$dir" do_resolve_btfids "$tree"
	echo "$dir"
	;;
fragment-check)
	fragment_check "$2" "$3" "$4"
	;;
*)
	echo "usage: kernel-tools.sh checkpatch|tree|tree-name|kver|image|btf-base|resolve-btfids|fragment-check" >&2
	exit 2
	;;
esac
