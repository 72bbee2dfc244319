/* SPDX-License-Identifier: GPL-2.0-only */
/* stream/mempair.h - memory syscalls' entries held per thread until their exits (pure, fixed table) */
#ifndef MEMTRACE_STREAM_MEMPAIR_H
#define MEMTRACE_STREAM_MEMPAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "model/tidset.h"

/* A syscall entered and not yet left. */
struct mp_entry {
	int32_t tid;		/* 0: a free slot */
	uint8_t call;		/* enum mt_call */
	uint64_t ts;
	uint64_t arg[6];
};

/* One entry per thread (a thread is in one syscall at a time), in a tidtab. */
struct mempair {
	struct tidtab tab;	/* of struct mp_entry */
	uint64_t paired;
	uint64_t no_entry;	/* exits whose entry was not seen (before tracing, or lost) */
	uint64_t no_exit;	/* entries replaced by the thread's next one: their exit was lost */
	uint64_t full;		/* entries not kept: the table was full */
	uint64_t mismatched;	/* exits of another call than the entry held */
};

/* Room for @threads threads in a syscall at once; 0 or -ENOMEM. */
int mempair_init(struct mempair *m, uint32_t threads);
void mempair_free(struct mempair *m);

/* @tid entered @call at @ts with @arg (6 values). */
void mempair_enter(struct mempair *m, int32_t tid, uint8_t call, uint64_t ts, const uint64_t *arg);

/* @tid left @call: its entry into @out and true; false if there was none (counted). */
bool mempair_exit(struct mempair *m, int32_t tid, uint8_t call, struct mp_entry *out);

/* Forget @tid's entry (it exited inside the call); nothing if none. */
void mempair_forget(struct mempair *m, int32_t tid);

#endif
