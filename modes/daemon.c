// SPDX-License-Identifier: GPL-2.0-only
/* modes/daemon.c - the daemon: trace until TERM/INT, reports on USR1/USR2 and OOM kills, outputs every --interval */
#include "modes/daemon.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "core/build.h"
#include "lib/util.h"
#include "output/logfile.h"
#include "output/prom.h"
#include "output/reportto.h"
#include "run/daemonize.h"
#include "run/loop.h"
#include "run/oom.h"
#include "run/setup.h"

/* The daemon's outputs every --interval: the mode's state (r->mode). */
struct daemon_state {
	uint64_t next_ns;	/* CLOCK_MONOTONIC end of the current interval; 0: no intervals */
	char kernel[65];	/* uname's release: the memtrace_info label */
	bool prom_failing;	/* the last write of the --prometheus file failed (said once) */
	bool lines_failing;	/* the last JSON line of an interval could not be appended */
	uint64_t prom_writes;	/* the --prometheus file written */
};

#define PROM_MODE	0644	/* node_exporter runs as another user and must read it */

static void gen_prom(struct out *o, void *p)
{
	struct run *r = p;

	/* the boot build has no --prometheus, no output/prom.c: never called there */
	if (BUILD_FULL)
		prom_write(o, r, &r->rs, ((const struct daemon_state *)r->mode)->kernel);
}

/*
 * Replace the .prom file: atomically (a scrape never sees half of it), never
 * through a symlink, without fsync (it is rewritten every interval anyway).
 * A failure is said when it starts and when it ends, not at every interval.
 */
static int prom_out(struct run *r, char *err, size_t errlen)
{
	struct daemon_state *d = r->mode;
	int e = logfile_replace(r->opt.prom_path, PROM_MODE, false, gen_prom, r, err, errlen);

	if (e && !d->prom_failing)
		mt_warn("%s (the metrics are not updated until it can be written; still "
			"tracing)", err);
	else if (!e && d->prom_failing)
		mt_warn("%s: written again", r->opt.prom_path);
	d->prom_failing = e != 0;
	d->prom_writes += !e;
	return e;
}

/* A report with trigger "interval" appended to the log file; failures said as prom_out() says them. */
static void lines_out(struct run *r, char *err, size_t errlen)
{
	struct daemon_state *d = r->mode;
	int e = report_to(r, REPORT_LOG_AS_IS(err, errlen), "interval");

	if (e && !d->lines_failing)
		mt_warn("%s (no interval lines until it can be written; still tracing)", err);
	else if (!e && d->lines_failing)
		mt_warn("%s: interval lines written again", r->opt.log_path);
	d->lines_failing = e != 0;
}

/**
 * interval_start() - once tracing is live: the first interval begins now
 *
 * With --prometheus, the file is written at once, so that a stale one of an
 * earlier run is replaced and a path that cannot be written is an error now
 * (said, and EXIT_RUNTIME or EXIT_PRIV returned), not a warning later.
 * Return: 0 or an exit code. Nothing to do without --interval/--prometheus.
 */
static int interval_start(struct run *r)
{
	struct daemon_state *d = r->mode;
	struct utsname u;
	char err[PATH_MAX + 128];
	int e;

	if (!r->opt.interval_s)
		return 0;
	snprintf(d->kernel, sizeof(d->kernel), "%s", uname(&u) ? "unknown" : u.release);
	d->next_ns = mono_ns() + (uint64_t)r->opt.interval_s * 1000000000ull;
	if (!r->opt.prom_path)
		return 0;
	e = logfile_replace(r->opt.prom_path, PROM_MODE, false, gen_prom, r, err, sizeof(err));
	if (e)
		return mt_fail(exit_code_for_errno(-e), "--prometheus %s: %s", r->opt.prom_path,
			       err);
	d->prom_writes++;
	return 0;
}

/* The loop's next_ms hook: ms until the next interval ends; -1 without intervals. */
static long interval_next_ms(struct run *r)
{
	struct daemon_state *d = r->mode;
	uint64_t now;

	if (!d->next_ns)
		return -1;
	now = mono_ns();
	return now >= d->next_ns ? 0 : (long)((d->next_ns - now + 999999) / 1000000);
}

/*
 * The loop's check hook: when an interval has ended, read what is buffered,
 * then rewrite the --prometheus file and (-f json) append a report with
 * trigger "interval" to the log file. Intervals missed (a long stall) are
 * skipped, not caught up. A write that fails is said once (and again when
 * it works again); tracing goes on.
 */
static enum loop_next interval_check(struct run *r)
{
	struct daemon_state *d = r->mode;
	uint64_t now, step = (uint64_t)r->opt.interval_s * 1000000000ull;
	char err[PATH_MAX + 128];

	if (!d->next_ns || (now = mono_ns()) < d->next_ns)
		return LOOP_GO_ON;
	while (d->next_ns <= now)
		d->next_ns += step;
	report_catch_up(r);
	if (r->opt.prom_path)
		prom_out(r, err, sizeof(err));
	if (r->opt.json_lines)
		lines_out(r, err, sizeof(err));
	return LOOP_GO_ON;
}

/* After the final drain: the --prometheus file with the final numbers. */
static void interval_final(struct run *r)
{
	char err[PATH_MAX + 128];

	if (r->opt.prom_path)
		prom_out(r, err, sizeof(err));
}

#define BATCH	65536	/* events per read batch: signals are read between batches */

/*
 * The daemon: trace until TERM/INT; USR1 a report on stdout (the log file once
 * --daemon let stdout go), USR2 one to the log file (the loop does both); an OOM kill a report at once; every
 * --interval the metrics file and JSON lines (interval.c); at the end a final
 * report to the log file.
 */
static int daemon_start(struct run *r)
{
	int code = pidfile_write(r);

	if (!code && TEST_FAIL_AT(r, "pidfile"))
		code = EXIT_RUNTIME;
	if (!code)
		code = interval_start(r);
	if (code)
		return code;
	setup_banner(r);
	daemonize_detach(r, false);
	daemonize_ready(r, 0);
	return 0;
}

static int daemon_finish(struct run *r)
{
	int code = run_report_final(r, true);

	interval_final(r);
	return code;
}

const struct mode_ops daemon_ops = {
	.name = "daemon",
	.state_size = sizeof(struct daemon_state),
	.live = true,
	.well_known_instance = true,
	.batch = BATCH,
	.reports_modules = true,
	.final_to_log = true,
	.start = daemon_start,
	.on_oom = oom_report,
	.check = interval_check,
	.next_ms = interval_next_ms,
	.finish = daemon_finish,
};
