// SPDX-License-Identifier: GPL-2.0-only
/* ksymrange.c - a kernel function's address range from /proc/kallsyms (do_init_module's) */
#include "ksymrange.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

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

int proc_initmod_range(const char *proc_root, uint64_t *start, uint64_t *end)
{
	char path[256], buf[65536];
	struct ksym_range r;
	size_t have = 0;
	int fd;

	if (path_fmt(path, sizeof(path), "%s/kallsyms", proc_root))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ksym_range_init(&r, "do_init_module");
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - have);
		char *p, *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = -errno;

			close(fd);
			return e;
		}
		if (!n)
			break;
		have += (size_t)n;
		p = buf;
		while ((nl = memchr(p, '\n', have - (size_t)(p - buf)))) {
			ksym_range_line(&r, p, (size_t)(nl - p));
			p = nl + 1;
		}
		have -= (size_t)(p - buf);
		memmove(buf, p, have);
		if (have == sizeof(buf))
			have = 0;	/* absurd line: drop it */
	}
	close(fd);
	if (!r.found || !r.end)
		return -ENOENT;
	*start = r.start;
	*end = r.end;
	return 0;
}
