/* SPDX-License-Identifier: GPL-2.0-only */
/* output/logfile.h - a log file replaced atomically, or appended to whole lines at a time */
#ifndef MEMTRACE_OUTPUT_LOGFILE_H
#define MEMTRACE_OUTPUT_LOGFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "lib/out.h"

typedef void (*out_gen)(struct out *o, void *ctx);

/**
 * logfile_write() - replace @path atomically with what @gen writes
 *
 * Writes a temporary file (mode 0600, O_EXCL) in the same directory, fsyncs
 * it, renames it over @path and fsyncs the directory. A symlink at @path is
 * replaced, never followed; a device, FIFO or socket there is refused. On any failure the temporary file is removed,
 * the old log stays as it was, and @err says why.
 * Return: 0 or -errno.
 */
int logfile_write(const char *path, out_gen gen, void *ctx, char *err, size_t errlen);

/**
 * logfile_replace() - logfile_write() with the file's @mode, and without the
 * fsyncs unless @sync: for a file that is rewritten often and read by others
 * (the Prometheus textfile, mode 0644), where durability does not matter but
 * a reader must never see half of it.
 * Return: 0 or -errno.
 */
int logfile_replace(const char *path, mode_t mode, bool sync, out_gen gen, void *ctx, char *err,
		    size_t errlen);

/**
 * logfile_check() - what logfile_write() (or, with @append, logfile_append())
 * of @path would fail on, found before anything is written: a directory that
 * is missing or where no file can be made, a directory, device, FIFO or socket
 * at @path, a file there that is not ours to append to. Makes and removes a
 * temporary file beside @path as the write would (O_EXCL, never through a
 * symlink); nothing stays. A file to append to is opened, not written.
 * Return: 0 or -errno (@err says why).
 */
int logfile_check(const char *path, bool append, char *err, size_t errlen);

/**
 * logfile_append() - append what @gen writes to the regular file @path
 *
 * Creates it (mode 0600) if missing. Only a file of our own is appended to
 * (open_append(): a regular file with one name, owned by our uid, writable
 * by no one else, not a symlink); anything else is refused. If a write fails,
 * the file is cut back to its size before, so that no partial line stays,
 * and the next append tries again.
 * Not fsync'ed. Return: 0 or -errno (@err says why).
 */
int logfile_append(const char *path, out_gen gen, void *ctx, char *err, size_t errlen);

/**
 * kmsg_line() - one "<level>text\n" line to the kernel log
 *
 * One open per line: the kernel rate-limits per open file. Where /dev/kmsg
 * cannot be opened (a sandbox, a container) the line goes to stderr without
 * its level prefix, so it is not lost. @dev: the kernel log's device, NULL for
 * /dev/kmsg (struct run's kmsg_dev: the unit tests point it at a file of their own).
 */
void kmsg_line(const char *dev, const char *line);

/* tasks and modules in a summary to the kernel log: the final --kmsg one, an OOM kill's */
#define KMSG_TOP	5

#endif
