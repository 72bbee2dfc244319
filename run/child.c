// SPDX-License-Identifier: GPL-2.0-only
/* run/child.c - the COMMAND a run starts once tracing is live: spawned, let go, reaped, signalled; its exit status */
#include "run/child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/util.h"
#include "signals.h"

/* Child: wait for the go, then become the command. Never returns. */
__attribute__((noreturn))
static void child_exec(const struct run *r, int go, int go_w, int errp)
{
	char c;
	int e;

	/* if memtrace dies before the go, read() must see the end of the pipe */
	close(go_w);
	signals_restore_for_exec(&r->sig);
	if (r->cmd.stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		_exit(EXIT_EXEC);
	if (r->cmd.oom_adj[0])
		write_file("/proc/self/oom_score_adj", r->cmd.oom_adj);
	if (r->nofile_raised)
		setrlimit(RLIMIT_NOFILE, &r->nofile_was);
	while (read(go, &c, 1) < 0 && errno == EINTR)
		;
	close(go);
	execvp(r->opt.command[0], r->opt.command);
	e = errno;
	if (write(errp, &e, sizeof(e)) != (ssize_t)sizeof(e))
		_exit(EXIT_EXEC);
	_exit(EXIT_EXEC);
}

/* Fork the command; it waits for child_go(). 0 or an exit code. */
int child_spawn(struct run *r)
{
	struct cmd_info *c = &r->cmd;
	int go[2], errp[2];

	c->go_fd = c->err_fd = -1;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		mt_warn("warning: cannot become a subreaper (%s): orphaned descendants are not "
			"waited for", strerror(errno));
	if (pipe2(go, O_CLOEXEC))
		return mt_fail(EXIT_RUNTIME, "pipe: %s", strerror(errno));
	if (pipe2(errp, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return mt_fail(EXIT_RUNTIME, "pipe: %s", strerror(errno));
	}
	c->argv = r->opt.command;
	c->waited = !r->opt.no_wait;
	c->start_ts = mono_ns();
	c->pid = fork();
	if (c->pid < 0) {
		c->pid = 0;
		close(go[0]);
		close(go[1]);
		close(errp[0]);
		close(errp[1]);
		return mt_fail(EXIT_RUNTIME, "fork: %s", strerror(errno));
	}
	if (c->pid == 0)
		child_exec(r, go[0], go[1], errp[1]);
	signals_fault_child(c->pid);
	close(go[0]);
	close(errp[1]);
	c->go_fd = go[1];
	c->err_fd = errp[0];
	return 0;
}

/* Let the command exec; note whether it could. 0. */
int child_go(struct run *r)
{
	struct cmd_info *c = &r->cmd;
	ssize_t n;
	int e;

	if (write(c->go_fd, "x", 1) != 1)
		mt_warn("starting the command: %s", strerror(errno));
	close(c->go_fd);
	c->go_fd = -1;
	do {
		n = read(c->err_fd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		c->exec_failed = true;
		mt_warn("cannot run '%s': %s", r->opt.command[0], strerror(e));
	}
	return 0;
}

/* Reap what has exited; true once the command is reaped and nothing else is left. */
bool child_reap(struct run *r)
{
	struct cmd_info *c = &r->cmd;

	for (;;) {
		int st;
		pid_t p = waitpid(-1, &st, WNOHANG);

		if (p > 0) {
			if (p == c->pid) {
				c->status = st;
				c->reaped = true;
				c->sigs.command_gone = true;
				signals_fault_child(0);
			}
			continue;
		}
		if (p < 0 && errno == EINTR)
			continue;
		/* p == 0: children left; ECHILD: none (we are their subreaper) */
		return c->reaped && (r->opt.no_wait || (p < 0 && errno == ECHILD));
	}
}

bool child_signal(struct run *r, int action, const struct signalfd_siginfo *si)
{
	switch (action) {
	case SIGACT_FORWARD:
		kill(r->cmd.pid, (int)si->ssi_signo);
		return true;
	case SIGACT_STOP_WAITING:
		r->stop = STOP_SIGNAL;
		r->stop_signo = (int)si->ssi_signo;
		return true;
	default:
		return false;
	}
}

int child_exit_code(const struct run *r)
{
	const struct cmd_info *c = &r->cmd;

	if (c->exec_failed)
		return EXIT_EXEC;
	/* left running after a second signal (or --stream's output gone): as if killed by it */
	if (!c->reaped)
		return 128 + (r->stop == STOP_SIGNAL ? r->stop_signo :
			      r->stop == STOP_OUTPUT_GONE ? SIGPIPE : SIGTERM);
	if (WIFSIGNALED(c->status))
		return 128 + WTERMSIG(c->status);
	return WEXITSTATUS(c->status);
}
