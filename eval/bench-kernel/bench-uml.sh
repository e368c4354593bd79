#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The UML kernel of make bench-kernel: ARCH=um defconfig plus
# eval/bench-kernel/bench-uml.config, built out of tree from the
# linux-source-6.1 tree that scripts/kernel-tools.sh unpacks, and cached
# (scripts/lib/kernel-cache.sh; PKTDEDUP_CACHE, default ~/.cache/pktdedup)
# in
#
#   CACHE/bench-uml-VERSION      the O= build folder: ./linux, and what
#                                out-of-tree modules build against (M=)
#
#   bench-uml.sh build   configure and build unless the cached kernel was
#                        built from the current fragment; prints the folder
#   bench-uml.sh dir     prints the folder (fails unless built)
#   bench-uml.sh lock    prints the lock file: a user holds it shared
#                        (flock -s) while it builds against the kernel or
#                        runs it, so that no rebuild happens meanwhile
#
# The shared tree is never written to. tests/kunit/run.sh adds a line to
# its net/Kconfig that sources net/pktdedup/module/Kconfig through a link
# to whichever checkout ran KUnit last (possibly one that no longer
# exists), so Kconfig reads a copy of the top-level Kconfig kept in the
# build folder (KBUILD_KCONFIG) whose net/Kconfig is the tree's without
# that line.
set -euo pipefail
cd "$(dirname "$0")/../.." || exit 1
repo=$(pwd)
# shellcheck source=scripts/lib/kernel-cache.sh
. scripts/lib/kernel-cache.sh
KC_NAME=bench-uml
KC_FRAGMENT=eval/bench-kernel/bench-uml.config
kc_source "$KC_NAME"
# the tree's name: the source's version and the patches to it
KC_VER=$(scripts/kernel-tools.sh tree-name)
KC_VER=${KC_VER#linux-}
KC_OUT="$CACHE/bench-uml-$KC_VER"
KC_IMAGE=linux
KC_LOCK="$KC_OUT.lock"
KC_LOG="$KC_OUT.build.log"
kc_make() {
	KBUILD_KCONFIG="$KC_OUT/Kconfig.pd" make -C "$tree" O="$KC_OUT" ARCH=um "$@"
}

# The top-level Kconfig, and net/Kconfig without tests/kunit/run.sh's
# line, as copies in the build folder (absolute paths; everything else
# they source is read from the tree).
kconfig_copies() {
	grep -v 'net/pktdedup/module/Kconfig' "$tree/net/Kconfig" >"$KC_OUT/net-Kconfig.pd"
	sed "s|^source \"net/Kconfig\"\$|source \"$KC_OUT/net-Kconfig.pd\"|" \
		"$tree/Kconfig" >"$KC_OUT/Kconfig.pd"
	grep -q "^source \"$KC_OUT/net-Kconfig.pd\"\$" "$KC_OUT/Kconfig.pd" ||
		{ echo "bench-uml: cannot redirect net/Kconfig in $tree/Kconfig" >&2; exit 1; }
}

# the shared tree; defconfig, the fragment merged in
kc_configure() {
	tree=$(scripts/kernel-tools.sh tree)
	kconfig_copies
	kc_make defconfig >>"$KC_LOG" 2>&1
	(cd "$KC_OUT" && sh "$tree/scripts/kconfig/merge_config.sh" -m -O "$KC_OUT" \
		"$KC_OUT/.config" "$repo/$KC_FRAGMENT") >>"$KC_LOG" 2>&1
	kc_make olddefconfig >>"$KC_LOG" 2>&1
	scripts/kernel-tools.sh fragment-check "$KC_NAME" "$KC_FRAGMENT" "$KC_OUT/.config" || exit 1
}

case "${1:-}" in
build) kc_build ;;
dir)
	kc_current ||
		{ echo "bench-uml: not built from the current fragment: run bench-uml.sh build" >&2; exit 1; }
	echo "$KC_OUT"
	;;
lock)
	mkdir -p "$CACHE"
	echo "$KC_LOCK"
	;;
*)
	echo "usage: bench-uml.sh build|dir|lock" >&2
	exit 2
	;;
esac
