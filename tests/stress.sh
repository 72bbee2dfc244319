#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# stress.sh - memtrace under load on the real tracefs: a signal storm during an
# allocation storm, and a task storm with a small task table.
# Needs root and a tracefs; SKIP with a reason otherwise. Leaves tracefs as found.
set -u
cd "$(dirname "$0")/.."
MT=$PWD/memtrace
WL=$PWD/build/tests/workload
FK=$PWD/build/tests/forker
TH=$PWD/build/tests/threads
T=$(mktemp -d /tmp/memtrace-stress.XXXXXX)
INST=memtrace-st$$
. "$PWD/tests/lib.sh"

trap cleanup_live EXIT

# usr1_reports FILE [FINAL]: how many whole JSON documents FILE (memtrace's stdout)
# holds, a report still being written at its end not counted. With FINAL (the final
# report, written by -o): each must be a USR1 report as complete as that one (the same
# keys, tasks in it); anything else (a document cut short, another trigger) is an error.
usr1_reports() {
	python3 - "$@" <<'PY'
import json, sys
s = open(sys.argv[1]).read()
final = set(json.load(open(sys.argv[2]))) if len(sys.argv) > 2 else None
dec = json.JSONDecoder()
i = n = 0
while True:
    while i < len(s) and s[i].isspace():
        i += 1
    if i >= len(s):
        break
    try:
        d, i = dec.raw_decode(s, i)
    except ValueError:
        if final is not None:
            raise
        break
    if final is not None:
        assert d["trigger"] == "SIGUSR1", d["trigger"]
        assert set(d) == final, sorted(final ^ set(d))
        assert d["tasks"], "no tasks"
    n += 1
print(n)
PY
}
reports_are() { [ "$(usr1_reports "$T/stdout")" = "$1" ]; }	# reports_are N

# thousands of USR1/USR2 while a workload allocates and frees in a loop
signal_storm() {
	local before after storm i n u rc docs paced=10
	before=$(tfs_state)
	start_mt -f json -n 0 -o "$T/storm.json" || { bad "signal storm: memtrace did not start"; return; }
	( end=$((SECONDS + 6)); while [ $SECONDS -lt $end ]; do "$WL" 16 0; done ) &
	storm=$!
	# under the allocation storm, USR1 one at a time, each once the report before it is
	# out: no two can merge into one pending signal, so each must make exactly one report
	for ((i = 1; i <= paced; i++)); do
		kill -USR1 "$MTPID"
		wait_for 10 reports_are "$i" || break
	done
	check "signal storm: $paced USR1 one at a time, each its report ($(usr1_reports "$T/stdout") of $paced)" \
		reports_are "$paced"
	# then the storm: signals sent faster than reports are written merge (one pending
	# USR1 at a time), so it makes at least one report and at most one per USR1
	n=0 u=0
	for i in $(seq 1500); do
		kill -USR1 "$MTPID" 2>/dev/null && n=$((n + 1)) u=$((u + 1))
		kill -USR2 "$MTPID" 2>/dev/null && n=$((n + 1))
	done
	check "signal storm: $n signals sent, memtrace alive" kill -0 "$MTPID"
	wait "$storm"
	sleep 0.3
	check "signal storm: the last USR2 log is complete JSON (trigger $(json "$T/storm.json" 'd["trigger"]'))" \
		test "$(json "$T/storm.json" 'd["trigger"]')" = SIGUSR2
	kill -TERM "$MTPID"; wait_exit "$MTPID" 20; rc=$?
	check "signal storm: TERM exits 0 ($rc)" test "$rc" = 0
	docs=$(usr1_reports "$T/stdout" "$T/storm.json")
	check "signal storm: every USR1 report on stdout is complete JSON, the final report's keys ($docs reports: $paced paced + 1 to $u from the storm)" \
		test "${docs:-0}" -gt "$paced" -a "${docs:-0}" -le "$((paced + u))"
	check "signal storm: the final report is complete (trigger $(json "$T/storm.json" 'd["trigger"]'))" \
		test "$(json "$T/storm.json" 'd["trigger"]')" = SIGTERM
	check "signal storm: the workloads are in it (peak of the largest: $(json "$T/storm.json" 'max(t["peak_pages"] for t in d["tasks"] if t["comm"]=="workload")'))" \
		test "$(json "$T/storm.json" 'max(t["peak_pages"] for t in d["tasks"] if t["comm"]=="workload") >= 4096')" = True
	after=$(tfs_state)
	check "tracefs identical after the signal storm" test "$before" = "$after"
}

# memtrace's own anonymous memory in KiB (pid $1)
anon_kib() { awk '$1 == "RssAnon:" { print $2 }' "/proc/$1/status" 2>/dev/null; }

# 100 000 short processes with a table of 64 tasks
task_storm() {
	local before after rc anon0 anon1 map0 map1 ino ovev ovpg n=${STRESS_TASKS:-100000} nth=300
	before=$(tfs_state)
	# --no-seed: the table holds only tasks seen now, so exited ones can be recycled;
	# -b: the count below needs every fork and exit, even if memtrace is starved; 32 MiB
	# in all (16 MiB per CPU here), at least the default 2 MiB per CPU
	local kb=$(( 32768 / $(getconf _NPROCESSORS_ONLN) ))
	[ "$kb" -ge 2048 ] || kb=2048
	start_mt -f json -n 0 --no-seed --max-tasks 256 -b "$kb" -o "$T/tasks.json" ||
		{ bad "task storm: memtrace did not start"; return; }
	# a first fifth warms up what memtrace touches (pfn map pages), then memory must stay
	"$FK" "$((n / 5))"
	sleep 0.3
	kill -USR2 "$MTPID"
	wait_for 10 grep -qs '"trigger":"SIGUSR2"' "$T/tasks.json"
	anon0=$(anon_kib "$MTPID")
	map0=$(json "$T/tasks.json" 'd["self"]["pfn_map_kib"]')
	"$FK" "$((n - n / 5))"; rc=$?
	check "task storm: $n processes ran (forker exit $rc)" test "$rc" = 0
	# then more live tasks than slots: $nth threads, all alive while each touches its
	# 1 MiB (a barrier), against 256 slots: at least $nth - 256 of them never get one,
	# and their 256 pages each go to <overflow>, counted
	"$TH" "$nth" 1 100; rc=$?
	check "task storm: $nth threads of 1 MiB each ran (exit $rc)" test "$rc" = 0
	sleep 0.5
	check "task storm: memtrace alive" kill -0 "$MTPID"
	# the same measure after the storm: a USR2 report (a new file) names the map's size
	ino=$(stat -c %i "$T/tasks.json")
	kill -USR2 "$MTPID"
	wait_for 10 eval '[ "$(stat -c %i "$T/tasks.json" 2>/dev/null)" != "$ino" ] &&
		grep -qs "\"trigger\":\"SIGUSR2\"" "$T/tasks.json"'
	anon1=$(anon_kib "$MTPID")
	map1=$(json "$T/tasks.json" 'd["self"]["pfn_map_kib"]')
	kill -TERM "$MTPID"; wait_exit "$MTPID" 20; rc=$?
	check "task storm: TERM exits 0 ($rc)" test "$rc" = 0
	check "task storm: no event lost ($(json "$T/tasks.json" 'd["lost_events"]'))" \
		test "$(json "$T/tasks.json" 'd["lost_events"]')" = 0
	check "task storm: exited tasks recycled ($(json "$T/tasks.json" 'd["overflows"]["tasks_recycled"]') of $n)" \
		test "$(json "$T/tasks.json" 'd["overflows"]["tasks_recycled"] >= '"$((n - 256))")" = True
	# the pfn map may grow where new page frames get used (the forks reach page frames
	# the first fifth did not: 1 MiB of map more for 1 GiB of physical memory touched, as
	# a machine's memory happens to be laid out); nothing else may. Measured: memtrace's
	# own memory (RssAnon: the heap, the tables, the map) less the map, each time just
	# after a USR2 report. Not VmHWM: a peak also counts code pages first run during the
	# storm (RssFile) and the final report's teardown, neither of which grows with tasks.
	check "task storm: memory flat but the pfn map (RssAnon ${anon0:-?} KiB after a fifth, ${anon1:-?} KiB at the end; the map ${map0:-?} then ${map1:-?} KiB)" \
		test -n "$anon0" -a -n "$anon1" -a -n "$map0" -a -n "$map1" -a \
		"$(( ${anon1:-0} - ${anon0:-0} - (${map1:-0} - ${map0:-0}) ))" -lt 1024
	ovev=$(json "$T/tasks.json" 'd["overflows"]["task_events"]')
	ovpg=$(json "$T/tasks.json" 'd["overflows"]["task_pages"]')
	check "task storm: overflow counted, never hidden ($nth live threads for 256 slots: ${ovev:-no} events, ${ovpg:-no} pages without a slot, each >= $(((nth - 256) * 256)))" \
		test "${ovev:-0}" -ge $(((nth - 256) * 256)) -a "${ovpg:-0}" -ge $(((nth - 256) * 256))
	after=$(tfs_state)
	check "tracefs identical after the task storm" test "$before" = "$after"
}

find_tracefs
if ! can_trace "stress tests"; then
	:
elif [ ! -x "$WL" ] || [ ! -x "$FK" ] || [ ! -x "$TH" ]; then
	skip_live "build/tests/workload, build/tests/forker and build/tests/threads must be built first"
else
	signal_storm
	task_storm
fi
summary
[ "$fail" = 0 ]
