#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# replay.sh [MB [ROUNDS]] - decode + account throughput on one core, from a real recording:
# records an allocation storm (build/tests/workload MB, ROUNDS times; default 256 MiB x 8, about
# 1 million events) with --record, then replays
# it: events per second (best of 3, pinned to one CPU) and instructions per event
# (callgrind, repeatable on a noisy machine). Root for the recording; prints figures only.
set -eu
cd "$(dirname "$0")/.."
MB=${1:-256}; ROUNDS=${2:-8}
make -s memtrace build/tests/workload
D=$(mktemp -d /tmp/memtrace-replay.XXXXXX)
trap 'rm -rf "$D"' EXIT
./memtrace --instance memtrace-bench-rec --record "$D/rec" -o "$D/live.json" -f json 2> "$D/err" &
pid=$!
for i in $(seq 100); do grep -q "tracing in" "$D/err" && break; sleep 0.05; done
for i in $(seq "$ROUNDS"); do ./build/tests/workload "$MB" 0; done
sleep 0.3
kill -TERM $pid; wait $pid
ev=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["events"]["processed"])' "$D/live.json")
bytes=$(du -cb "$D"/rec/per_cpu/*/trace_pipe_raw | tail -1 | cut -f1)
best=
for i in 1 2 3; do
	t0=$(date +%s%N)
	taskset -c 0 ./memtrace --replay "$D/rec" -f json > "$D/replay.json"
	t1=$(date +%s%N)
	ns=$((t1 - t0))
	[ -z "$best" ] || [ "$ns" -lt "$best" ] && best=$ns
done
rev=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["events"]["processed"])' "$D/replay.json")
echo "recording: $rev events, $((bytes / 1024)) KiB of sub-buffers (live saw $ev)"
awk -v e="$rev" -v ns="$best" 'BEGIN { printf "replay, one core, best of 3: %.3f s, %.1f M events/s (%.1f ns/event, whole process: start, files, report)\n", ns / 1e9, e / ns * 1e3, ns / e
	printf "RESULT replay_mevents_per_s %.1f\n", e / ns * 1e3 }'
valgrind --tool=callgrind --callgrind-out-file="$D/cg.out" ./memtrace --replay "$D/rec" -f json \
	> /dev/null 2> "$D/cg.err"
ir=$(sed -n 's/^summary: //p' "$D/cg.out")
awk -v e="$rev" -v ir="$ir" 'BEGIN { printf "callgrind: %d instructions in all, %.1f per event\n", ir, ir / e
	printf "RESULT replay_instructions_per_event %.0f\n", ir / e }'
callgrind_annotate "$D/cg.out" 2> /dev/null | sed -n '/Ir.*file:function/,/^$/p' | head -12
