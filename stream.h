/* SPDX-License-Identifier: GPL-2.0-only */
/* stream.h - --stream: the memory events of the processes picked, as JSON lines */
#ifndef MEMTRACE_STREAM_H
#define MEMTRACE_STREAM_H

#include "run.h"

extern const struct mode_ops stream_ops;

#endif
