/* SPDX-License-Identifier: GPL-2.0-only */
/* modes/command.h - command mode: run COMMAND once tracing is live, follow its tree, report its peak */
#ifndef MEMTRACE_MODES_COMMAND_H
#define MEMTRACE_MODES_COMMAND_H

#include "core/run.h"

extern const struct mode_ops command_ops;

/*
 * The parts of command mode another mode runs a command with (--stream --
 * COMMAND): command_spawn() forks the child, which waits; command_go() lets
 * it exec (and says if it could not); command_reap() reaps what exited and
 * says when the tree is done; command_exit_code() is the status to exit with.
 */
int command_spawn(struct run *r);
int command_go(struct run *r);
bool command_reap(struct run *r);
int command_exit_code(const struct run *r);

/*
 * command_signal() - what a signal does to a running command whatever the mode: with
 * SIGACT_FORWARD it is sent on to the command, with SIGACT_STOP_WAITING memtrace stops
 * waiting for it (r->stop). Return: true if @action was one of those (done).
 */
struct signalfd_siginfo;
bool command_signal(struct run *r, int action, const struct signalfd_siginfo *si);

#endif
