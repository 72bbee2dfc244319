// SPDX-License-Identifier: GPL-2.0-only
/* test_series.c - --svg's series (halving keeps maxima, fixed memory, bounded markers) and SVG (escaping) */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/reader.h"
#include "output/rows.h"
#include "model/series.h"
#include "stats.h"
#include "output/svg.h"
#include "testutil.h"

static struct series_sample sample(uint64_t ts, int64_t sys)
{
	struct series_sample x;

	memset(&x, 0, sizeof(x));
	x.ts = ts;
	x.sys = sys;
	return x;
}

/* Halving: the largest system value and an entity's one spike survive every merge. */
START_TEST(halving_keeps_maxima)
{
	struct series se;
	uint32_t i;
	int64_t best = -1, spike = -1;

	ck_assert_int_eq(series_init(&se, 8, 4), 0);
	for (i = 0; i < 1000; i++) {
		struct series_sample x = sample(1000000ull * i, i == 357 ? 99999 : (int64_t)(i % 7));

		if (i == 611) {		/* an entity seen at one sample only */
			x.n = 1;
			x.top[0].id = 5;
			x.top[0].gen = 2;
			x.top[0].pages = 4242;
		}
		series_add(&se, &x);
	}
	ck_assert_uint_le(se.n, 8);
	ck_assert_uint_gt(se.halvings, 0);
	ck_assert_uint_ge(se.interval, SERIES_FIRST_NS << 8);	/* and never wrapped to 0 */
	for (i = 0; i < se.n; i++) {
		if (se.s[i].sys > best)
			best = se.s[i].sys;
		if (series_pages(&se.s[i], 5, 2) > spike)
			spike = series_pages(&se.s[i], 5, 2);
		ck_assert_int_eq(series_pages(&se.s[i], 5, 3), -1);	/* another generation */
		if (i)
			ck_assert_uint_gt(se.s[i].ts, se.s[i - 1].ts);
	}
	ck_assert_int_eq(best, 99999);
	ck_assert_int_eq(spike, 4242);
	series_free(&se);
}
END_TEST

/* A merge keeps the K largest of both samples' entities, each at its larger value. */
START_TEST(merge_keeps_largest)
{
	struct series se;
	struct series_sample a = sample(1, 10), b = sample(2, 20);
	uint32_t i;

	ck_assert_int_eq(series_init(&se, 2, 0), 0);
	for (i = 0; i < SERIES_K; i++) {
		a.top[i].id = i;
		a.top[i].pages = 1000 - i;
		b.top[i].id = 100 + i;
		b.top[i].pages = i == 0 ? 5000 : 1;	/* one big newcomer, the rest small */
	}
	a.top[3].pages = 997;
	a.n = b.n = SERIES_K;
	series_add(&se, &a);
	series_add(&se, &b);
	series_add(&se, &a);	/* full: a and b merge */
	ck_assert_uint_eq(se.n, 2);
	ck_assert_int_eq(se.s[0].sys, 20);
	ck_assert_uint_eq(se.s[0].n, SERIES_K);
	ck_assert_int_eq(se.s[0].top[0].pages, 5000);
	ck_assert_int_eq(series_pages(&se.s[0], 0, 0), 1000);
	ck_assert_int_eq(series_pages(&se.s[0], SERIES_K - 1, 0), -1);	/* the smallest went */
	for (i = 1; i < se.s[0].n; i++)
		ck_assert_int_ge(se.s[0].top[i - 1].pages, se.s[0].top[i].pages);
	series_free(&se);
}
END_TEST

/* The memory is what series_init() took: 100,000 samples later, the same arrays. */
START_TEST(fixed_memory)
{
	struct series se;
	struct series_sample *was;
	size_t bytes;
	uint32_t i;

	ck_assert_int_eq(series_init(&se, SERIES_LIVE_CAP, SERIES_MARKS), 0);
	was = se.s;
	bytes = se.bytes;
	ck_assert_uint_le(bytes, 512 * 1024);	/* "a known few hundred KiB" */
	for (i = 0; i < 100000; i++) {
		struct series_sample x = sample(1000ull * i, i);

		series_add(&se, &x);
	}
	ck_assert_ptr_eq(se.s, was);
	ck_assert_uint_eq(se.bytes, bytes);
	ck_assert_uint_le(se.n, SERIES_LIVE_CAP);
	ck_assert_int_eq(se.s[se.n - 1].sys, 99999);
	series_free(&se);
}
END_TEST

/* Markers: at most the list's room, the rest counted. */
START_TEST(markers_bounded)
{
	struct series se;
	uint32_t i;

	ck_assert_int_eq(series_init(&se, 4, 3), 0);
	for (i = 0; i < 5; i++)
		series_mark(&se.oom, i, 0, (int32_t)i, "victim", 6);
	ck_assert_uint_eq(se.oom.n, 3);
	ck_assert_uint_eq(se.oom.overflow, 2);
	ck_assert_uint_eq(se.oom.m[2].pid, 2);
	/* a name longer than the room is cut, never overrun */
	series_mark(&se.mods, 1, 0, 1, "0123456789012345678901234567890123456789012345678901234567890123",
		    64);
	ck_assert_uint_eq(se.mods.m[0].len, MODNAME_LEN);
	series_free(&se);
}
END_TEST

/* Lost events become a marker at the next sample, with how many. */
START_TEST(lost_marked)
{
	struct stats st;
	struct stats_config cfg = { .max_tasks = 16, .max_modules = 4, .max_pfn = 1 << 16 };
	struct series se;
	struct mt_event ev = { .kind = EV_PAGE_ALLOC, .ts = 1000, .tid = 5 };

	ck_assert_int_eq(stats_init(&st, &cfg), 0);
	ck_assert_int_eq(series_init(&se, 16, 4), 0);
	series_event(&se, &st, &ev, 0);
	ck_assert_uint_eq(se.n, 1);
	ev.ts += 1000;		/* not due yet: nothing */
	ck_assert(!series_due(&se, &ev));
	ev.ts = 1000 + SERIES_FIRST_NS;
	ck_assert(series_due(&se, &ev));
	series_event(&se, &st, &ev, 7);
	ck_assert_uint_eq(se.lost.n, 1);
	ck_assert_uint_eq(se.lost.m[0].n, 7);
	ck_assert_uint_eq(se.lost.m[0].ts, ev.ts);
	series_final(&se, &st, ev.ts, 9);
	ck_assert_uint_eq(se.lost.n, 2);
	ck_assert_uint_eq(se.lost.m[1].n, 2);
	series_free(&se);
	stats_free(&st);
}
END_TEST

/* ---- the SVG ---- */

START_TEST(escape_hostile)
{
	static const char name[] = "<a&b>\"'\x01\x1b\x7f\xff\xc3\xa9\\z";
	char *t;

	svg_escape(test_out_begin(), name, sizeof(name) - 1);
	t = test_out_end(NULL);
	ck_assert_str_eq(t, "&lt;a&amp;b&gt;&quot;&#39;\\x01\\x1b\\x7f\\xff\\xc3\\xa9\\\\z");
	free(t);
}
END_TEST

struct fixture {
	struct run r;
	struct reader_cpu cpu0;
	struct series se;
	uint32_t order[64], threads[64], sel[64], mod_order[8];
	int64_t pages[64];
};

/* A run where a process with a hostile name held pages, rendered: no byte of the name raw. */
START_TEST(render_hostile_name)
{
	static const char comm[] = "<x&\"\x02\xfe>";
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct stats_config cfg = { .max_tasks = 64, .max_modules = 8, .max_pfn = 1 << 16 };
	struct mt_event ev = { .kind = EV_NEWTASK, .ts = 1000, .tid = 1 };
	const unsigned char *c;
	char *t;
	uint32_t i;

	ck_assert_ptr_nonnull(fx);
	ck_assert_int_eq(stats_init(&fx->r.st, &cfg), 0);
	ck_assert_int_eq(series_init(&fx->se, 16, 4), 0);
	test_run_wire(&fx->r, &fx->cpu0, fx->order, fx->threads, fx->pages, fx->sel, fx->mod_order);
	fx->r.opt_set.rows = 30;
	fx->r.series = &fx->se;
	ev.u.newtask.pid = 42;
	ev.u.newtask.comm.s = comm;
	ev.u.newtask.comm.len = sizeof(comm) - 1;
	stats_apply(&fx->r.st, &ev);
	for (i = 0; i < 50; i++) {
		test_page_event(&fx->r.st, EV_PAGE_ALLOC, 2000 + 1000000ull * i, 42, 0, 100 + i, 0);
		ev.kind = EV_PAGE_ALLOC;
		ev.ts = 2000 + 1000000ull * i;
		if (series_due(&fx->se, &ev))
			series_event(&fx->se, &fx->r.st, &ev, 0);
	}
	/* an OOM kill of it and a module load, as the sink hands them on; a loss at the next sample */
	ev.kind = EV_OOM_VICTIM;
	ev.ts += 1000;
	ev.u.oom.pid = 42;
	ev.u.oom.comm.s = comm;
	ev.u.oom.comm.len = sizeof(comm) - 1;
	stats_apply(&fx->r.st, &ev);
	ck_assert(series_due(&fx->se, &ev));
	series_event(&fx->se, &fx->r.st, &ev, 0);
	ev.kind = EV_MOD_LOAD;
	ev.ts += 1000;
	ev.u.module.name.s = "m<od";
	ev.u.module.name.len = 4;
	series_event(&fx->se, &fx->r.st, &ev, 0);
	ev.kind = EV_PAGE_FREE;
	ev.ts += 2 * fx->se.interval;
	series_event(&fx->se, &fx->r.st, &ev, 5);
	ck_assert_uint_eq(fx->se.oom.n, 1);
	ck_assert_int_eq(fx->se.oom.m[0].pid, 42);
	ck_assert_uint_eq(fx->se.mods.n, 1);
	ck_assert_uint_eq(fx->se.lost.n, 1);
	svg_render(test_out_begin(), &fx->r, &fx->r.rs, &fx->se, "title <&>");
	t = test_out_end(NULL);
	ck_assert_ptr_null(strstr(t, "<x"));
	ck_assert_ptr_nonnull(strstr(t, "pid 42 &lt;x&amp;&quot;\\x02\\xfe&gt;"));
	ck_assert_ptr_nonnull(strstr(t, "title &lt;&amp;&gt;"));
	ck_assert_ptr_nonnull(strstr(t, "data-peak-pages=\"50\""));
	ck_assert_ptr_nonnull(strstr(t, ">200 KiB</text>"));
	ck_assert_ptr_nonnull(strstr(t, "OOM kill pid 42 &lt;x&amp;&quot;\\x02\\xfe&gt;</text>"));
	ck_assert_ptr_nonnull(strstr(t, ": m&lt;od</title>"));
	ck_assert_ptr_nonnull(strstr(t, "data-lost=\"5\""));
	for (c = (const unsigned char *)t; *c; c++)
		ck_assert_msg(*c == '\n' || (*c >= 0x20 && *c < 0x7f), "byte 0x%02x in the SVG", *c);
	free(t);
	series_free(&fx->se);
	stats_free(&fx->r.st);
	free(fx);
}
END_TEST

Suite *suite_series(void)
{
	Suite *s = suite_create("series");
	TCase *tc = tcase_create("series");
	TCase *tv = tcase_create("svg");

	tcase_add_test(tc, halving_keeps_maxima);
	tcase_add_test(tc, merge_keeps_largest);
	tcase_add_test(tc, fixed_memory);
	tcase_add_test(tc, markers_bounded);
	tcase_add_test(tc, lost_marked);
	tcase_add_test(tv, escape_hostile);
	tcase_add_test(tv, render_hostile_name);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tv);
	return s;
}
