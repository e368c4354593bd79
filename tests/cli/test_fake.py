#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""dedupctl against a stand-in for the module (BUILD_DIR/dedupctl-fake:
tests/cli/fake_nl.c in place of nl.c), run by `make check`: what set sends
(the stand-in writes each request's config attributes to STATE.req), what
show, save and stats print of known replies, and the round trip of save's
file through -f, on any host. The stand-in checks two things the module
checks (two UDP tunnels on one port, a step over the bound), to see how
dedupctl reports them: the module's answers are the guest's (tests/e2e).

Usage: test_fake.py BUILD_DIR. Prints one line per test and ends with
"N passed, N failed".
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from tap import run_all, test

CTL = os.path.join(sys.argv[1] if len(sys.argv) > 1 else "build",
                   "dedupctl-fake")
TMP = tempfile.mkdtemp(prefix="dedupctl-fake-")
STATE = os.path.join(TMP, "state")
ENCAPS = ["vxlan", "geneve", "gre", "erspan", "gtpu", "ip"]


def fresh():
    """the module as loaded: the defaults, nothing sent yet"""
    for p in (STATE, STATE + ".req"):
        if os.path.exists(p):
            os.unlink(p)


def run(*args, stdin=None):
    r = subprocess.run([CTL, *args], capture_output=True, text=True,
                       timeout=60, input=stdin,
                       env=dict(os.environ, DEDUPCTL_FAKE=STATE))
    return r.returncode, r.stdout, r.stderr


def ok(*args, stdin=None):
    rc, out, err = run(*args, stdin=stdin)
    assert rc == 0, (args, rc, err)
    return out


def sent():
    """the config attributes of the last request, {name: value}"""
    with open(STATE + ".req") as f:
        return dict(line.split() for line in f)


def line(out, head):
    found = [x for x in out.split("\n") if x.startswith(head)]
    assert len(found) == 1, (head, out)
    return found[0]


def set_line(saved):
    return line(saved, "set ").split()


def value_of(words, name):
    return [words[i + 1] for i in range(len(words) - 1)
            if words[i] == name]


@test
def set_sends_the_tunnel_settings():
    for words, want in (
            (["decap", "vxlan,gre"], {"decap": "0x5"}),
            (["decap", "ip,vxlan"], {"decap": "0x21"}),
            (["decap", "all"], {"decap": "0x3f"}),
            (["decap", "none"], {"decap": "0x0"}),
            (["decap", "gtpu", "gtpu-port", "2153"],
             {"decap": "0x10", "gtpu-port": "2153"}),
            (["vxlan-port", "1", "geneve-port", "65535"],
             {"vxlan-port": "1", "geneve-port": "65535"}),
            # a setting given twice: the last, sent once
            (["decap", "gre", "decap", "erspan"], {"decap": "0x8"})):
        fresh()
        ok("set", *words)
        got = sent()
        for k, v in want.items():
            assert got.get(k) == v, (words, k, got)
        for k in ("decap", "vxlan-port", "geneve-port", "gtpu-port",
                  "key-flags"):
            assert k in want or k not in got, (words, k, got)
    # each name is its flag of the uAPI, in pd_encap_names' order
    for i, name in enumerate(ENCAPS):
        fresh()
        ok("set", "decap", name)
        assert sent()["decap"] == hex(1 << i), (name, sent())


@test
def tunnel_id_and_ignore_tos_keep_each_other():
    """key-flags is one attribute: each setting changes its own flag and
    sends the other as it is in force"""
    fresh()
    ok("set", "tunnel-id", "include")
    assert sent()["key-flags"] == "0x2", sent()
    ok("set", "ignore-tos", "on")
    assert sent()["key-flags"] == "0x3", sent()
    ok("set", "tunnel-id", "ignore")
    assert sent()["key-flags"] == "0x1", sent()
    ok("set", "tunnel-id", "include", "ignore-tos", "off")
    assert sent()["key-flags"] == "0x2", sent()
    ok("set", "key", "flow")
    assert "key-flags" not in sent(), sent()
    j = json.loads(ok("-j", "show"))
    assert (j["ignore_tos"], j["tunnel_id"]) == (False, "include"), j


@test
def nonip_sent_shown_saved():
    """nonip pass|dedup is the key flag nonip (0x4): set sends it with the
    other flags as they are in force; show (text, JSON) and save say it;
    save's file brings it back through -f"""
    fresh()
    assert line(ok("show"), "nonip") == \
        "nonip    pass (frames that are not IP: counted in nonip, passed)"
    assert json.loads(ok("-j", "show"))["nonip"] == "pass"
    assert value_of(set_line(ok("save")), "nonip") == ["pass"]
    ok("set", "nonip", "dedup")
    assert sent()["key-flags"] == "0x4", sent()
    ok("set", "ignore-tos", "on")
    assert sent()["key-flags"] == "0x5", sent()
    ok("set", "tunnel-id", "include", "nonip", "pass")
    assert sent()["key-flags"] == "0x3", sent()
    ok("set", "nonip", "dedup", "hook", "ingress", "dev", "eth0")
    assert sent()["key-flags"] == "0x7", sent()
    assert line(ok("show"), "nonip").startswith("nonip    dedup ("), ok("show")
    j = json.loads(ok("-j", "show"))
    assert (j["nonip"], j["ignore_tos"]) == ("dedup", True), j
    saved = ok("save")
    assert value_of(set_line(saved), "nonip") == ["dedup"], saved
    path = os.path.join(TMP, "nonip")
    with open(path, "w") as f:
        f.write(saved)
    ok("set", "nonip", "pass")
    assert value_of(set_line(ok("save")), "nonip") == ["pass"]
    ok("-f", path)
    assert ok("save") == saved
    rc, _, err = run("set", "nonip", "on")
    assert rc == 2 and "nonip: 'on' is not pass or dedup" in err, (rc, err)


@test
def bad_values_send_nothing():
    for words, msg in (
            (["decap", "vxlam"], "decap: 'vxlam' is not one of: vxlan geneve gre erspan gtpu ip"),
            (["decap", "vxlan,vxlan"], "decap: 'vxlan,vxlan' names vxlan twice"),
            (["decap", "gre,"], "decap: 'gre,' has an empty name"),
            (["decap", "none,gre"], "none and all stand alone"),
            (["tunnel-id", "on"], "tunnel-id: 'on' is not include or ignore"),
            (["gtpu-port", "0"], "gtpu-port: '0' is not a number from 1 to 65535"),
            (["key", "flow", "vxlan-port", "70000"],
             "vxlan-port: '70000' is not a number from 1 to 65535")):
        fresh()
        rc, _, err = run("set", *words)
        assert rc == 2 and msg in err, (words, rc, err)
        assert not os.path.exists(STATE + ".req"), words


@test
def show_says_what_is_looked_into():
    fresh()
    assert line(ok("show"), "decap") == "decap    none"
    ok("set", "decap", "gre,vxlan", "vxlan-port", "4790")
    assert line(ok("show"), "decap") == \
        "decap    vxlan,gre (vxlan-port 4790), tunnel-id ignore"
    ok("set", "decap", "ip,erspan", "tunnel-id", "include")
    assert line(ok("show"), "decap") == \
        "decap    erspan,ip, tunnel-id include"
    ok("set", "decap", "all", "geneve-port", "6082")
    assert line(ok("show"), "decap") == \
        "decap    vxlan,geneve,gre,erspan,gtpu,ip (vxlan-port 4790, " \
        "geneve-port 6082, gtpu-port 2152), tunnel-id include"
    # the decap line follows the key line
    out = ok("show").split("\n")
    assert out[0].startswith("key ") and out[1].startswith("decap "), out
    j = json.loads(ok("-j", "show"))
    assert j["decap"] == ENCAPS and j["tunnel_id"] == "include", j
    assert (j["vxlan_port"], j["geneve_port"], j["gtpu_port"]) == \
        (4790, 6082, 2152), j
    ok("set", "decap", "none", "tunnel-id", "ignore")
    j = json.loads(ok("show", "-o", "json"))
    assert j["decap"] == [] and j["tunnel_id"] == "ignore", j


@test
def save_writes_every_tunnel_setting():
    fresh()
    words = set_line(ok("save"))
    for name, want in (("decap", "none"), ("tunnel-id", "ignore"),
                       ("vxlan-port", "4789"), ("geneve-port", "6081"),
                       ("gtpu-port", "2152")):
        assert value_of(words, name) == [want], (name, words)
    ok("set", "decap", "all", "tunnel-id", "include", "gtpu-port", "3386")
    words = set_line(ok("save"))
    assert value_of(words, "decap") == [",".join(ENCAPS)], words
    assert value_of(words, "tunnel-id") == ["include"], words
    assert value_of(words, "gtpu-port") == ["3386"], words


@test
def shards_sent_shown_saved():
    """scope shared's shards: auto is 0 on the wire, a power of two is
    sent as it is, anything else refused before anything is sent; show -j
    and save say what is in force"""
    fresh()
    assert value_of(set_line(ok("save")), "shards") == ["auto"]
    assert json.loads(ok("-j", "show"))["shards"] == "auto"
    for word, wire in (("64", 64), ("1", 1), ("4096", 4096), ("auto", 0)):
        fresh()
        ok("set", "scope", "shared", "shards", word)
        assert sent()["shards"] == hex(wire), (word, sent())
        assert json.loads(ok("-j", "show"))["shards"] == (wire or "auto")
        assert value_of(set_line(ok("save")), "shards") == [word], word
    for word, msg in (("3", "shards: '3' is not a power of two"),
                      ("0", "shards: '0' is not a number from 1 to 4096"),
                      ("8192", "shards: '8192' is not a number from 1 to 4096"),
                      ("many", "shards: 'many' is not a number")):
        fresh()
        rc, _, err = run("set", "shards", word)
        assert rc == 2 and msg in err, (word, rc, err)
        assert not os.path.exists(STATE + ".req"), word


@test
def save_then_f_restores_them():
    """the saved file brings back every tunnel setting, whatever another
    configuration left in force: defaults too"""
    configs = (
        ["decap", "geneve,gtpu", "tunnel-id", "include", "ignore-tos", "on",
         "geneve-port", "6082", "gtpu-port", "2153"],
        ["decap", "vxlan,gre,erspan", "vxlan-port", "8472"],
        ["decap", "none", "tunnel-id", "ignore", "vxlan-port", "4789",
         "geneve-port", "6081", "gtpu-port", "2152", "ignore-tos", "off"],
        ["decap", "all", "tunnel-id", "include", "vxlan-port", "1",
         "geneve-port", "2", "gtpu-port", "3"],
    )
    for i, a in enumerate(configs):
        fresh()
        ok("set", *a)
        saved = ok("save")
        path = os.path.join(TMP, f"saved{i}")
        with open(path, "w") as f:
            f.write(saved)
        for b in configs:
            if b is a:
                continue
            ok("set", *b)
            assert ok("save") != saved, (a, b)
            ok("-f", path)
            assert ok("save") == saved, (a, b, ok("save"), saved)
        # and through the standard input, as batch
        ok("set", *configs[(i + 1) % len(configs)])
        ok("batch", "-", stdin=saved)
        assert ok("save") == saved, a


@test
def a_refusal_names_its_setting_and_line():
    """the module refuses two UDP tunnels on one port (the stand-in as it
    does): set says so; -f blames the line of the port or decap the
    message points at, and nothing changes"""
    msg = ("decap: two UDP tunnels on one port (vxlan-port, geneve-port"
           " and gtpu-port must differ)")
    fresh()
    ok("set", "decap", "vxlan,gtpu")
    before = ok("save")
    rc, _, err = run("set", "gtpu-port", "4789")
    assert rc == 1 and err == f"dedupctl: config.gtpu-port: {msg}\n", (rc, err)
    assert ok("save") == before
    path = os.path.join(TMP, "refused")
    with open(path, "w") as f:
        f.write("set key flow\n# the ports\nset vxlan-port 2152\n"
                "set ignore-tos on\n")
    rc, _, err = run("-f", path)
    assert rc == 1 and err == \
        f"dedupctl: {path}:3: config.vxlan-port: {msg}\n", (rc, err)
    assert ok("save") == before
    with open(path, "w") as f:
        f.write("set geneve-port 4789\nset key flow decap vxlan,geneve\n")
    rc, _, err = run("-f", path)
    assert rc == 1 and err.startswith(
        f"dedupctl: {path}:1: config.geneve-port: "), (rc, err)
    with open(path, "w") as f:
        f.write("set key src\nset decap all\n")
    ok("set", "decap", "none", "gtpu-port", "4789")
    before = ok("save")
    rc, _, err = run("-f", path)
    assert rc == 1 and err.startswith(
        f"dedupctl: {path}:2: config.decap: "), (rc, err)
    assert ok("save") == before



@test
def check_sends_the_flag_and_changes_nothing():
    """-c set and -c -f: the check flag on the wire with the settings, the
    stand-in's state unchanged whether it accepts or refuses; a refused
    file names the first line whose file up to it is refused (what the
    earlier lines would have made), with the module's message; -c with a
    command that changes nothing, or with -j, is refused before sending"""
    msg = ("decap: two UDP tunnels on one port (vxlan-port, geneve-port"
           " and gtpu-port must differ)")
    fresh()
    ok("set", "decap", "vxlan,gtpu")
    before = ok("save")
    with open(STATE, "rb") as f:
        state = f.read()
    rc, out, err = run("-c", "set", "key", "flow", "vxlan-port", "4790")
    assert (rc, out, err) == (0, "", ""), (rc, out, err)
    assert sent().get("check") == "on" and sent()["vxlan-port"] == "4790", \
        sent()
    rc, out, err = run("--check", "set", "gtpu-port", "4789")
    assert rc == 1 and err == f"dedupctl: config.gtpu-port: {msg}\n", \
        (rc, err)
    ok("-c", "enable")
    assert sent() == {"check": "on", "state": "0x1"}, sent()
    path = os.path.join(TMP, "check")
    # line 3 alone is fine; with line 1's decap in force it clashes
    with open(path, "w") as f:
        f.write("set decap vxlan,geneve\n# ports\nset geneve-port 4789\n"
                "set ignore-tos on\n")
    rc, out, err = run("-c", "-f", path)
    assert rc == 1 and err == \
        f"dedupctl: {path}:3: config.geneve-port: {msg}\n", (rc, err)
    assert sent().get("check") == "on", sent()
    with open(path, "w") as f:
        f.write("set key flow\nset vxlan-port 4790\nsources off\n")
    assert ok("-c", "-f", path) == ""
    with open(path, "w") as f:
        f.write("sources on window 30s\n")
    assert ok("-c", "-f", path) == ""
    # sources alone: checked in a SET_CONFIG that keeps the state in force
    state_now = "0x1" if json.loads(ok("show", "-j"))["state"] == "active" \
        else "0x0"
    assert sent() == {"check": "on", "state": state_now}, sent()
    with open(STATE, "rb") as f:
        assert f.read() == state, "the stand-in's state changed"
    assert ok("save") == before
    for args in (("-c", "show"), ("-c", "reset"), ("-c", "-j", "set", "key",
                                                    "flow")):
        rc, out, err = run(*args)
        assert rc == 2 and "-c: " in err, (args, rc, err)
    # the same file applied: the state the check said it would take
    with open(path, "w") as f:
        f.write("set key flow\nset vxlan-port 4790\n")
    ok("-f", path)
    assert "check" not in sent(), sent()
    assert ok("save") != before

REPORT = ["max", "1", "k", "1", "p", "100000000", "mem", "16M", "layout",
          "flat"]
WALK = ("p 100000000: one packet would touch up to 195317 lines (12500288"
        " bytes) of the filter in its P decrements; at most 256 lines (16384"
        " bytes) a packet: lower p, or leave it auto")
# the module's words (a static message, which outlives the request)
KWALK = ("one packet would touch more than 256 lines (16384 bytes) of the"
         " filter in its P decrements: lower p, or leave it auto (dedupctl"
         " plan with these settings gives the numbers)")


@test
def a_step_over_the_bound_is_refused():
    """a filter whose packet walks it (the report's p 100000000 over 16M):
    plan refuses it locally (exit 2), the largest allowed is planned; set
    is refused by the module (the stand-in as it does) pointing at p,
    exit 1, nothing changed, and -f blames the line of p"""
    fresh()
    rc, out, err = run("plan", *REPORT)
    assert rc == 2 and out == "", (rc, out)
    assert err.startswith(f"dedupctl: plan: {WALK}\n"), err
    out = ok("plan", "mem", "16M", "max", "1", "k", "3", "p", "128000",
             "layout", "flat")
    assert "max 1, k 3, p 128000" in out, out
    assert "step     at most 256 lines (16 KiB) of the filter a packet, of" \
        " the 256 (16 KiB) any may\n" in out, out
    j = json.loads(ok("-j", "plan", "mem", "256K", "layout", "flat"))
    assert j["step_lines"] == 7, j        # K 3 + a run of 11 cells
    j = json.loads(ok("-j", "plan", "mem", "256K"))
    assert j["step_lines"] == 2, j        # layout auto: blocked, 2 lines
    # the SBF's layout auto: blocked per CPU, line shared, as set's
    assert "layout line" in ok("plan", "scope", "shared", "mem", "1M")
    assert "layout blocked" in ok("plan", "scope", "percpu", "mem", "1M")
    assert "layout flat" in ok("plan", "mem", "1M", "max", "3")
    # from 4 MiB, line: one line a packet; asked, at any size
    assert "layout blocked" in ok("plan", "mem", "3M")
    j = json.loads(ok("-j", "plan", "mem", "4M"))
    assert (j["step_lines"], j["layout"]) == (1, "line"), j
    j = json.loads(ok("-j", "plan", "mem", "256K", "layout", "line"))
    assert (j["step_lines"], j["layout"]) == (1, "line"), j
    rc, _, err = run("plan", "scope", "all", "mem", "1M")
    assert rc == 2 and "scope: 'all' is not one of" in err, (rc, err)
    before = ok("save")
    rc, _, err = run("set", *REPORT, "scope", "shared")
    assert rc == 1 and err == f"dedupctl: config.filter.sbf.p: {KWALK}\n", \
        (rc, err)
    assert ok("save") == before
    path = os.path.join(TMP, "walk")
    with open(path, "w") as f:
        f.write("set action drop\nset " + " ".join(REPORT) + "\n")
    rc, _, err = run("-f", path)
    assert rc == 1 and err == \
        f"dedupctl: {path}:2: config.filter.sbf.p: {KWALK}\n", (rc, err)
    assert ok("save") == before
    # the k that makes the planner's P too many, at fps 10^-6
    rc, _, err = run("set", "k", "1", "fps", "0.000001", "mem", "16M")
    assert rc == 1 and err.startswith(
        "dedupctl: config.filter.sbf.k: one packet would touch more than"
        " 256 lines"), (rc, err)
    assert ok("save") == before


@test
def stats_per_encapsulation():
    fresh()
    out = ok("stats")
    assert "decap" not in out, out
    assert "decap" not in json.dumps(json.loads(ok("-j", "stats")))
    assert "decap" not in ok("stats", "-o", "prometheus")
    ok("set", "decap", "vxlan,gre")
    # the stand-in: encapsulation i has 1000 (i + 1) frames, i errors
    row = line(ok("stats"), "total")
    assert row.endswith("  decap vxlan 1000 errors 0, gre 3000 errors 2"), row
    j = json.loads(ok("-j", "stats"))
    assert j["decap"] == [{"encap": "vxlan", "frames": 1000, "errors": 0},
                          {"encap": "gre", "frames": 3000, "errors": 2}], j
    out = ok("stats", "percpu")
    for cpu in "01":
        assert line(out, cpu + " ").endswith(
            "  decap vxlan 500 errors 0, gre 1500 errors 1"), out
    j = json.loads(ok("-j", "stats", "percpu"))
    assert [r["cpu"] for r in j] == [0, 1], j
    assert all(r["decap"][1] == {"encap": "gre", "frames": 1500,
                                 "errors": 1} for r in j), j


@test
def stats_per_device():
    """the totals' duplicate percentage; with devices named, a row each
    (the stand-in: name i has 1000 (i + 1) packets, 100 i duplicates and
    dropped) in text, JSON and Prometheus, none without"""
    fresh()
    out = ok("stats")
    assert line(out, "cpu ").split()[3:5] == ["dup", "%"], out
    assert line(out, "total").split()[3] == "40.00%", out
    assert "dev " not in out and "devices" not in ok("-j", "stats"), out
    assert "pktdedup_device_" not in ok("stats", "-o", "prometheus")
    ok("set", "dev", "tap-a,tap-b")
    out = ok("stats")
    assert line(out, "dev ").split() == \
        ["dev", "packets", "duplicates", "dup", "%", "marked", "dropped"], out
    assert line(out, "tap-a ").split() == \
        ["tap-a", "1000", "0", "0.00%", "0", "0"], out
    assert line(out, "tap-b ").split() == \
        ["tap-b", "2000", "100", "5.00%", "0", "100"], out
    j = json.loads(ok("-j", "stats"))
    assert j["devices"] == [
        {"name": "tap-a", "packets": 1000, "duplicates": 0, "marked": 0,
         "dropped": 0},
        {"name": "tap-b", "packets": 2000, "duplicates": 100, "marked": 0,
         "dropped": 100}], j
    # the totals of one CPU only: no device in the per-CPU rows
    assert "devices" not in ok("-j", "stats", "percpu")
    assert "tap-a" not in ok("stats", "percpu")
    ns = os.stat("/proc/self/ns/net").st_ino
    out = ok("stats", "-o", "prometheus")
    assert (f'pktdedup_device_packets_total{{netns="{ns}",dev="tap-b"}}'
            " 2000\n") in out, out
    assert (f'pktdedup_device_dropped_packets_total{{netns="{ns}",'
            'dev="tap-b"} 100\n') in out, out
    promtool(out)


@test
def show_says_what_is_not_running():
    """the source windows refused, a CPU without its state: show says
    which cap refused how many bytes, stats counts what passed unjudged;
    with everything running, none of it"""
    fresh()
    out = ok("show")
    assert "sources  off" not in out and "cpus     " not in out, out
    assert "unjudged" not in ok("stats")
    os.environ["DEDUPCTL_FAKE_REFUSED"] = "1"
    try:
        out = ok("show")
        j = json.loads(ok("-j", "show"))
        stats = ok("stats")
        js = json.loads(ok("-j", "stats"))
    finally:
        del os.environ["DEDUPCTL_FAKE_REFUSED"]
    assert line(out, "sources  ") == \
        "sources  off: no room: 97 MiB needed, cap 256 MiB (max_netns_mem)", out
    assert line(out, "cpus     ") == (
        "cpus     of 4 online: 1 without a filter (their packets pass "
        "unjudged), 1 without source windows: no room: 1.2 MiB needed, "
        "cap 48 MiB (max_user_mem)"), out
    b = j["budget"]
    assert (b["sources_refused_by"], b["sources_refused_need_bytes"]) == \
        ("max_netns_mem", 101711872), b
    assert (b["cpu_refused_by"], b["cpu_refused_need_bytes"]) == \
        ("max_user_mem", 1310720), b
    assert "sources_refused_need" not in b and "cpu_refused_need" not in b
    assert b["user_cap_bytes"] == 50331648 and "user_cap" not in b, b
    assert (b["cpus_online"], b["cpus_no_filter"], b["cpus_no_sources"]) \
        == (4, 1, 1), b
    assert line(stats, "total").endswith("  unjudged 14"), stats
    assert js["unjudged"] == 14, js


@test
def stats_memory():
    """the totals' rate and memory (the stand-in: $DEDUPCTL_FAKE_MEMORY,
    packets, ns, rate) as the memory line, JSON members with their units
    and Prometheus gauges; each left out when the module leaves it out"""
    fresh()
    ns = os.stat("/proc/self/ns/net").st_ino

    def read(mem):
        os.environ["DEDUPCTL_FAKE_MEMORY"] = mem
        try:
            return (ok("stats"), json.loads(ok("-j", "stats")),
                    ok("stats", "-o", "prometheus"), ok("stats", "percpu"))
        finally:
            del os.environ["DEDUPCTL_FAKE_MEMORY"]

    out, j, prom, percpu = read("41300,2107142857,19600")
    assert line(out, "memory:") == (
        "memory: copies up to 41,300 packets apart are caught (99%), about"
        " 2.107 s at the current 19.6 kpps"), out
    assert (j["rate_pps"], j["memory_packets"], j["memory_ns"]) == \
        (19600, 41300, 2107142857), j
    assert f'pktdedup_packet_rate{{netns="{ns}"}} 19600\n' in prom, prom
    assert f'pktdedup_filter_memory_packets{{netns="{ns}"}} 41300\n' in prom
    assert (f'pktdedup_filter_memory_seconds{{netns="{ns}"}} 2.10714286\n'
            in prom), prom
    promtool(prom)
    assert "memory" not in percpu, percpu
    # the first read: no rate yet, the model's packets alone
    out, j, prom, _ = read("159,,")
    assert line(out, "memory:") == (
        "memory: copies up to 159 packets apart are caught (99%), rate not"
        " measured yet; read again in a second"), out
    assert j["memory_packets"] == 159 and "rate_pps" not in j \
        and "memory_ns" not in j, j
    assert "pktdedup_packet_rate" not in prom \
        and "pktdedup_filter_memory_seconds" not in prom, prom
    promtool(prom)
    # no packets in the last interval: no time
    out, j, _, _ = read("159,,0")
    assert line(out, "memory:").endswith(
        "(99%); no packets came in the last interval, so no time"), out
    assert j["rate_pps"] == 0, j
    # P 0: never forgets
    out, _, _, _ = read("18446744073709551615,18446744073709551615,5")
    assert line(out, "memory:") == "memory: copies at any distance are" \
        " caught (no decrements: the filter never forgets)", out
    # a family without a model: the rate alone; idle or first read: nothing
    out, j, _, _ = read(",,2500000")
    assert line(out, "memory:") == "memory: not modelled for this filter" \
        " family; the rate is 2.5 Mpps", out
    out, j, prom, _ = read(",,")
    assert "memory" not in out and "memory_packets" not in j \
        and "filter_memory" not in prom, out


@test
def show_json_says_auto():
    """-j show: an automatic setting is the string "auto", a set one its
    number; every byte of the payload "all"; sizes in _bytes, the gap in
    _packets, the old names gone"""
    fresh()
    j = json.loads(ok("-j", "show"))
    for name in ("shards", "max", "k", "p", "gap_packets"):
        assert j[name] == "auto", (name, j)
    assert (j["payload_bytes"], j["mem_bytes"]) == (64, 262144), j
    for old in ("payload", "mem", "gap"):
        assert old not in j, (old, j)
    ok("set", "scope", "shared", "shards", "4", "max", "7", "k", "3", "p",
       "10", "gap", "500", "payload", "all", "mem", "1M")
    j = json.loads(ok("-j", "show"))
    assert (j["shards"], j["max"], j["k"], j["p"], j["gap_packets"]) == \
        (4, 7, 3, 10, 500), j
    assert (j["payload_bytes"], j["mem_bytes"]) == ("all", 1048576), j
    # back to auto: the strings again
    ok("set", "shards", "auto", "max", "auto", "k", "auto", "p", "auto",
       "gap", "auto", "payload", "0")
    j = json.loads(ok("-j", "show"))
    for name in ("shards", "max", "k", "p", "gap_packets"):
        assert j[name] == "auto", (name, j)
    assert j["payload_bytes"] == 0, j


@test
def json_names_carry_units():
    """the budget's bytes, a window's ns or packets, sources' and plan's
    sizes and gaps: each name with its unit, the old name absent"""
    fresh()
    b = json.loads(ok("-j", "show"))["budget"]
    assert (b["cap_bytes"], b["total_cap_bytes"]) == \
        (268435456, 1073741824), b
    for name in ("held", "filters", "sources", "peak", "refused",
                 "total_held"):
        assert isinstance(b[name + "_bytes"], int), (name, b)
    for old in ("cap", "held", "filters", "sources", "peak", "refused",
                "total_cap", "total_held"):
        assert old not in b, (old, b)
    for unit, want in (("ns", (2000000, 1500000, 1000000)),
                       ("packets", (100000, 75000, 50000))):
        os.environ["DEDUPCTL_FAKE_WINDOW"] = unit
        try:
            j = json.loads(ok("-j", "stats"))
            prom = ok("stats", "-o", "prometheus")
        finally:
            del os.environ["DEDUPCTL_FAKE_WINDOW"]
        assert (j["window_" + unit], j["window_effective_" + unit],
                j["window_shortest_" + unit]) == want, j
        assert (j["window_entries"], j["early_expiries"]) == (4242, 7), j
        assert "window_effective" not in j and "window_shortest" not in j
        other = "packets" if unit == "ns" else "ns"
        assert "window_effective_" + other not in j, j
        promtool(prom)
    j = json.loads(ok("-j", "sources"))
    assert (j["new_mem_bytes"], j["new_gap_packets"], j["ring_entries"]) \
        == (65536, 1000, 1024), j
    assert isinstance(j["mem_total_bytes"], int), j
    for old in ("new_mem", "new_gap", "ring", "mem_total"):
        assert old not in j, (old, j)
    j = json.loads(ok("-j", "plan", "mem", "1M"))
    assert (j["mem_asked_bytes"], j["mem_bytes"], j["gap_packets"]) == \
        (1048576, 1048576, 200), j
    assert "mem" not in j and "gap" not in j, j
    j = json.loads(ok("-j", "plan", "window", "2ms", "rate", "1M"))
    assert (j["mem_asked_bytes"], j["window_ns"], j["rate_pps"]) == \
        ("auto", 2000000, 1088500), j
    assert "rate" not in j, j
    # rate auto is rate 0: sized from mem
    assert ok("-j", "plan", "window", "2ms", "rate", "auto", "mem", "1M") \
        == ok("-j", "plan", "window", "2ms", "rate", "0", "mem", "1M")


def promtool(text):
    r = subprocess.run(["promtool", "check", "metrics"], input=text,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and not (r.stdout + r.stderr).strip(), \
        (r.stdout, r.stderr, text)


@test
def prometheus_per_encapsulation():
    fresh()
    ok("set", "decap", "gtpu,ip")
    ns = os.stat("/proc/self/ns/net").st_ino
    out = ok("stats", "-o", "prometheus")
    want = (
        "# HELP pktdedup_decap_frames_total Frames that came through each encapsulation looked into (config decap), keyed by the packet inside.\n"
        "# TYPE pktdedup_decap_frames_total counter\n"
        f'pktdedup_decap_frames_total{{netns="{ns}",encap="gtpu"}} 5000\n'
        f'pktdedup_decap_frames_total{{netns="{ns}",encap="ip"}} 6000\n'
        "# HELP pktdedup_decap_errors_total Frames whose header of the encapsulation was malformed or cut short (also in unparsed_packets_total).\n"
        "# TYPE pktdedup_decap_errors_total counter\n"
        f'pktdedup_decap_errors_total{{netns="{ns}",encap="gtpu"}} 4\n'
        f'pktdedup_decap_errors_total{{netns="{ns}",encap="ip"}} 5\n')
    assert want in out, out
    promtool(out)
    out = ok("-o", "prometheus", "stats", "percpu")
    assert f'pktdedup_decap_frames_total{{netns="{ns}",cpu="1",encap="ip"}} 3000\n' in out, out
    assert f'pktdedup_decap_errors_total{{netns="{ns}",cpu="0",encap="gtpu"}} 2\n' in out, out
    promtool(out)


@test
def conventions_of_ip_and_nft():
    """--version; -j, -o and -n after the command too; two formats refused;
    -n a name ip netns knows, refused clearly when there is none;
    force on the wire"""
    fresh()
    out = ok("--version")
    assert out.startswith("dedupctl 0.9.0, netlink protocol version 2\n"), out
    assert "\nmodule   pktdedup " in out and \
        out.endswith(", netlink protocol version 2\n"), out
    assert ok("-V") == out
    # after the command, as before it
    assert ok("show", "-j").startswith("{"), "show -j"
    assert ok("stats", "-o", "json").startswith("{"), "stats -o json"
    assert ok("-j", "-o", "json", "show").startswith("{"), "-j -o json"
    for args in (("-j", "stats", "-o", "prometheus"),
                 ("-o", "prometheus", "-j", "stats"),
                 ("stats", "-o", "text", "-j")):
        rc, out, err = run(*args)
        assert rc == 2 and "two output formats" in err and not out, \
            (args, rc, err)
    rc, out, err = run("-n", "pd-no-such-netns", "show")
    assert rc == 1 and "/run/netns/pd-no-such-netns: No such file" in err, \
        (rc, err)
    for bad in ("a/b", "..", ""):
        rc, out, err = run("-n", bad, "show")
        assert rc == 2 and "-n: give the name of a network namespace" in err, \
            (bad, rc, err)
    rc, out, err = run("show", "-n")
    assert rc == 2, (rc, err)
    # force: a flag on the wire, only when said
    ok("set", "key", "flow", "action", "drop", "force")
    assert sent().get("force") == "on", sent()
    ok("set", "action", "drop")
    assert "force" not in sent(), sent()


if __name__ == "__main__":
    if not os.access(CTL, os.X_OK):
        print(f"not ok {CTL} is not built (make)")
        print("0 passed, 1 failed")
        sys.exit(1)
    rc = run_all()
    shutil.rmtree(TMP, ignore_errors=True)
    sys.exit(rc)
