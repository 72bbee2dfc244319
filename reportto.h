/* SPDX-License-Identifier: GPL-2.0-only */
/* reportto.h - a report of the run as it is now, on request: to stdout, stderr or memory */
#ifndef MEMTRACE_REPORTTO_H
#define MEMTRACE_REPORTTO_H

#include "logfile.h"
#include "run.h"

#define REPORT_WAIT_MS	1000	/* a report on an fd waits for its reader at most this long */

/*
 * report_catch_up() - the run brought to now, while tracing is live: what is
 * buffered read, names, sizes and loss counters refreshed (enrich_refresh()).
 * Before a report, or anything else that says what the run holds now.
 */
void report_catch_up(struct run *r);

/* Where report_to() writes: an fd (stdout, stderr), or memory when fd is -1. */
struct report_sink {
	int fd;
	struct out_mem *mem;	/* fd -1: appended here (out_init_mem()) */
};

#define REPORT_FD(f)	((struct report_sink){ .fd = (f), .mem = NULL })
#define REPORT_MEM(m)	((struct report_sink){ .fd = -1, .mem = (m) })

/**
 * report_to() - report_write() of the run as it is now, into @sink
 *
 * Does the report-time steps itself, in their order: report_catch_up() while
 * tracing is live (not after the stop, whose drain did it with tracefs still
 * there), then enrich_now() (uptime, memtrace's own RSS). A reader of an fd
 * that does not read may hold the report up for REPORT_WAIT_MS at most, and
 * not at all once it has stalled one (r->stdout_stalled), until it takes one
 * whole again; what it did not take is said on stderr.
 * Return: 0, or the write's -errno (-ETIMEDOUT: the reader did not take it all).
 *
 * Not for the report at an OOM kill, which is of that instant: the buffers
 * are not read past it (loop.c's log-file reports do their steps themselves).
 */
int report_to(struct run *r, struct report_sink sink, const char *trigger);

#endif
