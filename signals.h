/* SPDX-License-Identifier: GPL-2.0-only */
/* signals.h - the signals memtrace reads, what each means (a mode's table), and the second-signal exit */
#ifndef MEMTRACE_SIGNALS_H
#define MEMTRACE_SIGNALS_H

#include <signal.h>
#include <stdbool.h>
#include <sys/signalfd.h>
#include <sys/types.h>

struct sig_table;

/*
 * Policy, the same in every mode:
 *  - The stopping signals (TERM, INT and every other whose default action
 *    ends the process: QUIT, ALRM, VTALRM, PROF, PWR, SYS, TRAP, STKFLT, XCPU,
 *    IO, SIGRTMIN..SIGRTMAX), USR1, USR2, HUP (and CHLD, WINCH where a mode's
 *    table reads them) are blocked from the start and read from a signalfd in the main
 *    loop's poll set: no work is ever done in a handler. A stopping signal
 *    stops as TERM does; but TERM and INT, the usual ways, exit 0, the others
 *    128+signal once the teardown is done (signals_exit_code()).
 *  - HUP is read and ignored: a console hangup must not end a boot trace.
 *    In the live view (--top, its table in top.c) it stops, as TERM does: the
 *    terminal is gone. The live view also reads WINCH (the terminal's size changed).
 *  - PIPE is ignored: a closed stdout comes back as EPIPE where it is written.
 *    XFSZ is ignored: a write past RLIMIT_FSIZE fails with EFBIG, as on a
 *    full disk. A command memtrace runs gets the dispositions memtrace's
 *    caller gave.
 *  - From the stop on (signals_arm_teardown()), a stopping signal has a
 *    handler that removes the instance and exits at once with 128+signal.
 *  - The fault signals (SEGV, BUS, ABRT, FPE, ILL), which no mask holds
 *    back, have from signals_setup() on a handler that runs the prepared
 *    async-signal-safe teardown (the terminal, tracing off, the instance
 *    removed), says so on stderr and in the kernel log, and dies of the
 *    same signal (a core dump where the limits allow one).
 */
struct signals {
	int fd;			/* signalfd, non-blocking; -1 before signals_setup() */
	const struct sig_table *table;	/* what each signal means (signals_setup()) */
	sigset_t blocked;	/* what the signalfd reads */
	sigset_t orig;		/* the mask before, for a command's child */
	bool pipe_ignored;	/* SIGPIPE was ignored by memtrace's caller */
	bool xfsz_ignored;	/* and SIGXFSZ */
};

/*
 * What a signal asks of the mode's loop. The command actions are those of every
 * mode that runs a command (command mode, --stream -- CMD).
 */
enum sig_action {
	SIGACT_IGNORE = 0,
	SIGACT_REPORT_STDOUT,	/* catch up, a report on stdout */
	SIGACT_REPORT_LOG,	/* catch up, a report to the log file */
	SIGACT_REPORT_COMMAND,	/* command: catch up, the command report so far */
	SIGACT_STOP,		/* stop tracing, drain, final report, exit */
	SIGACT_FORWARD,		/* command: pass it to the command, go on waiting */
	SIGACT_WAIT,		/* command: the command got it too (terminal); go on */
	SIGACT_STOP_WAITING,	/* command: stop waiting for the tree, report */
	SIGACT_CHILD,		/* command: something exited, reap it */
	SIGACT_QUIT,		/* live view: leave the terminal, then stop as SIGACT_STOP */
	SIGACT_RESIZE,		/* live view: the terminal changed size */
	SIGACT_REPORT_MODE,	/* the mode's own report, where it says (on_signal; --stream) */
	SIGACT_SWITCH_ROOT,	/* --switch-root: follow the initramfs's switch to the root */
};

/*
 * What each signal means in a mode: its mode_ops.signals (NULL: signals_default).
 * SIGACT_IGNORE (0) for what a table leaves out. CHLD and WINCH are read only
 * where the table gives them a meaning; HUP and the rest always.
 */
struct sig_table {
	bool none;		/* no signal is read: TERM and INT end memtrace as any program */
	/*
	 * A command runs: a stopping signal goes on to it first (or it got it
	 * from the terminal), the second or one after the command is gone
	 * stops the wait (SIGACT_FORWARD, SIGACT_WAIT, SIGACT_STOP_WAITING); @stop
	 * is not used
	 */
	bool command;
	enum sig_action stop;	/* TERM, INT and the other stopping signals */
	enum sig_action usr1, usr2, hup, chld, winch;
};

/* The daemon's meanings, and those of every mode that has no table of its own. */
extern const struct sig_table signals_default;

/* The daemon's with --switch-root: HUP asks it to follow the switch to the root. */
extern const struct sig_table signals_switch_root;

/*
 * Those of every mode that runs a COMMAND (command mode, --stream -- COMMAND):
 * USR1 and USR2 the command report, CHLD reaps, stopping signals as said above.
 */
extern const struct sig_table signals_command;

/* A command's part of the meaning: TERM/INT seen so far, whether the command is gone. */
struct sig_cmd_state {
	int stops;
	bool command_gone;
};

/**
 * signals_setup() - block the signals @t reads, open the signalfd, ignore SIGPIPE
 * Return: 0, or an exit code (said on stderr).
 */
int signals_setup(struct signals *sg, const struct sig_table *t);

/* Close the signalfd (the mask stays: memtrace is about to exit). */
void signals_close(struct signals *sg);

/* The next pending signal from the signalfd; false when none is left. */
bool signals_next(const struct signals *sg, struct signalfd_siginfo *si);

/**
 * signals_action() - what @si means in the mode whose table is @t
 * @cs: the state of a command memtrace runs (updated where @t->command)
 */
enum sig_action signals_action(const struct sig_table *t, const struct signalfd_siginfo *si,
			       struct sig_cmd_state *cs);

/* Name of a stopping signal as the reports give it as trigger ("SIGTERM", ...). */
const char *signals_trigger(int sig);

/* true for a stopping signal: one that would end the process, stopping memtrace instead */
bool signals_is_stop(int sig);

/*
 * The exit status of a run that @sig stopped and whose own is @code: 128+sig
 * for a stopping signal other than TERM and INT (ALRM, XCPU, ...), as the
 * shell would show a death by it; @code otherwise.
 */
int signals_exit_code(int sig, int code);

/* true when a stopping signal is pending (blocked, not yet read): setup gives up. */
bool signals_term_pending(void);

/*
 * From now on a stopping signal exits at once: tracefs_emergency_cleanup(),
 * then _exit(128+signal). Called when the stop begins.
 */
void signals_arm_teardown(void);

/*
 * A command memtrace runs, pid @pid (0: none any more): a fault signal's
 * line names it, as it goes on without memtrace.
 */
void signals_fault_child(pid_t pid);

/*
 * What a fault signal's handler calls first, before tracefs: the live view's
 * terminal put back (ui/term.c registers term_emergency_restore() while the
 * terminal is raw, NULL after). It must be async-signal-safe.
 */
void signals_fault_restore(void (*fn)(void));

/*
 * What the SIGBUS handler asks first, for a fault on a mapped file's page
 * (BUS_ADRERR): @fn(@ctx) is 1 when a mapped file became shorter and @fn made
 * the rest readable (reader_map_fault(): a replay's recording truncated under
 * it); the access goes on. Else the fault is one (NULL: none registered). @fn
 * must be async-signal-safe.
 */
void signals_fault_mapped(int (*fn)(void *ctx), void *ctx);

/*
 * Files memtrace made that an exit at once (a second stop signal, a fault)
 * removes, as the normal end does: the --pidfile, and a report's temporary
 * file while it is written. Each is removed only by the process that set it,
 * if @path is still the regular file @st says (device and inode), and, with
 * @pid, while it holds that pid (another memtrace may have rewritten it).
 * @path is copied; NULL clears the slot.
 */
struct stat;
enum fast_file { FAST_PIDFILE, FAST_TEMP, FAST__COUNT };
void signals_fast_file(enum fast_file slot, const char *path, const struct stat *st, pid_t pid);

/* The normal end: the file of @slot removed as an exit at once would remove it; cleared. */
void signals_fast_file_remove(enum fast_file slot);

/* In the child that becomes a command: the caller's mask and SIGPIPE back. */
void signals_restore_for_exec(const struct signals *sg);

#endif
