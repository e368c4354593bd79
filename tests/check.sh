#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs every test suite pktdedup has and ends with one line
# "N passed, N failed" (the sum over suites). A suite that dies before its
# own summary line counts as one failure. Exit status: non-zero if
# anything failed.
#
# Usage: tests/check.sh BUILD_DIR
set -u
B=${1:-build}
total_pass=0
total_fail=0
log_dir="$B/check-logs"
mkdir -p "$log_dir"

# A command that is one test: its exit status is the verdict.
single() {
	local name=$1
	shift
	if "$@"; then
		echo "ok $name"
		echo "1 passed, 0 failed"
	else
		echo "not ok $name"
		echo "0 passed, 1 failed"
		return 1
	fi
}

# The verdict of suite NAME from its log and exit status RC.
account() {	# NAME RC
	local name=$1 rc=$2 log="$log_dir/$1.log" summary p f
	summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	# what failed, with the diagnostics its test printed before it (the
	# "# ..." lines since the previous verdict, the last 25: a CI that
	# fails once must say why), and any sanitizer report
	awk '
		/^ *(not )?ok / {
			if ($0 ~ /^ *not ok/) {
				for (i = (n > 25 ? n - 25 : 0); i < n; i++)
					print "   | " buf[i]
				print
			}
			n = 0
			next
		}
		/^ *#/ { buf[n++] = $0; next }
		/ERROR: (Address|Leak)Sanitizer|runtime error:|^e2e-debug: |^vm\.sh: / { print }
	' "$log" | head -n 150
	if [ -z "$summary" ]; then
		echo "   $name: no summary line (exit $rc); see $log"
		tail -n 20 "$log"
		total_fail=$((total_fail + 1))
		return
	fi
	p=${summary%% passed*}
	f=${summary#*passed, }
	f=${f%% failed*}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "   $name: exit $rc with no failed test; counted as a failure"
		f=1
	fi
	echo "   $name: $p passed, $f failed"
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
}

suite() {	# NAME CMD...
	local name=$1 t0=$SECONDS rc
	shift
	echo "== $name: $*"
	"$@" >"$log_dir/$name.log" 2>&1
	rc=$?
	account "$name" $rc
	echo "   $name: $((SECONDS - t0)) s (make check at $SECONDS s)"
}

# Every program a suite runs is installed (tests/style/commands.txt names them
# and the packages of scripts/install-deps.sh they come from; the style
# suite keeps it true): checked before any suite starts, one test each, so
# that a missing program is named here and not a suite's puzzling failure.
programs() {
	local prog pkg suites p=0 f=0
	while read -r prog pkg suites _; do
		case $prog in '' | '#'*) continue ;; esac
		[ "$suites" = - ] && continue
		if command -v "$prog" >/dev/null; then
			echo "ok $prog"
			p=$((p + 1))
		else
			echo "not ok $prog is not installed (Debian's $pkg, scripts/install-deps.sh), needed by: $suites"
			f=$((f + 1))
		fi
	done <tests/style/commands.txt
	echo "$p passed, $f failed"
	[ "$f" -eq 0 ]
}
suite programs programs

# The debug kernel's run is the longest: its kernel's build, then a guest
# on one core. It is make check's critical path, so it starts first, in
# the background, at the others' priority (niced, its kernel built while
# the suites below took the cores, it ended last by many minutes), and
# is accounted for last.
echo "== e2e-debug (in the background): tests/vm/e2e-debug.sh $B"
tests/vm/e2e-debug.sh "$B" >"$log_dir/e2e-debug.log" 2>&1 &
debug_pid=$!

# Core tests (KUnit API) and simulator tests, natively with ASan + UBSan.
suite native env ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "$B/core-tests"
# The shared scope's threads on one sharded filter, under ThreadSanitizer:
# a data race stops the run.
suite tsan env TSAN_OPTIONS=halt_on_error=1:abort_on_error=1 \
	"$B/tsan-tests" 'pktdedup-shard*'
# libFuzzer (ASan, UBSan): key extraction, the value parsers, dedupctl's
# command line; the regression inputs, then a fixed run from the seeds.
suite fuzz tests/fuzz/run.sh short "$B"
# The dedup-sim command-line contract.
suite sim-cli python3 tests/cli/test_sim_cli.py "$B"
# dedup-sim's sketches in PostgreSQL's hll extension: a temporary cluster
# as an unprivileged user; the encoding, fleet unions, two keys.
suite pg python3 tests/pg/test_hll.py "$B"
# dedup-sim on captures made by Wireshark's tools: formats, link types,
# cut and runt frames, --write (under ASan, UBSan, LSan); peak memory on
# a capture of 1 GiB.
suite capture python3 tests/cli/test_capture.py "$B" --sanitized --big
# dedup-sim --write against editcap -D and -w on small generated captures
# (make compare's check mode): each removes what it should.
suite compare eval/compare/compare.sh --check "$B"
# dedupctl's bash completion: what it offers, and that its words are
# dedupctl's usage text's.
suite completion python3 tests/cli/test_completion.py "$B"
# dedupctl -f: every line checked before netlink (FILE:LINE, exit 2), by
# the command line's own parsers.
suite batch python3 tests/cli/test_batch.py "$B"
# dedupctl over a stand-in for the module (tests/cli/fake_nl.c): what set
# sends, what show, save and stats print of known replies, and save's
# file through -f.
suite fake python3 tests/cli/test_fake.py "$B"
# The netlink spec and what is generated from it (uAPI, policies, tables).
suite spec /usr/bin/python3 tests/spec/test_spec.py
# Kernel style of module/, the freestanding rule, SPDX headers.
suite style tests/style/style.sh
# The module builds against Debian's headers with W=1 and sparse, silently.
suite module single "module builds clean (W=1, C=1)" make --no-print-directory module-check
# The packet path's object code: no stack zeroed for every packet in the
# module built for Debian's kernel, the SBF's prefetches kept.
suite hotpath tests/packaging/hotpath-check.sh "$B"
# The project's btfids fills .BTF_ids as the kernel's resolve_btfids does
# (a fixture of every kind, pktdedup.ko against Debian's kernel's BTF).
suite btfids tests/packaging/btfids-check.sh "$B"
# DKMS builds the module from its source tree for the installed headers.
suite dkms tests/packaging/dkms-check.sh "$B"
# The Debian packages: built, lintian-clean, holding what they should.
suite deb tests/packaging/deb-check.sh "$B"
# The packet path in a UML kernel (built once, cached): a short run of
# make bench-kernel whose counters must agree with the traffic sent.
suite bench-kernel eval/bench-kernel/run.sh "$B" short
# KUnit on UML with KASAN: the core's suites and the module's.
suite kunit tests/kunit/run.sh "$B"
# The scenarios in a QEMU guest running Debian's kernel.
# (the bound is a hang's: under make check's load, beside the debug
# guest, the 74 take 25 min)
suite e2e tests/vm/vm.sh boot "$B" e2e 2100
# Those that read or hook per CPU or per device, on a guest with 256
# possible CPUs (2 online), as many servers report, the module's
# defaults but for caps that hold t_stats_bounded's 250M shared filter:
# unprivileged readers of it, device changes beside them, devices
# followed by name and stacked, the shared scope (lock-free and in
# shards) stepped from both CPUs, the sketches' export; what a namespace
# holds with the defaults, CPU hotplug within the caps, and a user's
# namespace filled to its cap against MemAvailable.
suite e2e-cpus env VM_TAG=cpus VM_MEM=1536 \
	VM_APPEND="possible_cpus=256 pd.only=t_stats_bounded,t_stats_readers,t_dev_follow,t_dev_stacked,t_shared_cpus,t_budget_memavail,t_cpus_defaults,t_sketches pd.modparams=max_total_mem=700M,max_netns_mem=400M" \
	tests/vm/vm.sh boot "$B" e2e 1200
fg_end=$SECONDS
# The same scenarios on a debug kernel (KASAN, UBSAN, lockdep, kmemleak):
# started above; its console is kept in $B/vm/e2e-debug.log.
wait "$debug_pid"
rc=$?
echo "== e2e-debug: tests/vm/e2e-debug.sh $B"
account e2e-debug $rc
echo "   e2e-debug: ended at $SECONDS s of make check (the others at $fg_end s)"

echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
