/* SPDX-License-Identifier: GPL-2.0-only */
/* output/reportto.h - every report of the run: to stdout, stderr, the log file or memory */
#ifndef MEMTRACE_OUTPUT_REPORTTO_H
#define MEMTRACE_OUTPUT_REPORTTO_H

#include "output/logfile.h"
#include "core/run.h"

#define REPORT_WAIT_MS	1000	/* a report on an fd waits for its reader at most this long */

/*
 * report_catch_up() - the run brought to now, while tracing is live: what is
 * buffered read, names, sizes and loss counters refreshed (enrich_refresh()).
 * Before a report, or anything else that says what the run holds now. An OOM
 * kill read on the way is reported at its instant (the mode's on_oom).
 */
void report_catch_up(struct run *r);

/**
 * report_oom_pending() - an OOM kill ended the last batch (setup_pick_sink()): the
 * mode's on_oom reports it with the tables as they stood at the kill. True if
 * it did (the caller reads on); the pending mark is cleared either way.
 */
bool report_oom_pending(struct run *r);

/*
 * Where report_to() writes, and as of when. The report is of the run as it is
 * now (report_catch_up() first, while tracing is live), unless @as_is: of the
 * run as it stands, the buffers not read past it (the instant of an OOM kill;
 * the final report, after the stop's drain; an --interval whose outputs share
 * one catch-up), for which the caller has refreshed what it needs.
 */
struct report_sink {
	int fd;			/* stdout, stderr; -1: memory or the log file */
	struct out_mem *mem;	/* fd -1 and not log: appended here (out_init_mem()) */
	bool log;		/* the log file (-o): replaced atomically, or appended
				   as one JSON line with --interval -f json */
	bool as_is;
	const char *path;	/* log: this file instead, replaced atomically (LOG.oom.N) */
	char *err;		/* log: why it failed; NULL: said on stderr, tracing goes on */
	size_t errlen;
};

#define REPORT_FD(f)	((struct report_sink){ .fd = (f) })
#define REPORT_MEM(m)	((struct report_sink){ .fd = -1, .mem = (m) })
#define REPORT_LOG	((struct report_sink){ .fd = -1, .log = true })
/* the log file, the run as it stands, the failure's reason into @e (@n bytes) */
#define REPORT_LOG_AS_IS(e, n)	((struct report_sink){ .fd = -1, .log = true, .as_is = true, \
					.err = (e), .errlen = (n) })
/* the file @p instead of the log, replaced atomically, the run as it stands */
#define REPORT_FILE_AS_IS(p, e, n)	((struct report_sink){ .fd = -1, .log = true, .as_is = true, \
					.path = (p), .err = (e), .errlen = (n) })

/**
 * report_to() - report_write() of the run into @sink: the one path of every report
 *
 * Does the report-time steps itself, in their order: report_catch_up() while
 * tracing is live and the sink is not @as_is, then enrich_now() (uptime,
 * memtrace's own RSS). A reader of an fd that does not read may hold the
 * report up for REPORT_WAIT_MS at most, and not at all once it has stalled one
 * (r->stdout_stalled), until it takes one whole again; what it did not take is
 * said on stderr. The log file: see struct report_sink.
 * Return: 0, or the write's -errno (-ETIMEDOUT: the reader did not take it all).
 */
int report_to(struct run *r, struct report_sink sink, const char *trigger);

/**
 * report_final() - the last report of the run to the log file, the run as it
 * stands; if that fails, said on stderr (with why, into @err too) and the
 * report written to stderr instead: memtrace is ending, it would be nowhere.
 * Return: 0, or the log file's -errno (the report then went to stderr).
 */
int report_final(struct run *r, const char *trigger, char *err, size_t errlen);

/**
 * report_json_file() - the final report again, to --json FILE, whole: JSON,
 * every row, by process, every stack, whatever -f, -n, --by and --stack-top
 * say (r->whole_report, for this write only); a COMMAND's is its command
 * report. Of the run as it stands, after the mode's own final report; written
 * as the log file is (logfile_write(): atomic, a symlink replaced, never
 * followed). A failure is said on stderr.
 * Return: 0 or -errno.
 */
int report_json_file(struct run *r, const char *trigger);

#endif
