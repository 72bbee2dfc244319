// SPDX-License-Identifier: GPL-2.0-only
/* kernel/proc.c - /proc and /sys: their parsers (pure) and readers: names, memory, CPUs, page-frame range, modules */
#include "kernel/proc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/event.h"
#include "lib/util.h"

/* Parse an unsigned decimal at *p (after spaces); advance *p. */
static bool take_u64(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s >= end || !isdigit((unsigned char)*s))
		return false;
	while (s < end && isdigit((unsigned char)*s)) {
		if (x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(*s++ - '0');
	}
	*p = s;
	*v = x;
	return true;
}

int proc_parse_statm(const char *text, size_t len, uint64_t *resident)
{
	const char *p = text, *end = text + len;
	uint64_t size;

	if (!take_u64(&p, end, &size) || !take_u64(&p, end, resident))
		return -1;
	return 0;
}

/* The value of "@key" at the start of a line of /proc/meminfo, in KiB. */
static bool meminfo_value(const char *text, size_t len, const char *key, uint64_t *kib)
{
	const char *p = text, *end = text + len;
	size_t klen = strlen(key);

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;

		if ((size_t)(eol - p) > klen && !memcmp(p, key, klen)) {
			const char *v = p + klen;

			return take_u64(&v, eol, kib);
		}
		p = eol + 1;
	}
	return false;
}

int proc_parse_meminfo(const char *text, size_t len, uint64_t *avail_kib, uint64_t *total_kib)
{
	if (!meminfo_value(text, len, "MemTotal:", total_kib) ||
	    !meminfo_value(text, len, "MemAvailable:", avail_kib))
		return -1;
	return 0;
}

int proc_parse_mem(const char *text, size_t len, struct proc_mem *m)
{
	uint64_t v;

	*m = (struct proc_mem){ 0 };
	if (!meminfo_value(text, len, "MemTotal:", &m->total_kib) ||
	    !meminfo_value(text, len, "MemFree:", &m->free_kib) || m->free_kib > m->total_kib) {
		*m = (struct proc_mem){ 0 };
		return -1;
	}
	if (!meminfo_value(text, len, "MemAvailable:", &m->avail_kib))
		m->avail_kib = 0;
	/* each 0 where the kernel does not say it */
	if (meminfo_value(text, len, "Active(file):", &m->file_kib) &&
	    meminfo_value(text, len, "Inactive(file):", &v))
		m->file_kib += v;
	else
		m->file_kib = 0;
	meminfo_value(text, len, "Dirty:", &m->dirty_kib);
	meminfo_value(text, len, "Writeback:", &m->writeback_kib);
	meminfo_value(text, len, "Mapped:", &m->mapped_kib);
	meminfo_value(text, len, "Shmem:", &m->shmem_kib);
	meminfo_value(text, len, "Unevictable:", &m->unevictable_kib);
	meminfo_value(text, len, "SReclaimable:", &m->sreclaim_kib);
	meminfo_value(text, len, "SwapTotal:", &m->swap_kib);
	meminfo_value(text, len, "VmallocUsed:", &m->vmalloc_kib);
	return 0;
}

int proc_parse_stat(const char *text, size_t len, int32_t *ppid, uint64_t *flags)
{
	const char *end = text + len, *p = NULL, *q;
	uint64_t v = 0;
	int field;

	/* comm may hold spaces and ')': the last ')' ends it */
	for (q = text; q < end; q++)
		if (*q == ')')
			p = q;
	if (!p || p + 4 > end)
		return -1;
	p += 2;			/* ") " */
	if (p >= end || !isalpha((unsigned char)*p))
		return -1;
	p++;			/* state */
	/* fields 4.. : ppid pgrp session tty_nr tpgid flags */
	for (field = 4; field <= 9; field++) {
		if (!take_u64(&p, end, &v)) {
			/* tty_nr and tpgid can be negative */
			while (p < end && *p == ' ')
				p++;
			if (p < end && *p == '-' && (field == 7 || field == 8)) {
				p++;
				if (!take_u64(&p, end, &v))
					return -1;
			} else {
				return -1;
			}
		}
		if (field == 4) {
			if (v > INT32_MAX)
				return -1;
			*ppid = (int32_t)v;
		}
	}
	*flags = v;
	return 0;
}

int proc_parse_cpulist(const char *text, size_t len, uint8_t *mask, uint32_t nbits)
{
	const char *p = text, *end = text + len;

	memset(mask, 0, (nbits + 7) / 8);
	while (end > p && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	if (p == end)
		return 0;
	for (;;) {
		uint64_t a, b, c;

		if (!take_u64(&p, end, &a))
			return -1;
		b = a;
		if (p < end && *p == '-') {
			p++;
			if (!take_u64(&p, end, &b) || b < a)
				return -1;
		}
		for (c = a; c <= b && c < nbits; c++)
			mask[c / 8] |= (uint8_t)(1u << (c % 8));
		if (p == end)
			return 0;
		if (*p++ != ',')
			return -1;
	}
}

int proc_parse_phys_bits(const char *text, size_t len, unsigned int *bits)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		const char *s = p;
		uint64_t v;

		if ((size_t)(le - s) > 13 && !strncmp(s, "address sizes", 13)) {
			s += 13;
			while (s < le && (*s == ' ' || *s == '\t' || *s == ':'))
				s++;
			if (take_u64(&s, le, &v) && v > 0 && v < 64 && (size_t)(le - s) >= 14 &&
			    !strncmp(s, " bits physical", 14)) {
				*bits = (unsigned int)v;
				return 0;
			}
			return -1;
		}
		p = nl ? nl + 1 : end;
	}
	return -1;
}

int proc_parse_zoneinfo(const char *text, size_t len, uint64_t *max_pfn)
{
	const char *p = text, *end = text + len;
	uint64_t spanned = 0, v, best = 0;
	bool have_spanned = false, any = false;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		const char *s = p;

		while (s < le && (*s == ' ' || *s == '\t'))
			s++;
		if ((size_t)(le - s) > 7 && !strncmp(s, "spanned", 7)) {
			s += 7;
			have_spanned = take_u64(&s, le, &spanned);
		} else if ((size_t)(le - s) > 10 && !strncmp(s, "start_pfn:", 10)) {
			s += 10;
			if (take_u64(&s, le, &v) && have_spanned) {
				if (v + spanned > best)
					best = v + spanned;
				any = true;
			}
			have_spanned = false;
		}
		p = nl ? nl + 1 : end;
	}
	if (!any)
		return -1;
	*max_pfn = best;
	return 0;
}

int proc_parse_module_line(const char *line, size_t len, struct proc_module *pm)
{
	const char *p = line, *end = line + len, *w;
	uint64_t refs;
	int field;

	memset(pm, 0, sizeof(*pm));
	while (p < end && *p != ' ' && *p != '\n')
		p++;
	if (p == line || p - line >= MODNAME_LEN || p >= end)
		return -1;
	for (w = line; w < p; w++)
		if (!isalnum((unsigned char)*w) && *w != '_' && *w != '-')
			return -1;
	pm->name = line;
	pm->name_len = (size_t)(p - line);
	if (!take_u64(&p, end, &pm->size))
		return -1;
	/*
	 * refcount: a number; "-1" while rmmod runs the exit function; "-" on
	 * kernels without CONFIG_MODULE_UNLOAD (" - -")
	 */
	while (p < end && *p == ' ')
		p++;
	if (p < end && *p == '-' &&
	    (p + 1 == end || p[1] == ' ' || isdigit((unsigned char)p[1])))
		p++;
	if (p < end && *p != ' ' && !take_u64(&p, end, &refs))
		return -1;
	/* deps ("-" or "a,b,"), then the state word */
	for (field = 0; field < 2; field++) {
		while (p < end && *p == ' ')
			p++;
		w = p;
		while (p < end && *p != ' ' && *p != '\n')
			p++;
		if (p == w)
			return -1;
	}
	pm->loading = (size_t)(p - w) == 7 && !memcmp(w, "Loading", 7);
	/* the address: "0x" and hex digits (zeros where kptr_restrict hides it) */
	while (p < end && *p == ' ')
		p++;
	if (end - p > 2 && p[0] == '0' && p[1] == 'x') {
		uint64_t a = 0;
		const char *q = p + 2;

		while (q < end && isxdigit((unsigned char)*q) && q - p < 18) {
			a = a * 16 + (uint64_t)(isdigit((unsigned char)*q) ? *q - '0' :
						 tolower((unsigned char)*q) - 'a' + 10);
			q++;
		}
		if (q == end || *q == ' ' || *q == '\n')
			pm->addr = a;
	}
	return 0;
}

int proc_read_comm(const char *proc_root, int32_t tid, char *buf, size_t size, size_t *len)
{
	char path[256];
	ssize_t n;

	if (path_fmt(path, sizeof(path), "%s/%d/comm", proc_root, tid))
		return -ENAMETOOLONG;
	n = read_file(path, buf, size);
	if (n < 0)
		return (int)n;
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	*len = (size_t)n;
	return 0;
}

/* @proc_root/meminfo into @buf (4096 bytes are plenty): its length, or -errno */
static ssize_t read_meminfo(const char *proc_root, char *buf, size_t size)
{
	char path[256];

	if (path_fmt(path, sizeof(path), "%s/meminfo", proc_root))
		return -ENAMETOOLONG;
	return read_file(path, buf, size);
}

int proc_meminfo(const char *proc_root, uint64_t *avail_kib, uint64_t *total_kib)
{
	char buf[4096];
	ssize_t n = read_meminfo(proc_root, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	return proc_parse_meminfo(buf, (size_t)n, avail_kib, total_kib) ? -EINVAL : 0;
}

/* "        NAME     1234" at @s (not NAME_more, not NAME:): its value */
static bool zone_value(const char *s, const char *le, const char *name, uint64_t *v)
{
	size_t n = strlen(name);

	while (s < le && (*s == ' ' || *s == '\t'))
		s++;
	if ((size_t)(le - s) <= n || strncmp(s, name, n) || (s[n] != ' ' && s[n] != '\t'))
		return false;
	s += n;
	return take_u64(&s, le, v);
}

/* One zone's watermarks into the sums, if it manages any memory. */
static void zone_add(const uint64_t z[3], uint32_t factor, uint64_t block_pages,
		     struct zone_reserve *r)
{
	uint64_t boost;

	if (!z[2])
		return;
	r->min += z[0];
	/* mm/page_alloc.c boost_watermark(): up to high * factor / 10000, at least a pageblock */
	boost = factor ? z[1] * factor / 10000 : 0;
	if (factor && boost < block_pages)
		boost = block_pages;
	r->boost += boost;
	r->zones++;
}

int proc_parse_zoneinfo_reserve(const char *text, size_t len, uint32_t boost_factor,
				uint64_t block_pages, struct zone_reserve *r)
{
	const char *p = text, *end = text + len;
	uint64_t z[3] = { 0 }, v;	/* min, high, managed of the zone being read */
	bool in_zone = false, any = false;

	*r = (struct zone_reserve){ 0 };
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;

		if ((size_t)(le - p) > 5 && !strncmp(p, "Node ", 5)) {
			if (in_zone)
				zone_add(z, boost_factor, block_pages, r);
			memset(z, 0, sizeof(z));
			in_zone = true;
		} else if (in_zone) {
			if (zone_value(p, le, "min", &v)) {
				z[0] = v;
				any = true;
			} else if (zone_value(p, le, "high", &v)) {
				z[1] = v;
			} else if (zone_value(p, le, "managed", &v)) {
				z[2] = v;
			}
		}
		p = nl ? nl + 1 : end;
	}
	if (in_zone)
		zone_add(z, boost_factor, block_pages, r);
	return any ? 0 : -1;
}

int proc_parse_pageblock(const char *text, size_t len, uint64_t *pages)
{
	const char *p = memmem(text, len, "Pages per block:", 16), *end = text + len;

	if (!p)
		return -1;
	p += 16;
	return take_u64(&p, end, pages) && *pages ? 0 : -1;
}

/* Hex digits at *@p into @v; false if there are none. */
static bool take_hex(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t n = 0;

	if (s >= end || !isxdigit((unsigned char)*s))
		return false;
	while (s < end && isxdigit((unsigned char)*s)) {
		if (n >> 60)
			return false;
		n = n * 16 + (uint64_t)(isdigit((unsigned char)*s) ? *s - '0' :
					tolower((unsigned char)*s) - 'a' + 10);
		s++;
	}
	*p = s;
	*v = n;
	return true;
}

int proc_parse_iomem_ram(const char *text, size_t len, uint64_t block, struct iomem_ram *m)
{
	static const char ram[] = " : System RAM";
	const char *p = text, *end = text + len;
	uint64_t a, b, last = UINT64_MAX, k;
	bool any = false;

	*m = (struct iomem_ram){ 0 };
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		const char *s = p;
		uint32_t nb = 0;

		/* top level only: a range at the start of its line */
		if (take_hex(&s, le, &a) && s < le && *s == '-' && (s++, take_hex(&s, le, &b)) &&
		    b >= a && (size_t)(le - s) == sizeof(ram) - 1 && !memcmp(s, ram, sizeof(ram) - 1)) {
			m->bytes += b - a + 1;
			any = true;
			for (k = block ? a / block : 0; block && k <= b / block; k++) {
				nb++;
				m->blocks += k != last;
				last = k;
			}
			if (b - a + 1 > m->largest) {
				m->largest = b - a + 1;
				m->largest_blocks = nb;
			}
		}
		p = nl ? nl + 1 : end;
	}
	return any ? 0 : -1;
}

int proc_parse_kmsg_initrd(const char *rec, size_t len, uint64_t *kib, uint64_t *ts_ns)
{
	static const char key[] = "Freeing initrd memory: ";
	const char *semi = memchr(rec, ';', len), *p = rec, *end = rec + len, *t;
	uint64_t pri, seq, us, k;

	if (!semi || !take_u64(&p, semi, &pri) || p >= semi || *p++ != ',' ||
	    !take_u64(&p, semi, &seq) || p >= semi || *p++ != ',' || !take_u64(&p, semi, &us))
		return -1;
	t = semi + 1;
	if ((size_t)(end - t) <= sizeof(key) - 1 || memcmp(t, key, sizeof(key) - 1))
		return -1;
	t += sizeof(key) - 1;
	if (!take_u64(&t, end, &k) || t >= end || *t != 'K')
		return -1;
	*kib = k;
	*ts_ns = us * 1000;
	return 0;
}

int proc_reserve(const char *proc_root, struct zone_reserve *r)
{
	static char buf[256 * 1024];
	char path[256], text[64];
	uint64_t block = 0;
	uint32_t factor = 0;
	ssize_t n;

	*r = (struct zone_reserve){ 0 };
	if (!path_fmt(path, sizeof(path), "%s/sys/vm/watermark_boost_factor", proc_root) &&
	    read_file(path, text, sizeof(text)) > 0)
		factor = (uint32_t)strtoul(text, NULL, 10);
	if (!path_fmt(path, sizeof(path), "%s/pagetypeinfo", proc_root) &&
	    (n = read_file(path, buf, sizeof(buf))) > 0)
		proc_parse_pageblock(buf, (size_t)n, &block);
	if (path_fmt(path, sizeof(path), "%s/zoneinfo", proc_root))
		return -ENAMETOOLONG;
	n = read_file(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	if (proc_parse_zoneinfo_reserve(buf, (size_t)n, factor, block, r))
		return -ENOENT;
	r->factor = factor;
	r->block_pages = block;
	return 0;
}

int proc_iomem_ram(const char *proc_root, uint64_t block, struct iomem_ram *m)
{
	static char buf[64 * 1024];
	char path[256];
	ssize_t n;

	*m = (struct iomem_ram){ 0 };
	if (path_fmt(path, sizeof(path), "%s/iomem", proc_root))
		return -ENAMETOOLONG;
	n = read_file(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return proc_parse_iomem_ram(buf, (size_t)n, block, m) ? -ENOENT : 0;
}

uint64_t sys_memory_block(const char *sys_root)
{
	char path[256], buf[64];
	const char *p = buf;
	uint64_t v;
	ssize_t n;

	if (path_fmt(path, sizeof(path), "%s/devices/system/memory/block_size_bytes", sys_root))
		return 0;
	n = read_file(path, buf, sizeof(buf));
	if (n <= 0 || !take_hex(&p, buf + n, &v))
		return 0;
	return v;
}

int kmsg_initrd(const char *dev, uint64_t *kib, uint64_t *ts_ns)
{
	char rec[2048];
	int fd = open(dev ? dev : "/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC), e = -ENOENT;
	ssize_t n;

	if (fd < 0)
		return -errno;
	/* one record a read, from the oldest kept; EAGAIN at the end (EPIPE: one overwritten) */
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && (errno == EPIPE || errno == EINTR))
			continue;
		if (n <= 0)
			break;
		if (!proc_parse_kmsg_initrd(rec, (size_t)n, kib, ts_ns)) {
			e = 0;
			break;
		}
	}
	close(fd);
	return e;
}

int proc_mem(const char *proc_root, struct proc_mem *m)
{
	char buf[4096];
	ssize_t n = read_meminfo(proc_root, buf, sizeof(buf));

	*m = (struct proc_mem){ 0 };
	if (n < 0)
		return (int)n;
	return proc_parse_mem(buf, (size_t)n, m) ? -EINVAL : 0;
}

uint64_t proc_max_pfn(const char *proc_root)
{
	static char buf[256 * 1024];
	char path[256];
	uint64_t max = 0;
	ssize_t n;

	if (path_fmt(path, sizeof(path), "%s/zoneinfo", proc_root))
		return 0;
	n = read_file(path, buf, sizeof(buf));
	if (n <= 0 || proc_parse_zoneinfo(buf, (size_t)n, &max))
		return 0;
	return max;
}

int sys_cpus_online(const char *sys_root, uint8_t *mask, uint32_t nbits)
{
	char path[256], buf[4096];
	ssize_t n;

	if (path_fmt(path, sizeof(path), "%s/devices/system/cpu/online", sys_root))
		return -ENAMETOOLONG;
	n = read_file(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return proc_parse_cpulist(buf, (size_t)n, mask, nbits) ? -EINVAL : 0;
}

unsigned int proc_phys_bits(const char *proc_root)
{
	static char buf[64 * 1024];	/* the first CPU says it */
	unsigned int bits = 0;
	char path[256];
	ssize_t n;

	if (path_fmt(path, sizeof(path), "%s/cpuinfo", proc_root))
		return 0;
	n = read_file(path, buf, sizeof(buf));
	if (n <= 0 || proc_parse_phys_bits(buf, (size_t)n, &bits))
		return 0;
	return bits;
}

int proc_modules(const char *proc_root, void (*fn)(void *ctx, const struct proc_module *pm),
		 void *ctx, uint32_t *bad)
{
	static char buf[1 << 18];
	char path[256];
	const char *p, *end, *nl;
	int n = 0;
	ssize_t len;

	if (path_fmt(path, sizeof(path), "%s/modules", proc_root))
		return -ENAMETOOLONG;
	len = read_file(path, buf, sizeof(buf));
	if (len < 0)
		return (int)len;
	for (p = buf, end = buf + len; p < end; p = nl + 1) {
		struct proc_module pm;

		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;	/* last line without newline (or cut at the buffer) */
		if (nl == p)
			continue;
		if (proc_parse_module_line(p, (size_t)(nl - p), &pm)) {
			(*bad)++;
			continue;
		}
		fn(ctx, &pm);
		n++;
	}
	return n;
}

int sys_module_kib(const char *sys_root, const char *name, uint64_t *kib)
{
	const char *files[] = { "coresize", "initsize" };
	uint64_t total = 0, v;
	char path[256], buf[64];
	bool any = false;
	size_t i;

	for (i = 0; i < 2; i++) {
		const char *p = buf;
		ssize_t n;

		if (path_fmt(path, sizeof(path), "%s/module/%s/%s", sys_root, name, files[i]))
			return -ENAMETOOLONG;
		n = read_file(path, buf, sizeof(buf));
		if (n < 0)
			continue;
		if (!take_u64(&p, buf + n, &v))
			continue;
		total += v;
		any = true;
	}
	if (!any)
		return -ENOENT;
	*kib = (total + 1023) / 1024;
	return 0;
}
