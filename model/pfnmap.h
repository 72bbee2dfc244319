/* SPDX-License-Identifier: GPL-2.0-only */
/* model/pfnmap.h - the per-page-frame maps: how far they reach, reserved without committing, resident as used */
#ifndef MEMTRACE_MODEL_PFNMAP_H
#define MEMTRACE_MODEL_PFNMAP_H

#include <stddef.h>
#include <stdint.h>

/*
 * The most page frames a map reserves address space for: 64 TiB of 4 KiB
 * pages (1 PiB of 64 KiB ones), 64 GiB of address space for a map of 4-byte
 * entries (never committed).
 */
#define PFNMAP_REACH_MAX	(1ull << 34)

/**
 * pfnmap_reach() - how many page frames the maps cover
 * @ram_pfn: the largest page frame number + 1 of the memory there is now
 *	(/proc/zoneinfo), 0 if unknown
 * @phys_bits: the CPU's physical address bits (/proc/cpuinfo), 0 if unknown
 * @page_size: bytes per page
 *
 * Memory added later (hotplug) gets page frames above what is there now, but
 * never beyond the CPU's physical addresses: the maps reach that far (at most
 * PFNMAP_REACH_MAX, or where it is not known), and never less than @ram_pfn.
 * Return: the number of page frames.
 */
uint64_t pfnmap_reach(uint64_t ram_pfn, unsigned int phys_bits, long page_size);

/* @bytes of zeroed address space (MAP_NORESERVE: nothing committed until written); NULL if not. */
void *pfnmap_reserve(size_t bytes);

void pfnmap_release(void *map, size_t bytes);

/* KiB resident now of the first @bytes of @map (mincore), -1 if unknown. */
long pfnmap_resident_kib(const void *map, size_t bytes);

/*
 * Call @fn for each entry of the first @n of @map in a resident page (the
 * others hold only zeros). Without mincore: every entry.
 */
void pfnmap_each_resident(uint32_t *map, uint64_t n, void (*fn)(void *ctx, uint32_t *e),
			  void *ctx);

#endif
