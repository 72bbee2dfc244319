// SPDX-License-Identifier: GPL-2.0-only
/* signals.c - the signals memtrace reads, what each means (a mode's table), and the second-signal exit */
#include "signals.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracefs.h"
#include "lib/util.h"

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

const struct sig_table signals_switch_root = {
	.stop = SIGACT_STOP,
	.usr1 = SIGACT_REPORT_STDOUT,
	.usr2 = SIGACT_REPORT_LOG,
	.hup = SIGACT_SWITCH_ROOT,	/* only the initramfs's script sends it (no terminal) */
};

const struct sig_table signals_command = {
	.command = true,
	.usr1 = SIGACT_REPORT_COMMAND,
	.usr2 = SIGACT_REPORT_COMMAND,
	.chld = SIGACT_CHILD,
};

/*
 * The fault signals: no mask holds them back (a real fault is delivered at
 * once) and no work can wait for the loop. Their handler is the one place
 * where work is done in a handler: the prepared, async-signal-safe teardown
 * (the terminal back, through what the live view registered; tracing off, the
 * instance removed), a line on stderr
 * and in the kernel log, then death by the same signal, core dump and all.
 */
static const int fault_sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };

/* What the fault handler needs, prepared (the other records: tracefs.c's, term.c's). */
static struct {
	bool armed;
	pid_t child;			/* a command memtrace runs: it goes on without memtrace */
	void (*restore)(void);		/* the terminal's (ui/term.c), while it is raw */
	int (*mapped)(void *ctx);			/* signals_fault_mapped() */
	void *mapped_ctx;
	struct sigaction sa;				/* ours, armed again after a mapped fault */
	struct sigaction old[ARRAY_SIZE(fault_sigs)];	/* restored before dying */
} fault;

/* signals_fast_file()'s: @on is set last and cleared first, so a handler sees a whole one */
static struct {
	volatile sig_atomic_t on;
	char path[PATH_MAX];
	dev_t dev;
	ino_t ino;
	pid_t pid, owner;
} fast[FAST__COUNT];

void signals_fast_file(enum fast_file slot, const char *path, const struct stat *st, pid_t pid)
{
	fast[slot].on = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (!path || strlen(path) >= sizeof(fast[slot].path))
		return;
	strcpy(fast[slot].path, path);
	fast[slot].dev = st->st_dev;
	fast[slot].ino = st->st_ino;
	fast[slot].pid = pid;
	fast[slot].owner = getpid();
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	fast[slot].on = 1;
}

/* async-signal-safe: @path holds @pid in decimal (and a newline) */
static bool holds_pid(const char *path, pid_t pid)
{
	char buf[32];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1, i;
	long v = 0;

	if (fd >= 0)
		close(fd);
	for (i = 0; i < n && buf[i] >= '0' && buf[i] <= '9' && v < INT_MAX / 10; i++)
		v = v * 10 + (buf[i] - '0');
	return i > 0 && (i == n || buf[i] == '\n') && v == (long)pid;
}

/* async-signal-safe: fast[@i]'s file removed, if still what it was set as */
static void fast_remove_one(size_t i)
{
	struct stat st;

	if (!fast[i].on || fast[i].owner != getpid() || lstat(fast[i].path, &st) ||
	    !S_ISREG(st.st_mode) || st.st_dev != fast[i].dev || st.st_ino != fast[i].ino ||
	    (fast[i].pid && !holds_pid(fast[i].path, fast[i].pid)))
		return;
	unlink(fast[i].path);
}

/* async-signal-safe: every file of fast[] */
static void fast_remove(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fast); i++)
		fast_remove_one(i);
}

void signals_fast_file_remove(enum fast_file slot)
{
	fast_remove_one(slot);
	signals_fast_file(slot, NULL, NULL, 0);
}

/* async-signal-safe: @s appended to @buf of @size at *@len */
static void as_cat(char *buf, size_t size, size_t *len, const char *s)
{
	while (*s && *len + 1 < size)
		buf[(*len)++] = *s++;
	buf[*len] = '\0';
}

/* async-signal-safe: @v in decimal appended */
static void as_num(char *buf, size_t size, size_t *len, long v)
{
	char d[24];
	int n = 0;

	if (v < 0) {
		as_cat(buf, size, len, "-");
		v = -v;
	}
	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < (int)sizeof(d));
	while (n--) {
		char c[2] = { d[n], '\0' };

		as_cat(buf, size, len, c);
	}
}

static const char *fault_name(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGABRT: return "SIGABRT";
	case SIGFPE: return "SIGFPE";
	default: return "SIGILL";
	}
}

/* The line that says what the crash left, as stderr and the kernel log get it. */
static size_t fault_line(char *buf, size_t size, int sig, int undone)
{
	const char *where = tracefs_emergency_where();
	size_t len = 0;

	buf[0] = '\0';
	as_cat(buf, size, &len, "memtrace: fatal signal ");
	as_cat(buf, size, &len, fault_name(sig));
	as_cat(buf, size, &len, " (pid ");
	as_num(buf, size, &len, (long)getpid());
	as_cat(buf, size, &len, "): ");
	switch (undone) {
	case TFS_EMERG_REMOVED:
		as_cat(buf, size, &len, "tracing switched off and instance ");
		as_cat(buf, size, &len, where);
		as_cat(buf, size, &len, " removed");
		break;
	case TFS_EMERG_RESTORED:
		as_cat(buf, size, &len, "tracing at ");
		as_cat(buf, size, &len, where);
		as_cat(buf, size, &len, " switched off, its settings put back");
		break;
	case TFS_EMERG_FAILED:
		as_cat(buf, size, &len, "tracing switched off, but instance ");
		as_cat(buf, size, &len, where);
		as_cat(buf, size, &len, " could not be removed (rmdir it)");
		break;
	default:
		as_cat(buf, size, &len, "nothing was tracing");
		break;
	}
	if (fault.child > 0) {
		as_cat(buf, size, &len, "; the command, pid ");
		as_num(buf, size, &len, (long)fault.child);
		as_cat(buf, size, &len, ", goes on without memtrace");
	}
	as_cat(buf, size, &len, "; no report; dying of the signal\n");
	return len;
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	char line[PATH_MAX + 256], kline[PATH_MAX + 272];
	size_t len, klen = 0;
	int undone, fd, saved = errno;
	ssize_t w;
	size_t i;

	(void)uc;
	/* a mapped file that became shorter: the access goes on, on zeros (and is counted) */
	if (sig == SIGBUS && si && si->si_code == BUS_ADRERR && fault.mapped &&
	    fault.mapped(fault.mapped_ctx)) {
		sigaction(SIGBUS, &fault.sa, NULL);	/* SA_RESETHAND took it */
		errno = saved;
		return;
	}
	if (fault.restore)
		fault.restore();
	undone = tracefs_emergency_cleanup();
	fast_remove();
	len = fault_line(line, sizeof(line), sig, undone);
	w = write(STDERR_FILENO, line, len);
	/* the kernel log: where a boot's console or a --daemon's crash is read */
	as_cat(kline, sizeof(kline), &klen, "<3>");
	as_cat(kline, sizeof(kline), &klen, line);
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd >= 0) {
		w = write(fd, kline, klen);
		close(fd);
	}
	(void)w;
	/* die of it: the action before ours (the default, or a sanitizer's report) */
	for (i = 0; i < ARRAY_SIZE(fault_sigs); i++) {
		if (fault_sigs[i] != sig)
			continue;
		if (fault.old[i].sa_handler == SIG_IGN) {
			fault.old[i].sa_handler = SIG_DFL;
			fault.old[i].sa_flags = 0;
		}
		sigaction(sig, &fault.old[i], NULL);
	}
	errno = saved;
	raise(sig);	/* pending until this returns: a sent signal then kills, a fault recurs */
}

/*
 * The fault signals' handler, on a stack of its own (a stack overflow is a
 * SIGSEGV with no stack left), armed once per process.
 */
static void arm_faults(void)
{
	struct sigaction sa;
	stack_t ss;
	size_t i;

	if (fault.armed)
		return;
	fault.armed = true;
	ss.ss_size = 64 * 1024;
	ss.ss_flags = 0;
	ss.ss_sp = mmap(NULL, ss.ss_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
			MAP_NORESERVE, -1, 0);
	memset(&sa, 0, sizeof(sa));
	if (ss.ss_sp != MAP_FAILED && !sigaltstack(&ss, NULL))
		sa.sa_flags = SA_ONSTACK;
	sa.sa_sigaction = on_fault;
	sa.sa_flags |= (int)(SA_RESETHAND | SA_SIGINFO);
	sigfillset(&sa.sa_mask);
	fault.sa = sa;
	for (i = 0; i < ARRAY_SIZE(fault_sigs); i++)
		sigaction(fault_sigs[i], &sa, &fault.old[i]);
}

void signals_fault_child(pid_t pid)
{
	fault.child = pid;
}

void signals_fault_mapped(int (*fn)(void *ctx), void *ctx)
{
	fault.mapped_ctx = ctx;
	fault.mapped = fn;
}

void signals_fault_restore(void (*fn)(void))
{
	fault.restore = fn;
}

int signals_setup(struct signals *sg, const struct sig_table *t)
{
	memset(sg, 0, sizeof(*sg));
	sg->fd = -1;
	sg->table = t;
	sg->pipe_ignored = signal(SIGPIPE, SIG_IGN) == SIG_IGN;
	sg->xfsz_ignored = signal(SIGXFSZ, SIG_IGN) == SIG_IGN;
	sigemptyset(&sg->blocked);
	arm_faults();
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
	fast_remove();
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
	size_t i;

	/* the child is not memtrace: a crash before its exec must not touch tracefs */
	for (i = 0; fault.armed && i < ARRAY_SIZE(fault_sigs); i++)
		sigaction(fault_sigs[i], &fault.old[i], NULL);
	sigprocmask(SIG_SETMASK, &sg->orig, NULL);
	signal(SIGPIPE, sg->pipe_ignored ? SIG_IGN : SIG_DFL);
	signal(SIGXFSZ, sg->xfsz_ignored ? SIG_IGN : SIG_DFL);
}
