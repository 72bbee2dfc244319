/* SPDX-License-Identifier: GPL-2.0-only */
/* output/rows.h - what every report shares: rows sorted by peak, the process view, names, common lines */
#ifndef MEMTRACE_OUTPUT_ROWS_H
#define MEMTRACE_OUTPUT_ROWS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/out.h"
#include "core/run.h"

/*
 * rows_select() - the (at most) @k of indices 0..@n-1 with the largest
 * positive @key, largest first and of equal keys the lowest index first, into
 * @out (room for @k; for all @n when @k is 0 or larger): the one top-k
 * selection of the reports (the system peak's holders, the processes at a
 * command's tree peak, an OOM summary's modules). Return: how many.
 */
#define SELECT_SMALL	64	/* up to this k, kept sorted as they come; beyond, sorted */
uint32_t rows_select(uint32_t n, int64_t (*key)(const void *ctx, uint32_t i), const void *ctx,
		     uint32_t k, uint32_t *out);

/* The tasks and modules that held the most at the system peak, SYS_TOP of each. */
#define SYS_TOP	5
struct sys_top {
	uint32_t ntasks, nmods;
	uint32_t task[SYS_TOP], mod[SYS_TOP];	/* task slots, module indices */
};
void rows_sys_peak_top(const struct run *r, struct sys_top *t);

/* In rs->threads[slot of a process]: one of its threads is alive (the rest is a count). */
#define PROC_ALIVE	0x80000000u

/* A task's process id: its tgid when known, else its own tid. */
static inline int32_t pid_of(const struct mt_task *t)
{
	return t->tgid ? t->tgid : t->tid;
}

static inline double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

/*
 * Pages in KiB at the run's page size; negative counts show as 0, and a count
 * past 64 bits of KiB (a recording's absurd seeds) as the most there is.
 */
static inline uint64_t kib(const struct run *r, int64_t pages)
{
	uint64_t n = (uint64_t)(pages < 0 ? 0 : pages), ps = r->meta.page_size, k;

	if (!(ps % 1024))	/* whole KiB: the product 1024 times further from 64 bits */
		return __builtin_mul_overflow(n, ps / 1024, &k) ? UINT64_MAX : k;
	return __builtin_mul_overflow(n, ps, &k) ? UINT64_MAX : k / 1024;
}

/*
 * How a report is cut: -n's rows (0: all), --by process, -f json; the whole
 * report of --json FILE (r->whole_report) has every row, by process, in JSON.
 */
static inline uint32_t rows_top(const struct run *r)
{
	return r->whole_report ? 0 : r->opt.rows;
}

/* Of @n rows, how many a report lists: all, or -n's (rows_top()) if fewer. */
static inline uint32_t rows_listed(const struct run *r, uint32_t n)
{
	return rows_top(r) && rows_top(r) < n ? rows_top(r) : n;
}

static inline bool rows_by_process(const struct run *r)
{
	return r->whole_report || r->opt.by_process;
}

static inline bool rows_json(const struct run *r)
{
	return r->whole_report || r->opt.format == FMT_JSON;
}

const char *task_state_name(const struct mt_task *t);
const char *module_state_name(const struct mt_module *m);

/* Tasks with a non-zero peak in rs->order, largest peak first (then pid); their number. */
uint32_t rows_tasks(const struct run *r, struct report_scratch *rs);

/* Tasks holding pages now in rs->order, most first (then pid); their number. */
uint32_t rows_tasks_now(const struct run *r, struct report_scratch *rs);

/*
 * Processes (a leader, or a task whose leader is unknown) with a non-zero
 * peak in rs->order, by peak; rs->threads[slot] gets each one's thread count
 * and PROC_ALIVE. With @tree_only, only processes of the command's tree.
 */
uint32_t rows_processes(const struct run *r, struct report_scratch *rs, bool tree_only);

/* Modules as the reports list them: the table's, then the report-time extra list (untraced). */
uint32_t rows_nmods(const struct run *r);
const struct mt_module *rows_mod_at(const struct run *r, uint32_t i);

/*
 * Every listed module (rows_mod_at()'s index) in rs->mod_order, largest peak
 * first, then the larger static size, then the table's order (the untraced
 * last); their number. rows_sort_modules() puts any such indexes in that order.
 */
uint32_t rows_modules(const struct run *r, struct report_scratch *rs);
void rows_sort_modules(const struct run *r, uint32_t *idx, uint32_t n);

/* After rows_processes(): threads of the process in @slot, and its state. */
uint32_t rows_threads(const struct report_scratch *rs, uint32_t slot);
const char *rows_state(const struct run *r, const struct report_scratch *rs, uint32_t slot);

/* Slot of task @t in the table. */
uint32_t rows_slot(const struct stats *st, const struct mt_task *t);

/* Events applied, every kind (memtrace's own allocations are not: they are left out). */
uint64_t rows_events(const struct stats *st);

/* The kernel (or the recording) had no module:module_load event: no module support. */
bool rows_module_events_missing(const struct run *r);

/* Events lost, as every report counts them (reader_lost()). */
uint64_t rows_lost(const struct run *r);

/* A task's name: escaped text ("?" if unknown), a JSON string, any JSON string. */
void rows_text_comm(struct out *o, const struct mt_task *t);
void rows_json_comm(struct out *o, const struct mt_task *t);
void rows_json_str(struct out *o, const char *s);

/* The lines every text report has: lost events, events out of order (if any), OOM kills (if any). */
void rows_lost_line(struct out *o, const struct run *r);
void rows_out_of_order_line(struct out *o, const struct run *r);
void rows_oom_line(struct out *o, const struct stats *st, const char *what);

/* CPUs not read (offline), in text (nothing when all were read) and as JSON keys with a comma. */
void rows_cpus_line(struct out *o, const struct run *r);
void rows_json_cpus(struct out *o, const struct run *r);

/*
 * The system peak: the most pages the pfn map held at once since the start (every
 * tracked page once: tasks, <irq>, modules' own), when, and the top 5 tasks and
 * modules then; a text line (labelled @label: "system peak" in a report of the
 * machine, "machine-wide system peak" in a command's, where it is not the
 * command's), and the "system_peak" key with a comma.
 */
void rows_sys_peak_line(struct out *o, const struct run *r, const struct sys_top *t,
			const char *label);
void rows_json_sys_peak(struct out *o, const struct run *r, const struct sys_top *t);

/* The keys every JSON report has: "lost_events" and "lost_unknown_subbuffers", each with a comma. */
void rows_json_lost(struct out *o, const struct run *r);

/*
 * Pages that changed hands: THP collapses given to their process, pages freed
 * inside migrations (compaction's new frames are never seen allocated). Text:
 * a line when the events are there; JSON: "moved":{...},
 */
void rows_moved_line(struct out *o, const struct run *r);
void rows_json_moved(struct out *o, const struct run *r);

#endif
