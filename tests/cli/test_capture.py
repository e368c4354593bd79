#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""dedup-sim on captures as they come from the field (run by `make check`).

Every capture is made in the test by Wireshark's own tools (text2pcap from
a hex dump, editcap, mergecap; capinfos reads what was written), and every
expected count follows from how the capture was built.

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
import signal
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
from packets import csum  # noqa: E402

B = sys.argv[1] if len(sys.argv) > 1 else "build"
PLAIN = os.path.join(B, "dedup-sim")
SIM = os.path.join(B, "san", "dedup-sim") if "--sanitized" in sys.argv \
    else PLAIN
BIG = "--big" in sys.argv
os.environ["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=1"
os.environ["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
TMP = tempfile.mkdtemp(prefix="pktdedup-capture-")

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
    # the flow key needs only the ports
    j = sim_json(["--pcap", cut, "--key", "flow"])
    assert j["keyed"] == 2 * n and j["distincts"] == 5, j
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
    j = sim_json(["--pcap", src, "--key", "src"])
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
    for sig in (signal.SIGTERM, signal.SIGINT):
        p = subprocess.Popen([os.path.abspath(SIM), "--pcap", "-", "--write",
                              "out.pcap"], cwd=d, stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
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
            # the limits: the filter + 32 MiB; + 24 bytes a key
            assert jb["peak_rss_bytes"] <= jb["mem_bytes"] + 32 * 2**20, jb
            je = res["big", algo, "exact"]
            assert je["peak_rss_bytes"] <= \
                je["mem_bytes"] + 32 * 2**20 + 24 * db, je
            assert je["truth_bytes"] <= 24 * db, je
            # what the truth costs in the process: under 24 bytes a key
            assert je["peak_rss_bytes"] - jb["peak_rss_bytes"] <= 24 * db, \
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
