#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The papers' comparisons, replayed by dedup-sim on scaled-down streams.

Usage: paper-tables.py [BUILD_DIR] [SEEDS]   (run by `make paper`)

(a) Bera et al., Tables 4-9: SBF, RSBF, BSBF, BSBFSD, RLBSBF.
(b) Deng & Rafiei, Fig. 4: SBF against FPBuffering, Buffering and a Bloom
    filter.
(c) Boraskar et al.: BF, SBF, IBF-2C and IBF-MC on the synthetic
    importance streams.

Every stream is scaled down from the paper's by dividing its length and
the memory by the same factor, so the elements per bit stay the paper's.
The papers' own figures, transcribed from their text, are printed beside
ours. Fixed seeds; rates are pooled over the seeds (sum of errors over
sum of distincts or duplicates).
"""
import json
import math
import os
import subprocess
import sys
import time

B = sys.argv[1] if len(sys.argv) > 1 else "build"
SEEDS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
SIM = os.path.join(B, "dedup-sim")
MIB = 1 << 20

# ---- the papers' numbers, transcribed -------------------------------------

# Bera et al., Tables 4-9: {table: (elements, distinct, {MB: {algo: (FPR,
# FNR)}})}, in percent, algorithms in the order of their columns.
BERA_ALGOS = ["sbf", "rsbf", "bsbf", "bsbfsd", "rlbsbf"]


def bera_rows(rows):
    out = {}
    for mb, fpr, fnr in rows:
        out[mb] = {a: (fpr[i], fnr[i]) for i, a in enumerate(BERA_ALGOS)}
    return out


BERA = {
    4: (695_000_000, 0.15, bera_rows([
        (64, [1.9319, 2.6276, 3.2569, 3.5475, 3.7064],
         [53.2681, 35.9014, 8.7547, 3.3299, 1.3453]),
        (128, [0.7414, 0.8903, 1.0128, 1.0530, 1.0821],
         [37.7853, 23.126, 3.888, 1.7048, 0.3773]),
        (256, [0.2384, 0.2637, 0.2822, 0.2881, 0.2924],
         [23.8930, 13.5047, 1.8199, 0.8551, 0.1010]),
        (512, [0.0688, 0.0719, 0.0747, 0.0753, 0.0759],
         [12.9392, 7.3674, 0.8794, 0.4267, 0.0262])])),
    5: (695_000_000, 0.60, bera_rows([
        (64, [6.7672, 12.2408, 16.0723, 22.4491, 22.7214],
         [70.832, 52.8855, 39.9809, 19.9394, 20.2164]),
        (128, [4.3075, 6.7265, 8.0154, 9.7951, 10.4734],
         [57.9713, 39.2682, 28.6708, 14.7555, 9.8051]),
        (256, [2.0861, 2.7654, 3.0816, 3.4335, 3.6588],
         [42.0788, 25.7648, 17.7509, 9.0574, 3.4843]),
        (512, [0.8151, 0.9189, 0.9779, 1.0331, 1.0775],
         [24.2902, 15.2035, 9.8819, 4.9892, 1.0236])])),
    6: (695_000_000, 0.90, bera_rows([
        (64, [8.5028, 16.3502, 20.6486, 31.104, 30.1024],
         [73.134, 55.0285, 45.7102, 24.1625, 26.8786]),
        (128, [6.3252, 10.6716, 11.9222, 15.7484, 16.6894],
         [61.1759, 41.9224, 36.5123, 20.3118, 16.4363]),
        (256, [3.5908, 5.0678, 5.3168, 6.3016, 6.8635],
         [45.4987, 28.179, 25.3195, 13.8078, 7.0784]),
        (512, [1.6058, 1.8497, 1.8911, 2.0783, 2.2248],
         [26.6313, 16.9302, 15.3766, 8.1061, 2.3059])])),
    7: (1_000_000_000, 0.15, bera_rows([
        (64, [2.9156, 4.2891, 5.5775, 6.3441, 6.6755],
         [60.8981, 43.1705, 13.7096, 4.6175, 2.5795]),
        (128, [1.2608, 1.6079, 1.9023, 2.0181, 2.0930],
         [45.9566, 29.5540, 5.9096, 2.4357, 0.7400]),
        (256, [0.4413, 0.5059, 0.5572, 0.5727, 0.5849],
         [30.8269, 18.1142, 2.6956, 1.2296, 0.2026]),
        (512, [0.1341, 0.1431, 0.1506, 0.1526, 0.1543],
         [17.1336, 10.2015, 1.2846, 0.6139, 0.0535])])),
    8: (1_000_000_000, 0.60, bera_rows([
        (64, [7.8507, 15.0561, 20.7283, 31.3858, 30.044],
         [75.7271, 58.6734, 44.9042, 21.0835, 25.7526]),
        (128, [5.6378, 9.5676, 11.9472, 15.5928, 16.3554],
         [65.2456, 46.6885, 34.7514, 17.7438, 15.0161]),
        (256, [3.1629, 4.5557, 5.2369, 6.0937, 6.5378],
         [50.5726, 32.6139, 23.2001, 11.9067, 6.2079]),
        (512, [1.4504, 1.6747, 1.82011, 1.9692, 2.0788],
         [30.2739, 20.2770, 13.5658, 6.8855, 1.9897])])),
    9: (1_000_000_000, 0.90, bera_rows([
        (64, [9.2617, 18.6342, 25.0083, 40.5501, 36.7959],
         [77.5273, 60.3738, 49.2073, 23.8819, 31.0134]),
        (128, [7.5909, 13.8357, 16.4207, 23.192, 23.5977],
         [68.0553, 49.2204, 41.7178, 22.89, 22.2474]),
        (256, [5.0231, 7.7876, 8.3846, 10.4808, 11.3415],
         [54.0293, 35.2653, 31.2527, 17.2991, 11.5338]),
        (512, [2.7427, 3.2263, 3.33317, 3.7953, 4.1133],
         [32.8335, 22.3998, 20.2695, 10.8729, 4.2852])])),
}

# Deng & Rafiei, Fig. 4: (title, elements, distinct, scale, rows of (space
# in bits, FPBuffering FN, SBF FN, FP of both, Buffering FN, BF FP)), %.
DENG = [
    ("76% distinct (100K elements)", 100_000, 0.7566, 1, [
        (16384, 46, 35, 8.4, 50, 83.8),
        (65536, 35, 23, 6.7, 37, 43.4),
        (262144, 24, 11, 3.0, 25, 7.2),
        (1048576, 9, 4, 0.4, 9, 0.6),
        (4194304, 0.1, 1, 0.1, 0.1, 0.1)]),
    ("49% distinct (10M elements)", 10_000_000, 0.4851, 16, [
        (16384, 60, 54, 8.1, 65.7, 99.7),
        (262144, 48, 40, 6.6, 51.5, 95.9),
        (4194304, 30, 23, 4.5, 31.7, 43.5),
        (67108864, 11, 5, 0.5, 11.0, 0.7),
        (1073741824, 0.0, 0.4, 0.1, 0.0, 0.1)]),
    ("15% distinct (695M elements)", 694_984_445, 0.1475, 256, [
        (16384, 71, 68, 8.2, 78, 99.99),
        (262144, 65, 60, 7.0, 70, 99.81),
        (4194304, 55, 50, 5.7, 58, 96.93),
        (67108864, 43, 36, 3.5, 45, 54.08),
        (1073741824, 17, 13, 1.6, 17, 2.65),
        (4294967296, 2, 5, 1.6, 2, 1.87)]),
]

# Boraskar et al., Table II (YouTube data: the only numbers it prints):
# {algo: (FP, FN, wFP, wFN) of data set 1, of data set 2}, in percent.
IBF_TABLE2 = {
    "BF": ((34.81, 0, 35.29, 0), (34.81, 0, 34.17, 0)),
    "SBF": ((25.83, 0.84, 26.23, 0.87), (26, 0.9, 25.55, 0.81)),
    "IBF-2C": ((16.14, 2.49, 16.34, 1.99), (10.16, 3.97, 9.95, 2.91)),
    "IBF-MC": ((5.19, 8.91, 5.23, 4.76), (0.84, 14.01, 0.87, 7.52)),
}

# ---- running the simulator ------------------------------------------------

RUNS = 0


def sim(args):
    global RUNS
    RUNS += 1
    r = subprocess.run([SIM] + args + ["--json"], capture_output=True,
                       text=True, check=False)
    if r.returncode:
        sys.exit(f"dedup-sim {' '.join(args)}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def pooled(runs):
    """Errors summed over seeds, as rates (and the mean of other fields)."""
    fp = sum(j["false_positives"] for j in runs)
    fn = sum(j["false_negatives"] for j in runs)
    d = sum(j["distincts"] for j in runs)
    u = sum(j["duplicates"] for j in runs)
    return (fp / d if d else 0.0), (fn / u if u else 0.0)


def seeds_run(args):
    return [sim(args + ["--seed", str(s)]) for s in range(1, SEEDS + 1)]


def pct(x, width=6, digits=2):
    return f"{100 * x:{width}.{digits}f}"


def order(vals):
    """Names by increasing value: 'a<b<c' ('=' for ties within 1%)."""
    items = sorted(vals.items(), key=lambda kv: kv[1])
    out = items[0][0]
    for (_, prev), (name, v) in zip(items, items[1:]):
        tie = math.isclose(prev, v, rel_tol=0.01, abs_tol=1e-4)
        out += ("=" if tie else "<") + name
    return out


# ---- (a) Bera et al., Tables 4-9 ------------------------------------------

BERA_SCALE = 1024
BERA_ARGS = {
    "sbf": ["--max", "1", "--k", "2", "--p", "4"],
    "rsbf": ["--k", "2", "--p-star", "0.03"],
    "bsbf": ["--k", "2"],
    "bsbfsd": ["--k", "2"],
    "rlbsbf": ["--k", "2"],
}
SHORT = {"sbf": "SBF", "rsbf": "RSBF", "bsbf": "BSBF", "bsbfsd": "BSBFSD",
         "rlbsbf": "RLBSBF"}


def table_bera():
    print("(a) Bera et al., Tables 4-9: FPR and FNR (%) of SBF, RSBF, BSBF, "
          "BSBFSD and RLBSBF")
    print(f"    scaled 1/{BERA_SCALE}: their 64/128/256/512 MB become "
          f"64/128/256/512 KiB and their 695M and 1B elements")
    print(f"    {round(695e6 / BERA_SCALE):,} and "
          f"{round(1e9 / BERA_SCALE):,}: the same elements per bit "
          f"({695e6 / (512 * MIB * 8):.2f} to {1e9 / (64 * MIB * 8):.2f}).")
    print("    Uniform i.i.d. streams, as theirs. k = 2 arrays for RSBF, BSBF,")
    print("    BSBFSD, RLBSBF (their Sec. 6.3), p* = 0.03. SBF: Max 1, K 2, P 4,")
    print("    Deng & Rafiei's FPS = 10% setting (Bera et al. do not say; their")
    print("    SBF FPR of 8.5-9.3% at 64 MB and 90% distinct rules out an")
    print("    FPS of 1%, whose bound is 1%).")
    print(f"    Each cell: ours (theirs); pooled over {SEEDS} seeds.")
    agree = agree4 = total = 0
    for t in sorted(BERA):
        elements, distinct, rows = BERA[t]
        n = round(elements / BERA_SCALE)
        print()
        print(f"Table {t}: {elements / 1e6:,.0f}M elements, "
              f"{distinct:.0%} distinct -> {n:,} elements")
        print(f"{'memory':<17}" + "".join(f"{SHORT[a]:>17}"
                                          for a in BERA_ALGOS))
        ratio_o, ratio_p = [], []
        for mb in sorted(rows):
            mem = mb * MIB // BERA_SCALE
            ours = {}
            for a in BERA_ALGOS:
                ours[a] = pooled(seeds_run(
                    ["--algo", a, "--mem", str(mem)] + BERA_ARGS[a] +
                    ["--stream", "uniform", "--n", str(n), "--distinct",
                     str(distinct)]))
            for i, what in enumerate(("FPR", "FNR")):
                label = f"{mb}MB>{mem // 1024}K" if i == 0 else ""
                cells = "".join(
                    f"{pct(ours[a][i], 7)} ({rows[mb][a][i]:7.3f})"
                    for a in BERA_ALGOS)
                print(f"{label:<12}{what:<5}{cells}")
            o = order({SHORT[a]: ours[a][1] for a in BERA_ALGOS})
            p = order({SHORT[a]: rows[mb][a][1] for a in BERA_ALGOS})
            four = [a for a in BERA_ALGOS if a != "rsbf"]
            o4 = order({SHORT[a]: ours[a][1] for a in four})
            p4 = order({SHORT[a]: rows[mb][a][1] for a in four})
            same = o.replace("=", "<") == p.replace("=", "<")
            same4 = o4.replace("=", "<") == p4.replace("=", "<")
            agree += same
            agree4 += same4
            total += 1
            print(f"{'':<12}FNR order: ours {o}; theirs {p}"
                  f"{'' if same else '  (differs)'}")
            if ours["rlbsbf"][1] > 0:
                ratio_o.append(ours["sbf"][1] / ours["rlbsbf"][1])
            ratio_p.append(rows[mb]["sbf"][1] / rows[mb]["rlbsbf"][1])
        print(f"{'':<12}SBF FNR / RLBSBF FNR: ours "
              f"{min(ratio_o):.1f} to {max(ratio_o):.0f}, theirs "
              f"{min(ratio_p):.1f} to {max(ratio_p):.0f}")
    print()
    print(f"FNR order of all five as theirs in {agree} of {total} rows; of "
          f"SBF, BSBF, BSBFSD, RLBSBF in {agree4} of {total}.")


# ---- (b) Deng & Rafiei, Fig. 4 --------------------------------------------

def bf_k(bits, distincts):
    return max(1, min(16, round(math.log(2) * bits / distincts)))


def table_deng():
    print("(b) Deng & Rafiei, Fig. 4: SBF against FPBuffering at the same FP")
    print("    SBF: FPS 10% (Max 1, K 2, P 4), their setting. FPBuffering: an LRU")
    print("    buffer of 64-bit entries (their Web data's URL fingerprints; the")
    print("    hash table and list not counted, as theirs) reporting a miss as a")
    print("    duplicate with q = the SBF's measured FP rate (per seed), so both")
    print("    make the same FPs. Buffering: q = 0. BF: Max 1, P 0, K = ln 2 m /")
    print("    distincts. Their data is a Web crawl (not public); ours are")
    print("    uniform i.i.d. streams with the same distinct shares, lengths and")
    print("    space divided by the scale (space x elements kept).")
    print(f"    Each cell: ours (theirs), FN and FP in %; pooled over {SEEDS} "
          "seeds.")
    agree = ties = total = 0
    for title, elements, distinct, scale, rows in DENG:
        n = round(elements / scale)
        print()
        print(f"{title}: scaled 1/{scale}: {n:,} elements")
        print(f"{'space (bits)':<12}{'ours':>9} {'FPBuf FN':>13} "
              f"{'SBF FN':>13} {'FP SBF, FPBuf':>20} {'Buffering FN':>13} "
              f"{'BF FP':>15} {'SBF - FPBuf FN':>15}")
        for bits, pfb, psbf, pfp, pbuf, pbf in rows:
            mem = bits // scale // 8
            stream = ["--stream", "uniform", "--n", str(n), "--distinct",
                      str(distinct)]
            sbf, fpb, buf, bf = [], [], [], []
            for s in range(1, SEEDS + 1):
                seed = ["--seed", str(s)]
                j = sim(["--algo", "sbf", "--mem", str(mem), "--max", "1",
                         "--k", "2", "--p", "4"] + stream + seed)
                sbf.append(j)
                q = j["fp_rate"]
                fb = ["--algo", "fpbuffering", "--entry-bits", "64", "--mem",
                      str(mem)]
                fpb.append(sim(fb + ["--fps", repr(q)] + stream + seed))
                buf.append(sim(fb + stream + seed))
                bf.append(sim(["--algo", "sbf", "--mem", str(mem), "--max",
                               "1", "--p", "0", "--k",
                               str(bf_k(mem * 8, distinct * n))] + stream +
                              seed))
            sfp, sfn = pooled(sbf)
            ffp, ffn = pooled(fpb)
            bfn = pooled(buf)[1]
            bfp = pooled(bf)[0]
            d = 100 * (sfn - ffn)
            print(f"{bits:<12}{mem * 8:>9} {100 * ffn:5.1f} ({pfb:5.1f}) "
                  f"{100 * sfn:5.1f} ({psbf:5.1f}) {100 * sfp:5.2f} "
                  f"{100 * ffp:5.2f} ({pfp:4.1f}) {100 * bfn:5.1f} "
                  f"({pbuf:5.1f}) {100 * bfp:6.2f} ({pbf:5.2f}) "
                  f"{d:+6.1f} ({psbf - pfb:+5.1f})")
            total += 1
            if abs(d) < 1:
                ties += 1
            else:
                agree += (sfn < ffn) == (psbf < pfb)
    print()
    print(f"Which of SBF and FPBuffering has the lower FN: as theirs in "
          f"{agree} of {total - ties} rows; {ties} within a point (tie).")


# ---- (c) Boraskar et al., importance ----------------------------------------

IBF_N = 100_000
IBF_SHORT_N = 30_000
IBF_CELLS_MEM = 21845     # 43,690 4-bit cells: the paper's 16 KB / 3 bits
IBF_ALGOS = [
    ("BF", ["--algo", "sbf", "--mem", "16K", "--max", "1", "--k", "5",
            "--p", "0"]),
    ("SBF", ["--algo", "sbf", "--mem", str(IBF_CELLS_MEM), "--max", "7",
             "--k", "5", "--p", "10"]),
    ("IBF-2C", ["--algo", "ibf-2c", "--mem", str(IBF_CELLS_MEM), "--max",
                "7", "--k", "5", "--p", "10"]),
    ("IBF-MC", ["--algo", "ibf-mc", "--mem", str(IBF_CELLS_MEM), "--max",
                "7", "--k", "5", "--p", "10"]),
]


def band(runs, lo, hi):
    """FP of the distincts and FN of the duplicates of classes lo..hi."""
    fp = fn = d = u = 0
    for j in runs:
        for c in j["importance"]["classes"]:
            if lo <= c["imp"] <= hi:
                fp += c["false_positives"]
                fn += c["false_negatives"]
                d += c["distincts"]
                u += c["duplicates"]
    return (fp / d if d else 0.0), (fn / u if u else 0.0)


def weighted(runs):
    """The paper's wFP and wFN, over the pooled seeds."""
    w = wfp = wfn = 0
    for j in runs:
        for c in j["importance"]["classes"]:
            w += c["imp"] * c["n"]
            wfp += c["imp"] * c["false_positives"]
            wfn += c["imp"] * c["false_negatives"]
    return wfp / w, wfn / w


def ibf_header():
    print(f"{'dist':<8}{'rep':>4} {'algo':<8}{'FP':>7}{'FN':>7}"
          f"{'FP 1-25':>9}{'FN 1-25':>9}{'FP 26-50':>10}{'FN 26-50':>10}"
          f"{'FN 41-50':>10}{'wFP':>7}{'wFN':>7}")


def ibf_stream(dist, rep, n):
    """Every algorithm on one stream: a row each; their runs by name."""
    res = {}
    for name, args in IBF_ALGOS:
        runs = seeds_run(args + ["--stream", "importance", "--imp-dist",
                                 dist, "--repeat", rep, "--n", str(n)])
        res[name] = runs
        fp, fn = pooled(runs)
        lo = band(runs, 1, 25)
        hi = band(runs, 26, 50)
        top = band(runs, 41, 50)
        wfp, wfn = weighted(runs)
        print(f"{dist:<8}{rep:>4} {name:<8}{pct(fp, 7)}{pct(fn, 7)}"
              f"{pct(lo[0], 9)}{pct(lo[1], 9)}{pct(hi[0], 10)}"
              f"{pct(hi[1], 10)}{pct(top[1], 10)}{pct(wfp, 7)}{pct(wfn, 7)}")
    return res


def table_ibf():
    print("(c) Boraskar et al.: importance-aware filters, M = 7, K = 5, P = 10")
    print("    (their Table III); SBF with the same M, K, P; BF: M = 1, P = 0,")
    print("    K = 5, 16 KB of 1-bit cells. Their 16 KB is 43,690 3-bit cells;")
    print("    our core stores Max 7 in 4-bit cells, so SBF and IBF get")
    print(f"    {IBF_CELLS_MEM:,} bytes = 43,680 cells, their cell count. Streams:")
    print("    their synthetic data (importance 1..50, occurrence probability")
    print("    uniform / proportional / inversely proportional to importance,")
    print("    10/30/50% repeats). They do not give its length: we use")
    print(f"    {IBF_N:,} elements, where a plain BF of 16 KB shows about their")
    print("    Table II BF FP (ours 38% at 10% repeats; theirs 34.8%). The")
    print("    importance reaches IBF in the mark: IBF-MC cells get")
    print("    1 + (imp - 1) 7 / 50, IBF-2C cells 7 for imp 26-50, else 4.")
    print("    FP: of a class's distincts, FN: of its duplicates (the paper's")
    print("    rate arrays divide by all of a class's elements); wFP and wFN")
    print(f"    as the paper defines them (Sec. IV-B). %; pooled over {SEEDS} "
          "seeds.")
    print()
    print("Theirs, Table II (YouTube data, data set 1 | 2; the only numbers "
          "it prints):")
    print(f"{'':<8}{'FP':>7}{'FN':>7}{'wFP':>7}{'wFN':>7}   |"
          f"{'FP':>7}{'FN':>7}{'wFP':>7}{'wFN':>7}")
    for name, (d1, d2) in IBF_TABLE2.items():
        print(f"{name:<8}" + "".join(f"{x:7.2f}" for x in d1) + "   |" +
              "".join(f"{x:7.2f}" for x in d2))
    print()
    print("Ours, synthetic streams:")
    rows = {}
    ibf_header()
    for dist in ("uniform", "inverse", "direct"):
        for rep in ("0.1", "0.3", "0.5"):
            rows[dist, rep] = ibf_stream(dist, rep, IBF_N)
    print()
    print("Orders of wFP and wFN (theirs, Table II, both data sets: wFP")
    print("IBF-MC < IBF-2C < SBF < BF, wFN BF < SBF < IBF-2C < IBF-MC):")
    same_fp = same_fp3 = same_fn = 0
    for (dist, rep), res in rows.items():
        w = {name: weighted(runs) for name, runs in res.items()}
        ofp = order({k: v[0] for k, v in w.items()})
        ofn = order({k: v[1] for k, v in w.items()})
        same_fp += ofp == "IBF-MC<IBF-2C<SBF<BF"
        same_fp3 += order({k: v[0] for k, v in w.items()
                           if k != "BF"}) == "IBF-MC<IBF-2C<SBF"
        same_fn += ofn.replace("=", "<") == "BF<SBF<IBF-2C<IBF-MC"
        print(f"{dist:<8}{rep:>4}  wFP {ofp:<24} wFN {ofn}")
    print(f"wFP order as theirs in {same_fp} of {len(rows)} streams (of "
          f"SBF, IBF-2C, IBF-MC: in {same_fp3}); wFN order in {same_fn} of "
          f"{len(rows)}.")
    print()
    print("Their claims (Sec. IV-E, synthetic data; drawn in figures only):")
    print("  - IBF has lower FP than SBF for almost all importance values, and")
    print("    the same or lower FN for the more important items (uniform);")
    print("  - above importance 35 on the inverse data, IBF has about 4% lower")
    print("    FN and about 8% lower FP than SBF;")
    print("  - IBF's error on important items is close to 0% (abstract).")
    print("Ours: IBF minus SBF on classes 36-50, and IBF's own FN on the")
    print("important half against the unimportant half (points):")
    print(f"{'dist':<8}{'rep':>4} {'algo':<8}{'FN diff':>9}{'FP diff':>9}"
          f"{'FN 26-50':>10}{'FN 1-25':>9}")
    for (dist, rep), res in rows.items():
        s36 = band(res["SBF"], 36, 50)
        for name in ("IBF-2C", "IBF-MC"):
            b36 = band(res[name], 36, 50)
            print(f"{dist:<8}{rep:>4} {name:<8}"
                  f"{100 * (b36[1] - s36[1]):+9.2f}"
                  f"{100 * (b36[0] - s36[0]):+9.2f}"
                  f"{pct(band(res[name], 26, 50)[1], 10)}"
                  f"{pct(band(res[name], 1, 25)[1], 9)}")
    print()
    n = IBF_SHORT_N
    print(f"The same at {n:,} elements (before the SBF's cells have turned "
          "over once,")
    print("m Max / P = 30,576 elements), uniform, 30% repeats:")
    ibf_header()
    ibf_stream("uniform", "0.3", n)


def main():
    t0 = time.time()
    print("make paper: the papers' orderings on scaled-down streams "
          f"(dedup-sim, {SEEDS} seeds)")
    print()
    table_bera()
    print()
    table_deng()
    print()
    table_ibf()
    print()
    print(f"{RUNS} simulator runs in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
