/* SPDX-License-Identifier: GPL-2.0-only */
/* modes/replay.h - --replay DIR: the report of a recording, as the live run would have made it */
#ifndef MEMTRACE_MODES_REPLAY_H
#define MEMTRACE_MODES_REPLAY_H

#include "core/run.h"

extern const struct mode_ops replay_ops;

#endif
