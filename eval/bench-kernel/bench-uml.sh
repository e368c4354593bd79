#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The UML kernel of make bench-kernel: ARCH=um defconfig plus
# eval/bench-kernel/bench-uml.config, built out of tree from the
# linux-source-6.1 tree that scripts/kernel-tools.sh unpacks, into
#
#   CACHE/bench-uml-VERSION      the O= build folder: ./linux, and what
#                                out-of-tree modules build against (M=)
#
# (PKTDEDUP_CACHE, default ~/.cache/pktdedup.)
#
#   bench-uml.sh build   configure and build unless the cached kernel was
#                        built from the current fragment; prints the folder
#   bench-uml.sh dir     prints the folder (fails unless built)
#   bench-uml.sh lock    prints the lock file: a user holds it shared
#                        (flock -s) while it builds against the kernel or
#                        runs it, so that no rebuild happens meanwhile
#
# The shared tree is never written to. tests/kunit/run.sh adds a line to its
# net/Kconfig that sources net/pktdedup/module/Kconfig through a link to
# whichever checkout ran KUnit last (possibly one that no longer exists),
# so Kconfig reads a copy of the top-level Kconfig kept in the build folder
# (KBUILD_KCONFIG) whose net/Kconfig is the tree's without that line.
#
# One build at a time per folder (an exclusive flock); the stamp that
# marks it complete (.pd-hash: the source version and the fragment) is
# written last, so an interrupted build is resumed by the next run (Kbuild
# rebuilds any object whose .cmd file is missing) and never taken as done.
set -euo pipefail
cd "$(dirname "$0")/../.." || exit 1
repo=$(pwd)
CACHE=${PKTDEDUP_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/pktdedup}
TARBALL=/usr/src/linux-source-6.1.tar.xz
FRAGMENT=eval/bench-kernel/bench-uml.config

[ -r "$TARBALL" ] || { echo "bench-uml: $TARBALL missing: run scripts/install-deps.sh" >&2; exit 1; }
ver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
out="$CACHE/bench-uml-$ver"
lockfile="$out.lock"
log="$out.build.log"

# the fragment and the source version decide the kernel
want_hash() {
	{ echo "$ver"; cat "$FRAGMENT"; } | sha256sum | cut -d' ' -f1
}

kmake() {
	KBUILD_KCONFIG="$out/Kconfig.pd" make -C "$tree" O="$out" ARCH=um "$@"
}

# The top-level Kconfig, and net/Kconfig without tests/kunit/run.sh's line, as
# copies in the build folder (absolute paths; everything else they source
# is read from the tree).
kconfig_copies() {
	grep -v 'net/pktdedup/module/Kconfig' "$tree/net/Kconfig" >"$out/net-Kconfig.pd"
	sed "s|^source \"net/Kconfig\"\$|source \"$out/net-Kconfig.pd\"|" \
		"$tree/Kconfig" >"$out/Kconfig.pd"
	grep -q "^source \"$out/net-Kconfig.pd\"\$" "$out/Kconfig.pd" ||
		{ echo "bench-uml: cannot redirect net/Kconfig in $tree/Kconfig" >&2; exit 1; }
}

# defconfig, the fragment merged in; every line of the fragment must survive
configure() {
	kmake defconfig >>"$log" 2>&1
	(cd "$out" && sh "$tree/scripts/kconfig/merge_config.sh" -m -O "$out" \
		"$out/.config" "$repo/$FRAGMENT") >>"$log" 2>&1
	kmake olddefconfig >>"$log" 2>&1
	scripts/kernel-tools.sh fragment-check bench-uml "$FRAGMENT" "$out/.config" || exit 1
}

build() {
	local h start
	h=$(want_hash)
	mkdir -p "$CACHE"
	exec 9>"$lockfile"
	flock 9
	if [ -x "$out/linux" ] && [ "$(cat "$out/.pd-hash" 2>/dev/null)" = "$h" ]; then
		echo "bench-uml: cached kernel ($out)" >&2
		echo "$out"
		return 0
	fi
	tree=$(scripts/kernel-tools.sh tree)
	start=$(date +%s)
	mkdir -p "$out"
	rm -f "$out/.pd-hash"
	: >"$log"
	kconfig_copies
	configure
	echo "bench-uml: building in $out (log: $log)" >&2
	# ./linux, and Module.symvers for out-of-tree modules
	if ! kmake -j"$(nproc)" all >>"$log" 2>&1; then
		grep -E 'error|Error' "$log" | head -n 20 >&2
		tail -n 20 "$log" >&2
		echo "bench-uml: build failed (log: $log)" >&2
		exit 1
	fi
	echo "$h" >"$out/.pd-hash.tmp"
	mv "$out/.pd-hash.tmp" "$out/.pd-hash"
	echo "bench-uml: built in $(($(date +%s) - start)) s" >&2
	echo "$out"
}

case "${1:-}" in
build) build ;;
dir)
	[ -x "$out/linux" ] && [ "$(cat "$out/.pd-hash" 2>/dev/null)" = "$(want_hash)" ] ||
		{ echo "bench-uml: not built from the current fragment: run bench-uml.sh build" >&2; exit 1; }
	echo "$out"
	;;
lock)
	mkdir -p "$CACHE"
	echo "$lockfile"
	;;
*)
	echo "usage: bench-uml.sh build|dir|lock" >&2
	exit 2
	;;
esac
