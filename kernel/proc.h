/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/proc.h - /proc and /sys: their parsers (pure) and readers: names, memory, CPUs, page-frame range, modules */
#ifndef MEMTRACE_KERNEL_PROC_H
#define MEMTRACE_KERNEL_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

/* Pure parsers (bytes in, numbers out); each returns 0 or -1 on malformed input. */

/* "size resident shared ..." -> resident pages */
int proc_parse_statm(const char *text, size_t len, uint64_t *resident);

/* "pid (comm) state ppid pgrp ... flags ..." -> ppid and flags (field 9) */
int proc_parse_stat(const char *text, size_t len, int32_t *ppid, uint64_t *flags);

/* "MemTotal:" and "MemAvailable:" of /proc/meminfo, in KiB */
int proc_parse_meminfo(const char *text, size_t len, uint64_t *avail_kib, uint64_t *total_kib);

/* /proc/meminfo's MemTotal, MemFree and MemAvailable in KiB (total 0: not known) */
struct proc_mem {
	uint64_t total_kib, free_kib;
	uint64_t avail_kib;		/* 0 on a kernel without MemAvailable (before 3.14) */
	/* what reclaim could take back and what it cannot (0 where the kernel does not say) */
	uint64_t file_kib;		/* Active(file) + Inactive(file): page cache on the file LRU */
	uint64_t dirty_kib, writeback_kib;	/* of it, not yet written */
	uint64_t mapped_kib;		/* file pages mapped by processes (their code) */
	uint64_t shmem_kib;		/* Shmem: tmpfs and shared anonymous pages (not file LRU) */
	uint64_t unevictable_kib;	/* Unevictable: ramfs (an initramfs), mlocked */
	uint64_t sreclaim_kib;		/* SReclaimable: slab reclaim can shrink (dentries, inodes) */
	uint64_t swap_kib;		/* SwapTotal: without swap, anonymous memory stays */
	uint64_t vmalloc_kib;		/* VmallocUsed: kernel stacks, modules' code (in bulk: no page event) */
};

/*
 * The mapped pages kept out of the clean page cache (KiB): a cautious margin.
 * The kernel does not say which list a mapped page is on. Ramfs (an
 * initramfs's programs) and mlocked pages are on the unevictable list, tmpfs
 * pages on the anonymous ones, none on the file LRU; a mapped page beyond what
 * Unevictable and Shmem could hold must be on the file LRU, a disk's page cache
 * (a root's programs after the switch), which reclaim takes back and reads again
 * when touched. Up to that much of the file LRU (all of Mapped where those lists
 * could hold it all, as every mapped page was before) is not counted as clean.
 */
static inline uint64_t proc_mem_mapped_kept_kib(const struct proc_mem *m)
{
	uint64_t cap = sat_add(m->unevictable_kib, m->shmem_kib);

	return m->mapped_kib < cap ? m->mapped_kib : cap;
}

/*
 * The page cache reclaim can take back: on the file LRU, clean (not dirty, not
 * under writeback) less the margin above (KiB; 0 when the kernel's counters say
 * less).
 */
static inline uint64_t proc_mem_clean_kib(const struct proc_mem *m)
{
	uint64_t held = sat_add(sat_add(m->dirty_kib, m->writeback_kib),
				proc_mem_mapped_kept_kib(m));

	return m->file_kib > held ? m->file_kib - held : 0;
}

/*
 * What reclaim cannot take back (KiB): in use (MemTotal - MemFree, which the
 * parser keeps in order) less the clean page cache, never below 0 (counters
 * that say more page cache than memory in use: a container's made-up meminfo).
 */
static inline uint64_t proc_mem_need_kib(const struct proc_mem *m)
{
	uint64_t in_use = m->total_kib - m->free_kib, clean = proc_mem_clean_kib(m);

	return in_use > clean ? in_use - clean : 0;
}
/* MemTotal and MemFree are needed (-1 without them, and zeroes), MemAvailable is not */
int proc_parse_mem(const char *text, size_t len, struct proc_mem *m);

/*
 * A CPU list as /sys/devices/system/cpu/online says it ("0-3,8,10-11"): bit N
 * of @mask set for each CPU N below @nbits listed (an empty list is none).
 */
int proc_parse_cpulist(const char *text, size_t len, uint8_t *mask, uint32_t nbits);

/* "address sizes : 46 bits physical, 48 bits virtual" (x86 /proc/cpuinfo) -> 46 */
int proc_parse_phys_bits(const char *text, size_t len, unsigned int *bits);

/* max over zones of start_pfn + spanned */
int proc_parse_zoneinfo(const char *text, size_t len, uint64_t *max_pfn);

/*
 * One line of /proc/modules: "name size refcount deps state address [taints]".
 * @name points into @line (not terminated); @loading is true for state "Loading".
 */
struct proc_module {
	const char *name;
	size_t name_len;
	uint64_t size;		/* bytes, as the kernel prints it */
	bool loading;
	uint64_t addr;		/* its code's start; 0 if hidden (kptr_restrict) or not given */
};
int proc_parse_module_line(const char *line, size_t len, struct proc_module *pm);

/* I/O wrappers; roots are "/proc" and "/sys" unless tests say otherwise. */

/* /proc/<tid>/comm of a live task, without its newline; 0 or -errno */
int proc_read_comm(const char *proc_root, int32_t tid, char *buf, size_t size, size_t *len);

/* MemAvailable and MemTotal from /proc/meminfo in KiB; 0 or -errno. */
int proc_meminfo(const char *proc_root, uint64_t *avail_kib, uint64_t *total_kib);

/* proc_parse_mem() of @proc_root/meminfo; 0 or -errno (-EINVAL: malformed) */
int proc_mem(const char *proc_root, struct proc_mem *m);

/*
 * The free memory the kernel keeps back, in pages, of each zone that manages
 * memory (/proc/zoneinfo): its min watermark, below which an allocation waits
 * for reclaim or the OOM killer, and the most that watermark boosting adds to
 * it after a fragmenting fallback (mm/page_alloc.c boost_watermark(): high *
 * watermark_boost_factor / 10000, at least a pageblock; none with the factor
 * 0): a tight capture hits its OOM killer with the boost on.
 */
struct zone_reserve {
	uint64_t min, boost;		/* summed over the zones */
	uint32_t zones;			/* that manage memory */
	uint32_t factor;		/* vm.watermark_boost_factor */
	uint64_t block_pages;		/* pages per pageblock (0: not known) */
};
int proc_parse_zoneinfo_reserve(const char *text, size_t len, uint32_t boost_factor,
				uint64_t block_pages, struct zone_reserve *r);

/* "Pages per block:" of /proc/pagetypeinfo; -1 if not said. */
int proc_parse_pageblock(const char *text, size_t len, uint64_t *pages);

/* The top-level "System RAM" ranges of /proc/iomem. */
struct iomem_ram {
	uint64_t bytes;			/* in all */
	uint32_t blocks;		/* blocks of the given size (memory sections) they touch */
	uint64_t largest;		/* the largest range's bytes (a capture's: the reservation) */
	uint32_t largest_blocks;	/* ... and the blocks it touches */
};

/* /proc/iomem's System RAM, blocks of @block bytes; -1 if it has none. */
int proc_parse_iomem_ram(const char *text, size_t len, uint64_t block, struct iomem_ram *m);

/*
 * "Freeing initrd memory: NNNNK" in a kernel log record of /dev/kmsg
 * ("PRI,SEQ,USEC,FLAGS;TEXT"): the KiB freed and the record's time in ns
 * (the printk clock, as the trace's local clock). -1 if @rec is not it.
 */
int proc_parse_kmsg_initrd(const char *rec, size_t len, uint64_t *kib, uint64_t *ts_ns);

/* Largest page frame number + 1, from /proc/zoneinfo; 0 if unknown. */
uint64_t proc_max_pfn(const char *proc_root);

/* @proc_root's zoneinfo, sys/vm/watermark_boost_factor and pagetypeinfo read into @r; 0 or -errno. */
int proc_reserve(const char *proc_root, struct zone_reserve *r);

/* @proc_root/iomem's System RAM, blocks of @block bytes; 0 or -errno. */
int proc_iomem_ram(const char *proc_root, uint64_t block, struct iomem_ram *m);

/* The memory block (section) size, /sys/devices/system/memory/block_size_bytes; 0 if unknown. */
uint64_t sys_memory_block(const char *sys_root);

/*
 * The initramfs the kernel unpacked: "Freeing initrd memory" in the kernel log
 * (@dev, /dev/kmsg when NULL), its KiB and time; -ENOENT when the log (or what
 * is left of it) does not say, -errno when it cannot be read.
 */
int kmsg_initrd(const char *dev, uint64_t *kib, uint64_t *ts_ns);

/* The CPU's physical address bits, from /proc/cpuinfo; 0 if it does not say. */
unsigned int proc_phys_bits(const char *proc_root);

/**
 * proc_modules() - call @fn for every well-formed line of /proc/modules
 * Return: the number of lines passed to @fn, or -errno; *@bad counts malformed lines.
 */
int proc_modules(const char *proc_root, void (*fn)(void *ctx, const struct proc_module *pm),
		 void *ctx, uint32_t *bad);

/* @sys_root/devices/system/cpu/online into @mask (proc_parse_cpulist()); 0 or -errno */
int sys_cpus_online(const char *sys_root, uint8_t *mask, uint32_t nbits);

/* /sys/module/NAME/coresize + initsize in KiB (rounded up); 0 or -errno */
int sys_module_kib(const char *sys_root, const char *name, uint64_t *kib);

#endif
