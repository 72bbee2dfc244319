// SPDX-License-Identifier: GPL-2.0-only
/* test_prom.c - the Prometheus text format: names, HELP/TYPE, escaping, bounded and unique series */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/escape.h"
#include "module.h"
#include "output/prom.h"
#include "kernel/reader.h"
#include "output/rows.h"
#include "stats.h"
#include "testutil.h"

/*
 * ---- a strict reader of the text format 0.0.4, written from the format's
 * description (not from prom.c): every line a HELP, a TYPE or a sample; a
 * family's HELP, then TYPE, then its samples, all together, once; names and
 * label names by the format's grammar; label values with the three escapes
 * only; integer values; the whole file valid UTF-8 without control bytes
 * other than the newlines that end lines; no series twice.
 */

#define PMAX_LABELS	4

struct psample {
	char name[128];
	int nlabels;
	char lname[PMAX_LABELS][32];
	char lval[PMAX_LABELS][256];	/* decoded */
	char value[32];
};

struct pfamily {
	char name[128];
	char type[16];
	char help[512];
	int first, n;			/* its samples */
};

struct pfile {
	struct psample s[4096];
	int ns;
	struct pfamily f[32];
	int nf;
};

static bool name_char(char c, bool first, bool metric)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (metric && c == ':'))
		return true;
	return !first && c >= '0' && c <= '9';
}

/* A name at *p (metric or label), copied to @out; false if none. */
static bool read_name(const char **p, const char *end, char *out, size_t size, bool metric)
{
	size_t n = 0;

	while (*p < end && name_char(**p, n == 0, metric)) {
		if (n + 1 >= size)
			return false;
		out[n++] = *(*p)++;
	}
	out[n] = '\0';
	return n > 0;
}

/* A quoted label value at *p: only \\, \" and \n escapes. */
static const char *read_value(const char **p, const char *end, char *out, size_t size)
{
	size_t n = 0;

	if (*p >= end || **p != '"')
		return "label value without quotes";
	(*p)++;
	while (*p < end && **p != '"') {
		char c = *(*p)++;

		if (c == '\\') {
			if (*p >= end)
				return "backslash at the end";
			c = *(*p)++;
			if (c == 'n')
				c = '\n';
			else if (c != '\\' && c != '"')
				return "unknown escape in a label value";
		}
		if (n + 1 >= size)
			return "label value too long";
		out[n++] = c;
	}
	if (*p >= end)
		return "label value not closed";
	(*p)++;
	out[n] = '\0';
	return NULL;
}

static bool same_series(const struct psample *a, const struct psample *b)
{
	int i, j;

	if (strcmp(a->name, b->name) || a->nlabels != b->nlabels)
		return false;
	for (i = 0; i < a->nlabels; i++) {
		for (j = 0; j < b->nlabels; j++)
			if (!strcmp(a->lname[i], b->lname[j]) && !strcmp(a->lval[i], b->lval[j]))
				break;
		if (j == b->nlabels)
			return false;
	}
	return true;
}

static const char *parse_sample(const char *p, const char *end, struct pfile *pf)
{
	struct pfamily *f = pf->nf ? &pf->f[pf->nf - 1] : NULL;
	struct psample *s;
	const char *why;
	int i;

	if (pf->ns >= (int)(sizeof(pf->s) / sizeof(pf->s[0])))
		return "too many samples for the test";
	s = &pf->s[pf->ns];
	memset(s, 0, sizeof(*s));
	if (!read_name(&p, end, s->name, sizeof(s->name), true))
		return "a sample without a metric name";
	if (!f || strcmp(f->name, s->name) || !f->type[0])
		return "a sample outside its family (HELP and TYPE first, samples together)";
	if (p < end && *p == '{') {
		p++;
		while (p < end && *p != '}') {
			if (s->nlabels == PMAX_LABELS)
				return "too many labels";
			if (!read_name(&p, end, s->lname[s->nlabels], sizeof(s->lname[0]), false))
				return "bad label name";
			if (!strncmp(s->lname[s->nlabels], "__", 2))
				return "reserved label name";
			for (i = 0; i < s->nlabels; i++)
				if (!strcmp(s->lname[i], s->lname[s->nlabels]))
					return "label twice";
			if (p >= end || *p++ != '=')
				return "label without =";
			why = read_value(&p, end, s->lval[s->nlabels], sizeof(s->lval[0]));
			if (why)
				return why;
			s->nlabels++;
			if (p < end && *p == ',')
				p++;
			else if (p < end && *p != '}')
				return "labels not separated by a comma";
		}
		if (p >= end)
			return "labels not closed";
		p++;
	}
	if (p >= end || *p++ != ' ')
		return "no space before the value";
	for (i = 0; p < end && *p >= '0' && *p <= '9'; i++) {
		if (i + 1 >= (int)sizeof(s->value))
			return "value too long";
		s->value[i] = *p++;
	}
	if (!i || p != end)
		return "value is not a plain integer (or a time stamp follows)";
	for (i = f->first; i < pf->ns; i++)
		if (same_series(&pf->s[i], s))
			return "the same series twice";
	f->n++;
	pf->ns++;
	return NULL;
}

static const char *parse_line(const char *p, const char *end, struct pfile *pf)
{
	struct pfamily *f;
	char name[128];
	int i;

	if (p == end)
		return "empty line";
	if (*p != '#')
		return parse_sample(p, end, pf);
	if (end - p > 7 && !strncmp(p, "# HELP ", 7)) {
		p += 7;
		if (!read_name(&p, end, name, sizeof(name), true) || p >= end || *p++ != ' ')
			return "bad HELP line";
		for (i = 0; i < pf->nf; i++)
			if (!strcmp(pf->f[i].name, name))
				return "a family twice";
		if (pf->nf == (int)(sizeof(pf->f) / sizeof(pf->f[0])))
			return "too many families";
		f = &pf->f[pf->nf++];
		memset(f, 0, sizeof(*f));
		snprintf(f->name, sizeof(f->name), "%s", name);
		f->first = pf->ns;
		if ((size_t)(end - p) >= sizeof(f->help) || p == end)
			return "HELP text empty or too long";
		memcpy(f->help, p, (size_t)(end - p));
		for (; p < end; p++)
			if (*p == '\\' && (p + 1 == end || (p[1] != '\\' && p[1] != 'n')))
				return "bad escape in HELP";
			else if (*p == '\\')
				p++;
		return NULL;
	}
	if (end - p > 7 && !strncmp(p, "# TYPE ", 7)) {
		p += 7;
		f = pf->nf ? &pf->f[pf->nf - 1] : NULL;
		if (!read_name(&p, end, name, sizeof(name), true) || p >= end || *p++ != ' ')
			return "bad TYPE line";
		if (!f || strcmp(f->name, name) || f->type[0] || f->n)
			return "TYPE not right after its family's HELP";
		if ((end - p == 7 && !strncmp(p, "counter", 7)) ||
		    (end - p == 5 && !strncmp(p, "gauge", 5)))
			memcpy(f->type, p, (size_t)(end - p));
		else
			return "type neither counter nor gauge";
		return NULL;
	}
	return "a comment line that is neither HELP nor TYPE";
}

/* NULL if @text is a valid file (then parsed into @pf), else why not (@line: where). */
static const char *prom_parse(const char *text, size_t len, struct pfile *pf, int *line)
{
	const unsigned char *u = (const unsigned char *)text;
	const char *p = text, *end = text + len;
	size_t i, n;

	pf->ns = pf->nf = 0;	/* each sample and family is cleared as it comes */
	*line = 0;
	for (i = 0; i < len; i += n) {
		n = test_utf8_len(u + i, len - i);
		if (!n)
			return "not UTF-8";
		if ((u[i] < 0x20 && u[i] != '\n') || u[i] == 0x7f)
			return "a control byte";
		if (n == 2 && u[i] == 0xc2 && u[i + 1] < 0xa0)
			return "a C1 control";
	}
	if (!len || text[len - 1] != '\n')
		return "does not end with a newline";
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *why;

		++*line;
		why = parse_line(p, nl, pf);
		if (why)
			return why;
		p = nl + 1;
	}
	for (i = 0; i < (size_t)pf->nf; i++)
		if (!pf->f[i].type[0])
			return "a family without TYPE";
	return NULL;
}

static const struct pfamily *pfam(const struct pfile *pf, const char *name)
{
	int i;

	for (i = 0; i < pf->nf; i++)
		if (!strcmp(pf->f[i].name, name))
			return &pf->f[i];
	return NULL;
}

static const char *label(const struct psample *s, const char *name)
{
	int i;

	for (i = 0; i < s->nlabels; i++)
		if (!strcmp(s->lname[i], name))
			return s->lval[i];
	return NULL;
}

/* The sample of @family whose label @lname is @lval (NULL: the one without labels). */
static const struct psample *psample(const struct pfile *pf, const char *family,
				     const char *lname, const char *lval)
{
	const struct pfamily *f = pfam(pf, family);
	int i;

	ck_assert_msg(f, "family %s missing", family);
	for (i = f->first; i < f->first + f->n; i++) {
		const struct psample *s = &pf->s[i];
		const char *v = lname ? label(s, lname) : NULL;

		if (lname ? v && !strcmp(v, lval) : !s->nlabels)
			return s;
	}
	return NULL;
}

static unsigned long long pvalue(const struct pfile *pf, const char *family, const char *lname,
				 const char *lval)
{
	const struct psample *s = psample(pf, family, lname, lval);

	ck_assert_msg(s, "%s{%s=\"%s\"} missing", family, lname ? lname : "",
		      lval ? lval : "");
	return strtoull(s->value, NULL, 10);
}

/* The sample of a task family for @pid (as a number). */
static unsigned long long pid_value(const struct pfile *pf, const char *family, int pid)
{
	char p[16];

	snprintf(p, sizeof(p), "%d", pid);
	return pvalue(pf, family, "pid", p);
}

static bool has_pid(const struct pfile *pf, const char *family, int pid)
{
	char p[16];

	snprintf(p, sizeof(p), "%d", pid);
	return psample(pf, family, "pid", p) != NULL;
}

/* ---- the reader itself: it must refuse what Prometheus refuses ---- */

START_TEST(test_reader_self)
{
	static struct pfile pf;
	static const struct { const char *text; bool good; } cases[] = {
		{ "# HELP a_total x\n# TYPE a_total counter\na_total 1\n", true },
		{ "# HELP a x\n# TYPE a gauge\na{l=\"q\\\"\\\\\\n\"} 1\n", true },
		{ "# HELP a x\n# TYPE a gauge\n", true },
		{ "# TYPE a gauge\na 1\n", false },			/* no HELP */
		{ "# HELP a x\na 1\n", false },				/* no TYPE */
		{ "# HELP a x\n# TYPE a gauge\na 1", false },		/* no final newline */
		{ "# HELP a x\n# TYPE a gauge\na 1 123\n", false },	/* a time stamp */
		{ "# HELP a x\n# TYPE a gauge\na{l=\"\\x\"} 1\n", false },
		{ "# HELP a x\n# TYPE a gauge\na{l=\"\x01\"} 1\n", false },
		{ "# HELP a x\n# TYPE a gauge\na{l=\"\xff\"} 1\n", false },
		{ "# HELP a x\n# TYPE a gauge\na{l=\"1\"} 1\na{l=\"1\"} 2\n", false },
		{ "# HELP a x\n# TYPE a gauge\na{1l=\"1\"} 1\n", false },
		{ "# HELP a x\n# TYPE a gauge\na{l=\"1\",l=\"2\"} 1\n", false },
		{ "# HELP a x\n# TYPE a gauge\n# HELP b x\n# TYPE b gauge\na 1\n", false },
		{ "# HELP a x\n# TYPE a gauge\n# HELP a x\n# TYPE a gauge\n", false },
		{ "# HELP 1a x\n# TYPE 1a gauge\n", false },
		{ "# HELP a x\n# TYPE a summary\n", false },
		{ "# HELP a x\n# TYPE a gauge\n\n", false },
		{ "# HELP a x\n# TYPE a gauge\na{l=\"1\" 1\n", false },
	};
	size_t i;
	int line;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *why = prom_parse(cases[i].text, strlen(cases[i].text), &pf, &line);

		ck_assert_msg(!why == cases[i].good, "case %zu: %s", i, why ? why : "accepted");
	}
}
END_TEST

/* ---- label escaping ---- */

struct esc_case {
	const char *raw;
	size_t len;
	const char *file;	/* between the quotes in the file */
	const char *value;	/* what a reader of the format gets back */
};

#define E(raw, file, value) { raw, sizeof(raw) - 1, file, value }
static const struct esc_case esc[] = {
	E("bash", "bash", "bash"),
	E("new\nline", "new\\\\x0aline", "new\\x0aline"),
	E("say \"hi\"", "say \\\"hi\\\"", "say \"hi\""),
	E("back\\slash", "back\\\\\\\\slash", "back\\\\slash"),
	E("\x1b[31m\x07", "\\\\x1b[31m\\\\x07", "\\x1b[31m\\x07"),
	E("tab\tcr\rdel\x7f", "tab\\\\x09cr\\\\x0ddel\\\\x7f", "tab\\x09cr\\x0ddel\\x7f"),
	E("ff\xff", "ff\\\\xff", "ff\\xff"),
	E("cut\xe6\x97", "cut\\\\xe6\\\\x97", "cut\\xe6\\x97"),
	E("over\xc0\xaf", "over\\\\xc0\\\\xaf", "over\\xc0\\xaf"),
	E("sur\xed\xa0\x80", "sur\\\\xed\\\\xa0\\\\x80", "sur\\xed\\xa0\\x80"),
	E("c1\xc2\x85", "c1\\\\xc2\\\\x85", "c1\\xc2\\x85"),
	E("caf\xc3\xa9 \xe2\x9c\x93", "caf\xc3\xa9 \xe2\x9c\x93", "caf\xc3\xa9 \xe2\x9c\x93"),
	E("\xf0\x9f\x90\xa7", "\xf0\x9f\x90\xa7", "\xf0\x9f\x90\xa7"),
	E("nul\0x", "nul\\\\x00x", "nul\\x00x"),
	E("{a=\"b\"}", "{a=\\\"b\\\"}", "{a=\"b\"}"),
	E("", "", ""),
};
#undef E

START_TEST(test_escape_prom)
{
	char buf[ESCAPE_PROM_MAX(64)];
	size_t i;

	for (i = 0; i < sizeof(esc) / sizeof(esc[0]); i++) {
		size_t n = escape_prom(buf, sizeof(buf), esc[i].raw, esc[i].len);

		ck_assert_msg(n == strlen(buf) && !strcmp(buf, esc[i].file),
			      "case %zu: got \"%s\", want \"%s\"", i, buf, esc[i].file);
	}
}
END_TEST

/* Every single byte and the worst case fit ESCAPE_PROM_MAX; a short buffer never cuts an escape. */
START_TEST(test_escape_prom_bounds)
{
	char raw[16], buf[ESCAPE_PROM_MAX(16)], small[8];
	size_t n;
	int c;

	for (c = 0; c < 256; c++) {
		raw[0] = (char)c;
		n = escape_prom(buf, sizeof(buf), raw, 1);
		ck_assert_uint_ge(n, 1);
		ck_assert_uint_le(n, 5);
	}
	memset(raw, 0x01, sizeof(raw));
	n = escape_prom(buf, sizeof(buf), raw, sizeof(raw));
	ck_assert_uint_eq(n, 5 * sizeof(raw));
	/* 7 bytes of room: one \\x01 (5), not a second half one */
	n = escape_prom(small, sizeof(small), raw, sizeof(raw));
	ck_assert_uint_eq(n, 5);
	ck_assert_str_eq(small, "\\\\x01");
	n = escape_prom(small, sizeof(small), "ab\\\\", 4);
	ck_assert_str_eq(small, "ab\\\\\\\\");	/* the second backslash did not fit */
	ck_assert_uint_eq(n, 6);
	ck_assert_uint_eq(escape_prom(small, 0, "x", 1), 0);
}
END_TEST

static int hexdigit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * Random names (a fixed seed) from an alphabet heavy in what is hard: quotes,
 * backslashes, 'x' and hex digits, controls, UTF-8 lead and continuation
 * bytes. Each escaped value gives a valid file, and reading it back (the
 * format's escapes, then the text report's \\ and \xNN) gives the raw bytes.
 */
START_TEST(test_escape_prom_roundtrip)
{
	static const unsigned char alpha[] = "\"\\x0a9fF \n\t\x01\x1f\x7f\x80\xbf\xc2\xa0\xc3\xa9"
					     "\xe2\x82\xac\xed\xa0\xf0\x9f\xf4\x90\xff";
	static struct pfile pf;
	char raw[16], esc_buf[ESCAPE_PROM_MAX(16)], text[256], back[16];
	uint32_t seed = 12345;
	int iter, line;

	for (iter = 0; iter < 20000; iter++) {
		size_t len, i, n, k = 0;
		const char *v, *why;

		seed = seed * 1103515245u + 12345u;
		len = (seed >> 16) % 16;
		for (i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			raw[i] = (char)alpha[(seed >> 16) % (sizeof(alpha) - 1)];
		}
		n = escape_prom(esc_buf, sizeof(esc_buf), raw, len);
		ck_assert_uint_eq(n, strlen(esc_buf));
		snprintf(text, sizeof(text), "# HELP a x\n# TYPE a gauge\na{comm=\"%s\"} 1\n", esc_buf);
		why = prom_parse(text, strlen(text), &pf, &line);
		ck_assert_msg(!why, "iteration %d: %s: %s", iter, why, text);
		v = label(&pf.s[0], "comm");
		for (i = 0; v[i]; k++) {
			ck_assert_uint_lt(k, sizeof(back));
			if (v[i] == '\\' && v[i + 1] == '\\') {
				back[k] = '\\';
				i += 2;
			} else if (v[i] == '\\' && v[i + 1] == 'x' && hexdigit(v[i + 2]) >= 0 &&
				   hexdigit(v[i + 3]) >= 0) {
				back[k] = (char)(hexdigit(v[i + 2]) << 4 | hexdigit(v[i + 3]));
				i += 4;
			} else {
				ck_assert_msg(v[i] != '\\', "iteration %d: a lone backslash", iter);
				back[k] = v[i++];
			}
		}
		ck_assert_msg(k == len && !memcmp(back, raw, len), "iteration %d: not read back", iter);
	}
}
END_TEST

/* ---- whole files ---- */

struct fixture {
	struct run r;
	struct reader_cpu cpu0;
	uint32_t order[256];
	uint32_t sel[256];
	uint32_t threads[256];
	int64_t pages[256];
	uint32_t mod_order[16];	/* the fixtures' 8 modules and 8 untraced */
};

static void fx_init(struct fixture *fx, uint32_t max_tasks)
{
	struct stats_config cfg = { .max_tasks = max_tasks, .max_modules = 8, .max_pfn = 1 << 20 };

	ck_assert_uint_le(max_tasks, 256);
	memset(fx, 0, sizeof(*fx));
	ck_assert_int_eq(stats_init(&fx->r.st, &cfg), 0);
	test_run_wire(&fx->r, &fx->cpu0, fx->order, fx->threads, fx->pages, fx->sel, fx->mod_order);
	fx->r.opt_set.rows = 30;
}

static char *render(struct fixture *fx, size_t *len)
{
	prom_write(test_out_begin(), &fx->r, &fx->r.rs, "6.18.0-test");
	return test_out_end(len);
}

/* Render and parse; fail with the line if the file is not valid. */
static void render_parse(struct fixture *fx, struct pfile *pf)
{
	size_t len;
	char *t = render(fx, &len);
	int line;
	const char *why = prom_parse(t, len, pf, &line);

	ck_assert_msg(!why, "invalid exposition format at line %d: %s\n%.1500s", line, why, t);
	free(t);
}

static void alloc_pages(struct stats *st, int32_t tid, uint64_t pfn, uint32_t n, uint64_t ts)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		test_page_event(st, EV_PAGE_ALLOC, ts, tid, 0, pfn + i, 0);
}

static void free_pages(struct stats *st, int32_t tid, uint64_t pfn, uint32_t n, uint64_t ts)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		test_page_event(st, EV_PAGE_FREE, ts, tid, 0, pfn + i, 0);
}

static void newtask(struct stats *st, uint64_t ts, int32_t parent, int32_t pid, bool thread,
		    const char *comm)
{
	struct mt_event ev = { .kind = EV_NEWTASK, .ts = ts, .tid = parent };

	ev.u.newtask.pid = pid;
	ev.u.newtask.clone_flags = thread ? 0x10000ull /* CLONE_THREAD */ : 0;
	ev.u.newtask.comm.s = comm;
	ev.u.newtask.comm.len = strlen(comm);
	stats_apply(st, &ev);
}

static void task_exit(struct stats *st, uint64_t ts, int32_t pid)
{
	struct mt_event ev = { .kind = EV_EXIT, .ts = ts, .tid = pid };

	ev.u.exit.pid = pid;
	ev.u.exit.group_dead = 1;
	stats_apply(st, &ev);
}

static struct mt_module *add_mod(struct stats *st, const char *name, int64_t peak, int64_t cur,
				 bool known, uint64_t skib, uint8_t state)
{
	struct mt_module *m = &st->tb.mods[st->tb.nmods];

	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->serial = ++st->tb.nmods;
	m->peak = m->all_peak = peak;	/* without --stacks: the bracket's pages are all */
	m->cur = m->all_cur = cur;
	m->static_known = known;
	m->static_kib = skib;
	m->state = state;
	return m;
}

static const char *const families[][2] = {
	{ "memtrace_info", "gauge" },
	{ "memtrace_events_total", "counter" },
	{ "memtrace_lost_events_total", "counter" },
	{ "memtrace_untracked_frees_total", "counter" },
	{ "memtrace_oom_kills_total", "counter" },
	{ "memtrace_system_peak_bytes", "gauge" },
	{ "memtrace_task_current_bytes", "gauge" },
	{ "memtrace_task_peak_bytes", "gauge" },
	{ "memtrace_process_peak_bytes", "gauge" },
	{ "memtrace_module_current_bytes", "gauge" },
	{ "memtrace_module_peak_bytes", "gauge" },
	{ "memtrace_module_static_bytes", "gauge" },
};
#define NFAM	((int)(sizeof(families) / sizeof(families[0])))

/* Exactly the families, each with HELP text and its type, also when empty. */
static void assert_families(const struct pfile *pf)
{
	int i;

	ck_assert_int_eq(pf->nf, NFAM);
	for (i = 0; i < NFAM; i++) {
		const struct pfamily *f = pfam(pf, families[i][0]);

		ck_assert_msg(f, "family %s missing", families[i][0]);
		ck_assert_str_eq(f->type, families[i][1]);
		ck_assert_uint_gt(strlen(f->help), 10);
	}
}

/*
 * A known run: task 100 (a process with thread 101), task 200 that exited,
 * a free from another task, two modules, counters set. Every value checked
 * against the pages put in, times the page size.
 */
START_TEST(test_every_metric)
{
	static struct fixture fx;
	static struct pfile pf;
	const struct psample *s;

	fx_init(&fx, 64);
	ck_assert_ptr_nonnull(stats_seed_task(&fx.r.st, 100, 100, 1, "server", 6, 0, 1, false));
	newtask(&fx.r.st, 10, 100, 101, true, "server");
	alloc_pages(&fx.r.st, 100, 1000, 30, 20);	/* 100: 30 pages */
	alloc_pages(&fx.r.st, 101, 2000, 20, 30);	/* 101: 20; process 50 */
	free_pages(&fx.r.st, 101, 1000, 10, 40);	/* 100: 20 now, peak 30 */
	newtask(&fx.r.st, 50, 1, 200, false, "job");
	alloc_pages(&fx.r.st, 200, 3000, 64, 60);
	free_pages(&fx.r.st, 200, 3000, 64, 70);
	task_exit(&fx.r.st, 80, 200);
	free_pages(&fx.r.st, 100, 9000, 3, 90);	/* never allocated: 3 untracked frees */
	add_mod(&fx.r.st, "virtio_blk", 97, 95, true, 28, MOD_LIVE);
	add_mod(&fx.r.st, "loop", 262, 0, false, 0, MOD_UNLOADED);
	fx.r.st.oom_count = 2;
	fx.cpu0.stats_lost = 7;
	render_parse(&fx, &pf);
	assert_families(&pf);
	s = psample(&pf, "memtrace_info", "version", MEMTRACE_VERSION);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(label(s, "kernel"), "6.18.0-test");
	ck_assert_str_eq(s->value, "1");
	ck_assert_int_eq(s->nlabels, 2);
	ck_assert_uint_eq(pvalue(&pf, "memtrace_events_total", NULL, NULL),
			  rows_events(&fx.r.st));
	ck_assert_uint_eq(rows_events(&fx.r.st), 30 + 20 + 10 + 64 + 64 + 3 + 3);
	ck_assert_uint_eq(pvalue(&pf, "memtrace_lost_events_total", NULL, NULL), 7);
	ck_assert_uint_eq(pvalue(&pf, "memtrace_untracked_frees_total", NULL, NULL), 3);
	ck_assert_uint_eq(pvalue(&pf, "memtrace_oom_kills_total", NULL, NULL), 2);
	/* the most at once: 40 (100 and 101 after the free) + 64 of the job */
	ck_assert_uint_eq(pvalue(&pf, "memtrace_system_peak_bytes", NULL, NULL), 104 * 4096);
	ck_assert_uint_eq(pid_value(&pf, "memtrace_task_current_bytes", 100), 20 * 4096);
	ck_assert_uint_eq(pid_value(&pf, "memtrace_task_peak_bytes", 100), 30 * 4096);
	ck_assert_uint_eq(pid_value(&pf, "memtrace_task_current_bytes", 101), 20 * 4096);
	ck_assert_uint_eq(pid_value(&pf, "memtrace_task_peak_bytes", 200), 64 * 4096);
	ck_assert_uint_eq(pid_value(&pf, "memtrace_task_current_bytes", 200), 0);
	ck_assert_str_eq(label(psample(&pf, "memtrace_task_peak_bytes", "pid", "200"), "comm"),
			 "job");
	/* processes: threads summed, under the process id; the thread is no row */
	ck_assert_uint_eq(pid_value(&pf, "memtrace_process_peak_bytes", 100), 50 * 4096);
	ck_assert(!has_pid(&pf, "memtrace_process_peak_bytes", 101));
	ck_assert_uint_eq(pid_value(&pf, "memtrace_process_peak_bytes", 200), 64 * 4096);
	ck_assert_str_eq(label(psample(&pf, "memtrace_process_peak_bytes", "pid", "100"), "comm"),
			 "server");
	ck_assert_int_eq(pfam(&pf, "memtrace_task_peak_bytes")->n, 3);
	ck_assert_int_eq(pfam(&pf, "memtrace_task_current_bytes")->n, 3);
	ck_assert_int_eq(pfam(&pf, "memtrace_process_peak_bytes")->n, 2);
	/* modules; a static size only where it is known */
	ck_assert_uint_eq(pvalue(&pf, "memtrace_module_current_bytes", "module", "virtio_blk"),
			  95 * 4096);
	ck_assert_uint_eq(pvalue(&pf, "memtrace_module_peak_bytes", "module", "virtio_blk"),
			  97 * 4096);
	ck_assert_uint_eq(pvalue(&pf, "memtrace_module_static_bytes", "module", "virtio_blk"),
			  28 * 1024);
	ck_assert_uint_eq(pvalue(&pf, "memtrace_module_peak_bytes", "module", "loop"), 262 * 4096);
	ck_assert_uint_eq(pvalue(&pf, "memtrace_module_current_bytes", "module", "loop"), 0);
	ck_assert_ptr_null(psample(&pf, "memtrace_module_static_bytes", "module", "loop"));
	ck_assert_int_eq(pfam(&pf, "memtrace_module_static_bytes")->n, 1);
	stats_free(&fx.r.st);
}
END_TEST

/* Nothing traced yet: every family is there, with HELP and TYPE, and the counters are 0. */
START_TEST(test_empty_run)
{
	static struct fixture fx;
	static struct pfile pf;

	fx_init(&fx, 16);
	render_parse(&fx, &pf);
	assert_families(&pf);
	ck_assert_uint_eq(pvalue(&pf, "memtrace_events_total", NULL, NULL), 0);
	ck_assert_uint_eq(pvalue(&pf, "memtrace_system_peak_bytes", NULL, NULL), 0);
	ck_assert_int_eq(pfam(&pf, "memtrace_task_peak_bytes")->n, 0);
	ck_assert_int_eq(pfam(&pf, "memtrace_module_peak_bytes")->n, 0);
	stats_free(&fx.r.st);
}
END_TEST

/* Hostile names give a valid file, and the values read back are the escaped names. */
START_TEST(test_hostile_names)
{
	static struct fixture fx;
	static struct pfile pf;
	int i, n = (int)(sizeof(esc) / sizeof(esc[0])) - 1;	/* the empty name is not a comm */

	fx_init(&fx, 64);
	for (i = 0; i < n; i++) {
		size_t len = esc[i].len < COMM_LEN ? esc[i].len : COMM_LEN - 1;

		ck_assert_ptr_nonnull(stats_seed_task(&fx.r.st, 1000 + i, 1000 + i, 1, esc[i].raw,
						      len, (uint64_t)(100 - i), 5, false));
		if (i < 7)
			snprintf(add_mod(&fx.r.st, "", 1, 1, true, 1, MOD_LIVE)->name, MODNAME_LEN,
				 "%.*s", (int)esc[i].len, esc[i].raw);
	}
	fx.r.opt_set.rows = 0;
	render_parse(&fx, &pf);
	for (i = 0; i < n; i++) {
		char pid[16], want[256];
		const struct psample *s;

		if (esc[i].len >= COMM_LEN)
			continue;
		snprintf(pid, sizeof(pid), "%d", 1000 + i);
		s = psample(&pf, "memtrace_task_peak_bytes", "pid", pid);
		ck_assert_msg(s, "pid %s missing", pid);
		snprintf(want, sizeof(want), "%s", esc[i].value);
		ck_assert_msg(!strcmp(label(s, "comm"), want), "task %d: comm \"%s\", want \"%s\"",
			      i, label(s, "comm"), want);
		s = psample(&pf, "memtrace_process_peak_bytes", "pid", pid);
		ck_assert_str_eq(label(s, "comm"), want);
	}
	/* module names from records: the same escaping (a NUL ends a C string there) */
	ck_assert_ptr_nonnull(psample(&pf, "memtrace_module_peak_bytes", "module",
				      "new\\x0aline"));
	ck_assert_ptr_nonnull(psample(&pf, "memtrace_module_peak_bytes", "module",
				      "back\\\\slash"));
	ck_assert_ptr_nonnull(psample(&pf, "memtrace_module_peak_bytes", "module", "say \"hi\""));
	stats_free(&fx.r.st);
}
END_TEST

/* -n bounds the task and process series to the top N by peak, exited ones included. */
START_TEST(test_top_n)
{
	static struct fixture fx;
	static struct pfile pf;
	int i;

	fx_init(&fx, 64);
	for (i = 0; i < 20; i++) {
		newtask(&fx.r.st, 10, 1, 300 + i, false, "w");
		alloc_pages(&fx.r.st, 300 + i, 10000 + (uint64_t)i * 100, (uint32_t)(i + 1), 20);
	}
	/* the largest one exits and frees everything: still in the top by its peak */
	free_pages(&fx.r.st, 319, 10000 + 19 * 100, 20, 30);
	task_exit(&fx.r.st, 40, 319);
	fx.r.opt_set.rows = 3;
	render_parse(&fx, &pf);
	ck_assert_int_eq(pfam(&pf, "memtrace_task_peak_bytes")->n, 3);
	ck_assert_int_eq(pfam(&pf, "memtrace_task_current_bytes")->n, 3);
	ck_assert_int_eq(pfam(&pf, "memtrace_process_peak_bytes")->n, 3);
	for (i = 317; i <= 319; i++) {
		ck_assert(has_pid(&pf, "memtrace_task_peak_bytes", i));
		ck_assert(has_pid(&pf, "memtrace_task_current_bytes", i));
		ck_assert(has_pid(&pf, "memtrace_process_peak_bytes", i));
	}
	ck_assert_uint_eq(pid_value(&pf, "memtrace_task_peak_bytes", 319), 20 * 4096);
	ck_assert_uint_eq(pid_value(&pf, "memtrace_task_current_bytes", 319), 0);
	/* it drops out once 3 larger ones came */
	for (i = 0; i < 3; i++) {
		newtask(&fx.r.st, 50, 1, 400 + i, false, "big");
		alloc_pages(&fx.r.st, 400 + i, 50000 + (uint64_t)i * 100, 50, 60);
	}
	render_parse(&fx, &pf);
	ck_assert(!has_pid(&pf, "memtrace_task_peak_bytes", 319));
	ck_assert(has_pid(&pf, "memtrace_task_peak_bytes", 402));
	ck_assert_int_eq(pfam(&pf, "memtrace_task_peak_bytes")->n, 3);
	/* -n 0: all of them */
	fx.r.opt_set.rows = 0;
	render_parse(&fx, &pf);
	ck_assert_int_eq(pfam(&pf, "memtrace_task_peak_bytes")->n, 23);
	ck_assert_int_eq(pfam(&pf, "memtrace_process_peak_bytes")->n, 23);
	stats_free(&fx.r.st);
}
END_TEST

/*
 * A pid reused under the same name is one series (the largest peak), and the
 * N rows are N distinct series; a module loaded twice is one series, its latest.
 */
START_TEST(test_unique_series)
{
	static struct fixture fx;
	static struct pfile pf;

	fx_init(&fx, 64);
	newtask(&fx.r.st, 10, 1, 500, false, "dup");
	alloc_pages(&fx.r.st, 500, 1000, 40, 20);
	free_pages(&fx.r.st, 500, 1000, 40, 25);
	task_exit(&fx.r.st, 30, 500);
	newtask(&fx.r.st, 40, 1, 500, false, "dup");		/* pid 500 again, same name */
	alloc_pages(&fx.r.st, 500, 2000, 10, 50);
	newtask(&fx.r.st, 60, 1, 501, false, "a");
	alloc_pages(&fx.r.st, 501, 3000, 30, 70);
	task_exit(&fx.r.st, 75, 501);
	newtask(&fx.r.st, 80, 1, 501, false, "b");		/* pid 501 again, another name */
	alloc_pages(&fx.r.st, 501, 4000, 5, 90);
	newtask(&fx.r.st, 95, 1, 502, false, "c");
	alloc_pages(&fx.r.st, 502, 5000, 2, 99);
	ck_assert_uint_eq(rows_tasks(&fx.r, &fx.r.rs), 5);
	fx.r.opt_set.rows = 3;
	render_parse(&fx, &pf);		/* the parser refuses a series twice */
	ck_assert_int_eq(pfam(&pf, "memtrace_task_peak_bytes")->n, 3);
	ck_assert_uint_eq(pid_value(&pf, "memtrace_task_peak_bytes", 500), 40 * 4096);
	ck_assert_uint_eq(pid_value(&pf, "memtrace_task_current_bytes", 500), 0);
	ck_assert_ptr_nonnull(psample(&pf, "memtrace_task_peak_bytes", "comm", "a"));
	ck_assert_ptr_nonnull(psample(&pf, "memtrace_task_peak_bytes", "comm", "b"));
	ck_assert_int_eq(pfam(&pf, "memtrace_process_peak_bytes")->n, 3);
	fx.r.opt_set.rows = 0;
	render_parse(&fx, &pf);
	ck_assert_int_eq(pfam(&pf, "memtrace_task_peak_bytes")->n, 4);
	ck_assert_int_eq(pfam(&pf, "memtrace_process_peak_bytes")->n, 4);
	/* modules: loaded, unloaded, loaded again */
	add_mod(&fx.r.st, "loop", 300, 0, true, 32, MOD_UNLOADED);
	add_mod(&fx.r.st, "zram", 5, 5, true, 40, MOD_LIVE);
	add_mod(&fx.r.st, "loop", 120, 100, true, 36, MOD_LIVE);
	render_parse(&fx, &pf);
	ck_assert_int_eq(pfam(&pf, "memtrace_module_peak_bytes")->n, 2);
	ck_assert_uint_eq(pvalue(&pf, "memtrace_module_peak_bytes", "module", "loop"), 120 * 4096);
	ck_assert_uint_eq(pvalue(&pf, "memtrace_module_current_bytes", "module", "loop"),
			  100 * 4096);
	ck_assert_uint_eq(pvalue(&pf, "memtrace_module_static_bytes", "module", "loop"), 36 * 1024);
	/* as the reports list them: by peak, loop's latest load (120 pages) before zram (5) */
	ck_assert_str_eq(label(&pf.s[pfam(&pf, "memtrace_module_peak_bytes")->first], "module"),
			 "loop");
	ck_assert_str_eq(label(&pf.s[pfam(&pf, "memtrace_module_peak_bytes")->first + 1],
			       "module"), "zram");
	/* and -n applies to them: the top one only */
	fx.r.opt_set.rows = 1;
	render_parse(&fx, &pf);
	ck_assert_int_eq(pfam(&pf, "memtrace_module_peak_bytes")->n, 1);
	ck_assert_int_eq(pfam(&pf, "memtrace_module_current_bytes")->n, 1);
	ck_assert_int_eq(pfam(&pf, "memtrace_module_static_bytes")->n, 1);
	ck_assert_uint_eq(pvalue(&pf, "memtrace_module_peak_bytes", "module", "loop"), 120 * 4096);
	stats_free(&fx.r.st);
}
END_TEST

/* Bytes are pages times the run's page size (64 KiB pages on arm64, ppc64). */
START_TEST(test_page_size)
{
	static struct fixture fx;
	static struct pfile pf;

	fx_init(&fx, 16);
	fx.r.meta.page_size = 65536;
	newtask(&fx.r.st, 10, 1, 77, false, "big");
	alloc_pages(&fx.r.st, 77, 100, 3, 20);
	render_parse(&fx, &pf);
	ck_assert_uint_eq(pid_value(&pf, "memtrace_task_peak_bytes", 77), 3 * 65536);
	ck_assert_uint_eq(pvalue(&pf, "memtrace_system_peak_bytes", NULL, NULL), 3 * 65536);
	stats_free(&fx.r.st);
}
END_TEST

/* The full table (-n 0), more rows than one output buffer holds: still one valid file. */
START_TEST(test_full_table)
{
	static struct fixture fx;
	static struct pfile pf;
	int i;

	fx_init(&fx, 256);
	for (i = 0; i < 250; i++) {
		newtask(&fx.r.st, 10, 1, 1000 + i, false, "worker-with-name");
		alloc_pages(&fx.r.st, 1000 + i, 10000 + (uint64_t)i * 4, 1 + (uint32_t)i % 4, 20);
	}
	fx.r.opt_set.rows = 0;
	render_parse(&fx, &pf);
	ck_assert_int_eq(pfam(&pf, "memtrace_task_peak_bytes")->n, 250);
	ck_assert_int_eq(pfam(&pf, "memtrace_task_current_bytes")->n, 250);
	ck_assert_int_eq(pfam(&pf, "memtrace_process_peak_bytes")->n, 250);
	stats_free(&fx.r.st);
}
END_TEST

Suite *suite_prom(void)
{
	Suite *s = suite_create("prom");
	TCase *tc = tcase_create("format");

	tcase_add_test(tc, test_reader_self);
	tcase_add_test(tc, test_escape_prom);
	tcase_add_test(tc, test_escape_prom_bounds);
	tcase_add_test(tc, test_escape_prom_roundtrip);
	tcase_add_test(tc, test_every_metric);
	tcase_add_test(tc, test_empty_run);
	tcase_add_test(tc, test_hostile_names);
	tcase_add_test(tc, test_top_n);
	tcase_add_test(tc, test_unique_series);
	tcase_add_test(tc, test_page_size);
	tcase_add_test(tc, test_full_table);
	suite_add_tcase(s, tc);
	return s;
}
