#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# FP/FN of the SBF at FPS = 10% (Max = 1, K = 2, P = 4: the paper's setting,
# Sec. 5.2) at three memory sizes, on a uniform stream of N elements with
# 50% distinct, scored against the whole stream and against a sliding
# window. Reproducible: fixed seed.
#
# Usage: eval/paper/sim-table.sh [BUILD_DIR] [N] [WINDOW]
set -euo pipefail
B=${1:-build}
N=${2:-1000000}
W=${3:-100000}
printf '%-7s %9s %8s %8s %8s %8s %10s %10s\n' memory cells fp_bound \
	fp fn zeros "fp(win)" "fn(win)"
for mem in 64K 256K 1M; do
	"$B/dedup-sim" --algo sbf --mem "$mem" --max 1 --k 2 --p 4 \
		--stream uniform --n "$N" --distinct 0.5 --seed 1 \
		--window "$W" --json |
	python3 -c '
import json, sys
j = json.load(sys.stdin)
pct = lambda x: "%.2f%%" % (100 * x)
print("%-7s %9d %8s %8s %8s %8s %10s %10s" % (sys.argv[1], j["cells"],
      pct(j["fp_bound"]), pct(j["fp_rate"]), pct(j["fn_rate"]),
      pct(j["zero_fraction"]), pct(j["window_fp_rate"]),
      pct(j["window_fn_rate"])))' "$mem"
done
