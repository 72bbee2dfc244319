/* SPDX-License-Identifier: GPL-2.0-only */
/* run/switchroot.h - --switch-root: tracing goes on after an initramfs switched to the root */
#ifndef MEMTRACE_RUN_SWITCHROOT_H
#define MEMTRACE_RUN_SWITCHROOT_H

#include "core/run.h"

/*
 * A kdump-tools capture takes its dump after the initramfs switched to the
 * real root (initramfs-tools' run-init: /dev, /run, /sys and /proc moved
 * into the root mounted at --switch-root's DIR, that mount moved onto /, the
 * old root emptied). A process left in the old root sees none of them: no
 * log file, no tracefs, no /proc. At SIGHUP (init-bottom, with the root
 * mounted at DIR and nothing moved yet) memtrace holds DIR open; once /proc is
 * there (the last of the moves), it makes DIR its root and goes on, so that
 * its reports, the cleanup of tracefs and the capture's dump step are all its.
 */

/* SIGHUP: hold the root mounted at --switch-root's DIR (said; refused if nothing is mounted there). */
void switchroot_arm(struct run *r);

/* Each round after that: once DIR has /proc, DIR becomes memtrace's root (said). */
void switchroot_poll(struct run *r);

#endif
