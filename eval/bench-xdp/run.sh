#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-xdp: the XDP placements measured in Debian's own 6.1 kernel
# under QEMU TCG, in one boot of the e2e guest (tests/vm/vm.sh; the image
# with eval/bench-xdp's job, vm.sh initramfs BUILD bench, which make
# bench-xdp assembles first). UML (make bench-kernel) has no BPF JIT and
# cannot run an XDP program that calls a kfunc; TCG runs Debian's kernel
# with its JIT, but its timings are an emulator's: only ratios between
# cases of the same boot mean anything.
#
#   1. BPF_PROG_TEST_RUN, the kernel's mean time per frame over
#      BENCH_XDP_REPEAT (100000) frames, BENCH_XDP_RUNS (3) runs per case
#      in each of 3 rounds: a program that returns XDP_PASS, one that
#      returns XDP_DROP, and pktdedup's program (build/xdp/pktdedup.bpf.o,
#      the object dedupctl embeds) with the instance at hook xdp-generic
#      on lo, count and drop, 1 MiB;
#   2. frames through a veth pair: BENCH_XDP_N (20000) distinct UDP
#      datagrams sent twice each, into no hook, pktdedup at ingress, xdp
#      and xdp-generic (count, drop) and the reference programs at native
#      XDP, BENCH_XDP_ROUNDS (7) rounds, every case once per round; each
#      against the round's no-hook runs (one first, one last);
#   3. the same through the guest's two virtio-net NICs (wired through a
#      QEMU hub), where native XDP runs in the driver's NAPI poll before
#      any skb: no hook, ingress, xdp and the reference programs.
#   Times and the guest's CPU ticks (busy, and softirq: the receive side)
#   per frame, as ratios.
#
# eval/bench-xdp/guest.sh is the guest's job; eval/bench-xdp/report.py
# reads its console lines, prints the table, writes BUILD/bench-xdp.json
# and BUILD/bench-xdp/table.md; the last line is "N passed, N failed"
# (every counter check of the guest, and the boot's own verdict).
#
# Usage: eval/bench-xdp/run.sh BUILD_DIR (after make bench-xdp's images)
# BENCH_XDP_TIMEOUT (900 s) bounds the guest.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
B=${1:-build}
out="$B/bench-xdp"
mkdir -p "$out"
t0=$(date +%s)
VM_APPEND="pdx.repeat=${BENCH_XDP_REPEAT:-100000} pdx.runs=${BENCH_XDP_RUNS:-3} pdx.trrounds=3 pdx.n=${BENCH_XDP_N:-20000} pdx.rounds=${BENCH_XDP_ROUNDS:-7}" \
	tests/vm/vm.sh boot "$B" benchxdp "${BENCH_XDP_TIMEOUT:-900}" \
	>"$out/console.txt" 2>&1
boot=$?
echo "bench-xdp: guest $(($(date +%s) - t0)) s, exit $boot (console: $out/console.txt, $B/vm/benchxdp.log)"
[ "$boot" = 0 ] || tail -n 20 "$out/console.txt"
/usr/bin/python3 eval/bench-xdp/report.py "$B/vm/benchxdp.log" \
	"$B/bench-xdp.json" "$out/table.md" "$boot"
