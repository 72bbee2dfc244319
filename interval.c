// SPDX-License-Identifier: GPL-2.0-only
/* interval.c - the daemon's outputs every --interval: the Prometheus textfile, reports as JSON lines */
#include "interval.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "logfile.h"
#include "loop.h"
#include "prom.h"
#include "reportto.h"
#include "util.h"

#define PROM_MODE	0644	/* node_exporter runs as another user and must read it */

static void gen_prom(struct out *o, void *p)
{
	const struct run *r = p;

	prom_write(o, r, r->iv.kernel);
}

/*
 * Replace the .prom file: atomically (a scrape never sees half of it), never
 * through a symlink, without fsync (it is rewritten every interval anyway).
 * A failure is said when it starts and when it ends, not at every interval.
 */
static int prom_out(struct run *r, char *err, size_t errlen)
{
	int e = logfile_replace(r->opt.prom_path, PROM_MODE, false, gen_prom, r, err, errlen);

	if (e && !r->iv.prom_failing)
		mt_warn("%s (the metrics are not updated until it can be written; still "
			"tracing)", err);
	else if (!e && r->iv.prom_failing)
		mt_warn("%s: written again", r->opt.prom_path);
	r->iv.prom_failing = e != 0;
	r->iv.prom_writes += !e;
	return e;
}

/* A report with trigger "interval" appended to the log file; failures said as prom_out() says them. */
static void lines_out(struct run *r, char *err, size_t errlen)
{
	int e = report_to(r, REPORT_LOG_AS_IS(err, errlen), "interval");

	if (e && !r->iv.lines_failing)
		mt_warn("%s (no interval lines until it can be written; still tracing)", err);
	else if (!e && r->iv.lines_failing)
		mt_warn("%s: interval lines written again", r->opt.log_path);
	r->iv.lines_failing = e != 0;
}

int interval_start(struct run *r)
{
	struct utsname u;
	char err[PATH_MAX + 128];
	int e;

	if (!r->opt.interval_s)
		return 0;
	snprintf(r->iv.kernel, sizeof(r->iv.kernel), "%s", uname(&u) ? "unknown" : u.release);
	r->iv.next_ns = mono_ns() + (uint64_t)r->opt.interval_s * 1000000000ull;
	if (!r->opt.prom_path)
		return 0;
	e = logfile_replace(r->opt.prom_path, PROM_MODE, false, gen_prom, r, err, sizeof(err));
	if (e)
		return mt_fail(exit_code_for_errno(-e), "--prometheus %s: %s", r->opt.prom_path,
			       err);
	r->iv.prom_writes++;
	return 0;
}

long interval_next_ms(struct run *r)
{
	uint64_t now;

	if (!r->iv.next_ns)
		return -1;
	now = mono_ns();
	return now >= r->iv.next_ns ? 0 : (long)((r->iv.next_ns - now + 999999) / 1000000);
}

enum loop_next interval_check(struct run *r)
{
	uint64_t now, step = (uint64_t)r->opt.interval_s * 1000000000ull;
	char err[PATH_MAX + 128];

	if (!r->iv.next_ns || (now = mono_ns()) < r->iv.next_ns)
		return LOOP_GO_ON;
	while (r->iv.next_ns <= now)
		r->iv.next_ns += step;
	report_catch_up(r);
	if (r->opt.prom_path)
		prom_out(r, err, sizeof(err));
	if (r->opt.json_lines)
		lines_out(r, err, sizeof(err));
	return LOOP_GO_ON;
}

void interval_final(struct run *r)
{
	char err[PATH_MAX + 128];

	if (r->opt.prom_path)
		prom_out(r, err, sizeof(err));
}
