# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# 10-instances.sh - other tools' tracefs instances are left alone, a live memtrace is told
# by its lock whatever its binary is called, and tracing switched off under a running
# memtrace is noticed (issue 21, items 1 and 2). A trace-cmd instance traces beside all of
# it and must come out untouched: its settings, and its buffer neither read nor reset.

# i_inst NAME: the instance's directory
i_inst() { echo "$TFS/instances/$1"; }

# i_state NAME: an instance's settings, as another tool would have left them
i_state() {
	local d f
	d=$(i_inst "$1")
	[ -d "$d" ] || { echo "(gone)"; return; }
	for f in tracing_on buffer_size_kb events/enable events/sched/sched_switch/enable \
		 events/sched/sched_switch/filter events/sched/sched_process_exec/filter \
		 events/kmem/mm_page_alloc/enable events/kmem/mm_page_alloc/filter; do
		echo "$f: $(cat "$d/$f" 2>/dev/null)"
	done
}

# i_foreign NAME [EXEC_FILTER]: another tool's instance, made by hand: sched_switch on
# with a filter, its own buffer size, and optionally a filter on sched_process_exec
i_foreign() {
	local d
	d=$(i_inst "$1")
	mkdir "$d" || return 1
	echo 'prev_pid != 0' > "$d/events/sched/sched_switch/filter"
	echo 1 > "$d/events/sched/sched_switch/enable"
	echo 700 > "$d/buffer_size_kb"
	[ -z "${2:-}" ] || echo "$2" > "$d/events/sched/sched_process_exec/filter"
}

# i_start OUT CMD...: a memtrace in the background (CMD names the binary and its
# arguments); IPID, stderr in OUT.err. Fails unless it says "tracing in" within 10 s.
i_start() {
	local out=$1 rc=0
	shift
	start_bg "$out.out" "$out.err" 10 "$@" || rc=$?
	IPID=$BGPID
	return "$rc"
}

# i_once OUT ARGS...: a memtrace that should be refused; one that starts tracing
# instead (the old one did) is stopped after 3 s. Its exit status.
i_once() {
	local out=$1
	shift
	timeout -s TERM 3 "$MT" "$@" > "$out.out" 2> "$out.err"
}

# The trace-cmd instance: what must stay as it was, and its buffer's counters
I_TC=$FOREIGN-tc
i_tc_static() {
	local d
	d=$(i_inst "$I_TC")
	echo "sched_switch: $(cat "$d/events/sched/sched_switch/enable" 2>/dev/null)"
	echo "filter: $(cat "$d/events/sched/sched_switch/filter" 2>/dev/null)"
	echo "buffer_size_kb: $(cat "$d/buffer_size_kb" 2>/dev/null)"
	echo "tracing_on: $(cat "$d/tracing_on" 2>/dev/null)"
}
# "READ WRITTEN": events read from its buffer (stays 0), and entries + overrun (never
# goes back: a reset or a reader would lower it)
i_tc_counts() {
	cat "$(i_inst "$I_TC")"/per_cpu/cpu*/stats 2>/dev/null | awk '
		/^entries:/ { w += $2 } /^overrun:/ { w += $2 } /^read events:/ { r += $3 }
		END { print r + 0, w + 0 }'
}
i_tc_wrote() { [ "$(i_tc_counts | cut -d' ' -f2)" -gt 0 ]; }
# i_tc_check WHEN: the trace-cmd instance untouched after WHEN
i_tc_check() {
	local now read written
	[ -n "${I_TC_STATIC:-}" ] || return 0
	now=$(i_tc_counts)
	read=${now% *} written=${now#* }
	check "trace-cmd's instance untouched after $1 (events, filter, buffer size, tracing_on)" \
		test "$(i_tc_static)" = "$I_TC_STATIC"
	check "trace-cmd's buffer after $1: not read by anyone ($read events read), never reset ($written >= $I_TC_WRITTEN > 0)" \
		test "$read" = 0 -a "$written" -ge "$I_TC_WRITTEN" -a "$written" -gt 0
	I_TC_WRITTEN=$written
}

i_none_of_ours() { ! compgen -G "$TFS/instances/$INST*" > /dev/null; }

# i_peak LOG PID: the workload's peak pages in a JSON report
i_peak() { json "$1" "[t['peak_pages'] for t in d['tasks'] if t['pid']==$2][0]"; }

if can_trace "instances"; then
	I_TC_STATIC=
	if ! command -v trace-cmd > /dev/null; then
		skip "trace-cmd beside memtrace: trace-cmd is not installed (apt install trace-cmd)"
	# in a mount namespace of its own: trace-cmd mounts debugfs where it is not, and that
	# mount must go with it (the instance it makes is in the one tracefs all share)
	elif ! unshare -m --propagation private trace-cmd set -d -B "$I_TC" \
			-e sched:sched_switch -f 'prev_pid != 0' > "$T/tc.out" 2>&1; then
		bad "trace-cmd set -B $I_TC failed: $(tail -1 "$T/tc.out")"
	else
		CLEANUPS+=("echo 0 > '$(i_inst "$I_TC")/events/enable'; rmdir '$(i_inst "$I_TC")'")
		I_TC_STATIC=$(i_tc_static)
		I_TC_WRITTEN=0
		wait_for 5 i_tc_wrote
		i_tc_check "trace-cmd set (before any memtrace)"
	fi

	# 1. Instances that are not memtrace's: refused, named, exit 1, untouched
	dead=$(sh -c 'echo $$')	# a pid that is gone
	# (trace-cmd's own instance is given last: a memtrace that removed it would leave
	# nothing to check the other paths against)
	i_refused() {	# NAME [FILTER]: memtrace --instance NAME is refused, NAME untouched
		local name=$1 filt=${2:-} before rc
		before=$(i_state "$name")
		i_once "$T/f" --instance "$name" -o "$T/f.log"; rc=$?
		check "another tool's instance $name${filt:+ (exec filter \"$filt\")}: refused with exit 1 (got $rc)" \
			test "$rc" = 1
		check "another tool's instance $name: the message names it" \
			grep -qF "instances/$name " "$T/f.err"
		check "another tool's instance $name: still there, settings untouched" \
			test "$(i_state "$name")" = "$before"
		i_tc_check "memtrace refused $name"
	}
	# a bare "common_pid != DEAD" is what a tool writes to leave itself out of its own trace
	# (issue 36: it was taken for a dead memtrace's mark and removed); a mark of memtrace's
	# shape with a token too short, or two pids, is not memtrace's either
	for c in "x:" "live:common_pid != $$" "notexact:(common_pid != $dead) && pid > 0" \
		"deadexact:common_pid != $dead" \
		"shorttoken:common_pid != $dead && filename != \"memtrace-owner:$dead:0123\"" \
		"twopids:common_pid != $dead && filename != \"memtrace-owner:1:0123456789abcdef\""; do
		name=$FOREIGN-${c%%:*} filt=${c#*:}
		if i_foreign "$name" "$filt"; then
			i_refused "$name" "$filt"
		else
			bad "foreign instance $name: cannot make it"
		fi
	done

	# ... nor taken as TRACEFS_DIR: an instance is not where tracefs is mounted (it has no
	# instances/), and was traced at its top level: its settings changed, its buffer read
	name=$FOREIGN-dir
	if i_foreign "$name"; then
		echo memtrace-hostile-marker > "$(i_inst "$name")/trace_marker"
		before=$(i_state "$name")
		i_once "$T/d" "$(i_inst "$name")" "$T/d.log"; rc=$?
		check "another tool's instance $name as TRACEFS_DIR: refused with exit 1 (got $rc)" \
			test "$rc" = 1
		check "another tool's instance $name as TRACEFS_DIR: the message says it is an instance" \
			grep -q "instances/$name: an instance of tracefs, not where it is mounted" "$T/d.err"
		check "another tool's instance $name as TRACEFS_DIR: settings untouched" \
			test "$(i_state "$name")" = "$before"
		check "another tool's instance $name as TRACEFS_DIR: its buffer not read (its marker there)" \
			grep -q memtrace-hostile-marker "$(i_inst "$name")/trace"
		i_tc_check "memtrace refused $name as TRACEFS_DIR"
	else
		bad "foreign instance $name: cannot make it"
	fi

	# 2. A live memtrace under another name (a copy, ld.so, valgrind): a second start is refused
	# without touching it, and the first traces on
	cp "$MT" "$T/mtx"
	# the binary's own interpreter (a machine may have others' too)
	ldso=$(readelf -l "$MT" 2>/dev/null | sed -n 's/.*program interpreter: \(.*\)]$/\1/p')
	[ -n "$ldso" ] || ldso=$(ldd "$MT" 2>/dev/null | awk '$1 ~ /^\/.*ld-linux/ { print $1 }')
	for how in copy ld.so valgrind; do
		name=$INST-r$how
		case $how in
		copy) cmd=("$T/mtx") ;;
		ld.so) [ -x "$ldso" ] || { skip "memtrace run through ld.so: its interpreter not found"; continue; }
		       cmd=("$ldso" "$MT") ;;
		valgrind) command -v valgrind > /dev/null || { skip "memtrace under valgrind: not installed"; continue; }
		       cmd=(valgrind -q "$MT") ;;
		esac
		if ! i_start "$T/r" "${cmd[@]}" --instance "$name" -f json -n 0 -o "$T/r.json"; then
			bad "memtrace run as $how did not start: $(tail -1 "$T/r.err")"
			continue
		fi
		first=$IPID
		i_once "$T/r2" --instance "$name" -o "$T/r2.log"; rc=$?
		check "memtrace run as $how (pid $first) is live: a second start is refused (exit $rc)" \
			test "$rc" = 1
		check "memtrace run as $how: the refusal names its pid" \
			grep -q "in use by memtrace pid $first\b" "$T/r2.err"
		check "memtrace run as $how: its events still enabled, tracing on" \
			test "$(cat "$(i_inst "$name")/events/kmem/mm_page_alloc/enable")/$(cat "$(i_inst "$name")/tracing_on")" = 1/1
		"$WL" 32 100 & wpid=$!; wait "$wpid"
		sleep 0.3
		kill -TERM "$first"; wait_exit "$first"; rc=$?
		check "memtrace run as $how: exits 0 after TERM (got $rc)" test "$rc" = 0
		peak=$(i_peak "$T/r.json" "$wpid")
		check "memtrace run as $how: its report has the workload's 32 MiB (peak ${peak:-none} pages >= 8192)" \
			test "${peak:-0}" -ge 8192
		check "memtrace run as $how: its instance removed" test ! -d "$(i_inst "$name")"
		i_tc_check "a second memtrace refused beside one run as $how"
	done

	# 3. An owner killed (SIGKILL, as the OOM killer does): the next start takes the name
	name=$INST-k
	if i_start "$T/k" "$T/mtx" --instance "$name" -o "$T/k.log"; then
		kill -KILL "$IPID"; wait "$IPID" 2>/dev/null
		check "memtrace killed with SIGKILL: its instance is left" test -d "$(i_inst "$name")"
		i_tc_check "memtrace killed with SIGKILL"
		if i_start "$T/k2" "$MT" --instance "$name" -o "$T/k2.log"; then
			check "the next start on the killed one's name removes the stale instance" \
				grep -q "removing stale instance .*$name" "$T/k2.err"
			kill -TERM "$IPID"; wait_exit "$IPID"; rc=$?
			check "the next start: exits 0 after TERM (got $rc), instance removed" \
				test "$rc" = 0 -a ! -d "$(i_inst "$name")"
		else
			bad "the next start after a SIGKILL did not trace: $(tail -1 "$T/k2.err")"
		fi
		i_tc_check "the restart after a SIGKILL"
	else
		bad "memtrace (to be killed) did not start: $(tail -1 "$T/k.err")"
	fi

	# ... also in a pid namespace, where the next memtrace has the dead one's pid (1)
	name=$INST-ns
	if ! unshare -pf --mount-proc true 2> /dev/null; then
		skip "a killed memtrace in a pid namespace: unshare -p does not work here"
	elif i_start "$T/n" unshare -pf --mount-proc "$MT" --instance "$name" -o "$T/n.log"; then
		kill -KILL "$(pgrep -P "$IPID")"; wait "$IPID" 2>/dev/null
		if i_start "$T/n2" unshare -pf --mount-proc "$MT" --instance "$name" -o "$T/n2.log"; then
			check "pid namespace: the next start (the killed one's pid) removes the stale instance" \
				grep -q "removing stale instance .*$name" "$T/n2.err"
			kill -TERM "$(pgrep -P "$IPID")"; wait_exit "$IPID"; rc=$?
			check "pid namespace: the next start exits 0 after TERM (got $rc), instance removed" \
				test "$rc" = 0 -a ! -d "$(i_inst "$name")"
		else
			bad "pid namespace: the next start after a SIGKILL did not trace: $(tail -1 "$T/n2.err")"
		fi
		i_tc_check "a SIGKILL and a restart in a pid namespace"
	else
		bad "memtrace in a pid namespace did not start: $(tail -1 "$T/n.err")"
	fi

	# 4. Tracing switched off under a running memtrace: said, in the report, exit non-zero
	for off in events/enable tracing_on; do
		name=$INST-o
		if ! i_start "$T/o" "$MT" --instance "$name" -f json -o "$T/o.json"; then
			bad "memtrace did not start: $(tail -1 "$T/o.err")"
			continue
		fi
		echo 0 > "$(i_inst "$name")/$off"
		wait_for 5 grep -q "switched off" "$T/o.err"
		check "$off=0 under a running memtrace: said on stderr" grep -q "switched off" "$T/o.err"
		kill -TERM "$IPID"; wait_exit "$IPID"; rc=$?
		check "$off=0 under a running memtrace: exit status not 0 (got $rc)" test "$rc" != 0
		what=$(json "$T/o.json" "d['tracefs']['switched_off']['what']")
		check "$off=0 under a running memtrace: the report says what was off (${what:-nothing})" \
			grep -q "is 0" <<< "$what"
		i_tc_check "memtrace's tracing switched off under it ($off)"
	done
	# the text report has it on a line of its own
	name=$INST-o
	if i_start "$T/t" "$MT" --instance "$name" -o "$T/t.log"; then
		echo 0 > "$(i_inst "$name")/events/kmem/mm_page_free/enable"
		sleep 1.2
		kill -TERM "$IPID"; wait_exit "$IPID"; rc=$?
		check "an event's enable=0 under a running memtrace: exit status not 0 (got $rc)" \
			test "$rc" != 0
		check "an event's enable=0 under a running memtrace: the text report has a line for it" \
			grep -q "^tracing switched off under memtrace.*mm_page_free/enable is 0" "$T/t.log"
	else
		bad "memtrace did not start: $(tail -1 "$T/t.err")"
	fi

	# 5. trace-cmd's own instance given to memtrace
	[ -z "$I_TC_STATIC" ] || i_refused "$I_TC"

	check "no instance of ours left behind" i_none_of_ours
fi
