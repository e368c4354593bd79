#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Memory each packet touches, measured: runs the benchmark's tracing modes
# under valgrind's lackey (every load and store the program makes, with
# its address) and counts, per packet, the distinct 64-byte lines of each
# structure that the packet's loads and stores hit.
#
#  1. the source analytics (`bench --trace-sources N`) at each level of
#     bench's sources table (dedup step only, + distinct sources and
#     destinations, the defaults, + top talkers, + new-source filter):
#     per level, the mean lines per packet of each structure (the dedup
#     filter, the window's header line and stamps, the sketches, the
#     top-talker summaries, the new-source filter) and of all of them, and
#     the largest; the means of all go to BUILD_DIR/lines-sources.txt
#     ("LEVEL MEAN" lines: bench --lines puts them in bench.json);
#  2. every filter family at 64 KiB, 1 MiB and 64 MiB (`bench
#     --trace-filter FAMILY MEM N`, FAMILY_PACKETS packets each, in the
#     state bench's family table starts from): the family's memory, mean
#     and largest per packet, and the mean against the SBF's;
#  3. the window families sliding, jumping, landmark in each plan of
#     bench's window table (2ms@1Mpps, 1s/64KiB, 1s/1MiB, 1s/64MiB; a new
#     flow every 1000 ns): `bench --save-window` runs one natively to the
#     state the table starts from (up to 1.25M packets, too many to trace)
#     and saves it, `bench --trace-window` loads it and traces
#     FAMILY_PACKETS packets from there (after 2000 more): the filter's
#     memory (counters and ring, or lane words and subwindows), mean and
#     largest per packet, and the mean against the SBF's at the plan's
#     memory (from 2.);
#  4. keying a tunnelled packet (`bench --trace-decap N`, bench's decap
#     table): per key mode (packet, flow) and packet (bare with decap none
#     and all, VXLAN, ERSPAN III, GENEVE with options, VXLAN in GRE), the
#     mean lines per key of the packet (its IP header 14 bytes into a
#     line, as an skb's) and of the key, and of both, the largest; the
#     means of both go to BUILD_DIR/lines-decap.txt ("MODE-PACKET MEAN":
#     bench --lines puts them in bench.json).
#
# Usage: eval/bench/lines-touched.sh [BUILD_DIR] [PACKETS] [FAMILY_PACKETS]
# LINES_PARTS (default "sources filters decap": 1., 2. with 3., 4.) picks
# the parts to run.
set -euo pipefail
B=${1:-build}
N=${2:-3000}
NF=${3:-1000}
PARTS=${LINES_PARTS:-sources filters decap}
part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
command -v valgrind > /dev/null || { echo "lines-touched: no valgrind" >&2; exit 1; }
ranges=$(mktemp)
rows=$(mktemp)
wrows=$(mktemp)
state=$(mktemp)
trap 'rm -f "$ranges" "$rows" "$wrows" "$state"' EXIT

# stdin: lackey's trace; argv: the ranges file the traced program writes,
# and "table" (one line per structure), "row LABEL" (one line: LABEL, the
# mean and the largest count of the first structure), "levels FILE"
# (one column per level; the levels' means of all into FILE) or
# "level-rows FILE" (the same, one row per level). The traced
# program names its marker ("marker ADDR"; a store to it starts a packet)
# or markers ("marker LEVEL ADDR": a packet of that level; LEVEL "-" ends
# the packets of a level, so what follows is not counted)
parser='
import sys
ranges, markers = [], {}
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
        markers[int(f[-1], 16)] = f[1] if len(f) == 3 else None
names = sorted({r[0] for r in ranges}, key=[r[0] for r in ranges].index)
levels = []
total, peak, packets, allpeak = {}, {}, {}, {}
cur, level = None, None

def close():
    if cur is None:
        return
    if level not in packets:
        levels.append(level)
        packets[level] = allpeak[level] = 0
        total[level] = {n: 0 for n in names}
        peak[level] = {n: 0 for n in names}
    packets[level] += 1
    for n in names:
        total[level][n] += len(cur[n])
        peak[level][n] = max(peak[level][n], len(cur[n]))
    allpeak[level] = max(allpeak[level], sum(len(v) for v in cur.values()))

for line in sys.stdin:
    if line[:2] not in (" L", " S", " M"):
        continue
    addr = int(line[3:].split(",")[0], 16)
    if addr in markers:
        if line[1] == "S":
            close()
            level = markers[addr]
            cur = None if level == "-" else {n: set() for n in names}
        continue
    if cur is None:
        continue
    for n, lo, hi in ranges:
        if lo <= addr < hi:
            cur[n].add(addr >> 6)
            break
close()
if sys.argv[2] == "row":
    n, t = names[0], levels[0]
    print("%s %.3f %d %d" % (sys.argv[3], total[t][n] / packets[t],
                             peak[t][n], packets[t]))
    sys.exit(0)
if sys.argv[2] == "level-rows":
    print("cache lines touched per key, by key mode and packet (%d keys "
          "each, lackey)" % packets[levels[0]])
    print("%-24s" % "key, packet" + "".join("%9s" % n for n in names) +
          "%9s%9s" % ("all", "largest"))
    with open(sys.argv[3], "w") as out:
        for t in levels:
            mean = sum(total[t].values()) / packets[t]
            print("%-24s" % t + "".join("%9.2f" % (total[t][n] / packets[t])
                                        for n in names) +
                  "%9.2f%9d" % (mean, allpeak[t]))
            out.write("%s %.3f\n" % (t, mean))
    sys.exit(0)
if sys.argv[2] == "levels":
    short = lambda t: t.replace("analytics-", "").replace("-step", "")
    print("cache lines touched per packet, by level (%d packets each, lackey)"
          % packets[levels[0]])
    print("%-18s" % "structure" + "".join("%10s" % short(t) for t in levels))
    for n in names:
        print("%-18s" % n + "".join(
            "%10.2f" % (total[t][n] / packets[t]) if total[t][n] else
            "%10s" % "-" for t in levels))
    mean = {t: sum(total[t].values()) / packets[t] for t in levels}
    print("%-18s" % "all" + "".join("%10.2f" % mean[t] for t in levels))
    print("%-18s" % "all, largest" + "".join("%10d" % allpeak[t]
                                              for t in levels))
    with open(sys.argv[3], "w") as out:
        for t in levels:
            out.write("%s %.3f\n" % (t, mean[t]))
    sys.exit(0)
t = levels[0]
print("cache lines touched per packet (%d packets, lackey)" % packets[t])
print("%-22s %8s %6s" % ("structure", "mean", "max"))
for n in names:
    print("%-22s %8.2f %6d" % (n, total[t][n] / packets[t], peak[t][n]))
print("%-22s %8.2f" % ("all", sum(total[t].values()) / packets[t]))
'

# trace MODE... -- BENCH-ARGS...
trace() {
	local mode=()
	while [ "$1" != -- ]; do mode+=("$1"); shift; done
	shift
	: > "$ranges"
	valgrind --tool=lackey --trace-mem=yes --log-fd=3 "$B/bench" "$@" \
		3>&1 > "$ranges" | python3 -c "$parser" "$ranges" "${mode[@]}"
}

if part sources; then
	trace levels "$B/lines-sources.txt" -- --trace-sources "$N"
fi

if part decap; then
	part sources && echo
	trace level-rows "$B/lines-decap.txt" -- --trace-decap "$N"
fi

part filters || exit 0
if part sources || part decap; then echo; fi
for mem in 65536 1048576 67108864; do
	for fam in sbf sbf-blocked rsbf bsbf bsbfsd rlbsbf ibf-2c ibf-mc; do
		trace row "$mem $fam" -- --trace-filter "$fam" "$mem" "$NF" >> "$rows"
	done
done
python3 - "$rows" <<'EOF'
import sys
rows = [l.split() for l in open(sys.argv[1])]
print("cache lines of the filter touched per packet, every family "
      "(%s packets each, lackey; from bench's family-table state)" % rows[0][4])
print("%-8s %-11s %8s %5s %7s" % ("memory", "family", "mean", "max", "ratio"))
names = {"65536": "64 KiB", "1048576": "1 MiB", "67108864": "64 MiB"}
sbf = {}
for mem, fam, mean, peak, _ in rows:
    if fam == "sbf":
        sbf[mem] = float(mean)
    print("%-8s %-11s %8.3f %5s %6.2fx" % (names[mem], fam, float(mean), peak,
                                          float(mean) / sbf[mem]))
EOF

echo
for plan in 2ms@1Mpps 1s/64KiB 1s/1MiB 1s/64MiB; do
	for fam in sliding jumping landmark; do
		# prints the filter's bytes and the memory of its SBF
		info=$("$B/bench" --save-window "$fam" "$plan" "$state")
		trace row "$plan $fam $info" -- --trace-window "$fam" "$plan" \
			"$NF" "$state" >> "$wrows"
	done
done
python3 - "$rows" "$wrows" <<'EOF'
import sys
sbf = {l.split()[0]: float(l.split()[2]) for l in open(sys.argv[1])
       if l.split()[1] == "sbf"}
rows = [l.split() for l in open(sys.argv[2])]
print("cache lines of the window filter touched per packet (%s packets each, "
      "lackey; from bench's window-table state: a new flow every 1000 ns);\n"
      "ratio: against the SBF at the plan's memory above" % rows[0][6])
print("%-10s %-8s %9s %8s %5s %7s" % ("plan", "family", "memory", "mean",
                                      "max", "ratio"))
for plan, fam, nbytes, sbfmem, mean, peak, _ in rows:
    b = int(nbytes)
    mem = "%.3g MiB" % (b / 1048576) if b >= 1 << 20 else "%.3g KiB" % (b / 1024)
    print("%-10s %-8s %9s %8.3f %5s %6.2fx" % (plan, fam, mem, float(mean),
                                               peak, float(mean) / sbf[sbfmem]))
EOF
