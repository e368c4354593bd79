#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench-xdp's report: the guest's "pdx" console lines
(eval/bench-xdp/guest.sh) as ratios, the JSON and a Markdown table.

Usage: report.py CONSOLE_LOG JSON_OUT TABLE_MD BOOT_STATUS

Under TCG only ratios between cases of one boot mean anything. For the
test runs, each case's per-round median against the round's XDP_PASS
program; for frames, each case's run against the mean of its round's two
no-hook runs (one first, one last). Median over rounds [min, max]. The
last line is "N passed, N failed": the guest's counter checks, the
presence of every case, and the boot.
"""
import json
import statistics
import sys

TR_CASES = ["pass", "drop", "pd-count", "pd-drop"]
FR_CASES = ["none", "ingress-count", "ingress-drop", "xdp-count", "xdp-drop",
            "generic-count", "generic-drop", "prog-pass", "prog-drop", "none2"]
LABEL = {
    "none2": "no hook (last run of the round: A/A)",
    "ingress-count": "pktdedup hook ingress, count",
    "ingress-drop": "pktdedup hook ingress, drop",
    "xdp-count": "pktdedup hook xdp (native), count",
    "xdp-drop": "pktdedup hook xdp (native), drop",
    "generic-count": "pktdedup hook xdp-generic, count",
    "generic-drop": "pktdedup hook xdp-generic, drop",
    "prog-pass": "XDP_PASS program, native (ip link set xdpdrv)",
    "prog-drop": "XDP_DROP program, native (ip link set xdpdrv)",
}
VF_CASES = ["none", "ingress-count", "ingress-drop", "xdp-count", "xdp-drop",
            "prog-pass", "prog-drop", "none2"]
PAIRS = [("xdp-count", "ingress-count"), ("xdp-drop", "ingress-drop"),
         ("generic-drop", "ingress-drop"), ("xdp-count", "prog-pass"),
         ("xdp-drop", "prog-drop")]


def spread(vals):
    return {"median": statistics.median(vals), "min": min(vals),
            "max": max(vals), "n": len(vals)}


def fmt(s, digits=2):
    return f"{s['median']:.{digits}f} [{s['min']:.{digits}f}, {s['max']:.{digits}f}]"


def frames(kind, data, cases, what, params, res, out):
    """The table of one traffic path; (checks passed, failed)."""
    passed = failed = 0
    rounds = sorted({r for r, _ in data})
    full = [r for r in rounds if all((r, c) in data for c in cases)]
    if full and len(full) == len(rounds):
        passed += 1
    else:
        failed += 1
        print(f"not ok {kind}: complete rounds {len(full)} of {len(rounds)}")
    if not full:
        return passed, failed
    ns = {(r, c): data[(r, c)][1] * 1e6 / data[(r, c)][0] for r in full for c in cases}
    cpu = {(r, c): data[(r, c)][2] * 1e7 / data[(r, c)][0] for r in full for c in cases}
    sirq = {(r, c): data[(r, c)][3] * 1e7 / data[(r, c)][0] for r in full for c in cases}
    res[kind] = {"params": params.get(kind), "cases": {}, "pairs": {}}
    base = {r: (ns[(r, "none")] + ns[(r, "none2")]) / 2 for r in full}
    cbase = {r: (cpu[(r, "none")] + cpu[(r, "none2")]) / 2 for r in full}
    sbase = {r: (sirq[(r, "none")] + sirq[(r, "none2")]) / 2 for r in full}
    if kind == "frames":
        timing = ("the sender's time per frame (veth hands each frame to the "
                  "receive path in the sender's softirq)")
    else:
        timing = ("the time per frame from the first sent until the receiver "
                  "has them all (the receive path runs in the device's NAPI)")
    out.append("")
    out.append(f"Frames through {what} ({params.get(kind)}): {timing}, and the "
               "guest's CPU time per frame (/proc/stat ticks, all CPUs): busy, and "
               "in softirq context (where the frames are received: the receive "
               "side's share), each as a ratio to the round's no-hook runs, median "
               "over the rounds [min, max]:")
    out.append("")
    out.append("| receiver | time/frame × no hook | busy CPU/frame × no hook | softirq CPU/frame × no hook |")
    out.append("| --- | --- | --- | --- |")
    bs = spread([base[r] for r in full])
    cs = spread([cbase[r] for r in full])
    ss = spread([sbase[r] for r in full])
    out.append(f"| no hook (mean of the round's first and last run) | 1 "
               f"({bs['median']:.0f} ns/frame under TCG) | 1 ({cs['median']:.0f} ns/frame) "
               f"| 1 ({ss['median']:.0f} ns/frame) |")
    res[kind]["no_hook_ns_per_frame"] = bs
    for c in cases[1:]:
        a = spread([ns[(r, c)] / base[r] for r in full])
        b = spread([cpu[(r, c)] / cbase[r] for r in full])
        d = spread([sirq[(r, c)] / sbase[r] for r in full])
        res[kind]["cases"][c] = {"time_ratio": a, "cpu_ratio": b, "softirq_ratio": d,
                                 "ns_per_frame": spread([ns[(r, c)] for r in full])}
        out.append(f"| {LABEL[c]} | {fmt(a)} | {fmt(b)} | {fmt(d)} |")
    out.append("")
    out.append(f"Through {what}, per round, one placement against another "
               "(below 1: the first costs less per frame), and the cost each adds to no "
               "hook, as a fraction of no hook's (by time, then by softirq CPU), "
               "and the busy CPU ratio:")
    out.append("")
    out.append("| comparison | time ratio | added: first, second | softirq ratio | "
               "added: first, second | busy CPU ratio |")
    out.append("| --- | --- | --- | --- | --- | --- |")
    for x, y in PAIRS:
        if x not in cases or y not in cases:
            continue
        q = spread([ns[(r, x)] / ns[(r, y)] for r in full])
        qc = spread([cpu[(r, x)] / cpu[(r, y)] for r in full])
        ax = spread([ns[(r, x)] / base[r] - 1 for r in full])
        ay = spread([ns[(r, y)] / base[r] - 1 for r in full])
        qs = spread([sirq[(r, x)] / sirq[(r, y)] for r in full])
        sx = spread([sirq[(r, x)] / sbase[r] - 1 for r in full])
        sy = spread([sirq[(r, y)] / sbase[r] - 1 for r in full])
        res[kind]["pairs"][f"{x}/{y}"] = {"ratio": q, "cpu_ratio": qc, "softirq_ratio": qs,
                                          "added_first": ax, "added_second": ay,
                                          "softirq_added_first": sx,
                                          "softirq_added_second": sy}
        out.append(f"| {x} / {y} | {fmt(q)} | {ax['median']:.2f}, {ay['median']:.2f} | "
                   f"{fmt(qs)} | {sx['median']:.2f}, {sy['median']:.2f} | {fmt(qc)} |")
    # a dropped copy alone: in a drop run half the frames (the distinct
    # ones) pass as in a count run, so per round a copy dropped costs
    # about 2 x drop - count (as a fraction of no hook's frame)
    out.append("")
    out.append(f"Through {what}, a dropped copy alone, estimated per round as "
               "2 × (drop run) − (count run) (the distinct frames of a drop run pass "
               "as a count run's do), against no hook's frame (the reference: "
               "the XDP_DROP program's frame):")
    out.append("")
    out.append("| where the copy is dropped | time × no hook's frame | softirq CPU × no hook's |")
    out.append("| --- | --- | --- |")
    res[kind]["dropped_copy"] = {}
    for hook in ("ingress", "xdp", "generic"):
        if f"{hook}-drop" not in cases:
            continue
        a = spread([(2 * ns[(r, f"{hook}-drop")] - ns[(r, f"{hook}-count")]) / base[r]
                    for r in full])
        b = spread([(2 * sirq[(r, f"{hook}-drop")] - sirq[(r, f"{hook}-count")]) / sbase[r]
                    for r in full])
        res[kind]["dropped_copy"][hook] = {"time_ratio": a, "softirq_ratio": b}
        out.append(f"| pktdedup hook {hook} | {fmt(a)} | {fmt(b)} |")
    a = spread([ns[(r, "prog-drop")] / base[r] for r in full])
    b = spread([sirq[(r, "prog-drop")] / sbase[r] for r in full])
    out.append(f"| (XDP_DROP program: every frame) | {fmt(a)} | {fmt(b)} |")
    return passed, failed


def goals(res, out):
    """The two statements, on each path measured."""
    res["goals"] = {}
    for kind, what in (("frames", "veth"), ("virtio", "virtio-net")):
        if kind not in res:
            continue
        pr = res[kind]["pairs"]
        res["goals"][kind] = {}
        for metric, key in (("time per frame", "ratio"),
                            ("softirq CPU per frame", "softirq_ratio")):
            p1 = pr["xdp-count/ingress-count"][key]["median"]
            p2 = pr["xdp-drop/ingress-drop"][key]["median"]
            g1, g2 = p1 <= 1.0, p2 < 1.0
            res["goals"][kind][key] = {"xdp_adds_no_more_than_ingress": g1,
                                       "drop_cheaper_at_xdp": g2}
            out.append("")
            out.append(f"Goal ({what}, {metric}): the XDP placement costs no more "
                       f"per frame than ingress (xdp-count / ingress-count, median "
                       f"{p1:.2f}): {'holds' if g1 else 'does not hold'}. A dropped "
                       f"copy costs less at XDP than at ingress (xdp-drop / "
                       f"ingress-drop, median {p2:.2f}): "
                       f"{'holds' if g2 else 'does not hold'}.")


def main():
    log, json_out, md_out, boot = sys.argv[1:5]
    tr = {}          # case -> list of (round, ns, retval)
    fr = {}          # (round, case) -> (frames, ms, ticks)
    vf = {}          # the same through virtio-net
    checks = []
    params = {}
    passed = failed = 0
    with open(log, errors="replace") as f:
        for line in f:
            w = line.strip().split()
            if len(w) < 2 or w[0] != "pdx":
                continue
            if w[1] == "start":
                params[w[2]] = " ".join(w[3:])
            elif w[1] == "tr":
                tr.setdefault(w[2], []).append((int(w[3]), int(w[4])))
            elif w[1] == "fr":
                fr[(int(w[2]), w[3])] = tuple(int(x) for x in w[4:8])
            elif w[1] == "vf":
                vf[(int(w[2]), w[3])] = tuple(int(x) for x in w[4:8])
            elif w[1] == "check":
                checks.append((w[2:-1], w[-1]))
                rest = line.split(" check ", 1)[1].strip()
                if " ok " in f" {rest} ":
                    passed += 1
                else:
                    failed += 1
                    print(f"not ok {rest}")
    res = {"params": params}

    # BPF_PROG_TEST_RUN: per case, the rounds' medians (RUNS runs each)
    out = []
    if all(c in tr for c in TR_CASES):
        nrun = int(params["testrun"].split()[3])
        rounds = len(tr["pass"]) // nrun
        per = {c: [statistics.median(x[0] for x in tr[c][r * nrun:(r + 1) * nrun])
                   for r in range(rounds)] for c in TR_CASES}
        res["testrun"] = {c: {"ns": spread([x[0] for x in tr[c]]),
                              "retval": sorted({x[1] for x in tr[c]}),
                              "ratio_to_pass": spread([per[c][r] / per["pass"][r]
                                                       for r in range(rounds)])}
                          for c in TR_CASES}
        out.append(f"BPF_PROG_TEST_RUN ({params['testrun']}), ns per frame under TCG "
                   "and the ratio to the XDP_PASS program, median [min, max]:")
        out.append("")
        out.append("| program | ns/frame (TCG) | × XDP_PASS program | retval |")
        out.append("| --- | --- | --- | --- |")
        names = {"pass": "returns XDP_PASS", "drop": "returns XDP_DROP",
                 "pd-count": "pktdedup, action count", "pd-drop": "pktdedup, action drop"}
        for c in TR_CASES:
            t = res["testrun"][c]
            rv = ",".join({1: "DROP", 2: "PASS"}.get(v, str(v)) for v in t["retval"])
            out.append(f"| {names[c]} | {fmt(t['ns'], 0)} | {fmt(t['ratio_to_pass'])} | {rv} |")
        passed += 1
    else:
        failed += 1
        print("not ok test runs: a case is missing: " + ",".join(c for c in TR_CASES if c not in tr))

    # frames through veth, and through virtio-net
    for kind, data, cases, what in (
            ("frames", fr, FR_CASES, "veth"),
            ("virtio", vf, VF_CASES, "virtio-net")):
        p, f = frames(kind, data, cases, what, params, res, out)
        passed += p
        failed += f
    goals(res, out)
    if boot == "0":
        passed += 1
    else:
        failed += 1
        print(f"not ok the guest's boot (vm.sh exit {boot})")
    text = "\n".join(out)
    print(text)
    with open(md_out, "w") as f:
        f.write(text + "\n")
    with open(json_out, "w") as f:
        json.dump(res, f, indent=1)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
