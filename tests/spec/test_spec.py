#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""
The netlink spec (Documentation/netlink/specs/pktdedup.yaml) and what is
made from it agree, and the generator refuses what a 6.1 kernel could not
describe in a policy dump. The live policy dump is compared with the spec
in the e2e guest (tests/e2e/scenarios.sh, t_policy).

Ends with "N passed, N failed".
"""
import copy
import os
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SPEC = os.path.join(ROOT, "Documentation/netlink/specs/pktdedup.yaml")
NLSPEC = [sys.executable, os.path.join(ROOT, "scripts/nlspec.py")]
CC = os.environ.get("CC", "cc")

passed = failed = 0


def result(ok, name, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok {name}")
    else:
        failed += 1
        print(f"not ok {name}")
        for line in detail.strip().splitlines()[:40]:
            print(f"    {line}")


def nlspec(*args, spec=None):
    cmd = NLSPEC + (["--spec", spec] if spec else []) + list(args)
    return subprocess.run(cmd, capture_output=True, text=True)


def load():
    with open(SPEC) as f:
        return yaml.safe_load(f)


def with_spec(doc):
    """Write doc to a temporary spec file; returns its path."""
    f = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
    yaml.safe_dump(doc, f)
    f.close()
    return f.name


def attr(doc, set_name, attr_name):
    for s in doc["attribute-sets"]:
        if s["name"] == set_name:
            for a in s["attributes"]:
                if a["name"] == attr_name:
                    return a
    raise KeyError(f"{set_name}.{attr_name}")


def test_generated_files():
    r = nlspec("check")
    result(r.returncode == 0,
           "the committed uAPI header, kernel policies and userspace tables "
           "are what the spec generates", r.stdout + r.stderr)


def test_values():
    """Every C constant the spec defines has, in C, the spec's value."""
    r = nlspec("values")
    if r.returncode:
        result(False, "nlspec values", r.stderr)
        return
    want = [line.split() for line in r.stdout.splitlines()]
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "values.c")
        with open(src, "w") as f:
            f.write('#include <stdio.h>\n#include "module/uapi/pktdedup.h"\n'
                    "int main(void)\n{\n")
            for c, _ in want:
                f.write(f'\tprintf("{c} %llu\\n", '
                        f"(unsigned long long){c});\n")
            f.write("\treturn 0;\n}\n")
        exe = os.path.join(d, "values")
        cc = subprocess.run([CC, "-std=c11", "-Wall", "-Werror", "-I", ROOT,
                             "-o", exe, src], capture_output=True, text=True)
        if cc.returncode:
            result(False, "the uAPI header compiles on its own", cc.stderr)
            return
        got = [line.split() for line in
               subprocess.run([exe], capture_output=True,
                              text=True).stdout.splitlines()]
    bad = [f"{c}: spec {v}, C {g[1]}" for (c, v), g in zip(want, got)
           if g[0] != c or int(g[1]) != int(v)]
    result(len(got) == len(want) and not bad and len(want) > 100,
           f"the uAPI header's {len(want)} constants have the spec's values",
           "\n".join(bad))


def test_change_detected():
    """A spec changed without regenerating fails the check."""
    doc = load()
    attr(doc, "config", "priority")["checks"]["max"] = 2147483645
    path = with_spec(doc)
    r = nlspec("check", spec=path)
    os.unlink(path)
    result(r.returncode == 1 and "not ok module/nl_gen.c" in r.stdout and
           "not ok module/uapi/pktdedup.h" in r.stdout,
           "a range changed in the spec alone makes the check fail",
           r.stdout + r.stderr)


def refused(name, mutate, expect):
    doc = load()
    mutate(doc)
    path = with_spec(doc)
    r = nlspec("lint", spec=path)
    os.unlink(path)
    result(r.returncode == 1 and expect in r.stderr,
           f"the generator refuses {name}",
           f"exit {r.returncode}: {r.stdout}{r.stderr}")


def test_refusals():
    def validate_fn(d):
        attr(d, "settings", "cell-bits")["checks"] = {"validate": "fn"}
    refused("a validation the 6.1 dump cannot describe", validate_fn,
            "not one the 6.1 policy dump can describe")

    def too_wide(d):
        attr(d, "settings", "k")["checks"] = {"max": 300}
    refused("a range wider than its type", too_wide, "within a u8")

    def be16(d):
        attr(d, "query", "sport")["type"] = "be16"
    refused("a type the 6.1 dump skips (be16)", be16, "unsupported")

    def len_on_int(d):
        attr(d, "window", "last-ms")["checks"] = {"min-len": 4}
    refused("a length check on an integer", len_on_int, "can describe")

    def dup(d):
        attr(d, "filter-plan", "cell-max")["name"] = "max"
    refused("two C names alike", dup, "defined twice")

    def dangling(d):
        attr(d, "config", "filter")["nested-attributes"] = "nowhere"
    refused("a nest of no set", dangling, "no set")

    def unknown_key(d):
        attr(d, "config", "key")["validate"] = "pd_validate_key"
    refused("a key the generator does not know", unknown_key,
            "unknown keys")

    def subset_check(d):
        for s_ in d["attribute-sets"]:
            if s_["name"] == "bitf":
                s_["attributes"][0]["checks"] = {"max": 3}
    refused("a subset that redefines an attribute", subset_check,
            "names its attributes only")

    def split(d):
        for op in d["operations"]["list"]:
            if op["name"] == "get-stats":
                op["dump"]["request"]["attributes"] = []
    refused("a dump and a do with different requests (one policy in 6.1)",
            split, "share one policy")


def test_dump_covers_requests():
    """The expected policy dump lists every request attribute of the spec."""
    r = nlspec("policy-dump")
    doc = load()
    lines = r.stdout.splitlines()
    missing = []
    for op in doc["operations"]["list"]:
        for mode in ("do", "dump"):
            req = op.get(mode, {}).get("request", {}).get("attributes")
            if req is None:
                continue
            head = [i for i, x in enumerate(lines)
                    if x.startswith(f"op {op['name']} ") and
                    x.endswith(f" {mode}")]
            if not head:
                missing.append(f"op {op['name']} {mode}")
                continue
            block = []
            for x in lines[head[0] + 1:]:
                if x.startswith("op "):
                    break
                block.append(x)
            for a in req:
                if not any(x.startswith(f"  {a} ") for x in block):
                    missing.append(f"{op['name']} {mode}: {a}")
    result(r.returncode == 0 and not missing,
           "the expected policy dump holds every operation's request",
           "\n".join(missing) + r.stderr)


def test_core_names():
    """The names the core gives placements, actions, scopes and
    encapsulations (/proc's, dedupctl's, the module parameters') are the
    spec's enum entries, and the decap flags', in the spec's order (a
    flag's name is its bit's: dedupctl's decap list)."""
    doc = load()
    enums = {d["name"]: [e["name"] if isinstance(e, dict) else e
                         for e in d["entries"]]
             for d in doc["definitions"]
             if d.get("type") in ("enum", "flags")}
    tables = {"hook": ("PD_NHOOKS", "pd_placement_name(i)"),
              "action": ("PD_NACTIONS", "pd_action_names[i]"),
              "scope": ("PD_NSCOPES", "pd_scope_names[i]"),
              "decap": ("PD_NENCAPS", "pd_encap_names[i]")}
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "names.c")
        with open(src, "w") as f:
            f.write('#include <stdio.h>\n#include "config.h"\n'
                    '#include "decap.h"\n'
                    "int main(void)\n{\n\tunsigned int i;\n\n")
            for e, (n, name) in tables.items():
                f.write(f"\tfor (i = 0; i < {n}; i++)\n"
                        f'\t\tprintf("{e} %s\\n", {name});\n')
            f.write("\treturn 0;\n}\n")
        exe = os.path.join(d, "names")
        core = sorted(os.path.join(ROOT, "module/core", c) for c in
                      os.listdir(os.path.join(ROOT, "module/core"))
                      if c.endswith(".c"))
        cc = subprocess.run([CC, "-std=gnu11", "-Wall", "-Werror",
                             "-I", os.path.join(ROOT, "module/core"),
                             "-I", os.path.join(ROOT, "userspace/common"),
                             "-o", exe, src] + core + ["-lm"],
                            capture_output=True, text=True)
        if cc.returncode:
            result(False, "the core's name tables compile", cc.stderr)
            return
        got = {}
        for line in subprocess.run([exe], capture_output=True,
                                   text=True).stdout.splitlines():
            e, name = line.split()
            got.setdefault(e, []).append(name)
    bad = [f"{e}: core {got.get(e)}, spec {enums.get(e)}" for e in tables
           if got.get(e) != enums.get(e)]
    result(not bad, "the core's placement, action, scope and "
           "encapsulation names are the spec's entries", "\n".join(bad))


for t in (test_generated_files, test_values, test_change_detected,
          test_refusals, test_dump_covers_requests, test_core_names):
    t()
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
