/* SPDX-License-Identifier: GPL-2.0-only */
/* stream/outq.h - the stream's output: a bounded queue of whole lines, written without ever blocking */
#ifndef MEMTRACE_STREAM_OUTQ_H
#define MEMTRACE_STREAM_OUTQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How the output is written. */
enum outq_mode {
	OQ_FILE = 0,	/* a regular file: everything pending at once */
	OQ_NONBLOCK,	/* a pipe opened anew with O_NONBLOCK: until EAGAIN */
	OQ_POLL,	/* anything else (a terminal, a socket): each write after poll() */
};

/*
 * Lines are appended whole and written in pieces of whole lines of at most
 * PIPE_BUF bytes to anything but a file, so that no line is ever torn or
 * interleaved with another writer's; what does not fit is not queued (the
 * caller counts it as lost).
 */
struct outq {
	int fd;			/* -1 until outq_create() makes the file */
	bool own_fd;		/* opened here: closed by outq_close() */
	bool create;		/* the file is made by outq_create() */
	bool failing;		/* a file's last write failed (a full disk): lines are dropped */
	uint8_t mode;		/* enum outq_mode */
	const char *path;	/* NULL: stdout */
	char *buf;		/* allocated once */
	size_t cap, head, tail;	/* pending bytes are [head, tail) */
	size_t torn;		/* bytes of a torn line still to cut off the file */
	int err;		/* the first error that stops the output (-EPIPE: no reader) */
	int werr;		/* a file's last write error (-errno); it does not stop it */
	uint64_t bytes, writes;	/* written */
	uint64_t dropped_lines;	/* lines pending when a write error made them go */
	uint64_t error_lines;	/* of those, lines a file's write error dropped */
};

/**
 * outq_open() - the queue, @cap bytes, on @path appended or on stdout when
 * @path is NULL. Only a file of our own is appended to (open_append(): a
 * regular file with one name, owned by our uid, writable by no one else,
 * not a symlink); a missing one is only checked for (its directory can be
 * written to) and made by outq_create(), so that nothing is created by a
 * run that cannot trace.
 * @err: one line on failure
 * Return: 0, or an exit code (1 for a file refused for what it is).
 */
int outq_open(struct outq *q, const char *path, size_t cap, char *err, size_t errlen);

/* The missing file of outq_open() created (mode 0600), once tracing works. Return: 0, or an exit code. */
int outq_create(struct outq *q, char *err, size_t errlen);

/* Room for @n bytes at the end of the queue, or NULL (the queue is full). */
char *outq_reserve(struct outq *q, size_t n);

/* @n bytes written at the room outq_reserve() gave are one or more whole lines. */
void outq_commit(struct outq *q, size_t n);

/*
 * Write what the output takes now, without waiting. A file takes whole lines
 * or nothing: after a short write (it is full) the torn line is cut off
 * again; when a write fails, what is pending is dropped and counted
 * (q->error_lines, q->failing) and the next flush tries again.
 * Return: 0, or q->err (which stops the output: not a file's errors).
 */
int outq_flush(struct outq *q);

/*
 * A file with nothing pending: the whole line @line of @n bytes written now,
 * alone (whole, or cut off again), e.g. to try a file that failed again.
 * Return: whether it was written; then q->failing is cleared.
 */
bool outq_write_now(struct outq *q, const char *line, size_t n);

/*
 * At the end: write what is pending, waiting at most @ms for a reader that is
 * slow; lines left after that are dropped. Return: the lines dropped.
 */
uint64_t outq_drain(struct outq *q, long ms);

/* Bytes pending. */
static inline size_t outq_pending(const struct outq *q)
{
	return q->tail - q->head;
}

/* Whether the loop should wait for POLLOUT on q->fd (pending, and not a file). */
static inline bool outq_wants_pollout(const struct outq *q)
{
	return !q->err && q->mode != OQ_FILE && q->tail > q->head;
}

void outq_close(struct outq *q);

#endif
