#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# kdump-bisect.sh - the smallest healthy crashkernel= of the e2e's real kdumps, measured
# (make kdump-bisect, issue 38): tests/e2e.sh builds its images and, in place of its
# boots, bisects crashkernel= in steps of 4 MiB with 2 boots per size for each capture:
#   dracut  the kdump boot's capture (a lean gzip dracut initrd, makedumpfile onto a disk)
#   itools  kdump-tools' way (an mkinitramfs capture initrd, the dump taken after switch_root)
#   heavy   the dracut capture with 16 MiB more in its initrd and 16 MiB of anonymous
#           memory held from memtrace's start until the dump is written
# Every boot is classified (healthy, wrote-with-kills, hung, failed, panicked-unpacking,
# panicked: tests/e2e.sh kdump_health) and kept; the figures (a table per capture, M, and
# kdumpctl estimate's formula for the same capture) go to build/kdump-bisect/figures.md,
# which docs/boot.md quotes. Takes 30-90 min (each size: 2 boots side by side, 1-2 min; a
# capture that hangs after an OOM kill is ended 240 s after it).
#
# Usage (root):  tests/kdump-bisect.sh [KIND...]     (default: dracut itools heavy)
# Environment: E2E_BISECT_BOOTS=N (boots per size), E2E_BISECT_START_<KIND>=MiB,
#   E2E_BISECT_SIZES_<KIND>="MiB ..." (only those sizes), E2E_BISECT_OUT=FILE,
#   E2E_BISECT_KEEP=DIR, E2E_KDUMP_AFTER_KILL=S, and those of tests/e2e.sh (KVER,
#   MEMTRACE, KEEP_WORK, E2E_JOBS, E2E_BOOT_TIMEOUT).
set -u
cd "$(dirname "$0")/.." || exit 1
kinds=${*:-dracut itools heavy}
E2E_BISECT=${kinds// /,} exec ./tests/e2e.sh
