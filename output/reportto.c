// SPDX-License-Identifier: GPL-2.0-only
/* output/reportto.c - every report of the run: to stdout, stderr, the log file or memory */
#include "output/reportto.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/enrich.h"
#include "output/logfile.h"
#include "output/report.h"
#include "lib/util.h"

bool report_oom_pending(struct run *r)
{
	bool oom = r->st.oom_pending && r->ops->on_oom;

	r->st.oom_pending = false;
	if (oom)
		r->ops->on_oom(r);
	return oom;
}

void report_catch_up(struct run *r)
{
	uint64_t n;

	/*
	 * An OOM kill ends a batch: it is reported as it stands (no catch-up in
	 * that report), then the reading goes on. One the batch before this ended
	 * at is reported before anything is read.
	 */
	report_oom_pending(r);
	do
		n = reader_run(&r->rd, false, r->ops->batch);
	while (report_oom_pending(r) || n == r->ops->batch);
	enrich_refresh(r);
}

static const char *fd_name(int fd)
{
	return fd == STDOUT_FILENO ? "stdout" : fd == STDERR_FILENO ? "stderr" : "the output";
}

struct gen_ctx {
	struct run *r;
	const char *trigger;
};

static void gen_report(struct out *o, void *p)
{
	struct gen_ctx *g = p;

	report_write(o, g->r, &g->r->rs, g->trigger);
}

static int to_log(struct run *r, struct report_sink sink, const char *trigger)
{
	struct gen_ctx g = { r, trigger };
	char buf[PATH_MAX + 128], *err = sink.err ? sink.err : buf;
	size_t errlen = sink.err ? sink.errlen : sizeof(buf);
	int e;

	/* --interval -f json: the log file is JSON lines, every report appended */
	if (sink.path)
		e = logfile_write(sink.path, gen_report, &g, err, errlen);
	else if (r->opt.json_lines)
		e = logfile_append(r->opt.log_path, gen_report, &g, err, errlen);
	else
		e = logfile_write(r->opt.log_path, gen_report, &g, err, errlen);
	if (e && !sink.err)
		mt_warn("%s (report kept in memory; still tracing)", err);
	return e;
}

int report_to(struct run *r, struct report_sink sink, const char *trigger)
{
	static struct out o;	/* 16 KiB: kept off the stack, reused */

	/* a stdout or stderr --daemon let go is /dev/null: the log file instead */
	if ((sink.fd == STDOUT_FILENO && r->stdout_let_go) ||
	    (sink.fd == STDERR_FILENO && r->stderr_let_go))
		sink = (struct report_sink){ .fd = -1, .log = true, .as_is = sink.as_is };
	if (r->tracefs_up && !sink.as_is)
		report_catch_up(r);
	enrich_now(r);
	if (sink.log)
		return to_log(r, sink, trigger);
	if (sink.fd < 0) {
		out_init_mem(&o, sink.mem);
		report_write(&o, r, &r->rs, trigger);
		return out_flush(&o);
	}
	out_init(&o, sink.fd);
	out_bound(&o, r->stdout_stalled ? 0 : REPORT_WAIT_MS);
	report_write(&o, r, &r->rs, trigger);
	out_flush(&o);
	r->stdout_stalled = o.err == -ETIMEDOUT;
	if (o.err == -ETIMEDOUT)
		mt_warn("%s is not read: %llu bytes of the %s report dropped", fd_name(sink.fd),
			(unsigned long long)o.dropped, trigger);
	else if (o.err)
		mt_warn("writing the report to %s: %s", fd_name(sink.fd), strerror(-o.err));
	return o.err;
}

/*
 * A --daemon whose stderr is /dev/null (the caller's pipe or terminal let go):
 * the final report goes to a new file of its own in $TMPDIR (else /tmp), made
 * with O_EXCL (mkstemp: never a file or link someone put there), and the kernel
 * log says where (/dev/kmsg, read by dmesg and the journal). Return: @e.
 */
static int final_to_tmp(struct run *r, const char *trigger, const char *err, int e)
{
	const char *dir = getenv("TMPDIR");
	char path[PATH_MAX], line[PATH_MAX + 600];
	bool ok;
	int fd;

	if (!dir || dir[0] != '/' || path_fmt(path, sizeof(path), "%s/memtrace-final.XXXXXX", dir))
		strcpy(path, "/tmp/memtrace-final.XXXXXX");
	fd = mkstemp(path);
	ok = fd >= 0 && !report_to(r, (struct report_sink){ .fd = fd, .as_is = true }, trigger);
	if (fd >= 0 && close(fd))
		ok = false;
	if (ok)
		snprintf(line, sizeof(line), "<4>memtrace: final report not written: %s; it is in "
			 "%s instead (%s is unchanged)\n", err, path, r->opt.log_path);
	else
		snprintf(line, sizeof(line), "<3>memtrace: final report not written: %s; nor "
			 "in %s: it is lost (%s is unchanged)\n", err, path, r->opt.log_path);
	kmsg_line(r->kmsg_dev, line);
	return e;
}

/* --json FILE's report: the mode's final one (a COMMAND's, else the daemon's or the replay's) */
static void gen_whole(struct out *o, void *p)
{
	struct gen_ctx *g = p;

	if (g->r->opt.command)
		report_command(o, g->r, &g->r->rs);
	else
		report_write(o, g->r, &g->r->rs, g->trigger);
}

int report_json_file(struct run *r, const char *trigger)
{
	struct gen_ctx g = { r, trigger };
	char err[PATH_MAX + 128];
	int e;

	r->whole_report = true;
	e = logfile_write(r->opt.json_path, gen_whole, &g, err, sizeof(err));
	r->whole_report = false;
	if (e)
		mt_warn("--json %s: %s (the final report is not in it)", r->opt.json_path, err);
	return e;
}

int report_final(struct run *r, const char *trigger, char *err, size_t errlen)
{
	int e = report_to(r, REPORT_LOG_AS_IS(err, errlen), trigger);

	if (!e)
		return 0;
	if (r->stderr_let_go)
		return final_to_tmp(r, trigger, err, e);
	/* memtrace is ending: nowhere else would the report be; said first, then on stderr */
	mt_warn("final report not written: %s; it follows on stderr instead (%s is unchanged)",
		err, r->opt.log_path);
	report_to(r, (struct report_sink){ .fd = STDERR_FILENO, .as_is = true }, trigger);
	return e;
}
