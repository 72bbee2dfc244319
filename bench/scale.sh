#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# scale.sh [MB] - the cost of an event as the CPU count grows (issue 17, scale item 4).
#
# Records a real allocation storm (build/tests/workload on every CPU, MB MiB each, default 1024,
# in rounds of 128: about 1 million page events; a fixed amount of work, not of time, so
# that a loaded machine records the same storm, only slower) with `memtrace --record`,
# then deals its sub-buffers round-robin to N per_cpu/cpuK files,
# N = 2, 8, 64, 256 (each original CPU's pages, in their order, to its own share of the
# N: every file stays in time order; events/, memtrace.seed and memtrace.meta are kept,
# the cpu_lost lines rewritten for the N CPUs, max_pfn set to the memory of the machine:
# both binaries map the same). Prints, per N, for the binary built from
# BEFORE (default 133354a, main before issue 39's work; 947e5fb: before the
# heap merge; BEFORE=none skips it) and for this tree, the runs of both interleaved:
#   replay: `memtrace --replay` pinned to one CPU: whole process CPU time / events, best and
#           median of SCALE_ROUNDS rounds (default 9; each round runs every count and binary
#           once), and instructions / events (callgrind: steady on a loaded machine); then
#           the largest count's cost per event over the smallest's: the median of each
#           round's own ratio (and its quartiles), the ratios of the best and of the medians,
#           and of the instructions;
#   apart:  build/bench/turns: the kernel's cost of the N files alone (open, map with
#           MAP_POPULATE, unmap, close), and the smallest deal's first file walked in order
#           and in turns over as many parts as the largest count: the same bytes both ways;
#   live:   build/bench/mergelive, the reader in live mode over the same files, woken as the
#           poll loop would be (see there): CPU time / events, best of 5, reads / events.
# Root for the recording (its own instance); prints figures, asserts nothing. SCALE_KEEP=1
# keeps the recordings (the directory is printed), SCALE_FROM=DIR measures those kept in DIR
# instead of recording again, SCALE_CPUS="2 256" picks the counts, SCALE_PAGES=read reads
# every count's files back from the disk first (below).
set -eu -o pipefail
cd "$(dirname "$0")/.."
MB=${1:-1024}
BEFORE=${BEFORE-133354a}
NS=${SCALE_CPUS:-2 8 64 256}
ROUNDS=${SCALE_ROUNDS:-9}
make -s memtrace build/tests/workload build/bench/rusage build/bench/mergelive build/bench/turns
D=$(mktemp -d /tmp/memtrace-scale.XXXXXX)
pid=
cleanup() {
	[ -n "$pid" ] && kill -TERM "$pid" 2> /dev/null && wait "$pid" 2> /dev/null
	if [ -n "${SCALE_KEEP:-}" ]; then echo "kept: $D"; else rm -rf "$D"; fi
}
trap cleanup EXIT

# the binaries: this tree's, and BEFORE's built apart (its own whole tree)
bins=(after:./memtrace)
lives=(after:./build/bench/mergelive)
if [ "$BEFORE" != none ]; then
	mkdir "$D/before"
	git archive "$BEFORE" | tar -x -C "$D/before"
	cp bench/mergelive.c "$D/before/bench/"
	make -s -C "$D/before" NO_LIBTRACEFS=1 memtrace > /dev/null
	# the live driver against BEFORE's reader (its objects where BEFORE's Makefile put them:
	# build/ and its folders, or the top; a reader without reader_run_idle() sweeps only)
	(cd "$D/before" && mkdir -p build/bench &&
		sweep=$(grep -qs reader_run_idle kernel/reader.h reader.h || echo -DMERGELIVE_SWEEP_ONLY) &&
		find . -name '*.o' ! -name memtrace.o -print0 | xargs -0 \
		cc -std=gnu11 -O2 -g -D_GNU_SOURCE ${sweep:+"$sweep"} -I. -o build/bench/mergelive bench/mergelive.c)
	bins=(before:"$D/before/memtrace" "${bins[@]}")
	lives=(before:"$D/before/build/bench/mergelive" "${lives[@]}")
fi

if [ -n "${SCALE_FROM:-}" ]; then
	# the dealt recordings of an earlier SCALE_KEEP=1 run, copied: each count's files then
	# sit in the page cache as just written, as a fresh deal's do. A file read back after
	# its pages were dropped sits in single pages, not in the larger folios of a write,
	# and its mapping costs more: kept files of 256 CPUs, read back so, cost 3 to 5 ms more to
	# map and unmap than a copy of them (build/bench/turns files)
	for n in $NS; do
		if [ -d "$SCALE_FROM/r$n" ]; then cp -r "$SCALE_FROM/r$n" "$D/r$n"; fi
	done
else
	# the storm, recorded
	./memtrace --instance "memtrace-scale$$" --record "$D/rec" -o "$D/live.json" -f json \
		2> "$D/err" &
	pid=$!
	for _ in $(seq 100); do grep -q "tracing in" "$D/err" && break; sleep 0.05; done
	grep -q "tracing in" "$D/err" || { cat "$D/err"; exit 1; }
	cpus=$(nproc)
	storm() {	# storm CPU: MB MiB mapped, touched and unmapped on that CPU, 128 at a time
		local left=$MB
		while [ "$left" -gt 0 ]; do
			taskset -c "$1" build/tests/workload $((left < 128 ? left : 128)) 0
			left=$((left - 128))
		done
	}
	spids=()
	for c in $(seq 0 $((cpus - 1))); do storm "$c" & spids+=($!); done
	wait "${spids[@]}"
	sleep 0.3
	kill -TERM "$pid"; wait "$pid"; pid=

	# the recording dealt to N CPUs
	python3 - "$D/rec" "$D" $NS <<'PY'
import os, re, shutil, sys
src, out, ns = sys.argv[1], sys.argv[2], [int(n) for n in sys.argv[3:]]
hp = open(os.path.join(src, "events/header_page")).read()
data = re.search(r"field: char data;\s*offset:(\d+);\s*size:(\d+);", hp)
subbuf = int(data.group(1)) + int(data.group(2))
orig = sorted(int(d[3:]) for d in os.listdir(os.path.join(src, "per_cpu")) if d.startswith("cpu"))
pages = {}
for c in orig:
    raw = open(os.path.join(src, f"per_cpu/cpu{c}/trace_pipe_raw"), "rb").read()
    pages[c] = [raw[i:i + subbuf] for i in range(0, len(raw), subbuf)]
meta = open(os.path.join(src, "memtrace.meta")).read().splitlines()
lost = {int(l.split()[1]): l.split()[2] for l in meta if l.startswith("cpu_lost ")}
for n in ns:
    if n < len(orig):
        continue
    dst = os.path.join(out, f"r{n}")
    shutil.copytree(os.path.join(src, "events"), os.path.join(dst, "events"))
    for f in ("memtrace.seed", "memtrace.kallsyms"):
        if os.path.exists(os.path.join(src, f)):
            shutil.copy(os.path.join(src, f), dst)
    files = [[] for _ in range(n)]
    for ci, c in enumerate(orig):
        mine = list(range(ci, n, len(orig)))	# this CPU's share of the N
        for j, p in enumerate(pages[c]):
            files[mine[j % len(mine)]].append(p)
    for k in range(n):
        os.makedirs(os.path.join(dst, f"per_cpu/cpu{k}"))
        with open(os.path.join(dst, f"per_cpu/cpu{k}/trace_pipe_raw"), "wb") as f:
            f.write(b"".join(files[k]))
    with open(os.path.join(dst, "memtrace.meta"), "w") as f:
        for l in meta:
            if l.startswith("max_pfn ") and len(l.split()) == 3:
                # the map of the memory there was (BEFORE's map, and valgrind's room)
                l = "max_pfn " + l.split()[2]
            if not l.startswith("cpu_lost "):
                f.write(l + "\n")
        for k in range(n):
            c = orig[k % len(orig)]
            f.write(f"cpu_lost {k} {lost.get(c, '0') if k < len(orig) else '0'}\n")
print(f"recording: {sum(len(p) for p in pages.values())} sub-buffers of {subbuf} bytes on "
      f"{len(orig)} CPUs, dealt to {' '.join(map(str, ns))} CPUs")
PY
fi

# SCALE_PAGES=read: each count's files written out, dropped from the page cache and read back
# (cat), as a replay after a reboot, or of a recording copied from another disk, finds them:
# every count in the same state. As written (the default), a deal's files sit in the folios
# their writes made, a 2-CPU deal's larger than a 256-CPU deal's, and a page's first touch
# through a mapping costs this VM's kernel more in a small one (docs/performance.md, Scale)
if [ "${SCALE_PAGES:-written}" = read ]; then
	for n in $NS; do
		[ -d "$D/r$n" ] || continue
		python3 - "$D/r$n" <<'PY'
import os, sys
for root, _, files in os.walk(sys.argv[1]):
    for f in files:
        fd = os.open(os.path.join(root, f), os.O_RDONLY)
        os.fsync(fd)    # dirty pages are not dropped
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
PY
		find "$D/r$n" -type f -exec cat {} + > /dev/null
	done
	echo "the recordings' pages dropped and read back (SCALE_PAGES=read)"
fi

json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

best_of() {	# best_of VAR VALUE: VAR = min(VAR, VALUE)
	if [ -z "${!1}" ] || awk -v a="$2" -v b="${!1}" 'BEGIN { exit !(a < b) }'; then
		printf -v "$1" '%s' "$2"
	fi
}

# replay: whole process CPU time per event over ROUNDS rounds, each round every CPU count and
# binary once (interleaved: a ratio is taken within the same rounds), one CPU; best and median;
# and instructions per event (callgrind: the same on a loaded machine)
echo
echo "replay (memtrace --replay, one CPU): ns/event = whole process CPU time / events, best and"
echo "median of $ROUNDS rounds (CPU counts and binaries interleaved); Ir/event = instructions / events"
echo "(callgrind)"
: > "$D/replay.times"
for k in $(seq "$ROUNDS"); do
	for n in $NS; do
		[ -d "$D/r$n" ] || continue
		for b in "${bins[@]}"; do
			taskset -c 0 build/bench/rusage "$D/ru" "${b#*:}" --replay "$D/r$n" -f json \
				> "$D/out.json"
			echo "$k ${b%%:*} $n $(awk '{print $4}' "$D/ru")" >> "$D/replay.times"
		done
	done
done
ev=$(json "$D/out.json" 'd["events"]["processed"]')
ooo=$(json "$D/out.json" 'd["events"]["out_of_order"]')
: > "$D/replay.ir"
for n in $NS; do
	[ -d "$D/r$n" ] || continue
	for b in "${bins[@]}"; do
		valgrind --tool=callgrind --callgrind-out-file="$D/cg.out" "${b#*:}" \
			--replay "$D/r$n" -f json > /dev/null 2> /dev/null
		echo "${b%%:*} $n $(sed -n 's/^summary: //p' "$D/cg.out")" >> "$D/replay.ir"
	done
done
python3 - "$D/replay.times" "$D/replay.ir" "$ev" "$ooo" "${bins[@]%%:*}" <<'PY'
import statistics, sys
times, irs, ev, ooo, names = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5:]
t, ir, ns, rounds = {}, {}, [], {}
for line in open(times):
    k, b, n, c = line.split()
    t.setdefault((b, int(n)), []).append(float(c) * 1e9 / ev)
    rounds.setdefault((b, int(k)), {})[int(n)] = float(c)
    if int(n) not in ns:
        ns.append(int(n))
for line in open(irs):
    b, n, i = line.split()
    ir[(b, int(n))] = int(i) / ev
print("%-6s" % "" + "".join(" %-27s" % b for b in names))
print("%-6s" % "cpus" + (" %7s %9s %9s" % ("ns best", "ns median", "Ir/event")) * len(names)
      + " %10s %13s" % ("events", "out_of_order"))
for n in ns:
    print("%-6d" % n + "".join(" %7.1f %9.1f %9.0f" % (min(t[b, n]), statistics.median(t[b, n]),
                                                     ir[b, n]) for b in names)
          + " %10d %13s" % (ev, ooo))
lo, hi = ns[0], ns[-1]
if hi != lo:
    print(f"\nreplay cost per event, {hi} CPUs / {lo} CPUs (this run): each round's own ratio, its")
    print("median and quartiles (the steadiest on a shared machine); the ratio of the best and of")
    print("the medians above; callgrind's instructions")
    for b in names:
        own = sorted(r[hi] / r[lo] for (x, _), r in rounds.items() if x == b)
        q = statistics.quantiles(own, n=4) if len(own) > 1 else own * 3
        print(f"  {b}: {statistics.median(own):.3f} (quartiles {q[0]:.3f} to {q[2]:.3f}); "
              f"best {min(t[b, hi]) / min(t[b, lo]):.3f}, "
              f"medians {statistics.median(t[b, hi]) / statistics.median(t[b, lo]):.3f}; "
              f"instructions {ir[b, hi] / ir[b, lo]:.3f}")
PY

# what the files cost apart from memtrace: the kernel's for the N files, and the pages' turns
# among N places of one file (build/bench/turns; the same bytes at every count)
# shellcheck disable=SC2086 # the counts, a word each
set -- $NS
small=$1
for n in $NS; do large=$n; done
if [ -d "$D/r$small" ]; then
	echo
	echo "apart from memtrace (build/bench/turns, one CPU, best and median of 9, ms): the files"
	echo "opened, mapped (MAP_POPULATE), unmapped and closed; then the $small-CPU deal's cpu0 file"
	echo "walked (every word) in order, and its pages in turns over $large parts of it"
	for n in $NS; do
		if [ -d "$D/r$n" ]; then taskset -c 0 build/bench/turns files "$D/r$n" "$n"; fi
	done
	taskset -c 0 build/bench/turns walk "$D/r$small/per_cpu/cpu0/trace_pipe_raw" 1 "$large"
fi

# live: the reader in live mode, driven like the poll loop, best of 5 (interleaved)
echo
echo "live (build/bench/mergelive: the reader in live mode over the same files, poll wakeups at"
echo "half a 2 MiB buffer or 100 ms, each read() a real one): ns/event = CPU time / events,"
echo "best of 5; rd/event = read() calls / events"
printf "%-6s" cpus; for b in "${lives[@]}"; do printf " %18s" "${b%%:*} ns  rd"; done; echo
for n in $NS; do
	[ -d "$D/r$n" ] || continue
	declare -A best=() reads=()
	for _ in 1 2 3 4 5; do
		for b in "${lives[@]}"; do
			read -r ns rd < <(taskset -c 0 "${b#*:}" "$D/r$n" | awk '{print $2, $4}')
			v=${best[${b%%:*}]:-}
			best_of v "$ns"
			best[${b%%:*}]=$v
			reads[${b%%:*}]=$rd
		done
	done
	printf "%-6s" "$n"
	for b in "${lives[@]}"; do printf " %8s %9s" "${best[${b%%:*}]}" "${reads[${b%%:*}]}"; done
	echo
	unset best reads
done
