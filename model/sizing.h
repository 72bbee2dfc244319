/* SPDX-License-Identifier: GPL-2.0-only */
/* model/sizing.h - how much crashkernel= a capture needs: the terms measured on its boot, and their sum (pure) */
#ifndef MEMTRACE_MODEL_SIZING_H
#define MEMTRACE_MODEL_SIZING_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A capture kernel runs in the reservation crashkernel= made and nothing
 * else. What it needs, in KiB, each part measured on this boot (run/memwatch.c
 * fills them; docs/boot.md, "Sizing crashkernel="):
 *
 *  K  the kernel's own: the reservation (System RAM) less MemTotal (its code,
 *     its struct pages, what it reserved at boot), and one memory block's
 *     struct pages more where the reservation spans fewer blocks than it could
 *     (KASLR places it anywhere: one boot's MemTotal is about 2 MiB below
 *     another's of the same size);
 *  B  before memtrace: MemTotal - MemFree at memtrace's start, less the clean
 *     page cache reclaim could take back and the boot buffer memtrace gives
 *     back once read: the unpacked initramfs, kernel threads, what ran before;
 *  P  the peak above that which reclaim cannot take back: MemTotal - MemFree -
 *     clean page cache, sampled while memtrace runs (after it gave the boot
 *     buffer back), at its highest, less B and memtrace's own then (anonymous
 *     memory without swap, tmpfs and ramfs, dirty and mapped pages, kernel
 *     memory, the modules' code the page events do not show): B + P + T is
 *     that highest need;
 *  T  memtrace itself then: its resident memory and its ring buffers;
 *  U  the boot's own peak above B, from the boot buffer's page events: the
 *     compressed initramfs held while it was unpacked, what was freed before
 *     memtrace started, and the boot buffer itself, held until memtrace read
 *     it (also while memtrace set up its own buffers beside it): the capture
 *     needs the larger of U and P + T;
 *  W  the kernel's free-memory reserve: the zones' min watermarks, below
 *     which an allocation waits for reclaim or the OOM killer, and the most
 *     watermark boosting raises them by after a fragmenting fallback (a tight
 *     capture meets its OOM killer with the boost on).
 *
 * The answer is K + B + max(U, P + T) + W rounded up to a whole MiB. A term
 * that could not be measured (no boot buffer, one that lost events or was not
 * read to its end: U; no memory block size: K's KASLR block) makes it a lower
 * bound, said with the reason. P and T come from /proc/meminfo, not
 * from the events: events lost while tracing leave them whole.
 */
struct sizing {
	bool on;			/* a capture kernel (/proc/vmcore) or --crashkernel */
	bool capture;			/* /proc/vmcore is there */
	/* K */
	uint64_t ram_kib;		/* System RAM of /proc/iomem: the reservation */
	uint64_t total_kib;		/* MemTotal at the start */
	uint64_t memmap_kib;		/* one memory block's struct pages (0: not known) */
	uint32_t blocks, blocks_worst;	/* memory blocks the RAM spans, and could span */
	/* B */
	uint64_t start_need_kib;	/* MemTotal - MemFree - clean page cache at the start */
	uint64_t bootbuf_kib;		/* the boot buffer given back once read */
	/* U */
	bool boot_known;		/* the boot buffer's page events were read */
	uint32_t boot_truncated;	/* of its CPUs, not read to the end (a limit) */
	bool initrd_known;		/* "Freeing initrd memory" is in the kernel log */
	uint64_t initrd_kib;
	uint64_t initrd_ts;		/* when (ns, the kernel log's clock) */
	uint64_t boot_extra_kib;	/* the boot's peak above the start */
	/* P and T */
	uint64_t samples;		/* /proc/meminfo samples */
	uint64_t need_max_kib;		/* MemTotal - MemFree - clean page cache, at its highest */
	uint64_t self_at_max_kib;	/* memtrace's own then */
	uint64_t self_start_kib;	/* memtrace's own when tracing began */
	uint64_t max_uptime_ms;		/* when (CLOCK_BOOTTIME) */
	uint64_t between;		/* maxima found between samples, from the traced level */
	/* the sample with the highest need, its /proc/meminfo parts (KiB): P explained */
	struct sizing_sample {
		uint64_t need, in_use, file, dirty, writeback, mapped, mapped_kept, shmem,
			 unevictable, sreclaimable, uptime_ms;
	} top;
	/* W */
	uint64_t min_free_kib;		/* the zones' min watermarks */
	uint64_t boost_kib;		/* the most watermark boosting adds to them */
	uint32_t zones;			/* that manage memory */
	bool swap;			/* swap there: anonymous memory could go (not counted as such) */
};

/* The answer: its terms (KiB) and their sum, rounded up to MiB. */
struct sizing_answer {
	uint64_t k, b, p, t, u, w;
	uint64_t kaslr;			/* of k: the block more KASLR may cost */
	uint64_t boot_peak;		/* of u: the boot's peak above its end */
	uint64_t sum_kib;		/* k + b + max(u, p + t) + w */
	uint32_t mib;			/* sum_kib rounded up to whole MiB */
	bool boot_sets;			/* u > p + t: the boot's unpack sets the answer */
	bool lower;			/* a lower bound: ... */
	const char *why;		/* ... for this reason (NULL if not) */
};

/* Add up @z's terms; @boot_lost: events the boot buffer lost (its peak may be low). */
void sizing_answer(const struct sizing *z, uint64_t boot_lost, struct sizing_answer *a);

/*
 * The need at the highest traced level between two samples (KiB): a sample's
 * base is its need less the traced level then (@base_then, @base_now: what
 * the events do not show), plus the highest level since (@hi pages of
 * @page_kib). A sample's need is the kernel's at that instant, and some of the
 * pages it sees are still events in the ring buffers, not yet in the traced
 * level: its base is high by those, and they would count twice as they come
 * (read in a burst: at every step). The lower of the two bases is taken, so
 * that where the level is at its high at the second sample (it grew), the
 * answer is that sample's need, not a step more; a peak that came and went
 * between them is above it.
 */
static inline int64_t sizing_between_kib(int64_t base_then, int64_t base_now, int64_t hi,
					 int64_t page_kib)
{
	return (base_then < base_now ? base_then : base_now) + hi * page_kib;
}

/* One memory block's struct pages, KiB: @block_bytes / @page_size pages of 64 bytes. */
uint64_t sizing_memmap_kib(uint64_t block_bytes, uint32_t page_size);

/*
 * The memory blocks a range of @bytes can span at worst: one more than its
 * size needs, when it does not start at a block's start (where KASLR puts the
 * reservation, it mostly does not).
 */
uint32_t sizing_blocks_worst(uint64_t bytes, uint64_t block_bytes);

#endif
