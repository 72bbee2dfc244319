// SPDX-License-Identifier: GPL-2.0-only
/* model/pfnmap.c - the per-page-frame maps: how far they reach, reserved without committing, resident as used */
#include "model/pfnmap.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t page_bytes(void)
{
	long psz = sysconf(_SC_PAGESIZE);

	return psz > 0 ? (size_t)psz : 4096;
}

uint64_t pfnmap_reach(uint64_t ram_pfn, unsigned int phys_bits, long page_size)
{
	unsigned int shift = 0;
	uint64_t reach = PFNMAP_REACH_MAX;

	while (page_size > 1 && (1l << shift) < page_size)
		shift++;
	if (phys_bits > shift && phys_bits - shift < 34)
		reach = 1ull << (phys_bits - shift);
	return reach > ram_pfn ? reach : ram_pfn;
}

void *pfnmap_reserve(size_t bytes)
{
	void *map = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return map == MAP_FAILED ? NULL : map;
}

void pfnmap_release(void *map, size_t bytes)
{
	if (map)
		munmap(map, bytes);
}

long pfnmap_resident_kib(const void *map, size_t bytes)
{
	static unsigned char vec[4096];
	size_t page = page_bytes(), pages, done = 0, n = 0, i;

	if (!map)
		return -1;
	pages = (bytes + page - 1) / page;
	while (done < pages) {
		size_t k = pages - done < sizeof(vec) ? pages - done : sizeof(vec);

		if (mincore((char *)map + done * page, k * page, vec))
			return -1;
		for (i = 0; i < k; i++)
			n += vec[i] & 1;
		done += k;
	}
	return (long)(n * page / 1024);
}

void pfnmap_each_resident(uint32_t *map, uint64_t n, void (*fn)(void *ctx, uint32_t *e),
			  void *ctx)
{
	static unsigned char vec[4096];
	size_t page = page_bytes(), per = page / sizeof(*map);
	size_t npages = (size_t)((n + per - 1) / per), pi, i;
	uint64_t k;

	for (pi = 0; pi < npages; pi += sizeof(vec)) {
		size_t m = npages - pi < sizeof(vec) ? npages - pi : sizeof(vec);

		if (mincore((char *)map + pi * page, m * page, vec))
			memset(vec, 1, m);	/* not known: look at all of it */
		for (i = 0; i < m; i++) {
			if (!(vec[i] & 1))
				continue;
			for (k = (pi + i) * per; k < (pi + i + 1) * per && k < n; k++)
				fn(ctx, &map[k]);
		}
	}
}
