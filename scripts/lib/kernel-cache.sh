# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Kernels built from Debian's linux-source-6.1 once and kept in a cache
# outside the work tree, shared by every checkout (PKTDEDUP_CACHE, default
# ~/.cache/pktdedup): the debug kernel (tests/vm/debug-kernel.sh) and the
# UML kernel (eval/bench-kernel/bench-uml.sh). Sourced (kernel-tools.sh
# takes CACHE and TARBALL from here too). A builder, from the top of the
# repository, calls kc_source NAME, then sets
#
#   KC_NAME      its name in messages
#   KC_FRAGMENT  its config fragment, a path from the top
#   KC_OUT       the O= build folder; KC_OUT/KC_IMAGE is what a build leaves
#   KC_LOCK      the lock file, KC_LOG the build log
#
# and defines kc_make (make with its tree, O= and ARCH) and kc_configure
# (what comes before the build proper: unpack, configure, check that every
# line of the fragment survived; output to KC_LOG). kc_build does the rest.
# kc_mirror_module builds pktdedup's mirror for a build against one.
CACHE=${PKTDEDUP_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/pktdedup}
TARBALL=/usr/src/linux-source-6.1.tar.xz

# The source's version in KC_VER; NAME says who misses the tarball.
kc_source() {	# NAME
	[ -r "$TARBALL" ] || { echo "$1: $TARBALL missing: run scripts/install-deps.sh" >&2; exit 1; }
	KC_VER=$(dpkg-query -W -f='${Version}' linux-source-6.1)
}

# the fragment and the source version decide the kernel
kc_want_hash() {	# of the source and the fragment's lines, not its comments
	{ echo "$KC_VER"; grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$KC_FRAGMENT"; } |
		sha256sum | cut -d' ' -f1
}

# Whether KC_OUT holds a complete kernel built from the current fragment
# (or the one whose hash is HASH).
kc_current() {	# [HASH]
	[ -f "$KC_OUT/$KC_IMAGE" ] &&
		[ "$(cat "$KC_OUT/.pd-hash" 2>/dev/null)" = "${1:-$(kc_want_hash)}" ]
}

# Configures and builds unless the cached kernel is current; prints
# KC_OUT. One build at a time (an exclusive flock, held until the builder
# exits): other work trees share the cache. The stamp that marks a build
# complete (.pd-hash: the source version and the fragment) is written
# last, so an interrupted build is resumed by the next run (Kbuild rebuilds
# any object whose .cmd file is missing) and never taken as done.
kc_build() {
	local h start
	h=$(kc_want_hash)
	mkdir -p "$CACHE"
	exec 9>"$KC_LOCK"
	flock 9
	if kc_current "$h"; then
		echo "$KC_NAME: cached kernel ($KC_OUT)" >&2
		echo "$KC_OUT"
		return 0
	fi
	start=$(date +%s)
	mkdir -p "$KC_OUT" "$(dirname "$KC_LOG")"
	rm -f "$KC_OUT/.pd-hash"
	: >"$KC_LOG"
	kc_configure
	echo "$KC_NAME: building in $KC_OUT (log: $KC_LOG)" >&2
	if ! kc_make -j"$(nproc)" all >>"$KC_LOG" 2>&1; then
		grep -E 'error|Error' "$KC_LOG" | head -n 20 >&2
		tail -n 20 "$KC_LOG" >&2
		echo "$KC_NAME: build failed (log: $KC_LOG)" >&2
		exit 1
	fi
	echo "$h" >"$KC_OUT/.pd-hash.tmp"
	mv "$KC_OUT/.pd-hash.tmp" "$KC_OUT/.pd-hash"
	echo "$KC_NAME: built in $(($(date +%s) - start)) s" >&2
	echo "$KC_OUT"
}

# Kbuild writes beside the sources, so pktdedup builds against a kernel
# from a mirror of them in DIR: mtimes kept (only what changed is
# rebuilt), and sources the tree no longer has (renamed, removed) taken
# out, lest Kbuild's wildcard build them.
kc_mirror_module() {	# DIR
	find Kbuild module \( -name Kbuild -o -name '*.[ch]' \) \
		-exec cp -p --parents -t "$1/" {} +
	(cd "$1" && find module \( -name Kbuild -o -name '*.[ch]' \)) |
		while read -r f; do [ -e "$f" ] || rm -f "$1/$f"; done
}
