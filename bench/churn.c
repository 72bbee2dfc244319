// SPDX-License-Identifier: GPL-2.0-only
/*
 * churn.c - the live storm's workload: map MB MiB of anonymous memory (no THP), write one
 * byte per page, unmap, again, for SECONDS. Every round allocates and frees MB MiB of
 * pages one by one (order 0), the densest page-event load a single task can make.
 *
 * usage: churn SECONDS [MB]
 * prints "rounds R pages P seconds S pages_per_s X"
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs, t0, t;
	size_t len, i, page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned long rounds = 0;
	unsigned long long pages = 0;

	if (argc < 2 || (secs = strtod(argv[1], NULL)) <= 0) {
		fprintf(stderr, "usage: churn SECONDS [MB]\n");
		return 2;
	}
	len = (size_t)(argc > 2 ? strtoul(argv[2], NULL, 10) : 16) << 20;
	if (!len) {
		fprintf(stderr, "churn: MB must be at least 1\n");
		return 2;
	}
	t0 = now();
	do {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("churn: mmap");
			return 1;
		}
		madvise(p, len, MADV_NOHUGEPAGE);
		for (i = 0; i < len; i += page)
			p[i] = 1;
		munmap(p, len);
		rounds++;
		pages += len / page;
		t = now() - t0;
	} while (t < secs);
	printf("rounds %lu pages %llu seconds %.3f pages_per_s %.0f\n", rounds, pages, t,
	       (double)pages / t);
	return 0;
}
