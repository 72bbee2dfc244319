/* SPDX-License-Identifier: GPL-2.0-only */
/* model/tidset.h - tables keyed by task id: open addressing, removal without tombstones */
#ifndef MEMTRACE_MODEL_TIDSET_H
#define MEMTRACE_MODEL_TIDSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * struct tidtab - slots of @stride bytes, each starting with its int32_t tid
 * (positive; 0 marks a free slot), probed linearly from the tid's hash; at most
 * half full, so that probes stay short. Sized once, no allocation after.
 */
struct tidtab {
	unsigned char *slot;
	size_t stride;
	uint32_t mask, n;
};

/*
 * Room for at least @cap tids (the slots twice that, at least 16). 0, -ENOMEM, or
 * -EINVAL for a @stride that is not a multiple of int32_t's alignment.
 */
int tidtab_init(struct tidtab *t, uint32_t cap, size_t stride);
void tidtab_free(struct tidtab *t);

/* The slot of @tid, or the free slot where it would go (its tid then 0). */
void *tidtab_find(const struct tidtab *t, int32_t tid);

static inline int32_t tidtab_tid(const void *slot)
{
	return *(const int32_t *)slot;
}

/* No room for another tid. */
static inline bool tidtab_full(const struct tidtab *t)
{
	return t->n >= (t->mask + 1) / 2;
}

/* @tid into the free @slot tidtab_find() gave (the caller checked tidtab_full()). */
void tidtab_claim(struct tidtab *t, void *slot, int32_t tid);

/* Free the used @slot; the slots after it move up where their probe allows (no tombstone). */
void tidtab_del(struct tidtab *t, void *slot);

/* A set of task ids: a tidtab of bare tids. */
struct tidset {
	struct tidtab tab;
};

/* Room for at least @cap tids (the array is twice that, for short probes). 0 or -ENOMEM. */
int tidset_init(struct tidset *t, uint32_t cap);
void tidset_free(struct tidset *t);

bool tidset_has(const struct tidset *t, int32_t tid);

/* false when @tid is not positive or the set is full (half the array) */
bool tidset_add(struct tidset *t, int32_t tid);

void tidset_del(struct tidset *t, int32_t tid);

#endif
