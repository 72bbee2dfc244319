// SPDX-License-Identifier: GPL-2.0-only
/* modes/top.c - --top: the live view of who holds memory and who peaked, in a terminal or as frames */
#include "modes/top.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "ui/frame.h"
#include "run/loop.h"
#include "run/oom.h"
#include "kernel/proc.h"
#include "output/rows.h"
#include "run/setup.h"
#include "output/stackreport.h"
#include "ui/term.h"
#include "lib/util.h"

#define BATCH		65536		/* events per read batch: keys and frames in between */
#define AGE_MIN_NS	10000000000ull	/* recent exits keep their place at least 10 s ... */
#define AGE_FRAMES	3		/* ... or 3 frames */
#define LOST_EVERY_NS	1000000000ull	/* the kernel's loss counters, read once a second */

/* The live view's state: the mode's (r->mode), up from the start to the finish. */
struct top_state {
	bool up;		/* the terminal opened, the view made: top_free() undoes them */
	struct term term;
	struct view view;
	struct term_keys keys;
	uint64_t interval_ns;
	uint64_t next_ns;	/* the next frame of the interval */
	bool redraw;		/* a key wants a frame now */
	bool rebuild;		/* ... with the rows built again */
	bool gone;		/* the terminal (or stdout) cannot be written or read */
	size_t out_off;		/* of the frame, written so far */
	bool pending;		/* a frame is being written */
	uint64_t frames;	/* frames written whole */
	uint64_t skipped;	/* frames not drawn: the previous one was still being written */
	uint64_t last_events, last_ns;	/* events per second */
	double ev_rate;
	uint64_t lost_ns;	/* when the loss counters were read */
	struct stackreport_cache stacks;	/* names of the expanded row's stacks */
};

/* Write what the terminal takes now; a frame written whole is counted. */
static void flush_frame(struct top_state *ts)
{
	while (ts->pending) {
		ssize_t w = term_write(&ts->term, ts->view.frame + ts->out_off,
				       ts->view.frame_len - ts->out_off);

		if (w < 0) {
			ts->gone = true;
			ts->pending = false;
			return;
		}
		if (!w)
			return;		/* the rest when poll() says there is room */
		ts->out_off += (size_t)w;
		if (ts->out_off == ts->view.frame_len) {
			ts->pending = false;
			ts->frames++;
		}
	}
}

/*
 * c: the command line of the process of task @t (its leader's slot), read
 * once per process: at most VIEW_CMD_LEN bytes of /proc/PID/cmdline; a
 * process gone or a kernel thread (empty) keeps its name.
 */
static void read_cmd(struct run *r, struct view *v, const struct mt_task *t)
{
	const struct mt_task *p = stats_process_of(&r->st, t);
	uint32_t slot = (uint32_t)(p - r->st.tb.tasks);
	char path[48], buf[VIEW_CMD_LEN];
	ssize_t n = 0;
	int fd;

	if (!view_cmd_wanted(v, slot, p->serial))
		return;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid_of(p));
	fd = p->state == TASK_ALIVE ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf));
		close(fd);
	}
	view_set_cmd(v, slot, p->serial, buf, n > 0 ? (size_t)n : 0);
}

/*
 * What the reports refresh before each report, the cheap part only: the
 * kernel's loss counters once a second; names and sizes only of the rows on
 * the screen that lack them.
 */
static void refresh(struct run *r, uint64_t now)
{
	struct top_state *ts = r->mode;
	struct view *v = &ts->view;
	uint32_t i, vis = v->cfg.batch ? v->cfg.batch_rows : view_rows_shown(v);
	int c;

	if (now - ts->lost_ns >= LOST_EVERY_NS) {
		ts->lost_ns = now;
		for (c = 0; c < r->rd.ncpus; c++) {
			uint64_t lost;

			if (r->tf.fds && !tracefs_cpu_lost(&r->tf, c, &lost))
				r->rd.cpus[c].stats_lost = lost;
		}
	}
	bool all = v->cfg.batch && !vis;	/* batch -n 0: every row */

	for (i = v->first; i < v->nrows && (all || i < v->first + vis); i++) {
		const struct view_row *rw = &v->row[v->order[i]];

		if (v->kind == VIEW_MODULES) {
			struct mt_module *m = &r->st.tb.mods[rw->idx];
			uint64_t kib;

			if (!m->static_known && m->name[0] && m->state != MOD_UNLOADED &&
			    !sys_module_kib("/sys", m->name, &kib)) {
				m->static_kib = kib;
				m->static_known = 1;
			}
		} else {
			struct mt_task *t = &r->st.tb.tasks[rw->idx];
			char comm[64];
			size_t len;

			if (!(t->flags & TF_COMM_KNOWN) && t->state == TASK_ALIVE &&
			    t->serial == rw->serial &&
			    !proc_read_comm("/proc", t->tid, comm, sizeof(comm), &len))
				table_set_comm(t, comm, len);
			if (v->show_cmd && t->serial == rw->serial && !(t->flags & TF_PSEUDO))
				read_cmd(r, v, t);
		}
	}
}

static void facts(struct run *r, struct view_facts *f, uint64_t now, bool tick)
{
	struct top_state *ts = r->mode;
	uint64_t avail, total, ev = rows_events(&r->st);
	struct timespec bt;
	time_t wall;

	memset(f, 0, sizeof(*f));
	if (tick) {
		if (ts->last_ns && now > ts->last_ns)
			ts->ev_rate = (double)(ev - ts->last_events) * 1e9 / (double)(now - ts->last_ns);
		ts->last_events = ev;
		ts->last_ns = now;
	}
	/* UTC (an initramfs has no time zone; localtime() would cost the static build 10 KB) */
	wall = time(NULL) % 86400;
	snprintf(f->clock, sizeof(f->clock), "%02ld:%02ld:%02ldZ", (long)wall / 3600,
		 (long)wall / 60 % 60, (long)wall % 60);
	clock_gettime(CLOCK_BOOTTIME, &bt);
	f->uptime_s = (double)bt.tv_sec + (double)bt.tv_nsec / 1e9;
	f->events_per_s = ts->ev_rate;
	f->lost = reader_lost(&r->rd);
	if (proc_meminfo("/proc", &avail, &total)) {
		f->mem_avail_kib = f->mem_total_kib = -1;
	} else {
		f->mem_avail_kib = (long)avail;
		f->mem_total_kib = (long)total;
	}
	f->no_module_events = rows_module_events_missing(r);
	f->sys_peak_s = (double)r->st.sys_peak_ts / 1e9;
	/* the trace clock is CLOCK_MONOTONIC: how long ago is known */
	f->sys_peak_ago_s = r->st.sys_peak_ts && r->rd.mono && now >= r->st.sys_peak_ts ?
			    (double)(now - r->st.sys_peak_ts) / 1e9 : -1;
}

/* A frame into the view's buffer, and as much of it as the terminal takes now. */
static void frame(struct run *r, bool tick)
{
	struct top_state *ts = r->mode;
	struct view *v = &ts->view;
	struct view_facts f;
	uint64_t now = mono_ns();

	if ((tick && !v->frozen) || ts->rebuild)
		view_build(v, &r->st, now, tick && !v->frozen);
	refresh(r, now);
	facts(r, &f, now, tick);
	frame_render(v, &r->st, &f);
	ts->redraw = ts->rebuild = false;
	ts->out_off = 0;
	ts->pending = v->frame_len > 0;
	flush_frame(ts);
	if (TEST_HOOK(r, top_crash_frame) > 0 &&
	    (int64_t)ts->frames >= TEST_HOOK(r, top_crash_frame))
		raise(SIGSEGV);	/* test build: the view crashes; the terminal must come back */
}

static void top_free(struct run *r)
{
	struct top_state *ts = r->mode;

	if (!ts->up)
		return;
	ts->up = false;
	term_leave(&ts->term);
	term_close(&ts->term);
	view_free(&ts->view);
	stackreport_cache_free(&ts->stacks);
}

/* Enter/space: the selected row's top stacks (a process: its leader thread's). */
static int row_stacks(void *ctx, enum view_kind kind, uint32_t idx, struct stack_lines *sk,
		      int max)
{
	struct run *r = ctx;

	struct top_state *ts = r->mode;

	return stackreport_row_stacks(r, kind == VIEW_MODULES, idx, sk, max, &ts->stacks);
}

/* Stop the loop: the terminal back first (a second TERM during the stop exits at once). */
static enum loop_next stop(struct run *r, enum stop_reason why, int sig)
{
	struct top_state *ts = r->mode;

	term_leave(&ts->term);
	r->stop = why;
	r->stop_signo = sig;
	return LOOP_STOP;
}

/* Before the setup: a view in a terminal that is not ours to change is a usage error. */
static int top_prepare(struct run *r)
{
	pid_t fg;

	(void)r;
	if (isatty(STDOUT_FILENO) && (fg = tcgetpgrp(STDOUT_FILENO)) > 0 && fg != getpgrp())
		return mt_fail(EXIT_USAGE, "--top: not in the terminal's foreground (run it in the "
			       "foreground, or redirect stdout for batch frames)");
	return 0;
}

/**
 * top_set_stacks() - what Enter/space shows: a row's top stacks
 *
 * With --stacks (stackreport_row_lines()): without a provider the view says
 * "no stacks: run with --stacks". Call it from the mode's start, once the
 * view exists; @fn NULL takes the provider away.
 */
static void top_set_stacks(struct run *r, view_stacks_fn fn, void *ctx)
{
	struct top_state *ts = r->mode;

	if (!ts->up)
		return;
	ts->view.stacks = fn;
	ts->view.stacks_ctx = ctx;
	ts->view.expanded = false;
}

static int top_start(struct run *r)
{
	struct view_config cfg;
	struct top_state *ts;
	int e;

	ts = r->mode;
	e = term_open(&ts->term, STDOUT_FILENO, getenv("TERM"), getenv("NO_COLOR"));
	if (e) {
		return mt_fail(e == -ENOTTY ? EXIT_USAGE : EXIT_RUNTIME, "--top: the terminal: %s",
			       e == -ENOTTY ? "not in its foreground" : strerror(-e));
	}
	ts->interval_ns = (uint64_t)r->opt.delay_ms * 1000000ull;
	memset(&cfg, 0, sizeof(cfg));
	cfg.max_tasks = r->st.tb.max_tasks;
	cfg.max_modules = r->st.tb.max_modules;
	cfg.page_size = r->meta.page_size;
	cfg.batch = !ts->term.tty;
	cfg.batch_rows = r->opt.rows;
	cfg.ansi = ts->term.caps.ansi;
	cfg.colour = ts->term.caps.colour;
	cfg.age_ns = AGE_FRAMES * ts->interval_ns > AGE_MIN_NS ? AGE_FRAMES * ts->interval_ns :
		     AGE_MIN_NS;
	ts->up = true;
	if (view_init(&ts->view, &cfg)) {
		top_free(r);
		return mt_fail(EXIT_RUNTIME, "--top: out of memory");
	}
	/* the view's tables stay resident too, as the others (best effort, said at setup) */
	(void)mlockall(MCL_CURRENT | MCL_ONFAULT);
	ts->view.kind = r->opt.by_process ? VIEW_PROCS : VIEW_TASKS;
	view_resize(&ts->view, ts->term.rows, ts->term.cols);
	if (r->st.stacks_on)
		top_set_stacks(r, row_stacks, r);
	setup_banner(r);	/* on the main screen (and stderr), before the view takes it */
	e = term_enter(&ts->term);
	if (e) {
		top_free(r);
		return mt_fail(EXIT_RUNTIME, "--top: the terminal: %s", strerror(-e));
	}
	ts->next_ns = mono_ns();	/* the first frame at once */
	return 0;
}

/* The terminal's keys (interactive), and room to write a frame that waits. */
static int top_poll_fds(struct run *r, struct pollfd *pfd, int max)
{
	struct top_state *ts = r->mode;

	if (max < 1 || ts->gone || (!ts->term.tty && !ts->pending))
		return 0;
	pfd[0].fd = ts->term.fd;
	pfd[0].events = (short)((ts->term.tty ? POLLIN : 0) | (ts->pending ? POLLOUT : 0));
	pfd[0].revents = 0;
	return 1;
}

static void key(struct run *r, int k, bool *quit)
{
	struct top_state *ts = r->mode;

	switch (view_key(&ts->view, k)) {
	case VA_QUIT:
		*quit = true;
		break;
	case VA_SORT:
		view_sort(&ts->view, &r->st);
		ts->redraw = true;
		break;
	case VA_BUILD:
		ts->rebuild = ts->redraw = true;
		break;
	case VA_DRAW:
		ts->redraw = true;
		break;
	default:
		break;
	}
}

static enum loop_next top_on_poll(struct run *r, const struct pollfd *pfd, int n)
{
	struct top_state *ts = r->mode;
	bool quit = false;
	int k;

	if (n < 1)
		return LOOP_GO_ON;
	if (pfd[0].revents & POLLIN) {
		if (term_read(&ts->term, &ts->keys) < 0)
			ts->gone = true;
		while (!quit && (k = term_key_next(&ts->keys)) != TK_NONE)
			key(r, k, &quit);
	}
	if (quit)
		return stop(r, STOP_QUIT, 0);
	if (pfd[0].revents & (POLLERR | POLLHUP | POLLNVAL))
		ts->gone = true;
	else if (pfd[0].revents & POLLOUT)
		flush_frame(ts);
	if (ts->gone)
		return stop(r, STOP_OUTPUT_GONE, 0);
	return LOOP_GO_ON;
}

static long top_next_ms(struct run *r)
{
	struct top_state *ts = r->mode;
	uint64_t now = mono_ns();

	if (ts->pending)
		return -1;	/* poll() says when the terminal takes more */
	if (ts->redraw || now >= ts->next_ns)
		return 0;
	return (long)((ts->next_ns - now + 999999) / 1000000);
}

/* At the end of each round of the loop: a frame when one is due and the last one is out. */
static enum loop_next top_check(struct run *r)
{
	struct top_state *ts = r->mode;
	uint64_t now = mono_ns();
	bool tick = now >= ts->next_ns;

	if (tick) {
		ts->next_ns += ts->interval_ns;
		if (ts->next_ns <= now)
			ts->next_ns = now + ts->interval_ns;
		if (ts->pending)
			ts->skipped++;	/* a terminal slower than the frames: this one is left out */
	}
	if (!ts->pending && !ts->gone && (tick || ts->redraw))
		frame(r, tick);
	if (ts->gone)
		return stop(r, STOP_OUTPUT_GONE, 0);
	if (r->opt.count && ts->frames >= r->opt.count && !ts->pending)
		return stop(r, STOP_COUNT, 0);
	return LOOP_GO_ON;
}

static enum loop_next top_on_signal(struct run *r, int action, const struct signalfd_siginfo *si)
{
	struct top_state *ts = r->mode;

	if (action == SIGACT_QUIT)
		return stop(r, STOP_SIGNAL, (int)si->ssi_signo);
	if (action == SIGACT_RESIZE && ts->term.tty) {
		if (term_resize(&ts->term))
			view_resize(&ts->view, ts->term.rows, ts->term.cols);
		ts->redraw = true;
	}
	return LOOP_GO_ON;
}

static void top_abort(struct run *r)
{
	top_free(r);
}

/* The terminal is back already; the final report goes to the log file as the daemon's. */
static int top_finish(struct run *r)
{
	top_free(r);
	return run_report_final(r, true);
}

/*
 * The live view: stdout is the screen, so USR1's report goes to the log file
 * as USR2's; the stopping signals and HUP (the terminal is gone) put the
 * terminal back and stop; WINCH draws the screen at its new size.
 */
static const struct sig_table top_signals = {
	.stop = SIGACT_QUIT,
	.usr1 = SIGACT_REPORT_LOG,
	.usr2 = SIGACT_REPORT_LOG,
	.hup = SIGACT_QUIT,
	.winch = SIGACT_RESIZE,
};

const struct mode_ops top_ops = {
	.name = "top",
	.state_size = sizeof(struct top_state),
	.live = true,
	.batch = BATCH,
	.signals = &top_signals,
	.reports_modules = true,
	.final_to_log = true,
	.prepare = top_prepare,
	.start = top_start,
	.on_oom = oom_report,
	.on_signal = top_on_signal,
	.check = top_check,
	.poll_fds = top_poll_fds,
	.on_poll = top_on_poll,
	.next_ms = top_next_ms,
	.abort = top_abort,
	.finish = top_finish,
};
