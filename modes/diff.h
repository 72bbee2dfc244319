/* SPDX-License-Identifier: GPL-2.0-only */
/* diffmode.h - --diff OLD NEW: the mode (its inputs read, replayed; the output; the gate) */
#ifndef MEMTRACE_MODES_DIFF_H
#define MEMTRACE_MODES_DIFF_H

#include "core/run.h"

#define EXIT_GREW	3	/* --fail-over: something grew by more than the threshold */

extern const struct mode_ops diff_ops;

#endif
