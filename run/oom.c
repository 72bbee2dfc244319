// SPDX-License-Identifier: GPL-2.0-only
/* run/oom.c - an OOM kill: the report kept as LOG.oom.N, the console summary and its rate limit */
#include "run/oom.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/enrich.h"
#include "lib/escape.h"
#include "output/logfile.h"
#include "run/loop.h"
#include "output/report.h"
#include "output/reportto.h"
#include "core/run.h"
#include "lib/util.h"

#define OOM_SUMMARY_NS	10000000000ull	/* one console summary of an OOM per 10 s of kills */
#define OOM_NOTES	10		/* and as many one-line notes in between */

/*
 * The highest N of an existing LOG.oom.N beside the log file into @max (0 if
 * none, or no such directory); -errno when the directory cannot be listed in
 * full: a number guessed from part of it could replace an older report.
 */
static int oom_highest(const char *log, uint32_t *max)
{
	const char *slash = strrchr(log, '/'), *base = slash ? slash + 1 : log;
	size_t blen = strlen(base);
	char dir[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int e = 0;

	if (!slash)
		strcpy(dir, ".");
	else if (slash == log)
		strcpy(dir, "/");
	else if ((size_t)(slash - log) < sizeof(dir))
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - log), log);
	else
		return -ENAMETOOLONG;
	*max = 0;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = dir_next(d, &de)) > 0) {
		const char *p = de->d_name;
		char *end;
		unsigned long n;

		if (strncmp(p, base, blen) || strncmp(p + blen, ".oom.", 5) ||
		    !isdigit((unsigned char)p[blen + 5]))
			continue;
		n = strtoul(p + blen + 5, &end, 10);
		if (!*end && n > *max && n < 1000000000)
			*max = (uint32_t)n;
	}
	closedir(d);
	return e;
}

/*
 * The report at an OOM kill goes to LOG.oom.N (numbers after any a previous
 * run left), never replaced by a later report; past --keep-oom, the last one
 * of this run is replaced, and counted. The main log gets it too, as before.
 */
static void oom_snapshot(struct run *r)
{
	struct oom_state *os = &r->oom;
	char err[PATH_MAX + 128];
	uint32_t n;

	if (!r->opt.keep_oom)
		return;
	if (!os->next) {
		uint32_t max;
		int e = oom_highest(r->opt.log_path, &max);

		if (e) {
			/* tried again at the next OOM kill */
			mt_warn("%s.oom.N: the existing ones cannot be listed (%s): the OOM report "
				"is in the main log only", r->opt.log_path, strerror(-e));
			return;
		}
		os->first = os->next = max + 1;
	}
	if (os->kept < r->opt.keep_oom) {
		n = os->next++;
		os->kept++;
	} else {
		n = os->next - 1;
		os->not_kept++;
	}
	if (path_fmt(os->last, sizeof(os->last), "%s.oom.%u", r->opt.log_path, n)) {
		mt_warn("%s.oom.%u: path too long", r->opt.log_path, n);
		os->last[0] = '\0';
		return;
	}
	if (report_to(r, REPORT_FILE_AS_IS(os->last, err, sizeof(err)), "oom"))
		mt_warn("%s (the OOM report is in the main log only)", err);
}

static void kmsg_warn(void *ctx, const char *line)
{
	const struct run *r = ctx;
	char buf[600];

	snprintf(buf, sizeof(buf), "<4>%s\n", line);
	kmsg_line(r->kmsg_dev, buf);
}

/*
 * A few lines on the console at the OOM instant, for a machine that panics or
 * reboots right after: the victim, who held the memory then, the system peak,
 * lost events. At most one summary per OOM_SUMMARY_NS of the kills' own time
 * (their events' time stamps: kills read together after a stall are as far
 * apart as they happened); each kill within it gets a one-line note with its
 * report, up to OOM_NOTES, and is counted in the next summary.
 */
static void oom_console(struct run *r)
{
	struct oom_state *os = &r->oom;
	uint64_t ts = r->st.oom_ts;
	char line[PATH_MAX + 256], name[4 * COMM_LEN + 1];

	escape_ascii(name, sizeof(name), r->st.oom_comm, sizeof(r->st.oom_comm), false);
	if (os->summarized && ts - os->summary_ts < OOM_SUMMARY_NS) {
		os->not_summarized++;
		if (os->window_lines++ >= OOM_NOTES)
			return;
		snprintf(line, sizeof(line), "<4>memtrace: oom kill of pid %d (%s); report in %s "
			 "(summary rate-limited)\n", r->st.oom_pid, name,
			 os->last[0] ? os->last : r->opt.log_path);
		kmsg_line(r->kmsg_dev, line);
		return;
	}
	os->summarized = true;
	os->summary_ts = ts;
	os->window_lines = 0;
	snprintf(line, sizeof(line), "<4>memtrace: oom kill of pid %d (%s); report in %s\n",
		 r->st.oom_pid, name, os->last[0] ? os->last : r->opt.log_path);
	kmsg_line(r->kmsg_dev, line);
	enrich_now(r);
	report_oom_summary(r, &r->rs, KMSG_TOP, os->not_summarized, kmsg_warn, r);
	os->not_summarized = 0;
}

void oom_report(struct run *r)
{
	enrich_refresh(r);
	oom_snapshot(r);
	report_to(r, REPORT_LOG_AS_IS(NULL, 0), "oom");
	oom_console(r);
}
