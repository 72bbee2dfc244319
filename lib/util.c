// SPDX-License-Identifier: GPL-2.0-only
/* lib/util.c - small file and clock helpers shared by the I/O parts */
#include "lib/util.h"

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
#include <sys/statfs.h>
#include <sys/syscall.h>
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

int read_lines(const char *path, char *buf, size_t size,
	       void (*fn)(void *ctx, const char *text, size_t len), void *ctx)
{
	size_t have = 0;
	bool skip = false;	/* in a line too long for @buf: dropped up to its end */
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, buf + have, size - have);
		char *last, *first;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = -errno;

			close(fd);
			return e;
		}
		if (!n)
			break;
		have += (size_t)n;
		if (skip) {
			first = memchr(buf, '\n', have);
			if (!first) {
				have = 0;
				continue;
			}
			have -= (size_t)(first + 1 - buf);
			memmove(buf, first + 1, have);
			skip = false;
		}
		last = memrchr(buf, '\n', have);
		if (!last) {
			if (have == size) {
				have = 0;	/* an absurd line: dropped */
				skip = true;
			}
			continue;
		}
		fn(ctx, buf, (size_t)(last + 1 - buf));
		have -= (size_t)(last + 1 - buf);
		memmove(buf, last + 1, have);
	}
	if (have)
		fn(ctx, buf, have);
	close(fd);
	return 0;
}

int write_file(const char *path, const char *s)
{
	/* O_NONBLOCK: a FIFO must not hold us up; O_TRUNC at the open, as tracefs wants it */
	int fd = open(path, O_WRONLY | O_TRUNC | O_NONBLOCK | O_CLOEXEC), err = 0;
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		err = -errno;
	else if (!S_ISREG(st.st_mode))
		err = -EINVAL;
	else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
		err = -errno;
	if (err) {
		close(fd);
		return err;
	}
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

/* qsort comparison of two ints. */
static int cmp_int(const void *a, const void *b)
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

/* ---- hostile paths: open_regular(), open_beneath(), fs_special() (issue 21) ---- */

/* @fd is regular (its stat into *@st): then O_TRUNC, and O_NONBLOCK only if it was asked for */
static int regular_fd(int fd, int flags, struct stat *st)
{
	int e;

	if (fstat(fd, st)) {
		e = -errno;
		goto bad;
	}
	if (!S_ISREG(st->st_mode)) {
		e = -EINVAL;
		goto bad;
	}
	/*
	 * F_SETFL sets what the open set but O_NONBLOCK: the flags it changes
	 * (O_APPEND, O_DIRECT, O_NOATIME, O_NONBLOCK, O_ASYNC) are the caller's,
	 * whatever the fd says, so F_GETFL need not ask (a call less a file)
	 */
	if (((flags & O_TRUNC) && ftruncate(fd, 0)) ||
	    (!(flags & O_NONBLOCK) && fcntl(fd, F_SETFL, flags & ~(O_NONBLOCK | O_ASYNC)))) {
		e = -errno;
		goto bad;
	}
	return fd;
bad:
	close(fd);
	return e;
}

int open_regular(const char *path, int flags, mode_t mode)
{
	struct stat st;
	int fd;

	/* a device is not even opened (an open may do something) */
	if (!lstat(path, &st) && !S_ISREG(st.st_mode))
		return S_ISLNK(st.st_mode) ? -ELOOP : -EINVAL;
	fd = open(path, (flags & ~O_TRUNC) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
	return fd < 0 ? -errno : regular_fd(fd, flags, &st);
}

/* One directory below @dfd, made if @create; an fd of it or -errno. */
static int sub_dir(int dfd, const char *name, bool create)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(dfd, name, 0755) && errno != EEXIST)
			return -errno;
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		struct stat st;

		/* O_DIRECTORY on a symlink says ENOTDIR: say what it is */
		if (errno == ENOTDIR && !fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISLNK(st.st_mode))
			errno = ELOOP;
		return -errno;
	}
	return fd;
}

/* openat2() is not to be asked again: not this kernel's, or refused (or a test's walk) */
static bool no_openat2;

void open_beneath_walk(bool walk)
{
	no_openat2 = walk;
}

#ifndef SYS_openat2
#define SYS_openat2 437		/* x86, arm, arm64, s390x (not mips, alpha: the walk) */
#endif
/* lib/ is below core/build.h: the boot build's switch, read here as the compiler has it */
#ifdef MEMTRACE_BOOT
#define MEMTRACE_BOOT_BUILD 1
#else
#define MEMTRACE_BOOT_BUILD 0
#endif

/*
 * @rel's components are all names ("." and ".." are not, nor empty ones):
 * 0, or -EINVAL / -ENAMETOOLONG.
 */
static int rel_names(const char *rel)
{
	const char *p = rel, *slash;

	for (;;) {
		size_t n;

		slash = strchr(p, '/');
		n = slash ? (size_t)(slash - p) : strlen(p);
		if (n > NAME_MAX)
			return -ENAMETOOLONG;
		if (!n || (n == 1 && p[0] == '.') || (n == 2 && !strncmp(p, "..", 2)))
			return -EINVAL;
		if (!slash)
			return 0;
		p = slash + 1;
	}
}

/*
 * The directories of @rel (its first @len bytes) below @dfd in one openat2()
 * (Linux 5.6): no symlink followed (RESOLVE_NO_SYMLINKS: ELOOP), nothing
 * outside @dfd; as the walk below opens them a component at a time, two calls
 * each (a replay of 256 CPUs opens 256 files two directories down). The last
 * component is then opened as the walk opens it. -ENOSYS: the walk; from
 * then on where openat2() is not this kernel's (qemu-user's either) or a
 * sandbox refuses it (and in the boot build); for this path only where the
 * refusal was of it (an EPERM or EINVAL that "." does not get).
 */
static int dirs_at2(int dfd, const char *rel, size_t len)
{
	/* struct open_how and RESOLVE_* (linux/openat2.h), spelled out: libc headers only */
	struct {
		uint64_t flags, mode, resolve;
	} how = {
		/* no O_NOFOLLOW: a symlink as the last directory is ELOOP, not ENOTDIR */
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = 0x04 /* RESOLVE_NO_SYMLINKS */ | 0x08 /* RESOLVE_BENEATH */,
	};
	char dirs[PATH_MAX];
	long fd;

	if (MEMTRACE_BOOT_BUILD || no_openat2 || len >= sizeof(dirs))
		return -ENOSYS;
	memcpy(dirs, rel, len);
	dirs[len] = '\0';
	fd = syscall(SYS_openat2, dfd, dirs, &how, sizeof(how));
	if (fd >= 0)
		return (int)fd;
	if (errno == ENOSYS || errno == E2BIG) {
		no_openat2 = true;
		return -ENOSYS;
	}
	if (errno == EPERM || errno == EINVAL) {
		/* a sandbox's refusal of the call, or of this path only (fanotify, FUSE)? */
		fd = syscall(SYS_openat2, dfd, ".", &how, sizeof(how));
		if (fd >= 0)
			close((int)fd);
		else
			no_openat2 = true;
		return -ENOSYS;
	}
	return -errno;
}

/* The last component of a path, in the directory @cur: as open_beneath() says. */
static int open_last(int cur, const char *name, int flags, mode_t mode, struct stat *st)
{
	int fd;

	if (flags & O_DIRECTORY)
		return sub_dir(cur, name, flags & O_CREAT);
	/* a device is not even opened (an open may do something) */
	if (!fstatat(cur, name, st, AT_SYMLINK_NOFOLLOW) && !S_ISREG(st->st_mode))
		return S_ISLNK(st->st_mode) ? -ELOOP : -EINVAL;
	fd = openat(cur, name, (flags & ~O_TRUNC) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
	return fd < 0 ? -errno : regular_fd(fd, flags, st);
}

int open_beneath(int dfd, const char *rel, int flags, mode_t mode)
{
	struct stat st;

	return open_beneath_stat(dfd, rel, flags, mode, &st);
}

int open_beneath_stat(int dfd, const char *rel, int flags, mode_t mode, struct stat *st)
{
	const char *last = strrchr(rel, '/');
	char name[NAME_MAX + 1];
	const char *p = rel, *slash;
	int cur = dfd, fd;

	st->st_mode = 0;
	fd = rel_names(rel);
	if (fd < 0)
		return fd;
	/* the directories on the way at once, unless some may have to be made */
	if (last && !(flags & O_CREAT)) {
		cur = dirs_at2(dfd, rel, (size_t)(last - rel));
		if (cur >= 0) {
			fd = open_last(cur, last + 1, flags, mode, st);
			close(cur);
			return fd;
		}
		if (cur != -ENOSYS)
			return cur;
		cur = dfd;
	}
	for (;;) {
		size_t n;

		slash = strchr(p, '/');
		n = slash ? (size_t)(slash - p) : strlen(p);	/* a name (rel_names()) */
		memcpy(name, p, n);
		name[n] = '\0';
		fd = slash ? sub_dir(cur, name, flags & O_CREAT) :
			     open_last(cur, name, flags, mode, st);
		if (cur != dfd)
			close(cur);
		if (fd < 0 || !slash)
			return fd;
		cur = fd;
		p = slash + 1;
	}
}

bool fs_special(int fd)
{
	/* from linux/magic.h, spelled out: libc headers only */
	static const unsigned long magic[] = {
		0x74726163,	/* TRACEFS_MAGIC */
		0x64626720,	/* DEBUGFS_MAGIC */
		0x9fa0,		/* PROC_SUPER_MAGIC */
		0x62656572,	/* SYSFS_MAGIC */
		0x73636673,	/* SECURITYFS_MAGIC */
		0x1cd1,		/* DEVPTS_SUPER_MAGIC */
		0x27e0eb,	/* CGROUP_SUPER_MAGIC */
		0x63677270,	/* CGROUP2_SUPER_MAGIC */
		0xcafe4a11,	/* BPF_FS_MAGIC */
		0x62656570,	/* CONFIGFS_MAGIC */
		0x6165676c,	/* PSTOREFS_MAGIC */
		0xde5e81e4,	/* EFIVARFS_MAGIC */
	};
	struct statfs sf;
	size_t i;

	if (fstatfs(fd, &sf))
		return true;	/* unknown is not plain */
	for (i = 0; i < ARRAY_SIZE(magic); i++)
		if ((unsigned long)sf.f_type == magic[i])
			return true;
	return false;
}

ssize_t read_fd_alloc(int fd, char **buf, size_t limit)
{
	struct stat st;
	size_t cap, len = 0;
	char *b;

	*buf = NULL;
	if (fstat(fd, &st))
		return -errno;
	if (st.st_size < 0 || (uint64_t)st.st_size > limit)
		return -EFBIG;
	cap = (size_t)st.st_size + 1;
	b = malloc(cap + 1);
	if (!b)
		return -ENOMEM;
	for (;;) {
		ssize_t n = read(fd, b + len, cap - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			free(b);
			return n;
		}
		if (!n)
			break;
		len += (size_t)n;
		if (len == cap) {	/* grown since fstat: more room, up to the limit */
			char *nb;

			if (cap > limit) {
				free(b);
				return -EFBIG;
			}
			cap = cap * 2 > limit + 1 ? limit + 1 : cap * 2;
			nb = realloc(b, cap + 1);
			if (!nb) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
		}
	}
	b[len] = '\0';
	*buf = b;
	return (ssize_t)len;
}

int write_whole(int fd, const void *buf, size_t len)
{
	off_t at = lseek(fd, 0, SEEK_CUR);
	int e = write_all(fd, buf, len);

	if (e && at >= 0 && !ftruncate(fd, at))
		lseek(fd, at, SEEK_SET);
	errno = -e;	/* for callers that look at errno */
	return e;
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

int err_fmt(int code, char *err, size_t errlen, const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	errno = e;
	return code;
}
