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

Then Documentation/user/fleet.md's recipe (t_recipe_fleet prints each
host's rows from the page's cron command up to its psql between
"pd-fleet-begin NAME" and "pd-fleet-end NAME", then "pd-fleet-truth"):
the page's table SQL, then the rest of its cron command (psql service=
fleet ..., through a pg_service.conf naming the temporary cluster) with
each host's rows, twice (the second inserts nothing), then the page's
queries, each word for word; the fleet's count within 3 standard errors
of the exact union, and each host's.

Usage: guest_sketches.py CONSOLE_LOG; prints "vm.sh: pg: ..." lines,
exits 1 on a failure."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from pgtmp import PGBIN, Cluster, as_user  # noqa: E402

SE = 1.04 / 128
STRAY = 8       # sources of the guest's own traffic a namespace may count


PAGE = os.path.join(os.path.dirname(__file__), "..", "..",
                    "Documentation", "user", "fleet.md")


def blocks(log, tag):
    """The rows between pd-TAG-begin NAME and pd-TAG-end NAME, and the
    pd-TAG-truth line's fields."""
    rows, truth, cur = {}, None, None
    with open(log, "rb") as f:
        for raw in f:
            ln = raw.decode("utf-8", "replace").rstrip("\r\n")
            if ln.startswith(f"pd-{tag}-begin "):
                cur = ln.split()[1]
                rows[cur] = []
            elif ln.startswith(f"pd-{tag}-end "):
                cur = None
            elif ln.startswith(f"pd-{tag}-truth "):
                truth = dict(kv.split("=") for kv in ln.split()[1:])
            elif cur:
                rows[cur].append(ln)
    return rows, truth


def page_block(kind, name):
    """The fenced block after <!-- KIND: NAME --> in fleet.md."""
    with open(PAGE) as f:
        text = f.read()
    m = re.search(rf"^<!-- {kind}: {name} -->\n```[a-z]*\n(.*?)^```", text,
                  re.M | re.S)
    assert m, f"fleet.md has no {kind} {name}"
    return m.group(1)


def within(got, want):
    return want * (1 - 3 * SE) <= got <= want * (1 + 3 * SE) + STRAY


def fleet_recipe(pg, rows, truth, bad):
    """fleet.md's SQL and the psql end of its cron job, word for word."""
    cron = page_block("cron", "fleet-cron").strip()
    psql_cmd = "psql " + cron.split(" | psql ", 1)[1]
    svc = os.path.join(pg.dir, "pg_service.conf")
    with open(svc, "w") as f:
        f.write(f"[fleet]\nhost={pg.sock}\nuser=pd\ndbname=postgres\n")
    os.chmod(svc, 0o644)
    env = dict(os.environ, PGSERVICEFILE=svc,
               PATH=f"{PGBIN}:{os.environ.get('PATH', '/usr/bin:/bin')}")
    pg.psql(page_block("sql", "fleet-table"))
    n = []
    for rnd in (1, 2):
        for host, r in rows.items():
            out = subprocess.run(as_user(["sh", "-c", psql_cmd]),
                                 input="\n".join(r).encode() + b"\n",
                                 env=env, capture_output=True, timeout=120)
            if out.returncode:
                bad.append(f"the cron job's psql for {host}: {out.stderr}")
        n.append(int(pg.psql("select count(*) from fleet")[0][0]))
    print(f"vm.sh: pg: fleet.md: {n[0]} rows inserted, {n[1] - n[0]} more "
          "when the same minutes came again")
    if n[0] != sum(len(r) for r in rows.values()) or n[1] != n[0]:
        bad.append(f"rows {n}, want {sum(len(r) for r in rows.values())} twice")
    res = pg.psql(page_block("sql", "fleet-queries"))
    fleet = [r for r in res if len(r) == 2]
    hosts = {r[0]: float(r[2]) for r in res if len(r) == 3}
    print(f"vm.sh: pg: fleet.md: the last hour {fleet}, per host and day "
          f"{hosts} (exact {truth['union']}, b {truth['b']}, e {truth['e']})")
    if len(fleet) != 1 or fleet[0][0] != truth["fingerprint"] or \
            not within(float(fleet[0][1]), int(truth["union"])):
        bad.append(f"fleet.md: the last hour {fleet}, want "
                   f"{truth['union']} for {truth['fingerprint']}")
    for h in ("b", "e"):
        if h not in hosts or not within(hosts[h], int(truth[h])):
            bad.append(f"fleet.md: host {h}: {hosts.get(h)}, want {truth[h]}")


def main(log):
    rows, truth = blocks(log, "sketch")
    frows, ftruth = blocks(log, "fleet")
    if not rows and not frows:
        return 0
    bad = []
    pg = Cluster()
    try:
        pg.start()
        if frows:
            fleet_recipe(pg, frows, ftruth, bad)
        if not rows:
            return report(bad)
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
        if not within(u, exact):
            bad.append(f"union {u:.0f} not within 3 SE of {exact}")
        for ns in rows:
            c = float(pg.psql("select hll_cardinality(hll_union_agg(src)) "
                              f"from fleet where host = '{ns}'")[0][0])
            want, est = int(truth[ns]), int(truth[f"est_{ns}"])
            print(f"vm.sh: pg: {ns}: {c:.0f} for {want}, the module's "
                  f"estimate {est}")
            if not within(c, want):
                bad.append(f"{ns}: {c:.0f} not within 3 SE of {want}")
            if abs(c - est) > 0.01 * est + 1:
                bad.append(f"{ns}: PostgreSQL {c:.0f}, the module {est}")
    finally:
        pg.stop()
    return report(bad)


def report(bad):
    for b in bad:
        print(f"vm.sh: pg: FAIL: {b}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
