// SPDX-License-Identifier: GPL-2.0-only
/* remap.c - a process that holds memory before memtrace starts, then frees and maps it again */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/*
 * remap MB ROUNDS DIR
 * Maps and touches MB MiB (no THP), creates DIR/ready, waits for DIR/go
 * (at most 60 s), then ROUNDS times unmaps it and maps and touches MB MiB
 * again, creates DIR/done and waits for DIR/end (at most 60 s). Its true peak
 * is about what it held at the start: MB MiB and its own few pages.
 */
static char *map_touch(size_t len)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t i;

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	madvise(p, len, MADV_NOHUGEPAGE);
	for (i = 0; i < len; i += 4096)
		p[i] = 1;
	return p;
}

static void touch_file(const char *dir, const char *name)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	close(fd);
}

static void wait_file(const char *dir, const char *name)
{
	struct timespec ts = { 0, 10000000 };
	char path[4096];
	int i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (i = 0; i < 6000 && access(path, F_OK); i++)
		nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	size_t len;
	long rounds, i;
	char *p;

	if (argc != 4) {
		fprintf(stderr, "usage: remap MB ROUNDS DIR\n");
		return 2;
	}
	len = strtoul(argv[1], NULL, 10) << 20;
	rounds = strtol(argv[2], NULL, 10);
	p = map_touch(len);
	touch_file(argv[3], "ready");
	wait_file(argv[3], "go");
	for (i = 0; i < rounds; i++) {
		munmap(p, len);
		p = map_touch(len);
	}
	touch_file(argv[3], "done");
	wait_file(argv[3], "end");
	return 0;
}
