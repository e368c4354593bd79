#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs the libFuzzer targets of tests/fuzz (built by make fuzz-build).
#
#   tests/fuzz/run.sh short BUILD_DIR   for make check: each target replays its
#       regression inputs (tests/fuzz/regressions/TARGET/), then runs a fixed
#       number of executions from its seed corpus with a fixed seed; one
#       "ok"/"not ok" line per target, the executions, then
#       "N passed, N failed" (N counts targets)
#   tests/fuzz/run.sh long BUILD_DIR SECONDS   for make fuzz: each target in
#       turn for SECONDS, growing a corpus of its own in
#       BUILD_DIR/fuzz/corpus-TARGET (the repository's seeds are read, not
#       written); a crash leaves BUILD_DIR/fuzz/crash-TARGET-*
set -u
mode=${1:?usage: tests/fuzz/run.sh short|long BUILD_DIR [SECONDS]}
B=${2:-build}
secs=${3:-600}
cd "$(dirname "$0")/../.." || exit 1
targets="fuzz_key fuzz_args fuzz_dedupctl fuzz_nh"
# the short run: executions per target, and the seed
FUZZ_RUNS=${FUZZ_RUNS:-200000}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# the targets print dedupctl's output and errors: not worth reading here
common=(-close_fd_mask=3 -timeout=10 -rss_limit_mb=2048 -max_len=4096)
# shellcheck source=tests/lib/tap.sh
. tests/lib/tap.sh

for t in $targets; do
	bin="$B/fuzz/$t"
	log="$B/fuzz/$t.log"
	reg="tests/fuzz/regressions/$t"
	if [ ! -x "$bin" ]; then
		bad "$t: $bin is not built (make fuzz-build)"
		continue
	fi
	if [ "$mode" = long ]; then
		mkdir -p "$B/fuzz/corpus-$t"
		start=$(date +%s)
		"$bin" "${common[@]}" -max_total_time="$secs" -print_final_stats=1 \
			-artifact_prefix="$B/fuzz/crash-$t-" \
			"$B/fuzz/corpus-$t" "tests/fuzz/corpus/$t" >"$log" 2>&1
		rc=$?
	else
		# replay every regression input, then fuzz from the seeds
		rc=0
		if [ -d "$reg" ] && [ -n "$(ls -A "$reg")" ]; then
			"$bin" "${common[@]}" "$reg"/* >"$log" 2>&1 || rc=$?
		fi
		start=$(date +%s)
		if [ "$rc" -eq 0 ]; then
			# libFuzzer writes new inputs into its first corpus
			# directory: a scratch one, never the repository's
			rm -rf "$B/fuzz/short-$t"
			mkdir -p "$B/fuzz/short-$t"
			"$bin" "${common[@]}" -runs="$FUZZ_RUNS" -seed=1 \
				-print_final_stats=1 -artifact_prefix="$B/fuzz/crash-$t-" \
				"$B/fuzz/short-$t" "tests/fuzz/corpus/$t" >>"$log" 2>&1
			rc=$?
		fi
	fi
	took=$(($(date +%s) - start))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	nreg=$(ls "$reg" 2>/dev/null | wc -l)
	if [ "$rc" -eq 0 ]; then
		ok "$t: ${execs:-?} executions in ${took}s, $nreg regression inputs"
	else
		bad "$t: exit $rc after ${execs:-?} executions (see $log)"
		grep -E 'ERROR: |runtime error:|SUMMARY:|Test unit written' "$log" | head -n 8 | sed 's/^/    /'
	fi
done
finish
