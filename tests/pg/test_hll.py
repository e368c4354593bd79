# SPDX-License-Identifier: GPL-2.0
"""dedup-sim's sketches (--sketches) in the real engine: PostgreSQL 15 with
the hll extension (Debian's postgresql-15-hll), a temporary cluster on a
Unix socket in a temporary directory, run as an unprivileged user (uid
65534 when started as root), removed at the end.

- The encoding: for addresses hashed as the module hashes them (an
  independent Python copy of core/addrhash.h), the extension's own
  hll_add_agg() of the same hashes prints byte for byte what dedup-sim
  wrote, sparse and full.
- Fleet unions: hll_union_agg() over hosts that share part of their
  sources estimates the exact union within 3 standard errors (1.04/sqrt(m)
  = 0.8125% at m = 2^14, so 2.44%), for 2 hosts and for 10; each host's own
  sketch likewise; two keys give a union near the sum of the parts (what
  the key's fingerprint column guards against).
- The rows: one per interval that saw a packet, starting at multiples of
  --sketch-every, with the host and the key's fingerprint.

Usage: test_hll.py BUILD_DIR"""
import csv
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))
from tap import run_all, test  # noqa: E402
from pgtmp import Cluster, sh  # noqa: E402  (tests/pg/pgtmp.py)

B = sys.argv[1] if len(sys.argv) > 1 else "build"
SIM = os.path.join(B, "dedup-sim")
PG = Cluster()
TMP = PG.dir
M64 = (1 << 64) - 1
# the captures' first second (2023-11-14T22:13:20Z), a minute's multiple
T0 = 1700000000 - 1700000000 % 60
SE = 1.04 / 128          # 1.04 / sqrt(2^14)


def psql(sql, stdin=None):
    return PG.psql(sql, stdin)


# The module's address hash (core/addrhash.h), independently.
def fmix(z):
    z ^= z >> 33
    z = z * 0xff51afd7ed558ccd & M64
    z ^= z >> 33
    z = z * 0xc4ceb9fe1a85ec53 & M64
    return z ^ (z >> 33)


def addr_hash(key, addr):
    a = struct.unpack("<5Q", key)
    x2 = (struct.unpack("<I", addr)[0] << 32) | 0xffff0000
    a2 = (a[3] << 64) | a[2]
    return fmix(((a2 * x2 >> 64) + a[4]) & M64)


def keyfile(name, seed):
    p = os.path.join(TMP, name)
    with open(p, "wb") as f:
        f.write(bytes((seed * 131 + i * 29 + (i * i) % 251) & 0xff
                      for i in range(40)))
    return p


def ip(i):
    """Source i: 10.x.y.z; the destinations are 192.0.2.0-255."""
    return struct.pack("!I", 0x0a000000 + i)


def capture(name, sources, t0=T0, step_us=100):
    """A raw-IP pcap: one UDP datagram from each source in turn."""
    p = os.path.join(TMP, name)
    with open(p, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 101))
        for n, s in enumerate(sources):
            udp = struct.pack("!HHHH", 1024 + n % 60000, 53, 12, 0) + b"ping"
            hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), n & 0xffff,
                              0, 64, 17, 0, ip(s), bytes([192, 0, 2, n & 0xff]))
            pkt = hdr + udp
            t = t0 * 1000000 + n * step_us
            f.write(struct.pack("<IIII", t // 1000000, t % 1000000, len(pkt),
                                len(pkt)) + pkt)
    return p


def sketches(cap, host, key, every="1h", seed=None):
    out = os.path.join(TMP, f"{host}.csv")
    args = [SIM, "--pcap", cap, "--sketches", out, "--host", host,
            "--sketch-every", every]
    args += ["--sources-key", key] if key else ["--seed", str(seed)]
    sh(args)
    with open(out) as f:
        return list(csv.reader(f)), out


def load(*files):
    texts = []
    for f in files:
        with open(f, "rb") as fh:
            texts.append(fh.read())
    PG.load("fleet", *texts)


def union_card(where="true"):
    return float(psql(f"select hll_cardinality(hll_union_agg(src)) "
                      f"from fleet where {where}")[0][0])


def within(est, exact, k=3):
    return abs(est - exact) <= k * SE * exact


@test
def encoding_is_the_extensions():
    key = keyfile("enc.key", 1)
    kb = open(key, "rb").read()
    for n, kind in ((2000, "13"), (100000, "14")):
        srcs = list(range(n))
        rows, _ = sketches(capture(f"enc{n}.pcap", srcs), "enc", key)
        assert len(rows) == 1, rows
        ours = rows[0][4]
        assert ours[2:4] == kind, f"{n} sources: type {ours[2:4]}, want {kind}"
        hashes = "\n".join(str(struct.unpack("<q", struct.pack(
            "<Q", addr_hash(kb, ip(s))))[0]) for s in srcs)
        psql("drop table if exists h")
        psql("create table h (v bigint)")
        psql("\\copy h from stdin", stdin=hashes.encode())
        theirs = psql("select hll_add_agg(hll_hashval(v), 14, 5, -1, 1) "
                      "from h")[0][0]
        assert theirs == ours, \
            f"{n} sources: the extension {theirs[:40]}..., dedup-sim {ours[:40]}..."


@test
def two_hosts_union_within_three_standard_errors():
    key = keyfile("fleet.key", 2)
    _, a = sketches(capture("a.pcap", range(0, 60000)), "a", key)
    _, b = sketches(capture("b.pcap", range(30000, 100000)), "b", key)
    load(a, b)
    u = union_card()
    ea = float(psql("select hll_cardinality(src) from fleet where host = 'a'")[0][0])
    eb = float(psql("select hll_cardinality(src) from fleet where host = 'b'")[0][0])
    print(f"# union of 2 hosts: {u:.0f} for 100000 ({(u / 1e5 - 1) * 100:+.2f}%);"
          f" a {ea:.0f} for 60000, b {eb:.0f} for 70000")
    assert within(u, 100000), u
    assert within(ea, 60000) and within(eb, 70000), (ea, eb)
    fps = psql("select distinct fingerprint from fleet")
    assert len(fps) == 1 and len(fps[0][0]) == 16, fps


@test
def ten_hosts_union_within_three_standard_errors():
    key = keyfile("fleet.key", 2)
    files = []
    # host i sees sources 8000 i .. 8000 i + 19999: the union 0 .. 91999
    for i in range(10):
        _, f = sketches(capture(f"h{i}.pcap", range(8000 * i, 8000 * i + 20000)),
                        f"h{i}", key)
        files.append(f)
    load(*files)
    u = union_card()
    s = float(psql("select sum(hll_cardinality(src)) from fleet")[0][0])
    print(f"# union of 10 hosts: {u:.0f} for 92000 ({(u / 92000 - 1) * 100:+.2f}%);"
          f" the sum of the hosts' counts {s:.0f}")
    assert within(u, 92000), u
    # the sum counts shared sources once per host: 200000 (errors of
    # hosts that share sources and a key are correlated: 3 SE of it all)
    assert within(s, 200000), s


@test
def two_keys_count_shared_sources_twice():
    _, a = sketches(capture("a.pcap", range(0, 60000)), "a",
                    keyfile("k1.key", 3))
    _, b = sketches(capture("b.pcap", range(30000, 100000)), "b",
                    keyfile("k2.key", 4))
    load(a, b)
    u = union_card()
    fps = psql("select count(distinct fingerprint) from fleet")[0][0]
    print(f"# two keys: union {u:.0f} (100000 shared-once, 130000 the sum)")
    assert fps == "2", fps
    assert within(u, 130000), u


@test
def rows_per_interval_aligned_to_the_epoch():
    # 3000 packets 100 ms apart from 10 s into a minute: 300 s, six minutes
    cap = capture("iv.pcap", range(3000), t0=T0 + 10, step_us=100000)
    rows, f = sketches(cap, "iv", None, every="1m", seed=7)
    assert len(rows) == 6, len(rows)
    load(f)
    got = psql("select extract(epoch from start_at)::bigint, "
               "extract(epoch from end_at)::bigint from fleet order by 1")
    want = [[str(T0 + 60 * i), str(T0 + 60 * (i + 1))] for i in range(6)]
    assert got == want, got
    # each minute's sources: 500 in the first (from its 10th second), 600,
    # and the last 100
    c = [float(x[0]) for x in
         psql("select hll_cardinality(src) from fleet order by start_at")]
    assert all(abs(x - y) <= 3 * SE * y + 1 for x, y in
               zip(c, [500, 600, 600, 600, 600, 100])), c
    # the same seed, the same fingerprint; another seed, another
    rows2, _ = sketches(cap, "iv", None, every="1m", seed=8)
    assert rows[0][1] != rows2[0][1] and rows[0][4] != rows2[0][4]
    assert rows[0][0] == "iv" and rows[0][2].endswith("Z")


@test
def bad_key_files_are_refused():
    cap = capture("bad.pcap", range(10))
    for n in (0, 39, 41):
        p = os.path.join(TMP, f"k{n}")
        with open(p, "wb") as f:
            f.write(b"\x01" * n)
        r = subprocess.run([SIM, "--pcap", cap, "--sketches",
                            os.path.join(TMP, "x.csv"), "--sources-key", p],
                           capture_output=True, timeout=60)
        assert r.returncode != 0 and b"a key is 40 random bytes" in r.stderr, r
        assert not os.path.exists(os.path.join(TMP, "x.csv"))


if __name__ == "__main__":
    try:
        PG.start()
        rc = run_all()
    finally:
        PG.stop()
    sys.exit(rc)
