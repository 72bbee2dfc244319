/* SPDX-License-Identifier: GPL-2.0-only */
/* lib/out.h - buffered output to an fd without malloc; bounded for readers that stall */
#ifndef MEMTRACE_LIB_OUT_H
#define MEMTRACE_LIB_OUT_H

#include <stddef.h>
#include <stdint.h>

#define OUT_BUF_SIZE	16384

/* What a memory sink holds: the bytes written, NUL-terminated, grown with realloc. */
struct out_mem {
	char *data;		/* NULL until something is written */
	size_t len, cap;
};

/* A write buffer in front of an fd, or of memory (out_init_mem()); the first error sticks. */
struct out {
	int fd;
	int err;		/* first -errno seen, 0 if none */
	size_t len;
	uint64_t deadline_ns;	/* bounded: CLOCK_MONOTONIC time to give up at (0: never) */
	uint64_t dropped;	/* bytes not written: the reader did not take them in time */
	struct out_mem *mem;	/* a memory sink: flushes append there, not to fd */
	char buf[OUT_BUF_SIZE];
};

void out_init(struct out *o, int fd);

/*
 * out_init_mem() - @o writes into @m (appended to what it holds): a report
 * rendered in memory, without a file (the unit tests). No memory: o->err is
 * -ENOMEM, as a failed write. The caller frees m->data.
 */
void out_init_mem(struct out *o, struct out_mem *m);

/*
 * out_bound() - never wait for the reader of @o's fd past @ms from now
 *
 * For stdout and streams that a stalled reader (a pipe nobody reads) could
 * block: writes go out in pieces a pipe takes without blocking, each after
 * poll() says there is room; what is left at the deadline is dropped
 * (o->dropped, o->err = -ETIMEDOUT). A regular file is written as usual.
 */
void out_bound(struct out *o, long ms);
void out_write(struct out *o, const char *s, size_t len);
void out_puts(struct out *o, const char *s);
void out_printf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Flush; returns o->err (0 if everything was written). */
int out_flush(struct out *o);

#endif
