#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# command.sh - memtrace's command mode, --exits, --by process and --json FILE on the real tracefs
#
# Needs root and a tracefs; each test says SKIP with a reason when it cannot run.
# Every run checks that tracefs is left exactly as it was found.
set -u
cd "$(dirname "$0")/.." || exit 1
MT=$PWD/memtrace
WL=$PWD/build/tests/workload
TH=$PWD/build/tests/threads
T=$(mktemp -d /tmp/memtrace-cmd.XXXXXX)
INST=memtrace-cmd$$
. "$PWD/tests/lib.sh"

cleanup() {
	local p
	# the daemon beside_daemon_test started: TERM, so that it removes the well-known instance
	if [ -n "${DPID:-}" ] && kill -TERM "$DPID" 2>/dev/null; then wait_exit "$DPID" 20; fi
	for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	undo_ours
	rm -rf "$T"
}
trap cleanup EXIT

between() { [ -n "$1" ] && [ "$1" -ge "$2" ] 2>/dev/null && [ "$1" -le "$3" ]; }

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

term_read() {	# term_read PID: no SIGTERM pending for PID (memtrace has read it, or is gone)
	local k v
	[ -r "/proc/$1/status" ] || return 0
	while read -r k v; do
		case $k in SigPnd:|ShdPnd:) [ $(( 0x$v & 0x4000 )) = 0 ] || return 1 ;; esac
	done < "/proc/$1/status"
}

wait_file() {	# wait_file FILE [TENTHS]: until FILE exists (default 5 s)
	local i
	for i in $(seq "${2:-50}"); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# run_cmd NAME [OPTIONS] -- COMMAND...: memtrace in command mode, JSON report in $T/NAME.json,
# its stdout in $T/NAME.out, stderr in $T/NAME.err; RC, MS (wall time) set.
# A memtrace that hangs gets TERM after 20 s (RC 124), KILL 5 s later.
run_cmd() {
	local name=$1 before after t0; shift
	before=$(tfs_state)
	t0=$(now_ms)
	timeout -k 5 20 "$MT" --instance "$INST" -f json -n 0 -o "$T/$name.json" "$@" \
		> "$T/$name.out" 2> "$T/$name.err"
	RC=$?
	MS=$(( $(now_ms) - t0 ))
	[ "$RC" = 124 ] && bad "$name: memtrace still running after 20 s"
	after=$(tfs_state)
	check "$name: tracefs identical after the run" test "$before" = "$after"
}

# python: the report's process rows of the workloads
WLROWS='[p for p in d["processes"] if p["comm"]=="workload"]'

# ---------------------------------------------------------------- command mode
# the command starts only when tracing is live, with no signal blocked and the
# dispositions memtrace was started with (memtrace ignores SIGPIPE itself)
start_test() {
	local I=$TFS/instances/$INST ign
	# what memtrace gets: run_cmd starts it under timeout(1), which handles (so un-ignores
	# in its child) HUP, INT, QUIT, ALRM and TERM whatever this script ignores (nohup)
	ign=$(timeout -k 5 20 grep '^SigIgn' /proc/self/status)
	run_cmd start -- sh -c "cat $I/tracing_on $I/events/kmem/mm_page_alloc/enable; grep '^Sig\(Blk\|Ign\)' /proc/self/status; exit 7"
	check "exit status passed through (sh -c 'exit 7' -> $RC)" test "$RC" = 7
	check "the command ran with tracing on and mm_page_alloc enabled ($(head -2 "$T/start.out" | tr '\n' ' '))" \
		test "$(head -2 "$T/start.out" | tr -d '\n')" = 11
	check "the command runs with no signal blocked ($(grep SigBlk "$T/start.out"))" \
		grep -q '^SigBlk:[[:space:]]*0*$' "$T/start.out"
	check "the command ignores the signals its caller ignored, no more ($(grep SigIgn "$T/start.out" | tr -s '\t' ' '), caller ${ign//$'\t'/ })" \
		test "$(grep SigIgn "$T/start.out")" = "$ign"
	check "JSON: exit_status 7, signal null" \
		test "$(json "$T/start.json" '(d["exit_status"], d["signal"])')" = "(7, None)"
	# nohup memtrace -- COMMAND: the command still ignores SIGHUP (memtrace blocks HUP for its
	# signalfd, and the disposition it was given goes on to the command)
	timeout -k 5 20 nohup "$MT" --instance "$INST" -o "$T/nohup.txt" -- \
		grep '^SigIgn' /proc/self/status > "$T/nohup.out" 2> "$T/nohup.err"
	check "nohup memtrace -- COMMAND: the command ignores SIGHUP too ($(tr -s '\t' ' ' < "$T/nohup.out"))" \
		python3 -c 'import sys; sys.exit(not int(open(sys.argv[1]).read().split()[1], 16) & 1)' "$T/nohup.out"
	check "JSON: command is the argument vector" \
		test "$(json "$T/start.json" 'd["command"][:2]')" = "['sh', '-c']"
}

# one 32 MiB workload; report on stderr by default; largest ru_maxrss
single_test() {
	local peak rss
	run_cmd single -- "$WL" 32 0
	check "single workload: exit 0" test "$RC" = 0
	peak=$(json "$T/single.json" 'd["tree_peak_pages"]')
	check "single workload: tree peak $peak within 8192..8700 pages" between "$peak" 8192 8700
	check "single workload: page_size is this kernel's ($(getconf PAGESIZE), getconf)" \
		test "$(json "$T/single.json" 'd["page_size"]')" = "$(getconf PAGESIZE)"
	check "single workload: tree_peak_kib = pages * page_size/1024" \
		test "$(json "$T/single.json" 'd["tree_peak_kib"] == d["tree_peak_pages"] * '"$(getconf PAGESIZE)"' // 1024')" = True
	rss=$(json "$T/single.json" 'd["max_rss_kib"]')
	check "single workload: max_rss_kib $rss within 32..40 MiB" between "$rss" 32768 40960
	check "single workload: process_count 1 ($(json "$T/single.json" 'd["process_count"]'))" \
		test "$(json "$T/single.json" 'd["process_count"]')" = 1
	check "single workload: thread_count counts its one thread, as the row's threads do ($(json "$T/single.json" '(d["thread_count"], [p["threads"] for p in d["processes"]])'))" \
		test "$(json "$T/single.json" 'd["thread_count"] == sum(p["threads"] for p in d["processes"]) == 1')" = True
	check "single workload: max process peak is the workload's" \
		test "$(json "$T/single.json" 'd["max_process_peak_pages"] == d["processes"][0]["peak_pages"] and d["processes"][0]["comm"] == "workload" and d["max_process_peak_pid"] == d["processes"][0]["pid"]')" = True
	check "single workload: lost events 0" test "$(json "$T/single.json" 'd["lost_events"]')" = 0
	check "single workload: nothing on stderr's report when -o is given" \
		test "$(grep -c 'workload' "$T/single.err")" = 0
	# without -o: the text report on stderr
	timeout -k 5 20 "$MT" --instance "$INST" -- "$WL" 8 0 > "$T/stderr.out" 2> "$T/stderr.err"; RC=$?
	check "without -o: exit 0 and a report naming the workload on stderr" \
		test "$RC" = 0 -a "$(grep -c 'workload' "$T/stderr.err")" -ge 1
	check "without -o: nothing on stdout" test ! -s "$T/stderr.out"
	# the machine's peak beside the tree's is said as the machine's (issue 40, 2)
	check "the text report's system peak line says it is the machine's ($(grep -m1 'system peak' "$T/stderr.err" | cut -c1-60))" \
		eval "grep -q '^machine-wide system peak: [0-9]* pages' '$T/stderr.err' && ! grep -q '^system peak' '$T/stderr.err'"
}

# 4 children one after another: the tree holds one at a time
sequential_test() {
	local peak n
	run_cmd seq -- sh -c "$WL 32 0; $WL 32 0; $WL 32 0; $WL 32 0"
	check "sequential: exit 0" test "$RC" = 0
	peak=$(json "$T/seq.json" 'd["tree_peak_pages"]')
	check "sequential: tree peak $peak within 8192..9000 pages (one child at a time, not 32768)" \
		between "$peak" 8192 9000
	n=$(json "$T/seq.json" "len($WLROWS)")
	check "sequential: 4 workload processes listed ($n)" test "$n" = 4
	check "sequential: each workload peaks at 8192..8700 pages" \
		test "$(json "$T/seq.json" "all(8192 <= p['peak_pages'] <= 8700 for p in $WLROWS)")" = True
	check "sequential: process_count >= 4 ($(json "$T/seq.json" 'd["process_count"]'))" \
		test "$(json "$T/seq.json" 'd["process_count"]')" -ge 4
	check "sequential: processes sorted by peak" \
		test "$(json "$T/seq.json" '[p["peak_pages"] for p in d["processes"]] == sorted([p["peak_pages"] for p in d["processes"]], reverse=True)')" = True
	check "sequential: alive_at_peak has one workload" \
		test "$(json "$T/seq.json" 'len([a for a in d["alive_at_peak"] if a["comm"]=="workload" and a["pages"] > 4096])')" = 1
	check "sequential: max_rss_kib within 32..40 MiB ($(json "$T/seq.json" 'd["max_rss_kib"]'))" \
		between "$(json "$T/seq.json" 'd["max_rss_kib"]')" 32768 40960
	check "sequential: processes rows have every key" \
		test "$(json "$T/seq.json" 'all(set(p) >= {"pid","ppid","comm","threads","peak_pages","peak_kib","lifetime_s"} for p in d["processes"])')" = True
	check "sequential: report keys present" \
		test "$(json "$T/seq.json" 'all(k in d for k in ("command","exit_status","signal","wall_s","user_s","sys_s","tree_peak_pages","tree_peak_kib","tree_peak_time_s","alive_at_peak","max_process_peak_pages","max_process_peak_pid","process_count","thread_count","max_rss_kib","lost_events","processes"))')" = True
	# -n limits the rows, not the counts
	run_cmd seqn -n 2 -- sh -c "$WL 1 0; $WL 1 0; $WL 1 0"
	check "-n 2: two process rows of $(json "$T/seqn.json" 'd["process_count"]')" \
		test "$(json "$T/seqn.json" '(len(d["processes"]), d["process_count"] >= 3)')" = "(2, True)"
}

# 4 children at once, each holding until all have touched their memory
parallel_test() {
	local peak r script
	script="p=; for i in 1 2 3 4; do $WL 32 30000 $T/par.ready\$i & p=\"\$p \$!\"; done
		for i in 1 2 3 4; do while [ ! -e $T/par.ready\$i ]; do sleep 0.02; done; done
		sleep 0.2; kill \$p; wait; exit 0"
	run_cmd par -- sh -c "$script"
	check "parallel: exit 0" test "$RC" = 0
	peak=$(json "$T/par.json" 'd["tree_peak_pages"]')
	check "parallel: tree peak $peak within 32768..35000 pages" between "$peak" 32768 35000
	check "parallel: alive_at_peak has the 4 workloads at >= 8192 pages" \
		test "$(json "$T/par.json" 'len([a for a in d["alive_at_peak"] if a["comm"]=="workload" and a["pages"] >= 8192])')" = 4
	r=$(json "$T/par.json" '(sum(a["pages"] for a in d["alive_at_peak"]), d["tree_peak_pages"])')
	check "parallel: alive_at_peak pages add up to the tree peak $r" \
		test "$(json "$T/par.json" 'sum(a["pages"] for a in d["alive_at_peak"]) == d["tree_peak_pages"]')" = True
	check "parallel: max process peak is one workload (8192..8700)" \
		between "$(json "$T/par.json" 'd["max_process_peak_pages"]')" 8192 8700
	check "parallel: process_count >= 5 ($(json "$T/par.json" 'd["process_count"]'))" \
		test "$(json "$T/par.json" 'd["process_count"]')" -ge 5
}

# threads are summed into their process
threads_test() {
	local peak
	run_cmd thr -- "$TH" 4 16 300
	check "threads: exit 0" test "$RC" = 0
	check "threads: one process row" test "$(json "$T/thr.json" 'len(d["processes"])')" = 1
	peak=$(json "$T/thr.json" 'd["processes"][0]["peak_pages"]')
	check "threads: process peak $peak within 16384..17300 pages (4 x 4096 summed)" \
		between "$peak" 16384 17300
	check "threads: the row counts >= 4 threads ($(json "$T/thr.json" 'd["processes"][0]["threads"]'))" \
		test "$(json "$T/thr.json" 'd["processes"][0]["threads"]')" -ge 4
	check "threads: thread_count >= 4 ($(json "$T/thr.json" 'd["thread_count"]')), process_count 1" \
		test "$(json "$T/thr.json" 'd["thread_count"] >= 4 and d["process_count"] == 1')" = True
	check "threads: tree peak >= the process peak" \
		test "$(json "$T/thr.json" 'd["tree_peak_pages"] >= d["processes"][0]["peak_pages"]')" = True
}

# a grandchild that outlives its parent (reparented to memtrace) is waited for and counted
grandchild_test() {
	local peak
	run_cmd gc -- sh -c "(sleep 0.3; exec $WL 16 0) & exit 0"
	check "grandchild: exit 0" test "$RC" = 0
	check "grandchild: memtrace waited for it (${MS} ms >= 300)" test "$MS" -ge 300
	peak=$(json "$T/gc.json" "[p['peak_pages'] for p in $WLROWS]")
	check "grandchild: in processes with a peak near 4096 ($peak)" \
		test "$(json "$T/gc.json" "[4096 <= p['peak_pages'] <= 4500 for p in $WLROWS]")" = "[True]"
	check "grandchild: the tree peak includes it ($(json "$T/gc.json" 'd["tree_peak_pages"]'))" \
		test "$(json "$T/gc.json" 'd["tree_peak_pages"]')" -ge 4096
	check "grandchild: wall_s >= 0.3" test "$(json "$T/gc.json" 'd["wall_s"] >= 0.3')" = True
	check "grandchild: its ru_maxrss counts (max_rss_kib $(json "$T/gc.json" 'd["max_rss_kib"]') >= 16 MiB)" \
		test "$(json "$T/gc.json" 'd["max_rss_kib"]')" -ge 16384
}

exit_status_test() {
	run_cmd kill9 -- sh -c 'kill -9 $$'
	check "killed by SIGKILL: exit 137 ($RC)" test "$RC" = 137
	check "killed by SIGKILL: JSON exit_status null, signal 9" \
		test "$(json "$T/kill9.json" '(d["exit_status"], d["signal"])')" = "(None, 9)"
	run_cmd missing -- "$T/no-such-program"
	check "missing program: exit 127 ($RC)" test "$RC" = 127
	check "missing program: named on stderr" grep -q 'no-such-program' "$T/missing.err"
}

# SIGTERM/SIGINT to memtrace go to the command; memtrace reports and exits 128+signal.
# (a background job of this script ignores SIGINT: env gives memtrace the default back)
signal_test() {	# signal_test SIG NUMBER
	local sig=$1 num=$2 before after i sp rc t0 ms
	before=$(tfs_state)
	env --default-signal=INT "$MT" --instance "$INST" -f json -n 0 -o "$T/$sig.json" -- sleep 5 \
		> "$T/$sig.out" 2> "$T/$sig.err" &
	MTPID=$!; PIDS+=("$MTPID")
	sp=
	for i in $(seq 50); do
		sp=$(pgrep -P "$MTPID" -x sleep) && break
		sleep 0.1
	done
	check "$sig: the command runs as memtrace's child (pid ${sp:-none})" test -n "$sp"
	sleep 0.2
	t0=$(now_ms)
	kill -"$sig" "$MTPID"; wait_exit "$MTPID"; rc=$?
	ms=$(( $(now_ms) - t0 ))
	check "$sig: memtrace exits $((128 + num)) ($rc)" test "$rc" = $((128 + num))
	check "$sig: ... at once, not after sleep 5 (${ms} ms)" test "$ms" -lt 2500
	check "$sig: the command got it (no sleep left)" test -z "$sp" -o ! -d "/proc/${sp:-0}"
	check "$sig: report written, exit_status null, signal $num" \
		test "$(json "$T/$sig.json" '(d["exit_status"], d["signal"])')" = "(None, $num)"
	after=$(tfs_state)
	check "$sig: tracefs identical after the run" test "$before" = "$after"
}

# --no-wait: memtrace returns when the command exits, its background grandchild still runs
nowait_test() {
	local gp
	run_cmd nowait --no-wait -- sh -c "$WL 8 3000 $T/nw.ready & echo \$! > $T/nw.pid; exit 0"
	gp=$(cat "$T/nw.pid" 2>/dev/null)
	check "--no-wait: exit 0" test "$RC" = 0
	check "--no-wait: returned before the grandchild ended (${MS} ms)" test "$MS" -lt 2500
	check "--no-wait: the grandchild still runs" test -n "$gp" -a -d "/proc/${gp:-0}"
	check "--no-wait: a report was written" test "$(json "$T/nowait.json" 'd["exit_status"]')" = 0
	check "--no-wait: JSON says one process still running ($(json "$T/nowait.json" 'd.get("still_running")'))" \
		test "$(json "$T/nowait.json" 'd.get("still_running")')" = 1
	[ -n "$gp" ] && kill -TERM "$gp" 2>/dev/null
	# the text report (on stderr) carries the note
	timeout -k 5 20 "$MT" --instance "$INST" --no-wait -- sh -c "sleep 2 & echo \$! > $T/nw2.pid; exit 0" \
		> /dev/null 2> "$T/nowait2.err"
	check "--no-wait: the text report notes what was left running" \
		grep -q '^--no-wait: processes of the tree still running at the end: 1$' "$T/nowait2.err"
	gp=$(cat "$T/nw2.pid" 2>/dev/null)
	[ -n "$gp" ] && kill -TERM "$gp" 2>/dev/null
}

# ---------------------------------------------------------------- from a review
# TERM once the command is gone, with an orphan left: stop waiting, report it
orphan_term_test() {
	local before after rc t0 ms gp
	before=$(tfs_state)
	"$MT" --instance "$INST" -f json -n 0 -o "$T/orph.json" -- \
		sh -c "sleep 15 & echo \$! > $T/orph.pid; exit 3" > /dev/null 2> "$T/orph.err" &
	MTPID=$!; PIDS+=("$MTPID")
	wait_file "$T/orph.pid" 50
	gp=$(cat "$T/orph.pid" 2>/dev/null)
	# the command (sh) reaped: the TERM must find it gone, not be passed on to it
	wait_for 10 no_proc -P "$MTPID" -x sh
	sleep 0.2
	t0=$(now_ms)
	kill -TERM "$MTPID"; wait_exit "$MTPID"; rc=$?
	ms=$(( $(now_ms) - t0 ))
	check "TERM after the command exited: memtrace stops waiting for the orphan (${ms} ms)" \
		test "$ms" -lt 2500
	check "... exits with the command's status 3 ($rc)" test "$rc" = 3
	check "... and reports the orphan as still running" \
		test "$(json "$T/orph.json" '(d["still_running"], d["waited"])')" = "(1, False)"
	[ -n "$gp" ] && kill -TERM "$gp" 2>/dev/null
	# the text report says what stopped the wait, not "--no-wait", never given (issue 23, 6)
	"$MT" --instance "$INST" -n 0 -o "$T/orph.txt" -- \
		sh -c "sleep 15 & echo \$! > $T/orph2.pid; exit 0" > /dev/null 2> "$T/orph2.err" &
	MTPID=$!; PIDS+=("$MTPID")
	wait_file "$T/orph2.pid" 50
	gp=$(cat "$T/orph2.pid" 2>/dev/null)
	wait_for 10 no_proc -P "$MTPID" -x sh
	kill -TERM "$MTPID"; wait_exit "$MTPID"
	check "... the text report: the wait stopped by SIGTERM, the orphan still running ($(grep -m1 'still running' "$T/orph.txt"))" \
		grep -q '^memtrace stopped waiting for the tree (SIGTERM): processes of the tree still running then: 1$' "$T/orph.txt"
	check "... and no word of --no-wait" eval "! grep -q -- '--no-wait' '$T/orph.txt'"
	[ -n "$gp" ] && kill -TERM "$gp" 2>/dev/null
	after=$(tfs_state)
	check "tracefs identical after the orphan run" test "$before" = "$after"
}

# a command that ignores TERM: the second TERM makes memtrace stop waiting
ignore_term_test() {
	local rc t0 ms
	"$MT" --instance "$INST" -f json -n 0 -o "$T/ign.json" -- \
		sh -c "trap '' TERM; echo \$\$ > $T/ign.ready; exec sleep 10" > /dev/null 2> "$T/ign.err" &
	MTPID=$!; PIDS+=("$MTPID")
	wait_file "$T/ign.ready" 100
	t0=$(now_ms)
	# the second TERM only once memtrace has read the first (two pending ones are one)
	kill -TERM "$MTPID"; wait_for 10 term_read "$MTPID"; kill -TERM "$MTPID"
	wait_exit "$MTPID"; rc=$?
	ms=$(( $(now_ms) - t0 ))
	check "a command that ignores TERM: a second TERM ends the wait (${ms} ms)" test "$ms" -lt 3000
	check "... with a report that says it did not wait" \
		test "$(json "$T/ign.json" 'd["waited"]')" = False
	check "... and exits 143, as if killed by the TERM ($rc)" test "$rc" = 143
	kill -KILL "$(cat "$T/ign.ready")" 2>/dev/null	# the command: sleep, ignoring TERM
}

# a thread that is not the leader execs: the process goes on under the leader's pid
thread_exec_test() {
	run_cmd thrx -- "$TH" exec "$WL" 16 300
	check "thread exec: exit 0" test "$RC" = 0
	check "thread exec: one process, named after the new program ($(json "$T/thrx.json" '[(p["comm"], p["peak_pages"]) for p in d["processes"]]'))" \
		test "$(json "$T/thrx.json" '[p["comm"] for p in d["processes"]]')" = "['workload']"
	check "thread exec: its lifetime covers the new program's 300 ms ($(json "$T/thrx.json" 'd["processes"][0]["lifetime_s"]') s)" \
		test "$(json "$T/thrx.json" 'd["processes"][0]["lifetime_s"] >= 0.3')" = True
	check "thread exec: the 16 MiB of the new program are in the tree peak ($(json "$T/thrx.json" 'd["tree_peak_pages"]'))" \
		test "$(json "$T/thrx.json" 'd["tree_peak_pages"] >= 4096')" = True
}

# the leader thread exits first: the process lives on in its worker
leader_exit_test() {
	run_cmd lexit -- "$TH" leader-exit 16 500
	check "leader exits first: the process's lifetime is the worker's ($(json "$T/lexit.json" 'd["processes"][0]["lifetime_s"]') s)" \
		test "$(json "$T/lexit.json" 'd["processes"][0]["lifetime_s"] >= 0.45')" = True
	check "leader exits first: its peak counts the worker's 16 MiB ($(json "$T/lexit.json" 'd["max_process_peak_pages"]'))" \
		test "$(json "$T/lexit.json" 'd["max_process_peak_pages"] >= 4096')" = True
	run_cmd lexit2 --no-wait -- sh -c "$TH leader-exit 16 600 & sleep 0.2"
	check "--no-wait: a process whose leader exited but whose worker runs is still running ($(json "$T/lexit2.json" 'd["still_running"]'))" \
		test "$(json "$T/lexit2.json" 'd["still_running"]')" = 1
	sleep 0.5
}

# the command gets the SIGPIPE disposition memtrace's caller gave
sigpipe_test() {
	(trap '' PIPE; timeout -k 5 20 "$MT" --instance "$INST" -o "$T/pipe.txt" -- \
		sh -c "grep SigIgn /proc/\$\$/status" > "$T/pipe.out" 2> /dev/null)
	check "an ignored SIGPIPE stays ignored for the command ($(cat "$T/pipe.out"))" \
		grep -q "SigIgn:.*[1-9a-f]...$" "$T/pipe.out"
	timeout -k 5 20 "$MT" --instance "$INST" -o "$T/pipe2.txt" -- \
		sh -c "grep SigIgn /proc/\$\$/status" > "$T/pipe2.out" 2> /dev/null
	check "a default SIGPIPE stays default ($(cat "$T/pipe2.out"))" \
		grep -q "SigIgn:.*0000$" "$T/pipe2.out"
}

# --exits into a pipe that closes: memtrace notices and ends
exits_pipe_test() {
	local before after rc t0 ms
	before=$(tfs_state)
	t0=$(now_ms)
	# -o: an OOM kill meanwhile writes its report beside the log, never /tmp/mem_debug_log's
	( "$MT" --instance "$INST" -o "$T/exp.log" --exits 2> "$T/exp.err" | head -2 > "$T/exp.out" ) &
	local sub=$!
	wait_for 10 grep -q "tracing in" "$T/exp.err"
	# processes end until head has its lines and memtrace notices the closed pipe
	for i in $(seq 100); do kill -0 "$sub" 2>/dev/null || break; "$WL" 1 0; sleep 0.1; done
	ms=$(( $(now_ms) - t0 ))
	check "--exits | head -2: memtrace ends when head has gone (${ms} ms)" \
		test -z "$(pgrep -f -- "--instance $INST -o $T/exp.log --exits$")"
	pkill -TERM -f -- "--instance $INST -o $T/exp.log --exits$" 2>/dev/null
	wait "$sub" 2>/dev/null
	check "--exits | head -2: head got its two lines" test "$(wc -l < "$T/exp.out")" = 2
	after=$(tfs_state)
	check "tracefs identical after --exits into a closed pipe" test "$before" = "$after"
}

# ---------------------------------------------------------------- --exits
start_exits() {	# start_exits NAME OPTIONS...: MTPID, stdout $T/NAME.out
	local name=$1 rc=0; shift
	start_bg "$T/$name.out" "$T/$name.err" 5 "$MT" --instance "$INST" -o "$T/$name.log" \
		--exits "$@" || rc=$?
	MTPID=$BGPID
	return "$rc"
}

has_lines() {	# has_lines FILE PID...: FILE has a JSON line for each PID
	local f=$1 p; shift
	for p; do grep -q "\"pid\":$p," "$f" || return 1; done
}

exits_test() {
	local before after p pids=() rc n lines
	before=$(tfs_state)
	start_exits exj -f json || { bad "--exits: did not start: $(cat "$T/exj.err")"; return; }
	for p in 1 2 3 4 5; do
		"$WL" 4 20 & pids+=($!); wait "$!"
	done
	# flushed per line: the lines are there while memtrace still runs (within a poll)
	wait_for 10 has_lines "$T/exj.out" "${pids[@]}"
	n=0
	for p in "${pids[@]}"; do
		n=$((n + $(python3 -c '
import json, sys
pid = int(sys.argv[2]); n = 0
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["pid"] == pid and r["comm"] == "workload" and r["ppid"] == int(sys.argv[3]) \
       and 1024 <= r["peak_pages"] <= 1300 \
       and r["peak_kib"] == r["peak_pages"] * int(sys.argv[4]) // 1024 \
       and r["lifetime_s"] >= 0.02 and "time_s" in r:
        n += 1
print(n)' "$T/exj.out" "$p" "$$" "$(getconf PAGESIZE)" 2>/dev/null || echo 0)))
	done
	check "--exits -f json: one correct line for each of the 5 processes, before SIGTERM ($n of 5)" test "$n" = 5
	lines=$(python3 -c '
import json, sys
for l in open(sys.argv[1]): json.loads(l)
print("valid")' "$T/exj.out" 2>&1 | tail -1)
	check "--exits -f json: every line is a JSON object ($lines)" test "$lines" = valid
	kill -TERM "$MTPID"; wait_exit "$MTPID"; rc=$?
	check "--exits: SIGTERM exits 0 ($rc)" test "$rc" = 0
	after=$(tfs_state)
	check "--exits: tracefs identical after the run" test "$before" = "$after"

	# text, filtered by two --pid and one --comm
	local w1 w2
	before=$(tfs_state)
	sh -c "while [ ! -e $T/go ]; do sleep 0.05; done" & w1=$!
	sh -c "while [ ! -e $T/go ]; do sleep 0.05; done" & w2=$!
	PIDS+=("$w1" "$w2")
	start_exits ext --pid "$w1" --pid "$w2" --comm threads ||
		{ bad "--exits: did not start: $(cat "$T/ext.err")"; touch "$T/go"; return; }
	"$WL" 1 0
	"$TH" 2 1 0
	touch "$T/go"; wait "$w1" "$w2"
	sleep 0.5
	kill -INT "$MTPID"; wait_exit "$MTPID"; rc=$?
	check "--exits: SIGINT exits 0 ($rc)" test "$rc" = 0
	check "--exits text: a header line starting with #" \
		test "$(head -1 "$T/ext.out" | cut -c1)" = "#"
	check "--exits text: the header names the columns" \
		test "$(head -1 "$T/ext.out" | tr -s ' #' ' ' | sed 's/^ //')" = "TIME_S PID PPID PEAK_PAGES PEAK_KIB LIFETIME_S COMM"
	check "--exits --pid --pid --comm: exactly 3 rows ($(grep -vc '^#' "$T/ext.out"))" \
		test "$(grep -vc '^#' "$T/ext.out")" = 3
	check "--exits --pid: both waiting shells printed" \
		test "$(awk -v a="$w1" -v b="$w2" '!/^#/ && ($2 == a || $2 == b) && $3 == '$$' && $7 == "sh"' "$T/ext.out" | wc -l)" = 2
	check "--exits --comm threads: one row for the process (threads summed: >= 512 pages)" \
		test "$(awk '!/^#/ && $7 == "threads" && $4 >= 512 && $5 == 4 * $4' "$T/ext.out" | wc -l)" = 1
	check "--exits: no workload or sleep row" test "$(awk '!/^#/ && ($7 == "workload" || $7 == "sleep")' "$T/ext.out" | wc -l)" = 0
	after=$(tfs_state)
	check "--exits: tracefs identical after the filtered run" test "$before" = "$after"
}

# ---------------------------------------------------------------- --by process (daemon)
by_process_test() {
	local before after tp rc i
	before=$(tfs_state)
	"$MT" --instance "$INST" --by process -f json -n 0 -o "$T/by.json" > "$T/by.out" 2> "$T/by.err" &
	MTPID=$!; PIDS+=("$MTPID")
	for i in $(seq 100); do grep -q "tracing in" "$T/by.err" && break; sleep 0.05; done
	"$TH" 4 16 200 & tp=$!; wait "$tp"
	sleep 0.3
	kill -TERM "$MTPID"; wait_exit "$MTPID"; rc=$?
	check "--by process: SIGTERM exits 0 ($rc)" test "$rc" = 0
	check "--by process: view process, processes in place of tasks" \
		test "$(json "$T/by.json" '(d.get("view"), "processes" in d, "tasks" in d)')" = "('process', True, False)"
	check "--by process: the threaded program is one row, threads summed ($(json "$T/by.json" "[(p['threads'], p['peak_pages']) for p in d['processes'] if p['pid']==$tp]"))" \
		test "$(json "$T/by.json" "[p['threads'] >= 4 and 16384 <= p['peak_pages'] <= 17300 and p['state'] == 'exited' for p in d['processes'] if p['pid']==$tp]")" = "[True]"
	check "--by process: rows have every key" \
		test "$(json "$T/by.json" 'all(set(p) >= {"pid","ppid","comm","threads","peak_pages","peak_kib","current_pages","state"} for p in d["processes"])')" = True
	after=$(tfs_state)
	check "--by process: tracefs identical after the run" test "$before" = "$after"
}

# ---------------------------------------------------------------- --json FILE
# text_rows FILE: "PID PEAK_PAGES" of each PROCESSES row of a text report
text_rows() { sed -n '/^PROCESSES:/,/^$/p' "$1" | awk '$1 ~ /^[0-9]+$/ { print $1, $4 }' | sort; }
# json_rows FILE: "PID PEAK_PAGES" of each process of a JSON report
json_rows() { json "$1" '"\n".join("%d %d" % (p["pid"], p["peak_pages"]) for p in d["processes"])' | sort; }
# in_json TEXT JSON: every process row of the text report is in the JSON, same peak
in_json() { [ -n "$(text_rows "$1")" ] && [ -z "$(comm -23 <(text_rows "$1") <(json_rows "$2"))" ]; }

json_file_test() {
	local before after rc i wp
	# the daemon: a text log of 3 rows by process, and the whole run as JSON beside it
	before=$(tfs_state)
	"$MT" --instance "$INST" --by process -n 3 -o "$T/jd.txt" --json "$T/jd.json" \
		--record "$T/jd.rec" > /dev/null 2> "$T/jd.err" &
	MTPID=$!; PIDS+=("$MTPID")
	for i in $(seq 100); do grep -q "tracing in" "$T/jd.err" && break; sleep 0.05; done
	"$WL" 16 0 & wp=$!; wait "$wp"
	"$TH" 2 4 100
	sleep 0.3
	kill -TERM "$MTPID"; wait_exit "$MTPID"; rc=$?
	after=$(tfs_state)
	check "daemon --json F: SIGTERM exits 0 ($rc), tracefs identical after the run" \
		eval '[ $rc = 0 ] && [ "$before" = "$after" ]'
	check "daemon --json F: the text log as asked (3 rows), F parses: every process, by process" \
		eval 'grep -q "^PROCESSES: 3 of " "$T/jd.txt" &&
			[ "$(json "$T/jd.json" "d[\"view\"] == \"process\" and len(d[\"processes\"]) == d[\"processes_with_pages\"] > 3")" = True ]'
	check "daemon --json F: every process row of the text log is in F with the same peak" \
		in_json "$T/jd.txt" "$T/jd.json"
	check "daemon --json F: the workload's row ($(json "$T/jd.json" "[p['peak_pages'] for p in d['processes'] if p['pid'] == $wp]") pages) holds its 16 MiB" \
		test "$(json "$T/jd.json" "[4096 <= p['peak_pages'] <= 4600 for p in d['processes'] if p['pid'] == $wp]")" = "[True]"
	# the same run replayed: the same processes with the same peaks
	"$MT" --replay "$T/jd.rec" -f json -n 0 --by process > "$T/jd.ref" 2> /dev/null
	check "daemon --json F: its processes and peaks are the replay's (-f json -n 0 --by process) of the run" \
		eval '[ -n "$(json_rows "$T/jd.ref")" ] && [ "$(json_rows "$T/jd.json")" = "$(json_rows "$T/jd.ref")" ]'
	"$MT" --diff "$T/jd.json" "$T/jd.json" > /dev/null 2>&1
	check "daemon --json F: memtrace --diff F F exits 0" test $? = 0

	# command mode: the command report, every process of the tree, as JSON
	run_cmd jc-log --json "$T/jc.json" -- sh -c "\"$WL\" 8 0 & \"$WL\" 4 0; wait"
	check "COMMAND --json F: exit 0, F is the command report as JSON, its tree's processes all listed" \
		eval '[ $RC = 0 ] && [ "$(json "$T/jc.json" "d[\"command\"][0] == \"sh\" and len(d[\"processes\"]) == d[\"processes_with_pages\"] >= 3")" = True ]'
	timeout -k 5 20 "$MT" --instance "$INST" -n 1 -o "$T/jt.txt" --json "$T/jt.json" -- \
		sh -c "\"$WL\" 8 0 & \"$WL\" 4 0; wait" > /dev/null 2> "$T/jt.err"; RC=$?
	check "COMMAND -n 1 --json F: exit 0, the text report of 1 row, F of every process" \
		eval '[ $RC = 0 ] && grep -q "^PROCESSES: 1 of 3 " "$T/jt.txt" &&
			[ "$(json "$T/jt.json" "len(d[\"processes\"])")" = 3 ]'
	check "COMMAND --json F: the text report's process row is in F with the same peak" \
		in_json "$T/jt.txt" "$T/jt.json"
	"$MT" --diff "$T/jt.json" "$T/jt.json" > /dev/null 2>&1
	check "COMMAND --json F: memtrace --diff F F exits 0" test $? = 0

	# a symlink at F is replaced, never followed
	echo keep > "$T/jtarget"
	ln -sf "$T/jtarget" "$T/jlink.json"
	timeout -k 5 20 "$MT" --instance "$INST" -o "$T/jl.txt" --json "$T/jlink.json" -- true \
		> /dev/null 2>&1; RC=$?
	check "COMMAND --json at a symlink: exit 0, the link replaced by the report, its target unchanged" \
		eval '[ $RC = 0 ] && [ ! -L "$T/jlink.json" ] && [ "$(cat "$T/jtarget")" = keep ] &&
			[ "$(json "$T/jlink.json" "d[\"command\"] == [\"true\"]")" = True ]'
	# F that became a directory during the run: exit 1, said, the main report written
	rm -rf "$T/jdir"
	timeout -k 5 20 "$MT" --instance "$INST" -o "$T/jx.txt" --json "$T/jdir" -- mkdir "$T/jdir" \
		> /dev/null 2> "$T/jx.err"; RC=$?
	check "COMMAND --json F, F a directory at the end: exit 1, said, the text report written ($(grep -- --json "$T/jx.err" | head -c 160))" \
		eval '[ $RC = 1 ] && grep -q "^memtrace: --json $T/jdir: " "$T/jx.err" &&
			grep -q "^memtrace .* command report" "$T/jx.txt" && [ -d "$T/jdir" ]'
	before=$(tfs_state)
	"$MT" --instance "$INST" -o "$T/jy.txt" --json "$T/jy.json" > /dev/null 2> "$T/jy.err" &
	MTPID=$!; PIDS+=("$MTPID")
	for i in $(seq 100); do grep -q "tracing in" "$T/jy.err" && break; sleep 0.05; done
	mkdir "$T/jy.json"
	kill -TERM "$MTPID"; wait_exit "$MTPID"; rc=$?
	after=$(tfs_state)
	check "daemon --json F, F a directory at the end: exit 1, said, the log written, tracefs as found" \
		eval '[ $rc = 1 ] && grep -q "^memtrace: --json $T/jy.json: " "$T/jy.err" &&
			grep -q "^memtrace .* report (trigger: SIGTERM" "$T/jy.txt" && [ "$before" = "$after" ]'
	# one there at the start: refused before anything runs
	rm -f "$T/jz.ran"
	timeout -k 5 20 "$MT" --instance "$INST" --json "$T/jdir" -- touch "$T/jz.ran" \
		> /dev/null 2> "$T/jz.err"; RC=$?
	check "COMMAND --json at a directory at the start: exit 1 before the command runs" \
		eval '[ $RC = 1 ] && [ ! -e "$T/jz.ran" ] && grep -q "checked before tracing" "$T/jz.err"'
}

# Two outputs that are one file, however named (issue 36): refused before anything runs,
# whatever the strings say; two files of their own both written
same_file_test() {
	local how rc
	mkdir -p "$T/sf/out"
	ln -sfn "$T/sf/out" "$T/sf/link"
	echo old > "$T/sf/out/h"
	ln -f "$T/sf/out/h" "$T/sf/out/hl"
	for how in "out/x out/./x" "out/x link/x" "out/x out/../out/x" "out/h out/hl" \
		   "./out/y $T/sf/out/y"; do
		rm -f "$T/sf/ran"
		(cd "$T/sf" && timeout -k 5 20 "$MT" --instance "$INST" -o "${how% *}" \
			--json "${how#* }" -- touch "$T/sf/ran" > /dev/null 2> "$T/sf/err"); rc=$?
		check "-o ${how% *} --json ${how#* }: one file, refused (exit $rc), the command not run" \
			eval '[ $rc = 2 ] && [ ! -e "$T/sf/ran" ] && grep -q "are the same file" "$T/sf/err"'
	done
	(cd "$T/sf" && timeout -k 5 20 "$MT" --instance "$INST" -o out/r.txt --json out/r.json \
		-- true > /dev/null 2> "$T/sf/err"); rc=$?
	check "-o out/r.txt --json out/r.json: two files, both written (exit $rc)" \
		eval '[ $rc = 0 ] && grep -q "command report" "$T/sf/out/r.txt" &&
			json "$T/sf/out/r.json" "d[\"memtrace_version\"]" > /dev/null'
}

nonroot_test() {
	local rc
	command -v setpriv > /dev/null || { skip "no setpriv to drop privileges"; return; }
	rm -f "$T.ran"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$MT" --instance "$INST" \
		-- touch "$T.ran" > /dev/null 2> "$T/nr.err"; rc=$?
	check "command mode without privilege: exit 4 ($(head -c 120 "$T/nr.err"))" \
		test "$rc" = 4 -a -s "$T/nr.err"
	check "command mode without privilege: the command did not run" test ! -e "$T.ran"
	rm -f "$T.ran"
}

# ---------------------------------------------------------------- the wait said (issue 40, 4)
# The command exits, its tree still has a process: memtrace says so at once (which, how many,
# how to stop waiting) instead of waiting in silence; TERM then stops the wait.
left_running_test() {
	local gp before after
	before=$(tfs_state)
	: > "$T/lr.err"
	"$MT" --instance "$INST" -n 0 -o "$T/lr.txt" -- \
		sh -c "sleep 30 & echo \$! > $T/lr.pid; exit 4" > /dev/null 2> "$T/lr.err" &
	MTPID=$!; PIDS+=("$MTPID")
	# its pid written whole: the file exists (opened by the shell) before the echo is in it
	wait_for 10 test -s "$T/lr.pid"
	gp=$(cat "$T/lr.pid" 2> /dev/null)
	# the name is the child's when memtrace looks: sh's until its exec of sleep is read
	wait_for 10 grep -q 'the command exited' "$T/lr.err"
	check "the command exited, its child runs on: said while memtrace waits ($(grep -m1 'command exited' "$T/lr.err"))" \
		eval "kill -0 $MTPID && grep -qE '^memtrace: the command exited \(exit status 4\), 1 process of its tree still runs: $gp \((sleep|sh)\); waiting for it \(Ctrl-C or kill -TERM $MTPID: stop waiting, report it as still running; --no-wait: never wait\)$' '$T/lr.err'"
	kill -TERM "$MTPID"; wait_exit "$MTPID"
	check "... TERM, as it says, stops the wait: the report has it still running" \
		grep -q 'processes of the tree still running then: 1$' "$T/lr.txt"
	[ -n "$gp" ] && kill -TERM "$gp" 2> /dev/null
	# nothing said where nothing is left, nor with --no-wait
	timeout -k 5 20 "$MT" --instance "$INST" -n 0 -o "$T/lr2.txt" -- sh -c "$WL 1 0; exit 0" \
		> /dev/null 2> "$T/lr2.err"
	timeout -k 5 20 "$MT" --instance "$INST" --no-wait -n 0 -o "$T/lr3.txt" -- \
		sh -c "sleep 1 & exit 0" > /dev/null 2> "$T/lr3.err"
	check "... said neither when the tree ended with the command nor with --no-wait" \
		eval "! grep -q 'command exited' '$T/lr2.err' '$T/lr3.err'"
	after=$(tfs_state)
	check "tracefs identical after the runs that left processes" test "$before" = "$after"
}

# ---------------------------------------------------------------- beside a daemon (issue 40, 3)
# inst_of FILE: the instance a run's stderr says it traces in
inst_of() { sed -n 's|.*tracing in [^ ]*/instances/\([^ ]*\) .*|\1|p' "$1" | head -1; }

# Without --instance, a command run and --top take names of their own (memtrace-MODE-PID),
# so they run beside a daemon on the well-known instance "memtrace" and beside each other;
# the daemon keeps that name. The daemon is this test's own unless one already runs there.
beside_daemon_test() {
	local before after rc1 rc2 i2 d=$TFS/instances/memtrace kp
	if [ -d "$d" ]; then
		if flock -n "$d" true 2> /dev/null; then
			skip "beside a daemon: instances/memtrace exists and no memtrace holds it"
			return
		fi
		echo "# a daemon already traces in instances/memtrace: the runs go beside it"
	else
		: > "$T/bd-daemon.err"
		"$MT" -o "$T/bd-daemon.log" > /dev/null 2> "$T/bd-daemon.err" &
		DPID=$!
		wait_for 10 grep -q "tracing in" "$T/bd-daemon.err"
		check "beside a daemon: the daemon traces in the well-known instance memtrace ($(inst_of "$T/bd-daemon.err"))" \
			test "$(inst_of "$T/bd-daemon.err")" = memtrace
	fi
	before=$(ls "$TFS/instances" | grep '^memtrace-\(command\|top\)-' | sort)
	# the command finds its memtrace's instance by its parent's pid (memtrace runs it)
	timeout -k 5 20 "$MT" -f json -n 0 -o "$T/bd1.json" -- sh -c \
		"ls -d $TFS/instances/memtrace-command-\$PPID > $T/bd1.inst && exec $WL 8 0" \
		> /dev/null 2> "$T/bd1.err"
	rc1=$?
	check "beside a daemon: a command run without --instance exits 0 ($rc1: $(grep -m1 'in use\|error' "$T/bd1.err"))" \
		test "$rc1" = 0
	check "... in an instance of its own, memtrace-command-PID ($(cat "$T/bd1.inst" 2> /dev/null))" \
		test -s "$T/bd1.inst"
	check "... and its workload's 8 MiB are counted ($(json "$T/bd1.json" 'd["tree_peak_pages"]') pages)" \
		test "$(json "$T/bd1.json" 'd["tree_peak_pages"] >= 2048')" = True
	# two at once, beside the daemon and beside each other
	timeout -k 5 20 "$MT" -f json -n 0 -o "$T/bd2.json" -- "$WL" 4 500 > /dev/null 2> "$T/bd2.err" &
	kp=$!
	timeout -k 5 20 "$MT" -f json -n 0 -o "$T/bd3.json" -- "$WL" 4 500 > /dev/null 2> "$T/bd3.err"
	rc2=$?
	wait "$kp"; rc1=$?
	check "beside a daemon and each other: two command runs at once exit 0 and 0 ($rc1, $rc2$(cat "$T/bd2.err" "$T/bd3.err" | grep -m1 ' in use'))" \
		test "$rc1,$rc2" = 0,0
	timeout -k 5 20 "$MT" --top --count 1 -o "$T/bd-top.log" < /dev/null > "$T/bd-top.out" \
		2> "$T/bd-top.err"
	rc1=$?
	i2=$(inst_of "$T/bd-top.err")
	check "beside a daemon: --top without --instance exits 0 ($rc1: $(grep -m1 'in use\|error' "$T/bd-top.err"))" \
		test "$rc1" = 0
	check "... in an instance of its own, memtrace-top-PID ($i2), and drew a frame" \
		eval "[[ '$i2' =~ ^memtrace-top-[0-9]+\$ ]] && grep -q '^TASKS:' '$T/bd-top.out'"
	# a run killed with SIGKILL leaves its instance: the next start removes it (its name is
	# its own, so no later run of that name would)
	"$MT" -n 0 -o "$T/bd-kill.txt" -- sleep 30 > /dev/null 2> "$T/bd-kill.err" &
	kp=$!; PIDS+=("$kp")
	i2=memtrace-command-$kp
	wait_for 10 test -d "$TFS/instances/$i2"
	wait_for 10 pgrep -P "$kp" -x sleep > /dev/null
	pkill -KILL -P "$kp" -x sleep
	kill -KILL "$kp" 2> /dev/null; wait "$kp" 2> /dev/null
	check "a command run killed with SIGKILL left its instance ($i2)" test -n "$i2" -a -d "$TFS/instances/$i2"
	timeout -k 5 20 "$MT" -n 0 -o "$T/bd-next.txt" -- true > /dev/null 2> "$T/bd-next.err"
	check "... the next run removes it, saying so ($(grep -m1 stale "$T/bd-next.err"))" \
		eval "grep -q 'removing stale instance $TFS/instances/$i2 (owner $kp is gone)' '$T/bd-next.err' && [ ! -d '$TFS/instances/$i2' ]"
	if [ -n "${DPID:-}" ]; then
		kill -TERM "$DPID"; wait_exit "$DPID" 20
		check "... the daemon stopped and removed its instance" test ! -d "$d"
		DPID=
	fi
	after=$(ls "$TFS/instances" | grep '^memtrace-\(command\|top\)-' | sort)
	check "... and no run left an instance of its own (before: '$before', after: '$after')" \
		test "$before" = "$after"
}

# --diff of two COMMANDs' JSON reports (issue 40, 1): the tree peak is the run's measure, the
# machine's system peak (other jobs, here a 48 MiB workload started beside the second run)
# is shown apart and gates only with --fail-over system:N; the header names each command
diff_commands_test() {
	local rc h
	"$MT" --instance "$INST" -f json -o "$T/dc1.json" -- "$WL" 4 300 2> "$T/dc1.err"
	# the other job starts its 48 MiB once the second run traces (the command says go), and
	# holds them while the command's own 12 MiB workload runs
	sh -c "while [ ! -e '$T/dc.go' ]; do sleep 0.05; done; exec '$WL' 48 2500 '$T/dc.ready'" \
		> /dev/null 2>&1 &
	h=$!
	"$MT" --instance "$INST" -f json -o "$T/dc2.json" -- sh -c "touch '$T/dc.go'; while [ ! -e '$T/dc.ready' ]; do sleep 0.05; done; '$WL' 12 300" 2> "$T/dc2.err"
	wait "$h"
	check "--diff of commands: the second run's machine-wide peak holds the 48 MiB beside it, its tree not" \
		test "$(json "$T/dc2.json" "int(d['system_peak']['pages'] >= 48*256 and d['tree_peak_pages'] < 20*256)")" = 1
	"$MT" --diff "$T/dc1.json" "$T/dc2.json" > "$T/dc.txt" 2> "$T/dc.err"; rc=$?
	check "--diff of commands: exit 0, a TREE PEAK row with the two tree peaks (the reports' own)" \
		eval '[ $rc = 0 ] && grep -A1 "^TREE PEAK" "$T/dc.txt" | grep -q -E "^both +$(json "$T/dc1.json" "d['"'"'tree_peak_pages'"'"']") +$(json "$T/dc2.json" "d['"'"'tree_peak_pages'"'"']") .* tree peak$"'
	check "--diff of commands: the header names each command and its exit status, no 'trigger ?'" \
		eval 'grep -q "^  command .*workload 4 300, exit status 0, wall" "$T/dc.txt" &&
			grep -q "^  command sh -c .*, exit status 0, wall" "$T/dc.txt" && ! grep -q "trigger ?" "$T/dc.txt"'
	check "--diff of commands: the machine's system peak shown apart, not gated" \
		grep -q "^MACHINE'S SYSTEM PEAK (every task's, other jobs' too: not gated" "$T/dc.txt"
	# tree 4 -> 12 MiB (+200%); the machine's +48 MiB and more (+1000% or more)
	"$MT" --diff "$T/dc1.json" "$T/dc2.json" --fail-over 100% > /dev/null 2> "$T/dc.err"; rc=$?
	check "--diff of commands --fail-over 100%: exit 3 for the tree (+200%), named" \
		eval '[ $rc = 3 ] && grep -q "the command.s tree peak grew by" "$T/dc.err" && ! grep -q "machine" "$T/dc.err"'
	"$MT" --diff "$T/dc1.json" "$T/dc2.json" --fail-over 400% > /dev/null 2> "$T/dc.err"; rc=$?
	check "--diff of commands --fail-over 400%: exit 0, the machine's growth does not gate ($(head -c 100 "$T/dc.err"))" \
		test "$rc" = 0
	# system:N between the tree's growth and the machine's, from the two reports: the
	# machine's run-1 peak is other jobs' too (in CI, fuzzers and valgrind beside make
	# check made it large enough that +48 MiB was under 400%); if the machine grew no
	# more than the tree, N under both: the machine's peak must still be the one named
	local gt gs n both
	read -r gt gs < <(python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
grow = lambda x, y: 100 * (y - x) // max(1, x)
print(grow(a["tree_peak_pages"], b["tree_peak_pages"]),
      grow(a["system_peak"]["pages"], b["system_peak"]["pages"]))' "$T/dc1.json" "$T/dc2.json")
	if [ "$gs" -gt $((gt + 10)) ]; then
		n=$(( (gt + gs) / 2 )) both=1
	else
		n=$(( gs / 2 > 0 ? gs / 2 : 1 )) both=0
	fi
	"$MT" --diff "$T/dc1.json" "$T/dc2.json" --fail-over "system:$n%" -f json > "$T/dc.json" 2> "$T/dc.err"; rc=$?
	check "--diff of commands --fail-over system:$n% (tree +$gt%, machine +$gs%): exit 3, the machine's system peak named, JSON says it is gated$([ $both = 1 ] && echo ', the tree not over')" \
		eval '[ $rc = 3 ] && grep -q "the machine.s system peak grew by" "$T/dc.err" &&
			[ "$(json "$T/dc.json" "int(d['"'"'system_peak_gated'"'"'] and d['"'"'system_peak'"'"']['"'"'over'"'"'] and ($both == 0 or not d['"'"'tree_peak'"'"']['"'"'over'"'"']))")" = 1 ]'
}

t_start=$(now_ms)
find_tracefs
if ! can_trace "command mode tests"; then
	:
elif [ ! -x "$WL" ] || [ ! -x "$TH" ]; then
	skip_live "build/tests/workload and build/tests/threads must be built first"
else
	start_test
	single_test
	sequential_test
	parallel_test
	threads_test
	grandchild_test
	exit_status_test
	signal_test TERM 15
	signal_test INT 2
	nowait_test
	orphan_term_test
	ignore_term_test
	thread_exec_test
	leader_exit_test
	sigpipe_test
	exits_test
	exits_pipe_test
	by_process_test
	diff_commands_test
	json_file_test
	same_file_test
	nonroot_test
	left_running_test
	beside_daemon_test
fi
echo "# $(( ($(now_ms) - t_start) / 1000 )) s"
summary
[ "$fail" = 0 ]
