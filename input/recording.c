// SPDX-License-Identifier: GPL-2.0-only
/* input/recording.c - a recording read back: memtrace.meta and memtrace.seed parsed (pure) */
#include "input/recording.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/scan.h"
#include "lib/util.h"
#include "module.h"

/*
 * Split text into NUL-terminated lines in a bounded buffer; calls fn per line.
 * Lines too long (or with a NUL) are skipped and counted in *bad.
 */
static void each_line(const char *text, size_t len, void (*fn)(char *line, void *ctx),
		      void *ctx, uint32_t *bad)
{
	char line[512];
	size_t pos = 0;

	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;

		if (n < sizeof(line) && !memchr(text + pos, '\0', n)) {
			memcpy(line, text + pos, n);
			line[n] = '\0';
			fn(line, ctx);
		} else {
			(*bad)++;
		}
		pos += n + 1;
	}
}

/* scan()'s %llu (as sscanf's) takes "-1" for 2^64-1: no number in these files is negative */
void meta_word(char *dst, size_t size, const char *src)
{
	size_t i;

	if (!size)
		return;
	for (i = 0; i + 1 < size && src[i] && src[i] != '\n'; i++)
		dst[i] = src[i] > ' ' && src[i] < 0x7f ? src[i] : '?';
	dst[i] = '\0';
}

void meta_when(const struct meta *m, bool iso, char buf[32])
{
	time_t t = (time_t)m->started_at;
	struct tm tm;

	/*
	 * snprintf, not strftime: strftime brings musl's time zone code into a
	 * static binary (8 KiB of the boot binary) for a time in UTC. The modulos
	 * bound the widths for the compiler's truncation check; on gmtime's fields
	 * they change nothing (meta_parse() keeps started_at below 2^40 s: before
	 * the year 36812).
	 */
	buf[0] = '\0';
	if (m->started_at > 0 && gmtime_r(&t, &tm))
		snprintf(buf, 32, "%04u-%02u-%02u%c%02u:%02u:%02u%s",
			 (unsigned)(tm.tm_year + 1900) % 100000, (unsigned)tm.tm_mon % 12 + 1,
			 (unsigned)tm.tm_mday % 32, iso ? 'T' : ' ', (unsigned)tm.tm_hour % 24,
			 (unsigned)tm.tm_min % 60, (unsigned)tm.tm_sec % 61, iso ? "Z" : " UTC");
}

static bool has_negative(const char *line)
{
	const char *p;

	for (p = strchr(line, '-'); p; p = strchr(p + 1, '-'))
		if ((p == line || p[-1] == ' ' || p[-1] == '\t') && p[1] >= '0' && p[1] <= '9')
			return true;
	return false;
}

struct meta_ctx {
	struct meta *m;
	struct reader *r;
	struct stats *s;
	uint32_t *bad;
	uint32_t ranges;	/* module_range lines taken */
};

/*
 * A recording holds the modules' code ranges once each (record.c): as many
 * as modules, a few hundred. Each line is merged into the table as it comes
 * (stacks_set_ranges(): a scan and a sort of the table), so a recording
 * changed to hold millions would take a day: those past this are malformed.
 */
#define RANGE_LINES_MAX 4096

static void meta_line(char *line, void *p)
{
	struct meta_ctx *c = p;
	char name[MODNAME_LEN + 8];
	unsigned long long a, b, v[6];
	int k;
	double d;
	int cpu, i;

	if (!line[0] || !strncmp(line, "memtrace-meta ", 14) || !strncmp(line, "version ", 8))
		return;
	/* meta_parse_boot() reads (and counts) these */
	if (!strncmp(line, "module_before ", 14) || !strncmp(line, "module_boot ", 12) ||
	    !strncmp(line, "module_range", 12))
		return;
	/* one word each (older recordings have none): before the numbers' check, a
	 * release such as 6.1.0-56-amd64 has a '-' */
	if (!strncmp(line, "kernel ", 7)) {
		meta_word(c->m->kernel, sizeof(c->m->kernel), line + 7);
		return;
	}
	if (!strncmp(line, "host ", 5)) {
		meta_word(c->m->host, sizeof(c->m->host), line + 5);
		return;
	}
	/* what made it incomplete: free text (older recordings have neither line) */
	if (!strncmp(line, "incomplete ", 11)) {
		char *w = c->m->why;

		snprintf(w, sizeof(c->m->why), "%s", line + 11);
		for (; *w; w++)		/* printed in the report as it is */
			if ((unsigned char)*w < 0x20 || (unsigned char)*w >= 0x7f)
				*w = '?';
		return;
	}
	if (has_negative(line))
		(*c->bad)++;
	else if (!strcmp(line, "complete 0") || !strcmp(line, "complete 1"))
		c->m->incomplete = line[9] == '0';
	else if (scan(line, "page_size %llu", &a) == 1 && page_size_ok(a))
		c->m->page_size = (uint32_t)a;
	else if (!strcmp(line, "byte_order big") || !strcmp(line, "byte_order little"))
		c->m->byte_order = line[11] == 'b' ? RB_ORDER_BE : RB_ORDER_LE;
	else if (scan(line, "word_size %llu", &a) == 1 && (a == 4 || a == 8))
		c->m->word_size = (uint8_t)a;
	else if ((k = scan(line, "max_pfn %llu %llu", &a, &b)) >= 1 && a <= (1ull << 40)) {
		c->m->max_pfn = a;
		c->m->ram_pfn = k == 2 && b < a ? b : 0;
	}
	else if (scan(line, "initmod %llu %llu", &a, &b) == 2 && a <= b) {
		c->m->initmod_start = a;
		c->m->initmod_end = b;
	} else if (scan(line, "rename_events %llu", &a) == 1)
		c->m->rename_events = a != 0;
	else if (scan(line, "uptime %lf", &d) == 1 && d >= 0 && d < 1e12)
		c->m->uptime_s = d;
	else if (scan(line, "started %llu", &a) == 1 && a > 0 && a < (1ull << 40))
		c->m->started_at = (int64_t)a;
	else if (scan(line, "self_pid %llu", &a) == 1 && a <= INT32_MAX)
		c->m->self_pid = (int32_t)a;
	else if (scan(line, "mem_start %llu %llu %llu", &a, &b, &v[0]) == 3 && a &&
		 a < (1ull << 50) && b <= a && v[0] <= a) {
		c->m->mem_start.total_kib = a;
		c->m->mem_start.free_kib = b;
		c->m->mem_start.avail_kib = v[0];
	}
	else if (scan(line, "cpu_lost %d %llu", &cpu, &a) == 2) {
		for (i = 0; c->r && i < c->r->ncpus; i++)
			if (c->r->cpus[i].cpu == cpu)
				c->r->cpus[i].stats_lost = a;
	} else if (!strncmp(line, "boot_buffer ", 12) &&
		   (k = scan(line + 12, "%llu %llu %llu %llu %llu %llu %llu %llu", &a, &b, &v[0],
			       &v[1], &v[2], &v[3], &v[4], &v[5])) >= 7 && v[0] <= UINT32_MAX &&
		   (k == 7 || v[5] <= UINT32_MAX)) {
		c->m->boot.truncated = k == 8 ? (uint32_t)v[5] : 0;
		c->m->boot_used = true;
		c->m->boot.pages = a;
		c->m->boot.records = b;
		c->m->boot.applied = (uint32_t)v[0];
		c->m->boot.dropped = v[1];
		c->m->boot.lost = v[2];
		c->m->boot.lost_unknown = v[3];
		c->m->boot.bad = v[4];
	} else if (!strncmp(line, "module_untraced ", 16) &&
		   scan(line + 16, "%55s %llu", name, &a) == 2) {
		struct meta *mm = c->m;

		if (mm->extra && mm->nextra < mm->extra_cap) {
			struct mt_module *x = &mm->extra[mm->nextra++];

			memset(x, 0, sizeof(*x));
			memcpy(x->name, name, strlen(name) + 1);	/* %55s: fits */
			x->state = MOD_UNTRACED;
			x->static_kib = a;
			x->static_known = 1;
		}
	} else if (!strncmp(line, "modules_not_listed ", 19) &&
		   scan(line + 19, "%llu", &a) == 1 && a <= UINT32_MAX) {
		c->m->extra_dropped = (uint32_t)a;
	} else if (!strncmp(line, "module_kib ", 11) &&
		   scan(line + 11, "%55s %llu", name, &a) == 2) {
		struct mt_module *mod = c->s ? table_find_module(&c->s->tb, name, strlen(name)) : NULL;

		if (mod) {
			mod->static_kib = a;
			mod->static_known = 1;
		}
	} else {
		(*c->bad)++;
	}
}

/* --stacks: a module's code (without --stacks in the replay: nothing to do). */
static void range_line(struct meta_ctx *c, const char *line)
{
	unsigned long long a, b, ts;
	struct mod_range mr;
	char name[MODNAME_LEN];

	if (!c->s->stacks_on)
		return;
	if (!strcmp(line, "module_ranges_hidden 1")) {
		c->s->sk.hidden = true;
		return;
	}
	memset(&mr, 0, sizeof(mr));
	if (c->ranges >= RANGE_LINES_MAX || has_negative(line) ||
	    scan(line, "module_range %55s %llu %llu %llu", name, &a, &b, &ts) != 4 || a >= b) {
		(*c->bad)++;
		return;
	}
	memcpy(mr.name, name, strlen(name) + 1);	/* %55s: fits */
	mr.start = a;
	mr.end = b;
	mr.from_ts = ts;
	c->ranges++;
	if (stacks_set_ranges(&c->s->sk, &mr, 1))
		(*c->bad)++;
}

static void boot_line(char *line, void *p)
{
	struct meta_ctx *c = p;
	unsigned long long tid, lts, fts;
	char name[MODNAME_LEN];

	if (!strncmp(line, "module_before ", 14)) {
		if (!has_negative(line) && scan(line + 14, "%55s", name) == 1)
			module_present(&c->s->tb, name, strlen(name));
		else
			(*c->bad)++;
		return;
	}
	if (!strncmp(line, "module_range", 12)) {
		range_line(c, line);
		return;
	}
	if (strncmp(line, "module_boot ", 12))
		return;
	if (has_negative(line) ||
	    scan(line, "module_boot %55s %llu %llu %llu", name, &tid, &lts, &fts) != 4 ||
	    tid > INT32_MAX) {
		(*c->bad)++;
		return;
	}
	if (module_booted(&c->s->tb, name, strlen(name), (int32_t)tid, lts) && fts)
		module_gone(&c->s->tb, name, strlen(name), fts);
}

void meta_parse_boot(const char *text, size_t len, struct stats *s, uint32_t *bad)
{
	struct meta_ctx c = { .s = s, .bad = bad };
	uint32_t counted_by_meta_parse = 0;	/* the same lines reach meta_parse() */

	each_line(text, len, boot_line, &c, &counted_by_meta_parse);
}

void meta_parse(const char *text, size_t len, struct meta *m, struct reader *r,
		struct stats *s, uint32_t *bad)
{
	struct meta_ctx c = { .m = m, .r = r, .s = s, .bad = bad };

	each_line(text, len, meta_line, &c, bad);
}

struct seed_ctx {
	struct stats *s;
	uint64_t pages;
	uint32_t n;
	uint32_t *bad;
	uint32_t *full;		/* well-formed, but no slot left in the task table */
};

static int unhex(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;
}

static void seed_line(char *line, void *p)
{
	struct seed_ctx *c = p;
	long long tid, tgid, ppid;
	int kthread;
	unsigned long long pages, ts;
	char commhex[2 * COMM_LEN + 2], comm[COMM_LEN];
	size_t i, n;

	if (!line[0])
		return;
	if (scan(line, "seed %lld %lld %lld %d %llu %llu %33s", &tid, &tgid, &ppid, &kthread,
		   &pages, &ts, commhex) != 7 || tid < 0 || tid > INT32_MAX || tgid < 0 ||
	    tgid > INT32_MAX || ppid < 0 || ppid > INT32_MAX || pages > (1ull << 40) ||
	    has_negative(line)) {
		(*c->bad)++;
		return;
	}
	n = strcmp(commhex, "-") ? strlen(commhex) / 2 : 0;
	/* "-" is the empty comm; any other odd length (even one digit) is malformed */
	if (n > COMM_LEN - 1 || (strcmp(commhex, "-") && strlen(commhex) != 2 * n)) {
		(*c->bad)++;
		return;
	}
	for (i = 0; i < n; i++) {
		int h = unhex(commhex[2 * i]), l = unhex(commhex[2 * i + 1]);

		if (h < 0 || l < 0) {
			(*c->bad)++;
			return;
		}
		comm[i] = (char)(h * 16 + l);
	}
	if (!stats_seed_task(c->s, (int32_t)tid, (int32_t)tgid, (int32_t)ppid, comm, n, pages, ts,
			     kthread != 0)) {
		(*c->full)++;	/* a table smaller than the recorder's: not a bad line */
		return;
	}
	c->n++;
	c->pages += pages;
}

uint32_t seed_parse(const char *text, size_t len, struct stats *s, uint64_t *pages,
		    uint32_t *bad, uint32_t *full)
{
	struct seed_ctx c = { s, 0, 0, bad, full };

	each_line(text, len, seed_line, &c, bad);
	*pages = c.pages;
	return c.n;
}
