#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# svg.sh - --svg FILE: the picture of memory over time, checked by parts that are not
# memtrace's: python's XML parser, the JSON report of the same run (its peaks, never the
# SVG code's own output alone), and a real renderer (rsvg-convert, Debian package
# librsvg2-bin) whose PNG is read here with zlib (its size, and not one colour all over).
#
# The replays of tests/fixtures/debian-6.1-boot and debian-6.1-zram run anywhere; the
# live run (command mode over build/tests/workload) needs root and a tracefs;
# it prints memtrace's own RSS with and without --svg (no assertion).
set -u
cd "$(dirname "$0")/.." || exit 1
MT=$PWD/memtrace
WL=$PWD/build/tests/workload
T=$(mktemp -d /tmp/memtrace-svg.XXXXXX)
INST=memtrace-svg$$
. "$PWD/tests/lib.sh"
PIDS=()

cleanup() {
	undo_ours
	rm -rf "$T"
}
trap cleanup EXIT

# peaks.py SVG JSON: the SVG parses as XML, and each peak mark in it is a row of the JSON
# report with the same peak (pages in data-peak-pages, KiB in its label), the processes and
# modules drawn are the report's first ones, in its order; the filled area's peak is the
# system peak, or a command report's tree peak (issue 40, 2: the machine's is not the
# command's); prints what failed
cat > "$T/peaks.py" <<'PY'
import json, re, sys
import xml.etree.ElementTree as ET
svg, rep = sys.argv[1], json.load(open(sys.argv[2]))
NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(svg).getroot()
errs = []
if root.tag != NS + "svg" or root.get("width") != "1280":
    errs.append("root: %s width %s" % (root.tag, root.get("width")))
for bad in ("script", "image", "foreignObject", "a"):
    if root.iter(NS + bad).__next__ if False else list(root.iter(NS + bad)):
        errs.append("a <%s> element" % bad)
text = open(svg, encoding="utf-8").read()
if re.search(r'(href|url\(|@import|@font-face)', text):
    errs.append("an external reference")
procs, mods, totals = [], [], {}
for g in root.iter(NS + "g"):
    if g.get("class") != "peak":
        continue
    label = "".join(g.find(NS + "text").itertext())
    m = re.fullmatch(r"((system|tree) peak )?(\d+) KiB", label)
    if not m or (m.group(2) or None) != {"system": "system", "tree": "tree"}.get(g.get("data-row")):
        errs.append("peak label %r of row %r" % (label, g.get("data-row")))
        continue
    row = (g.get("data-row"), g.get("data-pid"), g.get("data-name"),
           int(g.get("data-peak-pages")), int(m.group(3)))
    if row[0] in ("system", "tree"):
        totals[row[0]] = row
    else:
        {"process": procs, "module": mods}[row[0]].append(row)
if "tree_peak_pages" in rep:
    want_total = ("tree", rep["tree_peak_pages"], rep["tree_peak_kib"])
else:
    want_total = ("system", rep["system_peak"]["pages"], rep["system_peak"]["kib"])
if want_total[1] > 0 and (list(totals) != [want_total[0]] or
                          totals[want_total[0]][3:] != want_total[1:]):
    errs.append("the area's peak: svg %r, report %r" % (totals, want_total))
rows = rep["processes"]
want = min(8, len(rows))
if len(procs) != want:
    errs.append("%d processes drawn, the report has %d rows" % (len(procs), len(rows)))
for p, r in zip(procs, rows):
    if (int(p[1]), p[3], p[4]) != (r["pid"], r["peak_pages"], r["peak_kib"]):
        errs.append("process %r: the report's row is %r" % (p, r))
if "modules" in rep:
    mrows = [m for m in rep["modules"] if m["peak_pages"] > 0]
    if len(mods) != min(8, len(mrows)):
        errs.append("%d modules drawn, the report has %d with pages" % (len(mods), len(mrows)))
    for p, r in zip(mods, mrows):
        if (p[2], p[3], p[4]) != (r["name"], r["peak_pages"], r["peak_kib"]):
            errs.append("module %r: the report's row is %r" % (p, r))
elif mods:
    errs.append("modules drawn where the report has none")
print("; ".join(errs) if errs else "ok %d processes, %d modules" % (len(procs), len(mods)))
PY

# png.py PNG WIDTH HEIGHT: a PNG of that size, not one colour all over (decoded here: zlib
# and the five row filters, 8-bit RGB or RGBA)
cat > "$T/png.py" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, ihdr = 8, b"", None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        ihdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
w, h, depth, ctype = ihdr[:4]
assert depth == 8 and ctype in (2, 6), "depth %d colour type %d" % (depth, ctype)
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, colours, i = bytearray(stride), set(), 0
for y in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    if y % 7 == 0:
        colours.update(bytes(line[k:k + bpp]) for k in range(0, stride, bpp * 3))
    prev = line
ok = (w, h) == (int(sys.argv[2]), int(sys.argv[3])) and len(colours) > 8
print("ok" if ok else "size %dx%d (want %sx%s), %d colours" % (w, h, sys.argv[2], sys.argv[3], len(colours)))
PY

# labels.py SVG: no two peak labels overlap (each a box of 0.6 em a character, the font's
# size high: generous for sans-serif digits); prints "ok N labels" or the pairs
cat > "$T/labels.py" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
boxes = []
for g in ET.parse(sys.argv[1]).getroot().iter(ns + "g"):
    if g.get("class") != "peak":
        continue
    t = g.find(ns + "text")
    x, y, size = float(t.get("x")), float(t.get("y")), float(t.get("font-size"))
    w = len(t.text) * size * 0.6
    x0 = x - w if t.get("text-anchor") == "end" else x
    boxes.append((x0, y - size, x0 + w, y + 2, g.get("data-name") or "system"))
bad = [(a[4], b[4]) for i, a in enumerate(boxes) for b in boxes[i + 1:]
       if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]]
print("overlapping labels: %r" % bad if bad else "ok %d labels" % len(boxes))
PY

RSVG=$(command -v rsvg-convert)

# render NAME SVG: rsvg-convert draws it; the PNG's size is the SVG's, not one colour
render() {
	local h
	if [ -z "$RSVG" ]; then
		skip "$1: rsvg-convert (librsvg2-bin) not installed"
		return
	fi
	h=$(python3 -c 'import sys,xml.etree.ElementTree as E; print(E.parse(sys.argv[1]).getroot().get("height"))' "$2")
	if ! "$RSVG" -o "$T/$1.png" "$2" 2> "$T/$1.rsvg"; then
		bad "$1: rsvg-convert failed: $(head -c 300 "$T/$1.rsvg")"
		return
	fi
	r=$(python3 "$T/png.py" "$T/$1.png" 1280 "$h" 2>&1)
	[ "$r" = ok ] && ok "$1: rendered by rsvg-convert, 1280x$h, not blank" ||
		bad "$1: the rendered PNG: $r"
}

# ---------------------------------------------------------------- replays
for fx in debian-6.1-boot debian-6.1-zram; do
	if ! "$MT" --replay "tests/fixtures/$fx" --svg "$T/$fx.svg" --by process -f json -n 0 \
		> "$T/$fx.json" 2> "$T/$fx.err"; then
		bad "$fx: replay with --svg failed: $(head -c 300 "$T/$fx.err")"
		continue
	fi
	r=$(python3 "$T/peaks.py" "$T/$fx.svg" "$T/$fx.json" 2>&1)
	[[ $r == ok* ]] && ok "$fx: well-formed XML, self-contained, peaks = the JSON report's ($r)" ||
		bad "$fx: $r"
	r=$(python3 "$T/labels.py" "$T/$fx.svg" 2>&1)
	[[ $r == ok* ]] && ok "$fx: no two peak labels overlap ($r)" || bad "$fx: $r"
	render "$fx" "$T/$fx.svg"
done

# the docs' picture (docs/svg.md) is what make docs-pictures makes of the real boot's recording
"$MT" --replay tests/fixtures/debian-6.1-boot --by process --svg "$T/docs.svg" > /dev/null 2>&1
check "docs/boot-memory.svg is this build's picture of tests/fixtures/debian-6.1-boot (make docs-pictures)" \
	cmp -s "$T/docs.svg" docs/boot-memory.svg

# the picture is the report's: with -n 3 three processes and three modules
"$MT" --replay tests/fixtures/debian-6.1-boot --svg "$T/n3.svg" --by process -f json -n 3 \
	> "$T/n3.json" 2>/dev/null
check "-n 3: three processes and three modules drawn" \
	[ "$(grep -c 'class="peak" data-row="\(process\|module\)"' "$T/n3.svg")" = 6 ]

# never through a symlink, and atomic: a symlink at the path is replaced, its target untouched
echo keep > "$T/target"
ln -s "$T/target" "$T/link.svg"
"$MT" --replay tests/fixtures/debian-6.1-zram --svg "$T/link.svg" > /dev/null 2>&1
check "a symlink at FILE is replaced, not followed" \
	bash -c "[ ! -L '$T/link.svg' ] && [ \"\$(cat '$T/target')\" = keep ] && grep -q '<svg' '$T/link.svg'"
check "a FILE in a missing directory is refused before anything runs (exit 1)" \
	bash -c "! '$MT' --replay tests/fixtures/debian-6.1-zram --svg '$T/no/such/x.svg' > /dev/null 2>&1"
for bad_opt in "--stream --all" "--top" "--prometheus $T/p.prom"; do
	# shellcheck disable=SC2086
	"$MT" --svg "$T/x.svg" $bad_opt > /dev/null 2> "$T/opt.err"
	rc=$?
	check "--svg with ${bad_opt%% *}: refused (exit 2, says why)" \
		bash -c "[ $rc = 2 ] && grep -q -- '--svg is for' '$T/opt.err'"
done

# ---------------------------------------------------------------- live
find_tracefs
if can_trace "live --svg" && [ -x "$WL" ]; then
	state=$(tfs_state)
	timeout -k 5 60 "$MT" --instance "$INST" --svg "$T/live.svg" -f json -o "$T/live.json" \
		-- "$WL" 32 300 > /dev/null 2> "$T/live.err"
	r=$(python3 "$T/peaks.py" "$T/live.svg" "$T/live.json" 2>&1)
	wl=$(json "$T/live.json" '[p["peak_pages"] for p in d["processes"] if p["comm"]=="workload"][0]')
	[[ $r == ok* ]] && grep -q "data-peak-pages=\"$wl\" data-pid=\"[0-9]*\" data-name=\"workload\"" "$T/live.svg" &&
		ok "live: the workload's peak in the picture = its report row's ($wl pages)" ||
		bad "live: $r (workload $wl)"
	# a command's picture is its tree's: the area, its peak, the title (issue 40, 2)
	check "live command: the area is the tree's, its peak the report's tree peak ($(grep -o 'data-row="[a-z]*" data-peak-pages="[0-9]*"' "$T/live.svg" | head -1))" \
		grep -q "data-row=\"tree\" data-peak-pages=\"$(json "$T/live.json" 'd["tree_peak_pages"]')\"" "$T/live.svg"
	check "live command: the title names the command ($(grep -o 'class="title"[^<]*' "$T/live.svg"))" \
		grep -qF "$("$MT" --version | head -1): command $WL 32 300: kernel " "$T/live.svg"
	check "live command: the machine's system peak is said as the machine's, not drawn" \
		grep -qF "; the machine's system peak, every task's: $(json "$T/live.json" 'd["system_peak"]["pages"]') pages (not drawn);" "$T/live.svg"
	render live "$T/live.svg"
	# what the series costs: memtrace's own RSS at the report, daemon over the same workload
	for with in "" "--svg $T/d.svg"; do
		what=${with:+with --svg}
		# shellcheck disable=SC2086
		if start_mt -f json -o "$T/d.json" $with; then
			"$WL" 32 300 > /dev/null
			kill -TERM "$MTPID"
			wait_exit "$MTPID" 20
			echo "# memtrace RSS ${what:-without --svg}: $(json "$T/d.json" 'd["self"]["rss_kib"]') KiB (peak $(json "$T/d.json" 'd["self"]["hwm_kib"]') KiB)"
		else
			bad "daemon ${with:+with --svg} did not start: $(head -c 300 "$T/err")"
		fi
	done
	check "daemon: --svg written at the final report" grep -q '<svg' "$T/d.svg"
	check "tracefs left as it was" [ "$(tfs_state)" = "$state" ]
fi

summary
[ "$fail" = 0 ]
