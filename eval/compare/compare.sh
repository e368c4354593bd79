#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# dedup-sim against Wireshark's editcap on generated captures (make compare:
# a few minutes; make check runs the check mode, about 8 s).
#
#   eval/compare/compare.sh [BUILD_DIR]           the table, also in
#                                            BUILD_DIR/compare.txt
#   eval/compare/compare.sh --check [BUILD_DIR]   small captures, every count
#                                            asserted; "N passed, N failed"
#
# Four captures (Ethernet, classic pcap, microsecond times; fixed seeds),
# each built by eval/compare/compare.py (tap A: bulk and short TCP, UDP, at
# 125 kpps on average) and Debian's editcap and mergecap:
#   exact   half of the flows also seen by a second tap, unchanged, 5 us
#           later (editcap -t, mergecap): exact copies
#   hop     half of the flows seen again 30 us later one router hop on:
#           TTL - 1, IPv4 header checksum recomputed, new MAC addresses
#   retx    TCP only, 3% of its data segments retransmitted byte for byte
#           200-600 ms later (TCP's minimum RTO is 200 ms): real packets
#           that a de-duplicator must pass
#   mixed   half IPv4, half IPv6; a quarter of the flows copied exactly, a
#           quarter one hop on (hop limit - 1), 2% retransmissions
# and mixed again as pcapng (editcap -F pcapng); then
#   tunnel  a quarter of the flows seen by a second tap, exactly, and half
#           of them mirrored to a collector 11 us later through a tunnel:
#           the frame whole in VXLAN, ERSPAN II or III over IPv4 (remote
#           port mirroring), whose outer headers no bare frame has;
#           editcap -D 5, dedup-sim as above, and dedup-sim --decap all
#           (the tunnels looked into, as the module's decap setting)
# Every frame has its own
# time, which all three tools keep, so each output is scored per frame
# against the generator's truth: copies removed, false removals (originals
# or retransmissions removed), frames per second (frames in over the wall
# time of the tool's run) and peak RSS (GNU time).
#
# COMPARE_FRAMES: tap A's frames per capture (default 400000; with the
# copies, 400 000 to 600 000 frames a capture). COMPARE_RUNS: each tool's
# runs, the fastest counted (default 3; --check: 1). COMPARE_SHIFT_EXACT,
# COMPARE_SHIFT_HOP, COMPARE_SHIFT_TUNNEL: the copies' delays in us (5, 30
# and 11; 1, 2 and 3 modulo 4).
set -euo pipefail

check=0
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
B=${1:-build}
SIM=$B/dedup-sim
here=$(dirname "$0")
GEN=("${PYTHON:-/usr/bin/python3}" "$here/compare.py")
# the copies' delays after their packets, us: 1, 2 and 3 modulo 4 (tap A's
# frames are at multiples of 4 us)
SHIFT_EXACT=${COMPARE_SHIFT_EXACT:-5}
SHIFT_HOP=${COMPARE_SHIFT_HOP:-30}
SHIFT_TUNNEL=${COMPARE_SHIFT_TUNNEL:-11}
WINDOW=0.002	# editcap -w's window, and the sliding window's (2ms)

for t in editcap mergecap capinfos; do
	command -v "$t" >/dev/null || {
		echo "compare: $t not found (apt-get install -y wireshark-common)" >&2
		exit 1
	}
done
[ -x /usr/bin/time ] || { echo "compare: no /usr/bin/time (apt-get install -y time)" >&2; exit 1; }
[ -x "$SIM" ] || { echo "compare: no $SIM (make $SIM)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --check: 20 000 frames 64 us apart on average, 1.3 s: retransmissions
# (200-600 ms later) fit
if [ "$check" -eq 1 ]; then
	FRAMES=${COMPARE_FRAMES:-20000}
	GAP=64
	RUNS=1
else
	FRAMES=${COMPARE_FRAMES:-400000}
	GAP=8
	RUNS=${COMPARE_RUNS:-3}
fi

pass=0
fail=0
ok() { echo "ok $1"; pass=$((pass + 1)); }
bad() { echo "not ok $1"; fail=$((fail + 1)); }
expect() {	# NAME GOT WANT
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1"; echo "    got  $2"; echo "    want $3"; fi
}

frames_of() { capinfos -M -c -T -r "$1" | cut -f2; }

# build NAME SEED HAS [compare.py gen options]: $tmp/NAME/in.pcap and its
# truth; HAS: the classes it must have some of (o: originals, r:
# retransmissions, x: exact copies, h: hop copies, t: tunnel copies)
build() {
	local name=$1 seed=$2 has=$3 d=$tmp/$1
	shift 3
	mkdir -p "$d"
	"${GEN[@]}" gen --seed "$seed" --frames "$FRAMES" --mean-gap "$GAP" \
		--shift-exact "$SHIFT_EXACT" --shift-hop "$SHIFT_HOP" \
		--shift-tunnel "$SHIFT_TUNNEL" "$@" \
		"$d/a.pcap" "$d/bx.pcap" "$d/bh.pcap" "$d/bt.pcap" "$d/truth"
	editcap -F pcap -t "0.$(printf %06d "$SHIFT_EXACT")" "$d/bx.pcap" "$d/bx-t.pcap"
	editcap -F pcap -t "0.$(printf %06d "$SHIFT_HOP")" "$d/bh.pcap" "$d/bh-t.pcap"
	editcap -F pcap -t "0.$(printf %06d "$SHIFT_TUNNEL")" "$d/bt.pcap" "$d/bt-t.pcap"
	mergecap -F pcap -w "$d/in.pcap" "$d/a.pcap" "$d/bx-t.pcap" "$d/bh-t.pcap" "$d/bt-t.pcap"
	if [ "$check" -eq 1 ]; then
		# the truth, against what capinfos counts in the tools' files
		local c
		read -r -a c <<<"$("${GEN[@]}" counts "$d/truth")"
		expect "$name: tap A's frames are the originals and retransmissions" \
			"$((c[0] + c[1]))" "$(frames_of "$d/a.pcap")"
		expect "$name: the exact copies are the second tap's frames" \
			"${c[2]}" "$(frames_of "$d/bx.pcap")"
		expect "$name: the hop copies are the hop tap's frames" \
			"${c[3]}" "$(frames_of "$d/bh.pcap")"
		expect "$name: the tunnel copies are the mirror sessions' frames" \
			"${c[4]}" "$(frames_of "$d/bt.pcap")"
		echo "    $name: ${c[0]} originals, ${c[1]} retransmissions, ${c[2]} exact copies, ${c[3]} hop copies, ${c[4]} tunnel copies"
		expect "$name: some of each class it was built with, none of the others" \
			"$( ((c[0])) && echo o; ((c[1])) && echo r; ((c[2])) && echo x; ((c[3])) && echo h; ((c[4])) && echo t; true)" \
			"$(grep -o . <<<"$has")"
		if out=$("${GEN[@]}" verify "$d/in.pcap" "$d/truth" "$SHIFT_EXACT" "$SHIFT_HOP" "$SHIFT_TUNNEL" 2>&1); then
			ok "$name: every frame's bytes are what its class says (${out#verified })"
		else
			bad "$name: every frame's bytes are what its class says"
			echo "    $out"
		fi
	fi
	rm -f "$d/bx.pcap" "$d/bh.pcap" "$d/bt.pcap" "$d/bx-t.pcap" "$d/bh-t.pcap" "$d/bt-t.pcap"
	# mergecap's capture is the truth's frames in the truth's order
	if out=$("${GEN[@]}" times "$d/in.pcap" "$d/truth"); then
		[ "$check" -eq 0 ] || ok "$name: mergecap's capture is the truth, frame for frame (${out#same })"
	else
		bad "$name: mergecap's capture is the truth, frame for frame"
		return 1
	fi
}

# run CAPTURE IN TOOL CMD... (OUT in the command is the output's path; the
# truth is beside IN): the tool's row in $tmp/rows, its removals in
# $tmp/removed
run() {
	local cap=$1 in=$2 tool=$3 d t0 t1 rss n rm c
	shift 3
	d=$(dirname "$in")
	local out=$d/out.${in##*.} args=()
	for a in "$@"; do args+=("${a//OUT/$out}"); done
	# the fastest of RUNS runs (the machine is shared), in wall time and in
	# CPU time (user and system); the peak RSS of the last (every run does
	# the same work)
	local ns best='' cpu best_cpu=''
	for _ in $(seq "$RUNS"); do
		t0=$(date +%s%N)
		/usr/bin/time -v -o "$d/time" "${args[@]}" >"$d/log" 2>&1 || {
			echo "compare: $tool failed on $cap:" >&2
			cat "$d/log" >&2
			return 1
		}
		t1=$(date +%s%N)
		ns=$((t1 - t0))
		[ -n "$best" ] && [ "$best" -le "$ns" ] || best=$ns
		cpu=$(awk -F': ' '/^\t(User|System) time \(seconds\)/ { s += $2 }
			END { printf "%d", s * 1000 }' "$d/time")
		[ -n "$best_cpu" ] && [ "$best_cpu" -le "$cpu" ] || best_cpu=$cpu
	done
	rss=$(sed -n 's/^\tMaximum resident set size (kbytes): //p' "$d/time")
	[ "$check" -eq 0 ] || expect "$cap: $tool writes its input's file type" \
		"$(capinfos -t -M "$out" | sed -n 's/^File type: *//p')" \
		"$(capinfos -t -M "$in" | sed -n 's/^File type: *//p')"
	n=$(frames_of "$in")
	# (a failed score ends the run: set -e sees an assignment's status)
	local score counts
	score=$("${GEN[@]}" score "$d/truth" "$out")
	counts=$("${GEN[@]}" counts "$d/truth")
	read -r -a rm <<<"$score"
	read -r -a c <<<"$counts"
	echo "${rm[@]:1:5}" >"$tmp/removed"
	local IFS=$'\t'
	echo "$cap	$tool	$n	${c[*]}	${rm[*]:1:5}	$(awk -v ns="$best" \
		'BEGIN { printf "%.3f", ns / 1e9 }')	$rss	$best_cpu" >>"$tmp/rows"
	rm -f "$out"
}

# the tools on one capture (its truth beside it); in --check, their
# removals asserted
tools() {	# NAME FILE FORMAT
	local name=$1 in=$2 fmt=$3 c rm
	read -r -a c <<<"$("${GEN[@]}" counts "$(dirname "$in")/truth")"
	run "$name" "$in" "editcap -D 5" editcap -F "$fmt" -D 5 "$in" OUT
	read -r -a rm <"$tmp/removed"
	[ "$check" -eq 0 ] || expect "$name: editcap -D 5 removes the exact copies and nothing else" \
		"${rm[*]}" "0 0 ${c[2]} 0 0"
	run "$name" "$in" "editcap -w 2ms" editcap -F "$fmt" -w "$WINDOW" "$in" OUT
	read -r -a rm <"$tmp/removed"
	[ "$check" -eq 0 ] || expect "$name: editcap -w $WINDOW removes the exact copies and nothing else" \
		"${rm[*]}" "0 0 ${c[2]} 0 0"
	# dedup-sim: the SBF at the module's default 256 KiB and at 1 MiB,
	# the sliding window of editcap -w's 2 ms sized for 1 Mpps
	local sim=("$SIM" --pcap "$in" --key packet --seed 1 --truth none --write OUT)
	local mem label
	for mem in 256K 1M; do
		label="dedup-sim sbf $mem"
		run "$name" "$in" "$label" "${sim[@]}" --algo sbf --mem "$mem"
		read -r -a rm <"$tmp/removed"
		[ "$check" -eq 1 ] || continue
		expect "$name: $label removes every copy" \
			"${rm[2]} ${rm[3]}" "${c[2]} ${c[3]}"
		expect "$name: $label: originals removed within the 1% planned" \
			"$((rm[0] * 100 <= c[0]))" 1
		((c[1] == 0)) || echo "    $name: $label removed ${rm[1]} of ${c[1]} retransmissions"
	done
	run "$name" "$in" "dedup-sim sliding 2ms" "${sim[@]}" \
		--algo sliding --window 2ms --rate 1M --fps 0.001
	read -r -a rm <"$tmp/removed"
	[ "$check" -eq 0 ] || expect "$name: dedup-sim sliding 2ms removes every copy and nothing else" \
		"${rm[*]}" "0 0 ${c[2]} ${c[3]} 0"
}

# the tools on the tunnel capture: editcap -D compares whole frames, and
# so does dedup-sim's key without decap (the outer packet's); with --decap
# all the mirrored frames are the packets they carry
tunnel_tools() {	# NAME FILE FORMAT
	local name=$1 in=$2 fmt=$3 c rm
	read -r -a c <<<"$("${GEN[@]}" counts "$(dirname "$in")/truth")"
	run "$name" "$in" "editcap -D 5" editcap -F "$fmt" -D 5 "$in" OUT
	read -r -a rm <"$tmp/removed"
	[ "$check" -eq 0 ] || expect "$name: editcap -D 5 removes the exact copies, no tunnel copy, nothing else" \
		"${rm[*]}" "0 0 ${c[2]} 0 0"
	if [ "$check" -eq 0 ]; then
		run "$name" "$in" "editcap -w 2ms" editcap -F "$fmt" -w "$WINDOW" "$in" OUT
	fi
	local sim=("$SIM" --pcap "$in" --key packet --seed 1 --truth none --write OUT)
	run "$name" "$in" "dedup-sim sbf 256K" "${sim[@]}"
	read -r -a rm <"$tmp/removed"
	# the tunnel copies are other keys to it: only its false positives
	[ "$check" -eq 0 ] || expect "$name: dedup-sim sbf 256K removes the exact copies, tunnel copies within the 1% planned" \
		"${rm[2]} $((rm[4] * 100 <= c[4]))" "${c[2]} 1"
	run "$name" "$in" "dedup-sim sbf 256K --decap all" "${sim[@]}" --decap all
	read -r -a rm <"$tmp/removed"
	if [ "$check" -eq 1 ]; then
		expect "$name: dedup-sim sbf 256K --decap all removes every copy" \
			"${rm[2]} ${rm[4]}" "${c[2]} ${c[4]}"
		expect "$name: dedup-sim sbf 256K --decap all: originals removed within the 1% planned" \
			"$((rm[0] * 100 <= c[0]))" 1
	fi
	run "$name" "$in" "dedup-sim sliding 2ms --decap all" "${sim[@]}" \
		--algo sliding --window 2ms --rate 1M --fps 0.001 --decap all
	read -r -a rm <"$tmp/removed"
	[ "$check" -eq 0 ] || expect "$name: dedup-sim sliding 2ms --decap all removes every copy and nothing else" \
		"${rm[*]}" "0 0 ${c[2]} 0 ${c[4]}"
}

: >"$tmp/rows"
load=$(cut -d' ' -f1-3 /proc/loadavg)
capture() {	# NAME SEED HAS [gen options]
	local name=$1
	[ "$check" -eq 1 ] || echo "compare: $name (at ${SECONDS} s)" >&2
	build "$@"
	tools "$name" "$tmp/$name/in.pcap" pcap
}

capture exact 1 ox --exact 0.5
capture hop 2 oh --hop 0.5
capture retx 3 or --retrans 0.03 --kinds bulk,chat
capture mixed 4 orxh --v6 0.5 --exact 0.25 --hop 0.25 --retrans 0.02
[ "$check" -eq 1 ] || echo "compare: mixed.pcapng (at ${SECONDS} s)" >&2
editcap -F pcapng "$tmp/mixed/in.pcap" "$tmp/mixed/in.pcapng"
if out=$("${GEN[@]}" times "$tmp/mixed/in.pcapng" "$tmp/mixed/truth"); then
	[ "$check" -eq 0 ] || ok "mixed.pcapng: editcap's pcapng is the truth, frame for frame (${out#same })"
else
	bad "mixed.pcapng: editcap's pcapng is the truth, frame for frame"
	[ "$check" -eq 1 ] || exit 1
fi
tools mixed.pcapng "$tmp/mixed/in.pcapng" pcapng
[ "$check" -eq 1 ] || echo "compare: tunnel (at ${SECONDS} s)" >&2
build tunnel 5 oxt --exact 0.25 --tunnel 0.5
tunnel_tools tunnel "$tmp/tunnel/in.pcap" pcap

if [ "$check" -eq 1 ]; then
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
fi
{
	echo "make compare, $(date -u +%F): $(nproc) CPUs ($(sed -n 's/^model name\t*: //p' /proc/cpuinfo | head -n 1)), load $load at the start"
	echo "$(editcap -v | head -n 1 | cut -d' ' -f1-3), dedup-sim $(git -C "$here" describe --always --dirty 2>/dev/null || echo '?');" \
		"tap A: $FRAMES frames a capture, 125 kpps on average; seeds 1-5;" \
		"copies ${SHIFT_EXACT} us (exact), ${SHIFT_HOP} us (a hop on) and ${SHIFT_TUNNEL} us (through a tunnel) after their packets"
	echo "frames/s: frames in over the wall time of the tool's run, the fastest of $RUNS;" \
		"per CPU s: over its user + system time (GNU time), the least of $RUNS; peak RSS: GNU time's maximum resident set size"
	"${GEN[@]}" table "$tmp/rows"
} | tee "$B/compare.txt"
