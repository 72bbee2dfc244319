#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# crosscheck.sh - memtrace's own ring-buffer decoder against libtraceevent on real recordings.
#
# Run from the project root: ./tests/crosscheck.sh
# Builds nothing: CROSSCHECK=path (default build/tests/crosscheck) is the tests/crosscheck.c binary;
# ./memtrace and ./build/tests/workload must exist for the live check.
#
#  1. the Debian 6.1 boot recording (tests/fixtures/debian-6.1-boot) cross-checks clean,
#     and so does the zram recording with kernel stacks (tests/fixtures/debian-6.1-zram);
#     both again rewritten big-endian (build/tests/swaporder), libtraceevent told the order;
#     and a recording made on Debian's s390x kernel (tests/fixtures/debian-6.1-s390x)
#  2. (root, tracefs) a fresh recording of this kernel cross-checks clean, with more than
#     30000 page events compared; its formats equal those libtracefs loads from the live
#     tracefs; tracefs is left as found
#  3. negative controls: a byte of a pfn flipped in the copy memtrace decodes (libtraceevent
#     decodes the original) and a field offset changed in memtrace's copy of a format file
#     must make crosscheck exit 1
#
# Prints "ok - ...", "not ok - ..." or "SKIP: ..." per check, then "N passed, N failed, N skipped".
# MEMTRACE_NO_SKIP=1 (.ci/run, as root with a tracefs): the live recording skipped is a failure.
# CROSSCHECK_KEEP=1 keeps the temporary directory (recording, crosscheck outputs).
set -u

CROSSCHECK=${CROSSCHECK:-build/tests/crosscheck}
FIXTURE=tests/fixtures/debian-6.1-boot
INST=memtrace-xcheck
MIN_PAGE_EVENTS=30000

pass=0 fail=0 skipped=0
MT_PID='' TFS='' INST_OURS=0 tmp=''

ok() { pass=$((pass + 1)); echo "ok - $*"; }
notok() { fail=$((fail + 1)); echo "not ok - $*"; }
skip() { skipped=$((skipped + 1)); echo "SKIP: $*"; }
# the live part skipped: a failure where .ci/run says root and a tracefs are here
skip_live() {
	if [ "${MEMTRACE_NO_SKIP:-}" = 1 ]; then
		notok "$* (skipped under MEMTRACE_NO_SKIP=1: root and a tracefs are here, the live part must run)"
	else
		skip "$@"
	fi
}
indent() { sed 's/^/    /'; }

# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
	if [ -n "$MT_PID" ] && kill -0 "$MT_PID" 2>/dev/null; then
		kill -TERM "$MT_PID" 2>/dev/null
		for _ in $(seq 100); do
			kill -0 "$MT_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$MT_PID" 2>/dev/null
		wait "$MT_PID" 2>/dev/null
	fi
	MT_PID=
	# only an instance this script made, and only if memtrace did not remove it
	if [ "$INST_OURS" = 1 ] && [ -d "$TFS/instances/$INST" ]; then
		echo 0 > "$TFS/instances/$INST/tracing_on" 2>/dev/null
		echo 0 > "$TFS/instances/$INST/events/enable" 2>/dev/null
		for _ in $(seq 20); do
			rmdir "$TFS/instances/$INST" 2>/dev/null && break
			sleep 0.2
		done
	fi
	[ -n "$tmp" ] && [ -z "${CROSSCHECK_KEEP:-}" ] && rm -rf "$tmp"
}
finish() {
	echo "$pass passed, $fail failed, $skipped skipped"
	[ "$fail" = 0 ]
	exit
}

# shellcheck disable=SC2317  # called by the INT and TERM traps
interrupted() {
	trap '' INT TERM
	notok "interrupted by SIG$1"
	echo "$pass passed, $fail failed, $skipped skipped"
	exit "$2"
}

trap cleanup EXIT
trap 'interrupted INT 130' INT
trap 'interrupted TERM 143' TERM

# the Makefile says why it built no cross-check (NO_LIBTRACEFS=1, libraries not found)
if [ -n "${CROSSCHECK_SKIP:-}" ]; then
	echo "SKIP: $CROSSCHECK_SKIP"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
# libtraceevent: the -dev package (pkg-config) or at least the shared library
if ! pkg-config --exists libtraceevent 2>/dev/null &&
   ! ldconfig -p 2>/dev/null | grep -q 'libtraceevent\.so'; then
	echo "SKIP: libtraceevent not found"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
if [ ! -x "$CROSSCHECK" ]; then
	notok "crosscheck binary $CROSSCHECK missing (make $CROSSCHECK, or set CROSSCHECK=)"
	finish
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crosscheck.XXXXXX") || { notok "mktemp"; finish; }

# run_xc NAME ARGS...: crosscheck's output in $tmp/NAME.out, its status in $?
run_xc() {
	local name=$1
	shift
	"$CROSSCHECK" "$@" > "$tmp/$name.out" 2>&1
}

# value of crosscheck's "page events compared: N" line
page_events() { awk -F': ' '/^page events compared:/ { print $2 }' "$1"; }

# copy_rec SRC DST: what crosscheck reads of a recording
copy_rec() {
	rm -rf "$2" && mkdir -p "$2" && cp -r "$1/events" "$1/per_cpu" "$2/"
}

# flip FILE OFFSET: xor one byte with 0x10 in place
flip() {
	local v
	v=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	[ -n "$v" ] || return 1
	# shellcheck disable=SC2059
	printf "\\$(printf %03o $((v ^ 0x10)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# ---- 1. the Debian 6.1 boot recording ---------------------------------------------------
if [ ! -d "$FIXTURE/per_cpu" ]; then
	notok "fixture $FIXTURE missing"
else
	run_xc fixture "$FIXTURE"
	rc=$?
	n=$(page_events "$tmp/fixture.out")
	mods=$(awk '$1 ~ /^module_/ { s += $2 } END { print s + 0 }' "$tmp/fixture.out")
	if [ "$rc" = 0 ] && [ "$mods" -gt 0 ]; then
		ok "debian-6.1-boot: memtrace and libtraceevent decode identically" \
		   "($(awk '/^total:/ { print $4 }' "$tmp/fixture.out") records, ${n:-0} page events," \
		   "$mods module events)"
	else
		notok "debian-6.1-boot cross-check (exit $rc, $mods module events)"
		indent < "$tmp/fixture.out"
	fi
fi

# ---- 1b. the Debian 6.1 zram recording with kernel stacks (--stacks) ----------------------
ZFX=tests/fixtures/debian-6.1-zram
if [ ! -d "$ZFX/per_cpu" ]; then
	notok "fixture $ZFX missing"
else
	run_xc zram "$ZFX"
	rc=$?
	# kernel_stack records: how many, and how many held more words than the format's caller[8]
	st=$(awk '$1 == "stack" { print $2 }' "$tmp/zram.out")
	if [ "$rc" = 0 ] && [ "${st:-0}" -gt 1000 ]; then
		ok "debian-6.1-zram: memtrace and libtraceevent decode identically, $st kernel_stack" \
		   "records (every frame compared, also past the format's caller[8])"
	else
		notok "debian-6.1-zram cross-check (exit $rc, ${st:-0} stack records)"
		indent < "$tmp/zram.out"
	fi
fi

# ---- 1c. the same recordings as a big-endian kernel (s390x) writes them -----------------
# build/tests/swaporder rewrites them; libtraceevent is told the order (its kbuffer's big-endian
# path), memtrace's decoder too, and its reader finds it from the pages. Told the wrong
# order, the check must fail.
SWAP=${SWAPORDER:-build/tests/swaporder}
if [ ! -x "$SWAP" ]; then
	notok "$SWAP missing (make build/tests/swaporder)"
else
	for fx in "$FIXTURE" "$ZFX"; do
		name=${fx##*/}-be
		copy_rec "$fx" "$tmp/$name"
		if ! "$SWAP" "$tmp/$name" > "$tmp/$name.swap" 2>&1; then
			notok "$name: swaporder failed: $(cat "$tmp/$name.swap")"
			continue
		fi
		run_xc "$name" --big-endian "$tmp/$name"
		rc=$?
		n=$(page_events "$tmp/$name.out")
		if [ "$rc" = 0 ] && [ "${n:-0}" -gt 1000 ]; then
			ok "$name: big-endian copy, memtrace and libtraceevent decode identically" \
			   "(${n} page events, $(awk '/^total:/ { print $4 }' "$tmp/$name.out") records)"
		else
			notok "$name cross-check (exit $rc, ${n:-0} page events)"
			indent < "$tmp/$name.out"
		fi
		run_xc "$name-wrong" --little-endian "$tmp/$name"
		rc=$?
		check_neg() { [ "$rc" = 1 ]; }
		if check_neg; then
			ok "$name: told little-endian, the check fails (exit 1)"
		else
			notok "$name: told little-endian, crosscheck exit $rc (want 1)"
		fi
	done
fi

# ---- 1d. a recording made on a big-endian kernel (Debian's s390x, by make e2e-arch) -----
SFX=tests/fixtures/debian-6.1-s390x
if [ ! -d "$SFX/per_cpu" ]; then
	notok "fixture $SFX missing"
else
	run_xc s390x --big-endian "$SFX"
	rc=$?
	n=$(page_events "$tmp/s390x.out")
	if [ "$rc" = 0 ] && [ "${n:-0}" -gt 16384 ]; then
		ok "debian-6.1-s390x: memtrace and libtraceevent decode identically" \
		   "(${n} page events, $(awk '/^total:/ { print $4 }' "$tmp/s390x.out") records)"
	else
		notok "debian-6.1-s390x cross-check (exit $rc, ${n:-0} page events)"
		indent < "$tmp/s390x.out"
	fi
fi

# ---- 2. a fresh recording of this kernel ------------------------------------------------
REC=
TFS=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts 2>/dev/null)
if [ "$(id -u)" != 0 ]; then
	skip_live "live recording: not root"
elif [ -z "$TFS" ] || [ ! -d "$TFS/instances" ]; then
	skip_live "live recording: no tracefs with instances mounted"
elif [ ! -x ./memtrace ] || [ ! -x ./build/tests/workload ]; then
	notok "live recording: ./memtrace or ./build/tests/workload not built"
elif [ -e "$TFS/instances/$INST" ]; then
	notok "live recording: instance $INST exists already (left untouched)"
else
	before=$(ls "$TFS/instances")
	INST_OURS=1
	# --crashkernel: the page cache's filemap events too
	./memtrace --stacks --crashkernel --instance "$INST" --record "$tmp/rec" -o "$tmp/log" \
		> "$tmp/memtrace.out" 2> "$tmp/memtrace.err" &
	MT_PID=$!
	started=0
	for _ in $(seq 300); do
		if grep -q "tracing in" "$tmp/memtrace.err"; then
			started=1
			break
		fi
		kill -0 "$MT_PID" 2>/dev/null || break
		sleep 0.1
	done
	if [ "$started" = 1 ]; then
		# the workload, a few short processes, a rename via exec and one via /proc
		./build/tests/workload 64 0
		sh -c true
		sh -c 'exec /bin/true'
		sh -c 'echo xcheck-renamed > /proc/$$/comm; /bin/true'
		/bin/sleep 0.05
		[ -x ./build/tests/threads ] && ./build/tests/threads 2 1 0
		# a THP collapse by another process: huge_memory events (where THP is on)
		[ -x ./build/tests/thpmove ] && ./build/tests/thpmove 4 > /dev/null
		# a file written and removed: pages into and out of the page cache
		dd if=/dev/zero of="$tmp/pagecache" bs=64k count=16 status=none conv=fsync
		rm -f "$tmp/pagecache"
		sleep 0.3
	fi
	kill -TERM "$MT_PID" 2>/dev/null
	wait "$MT_PID"
	mrc=$?
	MT_PID=
	after=$(ls "$TFS/instances")
	if [ "$started" = 0 ]; then
		notok "live recording: memtrace did not start tracing (exit $mrc)"
		indent < "$tmp/memtrace.err"
	elif [ "$mrc" = 0 ] && [ -d "$tmp/rec/per_cpu" ]; then
		ok "live recording: memtrace --instance $INST --record made" \
		   "$(du -sk "$tmp/rec/per_cpu" | awk '{ print $1 }') KiB of sub-buffers" \
		   "($(find "$tmp/rec/per_cpu" -mindepth 1 -maxdepth 1 -name 'cpu*' | wc -l) CPUs), exit 0 after SIGTERM"
		REC=$tmp/rec
	else
		notok "live recording: memtrace exited $mrc after SIGTERM"
		indent < "$tmp/memtrace.err"
	fi
	# others' instances may come and go meanwhile (other work on this machine): ours must not stay
	new=$(comm -13 <(echo "$before" | sort) <(echo "$after" | sort) | grep "^$INST" || true)
	if [ ! -e "$TFS/instances/$INST" ] && [ -z "$new" ]; then
		ok "live recording: tracefs instances as found (none of ours left)"
	else
		notok "live recording: instances of ours left: [$(echo "$new" | tr '\n' ' ')]," \
		      "$INST $([ -e "$TFS/instances/$INST" ] && echo exists || echo gone)"
	fi
fi

if [ -n "$REC" ]; then
	run_xc live "$REC"
	rc=$?
	n=$(page_events "$tmp/live.out")
	if [ "$rc" = 0 ]; then
		ok "live recording: memtrace and libtraceevent decode identically" \
		   "($(awk '/^total:/ { print $4 }' "$tmp/live.out") records," \
		   "$(awk '$1 == "(total)" { print $2 }' "$tmp/live.out") events; kernel stacks" \
		   "$(awk '$1 == "stack" { print $2 }' "$tmp/live.out"), THP collapses" \
		   "$(awk '$1 == "collapse" { print $2 + 0 }' "$tmp/live.out"), page cache adds" \
		   "$(awk '$1 == "file_add" { print $2 + 0 }' "$tmp/live.out"))"
		nf=$(awk '$1 == "file_add" { print $2 + 0 }' "$tmp/live.out")
		if [ "${nf:-0}" -gt 0 ]; then
			ok "live recording: $nf page cache adds (filemap, --crashkernel) compared"
		else
			notok "live recording: no page cache add compared (filemap events missing?)"
		fi
	else
		notok "live recording cross-check (exit $rc)"
		indent < "$tmp/live.out"
	fi
	if [ "${n:-0}" -gt "$MIN_PAGE_EVENTS" ]; then
		ok "live recording: $n page events compared (> $MIN_PAGE_EVENTS)"
	else
		notok "live recording: only ${n:-0} page events compared (want > $MIN_PAGE_EVENTS)"
	fi
	if "$CROSSCHECK" --have-tracefs; then
		run_xc formats --formats-only --live-formats="$TFS" "$REC"
		rc=$?
		if [ "$rc" = 0 ]; then
			ok "live recording: formats equal libtracefs's of the running kernel" \
			   "($(awk '/^live formats:/ { print $3 }' "$tmp/formats.out") events," \
			   "names, offsets, sizes, signedness)"
		else
			notok "live recording: formats differ from libtracefs's (exit $rc)"
			indent < "$tmp/formats.out"
		fi
	else
		skip "live formats: $CROSSCHECK built without libtracefs"
	fi
fi

# ---- 3. negative controls ---------------------------------------------------------------
SRC=${REC:-$FIXTURE}
if [ ! -d "$SRC/per_cpu" ]; then
	skip "negative controls: no recording"
else
	what=$([ -n "$REC" ] && echo "live recording" || echo "debian-6.1-boot")
	copy_rec "$SRC" "$tmp/bad"
	if ! loc=$("$CROSSCHECK" --locate kmem:mm_page_alloc:pfn "$SRC") || [ -z "$loc" ]; then
		notok "negative control: no mm_page_alloc record found in the $what"
	else
		read -r file off _ <<< "$loc"
		flip "$tmp/bad/$file" "$off"
		# memtrace decodes the copy with the flipped byte, libtraceevent the original
		run_xc neg --memtrace-dir "$tmp/bad" "$SRC"
		rc=$?
		if [ "$rc" = 1 ] && grep -q "^MISMATCH .*: pfn: memtrace" "$tmp/neg.out"; then
			ok "negative control: a pfn byte flipped (file offset $off) is reported, exit 1:" \
			   "$(grep -m1 '^MISMATCH' "$tmp/neg.out" | sed 's/^MISMATCH //')"
		else
			notok "negative control: a flipped pfn byte gave exit $rc"
			indent < "$tmp/neg.out"
		fi
		# both decoders reading the same corrupted bytes still agree: the check compares
		# decoders, it does not validate the data
		run_xc same "$tmp/bad"
		rc=$?
		if [ "$rc" = 0 ]; then
			ok "control: the flipped copy alone decodes identically in both (exit 0)"
		else
			notok "control: the flipped copy alone gave exit $rc"
			indent < "$tmp/same.out"
		fi
	fi
	# a field offset changed in memtrace's copy of a format file
	copy_rec "$SRC" "$tmp/bad"
	fmt=$tmp/bad/events/kmem/mm_page_free/format
	if [ -f "$fmt" ] && grep -q "pfn;.offset:8;" "$fmt"; then
		sed -i 's/\(pfn;.offset:\)8;/\116;/' "$fmt"
		run_xc negfmt --memtrace-dir "$tmp/bad" "$SRC"
		rc=$?
		if [ "$rc" = 1 ] && grep -q "^MISMATCH format kmem:mm_page_free field pfn: offset" \
			"$tmp/negfmt.out"; then
			ok "negative control: mm_page_free's pfn offset changed in memtrace's format copy" \
			   "is reported, exit 1 ($(awk '/^mismatches:/ { print $2 }' "$tmp/negfmt.out") mismatches)"
		else
			notok "negative control: a changed format offset gave exit $rc"
			indent < "$tmp/negfmt.out"
		fi
	else
		skip "negative control (format): mm_page_free has no pfn at offset 8 here"
	fi
fi

finish
