# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# 50-appends.sh - what memtrace appends to (the --stream -o file, the JSON-lines log of
# --interval -f json) is a regular file of its own, or nothing: another user's file, one
# that others may write, a symlink, a hard link, a FIFO or a device is refused and left as
# it was; a run that cannot trace creates no file; and a full disk leaves whole lines only,
# the ones written again once there is room, the ones dropped counted (issue 21, items 8
# and the --stream half of 9).

A=$T/appends
AN=$A/nobody			# a directory nobody may write to
mkdir -p "$AN" && chown nobody "$AN"
AW=$A/apwl$$			# the workload under a name of its own, for -c
cp "$WL" "$AW"
AWN=$(basename "$AW")

# as_nobody CMD...: CMD as user nobody, no supplementary groups
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }

# a_theirs FILE: FILE made by nobody, mode 0666, with one line of theirs
a_theirs() {
	# shellcheck disable=SC2016  # $1 is the inner shell's
	as_nobody sh -c 'umask 0; echo "{\"type\":\"theirs\"}" > "$1"' sh "$1"
}

# a_state FILE: what must not change in a file memtrace must not touch (the contents of
# a regular file only: reading a FIFO would wait for a writer)
a_state() {
	stat -c '%F %u %g %a %s %h %Y' "$1" 2>&1
	[ ! -f "$1" ] || [ -L "$1" ] || md5sum < "$1"
}

# a_refused NAME FILE ARGS...: memtrace --stream -o FILE ARGS (a command that maps 1 MiB,
# so that an old build that takes the file writes lines to it and ends by itself) must
# exit 1, say FILE and WHY (a grep -E pattern) on stderr, and leave FILE and tracefs as
# they were
a_refused() {
	local name=$1 f=$2 why=$3 before tbefore rc
	shift 3
	before=$(a_state "$f") tbefore=$(tfs_state)
	timeout -s KILL 10 "$MT" --instance "$INST" --stream -o "$f" "$@" -- "$AW" 1 0 \
		> "$A/out" 2> "$A/err"
	rc=$?
	check "$name: refused, exit 1, the file and why said (rc $rc: $(head -c 300 "$A/err"))" \
		test "$rc" = 1 -a "$(grep -cE "$f: .*($why)" "$A/err")" = 1
	check "$name: the file untouched" test "$before" = "$(a_state "$f")"
	check "$name: tracefs untouched" test "$tbefore" = "$(tfs_state)"
}

# a_valid FILE: every line of FILE is a JSON object and the file ends with a newline
a_valid() {
	python3 - "$1" <<'EOF'
import json, sys
data = open(sys.argv[1], 'rb').read()
ok = not data or data.endswith(b'\n')
for line in data.splitlines():
    try:
        ok = ok and isinstance(json.loads(line), dict)
    except ValueError:
        ok = False
sys.exit(0 if ok else 1)
EOF
}

# a_lines FILE: how many lines FILE has
a_lines() { grep -c '' "$1" 2>/dev/null || echo 0; }

if ! can_trace "appends"; then
	return 0
fi

# (a) a --stream -o file another user made first, writable by all: refused
f=$AN/stream.jsonl
a_theirs "$f"
a_refused "--stream -o, nobody's file of mode 0666" "$f" "belongs to uid 65534"
# ... and one of ours that others may write
f=$A/groupw.jsonl
echo '{"type":"ours"}' > "$f" && chmod 0622 "$f"
a_refused "--stream -o, our file of mode 0622" "$f" "writable by its group or others"
# ... while our own file is appended to, as before
f=$A/own.jsonl
echo '{"type":"earlier"}' > "$f"
"$MT" --instance "$INST" --stream -o "$f" -- "$AW" 1 0 > /dev/null 2> "$A/err"
check "--stream -o, our own file of mode 0644: appended to (exit $?), the earlier line first" \
	test "$(head -1 "$f")" = '{"type":"earlier"}' -a "$(grep -c '"memoryMap"' "$f")" -ge 1

# (b) the JSON-lines log (--interval -f json appends a report per interval) made by nobody
f=$AN/log.json
a_theirs "$f"
before=$(a_state "$f")
"$MT" --instance "$INST" --interval 1 -f json -o "$f" > "$A/out" 2> "$A/err" &
APID=$!
PIDS+=("$APID")
a_said_or_written() { grep -q "appending to $f" "$A/err" || [ "$before" != "$(a_state "$f")" ]; }
wait_for 10 a_said_or_written
kill -TERM "$APID"
wait_exit "$APID"
check "JSON-lines log of nobody's (mode 0666): refused, the file and why said ($(grep -m1 "appending to" "$A/err"))" \
	grep -q "appending to $f: belongs to uid 65534" "$A/err"
check "JSON-lines log of nobody's: the file untouched, also by the final report" \
	test "$before" = "$(a_state "$f")"

# (c) a symlink, and a hard link to a file of ours elsewhere
echo secret > "$A/target" && chmod 0600 "$A/target"
ln -s "$A/target" "$AN/link.jsonl"
a_refused "--stream -o, a symlink" "$AN/link.jsonl" "symlink"
check "--stream -o, a symlink: its target untouched" test "$(cat "$A/target")" = secret
ln "$A/target" "$AN/hard.jsonl"
a_refused "--stream -o, a hard link to a root file" "$AN/hard.jsonl" "more than one name"
check "--stream -o, a hard link: the other name's file untouched" test "$(cat "$A/target")" = secret
rm -f "$AN/hard.jsonl"

# (d) a FIFO, with a reader and without: refused at once, never waited on; and a device
mkfifo "$A/fifo"
exec {AFD}<> "$A/fifo"		# a reader that never reads
a_refused "--stream -o, a FIFO with a reader" "$A/fifo" "is a FIFO"
exec {AFD}>&-
a_refused "--stream -o, a FIFO without a reader" "$A/fifo" "FIFO"
a_refused "--stream -o, a device (/dev/null)" /dev/null "is a device"

# ... and the log file that is replaced atomically: a device there (made with /dev/null's
# numbers) is refused, never renamed over (the old build put a regular file in its place)
mknod "$A/nul" c 1 3
"$MT" --instance "$INST" -o "$A/nul" -- true > "$A/out" 2> "$A/err"
check "a device as the log file (command mode): refused, still a device ($(grep -m1 "$A/nul" "$A/err"))" \
	test -c "$A/nul" -a "$(grep -c "$A/nul: is not a regular file" "$A/err")" = 1

# (e) as nobody, in a directory nobody may write to: no privilege (exit 4), no file made
tbefore=$(tfs_state)
(cd "$AN" && as_nobody "$MT" --instance "$INST" --stream --all -o "$AN/new.jsonl") \
	> "$A/out" 2> "$A/err"
rc=$?
check "as nobody: --stream -o exits 4 (rc $rc: $(tail -1 "$A/err"))" test "$rc" = 4
check "as nobody: no file made ($(ls "$AN"))" test ! -e "$AN/new.jsonl"
check "as nobody: tracefs untouched" test "$tbefore" = "$(tfs_state)"
rm -f "$AN/new.jsonl"
(cd "$AN" && as_nobody "$MT" --instance "$INST" --stream -o "$AN/new.jsonl" -- true) \
	> "$A/out" 2> "$A/err"
rc=$?
check "as nobody with a COMMAND: exits 4, no file made (rc $rc)" test "$rc" = 4 -a ! -e "$AN/new.jsonl"

# (f) a full disk: whole lines only, lines again once there is room, the dropped counted
mkdir -p "$A/full"
if ! mount -t tmpfs -o size=64k tmpfs "$A/full" 2> /dev/null; then
	skip "full disk: cannot mount a small tmpfs"
else
	CLEANUPS+=("umount '$A/full'")
	f=$A/full/lines
	dd if=/dev/zero of="$A/full/filler" bs=4k count=14 2> /dev/null	# 8 KiB left
	"$MT" --instance "$INST" --stream -c "process.name:$AWN" -o "$f" > "$A/out" 2> "$A/err" &
	APID=$!
	PIDS+=("$APID")
	if ! wait_for 10 grep -q "tracing in" "$A/err"; then
		bad "full disk: memtrace did not start: $(cat "$A/err")"
	else
		"$AW" 8 0
		a_full() { grep -q "No space left" "$A/err" || ! a_valid "$f"; }
		wait_for 10 a_full
		check "full disk: only whole lines, each a JSON object ($(a_lines "$f") lines)" a_valid "$f"
		n1=$(a_lines "$f")
		rm -f "$A/full/filler"
		"$AW" 1 0
		a_more() { [ "$(a_lines "$f")" -gt "$n1" ] && a_valid "$f"; }
		wait_for 10 a_more
		check "full disk: lines written again once there is room ($n1 -> $(a_lines "$f"))" \
			test "$(a_lines "$f")" -gt "$n1"
		check "full disk: the lines dropped said in-band (memtrace.lost, source output)" \
			grep -q '"type":"memtrace.lost","count":[0-9]*,"source":"output"' "$f"
		kill -TERM "$APID"
		wait_exit "$APID"
		rc=$?
		n=$(sed -nE 's/.*error: ([0-9]+) lines dropped.*/\1/p' "$A/err")
		check "full disk: TERM exits 1, the lines dropped counted on stderr (rc $rc, ${n:-no} count)" \
			test "$rc" = 1 -a "${n:-0}" -gt 0
		check "full disk: still only whole JSON lines at the end" a_valid "$f"
	fi
	umount "$A/full"
fi
