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
# e2e.oomhog on a kdump kernel's command line (tests/e2e.sh's kdump-oom capture): right
# here, after memtrace's start, a dd whose one block is 48 MiB: below MemTotal (about 70
# MiB at 110M; 256 MiB was refused by the overcommit heuristic, dd rc 1), above what is
# free (about 17): its buffer fills as it reads /dev/zero until the OOM killer ends it
# (the largest task; its memory comes back). A capture that has to run out of memory for certain: at its
# size alone it mostly ran out in udev, not always, and a smaller one panics unpacking.
case " $(cat /proc/cmdline) " in
*" e2e.oomhog "*)
    if [ -e /proc/vmcore ]; then
        echo "@@e2e-hook@@ kdump: oom hog: dd bs=48M" > /dev/console
        dd if=/dev/zero of=/dev/null bs=48M count=1 2> /dev/null
        echo "@@e2e-hook@@ kdump: oom hog ended rc=$?" > /dev/console
    fi
    ;;
esac
