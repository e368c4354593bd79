#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""dedup-sim on captures as they come from the field (run by `make check`).

Every capture is made in the test by Wireshark's own tools (text2pcap from
a hex dump, editcap, mergecap; capinfos reads what was written; tshark
decodes each tunnelled frame built, so that the frames are what the test
says by an independent decoder), and every expected count follows from how
the capture was built.

Usage: test_capture.py BUILD_DIR [--sanitized] [--big]. --sanitized runs
the field captures through BUILD_DIR/san/dedup-sim (ASan, UBSan, LSan: a
leak or an overflow fails the test); --big adds the memory test on a
capture of 1 GiB, through BUILD_DIR/dedup-sim (make check runs both).
Prints one line per test and ends with "N passed, N failed".
"""
import json
import os
import re
import resource
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

from tap import run_all, test

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "scripts", "lib"))
import packets  # noqa: E402  (scripts/lib/packets.py)
import tunnels as tn  # noqa: E402  (scripts/lib/tunnels.py)
from packets import csum  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "vm"))
import evasion_capture as ev  # noqa: E402  (tests/vm/evasion_capture.py)

B = sys.argv[1] if len(sys.argv) > 1 else "build"
PLAIN = os.path.join(B, "dedup-sim")
SIM = os.path.join(B, "san", "dedup-sim") if "--sanitized" in sys.argv \
    else PLAIN
BIG = "--big" in sys.argv
os.environ["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=1"
os.environ["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
TMP = tempfile.mkdtemp(prefix="pktdedup-capture-")
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

# The captures' first time, us since the epoch (2023-11-14)
T0_US = 1700000000 * 1000000
# Link types (pcap LINKTYPE_ values, text2pcap -l)
ETHERNET, RAW, SLL, SLL2, NULL, LOOP = 1, 101, 113, 276, 0, 108


def path(name):
    return os.path.join(TMP, name)


def sh(args, **kw):
    r = subprocess.run(args, capture_output=True, timeout=600, **kw)
    assert r.returncode == 0, f"{args}: exit {r.returncode}: {r.stderr}"
    return r


def ip4(ttl, proto, l4, src=(10, 0, 0, 1), dst=(10, 0, 0, 2), ident=1):
    h = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), ident,
                              0, ttl, proto, 0, bytes(src), bytes(dst)))
    h[10:12] = struct.pack("!H", csum(h))
    return bytes(h) + l4


def ip6(hlim, nh, l4):
    return (struct.pack("!IHBB", 0x60000000, len(l4), nh, hlim) +
            bytes([0xfd] + [0] * 14 + [1]) + bytes([0xfd] + [0] * 14 + [2]) +
            l4)


def udp(sport, data, dport=53):
    return struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data


def tcp_opts(sport, seq, data=b""):
    """TCP with 12 bytes of options (MSS, SACK-permitted, window scale...)."""
    opts = bytes([2, 4, 5, 0xb4, 4, 2, 1, 3, 3, 7, 1, 1])
    return (struct.pack("!HHIIBBHHH", sport, 443, seq, 0, (5 + 3) << 4, 0x18,
                        512, 0, 0) + opts + data)


def eth(ethertype, payload, tags=()):
    hdr = b"\x02" * 6 + b"\x04" * 6
    for tpid, vid in tags:
        hdr += struct.pack("!HH", tpid, vid)
    return hdr + struct.pack("!H", ethertype) + payload


def arp():
    return eth(0x0806, bytes.fromhex("0001080006040001") + b"\x02" * 6 +
               bytes([10, 0, 0, 1]) + b"\x00" * 6 + bytes([10, 0, 0, 2]))


def lldp():
    return eth(0x88cc, bytes.fromhex("020704020202020202040402030102") +
               b"\x00\x00")


def text2pcap(name, frames, link=ETHERNET, fmt="pcap", t0=0):
    """Frames through text2pcap, each at t0 + its index in microseconds."""
    out = path(name)
    packets.text2pcap(frames, out, lambda n: T0_US + t0 + n, link, fmt)
    return out


def read_pcap(p):
    """A classic pcap's records: (ts_sec, ts_frac, caplen, origlen, data)."""
    with open(p, "rb") as f:
        d = f.read()
    assert struct.unpack("<I", d[:4])[0] in (0xa1b2c3d4, 0xa1b23c4d), p
    recs, o = [], 24
    while o < len(d):
        s, u, cl, ol = struct.unpack("<IIII", d[o:o + 16])
        recs.append((s, u, cl, ol, d[o + 16:o + 16 + cl]))
        o += 16 + cl
    return recs


def capinfos(p, *flags):
    return sh(["capinfos"] + list(flags) + [p]).stdout.decode()


def count_of(p):
    return int(re.search(r"Number of packets:\s+(\d+)",
                         capinfos(p, "-c")).group(1))


def sim(args, ok=True, binary=None, **kw):
    r = subprocess.run([binary or SIM] + args, capture_output=True,
                       timeout=600, **kw)
    if ok:
        assert r.returncode == 0, f"exit {r.returncode}: {r.stderr}"
    return r


def sim_json(args, **kw):
    return json.loads(sim(args + ["--json"], **kw).stdout)


def plain_json(args):
    """The uninstrumented build: memory figures are its own."""
    return sim_json(args, binary=PLAIN)


def copies_capture(name, fmt="pcap", n=40):
    """n distinct UDP/IPv4 packets, each followed by a copy one hop later
    (TTL - 1, new checksum) and an exact copy; n/4 IPv6 packets with a copy
    one hop later; 3 ARP requests and an LLDP frame. Returns
    (path, distinct, copies, not IP)."""
    frames = []
    for i in range(n):
        p = udp(1000 + i, b"payload %04d" % i)
        frames += [eth(0x0800, ip4(64, 17, p)), eth(0x0800, ip4(63, 17, p)),
                   eth(0x0800, ip4(64, 17, p))]
    for i in range(n // 4):
        p = udp(2000 + i, b"six %04d" % i)
        frames += [eth(0x86dd, ip6(64, 17, p)), eth(0x86dd, ip6(63, 17, p))]
    frames += [arp(), arp(), arp(), lldp()]
    return (text2pcap(name, frames, fmt=fmt), n + n // 4, 2 * n + n // 4, 4)


@test
def write_keeps_first_sightings_pcap_and_pcapng():
    for fmt in ("pcap", "pcapng"):
        src, distinct, copies, nonip = copies_capture("c." + fmt, fmt)
        out, dups = path("out." + fmt), path("dups." + fmt)
        j = sim_json(["--pcap", src, "--write", out, "--write-dups", dups])
        assert (j["frames"], j["keyed"], j["not_ip"]) == \
            (distinct + copies + nonip, distinct + copies, nonip), j
        # a 256 KiB filter meets 125 keys: no error is plausible, and the
        # truth says what each verdict was
        assert (j["distincts"], j["duplicates"]) == (distinct, copies), j
        assert j["false_positives"] == 0 and j["false_negatives"] == 0, j
        assert (j["written"], j["written_copies"]) == \
            (distinct + nonip, copies), j
        assert count_of(out) == distinct + nonip
        assert count_of(dups) == copies
        # the input's format and link type
        for f in (out, dups):
            info = capinfos(f, "-t", "-E")
            assert ("pcapng" in info) == (fmt == "pcapng"), info
            assert "Ethernet" in info, info
    # what was written: the first sighting of each packet, times unchanged
    src, distinct, _, nonip = copies_capture("c2.pcap")
    out = path("out2.pcap")
    sim(["--pcap", src, "--write", out])
    recs = read_pcap(out)
    # copies_capture(n=40): 40 triples, 10 pairs, then the non-IP frames
    firsts = [r for i, r in enumerate(read_pcap(src))
              if (i < 120 and i % 3 == 0) or
              (120 <= i < 140 and i % 2 == 0) or i >= 140]
    assert recs == firsts, (len(recs), len(firsts))


@test
def same_seed_same_bytes():
    src, *_ = copies_capture("seed.pcap", n=400)
    outs = []
    for seed in ("5", "5", "6"):
        o = path("seed-%d.pcap" % len(outs))
        # a filter small enough to err, so seeds matter
        sim(["--pcap", src, "--mem", "64", "--seed", seed, "--write", o])
        with open(o, "rb") as f:
            outs.append(f.read())
    assert outs[0] == outs[1]
    assert outs[0] != outs[2]


@test
def stdin_to_stdout():
    src, distinct, copies, nonip = copies_capture("pipe.pcapng", "pcapng")
    with open(src, "rb") as f:
        r = sim(["--pcap", "-", "--write", "-"], stdin=f)
    # the capture on standard output, the report on standard error
    assert b"wrote" in r.stderr and b"capture" in r.stderr, r.stderr
    piped = path("piped.pcapng")
    with open(piped, "wb") as f:
        f.write(r.stdout)
    assert count_of(piped) == distinct + nonip
    direct = path("direct.pcapng")
    sim(["--pcap", src, "--write", direct])
    with open(direct, "rb") as f:
        assert f.read() == r.stdout
    # editcap writing to a pipe, as tcpdump -w - would
    p1 = subprocess.Popen(["editcap", "-F", "pcap", src, "-"],
                          stdout=subprocess.PIPE)
    r = sim(["--pcap", "-", "--write", "-", "--json"], stdin=p1.stdout)
    p1.wait()
    assert r.stdout[:4] == struct.pack("<I", 0xa1b2c3d4)
    assert json.loads(r.stderr)["written"] == distinct + nonip
    # tcpdump -w - | dedup-sim --pcap - --write - | tcpdump -r -
    pcap = path("pipe.pcap")
    sh(["editcap", "-F", "pcap", src, pcap])
    p1 = subprocess.Popen(["tcpdump", "-r", pcap, "-w", "-"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    r = sim(["--pcap", "-", "--write", "-"], stdin=p1.stdout)
    p1.wait()
    back = subprocess.run(["tcpdump", "-r", "-", "-n"], input=r.stdout,
                          capture_output=True, timeout=60)
    assert back.returncode == 0, back.stderr
    assert len(back.stdout.splitlines()) == distinct + nonip, back.stdout


@test
def cut_capture_reads_complete_records():
    src, distinct, copies, nonip = copies_capture("whole.pcap")
    recs = read_pcap(src)
    size = os.path.getsize(src)
    for keep in (10, 1):       # cut inside the last record's data, header
        cut = path("cut.pcap")
        with open(src, "rb") as f, open(cut, "wb") as g:
            g.write(f.read()[:size - keep])
        out = path("cutout.pcap")
        r = sim(["--pcap", cut, "--write", out])
        last = 24 + sum(16 + rr[2] for rr in recs[:-1])
        assert f"the record at byte {last} is incomplete".encode() \
            in r.stderr, r.stderr
        assert f"the {len(recs) - 1} complete records".encode() in r.stderr
        assert count_of(out) == distinct + nonip - 1   # the LLDP frame
    # pcapng, cut by tools: editcap writes it, head cuts it
    srcng, *_ = copies_capture("whole.pcapng", "pcapng")
    cut = path("cut.pcapng")
    with open(srcng, "rb") as f, open(cut, "wb") as g:
        g.write(f.read()[:os.path.getsize(srcng) - 6])
    j = json.loads(sim(["--pcap", cut, "--json"]).stdout)
    assert j["frames"] == len(recs) - 1 and j["cut_at"] > 0, j
    # a file that is not a capture at all is an error, not a cut
    bad = path("bad.pcap")
    with open(bad, "wb") as f:
        f.write(b"not a capture file\n" * 10)
    r = sim(["--pcap", bad], ok=False)
    assert r.returncode == 1 and b"dedup-sim:" in r.stderr, r


@test
def empty_and_runt_frames_pass():
    src, distinct, copies, nonip = copies_capture("base.pcap")
    one = path("one.pcap")
    sh(["editcap", "-F", "pcap", "-r", src, one, "1"])
    hdr = path("hdr.pcap")                 # the link header alone
    sh(["editcap", "-F", "pcap", "-C", "-%d" % (len(read_pcap(one)[0][4]) - 14), one, hdr])
    empty = path("empty.pcap")             # nothing at all
    sh(["editcap", "-F", "pcap", "-C", "%d" % len(read_pcap(one)[0][4]), one, empty])
    assert read_pcap(empty)[0][2] == 0 and read_pcap(hdr)[0][2] == 14
    merged = path("runts.pcap")
    sh(["mergecap", "-a", "-F", "pcap", "-w", merged, hdr, empty, src])
    out = path("runts-out.pcap")
    j = sim_json(["--pcap", merged, "--write", out])
    assert j["runt"] == 2 and j["keyed"] == distinct + copies, j
    assert j["written"] == distinct + nonip + 2, j
    assert count_of(out) == distinct + nonip + 2


@test
def vlan_qinq_mpls_keyed_at_l3():
    frames, n = [], 30
    for i in range(n):
        ip = ip4(64, 17, udp(3000 + i, b"tagged %d" % i))
        frames += [eth(0x0800, ip),
                   eth(0x0800, ip, tags=[(0x8100, 10)]),
                   eth(0x0800, ip, tags=[(0x88a8, 100), (0x8100, 10)]),
                   eth(0x0800, ip, tags=[(0x9100, 7), (0x8100, 10)]),
                   # MPLS: one label, bottom of stack
                   eth(0x8847, struct.pack("!I", 16 << 12 | 1 << 8 | 64) +
                       ip)]
    src = text2pcap("tags.pcap", frames)
    j = sim_json(["--pcap", src])
    assert j["keyed"] == 5 * n and j["not_ip"] == 0, j
    # the packet key is the IP packet's: a tagged copy is a copy
    assert (j["distincts"], j["duplicates"]) == (n, 4 * n), j


@test
def non_ip_is_not_ip():
    frames = [arp()] * 5 + [lldp()] * 2 + \
        [eth(0x0800, ip4(64, 17, udp(9, b"x")))]
    src = text2pcap("nonip.pcap", frames)
    j = sim_json(["--pcap", src])
    assert j["not_ip"] == 7 and j["unparsed"]["bad-version"] == 0, j
    # only non-IP: no distinct-count error of an empty count
    only = text2pcap("onlyarp.pcap", [arp()] * 4)
    j = sim_json(["--pcap", only])
    assert j["distinct_exact"] == 0 and j["distinct_error"] is None, j
    r = sim(["--pcap", only])
    assert b"-100" not in r.stdout and b"exact 0" in r.stdout, r.stdout


@test
def header_only_tcp_with_options():
    frames, n = [], 50
    for i in range(n):
        seg = tcp_opts(40000 + i % 5, 1000 * i, b"D" * 200)
        frames += [eth(0x0800, ip4(64, 6, seg)), eth(0x0800, ip4(62, 6, seg))]
    full = text2pcap("tcp.pcap", frames)
    cut = path("tcp60.pcap")
    sh(["editcap", "-F", "pcap", "-s", "60", full, cut])   # 46 bytes of IP: options cut
    assert all(r[2] == 60 and r[3] > 60 for r in read_pcap(cut))
    for payload in ("0", "64"):
        j = sim_json(["--pcap", cut, "--payload", payload])
        assert (j["keyed"], j["keyed_cut"], j["cut"]) == (2 * n,) * 3, j
        assert (j["distincts"], j["duplicates"]) == (n, n), j
    # the flow key needs only the ports (its own truth: 5 flows; the
    # frames': 50 segments, 45 of them taken for copies by the key)
    j = sim_json(["--pcap", cut, "--key", "flow", "--truth", "key"])
    assert j["keyed"] == 2 * n and j["distincts"] == 5, j
    j = sim_json(["--pcap", cut, "--key", "flow"])
    assert (j["distincts"], j["false_positives"], j["distinct_exact"]) == \
        (n, n - 5, 5), j
    # cut after what the key covers: the whole frame's key
    cut300 = path("tcp300.pcap")
    sh(["editcap", "-F", "pcap", "-s", "160", full, cut300])
    a = sim(["--pcap", full, "--write", path("f.pcap")])
    b = sim(["--pcap", cut300, "--write", path("c.pcap")])
    assert [r[:2] for r in read_pcap(path("f.pcap"))] == \
        [r[:2] for r in read_pcap(path("c.pcap"))]
    assert a.returncode == b.returncode == 0


@test
def reads_what_the_module_reads():
    # IPv6 whose extension headers end past the 256 + 64 bytes the module
    # reads (PD_KEY_HDR_ROOM + payload) from the IP header on: the packet
    # key fails there, as in the module; the address keys do not need them
    ext = b""
    for i in range(5):                  # 5 destination options of 80 bytes
        nh = 60 if i < 4 else 17
        ext += bytes([nh, 9]) + bytes([1, 76]) + b"\x00" * 76
    frames = [eth(0x86dd, ip6(64, 60, ext + udp(9, b"deep %d" % i)))
              for i in range(6)]
    src = text2pcap("deep.pcap", frames)
    j = sim_json(["--pcap", src])
    assert j["keyed"] == 0 and j["unparsed"]["truncated"] == 6, j
    j = sim_json(["--pcap", src, "--key", "src", "--truth", "key"])
    assert j["keyed"] == 6 and j["duplicates"] == 5, j


@test
def proto_selection_as_the_module():
    n = 20
    frames = []
    for i in range(n):
        u = ip4(64, 17, udp(100 + i, b"u%d" % i))
        t = ip4(64, 6, tcp_opts(200 + i, i))
        g = ip4(64, 47, b"\x00\x00\x08\x00" + b"g%d" % i)
        frames += [eth(0x0800, x) for x in (u, u, t, t, g, g)]
    frames += [arp()]
    src = text2pcap("proto.pcap", frames)
    out = path("proto-out.pcap")
    j = sim_json(["--pcap", src, "--proto", "udp,47", "--write", out])
    # TCP passes untouched and uncounted, as the module's proto setting
    assert j["unselected"] == 2 * n and j["keyed"] == 4 * n, j
    assert (j["distincts"], j["duplicates"]) == (2 * n, 2 * n), j
    assert j["written"] == 2 * n + 2 * n + 1, j
    j = sim_json(["--pcap", src, "--proto", "any"])
    assert j["unselected"] == 0 and j["keyed"] == 6 * n, j
    for bad in ("tcpx", "256", ","):
        r = sim(["--pcap", src, "--proto", bad], ok=False)
        assert r.returncode == 2 and b"--proto" in r.stderr, r.stderr


@test
def multi_interface_pcapng():
    n = 25
    ips = [ip4(64, 17, udp(5000 + i, b"m %d" % i)) for i in range(n)]
    e = text2pcap("m-eth.pcap", [eth(0x0800, p) for p in ips])
    e60 = path("m-eth60.pcap")
    sh(["editcap", "-s", "60", e, e60])
    raw = text2pcap("m-raw.pcap", ips, link=RAW, t0=500)
    sll = text2pcap("m-sll.pcap", [struct.pack("!HHH8sH", 0, 1, 6,
                                                b"\x02" * 8, 0x0800) + p
                                    for p in ips], link=SLL, t0=1000)
    merged = path("merged.pcapng")
    sh(["mergecap", "-w", merged, e60, raw, sll])
    info = capinfos(merged, "-I")
    assert info.count("Encapsulation =") == 3, info
    out = path("merged-out.pcapng")
    j = sim_json(["--pcap", merged, "--write", out])
    # the same IP packets on three interfaces: n distinct, 2n copies
    assert (j["keyed"], j["distincts"], j["duplicates"]) == \
        (3 * n, n, 2 * n), j
    assert count_of(out) == n
    assert "pcapng" in capinfos(out, "-t")
    assert capinfos(out, "-I").count("Encapsulation =") == 3


@test
def every_link_type():
    ip = ip4(64, 17, udp(7, b"link"))
    v6 = ip6(64, 17, udp(8, b"link6"))
    cases = {
        "sll": (SLL, [struct.pack("!HHH8sH", 0, 1, 6, b"\x02" * 8, 0x0800)
                      + ip] * 2),
        "sll2": (SLL2, [struct.pack("!HHIHBB8s", 0x86dd, 0, 2, 1, 0, 6,
                                    b"\x02" * 8) + v6] * 2),
        "raw": (RAW, [ip, v6, ip]),
        "null": (NULL, [struct.pack("<I", 2) + ip, struct.pack("<I", 30) +
                        v6, struct.pack("<I", 2) + ip]),
        "loop": (LOOP, [struct.pack("!I", 2) + ip, struct.pack("!I", 24) +
                        v6, struct.pack("!I", 2) + ip]),
    }
    for name, (link, frames) in cases.items():
        src = text2pcap("lt-%s.pcap" % name, frames, link=link)
        j = sim_json(["--pcap", src])
        assert j["keyed"] == len(frames), (name, j)
        assert j["duplicates"] == len(frames) - len(set(frames)), (name, j)


@test
def truth_none_same_verdicts():
    src, distinct, copies, nonip = copies_capture("tn.pcap", n=300)
    a, b = path("tn-exact.pcap"), path("tn-none.pcap")
    je = sim_json(["--pcap", src, "--mem", "256", "--write", a])
    jn = sim_json(["--pcap", src, "--mem", "256", "--truth", "none",
                   "--write", b])
    with open(a, "rb") as f, open(b, "rb") as g:
        assert f.read() == g.read()
    assert jn["truth"] == "none" and jn["truth_bytes"] == 0, jn
    assert jn["distincts"] is None and jn["said_duplicates"] == \
        je["said_duplicates"], jn
    assert je["written"] == distinct + copies + nonip - je["said_duplicates"]
    r = sim(["--pcap", src, "--truth", "none", "--checkpoints", "2"],
            ok=False)
    assert r.returncode == 2 and b"--truth exact" in r.stderr, r


def quiet_burst_capture(name, late_us, bursts=40):
    """A busy millisecond (1000 distinct UDP packets, 1 us apart), 20 ms of
    quiet, then `bursts` bursts of 25 new packets (1 us apart, 5 ms between
    bursts), each packet followed by a byte-identical copy late_us after
    it. Returns (path, copies)."""
    frames, stamps = [], []
    for i in range(1000):
        frames.append(eth(0x0800, ip4(64, 17, udp(1000 + i % 500,
                                                  b"busy %05d" % i))))
        stamps.append(i)
    for b in range(bursts):
        t = 21000 + 5000 * b
        for i in range(25):
            fr = eth(0x0800, ip4(64, 17, udp(3000 + i, b"burst %03d" % b)))
            frames += [fr, fr]
            stamps += [t + i, t + i + late_us]
    order = sorted(range(len(frames)), key=lambda n: (stamps[n], n))
    out = path(name)
    packets.text2pcap([frames[n] for n in order], out,
                      lambda n: T0_US + stamps[order[n]])
    return out, 25 * bursts


@test
def quiet_then_burst_windows_exact():
    """A 2 ms window planned for 1 Mpps after a busy millisecond and 20 ms
    of quiet: copies 3 ms late are kept (sliding: none said a copy, the
    report's "copies older than the window said duplicate" 0; editcap -w
    0.002 agrees), copies 1 ms late removed, all of them, by the sliding
    window and by the jumping window (inside its guaranteed 6/7 of 2 ms)."""
    for late, removed in ((3000, 0), (1000, 1)):
        src, copies = quiet_burst_capture("qb-%d.pcap" % late, late)
        total = 1000 + 2 * copies
        ed = path("qb-%d-editcap.pcap" % late)
        sh(["editcap", "-w", "0.002", src, ed])
        assert count_of(ed) == total - removed * copies, count_of(ed)
        for algo in ("sliding", "jumping"):
            out = path("qb-%d-%s.pcap" % (late, algo))
            j = sim_json(["--pcap", src, "--algo", algo, "--window", "2ms",
                          "--rate", "1M", "--write", out])
            assert j["duplicates"] == removed * copies, (algo, j)
            said = j["said_duplicates"]
            # the 1000 + copies new packets may be taken for copies at
            # most at the plan's FP bound (five deviations, and one)
            new = total - removed * copies
            fp_max = new * j["fp_bound"] + \
                5 * (new * j["fp_bound"]) ** 0.5 + 1
            if removed:
                assert j["false_negatives"] == 0, (algo, late, j)
                assert j["fn_inside_guaranteed"] == 0, (algo, late, j)
            else:
                assert j["stale"] == copies, (algo, late, j)
                if algo == "sliding":
                    assert j["fp_stale"] == 0, (late, j)
            assert said <= removed * copies + fp_max, (algo, late, said)
            assert count_of(out) == total - said, (algo, late)


@test
def evasion_pairs_kept_by_the_whole_packet_key():
    """The evasion capture (tests/vm/evasion_capture.py; the guest's
    t_keyall_evasion replays it through the module): four pairs of
    segments (TCP and UDP over IPv4 and IPv6) equal in every header byte,
    in their valid L4 checksums and in their first 200 payload bytes, then
    a router copy of the last (TTL - 1). The default key (payload all)
    removes the copy alone, 1 of 9, and writes the eight segments byte for
    byte; the 2 ms sliding window planned for 1 Mpps the same (each copy
    500 us late); --payload 64, and 200, remove each pair's second too, 5:
    what payload N gives up (4 false positives against the frames, none
    against the key's own truth); --payload 201 sees the pairs apart
    again."""
    src = path("evasion.pcap")
    ev.write(src)
    fr = ev.frames()
    assert len(fr) == ev.FRAMES == 9 and not ev.check()
    whole, fooled = fr[:8], fr[0:8:2]
    for extra, kept in (([], whole),
                        (["--algo", "sliding", "--window", "2ms", "--rate",
                          "1M"], whole),
                        (["--payload", "all"], whole),
                        (["--payload", "64"], fooled),
                        (["--payload", "200"], fooled),
                        (["--payload", "201"], whole)):
        out = path("evasion-out.pcap")
        j = sim_json(["--pcap", src, "--seed", "7", "--write", out] + extra)
        assert j["frames"] == 9 and j["n"] == 9, (extra, j)
        assert j["said_duplicates"] == 9 - len(kept), (extra, j)
        fp = 8 - len(kept)
        assert (j["false_positives"], j["false_negatives"],
                j["truth_cross"]["key_only"]) == (fp, 0, fp), (extra, j)
        k = sim_json(["--pcap", src, "--seed", "7", "--truth", "key"] +
                     extra)
        assert k["false_positives"] == 0 and k["false_negatives"] == 0, \
            (extra, k)
        got = [r[4] for r in read_pcap(out)]
        assert got == kept, (extra, [fr.index(g) + 1 for g in got])


@test
def bad_command_lines_exit_2():
    src, *_ = copies_capture("cl.pcap")
    for args, words in (
            (["--stream", "uniform", "--algo", "sbf", "--mem", "1M",
              "--write", "x"], b"need a capture"),
            (["--pcap", src, "--write", "x", "--write-dups", "x"],
             b"same file"),
            (["--pcap", src, "--write", src], b"is the input file"),
            (["--pcap", src, "--truth", "some"], b"--truth"),
            (["--pcap", "-", "--checkpoints", "3"], b"standard input")):
        r = sim(args, ok=False, stdin=subprocess.DEVNULL)
        assert r.returncode == 2 and words in r.stderr, (args, r.stderr)
    r = sim(["--pcap", src, "--write", "/nonexistent/dir/out.pcap"], ok=False)
    assert r.returncode == 1 and b"cannot write" in r.stderr, r.stderr


def read_bytes(p):
    with open(p, "rb") as f:
        return f.read()


def fresh_dir(name):
    d = path(name)
    os.mkdir(d)
    return d


def sim_in(d, args, **kw):
    """dedup-sim run in folder d (no output captured where kw says)."""
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    return subprocess.run([os.path.abspath(SIM)] + args, cwd=d, timeout=600,
                          **kw)


@test
def outputs_never_the_input():
    # by any path: the same name, ./, a symbolic link, a hard link, from
    # another folder, --write-dups; exit 2 before anything is opened for
    # writing, the capture unchanged byte for byte and no file made
    d = fresh_dir("alias")
    src, *_ = copies_capture("alias/in.pcap")
    before = read_bytes(src)
    os.symlink("in.pcap", os.path.join(d, "sym.pcap"))
    os.link(src, os.path.join(d, "hard.pcap"))
    files = sorted(os.listdir(d))
    for args, opt, name in (
            (["--write", "in.pcap"], "--write", "in.pcap"),
            (["--write", "./in.pcap"], "--write", "./in.pcap"),
            (["--write", "sym.pcap"], "--write", "sym.pcap"),
            (["--write", "hard.pcap"], "--write", "hard.pcap"),
            (["--write", "../alias/in.pcap"], "--write", "../alias/in.pcap"),
            (["--write", "x.pcap", "--write-dups", "in.pcap"],
             "--write-dups", "in.pcap"),
            (["--write-dups", "sym.pcap", "--write", "y.pcap"],
             "--write-dups", "sym.pcap")):
        r = sim_in(d, ["--pcap", "in.pcap"] + args)
        assert r.returncode == 2, (args, r.returncode, r.stderr)
        assert f"{opt} {name} is the input file (--pcap in.pcap)".encode() \
            in r.stderr, (args, r.stderr)
        assert read_bytes(src) == before and sorted(os.listdir(d)) == files
    # standard input that is the capture file
    with open(src, "rb") as f:
        r = sim_in(d, ["--pcap", "-", "--write", "hard.pcap"], stdin=f)
    assert r.returncode == 2 and b"(--pcap -, standard input)" in r.stderr
    # standard output appended to the capture: it would read what it wrote
    with open(src, "ab") as f:
        r = sim_in(d, ["--pcap", "in.pcap", "--write", "-"], stdout=f)
    assert r.returncode == 2 and b"--write - is standard output, which " \
        b"is the input file" in r.stderr, r.stderr
    assert read_bytes(src) == before and sorted(os.listdir(d)) == files


@test
def outputs_never_each_other():
    # two names of one file: new files by other spellings (./, dir/../,
    # a linked folder, a dangling link, an absolute path), an old file and
    # its hard link, standard output twice or redirected to the other
    d = fresh_dir("each")
    copies_capture("each/in.pcap")
    sub = os.path.join(d, "sub")
    os.mkdir(sub)
    os.symlink("sub", os.path.join(d, "lnk"))
    os.symlink("sub/new.pcap", os.path.join(d, "dangling"))
    old = os.path.join(d, "old.pcap")
    with open(old, "wb") as f:
        f.write(b"old")
    os.link(old, os.path.join(d, "old2.pcap"))
    files = sorted(os.listdir(d))
    for a, b in (("out.pcapng", "./out.pcapng"),
                 ("sub/o.pcap", "lnk/o.pcap"),
                 ("sub/o.pcap", "lnk/../sub/o.pcap"),
                 ("dangling", "sub/new.pcap"),
                 (os.path.join(d, "out.pcap"), "out.pcap"),
                 ("old.pcap", "old2.pcap")):
        r = sim_in(d, ["--pcap", "in.pcap", "--write", a, "--write-dups", b])
        assert r.returncode == 2, (a, b, r.returncode, r.stderr)
        assert f"--write {a} and --write-dups {b} are the same file".encode() \
            in r.stderr, r.stderr
        assert sorted(os.listdir(d)) == files and os.listdir(sub) == []
        assert read_bytes(old) == b"old"
    r = sim_in(d, ["--pcap", "in.pcap", "--write", "-", "--write-dups", "-"])
    assert r.returncode == 2 and b"both standard output" in r.stderr
    with open(old, "ab") as f:
        r = sim_in(d, ["--pcap", "in.pcap", "--write", "-", "--write-dups",
                       "old2.pcap"], stdout=f)
    assert r.returncode == 2 and b"--write - is standard output, which is " \
        b"the file --write-dups old2.pcap names" in r.stderr, r.stderr
    assert read_bytes(old) == b"old" and sorted(os.listdir(d)) == files


@test
def outputs_replace_whole_files():
    # written beside the file and renamed over it: a reader of the old file
    # keeps it, no temporary file is left, a new file is 0666 & ~umask (as
    # editcap makes it), an old one keeps its permissions, a symbolic link
    # stays one; a FIFO is written directly
    d = fresh_dir("whole")
    src, distinct, copies, nonip = copies_capture("whole/in.pcap")
    ref = path("whole-ref.pcap")
    sim(["--pcap", src, "--write", ref])
    want = read_bytes(ref)
    r = sim_in(d, ["--pcap", "in.pcap", "--write", "new.pcap"],
               preexec_fn=lambda: os.umask(0o027))
    assert r.returncode == 0 and read_bytes(os.path.join(d, "new.pcap")) \
        == want, r.stderr
    assert os.stat(os.path.join(d, "new.pcap")).st_mode & 0o777 == 0o640
    old = os.path.join(d, "old.pcap")
    with open(old, "wb") as f:
        f.write(b"old")
    os.chmod(old, 0o600)
    os.symlink("old.pcap", os.path.join(d, "link.pcap"))
    # a reader of the old file keeps reading it whole: replaced, never
    # truncated under it
    with open(old, "rb") as reader:
        r = sim_in(d, ["--pcap", "in.pcap", "--write", "link.pcap"])
        assert reader.read() == b"old"
    assert r.returncode == 0 and b"wrote      %d frames to link.pcap" % \
        (distinct + nonip) in r.stdout, r
    assert os.path.islink(os.path.join(d, "link.pcap"))
    assert read_bytes(old) == want and os.stat(old).st_mode & 0o777 == 0o600
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(read_bytes(fifo)))
    reader.start()
    r = sim_in(d, ["--pcap", "in.pcap", "--write", "fifo"])
    reader.join(60)
    assert r.returncode == 0 and got == [want], r.stderr
    assert sorted(os.listdir(d)) == ["fifo", "in.pcap", "link.pcap",
                                     "new.pcap", "old.pcap"]


@test
def failed_write_leaves_nothing():
    # A full disk, portably: a file size limit (RLIMIT_FSIZE, which any
    # user may lower, root too) makes write() fail as ENOSPC would (EFBIG;
    # dedup-sim ignores SIGXFSZ). The old file stays as it was, a new one
    # is not made, no temporary file is left; nothing is said written
    d = fresh_dir("full")
    copies_capture("full/in.pcap", n=400)
    old = os.path.join(d, "old.pcap")
    with open(old, "wb") as f:
        f.write(b"old capture")
    files = sorted(os.listdir(d))
    limit = lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))
    args = ["--pcap", "in.pcap", "--write", "old.pcap", "--write-dups",
            "new.pcap"]
    r = sim_in(d, args + ["--json"], preexec_fn=limit)
    assert r.returncode == 1 and b"File too large" in r.stderr, r
    j = json.loads(r.stdout)
    assert (j["written"], j["written_copies"]) == (0, 0), j
    assert read_bytes(old) == b"old capture"
    assert sorted(os.listdir(d)) == files
    r = sim_in(d, args, preexec_fn=limit)
    assert r.returncode == 1 and b"wrote      nothing to old.pcap" in \
        r.stdout and b"wrote      nothing to new.pcap" in r.stdout, r
    assert sorted(os.listdir(d)) == files
    # an output written whole is kept beside one that failed: 10 packets
    # (under 8 KiB) pass, their 1990 copies do not fit
    many = [eth(0x0800, ip4(64, 17, udp(700 + i % 10, b"many %d" % (i % 10))))
            for i in range(2000)]
    text2pcap("full/many.pcap", many)
    r = sim_in(d, ["--pcap", "many.pcap", "--write", "pass.pcap",
                   "--write-dups", "dups.pcap"], preexec_fn=limit)
    assert r.returncode == 1 and b"wrote      10 frames to pass.pcap" in \
        r.stdout and b"wrote      nothing to dups.pcap" in r.stdout, r
    assert count_of(os.path.join(d, "pass.pcap")) == 10
    assert sorted(os.listdir(d)) == sorted(files + ["many.pcap", "pass.pcap"])
    os.unlink(os.path.join(d, "many.pcap"))
    os.unlink(os.path.join(d, "pass.pcap"))
    # a device that is full is written directly: said incomplete
    r = sim_in(d, ["--pcap", "in.pcap", "--write", "/dev/full"])
    assert r.returncode == 1 and b"No space left on device" in r.stderr
    assert b"wrote      an incomplete capture to /dev/full" in r.stdout, r
    assert sorted(os.listdir(d)) == files


@test
def interrupted_run_leaves_nothing():
    # SIGTERM or SIGINT while the output is written (the capture half sent
    # through a pipe): the process dies of the signal, the temporary file
    # is removed and the old file is as it was
    d = fresh_dir("intr")
    src, *_ = copies_capture("intr/in.pcap", n=400)
    data = read_bytes(src)
    os.unlink(src)
    with open(os.path.join(d, "out.pcap"), "wb") as f:
        f.write(b"old")
    def caught():
        # as from a shell's foreground: make check started in the
        # background inherits SIGINT ignored, which dedup-sim keeps
        # ignored (as under nohup)
        for s in (signal.SIGTERM, signal.SIGINT):
            signal.signal(s, signal.SIG_DFL)

    for sig in (signal.SIGTERM, signal.SIGINT):
        p = subprocess.Popen([os.path.abspath(SIM), "--pcap", "-", "--write",
                              "out.pcap"], cwd=d, stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, preexec_fn=caught)
        p.stdin.write(data[:len(data) // 2])
        p.stdin.flush()
        end = time.monotonic() + 60
        while not any(n.startswith(".out.pcap.") for n in os.listdir(d)):
            assert time.monotonic() < end and p.poll() is None, p.poll()
            time.sleep(0.01)
        p.send_signal(sig)
        rc = p.wait(60)
        p.stdin.close()
        assert rc == -sig, (sig, rc)
        assert os.listdir(d) == ["out.pcap"], os.listdir(d)
        assert read_bytes(os.path.join(d, "out.pcap")) == b"old"


@test
def time_going_back_is_said():
    # two pcapng files joined with cat: the second section's clock starts
    # 10 s before the first's last frame. A time window is told once, with
    # the frame, and pointed to mergecap; its verdicts stay what they were
    n = 50
    fa = [eth(0x0800, ip4(64, 17, udp(100 + i, b"a%d" % i))) for i in range(n)]
    fb = [eth(0x0800, ip4(64, 17, udp(200 + i, b"b%d" % i))) for i in range(n)]
    a = text2pcap("tb-a.pcapng", fa + fa, fmt="pcapng", t0=10000000)
    b = text2pcap("tb-b.pcapng", fb + fb, fmt="pcapng")
    joined = path("tb-joined.pcapng")
    with open(joined, "wb") as f:
        f.write(read_bytes(a) + read_bytes(b))
    window = ["--algo", "sliding", "--window", "2ms", "--rate", "1M"]
    r = sim(["--pcap", joined] + window)
    assert r.stderr.count(b"the capture's time goes back at frame %d "
                          % (2 * n + 1)) == 1, r.stderr
    assert b"mergecap -w" in r.stderr, r.stderr
    j = sim_json(["--pcap", joined] + window)
    assert (j["time_back"], j["time_back_at"]) == (2 * n, 2 * n + 1), j
    j.pop("peak_rss_bytes")
    again = sim_json(["--pcap", joined] + window)
    again.pop("peak_rss_bytes")
    assert j == again
    merged = path("tb-merged.pcapng")
    sh(["mergecap", "-w", merged, a, b])
    r = sim(["--pcap", merged] + window)
    assert b"goes back" not in r.stderr, r.stderr
    assert sim_json(["--pcap", merged] + window)["time_back"] == 0


@test
def nonip_dedup_agrees_with_the_frame_truth():
    """--nonip dedup keys frames that are not IP as the module's nonip
    dedup does (pd_key_nonip(): from the innermost EtherType on): the ARP
    request seen at both taps (other MACs, a VLAN tag) is a copy, as the
    frame truth, which compares them from the protocol field on, says"""
    cap, frames, copies = truth_capture()
    j = sim_json(["--pcap", cap, "--nonip", "dedup"])
    assert (j["nonip"], j["nonip_keyed"], j["not_ip"]) == ("dedup", 2, 2), j
    assert (j["frames"], j["keyed"]) == (frames, frames), j
    assert (j["distincts"], j["duplicates"]) == (36, copies + 1), j
    assert (j["false_positives"], j["false_negatives"]) == (0, 10), j
    assert (j["truth_cross"]["unkeyed"], j["truth_cross"]["key_only"]) == \
        (0, 0), j
    # non-IP frames only: 5 ARP requests at both taps, an LLDP frame
    # untagged and under two tags (802.1ad, 802.1Q), one LLDP frame that
    # differs in its last byte, an 802.3 frame (STP's LLC) twice
    lldp_body = bytes.fromhex("020704020202020202040402030102") + b"\0\0"
    stp = bytes.fromhex("424203000000000080000200000000010000000080000200")
    frames = []
    for i in range(5):
        req = bytes.fromhex("0001080006040001") + b"\x02" * 6 + \
            bytes([10, 0, 0, 1]) + b"\0" * 6 + bytes([10, 0, 0, 10 + i])
        frames.append(tn.eth(0x0806, req, **TAP_A))
        frames.append(tn.eth(0x0806, req, tags=[(tn.ETH_VLAN, 100)],
                             **TAP_B))
    frames.append(tn.eth(0x88cc, lldp_body, **TAP_A))
    frames.append(tn.eth(0x88cc, lldp_body, tags=[(0x88a8, 5),
                                                  (tn.ETH_VLAN, 7)],
                         **TAP_B))
    frames.append(tn.eth(0x88cc, lldp_body[:-1] + b"\1", **TAP_A))
    frames.append(tn.eth(len(stp), stp, **TAP_A))
    frames.append(tn.eth(len(stp), stp, **TAP_B))
    cap = text2pcap("nonip.pcap", frames)
    j = sim_json(["--pcap", cap, "--nonip", "dedup"])
    assert (j["keyed"], j["nonip_keyed"], j["not_ip"]) == (15, 15, 15), j
    assert (j["distincts"], j["duplicates"]) == (8, 7), j
    assert (j["false_positives"], j["false_negatives"]) == (0, 0), j
    assert j["said_duplicates"] == 7, j
    # --payload bounds the bytes keyed: at --payload 8 the ARP requests
    # (their targets at byte 24) are one, and so are the LLDP frames that
    # differ in their last byte: 4 + 1 more copies said
    j = sim_json(["--pcap", cap, "--nonip", "dedup", "--payload", "8"])
    assert (j["said_duplicates"], j["false_positives"]) == (12, 5), j
    # pass (the default): unkeyed, counted not IP, as before
    j = sim_json(["--pcap", cap])
    assert (j["nonip"], j["keyed"], j["not_ip"]) == ("pass", 0, 15), j
    r = sim(["--pcap", cap, "--nonip", "dedup"]).stdout.decode()
    assert "nonip dedup: 15 frames not IP keyed" in r, r
    # no addresses or ports in such a frame: key packet only
    r = sim(["--pcap", cap, "--nonip", "dedup", "--key", "flow"], ok=False)
    assert r.returncode == 2 and b"--nonip dedup needs --key packet" in \
        r.stderr, r.stderr


# ---- tunnels: --decap, --tunnel-id (module/core/decap.h) ----

ENCAPS = ("vxlan", "geneve", "gre", "erspan", "gtpu", "ip")
MPLS_LABEL = struct.pack("!I", 16 << 12 | 1 << 8 | 64)    # bottom of stack


def tunnel_variants(ip, i):
    """The copies of IP packet ip (the i-th) that a capture suite's tunnel
    capture holds: the bare frame first, then ip through every
    encapsulation decap looks into. Each: (name, chain, frame, protocols),
    chain the tunnels outermost first as (encapsulation, identity: VNI, GRE
    key, ERSPAN session, TEID, or None where it has none), protocols what
    tshark must decode it as (frame.protocols, up to the inner IP header).
    Outer headers differ between copies (ports, identities, addresses)
    and the packets (each carrier's IPv4 ID where the packet key's 64
    payload bytes do not reach the packet it carries), so that no two
    frames have one key unless decap finds the packet they carry."""
    v6 = ip[0] >> 4 == 6
    et = tn.ethertype_of(ip)
    name = "ipv6" if v6 else "ip"
    fr = tn.eth(et, ip)
    teb = "eth:ethertype:" + name
    a, b = (192, 0, 2, 1), (192, 0, 2, 2)
    u4 = lambda port, data, src=a: tn.eth(                   # noqa: E731
        tn.ETH_IP, tn.over_ipv4(tn.UDP, (49152 + i % 8192, port, data), src))
    g4 = lambda data, src=a: tn.eth(tn.ETH_IP,               # noqa: E731
                                    tn.over_ipv4(tn.GRE, data, src))
    vlan = tn.eth(et, ip, tags=[(tn.ETH_VLAN, 10)])
    opts = tn.geneve_opt(0x0102, 0x80, b"\x00\x00\x00\x2a") + \
        tn.geneve_opt(0xffff, 0x01, b"\x11" * 8)
    mid = tn.over_ipv4(tn.UDP, (4000 + i % 1000, tn.VXLAN_PORT,
                                tn.vxlan(300, fr)), (198, 51, 100, 1))
    deep = tn.over_ipv4(tn.IPIP, tn.over_ipv4(tn.GRE, tn.gre(
        tn.ETH_IP, tn.over_ipv4(tn.UDP, (1, tn.VXLAN_PORT, tn.vxlan(
            400, tn.eth(tn.ETH_IP, tn.over_ipv4(tn.UDP, (2, tn.GENEVE_PORT,
                tn.geneve(500, et, ip)), (198, 51, 100, 3), ident=1 + i)))),
            (198, 51, 100, 2), ident=1 + i), key=11), (203, 0, 113, 1),
        ident=1 + i), ident=1 + i)
    ipproto = tn.IPV6 if v6 else tn.IPIP
    return [
        ("bare", [], fr, "eth:ethertype:" + name),
        ("vxlan", [("vxlan", 100)], u4(tn.VXLAN_PORT, tn.vxlan(100, fr)),
         "eth:ethertype:ip:udp:vxlan:" + teb),
        ("vxlan over ipv6", [("vxlan", 101)], tn.eth(tn.ETH_IPV6, tn.over_ipv6(
            tn.UDP, (49152, tn.VXLAN_PORT, tn.vxlan(101, fr)))),
         "eth:ethertype:ipv6:udp:vxlan:" + teb),
        ("vxlan, a VLAN tag inside", [("vxlan", 102)],
         u4(tn.VXLAN_PORT, tn.vxlan(102, vlan)),
         "eth:ethertype:ip:udp:vxlan:eth:ethertype:vlan:ethertype:" + name),
        ("geneve with options", [("geneve", 200)],
         u4(tn.GENEVE_PORT, tn.geneve(200, tn.ETH_TEB, fr, opts)),
         "eth:ethertype:ip:udp:geneve:" + teb),
        ("geneve, ip", [("geneve", 201)],
         u4(tn.GENEVE_PORT, tn.geneve(201, et, ip)),
         "eth:ethertype:ip:udp:geneve:" + name),
        ("gre, checksum, key, sequence", [("gre", 7)],
         g4(tn.gre(et, ip, key=7, seq=i, checksum=True)),
         "eth:ethertype:ip:gre:" + name),
        ("gre", [("gre", None)], g4(tn.gre(et, ip), (192, 0, 2, 9)),
         "eth:ethertype:ip:gre:" + name),
        ("gretap", [("gre", 8)], g4(tn.gre(tn.ETH_TEB, fr, key=8)),
         "eth:ethertype:ip:gre:" + teb),
        ("gre, mpls", [("gre", None)],
         g4(tn.gre(tn.ETH_MPLS, MPLS_LABEL + ip)),
         "eth:ethertype:ip:gre:mpls:" + name),
        ("erspan I", [("erspan", None)], g4(tn.erspan1(fr)),
         "eth:ethertype:ip:gre:erspan:" + teb),
        ("erspan II", [("erspan", 33)], g4(tn.erspan2(33, fr, seq=i)),
         "eth:ethertype:ip:gre:erspan:" + teb),
        ("erspan III", [("erspan", 34)], g4(tn.erspan3(34, fr, seq=i)),
         "eth:ethertype:ip:gre:erspan:" + teb),
        ("erspan III, platform subheader", [("erspan", 35)],
         g4(tn.erspan3(35, fr, seq=i, subheader=tn.erspan3_platform())),
         "eth:ethertype:ip:gre:erspan:" + teb),
        ("gtpu, an extension header", [("gtpu", 0x1234)],
         u4(tn.GTPU_PORT, tn.gtpu(0x1234, ip, ext=[tn.pdu_session()])),
         "eth:ethertype:ip:udp:gtp:" + name),
        ("ipip" if not v6 else "sit", [("ip", None)],
         tn.eth(tn.ETH_IP, tn.over_ipv4(ipproto, ip)),
         "eth:ethertype:ip:" + name),
        ("in ipv6", [("ip", None)],
         tn.eth(tn.ETH_IPV6, tn.over_ipv6(ipproto, ip)),
         "eth:ethertype:ipv6:" + name),
        ("vxlan in gre", [("gre", 9), ("vxlan", 300)],
         g4(tn.gre(tn.ETH_IP, mid, key=9)),
         "eth:ethertype:ip:gre:ip:udp:vxlan:" + teb),
        ("geneve in vxlan in gre in ipip", [("ip", None), ("gre", 11),
                                            ("vxlan", 400), ("geneve", 500)],
         tn.eth(tn.ETH_IP, deep),
         "eth:ethertype:ip:ip:gre:ip:udp:vxlan:eth:ethertype:ip:udp:geneve:"
         + name),
    ]


TSHARK_IDS = (("vxlan", "vxlan.vni"), ("geneve", "geneve.vni"),
              ("gre", "gre.key"), ("erspan", "erspan.spanid"),
              ("gtpu", "gtp.teid"))


def tshark_check(cap, expect):
    """Wireshark decodes every frame of cap as expect says: [(name, chain,
    protocols, ip)]: its protocols begin with what the variant says, the
    innermost IP header's addresses are ip's, and each tunnel's identity is
    the chain's (an independent decoder's view of what the test built)."""
    fields = ["frame.protocols", "ip.src", "ip.dst", "ipv6.src",
              "ipv6.dst"] + [f for _, f in TSHARK_IDS]
    r = sh(["tshark", "-n", "-r", cap, "-T", "fields", "-E", "separator=/t",
            "-E", "occurrence=a", "-E", "aggregator=,"] +
           [x for f in fields for x in ("-e", f)])
    lines = r.stdout.decode().rstrip("\n").split("\n")
    assert len(lines) == len(expect), (len(lines), len(expect))
    for line, (name, chain, protos, ip) in zip(lines, expect):
        got = dict(zip(fields, line.split("\t")))
        assert (got["frame.protocols"] + ":").startswith(protos + ":"), \
            (name, got["frame.protocols"], protos)
        # the innermost header's addresses: the last of each field
        fam, f = (socket.AF_INET6, "ipv6") if ip[0] >> 4 == 6 else \
            (socket.AF_INET, "ip")
        n = 16 if fam == socket.AF_INET6 else 4
        at = 8 if n == 16 else 12
        pair = tuple(socket.inet_pton(fam, got[f + x].split(",")[-1])
                     for x in (".src", ".dst"))
        assert pair == (ip[at:at + n], ip[at + n:at + 2 * n]), (name, got)
        for kind, f in TSHARK_IDS:
            ids = [v for k, v in chain if k == kind and v is not None]
            seen = [int(x, 0) for x in got[f].split(",") if x]
            assert seen == ids, (name, kind, seen, ids)


def tunnel_packets(n, pad=b""):
    """n inner packets: UDP and TCP (with options) over IPv4, UDP over
    IPv6; pad after each one's payload."""
    out = []
    for i in range(n):
        if i % 3 == 2:
            out.append(tn.ip_udp(7000 + i, 40000, b"six %04d" % i + pad,
                                 v6=True))
        elif i % 3 == 1:
            out.append(ip4(64, 6, tcp_opts(30000 + i, 77 * i, b"T" * i +
                                           pad)))
        else:
            out.append(tn.ip_udp(6000 + i, 40000, b"four %04d" % i + pad))
    return out


def tunnel_capture(name, n=12, pad=b""):
    """n inner packets, each bare then in every variant; checked by
    tshark. Returns (path, the frames' variants, copies per packet)."""
    rows, expect = [], []
    for i, ip in enumerate(tunnel_packets(n, pad)):
        for vname, chain, frame, protos in tunnel_variants(ip, i):
            rows.append((vname, chain, frame))
            expect.append((vname, chain, protos, ip))
    src = text2pcap(name, [r[2] for r in rows])
    tshark_check(src, expect)
    return src, rows, len(rows) // n


def walked(chain, looked):
    """The tunnels of chain the core crosses when it looks into looked: up
    to the first it does not look into."""
    out = []
    for kind, _ in chain:
        if kind not in looked:
            break
        out.append(kind)
    return out


@test
def tunnels_every_copy_found():
    n = 12
    src, rows, per = tunnel_capture("tun.pcap", n)
    recs = read_pcap(src)
    assert len(recs) == len(rows) == n * per
    out, dups = path("tun-out.pcap"), path("tun-dups.pcap")
    # every encapsulation: each copy of each packet found, the frames kept
    # the bare ones, byte for byte, and the copies the tunnelled ones
    j = sim_json(["--pcap", src, "--decap", "all", "--write", out,
                  "--write-dups", dups])
    assert (j["keyed"], j["distincts"], j["duplicates"]) == \
        (n * per, n, n * (per - 1)), j
    assert j["false_positives"] == 0 and j["false_negatives"] == 0, j
    assert read_pcap(out) == [r for r, row in zip(recs, rows) if not row[1]]
    assert read_pcap(dups) == [r for r, row in zip(recs, rows) if row[1]]
    d = j["decap"]
    assert d["encaps"] == list(ENCAPS) and d["tunnel_id"] == "ignore", d
    for e in ENCAPS:
        assert d["frames"][e] == sum(e in {k for k, _ in row[1]}
                                     for row in rows), (e, d)
        assert d["errors"][e] == 0, d
    assert sum(j["unparsed"].values()) == 0 and j["not_ip"] == 0, j
    # the text report says the same
    r = sim(["--pcap", src, "--decap", "all"])
    assert b"decap      vxlan,geneve,gre,erspan,gtpu,ip (tunnel-id ignore;" \
        b" UDP ports vxlan 4789, geneve 6081, gtpu 2152)" in r.stdout, r.stdout
    assert b"           erspan %d frames decapsulated, 0 errors" % \
        d["frames"]["erspan"] in r.stdout, r.stdout
    # none: no copy but the bare one's own, every frame written as read;
    # the frames' truth finds the copies the key does not
    for none in ([], ["--decap", "none"]):
        j = sim_json(["--pcap", src, "--write", out] + none)
        assert (j["keyed"], j["distincts"], j["duplicates"],
                j["false_negatives"], j["truth_cross"]["frame_only"]) == \
            (n * per, n, n * (per - 1), n * (per - 1), n * (per - 1)), j
        assert j["truth_cross"]["decapsulated"] == n * (per - 1), j
        j = sim_json(["--pcap", src, "--truth", "key"] + none)
        assert (j["distincts"], j["duplicates"]) == (n * per, 0), j
        assert j["decap"]["encaps"] == [] and \
            not any(j["decap"]["frames"].values()), j
        assert read_pcap(out) == recs
        assert b"decap " not in sim(["--pcap", src] + none).stdout
    # each encapsulation alone: the copies whose tunnels are all of it; a
    # frame counted where its walk crossed one
    for e in ENCAPS:
        j = sim_json(["--pcap", src, "--decap", e, "--truth", "key"])
        found = sum(1 for row in rows if row[1] and
                    {k for k, _ in row[1]} == {e})
        assert (j["keyed"], j["duplicates"]) == (n * per, found), (e, j)
        for e2 in ENCAPS:
            want = sum(e2 in walked(row[1], {e}) for row in rows)
            assert j["decap"]["frames"][e2] == want, (e, e2, j["decap"])
    # two: the nested vxlan in gre found too
    j = sim_json(["--pcap", src, "--decap", "gre,vxlan"])
    found = sum(1 for row in rows if row[1] and
                {k for k, _ in row[1]} <= {"gre", "vxlan"})
    assert j["said_duplicates"] == found, j
    assert j["false_negatives"] == n * (per - 1) - found, j
    # the protocol selection is the innermost packet's, as the module's:
    # a third of the packets are TCP; the others pass uncounted
    tcp = n // 3
    j = sim_json(["--pcap", src, "--decap", "all", "--proto", "tcp"])
    assert (j["keyed"], j["unselected"], j["duplicates"]) == \
        (tcp * per, (n - tcp) * per, tcp * (per - 1)), j
    for e in ENCAPS:
        assert j["decap"]["frames"][e] == tcp * sum(
            e in {k for k, _ in row[1]} for row in rows[:per]), (e, j)


def tcp_seg(seq, data, ident):
    """A TCP segment 10.0.0.1:40000 -> 10.0.0.2:443 in IPv4 of IP ID
    ident, its checksum right."""
    h = struct.pack("!HHIIBBHHH", 40000, 443, seq, 1, 5 << 4, 0x18, 512, 0,
                    0)
    c = csum(bytes([10, 0, 0, 1, 10, 0, 0, 2]) +
             struct.pack("!xBH", 6, len(h) + len(data)) + h + data)
    return tn.ipv4(6, h[:16] + struct.pack("!H", c) + h[18:] + data,
                   ident=ident)


def hop(ip):
    """An IPv4 packet one router on: TTL - 1, its checksum again."""
    h = bytearray(ip[:20])
    h[8] -= 1
    h[10:12] = b"\0\0"
    h[10:12] = struct.pack("!H", csum(h))
    return bytes(h) + ip[20:]


TAP_A = {"src": b"\x02\xaa\x00\x00\x00\x01", "dst": b"\x02\xaa\x00\x00\x00\x02"}
TAP_B = {"src": b"\x02\xbb\x00\x00\x00\x01", "dst": b"\x02\xbb\x00\x00\x00\x02"}


def truth_capture():
    """Two taps and a mirror, merged with a raw-IP capture (pcapng):
    20 UDP queries seen at tap A and again at tap B (other MACs, a VLAN
    tag, one hop later); a TCP flow of 10 segments, 5 of them sent again
    (the same segment, a new IP ID: not copies); 10 of the queries
    mirrored through VXLAN (each from its own outer port); an ARP request
    at both taps; 5 of the queries again from a raw-IP capture. Returns
    (path, frames, copies by the frames)."""
    frames, queries = [], []
    for i in range(20):
        ip = tn.ip_udp(1000 + i, 53, b"query %02d" % i, ident=100 + i)
        queries.append(ip)
        frames.append(tn.eth(tn.ETH_IP, ip, **TAP_A))
        frames.append(tn.eth(tn.ETH_IP, hop(ip), tags=[(tn.ETH_VLAN, 100)],
                             **TAP_B))
    seq = 1000
    for k in range(10):
        data = b"segment %02d " % k + b"x" * 100
        frames.append(tn.eth(tn.ETH_IP, tcp_seg(seq, data, 500 + k), **TAP_A))
        if k % 2 == 0:
            frames.append(tn.eth(tn.ETH_IP, tcp_seg(seq, data, 600 + k),
                                 **TAP_A))
        seq += len(data)
    for i in range(10):
        inner = tn.eth(tn.ETH_IP, queries[i], **TAP_A)
        frames.append(tn.eth(tn.ETH_IP, tn.over_ipv4(
            tn.UDP, (49152 + i, tn.VXLAN_PORT, tn.vxlan(77, inner)))))
    arp_req = bytes.fromhex("0001080006040001") + b"\x02" * 6 + \
        bytes([10, 0, 0, 1]) + b"\x00" * 6 + bytes([10, 0, 0, 2])
    frames.append(tn.eth(0x0806, arp_req, **TAP_A))
    frames.append(tn.eth(0x0806, arp_req, tags=[(tn.ETH_VLAN, 100)], **TAP_B))
    a = text2pcap("truth-taps.pcap", frames)
    b = text2pcap("truth-raw.pcap", [hop(q) for q in queries[10:15]],
                  link=RAW, t0=1000)
    out = path("truth.pcapng")
    sh(["mergecap", "-F", "pcapng", "-w", out, a, b])
    return out, len(frames) + 5, 20 + 10 + 5


@test
def frame_truth_scores_the_key():
    cap, frames, copies = truth_capture()
    # 35 distinct frames: 20 queries, 10 segments, 5 sent again
    j = sim_json(["--pcap", cap, "--key", "packet"])
    assert j["truth"] == "frame" and "TTL" in j["truth_compares"], j
    assert (j["frames"], j["keyed"]) == (frames, frames - 2), j
    assert (j["distincts"], j["duplicates"]) == (35, copies), j
    # the packet key without --decap: the mirrored copies missed, nothing
    # else (the tap and raw copies have its key)
    x = j["truth_cross"]
    assert (j["false_positives"], j["false_negatives"]) == (0, 10), j
    assert (x["key_only"], x["frame_only"], x["frame_only_said"]) == \
        (0, 10, 0), x
    assert (x["decapsulated"], x["unkeyed"], x["unkeyed_copies"]) == \
        (10, 2, 1), x
    j = sim_json(["--pcap", cap, "--key", "packet", "--decap", "all"])
    assert (j["false_positives"], j["false_negatives"]) == (0, 0), j
    assert j["truth_cross"]["frame_only"] == 0, j
    # the flow key: the segments after the first and the ones sent again
    # are no copies (14 false positives), the mirrored copies' outer
    # flows are new (10 missed); 0% / 0% by its own key
    for algo in ([], ["--algo", "sliding", "--window", "2ms", "--rate",
                      "1M"]):
        j = sim_json(["--pcap", cap, "--key", "flow"] + algo)
        x = j["truth_cross"]
        assert (j["false_positives"], j["false_negatives"]) == (14, 10), j
        assert (x["key_only"], x["key_only_said"], x["frame_only"]) == \
            (14, 14, 10), (algo, x)
    j = sim_json(["--pcap", cap, "--key", "flow", "--truth", "key"])
    assert j["truth"] == "key" and "flow" in j["truth_compares"], j
    assert (j["false_positives"], j["false_negatives"]) == (0, 0), j
    assert (j["truth_cross"]["key_only"], j["truth_cross"]["frame_only"]) \
        == (14, 10), j
    # the report says what the truth compares and where the key differs
    r = sim(["--pcap", cap, "--key", "flow"]).stdout.decode()
    assert "\ntruth      frame: each frame's IP packet after its link " \
        "layer and every tunnel" in r, r
    assert "\nkey/frame  14 copies by the key are new frames (14 said " \
        "copies); 10 copies by the frame have new keys (0 said copies)\n" \
        in r, r
    assert "\n           10 frames decapsulated by the frame truth; 1 of " \
        "the 2 frames passed unkeyed are copies by it\n" in r, r
    assert "\nmeasured   fp 40.0000% (14 of 35 distinct)   fn 28.5714% " \
        "(10 of 35 duplicates)\n" in r, r


@test
def tunnel_ids_keep_sessions_apart():
    # the same packets through sessions of each encapsulation: two copies
    # in one session (outer addresses and ports differ, the identity is
    # the same), one in another; with --tunnel-id include only the copies
    # of one session (same tunnels, same identities) are copies
    n = 10
    frames, sessions, expect = [], [], []
    c, d = (192, 0, 2, 3), (192, 0, 2, 4)
    for i, ip in enumerate(tunnel_packets(n)):
        et = tn.ethertype_of(ip)
        fr = tn.eth(et, ip)

        def u(port, data, src, sport):
            return tn.eth(tn.ETH_IP, tn.over_ipv4(tn.UDP,
                                                  (sport, port, data), src))

        def g(data, src):
            return tn.eth(tn.ETH_IP, tn.over_ipv4(tn.GRE, data, src))
        row = [
            ((), fr),
            ((("vxlan", 100),), u(tn.VXLAN_PORT, tn.vxlan(100, fr), c, 1000)),
            ((("vxlan", 100),), u(tn.VXLAN_PORT, tn.vxlan(100, fr), d, 2000)),
            ((("vxlan", 200),), u(tn.VXLAN_PORT, tn.vxlan(200, fr), c, 1000)),
            ((("geneve", 100),), u(tn.GENEVE_PORT,
                                   tn.geneve(100, tn.ETH_TEB, fr), c, 1)),
            ((("gre", 7),), g(tn.gre(et, ip, key=7), c)),
            ((("gre", 7),), g(tn.gre(et, ip, key=7, seq=5), d)),
            ((("gre", 8),), g(tn.gre(et, ip, key=8), c)),
            ((("erspan", 5),), g(tn.erspan2(5, fr, seq=1), c)),
            ((("erspan", 5),), g(tn.erspan3(5, fr, seq=2), d)),
            ((("erspan", 6),), g(tn.erspan2(6, fr, seq=1), c)),
            ((("gtpu", 0x10),), u(tn.GTPU_PORT, tn.gtpu(0x10, ip), c, 2152)),
            ((("gtpu", 0x10),), u(tn.GTPU_PORT, tn.gtpu(0x10, ip), d, 2152)),
            ((("gtpu", 0x11),), u(tn.GTPU_PORT, tn.gtpu(0x11, ip), c, 2152)),
            ((("gre", 7), ("vxlan", 100)), g(tn.gre(tn.ETH_IP, tn.over_ipv4(
                tn.UDP, (1, tn.VXLAN_PORT, tn.vxlan(100, fr))), key=7), c)),
            ((("gre", 7), ("vxlan", 100)), g(tn.gre(tn.ETH_IP, tn.over_ipv4(
                tn.UDP, (2, tn.VXLAN_PORT, tn.vxlan(100, fr))), key=7), d)),
            ((("gre", 7), ("vxlan", 200)), g(tn.gre(tn.ETH_IP, tn.over_ipv4(
                tn.UDP, (1, tn.VXLAN_PORT, tn.vxlan(200, fr))), key=7), c)),
        ]
        frames += [f for _, f in row]
        sessions.append([s for s, _ in row])
        name = "ipv6" if et == tn.ETH_IPV6 else "ip"
        teb = "eth:ethertype:" + name
        protos = {"vxlan": "eth:ethertype:ip:udp:vxlan:" + teb,
                  "geneve": "eth:ethertype:ip:udp:geneve:" + teb,
                  "gre": "eth:ethertype:ip:gre:" + name,
                  "erspan": "eth:ethertype:ip:gre:erspan:" + teb,
                  "gtpu": "eth:ethertype:ip:udp:gtp:" + name}
        for sess, _ in row:
            chain = [(k, v) for k, v in sess]
            p = teb if not sess else protos[sess[0][0]] if len(sess) == 1 \
                else "eth:ethertype:ip:gre:ip:udp:vxlan:" + teb
            expect.append(("session %s" % (sess,), chain, p, ip))
    src = text2pcap("sessions.pcap", frames)
    tshark_check(src, expect)
    per = len(sessions[0])
    j = sim_json(["--pcap", src, "--decap", "all", "--tunnel-id", "ignore"])
    assert (j["distincts"], j["duplicates"]) == (n, n * (per - 1)), j
    j = sim_json(["--pcap", src, "--decap", "all", "--tunnel-id", "include",
                  "--truth", "key"])
    distinct = sum(len(set(s)) for s in sessions)
    assert j["decap"]["tunnel_id"] == "include", j
    assert (j["distincts"], j["duplicates"]) == \
        (distinct, n * per - distinct), j
    assert j["false_positives"] == 0 and j["false_negatives"] == 0, j
    # the address and flow keys too: the tunnels' word after the key's
    # (the packets have two sources, 10.0.0.1 and fd00::1, n flows)
    sess = len(set(s for ss in sessions for s in ss))
    for key, keys in (("src", 2), ("flow", n)):
        j = sim_json(["--pcap", src, "--decap", "all", "--tunnel-id",
                      "include", "--key", key, "--truth", "key"])
        assert (j["keyed"], j["distincts"]) == (n * per, keys * sess), \
            (key, j)
        j = sim_json(["--pcap", src, "--decap", "all", "--key", key,
                      "--truth", "key"])
        assert j["distincts"] == keys, (key, j)


def cut_outer(frame, c):
    """frame (Ethernet, then IPv4 or IPv6) whose outer packet ends after c
    bytes of it: its IP length (and its UDP length, for a UDP tunnel) say
    so, checksums right, and the frame ends there."""
    ip = bytearray(frame[14:14 + c])
    if ip[0] >> 4 == 4:
        ip[2:4] = struct.pack("!H", c)
        ip[10:12] = b"\0\0"
        ip[10:12] = struct.pack("!H", csum(ip[:20]))
        hl, proto = 20, ip[9]
    else:
        ip[4:6] = struct.pack("!H", c - 40)
        hl, proto = 40, ip[6]
    if proto == 17 and c >= hl + 8:
        ip[hl + 4:hl + 6] = struct.pack("!H", c - hl)
        ip[hl + 6:hl + 8] = b"\0\0"
        if hl == 40:
            s = csum(bytes(ip[8:40]) + struct.pack("!IxxxB", c - hl, 17) +
                     bytes(ip[hl:]))
            ip[hl + 6:hl + 8] = struct.pack("!H", s or 0xffff)
    return frame[:14] + bytes(ip)


def prefix_cases(ip):
    """Tunnelled frames of ip to cut short (cut_outer): (name, frame,
    levels), levels [(encapsulation, T, H)] outermost first: where the
    tunnel's own header begins (after the UDP header of a UDP tunnel) and
    where the IP header of the packet it carries does, from the outer IP
    header."""
    et = tn.ethertype_of(ip)
    fr = tn.eth(et, ip)
    h = lambda outer: len(outer) - len(ip)                   # noqa: E731
    out = []
    for name, kind, t, outer in (
            ("vxlan", "vxlan", 28, tn.over_ipv4(tn.UDP, (1, tn.VXLAN_PORT,
                                                          tn.vxlan(1, fr)))),
            ("geneve with options", "geneve", 28, tn.over_ipv4(tn.UDP, (
                1, tn.GENEVE_PORT, tn.geneve(1, tn.ETH_TEB, fr, tn.geneve_opt(
                    0x0102, 0x80, b"\0\0\0\x2a"))))),
            ("gre, checksum, key, sequence", "gre", 20, tn.over_ipv4(
                tn.GRE, tn.gre(et, ip, key=1, seq=2, checksum=True))),
            ("gretap", "gre", 20, tn.over_ipv4(tn.GRE, tn.gre(tn.ETH_TEB, fr,
                                                              key=3))),
            ("erspan II", "erspan", 20, tn.over_ipv4(tn.GRE,
                                                     tn.erspan2(1, fr))),
            ("erspan III", "erspan", 20, tn.over_ipv4(tn.GRE,
                                                      tn.erspan3(1, fr))),
            ("erspan III, platform subheader", "erspan", 20, tn.over_ipv4(
                tn.GRE, tn.erspan3(1, fr, subheader=tn.erspan3_platform()))),
            ("gtpu, two extension headers", "gtpu", 28, tn.over_ipv4(
                tn.UDP, (1, tn.GTPU_PORT, tn.gtpu(1, ip, ext=[
                    tn.pdu_session(), tn.pdu_session(3)])))),
            ("ip in ip", "ip", 20, tn.over_ipv4(
                tn.IPV6 if et == tn.ETH_IPV6 else tn.IPIP, ip))):
        out.append((name, tn.eth(tn.ETH_IP, outer), [(kind, t, h(outer))]))
    # vxlan in gre: GRE with a key (8 bytes), the carrier's IPv4 and UDP
    mid = tn.over_ipv4(tn.UDP, (1, tn.VXLAN_PORT, tn.vxlan(1, fr)))
    outer = tn.over_ipv4(tn.GRE, tn.gre(tn.ETH_IP, mid, key=4))
    out.append(("vxlan in gre", tn.eth(tn.ETH_IP, outer),
                [("gre", 20, 28), ("vxlan", 56, h(outer))]))
    return out


def cut_expect(levels, fixed, c, looked):
    """What the core says of a frame whose outer packet is cut after c
    bytes, c inside its tunnels' headers or the innermost IP header:
    (crossed, failed): the encapsulations crossed, and the one whose
    header failed (None: the cut is in a carrier's UDP header, which is
    that packet's, not a tunnel's)."""
    crossed = []
    for k, (kind, t, h) in enumerate(levels):
        last = k == len(levels) - 1
        end = h + (fixed if last else 20)
        if c < t:               # in the carrier's UDP header
            return crossed, None
        if c < end:
            if kind == "erspan" and c < t + 4 and "gre" in looked:
                kind = "gre"    # the GRE protocol cut off: gre's
            return crossed + ([kind] if c > h else []), kind
        crossed.append(kind)
    raise AssertionError("not cut: %d" % c)


@test
def tunnel_headers_cut_short():
    # every prefix of each tunnel's headers, up to the IP header of the
    # packet it carries (an outer packet that ends there, lengths and
    # checksums right): unparsed (truncated), counted as an error of the
    # encapsulation whose header was cut; never keyed, never a crash
    four = tn.ip_udp(1000, 40000, b"cut")
    six = tn.ip_udp(1000, 40000, b"cut", v6=True)
    for ip in (four, six):
        fixed = 20 if ip is four else 40
        for looked in (ENCAPS, ("erspan",)):
            frames, crossed, failed = [], [], []
            for name, frame, levels in prefix_cases(ip):
                if not {k for k, _, _ in levels} <= set(looked):
                    continue
                for c in range(levels[0][1], levels[-1][2] + fixed):
                    frames.append(cut_outer(frame, c))
                    x, f = cut_expect(levels, fixed, c, looked)
                    crossed.append(x)
                    failed.append(f)
            src = text2pcap("cut-%d-%d.pcap" % (fixed, len(looked)), frames)
            j = sim_json(["--pcap", src, "--decap", ",".join(looked)])
            assert j["frames"] == len(frames) and j["keyed"] == 0, j
            assert j["unparsed"]["truncated"] == len(frames), j
            for e in ENCAPS:
                assert j["decap"]["errors"][e] == failed.count(e), \
                    (fixed, looked, e, j["decap"])
                assert j["decap"]["frames"][e] == \
                    sum(e in x for x in crossed), (fixed, looked, e, j["decap"])
            assert sum(f is not None for f in failed) > len(frames) * 0.9


def bad_cases():
    """Malformed tunnels and the limits: (name, frame, result, crossed,
    failed): result the unparsed class (or "keyed", or "not-ip")."""
    ip = tn.ip_udp(1000, 40000, b"bad")
    six = tn.ip_udp(1000, 40000, b"bad", v6=True)
    fr = tn.eth(tn.ETH_IP, ip)
    u4 = lambda port, data: tn.eth(tn.ETH_IP, tn.over_ipv4(  # noqa: E731
        tn.UDP, (1, port, data)))
    g4 = lambda data: tn.eth(tn.ETH_IP,                     # noqa: E731
                             tn.over_ipv4(tn.GRE, data))
    arp = tn.eth(0x0806, bytes.fromhex("0001080006040001") + bytes(20))
    out = []
    for bits, what in ((0x4000, "routing"), (0x0800, "strict source route"),
                       (0x0100, "recursion 1"), (0x0700, "recursion 7")):
        out.append(("gre, " + what, g4(tn.gre(tn.ETH_IP, ip, flags=bits)),
                    "bad-header", [], "gre"))
    for v in range(2, 8):
        out.append(("gre version %d" % v, g4(tn.gre(tn.ETH_IP, ip,
                                                    version=v)),
                    "bad-header", [], "gre"))
    # version 1 is PPTP's enhanced GRE: not looked into, keyed as it is
    out.append(("gre version 1 (pptp)", g4(tn.gre(0x880b, b"\xff\x03" + ip,
                                                   version=1)),
                "keyed", [], None))
    out += [
        ("erspan II of version 2", g4(tn.erspan2(1, fr, version=2)),
         "bad-header", [], "erspan"),
        ("erspan III of version 1", g4(tn.erspan3(1, fr, version=1)),
         "bad-header", [], "erspan"),
        ("erspan III of frame type 1", g4(tn.erspan3(1, fr, ft=1)),
         "not-ip", ["erspan"], None),
        ("erspan III of frame type 2 (ip)", g4(tn.erspan3(1, ip, ft=2)),
         "keyed", ["erspan"], None),
        ("vxlan without its I flag", u4(tn.VXLAN_PORT, tn.vxlan(
            1, fr, flags=0)), "bad-header", [], "vxlan"),
        ("vxlan carrying arp", u4(tn.VXLAN_PORT, tn.vxlan(1, arp)),
         "not-ip", ["vxlan"], None),
        ("geneve version 1", u4(tn.GENEVE_PORT, tn.geneve(
            1, tn.ETH_TEB, fr, version=1)), "bad-header", [], "geneve"),
        ("geneve options past the end", u4(tn.GENEVE_PORT, tn.geneve(
            1, tn.ETH_TEB, fr, optlen=63)), "truncated", [], "geneve"),
        ("geneve options past the decap room", u4(tn.GENEVE_PORT, tn.geneve(
            1, tn.ETH_TEB, fr, tn.geneve_opt(0x0102, 1, bytes(120)) * 2)),
         "decap-limit", [], "geneve"),
        ("geneve of protocol 0", u4(tn.GENEVE_PORT, tn.geneve(1, 0, fr)),
         "not-ip", ["geneve"], None),
        ("gtpu, an extension header of length 0", u4(tn.GTPU_PORT, tn.gtpu(
            1, ip, ext=[tn.pdu_session()])[:12] + b"\0\0\0\0" + ip),
         "bad-header", [], "gtpu"),
        ("gtpu, 9 extension headers", u4(tn.GTPU_PORT, tn.gtpu(
            1, ip, ext=[tn.pdu_session()] * 9)), "decap-limit", [], "gtpu"),
        ("gtpu, 8 extension headers", u4(tn.GTPU_PORT, tn.gtpu(
            1, ip, ext=[tn.pdu_session()] * 8)), "keyed", ["gtpu"], None),
        ("gtpv2 on the gtp-u port", u4(tn.GTPU_PORT, tn.gtpu(
            1, ip, version=2)), "bad-header", [], "gtpu"),
        ("gtp' on the gtp-u port", u4(tn.GTPU_PORT, tn.gtpu(1, ip, pt=0)),
         "bad-header", [], "gtpu"),
        ("gtpu echo request", u4(tn.GTPU_PORT, tn.gtpu(1, b"", msg=1)),
         "keyed", [], None),
        ("gtpu carrying no ip", u4(tn.GTPU_PORT, tn.gtpu(1, b"\0" * 20)),
         "not-ip", ["gtpu"], None),
        ("ipip carrying ipv6", tn.eth(tn.ETH_IP, tn.over_ipv4(tn.IPIP, six)),
         "bad-header", ["ip"], "ip"),
        ("sit carrying ipv4", tn.eth(tn.ETH_IP, tn.over_ipv4(tn.IPV6, ip)),
         "bad-header", ["ip"], "ip"),
        ("gre carrying a bad ip version", g4(tn.gre(tn.ETH_IP, b"\x50" +
                                                    ip[1:])),
         "bad-version", ["gre"], "gre"),
    ]
    # nested: 4 tunnels are crossed, a fifth is the decap limit
    p = ip
    for depth in range(1, 6):
        p = tn.over_ipv4(tn.IPIP, p, (192, 0, 2, depth))
        if depth >= 4:
            out.append(("%d ipip tunnels" % depth, tn.eth(tn.ETH_IP, p),
                        "keyed" if depth == 4 else "decap-limit", ["ip"],
                        None if depth == 4 else "ip"))
    # a tunnel in the trailing bytes of a frame, past the end of the
    # packet that carries it: cut short (the VXLAN header is not there)
    mid = tn.over_ipv4(tn.UDP, (1, tn.VXLAN_PORT, tn.vxlan(1, fr)))
    outer = tn.over_ipv4(tn.GRE, tn.gre(tn.ETH_IP, mid), length=20 + 4 + 28)
    out.append(("vxlan past the end of its carrier", tn.eth(tn.ETH_IP, outer),
                "truncated", ["gre"], "vxlan"))
    return out


@test
def malformed_tunnels_unparsed_with_their_error():
    cases = bad_cases()
    src = text2pcap("bad.pcap", [c[1] for c in cases])
    j = sim_json(["--pcap", src, "--decap", "all"])
    want = {k: 0 for k in j["unparsed"]}
    for _, _, res, _, _ in cases:
        if res != "keyed":
            want[res] += 1
    errors = {e: sum(c[4] == e for c in cases) for e in ENCAPS}
    frames = {e: sum(e in c[3] for c in cases) for e in ENCAPS}
    keyed = sum(c[2] == "keyed" for c in cases)
    if (j["unparsed"], j["decap"]["errors"], j["decap"]["frames"],
            j["keyed"]) != (want, errors, frames, keyed):
        # which: each case alone
        for name, frame, res, crossed, failed in cases:
            one = text2pcap("bad-one.pcap", [frame])
            k = sim_json(["--pcap", one, "--decap", "all"])
            got = "keyed" if k["keyed"] else \
                [u for u, v in k["unparsed"].items() if v][0]
            gf = [e for e, v in k["decap"]["errors"].items() if v]
            gc = [e for e, v in k["decap"]["frames"].items() if v]
            assert (got, gc, gf) == (res, crossed, [failed] if failed else
                                     []), (name, got, gc, gf)
        raise AssertionError((j["unparsed"], want, j["decap"], errors,
                              frames))
    nonip = sum(c[2] == "not-ip" for c in cases)
    assert j["not_ip"] == nonip, j
    r = sim(["--pcap", src, "--decap", "all"])
    assert b"%d not IP (%d in a tunnel: not-ip)" % (nonip, nonip) in \
        r.stdout, r.stdout
    assert b" decap-limit %d" % want["decap-limit"] in r.stdout, r.stdout
    # nothing looked into: every frame keyed as it is
    j = sim_json(["--pcap", src])
    assert j["keyed"] == len(cases), j


@test
def tunnels_cut_by_the_snaplen():
    # every variant cut by editcap -s at lengths that end in the tunnels'
    # headers and the packets they carry: no crash (ASan, UBSan with
    # --sanitized), every frame counted once, the errors among the
    # unparsed, and a frame cut after what its key covers keyed as whole
    src, rows, per = tunnel_capture("snap.pcap", 3)
    caps = []
    for snap in (34, 38, 42, 46, 50, 54, 58, 62, 66, 70, 78, 90, 110, 130,
                 160, 200):
        cut = path("snap-%d.pcap" % snap)
        sh(["editcap", "-F", "pcap", "-s", str(snap), src, cut])
        caps.append(cut)
    merged = path("snap-all.pcap")
    sh(["mergecap", "-a", "-F", "pcap", "-w", merged] + caps)
    for looked in ("all", "vxlan,gre", "none"):
        j = sim_json(["--pcap", merged, "--decap", looked])
        unparsed = sum(v for k, v in j["unparsed"].items() if k != "not-ip")
        assert j["frames"] == j["keyed"] + unparsed + j["not_ip"] + \
            j["runt"], j
        assert sum(j["decap"]["errors"].values()) <= unparsed, j
    # with payload 64, cut after the bytes every key covers (the innermost
    # packet's headers and 64 payload bytes), before the end of every
    # frame: the verdicts of the whole frames, every frame keyed from its
    # cut
    src, rows, per = tunnel_capture("snap-pad.pcap", 3, b"P" * 400)
    recs = read_pcap(src)
    ips = tunnel_packets(3, b"P" * 400)
    covers = [len(r[4]) - len(ips[k // per]) + 40 + 32 + 64
              for k, r in enumerate(recs)]
    snap = max(covers)
    assert snap < min(len(r[4]) for r in recs), (snap, covers)
    big = path("snap-past.pcap")
    sh(["editcap", "-F", "pcap", "-s", str(snap), src, big])
    # (the key's truth: the frames' compares what was captured of each)
    a = sim_json(["--pcap", src, "--decap", "all", "--payload", "64",
                  "--truth", "key"])
    b = sim_json(["--pcap", big, "--decap", "all", "--payload", "64",
                  "--truth", "key"])
    assert b["keyed_cut"] == b["cut"] == len(recs), b
    for k in ("keyed", "distincts", "duplicates", "decap"):
        assert a[k] == b[k], (k, a, b)


def man_examples(page):
    """The commands of a man page's EXAMPLES (.nf block), as read."""
    with open(page) as f:
        text = f.read()
    block = text.split(".SH EXAMPLES", 1)[1].split(".SH ", 1)[0]
    lines = block.split(".nf\n", 1)[1].split(".fi", 1)[0].split("\n")
    return [x.replace("\\-", "-") for x in lines
            if x.strip() and not x.startswith(("#", "."))]


@test
def man_page_examples_run():
    """dedup-sim(1)'s EXAMPLES word for word, in a folder holding the
    captures they name (a line that reads a live interface aside)"""
    d = fresh_dir("man-examples")
    bindir = fresh_dir("man-examples-bin")
    os.symlink(os.path.abspath(SIM), os.path.join(bindir, "dedup-sim"))
    cap, _, _, _ = copies_capture("ex-in.pcapng", fmt="pcapng")
    shutil.copy(cap, os.path.join(d, "in.pcapng"))
    cap, _, _, _ = copies_capture("ex-mirrored.pcap")
    shutil.copy(cap, os.path.join(d, "mirrored.pcap"))
    env = dict(os.environ, PATH=bindir + ":" + os.environ["PATH"])
    lines = man_examples(os.path.join(ROOT, "userspace/sim/dedup-sim.1"))
    live = [x for x in lines if x.startswith("tcpdump -w")]
    assert len(live) == 1 and len(lines) >= 4, lines
    for cmd in lines:
        if cmd in live:
            continue
        r = subprocess.run(["sh", "-c", cmd], cwd=d, env=env,
                           capture_output=True, timeout=600)
        assert r.returncode == 0, (cmd, r.stderr)
        print("# " + cmd)
    assert count_of(os.path.join(d, "out.pcapng")) > 0
    assert count_of(os.path.join(d, "out.pcap")) > 0


def big_capture(p, gib, distinct_every):
    """A classic pcap of about gib GiB: 1514-byte Ethernet frames of UDP,
    every distinct_every-th one new, the others copies of the previous new
    one. Returns (frames, distinct)."""
    payload = bytes(range(256)) * 6
    frames = distinct = 0
    target = int(gib * (1 << 30))
    with open(p, "wb", buffering=1 << 22) as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        size = 24
        rec = bytearray(16 + 1514)
        hdr = eth(0x0800, ip4(64, 17, udp(1, payload[:1472])))
        rec[16:] = hdr
        struct.pack_into("<II", rec, 8, 1514, 1514)
        while size < target:
            if frames % distinct_every == 0:
                distinct += 1
                struct.pack_into("!I", rec, 16 + 14 + 28, distinct)
            struct.pack_into("<II", rec, 0, frames // 1000000,
                             frames % 1000000)
            f.write(rec)
            frames += 1
            size += len(rec)
    return frames, distinct


@test
def constant_memory_on_a_big_capture():
    if not BIG:
        return
    small, big = path("small.pcap"), path("big.pcap")
    fs, ds = big_capture(small, 0.125, 2)
    fb, db = big_capture(big, 1.0, 2)
    try:
        res = {}
        runs = (("sbf", []), ("sliding", ["--algo", "sliding", "--window",
                                          "2ms", "--rate", "1M"]))
        for name, p in (("small", small), ("big", big)):
            for algo, extra in runs:
                for truth in ("none", "exact"):
                    j = plain_json(["--pcap", p, "--truth", truth,
                                    "--write", "/dev/null"] + extra)
                    res[name, algo, truth] = j
                    print("# %s capture (%d bytes, %d frames), %s, --truth "
                          "%s: peak RSS %.1f MiB, filter %d bytes, ground "
                          "truth %d bytes" %
                          (name, os.path.getsize(p), j["frames"], algo,
                           truth, j["peak_rss_bytes"] / 2**20,
                           j["mem_bytes"], j["truth_bytes"]))
        for algo, _ in runs:
            jb = res["big", algo, "none"]
            assert jb["frames"] == fb and \
                jb["written"] + jb["said_duplicates"] == fb, jb
            # the limits: the filter + 32 MiB; with the truth + 64 bytes a
            # distinct frame (its 128-bit digest and its key's 64-bit one,
            # each in a set that doubles at three quarters full)
            assert jb["peak_rss_bytes"] <= jb["mem_bytes"] + 32 * 2**20, jb
            je = res["big", algo, "exact"]
            assert je["peak_rss_bytes"] <= \
                je["mem_bytes"] + 32 * 2**20 + 64 * db, je
            assert je["truth_bytes"] <= 64 * db, je
            # what the truth costs in the process: under 64 bytes a frame
            assert je["peak_rss_bytes"] - jb["peak_rss_bytes"] <= 64 * db, \
                (je, jb)
            # eight times the capture, the same memory without a truth
            assert abs(jb["peak_rss_bytes"] -
                       res["small", algo, "none"]["peak_rss_bytes"]) \
                <= 2**20, (jb, res["small", algo, "none"])
        je = res["big", "sbf", "exact"]
        assert je["distincts"] == db and je["duplicates"] == fb - db, je
        # and in an address space of 64 MiB, a sixteenth of the capture
        for truth in ("none", "exact"):
            r = subprocess.run(
                [PLAIN, "--pcap", big, "--truth", truth, "--write",
                 "/dev/null", "--json"], capture_output=True, timeout=600,
                preexec_fn=lambda: resource.setrlimit(
                    resource.RLIMIT_AS, (64 << 20, 64 << 20)))
            assert r.returncode == 0, (truth, r.stderr)
            assert json.loads(r.stdout)["frames"] == fb
            print("# big capture in an address space of 64 MiB "
                  "(RLIMIT_AS), --truth %s: read whole" % truth)
        # each copy follows its original by 1 us: inside 2 ms
        je = res["big", "sliding", "exact"]
        assert je["duplicates"] == fb - db and je["false_negatives"] == 0, je
    finally:
        for p in (small, big):
            if os.path.exists(p):
                os.unlink(p)


if __name__ == "__main__":
    try:
        rc = run_all()
    finally:
        subprocess.run(["rm", "-rf", TMP])
    sys.exit(rc)
