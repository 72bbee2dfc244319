// SPDX-License-Identifier: GPL-2.0-only
/* output/cmdreport.c - the command report (tree peak, processes at the peak) and the --exits lines */
#include "output/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "lib/escape.h"
#include "signals.h"
#include "output/stackreport.h"

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
 * Pages of each tree process at the tree's peak, in r->pages[slot of its
 * process]; returns how many processes had pages then.
 */
static uint32_t pages_at_peak(const struct run *r)
{
	const struct stats *st = &r->st;
	uint32_t i, n = 0;

	memset(r->pages, 0, st->tb.ntasks_used * sizeof(*r->pages));
	/* from slot 0: <tree-overflow> is the tree's too */
	for (i = 0; i < st->tb.ntasks_used; i++) {
		const struct mt_task *t = &st->tb.tasks[i];

		if (t->state != TASK_UNUSED && (t->flags & TF_TREE))
			r->pages[rows_slot(st, stats_process_of(st, t))] +=
				stats_tree_pages_at_peak(st, t);
	}
	for (i = 0; i < st->tb.ntasks_used; i++)
		n += r->pages[i] > 0;
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
static uint32_t next_at_peak(const struct run *r, uint32_t prev)
{
	const struct stats *st = &r->st;
	uint32_t i, best = UINT32_MAX;

	for (i = 0; i < st->tb.ntasks_used; i++) {
		const int64_t *pg = r->pages;

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
static double lifetime(const struct run *r, uint32_t slot, uint64_t end_ts)
{
	const struct mt_task *t = &r->st.tb.tasks[slot];
	uint64_t end = r->threads[slot] & PROC_ALIVE ? end_ts :
		       t->pexit_ts ? t->pexit_ts : t->exit_ts;

	return end > t->start_ts ? secs(end - t->start_ts) : 0;
}

/* What both forms of the command report show, computed once. */
struct cmd_view {
	uint32_t nalive;		/* processes with pages at the tree's peak */
	uint32_t nproc;			/* tree processes with pages, sorted in r->order */
	uint32_t rows;			/* of them, listed */
	const struct mt_task *maxp;	/* the largest process peak, NULL if none */
	uint64_t end_ts;		/* "now" for lifetimes of processes still alive */
	uint64_t peak_rel_ns;		/* the tree peak, from the command's start */
};

static void command_view(const struct run *r, struct cmd_view *v)
{
	const struct stats *st = &r->st;

	v->nalive = pages_at_peak(r);
	v->nproc = rows_processes(r, true);
	v->maxp = v->nproc ? &st->tb.tasks[r->order[0]] : NULL;
	v->rows = rows_listed(r, v->nproc);
	v->end_ts = st->last_ts;
	v->peak_rel_ns = st->tree_peak_ts > r->cmd.start_ts ? st->tree_peak_ts - r->cmd.start_ts : 0;
}

/* The names of the frames of the listed processes' stacks (--stacks). */
static void command_symbols(const struct run *r, const struct cmd_view *v, struct ksyms *ks)
{
	uint32_t i;

	stackreport_begin(r, ks);
	for (i = 0; i < v->rows; i++)
		stackreport_want_process(r, ks, r->order[i]);
	stackreport_resolve(r, ks);
}

void report_command_json(struct out *o, const struct run *r)
{
	struct ksyms ks;
	const struct cmd_info *c = &r->cmd;
	const struct stats *st = &r->st;
	struct cmd_view v;
	uint32_t i, k;

	command_view(r, &v);
	command_symbols(r, &v, &ks);
	out_printf(o, "{\"memtrace_version\":\"%s\"", MEMTRACE_VERSION);
	report_identity_json(o, &r->meta);
	out_puts(o, ",\"command\":[");
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
		   "\"alive_at_peak\":[", c->exec_failed ? "true" : "false", c->wall_s, c->user_s,
		   c->sys_s, (long long)st->tree_peak, (unsigned long long)kib(r, st->tree_peak),
		   secs(v.peak_rel_ns));
	for (i = next_at_peak(r, UINT32_MAX), k = 0; i != UINT32_MAX &&
	     (!rows_top(r) || k < rows_top(r)); i = next_at_peak(r, i)) {
		const struct mt_task *t = &st->tb.tasks[i];

		out_printf(o, "%s{\"pid\":%d,\"comm\":", k++ ? "," : "", pid_of(t));
		rows_json_comm(o, t);
		out_printf(o, ",\"pages\":%lld}", (long long)r->pages[i]);
	}
	out_printf(o, "],\"max_process_peak_pages\":%lld,\"max_process_peak_pid\":",
		   v.maxp ? (long long)v.maxp->ppeak : 0LL);
	if (v.maxp)
		out_printf(o, "%d,", pid_of(v.maxp));
	else
		out_puts(o, "null,");
	out_printf(o, "\"processes_at_peak\":%u,\"oom_kills\":%llu,\"task_overflow_events\":%llu,"
		   "\"task_overflow_pages\":%llu,\"tasks_recycled\":%llu,\"tree_overflow_tasks\":%llu,"
		   "\"tree_overflow_pages\":%llu,\"tree_tasks_lost\":%llu,", v.nalive,
		   (unsigned long long)st->oom_count,
		   (unsigned long long)st->tb.c.task_overflow_events,
		   (unsigned long long)st->c.task_overflow_pages,
		   (unsigned long long)st->tb.c.tasks_recycled,
		   (unsigned long long)st->c.tree_overflow_tasks,
		   (unsigned long long)st->c.tree_overflow_pages,
		   (unsigned long long)st->c.tree_lost_tasks);
	out_printf(o, "\"process_count\":%llu,\"thread_count\":%llu,\"max_rss_kib\":%ld,",
		   (unsigned long long)st->tree_processes,
		   (unsigned long long)st->tree_processes + st->tree_threads, c->max_rss_kib);
	rows_json_lost(o, r);
	rows_json_cpus(o, r);
	rows_json_sys_peak(o, r);
	rows_json_moved(o, r);
	out_printf(o, "\"out_of_order\":%llu,\"waited\":%s,\"still_running\":%u,\"page_size\":%u,"
		   "\"processes_with_pages\":%u,\"processes\":[",
		   (unsigned long long)r->rd.out_of_order, c->waited ? "true" : "false",
		   c->still_running, r->meta.page_size, v.nproc);
	for (i = 0; i < v.rows; i++) {
		const struct mt_task *t = &st->tb.tasks[r->order[i]];

		out_printf(o, "%s\n{\"pid\":%d,\"ppid\":%d,\"comm\":", i ? "," : "", pid_of(t),
			   t->ppid);
		rows_json_comm(o, t);
		out_printf(o, ",\"threads\":%u,\"peak_pages\":%lld,\"peak_kib\":%llu,"
			   "\"lifetime_s\":%.6f,\"state\":\"%s\"",
			   rows_threads(r, r->order[i]), (long long)t->ppeak,
			   (unsigned long long)kib(r, t->ppeak),
			   lifetime(r, r->order[i], v.end_ts), rows_state(r, r->order[i]));
		stackreport_process_json(o, r, &ks, r->order[i]);
		out_puts(o, "}");
	}
	out_puts(o, "]");
	stackreport_counters_json(o, r, ",", "");
	out_puts(o, "}\n");
	stackreport_end(&ks);
}

void report_command_text(struct out *o, const struct run *r)
{
	const struct cmd_info *c = &r->cmd;
	const struct stats *st = &r->st;
	struct cmd_view v;
	struct ksyms ks;
	uint32_t i, k;

	command_view(r, &v);
	command_symbols(r, &v, &ks);
	out_printf(o, "memtrace %s command report\ncommand: ", MEMTRACE_VERSION);
	text_argv(o, c->argv);
	out_puts(o, "\n");
	report_identity_text(o, r);
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
		   (long long)st->tree_peak, (unsigned long long)kib(r, st->tree_peak),
		   secs(v.peak_rel_ns), v.nalive);
	if (v.maxp) {
		out_printf(o, "largest process peak: %lld pages (%llu KiB), pid %d (",
			   (long long)v.maxp->ppeak, (unsigned long long)kib(r, v.maxp->ppeak),
			   pid_of(v.maxp));
		rows_text_comm(o, v.maxp);
		out_puts(o, ")\n");
	}
	out_printf(o, "processes: %llu, threads: %llu; largest ru_maxrss: %ld KiB (time(1)'s "
		   "maximum resident set size)\n", (unsigned long long)st->tree_processes,
		   (unsigned long long)st->tree_processes + st->tree_threads, c->max_rss_kib);
	/* not waited for: as asked (--no-wait), or a signal stopped the wait (command_check()) */
	if (!c->waited && r->opt.no_wait)
		out_printf(o, "--no-wait: processes of the tree still running at the end: %u\n",
			   c->still_running);
	else if (!c->waited)
		out_printf(o, "memtrace stopped waiting for the tree (%s): processes of the tree "
			   "still running then: %u\n", r->stop == STOP_SIGNAL ?
			   signals_trigger(r->stop_signo) : "stopped", c->still_running);
	rows_lost_line(o, r);
	rows_out_of_order_line(o, r);
	rows_cpus_line(o, r);
	rows_sys_peak_line(o, r);
	if (st->tb.c.task_overflow_events || st->tb.c.tasks_recycled)
		out_printf(o, "task table: %llu events of %llu pages found no slot%s; %llu exited "
			   "tasks recycled (--max-tasks)\n",
			   (unsigned long long)st->tb.c.task_overflow_events,
			   (unsigned long long)st->c.task_overflow_pages,
			   st->tb.c.task_overflow_events ? " -- the tree peak may be underestimated" : "",
			   (unsigned long long)st->tb.c.tasks_recycled);
	if (st->c.tree_overflow_tasks)
		out_printf(o, "%llu tasks of the tree found no slot: their %llu pages count in "
			   "<tree-overflow>\n", (unsigned long long)st->c.tree_overflow_tasks,
			   (unsigned long long)st->c.tree_overflow_pages);
	if (st->c.tree_lost_tasks)
		out_printf(o, "%llu more tasks of the tree found no slot and no room in "
			   "<tree-overflow> -- the tree peak may be underestimated\n",
			   (unsigned long long)st->c.tree_lost_tasks);
	rows_oom_line(o, st, "oom kills");
	rows_moved_line(o, r);
	stackreport_counters_text(o, r);

	out_printf(o, "\nAT THE PEAK: processes with pages then: %u%s\n%8s %10s  %s\n", v.nalive,
		   r->opt.rows && v.nalive > r->opt.rows ? " (the largest listed)" : "", "PID", "PAGES",
		   "COMM");
	for (i = next_at_peak(r, UINT32_MAX), k = 0; i != UINT32_MAX &&
	     (!r->opt.rows || k < r->opt.rows); i = next_at_peak(r, i), k++) {
		const struct mt_task *t = &st->tb.tasks[i];

		out_printf(o, "%8d %10lld  ", pid_of(t), (long long)r->pages[i]);
		rows_text_comm(o, t);
		out_puts(o, "\n");
	}
	out_printf(o, "\nPROCESSES: %u of %u with pages, by peak, threads summed (page = %u "
		   "bytes)\n", v.rows, v.nproc, r->meta.page_size);
	out_printf(o, "%8s %8s %7s %10s %10s %10s %-7s  %s\n", "PID", "PPID", "THREADS",
		   "PEAK_PAGES", "PEAK_KIB", "LIFETIME_S", "STATE", "COMM");
	for (i = 0; i < v.rows; i++) {
		const struct mt_task *t = &st->tb.tasks[r->order[i]];

		out_printf(o, "%8d %8d %7u %10lld %10llu %10.3f %-7s  ", pid_of(t), t->ppid,
			   rows_threads(r, r->order[i]), (long long)t->ppeak,
			   (unsigned long long)kib(r, t->ppeak), lifetime(r, r->order[i], v.end_ts),
			   rows_state(r, r->order[i]));
		rows_text_comm(o, t);
		out_puts(o, "\n");
	}
	for (i = 0; i < v.rows; i++)
		stackreport_process_text(o, r, &ks, r->order[i]);
	stackreport_end(&ks);
}

void report_command(struct out *o, const struct run *r)
{
	if (rows_json(r))
		report_command_json(o, r);
	else
		report_command_text(o, r);
}

/* ---------------------------------------------------------------- --exits -- */

void report_exits_header(struct out *o, enum report_format f)
{
	if (f == FMT_TEXT)
		out_puts(o, "#     TIME_S      PID     PPID PEAK_PAGES   PEAK_KIB LIFETIME_S  COMM\n");
}

void report_exit_line(struct out *o, enum report_format f, const struct mt_exit *e,
		      uint32_t page_size)
{
	double life = e->exit_ts > e->start_ts ? secs(e->exit_ts - e->start_ts) : 0;
	/* as kib(): pages times bytes per page, then KiB (a 512-byte page is not 0 KiB) */
	unsigned long long peak_kib = (uint64_t)(e->peak > 0 ? e->peak : 0) * page_size / 1024;

	if (f == FMT_JSON) {
		out_printf(o, "{\"time_s\":%.6f,\"pid\":%d,\"ppid\":%d,\"comm\":\"",
			   secs(e->exit_ts), e->pid, e->ppid);
		escape_json(o, e->comm, e->comm_len);
		out_printf(o, "\",\"peak_pages\":%lld,\"peak_kib\":%llu,\"lifetime_s\":%.6f}\n",
			   (long long)e->peak, peak_kib, life);
		return;
	}
	out_printf(o, "%12.6f %8d %8d %10lld %10llu %10.6f  ", secs(e->exit_ts), e->pid, e->ppid,
		   (long long)e->peak, peak_kib, life);
	if (e->comm_len)
		escape_text(o, e->comm, e->comm_len);
	else
		out_puts(o, "?");
	out_puts(o, "\n");
}
