#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The debug kernel of make e2e-debug: x86_64, built from Debian's
# linux-source-6.1 with KASAN, UBSAN, lockdep, debug objects and kmemleak
# (tests/vm/debug-kernel.config), cached outside the work tree like the
# UML build (scripts/lib/kernel-cache.sh; PKTDEDUP_CACHE, default
# ~/.cache/pktdedup):
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
# shellcheck source=scripts/lib/kernel-cache.sh
. scripts/lib/kernel-cache.sh
KC_NAME=debug-kernel
KC_FRAGMENT=tests/vm/debug-kernel.config
kc_source "$KC_NAME"
top="$CACHE/debug-$KC_VER"
src="$top/src"
KC_OUT="$top/build"
KC_IMAGE=arch/x86/boot/bzImage
KC_LOCK="$top.lock"
KC_LOG="$top/build.log"
kc_make() { make -C "$src" O="$KC_OUT" ARCH=x86_64 "$@"; }

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

# its own source; tinyconfig, then the fragment
kc_configure() {
	unpack
	kc_make tinyconfig >>"$KC_LOG" 2>&1
	cat "$KC_FRAGMENT" >>"$KC_OUT/.config"
	kc_make olddefconfig >>"$KC_LOG" 2>&1
	scripts/kernel-tools.sh fragment-check "$KC_NAME" "$KC_FRAGMENT" "$KC_OUT/.config" || exit 1
}

case "${1:-}" in
build) kc_build ;;
dir)
	[ -f "$KC_OUT/$KC_IMAGE" ] || { echo "debug-kernel: not built: run debug-kernel.sh build" >&2; exit 1; }
	echo "$KC_OUT"
	;;
*)
	echo "usage: debug-kernel.sh build|dir" >&2
	exit 2
	;;
esac
