// SPDX-License-Identifier: GPL-2.0-only
/* hog.c - touch anonymous memory 1 MiB at a time until the OOM killer ends us (tests/e2e.sh) */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int main(void)
{
	const size_t chunk = 1 << 20;
	size_t total = 0, i;

	for (;;) {
		char *p = mmap(NULL, chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		if (p == MAP_FAILED) {
			/* overcommit refused: keep what we have and wait for the killer */
			usleep(100000);
			continue;
		}
		madvise(p, chunk, MADV_NOHUGEPAGE);
		for (i = 0; i < chunk; i += 4096)
			p[i] = 1;
		total += chunk;
		if (total % (32 << 20) == 0)
			fprintf(stderr, "hog: %zu MiB\n", total >> 20);
	}
}
