// SPDX-License-Identifier: GPL-2.0-only
/* modes/command.c - command mode: run COMMAND once tracing is live, follow its tree, report its peak */
#include "modes/command.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/escape.h"
#include "output/logfile.h"
#include "run/loop.h"
#include "output/report.h"
#include "output/reportto.h"
#include "run/child.h"
#include "lib/util.h"

#define BATCH	65536
#define LEFT_SHOWN	5	/* processes named when the command's exit leaves some */

struct command_state {
	bool said_left;		/* the command exited with its tree left: said so */
	uint64_t reaped_ns;	/* mono_ns() when the command was found reaped (0: not yet) */
};

/* how long the list of what is left may wait for the events of the command's exit */
#define LEFT_WAIT_NS	1000000000ull

static void gen_command(struct out *o, void *p)
{
	struct run *r = p;

	report_command(o, r, &r->rs);
}

/*
 * The command report to -o FILE (atomic), else to stderr. The @final one, if
 * FILE cannot be written, goes to stderr after saying so: memtrace is ending.
 * Return: 0, or -errno of the write (to FILE, if it was asked for).
 */
static int report_out(struct run *r, bool final)
{
	static struct out o;
	char err[PATH_MAX + 128];
	int e = 0, flushed;

	if (r->opt.output_set) {
		e = logfile_write(r->opt.log_path, gen_command, r, err, sizeof(err));
		if (!e)
			return 0;
		if (!final) {
			mt_warn("%s", err);
			return e;
		}
		mt_warn("command report not written: %s; it follows on stderr instead (%s is "
			"unchanged)", err, r->opt.log_path);
	}
	out_init(&o, STDERR_FILENO);
	gen_command(&o, r);
	flushed = out_flush(&o);
	return r->opt.output_set ? e : flushed;
}

/* Before the setup: what the command must get back of memtrace's own settings. */
static int command_prepare(struct run *r)
{
	/* the command inherits our oom_score_adj: it gets its own back */
	if (read_file("/proc/self/oom_score_adj", r->cmd.oom_adj, sizeof(r->cmd.oom_adj)) <= 0)
		r->cmd.oom_adj[0] = '\0';
	r->seed = false;	/* only the command's tree counts, and it starts later */
	return 0;
}

/* Tracing is live: start the command, rooted as the tree when its fork event is read. */
static int command_start(struct run *r)
{
	int code = child_spawn(r);

	if (code)
		return code;
	/* the tree is rooted at the event of this fork, when the reader gets to it */
	stats_tree_root(&r->st, r->cmd.pid, (int32_t)getpid());
	return child_go(r);
}

static enum loop_next command_on_signal(struct run *r, int action,
					const struct signalfd_siginfo *si)
{
	if (action == SIGACT_REPORT_COMMAND) {
		report_catch_up(r);
		report_out(r, false);
	} else {
		/* SIGACT_WAIT: the command got it from the terminal; SIGACT_CHILD: reaped */
		child_signal(r, action, si);
	}
	return LOOP_GO_ON;
}

/* The loop ends: the command's wall time ends here, before the stop and drain. */
static enum loop_next command_done(struct run *r)
{
	r->cmd.wall_s = (double)(mono_ns() - r->cmd.start_ts) / 1e9;
	return LOOP_STOP;
}

/* How the command ended, as a wait status says, into @buf. */
static const char *ended_how(const struct cmd_info *c, char *buf, size_t size)
{
	if (WIFSIGNALED(c->status))
		snprintf(buf, size, "killed by signal %d", WTERMSIG(c->status));
	else
		snprintf(buf, size, "exit status %d", WEXITSTATUS(c->status));
	return buf;
}

/*
 * A live process's name as /proc has it now, into @out (escaped): the events
 * read so far may not have its exec yet; else the table's @t.
 */
static void name_now(const struct mt_task *t, int32_t pid, char *out, size_t size)
{
	char p[32], buf[COMM_LEN + 2];
	ssize_t n;

	snprintf(p, sizeof(p), "/proc/%d/comm", (int)pid);
	n = read_file(p, buf, sizeof(buf) - 1);
	if (n > 0) {
		if (buf[n - 1] == '\n')
			n--;
		escape_ascii(out, size, buf, (size_t)n, false);
	} else {
		escape_ascii(out, size, t->comm, t->comm_len, false);
	}
}

/*
 * The command exited and its tree still has processes, which memtrace waits
 * for: said at once (else it looks hung until they end), with how many, which
 * (the tree as the events so far tell it) and how to stop waiting.
 */
static void say_left(struct run *r)
{
	struct table *tb = &r->st.tb;
	char names[LEFT_SHOWN * 40] = "", comm[COMM_LEN + 1], how[40];
	uint32_t i, n = 0;
	size_t len = 0;

	report_catch_up(r);	/* the tree's forks and exits up to now */
	memset(r->rs.threads, 0, tb->ntasks_used * sizeof(*r->rs.threads));
	for (i = SLOT_FIRST; i < tb->ntasks_used; i++) {
		const struct mt_task *t = &tb->tasks[i];
		const struct mt_task *p = table_process_of(tb, t);

		if (!(t->flags & TF_TREE) || t->state != TASK_ALIVE || r->rs.threads[p - tb->tasks]++)
			continue;
		if (n++ < LEFT_SHOWN && len < sizeof(names)) {
			int32_t pid = p->tgid ? p->tgid : p->tid;

			name_now(p, pid, comm, sizeof(comm));
			len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%d (%s)",
						n > 1 ? ", " : "", pid, comm);
		}
	}
	if (n)
		mt_warn("the command exited (%s), %u process%s of its tree still run%s: %s%s; "
			"waiting for %s (Ctrl-C or kill -TERM %d: stop waiting, report %s as still "
			"running; --no-wait: never wait)", ended_how(&r->cmd, how, sizeof(how)), n,
			n == 1 ? "" : "es", n == 1 ? "s" : "", names, n > LEFT_SHOWN ? ", ..." : "",
			n == 1 ? "it" : "them", (int)getpid(), n == 1 ? "it" : "them");
	else
		mt_warn("the command exited (%s), processes it started still run; waiting for them "
			"(Ctrl-C or kill -TERM %d: stop waiting, report them as still running; "
			"--no-wait: never wait)", ended_how(&r->cmd, how, sizeof(how)), (int)getpid());
}

/*
 * The events read hold the command's exit, and so every fork of its tree that
 * came before it (they are read in time order): what say_left() lists is then
 * what is left. waitpid() tells of the exit first: the events of a command that
 * ran for a moment may not be read at all yet (the command not in the table),
 * or another CPU's held back for a round or two.
 */
static bool exit_read(const struct run *r)
{
	const struct mt_task *t = table_find_task(&r->st.tb, r->cmd.pid);

	return t && t->state != TASK_ALIVE;
}

/* After each round: the tree is done, or memtrace was told to stop waiting for it. */
static enum loop_next command_check(struct run *r)
{
	struct command_state *cs = r->mode;
	struct cmd_info *c = &r->cmd;

	if (child_reap(r))
		return command_done(r);
	if (c->reaped && !cs->said_left && r->stop == STOP_NONE) {
		uint64_t now = mono_ns();

		if (!cs->reaped_ns)
			cs->reaped_ns = now ? now : 1;
		/* at most a second late: the events may never say it (lost, table full) */
		if (exit_read(r) || now - cs->reaped_ns >= LEFT_WAIT_NS) {
			cs->said_left = true;
			say_left(r);
		}
	}
	if (r->stop == STOP_NONE)
		return LOOP_GO_ON;
	/* what is left is reported as still running */
	c->waited = false;
	if (!c->reaped)
		mt_warn("stopped waiting for the command (second signal)");
	return command_done(r);
}

static void command_abort(struct run *r)
{
	if (r->cmd.pid > 0 && !r->cmd.reaped)
		kill(r->cmd.pid, SIGKILL);
}

static int command_finish(struct run *r)
{
	struct cmd_info *c = &r->cmd;
	struct table *tb = &r->st.tb;
	struct rusage ru;
	uint32_t i;
	int code;

	if (!getrusage(RUSAGE_CHILDREN, &ru)) {
		c->user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
		c->sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
		c->max_rss_kib = ru.ru_maxrss;
	}
	/* processes of the tree with a thread still alive (their leader may be gone) */
	memset(r->rs.threads, 0, tb->ntasks_used * sizeof(*r->rs.threads));
	for (i = SLOT_FIRST; i < tb->ntasks_used; i++) {
		const struct mt_task *t = &tb->tasks[i];
		uint32_t p = (uint32_t)(table_process_of(tb, t) - tb->tasks);

		if ((t->flags & TF_TREE) && t->state == TASK_ALIVE && !r->rs.threads[p]++)
			c->still_running++;
	}
	code = child_exit_code(r);
	/* the report is on stderr instead of -o FILE: 1 rather than the command's 0 */
	if (report_out(r, true) && r->opt.output_set && code == EXIT_OK)
		code = EXIT_RUNTIME;
	return code;
}

const struct mode_ops command_ops = {
	.name = "command",
	.state_size = sizeof(struct command_state),
	.live = true,
	.batch = BATCH,
	.signals = &signals_command,
	.log_without_o = "stderr",		/* the report: -o FILE, else stderr */
	.final_to_log = true,
	.prepare = command_prepare,
	.start = command_start,
	.on_signal = command_on_signal,
	.check = command_check,
	.abort = command_abort,
	.finish = command_finish,
};
