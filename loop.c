// SPDX-License-Identifier: GPL-2.0-only
/* loop.c - the lifecycle every mode goes through: the poll loop, stop and drain, reports, cleanup */
#include "loop.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "enrich.h"
#include "logfile.h"
#include "report.h"
#include "setup.h"
#include "util.h"

#define POLL_MS		100
#define KMSG_TOP	5	/* tasks and modules in the kmsg summary */

void run_catch_up(struct run *r)
{
	while (reader_run(&r->rd, false, r->ops->batch) == r->ops->batch)
		;
	enrich_refresh(r);
}

struct gen_ctx {
	struct run *r;
	const char *trigger;
};

static void gen_report(struct out *o, void *p)
{
	struct gen_ctx *g = p;

	enrich_now(g->r);
	report_write(o, g->r, g->trigger);
}

void run_report_stdout(struct run *r, const char *trigger)
{
	static struct out o;
	struct gen_ctx g = { r, trigger };

	out_init(&o, STDOUT_FILENO);
	gen_report(&o, &g);
	if (out_flush(&o))
		mt_warn("writing the report to stdout: %s", strerror(-o.err));
}

int run_report_log(struct run *r, const char *trigger)
{
	struct gen_ctx g = { r, trigger };
	char err[PATH_MAX + 128];
	int e = logfile_write(r->opt.log_path, gen_report, &g, err, sizeof(err));

	if (e)
		mt_warn("%s (report kept in memory; still tracing)", err);
	return e;
}

static void kmsg_emit(void *ctx, const char *line)
{
	char buf[600];

	(void)ctx;
	snprintf(buf, sizeof(buf), "<6>%s\n", line);
	kmsg_line(buf);
}

void run_report_final(struct run *r, bool to_log)
{
	const char *trigger = signals_trigger(r->stop_sig);
	int e = to_log ? run_report_log(r, trigger) : 0;

	if (r->opt.kmsg) {
		enrich_now(r);
		report_summary(r, trigger, e ? "(none: the log file could not be written)" :
			       r->opt.log_path, KMSG_TOP, kmsg_emit, NULL);
	}
}

void run_report_oom(struct run *r)
{
	char line[256], name[4 * COMM_LEN + 1];
	size_t i, j = 0;

	enrich_refresh(r);
	run_report_log(r, "oom");
	for (i = 0; r->st.oom_comm[i] && j + 4 < sizeof(name); i++) {
		unsigned char ch = (unsigned char)r->st.oom_comm[i];

		name[j++] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
	}
	name[j] = '\0';
	snprintf(line, sizeof(line), "<4>memtrace: oom kill of pid %d (%s); report in %s\n",
		 r->st.oom_pid, name, r->opt.log_path);
	kmsg_line(line);
}

/* The poll set: the signalfd, then one fd per CPU; NULL if no memory. */
static struct pollfd *poll_set(const struct run *r)
{
	struct pollfd *pfd = calloc((size_t)r->rd.ncpus + 1, sizeof(*pfd));
	int i;

	if (!pfd)
		return NULL;
	pfd[0].fd = r->sig.fd;
	pfd[0].events = POLLIN;
	for (i = 0; i < r->rd.ncpus; i++) {
		pfd[i + 1].fd = r->rd.cpus[i].fd;
		pfd[i + 1].events = POLLIN;
	}
	return pfd;
}

/*
 * Wait for events or a signal (not at all when @busy). A CPU whose fd fails
 * (a possible but offline CPU: ENODEV or POLLERR) is dropped from the poll
 * set, or poll would spin. Return: 0, or -1 (said why) if poll itself failed.
 */
static int poll_wait(struct run *r, struct pollfd *pfd, bool busy)
{
	int i;

	if (poll(pfd, (nfds_t)r->rd.ncpus + 1, busy ? 0 : POLL_MS) < 0 && errno != EINTR) {
		mt_warn("poll: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < r->rd.ncpus; i++) {
		struct reader_cpu *c = &r->rd.cpus[i];

		if (pfd[i + 1].fd < 0)
			continue;
		if (pfd[i + 1].revents & (POLLERR | POLLNVAL))
			c->eof = true;
		if (c->eof) {
			pfd[i + 1].fd = -1;
			if (c->read_errors || (pfd[i + 1].revents & (POLLERR | POLLNVAL)))
				mt_warn("cpu%d not readable (%s); not traced", c->cpu,
					c->last_errno ? strerror(c->last_errno) : "poll error");
		}
	}
	return 0;
}

/* Every signal read now; LOOP_STOP when one ends the loop. */
static enum loop_next read_signals(struct run *r)
{
	const struct mode_ops *ops = r->ops;
	struct signalfd_siginfo si;

	while (signals_next(&r->sig, &si)) {
		int act = signals_action(r->opt.mode, &si,
					 r->opt.mode == MODE_COMMAND ? &r->cmd.sigs : NULL);

		switch (act) {
		case SIGACT_IGNORE:
			break;
		case SIGACT_REPORT_STDOUT:
			run_catch_up(r);
			run_report_stdout(r, "SIGUSR1");
			break;
		case SIGACT_REPORT_LOG:
			run_catch_up(r);
			run_report_log(r, "SIGUSR2");
			break;
		case SIGACT_STOP:
			r->stop_sig = (int)si.ssi_signo;
			return LOOP_STOP;
		default:
			if (ops->on_signal && ops->on_signal(r, act, &si) == LOOP_STOP)
				return LOOP_STOP;
			break;
		}
	}
	return LOOP_GO_ON;
}

/* Until a signal, a mode's hook or an error stops it. Return: 0, or an exit code. */
static int poll_loop(struct run *r)
{
	const struct mode_ops *ops = r->ops;
	struct pollfd *pfd = poll_set(r);
	bool busy = false;
	int code = 0;

	if (!pfd)
		return mt_fail(EXIT_RUNTIME, "out of memory");
	for (;;) {
		if (poll_wait(r, pfd, busy)) {
			code = EXIT_RUNTIME;
			break;
		}
		busy = reader_run(&r->rd, false, ops->batch) == ops->batch;
		if (ops->after_batch && ops->after_batch(r) == LOOP_STOP) {
			r->stop_sig = SIGPIPE;	/* stdout is gone */
			break;
		}
		if (r->st.oom_pending) {
			r->st.oom_pending = false;
			if (ops->on_oom)
				ops->on_oom(r);
		}
		if (read_signals(r) == LOOP_STOP)
			break;
		if (ops->check && ops->check(r) == LOOP_STOP)
			break;
	}
	free(pfd);
	return code;
}

/*
 * The stop, the same for every live mode: tracing off, the buffers drained to
 * the end, names and sizes refreshed, tracefs as found, the recording closed.
 * A second TERM/INT from here on exits at once (signals_arm_teardown()).
 */
static void run_stop(struct run *r)
{
	signals_arm_teardown();
	tracefs_tracing_on(&r->tf, false);
	if (r->hooks.teardown_delay_ms)	/* test hook: widen the teardown window */
		sleep_ms(r->hooks.teardown_delay_ms);
	reader_run(&r->rd, true, 0);
	if (r->ops->after_batch)
		r->ops->after_batch(r);
	enrich_refresh(r);
	tracefs_teardown(&r->tf);
	r->tracefs_up = false;
	if (r->opt.record_dir) {
		struct timespec ts;

		clock_gettime(CLOCK_BOOTTIME, &ts);
		r->meta.uptime_s = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
		record_finish(r->opt.record_dir, &r->meta, &r->rd, &r->st);
	}
}

int run_lifecycle(struct run *r)
{
	const struct mode_ops *ops = r->ops;
	int code;

	if (ops->prepare && (code = ops->prepare(r)))
		return code;
	code = ops->setup ? ops->setup(r) : setup_tracing(r);
	if (code)
		return code;
	if (ops->live)
		setup_self_protect();
	if (ops->start && (code = ops->start(r)))
		return code;
	code = ops->loop ? ops->loop(r) : poll_loop(r);
	if (code) {
		if (ops->abort)
			ops->abort(r);
		return code;
	}
	if (ops->live)
		run_stop(r);
	return ops->finish ? ops->finish(r) : EXIT_OK;
}

void run_cleanup(struct run *r)
{
	if (r->tracefs_up)
		tracefs_teardown(&r->tf);
	r->tracefs_up = false;
	if (r->pidfile_written)
		unlink(r->opt.pidfile);
	r->pidfile_written = false;
	if (r->reader_up)
		reader_free(&r->rd);
	r->reader_up = false;
	stats_free(&r->st);
	free(r->order);
	free(r->threads);
	free(r->pages);
	free(r->meta.extra);
	r->order = r->threads = NULL;
	r->pages = NULL;
	r->meta.extra = NULL;
	signals_close(&r->sig);
}
