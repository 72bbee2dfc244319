#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# stacks.sh - --stacks end to end: the zram recording of Debian's 6.1 (a module that takes
# its pages long after its load) replayed, its figures checked against the kernel's own
# count (zram's mm_stat); then live on this kernel: the trigger in our instance only and
# only with --stacks, task stacks named from /proc/kallsyms, --record/--replay alike.
# The live part needs root and a tracefs (SKIP with the reason otherwise); tracefs is
# left exactly as found.
set -u
cd "$(dirname "$0")/.."
MT=$PWD/memtrace
WL=$PWD/build/tests/workload
FX=tests/fixtures/debian-6.1-zram
T=$(mktemp -d /tmp/memtrace-stacks.XXXXXX)
INST=memtrace-stk$$
. "$PWD/tests/lib.sh"

trap cleanup_live EXIT

# the module rows of a text report: NAME PEAK CUR LOAD_PEAK (LOAD_PEAK: the bracket's)
mod_rows() {
	awk '/^MODULES: / { m = 1; next } m && $1 == "NAME" { for (i = 1; i <= NF; i++) c[$i] = i; next }
		m && NF == 0 { exit }
		m && $2 ~ /^[0-9]+$/ { print $1, $c["PEAK_PAGES"], $c["CUR_PAGES"], ("LOAD_PEAK" in c) ? $c["LOAD_PEAK"] : "-" }' "$1"
}
field() { awk -v n="$2" -v k="$3" '$1 == n { print $k }' "$1"; }

# ------------------------------------------------------------------ the recording
fixture_test() {
	local rep=$T/zram.txt rows=$T/zram.rows used zs zr lzs lzr node psz nmod
	"$MT" --replay "$FX" -n 5 > "$rep" 2> "$T/zram.err" ||
		{ bad "zram replay: exit $?: $(cat "$T/zram.err")"; return; }
	mod_rows "$rep" > "$rows"
	# zram's own count of what it holds: mm_stat's mem_used_total (bytes), in the
	# recording kernel's pages (memtrace.meta page_size)
	psz=$(awk '$1 == "page_size" { print $2 }' "$FX/memtrace.meta")
	used=$(awk -v p="${psz:-0}" '{ printf "%d", p ? $3 / p : 0 }' "$FX/zram_mm_stat")
	zs=$(field "$rows" zsmalloc 2) zr=$(field "$rows" zram 2)
	lzs=$(field "$rows" zsmalloc 4) lzr=$(field "$rows" zram 4)
	check "zram replay: zsmalloc $zs + zram $zr pages at their peak >= the $used pages zram holds" \
		test "$((zs + zr))" -ge "$used" -a "$used" -ge 1024
	check "zram replay: their load brackets alone saw $lzs + $lzr pages (what memtrace said before --stacks)" \
		test "$((lzs + lzr))" -lt 100
	# the tree: zs_malloc's call of the page allocator holds exactly what zram counts
	node=$(awk '/^STACKS OF MODULE zsmalloc:/ { t = 1; next } t && NF == 0 { exit }
		t && prev ~ /zs_malloc\+0x[0-9a-f]+ \[zsmalloc\]$/ && $3 ~ /^__alloc_pages\+/ { print $1 }
		t { prev = $0 }' "$rep" | sort -n | tail -1)
	check "zram replay: the tree's zs_malloc [zsmalloc] -> __alloc_pages node holds ${node:-no} pages = mm_stat's $used" \
		test "${node:-0}" = "$used"
	check "zram replay: frames are named from the recording's memtrace.kallsyms" \
		grep -q -E '^ +[0-9]+ +[0-9]+ +zram_submit_bio\+0x[0-9a-f]+ \[zram\]$' "$rep"
	check "zram replay: the module table has LOAD_PEAK (the bracket's figure) with --stacks" \
		grep -q -E '^NAME +PEAK_PAGES +PEAK_KIB +CUR_PAGES +LOAD_PEAK ' "$rep"
	check "zram replay: every stack paired, none lost, the counters line says so" \
		grep -q -E '^stacks: [0-9]+ distinct of [0-9]+ kept, [0-9]+ paired with their allocation; not paired: 0 allocations, 0 stacks; not kept \(--max-stacks\): 0 stacks of 0 pages$' "$rep"
	# the guest's live report of the same run: the same module rows (it listed them in table
	# order, every one: compared as sets, with -n 0)
	"$MT" --replay "$FX" -n 0 > "$T/zram-all.txt" 2>> "$T/zram.err"
	mod_rows "$T/zram-all.txt" | sort > "$T/all.rows"
	mod_rows "$FX/report.txt" | sort > "$T/live.rows"
	check "zram replay: module rows equal the guest's live report" cmp -s "$T/all.rows" "$T/live.rows"
	# by peak, as tasks: zsmalloc first, no module without pages above one with pages;
	# -n 5 lists five of the 11 modules of the guest's /proc/modules, and says so
	nmod=$(grep -c . "$FX/proc_modules.txt")
	check "zram replay -n 5: \"MODULES: 5 of $nmod, by peak\", five rows" \
		eval 'grep -q -E "^MODULES: 5 of $nmod, by peak " "$rep" && test "$(grep -c . "$rows")" = 5'
	check "zram replay: modules by peak, zsmalloc ($zs pages) first, peaks never rising ($(cut -d' ' -f2 "$rows" | tr '\n' ' '))" \
		awk 'NR == 1 && $1 != "zsmalloc" { exit 1 } NR > 1 && $2 > p { exit 1 } { p = $2 }' "$rows"

	# JSON: modules[].stacks[], load_peak_pages, stacks_info
	"$MT" --replay "$FX" -f json -n 5 > "$T/zram.json" 2>> "$T/zram.err"
	check "zram JSON: zsmalloc peak_pages $zs, load_peak_pages $lzs, current_pages >= $used" \
		test "$(json "$T/zram.json" '[(m["peak_pages"], m["load_peak_pages"], m["current_pages"] >= '"$used"') for m in d["modules"] if m["name"] == "zsmalloc"][0]')" = "($zs, $lzs, True)"
	check "zram JSON: zsmalloc's top stack has frames {symbol, module, offset}: zs_malloc in zsmalloc" \
		test "$(json "$T/zram.json" 'any(f["symbol"] == "zs_malloc" and f["module"] == "zsmalloc" and isinstance(f["offset"], int) for s in [m for m in d["modules"] if m["name"] == "zsmalloc"][0]["stacks"] for f in s["frames"])')" = True
	check "zram JSON: a stack's pages: current_pages and peak_pages; tasks[].stacks[] too" \
		test "$(json "$T/zram.json" 'all("current_pages" in s and "peak_pages" in s for m in d["modules"] for s in m.get("stacks", [])) and any(t.get("stacks") for t in d["tasks"])')" = True
	# issue 24: the JSON's frames are the text's: the tracing machinery's own innermost
	# frames left out in both, and counted in the JSON
	check "zram JSON: no tracing machinery frame in any stack; each says how many it left out" \
		test "$(json "$T/zram.json" 'not any(f["symbol"].startswith(("trace_event_raw_event_", "__traceiter_", "perf_trace_")) for m in d["modules"] + d["tasks"] for s in m.get("stacks", []) for f in s["frames"]) and all(isinstance(s["tracing_frames_left_out"], int) for m in d["modules"] + d["tasks"] for s in m.get("stacks", []))')" = True
	"$MT" --replay "$FX" -n 5 > "$T/zram5.txt" 2> /dev/null
	tid=$(sed -n 's/^STACKS OF TASK \([0-9]*\) .*/\1/p' "$T/zram5.txt" | head -1)
	sed -n "/^STACKS OF TASK $tid /,/^\$/p" "$T/zram5.txt" | sed -n '2,$p' |
		awk 'NF == 0 { print "-"; next } NF == 3 { print "-"; print $3; next } { print $1 }' |
		grep -v '^(more' | sed '1{/^-$/d}' > "$T/text.frames"
	json "$T/zram.json" '"\n".join("\n".join(f["symbol"] + "+0x%x" % f["offset"] for f in reversed(s["frames"])) + "\n-" for t in d["tasks"] if t["pid"] == '"${tid:-0}"' for s in t["stacks"])' > "$T/json.frames"
	check "zram JSON: task $tid's stacks have the text report's frames, in its order reversed ($(grep -c . "$T/json.frames") lines)" \
		eval '[ -n "$tid" ] && [ "$(grep -c . "$T/json.frames")" -ge 10 ] && cmp -s <(grep -v "^-$" "$T/text.frames") <(grep -v "^-$" "$T/json.frames")'
	check "zram JSON: stacks_info: no unpaired allocation, nothing not kept" \
		test "$(json "$T/zram.json" '(d["stacks_info"]["unpaired_allocs"], d["stacks_info"]["not_kept"], d["stacks_info"]["stacks"] > 0)')" = "(0, 0, True)"

	# without the kallsyms lines: the same numbers, frames as addresses
	cp -a "$FX" "$T/nosyms" && rm "$T/nosyms/memtrace.kallsyms"
	"$MT" --replay "$T/nosyms" -n 5 > "$T/nosyms.txt" 2>&1
	mod_rows "$T/nosyms.txt" > "$T/nosyms.rows"
	check "zram replay without memtrace.kallsyms: the same rows, frames as addresses" \
		eval 'cmp -s "$rows" "$T/nosyms.rows" && grep -q -E "^ +[0-9]+ +[0-9]+ +0xffffffff[0-9a-f]+$" "$T/nosyms.txt"'
	# --stack-top 0: no stack sections, the same figures
	"$MT" --replay "$FX" -n 5 --stack-top 0 > "$T/top0.txt" 2>&1
	mod_rows "$T/top0.txt" > "$T/top0.rows"
	check "zram replay --stack-top 0: no STACKS sections, the same module figures" \
		eval '! grep -q "^STACKS OF" "$T/top0.txt" && cmp -s "$rows" "$T/top0.rows"'
}

# ------------------------------------------------------------------ live
trigger_of() { cat "$TFS/instances/$INST/events/kmem/mm_page_alloc/trigger" 2>/dev/null | grep -v '^#'; }

live_test() {
	local before after top pid peak
	can_trace "live --stacks" || return
	before=$(tfs_state)
	top=$(cat "$TFS/events/kmem/mm_page_alloc/trigger")
	# without --stacks: no trigger, nothing costs more
	start_mt -o "$T/plain.log" || { bad "live: no start: $(cat "$T/err")"; return; }
	check "live without --stacks: no trigger on the instance's mm_page_alloc" test -z "$(trigger_of)"
	kill -TERM "$MTPID"; wait_exit "$MTPID"
	check "live without --stacks: no stacks line, no STACKS sections" \
		eval '! grep -q -E "^stacks: |^STACKS OF" "$T/plain.log"'
	# with: the trigger in our instance only
	# -n 30: the workload among the rows whatever else runs; -b: no loss on a loaded machine,
	# so that the replay below has every event the live run had
	start_mt --stacks -n 30 -b 16384 -o "$T/stk.log" --record "$T/rec" ||
		{ bad "live --stacks: no start: $(cat "$T/err")"; return; }
	check "live --stacks: the stacktrace trigger on our instance's mm_page_alloc" \
		eval 'trigger_of | grep -q "^stacktrace"'
	check "live --stacks: the top level's mm_page_alloc trigger untouched" \
		test "$(cat "$TFS/events/kmem/mm_page_alloc/trigger")" = "$top"
	"$WL" 32 300 & pid=$!
	wait "$pid"
	kill -TERM "$MTPID"; wait_exit "$MTPID"
	peak=$(awk -v p="$pid" '$1 == p && $2 == p { print $4; exit }' "$T/stk.log")
	check "live --stacks: the workload's 32 MiB (${peak:-no} pages >= 8192)" test "${peak:-0}" -ge 8192
	check "live --stacks: its top stack, named from /proc/kallsyms, holds its pages (page fault path)" \
		awk -v p="$pid" '$0 ~ "^STACKS OF TASK " p " " { t = 1; next } t && NF == 0 { exit }
			t && $2 >= 8000 { big = 1 } t && big && /(handle_mm_fault|do_anonymous_page|exc_page_fault)\+0x/ { f = 1 }
			END { exit !f }' "$T/stk.log"
	check "live --stacks: the tracing frames are not printed" \
		eval '! grep -q -E "trace_event_raw_event_mm_page_alloc|__traceiter_mm_page_alloc" "$T/stk.log"'
	check "live --stacks: lost events: 0" grep -q '^lost events: 0$' "$T/stk.log"
	# the recording replays to the same stacks
	"$MT" --replay "$T/rec" -n 30 > "$T/replay.log" 2>&1
	check "live --stacks --record: --replay prints the same task stacks (memtrace.kallsyms)" \
		cmp -s <(sed -n '/^STACKS OF TASK/,/^$/p' "$T/stk.log") <(sed -n '/^STACKS OF TASK/,/^$/p' "$T/replay.log")
	"$MT" --replay "$T/rec" -n 30 -f json > "$T/replay.json" 2> /dev/null
	check "live --stacks: the JSON's stacks leave the tracing frames out too, and count them ($(json "$T/replay.json" 'max(s["tracing_frames_left_out"] for t in d["tasks"] for s in t.get("stacks", []))') at most)" \
		test "$(json "$T/replay.json" 'not any(f["symbol"].startswith(("trace_event_raw_event_", "__traceiter_", "perf_trace_")) for t in d["tasks"] for s in t.get("stacks", []) for f in s["frames"]) and any(s["tracing_frames_left_out"] >= 1 for t in d["tasks"] for s in t.get("stacks", []))')" = True
	check "live --stacks --record: the recording has the kallsyms lines it needs" \
		test -s "$T/rec/memtrace.kallsyms"
	after=$(tfs_state)
	check "live --stacks: tracefs left as found (top-level trigger: $(echo "$top" | head -1))" \
		eval '[ "$before" = "$after" ] && [ "$(cat "$TFS/events/kmem/mm_page_alloc/trigger")" = "$top" ]'
}

[ -x "$MT" ] || { echo "memtrace is not built"; exit 1; }
fixture_test
find_tracefs
live_test
summary
[ "$fail" = 0 ]
