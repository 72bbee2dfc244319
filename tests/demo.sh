#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# demo.sh - memtrace's main job in one go: trace, run a 64 MiB workload, report (needs root)
#
# DEMO_LOG: the final report's file (default: a new one, mktemp); DEMO_INSTANCE: the
# tracefs instance (default: memtrace-demo-PID). `make demo DEMO_LOG=... DEMO_INSTANCE=...`
# passes them; nobody else's log or instance is ever touched by default.
set -eu
cd "$(dirname "$0")/.."
log=${DEMO_LOG:-}
inst=${DEMO_INSTANCE:-memtrace-demo-$$}
[ -n "$log" ] || log=$(mktemp /tmp/memtrace-demo.XXXXXX)
grep -q ' tracefs ' /proc/mounts || mount -t tracefs nodev /sys/kernel/tracing
tfs=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
./memtrace --instance "$inst" -n 10 -o "$log" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid' EXIT
# tracing is live once the instance traces page allocations (or memtrace is gone)
for _ in $(seq 300); do
	[ "$(cat "$tfs/instances/$inst/tracing_on" 2>/dev/null)" = 1 ] &&
		[ "$(cat "$tfs/instances/$inst/events/kmem/mm_page_alloc/enable" 2>/dev/null)" = 1 ] &&
		break
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
echo "== running: build/tests/workload 64 500 (maps and touches 64 MiB)" >&2
./build/tests/workload 64 500
kill -USR1 $pid		# report on stdout (signals are read in order: before TERM)
kill -TERM $pid		# final report to $log, tracefs restored
trap - EXIT
rc=0
wait $pid || rc=$?
echo "== final report in $log (tracefs instance $inst, removed)" >&2
exit "$rc"
