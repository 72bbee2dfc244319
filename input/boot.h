/* SPDX-License-Identifier: GPL-2.0-only */
/* input/boot.h - module events the kernel recorded at boot (trace_event=), read once at start */
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
 * once, before memtrace's own instance starts, and keeps only the module
 * events: which modules were loaded, by which task, and which were removed
 * again. Page events found there are not used (the /proc seed covers what
 * tasks hold at start), so such modules show 0 peak pages and bracket "boot".
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

/* Apply the module events to @s in time order; returns how many were applied. */
uint32_t boot_apply(struct boot_buffer *b, struct stats *s);

#endif
