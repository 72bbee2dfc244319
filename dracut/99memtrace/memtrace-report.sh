#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pre-pivot hook 99 (both flavours): stop memtrace (final report), show the
# report, make sure nothing of memtrace is left for switch_root. Before a
# capture step (kdump) that ends the boot instead: the report so far only.
# Sourced: no exit.
/usr/sbin/memtrace-dracut pre-pivot
