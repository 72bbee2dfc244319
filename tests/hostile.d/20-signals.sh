# shellcheck shell=bash
# 20-signals.sh (issue 21, item 3) - every signal that would end memtrace goes through the
# teardown of SIGTERM: final report, memtrace.meta for --record, the instance removed, in
# every mode; exit 128+signal (TERM and INT: 0). SIGXFSZ is ignored: a --record past
# `ulimit -f` says the limit and exits 1 with its memtrace.meta. A failed oom_score_adj
# write is said. Sourced by tests/hostile.sh.

# sig_start NAME ARGS...: memtrace on instance $INST-NAME in the background, stdout and
# stderr in $T/sg.NAME.{out,err}; its pid in SGPID[NAME]
declare -A SGPID=()
sig_start() {
	local name=$1; shift
	"$MT" --instance "$INST-$name" "$@" > "$T/sg.$name.out" 2> "$T/sg.$name.err" &
	SGPID[$name]=$!
	PIDS+=("$!")
}
sig_ready() { grep -qs "tracing in" "$T/sg.$1.err" 2>/dev/null || ! kill -0 "${SGPID[$1]}" 2>/dev/null; }
inst_gone() { [ ! -d "$TFS/instances/$INST-$1" ]; }

signals_part() {
	# the fatal signals of the issue, QUIT and IO, and two real-time ones
	local sigs="ALRM PWR VTALRM PROF SYS TRAP STKFLT XCPU QUIT IO RTMIN RTMAX"
	local s n rc name
	# the daemon: all at once (each in its own instance), then each its signal
	for s in $sigs; do sig_start "d$s" -o "$T/sg.d$s.log"; done
	# --record, --exits -o, --stream, --top (not on a terminal: frames on stdout)
	sig_start rPROF --record "$T/rec.PROF" -o "$T/sg.rPROF.log"
	sig_start rRTMIN --record "$T/rec.RTMIN" -o "$T/sg.rRTMIN.log"
	sig_start rALRM --record "$T/rec.ALRM" -o "$T/sg.rALRM.log"
	sig_start xXCPU --exits -o "$T/sg.xXCPU.log"
	sig_start sALRM --stream --all -o "$T/sg.sALRM.jsonl"
	sig_start tVTALRM --top -o "$T/sg.tVTALRM.log"
	sig_start dHUP -o "$T/sg.dHUP.log"
	for name in "${!SGPID[@]}"; do
		wait_for 10 sig_ready "$name" || bad "signals: $name did not start"
	done
	kill -HUP "${SGPID[dHUP]}"
	for name in "${!SGPID[@]}"; do
		[ "$name" = dHUP ] || kill -"${name:1}" "${SGPID[$name]}"
	done
	for name in "${!SGPID[@]}"; do
		[ "$name" = dHUP ] && continue
		s=${name:1}
		n=$(kill -l "$s")
		wait_exit "${SGPID[$name]}"; rc=$?
		check "signals: SIG$s ($name): exit 128+$n after the teardown ($rc)" test "$rc" = $((128 + n))
		check "signals: SIG$s ($name): the instance is removed" inst_gone "$name"
		case $name in
		d*|r*|t*)
			check "signals: SIG$s ($name): the final report, SIG$s as its trigger" \
				grep -qs "trigger: SIG$s" "$T/sg.$name.log" ;;
		x*)
			check "signals: SIG$s ($name): the --exits -o file is there" test -f "$T/sg.$name.log" ;;
		s*)
			check "signals: SIG$s ($name): the stream's end said" \
				grep -qs "lines" "$T/sg.$name.err" ;;
		esac
		case $name in
		r*)
			check "signals: SIG$s ($name): memtrace.meta written" test -s "$T/rec.$s/memtrace.meta" ;;
		esac
	done
	# HUP still ignored in the daemon (a console hangup must not end a boot trace)
	sleep 0.2
	check "signals: SIGHUP does not stop the daemon" kill -0 "${SGPID[dHUP]}"
	kill -TERM "${SGPID[dHUP]}"; wait_exit "${SGPID[dHUP]}"; rc=$?
	check "signals: ... and SIGTERM after it exits 0 ($rc)" test "$rc" = 0
	check "signals: SIGTERM: the instance is removed" inst_gone dHUP
}

# command mode: the signal is passed on to the command (as TERM is), then the report
command_signals_part() {
	local s n rc pid
	for s in ALRM PWR; do
		# shellcheck disable=SC2016
		"$MT" --instance "$INST-c$s" -o "$T/sg.c$s.report" -- \
			sh -c 'echo $$ > "$0"; exec sleep 30' "$T/sg.c$s.pid" > /dev/null 2> "$T/sg.c$s.err" &
		SGPID[c$s]=$!
		PIDS+=("$!")
	done
	for s in ALRM PWR; do
		wait_for 10 test -s "$T/sg.c$s.pid" || bad "signals: command mode: the command did not start"
		pid=$(cat "$T/sg.c$s.pid" 2>/dev/null)
		[ -n "$pid" ] && CLEANUPS+=("kill -KILL $pid")
		kill -"$s" "${SGPID[c$s]}"
	done
	for s in ALRM PWR; do
		n=$(kill -l "$s")
		wait_exit "${SGPID[c$s]}"; rc=$?
		check "signals: command mode, SIG$s: the command's status, killed by it ($rc)" test "$rc" = $((128 + n))
		check "signals: command mode, SIG$s: the command report written" \
			grep -qs "PROCESSES" "$T/sg.c$s.report"
		check "signals: command mode, SIG$s: the instance is removed" inst_gone "c$s"
		pid=$(cat "$T/sg.c$s.pid" 2>/dev/null)
		check "signals: command mode, SIG$s: the command got it and is gone" \
			wait_for 5 eval "! kill -0 ${pid:-0} 2>/dev/null"
	done
}

# ulimit -f: SIGXFSZ ignored, the write fails with EFBIG, handled as a full disk is
fsize_part() {
	local rc big=0
	( ulimit -f 200; exec "$MT" --instance "$INST-fsz" --record "$T/rec.fsz" -o "$T/fsz.log" ) \
		> /dev/null 2> "$T/sg.fsz.err" &
	SGPID[fsz]=$!
	PIDS+=("$!")
	wait_for 10 sig_ready fsz || bad "ulimit -f: memtrace did not start"
	# until a per-CPU file is at the limit (204800 bytes): one more workload each round
	for _ in 1 2 3 4 5 6; do
		"$WL" 48
		big=$(find "$T/rec.fsz/per_cpu" -name trace_pipe_raw -size +199k 2>/dev/null | wc -l)
		[ "$big" -gt 0 ] && break
	done
	check "ulimit -f 200: a per-CPU file reached the limit ($big)" test "$big" -gt 0
	sleep 0.3
	kill -TERM "${SGPID[fsz]}" 2>/dev/null
	wait_exit "${SGPID[fsz]}"; rc=$?
	check "ulimit -f 200: not killed by SIGXFSZ, exit 1 ($rc)" test "$rc" = 1
	check "ulimit -f 200: the file size limit said ($(grep -m1 "limit" "$T/sg.fsz.err" | cut -c1-150))" \
		grep -qs "file size limit (RLIMIT_FSIZE" "$T/sg.fsz.err"
	check "ulimit -f 200: memtrace.meta written" test -s "$T/rec.fsz/memtrace.meta"
	check "ulimit -f 200: the final report written" grep -qs "trigger: SIGTERM" "$T/fsz.log"
	check "ulimit -f 200: the instance is removed" inst_gone fsz
}

# oom_score_adj -1000 needs CAP_SYS_RESOURCE: without it (setpriv drops it from the
# bounding set, so also where the shell has it), the failed write is said
oom_adj_part() {
	local rc
	if ! command -v setpriv > /dev/null; then
		skip "oom_score_adj warning: no setpriv"; return
	fi
	setpriv --bounding-set=-sys_resource --inh-caps=-sys_resource \
		"$MT" --instance "$INST-oom" -o "$T/oom.report" -- true > /dev/null 2> "$T/oom.err"
	rc=$?
	check "oom_score_adj: runs without CAP_SYS_RESOURCE ($rc)" test "$rc" = 0
	check "oom_score_adj: the failed write said ($(grep -m1 oom_score_adj "$T/oom.err"))" \
		grep -qs "oom_score_adj not set to -1000 (Permission denied)" "$T/oom.err"
	check "oom_score_adj: the instance is removed" inst_gone oom
}

if can_trace "signals"; then
	signals_part
	command_signals_part
	fsize_part
	oom_adj_part
fi
