#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# cross.sh - the unit tests for other architectures, under qemu-user (make check-cross)
#
# Usage: tests/cross.sh ARCH...   (Debian's names: s390x i386 armhf arm64; run from the
# source tree, by make: MAKE is the make to build build/cross/ARCH/unit with)
#
# Per architecture: build/cross/ARCH/unit built statically with Debian's cross compiler and the
# multiarch Check, run under qemu-ARCH-static; its own Check summary line, then "ok - ARCH"
# or "not ok - ARCH", with the time it took. Then build/cross/ARCH/memtrace replays each recording
# under tests/fixtures, whose report must be ./memtrace's (this machine's) to the byte: a
# little-endian recording on a big-endian machine, a 64-bit kernel's on a 32-bit one. An
# architecture passes when both do. Last: "N passed, N failed" over the architectures. An architecture whose compiler, Check or emulator is not installed is
# "SKIP: ARCH: reason (Debian packages: ...)". Exit status 1 if any architecture failed.
set -u
cd "$(dirname "$0")/.." || exit 2
MAKE=${MAKE:-make}

pass=0 fail=0 skip=0

triplet() {
	case $1 in
	s390x) echo s390x-linux-gnu ;;
	arm64) echo aarch64-linux-gnu ;;
	armhf) echo arm-linux-gnueabihf ;;
	i386) echo i686-linux-gnu ;;
	*) return 1 ;;
	esac
}

# the multiarch directory (check:ARCH installs there): i386's is not its compiler's triplet
libdir() {
	case $1 in
	i386) echo /usr/lib/i386-linux-gnu ;;
	*) echo "/usr/lib/$(triplet "$1")" ;;
	esac
}

qemu() {
	case $1 in
	s390x) echo qemu-s390x-static ;;
	arm64) echo qemu-aarch64-static ;;
	armhf) echo qemu-arm-static ;;
	i386) echo qemu-i386-static ;;
	esac
}

# what is missing for ARCH, with the Debian packages that bring it; nothing if all is there
missing() {
	local a=$1 t l q why=() pk=()

	t=$(triplet "$a") l=$(libdir "$a") q=$(qemu "$a")
	command -v "$t-gcc" > /dev/null || { why+=("no $t-gcc"); pk+=("gcc-$t"); }
	[ -e "/usr/$t/lib/libc.a" ] || { why+=("no static libc for $t"); pk+=("libc6-dev-$a-cross"); }
	if [ ! -e "$l/libcheck.a" ] || [ ! -e "$l/libsubunit.a" ] || [ ! -e /usr/include/check.h ]; then
		why+=("no Check in $l")
		pk+=("check:$a")
	fi
	command -v "$q" > /dev/null || { why+=("no $q"); pk+=(qemu-user-static); }
	[ ${#why[@]} = 0 ] || echo "${why[*]} (Debian packages: ${pk[*]})"
}

# replays ARCH: each recording under tests/fixtures replayed by build/cross/ARCH/memtrace under
# qemu-user gives ./memtrace's report; 1 if one does not
replays() {
	local a=$1 fx n=0 bad=0 s=$SECONDS tmp rc_h rc_a

	if ! $MAKE --no-print-directory "build/cross/$a/memtrace"; then
		echo "not ok - $a: build/cross/$a/memtrace does not build"
		return 1
	fi
	tmp=$(mktemp -d) || return 1
	for fx in tests/fixtures/*/; do
		fx=${fx%/}
		if [ ! -d "$fx/per_cpu" ] || [ ! -e "$fx/events/header_page" ]; then
			continue
		fi
		n=$((n + 1))
		./memtrace --replay "$fx" > "$tmp/host" 2> "$tmp/host.err"
		rc_h=$?
		"$(qemu "$a")" "build/cross/$a/memtrace" --replay "$fx" > "$tmp/$a" 2> "$tmp/$a.err"
		rc_a=$?
		if [ $rc_h != 0 ] || [ $rc_a != 0 ] || ! cmp -s "$tmp/host" "$tmp/$a"; then
			echo "not ok - $a: --replay $fx: exit $rc_a, not this machine's report (exit $rc_h):"
			diff "$tmp/host" "$tmp/$a" | head -20 | sed 's/^/	/'
			sed 's/^/	/' "$tmp/$a.err" | head -5
			bad=$((bad + 1))
		fi
	done
	rm -rf "$tmp"
	if [ $n = 0 ]; then
		echo "not ok - $a: no recordings under tests/fixtures"
		return 1
	fi
	[ $bad = 0 ] && echo "ok - $a: $n recordings replay to this machine's report ($((SECONDS - s))s)"
	[ $bad = 0 ]
}

[ $# -gt 0 ] || { echo "usage: $0 ARCH..." >&2; exit 2; }
[ -x ./memtrace ] || { echo "not ok - ./memtrace (this machine's) is not built"; exit 1; }
# one_arch ARCH: its lines in $OUT/ARCH.out, and pass, fail or skip in $OUT/ARCH.result
one_arch() {
	local a=$1 miss s b rc
	exec > "$OUT/$a.out" 2>&1
	if ! triplet "$a" > /dev/null; then
		echo "not ok - $a: not an architecture this knows (s390x arm64 armhf i386)"
		echo fail > "$OUT/$a.result"
		return
	fi
	miss=$(missing "$a")
	if [ -n "$miss" ]; then
		echo "SKIP: $a: $miss"
		echo skip > "$OUT/$a.result"
		return
	fi
	s=$SECONDS
	if ! $MAKE --no-print-directory "build/cross/$a/unit"; then
		echo "not ok - $a: build/cross/$a/unit does not build"
		echo fail > "$OUT/$a.result"
		return
	fi
	b=$((SECONDS - s))
	# Check forks per test: the emulated tests take longer than native ones
	CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-60} CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-4} \
		"$(qemu "$a")" "build/cross/$a/unit"
	rc=$?
	if [ $rc = 0 ]; then
		echo "ok - $a: unit tests (built in ${b}s, ran in $((SECONDS - s - b))s)"
	else
		echo "not ok - $a: the unit tests exit $rc (built in ${b}s, ran in $((SECONDS - s - b))s)"
	fi
	if ! replays "$a"; then
		rc=1
	fi
	if [ $rc = 0 ]; then echo pass; else echo fail; fi > "$OUT/$a.result"
}

# CROSS_JOBS architectures at a time (default: one per CPU; each emulator keeps one busy),
# each one's lines printed together, in the order given
t0=$SECONDS
OUT=$(mktemp -d) || exit 2
trap 'rm -rf "$OUT"' EXIT
. tests/lib.sh			# on_cpus (its counters are not used here)
pass=0 fail=0 skip=0
on_cpus "${CROSS_JOBS:-$(nproc)}" one_arch "$@"
for a in "$@"; do
	cat "$OUT/$a.out" 2> /dev/null
	case $(cat "$OUT/$a.result" 2> /dev/null) in
	pass) pass=$((pass + 1)) ;;
	skip) skip=$((skip + 1)) ;;
	*) fail=$((fail + 1)) ;;
	esac
done
echo "check-cross: $((SECONDS - t0))s in all"
if [ $skip -gt 0 ] && [ $pass = 0 ] && [ $fail = 0 ]; then
	echo "SKIP: check-cross: no architecture could be built and run here"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
