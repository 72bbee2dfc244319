// SPDX-License-Identifier: GPL-2.0-only
/*
 * topframe.c - the CPU cost of one frame of memtrace --top with a full task table.
 *
 * usage: topframe [TASKS [FRAMES]]   (default 16384 tasks, 200 frames)
 *
 * Fills a task table with TASKS tasks holding pages (processes of 1 to 4 threads, seeded
 * as at start, the threads' pages from page events), then for
 * each view and order builds and draws FRAMES frames of an 80x24 terminal (the rows
 * from the table, sorted, the frame into its buffer), with a few hundred page events
 * and a few exits between frames, as a busy machine has. Prints the CPU time per frame
 * (CLOCK_PROCESS_CPUTIME_ID) of each, the largest as "RESULT top_frame_ms X". Root is
 * not needed: no tracing, only the view's code on the tables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/benchutil.h"
#include "ui/frame.h"
#include "stats.h"
#include "ui/term.h"
#include "ui/view.h"

static void exit_event(struct stats *s, uint64_t ts, int32_t tid)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_EXIT;
	ev.ts = ts;
	ev.tid = tid;
	ev.u.exit.pid = tid;
	ev.u.exit.group_dead = 1;
	stats_apply(s, &ev);
}

int main(int argc, char **argv)
{
	static const char *const views[] = { "tasks", "processes" };
	uint32_t ntasks = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 16384;
	int frames = argc > 2 ? atoi(argv[2]) : 200, f, k, s;
	struct stats_config sc = { 0 };
	struct view_config vc = { 0 };
	struct view_facts facts = { 0 };
	struct stats st;
	struct view v;
	uint64_t ts = 1000000000ull, pfn = 1;
	double worst = 0;
	uint32_t i;

	if (!ntasks || frames < 1) {
		fprintf(stderr, "usage: topframe [TASKS [FRAMES]]\n");
		return 2;
	}
	sc.max_tasks = ntasks + SLOT_FIRST;
	sc.max_modules = 1024;
	sc.max_pfn = 1ull << 24;
	vc.max_tasks = sc.max_tasks;
	vc.max_modules = sc.max_modules;
	vc.page_size = 4096;
	vc.ansi = vc.colour = true;
	vc.age_ns = 10000000000ull;
	if (stats_init(&st, &sc) || view_init(&v, &vc)) {
		fprintf(stderr, "topframe: out of memory\n");
		return 1;
	}
	view_resize(&v, 24, 80);
	/* processes of 1 to 4 threads, names of varied lengths */
	for (i = 0; i < ntasks; i++) {
		char comm[16];
		int32_t tid = 1000 + (int32_t)i, tgid = tid - (int32_t)(i % 4);

		snprintf(comm, sizeof(comm), "task%u", (i * 2654435761u) % 100000);
		if (!stats_seed_task(&st, tid, tgid, 1, comm, strlen(comm), i % 4 ? 0 :
				     (i * 7919u) % 50000, 0, false)) {
			fprintf(stderr, "topframe: table full at %u\n", i);
			return 1;
		}
	}
	stats_link_threads(&st);
	/* every thread holds a few pages too: every task is a row of the task view */
	for (i = 0; i < ntasks; i++) {
		uint32_t n;

		for (n = 0; i % 4 && n <= i % 5; n++)
			bench_page_event(&st, EV_PAGE_ALLOC, ts, 1000 + (int32_t)i, pfn++);
	}
	printf("topframe: %u tasks, %d frames per case, 80x24\n", ntasks, frames);
	printf("%-10s %-18s %10s\n", "view", "order", "ms/frame");
	for (k = 0; k < 2; k++) {
		v.kind = k ? VIEW_PROCS : VIEW_TASKS;
		for (s = 0; s < SORT__N; s++) {
			double t0, ms;

			v.sort[v.kind] = (enum view_sort)s;
			t0 = (bench_cpu_us() / 1e3);
			for (f = 0; f < frames; f++) {
				/* what a busy machine does between frames: pages, a few exits */
				for (i = 0; i < 300; i++)
					bench_page_event(&st, EV_PAGE_ALLOC, ts, 1000 + (int32_t)((pfn * 37) % ntasks),
						   pfn), pfn++;
				exit_event(&st, ts, 1000 + (int32_t)((ts / 1000) % ntasks));
				ts += 200000000ull;
				facts.uptime_s = (double)ts / 1e9;
				view_build(&v, &st, ts, true);
				frame_render(&v, &st, &facts);
			}
			ms = ((bench_cpu_us() / 1e3) - t0) / frames;
			/* take the events' own cost out: the same loop without the frame */
			t0 = (bench_cpu_us() / 1e3);
			for (f = 0; f < frames; f++) {
				for (i = 0; i < 300; i++)
					bench_page_event(&st, EV_PAGE_ALLOC, ts, 1000 + (int32_t)((pfn * 37) % ntasks),
						   pfn), pfn++;
				exit_event(&st, ts, 1000 + (int32_t)((ts / 1000) % ntasks));
				ts += 200000000ull;
			}
			ms -= ((bench_cpu_us() / 1e3) - t0) / frames;
			printf("%-10s %-18s %10.3f\n", views[k], view_sort_name((enum view_sort)s), ms);
			if (ms > worst)
				worst = ms;
		}
	}
	printf("rows %u, frame %zu bytes\n", v.nrows, v.frame_len);
	printf("RESULT top_frame_ms %.3f\n", worst);
	view_free(&v);
	stats_free(&st);
	return 0;
}
