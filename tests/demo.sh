#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# demo.sh - memtrace's main job in one go: trace, run a 64 MiB workload, report (needs root)
set -eu
cd "$(dirname "$0")/.."
grep -q ' tracefs ' /proc/mounts || mount -t tracefs nodev /sys/kernel/tracing
./memtrace --instance memtrace-demo -n 10 -o /tmp/mem_debug_log &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid' EXIT
sleep 1
echo "== running: build/tests/workload 64 500 (maps and touches 64 MiB)" >&2
./build/tests/workload 64 500
kill -USR1 $pid		# report on stdout
sleep 1
kill -TERM $pid		# final report to /tmp/mem_debug_log, tracefs restored
wait $pid
trap - EXIT
echo "== final report in /tmp/mem_debug_log" >&2
