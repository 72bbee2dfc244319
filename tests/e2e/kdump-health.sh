# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
# kdump-health.sh - sourced by tests/e2e.sh and tests/e2e-kdump-tools.sh: is a kdump
# capture healthy (issue 38)? A capture is healthy when it wrote a valid vmcore and nothing
# went wrong on the way: not one OOM kill, oom-killer run, page allocation failure, udev
# or dracut timeout, failed unit or partly unpacked initramfs. The crashkernel= a capture
# needs is the smallest in which it is healthy, not the smallest in which it survives.
# The patterns are the capture kernel's console lines as Debian 12's 6.1 kernel,
# systemd(-udevd) 252, dracut 059 and initramfs-tools 0.142 print them.

KD_KILL_RE='Out of memory: Killed process [0-9]+'
KD_OOM_RE=' invoked oom-killer: '
KD_ALLOCFAIL_RE=': page allocation failure: '
KD_PANIC_RE='Kernel panic - not syncing'
# failures: a udev worker slow, killed or dead (systemd-udevd's "Worker [N] ..."), a
# program udev ran timed out, udevadm settle giving up ("Timed out for waiting the udev
# queue being empty.": 120 s), dracut's initqueue or initramfs-tools giving up on the root,
# an initramfs only partly unpacked, a systemd unit failed or timed out (the kdump-tools
# capture runs systemd), makedumpfile failing (kdump-tools then copies /proc/vmcore whole),
# a driver's probe failing for want of memory (virtio_blk: "blk-mq: failed to allocate
# request map", "probe of virtio0 failed with error -12": the disk never shows up)
KD_FAIL_RE='Worker \[[0-9]+\] (processing SEQNUM=[0-9]+ (is taking a long time|killed)|terminated by signal|did not accept message)|Spawned process .* timed out|Timed out for waiting|dracut-initqueue.*timeout|Could not boot|Gave up waiting|Initramfs unpacking failed|Failed to start |Timed out waiting for|Dependency failed for|makedumpfile failed|probe of [^ ]+ failed with error -12|failed to allocate request map'

# kd_bound_hi M: the most a crashkernel= answer may say for a capture whose smallest healthy
# size is M MiB: M + max(8 MiB, 10 % of M) (issue 38's bound)
kd_bound_hi() {
	echo $(($1 + ($1 / 10 > 8 ? $1 / 10 : 8)))
}

# kd_capture_console CONSOLE: the capture kernel's part of a kdump boot's console (from
# its command line with elfcorehdr=, which kexec -p adds)
kd_capture_console() {
	awk '/Command line: .*elfcorehdr=/ { f = 1 } f' "$1"
}

# kd_vmcore_ok VMCORE DMESG: KD_VSZ the dump's size; KD_VOK=1 when it is a kdump-compressed
# dump (header KDUMP) whose log (makedumpfile --dump-dmesg, into DMESG) has the crash
# (sysrq c): what a capture is for
kd_vmcore_ok() {
	KD_VSZ=$(stat -c %s "$1" 2> /dev/null || echo 0)
	KD_VOK=
	[ "$KD_VSZ" -gt 1000000 ] && [ "$(head -c 5 "$1")" = KDUMP ] || return 0
	makedumpfile --dump-dmesg "$1" "$2" > /dev/null 2>&1
	grep -q 'sysrq: Trigger a crash' "$2" 2> /dev/null && KD_VOK=1
	return 0
}

# kd_classify CAPTURE ENDED: the class of the capture whose console is CAPTURE
# (kd_capture_console), KD_VOK/KD_VSZ its dump (kd_vmcore_ok), ENDED non-empty when the
# test or a time limit ended the boot. KD_CLASS, and KD_HEALTH:
#   CLASS kills=N oom=N fails=N allocfail=N vmcore=BYTES memtotal=KB memfree=KB avail=A/B
# CLASS:
#   healthy             a valid vmcore, and not one OOM kill, oom-killer run, failure
#                       (KD_FAIL_RE) or page allocation failure
#   wrote-with-kills    a valid vmcore, but with any of those
#   hung                no valid vmcore, no panic, ended by the test or the time limit
#   failed              no valid vmcore, no panic, the capture kernel ended by itself
#   panicked-unpacking  the capture kernel panicked before /init ran: the initramfs did not
#                       fit ("System is deadlocked on memory", "Initramfs unpacking failed")
#   panicked            it panicked later
#   no-capture          the first kernel never crashed into a capture kernel
# memtotal/memfree: /proc/meminfo before memtrace (the e2e test hook's line, else the
# report's "memory at start"); avail: the capture kernel's own "Memory: A/B available" (kB)
kd_classify() {
	local k=$1 kills oom fl af mt mf av
	kills=$(grep -c -E "$KD_KILL_RE" "$k")
	oom=$(grep -c -E "$KD_OOM_RE" "$k")
	fl=$(grep -c -E "$KD_FAIL_RE" "$k")
	af=$(grep -c -E "$KD_ALLOCFAIL_RE" "$k")
	read -r mt mf < <(sed -n -e 's/.*@@e2e-hook@@ kdump: before memtrace: MemTotal: \([0-9]*\) kB MemFree: \([0-9]*\) kB.*/\1 \2/p' \
		-e 's/^\(@@e2e@@ LOG \)\{0,1\}memory at start: MemTotal \([0-9]*\) kB, MemFree \([0-9]*\) kB.*/\2 \3/p' "$k" | head -1)
	av=$(sed -n 's/.*\] Memory: \([0-9]*\)K\/\([0-9]*\)K available.*/\1\/\2/p' "$k" | head -1)
	if ! [ -s "$k" ]; then
		KD_CLASS=no-capture
	elif grep -q "$KD_PANIC_RE" "$k"; then
		KD_CLASS=$(awk '/Run \/init as init process/ { ran = 1 }
			/Kernel panic - not syncing/ { print ran ? "panicked" : "panicked-unpacking"; exit }' "$k")
	elif [ -n "$KD_VOK" ]; then
		KD_CLASS=healthy
		[ "$kills" = 0 ] && [ "$oom" = 0 ] && [ "$fl" = 0 ] && [ "$af" = 0 ] ||
			KD_CLASS=wrote-with-kills
	elif [ -n "$2" ]; then
		KD_CLASS=hung
	else
		KD_CLASS=failed
	fi
	# shellcheck disable=SC2034  # read by the scripts that source this file
	KD_HEALTH="$KD_CLASS kills=$kills oom=$oom fails=$fl allocfail=$af vmcore=$KD_VSZ memtotal=${mt:-?} memfree=${mf:-?} avail=${av:-?}"
}
