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
    "xdp-count": "pktdedup hook xdp (native, veth), count",
    "xdp-drop": "pktdedup hook xdp (native, veth), drop",
    "generic-count": "pktdedup hook xdp-generic, count",
    "generic-drop": "pktdedup hook xdp-generic, drop",
    "prog-pass": "XDP_PASS program, native (ip link set xdpdrv)",
    "prog-drop": "XDP_DROP program, native (ip link set xdpdrv)",
}
PAIRS = [("xdp-count", "ingress-count"), ("xdp-drop", "ingress-drop"),
         ("generic-drop", "ingress-drop"), ("xdp-count", "prog-pass"),
         ("xdp-drop", "prog-drop")]


def spread(vals):
    return {"median": statistics.median(vals), "min": min(vals),
            "max": max(vals), "n": len(vals)}


def fmt(s, digits=2):
    return f"{s['median']:.{digits}f} [{s['min']:.{digits}f}, {s['max']:.{digits}f}]"


def main():
    log, json_out, md_out, boot = sys.argv[1:5]
    tr = {}          # case -> list of (round, ns, retval)
    fr = {}          # (round, case) -> (frames, ms, ticks)
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
                fr[(int(w[2]), w[3])] = (int(w[4]), int(w[5]), int(w[6]))
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

    # frames through veth
    rounds = sorted({r for r, _ in fr})
    full = [r for r in rounds if all((r, c) in fr for c in FR_CASES)]
    if full and len(full) == len(rounds):
        passed += 1
    else:
        failed += 1
        print(f"not ok frames: complete rounds {len(full)} of {len(rounds)}")
    if full:
        ns = {(r, c): fr[(r, c)][1] * 1e6 / fr[(r, c)][0] for r in full for c in FR_CASES}
        cpu = {(r, c): fr[(r, c)][2] * 1e7 / fr[(r, c)][0] for r in full for c in FR_CASES}
        res["frames"] = {"params": params.get("frames"), "cases": {}, "pairs": {}}
        base = {r: (ns[(r, "none")] + ns[(r, "none2")]) / 2 for r in full}
        cbase = {r: (cpu[(r, "none")] + cpu[(r, "none2")]) / 2 for r in full}
        out.append("")
        out.append(f"Frames through veth ({params.get('frames')}), the sender's time per "
                   "frame and the guest's busy CPU time per frame, each as a ratio to the "
                   "round's no-hook runs, median over the rounds [min, max]:")
        out.append("")
        out.append("| receiver | time/frame × no hook | CPU/frame × no hook |")
        out.append("| --- | --- | --- |")
        bs = spread([base[r] for r in full])
        out.append(f"| no hook (mean of the round's first and last run) | 1 "
                   f"({bs['median']:.0f} ns/frame under TCG, {bs['min']:.0f} to {bs['max']:.0f}) | 1 |")
        for c in FR_CASES[1:]:
            a = spread([ns[(r, c)] / base[r] for r in full])
            b = spread([cpu[(r, c)] / cbase[r] for r in full])
            res["frames"]["cases"][c] = {"time_ratio": a, "cpu_ratio": b,
                                          "ns_per_frame": spread([ns[(r, c)] for r in full])}
            out.append(f"| {LABEL[c]} | {fmt(a)} | {fmt(b)} |")
        out.append("")
        out.append("Per round, one placement against another (sender's time per frame; "
                   "below 1: the first costs less), and the cost each adds to no hook, "
                   "as a fraction of no hook's:")
        out.append("")
        out.append("| comparison | ratio | added: first | added: second |")
        out.append("| --- | --- | --- | --- |")
        for x, y in PAIRS:
            q = spread([ns[(r, x)] / ns[(r, y)] for r in full])
            ax = spread([ns[(r, x)] / base[r] - 1 for r in full])
            ay = spread([ns[(r, y)] / base[r] - 1 for r in full])
            res["frames"]["pairs"][f"{x}/{y}"] = {"ratio": q, "added_first": ax,
                                                  "added_second": ay}
            out.append(f"| {x} / {y} | {fmt(q)} | {fmt(ax)} | {fmt(ay)} |")
        p1 = res["frames"]["pairs"]["xdp-count/ingress-count"]["ratio"]["median"]
        p2 = res["frames"]["pairs"]["xdp-drop/ingress-drop"]["ratio"]["median"]
        g1 = p1 <= 1.0
        g2 = p2 < 1.0
        res["goals"] = {"xdp_adds_no_more_than_ingress": g1,
                        "drop_cheaper_at_xdp": g2}
        out.append("")
        out.append(f"Goal: the XDP placement adds no more per frame than ingress "
                   f"(xdp-count / ingress-count median {p1:.2f}): {'holds' if g1 else 'does not hold'}.")
        out.append(f"Goal: a dropped copy costs less at XDP than at ingress "
                   f"(xdp-drop / ingress-drop median {p2:.2f}): {'holds' if g2 else 'does not hold'}.")
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
