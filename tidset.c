// SPDX-License-Identifier: GPL-2.0-only
/* tidset.c - a fixed set of task ids: open addressing, sized once, no allocation after */
#include "tidset.h"

#include <errno.h>
#include <stdlib.h>

int tidset_init(struct tidset *t, uint32_t max)
{
	t->mask = 127;
	while (t->mask + 1 < 2 * max && t->mask < (1u << 30))
		t->mask = t->mask * 2 + 1;
	t->n = 0;
	t->v = calloc(t->mask + 1, sizeof(*t->v));
	return t->v ? 0 : -ENOMEM;
}

void tidset_free(struct tidset *t)
{
	free(t->v);
	t->v = NULL;
	t->mask = t->n = 0;
}

static uint32_t home(const struct tidset *t, int32_t tid)
{
	return ((uint32_t)tid * 2654435761u) & t->mask;
}

static uint32_t find(const struct tidset *t, int32_t tid)
{
	uint32_t i = home(t, tid);

	while (t->v[i] && t->v[i] != tid)
		i = (i + 1) & t->mask;
	return i;
}

bool tidset_has(const struct tidset *t, int32_t tid)
{
	return tid > 0 && t->v && t->v[find(t, tid)] == tid;
}

/* at most half full: probes stay short */
bool tidset_add(struct tidset *t, int32_t tid)
{
	uint32_t i;

	if (tid <= 0 || !t->v)
		return false;
	i = find(t, tid);
	if (t->v[i] == tid)
		return true;
	if (t->n >= (t->mask + 1) / 2)
		return false;
	t->v[i] = tid;
	t->n++;
	return true;
}

/* removal keeps the probe chains (backward shift) */
void tidset_del(struct tidset *t, int32_t tid)
{
	uint32_t i, j, k;

	if (!tidset_has(t, tid))
		return;
	i = find(t, tid);
	t->v[i] = 0;
	t->n--;
	for (j = (i + 1) & t->mask; t->v[j]; j = (j + 1) & t->mask) {
		k = home(t, t->v[j]);
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		t->v[i] = t->v[j];
		t->v[j] = 0;
		i = j;
	}
}
