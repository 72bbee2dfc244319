/* SPDX-License-Identifier: GPL-2.0-only */
/* run/memwatch.h - a capture kernel's memory watched for crashkernel= (model/sizing.h): its facts, /proc/meminfo sampled */
#ifndef MEMTRACE_RUN_MEMWATCH_H
#define MEMTRACE_RUN_MEMWATCH_H

#include <stdbool.h>

#include "core/run.h"

/* The traced level that takes another sample of /proc/meminfo (pages grown since the last). */
#define MEMWATCH_STEP	256

/*
 * At the setup, before the boot buffer is read (a capture kernel:
 * /proc/vmcore, or --crashkernel): the kernel's own (System RAM, memory
 * blocks), the zones' min watermarks, the initramfs's size and when it was
 * freed (the kernel log: the boot buffer's reader needs its time).
 */
void memwatch_setup(struct run *r);

/*
 * After the boot buffer was read (if it was): the boot's peak above the start
 * from its page events, what memtrace gave back of it; once tracing is live,
 * the first sample.
 */
void memwatch_boot(struct run *r);
void memwatch_start(struct run *r);

/*
 * A sample now: MemTotal - MemFree - the clean page cache, and memtrace's own
 * (its resident memory, its ring buffers); the highest kept. The loop takes
 * one each round, the event sink one at each module load and at each
 * MEMWATCH_STEP pages the traced level grew by (memwatch_due()). Between two
 * samples the need is followed event by event: the last sample's, plus what
 * the traced level rose to since (what the events do not show, the same as
 * then), so that a peak between samples is not missed.
 */
void memwatch_sample(struct run *r);

static inline bool memwatch_due(struct run *r, const struct mt_event *ev)
{
	if (!r->sz.on)
		return false;
	if (r->st.sys_cur > r->mw_hi)
		r->mw_hi = r->st.sys_cur;
	return r->st.sys_cur >= r->mw_next || ev->kind == EV_MOD_LOAD;
}

#endif
