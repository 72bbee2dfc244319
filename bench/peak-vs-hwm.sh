#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# peak-vs-hwm.sh - memtrace's peak pages of a workload beside the kernel's VmHWM (root)
set -eu
cd "$(dirname "$0")/.."
make -s memtrace build/tests/workload
LOG=$(mktemp /tmp/memtrace-hwm.XXXXXX)
./memtrace --instance memtrace-bench -f json -n 0 -o "$LOG" 2>/dev/null &
pid=$!
sleep 1
declare -A hwm
for mb in 1 16 64 256; do
	rm -f /tmp/memtrace-hwm-ready
	./build/tests/workload "$mb" 300 /tmp/memtrace-hwm-ready & w=$!
	while [ ! -e /tmp/memtrace-hwm-ready ]; do sleep 0.01; done
	hwm[$w]="$mb $(awk '/VmHWM/ {print $2}' /proc/$w/status)"
	wait $w
done
sleep 0.3
kill -TERM $pid; wait $pid
for w in "${!hwm[@]}"; do
	read -r mb kb <<< "${hwm[$w]}"
	peak=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([t["peak_pages"] for t in d["tasks"] if t["pid"]==int(sys.argv[2])][0])' "$LOG" "$w")
	printf "workload %4d MiB: memtrace peak %7d pages (%8d KiB), VmHWM %8d KiB, peak-HWM %+6d KiB\n" \
		"$mb" "$peak" $((peak * 4)) "$kb" $((peak * 4 - kb))
done | sort -n -k2
rm -f "$LOG" /tmp/memtrace-hwm-ready
