/* SPDX-License-Identifier: GPL-2.0-only */
/* modes/daemon.h - the daemon mode (the default): trace until TERM/INT, reports on signals */
#ifndef MEMTRACE_MODES_DAEMON_H
#define MEMTRACE_MODES_DAEMON_H

#include "core/run.h"

extern const struct mode_ops daemon_ops;

#endif
