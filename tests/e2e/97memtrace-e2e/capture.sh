#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pre-pivot hook 9999 (tests only; sourced), after memtrace's 99, where kdump's own
# capture step sits (Fedora's kdump.sh; Debian's dracut has no kdump module).
#
# In a kdump kernel (/proc/vmcore: a real panic, kexec -p): kdump's capture step:
# makedumpfile -l -d 31 writes the vmcore to the root disk (/sysroot, mounted rw by
# dracut) in /var/crash, then kdump.conf's kdump_post (memtrace-dracut stop: the
# final report on the console), the report copied next to the dump, reboot -f.
#
# With e2e.capture (no kdump kernel): a kdump-like capture step writes a 24 MiB
# "vmcore" to /run and ends the boot the way kdump does, without switch_root:
# systemd flavour `systemctl reboot -f` (kdump-utils' final action), shell flavour
# kdump_post, then reboot -f.
if [ -e /proc/vmcore ]; then
    echo "@@e2e-hook@@ kdump: capture start, /proc/vmcore $(stat -c %s /proc/vmcore) bytes" > /dev/console
    mkdir -p /sysroot/var/crash
    # --message-level 6: common and error messages, no progress lines with \r
    makedumpfile --message-level 6 -l -d 31 /proc/vmcore /sysroot/var/crash/vmcore > /dev/console 2>&1
    kd_rc=$?
    echo "$kd_rc" > /sysroot/var/crash/makedumpfile.rc
    # the heavy capture's hold (hold.sh) ends with the dump
    if read -r kd_hold 2> /dev/null < /run/e2e-hold.pid; then
        kill "$kd_hold"
        wait "$kd_hold" 2> /dev/null
        echo "@@e2e-hook@@ kdump: hold of pid $kd_hold released after makedumpfile" > /dev/console
    fi
    echo "@@e2e-hook@@ kdump: makedumpfile rc=$kd_rc, vmcore $(stat -c %s /sysroot/var/crash/vmcore 2> /dev/null) bytes;" \
        "$(grep -E '^(MemTotal|MemFree):' /proc/meminfo | tr -s ' ' | tr '\n' ' ')" > /dev/console
    /usr/sbin/memtrace-dracut stop
    cp /run/initramfs/mem_debug_log /sysroot/var/crash/memtrace.report
    sync
    umount /sysroot
    echo "@@e2e-hook@@ kdump: capture done, rebooting" > /dev/console
    reboot -f
    while :; do sleep 1; done
fi
case " $(cat /proc/cmdline) " in
*" e2e.capture "*)
    dd if=/dev/zero of=/run/vmcore bs=1M count=24 2> /dev/null
    echo "@@e2e-hook@@ capture: vmcore written, $(wc -c < /run/vmcore) bytes" > /dev/console
    if [ -d /run/systemd/system ]; then
        systemctl reboot -f
    else
        /usr/sbin/memtrace-dracut stop
        reboot -f
    fi
    # the end of this boot
    while :; do sleep 1; done
    ;;
esac
