#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The SBF's three layouts (flat, blocked, line) on the simulator's
# streams: FP and FN rates of the last quarter of each stream (the filter
# at its stable point by then), against the flat filter's Eq. 8 bound and
# the planner's models of blocked and one-line cells. Memory 256 KiB (2 Mi
# cells: a cell lives about 140 000 elements), fps 1%, K 3, P as planned
# for each layout; 4 million elements; fixed seed.
#
# Usage: eval/bench/layout-table.sh [BUILD_DIR] [N]
set -euo pipefail
B=${1:-build}
N=${2:-4000000}
streams=(
	"uniform, 90% new|--stream uniform --distinct 0.9"
	"uniform, 50% new|--stream uniform --distinct 0.5"
	"zipf 0.8, 10^6|--stream zipf --universe 1000000 --zipf-s 0.8"
	"poisson (paper, u 0.5)|--stream poisson --lambda 0.5 --u 0.5"
)
printf '| stream | layout | P | FP (last quarter) | FN (last quarter) | model FP bound | Eq. 8 at that P |\n'
printf '|---|---|---|---|---|---|---|\n'
for s in "${streams[@]}"; do
	name=${s%%|*}
	# shellcheck disable=SC2206	# the stream's options, split on purpose
	args=(${s#*|})
	for layout in flat blocked line; do
		"$B/dedup-sim" --algo sbf --layout "$layout" --mem 256K --k 3 \
			"${args[@]}" --n "$N" --seed 1 --checkpoints 4 --json |
		python3 -c '
import json, sys
j = json.load(sys.stdin)
c = j["checkpoints"][-1]
pct = lambda x: "%.3f%%" % (100 * x)
print("| %s | %s | %d | %s | %s | %s | %s |" % (sys.argv[1], j["layout"], j["p"],
      pct(c["fp_rate"]), pct(c["fn_rate"]), pct(j["fp_bound"]),
      pct(j["fp_bound_flat"])))' "$name"
	done
done
