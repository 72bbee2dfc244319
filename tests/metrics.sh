#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# metrics.sh - the fleet outputs on the real tracefs, read by the real parts: the
# --prometheus file checked by promtool and scraped from a node_exporter that this suite
# starts on 127.0.0.1 (its own port, its own textfile directory), and the JSON lines of
# --interval -f json.
#
# Needs root and a tracefs, promtool (Debian package prometheus) and node_exporter
# (prometheus-node-exporter); each test says SKIP with a reason when it cannot run.
# Every run checks that tracefs is left exactly as it was found.
set -u
cd "$(dirname "$0")/.." || exit 1
MT=$PWD/memtrace
WL=$PWD/build/tests/workload
T=$(mktemp -d /tmp/memtrace-metrics.XXXXXX)
INST=memtrace-metrics$$
. "$PWD/tests/lib.sh"
NE_PID=

cleanup() {
	local p
	[ -n "$NE_PID" ] && kill -TERM "$NE_PID" 2>/dev/null
	for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	undo_ours
	rm -rf "$T"
}
trap cleanup EXIT

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
PROMTOOL=$(command -v promtool)
NODE_EXPORTER=$(command -v prometheus-node-exporter || command -v node_exporter)

# prom.py [--count|--values] FILE NAME [LABEL=VALUE...]: the value of the first sample of NAME
# with those labels in a text-format file (or a scrape), empty if none; --count: how many
# samples of NAME; --values: all their values. An independent reader of the format, not
# memtrace's code: label values decoded (\\ \" \n), the file strictly UTF-8.
cat > "$T/prom.py" <<'PY'
import re, sys
line_re = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
def labels(s):
    out, i = {}, 0
    while i < len(s):
        m = re.match(r'([a-zA-Z_][a-zA-Z0-9_]*)="', s[i:])
        if not m:
            raise ValueError("bad label at %r" % s[i:])
        name, i, val = m.group(1), i + m.end(), ""
        while s[i] != '"':
            if s[i] == '\\':
                val += {'\\': '\\', '"': '"', 'n': '\n'}[s[i + 1]]
                i += 2
            else:
                val += s[i]
                i += 1
        out[name] = val
        i += 1
        if i < len(s) and s[i] == ',':
            i += 1
    return out
def samples(path):
    for raw in open(path, encoding="utf-8", errors="strict"):
        raw = raw.rstrip("\n")
        if not raw or raw.startswith("#"):
            continue
        m = line_re.match(raw)
        if not m:
            raise SystemExit("bad line: %r" % raw)
        yield m.group(1), labels(m.group(3) or ""), float(m.group(4))
args = sys.argv[1:]
mode = args.pop(0) if args[0].startswith("--") else ""
path, name, want = args[0], args[1], dict(a.split("=", 1) for a in args[2:])
got = [v for n, l, v in samples(path) if n == name and all(l.get(k) == x for k, x in want.items())]
if mode == "--count":
    print(len(got))
elif mode == "--values":
    print(" ".join("%d" % v for v in got))
elif got:
    print("%d" % got[0])
PY
# pval FILE NAME [LABEL=VALUE...]: the value of the first matching sample (empty if none)
pval() { python3 "$T/prom.py" "$@" 2>/dev/null; }
# nseries FILE NAME: how many samples of NAME
nseries() { python3 "$T/prom.py" --count "$@" 2>/dev/null; }
between() { [ -n "$1" ] && [ "$1" -ge "$2" ] 2>/dev/null && [ "$1" -le "$3" ]; }

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_node_exporter DIR: node_exporter on 127.0.0.1:NE_PORT with only the textfile
# collector, reading DIR; NE_PID. Fails if it does not answer within 10 s.
start_node_exporter() {
	local try
	for try in 1 2 3; do
		NE_PORT=$(free_port)
		"$NODE_EXPORTER" --web.listen-address="127.0.0.1:$NE_PORT" \
			--collector.disable-defaults --collector.textfile \
			--collector.textfile.directory="$1" > "$T/ne.log" 2>&1 &
		NE_PID=$!
		wait_for 10 curl -sf -o /dev/null "http://127.0.0.1:$NE_PORT/metrics" && return 0
		kill -TERM "$NE_PID" 2>/dev/null; wait "$NE_PID" 2>/dev/null; NE_PID=
	done
	return 1
}

stop_node_exporter() {
	[ -n "$NE_PID" ] || return
	kill -TERM "$NE_PID"
	wait "$NE_PID" 2>/dev/null
	NE_PID=
}

# The hostile name: a quote, a backslash, a newline, a control byte, invalid UTF-8
HOSTILE='q"u\\o\nn\x01\xffz'
# what a Prometheus reader gets back as the comm label (memtrace(8), the escaping rule:
# as text reports show names, valid UTF-8 kept): computed here from the rule
HOSTILE_LABEL=$(python3 -c '
import sys
raw = sys.stdin.buffer.read()
out, i = "", 0
while i < len(raw):
    ch, n = None, 1
    for k in (1, 2, 3, 4):
        try:
            c = raw[i:i + k].decode("utf-8")
        except UnicodeDecodeError:
            continue
        if len(c) == 1:
            ch, n = c, k
        break
    if ch is not None and len(ch) == 1 and (ord(ch) >= 0xa0 or 0x20 <= ord(ch) < 0x7f):
        out += "\\\\" if ch == "\\" else ch
        i += n
    else:
        out += "\\x%02x" % raw[i]
        i += 1
print(out, end="")' < <(printf '%b' "$HOSTILE"))


# ------------------------------------------------------------ the main run
# memtrace --prometheus DIR/memtrace.prom --interval 1 -f json -o LOG -n 0, a 64 MiB
# workload and a process with a hostile name; the file through promtool and node_exporter;
# the JSON lines; the final numbers at exit
main_test() {
	local before after rc prom="$T/tf/memtrace.prom" log="$T/log.jsonl" wpid hpid v n ino
	local scrape="$T/scrape.txt" t0 mode
	before=$(tfs_state)
	mkdir -p "$T/tf"
	echo "precious" > "$T/precious"
	ln -s "$T/precious" "$prom"		# planted: must be replaced, never followed
	start_mt --prometheus "$prom" --interval 1 -f json -o "$log" -n 0 ||
		{ bad "main: memtrace did not start: $(head -3 "$T/err")"; return; }
	check "main: the .prom file is there once tracing is live (written at start)" test -f "$prom" -a ! -L "$prom"
	check "main: a symlink planted at the .prom path was replaced, not followed" \
		test "$(cat "$T/precious")" = precious
	mode=$(stat -c %a "$prom")
	check "main: the .prom file has mode 0644 (node_exporter runs as another user): $mode" test "$mode" = 644
	# both hold until killed below: a loaded machine may take long to get there
	"$WL" 64 600000 "$T/wl.ready" & wpid=$!
	PIDS+=("$wpid")
	python3 tests/hostile.py "$(printf '%b' "$HOSTILE" | od -An -tx1 | tr -d ' \n')" "$T/h.ready" 600 &
	hpid=$!
	PIDS+=("$hpid")
	wait_for 10 test -e "$T/wl.ready" -a -e "$T/h.ready" || { bad "main: workloads not ready"; return; }
	# the next interval's file shows them (at most about 1 s later)
	t0=$(now_ms)
	has_workload() { [ -n "$(pval "$prom" memtrace_task_peak_bytes pid="$wpid")" ] &&
		[ "$(pval "$prom" memtrace_task_peak_bytes pid="$wpid")" -ge $((64 << 20)) ] &&
		[ -n "$(pval "$prom" memtrace_task_peak_bytes pid="$hpid")" ]; }
	if wait_for 5 has_workload; then
		ok "main: the .prom file is rewritten each interval: the workload shows after $(( $(now_ms) - t0 )) ms"
	else
		bad "main: the workload is not in the .prom file after 5 s"
	fi
	cp "$prom" "$T/snap.prom"
	"$PROMTOOL" check metrics < "$T/snap.prom" > "$T/promtool.out" 2>&1; rc=$?
	check "main: promtool check metrics: exit 0, no finding ($(head -c 200 "$T/promtool.out"))" \
		test "$rc" = 0 -a ! -s "$T/promtool.out"
	v=$(pval "$T/snap.prom" memtrace_task_peak_bytes pid="$wpid" comm=workload)
	check "main: .prom memtrace_task_peak_bytes of the 64 MiB workload: $v bytes in 64..66 MiB" \
		between "$v" $((64 << 20)) $((66 << 20))
	check "main: .prom hostile comm label read back as '$HOSTILE_LABEL'" \
		test -n "$(pval "$T/snap.prom" memtrace_task_peak_bytes pid="$hpid" comm="$HOSTILE_LABEL")"

	# node_exporter reads the directory, curl scrapes it
	if ! start_node_exporter "$T/tf"; then
		bad "main: node_exporter did not answer on 127.0.0.1: $(tail -3 "$T/ne.log")"
	else
		curl -sf "http://127.0.0.1:$NE_PORT/metrics" > "$scrape"
		check "node_exporter: textfile collector read the file without error (node_textfile_scrape_error 0)" \
			test "$(pval "$scrape" node_textfile_scrape_error)" = 0
		check "node_exporter: it reports the file's mtime (memtrace.prom)" \
			test -n "$(pval "$scrape" node_textfile_mtime_seconds file="$prom")" -o \
			-n "$(pval "$scrape" node_textfile_mtime_seconds file=memtrace.prom)"
		v=$(pval "$scrape" memtrace_task_peak_bytes pid="$wpid" comm=workload)
		check "node_exporter: memtrace_task_peak_bytes{pid=\"$wpid\",comm=\"workload\"} $v in 64..66 MiB" \
			between "$v" $((64 << 20)) $((66 << 20))
		v=$(pval "$scrape" memtrace_process_peak_bytes pid="$wpid" comm=workload)
		check "node_exporter: memtrace_process_peak_bytes of the workload $v in 64..66 MiB" \
			between "$v" $((64 << 20)) $((66 << 20))
		v=$(pval "$scrape" memtrace_task_current_bytes pid="$wpid" comm=workload)
		check "node_exporter: memtrace_task_current_bytes of the workload (holding) $v in 64..66 MiB" \
			between "$v" $((64 << 20)) $((66 << 20))
		v=$(pval "$scrape" memtrace_task_peak_bytes pid="$hpid" comm="$HOSTILE_LABEL")
		check "node_exporter: the hostile name's series (8 MiB and python) in 8..32 MiB: $v" \
			between "$v" $((8 << 20)) $((32 << 20))
		check "node_exporter: memtrace_info{version,kernel=\"$(uname -r)\"} 1" \
			test "$(pval "$scrape" memtrace_info version="$("$MT" --version | cut -d' ' -f2)" kernel="$(uname -r)")" = 1
		v=$(pval "$scrape" memtrace_events_total)
		check "node_exporter: memtrace_events_total $v > 16384 (the workload's page faults)" \
			test "${v:-0}" -gt 16384
		for n in memtrace_lost_events_total memtrace_untracked_frees_total \
			 memtrace_oom_kills_total memtrace_system_peak_bytes; do
			check "node_exporter: $n present" test -n "$(pval "$scrape" "$n")"
		done
		check "node_exporter: memtrace_system_peak_bytes >= the workload's 64 MiB" \
			test "$(pval "$scrape" memtrace_system_peak_bytes)" -ge $((64 << 20))
		for n in memtrace_events_total memtrace_lost_events_total memtrace_untracked_frees_total \
			 memtrace_oom_kills_total; do
			check "node_exporter: $n is a counter" grep -qx "# TYPE $n counter" "$scrape"
		done
		for n in memtrace_info memtrace_system_peak_bytes memtrace_task_current_bytes \
			 memtrace_task_peak_bytes memtrace_process_peak_bytes; do
			check "node_exporter: $n is a gauge" grep -qx "# TYPE $n gauge" "$scrape"
		done
		# negative control: the same file with one raw invalid byte in a label is refused
		# by both (so the checks above can fail)
		sed 's/comm="workload"/comm="work\xffload"/' "$T/snap.prom" > "$T/tf/broken.prom"
		curl -sf "http://127.0.0.1:$NE_PORT/metrics" > "$T/scrape2.txt"
		check "negative control: node_exporter refuses a copy with an invalid byte (scrape error 1)" \
			test "$(pval "$T/scrape2.txt" node_textfile_scrape_error)" = 1
		"$PROMTOOL" check metrics < "$T/tf/broken.prom" > /dev/null 2>&1
		check "negative control: promtool refuses it too" test $? != 0
		rm -f "$T/tf/broken.prom"
		stop_node_exporter
	fi
	ino=$(stat -c %i "$log")
	intervals_3() { [ "$(grep -c '"trigger":"interval"' "$log")" -ge 3 ]; }
	wait_for 10 intervals_3 || bad "main: fewer than 3 interval lines after 10 s"
	kill -USR2 "$MTPID"
	wait_for 5 grep -q '"trigger":"SIGUSR2"' "$log" || bad "main: no SIGUSR2 line"
	kill "$wpid" "$hpid" 2>/dev/null
	wait "$wpid" "$hpid" 2>/dev/null
	kill -TERM "$MTPID"; wait_exit "$MTPID"; rc=$?
	check "main: SIGTERM exits 0" test "$rc" = 0
	after=$(tfs_state)
	check "main: tracefs identical after the run" test "$before" = "$after"
	check "main: nothing on stderr but the start lines ($(grep -v 'tracing in\|warning: no module events\|oom_score_adj not set' "$T/err" | head -2))" \
		test -z "$(grep -v 'tracing in\|warning: no module events\|oom_score_adj not set' "$T/err")"

	# the JSON lines
	check "jsonl: the log file was appended to, never replaced (same inode)" \
		test "$(stat -c %i "$log")" = "$ino"
	python3 - "$log" "$wpid" > "$T/jsonl.out" 2>&1 <<'PY'
import json, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
assert lines[-1] == "", "the file ends with a newline"
objs = [json.loads(l) for l in lines[:-1]]
trig = [o["trigger"] for o in objs]
print("lines", len(objs))
print("triggers_ok", trig[-1] == "SIGTERM" and trig.count("SIGUSR2") == 1 and
      trig.count("interval") == len(objs) - 2 and trig.count("interval") >= 3)
print("schema_ok", all(set(("memtrace_version", "tasks", "modules", "events", "lost_events"))
                       <= set(o) for o in objs))
peaks = [max([t["peak_pages"] for t in o["tasks"] if t["pid"] == int(sys.argv[2])] or [0])
         for o in objs]
print("workload_ok", max(peaks) >= 16384 and peaks[-1] >= 16384)
print("growing_ok", all(a["events"]["processed"] <= b["events"]["processed"]
                        for a, b in zip(objs, objs[1:])))
PY
	n=$(awk '$1 == "lines" { print $2 }' "$T/jsonl.out")
	check "jsonl: every line parses as one JSON object ($n lines)" test "${n:-0}" -ge 5
	check "jsonl: triggers: interval ones (>= 3), one SIGUSR2, SIGTERM last" grep -qx "triggers_ok True" "$T/jsonl.out"
	check "jsonl: each line has the report's schema" grep -qx "schema_ok True" "$T/jsonl.out"
	check "jsonl: the workload's 64 MiB peak is in the lines" grep -qx "workload_ok True" "$T/jsonl.out"
	check "jsonl: events processed never go down from line to line" grep -qx "growing_ok True" "$T/jsonl.out"
	grep -q Error "$T/jsonl.out" && sed 's/^/#   /' "$T/jsonl.out" | tail -5

	# at exit the .prom file has the final numbers: the same as the final JSON line
	"$PROMTOOL" check metrics < "$prom" > "$T/promtool2.out" 2>&1; rc=$?
	check "exit: the final .prom file passes promtool" test "$rc" = 0 -a ! -s "$T/promtool2.out"
	tail -1 "$log" > "$T/final.json"
	check "exit: final memtrace_events_total = the final report's events processed" \
		test "$(pval "$prom" memtrace_events_total)" = "$(json "$T/final.json" "d['events']['processed']")"
	check "exit: final memtrace_untracked_frees_total = the final report's untracked frees" \
		test "$(pval "$prom" memtrace_untracked_frees_total)" = "$(json "$T/final.json" "d['untracked_frees']['events']")"
	check "exit: final memtrace_lost_events_total = the final report's lost events" \
		test "$(pval "$prom" memtrace_lost_events_total)" = "$(json "$T/final.json" "d['lost_events']")"
	check "exit: final memtrace_system_peak_bytes = system peak pages x page size" \
		test "$(pval "$prom" memtrace_system_peak_bytes)" = "$(json "$T/final.json" "d['system_peak']['pages'] * d['page_size']")"
	check "exit: final workload peak = the final report's, in bytes" \
		test "$(pval "$prom" memtrace_task_peak_bytes pid="$wpid")" = "$(json "$T/final.json" "[t['peak_pages'] * d['page_size'] for t in d['tasks'] if t['pid'] == $wpid][0]")"
	v=$(pval "$prom" memtrace_task_current_bytes pid="$wpid")
	check "exit: the exited workload is still listed (-n 0), its current bytes = the final report's ($v)" \
		test "$v" = "$(json "$T/final.json" "[t['current_pages'] * d['page_size'] for t in d['tasks'] if t['pid'] == $wpid][0]")"
	check "exit: ... and below 1 MiB (its 64 MiB were freed)" test "${v:-99999999}" -lt $((1 << 20))
	check "exit: no temporary file left in the textfile directory" \
		test "$(ls -A "$T/tf")" = memtrace.prom
}

# ------------------------------------------------------------ -n bounds the series
# -n 2: two task and two process series, whatever runs; a symlink planted at the JSON-lines
# log while memtrace runs is refused (said once), tracing goes on, the final report goes to
# stderr (one there at the start is refused at once: unwritable_test)
bounded_test() {
	local before after rc prom="$T/tf2/m.prom" bp v
	before=$(tfs_state)
	mkdir -p "$T/tf2"
	echo "keep" > "$T/precious2"
	start_mt --prometheus "$prom" --interval 1 -f json -o "$T/link.jsonl" -n 2 ||
		{ bad "bounded: memtrace did not start: $(head -3 "$T/err")"; return; }
	# planted at once, atomically (the first interval line comes a second later)
	ln -s "$T/precious2" "$T/link.new" && mv -T "$T/link.new" "$T/link.jsonl"
	"$WL" 16 200 & bp=$!
	wait "$bp"
	wait_for 5 grep -q "symlink" "$T/err"
	sleep 2.2	# two more intervals that cannot append either
	kill -TERM "$MTPID"; wait_exit "$MTPID"; rc=$?
	check "bounded: exits 1: the final report could not be appended to the log ($rc)" test "$rc" = 1
	check "bounded: ... it is on stderr instead" grep -q '"trigger":"SIGTERM"' "$T/err"
	check "bounded: -n 2: 2 memtrace_task_peak_bytes series" test "$(nseries "$prom" memtrace_task_peak_bytes)" = 2
	check "bounded: -n 2: 2 memtrace_task_current_bytes series" test "$(nseries "$prom" memtrace_task_current_bytes)" = 2
	check "bounded: -n 2: 2 memtrace_process_peak_bytes series" test "$(nseries "$prom" memtrace_process_peak_bytes)" = 2
	# the top 2 by peak: the 16 MiB workload (exited), unless two larger ones ran beside it
	v=$(pval "$prom" memtrace_task_peak_bytes pid="$bp")
	check "bounded: the 16 MiB workload (exited, ${v:-not listed}) is one of the two, or both are larger" \
		eval 'between "$v" $((16 << 20)) $((18 << 20)) ||
			{ [ -z "$v" ] && set -- $(python3 "$T/prom.py" --values "$prom" memtrace_task_peak_bytes) &&
			  [ $# = 2 ] && [ "$1" -ge $((16 << 20)) ] && [ "$2" -ge $((16 << 20)) ]; }' 
	check "bounded: a symlink at the JSON-lines log: not followed, its target untouched" \
		test "$(cat "$T/precious2")" = keep -a -L "$T/link.jsonl"
	check "bounded: ... and said on stderr" grep -q "symlink: not followed" "$T/err"
	check "bounded: said once for the intervals, once for the final report ($(grep -c symlink "$T/err"))" \
		test "$(grep -c "symlink" "$T/err")" = 2 -a \
		"$(grep -c "no interval lines until it can be written" "$T/err")" = 1
	after=$(tfs_state)
	check "bounded: tracefs identical after the run" test "$before" = "$after"
}

# ------------------------------------------------------------ a path that cannot be written
unwritable_test() {
	local before after rc
	before=$(tfs_state)
	"$MT" --instance "$INST" --prometheus "$T/missing/dir/m.prom" -o "$T/u.log" > /dev/null 2> "$T/u.err"
	rc=$?
	check "unwritable: --prometheus in a missing directory: exit 1 at start" test "$rc" = 1
	check "unwritable: ... saying why" grep -q -- "--prometheus $T/missing/dir/m.prom: .*No such file" "$T/u.err"
	"$MT" --instance "$INST" --daemon --prometheus "$T/missing/dir/m.prom" -o "$T/u.log" \
		> /dev/null 2> "$T/u2.err"
	rc=$?
	check "unwritable: --daemon: the parent returns the child's exit 1" test "$rc" = 1
	# a symlink at the JSON-lines log: never appended to, so refused before tracing starts
	echo keep > "$T/precious3"
	ln -s "$T/precious3" "$T/link3.jsonl"
	"$MT" --instance "$INST" --interval 1 -f json -o "$T/link3.jsonl" > /dev/null 2> "$T/u3.err"
	rc=$?
	check "unwritable: a symlink at the JSON-lines log: exit 1 at start, said ($(head -1 "$T/u3.err" | cut -c1-160))" \
		eval 'test "$rc" = 1 && grep -q -- "-o $T/link3.jsonl: appending to $T/link3.jsonl: is a symlink: not followed" "$T/u3.err"'
	check "unwritable: ... its target untouched" test "$(cat "$T/precious3")" = keep -a -L "$T/link3.jsonl"
	after=$(tfs_state)
	check "unwritable: tracefs identical after both" test "$before" = "$after"
}

t_start=$(now_ms)
find_tracefs
if ! can_trace "metrics tests"; then
	:
elif [ ! -x "$WL" ]; then
	skip_live "build/tests/workload must be built first"
elif [ -z "$PROMTOOL" ]; then
	skip_live "metrics tests: promtool not installed (Debian: apt-get install prometheus; .ci/run installs it)"
elif [ -z "$NODE_EXPORTER" ]; then
	skip_live "metrics tests: node_exporter not installed (Debian: apt-get install prometheus-node-exporter; .ci/run installs it)"
elif ! command -v curl > /dev/null; then
	skip_live "metrics tests: curl not installed"
else
	main_test
	bounded_test
	unwritable_test
fi
echo "# $(( ($(now_ms) - t_start) / 1000 )) s"
summary
[ "$fail" = 0 ]
