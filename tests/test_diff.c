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
static const char *report(unsigned page_size, long sys_peak, long lost, const char *mods,
			  const char *procs)
{
	snprintf(J, sizeof(J), "{\"memtrace_version\":\"0.1.0\",\"trigger\":\"replay\",\"mode\":"
		 "\"replay\",\"uptime_s\":10.5,\"first_event_s\":1.0,\"last_event_s\":9.0,"
		 "\"page_size\":%u,\"lost_events\":%ld,\"system_peak\":{\"pages\":%ld,\"kib\":0},"
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
	ck_assert_uint_eq(a.nprocs, 2);
	ck_assert_str_eq(a.procs[0].name, "sh sh -c x");
	ck_assert_str_eq(a.procs[1].name, "sh");
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
	ck_assert_uint_eq(b.mods[0].nstacks, 2);
	ck_assert_str_eq(b.mods[0].stacks[0].key, "__alloc_pages < zs_malloc [zsmalloc]");
	ck_assert_uint_eq(b.mods[0].stacks[0].count, 2);
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
		"nan", "inf", "99999999999999999999", "5pages ", "0x10",
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
	ck_assert_str_eq(a.kernel, "6.1.0-56-amd64");
	ck_assert_str_eq(a.host, "h\x1b[2J");
	ck_assert_str_eq(a.started, "2026-11-27T01:03:40Z");
	ck_assert_str_eq(b.kernel, "");
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
	suite_add_tcase(s, tc);
	return s;
}
