#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# storm.sh - allocation storm under memtrace with default options: events/s, lost, CPU per event
# usage: bench/storm.sh [MB_PER_ROUND [ROUNDS]]   (root; prints figures, asserts nothing)
set -eu
cd "$(dirname "$0")/.."
MB=${1:-256}; ROUNDS=${2:-10}
make -s memtrace build/tests/workload
LOG=$(mktemp /tmp/memtrace-storm.XXXXXX)
./memtrace --instance memtrace-bench -f json -o "$LOG" 2>/dev/null &
pid=$!
sleep 1
t0=$(date +%s.%N)
for i in $(seq "$ROUNDS"); do taskset -c 1 ./build/tests/workload "$MB" 0; done
t1=$(date +%s.%N)
sleep 0.5
read -r ut st < <(awk '{print $14, $15}' /proc/$pid/stat)
hwm=$(awk '/VmHWM/ {print $2}' /proc/$pid/status)
kill -TERM $pid; wait $pid
python3 - "$LOG" "$t0" "$t1" "$ut" "$st" "$hwm" "$(getconf CLK_TCK)" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t0, t1, ut, st, hwm, hz = float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
ev = d["events"]["processed"]
cpu = (ut + st) / hz
print(f"workload wall {t1 - t0:.2f} s, events processed {ev}, rate {ev / (t1 - t0):,.0f} events/s")
print(f"lost events {d['lost_events']}")
print(f"memtrace CPU {cpu:.2f} s = {cpu / ev * 1e6:.3f} us/event; peak RSS {hwm} KiB")
PY
rm -f "$LOG"
