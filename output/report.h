/* SPDX-License-Identifier: GPL-2.0-only */
/* output/report.h - text and JSON reports of a run: tables, counters, the command report, --exits lines */
#ifndef MEMTRACE_OUTPUT_REPORT_H
#define MEMTRACE_OUTPUT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/out.h"
#include "output/rows.h"
#include "core/run.h"

/**
 * report_write() - the report of the daemon, --exits and replay, text or JSON
 * (r->opt.format), task or process view (r->opt.by_process)
 *
 * Everything comes from the run: the tables, the reader's counters, the
 * tracepoints, and the report-time facts enrich_now() put in it. A report of
 * the run as it is now goes through report_to() (reportto.h), which does the
 * report-time steps first.
 */
void report_write(struct out *o, const struct run *r, struct report_scratch *rs,
		  const char *trigger);

/*
 * The traced kernel, its host and when tracing began (r->meta): the "kernel:" line of a
 * text report; the JSON members ,"kernel":...,"host":...,"started_at":... (a comma first).
 */
void report_identity_text(struct out *o, const struct run *r);
void report_identity_json(struct out *o, const struct meta *m);

/*
 * Command mode: tree peak, processes at the peak, top processes by peak
 * (r->cmd), as r->opt.format says: a model filled once, written as text or JSON.
 */
void report_command(struct out *o, const struct run *r, struct report_scratch *rs);

/* --exits: the header line of the text format (nothing for JSON). */
void report_exits_header(struct out *o, enum report_format f);

/* --exits: one exiting process, a line. */
void report_exit_line(struct out *o, enum report_format f, const struct mt_exit *e,
		      uint32_t page_size);

/*
 * report_summary() - a few lines for /dev/kmsg, which rate-limits: totals and
 * lost events, the top @ntop tasks and the top @ntop modules by peak. @emit gets one line at a time, without newline,
 * plain ASCII. @where names the full report.
 */
void report_summary(const struct run *r, struct report_scratch *rs, const char *trigger,
		    const char *where, unsigned ntop, void (*emit)(void *ctx, const char *line),
		    void *ctx);


/*
 * report_oom_summary() - at an OOM kill, for the console: the top @ntop tasks
 * and modules by the pages they hold at that instant, all pages held then and
 * the system peak so far, and lost events (and @not_summarized OOM kills that
 * the rate limit kept off the console).
 */
void report_oom_summary(const struct run *r, struct report_scratch *rs, unsigned ntop,
			uint64_t not_summarized, void (*emit)(void *ctx, const char *line),
			void *ctx);

#endif
