// SPDX-License-Identifier: GPL-2.0-only
/* kernel/format.c - parse tracefs event format files and header_page; read fields from payloads */
#include "kernel/format.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

#define LINE_MAX_LEN	512
#define FIELD_MAX_VAL	65535u

/* the reason into @err (if given); -1 */
#define fail(err, errlen, ...) err_fmt(-1, err, errlen, __VA_ARGS__)

/* Copy the next line of text into buf; returns false at the end of text. */
static bool next_line(const char *text, size_t len, size_t *pos, char *buf,
		      size_t bufsz, bool *too_long)
{
	size_t start = *pos, n;
	const char *nl;

	if (start >= len)
		return false;
	nl = memchr(text + start, '\n', len - start);
	n = nl ? (size_t)(nl - (text + start)) : len - start;
	*pos = start + n + (nl ? 1 : 0);
	*too_long = n >= bufsz;
	if (*too_long)
		n = bufsz - 1;
	memcpy(buf, text + start, n);
	buf[n] = '\0';
	/* a NUL inside the line ends it; treat as malformed via too_long */
	if (strlen(buf) != n)
		*too_long = true;
	return true;
}

static char *skip_ws(char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	return s;
}

static void rtrim(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

static bool parse_uint(const char *s, uint32_t max, uint32_t *out)
{
	unsigned long v;
	char *end;

	s = skip_ws((char *)s);
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	end = skip_ws(end);
	if (errno || *end || v > max)
		return false;
	*out = (uint32_t)v;
	return true;
}

/*
 * Parse "field:<decl>;\toffset:N;\tsize:N;\tsigned:N;" (the part after
 * "field:"). The name is the last identifier of <decl>, before any [N].
 */
static int parse_field(char *s, struct fmt_field *f, char *err, size_t errlen)
{
	char *semi, *p, *decl, *name_end, *name_start, *br;
	bool got_off = false, got_size = false;
	size_t nlen;

	memset(f, 0, sizeof(*f));
	semi = strchr(s, ';');
	if (!semi)
		return fail(err, errlen, "field line without ';': %.80s", s);
	*semi = '\0';
	decl = skip_ws(s);
	rtrim(decl);
	/* key:value pairs */
	for (p = semi + 1; *p; ) {
		char *kv = skip_ws(p), *colon, *next;
		uint32_t v;

		next = strchr(kv, ';');
		if (next)
			*next = '\0';
		if (*kv) {
			colon = strchr(kv, ':');
			if (!colon)
				return fail(err, errlen, "bad attribute '%.40s'", kv);
			*colon = '\0';
			if (!parse_uint(colon + 1, FIELD_MAX_VAL, &v))
				return fail(err, errlen, "bad value for %.20s in field '%.60s'",
					    kv, decl);
			if (!strcmp(kv, "offset")) {
				f->offset = v;
				got_off = true;
			} else if (!strcmp(kv, "size")) {
				f->size = v;
				got_size = true;
			} else if (!strcmp(kv, "signed")) {
				f->is_signed = v != 0;
			}
			/* unknown attributes are ignored */
		}
		if (!next)
			break;
		p = next + 1;
	}
	if (!got_off || !got_size)
		return fail(err, errlen, "field '%.60s' lacks offset or size", decl);

	/*
	 * name: last identifier before optional trailing [..] groups; a '[' in
	 * the type ("__data_loc char[] name") is not one of them
	 */
	br = NULL;
	name_end = decl + strlen(decl);
	while (name_end > decl && name_end[-1] == ']') {
		char *open = name_end - 1;

		while (open > decl && *open != '[')
			open--;
		if (*open != '[')
			break;
		br = open;
		name_end = open;
		while (name_end > decl && isspace((unsigned char)name_end[-1]))
			name_end--;
	}
	while (name_end > decl && isspace((unsigned char)name_end[-1]))
		name_end--;
	name_start = name_end;
	while (name_start > decl &&
	       (isalnum((unsigned char)name_start[-1]) || name_start[-1] == '_'))
		name_start--;
	nlen = (size_t)(name_end - name_start);
	if (nlen == 0 || nlen >= sizeof(f->name))
		return fail(err, errlen, "no usable field name in '%.60s'", decl);
	memcpy(f->name, name_start, nlen);
	f->name[nlen] = '\0';

	if (!strncmp(decl, "__data_loc", 10))
		f->kind = FMT_DATA_LOC;
	else if (!strncmp(decl, "__rel_loc", 9))
		f->kind = FMT_REL_LOC;
	else if (br && f->size == 0)
		f->kind = FMT_DYN_TAIL;
	else if (br)
		f->kind = FMT_ARRAY;
	else
		f->kind = FMT_PLAIN;
	if ((f->kind == FMT_DATA_LOC || f->kind == FMT_REL_LOC) && f->size != 4)
		return fail(err, errlen, "dynamic field '%s' has size %u, not 4",
			    f->name, f->size);
	f->common = !strncmp(f->name, "common_", 7);
	return 0;
}

int fmt_parse_event(struct fmt_event *ev, const char *text, size_t len,
		    char *err, size_t errlen)
{
	char line[LINE_MAX_LEN];
	size_t pos = 0;
	bool have_name = false, have_id = false, too_long;

	ev->name[0] = '\0';
	ev->id = 0;
	ev->nfields = 0;
	while (next_line(text, len, &pos, line, sizeof(line), &too_long)) {
		char *s = skip_ws(line);

		if (!strncmp(s, "name:", 5)) {
			s = skip_ws(s + 5);
			rtrim(s);
			if (too_long || !*s || strlen(s) >= sizeof(ev->name))
				return fail(err, errlen, "bad name line");
			strcpy(ev->name, s);
			have_name = true;
		} else if (!strncmp(s, "ID:", 3)) {
			if (!parse_uint(s + 3, 0xffff, &ev->id))
				return fail(err, errlen, "bad ID line");
			have_id = true;
		} else if (!strncmp(s, "field:", 6)) {
			if (too_long)
				return fail(err, errlen, "field line too long");
			if (ev->nfields >= FMT_MAX_FIELDS)
				return fail(err, errlen, "more than %d fields", FMT_MAX_FIELDS);
			if (parse_field(s + 6, &ev->fields[ev->nfields], err, errlen))
				return -1;
			ev->nfields++;
		} else if (!strncmp(s, "print fmt:", 10)) {
			break;
		}
	}
	if (!have_name)
		return fail(err, errlen, "no 'name:' line");
	if (!have_id)
		return fail(err, errlen, "no 'ID:' line");
	if (!fmt_find(ev, "common_type"))
		return fail(err, errlen, "no common_type field");
	return 0;
}

int fmt_parse_header_page(struct rb_layout *l, const char *text, size_t len,
			  char *err, size_t errlen)
{
	char line[LINE_MAX_LEN];
	size_t pos = 0;
	bool too_long, got_ts = false, got_commit = false, got_data = false;
	struct fmt_field f;

	memset(l, 0, sizeof(*l));
	l->big_endian = RB_HOST_BE;	/* a guess: the reader takes the order from the data */
	while (next_line(text, len, &pos, line, sizeof(line), &too_long)) {
		char *s = skip_ws(line);

		if (strncmp(s, "field:", 6))
			continue;
		if (too_long || parse_field(s + 6, &f, err, errlen))
			return fail(err, errlen, "header_page: bad field line");
		if (!strcmp(f.name, "timestamp")) {
			if (f.size != 8)
				return fail(err, errlen, "header_page: timestamp size %u", f.size);
			l->ts_off = f.offset;
			got_ts = true;
		} else if (!strcmp(f.name, "commit")) {
			if (f.size != 4 && f.size != 8)
				return fail(err, errlen, "header_page: commit size %u", f.size);
			l->commit_off = f.offset;
			l->commit_size = f.size;
			got_commit = true;
		} else if (!strcmp(f.name, "data")) {
			l->data_off = f.offset;
			l->data_size = f.size;
			got_data = true;
		}
	}
	if (!got_ts || !got_commit || !got_data)
		return fail(err, errlen, "header_page: timestamp, commit or data missing");
	if (l->data_off < l->commit_off + l->commit_size ||
	    l->data_off < l->ts_off + 8 || l->data_size < 16)
		return fail(err, errlen, "header_page: inconsistent layout");
	return 0;
}

const struct fmt_field *fmt_find(const struct fmt_event *ev, const char *name)
{
	uint32_t i;

	for (i = 0; i < ev->nfields; i++)
		if (!strcmp(ev->fields[i].name, name))
			return &ev->fields[i];
	return NULL;
}

bool fmt_get_int(const struct fmt_field *f, const uint8_t *payload,
		 uint32_t len, bool be, uint64_t *out)
{
	const uint8_t *p = payload + f->offset;
	uint64_t v;

	if ((uint64_t)f->offset + f->size > len)
		return false;
	switch (f->size) {
	case 1:
		v = f->is_signed ? (uint64_t)(int64_t)(int8_t)p[0] : p[0];
		break;
	case 2:
		v = rb_ld16(p, be);
		if (f->is_signed)
			v = (uint64_t)(int64_t)(int16_t)v;
		break;
	case 4:
		v = rb_ld32(p, be);
		if (f->is_signed)
			v = (uint64_t)(int64_t)(int32_t)v;
		break;
	case 8:
		v = rb_ld64(p, be);
		break;
	default:
		return false;
	}
	*out = v;
	return true;
}

bool fmt_get_str(const struct fmt_field *f, const uint8_t *payload,
		 uint32_t len, bool be, const char **s, size_t *slen)
{
	uint32_t off, n, loc;
	const void *nul;

	if ((uint64_t)f->offset + f->size > len)
		return false;
	switch (f->kind) {
	case FMT_DATA_LOC:
	case FMT_REL_LOC:
		loc = rb_ld32(payload + f->offset, be);
		off = loc & 0xffff;
		n = loc >> 16;
		if (f->kind == FMT_REL_LOC)
			off += f->offset + 4;
		break;
	case FMT_DYN_TAIL:
		off = f->offset;
		n = len - f->offset;
		break;
	default:
		off = f->offset;
		n = f->size;
		break;
	}
	if ((uint64_t)off + n > len)
		return false;
	nul = memchr(payload + off, '\0', n);
	*s = (const char *)payload + off;
	*slen = nul ? (size_t)((const uint8_t *)nul - (payload + off)) : n;
	return true;
}
