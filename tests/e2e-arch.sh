#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# e2e-arch.sh - memtrace on Debian 12's own 6.1 kernels for other architectures, booted
# under QEMU (TCG): s390x (big-endian), arm64, armhf (32-bit) and i386 (32-bit). Each
# guest is a busybox-static initramfs of its architecture with the statically
# cross-built memtrace and workload (make build/cross/ARCH/...) and crc7.ko of its kernel; its
# /init (tests/e2e-arch/init.sh) runs the demo sequence (daemon, 64 MiB workload, USR1,
# crc7 loaded and unloaded, TERM), command mode, --stacks and --record, and sends the
# reports and the recording back over the console. The host checks the numbers and
# replays each guest's recording with the host's memtrace: it must give the guest's own
# replay report, row for row.
#
# Usage (root):  tests/e2e-arch.sh        (make e2e-arch)
# Environment:
#   MEMTRACE=PATH          the host's binary for the replays (default ./memtrace)
#   KEEP_WORK=1            keep the work directory (consoles, initramfs, guest output)
#   E2E_ONLY=REGEX         only the architectures whose names match (s390x arm64 armhf i386)
#   E2E_NO_APT=1           never apt-get install what is missing (SKIP instead)
#   E2E_BOOT_TIMEOUT=S     per boot (default 240; a boot that does not finish is booted
#                          once more, said as RETRY:)
#   E2E_JOBS=N             boots at a time (default 2)
#   E2E_ARCH_CACHE=DIR     the downloaded .debs (default tests/e2e-arch/cache, git-ignored;
#                          a second run downloads nothing)
#   E2E_ARCH_ARTIFACTS=DIR each guest's output (reports, recording) copied to DIR/ARCH
#
# Output: PASS:/FAIL: per check, "N passed, N failed"; exit 1 on any failure.
# SKIP: <reason> and exit 0 when not root or the tools or packages cannot be had.
# The host's tracefs is never touched: memtrace runs on the host only with --replay.
set -u
cd "$(dirname "$0")/.." || exit 1
REPO=$PWD
HERE=$REPO/tests/e2e-arch
MT_HOST=${MEMTRACE:-$REPO/memtrace}
BOOT_TIMEOUT=${E2E_BOOT_TIMEOUT:-240}
JOBS=${E2E_JOBS:-2}
CACHE=${E2E_ARCH_CACHE:-$HERE/cache}
ARTIFACTS=${E2E_ARCH_ARTIFACTS:-}
P='@@e2earch@@'
ALL_ARCHS="s390x arm64 armhf i386"
WORKLOAD_MIB=64

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "PASS: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }
note() { echo "      $*"; }
finish() {
	[ -n "${KEEP_WORK:-}" ] && [ -n "${W:-}" ] && echo "work dir kept: $W"
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit $?
}
skip_all() { echo "SKIP: $*"; exit 0; }

# ------------------------------------------------------------ the architectures
# Debian arch, kernel flavour, QEMU, machine and CPU, console, uname -m
flavour() { case $1 in s390x) echo s390x ;; arm64) echo arm64 ;; armhf) echo armmp ;; i386) echo 686-pae ;; esac; }
qemu_bin() { case $1 in s390x) echo qemu-system-s390x ;; arm64) echo qemu-system-aarch64 ;; armhf) echo qemu-system-arm ;; i386) echo qemu-system-i386 ;; esac; }
qemu_comm() { local b; b=$(qemu_bin "$1"); echo "${b:0:15}"; }
qemu_machine() {
	case $1 in
	s390x) echo "-M s390-ccw-virtio" ;;
	arm64) echo "-M virt -cpu max,pauth-impdef=on" ;;
	armhf) echo "-M virt -cpu cortex-a15" ;;
	i386) echo "-M pc -cpu max" ;;
	esac
}
console() { case $1 in s390x) echo ttysclp0 ;; arm64 | armhf) echo ttyAMA0 ;; i386) echo ttyS0 ;; esac; }
uname_m() { case $1 in s390x) echo s390x ;; arm64) echo aarch64 ;; armhf) echo 'armv7l' ;; i386) echo 'i686' ;; esac; }
triplet() { case $1 in s390x) echo s390x-linux-gnu ;; arm64) echo aarch64-linux-gnu ;; armhf) echo arm-linux-gnueabihf ;; i386) echo i686-linux-gnu ;; esac; }
crossdev() { case $1 in s390x) echo s390x ;; arm64) echo arm64 ;; armhf) echo armhf ;; i386) echo i386 ;; esac; }

ARCHS=
for a in $ALL_ARCHS; do
	if [ -n "${E2E_ONLY:-}" ] && ! [[ $a =~ $E2E_ONLY ]]; then
		note "$a: not booted (E2E_ONLY=$E2E_ONLY)"
		continue
	fi
	ARCHS="$ARCHS $a"
done
ARCHS=${ARCHS# }
[ -n "$ARCHS" ] || skip_all "E2E_ONLY=$E2E_ONLY matches none of: $ALL_ARCHS"

# ------------------------------------------------------------ prerequisites
[ "$(id -u)" = 0 ] || skip_all "needs root (the initramfs's device node, apt-get download)"

# apt-get update on a machine with foreign architectures added can exit 100 when one
# port's index fails to download (armhf and i386 security indexes have been seen to):
# the rest of the indexes are there, so go on, and let the install (or download) say
# which package cannot be had
apt_update() {
	local rc
	apt-get update -qq > "$1" 2>&1
	rc=$?
	if [ "$rc" != 0 ]; then
		note "apt-get update exited $rc (tolerated: an index that failed only matters if a package" \
			"below cannot be had):"
		grep -E '^(E|W):' "$1" | head -5 | sed 's/^/      | /'
	fi
	return 0
}

foreign_missing() {	# the foreign architectures dpkg does not know yet
	local a m=
	for a in $ARCHS; do
		dpkg --print-foreign-architectures | grep -qx "$a" || m="$m $a"
	done
	echo "$m"
}

missing_pkgs() {
	local a p=()
	for a in $ARCHS; do
		command -v "$(qemu_bin "$a")" > /dev/null || case $a in
			s390x) p+=(qemu-system-misc) ;;
			arm64 | armhf) p+=(qemu-system-arm) ;;
			i386) p+=(qemu-system-x86) ;;
		esac
		command -v "$(triplet "$a")-gcc" > /dev/null || p+=("gcc-$(triplet "$a")")
		[ -e "/usr/$(triplet "$a")/lib/libc.a" ] || p+=("libc6-dev-$(crossdev "$a")-cross")
	done
	command -v cpio > /dev/null || p+=(cpio)
	command -v dpkg-deb > /dev/null || p+=(dpkg)
	command -v gzip > /dev/null || p+=(gzip)
	command -v base64 > /dev/null || p+=(coreutils)
	echo "${p[@]}" | tr ' ' '\n' | sort -u | tr '\n' ' '
}

PKGS=$(missing_pkgs)
FOREIGN=$(foreign_missing)
if { [ -n "${PKGS// /}" ] || [ -n "${FOREIGN// /}" ]; } && [ -z "${E2E_NO_APT:-}" ] &&
	command -v apt-get > /dev/null; then
	export DEBIAN_FRONTEND=noninteractive
	for a in $FOREIGN; do dpkg --add-architecture "$a"; done
	echo "installing: ${PKGS:-nothing}${FOREIGN:+ (architectures added:$FOREIGN)}"
	apt_update /tmp/memtrace-e2e-arch-apt.$$
	rm -f /tmp/memtrace-e2e-arch-apt.$$
	if [ -n "${PKGS// /}" ]; then
		# shellcheck disable=SC2086
		apt-get install -y -qq --no-install-recommends $PKGS > /dev/null 2>&1 ||
			echo "apt-get install $PKGS failed"
	fi
	PKGS=$(missing_pkgs)
	FOREIGN=$(foreign_missing)
fi
[ -z "${PKGS// /}" ] || skip_all "missing and not installed: $PKGS"
[ -z "${FOREIGN// /}" ] || skip_all "foreign architectures not added to dpkg:$FOREIGN"

if [ ! -x "$MT_HOST" ]; then
	bad "no memtrace binary at $MT_HOST (run make memtrace first)"
	finish
fi

# ------------------------------------------------------------ work dir
W=$(mktemp -d /tmp/memtrace-e2e-arch.XXXXXX)
declare -A QPID=() T0=() SECS=() QRC=()
kill_qemu() {	# our own qemus only: the timeout(1) pids we started and their qemu child
	local a pid c
	for a in "${!QPID[@]}"; do
		pid=${QPID[$a]}
		if kill -0 "$pid" 2> /dev/null; then
			kill "$pid" 2> /dev/null	# timeout(1) passes TERM on to qemu
			wait "$pid" 2> /dev/null
		fi
		unset "QPID[$a]"
	done
	for pid in "$W"/*.qemu.pid; do
		[ -r "$pid" ] || continue
		read -r c < "$pid" || continue
		a=${pid##*/}
		a=${a%.qemu.pid}
		[ "$(cat "/proc/$c/comm" 2> /dev/null)" = "$(qemu_comm "$a")" ] && kill -KILL "$c"
		rm -f "$pid"
	done
}
cleanup() {
	kill_qemu
	[ -n "${KEEP_WORK:-}" ] || rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

T_START=$(date +%s.%N)
elapsed() { echo "$(date +%s.%N) $1" | awk '{ printf "%.1f", $1 - $2 }'; }
TIMINGS=()
echo "e2e-arch: $ARCHS; host memtrace $MT_HOST; cache $CACHE; work dir $W"

# ------------------------------------------------------------ kernels and busybox
mkdir -p "$CACHE"
# apt-cache builds its package cache once (in the work dir), not at every call: without
# a cache file (as Debian's container images are set up) each call reads every index
apt_cache() { apt-cache -o "Dir::Cache::pkgcache=$W/apt.pkgcache.bin" -o Dir::Cache::srcpkgcache= "$@"; }
# the versioned kernel package the flavour's metapackage names (the index), else the
# newest one in the cache (an index without that architecture: still no download)
kernel_pkg() {	# kernel_pkg ARCH
	local a=$1 fl n f
	fl=$(flavour "$a")
	n=$(apt_cache depends "linux-image-$fl:$a" 2> /dev/null |
		sed -n "s/^ *Depends: \(linux-image-6\.1\.[0-9]*-[0-9]*-$fl\)\(:$a\)\?\$/\1/p" | head -1)
	if [ -z "$n" ]; then
		f=$(ls "$CACHE"/linux-image-6.1.*-"$fl"_*_"$a".deb 2> /dev/null | sort -V | tail -1)
		[ -n "$f" ] && n=$(basename "$f" | cut -d_ -f1)
	fi
	echo "$n"
}
cached() {	# cached PKG ARCH: the .deb in the cache (the candidate version if the index knows it)
	local v f
	v=$(apt_cache policy "$1:$2" 2> /dev/null | sed -n 's/^ *Candidate: //p' | head -1)
	if [ -n "$v" ] && [ "$v" != "(none)" ]; then
		v=${v//:/%3a}
		f="$CACHE/${1}_${v}_$2.deb"
		[ -s "$f" ] && { echo "$f"; return 0; }
		return 1
	fi
	f=$(ls "$CACHE/${1}"_*_"$2".deb 2> /dev/null | sort -V | tail -1)
	[ -n "$f" ] && { echo "$f"; return 0; }
	return 1
}
fetch() {	# fetch PKG ARCH: into the cache unless there; prints the .deb
	local f
	f=$(cached "$1" "$2") && { echo "$f"; return 0; }
	(cd "$CACHE" && apt-get download -o APT::Sandbox::User=root -q "$1:$2" > "$W/apt-$1.log" 2>&1)
	if ! f=$(cached "$1" "$2"); then
		# a stale index names versions the mirror no longer has: update (tolerant), retry
		apt_update "$W/apt-update.log"
		(cd "$CACHE" && apt-get download -o APT::Sandbox::User=root -q "$1:$2" > "$W/apt-$1.log" 2>&1)
		f=$(cached "$1" "$2") || { sed 's/^/      | /' "$W/apt-$1.log" | tail -5 >&2; return 1; }
	fi
	echo "$1:$2 ($(du -k "$f" | cut -f1) KiB)" >> "$W/downloaded"
	echo "$f"
}
unpack() {	# unpack DEB PATTERN...: those files of DEB into $CACHE/x/NAME (once)
	local d deb=$1
	d=$CACHE/x/$(basename "$1" .deb)
	shift
	[ -d "$d" ] && return 0
	rm -rf "$d.tmp"
	mkdir -p "$d.tmp"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$d.tmp" --wildcards "$@" &&
		mv "$d.tmp" "$d"
}
t0=$(date +%s.%N)
declare -A KVER=() READY=()
for a in $ARCHS; do
	kp=$(kernel_pkg "$a")
	if [ -z "$kp" ]; then
		bad "$a: no Debian 6.1 kernel package for linux-image-$(flavour "$a"):$a (index or cache)"
		continue
	fi
	kdeb=$(fetch "$kp" "$a") || { bad "$a: apt-get download $kp:$a failed"; continue; }
	bdeb=$(fetch busybox-static "$a") || { bad "$a: apt-get download busybox-static:$a failed"; continue; }
	# only what the guest needs, unpacked once into the cache beside the .debs
	X=$W/$a/x
	mkdir -p "$X"
	unpack "$kdeb" './boot/vmlinuz-*' '*/kernel/lib/crc7.ko*' && unpack "$bdeb" './bin/busybox' &&
		cp -a "$CACHE/x/$(basename "$kdeb" .deb)/." "$CACHE/x/$(basename "$bdeb" .deb)/." "$X/" ||
		{ bad "$a: unpacking $kdeb and $bdeb failed"; continue; }
	KVER[$a]=${kp#linux-image-}
	note "$a: $(basename "$kdeb"), $(basename "$bdeb")"
done
TIMINGS+=("kernels and busybox (cache, download, unpack): $(elapsed "$t0") s")
if [ -s "$W/downloaded" ]; then
	note "downloaded into $CACHE: $(paste -s -d ' ' "$W/downloaded" | sed 's/) /), /g')"
else
	note "downloaded: nothing (all in $CACHE)"
fi

# ------------------------------------------------------------ cross builds, initramfs
t0=$(date +%s.%N)
targets=
for a in $ARCHS; do
	[ -n "${KVER[$a]:-}" ] && targets="$targets build/cross/$a/memtrace build/cross/$a/workload"
done
# all at once, $JOBS compilers at a time; then per architecture (nothing left to do, or
# the failure again, with its own status and messages)
# shellcheck disable=SC2086
[ -n "$targets" ] && make -s -k -j "$JOBS" -C "$REPO" $targets > "$W/make.log" 2>&1
for a in $ARCHS; do
	[ -n "${KVER[$a]:-}" ] || continue
	if ! make -s -C "$REPO" "build/cross/$a/memtrace" "build/cross/$a/workload" > "$W/$a/make.log" 2>&1; then
		bad "$a: make build/cross/$a/memtrace build/cross/$a/workload failed"
		tail -5 "$W/$a/make.log" | sed 's/^/      | /'
		continue
	fi
	k=${KVER[$a]}
	X=$W/$a/x
	R=$W/$a/root
	mkdir -p "$R"/{bin,sbin,dev,proc,sys,tmp,lib/modules}
	cp "$X/bin/busybox" "$R/bin/busybox"
	cp "$REPO/build/cross/$a/memtrace" "$REPO/build/cross/$a/workload" "$R/bin/"
	install -m 0755 "$HERE/init.sh" "$R/init"
	mknod -m 600 "$R/dev/console" c 5 1
	# crc7: no dependencies (modinfo's depends= is empty); the package's modules are not
	# compressed, so busybox insmod loads it as it is
	mod=$(find "$X/lib/modules/$k" -name 'crc7.ko*' | head -1)
	case $mod in
	*.ko) cp "$mod" "$R/lib/modules/crc7.ko" ;;
	*.ko.xz) xz -dc "$mod" > "$R/lib/modules/crc7.ko" ;;
	*.ko.zst) zstd -qdc "$mod" > "$R/lib/modules/crc7.ko" ;;
	*) bad "$a: no crc7.ko in the kernel package"; continue ;;
	esac
	tr '\0' '\n' < "$R/lib/modules/crc7.ko" | grep -a -q -x 'depends=' ||
		note "$a: crc7.ko has dependencies: $(tr '\0' '\n' < "$R/lib/modules/crc7.ko" | grep -a '^depends=')"
	(cd "$R" && find . | cpio -o -H newc --quiet | gzip -1 > "$W/$a/initrd.cpio.gz")
	cp "$X/boot/vmlinuz-$k" "$W/$a/vmlinuz"
	if [ -s "$W/$a/initrd.cpio.gz" ] && [ -s "$W/$a/vmlinuz" ] &&
		file -b "$R/bin/memtrace" | grep -q 'statically linked'; then
		READY[$a]=1
		ok "$a: initramfs built (busybox-static:$a, memtrace, workload, crc7.ko of $k; $(du -k "$W/$a/initrd.cpio.gz" | cut -f1) KiB)"
	else
		bad "$a: initramfs or kernel missing"
	fi
done
TIMINGS+=("cross builds and initramfs: $(elapsed "$t0") s")

# ------------------------------------------------------------ boots, $JOBS at a time
start_boot() {	# start_boot ARCH
	local a=$1
	# shellcheck disable=SC2046
	timeout "$BOOT_TIMEOUT" "$(qemu_bin "$a")" -accel tcg $(qemu_machine "$a") -m 1024 -smp 2 \
		-nic none -no-reboot -display none -monitor none \
		-pidfile "$W/$a.qemu.pid" -serial "file:$W/$a/serial" \
		-kernel "$W/$a/vmlinuz" -initrd "$W/$a/initrd.cpio.gz" \
		-append "console=$(console "$a") panic=-1 quiet" < /dev/null > "$W/$a/qemu.log" 2>&1 &
	QPID[$a]=$!
	T0[$a]=$(date +%s.%N)
	note "$a: booting ($(qemu_bin "$a") $(qemu_machine "$a"), pid ${QPID[$a]})"
}
reap_one() {	# wait for any of our boots to end
	local pid a rc
	wait -n -p pid "${QPID[@]}"
	rc=$?
	for a in "${!QPID[@]}"; do
		[ "${QPID[$a]}" = "$pid" ] || continue
		SECS[$a]=$(elapsed "${T0[$a]}")
		QRC[$a]=$rc
		unset "QPID[$a]"
		TIMINGS+=("boot $a: ${SECS[$a]} s (qemu exit $rc)")
		note "$a: boot ended after ${SECS[$a]} s (exit $rc)"
	done
}
t0=$(date +%s.%N)
for a in $ARCHS; do
	[ -n "${READY[$a]:-}" ] || continue
	while [ "${#QPID[@]}" -ge "$JOBS" ]; do reap_one; done
	start_boot "$a"
done
while [ "${#QPID[@]}" -gt 0 ]; do reap_one; done
# A boot that did not come to its end is booted once more, said: TCG has been seen to
# hang a guest kernel (i386, a soft lockup in PID 1 before memtrace had done anything, in
# 1 of about 10 boots); the second boot is checked like the first, and a boot that fails
# twice fails. The first one's console is kept beside it (serial.1).
RETRIED=()
for a in $ARCHS; do
	[ -n "${READY[$a]:-}" ] || continue
	grep -q "$P all done" "$W/$a/serial" 2> /dev/null && [ "${QRC[$a]}" = 0 ] && continue
	echo "RETRY: $a: boot ended without /init's end (qemu exit ${QRC[$a]}); the console's last lines:"
	tr -d '\r' < "$W/$a/serial" | tail -5 | sed 's/^/      | /'
	mv "$W/$a/serial" "$W/$a/serial.1"
	RETRIED+=("$a")
	while [ "${#QPID[@]}" -ge "$JOBS" ]; do reap_one; done
	start_boot "$a"
done
while [ "${#QPID[@]}" -gt 0 ]; do reap_one; done
TIMINGS+=("all boots: $(elapsed "$t0") s${RETRIED[*]:+ (booted twice: ${RETRIED[*]})}")

# ------------------------------------------------------------ checks
# the TASKS rows of a text report (daemon, replay): "pid peak comm"
task_rows() {
	awk '/^TASKS: /{ t = 1; next } t && $1 == "PID" { T = 1; next } T && NF == 0 { exit }
		T { print $1, $4, $NF }' "$1"
}
peak_of() {	# peak_of REPORT COMM: the largest PEAK_PAGES of a task with that name
	task_rows "$1" | awk -v c="$2" '$3 == c && $2 > m { m = $2 } END { print m + 0 }'
}
page_size() { sed -n 's/.*(page = \([0-9]*\) bytes).*/\1/p' "$1" | head -1; }
lost_of() { sed -n 's/^lost events: \([0-9]*\).*/\1/p' "$1" | head -1; }
events_of() { sed -n 's/^events processed: \([0-9]*\).*/\1/p' "$1" | head -1; }
kind_of() {	# kind_of REPORT KIND: the count of one kind on the events processed line
	grep -m1 '^events processed: ' "$1" | grep -o -E "[(,] ?$2 [0-9]+" | grep -o -E '[0-9]+$'
}
complaints() {	# the decode complaints of a report (empty: none)
	grep -E '^records skipped:|unknown ids|malformed record|cut short' "$1"
}
rc_is() { [ "$(cat "$1" 2> /dev/null)" = "$2" ]; }
in_range() {	# in_range N LOW HIGH
	[ -n "$1" ] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]
}
# the report with its trace-dependent path line (tracefs: DIR) left out
norm() { grep -v -E '^tracefs: ' "$1"; }

declare -A R_PEAK=() R_PS=() R_LOST=() R_COMPL=() R_REPLAY=() R_CMD=() R_STK=()
for a in $ARCHS; do
	[ -n "${READY[$a]:-}" ] || continue
	D=$W/$a
	tr -d '\r' < "$D/serial" > "$D/console" 2> /dev/null
	sed -n "s/^.*$P //p" "$D/console" > "$D/init.lines"
	sed -n "/^$P BEGIN OUT\$/,/^$P END OUT\$/p" "$D/console" | sed '1d;$d' > "$D/out.b64"
	O=$D/out
	if [ "${QRC[$a]}" = 0 ] && grep -q '^all done' "$D/init.lines" &&
		base64 -d < "$D/out.b64" 2> /dev/null | tar xzf - -C "$D" 2> /dev/null &&
		[ -d "$O" ]; then
		ok "$a: booted, /init ran, output back over the console, powered off (${SECS[$a]} s)"
	else
		bad "$a: boot did not finish (qemu exit ${QRC[$a]}$([ "${QRC[$a]}" = 124 ] && echo ', timeout'), $(grep -c . "$D/init.lines") lines from /init); console tail:"
		tail -25 "$D/console" | sed 's/^/      | /'
		continue
	fi
	[ -n "$ARTIFACTS" ] && { rm -rf "${ARTIFACTS:?}/$a"; mkdir -p "$ARTIFACTS"; cp -a "$O" "$ARTIFACTS/$a"; cp "$D/console" "$ARTIFACTS/$a/console"; }
	sed 's/^/      init: /' "$D/init.lines"
	for f in demo.err cmd.err stacks.err rec.err rec.replay.err; do
		[ -s "$O/$f" ] && sed "s/^/      $a ${f%.err} stderr: /" "$O/$f"
	done

	check "$a: the guest is $(uname_m "$a") running ${KVER[$a]}" \
		test "$(cat "$O/uname-m")" = "$(uname_m "$a")" -a "$(cat "$O/uname-r")" = "${KVER[$a]}"
	kb=$(grep -E 'WARNING:|BUG:|Oops|Call [Tt]race|general protection|Unable to handle' "$O/dmesg")
	check "$a: the guest kernel logged no warning, BUG or oops while /init ran (dmesg)" \
		eval '[ -s "$O/dmesg.boot" ] && [ -f "$O/dmesg" ] && [ -z "$kb" ]'
	[ -n "$kb" ] && echo "$kb" | head -5 | sed 's/^/      | /'

	# ---- (a) demo
	u=$O/demo.usr1 l=$O/demo.log
	ps=$(page_size "$u")
	R_PS[$a]=${ps:-?}
	if [ -z "$ps" ]; then
		bad "$a: demo: the USR1 report has no page size line (page = N bytes)"
		ps=4096
	fi
	want=$((WORKLOAD_MIB * 1048576 / ps))
	max=$((want * 105 / 100))
	pk=$(peak_of "$u" workload)
	R_PEAK[$a]=$pk
	check "$a: demo: memtrace --daemon started (0), workload exited 0, USR1 report on stdout" \
		eval 'rc_is "$O/demo.start.rc" 0 && rc_is "$O/demo.workload.rc" 0 && rc_is "$O/demo.usr1.rc" 0 &&
			grep -q "^memtrace .* report (trigger: SIGUSR1, live)" "$u"'
	check "$a: demo: USR1 report: workload peak $pk pages within [$want, $max] ($WORKLOAD_MIB MiB in $ps-byte pages, +5%)" \
		in_range "$pk" "$want" "$max"
	lost=$(lost_of "$u")
	R_LOST[$a]=${lost:-?}
	check "$a: demo: USR1 report: lost events: ${lost:-none given} (want 0)" test "${lost:-x}" = 0
	c=$(complaints "$u")
	R_COMPL[$a]=$(echo -n "$c" | grep -c .)
	check "$a: demo: USR1 report: no decode complaints" test -z "$c"
	[ -n "$c" ] && note "$c"
	# what the decoder saw: the kernel's byte order and word size, from its pages
	case $a in s390x) wo=big ;; *) wo=little ;; esac
	case $a in armhf|i386) wb=32 ;; *) wb=64 ;; esac
	rb=$(grep -m1 '^ring buffer: ' "$u")
	check "$a: demo: USR1 report: ${rb:-no ring buffer line} (want $wo-endian from its pages, $wb-bit)" \
		eval 'grep -q "^ring buffer: $wo-endian (from its pages), $wb-bit kernel" "$u"'
	ev=$(events_of "$u")
	pa=$(kind_of "$u" page_alloc)
	check "$a: demo: USR1 report: events processed ${ev:-?}, page_alloc ${pa:-?} >= $want" \
		in_range "${pa:-}" "$want" 999999999
	check "$a: demo: crc7 loaded (insmod 0, in /proc/modules) and unloaded (rmmod 0)" \
		eval 'rc_is "$O/demo.insmod.rc" 0 && rc_is "$O/demo.rmmod.rc" 0 && [ -s "$O/demo.proc_modules" ]'
	check "$a: demo: TERM: memtrace exited, its instance removed, final report in the log" \
		eval '[ -f "$O/demo.exited" ] && [ ! -f "$O/demo.instance_left" ] && grep -q "^memtrace .* report (trigger: SIGTERM" "$l"'
	ml=$(kind_of "$l" module_load)
	row=$(awk '/^MODULES: /{ m = 1; next } m && $1 == "crc7" { print; exit }' "$l")
	check "$a: demo: final report: module_load ${ml:-?} >= 1, crc7 listed unloaded [${row:-no row}]" \
		eval 'in_range "${ml:-}" 1 999999 && echo "$row" | grep -q -w unloaded'
	pk2=$(peak_of "$l" workload)
	check "$a: demo: final report: workload peak $pk2 = the USR1 report's $pk; lost $(lost_of "$l"), no complaints" \
		eval '[ "$pk2" = "$pk" ] && [ "$(lost_of "$l")" = 0 ] && [ -z "$(complaints "$l")" ]'

	# ---- (b) command mode
	f=$O/cmd.txt
	tp=$(sed -n 's/^tree peak: \([0-9]*\) pages.*/\1/p' "$f" | head -1)
	R_CMD[$a]=${tp:-?}
	check "$a: command: memtrace -- workload $WORKLOAD_MIB exited 0, exit status: 0 in the report" \
		eval 'rc_is "$O/cmd.rc" 0 && grep -q "^exit status: 0\$" "$f"'
	check "$a: command: tree peak ${tp:-?} pages within [$want, $max], lost $(lost_of "$f"), no complaints" \
		eval 'in_range "${tp:-}" "$want" "$max" && [ "$(lost_of "$f")" = 0 ] && [ -z "$(complaints "$f")" ]'

	# ---- (c) --stacks (command mode): the workload's top stack
	f=$O/stacks.txt
	# the first (top) stack listed for the workload: its "now peak frame" line and the
	# frame lines under it, up to the next stack's numbers or a blank line
	awk '/^STACKS OF .*\(workload\)/ { s = 1; next }
		s && (NF == 0 || (n && $1 ~ /^[0-9]+$/)) { exit }
		s { n++; print }' "$f" > "$D/stacks.top"
	sed -E 's/^ *[0-9]+ +[0-9]+ +//; s/^ +//' "$D/stacks.top" > "$D/stacks.frames"
	topk=$(awk 'NR == 1 { print $2 }' "$D/stacks.top")
	frames=$(grep -c -E '^[A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+' "$D/stacks.frames")
	unnamed=$(grep -c -v -E '^[A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+' "$D/stacks.frames")
	# every frame's function is a text symbol of the booted kernel (its /proc/kallsyms:
	# Debian's System.map is a placeholder)
	notin=$(sed -E 's/\+0x.*//; s/ .*//' "$D/stacks.frames" | sort -u |
		while read -r fn; do grep -q -E " [tTwW] $fn( |\$)" "$O/kallsyms.frames" 2> /dev/null || echo "$fn"; done)
	notin=$(echo $notin)
	# the kernel's own stack of the workload's pages (its stacktrace trigger, in the
	# guest): the most frequent, innermost first, the tracing machinery's frames left out
	kcount=$(sed -n 1p "$O/probe.stack" 2> /dev/null)
	kstack=$(sed -n 2p "$O/probe.stack" 2> /dev/null | tr ' ' '\n' |
		grep -v -E '^(-|trace_event_raw_event_.*|__traceiter_.*|perf_trace_.*)?$' | tr '\n' ' ')
	mstack=$(sed -E 's/\+0x.*//' "$D/stacks.frames" | tac | tr '\n' ' ')
	R_STK[$a]="$frames named"
	check "$a: stacks: memtrace --stacks -- workload exited 0, tree peak within [$want, $max]" \
		eval 'rc_is "$O/stacks.rc" 0 && in_range "$(sed -n "s/^tree peak: \([0-9]*\) pages.*/\1/p" "$f")" "$want" "$max"'
	check "$a: stacks: the workload's top stack: $frames frames named (symbol+0xOFF), $unnamed not, its peak ${topk:-?} >= $want" \
		eval '[ "$frames" -ge 3 ] && [ "$unnamed" = 0 ] && in_range "${topk:-}" "$want" 999999999'
	check "$a: stacks: each frame's function is a text symbol in the guest's /proc/kallsyms${notin:+ (not: $notin)}" \
		eval '[ -s "$O/kallsyms.frames" ] && [ -z "$notin" ]'
	check "$a: stacks: the top stack is the kernel's own most frequent stack of the workload's pages (${kcount:-0} of them in its stacktrace trigger)" \
		eval '[ -n "$kstack" ] && [ "$kstack" = "$mstack" ]'
	[ -n "$kstack" ] && [ "$kstack" = "$mstack" ] || { note "memtrace: $mstack"; note "kernel:   ${kstack:-none}"; }
	if [ -s "$O/kallsyms.anon" ]; then
		check "$a: stacks: do_anonymous_page in the workload's top stack" \
			grep -q -E '^do_anonymous_page\+' "$D/stacks.frames"
	else
		# Debian's 6.1 builds inline it (into __handle_mm_fault): not a symbol, never a frame
		R_STK[$a]="${R_STK[$a]}, do_anonymous_page inlined"
		check "$a: stacks: do_anonymous_page is not in the guest's /proc/kallsyms (inlined), and not named either" \
			eval '! grep -q do_anonymous_page "$D/stacks.frames"'
	fi
	[ "$(grep -c . "$D/stacks.frames")" -ge 3 ] || sed 's/^/      | /' "$D/stacks.top"
	check "$a: stacks: lost $(lost_of "$f"), no complaints" \
		eval '[ "$(lost_of "$f")" = 0 ] && [ -z "$(complaints "$f")" ]'

	# ---- (d) --record, the guest's replay, the host's replay
	g=$O/rec.replay
	check "$a: record: live, workload exited 0, memtrace exited 0 on TERM, replay in the guest exited 0" \
		eval '[ -f "$O/rec.live" ] && rc_is "$O/rec.workload.rc" 0 && rc_is "$O/rec.rc" 0 && rc_is "$O/rec.replay.rc" 0'
	rp=$(peak_of "$g" workload)
	lp=$(peak_of "$O/rec.log" workload)
	check "$a: record: guest replay: workload peak ${rp:-?} within [$want, $max], lost $(lost_of "$g"), no complaints" \
		eval 'in_range "$rp" "$want" "$max" && [ "$(lost_of "$g")" = 0 ] && [ -z "$(complaints "$g")" ]'
	check "$a: record: the live report (TERM) of the recorded run has the replay's workload peak (${lp:-?} = ${rp:-?})" \
		eval 'grep -q "^memtrace .* report (trigger: SIGTERM, record)" "$O/rec.log" && [ "$lp" = "$rp" ]'
	"$MT_HOST" --replay "$O/rec" > "$D/host.replay" 2> "$D/host.replay.err"
	hrc=$?
	"$MT_HOST" --replay "$O/rec" -f json > "$D/host.replay.json" 2> /dev/null
	[ -s "$D/host.replay.err" ] && sed "s/^/      $a host replay stderr: /" "$D/host.replay.err"
	if [ "$hrc" = 0 ] && diff <(norm "$g") <(norm "$D/host.replay") > "$D/replay.diff" &&
		[ -s "$g" ]; then
		R_REPLAY[$a]=yes
		ok "$a: record: the host's replay (x86_64) = the guest's replay, $(grep -c . "$g") lines (all but tracefs:)"
	else
		R_REPLAY[$a]=no
		bad "$a: record: the host's replay (exit $hrc) differs from the guest's; diff (guest <, host >):"
		head -20 "$D/replay.diff" | sed 's/^/      | /'
	fi
	check "$a: record: JSON replays equal too (host and guest, but tracefs.path)" \
		eval 'diff <(sed "s/\"path\":\"[^\"]*\"//" "$O/rec.replay.json") <(sed "s/\"path\":\"[^\"]*\"//" "$D/host.replay.json") > /dev/null && [ -s "$O/rec.replay.json" ]'
done

echo
printf '%-6s %-8s %-10s %-10s %-6s %-10s %-7s %-10s %-14s %s\n' arch page peak want lost complaint replay cmd-peak stacks boot_s
for a in $ARCHS; do
	ps=${R_PS[$a]:-?}
	w='?'; [ "$ps" != "?" ] && w=$((WORKLOAD_MIB * 1048576 / ps))
	printf '%-6s %-8s %-10s %-10s %-6s %-10s %-7s %-10s %-14s %s\n' "$a" "$ps" "${R_PEAK[$a]:-?}" "$w" \
		"${R_LOST[$a]:-?}" "${R_COMPL[$a]:-?}" "${R_REPLAY[$a]:-?}" "${R_CMD[$a]:-?}" "${R_STK[$a]:-?}" "${SECS[$a]:-?}"
done
for t in "${TIMINGS[@]}"; do echo "time: $t"; done
echo "time: total $(elapsed "$T_START") s"
finish
