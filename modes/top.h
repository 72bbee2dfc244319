/* SPDX-License-Identifier: GPL-2.0-only */
/* modes/top.h - --top: the live view of who holds memory and who peaked, in a terminal or as frames */
#ifndef MEMTRACE_MODES_TOP_H
#define MEMTRACE_MODES_TOP_H

#include "core/run.h"
#include "ui/view.h"

extern const struct mode_ops top_ops;

/**
 * top_set_stacks() - what Enter/space shows: a row's top stacks
 *
 * With --stacks (stackreport_row_lines()): without a provider the view says
 * "no stacks: run with --stacks". Call it from the mode's start, once the
 * view exists (r->top); @fn NULL takes the provider away.
 */
void top_set_stacks(struct run *r, view_stacks_fn fn, void *ctx);

#endif
