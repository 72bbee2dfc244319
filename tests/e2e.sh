#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# e2e.sh - end-to-end test of the early-boot feature: Debian's kernel booted under
# QEMU (TCG) with lean dracut images (shell and systemd flavour) that hold the
# memtrace dracut module, with an image from Debian's mkinitramfs that holds the
# initramfs-tools scripts, and a real kdump (panic, kexec -p, capture kernel); a tiny
# busybox root disk checks what memtrace left behind and prints it on the serial
# console; the host checks it. Images are built side by side, boots run two at a time.
#
# Usage (root):  tests/e2e.sh            (make e2e)
# Environment:
#   MEMTRACE=PATH        binary under test on the host and the root disk (default
#                        ./memtrace; not built here)
#   MEMTRACE_BOOT=PATH   the images' binary (default ./memtrace-boot, make memtrace-boot;
#                        not built here); the systemd-mt5 boot's image has MEMTRACE's,
#                        for its picture (rd.memtrace.svg=1)
#   KVER=VERSION         kernel (default: newest installed 6.1.*-cloud-amd64)
#   KEEP_WORK=1          keep the work directory (serial logs, images)
#   E2E_ONLY=REGEX       only the boots whose names match (while debugging one)
#   E2E_NO_APT=1         never apt-get install what is missing (SKIP instead)
#   E2E_BOOT_TIMEOUT=S   per boot (default 360: the oom boot took 240 s at host load 5)
#   E2E_JOBS=N           boots at a time (default 2)
#   E2E_KDUMP_CRASH=SIZE      crashkernel= of the generous boots of the dracut and
#                        initramfs-tools captures, kdump and kdump-itools (default 128M)
#   E2E_KDUMP_HEAVY_CRASH=SIZE  of the heavy capture's generous boot (default 192M)
#   E2E_KDUMP_OOM_CRASH=SIZE  crashkernel= of the kdump-oom boot (default 110M; booted
#                        without the boot buffer's words, whose 4 MiB make it panic while
#                        unpacking the initramfs at that size, before any process)
#   E2E_KDUMP_R_DRACUT=SIZE, E2E_KDUMP_R_ITOOLS=SIZE, E2E_KDUMP_R_HEAVY=SIZE
#                        the answer R to check for that capture when memtrace's report
#                        has no `crashkernel: at least N MiB` line (else R comes from the
#                        generous boot's report): a boot at R must be healthy, one at
#                        R - max(8 MiB, 10% of R) - 4 MiB must not (kdump-r-* boots)
#   E2E_KDUMP_BOOTBUF=WORDS  the capture kernel's boot buffer words (default
#                        trace_event=kmem:mm_page_alloc,kmem:mm_page_free trace_buf_size=4M;
#                        empty: none, and the answer is a lower bound)
#   E2E_BISECT=KINDS     instead of the boots: bisect crashkernel= for the captures
#                        KINDS (dracut,itools,heavy; tests/kdump-bisect.sh, make
#                        kdump-bisect; tests/e2e/bisect.sh says how)
#   E2E_RECORD_FIXTURE=DIR  one more boot with rd.memtrace.record; the recording,
#                        /proc/modules and /sys/module/*/{coresize,initsize} of the
#                        guest are written to DIR (replaced), e.g.
#                        tests/fixtures/debian-6.1-boot
#   E2E_RECORD_ZRAM=DIR  one more boot (e2e.mode=zramrec): the disk's memtrace
#                        --stacks --record while zram is loaded and written to; the
#                        recording to DIR (replaced), e.g. tests/fixtures/debian-6.1-zram
#
# Boots (15-35 s each, the kdump boots 35-120 s):
#   kdump         the first kernel (busybox initramfs, crashkernel=128M) loads the
#                 capture kernel and a gzip dracut capture initrd (rd.memtrace=4) with
#                 Debian's kexec -p and crashes (sysrq c); the capture's makedumpfile
#                 writes the vmcore to a disk, kdump_post's memtrace-dracut stop prints
#                 the final report, which is copied next to the dump; the capture must
#                 be healthy (kdump_health: a valid vmcore, no OOM kill, no udev timeout)
#   kdump-oom     the same with crashkernel=110M and a hog right after memtrace's start
#                 (e2e.oomhog: a dd of one 48 MiB block): the capture runs out of
#                 memory; memtrace's OOM summary must reach the console (the boot is
#                 ended 3 s after the summary)
#   kdump-itools  kdump-tools' way: the itools-mt4 image as the capture initrd with
#                 memtrace=4, the dump taken by the root disk's init after switch_root,
#                 memtrace following the switch (--switch-root: makedumpfile in its
#                 final report); the vmcore checked as kdump's, the capture must be
#                 healthy
#   Every kdump capture but kdump-oom's boots with the boot buffer's page events
#   (E2E_KDUMP_BOOTBUF) and its report must end with the crashkernel answer.
#   kdump-heavy   the dracut capture made heavier on purpose (crashkernel=192M): 16 MiB
#                 of random data more in its initrd, and 16 MiB of anonymous memory held
#                 from memtrace's start until the dump is written; must be healthy
#   kdump-r-dracut, kdump-r-itools, kdump-r-heavy (and -below)  after the others: a boot
#                 at memtrace's answer R (healthy) and one at R - max(8 MiB, 10%) - 4 MiB
#                 (not healthy); skipped with a note while R is not known (see
#                 E2E_KDUMP_R_*)
#   itools-mt4    an mkinitramfs image (make install-initramfs-tools' files), memtrace=4
#   itools-off    the same image without memtrace=: nothing starts
#   shell-md4     shell flavour, rd.memdebug=4 (summary report), rd.memtrace.svg=1: the
#                 boot binary draws no picture, says so, traces the boot
#   systemd-mt5   systemd flavour, rd.memtrace=5 (every task), rd.memtrace.svg=1: the one
#                 image with the full memtrace (MEMTRACE_BIN, its picture); every other
#                 image has the boot binary, as the dracut module and the hook take it
#                 both with rd.driver.pre=loop: dracut's cmdline hook modprobes loop,
#                 so a modprobe task and a module loaded right after memtrace started
#   systemd-bootbuf  systemd flavour, rd.memtrace=4 and trace_event=module:...: the
#                 loads of PID 1 come from the kernel's boot buffer (--boot-buffer)
#   shell-killed  memtrace SIGKILLed at pre-pivot 50 (test module 97memtrace-e2e):
#                 the stop hook removes the instance and unmounts tracefs
#   shell-ftrace  function tracing at the top level from boot and trace_event=: the
#                 boot-buffer drain is bounded, the boot goes on
#   zram          shell flavour, rd.memdebug=5, zram loaded by rd.driver.pre and 16 MiB
#                 of random data written into it at pre-pivot 30: zsmalloc + zram hold
#                 the pages by their stacks, their top stacks are printed
#   capture-systemd, capture-shell  rd.memtrace.kdump and a kdump-like capture step at
#                 pre-pivot 9999 that ends the boot (systemctl reboot -f; kdump_post
#                 stop and reboot -f): the capture's peak reaches the console
#   shell-md0     shell flavour, rd.memdebug=0: memtrace must not start
#   systemd-off   systemd flavour, rd.memdebug=4 rd.memtrace=0: must not start
#   systemd-unit  systemd flavour, rd.memtrace=0 e2e.unit, systemd-mt5's image (the full
#                 memtrace: the unit is the running system's): the running-system unit
#                 (systemd/memtrace.service.in) started, USR2, stopped by systemctl, with
#                 the --prometheus opt-in (a drop-in) writing node_exporter's directory
#   zramdiff4, zramdiff12  the disk's own memtrace --stacks -f json while zram holds
#                 4 MiB of random data and workload touches 4 MiB, and 12 MiB of both
#                 with crc7 loaded too: memtrace --diff of their JSON reports says
#                 zsmalloc + zram grew by 8 MiB (+-2%, and +-2% of zram's own
#                 mem_used_total growth), the process workload by 8 MiB (+-2%), crc7
#                 is new; --fail-over
#   oom           -m 256; the disk's init runs memtrace, workload and a hog
#   cpus          -m 256, 2 vCPUs: cpu1 offline when the disk's memtrace starts, then
#                 online; a workload pinned to it must be in the report
#   fixture       (E2E_RECORD_FIXTURE only) shell flavour, rd.memtrace.record
#
# Output: PASS:/FAIL: per check, "N passed, N failed"; exit 1 on any failure.
# SKIP: <reason> and exit 0 when not root or the tools cannot be had.
# The host's tracefs is never touched.
set -u
cd "$(dirname "$0")/.." || exit 1
REPO=$PWD
HERE=$REPO/tests/e2e
MT_SRC=${MEMTRACE:-$REPO/memtrace}
MT_BOOT_SRC=${MEMTRACE_BOOT:-$REPO/memtrace-boot}
BOOT_TIMEOUT=${E2E_BOOT_TIMEOUT:-360}
FIXTURE_DIR=${E2E_RECORD_FIXTURE:-}
P='@@e2e@@'

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "PASS: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; return 1; fi; }
note() { echo "      $*"; }
finish() {
	[ -n "${KEEP_WORK:-}" ] && [ -n "${W:-}" ] && echo "work dir kept: $W"
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit $?
}
skip_all() { echo "SKIP: $*"; exit 0; }

# ------------------------------------------------------------ prerequisites
[ "$(id -u)" = 0 ] || skip_all "needs root (dracut, mke2fs -d, the kernel's files)"

find_kver() {
	local d k
	[ -n "${KVER:-}" ] && return 0
	for d in $(ls -d /lib/modules/6.1.*-cloud-amd64 2>/dev/null | sort -V -r); do
		k=${d##*/}
		[ -r "/boot/vmlinuz-$k" ] && { KVER=$k; return 0; }
	done
	return 1
}

have_static_busybox() {
	[ -x /bin/busybox ] && ! ldd /bin/busybox > /dev/null 2>&1
}

have_static_libc() {
	echo 'int main(void){return 0;}' | cc -static -x c -o /dev/null - > /dev/null 2>&1
}

missing_pkgs() {
	local p=()
	command -v qemu-system-x86_64 > /dev/null || p+=(qemu-system-x86)
	{ command -v dracut > /dev/null && [ -d /usr/lib/dracut/modules.d ]; } || p+=(dracut-core)
	have_static_busybox || p+=(busybox-static)
	{ command -v mke2fs > /dev/null && command -v debugfs > /dev/null; } || p+=(e2fsprogs)
	# the kdump boots' capture step (in the capture initrd), and the host's look into the dump
	command -v makedumpfile > /dev/null || p+=(makedumpfile)
	# Debian's initramfs generator, for the initramfs-tools boots
	command -v mkinitramfs > /dev/null || p+=(initramfs-tools)
	command -v cpio > /dev/null || p+=(cpio)
	command -v cc > /dev/null || p+=(gcc)
	have_static_libc || p+=(libc6-dev)
	find_kver || p+=(linux-image-cloud-amd64)
	# the systemd flavour copies the host's systemd and udev into the image
	{ [ -x /usr/lib/systemd/systemd ] || [ -x /lib/systemd/systemd ]; } || p+=(systemd)
	{ command -v systemd-udevd > /dev/null || [ -x /lib/systemd/systemd-udevd ]; } || p+=(udev)
	echo "${p[@]}"
}

PKGS=$(missing_pkgs)
if [ -n "$PKGS" ] && [ -z "${E2E_NO_APT:-}" ] && command -v apt-get > /dev/null; then
	# never the "dracut" package: it conflicts with (removes) initramfs-tools
	echo "installing: $PKGS"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq > /dev/null 2>&1
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $PKGS > /dev/null 2>&1 ||
		echo "apt-get install $PKGS failed"
	PKGS=$(missing_pkgs)
fi
[ -z "$PKGS" ] || skip_all "missing and not installed: $PKGS"
find_kver || skip_all "no 6.1.*-cloud-amd64 kernel with /boot/vmlinuz-* installed"
VMLINUZ=/boot/vmlinuz-$KVER
[ -r "$VMLINUZ" ] && [ -d "/lib/modules/$KVER" ] || skip_all "kernel $KVER is not installed"
[ -x /usr/lib/systemd/systemd ] || [ -x /lib/systemd/systemd ] ||
	skip_all "systemd is not installed (the systemd flavour copies the host's systemd)"
command -v systemd-udevd > /dev/null || [ -x /lib/systemd/systemd-udevd ] ||
	skip_all "udev (systemd-udevd) is not installed"

E2E_JOBS=${E2E_JOBS:-2}
[[ $E2E_JOBS =~ ^[1-9][0-9]?$ ]] || { bad "E2E_JOBS=$E2E_JOBS: boots at a time, 1 to 99"; finish; }
if [ ! -x "$MT_SRC" ]; then
	bad "no memtrace binary at $MT_SRC (run make memtrace first)"
	finish
fi
if [ ! -x "$MT_BOOT_SRC" ]; then
	bad "no boot binary at $MT_BOOT_SRC (run make memtrace-boot first: musl-tools)"
	finish
fi

# ------------------------------------------------------------ work dir
W=$(mktemp -d /tmp/memtrace-e2e.XXXXXX)
# the boots' runners (subshells, one per boot: see launch), by boot name
declare -A RUNNER=()
# kill_tree PID: TERM PID and everything under it, the innermost first (timeout(1) puts
# itself in a process group of its own, so a group kill would miss QEMU)
kill_tree() {
	local c
	for c in $(pgrep -P "$1"); do kill_tree "$c"; done
	kill "$1" 2> /dev/null
}
kill_qemu() {	# end every boot and image build still running: runners, builders, theirs
	local j
	# only our own jobs not yet reaped: a runner waited for earlier has no pid of ours
	# any more (the number may be another process's by now)
	for j in $(jobs -p); do kill_tree "$j"; done
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

echo "e2e: kernel $KVER, memtrace $MT_SRC, work dir $W"
cp "$MT_SRC" "$W/memtrace"
"$W/memtrace" --version > /dev/null 2>&1 || { bad "$MT_SRC --version fails"; finish; }
cp "$MT_BOOT_SRC" "$W/memtrace-boot"
check "the images' binary is the boot build ($MT_BOOT_SRC: $("$W/memtrace-boot" --version 2>&1))" \
	eval '[[ $("$W/memtrace-boot" --version 2>&1) == *"(the boot build)" ]]' || finish

# ------------------------------------------------------------ root disk
R=$W/root
mkdir -p "$R"/{bin,sbin,etc,proc,sys,dev,run,tmp,mnt,root,usr/sbin,lib,lib64}
cp /bin/busybox "$R/bin/busybox"
for a in $("$R/bin/busybox" --list); do
	[ -e "$R/bin/$a" ] || ln -s busybox "$R/bin/$a"
done
install -m 0755 "$HERE/init.sh" "$R/sbin/init"
ln -s sbin/init "$R/init"
cat > "$R/etc/os-release" << 'EOF'
NAME="memtrace e2e"
ID=memtrace-e2e
PRETTY_NAME="memtrace e2e root (busybox)"
EOF
BUILD_OK=1
cc -O2 -Wall -static -o "$R/bin/workload" tests/workload.c || BUILD_OK=
cc -O2 -Wall -static -o "$R/bin/hog" "$HERE/hog.c" || BUILD_OK=
# the OOM boot runs the binary under test from the disk: it and the libraries it needs
cp "$W/memtrace" "$R/usr/sbin/memtrace"
# the kdump-itools boot's root runs makedumpfile, as kdump-tools-dump.service does
mkdir -p "$R/usr/bin" "$R/var/crash"
cp /usr/bin/makedumpfile "$R/usr/bin/makedumpfile" || BUILD_OK=
for lib in $(ldd "$W/memtrace" /usr/bin/makedumpfile 2> /dev/null | grep -o '/[^ ]*' | grep -v ':$' |
	sort -u); do
	mkdir -p "$R$(dirname "$lib")"
	cp -L "$lib" "$R$lib"
done
# zramrec: the modules the disk's init loads itself (insmod)
mkdir -p "$R/lib/modules/e2e"
# (crc7: loaded only in the second zramdiff boot)
for m in zsmalloc lzo-rle zram crc7; do
	f=$(modinfo -k "$KVER" -n "$m" 2> /dev/null) && cp "$f" "$R/lib/modules/e2e/$m.ko"
done
# (room for a vmcore of about 22 MB: the kdump-itools boot)
truncate -s 96M "$W/root.ext4"
mke2fs -q -F -t ext4 -L e2eroot -d "$R" "$W/root.ext4" || BUILD_OK=
check "root disk built (busybox, init, workload, hog, memtrace, makedumpfile + libs)" test -n "$BUILD_OK"
[ -n "$BUILD_OK" ] || finish

# ------------------------------------------------------------ initramfs images
# dracut sees our module through a private base dir of symlinks (never /usr/lib/dracut)
B=$W/dracutbase
mkdir -p "$B/modules.d" "$W/dracut.conf.d"
for f in /usr/lib/dracut/*; do [ "${f##*/}" = modules.d ] || ln -s "$f" "$B/"; done
for m in /usr/lib/dracut/modules.d/*; do ln -s "$m" "$B/modules.d/"; done
# -n: our module replaces an installed one (a memtrace package: a 99memtrace of its own)
ln -sfn "$REPO/dracut/99memtrace" "$B/modules.d/99memtrace"
# test-only: SIGKILL memtrace at pre-pivot 50 when e2e.killmt is given
ln -s "$HERE/97memtrace-e2e" "$B/modules.d/97memtrace-e2e"

# the running-system unit as `make install-systemd` makes it, for the initramfs's
# /usr/sbin/memtrace (the systemd image installs it as memtrace-watch.service)
make -s -C "$REPO" install-systemd DESTDIR="$W/unit" BINDIR=/usr/sbin \
	SYSTEMDUNITDIR=/lib/systemd/system > /dev/null &&
	cp "$W/unit/lib/systemd/system/memtrace.service" "$W/memtrace-watch.service"

# image_bin_is IMAGE_FILE_OF_MEMTRACE WHAT: the image's /usr/sbin/memtrace (extracted to a
# file) is the boot build ("boot") or the full one ("full"), by its --version
image_bin_is() {
	local v
	chmod 755 "$1" && v=$("$1" --version 2>&1) || return 1
	case $2 in
	boot) [[ $v == *"(the boot build)" ]] ;;
	*) [[ $v != *"(the boot build)" ]] ;;
	esac
}

# build_initrd FLAVOUR MODULES (COMPRESS=...: default cat; IMG_BIN=the binary: default the
# boot binary; the image built as initrd-FLAVOUR.img, its memtrace checked to be that one)
build_initrd() {
	local rc
	dracutbasedir=$B MEMTRACE_BIN=${IMG_BIN:-$W/memtrace-boot} \
		MEMTRACE_E2E_UNIT=$W/memtrace-watch.service \
		dracut --force --quiet \
		--conf /dev/null --confdir "$W/dracut.conf.d" \
		--no-hostonly --no-hostonly-cmdline --compress "${COMPRESS:-cat}" \
		-m "$2" --drivers 'virtio_blk virtio_pci loop' \
		--kver "$KVER" "$W/initrd-$1.img" > "$W/dracut-$1.log" 2>&1
	rc=$?
	if [ "$rc" != 0 ]; then
		sed 's/^/      dracut: /' "$W/dracut-$1.log" | tail -20
		return 1
	fi
	# the image has our module, in the right place for the flavour, with the binary asked for
	lsinitrd "$W/initrd-$1.img" > "$W/lsinitrd-$1.txt" 2> /dev/null
	lsinitrd -f usr/sbin/memtrace "$W/initrd-$1.img" > "$W/image-bin-$1" 2> /dev/null
	image_bin_is "$W/image-bin-$1" "$([ -n "${IMG_BIN:-}" ] && echo full || echo boot)" || {
		echo "      the image's /usr/sbin/memtrace is not the binary asked for (${IMG_BIN:-the boot binary})"
		return 1
	}
	grep -q 'usr/sbin/memtrace$' "$W/lsinitrd-$1.txt" &&
		grep -q 'usr/sbin/memtrace-dracut$' "$W/lsinitrd-$1.txt" &&
		grep -q 'lib/dracut/hooks/pre-pivot/99-memtrace-report.sh$' "$W/lsinitrd-$1.txt" ||
		return 1
	if [ "$1" = capture ]; then
		grep -q 'lib/dracut/hooks/cmdline/00-memtrace-start.sh$' "$W/lsinitrd-$1.txt" &&
			grep -q 'usr/bin/makedumpfile$' "$W/lsinitrd-$1.txt" &&
			grep -q 'lib/dracut/hooks/cmdline/01-hold.sh$' "$W/lsinitrd-$1.txt" &&
			grep -q 'lib/dracut/hooks/pre-pivot/9999-capture.sh$' "$W/lsinitrd-$1.txt"
	elif [ "$1" = shell ]; then
		grep -q 'lib/dracut/hooks/cmdline/00-memtrace-start.sh$' "$W/lsinitrd-$1.txt"
	else
		grep -q 'memtrace.service$' "$W/lsinitrd-$1.txt" &&
			grep -q 'sysinit.target.wants/memtrace.service' "$W/lsinitrd-$1.txt"
	fi
}

# ---- the kdump boots: a real panic, kexec -p, a capture kernel in crashkernel=
# The first kernel boots a busybox initramfs (initrd-kdump.img) that holds Debian's
# kexec, the kernel, the capture initrd and its command line: kexec -p, then sysrq c.
# The capture initrd (initrd-capture.img) is a lean shell-flavour dracut image, gzip as
# kdump images are, with memtrace and the test module, whose pre-pivot 9999 hook is the
# capture step in a kdump kernel (makedumpfile onto the dump disk, see capture.sh).
# The dump disk (dump.ext4, 512 MiB sparse) is the capture's root=/dev/vda.
# The heavy capture (initrd-heavy.img) is that capture initrd with one more cpio archive
# appended (the kernel unpacks them one after the other): a 16 MiB random blob, which
# stays in the capture's memory, and /etc/e2e-heavy, which makes the test module's
# cmdline hook 01 hold 16 MiB of anonymous memory from right after memtrace's start until
# the dump is written (hold.sh, capture.sh).
# The captures' boot buffer: the page events of the boot before memtrace, which its
# crashkernel= answer needs (docs/boot.md; E2E_KDUMP_BOOTBUF= to boot without)
KDUMP_BOOTBUF=${E2E_KDUMP_BOOTBUF-trace_event=kmem:mm_page_alloc,kmem:mm_page_free trace_buf_size=4M}
KDUMP_CMDLINE="console=ttyS0 root=/dev/vda rw rd.memtrace=4 irqpoll nr_cpus=1 reset_devices panic=-1 rd.shell=0 rd.emergency=poweroff no_timer_check${KDUMP_BOOTBUF:+ $KDUMP_BOOTBUF}"
HEAVY_BLOB_MIB=16 HEAVY_HOLD_MIB=16
# crashkernel= of the kdump boot (the capture needs 116M: measured, see docs/boot.md),
# of the heavy capture's (it needs 148M) and of the kdump-oom boot: 110M, below what the
# capture needs without the boot buffer's words: OOM kills in udev (with memtrace's 6.6 MiB
# of before issue 39 that was so at 112M, 10 of 10 boots; with its 1.7 MiB 112M was healthy
# and 110M mostly, not always, ran out of memory in udev: healthy once in a clean-clone CI
# run; from 108M the kernel panics while unpacking the initramfs, before any process, and
# a larger initrd panics at 110M too; 8 MiB written to /run after memtrace's start left
# nothing killable: "System is deadlocked on memory"). So the size stays and the
# capture's command line gets e2e.oomhog: hold.sh runs a dd whose one block is 48 MiB
# right after memtrace's start, which the OOM killer ends, for certain
KDUMP_CRASH=${E2E_KDUMP_CRASH:-128M}
KDUMP_HEAVY_CRASH=${E2E_KDUMP_HEAVY_CRASH:-192M}
# kdump-tools' capture command line: the running kernel's less crashkernel=, then its
# KDUMP_CMDLINE_APPEND (the default, with memtrace=4 as docs/boot.md says); root= the e2e
# root disk, whose init takes the dump after switch_root (kdump-tools-dump.service)
ITOOLS_KDUMP_CMDLINE="console=ttyS0 panic=-1 root=/dev/vda rw reset_devices nr_cpus=1 irqpoll usbcore.nousb memtrace=4 e2e.mode=kdumptools no_timer_check${KDUMP_BOOTBUF:+ $KDUMP_BOOTBUF}"
KDUMP_OOM_CRASH=${E2E_KDUMP_OOM_CRASH:-110M}
# Debian's kexec-tools and the libraries it needs, downloaded (never installed on the
# host: its postinst would set up kexec-load) and kept here
KEXEC_CACHE=$HERE/cache
# fetch_kexec: apt-get download kexec-tools and those of its dependencies (the Xen
# libraries) this host lacks, whether or not kexec-tools itself is installed here
fetch_kexec() {
	local p deps=()
	for p in $(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances --no-pre-depends kexec-tools |
		sed -n 's/^ *Depends: \(lib[^<: ]*\)$/\1/p' | sort -u); do
		dpkg-query -W -f '${Status}' "$p" 2> /dev/null | grep -q 'ok installed' || deps+=("$p")
	done
	mkdir -p "$KEXEC_CACHE" &&
		(cd "$KEXEC_CACHE" && apt-get download kexec-tools "${deps[@]}")
}
build_kdump() {
	local x=$W/kexec-x F=$W/first D=$W/dumptree l dst
	COMPRESS=gzip MEMTRACE_E2E_KDUMP=1 build_initrd capture \
		'bash kernel-modules rootfs-block memtrace memtrace-e2e' || return 1
	if ! ls "$KEXEC_CACHE"/kexec-tools_*.deb > /dev/null 2>&1; then
		[ -z "${E2E_NO_APT:-}" ] ||
			{ echo "      E2E_NO_APT: kexec-tools not in $KEXEC_CACHE, not downloaded"; return 1; }
		fetch_kexec > "$W/kexec-apt.log" 2>&1 ||
			{ apt-get update -qq > /dev/null 2>&1; fetch_kexec > "$W/kexec-apt.log" 2>&1; } ||
			{ echo "      kexec-tools could not be downloaded:"; tail -5 "$W/kexec-apt.log"; return 1; }
	fi
	mkdir -p "$x"
	for l in "$KEXEC_CACHE"/*.deb; do dpkg -x "$l" "$x" || return 1; done
	mkdir -p "$F"/{bin,sbin,proc,sys,dev,boot}
	cp /bin/busybox "$F/bin/busybox"
	cp "$x/sbin/kexec" "$F/sbin/kexec" || return 1
	# kexec's libraries: the unpacked ones first, then the host's
	if LD_LIBRARY_PATH=$x/usr/lib/x86_64-linux-gnu:$x/lib/x86_64-linux-gnu ldd "$x/sbin/kexec" |
		grep 'not found'; then
		echo "      kexec: libraries missing"
		return 1
	fi
	for l in $(LD_LIBRARY_PATH=$x/usr/lib/x86_64-linux-gnu:$x/lib/x86_64-linux-gnu \
		ldd "$x/sbin/kexec" | grep -o '/[^ ]*'); do
		dst=${l#"$x"}
		mkdir -p "$F${dst%/*}"
		cp -L "$l" "$F$dst" || return 1
	done
	cp "$VMLINUZ" "$F/boot/vmlinuz"
	cp "$W/initrd-capture.img" "$F/boot/capture.img"
	install -m 0755 "$HERE/kdump-first.sh" "$F/init"
	echo "$KDUMP_CMDLINE" > "$F/capture.cmdline"
	# the dump disk: a root dracut accepts (an /sbin/init, never run), /var/crash
	mkdir -p "$D"/{sbin,proc,sys,dev,var/crash}
	cp /bin/busybox "$D/sbin/init"
	truncate -s 512M "$W/dump.ext4"
	mke2fs -q -F -t ext4 -L dump -d "$D" "$W/dump.ext4" || return 1
	build_heavy
}

# build_heavy: the heavy capture initrd (the capture initrd + a cpio of the blob, the
# holder and its size) and the first kernel's initramfs for it (initrd-kdump.img + a cpio
# of boot/heavy.img and heavy.cmdline, made once initrd-kdump.img is)
build_heavy() {
	local H=$W/heavytree
	mkdir -p "$H/etc" "$H/usr/bin"
	head -c "$((HEAVY_BLOB_MIB << 20))" /dev/urandom > "$H/e2e-heavy.blob"
	echo "$HEAVY_HOLD_MIB" > "$H/etc/e2e-heavy"
	# the holder: workload MIB HOLD_MS READY_FILE (static, from the root disk)
	cp "$R/bin/workload" "$H/usr/bin/e2e-hold" || return 1
	(cd "$H" && find . | cpio -o -H newc --quiet) > "$W/heavy.cpio" || return 1
	# the kernel takes an archive after a compressed one only at a 4-byte boundary (it
	# skips the zeros before it)
	cp "$W/initrd-capture.img" "$W/initrd-heavy.img" && truncate -s %4 "$W/initrd-heavy.img" &&
		cat "$W/heavy.cpio" >> "$W/initrd-heavy.img"
}

# ---- initramfs-tools: the image Debian and Ubuntu boot (and kdump-tools' capture initrd)
# mkinitramfs from a private CONFDIR (never /etc/initramfs-tools): the hook and scripts as
# `make install-initramfs-tools` installs them, MODULES=list (virtio only), busybox
build_itools() {
	local C=$W/itconf
	make -s -C "$REPO" install-initramfs-tools DESTDIR="$W/itinst" \
		INITRAMFS_TOOLS_DIR=/usr/share/initramfs-tools > /dev/null || return 1
	mkdir -p "$C/conf.d"
	cp -r "$W/itinst/usr/share/initramfs-tools/hooks" "$W/itinst/usr/share/initramfs-tools/scripts" "$C/"
	printf '%s\n' MODULES=list BUSYBOX=y KEYMAP=n COMPRESS=gzip RUNSIZE=10% FSTYPE=ext4 \
		> "$C/initramfs.conf"
	echo RESUME=none > "$C/conf.d/resume"
	printf '%s\n' virtio_pci virtio_blk > "$C/modules"
	MEMTRACE_BIN=$W/memtrace-boot mkinitramfs -d "$C" -o "$W/initrd-itools.img" "$KVER" \
		> "$W/mkinitramfs.log" 2>&1 || { tail -20 "$W/mkinitramfs.log"; return 1; }
	lsinitramfs "$W/initrd-itools.img" > "$W/lsinitrd-itools.txt" 2> /dev/null
	# its memtrace: the boot binary (static: copy_exec brings no library with it)
	rm -rf "$W/itools-x" && unmkinitramfs "$W/initrd-itools.img" "$W/itools-x" > /dev/null 2>&1
	image_bin_is "$(ls "$W"/itools-x/usr/sbin/memtrace "$W"/itools-x/main/usr/sbin/memtrace \
		2> /dev/null | head -1)" boot || { echo "      the image's memtrace is not the boot binary"; return 1; }
	grep -q -x 'usr/sbin/memtrace' "$W/lsinitrd-itools.txt" &&
		grep -q -x 'scripts/init-top/memtrace' "$W/lsinitrd-itools.txt" &&
		grep -q -x 'scripts/init-bottom/memtrace' "$W/lsinitrd-itools.txt" &&
		grep -q -x 'scripts/memtrace-initrd' "$W/lsinitrd-itools.txt"
}

# the images are built side by side (dracut runs mostly one process at a time);
# build_bg NAME COMMAND...: COMMAND in the background; built NAME: its result
declare -A BUILDER=()
build_bg() {
	local name=$1
	shift
	(
		trap - EXIT INT TERM
		t0=$(date +%s.%N)
		"$@" > "$W/build-$name.out" 2>&1
		echo "$? $(elapsed "$t0")" > "$W/build-$name.rc"
	) &
	BUILDER[$name]=$!
	RUNNER[build-$name]=$!
}
built() {
	local rc secs
	wait "${BUILDER[$1]}"
	unset "RUNNER[build-$1]"
	read -r rc secs < "$W/build-$1.rc" || { rc=255 secs='?'; }
	TIMINGS+=("build $1: $secs s")
	cat "$W/build-$1.out"
	[ "$rc" = 0 ]
}
build_bg shell build_initrd shell 'bash kernel-modules rootfs-block memtrace memtrace-e2e'
build_bg systemd build_initrd systemd \
	'systemd systemd-initrd dracut-systemd kernel-modules rootfs-block memtrace memtrace-e2e'
KDUMP_OK=
# wanted NAME...: one of these boots is to run (E2E_ONLY)
wanted() {
	local b
	[ -z "${E2E_ONLY:-}" ] && return 0
	for b; do [[ $b =~ $E2E_ONLY ]] && return 0; done
	return 1
}
if [ -n "${E2E_BISECT:-}" ] || wanted kdump kdump-oom kdump-itools kdump-heavy kdump-r-dracut \
	kdump-r-itools kdump-r-heavy; then
	build_bg kdump build_kdump
	KDUMP_OK=1
fi
# the one image with the full memtrace (MEMTRACE_BIN): systemd-mt5 draws its picture, and
# systemd-unit runs the running system's unit, whose --prometheus the boot binary lacks
FULL_OK=
if wanted systemd-mt5 systemd-unit; then
	IMG_BIN=$W/memtrace build_bg systemd-full build_initrd systemd-full \
		'systemd systemd-initrd dracut-systemd kernel-modules rootfs-block memtrace memtrace-e2e'
	FULL_OK=1
fi
check "dracut: shell-flavour image with the memtrace module (cmdline 00, pre-pivot 99), the boot binary as its memtrace" built shell
check "dracut: systemd-flavour image with the memtrace module (unit in sysinit.target, pre-pivot 99), the boot binary as its memtrace" \
	built systemd
if [ -n "$FULL_OK" ]; then
	check "dracut: systemd-flavour image with the full memtrace (MEMTRACE_BIN), for systemd-mt5 and systemd-unit" \
		built systemd-full || FULL_OK=
fi
ITOOLS_OK=
if [ -n "${E2E_BISECT:-}" ] || wanted itools-mt4 itools-off kdump-itools kdump-r-itools; then
	build_bg itools build_itools
	ITOOLS_OK=1
fi
if [ -n "$ITOOLS_OK" ]; then
	check "initramfs-tools: mkinitramfs image with memtrace, init-top and init-bottom scripts (make install-initramfs-tools)" \
		built itools || ITOOLS_OK=
fi
if [ -n "$KDUMP_OK" ]; then
	check "kdump: capture initrd (shell flavour, gzip, memtrace, makedumpfile, capture hook), first kernel's initramfs (Debian's kexec and its libraries), dump disk" \
		built kdump || KDUMP_OK=
fi
# the first kernel's initramfs, with the initramfs-tools image as a second capture initrd
if [ -n "$KDUMP_OK" ]; then
	if [ -n "$ITOOLS_OK" ]; then
		cp "$W/initrd-itools.img" "$W/first/boot/itools.img"
		echo "$ITOOLS_KDUMP_CMDLINE" > "$W/first/itools.cmdline"
	fi
	(cd "$W/first" && find . | cpio -o -H newc --quiet) > "$W/initrd-kdump.img" || KDUMP_OK=
	# the heavy capture's first kernel: one more archive with boot/heavy.img
	mkdir -p "$W/firstheavy/boot"
	cp "$W/initrd-heavy.img" "$W/firstheavy/boot/heavy.img" &&
		echo "$KDUMP_CMDLINE" > "$W/firstheavy/heavy.cmdline" &&
		(cd "$W/firstheavy" && find . | cpio -o -H newc --quiet) |
		cat "$W/initrd-kdump.img" - > "$W/initrd-kdump-heavy.img" || KDUMP_OK=
fi
[ -s "$W/initrd-shell.img" ] && [ -s "$W/initrd-systemd.img" ] || finish

# ------------------------------------------------------------ boot
BASE_APPEND="console=ttyS0 root=/dev/vda rw panic=-1 rd.shell=0 rd.emergency=poweroff"

# Boots run E2E_JOBS at a time (default 2: QEMU's TCG keeps one core busy per vCPU).
# The boots section (boots(), below) is run twice: PASS=launch starts every boot in
# the background, in order, as a slot frees; PASS=collect then takes each boot's
# result in the same order and runs its checks. A boot called outside those passes
# (the recording modes) is launched and collected at once.
#
# boot NAME FLAVOUR MEM_MB "KERNEL ARGS" [extra qemu args]: serial log in NAME.console,
# the disk init's lines (prefix removed) in NAME.e2e. Environment of the call:
#   SMP=N        vCPUs (default 1)
#   NOEND=1      the boot ends in the initramfs (a capture step): no disk init
#   INITRD=FILE  (default initrd-FLAVOUR.img)   DISK=FILE  (default root.ext4; a copy)
#   APPEND0=...  the command line before ARGS (default $BASE_APPEND)
#   CMDLINE_HAS=WORDS  what the disk init's command line must hold (default ARGS; a
#                kdump boot's disk init runs in the capture kernel)
#   SOLO=1       no other boot runs beside it: the boots whose guest has a time limit
#                that host contention can exceed (memtrace --daemon's 30 s start limit
#                in the oom and cpus boots; cpus has two vCPUs)
#   WATCH=ERE    when the serial console has a line matching ERE, end QEMU 3 s
#                later (a boot that cannot end by itself, e.g. dracut after an OOM)
#   AFTER_KILL=S when the console shows an OOM kill, end QEMU S seconds later if it is
#                still running (a capture that may hang after its kills: kdump probes)
#   PROBE=1      a kdump probe (kdump_probe): whatever the boot did is a result, collect
#                only takes its console (no PASS/FAIL)
boot() {
	case ${PASS:-} in
	launch) launch "$@"; return 1 ;;
	collect) collect "$1" "$4" ;;
	*) launch "$@" && collect "$1" "$4" ;;
	esac
}

launch() {
	local name=$1 flavour=$2 mem=$3 args=$4
	shift 4
	if [ -n "${E2E_ONLY:-}" ] && ! [[ $name =~ $E2E_ONLY ]]; then
		return 1
	fi
	# a free slot: at most E2E_JOBS runners at a time (SOLO: none beside it)
	if [ -n "${SOLO:-}" ]; then
		while [ "$(jobs -pr | wc -l)" -gt 0 ]; do wait -n; done
	fi
	while [ "$(jobs -pr | wc -l)" -ge "$E2E_JOBS" ]; do wait -n; done
	run_qemu "$name" "$mem" "${INITRD:-$W/initrd-$flavour.img}" "${DISK:-$W/root.ext4}" \
		"${APPEND0-$BASE_APPEND} $args" "$@" &
	RUNNER[$name]=$!
	if [ -n "${SOLO:-}" ]; then
		wait "$!"
	fi
}

# run_qemu NAME MEM INITRD DISK APPEND [qemu args] (a runner, in the background):
# "RC SECONDS" into NAME.rc when QEMU is done. Every kernel gets no_timer_check: under
# TCG on a loaded host the kernel's timer check can fail and panic at 0.008 s ("IO-APIC
# + timer doesn't work!"), seen once in a kdump boot's first kernel at host load 6.
# And init_on_alloc=0: Debian's kernel zeroes every page it allocates ("mem auto-init:
# heap alloc:on") with rep stosb, which QEMU 7.2's TCG runs a byte per translated block.
# A CPU coming online (its ring buffers, 2 MiB an instance) then took the guest from
# seconds to over a minute on a loaded host, the same with an instance a shell made and
# no memtrace, and 0.02-0.42 s with init_on_alloc=0 (the cpus boot, docs/testing.md); an
# instance's mkdir (an inode per event file) is faster with it too, but not always
# (tracefs_warm in init.sh). It changes no page count, only whether the kernel zeroes
# its pages. The capture kernels keep their command lines.
run_qemu() {
	local name=$1 mem=$2 initrd=$3 disk=$4 append=$5 t0 qp rc
	shift 5
	trap - EXIT INT TERM
	cp --sparse=always "$disk" "$W/$name.disk"
	t0=$(date +%s.%N)
	timeout "$BOOT_TIMEOUT" qemu-system-x86_64 -accel tcg -cpu max -m "$mem" -smp "${SMP:-1}" \
		-nic none -no-reboot -display none -monitor none \
		-pidfile "$W/$name.qemu.pid" -serial "file:$W/$name.serial" "$@" \
		-kernel "$VMLINUZ" -initrd "$initrd" \
		-drive "file=$W/$name.disk,if=virtio,format=raw" \
		-append "$append no_timer_check init_on_alloc=0" < /dev/null > "$W/$name.qemu.log" 2>&1 &
	qp=$!
	echo "$qp" > "$W/$name.timeout.pid"
	if [ -n "${WATCH:-}" ]; then
		while kill -0 "$qp" 2> /dev/null; do
			if grep -a -q -E "$WATCH" "$W/$name.serial" 2> /dev/null; then
				echo "watch: $(elapsed "$t0") s" > "$W/$name.watch"
				sleep 3
				kill "$qp" 2> /dev/null	# timeout(1) passes TERM on to QEMU
				break
			fi
			sleep 1
		done
	elif [ -n "${AFTER_KILL:-}" ]; then
		local tk=
		while kill -0 "$qp" 2> /dev/null; do
			if [ -z "$tk" ] && grep -a -q 'Out of memory: Killed process' "$W/$name.serial" 2> /dev/null; then
				tk=$SECONDS
			fi
			if [ -n "$tk" ] && [ $((SECONDS - tk)) -ge "$AFTER_KILL" ]; then
				echo "ended $AFTER_KILL s after the first OOM kill ($(elapsed "$t0") s)" > "$W/$name.watch"
				kill "$qp" 2> /dev/null
				break
			fi
			sleep 1
		done
	fi
	wait "$qp"
	rc=$?
	echo "$rc $(elapsed "$t0")" > "$W/$name.rc"
	rm -f "$W/$name.timeout.pid" "$W/$name.qemu.pid"
	[ -n "${KEEP_DISK:-}" ] || rm -f "$W/$name.disk"
}

# kdump_boot NAME CRASHKERNEL [KIND]: the first kernel (busybox initramfs) crashes into
# the capture of KIND: dracut (default: the dracut capture initrd, the dump disk as root),
# itools (the mkinitramfs image, the e2e root disk: kdump-tools' way) or heavy (the dracut
# capture made heavier: initrd-heavy.img, the dump disk). The first kernel boots with
# nokaslr: in its 512 MiB, below a 57 MiB initramfs (heavy), a 192 MiB crashkernel= needs
# a hole of that size; a kernel image placed at random near the middle left none, and the
# reservation failed ("crashkernel 0 bytes", seen once in make e2e on 2026-11-30). Placed
# where it was linked it always leaves one. The capture's command line is its own.
kdump_boot() {
	local disk=$W/dump.ext4 initrd=$W/initrd-kdump.img k=capture
	case ${3:-dracut} in
	itools) disk=$W/root.ext4 k=itools ;;
	heavy) initrd=$W/initrd-kdump-heavy.img k=heavy ;;
	esac
	INITRD=$initrd DISK=$disk APPEND0="console=ttyS0 panic=-1 nokaslr" \
		boot "$1" kdump 512 "crashkernel=$2 e2e.kdump=$k${FIRST_EXTRA:+ $FIRST_EXTRA}"
}

# collect NAME "KERNEL ARGS": wait for the boot, then its console; 0 if it ended well
collect() {
	local name=$1 args=$2 rc secs
	if [ -z "${RUNNER[$name]:-}" ]; then
		note "$name: not booted (E2E_ONLY=${E2E_ONLY:-})"
		return 1
	fi
	wait "${RUNNER[$name]}" 2> /dev/null	# (a SOLO boot's was waited for at its launch)
	unset "RUNNER[$name]"
	read -r rc secs < "$W/$name.rc" || { rc=255 secs='?'; }
	TIMINGS+=("boot $name: $secs s (qemu exit $rc)")
	tr -d '\r' < "$W/$name.serial" > "$W/$name.console"
	sed -n "s/^.*$P //p" "$W/$name.console" > "$W/$name.e2e"
	# a kdump probe: whatever happened is the result (kdump_health says what it was)
	[ -n "${PROBE:-}" ] && return 0
	if [ -n "${NOEND:-}" ] && [ "$rc" = 0 ] && grep -q -E "${NOEND_DONE:-.}" "$W/$name.console"; then
		# a boot that ends in the initramfs (a capture step): its console is all there is
		ok "$name: booted, ended in the initramfs${NOEND_DONE:+ after /$NOEND_DONE/}, qemu exited 0 ($secs s)"
		return 0
	fi
	if [ -n "${NOEND:-}" ]; then
		bad "$name: the initramfs did not end its step${NOEND_DONE:+ (no /$NOEND_DONE/)} (qemu exit $rc after $secs s); console tail:"
		tail -25 "$W/$name.console" | sed 's/^/      | /'
		return 1
	fi
	if [ -n "${WATCH:-}" ]; then
		if [ -s "$W/$name.watch" ]; then
			ok "$name: booted, ended by the test 3 s after the console showed /$WATCH/ ($(cat "$W/$name.watch"), qemu exit $rc after $secs s)"
			return 0
		fi
		bad "$name: the console never showed /$WATCH/ (qemu exit $rc after $secs s); console tail:"
		tail -25 "$W/$name.console" | sed 's/^/      | /'
		return 1
	fi
	if [ "$rc" = 0 ] && grep -qx END "$W/$name.e2e" &&
		grep -q -F -e "${CMDLINE_HAS:-$args}" <(fact "$name" CMDLINE); then
		ok "$name: booted, disk init ran and powered off ($secs s)"
		return 0
	fi
	bad "$name: boot did not finish (qemu exit $rc, $([ "$rc" = 124 ] && echo 'timeout, ')$(grep -c . "$W/$name.e2e") lines from the disk init); console tail:"
	tail -25 "$W/$name.console" | sed 's/^/      | /'
	return 1
}

tag() {	# tag NAME TAG: the disk init's lines with that tag, tag removed
	sed -n "s/^$2 //p; s/^$2\$//p" "$W/$1.e2e"
}
has_tag() { grep -q -E "^$2( |\$)" "$W/$1.e2e"; }
fact() { tag "$1" "$2" | head -1; }
# mt_started NAME DESCRIPTION: the check that the disk's memtrace --daemon started
# (MT_START rc=0); a start that gave up at the 30 s start limit and was tried again
# (init.sh's mt_daemon: the emulator) is said
mt_started() {
	local l
	check "$1: $2" has_tag "$1" "MT_START rc=0"
	tag "$1" MT_RETRY | while read -r l; do note "$1: memtrace --daemon tried again: $l"; done
}

# parse a text report: NAME.mods "name peak static state bracket loader load_peak cur"
# (load_peak: the bracket's alone, with --stacks; else the peak),
# NAME.taskpids "pid comm",
# NAME.tasks "peak comm", NAME.taskhdr "rows total"
parse_report() {	# parse_report REPORT OUTPREFIX
	awk -v mods="$2.mods" -v tasks="$2.tasks" -v hdr="$2.taskhdr" -v pids="$2.taskpids" '
		/^TASKS: [0-9]+ of [0-9]+/ { sec = "t"; print $2, $4 > hdr; next }
		/^MODULES: [0-9]+/ { sec = "m"; next }
		sec == "t" && $1 == "PID" { sec = "T"; next }
		sec == "m" && $1 == "NAME" { sec = "M"; for (i = 1; i <= NF; i++) col[$i] = i; next }
		sec == "T" && NF == 0 { sec = ""; next }
		sec == "M" && NF == 0 { sec = ""; next }
		sec == "T" {
			peak = $4; pid = $1; $1 = $2 = $3 = $4 = $5 = $6 = $7 = $8 = $9 = ""
			sub(/^ +/, ""); print peak, $0 > tasks; print pid, $0 > pids; next
		}
		sec == "M" && NF >= 8 && $2 ~ /^-?[0-9]+$/ {
			print $1, $2, $col["STATIC_KIB"], $col["STATE"], $col["BRACKET"], $col["LOADER"],
				("LOAD_PEAK" in col) ? $col["LOAD_PEAK"] : $2, $col["CUR_PAGES"] > mods; next
		}
		sec == "M" { sec = "" }
	' "$1"
	touch "$2.mods" "$2.tasks" "$2.taskhdr" "$2.taskpids"
}

# ---- checks on a boot in which memtrace ran in the initramfs
# check_svg NAME: rd.memtrace.svg=1's picture and the JSON report the module keeps (the disk
# init copied both onto the root disk, read here with debugfs): the JSON report's peaks the
# text report's, --diff reads it; the picture well-formed XML, its system peak the report's,
# and each module drawn with the peak of its row in the report (issue 25: the picture says
# what the report says)
check_svg() {
	local n=$1 r=$W/$1 got
	debugfs -R "dump /e2e-picture.svg $r.svg" "$W/$n.disk" > /dev/null 2>&1
	debugfs -R "dump /e2e-report.json $r.json" "$W/$n.disk" > /dev/null 2>&1
	[ -n "${KEEP_WORK:-}" ] || rm -f "$W/$n.disk"
	# the JSON report the module keeps beside the text one: every module row and the
	# system peak the text report's; --diff reads it (with itself: nothing grew)
	got=$(python3 - "$r.json" "$W/$n.report" "$r.mods" <<'PY' 2>&1
import json, re, sys
d = json.load(open(sys.argv[1]))
m = re.search(r"^system peak: (\d+) pages", open(sys.argv[2]).read(), re.M)
rows = {l.split()[0]: int(l.split()[1]) for l in open(sys.argv[3]) if l.strip()}
js = {x["name"]: x["peak_pages"] for x in d["modules"]}
bad = [k for k, v in rows.items() if js.get(k) != v]
ok = m and d["system_peak"]["pages"] == int(m.group(1)) and rows and not bad and d["trigger"] == "SIGTERM"
print(("ok" if ok else "bad") + ": system peak %s (text %s), %d module rows as the text's, %d processes, kernel %s"
      % (d["system_peak"]["pages"], m and m.group(1), len(rows) - len(bad), len(d.get("processes", [])), d.get("kernel"))
      + (" differ: %r" % bad if bad else ""))
PY
)
	check "$n: the JSON report beside the log (/run/initramfs/mem_debug_log.json) says the text report's peaks ($got)" \
		eval '[[ $got == ok* ]]'
	"$W/memtrace" --diff "$r.json" "$r.json" --fail-over 0 > /dev/null 2>&1
	check "$n: memtrace --diff of that JSON report with itself: exit 0" test $? = 0
	check "$n: rd.memtrace.svg=1 wrote the picture beside the log ($(fact "$n" SVGFILE))" test -s "$r.svg"
	got=$(python3 - "$r.svg" "$W/$n.report" "$r.mods" <<'PY' 2>&1
import re, sys, xml.etree.ElementTree as ET
svg, rep, mods = sys.argv[1:4]
root = ET.parse(svg).getroot()
peaks = {}
for g in root.iter():
    if g.get("data-peak-pages") is not None:
        peaks[(g.get("data-row"), g.get("data-name") or "")] = int(g.get("data-peak-pages"))
m = re.search(r"^system peak: (\d+) pages", open(rep).read(), re.M)
sysrep = int(m.group(1)) if m else -1
rows = {l.split()[0]: int(l.split()[1]) for l in open(mods) if l.strip()}
drawn = {k[1]: v for k, v in peaks.items() if k[0] == "module"}
bad = [f"{k} {v}!={rows.get(k)}" for k, v in drawn.items() if rows.get(k) != v]
ok = peaks.get(("system", "")) == sysrep and drawn and not bad
print(("ok" if ok else "bad") + f": system {peaks.get(('system', ''))} (report {sysrep}), "
      f"{len(drawn)} modules drawn at their rows' peaks" + (f"; differ: {bad}" if bad else ""))
PY
)
	check "$n: the picture is well-formed and says the report's peaks ($got)" eval '[[ $got == ok* ]]'
}

check_traced() {	# check_traced NAME FLAVOUR LEVEL [MODE]
	local n=$1 fl=$2 lv=$3 mode=${4:-live} rep=$W/$1.report r t m missing bad_mods before
	tag "$n" LOG > "$rep"
	parse_report "$rep" "$W/$n"
	r=$W/$n

	if [ -n "${FOLLOWED:-}" ]; then
		# a kdump-tools capture: init-bottom shows the report so far, memtrace follows
		# the switch to the root; the final report at the TERM there, in the log file
		check "$n: the report so far on the console (init-bottom), memtrace following the switch to the root" \
			eval 'grep -q -E "^memtrace [^ ]+ report \(trigger: SIGUSR2" "$W/$n.console" &&
				grep -q "follows it there and goes on tracing" "$W/$n.console"'
	else
		check "$n: report on the console (cat by the pre-pivot hook, or init-bottom)" \
			grep -q -E '^memtrace [^ ]+ report \(trigger: SIGTERM' "$W/$n.console"
	fi
	check "$n: log file /run/initramfs/mem_debug_log survived switch_root" \
		has_tag "$n" "LOGFILE yes"
	check "$n: the JSON report beside it too ($(fact "$n" JSONFILE))" has_tag "$n" "JSONFILE yes"
	check "$n: log file holds the final report (trigger SIGTERM, $mode)" \
		grep -q -E "^memtrace [^ ]+ report \\(trigger: SIGTERM, $mode\\)" "$rep"
	check "$n: report was taken in instance memtrace" \
		grep -q -E '^tracefs: .* instance memtrace$' "$rep"
	check "$n: lost events: 0" grep -q -E '^lost events: 0$' "$rep"
	check "$n: report has a module table" grep -q -E '^MODULES: [1-9]' "$rep"

	tag "$n" MOD | sort > "$r.procmods"
	missing=$(awk 'NR == FNR { seen[$1] = 1; next } !($1 in seen) { print $1 }' \
		"$r.mods" "$r.procmods" | tr '\n' ' ')
	check "$n: all $(grep -c . "$r.procmods") modules of /proc/modules are in the report${missing:+ (missing: $missing)}" \
		test -s "$r.procmods" -a -z "$missing"
	bad_mods=$(cut -d' ' -f1 "$r.mods" | sort | uniq -d | tr '\n' ' ')
	check "$n: every module has one row${bad_mods:+ (twice: $bad_mods)}" test -z "$bad_mods"
	# modules loaded while memtrace ran: a peak and the bracket that found it
	bad_mods=$(awk '$4 != "before" && !($2 > 0 && ($5 == "syscall" || $5 == "load-put")) {
		printf "%s(peak %s, %s, %s) ", $1, $2, $4, $5 }' "$r.mods")
	check "$n: traced modules have PEAK_PAGES > 0 and bracket syscall/load-put${bad_mods:+ (not: $bad_mods)}" \
		test -z "$bad_mods" -a -s "$r.mods"
	# (their code may still ask for pages later: those count for them by stack, not by bracket)
	bad_mods=$(awk '$4 == "before" && !($7 == 0 && $3 ~ /^[0-9]+$/) { printf "%s ", $1 }' "$r.mods")
	check "$n: modules in state before have 0 pages in a load bracket and a STATIC_KIB${bad_mods:+ (not: $bad_mods)}" \
		test -z "$bad_mods"
	before=$(awk '$4 == "before" { printf "%s ", $1 }' "$r.mods")
	if [ "$fl" = shell ] || [ "$fl" = itools ]; then
		check "$n: no module in state before (nothing loads before the cmdline hook or init-top)${before:+ (before: $before)}" \
			test -z "$before"
	else
		check "$n: modules loaded by PID 1 before memtrace.service are in state before (${before:-none})" \
			test -n "$before"
		if grep -qx autofs4 "$r.procmods"; then
			check "$n: autofs4 (loaded by systemd PID 1) is before with a STATIC_KIB" \
				awk '$1 == "autofs4" && $4 == "before" && $3 ~ /^[0-9]+$/ { f = 1 } END { exit !f }' "$r.mods"
		fi
	fi
	note "$n modules (name peak/static_kib/state/bracket): $(awk '{ printf "%s %s/%s/%s/%s; ", $1, $2, $3, $4, $5 }' "$r.mods")"

	# tasks
	check "$n: systemd-udevd and a udev worker in the task table with peak > 0" \
		awk '$1 > 0 && $2 == "systemd-udevd" { d++ } $1 > 0 && $2 == "(udev-worker)" { w++ }
			END { exit !(d && d + w >= 2) }' "$r.tasks"
	if [ "$fl" = itools ]; then
		# init-top/memtrace runs before init-top/udev and /init's load_modules
		check "$n: virtio_blk (loaded from /etc/modules by /init) is live, bracket syscall" \
			awk '$1 == "virtio_blk" && $4 == "live" && $5 == "syscall" && $2 > 0 { f = 1 } END { exit !f }' "$r.mods"
	else
		# rd.driver.pre=loop: dracut's cmdline hook 01-parse-kernel.sh runs modprobe loop
		check "$n: modprobe in the task table with peak > 0" \
			awk '$1 > 0 && $2 == "modprobe" { f = 1 } END { exit !f }' "$r.tasks"
		m=$(awk '$1 == "loop" && $4 == "live" && $5 == "syscall" && $2 > 0 { print $6 }' "$r.mods")
		check "$n: loop (rd.driver.pre: modprobe'd by cmdline hook 01, after memtrace's 00) is live, bracket syscall, loader ${m:-?} is a modprobe task" \
			grep -q -x "${m:-none} modprobe" "$r.taskpids"
	fi
	read -r t m < "$r.taskhdr"
	t=${t:-0} m=${m:-0}
	if [ "$lv" = 5 ]; then
		check "$n: level 5 lists every task, more than level 4's 30 (TASKS: $t of $m, $(grep -c . "$r.tasks") rows)" \
			test "$t" -gt 30 -a "$t" = "$m" -a "$(grep -c . "$r.tasks")" = "$m"
	else
		check "$n: level 4 lists at most 30 tasks (TASKS: $t of $m, $(grep -c . "$r.tasks") rows)" \
			test "$t" -gt 0 -a "$t" -le 30 -a "$t" = "$((m < 30 ? m : 30))" \
			-a "$(grep -c . "$r.tasks")" = "$t"
	fi

	# nothing left behind
	check "$n: memtrace is not running after switch_root" has_tag "$n" "RUNNING no"
	check "$n: pidfile /run/memtrace.pid removed" has_tag "$n" "PIDFILE no"
	check "$n: tracefs instance memtrace is gone" has_tag "$n" "INSTANCE no"
	if [ "$fl" = shell ] || [ "$fl" = itools ]; then
		# nothing mounts tracefs in the shell flavour (or initramfs-tools) but memtrace,
		# which unmounts it
		check "$n: tracefs is not left mounted" has_tag "$n" "TRACEFS_AT_START no"
	fi
	# every event memtrace had enabled (the report's list) is off at the top level
	t=$(sed -n 's/^events enabled: //p' "$rep" | head -1)
	m=$(tag "$n" SET_EVENT | while read -r e; do
		case " $t " in *" $e "*) printf '%s ' "$e" ;; esac
	done)
	check "$n: no event of memtrace's is enabled at the top level (set_event: $(fact "$n" SET_EVENTS) lines${m:+; ours: $m})" \
		test -n "$t" -a -z "$m" -a "$(fact "$n" SET_EVENTS)" = 0
	# the --kmsg summary: its numbers match the report in the log file
	tag "$n" KMSG > "$r.kmsg"
	m=$(sed -n 's/^MODULES: [0-9]* of \([0-9]*\).*/\1/p' "$rep")	# all, listed or not (-n)
	t=$(awk 'NR == 1 { print $1 }' "$r.taskhdr")
	check "$n: kmsg summary in dmesg: memtrace: report (SIGTERM): ..., 0 lost, $m modules; full report in the log file" \
		grep -q -E "\] memtrace: report \(SIGTERM\): [0-9]+ events, 0 lost, [0-9]+ tasks with pages, $m modules; full report in /run/initramfs/mem_debug_log\$" "$r.kmsg"
	t=$(awk '/^TASKS: /{ f = 1; next } f && $1 == "PID" { g = 1; next } g { print "pid " $1 " (" $10 ") peak " $4 " pages"; exit }' "$rep")
	check "$n: kmsg summary in dmesg: memtrace: top task: $t (the report's first row)" \
		grep -q -F "] memtrace: top task: $t (" "$r.kmsg"
	m=$(sort -s -k2,2nr -k3,3nr "$r.mods" | awk 'NR == 1 { print $1 " peak " $2 " pages" }')
	check "$n: kmsg summary in dmesg: memtrace: top module: $m" \
		grep -q -F "] memtrace: top module: $m (" "$r.kmsg"
}

# ---- systemd flavour with trace_event=: modules PID 1 loaded come from the boot buffer
check_bootbuf() {	# check_bootbuf NAME
	local n=$1 rep=$W/$1.report r=$W/$1 bb bad_mods missing boot_mods ev
	tag "$n" LOG > "$rep"
	parse_report "$rep" "$r"
	check "$n: log file holds the final report (trigger SIGTERM)" \
		grep -q -E '^memtrace [^ ]+ report \(trigger: SIGTERM, live\)' "$rep"
	check "$n: lost events: 0" grep -q -E '^lost events: 0$' "$rep"
	bb=$(grep -E '^boot buffer: ' "$rep")
	check "$n: the dracut script passed --boot-buffer; report says: ${bb:-nothing}" \
		grep -q -E '^boot buffer: [1-9][0-9]* sub-buffers, [0-9]+ records, [1-9][0-9]* module events used \(0 beyond the table\), 0 lost, 0 malformed$' "$rep"
	tag "$n" MOD | sort > "$r.procmods"
	missing=$(awk 'NR == FNR { seen[$1] = 1; next } !($1 in seen) { print $1 }' \
		"$r.mods" "$r.procmods" | tr '\n' ' ')
	check "$n: all $(grep -c . "$r.procmods") modules of /proc/modules are in the report${missing:+ (missing: $missing)}" \
		test -s "$r.procmods" -a -z "$missing"
	bad_mods=$(cut -d' ' -f1 "$r.mods" | sort | uniq -d | tr '\n' ' ')
	check "$n: every module has one row${bad_mods:+ (twice: $bad_mods)}" test -z "$bad_mods"
	bad_mods=$(awk '$4 == "before" { printf "%s ", $1 }' "$r.mods")
	check "$n: no module in state before: PID 1's loads were in the boot buffer${bad_mods:+ (before: $bad_mods)}" \
		test -z "$bad_mods"
	boot_mods=$(awk '$5 == "boot" { printf "%s ", $1 }' "$r.mods")
	check "$n: autofs4 (loaded by systemd PID 1) has bracket boot, loader 1, state live" \
		awk '$1 == "autofs4" && $5 == "boot" && $6 == 1 && $4 == "live" { f = 1 } END { exit !f }' "$r.mods"
	bad_mods=$(awk '$5 == "boot" && !($6 > 0 && $7 == 0 && $4 == "live") { printf "%s ", $1 }
		$5 != "boot" && !($2 > 0 && $5 == "syscall") { printf "%s ", $1 }' "$r.mods")
	check "$n: boot-buffer modules ($boot_mods) have a loader and 0 bracket pages, the others a syscall bracket and pages${bad_mods:+ (not: $bad_mods)}" \
		test -n "$boot_mods" -a -z "$bad_mods"
	note "$n modules (name peak/static_kib/state/bracket/loader): $(awk '{ printf "%s %s/%s/%s/%s/%s; ", $1, $2, $3, $4, $5, $6 }' "$r.mods")"
	check "$n: memtrace is not running, its instance is gone" \
		eval 'has_tag "$n" "RUNNING no" && has_tag "$n" "INSTANCE no"'
	# the top level keeps exactly what the kernel command line enabled
	ev=$(tag "$n" SET_EVENT | sort | tr '\n' ' ')
	check "$n: top-level set_event is still the kernel's trace_event= ($ev)" \
		test "$ev" = "module:module_free module:module_load "
}

# ---- memtrace SIGKILLed at pre-pivot 50: the stop hook (99) must clean up after it
check_killed() {	# check_killed NAME
	local n=$1
	check "$n: the test hook killed memtrace" grep -q '^@@e2e-hook@@ killed memtrace pid ' "$W/$n.console"
	check "$n: the stop hook removed the instance memtrace left behind" \
		grep -q 'memtrace: removing the tracefs instance memtrace left behind' "$W/$n.console"
	check "$n: and unmounted the tracefs memtrace had mounted (not mounted after switch_root)" \
		eval 'grep -q "memtrace: unmounted the tracefs memtrace had mounted" "$W/$n.console" &&
			has_tag "$n" "TRACEFS_AT_START no"'
	check "$n: memtrace is not running, its instance is gone, no event enabled" \
		eval 'has_tag "$n" "RUNNING no" && has_tag "$n" "INSTANCE no" && has_tag "$n" "SET_EVENTS 0"'
	check "$n: no stale pidfile" has_tag "$n" "PIDFILE no"
	check "$n: no report (killed before its final report), and the boot went on" \
		has_tag "$n" "LOGFILE no"
}

# ---- function tracing at the top level from boot: --boot-buffer must not hang the boot
check_ftrace() {	# check_ftrace NAME
	local n=$1 rep=$W/$1.report bb
	tag "$n" LOG > "$rep"
	check "$n: memtrace started, traced and reported (trigger SIGTERM)" \
		grep -q -E '^memtrace [^ ]+ report \(trigger: SIGTERM, live\)' "$rep"
	bb=$(grep -E '^boot buffer: ' "$rep")
	check "$n: the boot buffer was read within its bounds (${bb:-no boot buffer line})" \
		test -n "$bb"
	check "$n: lost events: 0" grep -q -E '^lost events: 0$' "$rep"
	check "$n: the top level still runs the function tracer" has_tag "$n" "CURRENT_TRACER function"
	check "$n: memtrace is not running, its instance is gone" \
		eval 'has_tag "$n" "RUNNING no" && has_tag "$n" "INSTANCE no"'
}

# ---- checks on a boot in which memtrace must not have started
check_untraced() {	# check_untraced NAME FLAVOUR
	local n=$1 c
	check "$n: no log file /run/initramfs/mem_debug_log" has_tag "$n" "LOGFILE no"
	check "$n: memtrace never started (no startup line, no report on the console)" \
		not_grep -E '^memtrace [^ ]+: tracing in|memtrace [^ ]+ report \(trigger' "$W/$n.console"
	# (systemd logs "Starting memtrace.service - memtrace: ..." even when ExecCondition says no)
	check "$n: no memtrace: lines in dmesg" not_grep -E '\] memtrace: ' <(tag "$n" KMSG)
	check "$n: memtrace is not running" has_tag "$n" "RUNNING no"
	check "$n: no tracefs instance memtrace, no event enabled" \
		eval 'has_tag "$n" "INSTANCE no" && has_tag "$n" "SET_EVENTS 0"'
	if [ "$2" = shell ] || [ "$2" = itools ]; then
		# not a word about memtrace on the console but the disk init's own lines
		c=$(grep -v -E "$P|ommand line:" "$W/$n.console" | grep -c memtrace)
		check "$n: no console line mentions memtrace ($c)" test "$c" = 0
	fi
}
not_grep() { ! grep -q "$@"; }

# ---- the running-system unit under systemd (PID 1 of the systemd-flavour initramfs)
check_unit() {
	local n=$1 rep=$W/$1.unitlog
	tag "$n" UNIT > "$W/$n.unit"
	tag "$n" UNITLOG > "$rep"
	sed -n 's/^UNIT_JOURNAL /      journal: /p' "$W/$n.unit"
	check "$n: systemctl start memtrace-watch returned 0 and the unit is active" \
		eval 'grep -qx "UNIT_START rc=0" "$W/$n.unit" && grep -qx "UNIT_ACTIVE active" "$W/$n.unit"'
	check "$n: the hardened unit traces in instance memtrace-service" \
		eval 'grep -qx "UNIT_INSTANCE yes" "$W/$n.unit" &&
			grep -q -E "^tracefs: /sys/kernel/tracing instance memtrace-service$" "$rep"'
	check "$n: systemctl kill -s USR2 wrote a report to /var/log/memtrace/memtrace.log" \
		grep -q -E '^UNIT_USR2 memtrace [^ ]+ report \(trigger: SIGUSR2, live\)' "$W/$n.unit"
	check "$n: systemctl stop returned 0, result success, no main pid left" \
		eval 'grep -qx "UNIT_STOP rc=0" "$W/$n.unit" && grep -qx "UNIT_RESULT success" "$W/$n.unit" &&
			grep -qx "UNIT_MAINPID_AFTER 0" "$W/$n.unit"'
	check "$n: the stop left no instance behind" grep -qx "UNIT_INSTANCE_AFTER no" "$W/$n.unit"
	check "$n: final report on stop (trigger SIGTERM), log mode 600" \
		eval 'grep -q -E "^memtrace [^ ]+ report \(trigger: SIGTERM, live\)" "$rep" &&
			grep -qx "UNIT_LOGMODE 600" "$W/$n.unit"'
	check "$n: the sandbox still let it seed from /proc (seeded tasks > 0)" \
		grep -q -E '^seeded at start: [1-9][0-9]* tasks' "$rep"
	check "$n: lost events: 0" grep -q -E '^lost events: 0$' "$rep"
	check "$n: its memory is locked (CAP_IPC_LOCK in the bounding set)" \
		eval '! grep -q "memory not locked" "$W/$n.unit"'
	check "$n: the test hook's shell (8 MB string) shows with a peak of 1953+ pages" \
		awk '/^TASKS:/ { t = 1 } t && $4 ~ /^[0-9]+$/ && $4 >= 1953 && /dracut-pre-pivo|bash|sh$/ { f = 1 }
			END { exit !f }' "$rep"
	check "$n: the boot's own memtrace did not run (rd.memtrace=0)" has_tag "$n" "LOGFILE no"
	# the Prometheus opt-in (a drop-in with MEMTRACE_OPTS="--prometheus ... --interval 1")
	check "$n: --prometheus under the sandbox: the .prom file in the textfile directory, mode 644" \
		grep -qx "UNIT_PROM_MODE 644" "$W/$n.unit"
	check "$n: ... rewritten each interval: the hook's shell shows with its 8 MB" \
		awk '/^UNIT_PROM_SHELL / && $NF >= 8000000 { f = 1 } END { exit !f }' "$W/$n.unit"
	check "$n: ... and at the stop, with the final numbers (more events than before, 12 families)" \
		eval 'b=$(sed -n "s/^UNIT_PROM_EVENTS_BEFORE //p" "$W/$n.unit")
			a=$(sed -n "s/^UNIT_PROM_EVENTS_AFTER //p" "$W/$n.unit")
			[ -n "$b" ] && [ -n "$a" ] && [ "$a" -gt "$b" ] &&
			grep -qx "UNIT_PROM_FAMILIES 12" "$W/$n.unit"'
}

# ---- the OOM boot
check_oom() {
	local n=oom r=$W/oom hog mtpid top peak
	hog=$(fact $n HOG_PID)
	mtpid=$(fact $n MT_PID)
	tag $n MTERR | sed 's/^/      memtrace: /'
	mt_started $n "memtrace --daemon from the root disk started (exit 0)"
	check "$n: workload 32 MiB ran" has_tag $n "WORKLOAD rc=0"
	check "$n: the hog was killed by SIGKILL (exit 137)" has_tag $n "HOG_EXIT rc=137"
	tag $n KMSG > "$r.kmsg"
	check "$n: the kernel OOM-killed the hog (pid $hog)" \
		grep -q -E "Killed process $hog \(hog\)" "$r.kmsg"
	check "$n: memtrace (pid $mtpid) survived the OOM kill" has_tag $n "MT_ALIVE yes"
	tag $n OOMLOG > "$r.oomreport"
	parse_report "$r.oomreport" "$r.oom"
	check "$n: log file holds a report with trigger oom" \
		grep -q -E '^memtrace [^ ]+ report \(trigger: oom, live\)' "$r.oomreport"
	check "$n: oom report names the hog as the victim (pid $hog)" \
		grep -q -E "^oom kills seen: 1, last victim pid $hog \(hog\)$" "$r.oomreport"
	top=$(head -1 "$r.oom.tasks")
	peak=${top%% *}
	check "$n: hog is the top task of the oom report ($top)" test "${top#* }" = hog
	check "$n: hog's peak is above 100 MiB (${peak:-0} pages)" test "${peak:-0}" -gt 25600
	# --stacks: the snapshot names where the victim's pages came from
	check "$n: oom report: the hog's top stacks at the OOM instant, its pages through the page-fault path" \
		awk -v p="$hog" '$0 ~ "^STACKS OF TASK " p " \\(hog\\)" { t = 1; next } t && NF == 0 { exit }
			t && $2 > 25000 { big = 1 } t && big && /(handle_mm_fault|exc_page_fault)\+0x/ { f = 1 }
			END { exit !f }' "$r.oomreport"
	check "$n: kmsg line: memtrace: oom kill of pid $hog (hog)" \
		grep -q -E "memtrace: oom kill of pid $hog \(hog\); report in /run/oom.log" "$r.kmsg"
	check "$n: memtrace exited on SIGTERM" grep -q -E '^MT_EXITED yes' "$W/$n.e2e"
	tag $n FINALLOG > "$r.final"
	parse_report "$r.final" "$r.fin"
	check "$n: final report (trigger SIGTERM) still records the oom kill of hog" \
		eval 'grep -q -E "^memtrace [^ ]+ report \(trigger: SIGTERM, live\)" "$r.final" &&
			grep -q -E "^oom kills seen: 1, last victim pid $hog \(hog\)$" "$r.final"'
	top=$(awk '$2 == "workload" { print $1; exit }' "$r.fin.tasks")
	check "$n: workload 32 MiB has a peak of 8192..8704 pages (${top:-none})" \
		test "${top:-0}" -ge 8192 -a "${top:-0}" -le 8704
	check "$n: final report lost no events" grep -q -E '^lost events: 0$' "$r.final"
	check "$n: instance gone and no events left after SIGTERM" \
		eval 'has_tag $n "INSTANCE no" && has_tag $n "SET_EVENTS 0" && has_tag $n "RUNNING no"'
}

# A CPU offline when memtrace starts is read once it comes online (it used to be
# dropped for good): the workload pinned to it must be in the report.
check_cpus() {
	local n=cpus r=$W/cpus wpid peak
	wpid=$(fact $n WORKLOAD_PID)
	tag $n MTERR | sed 's/^/      memtrace: /'
	check "$n: 2 CPUs, cpu1 taken offline before memtrace starts" \
		eval 'fact $n NPROC | grep -q "of 2" && tag $n CPU1_ONLINE | head -1 | grep -qx 0'
	mt_started $n "memtrace --daemon started (exit 0)"
	check "$n: it said cpu1 cannot be read yet" \
		eval 'tag $n MTERR | grep -q "cpu1 cannot be read"'
	check "$n: the workload ran on cpu1 once it was online" has_tag $n "WORKLOAD rc=0"
	tag $n CPULOG > "$r.report"
	# its row: PID TGID PPID PEAK_PAGES ...
	peak=$(awk -v p="$wpid" '$1 == p && $2 == p { print $4; exit }' "$r.report")
	check "$n: the workload on cpu1 is in the report, 16 MiB (${peak:-no} pages of 4096..4600)" \
		test "${peak:-0}" -ge 4096 -a "${peak:-0}" -le 4600
	check "$n: the report says cpu1 was read only since it came online" \
		grep -q -E "^CPUs not read: none; read only since they came online: cpu1$" "$r.report"
	check "$n: memtrace exited on SIGTERM, its instance gone" \
		eval 'has_tag $n "MT_EXITED yes" && has_tag $n "CPUS_INSTANCE no"'
}

# ---- zram written long after its load: the pages are taken in zsmalloc/zram code
check_zram() {	# check_zram NAME
	local n=$1 rep=$W/$1.report r=$W/$1 used sum load cur st
	st=$(sed -n 's/^@@e2e-hook@@ zram: 16 MiB written, mm_stat //p' "$W/$n.console" | head -1)
	check "$n: the hook wrote 16 MiB of random data into zram (mm_stat: ${st:-none})" test -n "$st"
	# mm_stat: orig_data_size compr_data_size mem_used_total ...
	used=$(echo "$st" | awk '{ printf "%d", $3 / 4096 }')
	sum=$(awk '$1 == "zsmalloc" || $1 == "zram" { s += $2 } END { print s + 0 }' "$r.mods")
	load=$(awk '$1 == "zsmalloc" || $1 == "zram" { s += $7 } END { print s + 0 }' "$r.mods")
	cur=$(awk '$1 == "zsmalloc" { print $8 }' "$r.mods")
	check "$n: zsmalloc + zram peak $sum pages >= the 4096 pages written" test "$sum" -ge 4096
	check "$n: zsmalloc holds ${cur:-?} pages now, zram's own count ${used:-?} (mem_used_total) +- 2%" \
		awk -v c="${cur:-0}" -v u="${used:-0}" 'BEGIN { exit !(u > 0 && c >= u * 0.98 && c <= u * 1.02) }'
	check "$n: their load brackets alone saw $load pages (the figure without --stacks)" \
		test "$load" -lt 1024
	check "$n: STACKS OF MODULE zsmalloc: a tree with zs_malloc [zsmalloc] and zram code" \
		awk '/^STACKS OF MODULE zsmalloc:/ { f = 1; next } f && /^$/ { exit }
			f && /zs_malloc\+0x[0-9a-f]+ \[zsmalloc\]/ { z = 1 } f && /\[zram\]/ { r = 1 }
			END { exit !(z && r) }' "$rep"
	check "$n: level 5: the top stacks of tasks are printed with symbols" \
		awk '/^STACKS OF TASK / { f = 1; next } f && /[a-z_]+\+0x[0-9a-f]+/ { g = 1 } END { exit !g }' "$rep"
	check "$n: the stack table lost nothing (not paired 0, not kept 0)" \
		grep -q -E '^stacks: [0-9]+ distinct of [0-9]+ kept, [0-9]+ paired with their allocation; not paired: 0 allocations, 0 stacks; not kept \(--max-stacks\): 0 stacks' "$rep"
	note "$n: zsmalloc/zram rows: $(awk '$1 == "zsmalloc" || $1 == "zram"' "$r.mods" | tr '\n' ';')"
}

# ---- a kdump-like capture step after pre-pivot that ends the boot (no switch_root)
receive() {	# receive NAME DIR: the base64 tar the disk's init sent over ttyS1, unpacked
	local s1=$W/$1.s1 sum
	tr -d '\r' < "$W/$1.serial1" > "$s1"
	sum=$(sed -n 's/^=====BEGIN-FIXTURE \([0-9a-f]*\)=====$/\1/p' "$s1")
	sed -n '/^=====BEGIN-FIXTURE/,/^=====END-FIXTURE/p' "$s1" | sed '1d;$d' |
		base64 -d > "$W/$1.tar" 2> /dev/null
	[ -n "$sum" ] && echo "$sum  $W/$1.tar" | md5sum -c --status - &&
		mkdir -p "$2" && tar xf "$W/$1.tar" -C "$2" --no-same-owner 2> /dev/null
}

# ---- two boots that differ by a known amount: memtrace --diff says exactly that (issue 25)
check_zramdiff_boot() {	# check_zramdiff_boot NAME MIB: its JSON report in $W/zd/NAME
	local n=$1 f0=$fail
	tag $n MTERR | sed 's/^/      memtrace: /'
	mt_started $n "the disk's memtrace --stacks -f json started"
	check "$n: $2 MiB of random data written into zram ($(fact $n ZRAM_MM_STAT))" \
		has_tag $n "ZRAM_WRITE rc=0 mib=$2"
	check "$n: workload touched $2 MiB" has_tag $n "WORKLOAD rc=0 mib=$2"
	check "$n: its JSON report received over ttyS1" receive $n "$W/zd/$n"
	check "$n: the report is a whole JSON report" \
		python3 -c 'import json, sys; json.load(open(sys.argv[1]))["modules"]' "$W/zd/$n/report.json"
	[ "$fail" = "$f0" ]
}

check_zramdiff() {	# check_zramdiff OLD NEW: 8 MiB more in zram, crc7 only in NEW
	local a=$W/zd/$1 b=$W/zd/$2 rc
	"$W/memtrace" --diff "$a/report.json" "$b/report.json" -f json -n 0 > "$W/zd/diff.json" \
		2> "$W/zd/diff.err"
	check "--diff $1 $2: exit 0" test $? = 0
	"$W/memtrace" --diff "$a/report.json" "$b/report.json" -n 8 > "$W/zd/diff.txt" 2>&1
	sed -n '1,/^PROCESSES/p' "$W/zd/diff.txt" | grep -v '  stack: ' | sed 's/^/      /'
	check "--diff $1 $2: zsmalloc + zram grew by 8 MiB (+-2%) and by what zram says it holds more (mem_used_total, +-2%); crc7 new; the numbers the reports' own" \
		python3 -c '
import json, sys
a, b, d = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))
ra, rb = (json.load(open(x + "/report.json")) for x in (a, b))
used = [int(open(x + "/zram_mm_stat").read().split()[2]) for x in (a, b)]
rows = {r["name"]: r for r in d["modules"]}
def peak(rep, name):
    return sum(m["peak_pages"] for m in rep["modules"] if m["name"] == name)
grew = sum(rows[m]["delta_bytes"] for m in ("zsmalloc", "zram"))
own = sum((peak(rb, m) - peak(ra, m)) * rb["page_size"] for m in ("zsmalloc", "zram"))
print("      zsmalloc + zram grew by %d bytes (reports: %d); 8 MiB = %d; zram mem_used_total %d -> %d (+%d)"
      % (grew, own, 8 << 20, used[0], used[1], used[1] - used[0]))
assert grew == own, (grew, own)
assert abs(grew - (8 << 20)) <= 0.02 * (8 << 20), grew
assert abs(grew - (used[1] - used[0])) <= 0.02 * (used[1] - used[0]), (grew, used)
assert rows["crc7"]["state"] == "new", rows["crc7"]
assert d["modules"][0]["name"] == "zsmalloc", d["modules"][0]
assert all(r["state"] == "both" for n, r in rows.items() if n != "crc7"), rows
assert d["system_peak"]["delta_bytes"] >= 8 << 20, d["system_peak"]
' "$a" "$b" "$W/zd/diff.json"
	check "--diff $1 $2: the process workload grew by 8 MiB (+-2%), one instance each, as the reports say" \
		python3 -c '
import json, sys
a, b, d = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))
ra, rb = (json.load(open(x + "/report.json")) for x in (a, b))
w = [r for r in d["processes"] if r["name"] == "workload"]
assert len(w) == 1, w
w = w[0]
peaks = [[p["peak_pages"] for p in r["processes"] if p["comm"] == "workload"] for r in (ra, rb)]
print("      workload: %s pages -> %s pages, grew by %d bytes (8 MiB = %d)"
      % (peaks[0], peaks[1], w["delta_bytes"], 8 << 20))
assert [len(p) for p in peaks] == [1, 1], peaks
assert w["delta_bytes"] == (peaks[1][0] - peaks[0][0]) * rb["page_size"], (w, peaks)
assert abs(w["delta_bytes"] - (8 << 20)) <= 0.02 * (8 << 20), w
assert w["state"] == "both", w
' "$a" "$b" "$W/zd/diff.json"
	"$W/memtrace" --diff "$a/report.json" "$b/report.json" --fail-over 6MiB > /dev/null \
		2> "$W/zd/gate.err"
	rc=$?
	check "--diff --fail-over 6MiB: exit 3 naming zsmalloc" \
		eval "[ $rc = 3 ] && grep -q '^memtrace: --fail-over 6MiB: module zsmalloc grew by' '$W/zd/gate.err'"
	"$W/memtrace" --diff "$a/report.json" "$a/report.json" --fail-over 0 > /dev/null 2>&1
	check "--diff of a boot with itself --fail-over 0: exit 0" test $? = 0
}

check_capture() {	# check_capture NAME FLAVOUR
	local n=$1 c=$W/$1.console top sys
	check "$n: the pre-pivot hook left memtrace tracing for the capture step" \
		grep -q 'memtrace: a capture step follows: tracing goes on' "$c"
	check "$n: and showed the report so far (trigger SIGUSR2) on the console" \
		grep -q -E '^memtrace [^ ]+ report \(trigger: SIGUSR2, live\)' "$c"
	check "$n: the capture step ran (24 MiB vmcore)" grep -q '@@e2e-hook@@ capture: vmcore written' "$c"
	if [ "$2" = systemd ]; then
		# systemctl reboot -f: every process gets TERM; the --kmsg=4 summary shows
		check "$n: memtrace's final summary reached the console at the reboot" \
			grep -q -E '\] memtrace: report \(SIGTERM\): [0-9]+ events, 0 lost' "$c"
		top=$(grep -o -E '\] memtrace: top task: pid [0-9]+ \(dd\) peak [0-9]+' "$c" | awk '{ print $NF }' | head -1)
	else
		# kdump_post: memtrace-dracut stop, the full report on the console
		check "$n: kdump_post's stop put the final report on the console" \
			grep -q -E '^memtrace [^ ]+ report \(trigger: SIGTERM, live\)' "$c"
		top=$(sed -n '/^memtrace [^ ]* report (trigger: SIGTERM/,$p' "$c" |
			awk '/^TASKS:/ { t = 1 } t && $NF == "dd" && $4 ~ /^[0-9]+$/ { print $4; exit }')
	fi
	check "$n: the capture step's dd is there with its 24 MiB (${top:-no} pages >= 6144)" \
		test "${top:-0}" -ge 6144
	sys=$(grep -o -E 'memtrace: system peak: [0-9]+' "$c" | tail -1 | awk '{ print $NF }')
	[ "$2" = systemd ] || sys=$(sed -n '/^memtrace [^ ]* report (trigger: SIGTERM/,$p' "$c" |
		sed -n 's/^system peak: \([0-9]*\) pages.*/\1/p' | head -1)
	check "$n: the system peak covers the capture step (${sys:-no} pages >= 6144)" \
		test "${sys:-0}" -ge 6144
}

# ---- a capture's health (issue 38): the crashkernel= a capture needs is the smallest in
# which it is healthy, not the smallest in which it survives (at 112M the dracut capture
# sometimes writes its dump after udev processes were OOM-killed and udev timed out).
# The classes and the capture kernel's lines they are read from: tests/e2e/kdump-health.sh
# shellcheck source=tests/e2e/kdump-health.sh
. "$HERE/kdump-health.sh"
# a kdump probe's QEMU is ended this long after the first OOM kill if the capture has
# not ended by itself (udevadm settle waits 120 s for killed workers, then the capture
# goes on: it can still write its dump)
KD_AFTER_KILL=${E2E_KDUMP_AFTER_KILL:-240}

# kdump_vmcore NAME: the vmcore off NAME's disk (/var/crash/vmcore, read with debugfs,
# no mount) in NAME.vmcore, the crashed kernel's log out of it in NAME.dmesg; KD_VSZ its
# size, KD_VOK=1 when it is a kdump-compressed dump (header KDUMP) whose log has the
# crash (sysrq c): what a capture is for
kdump_vmcore() {
	local n=$1 r=$W/$1
	KD_VSZ=0 KD_VOK=
	rm -f "$r.vmcore" "$r.dmesg"
	[ -e "$W/$n.disk" ] || return 0
	debugfs -R "dump /var/crash/vmcore $r.vmcore" "$W/$n.disk" > /dev/null 2>&1
	kd_vmcore_ok "$r.vmcore" "$r.dmesg"
}

# kdump_health NAME: how the capture of boot NAME went (kd_classify), from its console
# and its disk (the boot kept it: KEEP_DISK=1): KD_CLASS, KD_HEALTH (also in NAME.health)
kdump_health() {
	local n=$1 k=$W/$1.capture rc ended=
	kd_capture_console "$W/$n.console" > "$k"
	read -r rc _ < "$W/$n.rc" 2> /dev/null
	kdump_vmcore "$n"
	{ [ -s "$W/$n.watch" ] || [ "${rc:-124}" = 124 ]; } && ended=1
	kd_classify "$k" "$ended"
	echo "$KD_HEALTH" > "$W/$n.health"
}

# check_kdump_health NAME healthy|unhealthy: the capture was (not) healthy; a capture
# that never booted is neither
check_kdump_health() {
	kdump_health "$1"
	if [ "$2" = healthy ]; then
		check "$1: the capture is healthy: a valid vmcore, no OOM kill, no udev/dracut timeout or other failure, no allocation failure ($KD_HEALTH)" \
			test "$KD_CLASS" = healthy
	else
		check "$1: the capture is not healthy ($KD_HEALTH)" \
			eval '[ "$KD_CLASS" != healthy ] && [ "$KD_CLASS" != no-capture ]'
	fi
	grep -E "$KD_KILL_RE|$KD_FAIL_RE|$KD_ALLOCFAIL_RE|$KD_PANIC_RE" "$W/$1.capture" |
		cut -c1-160 | head -8 | sed 's/^/      | /'
}

# ---- a real kdump: panic, kexec -p, the capture kernel traced, makedumpfile
kdump_crashed() {	# kdump_crashed NAME ERE: the first kernel crashed into a capture kernel
	local n=$1 c=$W/$1.console	# whose command line has ERE (its memtrace level)
	check "$n: the first kernel loaded the capture kernel with kexec -p ($(fact "$n" FIRST)) and crashed (sysrq c)" \
		eval 'has_tag "$n" "FIRST kexec -p rc=0, kexec_crash_loaded=1" &&
			grep -q "sysrq: Trigger a crash" "$c"'
	check "$n: the capture kernel booted in the reservation (elfcorehdr= on its command line)" \
		grep -q -E "Command line: .*$2 .*elfcorehdr=" "$c"
}

kdump_common() {	# kdump_common NAME: the first kernel crashed into a traced capture kernel
	kdump_crashed "$1" 'rd\.memtrace=4'
	check "$1: memtrace traced the capture kernel (it started there)" \
		grep -q -E '^memtrace [^ ]+: tracing in /sys/kernel/tracing/instances/memtrace ' "$W/$1.console"
}

check_kdump() {	# check_kdump NAME [KIND]: dracut (default) or heavy
	local n=$1 c=$W/$1.console r=$W/$1 memtotal md sys mdrc hold
	kdump_common "$n"
	# before the rest: kdump_health reads the dump off the disk
	check_kdump_health "$n" healthy
	check "$n: the capture step ran on /proc/vmcore ($(grep -o 'vmcore [0-9]* bytes' "$c" | head -1))" \
		grep -q -E '@@e2e-hook@@ kdump: capture start, /proc/vmcore [1-9][0-9]* bytes' "$c"
	check "$n: makedumpfile exited 0 in the capture" \
		grep -q '@@e2e-hook@@ kdump: makedumpfile rc=0,' "$c"
	sed -n '/^memtrace [^ ]* report (trigger: SIGTERM, live)/,$p' "$c" > "$r.final"
	check "$n: kdump_post's stop put memtrace's final report on the console" test -s "$r.final"
	parse_report "$r.final" "$r"
	memtotal=$(sed -n 's/.*@@e2e-hook@@ kdump: makedumpfile rc=.*MemTotal: \([0-9]*\) kB.*/\1/p' "$c")
	memtotal=$(( ${memtotal:-0} / 4 ))
	md=$(awk '$2 == "makedumpfile" { print $1; exit }' "$r.tasks")
	check "$n: the report names makedumpfile: peak ${md:-none} pages, between 256 and the capture's MemTotal ($memtotal pages)" \
		test "${md:-0}" -ge 256 -a "${md:-0}" -le "$memtotal"
	note "$n: the capture's top tasks: $(head -5 "$r.tasks" | tr '\n' ';')"
	check "$n: lost events: 0" grep -q -x 'lost events: 0' "$r.final"
	# issue 39: memtrace's own in a capture kernel (rss + its ring buffer) at most 2 MiB,
	# its buffer and tables sized from the capture (no -b from the dracut hook)
	local self
	self=$(sed -n 's/^crashkernel: .* memtrace itself \([0-9.]*\) .*/\1/p' "$r.final" | head -1)
	check "$n: memtrace itself at most 2 MiB in the capture kernel (${self:-none} MiB: $(grep -m1 '^memtrace itself:' "$r.final"))" \
		awk -v s="${self:-x}" 'BEGIN { exit !(s ~ /^[0-9.]+$/ && s + 0 <= 2.0) }'
	check "$n: its ring buffer sized from the capture: 512 KiB for its one CPU" \
		grep -q -E '^memtrace [^ ]+: tracing in .* \(1 CPUs, 512 KiB per CPU, ' "$c"
	check "$n: ... and its stack table (1024, not the 8192 of a normal run)" \
		grep -q -E '^stacks: [0-9]+ distinct of 1024 kept' "$r.final"
	# the peak that cannot be reclaimed explained: its meminfo sample, the clean page cache
	# left out = the file LRU less dirty, writeback and the mapped pages kept, as many as
	# Unevictable and Shmem could hold (to the 0.1 MiB printed)
	check "$n: the peak that cannot be reclaimed is explained by its /proc/meminfo sample ($(grep -m1 '^peak that cannot be reclaimed, its' "$r.final" | cut -c1-160))" \
		python3 -c '
import re, sys
line = [l for l in open(sys.argv[1]) if l.startswith("peak that cannot be reclaimed, its")][0]
m = re.search(r"in use ([0-9.]+) MiB, less clean page cache ([0-9.]+) \(file LRU ([0-9.]+) less dirty ([0-9.]+), writeback ([0-9.]+), mapped kept ([0-9.]+) of ([0-9.]+)\); besides: Shmem ([0-9.]+), Unevictable ([0-9.]+)", line)
use, clean, lru, dirty, wb, kept, mapped, shmem, unev = map(float, m.groups())
assert abs(kept - min(mapped, unev + shmem)) <= 0.151, line
assert abs(clean - max(0.0, lru - dirty - wb - kept)) <= 0.25, line
assert clean <= use, line
' "$r.final"
	sys=$(sed -n 's/^system peak: \([0-9]*\) pages.*/\1/p' "$r.final" | head -1)
	check "$n: the system peak is printed (${sys:-none} pages), at least makedumpfile's, within MemTotal" \
		test "${sys:-0}" -ge "${md:-1}" -a "${sys:-0}" -le "$memtotal"
	note "$n: $(grep -m1 '^system peak:' "$r.final")"
	note "$n: $(grep -o '@@e2e-hook@@ kdump: makedumpfile rc=.*' "$c")"
	# the report's memory at the start (crashkernel= sizing) against the test hook's
	# /proc/meminfo just before memtrace started: MemTotal the same, MemFree within 2 MiB
	local hook rep
	hook=$(sed -n 's/.*@@e2e-hook@@ kdump: before memtrace: MemTotal: \([0-9]*\) kB MemFree: \([0-9]*\) kB.*/\1 \2/p' "$c" | head -1)
	rep=$(sed -n 's/^memory at start: MemTotal \([0-9]*\) kB, MemFree \([0-9]*\) kB.*/\1 \2/p' "$r.final" | head -1)
	check "$n: the report's memory at start (${rep:-none}: MemTotal, MemFree kB) is the capture's before memtrace (${hook:-none})" \
		eval '[ -n "$hook" ] && [ -n "$rep" ] && [ "${rep% *}" = "${hook% *}" ] &&
			[ $(( ${rep#* } - ${hook#* } )) -le 2048 ] && [ $(( ${hook#* } - ${rep#* } )) -le 2048 ]'
	note "$n: $(grep -m1 '^memory at start:' "$r.final")"
	if [ "${2:-dracut}" = heavy ]; then
		hold=$(awk '$2 == "e2e-hold" { print $1; exit }' "$r.tasks")
		check "$n: the heavy capture held $HEAVY_HOLD_MIB MiB from memtrace's start to the dump (the holder in the report: ${hold:-no} pages >= $((HEAVY_HOLD_MIB * 256)))" \
			eval 'grep -q "@@e2e-hook@@ kdump: holding $HEAVY_HOLD_MIB MiB, pid [0-9]*, touched: yes" "$c" &&
				grep -q "@@e2e-hook@@ kdump: hold of pid [0-9]* released after makedumpfile" "$c" &&
				[ "${hold:-0}" -ge $((HEAVY_HOLD_MIB * 256)) ]'
	fi
	# the dump disk, read with debugfs (no mount; kdump_health took the vmcore)
	debugfs -R 'ls -l /var/crash' "$W/$n.disk" > "$r.ls" 2>&1
	debugfs -R "dump /var/crash/memtrace.report $r.report" "$W/$n.disk" > /dev/null 2>&1
	mdrc=$(debugfs -R 'cat /var/crash/makedumpfile.rc' "$W/$n.disk" 2> /dev/null)
	check "$n: the vmcore is on the dump disk ($KD_VSZ bytes), a kdump-compressed dump, makedumpfile.rc 0" \
		eval '[ "$KD_VSZ" -gt 1000000 ] && [ "$(head -c 5 "$r.vmcore")" = KDUMP ] && [ "$mdrc" = 0 ]'
	check "$n: the dump holds the crashed kernel's log (makedumpfile --dump-dmesg: 'sysrq: Trigger a crash')" \
		grep -q 'sysrq: Trigger a crash' "$r.dmesg"
	parse_report "$r.report" "$r.disk"
	check "$n: memtrace's report saved next to the dump, the same tasks as on the console" \
		eval 'test -s "$r.disk.tasks" && cmp -s "$r.tasks" "$r.disk.tasks"'
	[ -n "${KEEP_WORK:-}" ] || rm -f "$W/$n.disk" "$r.vmcore"	# 512 MiB, 22 MB
}

check_kdump_oom() {	# check_kdump_oom NAME
	local n=$1 c=$W/$1.console killed kill mt last early missing='' bogus=''
	kdump_common "$n"
	# (ended 3 s after memtrace's summary: whether it would have written the dump is not
	# known, but it was not healthy)
	check_kdump_health "$n" unhealthy
	check "$n: the capture's hog (hold.sh, e2e.oomhog: dd bs=48M) was killed ($(grep -a -o 'oom hog ended rc=[0-9]*' "$c"))" \
		grep -q "@@e2e-hook@@ kdump: oom hog ended rc=137" "$c"
	killed=$(sed -n 's/.*Out of memory: Killed process \([0-9]*\) .*/\1/p' "$c" | tr '\n' ' ')
	check "$n: the capture kernel ran out of memory (killed: ${killed:-none})" test -n "$killed"
	mt=$(sed -n 's/.*memtrace: oom kill of pid \([0-9]*\) .*/\1/p' "$c" | tr '\n' ' ')
	for kill in $mt; do [[ " $killed " == *" $kill "* ]] || bogus="$bogus $kill"; done
	check "$n: memtrace's console lines name victims (${mt:-none}), each one the kernel killed${bogus:+ (not killed:$bogus)}" \
		eval '[ -n "$mt" ] && [ -z "$bogus" ]'
	# no kill left out (the first 11: a summary and its 10 one-line notes, run/oom.c's
	# OOM_NOTES, in 10 s): each kill before the last one memtrace named has its line, and
	# so has each kill 2 s or more older than memtrace's last OOM line. memtrace names a
	# kill a little after it (a read, then a report written for it): the boot may end in
	# the middle of a burst, its last kills not named yet (seen: five in 0.27 s, the boot
	# ended 0.2 s after the last; memtrace had named the first three, in order).
	missing=$(awk -v mt=" $mt " '
		match($0, /^\[ *[0-9]+\.[0-9]+\]/) { t = substr($0, 2, RLENGTH - 2) + 0 }
		/Out of memory: Killed process [0-9]+ / && nk < 11 {
			p = $0; sub(/.*Killed process /, "", p); sub(/ .*/, "", p)
			k[++nk] = p; kt[nk] = t; if (index(mt, " " p " ")) lastnamed = nk }
		/memtrace: oom/ { mtlast = t }
		END { for (i = 1; i <= nk; i++)
			if (!index(mt, " " k[i] " ") && (i < lastnamed || kt[i] + 2 <= mtlast))
				printf " %s", k[i] }' "$c")
	check "$n: no kill before memtrace's last one named, or 2 s before its last line, without its own line (missing:${missing:- none})" \
		test -z "$missing"
	check "$n: the OOM summary has the largest tasks" \
		grep -q -E 'memtrace: oom: pid [0-9]+ \(.*\) holds [0-9]+ pages' "$c"
	# (no lines when no module held pages yet: an OOM before udev loaded the virtio modules)
	if grep -q -E 'memtrace: oom: module ' "$c"; then
		check "$n: ... the largest modules" \
			grep -q -E 'memtrace: oom: module [a-z0-9_]+ holds [1-9][0-9]* pages' "$c"
	else
		note "$n: no module line: no module held pages at the first kill (it came before udev loaded one)"
	fi
	check "$n: ... the system peak so far" \
		grep -q -E 'memtrace: oom: -?[0-9]+ pages \([0-9]+ KiB\) above the start now; system peak [0-9]+ pages' "$c"
	check "$n: ... and the events lost so far" \
		grep -q -E 'memtrace: oom: [0-9]+ events lost so far' "$c"
	grep -E 'Out of memory: Killed process|memtrace: oom' "$c" | sed 's/^/      | /' | head -30
}

# kdump-tools' way: the capture initrd from mkinitramfs, memtrace=4 on the capture's line,
# the dump taken after switch_root; memtrace stops at init-bottom (docs/boot.md)
check_kdump_itools() {	# check_kdump_itools NAME
	local n=$1
	kdump_crashed "$n" ' memtrace=4'
	check_kdump_health "$n" healthy
	FOLLOWED=1 check_traced "$n" itools 4
	check "$n: memtrace followed the switch to the root (--switch-root /root): $(fact "$n" MT_FOLLOWED)" \
		has_tag "$n" 'MT_FOLLOWED [0-9]+ in this root'
	check "$n: the root's dump step ran after switch_root: $(fact "$n" KDUMP)" \
		grep -q -E '^KDUMP makedumpfile rc=0 [1-9][0-9]{6,} bytes' "$W/$n.e2e"
	check "$n: the final report, taken in the root, has the dump step (makedumpfile in its task table)" \
		awk '$2 == "makedumpfile" && $1 > 0 { f = 1 } END { exit !f }' "$W/$n.tasks"
	# the dump on the root disk (kdump_health took it off), checked as kdump's
	check "$n: the vmcore is on the root disk ($KD_VSZ bytes), a kdump-compressed dump" \
		eval '[ "$KD_VSZ" -gt 1000000 ] && [ "$(head -c 5 "$W/$n.vmcore")" = KDUMP ]'
	check "$n: the dump holds the crashed kernel's log (makedumpfile --dump-dmesg: 'sysrq: Trigger a crash')" \
		grep -q 'sysrq: Trigger a crash' "$W/$n.dmesg"
	[ -n "${KEEP_WORK:-}" ] || rm -f "$W/$n.disk" "$W/$n.vmcore"
}

# ------------------------------------------------------------ the boots
boots() {
	# the kdump boots first: the longest
	if [ -n "$KDUMP_OK" ] && KEEP_DISK=1 NOEND=1 NOEND_DONE="@@e2e-hook@@ kdump: capture done" \
		kdump_boot kdump "$KDUMP_CRASH"; then
		check_kdump kdump
	fi
	if [ -n "$KDUMP_OK" ] &&
		WATCH='memtrace: oom: [0-9]+ events lost so far' \
		FIRST_EXTRA="e2e.kdump.nobootbuf e2e.kdump.oomhog" \
		kdump_boot kdump-oom "$KDUMP_OOM_CRASH"; then
		check_kdump_oom kdump-oom
	fi
	if [ -n "$KDUMP_OK" ] && [ -n "$ITOOLS_OK" ] && KEEP_DISK=1 CMDLINE_HAS="memtrace=4 e2e.mode=kdumptools" \
		kdump_boot kdump-itools "$KDUMP_CRASH" itools; then
		check_kdump_itools kdump-itools
	fi
	if [ -n "$KDUMP_OK" ] && KEEP_DISK=1 NOEND=1 NOEND_DONE="@@e2e-hook@@ kdump: capture done" \
		kdump_boot kdump-heavy "$KDUMP_HEAVY_CRASH" heavy; then
		check_kdump kdump-heavy heavy
	fi
	if [ -n "$ITOOLS_OK" ] && INITRD=$W/initrd-itools.img boot itools-mt4 itools 512 "memtrace=4 e2e.mode=check"; then
		check_traced itools-mt4 itools 4
	fi
	if [ -n "$ITOOLS_OK" ] && INITRD=$W/initrd-itools.img boot itools-off itools 512 "e2e.mode=check"; then
		check_untraced itools-off itools
	fi
	if boot shell-md4 shell 512 "rd.memdebug=4 rd.memtrace.svg=1 rd.driver.pre=loop e2e.mode=check"; then
		check_traced shell-md4 shell 4
		check "shell-md4: rd.memtrace.svg=1 with the boot binary: said on the console, no picture, the boot traced" \
			eval 'grep -q "memtrace: no picture: this image has the boot binary (memtrace-boot)" "$W/shell-md4.console" &&
				[ -z "$(fact shell-md4 SVGFILE)" ]'
	fi
	if [ -n "$FULL_OK" ] && KEEP_DISK=1 INITRD=$W/initrd-systemd-full.img boot systemd-mt5 systemd 512 \
		"rd.memtrace=5 rd.memtrace.svg=1 rd.driver.pre=loop e2e.mode=check"; then
		check_traced systemd-mt5 systemd 5
		check_svg systemd-mt5
	fi
	if boot systemd-bootbuf systemd 512 \
		"rd.memtrace=4 trace_event=module:module_load,module:module_free e2e.mode=check"; then
		check_bootbuf systemd-bootbuf
	fi
	if boot shell-killed shell 512 "rd.memtrace=4 e2e.killmt e2e.mode=check"; then
		check_killed shell-killed
	fi
	if boot shell-ftrace shell 512 \
		"rd.memtrace=4 trace_event=module:module_load ftrace=function ftrace_filter=vfs_read e2e.mode=check"; then
		check_ftrace shell-ftrace
	fi
	if boot zram shell 512 "rd.memdebug=5 rd.driver.pre=loop,zram e2e.zram e2e.mode=check"; then
		check_traced zram shell 5
		check_zram zram
	fi
	if NOEND=1 boot capture-systemd systemd 512 "rd.memtrace=4 rd.memtrace.kdump e2e.capture"; then
		check_capture capture-systemd systemd
	fi
	if NOEND=1 boot capture-shell shell 512 "rd.memtrace=4 rd.memtrace.kdump e2e.capture"; then
		check_capture capture-shell shell
	fi
	if boot shell-md0 shell 512 "rd.memdebug=0 e2e.mode=check"; then
		check_untraced shell-md0 shell
	fi
	if boot systemd-off systemd 512 "rd.memdebug=4 rd.memtrace=0 e2e.mode=check"; then
		check_untraced systemd-off systemd
	fi
	if [ -n "$FULL_OK" ] && INITRD=$W/initrd-systemd-full.img boot systemd-unit systemd 512 \
		"rd.memtrace=0 e2e.unit e2e.mode=check"; then
		check_unit systemd-unit
	fi
	if SOLO=1 boot zramdiff4 shell 512 "rd.memtrace=0 e2e.mode=zramdiff e2e.zram_mib=4" \
		-serial "file:$W/zramdiff4.serial1"; then
		check_zramdiff_boot zramdiff4 4
	fi
	if SOLO=1 boot zramdiff12 shell 512 "rd.memtrace=0 e2e.mode=zramdiff e2e.zram_mib=12 e2e.extra_mod=crc7" \
		-serial "file:$W/zramdiff12.serial1"; then
		check_zramdiff_boot zramdiff12 12 && check_zramdiff zramdiff4 zramdiff12
	fi
	if SOLO=1 boot oom shell 256 "e2e.mode=oom loglevel=4"; then
		check_oom
	fi
	if SOLO=1 SMP=2 boot cpus shell 256 "e2e.mode=cpus"; then
		check_cpus
	fi
}
# ---- memtrace's answer R for each capture, checked by real kdumps (issue 38). Hooks:
#   kdump_answer KIND      R in MiB: the last `crashkernel: at least N MiB` line of the
#                          generous boot's report (kdump, kdump-itools, kdump-heavy), else
#                          E2E_KDUMP_R_<KIND>; nothing when neither is there
#   kdump_below R          R - max(8 MiB, 10% of R, rounded up) - 4 MiB
#   kdump_expect KIND SIZE healthy|unhealthy NAME   boot NAME: that capture at
#                          crashkernel=SIZE, checked (not) healthy (kdump_health)
# The generous boots (in boots()) keep their report: NAME.final (dracut, heavy), NAME.report
# (itools), NAME.console.
kdump_generous_name() {	# kdump_generous_name KIND
	case $1 in dracut) echo kdump ;; itools) echo kdump-itools ;; heavy) echo kdump-heavy ;; esac
}
kdump_answer() {	# kdump_answer KIND
	local n env r=
	n=$(kdump_generous_name "$1")
	[ -s "$W/$n.console" ] &&
		r=$(sed -n 's/.*crashkernel: at least \([0-9][0-9]*\) MiB.*/\1/p' "$W/$n.console" | tail -1)
	if [ -z "$r" ]; then
		env=E2E_KDUMP_R_$(echo "$1" | tr a-z A-Z)
		r=${!env:-}
		r=${r%M}
	fi
	[[ $r =~ ^[1-9][0-9]*$ ]] && echo "$r"
}
kdump_below() {	# kdump_below R (MiB)
	local d=$((($1 + 9) / 10))
	[ "$d" -ge 8 ] || d=8
	echo $(($1 - d - 4))
}
# M per capture: the smallest crashkernel= healthy in every boot, as make kdump-bisect
# measured it with the boot buffer's words on the capture's line and memtrace at 1.7 MiB of
# its own (docs/boot.md, run 5w: dracut 116M 2 of 2, 112M panics unpacking; itools 104M 2 of
# 2, 100M 0 of 2; heavy 148M 2 of 2, 144M panics unpacking; with memtrace's 6.6 MiB of
# before issue 39 they were 120M, 108M and 152M: what memtrace takes is in every M;
# E2E_KDUMP_M_<KIND>=MiB after a bisection of another kernel or initramfs)
KDUMP_M_DRACUT=${E2E_KDUMP_M_DRACUT:-116} KDUMP_M_ITOOLS=${E2E_KDUMP_M_ITOOLS:-104}
KDUMP_M_HEAVY=${E2E_KDUMP_M_HEAVY:-148}
kdump_r_bound() {	# kdump_r_bound KIND R: M <= R <= M + max(8 MiB, 10% of M) (issue 38)
	local v m hi
	v=KDUMP_M_$(echo "$1" | tr a-z A-Z)
	m=${!v}
	hi=$(kd_bound_hi "$m")
	check "kdump-r-$1: memtrace's answer R = $2 MiB of the generous boot is within [M, M + max(8 MiB, 10% of M)] = [$m, $hi] (M measured by make kdump-bisect)" \
		test "$2" -ge "$m" -a "$2" -le "$hi"
}
kdump_expect() {	# kdump_expect KIND SIZE healthy|unhealthy NAME
	local ok=$KDUMP_OK
	[ "$1" != itools ] || [ -n "$ITOOLS_OK" ] || ok=
	# (the verdict is known at the first OOM kill: ended 10 s later, not after KD_AFTER_KILL)
	if [ -n "$ok" ] && PROBE=1 KEEP_DISK=1 AFTER_KILL=10 kdump_boot "$4" "$2" "$1"; then
		note "$4: the $1 capture at crashkernel=$2, expected $3"
		kdump_crashed "$4" "$([ "$1" = itools ] && echo ' memtrace=4' || echo 'rd\.memtrace=4')"
		check_kdump_health "$4" "$3"
		[ -n "${KEEP_WORK:-}" ] || rm -f "$W/$4.disk" "$W/$4.vmcore"
	fi
}
# after the other boots: R comes from the generous boots' reports
kdump_r_boots() {
	local kind r
	for kind in dracut itools heavy; do
		wanted "kdump-r-$kind" "kdump-r-$kind-below" || continue
		r=$(kdump_answer "$kind")
		if [ -z "$r" ]; then
			[ "$PASS" = collect ] &&
				note "kdump-r-$kind: not booted: no 'crashkernel: at least N MiB' in the report of $(kdump_generous_name "$kind") and no E2E_KDUMP_R_$(echo "$kind" | tr a-z A-Z)"
			continue
		fi
		[ "$PASS" = collect ] && kdump_r_bound "$kind" "$r"
		kdump_expect "$kind" "${r}M" healthy "kdump-r-$kind"
		kdump_expect "$kind" "$(kdump_below "$r")M" unhealthy "kdump-r-$kind-below"
	done
}

if [ -n "${E2E_BISECT:-}" ]; then
	# shellcheck source=tests/e2e/bisect.sh
	. "$HERE/bisect.sh"
	bisect_all
else
	PASS=launch boots
	PASS=collect boots
	PASS=launch kdump_r_boots
	PASS=collect kdump_r_boots
fi

# ------------------------------------------------------------ fixture mode
record_fixture() {
	local n=fixture s1=$W/fixture.s1 sum fx=$W/fx kib
	if ! boot $n shell 512 "rd.memtrace=4 rd.memtrace.record rd.driver.pre=loop e2e.mode=fixture" \
		-serial "file:$W/fixture.serial1"; then
		return
	fi
	check_traced $n shell 4 record
	tr -d '\r' < "$W/fixture.serial1" > "$s1"
	sum=$(sed -n 's/^=====BEGIN-FIXTURE \([0-9a-f]*\)=====$/\1/p' "$s1")
	sed -n '/^=====BEGIN-FIXTURE/,/^=====END-FIXTURE/p' "$s1" | sed '1d;$d' |
		base64 -d > "$W/fx.tar" 2> /dev/null
	check "$n: recording received over ttyS1 (md5 $sum)" \
		eval '[ -n "$sum" ] && echo "$sum  $W/fx.tar" | md5sum -c --status -'
	mkdir -p "$fx" && tar xf "$W/fx.tar" -C "$fx" --no-same-owner 2> /dev/null
	check "$n: recording has header_page, format files, per-CPU buffers, meta and seed" \
		eval 'test -s "$fx/events/header_page" -a -s "$fx/events/kmem/mm_page_alloc/format" \
			-a -s "$fx/per_cpu/cpu0/trace_pipe_raw" -a -s "$fx/memtrace.meta" \
			-a -s "$fx/memtrace.seed" -a -s "$fx/modules.txt"'
	kib=$(du -sk "$fx" | cut -f1)
	note "recording: $kib KiB; largest files:"
	(cd "$fx" && find . -type f -printf '%s %p\n' | sort -rn | head -5 | sed 's/^/        /')
	check "$n: recording is small enough for the repository ($kib KiB < 2048 KiB)" \
		test "$kib" -lt 2048
	# replay on the host (no tracefs): the same modules as the live report
	"$W/memtrace" --replay "$fx" > "$W/fixture.replay" 2> "$W/fixture.replay.err"
	parse_report "$W/fixture.replay" "$W/fixture.rp"
	check "$n: memtrace --replay of the recording lists the same modules, peaks and brackets as the live report" \
		cmp -s <(cut -d' ' -f1,2,5 "$W/fixture.mods" | sort) \
		<(cut -d' ' -f1,2,5 "$W/fixture.rp.mods" | sort)
	if ! cmp -s <(sort "$W/fixture.mods") <(sort "$W/fixture.rp.mods"); then
		note "live vs replay module rows (name peak static state bracket):"
		diff <(sort "$W/fixture.mods") <(sort "$W/fixture.rp.mods") | sed 's/^/        /'
	fi
	case "$FIXTURE_DIR" in
	"" | / | "$REPO" | "$REPO/" | "$REPO/tests" | "$REPO/tests/fixtures")
		bad "E2E_RECORD_FIXTURE=$FIXTURE_DIR: refusing that directory"
		return ;;
	esac
	if [ -d "$FIXTURE_DIR" ] && [ -n "$(ls -A "$FIXTURE_DIR")" ] &&
		[ ! -e "$FIXTURE_DIR/memtrace.meta" ]; then
		bad "E2E_RECORD_FIXTURE=$FIXTURE_DIR is not empty and not a previous recording: not replaced"
		return
	fi
	rm -rf "$FIXTURE_DIR" && mkdir -p "$FIXTURE_DIR" && cp -a "$fx/." "$FIXTURE_DIR/"
	grep -a "$P" "$W/fixture.console" > "$FIXTURE_DIR/guest.log"
	{
		echo "memtrace e2e fixture: one initramfs boot recorded with rd.memtrace.record"
		echo
		echo "Made by E2E_RECORD_FIXTURE=DIR tests/e2e.sh on $(date -u +%Y-%m-%d)."
		echo "Kernel: $(cat "$fx/proc_version" 2>/dev/null)"
		echo "QEMU $(qemu-system-x86_64 --version | head -1 | awk '{print $4}'), -accel tcg -cpu max -m 512 -smp 1 -nic none"
		echo "Initramfs: dracut $(dpkg-query -W -f '${Version}' dracut-core 2>/dev/null) shell flavour,"
		echo "  -m 'bash kernel-modules rootfs-block memtrace' --drivers 'virtio_blk virtio_pci loop'"
		echo "Kernel command line: $(cat "$fx/proc_cmdline" 2>/dev/null)"
		echo
		echo "memtrace ran from the cmdline hook to the pre-pivot hook:"
		echo "  memtrace --daemon --pidfile /run/memtrace.pid --kmsg -n 30 --instance memtrace"
		echo "           -o /run/initramfs/mem_debug_log --record /run/initramfs/memtrace-record"
		echo "the root disk's init copied the recording after switch_root."
		echo
		echo "Files:"
		echo "  events/, per_cpu/cpuN/trace_pipe_raw, memtrace.meta, memtrace.seed"
		echo "                   the recording (memtrace --replay DIR)"
		echo "  report.txt       memtrace's live report of that boot (mem_debug_log)"
		echo "  proc_modules.txt /proc/modules after switch_root"
		echo "  modules.txt      name coresize initsize (/sys/module/*/) after switch_root"
		echo "  proc_cmdline, proc_version, uname-r, nproc   guest facts"
		echo "  guest.log        the root init's lines from the serial console"
	} > "$FIXTURE_DIR/README"
	ok "$n: fixture written to $FIXTURE_DIR ($(du -sk "$FIXTURE_DIR" | cut -f1) KiB)"
}
[ -n "$FIXTURE_DIR" ] && record_fixture

# ------------------------------------------------------------ zram recording (stacks)

record_zram() {
	local n=zramrec fx=$W/zfx dir=$ZRAM_DIR kib m sum load f0=$fail
	if ! boot $n shell 512 "rd.memtrace=0 e2e.mode=zramrec" -serial "file:$W/$n.serial1"; then
		return
	fi
	tag $n MTERR | sed 's/^/      memtrace: /'
	mt_started $n "the disk's memtrace --stacks --record started"
	for m in zsmalloc lzo-rle zram; do
		check "$n: insmod $m" has_tag $n "INSMOD $m rc=0"
	done
	check "$n: 4 MiB of random data written into zram ($(fact $n ZRAM_MM_STAT))" \
		has_tag $n "ZRAM_WRITE rc=0"
	check "$n: memtrace exited on SIGTERM" has_tag $n "MT_EXITED yes"
	check "$n: recording received over ttyS1" receive $n "$fx"
	check "$n: recording has formats (kernel_stack too), buffers, meta, kallsyms lines, report" \
		eval 'test -s "$fx/events/ftrace/kernel_stack/format" -a -s "$fx/per_cpu/cpu0/trace_pipe_raw" \
			-a -s "$fx/memtrace.meta" -a -s "$fx/memtrace.kallsyms" -a -s "$fx/report.txt"'
	kib=$(du -sk "$fx" | cut -f1)
	check "$n: recording is small enough for the repository ($kib KiB < 2048 KiB)" \
		test "$kib" -lt 2048
	"$W/memtrace" --replay "$fx" -n 10 > "$W/$n.replay" 2> "$W/$n.replay.err"
	parse_report "$fx/report.txt" "$W/$n.live"
	parse_report "$W/$n.replay" "$W/$n.rp"
	check "$n: --replay gives the live report's module rows" \
		cmp -s "$W/$n.live.mods" "$W/$n.rp.mods"
	sum=$(awk '$1 == "zsmalloc" || $1 == "zram" { s += $2 } END { print s + 0 }' "$W/$n.rp.mods")
	load=$(awk '$1 == "zsmalloc" || $1 == "zram" { s += $7 } END { print s + 0 }' "$W/$n.rp.mods")
	check "$n: zsmalloc + zram: $sum pages by stack >= 1024 written ($load in their load brackets)" \
		test "$sum" -ge 1024
	if [ -x "$REPO/build/tests/crosscheck" ]; then
		check "$n: build/tests/crosscheck: memtrace's decoder equals libtraceevent on it" \
			eval '"$REPO/build/tests/crosscheck" "$fx" > "$W/$n.xcheck" 2>&1'
		grep -E '^  stack |^result' "$W/$n.xcheck" | sed 's/^/      /'
	fi
	if [ "$fail" != "$f0" ]; then
		bad "$n: a check failed: $dir not written"
		return
	fi
	case "$dir" in
	"" | / | "$REPO" | "$REPO/" | "$REPO/tests" | "$REPO/tests/fixtures")
		bad "E2E_RECORD_ZRAM=$dir: refusing that directory"
		return ;;
	esac
	if [ -d "$dir" ] && [ -n "$(ls -A "$dir")" ] && [ ! -e "$dir/memtrace.meta" ]; then
		bad "E2E_RECORD_ZRAM=$dir is not empty and not a previous recording: not replaced"
		return
	fi
	rm -rf "$dir" && mkdir -p "$dir" && cp -a "$fx/." "$dir/"
	grep -a "$P" "$W/$n.console" > "$dir/guest.log"
	{
		echo "memtrace e2e fixture: zram written long after its load, recorded with --stacks"
		echo
		echo "Made by E2E_RECORD_ZRAM=DIR tests/e2e.sh on $(date -u +%Y-%m-%d)."
		echo "Kernel: $(cat "$fx/proc_version" 2>/dev/null)"
		echo "QEMU $(qemu-system-x86_64 --version | head -1 | awk '{print $4}'), -accel tcg -cpu max -m 512 -smp 1 -nic none"
		echo
		echo "After switch_root the root disk's init (tests/e2e/init.sh, e2e.mode=zramrec) ran"
		echo "  memtrace --daemon --stacks -n 10 --instance zramrec --record DIR"
		echo "then insmod zsmalloc, lzo-rle, zram; 0.5 s later: disksize 16M and"
		echo "  dd if=/dev/urandom of=/dev/zram0 bs=64k count=64 conv=fsync"
		echo "then TERM to memtrace. zram_mm_stat: /sys/block/zram0/mm_stat after the write."
		echo
		echo "Files: events/, per_cpu/, memtrace.meta (module_range lines: the modules' code),"
		echo "memtrace.seed, memtrace.kallsyms (the guest's kallsyms lines the stacks need),"
		echo "report.txt (memtrace's live report), proc_modules.txt, modules.txt, guest facts."
	} > "$dir/README"
	ok "$n: fixture written to $dir ($(du -sk "$dir" | cut -f1) KiB)"
}
ZRAM_DIR=${E2E_RECORD_ZRAM:-}
[ -n "$ZRAM_DIR" ] && record_zram

for t in "${TIMINGS[@]}"; do echo "time: $t"; done
echo "time: total $(elapsed "$T_START") s"
finish
