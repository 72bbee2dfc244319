/* SPDX-License-Identifier: GPL-2.0-only */
/* kfilter.h - --stream's kernel-side filters: a comm filter on the storm events, the pid list */
#ifndef MEMTRACE_KFILTER_H
#define MEMTRACE_KFILTER_H

#include <stdint.h>

#include "cond.h"
#include "run.h"

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
