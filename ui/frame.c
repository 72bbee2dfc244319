// SPDX-License-Identifier: GPL-2.0-only
/* ui/frame.c - the live view's frame: header, rows, keys help into a buffer; escaped, cut, addressed */
#include "ui/frame.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/escape.h"
#include "output/rows.h"

#define LINE_EXTRA	VIEW_LINE_EXTRA

/* One line of the frame, written in place: visible columns counted and cut at @max. */
struct line {
	char *p;
	size_t len, cap;
	int vis, max;
	bool ansi;
};

static void l_raw(struct line *l, const char *s, size_t n)
{
	if (n > l->cap - l->len)
		n = l->cap - l->len;
	memcpy(l->p + l->len, s, n);
	l->len += n;
}

/* An escape sequence: no width; only where the terminal takes them. */
static void l_attr(struct line *l, const char *seq)
{
	if (l->ansi)
		l_raw(l, seq, strlen(seq));
}

/* Visible text that is ours (never a name): cut at the width. */
static void l_text(struct line *l, const char *s, size_t n)
{
	size_t room = l->vis < l->max ? (size_t)(l->max - l->vis) : 0;

	if (n > room)
		n = room;
	l_raw(l, s, n);
	l->vis += (int)n;
}

__attribute__((format(printf, 2, 3)))
static void l_printf(struct line *l, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		l_text(l, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* A name (raw bytes from the kernel): escaped as the reports escape it, cut at @width. */
static void l_name(struct line *l, const char *s, size_t n, int width)
{
	int end = l->vis + width;
	size_t i;

	for (i = 0; i < n; i++) {
		char e[4];
		size_t k = escape_text_char((unsigned char)s[i], e);

		if (l->vis + (int)k > end)
			break;
		l_text(l, e, k);
	}
}

/*
 * Escaped text from column @skip on (Left/Right), cut at @width; with
 * @nul_blank a NUL is a blank (a command line's argument separator).
 */
static void l_scrolled(struct line *l, const char *s, size_t n, int skip, int width,
		       bool nul_blank)
{
	int end = l->vis + width, col = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		char e[4] = " ";
		size_t k = nul_blank && !s[i] ? 1 : escape_text_char((unsigned char)s[i], e), off = 0;

		/* an escape cut by the scroll shows its rest: columns stay columns */
		if (col + (int)k <= skip) {
			col += (int)k;
			continue;
		}
		if (col < skip)
			off = (size_t)(skip - col);
		col += (int)k;
		if (l->vis + (int)(k - off) > end)
			break;
		l_text(l, e + off, k - off);
	}
}

static void l_pad(struct line *l, int to)
{
	while (l->vis < to && l->vis < l->max)
		l_text(l, " ", 1);
}

static bool plain(const struct view *v)
{
	return v->cfg.batch || !v->cfg.ansi;
}

/* Line @y (from 0) of the frame begins: addressed on an ANSI terminal. */
static void line_begin(struct view *v, struct line *l, int y)
{
	size_t left = v->frame_cap - v->frame_len;
	size_t width = (size_t)(v->cfg.batch ? VIEW_BATCH_COLS : v->cols);

	l->p = v->frame + v->frame_len;
	l->len = 0;
	l->cap = left < width + LINE_EXTRA ? left : width + LINE_EXTRA;
	l->vis = 0;
	l->max = (int)width;
	l->ansi = !plain(v);
	if (l->ansi) {
		char pos[24];
		int n = snprintf(pos, sizeof(pos), "\033[%d;1H", y + 1);

		l_raw(l, pos, (size_t)n);
	}
}

/* ... and ends: attributes off, the rest of the line cleared (not at the last column). */
static void line_end(struct view *v, struct line *l)
{
	if (l->ansi) {
		l_raw(l, "\033[0m", 4);
		if (l->vis < l->max)
			l_raw(l, "\033[K", 3);
	} else {
		/* room for the newline is always kept: cut the line if need be */
		if (l->len == l->cap && l->len)
			l->len--;
		l_raw(l, "\n", 1);
	}
	v->frame_len += l->len;
}

static double unit_div(const struct view *v)
{
	return v->unit == UNIT_MIB ? 1048576.0 : v->unit == UNIT_KIB ? 1024.0 : 0;
}

/* Pages in the view's unit. */
static void fmt_pages(const struct view *v, char *b, size_t n, int64_t pages)
{
	double d = unit_div(v);

	if (!d)
		snprintf(b, n, "%lld", (long long)pages);
	else if (v->unit == UNIT_KIB)
		snprintf(b, n, "%lld", (long long)(pages * (int64_t)v->cfg.page_size / 1024));
	else
		snprintf(b, n, "%.1f", (double)pages * v->cfg.page_size / d);
}

static void fmt_rate(const struct view *v, char *b, size_t n, double pages_per_s)
{
	double d = unit_div(v), x = d ? pages_per_s * v->cfg.page_size / d : pages_per_s;
	double ax = x < 0 ? -x : x;

	if (v->unit == UNIT_MIB ? ax < 0.05 : ax < 0.5)
		snprintf(b, n, "0");
	else
		snprintf(b, n, v->unit == UNIT_MIB ? "%+.1f" : "%+.0f", x);
}

/* The unit as words say it: pages, KiB, MiB. */
static const char *unit_name(const struct view *v)
{
	return v->unit == UNIT_PAGES ? "pages" : v->unit == UNIT_KIB ? "KiB" : "MiB";
}

static const char *unit_word(const struct view *v)
{
	static const char *const w[UNIT__N] = { "PAGES", "KIB", "MIB" };

	return w[v->unit];
}

/* KiB of /proc/meminfo, shown in GiB or MiB. */
static void fmt_mem(char *b, size_t n, long kib)
{
	if (kib < 0)
		snprintf(b, n, "?");
	else if (kib >= 1024 * 1024)
		snprintf(b, n, "%.1f GiB", (double)kib / 1048576.0);
	else
		snprintf(b, n, "%.0f MiB", (double)kib / 1024.0);
}

/* Highlight on: bold red with colours, bold reverse without, nothing on plain lines. */
static void l_alert(const struct view *v, struct line *l)
{
	l_attr(l, v->cfg.colour ? "\033[1;31m" : "\033[1;7m");
}

static void head_line1(struct view *v, struct line *l, const struct view_facts *f)
{
	unsigned long up = f->uptime_s > 0 ? (unsigned long)f->uptime_s : 0;

	l_attr(l, "\033[1m");
	l_printf(l, "memtrace %s", MEMTRACE_VERSION);
	l_attr(l, "\033[0m");
	if (f->clock[0])
		l_printf(l, "  %.15s", f->clock);
	if (up >= 86400)
		l_printf(l, "  up %lud %02lu:%02lu:%02lu", up / 86400, up / 3600 % 24, up / 60 % 60,
			 up % 60);
	else
		l_printf(l, "  up %02lu:%02lu:%02lu", up / 3600, up / 60 % 60, up % 60);
	l_printf(l, "  %.0f ev/s  ", f->events_per_s);
	if (f->lost) {
		l_alert(v, l);
		l_printf(l, plain(v) ? "LOST %llu" : "lost %llu", (unsigned long long)f->lost);
		l_attr(l, "\033[0m");
	} else {
		l_printf(l, "lost 0");
	}
	l_text(l, "  ", 2);
	if (v->frozen) {
		l_alert(v, l);
		l_text(l, "FROZEN", 6);
		l_attr(l, "\033[0m");
	} else {
		l_text(l, "running", 7);
	}
}

/*
 * MemAvailable, and the pages tracked now beside the system peak: the pfn
 * map's pages (st->sys_cur: every page the events showed allocated since the
 * start and not freed, each once, whoever holds it: tasks, <irq>, modules'
 * own) and its most at once; how long ago when known, else when.
 */
static void head_line2(struct view *v, struct line *l, const struct stats *st,
		       const struct view_facts *f)
{
	char avail[32], total[32], now[32], peak[32];

	fmt_mem(avail, sizeof(avail), f->mem_avail_kib);
	fmt_mem(total, sizeof(total), f->mem_total_kib);
	fmt_pages(v, now, sizeof(now), st->sys_cur);
	fmt_pages(v, peak, sizeof(peak), st->sys_peak);
	l_printf(l, "MemAvailable %s of %s  tracked now %s %s, peak %s", avail, total, now,
		 unit_name(v), peak);
	if (!st->sys_peak_ts)
		return;		/* nothing tracked yet */
	if (f->sys_peak_ago_s >= 0)
		l_printf(l, " (%.0f s ago)", f->sys_peak_ago_s);
	else
		l_printf(l, " at %.1f s", f->sys_peak_s);
}

static const char *kind_name(enum view_kind k)
{
	return k == VIEW_TASKS ? "TASKS" : k == VIEW_PROCS ? "PROCESSES" : "MODULES";
}

/* The order as the status line says it, in the unit shown: "current KiB", "change per second". */
static const char *sort_words(const struct view *v)
{
	static const char *const unit[SORT_PEAK + 1][UNIT__N] = {
		{ "current pages", "current KiB", "current MiB" },
		{ "peak pages", "peak KiB", "peak MiB" },
	};
	enum view_sort s = v->sort[v->kind];

	return s <= SORT_PEAK ? unit[s][v->unit] : view_sort_name(s);
}

static void status_line(struct view *v, struct line *l)
{
	uint32_t last;

	if (v->msg[0]) {
		l_alert(v, l);
		l_text(l, v->msg, strlen(v->msg));
		l_attr(l, "\033[0m");
		return;
	}
	if (v->help) {
		l_text(l, "keys (any key closes this)", 26);
		return;
	}
	l_printf(l, "%s: %u", kind_name(v->kind), v->nrows);
	if (v->hide_exited)
		l_printf(l, " (%u %s hidden)", v->nhidden, v->kind == VIEW_MODULES ? "unloaded" :
			 "exited");
	l_printf(l, ", by %s%s", sort_words(v), v->reverse[v->kind] ? ", reversed" : "");
	if (v->cfg.batch) {
		l_printf(l, " (page = %u bytes)", v->cfg.page_size);
		return;
	}
	last = v->first + view_rows_shown(v);
	if (v->nrows)
		l_printf(l, "; rows %u-%u", v->first + 1, last);
	l_text(l, "; h: keys", 9);
}

static void column_names(struct view *v, struct line *l)
{
	const char *u = unit_word(v);
	char cur[16], peak[16], rate[16], load[16];

	snprintf(cur, sizeof(cur), "CUR_%s", u);
	snprintf(peak, sizeof(peak), "PEAK_%s", u);
	snprintf(rate, sizeof(rate), "%s/s", u);
	snprintf(load, sizeof(load), v->unit == UNIT_PAGES ? "LOAD_PEAK" : "LOAD_%s", u);
	l_attr(l, "\033[7m");
	if (v->kind == VIEW_MODULES)
		l_printf(l, "  %-24s %10s %10s %10s %10s %-8s", "NAME", cur, peak, load,
			 "STATIC_KIB", "STATE");
	else
		l_printf(l, "  %7s %7s%s %10s %10s %9s %-6s %s", "PID",
			 v->kind == VIEW_TASKS ? "TGID" : "PPID",
			 v->kind == VIEW_TASKS ? "" : " THREADS", cur, peak, rate, "STATE",
			 v->show_cmd ? "COMMAND" : "COMM");
	if (!plain(v))
		l_pad(l, l->max);	/* the bar across the screen */
}

static const char *row_state_name(const struct view *v, const struct view_row *rw)
{
	struct mt_module m;

	if (v->kind == VIEW_MODULES) {
		memset(&m, 0, sizeof(m));
		m.state = rw->state;
		return module_state_name(&m);
	}
	return rw->state == ROW_PSEUDO ? "pseudo" : rw->state == ROW_EXITED ? "exited" : "alive";
}

static bool row_dim(const struct view *v, const struct view_row *rw)
{
	if (v->kind == VIEW_MODULES)
		return rw->state == MOD_UNLOADED || rw->state == MOD_FAILED;
	return rw->state == ROW_EXITED;
}

static void row_line(struct view *v, struct line *l, const struct stats *st,
		     const struct view_row *rw, bool selected)
{
	char cur[32], peak[32], rate[32], load[32];
	const char *name;
	size_t len;

	if (selected)
		l_attr(l, "\033[1;7m");
	if (row_dim(v, rw))
		l_attr(l, "\033[2m");
	l_text(l, selected && !v->cfg.batch ? ">" : " ", 1);
	l_text(l, " ", 1);
	fmt_pages(v, cur, sizeof(cur), rw->cur);
	fmt_pages(v, peak, sizeof(peak), rw->peak);
	name = view_row_name(v, st, rw, &len);
	if (v->kind == VIEW_MODULES) {
		int at = l->vis;

		fmt_pages(v, load, sizeof(load), rw->aux);
		if (!len)
			l_text(l, "(unnamed)", 9);
		l_name(l, name, len, 24);
		l_pad(l, at + 24);
		l_printf(l, " %10s %10s %10s %10llu %-8s", cur, peak, load,
			 (unsigned long long)rw->static_kib, row_state_name(v, rw));
	} else {
		bool is_cmd;

		fmt_rate(v, rate, sizeof(rate), rw->rate);
		if (v->kind == VIEW_PROCS)
			l_printf(l, "%7d %7d %7lld %10s %10s %9s %-6s ", rw->pid, rw->ppid,
				 (long long)rw->aux, cur, peak, rate, row_state_name(v, rw));
		else
			l_printf(l, "%7d %7lld %10s %10s %9s %-6s ", rw->pid, (long long)rw->aux,
				 cur, peak, rate, row_state_name(v, rw));
		name = view_row_label(v, st, rw, &len, &is_cmd);
		if (is_cmd) {
			/* the arguments' NULs as blanks; every other byte escaped as names are */
			l_scrolled(l, name, len, v->hscroll, l->max - l->vis, true);
		} else if (v->show_cmd) {
			l_text(l, "[", 1);
			l_name(l, name, len, l->max - l->vis - 1);
			l_text(l, "]", 1);
		} else {
			l_name(l, name, len, l->max - l->vis);
		}
	}
	if (selected && !plain(v))
		l_pad(l, l->max);
}

/*
 * Enter/space: the expanded row's stacks, a tree indented under it: a line
 * for each stack (its pages; [-] open, [+] folded) and under it a line for
 * each frame, innermost first. Without --stacks the place says how to get them.
 */
static int tree_lines(struct view *v, struct line *l, int y, int y_end, bool row_sel)
{
	int k, drawn = 0, shown = view_tree_shown(v), n = view_tree_lines(v);

	for (k = v->tfirst; k < n && drawn < shown && y + drawn < y_end; k++, drawn++) {
		bool sel = row_sel && k == v->tsel;
		int f, i = view_tree_at(v, k, &f);

		line_begin(v, l, y + drawn);
		if (sel)
			l_attr(l, "\033[1;7m");
		l_text(l, sel ? ">" : " ", 1);
		if (i < 0) {
			l_printf(l, "   %s", v->stacks ? "(no stacks for this row)" :
				 "(no stacks: start memtrace --top --stacks to record them)");
		} else if (f < 0) {
			const struct stack_lines *sk = &v->stk[i];
			char cur[32], peak[32];

			fmt_pages(v, cur, sizeof(cur), sk->cur);
			fmt_pages(v, peak, sizeof(peak), sk->peak);
			l_printf(l, "   [%c] stack %d of %d: %s/%s %s (now/peak), %d frames",
				 v->stk_folded[i] ? '+' : '-', i + 1, v->nstk, cur, peak, unit_name(v),
				 sk->nframes);
		} else {
			const char *fr = v->stk[i].frame[f];

			l_text(l, "       ", 7);
			l_scrolled(l, fr, strnlen(fr, VIEW_FRAME_LEN), v->hscroll, l->max - l->vis,
				   false);
		}
		if (sel && !plain(v))
			l_pad(l, l->max);
		line_end(v, l);
	}
	return drawn;
}

/* The expanded row's stacks, again each frame (the folded ones stay folded). */
static void fetch_stacks(struct view *v)
{
	uint32_t id[VIEW_STACKS_MAX];
	bool folded[VIEW_STACKS_MAX];
	int i, j, n, had = v->nstk;

	if (!v->expanded || !v->stacks || v->frozen)
		return;
	for (i = 0; i < had && i < VIEW_STACKS_MAX; i++) {
		id[i] = v->stk[i].id;
		folded[i] = v->stk_folded[i];
	}
	n = v->stacks(v->stacks_ctx, v->exp_kind, v->exp_idx, v->stk, VIEW_STACKS_MAX);
	if (n < 0) {
		v->expanded = false;
		v->nstk = 0;
		snprintf(v->msg, sizeof(v->msg), "no stacks: run with --stacks");
		return;
	}
	v->nstk = n > VIEW_STACKS_MAX ? VIEW_STACKS_MAX : n;
	for (i = 0; i < v->nstk; i++) {
		v->stk_folded[i] = false;
		if (v->stk[i].nframes > VIEW_FRAMES_MAX)
			v->stk[i].nframes = VIEW_FRAMES_MAX;
		for (j = 0; j < had && j < VIEW_STACKS_MAX; j++)
			if (id[j] == v->stk[i].id)
				v->stk_folded[i] = folded[j];
	}
}

static const char *const help_text[] = {
	"t  tasks            p  processes (threads summed)    m  modules",
	"s  next order: current, peak, change, pid, name      r  reverse it",
	"   (each view keeps its own order and direction)",
	"Up/Down, PgUp/PgDn, Home/End   select and scroll",
	"Enter, space   the row's top stacks as a tree (--stacks); on a stack: fold it",
	"Left/Right     scroll the stacks' frames and the command lines sideways",
	"x  hide the exited rows (unloaded modules), every order; the count is said",
	"c  command lines for names ([name]: none read, exited first or a kernel thread)",
	"u  units: pages, KiB, MiB",
	"f  freeze the screen (tracing goes on)",
	"h, ?  these keys      q  quit (the final report goes to the log file)",
	"",
	"Dimmed rows have exited; in the current order one that exited lately keeps",
	"the place its peak gives it for a while.",
};

/*
 * No module rows: why, not an empty screen. The view lists the modules the
 * events showed; those loaded before the start are in the report only.
 */
static void empty_modules(struct line *l, const struct view_facts *f)
{
	static const char none[] = "  (no module events: this kernel has no module support)";
	static const char not_yet[] = "  (no module loaded since the start; earlier ones are in "
				      "the report)";

	if (f->no_module_events)
		l_text(l, none, sizeof(none) - 1);
	else
		l_text(l, not_yet, sizeof(not_yet) - 1);
}

void frame_render(struct view *v, const struct stats *st, const struct view_facts *f)
{
	int y = 0, lines = v->cfg.batch ? INT32_MAX : plain(v) ? v->lines - 1 : v->lines;
	struct line l;
	uint32_t i, end;

	v->frame_len = 0;
	if (lines < 1)
		lines = 1;
	fetch_stacks(v);
	view_keep_visible(v);
	if (v->tsel >= view_tree_lines(v))
		v->tsel = view_tree_lines(v) - 1;	/* the tree got shorter */
	if (v->tfirst > view_tree_lines(v) - view_tree_shown(v))
		v->tfirst = view_tree_lines(v) - view_tree_shown(v);
	if (v->tfirst < 0)
		v->tfirst = 0;
	line_begin(v, &l, y++);
	head_line1(v, &l, f);
	line_end(v, &l);
	if (y < lines) {
		line_begin(v, &l, y++);
		head_line2(v, &l, st, f);
		line_end(v, &l);
	}
	if (y < lines) {
		line_begin(v, &l, y++);
		status_line(v, &l);
		line_end(v, &l);
	}
	if (y < lines && !v->help) {
		line_begin(v, &l, y++);
		column_names(v, &l);
		line_end(v, &l);
	}
	if (v->help) {
		for (i = 0; i < sizeof(help_text) / sizeof(help_text[0]) && y < lines; i++) {
			line_begin(v, &l, y++);
			l_text(&l, "  ", 2);
			l_text(&l, help_text[i], strlen(help_text[i]));
			line_end(v, &l);
		}
	} else {
		end = v->cfg.batch ? (v->cfg.batch_rows && v->cfg.batch_rows < v->nrows ?
				      v->cfg.batch_rows : v->nrows) : v->nrows;
		for (i = v->cfg.batch ? 0 : v->first; i < end && y < lines; i++) {
			const struct view_row *rw = &v->row[v->order[i]];
			bool sel = !v->cfg.batch && i == v->sel;

			line_begin(v, &l, y++);
			row_line(v, &l, st, rw, sel && v->tsel < 0);
			line_end(v, &l);
			if (v->expanded && v->exp_kind == v->kind && rw->idx == v->exp_idx &&
			    rw->serial == v->exp_serial)
				y += tree_lines(v, &l, y, lines, sel);
		}
		if (v->kind == VIEW_MODULES && !v->nrows && y < lines) {
			line_begin(v, &l, y++);
			empty_modules(&l, f);
			line_end(v, &l);
		}
	}
	if (v->cfg.batch) {
		line_begin(v, &l, y++);
		line_end(v, &l);	/* an empty line between frames */
		return;
	}
	/* the rest of the screen: cleared lines (ANSI), empty ones (plain) */
	while (y < lines) {
		line_begin(v, &l, y++);
		line_end(v, &l);
	}
}
