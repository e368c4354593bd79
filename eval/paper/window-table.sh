#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The window families against the exact time-window truth (a copy is a
# duplicate iff its key was seen less than W before it, editcap -w's
# semantics), with the SBF of the same memory beside them: W = 2 ms
# planned for 1 Mpps at fps 0.001; timed streams of N packets, 70% fresh,
# each packet copied with probability 0.3 after a delay uniform in
# [0, 4 ms] (half the copies inside the window), at 0.5 and 1 Mpps, and at
# 0.5 Mpps with a flood of 10 Mpps distinct packets for 20 ms. Fixed seed.
#
# Columns: fp = distinct packets (against the window truth) reported as
# copies; fp(new) = packets of keys never seen reported as copies (what the
# Bloom bound is about); fn = copies inside the window missed; fn(g) =
# copies inside the guaranteed span missed (the window; (s - 1)/s of it
# for jumping; none for landmark); early = early expiries; shortest =
# shortest effective window (ms).
#
# Usage: eval/paper/window-table.sh [BUILD_DIR] [N]
set -euo pipefail
B=${1:-build}
N=${2:-1000000}
printf '| %-8s | %-26s | %8s | %8s | %8s | %8s | %7s | %8s | %8s | %9s |\n' \
	filter stream memory fp_bound fp "fp(new)" fn "fn(g)" early shortest
printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' ---------- \
	---------------------------- ---------- ---------- ---------- \
	---------- --------- ---------- ---------- -----------
row() {	# NAME STREAM-LABEL ARGS...
	_name=$1
	_label=$2
	shift 2
	"$B/dedup-sim" "$@" --json | python3 -c '
import json, sys
j = json.load(sys.stdin)
pct = lambda x: "%.4f%%" % (100 * x)
g = lambda k, d="-": j.get(k, d)
fpnew = pct(g("fp_new_rate")) if "fp_new_rate" in j else "-"
fng = "%d" % g("fn_inside_guaranteed") if "fn_inside_guaranteed" in j else "-"
early = "%d" % g("early_expiries") if "early_expiries" in j else "-"
short = "%.3f" % g("window_effective_min_ms") if "window_effective_min_ms" in j else "-"
print("| %-8s | %-26s | %8s | %8s | %8s | %8s | %7s | %8s | %8s | %9s |" % (
      sys.argv[1], sys.argv[2], "%d KiB" % (j["mem_bytes"] // 1024),
      pct(j["fp_bound"]), pct(j["fp_rate"]), fpnew, pct(j["fn_rate"]),
      fng, early, short))' "$_name" "$_label"
}
for s in "0.5 Mpps|1000|--pps 500k" "1 Mpps|2000|--pps 1M" \
	 "0.5 Mpps, 10 Mpps flood|1000|--pps 500k --flood 10M --flood-at 500ms --flood-for 20ms"; do
	label=${s%%|*}
	rest=${s#*|}
	count=${rest%%|*}
	# shellcheck disable=SC2086
	set -- --stream timed --n "$N" ${rest#*|} --distinct 0.7 \
		--copy-delay 4ms --seed 1
	for f in sliding jumping landmark; do
		row "$f" "$label" --algo "$f" --window 2ms --rate 1M \
			--fps 0.001 "$@"
	done
	# the SBF with the sliding window's memory, scored against a count
	# window of 2 ms of packets at the stream's rate (its own truth)
	mem=$("$B/dedup-sim" --algo sliding --window 2ms --rate 1M \
		--fps 0.001 --stream timed --n 1 --json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["mem_bytes"])')
	row sbf "$label" --algo sbf --mem "$mem" --fps 0.001 \
		--window "$count" "$@"
done
