#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# footprint.sh [TASKS] - memtrace's memory with default options, phase by phase, and its
# binary sizes. Peak RSS (VmHWM) after: start and 1 s at rest; the live storm (build/bench/churn,
# 3 s); 20 reports (USR1 to a pipe, USR2 to the log file); TASKS short processes (default
# 20000, more than the default task table of 16384, so every slot is used); and over its
# whole life, final report included (ru_maxrss through build/bench/rusage). Each is shown with the
# resident part of the pfn->owner map (from memtrace's own report) taken off. Binary sizes:
# this build, stripped, and `make static` and `make memtrace-boot` (musl; the boot binary is
# the initramfs images') when musl-gcc is installed.
# MEMTRACE=path measures another build (make static: MEMTRACE=./memtrace-static).
# Root; prints figures and RESULT lines for bench/run.sh; asserts nothing.
set -eu
cd "$(dirname "$0")/.."
TASKS=${1:-20000}
make -s memtrace build/bench/churn build/bench/rusage build/tests/forker
D=$(mktemp -d /tmp/memtrace-footprint.XXXXXX)
pid=
cleanup() {
	[ -n "$pid" ] && kill -TERM "$pid" 2> /dev/null && wait "$pid" 2> /dev/null
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

hwm() { awk '/^VmHWM/ { print $2 }' "/proc/$mt/status"; }
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$mt/status"; }
# the pfn map's resident KiB, from a report on stdout (USR1, JSON)
mapkib() {
	local n
	n=$(grep -c modules_not_listed "$D/out" || true)
	kill -USR1 "$mt"
	for _ in $(seq 100); do
		[ "$(grep -c modules_not_listed "$D/out" || true)" -gt "$n" ] && break
		sleep 0.05
	done
	python3 -c 'import json,sys; r = open(sys.argv[1]).read().split("\n{\"memtrace_version")[-1]
print(json.loads(r if r.startswith("{") else "{\"memtrace_version" + r)["self"]["pfn_map_kib"])' "$D/out"
}
# phase peak_kib map_kib key [rss_kib]: the pfn map only grows, so peak - map now is a
# little lenient when the map grew after the peak; the RSS now minus the map is exact
row() {
	printf '%-34s %8d %8s %8d %8d\n' "$1" "$2" "${5:--}" "$3" $(($2 - $3))
	echo "RESULT rss_$4_kib $(($2 - $3))" >> "$D/results"
}

MT_BIN=${MEMTRACE:-./memtrace}
build/bench/rusage "$D/rusage" "$MT_BIN" --instance memtrace-bench-fp -f json -o "$D/log.json" \
	> "$D/out" 2> "$D/err" &
pid=$!
for _ in $(seq 200); do grep -q "tracing in" "$D/err" && break; sleep 0.05; done
grep -q "tracing in" "$D/err" || { cat "$D/err"; exit 1; }
mt=$(pgrep -P "$pid")
sleep 1
echo "$MT_BIN $("$MT_BIN" --version | awk '{print $2}'), default options; KiB"
printf '%-34s %8s %8s %8s %8s\n' "phase (peak RSS so far)" "VmHWM" "VmRSS" "pfn map" "HWM-map"
r=$(hwm); n=$(rss); m=$(mapkib); row "at rest (1 s after start)" "$r" "$m" rest "$n"
taskset -c "$(($(nproc) > 1 ? 1 : 0))" build/bench/churn 3 16 > /dev/null
sleep 0.3
r=$(hwm); n=$(rss); m=$(mapkib); row "storm (churn 16 MiB, 3 s)" "$r" "$m" storm "$n"
for _ in $(seq 10); do
	kill -USR2 "$mt"; mapkib > /dev/null
done
r=$(hwm); n=$(rss); m=$(mapkib); row "after 20 reports" "$r" "$m" report "$n"
build/tests/forker "$TASKS"
sleep 0.3
r=$(hwm); n=$(rss); m=$(mapkib); row "$TASKS processes (table full)" "$r" "$m" fulltable "$n"
kill -TERM "$pid"; wait "$pid" || true
pid=
r=$(awk '{ print $2 }' "$D/rusage")
m=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["self"]["pfn_map_kib"])' "$D/log.json")
row "whole life, final report included" "$r" "$m" life
python3 - "$D/log.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"events {d['events']['processed']}, lost {d['lost_events']}, "
      f"recycled tasks {d['overflows']['tasks_recycled']}")
PY

strip -o "$D/memtrace.stripped" memtrace
echo "binary: $(stat -c %s memtrace) bytes as built (with -g), $(stat -c %s "$D/memtrace.stripped") stripped ($(size memtrace | awk 'NR == 2 { print "text " $1 ", data " $2 ", bss " $3 }'))"
echo "RESULT binary_bytes $(stat -c %s "$D/memtrace.stripped")" >> "$D/results"
if command -v musl-gcc > /dev/null; then
	make -s static memtrace-boot
	echo "static (make static, musl, stripped): $(stat -c %s memtrace-static) bytes"
	echo "boot (make memtrace-boot, musl, stripped, the images' binary): $(stat -c %s memtrace-boot) bytes ($(size memtrace-boot | awk 'NR == 2 { print "text " $1 ", data " $2 ", bss " $3 }'))"
	echo "RESULT static_bytes $(stat -c %s memtrace-static)" >> "$D/results"
	echo "RESULT boot_bytes $(stat -c %s memtrace-boot)" >> "$D/results"
else
	echo "static: musl-gcc not installed (Debian package musl-tools)"
fi
cat "$D/results"
