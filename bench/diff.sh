#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# diff.sh [N...] - memtrace --diff on two made-up JSON reports of N distinct process names
# each (default 10000 40000 300000): wall time, CPU time and peak RSS of the comparison.
#
# Each report (as -f json -n 0 --by process --stacks writes one) has N processes (one name
# in ten differs between the two: gone in the old, new in the new), N/10 modules (one in ten
# renamed the same way, every one grown by a page, so that each has its stacks compared),
# each module with 3 stacks, and one module "big" with N/10 distinct stacks of 8 frames.
# Timed through build/bench/rusage (wait4's ru_maxrss of --diff alone); best of ROUNDS
# (default 1) for wall time; MEMTRACE=BINARY to time another build. No root needed; prints
# figures only.
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-1}
MT=${MEMTRACE:-./memtrace}
[ $# -gt 0 ] || set -- 10000 40000 300000
make -s memtrace build/bench/rusage
D=$(mktemp -d /tmp/memtrace-diffbench.XXXXXX)
trap 'rm -rf "$D"' EXIT

gen() {	# gen N SIDE(0 old, 1 new) FILE
	python3 - "$@" <<'EOF'
import sys
n, new, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
def name(kind, i):
    # one in ten is only in one run: "gone" in the old, "new" in the new
    side = ("new" if new else "old") if i % 10 == 9 else "both"
    return f"{kind}-{side}-{i:07d}"
def frames(mod, i, depth):
    return ",".join('{"symbol":"fn_%s_%d_%d","offset":"0x%x","module":"%s"}'
                    % (mod, i, k, 16 * k, mod if k == 0 else "") for k in range(depth))
with open(path, "w") as f:
    f.write('{"memtrace_version":"0.1.0","trigger":"replay","mode":"replay","uptime_s":10.0,'
            '"first_event_s":1.0,"last_event_s":9.0,"page_size":4096,"lost_events":0,'
            '"system_peak":{"pages":%d,"kib":0},"view":"process",' % (10 * n + new))
    f.write('"processes_with_pages":%d,"processes":[' % n)
    f.write(",\n".join('{"pid":%d,"ppid":1,"comm":"%s","cmdline":"/usr/bin/%s --opt",'
                       '"threads":1,"peak_pages":%d,"peak_kib":0}'
                       % (i + 2, name("proc", i), name("proc", i), 5 + i % 97 + new)
                       for i in range(n)))
    mods = []
    for i in range(n // 10):
        m = name("mod", i)
        st = ",".join('{"peak_pages":%d,"frames":[%s]}' % (1 + s + new, frames(m, s, 4))
                      for s in range(3))
        mods.append('{"name":"%s","peak_pages":%d,"stacks":[%s]}' % (m, 6 + 3 * new, st))
    st = ",".join('{"peak_pages":%d,"frames":[%s]}' % (1 + new * (s % 2), frames("big", s, 8))
                  for s in range(n // 10))
    mods.append('{"name":"big","peak_pages":%d,"stacks":[%s]}' % (n, st))
    f.write('],"modules_total":%d,"modules":[%s]}\n' % (len(mods), ",\n".join(mods)))
EOF
}

echo "memtrace --diff OLD NEW -f json -n 0 (output to /dev/null), $(nproc) CPUs, $(uname -r)"
printf '%8s %10s %10s %10s %12s %6s\n' NAMES MB_EACH WALL_S CPU_S MAXRSS_KIB EXIT
for n in "$@"; do
	gen "$n" 0 "$D/old.json"
	gen "$n" 1 "$D/new.json"
	mb=$(du -m "$D/old.json" | cut -f1)
	best=
	for ((i = 0; i < ROUNDS; i++)); do
		t0=$(date +%s%N)
		build/bench/rusage "$D/ru" "$MT" --diff "$D/old.json" "$D/new.json" -f json -n 0 \
			>/dev/null || true
		t1=$(date +%s%N)
		ns=$((t1 - t0))
		if [ -z "$best" ] || [ "$ns" -lt "$best" ]; then best=$ns; cp "$D/ru" "$D/ru.best"; fi
	done
	read -r _ rss _ cpu _ st <"$D/ru.best"
	awk -v n="$n" -v mb="$mb" -v ns="$best" -v cpu="$cpu" -v rss="$rss" -v st="$st" \
		'BEGIN { printf "%8d %10d %10.2f %10.2f %12d %6d\n", n, mb, ns / 1e9, cpu, rss, st
			 printf "RESULT diff_%d_names_s %.2f\nRESULT diff_%d_names_maxrss_kib %d\n", n, ns / 1e9, n, rss }'
done
