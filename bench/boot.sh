#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# boot.sh - what memtrace costs an initramfs boot: boot time with and without rd.memdebug=4.
#
# Usage (root):  bench/boot.sh [RUNS]          RUNS boots of each kind, interleaved (default 3)
# Environment:
#   MEMTRACE=PATH         the binary put in the image (default ./memtrace-boot, made here:
#                         what the images take; ./memtrace without musl-gcc)
#   MEMTRACE_DRACUT=DIR   the dracut module (default dracut/99memtrace of this checkout)
#   KVER=VERSION          kernel (default: newest installed 6.1.*-cloud-amd64)
#   BOOT_TIMEOUT=S        per boot (default 240)
#   BENCH_RESULTS=FILE    also append the medians to FILE as table rows (bench/run.sh)
#
# One shell-flavour image, built as tests/e2e.sh builds its own (dracut --no-hostonly
# --compress cat -m 'bash kernel-modules rootfs-block memtrace' --drivers 'virtio_blk
# virtio_pci loop', a private dracut base dir of symlinks holding the memtrace module),
# boots Debian's 6.1 cloud kernel under qemu-system-x86_64 -accel tcg -cpu max -m 512 with
# a busybox root disk, rd.driver.pre=loop and
#   md0   rd.memdebug=0            no memtrace
#   md4   rd.memdebug=4            memtrace (the module's level-4 options) and dracut's own
#                                  /proc/meminfo and slabinfo dumps at every hook
#   mt4   rd.memtrace=4            memtrace alone, without dracut's dumps
# The root disk's init prints the guest's /proc/uptime first thing, then what memtrace left
# (its log's header lines), and powers off. Figures per kind, medians: the host's wall time
# from qemu's start to that line on the serial console (the measure), to qemu's exit, and
# the guest's uptime at that line (shown only: under TCG on a busy host the guest clock
# jumps; seen: 46.6 s of uptime 24.7 s after qemu started). Prints figures and RESULT
# lines; asserts nothing. Needs what tests/e2e.sh needs (it installs them): dracut-core,
# qemu-system-x86, busybox-static, e2fsprogs, linux-image-cloud-amd64; SKIP without.
# The host's tracefs is never touched.
set -u
cd "$(dirname "$0")/.." || exit 1
REPO=$PWD
RUNS=${1:-3}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-240}
P='@@boot@@'

skip() { echo "SKIP: $*"; exit 0; }
[ "$(id -u)" = 0 ] || { echo "boot.sh: needs root (dracut, mke2fs -d, the kernel's files)" >&2; exit 1; }
if [ -z "${KVER:-}" ]; then
	for d in $(printf '%s\n' /lib/modules/6.1.*-cloud-amd64 | sort -V -r); do
		if [ -r "/boot/vmlinuz-${d##*/}" ]; then KVER=${d##*/}; break; fi
	done
fi
if [ -z "${KVER:-}" ] || [ ! -r "/boot/vmlinuz-$KVER" ]; then
	skip "no 6.1.*-cloud-amd64 kernel in /boot (linux-image-cloud-amd64)"
fi
command -v qemu-system-x86_64 > /dev/null || skip "no qemu-system-x86_64 (qemu-system-x86)"
if [ ! -d /usr/lib/dracut/modules.d ] || ! command -v dracut > /dev/null; then
	skip "no dracut (dracut-core)"
fi
if [ ! -x /bin/busybox ] || ldd /bin/busybox > /dev/null 2>&1; then
	skip "no static busybox (busybox-static)"
fi
command -v mke2fs > /dev/null || skip "no mke2fs (e2fsprogs)"
MT_DRACUT=${MEMTRACE_DRACUT:-$REPO/dracut/99memtrace}
[ -r "$MT_DRACUT/module-setup.sh" ] || { echo "boot.sh: no dracut module in $MT_DRACUT" >&2; exit 1; }
# by default what the images take: the boot binary (the full one without musl-gcc)
if [ -z "${MEMTRACE:-}" ] && command -v musl-gcc > /dev/null; then
	make -s -C "$REPO" memtrace-boot || exit 1
	MEMTRACE=$REPO/memtrace-boot
elif [ -z "${MEMTRACE:-}" ]; then
	make -s -C "$REPO" memtrace || exit 1
	MEMTRACE=$REPO/memtrace
fi

W=$(mktemp -d /tmp/memtrace-bootbench.XXXXXX)
QPID=
cleanup() {
	if [ -n "$QPID" ] && kill -0 "$QPID" 2> /dev/null; then
		kill "$QPID" 2> /dev/null	# timeout(1) passes TERM on to qemu
		wait "$QPID" 2> /dev/null
	fi
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the root disk: busybox, and an init that says when it ran, what memtrace left, and stops
R=$W/root
mkdir -p "$R"/{bin,sbin,etc,proc,sys,dev,run,tmp}
cp /bin/busybox "$R/bin/busybox"
for a in $("$R/bin/busybox" --list); do
	[ -e "$R/bin/$a" ] || ln -s busybox "$R/bin/$a"
done
cat > "$R/sbin/init" << EOF
#!/bin/sh
export PATH=/bin:/sbin
[ -e /proc/self ] || mount -t proc proc /proc
read -r up idle < /proc/uptime
[ -c /dev/console ] || mount -t devtmpfs devtmpfs /dev
exec > /dev/console 2>&1
echo "$P INIT \$up"
L=/run/initramfs/mem_debug_log
if [ -r \$L ]; then
	grep -E '^memtrace .* report \\(|^(events processed|lost events|stacks|memtrace itself):' \$L |
		while IFS= read -r l; do echo "$P LOG \$l"; done
	echo "$P CMD \$(tr '\\0' ' ' < /proc/cmdline)"
else
	echo "$P LOG none"
fi
poweroff -f
EOF
chmod 0755 "$R/sbin/init"
ln -s sbin/init "$R/init"
truncate -s 16M "$W/root.ext4"
mke2fs -q -F -t ext4 -L bootbench -d "$R" "$W/root.ext4" || exit 1

# ---- the image, as tests/e2e.sh makes its shell flavour (without its test module)
B=$W/dracutbase
mkdir -p "$B/modules.d" "$W/dracut.conf.d"
for f in /usr/lib/dracut/*; do [ "${f##*/}" = modules.d ] || ln -s "$f" "$B/"; done
for m in /usr/lib/dracut/modules.d/*; do ln -s "$m" "$B/modules.d/"; done
ln -s "$(cd "$MT_DRACUT" && pwd)" "$B/modules.d/99memtrace"
cp "$MEMTRACE" "$W/memtrace"
if ! dracutbasedir=$B MEMTRACE_BIN=$W/memtrace dracut --force --quiet \
	--conf /dev/null --confdir "$W/dracut.conf.d" \
	--no-hostonly --no-hostonly-cmdline --compress cat \
	-m 'bash kernel-modules rootfs-block memtrace' --drivers 'virtio_blk virtio_pci loop' \
	--kver "$KVER" "$W/initrd.img" > "$W/dracut.log" 2>&1; then
	tail -20 "$W/dracut.log" >&2
	echo "boot.sh: dracut failed" >&2
	exit 1
fi
echo "boot.sh: kernel $KVER, memtrace $MEMTRACE ($("$W/memtrace" --version | head -1)), module $MT_DRACUT"
echo "boot.sh: image $(du -k "$W/initrd.img" | cut -f1) KiB; $RUNS boots of each kind, interleaved"

now() { date +%s.%N; }

# boot KIND "ARGS": prints "KIND guest_uptime wall_to_init wall_to_exit"
boot() {
	local kind=$1 args=$2 t0 t_init='' rc up
	cp --sparse=always "$W/root.ext4" "$W/disk"
	: > "$W/serial"
	t0=$(now)
	timeout "$BOOT_TIMEOUT" qemu-system-x86_64 -accel tcg -cpu max -m 512 -smp 1 \
		-nic none -no-reboot -display none -monitor none -serial "file:$W/serial" \
		-kernel "/boot/vmlinuz-$KVER" -initrd "$W/initrd.img" \
		-drive "file=$W/disk,if=virtio,format=raw" \
		-append "console=ttyS0 root=/dev/vda rw panic=-1 rd.shell=0 rd.emergency=poweroff rd.driver.pre=loop $args" \
		< /dev/null > "$W/qemu.log" 2>&1 &
	QPID=$!
	while kill -0 "$QPID" 2> /dev/null; do
		if [ -z "$t_init" ] && grep -q -a "$P INIT" "$W/serial"; then
			t_init=$(now)
		fi
		sleep 0.02
	done
	wait "$QPID"
	rc=$?
	QPID=
	[ -n "$t_init" ] || t_init=$(now)
	up=$(tr -d '\r' < "$W/serial" | sed -n "s/^$P INIT //p" | head -1)
	if [ "$rc" != 0 ] || [ -z "$up" ]; then
		echo "boot.sh: $kind boot failed (qemu exit $rc); console tail:" >&2
		tail -15 "$W/serial" | tr -d '\r' | sed 's/^/  | /' >&2
		return 1
	fi
	tr -d '\r' < "$W/serial" | sed -n "s/^$P LOG /      $kind: /p" > "$W/$kind.log"
	echo "$kind $up $(echo "$t_init $t0 $(now)" | awk '{ printf "%.2f %.2f", $1 - $2, $3 - $2 }')"
}

: > "$W/results"
for i in $(seq "$RUNS"); do
	for k in md0 md4 mt4; do
		case $k in
		md0) a="rd.memdebug=0" ;;
		md4) a="rd.memdebug=4" ;;
		mt4) a="rd.memtrace=4" ;;
		esac
		r=$(boot "$k" "$a") || exit 1
		echo "  run $i: $r"
		echo "$r" >> "$W/results"
		[ "$i" = 1 ] && cat "$W/$k.log"
	done
done

median() {	# median KIND FIELD
	awk -v k="$1" -v f="$2" '$1 == k { print $f }' "$W/results" | sort -n |
		awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
range() {	# range KIND FIELD: min-max
	awk -v k="$1" -v f="$2" '$1 == k { if (n++ == 0 || $f < lo) lo = $f; if ($f > hi) hi = $f }
		END { printf "%.1f-%.1f", lo, hi }' "$W/results"
}
echo
printf '%-6s %-40s %10s %11s %10s %10s\n' kind "kernel command line" "wall s" "(range)" "exit s" "uptime s"
for k in md0 md4 mt4; do
	case $k in
	md0) a="rd.memdebug=0 (no memtrace)" ;;
	md4) a="rd.memdebug=4 (memtrace + dracut dumps)" ;;
	mt4) a="rd.memtrace=4 (memtrace alone)" ;;
	esac
	printf '%-6s %-40s %10.2f %11s %10.2f %10.2f\n' "$k" "$a" "$(median $k 3)" "$(range $k 3)" \
		"$(median $k 4)" "$(median $k 2)"
done
w4=$(echo "$(median md4 3) $(median md0 3)" | awk '{ printf "%.2f", $1 - $2 }')
wm=$(echo "$(median mt4 3) $(median md0 3)" | awk '{ printf "%.2f", $1 - $2 }')
echo "medians of $RUNS: rd.memdebug=4 adds $w4 s to the boot up to the root's init;"
echo "  memtrace alone (rd.memtrace=4) adds $wm s"
for k in md0 md4 mt4; do
	echo "RESULT boot_${k}_wall_s $(median $k 3)"
	echo "RESULT boot_${k}_uptime_s $(median $k 2)"
done
echo "RESULT boot_md4_minus_md0_s $w4"
echo "RESULT boot_mt4_minus_md0_s $wm"
if [ -n "${BENCH_RESULTS:-}" ]; then
	{
		echo "| boot to the root's init (TCG, median of $RUNS): rd.memdebug=0 / =4 / rd.memtrace=4 | $(median md0 3) / $(median md4 3) / $(median mt4 3) s | | |"
		echo "| boot time added: rd.memdebug=4 (memtrace + dracut's dumps) / rd.memtrace=4 (memtrace alone) | +$w4 / +$wm s | | |"
	} >> "$BENCH_RESULTS"
fi
