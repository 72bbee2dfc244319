/* SPDX-License-Identifier: GPL-2.0-only */
/* run/loop.h - the lifecycle every mode goes through: the poll loop, stop and drain, reports, cleanup */
#ifndef MEMTRACE_RUN_LOOP_H
#define MEMTRACE_RUN_LOOP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/run.h"

/**
 * run_lifecycle() - prepare, setup, start, loop, stop and drain, finish
 *
 * The hooks of r->ops fill in what a mode does differently. Nothing is torn
 * down here on an error: main() calls run_cleanup() on every path.
 * Return: the exit status.
 */
int run_lifecycle(struct run *r);

/* main's single cleanup path: tracefs as found, pidfile removed, memory freed. */
void run_cleanup(struct run *r);

/*
 * run_cleanup() where the process exits next (main(), --diff's replay): a
 * replay's mapped files are left to the exit (reader_leave_maps()).
 */
void run_cleanup_exit(struct run *r);

/*
 * The final report: to the log file (unless @to_log is false), or to stderr if
 * that cannot be written (report_final()); its summary to kmsg with --kmsg.
 * Return: 0, or EXIT_RUNTIME when the log file could not be written.
 */
int run_report_final(struct run *r, bool to_log);

#endif
