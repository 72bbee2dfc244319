// SPDX-License-Identifier: GPL-2.0-only
/* ksymrange.c - a kernel function's address range from /proc/kallsyms (do_init_module's) */
#include "ksymrange.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "util.h"

void ksym_range_init(struct ksym_range *r, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->name = name;
	r->zero_addrs = true;
}

void ksym_range_line(struct ksym_range *r, const char *line, size_t len)
{
	const char *p = line, *end = line + len, *name;
	uint64_t addr = 0;
	size_t nlen;

	while (p < end && isxdigit((unsigned char)*p)) {
		addr = addr * 16 + (uint64_t)(isdigit((unsigned char)*p) ? *p - '0' :
					       (tolower((unsigned char)*p) - 'a' + 10));
		p++;
	}
	if (p == line || p + 3 > end || *p != ' ')
		return;
	if (addr)
		r->zero_addrs = false;
	name = p + 3;		/* " t " */
	nlen = 0;
	while (name + nlen < end && name[nlen] != ' ' && name[nlen] != '\t' &&
	       name[nlen] != '\n')
		nlen++;
	if (!r->found && nlen == strlen(r->name) && !memcmp(name, r->name, nlen) && addr) {
		r->found = true;
		r->start = addr;
		return;
	}
	/*
	 * Smallest address above start, once start is known: lines before it
	 * (per-cpu symbols at small addresses head a real kallsyms) say nothing
	 * about the end. Feeding the lines again finds an end listed before.
	 */
	if (r->found && addr > r->start && (!r->end || addr < r->end))
		r->end = addr;
}

/* A piece of whole lines (read_lines()), a line at a time. */
static void range_piece(void *ctx, const char *text, size_t len)
{
	const char *p = text, *nl;

	while ((nl = memchr(p, '\n', len - (size_t)(p - text)))) {
		ksym_range_line(ctx, p, (size_t)(nl - p));
		p = nl + 1;
	}
	if (p < text + len)	/* the file's last line, unterminated */
		ksym_range_line(ctx, p, len - (size_t)(p - text));
}

int proc_initmod_range(const char *proc_root, uint64_t *start, uint64_t *end)
{
	char path[256], buf[65536];
	struct ksym_range r;
	int e;

	if (path_fmt(path, sizeof(path), "%s/kallsyms", proc_root))
		return -ENAMETOOLONG;
	ksym_range_init(&r, "do_init_module");
	e = read_lines(path, buf, sizeof(buf), range_piece, &r);
	if (e)
		return e;
	if (!r.found || !r.end)
		return -ENOENT;
	*start = r.start;
	*end = r.end;
	return 0;
}
