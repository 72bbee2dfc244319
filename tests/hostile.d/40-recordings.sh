# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# 40-recordings.sh - --record writes only into a new or empty directory of its own, never
# through a symlink, one memtrace at a time; --replay reads only regular files of the
# recording, never a live tracefs buffer through a symlink or a bind mount; a recording
# made on a full disk says it is incomplete, and so does its replay; a seed of any size
# is replayed whole (issue 21, items 6, 7, 9 and 10).

# r_stop PID: TERM a memtrace we started, wait for it (KILL after 10 s); its status
r_stop() {
	kill -TERM "$1" 2>/dev/null
	wait_exit "$1" 10
}

# r_once OUT ARGS...: a memtrace --record that should be refused; one that starts
# (the old one did) is stopped after 4 s; RRC its status
r_once() {
	local out=$1
	shift
	timeout -k 2 4 "$MT" "$@" > "$out.out" 2> "$out.err"
	RRC=$?
}

# r_read_events INSTANCE: the sum of "read events" over its CPUs (consumed by a reader)
r_read_events() {
	cat "$TFS/instances/$1"/per_cpu/cpu*/stats 2>/dev/null |
		awk '/^read events:/ { n += $3 } END { print n + 0 }'
}

# r_entries INSTANCE: the events its buffer holds
r_entries() {
	cat "$TFS/instances/$1"/per_cpu/cpu*/stats 2>/dev/null |
		awk '/^entries:/ { n += $2 } END { print n + 0 }'
}

if can_trace "40-recordings"; then
	# ---- item 6: DIR/events a symlink to elsewhere: its header_page was overwritten
	mkdir -p "$T/victim" "$T/symrec"
	echo precious > "$T/victim/header_page"
	ln -s "$T/victim" "$T/symrec/events"
	r_once "$T/r-sym" --instance "$INST-rs" -n 0 -o "$T/r-sym.log" --record "$T/symrec"
	check "--record DIR with DIR/events a symlink: refused (exit 1, not empty)" \
		eval 'test "$RRC" = 1 && grep -q "not empty" "$T/r-sym.err"'
	check "--record DIR with DIR/events a symlink: the symlink's target untouched" \
		test "$(cat "$T/victim/header_page")" = precious -a "$(ls "$T/victim")" = header_page

	# ---- item 4 in a recording: a FIFO where memtrace.seed goes hung the recorder for good
	mkdir "$T/fiforec"
	mkfifo "$T/fiforec/memtrace.seed"
	r_once "$T/r-fifo" --instance "$INST-rf" -n 0 -o "$T/r-fifo.log" --record "$T/fiforec"
	check "--record DIR holding a FIFO: refused at once (exit 1; was: stuck, TERM ignored)" \
		test "$RRC" = 1

	# ---- item 6: an empty DIR owned by another user: accepted before
	mkdir "$T/nobodyrec"
	chown nobody "$T/nobodyrec"
	r_once "$T/r-own" --instance "$INST-ro" -n 0 -o "$T/r-own.log" --record "$T/nobodyrec"
	check "--record DIR owned by another user: refused (exit 1, said)" \
		eval 'test "$RRC" = 1 && grep -q "another user" "$T/r-own.err"'
	check "--record DIR owned by another user: left empty" test -z "$(ls -A "$T/nobodyrec")"

	# ---- item 6: two memtraces into one DIR mixed their recordings
	mkdir -m 755 "$T/rec"	# an existing empty DIR of root's: fine
	if ! start_mt --record "$T/rec" -n 0 -o "$T/r-first.log"; then
		bad "--record into an empty DIR of root's: no start: $(cat "$T/err")"
	else
		R_FIRST=$MTPID
		r_once "$T/r-two" --instance "$INST-r2" -n 0 -o "$T/r-two.log" --record "$T/rec"
		check "--record DIR of a running --record: the second is refused (exit 1)" \
			test "$RRC" = 1
		"$WL" > /dev/null 2>&1
		r_stop "$R_FIRST"
		RRC=$?
		check "--record: the first one ends well (exit 0)" test "$RRC" = 0
		check "--record: memtrace.meta says complete" \
			eval 'sed -n 2p "$T/rec/memtrace.meta" | grep -qx "complete 1"'
		timeout 20 "$MT" --replay "$T/rec" -f json -n 0 > "$T/r-rep.json" 2> "$T/r-rep.err"
		RRC=$?
		check "--replay of it: exit 0, recording complete in JSON" \
			eval 'test "$RRC" = 0 && test "$(json "$T/r-rep.json" "d[\"recording\"][\"complete\"]")" = True'
	fi

	# ---- item 7: a recording whose per_cpu leads to a live instance's buffer
	R_LIVE=$INST-live
	mkdir "$TFS/instances/$R_LIVE"
	echo 1 > "$TFS/instances/$R_LIVE/events/kmem/mm_page_alloc/enable"
	"$WL" > /dev/null 2>&1
	echo 0 > "$TFS/instances/$R_LIVE/tracing_on"
	if [ ! -d "$T/rec/per_cpu" ] || [ "$(r_entries "$R_LIVE")" = 0 ]; then
		bad "replay through symlinks: no recording or no events in $R_LIVE to guard"
	else
		cp -r "$T/rec" "$T/evil1"
		rm -rf "$T/evil1/per_cpu"
		ln -s "$TFS/instances/$R_LIVE/per_cpu" "$T/evil1/per_cpu"
		timeout -k 2 10 "$MT" --replay "$T/evil1" -n 0 > "$T/r-e1.out" 2> "$T/r-e1.err"
		RRC=$?
		check "--replay with per_cpu a symlink to a live instance: refused (exit 1, said)" \
			eval 'test "$RRC" = 1 && grep -q "symbolic link" "$T/r-e1.err"'
		cp -r "$T/rec" "$T/evil2"
		for d in "$T/evil2"/per_cpu/cpu*; do
			rm -f "$d/trace_pipe_raw"
			ln -s "$TFS/instances/$R_LIVE/per_cpu/${d##*/}/trace_pipe_raw" "$d/trace_pipe_raw"
		done
		timeout -k 2 10 "$MT" --replay "$T/evil2" -n 0 > "$T/r-e2.out" 2> "$T/r-e2.err"
		RRC=$?
		check "--replay with cpuN/trace_pipe_raw a symlink to a live one: refused (exit 1)" \
			test "$RRC" = 1
		cp -r "$T/rec" "$T/evil3"
		if mount --bind "$TFS/instances/$R_LIVE/per_cpu" "$T/evil3/per_cpu"; then
			CLEANUPS+=("umount '$T/evil3/per_cpu'")
			timeout -k 2 10 "$MT" --replay "$T/evil3" -n 0 > "$T/r-e3.out" 2> "$T/r-e3.err"
			RRC=$?
			check "--replay with per_cpu a bind mount of a live one: refused (exit 1, said)" \
				eval 'test "$RRC" = 1 && grep -q "live kernel filesystem" "$T/r-e3.err"'
			umount "$T/evil3/per_cpu"
		else
			bad "replay through a bind mount: mount --bind failed"
		fi
		check "--replay never read the live instance's buffer (read events: 0)" \
			test "$(r_read_events "$R_LIVE")" = 0
	fi
	echo 0 > "$TFS/instances/$R_LIVE/events/enable"
	rmdir "$TFS/instances/$R_LIVE"

	# ---- item 10: memtrace.seed was cut at 1 MiB: 20,000 tasks, about 1.4 MiB
	if [ -d "$T/rec/per_cpu" ]; then
		cp -r "$T/rec" "$T/bigseed"
		python3 -c 'for i in range(3000000, 3020000): print("seed %d %d 1 0 5 123456789012 %s" % (i, i, ("seedtask-%05d" % (i % 100000)).encode().hex()))' \
			> "$T/bigseed/memtrace.seed"
		R_SZ=$(stat -c %s "$T/bigseed/memtrace.seed")
		timeout 30 "$MT" --replay "$T/bigseed" --max-tasks 30000 -f json -n 0 \
			> "$T/r-seed.json" 2> "$T/r-seed.err"
		check "--replay of a $R_SZ-byte memtrace.seed: all 20000 tasks seeded, 100000 pages" \
			test "$(json "$T/r-seed.json" '(d["seed"]["tasks"], d["seed"]["pages"])')" = "(20000, 100000)"
		check "--replay of a big memtrace.seed: no malformed line said" \
			eval '! grep -q malformed "$T/r-seed.err"'
	fi

	# ---- module_range lines: each merged into the table as it came, a scan and a sort:
	# 40,000 took 40 s (a 64 MiB memtrace.meta, a day); those past 4096 are malformed
	if cp -r tests/fixtures/linux-6.18-stacks "$T/ranges"; then
		python3 -c 'for i in range(40000): print("module_range m%d %d %d 0" % (i, 2 * i + 1, 2 * i + 2))' \
			>> "$T/ranges/memtrace.meta"
		t0=$(date +%s%N)
		timeout 60 "$MT" --replay "$T/ranges" -f json -n 0 > "$T/r-ranges.json" 2> "$T/r-ranges.err"
		R_RC=$? t1=$(date +%s%N)
		check "--replay with 40,000 module_range lines: exit 0 in $(( (t1 - t0) / 1000000 )) ms (at most 10 s)" \
			test "$R_RC" = 0 -a $(( (t1 - t0) / 1000000 )) -le 10000
		check "--replay with 40,000 module_range lines: those past 4096 said malformed" \
			grep -q "^memtrace: 35904 malformed lines in .*memtrace.{meta,seed} skipped" "$T/r-ranges.err"
	else
		bad "the fixture linux-6.18-stacks: cannot copy it"
	fi

	# ---- CPUs: one past what a kernel has is refused (it sized the stacks' tables: a
	# cpu2147483647 directory failed the tables' allocation, cpu100000000 took 16 GB); past
	# 4096 of them they were dropped unsaid; now every one up to 8192 is read
	if cp -r tests/fixtures/linux-6.18 "$T/cpus"; then
		timeout 20 "$MT" --replay "$T/cpus" -f json -n 0 > "$T/r-cpus0.json" 2> /dev/null
		mkdir "$T/cpus/per_cpu/cpu2147483647"
		timeout 20 "$MT" --replay "$T/cpus" -n 0 > /dev/null 2> "$T/r-cpus1.err"
		R_RC=$?
		check "--replay with a per_cpu/cpu2147483647: refused (exit $R_RC), said" \
			eval 'test "$R_RC" = 1 && grep -q "the last cpu2147483647: no kernel has more than 8192 CPUs: not a recording" "$T/r-cpus1.err"'
		rmdir "$T/cpus/per_cpu/cpu2147483647"
		mv "$T/cpus/per_cpu/cpu1" "$T/cpus/per_cpu/cpu5000"
		for i in $(seq 2 4200); do mkdir "$T/cpus/per_cpu/cpu$i" && : > "$T/cpus/per_cpu/cpu$i/trace_pipe_raw"; done
		timeout 60 "$MT" --replay "$T/cpus" -f json -n 0 > "$T/r-cpus2.json" 2> /dev/null
		R_RC=$?
		check "--replay of 4201 CPUs, cpu1's events as cpu5000's: exit $R_RC, every event read ($(json "$T/r-cpus2.json" 'd["events"]["processed"]') of $(json "$T/r-cpus0.json" 'd["events"]["processed"]'))" \
			eval 'test "$R_RC" = 0 && [ "$(json "$T/r-cpus2.json" "d[\"events\"][\"processed\"]")" = "$(json "$T/r-cpus0.json" "d[\"events\"][\"processed\"]")" ] && [ -n "$(json "$T/r-cpus0.json" "d[\"events\"][\"processed\"]")" ]'
	else
		bad "the fixture linux-6.18: cannot copy it"
	fi

	# ---- memtrace.meta or memtrace.seed there but not readable (a FIFO, a directory):
	# taken as absent, unsaid (an incomplete recording's 'complete 0' lost: exit 0)
	for f in memtrace.meta memtrace.seed; do
		rm -rf "$T/unread" && cp -r tests/fixtures/linux-6.18 "$T/unread" && mkfifo "$T/unread/$f"
		timeout 10 "$MT" --replay "$T/unread" -n 0 > /dev/null 2> "$T/r-unread.err"
		R_RC=$?
		check "--replay with $f a FIFO: refused at once (exit $R_RC), said" \
			eval 'test "$R_RC" = 1 && grep -q "unread/$f: not a regular file: " "$T/r-unread.err"'
	done

	# ---- item 9: a recording to a full disk exited 0, its replay a plausible report
	mkdir "$T/full"
	if mount -t tmpfs -o size=256k,mode=755 tmpfs "$T/full"; then
		CLEANUPS+=("umount '$T/full'")
		if ! start_mt --record "$T/full/rec" -n 0 -o "$T/r-full.log"; then
			bad "--record to a small tmpfs: no start: $(cat "$T/err")"
		else
			R_PID=$MTPID
			for i in 1 2 3; do "$WL" > /dev/null 2>&1; done
			wait_for 10 grep -q "not saved" "$T/err" 2>/dev/null
			r_stop "$R_PID"
			R_RC=$?
			check "--record to a full disk: exit 1 (was 0)" test "$R_RC" = 1
			check "--record to a full disk: the recording said incomplete on stderr" \
				grep -q "recording is incomplete" "$T/err"
			check "--record to a full disk: memtrace.meta says complete 0 and why" \
				eval 'grep -qx "complete 0" "$T/full/rec/memtrace.meta" && grep -q "^incomplete .*not saved" "$T/full/rec/memtrace.meta"'
			timeout 20 "$MT" --replay "$T/full/rec" -n 0 > "$T/r-frep.out" 2> "$T/r-frep.err"
			R_RC=$?
			check "--replay of it: exit 1, the text report says INCOMPLETE" \
				eval 'test "$R_RC" = 1 && grep -q "^recording: INCOMPLETE" "$T/r-frep.out"'
			timeout 20 "$MT" --replay "$T/full/rec" -f json -n 0 > "$T/r-frep.json" 2> /dev/null
			check "--replay of it: the JSON says recording.complete false" \
				test "$(json "$T/r-frep.json" 'd["recording"]["complete"]')" = False
		fi
		umount "$T/full"
	else
		bad "full disk: cannot mount a tmpfs"
	fi
	check "40-recordings: no instance of ours left" \
		eval '! ls "$TFS/instances" | grep -q "^$INST-"'
fi
