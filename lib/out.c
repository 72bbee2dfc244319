// SPDX-License-Identifier: GPL-2.0-only
/* lib/out.c - buffered output to an fd without malloc; bounded for readers that stall */
#include "lib/out.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"

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
