/* SPDX-License-Identifier: GPL-2.0-only */
/* modes/stream.h - --stream: the memory events of the processes picked, as JSON lines */
#ifndef MEMTRACE_MODES_STREAM_H
#define MEMTRACE_MODES_STREAM_H

#include "core/cond.h"
#include "core/run.h"

#include <stdint.h>

extern const struct mode_ops stream_ops;

#endif
