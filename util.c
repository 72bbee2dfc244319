// SPDX-License-Identifier: GPL-2.0-only
/* util.c - small file and clock helpers shared by the I/O parts */
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
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
	/* out of range is ERANGE where long is 32 bits (LONG_MAX is INT32_MAX there) */
	errno = 0;
	c = strtol(name + 3, &end, 10);
	return errno || *end || c < 0 || c > INT32_MAX ? -1 : (int)c;
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

void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int dir_next(DIR *d, struct dirent **de)
{
	errno = 0;
	*de = readdir(d);
	if (*de)
		return 1;
	return errno ? -errno : 0;
}

int cpu_dirs_read(DIR *d, int **ids)
{
	struct dirent *de;
	int n = 0, cap = 0, *v = NULL, e;

	*ids = NULL;
	while ((e = dir_next(d, &de)) > 0) {
		int c = cpu_dir_id(de->d_name);

		if (c < 0)
			continue;
		if (n == cap) {
			int *nv;

			cap = cap ? cap * 2 : 16;
			nv = realloc(v, (size_t)cap * sizeof(*v));
			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
		}
		v[n++] = c;
	}
	if (e < 0) {
		free(v);
		return e;
	}
	if (n)
		qsort(v, (size_t)n, sizeof(*v), cmp_int);
	*ids = v;
	return n;
}

int cpu_dirs(const char *dir, int **ids)
{
	DIR *d = opendir(dir);
	int n;

	*ids = NULL;
	if (!d)
		return -errno;
	n = cpu_dirs_read(d, ids);
	closedir(d);
	return n;
}

long nofile_raise(unsigned long need, struct rlimit *was)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, was))
		return -errno;
	rl = *was;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
		rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need ? rl.rlim_max : need;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			return -errno;
	}
	return rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > LONG_MAX ? LONG_MAX : (long)rl.rlim_cur;
}

/* one line; stderr is line buffered (main), so it is written at once */
static void vwarn(const char *fmt, va_list ap)
{
	fputs("memtrace: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void mt_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

int mt_fail(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	return code;
}

int exit_code_for_errno(int err)
{
	if (err < 0)
		err = -err;
	return err == EACCES || err == EPERM || err == EROFS ? EXIT_PRIV : EXIT_RUNTIME;
}

const char *errno_text(int err)
{
	static char buf[96];
	struct rlimit rl;

	if (err < 0)
		err = -err;
	if (err == ENFILE)
		return "the system is out of file descriptors (ENFILE: fs.file-max)";
	if (err != EMFILE)
		return strerror(err);
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return "out of file descriptors (EMFILE: ulimit -n)";
	snprintf(buf, sizeof(buf), "out of file descriptors (ulimit -n %llu)",
		 (unsigned long long)rl.rlim_cur);
	return buf;
}

/* ------------------------------------------- appending to our own file -- */

/* Why the file @st may not be appended to by us (and an errno for it), or NULL if it may. */
static const char *append_refused(const struct stat *st, int *e, char *buf, size_t len)
{
	*e = EINVAL;
	if (S_ISLNK(st->st_mode))
		return (*e = ELOOP, "is a symlink: not followed");
	if (S_ISFIFO(st->st_mode))
		return "is a FIFO, not a regular file";
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		return "is a device, not a regular file";
	if (S_ISDIR(st->st_mode))
		return (*e = EISDIR, "is a directory");
	if (!S_ISREG(st->st_mode))
		return "is not a regular file";
	*e = EPERM;
	if (st->st_uid != geteuid()) {
		snprintf(buf, len, "belongs to uid %u, not to uid %u that memtrace runs as "
			 "(its owner could read and forge the lines)", (unsigned)st->st_uid,
			 (unsigned)geteuid());
		return buf;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(buf, len, "is writable by its group or others (mode %04o): its lines "
			 "could be forged", (unsigned)(st->st_mode & 07777));
		return buf;
	}
	if (st->st_nlink != 1)
		return "has more than one name (a hard link to another file)";
	return NULL;
}

int open_append(const char *path, bool create, char *why, size_t whylen)
{
	const int wr = O_WRONLY | O_APPEND | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
	char proc[40], buf[160];
	struct stat st, st2;
	const char *no;
	int pfd, fd, e;

	if (whylen)
		*why = '\0';
	/* O_PATH: only looked at, so that a FIFO or a device is not even opened */
	pfd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0 && errno == ENOENT && create) {
		fd = open(path, wr | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
		/* made by someone else meanwhile: looked at like any file that was there */
		pfd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	}
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &st)) {
		e = errno;
		close(pfd);
		return -e;
	}
	no = append_refused(&st, &e, buf, sizeof(buf));
	if (no) {
		close(pfd);
		snprintf(why, whylen, "%s", no);
		return -e;
	}
	/* the very file looked at, opened again for writing; by its name where /proc is not */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, wr);
	if (fd < 0 && errno == ENOENT)
		fd = open(path, wr | O_NOFOLLOW);
	e = errno;
	close(pfd);
	if (fd < 0)
		return -e;
	if (fstat(fd, &st2) || st2.st_dev != st.st_dev || st2.st_ino != st.st_ino) {
		close(fd);
		snprintf(why, whylen, "was replaced while it was opened");
		return -EPERM;
	}
	return fd;
}
