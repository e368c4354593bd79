# SPDX-License-Identifier: GPL-2.0
"""A temporary PostgreSQL 15 cluster for the tests, with the hll extension:
on a Unix socket in a temporary directory (no port), run as uid 65534
when started as root (PostgreSQL refuses root), removed by stop()."""
import os
import shutil
import subprocess
import tempfile

PGBIN = "/usr/lib/postgresql/15/bin"
ROOT = os.geteuid() == 0


def as_user(args):
    if ROOT:
        return ["setpriv", "--reuid=65534", "--regid=65534",
                "--clear-groups"] + args
    return args


def sh(args, **kw):
    r = subprocess.run(args, capture_output=True, timeout=300, **kw)
    assert r.returncode == 0, f"{args}: exit {r.returncode}: {r.stderr}"
    return r


class Cluster:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="pktdedup-pg-")
        self.data = os.path.join(self.dir, "data")
        self.sock = os.path.join(self.dir, "sock")

    def start(self):
        os.chmod(self.dir, 0o755)
        os.mkdir(self.sock)
        if ROOT:
            os.chown(self.sock, 65534, 65534)
            os.chown(self.dir, 65534, 65534)
        sh(as_user([f"{PGBIN}/initdb", "-D", self.data, "-A", "trust", "-U",
                    "pd", "--no-sync", "-E", "UTF8"]))
        sh(as_user([f"{PGBIN}/pg_ctl", "-D", self.data, "-w", "-l",
                    os.path.join(self.dir, "log"), "-o",
                    f"-k {self.sock} -c listen_addresses='' -c fsync=off",
                    "start"]))
        self.psql("create extension hll")

    def stop(self):
        if os.path.exists(os.path.join(self.data, "postmaster.pid")):
            subprocess.run(as_user([f"{PGBIN}/pg_ctl", "-D", self.data, "-m",
                                    "fast", "-w", "stop"]),
                           capture_output=True, timeout=120)
        shutil.rmtree(self.dir, ignore_errors=True)

    def psql(self, sql, stdin=None):
        """sql's result rows, fields split on |."""
        r = sh(as_user([f"{PGBIN}/psql", "-h", self.sock, "-U", "pd", "-d",
                        "postgres", "-qAtX", "-v", "ON_ERROR_STOP=1", "-c",
                        sql]), input=stdin)
        return [ln.split("|") for ln in r.stdout.decode().splitlines()]

    def load(self, table, *csv_texts):
        """A fleet table (host, fingerprint, start, end, src, dst) of rows."""
        self.psql(f"drop table if exists {table}")
        self.psql(f"""create table {table} (host text, fingerprint text,
            start_at timestamptz, end_at timestamptz,
            src hll(14, 5, -1, 1), dst hll(14, 5, -1, 1))""")
        for t in csv_texts:
            self.psql(f"\\copy {table} from stdin with (format csv)", stdin=t)
