/* SPDX-License-Identifier: GPL-2.0-only */
/* modes/stream.h - --stream: the memory events of the processes picked, as JSON lines */
#ifndef MEMTRACE_MODES_STREAM_H
#define MEMTRACE_MODES_STREAM_H

#include "core/cond.h"
#include "core/run.h"

#include <stdint.h>

extern const struct mode_ops stream_ops;

/*
 * kfilter_set() - only tasks that can be picked make events the kernel keeps:
 * the process.name terms of @c become a comm filter on the storm events; the
 * @nroots processes @roots (process.pid terms, or the command's tree) the
 * instance's pid list, with their threads (children follow at fork). The rest
 * is decided once per task, by the stream. Nothing at the top level (not ours
 * to change): said.
 */
void kfilter_set(struct run *r, const struct cond *c, const int32_t *roots, int nroots);

#endif
