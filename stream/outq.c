// SPDX-License-Identifier: GPL-2.0-only
/* stream/outq.c - the stream's output: a bounded queue of whole lines, written without ever blocking */
#include "stream/outq.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"

/* The directory @path would be created in can be written to: 0, or -errno. */
static int dir_writable(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];

	if (!slash)
		strcpy(dir, ".");
	else if (slash == path)
		strcpy(dir, "/");
	else if ((size_t)(slash - path) < sizeof(dir))
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	else
		return -ENAMETOOLONG;
	return faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) ? -errno : 0;
}

/* @fd (-errno) from open_append() into q->fd, or the exit code and @err. */
static int took(struct outq *q, int fd, const char *why, char *err, size_t errlen)
{
	if (fd >= 0) {
		q->fd = fd;
		q->own_fd = true;
		return 0;
	}
	snprintf(err, errlen, "%s: %s", q->path, *why ? why : strerror(-fd));
	/* a file refused for what it is, as a symlink always was: a runtime error */
	return *why ? EXIT_RUNTIME : exit_code_for_errno(fd);
}

int outq_open(struct outq *q, const char *path, size_t cap, char *err, size_t errlen)
{
	char why[200];
	struct stat st;
	int fd, e;

	memset(q, 0, sizeof(*q));
	q->fd = STDOUT_FILENO;
	q->path = path;
	if (path) {
		/* an existing file now; a new one only at outq_create(), once tracing works */
		fd = open_append(path, false, why, sizeof(why));
		if (fd == -ENOENT && !(e = dir_writable(path))) {
			q->fd = -1;
			q->create = true;
		} else if ((e = took(q, fd == -ENOENT ? e : fd, why, err, errlen))) {
			return e;
		}
	}
	if (q->create) {
		q->mode = OQ_FILE;
	} else if (fstat(q->fd, &st)) {
		snprintf(err, errlen, "%s: %s", path ? path : "stdout", strerror(errno));
		return EXIT_RUNTIME;
	} else if (S_ISREG(st.st_mode)) {
		q->mode = OQ_FILE;
	} else if (S_ISFIFO(st.st_mode)) {
		/* stdout (a path is a regular file): a description of our own, so that
		 * O_NONBLOCK changes nobody else's */
		fd = open("/proc/self/fd/1", O_WRONLY | O_NONBLOCK | O_CLOEXEC);

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

int outq_create(struct outq *q, char *err, size_t errlen)
{
	char why[200];

	if (!q->create)
		return 0;
	q->create = false;
	return took(q, open_append(q->path, true, why, sizeof(why)), why, err, errlen);
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

/*
 * The q->torn bytes before the file's offset, the start of a line that a
 * short write tore, cut off again: the file ends with a whole line. 0, or
 * -errno (tried again at the next flush). A file that changed under us
 * (copytruncate) has nothing of ours to cut.
 */
static int cut_torn(struct outq *q)
{
	off_t end = lseek(q->fd, 0, SEEK_CUR), to;
	struct stat st;

	if (end < 0 || fstat(q->fd, &st))
		return -errno;
	if (st.st_size != end || (uint64_t)end < q->torn) {
		q->torn = 0;
		return 0;
	}
	to = end - (off_t)q->torn;
	/* the offset too: stdout's file may have no O_APPEND, and must get no hole */
	if (ftruncate(q->fd, to) || lseek(q->fd, to, SEEK_SET) < 0)
		return -errno;
	q->torn = 0;
	return 0;
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
	if (q->mode == OQ_FILE && (size_t)w < n) {
		/* the file system is full: the whole lines stay, the torn one goes */
		const char *p = q->buf + q->head, *nl = memrchr(p, '\n', (size_t)w);
		size_t whole = nl ? (size_t)(nl - p) + 1 : 0;
		int e;

		q->torn = (size_t)w - whole;
		w = (ssize_t)whole;
		if (q->torn && (e = cut_torn(q)))
			return e;
		if (!w)
			return -ENOSPC;	/* not one line fits */
	}
	q->bytes += (uint64_t)w;
	q->writes++;
	q->head += (size_t)w;
	if (q->head == q->tail)
		q->head = q->tail = 0;
	return w ? w : -EIO;
}

/* A file's write failed: what is pending is dropped and counted; the next flush tries again. */
static void file_failed(struct outq *q, int e)
{
	uint64_t k = count_lines(q->buf + q->head, q->tail - q->head);

	q->error_lines += k;
	q->dropped_lines += k;
	q->head = q->tail = 0;
	q->werr = e;
	q->failing = true;
}

int outq_flush(struct outq *q)
{
	int e;

	if (q->torn && (e = cut_torn(q))) {
		file_failed(q, e);
		return q->err;
	}
	while (!q->err && q->tail > q->head) {
		ssize_t w = write_once(q);

		if (w == 0)
			break;
		if (w < 0 && q->mode == OQ_FILE) {
			file_failed(q, (int)w);
			break;
		}
		if (w < 0) {
			q->err = (int)w;
			drop_pending(q);
		} else {
			q->failing = false;
		}
	}
	if (q->err)
		drop_pending(q);
	return q->err;
}

bool outq_write_now(struct outq *q, const char *line, size_t n)
{
	ssize_t w;

	if (!n || q->mode != OQ_FILE || q->err || q->tail > q->head)
		return false;
	do {
		w = write(q->fd, line, n);
	} while (w < 0 && errno == EINTR);
	if (w < 0 || (size_t)w < n) {
		q->werr = w < 0 ? -errno : -ENOSPC;
		q->failing = true;
		q->torn = w > 0 ? (size_t)w : 0;	/* all of it: not a whole line */
		if (q->torn)
			cut_torn(q);	/* else cut at the next flush */
		return false;
	}
	q->bytes += (uint64_t)w;
	q->writes++;
	q->failing = false;
	return true;
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
