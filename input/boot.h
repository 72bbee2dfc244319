/* SPDX-License-Identifier: GPL-2.0-only */
/* input/boot.h - what the kernel recorded at boot (trace_event=): module loads and page events, read once at start */
#ifndef MEMTRACE_INPUT_BOOT_H
#define MEMTRACE_INPUT_BOOT_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/event.h"
#include "kernel/ringbuf.h"
#include "stats.h"

/*
 * With trace_event=module:module_load,module:module_free on the kernel command
 * line, the kernel records the loads done before any user space ran (systemd
 * loads some as PID 1) in the top-level buffer. --boot-buffer reads that buffer
 * once, before memtrace's own instance starts: its module events say which
 * modules were loaded, by which task, and which were removed again (such
 * modules show 0 peak pages and bracket "boot"). With
 * trace_event=kmem:mm_page_alloc,kmem:mm_page_free too, its page events (and
 * any task event there) go through the accounting as live ones do, so that
 * what each task held when memtrace started is counted from the events
 * (exactly, as far as the buffer kept them) instead of seeded from statm, and
 * the boot's own peak is known: the level of the pages the events showed
 * held, at its highest, before and after the kernel freed the compressed
 * initramfs (@initrd_ts).
 */
struct boot_mod_event {
	uint64_t ts;
	int32_t tid;
	uint8_t kind;			/* EV_MOD_LOAD or EV_MOD_FREE */
	char name[MODNAME_LEN];
};

struct boot_buffer {
	struct boot_mod_event *ev;
	uint32_t n, cap;
	uint64_t pages;			/* sub-buffers read */
	uint64_t records;		/* records decoded (any event) */
	uint64_t dropped;		/* module events beyond cap */
	uint64_t lost;			/* events the kernel dropped (stored counts) */
	uint64_t lost_unknown;		/* pages flagged lost without a count */
	uint64_t bad;			/* malformed pages or records */
	uint32_t truncated;		/* CPUs not read to the end (page or time limit) */
	uint32_t applied;		/* module events applied by boot_apply() */
	/* the page events, where the buffer had them and boot_read() was given a stats */
	struct stats *st;		/* they go through its accounting (NULL: not used) */
	uint64_t initrd_ts;		/* the compressed initramfs freed then (0: not known) */
	uint64_t page_events;		/* page events applied */
	uint64_t first_ts, last_ts;	/* of the events applied (the buffer's clock) */
	int64_t peak_before, peak_after;	/* the highest level before, after @initrd_ts */
	uint64_t peak_ts;		/* when the highest of both was */
	int64_t end;			/* the level when the buffer was read (pages held) */
};

/* Room for @cap module events; 0 or -ENOMEM. */
int boot_init(struct boot_buffer *b, uint32_t cap);
void boot_free(struct boot_buffer *b);

/**
 * boot_read() - read the top-level buffers once and keep their module events
 * @fds: one per CPU, read as the reader reads a recording: to their end (an
 *       fd of -1 is skipped)
 * @max_pages: per CPU, at most this many sub-buffers (0: no limit)
 * @deadline_ns: CLOCK_MONOTONIC time after which reading stops (0: none)
 *
 * The sub-buffers go through the same reader as every other trace (reader.c),
 * merged across CPUs by time; a CPU stopped by a limit counts in truncated.
 * Return: 0, or -ENOMEM.
 */
int boot_read(struct boot_buffer *b, const struct rb_layout *l, const struct mt_decoder *d,
	      int ncpus, const int *cpu_ids, const int *fds, const uint64_t *max_pages,
	      uint64_t deadline_ns);

/*
 * After boot_read() with a stats and page events: what the tasks hold now
 * becomes their seed (TF_SEEDED, seed = seed_left = what they hold), the pfn
 * map is emptied, and the system's level starts again at 0: "above the start"
 * keeps its meaning, and a later free of a boot page is credited to the seed
 * of its process as a statm seed's is. Returns the tasks seeded; *@pages their
 * pages.
 */
uint32_t boot_seed(struct boot_buffer *b, uint64_t *pages);

/* Apply the module events to @s in time order; returns how many were applied. */
uint32_t boot_apply(struct boot_buffer *b, struct stats *s);

#endif
