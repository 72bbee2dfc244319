// SPDX-License-Identifier: GPL-2.0-only
/* util.c - small file and clock helpers shared by the I/O parts */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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

int cpu_dir_id(const char *name)
{
	char *end;
	long c;

	if (strncmp(name, "cpu", 3) || !isdigit((unsigned char)name[3]))
		return -1;
	/* "cpu01" is not cpu 1 */
	if (name[3] == '0' && name[4])
		return -1;
	c = strtol(name + 3, &end, 10);
	return *end || c < 0 || c > INT32_MAX ? -1 : (int)c;
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
