#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# cmdline hook 00 (shell flavour): start memtrace when rd.memdebug/rd.memtrace ask
# for it. Sourced by /init: no exit, prefixed variables. Returns once tracing is live.
/usr/sbin/memtrace-dracut start
