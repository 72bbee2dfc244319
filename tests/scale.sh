#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# scale.sh - big machines: 256 CPUs in a fake tracefs under a small RLIMIT_NOFILE (the soft
# limit raised, or the hard one said), no read() per CPU while nothing is pending, the
# command's own limit given back, and on the real tracefs the pfn map of a 4 TiB machine
# (a fake zoneinfo through the test build's MEMTRACE_TEST_PFN_ROOT): reserved, not resident.
# The fake tracefs needs no root; the rest needs root and a tracefs, and says SKIP when it
# cannot run. Every live test checks that tracefs is left exactly as it was found.
set -u
cd "$(dirname "$0")/.."
MT=$PWD/memtrace
MT_HOOKS=$PWD/build/tests/memtrace-hooks
WL=$PWD/build/tests/workload
FX=$PWD/tests/fixtures/linux-6.18
T=$(mktemp -d /tmp/memtrace-scale.XXXXXX)
INST=memtrace-scale$$
. "$PWD/tests/lib.sh"

cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	exec 9>&- 2>/dev/null
	undo_ours
	rm -rf "$T"
}
trap cleanup EXIT

# fake_tfs DIR N: a top-level tracefs (no instances) of N CPUs, each trace_pipe_raw a FIFO
# nobody writes (poll says nothing, read() says end of file: an idle CPU), and trace_pipe
# one too (nothing pending anywhere)
fake_tfs() {
	local F=$1 c e
	mkdir -p "$F/per_cpu" "$F/events/kmem/mm_page_alloc" "$F/events/kmem/mm_page_free" \
		"$F/events/sched/sched_process_exec"
	cp "$FX/events/header_page" "$F/events/"
	for e in mm_page_alloc mm_page_free; do
		cp "$FX/events/kmem/$e/format" "$F/events/kmem/$e/"
		echo 0 > "$F/events/kmem/$e/enable"
		echo none > "$F/events/kmem/$e/filter"
	done
	echo none > "$F/events/sched/sched_process_exec/filter"
	echo "[local] global mono" > "$F/trace_clock"
	echo 1408 > "$F/buffer_size_kb"; echo 50 > "$F/buffer_percent"; echo 1 > "$F/tracing_on"
	mkfifo "$F/trace_pipe"
	for ((c = 0; c < $2; c++)); do
		mkdir "$F/per_cpu/cpu$c"
		mkfifo "$F/per_cpu/cpu$c/trace_pipe_raw"
		printf 'entries: 0\noverrun: 0\ncommit overrun: 0\n' > "$F/per_cpu/cpu$c/stats"
	done
}

# what memtrace may change in a fake tracefs, as it reads back when put back as found (a
# real tracefs shows "[local] global mono" for local, and "none" for the filter 0)
fake_state() {
	local F=$1 f
	for f in trace_clock buffer_size_kb buffer_percent tracing_on \
		 events/kmem/mm_page_alloc/enable events/kmem/mm_page_free/enable \
		 events/sched/sched_process_exec/filter; do
		echo "$f: $(sed -e 's/^\[local\] global mono$/local/' -e 's/^none$/0/' "$F/$f")"
	done
}

reads() { awk '/^syscr:/ { print $2 }' "/proc/$1/io"; }

# 256 CPUs with a soft limit of 64 open files: memtrace raises it (not beyond what it needs)
# and opens every CPU; with nothing pending anywhere it reads no CPU (main read each of
# them every 100 ms: 5,140 reads in 2 s); a sub-buffer written to CPU 200 is read and
# applied. The fixture's CPU 0 page holds 86 page events (the kernel's own text says so).
fds_soft_test() {
	local F=$T/fake256 before after rc r0 r1 lim n want got
	fake_tfs "$F" 256
	before=$(fake_state "$F")
	( ulimit -S -n 64; exec "$MT" --no-seed -f json "$F" "$T/soft.json" ) 2> "$T/soft.err" &
	MTPID=$!; PIDS+=("$MTPID")
	wait_for 10 grep -qs "tracing in" "$T/soft.err" || { bad "256 CPUs, ulimit -S -n 64: no start: $(cat "$T/soft.err")"; return; }
	lim=$(awk '/^Max open files/ { print $4 }' "/proc/$MTPID/limits")
	check "256 CPUs, ulimit -S -n 64: the soft limit raised to what 256 CPUs need ($lim)" \
		test "$lim" -ge 272 -a "$lim" -lt 1000
	n=$(find "/proc/$MTPID/fd" -lname "$F/per_cpu/*" 2>/dev/null | wc -l)
	check "256 CPUs: all 256 trace_pipe_raw open ($n)" test "$n" = 256
	check "256 CPUs: said nothing of open files" eval '! grep -qi "open files" "$T/soft.err"'
	sleep 0.5
	r0=$(reads "$MTPID"); sleep 2; r1=$(reads "$MTPID")
	check "256 CPUs, nothing pending: $((r1 - r0)) read() calls in 2 s (fewer than one per CPU)" \
		test "$((r1 - r0))" -lt 256
	exec 9> "$F/per_cpu/cpu200/trace_pipe_raw"
	cat "$FX/per_cpu/cpu0/trace_pipe_raw" >&9
	sleep 0.5
	kill -TERM "$MTPID"; wait_exit "$MTPID"; rc=$?
	exec 9>&-
	check "256 CPUs: TERM exits 0 ($rc)" test "$rc" = 0
	want=$(grep '\[000\]' "$FX/trace.txt" | grep -c ' mm_page_\(alloc\|free\): ')
	got=$(json "$T/soft.json" 'd["events"]["processed"]')
	check "256 CPUs: the sub-buffer of CPU 200 applied ($got page events, the kernel's text: $want)" \
		test "$got" = "$want" -a "$want" -gt 0
	check "256 CPUs: every CPU read ($(json "$T/soft.json" 'len(d["cpus_not_read"])') not)" \
		test "$(json "$T/soft.json" 'len(d["cpus_not_read"])')" = 0
	after=$(fake_state "$F")
	check "256 CPUs: the fake tracefs as it was" test "$before" = "$after"
}

# A hard limit of 64: memtrace says so once, traces the CPUs that fit (poll() refuses a
# set larger than the limit), reports the others as not read, and stops cleanly.
fds_hard_test() {
	local F=$T/fakehard rc n lines
	fake_tfs "$F" 256
	( ulimit -n 64; only_stdio; exec "$MT" --no-seed -f json "$F" "$T/hard.json" ) 2> "$T/hard.err" &
	MTPID=$!; PIDS+=("$MTPID")
	wait_for 10 grep -qs "tracing in" "$T/hard.err" || { bad "256 CPUs, ulimit -n 64: no start: $(cat "$T/hard.err")"; return; }
	sleep 1
	check "256 CPUs, ulimit -n 64: still running a second later (poll takes the set)" \
		kill -0 "$MTPID"
	kill -TERM "$MTPID"; wait_exit "$MTPID"; rc=$?
	check "256 CPUs, ulimit -n 64: TERM exits 0 ($rc)" test "$rc" = 0
	check "256 CPUs, ulimit -n 64: the hard limit said ($(grep -c "hard limit is 64" "$T/hard.err") line)" \
		test "$(grep -c "RLIMIT_NOFILE's hard limit is 64: 54 of 256 CPUs traced" "$T/hard.err")" = 1
	lines=$(grep -c "cpu[0-9]" "$T/hard.err")
	check "256 CPUs, ulimit -n 64: the CPUs left out said in one line, not one each ($lines)" \
		test "$lines" = 1 -a "$(grep -c "54 of 256 CPUs traced, cpu54..cpu255 not" "$T/hard.err")" = 1
	check "256 CPUs, ulimit -n 64: the start line says 54 of 256 CPUs" \
		grep -q "tracing in .* (54 of 256 CPUs," "$T/hard.err"
	n=$(json "$T/hard.json" 'len(d["cpus_not_read"])')
	check "256 CPUs, ulimit -n 64: the report names the 202 CPUs not read ($n)" test "$n" = 202
}

# The command of command mode gets back the limit memtrace raised for itself.
command_limit_test() {
	local rc before after
	before=$(tfs_state)
	( ulimit -S -n 12; exec "$MT" --instance "$INST" -o "$T/cmd.txt" -- \
		sh -c 'ulimit -S -n > "$0"' "$T/cmd.limit" ) 2> "$T/cmd.err"
	rc=$?
	check "command mode under ulimit -S -n 12: exits 0 ($rc)" test "$rc" = 0
	check "command mode: the command had its own limit, 12 ($(cat "$T/cmd.limit" 2>/dev/null))" \
		test "$(cat "$T/cmd.limit" 2>/dev/null)" = 12
	after=$(tfs_state)
	check "tracefs identical after command mode under a small limit" test "$before" = "$after"
}

# A hard limit too low for memtrace and one CPU: refused before anything in tracefs is made
# or the command runs, with what it needs (issue 36: it said "no event filter to mark as
# ours" or "pipe: Too many open files" after "1 CPUs traced"); one that holds all but a
# CPU: those that fit are traced, and the start line says how many of how many.
fds_low_test() {
	local n rc before after cpus need
	before=$(tfs_state)
	# a COMMAND: stdio, the signalfd, memtrace's own 6 and the command's 4 pipe ends
	for n in 6 8 10 12 14; do
		rm -f "$T/low.ran"
		( ulimit -n "$n"; only_stdio; exec "$MT" --instance "$INST" -o "$T/low.txt" -- \
			touch "$T/low.ran" ) 2> "$T/low.err"; rc=$?
		check "ulimit -n $n: refused (exit $rc), naming the limit and what is needed, the command not run" \
			eval '[ $rc = 1 ] && [ ! -e "$T/low.ran" ] &&
				grep -q "hard limit is $n open files; memtrace needs at least 15 here" "$T/low.err" &&
				[ "$(grep -c . "$T/low.err")" = 1 ]'
	done
	after=$(tfs_state)
	check "ulimit -n too low: tracefs identical afterwards (no instance made)" test "$before" = "$after"
	cpus=$(ls -d "$TFS"/per_cpu/cpu* | wc -l)
	need=$((14 + cpus))
	if [ "$cpus" -lt 2 ]; then
		skip "ulimit -n between one CPU and all: one CPU here"
		return
	fi
	( ulimit -n $((need - 1)); only_stdio; exec "$MT" --instance "$INST" -f json -o "$T/low.json" -- \
		"$WL" 8 10 ) 2> "$T/low.err"; rc=$?
	check "ulimit -n $((need - 1)) (one CPU short): runs (exit $rc)" test "$rc" = 0
	check "ulimit -n $((need - 1)): the CPU left out said once, and no other error" \
		eval '[ "$(grep -c "$((cpus - 1)) of $cpus CPUs traced, cpu" "$T/low.err")" = 1 ] &&
			! grep -q "Too many\|no event filter\|pipe:" "$T/low.err"'
	check "ulimit -n $((need - 1)): the report names the CPU not read" \
		test "$(json "$T/low.json" 'len(d["cpus_not_read"])')" = 1
	# the least limit of each mode with all CPUs (what SETUP_FD_OWN and run/setup.c's
	# fds_own() stand on): one less is refused or leaves a CPU out, this one traces all
	for m in "daemon:0" "daemon --record:3:2" "COMMAND:4" "--daemon:1" "--stream --all:1"; do
		fds_least "$m" "$cpus"
	done
}

# fds_least "WHAT:MORE[:EACH]" CPUS: memtrace WHAT under the limit of stdio, the signalfd and
# memtrace's own 6, MORE for the mode and EACH per CPU: all CPUs traced, the run whole
fds_least() {
	local what=${1%%:*} rest=${1#*:} own each lim rc
	own=${rest%%:*} each=1
	[ "$rest" != "$own" ] && each=${rest#*:}
	lim=$((10 + own + $2 * each))
	rm -rf "$T/least" "$T/least.rec"
	case $what in
	daemon) set -- timeout -s TERM 1.5 "$MT" --instance "$INST" -o "$T/least" ;;
	"daemon --record") set -- timeout -s TERM 1.5 "$MT" --instance "$INST" -o "$T/least" --record "$T/least.rec" ;;
	COMMAND) set -- "$MT" --instance "$INST" -o "$T/least" -- true ;;
	--daemon) set -- sh -c '"$0" --instance "$1" -o "$2" --daemon --pidfile "$2.pid" && sleep 1 &&
		p=$(cat "$2.pid") && kill "$p" && while kill -0 "$p" 2> /dev/null; do sleep 0.05; done' \
		"$MT" "$INST" "$T/least" ;;
	"--stream --all") set -- timeout -s TERM 1.5 "$MT" --instance "$INST" --stream --all -o "$T/least" ;;
	esac
	( ulimit -n "$lim"; only_stdio; exec "$@" ) > /dev/null 2> "$T/least.err"; rc=$?
	check "$what under ulimit -n $lim: every CPU traced, the run whole (exit $rc$(grep -m1 "CPUs traced\|out of file\|Too many\|cannot\|needs at least" "$T/least.err" | sed 's/^/: /' | cut -c1-200))" \
		eval '{ [ $rc = 0 ] || [ $rc = 124 ]; } && ! grep -q "CPUs traced\|out of file\|Too many\|cannot\|needs at least" "$T/least.err"'
}

# What the idle check stands on, in an instance of ours with buffer_percent 50: a CPU with
# a few events says nothing to poll on its trace_pipe_raw, yet read() gets them (so a CPU
# cannot be skipped on its revents); the instance's trace_pipe says POLLIN while any CPU
# has data, and nothing once all is read.
poll_semantics_test() {
	local before after out
	before=$(tfs_state)
	out=$(python3 - "$TFS/instances/${INST}p" "$WL" <<-'PY'
	import os, select, subprocess, sys, time
	inst, wl = sys.argv[1], sys.argv[2]
	os.mkdir(inst)
	try:
	    def put(rel, v):
	        with open(os.path.join(inst, rel), "w") as f:
	            f.write(v)
	    put("buffer_size_kb", "8192"); put("buffer_percent", "50")
	    put("tracing_on", "0"); put("events/kmem/mm_page_alloc/enable", "1")
	    cpus = sorted(int(d[3:]) for d in os.listdir(inst + "/per_cpu"))
	    raw = [os.open(f"{inst}/per_cpu/cpu{c}/trace_pipe_raw", os.O_RDONLY | os.O_NONBLOCK)
	           for c in cpus]
	    anyfd = os.open(inst + "/trace_pipe", os.O_RDONLY | os.O_NONBLOCK)
	    def revents():
	        p = select.poll()
	        for fd in raw + [anyfd]:
	            p.register(fd, select.POLLIN)
	        r = dict(p.poll(0))
	        return [r.get(fd, 0) & select.POLLIN for fd in raw], r.get(anyfd, 0) & select.POLLIN
	    def drain():
	        n = 0
	        for fd in raw:
	            while True:
	                try:
	                    if not os.read(fd, 65536):
	                        break
	                    n += 1
	                except BlockingIOError:
	                    break
	        return n
	    put("tracing_on", "1")
	    subprocess.run([wl, "1", "0"], check=True)	# 1 MiB: 256 pages, far below 4 MiB
	    put("tracing_on", "0")
	    cpu, anyp = revents()
	    pages = drain()
	    cpu2, any2 = revents()
	    print(f"cpu_pollin={sum(1 for x in cpu if x)} any={1 if anyp else 0} pages={pages} "
	          f"any_after={1 if any2 else 0}")
	    for fd in raw + [anyfd]:
	        os.close(fd)
	finally:
	    put("events/enable", "0")
	    for _ in range(50):
	        try:
	            os.rmdir(inst)
	            break
	        except OSError:
	            time.sleep(0.1)
	PY
	)
	check "poll, buffer_percent 50, a few events: no CPU's fd says POLLIN, read() still gets pages ($out)" \
		eval '[[ "$out" == *"cpu_pollin=0 "* && ! "$out" == *"pages=0 "* ]]'
	check "poll: trace_pipe says POLLIN while any CPU has data, nothing once all is read ($out)" \
		eval '[[ "$out" == *"any=1 "* && "$out" == *"any_after=0"* ]]'
	after=$(tfs_state)
	check "tracefs identical after the poll test" test "$before" = "$after"
}

# A 4 TiB machine (zoneinfo: 1 Gi page frames; cpuinfo: 46 bits physical): the maps
# reserve 64 GiB of address space for what the CPU can address, and commit only what
# the pages used touch: RSS stays that of a small machine, also after 64 MiB of work.
bigmem_test() {
	local P=$T/proc4t rc before after vsz rss map ramk
	before=$(tfs_state)
	mkdir -p "$P"
	cat > "$P/zoneinfo" <<-'EOF'
	Node 0, zone   Normal
	        spanned  1073741824
	  start_pfn:           0
	EOF
	printf 'processor\t: 0\naddress sizes\t: 46 bits physical, 48 bits virtual\n' > "$P/cpuinfo"
	MT_SAVE=$MT; MT=$MT_HOOKS
	MEMTRACE_TEST_PFN_ROOT=$P start_mt -f json -o "$T/big.json"
	local started=$?
	MT=$MT_SAVE
	[ "$started" = 0 ] || { bad "4 TiB: no start: $(cat "$T/err")"; return; }
	"$WL" 64 0
	sleep 0.3
	vsz=$(awk '/^VmSize:/ { print $2 }' "/proc/$MTPID/status")
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$MTPID/status")
	check "4 TiB: the map reserved for 64 Ti page frames (VmSize $vsz KiB)" \
		test "$vsz" -ge $((64 * 1024 * 1024))
	check "4 TiB: resident what the pages used touched (VmRSS $rss KiB, at most 32 MiB)" \
		test "$rss" -le $((32 * 1024))
	check "4 TiB: said nothing of a smaller map" eval '! grep -q "address space" "$T/err"'
	kill -TERM "$MTPID"; wait_exit "$MTPID"; rc=$?
	check "4 TiB: TERM exits 0 ($rc)" test "$rc" = 0
	map=$(json "$T/big.json" 'd["self"]["pfn_map_kib"]')
	# at most one 4 KiB map page per 4 MiB of the memory there really is (RAM/1024)
	ramk=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
	check "4 TiB: the report's resident map ${map} KiB (at most RAM/1024, $ramk KiB)" \
		test -n "$map" -a "${map:-99999999}" -le "$ramk"
	check "4 TiB: no page event beyond the map" \
		test "$(json "$T/big.json" 'd["overflows"]["pfn_out_of_range"]')" = 0
	after=$(tfs_state)
	check "tracefs identical after the 4 TiB map" test "$before" = "$after"
}

# Without the address space for the reach (ulimit -v), the map of the memory there is:
# said once, and tracing goes on. The CPU says 46 bits physical (a fake cpuinfo beside
# this machine's zoneinfo): a reach of 64 GiB of map, whatever this host's CPU says (one
# of 40 bits would need only 1 GiB, which fits).
short_map_test() {
	local rc before after P=$T/proc46
	before=$(tfs_state)
	mkdir -p "$P"
	cp /proc/zoneinfo "$P/zoneinfo"
	printf 'processor\t: 0\naddress sizes\t: 46 bits physical, 48 bits virtual\n' > "$P/cpuinfo"
	( ulimit -v 4000000; MEMTRACE_TEST_PFN_ROOT=$P exec "$MT_HOOKS" --instance "$INST" -f json \
		-o "$T/short.json" ) > /dev/null 2> "$T/short.err" &
	MTPID=$!; PIDS+=("$MTPID")
	wait_for 10 grep -q "tracing in" "$T/short.err" || { bad "ulimit -v: no start: $(cat "$T/short.err")"; return; }
	"$WL" 16 0
	sleep 0.3
	kill -TERM "$MTPID"; wait_exit "$MTPID"; rc=$?
	check "ulimit -v 4000000: TERM exits 0 ($rc)" test "$rc" = 0
	check "ulimit -v 4000000: the smaller map said once" \
		test "$(grep -c "memory added later are counted, not tracked" "$T/short.err")" = 1
	check "ulimit -v 4000000: events applied ($(json "$T/short.json" 'd["events"]["by_kind"]["page_alloc"]'))" \
		test "$(json "$T/short.json" 'd["events"]["by_kind"]["page_alloc"] > 4096')" = True
	after=$(tfs_state)
	check "tracefs identical after the smaller map" test "$before" = "$after"
}

fds_soft_test
fds_hard_test
find_tracefs
if can_trace "live tests"; then
	poll_semantics_test
	command_limit_test
	fds_low_test
	bigmem_test
	short_map_test
fi
summary
[ "$fail" = 0 ]
