/* SPDX-License-Identifier: GPL-2.0-only */
/* lib/scan.h - sscanf's few conversions for the lines memtrace reads, without libc's scanf (pure) */
#ifndef MEMTRACE_LIB_SCAN_H
#define MEMTRACE_LIB_SCAN_H

/**
 * scan() - sscanf(@s, @fmt, ...) for the conversions memtrace's lines need
 *
 * memtrace.meta and memtrace.seed, /proc/mounts, JOURNAL_STREAM: libc's scanf
 * and its floating-point reader are 11 KiB of a static musl binary (the boot
 * binary's), for these. The conversions, as sscanf's:
 *   %llu, %lld, %d  base 10, as strtoull, strtoll, strtol read them (blanks
 *                   first, a sign); %d out of an int's range is no conversion
 *   %Ns             a word of at most N bytes (N is required), blanks first
 *   %c              the next byte, whatever it is
 *   %lf             a plain decimal word, [+-]DIGITS[.DIGITS]: unlike sscanf no
 *                   exponent, inf or nan, and the word must end there
 * A blank in @fmt matches any number of blanks (none too), any other byte
 * itself. Pure.
 * Return: the conversions stored (0 if none, also at the end of @s).
 */
int scan(const char *s, const char *fmt, ...) __attribute__((format(scanf, 2, 3)));

#endif
