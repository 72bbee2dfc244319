/* SPDX-License-Identifier: GPL-2.0-only */
/* run/oom.h - an OOM kill: the report kept as LOG.oom.N, the console summary and its rate limit */
#ifndef MEMTRACE_RUN_OOM_H
#define MEMTRACE_RUN_OOM_H

struct run;

/*
 * oom_report() - a mode's on_oom (struct mode_ops): an oom:mark_victim was
 * applied. A report with trigger "oom" kept as LOG.oom.N (--keep-oom) and
 * written to the log file, and a few lines on the console (/dev/kmsg), at
 * most one summary per 10 s. Its state is r->oom.
 */
void oom_report(struct run *r);

#endif
