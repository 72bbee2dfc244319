#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# e2e-kdump-tools.sh - Debian's own kdump-tools with memtrace's package, under QEMU (TCG)
# (make e2e-kdump-tools, issue 38): a Debian 12 guest root made with debootstrap from
# deb.debian.org (cached), with linux-image-cloud-amd64, kdump-tools, makedumpfile and
# memtrace's .deb (built from this tree as make check-package builds it) installed, and
# KDUMP_CMDLINE_APPEND with memtrace=4 in /etc/default/kdump-tools. The capture initrd is
# kdump-tools' own (its kernel hook, /etc/kernel/postinst.d/kdump-tools, run in a chroot of
# the guest root: mkinitramfs with MODULES=dep, which there finds the host's root disk, a
# virtio disk as the guest's). The guest boots with systemd and crashkernel=SIZE;
# kdump-tools.service runs kdump-config load; a test unit (e2e-crash.service) waits for it
# and crashes the kernel (sysrq c); the capture kernel boots kdump-tools' initrd (memtrace
# traces it from init-top to init-bottom), switches to the root, and there
# kdump-tools-dump.service runs kdump-config savecore: makedumpfile with its own options
# (MAKEDUMP_ARGS, "-F -c -d 31") into /var/crash/STAMP/, then reboot. The host reads the
# dump off the disk image (debugfs) and checks it, the capture's health (the classes of
# tests/e2e/kdump-health.sh) and memtrace's report on the console.
#
# Usage (root):  tests/e2e-kdump-tools.sh
# Environment:
#   MEMTRACE_DEB=FILE   the memtrace .deb to install (default: built from this tree)
#   E2E_KT_CRASH=SIZE   crashkernel= (default 128M: Debian's crashkernel=384M-:128M here)
#   E2E_KT_M=MiB        M, the smallest crashkernel= healthy in 2 of 2 boots (probe mode,
#                       4 MiB steps; default 104: docs/boot.md): memtrace's answer R of the
#                       boot at E2E_KT_CRASH must be within [M, M + max(8 MiB, 10% of M)]
#   E2E_KT_SIZES="MiB ..."  probe mode: E2E_KT_BOOTS boots (default 2) at each size, two
#                       at a time, each classified; the table to E2E_KT_OUT (default
#                       build/kdump-bisect/kdump-tools.md); no PASS/FAIL on the health
#   E2E_KT_CACHE=DIR    the cached guest root (default tests/e2e/cache/kdump-tools)
#   E2E_KT_TIMEOUT=S    per boot (default 900)
#   KEEP_WORK=1         keep the work directory (serial logs, disk images)
#   E2E_KT_NO_BOOT=1    stop before the boots (the cached root, the .deb, the disk made)
#   E2E_KT_SETUP_DISK=FILE  a disk a previous run set up (KEEP_WORK=1, its root.ext4): no
#                       root, .deb or setup boot, only the crash boots
# Output: PASS:/FAIL: per check, "N passed, N failed"; exit 1 on any failure. SKIP: with
# the reason (exit 0) when not root or the tools cannot be had. The host's tracefs is
# never touched; the chroot's mounts live in a mount namespace of their own.
set -u
cd "$(dirname "$0")/.." || exit 1
REPO=$PWD
HERE=$REPO/tests/e2e
CACHE=${E2E_KT_CACHE:-$HERE/cache/kdump-tools}
CRASH=${E2E_KT_CRASH:-128M}
KT_M=${E2E_KT_M:-104}
TIMEOUT=${E2E_KT_TIMEOUT:-900}
SIZES=${E2E_KT_SIZES:-}
BOOTS=${E2E_KT_BOOTS:-2}
OUT=${E2E_KT_OUT:-$REPO/build/kdump-bisect/kdump-tools.md}
MIRROR=http://deb.debian.org/debian
# the guest root's recipe: a new one (another list, another configuration) is another cache
RECIPE=bookworm-kt-1
PKGS="linux-image-cloud-amd64 systemd-sysv udev kmod kdump-tools makedumpfile kexec-tools initramfs-tools busybox e2fsprogs procps"
KDUMP_APPEND="reset_devices systemd.unit=kdump-tools-dump.service nr_cpus=1 irqpoll usbcore.nousb memtrace=4 ${E2E_KDUMP_BOOTBUF-trace_event=kmem:mm_page_alloc,kmem:mm_page_free trace_buf_size=4M}"
P='@@kt@@'

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "PASS: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; return 1; fi; }
note() { echo "      $*"; }
finish() {
	[ -n "${KEEP_WORK:-}" ] && [ -n "${W:-}" ] && echo "work dir kept: $W"
	echo "time: total $((SECONDS - T0)) s"
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit $?
}
skip_all() { echo "SKIP: $*"; exit 0; }
T0=$SECONDS

[ "$(id -u)" = 0 ] || skip_all "needs root (debootstrap, chroot, mke2fs -d)"
missing=
for t in debootstrap qemu-system-x86_64 mke2fs debugfs makedumpfile unshare; do
	command -v "$t" > /dev/null || missing="$missing $t"
done
if [ -z "${MEMTRACE_DEB:-}" ]; then
	for t in dpkg-buildpackage dh git; do command -v "$t" > /dev/null || missing="$missing $t"; done
fi
if [ -n "$missing" ] && command -v apt-get > /dev/null; then
	echo "installing what provides:$missing"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap \
		qemu-system-x86 e2fsprogs makedumpfile util-linux dpkg-dev debhelper git > /dev/null 2>&1
	missing=
	for t in debootstrap qemu-system-x86_64 mke2fs debugfs makedumpfile unshare; do
		command -v "$t" > /dev/null || missing="$missing $t"
	done
fi
[ -z "$missing" ] || skip_all "missing:$missing"
# shellcheck source=tests/e2e/kdump-health.sh
. "$HERE/kdump-health.sh"

W=$(mktemp -d /tmp/memtrace-kt.XXXXXX)
cleanup() {
	local j
	for j in $(jobs -p); do kill "$j" 2> /dev/null; done
	[ -n "${KEEP_WORK:-}" ] || rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
echo "e2e-kdump-tools: work dir $W, cache $CACHE"

# in_root ROOT COMMAND...: COMMAND in a chroot of ROOT with /proc, /sys and /dev, in a
# mount namespace of its own (the mounts go with it, whatever happens)
in_root() {
	local r=$1
	shift
	unshare -m --propagation private sh -c 'r=$1; shift
		mount -t proc proc "$r/proc" && mount -t sysfs sys "$r/sys" && mount --rbind /dev "$r/dev" &&
		exec chroot "$r" "$@"' in_root "$r" "$@"
}

# ------------------------------------------------------------ the guest root (cached)
# base_root: $CACHE/$RECIPE.tar, a Debian 12 root with the packages, made once
# (debootstrap and apt-get from deb.debian.org: 3-5 min)
base_root() {
	local b=$CACHE/build
	[ -s "$CACHE/$RECIPE.tar" ] && return 0
	rm -rf "$b" && mkdir -p "$b" || return 1
	echo "making the guest root (debootstrap $MIRROR bookworm, once; cached in $CACHE)"
	debootstrap --variant=minbase bookworm "$b" "$MIRROR" > "$CACHE/debootstrap.log" 2>&1 ||
		{ tail -5 "$CACHE/debootstrap.log"; return 1; }
	cat > "$b/etc/apt/sources.list" << EOF
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
	echo 'kdump-tools kdump-tools/use_kdump boolean true' > "$b/tmp/debconf"
	# shellcheck disable=SC2016
	in_root "$b" sh -c 'export DEBIAN_FRONTEND=noninteractive; debconf-set-selections /tmp/debconf &&
		apt-get update -qq && apt-get install -y -qq --no-install-recommends '"$PKGS"' &&
		apt-get clean' > "$CACHE/apt.log" 2>&1 || { tail -5 "$CACHE/apt.log"; return 1; }
	rm -f "$b/tmp/debconf"
	tar -C "$b" -cf "$CACHE/$RECIPE.tar.tmp" . && mv "$CACHE/$RECIPE.tar.tmp" "$CACHE/$RECIPE.tar" &&
		rm -rf "$b"
}

# configure_root ROOT: the test's configuration of this run's copy of the guest root: fstab,
# memtrace=4 in kdump-tools' capture line, and two units run after kdump-tools.service:
# e2e-setup.service (with e2e.setup: the first boot, in which kdump-config load made the
# capture initrd; power off) and e2e-crash.service (with e2e.crash: sysrq c)
configure_root() {
	local b=$1 u
	echo "/dev/vda / ext4 rw,errors=remount-ro 0 1" > "$b/etc/fstab"
	echo kt-e2e > "$b/etc/hostname"
	# kdump-tools' default capture line, plus memtrace=4 (docs/boot.md, kdump-tools)
	sed -i '/^KDUMP_CMDLINE_APPEND=/d' "$b/etc/default/kdump-tools"
	echo "KDUMP_CMDLINE_APPEND=\"$KDUMP_APPEND\"" >> "$b/etc/default/kdump-tools"
	install -m 0755 /dev/stdin "$b/usr/local/sbin/e2e-setup" << 'GUEST'
#!/bin/sh
# tests/e2e-kdump-tools.sh: the machine's first boot with kdump-tools, whose
# kdump-config load made the capture initrd (its kernel hook: the first load always does);
# say so and power off
echo "@@kt@@ SETUP $(kdump-config status 2>&1 | tail -1 | tr -s ' '), $(readlink /var/lib/kdump/initrd.img), $(stat -L -c %s /var/lib/kdump/initrd.img) bytes"
sync
systemctl poweroff -f
GUEST
	install -m 0755 /dev/stdin "$b/usr/local/sbin/e2e-crash" << 'GUEST'
#!/bin/sh
# tests/e2e-kdump-tools.sh: say what kdump-tools did, then crash (sysrq c)
echo "@@kt@@ FIRST $(cat /sys/kernel/kexec_crash_loaded) loaded, crashkernel $(cat /sys/kernel/kexec_crash_size) bytes, up $(cut -d' ' -f1 /proc/uptime) s"
kdump-config status 2>&1 | sed 's/^/@@kt@@ STATUS /'
kdump-config show 2>&1 | sed 's/^/@@kt@@ SHOW /'
sync
[ "$(cat /sys/kernel/kexec_crash_loaded)" = 1 ] && echo c > /proc/sysrq-trigger
echo "@@kt@@ FIRST no crash"
systemctl poweroff -f
GUEST
	for u in setup crash; do
		cat > "$b/etc/systemd/system/e2e-$u.service" << GUEST
[Unit]
Description=e2e: tests/e2e-kdump-tools.sh's $u step
After=kdump-tools.service multi-user.target
ConditionKernelCommandLine=e2e.$u
ConditionPathExists=!/proc/vmcore

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/e2e-$u
StandardOutput=journal+console

[Install]
WantedBy=multi-user.target
GUEST
		ln -sfn "/etc/systemd/system/e2e-$u.service" "$b/etc/systemd/system/multi-user.target.wants/e2e-$u.service"
	done
}

# memtrace_deb: the .deb of this tree, as make check-package builds it (make dist, then
# dpkg-buildpackage in the unpacked tarball; nocheck)
memtrace_deb() {
	local tgz d
	if [ -n "${MEMTRACE_DEB:-}" ]; then
		cp "$MEMTRACE_DEB" "$W/memtrace.deb"
		return
	fi
	tgz=$(make -s dist 2> "$W/dist.err" | grep '\.tar\.gz$' | head -1) || return 1
	[ -s "$tgz" ] || { cat "$W/dist.err"; return 1; }
	mkdir -p "$W/deb" && tar -C "$W/deb" -xzf "$tgz" || return 1
	d=$(ls -d "$W"/deb/memtrace-*/)
	(cd "$d" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" DEB_BUILD_PROFILES=nocheck \
		dpkg-buildpackage -us -uc -b) > "$W/deb.log" 2>&1 || { tail -20 "$W/deb.log"; return 1; }
	cp "$W"/deb/memtrace_*.deb "$W/memtrace.deb"
}

# ------------------------------------------------------------ this run's root and disk
# make_disk: root.ext4, this run's copy of the guest root configured (configure_root) with
# memtrace's .deb installed; vmlinuz and initrd.img, the guest's kernel and its own initrd
make_disk() {
	local t=$SECONDS R=$W/root mb
	mkdir -p "$R" && tar -C "$R" -xf "$CACHE/$RECIPE.tar" || { bad "unpacking the guest root"; return 1; }
	KVER=$(ls "$R/lib/modules" | sort -V | tail -1)
	configure_root "$R"
	cp "$W/memtrace.deb" "$R/tmp/memtrace.deb"
	in_root "$R" dpkg -i /tmp/memtrace.deb > "$W/install.log" 2>&1
	check "memtrace's .deb installed in the guest root ($KVER)" test $? = 0 ||
		{ tail -20 "$W/install.log"; return 1; }
	rm -f "$R/tmp/memtrace.deb"
	check "/etc/default/kdump-tools: USE_KDUMP=1, KDUMP_CMDLINE_APPEND with memtrace=4" \
		eval '. "$R/etc/default/kdump-tools" && [ "$USE_KDUMP" = 1 ] && [ "$KDUMP_CMDLINE_APPEND" = "$KDUMP_APPEND" ]'
	cp "$R/boot/vmlinuz-$KVER" "$W/vmlinuz" && cp "$R/boot/initrd.img-$KVER" "$W/initrd.img"
	mb=$(($(du -sm "$R" | cut -f1) + 640))
	truncate -s "${mb}M" "$W/root.ext4"
	mke2fs -q -F -t ext4 -L ktroot -d "$R" "$W/root.ext4" || { bad "mke2fs -d of the guest root"; return 1; }
	rm -rf "$R"
	note "root disk: $mb MiB (sparse), $((SECONDS - t)) s"
}

# kt_qemu NAME DISK APPEND: the guest from DISK (its root), the serial console in
# NAME.serial, "RC SECONDS" in NAME.rc; QEMU exits at the guest's reboot or power-off
kt_qemu() {
	local n=$1 t0=$SECONDS rc
	timeout "$TIMEOUT" qemu-system-x86_64 -accel tcg -cpu max -m 512 -smp 1 -nic none \
		-no-reboot -display none -monitor none -serial "file:$W/$n.serial" \
		-kernel "$W/vmlinuz" -initrd "$W/initrd.img" -drive "file=$2,if=virtio,format=raw" \
		-append "root=/dev/vda ro console=ttyS0 $3" < /dev/null > "$W/$n.qemu.log" 2>&1
	rc=$?
	echo "$rc $((SECONDS - t0))" > "$W/$n.rc"
}

# setup_boot: the machine's first boot with kdump-tools: its first kdump-config load makes
# the capture initrd on the guest (the kernel hook: mkinitramfs, MODULES=dep, which finds the
# guest's root disk; memtrace's initramfs-tools hook puts memtrace in it), as on a machine
# (a chroot on this host cannot: MODULES=dep looks at the host's root). The later boots of
# the same disk load that initrd. 4-8 min under TCG (mkinitramfs).
setup_boot() {
	local rc secs
	kt_qemu setup "$W/root.ext4" "crashkernel=128M e2e.setup"
	tr -d '\r' < "$W/setup.serial" > "$W/setup.console"
	read -r rc secs < "$W/setup.rc"
	check "setup boot: kdump-tools.service's first kdump-config load made its capture initrd on the guest (qemu exit $rc after $secs s): $(sed -n "s/.*$P SETUP //p" "$W/setup.console")" \
		grep -q "$P SETUP current state : ready to kdump, /var/lib/kdump/initrd.img-" "$W/setup.console" ||
		{ tail -30 "$W/setup.console"; return 1; }
}

if [ -n "${E2E_KT_SETUP_DISK:-}" ]; then
	# a disk a previous run set up (KEEP_WORK=1: its root.ext4), for more boots
	cp --sparse=always "$E2E_KT_SETUP_DISK" "$W/root.ext4" || { bad "no $E2E_KT_SETUP_DISK"; finish; }
	KVER=$(debugfs -R 'ls -p /lib/modules' "$W/root.ext4" 2> /dev/null | awk -F/ '$6 ~ /^[0-9]/ { print $6 }' | sort -V | tail -1)
	debugfs -R "dump /boot/vmlinuz-$KVER $W/vmlinuz" "$W/root.ext4" > /dev/null 2>&1
	debugfs -R "dump /boot/initrd.img-$KVER $W/initrd.img" "$W/root.ext4" > /dev/null 2>&1
	note "E2E_KT_SETUP_DISK: $E2E_KT_SETUP_DISK ($KVER)"
else
	t=$SECONDS
	check "the guest root: Debian 12 with $PKGS ($CACHE/$RECIPE.tar)" base_root || finish
	note "guest root ready: $((SECONDS - t)) s"
	t=$SECONDS
	check "memtrace's .deb (${MEMTRACE_DEB:-make dist, dpkg-buildpackage -b})" memtrace_deb || finish
	note "deb: $((SECONDS - t)) s"
	make_disk || finish
	[ -z "${E2E_KT_NO_BOOT:-}" ] || { note "E2E_KT_NO_BOOT: not booted"; finish; }
	setup_boot || finish
fi
debugfs -R "dump /var/lib/kdump/initrd.img-$KVER $W/kdump-initrd.img" "$W/root.ext4" > /dev/null 2>&1
lsinitramfs "$W/kdump-initrd.img" > "$W/kdump-initrd.txt" 2> /dev/null
check "the capture initrd (kdump-tools', MODULES=dep, $(du -k "$W/kdump-initrd.img" | cut -f1) KiB) holds memtrace, its init-top and init-bottom scripts, virtio_blk" \
	eval 'grep -qx usr/sbin/memtrace "$W/kdump-initrd.txt" && grep -qx scripts/init-top/memtrace "$W/kdump-initrd.txt" &&
		grep -qx scripts/init-bottom/memtrace "$W/kdump-initrd.txt" && grep -q "/virtio_blk.ko" "$W/kdump-initrd.txt"'
# the package's boot binary (/usr/libexec/memtrace/memtrace-boot), which the hook takes
rm -rf "$W/kdump-initrd.x" && unmkinitramfs "$W/kdump-initrd.img" "$W/kdump-initrd.x" > /dev/null 2>&1
mtv=$("$(ls "$W"/kdump-initrd.x/usr/sbin/memtrace "$W"/kdump-initrd.x/main/usr/sbin/memtrace 2> /dev/null |
	head -1)" --version 2>&1)
check "the capture initrd's memtrace is the package's boot binary ($mtv)" \
	eval '[[ $mtv == *"(the boot build)" ]]'

# ------------------------------------------------------------ the boots
# kt_boot NAME SIZE: the first kernel with crashkernel=SIZE (systemd, kdump-tools.service),
# the crash, the capture, its reboot; on a copy of the set-up disk, NAME.disk
kt_boot() {
	cp --sparse=always "$W/root.ext4" "$W/$1.disk"
	kt_qemu "$1" "$W/$1.disk" "crashkernel=$2 panic=-1 e2e.crash"
}

# kt_read NAME: the dump kdump-tools wrote (/var/crash/STAMP/dump.STAMP, flattened: -F),
# rearranged (makedumpfile -R) into NAME.vmcore, its dmesg.STAMP in NAME.savedmesg; the
# capture's console in NAME.capture; kd_classify's KD_CLASS and KD_HEALTH
kt_read() {
	local n=$1 r=$W/$1 stamp rc ended=
	tr -d '\r' < "$r.serial" > "$r.console"
	kd_capture_console "$r.console" > "$r.capture"
	stamp=$(debugfs -R 'ls -p /var/crash' "$r.disk" 2> /dev/null | awk -F/ '$6 ~ /^2[0-9]+$/ { print $6 }' | tail -1)
	KT_STAMP=$stamp
	rm -f "$r.flat" "$r.vmcore" "$r.savedmesg"
	if [ -n "$stamp" ]; then
		debugfs -R "dump /var/crash/$stamp/dump.$stamp $r.flat" "$r.disk" > /dev/null 2>&1
		debugfs -R "dump /var/crash/$stamp/dmesg.$stamp $r.savedmesg" "$r.disk" > /dev/null 2>&1
		[ -s "$r.flat" ] && makedumpfile -R "$r.vmcore" < "$r.flat" > /dev/null 2>&1
	fi
	kd_vmcore_ok "$r.vmcore" "$r.dmesg"
	read -r rc _ < "$r.rc"
	[ "$rc" = 124 ] && ended=1
	kd_classify "$r.capture" "$ended"
}

kt_checks() {	# kt_checks NAME SIZE: the checks of one boot
	local n=$1 c=$W/$1.console r=$W/$1 rc secs line
	read -r rc secs < "$r.rc"
	note "$n: crashkernel=$2, qemu exit $rc after $secs s"
	check "$n: the first boot (systemd) loaded the capture kernel with kdump-config load and crashed: $(sed -n "s/.*$P FIRST //p" "$c" | head -1)" \
		eval 'grep -q "$P FIRST 1 loaded" "$c" && grep -q "sysrq: Trigger a crash" "$c"'
	sed -n "s/.*$P \(STATUS\|SHOW\) /      kdump-config: /p" "$c" | grep -v '^      kdump-config: *$' | head -12
	check "$n: the capture kernel booted with kdump-tools' line and memtrace=4 ($(grep -o 'systemd.unit=[^ ]*' "$r.capture" | head -1))" \
		grep -q -E "Command line: .*systemd\.unit=kdump-tools-dump\.service .*memtrace=4.*elfcorehdr=" "$r.capture"
	check "$n: memtrace traced the capture initramfs (init-top, --switch-root /root) and reported so far at init-bottom (trigger SIGUSR2)" \
		eval 'grep -q -E "^memtrace [^ ]+: tracing in /sys/kernel/tracing/instances/memtrace " "$r.capture" &&
			grep -q -E "^memtrace [^ ]+ report \(trigger: SIGUSR2, live\)" "$r.capture"'
	check "$n: init-bottom said that memtrace follows the switch to the root" \
		grep -q 'memtrace: the dump is taken after the switch to the root: memtrace follows it' "$r.capture"
	sed -n '/^memtrace [^ ]* report (trigger: SIGUSR2/,/^$/p' "$r.capture" > "$r.report"
	note "$n: $(grep -m1 '^memory at start:' "$r.report")"
	note "$n: at init-bottom: $(grep -m1 '^system peak:' "$r.report")"
	# kdump-tools saves the dump and runs reboot -f, which signals nobody: memtrace writes
	# its report so far and its --kmsg=4 summary when makedumpfile ends; the last one,
	# after the dump, is on the console with makedumpfile among its processes
	sed -n 's/.*\] memtrace: //p' "$r.capture" > "$r.summary"
	check "$n: the --kmsg summary written when makedumpfile ended (the dump's, after the switch) reached the console ($(grep -c '^report (makedumpfile exited)' "$r.summary") of them)" \
		grep -q -E '^report \(makedumpfile exited\): [0-9]+ events, [0-9]+ lost' "$r.summary"
	sed -i -n '/^report (/h; /^report (/!H; ${x;p}' "$r.summary"	# the last summary only
	check "$n: makedumpfile, run by kdump-tools-dump.service in the root, is in the last summary" \
		grep -q -E 'makedumpfile' "$r.summary"
	note "$n: final: $(grep -m1 -E '^system peak' "$r.summary")"
	line=$(grep -h -o 'crashkernel: at least [0-9]* MiB.*' "$r.summary" | tail -1)
	check "$n: the final summary ends with memtrace's answer ($line)" \
		eval 'tail -1 "$r.summary" | grep -q "^crashkernel: at least [0-9]* MiB"'
	# issue 38: the generous boot's answer within [M, M + max(8 MiB, 10% of M)]
	if [ -z "$SIZES" ]; then
		local R hi
		hi=$(kd_bound_hi "$KT_M")
		R=$(sed -n 's/^crashkernel: at least \([0-9]*\) MiB.*/\1/p' "$r.summary" | tail -1)
		check "$n: memtrace's answer R = ${R:-none} MiB is within [M, M + max(8 MiB, 10% of M)] = [$KT_M, $hi] (M: E2E_KT_M, the probes' smallest size healthy in 2 of 2)" \
			test "${R:-0}" -ge "$KT_M" -a "${R:-0}" -le "$hi"
	fi
	# P explained on the console too (a capture that reboots keeps nothing else of it)
	check "$n: ... after the /proc/meminfo sample that set its peak that cannot be reclaimed ($(tail -2 "$r.summary" | head -1 | cut -c1-200))" \
		eval 'tail -2 "$r.summary" | head -1 | grep -q -E "^peak that cannot be reclaimed, its /proc/meminfo at [0-9.]+ s: in use [0-9.]+ MiB, less clean page cache"'
	check "$n: kdump-tools-dump.service saved the vmcore (kdump-config savecore: $(grep -o 'saved vmcore in [^ ]*' "$r.capture" | head -1))" \
		grep -q 'kdump-tools: saved vmcore in /var/crash' "$r.capture"
	check "$n: the dump on the disk (/var/crash/${KT_STAMP:-?}/dump.${KT_STAMP:-?}, makedumpfile -F -c -d 31, $(stat -c %s "$r.flat" 2> /dev/null) bytes) rearranged is a kdump-compressed dump holding the crashed kernel's log" \
		test -n "$KD_VOK"
	check "$n: kdump-tools' dmesg.${KT_STAMP:-?} beside it holds the crash" \
		grep -q 'sysrq: Trigger a crash' "$r.savedmesg"
	check "$n: the capture is healthy ($KD_HEALTH)" test "$KD_CLASS" = healthy
	grep -E "$KD_KILL_RE|$KD_FAIL_RE|$KD_ALLOCFAIL_RE|$KD_PANIC_RE" "$r.capture" | cut -c1-160 | head -8 |
		sed 's/^/      | /'
	# where the capture's time went
	note "$n: capture: $(grep -m1 -o '\[ *[0-9.]*\] Run /init as init process' "$r.capture" | tr -s ' '); $(grep -m1 -o '\[ *[0-9.]*\] memtrace: report' "$r.capture" | tr -s ' '); $(grep -m1 -o '\[ *[0-9.]*\] reboot: Restarting' "$r.capture" | tr -s ' ')"
}

if [ -z "$SIZES" ]; then
	kt_boot kt "$CRASH"
	kt_read kt
	kt_checks kt "$CRASH"
	[ -n "${KEEP_WORK:-}" ] || rm -f "$W/kt.disk"
	finish
fi

# ------------------------------------------------------------ probe mode (E2E_KT_SIZES)
mkdir -p "$(dirname "$OUT")"
{
	echo "# kdump-tools' own capture: crashkernel= probes ($(date -u +%Y-%m-%d), tests/e2e-kdump-tools.sh)"
	echo
	echo "Debian 12 guest ($KVER, systemd, kdump-tools $(tar -xOf "$CACHE/$RECIPE.tar" ./var/lib/dpkg/status |
		awk '/^Package: kdump-tools$/ { f = 1 } f && /^Version:/ { print $2; exit }')), 512 MiB,"
	echo "memtrace=4 in KDUMP_CMDLINE_APPEND; $BOOTS boots per size. Columns as in figures.md."
	echo
	echo "| crashkernel | boot | class | kills | fails | vmcore | MemTotal | MemFree | avail | peak | s |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
} > "$W/probe.md"
for s in $SIZES; do
	for i in $(seq 1 "$BOOTS"); do
		while [ "$(jobs -pr | wc -l)" -ge 2 ]; do wait -n; done
		kt_boot "kt-${s}M-$i" "${s}M" &
	done
	wait
	good=0
	for i in $(seq 1 "$BOOTS"); do
		n=kt-${s}M-$i
		kt_read "$n"
		read -r _ secs < "$W/$n.rc"
		[ "$KD_CLASS" = healthy ] && good=$((good + 1))
		echo "probe: ${s}M boot $i: $KD_HEALTH ($secs s)"
		read -r cls kills _ fl _ vm mt mf av <<< "$KD_HEALTH"
		peak=$(sed -n '/^memtrace [^ ]* report (trigger: SIGTERM/,$p' "$W/$n.capture" |
			sed -n 's/^system peak: \([0-9]*\) pages.*/\1/p' | head -1)
		printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "${s}M" "$i" "$cls" \
			"${kills#*=}" "${fl#*=}" "${vm#*=}" "${mt#*=}" "${mf#*=}" "${av#*=}" "${peak:--}" "$secs" >> "$W/probe.md"
		mkdir -p "$(dirname "$OUT")/boots" && cp "$W/$n.console" "$(dirname "$OUT")/boots/$n.console"
		[ -n "${KEEP_WORK:-}" ] || rm -f "$W/$n.disk" "$W/$n.flat" "$W/$n.vmcore"
	done
	echo "probe: ${s}M: healthy in $good of $BOOTS"
done
cp "$W/probe.md" "$OUT"
echo "figures: $OUT"
sed 's/^/      /' "$OUT"
finish
