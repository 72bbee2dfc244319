#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# run.sh SECONDS TARGET... - run each libFuzzer target (build/fuzz/TARGET) for
# SECONDS, seeded with real data from tests/fixtures and this machine's /proc.
# Crashes are kept in tests/fuzz/crashes/; the corpus grows in tests/fuzz/work/.
# Targets run side by side, one per CPU (FUZZ_JOBS to change it). Prints executions per
# target and "N passed, N failed"; exits 1 if any target failed.
set -u
cd "$(dirname "$0")/../.." || exit 1
SECS=${1:-60}
shift
W=tests/fuzz/work
C=tests/fuzz/crashes
mkdir -p "$W" "$C"
. tests/lib.sh		# on_cpus, and the pass/fail counters

seed() {	# seed TARGET NAME PREFIX_BYTE FILE: copy FILE (after one prefix byte, if given)
	local d=$W/$1/seeds
	mkdir -p "$d"
	if [ -n "$3" ]; then
		{ printf "\\x$3"; cat "$4"; } > "$d/$2"
	else
		cp "$4" "$d/$2"
	fi
}

make_seeds() {
	local f i=0 k
	# raw sub-buffers in pieces of 8 (32 KiB): small inputs mutate faster
	for f in tests/fixtures/*/per_cpu/cpu*/trace_pipe_raw; do
		mkdir -p "$W/ringbuf/seeds"
		split -b 32768 -d -a 4 "$f" "$W/ringbuf/seeds/raw$((i++))-"
		head -c 4096 "$f" > "$W/boot1.tmp"
		seed replay "boot$i" 02 "$W/boot1.tmp"
		head -c 32768 "$f" > "$W/boot1.tmp"
		seed replay "cpus$i" 03 "$W/boot1.tmp"
	done
	rm -f "$W/boot1.tmp"
	i=0
	for f in tests/fixtures/*/events/*/*/format; do
		for k in 00 01 06 09 0c; do
			seed format "fmt$((i++))" "$k" "$f"
		done
	done
	for f in tests/fixtures/*/events/header_page; do
		seed format "hp$((i++))" 00 "$f"
	done
	seed proc statm 00 /proc/self/statm
	seed proc stat 01 /proc/self/stat
	seed proc zoneinfo 02 /proc/zoneinfo
	for f in tests/fixtures/*/kallsyms.txt; do seed proc "ksym$((i++))" 03 "$f"; done
	for f in tests/fixtures/*/proc_modules*.txt; do seed proc "mods$((i++))" 04 "$f"; done
	for f in tests/fixtures/*/memtrace.meta; do seed replay "meta$((i++))" 00 "$f"; done
	for f in tests/fixtures/*/memtrace.seed; do seed replay "seed$((i++))" 01 "$f"; done
	# --stream: conditions, cgroup lines, the runtimes' files, this machine's /proc
	seed cond examples "" tests/fixtures/stream/conditions.txt
	while IFS= read -r f; do
		printf '%s' "$f" > "$W/one.tmp"
		seed cond "c$((i++))" "" "$W/one.tmp"
	done < tests/fixtures/stream/conditions.txt
	seed runtime cgroups 00 tests/fixtures/stream/cgroups.txt
	seed runtime cgself 00 /proc/self/cgroup
	seed runtime docker 01 tests/fixtures/stream/docker-config.v2.json
	seed runtime crio 02 tests/fixtures/stream/crio-config.json
	seed runtime containerd 02 tests/fixtures/stream/containerd-config.json
	seed runtime podman 02 tests/fixtures/stream/podman-config.json
	seed runtime names 03 tests/fixtures/stream/podman-containers.json
	seed runtime status 04 /proc/self/status
	seed runtime stat 04 /proc/self/stat
	seed runtime json 05 tests/fixtures/stream/docker-config.v2.json
	rm -f "$W/one.tmp"
}

# run_one TARGET: its verdict, the lines to print, in $W/TARGET.result
run_one() {
	local t=$1 bin=build/fuzz/$1 log=$W/$1.log rc execs cov
	mkdir -p "$W/$t/corpus" "$C/$t"
	"$bin" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-max_len=65536 \
		-artifact_prefix="$C/$t/" "$W/$t/corpus" "$W/$t/seeds" > "$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
	if [ "$rc" = 0 ] && ! ls "$C/$t"/crash-* "$C/$t"/leak-* "$C/$t"/timeout-* > /dev/null 2>&1; then
		echo "ok   - fuzz $t: ${execs:-?} executions in $SECS s, $cov, no crash"
	else
		echo "FAIL - fuzz $t (exit $rc): see $log and $C/$t/"
		grep -E 'ERROR|SUMMARY|runtime error' "$log" | head -5 | sed 's/^/       /'
	fi > "$W/$t.result"
}

make_seeds
# each target has a core of its own: as many at once as there are CPUs (FUZZ_JOBS), so
# that every target still gets its SECONDS while the whole run takes a fraction of them all
for t in "$@"; do rm -f "$W/$t.result"; done
on_cpus "${FUZZ_JOBS:-$(nproc)}" run_one "$@"
for t in "$@"; do
	if [ -s "$W/$t.result" ] && grep -q '^ok' "$W/$t.result"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		[ -s "$W/$t.result" ] || echo "FAIL - fuzz $t: no verdict" > "$W/$t.result"
	fi
	cat "$W/$t.result"
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
