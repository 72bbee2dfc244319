// SPDX-License-Identifier: GPL-2.0-only
/* kernel/ksyms.c - names for the frames a report prints: /proc/kallsyms streamed, only what is needed kept */
#include "kernel/ksyms.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

void ksyms_init(struct ksyms *k)
{
	memset(k, 0, sizeof(*k));
}

void ksyms_free(struct ksyms *k)
{
	free(k->addr);
	free(k->seen);
	free(k->sym);
	free(k->name);
	free(k->names);
	memset(k, 0, sizeof(*k));
}

static uint32_t seen_slot(const struct ksyms *k, uint64_t addr)
{
	uint32_t i = (uint32_t)((addr * 0x9e3779b97f4a7c15ull) >> 32) & k->seen_mask;

	while (k->seen[i] && k->seen[i] != addr)
		i = (i + 1) & k->seen_mask;
	return i;
}

/* The set at most half full: grown (at report time, never on the event path). */
static int seen_grow(struct ksyms *k)
{
	uint32_t cap = k->seen ? 2 * (k->seen_mask + 1) : 1024, i;
	uint64_t *old = k->seen;
	uint32_t old_cap = old ? k->seen_mask + 1 : 0;

	k->seen = calloc(cap, sizeof(*k->seen));
	if (!k->seen) {
		k->seen = old;
		return -ENOMEM;
	}
	k->seen_mask = cap - 1;
	for (i = 0; i < old_cap; i++)
		if (old[i])
			k->seen[seen_slot(k, old[i])] = old[i];
	free(old);
	return 0;
}

int ksyms_want(struct ksyms *k, uint64_t addr)
{
	uint32_t s;

	if (!addr)
		return 0;	/* never a symbol */
	if ((!k->seen || 2 * (k->n + 1) > k->seen_mask + 1) && seen_grow(k))
		return -ENOMEM;
	s = seen_slot(k, addr);
	if (k->seen[s])
		return 0;
	if (k->n == k->cap) {
		uint32_t cap = k->cap ? 2 * k->cap : 256;
		uint64_t *na = realloc(k->addr, cap * sizeof(*na));

		if (!na)
			return -ENOMEM;
		k->addr = na;
		k->cap = cap;
	}
	k->seen[s] = addr;
	k->addr[k->n++] = addr;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The first wanted address at or above @a (n if none). */
static uint32_t lower_bound(const uint64_t *v, uint32_t n, uint64_t a)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (v[mid] < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void ksyms_prepare(struct ksyms *k)
{
	uint32_t i, j = 0;

	qsort(k->addr, k->n, sizeof(*k->addr), cmp_u64);
	for (i = 0; i < k->n; i++)
		if (!j || k->addr[j - 1] != k->addr[i])
			k->addr[j++] = k->addr[i];
	k->n = j;
	free(k->sym);
	free(k->name);
	k->sym = calloc(k->n ? k->n : 1, sizeof(*k->sym));
	k->name = malloc((k->n ? k->n : 1) * sizeof(*k->name));
	if (k->name)
		memset(k->name, 0xff, (k->n ? k->n : 1) * sizeof(*k->name));
	k->hidden = true;
}

/* One line: its address, whether it is a text symbol, its name (and module) span. */
static bool parse_line(const char *l, size_t len, uint64_t *addr, const char **name,
		       size_t *nlen)
{
	const char *p = l, *end = l + len;
	uint64_t a = 0;
	char type;

	while (p < end && isxdigit((unsigned char)*p)) {
		a = a * 16 + (uint64_t)(isdigit((unsigned char)*p) ? *p - '0' :
					 tolower((unsigned char)*p) - 'a' + 10);
		p++;
	}
	if (p == l || p + 3 > end || p[0] != ' ' || p[2] != ' ')
		return false;
	type = p[1];
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return false;
	*addr = a;
	*name = p + 3;
	*nlen = (size_t)(end - *name);
	while (*nlen && ((*name)[*nlen - 1] == '\n' || (*name)[*nlen - 1] == '\r'))
		(*nlen)--;
	return *nlen > 0;
}

/* "name\t[module]" as "name [module]", kept in names[]; its offset, or UINT32_MAX. */
static uint32_t keep_name(struct ksyms *k, const char *name, size_t len)
{
	uint32_t off;
	size_t i;

	if (len > 255)
		len = 255;
	if (k->names_len + len + 1 > k->names_cap) {
		size_t cap = k->names_cap ? 2 * k->names_cap : 4096;
		char *nn;

		if (k->names_len > UINT32_MAX - 256)
			return UINT32_MAX;
		while (cap < k->names_len + len + 1)
			cap *= 2;
		nn = realloc(k->names, cap);
		if (!nn)
			return UINT32_MAX;
		k->names = nn;
		k->names_cap = cap;
	}
	off = (uint32_t)k->names_len;
	for (i = 0; i < len; i++)
		k->names[k->names_len++] = name[i] == '\t' ? ' ' : name[i];
	k->names[k->names_len++] = '\0';
	return off;
}

void ksyms_feed(struct ksyms *k, int pass, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		const char *name;
		uint64_t a;
		size_t nlen;
		uint32_t j;

		k->lines += pass == 1;
		if (parse_line(p, (size_t)(le - p), &a, &name, &nlen)) {
			if (a)
				k->hidden = false;
			j = lower_bound(k->addr, k->n, a);
			if (pass == 1 && a && j < k->n && a > k->sym[j])
				k->sym[j] = a;	/* the highest start in (addr[j-1], addr[j]] */
			if (pass == 2 && a) {
				/* every wanted address whose symbol starts here, from j on */
				uint32_t off = UINT32_MAX;

				for (; j < k->n && k->sym[j] <= a; j++) {
					if (k->sym[j] != a || k->name[j] != UINT32_MAX)
						continue;
					if (off == UINT32_MAX)
						off = keep_name(k, name, nlen);
					k->name[j] = off;
				}
			}
		}
		p = nl ? nl + 1 : end;
	}
}

void ksyms_between(struct ksyms *k)
{
	uint32_t i;

	/* the highest start at or below each address: the running maximum */
	for (i = 1; i < k->n; i++)
		if (k->sym[i] < k->sym[i - 1])
			k->sym[i] = k->sym[i - 1];
}

struct feed_ctx {
	struct ksyms *k;
	int pass;
};

static void feed_piece(void *ctx, const char *text, size_t len)
{
	struct feed_ctx *f = ctx;

	ksyms_feed(f->k, f->pass, text, len);
}

/* Feed a whole file in pieces of whole lines. */
static int feed_file(struct ksyms *k, int pass, const char *path)
{
	static char buf[65536];
	struct feed_ctx f = { k, pass };

	return read_lines(path, buf, sizeof(buf), feed_piece, &f);
}

int ksyms_resolve(struct ksyms *k, const char *path)
{
	int e;

	ksyms_prepare(k);
	if (!k->sym || !k->name)
		return -ENOMEM;
	e = feed_file(k, 1, path);
	if (e)
		return e;
	ksyms_between(k);
	return feed_file(k, 2, path);
}

const char *ksyms_name(const struct ksyms *k, uint64_t addr, uint64_t *off)
{
	uint32_t j = lower_bound(k->addr, k->n, addr);

	if (j >= k->n || k->addr[j] != addr || !k->sym || k->name[j] == UINT32_MAX)
		return NULL;
	*off = addr - k->sym[j];
	return k->names + k->name[j];
}

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
