// SPDX-License-Identifier: GPL-2.0-only
/* lib/scan.c - sscanf's few conversions for the lines memtrace reads, without libc's scanf (pure) */
#include "lib/scan.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>

static const char *blanks(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

/*
 * %lf: [+-]DIGITS[.DIGITS] (or [+-].DIGITS), ending the word; NULL if not.
 * The digits are summed exactly (to 2^53), so a number written with %.3f
 * reads back within an ulp of strtod's, which a %.3f prints the same.
 */
static const char *decimal(const char *p, double *v)
{
	double whole = 0, frac = 0, scale = 1;
	bool neg = false, any = false;

	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	for (; isdigit((unsigned char)*p); p++, any = true)
		whole = whole * 10 + (*p - '0');
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++, any = true) {
			frac = frac * 10 + (*p - '0');
			scale *= 10;
		}
	}
	if (!any || (*p && !isspace((unsigned char)*p)))
		return NULL;
	*v = neg ? -(whole + frac / scale) : whole + frac / scale;
	return p;
}

/* %Ns: at most @width bytes of a word into @dst (width + 1 bytes); NULL if no word */
static const char *word(const char *p, unsigned long width, char *dst)
{
	unsigned long n = 0;

	while (n < width && p[n] && !isspace((unsigned char)p[n])) {
		dst[n] = p[n];
		n++;
	}
	dst[n] = '\0';
	return n ? p + n : NULL;
}

/* One conversion at @f (after its '%'), of @s into the next argument; NULL if none. */
static const char *convert(const char *s, const char **f, va_list *ap)
{
	const char *fmt = *f;
	char *end;

	if (*fmt == 'c') {
		*f = fmt + 1;
		if (!*s)
			return NULL;
		*va_arg(*ap, char *) = *s;
		return s + 1;
	}
	s = blanks(s);
	if (!*s)
		return NULL;
	if (isdigit((unsigned char)*fmt)) {
		unsigned long width = strtoul(fmt, &end, 10);

		if (*end != 's' || !width)
			return NULL;
		*f = end + 1;
		return word(s, width, va_arg(*ap, char *));
	}
	if (fmt[0] == 'd') {
		/* long long: a 32-bit long saturates 99999999999 to INT_MAX, which would pass */
		long long v = strtoll(s, &end, 10);

		*f = fmt + 1;
		if (end == s || v < INT_MIN || v > INT_MAX)
			return NULL;
		*va_arg(*ap, int *) = (int)v;
		return end;
	}
	if (fmt[0] == 'l' && fmt[1] == 'f') {
		*f = fmt + 2;
		return decimal(s, va_arg(*ap, double *));
	}
	if (fmt[0] == 'l' && fmt[1] == 'l' && (fmt[2] == 'u' || fmt[2] == 'd')) {
		*f = fmt + 3;
		if (fmt[2] == 'u') {
			unsigned long long v = strtoull(s, &end, 10);

			if (end != s)
				*va_arg(*ap, unsigned long long *) = v;
		} else {
			long long v = strtoll(s, &end, 10);

			if (end != s)
				*va_arg(*ap, long long *) = v;
		}
		return end != s ? end : NULL;
	}
	return NULL;
}

int scan(const char *s, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	va_start(ap, fmt);
	while (*fmt) {
		if (isspace((unsigned char)*fmt)) {
			s = blanks(s);
			fmt++;
		} else if (*fmt != '%') {
			if (*s != *fmt)
				break;
			s++;
			fmt++;
		} else {
			fmt++;
			s = convert(s, &fmt, &ap);
			if (!s)
				break;
			n++;
		}
	}
	va_end(ap);
	return n;
}
