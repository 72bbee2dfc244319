// SPDX-License-Identifier: GPL-2.0-only
/* signals.c - the signals memtrace reads, what each means in each mode, and the second-signal exit */
#include "signals.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "tracefs.h"
#include "util.h"

int signals_setup(struct signals *sg, enum run_mode mode)
{
	memset(sg, 0, sizeof(*sg));
	sg->fd = -1;
	sg->pipe_ignored = signal(SIGPIPE, SIG_IGN) == SIG_IGN;
	sigemptyset(&sg->blocked);
	/* replay reads no signals: TERM and INT end it as they end any program */
	if (mode == MODE_REPLAY)
		return 0;
	sigaddset(&sg->blocked, SIGTERM);
	sigaddset(&sg->blocked, SIGINT);
	sigaddset(&sg->blocked, SIGUSR1);
	sigaddset(&sg->blocked, SIGUSR2);
	sigaddset(&sg->blocked, SIGHUP);
	if (mode == MODE_COMMAND || mode == MODE_STREAM)
		sigaddset(&sg->blocked, SIGCHLD);
	if (mode == MODE_TOP)
		sigaddset(&sg->blocked, SIGWINCH);
	if (sigprocmask(SIG_BLOCK, &sg->blocked, &sg->orig))
		return mt_fail(EXIT_RUNTIME, "sigprocmask: %s", strerror(errno));
	sg->fd = signalfd(-1, &sg->blocked, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sg->fd < 0)
		return mt_fail(EXIT_RUNTIME, "signalfd: %s", strerror(errno));
	return 0;
}

void signals_close(struct signals *sg)
{
	if (sg->fd >= 0)
		close(sg->fd);
	sg->fd = -1;
}

bool signals_next(const struct signals *sg, struct signalfd_siginfo *si)
{
	return sg->fd >= 0 && read(sg->fd, si, sizeof(*si)) == (ssize_t)sizeof(*si);
}

/*
 * Command mode: the first TERM/INT, while the command runs, goes on to it if
 * it was sent with kill() (from the terminal, SI_KERNEL, the command's process
 * group got it too) and memtrace goes on waiting. Once the command is gone,
 * or at the second: stop waiting for what is left and report it.
 */
static enum sig_action command_action(int sig, int code, struct sig_cmd_state *cs)
{
	switch (sig) {
	case SIGTERM:
	case SIGINT:
		if (cs->command_gone || cs->stops++)
			return SIGACT_STOP_WAITING;
		return code == SI_KERNEL ? SIGACT_WAIT : SIGACT_FORWARD;
	case SIGUSR1:
	case SIGUSR2:
		return SIGACT_REPORT_COMMAND;
	case SIGCHLD:
		return SIGACT_CHILD;
	default:
		return SIGACT_IGNORE;	/* SIGHUP */
	}
}

/*
 * The live view: stdout is the screen, so USR1's report goes to the log file
 * as USR2's; TERM, INT and HUP (the terminal is gone) put the terminal back
 * and stop; WINCH draws the screen at its new size.
 */
static enum sig_action top_action(int sig)
{
	switch (sig) {
	case SIGUSR1:
	case SIGUSR2:
		return SIGACT_REPORT_LOG;
	case SIGTERM:
	case SIGINT:
	case SIGHUP:
		return SIGACT_QUIT;
	case SIGWINCH:
		return SIGACT_RESIZE;
	default:
		return SIGACT_IGNORE;
	}
}

enum sig_action signals_action(enum run_mode mode, const struct signalfd_siginfo *si,
			       struct sig_cmd_state *cs)
{
	int sig = (int)si->ssi_signo;

	if ((mode == MODE_COMMAND || mode == MODE_STREAM) && cs)
		return command_action(sig, si->ssi_code, cs);
	if (mode == MODE_TOP)
		return top_action(sig);
	switch (sig) {
	case SIGUSR1:
		/* the stream may be on stdout: its mode decides where the report goes */
		return mode == MODE_STREAM ? SIGACT_REPORT_MODE : SIGACT_REPORT_STDOUT;
	case SIGUSR2:
		return SIGACT_REPORT_LOG;
	case SIGTERM:
	case SIGINT:
		return SIGACT_STOP;
	default:
		return SIGACT_IGNORE;	/* SIGHUP: a console hangup must not stop us */
	}
}

const char *signals_trigger(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGPIPE:
		return "stdout closed";
	case SIGHUP:
		return "SIGHUP";
	default:
		return "SIGTERM";
	}
}

bool signals_term_pending(void)
{
	sigset_t set;

	return !sigpending(&set) && (sigismember(&set, SIGTERM) == 1 ||
				     sigismember(&set, SIGINT) == 1);
}

static void second_signal(int sig)
{
	tracefs_emergency_cleanup();
	_exit(128 + sig);
}

void signals_arm_teardown(void)
{
	struct sigaction sa;
	sigset_t set;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = second_signal;
	sigfillset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

void signals_restore_for_exec(const struct signals *sg)
{
	sigprocmask(SIG_SETMASK, &sg->orig, NULL);
	signal(SIGPIPE, sg->pipe_ignored ? SIG_IGN : SIG_DFL);
}
