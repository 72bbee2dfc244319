#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""docsamples.py - check that what the documentation shows still comes out.

Usage (from the project root): tests/docsamples.py MEMTRACE HELP_LONG FILE.md...

Every output block of the pages (a fenced block whose info string is `text` or `json`) must
have one of these markers on the line directly above its opening fence:

  <!-- replay: ARGS -->  the output of `MEMTRACE ARGS` (a --replay of a recording, or a
                         --diff of two: the same on every run): rerun here; every line of the block must come
                         out, consecutive lines consecutively, in order (trailing blanks
                         ignored); a line `...` skips any number of output lines.
  <!-- run: COMMAND -->  the output of a live run of COMMAND (root, a real tracefs; not
                         rerunnable): every `Label:` of a text line and every JSON key of the
                         block must be a string the binary contains.
  <!-- keys: ARGS -->    a list of JSON keys, one per line, dotted for nesting, `[]` for the
                         objects of an array (`tasks[].peak_pages`): the same set as the keys
                         of the JSON that `MEMTRACE ARGS` (a replay) prints.

Each memtrace option named in a marker's command must be one --help lists (HELP_LONG: a
file with one long option per line). Relative links of the pages must name files that exist,
and `#anchors` headings of the page they point to.

Prints "ok - ..." / "not ok - ..." lines (tests/docs.sh counts them).
"""
import json
import os
import re
import shlex
import subprocess
import sys

MARKER = re.compile(r'^<!--\s*(replay|run|keys):\s*(.*?)\s*-->\s*$')
FENCE = re.compile(r'^(```+|~~~+)\s*([A-Za-z0-9_+-]*)')
# "system peak: ...", "lost events: 0" (not "memtrace 0.1.0 report (trigger: ...": a version)
LABEL = re.compile(r'^\s*([A-Za-z][A-Za-z /_-]*?):(\s|$)')
LINK = re.compile(r'\[[^\]]*\]\(([^)\s]+)\)')

results = []


def ok(name):
    results.append(True)
    print("ok - " + name)


def notok(name, detail=()):
    results.append(False)
    print("not ok - " + name)
    for d in detail:
        print("#   " + d)


def blocks(path):
    """(line number of the fence, info string, marker line, block lines) per fenced block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info, start = m.group(1), m.group(2), i
        body = []
        i += 1
        while i < len(lines) and not lines[i].startswith(fence[0] * len(fence)):
            body.append(lines[i])
            i += 1
        above = lines[start - 1] if start > 0 else ""
        yield start + 1, info, above, body
        i += 1


def run_memtrace(memtrace, args):
    argv = [memtrace] + shlex.split(args)
    try:
        p = subprocess.run(argv, capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return None, "timed out after 120 s"
    out = p.stdout.decode("utf-8", "replace")
    if p.returncode != 0:
        return None, "exit %d: %s" % (p.returncode,
                                     p.stderr.decode("utf-8", "replace").strip()[:300])
    return out, None


def matches(want, have):
    """Every line of want in have, in order, consecutive unless a `...` line is between."""
    want = [w.rstrip() for w in want]
    have = [h.rstrip() for h in have]
    # drop leading/trailing empty lines of the block
    while want and want[0] == "":
        want.pop(0)
    while want and want[-1] == "":
        want.pop()
    memo = {}

    def go(wi, hi, floating):
        key = (wi, hi, floating)
        if key in memo:
            return memo[key]
        if wi == len(want):
            r = (True, None)
        elif want[wi] in ("...", "…"):
            r = go(wi + 1, hi, True)
        else:
            r = (False, want[wi])
            starts = range(hi, len(have)) if floating else ([hi] if hi < len(have) else [])
            for h in starts:
                if have[h] == want[wi]:
                    r = go(wi + 1, h + 1, False)
                    if r[0]:
                        break
        memo[key] = r
        return r

    return go(0, 0, True)


def json_docs(text):
    """The JSON values of text: one document, or one per line (JSON lines)."""
    text = text.strip()
    if not text:
        return []
    try:
        return [json.loads(text)]
    except ValueError:
        pass
    docs = []
    for line in text.split("\n"):
        line = line.strip()
        if line.startswith("{") or line.startswith("["):
            try:
                docs.append(json.loads(line))
            except ValueError:
                pass
    return docs


def key_paths(v, prefix, out):
    if isinstance(v, dict):
        for k, x in v.items():
            p = prefix + "." + k if prefix else k
            out.add(p)
            key_paths(x, p, out)
    elif isinstance(v, list):
        for x in v:
            key_paths(x, prefix + "[]", out)


def bare_keys(v, out):
    if isinstance(v, dict):
        for k, x in v.items():
            out.add(k)
            bare_keys(x, out)
    elif isinstance(v, list):
        for x in v:
            bare_keys(x, out)


def options_of(cmd):
    """The long options of the memtrace invocations in a command line."""
    try:
        words = shlex.split(cmd)
    except ValueError:
        words = cmd.split()
    opts, inside = [], False
    for w in words:
        if os.path.basename(w) in ("memtrace", "memtrace-static"):
            inside = True
            continue
        if w == "--" or w in ("|", "&&", ";", "&"):
            inside = False
            continue
        if inside and w.startswith("--"):
            opts.append(w.split("=", 1)[0])
    return opts


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r'[^\w\- ]', '', s)
    return s.replace(" ", "-")


def anchors(path):
    out = set()
    infence = False
    for line in open(path, encoding="utf-8"):
        if FENCE.match(line):
            infence = not infence
            continue
        if not infence and line.startswith("#"):
            out.add(slug(line.lstrip("#")))
    return out


def main():
    memtrace, help_long = sys.argv[1], sys.argv[2]
    pages = sys.argv[3:]
    longs = set(open(help_long).read().split())
    strings = subprocess.run(["strings", "-n", "3", memtrace], capture_output=True,
                             text=True).stdout
    replays = {}

    for page in pages:
        for lineno, info, above, body in blocks(page):
            where = "%s:%d" % (page, lineno)
            m = MARKER.match(above.strip())
            if info not in ("text", "json"):
                continue
            if not m:
                notok(where + ": an output block (```%s) has a sample marker above it" % info,
                      ["the line above the fence: " + above.strip()[:100]])
                continue
            kind, cmd = m.group(1), m.group(2)
            bad = [o for o in options_of("memtrace " + cmd if kind != "run" else cmd)
                   if o not in longs]
            if bad:
                notok(where + ": the command's options are memtrace's (%s)" % cmd,
                      ["not in --help: " + " ".join(bad)])
                continue
            if kind in ("replay", "keys"):
                if not {"--replay", "--diff"} & set(shlex.split(cmd)):
                    notok(where + ": a %s marker replays a recording or diffs two (%s)" %
                          (kind, cmd))
                    continue
                if cmd not in replays:
                    replays[cmd] = run_memtrace(memtrace, cmd)
                out, err = replays[cmd]
                if out is None:
                    notok(where + ": memtrace %s runs" % cmd, [err])
                    continue
            if kind == "replay":
                good, first = matches(body, out.split("\n"))
                if good:
                    ok("%s: the sample comes out of memtrace %s (%d lines)" % (where, cmd, len(body)))
                else:
                    notok("%s: the sample comes out of memtrace %s" % (where, cmd),
                          ["not in the output (in order, after the lines before it): " + first])
            elif kind == "keys":
                have = set()
                for d in json_docs(out):
                    key_paths(d, "", have)
                want = set(l.strip() for l in body if l.strip())
                missing, extra = sorted(have - want), sorted(want - have)
                if not have:
                    notok("%s: memtrace %s prints JSON" % (where, cmd))
                elif missing or extra:
                    notok("%s: the key list is the keys of memtrace %s" % (where, cmd),
                          (["printed but not listed: " + " ".join(missing)] if missing else []) +
                          (["listed but not printed: " + " ".join(extra)] if extra else []))
                else:
                    ok("%s: the key list is the %d keys of memtrace %s" % (where, len(have), cmd))
            else:  # run
                missing = []
                if info == "json" or body and body[0].lstrip().startswith("{"):
                    keys = set()
                    for d in json_docs("\n".join(l for l in body if l.strip() not in ("...", "…"))):
                        bare_keys(d, keys)
                    if not keys:
                        notok(where + ": the JSON sample parses (%s)" % cmd)
                        continue
                    missing = sorted(k for k in keys if k not in strings)
                    what = "%d JSON keys" % len(keys)
                else:
                    labels = set()
                    for l in body:
                        lm = LABEL.match(l)
                        if lm:
                            labels.add(lm.group(1).strip())
                    missing = sorted(x for x in labels if x not in strings)
                    what = "%d labels" % len(labels)
                if missing:
                    notok("%s: the live sample's labels/keys are memtrace's (%s)" % (where, cmd),
                          ["not in the binary: " + ", ".join(missing)])
                else:
                    ok("%s: the live sample's %s are memtrace's (%s)" % (where, what, cmd))

        # relative links and their anchors
        here = os.path.dirname(page)
        text = open(page, encoding="utf-8").read()
        text = re.sub(r'```.*?```', '', text, flags=re.S)
        broken = []
        for target in LINK.findall(text):
            if re.match(r'^[a-z]+:', target):
                continue
            fname, _, anchor = target.partition("#")
            fpath = os.path.normpath(os.path.join(here, fname)) if fname else page
            if not os.path.exists(fpath):
                broken.append(target + " (no such file)")
            elif anchor and fpath.endswith(".md") and anchor not in anchors(fpath):
                broken.append(target + " (no such heading)")
        if broken:
            notok(page + ": its relative links lead somewhere", broken)
        else:
            ok(page + ": its relative links lead somewhere")

    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
