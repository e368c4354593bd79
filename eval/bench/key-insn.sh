#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The packet key's instructions per key, this tree's against another
# revision's (default: the last before the key covered every byte), by
# packet size: eval/bench/key_insn.c built against each tree's core
# (key.c, hash.c, decap.c, and nh.c where there is one), run under
# valgrind's callgrind for N and 2N keys; the difference over N is the
# cost of one key, start-up excluded. Instructions do not change with the
# machine's load, which the timings of make bench do.
#
# Usage: eval/bench/key-insn.sh [REV] [SIZES...]   (default 518ec05; 64 512 1500 9000)
set -euo pipefail
cd "$(dirname "$0")/../.."
rev=${1:-518ec05}
shift || true
sizes=${*:-64 512 1500 9000}
n=20000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/old"
git archive "$rev" module/core module/uapi userspace/common | tar -x -C "$tmp/old"

build() {	# DIR OUT
	local srcs=("$1"/module/core/key.c "$1"/module/core/hash.c "$1"/module/core/decap.c) def=()
	if [ -f "$1/module/core/nh.c" ]; then
		srcs+=("$1/module/core/nh.c")
		def=(-DPD_HAVE_NH)
	fi
	gcc -std=gnu11 -O2 "${def[@]}" -I"$1/module/core" -I"$1/userspace/common" \
		-o "$2" eval/bench/key_insn.c "${srcs[@]}"
}

insn() {	# BIN LEN COUNT
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" "$2" "$3" 2>&1 >/dev/null |
		sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

build "$tmp/old" "$tmp/old.bin"
build . "$tmp/new.bin"
printf '%-6s %12s %12s %8s\n' bytes "$rev" this ratio
for len in $sizes; do
	o=$(( $(insn "$tmp/old.bin" "$len" $((2 * n))) - $(insn "$tmp/old.bin" "$len" $n) ))
	t=$(( $(insn "$tmp/new.bin" "$len" $((2 * n))) - $(insn "$tmp/new.bin" "$len" $n) ))
	awk -v l="$len" -v o="$o" -v t="$t" -v n=$n \
		'BEGIN { printf "%-6d %12.1f %12.1f %7.2fx\n", l, o / n, t / n, t / o }'
done
