#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The debug kernel of make e2e-debug: x86_64, built from Debian's
# linux-source-6.1 with KASAN, UBSAN, lockdep, debug objects and kmemleak
# (tests/vm/debug-kernel.config), cached outside the work tree like the
# UML build (PKTDEDUP_CACHE, default ~/.cache/pktdedup):
#
#   CACHE/debug-VERSION/src     the unpacked source, never built in
#   CACHE/debug-VERSION/build   the O= build folder (bzImage, headers for M=)
#
#   debug-kernel.sh build   configure and build unless the cached bzImage
#                           was built from the current config fragment;
#                           prints the build folder
#   debug-kernel.sh dir     prints the build folder (fails if not built)
set -euo pipefail
cd "$(dirname "$0")/../.." || exit 1
CACHE=${PKTDEDUP_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/pktdedup}
TARBALL=/usr/src/linux-source-6.1.tar.xz
FRAGMENT=tests/vm/debug-kernel.config

[ -r "$TARBALL" ] || { echo "debug-kernel: $TARBALL missing: run scripts/install-deps.sh" >&2; exit 1; }
ver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
top="$CACHE/debug-$ver"
src="$top/src"
out="$top/build"
log="$top/build.log"
kmake() { make -C "$src" O="$out" ARCH=x86_64 "$@"; }

# the fragment and the source version decide the kernel
want_hash() {
	{ echo "$ver"; cat "$FRAGMENT"; } | sha256sum | cut -d' ' -f1
}

unpack() {
	[ -e "$src/.complete" ] && return 0
	echo "debug-kernel: unpacking $TARBALL into $src" >&2
	rm -rf "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xJf "$TARBALL" -C "$src.tmp" --strip-components=1
	touch "$src.tmp/.complete"
	rm -rf "$src"
	mv "$src.tmp" "$src"
}

# tinyconfig, then the fragment; every line of the fragment must survive
configure() {
	mkdir -p "$out"
	kmake tinyconfig >>"$log" 2>&1
	cat "$FRAGMENT" >>"$out/.config"
	kmake olddefconfig >>"$log" 2>&1
	scripts/kernel-tools.sh fragment-check debug-kernel "$FRAGMENT" "$out/.config" || exit 1
}

build() {
	local h start
	h=$(want_hash)
	# one build at a time: other work trees share the cache
	mkdir -p "$CACHE"
	exec 9>"$top.lock"
	flock 9
	if [ -f "$out/arch/x86/boot/bzImage" ] && [ "$(cat "$out/.pd-hash" 2>/dev/null)" = "$h" ]; then
		echo "debug-kernel: cached bzImage ($out)" >&2
		echo "$out"
		return 0
	fi
	start=$(date +%s)
	mkdir -p "$top"
	: >"$log"
	unpack
	rm -f "$out/.pd-hash"
	configure
	echo "debug-kernel: building in $out (log: $log)" >&2
	# vmlinux, bzImage and Module.symvers for out-of-tree modules
	if ! kmake -j"$(nproc)" all >>"$log" 2>&1; then
		grep -E 'error|Error' "$log" | head -n 20 >&2
		tail -n 20 "$log" >&2
		echo "debug-kernel: build failed (log: $log)" >&2
		exit 1
	fi
	echo "$h" >"$out/.pd-hash"
	echo "debug-kernel: built in $(($(date +%s) - start)) s" >&2
	echo "$out"
}

case "${1:-}" in
build) build ;;
dir)
	[ -f "$out/arch/x86/boot/bzImage" ] || { echo "debug-kernel: not built: run debug-kernel.sh build" >&2; exit 1; }
	echo "$out"
	;;
*)
	echo "usage: debug-kernel.sh build|dir" >&2
	exit 2
	;;
esac
