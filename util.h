/* SPDX-License-Identifier: GPL-2.0-only */
/* util.h - small file and clock helpers shared by the I/O parts */
#ifndef MEMTRACE_UTIL_H
#define MEMTRACE_UTIL_H

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Read at most size-1 bytes of a file into buf and NUL-terminate; returns bytes or -errno. */
ssize_t read_file(const char *path, char *buf, size_t size);

/* Write a string to an existing file (O_WRONLY|O_TRUNC, no create); 0 or -errno. */
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

#endif
