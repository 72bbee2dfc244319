#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# soak.sh [SECONDS [INTERVAL]] - memtrace under an allocation storm for a long time
# (default 600 s), sampling its RSS and CPU time every INTERVAL s (default 10).
# Prints a table, then how RSS without the pfn map changed after the first sample and
# the lost events of the final report. The task table is allocated at start and its
# pages become resident as slots are used for the first time (default 16384 slots), so
# RSS grows until the table is full; SOAK_OPTS="--max-tasks 512" shows the steady state. Root; not part of CI (make check runs the short storms).
set -u
cd "$(dirname "$0")/.."
SECS=${1:-600}
IVAL=${2:-10}
MT=$PWD/memtrace
WL=$PWD/build/tests/workload
T=$(mktemp -d /tmp/memtrace-soak.XXXXXX)
INST=memtrace-soak$$
make -s memtrace build/tests/workload || exit 1
[ "$(id -u)" = 0 ] || { echo "soak: needs root"; exit 1; }

# SOAK_OPTS: more memtrace options, e.g. --max-tasks 512 to see RSS once the table is full
# shellcheck disable=SC2086
"$MT" --instance "$INST" -f json -n 5 ${SOAK_OPTS:-} -o "$T/final.json" 2> "$T/err" &
MTPID=$!
STORM=
cleanup() {
	[ -n "$STORM" ] && kill "$STORM" 2>/dev/null
	kill -TERM "$MTPID" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
for i in $(seq 100); do grep -q "tracing in" "$T/err" && break; sleep 0.05; done

( while :; do "$WL" 64 0 > /dev/null; done ) &
STORM=$!
clk=$(getconf CLK_TCK)
printf '%8s %10s %10s %12s %12s\n' "T_S" "RSS_KIB" "MAP_KIB" "RSS-MAP_KIB" "CPU_S"
first=
t0=$SECONDS
while [ $((SECONDS - t0)) -lt "$SECS" ]; do
	sleep "$IVAL"
	# memtrace's own figures, from a report: RSS and the resident part of its pfn map
	kill -USR2 "$MTPID"; sleep 0.5
	read -r rss map < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["self"]["rss_kib"], d["self"]["pfn_map_kib"])' "$T/final.json")
	read -r -a st < "/proc/$MTPID/stat"
	cpu=$(awk -v u="${st[13]}" -v s="${st[14]}" -v c="$clk" 'BEGIN { printf "%.2f", (u + s) / c }')
	printf '%8d %10s %10s %12s %12s\n' $((SECONDS - t0)) "$rss" "$map" "$((rss - map))" "$cpu"
	[ -z "$first" ] && first=$((rss - map))
	last=$((rss - map))
done
kill "$STORM"; wait "$STORM" 2>/dev/null; STORM=
kill -TERM "$MTPID"; wait "$MTPID"
echo "RSS without the pfn map: $first KiB at the first sample, $last KiB at the end ($((last - first)) KiB)"
echo "(the pfn map grows only where page frames are seen for the first time: 4 bytes per frame at most)"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("events", d["events"]["processed"], "lost", d["lost_events"])' "$T/final.json"
