// SPDX-License-Identifier: GPL-2.0-only
/* workload.c - a known amount of anonymous memory, touched page by page, for the integration tests */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * workload MB [HOLD_MS [READY_FILE]]
 * Maps MB MiB (no THP), writes one byte per 4 KiB, creates READY_FILE if
 * given, sleeps HOLD_MS, unmaps and exits 0.
 *
 * workload fail [HOLD_MS]
 * Memory calls that fail (issue 24, 4): a 1 PiB mmap (ENOMEM), then the break
 * asked (brk(0)) and moved up by 32 TiB (refused: brk returns the old break);
 * sleeps HOLD_MS. Exits 0 if both failed so.
 */
static int fail_calls(long hold_ms)
{
	struct timespec ts = { hold_ms / 1000, (hold_ms % 1000) * 1000000L };
	unsigned long cur, got;
	void *p;

	p = mmap(NULL, 1ull << 50, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED || errno != ENOMEM) {
		fprintf(stderr, "workload: a 1 PiB mmap did not fail with ENOMEM\n");
		return 1;
	}
	cur = (unsigned long)syscall(SYS_brk, 0);
	got = (unsigned long)syscall(SYS_brk, cur + (1ull << 45));
	if (got != cur) {
		fprintf(stderr, "workload: a 32 TiB brk was not refused\n");
		return 1;
	}
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	return 0;
}

int main(int argc, char **argv)
{
	size_t mb, len, i;
	long hold_ms = 0;
	struct timespec ts;
	char *p;

	if (argc < 2) {
		fprintf(stderr, "usage: workload MB [HOLD_MS [READY_FILE]]\n");
		return 2;
	}
	if (!strcmp(argv[1], "fail"))
		return fail_calls(argc > 2 ? strtol(argv[2], NULL, 10) : 0);
	mb = strtoul(argv[1], NULL, 10);
	if (argc > 2)
		hold_ms = strtol(argv[2], NULL, 10);
	len = mb << 20;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	madvise(p, len, MADV_NOHUGEPAGE);
	for (i = 0; i < len; i += 4096)
		p[i] = 1;
	if (argc > 3) {
		int fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0)
			close(fd);
	}
	ts.tv_sec = hold_ms / 1000;
	ts.tv_nsec = (hold_ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	munmap(p, len);
	return 0;
}
