#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make compare's captures, their ground truth and the scores of each tool's
output (eval/compare/compare.sh drives it).

  compare.py gen [options] A.pcap B-EXACT.pcap B-HOP.pcap B-TUNNEL.pcap TRUTH
      Tap A's capture: Ethernet, classic pcap with microsecond times, a
      frame every 4 us or more (a multiple of 4 us; --mean-gap, 8 us: 125
      kpps), from bulk TCP transfers (1514-byte segments and their ACKs),
      short TCP exchanges and UDP (--kinds bulk,chat,udp: 70, 15 and 15%
      of the frames), --v6 of the flows IPv6; --retrans of the TCP data
      segments retransmitted byte for byte 200-600 ms later (TCP's minimum
      RTO is 200 ms). Tap B sees all the frames of --exact of the flows
      unchanged (B-EXACT) and of --hop of them as one router hop changes
      them (B-HOP: TTL or hop limit - 1, the IPv4 header checksum
      recomputed, new MAC addresses), and of --tunnel of them mirrored to
      a collector through a tunnel (B-TUNNEL: tap A's frame whole inside
      VXLAN, ERSPAN II or ERSPAN III over IPv4, by flow, one session per
      quarter of the flows: remote port mirroring, as VPC traffic
      mirroring and switches' ERSPAN sessions send it). The B captures
      carry tap A's times: compare.sh shifts them with `editcap -t` (by
      --shift-exact, --shift-hop and --shift-tunnel us, 1, 2 and 3 modulo
      4, so that no two frames of the merged capture share a time) and
      merges them with `mergecap`. TRUTH gets, in time order, one
      little-endian int64 per frame of the merged capture: its time in us
      times 8 plus its class (CLASSES). --seed fixes it all (the tunnel's
      choices come from the flows', so that a capture without --tunnel
      is the one it was before tunnels).
  compare.py verify CAPTURE TRUTH SHIFT_EXACT SHIFT_HOP SHIFT_TUNNEL
      Checks every frame's bytes against its class (verify()).
  compare.py times CAPTURE TRUTH
      Checks that the capture's frames (pcap or pcapng) are exactly the
      truth's in the same order: "same N".
  compare.py score TRUTH OUT
      Reads the times of OUT (pcap or pcapng, as a tool wrote it), checks
      that they are the truth's frames in the truth's order less some, and
      prints the removed frames per class: "removed ORIG RETRANS EXACT HOP
      TUNNEL kept K".
  compare.py counts TRUTH
      The frames of each class: "ORIG RETRANS EXACT HOP TUNNEL".
  compare.py table ROWS
      ROWS: tab-separated lines (capture, tool, frames in, the five class
      counts, the five removed counts, wall seconds, peak RSS in KiB, CPU
      milliseconds); prints the aligned table.
"""
import array
import heapq
import math
import mmap
import os
import random
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "scripts", "lib"))
from packets import csum  # noqa: E402  (scripts/lib/packets.py)
import tunnels  # noqa: E402  (scripts/lib/tunnels.py)

CLASSES = ("original", "retransmission", "exact copy", "hop copy",
           "tunnel copy")
ORIG, RETX, EXACT, HOP, TUNNEL = range(5)
CLS_BITS = 3                        # the truth's class: its low bits
GRID_US = 4
T0 = 1700000000 * 1000000          # the first frame's time (2023-11-14)


def sums_to_zero(data):
    """Whether data, checksum included, is right: its sum is (-)0."""
    if len(data) & 1:
        data += b"\0"
    return int.from_bytes(data, "big") % 0xffff == 0


class Flow:
    """One TCP connection or UDP conversation between a client and a server.
    Direction 0 is client to server."""

    def __init__(self, rnd, ident, kind, v6, tap):
        self.kind, self.v6, self.tap, self.ident = kind, v6, tap, ident
        host = rnd.getrandbits(32)
        if v6:
            self.ip = (b"\x20\x01\x0d\xb8" + struct.pack("!IQ", ident, host),
                       b"\x20\x01\x0d\xb8\xff" + bytes(3) +
                       struct.pack("!Q", rnd.getrandbits(64)))
            self.label = rnd.getrandbits(20)
        else:
            self.ip = (struct.pack("!I", 0x0a000000 | (host & 0xffffff)),
                       struct.pack("!I", 0xc6336400 | rnd.getrandbits(8)))
        port_c = 1024 + ident % 64000
        port_s = {"bulk": 443, "chat": 22, "udp": 53}[kind]
        if kind == "udp" and rnd.random() < 0.5:
            port_s = 16384 + rnd.getrandbits(14)    # RTP-like media
        self.port = (port_c, port_s)
        self.mac = (b"\x02\x00" + struct.pack("!I", ident),
                    b"\x02\xff" + struct.pack("!I", rnd.getrandbits(32)))
        self.ttl = (rnd.choice((64, 128)) - rnd.randint(0, 12),
                    rnd.choice((64, 255)) - rnd.randint(1, 20))
        self.seq = [rnd.getrandbits(32), rnd.getrandbits(32)]
        self.ipid = [rnd.getrandbits(16), rnd.getrandbits(16)]
        self.unacked = 0
        self.left = {"bulk": 1 + int(rnd.expovariate(1 / 3000)),
                     "chat": 1 + int(rnd.expovariate(1 / 40)),
                     "udp": 1 + int(rnd.expovariate(1 / 200))}[kind]


def l3(flow, d, proto, l4, ipid, hop):
    """Ethernet and IP headers in front of the L4 bytes l4 (its checksum
    field zero, filled here), direction d, IPv4 ID ipid; hop: as seen one
    router later."""
    src, dst = flow.ip[d], flow.ip[1 - d]
    ttl = flow.ttl[d] - hop
    if flow.v6:
        pseudo = src + dst + struct.pack("!IxxxB", len(l4), proto)
    else:
        pseudo = src + dst + struct.pack("!xBH", proto, len(l4))
    c = csum(pseudo + l4)
    if proto == 17 and c == 0:
        c = 0xffff
    off = 16 if proto == 6 else 6
    l4 = l4[:off] + struct.pack("!H", c) + l4[off + 2:]
    if flow.v6:
        ip = struct.pack("!IHBB", 0x60000000 | flow.label, len(l4), proto,
                         ttl) + src + dst
        etype = 0x86dd
    else:
        hdr = struct.pack("!BBHHHBBH", 0x45, 0, 20 + len(l4), ipid, 0x4000,
                          ttl, proto, 0) + src + dst
        ip = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
        etype = 0x0800
    if hop:
        macs = b"\x02\xee\x00\x00\x00\x02" + b"\x02\xee\x00\x00\x00\x01"
    else:
        macs = flow.mac[1 - d] + flow.mac[d]
    frame = macs + struct.pack("!H", etype) + ip + l4
    if len(frame) < 60:
        frame += bytes(60 - len(frame))
    return frame


def tcp(flow, d, payload, flags):
    seq = flow.seq[d]
    flow.seq[d] = (seq + len(payload)) & 0xffffffff
    hdr = struct.pack("!HHIIHHHH", flow.port[d], flow.port[1 - d], seq,
                      flow.seq[1 - d], 0x5000 | flags, 64240, 0, 0)
    return hdr + payload


def udp(flow, d, payload):
    return struct.pack("!HHHH", flow.port[d], flow.port[1 - d],
                       8 + len(payload), 0) + payload


# The mirror sessions: 4 sources (switches, or hosts' mirror agents) send
# to one collector; a flow's copies go through session ident % 4, in
# VXLAN (VNI 100 + session), ERSPAN II or III (session ID 1 + session),
# by ident % 3. ERSPAN counts its frames per session (sequence number);
# ERSPAN III stamps them (microseconds) and half of its sessions add the
# platform subheader.
MIRROR_MAC = (b"\x02\xaa\x00\x00\x00\x01", b"\x02\xaa\x00\x00\x00\xff")
COLLECTOR = (10, 255, 255, 1)
MIRROR_KINDS = ("vxlan", "erspan2", "erspan3")


class Mirror:
    def __init__(self):
        self.seq = [0] * 4
        self.ipid = [0] * 4

    def send(self, flow, frame, us):
        """tap A's frame as the mirror session of flow sends it."""
        s = flow.ident % 4
        kind = MIRROR_KINDS[flow.ident % 3]
        src = (10, 255, 0, 1 + s)
        self.seq[s] = (self.seq[s] + 1) & 0xffffffff
        self.ipid[s] = (self.ipid[s] + 1) & 0xffff
        if kind == "vxlan":
            # the source port from a hash of the inner flow (RFC 7348)
            sport = 49152 + flow.ident * 2654435761 % 16384
            outer = tunnels.over_ipv4(tunnels.UDP, (
                sport, tunnels.VXLAN_PORT, tunnels.vxlan(100 + s, frame)),
                src, COLLECTOR, ident=self.ipid[s])
        elif kind == "erspan2":
            outer = tunnels.over_ipv4(tunnels.GRE, tunnels.erspan2(
                1 + s, frame, seq=self.seq[s], index=s), src, COLLECTOR,
                ident=self.ipid[s])
        else:
            sub = tunnels.erspan3_platform(3, s, us >> 32) if s & 1 else None
            outer = tunnels.over_ipv4(tunnels.GRE, tunnels.erspan3(
                1 + s, frame, seq=self.seq[s], timestamp=us & 0xffffffff,
                subheader=sub), src, COLLECTOR, ident=self.ipid[s])
        return tunnels.eth(tunnels.ETH_IP, outer, MIRROR_MAC[0],
                           MIRROR_MAC[1])


def unmirror(frame):
    """The frame a mirror session's frame carries, and whether its outer
    checksums are right; None if it is none of Mirror's (read from the
    specifications, not from the core's parser)."""
    if frame[12:14] != b"\x08\x00" or frame[14] != 0x45:
        return None
    ip = frame[14:14 + struct.unpack_from("!H", frame, 16)[0]]
    good = sums_to_zero(ip[:20])
    if ip[9] == 17:
        sport, dport, n, c = struct.unpack_from("!HHHH", ip, 20)
        if dport != tunnels.VXLAN_PORT or n != len(ip) - 20 or \
                ip[28] != 0x08:
            return None
        if c:
            good = good and sums_to_zero(ip[12:20] + struct.pack(
                "!xBH", 17, n) + ip[20:])
        return ip[36:], good
    if ip[9] != 47:
        return None
    flags, proto = struct.unpack_from("!HH", ip, 20)
    if flags != 0x1000:                 # a sequence number, nothing else
        return None
    e = 28
    if proto == 0x88be and ip[e] >> 4 == 1:
        return ip[e + 8:], good
    if proto == 0x22eb and ip[e] >> 4 == 2:
        return ip[e + 12 + (8 if ip[e + 11] & 1 else 0):], good
    return None


def pcap_header():
    return struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 262144, 1)


def record(us, frame):
    return struct.pack("<IIII", us // 1000000, us % 1000000, len(frame),
                       len(frame)) + frame


def gen(argv):
    opts = {"--seed": "1", "--frames": "100000", "--v6": "0",
            "--exact": "0", "--hop": "0", "--retrans": "0", "--tunnel": "0",
            "--shift-exact": "5", "--shift-hop": "30", "--shift-tunnel": "11",
            "--kinds": "bulk,chat,udp", "--mean-gap": "8"}
    pos = []
    it = iter(argv)
    for a in it:
        if a in opts:
            opts[a] = next(it)
        else:
            pos.append(a)
    if len(pos) != 5:
        sys.exit("usage: compare.py gen [options] A B-EXACT B-HOP B-TUNNEL "
                 "TRUTH")
    rnd = random.Random(int(opts["--seed"]))
    n = int(opts["--frames"])
    v6, p_exact, p_hop, p_retx, p_tun = (
        float(opts[k]) for k in ("--v6", "--exact", "--hop", "--retrans",
                                 "--tunnel"))
    sx, sh, st = (int(opts[k]) for k in ("--shift-exact", "--shift-hop",
                                         "--shift-tunnel"))
    if sx % GRID_US != 1 or sh % GRID_US != 2 or st % GRID_US != 3:
        sys.exit("compare.py: shifts must be 1, 2 and 3 modulo 4 us")
    kinds = opts["--kinds"].split(",")
    # gaps: 4 us times 1 + floor(Exp(lam)), whose mean is 1 / (e^lam - 1)
    slots = float(opts["--mean-gap"]) / GRID_US - 1
    if slots <= 0:
        sys.exit("compare.py: --mean-gap must exceed %d us" % GRID_US)
    lam = math.log(1 + 1 / slots)
    # shares of tap A's frames: bulk TCP 70%, short TCP 15%, UDP 15%
    weights = {"bulk": 70, "chat": 15, "udp": 15}
    kw = [weights[k] for k in kinds]
    pool = {k: [] for k in kinds}
    width = {"bulk": 32, "chat": 64, "udp": 64}
    noise = rnd.randbytes(1 << 20)
    ident = 0

    def new_flow(kind):
        nonlocal ident
        ident += 1
        r = rnd.random()
        tap = 1 if r < p_exact else 2 if r < p_exact + p_hop else \
            3 if r < p_exact + p_hop + p_tun else 0
        return Flow(rnd, ident, kind, rnd.random() < v6, tap)

    for k in kinds:
        pool[k] = [new_flow(k) for _ in range(width[k])]

    files = [open(p, "wb") for p in pos[:4]]
    for f in files:
        f.write(pcap_header())
    truth = array.array("q")
    bufs = ([], [], [], [])
    mirror = Mirror()
    pending = []        # (due us, n, flow, d, proto, l4 bytes, IPv4 ID)
    t = T0
    for i in range(n):
        t += GRID_US * (1 + int(rnd.expovariate(lam)))
        if pending and pending[0][0] <= t:
            # byte for byte the first: the same IPv4 ID too
            _, _, flow, d, proto, l4, ipid = heapq.heappop(pending)
            cls = RETX
        else:
            cls = ORIG
            kind = rnd.choices(kinds, kw)[0]
            slot = rnd.randrange(len(pool[kind]))
            flow = pool[kind][slot]
            flow.left -= 1
            if flow.left <= 0:
                pool[kind][slot] = new_flow(kind)
            payload_at = rnd.randrange(len(noise) - 1500)
            if kind == "bulk":
                if flow.unacked >= 2:
                    d, proto = 1, 6
                    l4 = tcp(flow, 1, b"", 0x10)
                    flow.unacked = 0
                else:
                    d, proto = 0, 6
                    mss = 1440 if flow.v6 else 1460
                    l4 = tcp(flow, 0, noise[payload_at:payload_at + mss],
                             0x10)
                    flow.unacked += 1
            elif kind == "chat":
                d, proto = rnd.getrandbits(1), 6
                size = min(1 + int(rnd.expovariate(1 / 200)), 1400)
                l4 = tcp(flow, d, noise[payload_at:payload_at + size], 0x18)
            else:
                d, proto = rnd.getrandbits(1), 17
                size = min(20 + int(rnd.expovariate(1 / 400)), 1400)
                l4 = udp(flow, d, struct.pack("!Q", i) +
                         noise[payload_at:payload_at + size - 8])
            ipid = flow.ipid[d]
            flow.ipid[d] = (ipid + 1) & 0xffff
            if proto == 6 and len(l4) > 20 and rnd.random() < p_retx:
                due = t + rnd.randint(200000, 600000)
                heapq.heappush(pending, (due, i, flow, d, proto, l4, ipid))
        frame = l3(flow, d, proto, l4, ipid, 0)
        truth.append((t << CLS_BITS) | cls)
        bufs[0].append(record(t, frame))
        if flow.tap == 1:
            bufs[1].append(record(t, frame))
            truth.append(((t + sx) << CLS_BITS) | EXACT)
        elif flow.tap == 2:
            bufs[2].append(record(t, l3(flow, d, proto, l4, ipid, 1)))
            truth.append(((t + sh) << CLS_BITS) | HOP)
        elif flow.tap == 3:
            bufs[3].append(record(t, mirror.send(flow, frame, t + st)))
            truth.append(((t + st) << CLS_BITS) | TUNNEL)
        if len(bufs[0]) >= 4096:
            for f, b in zip(files, bufs):
                f.write(b"".join(b))
                b.clear()
    for f, b in zip(files, bufs):
        f.write(b"".join(b))
        f.close()
    ts = sorted(truth)
    for a, b in zip(ts, ts[1:]):
        if a >> CLS_BITS == b >> CLS_BITS:
            sys.exit("compare.py: two frames at %d us" % (a >> CLS_BITS))
    with open(pos[4], "wb") as f:
        array.array("q", ts).tofile(f)


def read_truth(path):
    a = array.array("q")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    return a


def capture_times(path):
    """The frames' times in microseconds, of a classic pcap (microsecond or
    nanosecond, either byte order) or a pcapng file."""
    out = array.array("q")
    with open(path, "rb") as f:
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    n = len(mm)
    magic = mm[:4]
    if magic == b"\x0a\x0d\x0d\x0a":
        return pcapng_times(mm, out)
    for e in "<>":
        m = struct.unpack(e + "I", magic)[0]
        if m in (0xa1b2c3d4, 0xa1b23c4d):
            break
    else:
        sys.exit("compare.py: %s: not a capture" % path)
    div = 1000 if m == 0xa1b23c4d else 1
    hdr = struct.Struct(e + "IIII")
    off = 24
    while off + 16 <= n:
        sec, frac, incl, _ = hdr.unpack_from(mm, off)
        out.append(sec * 1000000 + frac // div)
        off += 16 + incl
    if off != n:
        sys.exit("compare.py: %s: cut at byte %d" % (path, off))
    return out


def pcapng_times(mm, out):
    n, off, e, res = len(mm), 0, "<", []
    while off + 12 <= n:
        btype = struct.unpack_from(e + "I", mm, off)[0]
        if btype == 0x0a0d0d0a:
            e = "<" if mm[off + 8:off + 12] == b"\x4d\x3c\x2b\x1a" else ">"
            res = []
        blen = struct.unpack_from(e + "I", mm, off + 4)[0]
        if btype == 1:                          # interface description
            units = 1000000
            o = off + 16
            while o + 4 <= off + blen - 4:
                code, olen = struct.unpack_from(e + "HH", mm, o)
                if code == 0:
                    break
                if code == 9:                   # if_tsresol
                    v = mm[o + 4]
                    units = 2 ** (v & 0x7f) if v & 0x80 else 10 ** v
                o += 4 + (olen + 3) // 4 * 4
            res.append(units)
        elif btype == 6:                        # enhanced packet
            ifid, hi, lo = struct.unpack_from(e + "III", mm, off + 8)
            out.append(((hi << 32) | lo) * 1000000 // res[ifid])
        elif btype in (2, 3):
            sys.exit("compare.py: pcapng block %d has no usable time" % btype)
        off += blen
    if off != n:
        sys.exit("compare.py: pcapng cut at byte %d" % off)
    return out


def pcap_frames(path):
    """(time in us, frame) of a microsecond classic pcap in this byte order."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != struct.pack("<I", 0xa1b2c3d4):
        sys.exit("compare.py: %s: not a little-endian microsecond pcap" % path)
    off = 24
    while off + 16 <= len(data):
        sec, usec, incl, _ = struct.unpack_from("<IIII", data, off)
        yield sec * 1000000 + usec, data[off + 16:off + 16 + incl]
        off += 16 + incl


def ip_fields(frame):
    """(IP bytes with the TTL or hop limit and the IPv4 header checksum
    zeroed, the TTL or hop limit, whether every checksum is right)."""
    et = frame[12:14]
    ip = frame[14:]
    if et == b"\x08\x00":
        ip = ip[:struct.unpack_from("!H", ip, 2)[0]]
        ttl, proto = ip[8], ip[9]
        good = sums_to_zero(ip[:20])
        pseudo = ip[12:20] + struct.pack("!xBH", proto, len(ip) - 20)
        l4 = ip[20:]
        norm = ip[:8] + b"\0" + ip[9:10] + b"\0\0" + ip[12:]
    elif et == b"\x86\xdd":
        ip = ip[:40 + struct.unpack_from("!H", ip, 4)[0]]
        proto, ttl = ip[6], ip[7]
        good = True
        pseudo = ip[8:40] + struct.pack("!IxxxB", len(ip) - 40, proto)
        l4 = ip[40:]
        norm = ip[:7] + b"\0" + ip[8:]
    else:
        sys.exit("compare.py: a frame that is not IP")
    return norm, ttl, good and sums_to_zero(pseudo + l4)


def verify(path, truth, sx, sh, st):
    """Every frame of the merged capture is what its class says, from its
    bytes: an original is new (no earlier frame has its IP packet, TTL
    aside), a retransmission the same bytes as tap A's last frame with its
    packet, 200-600 ms (and a few frames) before; an exact copy the bytes of
    the frame sx us before, a hop copy the packet of the frame sh us before
    with the TTL or hop limit one less and other MAC addresses, a tunnel
    copy a mirror session's frame (VXLAN, ERSPAN II or III to the
    collector) whose inner frame is the bytes of the frame st us before.
    Every IP and L4 checksum is right, the tunnels' outer ones too."""
    seen = {}   # time -> (hash of the frame, of its packet, TTL, MACs) on A
    last_a = {}         # hash of a packet -> (time, hash of the frame) on A
    n = 0
    for (ts, frame), v in zip(pcap_frames(path), truth):
        if ts != v >> CLS_BITS:
            sys.exit("compare.py: frame %d at %d us, the truth's at %d" %
                     (n, ts, v >> CLS_BITS))
        cls = v & ((1 << CLS_BITS) - 1)
        outer_good = True
        if cls == TUNNEL:
            inner = unmirror(frame)
            if inner is None:
                sys.exit("compare.py: frame %d at %d us: a tunnel copy not "
                         "a mirror session's frame" % (n, ts))
            frame, outer_good = inner
        norm, ttl, good = ip_fields(frame)
        good = good and outer_good
        hf, hn = hash(frame), hash(norm)
        why = None
        if not good:
            why = "a wrong checksum"
        elif cls == ORIG and hn in last_a:
            why = "an original seen before"
        elif cls == RETX:
            t, h = last_a.get(hn, (None, None))
            if t is None or h != hf or not 200000 <= ts - t <= 700000:
                why = "a retransmission not the bytes of one 200-600 ms before"
        elif cls == EXACT and seen.get(ts - sx, (None,))[0] != hf:
            why = "an exact copy not the frame %d us before" % sx
        elif cls == TUNNEL and seen.get(ts - st, (None,))[0] != hf:
            why = "a tunnel copy whose frame is not the one %d us before" % st
        elif cls == HOP:
            h, hn0, ttl0, macs = seen.get(ts - sh, (None,) * 4)
            if h is None or hn0 != hn or ttl0 != ttl + 1 or \
                    macs == frame[:12]:
                why = "a hop copy not the packet %d us before, a hop on" % sh
        if why:
            sys.exit("compare.py: frame %d at %d us: %s" % (n, ts, why))
        if cls in (ORIG, RETX):
            seen[ts] = (hf, hn, ttl, frame[:12])
            last_a[hn] = (ts, hf)
        n += 1
    if n != len(truth):
        sys.exit("compare.py: %d frames, the truth %d" % (n, len(truth)))
    return n


def score(truth, out):
    removed = [0] * len(CLASSES)
    j, m = 0, len(out)
    for v in truth:
        if j < m and out[j] == v >> CLS_BITS:
            j += 1
        else:
            removed[v & ((1 << CLS_BITS) - 1)] += 1
    if j != m:
        sys.exit("compare.py: the output has a frame at %d us that is not "
                 "the input's next" % out[j])
    return removed, m


def counts(truth):
    c = [0] * len(CLASSES)
    for v in truth:
        c[v & ((1 << CLS_BITS) - 1)] += 1
    return c


def table(path):
    """Copies removed, exact, one hop on and through a tunnel, of how many
    there were; false removals: retransmissions, of how many, and other
    frames (originals)."""
    rows = [ln.rstrip("\n").split("\t") for ln in open(path) if ln.strip()]
    head = ("capture", "tool", "frames", "exact copies removed",
            "hop copies removed", "tunnel copies removed", "retx removed",
            "others removed", "frames/s", "per CPU s", "peak RSS")

    def part(k, n):
        return "%d/%d %5.1f%%" % (k, n, 100.0 * k / n) if n else "-"

    out = [head]
    for r in rows:
        frames = int(r[2])
        k = len(CLASSES)
        c = [int(x) for x in r[3:3 + k]]
        rm = [int(x) for x in r[3 + k:3 + 2 * k]]
        secs, rss, cpu = float(r[3 + 2 * k]), int(r[4 + 2 * k]), \
            int(r[5 + 2 * k]) / 1000
        out.append((r[0], r[1], "%d" % frames,
                    part(rm[EXACT], c[EXACT]), part(rm[HOP], c[HOP]),
                    part(rm[TUNNEL], c[TUNNEL]),
                    "%d/%d" % (rm[RETX], c[RETX]) if c[RETX] else "-",
                    "%d" % rm[ORIG],
                    "%.2fM" % (frames / secs / 1e6),
                    "%.2fM" % (frames / cpu / 1e6) if cpu else "-",
                    "%.1f MiB" % (rss / 1024)))
    w = [max(len(r[i]) for r in out) for i in range(len(head))]
    for r in out:
        print("  ".join(r[i].ljust(w[i]) if i < 2 else r[i].rjust(w[i])
                        for i in range(len(head))).rstrip())


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "gen":
        gen(args)
    elif cmd == "score" and len(args) == 2:
        rm, kept = score(read_truth(args[0]), capture_times(args[1]))
        print("removed %s kept %d" % (" ".join(map(str, rm)), kept))
    elif cmd == "verify" and len(args) == 5:
        n = verify(args[0], read_truth(args[1]), *map(int, args[2:]))
        print("verified %d" % n)
    elif cmd == "counts" and len(args) == 1:
        print(" ".join(map(str, counts(read_truth(args[0])))))
    elif cmd == "times" and len(args) == 2:
        got = capture_times(args[0])
        want = array.array("q", (v >> CLS_BITS for v in
                                 read_truth(args[1])))
        if got != want:
            sys.exit("compare.py: %s: %d frames, not the truth's %d in its "
                     "order" % (args[0], len(got), len(want)))
        print("same %d" % len(got))
    elif cmd == "table" and len(args) == 1:
        table(args[0])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
