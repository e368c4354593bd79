#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The sliding window against Wireshark's `editcap -w` on one capture (not
# part of make check; needs editcap, Debian's wireshark-common).
#
#   eval/compare/editcap-compare.sh [BUILD_DIR] [WINDOW_US] [DISTINCT_PACKETS]
#
# Writes a classic pcap (raw IPv4/UDP, microsecond times) of distinct
# packets at 200k pps, a third of them followed by a copy a delay uniform
# in [0, 2 W] later, a third of the copies one hop later (TTL - 1: the
# same packet to pktdedup's key, not to editcap's byte-exact MD5). Then
# prints side by side: the packets, the duplicates editcap -w removes,
# those dedup-sim --algo sliding finds, and the exact answers for both
# notions of a copy (byte-exact, and pktdedup's key), each for a gap
# < W (pktdedup) and <= W (editcap's "equal to or less than").
set -euo pipefail
B=${1:-build}
W_US=${2:-2000}
N=${3:-100000}
SIM=$B/dedup-sim

command -v editcap >/dev/null || {
	echo "editcap-compare: editcap not found (apt-get install -y wireshark-common)" >&2
	exit 1
}
[ -x "$SIM" ] || { echo "editcap-compare: no $SIM (make $SIM)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

/usr/bin/python3 - "$tmp/in.pcap" "$W_US" "$N" > "$tmp/truth" <<'EOF'
import random
import struct
import sys

path, w_us, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(2024)


def packet(i, ttl):
    payload = struct.pack("!Q", i) + b"pktdedup" * 2
    tot = 28 + len(payload)
    return (struct.pack("!BBHHHBBH4s4s", 0x45, 0, tot, i & 0xffff, 0, ttl,
                        17, 0, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])) +
            struct.pack("!HHHH", 1024 + i % 50000, 53, 8 + len(payload), 0) +
            payload)


pkts = []                      # (time us, order, key, bytes)
t = 0.0
for i in range(n):
    t += rnd.expovariate(200000) * 1e6
    pkts.append((int(t), len(pkts), i, packet(i, 64)))
    if rnd.random() < 1 / 3:
        ttl = 63 if rnd.random() < 1 / 3 else 64
        pkts.append((int(t) + rnd.randint(0, 2 * w_us), len(pkts), i,
                     packet(i, ttl)))
pkts.sort()
with open(path, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 101))
    for us, _, _, p in pkts:
        f.write(struct.pack("<IIII", us // 10**6, us % 10**6, len(p),
                            len(p)) + p)


def dups(ident, within):
    """Copies seen `within` the window before, every packet counting."""
    last, d = {}, 0
    for us, _, key, p in pkts:
        k = ident(key, p)
        if k in last and within(us - last[k]):
            d += 1
        last[k] = us
    return d


exact = lambda key, p: p          # noqa: E731 (editcap: the bytes)
bykey = lambda key, p: key        # noqa: E731 (pktdedup: TTL ignored)
print(len(pkts),
      dups(exact, lambda g: g < w_us), dups(exact, lambda g: g <= w_us),
      dups(bykey, lambda g: g < w_us), dups(bykey, lambda g: g <= w_us))
EOF
read -r pkts ex_lt ex_le key_lt key_le < "$tmp/truth"

secs=$(/usr/bin/python3 -c "print('%.6f' % ($W_US / 1e6))")
ed_out=$(editcap -F pcap -w "$secs" "$tmp/in.pcap" "$tmp/out.pcap" 2>&1)
ed_kept=$(/usr/bin/python3 - "$tmp/out.pcap" <<'EOF'
import struct
import sys

with open(sys.argv[1], "rb") as f:
    data = f.read()
off, n = 24, 0
while off + 16 <= len(data):
    off += 16 + struct.unpack_from("<IIII", data, off)[2]
    n += 1
print(n)
EOF
)
ed_removed=$((pkts - ed_kept))

json=$("$SIM" --algo sliding --window "${W_US}us" --rate 1M --fps 0.001 \
	--stream pcap --pcap "$tmp/in.pcap" --key packet --truth key --json)
read -r sim_n sim_dups sim_said sim_fp sim_fn <<<"$(/usr/bin/python3 -c '
import json, sys
j = json.loads(sys.argv[1])
said = j["duplicates"] - j["false_negatives"] + j["false_positives"]
print(j["n"], j["duplicates"], said, j["false_positives"],
      j["false_negatives"])' "$json")"

echo "window ${W_US} us (editcap -w $secs), $pkts packets"
echo "editcap: $ed_out" | head -3 | sed 's/^/  /'
printf '%-44s %10s\n' "what" "duplicates"
printf '%-44s %10s\n' "editcap -w: removed" "$ed_removed"
printf '%-44s %10s\n' "dedup-sim sliding: said duplicate" "$sim_said"
printf '%-44s %10s\n' "  (its fp / fn against its exact truth)" "$sim_fp / $sim_fn"
printf '%-44s %10s\n' "dedup-sim's exact truth (key, gap < W)" "$sim_dups"
printf '%-44s %10s\n' "exact: same bytes, gap < W" "$ex_lt"
printf '%-44s %10s\n' "exact: same bytes, gap <= W (editcap's)" "$ex_le"
printf '%-44s %10s\n' "exact: same key (TTL aside), gap < W" "$key_lt"
printf '%-44s %10s\n' "exact: same key (TTL aside), gap <= W" "$key_le"
[ "$sim_n" -eq "$pkts" ] || echo "editcap-compare: dedup-sim read $sim_n of $pkts packets" >&2
