#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# integration.sh - memtrace on the real tracefs: peaks, signals, exit paths, record/replay
#
# Needs root and a tracefs; each test says SKIP with a reason when it cannot run.
# Every test checks that tracefs is left exactly as it was found.
set -u
cd "$(dirname "$0")/.."
MT=$PWD/memtrace
MT_HOOKS=$PWD/build/tests/memtrace-hooks	# the test build: MEMTRACE_TEST_* fault hooks
WL=$PWD/build/tests/workload
T=$(mktemp -d /tmp/memtrace-it.XXXXXX)
INST=memtrace-it$$
. "$PWD/tests/lib.sh"

cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	undo_ours
	umount "$T/full" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# ---------------------------------------------------------------- options
opts_tests() {
	local out rc
	out=$("$MT" --help 2>/dev/null); rc=$?
	check "--help exits 0 on stdout" test "$rc" = 0 -a -n "$out"
	out=$("$MT" --version); check "--version prints the version" grep -q '^memtrace [0-9]' <<< "$out"
	for a in "--bogus" "-b" "-b abc" "-b 0" "-b 99999999999" "-f xml" "-n -1" \
		 "--max-tasks 1" "--max-tasks x" "--max-modules 0" "--instance a/b" \
		 "--pidfile /tmp/x" "--replay /x /y" "a b c"; do
		# shellcheck disable=SC2086
		"$MT" $a > /dev/null 2> "$T/usage"; rc=$?
		check "bad option '$a': exit 2 with a message" \
			test "$rc" = 2 -a "$(grep -c 'memtrace:' "$T/usage")" = 1
	done
}

# ---------------------------------------------------------------- live tests
peak_test() {
	local before after peak total free mem t0 t1 id wpid
	before=$(tfs_state)
	total=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)
	free=$(awk '$1 == "MemFree:" { print $2 }' /proc/meminfo)
	t0=$(date +%s)
	start_mt -f json -n 0 -o "$T/log.json" || { bad "64 MiB: memtrace did not start: $(cat "$T/err")"; return; }
	t1=$(date +%s)
	# its row by pid: other work on this machine may run a "workload" too (a CI beside)
	"$WL" 64 200 & wpid=$!
	wait "$wpid"
	sleep 0.3
	kill -TERM "$MTPID"; wait_exit "$MTPID"; rc=$?
	check "SIGTERM exits 0" test "$rc" = 0
	peak=$(json "$T/log.json" "[t['peak_pages'] for t in d['tasks'] if t['pid']==$wpid][0]")
	check "64 MiB workload peak $peak within 16384..17200 pages" \
		test "$peak" -ge 16384 -a "$peak" -le 17200
	check "final report trigger SIGTERM" test "$(json "$T/log.json" "d['trigger']")" = SIGTERM
	check "lost events reported as 0" test "$(json "$T/log.json" "d['lost_events']")" = 0
	check "log file mode 0600" test "$(stat -c %a "$T/log.json")" = 600
	# /proc/meminfo at the start: MemTotal as it is; MemFree as read just before the start,
	# within 2% of MemTotal (other work on the machine moves it; memtrace's own buffers
	# and tables come after it: 2 MiB of ring buffer per CPU alone)
	mem=$(json "$T/log.json" "d['memory_at_start']['total_kib'], d['memory_at_start']['free_kib'], d['memory_at_start']['available_kib'] or 0")
	check "memory at start: MemTotal $total kB, MemFree ~$free kB (report: $mem)" \
		python3 -c 'import sys; t, f = int(sys.argv[1]), int(sys.argv[2]); rt, rf, ra = eval(sys.argv[3])
sys.exit(not (rt == t and abs(rf - f) <= t / 50 and 0 < rf <= ra <= rt))' "$total" "$free" "$mem"
	# the kernel, host and start time (what --diff and --svg head with): uname's, and the
	# wall clock between memtrace's start and its return (--daemon returns once tracing)
	id=$(json "$T/log.json" "d['kernel'], d['host'], d['started_at']")
	check "kernel $(uname -r), host $(uname -n), tracing began at $t0..$t1 (report: $id)" \
		python3 -c 'import sys, calendar, time; k, h, s = eval(sys.argv[1])
t = calendar.timegm(time.strptime(s, "%Y-%m-%dT%H:%M:%SZ"))
sys.exit(not (k == sys.argv[2] and h == sys.argv[3] and int(sys.argv[4]) <= t <= int(sys.argv[5])))' \
		"$id" "$(uname -r)" "$(uname -n)" "$t0" "$t1"
	if [ ! -d "$TFS/events/module" ]; then
		# this kernel has no module events: memtrace runs and names what is missing
		check "optional events missing here (module:*) are named in the report, with their cost" \
			test "$(json "$T/log.json" "[m['lost'] != '' for m in d['events']['missing'] if m['event'] == 'module:module_load']")" = "[True]"
	fi
	after=$(tfs_state)
	check "tracefs identical after SIGTERM" test "$before" = "$after"
}

kmsg_test() {
	local before after tag wpid line peak
	if [ ! -w /dev/kmsg ] || ! dmesg > /dev/null 2>&1; then
		skip "--kmsg: /dev/kmsg not writable or dmesg not readable"; return
	fi
	before=$(tfs_state)
	# --no-seed: the ranking is of this run's allocations, where the 16 MiB workload leads
	# (seeded, the five largest processes of a busy machine could push it out of the top 5)
	start_mt --kmsg --no-seed -n 0 -f json -o "$T/kmsg.json" ||
		{ bad "--kmsg: memtrace did not start"; return; }
	"$WL" 16 100 & wpid=$!; wait "$wpid"
	sleep 0.3
	kill -TERM "$MTPID"; wait_exit "$MTPID"
	# this run's lines only: they name our log file
	dmesg | grep -a "memtrace: report (SIGTERM): .*full report in $T/kmsg.json" > "$T/kmsg.head"
	check "--kmsg: one summary head line in dmesg" test "$(wc -l < "$T/kmsg.head")" = 1
	line=$(dmesg | grep -a "memtrace: top task: pid $wpid (workload)")
	peak=$(json "$T/kmsg.json" "[t['peak_pages'] for t in d['tasks'] if t['pid']==$wpid][0]")
	check "--kmsg: the workload's line carries the report's peak ($peak pages)" \
		grep -q "peak $peak pages" <<< "$line"
	check "--kmsg: lost events in the head line match the report" \
		grep -q ", $(json "$T/kmsg.json" "d['lost_events']") lost," "$T/kmsg.head"
	# the top-task lines after this run's head line are the report's first five rows
	dmesg | grep -a -A20 -F "full report in $T/kmsg.json" | grep -a -o "memtrace: top task: .*" |
		head -5 > "$T/kmsg.top"
	json "$T/kmsg.json" "'\n'.join('memtrace: top task: pid %d (%s) peak %d pages (%d KiB)' % (t['pid'], t['comm'] or '?', t['peak_pages'], t['peak_kib']) + (', %d of them seeded at start' % t['seeded_pages'] if t['seeded_pages'] else '') for t in d['tasks'][:5])" > "$T/kmsg.want"
	check "--kmsg: the top-task lines are the report's first five rows" \
		cmp -s "$T/kmsg.top" "$T/kmsg.want"
	after=$(tfs_state)
	check "tracefs identical after --kmsg run" test "$before" = "$after"

	# no /dev/kmsg (a sandbox: systemd's PrivateDevices=): the lines go to stderr instead
	unshare -m --propagation private sh -c 'mount -t tmpfs memtrace-nodev /dev && exec "$@"' \
		sh "$MT" --instance "$INST" --kmsg -n 3 -f json -o "$T/kmsg2.json" \
		> /dev/null 2> "$T/kmsg2.err" &
	MTPID=$!; PIDS+=("$MTPID")
	for _ in $(seq 100); do grep -q "tracing in" "$T/kmsg2.err" && break; sleep 0.05; done
	kill -TERM "$MTPID"; wait_exit "$MTPID"
	check "--kmsg without /dev/kmsg: the summary goes to stderr, level prefix dropped" \
		grep -q "^memtrace: report (SIGTERM): .*full report in $T/kmsg2.json" "$T/kmsg2.err"
	# the memory at start, what a crashkernel= size needs besides the peak (issue 40, 8):
	# the machine's MemTotal, then the system peak, last
	check "--kmsg: the summary has the memory at start, MemTotal this machine's, before the system peak ($(grep -m1 'memtrace: memory at start' "$T/kmsg2.err" | cut -c1-70))" \
		eval 'grep -A1 "^memtrace: memory at start: MemTotal $(awk "/^MemTotal:/ { print \$2 }" /proc/meminfo) kB, MemFree [0-9]* kB" "$T/kmsg2.err" | tail -1 | grep -q "^memtrace: system peak: "'
	check "--kmsg without /dev/kmsg: nothing of that run in dmesg" \
		not_in_dmesg "full report in $T/kmsg2.json"
	after=$(tfs_state)
	check "tracefs identical after the run without /dev/kmsg" test "$before" = "$after"
}
# --crashkernel on this machine (a capture kernel's answer, asked for): the sample that set P
# explained from its /proc/meminfo parts in the JSON (KiB, exact): the need is what was in
# use less the clean page cache, the file LRU less dirty, writeback and the mapped pages kept
# (as many as Unevictable and Shmem could hold); the text line says the same figures, and
# the answer is its terms' sum rounded up to a MiB, a lower bound here (not a capture kernel:
# no boot buffer of page events, or no initramfs), which says why
crashkernel_test() {
	local before after
	before=$(tfs_state)
	start_mt --crashkernel --no-seed -o "$T/ck.txt" --json "$T/ck.json" ||
		{ bad "--crashkernel: memtrace did not start: $(cat "$T/err")"; return; }
	"$WL" 32 200
	cat "$MT" "$WL" > /dev/null
	sleep 0.3
	kill -TERM "$MTPID"; wait_exit "$MTPID"
	check "--crashkernel: the sample that set P adds up (need = in use - (file LRU - dirty - writeback - mapped kept), mapped kept = min(Mapped, Unevictable + Shmem)): $(json "$T/ck.json" "d['crashkernel']['facts']['top_sample']")" \
		python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["crashkernel"]
t = c["facts"]["top_sample"]
kept = min(t["mapped_kib"], t["unevictable_kib"] + t["shmem_kib"])
assert t["mapped_kept_kib"] == kept, t
clean = max(0, t["file_lru_kib"] - t["dirty_kib"] - t["writeback_kib"] - kept)
assert t["need_kib"] == max(0, t["in_use_kib"] - clean), t
assert 0 < t["need_kib"] <= c["facts"]["mem_total_kib"], t
' "$T/ck.json"
	check "--crashkernel: the text line says the JSON's sample ($(grep -m1 "^peak that cannot be reclaimed, its" "$T/ck.txt" | cut -c1-150))" \
		python3 -c '
import json, re, sys
t = json.load(open(sys.argv[1]))["crashkernel"]["facts"]["top_sample"]
line = [l for l in open(sys.argv[2]) if l.startswith("peak that cannot be reclaimed, its")][0]
m = re.search(r"in use ([0-9.]+) MiB, less clean page cache ([0-9.]+) \(file LRU ([0-9.]+) less dirty ([0-9.]+), writeback ([0-9.]+), mapped kept ([0-9.]+) of ([0-9.]+)\); besides: Shmem ([0-9.]+), Unevictable ([0-9.]+), SReclaimable ([0-9.]+)", line)
want = [t["in_use_kib"], t["in_use_kib"] - t["need_kib"], t["file_lru_kib"], t["dirty_kib"], t["writeback_kib"], t["mapped_kept_kib"], t["mapped_kib"], t["shmem_kib"], t["unevictable_kib"], t["sreclaimable_kib"]]
for got, kib in zip(m.groups(), want):
    assert abs(float(got) - kib / 1024) <= 0.051, (got, kib, line)
' "$T/ck.json" "$T/ck.txt"
	check "--crashkernel: the answer is its terms' sum, rounded up to a MiB, a lower bound that says why ($(json "$T/ck.json" "d['crashkernel']['why']"))" \
		python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["crashkernel"]
k = c["kib"]
run = k["peak_not_reclaimable"] + k["memtrace"]
assert k["sum"] == k["kernel"] + k["before_memtrace"] + (k["boot"] if c["boot_sets_it"] else run) + k["free_reserve"], k
assert c["at_least_mib"] == (k["sum"] + 1023) // 1024, c
assert c["lower_bound"] and c["why"], c
assert c["why"] in open(sys.argv[2]).read(), c
' "$T/ck.json" "$T/ck.txt"
	after=$(tfs_state)
	check "tracefs identical after the --crashkernel run" test "$before" = "$after"
}

not_in_dmesg() { ! dmesg | grep -q -a -F "$1"; }

signals_test() {
	local before after cur
	before=$(tfs_state)
	start_mt -f json -n 0 -o "$T/usr2.json" || { bad "signals: memtrace did not start"; return; }
	rm -f "$T/ready"
	"$WL" 32 20000 "$T/ready" & local w=$!	# holds until killed after the reports
	for i in $(seq 100); do [ -e "$T/ready" ] && break; sleep 0.05; done
	sleep 0.3
	kill -USR1 "$MTPID"
	wait_for 10 grep -q '"trigger":"SIGUSR1"' "$T/stdout"
	kill -USR2 "$MTPID"
	wait_for 10 grep -qs '"trigger":"SIGUSR2"' "$T/usr2.json"
	check "USR1 wrote a report to stdout" grep -q '"trigger":"SIGUSR1"' "$T/stdout"
	check "memtrace alive after USR1 and USR2" kill -0 "$MTPID"
	check "USR2 wrote the log" test -s "$T/usr2.json"
	check "USR2 report trigger" test "$(json "$T/usr2.json" "d['trigger']")" = SIGUSR2
	cur=$(json "$T/usr2.json" "[t['current_pages'] for t in d['tasks'] if t['pid']==$w][0]")
	check "USR2 report shows the 32 MiB held now ($cur pages)" test "$cur" -ge 8192 -a "$cur" -le 8800
	kill "$w"; wait "$w"
	kill -INT "$MTPID"; wait_exit "$MTPID"; rc=$?
	check "SIGINT exits 0" test "$rc" = 0
	check "final report trigger SIGINT" test "$(json "$T/usr2.json" "d['trigger']")" = SIGINT
	after=$(tfs_state)
	check "tracefs identical after SIGINT" test "$before" = "$after"
}

usr1_test() {
	local out="$T/usr1.out"
	: > "$T/err"
	"$MT" --instance "$INST" -n 0 -o "$T/x.log" > "$out" 2> "$T/err" &
	MTPID=$!; PIDS+=("$MTPID")
	for i in $(seq 100); do grep -q "tracing in" "$T/err" && break; sleep 0.05; done
	"$WL" 16 100
	kill -USR1 "$MTPID"
	wait_for 10 grep -q ' workload$' "$out"
	check "USR1 prints a report on stdout" grep -q 'trigger: SIGUSR1' "$out"
	check "USR1 report lists the workload" grep -q ' workload$' "$out"
	check "USR1 report shows lost events" grep -q '^lost events: 0' "$out"
	kill -TERM "$MTPID"; wait_exit "$MTPID"
}

# tracing_off [INSTANCE]: its tracing_on says 0 (default $INST); a function, for wait_for: a
# string for eval would be expanded inside wait_for, whose own locals (i, n) shadow the caller's
tracing_off() { [ "$(cat "$TFS/instances/${1:-$INST}/tracing_on" 2>/dev/null)" = 0 ]; }

second_term_test() {
	local before after rc
	before=$(tfs_state)
	MT=$MT_HOOKS MEMTRACE_TEST_TEARDOWN_DELAY_MS=3000 start_mt -o "$T/st.log" || { bad "second TERM: no start"; return; }
	kill -TERM "$MTPID"
	# the second TERM must come during teardown, not merge with the first unread one
	wait_for 10 tracing_off
	sleep 0.2
	kill -TERM "$MTPID"; wait_exit "$MTPID"; rc=$?
	check "second SIGTERM during teardown exits 143 at once" test "$rc" = 143
	after=$(tfs_state)
	check "tracefs identical after a second SIGTERM" test "$before" = "$after"
}

# the same with --daemon --pidfile: the exit at once removes the pidfile too
second_term_pidfile_test() {
	local before pid i="$INST-d"
	before=$(tfs_state)
	# (a teardown of 20 s: the second TERM comes well inside it on a loaded machine too)
	MEMTRACE_TEST_TEARDOWN_DELAY_MS=20000 "$MT_HOOKS" --instance "$i" --daemon \
		--pidfile "$T/st.pid" -o "$T/std.log" 2> "$T/std.err" < /dev/null
	pid=$(cat "$T/st.pid" 2>/dev/null)
	[ -n "$pid" ] || { bad "second TERM, --daemon: no start: $(tail -1 "$T/std.err")"; return; }
	kill -TERM "$pid"
	# (the wait's own check: it once read instance "0", wait_for's counter, and so waited
	# its 15 s out, longer than the teardown on a loaded machine)
	check "second SIGTERM during teardown, --daemon: the first one switched tracing off" \
		wait_for 15 tracing_off "$i"
	sleep 0.2
	check "second SIGTERM during teardown, --daemon: sent while it tears down" kill -TERM "$pid"
	check "second SIGTERM during teardown, --daemon: memtrace gone at once, not after its teardown" \
		wait_for 5 eval '! kill -0 "$pid" 2>/dev/null'
	check "second SIGTERM during teardown, --daemon: the pidfile removed" test ! -e "$T/st.pid"
	check "tracefs identical after a second SIGTERM, --daemon" test "$before" = "$(tfs_state)"
}

stale_test() {
	local before after
	before=$(tfs_state)
	start_mt -o "$T/s.log" || { bad "stale: no start"; return; }
	kill -KILL "$MTPID"; wait "$MTPID" 2>/dev/null
	check "SIGKILL leaves the instance behind" test -d "$TFS/instances/$INST"
	start_mt -o "$T/s.log" || { bad "stale: restart failed: $(cat "$T/err")"; return; }
	check "restart removes the stale instance" grep -q "removing stale instance" "$T/err"
	# a second memtrace on the same instance is refused while the first lives
	"$MT" --instance "$INST" -o "$T/s2.log" 2> "$T/err2"; rc=$?
	check "live instance in use: exit 1 with a clear error" \
		test "$rc" = 1 -a "$(grep -c 'in use by memtrace pid' "$T/err2")" = 1
	kill -TERM "$MTPID"; wait_exit "$MTPID"
	after=$(tfs_state)
	check "tracefs identical after stale recovery" test "$before" = "$after"
}

daemon_test() {
	local before after pid rc
	before=$(tfs_state)
	"$MT" --instance "$INST" --daemon --pidfile "$T/pid" -o "$T/d.log" 2> "$T/err"; rc=$?
	check "--daemon parent exits 0" test "$rc" = 0
	check "--daemon: tracing live when the parent returns" \
		test "$(cat "$TFS/instances/$INST/tracing_on" 2>/dev/null)" = 1 -a \
		     "$(cat "$TFS/instances/$INST/events/kmem/mm_page_alloc/enable" 2>/dev/null)" = 1
	pid=$(cat "$T/pid" 2>/dev/null)
	check "--pidfile holds a live memtrace" test -n "$pid" -a -d "/proc/$pid"
	[ -n "$pid" ] && kill -TERM "$pid"
	for i in $(seq 100); do [ -d "/proc/$pid" ] || break; sleep 0.1; done
	check "daemon wrote its final log" grep -q 'trigger: SIGTERM' "$T/d.log"
	check "pidfile removed" test ! -e "$T/pid"
	after=$(tfs_state)
	check "tracefs identical after the daemon" test "$before" = "$after"
}

# --daemon lets go of its caller's stdout and stderr once tracing is live (issue 23, 4):
# $(...), a pipe, ssh return; a regular file is kept; a report for what it let go goes to
# the log. Every reader here is bounded (timeout 10 cat): a daemon that held the pipe
# would make it end by the timeout (124), not hang the suite.
daemon_stdio_test() {
	local before after x rc t0 t1 pid
	before=$(tfs_state)
	# (a) $(...) of stdout and stderr, as `x=$(memtrace --daemon ...)` or ssh
	t0=$(date +%s%N)
	x=$( { "$MT" --instance "$INST" --daemon --pidfile "$T/sa.pid" -o "$T/sa.log"; echo "rc=$?"; } \
		2>&1 | timeout 10 cat; echo "cat=${PIPESTATUS[1]}")
	t1=$(date +%s%N)
	check "--daemon in \$(...): returns at once (exit 0, the reader not cut: $(grep -o 'rc=[0-9]*\|cat=[0-9]*' <<< "$x" | tr '\n' ' ')in $(( (t1 - t0) / 1000000 )) ms)" \
		eval '[[ $x == *rc=0*cat=0* ]] && [ $(( (t1 - t0) / 1000000000 )) -lt 8 ]'
	check "--daemon in \$(...): its banner (before the start) reached the caller" \
		grep -q "tracing in" <<< "$x"
	pid=$(cat "$T/sa.pid" 2>/dev/null)
	PIDS+=("$pid")
	check "--daemon in \$(...): still tracing, stdout and stderr now /dev/null" \
		eval '[ -n "$pid" ] && [ "$(cat "$TFS/instances/$INST/tracing_on" 2>/dev/null)" = 1 ] &&
			[ "$(readlink "/proc/$pid/fd/1")" = /dev/null ] &&
			[ "$(readlink "/proc/$pid/fd/2")" = /dev/null ]'
	[ -n "$pid" ] && kill -USR1 "$pid"
	check "--daemon: USR1 with stdout let go: the report in the log file" \
		wait_for 10 grep -qs 'trigger: SIGUSR1' "$T/sa.log"
	[ -n "$pid" ] && kill -TERM "$pid"
	wait_for 10 eval '[ ! -d "/proc/$pid" ]'
	check "--daemon: TERM: the final report in the log, the pidfile removed" \
		eval 'grep -q "trigger: SIGTERM" "$T/sa.log" && [ ! -e "$T/sa.pid" ]'
	# (b) stdout a pipe (`memtrace --daemon | cat`), stderr a regular file: that is kept
	"$MT" --instance "$INST" --daemon --pidfile "$T/sb.pid" -o "$T/sb.log" 2> "$T/sb.err" |
		timeout 10 cat > "$T/sb.cat"
	rc="${PIPESTATUS[*]}"
	pid=$(cat "$T/sb.pid" 2>/dev/null)
	PIDS+=("$pid")
	check "--daemon | cat: returns at once (exit 0, cat not cut: $rc)" test "$rc" = "0 0"
	check "--daemon | cat: stdout now /dev/null, stderr (a regular file) kept" \
		eval '[ -n "$pid" ] && [ "$(readlink "/proc/$pid/fd/1")" = /dev/null ] &&
			[ "$(readlink "/proc/$pid/fd/2")" = "$T/sb.err" ]'
	[ -n "$pid" ] && kill -TERM "$pid"
	wait_for 10 eval '[ ! -d "/proc/$pid" ]'
	check "--daemon | cat: TERM: the final report in the log" grep -q "trigger: SIGTERM" "$T/sb.log"
	# (c) stdout a regular file (`> FILE`): kept, USR1's report goes there as before;
	# stderr a pipe, with --kmsg: the kernel log from now on
	"$MT" --instance "$INST" --daemon --kmsg --pidfile "$T/sc.pid" -o "$T/sc.log" > "$T/sc.out" \
		2> >(timeout 10 cat > "$T/sc.err"); rc=$?
	pid=$(cat "$T/sc.pid" 2>/dev/null)
	PIDS+=("$pid")
	check "--daemon > FILE: started (exit $rc)" test "$rc" = 0 -a -n "$pid"
	check "--daemon --kmsg 2> PIPE: stderr now /dev/kmsg" \
		test -n "$pid" -a "$(readlink "/proc/$pid/fd/2")" = /dev/kmsg
	[ -n "$pid" ] && kill -USR1 "$pid"
	check "--daemon > FILE: USR1's report in FILE, not in the log" \
		eval 'wait_for 10 grep -qs "trigger: SIGUSR1" "$T/sc.out" && ! grep -qs SIGUSR1 "$T/sc.log"'
	[ -n "$pid" ] && kill -TERM "$pid"
	wait_for 10 eval '[ ! -d "/proc/$pid" ]'
	# (d) stderr the journal (systemd's JOURNAL_STREAM names its socket; a pipe here): kept
	sh -c 'JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) exec "$0" "$@"' "$MT" \
		--instance "$INST" --daemon --pidfile "$T/sd.pid" -o "$T/sd.log" > "$T/sd.out" \
		2> >(timeout 10 cat > "$T/sd.err"); rc=$?
	pid=$(cat "$T/sd.pid" 2>/dev/null)
	PIDS+=("$pid")
	check "--daemon, stderr the journal (JOURNAL_STREAM): kept (exit $rc, fd 2 $(readlink "/proc/$pid/fd/2"))" \
		eval '[ "$rc" = 0 ] && [ -n "$pid" ] && [[ $(readlink "/proc/$pid/fd/2") == pipe:* ]]'
	[ -n "$pid" ] && kill -TERM "$pid"
	wait_for 10 eval '[ ! -d "/proc/$pid" ]'
	after=$(tfs_state)
	check "tracefs identical after the detached daemons" test "$before" = "$after"
}

# make demo (issue 23, 12): the log and the instance from make variables, by default a new
# file and an instance of its own: nobody else's /tmp/mem_debug_log is overwritten
demo_test() {
	local before after rc m0 m1 f
	before=$(tfs_state)
	timeout 60 make -s --no-print-directory demo DEMO_LOG="$T/demo.log" DEMO_INSTANCE="$INST-demo" \
		> "$T/demo.out" 2> "$T/demo.err" < /dev/null; rc=$?
	check "make demo DEMO_LOG= DEMO_INSTANCE=: exit 0 ($rc), the USR1 report on stdout, the final one in DEMO_LOG" \
		eval '[ "$rc" = 0 ] && grep -q "report (trigger: SIGUSR1" "$T/demo.out" &&
			grep -q "trigger: SIGTERM" "$T/demo.log"'
	check "make demo: says where the report went ($(tail -1 "$T/demo.err"))" \
		grep -qF "final report in $T/demo.log" "$T/demo.err"
	check "make demo: traced in DEMO_INSTANCE (the banner names it)" grep -q "instances/$INST-demo" "$T/demo.err"
	m0=$(stat -c '%i %Y.%y' /tmp/mem_debug_log 2>/dev/null)
	timeout 60 ./tests/demo.sh > "$T/demo2.out" 2> "$T/demo2.err" < /dev/null; rc=$?
	m1=$(stat -c '%i %Y.%y' /tmp/mem_debug_log 2>/dev/null)
	f=$(sed -n 's/^== final report in \([^ ]*\) .*/\1/p' "$T/demo2.err")
	check "demo without DEMO_LOG: a new file ($f), /tmp/mem_debug_log untouched" \
		eval '[ "$rc" = 0 ] && [ -n "$f" ] && [ "$f" != /tmp/mem_debug_log ] &&
			grep -q "trigger: SIGTERM" "$f" && [ "$m0" = "$m1" ]'
	[ -n "$f" ] && [ "$f" != /tmp/mem_debug_log ] && rm -f "$f"
	after=$(tfs_state)
	check "tracefs identical after make demo" test "$before" = "$after"
}

# a setup that never ends must not hold the caller (a boot) for more than the timeout
daemon_timeout_test() {
	local before after rc t0 t1 i
	before=$(tfs_state)
	t0=$(date +%s%N)
	MEMTRACE_TEST_SETUP_DELAY_MS=3000 MEMTRACE_TEST_READY_TIMEOUT_MS=500 \
		"$MT_HOOKS" --instance "$INST" --daemon --pidfile "$T/tpid" -o "$T/t.log" 2> "$T/err"; rc=$?
	t1=$(date +%s%N)
	check "--daemon: a stuck setup makes the parent give up with exit 1" test "$rc" = 1
	check "--daemon: ... after the timeout, not after the setup ($(( (t1 - t0) / 1000000 )) ms)" \
		test $(( (t1 - t0) / 1000000 )) -lt 2500
	check "--daemon: ... and says so" grep -q "not tracing after 0.5 s; stopping pid" "$T/err"
	# the child got TERM while setting up: it stops before tracing, cleans up, no log
	for i in $(seq 60); do
		grep -q "stopped by a signal during setup" "$T/err" && break
		sleep 0.1
	done
	# the message comes before the cleanup, which waits for the kernel
	wait_for 10 no_proc -f -- "--instance $INST --daemon --pidfile $T/tpid"
	check "--daemon: the child stops at the end of its setup" \
		grep -q "stopped by a signal during setup" "$T/err"
	check "--daemon: no memtrace left running" test -z "$(pgrep -f -- "--instance $INST --daemon --pidfile $T/tpid")"
	check "--daemon: no pidfile, no log" test ! -e "$T/tpid" -a ! -e "$T/t.log"
	after=$(tfs_state)
	check "tracefs identical after a setup cut short" test "$before" = "$after"
}

# TERM to the parent while it waits for the daemon's setup (Ctrl-C, a service stopped): it
# stops the daemon, waits for its cleanup and says so; it did not read stop signals at all
daemon_parent_term_test() {
	local before rc ppid child
	before=$(tfs_state)
	MEMTRACE_TEST_SETUP_DELAY_MS=2000 "$MT_HOOKS" --instance "$INST" --daemon \
		--pidfile "$T/ppid" -o "$T/p.log" 2> "$T/perr" & ppid=$!
	wait_for 5 eval '[ -n "$(pgrep -P "$ppid")" ]'
	child=$(pgrep -P "$ppid")
	kill -TERM "$ppid"
	wait "$ppid"; rc=$?
	check "--daemon, TERM to the parent during the setup: exit 1 (got $rc)" test "$rc" = 1
	check "--daemon, TERM to the parent: says it stops the daemon" \
		grep -q "SIGTERM before tracing began: stopping pid ${child:-none}" "$T/perr"
	check "--daemon, TERM to the parent: the daemon gone when the parent returns" \
		test -n "$child" -a ! -d "/proc/${child:-0}"
	check "--daemon, TERM to the parent: no pidfile, no log" test ! -e "$T/ppid" -a ! -e "$T/p.log"
	check "tracefs identical after the parent's TERM" test "$before" = "$(tfs_state)"
}

# a fatal error right after each setup step (test hook): tracefs as found, every time
fault_test() {
	local before after step rc
	before=$(tfs_state)
	check "the shipped binary has no test hooks, the test build has them" \
		eval '! grep -q MEMTRACE_TEST "$MT" && grep -q MEMTRACE_TEST_FAIL_AT "$MT_HOOKS"'
	for step in find instance configure events stats cpus record tracing seed pidfile; do
		MEMTRACE_TEST_FAIL_AT=$step "$MT_HOOKS" --instance "$INST" --record "$T/rec-$step" \
			--daemon --pidfile "$T/fpid" -o "$T/f.log" 2> "$T/ferr"; rc=$?
		after=$(tfs_state)
		check "setup failing after '$step': exit 1, said so, tracefs as found, no pidfile" \
			eval '[ "$rc" = 1 ] && grep -q "setup fails after step $step" "$T/ferr" &&
				[ "$before" = "$after" ] && [ ! -e "$T/fpid" ]'
	done
}

# ns_no_tracefs WHAT SCRIPT ARGS...: the sh SCRIPT (its ARGS $1...) in a private mount
# namespace without tracefs, so the machine's own mounts never change; its output into the
# caller's $out. In SCRIPT, "up FILE" waits for a memtrace to say it traces in FILE (up to
# 2 min: make check beside make fuzz and valgrind starts it slowly). Skipped (status 1)
# where there is no such namespace.
ns_no_tracefs() {
	local what=$1 script=$2
	shift 2
	if ! command -v unshare > /dev/null || ! unshare -m true 2> /dev/null; then
		skip "$what: no unshare -m here"; return 1
	fi
	out=$(unshare -m --propagation private sh -c '
		umount /sys/kernel/debug/tracing 2> /dev/null
		umount /sys/kernel/tracing 2> /dev/null
		# with debugfs mounted, a look at debug/tracing would automount tracefs there
		umount /sys/kernel/debug 2> /dev/null
		if grep -q " tracefs " /proc/mounts; then echo "still mounted"; exit 0; fi
		up() { i=0; while [ $i -lt 2400 ] && ! grep -qs "tracing in" "$1"; do sleep 0.05; i=$((i+1)); done; }
		'"$script" sh "$@")
	if grep -q "still mounted" <<< "$out"; then
		skip "tracefs cannot be unmounted in a mount namespace here"; return 1
	fi
}

# tracefs not mounted, and mounted somewhere else
mount_test() {
	local out
	ns_no_tracefs "tracefs mount tests" '
		"$1" --instance "$2" -f json -n 0 -o "$3/nm.json" 2> "$3/nm.err" & p=$!; up "$3/nm.err"
		"$4" 16 0; sleep 0.2; kill -TERM $p; wait $p; echo "rc=$?"
		echo "tracefs mounts after: $(grep -c " tracefs " /proc/mounts)"
		mkdir -p "$3/elsewhere" && mount -t tracefs nodev "$3/elsewhere"
		"$1" --instance "$2" -f json -n 0 "$3/elsewhere" "$3/ew.json" 2> "$3/ew.err" & p=$!
		up "$3/ew.err"
		"$4" 16 0; sleep 0.2; kill -TERM $p; wait $p; echo "rc2=$?"
		echo "instances left elsewhere: $(ls "$3/elsewhere/instances" | grep -c "^$2")"
		umount "$3/elsewhere"' "$MT" "$INST" "$T" "$WL" || return 0
	check "tracefs not mounted: memtrace mounts it, traces, exits 0 ($(grep '^rc=' <<< "$out"))" \
		grep -q '^rc=0$' <<< "$out"
	check "tracefs not mounted: the workload is in the report" \
		test "$(json "$T/nm.json" 'max(t["peak_pages"] for t in d["tasks"] if t["comm"]=="workload") >= 4096')" = True
	check "tracefs not mounted: memtrace unmounts what it mounted" \
		grep -q '^tracefs mounts after: 0$' <<< "$out"
	check "tracefs mounted elsewhere (TRACEFS_DIR): traces there, exits 0" \
		eval 'grep -q "^rc2=0$" <<< "$out" && [ "$(json "$T/ew.json" "d[\"tracefs\"][\"path\"]")" = "$T/elsewhere" ]'
	check "tracefs mounted elsewhere: no instance left there" \
		grep -q '^instances left elsewhere: 0$' <<< "$out"
}

# Two memtraces in a namespace without tracefs: the first mounts it; when it exits, the
# second still traces in it (the mount was detached from under it: its instance was left
# tracing, said by no one), then removes its instance; the mount is left, in use then
mount_shared_test() {
	local out
	# (the check: the instance of the second is reachable, tracing, once up)
	ns_no_tracefs "tracefs mount shared by two memtraces" '
		on() { i=0; while [ $i -lt 200 ] && [ "$(cat "$1/tracing_on" 2> /dev/null)" != 1 ]; do sleep 0.05; i=$((i+1)); done; }
		"$1" --instance "$2-a" -f json -n 0 -o "$3/sa.json" 2> "$3/sa.err" & a=$!; up "$3/sa.err"
		"$1" --instance "$2-b" -f json -n 0 -o "$3/sb.json" 2> "$3/sb.err" & b=$!; up "$3/sb.err"
		kill -TERM $a; wait $a; echo "rca=$?"
		on "/sys/kernel/tracing/instances/$2-b"
		echo "b tracing: $(cat "/sys/kernel/tracing/instances/$2-b/tracing_on" 2>&1)"
		echo "b said: $(tr "\n" " " < "$3/sb.err" | cut -c1-300)"
		"$4" 16 0; sleep 0.2; kill -TERM $b; wait $b; echo "rcb=$?"
		# detached by someone else (umount -l): its instance cannot be reached, said
		"$1" --instance "$2-c" -f json -n 0 -o "$3/sc.json" 2> "$3/sc.err" & c=$!; up "$3/sc.err"
		grep -qs "tracing in" "$3/sc.err" && echo "c traced"
		umount -l /sys/kernel/tracing; kill -TERM $c; wait $c; echo "rcc=$?"' \
		"$MT" "$INST" "$T" "$WL" || return 0
	check "tracefs mounted by a memtrace that exits first: left mounted for the other, said" \
		eval 'grep -q "^rca=0$" <<< "$out" && grep -q "left mounted: another process has files open in it" "$T/sa.err"'
	check "... the other's instance still tracing ($(grep -m1 '^b tracing: ' <<< "$out"); $(grep -m1 '^b said: ' <<< "$out"))" \
		grep -q '^b tracing: 1$' <<< "$out"
	check "... the other traces on: exits 0, the workload in its report" \
		eval 'grep -q "^rcb=0$" <<< "$out" && [ "$(json "$T/sb.json" "max(t[\"peak_pages\"] for t in d[\"tasks\"] if t[\"comm\"]==\"workload\") >= 4096")" = True ]'
	check "... neither instance left" test ! -d "$TFS/instances/$INST-a" -a ! -d "$TFS/instances/$INST-b"
	check "tracefs detached under a memtrace (umount -l): its instance not removed, said ($(grep -c '^c traced$' <<< "$out") started; $(grep '^rcc=' <<< "$out"))" \
		grep -q "/sys/kernel/tracing is no longer tracefs (unmounted under memtrace): instance $INST-c was not removed" "$T/sc.err"
	# (what the message asks for: the test's own instance, from the mount it still has)
	if [ -d "$TFS/instances/$INST-c" ]; then
		echo 0 > "$TFS/instances/$INST-c/tracing_on"
		echo 0 > "$TFS/instances/$INST-c/events/enable"
		rmdir "$TFS/instances/$INST-c"
	fi
}

lost_test() {
	local lost
	start_mt -b 16 -f json -o "$T/lost.json" || { bad "lost: no start"; return; }
	kill -STOP "$MTPID"
	"$WL" 64 0
	kill -CONT "$MTPID"; sleep 0.3
	kill -TERM "$MTPID"; wait_exit "$MTPID"
	lost=$(json "$T/lost.json" "d['lost_events']")
	check "overrun of a 16 KiB buffer is reported ($lost lost events)" test "$lost" -gt 0
}

record_replay_test() {
	local cmp
	rm -rf "$T/rec"
	start_mt --record "$T/rec" -f json -n 0 -o "$T/live.json" || { bad "record: no start: $(cat "$T/err")"; return; }
	"$WL" 24 100; "$WL" 8 100
	sleep 0.3
	kill -TERM "$MTPID"; wait_exit "$MTPID"
	check "recording has raw buffers and formats" test -s "$T/rec/events/header_page" -a \
		-s "$T/rec/events/kmem/mm_page_alloc/format" -a -e "$T/rec/per_cpu/cpu0/trace_pipe_raw"
	"$MT" --replay "$T/rec" -f json -n 0 > "$T/replay.json" 2> "$T/rerr"; rc=$?
	check "replay exits 0" test "$rc" = 0
	cmp=$(python3 - "$T/live.json" "$T/replay.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
keys = ["events", "lost_events", "untracked_frees", "failed_allocs", "overflows", "seed",
        "tasks", "modules", "first_event_s", "last_event_s"]
late = a["events"].pop("out_of_order")    # live only: events merged out of time order
b["events"].pop("out_of_order")
diff = [k for k in keys if a[k] != b[k]]
print("same" if not diff else "differ: %s (live: %d events out of time order)"
      % (",".join(diff), late))
PY
)
	check "replay gives the same report as live ($cmp)" test "$cmp" = same
	check "replay report trigger" test "$(json "$T/replay.json" "d['trigger']")" = replay
	check "the recording keeps the kernel, host and start time ($(json "$T/replay.json" "d['kernel'], d['host'], d['started_at']"))" \
		test "$(json "$T/replay.json" "d['kernel'], d['host'], d['started_at']")" = \
		"$(json "$T/live.json" "d['kernel'], d['host'], d['started_at']")" -a \
		"$(json "$T/live.json" "d['kernel'] == '$(uname -r)' and d['started_at'] is not None")" = True
	"$MT" --replay "$T/rec" -n 0 > "$T/replay.txt" 2> /dev/null
	check "the text report says them ($(grep -m1 '^kernel: ' "$T/replay.txt"))" \
		grep -q -x "kernel: $(uname -r), host $(uname -n), tracing began $(json "$T/live.json" "d['started_at'].replace('T', ' ').replace('Z', ' UTC')")" "$T/replay.txt"
	check "the recording keeps the memory at the start ($(json "$T/replay.json" "d['memory_at_start']"))" \
		test "$(json "$T/replay.json" "d['memory_at_start']")" = "$(json "$T/live.json" "d['memory_at_start']")" -a \
		"$(json "$T/live.json" "d['memory_at_start']['total_kib'] > 0")" = True
}

oom_test() {
	local cg=/sys/fs/cgroup/memory/memtrace-it$$
	if ! mkdir "$cg" 2>/dev/null; then skip "oom: no cgroup v1 memory controller here"; return; fi
	echo 32M > "$cg/memory.limit_in_bytes"
	start_mt -f json -o "$T/oom.json" || { bad "oom: no start"; rmdir "$cg"; return; }
	( sh -c "echo \$\$ > $cg/tasks; exec '$WL' 256 0" ) 2>/dev/null
	sleep 0.5
	check "memtrace survives an OOM kill" kill -0 "$MTPID"
	check "oom report written at once" test "$(json "$T/oom.json" "d['trigger']")" = oom
	check "oom report names the victim" test "$(json "$T/oom.json" "d['oom']['victim_comm']")" = workload
	kill -TERM "$MTPID"; wait_exit "$MTPID"
	rmdir "$cg"
}

nonroot_test() {
	local rc NR
	command -v setpriv > /dev/null || { skip "no setpriv to drop privileges"; return; }
	# a log directory the user may write ($T is root's, 0700): the outputs are checked
	# before tracing (exit 1 if they cannot be written), so only the privilege is missing
	NR=$(mktemp -d /tmp/memtrace-nr.XXXXXX) && chmod 0777 "$NR"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$MT" --instance "$INST" \
		-o "$NR/nr.log" 2> "$T/err"; rc=$?
	check "without privilege: exit 4 ($(head -c 120 "$T/err"))" test "$rc" = 4
	check "without privilege: no log file left" test ! -e "$NR/nr.log"
	rm -rf "$NR"
}

# ---------------------------------------------------------------- page size
# A recording says its kernel's page size (memtrace.meta page_size); arm64 and ppc64le
# kernels may have 16 or 64 KiB pages. The same recording replayed at 4096 and at 65536:
# every page count the same, every KiB figure made of pages exactly 16 times the 4 KiB
# one (the expected report is computed here from the 4 KiB one), nothing else changed.
cat > "$T/psize.py" <<'PY'
import json, re, sys

def text(a_path, b_path, k):
    """b's tokens must be a's with every page KiB figure times k; returns (figures, nonzero)"""
    a, b = open(a_path).read().split("\n"), open(b_path).read().split("\n")
    if len(a) != len(b):
        sys.exit("%d lines at 4 KiB, %d at %d" % (len(a), len(b), 4096 * k))
    cols, n, nz = None, 0, 0
    for i, (la, lb) in enumerate(zip(a, b)):
        ta = la.split()
        if not ta or ta[0].startswith("("):
            cols = None          # a table ends at an empty line or its "(N modules ...)" note
        elif "PEAK_PAGES" in ta:
            cols = ta            # a table's header: its columns
        elif cols:
            for j, c in enumerate(cols[:len(ta)]):
                if c.endswith("_KIB") and c != "STATIC_KIB":   # sysfs bytes, not pages
                    ta[j] = str(int(ta[j]) * k); n += 1; nz += ta[j] != "0"
        # inline: "N pages (M KiB)"
        def inline(m):
            nonlocal n, nz
            n += 1; nz += m.group(2) != "0"
            return "%s pages (%d KiB)" % (m.group(1), int(m.group(2)) * k)
        want = re.sub(r"(\d+) pages \((\d+) KiB\)", inline, " ".join(ta))
        want = want.replace("(page = 4096 bytes)", "(page = %d bytes)" % (4096 * k))
        if want != " ".join(lb.split()):
            sys.exit("line %d: want %r, got %r" % (i + 1, want, lb))
    return n, nz

NOT_PAGES = {"static_kib", "rss_kib", "hwm_kib", "pfn_map_kib", "max_rss_kib"}

def walk(x, y, k, path, cnt):
    if isinstance(x, dict):
        if not isinstance(y, dict) or list(x) != list(y):
            sys.exit("%s: keys differ" % path)
        for key in x:
            p = path + "." + key
            if key == "page_size":
                if (x[key], y[key]) != (4096, 4096 * k):
                    sys.exit("%s: %r, %r" % (p, x[key], y[key]))
            elif (key == "kib" or key.endswith("_kib")) and key not in NOT_PAGES:
                if y[key] != x[key] * k:
                    sys.exit("%s: %r at %d, want %d * %r" % (p, y[key], 4096 * k, k, x[key]))
                cnt[0] += 1; cnt[1] += x[key] != 0
            else:
                walk(x[key], y[key], k, p, cnt)
    elif isinstance(x, list):
        if not isinstance(y, list) or len(x) != len(y):
            sys.exit("%s: lists differ" % path)
        for i, (u, v) in enumerate(zip(x, y)):
            walk(u, v, k, "%s[%d]" % (path, i), cnt)
    elif x != y:
        sys.exit("%s: %r at 4 KiB, %r at %d" % (path, x, y, 4096 * k))

kind, a, b, k = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
if kind == "text":
    n, nz = text(a, b, k)
else:
    cnt = [0, 0]
    walk(json.load(open(a)), json.load(open(b)), k, "", cnt)
    n, nz = cnt
print("%d %d" % (n, nz))
PY

page_size_test() {
	local fx rec name v out rc a b ps
	for fx in debian-6.1-zram debian-6.1-boot; do
		rec=$T/psize-$fx
		rm -rf "$rec"; cp -a "tests/fixtures/$fx" "$rec"
		for ps in 4096 65536; do
			# the one line that differs: the recording's page size
			sed -i '/^page_size /d' "$rec/memtrace.meta"
			echo "page_size $ps" >> "$rec/memtrace.meta"
			for v in "text" "text --by process" "json" "json --by process"; do
				name=$(echo "$v" | tr -d ' -')
				# shellcheck disable=SC2086
				"$MT" --replay "$rec" -n 0 -f $v > "$T/psize.$fx.$name.$ps" \
					2> "$T/psize.$fx.$name.$ps.err"; rc=$?
				[ "$rc" = 0 ] || bad "$fx at $ps-byte pages, -f $v: exit $rc: $(head -c 200 "$T/psize.$fx.$name.$ps.err")"
			done
		done
		# the same events as a 64 KiB-page kernel writes them: 65536-byte sub-buffers (each
		# 4096-byte one's header and data, the rest zero), header_page saying so, and no
		# page_size in the meta: the page size is then the sub-buffer's
		rm -rf "$rec.64k"; cp -a "tests/fixtures/$fx" "$rec.64k"
		python3 - "$rec.64k" <<-'PY'
		import glob, os, re, sys
		d = sys.argv[1]
		hp = os.path.join(d, "events/header_page")
		t = open(hp).read()
		t = re.sub(r"(field: char data;\toffset:16;\tsize:)4080;", r"\g<1>65520;", t)
		assert "size:65520;" in t, "header_page not 4096-byte sub-buffers"
		open(hp, "w").write(t)
		for f in glob.glob(os.path.join(d, "per_cpu/cpu*/trace_pipe_raw")):
		    b = open(f, "rb").read()
		    out = b"".join(b[i:i + 4096] + bytes(65536 - 4096) for i in range(0, len(b), 4096))
		    open(f, "wb").write(out)
		m = os.path.join(d, "memtrace.meta")
		keep = [l for l in open(m) if not l.startswith("page_size ")]
		open(m, "w").write("".join(keep))
		PY
		"$MT" --replay "$rec.64k" -n 0 -f json > "$T/psize.$fx.64k" 2> "$T/psize.$fx.64k.err"
		rc=$?
		# where they differ by what was made: the directory and the sub-buffer size
		for v in 4096 64k; do
			f=$T/psize.$fx.json.4096; [ "$v" = 64k ] && f=$T/psize.$fx.64k
			python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); d.pop("tracefs"); sb = d["ring_buffer"].pop("subbuf_bytes")
print(sb, file=open(sys.argv[2] + ".sb", "w")); json.dump(d, open(sys.argv[2], "w"))' "$f" "$T/psize.$fx.norm.$v"
		done
		out=$(python3 "$T/psize.py" json "$T/psize.$fx.norm.4096" "$T/psize.$fx.norm.64k" 16 2>&1)
		check "$fx: 64 KiB sub-buffers, no page_size in memtrace.meta: 65536-byte pages from header_page, the same pages, 16x the KiB (${out:-no output}), said on stderr" \
			eval '[ "$rc" = 0 ] && [ "${out#* }" -ge 5 ] && [ "$(cat "$T/psize.$fx.norm.64k.sb")" = 65536 ] && grep -q "gives no page size: 65536 bytes" "$T/psize.$fx.64k.err"'
		check "$fx: replay says nothing on stderr at 4096- or 65536-byte pages" \
			eval '! test -s "$T/psize.$fx.text.4096.err" -o -s "$T/psize.$fx.text.65536.err"'
		for v in "text" "text --by process" "json" "json --by process"; do
			name=$(echo "$v" | tr -d ' -')
			a=$T/psize.$fx.$name.4096 b=$T/psize.$fx.$name.65536
			out=$(python3 "$T/psize.py" "${v%% *}" "$a" "$b" 16 2>&1); rc=$?
			# n figures checked, nz of them not 0: at least 5 non-zero, or the check saw nothing
			check "$fx -f $v: 64 KiB pages: page counts equal, every KiB figure 16 times the 4 KiB one (${out:-no output}: figures, non-zero)" \
				eval '[ "$rc" = 0 ] && [ "${out#* }" -ge 5 ]'
		done
	done
}

# ---------------------------------------------------------------- fake tracefs
fake_test() {
	local F=$T/fake rc
	mkdir -p "$F/events"
	printf 'local [mono]\n' > /dev/null
	echo "[local] global mono" > "$F/trace_clock"
	echo 1408 > "$F/buffer_size_kb"; echo 50 > "$F/buffer_percent"; echo 1 > "$F/tracing_on"
	: > "$F/trace_pipe"
	cp tests/fixtures/linux-6.18/events/header_page "$F/events/"
	local before; before=$(cd "$F" && find . -type f | sort | xargs md5sum)
	"$MT" "$F" "$T/fake.log" 2> "$T/err"; rc=$?
	check "fake tracefs without kmem events: exit 5" test "$rc" = 5
	check "fake tracefs: fallback to top level is announced" grep -q "instances not supported" "$T/err"
	check "fake tracefs left as found" test "$before" = "$(cd "$F" && find . -type f | sort | xargs md5sum)"
	check "missing event is named" grep -q "kmem:mm_page_alloc" "$T/err"
}

# Without CAP_IPC_LOCK and with a small RLIMIT_MEMLOCK (systemd's capability bounding
# set and its 8 MiB default did this): memtrace must still start, trace and report, and say memory is not locked.
nolock_test() {
	local before after wpid peak
	if ! command -v setpriv > /dev/null || ! command -v prlimit > /dev/null; then
		skip "no CAP_IPC_LOCK: setpriv/prlimit (util-linux) not installed"; return
	fi
	before=$(tfs_state)
	MT_WRAP="prlimit --memlock=8388608 setpriv --bounding-set -ipc_lock --inh-caps -ipc_lock"
	start_mt -n 0 -f json -o "$T/nolock.json"; local rc=$?
	MT_WRAP=
	check "no CAP_IPC_LOCK, RLIMIT_MEMLOCK 8 MiB (systemd's): memtrace starts" test "$rc" = 0 || return
	"$WL" 16 100 & wpid=$!; wait "$wpid"
	sleep 0.3
	kill -USR2 "$MTPID"
	sleep 0.3
	kill -TERM "$MTPID"; wait_exit "$MTPID" > /dev/null
	check "no CAP_IPC_LOCK: it says its memory is not locked" \
		grep -q "memtrace: memory not locked" "$T/err"
	peak=$(json "$T/nolock.json" "[t['peak_pages'] for t in d['tasks'] if t['pid']==$wpid][0]")
	check "no CAP_IPC_LOCK: final report has the 16 MiB workload (${peak:-no} pages >= 4096)" \
		test "${peak:-0}" -ge 4096
	after=$(tfs_state)
	check "tracefs identical after the run without CAP_IPC_LOCK" test "$before" = "$after"
}

# --switch-root (issue 38): a kdump-tools capture dumps after initramfs-tools switched to
# the root. Played in a mount namespace of its own: a tmpfs as the real root mounted at
# DIR; memtrace --daemon with --switch-root DIR, its log and pidfile in a /run of its own;
# HUP (and USR2, as init-bottom sends them), then the moves /init makes (/run, /sys, and
# /proc last) into DIR: memtrace must make DIR its root, report there, clean up tracefs
# from there. First a HUP with nothing mounted at DIR: refused, tracing goes on.
switch_root_test() {
	local before after S=$T/swr
	if ! command -v unshare > /dev/null; then
		skip_live "--switch-root: no unshare (util-linux)"
		return
	fi
	before=$(tfs_state)
	mkdir -p "$S"
	cat > "$S/play.sh" <<'EOS'
set -u
MT=$1 S=$2 INST=$3 WL=$4
R=$S/root RUN=/run/memtrace-swr-$$
say() { echo "$*" >> "$S/facts"; }
until_grep() {	# until_grep SECONDS PATTERN FILE
	local i
	for ((i = 0; i < $1 * 20; i++)); do grep -q -- "$2" "$3" 2>/dev/null && return 0; sleep 0.05; done
	return 1
}
gone() { local i; for ((i = 0; i < 200; i++)); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.05; done; return 1; }
mkdir -p "$R" "$S/plain" "$RUN"
mount -t tmpfs swr-root "$R" && mkdir -p "$R/proc" "$R/sys" "$R$RUN"
mount -t tmpfs swr-run "$RUN"
# 1. nothing mounted at DIR
"$MT" --instance "$INST-plain" --switch-root "$S/plain" -o "$RUN/plain.log" 2> "$S/plain.err" &
a=$!
until_grep 10 "tracing in" "$S/plain.err"
kill -HUP "$a"
until_grep 10 "nothing is mounted there" "$S/plain.err" && say "plain refused"
sleep 0.2
kill -0 "$a" 2>/dev/null && say "plain still tracing"
kill -TERM "$a"
gone "$a" && grep -q "trigger: SIGTERM" "$RUN/plain.log" && say "plain final report"
# 2. the switch
"$MT" --daemon --pidfile "$RUN/pid" --instance "$INST" --switch-root "$R" -o "$RUN/log" 2> "$S/err"
pid=$(cat "$RUN/pid")
# a dump writer before the switch is not the capture's last step (dracut's own, or none)
cp "$WL" "$S/makedumpfile"
"$S/makedumpfile" 1 10
kill -HUP "$pid"
kill -USR2 "$pid"
until_grep 10 "(trigger: SIGUSR2," "$RUN/log" && say "usr2 report before the switch"
until_grep 10 "following the switch to the root mounted there" "$S/err" && say "holding the root"
say "root before $(readlink "/proc/$pid/root")"
mount --move "$RUN" "$R$RUN"
mount --rbind /sys "$R/sys"
sleep 0.5
say "root between $(readlink "/proc/$pid/root")"
mount -t proc proc "$R/proc"
until_grep 10 "now in that root" "$S/err" && say "followed"
say "root after $(readlink "/proc/$pid/root")"
"$WL" 16 100
kill -USR2 "$pid"
until_grep 10 "(trigger: SIGUSR2," "$R$RUN/log" && say "usr2 report in the root"
grep -q "workload" "$R$RUN/log" && say "workload traced after the switch"
grep -q "makedumpfile exited" "$R$RUN/log" || say "no dump writer report before the switch"
# kdump-tools' reboot -f after the dump signals nobody: its end is reported at once
"$S/makedumpfile" 8 100
until_grep 10 "(trigger: makedumpfile exited," "$R$RUN/log" && say "dump writer report"
grep -q " makedumpfile$" "$R$RUN/log" && say "dump writer in it"
kill -TERM "$pid"
gone "$pid" && say "exited"
grep -q "(trigger: SIGTERM," "$R$RUN/log" && say "final report in the root"
[ ! -e "$R$RUN/pid" ] && say "pidfile removed"
EOS
	: > "$S/facts"
	unshare -m --propagation private bash "$S/play.sh" "$MT" "$S" "$INST" "$WL" > "$S/play.out" 2>&1
	has() { grep -qx "$1" "$S/facts"; }
	check "--switch-root, HUP with nothing mounted at DIR: refused, said ($(grep -m1 'switch-root' "$S/plain.err"))" has "plain refused"
	check "--switch-root, HUP with nothing mounted at DIR: tracing goes on, final report at TERM" \
		eval 'has "plain still tracing" && has "plain final report"'
	check "--switch-root: HUP held the root (said), USR2's report still in the old root's /run" \
		eval 'has "holding the root" && has "usr2 report before the switch"'
	check "--switch-root: memtrace stays in the old root until /proc is in the new one" \
		eval 'has "root before /" && has "root between /"'
	check "--switch-root: then DIR is its root ($(grep '^root after' "$S/facts"))" \
		eval 'has "followed" && has "root after $S/root"'
	check "--switch-root: after the switch, reports go to the log in the new root, with what ran there" \
		eval 'has "usr2 report in the root" && has "workload traced after the switch"'
	check "--switch-root: a makedumpfile that ends after the switch writes the report so far at once, with it (kdump-tools' reboot -f signals nobody); one before the switch does not" \
		eval 'has "dump writer report" && has "dump writer in it" && has "no dump writer report before the switch"'
	check "--switch-root: TERM: final report in the new root, pidfile removed, exit" \
		eval 'has "exited" && has "final report in the root" && has "pidfile removed"'
	after=$(tfs_state)
	check "--switch-root: tracefs identical after (the instance removed from the new root's /sys)" \
		test "$before" = "$after"
	[ "$fail" = 0 ] || sed 's/^/      /' "$S/facts" "$S/err" "$S/play.out"
}

find_tracefs
opts_tests
fake_test
page_size_test
if can_trace "live tests"; then
	peak_test
	kmsg_test
	crashkernel_test
	nolock_test
	signals_test
	usr1_test
	second_term_test
	second_term_pidfile_test
	stale_test
	daemon_test
	daemon_parent_term_test
	daemon_stdio_test
	demo_test
	daemon_timeout_test
	fault_test
	mount_test
	mount_shared_test
	lost_test
	record_replay_test
	oom_test
	nonroot_test
	switch_root_test
fi
summary
[ "$fail" = 0 ]
