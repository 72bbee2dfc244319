// SPDX-License-Identifier: GPL-2.0-only
/* report.c - text and JSON reports of the task and module tables */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

void escape_text(struct out *o, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		char e[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };

		if (c == '\\')
			out_write(o, "\\\\", 2);
		else if (c >= 0x20 && c < 0x7f)
			out_write(o, (const char *)&s[i], 1);
		else
			out_write(o, e, 4);
	}
}

/* Length of a valid UTF-8 sequence at s (1..4), or 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	uint32_t cp;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n > left)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void escape_json(struct out *o, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		unsigned char c = u[i];
		size_t n = utf8_len(u + i, len - i);

		if (n == 0) {
			out_puts(o, "\\ufffd");
			i++;
		} else if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };

			out_write(o, e, 2);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			out_printf(o, "\\u%04x", c);
			i++;
		} else if (n == 2 && c == 0xc2 && u[i + 1] < 0xa0) {
			out_printf(o, "\\u%04x", u[i + 1]);	/* C1 control */
			i += 2;
		} else {
			out_write(o, s + i, n);
			i += n;
		}
	}
}

const char *task_state_name(const struct mt_task *t)
{
	if (t->flags & TF_PSEUDO)
		return "pseudo";
	return t->state == TASK_EXITED ? "exited" : "alive";
}

const char *module_state_name(const struct mt_module *m)
{
	switch (m->state) {
	case MOD_LOADING:
		return "loading";
	case MOD_LIVE:
		return "live";
	case MOD_FAILED:
		return "failed";
	case MOD_UNLOADED:
		return "unloaded";
	case MOD_BEFORE:
		return "before";
	case MOD_UNTRACED:
		return "untraced";
	default:
		return "unknown";
	}
}

/* Module @i of the table followed by the report-time extra list. */
static const struct mt_module *mod_at(const struct report_input *in, uint32_t i)
{
	return i < in->st->nmods ? &in->st->mods[i] : &in->extra[i - in->st->nmods];
}

static bool no_loader(const struct mt_module *m)
{
	return m->state == MOD_BEFORE || m->state == MOD_UNTRACED;
}

static const char *bracket_name(uint8_t b)
{
	return b == BR_SYSCALL ? "syscall" : b == BR_LOADPUT ? "load-put" :
	       b == BR_BOOT ? "boot" : "none";
}

/* Module names come from records: keep the table aligned whatever they hold. */
static void safe_name(char *dst, size_t size, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < size && src[i]; i++)
		dst[i] = (src[i] > 0x20 && src[i] < 0x7f) ? src[i] : '?';
	dst[i] = '\0';
	if (!i)
		snprintf(dst, size, "(unnamed)");
}

static const struct stats *sort_st;

static int by_peak(const void *a, const void *b)
{
	const struct mt_task *x = &sort_st->tasks[*(const uint32_t *)a];
	const struct mt_task *y = &sort_st->tasks[*(const uint32_t *)b];

	if (x->peak != y->peak)
		return x->peak < y->peak ? 1 : -1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->serial < y->serial ? -1 : 1;
}

/* Tasks with a non-zero peak, sorted by peak; returns their number. */
static uint32_t sorted_tasks(const struct report_input *in)
{
	const struct stats *st = in->st;
	uint32_t i, n = 0;

	for (i = 0; i < st->ntasks_used; i++)
		if (st->tasks[i].state != TASK_UNUSED && st->tasks[i].peak > 0)
			in->order[n++] = i;
	sort_st = st;
	qsort(in->order, n, sizeof(*in->order), by_peak);
	return n;
}

#define PROC_ALIVE	0x80000000u	/* in in->threads: a thread of it is alive */

static const struct stats *sort_pst;

static uint32_t nthreads(const struct report_input *in, uint32_t slot)
{
	return in->threads[slot] & ~PROC_ALIVE;
}

/* A process is alive while one of its threads is, whatever its leader did. */
static const char *proc_state(const struct report_input *in, uint32_t slot)
{
	const struct mt_task *t = &in->st->tasks[slot];

	if (t->flags & TF_PSEUDO)
		return "pseudo";
	return in->threads[slot] & PROC_ALIVE ? "alive" : "exited";
}

static int by_ppeak(const void *a, const void *b)
{
	const struct mt_task *x = &sort_pst->tasks[*(const uint32_t *)a];
	const struct mt_task *y = &sort_pst->tasks[*(const uint32_t *)b];

	if (x->ppeak != y->ppeak)
		return x->ppeak < y->ppeak ? 1 : -1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->serial < y->serial ? -1 : 1;
}

/* Slot of task @t in the table. */
static uint32_t slot_of(const struct stats *st, const struct mt_task *t)
{
	return (uint32_t)(t - st->tasks);
}

/*
 * Processes (a leader, or a task whose leader is unknown) with a non-zero
 * peak, sorted by peak; in->threads[slot] gets each one's thread count.
 * With @tree_only, only processes of the command's tree.
 */
static uint32_t sorted_processes(const struct report_input *in, bool tree_only)
{
	const struct stats *st = in->st;
	uint32_t i, n = 0;

	memset(in->threads, 0, st->ntasks_used * sizeof(*in->threads));
	for (i = SLOT_FIRST; i < st->ntasks_used; i++) {
		const struct mt_task *t = &st->tasks[i];
		uint32_t p;

		if (t->state == TASK_UNUSED)
			continue;
		p = slot_of(st, stats_process_of(st, t));
		in->threads[p]++;
		if (t->state == TASK_ALIVE)
			in->threads[p] |= PROC_ALIVE;
	}
	for (i = 0; i < st->ntasks_used; i++) {
		const struct mt_task *t = &st->tasks[i];

		if (t->state == TASK_UNUSED || t->ppeak <= 0 || stats_process_of(st, t) != t)
			continue;
		if (tree_only && !(t->flags & TF_TREE))
			continue;
		in->order[n++] = i;
	}
	sort_pst = st;
	qsort(in->order, n, sizeof(*in->order), by_ppeak);
	return n;
}

static int32_t pid_of(const struct mt_task *t)
{
	return t->tgid ? t->tgid : t->tid;
}

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

static uint64_t kib(const struct report_input *in, int64_t pages)
{
	return (uint64_t)(pages < 0 ? 0 : pages) * in->page_size / 1024;
}

static void text_comm(struct out *o, const struct mt_task *t)
{
	if (t->flags & TF_COMM_KNOWN)
		escape_text(o, t->comm, t->comm_len);
	else
		out_puts(o, "?");
}

static void json_comm(struct out *o, const struct mt_task *t)
{
	out_puts(o, "\"");
	if (t->flags & TF_COMM_KNOWN)
		escape_json(o, t->comm, t->comm_len);
	out_puts(o, "\"");
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

/* Only when there are any: events applied after one with a later time stamp. */
static void out_of_order_line(struct out *o, const struct report_input *in)
{
	if (in->rd && in->rd->out_of_order)
		out_printf(o, "events out of time order: %llu (applied as they came: a CPU's "
			   "events arrived late, or a time stamp was wrong)\n",
			   (unsigned long long)in->rd->out_of_order);
}

static uint64_t events_total(const struct stats *st)
{
	uint64_t n = 0;
	int k;

	for (k = 1; k < EV__COUNT; k++)
		n += st->c.events[k];
	return n;
}

/* --by process: one row per process, threads summed. */
static void text_processes(struct out *o, const struct report_input *in)
{
	const struct stats *st = in->st;
	uint32_t n = sorted_processes(in, false), rows, i;

	rows = in->top && in->top < n ? in->top : n;
	out_printf(o, "\nPROCESSES: %u of %u with pages, by peak, threads summed (page = %u "
		   "bytes)\n", rows, n, in->page_size);
	out_printf(o, "%8s %8s %7s %10s %10s %10s %10s %-7s %12s  %s\n", "PID", "PPID", "THREADS",
		   "PEAK_PAGES", "PEAK_KIB", "CUR_PAGES", "SEEDED", "STATE", "PEAK_AT_S", "COMM");
	for (i = 0; i < rows; i++) {
		const struct mt_task *t = &st->tasks[in->order[i]];

		out_printf(o, "%8d %8d %7u %10lld %10llu %10lld %10llu %-7s %12.6f  ", pid_of(t),
			   t->ppid, nthreads(in, in->order[i]), (long long)t->ppeak,
			   (unsigned long long)kib(in, t->ppeak), (long long)t->pcur,
			   (unsigned long long)t->seed, proc_state(in, in->order[i]),
			   secs(t->ppeak_ts));
		text_comm(o, t);
		out_puts(o, "\n");
	}
}

static void report_text(struct out *o, const struct report_input *in, uint32_t ntasks)
{
	const struct stats *st = in->st;
	const struct stats_counters *c = &st->c;
	uint32_t i, rows, before = 0, untraced = 0;
	int k;

	out_printf(o, "memtrace %s report (trigger: %s, %s)\n", MEMTRACE_VERSION, in->trigger,
		   in->mode);
	out_printf(o, "uptime: %.3f s; events from %.6f to %.6f s (trace clock)\n",
		   in->uptime_s, secs(st->first_ts), secs(st->last_ts));
	out_printf(o, "tracefs: %s", in->tracefs);
	if (in->instance && *in->instance)
		out_printf(o, " instance %s", in->instance);
	out_puts(o, "\nevents enabled:");
	for (k = 0; k < in->nenabled; k++)
		out_printf(o, " %s", in->enabled[k]);
	out_puts(o, "\nevents missing:");
	if (!in->nmissing)
		out_puts(o, " none");
	for (k = 0; k < in->nmissing; k++)
		out_printf(o, " %s", in->missing[k]);
	out_printf(o, "\nevents processed: %llu (", (unsigned long long)events_total(st));
	for (k = 1; k < EV__COUNT; k++)
		out_printf(o, "%s%s %llu", k > 1 ? ", " : "", mt_kind_name(k),
			   (unsigned long long)c->events[k]);
	out_puts(o, ")\n");
	out_printf(o, "lost events: %llu", (unsigned long long)in->lost_events);
	if (in->missed_unknown)
		out_printf(o, " (at least; %llu sub-buffers flagged lost without a count)",
			   (unsigned long long)in->missed_unknown);
	if (in->lost_events || in->missed_unknown)
		out_puts(o, " -- peaks may be underestimated");
	out_puts(o, "\n");
	if (in->rd && (in->rd->unknown_ids || in->rd->bad_records || corrupt_pages(in->rd) ||
		       corrupt_records(in->rd) || st->c.bad_order))
		out_printf(o, "records skipped: %llu unknown ids, %llu malformed, %llu with an "
			   "absurd order; sub-buffers: %llu cut short by a malformed record, %llu unusable\n",
			   (unsigned long long)in->rd->unknown_ids,
			   (unsigned long long)in->rd->bad_records,
			   (unsigned long long)st->c.bad_order,
			   (unsigned long long)corrupt_records(in->rd),
			   (unsigned long long)corrupt_pages(in->rd));
	out_of_order_line(o, in);
	out_printf(o, "untracked frees: %llu events, %llu pages (allocated before tracing or "
		   "by the untraced bulk allocator)\n",
		   (unsigned long long)c->untracked_frees,
		   (unsigned long long)c->untracked_free_pages);
	out_printf(o, "failed allocations: %llu; irq-context pages: %llu; "
		   "double allocations: %llu; memtrace's own allocations: %llu (not counted)\n",
		   (unsigned long long)c->failed_allocs, (unsigned long long)c->irq_pages,
		   (unsigned long long)c->double_allocs, (unsigned long long)c->self_allocs);
	out_printf(o, "table overflows: tasks %llu events/%llu pages, modules %llu, "
		   "pfn out of range %llu; recycled tasks %llu (largest peak %lld pages)\n",
		   (unsigned long long)c->task_overflow_events,
		   (unsigned long long)c->task_overflow_pages,
		   (unsigned long long)c->module_overflow,
		   (unsigned long long)c->pfn_out_of_range,
		   (unsigned long long)c->tasks_recycled, (long long)c->recycled_max_peak);
	out_printf(o, "seeded at start: %u tasks, %llu pages (statm resident)\n", in->seed_tasks,
		   (unsigned long long)in->seed_pages);
	if (in->boot) {
		out_printf(o, "boot buffer: %llu sub-buffers, %llu records, %u module events used "
			   "(%llu beyond the table), %llu lost%s, %llu malformed",
			   (unsigned long long)in->boot->pages,
			   (unsigned long long)in->boot->records, in->boot->applied,
			   (unsigned long long)in->boot->dropped,
			   (unsigned long long)in->boot->lost,
			   in->boot->lost_unknown ? " (at least)" : "",
			   (unsigned long long)in->boot->bad);
		if (in->boot->truncated)
			out_printf(o, "; %u CPUs not read to the end (the top level kept "
				   "recording)", in->boot->truncated);
		out_puts(o, "\n");
	}
	if (st->oom_count) {
		/* the victim's comm is raw kernel bytes like any task name */
		out_printf(o, "oom kills seen: %llu, last victim pid %d (",
			   (unsigned long long)st->oom_count, st->oom_pid);
		escape_text(o, st->oom_comm, strlen(st->oom_comm));
		out_puts(o, ")\n");
	}
	if (in->self_rss_kib >= 0)
		out_printf(o, "memtrace itself: rss %ld KiB (pfn map %ld KiB of it), peak rss %ld KiB\n",
			   in->self_rss_kib, in->self_map_kib, in->self_hwm_kib);

	if (in->by_process) {
		text_processes(o, in);
		goto modules;
	}
	rows = in->top && in->top < ntasks ? in->top : ntasks;
	out_printf(o, "\nTASKS: %u of %u with pages, by peak (page = %u bytes)\n", rows, ntasks,
		   in->page_size);
	out_printf(o, "%8s %8s %8s %10s %10s %10s %10s %-7s %12s  %s\n", "PID", "TGID", "PPID",
		   "PEAK_PAGES", "PEAK_KIB", "CUR_PAGES", "SEEDED", "STATE", "PEAK_AT_S", "COMM");
	for (i = 0; i < rows; i++) {
		const struct mt_task *t = &st->tasks[in->order[i]];

		out_printf(o, "%8d %8d %8d %10lld %10llu %10lld %10llu %-7s %12.6f  ", t->tid,
			   t->tgid, t->ppid, (long long)t->peak,
			   (unsigned long long)kib(in, t->peak), (long long)t->cur,
			   (unsigned long long)t->seed, task_state_name(t), secs(t->peak_ts));
		text_comm(o, t);
		out_puts(o, "\n");
	}
modules:
	out_printf(o, "\nMODULES: %u\n", st->nmods + in->nextra);
	out_printf(o, "%-24s %10s %10s %10s %10s %8s %-8s %s\n", "NAME", "PEAK_PAGES", "PEAK_KIB",
		   "CUR_PAGES", "STATIC_KIB", "LOADER", "STATE", "BRACKET");
	for (i = 0; i < st->nmods + in->nextra; i++) {
		const struct mt_module *m = mod_at(in, i);
		char skib[24], name[MODNAME_LEN], loader[16];

		if (m->static_known)
			snprintf(skib, sizeof(skib), "%llu", (unsigned long long)m->static_kib);
		else
			strcpy(skib, "-");
		safe_name(name, sizeof(name), m->name);
		if (no_loader(m))
			strcpy(loader, "-");
		else
			snprintf(loader, sizeof(loader), "%d", m->loader_tid);
		out_printf(o, "%-24s %10lld %10llu %10lld %10s %8s %-8s %s\n",
			   name, (long long)m->peak,
			   (unsigned long long)kib(in, m->peak), (long long)m->cur, skib,
			   loader, module_state_name(m), bracket_name(m->bracket));
		before += m->state == MOD_BEFORE;
		untraced += m->state == MOD_UNTRACED;
	}
	if (before)
		out_printf(o, "(%u modules in state before: loaded before tracing began, no "
			   "events seen; static size from the kernel only)\n", before);
	if (untraced)
		out_printf(o, "(%u modules in state untraced: loaded while tracing but no event "
			   "seen (lost, or after tracing stopped); static size only)\n", untraced);
	if (in->extra_dropped)
		out_printf(o, "(%u more modules in /proc/modules not listed: module table full)\n",
			   in->extra_dropped);
}

static void json_str(struct out *o, const char *s)
{
	out_puts(o, "\"");
	escape_json(o, s, strlen(s));
	out_puts(o, "\"");
}

static void json_processes(struct out *o, const struct report_input *in)
{
	const struct stats *st = in->st;
	uint32_t n = sorted_processes(in, false), rows, i;

	rows = in->top && in->top < n ? in->top : n;
	out_printf(o, "\"view\":\"process\",\"processes_with_pages\":%u,\"processes\":[", n);
	for (i = 0; i < rows; i++) {
		const struct mt_task *t = &st->tasks[in->order[i]];

		out_printf(o, "%s\n{\"pid\":%d,\"ppid\":%d,\"comm\":", i ? "," : "", pid_of(t),
			   t->ppid);
		json_comm(o, t);
		out_printf(o, ",\"threads\":%u,\"peak_pages\":%lld,\"peak_kib\":%llu,"
			   "\"peak_time_s\":%.6f,\"current_pages\":%lld,\"seeded_pages\":%llu,"
			   "\"state\":\"%s\"}", nthreads(in, in->order[i]), (long long)t->ppeak,
			   (unsigned long long)kib(in, t->ppeak), secs(t->ppeak_ts),
			   (long long)t->pcur, (unsigned long long)t->seed,
			   proc_state(in, in->order[i]));
	}
	out_puts(o, "]");
}

static void report_json(struct out *o, const struct report_input *in, uint32_t ntasks)
{
	const struct stats *st = in->st;
	const struct stats_counters *c = &st->c;
	uint32_t i, rows;
	int k;

	out_printf(o, "{\"memtrace_version\":\"%s\",\"trigger\":", MEMTRACE_VERSION);
	json_str(o, in->trigger);
	out_puts(o, ",\"mode\":");
	json_str(o, in->mode);
	out_printf(o, ",\"uptime_s\":%.3f,\"first_event_s\":%.6f,\"last_event_s\":%.6f,"
		   "\"page_size\":%u,\"tracefs\":{\"path\":", in->uptime_s, secs(st->first_ts),
		   secs(st->last_ts), in->page_size);
	json_str(o, in->tracefs);
	out_puts(o, ",\"instance\":");
	json_str(o, in->instance ? in->instance : "");
	out_printf(o, "},\"events\":{\"processed\":%llu,\"by_kind\":{",
		   (unsigned long long)events_total(st));
	for (k = 1; k < EV__COUNT; k++)
		out_printf(o, "%s\"%s\":%llu", k > 1 ? "," : "", mt_kind_name(k),
			   (unsigned long long)c->events[k]);
	out_puts(o, "},\"enabled\":[");
	for (k = 0; k < in->nenabled; k++) {
		out_puts(o, k ? "," : "");
		json_str(o, in->enabled[k]);
	}
	out_puts(o, "],\"missing\":[");
	for (k = 0; k < in->nmissing; k++) {
		out_puts(o, k ? "," : "");
		out_puts(o, "{\"event\":");
		json_str(o, in->missing[k]);
		out_puts(o, ",\"lost\":");
		json_str(o, in->missing_loss[k] ? in->missing_loss[k] : "");
		out_puts(o, "}");
	}
	out_printf(o, "],\"unknown_ids\":%llu,\"malformed\":%llu,\"bad_order\":%llu,"
		   "\"corrupt_subbuffers\":%llu,\"bad_subbuffers\":%llu,\"out_of_order\":%llu},",
		   (unsigned long long)(in->rd ? in->rd->unknown_ids : 0),
		   (unsigned long long)(in->rd ? in->rd->bad_records : 0),
		   (unsigned long long)st->c.bad_order,
		   (unsigned long long)(in->rd ? corrupt_records(in->rd) : 0),
		   (unsigned long long)(in->rd ? corrupt_pages(in->rd) : 0),
		   (unsigned long long)(in->rd ? in->rd->out_of_order : 0));
	out_printf(o, "\"lost_events\":%llu,\"lost_unknown_subbuffers\":%llu,",
		   (unsigned long long)in->lost_events, (unsigned long long)in->missed_unknown);
	out_printf(o, "\"untracked_frees\":{\"events\":%llu,\"pages\":%llu},",
		   (unsigned long long)c->untracked_frees,
		   (unsigned long long)c->untracked_free_pages);
	out_printf(o, "\"failed_allocs\":%llu,\"irq_pages\":%llu,\"double_allocs\":%llu,"
		   "\"self_allocs\":%llu,",
		   (unsigned long long)c->failed_allocs, (unsigned long long)c->irq_pages,
		   (unsigned long long)c->double_allocs, (unsigned long long)c->self_allocs);
	out_printf(o, "\"overflows\":{\"task_events\":%llu,\"task_pages\":%llu,"
		   "\"tasks_recycled\":%llu,\"recycled_max_peak_pages\":%lld,\"modules\":%llu,"
		   "\"pfn_out_of_range\":%llu},",
		   (unsigned long long)c->task_overflow_events,
		   (unsigned long long)c->task_overflow_pages,
		   (unsigned long long)c->tasks_recycled, (long long)c->recycled_max_peak,
		   (unsigned long long)c->module_overflow,
		   (unsigned long long)c->pfn_out_of_range);
	out_printf(o, "\"seed\":{\"tasks\":%u,\"pages\":%llu},", in->seed_tasks,
		   (unsigned long long)in->seed_pages);
	if (in->boot)
		out_printf(o, "\"boot_buffer\":{\"sub_buffers\":%llu,\"records\":%llu,"
			   "\"module_events_used\":%u,\"module_events_dropped\":%llu,"
			   "\"lost_events\":%llu,\"lost_unknown_pages\":%llu,\"malformed\":%llu,"
			   "\"cpus_not_drained\":%u},",
			   (unsigned long long)in->boot->pages,
			   (unsigned long long)in->boot->records, in->boot->applied,
			   (unsigned long long)in->boot->dropped,
			   (unsigned long long)in->boot->lost,
			   (unsigned long long)in->boot->lost_unknown,
			   (unsigned long long)in->boot->bad, in->boot->truncated);
	if (st->oom_count) {
		out_printf(o, "\"oom\":{\"count\":%llu,\"victim_pid\":%d,\"victim_comm\":",
			   (unsigned long long)st->oom_count, st->oom_pid);
		json_str(o, st->oom_comm);
		out_printf(o, ",\"time_s\":%.6f},", secs(st->oom_ts));
	} else {
		out_puts(o, "\"oom\":null,");
	}
	if (in->self_rss_kib >= 0)
		out_printf(o, "\"self\":{\"rss_kib\":%ld,\"hwm_kib\":%ld,\"pfn_map_kib\":%ld},",
			   in->self_rss_kib, in->self_hwm_kib, in->self_map_kib);
	rows = in->top && in->top < ntasks ? in->top : ntasks;
	if (in->by_process) {
		json_processes(o, in);
		goto modules;
	}
	out_printf(o, "\"view\":\"task\",\"tasks_with_pages\":%u,\"tasks\":[", ntasks);
	for (i = 0; i < rows; i++) {
		const struct mt_task *t = &st->tasks[in->order[i]];

		out_printf(o, "%s\n{\"pid\":%d,\"tgid\":%d,\"ppid\":%d,\"comm\":", i ? "," : "",
			   t->tid, t->tgid, t->ppid);
		json_comm(o, t);
		out_printf(o, ",\"peak_pages\":%lld,\"peak_kib\":%llu,\"peak_time_s\":%.6f,"
			   "\"current_pages\":%lld,\"seeded_pages\":%llu,\"allocated_pages\":%llu,"
			   "\"freed_pages\":%llu,\"state\":\"%s\"}",
			   (long long)t->peak, (unsigned long long)kib(in, t->peak),
			   secs(t->peak_ts), (long long)t->cur, (unsigned long long)t->seed,
			   (unsigned long long)t->alloc_pages, (unsigned long long)t->freed_pages,
			   task_state_name(t));
	}
	out_puts(o, "]");
modules:
	out_puts(o, ",\"modules\":[");
	for (i = 0; i < st->nmods + in->nextra; i++) {
		const struct mt_module *m = mod_at(in, i);

		out_printf(o, "%s\n{\"name\":", i ? "," : "");
		json_str(o, m->name);
		out_printf(o, ",\"peak_pages\":%lld,\"peak_kib\":%llu,\"current_pages\":%lld,",
			   (long long)m->peak, (unsigned long long)kib(in, m->peak),
			   (long long)m->cur);
		if (m->static_known)
			out_printf(o, "\"static_kib\":%llu,", (unsigned long long)m->static_kib);
		else
			out_puts(o, "\"static_kib\":null,");
		if (no_loader(m))
			out_puts(o, "\"loader_pid\":null,");
		else
			out_printf(o, "\"loader_pid\":%d,", m->loader_tid);
		out_printf(o, "\"state\":\"%s\",\"bracket\":\"%s\",\"allocated_pages\":%llu}",
			   module_state_name(m), bracket_name(m->bracket),
			   (unsigned long long)m->alloc_pages);
	}
	out_printf(o, "],\"modules_not_listed\":%u}\n", in->extra_dropped);
}

void report_write(struct out *o, const struct report_input *in)
{
	uint32_t ntasks = sorted_tasks(in);

	if (in->format == FMT_JSON)
		report_json(o, in, ntasks);
	else
		report_text(o, in, ntasks);
}

/* Raw name bytes as printable ASCII for a one-line message (kmsg). */
static void plain_name(char *dst, size_t size, const char *src, size_t len)
{
	size_t i;

	for (i = 0; i < len && i + 1 < size && src[i]; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? src[i] : '?';
	dst[i] = '\0';
}

/* true if module @a (index @ai) comes after @b (index @bi) in the summary order */
static bool mod_after(const struct mt_module *a, uint32_t ai, const struct mt_module *b,
		      uint32_t bi)
{
	if (a->peak != b->peak)
		return a->peak < b->peak;
	if (a->static_kib != b->static_kib)
		return a->static_kib < b->static_kib;
	return ai > bi;
}

void report_summary(const struct report_input *in, const char *where, unsigned ntop,
		    void (*emit)(void *ctx, const char *line), void *ctx)
{
	const struct stats *st = in->st;
	uint32_t ntasks = sorted_tasks(in), i, k, shown = 0;
	char line[512], name[4 * MODNAME_LEN], trig[32], path[256];
	const struct mt_module *last = NULL;
	uint32_t last_i = 0;

	plain_name(trig, sizeof(trig), in->trigger, strlen(in->trigger));
	plain_name(path, sizeof(path), where, strlen(where));
	snprintf(line, sizeof(line), "memtrace: report (%s): %llu events, %llu lost%s%s, "
		 "%u tasks with pages, %u modules; full report in %s", trig,
		 (unsigned long long)events_total(st), (unsigned long long)in->lost_events,
		 in->missed_unknown ? " (at least)" : "",
		 in->boot && (in->boot->lost || in->boot->lost_unknown) ?
		 " (and some in the boot buffer)" : "", ntasks, st->nmods + in->nextra, path);
	emit(ctx, line);
	for (i = 0; i < ntasks && i < ntop; i++) {
		const struct mt_task *t = &st->tasks[in->order[i]];

		if (t->flags & TF_COMM_KNOWN)
			plain_name(name, sizeof(name), t->comm, t->comm_len);
		else
			strcpy(name, "?");
		snprintf(line, sizeof(line), "memtrace: top task: pid %d (%s) peak %lld pages "
			 "(%llu KiB)", t->tid, name, (long long)t->peak,
			 (unsigned long long)kib(in, t->peak));
		emit(ctx, line);
	}
	/* modules by peak, then static size, then table order: k selection passes */
	for (k = 0; k < ntop && k < st->nmods; k++) {
		const struct mt_module *best = NULL;
		uint32_t bi = 0;

		for (i = 0; i < st->nmods; i++) {
			const struct mt_module *m = &st->mods[i];

			if (k && !mod_after(m, i, last, last_i))
				continue;
			if (!best || mod_after(best, bi, m, i)) {
				best = m;
				bi = i;
			}
		}
		if (!best)
			break;
		last = best;
		last_i = bi;
		plain_name(name, sizeof(name), best->name, strlen(best->name));
		if (best->static_known)
			snprintf(line, sizeof(line), "memtrace: top module: %s peak %lld pages "
				 "(%llu KiB), static %llu KiB, %s", name[0] ? name : "(unnamed)",
				 (long long)best->peak, (unsigned long long)kib(in, best->peak),
				 (unsigned long long)best->static_kib, module_state_name(best));
		else
			snprintf(line, sizeof(line), "memtrace: top module: %s peak %lld pages "
				 "(%llu KiB), %s", name[0] ? name : "(unnamed)",
				 (long long)best->peak, (unsigned long long)kib(in, best->peak),
				 module_state_name(best));
		emit(ctx, line);
		shown++;
	}
	if (st->nmods + in->nextra > shown) {
		snprintf(line, sizeof(line), "memtrace: %u more modules in the full report",
			 st->nmods + in->nextra - shown);
		emit(ctx, line);
	}
}

/* ------------------------------------------------------------ command mode -- */

/* The command line as a shell would take it back: words with other bytes in quotes. */
static void text_argv(struct out *o, char *const *argv)
{
	size_t i;

	for (i = 0; argv && argv[i]; i++) {
		const char *a = argv[i], *q;

		if (i)
			out_puts(o, " ");
		if (*a && strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				    "0123456789_./:=@%+,-") == strlen(a)) {
			out_puts(o, a);
			continue;
		}
		out_puts(o, "'");
		while ((q = strchr(a, '\''))) {
			escape_text(o, a, (size_t)(q - a));
			out_puts(o, "'\\''");
			a = q + 1;
		}
		escape_text(o, a, strlen(a));
		out_puts(o, "'");
	}
}

static const char *sig_name(int sig)
{
	static const char *const names[] = {
		[1] = "SIGHUP", [2] = "SIGINT", [3] = "SIGQUIT", [4] = "SIGILL", [6] = "SIGABRT",
		[7] = "SIGBUS", [8] = "SIGFPE", [9] = "SIGKILL", [11] = "SIGSEGV", [13] = "SIGPIPE",
		[14] = "SIGALRM", [15] = "SIGTERM",
	};

	return sig > 0 && sig < (int)(sizeof(names) / sizeof(names[0])) && names[sig] ?
	       names[sig] : "signal";
}

/*
 * Pages of each tree process at the tree's peak, in in->pages[slot of its
 * process]; returns how many processes had pages then.
 */
static uint32_t pages_at_peak(const struct report_input *in)
{
	const struct stats *st = in->st;
	uint32_t i, n = 0;

	memset(in->pages, 0, st->ntasks_used * sizeof(*in->pages));
	for (i = SLOT_FIRST; i < st->ntasks_used; i++) {
		const struct mt_task *t = &st->tasks[i];

		if (t->state != TASK_UNUSED && (t->flags & TF_TREE))
			in->pages[slot_of(st, stats_process_of(st, t))] +=
				stats_tree_pages_at_peak(st, t);
	}
	for (i = SLOT_FIRST; i < st->ntasks_used; i++)
		n += in->pages[i] > 0;
	return n;
}

/* slot a comes after slot b: fewer pages, or as many and a later slot */
static bool ranks_after(const int64_t *pg, uint32_t a, uint32_t b)
{
	int64_t pa = pg[a], pb = pg[b];

	return pa != pb ? pa < pb : a > b;
}

/*
 * The k-th process by pages at the tree's peak (then by slot), after @prev
 * (slot of the (k-1)-th, or UINT32_MAX): selection, no scratch needed.
 */
static uint32_t next_at_peak(const struct report_input *in, uint32_t prev)
{
	const struct stats *st = in->st;
	uint32_t i, best = UINT32_MAX;

	for (i = SLOT_FIRST; i < st->ntasks_used; i++) {
		const int64_t *pg = in->pages;

		if (pg[i] <= 0)
			continue;
		if (prev != UINT32_MAX && !ranks_after(pg, i, prev))
			continue;
		if (best == UINT32_MAX || ranks_after(pg, best, i))
			best = i;
	}
	return best;
}

/* From the process's start to its end (its last thread), or to @end_ts if alive. */
static double lifetime(const struct report_input *in, uint32_t slot, uint64_t end_ts)
{
	const struct mt_task *t = &in->st->tasks[slot];
	uint64_t end = in->threads[slot] & PROC_ALIVE ? end_ts :
		       t->pexit_ts ? t->pexit_ts : t->exit_ts;

	return end > t->start_ts ? secs(end - t->start_ts) : 0;
}

void report_command(struct out *o, const struct report_input *in, const struct cmd_info *c)
{
	const struct stats *st = in->st;
	uint32_t nproc, rows, i, nalive, k;
	const struct mt_task *maxp = NULL;
	uint64_t end_ts = st->last_ts;
	int64_t peak_s_ns = st->tree_peak_ts > c->start_ts ? (int64_t)(st->tree_peak_ts -
								       c->start_ts) : 0;
	bool json = in->format == FMT_JSON;

	nalive = pages_at_peak(in);
	nproc = sorted_processes(in, true);
	if (nproc)
		maxp = &st->tasks[in->order[0]];
	rows = in->top && in->top < nproc ? in->top : nproc;

	if (json) {
		out_printf(o, "{\"memtrace_version\":\"%s\",\"command\":[", MEMTRACE_VERSION);
		for (i = 0; c->argv && c->argv[i]; i++) {
			out_puts(o, i ? ",\"" : "\"");
			escape_json(o, c->argv[i], strlen(c->argv[i]));
			out_puts(o, "\"");
		}
		out_puts(o, "],");
		if (c->reaped && WIFEXITED(c->status))
			out_printf(o, "\"exit_status\":%d,\"signal\":null,", WEXITSTATUS(c->status));
		else if (c->reaped && WIFSIGNALED(c->status))
			out_printf(o, "\"exit_status\":null,\"signal\":%d,", WTERMSIG(c->status));
		else
			out_puts(o, "\"exit_status\":null,\"signal\":null,");
		out_printf(o, "\"exec_failed\":%s,\"wall_s\":%.3f,\"user_s\":%.3f,\"sys_s\":%.3f,"
			   "\"tree_peak_pages\":%lld,\"tree_peak_kib\":%llu,\"tree_peak_time_s\":%.6f,"
			   "\"alive_at_peak\":[", c->exec_failed ? "true" : "false", c->wall_s,
			   c->user_s, c->sys_s, (long long)st->tree_peak,
			   (unsigned long long)kib(in, st->tree_peak), secs((uint64_t)peak_s_ns));
		for (i = next_at_peak(in, UINT32_MAX), k = 0; i != UINT32_MAX &&
		     (!in->top || k < in->top); i = next_at_peak(in, i)) {
			const struct mt_task *t = &st->tasks[i];

			out_printf(o, "%s{\"pid\":%d,\"comm\":", k++ ? "," : "", pid_of(t));
			json_comm(o, t);
			out_printf(o, ",\"pages\":%lld}", (long long)in->pages[i]);
		}
		out_printf(o, "],\"max_process_peak_pages\":%lld,\"max_process_peak_pid\":",
			   maxp ? (long long)maxp->ppeak : 0LL);
		if (maxp)
			out_printf(o, "%d,", pid_of(maxp));
		else
			out_puts(o, "null,");
		out_printf(o, "\"processes_at_peak\":%u,\"oom_kills\":%llu,\"task_overflow_events\":%llu,"
			   "\"task_overflow_pages\":%llu,\"tasks_recycled\":%llu,", nalive,
			   (unsigned long long)st->oom_count,
			   (unsigned long long)st->c.task_overflow_events,
			   (unsigned long long)st->c.task_overflow_pages,
			   (unsigned long long)st->c.tasks_recycled);
		out_printf(o, "\"process_count\":%llu,\"thread_count\":%llu,\"max_rss_kib\":%ld,"
			   "\"lost_events\":%llu,\"lost_unknown_subbuffers\":%llu,\"out_of_order\":%llu,"
			   "\"waited\":%s,\"still_running\":%u,\"page_size\":%u,"
			   "\"processes_with_pages\":%u,\"processes\":[",
			   (unsigned long long)st->tree_processes,
			   (unsigned long long)st->tree_processes + st->tree_threads, c->max_rss_kib,
			   (unsigned long long)in->lost_events,
			   (unsigned long long)in->missed_unknown,
			   (unsigned long long)(in->rd ? in->rd->out_of_order : 0),
			   c->waited ? "true" : "false",
			   c->still_running, in->page_size, nproc);
		for (i = 0; i < rows; i++) {
			const struct mt_task *t = &st->tasks[in->order[i]];

			out_printf(o, "%s\n{\"pid\":%d,\"ppid\":%d,\"comm\":", i ? "," : "",
				   pid_of(t), t->ppid);
			json_comm(o, t);
			out_printf(o, ",\"threads\":%u,\"peak_pages\":%lld,\"peak_kib\":%llu,"
				   "\"lifetime_s\":%.6f,\"state\":\"%s\"}",
				   nthreads(in, in->order[i]), (long long)t->ppeak,
				   (unsigned long long)kib(in, t->ppeak),
				   lifetime(in, in->order[i], end_ts), proc_state(in, in->order[i]));
		}
		out_puts(o, "]}\n");
		return;
	}

	out_printf(o, "memtrace %s command report\ncommand: ", MEMTRACE_VERSION);
	text_argv(o, c->argv);
	out_puts(o, "\n");
	if (c->exec_failed)
		out_puts(o, "exit status: 127 (could not be executed)\n");
	else if (c->reaped && WIFEXITED(c->status))
		out_printf(o, "exit status: %d\n", WEXITSTATUS(c->status));
	else if (c->reaped && WIFSIGNALED(c->status))
		out_printf(o, "exit status: killed by signal %d (%s)\n", WTERMSIG(c->status),
			   sig_name(WTERMSIG(c->status)));
	else
		out_puts(o, "exit status: unknown\n");
	out_printf(o, "wall %.3f s, user %.3f s, sys %.3f s\n", c->wall_s, c->user_s, c->sys_s);
	out_printf(o, "tree peak: %lld pages (%llu KiB) at %.3f s; processes with pages then: %u\n",
		   (long long)st->tree_peak, (unsigned long long)kib(in, st->tree_peak),
		   secs((uint64_t)peak_s_ns), nalive);
	if (maxp) {
		out_printf(o, "largest process peak: %lld pages (%llu KiB), pid %d (",
			   (long long)maxp->ppeak, (unsigned long long)kib(in, maxp->ppeak),
			   pid_of(maxp));
		text_comm(o, maxp);
		out_puts(o, ")\n");
	}
	out_printf(o, "processes: %llu, threads: %llu; largest ru_maxrss: %ld KiB (time(1)'s "
		   "maximum resident set size)\n", (unsigned long long)st->tree_processes,
		   (unsigned long long)st->tree_processes + st->tree_threads, c->max_rss_kib);
	if (!c->waited)
		out_printf(o, "--no-wait: processes of the tree still running at the end: %u\n",
			   c->still_running);
	out_printf(o, "lost events: %llu", (unsigned long long)in->lost_events);
	if (in->missed_unknown)
		out_printf(o, " (at least; %llu sub-buffers flagged lost without a count)",
			   (unsigned long long)in->missed_unknown);
	if (in->lost_events || in->missed_unknown)
		out_puts(o, " -- peaks may be underestimated");
	out_puts(o, "\n");
	out_of_order_line(o, in);
	if (st->c.task_overflow_events || st->c.tasks_recycled)
		out_printf(o, "task table: %llu events of %llu pages found no slot%s; %llu exited "
			   "tasks recycled (--max-tasks)\n",
			   (unsigned long long)st->c.task_overflow_events,
			   (unsigned long long)st->c.task_overflow_pages,
			   st->c.task_overflow_events ? " -- the tree peak may be underestimated" : "",
			   (unsigned long long)st->c.tasks_recycled);
	if (st->oom_count) {
		out_printf(o, "oom kills: %llu, last victim pid %d (",
			   (unsigned long long)st->oom_count, st->oom_pid);
		escape_text(o, st->oom_comm, strlen(st->oom_comm));
		out_puts(o, ")\n");
	}

	out_printf(o, "\nAT THE PEAK: processes with pages then: %u%s\n%8s %10s  %s\n", nalive,
		   in->top && nalive > in->top ? " (the largest listed)" : "", "PID", "PAGES",
		   "COMM");
	for (i = next_at_peak(in, UINT32_MAX), k = 0; i != UINT32_MAX && (!in->top || k < in->top);
	     i = next_at_peak(in, i), k++) {
		const struct mt_task *t = &st->tasks[i];

		out_printf(o, "%8d %10lld  ", pid_of(t), (long long)in->pages[i]);
		text_comm(o, t);
		out_puts(o, "\n");
	}
	out_printf(o, "\nPROCESSES: %u of %u with pages, by peak, threads summed (page = %u "
		   "bytes)\n", rows, nproc, in->page_size);
	out_printf(o, "%8s %8s %7s %10s %10s %10s %-7s  %s\n", "PID", "PPID", "THREADS",
		   "PEAK_PAGES", "PEAK_KIB", "LIFETIME_S", "STATE", "COMM");
	for (i = 0; i < rows; i++) {
		const struct mt_task *t = &st->tasks[in->order[i]];

		out_printf(o, "%8d %8d %7u %10lld %10llu %10.3f %-7s  ", pid_of(t), t->ppid,
			   nthreads(in, in->order[i]), (long long)t->ppeak,
			   (unsigned long long)kib(in, t->ppeak), lifetime(in, in->order[i], end_ts),
			   proc_state(in, in->order[i]));
		text_comm(o, t);
		out_puts(o, "\n");
	}
}
