# SPDX-License-Identifier: GPL-2.0
"""The e2e guest's exported sketches (tests/e2e/scen-sketch.sh prints each
namespace's rows between "pd-sketch-begin NAME" and "pd-sketch-end NAME",
then "pd-sketch-truth" with the exact counts and the module's estimates)
in PostgreSQL's hll extension, on the host (tests/vm/vm.sh boot): a
temporary cluster (pgtmp.py) merges the namespaces' sketches with
hll_union_agg(); the union and each namespace's own count must be within
3 standard errors (1.04/sqrt(2^14): 2.44%) of the exact counts, plus the
few sources of the guest's own traffic (neighbour discovery) a namespace
may also count, and PostgreSQL's estimate of each sketch within 1% of the
module's of the same registers.

Usage: guest_sketches.py CONSOLE_LOG; prints "vm.sh: pg: ..." lines,
exits 1 on a failure."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from pgtmp import Cluster  # noqa: E402

SE = 1.04 / 128
STRAY = 8       # sources of the guest's own traffic a namespace may count


def blocks(log):
    rows, truth, cur = {}, None, None
    with open(log, "rb") as f:
        for raw in f:
            ln = raw.decode("utf-8", "replace").rstrip("\r\n")
            if ln.startswith("pd-sketch-begin "):
                cur = ln.split()[1]
                rows[cur] = []
            elif ln.startswith("pd-sketch-end "):
                cur = None
            elif ln.startswith("pd-sketch-truth "):
                truth = dict(kv.split("=") for kv in ln.split()[1:])
            elif cur:
                rows[cur].append(ln)
    return rows, truth


def main(log):
    rows, truth = blocks(log)
    if not rows:
        return 0
    bad = []
    pg = Cluster()
    try:
        pg.start()
        pg.load("fleet", *("\n".join(r).encode() + b"\n"
                           for r in rows.values()))
        fps = pg.psql("select distinct fingerprint from fleet")
        if fps != [[truth["fingerprint"]]]:
            bad.append(f"fingerprints {fps}, want {truth['fingerprint']}")
        u = float(pg.psql("select hll_cardinality(hll_union_agg(src)) "
                          "from fleet")[0][0])
        exact = int(truth["union"])
        print(f"vm.sh: pg: union of {', '.join(rows)}: {u:.0f} for {exact}"
              f" ({(u / exact - 1) * 100:+.2f}%)")
        if not exact * (1 - 3 * SE) <= u <= exact * (1 + 3 * SE) + STRAY:
            bad.append(f"union {u:.0f} not within 3 SE of {exact}")
        for ns in rows:
            c = float(pg.psql("select hll_cardinality(hll_union_agg(src)) "
                              f"from fleet where host = '{ns}'")[0][0])
            want, est = int(truth[ns]), int(truth[f"est_{ns}"])
            print(f"vm.sh: pg: {ns}: {c:.0f} for {want}, the module's "
                  f"estimate {est}")
            if not want * (1 - 3 * SE) <= c <= want * (1 + 3 * SE) + STRAY:
                bad.append(f"{ns}: {c:.0f} not within 3 SE of {want}")
            if abs(c - est) > 0.01 * est + 1:
                bad.append(f"{ns}: PostgreSQL {c:.0f}, the module {est}")
    finally:
        pg.stop()
    for b in bad:
        print(f"vm.sh: pg: FAIL: {b}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
