#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bootbin.sh - the boot binary (make memtrace-boot, issue 39, 3), what the dracut and
# initramfs-tools images take: static, stripped, within its size budget; its --help lists
# only what it has; every option of what it leaves out (--top, --stream, --diff, --exits,
# --svg, --prometheus, --interval and theirs) is a usage error (exit 2) that names the full
# binary, before anything is traced; what it has works: the fixtures replayed to the full
# binary's reports, and on the real tracefs a COMMAND, the daemon with USR1 and TERM, and
# the daemon as the images start it (--daemon, --pidfile, --kmsg, --stacks, --json,
# --record), whose recording both binaries replay to the same report.
#
# Builds ./memtrace-boot itself (musl-gcc: Debian's musl-tools; SKIP without it) and
# needs ./memtrace and build/tests/workload (make memtrace test-programs). The live part
# needs root and a tracefs (own instances memtrace-bootbinPID*; tracefs is left as found).
set -u
cd "$(dirname "$0")/.." || exit 1
# run from make check: none of the caller's make state may leak into the build
unset MAKEFLAGS MFLAGS MAKELEVEL MEMTRACE_TEP_SAID
FULL=$PWD/memtrace
MT=$PWD/memtrace-boot
WL=$PWD/build/tests/workload
T=$(mktemp -d /tmp/memtrace-bootbin.XXXXXX)
INST=memtrace-bootbin$$
. "$PWD/tests/lib.sh"

# The size budget, bytes: what memtrace-boot is today (226,960 bytes with Debian 12's gcc
# 12 and musl 1.2.3) and 18 KB of room, so that what a boot does not need is not let in
# unnoticed; issue 39's aim, 160 KiB, is not reached (docs/performance.md says where its
# bytes go). A change that makes it grow past the budget moves the budget here, with a reason.
# (A build property, deterministic for a toolchain; not a timing.)
BUDGET=${BOOT_BUDGET:-245760}

# What the boot build leaves out: each option (the full binary's long names), with a value
# where it takes one. Kept here apart from core/options.c's table, which it checks.
LEFT_OUT=(--top "-d 1" "--delay 1" "--count 1" --stream "-c process.name:x" "--cond process.name:x" --all
	"--events failed" "--queue-size 64" --diff "--fail-over 1" --exits "--pid 1" "--comm x"
	"--svg $T/x.svg" "--prometheus $T/x.prom" "--interval 5")

trap cleanup_live EXIT

# --help's option column, as tests/docs.sh reads it: one long option (or -x) a line
help_opts() {
	grep -E '^ {1,8}-' | sed -E 's/^ +//; s/ {2,}.*$//' | tr ',' '\n' |
		sed -E 's/^ +//; s/[ =[].*$//' | grep -E '^--?[A-Za-z]' | sort -u
}

# ------------------------------------------------------------------ the build
build_test() {
	local bytes
	make -s memtrace-boot > "$T/build.out" 2>&1
	check "make memtrace-boot builds ./memtrace-boot" test $? = 0 -a -x "$MT"
	[ -x "$MT" ] || { sed 's/^/    /' "$T/build.out"; return 1; }
	check "memtrace-boot is statically linked (no program interpreter)" \
		bash -c "! readelf -l '$MT' | grep -q INTERP"
	check "memtrace-boot is stripped (no symbol table)" bash -c "! readelf -S '$MT' | grep -q symtab"
	bytes=$(stat -c %s "$MT")
	check "memtrace-boot is within its budget ($bytes bytes <= $BUDGET; memtrace-static: $(
		stat -c %s memtrace-static 2>/dev/null || echo 'not built'))" test "$bytes" -le "$BUDGET"
	size "$MT" | sed 's/^/    /'
	check "memtrace-boot --version: the version, and that it is the boot build" \
		test "$("$MT" --version)" = "$("$FULL" --version) (the boot build)"
}

# ------------------------------------------------------------------ --help
help_test() {
	local o w full_left
	"$MT" --help > "$T/help" 2> "$T/help.err"
	check "memtrace-boot --help exits 0 and writes nothing on stderr" \
		test $? = 0 -a ! -s "$T/help.err"
	w=$(awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }' "$T/help")
	check "memtrace-boot --help is at most 80 columns wide ($w)" test "$w" -le 80
	help_opts < "$T/help" > "$T/boot.opts"
	"$FULL" --help | help_opts > "$T/full.opts"
	for o in "${LEFT_OUT[@]}"; do echo "${o%% *}"; done | sort -u > "$T/left.opts"
	full_left=$(comm -13 "$T/full.opts" "$T/left.opts" | tr '\n' ' ')
	check "each left-out option is in the full binary's --help (${full_left:-all are})" \
		test -z "$full_left"
	comm -23 "$T/full.opts" "$T/left.opts" > "$T/want.opts"
	check "its options are the full binary's but the left-out ones ($(wc -l < "$T/boot.opts") of $(
		wc -l < "$T/full.opts"))" cmp -s "$T/want.opts" "$T/boot.opts"
	diff "$T/want.opts" "$T/boot.opts" | sed 's/^/    /'
	check "no left-out option is named anywhere in it (nor a usage line of its modes)" \
		bash -c "! grep -qwE -- '$(sed 's/^-*//' "$T/left.opts" | grep -v '^[dc]$' |
			sed 's/^/--/' | paste -sd'|')|-[dc] ' '$T/help'"
	check "it says it is the boot build and that the full memtrace has more" \
		grep -q "This is memtrace-boot, the boot build for initramfs images. The full" "$T/help"
	check "its exit statuses: no 3 (that is --diff's)" \
		bash -c "grep -q '^Exit status: 0 ok, 1 runtime failure, 2 usage, 4 no privilege,$' '$T/help' &&
			! grep -q 'grew' '$T/help'"
}

# ------------------------------------------------------------------ left out
left_out_test() {
	local o name rc err bad_ones='' full_bad='' before
	find_tracefs
	before=$(tfs_state)
	for o in "${LEFT_OUT[@]}"; do
		# shellcheck disable=SC2086 # (the option and its value: two words)
		"$MT" --instance "$INST" $o --help > "$T/lo.out" 2> "$T/lo.err"
		rc=$?
		name=${o%% *}
		case $name in -d | --delay) name="-d, --delay" ;; -c | --cond) name="-c, --cond" ;; esac
		err="memtrace: $name is not in this build: this is memtrace-boot, the boot binary for initramfs images; use the full memtrace"
		if [ "$rc" != 2 ] || [ -s "$T/lo.out" ] || [ "$(head -1 "$T/lo.err")" != "$err" ]; then
			bad_ones="$bad_ones [$o: exit $rc, $(head -1 "$T/lo.err")]"
		fi
		# the full binary takes each (the --help after it is then what ends the parse)
		# shellcheck disable=SC2086
		"$FULL" $o --help > /dev/null 2>&1 || full_bad="$full_bad $o"
	done
	check "each left-out option (${#LEFT_OUT[@]}): exit 2, nothing on stdout, the message naming the full memtrace${bad_ones:+:$bad_ones}" \
		test -z "$bad_ones"
	check "the full memtrace takes each of them${full_bad:+: not$full_bad}" test -z "$full_bad"
	# refused before anything is done: no instance, no file, even in the images' daemon line
	"$MT" --instance "$INST" --daemon --pidfile "$T/lo.pid" --stacks -o "$T/lo.log" \
		--json "$T/lo.json" --svg "$T/lo.svg" > /dev/null 2> "$T/lo.err"
	rc=$?
	check "a left-out option among the images' daemon options: exit 2, no pidfile, log, JSON or picture" \
		eval '[ $rc = 2 ] && [ ! -e "$T/lo.pid" ] && [ ! -e "$T/lo.log" ] && [ ! -e "$T/lo.json" ] &&
			[ ! -e "$T/lo.svg" ] && grep -q "^memtrace: --svg is not in this build" "$T/lo.err"'
	check "the refusals left tracefs as found (no instance made)" test "$before" = "$(tfs_state)"
	# what it has still refuses what is wrong as the full binary does
	"$MT" --bogus > /dev/null 2> "$T/bogus.err"
	rc=$?
	check "an unknown option: exit 2, said as the full binary says it" \
		eval '[ $rc = 2 ] && [ "$(head -1 "$T/bogus.err")" = "memtrace: unknown option '"'"'--bogus'"'"'" ]'
}

# ------------------------------------------------------------------ replays
# the JSON reports of both binaries, "self" (the process's own figures) left out
strip_self() { sed 's/"self":{[^}]*},//'; }

replay_test() {
	local fx=tests/fixtures/debian-6.1-boot zr=tests/fixtures/debian-6.1-zram
	"$FULL" --replay "$fx" -f json -n 0 2> /dev/null | strip_self > "$T/full.json"
	"$MT" --replay "$fx" -f json -n 0 2> "$T/boot.err" | strip_self > "$T/boot.json"
	check "the 6.1 boot recording: the same JSON report as the full binary's ($(wc -c < "$T/boot.json") bytes)" \
		eval '[ -s "$T/boot.json" ] && cmp -s "$T/full.json" "$T/boot.json"'
	"$FULL" --replay "$zr" --stacks -f json -n 0 2> /dev/null | strip_self > "$T/fullz.json"
	"$MT" --replay "$zr" --stacks -f json -n 0 2> /dev/null | strip_self > "$T/bootz.json"
	check "the zram recording with --stacks: the same JSON report, its stacks and module trees" \
		eval '[ -s "$T/bootz.json" ] && cmp -s "$T/fullz.json" "$T/bootz.json" &&
			grep -q "\"stacks\":\[{" "$T/bootz.json"'
	"$FULL" --replay "$zr" --stacks -n 5 2> /dev/null | sed -n '/^STACKS OF/,$p' > "$T/fullz.txt"
	"$MT" --replay "$zr" --stacks -n 5 2> /dev/null | sed -n '/^STACKS OF/,$p' > "$T/bootz.txt"
	check "the zram recording with --stacks: the same text stack sections" \
		eval '[ -s "$T/bootz.txt" ] && cmp -s "$T/fullz.txt" "$T/bootz.txt"'
}

# ------------------------------------------------------------------ live
# the pages of the workload's row of a text report (task rows: PID TGID CUR PEAK ...)
wl_peak() { awk -v p="$2" '$1 == p && $2 == p { print $4; exit }' "$1"; }

command_test() {
	local before rc pid peak
	before=$(tfs_state)
	timeout -k 5 30 "$MT" --instance "$INST" -f json -n 0 -o "$T/cmd.json" -- sh -c \
		"$WL 32 200 & echo \$! > $T/cmd.pid; wait \$!; exit 7" > /dev/null 2> "$T/cmd.err"
	rc=$?
	pid=$(cat "$T/cmd.pid" 2>/dev/null)
	check "a COMMAND: its exit status passed through (7: $rc)" test "$rc" = 7
	peak=$(json "$T/cmd.json" "[p['peak_pages'] for p in d['processes'] if p['pid']==${pid:-0}][0]")
	check "a COMMAND: the report holds the workload's 32 MiB (${peak:-no} pages >= 8192)" \
		test "${peak:-0}" -ge 8192
	check "a COMMAND: tracefs left as found" test "$before" = "$(tfs_state)"
}

daemon_test() {
	local before pid peak rc
	before=$(tfs_state)
	start_mt -n 30 -o "$T/fg.log" || { bad "the daemon did not start: $(cat "$T/err")"; return; }
	"$WL" 32 300 & pid=$!
	wait "$pid"
	kill -USR1 "$MTPID"
	wait_for 10 grep -q 'trigger: SIGUSR1' "$T/stdout"
	peak=$(wl_peak "$T/stdout" "$pid")
	check "the daemon: USR1, a report on stdout with the workload's 32 MiB (${peak:-no} pages)" \
		test "${peak:-0}" -ge 8192
	kill -TERM "$MTPID"
	wait_exit "$MTPID"
	rc=$?
	check "the daemon: TERM, exit 0 ($rc) and the final report in the log file" \
		eval '[ $rc = 0 ] && grep -q "trigger: SIGTERM" "$T/fg.log" &&
			[ "$(wl_peak "$T/fg.log" "$pid")" -ge 8192 ]'
	check "the daemon: tracefs left as found" test "$before" = "$(tfs_state)"
}

# as dracut/99memtrace/memtrace-dracut.sh starts it (its own instance and files)
images_daemon_test() {
	local before rc pid mtpid peak stacks=
	before=$(tfs_state)
	[ -e "$TFS/events/kmem/mm_page_alloc/trigger" ] && stacks=1
	dmesg > /dev/null 2>&1 && [ -w /dev/kmsg ] || { bad "/dev/kmsg or dmesg not usable here"; return; }
	"$MT" --daemon --pidfile "$T/mt.pid" --kmsg --stacks -b 2048 -n 30 --stack-top 3 \
		--instance "$INST" -o "$T/img.log" --json "$T/img.json" --record "$T/rec" \
		> /dev/null 2> "$T/img.err"
	rc=$?
	mtpid=$(cat "$T/mt.pid" 2>/dev/null)
	[ -n "$mtpid" ] && PIDS+=("$mtpid")
	check "the images' daemon line: --daemon returns 0 once tracing is live (pid ${mtpid:-none})" \
		eval '[ $rc = 0 ] && [ -n "$mtpid" ] && [ "$(cat "$TFS/instances/$INST/tracing_on" 2>/dev/null)" = 1 ]'
	[ -n "$mtpid" ] || return
	"$WL" 32 300 & pid=$!
	wait "$pid"
	kill -USR2 "$mtpid"
	check "the images' daemon: USR2, the report so far in the log file" \
		wait_for 10 grep -qs 'trigger: SIGUSR2' "$T/img.log"
	kill -TERM "$mtpid"
	wait_for 20 eval '[ ! -d "/proc/$mtpid" ]'
	peak=$(wl_peak "$T/img.log" "$pid")
	check "the images' daemon: TERM, the final report with the workload's 32 MiB (${peak:-no} pages), the pidfile gone" \
		eval '[ "${peak:-0}" -ge 8192 ] && grep -q "trigger: SIGTERM" "$T/img.log" && [ ! -e "$T/mt.pid" ]'
	check "the images' daemon: --json, the final report again as JSON" \
		test "$(json "$T/img.json" "d['trigger']")" = SIGTERM
	check "the images' daemon: --kmsg, the summary in the kernel log" \
		bash -c "dmesg | grep -a -q 'memtrace: report (SIGTERM): .*full report in $T/img.log'"
	if [ -n "$stacks" ]; then
		check "the images' daemon: --stacks, the workload's stacks in the report" \
			grep -q "^STACKS OF TASK $pid " "$T/img.log"
	else
		skip "--stacks: this kernel has no event triggers"
	fi
	"$FULL" --replay "$T/rec" -f json -n 0 2> /dev/null | strip_self > "$T/rec.full.json"
	"$MT" --replay "$T/rec" -f json -n 0 2> /dev/null | strip_self > "$T/rec.boot.json"
	check "its --record: both binaries replay it to the same report, with the workload" \
		eval '[ -s "$T/rec.boot.json" ] && cmp -s "$T/rec.full.json" "$T/rec.boot.json" &&
			grep -q "\"pid\":$pid," "$T/rec.boot.json"'
	check "the images' daemon: tracefs left as found" test "$before" = "$(tfs_state)"
}

for f in "$FULL" "$WL"; do
	[ -x "$f" ] || { echo "$f is not built (make memtrace test-programs)"; exit 1; }
done
if ! command -v "${STATIC_CC:-musl-gcc}" > /dev/null; then
	skip "the boot binary: musl-gcc not installed (Debian package musl-tools)"
	summary
	exit 0
fi
if build_test; then
	help_test
	left_out_test
	replay_test
	find_tracefs
	if can_trace "the boot binary on the real tracefs"; then
		command_test
		daemon_test
		images_daemon_test
	fi
fi
summary
[ "$fail" = 0 ]
