#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# make bench-kernel's report: reads the CFG and RUN lines the UML guest
# wrote (eval/bench-kernel/guest.sh), prints the table and writes the
# JSON array, then checks what the counters must say for the harness to
# measure what it claims, and ends with "N passed, N failed".
#
# Each configuration was measured in pairs of runs, one into a namespace
# with no hook and one into the configured namespace, back to back: its
# ratio is the median of the pairs' ratios and its added time the median
# of their differences (UML's run-to-run noise is larger than most
# differences between configurations, but common to both runs of a pair);
# ns_per_packet is the median of its own runs.
#
# Every expected count derives from how the traffic was built: pktgen was
# asked for `count` packets (whole cycles of `flows` distinct flows or
# sources), and before the timed runs of a configuration that remembers
# (pktdedup, an nft set, xt_recent) one whole cycle went through it.
#
# The size rows (names ending in the frame size, e.g. -1500b) send every
# packet of the boot distinct: pktdedup's duplicates there are its false
# positives, at most its plan's fp_bound (the stable point's) per packet.
#
# Usage: eval/bench-kernel/report.py MODE RAW CONSOLE JSON_OUT
import bisect
import json
import math
import os
import re
import statistics
import sys

mode, raw_path, console_path, json_path = sys.argv[1:5]
# the size rows: pktgen's pkt_size (the Ethernet frame without its FCS)
SIZES = (64, 512, 1500)
SIZE_ROWS = [f"{pre}-{size}b" for size in SIZES
             for pre in ["no-hook"] + [f"pktdedup-{act}-packet{key}-1m"
                                       for act in ("count", "drop")
                                       for key in ("all", "64")]]
SIZE_RE = re.compile(r"^pktdedup-(count|drop)-packet(all|64)-1m-(\d+)b$")
REQUIRED = {
    "full": ["no-hook", "pktdedup-count-flow-1m", "pktdedup-drop-flow-1m",
             "nft-set-flow-1e6"] + SIZE_ROWS,
    "short": ["no-hook", "pktdedup-count-flow-1m", "pktdedup-drop-flow-1m",
              "pktdedup-unselected-flow-1m", "pktdedup-ingress-drop-flow-1m",
              "pktdedup-count-flow-1m-shared", "pktdedup-drop-packetall-1m-1500b",
              "nft-set-flow-1e3"],
    "sizes": SIZE_ROWS,
    "targets": ["no-hook", "nft-count-all", "pktdedup-count-flow-1m",
                "pktdedup-count-flow-1m-nosources", "pktdedup-drop-flow-1m",
                "nft-set-flow-1e6", "nft-set-count-flow-1e6"],
    "placement": ["no-hook", "nft-count-all", "pktdedup-unselected-flow-1m",
                  "pktdedup-count-flow-1m", "pktdedup-ingress-count-flow-1m",
                  "pktdedup-drop-flow-1m", "pktdedup-ingress-drop-flow-1m"],
    "scope": ["no-hook", "nft-count-all", "pktdedup-count-flow-1m",
              "pktdedup-count-flow-1m-shared", "pktdedup-count-flow-1m-sharded",
              "pktdedup-count-flow-1m-onelock",
              "pktdedup-drop-flow-1m", "pktdedup-drop-flow-1m-shared"],
    # the flow key, or the packet key of BENCH_KERNEL_PROFILE
    "profile": [],
    "aa": ["no-hook"],
}[mode]

passed = 0
failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok {what}")
    else:
        failed += 1
        print(f"not ok {what}")


def num(v):
    try:
        return int(v)
    except ValueError:
        return v


def fnum(v):
    """a fraction the guest copied from pktdedup's config ("0.010000000")"""
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


runs, cfgs, discards, totals, errors, ended = [], [], [], [], [], False
module = {}
with open(raw_path, errors="replace") as f:
    for line in f:
        words = line.split()
        if not words:
            continue
        kv = {}
        for w in words[1:]:
            if "=" in w:
                k, v = w.split("=", 1)
                kv[k] = num(v)
        if words[0] == "RUN":
            runs.append(kv)
        elif words[0] == "CFG":
            cfgs.append(kv)
        elif words[0] == "DISCARD":
            discards.append(kv)
        elif words[0] == "TOTAL":
            totals.append(kv)
        elif words[0] == "MODULE":
            module = kv
        elif words[0] == "ERROR":
            errors.append(line.strip())
        elif words[0] == "END":
            ended = kv.get("t", True)

with open(console_path, errors="replace") as f:
    console = f.read()

# ---- the table ----

def ns_per_packet(r):
    return r["usec"] * 1000.0 / r["sent"] if r.get("sent") else 0.0


def quantile(xs, q):
    """linear interpolation between the order statistics"""
    xs = sorted(xs)
    i = q * (len(xs) - 1)
    lo = int(math.floor(i))
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (i - lo)


names = []
for r in runs:
    if r["name"] not in names:
        names.append(r["name"])
cfg_of = {}
for c in cfgs:
    cfg_of.setdefault(c["name"], []).append(c)

out = []
for name in names:
    mine = [r for r in runs if r["name"] == name]
    pairs = {}
    for r in mine:
        pairs.setdefault((r["round"], r["pair"]), {})[r["role"]] = r
    pairs = [p for p in pairs.values() if "base" in p and "cfg" in p and
             ns_per_packet(p["base"]) > 0]
    cfg_ns = [ns_per_packet(r) for r in mine if r["role"] == "cfg"]
    base_ns = [ns_per_packet(r) for r in mine if r["role"] == "base"]
    ratios = [ns_per_packet(p["cfg"]) / ns_per_packet(p["base"]) for p in pairs]
    diffs = [ns_per_packet(p["cfg"]) - ns_per_packet(p["base"]) for p in pairs]
    by_round = {}
    for p in pairs:
        by_round.setdefault(p["cfg"]["round"], []).append(
            ns_per_packet(p["cfg"]) - ns_per_packet(p["base"]))
    med = statistics.median(cfg_ns) if cfg_ns else 0.0
    first = next(r for r in mine if r["role"] == "cfg") if cfg_ns else mine[0]
    row = {
        "name": name,
        "ns_per_packet": round(med, 1),
        "ratio": round(statistics.median(ratios), 3) if ratios else None,
        "added_ns": round(statistics.median(diffs), 1) if diffs else None,
        "no_hook_ns": round(statistics.median(base_ns), 1) if base_ns else None,
        # the middle half of the pairs' ratios
        "ratio_q1": round(quantile(ratios, 0.25), 3) if ratios else None,
        "ratio_q3": round(quantile(ratios, 0.75), 3) if ratios else None,
        # the middle half of the pairs' differences, and their median in
        # each round
        "added_q1": round(quantile(diffs, 0.25), 1) if diffs else None,
        "added_q3": round(quantile(diffs, 0.75), 1) if diffs else None,
        "added_by_round": [round(statistics.median(by_round[k]), 1)
                           for k in sorted(by_round)],
        "pairs": len(pairs),
        "pkt_size": first.get("size", 128),
        "pps": round(1e9 / med) if med else 0,
        "flows": first["flows"],
        "packets_per_run": first["count"],
    }
    cs = cfg_of.get(name, [])
    if cs and "bytes" in cs[0]:
        row["bytes"] = int(statistics.median(c["bytes"] for c in cs))
    if cs and "elements" in cs[0]:
        row["elements"] = cs[0]["elements"]
    cr = [r for r in mine if r["role"] == "cfg"]
    if name.startswith("pktdedup-") and cr:
        row["duplicates"] = int(statistics.median(r["pd_duplicates"] for r in cr))
        row["dropped"] = int(statistics.median(r["pd_dropped"] for r in cr))
    elif name.startswith(("nft-", "xt-")) and cr:
        row["dropped"] = int(statistics.median(r["sent"] - r["routed"] for r in cr))
    out.append(row)


def human(b):
    if b is None:
        return ""
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= size:
            return f"{b / size:.1f} {unit}"
    return f"{b} B"


by_name = {row["name"]: row for row in out}

# ---- the key by packet size ----
# For each frame size and action, what the packet key adds over no hook
# over every byte (payload all) and over 64 payload bytes (payload 64),
# and the ratio of the two added costs: of their medians over all pairs,
# and in each round (of that round's medians).
size_out = []
for size in SIZES:
    for act in ("count", "drop"):
        a = by_name.get(f"pktdedup-{act}-packetall-1m-{size}b")
        b = by_name.get(f"pktdedup-{act}-packet64-1m-{size}b")
        if not a or not b or a["added_ns"] is None or b["added_ns"] is None:
            continue
        nh = by_name.get(f"no-hook-{size}b")
        base = [ns_per_packet(r) for r in runs if r["role"] == "base" and
                r["name"] in (a["name"], b["name"])]

        def over(x, y):
            return round(x / y, 2) if y > 0 else None
        size_out.append({
            "name": f"key-size-{act}-{size}b",
            "pkt_size": size, "ip_size": size - 14, "action": act,
            "no_hook_ns": round(statistics.median(base), 1) if base else None,
            "aa_ratio": nh["ratio"] if nh else None,
            "added_ns_payload64": b["added_ns"],
            "added_iqr_payload64": [b["added_q1"], b["added_q3"]],
            "ratio_payload64": b["ratio"],
            "added_ns_all": a["added_ns"],
            "added_iqr_all": [a["added_q1"], a["added_q3"]],
            "ratio_all": a["ratio"],
            "all_minus_64_ns": round(a["added_ns"] - b["added_ns"], 1),
            "all_over_64": over(a["added_ns"], b["added_ns"]),
            "all_over_64_by_round": [over(x, y) for x, y in
                                     zip(a["added_by_round"], b["added_by_round"])],
            "duplicates_all": a.get("duplicates"),
            "duplicates_payload64": b.get("duplicates"),
            "dropped_all": a.get("dropped"),
            "dropped_payload64": b.get("dropped"),
        })

with open(json_path, "w") as f:
    json.dump(out + size_out, f, indent=1)
    f.write("\n")

# the summary line's no hook: the default frame size's runs (the size
# rows' own are in their table)
all_base = [ns_per_packet(r) for r in runs if r["role"] == "base" and
            r.get("size", 128) == 128] or \
    [ns_per_packet(r) for r in runs if r["role"] == "base"]
print(f"bench-kernel ({mode}): {len(runs)} timed runs of "
      f"{runs[0]['count'] if runs else 0} packets; no hook "
      f"{statistics.median(all_base) if all_base else 0:.1f} ns/packet "
      f"(median of {len(all_base)}, {min(all_base, default=0):.0f} to "
      f"{max(all_base, default=0):.0f})")
if discards:
    print(f"{len(discards) // 2} pair(s) run again after backlog drops "
          f"({sum(d['backlog_drops'] for d in discards)} packets dropped unprocessed)")
print("ratio and +ns: medians over the pairs (a run into the no-hook "
      "namespace and one into the configured one, back to back);\n"
      "ratio IQR: the middle half of the pairs' ratios; no hook: the median "
      "of the configuration's no-hook runs")
print(f"| {'configuration':<32} | {'ns/packet':>9} | {'no hook':>7} | {'ratio':>6} | "
      f"{'ratio IQR':>11} | {'+ns':>6} | {'memory':>9} | {'flows':>7} | "
      f"{'duplicates':>10} | {'dropped':>9} |")
print(f"|{'-' * 34}|{'-' * 11}|{'-' * 9}|{'-' * 8}|{'-' * 13}|{'-' * 8}|"
      f"{'-' * 11}|{'-' * 9}|{'-' * 12}|{'-' * 11}|")
for row in out:
    rng = f"{row['ratio_q1'] or 0:.2f}-{row['ratio_q3'] or 0:.2f}"
    print(f"| {row['name']:<32} | {row['ns_per_packet']:>9.1f} | "
          f"{row['no_hook_ns'] or 0:>7.1f} | {(row['ratio'] or 0):>5.2f}x | {rng:>11} | "
          f"{row['added_ns'] or 0:>6.0f} | {human(row.get('bytes')):>9} | "
          f"{row['flows']:>7} | {row.get('duplicates', ''):>10} | {row.get('dropped', ''):>9} |")
print(f"(JSON: {json_path})")
print()

if size_out:
    print("the key by packet size: pktgen's pkt_size is the Ethernet frame "
          "without its FCS (IP packet: 14 bytes less); every packet distinct;\n"
          "pktdedup at prerouting, 1 MiB, packet key over every byte (all) "
          "or over the headers and 64 payload bytes (64);\n"
          "+ns: median (IQR) over the pairs of what the hook adds to no hook "
          "of the same size; all/64: the ratio of the medians, then per round")
    print(f"| {'frame':>5} | {'IP':>4} | {'action':<6} | {'no hook':>7} | "
          f"{'A/A':>5} | {'+ns, payload 64':>20} | {'+ns, every byte':>20} | "
          f"{'all-64':>6} | {'all/64':>6} | {'by round':>14} |")
    print(f"|{'-' * 7}|{'-' * 6}|{'-' * 8}|{'-' * 9}|{'-' * 7}|{'-' * 22}|"
          f"{'-' * 22}|{'-' * 8}|{'-' * 8}|{'-' * 16}|")

    def added(v, iqr):
        return f"{v:.0f} ({iqr[0]:.0f} to {iqr[1]:.0f})"

    def rat(v):
        return f"{v:.2f}" if v is not None else "-"
    for r in size_out:
        print(f"| {r['pkt_size']:>5} | {r['ip_size']:>4} | {r['action']:<6} | "
              f"{r['no_hook_ns'] or 0:>7.1f} | {rat(r['aa_ratio']):>5} | "
              f"{added(r['added_ns_payload64'], r['added_iqr_payload64']):>20} | "
              f"{added(r['added_ns_all'], r['added_iqr_all']):>20} | "
              f"{r['all_minus_64_ns']:>6.0f} | {rat(r['all_over_64']):>6} | "
              f"{', '.join(rat(x) for x in r['all_over_64_by_round']):>14} |")
    print()

# ---- issue 11's targets, from this run ----
# pktdedup count, flow key, 1 MiB per CPU, defaults: at most 15% above no
# hook, and at least 3x cheaper per packet than nftables set
# de-duplication at 10^6 flows: what each adds to the no-hook cost (the
# ratio of the whole packets' costs is also printed: the receive path
# under UML is most of both)
pd, nft = by_name.get("pktdedup-count-flow-1m"), by_name.get("nft-set-flow-1e6")
nft_c = by_name.get("nft-set-count-flow-1e6")
if pd and pd["ratio"]:
    print(f"target: pktdedup-count-flow-1m {pd['ratio']:.3f}x no hook "
          f"(+{(pd['ratio'] - 1) * 100:.1f}%, +{pd['added_ns']:.0f} ns; "
          f"target <= 1.15x): {'met' if pd['ratio'] <= 1.15 else 'NOT met'}")
for other in (nft, nft_c):
    if pd and other and pd["added_ns"] and other["added_ns"]:
        per = other["added_ns"] / max(pd["added_ns"], 1e-9)
        print(f"target: {other['name']} adds {other['added_ns']:.0f} ns, "
              f"pktdedup {pd['added_ns']:.0f} ns: {per:.2f}x "
              f"(whole packet {other['ns_per_packet'] / pd['ns_per_packet']:.2f}x; "
              f"target >= 3x added): {'met' if per >= 3 else 'NOT met'}; "
              f"memory {human(other.get('bytes'))} vs {human(pd.get('bytes'))}")
if pd or nft:
    print()

# ---- profile: pktdedup.ko's CPU time per packet, from perf's samples ----
# perf sampled UML's processes every 100 us of their CPU time (cpu-clock);
# UML's kernel runs in a host process at its own virtual addresses, so a
# sample's address inside pktdedup.ko's text (its base from the guest's
# /sys/module) names the module's function. Every packet of the
# configuration went through pktdedup: the fill (one cycle of the flows)
# and the timed runs into it; nothing else ran the module's code.
PARTS = [
    ("hook", ("pd_hook", "pd_process", "pd_skb_key", "pd_step")),
    ("parse and key", ("pd_parse", "pd_key_")),
    # the packet key's tail past 128 bytes: NH, read where it is
    ("tail (NH)", ("pd_nh_", "pd_skb_feed")),
    ("hash", ("pd_hash", "pd_sip", "pd_filter_hash", "pd_mul128")),
    ("filter (SBF step)", ("pd_sbf_", "pd_filter_", "pd_fam_")),
    ("source analytics", ("pd_srcs_", "pd_srcwin_", "pd_hll_", "pd_addr", "pd_ring_")),
]
prof_rows = []
if mode == "profile":
    folder = os.path.dirname(raw_path)
    samples = {}
    uml_samples = 0
    try:
        syms = []
        with open(os.path.join(folder, "pktdedup.nm")) as f:
            for line in f:
                w = line.split()
                if len(w) >= 3 and w[1] in "tT":
                    syms.append((int(w[0], 16), w[2]))
        syms.sort()
        addrs = [s[0] for s in syms]
        base = int(str(module.get("text", "0")), 16)
        text_end = base + (addrs[-1] + 4096 if addrs else 0)
        with open(os.path.join(folder, "perf.txt"), errors="replace") as f:
            for line in f:
                w = line.split()
                try:
                    ip = int(w[0], 16)
                except (ValueError, IndexError):
                    continue
                if base and base <= ip < text_end:
                    i = bisect.bisect_right(addrs, ip - base) - 1
                    fn = syms[i][1] if i >= 0 else "?"
                    samples[fn] = samples.get(fn, 0) + 1
                elif line.rstrip().endswith("/linux)"):
                    uml_samples += 1
    except OSError as e:
        print(f"profile: {e}")
    pkts = sum(r["pd_packets"] for r in runs if r["role"] == "cfg") + \
        sum(c["flows"] for c in cfgs if c["name"].startswith("pktdedup-"))
    total = sum(samples.values())
    print(f"profile: pktdedup.ko's CPU time under perf (a sample per 100 us "
          f"of UML's CPU time): {total} samples over {pkts} packets")
    print(f"| {'part':<20} | {'samples':>7} | {'ns/packet':>9} | {'share':>6} | functions |")
    print(f"|{'-' * 22}|{'-' * 9}|{'-' * 11}|{'-' * 8}|-----------|")
    left = dict(samples)
    for part, prefixes in PARTS + [("other", ("",))]:
        fns = sorted((fn for fn in left if fn.startswith(prefixes)),
                     key=lambda fn: -left[fn])
        n = sum(left.pop(fn) for fn in fns)
        ns = n * 100000.0 / pkts if pkts else 0.0
        prof_rows.append({"name": f"profile-{part.split()[0]}",
                          "ns_per_packet": round(ns, 1), "samples": n})
        print(f"| {part:<20} | {n:>7} | {ns:>9.1f} | "
              f"{100.0 * n / total if total else 0:>5.1f}% | "
              f"{', '.join(f'{fn} {samples[fn]}' for fn in fns[:4])} |")
    ns = total * 100000.0 / pkts if pkts else 0.0
    prof_rows.append({"name": "profile-pktdedup", "ns_per_packet": round(ns, 1),
                      "samples": total})
    print(f"| {'pktdedup.ko':<20} | {total:>7} | {ns:>9.1f} | 100.0% | |")
    # the kernel's own code (UML's binary: pktgen, veth, IP, routing, the
    # hook machinery; its boot and the configuration too) per packet sent
    # in the boot: how fast this run's CPU was, against which pktdedup's
    # share is steadier than its ns
    sent = sum(r["sent"] for r in runs + discards) + \
        sum(c["flows"] for c in cfgs if c["name"].startswith("pktdedup-"))
    kns = uml_samples * 100000.0 / sent if sent else 0.0
    prof_rows.append({"name": "profile-kernel", "ns_per_packet": round(kns, 1),
                      "samples": uml_samples})
    print(f"the kernel's own code: {uml_samples} samples over {sent} packets "
          f"sent, {kns:.1f} ns/packet; pktdedup.ko per packet it saw / that: "
          f"{ns / kns if kns else 0:.3f}")
    print()
    with open(json_path, "w") as f:
        json.dump(out + prof_rows, f, indent=1)
        f.write("\n")

# ---- the checks ----

def tolerance(n, p):
    """n * p plus 4 binomial standard deviations plus one (as the e2e suite)"""
    m = n * p
    return int(m + 4 * math.sqrt(m * (1 - p)) + 1)


check(ended, "the guest ran to its end (END in raw.txt)")
check(not errors, "the guest reported no errors" +
      ("".join(f"\n    {e}" for e in errors[:10]) if errors else ""))
bad = re.findall(r".*(?:Oops|BUG:|WARNING:|Call Trace|Kernel panic).*", console)
check(not bad, "the kernel logged no oops, BUG, WARNING or panic" +
      ("".join(f"\n    {b}" for b in bad[:5]) if bad else ""))
for name in REQUIRED:
    row = by_name.get(name)
    check(row is not None and row["ns_per_packet"] > 0 and row["pairs"] > 0,
          f"row {name} present, ns_per_packet > 0, measured in pairs")

for c in cfgs:
    n, problems = c["name"], []
    if n.startswith("pktdedup-"):
        if c.get("hooks") != "registered":
            problems.append("pktdedup's hooks were not registered")
        # dedupctl sources off holds nothing for them; on, something
        if (c.get("src_bytes") == 0) != (c.get("src") == "off"):
            problems.append(f"source analytics {c.get('src')} hold "
                            f"{c.get('src_bytes')} bytes")
    if n.startswith(("nft-set-", "xt-")):
        if "elements" in c and c["elements"] != c["flows"]:
            problems.append(f"the set or list holds {c['elements']} entries, "
                            f"{c['flows']} flows were sent")
        if c.get("bytes", 0) <= 0:
            problems.append(f"its memory grew by {c.get('bytes')} bytes")
    m = SIZE_RE.match(n)
    if m or n.startswith("no-hook-"):
        # the size and the key as named, every packet distinct
        want_size = int(m.group(3)) if m else int(n[len("no-hook-"):-1])
        if c.get("size") != want_size or c.get("distinct") != 1:
            problems.append(f"size {c.get('size')}, distinct {c.get('distinct')}: "
                            f"not {want_size}, 1")
        # /proc/net/pktdedup/config says "payload all" for every byte
        if m and (c.get("key") != "packet" or c.get("action") != m.group(1) or
                  c.get("payload") not in (("all", 65535) if m.group(2) == "all"
                                           else (64,))):
            problems.append(f"key {c.get('key')} payload {c.get('payload')} "
                            f"action {c.get('action')}")
        for r in runs:
            if r["name"] == n and r["round"] == c["round"] and \
                    (r.get("size"), r.get("distinct")) != (want_size, 1):
                problems.append(f"pair {r['pair']} ({r['role']}) sent "
                                f"{r.get('size')}-byte frames, distinct "
                                f"{r.get('distinct')}")
    check(not problems, f"{n} (round {c['round']}) configured" +
          "".join(f"\n    {p}" for p in problems))

for r in runs:
    n, s = r["name"], r["sent"]
    cfg = r["role"] == "cfg"
    problems = []

    def want(cond, what):
        if not cond:
            problems.append(what)

    # pktgen sent what it was asked, and the receiver's IP layer saw
    # exactly those packets (no other traffic), all of them inside the
    # sender's local_bh_enable(): no backlog drop
    want(s == r["count"] and r["errors"] == 0,
         f"pktgen sent {s} of {r['count']} ({r['errors']} errors)")
    # a copy dropped at ingress never reaches the IP layer
    ingress_dropped = r["pd_dropped"] if cfg and n.startswith("pktdedup-ingress-") else 0
    want(r["rx"] == s - ingress_dropped,
         f"Ip InReceives {r['rx']} != sent {s} - dropped at ingress {ingress_dropped}")
    want(r["backlog_drops"] == 0, f"{r['backlog_drops']} backlog drops")
    if not cfg or n.startswith("no-hook"):
        want(r["pd_packets"] == 0, f"an idle pktdedup saw {r['pd_packets']} packets")
        want(r["routed"] == s, f"blackholed {r['routed']} != sent {s}")
    elif n.startswith("pktdedup-unselected-"):
        # not selected: not counted, not touched
        want(r["pd_packets"] == 0 and r["pd_unparsed"] == 0,
             f"an unselected packet was counted ({r['pd_packets']} packets, "
             f"{r['pd_unparsed']} unparsed)")
        want(r["routed"] == s, f"blackholed {r['routed']} != sent {s}")
    elif n.startswith("pktdedup-"):
        want(r["pd_packets"] == s, f"pktdedup saw {r['pd_packets']} != sent {s}")
        want(r["pd_unparsed"] == 0, f"{r['pd_unparsed']} unparsed")
        if "-drop-" in n:
            want(r["pd_dropped"] == r["pd_duplicates"],
                 f"dropped {r['pd_dropped']} != duplicates {r['pd_duplicates']}")
        else:
            want(r["pd_dropped"] == 0, f"count mode dropped {r['pd_dropped']}")
        # what passed pktdedup reached the routing lookup
        want(r["routed"] == s - r["pd_dropped"],
             f"blackholed {r['routed']} != sent - dropped {s - r['pd_dropped']}")
        # every packet of a timed run repeats the flow sent `flows`
        # packets before it (a whole cycle went through first): the flat
        # SBF misses one with probability at most K P gap / m (not under
        # key packet: pktgen numbers its packets, each one is new)
        c = next((c for c in cfgs if c["name"] == n and c["round"] == r["round"]), {})
        if c.get("filter") == "sbf" and c.get("layout") in ("flat", "", None) \
                and c.get("key") == "flow":
            rate = c["k"] * c["p"] * r["flows"] / c["cells"]
            if rate < 1:
                tol = tolerance(s, rate)
                want(r["pd_duplicates"] >= s - tol,
                     f"duplicates {r['pd_duplicates']} < {s} - {tol} "
                     f"(FN bound {rate:.5f} at a gap of {r['flows']})")
        # every packet distinct: what the filter takes for a copy is a
        # false positive, at most the plan's FP rate at the stable point
        # (the filter fills towards it from empty)
        fp = fnum(c.get("fp_bound"))
        if r.get("distinct") == 1:
            if fp is None:
                problems.append("no fp_bound in the configuration")
            else:
                tol = tolerance(s, fp)
                want(r["pd_duplicates"] <= tol,
                     f"duplicates {r['pd_duplicates']} > {tol} of {s} distinct "
                     f"packets (fp_bound {fp:.5f})")
    elif n.startswith("nft-"):
        # dropping: nothing reaches the routing lookup; counting: all
        want(r["routed"] == (s if "-count-" in n else 0), f"blackholed {r['routed']}")
    elif n.startswith("xt-recent-"):
        want(r.get("xt_dropped") == s, f"the DROP rule took {r.get('xt_dropped')} of {s}")
        want(r["routed"] == 0, f"blackholed {r['routed']}")
    check(not problems, f"{n} (round {r['round']}, pair {r['pair']}, {r['role']}): "
          "counters agree" + "".join(f"\n    {p}" for p in problems))

# nft's rule counters over a round: the set was filled by one cycle of the
# flows, so every packet of the timed runs (those run again after backlog
# drops too) is in the set, and only the fill added to it
for t in totals:
    n = t["name"]
    sent = sum(r["sent"] for r in runs + discards
               if r["name"] == n and r["round"] == t["round"] and r["role"] == "cfg")
    flows = next((c["flows"] for c in cfgs if c["name"] == n), 0)
    problems = []
    if t.get("nft_hit") != sent:
        problems.append(f"the hit rule counted {t.get('nft_hit')} of the {sent} packets of the timed runs")
    if n.startswith("nft-set-"):
        # the add rule sees every packet that was not dropped before it
        want_added = flows + (sent if "-count-" in n else 0)
        if t.get("nft_added") != want_added:
            problems.append(f"the add rule counted {t.get('nft_added')}, not {want_added} "
                            f"({flows} flows filled in)")
    check(not problems, f"{n} (round {t['round']}): nft counters agree" +
          "".join(f"\n    {p}" for p in problems))
for n in {r["name"] for r in runs if r["name"].startswith("nft-")}:
    check(any(t["name"] == n for t in totals), f"{n}: nft counters read")
if mode == "profile":
    check(any(n.startswith("pktdedup-") and row["ns_per_packet"] > 0 and
              row["pairs"] > 0 for n, row in by_name.items()),
          "a pktdedup row present, ns_per_packet > 0, measured in pairs")
    # a statistical error of 2% at most (a Poisson count of 2500 or more)
    got = next((r["samples"] for r in prof_rows if r["name"] == "profile-pktdedup"), 0)
    check(got >= 2500, f"perf sampled pktdedup.ko's code {got} times (2500 or more)")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
