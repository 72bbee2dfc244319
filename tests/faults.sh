#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# faults.sh - a crash never leaves the kernel tracing: each fault signal (SEGV, BUS, ABRT,
# FPE, ILL), sent with kill as a real fault arrives, to memtrace in each live mode (the
# daemon, --daemon, a COMMAND, --stream, --top, --exits, --record): its instance is gone
# at once (the milliseconds printed; at most 5 s: under CI's load the kernel's removal took
# over a second twice), nothing else of tracefs changed, the crash is said on stderr and in the
# kernel log, and memtrace dies of the same signal (exit status 128+N; a core dump where
# RLIMIT_CORE allows). A COMMAND goes on, named in the line. A real fault in the code
# (the test build's --top crash hook) the same.
#
# Needs root and a tracefs; SKIP with a reason otherwise.
set -u
cd "$(dirname "$0")/.."
MT=$PWD/memtrace
MT_HOOKS=$PWD/build/tests/memtrace-hooks
T=$(mktemp -d /tmp/memtrace-faults.XXXXXX)
INST=memtrace-ft$$
. "$PWD/tests/lib.sh"

trap cleanup_live EXIT

SIGS="SEGV BUS ABRT FPE ILL"
signum() { kill -l "$1"; }
gone() { [ ! -e "$TFS/instances/$1" ]; }
# gone_ms NAME: waits up to 5 s for the instance to go; prints the milliseconds it took
# (the kernel's removal of an instance waits for RCU grace periods: under make check's
# neighbours in CI, fuzzers and valgrind on every CPU, a second was not always enough)
gone_ms() {
	local t0 i
	t0=$(date +%s%N)
	for i in $(seq 500); do
		gone "$1" && { echo $(( ($(date +%s%N) - t0) / 1000000 )); return 0; }
		sleep 0.01
	done
	echo "over 5000"
	return 1
}
exists() { [ -d "$TFS/instances/$1" ]; }
dead() { ! kill -0 "$1" 2>/dev/null; }

# start NAME ARGS...: memtrace on instance $INST-NAME in the background (stdout, stderr in
# $T/NAME.out, .err), up once its instance exists and the start line was said (or,
# for --top, whose start line is the screen: the instance); PID in MTPID
start() {
	local name=$1 i
	shift
	"$MT" --instance "$INST-$name" "$@" > "$T/$name.out" 2> "$T/$name.err" < /dev/null &
	MTPID=$!
	PIDS+=("$MTPID")
	for i in $(seq 200); do
		if exists "$INST-$name" && { grep -q "tracing in" "$T/$name.err" ||
			grep -q -- --top <<< "$*" || pgrep -P "$MTPID" -x sleep > /dev/null; }; then
			sleep 0.2	# past the setup: in the loop
			return 0
		fi
		kill -0 "$MTPID" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# crash MODE SIG ARGS...: the signal to a running memtrace of that mode, then the checks
crash() {
	local mode=$1 sig=$2 name="$1-$2" before after rc line child= ms
	shift 2
	before=$(tfs_state)
	start "$name" "$@" || { bad "$mode, SIG$sig: memtrace did not start: $(head -3 "$T/$name.err")"; return; }
	if [ "$mode" = command ]; then
		child=$(pgrep -P "$MTPID" -x sleep)
	fi
	kill "-$sig" "$MTPID"
	ms=$(gone_ms "$INST-$name")
	check "$mode, SIG$sig: instance gone ($ms ms after the signal; at most 5 s)" \
		test "${ms% *}" != over
	wait_exit "$MTPID" 5; rc=$?
	check "$mode, SIG$sig: died of the signal (status $rc, want $((128 + $(signum "$sig"))))" \
		test "$rc" = $((128 + $(signum "$sig")))
	after=$(tfs_state)
	check "$mode, SIG$sig: tracefs otherwise as before" test "$before" = "$after"
	line=$(grep "fatal signal SIG$sig (pid $MTPID)" "$T/$name.err")
	check "$mode, SIG$sig: said on stderr: instance removed, no report" \
		grep -q "instance $TFS/instances/$INST-$name removed;.* no report; dying of the signal" <<< "$line"
	check "$mode, SIG$sig: said in the kernel log" kmsg_has "fatal signal SIG$sig (pid $MTPID)"
	if [ "$mode" = command ]; then
		check "command, SIG$sig: the command goes on (pid ${child:-none}), named in the line" \
			eval 'kill -0 "$child" 2>/dev/null && grep -q "the command, pid $child, goes on" <<< "$line"'
		[ -n "$child" ] && kill -TERM "$child" 2>/dev/null
	fi
}

kmsg_has() { dmesg 2>/dev/null | grep -q -F "$1"; }

modes_tests() {
	local s
	for s in $SIGS; do
		crash daemon "$s" -o "$T/log-$s"
		crash command "$s" -o "$T/cmd-$s" -- sleep 60
		crash stream "$s" --stream --all -o "$T/stream-$s.jsonl"
		crash top "$s" --top -d 0.3 -o "$T/top-$s.log"
		crash exits "$s" --exits -o "$T/exits-$s.log"
		crash record "$s" --record "$T/rec-$s" -o "$T/rlog-$s"
	done
}

# --daemon: stderr let go once tracing is live; the kernel log keeps the line
daemon_fork_test() {
	local before after pid
	before=$(tfs_state)
	"$MT" --instance "$INST-fork" --daemon --pidfile "$T/fork.pid" -o "$T/fork.log" \
		2> "$T/fork.err" < /dev/null
	pid=$(cat "$T/fork.pid" 2>/dev/null)
	[ -n "$pid" ] && exists "$INST-fork" || { bad "--daemon: did not start: $(cat "$T/fork.err")"; return; }
	kill -SEGV "$pid"
	ms=$(gone_ms "$INST-fork")
	check "--daemon, SIGSEGV: instance gone ($ms ms after the signal; at most 5 s)" \
		test "${ms% *}" != over
	check "--daemon, SIGSEGV: memtrace gone" wait_for 5 dead "$pid"
	check "--daemon, SIGSEGV: its pidfile removed" test ! -e "$T/fork.pid"
	check "--daemon, SIGSEGV: said in the kernel log (stderr was let go)" \
		kmsg_has "fatal signal SIGSEGV (pid $pid)"
	after=$(tfs_state)
	check "--daemon, SIGSEGV: tracefs otherwise as before" test "$before" = "$after"
}

# A core dump still happens: RLIMIT_CORE unlimited, the wait status says it was dumped
core_test() {
	local res
	mkdir -p "$T/core"
	res=$(cd "$T/core" && python3 - "$MT" "$INST-core" "$TFS" <<'PY'
import os, resource, signal, subprocess, sys, time
mt, inst, tfs = sys.argv[1:4]
p = subprocess.Popen([mt, "--instance", inst, "-o", "core.log"], stderr=subprocess.PIPE,
                     stdin=subprocess.DEVNULL,
                     preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CORE, (-1, -1)))
for _ in range(200):
    if os.path.isdir(os.path.join(tfs, "instances", inst)):
        break
    time.sleep(0.05)
time.sleep(0.5)
os.kill(p.pid, signal.SIGSEGV)
_, st = os.waitpid(p.pid, 0)
print("signal %d core %d gone %d" % (os.WTERMSIG(st) if os.WIFSIGNALED(st) else 0,
      os.WCOREDUMP(st), not os.path.exists(os.path.join(tfs, "instances", inst))))
PY
)
	check "SIGSEGV with RLIMIT_CORE unlimited: dumped core, instance gone ($res)" \
		test "$res" = "signal 11 core 1 gone 1"
	rm -rf "$T/core"
}

# A real fault in memtrace's own code (the test build raises SIGSEGV in --top's view after
# its third frame): the same teardown
real_fault_test() {
	local before after rc
	[ -x "$MT_HOOKS" ] || { skip_live "real fault: $MT_HOOKS not built (make test-programs)"; return; }
	before=$(tfs_state)
	MEMTRACE_TEST_TOP_CRASH_FRAME=3 "$MT_HOOKS" --instance "$INST-real" --top -d 0.1 \
		> "$T/real.out" 2> "$T/real.err" < /dev/null &
	MTPID=$!
	PIDS+=("$MTPID")
	wait_exit "$MTPID" 10; rc=$?
	check "a fault in the view: died of SIGSEGV (status $rc)" test "$rc" = 139
	check "a fault in the view: instance gone" gone "$INST-real"
	check "a fault in the view: said on stderr" grep -q "fatal signal SIGSEGV (pid $MTPID): tracing switched off and instance" "$T/real.err"
	after=$(tfs_state)
	check "a fault in the view: tracefs otherwise as before" test "$before" = "$after"
}

find_tracefs
if can_trace "fault signals"; then
	modes_tests
	daemon_fork_test
	core_test
	real_fault_test
fi
summary
[ "$fail" = 0 ]
