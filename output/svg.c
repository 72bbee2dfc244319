// SPDX-License-Identifier: GPL-2.0-only
/*
 * svg.c - --svg FILE: memory over time as one self-contained SVG
 *
 * No scripts, no external fonts, links or images: a generic font family, and
 * <title> elements for what a pointer shows. The system's traced pages as a
 * filled area, the top SVG_LINES processes and modules of the report (the same
 * selection code: rows_processes(), rows_modules()) as lines, each one's peak
 * marked at its time with the report's value, OOM kills, module loads and lost
 * events on the time axis, a legend. Colours and dash patterns both differ, so
 * that a grey print tells the lines apart. A line is broken where its entity
 * was not among the SERIES_K the sample kept: never drawn as 0.
 */
#include "output/svg.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/escape.h"
#include "output/logfile.h"
#include "output/rows.h"
#include "lib/util.h"

#define H_TOP		64	/* the plot's top */
#define H_PLOT		440	/* the plot's height */
#define X_LEFT		90
#define X_RIGHT		(SVG_WIDTH - 30)
#define Y_BOTTOM	(H_TOP + H_PLOT)
#define MARK_BAND	36	/* below the axis: module loads, OOM kills, lost events */
#define LEGEND_ROW	18

static const char *const colours[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
};
static const char *const dashes[] = {
	"none", "8,4", "2,3", "12,3,2,3", "6,6", "1,2", "10,2,2,2,2,2", "4,2,8,2",
};

void svg_escape(struct out *o, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		char e[4];

		switch (c) {
		case '&': out_puts(o, "&amp;"); break;
		case '<': out_puts(o, "&lt;"); break;
		case '>': out_puts(o, "&gt;"); break;
		case '"': out_puts(o, "&quot;"); break;
		case '\'': out_puts(o, "&#39;"); break;
		default:
			out_write(o, e, escape_text_char(c, e));
		}
	}
}

/* One line of the picture: a process or a module of the report's rows. */
struct line {
	uint32_t id, gen;
	const char *name;
	size_t len;
	int32_t pid;		/* processes; -1 for a module */
	int64_t peak;
	uint64_t peak_ts;
};

/* A peak's label, placed before anything is drawn so that no two overlap. */
struct label {
	bool on;		/* a label to draw */
	int size;		/* font size, px */
	double px, py;		/* the peak's point */
	double x, y;		/* the text's anchor (its baseline) */
	double w;		/* its width, estimated: 0.6 em a character */
	bool end;		/* anchored at its end: left of the point (near the right edge) */
};

struct pic {
	const struct run *r;
	const struct series *se;
	uint64_t t0, span;	/* the first event's time stamp; ns shown */
	double ymax;		/* pages at the top of the plot */
	struct line lines[2 * SVG_LINES];
	uint32_t nlines;
	struct label labels[2 * SVG_LINES + 1];	/* [0] the system peak's, [1 + k] line k's */
};

static double px_x(const struct pic *p, uint64_t ts)
{
	double t = ts > p->t0 ? (double)(ts - p->t0) : 0;

	return X_LEFT + t / (double)p->span * (X_RIGHT - X_LEFT);
}

static double px_y(const struct pic *p, int64_t pages)
{
	return Y_BOTTOM - (double)(pages < 0 ? 0 : pages) / p->ymax * H_PLOT;
}

/* A step of 1, 2 or 5 times a power of ten giving at most @most steps over @range. */
static double nice_step(double range, int most)
{
	double step = 1;

	while (range / step > most)
		step *= 10;
	while (step >= 10 && range / (step / 10) <= most)
		step /= 10;
	if (range / (step / 5) <= most)
		return step / 5;
	if (range / (step / 2) <= most)
		return step / 2;
	return step;
}

static void axes(struct out *o, const struct pic *p)
{
	const struct run *r = p->r;
	double bytes = p->ymax * r->meta.page_size, unit, step, secs_span;
	int k;
	const char *uname_s;

	if (bytes >= 4.0 * 1024 * 1024) {
		unit = 1024.0 * 1024;
		uname_s = "MiB";
	} else {
		unit = 1024.0;
		uname_s = "KiB";
	}
	step = nice_step(bytes / unit, 8);
	out_puts(o, "<g class=\"axes\" font-size=\"12\" fill=\"#333\">\n");
	for (k = 0; k * step <= bytes / unit + 1e-9; k++) {
		double v = k * step, y = Y_BOTTOM - v * unit / bytes * H_PLOT;

		out_printf(o, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g %s</text>\n", X_LEFT, y,
			   X_RIGHT, y, X_LEFT - 6, y + 4, v, uname_s);
	}
	secs_span = (double)p->span / 1e9;
	step = nice_step(secs_span, 12);
	for (k = 0; k * step <= secs_span + 1e-9; k++) {
		double t = k * step, x = X_LEFT + t / secs_span * (X_RIGHT - X_LEFT);

		out_printf(o, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
			   "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n", x, H_TOP,
			   x, Y_BOTTOM, x, Y_BOTTOM + MARK_BAND + 16, t);
	}
	out_printf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">seconds since the trace's "
		   "first event</text>\n", (X_LEFT + X_RIGHT) / 2, Y_BOTTOM + MARK_BAND + 34);
	out_printf(o, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
		   "stroke=\"#333\"/>\n</g>\n", X_LEFT, H_TOP, X_RIGHT - X_LEFT, H_PLOT);
}

static bool labels_overlap(const struct label *a, const struct label *b)
{
	double ax = a->end ? a->x - a->w : a->x, bx = b->end ? b->x - b->w : b->x;

	return ax < bx + b->w && bx < ax + a->w && a->y - a->size < b->y + 2 &&
	       b->y - b->size < a->y + 2;
}

/*
 * Label @i of @text (its characters, for the width) at its peak: beside the point
 * (to the left near the right edge, so that it stays inside), else the nearest
 * row above or below, within the plot, that overlaps no label placed before it;
 * where none is free, beside the point after all.
 */
static void place_label(struct pic *p, uint32_t i, double px, double py, int size,
			size_t chars)
{
	struct label *l = &p->labels[i];
	int step, k;
	uint32_t j;

	*l = (struct label){ .on = true, .size = size, .px = px, .py = py,
			     .w = 0.6 * size * (double)chars, .end = px > X_RIGHT - 150 };
	l->x = l->end ? px - 6 : px + 6;
	for (step = 0; step <= 24; step++) {
		k = step % 2 ? -(step + 1) / 2 : step / 2;	/* 0, -1, 1, -2, 2, ...: rows up first */
		l->y = py - 5 + k * (size + 3);
		if (l->y - size < H_TOP || l->y > Y_BOTTOM - 2)
			continue;
		for (j = 0; j < i && !(p->labels[j].on && labels_overlap(l, &p->labels[j])); j++)
			;
		if (j == i)
			return;
	}
	l->y = py - 5;
}

/* A placed label's text element (opened: the caller writes the text and closes it); a
 * thin leader from the point where it was moved off it. */
static void label_at(struct out *o, const struct label *l)
{
	double moved = l->y - (l->py - 5);

	if (moved > 0.5 || moved < -0.5)
		out_printf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			   "stroke=\"#999\" stroke-width=\"0.8\"/>", l->px, l->py, l->x,
			   l->y - l->size / 3.0);
	out_printf(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" fill=\"#222\"%s>", l->x,
		   l->y, l->size, l->end ? " text-anchor=\"end\"" : "");
}

/* The system's traced pages: the samples, and the report's system peak where it was. */
static void system_area(struct out *o, const struct pic *p)
{
	const struct series *se = p->se;
	const struct stats *st = &p->r->st;
	bool peak_done = st->sys_peak <= 0;
	uint32_t i;

	out_printf(o, "<path class=\"system\" fill=\"#c6dbef\" fill-opacity=\"0.7\" "
		   "stroke=\"#4a6f8f\" stroke-width=\"1\" d=\"M%.1f %d", px_x(p, p->t0), Y_BOTTOM);
	for (i = 0; i < se->n; i++) {
		if (!peak_done && st->sys_peak_ts <= se->s[i].ts) {
			out_printf(o, " L%.1f %.1f", px_x(p, st->sys_peak_ts), px_y(p, st->sys_peak));
			peak_done = true;
		}
		out_printf(o, " L%.1f %.1f", px_x(p, se->s[i].ts), px_y(p, se->s[i].sys));
	}
	if (!peak_done)
		out_printf(o, " L%.1f %.1f", px_x(p, st->sys_peak_ts), px_y(p, st->sys_peak));
	out_printf(o, " L%.1f %d Z\"><title>system: traced pages</title></path>\n",
		   i ? px_x(p, se->s[i - 1].ts > st->sys_peak_ts ? se->s[i - 1].ts :
			    st->sys_peak_ts) : px_x(p, p->t0), Y_BOTTOM);
	if (st->sys_peak > 0) {
		out_printf(o, "<g class=\"peak\" data-row=\"system\" data-peak-pages=\"%lld\">"
			   "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#4a6f8f\"/>",
			   (long long)st->sys_peak, px_x(p, st->sys_peak_ts), px_y(p, st->sys_peak));
		label_at(o, &p->labels[0]);
		out_printf(o, "system peak %llu KiB</text></g>\n",
			   (unsigned long long)kib(p->r, st->sys_peak));
	}
}

static void line_name(struct out *o, const struct line *l)
{
	if (l->pid >= 0)
		out_printf(o, "pid %d ", l->pid);
	else
		out_puts(o, "module ");
	svg_escape(o, l->name, l->len);
}

/* One entity: its segments where the samples kept it, its peak point among them. */
static void draw_line(struct out *o, const struct pic *p, uint32_t k)
{
	const struct line *l = &p->lines[k];
	const struct series *se = p->se;
	bool peak_done = false, open = false;
	uint32_t i;

	out_printf(o, "<path class=\"line\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
		   "stroke-dasharray=\"%s\" d=\"", colours[k % 8], dashes[(k + k / 8) % 8]);
	for (i = 0; i < se->n; i++) {
		int64_t v = series_pages(&se->s[i], l->id, l->gen);

		if (!peak_done && l->peak_ts <= se->s[i].ts) {
			out_printf(o, "%s%.1f %.1f", open ? " L" : " M", px_x(p, l->peak_ts),
				   px_y(p, l->peak));
			peak_done = open = true;
		}
		if (v < 0) {
			open = false;	/* not among those kept: a break, not a 0 */
			continue;
		}
		out_printf(o, "%s%.1f %.1f", open ? " L" : " M", px_x(p, se->s[i].ts), px_y(p, v));
		open = true;
	}
	if (!peak_done)
		out_printf(o, "%s%.1f %.1f", open ? " L" : " M", px_x(p, l->peak_ts), px_y(p, l->peak));
	out_puts(o, "\"><title>");
	line_name(o, l);
	out_puts(o, "</title></path>\n");
	out_printf(o, "<g class=\"peak\" data-row=\"%s\" data-peak-pages=\"%lld\" ",
		   l->pid >= 0 ? "process" : "module", (long long)l->peak);
	if (l->pid >= 0)
		out_printf(o, "data-pid=\"%d\" ", l->pid);
	out_puts(o, "data-name=\"");
	svg_escape(o, l->name, l->len);
	out_printf(o, "\"><circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>",
		   px_x(p, l->peak_ts), px_y(p, l->peak), colours[k % 8]);
	label_at(o, &p->labels[1 + k]);
	out_printf(o, "%llu KiB</text></g>\n", (unsigned long long)kib(p->r, l->peak));
}

static void marks(struct out *o, const struct pic *p)
{
	const struct series *se = p->se;
	uint32_t i;

	out_puts(o, "<g class=\"marks\" font-size=\"11\">\n");
	for (i = 0; i < se->mods.n; i++) {
		const struct series_mark *m = &se->mods.m[i];
		double x = px_x(p, m->ts);

		out_printf(o, "<line class=\"modload\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			   "stroke=\"#555\"><title>module load %.3f s: ", x, Y_BOTTOM + 2, x,
			   Y_BOTTOM + 12, secs(m->ts - p->t0));
		svg_escape(o, m->name, m->len);
		out_puts(o, "</title></line>\n");
	}
	for (i = 0; i < se->oom.n; i++) {
		const struct series_mark *m = &se->oom.m[i];
		double x = px_x(p, m->ts);

		out_printf(o, "<g class=\"oom\"><line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			   "stroke=\"#b00\" stroke-width=\"1.5\" stroke-dasharray=\"3,2\"/>"
			   "<path d=\"M%.1f %d l-5 9 h10 Z\" fill=\"#b00\"/><text x=\"%.1f\" y=\"%d\" "
			   "fill=\"#b00\">OOM kill pid %d ", x, H_TOP, x, Y_BOTTOM, x, Y_BOTTOM + 13,
			   x + 6, Y_BOTTOM + 22, m->pid);
		svg_escape(o, m->name, m->len);
		out_puts(o, "</text></g>\n");
	}
	for (i = 0; i < se->lost.n; i++) {
		const struct series_mark *m = &se->lost.m[i];
		double x = px_x(p, m->ts);

		out_printf(o, "<g class=\"lost\" data-lost=\"%llu\"><path d=\"M%.1f %d l-5 -9 h10 Z\" "
			   "fill=\"#e08000\" stroke=\"#000\" stroke-width=\"0.5\"/><text x=\"%.1f\" "
			   "y=\"%d\" fill=\"#a05000\">%llu lost</text></g>\n",
			   (unsigned long long)m->n, x, Y_BOTTOM + MARK_BAND - 1, x + 6,
			   Y_BOTTOM + MARK_BAND - 2, (unsigned long long)m->n);
	}
	out_puts(o, "</g>\n");
}

static void legend(struct out *o, const struct pic *p, int y0)
{
	uint32_t k;
	int half = (int)(p->nlines + 2) / 2;

	out_printf(o, "<g class=\"legend\" font-size=\"12\" fill=\"#222\">\n"
		   "<rect x=\"%d\" y=\"%d\" width=\"26\" height=\"10\" fill=\"#c6dbef\" "
		   "stroke=\"#4a6f8f\"/><text x=\"%d\" y=\"%d\">system: all traced pages</text>\n",
		   X_LEFT, y0 - 9, X_LEFT + 34, y0);
	for (k = 0; k < p->nlines; k++) {
		int col = (int)(k + 1) / half, row = (int)(k + 1) % half;
		int x = X_LEFT + col * 580, y = y0 + row * LEGEND_ROW;

		out_printf(o, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
			   "stroke-width=\"2\" stroke-dasharray=\"%s\"/><text x=\"%d\" y=\"%d\">", x,
			   y - 4, x + 26, y - 4, colours[k % 8], dashes[(k + k / 8) % 8], x + 34, y);
		line_name(o, &p->lines[k]);
		out_printf(o, ": peak %lld pages (%llu KiB) at %.3f s</text>\n",
			   (long long)p->lines[k].peak, (unsigned long long)kib(p->r, p->lines[k].peak),
			   secs(p->lines[k].peak_ts - (p->lines[k].peak_ts > p->t0 ? p->t0 :
						       p->lines[k].peak_ts)));
	}
	out_puts(o, "</g>\n");
}

/* The report's rows: processes (a command's tree only, as its report), then modules. */
static void pick_lines(struct pic *p, struct report_scratch *rs)
{
	const struct run *r = p->r;
	const struct table *tb = &r->st.tb;
	uint32_t n, i, most = SVG_LINES;

	if (r->opt.rows && r->opt.rows < most)
		most = r->opt.rows;
	n = rows_processes(r, rs, r->opt.command != NULL);
	for (i = 0; i < n && i < most; i++) {
		const struct mt_task *t = &tb->tasks[rs->order[i]];
		struct line *l = &p->lines[p->nlines++];

		l->id = rs->order[i];
		l->gen = t->gen;
		l->name = t->comm;
		l->len = (t->flags & TF_COMM_KNOWN) || t->comm_len ? t->comm_len : 0;
		l->pid = pid_of(t);
		l->peak = t->ppeak;
		l->peak_ts = t->ppeak_ts;
	}
	if (r->opt.command)
		return;		/* its report lists no modules */
	n = rows_modules(r, rs);
	for (i = 0; i < n && i < most; i++) {
		const struct mt_module *m = rows_mod_at(r, rs->mod_order[i]);
		struct line *l;

		if (rs->mod_order[i] >= tb->nmods || m->all_peak <= 0)
			break;	/* sorted by peak: the rest took no pages */
		l = &p->lines[p->nlines++];
		l->id = SERIES_MOD | rs->mod_order[i];
		l->gen = 0;
		l->name = m->name;
		l->len = strnlen(m->name, sizeof(m->name));
		l->pid = -1;
		l->peak = m->all_peak;
		l->peak_ts = m->all_peak_ts;
	}
}

void svg_render(struct out *o, const struct run *r, struct report_scratch *rs,
		const struct series *se, const char *title)
{
	struct pic p = { .r = r, .se = se };
	uint64_t end;
	uint32_t i;
	int64_t top;
	int legend_y, height;

	pick_lines(&p, rs);
	p.t0 = r->st.first_ts;
	if (se->n && (!p.t0 || se->s[0].ts < p.t0))
		p.t0 = se->s[0].ts;
	end = r->st.last_ts;
	if (se->n && se->s[se->n - 1].ts > end)
		end = se->s[se->n - 1].ts;
	p.span = end > p.t0 + 1000000 ? end - p.t0 : 1000000;
	top = r->st.sys_peak;
	for (i = 0; i < se->n; i++)
		if (se->s[i].sys > top)
			top = se->s[i].sys;
	for (i = 0; i < p.nlines; i++)
		if (p.lines[i].peak > top)
			top = p.lines[i].peak;
	p.ymax = top > 0 ? (double)top * 1.08 : 1;
	/* the labels' places: the system peak's first, then the lines' in the report's order */
	if (r->st.sys_peak > 0)
		place_label(&p, 0, px_x(&p, r->st.sys_peak_ts), px_y(&p, r->st.sys_peak), 12,
			    (size_t)snprintf(NULL, 0, "system peak %llu KiB",
					     (unsigned long long)kib(r, r->st.sys_peak)));
	for (i = 0; i < p.nlines; i++)
		place_label(&p, 1 + i, px_x(&p, p.lines[i].peak_ts), px_y(&p, p.lines[i].peak), 11,
			    (size_t)snprintf(NULL, 0, "%llu KiB",
					     (unsigned long long)kib(r, p.lines[i].peak)));
	legend_y = Y_BOTTOM + MARK_BAND + 64;
	height = legend_y + ((int)(p.nlines + 2) / 2) * LEGEND_ROW + 64;

	out_printf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
		   "<text class=\"title\" x=\"%d\" y=\"26\" font-size=\"17\" font-weight=\"bold\">"
		   "memtrace %s: ", SVG_WIDTH, height, SVG_WIDTH, height, X_LEFT, MEMTRACE_VERSION);
	svg_escape(o, title, strlen(title));
	out_printf(o, "</text>\n<text x=\"%d\" y=\"46\" font-size=\"12\" fill=\"#444\">traced "
		   "pages over time, page = %u bytes; system peak %lld pages (%llu KiB); %llu "
		   "events lost; %u OOM kills</text>\n", X_LEFT, r->meta.page_size,
		   (long long)r->st.sys_peak, (unsigned long long)kib(r, r->st.sys_peak),
		   (unsigned long long)reader_lost(&r->rd), (unsigned)r->st.oom_count);
	axes(o, &p);
	system_area(o, &p);
	for (i = 0; i < p.nlines; i++)
		draw_line(o, &p, i);
	marks(o, &p);
	legend(o, &p, legend_y);
	out_printf(o, "<text class=\"note\" x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#444\">"
		   "Lines: the report's top %u processes and modules by peak; each peak marked "
		   "where and as the report has it. A line is broken where that one was not among "
		   "the %d largest kept at a sample (never 0).</text>\n", X_LEFT, height - 36,
		   p.nlines, SERIES_K);
	out_printf(o, "<text class=\"note\" x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#444\">"
		   "%u samples, one per %.0f ms at the end (each the maximum over its span); ticks "
		   "below the axis: %u module loads%s; triangles: OOM kills (red), lost events "
		   "(orange)%s.</text>\n</svg>\n", X_LEFT, height - 18, se->n,
		   (double)se->interval / 1e6, se->mods.n, se->mods.overflow ? " (more not shown)" : "",
		   se->oom.overflow || se->lost.overflow ? ", more not shown" : "");
}

struct svg_ctx {
	const struct run *r;
	struct report_scratch *rs;
	const char *title;
};

static void gen(struct out *o, void *ctx)
{
	const struct svg_ctx *c = ctx;

	svg_render(o, c->r, c->rs, c->r->series, c->title);
}

/* The title: kernel, host and start time (the report's, those known), a replay's recording. */
static void title_of(const struct run *r, char *buf, size_t size)
{
	const struct meta *m = &r->meta;
	const char *what[3] = { "kernel", "host", "started" }, *sep = "";
	char when[32];
	const char *val[3] = { m->kernel, m->host, when };
	size_t n = 0;
	int i, k;

	meta_when(m, false, when);
	buf[0] = '\0';
	if (r->opt.replay_dir) {
		k = snprintf(buf, size, "replay of %s", r->opt.replay_dir);
		n = k < 0 ? 0 : (size_t)k;
		sep = ": ";
	}
	for (i = 0; i < 3 && n < size; i++) {
		if (!val[i][0])
			continue;
		k = snprintf(buf + n, size - n, "%s%s %s", sep, what[i], val[i]);
		if (k < 0)
			break;
		n += (size_t)k;
		sep = ", ";
	}
}

int svg_write(struct run *r, const char *path)
{
	char title[512], err[PATH_MAX + 128];
	struct svg_ctx c = { .r = r, .rs = &r->rs, .title = title };
	int res;

	series_final(r->series, &r->st, r->st.last_ts, reader_lost(&r->rd));
	title_of(r, title, sizeof(title));
	res = logfile_replace(path, 0644, true, gen, &c, err, sizeof(err));
	if (res)
		mt_warn("--svg %s: %s", path, err);
	return res;
}
