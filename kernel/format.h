/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/format.h - parse tracefs event format files and header_page; read fields from payloads */
#ifndef MEMTRACE_KERNEL_FORMAT_H
#define MEMTRACE_KERNEL_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/ringbuf.h"

#define FMT_NAME_MAX	64
#define FMT_MAX_FIELDS	48

enum fmt_kind {
	FMT_PLAIN,	/* scalar, read as an integer */
	FMT_ARRAY,	/* fixed array, e.g. char comm[16] */
	FMT_DATA_LOC,	/* __data_loc: u32, low 16 = offset from payload, high 16 = length */
	FMT_REL_LOC,	/* __rel_loc: as __data_loc, offset from the end of the field */
	FMT_DYN_TAIL,	/* char buf[] of size 0: data to the end of the payload */
};

struct fmt_field {
	char name[FMT_NAME_MAX];
	uint32_t offset;
	uint32_t size;
	uint8_t is_signed;
	uint8_t kind;		/* enum fmt_kind */
	uint8_t common;		/* one of the common_* fields */
};

struct fmt_event {
	char system[FMT_NAME_MAX];
	char name[FMT_NAME_MAX];
	uint32_t id;
	uint32_t nfields;
	struct fmt_field fields[FMT_MAX_FIELDS];
};

/**
 * fmt_parse_event() - parse the text of an events/<sys>/<event>/format file
 * @ev: result; ev->system is left as the caller set it (the file does not say)
 * @text: file contents (need not be NUL-terminated)
 * @len: length of @text
 * @err: buffer for a one-line reason on failure
 * @errlen: size of @err
 *
 * Return: 0, or -1 with @err set (no name, no ID, a bad field line, too
 * many fields, offsets past 65535).
 */
int fmt_parse_event(struct fmt_event *ev, const char *text, size_t len,
		    char *err, size_t errlen);

/**
 * fmt_parse_header_page() - parse events/header_page into a sub-buffer layout
 *
 * Return: 0, or -1 with @err set if timestamp, commit or data are missing or
 * inconsistent.
 */
int fmt_parse_header_page(struct rb_layout *l, const char *text, size_t len,
			  char *err, size_t errlen);

/** fmt_find() - field by name, or NULL */
const struct fmt_field *fmt_find(const struct fmt_event *ev, const char *name);

/**
 * fmt_get_int() - read an integer field of 1, 2, 4 or 8 bytes
 *
 * @be: the payload's byte order (struct rb_record's big_endian)
 * Sign-extends signed fields. Return: false if the field lies outside the
 * payload or has another size.
 */
bool fmt_get_int(const struct fmt_field *f, const uint8_t *payload,
		 uint32_t len, bool be, uint64_t *out);

/**
 * fmt_get_str() - locate a string or byte-array field
 *
 * Works for fixed arrays, __data_loc, __rel_loc and dynamic tails. The result
 * is not NUL-terminated; *slen stops at the first NUL within the field.
 * @be: the payload's byte order (the __data_loc/__rel_loc word is in it)
 * Return: false if the field or the data it points to lies outside the payload.
 */
bool fmt_get_str(const struct fmt_field *f, const uint8_t *payload,
		 uint32_t len, bool be, const char **s, size_t *slen);

#endif
