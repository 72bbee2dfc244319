/* SPDX-License-Identifier: GPL-2.0-only */
/* tidset.h - a fixed set of task ids: open addressing, removal without tombstones */
#ifndef MEMTRACE_TIDSET_H
#define MEMTRACE_TIDSET_H

#include <stdbool.h>
#include <stdint.h>

/* Positive tids only; 0 marks a free slot. */
struct tidset {
	int32_t *slot;
	uint32_t mask, n;
};

/* Room for at least @cap tids (the array is twice that, for short probes). 0 or -ENOMEM. */
int tidset_init(struct tidset *t, uint32_t cap);
void tidset_free(struct tidset *t);

bool tidset_has(const struct tidset *t, int32_t tid);

/* false when @tid is not positive or the set is full (half the array) */
bool tidset_add(struct tidset *t, int32_t tid);

void tidset_del(struct tidset *t, int32_t tid);

#endif
