// SPDX-License-Identifier: GPL-2.0-only
/* outq.c - the stream's output: a bounded queue of whole lines, written without ever blocking */
#include "outq.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

int outq_open(struct outq *q, const char *path, size_t cap, char *err, size_t errlen)
{
	struct stat st;

	memset(q, 0, sizeof(*q));
	q->fd = STDOUT_FILENO;
	if (path) {
		q->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
			     O_CLOEXEC | O_NOCTTY, 0600);
		if (q->fd < 0) {
			int e = errno;

			snprintf(err, errlen, "%s: %s", path, e == ELOOP ?
				 "is a symlink (not followed)" : e == ENXIO ?
				 "a FIFO without a reader" : strerror(e));
			return exit_code_for_errno(e);
		}
		q->own_fd = true;
	}
	if (fstat(q->fd, &st)) {
		snprintf(err, errlen, "%s: %s", path ? path : "stdout", strerror(errno));
		return EXIT_RUNTIME;
	}
	if (S_ISREG(st.st_mode)) {
		q->mode = OQ_FILE;
	} else if (S_ISFIFO(st.st_mode) && path) {
		q->mode = OQ_NONBLOCK;
	} else if (S_ISFIFO(st.st_mode)) {
		/* a description of our own, so that O_NONBLOCK changes nobody else's */
		int fd = open("/proc/self/fd/1", O_WRONLY | O_NONBLOCK | O_CLOEXEC);

		if (fd >= 0) {
			q->fd = fd;
			q->own_fd = true;
			q->mode = OQ_NONBLOCK;
		} else {
			q->mode = OQ_POLL;
		}
	} else {
		q->mode = OQ_POLL;
	}
	q->cap = cap;
	q->buf = malloc(cap);
	if (!q->buf) {
		snprintf(err, errlen, "out of memory (output queue of %zu bytes)", cap);
		return EXIT_RUNTIME;
	}
	return 0;
}

char *outq_reserve(struct outq *q, size_t n)
{
	if (q->cap - q->tail >= n)
		return q->buf + q->tail;
	if (q->head && q->cap - (q->tail - q->head) >= n) {
		memmove(q->buf, q->buf + q->head, q->tail - q->head);
		q->tail -= q->head;
		q->head = 0;
		return q->buf + q->tail;
	}
	return NULL;
}

void outq_commit(struct outq *q, size_t n)
{
	q->tail += n;
}

static uint64_t count_lines(const char *p, size_t n)
{
	uint64_t k = 0;
	const char *e = p + n;

	while (p < e && (p = memchr(p, '\n', (size_t)(e - p)))) {
		k++;
		p++;
	}
	return k;
}

/* Everything pending is gone (the output failed): counted. */
static void drop_pending(struct outq *q)
{
	q->dropped_lines += count_lines(q->buf + q->head, q->tail - q->head);
	q->head = q->tail = 0;
}

/* The next piece: whole lines, at most PIPE_BUF bytes (one line if it is longer). */
static size_t piece(const struct outq *q)
{
	size_t n = q->tail - q->head, lim = n < PIPE_BUF ? n : PIPE_BUF;
	const char *p = q->buf + q->head, *nl = memrchr(p, '\n', lim);

	if (nl)
		return (size_t)(nl - p) + 1;
	nl = memchr(p, '\n', n);
	return nl ? (size_t)(nl - p) + 1 : n;
}

/* One write; >0 written, 0 the output takes nothing now, <0 -errno that stops it. */
static ssize_t write_once(struct outq *q)
{
	size_t n = q->mode == OQ_FILE ? q->tail - q->head : piece(q);
	ssize_t w;

	if (q->mode == OQ_POLL) {
		struct pollfd pfd = { q->fd, POLLOUT, 0 };

		if (poll(&pfd, 1, 0) != 1)
			return 0;
		if (pfd.revents & (POLLERR | POLLHUP | POLLNVAL))
			return -EPIPE;
	}
	do {
		w = write(q->fd, q->buf + q->head, n);
	} while (w < 0 && errno == EINTR);
	if (w < 0)
		return errno == EAGAIN ? 0 : -errno;
	q->bytes += (uint64_t)w;
	q->writes++;
	q->head += (size_t)w;
	if (q->head == q->tail)
		q->head = q->tail = 0;
	return w ? w : -EIO;
}

int outq_flush(struct outq *q)
{
	while (!q->err && q->tail > q->head) {
		ssize_t w = write_once(q);

		if (w == 0)
			break;
		if (w < 0) {
			q->err = (int)w;
			drop_pending(q);
		}
	}
	if (q->err)
		drop_pending(q);
	return q->err;
}

uint64_t outq_drain(struct outq *q, long ms)
{
	uint64_t deadline = mono_ns() + (uint64_t)ms * 1000000ull, before = q->dropped_lines;

	for (;;) {
		struct pollfd pfd = { q->fd, POLLOUT, 0 };
		uint64_t now = mono_ns();

		if (outq_flush(q) || q->tail == q->head || now >= deadline)
			break;
		if (poll(&pfd, 1, (int)((deadline - now + 999999) / 1000000)) < 0 && errno != EINTR)
			break;
	}
	drop_pending(q);
	return q->dropped_lines - before;
}

void outq_close(struct outq *q)
{
	if (q->own_fd && q->fd >= 0)
		close(q->fd);
	q->fd = -1;
	q->own_fd = false;
	free(q->buf);
	q->buf = NULL;
}
