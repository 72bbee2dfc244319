#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# run.sh - `make bench`: the replay, live-storm, footprint, live-view and stream benchmarks,
# one after the other, then a table of their figures against the targets, printed and written to
# bench/results.md. Root (tracefs). Figures only: a missed target is shown, not failed.
set -eu -o pipefail
cd "$(dirname "$0")/.."
OUT=bench/results.md
LOG=$(mktemp /tmp/memtrace-bench.XXXXXX)
trap 'rm -f "$LOG"' EXIT
failed=
# the live storm, the live view's and the stream's: 5 interleaved runs of 3 s each way
for b in "bench/replay.sh" "bench/live.py 3 5" "bench/footprint.sh" "build/bench/topframe" \
	"bench/top.py 3 5" "bench/stream.py 3 5"; do
	echo "== $b"
	# shellcheck disable=SC2086
	./$b 2>&1 | tee -a "$LOG" || failed="$failed ${b%% *}"
done
python3 - "$LOG" "$OUT" <<'PY'
import os, platform, subprocess, sys, time
r = {}
for line in open(sys.argv[1]):
    if line.startswith("RESULT "):
        _, k, v = line.split()
        r[k] = float(v)
def g(k, fmt="{:,.0f}"):
    return fmt.format(r[k]) if k in r else "n/a"
def ok(k, test):
    return ("met" if test(r[k]) else "MISSED") if k in r else "n/a"
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
rows = [
    ("replay: decode + account, one core", g("replay_mevents_per_s", "{:.1f}") + " M events/s", ">= 20", ok("replay_mevents_per_s", lambda v: v >= 20)),
    ("replay: instructions per event (callgrind)", g("replay_instructions_per_event"), "", ""),
    ("live storm: lost events, memtrace", g("memtrace_lost"), "0", ok("memtrace_lost", lambda v: v == 0)),
    ("live storm: memtrace CPU per event", g("memtrace_us_per_event", "{:.3f}") + " us", "<= 0.1", ok("memtrace_us_per_event", lambda v: v <= 0.1)),
    ("live storm: trace-cmd record CPU per event", g("tracecmd_us_per_event", "{:.3f}") + " us", "", ""),
    ("live storm: workload speed, memtrace / untraced", g("memtrace_ratio", "{:.3f}"), "", ""),
    ("live storm: workload speed, trace-cmd / untraced", g("tracecmd_ratio", "{:.3f}"), "", ""),
    ("live storm: workload speed, memtrace / trace-cmd", g("memtrace_vs_tracecmd", "{:.3f}") +
     (f" (runs {r['memtrace_vs_tracecmd_min']:.3f} to {r['memtrace_vs_tracecmd_max']:.3f})"
      if "memtrace_vs_tracecmd_min" in r else ""), ">= 1",
     ok("memtrace_vs_tracecmd", lambda v: v >= 1)),
    ("live storm: peak RSS, trace-cmd record", g("tracecmd_maxrss_kib") + " KiB", "", ""),
    ("RSS without pfn map: at rest", g("rss_rest_kib") + " KiB", "<= 4096", ok("rss_rest_kib", lambda v: v <= 4096)),
    ("RSS without pfn map: storm", g("rss_storm_kib") + " KiB", "<= 4096", ok("rss_storm_kib", lambda v: v <= 4096)),
    ("RSS without pfn map: after 20 reports", g("rss_report_kib") + " KiB", "<= 4096", ok("rss_report_kib", lambda v: v <= 4096)),
    ("RSS without pfn map: task table full (16,384)", g("rss_fulltable_kib") + " KiB", "", ""),
    ("RSS without pfn map: whole life, final report", g("rss_life_kib") + " KiB", "", ""),
    ("stream: lines to a file, one core", g("stream_mevents_per_cpu_s", "{:.2f}") + " M events/s", ">= 1", ok("stream_mevents_per_cpu_s", lambda v: v >= 1)),
    ("stream: 64 MiB picked, lines lost (file, pipe)", g("stream_64mib_lost"), "0", ok("stream_64mib_lost", lambda v: v == 0)),
    ("stream: unpicked storm, workload speed / untraced", g("stream_storm_vs_untraced", "{:.3f}"), "", ""),
    ("stream: the same under the daemon / untraced", g("daemon_storm_vs_untraced", "{:.3f}"), "", ""),
    ("stream: workload speed, stream / daemon", g("stream_vs_daemon", "{:.3f}"), ">= 1", ok("stream_vs_daemon", lambda v: v >= 1)),
    ("binary, stripped (gcc -O2, glibc)", g("binary_bytes") + " bytes", "", ""),
    ("make static (musl, stripped)", g("static_bytes") + " bytes", "", ""),
    ("make memtrace-boot (musl, stripped; the images')", g("boot_bytes") + " bytes", "<= 163840", ok("boot_bytes", lambda v: v <= 163840)),
    ("--top: CPU of a frame, 16,384 tasks (worst order)", g("top_frame_ms", "{:.2f}") + " ms", "<= 5", ok("top_frame_ms", lambda v: v <= 5)),
    ("--top -d 0.2 in a terminal, live storm: lost events", g("top_lost"), "0", ok("top_lost", lambda v: v == 0)),
    ("--top -d 0.2 in a terminal: CPU per event", g("top_us_per_event", "{:.3f}") + " us", "", ""),
    ("--top -d 0.2 in a terminal: workload speed / daemon", g("top_ratio", "{:.3f}"), "", ""),
    ("--top -d 0.2 batch frames, live storm: lost events", g("top_batch_lost"), "0", ok("top_batch_lost", lambda v: v == 0)),
]
w = max(len(a) for a, *_ in rows)
head = (f"memtrace `make bench`, {time.strftime('%Y-%m-%d')}; kernel {platform.release()}, "
        f"{os.cpu_count()} CPUs ({cpu})\n\n")
lines = [f"| {'figure':{w}} | value | target | |", f"|{'-' * (w + 2)}|---|---|---|"]
lines += [f"| {a:{w}} | {b} | {c} | {d} |" for a, b, c, d in rows]
text = head + "\n".join(lines) + "\n"
open(sys.argv[2], "w").write(text)
print("\n" + text)
PY
for b in "bench/hotpath.py 3 7 --reader-only" "bench/stacks.py 3 5 --memstrack" bench/stackrss.py bench/boot.sh; do echo "== $b"; BENCH_RESULTS=$OUT bash -c "exec ./$b" 2>&1 | tee -a "$LOG" || failed="$failed ${b%% *}"; done  # CPU per event against a bare reader, --stacks, report RSS, boot time: rows appended to $OUT
echo "written to $OUT"
if [ -n "$failed" ]; then
	echo "make bench: failed:$failed (see above)" >&2
	exit 1
fi
