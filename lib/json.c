// SPDX-License-Identifier: GPL-2.0-only
/* lib/json.c - a small reader of JSON text: members, elements, strings; no allocation (pure) */
#include "lib/json.h"

#include "lib/escape.h"

#include <stdint.h>
#include <string.h>

static const char *blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static const char *skip_string(const char *p, const char *end)
{
	if (p >= end || *p != '"')
		return NULL;
	for (p++; p < end; p++) {
		if (*p == '"')
			return p + 1;
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			if (++p >= end)
				return NULL;
			if (*p == 'u') {
				int i;

				for (i = 1; i <= 4; i++)
					if (p + i >= end || !strchr("0123456789abcdefABCDEF", p[i]) ||
					    !p[i])
						return NULL;
				p += 4;
			} else if (!strchr("\"\\/bfnrt", *p) || !*p) {
				return NULL;
			}
		}
	}
	return NULL;
}

static const char *skip_number(const char *p, const char *end)
{
	const char *s = p;

	if (p < end && *p == '-')
		p++;
	if (p >= end || *p < '0' || *p > '9')
		return NULL;
	while (p < end && ((*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' || *p == 'E' ||
			   *p == '+' || *p == '-'))
		p++;
	return p > s ? p : NULL;
}

static const char *skip_value(const char *p, const char *end, int depth);

/* An object or array from its opening bracket. */
static const char *skip_container(const char *p, const char *end, int depth)
{
	char close = *p == '{' ? '}' : ']';
	bool object = *p == '{', first = true;

	if (depth > JSON_MAX_DEPTH)
		return NULL;
	p = blank(p + 1, end);
	if (p < end && *p == close)
		return p + 1;
	for (;;) {
		if (!first) {
			if (p >= end || *p != ',')
				return NULL;
			p = blank(p + 1, end);
		}
		first = false;
		if (object) {
			p = skip_string(p, end);
			if (!p)
				return NULL;
			p = blank(p, end);
			if (p >= end || *p != ':')
				return NULL;
			p = blank(p + 1, end);
		}
		p = skip_value(p, end, depth + 1);
		if (!p)
			return NULL;
		p = blank(p, end);
		if (p < end && *p == close)
			return p + 1;
	}
}

static const char *skip_word(const char *p, const char *end, const char *w)
{
	size_t n = strlen(w);

	return (size_t)(end - p) >= n && !memcmp(p, w, n) ? p + n : NULL;
}

static const char *skip_value(const char *p, const char *end, int depth)
{
	if (p >= end)
		return NULL;
	switch (*p) {
	case '{':
	case '[':
		return skip_container(p, end, depth);
	case '"':
		return skip_string(p, end);
	case 't':
		return skip_word(p, end, "true");
	case 'f':
		return skip_word(p, end, "false");
	case 'n':
		return skip_word(p, end, "null");
	default:
		return skip_number(p, end);
	}
}

bool json_parse(const char *text, size_t len, struct json_val *root)
{
	const char *end = text + len, *p = blank(text, end), *q = skip_value(p, end, 0);

	if (!q || blank(q, end) != end)
		return false;
	root->p = p;
	root->len = (size_t)(q - p);
	return true;
}

enum json_type json_type(struct json_val v)
{
	if (!v.len)
		return JSON_BAD;
	switch (v.p[0]) {
	case '{':
		return JSON_OBJECT;
	case '[':
		return JSON_ARRAY;
	case '"':
		return JSON_STRING;
	case 't':
		return JSON_TRUE;
	case 'f':
		return JSON_FALSE;
	case 'n':
		return JSON_NULL;
	default:
		return JSON_NUMBER;
	}
}

/* Values come from json_parse(), so they are well-formed: no checks needed but bounds. */
bool json_next(struct json_val v, size_t *pos, struct json_val *key, struct json_val *val)
{
	const char *end, *p, *q;
	bool object = json_type(v) == JSON_OBJECT;

	if (!object && json_type(v) != JSON_ARRAY)
		return false;	/* before any arithmetic: an empty value's p may be NULL */
	end = v.p + v.len;
	p = v.p + (*pos ? *pos : 1);
	p = blank(p, end);
	if (p < end && *p == ',')
		p = blank(p + 1, end);
	if (p >= end || *p == '}' || *p == ']')
		return false;
	if (object) {
		q = skip_string(p, end);
		if (!q)
			return false;
		if (key) {
			key->p = p;
			key->len = (size_t)(q - p);
		}
		p = blank(q, end);
		if (p >= end || *p != ':')
			return false;
		p = blank(p + 1, end);
	} else if (key) {
		key->p = NULL;
		key->len = 0;
	}
	q = skip_value(p, end, 1);
	if (!q)
		return false;
	val->p = p;
	val->len = (size_t)(q - p);
	*pos = (size_t)(q - v.p);
	return true;
}

bool json_get(struct json_val v, const char *key, struct json_val *val)
{
	struct json_val k;
	size_t pos = 0, n = strlen(key);
	char buf[256];

	if (n >= sizeof(buf))
		return false;
	while (json_next(v, &pos, &k, val)) {
		long l = json_str(k, buf, sizeof(buf));

		if (l == (long)n && !memcmp(buf, key, n))
			return true;
	}
	return false;
}

static int hex4(const char *p)
{
	int v = 0, i;

	for (i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
	}
	return v;
}

/* One code point as UTF-8 into @out if it fits in @room; its length, or 0. */
static size_t put_utf8(char *out, size_t room, uint32_t cp)
{
	unsigned char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (unsigned char)(0xc0 | cp >> 6);
		b[1] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (unsigned char)(0xe0 | cp >> 12);
		b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (unsigned char)(0xf0 | cp >> 18);
		b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	if (n > room)
		return 0;
	memcpy(out, b, n);
	return n;
}

long json_str(struct json_val v, char *out, size_t size)
{
	const char *p, *end;
	size_t o = 0;

	if (!size)
		return -1;
	out[0] = '\0';
	if (json_type(v) != JSON_STRING || v.len < 2)
		return -1;
	end = v.p + v.len - 1;
	for (p = v.p + 1; p < end && o + 1 < size;) {
		uint32_t cp;
		size_t n;

		if (*p != '\\') {
			/* a raw UTF-8 sequence whole, or not at all */
			unsigned char c = (unsigned char)*p;
			size_t k;

			n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
			if (n > (size_t)(end - p))
				n = (size_t)(end - p);
			/* only continuation bytes belong to it (a backslash never does) */
			for (k = 1; k < n; k++)
				if (((unsigned char)p[k] & 0xc0) != 0x80)
					n = k;
			if (o + n > size - 1)
				break;
			memcpy(out + o, p, n);
			o += n;
			p += n;
			continue;
		}
		p++;
		switch (*p) {
		case 'b': cp = '\b'; break;
		case 'f': cp = '\f'; break;
		case 'n': cp = '\n'; break;
		case 'r': cp = '\r'; break;
		case 't': cp = '\t'; break;
		case 'u':
			cp = (uint32_t)hex4(p + 1);
			p += 4;
			/* a surrogate pair makes one code point; a lone half is U+FFFD */
			if (cp >= 0xd800 && cp < 0xdc00 && end - p > 6 && p[1] == '\\' &&
			    p[2] == 'u') {
				uint32_t lo = (uint32_t)hex4(p + 3);

				if (lo >= 0xdc00 && lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					p += 6;
				}
			}
			if (cp >= 0xd800 && cp < 0xe000)
				cp = 0xfffd;
			break;
		default: cp = (unsigned char)*p; break;
		}
		p++;
		n = put_utf8(out + o, size - 1 - o, cp);
		if (!n)
			break;
		o += n;
	}
	out[o] = '\0';
	return (long)o;
}

size_t json_utf8_check(const char *text, size_t len)
{
	const unsigned char *u = (const unsigned char *)text;
	size_t i = 0, n;

	while (i < len) {
		if (u[i] < 0x80) {	/* ASCII, the most of a report */
			i++;
			continue;
		}
		n = utf8_seq_len(u + i, len - i);
		if (!n)
			return i;
		i += n;
	}
	return len;
}
