#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Unpacks the kernel's own tools that pktdedup uses from Debian's
# linux-source-6.1 (installed by scripts/install-deps.sh) into a cache
# outside the work tree, once. Prints the cache directory.
#
#   scripts/kernel-tools.sh checkpatch   checkpatch.pl and its data files
set -euo pipefail
CACHE=${PKTDEDUP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pktdedup}
TARBALL=/usr/src/linux-source-6.1.tar.xz
[ -r "$TARBALL" ] || { echo "kernel-tools: $TARBALL missing: run scripts/install-deps.sh" >&2; exit 1; }
ver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
dir="$CACHE/checkpatch-$ver"
case "${1:-}" in
checkpatch)
	if [ ! -x "$dir/scripts/checkpatch.pl" ]; then
		mkdir -p "$dir"
		tar -xJf "$TARBALL" -C "$dir" --strip-components=1 \
			linux-source-6.1/scripts/checkpatch.pl \
			linux-source-6.1/scripts/spelling.txt \
			linux-source-6.1/scripts/const_structs.checkpatch
	fi
	echo "$dir"
	;;
*)
	echo "usage: kernel-tools.sh checkpatch" >&2
	exit 2
	;;
esac
