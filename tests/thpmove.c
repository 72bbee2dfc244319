// SPDX-License-Identifier: GPL-2.0-only
/*
 * thpmove.c - a process's memory collapsed into huge pages by another process
 *
 * thpmove MB: a child maps MB MiB (2 MiB aligned), touches every 4 KiB page and
 * waits; the parent collapses the child's range with process_madvise(MADV_COLLAPSE),
 * which runs the collapse in the parent's context, as khugepaged does for every
 * process: the parent allocates each huge page and frees the child's old pages.
 * Then the child reports its AnonHugePages and exits. Prints "child PID",
 * "parent PID", "collapse OK|ERRNO-NAME", "anon_huge_kib N"; exit 0 if the
 * collapse ran, 2 if the kernel cannot do it here (then a test says SKIP).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_process_madvise
#define SYS_process_madvise 440
#endif

#define HUGE (2ul << 20)

static long anon_huge_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

int main(int argc, char **argv)
{
	size_t len = (size_t)(argc > 1 ? atol(argv[1]) : 16) << 20, off;
	int ready[2], go[2], status, pidfd;
	char c = 0;
	uintptr_t base;
	struct iovec iov;
	uint8_t *raw;
	pid_t child;
	long r;

	if (!len || len % HUGE || pipe(ready) || pipe(go))
		return 1;
	/* the range, mapped before the fork: the child's copy is where the pages go */
	raw = mmap(NULL, len + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return 1;
	base = ((uintptr_t)raw + HUGE - 1) & ~(HUGE - 1);
	child = fork();
	if (child < 0)
		return 1;
	if (!child) {
		long before;

		for (off = 0; off < len; off += 4096)
			((volatile uint8_t *)base)[off] = 1;
		before = anon_huge_kib();
		if (write(ready[1], &before, sizeof(before)) != sizeof(before) ||
		    read(go[0], &c, 1) != 1)
			_exit(1);
		printf("anon_huge_kib %ld\n", anon_huge_kib());
		fflush(stdout);
		usleep(300000);		/* held: the reports see it */
		_exit(0);
	}
	printf("child %d\nparent %d\n", (int)child, (int)getpid());
	munmap(raw, len + HUGE);	/* the parent's own copy: never touched */
	{
		long before = -1;

		if (read(ready[0], &before, sizeof(before)) != sizeof(before))
			return 1;
		if (before > 0) {	/* THP "always": huge already, nothing to collapse */
			printf("collapse SKIP huge at fault (%ld kB)\n", before);
			fflush(stdout);
			if (write(go[1], &c, 1) != 1)
				return 1;
			waitpid(child, &status, 0);
			return 2;
		}
	}
	pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	iov.iov_base = (void *)base;
	iov.iov_len = len;
	r = pidfd < 0 ? -1 : syscall(SYS_process_madvise, pidfd, &iov, 1, MADV_COLLAPSE, 0);
	if (r < 0)
		printf("collapse %s\n", strerrorname_np(errno) ? strerrorname_np(errno) : "error");
	else
		printf("collapse OK %ld\n", r);
	fflush(stdout);
	if (write(go[1], &c, 1) != 1)
		return 1;
	waitpid(child, &status, 0);
	return r < 0 ? 2 : 0;
}
