// SPDX-License-Identifier: GPL-2.0-only
/* test_view.c - the live view: orders, selection and scrolling, units, exits, sizes, escaping, keys */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/frame.h"
#include "kernel/proc.h"
#include "ui/term.h"
#include "testutil.h"
#include "ui/view.h"

#define MAX_PFN		(1u << 20)
#define SEC		1000000000ull
#define SCR_LINES	VIEW_MAX_LINES
#define SCR_COLS	(VIEW_MAX_COLS + 1)

static struct stats S;
static struct view V;
static const struct view_facts F = {
	.clock = "12:34:56Z", .uptime_s = 3723.5, .events_per_s = 1234, .lost = 0, .mem_avail_kib = 2 << 20,
	.mem_total_kib = 4 << 20, .sys_peak_s = 12.5, .sys_peak_ago_s = 3,
};

/* What a terminal shows after the frame: its lines, and per line whether it was dimmed. */
static char scr[SCR_LINES][SCR_COLS];
static bool dim[SCR_LINES], rev[SCR_LINES];
static int max_row_addressed;

static void init(uint32_t max_tasks, bool ansi, bool batch, uint32_t batch_rows)
{
	struct stats_config sc = { .max_tasks = max_tasks, .max_modules = 16, .max_pfn = MAX_PFN };
	struct view_config vc = {
		.max_tasks = max_tasks, .max_modules = 16, .page_size = 4096, .batch = batch,
		.batch_rows = batch_rows, .ansi = ansi, .colour = ansi, .age_ns = 10 * SEC,
	};

	ck_assert_int_eq(stats_init(&S, &sc), 0);
	ck_assert_int_eq(view_init(&V, &vc), 0);
	view_resize(&V, 24, 80);
}

static void setup(void)
{
	init(256, true, false, 0);
}

static void teardown(void)
{
	view_free(&V);
	stats_free(&S);
}

static struct mt_task *add_task(int32_t tid, int32_t tgid, const char *comm, uint64_t pages)
{
	struct mt_task *t = stats_seed_task(&S, tid, tgid, 1, comm, strlen(comm), pages, 0, false);

	ck_assert_ptr_nonnull(t);
	return t;
}

static uint64_t next_pfn = 1000;

/* @tid takes @n pages (order 0) at @ts */
static void take(uint64_t ts, int32_t tid, int n)
{
	while (n-- > 0)
		test_page_event(&S, EV_PAGE_ALLOC, ts, tid, 0, next_pfn++, 0);
}

static void exit_task(uint64_t ts, int32_t tid)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_EXIT;
	ev.ts = ts;
	ev.tid = tid;
	ev.u.exit.pid = tid;
	ev.u.exit.group_dead = 1;
	stats_apply(&S, &ev);
}

/* The tids of the rows, in order, as one string "3 1 2". */
static const char *order_str(void)
{
	static char buf[4096];
	size_t n = 0;
	uint32_t i;

	buf[0] = '\0';
	for (i = 0; i < V.nrows && n + 16 < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%d", i ? " " : "",
				      V.row[V.order[i]].pid);
	return buf;
}

/*
 * A terminal of our own: the frame played on a screen. Only the sequences the
 * view means to send are taken (cursor to a line's start, attributes, clear to
 * the end of the line); any other control byte fails the test, so no name can
 * bring one. Returns the number of lines drawn.
 */
static int play(const char *f, size_t len, int lines, int cols)
{
	int y = -1, x = 0, drawn = 0;
	bool d = false, rv = false;
	size_t i = 0;

	memset(scr, 0, sizeof(scr));
	memset(dim, 0, sizeof(dim));
	memset(rev, 0, sizeof(rev));
	max_row_addressed = 0;
	while (i < len) {
		unsigned char c = (unsigned char)f[i];

		if (c == 0x1b) {
			int num[4] = { 0 }, nn = 0, k;
			size_t j = i + 2;
			char fin;

			ck_assert_msg(i + 1 < len && f[i + 1] == '[', "ESC not followed by [ at %zu", i);
			for (; j < len && ((f[j] >= '0' && f[j] <= '9') || f[j] == ';'); j++) {
				if (f[j] == ';')
					ck_assert_int_lt(++nn, 4);
				else
					num[nn] = num[nn] * 10 + (f[j] - '0');
			}
			ck_assert_msg(j < len, "cut sequence at %zu", i);
			fin = f[j];
			if (fin == 'H') {	/* a line's start: "ESC [ line ; 1 H" */
				ck_assert_int_eq(nn, 1);
				ck_assert_int_eq(num[1], 1);
				ck_assert_msg(num[0] >= 1 && num[0] <= lines, "line %d addressed on %d lines",
					      num[0], lines);
				y = num[0] - 1;
				x = 0;
				if (num[0] > max_row_addressed)
					max_row_addressed = num[0];
				drawn++;
			} else if (fin == 'm') {	/* attributes */
				for (k = 0; k <= nn; k++) {
					if (num[k] == 0)
						d = rv = false;
					else if (num[k] == 2)
						d = true;
					else if (num[k] == 7)
						rv = true;
				}
			} else {		/* clear to the end of the line, and nothing else */
				ck_assert_msg(fin == 'K' && j == i + 2,
					      "unexpected sequence ending '%c' at %zu", fin, i);
			}
			i = j + 1;
			continue;
		}
		ck_assert_msg(c >= 0x20 && c < 0x7f, "raw byte 0x%02x at %zu in the frame", c, i);
		ck_assert_msg(y >= 0, "text before any line was addressed");
		ck_assert_msg(x < cols, "line %d longer than %d columns", y + 1, cols);
		scr[y][x++] = (char)c;
		if (d)
			dim[y] = true;
		if (rv)
			rev[y] = true;
		i++;
	}
	return drawn;
}

/* Plain frames (batch, TERM=dumb): lines split at newlines; no ESC or control byte at all. */
static int play_plain(const char *f, size_t len)
{
	int y = 0, x = 0;
	size_t i;

	memset(scr, 0, sizeof(scr));
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)f[i];

		if (c == '\n') {
			y++;
			x = 0;
			continue;
		}
		ck_assert_msg(c >= 0x20 && c < 0x7f, "raw byte 0x%02x at %zu", c, i);
		if (y < SCR_LINES && x < SCR_COLS - 1)
			scr[y][x++] = (char)c;
	}
	return y;
}

/* The screen line holding @s, or -1. */
static int line_with(const char *s)
{
	int y;

	for (y = 0; y < SCR_LINES; y++)
		if (strstr(scr[y], s))
			return y;
	return -1;
}

static void render(void)
{
	frame_render(&V, &S, &F);
	if (V.cfg.batch || !V.cfg.ansi)
		play_plain(V.frame, V.frame_len);
	else
		play(V.frame, V.frame_len, V.lines, V.cols);
}

/* ---------------------------------------------------------------- orders */

START_TEST(test_sort_orders)
{
	add_task(10, 10, "bravo", 50);	/* cur 50 peak 50 */
	add_task(11, 11, "alpha", 20);
	add_task(12, 12, "charlie", 5);
	take(1 * SEC, 12, 100);		/* cur 105 */
	take(1 * SEC, 11, 10);		/* cur 30 */
	view_build(&V, &S, 1 * SEC, true);
	ck_assert_str_eq(order_str(), "12 10 11");	/* current pages, most first */
	ck_assert_int_eq(V.sort[VIEW_TASKS], SORT_CUR);
	take(2 * SEC, 10, 40);				/* 10: 90 */
	view_build(&V, &S, 3 * SEC, true);		/* 2 s later */
	ck_assert_int_eq(view_key(&V, 's'), VA_SORT);
	view_sort(&V, &S);
	ck_assert_int_eq(V.sort[VIEW_TASKS], SORT_PEAK);
	ck_assert_str_eq(order_str(), "12 10 11");
	ck_assert_int_eq(view_key(&V, 's'), VA_SORT);
	view_sort(&V, &S);
	ck_assert_int_eq(V.sort[VIEW_TASKS], SORT_CHANGE);
	ck_assert_str_eq(order_str(), "10 12 11");	/* 10 grew 40 pages in 2 s; then by current */
	ck_assert(V.row[V.order[0]].rate > 19.9 && V.row[V.order[0]].rate < 20.1);
	view_key(&V, 's');
	view_sort(&V, &S);
	ck_assert_int_eq(V.sort[VIEW_TASKS], SORT_PID);
	ck_assert_str_eq(order_str(), "10 11 12");
	view_key(&V, 's');
	view_sort(&V, &S);
	ck_assert_int_eq(V.sort[VIEW_TASKS], SORT_NAME);
	ck_assert_str_eq(order_str(), "11 10 12");	/* alpha bravo charlie */
	ck_assert_int_eq(view_key(&V, 'r'), VA_SORT);
	view_sort(&V, &S);
	ck_assert_str_eq(order_str(), "12 10 11");	/* reversed: the exact mirror */
	view_key(&V, 's');
	view_sort(&V, &S);
	ck_assert_int_eq(V.sort[VIEW_TASKS], SORT_CUR);	/* round again */
	ck_assert_str_eq(order_str(), "11 10 12");	/* still reversed: least first */
	render();
	ck_assert_int_ge(line_with("by current pages, reversed"), 0);
	/* 150 pages allocated and tracked (the seeds are not in the pfn map); the facts say when */
	ck_assert_msg(line_with("tracked now 150 pages, peak 150 (3 s ago)") == 1, "%s", scr[1]);
}
END_TEST

/* equal values: pid, then slot; the order is total and the same at every build */
START_TEST(test_sort_ties)
{
	add_task(30, 30, "c", 7);
	add_task(20, 20, "b", 7);
	add_task(25, 25, "a", 7);
	view_build(&V, &S, SEC, true);
	ck_assert_str_eq(order_str(), "20 25 30");
	view_key(&V, 'r');
	view_sort(&V, &S);
	ck_assert_str_eq(order_str(), "30 25 20");
}
END_TEST

/* ---------------------------------------------------------------- selection and scrolling */

START_TEST(test_scroll_bounds)
{
	uint32_t vis;
	int i;

	for (i = 0; i < 100; i++)
		add_task(1000 + i, 1000 + i, "t", (uint64_t)(200 - i));	/* tid 1000 the most */
	view_build(&V, &S, SEC, true);
	vis = view_visible(&V);
	ck_assert_uint_eq(vis, 24 - VIEW_HEAD_LINES);
	ck_assert_uint_eq(V.sel, 0);
	ck_assert_int_eq(view_key(&V, TK_UP), VA_DRAW);
	ck_assert_uint_eq(V.sel, 0);			/* nothing above the first */
	for (i = 0; i < (int)vis - 1; i++)
		view_key(&V, TK_DOWN);
	ck_assert_uint_eq(V.sel, vis - 1);
	ck_assert_uint_eq(V.first, 0);			/* the last line of the screen */
	view_key(&V, TK_DOWN);
	ck_assert_uint_eq(V.sel, vis);
	ck_assert_uint_eq(V.first, 1);			/* scrolled by one */
	view_key(&V, TK_PGDN);
	ck_assert_uint_eq(V.sel, 2 * vis);
	ck_assert_uint_eq(V.first, vis + 1);
	view_key(&V, TK_END);
	ck_assert_uint_eq(V.sel, 99);
	ck_assert_uint_eq(V.first, 100 - vis);
	view_key(&V, TK_PGDN);
	ck_assert_uint_eq(V.sel, 99);			/* nothing below the last */
	view_key(&V, TK_DOWN);
	ck_assert_uint_eq(V.sel, 99);
	render();
	ck_assert_int_ge(line_with("rows 81-100"), 0);
	ck_assert_int_eq(line_with("> "), 23);		/* the selection on the last line */
	ck_assert_msg(strstr(scr[23], "1099"), "last line: %s", scr[23]);
	view_key(&V, TK_PGUP);
	ck_assert_uint_eq(V.sel, 99 - vis);
	ck_assert_uint_eq(V.first, 99 - vis);
	view_key(&V, TK_HOME);
	ck_assert_uint_eq(V.sel, 0);
	ck_assert_uint_eq(V.first, 0);
	view_key(&V, TK_PGUP);
	ck_assert_uint_eq(V.sel, 0);
}
END_TEST

/* the selection stays on its task when the order moves it; on the first row, on the first row */
START_TEST(test_selection_follows)
{
	add_task(1, 1, "a", 30);
	add_task(2, 2, "b", 20);
	add_task(3, 3, "c", 10);
	view_build(&V, &S, SEC, true);
	ck_assert_str_eq(order_str(), "1 2 3");
	view_key(&V, TK_DOWN);
	view_key(&V, TK_DOWN);
	ck_assert_int_eq(V.row[V.order[V.sel]].pid, 3);
	take(2 * SEC, 3, 50);				/* 3 becomes the first */
	view_build(&V, &S, 2 * SEC, true);
	ck_assert_str_eq(order_str(), "3 1 2");
	ck_assert_uint_eq(V.sel, 0);
	ck_assert_int_eq(V.row[V.order[V.sel]].pid, 3);	/* followed it */
	take(3 * SEC, 2, 100);
	view_build(&V, &S, 3 * SEC, true);
	ck_assert_str_eq(order_str(), "2 3 1");
	ck_assert_int_eq(V.row[V.order[V.sel]].pid, 2);	/* on the first row: the first row */
	/* an empty view: nothing selected, nothing breaks */
	view_key(&V, 'm');
	view_build(&V, &S, 3 * SEC, false);
	ck_assert_uint_eq(V.nrows, 0);
	view_key(&V, TK_DOWN);
	view_key(&V, TK_END);
	ck_assert_uint_eq(V.sel, 0);
	render();
	ck_assert_int_ge(line_with("MODULES: 0"), 0);
}
END_TEST

/* ---------------------------------------------------------------- units, exits */

START_TEST(test_units)
{
	add_task(7, 7, "seven", 2560);	/* 10 MiB */
	view_build(&V, &S, SEC, true);
	render();
	ck_assert_int_ge(line_with("CUR_PAGES PEAK_PAGES"), 0);
	ck_assert_msg(strstr(scr[4], "2560       2560"), "%s", scr[4]);
	ck_assert_int_eq(view_key(&V, 'u'), VA_DRAW);
	render();
	ck_assert_int_ge(line_with("CUR_KIB"), 0);
	ck_assert_msg(strstr(scr[4], "10240      10240"), "%s", scr[4]);
	ck_assert_int_ge(line_with("tracked now 0 KiB, peak 0"), 0);	/* seeds only: none tracked */
	view_key(&V, 'u');
	render();
	ck_assert_int_ge(line_with("CUR_MIB"), 0);
	ck_assert_msg(strstr(scr[4], "10.0       10.0"), "%s", scr[4]);
	view_key(&V, 'u');
	render();
	ck_assert_int_ge(line_with("CUR_PAGES"), 0);	/* and round */
}
END_TEST

START_TEST(test_exited_kept_dimmed)
{
	add_task(100, 100, "holder", 40);
	add_task(200, 200, "peaker", 1);
	add_task(300, 300, "small", 5);
	take(SEC, 200, 99);				/* peak 100 */
	view_build(&V, &S, SEC, true);
	ck_assert_str_eq(order_str(), "200 100 300");
	/* it frees everything and exits: cur 0, peak 100 */
	{
		uint64_t pfn;

		for (pfn = next_pfn - 99; pfn < next_pfn; pfn++)
			test_page_event(&S, EV_PAGE_FREE, 2 * SEC, 200, 0, pfn, 0);
	}
	exit_task(2 * SEC, 200);
	ck_assert_int_eq(stats_find_task(&S, 200) ? 1 : 0, 1);
	view_build(&V, &S, 3 * SEC, true);
	/* kept, exited, and within the age ranked by its peak in the current order */
	ck_assert_str_eq(order_str(), "200 100 300");
	ck_assert_int_eq(V.row[V.order[0]].state, ROW_EXITED);
	ck_assert_int_eq(V.row[V.order[0]].cur, 0);	/* its seed went with it */
	render();
	ck_assert_int_ge(line_with("exited peaker"), 0);
	ck_assert(dim[line_with("exited peaker")]);
	ck_assert(!dim[line_with("alive  holder")]);
	/* aged out: its current pages rank it now */
	view_build(&V, &S, 13 * SEC, true);
	ck_assert_str_eq(order_str(), "100 300 200");
	render();
	ck_assert_int_ge(line_with("exited peaker"), 0);	/* still there, last */
	/* the peak order keeps it at the top for good */
	view_key(&V, 's');
	view_sort(&V, &S);
	ck_assert_str_eq(order_str(), "200 100 300");
}
END_TEST

/*
 * The header's "tracked now": the pfn map's pages (sys_cur), which is what the
 * report's rows add up to: each task's CUR less the seeded pages it still
 * holds (never in the map), plus the modules' own pages.
 */
static int64_t report_sum(void)
{
	int64_t n = 0;
	uint32_t i;

	for (i = 0; i < S.tb.ntasks_used; i++)
		if (S.tb.tasks[i].state != TASK_UNUSED)
			n += S.tb.tasks[i].cur - (int64_t)S.tb.tasks[i].seed_left;
	for (i = 0; i < S.tb.nmods; i++)
		if (S.tb.mods[i].state != MOD_UNUSED)
			n += S.tb.mods[i].cur;
	return n;
}

START_TEST(test_tracked_now)
{
	struct view_facts f = F;
	char want[96];
	uint64_t pfn;

	add_task(10, 10, "seeded", 500);
	add_task(11, 10, "thread", 0);
	add_task(20, 20, "other", 30);
	take(SEC, 10, 100);
	take(SEC, 11, 40);
	take(SEC, 20, 7);
	for (pfn = next_pfn - 47; pfn < next_pfn - 40; pfn++)	/* 7 of 10's thread's freed */
		test_page_event(&S, EV_PAGE_FREE, 2 * SEC, 11, 0, pfn, 0);
	test_page_event(&S, EV_PAGE_FREE, 2 * SEC, 10, 0, 999999, 0);	/* untracked: seed */
	exit_task(3 * SEC, 20);					/* its pages stay its own */
	ck_assert_int_eq(S.sys_cur, 100 + 40 - 7 + 7);	/* the seed's free is not in it */
	ck_assert_int_eq(S.sys_cur, report_sum());
	view_build(&V, &S, 4 * SEC, true);
	f.sys_peak_ago_s = -1;	/* when only: the time */
	frame_render(&V, &S, &f);
	play(V.frame, V.frame_len, V.lines, V.cols);
	snprintf(want, sizeof(want), "tracked now %lld pages, peak %lld at 12.5 s",
		 (long long)report_sum(), (long long)S.sys_peak);
	ck_assert_msg(line_with(want) == 1, "%s", scr[1]);
	ck_assert_int_eq(S.sys_peak, 147);
	view_key(&V, 'u');
	frame_render(&V, &S, &f);
	play(V.frame, V.frame_len, V.lines, V.cols);
	ck_assert_msg(line_with("tracked now 560 KiB, peak 588 at 12.5 s") == 1, "%s", scr[1]);
}
END_TEST

/* the status line names the order in the unit shown; s and r are each view's own */
START_TEST(test_order_words_and_per_view)
{
	add_task(10, 10, "bravo", 30);
	add_task(11, 11, "alpha", 50);
	add_task(12, 12, "charlie", 10);
	view_build(&V, &S, SEC, true);
	render();
	ck_assert_int_eq(line_with("TASKS: 3, by current pages;"), 2);
	view_key(&V, 'u');
	render();
	ck_assert_int_eq(line_with("TASKS: 3, by current KiB;"), 2);
	view_key(&V, 's');
	view_sort(&V, &S);
	render();
	ck_assert_int_eq(line_with("TASKS: 3, by peak KiB;"), 2);
	ck_assert_int_eq(line_with("pages"), -1);	/* no word of pages while KiB are shown */
	view_key(&V, 'u');
	render();
	ck_assert_int_eq(line_with("TASKS: 3, by peak MiB;"), 2);
	view_key(&V, 'u');
	view_key(&V, 's');
	view_sort(&V, &S);
	render();
	ck_assert_int_eq(line_with("TASKS: 3, by change per second;"), 2);
	view_key(&V, 's');
	view_key(&V, 's');
	view_key(&V, 's');
	view_sort(&V, &S);
	/* r reverses the task view only */
	ck_assert_int_eq(view_key(&V, 'r'), VA_SORT);
	view_sort(&V, &S);
	ck_assert_str_eq(order_str(), "12 10 11");
	view_key(&V, 'p');
	view_build(&V, &S, SEC, false);
	ck_assert_str_eq(order_str(), "11 10 12");	/* the process view: not reversed */
	render();
	ck_assert_int_eq(line_with("PROCESSES: 3, by current pages;"), 2);
	view_key(&V, 's');				/* its own order: peak */
	view_key(&V, 'r');
	view_sort(&V, &S);
	ck_assert_str_eq(order_str(), "12 10 11");
	render();
	ck_assert_int_eq(line_with("PROCESSES: 3, by peak pages, reversed;"), 2);
	view_key(&V, 't');
	view_build(&V, &S, SEC, false);
	render();
	ck_assert_int_eq(line_with("TASKS: 3, by current pages, reversed;"), 2);
	ck_assert_str_eq(order_str(), "12 10 11");
	view_key(&V, 'r');
	view_sort(&V, &S);
	ck_assert_str_eq(order_str(), "11 10 12");
	view_key(&V, 'p');
	view_build(&V, &S, SEC, false);
	ck_assert_str_eq(order_str(), "12 10 11");	/* the process view's stays reversed */
}
END_TEST

/* x: the exited rows left out in every order (recent or not), their count on the status line */
START_TEST(test_hide_exited)
{
	int s;

	add_task(100, 100, "holder", 40);
	add_task(200, 200, "peaker", 100);
	add_task(300, 300, "small", 5);
	exit_task(2 * SEC, 200);
	view_build(&V, &S, 3 * SEC, true);		/* recent: ranked by its peak */
	ck_assert_str_eq(order_str(), "200 100 300");
	render();
	ck_assert_int_eq(line_with("TASKS: 3, by current pages"), 2);
	ck_assert_int_eq(view_key(&V, 'x'), VA_BUILD);
	for (s = 0; s < SORT__N; s++) {
		view_build(&V, &S, 3 * SEC, false);
		ck_assert_uint_eq(V.nrows, 2);
		ck_assert_ptr_null(strstr(order_str(), "200"));
		render();
		ck_assert_int_eq(line_with("TASKS: 2 (1 exited hidden), by "), 2);
		ck_assert_int_eq(line_with("peaker"), -1);
		view_key(&V, 's');
	}
	/* the process view too */
	view_key(&V, 'p');
	view_build(&V, &S, 13 * SEC, false);
	ck_assert_uint_eq(V.nrows, 2);
	render();
	ck_assert_int_eq(line_with("PROCESSES: 2 (1 exited hidden), by "), 2);
	/* x again: shown */
	view_key(&V, 'x');
	view_build(&V, &S, 13 * SEC, false);
	ck_assert_uint_eq(V.nrows, 3);
	render();
	ck_assert_int_eq(line_with("hidden"), -1);
	ck_assert_int_ge(line_with("exited peaker"), 0);
}
END_TEST

/* ---------------------------------------------------------------- views */

START_TEST(test_process_and_module_views)
{
	struct mt_event ev;
	struct mt_module *m;

	add_task(50, 50, "leader", 10);
	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_NEWTASK;
	ev.ts = SEC;
	ev.tid = 50;
	ev.u.newtask.pid = 51;
	ev.u.newtask.clone_flags = 0x10000;	/* CLONE_THREAD */
	ev.u.newtask.comm.s = "worker";
	ev.u.newtask.comm.len = 6;
	stats_apply(&S, &ev);
	take(2 * SEC, 51, 30);
	add_task(60, 60, "other", 25);
	view_build(&V, &S, 2 * SEC, true);
	ck_assert_str_eq(order_str(), "51 60 50");	/* tasks: the thread on its own */
	ck_assert_int_eq(view_key(&V, 'p'), VA_BUILD);
	view_build(&V, &S, 2 * SEC, false);
	ck_assert_str_eq(order_str(), "50 60");	/* processes: threads summed */
	ck_assert_int_eq(V.row[V.order[0]].cur, 40);
	ck_assert_int_eq(V.row[V.order[0]].aux, 2);	/* threads */
	render();
	ck_assert_int_ge(line_with("PID THREADS"), 0);
	ck_assert_int_ge(line_with("PROCESSES: 2"), 0);
	ck_assert_int_eq(view_key(&V, 'p'), VA_NONE);	/* already there */
	m = table_module_new(&S.tb);
	ck_assert_ptr_nonnull(m);
	strcpy(m->name, "zram\033[2J");
	m->state = MOD_LIVE;
	m->cur = 96;		/* its load bracket's ... */
	m->peak = 100;
	m->all_cur = 4096;	/* ... and all its pages (by stack with --stacks) */
	m->all_peak = 5000;
	m->static_kib = 48;
	m->static_known = 1;
	ck_assert_int_eq(view_key(&V, 'm'), VA_BUILD);
	view_build(&V, &S, 2 * SEC, false);
	ck_assert_uint_eq(V.nrows, 1);
	render();
	ck_assert_int_ge(line_with("NAME"), 0);
	ck_assert_int_ge(line_with("LOAD_PEAK STATIC_KIB STATE"), 0);
	ck_assert_msg(line_with("zram\\x1b[2J") >= 0, "%s", scr[4]);
	ck_assert_msg(strstr(scr[4], "4096       5000        100         48 live"), "%s", scr[4]);
	/* modules sort by current, peak, name: no pid or change column */
	view_key(&V, 's');
	ck_assert_int_eq(V.sort[VIEW_MODULES], SORT_PEAK);
	view_key(&V, 's');
	ck_assert_int_eq(V.sort[VIEW_MODULES], SORT_NAME);
	view_key(&V, 's');
	ck_assert_int_eq(V.sort[VIEW_MODULES], SORT_CUR);
	ck_assert_int_eq(V.sort[VIEW_TASKS], SORT_CUR);	/* each view its own */
}
END_TEST

/* No module rows: the view says why instead of an empty screen (terminal and batch). */
START_TEST(test_empty_modules_view)
{
	struct view_facts f = F;

	add_task(50, 50, "a", 10);
	ck_assert_int_eq(view_key(&V, 'm'), VA_BUILD);
	view_build(&V, &S, SEC, true);
	ck_assert_uint_eq(V.nrows, 0);
	f.no_module_events = true;	/* a kernel without module support */
	frame_render(&V, &S, &f);
	play(V.frame, V.frame_len, V.lines, V.cols);
	ck_assert_int_eq(line_with("no module events: this kernel has no module support"),
			 VIEW_HEAD_LINES);
	f.no_module_events = false;	/* modules, but none loaded since the start */
	frame_render(&V, &S, &f);
	play(V.frame, V.frame_len, V.lines, V.cols);
	ck_assert_int_eq(line_with("no module loaded since the start; earlier ones are in the "
				   "report"), VIEW_HEAD_LINES);
	ck_assert_int_lt(line_with("no module events"), 0);
	/* the tasks view has rows: no such line */
	ck_assert_int_eq(view_key(&V, 't'), VA_BUILD);
	view_build(&V, &S, SEC, false);
	frame_render(&V, &S, &f);
	play(V.frame, V.frame_len, V.lines, V.cols);
	ck_assert_int_lt(line_with("no module"), 0);
	/* batch frames say it too, before the empty line between frames */
	teardown();
	init(256, false, true, 5);
	view_key(&V, 'm');
	view_build(&V, &S, SEC, true);
	f.no_module_events = true;
	frame_render(&V, &S, &f);
	ck_assert_int_eq(play_plain(V.frame, V.frame_len), VIEW_HEAD_LINES + 2);
	ck_assert_int_eq(line_with("no module events: this kernel has no module support"),
			 VIEW_HEAD_LINES);
}
END_TEST

/* ---------------------------------------------------------------- sizes */

/* every line addressed, none past the screen or longer than it, at every size */
START_TEST(test_sizes)
{
	static const int sizes[][2] = { { 24, 80 }, { 10, 40 }, { 5, 20 }, { 1, 1 }, { 2, 200 },
					{ 60, 132 }, { 1000, 1000 } };
	size_t k;
	int i;

	for (i = 0; i < 60; i++) {
		char comm[20];	/* 15 characters: room for what gcc cannot bound of %07d */

		snprintf(comm, sizeof(comm), "longname%07d", i);
		add_task(100000 + i, 100000 + i, comm, 1000000000ull + (uint64_t)i);
	}
	view_build(&V, &S, SEC, true);
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		int lines = sizes[k][0] > VIEW_MAX_LINES ? VIEW_MAX_LINES : sizes[k][0];
		int cols = sizes[k][1] > VIEW_MAX_COLS ? VIEW_MAX_COLS : sizes[k][1];
		int y, shown = 0;

		view_resize(&V, sizes[k][0], sizes[k][1]);
		view_key(&V, TK_END);
		frame_render(&V, &S, &F);
		ck_assert_int_eq(play(V.frame, V.frame_len, lines, cols), lines);
		ck_assert_int_eq(max_row_addressed, lines);
		for (y = 0; y < lines; y++)
			shown += scr[y][0] == '>';
		ck_assert_msg(lines <= VIEW_HEAD_LINES || shown == 1,
			      "%dx%d: the selection shown %d times", lines, cols, shown);
	}
	/* 80x24: the whole of every row fits, COMM included */
	view_resize(&V, 24, 80);
	view_key(&V, TK_HOME);
	render();
	for (i = VIEW_HEAD_LINES; i < 24; i++)
		ck_assert_msg(strstr(scr[i], "longname"), "line %d cut: %s", i + 1, scr[i]);
	ck_assert_msg(strlen(scr[1]) <= 80, "%s", scr[1]);
	ck_assert_int_ge(line_with("MemAvailable 2.0 GiB of 4.0 GiB"), 0);
	ck_assert_int_eq(line_with("  12:34:56Z  up 01:02:03  1234 ev/s  lost 0  running"), 0);
	/* nothing tracked yet: no time for the system peak */
	ck_assert_int_eq(line_with("MemAvailable 2.0 GiB of 4.0 GiB  tracked now 0 pages, peak 0"), 1);
	ck_assert_ptr_null(strstr(scr[1], " at "));
	ck_assert_ptr_null(strstr(scr[1], " ago"));
}
END_TEST

/* SIGWINCH: a smaller screen keeps the selection on it; a larger one fills up */
START_TEST(test_resize_keeps_selection)
{
	int i;

	for (i = 0; i < 50; i++)
		add_task(10 + i, 10 + i, "x", (uint64_t)(100 - i));
	view_build(&V, &S, SEC, true);
	for (i = 0; i < 15; i++)
		view_key(&V, TK_DOWN);
	ck_assert_uint_eq(V.first, 0);
	view_resize(&V, 10, 80);
	frame_render(&V, &S, &F);
	ck_assert_uint_eq(V.sel, 15);
	ck_assert(V.first <= 15 && 15 < V.first + view_visible(&V));
	view_resize(&V, 100, 80);
	frame_render(&V, &S, &F);
	ck_assert_uint_eq(V.first, 0);		/* all 50 fit */
	ck_assert_uint_eq(V.sel, 15);
}
END_TEST

/* ---------------------------------------------------------------- escaping */

START_TEST(test_hostile_names)
{
	static const char *const names[] = {
		"\033[31mred", "\033]0;title\a", "\x9b" "2J", "new\nline", "cr\rdel\x7f",
		"\xc2\x9b" "1;1H", "back\\slash",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		add_task(500 + (int32_t)i, 500 + (int32_t)i, names[i], 100 - i);
	view_build(&V, &S, SEC, true);
	view_resize(&V, 24, 200);
	render();	/* play() fails on any byte or sequence the view did not mean */
	ck_assert_int_ge(line_with("\\x1b[31mred"), 0);
	ck_assert_int_ge(line_with("\\x1b]0;title\\x07"), 0);
	ck_assert_int_ge(line_with("\\x9b2J"), 0);
	ck_assert_int_ge(line_with("new\\x0aline"), 0);
	ck_assert_int_ge(line_with("cr\\x0ddel\\x7f"), 0);
	ck_assert_int_ge(line_with("\\xc2\\x9b1;1H"), 0);
	ck_assert_int_ge(line_with("back\\\\slash"), 0);
	/* the same names in a batch frame and a plain terminal: no ESC at all */
	teardown();
	init(256, false, true, 0);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		add_task(500 + (int32_t)i, 500 + (int32_t)i, names[i], 100 - i);
	view_build(&V, &S, SEC, true);
	render();
	ck_assert_ptr_null(memchr(V.frame, 0x1b, V.frame_len));
	ck_assert_int_ge(line_with("\\x1b[31mred"), 0);
}
END_TEST

/* an expanded row's stacks: from the provider, a tree under the row, one line a frame, escaped */
static int fake_stacks(void *ctx, enum view_kind kind, uint32_t idx, struct stack_lines *sk, int max)
{
	int *calls = ctx;

	(*calls)++;
	ck_assert_int_eq(kind, VIEW_TASKS);
	ck_assert_int_ge(max, 2);
	sk[0].id = 7;
	sk[0].cur = 30;
	sk[0].peak = 40;
	sk[0].nframes = 3;
	snprintf(sk[0].frame[0], VIEW_FRAME_LEN, "slot %u: do_anonymous_page+0x12/0x90", idx);
	snprintf(sk[0].frame[1], VIEW_FRAME_LEN, "evil\033[2Jframe");
	snprintf(sk[0].frame[2], VIEW_FRAME_LEN, "%s", "0123456789abcdefghijklmnopqrstuvwxyz"
		 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuvwxyz_the_outer_end");
	sk[1].id = 9;
	sk[1].cur = 5;
	sk[1].peak = 6;
	sk[1].nframes = 1;
	snprintf(sk[1].frame[0], VIEW_FRAME_LEN, "second_path+0x1/0x2");
	return 2;
}

START_TEST(test_expand)
{
	int calls = 0, y;

	add_task(1, 1, "one", 20);
	add_task(2, 2, "two", 10);
	view_build(&V, &S, SEC, true);
	ck_assert_int_eq(view_key(&V, '\r'), VA_DRAW);	/* no stack table */
	render();
	ck_assert_int_eq(line_with("no stacks: run with --stacks"), 2);
	/* ... on the status line only: nothing opens under the row to stay there */
	ck_assert(!V.expanded);
	ck_assert_int_eq(line_with("two"), 5);
	view_key(&V, 'x');				/* the next key clears the status */
	render();
	ck_assert_int_eq(line_with("no stacks"), -1);
	V.stacks = fake_stacks;
	V.stacks_ctx = &calls;
	view_key(&V, TK_DOWN);
	ck_assert_int_eq(view_key(&V, ' '), VA_DRAW);
	ck_assert(V.expanded);
	render();
	ck_assert_int_eq(calls, 1);
	/* the tree: the row, a line per stack, a line per frame under it */
	ck_assert_int_eq(line_with("two"), 5);
	ck_assert_int_eq(line_with("[-] stack 1 of 2: 30/40 pages (now/peak), 3 frames"), 6);
	ck_assert_int_eq(line_with("do_anonymous_page+0x12/0x90"), 7);
	ck_assert_ptr_nonnull(strstr(scr[7], "        slot 4: do_anon"));
	ck_assert_int_eq(line_with("evil\\x1b[2Jframe"), 8);
	ck_assert_int_eq(line_with("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM"), 9);
	ck_assert_int_eq(line_with("[-] stack 2 of 2: 5/6 pages (now/peak), 1 frames"), 10);
	ck_assert_int_eq(line_with("second_path+0x1/0x2"), 11);
	ck_assert_uint_eq(view_visible(&V), 24 - VIEW_HEAD_LINES - 6);
	/* units: the stack's pages in KiB */
	view_key(&V, 'u');
	render();
	ck_assert_int_eq(line_with("[-] stack 1 of 2: 120/160 KiB (now/peak)"), 6);
	view_key(&V, 'u');
	view_key(&V, 'u');
	/* Right: the frames move 8 columns left a key, the outer end comes into the line */
	ck_assert_int_eq(line_with("_the_outer_end"), -1);
	ck_assert_int_eq(view_key(&V, TK_RIGHT), VA_DRAW);
	render();
	ck_assert_ptr_nonnull(strstr(scr[7], "        do_anonymous_page+0x12"));
	for (y = 0; y < 4; y++)
		ck_assert_int_eq(view_key(&V, TK_RIGHT), VA_DRAW);
	render();
	ck_assert_ptr_nonnull(strstr(scr[9], "        EFGHIJKL"));
	ck_assert_ptr_nonnull(strstr(scr[9], "_the_outer_end"));
	ck_assert_int_eq(line_with("slot 4"), -1);
	ck_assert_int_eq(line_with("[-] stack 1 of 2"), 6);	/* the stack lines stay */
	for (y = 0; y < 5; y++)
		ck_assert_int_eq(view_key(&V, TK_LEFT), VA_DRAW);
	ck_assert_int_eq(view_key(&V, TK_LEFT), VA_NONE);	/* at the start */
	render();
	ck_assert_ptr_nonnull(strstr(scr[7], "        slot 4: do_anon"));
	/* Down: into the tree, on stack 1's line; space folds it */
	view_key(&V, TK_DOWN);
	ck_assert_int_eq(V.tsel, 0);
	render();
	ck_assert_int_eq(scr[6][0], '>');
	ck_assert_int_ne(scr[5][0], '>');
	ck_assert_int_eq(view_key(&V, ' '), VA_DRAW);
	ck_assert(V.expanded);
	render();
	ck_assert_int_eq(line_with("[+] stack 1 of 2: 30/40 pages"), 6);
	ck_assert_int_eq(line_with("do_anonymous_page"), -1);
	ck_assert_int_eq(line_with("[-] stack 2 of 2"), 7);
	ck_assert_int_eq(line_with("second_path+0x1/0x2"), 8);
	/* folded it stays across frames (the stacks are read again each frame) */
	y = calls;
	render();
	ck_assert_int_eq(calls, y + 1);
	ck_assert_int_eq(line_with("[+] stack 1 of 2"), 6);
	/* Down to stack 2's frame; Enter on a frame folds its stack, the selection on its line */
	view_key(&V, TK_DOWN);
	view_key(&V, TK_DOWN);
	ck_assert_int_eq(V.tsel, 2);
	view_key(&V, '\r');
	render();
	ck_assert_int_eq(line_with("[+] stack 2 of 2"), 7);
	ck_assert_int_eq(scr[7][0], '>');
	ck_assert_int_eq(line_with("second_path"), -1);
	view_key(&V, ' ');
	render();
	ck_assert_int_eq(line_with("second_path+0x1/0x2"), 8);
	/* Up out of the tree to the row; Enter there folds the whole tree */
	view_key(&V, TK_UP);
	view_key(&V, TK_UP);
	ck_assert_int_eq(V.tsel, -1);
	render();
	ck_assert_int_eq(scr[5][0], '>');
	/* Up from the row under a tree: the tree's last line (here: to "one", above it) */
	view_key(&V, '\n');				/* again: collapsed */
	ck_assert(!V.expanded);
	render();
	ck_assert_int_eq(line_with("stack 1 of 2"), -1);
	ck_assert_int_eq(line_with("slot"), -1);
	/* a tree taller than the screen: its own scroll, the selection kept on it */
	view_resize(&V, 10, 80);
	view_key(&V, ' ');
	render();
	ck_assert_int_eq(view_tree_shown(&V), 10 - VIEW_HEAD_LINES - 1);
	for (y = 0; y < 6; y++)
		view_key(&V, TK_DOWN);
	render();
	ck_assert_int_eq(V.tsel, 5);
	ck_assert_int_eq(line_with("second_path"), 9);
	ck_assert_int_eq(scr[9][0], '>');
	/* the selection on the row above: both rows drawn, the tree cut; the status says 1-2 */
	view_key(&V, TK_HOME);
	render();
	ck_assert_int_eq(scr[4][0], '>');
	ck_assert_int_eq(line_with("two"), 5);
	ck_assert_uint_eq(view_rows_shown(&V), 2);
	ck_assert_int_ge(line_with("; rows 1-2;"), 0);
	/* Up from the row under the tree: the tree's last line; Up on the first row: stays */
	view_key(&V, TK_DOWN);
	ck_assert_int_eq(V.tsel, -1);
	view_key(&V, TK_UP);
	ck_assert_int_eq(V.sel, 0);
	ck_assert_int_eq(V.tsel, -1);	/* "one" is not the expanded row */
	view_key(&V, TK_DOWN);
	view_key(&V, '\r');			/* "two" folded; "one" expanded, first row */
	view_key(&V, TK_UP);
	view_key(&V, '\r');
	ck_assert(V.expanded);
	ck_assert_int_eq(V.sel, 0);
	view_key(&V, TK_UP);			/* on the first row, expanded: stays there */
	ck_assert_int_eq(V.sel, 0);
	ck_assert_int_eq(V.tsel, -1);
	render();				/* its stacks read */
	view_key(&V, TK_END);
	ck_assert_int_eq(V.sel, 1);
	view_key(&V, TK_UP);			/* from the row under it: the tree's last line */
	ck_assert_int_eq(V.sel, 0);
	ck_assert_int_eq(V.tsel, view_tree_lines(&V) - 1);
	ck_assert_int_eq(V.tsel, 5);
}
END_TEST

/* c: the command line in the name column, read once per process, escaped; PPID in the process view */
START_TEST(test_cmdline_and_ppid)
{
	static const char hostile[] = "python3\0-c\0\033[2J\033]2;pwned\007evil\0";
	struct mt_task *t, *k;
	uint32_t slot;

	t = add_task(2, 2, "python3", 20);
	k = add_task(3, 3, "kworker/0:1", 10);
	view_resize(&V, 24, 100);
	view_build(&V, &S, SEC, true);
	render();
	ck_assert_int_ge(line_with("STATE  COMM"), 0);
	ck_assert(!view_cmd_wanted(&V, (uint32_t)(t - S.tb.tasks), t->serial));	/* not shown: not read */
	ck_assert_int_eq(view_key(&V, 'c'), VA_DRAW);
	slot = (uint32_t)(t - S.tb.tasks);
	ck_assert(view_cmd_wanted(&V, slot, t->serial));
	view_set_cmd(&V, slot, t->serial, hostile, sizeof(hostile) - 1);
	ck_assert(!view_cmd_wanted(&V, slot, t->serial));		/* once per process */
	view_set_cmd(&V, (uint32_t)(k - S.tb.tasks), k->serial, "", 0);	/* a kernel thread */
	render();
	ck_assert_int_ge(line_with("STATE  COMMAND"), 0);
	ck_assert_int_eq(line_with("python3 -c \\x1b[2J\\x1b]2;pwned\\x07evil"), 4);
	ck_assert_int_eq(line_with("[kworker/0:1]"), 5);
	/* a slot taken by another process: read again, its own */
	ck_assert(view_cmd_wanted(&V, slot, t->serial + 1));
	/* c again: the names */
	view_key(&V, 'c');
	render();
	ck_assert_int_eq(line_with("python3 -c"), -1);
	ck_assert_int_ge(line_with("python3"), 4);
	ck_assert_int_ge(line_with("STATE  COMM"), 0);
	/* the process view: PID, PPID, THREADS */
	ck_assert_int_eq(view_key(&V, 'p'), VA_BUILD);
	view_build(&V, &S, SEC, false);
	render();
	ck_assert_int_eq(line_with("    PID    PPID THREADS  CUR_PAGES PEAK_PAGES"), 3);
	ck_assert_int_eq(line_with("      2       1       1         20         20"), 4);
	/* a long command line: Right scrolls it as the stacks */
	view_key(&V, 'c');
	render();
	ck_assert_int_eq(line_with("python3 -c"), 4);
	view_key(&V, TK_RIGHT);
	render();
	ck_assert_int_eq(line_with("python3 -c"), -1);
	ck_assert_int_eq(line_with(" \\x1b[2J\\x1b]2;pwned"), 4);
}
END_TEST

/* ---------------------------------------------------------------- the other keys, frames */

START_TEST(test_help_freeze_quit)
{
	add_task(1, 1, "one", 20);
	view_build(&V, &S, SEC, true);
	ck_assert_int_eq(view_key(&V, 'h'), VA_DRAW);
	render();
	ck_assert_int_ge(line_with("u  units: pages, KiB, MiB"), 0);
	ck_assert_int_ge(line_with("q  quit"), 0);
	ck_assert_int_eq(view_key(&V, 't'), VA_DRAW);	/* any key closes it, and only that */
	ck_assert(!V.help);
	ck_assert_int_eq(view_key(&V, '?'), VA_DRAW);
	ck_assert(V.help);
	ck_assert_int_eq(view_key(&V, 'q'), VA_QUIT);	/* q quits from the help too */
	V.help = false;
	ck_assert_int_eq(view_key(&V, 'f'), VA_DRAW);
	ck_assert(V.frozen);
	render();
	ck_assert_int_ge(line_with("FROZEN"), 0);
	ck_assert_int_eq(view_key(&V, 'f'), VA_BUILD);	/* thawed: built anew */
	render();
	ck_assert_int_ge(line_with("running"), 0);
	ck_assert_int_eq(view_key(&V, 'Z'), VA_NONE);
	ck_assert_int_eq(view_key(&V, TK_UNKNOWN), VA_NONE);
}
END_TEST

START_TEST(test_batch_and_plain_frames)
{
	struct view_facts f = F;
	int i, n;

	teardown();
	init(256, false, true, 5);	/* batch, -n 5 */
	for (i = 0; i < 12; i++)
		add_task(40 + i, 40 + i, "b", (uint64_t)(50 - i));
	view_build(&V, &S, SEC, true);
	f.lost = 17;
	frame_render(&V, &S, &f);
	n = play_plain(V.frame, V.frame_len);
	ck_assert_int_eq(n, VIEW_HEAD_LINES + 5 + 1);	/* header, 5 rows, an empty line */
	ck_assert_int_ge(line_with("LOST 17"), 0);
	ck_assert_int_ge(line_with("TASKS: 12, by current pages (page = 4096 bytes)"), 0);
	ck_assert_msg(strstr(scr[4], "40      40"), "%s", scr[4]);
	ck_assert_str_eq(scr[9], "");
	/* TERM=dumb: plain lines, a screen less one (the cursor's line) */
	teardown();
	init(256, false, false, 0);
	for (i = 0; i < 40; i++)
		add_task(40 + i, 40 + i, "d", (uint64_t)(50 - i));
	view_build(&V, &S, SEC, true);
	frame_render(&V, &S, &F);
	ck_assert_ptr_null(memchr(V.frame, 0x1b, V.frame_len));
	ck_assert_int_eq(play_plain(V.frame, V.frame_len), 23);
	ck_assert_uint_eq(view_visible(&V), 23 - VIEW_HEAD_LINES);
	ck_assert_msg(scr[4][0] == '>', "%s", scr[4]);
}
END_TEST

/* ---------------------------------------------------------------- terminal */

static int keys_of(const char *bytes, size_t n, int *out, int max)
{
	struct term_keys k = { .len = 0 };
	int got = 0, key;

	term_keys_feed(&k, bytes, n);
	while (got < max && (key = term_key_next(&k)) != TK_NONE)
		out[got++] = key;
	return got;
}

START_TEST(test_key_decoding)
{
	static const struct {
		const char *bytes;
		int key;
	} one[] = {
		{ "\033[A", TK_UP }, { "\033[B", TK_DOWN }, { "\033[C", TK_RIGHT },
		{ "\033[D", TK_LEFT }, { "\033OA", TK_UP }, { "\033OB", TK_DOWN },
		{ "\033[5~", TK_PGUP }, { "\033[6~", TK_PGDN }, { "\033[H", TK_HOME },
		{ "\033[F", TK_END }, { "\033[1~", TK_HOME }, { "\033[4~", TK_END },
		{ "\033[7~", TK_HOME }, { "\033[8~", TK_END }, { "\033OH", TK_HOME },
		{ "\033OF", TK_END }, { "\033[1;5A", TK_UP }, { "\033[2~", TK_UNKNOWN },
		{ "\033[Z", TK_UNKNOWN }, { "\033", TK_ESC }, { "q", 'q' }, { " ", ' ' },
		{ "\r", '\r' },
	};
	struct term_keys k = { .len = 0 };
	int got[8], i;
	size_t j;

	for (j = 0; j < sizeof(one) / sizeof(one[0]); j++) {
		ck_assert_int_eq(keys_of(one[j].bytes, strlen(one[j].bytes), got, 8), 1);
		ck_assert_msg(got[0] == one[j].key, "%zu: %d, want %d", j, got[0], one[j].key);
	}
	/* several in one read */
	ck_assert_int_eq(keys_of("s\033[Br\033[6~q", 10, got, 8), 5);
	ck_assert_int_eq(got[0], 's');
	ck_assert_int_eq(got[1], TK_DOWN);
	ck_assert_int_eq(got[2], 'r');
	ck_assert_int_eq(got[3], TK_PGDN);
	ck_assert_int_eq(got[4], 'q');
	/* ESC then a key (Alt+key): ESC, then the key */
	ck_assert_int_eq(keys_of("\033q", 2, got, 8), 2);
	ck_assert_int_eq(got[0], TK_ESC);
	ck_assert_int_eq(got[1], 'q');
	/* a sequence cut between two reads waits for its end */
	term_keys_feed(&k, "\033[", 2);
	ck_assert_int_eq(term_key_next(&k), TK_NONE);
	term_keys_feed(&k, "5", 1);
	ck_assert_int_eq(term_key_next(&k), TK_NONE);
	term_keys_feed(&k, "~x", 2);
	ck_assert_int_eq(term_key_next(&k), TK_PGUP);
	ck_assert_int_eq(term_key_next(&k), 'x');
	ck_assert_int_eq(term_key_next(&k), TK_NONE);
	term_keys_feed(&k, "\033O", 2);
	ck_assert_int_eq(term_key_next(&k), TK_NONE);
	term_keys_feed(&k, "B", 1);
	ck_assert_int_eq(term_key_next(&k), TK_DOWN);
	/* a sequence longer than the buffer: dropped, not stuck */
	term_keys_feed(&k, "\033[", 2);
	for (i = 0; i < 40; i++)
		term_keys_feed(&k, "1", 1);
	ck_assert_int_eq(term_key_next(&k), TK_UNKNOWN);
	ck_assert_uint_eq(k.len, 0);
	term_keys_feed(&k, "q", 1);
	ck_assert_int_eq(term_key_next(&k), 'q');
	/* a byte that cannot end a CSI ends it and stays a key */
	ck_assert_int_eq(keys_of("\033[5\rq", 5, got, 8), 3);
	ck_assert_int_eq(got[0], TK_UNKNOWN);
	ck_assert_int_eq(got[1], '\r');
	ck_assert_int_eq(got[2], 'q');
}
END_TEST

START_TEST(test_term_caps)
{
	struct term_caps c;

	term_caps_of(&c, NULL, NULL);
	ck_assert(!c.ansi && !c.colour);
	term_caps_of(&c, "", NULL);
	ck_assert(!c.ansi && !c.colour);
	term_caps_of(&c, "dumb", NULL);
	ck_assert(!c.ansi && !c.colour);
	term_caps_of(&c, "vt100", NULL);
	ck_assert(c.ansi && !c.colour);
	term_caps_of(&c, "vt220", NULL);
	ck_assert(c.ansi && !c.colour);
	term_caps_of(&c, "xterm-256color", NULL);
	ck_assert(c.ansi && c.colour);
	term_caps_of(&c, "screen", NULL);
	ck_assert(c.ansi && c.colour);
	term_caps_of(&c, "tmux-256color", "");
	ck_assert(c.ansi && c.colour);
	term_caps_of(&c, "linux", "1");
	ck_assert(c.ansi && !c.colour);
}
END_TEST

START_TEST(test_meminfo)
{
	static const char mi[] = "MemTotal:       24554712 kB\nMemFree:        1000 kB\n"
				 "MemAvailable:   24100000 kB\nBuffers: 1 kB\n";
	uint64_t avail = 0, total = 0;

	ck_assert_int_eq(proc_parse_meminfo(mi, sizeof(mi) - 1, &avail, &total), 0);
	ck_assert_uint_eq(total, 24554712);
	ck_assert_uint_eq(avail, 24100000);
	ck_assert_int_eq(proc_parse_meminfo("MemTotal: 5 kB\n", 15, &avail, &total), -1);
	ck_assert_int_eq(proc_parse_meminfo("MemTotal: x kB\nMemAvailable: 1 kB\n", 35, &avail,
					    &total), -1);
	/* a key inside a line is not the key */
	ck_assert_int_eq(proc_parse_meminfo("XMemTotal: 5 kB\nMemAvailable: 1 kB\n", 35, &avail,
					    &total), -1);
	ck_assert_int_eq(proc_meminfo("/proc", &avail, &total), 0);
	ck_assert(total > 0 && avail <= total);
}
END_TEST

Suite *suite_view(void)
{
	Suite *s = suite_create("view");
	TCase *tc = tcase_create("view");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_sort_orders);
	tcase_add_test(tc, test_sort_ties);
	tcase_add_test(tc, test_scroll_bounds);
	tcase_add_test(tc, test_selection_follows);
	tcase_add_test(tc, test_units);
	tcase_add_test(tc, test_exited_kept_dimmed);
	tcase_add_test(tc, test_process_and_module_views);
	tcase_add_test(tc, test_sizes);
	tcase_add_test(tc, test_resize_keeps_selection);
	tcase_add_test(tc, test_hostile_names);
	tcase_add_test(tc, test_expand);
	tcase_add_test(tc, test_order_words_and_per_view);
	tcase_add_test(tc, test_tracked_now);
	tcase_add_test(tc, test_hide_exited);
	tcase_add_test(tc, test_cmdline_and_ppid);
	tcase_add_test(tc, test_help_freeze_quit);
	tcase_add_test(tc, test_batch_and_plain_frames);
	tcase_add_test(tc, test_empty_modules_view);
	tcase_add_test(tc, test_key_decoding);
	tcase_add_test(tc, test_term_caps);
	tcase_add_test(tc, test_meminfo);
	suite_add_tcase(s, tc);
	return s;
}
