// SPDX-License-Identifier: GPL-2.0-only
/* renumber.c - task serials made small again when they near their limit */
#include "renumber.h"

#include "pfnmap.h"

/*
 * Task serials near their limit (2^31 task creations with the default table):
 * every stored serial becomes its slot's first one, the pfn map's included
 * (only its resident pages can hold owners), owners whose slot was recycled
 * become OWNER_STALE. Rare, and no allocation.
 */
static void renumber_owner(void *ctx, uint32_t *e)
{
	if (*e && !(*e & OWNER_MODULE) && *e != OWNER_STALE)
		*e = table_serial_now(ctx, *e);
}

void serials_renumber(struct table *tb, uint32_t *map, uint64_t n, struct stacks *sk)
{
	uint32_t j;

	if (map)
		pfnmap_each_resident(map, n, renumber_owner, tb);
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

