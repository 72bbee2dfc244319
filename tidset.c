// SPDX-License-Identifier: GPL-2.0-only
/* tidset.c - a fixed set of task ids: open addressing, removal without tombstones */
#include "tidset.h"

#include <errno.h>
#include <stdlib.h>

int tidset_init(struct tidset *t, uint32_t cap)
{
	t->mask = 127;
	while (t->mask + 1 < 2 * (uint64_t)cap)
		t->mask = t->mask * 2 + 1;
	t->n = 0;
	t->slot = calloc(t->mask + 1, sizeof(*t->slot));
	return t->slot ? 0 : -ENOMEM;
}

void tidset_free(struct tidset *t)
{
	free(t->slot);
	t->slot = NULL;
	t->n = 0;
}

static uint32_t home(const struct tidset *t, int32_t tid)
{
	return ((uint32_t)tid * 2654435761u) & t->mask;
}

/* Where @tid is, or the free slot where it would go. */
static uint32_t find(const struct tidset *t, int32_t tid)
{
	uint32_t i = home(t, tid);

	while (t->slot[i] && t->slot[i] != tid)
		i = (i + 1) & t->mask;
	return i;
}

bool tidset_has(const struct tidset *t, int32_t tid)
{
	return tid > 0 && t->slot && t->slot[find(t, tid)] == tid;
}

bool tidset_add(struct tidset *t, int32_t tid)
{
	uint32_t i;

	if (tid <= 0 || !t->slot)
		return false;
	i = find(t, tid);
	if (t->slot[i] == tid)
		return true;
	if (t->n >= (t->mask + 1) / 2)
		return false;
	t->slot[i] = tid;
	t->n++;
	return true;
}

/* Backward shift: the entries after it move up where their probe allows. */
void tidset_del(struct tidset *t, int32_t tid)
{
	uint32_t i, j, k;

	if (!tidset_has(t, tid))
		return;
	i = find(t, tid);
	t->slot[i] = 0;
	t->n--;
	for (j = (i + 1) & t->mask; t->slot[j]; j = (j + 1) & t->mask) {
		k = home(t, t->slot[j]);
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		t->slot[i] = t->slot[j];
		t->slot[j] = 0;
		i = j;
	}
}
