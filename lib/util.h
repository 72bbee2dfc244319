/* SPDX-License-Identifier: GPL-2.0-only */
/* lib/util.h - small file and clock helpers shared by the I/O parts */
#ifndef MEMTRACE_LIB_UTIL_H
#define MEMTRACE_LIB_UTIL_H

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

/* a + b, at most UINT64_MAX: counts from hostile pages or files must not wrap to small numbers */
static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Read at most size-1 bytes of a file into buf and NUL-terminate; returns bytes or -errno. */
ssize_t read_file(const char *path, char *buf, size_t size);

/*
 * read_lines() - @path read through @buf (@size bytes) and handed to @fn in pieces of
 * whole lines (each piece ends with '\n', but the last, the file's unterminated end); a
 * line longer than @buf is dropped. Return: 0, or -errno of the open or a read.
 */
int read_lines(const char *path, char *buf, size_t size,
	       void (*fn)(void *ctx, const char *text, size_t len), void *ctx);

/*
 * Write a string to an existing regular file (O_WRONLY|O_TRUNC, no create; a
 * FIFO or a device is EINVAL, without waiting); 0 or -errno.
 */
int write_file(const char *path, const char *s);

/* snprintf that reports truncation as -ENAMETOOLONG; 0 on success. */
int path_fmt(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* CLOCK_MONOTONIC in ns (the trace clock "mono"). */
uint64_t mono_ns(void);

/*
 * The CPU of a per_cpu directory entry: N for "cpuN" in the kernel's own spelling
 * (decimal, no sign, no leading zero), else -1.
 */
int cpu_dir_id(const char *name);

/* write() all of buf, retrying on EINTR and short writes; 0 or -errno. */
int write_all(int fd, const void *buf, size_t len);

/* Sleep @ms milliseconds, whatever signals interrupt it. */
void sleep_ms(long ms);

/**
 * cpu_dirs() - the CPUs of a per_cpu directory (tracefs or a recording)
 * @dir: the per_cpu directory
 * @ids: set to a malloc'ed array of cpu numbers, ascending (the caller frees it)
 *
 * Entries are named as the kernel names them (cpu_dir_id()); others are skipped.
 * Return: the number of CPUs (0 or more), or -errno.
 */
int cpu_dirs(const char *dir, int **ids);

/*
 * cpu_dirs() of an open directory stream (not closed): a readdir() error is
 * -errno, never a short list.
 */
int cpu_dirs_read(DIR *d, int **ids);

/*
 * dir_next() - readdir() that tells the end from an error (NULL is both; only
 * errno differs: EOVERFLOW on a 32-bit build without large files, EIO, ENOENT
 * when the directory went away while listed)
 * Return: 1 with *@de set, 0 at the end, -errno on an error.
 */
int dir_next(DIR *d, struct dirent **de);

/* A page size memtrace takes (live, from a recording): a power of two from 512 B to 1 MiB. */
static inline bool page_size_ok(uint64_t bytes)
{
	return bytes >= 512 && bytes <= (1u << 20) && !(bytes & (bytes - 1));
}

/**
 * nofile_raise() - room for @need open files
 * @was: set to RLIMIT_NOFILE as it was
 *
 * The soft limit is raised to @need when it is lower, at most to the hard limit.
 * Return: the soft limit now (below @need only when the hard limit is), or -errno.
 */
long nofile_raise(unsigned long need, struct rlimit *was);

/* Exit status of memtrace, one table for every mode (see memtrace(8), EXIT STATUS). */
enum mt_exit_code {
	EXIT_OK = 0,
	EXIT_RUNTIME = 1,
	EXIT_USAGE = 2,
	EXIT_PRIV = 4,		/* not root, no CAP_SYS_ADMIN, tracefs not writable */
	EXIT_NOEVENT = 5,	/* a required tracepoint is missing */
	EXIT_EXEC = 127,	/* command mode: COMMAND could not be run */
};

/* "memtrace: " and a message on stderr: a warning, or what failed. */
void mt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The error path: say what failed once (as mt_warn()) and return @code, the
 * exit status, for the caller to pass up to main's single cleanup path.
 */
int mt_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The exit status for a failed system call's errno: EXIT_PRIV for EACCES, EPERM, EROFS. */
int exit_code_for_errno(int err);

/*
 * strerror(), but running out of file descriptors is said for what it is,
 * with the limit: "out of file descriptors (ulimit -n 16)" for EMFILE, and
 * ENFILE as the system's limit. @err may be negative. A static buffer.
 */
const char *errno_text(int err);

/**
 * open_append() - @path opened to append to, only if it is our own file: a
 * regular file with one name, owned by our effective uid, writable by no one
 * else, and not a symlink. It is looked at through an O_PATH descriptor
 * first, so that a FIFO or a device is never opened. Missing, it is created
 * with mode 0600 (O_EXCL) when @create, else -ENOENT.
 * Return: the fd (O_APPEND, O_NONBLOCK, O_CLOEXEC), or -errno. A file refused
 * for what it is sets @why ("is a FIFO, ...") with -ELOOP (a symlink),
 * -EISDIR, -EINVAL (not a regular file) or -EPERM (not ours alone); any other
 * failure leaves @why empty.
 */
int open_append(const char *path, bool create, char *why, size_t whylen);

/**
 * err_fmt() - say why into @err, and return @code
 * @code: what the caller returns for this failure (OPT_ERROR, TFS_ERR_RUNTIME, -errno, -1)
 * @err: the caller's buffer for a one-line reason; NULL (or @errlen 0): no message
 *
 * For a function that reports failure by a return value and a reason in a
 * buffer its caller passed: `return err_fmt(-1, err, errlen, "...", ...);`.
 * errno is left as it was, so that @code may be -errno and the caller may
 * still look at errno after it.
 */
int err_fmt(int code, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif

/*
 * Paths that may be hostile (a FIFO, a device, a symlink planted by someone
 * else): opened non-blocking so that nothing waits, never through a symlink,
 * and refused unless they are what they must be.
 */

/*
 * open_regular() - open(@path, @flags, @mode) of a regular file only, never
 * through a symlink in its last component (ELOOP), and without blocking on a
 * FIFO (ENXIO for a write with no reader). Anything but a regular file is
 * EINVAL (after the open: a device may see an open, never a read or write).
 * O_TRUNC is applied after the check; O_NONBLOCK is cleared unless in @flags.
 * Return: the fd, or -errno.
 */
int open_regular(const char *path, int flags, mode_t mode);

/*
 * open_beneath() - open_regular() of @rel below the directory @dfd, where no
 * component may be a symlink (ELOOP) nor "." or ".." (EINVAL). With O_CREAT
 * the missing directories on the way are made (0755); with O_DIRECTORY @rel
 * is a directory (made with O_CREAT) and the fd is of it. The directories on
 * the way are opened in one openat2() where the kernel has it (Linux 5.6), and
 * need then only be searched, as for open(); else each is opened to be read.
 * Return: the fd, or -errno.
 */
int open_beneath(int dfd, const char *rel, int flags, mode_t mode);
/* open_beneath(), and the file's stat into *@st where an fd of a regular file is returned */
int open_beneath_stat(int dfd, const char *rel, int flags, mode_t mode, struct stat *st);
/* open_beneath() walks the path a component at a time, without openat2() (tests) */
void open_beneath_walk(bool walk);

/*
 * fs_special() - whether @fd is on a filesystem whose files are live kernel
 * state (tracefs, debugfs, proc, sysfs, ...): reading them consumes or
 * changes something. A recording is never there.
 */
bool fs_special(int fd);

/*
 * read_fd_alloc() - all of @fd into a malloc'ed, NUL-terminated buffer sized
 * from fstat (and grown if the file grows), at most @limit bytes: more is
 * -EFBIG, never a silent cut.
 * Return: the length with *@buf set (the caller frees it), or -errno.
 */
ssize_t read_fd_alloc(int fd, char **buf, size_t limit);

/*
 * write_whole() - write_all() that leaves no part behind: on an error the
 * file is cut back to where it was (a recorded sub-buffer is whole or absent).
 * Return: 0 or -errno (EFBIG, with SIGXFSZ ignored, is a full disk too).
 */
int write_whole(int fd, const void *buf, size_t len);
