/* SPDX-License-Identifier: GPL-2.0-only */
/* output/stackreport.h - the stacks in a report: each module's top stacks as a tree, each task's top stacks */
#ifndef MEMTRACE_OUTPUT_STACKREPORT_H
#define MEMTRACE_OUTPUT_STACKREPORT_H

#include <stdint.h>

#include "kernel/ksyms.h"
#include "lib/out.h"
#include "core/run.h"

/*
 * Names for every frame a report prints, read from /proc/kallsyms live or
 * from the recording's memtrace.kallsyms in a replay: begin, want the modules,
 * tasks or processes the report lists, resolve. A failure leaves addresses
 * unnamed (printed as such). ksyms_free() after the report.
 */
void stackreport_begin(const struct run *r, struct ksyms *k);
void stackreport_want_module(const struct run *r, struct ksyms *k, const struct mt_module *m);
void stackreport_want_task(const struct run *r, struct ksyms *k, const struct mt_task *t);
void stackreport_want_process(const struct run *r, struct ksyms *k, uint32_t leader);
void stackreport_resolve(const struct run *r, struct ksyms *k);

/* After the report: the names and the report's index of task stacks freed. */
void stackreport_end(struct ksyms *k);

/* Text: after the module table, "STACKS OF MODULE ..." trees of @idx[0..n) (rows_mod_at()). */
void stackreport_modules_text(struct out *o, const struct run *r, const struct ksyms *k,
			      const uint32_t *idx, uint32_t n);

/* Text: "STACKS OF TASK ..." of a task, or of each thread of the process in slot @leader. */
void stackreport_task_text(struct out *o, const struct run *r, const struct ksyms *k,
			   const struct mt_task *t);
void stackreport_process_text(struct out *o, const struct run *r, const struct ksyms *k,
			      uint32_t leader);

/* JSON: ,"thread_stacks":[{"tid":N,"stacks":[...]},...] of the process in slot @leader. */
void stackreport_process_json(struct out *o, const struct run *r, const struct ksyms *k,
			      uint32_t leader);

/* JSON: ,"stacks":[...] of a module or of a task (by serial), nothing without --stacks. */
void stackreport_module_json(struct out *o, const struct run *r, const struct ksyms *k,
			     const struct mt_module *m);
void stackreport_task_json(struct out *o, const struct run *r, const struct ksyms *k,
			   const struct mt_task *t);

/* JSON: @before "stacks_info":{...} @after, the stack table's counters. Text: its line. */
void stackreport_counters_json(struct out *o, const struct run *r, const char *before,
			       const char *after);
void stackreport_counters_text(struct out *o, const struct run *r);

#define STACK_LINES_FRAMES	32	/* frames of a stack as lines */
#define STACK_LINE_LEN		128	/* a frame's text: symbol+off/size [module] */

/* One stack as lines of text: its pages and its frames, innermost (the allocation's caller) first. */
struct stack_lines {
	uint32_t id;		/* the stack table's id */
	int64_t cur, peak;	/* pages */
	int nframes;
	char frame[STACK_LINES_FRAMES][STACK_LINE_LEN];	/* raw text (the writer escapes it) */
};

/* The names a live view's expanded row needs, kept while its stacks stay the same. */
struct stackreport_cache {
	struct ksyms k;
	uint32_t sid[32];
	uint32_t n;
	bool valid;
};

/**
 * stackreport_row_stacks() - the top stacks of a task (or of a module), frame by frame
 * @module: @idx is a module's index in the table, else a task's slot
 * @sk: at most @max stacks: id, pages now and at peak, and the frames one
 *      each, innermost first from the allocator's caller on (the tracing
 *      machinery's and the allocator's frames left out), STACK_LINES_FRAMES at most
 * @c: names are read from /proc/kallsyms only when the row's stacks change
 * Return: the stacks written, or -1 without a stack table.
 */
int stackreport_row_stacks(const struct run *r, bool module, uint32_t idx, struct stack_lines *sk,
			   int max, struct stackreport_cache *c);
void stackreport_cache_free(struct stackreport_cache *c);

/*
 * --record with --stacks: the kallsyms lines the recording's frames need, as
 * DIR/memtrace.kallsyms, so that a replay names them. 0 or -errno.
 */
int stackreport_save_symbols(const struct run *r, const char *dir);

#endif
