#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""dedupctl -f FILE (and batch FILE) without a kernel, run by `make check`:
every line is checked before netlink is opened, so a bad file ends with
exit 2 and "dedupctl: FILE:LINE: message" on any host, module loaded or
not, and its message is the command line's own for the same words (one
parser). A good file gets past the checks (exit 1 where no module is
loaded: it then needs the kernel). The round trip with the kernel is the
guest's t_save_batch.

Usage: test_batch.py BUILD_DIR. Prints one line per test and ends with
"N passed, N failed".
"""
import os
import subprocess
import sys
import tempfile

from tap import run_all, test

CTL = os.path.join(sys.argv[1] if len(sys.argv) > 1 else "build", "dedupctl")
TMP = tempfile.mkdtemp(prefix="dedupctl-batch-")


def run(*args, stdin=None):
    r = subprocess.run([CTL, *args], capture_output=True, timeout=30,
                       input=stdin)
    return r.returncode, r.stderr.decode(errors="replace")


def file_of(text, name="conf"):
    path = os.path.join(TMP, name)
    with open(path, "wb") as f:
        f.write(text if isinstance(text, bytes) else text.encode())
    return path


def bad(text, line, what):
    """-f on text: exit 2, the message on FILE:line and containing what"""
    path = file_of(text)
    rc, err = run("-f", path)
    assert rc == 2, (rc, err)
    assert err.startswith(f"dedupctl: {path}:{line}: "), err
    assert what in err, (what, err)
    return err


@test
def a_bad_value_names_its_line():
    bad("set key flow\n# comment\n\nsources on window 10s\nset fps 2\n", 5,
        "fps: '2' is not a probability")


@test
def the_first_bad_line_is_named():
    bad("set key src\nset max 5\nset key nosuch\n", 2, "max: '5'")


@test
def comments_and_blank_lines_count_as_lines():
    bad("# a comment\n\n   \t\nset key flow   # a comment after words\n"
        "set action nosuch\n", 5, "action: 'nosuch' is not one of: count mark drop")


@test
def only_configuration_commands():
    for cmd in ("stats", "query src 10.0.0.1", "reset", "show", "monitor",
                "plan mem 1M", "save", "batch x", "-j", "help"):
        bad(f"set key flow\n{cmd}\n", 2,
            f"'{cmd.split()[0]}' cannot be used in a file")
    bad("frobnicate\n", 1, "unknown command 'frobnicate'")


@test
def set_sources_enable_disable_shapes():
    bad("set\n", 1, "set: nothing to set")
    bad("set key\n", 1, "'key' needs a value")
    bad("sources\n", 1, "sources: give on, off or settings")
    bad("sources window\n", 1, "sources: 'window' needs a value")
    bad("sources ring 100\n", 1, "ring: '100' is not a power of two")
    bad("enable now\n", 1, "enable: unexpected 'now'")
    bad("disable 1\n", 1, "disable: unexpected '1'")
    bad("set importance mark\n", 1, "importance mark: needs a MASK")


@test
def the_command_lines_own_messages():
    """the same words, the same message: one parser for both"""
    for words in (["set", "fps", "2"], ["set", "mem", "1X"],
                  ["set", "colour", "blue"], ["set", "window", "2days"],
                  ["sources", "counters", "3"], ["set", "priority", "x"],
                  ["set", "seed", "-1"], ["set", "seed", "18446744073709551616"],
                  ["set", "seed", "fixed"], ["set", "decap", "vxlam"],
                  ["set", "decap", "gre,gre"], ["set", "tunnel-id", "on"],
                  ["set", "vxlan-port", "0"], ["set", "gtpu-port", "65536"]):
        rc1, err1 = run(*words)
        assert rc1 == 2, (words, rc1, err1)
        path = file_of(" ".join(words) + "\n")
        rc2, err2 = run("-f", path)
        assert rc2 == 2, (words, rc2, err2)
        assert err2 == err1.replace("dedupctl: ", f"dedupctl: {path}:1: ", 1), \
            (err1, err2)


@test
def seed_values():
    """seed: random or a u64 (decimal, 0x hex), nothing else"""
    bad("set key flow\nset seed 1.5\n", 2,
        "seed: '1.5' is not random or a number from 0 to 2^64 - 1")
    bad("set seed\n", 1, "'seed' needs a value")
    bad("set seed 0x1ffffffffffffffff\n", 1, "seed: '0x1ffffffffffffffff'")


@test
def tunnel_settings():
    """decap: none, all or names of the encapsulations, each once;
    tunnel-id include or ignore; the UDP tunnels' ports 1 to 65535"""
    names = "vxlan geneve gre erspan gtpu ip"
    bad("set key flow\nset decap vxlan,geneve,nvgre\n", 2,
        f"decap: 'nvgre' is not one of: {names} (a comma-separated list of"
        " them, none or all)")
    bad("set decap gtpu,ip,gtpu\n", 1, "decap: 'gtpu,ip,gtpu' names gtpu twice")
    bad("set decap vxlan,\n", 1, "decap: 'vxlan,' has an empty name")
    bad("set decap all,gre\n", 1, "none and all stand alone, not in a list")
    bad("set decap None\n", 1, "decap: 'None' is not one of")
    bad("set decap\n", 1, "'decap' needs a value")
    bad("set tunnel-id yes\n", 1, "tunnel-id: 'yes' is not include or ignore")
    for port in ("vxlan-port", "geneve-port", "gtpu-port"):
        for v in ("0", "65536", "-1", "4789x", ""):
            bad(f"set {port} {v}\n", 1,
                f"{port}: '{v}' is not a number from 1 to 65535"
                if v else f"'{port}' needs a value")
    # a good setting before a bad one on the same line: still nothing sent
    bad("set decap vxlan vxlan-port 70000\n", 1, "vxlan-port: '70000'")


@test
def standard_input():
    rc, err = run("-f", "-", stdin=b"set key flow\nset fps 2\n")
    assert rc == 2 and err.startswith("dedupctl: <stdin>:2: fps"), (rc, err)
    rc, err = run("batch", "-", stdin=b"stats\n")
    assert rc == 2 and err.startswith("dedupctl: <stdin>:1: 'stats'"), (rc, err)


@test
def batch_is_f():
    path = file_of("set key flow\nset fps 2\n")
    assert run("batch", path) == run("-f", path)
    assert run("--file", path) == run("-f", path)


@test
def good_files_pass_the_checks():
    """past the checks, only the kernel is missing (or answers): never 2"""
    for text in ("set key flow payload 32 ignore-tos on action mark mark"
                 " 0x10/0xff scope shared hook input priority -100 filter"
                 " jumping mem 256K fps 0.001 window 2ms rate 100000"
                 " subwindows 15 warn-below 20 state active\n"
                 "sources on window 20s subwindows 10 counters 64 new on"
                 " new-mem 128K new-gap 500 event-rate 100 ring 256\n",
                 "set landmark 10s\nset filter ibf-mc importance mark 0x7\n"
                 "enable\ndisable\nsources off\n",
                 "set filter rsbf p-star 0.03 max auto k auto p auto gap auto\n",
                 # a fixed seed as save writes it (a u64), hex, and back
                 "set seed 18446744073709551615\nset seed 0x2a\nset seed random\n",
                 # the tunnel settings as save writes them, and the others
                 "set decap vxlan,gre tunnel-id include vxlan-port 4790"
                 " geneve-port 6082 gtpu-port 2153\n"
                 "set decap vxlan,geneve,gre,erspan,gtpu,ip\nset decap all\n"
                 "set decap none tunnel-id ignore vxlan-port 1"
                 " gtpu-port 65535 ignore-tos on\n",
                 # the selection as save writes it: every protocol too
                 "set dev eth0,lo proto " + ",".join(str(p) for p in range(256)) +
                 " match-mark 0x1/0x1 hook ingress\n"):
        path = file_of(text)
        rc, err = run("-f", path)
        assert rc != 2 and f"{path}:" not in err, (text, rc, err)


@test
def nothing_to_do():
    """comments only: nothing to send, no kernel needed"""
    assert run("-f", file_of("# nothing\n\n")) == (0, "")
    assert run("-f", file_of("")) == (0, "")


@test
def file_errors():
    rc, err = run("-f", os.path.join(TMP, "no-such-file"))
    assert rc == 2 and "No such file" in err, (rc, err)
    rc, err = run("-f")
    assert rc == 2 and "needs a FILE" in err, (rc, err)
    rc, err = run("-f", "a", "b")
    assert rc == 2 and "unexpected 'b'" in err, (rc, err)
    rc, err = run("batch")
    assert rc == 2 and "give one FILE" in err, (rc, err)
    bad(b"set key flow\nset key\0src\n", 2, "a NUL byte")
    rc, err = run("save", "now")
    assert rc == 2 and "save: unexpected 'now'" in err, (rc, err)


@test
def usage_names_them():
    r = subprocess.run([CTL, "--help"], capture_output=True, text=True,
                       timeout=30)
    for word in ("  save ", "  batch FILE", "-f, --file FILE"):
        assert word in r.stdout, word


if __name__ == "__main__":
    sys.exit(run_all())
