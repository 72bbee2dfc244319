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
