#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# accuracy.sh - accuracy and data safety on the real tracefs: a seeded process that maps its
# memory again, tasks forked during the seed scan, 20 memtraces starting at once, a stdout
# nobody reads, OOM snapshots and the console summary, the top-level fallback's second
# signal, the words for what a kernel lacks.
# Needs root and a tracefs; each test says SKIP with a reason when it cannot run.
# Every test checks that tracefs is left exactly as it was found.
set -u
cd "$(dirname "$0")/.."
MT=$PWD/memtrace
MT_HOOKS=$PWD/build/tests/memtrace-hooks
WL=$PWD/build/tests/workload
RM=$PWD/build/tests/remap
T=$(mktemp -d /tmp/memtrace-acc.XXXXXX)
INST=memtrace-acc$$
. "$PWD/tests/lib.sh"

cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	undo_ours
	[ -n "${CG:-}" ] && rmdir "$CG" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# A process that already held 64 MiB when memtrace started frees and maps its 64 MiB
# three times: its peak is what it held (the seed), not twice that.
seeded_churn_test() {
	local before after d=$T/remap rpid seed peak pct
	before=$(tfs_state)
	mkdir -p "$d"
	"$RM" 64 3 "$d" & rpid=$!
	PIDS+=("$rpid")
	wait_for 10 test -e "$d/ready" || { bad "seeded churn: the workload did not start"; return; }
	start_mt -f json -n 0 -o "$T/churn.json" || { bad "seeded churn: no start: $(cat "$T/err")"; return; }
	touch "$d/go"
	wait_for 30 test -e "$d/done" || bad "seeded churn: the workload did not finish"
	kill -TERM "$MTPID"; wait_exit "$MTPID"
	touch "$d/end"; wait "$rpid"
	read -r seed peak < <(json "$T/churn.json" \
		"' '.join(str(p[k]) for p in d['tasks'] if p['pid'] == $rpid for k in ('seeded_pages', 'peak_pages'))")
	if [ -z "${seed:-}" ]; then bad "seeded churn: pid $rpid not in the report"; return; fi
	pct=$(( peak * 1000 / seed ))
	check "seeded churn: 64 MiB held before the start, mapped again 3 times: peak $peak pages, seed $seed (${pct}/1000 of it, at most 1050)" \
		test "$seed" -ge 16384 -a "$pct" -le 1050 -a "$pct" -ge 990
	check "seeded churn: the first round's frees come off the seed ($(json "$T/churn.json" "d['seed']['freed_pages']") >= 16384)" \
		test "$(json "$T/churn.json" "d['seed']['freed_pages']")" -ge 16384
	after=$(tfs_state)
	check "tracefs identical after the seeded churn" test "$before" = "$after"
}

# Processes forked while memtrace scans /proc: the events of their forks are older than
# their seed but read after it. Each must have one row, alive, with its seed.
startup_fork_test() {
	local before after i n dups
	before=$(tfs_state)
	: > "$T/sleepers"
	# as fast as bash can: the more there are, the longer the scan, the more are caught in it
	( for i in $(seq 1000); do sleep 8 & echo $! >> "$T/sleepers"; done; wait ) &
	PIDS+=("$!")
	sleep 0.3
	start_mt -f json -n 0 -o "$T/forks.json" || { bad "fork storm: no start"; return; }
	sleep 1.5
	kill -TERM "$MTPID"; wait_exit "$MTPID"
	n=$(wc -l < "$T/sleepers")
	dups=$(python3 - "$T/forks.json" "$T/sleepers" <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1]))
pids = set(int(x) for x in open(sys.argv[2]))
rows = collections.Counter(t["pid"] for t in d["tasks"] if t["pid"] in pids)
alive = collections.Counter(t["pid"] for t in d["tasks"] if t["pid"] in pids and t["state"] == "alive")
print(sum(1 for p in rows if rows[p] > 1), sum(1 for p in alive if alive[p] > 1), len(rows))
PY
)
	read -r dups dalive seen <<< "$dups"
	check "fork storm during the start: $seen of $n sleepers in the report, none with two rows ($dups), none alive twice ($dalive)" \
		test "$dups" = 0 -a "$dalive" = 0 -a "$seen" -gt 0
	xargs kill 2>/dev/null < "$T/sleepers"
	after=$(tfs_state)
	check "tracefs identical after the fork storm" test "$before" = "$after"
}

# 20 memtraces with the same instance at the same instant: exactly one traces.
concurrent_start_test() {
	local before after i pids=() ok=0 inuse=0 rc
	before=$(tfs_state)
	for i in $(seq 20); do
		"$MT" --instance "$INST-same" -o "$T/c$i.log" > /dev/null 2> "$T/c$i.err" &
		pids+=("$!")
	done
	PIDS+=("${pids[@]}")
	sleep 2
	for i in $(seq 20); do
		if grep -q "tracing in" "$T/c$i.err"; then ok=$((ok + 1)); fi
		if grep -q "is in use by memtrace pid" "$T/c$i.err"; then inuse=$((inuse + 1)); fi
	done
	check "20 memtraces started at once with one instance: one traces ($ok), 19 say it is in use ($inuse)" \
		test "$ok" = 1 -a "$inuse" = 19
	for i in "${pids[@]}"; do kill -TERM "$i" 2>/dev/null; done
	rc=0
	for i in "${pids[@]}"; do wait_exit "$i" || rc=$?; done
	after=$(tfs_state)
	check "tracefs identical after 20 starts at once (no instance left)" test "$before" = "$after" -a ! -d "$TFS/instances/$INST-same"
}

# A stdout nobody reads: USR1 reports may not stall tracing or TERM.
stalled_stdout_test() {
	local before after i t0 t1 rc
	before=$(tfs_state)
	mkfifo "$T/fifo"
	# a reader that opens the pipe and never reads
	sleep 60 < "$T/fifo" & PIDS+=("$!")
	"$MT" --instance "$INST" -n 0 -o "$T/stall.log" > "$T/fifo" 2> "$T/stall.err" &
	MTPID=$!; PIDS+=("$MTPID")
	wait_for 5 grep -q "tracing in" "$T/stall.err" || { bad "stalled stdout: no start"; return; }
	for i in $(seq 20); do kill -USR1 "$MTPID"; sleep 0.1; done
	"$WL" 16 100
	t0=$(date +%s%N)
	kill -TERM "$MTPID"; wait_exit "$MTPID" 10; rc=$?
	t1=$(date +%s%N)
	check "stdout nobody reads: TERM still ends memtrace, at once ($(( (t1 - t0) / 1000000 )) ms, rc $rc)" \
		test "$rc" = 0 -a $(( (t1 - t0) / 1000000 )) -lt 3000
	check "stdout nobody reads: it says what it dropped" grep -q "stdout is not read: .* bytes of the SIGUSR1 report dropped" "$T/stall.err"
	check "stdout nobody reads: the final report is in the log" grep -q "trigger: SIGTERM" "$T/stall.log"
	after=$(tfs_state)
	check "tracefs identical after the stalled stdout" test "$before" = "$after"
}

# Every OOM report is kept as LOG.oom.N; at most --keep-oom; a summary on the console.
oom_snapshot_test() {
	local before after i log=$T/oomdir/mem.log
	CG=/sys/fs/cgroup/memory/memtrace-acc$$
	if ! mkdir "$CG" 2>/dev/null; then skip "oom snapshots: no cgroup v1 memory controller here"; CG=; return; fi
	echo 32M > "$CG/memory.limit_in_bytes"
	before=$(tfs_state)
	mkdir -p "$T/oomdir"
	echo stale > "$T/oomdir/mem.log.oom.4"	# a previous run's: kept, numbering goes on
	start_mt -f json --keep-oom 2 -o "$log" || { bad "oom snapshots: no start"; return; }
	for i in 1 2 3; do
		( sh -c "echo \$\$ > $CG/tasks; exec '$WL' 256 0" ) 2>/dev/null
		wait_for 5 test -e "$T/oomdir/mem.log.oom.$((4 + (i < 3 ? i : 2)))"
		sleep 0.3
	done
	check "oom: the first OOM report kept as LOG.oom.5 (after a previous run's .4)" \
		test "$(json "$T/oomdir/mem.log.oom.5" "d['trigger']")" = oom
	check "oom: a previous run's snapshot is left alone" test "$(cat "$T/oomdir/mem.log.oom.4")" = stale
	check "oom: the second kept as LOG.oom.6, the third replaced it (--keep-oom 2)" \
		test "$(json "$T/oomdir/mem.log.oom.6" "d['oom']['count']")" = 3 -a ! -e "$T/oomdir/mem.log.oom.7"
	check "oom: the report says one was not kept" \
		test "$(json "$T/oomdir/mem.log.oom.6" "d['oom']['reports_not_kept']")" = 1
	kill -TERM "$MTPID"; wait_exit "$MTPID"
	check "oom: the final report did not replace the snapshots" \
		test "$(json "$T/oomdir/mem.log.oom.5" "d['trigger']")" = oom -a "$(json "$log" "d['trigger']")" = SIGTERM
	check "oom: the main log had the OOM report too, then the final one" \
		test "$(json "$log" "d['oom']['reports_kept']")" = 2
	if dmesg > /dev/null 2>&1; then
		check "oom: the console has the victim and who held the memory" \
			eval 'dmesg | grep -a "memtrace: oom kill of pid" | grep -q "mem.log.oom.5" && dmesg | grep -a -q "memtrace: oom: pid .* holds .* pages"'
		# this run's lines (another memtrace may report the same kills): from its first
		# summary on, the kill lines naming this run's reports
		dmesg | awk -v p="$T/oomdir/mem.log.oom.5" 'index($0, p) { f = 1 } f' > "$T/oom.kmsg"
		check "oom: the console has a line for each of the 3 kills (a summary or a note)" \
			test "$(grep -a "memtrace: oom kill of pid " "$T/oom.kmsg" | grep -a -c "$T/oomdir/mem.log.oom.")" -eq 3
		check "oom: the console summary has the system peak" \
			grep -a -q "memtrace: oom: .* pages (.* KiB) above the start now; system peak .* pages" "$T/oom.kmsg"
	else
		skip "oom: dmesg cannot be read here"
	fi
	rmdir "$CG"; CG=
	after=$(tfs_state)
	check "tracefs identical after the OOM kills" test "$before" = "$after"
}

# The top-level fallback (a tracefs without instances: a fake one here) puts back every
# setting it changed, also when a second TERM cuts its teardown short.
tracing_off() { [ "$(cat "$1/tracing_on")" = 0 ]; }	# read again at each try of wait_for

toplevel_second_term_test() {
	local F=$T/fake rc e
	mkdir -p "$F/per_cpu/cpu0" "$F/events/kmem/mm_page_alloc" "$F/events/kmem/mm_page_free" \
		"$F/events/sched/sched_process_exec"
	cp tests/fixtures/linux-6.18/events/header_page "$F/events/"
	for e in mm_page_alloc mm_page_free; do
		cp "tests/fixtures/linux-6.18/events/kmem/$e/format" "$F/events/kmem/$e/"
		echo 0 > "$F/events/kmem/$e/enable"
		echo none > "$F/events/kmem/$e/filter"
	done
	echo 1 > "$F/events/kmem/mm_page_free/enable"	# someone traces it already
	echo none > "$F/events/sched/sched_process_exec/filter"
	echo "[local] global mono" > "$F/trace_clock"
	echo 1408 > "$F/buffer_size_kb"; echo 50 > "$F/buffer_percent"; echo 1 > "$F/tracing_on"
	: > "$F/trace_pipe"; : > "$F/per_cpu/cpu0/trace_pipe_raw"
	printf 'entries: 0\noverrun: 0\ncommit overrun: 0\n' > "$F/per_cpu/cpu0/stats"
	MEMTRACE_TEST_TEARDOWN_DELAY_MS=3000 "$MT_HOOKS" --no-seed "$F" "$T/top.log" \
		> /dev/null 2> "$T/top.err" &
	MTPID=$!; PIDS+=("$MTPID")
	wait_for 5 grep -q "tracing in" "$T/top.err" || { bad "top level: no start: $(cat "$T/top.err")"; return; }
	check "top level: it traces there, with its mark and its settings" \
		test "$(cat "$F/trace_clock")" = mono -a "$(cat "$F/events/kmem/mm_page_alloc/enable")" = 1
	kill -TERM "$MTPID"
	wait_for 5 tracing_off "$F"
	sleep 0.3
	kill -TERM "$MTPID"; wait_exit "$MTPID"; rc=$?
	check "top level: a second TERM during teardown exits at once with 143 ($rc)" test "$rc" = 143
	check "top level, second TERM: trace_clock, buffer_size_kb, buffer_percent, tracing_on as they were" \
		test "$(cat "$F/trace_clock")" = local -a "$(cat "$F/buffer_size_kb")" = 1408 -a \
		"$(cat "$F/buffer_percent")" = 50 -a "$(cat "$F/tracing_on")" = 1
	check "top level, second TERM: each event's enable as it was (mm_page_alloc 0, mm_page_free 1)" \
		test "$(cat "$F/events/kmem/mm_page_alloc/enable")" = 0 -a \
		"$(cat "$F/events/kmem/mm_page_free/enable")" = 1
	check "top level, second TERM: the owner mark is gone (filter as it was)" \
		test "$(cat "$F/events/sched/sched_process_exec/filter")" = 0
}

# What this kernel lacks is said in plain words, once.
words_test() {
	local n
	if [ -d "$TFS/events/module" ]; then
		skip "words: this kernel has module events"; return
	fi
	start_mt -o "$T/words.log" || { bad "words: no start"; return; }
	kill -TERM "$MTPID"; wait_exit "$MTPID"
	n=$(grep -c "module" "$T/err")
	check "a kernel without modules: one line says so ($n line)" \
		test "$n" = 1 -a "$(grep -c 'no module events on this kernel' "$T/err")" = 1
	check "no warning says 'no the'" test "$(grep -c 'no the' "$T/err")" = 0
	check "the text report says so once instead of an empty table" \
		eval 'grep -q "^MODULES: none (no module events on this kernel)$" "$T/words.log" && ! grep -q "^NAME  *PEAK_PAGES" "$T/words.log"'
}

# Another process collapses a process's 16 MiB into 8 huge pages (process_madvise
# MADV_COLLAPSE: the collapse runs in the caller, as khugepaged does for every process):
# the huge pages are the process's, not the collapser's.
thp_collapse_test() {
	local before after out=$T/thp.out rc child parent got
	if [ "$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)" = "" ] ||
		grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled; then
		skip "thp collapse: transparent huge pages are off here"; return
	fi
	if [ ! -e "$TFS/events/huge_memory/mm_collapse_huge_page" ]; then
		skip "thp collapse: no huge_memory:mm_collapse_huge_page on this kernel"; return
	fi
	before=$(tfs_state)
	start_mt -f json -n 0 -o "$T/thp.json" || { bad "thp collapse: no start: $(cat "$T/err")"; return; }
	"$PWD/build/tests/thpmove" 16 > "$out"; rc=$?
	kill -TERM "$MTPID"; wait_exit "$MTPID"
	if [ "$rc" = 2 ]; then
		skip "thp collapse: the kernel did not collapse here: $(grep collapse "$out")"; return
	fi
	child=$(awk '$1 == "child" { print $2 }' "$out")
	parent=$(awk '$1 == "parent" { print $2 }' "$out")
	check "thp collapse: the child's 16 MiB became huge pages ($(grep -E 'collapse|anon_huge' "$out" | tr '\n' ' '))" \
		grep -q '^anon_huge_kib 16384$' "$out"
	check "thp collapse: 8 collapses, 4096 pages, given to the process whose pages they replaced" \
		test "$(json "$T/thp.json" '(d["moved"]["collapses"], d["moved"]["collapse_pages"])')" = "(8, 4096)"
	check "thp collapse: the collapser held each huge page a moment only (peak $(json "$T/thp.json" '[t["peak_pages"] for t in d["tasks"] if t["pid"] == '"$parent"'][0]') < 1200)" \
		test "$(json "$T/thp.json" '[t["peak_pages"] for t in d["tasks"] if t["pid"] == '"$parent"'][0] < 1200')" = True
	got=$(json "$T/thp.json" '[(t["peak_pages"], t["current_pages"], t["allocated_pages"], t["freed_pages"]) for t in d["tasks"] if t["pid"] == '"$child"'][0]')
	# (page tables may be freed a little later, after RCU: a few pages)
	check "thp collapse: the child's peak is its 4096 pages and at its exit it held next to none (peak, current, allocated incl. received, freed: $got)" \
		test "$(json "$T/thp.json" '[t["peak_pages"] >= 4096 and t["current_pages"] < 50 and t["allocated_pages"] >= 8192 for t in d["tasks"] if t["pid"] == '"$child"'][0]')" = True
	after=$(tfs_state)
	check "thp collapse: tracefs left as found" test "$before" = "$after"
}

find_tracefs
toplevel_second_term_test
if can_trace "live tests"; then
	seeded_churn_test
	startup_fork_test
	concurrent_start_test
	stalled_stdout_test
	oom_snapshot_test
	words_test
	thp_collapse_test
fi
summary
[ "$fail" = 0 ]
