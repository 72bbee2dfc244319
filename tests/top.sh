#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# top.sh - memtrace --top under a real terminal: tmux runs it, the test types keys with
# send-keys and reads the screen with capture-pane: a 64 MiB workload with its pages, every
# view, order, unit and scroll key, a resize, q, TERM, INT, HUP and a crash leaving the main
# screen and the terminal's settings as they were, TERM=dumb, batch frames, and hostile
# task names that must not reach the terminal.
#
# Needs root, a tracefs and tmux; says SKIP with the reason when one is missing. Uses its
# own tmux server (-L), instances named memtrace-top$$*, leaves tracefs as found, and
# kills only what it started.
set -u
cd "$(dirname "$0")/.." || exit 1
MT=$PWD/memtrace
MTH=$PWD/build/tests/memtrace-hooks
WL=$PWD/build/tests/workload
T=$(mktemp -d /tmp/memtrace-top.XXXXXX)
INST=memtrace-top$$
SOCK0=memtrace-top$$
SOCK=$SOCK0
. "$PWD/tests/lib.sh"
export LC_ALL=C

tm() { tmux -L "$SOCK" -f /dev/null "$@"; }

cleanup() {
	local p
	tm kill-server 2>/dev/null
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK0"*	# our servers' sockets, left by tmux
	for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	undo_ours
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

screen() { tm capture-pane -p -t top 2>/dev/null; }	# what the pane shows now
alt_on() { tm display -p -t top '#{alternate_on}' 2>/dev/null; }
shows() { screen | grep -qF -- "$1"; }			# shows TEXT
shows_re() { screen | grep -qE -- "$1"; }		# shows_re REGEX
alt_is() { [ "$(alt_on)" = "$1" ]; }
file_has() { [ -e "$1" ]; }
sel_on() { screen | sed -n "${1}p" | grep -q '^>'; }	# sel_on LINE: the selection is there
on_top() { sel_on 5 && shows "; rows 1-20;"; }	# the first row of rows 1-20 selected
# the header's clock (every frame's), and that it moved on from $1: a frame drawn since
clock_now() { screen | sed -nE 's/^memtrace [0-9.]+  ([0-9]{2}:[0-9]{2}:[0-9]{2})Z.*/\1/p'; }
clock_moved() { local c; c=$(clock_now); [ -n "$c" ] && [ "$c" != "$1" ]; }
# logged PID PAGES: the USR1 report memtrace --top writes to $T/keys.log has PID with at
# least PAGES current pages; if not yet, ask for a new report (polled with wait_for)
logged() {
	awk -v p="$1" -v n="$2" '/^TASKS:/ { t = 1; next } /^$/ { t = 0 }
		t && $1 == p && $6 >= n { f = 1 } END { exit !f }' "$T/keys.log" 2> /dev/null && return 0
	kill -USR1 "$MTPID"
	return 1
}
# the status line of the task view by current pages: its rows 1 to as many as there are,
# at most the 20 an 80x24 pane has room for (a quiet machine may have fewer tasks)
task_status_ok() {
	local l
	l=$(screen | grep -E '^TASKS: ' | head -1)
	[[ $l =~ ^TASKS:\ ([0-9]+),\ by\ current\ pages\;\ rows\ 1-([0-9]+)\;\ h:\ keys ]] ||
		return 1
	[ "${BASH_REMATCH[2]}" -eq $((BASH_REMATCH[1] < 20 ? BASH_REMATCH[1] : 20)) ]
}
sorted_col() {	# sorted_col COLUMN SORT-OPTIONS...: the rows are in that order
	rows | awk -v c="$1" '{ print $c }' | sed 's/^+//' | sort -c "${@:2}" 2> /dev/null
}
field_is() {	# field_is PID N[,M] REGEX: fields N (and M) of PID's row match
	local n=${2%,*} m=${2#*,}
	rows | awk -v p="$1" -v n="$n" -v m="$m" '$1 == p { print (n == m) ? $n : $n " " $m; exit }' |
		grep -qE -- "$3"
}
has_pages() { [ "$(row_field "$1" 3)" -ge "$2" ] 2> /dev/null; }	# has_pages PID PAGES
# near N REF: N is REF within 1 % (a workload's stack and page tables may move a page
# or two between the frame REF was read from and this one)
near() { [ -n "$1" ] && [ $(($1 > $2 ? $1 - $2 : $2 - $1)) -le $(($2 / 100)) ] 2> /dev/null; }
# kib_of PID PAGES: PID's CUR column in KiB is 4 KiB a page, near PAGES
kib_of() {
	local k
	k=$(row_field "$1" 3)
	[ -n "$k" ] && [ $((k % 4)) = 0 ] 2> /dev/null && near $((k / 4)) "$2"
}
# proc_row PID PAGES: the process row of PID has this shell as parent, 1 thread and pages near PAGES
proc_row() {
	local pp t p
	read -r pp t p < <(rows | awk -v p="$1" '$1 == p { print $2, $3, $4; exit }')
	[ "$pp" = $$ ] && [ "$t" = 1 ] && near "$p" "$2"
}
# state_is PID STATE: the row of PID says STATE (its field 6 in the task view; "" no row)
state_is() { [ "$(row_field "$1" 6)" = "$2" ]; }
# no_exited: no row of the screen is exited
no_exited() { ! rows | awk '$6 == "exited"' | grep -q .; }
# name_is PID NAME: in the process view, the name column of PID's row
name_is() { [ "$(rows | awk -v p="$1" '$1 == p { print $8; exit }')" = "$2" ]; }
# the header's pages tracked now: at least the 64 MiB workload's, at most the peak
tracked_ok() {
	screen | sed -nE 's/.*tracked now ([0-9]+) pages, peak ([0-9]+) .*/\1 \2/p' |
		awk '{ ok = $1 >= 16384 && $1 <= $2 } END { exit !ok }'
}
# cmd_shown PID [FROM]: in the process view, its row's name column is its command line
# ($WL ...) from column FROM (Left/Right; 0 by default), cut at the edge
cmd_shown() {
	local c w=${WL:${2:-0}}
	c=$(rows | awk -v p="$1" '$1 == p { print $8; exit }')
	[ "${#c}" -ge 12 ] && [[ $w == "$c"* ]]
}
# the screen with its attributes as tmux keeps them: no ESC [ at all (TERM=dumb)
no_attrs() { ! tm capture-pane -p -e -t top | grep -q $'\033\\['; }
# the escaped name's line is not drawn red: no SGR 31 from the name
not_red() { ! tm capture-pane -p -e -t top | grep -F 'x1b[2J' | grep -qE $'\033\\[([0-9]+;)*31(;[0-9]+)*m'; }
frames_in() { [ "$(grep -c '^TASKS:' "$1")" -ge "$2" ]; }	# frames_in FILE N

# start_view NAME [ENV=VALUE...] -- [MEMTRACE OPTIONS]: memtrace --top in a new 80x24
# tmux session "top" (the server's only one); the pane saves the terminal's settings
# before and after, and memtrace's exit status, in $T/NAME.{before,after,rc}.
# MTPID is memtrace's pid. Fails unless the view is up within 10 s.
start_view() {
	local name=$1 envs=() panepid i; shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	tm kill-server 2>/dev/null
	# a server of its own per view: a new session must never reach the previous
	# view's server while that one is still exiting ("server exited unexpectedly")
	SOCK=$SOCK0-$name
	rm -f "$T/$name".*
	cat > "$T/$name.sh" <<-EOF
		stty -g > '$T/$name.before'
		env ${envs[*]:-} ${MT_BIN:-$MT} --top --instance $INST-$name -o '$T/$name.log' $* 2> '$T/$name.err'
		echo \$? > '$T/$name.rc.tmp'; stty -g > '$T/$name.after'; mv '$T/$name.rc.tmp' '$T/$name.rc'
		exec sleep 600
	EOF
	tm new-session -d -s top -x 80 -y 24 "bash $T/$name.sh" || return 1
	panepid=$(tm display -p -t top '#{pane_pid}')
	PIDS+=("$panepid")
	MTPID=
	for i in $(seq 200); do
		MTPID=$(pgrep -P "$panepid" -x "$(basename "${MT_BIN:-$MT}")" | head -1)
		[ -n "$MTPID" ] && shows "ev/s" && return 0
		[ -e "$T/$name.rc" ] && break
		sleep 0.05
	done
	echo "# $name: not up; stderr: $(head -3 "$T/$name.err" 2>/dev/null)"
	return 1
}

# the pane's memtrace is gone: its exit status is in $T/NAME.rc
ended() { [ -s "$T/$1.rc" ]; }

# rows NAME-OF-COLUMN...: the screen's rows as "PID TGID CUR PEAK RATE STATE COMM" fields
rows() { screen | sed -n '5,$p' | sed 's/^>/ /' | awk 'NF >= 7'; }

# field N of the row whose PID column is PID
row_field() { rows | awk -v p="$1" -v f="$2" '$1 == p { print $f; exit }'; }

pages_of() {	# pages_of PID: its CUR column, when it shows at least 64 MiB of pages
	local v
	v=$(row_field "$1" 3)
	[ -n "$v" ] && [ "$v" -ge 16384 ] 2>/dev/null
}

# ------------------------------------------------------------------ the view, its keys
view_test() {
	local before after wl wl2 wlx cur n first last col sleepers=() i c0
	before=$(tfs_state)
	# rows to scroll through whatever else runs on the machine: 40 processes with pages
	# (seeded from /proc at the start)
	for ((i = 0; i < 40; i++)); do sleep 600 & sleepers+=($!); PIDS+=($!); done
	start_view keys -- -d 0.2 -n 0 || { bad "view: memtrace --top did not come up"; return; }
	check "view: on the alternate screen (alternate_on 1)" alt_is 1
	check "view: header with uptime, events/s, lost events, running (a loaded machine may lose some)" \
		shows_re '^memtrace [0-9.]+  [0-9]{2}:[0-9]{2}:[0-9]{2}Z  up ([0-9]+d )?[0-9:]+  [0-9]+ ev/s  (lost|LOST) [0-9]+  running'
	check "view: MemAvailable, MemTotal, the pages tracked now and the system peak in the header, how long ago" \
		wait_for 5 shows_re '^MemAvailable [0-9.]+ [GM]iB of [0-9.]+ [GM]iB  tracked now [0-9]+ pages, peak [0-9]+ \([0-9]+ s ago\)$'
	check "view: the task view by current pages, rows 1 to min(tasks, 20)" wait_for 3 task_status_ok
	check "view: the column names" wait_for 3 shows_re 'PID +TGID +CUR_PAGES PEAK_PAGES +PAGES/s STATE +COMM'

	# a workload holding 64 MiB shows with its pages
	"$WL" 64 600000 "$T/wl.ready" & wl=$!
	PIDS+=("$wl")
	wait_for 10 file_has "$T/wl.ready" || true
	if wait_for 10 pages_of "$wl"; then
		cur=$(row_field "$wl" 3)
		check "view: the 64 MiB workload shows 16384 pages and a little more (CUR $cur)" \
			test "$cur" -ge 16384 -a "$cur" -le 17000
		check "view: its row has its pid, tgid, peak, alive, workload" \
			test "$(rows | awk -v p="$wl" '$1 == p { print $2, ($4 >= $3), $6, $7 }')" = "$wl 1 alive workload"
		check "view: the first row is selected" sel_on 5
		check "view: tracked now holds the workload's 16384 pages, at most the peak" tracked_ok
	else
		bad "view: the workload (pid $wl) did not show 16384 pages: $(screen | sed -n 5,8p | tr '\n' '|')"
	fi

	# units
	tm send-keys -t top u
	check "u: KiB (the workload's pages x 4, $cur within 1 %)" wait_for 3 kib_of "$wl" "${cur:-x}"
	check "u: the column names in KiB" shows "CUR_KIB   PEAK_KIB     KIB/s"
	check "u: the status line's order in KiB too (by current KiB)" shows_re '^TASKS: [0-9]+, by current KiB;'
	tm send-keys -t top u
	check "u: MiB (64.x)" wait_for 3 field_is "$wl" 3 '^6[4-6]\.[0-9]$'
	tm send-keys -t top u
	check "u: back to pages" wait_for 3 shows "CUR_PAGES PEAK_PAGES"

	# views
	tm send-keys -t top p
	check "p: processes, threads summed" wait_for 3 shows_re '^PROCESSES: [0-9]+, by current pages'
	check "p: PID, PPID and THREADS columns" shows_re 'PID +PPID THREADS +CUR_PAGES'
	check "p: the workload's process row: this shell its parent, 1 thread, its pages ($cur, within 1 %)" \
		wait_for 3 proc_row "$wl" "${cur:-x}"
	tm send-keys -t top c
	check "c: the command line in the name column (COMMAND)" wait_for 3 shows_re 'STATE +COMMAND$'
	check "c: the workload's row shows its command line ($WL ...)" wait_for 3 cmd_shown "$wl"
	tm send-keys -t top Right
	check "c: Right scrolls the command lines 8 columns" wait_for 3 cmd_shown "$wl" 8
	tm send-keys -t top Left c
	check "c again: the name" wait_for 3 eval 'shows_re "STATE +COMM$" && name_is "$wl" workload'
	tm send-keys -t top m
	check "m: modules" wait_for 3 shows_re '^MODULES: [0-9]+, by current pages'
	check "m: NAME, CUR, PEAK, LOAD_PEAK, STATIC_KIB, STATE" \
		shows_re 'NAME +CUR_PAGES PEAK_PAGES  LOAD_PEAK STATIC_KIB STATE'
	if [ ! -d "$TFS/events/module" ]; then
		check "m: no module events on this kernel: the view says why where the rows would be" \
			wait_for 3 eval 'screen | sed -n 5p | grep -qF "(no module events: this kernel has no module support)"'
	else
		check "m: module events: rows, or why none" wait_for 3 \
			eval 'screen | sed -n 5p | grep -qE "^[> ] |no module loaded since the start"'
	fi
	tm send-keys -t top t
	check "t: tasks again" wait_for 3 shows_re '^TASKS: '

	# orders (frozen: the same rows for each check)
	tm send-keys -t top f
	check "f: frozen, said in the header" wait_for 3 shows_re '(lost|LOST) [0-9]+  FROZEN$'
	tm send-keys -t top s
	check "s: by peak pages" wait_for 3 shows 'by peak pages'
	check "s: peak column largest first" sorted_col 4 -n -r
	tm send-keys -t top s
	check "s: by change per second" wait_for 3 shows 'by change per second'
	check "s: change column largest first" sorted_col 5 -g -r
	tm send-keys -t top s
	check "s: by pid" wait_for 3 shows 'by pid'
	check "s: pids ascending" sorted_col 1 -n
	tm send-keys -t top r
	check "r: reversed" wait_for 3 shows 'by pid, reversed'
	check "r: pids descending" sorted_col 1 -n -r
	tm send-keys -t top p
	check "r: per view: the process view is not reversed" wait_for 3 shows_re '^PROCESSES: [0-9]+, by current pages; rows'
	tm send-keys -t top t
	check "r: per view: the task view still is" wait_for 3 shows 'by pid, reversed'
	check "r: per view: pids still descending" sorted_col 1 -n -r
	tm send-keys -t top r s
	check "s: by name" wait_for 3 shows_re 'by name; rows'
	check "s: names ascending" wait_for 3 sorted_col 7
	tm send-keys -t top s
	check "s: round to current pages" wait_for 3 shows_re 'by current pages; rows'

	# scrolling and selection (still frozen)
	n=$(screen | sed -nE 's/^TASKS: ([0-9]+),.*/\1/p')
	if [ "${n:-0}" -gt 25 ]; then
		tm send-keys -t top Down Down Down
		check "Down x3: the fourth row selected" wait_for 3 sel_on 8
		tm send-keys -t top NPage
		check "PgDn: a page further (rows 5-24)" wait_for 3 shows "; rows 5-24;"
		check "PgDn: the selection on the last line" sel_on 24
		tm send-keys -t top End
		first=$(( n - 19 ))
		check "End: the last rows ($first-$n of $n)" wait_for 3 shows "; rows $first-$n;"
		tm send-keys -t top PPage
		last=$(( n - 20 ))
		check "PgUp: a page back (selection on row $last, the first line)" \
			wait_for 3 shows "; rows $last-$(( last + 19 ));"
		tm send-keys -t top Home
		check "Home: rows 1-20, the first row selected" wait_for 3 shows "; rows 1-20;"
		check "Home: '>' on the first row" sel_on 5
		# u after Up: its frame is drawn once Up was taken (keys are read in order)
		tm send-keys -t top Up u
		check "Up on the first row: taken, the view redrawn after it (u: KiB)" \
			wait_for 3 shows "CUR_KIB"
		check "Up on the first row: stays (rows 1-20, '>' on the first)" on_top
		tm send-keys -t top u u
		check "u u: back to pages" wait_for 3 shows "CUR_PAGES PEAK_PAGES"
	else
		bad "scroll: only ${n:-0} tasks on the screen, 26 needed"
	fi

	# frozen: a new workload does not show until thawed; first that it runs, that
	# memtrace counted its pages (a USR1 report in the log says so) and that the view
	# drew a frame since: else not showing it would prove nothing
	"$WL" 32 600000 "$T/wl2.ready" & wl2=$!
	PIDS+=("$wl2")
	c0=
	if ! wait_for 10 file_has "$T/wl2.ready"; then
		bad "f: frozen: the new 32 MiB workload did not start (pid $wl2)"
	elif ! wait_for 5 logged "$wl2" 8192; then
		bad "f: frozen: memtrace's USR1 report has no 8192 pages of the new workload (pid $wl2)"
	elif c0=$(clock_now) && ! wait_for 3 clock_moved "$c0"; then
		bad "f: frozen: the view drew no frame since (its clock stays at ${c0:-nothing})"
	else
		check "f: frozen rows: a new 32 MiB workload not shown (memtrace counts its 8192 pages; a frame drawn since, at $(clock_now))" \
			test -z "$(row_field "$wl2" 3)"
	fi
	tm send-keys -t top f
	check "f again: running, the new workload shows" wait_for 5 has_pages "$wl2" 8192
	check "f again: running in the header" shows_re '(lost|LOST) [0-9]+  running$'

	# x: a workload that has exited shows dimmed, "exited"; x leaves it (and the others) out
	"$WL" 16 300 "$T/wlx.ready" & wlx=$!
	PIDS+=("$wlx")
	wait "$wlx"
	check "x: an exited 16 MiB workload shows, exited (pid $wlx)" \
		wait_for 5 state_is "$wlx" exited
	tm send-keys -t top x
	check "x: the exited rows hidden, their count in the header" \
		wait_for 3 shows_re '^TASKS: [0-9]+ \([1-9][0-9]* exited hidden\), by current pages'
	check "x: the exited workload's row gone, no exited row left" \
		eval 'state_is "$wlx" "" && no_exited'
	tm send-keys -t top s
	check "x: in the peak order too" \
		wait_for 3 eval 'shows_re "exited hidden\), by peak pages" && no_exited'
	tm send-keys -t top s s s s x
	check "x again: the exited rows back, no count" \
		wait_for 3 eval 'shows_re "^TASKS: [0-9]+, by current pages" && state_is "$wlx" exited'

	# help, Enter
	tm send-keys -t top h
	check "h: the keys" wait_for 3 shows 'u  units: pages, KiB, MiB'
	tm send-keys -t top x
	check "any key closes the help" wait_for 3 shows 'CUR_PAGES'
	tm send-keys -t top '?'
	check "?: the keys too" wait_for 3 shows 'q  quit'
	tm send-keys -t top Escape
	wait_for 3 shows 'CUR_PAGES' || true
	tm send-keys -t top Enter
	check "Enter without --stacks: says to run with --stacks" wait_for 3 shows 'no stacks: run with --stacks'
	check "Enter without --stacks: says it where the stacks would be, under the row" \
		eval 'screen | sed -n 6p | grep -qF "(no stacks: start memtrace --top --stacks to record them)"'
	tm send-keys -t top Space
	check "space on the row: folds it again" \
		wait_for 3 eval '! shows "(no stacks: start memtrace"'
	tm send-keys -t top Space
	check "space: the same as Enter" wait_for 3 shows 'no stacks: run with --stacks'
	tm send-keys -t top z
	check "the next key clears the message" wait_for 3 shows '; h: keys'
	tm send-keys -t top Enter
	wait_for 3 eval '! shows "(no stacks: start memtrace"' || bad "Enter: the note stays"

	# resize: SIGWINCH through the signalfd, the view follows
	tm resize-window -t top -x 100 -y 40
	check "resize to 100x40: rows 1-36" wait_for 3 shows "; rows 1-36;"
	check "resize to 100x40: 40 lines" test "$(screen | wc -l)" = 40
	tm resize-window -t top -x 60 -y 15
	check "resize to 60x15: rows 1-11" wait_for 3 shows "; rows 1-11;"
	check "resize to 60x15: no line wider than 60" test "$(screen | awk '{ if (length > w) w = length } END { print w + 0 }')" -le 60
	tm resize-window -t top -x 80 -y 24
	check "resize back to 80x24: rows 1-20" wait_for 3 shows "; rows 1-20;"

	kill "$wl" "$wl2" "${sleepers[@]}" 2>/dev/null
	wait "$wl" "$wl2" "${sleepers[@]}" 2>/dev/null
	# q
	tm send-keys -t top q
	check "q: memtrace ends" wait_for 10 ended keys
	check "q: exit status 0 ($(cat "$T/keys.rc" 2>/dev/null))" test "$(cat "$T/keys.rc" 2>/dev/null)" = 0
	check "q: the main screen is back (alternate_on 0)" wait_for 3 alt_is 0
	check "q: the terminal's settings are as before" cmp -s "$T/keys.before" "$T/keys.after"
	check "q: the cursor is shown again" test "$(tm display -p -t top '#{cursor_flag}')" = 1
	check "q: the final report in the log (trigger quit)" \
		grep -q '^memtrace .* report (trigger: quit, live)' "$T/keys.log"
	check "q: the workload in the final report" grep -qE "^ +$wl +$wl .* workload$" "$T/keys.log"
	check "q: the banner on stderr, before the view" grep -qF "tracing in $TFS/instances/$INST-keys" "$T/keys.err"
	after=$(tfs_state)
	check "view: tracefs identical afterwards" test "$before" = "$after"
}

# ------------------------------------------------------------------ stacks (--stacks)
stacks_test() {
	local before after wl n i f0
	before=$(tfs_state)
	start_view stk -- --stacks -d 0.3 || { bad "stacks: memtrace --top --stacks did not come up"; return; }
	"$WL" 64 600000 "$T/wls.ready" & wl=$!
	PIDS+=("$wl")
	wait_for 10 file_has "$T/wls.ready" || true
	if ! wait_for 10 pages_of "$wl"; then
		bad "stacks: the workload never showed"
	else
		# select its row (the selection then stays on it whatever the order does). On a
		# busy machine other rows (sanitizer builds, a parallel make) hold more pages and
		# move, and the view may take seconds to take a key: so each round counts the
		# lines from '>' to the workload's row on the screen as it is, sends that many
		# Down (or Up), and waits for the screen to follow before it counts again
		wl_selected() { screen | grep -qE "^> +$wl +$wl "; }
		for ((i = 0; i < 20; i++)); do
			wait_for 1 wl_selected && break
			n=$(screen | awk -v p="$wl" '/^>/ { s = NR } $0 ~ "^[> ] +" p " +" p " " { w = NR }
				END { print (s && w) ? w - s : "" }')
			if [ -z "$n" ]; then
				tm send-keys -t top Home	# the row is off the screen: from the top
			elif [ "$n" -gt 0 ]; then
				tm send-keys -t top -N "$n" Down
			else
				tm send-keys -t top -N "$(( -n ))" Up
			fi
			wait_for 3 wl_selected && break
		done
		check "stacks: the workload's row selected" wait_for 5 wl_selected
		tm send-keys -t top Enter
		# the tree under the row: a line a stack, a line a frame (line L: the row's)
		wl_line() { screen | grep -nE "^[> ] +$wl +$wl " | head -1 | cut -d: -f1; }
		line_of() { screen | sed -n "$(( $(wl_line) + $1 ))p"; }	# line_of N: N under the row
		check "stacks: Enter shows its stacks as a tree: a line for stack 1, its 16384+ pages" \
			wait_for 5 eval 'line_of 1 | grep -qE "^ +\[-\] stack 1 of [0-9]+: 1[0-9]{4}/1[0-9]{4} pages \(now/peak\), [0-9]+ frames"'
		check "stacks: one frame a line under it, through the page-fault path" \
			wait_for 5 shows_re '^ {8}[a-z_]*(do_anonymous_page|handle_mm_fault|exc_page_fault)\+0x[0-9a-f]+(/0x[0-9a-f]+)?( \[[^]]+\])?$'
		check "stacks: the outer frames that tell paths apart are there (the user entry)" \
			shows_re '^ {8}(asm_exc_page_fault|exc_page_fault)\+0x'
		check "stacks: no line holds two frames" eval '! screen | grep -qF " < "'
		check "stacks: innermost first, the tracing frames left out" \
			eval '! screen | grep -qE "trace_event_raw_event|__traceiter"'
		# Right: every frame line moves 8 columns (stack 1's first frame)
		f0=$(line_of 2 | sed -E 's/^ {8}//')
		tm send-keys -t top Right
		check "stacks: Right scrolls the frames 8 columns (${f0:0:24}...)" \
			wait_for 5 eval '[ -n "$f0" ] && [[ "$(line_of 2)" == "        ${f0:8}"* ]]'
		tm send-keys -t top Left
		check "stacks: Left scrolls them back" \
			wait_for 5 eval '[ "$(line_of 2)" = "        $f0" ]'
		tm send-keys -t top Down
		check "stacks: Down selects stack 1's line" wait_for 5 eval 'line_of 1 | grep -qE "^> +\[-\] stack 1 "'
		tm send-keys -t top Space
		check "stacks: Space on it folds stack 1 ([+], its frames gone)" \
			wait_for 5 eval 'line_of 1 | grep -qE "^> +\[\+\] stack 1 " && ! line_of 2 | grep -qE "^ {8}[^ ]"'
		tm send-keys -t top Enter
		check "stacks: Enter unfolds it" \
			wait_for 5 eval 'line_of 1 | grep -qE "^> +\[-\] stack 1 " && line_of 2 | grep -qE "^ {8}[a-z_.]+\+0x"'
		tm send-keys -t top Up Enter
		check "stacks: Up, Enter on the row hides the tree" \
			wait_for 5 eval '! screen | grep -qE "stack 1 of"'
	fi
	kill "$wl" 2>/dev/null
	wait "$wl" 2>/dev/null
	tm send-keys -t top q
	check "stacks: q ends it, status 0" eval 'wait_for 10 ended stk && [ "$(cat "$T/stk.rc")" = 0 ]'
	after=$(tfs_state)
	check "stacks: tracefs identical afterwards (the trigger gone with the instance)" test "$before" = "$after"
}

# ------------------------------------------------------------------ signals, crash, dumb
signal_test() {	# signal_test SIG TRIGGER
	local sig=$1 trig=$2 name before after
	name=sig$sig
	before=$(tfs_state)
	start_view "$name" -- -d 0.5 || { bad "$sig: memtrace --top did not come up"; return; }
	check "$sig: on the alternate screen first" alt_is 1
	kill -"$sig" "$MTPID"
	check "$sig: memtrace ends" wait_for 10 ended "$name"
	check "$sig: exit status 0 ($(cat "$T/$name.rc" 2>/dev/null))" test "$(cat "$T/$name.rc" 2>/dev/null)" = 0
	check "$sig: the main screen is back (alternate_on 0)" wait_for 3 alt_is 0
	check "$sig: the terminal's settings are as before" cmp -s "$T/$name.before" "$T/$name.after"
	check "$sig: the final report in the log (trigger $trig)" \
		grep -q "^memtrace .* report (trigger: $trig, live)" "$T/$name.log"
	after=$(tfs_state)
	check "$sig: tracefs identical afterwards" test "$before" = "$after"
}

# a crash of the view code (test build: SIGSEGV after the tenth frame), then each fault
# signal sent with kill, as a real fault arrives: the terminal back, the instance gone
crash_test() {
	local rc sig fv before after
	before=$(tfs_state)
	MT_BIN=$MTH start_view crash MEMTRACE_TEST_TOP_CRASH_FRAME=10 -- -d 0.3 ||
		{ bad "crash: memtrace-hooks --top did not come up"; return; }
	check "crash: memtrace dies" wait_for 10 ended crash
	rc=$(cat "$T/crash.rc" 2>/dev/null)
	check "crash: of SIGSEGV (status $rc)" test "$rc" = 139
	check "crash: the main screen is back (alternate_on 0)" wait_for 3 alt_is 0
	check "crash: the terminal's settings are as before" cmp -s "$T/crash.before" "$T/crash.after"
	check "crash: the cursor is shown again" test "$(tm display -p -t top '#{cursor_flag}')" = 1
	after=$(tfs_state)
	check "crash: the instance removed, tracefs identical afterwards" test "$before" = "$after"
	for sig in SEGV BUS ABRT FPE ILL; do
		fv=fault$sig	# (not "name": check's own local)
		start_view "$fv" -- -d 0.3 || { bad "SIG$sig: memtrace --top did not come up"; continue; }
		kill -"$sig" "$MTPID"
		check "SIG$sig: memtrace dies of it" eval 'wait_for 10 ended "$fv" &&
			[ "$(cat "$T/$fv.rc")" = $((128 + $(kill -l "$sig"))) ]'
		check "SIG$sig: the main screen is back, the settings as before" eval \
			'wait_for 3 alt_is 0 && cmp -s "$T/$fv.before" "$T/$fv.after"'
		after=$(tfs_state)
		check "SIG$sig: the instance removed, tracefs identical afterwards" test "$before" = "$after"
	done
}

dumb_test() {
	local before after
	before=$(tfs_state)
	start_view dumb TERM=dumb -- -d 0.3 || { bad "TERM=dumb: memtrace --top did not come up"; return; }
	check "TERM=dumb: not on the alternate screen" alt_is 0
	check "TERM=dumb: frames of plain lines" shows_re '^TASKS: [0-9]+, by current pages'
	check "TERM=dumb: no attribute or colour on the screen" no_attrs
	tm send-keys -t top p
	check "TERM=dumb: keys work (p: processes)" wait_for 3 shows_re '^PROCESSES: '
	tm send-keys -t top q
	check "TERM=dumb: q ends it, status 0" wait_for 10 ended dumb
	check "TERM=dumb: exit status 0" test "$(cat "$T/dumb.rc" 2>/dev/null)" = 0
	check "TERM=dumb: the terminal's settings are as before" cmp -s "$T/dumb.before" "$T/dumb.after"
	after=$(tfs_state)
	check "TERM=dumb: tracefs identical afterwards" test "$before" = "$after"
}

# ------------------------------------------------------------------ hostile names

names_test() {
	local h1 h2 h3 title
	start_view names -- -d 0.2 || { bad "names: memtrace --top did not come up"; return; }
	title=$(tm display -p -t top '#{pane_title}')
	# leave the alternate screen, set the title, clear the screen: 15 bytes each at most
	python3 tests/hostile.py "$(printf '\033[?1049lX' | od -An -tx1 | tr -d ' \n')" "$T/h1.ready" 30 & h1=$!
	python3 tests/hostile.py "$(printf '\033]2;pwned\a' | od -An -tx1 | tr -d ' \n')" "$T/h2.ready" 30 & h2=$!
	python3 tests/hostile.py "$(printf '\033[2J\033[31mRED' | od -An -tx1 | tr -d ' \n')" "$T/h3.ready" 30 & h3=$!
	PIDS+=("$h1" "$h2" "$h3")
	wait_for 10 file_has "$T/h1.ready" && wait_for 10 file_has "$T/h2.ready" &&
		wait_for 10 file_has "$T/h3.ready" || true
	check "names: leaving the alternate screen, shown escaped" wait_for 5 shows '\x1b[?1049lX'
	check "names: setting the title, shown escaped" wait_for 5 shows '\x1b]2;pwned\x07'
	check "names: clearing the screen and red, shown escaped" wait_for 5 shows '\x1b[2J\x1b[31mRED'
	check "names: still on the alternate screen" alt_is 1
	check "names: the pane's title was not set ($(tm display -p -t top '#{pane_title}'))" \
		test "$(tm display -p -t top '#{pane_title}')" = "$title"
	check "names: the header was not cleared" shows_re '^memtrace [0-9.]+  [0-9:]{8}Z  up'
	check "names: the name is not drawn red" not_red
	kill "$h1" "$h2" "$h3" 2>/dev/null
	wait "$h1" "$h2" "$h3" 2>/dev/null
	tm send-keys -t top q
	wait_for 10 ended names || bad "names: q did not end memtrace"
	check "names: exit status 0" test "$(cat "$T/names.rc" 2>/dev/null)" = 0
}

# ------------------------------------------------------------------ batch frames
batch_test() {
	local before after rc t0 ms n p
	before=$(tfs_state)
	t0=$(now_ms)
	timeout -k 5 30 "$MT" --top --instance "$INST-batch" --count 3 -d 1 -o "$T/batch.log" \
		> "$T/frames.txt" 2> "$T/batch.err"
	rc=$?
	ms=$(( $(now_ms) - t0 ))
	check "batch: --count 3 -d 1 > file: exit status 0 ($rc)" test "$rc" = 0
	n=$(grep -cE '^memtrace [0-9.]+  [0-9:]{8}Z  up ([0-9]+d )?[0-9:]+  [0-9]+ ev/s  (lost|LOST) [0-9]+  running$' "$T/frames.txt")
	check "batch: 3 frames ($n)" test "$n" = 3
	check "batch: each frame has its header, status and column names" \
		test "$(grep -c '^TASKS: [0-9]*, by current pages (page = [0-9]* bytes)$' "$T/frames.txt"):$(grep -c 'CUR_PAGES PEAK_PAGES' "$T/frames.txt")" = 3:3
	check "batch: at most 30 rows a frame (-n default)" \
		test "$(awk '/^TASKS:/ { f++ } /^ +[0-9]+ +[0-9]+ / { r[f]++ } END { m = 0; for (i in r) if (r[i] > m) m = r[i]; print m }' "$T/frames.txt")" -le 30
	check "batch: no escape sequence, no control byte" \
		test "$(tr -d '\n' < "$T/frames.txt" | LC_ALL=C tr -d '\040-\176' | wc -c)" = 0
	check "batch: took about 2 s (frames at 0, 1, 2 s: $ms ms)" test "$ms" -ge 1900 -a "$ms" -lt 25000
	check "batch: the final report in the log (trigger count)" \
		grep -q '^memtrace .* report (trigger: count, live)' "$T/batch.log"
	# SIGTERM ends it at once, frames whole
	"$MT" --top --instance "$INST-batcht" -d 0.3 -n 5 -o "$T/batcht.log" > "$T/framest.txt" 2> "$T/batcht.err" &
	p=$!
	PIDS+=("$p")
	wait_for 10 frames_in "$T/framest.txt" 2 || true
	kill -TERM "$p"
	wait_exit "$p"; rc=$?
	check "batch: SIGTERM: exit status 0 ($rc)" test "$rc" = 0
	check "batch: SIGTERM: every frame whole (header and 5 rows each)" \
		test "$(awk '/^memtrace / { h++ } /^ +[0-9]+ +[0-9]+ / { r++ } END { print (h > 1 && r == 5 * h) }' "$T/framest.txt")" = 1
	check "batch: SIGTERM: the final report in the log" \
		grep -q '^memtrace .* report (trigger: SIGTERM, live)' "$T/batcht.log"
	# a reader that goes away: memtrace stops, status 0, report says why
	"$MT" --top --instance "$INST-batchp" -d 0.1 -o "$T/batchp.log" 2> "$T/batchp.err" | head -3 > /dev/null
	rc=${PIPESTATUS[0]}
	check "batch: reader gone (| head -3): exit status 0 ($rc)" test "$rc" = 0
	check "batch: reader gone: final report (trigger stdout closed)" \
		grep -q '^memtrace .* report (trigger: stdout closed, live)' "$T/batchp.log"
	after=$(tfs_state)
	check "batch: tracefs identical afterwards" test "$before" = "$after"
}

# ------------------------------------------------------------------ usage
usage_test() {
	local rc
	"$MT" --top --daemon > /dev/null 2> "$T/usage.err"; rc=$?
	check "--top --daemon: usage error (exit 2, '$(head -1 "$T/usage.err")')" test "$rc" = 2
	"$MT" -d 1 > /dev/null 2> "$T/usage.err"; rc=$?
	check "-d without --top: usage error (exit 2)" test "$rc" = 2
}

t_start=$(now_ms)
find_tracefs
ulimit -c 0	# the crash test: no core file
usage_test
if ! can_trace "live view tests"; then
	:
elif ! command -v tmux > /dev/null; then
	skip_live "live view tests: tmux is not installed (Debian: apt-get install tmux)"
elif [ ! -x "$WL" ] || [ ! -x "$MTH" ]; then
	skip_live "live view tests: build/tests/workload and build/tests/memtrace-hooks must be built first"
else
	view_test
	stacks_test
	signal_test TERM SIGTERM
	signal_test INT SIGINT
	signal_test HUP SIGHUP
	crash_test
	dumb_test
	names_test
	batch_test
fi
echo "# $(( ($(now_ms) - t_start) / 1000 )) s"
summary
[ "$fail" = 0 ]
