#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Memory each packet touches in the source analytics, measured: runs
# `bench --trace-sources N` under valgrind's lackey (every load and store
# the program makes, with its address) and counts, per packet, the distinct
# 64-byte lines of each structure that the packet's loads and stores hit:
# the dedup filter, the source window (HyperLogLog sketch + Space-Saving
# summary), the destination window, the new-source filter. Prints the mean
# and the largest count per packet.
#
# Usage: scripts/lines-touched.sh [BUILD_DIR] [PACKETS]
set -euo pipefail
B=${1:-build}
N=${2:-3000}
command -v valgrind > /dev/null || { echo "lines-touched: no valgrind" >&2; exit 1; }
ranges=$(mktemp)
trap 'rm -f "$ranges"' EXIT
valgrind --tool=lackey --trace-mem=yes --log-fd=3 "$B/bench" \
	--trace-sources "$N" 3>&1 > "$ranges" | python3 -c '
import sys
ranges, marker = [], None
# the traced program writes the ranges file once set up; until then the
# trace (start-up) is read and dropped, so that the pipe never fills
n = 0
for line in sys.stdin:
    n += 1
    if n % 10000 == 0 and "marker" in open(sys.argv[1]).read():
        break
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "range":
        ranges.append((f[1], int(f[2], 16), int(f[3], 16)))
    elif f[0] == "marker":
        marker = int(f[1], 16)
names = sorted({r[0] for r in ranges}, key=[r[0] for r in ranges].index)
total = {n: 0 for n in names}
peak = {n: 0 for n in names}
packets = 0
cur = None

def close():
    global packets
    if cur is None:
        return
    packets += 1
    for n in names:
        total[n] += len(cur[n])
        peak[n] = max(peak[n], len(cur[n]))

for line in sys.stdin:
    if line[:2] not in (" L", " S", " M"):
        continue
    addr = int(line[3:].split(",")[0], 16)
    if addr == marker:
        if line[1] == "S":
            close()
            cur = {n: set() for n in names}
        continue
    if cur is None:
        continue
    for n, lo, hi in ranges:
        if lo <= addr < hi:
            cur[n].add(addr >> 6)
            break
close()
print("cache lines touched per packet (%d packets, lackey)" % packets)
print("%-22s %8s %6s" % ("structure", "mean", "max"))
for n in names:
    print("%-22s %8.2f %6d" % (n, total[n] / packets, peak[n]))
print("%-22s %8.2f" % ("all", sum(total.values()) / packets))
' "$ranges"
