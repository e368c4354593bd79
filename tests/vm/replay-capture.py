#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""
replay-capture.py: the host's half of the e2e scenario t_replay (one
verdict, offline and in the kernel), run before the guest boots.

  replay-capture.py BUILD_DIR

writes BUILD_DIR/replay/:

  in.pcap        a capture made by Debian's text2pcap (classic pcap,
                 Ethernet) from frames generated here with a fixed seed:
                 IPv4 and IPv6, UDP and TCP, exact copies, copies whose
                 TTL (hop limit) and IPv4 checksum changed, copies missing
                 from the gap the filter forgets over, ARP and other
                 non-IP frames, IPv4 frames no key can be taken from;
                 a fifth of the frames behind 802.1Q, 802.1ad or 0x9100
                 QinQ tags or MPLS labels (a copy from another tap may
                 carry other ones); a fifth of the copies, and some
                 first sightings, inside a tunnel (VXLAN, GENEVE, GRE,
                 gretap, ERSPAN II and III, GTP-U, IPIP, SIT) from one of
                 two mirrors, which decap all looks into
  expected.pcap  dedup-sim --write on it: the frames the module in drop
                 mode must let through, with the filter settings and seed
                 of settings.sh (a filter small enough to err: false
                 positives and false negatives)
  other.pcap     the same with another seed (the control: it differs)
  settings.sh    for the guest: the dedupctl settings, the seed and the
                 counts the capture was built with and dedup-sim found

The filter settings are given whole (max, k, p), so that the module's
planner and the simulator's cannot choose differently; both take the seed
through pd_filter_seed().
"""
import json
import os
import random
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "scripts", "lib"))
from packets import csum, text2pcap  # noqa: E402  (scripts/lib/packets.py)
import tunnels as tn  # noqa: E402  (scripts/lib/tunnels.py)

SEED = 0x5eed2026          # the fixed seed, the module's and dedup-sim's
OTHER_SEED = SEED + 1      # the control
# the default key of every byte (tails past 128 bytes NH-compressed under
# the seed's NH key, as dedup-sim draws it)
KEY = ["key", "packet", "payload", "all", "decap", "all"]
# 4096 one-bit cells for about 2600 distinct packets: the filter errs both
# ways (new packets taken for copies, copies forgotten over long gaps)
FILTER = ["filter", "sbf", "mem", "512", "max", "1", "k", "3", "p", "6"]
# scope shared in shards: the module's filter in 8 shards of 64 bytes
SHARDS = 8
GEN_SEED = 20261124        # the capture's own randomness
N_DISTINCT = 2600


def mac(host):
    return bytes([0x02, 0, 0, 0, host >> 8, host & 0xff])


def l4(rng, proto, src, dst, v6, i):
    """a UDP or TCP segment with its checksum over the pseudo-header"""
    payload = bytes(rng.getrandbits(8) for _ in range(rng.choice((0, 8, 33, 64, 120, 200, 700))))
    sport, dport = 1024 + i % 50000, rng.choice((53, 80, 443, 9000, 5060))
    if proto == 17:
        seg = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
        off = 6
    else:
        seg = struct.pack("!HHIIBBHHH", sport, dport, rng.getrandbits(32),
                          rng.getrandbits(32), 5 << 4, 0x18, 65535, 0, 0) + payload
        off = 16
    if v6:
        pseudo = src + dst + struct.pack("!IxxxB", len(seg), proto)
    else:
        pseudo = src + dst + struct.pack("!xBH", proto, len(seg))
    c = csum(pseudo + seg) or (0xffff if proto == 17 else 0)
    return seg[:off] + struct.pack("!H", c) + seg[off + 2:]


def packet(rng, i):
    """distinct packet i: (ethernet header fields, IP packet, is it v6)"""
    v6 = rng.random() < 0.35
    proto = 6 if rng.random() < 0.4 else 17
    if v6:
        src = bytes.fromhex("fd000000000000000000000000") + struct.pack("!BH", rng.randrange(4), rng.randrange(65536))
        dst = bytes.fromhex("fd000000000000000000000001") + struct.pack("!BH", rng.randrange(4), rng.randrange(65536))
        seg = l4(rng, proto, src, dst, True, i)
        ip = struct.pack("!IHBB", 6 << 28 | (i & 0xfffff), len(seg), proto, 64) + src + dst + seg
    else:
        src = bytes([10, 1, rng.randrange(4), rng.randrange(1, 255)])
        dst = bytes([10, 2, rng.randrange(4), rng.randrange(1, 255)])
        seg = l4(rng, proto, src, dst, False, i)
        hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(seg), i & 0xffff,
                          0x4000, 64, proto, 0, src, dst)
        ip = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:] + seg
    hosts = (rng.randrange(1, 5), rng.randrange(0x100, 0x110))
    return hosts, ip, v6


def rewritten(ip, v6, how):
    """a copy as another tap saw it: TTL (hop limit) one less, the IPv4
    checksum recomputed, or only the checksum changed"""
    b = bytearray(ip)
    if v6:
        b[7] -= 1
        return bytes(b)
    if how == "ttl":
        b[8] -= 1
        b[10:12] = b"\0\0"
        b[10:12] = struct.pack("!H", csum(bytes(b[:20])))
    else:
        b[10] ^= 0x5a
    return bytes(b)


def encap(rng, macs, v6, built):
    """the link header after the MACs: most frames untagged; some with an
    802.1Q tag (the kernel takes it off before the module's L2 hooks),
    802.1ad or 0x9100 over 802.1Q (the inner tag stays on), or an MPLS
    stack of one or two labels (the module looks through those)"""
    ip = struct.pack("!H", 0x86dd if v6 else 0x0800)
    r = rng.random()
    if r < 0.80:
        return macs + ip
    if r < 0.87:
        built["vlan"] += 1
        return macs + struct.pack("!HH", 0x8100, 10) + ip
    if r < 0.92:
        built["qinq"] += 1
        return macs + struct.pack("!HHHH", 0x88a8, 100, 0x8100, 10) + ip
    if r < 0.95:
        built["qinq"] += 1
        return macs + struct.pack("!HHHH", 0x9100, 7, 0x8100, 20) + ip
    built["mpls"] += 1
    labels = [16 << 12 | 64] * rng.choice((1, 2))
    labels[-1] |= 1 << 8          # bottom of stack
    return macs + b"\x88\x47" + b"".join(struct.pack("!I", x) for x in labels)


TUNNELS = ("vxlan", "geneve", "gre", "gretap", "erspan2", "erspan3", "gtpu",
           "ip")


def tunnelled(rng, ip, macs, built):
    """ip inside a tunnel from one of two mirrors (outer source and
    session differ), as an Ethernet frame; counted by encapsulation"""
    kind = rng.choice(TUNNELS)
    m = rng.choice((1, 2))
    src, dst = (192, 0, 2, m), (192, 0, 2, 100)
    frame = tn.eth(tn.ethertype_of(ip), ip)
    sport = 40000 + rng.randrange(1000)
    if kind == "vxlan":
        outer = tn.over_ipv4(tn.UDP, (sport, tn.VXLAN_PORT, tn.vxlan(40 + m, frame)), src, dst)
    elif kind == "geneve":
        opts = tn.geneve_opt(0x0108, 1, bytes(8))
        outer = tn.over_ipv4(tn.UDP, (sport, tn.GENEVE_PORT, tn.geneve(m, tn.ETH_TEB, frame, opts)), src, dst)
    elif kind == "gre":
        outer = tn.over_ipv4(tn.GRE, tn.gre(tn.ethertype_of(ip), ip, key=m), src, dst)
    elif kind == "gretap":
        outer = tn.over_ipv4(tn.GRE, tn.gre(tn.ETH_TEB, frame, key=m, seq=rng.randrange(1 << 32)), src, dst)
    elif kind == "erspan2":
        outer = tn.over_ipv4(tn.GRE, tn.erspan2(m, frame, seq=rng.randrange(1 << 32)), src, dst)
    elif kind == "erspan3":
        sub = tn.erspan3_platform() if rng.random() < 0.5 else None
        outer = tn.over_ipv4(tn.GRE, tn.erspan3(m, frame, seq=rng.randrange(1 << 32), subheader=sub), src, dst)
    elif kind == "gtpu":
        ext = (tn.pdu_session(),) if rng.random() < 0.5 else ()
        outer = tn.over_ipv4(tn.UDP, (tn.GTPU_PORT, tn.GTPU_PORT, tn.gtpu(0x100 + m, ip, ext)), src, dst)
    else:
        outer = tn.over_ipv4(tn.IPV6 if ip[0] >> 4 == 6 else tn.IPIP, ip, src, dst)
    built["tunnels"] += 1
    name = {"gretap": "gre", "erspan2": "erspan", "erspan3": "erspan"}.get(kind, kind)
    built["tun_" + name] = built.get("tun_" + name, 0) + 1
    return macs + struct.pack("!H", 0x0800) + outer


def frames():
    """the capture's frames, in order, and how it was built"""
    rng = random.Random(GEN_SEED)
    slots = {}
    built = {"distinct": 0, "exact": 0, "ttl": 0, "checksum": 0,
             "arp": 0, "nonip": 0, "bad": 0, "vlan": 0, "qinq": 0, "mpls": 0,
             "tunnels": 0}
    out = []
    pending = []   # (position, frame)
    pos = 0
    for i in range(N_DISTINCT):
        (s, d), ip, v6 = packet(rng, i)
        eth = encap(rng, mac(d) + mac(s), v6, built)
        if rng.random() < 0.05:
            pending.append((pos, tunnelled(rng, ip, mac(d) + mac(s), built)))
        else:
            pending.append((pos, eth + ip))
        built["distinct"] += 1
        r = rng.random()
        if r < 0.45:
            # copies: most close behind, some far (the filter forgets those)
            gap = rng.choice((1, 2, 5, 20, 100)) if rng.random() < 0.7 else rng.randrange(500, 3000)
            kind = rng.choices(("exact", "ttl", "checksum"), (6, 3, 1))[0]
            copy = ip if kind == "exact" else rewritten(ip, v6, kind)
            # from another tap half the time: other tags, the same packet
            ceth = encap(rng, mac(d) + mac(s), v6, built) if rng.random() < 0.5 else eth
            if rng.random() < 0.2:
                cf = tunnelled(rng, copy, mac(d) + mac(s), built)
            else:
                cf = ceth + copy
            pending.append((pos + gap + rng.random(), cf))
            built[kind] += 1
        if rng.random() < 0.01:
            # ARP requests and replies, and a frame of a local experimental
            # ethertype: passed by the module, written by dedup-sim
            arp = struct.pack("!HHBBH", 1, 0x0800, 6, 4, rng.choice((1, 2))) + mac(s) + bytes([10, 1, 0, s]) + bytes(6) + bytes([10, 2, 0, d & 0xff])
            pending.append((pos + 0.5, b"\xff" * 6 + mac(s) + b"\x08\x06" + arp + bytes(18)))
            built["arp"] += 1
        if rng.random() < 0.004:
            pending.append((pos + 0.6, mac(d) + mac(s) + b"\x88\xb5" + bytes(range(46))))
            built["nonip"] += 1
        if rng.random() < 0.004:
            # IPv4 whose header length is below 20: no key; passed
            bad = bytearray(ip)
            bad[0] = 0x43
            pending.append((pos + 0.7, eth + bytes(bad)))
            built["bad"] += 1
        pos += 1
    pending.sort(key=lambda x: x[0])
    out = [f for _, f in pending]
    built["frames"] = len(out)
    return out, built


def sim(build, pcap, seed, out, shards=None, shared=False, layout=None):
    """dedup-sim --write OUT on the capture; its JSON report (exact truth)"""
    args = [os.path.join(build, "dedup-sim"), "--stream", "pcap", "--pcap", pcap,
            "--seed", str(seed), "--json", "--write", out]
    if shards:
        args += ["--shards", str(shards)]
    if shared:
        args += ["--shared"]
    if layout:
        args += ["--layout", layout]
    for k, v in zip(KEY[::2], KEY[1::2]):
        args += ["--" + k, v]
    for k, v in zip(FILTER[::2], FILTER[1::2]):
        args += ["--" + ("algo" if k == "filter" else k), v]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"replay-capture: {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    d = os.path.join(build, "replay")
    os.makedirs(d, exist_ok=True)
    fr, built = frames()
    pcap = os.path.join(d, "in.pcap")
    # a time per frame, 10 us apart
    try:
        text2pcap(fr, pcap, lambda n: 1700000000 * 1000000 + 10 * n)
    except RuntimeError as e:
        sys.exit(f"replay-capture: {e}")
    j = sim(build, pcap, SEED, os.path.join(d, "expected.pcap"))
    jo = sim(build, pcap, OTHER_SEED, os.path.join(d, "other.pcap"))
    js = sim(build, pcap, SEED, os.path.join(d, "expected-sharded.pcap"), SHARDS)
    sharded_passed = built["frames"] - (js["false_positives"] + js["duplicates"] - js["false_negatives"])
    # scope shared, shards auto: the SBF lock-free, its layout auto line
    jl = sim(build, pcap, SEED, os.path.join(d, "expected-shared.pcap"), shared=True)
    # the layout the module must build (layout auto: blocked alone) decides
    # the verdicts: the flat layout's output differs
    jf = sim(build, pcap, SEED, os.path.join(d, "flat.pcap"), layout="flat")
    shared_passed = built["frames"] - (jl["false_positives"] + jl["duplicates"] - jl["false_negatives"])
    said = j["false_positives"] + j["duplicates"] - j["false_negatives"]
    passed = built["frames"] - said
    exact = built["frames"] - j["duplicates"]
    copies = built["exact"] + built["ttl"] + built["checksum"]
    unkeyed = built["arp"] + built["nonip"] + built["bad"]
    # what the capture was built with is what dedup-sim must find
    problems = []
    if j["n"] != built["frames"] - unkeyed:
        problems.append(f"dedup-sim keyed {j['n']} frames, the capture has {built['frames'] - unkeyed} IP frames")
    if j["duplicates"] != copies:
        problems.append(f"dedup-sim's truth has {j['duplicates']} copies, the capture {copies}")
    frames_of = j["decap"]["frames"]
    for name in sorted(frames_of):
        if frames_of[name] != built.get("tun_" + name, 0):
            problems.append(f"dedup-sim decapsulated {frames_of[name]} {name} frames, the capture has {built.get('tun_' + name, 0)}")
    if not (j["false_positives"] and j["false_negatives"]):
        problems.append("the filter made no false positive or no false negative: agreeing with it would be agreeing with exact de-duplication")
    if passed == exact:
        problems.append("as many frames pass as exact de-duplication passes")
    if open(os.path.join(d, "expected.pcap"), "rb").read() == open(os.path.join(d, "other.pcap"), "rb").read():
        problems.append(f"seed {OTHER_SEED} gives the same output as seed {SEED}")
    if js.get("shards") != SHARDS:
        problems.append(f"dedup-sim built {js.get('shards')} shards, not {SHARDS}")
    if open(os.path.join(d, "expected.pcap"), "rb").read() == open(os.path.join(d, "expected-sharded.pcap"), "rb").read():
        problems.append(f"{SHARDS} shards give the same output as one filter")
    if (j.get("layout"), jl.get("layout"), js.get("layout"), jf.get("layout")) != ("blocked", "line", "line", "flat"):
        problems.append(f"layout auto: {j.get('layout')} alone, {jl.get('layout')} shared, {js.get('layout')} in shards, {jf.get('layout')} asked flat (want blocked, line, line, flat)")
    if open(os.path.join(d, "expected.pcap"), "rb").read() == open(os.path.join(d, "flat.pcap"), "rb").read():
        problems.append("the flat layout gives the same output as the blocked one")
    with open(os.path.join(d, "settings.sh"), "w") as f:
        f.write("# SPDX-License-Identifier: GPL-2.0\n"
                "# written by tests/vm/replay-capture.py: t_replay's settings and counts\n")
        f.write(f"REPLAY_SEED={SEED}\nREPLAY_OTHER_SEED={OTHER_SEED}\n")
        f.write(f"REPLAY_SET=\"{' '.join(KEY + FILTER)}\"\n")
        for k, v in built.items():
            if not k.startswith("tun_"):
                f.write(f"REPLAY_{k.upper()}={v}\n")
        # the frames of each encapsulation: the module's /proc decap lines
        f.write("REPLAY_DECAP=\"" + " ".join(f"{n}:{frames_of[n]}" for n in sorted(frames_of)) + "\"\n")
        f.write(f"REPLAY_SHARDS={SHARDS}\nREPLAY_SHARDED_PASSED={sharded_passed}\n")
        f.write(f"REPLAY_SHARED_PASSED={shared_passed}\n")
        f.write(f"REPLAY_PASSED={passed}\nREPLAY_EXACT_PASSED={exact}\n"
                f"REPLAY_FP={j['false_positives']}\nREPLAY_FN={j['false_negatives']}\n"
                f"REPLAY_OTHER_FP={jo['false_positives']}\nREPLAY_OTHER_FN={jo['false_negatives']}\n")
    print(f"replay-capture: {built['frames']} frames ({built['distinct']} distinct IP packets, "
          f"{built['exact']} exact copies, {built['ttl']} with another TTL, {built['checksum']} "
          f"with another checksum, {built['arp']} ARP, {built['nonip']} other non-IP, {built['bad']} unkeyable; "
          f"{built['vlan']} behind 802.1Q, {built['qinq']} behind QinQ, {built['mpls']} behind MPLS, "
          f"{built['tunnels']} in tunnels); "
          f"seed {SEED}: {passed} pass (exact de-duplication: {exact}; fp {j['false_positives']}, "
          f"fn {j['false_negatives']}); seed {OTHER_SEED}: fp {jo['false_positives']}, fn {jo['false_negatives']}; "
          f"{SHARDS} shards: {sharded_passed} pass (fp {js['false_positives']}, fn {js['false_negatives']})")
    if problems:
        sys.exit("replay-capture: " + "; ".join(problems))


if __name__ == "__main__":
    main()
