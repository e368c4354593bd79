#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Distinct-count error of the HyperLogLog core (2^14 registers) measured by
# dedup-sim against exact counts: streams of N distinct elements split
# over 2 "CPU" sketches that are merged, SEEDS seeds per N; prints the
# median and 95th percentile of |error|.
#
# Usage: eval/paper/distinct-table.sh [BUILD_DIR] [SEEDS]
set -euo pipefail
B=${1:-build}
S=${2:-20}
printf '%-10s %6s %10s %10s %10s\n' distinct seeds median p95 max
for n in 100 10000 1000000 10000000; do
	seeds=$S
	[ "$n" -ge 10000000 ] && seeds=$(( (S + 3) / 4 ))
	for s in $(seq 1 "$seeds"); do
		"$B/dedup-sim" --algo sbf --mem 64K --stream uniform --n "$n" \
			--distinct 1 --seed "$s" --cpus 2 --json
	done | python3 -c '
import json, sys
e = sorted(abs(json.loads(l)["distinct_error"]) for l in sys.stdin)
q = lambda p: e[min(len(e) - 1, int(p * len(e)))]
print("%-10s %6d %9.3f%% %9.3f%% %9.3f%%" % (sys.argv[1], len(e),
      100 * q(0.5), 100 * q(0.95), 100 * e[-1]))' "$n"
done
