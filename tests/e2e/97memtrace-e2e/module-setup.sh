#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Test-only dracut module of tests/e2e.sh: with e2e.killmt on the kernel command
# line, kill memtrace with SIGKILL in pre-pivot hook 50, before memtrace's own
# stop hook (99), to prove that the stop hook cleans up after a dead memtrace.
# e2e.zram: 16 MiB into zram at pre-pivot 30; e2e.capture: a kdump-like capture
# step at pre-pivot 9999 that ends the boot without switch_root; in a kdump kernel
# the same hook is the capture step (makedumpfile: installed with MEMTRACE_E2E_KDUMP=1),
# and cmdline hook 01 the heavy capture's hold (hold.sh).
# In the systemd flavour, with MEMTRACE_E2E_UNIT naming a generated copy of the
# running-system unit: install it as memtrace-watch.service, and pre-pivot hook 40
# drives it when e2e.unit is on the kernel command line.
check() { return 255; }
depends() { return 0; }
installkernel() {
    # e2e.zram: loaded by rd.driver.pre=zram (with zsmalloc); its default
    # compressor (crypto lzo-rle) is asked for by the kernel when a disk size is set
    instmods zram lzo-rle
}
install() {
    inst_hook pre-pivot 50 "$moddir/kill-memtrace.sh"
    # e2e.zram and e2e.capture (see the hooks)
    inst_multiple -o dd wc reboot modprobe
    inst_hook pre-pivot 30 "$moddir/zram.sh"
    inst_hook pre-pivot 9999 "$moddir/capture.sh"
    if [ -n "${MEMTRACE_E2E_KDUMP:-}" ]; then
        inst_multiple makedumpfile stat grep tr mkdir cp sync umount
        inst_hook cmdline 00 "$moddir/meminfo.sh"
        # the heavy capture's hold (only with /etc/e2e-heavy, which tests/e2e.sh appends) and
        # the kdump-oom capture's hog (only with e2e.oomhog on its command line)
        inst_hook cmdline 01 "$moddir/hold.sh"
    fi
    if [ -n "${MEMTRACE_E2E_UNIT:-}" ] && dracut_module_included systemd; then
        inst_simple "$MEMTRACE_E2E_UNIT" "$systemdsystemunitdir/memtrace-watch.service"
        inst_multiple -o journalctl stat head
        inst_hook pre-pivot 40 "$moddir/unit-test.sh"
    fi
}
