/* SPDX-License-Identifier: GPL-2.0-only */
/* lib/escape.h - task and module names (raw kernel bytes) made safe for text rows and JSON strings */
#ifndef MEMTRACE_LIB_ESCAPE_H
#define MEMTRACE_LIB_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/out.h"

/*
 * Escaping of task names (raw kernel bytes). Text: printable ASCII stays,
 * backslash doubles, every other byte becomes \xNN, so output is plain ASCII.
 * JSON: valid UTF-8 stays (C1 controls escaped), quotes and backslash are
 * escaped, control bytes become \u00NN and invalid bytes U+FFFD.
 */
void escape_text(struct out *o, const char *s, size_t len);

/* One byte as escape_text() writes it: into @e, 1 to 4 bytes; returns how many. */
size_t escape_text_char(unsigned char c, char e[4]);
void escape_json(struct out *o, const char *s, size_t len);

/* The length of the valid UTF-8 sequence at @s (1 to 4; @left > 0 bytes there), or 0. */
size_t utf8_seq_len(const unsigned char *s, size_t left);

/*
 * escape_ascii() - raw name bytes as plain printable ASCII, for a one-line
 * message (kmsg, the console) or a column of a text table: every byte
 * outside 0x20..0x7e becomes '?', and so does a space if @no_space (a column
 * that must stay one word). Stops at a NUL or after @len bytes; writes at most
 * @size bytes with the NUL (@size > 0). Return: the length written.
 */
size_t escape_ascii(char *dst, size_t size, const char *src, size_t len, bool no_space);

/*
 * A Prometheus label value (text format 0.0.4), as it goes between the quotes:
 * the name as text reports show it (a backslash doubled, control bytes and
 * bytes that are not UTF-8 as \xNN) except that valid UTF-8 is kept, then the
 * format's escapes (backslash, double quote). Valid UTF-8 and no newline,
 * whatever the input. Writes at most @size bytes with the NUL, never half an
 * escape; returns the length. ESCAPE_PROM_MAX(len) bytes always suffice.
 */
#define ESCAPE_PROM_MAX(len)	(5 * (len) + 1)
size_t escape_prom(char *dst, size_t size, const char *s, size_t len);

/**
 * escape_json_buf() - escape_json() into @dst, at most @size bytes, never
 * cutting an escape or a UTF-8 sequence; *@cut (if not NULL) tells whether
 * all of @s fitted. No NUL is written. Return: bytes written.
 */
size_t escape_json_buf(char *dst, size_t size, const char *s, size_t len, bool *cut);

#endif
