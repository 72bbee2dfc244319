// SPDX-License-Identifier: GPL-2.0-only
/* model/tidset.c - tables keyed by task id: open addressing, removal without tombstones */
#include "model/tidset.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int tidtab_init(struct tidtab *t, uint32_t cap, size_t stride)
{
	if (stride < sizeof(int32_t) || stride % _Alignof(int32_t))
		return -EINVAL;
	t->mask = 15;
	while (t->mask + 1 < 2 * (uint64_t)cap)
		t->mask = t->mask * 2 + 1;
	t->n = 0;
	t->stride = stride;
	t->slot = calloc((size_t)t->mask + 1, stride);
	return t->slot ? 0 : -ENOMEM;
}

void tidtab_free(struct tidtab *t)
{
	free(t->slot);
	t->slot = NULL;
	t->n = 0;
}

static uint32_t home(const struct tidtab *t, int32_t tid)
{
	return ((uint32_t)tid * 2654435761u) & t->mask;
}

/*
 * Slot @i: aligned for its int32_t tid, as calloc()'s memory is and @stride a
 * multiple of int32_t's alignment (tidtab_init()).
 */
static void *at(const struct tidtab *t, uint32_t i)
{
	return t->slot + (size_t)i * t->stride;
}

void *tidtab_find(const struct tidtab *t, int32_t tid)
{
	uint32_t i = home(t, tid);

	while (tidtab_tid(at(t, i)) && tidtab_tid(at(t, i)) != tid)
		i = (i + 1) & t->mask;
	return at(t, i);
}

void tidtab_claim(struct tidtab *t, void *slot, int32_t tid)
{
	*(int32_t *)slot = tid;
	t->n++;
}

void tidtab_del(struct tidtab *t, void *slot)
{
	uint32_t i = (uint32_t)(((unsigned char *)slot - t->slot) / t->stride), j, k;

	*(int32_t *)at(t, i) = 0;
	t->n--;
	for (j = (i + 1) & t->mask; tidtab_tid(at(t, j)); j = (j + 1) & t->mask) {
		k = home(t, tidtab_tid(at(t, j)));
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		memcpy(at(t, i), at(t, j), t->stride);
		*(int32_t *)at(t, j) = 0;
		i = j;
	}
}

int tidset_init(struct tidset *t, uint32_t cap)
{
	return tidtab_init(&t->tab, cap < 64 ? 64 : cap, sizeof(int32_t));
}

void tidset_free(struct tidset *t)
{
	tidtab_free(&t->tab);
}

bool tidset_has(const struct tidset *t, int32_t tid)
{
	return tid > 0 && t->tab.slot && tidtab_tid(tidtab_find(&t->tab, tid)) == tid;
}

bool tidset_add(struct tidset *t, int32_t tid)
{
	void *slot;

	if (tid <= 0 || !t->tab.slot)
		return false;
	slot = tidtab_find(&t->tab, tid);
	if (tidtab_tid(slot) == tid)
		return true;
	if (tidtab_full(&t->tab))
		return false;
	tidtab_claim(&t->tab, slot, tid);
	return true;
}

void tidset_del(struct tidset *t, int32_t tid)
{
	if (tidset_has(t, tid))
		tidtab_del(&t->tab, tidtab_find(&t->tab, tid));
}
