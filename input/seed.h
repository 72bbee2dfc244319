/* SPDX-License-Identifier: GPL-2.0-only */
/* input/seed.h - the tasks alive at start, read from /proc into the tables */
#ifndef MEMTRACE_INPUT_SEED_H
#define MEMTRACE_INPUT_SEED_H

#include <stdint.h>

#include "stats.h"

struct seed_result {
	uint32_t tasks;		/* tasks seeded */
	uint32_t skipped;	/* vanished while read, malformed, or no slot */
	uint64_t pages;		/* seeded pages in total */
};

/**
 * seed_from_proc() - seed every task alive now from /proc
 * @now: clock for the seed time stamps (CLOCK_MONOTONIC in ns)
 * @self: our own pid, not seeded
 * @also: another pid not seeded (--daemon: the parent waiting for readiness), or 0
 *
 * Return: 0, or -errno when @proc_root cannot be opened or listed in full (the
 * tasks seen before a readdir() error are seeded); a task directory that cannot
 * be listed counts in @res->skipped.
 */
int seed_from_proc(const char *proc_root, struct stats *s, uint64_t (*now)(void), int32_t self,
	      int32_t also,
	      struct seed_result *res);

#endif
