// SPDX-License-Identifier: GPL-2.0-only
/* signals.c - the signals memtrace reads, what each means (a mode's table), and the second-signal exit */
#include "signals.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tracefs.h"
#include "util.h"

/*
 * Signals whose default action ends the process and that are not reports, nor
 * HUP (a console hangup) nor PIPE (EPIPE where it is written): each stops
 * memtrace as TERM does (the final report, the instance removed), never a death
 * that leaves the instance tracing. Real-time signals are added by range.
 * Not here: the faults (SEGV, BUS, FPE, ILL, ABRT), which no mask holds back;
 * XFSZ, ignored: a write past RLIMIT_FSIZE fails with EFBIG, as on a full disk.
 */
static const int stop_sigs[] = {
	SIGTERM, SIGINT, SIGQUIT, SIGALRM, SIGVTALRM, SIGPROF, SIGPWR, SIGSYS, SIGTRAP,
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
	SIGXCPU, SIGIO,
};

static void add_stop_sigs(sigset_t *set)
{
	size_t i;
	int s;

	for (i = 0; i < ARRAY_SIZE(stop_sigs); i++)
		sigaddset(set, stop_sigs[i]);
	for (s = SIGRTMIN; s <= SIGRTMAX; s++)
		sigaddset(set, s);
}

bool signals_is_stop(int sig)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(stop_sigs); i++)
		if (stop_sigs[i] == sig)
			return true;
	return sig >= SIGRTMIN && sig <= SIGRTMAX;
}

const struct sig_table signals_default = {
	.stop = SIGACT_STOP,
	.usr1 = SIGACT_REPORT_STDOUT,
	.usr2 = SIGACT_REPORT_LOG,
	.hup = SIGACT_IGNORE,		/* a console hangup must not stop us */
};

const struct sig_table signals_command = {
	.command = true,
	.usr1 = SIGACT_REPORT_COMMAND,
	.usr2 = SIGACT_REPORT_COMMAND,
	.chld = SIGACT_CHILD,
};

int signals_setup(struct signals *sg, const struct sig_table *t)
{
	memset(sg, 0, sizeof(*sg));
	sg->fd = -1;
	sg->table = t;
	sg->pipe_ignored = signal(SIGPIPE, SIG_IGN) == SIG_IGN;
	sg->xfsz_ignored = signal(SIGXFSZ, SIG_IGN) == SIG_IGN;
	sigemptyset(&sg->blocked);
	/* a replay reads no signals: TERM and INT end it as they end any program */
	if (t->none)
		return 0;
	add_stop_sigs(&sg->blocked);
	sigaddset(&sg->blocked, SIGUSR1);
	sigaddset(&sg->blocked, SIGUSR2);
	sigaddset(&sg->blocked, SIGHUP);
	if (t->chld != SIGACT_IGNORE)
		sigaddset(&sg->blocked, SIGCHLD);
	if (t->winch != SIGACT_IGNORE)
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
 * A command runs (command mode, --stream -- COMMAND): the first stopping
 * signal (TERM, INT, ALRM, ...), while the command runs, goes on to it and
 * memtrace goes on waiting; but an INT or QUIT from the terminal (SI_KERNEL)
 * reached the command's process group already. Once the command is gone, or
 * at the second: stop waiting for what is left and report it.
 */
static enum sig_action command_stop(int sig, int code, struct sig_cmd_state *cs)
{
	if (cs->command_gone || cs->stops++)
		return SIGACT_STOP_WAITING;
	return code == SI_KERNEL && (sig == SIGINT || sig == SIGQUIT) ? SIGACT_WAIT :
	       SIGACT_FORWARD;
}

enum sig_action signals_action(const struct sig_table *t, const struct signalfd_siginfo *si,
			       struct sig_cmd_state *cs)
{
	int sig = (int)si->ssi_signo;

	if (signals_is_stop(sig))
		return t->command ? command_stop(sig, si->ssi_code, cs) : t->stop;
	switch (sig) {
	case SIGUSR1:
		return t->usr1;
	case SIGUSR2:
		return t->usr2;
	case SIGHUP:
		return t->hup;
	case SIGCHLD:
		return t->chld;
	case SIGWINCH:
		return t->winch;
	default:
		return SIGACT_IGNORE;
	}
}

const char *signals_trigger(int sig)
{
	static const char *const names[] = {
		[SIGHUP] = "SIGHUP", [SIGINT] = "SIGINT", [SIGQUIT] = "SIGQUIT",
		[SIGTRAP] = "SIGTRAP", [SIGALRM] = "SIGALRM", [SIGTERM] = "SIGTERM",
#ifdef SIGSTKFLT
		[SIGSTKFLT] = "SIGSTKFLT",
#endif
		[SIGXCPU] = "SIGXCPU", [SIGVTALRM] = "SIGVTALRM", [SIGPROF] = "SIGPROF",
		[SIGIO] = "SIGIO", [SIGPWR] = "SIGPWR", [SIGSYS] = "SIGSYS",
	};
	/* as kill -l: SIGRTMIN+N in the lower half, SIGRTMAX-N above (SIGRTMIN is glibc's) */
	static char rt[24];
	int lo = SIGRTMIN, hi = SIGRTMAX;

	if (sig > 0 && (size_t)sig < ARRAY_SIZE(names) && names[sig])
		return names[sig];
	if (sig >= lo && sig <= hi) {
		if (sig == lo || sig == hi)
			return sig == lo ? "SIGRTMIN" : "SIGRTMAX";
		if (sig - lo <= (hi - lo) / 2)
			snprintf(rt, sizeof(rt), "SIGRTMIN+%d", sig - lo);
		else
			snprintf(rt, sizeof(rt), "SIGRTMAX-%d", hi - sig);
		return rt;
	}
	return "SIGTERM";
}

int signals_exit_code(int sig, int code)
{
	if (code || !signals_is_stop(sig) || sig == SIGTERM || sig == SIGINT)
		return code;
	return 128 + sig;
}

bool signals_term_pending(void)
{
	sigset_t set, stop;
	int s;

	if (sigpending(&set))
		return false;
	sigemptyset(&stop);
	add_stop_sigs(&stop);
	for (s = 1; s < NSIG; s++)
		if (sigismember(&stop, s) == 1 && sigismember(&set, s) == 1)
			return true;
	return false;
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

	int s;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = second_signal;
	sigfillset(&sa.sa_mask);
	sigemptyset(&set);
	add_stop_sigs(&set);
	for (s = 1; s < NSIG; s++)
		if (sigismember(&set, s) == 1)
			sigaction(s, &sa, NULL);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

void signals_restore_for_exec(const struct signals *sg)
{
	sigprocmask(SIG_SETMASK, &sg->orig, NULL);
	signal(SIGPIPE, sg->pipe_ignored ? SIG_IGN : SIG_DFL);
	signal(SIGXFSZ, sg->xfsz_ignored ? SIG_IGN : SIG_DFL);
}
