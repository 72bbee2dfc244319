/* SPDX-License-Identifier: GPL-2.0-only */
/* modes/top.h - --top: the live view of who holds memory and who peaked, in a terminal or as frames */
#ifndef MEMTRACE_MODES_TOP_H
#define MEMTRACE_MODES_TOP_H

#include "core/run.h"
#include "ui/view.h"

extern const struct mode_ops top_ops;

#endif
