#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The module's source analytics replayed by dedup-sim --sources against
# exact answers, on a Zipf stream (10^6 packets from 10^5 possible sources,
# s = 1.1, sources split over CPUs as packet i on CPU i mod CPUS):
#   1. distinct sources over each span of the last k of 12 sub-windows:
#      the largest |error| over the spans, by CPU split;
#   2. heavy hitters (sent more than phi N) by counters per sub-window;
#   3. rare sources (sent at most s N) by ring and new-source filter size;
#      "examined": the recall among the sources the rings held (BFSS's
#      guarantee: 1).
#
# Usage: eval/paper/sources-table.sh [BUILD_DIR]
set -euo pipefail
B=${1:-build}
sim() {
	"$B/dedup-sim" --algo sbf --mem 64K --stream zipf --universe 100000 \
		--zipf-s 1.1 --n 1000000 --sources --json "$@"
}
py() {	# CODE [ARGS for sys.argv[1:]]
	_code=$1
	shift
	python3 -c "import json, sys; s = json.load(sys.stdin)['sources']; $_code" "$@"
}

echo "distinct sources, last k of 12 sub-windows, 5 seeds: max |error| over k"
echo "(the merged sketches do not depend on the split: the rows must agree)"
printf '%-6s %10s %10s\n' cpus min max
for c in 1 2 8; do
	for seed in 1 2 3 4 5; do
		sim --cpus "$c" --seed "$seed" | py '
print(max(abs(w["distinct_error"]) for w in s["subwindows"]))'
	done | sort -g | awk -v c="$c" '
		NR == 1 { lo = $1 } { hi = $1 }
		END { printf "%-6s %9.3f%% %9.3f%%\n", c, 100 * lo, 100 * hi }'
done

echo
echo "heavy hitters (2 CPUs): listed with upper bound > phi N"
printf '%-8s %-8s %6s %8s %9s %9s %9s\n' phi counters true reported \
	precision recall "err/N"
for phi in 0.01 0.001; do
	for cnt in 128 1024; do
		sim --cpus 2 --hh-phi "$phi" --counters "$cnt" | py '
h = s["heavy_hitters"]
print("%-8s %-8s %6d %8d %9.4f %9.4f %8.3f%%" % (sys.argv[1], sys.argv[2],
      h["true"], h["reported"], h["precision"], h["recall"],
      100 * s["ss_error"] / s["window_elements"]))' "$phi" "$cnt"
	done
done

echo
echo "rare sources (2 CPUs, 128 counters): support s = 0.0001 (s N = 100)"
printf '%-8s %-6s %10s %7s %9s %9s %9s %9s\n' new-mem ring candidates true \
	reported precision recall examined
for nm in 64K 1M; do
	for ring in 1024 16384 65536; do
		sim --cpus 2 --new-mem "$nm" --ring "$ring" | py '
r = s["rare"]
print("%-8s %-6s %10d %7d %9d %9.4f %9.4f %9.4f" % (sys.argv[1], sys.argv[2],
      s["candidates"], r["true"], r["reported"], r["precision"],
      r["recall"], s["rare_examined"]["recall"]))' "$nm" "$ring"
	done
done
