// SPDX-License-Identifier: GPL-2.0-only
/* test_event.c - unit tests of event decoding, and of the whole decoder on the captured fixtures */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/event.h"
#include "kernel/format.h"
#include "kernel/ringbuf.h"
#include "testutil.h"

#define CHK(expr)							\
	do {								\
		if (!(expr))						\
			ck_abort_msg("check failed: %s", #expr);	\
	} while (0)

/* Read fixtures_dir/rel; NULL if it does not exist. */
static char *slurp(const char *rel, size_t *len)
{
	char path[4096];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", fixtures_dir, rel);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void parse_text(struct fmt_event *fe, const char *sys, const char *text)
{
	char err[256] = "";

	ck_assert_msg(fmt_parse_event(fe, text, strlen(text), err, sizeof(err)) == 0, "%s", err);
	snprintf(fe->system, sizeof(fe->system), "%s", sys);
}

/* Parse <set>/events/<sys>/<name>/format; false if the fixture has no such file. */
static bool load_fmt(struct fmt_event *fe, const char *set, const char *sys, const char *name)
{
	char rel[1024];
	size_t len;
	char *text;

	snprintf(rel, sizeof(rel), "%s/events/%s/%s/format", set, sys, name);
	text = slurp(rel, &len);
	if (!text)
		return false;
	parse_text(fe, sys, text);
	free(text);
	return true;
}

/* The text of a fixture format file with every line containing @drop removed. */
static char *fmt_text_without(const char *set, const char *sys, const char *name,
			      const char *drop)
{
	char rel[1024];
	size_t len;
	char *text, *out, *line, *o;

	snprintf(rel, sizeof(rel), "%s/events/%s/%s/format", set, sys, name);
	text = read_fixture(rel, &len);
	out = malloc(len + 1);
	o = out;
	for (line = text; *line; ) {
		char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line + 1) : strlen(line);

		if (!memmem(line, n, drop, strlen(drop))) {
			memcpy(o, line, n);
			o += n;
		}
		line += n;
	}
	*o = '\0';
	ck_assert_uint_lt(strlen(out), len);	/* something was dropped */
	free(text);
	return out;
}

static struct mt_decoder *new_decoder(void)
{
	struct mt_decoder *d = malloc(sizeof(*d));

	ck_assert_ptr_nonnull(d);
	decoder_init(d);
	return d;
}

static const struct mt_tracepoint *tp_of(const char *sys, const char *name)
{
	const struct mt_tracepoint *tp = mt_tracepoint_find(sys, name);

	ck_assert_msg(tp != NULL, "%s:%s not in mt_tracepoints", sys, name);
	return tp;
}

/* Register one fixture format; must succeed. */
static void add_fixture(struct mt_decoder *d, const char *set, const char *sys,
			const char *name, struct fmt_event *fe)
{
	char err[256] = "";

	ck_assert_msg(load_fmt(fe, set, sys, name), "%s: no %s/%s", set, sys, name);
	ck_assert_msg(decoder_add(d, tp_of(sys, name), fe, err, sizeof(err)) == 0,
		      "%s %s:%s: %s", set, sys, name, err);
}

/* a record under construction */
struct rec {
	uint8_t b[256];
	struct rb_record r;
};

static void rec_init(struct rec *x, uint32_t id, int32_t pid, uint8_t flags, uint32_t len)
{
	uint16_t t = (uint16_t)id;

	memset(x, 0, sizeof(*x));
	memcpy(x->b, &t, 2);
	x->b[2] = flags;
	memcpy(x->b + 4, &pid, 4);
	x->r.ts = 123456789;
	x->r.data = x->b;
	x->r.len = len;
	x->r.big_endian = RB_HOST_BE;	/* built with memcpy: this machine's order */
}

static void rec_put(struct rec *x, uint32_t off, const void *v, size_t n)
{
	ck_assert_uint_le(off + n, sizeof(x->b));
	memcpy(x->b + off, v, n);
}

static void rec_u32(struct rec *x, uint32_t off, uint32_t v)
{
	rec_put(x, off, &v, 4);
}

static void rec_u64(struct rec *x, uint32_t off, uint64_t v)
{
	rec_put(x, off, &v, 8);
}

/* __data_loc string: loc word at @field, bytes (with NUL) at @at */
static void rec_loc(struct rec *x, uint32_t field, uint32_t at, const char *s)
{
	uint32_t n = (uint32_t)strlen(s) + 1;

	rec_u32(x, field, (n << 16) | at);
	rec_put(x, at, s, n);
}

static void ck_str(struct mt_str s, const char *want)
{
	ck_assert_msg(s.len == strlen(want) && !memcmp(s.s, want, s.len),
		      "got '%.*s', want '%s'", (int)s.len, s.s, want);
}

START_TEST(test_tracepoint_table)
{
	const struct mt_tracepoint *tp;
	int n = 0;

	tp = mt_tracepoint_find("kmem", "mm_page_alloc");
	ck_assert_ptr_nonnull(tp);
	ck_assert_int_eq(tp->kind, EV_PAGE_ALLOC);
	ck_assert_int_eq(tp->need, NEED_REQUIRED);
	tp = mt_tracepoint_find("kmem", "mm_page_free");
	ck_assert_ptr_nonnull(tp);
	ck_assert_int_eq(tp->kind, EV_PAGE_FREE);
	ck_assert_int_eq(tp->need, NEED_REQUIRED);
	ck_assert_int_eq(tp_of("module", "module_put")->kind, EV_MOD_PUT);
	ck_assert_int_eq(tp_of("syscalls", "sys_exit_init_module")->kind, EV_MODSYS_EXIT);
	ck_assert_int_eq(tp_of("syscalls", "sys_enter_finit_module")->kind, EV_MODSYS_ENTER);
	ck_assert_ptr_null(mt_tracepoint_find("kmem", "mm_page_free_batched"));
	ck_assert_ptr_null(mt_tracepoint_find("module", "module_get"));
	ck_assert_ptr_null(mt_tracepoint_find("sched", "mm_page_alloc"));
	ck_assert_ptr_null(mt_tracepoint_find("", ""));
	for (tp = mt_tracepoints; tp->system; tp++, n++) {
		ck_assert_ptr_nonnull(tp->name);
		ck_assert_ptr_nonnull(tp->loss);
		ck_assert_int_gt(tp->kind, EV_NONE);
		ck_assert_int_lt(tp->kind, EV__COUNT);
		ck_assert_str_ne(mt_kind_name(tp->kind), "?");
		ck_assert_ptr_eq(mt_tracepoint_find(tp->system, tp->name), tp);
	}
	ck_assert_int_ge(n, 15);
	ck_assert_str_eq(mt_kind_name(EV_PAGE_ALLOC), "page_alloc");
	ck_assert_str_eq(mt_kind_name(EV_PAGE_FREE), "page_free");
	ck_assert_str_eq(mt_kind_name(EV__COUNT), "?");
	ck_assert_str_eq(mt_kind_name((enum mt_kind)-1), "?");
}
END_TEST

/* every format of both fixtures that memtrace knows registers */
START_TEST(test_add_fixture_formats)
{
	static const char *const sets[] = { "linux-6.18", "debian-6.1" };
	static const uint32_t want[] = { 8, 15 };
	const struct mt_tracepoint *tp;
	struct fmt_event fe;
	int i;

	for (i = 0; i < 2; i++) {
		struct mt_decoder *d = new_decoder();
		uint32_t n = 0;

		for (tp = mt_tracepoints; tp->system; tp++) {
			char err[256] = "";

			if (!load_fmt(&fe, sets[i], tp->system, tp->name))
				continue;
			ck_assert_msg(decoder_add(d, tp, &fe, err, sizeof(err)) == 0,
				      "%s %s: %s", sets[i], tp->name, err);
			ck_assert_ptr_nonnull(decoder_desc(d, (uint16_t)fe.id));
			ck_assert_int_eq(decoder_desc(d, (uint16_t)fe.id)->kind, tp->kind);
			n++;
		}
		ck_assert_uint_eq(n, want[i]);
		ck_assert_uint_eq(d->ndescs, want[i]);
		free(d);
	}
}
END_TEST

static void expect_add_fails(const char *text, const char *sys, const char *name,
			     const char *mention)
{
	struct mt_decoder *d = new_decoder();
	struct fmt_event fe;
	char err[256] = "";

	parse_text(&fe, sys, text);
	ck_assert_int_eq(decoder_add(d, tp_of(sys, name), &fe, err, sizeof(err)), -1);
	ck_assert_msg(err[0] != '\0', "%s: no message", name);
	if (mention)
		ck_assert_msg(strstr(err, mention) != NULL, "'%s' does not mention %s", err,
			      mention);
	ck_assert_ptr_null(decoder_desc(d, (uint16_t)fe.id));
	ck_assert_uint_eq(d->ndescs, 0);
	free(d);
}

START_TEST(test_missing_required)
{
	static const struct {
		const char *set, *sys, *name, *drop, *mention;
	} cases[] = {
		{ "linux-6.18", "kmem", "mm_page_alloc", "long pfn;", "pfn" },
		{ "linux-6.18", "kmem", "mm_page_alloc", "int order;", "order" },
		{ "debian-6.1", "kmem", "mm_page_free", "long pfn;", "pfn" },
		{ "linux-6.18", "sched", "sched_process_fork", "child_pid;", "child_pid" },
		{ "debian-6.1", "sched", "sched_process_fork", "parent_pid;", "parent_pid" },
		{ "linux-6.18", "sched", "sched_process_exit", "pid_t pid;", "pid" },
		{ "linux-6.18", "sched", "sched_process_exec", "pid_t pid;", "pid" },
		{ "linux-6.18", "task", "task_rename", "newcomm", "newcomm" },
		{ "linux-6.18", "task", "task_newtask", "clone_flags;", "clone_flags" },
		{ "debian-6.1", "module", "module_load", "] name;", "name" },
		{ "debian-6.1", "module", "module_put", "] name;", "name" },
		{ "debian-6.1", "syscalls", "sys_exit_finit_module", "ret;", "ret" },
		{ "linux-6.18", "oom", "mark_victim", "int pid;", "pid" },
		{ "linux-6.18", "kmem", "mm_page_alloc", "common_pid", NULL },
		{ "linux-6.18", "kmem", "mm_page_free", "common_type", NULL },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text;

		if (!strcmp(cases[i].drop, "common_type")) {
			/* the parser itself refuses that one */
			struct fmt_event fe;
			char err[128] = "";

			text = fmt_text_without(cases[i].set, cases[i].sys, cases[i].name,
						cases[i].drop);
			ck_assert_int_eq(fmt_parse_event(&fe, text, strlen(text), err,
							 sizeof(err)), -1);
			ck_assert(err[0] != '\0');
			free(text);
			continue;
		}
		text = fmt_text_without(cases[i].set, cases[i].sys, cases[i].name, cases[i].drop);
		expect_add_fails(text, cases[i].sys, cases[i].name, cases[i].mention);
		free(text);
	}
}
END_TEST

/* fields with sizes or kinds memtrace cannot use */
START_TEST(test_unusable_fields)
{
#define CH "ID: 900\nformat:\n"							\
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"	\
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"	\
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	/* pfn of 3 bytes */
	expect_add_fails("name: mm_page_alloc\n" CH
			 "\tfield:unsigned long pfn;\toffset:8;\tsize:3;\tsigned:0;\n"
			 "\tfield:unsigned int order;\toffset:16;\tsize:4;\tsigned:0;\n",
			 "kmem", "mm_page_alloc", "pfn");
	/* order as an array */
	expect_add_fails("name: mm_page_free\n" CH
			 "\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
			 "\tfield:unsigned int order;\toffset:16;\tsize:16;\tsigned:0;\n",
			 "kmem", "mm_page_free", "order");
	/* a string field that is a plain integer */
	expect_add_fails("name: task_rename\n" CH
			 "\tfield:pid_t pid;\toffset:8;\tsize:4;\tsigned:1;\n"
			 "\tfield:long newcomm;\toffset:16;\tsize:8;\tsigned:0;\n",
			 "task", "task_rename", "newcomm");
	/* common_type not where it must be */
	expect_add_fails("name: mm_page_free\nID: 900\nformat:\n"
			 "\tfield:int common_pid;\toffset:0;\tsize:4;\tsigned:1;\n"
			 "\tfield:unsigned short common_type;\toffset:4;\tsize:2;\tsigned:0;\n"
			 "\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
			 "\tfield:unsigned int order;\toffset:16;\tsize:4;\tsigned:0;\n",
			 "kmem", "mm_page_free", "common_type");
	/* common_pid of an odd size */
	expect_add_fails("name: mm_page_free\nID: 900\nformat:\n"
			 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			 "\tfield:int common_pid;\toffset:4;\tsize:3;\tsigned:1;\n"
			 "\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
			 "\tfield:unsigned int order;\toffset:16;\tsize:4;\tsigned:0;\n",
			 "kmem", "mm_page_free", "common_pid");
#undef CH
}
END_TEST

/* a failed registration leaves the id free */
START_TEST(test_failed_add_leaves_id_free)
{
	struct mt_decoder *d = new_decoder();
	struct fmt_event fe;
	char err[256] = "";
	char *text = fmt_text_without("linux-6.18", "kmem", "mm_page_alloc", "long pfn;");

	parse_text(&fe, "kmem", text);
	ck_assert_int_eq(decoder_add(d, tp_of("kmem", "mm_page_alloc"), &fe, err, sizeof(err)),
			 -1);
	add_fixture(d, "linux-6.18", "kmem", "mm_page_alloc", &fe);
	ck_assert_uint_eq(fe.id, 653);
	ck_assert_uint_eq(d->ndescs, 1);
	free(text);
	free(d);
}
END_TEST

START_TEST(test_duplicate_id)
{
	struct mt_decoder *d = new_decoder();
	struct fmt_event fe;
	char err[256] = "";

	add_fixture(d, "linux-6.18", "kmem", "mm_page_alloc", &fe);
	/* the same event again */
	ck_assert_int_eq(decoder_add(d, tp_of("kmem", "mm_page_alloc"), &fe, err, sizeof(err)),
			 -1);
	ck_assert(err[0] != '\0');
	/* another event claiming the same id */
	ck_assert(load_fmt(&fe, "linux-6.18", "kmem", "mm_page_free"));
	fe.id = 653;
	err[0] = '\0';
	ck_assert_int_eq(decoder_add(d, tp_of("kmem", "mm_page_free"), &fe, err, sizeof(err)),
			 -1);
	ck_assert_msg(strstr(err, "653") != NULL, "%s", err);
	ck_assert_uint_eq(d->ndescs, 1);
	ck_assert_int_eq(decoder_desc(d, 653)->kind, EV_PAGE_ALLOC);
	/* an id that no u16 common_type can carry: refused, not folded onto another */
	fe.id = 65536 + 653;
	err[0] = '\0';
	ck_assert_int_eq(decoder_add(d, tp_of("kmem", "mm_page_free"), &fe, err, sizeof(err)),
			 -1);
	ck_assert_msg(strstr(err, "65535") != NULL, "%s", err);
	ck_assert_uint_eq(d->ndescs, 1);
	ck_assert_int_eq(decoder_desc(d, 653)->kind, EV_PAGE_ALLOC);
	free(d);
}
END_TEST

START_TEST(test_page_events)
{
	struct mt_decoder *d = new_decoder();
	struct fmt_event fe;
	struct mt_event ev;
	struct rec x;

	add_fixture(d, "linux-6.18", "kmem", "mm_page_alloc", &fe);
	add_fixture(d, "linux-6.18", "kmem", "mm_page_free", &fe);

	/* the fact sheet's mm_page_alloc: pid 15488 pfn 0x16467b order 0, 40 bytes */
	rec_init(&x, 653, 15488, 0, 40);
	rec_u64(&x, 8, 0x16467b);
	rec_u32(&x, 16, 0);
	rec_u64(&x, 24, 0x140dca);
	rec_u32(&x, 32, 1);
	ck_assert_int_eq(decoder_decode(d, &x.r, 3, &ev), DEC_OK);
	ck_assert_int_eq(ev.kind, EV_PAGE_ALLOC);
	ck_assert_uint_eq(ev.cpu, 3);
	ck_assert_uint_eq(ev.ts, 123456789);
	ck_assert_int_eq(ev.tid, 15488);
	ck_assert_uint_eq(ev.flags, 0);
	ck_assert_uint_eq(ev.u.page.pfn, 0x16467b);
	ck_assert_uint_eq(ev.u.page.order, 0);

	/* free, order 9, in a softirq */
	rec_init(&x, 655, 15584, MT_FLAG_SOFTIRQ | 0x01, 24);
	rec_u64(&x, 8, 0x113bd1);
	rec_u32(&x, 16, 9);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_assert_int_eq(ev.kind, EV_PAGE_FREE);
	ck_assert_int_eq(ev.tid, 15584);
	ck_assert_uint_eq(ev.flags, MT_FLAG_SOFTIRQ | 0x01);
	ck_assert_uint_eq(ev.u.page.pfn, 0x113bd1);
	ck_assert_uint_eq(ev.u.page.order, 9);

	/* pid 0 (idle) and a negative pid are passed through */
	rec_init(&x, 655, -1, 0, 24);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_assert_int_eq(ev.tid, -1);
	free(d);
}
END_TEST

/* a big-endian page record (s390x), written byte by byte */
static void rec_be(struct rec *x, uint32_t id, int32_t pid, uint8_t flags, uint64_t pfn,
		   uint32_t order)
{
	int i;

	memset(x, 0, sizeof(*x));
	x->b[0] = (uint8_t)(id >> 8);
	x->b[1] = (uint8_t)id;
	x->b[2] = flags;
	for (i = 0; i < 4; i++)
		x->b[4 + i] = (uint8_t)((uint32_t)pid >> (24 - 8 * i));
	for (i = 0; i < 8; i++)
		x->b[8 + i] = (uint8_t)(pfn >> (56 - 8 * i));
	for (i = 0; i < 4; i++)
		x->b[16 + i] = (uint8_t)(order >> (24 - 8 * i));
	x->r.ts = 5;
	x->r.data = x->b;
	x->r.len = 24;
	x->r.big_endian = true;
}

/* @d holding @text alone, a kmem format of @tp's */
static void page_layout(struct mt_decoder *d, const struct mt_tracepoint *tp, const char *text)
{
	struct fmt_event fe;
	char err[256] = "";

	parse_text(&fe, "kmem", text);
	decoder_init(d);
	ck_assert_msg(decoder_add(d, tp, &fe, err, sizeof(err)) == 0, "%s", err);
}

/*
 * Page events in the usual layout are read at places resolved once (struct
 * mt_pagefmt), the others field by field: the same values either way, in
 * either byte order, and a record too short for the fast way reads as before.
 * The places of every 64-bit kernel (usual) are read as constants; a layout
 * with any field elsewhere, or a 4-byte pfn, at its resolved places.
 */
START_TEST(test_page_layouts)
{
	static const char head[] = "name: mm_page_free\nID: 90\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n";
	static const char flags[] =
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n";
	static const char pid[] = "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n";
	static const char pfn_s4[] = "\tfield:long pfn;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield:unsigned int order;\toffset:12;\tsize:4;\tsigned:0;\n";
	static const char order8[] = "\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned long order;\toffset:16;\tsize:8;\tsigned:0;\n";
	const struct mt_tracepoint *tp = tp_of("kmem", "mm_page_free");
	struct mt_decoder *d = new_decoder();
	struct fmt_event fe;
	struct mt_event ev;
	char text[1024];
	struct rec x;

	/* the fixtures' formats take the fast way, s390x's too */
	add_fixture(d, "linux-6.18", "kmem", "mm_page_alloc", &fe);
	ck_assert(decoder_desc(d, 653)->page.on && decoder_desc(d, 653)->page.need == 20);
	ck_assert(decoder_desc(d, 653)->page.usual);
	add_fixture(d, "debian-6.1-s390x", "kmem", "mm_page_free", &fe);
	ck_assert(decoder_desc(d, 458)->page.on && decoder_desc(d, 458)->page.have_flags);
	ck_assert(decoder_desc(d, 458)->page.usual);
	rec_be(&x, 458, 4242, MT_FLAG_HARDIRQ, 0x123456789aULL, 2);
	ck_assert_int_eq(decoder_decode(d, &x.r, 1, &ev), DEC_OK);
	ck_assert_int_eq(ev.kind, EV_PAGE_FREE);
	ck_assert_int_eq(ev.tid, 4242);
	ck_assert_uint_eq(ev.flags, MT_FLAG_HARDIRQ);
	ck_assert_uint_eq(ev.u.page.pfn, 0x123456789aULL);
	ck_assert_uint_eq(ev.u.page.order, 2);
	ck_assert_uint_eq(ev.ts, 5);
	ck_assert_uint_eq(ev.cpu, 1);
	/* too short for order: the generic way says so */
	x.r.len = 19;
	ck_assert_int_eq(decoder_decode(d, &x.r, 1, &ev), DEC_BAD);

	/* no common_flags: fast, flags 0 */
	snprintf(text, sizeof(text), "%s%s"
		 "\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
		 "\tfield:unsigned int order;\toffset:16;\tsize:4;\tsigned:0;\n", head, pid);
	page_layout(d, tp, text);
	ck_assert(decoder_desc(d, 90)->page.on && !decoder_desc(d, 90)->page.have_flags);
	ck_assert(!decoder_desc(d, 90)->page.usual);
	rec_init(&x, 90, -3, 0xff, 24);
	rec_u64(&x, 8, 77);
	rec_u32(&x, 16, 1);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_assert_int_eq(ev.tid, -3);
	ck_assert_uint_eq(ev.flags, 0);
	ck_assert_uint_eq(ev.u.page.pfn, 77);
	ck_assert_uint_eq(ev.u.page.order, 1);

	/* the fields a word further on (a kernel with one more before them): at their places */
	snprintf(text, sizeof(text), "%s%s%s"
		 "\tfield:unsigned long pfn;\toffset:16;\tsize:8;\tsigned:0;\n"
		 "\tfield:unsigned int order;\toffset:24;\tsize:4;\tsigned:0;\n", head, flags, pid);
	page_layout(d, tp, text);
	ck_assert(decoder_desc(d, 90)->page.on && !decoder_desc(d, 90)->page.usual);
	ck_assert_uint_eq(decoder_desc(d, 90)->page.need, 28);
	rec_init(&x, 90, 31, MT_FLAG_NMI, 32);
	rec_u64(&x, 8, 1111);		/* where the usual pfn would be */
	rec_u64(&x, 16, 0xabcdef);
	rec_u32(&x, 24, 4);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_assert_int_eq(ev.tid, 31);
	ck_assert_uint_eq(ev.flags, MT_FLAG_NMI);
	ck_assert_uint_eq(ev.u.page.pfn, 0xabcdef);
	ck_assert_uint_eq(ev.u.page.order, 4);

	/* an unsigned 4-byte pfn (a 32-bit kernel): at its places, not the usual ones */
	snprintf(text, sizeof(text), "%s%s%s"
		 "\tfield:unsigned long pfn;\toffset:8;\tsize:4;\tsigned:0;\n"
		 "\tfield:unsigned int order;\toffset:12;\tsize:4;\tsigned:0;\n", head, flags, pid);
	page_layout(d, tp, text);
	ck_assert(decoder_desc(d, 90)->page.on && !decoder_desc(d, 90)->page.usual);
	rec_init(&x, 90, 12, 0, 16);
	rec_u32(&x, 8, 0x89abcdefu);
	rec_u32(&x, 12, 2);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_assert_uint_eq(ev.u.page.pfn, 0x89abcdefu);
	ck_assert_uint_eq(ev.u.page.order, 2);

	/* a signed 4-byte pfn: field by field, sign-extended as before */
	snprintf(text, sizeof(text), "%s%s%s%s", head, flags, pid, pfn_s4);
	page_layout(d, tp, text);
	ck_assert(!decoder_desc(d, 90)->page.on);
	/* no record is long enough for the page way: the one comparison says so */
	ck_assert_uint_eq(decoder_desc(d, 90)->page.need, UINT32_MAX);
	rec_init(&x, 90, 9, 0, 16);
	rec_u32(&x, 8, 0xfffffffeu);
	rec_u32(&x, 12, 0);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_assert_uint_eq(ev.u.page.pfn, UINT64_MAX - 1);

	/* an 8-byte order: field by field */
	snprintf(text, sizeof(text), "%s%s%s%s", head, flags, pid, order8);
	page_layout(d, tp, text);
	ck_assert(!decoder_desc(d, 90)->page.on);
	rec_init(&x, 90, 9, 0, 24);
	rec_u64(&x, 8, 5);
	rec_u64(&x, 16, 3);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_assert_uint_eq(ev.u.page.pfn, 5);
	ck_assert_uint_eq(ev.u.page.order, 3);
	free(d);
}
END_TEST

/* mm_page_alloc with pfn all ones is a failed allocation, whatever the pfn size */
START_TEST(test_failed_alloc_pfn)
{
	static const char pfn4[] = "name: mm_page_alloc\nID: 77\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:unsigned long pfn;\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:unsigned int order;\toffset:12;\tsize:4;\tsigned:0;\n"
		"\tfield:gfp_t gfp_flags;\toffset:16;\tsize:4;\tsigned:0;\n"
		"\tfield:int migratetype;\toffset:20;\tsize:4;\tsigned:1;\n";
	struct mt_decoder *d = new_decoder();
	struct fmt_event fe;
	struct mt_event ev;
	struct rec x;
	char err[256] = "";

	add_fixture(d, "linux-6.18", "kmem", "mm_page_alloc", &fe);
	rec_init(&x, 653, 42, 0, 40);
	rec_u64(&x, 8, UINT64_MAX);
	rec_u32(&x, 16, 3);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_assert_uint_eq(ev.u.page.pfn, UINT64_MAX);
	ck_assert_uint_eq(ev.u.page.order, 3);
	/* 0xffffffff is a real pfn on a 64-bit kernel */
	rec_u64(&x, 8, 0xffffffffULL);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_assert_uint_eq(ev.u.page.pfn, 0xffffffffULL);

	/* 32-bit kernel layout: pfn is 4 bytes */
	parse_text(&fe, "kmem", pfn4);
	ck_assert_msg(decoder_add(d, tp_of("kmem", "mm_page_alloc"), &fe, err, sizeof(err)) == 0,
		      "%s", err);
	rec_init(&x, 77, 42, 0, 24);
	rec_u32(&x, 8, 0xffffffffu);
	rec_u32(&x, 12, 2);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_assert_uint_eq(ev.u.page.pfn, UINT64_MAX);
	ck_assert_uint_eq(ev.u.page.order, 2);
	rec_u32(&x, 8, 0x12345678u);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_assert_uint_eq(ev.u.page.pfn, 0x12345678u);
	rec_u32(&x, 8, 0xfffffffeu);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_assert_uint_eq(ev.u.page.pfn, 0xfffffffeu);
	free(d);
}
END_TEST

/* 6.1: char arrays; 6.18: __data_loc strings */
START_TEST(test_fork_old_and_new)
{
	struct mt_decoder *d = new_decoder();
	struct fmt_event fe;
	struct mt_event ev;
	struct rec x;

	add_fixture(d, "debian-6.1", "sched", "sched_process_fork", &fe);
	add_fixture(d, "linux-6.18", "sched", "sched_process_fork", &fe);

	rec_init(&x, 308, 1, 0, 48);
	rec_put(&x, 8, "init", 5);
	rec_u32(&x, 24, 1);
	rec_put(&x, 28, "kworker/u4:0", 13);
	rec_u32(&x, 44, 91);
	ck_assert_int_eq(decoder_decode(d, &x.r, 1, &ev), DEC_OK);
	ck_assert_int_eq(ev.kind, EV_FORK);
	ck_assert_int_eq(ev.tid, 1);
	ck_assert_int_eq(ev.u.fork.parent, 1);
	ck_assert_int_eq(ev.u.fork.child, 91);
	ck_str(ev.u.fork.comm, "kworker/u4:0");
	/* a full 16-byte comm has no NUL */
	rec_put(&x, 28, "0123456789abcdef", 16);
	ck_assert_int_eq(decoder_decode(d, &x.r, 1, &ev), DEC_OK);
	ck_str(ev.u.fork.comm, "0123456789abcdef");
	ck_assert_int_eq(ev.u.fork.child, 91);

	rec_init(&x, 366, 11105, 0, 56);
	rec_loc(&x, 8, 24, "capture-6.18.sh");
	rec_u32(&x, 12, 11105);
	rec_loc(&x, 16, 40, "mt-fixture");
	rec_u32(&x, 20, 11123);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_assert_int_eq(ev.kind, EV_FORK);
	ck_assert_int_eq(ev.u.fork.parent, 11105);
	ck_assert_int_eq(ev.u.fork.child, 11123);
	ck_str(ev.u.fork.comm, "mt-fixture");
	/* child_comm pointing outside the record: pids still decode, no name */
	rec_u32(&x, 16, (11u << 16) | 200);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_assert_int_eq(ev.u.fork.child, 11123);
	ck_assert_uint_eq(ev.u.fork.comm.len, 0);
	ck_assert_ptr_nonnull(ev.u.fork.comm.s);
	free(d);
}
END_TEST

/* optional fields may be missing from the format */
START_TEST(test_optional_missing)
{
	struct mt_decoder *d = new_decoder();
	struct fmt_event fe;
	struct mt_event ev;
	struct rec x;
	char err[256] = "";
	char *text;

	/* 6.1 sched_process_exit has no group_dead */
	add_fixture(d, "debian-6.1", "sched", "sched_process_exit", &fe);
	ck_assert_ptr_null(fmt_find(&fe, "group_dead"));
	rec_init(&x, 311, 91, 0, 32);
	rec_put(&x, 8, "modprobe", 9);
	rec_u32(&x, 24, 91);
	rec_u32(&x, 28, 120);
	ck_assert_int_eq(decoder_decode(d, &x.r, 1, &ev), DEC_OK);
	ck_assert_int_eq(ev.kind, EV_EXIT);
	ck_assert_int_eq(ev.u.exit.pid, 91);
	ck_assert_int_eq(ev.u.exit.group_dead, -1);
	ck_str(ev.u.exit.comm, "modprobe");

	/* fork without child_comm */
	text = fmt_text_without("linux-6.18", "sched", "sched_process_fork", "child_comm");
	parse_text(&fe, "sched", text);
	free(text);
	ck_assert_msg(decoder_add(d, tp_of("sched", "sched_process_fork"), &fe, err,
				  sizeof(err)) == 0, "%s", err);
	rec_init(&x, 366, 5, 0, 24);
	rec_u32(&x, 12, 5);
	rec_u32(&x, 20, 6);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_assert_int_eq(ev.u.fork.parent, 5);
	ck_assert_int_eq(ev.u.fork.child, 6);
	ck_assert_uint_eq(ev.u.fork.comm.len, 0);

	/* exec without old_pid: old_pid is the pid */
	text = fmt_text_without("linux-6.18", "sched", "sched_process_exec", "old_pid");
	parse_text(&fe, "sched", text);
	free(text);
	ck_assert_msg(decoder_add(d, tp_of("sched", "sched_process_exec"), &fe, err,
				  sizeof(err)) == 0, "%s", err);
	rec_init(&x, 365, 77, 0, 32);
	rec_loc(&x, 8, 20, "/bin/true");
	rec_u32(&x, 12, 77);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_assert_int_eq(ev.u.exec.pid, 77);
	ck_assert_int_eq(ev.u.exec.old_pid, 77);
	ck_str(ev.u.exec.filename, "/bin/true");

	/* mark_victim of kernels before 6.9: only pid */
	parse_text(&fe, "oom", "name: mark_victim\nID: 506\nformat:\n"
		   "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		   "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		   "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		   "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		   "\tfield:int pid;\toffset:8;\tsize:4;\tsigned:1;\n");
	ck_assert_msg(decoder_add(d, tp_of("oom", "mark_victim"), &fe, err, sizeof(err)) == 0,
		      "%s", err);
	rec_init(&x, 506, 0, 0, 12);
	rec_u32(&x, 8, 4242);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_assert_int_eq(ev.kind, EV_OOM_VICTIM);
	ck_assert_int_eq(ev.u.oom.pid, 4242);
	ck_assert_uint_eq(ev.u.oom.comm.len, 0);
	ck_assert_uint_eq(ev.u.oom.total_vm_kb, 0);
	ck_assert_uint_eq(ev.u.oom.anon_rss_kb, 0);
	free(d);
}
END_TEST

START_TEST(test_exit_group_dead)
{
	struct mt_decoder *d = new_decoder();
	struct fmt_event fe;
	struct mt_event ev;
	struct rec x;

	add_fixture(d, "linux-6.18", "sched", "sched_process_exit", &fe);
	rec_init(&x, 369, 21986, 0, 36);
	rec_put(&x, 8, "sleep", 6);
	rec_u32(&x, 24, 21986);
	rec_u32(&x, 28, 120);
	x.b[32] = 1;
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_assert_int_eq(ev.kind, EV_EXIT);
	ck_assert_int_eq(ev.u.exit.pid, 21986);
	ck_assert_int_eq(ev.u.exit.group_dead, 1);
	ck_str(ev.u.exit.comm, "sleep");
	x.b[32] = 0;
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_assert_int_eq(ev.u.exit.group_dead, 0);
	free(d);
}
END_TEST

START_TEST(test_other_kinds)
{
	struct mt_decoder *d = new_decoder();
	struct fmt_event fe;
	struct mt_event ev;
	struct rec x;
	int64_t neg = -17;

	add_fixture(d, "linux-6.18", "task", "task_newtask", &fe);
	add_fixture(d, "linux-6.18", "task", "task_rename", &fe);
	add_fixture(d, "linux-6.18", "sched", "sched_process_exec", &fe);
	add_fixture(d, "linux-6.18", "oom", "mark_victim", &fe);
	add_fixture(d, "debian-6.1", "module", "module_load", &fe);
	add_fixture(d, "debian-6.1", "module", "module_put", &fe);
	add_fixture(d, "debian-6.1", "module", "module_free", &fe);
	add_fixture(d, "debian-6.1", "syscalls", "sys_enter_finit_module", &fe);
	add_fixture(d, "debian-6.1", "syscalls", "sys_exit_finit_module", &fe);
	add_fixture(d, "debian-6.1", "syscalls", "sys_enter_init_module", &fe);
	add_fixture(d, "debian-6.1", "syscalls", "sys_exit_init_module", &fe);

	rec_init(&x, 205, 11105, 0, 48);
	rec_u32(&x, 8, 11123);
	rec_put(&x, 12, "capture-6.18.sh", 16);
	rec_u64(&x, 32, 0x1200000);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_assert_int_eq(ev.kind, EV_NEWTASK);
	ck_assert_int_eq(ev.u.newtask.pid, 11123);
	ck_assert_uint_eq(ev.u.newtask.clone_flags, 0x1200000);
	ck_str(ev.u.newtask.comm, "capture-6.18.sh");

	rec_init(&x, 204, 11124, 0, 48);
	rec_u32(&x, 8, 11124);
	rec_put(&x, 12, "capture", 8);
	rec_put(&x, 28, "mt-fixture", 11);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_assert_int_eq(ev.kind, EV_RENAME);
	ck_assert_int_eq(ev.u.rename.pid, 11124);
	ck_str(ev.u.rename.comm, "mt-fixture");

	/* the fact sheet's exec: filename loc 0x000c0014 */
	rec_init(&x, 365, 21985, 0, 32);
	rec_u32(&x, 8, 0x000c0014);
	rec_u32(&x, 12, 21985);
	rec_u32(&x, 16, 21985);
	rec_put(&x, 20, "/usr/bin/sh", 12);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_assert_int_eq(ev.kind, EV_EXEC);
	ck_assert_int_eq(ev.u.exec.pid, 21985);
	ck_assert_int_eq(ev.u.exec.old_pid, 21985);
	ck_str(ev.u.exec.filename, "/usr/bin/sh");

	rec_init(&x, 609, 300, 0, 80);
	rec_u32(&x, 8, 4321);
	rec_loc(&x, 12, 68, "hog");
	rec_u64(&x, 16, 1000);
	rec_u64(&x, 24, 800);
	rec_u64(&x, 32, 150);
	rec_u64(&x, 40, 50);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_assert_int_eq(ev.kind, EV_OOM_VICTIM);
	ck_assert_int_eq(ev.u.oom.pid, 4321);
	ck_str(ev.u.oom.comm, "hog");
	ck_assert_uint_eq(ev.u.oom.total_vm_kb, 1000);
	ck_assert_uint_eq(ev.u.oom.anon_rss_kb, 800);
	ck_assert_uint_eq(ev.u.oom.file_rss_kb, 150);
	ck_assert_uint_eq(ev.u.oom.shmem_rss_kb, 50);

	rec_init(&x, 357, 91, 0, 40);
	rec_loc(&x, 12, 16, "virtio_pci_modern_dev");
	ck_assert_int_eq(decoder_decode(d, &x.r, 1, &ev), DEC_OK);
	ck_assert_int_eq(ev.kind, EV_MOD_LOAD);
	ck_str(ev.u.module.name, "virtio_pci_modern_dev");

	rec_init(&x, 354, 91, 0, 40);
	rec_u64(&x, 8, 0xffffffff91b3a000ULL);
	rec_u32(&x, 16, 1);
	rec_loc(&x, 20, 24, "virtio_ring");
	ck_assert_int_eq(decoder_decode(d, &x.r, 1, &ev), DEC_OK);
	ck_assert_int_eq(ev.kind, EV_MOD_PUT);
	ck_str(ev.u.module.name, "virtio_ring");
	ck_assert_uint_eq(ev.u.module.ip, 0xffffffff91b3a000ULL);
	ck_assert_int_eq(ev.u.module.refcnt, 1);
	rec_u32(&x, 16, 0xffffffffu);	/* refcnt is signed */
	ck_assert_int_eq(decoder_decode(d, &x.r, 1, &ev), DEC_OK);
	ck_assert_int_eq(ev.u.module.refcnt, -1);

	rec_init(&x, 356, 96, 0, 28);
	rec_loc(&x, 8, 12, "crc32_pclmul");
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_assert_int_eq(ev.kind, EV_MOD_FREE);
	ck_str(ev.u.module.name, "crc32_pclmul");

	rec_init(&x, 348, 91, 0, 40);
	ck_assert_int_eq(decoder_decode(d, &x.r, 1, &ev), DEC_OK);
	ck_assert_int_eq(ev.kind, EV_MODSYS_ENTER);
	ck_assert(ev.u.modsys.finit);
	rec_init(&x, 350, 91, 0, 40);
	ck_assert_int_eq(decoder_decode(d, &x.r, 1, &ev), DEC_OK);
	ck_assert_int_eq(ev.kind, EV_MODSYS_ENTER);
	ck_assert(!ev.u.modsys.finit);

	rec_init(&x, 347, 91, 0, 24);
	rec_put(&x, 16, &neg, 8);
	ck_assert_int_eq(decoder_decode(d, &x.r, 1, &ev), DEC_OK);
	ck_assert_int_eq(ev.kind, EV_MODSYS_EXIT);
	ck_assert(ev.u.modsys.finit);
	ck_assert_int_eq(ev.u.modsys.ret, -17);
	rec_init(&x, 349, 91, 0, 24);
	ck_assert_int_eq(decoder_decode(d, &x.r, 1, &ev), DEC_OK);
	ck_assert_int_eq(ev.kind, EV_MODSYS_EXIT);
	ck_assert(!ev.u.modsys.finit);
	ck_assert_int_eq(ev.u.modsys.ret, 0);
	free(d);
}
END_TEST

START_TEST(test_unknown_and_short)
{
	struct mt_decoder *d = new_decoder();
	struct fmt_event fe;
	struct mt_event ev;
	struct rec x;

	/* nothing registered */
	rec_init(&x, 653, 1, 0, 40);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_UNKNOWN);

	add_fixture(d, "linux-6.18", "kmem", "mm_page_alloc", &fe);
	add_fixture(d, "debian-6.1", "sched", "sched_process_fork", &fe);
	add_fixture(d, "linux-6.18", "sched", "sched_process_exit", &fe);
	add_fixture(d, "linux-6.18", "task", "task_newtask", &fe);
	add_fixture(d, "debian-6.1", "module", "module_load", &fe);
	add_fixture(d, "debian-6.1", "syscalls", "sys_exit_finit_module", &fe);

	rec_init(&x, 654, 1, 0, 16);	/* mm_page_free_batched: not registered */
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_UNKNOWN);
	rec_init(&x, 0xffff, 1, 0, 16);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_UNKNOWN);

	/* not even a common_type */
	rec_init(&x, 653, 1, 0, 1);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_BAD);
	rec_init(&x, 653, 1, 0, 0);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_BAD);
	/* no common_pid */
	rec_init(&x, 653, 1, 0, 7);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_BAD);
	/* pfn cut */
	rec_init(&x, 653, 1, 0, 12);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_BAD);
	/* order cut */
	rec_init(&x, 653, 1, 0, 19);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_BAD);
	rec_init(&x, 653, 1, 0, 20);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	/* 6.1 fork: child_pid at 44..47 */
	rec_init(&x, 308, 1, 0, 47);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_BAD);
	rec_init(&x, 308, 1, 0, 27);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_BAD);
	/* exit: pid at 24..27 */
	rec_init(&x, 369, 1, 0, 27);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_BAD);
	/* newtask: clone_flags at 32..39 */
	rec_init(&x, 205, 1, 0, 39);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_BAD);
	/* module_load: the name's loc word cut, or pointing past the record */
	rec_init(&x, 357, 1, 0, 15);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_BAD);
	rec_init(&x, 357, 1, 0, 24);
	rec_loc(&x, 12, 16, "virtio");	/* 7 bytes at 16: needs 23 */
	x.r.len = 22;
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_BAD);
	x.r.len = 23;
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_OK);
	ck_str(ev.u.module.name, "virtio");
	/* an empty name is no name */
	rec_u32(&x, 12, (1u << 16) | 16);
	x.b[16] = 0;
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_BAD);
	/* sys_exit: ret at 16..23 */
	rec_init(&x, 347, 1, 0, 20);
	ck_assert_int_eq(decoder_decode(d, &x.r, 0, &ev), DEC_BAD);
	free(d);
}
END_TEST

/* ---- the fixtures: raw pages decoded vs the kernel's own text ---- */

struct tline {
	int cpu;
	int pid;
	uint64_t us;
	char name[64];
	char args[512];
};

struct tfile {
	struct tline *l;
	size_t n;
	unsigned long entries;	/* "entries-in-buffer" */
};

/* one line of trace.txt; false for comments and blank lines */
static bool parse_tline(const char *line, struct tline *t)
{
	const char *br, *p, *dash, *colon;
	unsigned long secs, usecs;
	size_t n;

	if (line[0] == '#' || !line[0])
		return false;
	br = strstr(line, "] ");
	ck_assert_msg(br && br - line >= 5 && br[-4] == '[', "no cpu in '%s'", line);
	t->cpu = atoi(br - 3);
	for (dash = br - 5; dash > line && *dash == ' '; dash--)
		;
	while (dash > line && *dash != '-')
		dash--;
	ck_assert_msg(*dash == '-', "no pid in '%s'", line);
	t->pid = atoi(dash + 1);
	p = br + 2;
	while (*p && *p != ' ')		/* flags */
		p++;
	ck_assert_int_eq(sscanf(p, " %lu.%6lu: ", &secs, &usecs), 2);
	t->us = (uint64_t)secs * 1000000 + usecs;
	p = strstr(p, ": ");
	ck_assert_ptr_nonnull(p);
	p += 2;
	/* 6.1 syscall events: "sys_finit_module(fd: 3, ...)" and "sys_finit_module -> 0x0" */
	n = strcspn(p, ":( ");
	ck_assert_uint_lt(n, 40);
	if (p[n] == '(') {
		snprintf(t->name, sizeof(t->name), "sys_enter_%.*s", (int)(n - 4), p + 4);
		snprintf(t->args, sizeof(t->args), "%s", p + n);
	} else if (p[n] == ' ' && !strncmp(p + n, " -> ", 4)) {
		snprintf(t->name, sizeof(t->name), "sys_exit_%.*s", (int)(n - 4), p + 4);
		snprintf(t->args, sizeof(t->args), "%s", p + n + 4);
	} else {
		colon = p + n;
		ck_assert_msg(*colon == ':', "no event name in '%s'", line);
		snprintf(t->name, sizeof(t->name), "%.*s", (int)n, p);
		snprintf(t->args, sizeof(t->args), "%s", colon[1] ? colon + 2 : "");
	}
	return true;
}

static void read_trace(const char *set, struct tfile *tf)
{
	char rel[256], *text, *line, *save = NULL, *e;
	size_t len;

	snprintf(rel, sizeof(rel), "%s/trace.txt", set);
	text = read_fixture(rel, &len);
	e = strstr(text, "entries-in-buffer/entries-written: ");
	ck_assert_ptr_nonnull(e);
	tf->entries = strtoul(e + 35, NULL, 10);
	tf->l = calloc(len / 40 + 1, sizeof(*tf->l));
	tf->n = 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (parse_tline(line, &tf->l[tf->n]))
			tf->n++;
	ck_assert_uint_eq(tf->n, tf->entries);
	free(text);
}

/* value of "key=" in args: the token up to the next space */
static bool arg(const char *args, const char *key, char *out, size_t outlen)
{
	const char *p = args;
	size_t klen = strlen(key), n;

	while ((p = strstr(p, key)) != NULL) {
		if (p == args || p[-1] == ' ')
			break;
		p += klen;
	}
	if (!p)
		return false;
	p += klen;
	n = strcspn(p, " ");
	ck_assert_uint_lt(n, outlen);
	memcpy(out, p, n);
	out[n] = '\0';
	return true;
}

static long long arg_num(const char *args, const char *key, int base)
{
	char v[128];

	ck_assert_msg(arg(args, key, v, sizeof(v)), "no %s in '%s'", key, args);
	return strtoll(v, NULL, base);
}

static uint64_t arg_hex(const char *args, const char *key)
{
	char v[128];

	ck_assert_msg(arg(args, key, v, sizeof(v)), "no %s in '%s'", key, args);
	return strtoull(v, NULL, 16);
}

static void ck_arg_str(const char *args, const char *key, struct mt_str s)
{
	char v[128];

	ck_assert_msg(arg(args, key, v, sizeof(v)), "no %s in '%s'", key, args);
	ck_str(s, v);
}

/* ids of every format file of a set */
struct idmap {
	char sys[65536][16];
	char name[65536][40];
};

static void load_ids(const char *set, struct idmap *m)
{
	char dir[4096];
	DIR *ds, *de;
	struct dirent *s, *e;
	struct fmt_event fe;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/%s/events", fixtures_dir, set);
	ds = opendir(dir);
	ck_assert_ptr_nonnull(ds);
	while ((s = readdir(ds)) != NULL) {
		char sub[4352];

		if (s->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, s->d_name);
		de = opendir(sub);
		if (!de)
			continue;
		while ((e = readdir(de)) != NULL) {
			if (e->d_name[0] == '.' || !load_fmt(&fe, set, s->d_name, e->d_name))
				continue;
			ck_assert_str_eq(fe.name, e->d_name);
			ck_assert_msg(!m->name[fe.id][0], "id %u twice", fe.id);
			ck_assert_uint_lt(strlen(s->d_name), sizeof(m->sys[0]));
			ck_assert_uint_lt(strlen(e->d_name), sizeof(m->name[0]));
			strcpy(m->sys[fe.id], s->d_name);
			strcpy(m->name[fe.id], e->d_name);
			n++;
		}
		closedir(de);
	}
	closedir(ds);
	ck_assert_int_gt(n, 0);
}

/* check the decoded event against its trace.txt line */
static void check_event(const struct tline *t, const struct mt_event *ev, const char *sys,
			const struct rb_record *r, int ret, uint64_t initmod_lo, uint64_t initmod_hi)
{
	const struct mt_tracepoint *tp = mt_tracepoint_find(sys, t->name);
	int32_t pid;

	if (!tp) {
		ck_assert_msg(ret == DEC_UNKNOWN, "%s decoded as %d", t->name, ret);
		pid = (int32_t)rb_ld32(r->data + 4, r->big_endian);
		ck_assert_int_eq(pid, t->pid);
		if (!strcmp(t->name, "mm_page_free_batched")) {
			uint64_t pfn;

			ck_assert_uint_ge(r->len, 16);
			pfn = rb_ld64(r->data + 8, r->big_endian);
			ck_assert_uint_eq(pfn, arg_hex(t->args, "pfn=0x"));
		}
		return;
	}
	ck_assert_msg(ret == DEC_OK, "%s: decode %d", t->name, ret);
	ck_assert_int_eq(ev->kind, tp->kind);
	ck_assert_int_eq(ev->tid, t->pid);
	switch (ev->kind) {
	case EV_PAGE_ALLOC:
	case EV_PAGE_FREE:
		if (ev->u.page.pfn == UINT64_MAX)	/* printed as 0 */
			ck_assert_uint_eq(arg_hex(t->args, "pfn=0x"), 0);
		else
			ck_assert_uint_eq(ev->u.page.pfn, arg_hex(t->args, "pfn=0x"));
		ck_assert_uint_eq(ev->u.page.order, arg_num(t->args, "order=", 10));
		break;
	case EV_FORK:
		ck_assert_int_eq(ev->u.fork.parent, arg_num(t->args, "pid=", 10));
		ck_assert_int_eq(ev->u.fork.child, arg_num(t->args, "child_pid=", 10));
		ck_arg_str(t->args, "child_comm=", ev->u.fork.comm);
		break;
	case EV_EXIT: {
		char gd[16];

		ck_assert_int_eq(ev->u.exit.pid, arg_num(t->args, "pid=", 10));
		ck_arg_str(t->args, "comm=", ev->u.exit.comm);
		if (arg(t->args, "group_dead=", gd, sizeof(gd)))
			ck_assert_int_eq(ev->u.exit.group_dead, !strcmp(gd, "true"));
		else
			ck_assert_int_eq(ev->u.exit.group_dead, -1);
		break;
	}
	case EV_EXEC:
		ck_assert_int_eq(ev->u.exec.pid, arg_num(t->args, "pid=", 10));
		ck_assert_int_eq(ev->u.exec.old_pid, arg_num(t->args, "old_pid=", 10));
		ck_arg_str(t->args, "filename=", ev->u.exec.filename);
		break;
	case EV_RENAME:
		ck_assert_int_eq(ev->u.rename.pid, arg_num(t->args, "pid=", 10));
		ck_arg_str(t->args, "newcomm=", ev->u.rename.comm);
		break;
	case EV_NEWTASK:
		ck_assert_int_eq(ev->u.newtask.pid, arg_num(t->args, "pid=", 10));
		ck_assert_uint_eq(ev->u.newtask.clone_flags, arg_hex(t->args, "clone_flags="));
		ck_arg_str(t->args, "comm=", ev->u.newtask.comm);
		break;
	case EV_MOD_LOAD:
	case EV_MOD_FREE:
	case EV_MOD_PUT: {
		size_t n = strcspn(t->args, " ");
		char site[64];

		ck_assert_msg(ev->u.module.name.len == n &&
			      !memcmp(ev->u.module.name.s, t->args, n),
			      "module '%.*s' vs '%s'", (int)ev->u.module.name.len,
			      ev->u.module.name.s, t->args);
		if (ev->kind != EV_MOD_PUT)
			break;
		ck_assert_int_eq(ev->u.module.refcnt, arg_num(t->args, "refcnt=", 10));
		ck_assert(arg(t->args, "call_site=", site, sizeof(site)));
		if (!strcmp(site, "do_init_module"))
			ck_assert(ev->u.module.ip >= initmod_lo && ev->u.module.ip < initmod_hi);
		else
			ck_assert(ev->u.module.ip < initmod_lo || ev->u.module.ip >= initmod_hi);
		break;
	}
	case EV_MODSYS_ENTER:
		ck_assert(ev->u.modsys.finit == (strstr(t->name, "finit") != NULL));
		break;
	case EV_MODSYS_EXIT:
		ck_assert(ev->u.modsys.finit == (strstr(t->name, "finit") != NULL));
		ck_assert_int_eq(ev->u.modsys.ret, (int64_t)strtoull(t->args, NULL, 16));
		break;
	default:
		ck_abort_msg("unexpected kind %d", ev->kind);
	}
}

START_TEST(test_fixture_decode)
{
	static const char *const sets[] = { "linux-6.18", "debian-6.1" };
	static const unsigned int ncpus[] = { 2, 2 };
	const char *set = sets[_i];
	struct mt_decoder *d = new_decoder();
	struct idmap *ids = calloc(1, sizeof(*ids));
	const struct mt_tracepoint *tp;
	struct rb_layout l;
	struct tfile tf;
	struct fmt_event fe;
	char rel[256], err[256] = "";
	char *text;
	size_t len, total = 0, kinds[EV__COUNT] = { 0 }, unknown = 0;
	uint64_t lo = 0, hi = 0;
	unsigned int cpu;

	snprintf(rel, sizeof(rel), "%s/events/header_page", set);
	text = read_fixture(rel, &len);
	ck_assert_msg(fmt_parse_header_page(&l, text, len, err, sizeof(err)) == 0, "%s", err);
	l.big_endian = false;	/* recorded on x86-64, read directly (no reader to tell) */
	free(text);
	for (tp = mt_tracepoints; tp->system; tp++) {
		if (!load_fmt(&fe, set, tp->system, tp->name))
			continue;
		ck_assert_msg(decoder_add(d, tp, &fe, err, sizeof(err)) == 0, "%s", err);
	}
	load_ids(set, ids);
	read_trace(set, &tf);
	snprintf(rel, sizeof(rel), "%s/kallsyms.txt", set);
	text = slurp(rel, &len);
	if (text) {
		ck_assert_int_eq(sscanf(text, "%" SCNx64 " t do_init_module\n%" SCNx64, &lo, &hi),
				 2);
		free(text);
	}

	for (cpu = 0; cpu < ncpus[_i]; cpu++) {
		size_t k = 0, lines = 0, off, i, *idx = calloc(tf.n, sizeof(*idx));
		uint32_t S = rb_subbuf_size(&l);
		char *raw;

		/* this cpu's lines, in order */
		for (i = 0; i < tf.n; i++)
			if (tf.l[i].cpu == (int)cpu)
				idx[lines++] = i;
		snprintf(rel, sizeof(rel), "%s/per_cpu/cpu%u/trace_pipe_raw", set, cpu);
		raw = read_fixture(rel, &len);
		ck_assert_uint_gt(len, 0);
		ck_assert_uint_eq(len % S, 0);
		for (off = 0; off < len; off += S) {
			struct rb_cursor c;
			struct rb_page_info in;
			struct rb_record r;
			int ret;

			ck_assert_int_eq(rb_page_open(&c, &l, raw + off, S, &in), 0);
			ck_assert(!in.missed);
			while ((ret = rb_next(&c, &r)) == RB_RECORD) {
				struct mt_event ev;
				const struct tline *t;
				uint16_t id;
				int dret;

				ck_assert_msg(k < lines, "%s cpu%u: more records than lines", set, cpu);
				t = &tf.l[idx[k++]];
				id = rb_ld16(r.data, r.big_endian);
				ck_assert_msg(!strcmp(ids->name[id], t->name),
					      "%s cpu%u rec %zu: id %u (%s) vs '%s' at %" PRIu64,
					      set, cpu, k, id, ids->name[id], t->name, t->us);
				ck_assert_msg((r.ts + 500) / 1000 == t->us,
					      "%s cpu%u rec %zu %s: ts %" PRIu64 " vs %" PRIu64,
					      set, cpu, k, t->name, r.ts, t->us);
				memset(&ev, 0, sizeof(ev));
				dret = decoder_decode(d, &r, cpu, &ev);
				check_event(t, &ev, ids->sys[id], &r, dret, lo, hi);
				if (dret == DEC_OK) {
					ck_assert_uint_eq(ev.cpu, cpu);
					ck_assert_uint_eq(ev.ts, r.ts);
					kinds[ev.kind]++;
				} else {
					unknown++;
				}
			}
			ck_assert_int_eq(ret, RB_END);
			ck_assert_uint_eq(c.corrupt, 0);
		}
		ck_assert_msg(k == lines, "%s cpu%u: %zu records, %zu lines", set, cpu, k, lines);
		ck_assert_uint_gt(lines, 0);
		total += k;
		free(raw);
		free(idx);
	}
	ck_assert_uint_eq(total, tf.entries);
	/* the fixtures contain what their READMEs say */
	if (_i == 0) {
		ck_assert_uint_eq(kinds[EV_PAGE_ALLOC], 423);
		ck_assert_uint_eq(kinds[EV_PAGE_FREE], 344);
		ck_assert_uint_eq(unknown, 332);
		ck_assert_uint_eq(kinds[EV_FORK], 3);
		ck_assert_uint_eq(kinds[EV_EXIT], 3);
		ck_assert_uint_eq(kinds[EV_EXEC], 2);
		ck_assert_uint_eq(kinds[EV_RENAME], 4);
		ck_assert_uint_eq(kinds[EV_NEWTASK], 3);
	} else {
		ck_assert_uint_eq(kinds[EV_PAGE_ALLOC], 133);
		ck_assert_uint_eq(kinds[EV_PAGE_FREE], 188);
		ck_assert_uint_eq(unknown, 77 + 12);
		ck_assert_uint_eq(kinds[EV_MOD_LOAD], 6);
		ck_assert_uint_eq(kinds[EV_MOD_PUT], 13);
		ck_assert_uint_eq(kinds[EV_MOD_FREE], 1);
		ck_assert_uint_eq(kinds[EV_MODSYS_ENTER], 6);
		ck_assert_uint_eq(kinds[EV_MODSYS_EXIT], 6);
		ck_assert_uint_eq(kinds[EV_FORK], 6);
		ck_assert_uint_eq(kinds[EV_EXIT], 4);
		ck_assert_uint_eq(kinds[EV_RENAME], 6);
		ck_assert_uint_eq(kinds[EV_NEWTASK], 6);
	}
	free(tf.l);
	free(ids);
	free(d);
}
END_TEST

Suite *suite_event(void)
{
	Suite *s = suite_create("event");
	TCase *tr = tcase_create("register");
	TCase *td = tcase_create("decode");
	TCase *tf = tcase_create("fixtures");

	tcase_add_test(tr, test_tracepoint_table);
	tcase_add_test(tr, test_add_fixture_formats);
	tcase_add_test(tr, test_missing_required);
	tcase_add_test(tr, test_unusable_fields);
	tcase_add_test(tr, test_failed_add_leaves_id_free);
	tcase_add_test(tr, test_duplicate_id);
	suite_add_tcase(s, tr);

	tcase_add_test(td, test_page_events);
	tcase_add_test(td, test_failed_alloc_pfn);
	tcase_add_test(td, test_page_layouts);
	tcase_add_test(td, test_fork_old_and_new);
	tcase_add_test(td, test_optional_missing);
	tcase_add_test(td, test_exit_group_dead);
	tcase_add_test(td, test_other_kinds);
	tcase_add_test(td, test_unknown_and_short);
	suite_add_tcase(s, td);

	tcase_set_timeout(tf, 120);
	tcase_add_loop_test(tf, test_fixture_decode, 0, 2);
	suite_add_tcase(s, tf);
	return s;
}
