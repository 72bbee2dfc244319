/* SPDX-License-Identifier: GPL-2.0-only */
/* renumber.h - task serials made small again when they near their limit */
#ifndef MEMTRACE_RENUMBER_H
#define MEMTRACE_RENUMBER_H

#include <stddef.h>
#include <stdint.h>

#include "stacks.h"
#include "table.h"

/**
 * serials_renumber() - every stored serial becomes its slot's first one
 * @map: the pfn->owner map (only its resident pages can hold owners), its first @n
 *	entries (none above was ever written), or NULL
 * @sk: the stack tables (task-and-stack entries, pending allocations), or NULL
 *
 * Owners whose slot was recycled become OWNER_STALE. Rare, and no allocation.
 */
void serials_renumber(struct table *tb, uint32_t *map, uint64_t n, struct stacks *sk);

#endif
