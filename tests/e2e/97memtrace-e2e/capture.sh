#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pre-pivot hook 9999 (tests only; sourced), after memtrace's 99, where kdump's own
# capture step sits: with e2e.capture, a kdump-like capture step writes a 24 MiB
# "vmcore" to /run and ends the boot the way kdump does, without switch_root:
# systemd flavour `systemctl reboot -f` (kdump-utils' final action), shell flavour
# kdump.conf's kdump_post (memtrace-dracut stop), then reboot -f.
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
