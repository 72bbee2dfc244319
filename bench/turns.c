// SPDX-License-Identifier: GPL-2.0-only
/*
 * turns.c - what reading a recording dealt to many CPUs costs apart from memtrace
 *
 * usage: turns walk FILE CHUNKS...
 *        turns files DIR N
 * walk: FILE mapped (MAP_POPULATE, as a replay maps it), then every 8-byte word of its pages
 *       read, the pages in round robin over CHUNKS equal parts of the file (page 0 of each
 *       part, then page 1 of each, ...; 1: in order), as a replay of a recording dealt to
 *       CHUNKS CPUs takes its pages' turns. The same pages and bytes for each CHUNKS.
 * files: DIR/per_cpu/cpuK/trace_pipe_raw for K < N opened, fstat()ed, mapped
 *       (MAP_POPULATE), unmapped and closed, all N in turn: the kernel's cost of the files of
 *       a replay at N CPUs, without the walk.
 * Each is timed 9 times, pinned by the caller (taskset); prints the best and the median in
 * ms, a line each: "walk CHUNKS best B median M pages P" or "files N best B median M bytes S".
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RUNS	9
#define PAGE	4096u

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void print(const char *what, long n, double *t, const char *unit, unsigned long long v)
{
	qsort(t, RUNS, sizeof(*t), cmp_double);
	printf("%s %ld best %.3f median %.3f %s %llu\n", what, n, t[0], t[RUNS / 2], unit, v);
}

static volatile unsigned long sink;

static int walk(const char *file, int argc, char **argv)
{
	struct stat st;
	const unsigned char *m;
	int fd = open(file, O_RDONLY | O_CLOEXEC), a;

	if (fd < 0 || fstat(fd, &st) || st.st_size < (off_t)PAGE) {
		perror(file);
		return 1;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (m == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (a = 0; a < argc; a++) {
		long chunks = strtol(argv[a], NULL, 10), per, j, c;
		size_t pages = (size_t)st.st_size / PAGE;
		double t[RUNS];
		int r;

		if (chunks < 1 || (size_t)chunks > pages) {
			fprintf(stderr, "turns: %s: 1 to %zu chunks\n", argv[a], pages);
			return 2;
		}
		per = (long)(pages / (size_t)chunks);
		for (r = 0; r < RUNS; r++) {
			unsigned long sum = 0;
			double t0 = now_ms();

			for (j = 0; j < per; j++) {
				for (c = 0; c < chunks; c++) {
					const unsigned char *pg = m + ((size_t)(c * per + j)) * PAGE;
					unsigned o;

					for (o = 0; o < PAGE; o += 8) {
						unsigned long w;

						memcpy(&w, pg + o, sizeof(w));
						sum += w;
					}
				}
			}
			t[r] = now_ms() - t0;
			sink = sum;
		}
		print("walk", chunks, t, "pages", (unsigned long long)(per * chunks));
	}
	munmap((void *)m, (size_t)st.st_size);
	close(fd);
	return 0;
}

static int files(const char *dir, const char *count)
{
	long n = strtol(count, NULL, 10), k;
	double t[RUNS];
	unsigned long long bytes = 0;
	int *fds;
	void **maps;
	size_t *lens;
	int r;

	if (n < 1 || n > 65536) {
		fprintf(stderr, "turns: %s: 1 to 65536 files\n", count);
		return 2;
	}
	fds = calloc((size_t)n, sizeof(*fds));
	maps = calloc((size_t)n, sizeof(*maps));
	lens = calloc((size_t)n, sizeof(*lens));
	if (!fds || !maps || !lens) {
		perror("calloc");
		return 1;
	}
	for (r = 0; r < RUNS; r++) {
		double t0 = now_ms();

		bytes = 0;
		for (k = 0; k < n; k++) {
			char path[4096];
			struct stat st;

			snprintf(path, sizeof(path), "%s/per_cpu/cpu%ld/trace_pipe_raw", dir, k);
			fds[k] = open(path, O_RDONLY | O_CLOEXEC);
			if (fds[k] < 0 || fstat(fds[k], &st) || st.st_size <= 0) {
				perror(path);
				return 1;
			}
			lens[k] = (size_t)st.st_size;
			maps[k] = mmap(NULL, lens[k], PROT_READ, MAP_PRIVATE | MAP_POPULATE, fds[k], 0);
			if (maps[k] == MAP_FAILED) {
				perror("mmap");
				return 1;
			}
			bytes += lens[k];
		}
		for (k = 0; k < n; k++) {
			munmap(maps[k], lens[k]);
			close(fds[k]);
		}
		t[r] = now_ms() - t0;
	}
	print("files", n, t, "bytes", bytes);
	free(fds);
	free(maps);
	free(lens);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "walk"))
		return walk(argv[2], argc - 3, argv + 3);
	if (argc == 4 && !strcmp(argv[1], "files"))
		return files(argv[2], argv[3]);
	fprintf(stderr, "usage: turns walk FILE CHUNKS...\n       turns files DIR N\n");
	return 2;
}
