#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""dedupctl's bash completion (userspace/dedupctl/dedupctl.bash), run by
`make check`: what it offers for command lines typed so far, and that its
words are dedupctl's own (its usage text), so the two cannot drift apart.

Usage: test_completion.py BUILD_DIR. Prints one line per test and ends
with "N passed, N failed".
"""
import os
import re
import shlex
import subprocess
import sys

from tap import run_all, test

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "userspace/dedupctl/dedupctl.bash")
CTL = os.path.join(sys.argv[1] if len(sys.argv) > 1 else "build", "dedupctl")


def bash(code):
    # the dedupctl under test first in PATH: the completion asks it for
    # the filter families and the placements
    env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(CTL)) +
               os.pathsep + os.environ.get("PATH", ""))
    r = subprocess.run(["bash", "-c", f"source {shlex.quote(SCRIPT)}\n{code}"],
                       capture_output=True, text=True, timeout=30, env=env)
    assert r.returncode == 0 and not r.stderr, (r.returncode, r.stderr)
    return r.stdout


def complete(line):
    """what the completion offers for `line` (the last word is completed;
    a line ending in a space completes an empty word)"""
    words = line.split() + ([""] if line.endswith(" ") else [])
    arr = " ".join(shlex.quote(w) for w in words)
    out = bash(f"COMP_WORDS=({arr}); COMP_CWORD={len(words) - 1}; _dedupctl\n"
               'printf "%s\\n" "${COMPREPLY[@]}"')
    return set(w for w in out.split("\n") if w)


def shell_list(name):
    return set(bash(f'echo ${name}').split())


def values(setting):
    return set(bash(f"_dedupctl_values {shlex.quote(setting)}").split())


def usage():
    r = subprocess.run([CTL, "--help"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout


def usage_commands(text):
    """the commands of the usage text: the lines indented by two spaces"""
    cmds = set()
    for line in text.split("\n"):
        m = re.match(r"^  ([a-z][a-z-]*)((?:, [a-z-]+)*)", line)
        if m:
            cmds.add(m.group(1))
            cmds.update(w.strip() for w in m.group(2).split(",") if w.strip())
    return cmds


def usage_block(text, cmd):
    """the settings lines (indented by six) under command cmd"""
    lines, inside = [], False
    for line in text.split("\n"):
        if re.match(r"^  [a-z]", line):
            inside = line.split()[0] == cmd
        elif inside and line.startswith("      "):
            lines.append(line)
    return " ".join(lines)


def usage_alternatives(block):
    """setting -> its lower-case alternatives, from "name a|b|c" """
    out = {}
    # a list of alternatives may go on over the next line ("a|b| c")
    block = re.sub(r"\| +", "|", block)
    for name, alts in re.findall(r"([a-z][a-z-]*) ((?:[A-Za-z0-9-]+\|)+[A-Za-z0-9-]+)", block):
        out[name] = set(a for a in alts.split("|") if a == a.lower())
    return out


@test
def commands_offered():
    got = complete("dedupctl ")
    assert usage_commands(usage()) <= got, usage_commands(usage()) - got
    assert complete("dedupctl s") == {"show", "set", "stats", "sources", "save"}
    assert complete("dedupctl -j st") == {"stats"}
    assert complete("dedupctl -o ") == {"text", "json", "prometheus"}
    assert complete("dedupctl -o p") == {"prometheus"}
    assert complete("dedupctl -o prometheus st") == {"stats"}
    assert complete("dedupctl --output json sh") == {"show"}


@test
def set_settings_and_values():
    assert complete("dedupctl set k") == {"key", "k"}
    assert complete("dedupctl set key ") == {"packet", "src", "dst", "pair", "flow"}
    assert complete("dedupctl set key flow action d") == {"drop"}
    assert "landmark" in complete("dedupctl -j set filter ")
    assert {"auto", "sliding"} <= complete("dedupctl set filter ")
    # force stands alone: the word after it is a setting, then its value
    assert complete("dedupctl set key flow action drop force fi") == {"filter"}
    assert complete("dedupctl set action drop force key fl") == {"flow"}
    assert complete("dedupctl set mem ") == set(), "a size has no fixed values"
    assert complete("dedupctl set max ") == {"auto"}
    assert complete("dedupctl plan filter sbf mem 1M lay") == {"layout"}
    assert complete("dedupctl set layout ") == {"flat", "blocked", "line",
                                                "auto"}
    assert {"ingress", "bridge-forward"} <= complete("dedupctl set hook ")
    assert complete("dedupctl set proto ud") == {"udp", "udplite"}
    assert complete("dedupctl set match-mark ") == {"any"}
    assert complete("dedupctl set se") == {"seed"}
    assert complete("dedupctl set seed ") == {"random"}
    assert complete("dedupctl set de") == {"decap", "dev"}
    assert complete("dedupctl set decap ") == {
        "none", "all", "vxlan", "geneve", "gre", "erspan", "gtpu", "ip"}
    assert complete("dedupctl set decap g") == {"geneve", "gre", "gtpu"}
    # a list goes on with the names it has not yet; none, all stand alone
    assert complete("dedupctl set decap vxlan,g") == {
        "vxlan,geneve", "vxlan,gre", "vxlan,gtpu"}
    assert complete("dedupctl set key flow decap gre,ip,") == {
        "gre,ip,vxlan", "gre,ip,geneve", "gre,ip,erspan", "gre,ip,gtpu"}
    assert complete("dedupctl set decap all,") == set()
    assert complete("dedupctl set tunnel-id ") == {"include", "ignore"}
    assert complete("dedupctl set nonip ") == {"pass", "dedup"}
    assert complete("dedupctl set decap gre tu") == {"tunnel-id"}
    assert complete("dedupctl set g") == {"gap", "geneve-port", "gtpu-port"}
    assert complete("dedupctl set vxlan-port ") == set(), "a port is a number"
    assert complete("dedupctl set vxlan-port 4790 v") == {"vxlan-port"}
    assert "any" in complete("dedupctl set dev ")
    assert "lo" in complete("dedupctl set dev "), "this host's devices"


@test
def sources_on_off_then_settings():
    assert {"on", "off", "window", "new"} <= complete("dedupctl sources ")
    assert complete("dedupctl sources off w") == {"window"}
    assert complete("dedupctl sources off window 10s n") == {"new", "new-mem", "new-gap"}
    assert complete("dedupctl sources new ") == {"on", "off"}
    assert "on" not in complete("dedupctl sources window 10s ")


@test
def other_commands():
    assert complete("dedupctl stats ") == {"percpu", "-w", "count", "-o"}
    assert complete("dedupctl stats p") == {"percpu"}
    assert complete("dedupctl stats -w ") == set(), "a duration has no fixed values"
    assert complete("dedupctl stats -w 1 count ") == set()
    assert complete("dedupctl stats -w 1 c") == {"count"}
    assert complete("dedupctl stats percpu -o ") == {"text", "json", "prometheus"}
    assert complete("dedupctl distinct ") == {"window", "sketches", "-o"}
    assert complete("dedupctl distinct -o ") == {"text", "json", "prometheus"}
    assert complete("dedupctl query ") == {"src", "dst", "pair", "flow", "packet-hex"}
    assert complete("dedupctl rare support 0.01 ") == {"support", "window", "limit"}
    assert complete("dedupctl monitor ") == {"count"}
    assert complete("dedupctl save ") == set()


@test
def files_for_f_and_batch():
    here = os.path.dirname(os.path.abspath(__file__))
    want = {os.path.join(here, "test_completion.py")}
    for line in (f"dedupctl -f {here}/test_comp", f"dedupctl --file {here}/test_comp",
                 f"dedupctl batch {here}/test_comp"):
        assert complete(line) == want, (line, complete(line))
    assert complete(f"dedupctl -f {here}/test_completion.py ") == set()
    assert "-f" in complete("dedupctl -") and "--file" in complete("dedupctl --")


@test
def words_are_dedupctls():
    text = usage()
    cmds = usage_commands(text)
    options = set()
    for short, long_ in re.findall(r"^  (-[a-zA-Z]), (--[a-z-]+)", text, re.M):
        options |= {short, long_}
    assert {"-j", "--json", "-o", "--output"} <= options, options
    offered = complete("dedupctl ") - options - {"--help"}
    assert offered == cmds, (offered ^ cmds)
    assert options <= complete("dedupctl -"), options - complete("dedupctl -")
    # -o's formats, as the usage text lists them
    m = re.search(r"^  -o, --output ((?:[a-z]+\|)+[a-z]+)$", text, re.M)
    assert m, "no -o line in the usage text"
    assert shell_list("_dedupctl_formats") == set(m.group(1).split("|"))
    # the words offered after stats are the usage text's stats lines'
    stats_words = set()
    for line in text.split("\n"):
        if line.startswith("  stats "):
            stats_words |= set(re.findall(r"[a-z-]+", line.split("  ")[1]))
    assert complete("dedupctl stats ") - {"-o"} <= stats_words, \
        complete("dedupctl stats ") - stats_words
    for cmd, var in (("set", "_dedupctl_set_settings"),
                     ("sources", "_dedupctl_sources_settings")):
        block = usage_block(text, cmd)
        names = set(re.findall(r"(?:^|\s)([a-z][a-z-]*)(?= [A-Za-z0-9|/%\[\].-]+)", block))
        # a word alone on its line, what it does in parentheses (force)
        names |= set(re.findall(r"(?:^|\s)([a-z][a-z-]*)\s{2,}\(", block))
        mine = shell_list(var)
        assert mine <= names, (cmd, mine - names)
        alts = usage_alternatives(block)
        for name, want in alts.items():
            if (cmd, name) == ("sources", "key"):
                # a key FILE or random: the files here and random
                got = complete("dedupctl sources key ")
                assert want == {"random"} and "random" in got, got
            elif name in mine:
                assert values(name) == want, (cmd, name, values(name), want)
        # every setting the usage gives alternatives for is completed
        assert set(alts) - {"on", "off"} <= mine | {"sbf"}, set(alts) - mine


if __name__ == "__main__":
    sys.exit(run_all())
