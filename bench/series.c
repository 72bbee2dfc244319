// SPDX-License-Identifier: GPL-2.0-only
/*
 * series.c - the CPU cost of one --svg sample with a full task table, and of the check
 * every event pays.
 *
 * usage: series [TASKS [SAMPLES]]   (default 16384 tasks, 2000 samples)
 *
 * Fills a task table with TASKS single-thread processes holding 1 to 64 pages (from page
 * events) and 64 modules, then takes SAMPLES samples (the scan of the task and module
 * tables and the top-24 selection, series_take() and series_add() with its halvings),
 * a few page events between them. Prints the CPU time per sample, "RESULT
 * svg_sample_us X", and per event of series_due() (the per-event check). No root, no
 * tracing: only the series' code on the tables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/benchutil.h"
#include "model/series.h"
#include "stats.h"

int main(int argc, char **argv)
{
	uint32_t tasks = argc > 1 ? (uint32_t)atoi(argv[1]) : 16384;
	uint32_t samples = argc > 2 ? (uint32_t)atoi(argv[2]) : 2000, i, k;
	struct stats_config cfg = { .max_tasks = tasks + 16, .max_modules = 64,
				    .max_pfn = (uint64_t)tasks * 64 + 4096 };
	struct stats st;
	struct series se;
	struct series_sample x;
	uint64_t ts = 1000, pfn = 0, due = 0;
	double t0, t1;
	struct mt_event ev = { .kind = EV_PAGE_ALLOC };

	if (stats_init(&st, &cfg) || series_init(&se, SERIES_LIVE_CAP, SERIES_MARKS)) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	for (i = 0; i < tasks; i++)
		for (k = 0; k < 1 + i % 64; k++)
			bench_page_event(&st, EV_PAGE_ALLOC, ts++, (int32_t)(1000 + i), pfn++);
	t0 = bench_cpu_us();
	for (i = 0; i < samples; i++) {
		for (k = 0; k < 8; k++)	/* a machine that is not idle */
			bench_page_event(&st, EV_PAGE_ALLOC, ts++, (int32_t)(1000 + (i * 8 + k) % tasks), pfn++);
		series_take(&x, &st, ts);
		series_add(&se, &x);
	}
	t1 = bench_cpu_us();
	printf("%u tasks: %.1f us per sample (%u samples, %u halvings, %zu bytes)\n", tasks,
	       (t1 - t0) / samples, samples, se.halvings, se.bytes);
	printf("RESULT svg_sample_us %.1f\n", (t1 - t0) / samples);
	se.next_ts = UINT64_MAX;
	t0 = bench_cpu_us();
	for (i = 0; i < 100000000u; i++) {
		ev.ts = i;
		due += series_due(&se, &ev);
	}
	t1 = bench_cpu_us();
	printf("series_due(): %.2f ns per event (%llu due)\n", (t1 - t0) * 1e3 / 1e8,
	       (unsigned long long)due);
	series_free(&se);
	stats_free(&st);
	return 0;
}
