#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# cmdline hook 00 (tests only; sourced), before memtrace's own 00 (00-meminfo.sh sorts
# before 00-memtrace-start.sh): in a kdump kernel, the capture's memory before memtrace
# starts, for the crashkernel= sizing figures of docs/boot.md (tests/e2e.sh's kdump boots)
if [ -e /proc/vmcore ]; then
    echo "@@e2e-hook@@ kdump: before memtrace: $(grep -E '^(MemTotal|MemFree|MemAvailable|Shmem):' /proc/meminfo | tr -s ' ' | tr '\n' ' ')" > /dev/console
fi
