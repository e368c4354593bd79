#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The programs pktdedup's tests, scripts and build run on the host, and the
Debian package each comes from.

  commands.py scan      every program found, and where (FILE:LINE)
  commands.py selftest  the scanner on known shell, Python and make text
  commands.py lint      the style suite's checks, as "ok ..." / "not ok ..."
                        lines (tests/style/style.sh counts them):
    - each program a test, a script or the build runs is a shell builtin,
      comes from a package every Debian system has (Essential, or of
      priority required), or is listed in tests/style/commands.txt;
    - each program listed there is installed, from the package it names
      (dpkg -S, or a package that one depends on), which
      scripts/install-deps.sh installs; and something still runs it;
    - Documentation/developing.md's dependency table lists install-deps.sh's packages.

Found by parsing, not by running: shell scripts through shfmt's syntax
tree (a command's first word, also after wrappers such as env, nice or
xargs, and after the functions that run their arguments, such as
check.sh's suite), Python through its own (the first word of a list given
to subprocess or to a function that hands its list to subprocess), the
Makefiles' recipes and $(shell ...) as shell, and any literal absolute
path of a program (/usr/bin/time, vm.sh's copies of ip and nft; in C, a
string such as the native tests' "/usr/bin/promtool ..."). Programs
run through a variable ($CC, "$B/dedup-sim") are not seen; the scripts
under tests/e2e/ and make bench-xdp's job (eval/bench-xdp/guest.sh) run
in the QEMU guest's busybox, not on the host.
"""
import ast
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                     "..", ".."))
MANIFEST = "tests/style/commands.txt"
DEPS = "scripts/install-deps.sh"
# commands that run the command after them (their options skipped)
WRAPPERS = {"env", "exec", "command", "nice", "nohup", "setsid", "stdbuf",
            "timeout", "xargs", "sudo", "nsenter", "unshare", "taskset",
            "ionice", "chroot", "time"}
# the options of those that take a value
WRAPPER_VALUE_OPTS = {"nice": {"-n"}, "timeout": {"-s", "-k"},
                      "xargs": {"-I", "-n", "-P", "-d", "-L", "-s", "-E"},
                      "taskset": {"-c"}, "ionice": {"-c", "-n"},
                      "stdbuf": {"-i", "-o", "-e"}, "sudo": {"-u", "-g"}}
SYSTEM_PATH = re.compile(r"^/(usr/)?s?bin/[A-Za-z0-9_.+-]+$")


def rel(p):
    return os.path.relpath(p, ROOT)


def tracked(*patterns):
    r = subprocess.run(["git", "ls-files", "--"] + list(patterns), cwd=ROOT,
                       capture_output=True, text=True, check=True)
    return [f for f in r.stdout.split("\n") if f]


# what runs in the QEMU guest (tests/vm/vm.sh copies it there)
GUEST = ("tests/e2e/", "eval/bench-xdp/guest.sh")


def host_files():
    """(kind, path) of what runs on the host: the guest's scripts apart."""
    files = []
    for f in tracked("*.sh", ".ci/run"):
        if not f.startswith(GUEST):
            files.append(("sh", f))
    files += [("py", f) for f in tracked("*.py")]
    files += [("make", f) for f in tracked("Makefile", "debian/rules")]
    files += [("c", f) for f in tracked("*.c")
              if not f.startswith(("tests/e2e/", "module/"))]
    return files


# ---- shell, through shfmt's syntax tree ----

def shfmt_tree(text, name):
    r = subprocess.run(["shfmt", "-ln", "bash", "--to-json"], input=text,
                       capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"{name}: shfmt: {r.stderr.strip()}")
    return json.loads(r.stdout)


def word_lit(w):
    """A word's text if it is all literal, else None."""
    out = []
    for p in w.get("Parts", []):
        t = p.get("Type")
        if t == "Lit":
            out.append(p.get("Value", ""))
        elif t == "SglQuoted":
            out.append(p.get("Value", ""))
        elif t == "DblQuoted":
            for q in p.get("Parts", []):
                if q.get("Type") != "Lit":
                    return None
                out.append(q.get("Value", ""))
        else:
            return None
    return "".join(out)


def word_param(w):
    """The parameter a word is alone ($X, "$X", "$@"), else None."""
    parts = w.get("Parts", [])
    if len(parts) == 1 and parts[0].get("Type") == "DblQuoted":
        parts = parts[0].get("Parts", [])
    if len(parts) == 1 and parts[0].get("Type") == "ParamExp":
        return parts[0].get("Param", {}).get("Value")
    return None


def word_prefix(w):
    """The literal text a word starts with ("--net=" of --net="$x")."""
    parts = w.get("Parts", [])
    if parts and parts[0].get("Type") == "Lit":
        return parts[0].get("Value", "")
    return ""


def walk(node, fn):
    if isinstance(node, dict):
        fn(node)
        for v in node.values():
            walk(v, fn)
    elif isinstance(node, list):
        for v in node:
            walk(v, fn)


def command_words(args):
    """The words of a call that are commands: the first, and the first
    after each wrapper (its options and assignments skipped). Yields
    (index, word, external): word None for "$@", external when the word
    follows the builtin command (no function of that name)."""
    i, external = 0, False
    while i < len(args):
        w = args[i]
        lit = word_lit(w)
        if lit is None:
            if word_param(w) == "@":
                yield i, None, external
            elif word_param(w) == "SUDO" and i + 1 < len(args):
                i += 1
                continue
            return
        yield i, lit, external
        if lit not in WRAPPERS:
            return
        external = lit == "command"
        opts = WRAPPER_VALUE_OPTS.get(lit, set())
        i += 1
        while i < len(args):
            a = word_lit(args[i])
            pre = a if a is not None else word_prefix(args[i])
            if not (pre.startswith("-") or
                    (lit == "env" and re.match(r"^\w+=", pre)) or
                    (lit == "timeout" and a is not None and
                     re.match(r"^[0-9.]+[smhd]?$", a))):
                break
            i += 2 if a in opts else 1


def shell_funcs(tree):
    """The functions a script defines: name -> the number of arguments
    consumed before it runs the rest as a command ("$@"), or None."""
    funcs = {}

    def on(n):
        if n.get("Type") != "FuncDecl":
            return
        name = n["Name"]["Value"]
        shifts, runs = 0, False

        def inner(m):
            nonlocal shifts, runs
            if m.get("Type") != "CallExpr" or not m.get("Args"):
                return
            args = m["Args"]
            first = word_lit(args[0])
            if first == "shift":
                shifts += int(word_lit(args[1]) or 1) if len(args) > 1 else 1
            for _, w, _ in command_words(args):
                if w is None:
                    runs = True
        walk(n.get("Body"), inner)
        funcs[name] = shifts if runs else None
    walk(tree, on)
    return funcs


def shell_commands(tree, funcs, found, name, line_base=0):
    def add(cmd, line):
        found.setdefault(cmd, []).append(f"{name}:{line + line_base}")

    def on(n):
        if "Parts" in n and n.get("Type") in (None, "Word"):
            lit = word_lit(n)
            if lit and SYSTEM_PATH.match(lit):
                add(lit, n["Pos"]["Line"])
        if n.get("Type") != "CallExpr" or not n.get("Args"):
            return
        args = n["Args"]
        for i, w, external in command_words(args):
            if w is None:
                continue
            if w in funcs and not external:
                if funcs[w] is not None:
                    rest = args[i + 1 + funcs[w]:]
                    for _, x, ext in command_words(rest):
                        if x is not None and "/" not in x and \
                                (ext or x not in funcs):
                            add(x, n["Pos"]["Line"])
                continue
            if "/" in w:
                continue        # a path: the tree's, or SYSTEM_PATH above
            add(w, n["Pos"]["Line"])
    walk(tree, on)


# ---- Makefiles: recipes and $(shell ...) as shell ----

def make_to_shell(text):
    """A Makefile's recipe lines and $(shell ...) calls as shell text, each
    with its line: [(line, text)]."""
    out = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        start, cur = i, lines[i]
        while cur.endswith("\\") and i + 1 < len(lines):
            i += 1
            cur = cur[:-1] + " " + lines[i].lstrip("\t")
        i += 1
        for m in re.finditer(r"\$\(shell ([^()]*(\([^()]*\)[^()]*)*)\)", cur):
            out.append((start + 1, m.group(1)))
        m = re.match(r"^\s*(\w*CC|PYTHON)\s*[?:]?=\s*(\S+)\s*$", cur)
        if m:
            out.append((start + 1, m.group(2)))
        if not cur.startswith("\t"):
            continue
        sh = cur[1:].lstrip("@-+ ")
        sh = sh.replace("$$", "\0")
        prev = None
        while prev != sh:
            prev = sh
            sh = re.sub(r"\$\([^()]*\)|\$\{[^{}]*\}", "${MK}", sh)
        sh = re.sub(r"\$[@<^*?%]", "${MK}", sh).replace("\0", "$")
        out.append((start + 1, sh))
    return out


# ---- Python, through its own syntax tree ----

def py_commands(text, name, found):
    tree = ast.parse(text, name)

    def add(cmd, line):
        found.setdefault(cmd, []).append(f"{name}:{line}")

    def leftmost_list(node):
        while isinstance(node, ast.BinOp):
            node = node.left
        return node if isinstance(node, ast.List) else None

    def is_subprocess(func):
        return (isinstance(func, ast.Attribute) and
                isinstance(func.value, ast.Name) and
                func.value.id == "subprocess")

    # functions that hand their first parameter to subprocess
    wrappers = set()
    for f in ast.walk(tree):
        if isinstance(f, ast.FunctionDef) and f.args.args:
            p = f.args.args[0].arg
            for c in ast.walk(f):
                if (isinstance(c, ast.Call) and is_subprocess(c.func) and
                        c.args and isinstance(c.args[0], ast.Name) and
                        c.args[0].id == p):
                    wrappers.add(f.name)
    for c in ast.walk(tree):
        if isinstance(c, ast.Constant) and isinstance(c.value, str) and \
                SYSTEM_PATH.match(c.value):
            add(c.value, c.lineno)
        if not isinstance(c, ast.Call) or not c.args:
            continue
        if not (is_subprocess(c.func) or
                (isinstance(c.func, ast.Name) and c.func.id in wrappers)):
            continue
        lst = leftmost_list(c.args[0])
        if lst and lst.elts and isinstance(lst.elts[0], ast.Constant) and \
                isinstance(lst.elts[0].value, str):
            w = lst.elts[0].value
            if "/" not in w and not w.startswith("-"):
                add(w, c.lineno)


def scan():
    """{command: [FILE:LINE, ...]} over the host's files."""
    found, trees, funcs = {}, [], {}
    for kind, f in host_files():
        with open(os.path.join(ROOT, f)) as fh:
            text = fh.read()
        if kind == "c":
            # a program by its path in a string (popen, exec)
            for m in re.finditer(r'"(/(usr/)?s?bin/[A-Za-z0-9_.+-]+)', text):
                found.setdefault(m.group(1), []).append(
                    f"{f}:{text.count(chr(10), 0, m.start()) + 1}")
        elif kind == "py":
            py_commands(text, f, found)
        elif kind == "sh":
            t = shfmt_tree(text, f)
            trees.append((f, t, 0))
            funcs.update(shell_funcs(t))
        else:
            for line, sh in make_to_shell(text):
                trees.append((f, shfmt_tree(sh + "\n", f), line - 1))
    for f, t, base in trees:
        shell_commands(t, funcs, found, f, base)
    return found


# ---- what is installed, and from where ----

def builtins():
    r = subprocess.run(["bash", "-c", "compgen -b; compgen -k"],
                       capture_output=True, text=True, check=True)
    return set(r.stdout.split())


def packages():
    """Installed packages: {name: (base, [dependency names])}, base when
    every Debian system has it (Essential, or of priority required, which
    even a minimal debootstrap installs); and {virtual name: [providers]}."""
    r = subprocess.run(["dpkg-query", "-W", "-f",
                        "${db:Status-Abbrev}\t${Package}\t${Essential}\t"
                        "${Priority}\t${Depends}, ${Pre-Depends}\t"
                        "${Provides}\n"],
                       capture_output=True, text=True, check=True)
    pk, provides = {}, {}
    for line in r.stdout.split("\n"):
        f = line.split("\t")
        if len(f) < 6 or not f[0].startswith("ii"):
            continue
        deps = [re.sub(r"[:(].*", "", a).strip()
                for d in f[4].split(",") for a in d.split("|")]
        pk[f[1]] = (f[2] == "yes" or f[3] == "required",
                    [d for d in deps if d])
        for v in f[5].split(","):
            v = re.sub(r"[:(].*", "", v).strip()
            if v:
                provides.setdefault(v, []).append(f[1])
    return pk, provides


def closure(pkg, pk, provides):
    seen, todo = set(), [pkg]
    while todo:
        p = todo.pop()
        for q in [p] + provides.get(p, []):
            if q in seen or q not in pk:
                continue
            seen.add(q)
            todo += pk[q][1]
    return seen


def owner(path):
    """The packages that own path (usrmerge: /bin is /usr/bin), else []."""
    cands = []
    for p in (path, os.path.realpath(path)):
        cands += [p, p[4:] if p.startswith("/usr/") else "/usr" + p]
    for c in cands:
        r = subprocess.run(["dpkg-query", "-S", c], capture_output=True,
                           text=True)
        for line in r.stdout.split("\n"):
            if ": " in line and line.split(": ", 1)[1] == c and \
                    not line.startswith("diversion"):
                return [p.strip().split(":")[0]
                        for p in line.split(": ")[0].split(",")]
    return []


def which(cmd):
    """Where Debian's packages put cmd (not another PATH's: pyenv's
    python3, /usr/local), else None."""
    if cmd.startswith("/"):
        return cmd if os.access(cmd, os.X_OK) else None
    return shutil.which(cmd, path="/usr/sbin:/usr/bin:/sbin:/bin")


def manifest():
    """tests/style/commands.txt: {command: (package, suites)}."""
    m = {}
    with open(os.path.join(ROOT, MANIFEST)) as f:
        for line in f:
            w = line.split("#", 1)[0].split()
            if w:
                m[w[0]] = (w[1], w[2] if len(w) > 2 else "-")
    return m


def install_deps():
    """The packages of scripts/install-deps.sh's pkgs=( ... )."""
    with open(os.path.join(ROOT, DEPS)) as f:
        text = f.read()
    body = re.search(r"^pkgs=\($(.*?)^\)$", text, re.M | re.S).group(1)
    return [w for line in body.split("\n")
            for w in line.split("#", 1)[0].split()]


def readme_deps():
    with open(os.path.join(ROOT, "Documentation", "developing.md")) as f:
        text = f.read()
    table = re.search(r"^\| dependency \(Debian\) \|.*?\n\n", text,
                      re.M | re.S).group(0)
    names = []
    for row in table.split("\n")[2:]:
        if row.startswith("|"):
            names += re.findall(r"`([^`]+)`", row.split("|")[1])
    return names


def lint():
    results = []

    def say(good, what):
        results.append(good)
        print(("ok " if good else "not ok ") + what)

    found = scan()
    m = manifest()
    deps = install_deps()
    pk, provides = packages()
    shell = builtins()
    for cmd in sorted(found):
        where = ", ".join(found[cmd][:3]) + \
            (" ..." if len(found[cmd]) > 3 else "")
        if cmd in shell and not cmd.startswith("/"):
            continue
        path = which(cmd)
        owners = owner(path) if path else []
        if cmd not in m:
            if owners and any(pk.get(o, (False,))[0] for o in owners):
                continue        # on every Debian system
            say(False, f"program {cmd} (run at {where}): not in {MANIFEST}"
                + (f"; it is {path}, of package {', '.join(owners)}"
                   if path else "; not installed here"))
            continue
        pkg = m[cmd][0]
        if pkg == "-":
            continue            # not the host's (a path in the guest)
        if pkg not in deps:
            say(False, f"program {cmd}: its package {pkg} is not "
                f"installed by {DEPS}")
        elif not path:
            say(False, f"program {cmd} (run at {where}): not installed "
                f"(package {pkg}: run {DEPS})")
        elif not set(owners) & closure(pkg, pk, provides):
            say(False, f"program {cmd}: {path} is of "
                f"{', '.join(owners) or 'no package'}, which {pkg} does not "
                "bring")
        else:
            say(True, f"program {cmd} ({pkg})")
    for cmd in sorted(set(m) - set(found)):
        say(False, f"{MANIFEST}: nothing runs {cmd} (remove it)")
    rd = readme_deps()
    missing = [p for p in deps if p not in rd]
    extra = [p for p in rd if p not in deps]
    say(not missing and not extra,
        "developing.md's dependency table is install-deps.sh's packages" +
        (f" (not in the table: {' '.join(missing)})" if missing else "") +
        (f" (not in install-deps.sh: {' '.join(extra)})" if extra else ""))
    return 0 if all(results) else 1


# The scanner on known text: (text, what it must find, what it must not)
SELFTEST = {
    "sh": ("""
in_ns() { local ns=$1; shift; nsenter --net="/run/netns/$ns" "$@"; }
in_ns b nft list ruleset
n=$(tcpdump -r x.pcap | wc -l)
if nice -n 5 gzip -c y >/dev/null; then env A=1 B=2 xz -d z; fi
cat <<END
$(inheredoc)
END
dkms() { command dkms --dkmstree /t "$@"; }
dkms status
$SUDO apt-get install foo
cp /usr/sbin/ip "$root/usr/sbin/ip"
"$B/dedup-sim" --help
""", {"nsenter", "nft", "tcpdump", "wc", "nice", "gzip", "env", "xz", "cat",
      "inheredoc", "dkms", "apt-get", "cp", "/usr/sbin/ip"},
        {"in_ns", "b", "status", "foo", "list", "x.pcap"}),
    "py": ("""
import subprocess
def sh(args, **kw):
    return subprocess.run(args, capture_output=True, **kw)
sh(["capinfos", "-c"] + ["x.pcap"])
p = subprocess.Popen(["tcpdump", "-r", "-"], stdout=subprocess.PIPE)
sim(["--pcap", "x"])
other(["notrun"])
TIME = "/usr/bin/time"
""", {"capinfos", "tcpdump", "/usr/bin/time"}, {"notrun", "--pcap"}),
    "make": ("CC ?= gcc\n"
             "X := $(shell pkg-config --cflags glib-2.0)\n"
             "t: a.c\n"
             "\t$(CC) -o $@ $< && strip $@\n"
             "\t@echo $$(date) \\\n"
             "\t\t| tee log\n",
             {"gcc", "pkg-config", "strip", "echo", "date", "tee"},
             {"a.c", "t:", "log"}),
}


def selftest():
    bad = 0
    for kind, (text, want, never) in SELFTEST.items():
        found, funcs, trees = {}, {}, []
        if kind == "py":
            py_commands(text, "selftest.py", found)
        elif kind == "sh":
            t = shfmt_tree(text, "selftest.sh")
            funcs.update(shell_funcs(t))
            trees.append(t)
        else:
            trees += [shfmt_tree(sh + "\n", "selftest.mk")
                      for _, sh in make_to_shell(text)]
        for t in trees:
            shell_commands(t, funcs, found, "selftest")
        missed, wrong = want - set(found), never & set(found)
        print(("ok " if not missed and not wrong else "not ok ") +
              f"tests/style/commands.py finds the programs of {kind} text" +
              (f" (missed: {' '.join(sorted(missed))})" if missed else "") +
              (f" (not programs: {' '.join(sorted(wrong))})" if wrong
               else ""))
        bad += bool(missed or wrong)
    return 1 if bad else 0


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("scan", "lint", "selftest"):
        sys.exit(__doc__)
    if sys.argv[1] == "selftest":
        return selftest()
    if sys.argv[1] == "scan":
        for cmd, where in sorted(scan().items()):
            print(f"{cmd:24} {' '.join(where)}")
        return 0
    return lint()


if __name__ == "__main__":
    sys.exit(main())
