// SPDX-License-Identifier: GPL-2.0-only
/*
 * seedbench.c - the seeding of tasks alive at start, over a fake /proc of any size
 *
 * usage: seedbench ROOT PROCS THREADS MAX_TASKS
 * Makes ROOT/<pid>/statm and ROOT/<pid>/task/<tid>/{stat,comm} for PROCS processes of
 * THREADS tasks each (as /proc shows them), then seeds a task table of MAX_TASKS slots
 * from it as memtrace does at start (seed_from_proc(), then stats_link_threads()) and prints
 * "tasks N seed_ms W cpu_ms C rss_kib R": the tasks seeded, the wall and CPU time of the
 * seeding, and how much the resident set grew by it. A kernel's /proc costs more per
 * file than a tmpfs: bench/tasks.sh measures that part on real tasks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "input/seed.h"
#include "stats.h"
#include "lib/util.h"

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write_all(fd, text, strlen(text))) {
		perror(path);
		exit(1);
	}
	close(fd);
}

static void mkdir_or_die(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST) {
		perror(path);
		exit(1);
	}
}

static uint64_t fake_now(void)
{
	return mono_ns();
}

static double cpu_ms(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static long rss_kib(void)
{
	char buf[256];
	long size = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%ld %ld", &size, &res) != 2)
		res = -1;
	fclose(f);
	return res < 0 ? -1 : res * (sysconf(_SC_PAGESIZE) / 1024);
}

int main(int argc, char **argv)
{
	static struct stats st;
	struct stats_config cfg = { .max_modules = 1024, .max_pfn = 4096 };
	struct seed_result res;
	long procs, threads, p, k, r0;
	char path[4096], text[512];
	double c0, c1;
	uint64_t t0, t1;

	if (argc != 5 || (procs = strtol(argv[2], NULL, 10)) < 1 ||
	    (threads = strtol(argv[3], NULL, 10)) < 1 ||
	    !(cfg.max_tasks = (uint32_t)strtoul(argv[4], NULL, 10))) {
		fprintf(stderr, "usage: seedbench ROOT PROCS THREADS MAX_TASKS\n");
		return 2;
	}
	mkdir_or_die(argv[1]);
	for (p = 0; p < procs; p++) {
		long pid = 1000 + p * threads;

		snprintf(path, sizeof(path), "%s/%ld", argv[1], pid);
		mkdir_or_die(path);
		snprintf(path, sizeof(path), "%s/%ld/statm", argv[1], pid);
		put(path, "2500 600 400 10 0 200 0\n");
		snprintf(path, sizeof(path), "%s/%ld/task", argv[1], pid);
		mkdir_or_die(path);
		for (k = 0; k < threads; k++) {
			snprintf(path, sizeof(path), "%s/%ld/task/%ld", argv[1], pid, pid + k);
			mkdir_or_die(path);
			snprintf(path, sizeof(path), "%s/%ld/task/%ld/stat", argv[1], pid, pid + k);
			snprintf(text, sizeof(text), "%ld (sleepers) S 999 999 999 0 -1 4194560 97 0 "
				 "0 0 0 0 0 0 20 0 %ld 0 2700 10240000 600 18446744073709551615 1 1 0 "
				 "0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n", pid + k, threads);
			put(path, text);
			snprintf(path, sizeof(path), "%s/%ld/task/%ld/comm", argv[1], pid, pid + k);
			put(path, "sleepers\n");
		}
	}
	if (stats_init(&st, &cfg)) {
		fprintf(stderr, "seedbench: cannot allocate the tables\n");
		return 1;
	}
	r0 = rss_kib();
	c0 = cpu_ms();
	t0 = mono_ns();
	if (seed_from_proc(argv[1], &st, fake_now, 0, 0, &res)) {
		fprintf(stderr, "seedbench: %s: cannot seed\n", argv[1]);
		return 1;
	}
	stats_link_threads(&st);
	t1 = mono_ns();
	c1 = cpu_ms();
	printf("tasks %u seed_ms %.1f cpu_ms %.1f rss_kib %ld skipped %u\n", res.tasks,
	       (double)(t1 - t0) / 1e6, c1 - c0, rss_kib() - r0, res.skipped);
	stats_free(&st);
	return 0;
}
