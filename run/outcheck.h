/* SPDX-License-Identifier: GPL-2.0-only */
/* run/outcheck.h - every file a run will write, checked before tracing starts */
#ifndef MEMTRACE_RUN_OUTCHECK_H
#define MEMTRACE_RUN_OUTCHECK_H

#include "core/run.h"

/**
 * outcheck_run() - the run's output paths, each as its writer would take it
 *
 * The log file when the mode's final report goes there (mode_ops.final_to_log:
 * always, or only with -o when the mode says where else it goes without), the
 * --prometheus file, --record's directory and the --pidfile: each checked the
 * way it is written later (logfile_check(), record_check(), and for the pidfile
 * what open_regular() refuses), so that a path where nothing can be written
 * stops memtrace before it traces or runs anything, not at the end with its
 * report lost. Nothing is left behind. (--stream's -o is opened by its mode.)
 * Return: 0, or EXIT_RUNTIME (said on stderr).
 */
int outcheck_run(const struct run *r);

#endif
