/* SPDX-License-Identifier: GPL-2.0-only */
/* daemon.h - --daemon: fork, and the parent returns only once tracing is live; --pidfile */
#ifndef MEMTRACE_RUN_DAEMONIZE_H
#define MEMTRACE_RUN_DAEMONIZE_H

#include "core/run.h"

#define READY_TIMEOUT_MS	30000	/* --daemon: the parent gives up after this */

/**
 * daemonize_fork() - fork; the child goes on with the run, detached
 *
 * The parent waits for the child's daemonize_ready() (its exit code: 0 once
 * tracing is live), and gives up after READY_TIMEOUT_MS (it tells the child to
 * stop): a boot that waits for memtrace is never held up for long.
 * Return: -1 in the child; in the parent, the exit status to return.
 */
int daemonize_fork(struct run *r);

/*
 * Child, tracing live, just before daemonize_ready(r, 0): let go of the caller's
 * stdout and stderr, so that `x=$(memtrace --daemon)`, a pipe or ssh returns:
 * a pipe, socket or terminal becomes /dev/null (stderr /dev/kmsg with --kmsg);
 * a regular file and the journal (JOURNAL_STREAM) are kept. What is let go is
 * in r->stdout_let_go, r->stderr_let_go: report_to() sends reports meant for
 * them to the log file. @keep_stdout: the mode's output is stdout (--stream
 * without -o). Nothing without --daemon.
 */
void daemonize_detach(struct run *r, bool keep_stdout);

/* Child: tell the waiting parent @code (0: tracing is live). Once; nothing without --daemon. */
void daemonize_ready(struct run *r, int code);

/* --pidfile: write our pid (never through a symlink); 0 or an exit code. */
int pidfile_write(struct run *r);

/*
 * --pidfile at the end: removed only if it is still the regular file we made
 * (same device and inode) and holds our pid.
 */
void pidfile_remove(struct run *r);

#endif
