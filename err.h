/* SPDX-License-Identifier: GPL-2.0-only */
/* err.h - an error message into the caller's buffer (pure) */
#ifndef MEMTRACE_ERR_H
#define MEMTRACE_ERR_H

#include <stddef.h>

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
