/* SPDX-License-Identifier: GPL-2.0-only */
/* interval.h - the daemon's outputs every --interval: the Prometheus textfile, reports as JSON lines */
#ifndef MEMTRACE_INTERVAL_H
#define MEMTRACE_INTERVAL_H

#include "run.h"

/**
 * interval_start() - once tracing is live: the first interval begins now
 *
 * With --prometheus, the file is written at once, so that a stale one of an
 * earlier run is replaced and a path that cannot be written is an error now
 * (said, and EXIT_RUNTIME or EXIT_PRIV returned), not a warning later.
 * Return: 0 or an exit code. Nothing to do without --interval/--prometheus.
 */
int interval_start(struct run *r);

/* The loop's next_ms hook: ms until the next interval ends; -1 without intervals. */
long interval_next_ms(struct run *r);

/*
 * The loop's check hook: when an interval has ended, read what is buffered,
 * then rewrite the --prometheus file and (-f json) append a report with
 * trigger "interval" to the log file. Intervals missed (a long stall) are
 * skipped, not caught up. A write that fails is said once (and again when
 * it works again); tracing goes on.
 */
enum loop_next interval_check(struct run *r);

/* After the final drain: the --prometheus file with the final numbers. */
void interval_final(struct run *r);

#endif
