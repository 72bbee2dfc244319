/* SPDX-License-Identifier: GPL-2.0-only */
/* outq.h - the stream's output: a bounded queue of whole lines, written without ever blocking */
#ifndef MEMTRACE_OUTQ_H
#define MEMTRACE_OUTQ_H

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
	int fd;
	bool own_fd;		/* opened here: closed by outq_close() */
	uint8_t mode;		/* enum outq_mode */
	char *buf;		/* allocated once */
	size_t cap, head, tail;	/* pending bytes are [head, tail) */
	int err;		/* the first error that stops the output (-EPIPE: no reader) */
	uint64_t bytes, writes;	/* written */
	uint64_t dropped_lines;	/* lines pending when a write error made them go */
};

/**
 * outq_open() - the queue, @cap bytes, on @path appended (never through a
 * symlink: O_NOFOLLOW; created 0600) or on stdout when @path is NULL
 * @err: one line on failure
 * Return: 0, or an exit code.
 */
int outq_open(struct outq *q, const char *path, size_t cap, char *err, size_t errlen);

/* Room for @n bytes at the end of the queue, or NULL (the queue is full). */
char *outq_reserve(struct outq *q, size_t n);

/* @n bytes written at the room outq_reserve() gave are one or more whole lines. */
void outq_commit(struct outq *q, size_t n);

/* Write what the output takes now, without waiting. Return: 0, or q->err. */
int outq_flush(struct outq *q);

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
