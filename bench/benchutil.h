/* SPDX-License-Identifier: GPL-2.0-only */
/* benchutil.h - what the table benchmarks (bench/series.c, bench/topframe.c) share */
#ifndef MEMTRACE_BENCHUTIL_H
#define MEMTRACE_BENCHUTIL_H

#include <string.h>
#include <time.h>

#include "stats.h"

/* This process's CPU time, in microseconds. */
static inline double bench_cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* A page event of @kind, one page at @pfn, applied to @s as the sink would. */
static inline void bench_page_event(struct stats *s, enum mt_kind kind, uint64_t ts, int32_t tid,
				    uint64_t pfn)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = kind;
	ev.ts = ts;
	ev.tid = tid;
	ev.u.page.pfn = pfn;
	stats_apply(s, &ev);
}

#endif
