# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# lib.sh - what the shell test suites share (sourced, after the suite has set T, its
# temporary directory, and INST, the prefix of its tracefs instances): the pass/fail
# counters and checks, JSON queries, finding tracefs and its state, and undoing what
# a suite left behind (its own instances and mounts only).

pass=0 fail=0 skip=0
PIDS=() MOUNTS=()

ok() { pass=$((pass + 1)); echo "ok   - $*"; }
bad() { fail=$((fail + 1)); echo "FAIL - $*"; }
skip() { skip=$((skip + 1)); echo "SKIP: $*"; }
# skip_live WHY: a suite's live part that cannot run (no root, no tracefs, a binary or tool
# it needs missing): a SKIP, but a failure under MEMTRACE_NO_SKIP=1, which .ci/run sets where
# it runs as root with a tracefs mounted and has installed every tool: there a live part
# that does not run is broken, and must not pass as skipped
skip_live() {
	if [ "${MEMTRACE_NO_SKIP:-}" = 1 ]; then
		bad "$* (skipped under MEMTRACE_NO_SKIP=1: root and a tracefs are here, the live part must run)"
	else
		skip "$@"
	fi
}
# the suite's last line: make check (tests/check.sh) adds these up
summary() { echo "$pass passed, $fail failed, $skip skipped"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }

# wait_for SECONDS CMD...: poll until CMD succeeds (a loaded machine is slow: wait for
# what a check needs instead of sleeping a fixed time). CMD's words are expanded once,
# by the caller: what must be looked at again on each try goes in a function (no_proc).
wait_for() {
	local n=$(( $1 * 20 )) i; shift
	for ((i = 0; i < n; i++)); do "$@" && return 0; sleep 0.05; done
	return 1
}
no_proc() { [ -z "$(pgrep "$@")" ]; }	# no_proc PGREP-ARGS...: no such process

# on_cpus JOBS FUNC ITEM...: FUNC ITEM for each ITEM in the background, at most JOBS at
# once, until all are done: for runs that keep one CPU busy each (valgrind, libFuzzer).
on_cpus() {
	local jobs=$1 fn=$2 running=0 it
	shift 2
	for it in "$@"; do
		"$fn" "$it" &
		running=$((running + 1))
		if [ "$running" -ge "$jobs" ]; then
			wait -n
			running=$((running - 1))
		fi
	done
	wait
}

# can_trace WHAT: whether live tracing can run here (root, a tracefs with instances,
# kmem:mm_page_alloc); if not, SKIP "WHAT: the reason" (skip_live) and fail
can_trace() {
	if [ "$(id -u)" != 0 ]; then
		skip_live "$1: need root"
	elif [ -z "${TFS:-}" ] || [ ! -d "$TFS/instances" ]; then
		skip_live "$1: no tracefs with instances on this machine"
	elif [ ! -e "$TFS/events/kmem/mm_page_alloc" ]; then
		skip_live "$1: kernel without kmem:mm_page_alloc"
	else
		return 0
	fi
	return 1
}

# wait_exit PID [SECONDS]: wait for a child up to SECONDS (10), then KILL it and count
# a failure; return its exit status
wait_exit() {
	local i
	for ((i = 0; i < ${2:-10} * 10; i++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$1" 2>/dev/null && { bad "pid $1 still running after ${2:-10} s: killed"; kill -KILL "$1"; }
	wait "$1" 2>/dev/null
}

# start_bg STDOUT STDERR SECONDS CMD...: CMD in the background (BGPID, in PIDS), its output
# in the two files. Fails if it has not said "tracing in" on STDERR within SECONDS or has
# exited.
start_bg() {
	local out=$1 err=$2 n=$(($3 * 20)) i
	shift 3
	# emptied here, before the start: the background job's own redirection may come after the
	# first look below, which would then read the last run's "tracing in" (seen under load,
	# and in hostile.sh's i_start on an idle machine)
	: > "$out"
	: > "$err"
	"$@" > "$out" 2> "$err" &
	BGPID=$!
	PIDS+=("$BGPID")
	for ((i = 0; i < n; i++)); do
		grep -q "tracing in" "$err" 2>/dev/null && return 0
		kill -0 "$BGPID" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# start_mt [ARGS]: memtrace in the background on instance $INST, under $MT_WRAP if set
# (a command line, word-split); MTPID, stdout in $T/stdout, stderr in $T/err. Fails if
# it has not said "tracing in" within 5 s or has exited.
start_mt() {
	local rc=0
	# shellcheck disable=SC2086
	start_bg "$T/stdout" "$T/err" 5 ${MT_WRAP:-} "$MT" --instance "$INST" "$@" || rc=$?
	MTPID=$BGPID
	return "$rc"
}

# only_stdio: close every descriptor but 0, 1 and 2 in this shell (a subshell, before its
# ulimit -n and the exec of memtrace: listing them takes a descriptor, which a limit full of
# inherited ones has no room for): an inherited one (make's jobserver, time -v's output, a
# terminal multiplexer's) would take room under the limit that the test did not count
only_stdio() {
	local f n
	for f in /proc/$BASHPID/fd/*; do
		n=${f##*/}
		[ "$n" -gt 2 ] 2> /dev/null && eval "exec $n>&-"
	done
	return 0
}

json() {	# json FILE EXPR: evaluate a python expression on the parsed JSON (d)
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null
}

find_tracefs() {	# TFS: the tracefs mount point, mounted here (and unmounted at exit) if needed
	TFS=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
	if [ -z "$TFS" ] && [ "$(id -u)" = 0 ]; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null && TFS=/sys/kernel/tracing &&
			MOUNTS+=("$TFS")
	fi
}

# Everything memtrace could change, top level and our instances
tfs_state() {
	local f
	ls "$TFS/instances" 2>/dev/null | grep "^$INST" | sed 's/^/instance /'
	for f in tracing_on trace_clock buffer_size_kb buffer_percent set_event current_tracer \
		 events/kmem/mm_page_alloc/enable events/kmem/mm_page_alloc/filter \
		 events/kmem/mm_page_alloc/trigger \
		 events/kmem/mm_page_free/enable events/kmem/mm_page_free/filter \
		 events/task/task_rename/enable events/sched/sched_process_fork/enable; do
		echo "$f: $(cat "$TFS/$f" 2>/dev/null)"
	done
}

# A test that failed may leave our own instances and mounts behind: remove them (only ours).
undo_ours() {
	local d i
	for d in "${TFS:-/nonexistent}"/instances/"$INST"*; do
		[ -d "$d" ] || continue
		echo 0 > "$d/events/enable" 2>/dev/null
		rmdir "$d" 2>/dev/null
	done
	for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do umount "${MOUNTS[i]}" 2>/dev/null; done
}

# a live suite's EXIT trap (trap cleanup_live EXIT): its processes killed, what it left in
# tracefs removed, its temporary directory $T removed
cleanup_live() {
	local p
	for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	undo_ours
	rm -rf "$T"
}
