// SPDX-License-Identifier: GPL-2.0-only
/* util.c - small file and clock helpers shared by the I/O parts */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

ssize_t read_file(const char *path, char *buf, size_t size)
{
	struct stat st;
	size_t len = 0;
	int fd, err;

	if (!size)
		return -EINVAL;
	/* O_NONBLOCK: opening a FIFO must not wait; then anything not regular is refused */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	while (len < size - 1) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			close(fd);
			return -err;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	err = write_all(fd, s, strlen(s));
	if (close(fd) && !err)
		err = -errno;
	return err;
}

int path_fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return (n < 0 || (size_t)n >= size) ? -ENAMETOOLONG : 0;
}

uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
