/* SPDX-License-Identifier: GPL-2.0-only */
/* modes/exits.h - the --exits monitor: a line on stdout per exiting process, until TERM/INT */
#ifndef MEMTRACE_MODES_EXITS_H
#define MEMTRACE_MODES_EXITS_H

#include "core/run.h"

extern const struct mode_ops exits_ops;

#endif
