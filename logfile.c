// SPDX-License-Identifier: GPL-2.0-only
/* logfile.c - buffered output to an fd without malloc, atomic log-file replacement, kernel log lines */
#include "logfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

void out_init(struct out *o, int fd)
{
	o->fd = fd;
	o->err = 0;
	o->len = 0;
	o->deadline_ns = 0;
	o->dropped = 0;
	o->mem = NULL;
}

void out_init_mem(struct out *o, struct out_mem *m)
{
	out_init(o, -1);
	o->mem = m;
}

/* Append the buffer to the memory sink, NUL-terminated. */
static int flush_mem(struct out *o)
{
	struct out_mem *m = o->mem;

	if (m->len + o->len + 1 > m->cap) {
		size_t cap = m->cap ? m->cap : OUT_BUF_SIZE;
		char *p;

		while (cap < m->len + o->len + 1)
			cap *= 2;
		p = realloc(m->data, cap);
		if (!p)
			return -ENOMEM;
		m->data = p;
		m->cap = cap;
	}
	memcpy(m->data + m->len, o->buf, o->len);
	m->len += o->len;
	m->data[m->len] = '\0';
	return 0;
}

void out_bound(struct out *o, long ms)
{
	struct stat st;

	if (o->mem || (!fstat(o->fd, &st) && S_ISREG(st.st_mode)))
		return;		/* memory, a file: they take what they are given */
	o->deadline_ns = mono_ns() + (uint64_t)ms * 1000000ull;
}

/* Write in pieces of at most PIPE_BUF, each when poll() says the reader made room. */
static int write_bounded(struct out *o, const char *p, size_t len)
{
	while (len) {
		struct pollfd pfd = { o->fd, POLLOUT, 0 };
		uint64_t now = mono_ns();
		size_t n = len < PIPE_BUF ? len : PIPE_BUF;
		ssize_t w;
		int r;

		r = poll(&pfd, 1, now >= o->deadline_ns ? 0 :
			 (int)((o->deadline_ns - now + 999999) / 1000000));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ETIMEDOUT;
		if (pfd.revents & (POLLERR | POLLHUP | POLLNVAL))
			return -EPIPE;
		w = write(o->fd, p, n);
		if (w < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (w < 0)
			return -errno;
		p += w;
		len -= (size_t)w;
		o->len -= (size_t)w;
	}
	return 0;
}

int out_flush(struct out *o)
{
	if (o->err) {
		o->dropped += o->len;
	} else if (o->len && o->mem) {
		o->err = flush_mem(o);
		if (o->err)
			o->dropped += o->len;
	} else if (o->len && o->deadline_ns) {
		o->err = write_bounded(o, o->buf, o->len);
		o->dropped += o->len;	/* what is left */
	} else if (o->len) {
		o->err = write_all(o->fd, o->buf, o->len);
	}
	o->len = 0;
	return o->err;
}

void out_write(struct out *o, const char *s, size_t len)
{
	while (len) {
		size_t room = sizeof(o->buf) - o->len, n = len < room ? len : room;

		memcpy(o->buf + o->len, s, n);
		o->len += n;
		s += n;
		len -= n;
		if (o->len == sizeof(o->buf))
			out_flush(o);
	}
}

void out_puts(struct out *o, const char *s)
{
	out_write(o, s, strlen(s));
}

void out_printf(struct out *o, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	out_write(o, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -e;
}

int logfile_replace(const char *path, mode_t mode, bool sync, out_gen gen, void *ctx, char *err,
		    size_t errlen)
{
	char dir[PATH_MAX], tmp[PATH_MAX];
	static struct out o;	/* 16 KiB: kept off the stack, reused */
	const char *base = strrchr(path, '/');
	struct stat st;
	int fd, dfd, e;

	if (!*path)
		return (errno = EINVAL, fail(err, errlen, "empty log path"));
	if (base) {
		size_t n = (size_t)(base - path);

		if (n == 0)
			n = 1;	/* "/file" */
		if (n >= sizeof(dir))
			return (errno = ENAMETOOLONG, fail(err, errlen, "log path too long"));
		memcpy(dir, path, n);
		dir[n] = '\0';
		base++;
	} else {
		strcpy(dir, ".");
		base = path;
	}
	if (!*base)
		return (errno = EISDIR, fail(err, errlen, "%s: not a file name", path));
	if (!lstat(path, &st) && S_ISDIR(st.st_mode))
		return (errno = EISDIR, fail(err, errlen, "%s: is a directory", path));
	/* a rename would put our file in place of /dev/null, a FIFO, a socket */
	if (!lstat(path, &st) && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		return (errno = EINVAL, fail(err, errlen, "%s: is not a regular file (never "
					     "replaced)", path));
	if (path_fmt(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, base))
		return (errno = ENAMETOOLONG, fail(err, errlen, "log path too long"));
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return fail(err, errlen, "cannot create a file in %s: %s", dir, strerror(errno));
	if (mode != 0600 && fchmod(fd, mode))
		goto fail_tmp;
	out_init(&o, fd);
	gen(&o, ctx);
	e = out_flush(&o);
	if (e) {
		errno = -e;
		goto fail_tmp;
	}
	if (sync && fsync(fd))
		goto fail_tmp;
	if (close(fd)) {
		fd = -1;
		goto fail_tmp;
	}
	fd = -1;
	if (rename(tmp, path))
		goto fail_tmp;
	dfd = sync ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
fail_tmp:
	e = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	errno = e;
	return fail(err, errlen, "writing %s: %s", path, strerror(e));
}

int logfile_write(const char *path, out_gen gen, void *ctx, char *err, size_t errlen)
{
	return logfile_replace(path, 0600, true, gen, ctx, err, errlen);
}

int logfile_append(const char *path, out_gen gen, void *ctx, char *err, size_t errlen)
{
	static struct out o;	/* 16 KiB: kept off the stack, reused */
	char why[200];
	struct stat st;
	int fd, e;

	if (!*path)
		return (errno = EINVAL, fail(err, errlen, "empty log path"));
	/* only a file of our own: another user's could be read, or its lines forged */
	fd = open_append(path, true, why, sizeof(why));
	if (fd < 0)
		return (errno = -fd, fail(err, errlen, "appending to %s: %s", path,
					  *why ? why : strerror(-fd)));
	if (fstat(fd, &st)) {
		e = errno;
		close(fd);
		errno = e;
		return fail(err, errlen, "appending to %s: %s", path, strerror(e));
	}
	out_init(&o, fd);
	gen(&o, ctx);
	e = out_flush(&o);
	if (e) {
		/* no torn line: what this append wrote is taken back */
		bool cut = !ftruncate(fd, st.st_size);

		close(fd);
		errno = -e;
		return fail(err, errlen, "appending to %s: %s%s", path, strerror(-e),
			    cut ? "" : " (a part of the line stays: it could not be cut off)");
	}
	if (close(fd))
		return fail(err, errlen, "appending to %s: %s", path, strerror(errno));
	return 0;
}

void kmsg_line(const char *line)
{
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0) {
		const char *text = line;

		if (text[0] == '<' && text[1] && text[2] == '>')
			text += 3;
		fputs(text, stderr);
		return;
	}
	if (write_all(fd, line, strlen(line)))
		fprintf(stderr, "memtrace: /dev/kmsg: %s\n", strerror(errno));
	close(fd);
}
