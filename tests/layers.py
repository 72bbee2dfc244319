#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# layers.py - the shape of the source tree, as README's Architecture section states it:
# no source file over 1,000 lines, memtrace.c at most 700, and no cycle between files,
# neither of includes nor of calls (a file x is x.c with x.h; calls are read from the
# objects with nm: x uses y when x.o needs a symbol y.o defines); no file but memtrace.c
# and the mode's own knows a mode, and only main writes the options.
# Usage: tests/layers.py [OBJDIR]  (run from the source tree, after make; OBJDIR: build)
import os
import re
import subprocess
import sys

ok = bad = 0


def check(name, cond, detail=""):
    global ok, bad
    if cond:
        ok += 1
        print(f"ok   - {name}")
    else:
        bad += 1
        print(f"FAIL - {name}{': ' + detail if detail else ''}")


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


def layers(graph):
    """Each file's level: 0 uses nothing of ours, else one more than what it uses."""
    level = {}

    def lv(v, seen=()):
        if v in level:
            return level[v]
        deps = [w for w in graph.get(v, ()) if w not in seen]
        level[v] = 1 + max((lv(w, seen + (v,)) for w in deps), default=-1)
        return level[v]

    for v in graph:
        lv(v)
    return level


objdir = sys.argv[1] if len(sys.argv) > 1 else "build"
units = sorted({f[:-2] for f in os.listdir(".") if f.endswith((".c", ".h"))})

# sizes
for u in units:
    for ext in (".c", ".h"):
        p = u + ext
        if os.path.exists(p):
            n = sum(1 for _ in open(p, encoding="utf-8", errors="replace"))
            limit = 700 if p == "memtrace.c" else 1000
            check(f"{p}: {n} lines (at most {limit})", n <= limit)

# includes
inc = {u: set() for u in units}
for u in units:
    for ext in (".c", ".h"):
        p = u + ext
        if not os.path.exists(p):
            continue
        for m in re.finditer(r'^#include "([^"]+)\.h"', open(p).read(), re.M):
            if m.group(1) != u and m.group(1) in inc:
                inc[u].add(m.group(1))
c = cycles(inc)
check("no include cycle between files", not c, "; ".join(" <-> ".join(x) for x in c))

# modes: a mode is its own file (its struct mode_ops) and a line in memtrace.c; no other
# file names a mode (a MODE_* constant, a mode's ops): what differs is a fact in mode_ops
src = {}
for u in units:
    for ext in (".c", ".h"):
        if os.path.exists(u + ext):
            src[u + ext] = open(u + ext, encoding="utf-8", errors="replace").read()
mode_ops = {}
for p, text in src.items():
    for m in re.finditer(r"^(?:static )?const struct mode_ops (\w+) = \{", text, re.M):
        mode_ops[m.group(1)] = p[:-2]
own = set(mode_ops.values()) | {"memtrace"}
check(f"modes found ({len(mode_ops)}: {' '.join(sorted(mode_ops))})", len(mode_ops) >= 2)
named = []
for p, text in sorted(src.items()):
    if p[:-2] in own:
        continue
    for m in re.finditer(r"\bMODE_[A-Z]\w*|\b(?:" + "|".join(mode_ops) + r")\b", text):
        line = text.count("\n", 0, m.start()) + 1
        named.append(f"{p}:{line}: {m.group(0)}")
check("no file but memtrace.c and a mode's own names a mode", not named, "; ".join(named))
# the options are const after options_parse(): only main writes them (run.h's opt_set)
writers = [f"{p}:{text.count(chr(10), 0, m.start()) + 1}" for p, text in sorted(src.items())
           if p not in ("memtrace.c", "run.h") for m in re.finditer(r"\bopt_set\b", text)]
check("no file but memtrace.c writes the options (opt_set)", not writers, "; ".join(writers))

# calls (and data references) between objects
defined, needs = {}, {}
for u in units:
    o = os.path.join(objdir, u + ".o")
    if not os.path.exists(u + ".c"):
        continue
    if not os.path.exists(o):
        check(f"{o} built", False, "run make first")
        continue
    nm = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
    needs[u] = set()
    for line in nm.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            needs[u].add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBR":
            defined[parts[2]] = u
calls = {u: {defined[s] for s in syms if s in defined and defined[s] != u}
         for u, syms in needs.items()}
users = sorted(f"{u}.o uses {s}" for u, syms in needs.items() for s in syms
               if s in mode_ops and u != "memtrace" and u != mode_ops[s])
check("no object but memtrace.o and a mode's own uses a mode's ops", not users, "; ".join(users))
c = cycles(calls)
check("no call cycle between files", not c, "; ".join(" <-> ".join(x) for x in c))
if not c:
    lv = layers(calls)
    for k in range(max(lv.values(), default=-1) + 1):
        print(f"#   layer {k}: " + " ".join(sorted(u for u in lv if lv[u] == k)))
print(f"{ok} passed, {bad} failed, 0 skipped")
sys.exit(1 if bad else 0)
