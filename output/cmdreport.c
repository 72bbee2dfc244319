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
 * Pages of each tree process at the tree's peak, in rs->pages[slot of its
 * process]; returns how many processes had pages then.
 */
static uint32_t pages_at_peak(const struct run *r, struct report_scratch *rs)
{
	const struct stats *st = &r->st;
	uint32_t i, n = 0;

	memset(rs->pages, 0, st->tb.ntasks_used * sizeof(*rs->pages));
	/* from slot 0: <tree-overflow> is the tree's too */
	for (i = 0; i < st->tb.ntasks_used; i++) {
		const struct mt_task *t = &st->tb.tasks[i];

		if (t->state != TASK_UNUSED && (t->flags & TF_TREE))
			rs->pages[rows_slot(st, stats_process_of(st, t))] +=
				stats_tree_pages_at_peak(st, t);
	}
	for (i = 0; i < st->tb.ntasks_used; i++)
		n += rs->pages[i] > 0;
	return n;
}

static int64_t pages_then(const void *ctx, uint32_t slot)
{
	return ((const struct report_scratch *)ctx)->pages[slot];
}

/* From the process's start to its end (its last thread), or to @end_ts if alive. */
static double lifetime(const struct run *r, const struct report_scratch *rs, uint32_t slot,
		       uint64_t end_ts)
{
	const struct mt_task *t = &r->st.tb.tasks[slot];
	uint64_t end = rs->threads[slot] & PROC_ALIVE ? end_ts :
		       t->pexit_ts ? t->pexit_ts : t->exit_ts;

	return end > t->start_ts ? secs(end - t->start_ts) : 0;
}

/*
 * The command report's model: what both forms show, worked out once (the
 * processes at the tree's peak chosen, the processes sorted, the names of
 * their frames read), so that the text and JSON writers only format it.
 */
struct cmd_model {
	const struct run *r;
	const struct report_scratch *rs;	/* order: the processes; sel: those at the peak */
	struct ksyms ks;			/* the names of the listed processes' frames */
	uint32_t nalive;			/* processes with pages at the tree's peak */
	uint32_t nsel;				/* of them, listed (rs->sel) */
	uint32_t nproc;				/* tree processes with pages (rs->order) */
	uint32_t rows;				/* of them, listed */
	const struct mt_task *maxp;		/* the largest process peak, NULL if none */
	uint64_t end_ts;			/* "now" for lifetimes of processes still alive */
	uint64_t peak_rel_ns;			/* the tree peak, from the command's start */
	struct sys_top sys;			/* who held the most at the system peak */
};

static void cmd_model_fill(struct cmd_model *m, const struct run *r, struct report_scratch *rs)
{
	const struct stats *st = &r->st;
	uint32_t i;

	m->r = r;
	m->rs = rs;
	m->nalive = pages_at_peak(r, rs);
	m->nsel = rows_select(st->tb.ntasks_used, pages_then, rs, rows_top(r), rs->sel);
	m->nproc = rows_processes(r, rs, true);
	m->maxp = m->nproc ? &st->tb.tasks[rs->order[0]] : NULL;
	m->rows = rows_listed(r, m->nproc);
	m->end_ts = st->last_ts;
	m->peak_rel_ns = st->tree_peak_ts > r->cmd.start_ts ? st->tree_peak_ts - r->cmd.start_ts : 0;
	rows_sys_peak_top(r, &m->sys);
	/* the names of the frames of the listed processes' stacks (--stacks) */
	stackreport_begin(r, &m->ks);
	for (i = 0; i < m->rows; i++)
		stackreport_want_process(r, &m->ks, rs->order[i]);
	stackreport_resolve(r, &m->ks);
}

static void command_json(struct out *o, const struct cmd_model *m)
{
	const struct run *r = m->r;
	const struct report_scratch *rs = m->rs;
	const struct cmd_info *c = &r->cmd;
	const struct stats *st = &r->st;
	uint32_t i;
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
		   secs(m->peak_rel_ns));
	for (i = 0; i < m->nsel; i++) {
		const struct mt_task *t = &st->tb.tasks[rs->sel[i]];

		out_printf(o, "%s{\"pid\":%d,\"comm\":", i ? "," : "", pid_of(t));
		rows_json_comm(o, t);
		out_printf(o, ",\"pages\":%lld}", (long long)rs->pages[rs->sel[i]]);
	}
	out_printf(o, "],\"max_process_peak_pages\":%lld,\"max_process_peak_pid\":",
		   m->maxp ? (long long)m->maxp->ppeak : 0LL);
	if (m->maxp)
		out_printf(o, "%d,", pid_of(m->maxp));
	else
		out_puts(o, "null,");
	out_printf(o, "\"processes_at_peak\":%u,\"oom_kills\":%llu,\"task_overflow_events\":%llu,"
		   "\"task_overflow_pages\":%llu,\"tasks_recycled\":%llu,\"tree_overflow_tasks\":%llu,"
		   "\"tree_overflow_pages\":%llu,\"tree_tasks_lost\":%llu,", m->nalive,
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
	rows_json_sys_peak(o, r, &m->sys);
	rows_json_moved(o, r);
	out_printf(o, "\"out_of_order\":%llu,\"waited\":%s,\"still_running\":%u,\"page_size\":%u,"
		   "\"processes_with_pages\":%u,\"processes\":[",
		   (unsigned long long)r->rd.out_of_order, c->waited ? "true" : "false",
		   c->still_running, r->meta.page_size, m->nproc);
	for (i = 0; i < m->rows; i++) {
		const struct mt_task *t = &st->tb.tasks[rs->order[i]];

		out_printf(o, "%s\n{\"pid\":%d,\"ppid\":%d,\"comm\":", i ? "," : "", pid_of(t),
			   t->ppid);
		rows_json_comm(o, t);
		out_printf(o, ",\"threads\":%u,\"peak_pages\":%lld,\"peak_kib\":%llu,"
			   "\"lifetime_s\":%.6f,\"state\":\"%s\"",
			   rows_threads(rs, rs->order[i]), (long long)t->ppeak,
			   (unsigned long long)kib(r, t->ppeak),
			   lifetime(r, rs, rs->order[i], m->end_ts), rows_state(r, rs, rs->order[i]));
		stackreport_process_json(o, r, &m->ks, rs->order[i]);
		out_puts(o, "}");
	}
	out_puts(o, "]");
	stackreport_counters_json(o, r, ",", "");
	out_puts(o, "}\n");
}

static void command_text(struct out *o, const struct cmd_model *m)
{
	const struct run *r = m->r;
	const struct report_scratch *rs = m->rs;
	const struct cmd_info *c = &r->cmd;
	const struct stats *st = &r->st;
	uint32_t i;
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
		   secs(m->peak_rel_ns), m->nalive);
	if (m->maxp) {
		out_printf(o, "largest process peak: %lld pages (%llu KiB), pid %d (",
			   (long long)m->maxp->ppeak, (unsigned long long)kib(r, m->maxp->ppeak),
			   pid_of(m->maxp));
		rows_text_comm(o, m->maxp);
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
	rows_sys_peak_line(o, r, &m->sys);
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

	out_printf(o, "\nAT THE PEAK: processes with pages then: %u%s\n%8s %10s  %s\n", m->nalive,
		   r->opt.rows && m->nalive > r->opt.rows ? " (the largest listed)" : "", "PID", "PAGES",
		   "COMM");
	for (i = 0; i < m->nsel; i++) {
		const struct mt_task *t = &st->tb.tasks[rs->sel[i]];

		out_printf(o, "%8d %10lld  ", pid_of(t), (long long)rs->pages[rs->sel[i]]);
		rows_text_comm(o, t);
		out_puts(o, "\n");
	}
	out_printf(o, "\nPROCESSES: %u of %u with pages, by peak, threads summed (page = %u "
		   "bytes)\n", m->rows, m->nproc, r->meta.page_size);
	out_printf(o, "%8s %8s %7s %10s %10s %10s %-7s  %s\n", "PID", "PPID", "THREADS",
		   "PEAK_PAGES", "PEAK_KIB", "LIFETIME_S", "STATE", "COMM");
	for (i = 0; i < m->rows; i++) {
		const struct mt_task *t = &st->tb.tasks[rs->order[i]];

		out_printf(o, "%8d %8d %7u %10lld %10llu %10.3f %-7s  ", pid_of(t), t->ppid,
			   rows_threads(rs, rs->order[i]), (long long)t->ppeak,
			   (unsigned long long)kib(r, t->ppeak), lifetime(r, rs, rs->order[i], m->end_ts),
			   rows_state(r, rs, rs->order[i]));
		rows_text_comm(o, t);
		out_puts(o, "\n");
	}
	for (i = 0; i < m->rows; i++)
		stackreport_process_text(o, r, &m->ks, rs->order[i]);
}

void report_command(struct out *o, const struct run *r, struct report_scratch *rs)
{
	struct cmd_model m;

	cmd_model_fill(&m, r, rs);
	if (rows_json(r))
		command_json(o, &m);
	else
		command_text(o, &m);
	stackreport_end(&m.ks);
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
