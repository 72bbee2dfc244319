// SPDX-License-Identifier: GPL-2.0-only
/* lib/escape.c - task and module names (raw kernel bytes) made safe for text rows and JSON strings */
#include "lib/escape.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

size_t escape_text_char(unsigned char c, char e[4])
{
	static const char hex[] = "0123456789abcdef";

	if (c == '\\') {
		e[0] = e[1] = '\\';
		return 2;
	}
	if (c >= 0x20 && c < 0x7f) {
		e[0] = (char)c;
		return 1;
	}
	e[0] = '\\';
	e[1] = 'x';
	e[2] = hex[c >> 4];
	e[3] = hex[c & 15];
	return 4;
}

void escape_text(struct out *o, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		char e[4];

		out_write(o, e, escape_text_char((unsigned char)s[i], e));
	}
}

size_t utf8_seq_len(const unsigned char *s, size_t left)
{
	uint32_t cp;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n > left)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void escape_json(struct out *o, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		unsigned char c = u[i];
		size_t n = utf8_seq_len(u + i, len - i);

		if (n == 0) {
			out_puts(o, "\\ufffd");
			i++;
		} else if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };

			out_write(o, e, 2);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			out_printf(o, "\\u%04x", c);
			i++;
		} else if (n == 2 && c == 0xc2 && u[i + 1] < 0xa0) {
			out_printf(o, "\\u%04x", u[i + 1]);	/* C1 control */
			i += 2;
		} else {
			out_write(o, s + i, n);
			i += n;
		}
	}
}

size_t escape_ascii(char *dst, size_t size, const char *src, size_t len, bool no_space)
{
	size_t i;

	for (i = 0; i < len && i + 1 < size && src[i]; i++) {
		unsigned char c = (unsigned char)src[i];

		dst[i] = c >= 0x20 && c < 0x7f && !(no_space && c == ' ') ? (char)c : '?';
	}
	dst[i] = '\0';
	return i;
}

size_t escape_prom(char *dst, size_t size, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, j = 0;

	if (!size)
		return 0;
	while (i < len) {
		unsigned char c = u[i];
		size_t n = utf8_seq_len(u + i, len - i);
		char e[6];
		const char *p = e;
		size_t elen;

		if (n == 1 && c >= 0x20 && c < 0x7f && c != '\\' && c != '"') {
			p = s + i;
			elen = 1;
		} else if (c == '"') {
			p = "\\\"";
			elen = 2;
		} else if (c == '\\') {
			p = "\\\\\\\\";		/* \\ shown, \\\\ in the file */
			elen = 4;
		} else if (n > 1 && !(n == 2 && c == 0xc2 && u[i + 1] < 0xa0)) {
			p = s + i;		/* valid UTF-8, no C1 control */
			elen = n;
		} else {
			/* a control byte, or one that is not UTF-8: \xNN, its backslash escaped */
			snprintf(e, sizeof(e), "\\\\x%c%c", hex[c >> 4], hex[c & 15]);
			elen = 5;
			n = 1;
		}
		if (j + elen >= size)
			break;
		memcpy(dst + j, p, elen);
		j += elen;
		i += n;
	}
	dst[j] = '\0';
	return j;
}

size_t escape_json_buf(char *dst, size_t size, const char *s, size_t len, bool *cut)
{
	static const char hex[] = "0123456789abcdef";
	static const char fffd[6] = { '\\', 'u', 'f', 'f', 'f', 'd' };
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, o = 0;

	while (i < len) {
		unsigned char c = u[i];
		size_t n = utf8_seq_len(u + i, len - i), need, k;
		char e[8];

		if (n == 0) {
			memcpy(e, fffd, 6);
			need = 6;
			n = 1;
		} else if (c == '"' || c == '\\') {
			e[0] = '\\';
			e[1] = (char)c;
			need = 2;
		} else if (c < 0x20 || c == 0x7f || (n == 2 && c == 0xc2 && u[i + 1] < 0xa0)) {
			unsigned char v = n == 2 ? u[i + 1] : c;	/* a C1 control: its code */

			e[0] = '\\';
			e[1] = 'u';
			e[2] = '0';
			e[3] = '0';
			e[4] = hex[v >> 4];
			e[5] = hex[v & 15];
			need = 6;
		} else {
			need = n;
			if (o + need > size)
				break;
			for (k = 0; k < n; k++)
				dst[o + k] = s[i + k];
			o += n;
			i += n;
			continue;
		}
		if (o + need > size)
			break;
		memcpy(dst + o, e, need);
		o += need;
		i += n;
	}
	if (cut)
		*cut = i < len;
	return o;
}
