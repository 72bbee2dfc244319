#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# run.sh SECONDS TARGET... - run each libFuzzer target (build/fuzz/TARGET) for
# SECONDS (make fuzz), seeded with real data from tests/fixtures and this machine's /proc
# and with the corpus kept in the tree, tests/fuzz/corpus/TARGET/.
# run.sh --long RUNS TARGET... - run each until RUNS executions (make fuzz-long, RUNS 10
# million), at most FUZZ_LONG_MAX_S seconds (default 7200) each, at nice 19; then merge
# what it found into the kept corpus (libFuzzer's -merge=1: the fewest inputs that keep
# every feature seen), cut to FUZZ_KEEP_KB (default 512) KiB by keep.py, which replaces
# tests/fuzz/corpus/TARGET/ (commit it).
# run.sh --merge TARGET... - that merge alone, of what tests/fuzz/work/ holds (a campaign
# cut short, or another budget).
# Crashes are kept in tests/fuzz/crashes/; the corpus grows in tests/fuzz/work/.
# Targets run side by side, one per CPU (FUZZ_JOBS to change it). Prints per target its
# executions (with --long: the wall time, the rate, libFuzzer's cov: and ft:, the kept
# corpus) and "N passed, N failed"; exits 1 if any target failed (a crash, a leak, a
# timeout, an input over the RSS limit).
set -u
cd "$(dirname "$0")/../.." || exit 1
LONG=
MERGE_ONLY=
if [ "${1:-}" = --long ]; then
	LONG=1
	shift
elif [ "${1:-}" = --merge ]; then
	LONG=1		# the inputs' max_len as the campaign's
	MERGE_ONLY=1
	shift
fi
if [ -z "$MERGE_ONLY" ]; then
	SECS=${1:-60}	# with --long: the executions
	shift
fi
W=tests/fuzz/work
C=tests/fuzz/crashes
K=tests/fuzz/corpus
MAXS=${FUZZ_LONG_MAX_S:-7200}
KEEP=$((${FUZZ_KEEP_KB:-512} * 1024))
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
	diff_seeds
}

# --diff: OLD, a NUL, NEW (a NUL and a --fail-over value): the fixtures' replays (./memtrace)
# as JSON reports, by process with stacks and by task, JSON lines, hostile names, text reports;
# each seed under 16 KiB, fuzz-long's max_len (libFuzzer cuts a longer one, losing NEW)
diff_seeds() {
	local d=$W/diff/seeds
	mkdir -p "$d"
	rep() { ./memtrace --replay "tests/fixtures/$1" -f json "${@:2}" 2>/dev/null; }
	if [ -x ./memtrace ]; then
		{ rep linux-6.18 --by process --stacks --stack-top 4 -n 0; printf '\0'
		  rep linux-6.18-stacks --by process --stacks --stack-top 4 -n 0
		  printf '\0%s' 1KiB; } > "$d/stacks"
		{ rep debian-6.1 -n 0; printf '\0'; rep debian-6.1 --by process -n 0
		  printf '\0%s' 10%; } > "$d/tasks"
		{ rep debian-6.1-boot --by process --stacks --stack-top 2 -n 2; printf '\0'
		  rep debian-6.1-zram --by process --stacks --stack-top 1 -n 3
		  printf '\0%s' 2pages; } > "$d/boots"
		{ rep debian-6.1 -n 2; rep linux-6.18 -n 2; printf '\0'; rep linux-6.18 -n 2; } \
			> "$d/lines"
	fi
	printf '%s\0%s\0%s' '{"memtrace_version":"x","page_size":4096,"lost_events":3,"kernel":'\
'"6.\u0000","host":"h\u001b","started_at":"2026","trigger":"replay","uptime_s":1.5,'\
'"system_peak":{"pages":7},"modules_total":3,"modules":[{"name":"m\u0000a","peak_pages":2,'\
'"stacks":[{"frames":[{"symbol":"f","module":"m"},{"symbol":"g\ud800","module":null}],'\
'"peak_pages":1}]},{"name":"m","peak_pages":1}],"processes_with_pages":4,"processes":'\
'[{"comm":"a\"b\\","cmdline":"x y","peak_pages":1},{"comm":"\ud83d\ude00","peak_pages":2}]}' \
		'{"memtrace_version":"x","page_size":16384,"lost_events":0,"system_peak":{"pages":'\
'1125899906842624},"modules":[{"name":"m","peak_pages":9,"stacks":[{"frames":[],'\
'"peak_pages":9}]}],"tasks_with_pages":1,"tasks":[{"pid":1,"comm":"a\"b\\","peak_pages":3}]}' \
		'0.5%' > "$d/names"
	printf 'memtrace 0.1.0 command report\ncommand: true\n\0memtrace 0.1.0 report (trigger: %s' \
		'SIGTERM, live)\n' > "$d/text"
}

# max_len TARGET: the longest input; --long keeps the targets that read sub-buffers to 4 of
# them and --diff's to two small reports (16 KiB), for the rate (a 64 KiB input of 16
# sub-buffers decodes at a fifth of it; diff ran 11,600 a second at 16 KiB, 10,000 at 32)
# and a small kept corpus; cond's to 4 KiB of conditions (dozens of lines: its inputs grew
# toward 64 KiB and its rate fell from 15,800 a second to 3,100 in the campaign of 2026-11-28,
# which stopped at 3.7 million)
max_len() {
	case "$LONG:$1" in
	1:ringbuf|1:replay|1:diff) echo 16384 ;;
	1:cond) echo 4096 ;;
	*) echo 65536 ;;
	esac
}

# crashes TARGET: how many inputs of TARGET's made it fail (kept in $C/TARGET/)
crashes() {
	find "$C/$1" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
		-o -name 'oom-*' \) 2>/dev/null | wc -l
}

# merge TARGET: the kept corpus and what this run found, minimized and cut to the budget
# (keep.py: the inputs that reach the most edges, then features, per byte), become the kept
# corpus; says what it kept. The seeds (made from the fixtures at each run) go first into
# the merge, so that what they cover already is not kept twice.
merge() {
	local t=$1 m=$W/$1/merged cf=$W/$1.merge.control kept
	rm -rf "$m" "$m.keep" "$cf"
	mkdir -p "$m" "$K/$t" "$W/$t/corpus"
	cp "$W/$t/seeds"/* "$m"/ 2>/dev/null
	if nice -n 19 "build/fuzz/$t" -merge=1 -merge_control_file="$cf" \
		-max_len="$(max_len "$t")" -timeout=10 -rss_limit_mb=2048 \
		"$m" "$K/$t" "$W/$t/corpus" > "$W/$t.merge.log" 2>&1 &&
	   kept=$(tests/fuzz/keep.py "$cf" "$KEEP" "$m.keep" 2>> "$W/$t.merge.log"); then
		rm -rf "$K/$t" "$m"
		mv "$m.keep" "$K/$t"
		echo "       $t: $kept (budget $((KEEP / 1024)) KiB)"
	else
		echo "       (merge failed, the kept corpus as it was: see $W/$t.merge.log)"
	fi
}

# run_one TARGET: its verdict, the lines to print, in $W/TARGET.result
run_one() {
	local t=$1 bin=build/fuzz/$1 log=$W/$1.log rc execs cov t0 secs limit
	local -a dirs=("$W/$t/corpus" "$W/$t/seeds")
	mkdir -p "$W/$t/corpus" "$W/$t/seeds" "$C/$t"
	[ -d "$K/$t" ] && dirs+=("$K/$t")	# read only: what is new goes to the first
	if [ -n "$LONG" ]; then
		limit=(-runs="$SECS" -max_total_time="$MAXS")
	else
		limit=(-max_total_time="$SECS")
	fi
	t0=$(date +%s)
	${LONG:+nice -n 19} "$bin" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -max_len="$(max_len "$t")" \
		-artifact_prefix="$C/$t/" "${dirs[@]}" > "$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - t0))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1)
	if [ "$rc" = 0 ] && [ "$(crashes "$t")" = 0 ]; then
		if [ -n "$LONG" ]; then
			kept=$(merge "$t")
			echo "ok   - fuzz $t: ${execs:-?} executions in $secs s" \
				"($(( ${execs:-0} / (secs > 0 ? secs : 1) ))/s), $cov," \
				"crashes 0; kept corpus $(find "$K/$t" -type f | wc -l) files," \
				"$(du -sk --apparent-size "$K/$t" | cut -f1) KiB"
			echo "$kept"
		else
			echo "ok   - fuzz $t: ${execs:-?} executions in $SECS s, $cov, no crash"
		fi
	else
		echo "FAIL - fuzz $t (exit $rc): ${execs:-?} executions in $secs s, $cov," \
			"crashes $(crashes "$t"): see $log and $C/$t/"
		grep -E 'ERROR|SUMMARY|runtime error' "$log" | head -5 | sed 's/^/       /'
	fi > "$W/$t.result"
	# --long: fewer executions than asked (the time limit) is said, not a failure
	if [ -n "$LONG" ] && [ "${execs:-0}" -lt "$SECS" ] && [ "$rc" = 0 ]; then
		echo "       $t reached ${execs:-0} of $SECS executions in the ${MAXS} s limit" \
			>> "$W/$t.result"
	fi
}

make_seeds
if [ -n "$MERGE_ONLY" ]; then
	for t in "$@"; do merge "$t"; done
	exit 0
fi
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
