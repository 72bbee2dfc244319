// SPDX-License-Identifier: GPL-2.0-only
/* renumber.c - task serials made small again when they near their limit */
#include "renumber.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * Task serials near their limit (2^31 task creations with the default table):
 * every stored serial becomes its slot's first one, the pfn map's included
 * (only its resident pages can hold owners), owners whose slot was recycled
 * become OWNER_STALE. Rare, and no allocation.
 */
void serials_renumber(struct table *tb, uint32_t *map, size_t bytes, struct stacks *sk)
{
	static unsigned char vec[4096];
	long psz = sysconf(_SC_PAGESIZE);
	size_t page = psz > 0 ? (size_t)psz : 4096, per = page / sizeof(*map);
	size_t npages = (bytes + page - 1) / page, entries = bytes / sizeof(*map);
	size_t pi, i, k;
	uint32_t j;

	for (pi = 0; pi < npages; pi += sizeof(vec)) {
		size_t n = npages - pi < sizeof(vec) ? npages - pi : sizeof(vec);

		if (mincore((char *)map + pi * page, n * page, vec))
			memset(vec, 1, n);	/* not known: look at all of it */
		for (i = 0; i < n; i++) {
			if (!(vec[i] & 1))
				continue;
			for (k = (pi + i) * per; k < (pi + i + 1) * per && k < entries; k++) {
				uint32_t e = map[k];

				if (e && !(e & OWNER_MODULE) && e != OWNER_STALE)
					map[k] = table_serial_now(tb, e);
			}
		}
	}
	for (j = 0; j < tb->ntasks_used; j++) {
		struct mt_task *t = &tb->tasks[j];

		if (t->leader)
			t->leader = table_serial_now(tb, t->leader);
		if (t->collapse_to)
			t->collapse_to = table_serial_now(tb, t->collapse_to);
	}
	for (j = 0; j < tb->nmods; j++)
		if (tb->mods[j].loader_serial)
			tb->mods[j].loader_serial = table_serial_now(tb, tb->mods[j].loader_serial);
	if (sk)
		stacks_renumber(sk, table_serial_now, tb);
	table_renumber(tb);
}

