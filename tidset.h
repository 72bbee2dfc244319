/* SPDX-License-Identifier: GPL-2.0-only */
/* tidset.h - a fixed set of task ids: open addressing, sized once, no allocation after */
#ifndef MEMTRACE_TIDSET_H
#define MEMTRACE_TIDSET_H

#include <stdbool.h>
#include <stdint.h>

struct tidset {
	int32_t *v;		/* 0 is free */
	uint32_t mask, n;
};

/* Room for @max tids (the array twice that, so that probes stay short); 0 or -ENOMEM. */
int tidset_init(struct tidset *t, uint32_t max);
void tidset_free(struct tidset *t);

bool tidset_has(const struct tidset *t, int32_t tid);

/* False when the set is full (or @tid is not a task id). */
bool tidset_add(struct tidset *t, int32_t tid);

void tidset_del(struct tidset *t, int32_t tid);

#endif
