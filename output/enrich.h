/* SPDX-License-Identifier: GPL-2.0-only */
/* output/enrich.h - report-time facts from /proc and /sys: names, ids, module sizes, loss counters, own RSS */
#ifndef MEMTRACE_OUTPUT_ENRICH_H
#define MEMTRACE_OUTPUT_ENRICH_H

#include "core/run.h"

/* Just before tracing begins: every module loaded now gets an entry in state "before". */
void enrich_modules_before(struct run *r);

/*
 * Before a report of a live run: per-CPU loss counters from tracefs, the names
 * and ids of tasks seen only by pid, every module /proc/modules lists (those
 * without an entry go to the report's untraced list), module static sizes.
 * Nothing for a replay (the recording has them).
 */
void enrich_refresh(struct run *r);

/*
 * --stacks: the modules' code as /proc/modules says now, for the stacks from
 * @ts on (0: since the start). Where kptr_restrict hides the addresses, say
 * so once: modules are then attributed by their load brackets only.
 */
void enrich_module_ranges(struct run *r, uint64_t ts);

/* At each report: uptime, and memtrace's own RSS (live) or the recording's uptime. */
void enrich_now(struct run *r);

#endif
