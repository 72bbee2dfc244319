#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make-pictures.sh - the pictures of the docs, made from recordings in the repository:
# docs/boot-memory.svg, memtrace --svg of a real traced boot (Debian 12's kernel 6.1 in
# QEMU, dracut's initramfs: tests/fixtures/debian-6.1-boot), replayed by the memtrace
# built here. Run from anywhere, after make: docs/make-pictures.sh
set -eu
cd "$(dirname "$0")/.."
./memtrace --replay tests/fixtures/debian-6.1-boot --by process --svg docs/boot-memory.svg \
	> /dev/null
echo "docs/boot-memory.svg"
