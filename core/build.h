/* SPDX-License-Identifier: GPL-2.0-only */
/* core/build.h - what this binary has: the full build, or the boot build for initramfs images */
#ifndef MEMTRACE_CORE_BUILD_H
#define MEMTRACE_CORE_BUILD_H

/*
 * The boot build (make memtrace-boot: -DMEMTRACE_BOOT, static, musl) is what
 * the dracut and initramfs-tools images run, where every KiB of the image and
 * of memory is taken from the boot it measures: the daemon (--daemon,
 * --pidfile, --kmsg, --json, --boot-buffer, --switch-root, --crashkernel), a
 * COMMAND, --record and --replay, --stacks. It leaves out what no image runs:
 * --top, --stream, --diff, --exits, --svg and --prometheus. Their files are
 * not linked (the Makefile's BOOT_LEFT_OUT) and their options are refused,
 * naming the full binary (core/options.c: full_only[]).
 *
 * BUILD_FULL is the one switch the code tests, a constant: in the boot build
 * the calls it guards are compiled out, so that nothing needs a file that is
 * not linked. The guards are in mode_of() (memtrace.c), the options
 * (core/options.c), --svg's picture (run/loop.c), --prometheus' file
 * (modes/daemon.c) and a replay's files mapped rather than read
 * (modes/replay.c: its speed at many CPUs is not what an image needs), and
 * open_beneath()'s one openat2() (lib/util.c, below this header: it reads
 * MEMTRACE_BOOT itself).
 */
#ifdef MEMTRACE_BOOT
#define BUILD_FULL	0
#define BUILD_NAME	"memtrace-boot"
#else
#define BUILD_FULL	1
#define BUILD_NAME	"memtrace"
#endif

#endif
