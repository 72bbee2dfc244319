# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# 30-paths.sh - a FIFO never hangs memtrace, and --pidfile touches only its own file
# (issue 21, items 4 and 5): a FIFO as --pidfile (with --daemon, whose child must not
# stay stuck), a FIFO where a tracefs setting should be, a FIFO or a device where a
# trace_pipe_raw should be (a tracefs directory given on the command line), a device node as --pidfile, and a pidfile
# replaced by someone else while memtrace runs.

# p_bounded SECS OUT CMD...: CMD with at most SECS seconds, then TERM, 2 s later KILL
# (the old build ignored TERM there); PRC its status (124: stopped by TERM, 137: killed)
p_bounded() {
	local secs=$1 out=$2
	shift 2
	timeout -k 2 "$secs" "$@" > "$out.out" 2> "$out.err"
	PRC=$?
}

# p_ftfs DIR: a tracefs look-alike (regular files) copied from the real one: the
# settings at the top level (no instances: memtrace traces there), the event formats,
# one CPU whose trace_pipe_raw the caller makes
p_ftfs() {
	local d=$1 f s e n
	mkdir -p "$d/events" "$d/options" "$d/per_cpu/cpu0" || return 1
	: > "$d/trace_pipe"	# never read the real one: it waits for events
	for f in tracing_on trace_clock buffer_size_kb buffer_percent set_event \
		 set_event_pid current_tracer options/event-fork; do
		cat "$TFS/$f" > "$d/$f" 2>/dev/null || : > "$d/$f"
	done
	echo 1 > "$d/tracing_on"
	cat "$TFS/events/header_page" > "$d/events/header_page"
	cat "$TFS/events/header_event" > "$d/events/header_event"
	echo 0 > "$d/events/enable"
	for s in kmem sched task; do
		for e in "$TFS/events/$s"/*/; do
			e=${e%/}
			n=${e##*/}
			[ -e "$e/format" ] || continue
			mkdir -p "$d/events/$s/$n"
			for f in format id enable filter trigger; do
				[ -e "$e/$f" ] && cat "$e/$f" > "$d/events/$s/$n/$f" 2>/dev/null
			done
		done
		echo 0 > "$d/events/$s/enable"
	done
	echo 2048 > "$d/per_cpu/cpu0/buffer_size_kb"
	: > "$d/per_cpu/cpu0/stats"
}

if can_trace "30-paths"; then
	P_FT=$T/ftfs

	# ---- item 4: a FIFO where a tracefs setting is: open() for writing waited forever
	p_ftfs "$P_FT" || bad "fake tracefs: not made"
	: > "$P_FT/per_cpu/cpu0/trace_pipe_raw"
	rm -f "$P_FT/tracing_on"
	mkfifo "$P_FT/tracing_on"
	p_bounded 8 "$T/p-set" "$MT" -n 0 -o "$T/p-set.log" "$P_FT"
	check "a FIFO as tracefs's tracing_on: memtrace ends by itself (no hang, no TERM needed)" \
		test "$PRC" != 124 -a "$PRC" != 137
	check "a FIFO as tracefs's tracing_on: refused (exit 1, the file named)" \
		eval 'test "$PRC" = 1 && grep -q "tracing_on" "$T/p-set.err"'
	check "a FIFO as tracefs's tracing_on: still a FIFO" test -p "$P_FT/tracing_on"

	# ---- item 4: a FIFO where a trace_pipe_raw is: read without ever waiting on it (the
	# fake CPU of tests/scale.sh); a device there: refused before it is opened
	rm -f "$P_FT/tracing_on" "$P_FT/per_cpu/cpu0/trace_pipe_raw"
	echo 1 > "$P_FT/tracing_on"
	mkfifo "$P_FT/per_cpu/cpu0/trace_pipe_raw"
	"$MT" -n 0 -o "$T/p-raw.log" "$P_FT" > "$T/p-raw.out" 2> "$T/p-raw.err" &
	p_pid=$!
	PIDS+=("$p_pid")
	if wait_for 10 grep -q "tracing in" "$T/p-raw.err"; then
		kill -TERM "$p_pid"
		wait_exit "$p_pid" 5
		check "a FIFO as trace_pipe_raw: never waited on, TERM ends memtrace (exit 0)" test $? = 0
	else
		bad "a FIFO as trace_pipe_raw: no start: $(head -3 "$T/p-raw.err")"
	fi
	check "a FIFO as trace_pipe_raw: the fake tracefs's tracing_on as found" \
		test "$(cat "$P_FT/tracing_on")" = 1
	rm -f "$P_FT/per_cpu/cpu0/trace_pipe_raw"
	mknod "$P_FT/per_cpu/cpu0/trace_pipe_raw" c 1 5	# what /dev/zero is
	p_bounded 5 "$T/p-dev" "$MT" -n 0 -o "$T/p-dev.log" "$P_FT"
	check "a device as trace_pipe_raw: refused unopened, memtrace ends by itself (exit 1, named; was: read as a CPU until TERM)" \
		eval 'test "$PRC" = 1 && grep -q "trace_pipe_raw: not a file" "$T/p-dev.err"'
	check "a device as trace_pipe_raw: the fake tracefs's tracing_on as found" \
		test "$(cat "$P_FT/tracing_on")" = 1
	rm -f "$P_FT/per_cpu/cpu0/trace_pipe_raw"

	# ---- item 4: --pidfile FIFO with --daemon: the child waited in open() for good
	mkfifo "$T/pid.fifo"
	p_bounded 8 "$T/p-fifo" "$MT" --daemon --pidfile "$T/pid.fifo" --instance "$INST-pf" \
		-n 0 -o "$T/p-fifo.log"
	check "--daemon --pidfile FIFO: refused at once (exit 1, the pidfile named)" \
		eval 'test "$PRC" = 1 && grep -q -- "--pidfile" "$T/p-fifo.err"'
	# a child still stuck in open(): a reader lets it write its pid, which stops it
	p_pid=$(timeout 2 cat "$T/pid.fifo" 2>/dev/null | head -1)
	if [ -n "$p_pid" ] && kill -0 "$p_pid" 2>/dev/null; then
		bad "--daemon --pidfile FIFO: the child (pid $p_pid) was stuck in open()"
		kill -TERM "$p_pid"
		wait_for 5 eval '! kill -0 '"$p_pid"' 2>/dev/null' || kill -KILL "$p_pid"
	else
		ok "--daemon --pidfile FIFO: no child left waiting"
	fi
	check "--daemon --pidfile FIFO: still a FIFO" test -p "$T/pid.fifo"
	check "--daemon --pidfile FIFO: no instance left" test ! -d "$TFS/instances/$INST-pf"

	# ---- item 5: --pidfile on a device node: never written, never deleted
	mknod "$T/null" c 1 3
	p_bounded 8 "$T/p-dev" "$MT" --daemon --pidfile "$T/null" --instance "$INST-pd" \
		-n 0 -o "$T/p-dev.log"
	check "--daemon --pidfile DEVICE: refused (exit 1, not a regular file)" \
		eval 'test "$PRC" = 1 && grep -q "not a regular file" "$T/p-dev.err"'
	# the old build started: stop the daemon it left (its pid was written to nowhere)
	p_pid=$(sed -n 's/.*pid \([0-9]*\), log.*/\1/p' "$T/p-dev.err" | head -1)
	if [ -n "$p_pid" ] && kill -0 "$p_pid" 2>/dev/null; then
		kill -TERM "$p_pid"
		wait_for 10 eval '! kill -0 '"$p_pid"' 2>/dev/null' || kill -KILL "$p_pid"
	fi
	check "--daemon --pidfile DEVICE: the device node is still there after memtrace's exit" \
		test -c "$T/null"

	# ---- item 5: a pidfile replaced under a running daemon is someone else's: kept
	p_bounded 15 "$T/p-own" "$MT" --daemon --pidfile "$T/mt.pid" --instance "$INST-po" \
		-n 0 -o "$T/p-own.log"
	p_pid=$(cat "$T/mt.pid" 2>/dev/null)
	if [ "$PRC" != 0 ] || [ -z "$p_pid" ]; then
		bad "--daemon --pidfile FILE: no start ($PRC): $(cat "$T/p-own.err")"
	else
		echo "$p_pid" > "$T/other.pid"	# same content, another file (inode)
		mv "$T/other.pid" "$T/mt.pid"
		kill -TERM "$p_pid"
		wait_for 10 eval '! kill -0 '"$p_pid"' 2>/dev/null' || { kill -KILL "$p_pid"; bad "daemon $p_pid: no exit after TERM"; }
		check "--pidfile replaced by another file while running: that file is kept at exit" \
			test -f "$T/mt.pid"
		# and the pidfile it made itself is removed, as always
		p_bounded 15 "$T/p-own2" "$MT" --daemon --pidfile "$T/mt2.pid" --instance "$INST-po" \
			-n 0 -o "$T/p-own2.log"
		p_pid=$(cat "$T/mt2.pid" 2>/dev/null)
		if [ -n "$p_pid" ]; then
			kill -TERM "$p_pid"
			wait_for 10 eval '! kill -0 '"$p_pid"' 2>/dev/null' || kill -KILL "$p_pid"
		fi
		check "--pidfile: its own file is removed at exit" test -n "$p_pid" -a ! -e "$T/mt2.pid"
	fi
	check "30-paths: no instance of ours left" \
		eval '! ls "$TFS/instances" | grep -q "^$INST-p"'
fi
