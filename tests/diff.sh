#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# diff.sh - memtrace --diff OLD NEW on the recorded boots in tests/fixtures.
#
# Every number --diff prints is checked against the two runs' own reports (their replays'
# JSON, --replay DIR -f json --by process --stacks -n 0), summed and matched by name here in
# python, never against --diff's own output alone:
#  1. two recordings (the plain boot and the zram boot): every module, process name (its
#     instances, largest and summed peak) and the system peak, old and new, delta pages and
#     bytes, percent; a grown module's stacks by symbols; new and gone rows; sorted by growth
#  2. the same from the JSON reports made by replaying them, and mixed (a report and a
#     recording): the same rows
#  3. the last report of a JSON-lines file; -n rows; page sizes differing (a report's
#     page_size changed: bytes from each run's own); lost events: the warning
#  4. a text report refused with the hint to use -f json; bad input (malformed, cut,
#     huge numbers, missing fields, no such file) exits 2 with a reason
#  5. --fail-over: exit 3 naming what grew over it (bytes, pages, percent, the system
#     peak), 0 at exactly the growth, 2 for a bad value
#  6. --json FILE: the final report again, whole; what --diff compares
#  7. interruptible, crash-proof: a FIFO or a device refused at once (exit 2, said); SIGTERM
#     and SIGINT end --diff at once (128+signal), while it reads and compares a big report
#     and while it waits for a recording's replay (the replaying child ended too); totals
#     that 64 bits cannot hold refused (exit 2, said); messages that name the cause (a
#     command's text log, --fail-over 0x10, a report re-encoded as Latin-1); names exact
#     (an escaped NUL, more than 512 bytes) and written back escaped, in text and JSON
#
# Run from the project root: ./tests/diff.sh (./memtrace built). No root needed.
# Prints "ok - ..." / "FAIL - ..." per check, then "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.." || exit 1
MT=${MEMTRACE:-./memtrace}
MT_HOOKS=${MEMTRACE_HOOKS:-build/tests/memtrace-hooks}	# the test build: MEMTRACE_TEST_* hooks
T=$(mktemp -d /tmp/memtrace-diff.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
bad() { fail=$((fail + 1)); echo "FAIL - $*"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }

OLD=tests/fixtures/debian-6.1-boot
NEW=tests/fixtures/debian-6.1-zram
for f in "$OLD" "$NEW"; do
	[ -d "$f" ] || { bad "fixture $f missing"; echo "$pass passed, $fail failed, $skip skipped"; exit 1; }
done
"$MT" --replay "$OLD" -f json --by process --stacks --stack-top 1000 -n 0 >"$T/old.json" 2>/dev/null
"$MT" --replay "$NEW" -f json --by process --stacks --stack-top 1000 -n 0 >"$T/new.json" 2>/dev/null
"$MT" --replay "$OLD" -n 0 >"$T/old.txt" 2>/dev/null

# expect OLD.json NEW.json DIFF.json: the diff's rows against the reports' own numbers
expect() {
	python3 - "$@" <<'EOF'
import json, sys
old, new, diff = (json.load(open(p)) for p in sys.argv[1:4])
errs = []
def want(what, got, exp):
    if got != exp:
        errs.append(f"{what}: {got!r}, the reports say {exp!r}")
def key(frames):
    return " < ".join(f["symbol"] + (f" [{f['module']}]" if f["module"] else "") for f in frames)
def group(rep, arr, name):
    g = {}
    for e in rep.get(arr, []):
        n, p = e[name], e["peak_pages"]
        c, m, s = g.get(n, (0, 0, 0))
        g[n] = (c + 1, max(m, p), s + p)
    return g
def check_rows(what, rows, o, n, ops, nps, procs):
    names = set(o) | set(n)
    want(f"{what}: names", sorted(r["name"] for r in rows), sorted(names))
    deltas = [r["delta_bytes"] for r in rows]
    want(f"{what}: sorted by growth", deltas, sorted(deltas, reverse=True))
    for r in rows:
        oc, om, os_ = o.get(r["name"], (0, 0, 0))
        nc, nm, ns = n.get(r["name"], (0, 0, 0))
        w = f"{what} {r['name']}"
        want(w + " state", r["state"], "new" if not oc else "gone" if not nc else "both")
        want(w + " old_pages", r["old_pages"], os_)
        want(w + " new_pages", r["new_pages"], ns)
        want(w + " delta_pages", r["delta_pages"], ns - os_)
        want(w + " delta_bytes", r["delta_bytes"], ns * nps - os_ * ops)
        if oc and nc and os_:
            want(w + " percent", round(r["percent"], 2), round(100 * (ns * nps - os_ * ops) / (os_ * ops), 2))
        if procs:
            want(w + " instances", (r["old_instances"], r["new_instances"]), (oc, nc))
            want(w + " largest", (r["old_max_pages"], r["new_max_pages"]), (om, nm))
    return names
ops, nps = old["page_size"], new["page_size"]
for side, rep in (("old", old), ("new", new)):
    want(side + " page_size", diff[side]["page_size"], rep["page_size"])
    want(side + " system peak", diff[side]["system_peak_pages"], rep["system_peak"]["pages"])
    want(side + " lost", diff[side]["lost_events"], rep["lost_events"])
sp = diff["system_peak"]
want("system peak delta_bytes", sp["delta_bytes"], new["system_peak"]["pages"] * nps - old["system_peak"]["pages"] * ops)
want("lower_bound", diff["lower_bound"], bool(old["lost_events"] or new["lost_events"]))
mo, mn = group(old, "modules", "name"), group(new, "modules", "name")
check_rows("module", diff["modules"], mo, mn, ops, nps, False)
po, pn = group(old, "processes", "comm"), group(new, "processes", "comm")
check_rows("process", diff["processes"], po, pn, ops, nps, True)
# a grown module's stacks, by their symbols
for r in diff["modules"]:
    if r["delta_bytes"] <= 0:
        want(f"module {r['name']}: no stacks (did not grow)", "stacks" in r, False)
        continue
    def stacks(rep):
        g = {}
        for m in rep.get("modules", []):
            if m["name"] == r["name"]:
                for s in m.get("stacks", []):
                    k = key(s["frames"])
                    c, _, t = g.get(k, (0, 0, 0))
                    g[k] = (c + 1, 0, t + s["peak_pages"])
        return g
    so, sn = stacks(old), stacks(new)
    if so or sn:
        check_rows(f"module {r['name']} stack", r.get("stacks", []), so, sn, ops, nps, False)
for e in errs[:20]:
    print("  " + e)
sys.exit(1 if errs else 0)
EOF
}

# 1. two recordings
"$MT" --diff "$OLD" "$NEW" -f json -n 0 >"$T/rr.json" 2>"$T/rr.err"
check "two recordings: exit 0" [ $? = 0 ]
check "two recordings: every row as the two reports say" expect "$T/old.json" "$T/new.json" "$T/rr.json"
check "the zram boot's modules are new, zsmalloc first" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
m = d["modules"]
assert m[0]["name"] == "zsmalloc" and m[0]["state"] == "new", m[0]
assert {"zram", "lzo_rle"} <= {r["name"] for r in m if r["state"] == "new"}
assert d["new"]["kernel"] == open(sys.argv[2] + "/uname-r").read().strip()
' "$T/rr.json" "$NEW"
"$MT" --diff "$OLD" "$NEW" -n 0 >"$T/rr.txt" 2>&1
check "text: the zsmalloc row, its numbers from the reports" python3 -c '
import json, sys
new = json.load(open(sys.argv[1]))
p = next(m["peak_pages"] for m in new["modules"] if m["name"] == "zsmalloc")
want = "\nnew  %10d %10d %+11d %+14d %9s  zsmalloc\n" % (0, p, p, p * new["page_size"], "new")
txt = open(sys.argv[2]).read()
assert want in txt, (want, txt[:2000])
assert "old: " + sys.argv[3] in txt and "kernel 6.1.0-56-cloud-amd64" in txt
' "$T/new.json" "$T/rr.txt" "$OLD"

# 2. JSON reports, mixed: the same rows
strip() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [d[s].pop(k) for s in ("old","new") for k in ("source","kernel")]; print(json.dumps(d, sort_keys=True))' "$1"; }
"$MT" --diff "$T/old.json" "$T/new.json" -f json -n 0 >"$T/jj.json"
check "two JSON reports: exit 0" [ $? = 0 ]
check "two JSON reports: every row as the reports say" expect "$T/old.json" "$T/new.json" "$T/jj.json"
check "two JSON reports: the same rows as the recordings" [ "$(strip "$T/jj.json")" = "$(strip "$T/rr.json")" ]
check "two JSON reports: the header's kernel is the reports' own (the recordings' uname-r)" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for side, rec in (("old", sys.argv[2]), ("new", sys.argv[3])):
    assert d[side]["kernel"] == json.load(open(sys.argv[4 if side == "old" else 5]))["kernel"] \
        == open(rec + "/uname-r").read().strip(), d[side]
' "$T/jj.json" "$OLD" "$NEW" "$T/old.json" "$T/new.json"
"$MT" --diff "$T/old.json" "$NEW" -f json -n 0 >"$T/jr.json" && "$MT" --diff "$OLD" "$T/new.json" -f json -n 0 >"$T/rj.json"
check "mixed (report and recording, both ways): exit 0" [ $? = 0 ]
check "mixed: the same rows" [ "$(strip "$T/jr.json")" = "$(strip "$T/rr.json")" ] && [ "$(strip "$T/rj.json")" = "$(strip "$T/rr.json")" ]
"$MT" --diff "$NEW" "$NEW" -f json -n 0 --fail-over 0 >"$T/same.json"
check "a run against itself: exit 0 with --fail-over 0" [ $? = 0 ]
check "a run against itself: every delta 0" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["modules"] + d["processes"] + [d["system_peak"]]
assert rows and all(r["delta_pages"] == 0 and r["state"] == "both" for r in rows)' "$T/same.json"

# 3. JSON lines, -n, page sizes, lost events
python3 -c 'import json,sys; [print(json.dumps(json.load(open(p)))) for p in sys.argv[1:]]' "$T/new.json" "$T/old.json" >"$T/lines.jsonl"
"$MT" --diff "$T/lines.jsonl" "$T/old.json" -f json -n 0 >"$T/lines.json"
check "JSON lines: the last report is the run's" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert all(r["delta_pages"] == 0 for r in d["modules"] + d["processes"] + [d["system_peak"]])' "$T/lines.json"
"$MT" --diff "$OLD" "$NEW" -f json -n 2 >"$T/n2.json"
check "-n 2: two rows a table, the totals all" python3 -c '
import json, sys
d, a = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert len(d["modules"]) == 2 and len(d["processes"]) == 2
assert d["modules_total"] == len(a["modules"])
strip = lambda rows: [{k: v for k, v in r.items() if k != "stacks"} for r in rows]
assert strip(d["modules"]) == strip(a["modules"][:2])
assert all(len(r.get("stacks", [])) <= 2 for r in d["modules"])' "$T/n2.json" "$T/rr.json"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); d["page_size"] = 16384; d["lost_events"] = 7
json.dump(d, open(sys.argv[2], "w"))' "$T/new.json" "$T/new16k.json"
"$MT" --diff "$T/old.json" "$T/new16k.json" -f json -n 0 >"$T/16k.json"
check "page sizes differing: bytes from each run's own" expect "$T/old.json" "$T/new16k.json" "$T/16k.json"
"$MT" --diff "$T/old.json" "$T/new16k.json" >"$T/16k.txt"
check "lost events: the warning, the comparison a lower bound" grep -q "^warning: events were lost (old 0, new 7): the peaks are lower bounds" "$T/16k.txt"

# 4. a text report, bad input
"$MT" --diff "$T/old.txt" "$NEW" >"$T/out" 2>"$T/err"; rc=$?
check "a text report: exit 2" [ $rc = 2 ]
check "a text report: the hint to use -f json" grep -q "old.txt: a text report: --diff compares JSON reports (make them with -f json, or keep one beside the text with --json FILE)" "$T/err"
check "a text report: nothing on stdout" [ ! -s "$T/out" ]
head -c 3000 "$T/old.json" >"$T/cut.json"
printf '{"memtrace_version":"x","page_size":4096,"lost_events":0,"system_peak":{"pages":1e400}}' >"$T/huge.json"
printf '{"memtrace_version":"x","page_size":4096,"lost_events":0,"system_peak":{"pages":123456789012345678901234567890}}' >"$T/huge2.json"
printf '{"memtrace_version":"x","lost_events":0,"system_peak":{"pages":1}}' >"$T/nops.json"
printf '{"memtrace_version":"x","page_size":4096,"lost_events":0,"system_peak":{"pages":1},"processes":[{"comm":"a"}]}' >"$T/nopeak.json"
printf '\0\1\2garbage' >"$T/garbage"
: >"$T/empty"
for f in cut huge huge2 nops nopeak garbage empty nosuch; do
	p="$T/$f.json"; [ -e "$p" ] || p="$T/$f"
	"$MT" --diff "$p" "$NEW" >"$T/out" 2>"$T/err"; rc=$?
	check "bad input ($f): exit 2 with a reason, no output" [ $rc = 2 ] && [ ! -s "$T/out" ] && grep -q "^memtrace: --diff: $p: ..*" "$T/err"
done
mkdir "$T/notrec"
"$MT" --diff "$T/notrec" "$NEW" >"$T/out" 2>"$T/err"; rc=$?
check "a directory that is not a recording: exit 2, the replay's reason, once" [ $rc = 2 ] && [ ! -s "$T/out" ] && grep -q "header_page" "$T/err" && [ "$(grep -c "not compared: its replay failed" "$T/err")" = 1 ] && [ "$(wc -l <"$T/err")" = 2 ]
"$MT" --diff "$OLD" >"$T/out" 2>"$T/err"; rc=$?
check "--diff with one run: exit 2" [ $rc = 2 ] && grep -q "needs OLD and NEW" "$T/err"
"$MT" --diff "$OLD" "$NEW" --stacks >"$T/out" 2>"$T/err"; rc=$?
check "--diff with a tracing option: exit 2" [ $rc = 2 ] && grep -q "takes only OLD NEW" "$T/err"

# 5. --fail-over: the largest growth (bytes) and percent, from the reports
read -r BIG BIGNAME PCT PCTNAME < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = [("module", r) for r in d["modules"]] + [("process", r) for r in d["processes"]] + [("the", d["system_peak"])]
k, b = max(rows, key=lambda x: x[1]["delta_bytes"])
both = [(k2, r) for k2, r in rows if r["state"] == "both" and r["old_pages"]]
k2, p = max(both, key=lambda x: x[1]["percent"])
print(b["delta_bytes"], k + ":" + b["name"], "%.3f" % p["percent"], k2 + ":" + p["name"])' "$T/rr.json")
"$MT" --diff "$OLD" "$NEW" --fail-over "$BIG" >/dev/null 2>"$T/err"; rc=$?
check "--fail-over at exactly the largest growth ($BIG bytes): exit 0" [ $rc = 0 ] && [ ! -s "$T/err" ]
"$MT" --diff "$OLD" "$NEW" --fail-over "$((BIG - 1))" >/dev/null 2>"$T/err"; rc=$?
check "--fail-over a byte below it: exit 3" [ $rc = 3 ]
check "--fail-over: names what grew (${BIGNAME#*:}), once" [ "$(grep -c "^memtrace: --fail-over $((BIG - 1)): ${BIGNAME%%:*} ${BIGNAME#*:} grew by $BIG bytes" "$T/err")" = 1 ] && [ "$(wc -l <"$T/err")" = 1 ]
"$MT" --diff "$OLD" "$NEW" --fail-over "$((BIG / 4096))pages" >/dev/null 2>&1; rc=$?
check "--fail-over in pages: exit $( [ $((BIG % 4096)) = 0 ] && echo 0 || echo 3)" [ $rc = "$( [ $((BIG % 4096)) = 0 ] && echo 0 || echo 3)" ]
"$MT" --diff "$OLD" "$NEW" --fail-over "$(( (BIG - 1) / 4096 ))pages" >/dev/null 2>&1
check "--fail-over a page below: exit 3" [ $? = 3 ]
"$MT" --diff "$OLD" "$NEW" --fail-over "${PCT}%" >/dev/null 2>"$T/err"; rc=$?
check "--fail-over ${PCT}% (the largest growth of a name in both): exit 0" [ $rc = 0 ]
"$MT" --diff "$OLD" "$NEW" --fail-over "$(python3 -c "print('%.3f' % ($PCT - 0.5))")%" >/dev/null 2>"$T/err"; rc=$?
check "--fail-over just below it: exit 3 naming ${PCTNAME#*:}" [ $rc = 3 ] && grep -q "${PCTNAME%%:*} ${PCTNAME#*:} grew by" "$T/err"
"$MT" --diff "$T/old.json" "$T/new16k.json" --fail-over 1KiB >/dev/null 2>"$T/err"; rc=$?
check "--fail-over: the system peak is judged too" [ $rc = 3 ] && grep -q "^memtrace: --fail-over 1KiB: the system peak grew by" "$T/err"
for v in 10XB -1 "" 1e3 "%" abc 99999999999999999999 "5 pages"; do
	"$MT" --diff "$OLD" "$NEW" --fail-over "$v" >"$T/out" 2>"$T/err"; rc=$?
	check "--fail-over '$v': exit 2 with a reason" [ $rc = 2 ] && [ ! -s "$T/out" ] && grep -q "fail-over" "$T/err"
done
"$MT" --replay "$OLD" --fail-over 1MiB >/dev/null 2>"$T/err"; rc=$?
check "--fail-over without --diff: exit 2" [ $rc = 2 ] && grep -q "needs --diff" "$T/err"

# 6. --json FILE: the final report again, whole (every row, by process, every stack), whatever
#    -f, -n, --by and --stack-top the report on stdout has; what --diff compares
"$MT" --replay "$OLD" -n 3 --json "$T/j-old.json" >"$T/j-old.txt" 2>"$T/err"; rc=$?
"$MT" --replay "$OLD" -f json -n 0 --by process >"$T/j-old.ref" 2>/dev/null
check "--replay -n 3 --json F: exit 0, the text report of 3 tasks on stdout as without it" \
	eval '[ $rc = 0 ] && [ ! -s "$T/err" ] && grep -q "^TASKS: 3 of " "$T/j-old.txt" &&
		cmp -s "$T/j-old.txt" <("$MT" --replay "$OLD" -n 3 2>/dev/null)'
check "--json F is --replay's -f json -n 0 --by process report byte for byte (nothing differs)" \
	eval '[ -s "$T/j-old.json" ] && cmp -s "$T/j-old.json" "$T/j-old.ref"'
check "--json F: every process (processes_with_pages of them), more than -n's 3" \
	[ "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["view"], len(d["processes"]) == d["processes_with_pages"] > 3, len(d["modules"]) == d["modules_total"])' "$T/j-old.json")" = "process True True" ]
# a recording with stacks: every stack (--stack-top's bound, 1000), not -n 2 --stack-top 1's
"$MT" --replay "$NEW" -n 2 --stack-top 1 -f json --json "$T/j-new.json" >/dev/null 2>&1; rc=$?
"$MT" --replay "$NEW" -f json -n 0 --by process --stack-top 1000 >"$T/j-new.ref" 2>/dev/null
check "--replay (stacks) -n 2 --stack-top 1 --json F: F is -n 0 --by process --stack-top 1000's report" \
	eval '[ $rc = 0 ] && cmp -s "$T/j-new.json" "$T/j-new.ref" &&
		[ "$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(max(len(m.get(\"stacks\", [])) for m in d[\"modules\"]) > 1)" "$T/j-new.json")" = True ]'
"$MT" --diff "$T/j-old.json" "$T/j-old.json" >"$T/out" 2>"$T/err"; rc=$?
check "--diff F F: exit 0, nothing grew" eval '[ $rc = 0 ] && [ ! -s "$T/err" ] && ! grep -q "^new \|^gone " "$T/out"'
"$MT" --diff "$T/j-old.json" "$T/j-new.json" -n 0 | sed 1,3d | sed /^new:/,+1d >"$T/out.json" 2>/dev/null
"$MT" --diff "$OLD" "$NEW" -n 0 | sed 1,3d | sed /^new:/,+1d >"$T/out.rec" 2>/dev/null
check "--diff of the two --json files says what --diff of the two recordings says (but the header's paths)" \
	eval '[ -s "$T/out.json" ] && diff "$T/out.json" "$T/out.rec" >/dev/null'
echo keep >"$T/j-target"
ln -s "$T/j-target" "$T/j-link.json"
"$MT" --replay "$OLD" --json "$T/j-link.json" >/dev/null 2>&1; rc=$?
check "--json at a symlink: replaced, not followed (its target unchanged)" \
	eval '[ $rc = 0 ] && [ ! -L "$T/j-link.json" ] && [ "$(cat "$T/j-target")" = keep ] &&
		cmp -s "$T/j-link.json" "$T/j-old.ref"'
check "--json F: mode 0600, as the log file" [ "$(stat -c %a "$T/j-link.json")" = 600 ]
mkdir "$T/j-dir"
"$MT" --replay "$OLD" --json "$T/j-dir" >"$T/out" 2>"$T/err"; rc=$?
check "--json at a directory: refused before the replay (exit 1, said, no report)" \
	eval '[ $rc = 1 ] && [ ! -s "$T/out" ] && grep -q "^memtrace: --json $T/j-dir: .*checked before tracing" "$T/err"'
"$MT" --replay "$OLD" --json "$T/same" -o "$T/same" >"$T/out" 2>"$T/err"; rc=$?
check "--json F -o F: refused (exit 2)" eval '[ $rc = 2 ] && grep -q "neither the log file" "$T/err"'

# 7. interruptible, crash-proof
# ended PID [SECONDS]: whether PID is gone (or a zombie: its parent, init, may be slow to reap
# it) within SECONDS (default 1); if not, it is killed
ended() {
	local i
	for ((i = 0; i < ${2:-1} * 20; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		[ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = Z ] && return 0
		sleep 0.05
	done
	kill -KILL "$1" 2>/dev/null
	return 1
}
mkfifo "$T/fifo"
timeout -k 1 5 "$MT" --diff "$T/fifo" "$T/old.json" >"$T/out" 2>"$T/err"; rc=$?
check "a FIFO: refused at once (exit 2, not waited for: $rc), said, nothing on stdout" \
	eval '[ $rc = 2 ] && [ ! -s "$T/out" ] && grep -q "^memtrace: --diff: $T/fifo: a FIFO, not a file: --diff reads a JSON report from a regular file or a recording.s directory" "$T/err"'
timeout -k 1 5 "$MT" --diff "$T/old.json" /dev/zero >"$T/out" 2>"$T/err"; rc=$?
check "/dev/zero: refused at once (exit 2: $rc), not read: a character device" \
	eval '[ $rc = 2 ] && grep -q "^memtrace: --diff: /dev/zero: a character device, not a file" "$T/err"'
# a big report (300,000 names, made here): a signal while it is read and compared
python3 - "$T/big.json" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write('{"memtrace_version":"0.1.0","page_size":4096,"lost_events":0,'
            '"system_peak":{"pages":1},"processes":[')
    f.write(",".join('{"pid":%d,"comm":"p%07d","cmdline":"/usr/bin/p%07d --opt","peak_pages":%d}'
                     % (i, i, i, i % 97 + 1) for i in range(300000)))
    f.write("]}\n")
PY
# busy PID: it has used CPU time (it is reading or comparing, past its start)
busy() { [ -r "/proc/$1/stat" ] && [ "$(awk '{ print $14 + $15 }' "/proc/$1/stat")" -gt 0 ]; }
for sig in TERM INT; do
	# a script's background job ignores INT: the default back, as a terminal's job has it
	env --default-signal=INT "$MT" --diff "$T/big.json" "$T/big.json" -f json >"$T/out" 2>"$T/err" &
	pid=$!
	for ((i = 0; i < 500; i++)); do busy $pid && break; sleep 0.01; done
	kill -0 $pid 2>/dev/null; running=$?
	kill -$sig $pid
	if ended $pid 1; then wait $pid; rc=$?; else wait $pid; rc=killed; fi
	want=$((128 + $(kill -l $sig)))
	check "SIG$sig while a big report is read and compared: ended within 1 s, exit $want ($rc)" \
		eval '[ $running = 0 ] && [ "$rc" = $want ] && [ ! -s "$T/err" ]'
done
# a recording's replay made slow (the test build's hook): SIGTERM ends --diff and the child
if [ -x "$MT_HOOKS" ]; then
	MEMTRACE_TEST_SETUP_DELAY_MS=30000 "$MT_HOOKS" --diff "$OLD" "$T/old.json" >"$T/out" 2>"$T/err" &
	pid=$!
	child=
	for ((i = 0; i < 500; i++)); do child=$(pgrep -P $pid) && break; sleep 0.01; done
	kill -TERM $pid
	if ended $pid 1; then wait $pid; rc=$?; else wait $pid; rc=killed; fi
	check "SIGTERM while a recording is replayed: --diff ended within 1 s, exit 143 ($rc)" \
		eval '[ -n "$child" ] && [ "$rc" = 143 ]'
	check "SIGTERM while a recording is replayed: the replaying child (pid ${child:-none}) ended too, within 1 s" \
		eval '[ -n "$child" ] && ended "$child" 1'
else
	bad "$MT_HOOKS is not built (make test-programs)"
fi
# totals that 64 bits cannot hold: refused, said (9,000 entries of 2^50 pages: a negative sum)
python3 - "$T" <<'PY'
import json, sys
def rep(procs, ps=4096):
    return json.dumps({"memtrace_version": "x", "page_size": ps, "lost_events": 0,
                       "system_peak": {"pages": 1}, "processes": procs})
open(sys.argv[1] + "/one.json", "w").write(rep([{"comm": "same", "peak_pages": 1}]))
open(sys.argv[1] + "/sum.json", "w").write(rep([{"comm": "same", "peak_pages": 2**50}] * 9000))
open(sys.argv[1] + "/gib.json", "w").write(rep([{"comm": "same", "peak_pages": 2**50}], 1 << 30))
PY
"$MT" --diff "$T/one.json" "$T/sum.json" --fail-over 1 >"$T/out" 2>"$T/err"; rc=$?
check "9,000 entries of 2^50 pages: refused (exit 2: $rc), the sum said, no output" \
	eval '[ $rc = 2 ] && [ ! -s "$T/out" ] && grep -q "sum.json: process same: its peak_pages (summed over 2 entries) are more than 2^62 bytes" "$T/err"'
"$MT" --diff "$T/one.json" "$T/gib.json" -f json >"$T/out" 2>"$T/err"; rc=$?
check "2^50 pages of 1 GiB: refused (exit 2: $rc), not a negative delta" \
	eval '[ $rc = 2 ] && [ ! -s "$T/out" ] && grep -q "gib.json: process same: its peak_pages (1 entry) are more than 2^62 bytes, 4294967296 pages of 1073741824 bytes" "$T/err"'
# messages that name the cause
printf 'memtrace 0.1.0 command report\ncommand: make -j2\nexit status: 0\n' >"$T/cmd.log"
"$MT" --diff "$T/cmd.log" "$T/old.json" >"$T/out" 2>"$T/err"; rc=$?
check "a command's text log: exit 2, the hint to make it with -f json" \
	eval '[ $rc = 2 ] && grep -q "cmd.log: a command.s text report: --diff compares JSON reports (make them with -f json: memtrace -f json -o FILE -- COMMAND" "$T/err"'
"$MT" --diff "$OLD" "$NEW" --fail-over 0x10 >"$T/out" 2>"$T/err"; rc=$?
check "--fail-over 0x10: exit 2, the unit named (not 'too large')" \
	eval '[ $rc = 2 ] && grep -q "invalid unit .x10. after the number in --fail-over 0x10" "$T/err" && ! grep -q "too large" "$T/err"'
printf '{"memtrace_version":"x","page_size":4096,"lost_events":0,"system_peak":{"pages":1},"processes":[{"comm":"caf\xe9","peak_pages":1}]}' >"$T/latin1.json"
"$MT" --diff "$T/latin1.json" "$T/one.json" >"$T/out" 2>"$T/err"; rc=$?
check "a report re-encoded as Latin-1: exit 2, where and what to do said" \
	eval '[ $rc = 2 ] && [ ! -s "$T/out" ] && grep -q "latin1.json: the byte at offset 108 (line 1), 0xe9, is not UTF-8: .*iconv -f latin1 -t utf-8" "$T/err"'
# names exact: an escaped NUL, UTF-8, a control byte, 600 bytes differing at the end
python3 - "$T" <<'PY'
import json, sys
names = ["a\u0000b", "a\u0000c", "a", "caf\u00e9", "\U0001F600", "q\u0001", "x" * 599 + "1",
         "x" * 599 + "2"]
procs = [{"comm": n, "peak_pages": i + 1} for i, n in enumerate(names)]
open(sys.argv[1] + "/names.json", "w").write(json.dumps({
    "memtrace_version": "x", "page_size": 4096, "lost_events": 0, "system_peak": {"pages": 1},
    "processes": procs}))
PY
"$MT" --diff "$T/one.json" "$T/names.json" -f json -n 0 >"$T/names.out" 2>"$T/err"
check "names: JSON output, each name exact (NUL, UTF-8, 600 bytes), its pages its own" python3 -c '
import json, sys
d, src = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
got = {r["name"]: r["new_pages"] for r in d["processes"] if r["state"] == "new"}
want = {p["comm"]: p["peak_pages"] for p in src["processes"]}
assert got == want, (got, want)
open(sys.argv[1], "rb").read().decode("utf-8")	# valid UTF-8, not Latin-1
' "$T/names.out" "$T/names.json"
"$MT" --diff "$T/one.json" "$T/names.json" -n 0 >"$T/names.txt" 2>"$T/err"
check "names: text output escaped as the text reports are (\\x00, \\xc3\\xa9, \\x01), a row each" \
	eval 'grep -q "  a\\\\x00b$" "$T/names.txt" && grep -q "  a\\\\x00c$" "$T/names.txt" &&
		grep -q "  caf\\\\xc3\\\\xa9$" "$T/names.txt" && grep -q "  q\\\\x01$" "$T/names.txt" &&
		[ "$(grep -c "  x\{599\}[12]$" "$T/names.txt")" = 2 ] &&
		! LC_ALL=C grep -q "[^[:print:]]" "$T/names.txt"'

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
