#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pre-pivot hook 30 (tests only; sourced): with e2e.zram, write 16 MiB of random
# (incompressible) data into /dev/zram0, long after zram was loaded (rd.driver.pre):
# zram and zsmalloc take about 4096 pages in their own code, outside any load bracket.
case " $(cat /proc/cmdline) " in
*" e2e.zram "*)
    modprobe zram num_devices=1 2> /dev/null
    if echo 64M > /sys/block/zram0/disksize &&
        dd if=/dev/urandom of=/dev/zram0 bs=1M count=16 conv=fsync 2> /dev/null; then
        echo "@@e2e-hook@@ zram: 16 MiB written, mm_stat $(cat /sys/block/zram0/mm_stat)" > /dev/console
    else
        echo "@@e2e-hook@@ zram: write failed" > /dev/console
    fi
    ;;
esac
