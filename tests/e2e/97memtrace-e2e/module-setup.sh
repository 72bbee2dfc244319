#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Test-only dracut module of tests/e2e.sh: with e2e.killmt on the kernel command
# line, kill memtrace with SIGKILL in pre-pivot hook 50, before memtrace's own
# stop hook (99), to prove that the stop hook cleans up after a dead memtrace.
check() { return 255; }
depends() { return 0; }
install() {
    inst_hook pre-pivot 50 "$moddir/kill-memtrace.sh"
}
