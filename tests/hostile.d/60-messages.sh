# shellcheck shell=bash
# 60-messages.sh (issue 21, items 11 and 12) - out of file descriptors is said as such (not
# a missing tracepoint, not an offline CPU), a bad format file names its event, a final
# report that cannot be written is not said to be "kept in memory; still tracing" (it goes
# to stderr instead: issue 23, 1).
# Sourced by tests/hostile.sh.

msg_gone() { [ ! -d "$TFS/instances/$INST-$1" ]; }

# ulimit -n 4: stdio and the signalfd take them all; the first format read fails (EMFILE)
nofile_tiny_part() {
	local rc
	( ulimit -n 4; exec "$MT" --instance "$INST-n4" -o "$T/n4.log" ) > /dev/null 2> "$T/n4.err"
	rc=$?
	check "ulimit -n 4: a runtime failure, not the missing-tracepoint status 5 ($rc)" test "$rc" = 1
	check "ulimit -n 4: said as out of file descriptors ($(grep -m1 -v "warning" "$T/n4.err" | cut -c1-150))" \
		grep -qs "out of file descriptors (ulimit -n 4)" "$T/n4.err"
	check "ulimit -n 4: no tracepoint called missing" eval "! grep -qs 'is missing' '$T/n4.err'"
	check "ulimit -n 4: the instance is removed" msg_gone n4
}

# ulimit -n 11: the first CPU gets its fd, the others do not (stdio, the signalfd and memtrace's
# own 6 leave one): said as out of file descriptors on stderr and in the report, not as
# offline CPUs
nofile_cpus_part() {
	local rc ncpu
	ncpu=$(find "$TFS/per_cpu" -maxdepth 1 -name 'cpu[0-9]*' | wc -l)
	if [ "$ncpu" -lt 2 ]; then
		skip "ulimit -n 11: one CPU here, none to leave out"; return
	fi
	( ulimit -n 11; only_stdio; exec "$MT" --instance "$INST-n12" -o "$T/n12.log" ) > /dev/null 2> "$T/n12.err" &
	local pid=$!
	PIDS+=("$pid")
	wait_for 10 grep -qs "tracing in" "$T/n12.err" || bad "ulimit -n 11: memtrace did not start: $(tail -1 "$T/n12.err")"
	kill -TERM "$pid"; wait_exit "$pid"; rc=$?
	check "ulimit -n 11: runs and exits 0 ($rc)" test "$rc" = 0
	check "ulimit -n 11: the CPUs left out said as out of file descriptors ($(grep -m1 "not traced\|CPUs traced" "$T/n12.err" | cut -c1-150))" \
		grep -qs "hard limit is 11: 1 of $ncpu CPUs traced, cpu1\.\.cpu$((ncpu - 1)) not" "$T/n12.err"
	check "ulimit -n 11: the report says why cpu1 was not read ($(grep "CPUs not read" "$T/n12.log"))" \
		grep -qs "^CPUs not read: cpu1.* (out of file descriptors, RLIMIT_NOFILE" "$T/n12.log"
	check "ulimit -n 11: ... and calls no CPU offline" eval "! grep -qs offline '$T/n12.log'"
	check "ulimit -n 11: the instance is removed" msg_gone n12
}

# a recording whose mm_page_alloc format is broken: the error names the event
bad_format_part() {
	local R=$T/badfmt rc
	mkdir -p "$R/events/kmem/mm_page_alloc" "$R/events/kmem/mm_page_free" "$R/per_cpu/cpu0"
	cat "$TFS/events/header_page" > "$R/events/header_page"
	cat "$TFS/events/kmem/mm_page_free/format" > "$R/events/kmem/mm_page_free/format"
	printf 'name: mm_page_alloc\nID: x\nformat:\n\tgarbage\n' > "$R/events/kmem/mm_page_alloc/format"
	: > "$R/per_cpu/cpu0/trace_pipe_raw"
	"$MT" --replay "$R" > /dev/null 2> "$T/badfmt.err"
	rc=$?
	check "bad format: exit 5, a required tracepoint unusable ($rc)" test "$rc" = 5
	check "bad format: the message names the event ($(head -1 "$T/badfmt.err"))" \
		grep -qs "required tracepoint kmem:mm_page_alloc: bad format file: " "$T/badfmt.err"
}

# the log's directory removed during the run: the final report goes to stderr, said so
final_report_part() {
	local rc D=$T/gone
	mkdir "$D"
	"$MT" --instance "$INST-fin" -o "$D/log" > /dev/null 2> "$T/fin.err" &
	local pid=$!
	PIDS+=("$pid")
	wait_for 10 grep -qs "tracing in" "$T/fin.err" || bad "final report: memtrace did not start"
	rm -rf "$D"
	kill -TERM "$pid"; wait_exit "$pid"; rc=$?
	check "final report not in the log: said as not written ($(grep -m1 "$D" "$T/fin.err" | cut -c1-160))" \
		grep -qs "final report not written: .*$D.*: No such file or directory; it follows on stderr instead" "$T/fin.err"
	check "final report not in the log: not said to be kept in memory, still tracing" \
		eval "! grep -qs 'still tracing' '$T/fin.err'"
	check "final report not in the log: on stderr instead, exit 1 ($rc)" \
		eval 'test "$rc" = 1 && grep -qs "report (trigger: SIGTERM, live)" "$T/fin.err"' 
	check "final report lost: the instance is removed" msg_gone fin
	# SIGUSR2's failure while tracing goes on keeps its words: they are true there
	mkdir "$D"
	"$MT" --instance "$INST-fin" -o "$D/log" > /dev/null 2> "$T/fin2.err" &
	pid=$!
	PIDS+=("$pid")
	wait_for 10 grep -qs "tracing in" "$T/fin2.err" || bad "final report: memtrace did not start"
	rm -rf "$D"
	kill -USR2 "$pid"
	wait_for 5 grep -qs "still tracing" "$T/fin2.err"
	check "SIGUSR2 report lost: said as kept in memory, still tracing" \
		grep -qs "(report kept in memory; still tracing)" "$T/fin2.err"
	kill -TERM "$pid"; wait_exit "$pid"
	check "SIGUSR2 report lost: the instance is removed" msg_gone fin
}

if can_trace "messages"; then
	nofile_tiny_part
	bad_format_part
	nofile_cpus_part
	final_report_part
fi
