/* SPDX-License-Identifier: GPL-2.0-only */
/* run/child.h - the COMMAND a run starts once tracing is live (command mode, --stream -- COMMAND) */
#ifndef MEMTRACE_RUN_CHILD_H
#define MEMTRACE_RUN_CHILD_H

#include <stdbool.h>

#include "core/run.h"

/*
 * child_spawn() forks the child, which waits; child_go() lets it exec (and
 * says if it could not); child_reap() reaps what exited and says when the
 * tree is done; child_exit_code() is the status to exit with: the command's,
 * 127 if it could not be run, 128+N if it was left running after signal N.
 */
int child_spawn(struct run *r);
int child_go(struct run *r);
bool child_reap(struct run *r);
int child_exit_code(const struct run *r);

/*
 * child_signal() - what a signal does to a running command whatever the mode: with
 * SIGACT_FORWARD it is sent on to the command, with SIGACT_STOP_WAITING memtrace stops
 * waiting for it (r->stop). Return: true if @action was one of those (done).
 */
struct signalfd_siginfo;
bool child_signal(struct run *r, int action, const struct signalfd_siginfo *si);

#endif
