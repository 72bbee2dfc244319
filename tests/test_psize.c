// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_psize.c - every byte figure at the traced kernel's page size: 4 KiB
 * (x86_64), 16 KiB and 64 KiB (arm64, ppc64le). The same run is formatted at
 * each size; the figures read back from the text must be the page counts the
 * test put in, times the page size, computed here in uint64.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ui/frame.h"
#include "stream/jsonl.h"
#include "output/prom.h"
#include "kernel/reader.h"
#include "output/report.h"
#include "stats.h"
#include "testutil.h"
#include "ui/view.h"

static const uint32_t sizes[] = { 4096, 16384, 65536 };
#define NSIZES	(sizeof(sizes) / sizeof(sizes[0]))

/*
 * The run: what each task and module holds, in pages, chosen here.
 *   alpha (tid 100, leader) takes 512 + 1 pages (orders 9 and 0), frees the 1;
 *   its thread 101 takes 4 (order 2): process peak 517, system peak 517;
 *   beta (tid 200) is seeded with BIG pages: above 2^32 KiB at 64 KiB pages;
 *   module zram peaked at 1000 pages and holds 7.
 */
#define ALPHA_PEAK	513
#define ALPHA_CUR	512
#define THREAD_PEAK	4
#define PROC_PEAK	(ALPHA_PEAK + THREAD_PEAK)
#define SYS_PEAK	PROC_PEAK
#define BIG		100000000ull		/* 381 GiB of 4 KiB pages, 6.1 TiB of 64 KiB */
#define ZRAM_PEAK	1000
#define ZRAM_CUR	7

struct fixture {
	struct run r;
	struct reader_cpu cpu0;
	uint32_t order[64];
	uint32_t sel[64];
	uint32_t threads[64];
	int64_t pages[64];
	uint32_t mod_order[16];	/* the fixture's 8 modules and 8 untraced */
};

static struct fixture fx;

static uint64_t kib_of(uint64_t pages, uint32_t ps)
{
	return pages * (uint64_t)ps / 1024;
}

static void fx_init(uint32_t page_size)
{
	struct stats_config cfg = { .max_tasks = 64, .max_modules = 8, .max_pfn = 1 << 20 };
	struct mt_module *m;

	memset(&fx, 0, sizeof(fx));
	ck_assert_int_eq(stats_init(&fx.r.st, &cfg), 0);
	fx.r.mode_name = "live";
	strcpy(fx.r.tf.root, "/sys/kernel/tracing");
	strcpy(fx.r.tf.name, "memtrace");
	fx.r.enabled[0] = "kmem:mm_page_alloc";
	fx.r.enabled[1] = "kmem:mm_page_free";
	fx.r.nenabled = 2;
	fx.r.meta.page_size = page_size;
	fx.r.rd.ncpus = 1;
	fx.r.rd.cpus = &fx.cpu0;
	fx.r.rs.order = fx.order;
	fx.r.rs.threads = fx.threads;
	fx.r.rs.pages = fx.pages;
	fx.r.rs.sel = fx.sel;
	fx.r.rs.mod_order = fx.mod_order;
	fx.r.self_rss_kib = fx.r.self_hwm_kib = fx.r.self_map_kib = -1;
	fx.r.opt_set.rows = 30;

	ck_assert_ptr_nonnull(stats_seed_task(&fx.r.st, 100, 100, 1, "alpha", 5, 0, 0, false));
	ck_assert_ptr_nonnull(stats_seed_task(&fx.r.st, 101, 100, 1, "alpha", 5, 0, 0, false));
	ck_assert_ptr_nonnull(stats_seed_task(&fx.r.st, 200, 200, 1, "beta", 4, BIG, 0, false));
	stats_link_threads(&fx.r.st);
	test_page_event(&fx.r.st, EV_PAGE_ALLOC, 10, 100, 0, 4096, 9);
	test_page_event(&fx.r.st, EV_PAGE_ALLOC, 20, 100, 0, 10, 0);
	test_page_event(&fx.r.st, EV_PAGE_ALLOC, 30, 101, 0, 16, 2);
	test_page_event(&fx.r.st, EV_PAGE_FREE, 40, 100, 0, 10, 0);

	m = &fx.r.st.tb.mods[fx.r.st.tb.nmods];
	memset(m, 0, sizeof(*m));
	strcpy(m->name, "zram");
	m->serial = ++fx.r.st.tb.nmods;
	m->peak = m->all_peak = ZRAM_PEAK;
	m->cur = m->all_cur = ZRAM_CUR;
	m->static_known = true;
	m->static_kib = 40;		/* from sysfs in bytes: not pages, the same at any page size */
	m->state = MOD_LIVE;
	m->loader_tid = 77;
	m->bracket = BR_SYSCALL;

	/* the run is as meant: the page counts do not depend on the page size */
	ck_assert_int_eq(stats_find_task(&fx.r.st, 100)->peak, ALPHA_PEAK);
	ck_assert_int_eq(stats_find_task(&fx.r.st, 100)->cur, ALPHA_CUR);
	ck_assert_int_eq(stats_find_task(&fx.r.st, 101)->peak, THREAD_PEAK);
	ck_assert_int_eq(fx.r.st.sys_peak, SYS_PEAK);
	ck_assert_int_eq(stats_find_task(&fx.r.st, 100)->ppeak, PROC_PEAK);
}

static void fx_free(void)
{
	stats_free(&fx.r.st);
}

static char *report(enum report_format fmt, bool by_process)
{
	fx.r.opt_set.format = fmt;
	fx.r.opt_set.by_process = by_process;
	report_write(test_out_begin(), &fx.r, &fx.r.rs, "SIGUSR1");
	return test_out_end(NULL);
}

/* The unsigned number after the first @key ("\"peak_kib\":") at or after @from. */
static unsigned long long num_after(const char *from, const char *key)
{
	const char *p = strstr(from, key);
	char *end;
	unsigned long long v;

	ck_assert_msg(p, "no %s in ...%.80s", key, from);
	v = strtoull(p + strlen(key), &end, 10);
	ck_assert_msg(end > p + strlen(key), "no number after %s", key);
	return v;
}

/* The line of a text table that starts (after blanks) with @first, under @section. */
static const char *row_of(const char *t, const char *section, const char *first)
{
	const char *p = strstr(t, section), *q;

	ck_assert_msg(p, "no section %s", section);
	while ((p = strchr(p, '\n'))) {
		p++;
		for (q = p; *q == ' '; q++)
			;
		if (!strncmp(q, first, strlen(first)) && q[strlen(first)] == ' ')
			return p;
		if (*p == '\n')
			break;		/* the section's end */
	}
	ck_abort_msg("no row %s in %s", first, section);
	return NULL;
}

/* ---- the text report: task, process and module rows, the system peak line ---- */

START_TEST(test_text_report)
{
	uint32_t ps = sizes[_i];
	unsigned long long kib, kib2, peak;
	unsigned u;
	int a, b, c;
	char want[96], *t;

	fx_init(ps);
	t = report(FMT_TEXT, false);
	snprintf(want, sizeof(want), "(page = %u bytes)", ps);
	ck_assert_msg(strstr(t, want), "no \"%s\"", want);
	/* PID TGID PPID PEAK_PAGES PEAK_KIB */
	ck_assert_int_eq(sscanf(row_of(t, "\nTASKS: ", "100"), "%d %d %d %llu %llu", &a, &b, &c,
				&peak, &kib), 5);
	ck_assert_uint_eq(peak, ALPHA_PEAK);
	ck_assert_uint_eq(kib, kib_of(ALPHA_PEAK, ps));
	ck_assert_int_eq(sscanf(row_of(t, "\nTASKS: ", "101"), "%d %d %d %llu %llu", &a, &b, &c,
				&peak, &kib), 5);
	ck_assert_uint_eq(kib, kib_of(THREAD_PEAK, ps));
	ck_assert_int_eq(sscanf(row_of(t, "\nTASKS: ", "200"), "%d %d %d %llu %llu", &a, &b, &c,
				&peak, &kib), 5);
	ck_assert_uint_eq(peak, BIG);
	ck_assert_uint_eq(kib, kib_of(BIG, ps));
	/* NAME PEAK_PAGES PEAK_KIB CUR_PAGES ... STATIC_KIB: the static size is not pages */
	ck_assert_int_eq(sscanf(row_of(t, "\nMODULES: ", "zram"), "zram %llu %llu %d %llu", &peak,
				&kib, &a, &kib2), 4);
	ck_assert_uint_eq(peak, ZRAM_PEAK);
	ck_assert_uint_eq(kib, kib_of(ZRAM_PEAK, ps));
	ck_assert_uint_eq(kib2, 40);
	snprintf(want, sizeof(want), "\nsystem peak: %d pages (%" PRIu64 " KiB) above the start",
		 SYS_PEAK, kib_of(SYS_PEAK, ps));
	ck_assert_msg(strstr(t, want), "no \"%s\"", want + 1);
	free(t);

	/* --by process: PID PPID THREADS PEAK_PAGES PEAK_KIB */
	t = report(FMT_TEXT, true);
	ck_assert_int_eq(sscanf(row_of(t, "\nPROCESSES: ", "100"), "%d %d %u %llu %llu", &a, &b,
				&u, &peak, &kib), 5);
	ck_assert_uint_eq(u, 2);
	ck_assert_uint_eq(peak, PROC_PEAK);
	ck_assert_uint_eq(kib, kib_of(PROC_PEAK, ps));
	snprintf(want, sizeof(want), "(page = %u bytes)", ps);
	ck_assert_msg(strstr(t, want), "no \"%s\"", want);
	free(t);
	fx_free();
}
END_TEST

/* ---- the JSON report ---- */

START_TEST(test_json_report)
{
	uint32_t ps = sizes[_i];
	char *t, *p;

	fx_init(ps);
	t = report(FMT_JSON, false);
	ck_assert_uint_eq(num_after(t, "\"page_size\":"), ps);
	p = strstr(t, "\"tasks_with_pages\":");	/* the table, not the system peak's tasks */
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(num_after(strstr(p, "{\"pid\":100,"), "\"peak_kib\":"),
			  kib_of(ALPHA_PEAK, ps));
	ck_assert_uint_eq(num_after(strstr(p, "{\"pid\":101,"), "\"peak_kib\":"),
			  kib_of(THREAD_PEAK, ps));
	ck_assert_uint_eq(num_after(strstr(p, "{\"pid\":200,"), "\"peak_kib\":"), kib_of(BIG, ps));
	/* the table: the last "modules" array (the system peak's comes before it) */
	for (p = strstr(t, "\"modules\":["); p && strstr(p + 1, "\"modules\":[");)
		p = strstr(p + 1, "\"modules\":[");
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(strstr(p, "\"modules_not_listed\":"));
	ck_assert_uint_eq(num_after(strstr(p, "\"name\":\"zram\""), "\"peak_kib\":"),
			  kib_of(ZRAM_PEAK, ps));
	ck_assert_uint_eq(num_after(strstr(p, "\"name\":\"zram\""), "\"static_kib\":"), 40);
	p = strstr(t, "\"system_peak\":{");
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(num_after(p, "\"pages\":"), SYS_PEAK);
	ck_assert_uint_eq(num_after(p, "\"kib\":"), kib_of(SYS_PEAK, ps));
	free(t);

	t = report(FMT_JSON, true);
	p = strstr(t, "\"processes_with_pages\":");
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(num_after(strstr(p, "{\"pid\":100,"), "\"peak_pages\":"), PROC_PEAK);
	ck_assert_uint_eq(num_after(strstr(p, "{\"pid\":100,"), "\"peak_kib\":"),
			  kib_of(PROC_PEAK, ps));
	free(t);
	fx_free();
}
END_TEST

/* ---- the console lines: the kmsg summary and the OOM summary ---- */

struct lines {
	int n;
	char l[16][512];
};

static void collect(void *ctx, const char *line)
{
	struct lines *ls = ctx;

	ck_assert_int_lt(ls->n, 16);
	snprintf(ls->l[ls->n++], sizeof(ls->l[0]), "%s", line);
}

static bool has_line(const struct lines *ls, const char *want)
{
	int i;

	for (i = 0; i < ls->n; i++)
		if (!strcmp(ls->l[i], want))
			return true;
	return false;
}

START_TEST(test_console)
{
	uint32_t ps = sizes[_i];
	static struct lines ls;
	char want[256];

	fx_init(ps);
	memset(&ls, 0, sizeof(ls));
	report_summary(&fx.r, &fx.r.rs, "SIGUSR1", "/var/log/memtrace.log", 5, collect, &ls);
	/* beta's peak is its seed: a count of pages, the same at any page size */
	snprintf(want, sizeof(want), "memtrace: top task: pid 200 (beta) peak %llu pages (%" PRIu64
		 " KiB), %llu of them seeded at start", BIG, kib_of(BIG, ps), BIG);
	ck_assert_msg(has_line(&ls, want), "no \"%s\"", want);
	snprintf(want, sizeof(want), "memtrace: top task: pid 100 (alpha) peak %d pages (%" PRIu64
		 " KiB)", ALPHA_PEAK, kib_of(ALPHA_PEAK, ps));
	ck_assert_msg(has_line(&ls, want), "no \"%s\"", want);
	snprintf(want, sizeof(want), "memtrace: top module: zram peak %d pages (%" PRIu64
		 " KiB), static 40 KiB, live", ZRAM_PEAK, kib_of(ZRAM_PEAK, ps));
	ck_assert_msg(has_line(&ls, want), "no \"%s\"", want);
	snprintf(want, sizeof(want), "memtrace: system peak: %d pages (%" PRIu64 " KiB) above the "
		 "start, at 0.000 s", SYS_PEAK, kib_of(SYS_PEAK, ps));
	ck_assert_msg(has_line(&ls, want), "no \"%s\"", want);

	/* --by process: processes (threads summed) in the summary too, said so */
	memset(&ls, 0, sizeof(ls));
	fx.r.opt_set.by_process = true;
	report_summary(&fx.r, &fx.r.rs, "SIGUSR1", "/var/log/memtrace.log", 5, collect, &ls);
	fx.r.opt_set.by_process = false;
	ck_assert_msg(strstr(ls.l[0], " processes with pages, "), "not by process: \"%s\"",
		      ls.l[0]);
	snprintf(want, sizeof(want), "memtrace: top process: pid 100 (alpha) peak %d pages (%"
		 PRIu64 " KiB)", PROC_PEAK, kib_of(PROC_PEAK, ps));
	ck_assert_msg(has_line(&ls, want), "no \"%s\"", want);
	for (int i = 0; i < ls.n; i++)
		ck_assert_msg(!strstr(ls.l[i], "task"), "tasks under --by process: \"%s\"",
			      ls.l[i]);

	memset(&ls, 0, sizeof(ls));
	report_oom_summary(&fx.r, &fx.r.rs, 5, 0, collect, &ls);
	snprintf(want, sizeof(want), "memtrace: oom: pid 100 (alpha) holds %d pages (%" PRIu64
		 " KiB)", ALPHA_CUR, kib_of(ALPHA_CUR, ps));
	ck_assert_msg(has_line(&ls, want), "no \"%s\"", want);
	snprintf(want, sizeof(want), "memtrace: oom: pid 200 (beta) holds %llu pages (%" PRIu64
		 " KiB)", BIG, kib_of(BIG, ps));
	ck_assert_msg(has_line(&ls, want), "no \"%s\"", want);
	snprintf(want, sizeof(want), "memtrace: oom: module zram holds %d pages (%" PRIu64 " KiB)",
		 ZRAM_CUR, kib_of(ZRAM_CUR, ps));
	ck_assert_msg(has_line(&ls, want), "no \"%s\"", want);
	/* all pages held at the kill (alpha's 512 and its thread's 4), and the peak so far */
	snprintf(want, sizeof(want), "memtrace: oom: %d pages (%" PRIu64 " KiB) above the start "
		 "now; system peak %d pages (%" PRIu64 " KiB) at 0.000 s", ALPHA_CUR + THREAD_PEAK,
		 kib_of(ALPHA_CUR + THREAD_PEAK, ps), SYS_PEAK, kib_of(SYS_PEAK, ps));
	ck_assert_msg(has_line(&ls, want), "no \"%s\"", want);
	fx_free();
}
END_TEST

/* ---- --exits lines ---- */

START_TEST(test_exit_line)
{
	uint32_t ps = sizes[_i];
	struct mt_exit e = { .pid = 300, .ppid = 1, .comm_len = 4, .comm = "gone",
			     .peak = (int64_t)BIG, .start_ts = 1000000000, .exit_ts = 3000000000 };
	unsigned long long peak, kib;
	double ts, life;
	int pid, ppid;
	char *t;

	report_exit_line(test_out_begin(), FMT_TEXT, &e, ps);
	t = test_out_end(NULL);
	/* TIME_S PID PPID PEAK_PAGES PEAK_KIB LIFETIME_S COMM */
	ck_assert_int_eq(sscanf(t, "%lf %d %d %llu %llu %lf", &ts, &pid, &ppid, &peak, &kib,
				&life), 6);
	ck_assert_uint_eq(peak, BIG);
	ck_assert_uint_eq(kib, kib_of(BIG, ps));
	free(t);
	report_exit_line(test_out_begin(), FMT_JSON, &e, ps);
	t = test_out_end(NULL);
	ck_assert_uint_eq(num_after(t, "\"peak_pages\":"), BIG);
	ck_assert_uint_eq(num_after(t, "\"peak_kib\":"), kib_of(BIG, ps));
	free(t);
	/* a negative peak shows as 0 */
	e.peak = -5;
	report_exit_line(test_out_begin(), FMT_JSON, &e, ps);
	t = test_out_end(NULL);
	ck_assert_uint_eq(num_after(t, "\"peak_kib\":"), 0);
	free(t);
}
END_TEST

/* ---- Prometheus ---- */

/* The value of the sample line "@name{...@label...} VALUE" (@label NULL: "@name VALUE"). */
static unsigned long long sample(const char *t, const char *name, const char *label)
{
	size_t n = strlen(name);
	const char *p;

	for (p = t; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *eol = strchr(p, '\n'), *v, *l;
		char *end;
		unsigned long long x;

		if (!eol || strncmp(p, name, n) || (p[n] != '{' && p[n] != ' '))
			continue;
		l = label ? strstr(p, label) : NULL;
		if (label && (!l || l > eol))
			continue;
		for (v = eol; v > p && v[-1] != ' '; v--)
			;
		x = strtoull(v, &end, 10);
		ck_assert_msg(end == eol && v < eol, "bad sample line %.*s", (int)(eol - p), p);
		return x;
	}
	ck_abort_msg("no sample %s %s", name, label ? label : "");
	return 0;
}

START_TEST(test_prometheus)
{
	uint32_t ps = sizes[_i];
	uint64_t p64 = ps;
	char *t;

	fx_init(ps);
	prom_write(test_out_begin(), &fx.r, &fx.r.rs, "6.1.0-test");
	t = test_out_end(NULL);
	ck_assert_uint_eq(sample(t, "memtrace_system_peak_bytes", NULL), SYS_PEAK * p64);
	ck_assert_uint_eq(sample(t, "memtrace_task_peak_bytes", "pid=\"100\""), ALPHA_PEAK * p64);
	ck_assert_uint_eq(sample(t, "memtrace_task_current_bytes", "pid=\"100\""), ALPHA_CUR * p64);
	ck_assert_uint_eq(sample(t, "memtrace_task_peak_bytes", "pid=\"101\""), THREAD_PEAK * p64);
	ck_assert_uint_eq(sample(t, "memtrace_task_peak_bytes", "pid=\"200\""), BIG * p64);
	ck_assert_uint_eq(sample(t, "memtrace_process_peak_bytes", "pid=\"100\""), PROC_PEAK * p64);
	ck_assert_uint_eq(sample(t, "memtrace_module_peak_bytes", "module=\"zram\""),
			  ZRAM_PEAK * p64);
	ck_assert_uint_eq(sample(t, "memtrace_module_current_bytes", "module=\"zram\""),
			  ZRAM_CUR * p64);
	/* the static size is sysfs's bytes, the same at any page size */
	ck_assert_uint_eq(sample(t, "memtrace_module_static_bytes", "module=\"zram\""), 40 * 1024);
	free(t);
	fx_free();
}
END_TEST

/* ---- --stream: the page events' size, and the summary's page_size ---- */

START_TEST(test_stream_lines)
{
	uint32_t ps = sizes[_i];
	static char line[JL_LINE_MAX], src[256], proc[1024];
	struct jl_clock k;
	struct jl_event e;
	struct jl_summary sm;
	size_t sl, n;

	/* a block of 2^order pages is 2^order * page_size bytes, up to the largest order */
	ck_assert_uint_eq(jl_page_bytes(ps, 0), ps);
	ck_assert_uint_eq(jl_page_bytes(ps, 3), 8ull * ps);
	ck_assert_uint_eq(jl_page_bytes(ps, MAX_ORDER_SEEN), (uint64_t)ps * (1ull << MAX_ORDER_SEEN));
	ck_assert_uint_eq(jl_page_bytes(1u << 20, MAX_ORDER_SEEN), 1ull << 40);

	jl_clock_init(&k, 1000000000000ull, 1700000000ll * 1000000000ll);
	sl = jl_src(src, sizeof(src), "host");
	ck_assert_uint_gt(sl, 0);
	strcpy(proc, "\"process\":{\"pid\":5}");
	memset(&e, 0, sizeof(e));
	e.evt = JL_ALLOC;
	e.ts = 1000000000000ull;
	e.pid = e.tid = 5;
	e.order = 3;
	e.pfn = 4096;
	e.size = jl_page_bytes(ps, e.order);
	n = jl_event_line(line, sizeof(line), &k, &e, proc, strlen(proc), src, sl);
	ck_assert_uint_gt(n, 0);
	line[n] = '\0';
	ck_assert_uint_eq(num_after(line, "\"size\":"), 8ull * ps);

	memset(&sm, 0, sizeof(sm));
	sm.ts = 1000000000000ull;
	sm.pid = 5;
	sm.cur_pages = ALPHA_CUR;
	sm.peak_pages = ALPHA_PEAK;
	sm.page_size = ps;
	sm.count[JL_ALLOC] = 2;
	sm.bytes[JL_ALLOC] = jl_page_bytes(ps, 9) + jl_page_bytes(ps, 0);
	n = jl_summary_line(line, sizeof(line), &k, &sm, proc, strlen(proc), src, sl);
	ck_assert_uint_gt(n, 0);
	line[n] = '\0';
	ck_assert_uint_eq(num_after(line, "\"page_size\":"), ps);
	ck_assert_uint_eq(num_after(line, "\"pages\":{\"current\":"), ALPHA_CUR);
	ck_assert_uint_eq(num_after(line, "\"bytes\":"), (512ull + 1) * ps);
}
END_TEST

/* ---- --top: KiB and MiB columns, the system peak, the page size said in batch ---- */

START_TEST(test_top_frame)
{
	uint32_t ps = sizes[_i];
	static struct view v;
	static const struct view_facts facts = { .clock = "12:00:00Z", .mem_avail_kib = -1,
						 .mem_total_kib = -1, .sys_peak_ago_s = -1 };
	struct view_config vc = { .max_tasks = 64, .max_modules = 8, .page_size = ps,
				  .batch = true };
	const uint64_t pages = 2560;	/* 10, 40, 160 MiB: whole MiB at every size */
	char want[128], *frame;
	uint64_t mib = pages * ps / (1024 * 1024);

	ck_assert_uint_eq(pages * ps % (1024 * 1024), 0);
	fx_init(ps);
	ck_assert_ptr_nonnull(stats_seed_task(&fx.r.st, 7, 7, 1, "seven", 5, pages, 0, false));
	ck_assert_int_eq(view_init(&v, &vc), 0);
	view_resize(&v, 24, 160);
	view_build(&v, &fx.r.st, 1000000000ull, true);

	v.unit = UNIT_KIB;
	frame_render(&v, &fx.r.st, &facts);
	frame = strndup(v.frame, v.frame_len);
	ck_assert_ptr_nonnull(frame);
	snprintf(want, sizeof(want), "(page = %u bytes)", ps);
	ck_assert_msg(strstr(frame, want), "no \"%s\" in %s", want, frame);
	/* the row of tid 7: PID TGID CUR PEAK */
	snprintf(want, sizeof(want), "      7       7 %10" PRIu64 " %10" PRIu64 " ",
		 kib_of(pages, ps), kib_of(pages, ps));
	ck_assert_msg(strstr(frame, want), "no \"%s\" in %s", want, frame);
	/* the header: the pages tracked now and the system peak, in the unit shown */
	snprintf(want, sizeof(want), "tracked now %" PRIu64 " KiB, peak %" PRIu64,
		 kib_of((uint64_t)fx.r.st.sys_cur, ps), kib_of(SYS_PEAK, ps));
	ck_assert_msg(strstr(frame, want), "no \"%s\" in %s", want, frame);
	free(frame);

	v.unit = UNIT_MIB;
	frame_render(&v, &fx.r.st, &facts);
	frame = strndup(v.frame, v.frame_len);
	ck_assert_ptr_nonnull(frame);
	snprintf(want, sizeof(want), "      7       7 %8" PRIu64 ".0 %8" PRIu64 ".0 ", mib, mib);
	ck_assert_msg(strstr(frame, want), "no \"%s\" in %s", want, frame);
	free(frame);

	v.unit = UNIT_PAGES;
	frame_render(&v, &fx.r.st, &facts);
	frame = strndup(v.frame, v.frame_len);
	ck_assert_ptr_nonnull(frame);
	snprintf(want, sizeof(want), "      7       7 %10" PRIu64 " %10" PRIu64 " ", pages, pages);
	ck_assert_msg(strstr(frame, want), "no \"%s\" in %s", want, frame);
	free(frame);
	view_free(&v);
	fx_free();
}
END_TEST

Suite *suite_psize(void)
{
	Suite *s = suite_create("psize");
	TCase *tc = tcase_create("psize");

	tcase_add_loop_test(tc, test_text_report, 0, NSIZES);
	tcase_add_loop_test(tc, test_json_report, 0, NSIZES);
	tcase_add_loop_test(tc, test_console, 0, NSIZES);
	tcase_add_loop_test(tc, test_exit_line, 0, NSIZES);
	tcase_add_loop_test(tc, test_prometheus, 0, NSIZES);
	tcase_add_loop_test(tc, test_stream_lines, 0, NSIZES);
	tcase_add_loop_test(tc, test_top_frame, 0, NSIZES);
	suite_add_tcase(s, tc);
	return s;
}
