/* SPDX-License-Identifier: GPL-2.0-only */
/* kmsg.h - lines to the kernel log */
#ifndef MEMTRACE_KMSG_H
#define MEMTRACE_KMSG_H

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
