#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-kernel: pktdedup's whole packet path measured natively inside
# a UML kernel, against nftables sets and xt_recent. KVM does not work on
# these machines and QEMU's emulation says nothing about speed; UML runs
# the kernel's instructions natively (with one CPU).
#
#   1. the UML kernel (eval/bench-kernel/bench-uml.sh: built once,
#      cached, locked);
#   2. pktdedup.ko against it, from a mirror of the sources in
#      BUILD/kmod-uml (Kbuild writes beside the sources);
#   3. UML boots with the host's root through hostfs, read-only, and
#      eval/bench-kernel/guest.sh as /init: pktgen in one namespace
#      sends over veth into another, whose blackhole route drops the
#      packets after PREROUTING and the routing lookup; each
#      configuration's time per packet against no hook, measured in the
#      same boot, interleaved, in rounds (raw counters in
#      BUILD/bench-kernel/raw.txt, the console in .../console.log);
#   4. eval/bench-kernel/report.py prints the table, writes the JSON
#      (BUILD/bench-kernel.json; BUILD/bench-kernel-short.json in short
#      mode) and checks the counters: the last line is "N passed, N failed".
#
# Usage: eval/bench-kernel/run.sh BUILD_DIR [full|short|targets|placement|scope|sizes|profile|aa]
#   full   every configuration, BENCH_KERNEL_ROUNDS (2) rounds of
#          BENCH_KERNEL_PAIRS (3) pairs of runs of 10^6 packets (make
#          bench-kernel), the sizes rows among them: 42 min at a load
#          average of 4.7 (median; 1.4 to 7.6), before the sizes rows 6
#          to 10 min on a quieter machine
#   short  no hook, pktdedup count and drop, an nft set of 10^3 flows,
#          pktdedup drop keyed over every byte of 1500-byte packets, one
#          round of 2 pairs of 2*10^5 packets: proves the harness (make
#          check; about 40 s)
#   targets  the rows the packet path's cost targets are judged on (no
#          hook, an nft chain with one counter, pktdedup count at 1 MiB
#          with the source analytics off and on, drop, the nft sets at
#          10^6 flows), 2 rounds of BENCH_KERNEL_PAIRS (8) pairs (about
#          8 min)
#   placement  where pktdedup looks and what it skips: no hook, an nft
#          chain with one counter, pktdedup count and drop at prerouting,
#          pktdedup with nothing selected (match-mark not matching), count
#          and drop at hook ingress; 2 rounds of BENCH_KERNEL_PAIRS (8)
#          pairs (about 6 min)
#   scope  scope shared (lock-free, in shards, and in one behind one lock) against
#          percpu, count and drop at 1 MiB, on UML's one CPU: the
#          uncontended cost; 2 rounds of BENCH_KERNEL_PAIRS (8) pairs
#   sizes  the key by packet size: 64-, 512- and 1500-byte frames
#          (pktgen's pkt_size; IP packets 14 bytes shorter), each with a
#          no-hook row and pktdedup count and drop at prerouting, 1 MiB,
#          keyed over every byte (payload all) and over 64 payload bytes
#          (payload 64), every packet of the boot distinct; 2 rounds of
#          BENCH_KERNEL_PAIRS (8) pairs (18 to 20 min at a load average
#          of 1 to 5)
#   profile  pktdedup count, flow key, 1 MiB, defaults (or, with
#          BENCH_KERNEL_PROFILE=flow-flat, flow-blocked or flow-line, the same in
#          that layout; flow-mark, with action mark, each step at once;
#          flow-64k, in 64 KiB; with packetall-SIZE or packet64-SIZE, the
#          packet key over every byte or over 64 payload bytes of SIZE-byte
#          frames, every packet distinct, as in sizes): 4 pairs of runs
#          with UML under perf (cpu-clock, a sample per 100 us of its CPU
#          time): pktdedup.ko's CPU time per packet, per part (the key,
#          the hash, the filter, the source analytics, the hook), robust
#          to the host's load as the pairs' times are not
#   aa     2 rounds of 6 pairs with no hook on either side: the method's
#          resolution
# BENCH_KERNEL_TIMEOUT (seconds) bounds the UML run: 3600 full, 2700 sizes,
# 1800 targets, placement and scope, 600 profile, 300 short and aa;
# BENCH_KERNEL_APPEND adds to UML's command line (experiments).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=scripts/lib/kernel-cache.sh
. scripts/lib/kernel-cache.sh
repo=$(pwd)
B=${1:-build}
mode=${2:-full}
case "$mode" in
full) secs=${BENCH_KERNEL_TIMEOUT:-3600} json="$B/bench-kernel.json" ;;
short) secs=${BENCH_KERNEL_TIMEOUT:-300} json="$B/bench-kernel-short.json" ;;
targets) secs=${BENCH_KERNEL_TIMEOUT:-1800} json="$B/bench-kernel-targets.json" ;;
placement) secs=${BENCH_KERNEL_TIMEOUT:-1800} json="$B/bench-kernel-placement.json" ;;
scope) secs=${BENCH_KERNEL_TIMEOUT:-1800} json="$B/bench-kernel-scope.json" ;;
sizes) secs=${BENCH_KERNEL_TIMEOUT:-2700} json="$B/bench-kernel-sizes.json" ;;
profile) secs=${BENCH_KERNEL_TIMEOUT:-600} json="$B/bench-kernel-profile.json" ;;
aa) secs=${BENCH_KERNEL_TIMEOUT:-300} json="$B/bench-kernel-aa.json" ;;
*) echo "usage: eval/bench-kernel/run.sh BUILD_DIR [full|short|targets|placement|scope|sizes|profile|aa]" >&2; exit 2 ;;
esac
mkdir -p "$B/bench-kernel" "$B/kmod-uml"
B=$(realpath "$B")
out="$B/bench-kernel"
kmod="$B/kmod-uml"

die() {
	echo "bench-kernel: $*"
	echo "0 passed, 1 failed"
	exit 1
}

t0=$(date +%s)
eval/bench-kernel/bench-uml.sh build >/dev/null || die "the UML kernel did not build"
# Hold the kernel shared while building against it and running it: a
# rebuild (another work tree with another fragment) waits for us.
exec 8>"$(eval/bench-kernel/bench-uml.sh lock)"
flock -s 8
kdir=$(eval/bench-kernel/bench-uml.sh dir) || die "the UML kernel changed under us; run again"
tree=$(scripts/kernel-tools.sh tree) || die "no kernel tree"
t1=$(date +%s)

# the module, from a mirror; KBUILD_KCONFIG as bench-uml.sh configured
# the kernel
kc_mirror_module "$kmod"
KBUILD_KCONFIG="$kdir/Kconfig.pd" make -C "$tree" O="$kdir" ARCH=um M="$kmod" \
	CONFIG_PKTDEDUP=m -j"$(nproc)" modules >"$kmod/build.log" 2>&1 ||
	{ tail -n 30 "$kmod/build.log"; die "pktdedup.ko did not build against the UML kernel"; }
make --no-print-directory B="$B" "$B/dedupctl" >/dev/null ||
	die "dedupctl did not build"
t2=$(date +%s)

# Boot. The host's / is the guest's root, read-only; the guest mounts
# $out writable (hostfs) for raw.txt. xt_recent's list is sized for the
# largest source population the guest sends (its table is allocated for
# ip_list_tot, whatever the population). UML's memory is a sparse file in
# /dev/shm: only what the guest touches is used.
wrap=${BENCH_KERNEL_WRAP:-}
if [ "$mode" = profile ] && [ -z "$wrap" ]; then
	command -v perf >/dev/null || die "perf is missing (Debian's linux-perf; scripts/install-deps.sh)"
	wrap="perf record -q -e cpu-clock -c 100000 -o $out/perf.data --"
fi

# UML's userspace runs in host processes under ptrace: when the kernel's
# process is killed, they are ended too (by their ids)
descendants() {	# PID
	local c
	for c in $(ps -o pid= --ppid "$1"); do
		descendants "$c"
		echo "$c"
	done
}

# The guest writes raw.txt and the console at least every minute or so
# (every run, every configuration); a UML kernel that faults in a loop
# (uml-xstate.patch's hosts, bench-uml.config) writes nothing more and
# spins. Neither file changed for this long is such a stall.
stall=${BENCH_KERNEL_STALL:-$((secs / 2 < 300 ? secs / 2 : 300))}

# One boot, waited for: ended 0 (by itself), 1 (still running at the
# deadline) or 2 (stalled); UML stopped in the last two cases.
boot() {
	local deadline now last m p kids why=
	rm -f "$out/raw.txt" "$out/perf.data" "$out/perf.txt"
	# $wrap and BENCH_KERNEL_APPEND are words, split on purpose
	# shellcheck disable=SC2086
	$wrap "$kdir/linux" mem=1536M root=/dev/root rootfstype=hostfs rootflags=/ ro \
		init="$repo/eval/bench-kernel/guest.sh" con0=fd:0,fd:1 con=null \
		xt_recent.ip_list_tot=1000000 ${BENCH_KERNEL_APPEND:-} \
		pdb.out="$out" pdb.mode="$mode" pdb.ko="$kmod/pktdedup.ko" \
		pdb.ctl="$B/dedupctl" pdb.rounds="${BENCH_KERNEL_ROUNDS:-2}" \
		pdb.prof="${BENCH_KERNEL_PROFILE:-flow}" \
		pdb.pairs="${BENCH_KERNEL_PAIRS:-$(case $mode in targets | placement | scope | sizes) echo 8 ;; *) echo 3 ;; esac)}" </dev/null >"$out/console.log" 2>&1 &
	uml=$!
	now=$(date +%s)
	deadline=$((now + secs))
	last=$now
	while kill -0 "$uml" 2>/dev/null; do
		sleep 1
		now=$(date +%s)
		for m in $(stat -c %Y "$out/raw.txt" "$out/console.log" 2>/dev/null); do
			[ "$m" -gt "$last" ] && last=$m
		done
		if [ "$now" -ge "$deadline" ]; then
			why="still running after $secs s"
		elif [ $((now - last)) -ge "$stall" ]; then
			why="no output for $stall s"
		fi
		[ -n "$why" ] && break
	done
	if [ -z "$why" ]; then
		wait "$uml" 2>/dev/null
		return 0
	fi
	echo "bench-kernel: UML $why: stopping it (pid $uml)"
	kids=$(descendants "$uml")
	# SIGTERM: UML's own handler takes its processes down with it
	kill -TERM "$uml" 2>/dev/null
	sleep 5
	for p in $uml $kids; do
		kill -KILL "$p" 2>/dev/null
	done
	wait "$uml" 2>/dev/null
	case "$why" in
	still*) return 1 ;;
	*) return 2 ;;
	esac
}

boot
booted=$?
if [ "$booted" = 2 ]; then
	# a stall is UML's, not the module's, unless it comes back
	cp "$out/console.log" "$out/console-stalled.log"
	echo "bench-kernel: the console of the stalled boot is in $out/console-stalled.log; booting again"
	boot
	booted=$?
fi
timed_out=0
[ "$booted" = 0 ] || timed_out=1
t3=$(date +%s)

echo "bench-kernel: kernel $((t1 - t0)) s, module $((t2 - t1)) s, UML run $((t3 - t2)) s"
if [ "$mode" = profile ]; then
	perf script -i "$out/perf.data" -F ip,sym,dso >"$out/perf.txt" 2>/dev/null ||
		die "perf script failed"
	# the functions of .text alone, the section whose base the guest
	# reports: a .ko's sections each start at 0, so symbols of
	# .init.text or .text.unlikely would shadow .text's at their offsets
	objdump -t "$kmod/pktdedup.ko" >"$out/pktdedup.sym" ||
		die "objdump pktdedup.ko failed"
	awk '$3 == "F" && $4 == ".text" { print $1, "t", $NF }' \
		"$out/pktdedup.sym" | sort >"$out/pktdedup.nm"
fi
[ -s "$out/raw.txt" ] || { tail -n 30 "$out/console.log"; die "the guest wrote no results"; }
/usr/bin/python3 eval/bench-kernel/report.py "$mode" "$out/raw.txt" "$out/console.log" "$json" \
	>"$out/report.txt"
rc=$?
summary=$(tail -n 1 "$out/report.txt")
head -n -1 "$out/report.txt"
case "$summary" in
*" passed, "*" failed") ;;
*) echo "$summary"; die "the report failed (exit $rc)" ;;
esac
pass=${summary%% passed*}
fail=${summary#*passed, }
fail=${fail%% failed*}
if [ "$timed_out" = 1 ]; then
	echo "not ok UML ended by itself within $secs s, and wrote at least every $stall s"
	fail=$((fail + 1))
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$rc" -eq 0 ]
