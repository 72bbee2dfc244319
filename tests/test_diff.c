// SPDX-License-Identifier: GPL-2.0-only
/* test_diff.c - --diff: matching by name across runs, page sizes, stacks, the gate, hostile names */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"
#include "diff/diffout.h"
#include "lib/json.h"
#include "lib/out.h"
#include "testutil.h"

static char J[65536];

/*
 * A report as -f json writes it, cut to what --diff reads: @mods and @procs
 * are the members' JSON arrays' insides.
 */
static const char *report(unsigned page_size, long long sys_peak, long lost, const char *mods,
			  const char *procs)
{
	snprintf(J, sizeof(J), "{\"memtrace_version\":\"0.1.0\",\"trigger\":\"replay\",\"mode\":"
		 "\"replay\",\"uptime_s\":10.5,\"first_event_s\":1.0,\"last_event_s\":9.0,"
		 "\"page_size\":%u,\"lost_events\":%ld,\"system_peak\":{\"pages\":%lld,\"kib\":0},"
		 "\"view\":\"process\",\"processes_with_pages\":9,\"processes\":[%s],"
		 "\"modules_total\":9,\"modules\":[%s]}", page_size, lost, sys_peak, procs, mods);
	return J;
}

static void side(struct diff_side *s, const char *text)
{
	char err[256];

	ck_assert_msg(diff_side_parse(s, text, strlen(text), err, sizeof(err)) == 0, "%s", err);
}

static const struct diff_row *row(const struct diff_row *rows, uint32_t n, const char *name)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(rows[i].name, name))
			return &rows[i];
	ck_abort_msg("no row %s", name);
	return NULL;
}

#define MOD(name, peak)		"{\"name\":\"" name "\",\"peak_pages\":" #peak "}"
#define PROC(comm, peak)	"{\"pid\":1,\"comm\":\"" comm "\",\"peak_pages\":" #peak "}"

START_TEST(test_same_names)
{
	struct diff_side a, b;
	struct diff_result d;
	const struct diff_row *r;

	side(&a, report(4096, 100, 0, MOD("zram", 10) "," MOD("ext4", 40), PROC("udevd", 8)));
	side(&b, report(4096, 130, 0, MOD("ext4", 40) "," MOD("zram", 15), PROC("udevd", 6)));
	ck_assert(diff_compute(&d, &a, &b));
	ck_assert_uint_eq(d.nmods, 2);
	r = &d.mods[0];		/* what grew most first */
	ck_assert_str_eq(r->name, "zram");
	ck_assert_int_eq(r->state, DIFF_BOTH);
	ck_assert_int_eq(r->old_sum, 10);
	ck_assert_int_eq(r->new_sum, 15);
	ck_assert_int_eq(r->delta_pages, 5);
	ck_assert_int_eq(r->delta_bytes, 5 * 4096);
	ck_assert(r->pct > 49.99 && r->pct < 50.01);
	ck_assert_int_eq(d.mods[1].delta_pages, 0);
	r = row(d.procs, d.nprocs, "udevd");
	ck_assert_int_eq(r->delta_pages, -2);
	ck_assert(r->pct < -24.99 && r->pct > -25.01);
	ck_assert_int_eq(d.sys.delta_pages, 30);
	ck_assert_int_eq(d.sys.delta_bytes, 30 * 4096);
	diff_result_free(&d);
	diff_side_free(&a);
	diff_side_free(&b);
}
END_TEST

/* A renamed module or process is one gone and one new: names are all there is to match. */
START_TEST(test_renamed_missing_new)
{
	struct diff_side a, b;
	struct diff_result d;
	const struct diff_row *r;

	side(&a, report(4096, 10, 0, MOD("zram", 10), PROC("systemd-udevd", 8)));
	side(&b, report(4096, 10, 0, MOD("zram2", 12), PROC("(udev-worker)", 8)));
	ck_assert(diff_compute(&d, &a, &b));
	ck_assert_uint_eq(d.nmods, 2);
	ck_assert_str_eq(d.mods[0].name, "zram2");
	ck_assert_int_eq(d.mods[0].state, DIFF_NEW);
	ck_assert_int_eq(d.mods[0].old_sum, 0);
	ck_assert_int_eq(d.mods[0].delta_pages, 12);
	ck_assert_str_eq(d.mods[1].name, "zram");
	ck_assert_int_eq(d.mods[1].state, DIFF_GONE);
	ck_assert_int_eq(d.mods[1].delta_pages, -10);
	ck_assert_int_eq(row(d.procs, d.nprocs, "(udev-worker)")->state, DIFF_NEW);
	ck_assert_int_eq(row(d.procs, d.nprocs, "systemd-udevd")->state, DIFF_GONE);
	r = row(d.procs, d.nprocs, "systemd-udevd");
	ck_assert_int_eq(r->new_n, 0);
	ck_assert_int_eq(r->old_n, 1);
	diff_result_free(&d);
	diff_side_free(&a);
	diff_side_free(&b);
}
END_TEST

/* Several instances of a name: how many, the largest, the sum; the sum is compared. */
START_TEST(test_duplicates)
{
	struct diff_side a, b;
	struct diff_result d;
	const struct diff_row *r;

	side(&a, report(4096, 10, 0, "", PROC("worker", 3) "," PROC("worker", 5) "," PROC("worker", 2)
			"," PROC("sh", 1)));
	side(&b, report(4096, 10, 0, "", PROC("worker", 4) "," PROC("sh", 1) "," PROC("worker", 4)));
	ck_assert_uint_eq(a.nprocs, 2);
	ck_assert(diff_compute(&d, &a, &b));
	r = row(d.procs, d.nprocs, "worker");
	ck_assert_uint_eq(r->old_n, 3);
	ck_assert_uint_eq(r->new_n, 2);
	ck_assert_int_eq(r->old_max, 5);
	ck_assert_int_eq(r->new_max, 4);
	ck_assert_int_eq(r->old_sum, 10);
	ck_assert_int_eq(r->new_sum, 8);
	ck_assert_int_eq(r->delta_pages, -2);
	diff_result_free(&d);
	diff_side_free(&a);
	diff_side_free(&b);
}
END_TEST

/* With a command line (a future report's cmdline), the name is "comm cmdline". */
START_TEST(test_cmdline)
{
	struct diff_side a;

	side(&a, report(4096, 10, 0, "", "{\"comm\":\"sh\",\"cmdline\":\"sh -c x\",\"peak_pages\":2},"
			PROC("sh", 1)));
	ck_assert_uint_eq(a.nprocs, 2);	/* sorted by name */
	ck_assert_str_eq(a.procs[0].name, "sh");
	ck_assert_str_eq(a.procs[1].name, "sh sh -c x");
	diff_side_free(&a);
}
END_TEST

#define FRAME(sym, mod, off) "{\"symbol\":\"" sym "\",\"module\":" mod ",\"offset\":" #off "}"
#define STACK(peak, ...) "{\"frames\":[" __VA_ARGS__ "],\"peak_pages\":" #peak "}"

/* KASLR and rebuilds move addresses and offsets: stacks match by their symbols. */
START_TEST(test_kaslr_stacks)
{
	struct diff_side a, b;
	struct diff_result d;
	const struct diff_row *r;

	side(&a, report(4096, 10, 0, "{\"name\":\"zram\",\"peak_pages\":10,\"stacks\":["
			STACK(6, FRAME("__alloc_pages", "null", 598) "," FRAME("zs_malloc",
			"\"zsmalloc\"", 40)) "," STACK(4, FRAME("__alloc_pages", "null", 598) ","
			FRAME("zram_add", "\"zram\"", 12)) "]}", ""));
	/* the same two stacks at other offsets, the first split in two by an offset */
	side(&b, report(4096, 10, 0, "{\"name\":\"zram\",\"peak_pages\":20,\"stacks\":["
			STACK(9, FRAME("__alloc_pages", "null", 601) "," FRAME("zs_malloc",
			"\"zsmalloc\"", 44)) "," STACK(7, FRAME("__alloc_pages", "null", 601) ","
			FRAME("zs_malloc", "\"zsmalloc\"", 52)) "," STACK(4, FRAME("__alloc_pages",
			"null", 777) "," FRAME("zram_add", "\"zram\"", 13)) "]}", ""));
	ck_assert_uint_eq(b.mods[0].nstacks, 2);	/* sorted by key */
	ck_assert_str_eq(b.mods[0].stacks[1].name, "__alloc_pages < zs_malloc [zsmalloc]");
	ck_assert_uint_eq(b.mods[0].stacks[1].count, 2);
	ck_assert(diff_compute(&d, &a, &b));
	r = &d.mods[0];
	ck_assert_uint_eq(r->nstacks, 2);
	ck_assert_str_eq(r->stacks[0].name, "__alloc_pages < zs_malloc [zsmalloc]");
	ck_assert_int_eq(r->stacks[0].state, DIFF_BOTH);
	ck_assert_int_eq(r->stacks[0].old_sum, 6);
	ck_assert_int_eq(r->stacks[0].new_sum, 16);
	ck_assert_int_eq(r->stacks[1].state, DIFF_BOTH);
	ck_assert_int_eq(r->stacks[1].delta_pages, 0);
	diff_result_free(&d);
	diff_side_free(&a);
	diff_side_free(&b);
}
END_TEST

/* Each run's own page size: bytes and percent from it; pages as counted. */
START_TEST(test_page_sizes)
{
	struct diff_side a, b;
	struct diff_result d;
	const struct diff_row *r;

	side(&a, report(4096, 1000, 0, MOD("m", 100), ""));
	side(&b, report(16384, 300, 0, MOD("m", 30), ""));
	ck_assert(diff_compute(&d, &a, &b));
	r = &d.mods[0];
	ck_assert_int_eq(r->delta_pages, -70);
	ck_assert_int_eq(r->delta_bytes, 30 * 16384 - 100 * 4096);
	ck_assert(r->pct > 19.99 && r->pct < 20.01);
	ck_assert_int_eq(d.sys.delta_bytes, 300 * 16384 - 1000 * 4096);
	diff_result_free(&d);
	diff_side_free(&a);
	diff_side_free(&b);
}
END_TEST

START_TEST(test_threshold_parse)
{
	static const struct { const char *s; enum diff_unit unit; double v; } good[] = {
		{ "10%", DIFF_PERCENT, 10 }, { "0.5%", DIFF_PERCENT, 0.5 },
		{ "1MiB", DIFF_BYTES, 1048576 }, { "1.5KiB", DIFF_BYTES, 1536 },
		{ "2GiB", DIFF_BYTES, 2147483648.0 }, { "4096", DIFF_BYTES, 4096 },
		{ "7B", DIFF_BYTES, 7 }, { "5pages", DIFF_PAGES, 5 }, { "0", DIFF_BYTES, 0 },
	};
	static const char *const bad[] = {
		"", "-1", "+1", "abc", "10xB", "1 MiB", "1e3", "1.", ".5", "10%%", "MiB", "1mib",
		"nan", "inf", "99999999999999999999", "5pages ", "0x10", "system:", "system:x",
		"system:system:1", "System:1", "1system:",
	};
	struct diff_threshold t;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		ck_assert_msg(diff_threshold_parse(good[i].s, &t, err, sizeof(err)) == 0, "%s: %s",
			      good[i].s, err);
		ck_assert(t.set);
		ck_assert_int_eq(t.unit, good[i].unit);
		ck_assert_msg(t.value == good[i].v, "%s: %f", good[i].s, t.value);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ck_assert_msg(diff_threshold_parse(bad[i], &t, err, sizeof(err)) < 0, "%s taken",
			      bad[i]);
		ck_assert_msg(strstr(err, "--fail-over"), "%s: %s", bad[i], err);
	}
	/* system:N: the machine's system peak gated too (COMMANDs' reports); the text as given */
	ck_assert(diff_threshold_parse("system:2.5%", &t, err, sizeof(err)) == 0);
	ck_assert(t.set && t.system && t.unit == DIFF_PERCENT && t.value == 2.5);
	ck_assert_str_eq(t.text, "system:2.5%");
	ck_assert(diff_threshold_parse("2.5%", &t, err, sizeof(err)) == 0);
	ck_assert(!t.system);
}
END_TEST

static bool over(const char *gate, const struct diff_row *r, uint32_t page_size)
{
	struct diff_threshold t;
	char err[256];

	ck_assert(diff_threshold_parse(gate, &t, err, sizeof(err)) == 0);
	return diff_over(r, &t, page_size);
}

/* Strictly more than the threshold; % only where there was something before. */
START_TEST(test_gate)
{
	struct diff_side a, b;
	struct diff_result d;
	const struct diff_row *z, *n, *g;
	struct diff_threshold t;
	struct diff_view v = { "a", "b", 0, &t };
	char err[256], *text;

	side(&a, report(4096, 1000, 0, MOD("zram", 256) "," MOD("gone", 5), ""));
	side(&b, report(4096, 1000, 0, MOD("zram", 512) "," MOD("new", 1024), ""));
	ck_assert(diff_compute(&d, &a, &b));
	z = row(d.mods, d.nmods, "zram");	/* +256 pages = 1 MiB, +100% */
	n = row(d.mods, d.nmods, "new");	/* +1024 pages = 4 MiB, new */
	g = row(d.mods, d.nmods, "gone");
	ck_assert(!over("1MiB", z, 4096));	/* exactly 1 MiB: not more */
	ck_assert(over("1023KiB", z, 4096));
	ck_assert(!over("256pages", z, 4096));
	ck_assert(over("255pages", z, 4096));
	ck_assert(!over("64pages", z, 16384 * 4));	/* pages of the new run's size */
	ck_assert(over("99.9%", z, 4096));
	ck_assert(!over("100%", z, 4096));
	ck_assert(!over("1%", n, 4096));	/* new: no percentage */
	ck_assert(over("4095KiB", n, 4096));
	ck_assert(!over("4MiB", n, 4096));
	ck_assert(!over("0", g, 4096));		/* shrank */
	ck_assert(!over("0", &d.sys, 4096));	/* the system peak did not move */
	/* the lines name what grew; the system peak is judged too */
	ck_assert(diff_threshold_parse("2MiB", &t, err, sizeof(err)) == 0);
	ck_assert_uint_eq(diffout_gate(test_out_begin(), &d, &v), 1);
	text = test_out_end(NULL);
	ck_assert_msg(strstr(text, "--fail-over 2MiB: module new grew by 4194304 bytes"), "%s",
		      text);
	free(text);
	ck_assert(diff_threshold_parse("1KiB", &t, err, sizeof(err)) == 0);
	ck_assert_uint_eq(diffout_gate(test_out_begin(), &d, &v), 2);
	free(test_out_end(NULL));
	diff_result_free(&d);
	diff_side_free(&b);
	side(&b, report(4096, 1300, 0, "", ""));
	ck_assert(diff_compute(&d, &a, &b));
	ck_assert(diff_threshold_parse("29%", &t, err, sizeof(err)) == 0);
	ck_assert_uint_eq(diffout_gate(test_out_begin(), &d, &v), 1);
	text = test_out_end(NULL);
	ck_assert_msg(strstr(text, "the system peak grew by 1228800 bytes"), "%s", text);
	free(text);
	diff_result_free(&d);
	diff_side_free(&a);
	diff_side_free(&b);
}
END_TEST

/* Bad input: a clear error, never a crash. */
START_TEST(test_bad_input)
{
	static const char *const bad[] = {
		"", "{", "[]", "null", "{\"a\":1}",
		"{\"memtrace_version\":\"x\"}",
		"{\"memtrace_version\":\"x\",\"page_size\":4000,\"lost_events\":0,\"system_peak\":{\"pages\":1}}",
		"{\"memtrace_version\":\"x\",\"page_size\":4096,\"lost_events\":0,\"system_peak\":{\"pages\":-1}}",
		"{\"memtrace_version\":\"x\",\"page_size\":4096,\"lost_events\":0,\"system_peak\":{\"pages\":1e9}}",
		"{\"memtrace_version\":\"x\",\"page_size\":4096,\"lost_events\":0,\"system_peak\":{\"pages\":99999999999999999999999}}",
		"{\"memtrace_version\":\"x\",\"page_size\":4096,\"system_peak\":{\"pages\":1}}",
		"{\"memtrace_version\":\"x\",\"page_size\":4096,\"lost_events\":9223372036854775807,\"system_peak\":{\"pages\":1}}",
		"{\"memtrace_version\":\"x\",\"page_size\":4096,\"lost_events\":46116860184273879030,\"system_peak\":{\"pages\":1}}",
		"{\"memtrace_version\":\"x\",\"page_size\":4096,\"lost_events\":0,\"system_peak\":{\"pages\":1},\"modules\":{}}",
		"{\"memtrace_version\":\"x\",\"page_size\":4096,\"lost_events\":0,\"system_peak\":{\"pages\":1},\"modules\":[{\"name\":\"a\"}]}",
		"{\"memtrace_version\":\"x\",\"page_size\":4096,\"lost_events\":0,\"system_peak\":{\"pages\":1},\"modules\":[{\"name\":\"a\",\"peak_pages\":1,\"stacks\":[{\"frames\":[{}],\"peak_pages\":1}]}]}",
		"{\"memtrace_version\":\"x\",\"page_size\":4096,\"lost_events\":0,\"system_peak\":{\"pages\":1},\"tasks\":[{\"pid\":1,\"peak_pages\":2}]}",
		"memtrace 0.1.0 report (trigger: SIGTERM, live)\nuptime: 1 s\n",
	};
	struct diff_side s;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ck_assert_msg(diff_side_parse(&s, bad[i], strlen(bad[i]), err, sizeof(err)) < 0,
			      "taken: %s", bad[i]);
		ck_assert_msg(*err, "no reason: %s", bad[i]);
	}
	ck_assert(diff_side_parse(&s, bad[i - 1], strlen(bad[i - 1]), err, sizeof(err)) < 0);
	ck_assert_msg(strstr(err, "-f json"), "%s", err);	/* a text report: the hint */
}
END_TEST

/* JSON lines (--interval -f json): the last report is the run's. */
START_TEST(test_json_lines)
{
	char text[8192];
	struct diff_side s;
	size_t n;

	n = (size_t)snprintf(text, sizeof(text), "%s\n", report(4096, 7, 0, MOD("a", 1), ""));
	snprintf(text + n, sizeof(text) - n, "%s\n\n", report(4096, 9, 3, MOD("a", 2), ""));
	side(&s, text);
	ck_assert_int_eq(s.sys_peak, 9);
	ck_assert_uint_eq(s.lost, 3);
	ck_assert_int_eq(s.mods[0].sum_peak, 2);
	diff_side_free(&s);
}
END_TEST

/* The text diff of @d, checked to hold no control byte but newlines (a console's safety). */
static char *text_of(const struct diff_result *d, const struct diff_view *v, size_t *len)
{
	char *text;
	size_t i;

	diffout_text(test_out_begin(), d, v);
	text = test_out_end(len);
	for (i = 0; i < *len; i++)
		ck_assert_msg(text[i] == '\n' || (unsigned char)text[i] >= 0x20,
			      "control byte %#x at %zu", text[i], i);
	return text;
}

/* Names are the kernel's bytes: the text has no control character, the JSON parses back. */
START_TEST(test_hostile_names)
{
	struct diff_side a, b;
	struct diff_result d;
	struct diff_view v = { "old\n\x1b[2J", "new\"", 0, NULL };
	struct json_val root, arr, el, k, nm;
	char *text, name[256];
	size_t len, pos = 0;
	bool found = false;

	side(&a, report(4096, 10, 5, "", PROC("a\\u001b[31m\\nb\\\"\\\\", 1)));
	side(&b, report(4096, 10, 0, MOD("m\\u0007", 1), PROC("a\\u001b[31m\\nb\\\"\\\\", 3)));
	ck_assert(diff_compute(&d, &a, &b));
	text = text_of(&d, &v, &len);
	ck_assert(strstr(text, "warning: events were lost"));
	ck_assert_msg(strstr(text, "\nold: old"), "%s", text);
	ck_assert(!strstr(text, "old\n"));
	free(text);
	diffout_json(test_out_begin(), &d, &v);
	text = test_out_end(&len);
	ck_assert_msg(json_parse(text, len, &root), "%s", text);
	ck_assert(json_get(root, "processes", &arr));
	while (json_next(arr, &pos, &k, &el)) {
		ck_assert(json_get(el, "name", &nm));
		json_str(nm, name, sizeof(name));
		found |= !strcmp(name, "a\x1b[31m\nb\"\\");
	}
	ck_assert(found);
	ck_assert(json_get(root, "lower_bound", &nm));
	ck_assert(nm.len == 4 && !memcmp(nm.p, "true", 4));
	free(text);
	diff_result_free(&d);
	diff_side_free(&a);
	diff_side_free(&b);
}
END_TEST

/* The header's kernel, host and start time: from the report, escaped in text, null when not said. */
START_TEST(test_header_identity)
{
	static char with[65536 + 128];
	struct diff_side a, b;
	struct diff_result d;
	struct diff_view v = { "old", "new", 0, NULL };
	struct json_val root, side_v, x;
	char *text, str[128];
	size_t len, i;

	snprintf(with, sizeof(with), "{\"kernel\":\"6.1.0-56-amd64\",\"host\":\"h\\u001b[2J\","
		 "\"started_at\":\"2026-11-27T01:03:40Z\",%s", report(4096, 10, 0, MOD("m", 1), "") + 1);
	side(&a, with);
	side(&b, report(4096, 12, 0, MOD("m", 2), ""));
	ck_assert_str_eq(a.kernel.s, "6.1.0-56-amd64");
	ck_assert_str_eq(a.host.s, "h\x1b[2J");
	ck_assert_str_eq(a.started.s, "2026-11-27T01:03:40Z");
	ck_assert_str_eq(b.kernel.s, "");
	ck_assert(diff_compute(&d, &a, &b));
	text = text_of(&d, &v, &len);
	ck_assert_msg(strstr(text, "\n  kernel 6.1.0-56-amd64, host h"), "%s", text);
	ck_assert_msg(strstr(text, ", tracing began 2026-11-27T01:03:40Z\n"), "%s", text);
	ck_assert_msg(strstr(text, "\n  kernel not known, host not known, tracing began at a time "
			     "not known\n"), "%s", text);
	free(text);
	diffout_json(test_out_begin(), &d, &v);
	text = test_out_end(&len);
	ck_assert_msg(json_parse(text, len, &root), "%s", text);
	ck_assert(json_get(root, "old", &side_v) && json_get(side_v, "host", &x));
	json_str(x, str, sizeof(str));
	ck_assert_str_eq(str, "h\x1b[2J");
	ck_assert(json_get(side_v, "started_at", &x));
	json_str(x, str, sizeof(str));
	ck_assert_str_eq(str, "2026-11-27T01:03:40Z");
	ck_assert(json_get(root, "new", &side_v));
	for (i = 0; i < 3; i++) {
		ck_assert(json_get(side_v, (const char *[]){ "kernel", "host", "started_at" }[i], &x));
		ck_assert(x.len == 4 && !memcmp(x.p, "null", 4));
	}
	free(text);
	diff_result_free(&d);
	diff_side_free(&a);
	diff_side_free(&b);
}
END_TEST

/* A report of @n process entries, made by @entry(i, buf): a JSON object each (malloc'ed). */
static char *big_report(unsigned page_size, long long sys_peak, size_t n,
			int (*entry)(size_t i, char *buf, size_t size), const char *mods)
{
	size_t cap = 4096 + strlen(mods), len, i;
	char *t = malloc(cap), e[1024];

	ck_assert(t);
	len = (size_t)snprintf(t, cap, "{\"memtrace_version\":\"0.1.0\",\"page_size\":%u,"
			       "\"lost_events\":0,\"system_peak\":{\"pages\":%lld},\"modules\":[%s],"
			       "\"processes\":[", page_size, sys_peak, mods);
	for (i = 0; i < n; i++) {
		size_t l = (size_t)entry(i, e, sizeof(e));

		while (len + l + 8 > cap) {
			cap *= 2;
			t = realloc(t, cap);
			ck_assert(t);
		}
		if (i)
			t[len++] = ',';
		memcpy(t + len, e, l);
		len += l;
	}
	memcpy(t + len, "]}", 3);
	return t;
}

static int same_2_50(size_t i, char *buf, size_t size)
{
	(void)i;
	return snprintf(buf, size, "{\"comm\":\"same\",\"peak_pages\":1125899906842624}");
}

/*
 * Totals that 64 bits cannot hold (UBSan saw them overflow: 9,000 entries of
 * 2^50 pages summed to a negative new_pages, and --fail-over 1 passed): the
 * report is refused with the reason; 2^62 bytes, the limit, is taken exactly.
 */
START_TEST(test_overflow_refused)
{
	struct diff_side a, b;
	struct diff_result d;
	struct diff_threshold t;
	char err[512], *text;

	text = big_report(4096, 1, 9000, same_2_50, "");
	ck_assert_int_lt(diff_side_parse(&a, text, strlen(text), err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "process same: its peak_pages (summed over 2 entries) are "
			     "more than 2^62 bytes"), "%s", err);
	free(text);
	/* one entry of 2^50 pages of 1 GiB: 2^80 bytes */
	text = big_report(1u << 30, 1, 1, same_2_50, "");
	ck_assert_int_lt(diff_side_parse(&a, text, strlen(text), err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "process same: its peak_pages (1 entry) are more than 2^62 "
			     "bytes, 4294967296 pages of 1073741824 bytes"), "%s", err);
	free(text);
	report(1u << 30, 1ll << 40, 0, "", "");	/* J, then its length */
	ck_assert_int_lt(diff_side_parse(&a, J, strlen(J), err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "system_peak.pages 1099511627776 of 1073741824 bytes are more "
			     "than 2^62 bytes"), "%s", err);
	report(4096, 1, 0, MOD("m", 1125899906842624) "," MOD("m", 1), "");
	ck_assert_int_lt(diff_side_parse(&a, J, strlen(J), err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "module m: its peak_pages"), "%s", err);
	report(4096, 1, 0, "{\"name\":\"m\",\"peak_pages\":1,\"stacks\":["
	       STACK(1125899906842624, FRAME("f", "null", 1)) "," STACK(1, FRAME("f", "null", 2))
	       "]}", "");
	ck_assert_int_lt(diff_side_parse(&a, J, strlen(J), err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "module m: a stack f: its peak_pages (summed over 2 entries)"),
		      "%s", err);
	/* the limit itself: 2^50 pages of 4 KiB, old and new, every figure exact */
	side(&a, report(4096, 1, 0, "", PROC("same", 1)));
	side(&b, report(4096, 1125899906842624, 0, "", PROC("same", 1125899906842623) ","
			PROC("same", 1)));
	ck_assert(diff_compute(&d, &a, &b));
	ck_assert_int_eq(d.procs[0].new_sum, 1ll << 50);
	ck_assert_int_eq(d.procs[0].delta_pages, (1ll << 50) - 1);
	ck_assert_int_eq(d.procs[0].delta_bytes, (1ll << 62) - 4096);
	ck_assert_int_eq(d.sys.delta_bytes, (1ll << 62) - 4096);
	ck_assert(diff_threshold_parse("1", &t, err, sizeof(err)) == 0);
	ck_assert(diff_over(&d.procs[0], &t, 4096));
	diff_result_free(&d);
	diff_side_free(&a);
	diff_side_free(&b);
}
END_TEST

/* 20,000 names a run, in other orders and with duplicates: every row as built here. */
static int many_old(size_t i, char *buf, size_t size)
{
	size_t k = (i * 7919) % 20000;	/* a permutation of 0..19999 */

	return snprintf(buf, size, "{\"comm\":\"p%zu\",\"peak_pages\":%zu}", k, k % 50 + 1);
}

static int many_new(size_t i, char *buf, size_t size)
{
	size_t k = i < 20000 ? (i * 104729) % 20000 + 1000 : i - 20000;	/* +1000: 1000 new */

	return snprintf(buf, size, "{\"comm\":\"p%zu\",\"peak_pages\":%zu}", k,
			i < 20000 ? k % 50 + 2 : 1);	/* 0..999 twice: once more, 1 page */
}

START_TEST(test_many_names)
{
	struct diff_side a, b;
	struct diff_result d;
	char *ta = big_report(4096, 1, 20000, many_old, ""), *tb;
	char name[32];
	uint32_t i, states[3] = { 0 };

	tb = big_report(4096, 1, 21000, many_new, "");
	side(&a, ta);
	side(&b, tb);
	ck_assert_uint_eq(a.nprocs, 20000);
	ck_assert_uint_eq(b.nprocs, 21000);
	ck_assert(diff_compute(&d, &a, &b));
	ck_assert_uint_eq(d.nprocs, 21000);
	for (i = 0; i < d.nprocs; i++) {
		const struct diff_row *r = &d.procs[i];
		unsigned long k = strtoul(r->name + 1, NULL, 10);
		long o = k < 20000 ? (long)(k % 50 + 1) : 0;
		long n = k >= 1000 ? (long)(k % 50 + 2) : 0;

		snprintf(name, sizeof(name), "p%lu", k);
		ck_assert_str_eq(r->name, name);
		ck_assert_uint_eq(r->name_len, strlen(name));
		if (k < 1000)	/* the second entry of each of these */
			n = 1;
		ck_assert_int_eq(r->old_sum, o);
		ck_assert_int_eq(r->new_sum, n);
		ck_assert_int_eq(r->delta_pages, n - o);
		ck_assert_int_eq(r->state, k >= 20000 ? DIFF_NEW : DIFF_BOTH);
		states[r->state]++;
		if (i)
			ck_assert_int_ge(d.procs[i - 1].delta_bytes, r->delta_bytes);
	}
	ck_assert_uint_eq(states[DIFF_NEW], 1000);
	ck_assert_uint_eq(states[DIFF_GONE], 0);
	diff_result_free(&d);
	diff_side_free(&a);
	diff_side_free(&b);
	free(ta);
	free(tb);
}
END_TEST

/* A command's text log is named as such, with the way to make its JSON report. */
START_TEST(test_command_text_report)
{
	static const char cmd[] = "memtrace 0.1.0 command report\ncommand: make -j2\n"
				  "kernel: 6.1.0, host vm\nexit status: 0\n";
	struct diff_side s;
	char err[512];

	ck_assert_int_lt(diff_side_parse(&s, cmd, strlen(cmd), err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "a command's text report: --diff compares JSON reports (make "
			     "them with -f json: memtrace -f json -o FILE -- COMMAND"), "%s", err);
}
END_TEST

/*
 * A command's words as the header shows them: cut to the 127 bytes it has,
 * said by "...", whatever their lengths (a first word of 127 bytes and a
 * second word wrapped the room left once, and the copy ran past the buffer).
 */
static void command_words(const char *w1, size_t n1, const char *w2, size_t n2, const char *want)
{
	char *text = malloc(4096), *a = malloc(n1 + 1), *b = malloc(n2 + 1);
	struct diff_side s;
	char err[512];
	int len;

	ck_assert(text && a && b);
	memset(a, w1[0], n1);
	a[n1] = '\0';
	memset(b, w2[0], n2);
	b[n2] = '\0';
	len = snprintf(text, 4096, "{\"memtrace_version\":\"1\",\"page_size\":4096,"
		       "\"system_peak\":{\"pages\":10},\"lost_events\":0,\"command\":"
		       "[\"%s\",\"%s\",\"zzzz\"],\"tree_peak_pages\":5,\"processes\":[]}", a, b);
	ck_assert_int_lt(len, 4096);
	ck_assert_msg(diff_side_parse(&s, text, (size_t)len, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_le(s.cmd.len, sizeof(s.cmd.s) - 1);
	ck_assert_uint_eq(strlen(s.cmd.s), s.cmd.len);
	ck_assert_str_eq(s.cmd.s, want);
	diff_side_free(&s);
	free(text);
	free(a);
	free(b);
}

START_TEST(test_command_words_cut)
{
	char want[128];

	/* 10 + ' ' + 116 of 200, "...": 127 */
	memset(want, 'x', 10);
	want[10] = ' ';
	memset(want + 11, 'y', 113);
	memcpy(want + 124, "...", 4);
	command_words("x", 10, "y", 200, want);
	/* a first word of 127 bytes: no room for the next, the last three bytes say so */
	memset(want, 'x', 124);
	memcpy(want + 124, "...", 4);
	command_words("x", 127, "y", 5, want);
	/* 126: the same */
	memset(want, 'x', 123);
	memcpy(want + 123, "...", 4);
	command_words("x", 126, "y", 5, want);
}
END_TEST

/* --fail-over's errors say what is wrong: not a number, a unit, too large. */
START_TEST(test_threshold_messages)
{
	static const struct { const char *s, *want; } cases[] = {
		{ "0x10", "invalid unit 'x10' after the number in --fail-over 0x10" },
		{ "1e3", "invalid unit 'e3' after the number in --fail-over 1e3" },
		{ "10XB", "invalid unit 'XB'" },
		{ "abc", "invalid value 'abc' for --fail-over: not a number" },
		{ "-1", "invalid value '-1' for --fail-over: not a number" },
		{ "99999999999999999999", "too large (at most 10^15)" },
		{ "1000000000000001", "too large (at most 10^15)" },
	};
	struct diff_threshold t;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_lt(diff_threshold_parse(cases[i].s, &t, err, sizeof(err)), 0);
		ck_assert_msg(strstr(err, cases[i].want), "%s: %s", cases[i].s, err);
		ck_assert_msg(!strstr(err, "too large") || strstr(cases[i].want, "too large"),
			      "%s: %s", cases[i].s, err);
	}
	ck_assert_int_eq(diff_threshold_parse("1000000000000000", &t, err, sizeof(err)), 0);
}
END_TEST

/* The name of @o's row @i of "processes" in JSON, decoded (@len its length). */
static void json_row_name(struct json_val root, const char *table, size_t i, char *name,
			  size_t size, long *len)
{
	struct json_val arr, el, k, nm;
	size_t pos = 0, n = 0;

	ck_assert(json_get(root, table, &arr));
	while (json_next(arr, &pos, &k, &el) && n++ < i)
		;
	ck_assert(json_get(el, "name", &nm));
	*len = json_str(nm, name, size);
}

/*
 * Names are exact: an escaped NUL does not cut them, a name longer than 512 bytes is
 * whole (two that differ at its end are two rows); they go back out escaped (text:
 * \xNN; JSON: \u0000, the UTF-8 kept); a report that is not UTF-8 is refused, why said.
 */
START_TEST(test_exact_names)
{
	char longa[1100], longb[1100], procs[4096], name[2048], *text, err[512];
	struct diff_side a, b;
	struct diff_result d;
	struct diff_view v = { "a", "b", 0, NULL };
	struct json_val root;
	size_t len;
	long l;

	memset(longa, 'x', 1099);
	longa[1099] = '\0';
	memcpy(longb, longa, sizeof(longb));
	longa[1098] = 'a';
	longb[1098] = 'b';
	snprintf(procs, sizeof(procs), PROC("a\\u0000b", 1) "," PROC("a\\u0000c", 2) ","
		 PROC("a", 4) "," PROC("caf\\u00e9", 8) "," PROC("\\ud83d\\ude00", 16)
		 ",{\"comm\":\"%s\",\"peak_pages\":32},{\"comm\":\"%s\",\"peak_pages\":64}",
		 longa, longb);
	side(&a, report(4096, 1, 0, "", procs));
	side(&b, report(4096, 1, 0, "", ""));
	ck_assert_uint_eq(a.nprocs, 7);
	ck_assert_uint_eq(a.procs[0].len, 1);	/* "a", then "a\0b", "a\0c": bytes' order */
	ck_assert_uint_eq(a.procs[1].len, 3);
	ck_assert(!memcmp(a.procs[1].name, "a\0b", 3));
	ck_assert(!memcmp(a.procs[2].name, "a\0c", 3));
	ck_assert_int_eq(a.procs[2].sum_peak, 2);
	ck_assert_str_eq(a.procs[3].name, "caf\xc3\xa9");
	ck_assert_uint_eq(a.procs[4].len, 1099);
	ck_assert_str_eq(a.procs[4].name, longa);
	ck_assert_str_eq(a.procs[5].name, longb);
	ck_assert_str_eq(a.procs[6].name, "\xf0\x9f\x98\x80");
	ck_assert(diff_compute(&d, &b, &a));	/* every name new, by growth: longb first */
	text = text_of(&d, &v, &len);
	ck_assert_msg(strstr(text, "  a\\x00b\n") && strstr(text, "  a\\x00c\n") &&
		      strstr(text, "  caf\\xc3\\xa9\n") && strstr(text, "  \\xf0\\x9f\\x98\\x80\n"),
		      "%s", text);
	free(text);
	diffout_json(test_out_begin(), &d, &v);
	text = test_out_end(&len);
	ck_assert_msg(json_parse(text, len, &root), "%s", text);
	ck_assert_msg(json_utf8_check(text, len) == len, "%s", text);
	ck_assert_msg(strstr(text, "\"name\":\"a\\u0000b\"") && strstr(text, "\"name\":\"caf\xc3\xa9\""),
		      "%s", text);
	json_row_name(root, "processes", 0, name, sizeof(name), &l);
	ck_assert_int_eq(l, 1099);
	ck_assert_str_eq(name, longb);
	json_row_name(root, "processes", 5, name, sizeof(name), &l);	/* 2 pages: a\0c */
	ck_assert_int_eq(l, 3);
	ck_assert(!memcmp(name, "a\0c", 3));
	free(text);
	diff_result_free(&d);
	diff_side_free(&a);
	diff_side_free(&b);
	/* a report re-encoded as Latin-1: refused, with the way back */
	report(4096, 1, 0, "", PROC("caf\xe9", 1));
	ck_assert_int_lt(diff_side_parse(&a, J, strlen(J), err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, ", 0xe9, is not UTF-8") && strstr(err, "iconv -f latin1"),
		      "%s", err);
}
END_TEST

Suite *suite_diff(void)
{
	Suite *s = suite_create("diff");
	TCase *tc = tcase_create("diff");

	tcase_add_test(tc, test_same_names);
	tcase_add_test(tc, test_renamed_missing_new);
	tcase_add_test(tc, test_duplicates);
	tcase_add_test(tc, test_cmdline);
	tcase_add_test(tc, test_kaslr_stacks);
	tcase_add_test(tc, test_page_sizes);
	tcase_add_test(tc, test_threshold_parse);
	tcase_add_test(tc, test_gate);
	tcase_add_test(tc, test_bad_input);
	tcase_add_test(tc, test_json_lines);
	tcase_add_test(tc, test_hostile_names);
	tcase_add_test(tc, test_header_identity);
	tcase_add_test(tc, test_overflow_refused);
	tcase_add_test(tc, test_many_names);
	tcase_add_test(tc, test_command_text_report);
	tcase_add_test(tc, test_command_words_cut);
	tcase_add_test(tc, test_threshold_messages);
	tcase_add_test(tc, test_exact_names);
	suite_add_tcase(s, tc);
	return s;
}
