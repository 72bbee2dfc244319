// SPDX-License-Identifier: GPL-2.0-only
/* ui/view.c - the live view's screen model: the rows of a view, sorted and scrolled, and its keys (pure) */
#include "ui/view.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/rows.h"
#include "ui/term.h"

#define VIEW_ALIVE	0x80000000u	/* in v->thr[slot]: one of the process's threads is alive */

static bool on_expanded(const struct view *v);

/* ---------------------------------------------------------------- setup */

int view_init(struct view *v, const struct view_config *cfg)
{
	uint32_t nrows = cfg->max_tasks > cfg->max_modules ? cfg->max_tasks : cfg->max_modules;
	size_t lines, width;
	int i;

	memset(v, 0, sizeof(*v));
	v->cfg = *cfg;
	for (i = 0; i < VIEW__N; i++)
		v->sort[i] = SORT_CUR;
	v->lines = 24;
	v->cols = 80;
	if (cfg->batch) {
		lines = VIEW_HEAD_LINES + 2 + (cfg->batch_rows && cfg->batch_rows < nrows ?
					       cfg->batch_rows : nrows);
		width = VIEW_BATCH_COLS + VIEW_LINE_EXTRA;
	} else {
		lines = VIEW_MAX_LINES;
		width = VIEW_MAX_COLS + VIEW_LINE_EXTRA;
	}
	v->frame_cap = lines * width;
	v->row = calloc(nrows, sizeof(*v->row));
	v->order = calloc(nrows, sizeof(*v->order));
	v->thr = calloc(cfg->max_tasks, sizeof(*v->thr));
	v->prev_cur = calloc(cfg->max_tasks, sizeof(*v->prev_cur));
	v->prev_pcur = calloc(cfg->max_tasks, sizeof(*v->prev_pcur));
	v->prev_serial = calloc(cfg->max_tasks, sizeof(*v->prev_serial));
	v->prev_mcur = calloc(cfg->max_modules, sizeof(*v->prev_mcur));
	v->stk = calloc(VIEW_STACKS_MAX, sizeof(*v->stk));
	v->stk_folded = calloc(VIEW_STACKS_MAX, sizeof(*v->stk_folded));
	/* touched only for the processes c shows: the rest never resident */
	v->cmd = calloc(cfg->max_tasks, sizeof(*v->cmd));
	v->cmd_len = calloc(cfg->max_tasks, sizeof(*v->cmd_len));
	v->cmd_serial = calloc(cfg->max_tasks, sizeof(*v->cmd_serial));
	v->tsel = -1;
	v->frame = malloc(v->frame_cap);
	if (!v->row || !v->order || !v->thr || !v->prev_cur || !v->prev_pcur ||
	    !v->prev_serial || !v->prev_mcur || !v->stk || !v->stk_folded || !v->cmd || !v->cmd_len || !v->cmd_serial || !v->frame) {
		view_free(v);
		return -ENOMEM;
	}
	return 0;
}

void view_free(struct view *v)
{
	free(v->row);
	free(v->order);
	free(v->thr);
	free(v->prev_cur);
	free(v->prev_pcur);
	free(v->prev_serial);
	free(v->prev_mcur);
	free(v->stk);
	free(v->stk_folded);
	free(v->cmd);
	free(v->cmd_len);
	free(v->cmd_serial);
	free(v->frame);
	memset(v, 0, sizeof(*v));
}

void view_resize(struct view *v, int lines, int cols)
{
	v->lines = lines < 1 ? 1 : lines > VIEW_MAX_LINES ? VIEW_MAX_LINES : lines;
	v->cols = cols < 1 ? 1 : cols > VIEW_MAX_COLS ? VIEW_MAX_COLS : cols;
	v->first = 0;	/* shown again from the selection (see view_keep_visible()) */
}

const char *view_sort_name(enum view_sort s)
{
	static const char *const names[SORT__N] = { "current pages", "peak pages", "change per second",
							"pid", "name" };

	return s < SORT__N ? names[s] : "?";
}

/* ---------------------------------------------------------------- rows and order */

const char *view_row_name(const struct view *v, const struct stats *st,
			  const struct view_row *rw, size_t *len)
{
	const struct mt_task *t;

	if (v->kind == VIEW_MODULES) {
		const char *n = st->tb.mods[rw->idx].name;

		*len = strnlen(n, MODNAME_LEN);
		return n;
	}
	t = &st->tb.tasks[rw->idx];
	if (t->serial != rw->serial) {
		*len = 6;
		return "(gone)";	/* frozen, and its slot was taken since */
	}
	if (!(t->flags & TF_COMM_KNOWN)) {
		*len = 1;
		return "?";
	}
	*len = t->comm_len;
	return t->comm;
}

bool view_cmd_wanted(const struct view *v, uint32_t slot, uint32_t serial)
{
	return v->show_cmd && slot < v->cfg.max_tasks && v->cmd_serial[slot] != serial;
}

void view_set_cmd(struct view *v, uint32_t slot, uint32_t serial, const char *raw, size_t n)
{
	if (slot >= v->cfg.max_tasks)
		return;
	if (n > VIEW_CMD_LEN)
		n = VIEW_CMD_LEN;
	while (n && !raw[n - 1])
		n--;		/* the last argument's NUL */
	memcpy(v->cmd[slot], raw, n);
	v->cmd_len[slot] = (uint16_t)n;
	v->cmd_serial[slot] = serial;
}

const char *view_row_label(const struct view *v, const struct stats *st,
			   const struct view_row *rw, size_t *len, bool *is_cmd)
{
	*is_cmd = false;
	if (v->show_cmd && v->kind != VIEW_MODULES) {
		const struct mt_task *t = &st->tb.tasks[rw->idx];
		uint32_t p = t->serial == rw->serial ?
			     (uint32_t)(stats_process_of(st, t) - st->tb.tasks) : UINT32_MAX;

		if (p < v->cfg.max_tasks && v->cmd_serial[p] &&
		    v->cmd_serial[p] == st->tb.tasks[p].serial && v->cmd_len[p]) {
			*is_cmd = true;
			*len = v->cmd_len[p];
			return v->cmd[p];
		}
	}
	return view_row_name(v, st, rw, len);
}

struct sort_ctx {
	const struct view *v;
	const struct stats *st;
	bool by_name;
};

/*
 * Bytes @from.. of a name as a sort key: a name that sorts first (memcmp) has
 * the larger key, so that every order is "larger key first".
 */
static int64_t name_key(const char *s, size_t len, size_t from)
{
	uint64_t p = 0;
	size_t i;

	for (i = 0; i < 8; i++)
		p = p << 8 | (from + i < len ? (unsigned char)s[from + i] : 0);
	return (int64_t)(~p ^ (1ull << 63));
}

static int cmp_rows(const void *a, const void *b, void *p)
{
	const struct sort_ctx *c = p;
	const struct view_row *x = &c->v->row[*(const uint32_t *)a];
	const struct view_row *y = &c->v->row[*(const uint32_t *)b];
	int r = 0;

	if (x->key != y->key)
		r = x->key > y->key ? -1 : 1;
	else if (x->key2 != y->key2)
		r = x->key2 > y->key2 ? -1 : 1;
	if (!r && c->by_name) {	/* the first 16 bytes are equal: the rest (modules) */
		size_t lx, ly;
		const char *nx = view_row_name(c->v, c->st, x, &lx);
		const char *ny = view_row_name(c->v, c->st, y, &ly);

		r = memcmp(nx, ny, lx < ly ? lx : ly);
		if (!r && lx != ly)
			r = lx < ly ? -1 : 1;
	}
	if (!r && x->pid != y->pid)
		r = x->pid < y->pid ? -1 : 1;
	if (!r && x->idx != y->idx)
		r = x->idx < y->idx ? -1 : 1;
	return c->v->reverse[c->v->kind] ? -r : r;
}

/* Sort orders that mean something in a view: modules have no pid and no change column. */
static bool sort_valid(enum view_kind k, enum view_sort s)
{
	return k != VIEW_MODULES || s == SORT_CUR || s == SORT_PEAK || s == SORT_NAME;
}

void view_keep_visible(struct view *v)
{
	uint32_t vis = view_visible(v);

	if (!vis || !v->nrows) {
		v->first = 0;
		return;
	}
	if (v->sel < v->first)
		v->first = v->sel;
	if (v->sel >= v->first + vis)
		v->first = v->sel - vis + 1;
	if (v->nrows > vis && v->first > v->nrows - vis)
		v->first = v->nrows - vis;
	if (v->nrows <= vis)
		v->first = 0;
}

static void remember_selection(struct view *v)
{
	if (!v->nrows) {
		v->sel = 0;
		v->sel_idx = v->sel_serial = 0;
		return;
	}
	if (v->sel >= v->nrows)
		v->sel = v->nrows - 1;
	v->sel_idx = v->row[v->order[v->sel]].idx;
	v->sel_serial = v->row[v->order[v->sel]].serial;
}

/*
 * The selection stays on its task (module) wherever the order moves it; on
 * the first row it stays on the first row, whoever that is.
 */
static void find_selection(struct view *v)
{
	uint32_t i;

	if (v->sel) {
		for (i = 0; i < v->nrows; i++) {
			const struct view_row *rw = &v->row[v->order[i]];

			if (rw->idx == v->sel_idx && rw->serial == v->sel_serial) {
				v->sel = i;
				break;
			}
		}
	}
	remember_selection(v);
	if (!on_expanded(v))
		v->tsel = -1;	/* the tree's selection only under its own row */
	view_keep_visible(v);
}

void view_sort(struct view *v, const struct stats *st)
{
	struct sort_ctx c = { v, st, v->sort[v->kind] == SORT_NAME };
	enum view_sort s = v->sort[v->kind];
	uint32_t i;

	for (i = 0; i < v->nrows; i++) {
		struct view_row *rw = &v->row[i];

		v->order[i] = i;
		switch (s) {
		case SORT_CUR:
			/* a task that exited lately keeps the place its peak gives it */
			rw->key = rw->recent ? rw->peak : rw->cur;
			rw->key2 = rw->peak;
			break;
		case SORT_PEAK:
			rw->key = rw->peak;
			rw->key2 = rw->cur;
			break;
		case SORT_CHANGE:
			rw->key = (int64_t)(rw->rate < 0 ? rw->rate - 0.5 : rw->rate + 0.5);
			rw->key2 = rw->cur;
			break;
		case SORT_PID:
			rw->key = -(int64_t)rw->pid;
			rw->key2 = 0;
			break;
		default: {
			size_t len;
			const char *n = view_row_name(v, st, rw, &len);

			rw->key = name_key(n, len, 0);
			rw->key2 = name_key(n, len, 8);
		}
		}
	}
	qsort_r(v->order, v->nrows, sizeof(*v->order), cmp_rows, &c);
	find_selection(v);
}

static bool recent(const struct view *v, uint64_t exit_ts, uint64_t now_ns)
{
	return exit_ts && now_ns >= exit_ts && now_ns - exit_ts < v->cfg.age_ns;
}

static double rate_of(int64_t now, int64_t before, double dt)
{
	return dt > 0 ? (double)(now - before) / dt : 0;
}

/* Threads per process slot, with VIEW_ALIVE if one of them is alive. */
static void count_threads(struct view *v, const struct stats *st)
{
	const struct table *tb = &st->tb;
	uint32_t i;

	memset(v->thr, 0, tb->ntasks_used * sizeof(*v->thr));
	for (i = 0; i < tb->ntasks_used; i++) {
		const struct mt_task *t = &tb->tasks[i];
		uint32_t p;

		if (t->state == TASK_UNUSED)
			continue;
		p = (uint32_t)(stats_process_of(st, t) - tb->tasks);
		v->thr[p]++;
		if (t->state == TASK_ALIVE)
			v->thr[p] |= VIEW_ALIVE;
	}
}

static void build_tasks(struct view *v, const struct stats *st, uint64_t now_ns, double dt)
{
	const struct table *tb = &st->tb;
	bool procs = v->kind == VIEW_PROCS;
	uint32_t i;

	if (procs)
		count_threads(v, st);
	for (i = 0; i < tb->ntasks_used; i++) {
		const struct mt_task *t = &tb->tasks[i];
		struct view_row *rw;
		int64_t before;

		if (t->state == TASK_UNUSED ||
		    !(procs ? t->ppeak > 0 && stats_process_of(st, t) == t : t->peak > 0))
			continue;
		rw = &v->row[v->nrows++];
		rw->idx = i;
		rw->serial = t->serial;
		rw->pid = procs ? pid_of(t) : t->tid;
		rw->cur = procs ? t->pcur : t->cur;
		rw->peak = procs ? t->ppeak : t->peak;
		/* a slot that changed hands since the previous frame started from nothing */
		before = v->prev_serial[i] != t->serial ? 0 : procs ? v->prev_pcur[i] :
			 v->prev_cur[i];
		rw->rate = rate_of(rw->cur, before, dt);
		rw->aux = procs ? (int64_t)(v->thr[i] & ~VIEW_ALIVE) : t->tgid;
		rw->ppid = t->ppid;
		if (t->flags & TF_PSEUDO)
			rw->state = ROW_PSEUDO;
		else if (procs)
			rw->state = v->thr[i] & VIEW_ALIVE ? ROW_ALIVE : ROW_EXITED;
		else
			rw->state = t->state == TASK_EXITED ? ROW_EXITED : ROW_ALIVE;
		rw->recent = rw->state == ROW_EXITED &&
			     recent(v, procs ? t->pexit_ts : t->exit_ts, now_ns);
		if (v->hide_exited && rw->state == ROW_EXITED) {
			v->nrows--;	/* x: counted, not shown */
			v->nhidden++;
		}
	}
}

static void build_modules(struct view *v, const struct stats *st, double dt)
{
	const struct table *tb = &st->tb;
	uint32_t i;

	for (i = 0; i < tb->nmods; i++) {
		const struct mt_module *m = &tb->mods[i];
		struct view_row *rw;

		if (m->state == MOD_UNUSED)
			continue;
		rw = &v->row[v->nrows++];
		rw->idx = i;
		rw->serial = m->serial;
		rw->pid = 0;
		/* its pages by stack (--stacks) or by load bracket, each once; and the bracket's */
		rw->cur = m->all_cur;
		rw->peak = m->all_peak;
		rw->rate = rate_of(m->all_cur, v->prev_mcur[i], dt);
		rw->aux = m->peak;
		rw->static_kib = m->static_known ? m->static_kib : 0;
		rw->state = m->state;
		rw->recent = false;
		if (v->hide_exited && (m->state == MOD_UNLOADED || m->state == MOD_FAILED)) {
			v->nrows--;
			v->nhidden++;
		}
	}
}

/* This frame's pages, for the next frame's change per second (every view's). */
static void remember(struct view *v, const struct stats *st, uint64_t now_ns)
{
	const struct table *tb = &st->tb;
	uint32_t i;

	for (i = 0; i < tb->ntasks_used; i++) {
		v->prev_cur[i] = tb->tasks[i].cur;
		v->prev_pcur[i] = tb->tasks[i].pcur;
		v->prev_serial[i] = tb->tasks[i].serial;
	}
	for (i = 0; i < tb->nmods; i++)
		v->prev_mcur[i] = tb->mods[i].all_cur;
	v->prev_ns = now_ns;
}

void view_build(struct view *v, const struct stats *st, uint64_t now_ns, bool tick)
{
	double dt = v->prev_ns && now_ns > v->prev_ns ? (double)(now_ns - v->prev_ns) / 1e9 : 0;

	v->nrows = 0;
	v->nhidden = 0;
	if (v->kind == VIEW_MODULES)
		build_modules(v, st, dt);
	else
		build_tasks(v, st, now_ns, dt);
	if (tick)
		remember(v, st, now_ns);
	view_sort(v, st);
}

/* ---------------------------------------------------------------- keys */

uint32_t view_visible(const struct view *v)
{
	int n = v->lines - VIEW_HEAD_LINES;

	if (v->cfg.batch)
		return 0;
	if (!v->cfg.ansi)
		n--;	/* plain lines: the last one is the cursor's */
	n -= view_tree_shown(v);
	return n > 1 ? (uint32_t)n : 1;
}

uint32_t view_rows_shown(const struct view *v)
{
	int y = VIEW_HEAD_LINES, lines = v->lines - (v->cfg.ansi ? 0 : 1);
	uint32_t i, n = 0;

	if (v->cfg.batch)
		return 0;
	for (i = v->first; i < v->nrows && y < lines; i++, n++) {
		const struct view_row *rw = &v->row[v->order[i]];

		y++;
		if (v->expanded && v->exp_kind == v->kind && rw->idx == v->exp_idx &&
		    rw->serial == v->exp_serial)
			y += view_tree_shown(v);
	}
	return n;
}

int view_tree_lines(const struct view *v)
{
	int i, n = 0;

	if (!v->expanded)
		return 0;
	if (!v->stacks || v->nstk <= 0)
		return 1;	/* how to get them, or that the row has none */
	for (i = 0; i < v->nstk; i++)
		n += 1 + (v->stk_folded[i] ? 0 : v->stk[i].nframes);
	return n;
}

/* The tree shows what it has, leaving the screen a line for the rows (the expanded one). */
int view_tree_shown(const struct view *v)
{
	int room = v->lines - VIEW_HEAD_LINES - (v->cfg.ansi ? 0 : 1) - 1;
	int n = view_tree_lines(v);

	if (v->cfg.batch)
		return 0;
	return n < room ? n : room > 0 ? room : 0;
}

int view_tree_at(const struct view *v, int k, int *frame)
{
	int i;

	*frame = -1;
	if (!v->stacks || v->nstk <= 0)
		return -1;
	for (i = 0; i < v->nstk; i++) {
		int n = 1 + (v->stk_folded[i] ? 0 : v->stk[i].nframes);

		if (k < n) {
			*frame = k - 1;
			return i;
		}
		k -= n;
	}
	return -1;
}

/* The selected tree line on the screen (the tree's own scroll). */
static void tree_keep_visible(struct view *v)
{
	int n = view_tree_lines(v), shown = view_tree_shown(v);

	if (v->tsel >= n)
		v->tsel = n - 1;
	if (v->tsel >= 0 && v->tsel < v->tfirst)
		v->tfirst = v->tsel;
	if (v->tsel >= 0 && v->tsel >= v->tfirst + shown)
		v->tfirst = v->tsel - shown + 1;
	if (v->tfirst > n - shown)
		v->tfirst = n - shown;
	if (v->tfirst < 0)
		v->tfirst = 0;
}

/* The selected row is the expanded one. */
static bool on_expanded(const struct view *v)
{
	const struct view_row *rw;

	if (!v->expanded || !v->nrows || v->exp_kind != v->kind)
		return false;
	rw = &v->row[v->order[v->sel]];
	return rw->idx == v->exp_idx && rw->serial == v->exp_serial;
}

static void move_sel(struct view *v, int64_t by)
{
	int64_t s = (int64_t)v->sel + by;

	if (!v->nrows)
		return;
	if (s < 0)
		s = 0;
	if (s >= (int64_t)v->nrows)
		s = v->nrows - 1;
	v->sel = (uint32_t)s;
	v->tsel = -1;
	remember_selection(v);
	view_keep_visible(v);
}

/* Down: into the expanded row's tree, through it, then the next row. */
static void down(struct view *v)
{
	if (on_expanded(v) && v->tsel + 1 < view_tree_lines(v)) {
		v->tsel++;
		tree_keep_visible(v);
		return;
	}
	move_sel(v, 1);
}

/* Up: out of the tree to its row; from the row under the expanded one, its tree's last line. */
static void up(struct view *v)
{
	uint32_t was = v->sel;

	if (on_expanded(v) && v->tsel >= 0) {
		v->tsel--;
		tree_keep_visible(v);
		return;
	}
	move_sel(v, -1);
	if (v->sel != was && on_expanded(v) && view_tree_lines(v) > 0) {
		v->tsel = view_tree_lines(v) - 1;
		tree_keep_visible(v);
	}
}

static enum view_act switch_view(struct view *v, enum view_kind k)
{
	if (v->kind == k)
		return VA_NONE;
	v->kind = k;
	v->sel = v->first = 0;
	v->expanded = false;
	return VA_BUILD;
}

/* Space/Enter on a line of the tree: its stack folded, or unfolded. */
static enum view_act fold(struct view *v)
{
	int f, i = view_tree_at(v, v->tsel, &f);

	if (i < 0)
		return VA_NONE;
	v->stk_folded[i] = !v->stk_folded[i];
	/* the selection on the stack's own line, where it was when folded */
	for (v->tsel = 0, f = 0; f < i; f++)
		v->tsel += 1 + (v->stk_folded[f] ? 0 : v->stk[f].nframes);
	tree_keep_visible(v);
	return VA_DRAW;
}

static enum view_act expand(struct view *v)
{
	const struct view_row *rw;

	if (!v->nrows)
		return VA_NONE;
	if (on_expanded(v) && v->tsel >= 0)
		return fold(v);
	rw = &v->row[v->order[v->sel]];
	if (on_expanded(v)) {
		v->expanded = false;
	} else {
		v->expanded = true;
		v->exp_kind = v->kind;
		v->exp_idx = rw->idx;
		v->exp_serial = rw->serial;
		v->nstk = 0;
		v->tsel = -1;
		v->tfirst = 0;
		v->hscroll = 0;
	}
	if (v->expanded && !v->stacks)	/* said under the row too */
		snprintf(v->msg, sizeof(v->msg), "no stacks: run with --stacks");
	view_keep_visible(v);
	return VA_DRAW;
}

enum view_act view_key(struct view *v, int key)
{
	enum view_sort s;
	int64_t page = view_visible(v);

	v->msg[0] = '\0';
	if (key == TK_NONE)
		return VA_NONE;
	if (v->help && key != 'q' && key != 'Q') {
		v->help = false;	/* any key closes the help */
		return VA_DRAW;
	}
	switch (key) {
	case 'q':
	case 'Q':
		return VA_QUIT;
	case 't':
		return switch_view(v, VIEW_TASKS);
	case 'p':
		return switch_view(v, VIEW_PROCS);
	case 'm':
		return switch_view(v, VIEW_MODULES);
	case 's':
		s = v->sort[v->kind];
		do
			s = (enum view_sort)((s + 1) % SORT__N);
		while (!sort_valid(v->kind, s));
		v->sort[v->kind] = s;
		return VA_SORT;
	case 'r':
		v->reverse[v->kind] = !v->reverse[v->kind];
		return VA_SORT;
	case 'x':
		v->hide_exited = !v->hide_exited;
		return VA_BUILD;
	case 'c':
		v->show_cmd = !v->show_cmd;
		return VA_DRAW;
	case 'u':
		v->unit = (enum view_unit)((v->unit + 1) % UNIT__N);
		return VA_DRAW;
	case 'f':
		v->frozen = !v->frozen;
		return v->frozen ? VA_DRAW : VA_BUILD;
	case 'h':
	case '?':
		v->help = true;
		return VA_DRAW;
	case TK_UP:
		up(v);
		return VA_DRAW;
	case TK_DOWN:
		down(v);
		return VA_DRAW;
	case TK_LEFT:
		if (!v->hscroll)
			return VA_NONE;
		v->hscroll = v->hscroll > VIEW_HSCROLL ? v->hscroll - VIEW_HSCROLL : 0;
		return VA_DRAW;
	case TK_RIGHT:
		if (v->hscroll + VIEW_HSCROLL >= VIEW_FRAME_LEN * 4)
			return VA_NONE;
		v->hscroll += VIEW_HSCROLL;
		return VA_DRAW;
	case TK_PGUP:
		move_sel(v, -page);
		return VA_DRAW;
	case TK_PGDN:
		move_sel(v, page);
		return VA_DRAW;
	case TK_HOME:
		move_sel(v, -(int64_t)v->nrows);
		return VA_DRAW;
	case TK_END:
		move_sel(v, v->nrows);
		return VA_DRAW;
	case '\r':
	case '\n':
	case ' ':
		return expand(v);
	default:
		return VA_NONE;
	}
}
