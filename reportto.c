// SPDX-License-Identifier: GPL-2.0-only
/* reportto.c - a report of the run as it is now, on request: to stdout, stderr or memory */
#include "reportto.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "enrich.h"
#include "report.h"
#include "util.h"

void report_catch_up(struct run *r)
{
	while (reader_run(&r->rd, false, r->ops->batch) == r->ops->batch)
		;
	enrich_refresh(r);
}

static const char *fd_name(int fd)
{
	return fd == STDOUT_FILENO ? "stdout" : fd == STDERR_FILENO ? "stderr" : "the output";
}

int report_to(struct run *r, struct report_sink sink, const char *trigger)
{
	static struct out o;	/* 16 KiB: kept off the stack, reused */

	if (r->tracefs_up)
		report_catch_up(r);
	enrich_now(r);
	if (sink.fd < 0) {
		out_init_mem(&o, sink.mem);
		report_write(&o, r, trigger);
		return out_flush(&o);
	}
	out_init(&o, sink.fd);
	out_bound(&o, r->stdout_stalled ? 0 : REPORT_WAIT_MS);
	report_write(&o, r, trigger);
	out_flush(&o);
	r->stdout_stalled = o.err == -ETIMEDOUT;
	if (o.err == -ETIMEDOUT)
		mt_warn("%s is not read: %llu bytes of the %s report dropped", fd_name(sink.fd),
			(unsigned long long)o.dropped, trigger);
	else if (o.err)
		mt_warn("writing the report to %s: %s", fd_name(sink.fd), strerror(-o.err));
	return o.err;
}
