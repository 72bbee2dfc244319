#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# layers.py - the shape of the source tree, as docs/architecture.md states it: the design
# card's files at the root and every other source in a folder of the order below; a
# folder (and a root file, at its level) includes and calls only what is at its level or
# below; no cycle between files, neither of includes nor of calls (calls are read from the
# objects with nm: x uses y when x.o needs a symbol y.o defines); no function over 150
# lines; a mode is its file in modes/ and a line in memtrace.c, and no other file names
# one; only main writes the options; every mutable static is in architecture.md's table
# of state; each folder says what it holds and what it may use (its README.md); the
# architecture's picture of the folders is this order.
# Usage: tests/layers.py [OBJDIR]  (run from the source tree, after make; OBJDIR: build)
import os
import re
import subprocess
import sys

ok = bad = 0

# The folders, lowest first: each may use those before it (and itself), never one after.
ORDER = ["lib", "kernel", "model", "input", "diff", "core", "output", "ui", "stream", "run",
         "modes"]
# The design card's files at the root, each at the level of a folder; memtrace.c is main,
# above all
ROOT = {"tracefs": "kernel", "stats": "model", "module": "model", "signals": "core",
        "memtrace": None}
FUNC_MAX = 150


def check(name, cond, detail=""):
    global ok, bad
    if cond:
        ok += 1
        print(f"ok   - {name}")
    else:
        bad += 1
        print(f"FAIL - {name}{': ' + detail if detail else ''}")


def level(path):
    """A source's level: its folder's place in ORDER (a root file: its folder's)."""
    d = os.path.dirname(path)
    if not d:
        f = ROOT.get(os.path.basename(path)[:-2], "?")
        return len(ORDER) if f is None else ORDER.index(f) if f in ORDER else -1
    return ORDER.index(d) if d in ORDER else -1


def cycles(graph):
    """Strongly connected components with more than one file (Tarjan)."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def strip(text):
    """C text without comments and string or character literals (lines kept)."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', '""', text)


objdir = sys.argv[1] if len(sys.argv) > 1 else "build"
srcs = sorted(f for f in subprocess.run(["git", "ls-files", "*.c", "*.h"], capture_output=True,
                                        text=True).stdout.split()
              if not f.startswith(("tests/", "bench/", "debian/")) and os.path.exists(f))
src = {p: open(p, encoding="utf-8", errors="replace").read() for p in srcs}
units = sorted({p[:-2] for p in srcs})

# the tree: the root holds the design card's files only, every other one a known folder's
strays = [p for p in srcs if "/" not in p and p[:-2] not in ROOT]
check(f"the root holds only the design card's sources ({' '.join(sorted(ROOT))})",
      not strays, " ".join(strays))
unknown = sorted({os.path.dirname(p) for p in srcs if "/" in p} - set(ORDER))
check(f"every source folder is in the order ({' < '.join(ORDER)})", not unknown,
      " ".join(unknown))
for d in ORDER:
    readme = os.path.join(d, "README.md")
    text = open(readme).read() if os.path.exists(readme) else ""
    may = re.search(r"^May use: (.*)$", text, re.M)
    want = ", ".join(ORDER[:ORDER.index(d)]) or "nothing of ours"
    check(f"{d}/README.md says what {d}/ holds and that it may use {want}",
          len(([x for x in text.split("\n\n") if not x.startswith("#")] or [""])[0]) > 80 and
      may and may.group(1).rstrip(".") == want,
          may.group(1) if may else "no 'May use:' line")

# includes: no cycle, and never up the order
inc = {u: set() for u in units}
up = []
for p, text in src.items():
    for m in re.finditer(r'^#include "([^"]+)\.h"', text, re.M):
        u = m.group(1)
        if u in inc and u != p[:-2]:
            inc[p[:-2]].add(u)
            if level(u + ".h") > level(p):
                up.append(f"{p} includes {u}.h")
c = cycles(inc)
check("no include cycle between files", not c, "; ".join(" <-> ".join(x) for x in c))
check("no file includes a header of a folder above its own", not up, "; ".join(up))

# functions: none over FUNC_MAX lines (a body from its "{" at the line's start to "}")
long_fns = []
for p, text in src.items():
    if not p.endswith(".c"):
        continue
    lines = strip(text).split("\n")
    start = name = None
    for i, line in enumerate(lines):
        if line.startswith("{") and i:
            start = i
            m = re.search(r"(\w+)\s*\([^()]*(?:\([^()]*\)[^()]*)*$", " ".join(lines[max(0, i - 3):i]))
            name = m.group(1) if m else "?"
        elif line.startswith("}") and start is not None:
            if i - start + 2 > FUNC_MAX:
                long_fns.append(f"{p}:{name} ({i - start + 2} lines)")
            start = None
check(f"no function over {FUNC_MAX} lines", not long_fns, "; ".join(long_fns))

# modes: a mode is its file in modes/ (its struct mode_ops) and a line in memtrace.c; no
# other file names a mode's ops
mode_ops = {}
for p, text in src.items():
    for m in re.finditer(r"^(?:static )?const struct mode_ops (\w+) = \{", text, re.M):
        mode_ops[m.group(1)] = p
check(f"modes found ({len(mode_ops)}: {' '.join(sorted(mode_ops))}), each in modes/",
      len(mode_ops) >= 2 and all(p.startswith("modes/") for p in mode_ops.values()),
      " ".join(f"{k}:{v}" for k, v in mode_ops.items() if not v.startswith("modes/")))
table = re.search(r"mode_of\(const struct options \*o\)\n\{(.*?)\n\}", src["memtrace.c"], re.S)
listed = set(re.findall(r"return &(\w+_ops);", table.group(1))) if table else set()
check("each mode is a line of memtrace.c's mode_of()", listed == set(mode_ops),
      " ".join(sorted(set(mode_ops) ^ listed)))
own = {p[:-2] for p in mode_ops.values()} | {"memtrace"}
named = []
for p, text in sorted(src.items()):
    if p[:-2] in own:
        continue
    for m in re.finditer(r"\bMODE_[A-Z]\w*|\b(?:" + "|".join(mode_ops) + r")\b", text):
        named.append(f"{p}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}")
check("no file but memtrace.c and a mode's own names a mode", not named, "; ".join(named))
# the options are const after options_parse(): only main writes them (run.h's opt_set)
writers = [f"{p}:{text.count(chr(10), 0, m.start()) + 1}" for p, text in sorted(src.items())
           if p not in ("memtrace.c", "core/run.h") for m in re.finditer(r"\bopt_set\b", text)]
check("no file but memtrace.c writes the options (opt_set)", not writers, "; ".join(writers))

# mutable statics: every one in architecture.md's table of state ("| `FILE` | `NAME` |")
found = set()
for p, text in src.items():
    t = strip(text)
    for m in re.finditer(r"^\t?static (?!const\b|inline\b)([^;({]*);", t, re.M):
        decl = re.sub(r"\[[^\]]*\]|=[^,;]*", "", m.group(1))
        parts = decl.split(",")
        names = [re.findall(r"\w+", parts[0])[-1]] + [re.findall(r"\w+", x)[-1] for x in parts[1:]]
        found.update((p, n) for n in names)
    for m in re.finditer(r"^static (?!const\b)struct \{.*?^\} (\w+)", t, re.M | re.S):
        found.add((p, m.group(1)))
    for m in re.finditer(r"^\tstatic (?!const\b)struct \{.*?^\t\} (\w+)", t, re.M | re.S):
        found.add((p, m.group(1)))
doc = open("docs/architecture.md", encoding="utf-8").read()
listed = {(m.group(1), n) for m in re.finditer(r"^\| `([\w/.]+\.[ch])` \| ([^|]*)\|", doc, re.M)
          for n in re.findall(r"`(\w+)`", m.group(2))}
check(f"every mutable static ({len(found)}) is in docs/architecture.md's table of state",
      found <= listed, " ".join(f"{p}:{n}" for p, n in sorted(found - listed)))
check("docs/architecture.md's table of state lists no static that is gone", listed <= found,
      " ".join(f"{p}:{n}" for p, n in sorted(listed - found)))
# the picture of the folders: in the order above
pic = re.search(r"```\n(.*?)```", doc[doc.find("## The folders"):], re.S)
shown = re.findall(r"^\s*(\w+)/", pic.group(1), re.M) if pic else []
check("docs/architecture.md's picture of the folders is the order, top first",
      shown == list(reversed(ORDER)), " ".join(shown))

# calls (and data references) between objects
defined, needs = {}, {}
for p in srcs:
    if not p.endswith(".c"):
        continue
    o = os.path.join(objdir, p[:-2] + ".o")
    if not os.path.exists(o):
        check(f"{o} built", False, "run make first")
        continue
    nm = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
    needs[p] = set()
    for line in nm.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            needs[p].add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBR":
            defined[parts[2]] = p
calls = {p: {defined[s] for s in syms if s in defined and defined[s] != p}
         for p, syms in needs.items()}
users = sorted(f"{p} uses {s}" for p, syms in needs.items() for s in syms
               if s in mode_ops and p != "memtrace.c" and p != mode_ops[s])
check("no object but memtrace.o and a mode's own uses a mode's ops", not users, "; ".join(users))
upcalls = sorted(f"{p} calls {q}" for p, qs in calls.items() for q in qs if level(q) > level(p))
check("no file calls one of a folder above its own", not upcalls, "; ".join(upcalls))
c = cycles(calls)
check("no call cycle between files", not c, "; ".join(" <-> ".join(x) for x in c))
for k, d in enumerate(ORDER):
    print(f"#   {k:2} {d + '/':8} " + " ".join(sorted(os.path.basename(p)[:-2] for p in srcs
          if p.endswith(".c") and level(p) == k)))
print(f"{ok} passed, {bad} failed, 0 skipped")
sys.exit(1 if bad else 0)
