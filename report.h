/* SPDX-License-Identifier: GPL-2.0-only */
/* report.h - text and JSON reports of the task and module tables */
#ifndef MEMTRACE_REPORT_H
#define MEMTRACE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot.h"
#include "logfile.h"
#include "reader.h"
#include "stats.h"

enum report_format { FMT_TEXT = 0, FMT_JSON };

/* Everything a report shows; the caller fills it, report.c only formats. */
struct report_input {
	const char *trigger;		/* SIGUSR1, SIGUSR2, SIGTERM, SIGINT, oom, replay */
	const char *mode;		/* live, record, replay */
	enum report_format format;
	uint32_t top;			/* task rows, 0 = all; modules are always all listed */
	double uptime_s;		/* seconds since boot at report time */
	const char *tracefs;		/* mount point or replay directory */
	const char *instance;		/* instance name, "" for top level */
	const char *enabled[64];	/* "sys:name" */
	int nenabled;
	const char *missing[64];
	const char *missing_loss[64];	/* what each missing one costs */
	int nmissing;
	uint32_t page_size;
	uint64_t lost_events;
	uint64_t missed_unknown;	/* pages flagged lost without a count */
	const struct reader *rd;	/* may be NULL */
	const struct stats *st;
	uint32_t seed_tasks;
	uint64_t seed_pages;
	const struct boot_buffer *boot;	/* --boot-buffer was read; NULL if not asked */
	const struct mt_module *extra;	/* modules in /proc/modules without an entry (untraced) */
	uint32_t nextra;
	uint32_t extra_dropped;		/* such modules beyond the list */
	uint32_t *order;		/* scratch, st->cfg.max_tasks (or more) entries */
	uint32_t *threads;		/* scratch as order; needed for the process view */
	int64_t *pages;			/* scratch as order; needed for the command report */
	bool by_process;		/* --by process: threads summed into their process */
	long self_rss_kib;		/* memtrace's own VmRSS, -1 if unknown */
	long self_hwm_kib;		/* memtrace's own VmHWM, -1 if unknown */
	long self_map_kib;		/* of it, the resident part of the pfn map, -1 if unknown */
};

/* Write a whole report to @o. */
void report_write(struct out *o, const struct report_input *in);

/* Command mode: how the command ended and what it cost. */
struct cmd_info {
	char *const *argv;
	int status;		/* wait status of the command, if reaped */
	bool reaped;
	bool exec_failed;	/* could not be executed (status is then 127) */
	double wall_s, user_s, sys_s;
	long max_rss_kib;	/* largest ru_maxrss of the waited-for descendants */
	uint64_t start_ts;	/* trace clock when the command was started */
	bool waited;		/* descendants were waited for (no --no-wait) */
	uint32_t still_running;	/* tree processes alive at the end (--no-wait) */
};

/* The command report: tree peak, processes at the peak, top processes by peak. */
void report_command(struct out *o, const struct report_input *in, const struct cmd_info *c);

/*
 * report_summary() - a few lines for /dev/kmsg, which rate-limits: totals and
 * lost events, the top @ntop tasks and the top @ntop modules by peak. @emit gets one line at a time, without newline,
 * plain ASCII. @where names the full report.
 */
void report_summary(const struct report_input *in, const char *where, unsigned ntop,
		    void (*emit)(void *ctx, const char *line), void *ctx);

/*
 * Escaping of task names (raw kernel bytes). Text: printable ASCII stays,
 * backslash doubles, every other byte becomes \xNN, so output is plain ASCII.
 * JSON: valid UTF-8 stays (C1 controls escaped), quotes and backslash are
 * escaped, control bytes become \u00NN and invalid bytes U+FFFD.
 */
void escape_text(struct out *o, const char *s, size_t len);
void escape_json(struct out *o, const char *s, size_t len);

const char *task_state_name(const struct mt_task *t);
const char *module_state_name(const struct mt_module *m);

#endif
