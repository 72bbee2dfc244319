/* SPDX-License-Identifier: GPL-2.0-only */
/* exits.h - the --exits monitor: a line on stdout per exiting process, until TERM/INT */
#ifndef MEMTRACE_EXITS_H
#define MEMTRACE_EXITS_H

#include "run.h"

extern const struct mode_ops exits_ops;

#endif
