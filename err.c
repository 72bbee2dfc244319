// SPDX-License-Identifier: GPL-2.0-only
/* err.c - an error message into the caller's buffer (pure) */
#include "err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

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
