/* SPDX-License-Identifier: GPL-2.0-only */
/* ui/view.h - the live view's screen model: the rows of a view, sorted and scrolled, and its keys (pure) */
#ifndef MEMTRACE_UI_VIEW_H
#define MEMTRACE_UI_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output/stackreport.h"
#include "stats.h"

#define VIEW_HEAD_LINES	4	/* two header lines, the status line, the column names */
#define VIEW_MAX_LINES	256	/* a taller terminal shows this many lines */
#define VIEW_MAX_COLS	400	/* a wider one this many columns */
#define VIEW_BATCH_COLS	160	/* batch frames: lines are never cut before this */
#define VIEW_LINE_EXTRA	96	/* bytes of a line beyond its columns: escape sequences */
#define VIEW_STACKS_MAX	8	/* stacks of an expanded row */
#define VIEW_FRAMES_MAX	STACK_LINES_FRAMES	/* frames shown of one stack */
#define VIEW_FRAME_LEN	STACK_LINE_LEN	/* a frame's text: symbol+off/size [module] */
#define VIEW_CMD_LEN	256	/* bytes of a command line kept (c), /proc/PID/cmdline's first */
#define VIEW_HSCROLL	8	/* columns Left/Right move the stack lines */

enum view_kind { VIEW_TASKS = 0, VIEW_PROCS, VIEW_MODULES, VIEW__N };
enum view_sort { SORT_CUR = 0, SORT_PEAK, SORT_CHANGE, SORT_PID, SORT_NAME, SORT__N };
enum view_unit { UNIT_PAGES = 0, UNIT_KIB, UNIT_MIB, UNIT__N };
enum row_state { ROW_ALIVE = 0, ROW_EXITED, ROW_PSEUDO };

/* What a key asks of the caller. */
enum view_act {
	VA_NONE = 0,	/* nothing changed */
	VA_DRAW,	/* draw again now */
	VA_SORT,	/* sort the rows again (view_sort()), then draw */
	VA_BUILD,	/* build the rows again (another view), then draw */
	VA_QUIT,	/* q: leave */
};


/*
 * Stacks of a row, for Enter/space (the stack table of --stacks): fill at
 * most @max stacks (id, pages, frames) for the task slot,
 * process leader slot or module index @idx. Return their number, or -1 when
 * there is no stack table. NULL: none (tracing without --stacks); the view
 * then says how to get them, under the row.
 */
typedef int (*view_stacks_fn)(void *ctx, enum view_kind kind, uint32_t idx,
			      struct stack_lines *sk, int max);

/* One row: a task, a process (its leader's slot) or a module, as it was at the build. */
struct view_row {
	int64_t key, key2;	/* the sort's values, larger first */
	int64_t cur, peak;	/* pages */
	int64_t aux;		/* TGID (tasks), threads (processes), load peak (modules) */
	int32_t ppid;		/* processes: the parent's pid (0: not known) */
	double rate;		/* pages per second since the previous frame */
	uint64_t static_kib;	/* modules */
	uint32_t idx;		/* task slot or module index */
	uint32_t serial;	/* the slot's serial at the build: the row's identity */
	int32_t pid;		/* tid (tasks), pid (processes) */
	uint8_t state;		/* enum row_state; modules: enum mod_state */
	bool recent;		/* exited lately: ranked by its peak in the current order */
};

/* The header's facts, gathered by the caller (top.c) for each frame. */
struct view_facts {
	char clock[16];		/* the time of day, "HH:MM:SSZ" (UTC; "" to leave it out) */
	double uptime_s;	/* seconds since boot */
	double events_per_s;	/* events applied per second since the last frame */
	uint64_t lost;		/* events lost so far */
	long mem_avail_kib;	/* /proc/meminfo; -1 if unknown */
	long mem_total_kib;
	double sys_peak_s;	/* the system peak's time (trace clock, s) */
	double sys_peak_ago_s;	/* how long ago it was, -1 if unknown */
	bool no_module_events;	/* the kernel has no module:module_load (no module support) */
};

struct view_config {
	uint32_t max_tasks;	/* task slots (the table's) */
	uint32_t max_modules;
	uint32_t page_size;
	bool batch;		/* frames for a file or pipe: every row, no escapes */
	uint32_t batch_rows;	/* batch: rows per frame, 0 = all */
	bool ansi;		/* the terminal takes cursor addressing and attributes */
	bool colour;		/* and colours */
	uint64_t age_ns;	/* an exit this recent ranks by its peak in the current order */
};

struct view {
	struct view_config cfg;
	enum view_kind kind;
	enum view_sort sort[VIEW__N];	/* each view's order (s) ... */
	bool reverse[VIEW__N];		/* ... and whether it is reversed (r) */
	enum view_unit unit;
	bool frozen;			/* f: the rows stay; tracing goes on */
	bool help;			/* h, ?: the keys are shown */
	bool show_cmd;			/* c: the command line in the name column */
	bool hide_exited;		/* x: exited rows (unloaded modules) left out, every order */
	uint32_t nhidden;		/* ... this many at the build */
	int lines, cols;		/* the terminal's size */
	/* the rows of the current view and their order */
	struct view_row *row;
	uint32_t *order;
	uint32_t nrows;
	uint32_t sel, first;		/* the selected row and the first shown, in order */
	uint32_t sel_idx, sel_serial;	/* the selected row's identity, kept across builds */
	/* per task slot: threads | VIEW_ALIVE (processes); the previous frame's pages */
	uint32_t *thr;
	int64_t *prev_cur, *prev_pcur;
	uint32_t *prev_serial;
	int64_t *prev_mcur;
	uint64_t prev_ns;		/* when the previous frame was built; 0: none */
	/*
	 * c: per process (its leader's slot) its command line, read once while
	 * the slot's serial stays (view_set_cmd()): raw bytes, NULs as they were
	 */
	char (*cmd)[VIEW_CMD_LEN];
	uint16_t *cmd_len;
	uint32_t *cmd_serial;		/* the slot's serial when read; 0: not read */
	/*
	 * Enter/space: a row's stacks as a tree under it, one line a stack (its
	 * pages) and one a frame; tsel is the selected line of the tree (-1: the
	 * row itself), tfirst the first one shown; hscroll shifts the frames.
	 */
	view_stacks_fn stacks;
	void *stacks_ctx;
	bool expanded;
	enum view_kind exp_kind;
	uint32_t exp_idx, exp_serial;
	struct stack_lines *stk;
	bool *stk_folded;	/* Space/Enter on one of its lines: its frames hidden (kept by id) */
	int nstk;
	int tsel, tfirst;
	int hscroll;
	char msg[96];			/* said on the status line until the next key */
	/* the frame */
	char *frame;
	size_t frame_cap, frame_len;
};

/**
 * view_init() - the view's tables and frame buffer, allocated once
 *
 * Rows for every task slot and module slot, the previous frame's pages per
 * slot, and a frame buffer for the largest frame (VIEW_MAX_LINES lines of
 * VIEW_MAX_COLS columns; batch: every row). Nothing is allocated later.
 * Return: 0 or -ENOMEM.
 */
int view_init(struct view *v, const struct view_config *cfg);
void view_free(struct view *v);

/* The terminal's size (clamped to what the frame buffer holds). */
void view_resize(struct view *v, int lines, int cols);

/**
 * view_build() - the rows of the current view from the tables, sorted
 * @now_ns: CLOCK_MONOTONIC now (the trace clock "mono"): change per second, recent exits
 * @tick: a frame of the interval: the previous frame's pages are kept for the next
 *        change per second (a build for a key is not one)
 */
void view_build(struct view *v, const struct stats *st, uint64_t now_ns, bool tick);

/* Sort the rows (as they were built: frozen rows stay frozen) in the view's order. */
void view_sort(struct view *v, const struct stats *st);

/* A key (a byte or an enum term_key): what the caller must do next. */
enum view_act view_key(struct view *v, int key);

/* Rows the screen shows at once (0 in batch: all). */
uint32_t view_visible(const struct view *v);

/*
 * Rows the frame draws from v->first: as many as fit, each expanded row's
 * tree taking its lines (the status line's "rows A-B", and the rows whose
 * names and command lines are read). 0 in batch: all.
 */
uint32_t view_rows_shown(const struct view *v);

/* The selected row stays on the screen, the screen as full as the rows allow. */
void view_keep_visible(struct view *v);

/* The name a row is shown and sorted by: raw bytes (not escaped), @len of them. */
const char *view_row_name(const struct view *v, const struct stats *st,
			  const struct view_row *rw, size_t *len);

/* Lines of the expanded row's tree (0: none expanded), and how many of them the screen shows. */
int view_tree_lines(const struct view *v);
int view_tree_shown(const struct view *v);

/* Tree line @k: the stack it belongs to, and its frame (-1: the stack's own line). */
int view_tree_at(const struct view *v, int k, int *frame);

/*
 * c: the command line of the process in task slot @slot (its leader's) is
 * wanted: view_cmd_wanted() says whether it was read for the slot's serial
 * yet; view_set_cmd() keeps @n raw bytes of /proc/PID/cmdline (cut at
 * VIEW_CMD_LEN; n 0: none, the name is shown instead).
 */
bool view_cmd_wanted(const struct view *v, uint32_t slot, uint32_t serial);
void view_set_cmd(struct view *v, uint32_t slot, uint32_t serial, const char *raw, size_t n);

/* The name a row shows: the command line (c, when read and not empty) or the name. */
const char *view_row_label(const struct view *v, const struct stats *st,
			   const struct view_row *rw, size_t *len, bool *is_cmd);

/* The name of a sort order ("current", "peak", ...). */
const char *view_sort_name(enum view_sort s);

#endif
