#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tasks.sh [TASKS [THREADS]] - many tasks alive at start (issue 17, scale item 7): the cost
# of seeding them with --max-tasks 131072, and of the report at the end.
#
# Live (root, its own instance): build/bench/sleepers starts TASKS tasks (default 100000, THREADS
# per process, default 1), as many as this machine allows: pid_max bounds the tasks alive
# at once and is not changed here; 4096 pids are left free for everything else. Then
# memtrace --max-tasks 131072 starts, with and without them: the time from its start to
# "tracing in" (the seeding is its last step), its CPU time then, its VmRSS then, how many
# tasks it seeded, and how long the final report (TERM) takes.
# Fake /proc: build/bench/seedbench seeds 100,000 tasks (and 1,000 processes of 100 threads)
# from a tmpfs tree shaped like /proc, the same code without the kernel's /proc costs:
# 25,000, 50,000 and 100,000 tasks show how it grows.
# Prints figures only; removes everything it started.
set -eu -o pipefail
cd "$(dirname "$0")/.."
WANT=${1:-100000}; THREADS=${2:-1}
make -s memtrace build/bench/sleepers build/bench/seedbench
D=$(mktemp -d /tmp/memtrace-tasks.XXXXXX)
SHM=$(mktemp -d /dev/shm/memtrace-seed.XXXXXX)
spid= mpid=
cleanup() {
	[ -n "$mpid" ] && kill -TERM "$mpid" 2> /dev/null && wait "$mpid" 2> /dev/null
	[ -n "$spid" ] && kill -TERM "$spid" 2> /dev/null && wait "$spid" 2> /dev/null
	rm -rf "$D" "$SHM"
}
trap cleanup EXIT

pid_max=$(cat /proc/sys/kernel/pid_max)
threads_max=$(cat /proc/sys/kernel/threads-max)
now=$(awk '{ split($4, a, "/"); print a[2] }' /proc/loadavg)
room=$(( pid_max - now - 4096 ))
[ "$room" -gt "$((threads_max - now - 4096))" ] && room=$((threads_max - now - 4096))
n=$WANT
[ "$n" -gt "$room" ] && n=$room
echo "this machine: pid_max $pid_max, threads-max $threads_max, $now tasks now:" \
	"$n of the $WANT tasks asked can be started (pid_max is not changed here)"

# one memtrace start to "tracing in", then TERM: "wall_ms cpu_ms rss_kib seeded report_ms"
measure() {
	local t0 t1 t2 i cpu rss hz
	hz=$(getconf CLK_TCK)
	rm -f "$D/err" "$D/r.json"
	t0=$(date +%s%N)
	./memtrace --instance "memtrace-tasks$$" --max-tasks 131072 -f json -o "$D/r.json" \
		2> "$D/err" &
	mpid=$!
	for i in $(seq 6000); do grep -q "tracing in" "$D/err" && break; sleep 0.005; done
	t1=$(date +%s%N)
	cpu=$(awk -v hz="$hz" '{ printf "%.0f", ($14 + $15) * 1000 / hz }' "/proc/$mpid/stat")
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$mpid/status")
	t2=$(date +%s%N)
	kill -TERM "$mpid"; wait "$mpid"; mpid=
	echo "$(( (t1 - t0) / 1000000 )) $cpu $rss" \
		"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["seed"]["tasks"])' "$D/r.json")" \
		"$(( ($(date +%s%N) - t2) / 1000000 ))"
}

echo
echo "live: memtrace --max-tasks 131072 (best of 3 starts each)"
printf "%-28s %10s %8s %10s %8s %10s\n" "" "start_ms" "cpu_ms" "rss_kib" "seeded" "report_ms"
best() {	# best of 3 by start time
	local b= l
	for _ in 1 2 3; do
		l=$(measure)
		if [ -z "$b" ] || [ "${l%% *}" -lt "${b%% *}" ]; then b=$l; fi
	done
	echo "$b"
}
read -r w0 c0 r0 s0 p0 < <(best)
printf "%-28s %10s %8s %10s %8s %10s\n" "without sleepers" "$w0" "$c0" "$r0" "$s0" "$p0"
./build/bench/sleepers $(( (n + THREADS - 1) / THREADS )) "$THREADS" "$D/ready" > "$D/sleepers" &
spid=$!
for _ in $(seq 1200); do [ -e "$D/ready" ] && break; sleep 0.1; done
cat "$D/sleepers"
read -r w1 c1 r1 s1 p1 < <(best)
printf "%-28s %10s %8s %10s %8s %10s\n" "with $(awk '{ print $4 }' "$D/sleepers") more tasks" \
	"$w1" "$c1" "$r1" "$s1" "$p1"
kill -TERM "$spid"; wait "$spid"; spid=
awk -v w="$((w1 - w0))" -v c="$((c1 - c0))" -v r="$((r1 - r0))" -v s="$((s1 - s0))" 'BEGIN {
	printf "per task seeded: %.1f us start, %.1f us CPU, %.0f bytes resident\n",
		w * 1000 / s, c * 1000 / s, r * 1024 / s }'

echo
echo "fake /proc in tmpfs (build/bench/seedbench, 131072 slots): the seeding alone"
for spec in "25000 1" "50000 1" "100000 1" "1000 100"; do
	rm -rf "${SHM:?}"/root
	# shellcheck disable=SC2086
	set -- $spec
	printf "%-28s %s\n" "$1 processes x $2 tasks" "$(./build/bench/seedbench "$SHM/root" "$1" "$2" 131072)"
done
