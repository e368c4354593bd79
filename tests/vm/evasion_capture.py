#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""
evasion_capture.py: the evasion capture, deterministic, made on the host
(no network): what a key that reads only part of a packet lets through.

  evasion_capture.py OUT_DIR

writes OUT_DIR/evasion.pcap (classic pcap, Ethernet, through Debian's
text2pcap) and OUT_DIR/evasion.sh (its counts, for the guest's scenario
t_keyall_evasion, tests/e2e/scen-keyall.sh). tests/cli/test_capture.py
imports it (frames(), write()) for dedup-sim's test of the same capture.

The capture: 9 frames, GAP_US (500 us) apart, from SRC_MAC to DST_MAC:

  1, 2  a pair of TCP/IPv6 segments    5, 6  a pair of TCP/IPv4 segments
  3, 4  a pair of UDP/IPv6 datagrams   7, 8  a pair of UDP/IPv4 datagrams
  9     frame 8 one router later: TTL 63, its IPv4 header checksum redone

The two of a pair carry PAYLOAD payload bytes each and are equal in every
header byte (the IP header, its ID or flow label, the L4 header with its
valid checksum) and in their first PREFIX (200) payload bytes; after those
their payloads differ, but for two adjusting bytes (the last two of the
second's payload) chosen so that the second's L4 checksum is the first's.
A key that covers the headers and up to 200 payload bytes (the old packet
key took 64) cannot tell them apart: a de-duplicator with it drops the
second of each pair, which an IDS behind it then never sees. Frame 9 is
the one real copy: what a router in the mirrored path makes of frame 8.
So with the whole packet keyed (payload all) 1 of the 9 is a copy; with
`payload N` for N <= 200, 5 are. Frame 9 follows its original by one gap
(500 us) and each second of a pair its first by one: a 2 ms window holds
every copy and every pair.
"""
import os
import random
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "scripts", "lib"))
from packets import csum, text2pcap  # noqa: E402  (scripts/lib/packets.py)

GEN_SEED = 20260201        # the payloads' randomness
PAYLOAD = 1000             # payload bytes of each segment
PREFIX = 200               # the payload bytes the two of a pair share
GAP_US = 500               # between consecutive frames
T0_US = 1700000000 * 1000000
# Locally administered; the scenario gives its receiving veth DST_MAC, so
# that the frames are the host's (PACKET_HOST) and reach PREROUTING.
SRC_MAC = "02:00:00:00:6b:01"
DST_MAC = "02:00:00:00:6b:02"
# Documentation prefixes (RFC 5737, RFC 3849): no address of the
# receiver's, which routes nothing (forwarding off): nothing is delivered
# or answered, the frames end after PREROUTING.
SRC4, DST4 = bytes([192, 0, 2, 1]), bytes([198, 51, 100, 2])
SRC6 = bytes.fromhex("20010db8000000000000000000000001")
DST6 = bytes.fromhex("20010db8000100000000000000000002")
TTL = 64
PAIRS = 4
FRAMES = 2 * PAIRS + 1
COPIES = 1                 # frame 9
FOOLED = PAIRS + COPIES    # what a key of <= PREFIX payload bytes drops
V4 = 5                     # frames 5-9: IPv4 (9 with TTL 63)


def mac(s):
    return bytes.fromhex(s.replace(":", ""))


def ones(data):
    """the one's-complement sum of data, folded (not complemented)"""
    return ~csum(data) & 0xffff


def pseudo(v6, src, dst, proto, length):
    if v6:
        return src + dst + struct.pack("!IxxxB", length, proto)
    return src + dst + struct.pack("!xBH", proto, length)


def l4(proto, sport, dport, payload):
    """a TCP (PSH|ACK, no options) or UDP header and payload; checksum 0"""
    if proto == 6:
        return struct.pack("!HHIIBBHHH", sport, dport, 0x1d2c3b4a,
                           0x5e6f7081, 5 << 4, 0x18, 502, 0, 0) + payload
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def checked(proto, v6, src, dst, seg):
    """seg with its L4 checksum over the pseudo-header"""
    off = 16 if proto == 6 else 6
    seg = bytearray(seg)
    seg[off:off + 2] = b"\0\0"
    c = csum(pseudo(v6, src, dst, proto, len(seg)) + seg)
    if proto == 17 and c == 0:
        c = 0xffff                    # UDP: 0 would say "no checksum"
    seg[off:off + 2] = struct.pack("!H", c)
    return bytes(seg)


def twin(proto, v6, src, dst, seg, tail):
    """seg (checksummed) with its payload after PREFIX replaced by tail,
    the last two bytes then set so that the checksum is seg's"""
    hl = 20 if proto == 6 else 8
    b = bytearray(seg[:hl + PREFIX] + tail)
    assert len(b) == len(seg) and (len(b) - 2) % 2 == 0
    b[-2:] = b"\0\0"
    # the checksum field holds seg's: the sums over everything else must
    # agree, so the two adjusting bytes add what b lacks of seg's sum
    ph = pseudo(v6, src, dst, proto, len(seg))
    w = (ones(ph + seg) - ones(ph + bytes(b))) % 0xffff
    b[-2:] = struct.pack("!H", w)
    return bytes(b)


def ip4(proto, ident, seg, ttl=TTL):
    h = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(seg), ident,
                              0x4000, ttl, proto, 0, SRC4, DST4))
    h[10:12] = struct.pack("!H", csum(h))
    return bytes(h) + seg


def ip6(proto, label, seg, hlim=TTL):
    return struct.pack("!IHBB", 6 << 28 | label, len(seg), proto, hlim) + \
        SRC6 + DST6 + seg


def eth(ip):
    t = 0x86dd if ip[0] >> 4 == 6 else 0x0800
    return mac(DST_MAC) + mac(SRC_MAC) + struct.pack("!H", t) + ip


def router_copy(frame):
    """an IPv4 frame one router on: TTL - 1, the header checksum redone"""
    b = bytearray(frame)
    ip = 14
    b[ip + 8] -= 1
    b[ip + 10:ip + 12] = b"\0\0"
    b[ip + 10:ip + 12] = struct.pack("!H", csum(bytes(b[ip:ip + 20])))
    return bytes(b)


def pairs():
    """the four pairs: (name, first frame, second frame), in order"""
    rng = random.Random(GEN_SEED)
    out = []
    for n, (proto, v6) in enumerate(((6, True), (17, True), (6, False),
                                     (17, False))):
        src, dst = (SRC6, DST6) if v6 else (SRC4, DST4)
        body = bytes(rng.getrandbits(8) for _ in range(PAYLOAD))
        tail = bytes(rng.getrandbits(8) for _ in range(PAYLOAD - PREFIX))
        seg = checked(proto, v6, src, dst,
                      l4(proto, 40000 + n, 80 if proto == 6 else 9000, body))
        other = twin(proto, v6, src, dst, seg, tail)
        if v6:
            a, b = ip6(proto, 0x5a5a0 + n, seg), ip6(proto, 0x5a5a0 + n, other)
        else:
            a, b = ip4(proto, 0x4b00 + n, seg), ip4(proto, 0x4b00 + n, other)
        name = "%s/IPv%d" % ("TCP" if proto == 6 else "UDP", 6 if v6 else 4)
        out.append((name, eth(a), eth(b)))
    return out


def frames():
    """the capture's frames, in order"""
    fr = []
    for _, a, b in pairs():
        fr += [a, b]
    fr.append(router_copy(fr[-1]))
    assert len(fr) == FRAMES
    return fr


def stamp_us(n):
    """frame n's time, us since the epoch"""
    return T0_US + GAP_US * n


def write(path):
    """the capture to path (text2pcap); raises RuntimeError on failure"""
    text2pcap(frames(), path, stamp_us)


def check():
    """what the docstring promises of the frames; a list of problems"""
    bad = []
    for name, a, b in pairs():
        v6 = a[14] >> 4 == 6
        ihl = 40 if v6 else 20
        proto = a[14 + 6] if v6 else a[14 + 9]
        hl = 20 if proto == 6 else 8
        src, dst = (SRC6, DST6) if v6 else (SRC4, DST4)
        sa, sb = a[14 + ihl:], b[14 + ihl:]
        at = 14 + ihl + hl + PREFIX
        if a[:at] != b[:at] or a[at:at + 1] == b[at:at + 1] or a == b:
            bad.append(name + ": not equal up to the prefix, or not different after")
        for s in (sa, sb):
            if csum(pseudo(v6, src, dst, proto, len(s)) + s) != 0:
                bad.append(name + ": an L4 checksum does not verify")
        if not v6 and (csum(a[14:34]) or csum(b[14:34])):
            bad.append(name + ": an IPv4 header checksum does not verify")
    c = frames()[-1]
    if csum(c[14:34]) or c[14 + 8] != TTL - 1 or \
            c[:22] + c[23:24] + c[26:] != frames()[-2][:22] + \
            frames()[-2][23:24] + frames()[-2][26:]:
        bad.append("the router copy is not frame 8 one hop on")
    return bad


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "build/keyall"
    os.makedirs(d, exist_ok=True)
    bad = check()
    if bad:
        sys.exit("evasion_capture: " + "; ".join(bad))
    try:
        write(os.path.join(d, "evasion.pcap"))
    except RuntimeError as e:
        sys.exit(f"evasion_capture: {e}")
    with open(os.path.join(d, "evasion.sh"), "w") as f:
        f.write("# SPDX-License-Identifier: GPL-2.0\n"
                "# written by tests/vm/evasion_capture.py: the evasion capture's counts\n"
                f"EVASION_FRAMES={FRAMES}\nEVASION_PAIRS={PAIRS}\n"
                f"EVASION_COPIES={COPIES}\nEVASION_FOOLED={FOOLED}\n"
                f"EVASION_V4={V4}\nEVASION_PREFIX={PREFIX}\n"
                f"EVASION_PAYLOAD={PAYLOAD}\nEVASION_TTL={TTL}\n"
                f"EVASION_DST_MAC={DST_MAC}\n")
    print(f"evasion_capture: {FRAMES} frames ({PAIRS} pairs equal in their "
          f"headers, checksums and first {PREFIX} payload bytes, {COPIES} "
          f"router copy) in {d}/evasion.pcap")


if __name__ == "__main__":
    main()
