#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# cmdline hook 01 (tests only; sourced), after memtrace's 00: in a kdump kernel whose
# initrd has /etc/e2e-heavy (tests/e2e.sh's heavy capture appends it, with a 16 MiB blob),
# hold that many MiB of anonymous memory from here until the dump is written (capture.sh
# ends the holder after makedumpfile). The holder is never the OOM killer's choice
# (oom_score_adj -1000): the capture's other processes have that much less, as if the
# reservation were smaller by it, so the smallest healthy crashkernel= moves by a known
# amount (the blob, which stays in the unpacked initramfs, and the hold).
if [ -e /proc/vmcore ] && [ -r /etc/e2e-heavy ] && read -r e2e_mib < /etc/e2e-heavy; then
    rm -f /run/e2e-hold.ready
    (echo -1000 > /proc/self/oom_score_adj && exec /usr/bin/e2e-hold "$e2e_mib" 86400000 /run/e2e-hold.ready) &
    echo $! > /run/e2e-hold.pid
    e2e_n=0
    while [ ! -e /run/e2e-hold.ready ] && [ "$e2e_n" -lt 600 ]; do
        sleep 0.1
        e2e_n=$((e2e_n + 1))
    done
    if [ -e /run/e2e-hold.ready ]; then e2e_n=yes; else e2e_n=no; fi
    echo "@@e2e-hook@@ kdump: holding $e2e_mib MiB, pid $(cat /run/e2e-hold.pid), touched: $e2e_n" > /dev/console
    unset e2e_mib e2e_n
fi
