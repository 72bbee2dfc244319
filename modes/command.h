/* SPDX-License-Identifier: GPL-2.0-only */
/* modes/command.h - command mode: run COMMAND once tracing is live, follow its tree, report its peak */
#ifndef MEMTRACE_MODES_COMMAND_H
#define MEMTRACE_MODES_COMMAND_H

#include "core/run.h"

extern const struct mode_ops command_ops;

#endif
