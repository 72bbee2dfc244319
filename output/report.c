// SPDX-License-Identifier: GPL-2.0-only
/* output/report.c - text and JSON reports of a run (tables, counters), the kmsg and OOM summaries */
#include "output/report.h"

#include "lib/escape.h"
#include "lib/util.h"
#include "output/crashkernel.h"
#include "output/rows.h"
#include "output/stackreport.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static bool no_loader(const struct mt_module *m)
{
	return m->state == MOD_BEFORE || m->state == MOD_UNTRACED;
}

static const char *bracket_name(uint8_t b)
{
	return b == BR_SYSCALL ? "syscall" : b == BR_LOADPUT ? "load-put" :
	       b == BR_BOOT ? "boot" : "none";
}

static const struct boot_buffer *boot_of(const struct run *r)
{
	return r->meta.boot_used ? &r->meta.boot : NULL;
}

/* Where the events came from: the tracefs mount, or the recording replayed. */
static const char *tracefs_shown(const struct run *r)
{
	return r->opt.replay_dir ? r->opt.replay_dir : r->tf.root;
}

/* The instance, "" at the top level and for a replay. */
static const char *instance_shown(const struct run *r)
{
	return r->opt.replay_dir || r->tf.top_level ? "" : r->tf.name;
}

/* Sub-buffers whose records ran past their data (the rest of each was skipped). */
static uint64_t corrupt_records(const struct reader *rd)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < rd->ncpus; i++)
		n += rd->cpus[i].corrupt_records;
	return n;
}

/* Reads that were not a usable sub-buffer (short, bad commit size) or failed. */
static uint64_t corrupt_pages(const struct reader *rd)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < rd->ncpus; i++)
		n += rd->cpus[i].corrupt_pages + rd->cpus[i].read_errors;
	return n;
}

/*
 * What a report says, gathered once by model_fill(): every fact that is
 * worked out (sums, the names shown, the rows listed and their order in
 * r->order, the modules listed), so that the two writers, text and JSON,
 * only format it. The counters that are plain fields are read through @r.
 */
struct report_model {
	const struct run *r;
	const struct report_scratch *rs;	/* order: the listed rows; mod_order: the modules */
	const char *trigger;
	const struct ksyms *ks;			/* the names of the listed rows' frames */
	const struct boot_buffer *boot;		/* NULL: no boot buffer was read */
	const char *tracefs, *instance;		/* where the events came from ("": no instance) */
	uint64_t events;			/* applied, every kind */
	uint64_t corrupt_records, corrupt_pages;
	bool skipped;				/* a record or sub-buffer was skipped */
	bool by_process;			/* the rows are processes, threads summed */
	uint32_t with_pages;			/* tasks (or processes) with pages */
	uint32_t rows;				/* of them listed (-n), in r->order */
	uint32_t nmods;				/* modules: the table's, then the untraced */
	uint32_t mod_rows;			/* of them listed (-n), in md->rs->mod_order */
	bool no_module_events;			/* none listed, for want of module events */
	uint32_t mods_before, mods_untraced;	/* listed modules in these states */
	struct sys_top sys;			/* who held the most at the system peak */
};

static void model_fill(struct report_model *m, const struct run *r, struct report_scratch *rs,
		       const char *trigger, const struct ksyms *ks)
{
	uint32_t i;

	memset(m, 0, sizeof(*m));
	m->r = r;
	m->rs = rs;
	m->trigger = trigger;
	m->ks = ks;
	m->boot = boot_of(r);
	m->tracefs = tracefs_shown(r);
	m->instance = instance_shown(r);
	m->events = rows_events(&r->st);
	m->corrupt_records = corrupt_records(&r->rd);
	m->corrupt_pages = corrupt_pages(&r->rd);
	m->skipped = r->rd.unknown_ids || r->rd.bad_records || m->corrupt_pages ||
		     m->corrupt_records || r->st.c.bad_order;
	m->by_process = rows_by_process(r);
	m->with_pages = rows_tasks(r, rs);
	if (m->by_process)
		m->with_pages = rows_processes(r, rs, false);
	m->rows = rows_listed(r, m->with_pages);
	m->nmods = rows_modules(r, rs);
	m->mod_rows = rows_listed(r, m->nmods);
	m->no_module_events = !m->nmods && rows_module_events_missing(r);
	rows_sys_peak_top(r, &m->sys);
	for (i = 0; i < m->mod_rows; i++) {
		m->mods_before += rows_mod_at(r, rs->mod_order[i])->state == MOD_BEFORE;
		m->mods_untraced += rows_mod_at(r, rs->mod_order[i])->state == MOD_UNTRACED;
	}
}

/* --by process: one row per process, threads summed. */
static void text_processes(struct out *o, const struct report_model *md)
{
	const struct run *r = md->r;
	const struct stats *st = &r->st;
	uint32_t i;

	out_printf(o, "\nPROCESSES: %u of %u with pages, by peak, threads summed (page = %u "
		   "bytes)\n", md->rows, md->with_pages, r->meta.page_size);
	out_printf(o, "%8s %8s %7s %10s %10s %10s %10s %-7s %12s  %s\n", "PID", "PPID", "THREADS",
		   "PEAK_PAGES", "PEAK_KIB", "CUR_PAGES", "SEEDED", "STATE", "PEAK_AT_S", "COMM");
	for (i = 0; i < md->rows; i++) {
		const struct mt_task *t = &st->tb.tasks[md->rs->order[i]];

		out_printf(o, "%8d %8d %7u %10lld %10llu %10lld %10llu %-7s %12.6f  ", pid_of(t),
			   t->ppid, rows_threads(md->rs, md->rs->order[i]), (long long)t->ppeak,
			   (unsigned long long)kib(r, t->ppeak), (long long)t->pcur,
			   (unsigned long long)t->seed, rows_state(r, md->rs, md->rs->order[i]),
			   secs(t->ppeak_ts));
		rows_text_comm(o, t);
		out_puts(o, "\n");
	}
	for (i = 0; i < md->rows; i++)
		stackreport_process_text(o, r, md->ks, md->rs->order[i]);
}

/* The text writer: md formatted for people, one fact a line, then the tables. */
/*
 * /proc/meminfo when memtrace started, before its ring buffers and tables:
 * what a kdump reservation must hold besides the capture's own use
 * (docs/boot.md, "Sizing crashkernel=").
 */
static void mem_start_text(const struct run *r, char *buf, size_t size)
{
	const struct proc_mem *m = &r->meta.mem_start;
	int n;

	if (!m->total_kib) {
		snprintf(buf, size, "memory at start: not known (%s)",
			 r->opt.replay_dir ? "not in the recording" : "/proc/meminfo not read");
		return;
	}
	n = snprintf(buf, size, "memory at start: MemTotal %" PRIu64 " kB, MemFree %" PRIu64 " kB",
		     m->total_kib, m->free_kib);
	if (m->avail_kib && n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, ", MemAvailable %" PRIu64 " kB",
			      m->avail_kib);
	if (n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n,
			 " (/proc/meminfo before memtrace's ring buffers and tables)");
}

static void text_mem_start(struct out *o, const struct run *r)
{
	char line[256];

	mem_start_text(r, line, sizeof(line));
	out_printf(o, "%s\n", line);
}

/* The traced kernel, its host and when tracing began: what --diff and --svg head with. */
void report_identity_text(struct out *o, const struct run *r)
{
	const struct meta *m = &r->meta;
	char when[32];

	meta_when(m, false, when);
	out_printf(o, "kernel: %s, host %s, tracing began %s\n",
		   m->kernel[0] ? m->kernel : "not known", m->host[0] ? m->host : "not known",
		   when[0] ? when : "at a time not known");
}

/* Between the rows of a JSON array: a newline, none when each report is one JSON line. */
static const char *row_break(const struct run *r)
{
	return r->opt.json_lines && !r->whole_report ? "" : "\n";
}

static void json_processes(struct out *o, const struct report_model *md)
{
	const struct run *r = md->r;
	const struct stats *st = &r->st;
	uint32_t i;

	out_printf(o, "\"view\":\"process\",\"processes_with_pages\":%u,\"processes\":[",
		   md->with_pages);
	for (i = 0; i < md->rows; i++) {
		const struct mt_task *t = &st->tb.tasks[md->rs->order[i]];

		out_printf(o, "%s%s{\"pid\":%d,\"ppid\":%d,\"comm\":", i ? "," : "", row_break(r),
			   pid_of(t), t->ppid);
		rows_json_comm(o, t);
		out_printf(o, ",\"threads\":%u,\"peak_pages\":%lld,\"peak_kib\":%llu,"
			   "\"peak_time_s\":%.6f,\"current_pages\":%lld,\"seeded_pages\":%llu,"
			   "\"state\":\"%s\"", rows_threads(md->rs, md->rs->order[i]), (long long)t->ppeak,
			   (unsigned long long)kib(r, t->ppeak), secs(t->ppeak_ts),
			   (long long)t->pcur, (unsigned long long)t->seed,
			   rows_state(r, md->rs, md->rs->order[i]));
		stackreport_process_json(o, r, md->ks, md->rs->order[i]);
		out_puts(o, "}");
	}
	out_puts(o, "]");
}

/* The JSON writer: md as one object, the same facts as the text under their keys. */
static void json_mem_start(struct out *o, const struct proc_mem *m)
{
	if (!m->total_kib) {
		out_puts(o, "null");
		return;
	}
	out_printf(o, "{\"total_kib\":%" PRIu64 ",\"free_kib\":%" PRIu64 ",\"available_kib\":",
		   m->total_kib, m->free_kib);
	if (m->avail_kib)
		out_printf(o, "%" PRIu64 "}", m->avail_kib);
	else
		out_puts(o, "null}");
}

/* "kernel", "host" and "started_at" (ISO 8601 UTC): null where not known */
void report_identity_json(struct out *o, const struct meta *m)
{
	const char *key[3] = { "kernel", "host", "started_at" };
	char when[32];
	const char *val[3] = { m->kernel, m->host, when };
	int i;

	meta_when(m, true, when);
	for (i = 0; i < 3; i++) {
		out_printf(o, ",\"%s\":", key[i]);
		if (val[i][0])
			rows_json_str(o, val[i]);
		else
			out_puts(o, "null");
	}
}

/* ---- the head: what, why, when and where; the memory before memtrace ---- */


static void head_text(struct out *o, const struct report_model *md)
{
	const struct run *r = md->r;
	const struct stats *st = &r->st;

	out_printf(o, "memtrace %s report (trigger: %s, %s)\n", MEMTRACE_VERSION, md->trigger,
		   r->mode_name);
	if (r->opt.replay_dir && r->meta.incomplete)	/* a plausible report that is not whole */
		out_printf(o, "recording: INCOMPLETE (%s): what was not saved is missing here\n",
			   r->meta.why[0] ? r->meta.why : "no reason given");
	out_printf(o, "uptime: %.3f s; events from %.6f to %.6f s (trace clock)\n",
		   r->uptime_s, secs(st->first_ts), secs(st->last_ts));
	report_identity_text(o, r);
	text_mem_start(o, r);
}


static void head_json(struct out *o, const struct report_model *md)
{
	const struct run *r = md->r;
	const struct stats *st = &r->st;

	out_printf(o, "{\"memtrace_version\":\"%s\",\"trigger\":", MEMTRACE_VERSION);
	rows_json_str(o, md->trigger);
	out_puts(o, ",\"mode\":");
	rows_json_str(o, r->mode_name);
	if (r->opt.replay_dir) {
		out_printf(o, ",\"recording\":{\"complete\":%s,\"why\":",
			   r->meta.incomplete ? "false" : "true");
		rows_json_str(o, r->meta.incomplete ? r->meta.why : "");
		out_puts(o, "}");
	}
	out_printf(o, ",\"uptime_s\":%.3f,\"first_event_s\":%.6f,\"last_event_s\":%.6f,"
		   "\"page_size\":%u,\"memory_at_start\":", r->uptime_s, secs(st->first_ts),
		   secs(st->last_ts), r->meta.page_size);
	json_mem_start(o, &r->meta.mem_start);
	report_identity_json(o, &r->meta);
}


/* ---- where the events came from: tracefs and its instance, the ring buffer's layout ---- */


static void source_text(struct out *o, const struct report_model *md)
{
	const struct run *r = md->r;

	out_printf(o, "tracefs: %s", md->tracefs);
	if (*md->instance)
		out_printf(o, " instance %s", md->instance);
	if (r->tf.off_what[0])
		out_printf(o, "\ntracing switched off under memtrace at uptime %.3f s (%s; by "
			   "another tool?): nothing after that was traced", r->tf.off_uptime_s,
			   r->tf.off_what);
	out_printf(o, "\nring buffer: %s-endian (%s), %u-bit kernel, sub-buffers of %u bytes",
		   r->rd.layout.big_endian ? "big" : "little",
		   r->rd.order_known ? "from its pages" : "no page with data: this machine's order",
		   8 * r->rd.layout.commit_size, rb_subbuf_size(&r->rd.layout));
}


static void source_json(struct out *o, const struct report_model *md)
{
	const struct run *r = md->r;

	out_puts(o, ",\"tracefs\":{\"path\":");
	rows_json_str(o, md->tracefs);
	out_puts(o, ",\"instance\":");
	rows_json_str(o, md->instance);
	out_puts(o, ",\"switched_off\":");
	if (r->tf.off_what[0]) {
		out_puts(o, "{\"what\":");
		rows_json_str(o, r->tf.off_what);
		out_printf(o, ",\"uptime_s\":%.3f}", r->tf.off_uptime_s);
	} else {
		out_puts(o, "null");
	}
	out_printf(o, "},\"ring_buffer\":{\"byte_order\":\"%s\",\"order_from_data\":%s,"
		   "\"word_bytes\":%u,\"subbuf_bytes\":%u}", r->rd.layout.big_endian ? "big" : "little",
		   r->rd.order_known ? "true" : "false", r->rd.layout.commit_size,
		   rb_subbuf_size(&r->rd.layout));
}


/* ---- the events: enabled, missing, processed by kind (JSON: and what was skipped) ---- */


static void events_text(struct out *o, const struct report_model *md)
{
	const struct run *r = md->r;
	const struct stats *st = &r->st;
	const struct stats_counters *c = &st->c;
	int k;

	out_puts(o, "\nevents enabled:");
	for (k = 0; k < r->nenabled; k++)
		out_printf(o, " %s", r->enabled[k]);
	out_puts(o, "\nevents missing:");
	if (!r->nmissing)
		out_puts(o, " none");
	for (k = 0; k < r->nmissing; k++)
		out_printf(o, " %s", r->missing[k]);
	out_printf(o, "\nevents processed: %llu (", (unsigned long long)md->events);
	for (k = 1; k < EV__COUNT; k++)
		out_printf(o, "%s%s %llu", k > 1 ? ", " : "", mt_kind_name(k),
			   (unsigned long long)c->events[k]);
	out_puts(o, ")\n");
}


static void events_json(struct out *o, const struct report_model *md)
{
	const struct run *r = md->r;
	const struct stats *st = &r->st;
	const struct stats_counters *c = &st->c;
	int k;

	out_printf(o, ",\"events\":{\"processed\":%llu,\"by_kind\":{",
		   (unsigned long long)md->events);
	for (k = 1; k < EV__COUNT; k++)
		out_printf(o, "%s\"%s\":%llu", k > 1 ? "," : "", mt_kind_name(k),
			   (unsigned long long)c->events[k]);
	out_puts(o, "},\"enabled\":[");
	for (k = 0; k < r->nenabled; k++) {
		out_puts(o, k ? "," : "");
		rows_json_str(o, r->enabled[k]);
	}
	out_puts(o, "],\"missing\":[");
	for (k = 0; k < r->nmissing; k++) {
		out_puts(o, k ? "," : "");
		out_puts(o, "{\"event\":");
		rows_json_str(o, r->missing[k]);
		out_puts(o, ",\"lost\":");
		rows_json_str(o, r->missing_loss[k] ? r->missing_loss[k] : "");
		out_puts(o, "}");
	}
	out_printf(o, "],\"unknown_ids\":%llu,\"malformed\":%llu,\"bad_order\":%llu,"
		   "\"corrupt_subbuffers\":%llu,\"bad_subbuffers\":%llu,\"out_of_order\":%llu},",
		   (unsigned long long)r->rd.unknown_ids, (unsigned long long)r->rd.bad_records,
		   (unsigned long long)st->c.bad_order, (unsigned long long)md->corrupt_records,
		   (unsigned long long)md->corrupt_pages, (unsigned long long)r->rd.out_of_order);
}


/* ---- what was lost, the CPUs not read, the system peak (text: and what was skipped) ---- */


static void loss_text(struct out *o, const struct report_model *md)
{
	const struct run *r = md->r;
	const struct stats *st = &r->st;

	rows_lost_line(o, r);
	rows_cpus_line(o, r);
	rows_sys_peak_line(o, r, &md->sys, "system peak");
	if (md->skipped)
		out_printf(o, "records skipped: %llu unknown ids, %llu malformed, %llu with an "
			   "absurd order; sub-buffers: %llu cut short by a malformed record, %llu unusable\n",
			   (unsigned long long)r->rd.unknown_ids,
			   (unsigned long long)r->rd.bad_records,
			   (unsigned long long)st->c.bad_order,
			   (unsigned long long)md->corrupt_records,
			   (unsigned long long)md->corrupt_pages);
	rows_out_of_order_line(o, r);
}


static void loss_json(struct out *o, const struct report_model *md)
{
	const struct run *r = md->r;

	rows_json_lost(o, r);
	rows_json_cpus(o, r);
	rows_json_sys_peak(o, r, &md->sys);
}


/* ---- what the accounting could not place: untracked frees, moves, failures, overflows ---- */


static void counters_text(struct out *o, const struct report_model *md)
{
	const struct run *r = md->r;
	const struct stats *st = &r->st;
	const struct stats_counters *c = &st->c;

	out_printf(o, "untracked frees: %llu events, %llu pages (allocated before tracing or "
		   "by the untraced bulk allocator)\n",
		   (unsigned long long)c->untracked_frees,
		   (unsigned long long)c->untracked_free_pages);
	rows_moved_line(o, r);
	out_printf(o, "failed allocations: %llu; irq-context pages: %llu; "
		   "double allocations: %llu; memtrace's own allocations: %llu (not counted)\n",
		   (unsigned long long)c->failed_allocs, (unsigned long long)c->irq_pages,
		   (unsigned long long)c->double_allocs, (unsigned long long)c->self_allocs);
	out_printf(o, "table overflows: tasks %llu events/%llu pages, modules %llu, "
		   "pfn out of range %llu; recycled tasks %llu (largest peak %lld pages)\n",
		   (unsigned long long)st->tb.c.task_overflow_events,
		   (unsigned long long)c->task_overflow_pages,
		   (unsigned long long)st->tb.c.module_overflow,
		   (unsigned long long)c->pfn_out_of_range,
		   (unsigned long long)st->tb.c.tasks_recycled, (long long)st->tb.c.recycled_max_peak);
}


static void counters_json(struct out *o, const struct report_model *md)
{
	const struct run *r = md->r;
	const struct stats *st = &r->st;
	const struct stats_counters *c = &st->c;

	out_printf(o, "\"untracked_frees\":{\"events\":%llu,\"pages\":%llu},",
		   (unsigned long long)c->untracked_frees,
		   (unsigned long long)c->untracked_free_pages);
	rows_json_moved(o, r);
	out_printf(o, "\"failed_allocs\":%llu,\"irq_pages\":%llu,\"double_allocs\":%llu,"
		   "\"self_allocs\":%llu,",
		   (unsigned long long)c->failed_allocs, (unsigned long long)c->irq_pages,
		   (unsigned long long)c->double_allocs, (unsigned long long)c->self_allocs);
	out_printf(o, "\"overflows\":{\"task_events\":%llu,\"task_pages\":%llu,"
		   "\"tasks_recycled\":%llu,\"recycled_max_peak_pages\":%lld,\"modules\":%llu,"
		   "\"pfn_out_of_range\":%llu,\"module_loads_without_slot\":%llu,"
		   "\"serials_renumbered\":%llu},",
		   (unsigned long long)st->tb.c.task_overflow_events,
		   (unsigned long long)c->task_overflow_pages,
		   (unsigned long long)st->tb.c.tasks_recycled, (long long)st->tb.c.recycled_max_peak,
		   (unsigned long long)st->tb.c.module_overflow,
		   (unsigned long long)c->pfn_out_of_range,
		   (unsigned long long)st->tb.c.module_pseudo, (unsigned long long)st->tb.c.renumbered);
}


/* ---- the tasks seeded at start (text: and serials renumbered) ---- */


static void seed_text(struct out *o, const struct report_model *md)
{
	const struct run *r = md->r;
	const struct stats *st = &r->st;
	const struct stats_counters *c = &st->c;

	/*
	 * A long-running process's resident pages can dwarf what it took while
	 * traced: say that they are in the figures, and how to leave them out.
	 */
	if (r->seed_tasks && r->seed_from_boot)
		out_printf(o, "seeded at start: %u tasks, %llu pages (from the boot buffer's page "
			   "events: what each held then); freed since %llu, dropped at exit %llu\n"
			   "seeded pages are in PEAK_PAGES and CUR_PAGES (SEEDED: a row's), and "
			   "not in the system peak, which is what was taken above the start\n",
			   r->seed_tasks, (unsigned long long)r->seed_pages,
			   (unsigned long long)c->seed_freed_pages,
			   (unsigned long long)c->seed_dropped_pages);
	else if (r->seed_tasks)
		out_printf(o, "seeded at start: %u tasks, %llu pages (statm resident); freed since "
			   "%llu, dropped at exit %llu\nseeded pages are in PEAK_PAGES and CUR_PAGES "
			   "(SEEDED: a row's); for only what was used while tracing: --no-seed, or "
			   "memtrace -- COMMAND\n", r->seed_tasks, (unsigned long long)r->seed_pages,
			   (unsigned long long)c->seed_freed_pages,
			   (unsigned long long)c->seed_dropped_pages);
	else
		out_puts(o, "seeded at start: none (every page counted was allocated while "
			 "tracing)\n");
	if (st->tb.c.module_pseudo || st->tb.c.renumbered)
		out_printf(o, "module loads by tasks without a slot (no bracket): %llu; task serials "
			   "renumbered: %llu\n", (unsigned long long)st->tb.c.module_pseudo,
			   (unsigned long long)st->tb.c.renumbered);
}


static void seed_json(struct out *o, const struct report_model *md)
{
	const struct run *r = md->r;
	const struct stats *st = &r->st;
	const struct stats_counters *c = &st->c;

	out_printf(o, "\"seed\":{\"tasks\":%u,\"pages\":%llu,\"freed_pages\":%llu,"
		   "\"left_at_exit_pages\":%llu,\"older_events\":%llu},", r->seed_tasks,
		   (unsigned long long)r->seed_pages, (unsigned long long)c->seed_freed_pages,
		   (unsigned long long)c->seed_dropped_pages,
		   (unsigned long long)c->seed_stale_events);
}


/* ---- the kernel's boot buffer, where it was read ---- */


/* Pages in use at the start by /proc/meminfo (MemTotal - MemFree), 0 if not known. */
static int64_t in_use_at_start(const struct run *r)
{
	const struct proc_mem *m = &r->meta.mem_start;

	return m->total_kib && r->meta.page_size ?
	       (int64_t)((m->total_kib - m->free_kib) * 1024 / r->meta.page_size) : 0;
}

/*
 * What the boot buffer's page events leave unexplained of the pages in use at
 * the start, in pages: the boot buffer itself, vmalloc'd memory (kernel stacks,
 * the modules' code: allocated in bulk, which makes no page event), and the
 * rest (taken before the events were on, or lost). The rest can be negative:
 * pages freed since the start read /proc/meminfo.
 */
struct boot_unexplained {
	int64_t use, all, buffer, vmalloc, rest;
};

static void boot_unexplained(const struct run *r, const struct boot_buffer *b,
			     struct boot_unexplained *u)
{
	int64_t pk = r->meta.page_size >= 1024 ? r->meta.page_size / 1024 : 1;

	u->use = in_use_at_start(r);
	u->all = u->use - b->end;
	u->buffer = (int64_t)r->sz.bootbuf_kib / pk;
	u->vmalloc = (int64_t)r->meta.mem_start.vmalloc_kib / pk;
	u->rest = u->all - u->buffer - u->vmalloc;
}

/*
 * The boot buffer's loss, and what would have kept it: the events lost times
 * what an event took there (its sub-buffers' bytes over its records). That is
 * enough even where one CPU lost them all (trace_buf_size= is a CPU's).
 */
static void boot_lost_text(struct out *o, const struct boot_buffer *b, uint32_t subbuf)
{
	uint64_t per = b->records ? b->pages * subbuf / b->records : 0, bytes, kib;

	out_printf(o, "the boot buffer lost %llu%s events, its oldest (overwritten)",
		   (unsigned long long)b->lost, b->lost_unknown ? " (at least)" : "");
	if (per && b->lost && !__builtin_mul_overflow(b->lost, per, &bytes)) {
		kib = bytes / 1024 + (bytes % 1024 != 0);
		out_printf(o, ": a trace_buf_size= %sabout %llu KiB larger keeps them (%llu "
			   "bytes an event there)", b->lost_unknown ? "at least " : "",
			   (unsigned long long)kib, (unsigned long long)per);
	} else {
		out_puts(o, ": a larger trace_buf_size= keeps them");
	}
	out_puts(o, "\n");
}

/*
 * The boot buffer's page events: what they explain of the memory in use when
 * memtrace started, what they do not, the boot's own peak, what was lost.
 */
static void boot_pages_text(struct out *o, const struct report_model *md)
{
	const struct boot_buffer *b = md->boot;
	const struct run *r = md->r;
	struct boot_unexplained u;
	int64_t peak = b->peak_before > b->peak_after ? b->peak_before : b->peak_after;

	if (!b->page_events)
		return;
	boot_unexplained(r, b, &u);
	out_printf(o, "before memtrace: %lld pages in use at the start (MemTotal - MemFree); the "
		   "boot buffer's %llu page events (%.6f to %.6f s) explain %lld, held then by the "
		   "tasks they seed; %lld not: the boot buffer itself %lld, vmalloc'd memory %lld "
		   "(kernel stacks, modules' code: allocated in bulk, no page event), the rest %lld "
		   "(%.1f%% of the pages in use: taken before the events were on, or lost)\n",
		   (long long)u.use, (unsigned long long)b->page_events, secs(b->first_ts),
		   secs(b->last_ts), (long long)b->end, (long long)u.all, (long long)u.buffer,
		   (long long)u.vmalloc, (long long)u.rest,
		   u.use ? 100.0 * (double)u.rest / (double)u.use : 0.0);
	out_printf(o, "the boot's peak: %lld pages held at once at %.6f s (%lld before the "
		   "compressed initramfs was freed", (long long)peak, secs(b->peak_ts),
		   (long long)b->peak_before);
	if (r->sz.initrd_known)
		out_printf(o, ", which held %llu KiB more then", (unsigned long long)r->sz.initrd_kib);
	out_puts(o, ")\n");
	if (b->lost || b->lost_unknown)
		boot_lost_text(o, b, rb_subbuf_size(&r->rd.layout));
}

static void boot_pages_json(struct out *o, const struct report_model *md)
{
	const struct boot_buffer *b = md->boot;
	struct boot_unexplained u;

	if (!b->page_events) {
		out_puts(o, ",\"page_events\":0");
		return;
	}
	boot_unexplained(md->r, b, &u);
	out_printf(o, ",\"page_events\":%llu,\"first_s\":%.6f,\"last_s\":%.6f,"
		   "\"in_use_at_start_pages\":%lld,\"explained_pages\":%lld,"
		   "\"unexplained_pages\":{\"all\":%lld,\"boot_buffer\":%lld,\"vmalloc\":%lld,"
		   "\"rest\":%lld},\"peak_before_initrd_free_pages\":%lld,"
		   "\"peak_after_pages\":%lld,\"peak_time_s\":%.6f",
		   (unsigned long long)b->page_events, secs(b->first_ts), secs(b->last_ts),
		   (long long)u.use, (long long)b->end, (long long)u.all, (long long)u.buffer,
		   (long long)u.vmalloc, (long long)u.rest, (long long)b->peak_before,
		   (long long)b->peak_after, secs(b->peak_ts));
}

static void boot_text(struct out *o, const struct report_model *md)
{
	const struct boot_buffer *boot = md->boot;

	if (boot) {
		out_printf(o, "boot buffer: %llu sub-buffers, %llu records, %u module events used "
			   "(%llu beyond the table), %llu lost%s, %llu malformed",
			   (unsigned long long)boot->pages,
			   (unsigned long long)boot->records, boot->applied,
			   (unsigned long long)boot->dropped,
			   (unsigned long long)boot->lost,
			   boot->lost_unknown ? " (at least)" : "",
			   (unsigned long long)boot->bad);
		if (boot->truncated)
			out_printf(o, "; %u CPUs not read to the end (the top level kept "
				   "recording)", boot->truncated);
		out_puts(o, "\n");
		boot_pages_text(o, md);
	}
}


static void boot_json(struct out *o, const struct report_model *md)
{
	const struct boot_buffer *boot = md->boot;

	if (!boot)
		return;
	out_printf(o, "\"boot_buffer\":{\"sub_buffers\":%llu,\"records\":%llu,"
		   "\"module_events_used\":%u,\"module_events_dropped\":%llu,"
		   "\"lost_events\":%llu,\"lost_unknown_pages\":%llu,\"malformed\":%llu,"
		   "\"cpus_not_drained\":%u",
		   (unsigned long long)boot->pages,
		   (unsigned long long)boot->records, boot->applied,
		   (unsigned long long)boot->dropped,
		   (unsigned long long)boot->lost,
		   (unsigned long long)boot->lost_unknown,
		   (unsigned long long)boot->bad, boot->truncated);
	boot_pages_json(o, md);
	out_puts(o, "},");
}


/* ---- OOM kills, and the reports kept of them ---- */


static void oom_text(struct out *o, const struct report_model *md)
{
	const struct run *r = md->r;
	const struct stats *st = &r->st;

	rows_oom_line(o, st, "oom kills seen");
	if (r->oom.kept)
		out_printf(o, "oom reports kept: %u (%s.oom.%u to .%u); %llu not kept (--keep-oom %u: "
			   "the last one replaced)\n", r->oom.kept, r->opt.log_path, r->oom.first,
			   r->oom.first + r->oom.kept - 1, (unsigned long long)r->oom.not_kept,
			   r->opt.keep_oom);
}


static void oom_json(struct out *o, const struct report_model *md)
{
	const struct run *r = md->r;
	const struct stats *st = &r->st;

	if (st->oom_count) {
		out_printf(o, "\"oom\":{\"count\":%llu,\"victim_pid\":%d,\"victim_comm\":",
			   (unsigned long long)st->oom_count, st->oom_pid);
		rows_json_str(o, st->oom_comm);
		out_printf(o, ",\"time_s\":%.6f,\"reports_kept\":%u,\"reports_not_kept\":%llu,"
			   "\"last_report\":", secs(st->oom_ts), r->oom.kept,
			   (unsigned long long)r->oom.not_kept);
		if (r->oom.kept)
			rows_json_str(o, r->oom.last);
		else
			out_puts(o, "null");
		out_puts(o, "},");
	} else {
		out_puts(o, "\"oom\":null,");
	}
}


/* ---- the stack table, and memtrace's own memory ---- */


static void self_text(struct out *o, const struct report_model *md)
{
	const struct run *r = md->r;

	stackreport_counters_text(o, r);
	if (r->self_rss_kib >= 0)
		out_printf(o, "memtrace itself: rss %ld KiB (pfn map %ld KiB of it), peak rss %ld KiB\n",
			   r->self_rss_kib, r->self_map_kib, r->self_hwm_kib);
}


static void self_json(struct out *o, const struct report_model *md)
{
	const struct run *r = md->r;

	stackreport_counters_json(o, r, "", ",");
	if (r->self_rss_kib >= 0)
		out_printf(o, "\"self\":{\"rss_kib\":%ld,\"hwm_kib\":%ld,\"pfn_map_kib\":%ld},",
			   r->self_rss_kib, r->self_hwm_kib, r->self_map_kib);
}


/* ---- the rows: tasks, or processes with their threads summed; each with its stacks ---- */


static void table_text(struct out *o, const struct report_model *md)
{
	const struct run *r = md->r;
	const struct stats *st = &r->st;
	uint32_t i;

	if (md->by_process) {
		text_processes(o, md);
		return;
	}
	out_printf(o, "\nTASKS: %u of %u with pages, by peak (page = %u bytes)\n", md->rows,
		   md->with_pages, r->meta.page_size);
	out_printf(o, "%8s %8s %8s %10s %10s %10s %10s %-7s %12s  %s\n", "PID", "TGID", "PPID",
		   "PEAK_PAGES", "PEAK_KIB", "CUR_PAGES", "SEEDED", "STATE", "PEAK_AT_S", "COMM");
	for (i = 0; i < md->rows; i++) {
		const struct mt_task *t = &st->tb.tasks[md->rs->order[i]];

		out_printf(o, "%8d %8d %8d %10lld %10llu %10lld %10llu %-7s %12.6f  ", t->tid,
			   t->tgid, t->ppid, (long long)t->peak,
			   (unsigned long long)kib(r, t->peak), (long long)t->cur,
			   (unsigned long long)t->seed, task_state_name(t), secs(t->peak_ts));
		rows_text_comm(o, t);
		out_puts(o, "\n");
	}
	for (i = 0; i < md->rows; i++)
		stackreport_task_text(o, r, md->ks, &st->tb.tasks[md->rs->order[i]]);
}


static void table_json(struct out *o, const struct report_model *md)
{
	const struct run *r = md->r;
	const struct stats *st = &r->st;
	uint32_t i;

	if (md->by_process) {
		json_processes(o, md);
		return;
	}
	out_printf(o, "\"view\":\"task\",\"tasks_with_pages\":%u,\"tasks\":[", md->with_pages);
	for (i = 0; i < md->rows; i++) {
		const struct mt_task *t = &st->tb.tasks[md->rs->order[i]];

		out_printf(o, "%s%s{\"pid\":%d,\"tgid\":%d,\"ppid\":%d,\"comm\":", i ? "," : "",
			   row_break(r), t->tid, t->tgid, t->ppid);
		rows_json_comm(o, t);
		out_printf(o, ",\"peak_pages\":%lld,\"peak_kib\":%llu,\"peak_time_s\":%.6f,"
			   "\"current_pages\":%lld,\"seeded_pages\":%llu,\"allocated_pages\":%llu,"
			   "\"freed_pages\":%llu,\"state\":\"%s\"",
			   (long long)t->peak, (unsigned long long)kib(r, t->peak),
			   secs(t->peak_ts), (long long)t->cur, (unsigned long long)t->seed,
			   (unsigned long long)t->alloc_pages, (unsigned long long)t->freed_pages,
			   task_state_name(t));
		stackreport_task_json(o, r, md->ks, t);
		out_puts(o, "}");
	}
	out_puts(o, "]");
}


/* ---- the modules, each with its stacks ---- */


static void modules_text(struct out *o, const struct report_model *md)
{
	const struct run *r = md->r;
	const struct stats *st = &r->st;
	uint32_t i;

	if (md->no_module_events) {
		out_puts(o, r->opt.replay_dir ? "\nMODULES: none (no module events in the "
			 "recording)\n" : "\nMODULES: none (no module events on this kernel)\n");
		return;
	}
	out_printf(o, "\nMODULES: %u of %u, by peak%s\n", md->mod_rows, md->nmods, st->stacks_on ?
		   " (pages by allocation stack or load bracket, each once; LOAD_PEAK: the "
		   "bracket's alone)" : "");
	out_printf(o, "%-24s %10s %10s %10s ", "NAME", "PEAK_PAGES", "PEAK_KIB", "CUR_PAGES");
	if (st->stacks_on)
		out_printf(o, "%10s ", "LOAD_PEAK");
	out_printf(o, "%10s %8s %-8s %s\n", "STATIC_KIB", "LOADER", "STATE", "BRACKET");
	for (i = 0; i < md->mod_rows; i++) {
		const struct mt_module *m = rows_mod_at(r, md->rs->mod_order[i]);
		char skib[24], name[MODNAME_LEN], loader[16];

		if (m->static_known)
			snprintf(skib, sizeof(skib), "%llu", (unsigned long long)m->static_kib);
		else
			strcpy(skib, "-");
		/* module names come from records: the table stays aligned whatever they hold */
		if (!escape_ascii(name, sizeof(name), m->name, sizeof(m->name), true))
			strcpy(name, "(unnamed)");
		if (no_loader(m))
			strcpy(loader, "-");
		else
			snprintf(loader, sizeof(loader), "%d", m->loader_tid);
		out_printf(o, "%-24s %10lld %10llu %10lld ", name, (long long)m->all_peak,
			   (unsigned long long)kib(r, m->all_peak), (long long)m->all_cur);
		if (st->stacks_on)
			out_printf(o, "%10lld ", (long long)m->peak);
		out_printf(o, "%10s %8s %-8s %s\n", skib, loader, module_state_name(m),
			   bracket_name(m->bracket));
	}
	if (md->mods_before)
		out_printf(o, "(%u modules in state before: loaded before tracing began, no "
			   "events seen; static size from the kernel only)\n", md->mods_before);
	if (md->mods_untraced)
		out_printf(o, "(%u modules in state untraced: loaded while tracing but no event "
			   "seen (lost, or after tracing stopped); static size only)\n",
			   md->mods_untraced);
	if (r->meta.extra_dropped)
		out_printf(o, "(%u more modules in /proc/modules not listed: module table full)\n",
			   r->meta.extra_dropped);
	stackreport_modules_text(o, r, md->ks, md->rs->mod_order, md->mod_rows);
}


static void modules_json(struct out *o, const struct report_model *md)
{
	const struct run *r = md->r;
	uint32_t i;

	out_printf(o, ",\"modules_total\":%u,\"modules\":[", md->nmods);
	for (i = 0; i < md->mod_rows; i++) {
		const struct mt_module *m = rows_mod_at(r, md->rs->mod_order[i]);

		out_printf(o, "%s%s{\"name\":", i ? "," : "", row_break(r));
		rows_json_str(o, m->name);
		out_printf(o, ",\"peak_pages\":%lld,\"peak_kib\":%llu,\"peak_time_s\":%.6f,"
			   "\"current_pages\":%lld,\"load_peak_pages\":%lld,\"load_current_pages\":%lld,",
			   (long long)m->all_peak, (unsigned long long)kib(r, m->all_peak),
			   secs(m->all_peak_ts), (long long)m->all_cur, (long long)m->peak,
			   (long long)m->cur);
		if (m->static_known)
			out_printf(o, "\"static_kib\":%llu,", (unsigned long long)m->static_kib);
		else
			out_puts(o, "\"static_kib\":null,");
		if (no_loader(m))
			out_puts(o, "\"loader_pid\":null,");
		else
			out_printf(o, "\"loader_pid\":%d,", m->loader_tid);
		out_printf(o, "\"state\":\"%s\",\"bracket\":\"%s\",\"allocated_pages\":%llu",
			   module_state_name(m), bracket_name(m->bracket),
			   (unsigned long long)m->alloc_pages);
		stackreport_module_json(o, r, md->ks, m);
		out_puts(o, "}");
	}
	out_printf(o, "],\"modules_not_listed\":%u", r->meta.extra_dropped);
}

/* ---- a capture kernel's answer: how much crashkernel=; the end ---- */

static void answer_text(struct out *o, const struct report_model *md)
{
	crashkernel_text(o, md->r);
}

static void answer_json(struct out *o, const struct report_model *md)
{
	crashkernel_json(o, md->r);
	out_puts(o, "}\n");
}

/*
 * The report: its sections in order, each a group of the model's facts and its
 * two writers side by side. A fact is placed where each format wants it (the
 * text says what was skipped beside the losses, JSON inside "events").
 */
static const struct report_section {
	void (*text)(struct out *o, const struct report_model *md);
	void (*json)(struct out *o, const struct report_model *md);
} sections[] = {
	{ head_text, head_json },
	{ source_text, source_json },
	{ events_text, events_json },
	{ loss_text, loss_json },
	{ counters_text, counters_json },
	{ seed_text, seed_json },
	{ boot_text, boot_json },
	{ oom_text, oom_json },
	{ self_text, self_json },
	{ table_text, table_json },
	{ modules_text, modules_json },
	{ answer_text, answer_json },
};

void report_write(struct out *o, const struct run *r, struct report_scratch *rs,
		  const char *trigger)
{
	struct report_model md;
	struct ksyms ks;
	uint32_t i;

	stackreport_begin(r, &ks);
	model_fill(&md, r, rs, trigger, &ks);
	/* the names of the frames it prints: the rows it lists, in the order it lists them */
	for (i = 0; i < md.mod_rows; i++)
		stackreport_want_module(r, &ks, rows_mod_at(r, rs->mod_order[i]));
	for (i = 0; i < md.rows; i++) {
		if (md.by_process)
			stackreport_want_process(r, &ks, rs->order[i]);
		else
			stackreport_want_task(r, &ks, &r->st.tb.tasks[rs->order[i]]);
	}
	stackreport_resolve(r, &ks);
	for (i = 0; i < ARRAY_SIZE(sections); i++)
		(rows_json(r) ? sections[i].json : sections[i].text)(o, &md);
	stackreport_end(&ks);
}

void report_summary(const struct run *r, struct report_scratch *rs, const char *trigger,
		    const char *where, unsigned ntop, void (*emit)(void *ctx, const char *line),
		    void *ctx)
{
	const struct boot_buffer *boot = boot_of(r);
	const struct stats *st = &r->st;
	/* --by process: processes (threads summed), as the full report lists them */
	bool procs = r->opt.by_process;
	const char *what = procs ? "process" : "task";
	uint32_t ntasks = procs ? rows_processes(r, rs, false) : rows_tasks(r, rs);
	uint32_t nmods = rows_modules(r, rs), i;
	uint32_t listed = rows_listed(r, nmods);
	uint32_t shown = ntop < listed ? ntop : listed;
	char line[960], name[4 * MODNAME_LEN], trig[32], path[256], ckline[980], sample[512];
	int n;

	escape_ascii(trig, sizeof(trig), trigger, strlen(trigger), false);
	escape_ascii(path, sizeof(path), where, strlen(where), false);
	snprintf(line, sizeof(line), "memtrace: report (%s): %llu events, %llu lost%s%s, "
		 "%u %s with pages, %u modules; full report in %s", trig,
		 (unsigned long long)rows_events(st), (unsigned long long)rows_lost(r),
		 reader_missed_unknown(&r->rd) ? " (at least)" : "",
		 boot && (boot->lost || boot->lost_unknown) ?
		 " (and some in the boot buffer)" : "", ntasks, procs ? "processes" : "tasks",
		 nmods, path);
	emit(ctx, line);
	for (i = 0; i < ntasks && i < ntop; i++) {
		const struct mt_task *t = &st->tb.tasks[rs->order[i]];
		int64_t peak;

		if (t->flags & TF_COMM_KNOWN)
			escape_ascii(name, sizeof(name), t->comm, t->comm_len, false);
		else
			strcpy(name, "?");
		peak = procs ? t->ppeak : t->peak;
		n = snprintf(line, sizeof(line), "memtrace: top %s: pid %d (%s) peak %lld pages "
			     "(%llu KiB)", what, procs ? pid_of(t) : t->tid, name, (long long)peak,
			     (unsigned long long)kib(r, peak));
		/* what it held before tracing began, not what it took since (a task's) */
		if (!procs && t->seed && n > 0 && (size_t)n < sizeof(line))
			snprintf(line + n, sizeof(line) - (size_t)n, ", %llu of them seeded at start",
				 (unsigned long long)t->seed);
		emit(ctx, line);
	}
	/* the report's module order (rows_modules): by peak, then static size, then table order */
	for (i = 0; i < shown; i++) {
		const struct mt_module *m = rows_mod_at(r, rs->mod_order[i]);

		escape_ascii(name, sizeof(name), m->name, strlen(m->name), false);
		if (m->static_known)
			snprintf(line, sizeof(line), "memtrace: top module: %s peak %lld pages "
				 "(%llu KiB), static %llu KiB, %s", name[0] ? name : "(unnamed)",
				 (long long)m->all_peak, (unsigned long long)kib(r, m->all_peak),
				 (unsigned long long)m->static_kib, module_state_name(m));
		else
			snprintf(line, sizeof(line), "memtrace: top module: %s peak %lld pages "
				 "(%llu KiB), %s", name[0] ? name : "(unnamed)",
				 (long long)m->all_peak, (unsigned long long)kib(r, m->all_peak),
				 module_state_name(m));
		emit(ctx, line);
	}
	/* the rest: in the full report, or left out of it too (-n) */
	if (listed > shown && nmods > listed)
		snprintf(line, sizeof(line), "memtrace: %u more modules in the full report, %u not "
			 "listed there (-n %u)", listed - shown, nmods - listed, r->opt.rows);
	else if (listed > shown)
		snprintf(line, sizeof(line), "memtrace: %u more modules in the full report",
			 listed - shown);
	else if (nmods > listed)
		snprintf(line, sizeof(line), "memtrace: %u more modules, not listed in the full "
			 "report (-n %u)", nmods - listed, r->opt.rows);
	if (nmods > shown)
		emit(ctx, line);
	/*
	 * The memory at start, where known: with the system peak, what a crashkernel=
	 * size needs; in a capture that reboots, the kernel log (the journal) keeps this
	 * summary where the full report is gone.
	 */
	if (r->meta.mem_start.total_kib) {
		n = snprintf(line, sizeof(line), "memtrace: ");
		mem_start_text(r, line + n, sizeof(line) - (size_t)n);
		emit(ctx, line);
	}
	/* what a crashkernel= size needs: all tracked pages at once, at their highest */
	snprintf(line, sizeof(line), "memtrace: system peak: %lld pages (%llu KiB) above the start, "
		 "at %.3f s", (long long)st->sys_peak, (unsigned long long)kib(r, st->sys_peak),
		 secs(st->sys_peak_ts));
	emit(ctx, line);
	/* in a capture kernel, the answer last: what its crashkernel= must hold, P explained */
	if (crashkernel_line(line, sizeof(line), r)) {
		if (crashkernel_sample_line(sample, sizeof(sample), r)) {
			snprintf(ckline, sizeof(ckline), "memtrace: %s", sample);
			emit(ctx, ckline);
		}
		snprintf(ckline, sizeof(ckline), "memtrace: %s", line);
		emit(ctx, ckline);
	}
}

#define OOM_TOP_MAX	32	/* modules an OOM summary may name */

static int64_t module_now(const void *ctx, uint32_t i)
{
	return ((const struct table *)ctx)->mods[i].all_cur;
}

void report_oom_summary(const struct run *r, struct report_scratch *rs, unsigned ntop,
			uint64_t not_summarized, void (*emit)(void *ctx, const char *line),
			void *ctx)
{
	const struct table *tb = &r->st.tb;
	uint32_t n = rows_tasks_now(r, rs), i, k, nm, top[OOM_TOP_MAX];
	char line[512], name[4 * MODNAME_LEN];

	for (i = 0; i < n && i < ntop; i++) {
		const struct mt_task *t = &tb->tasks[rs->order[i]];

		if (t->flags & TF_COMM_KNOWN)
			escape_ascii(name, sizeof(name), t->comm, t->comm_len, false);
		else
			strcpy(name, "?");
		snprintf(line, sizeof(line), "memtrace: oom: pid %d (%s) holds %lld pages (%llu KiB)",
			 t->tid, name, (long long)t->cur, (unsigned long long)kib(r, t->cur));
		emit(ctx, line);
	}
	nm = rows_select(tb->nmods, module_now, tb, ntop < OOM_TOP_MAX ? ntop : OOM_TOP_MAX, top);
	for (k = 0; k < nm; k++) {
		const struct mt_module *m = &tb->mods[top[k]];

		escape_ascii(name, sizeof(name), m->name, strlen(m->name), false);
		snprintf(line, sizeof(line), "memtrace: oom: module %s holds %lld pages (%llu KiB)",
			 name[0] ? name : "(unnamed)", (long long)m->all_cur,
			 (unsigned long long)kib(r, m->all_cur));
		emit(ctx, line);
	}
	/* what a crashkernel= size needs, as the final summary says it: the peak so far */
	snprintf(line, sizeof(line), "memtrace: oom: %lld pages (%llu KiB) above the start now; "
		 "system peak %lld pages (%llu KiB) at %.3f s", (long long)r->st.sys_cur,
		 (unsigned long long)kib(r, r->st.sys_cur), (long long)r->st.sys_peak,
		 (unsigned long long)kib(r, r->st.sys_peak), secs(r->st.sys_peak_ts));
	emit(ctx, line);
	snprintf(line, sizeof(line), "memtrace: oom: %llu events lost so far%s; %llu oom kills "
		 "before this one not summarized (rate limit)", (unsigned long long)rows_lost(r),
		 reader_missed_unknown(&r->rd) ? " (at least)" : "",
		 (unsigned long long)not_summarized);
	emit(ctx, line);
}
