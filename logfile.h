/* SPDX-License-Identifier: GPL-2.0-only */
/* logfile.h - buffered output to an fd without malloc, atomic log-file replacement, kernel log lines */
#ifndef MEMTRACE_LOGFILE_H
#define MEMTRACE_LOGFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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

typedef void (*out_gen)(struct out *o, void *ctx);

/**
 * logfile_write() - replace @path atomically with what @gen writes
 *
 * Writes a temporary file (mode 0600, O_EXCL) in the same directory, fsyncs
 * it, renames it over @path and fsyncs the directory. A symlink at @path is
 * replaced, never followed; a device, FIFO or socket there is refused. On any failure the temporary file is removed,
 * the old log stays as it was, and @err says why.
 * Return: 0 or -errno.
 */
int logfile_write(const char *path, out_gen gen, void *ctx, char *err, size_t errlen);

/**
 * logfile_replace() - logfile_write() with the file's @mode, and without the
 * fsyncs unless @sync: for a file that is rewritten often and read by others
 * (the Prometheus textfile, mode 0644), where durability does not matter but
 * a reader must never see half of it.
 * Return: 0 or -errno.
 */
int logfile_replace(const char *path, mode_t mode, bool sync, out_gen gen, void *ctx, char *err,
		    size_t errlen);

/**
 * logfile_append() - append what @gen writes to the regular file @path
 *
 * Creates it (mode 0600) if missing. Only a file of our own is appended to
 * (open_append(): a regular file with one name, owned by our uid, writable
 * by no one else, not a symlink); anything else is refused. If a write fails,
 * the file is cut back to its size before, so that no partial line stays,
 * and the next append tries again.
 * Not fsync'ed. Return: 0 or -errno (@err says why).
 */
int logfile_append(const char *path, out_gen gen, void *ctx, char *err, size_t errlen);

/**
 * kmsg_line() - one "<level>text\n" line to the kernel log
 *
 * One open per line: the kernel rate-limits per open file. Where /dev/kmsg
 * cannot be opened (a sandbox, a container) the line goes to stderr without
 * its level prefix, so it is not lost.
 */
void kmsg_line(const char *line);

#endif
