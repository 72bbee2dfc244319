/* SPDX-License-Identifier: GPL-2.0-only */
/* lib/json.h - a small reader of JSON text: members, elements, strings; no allocation (pure) */
#ifndef MEMTRACE_LIB_JSON_H
#define MEMTRACE_LIB_JSON_H

#include <stdbool.h>
#include <stddef.h>

#define JSON_MAX_DEPTH	64	/* deeper nesting is malformed for us */

enum json_type { JSON_BAD = 0, JSON_OBJECT, JSON_ARRAY, JSON_STRING, JSON_NUMBER, JSON_TRUE,
		 JSON_FALSE, JSON_NULL };

/* The bytes of one value (an object with its braces, a string with its quotes, ...). */
struct json_val {
	const char *p;
	size_t len;
};

/* A whole text that is one well-formed value (blanks around it allowed); false otherwise. */
bool json_parse(const char *text, size_t len, struct json_val *root);

/* The type of a value found by these functions. */
enum json_type json_type(struct json_val v);

/**
 * json_next() - the next member of an object, or element of an array
 * @pos: 0 to begin; advanced by each call
 * @key: the member's key (a string value); NULL for arrays
 * Return: false at the end (or when @v is not an object or array).
 */
bool json_next(struct json_val v, size_t *pos, struct json_val *key, struct json_val *val);

/* The member @key of object @v (the first one, keys compared decoded); false if none. */
bool json_get(struct json_val v, const char *key, struct json_val *val);

/**
 * json_str() - a string value decoded to UTF-8 in @out (NUL-terminated,
 * cut to @size - 1 bytes at a character's end)
 * Return: its length, or -1 if @v is not a string (then @out is "").
 */
long json_str(struct json_val v, char *out, size_t size);

/*
 * json_utf8_check() - where @text stops being UTF-8 (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF), as JSON text must be
 * Return: the offset of the first byte that is not, or @len if all are.
 */
size_t json_utf8_check(const char *text, size_t len);

#endif
