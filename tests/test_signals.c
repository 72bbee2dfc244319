// SPDX-License-Identifier: GPL-2.0-only
/* test_signals.c - what each signal means in each mode, and command mode's first and second TERM */
#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "modes/command.h"
#include "modes/exits.h"
#include "modes/replay.h"
#include "core/run.h"
#include "signals.h"
#include "modes/stream.h"
#include "testutil.h"
#include "modes/top.h"
#include "lib/util.h"

/* Each mode's table as main picks it (a COMMAND: signals_command; the daemon: the default). */
#define DAEMON	(&signals_default)
#define EXITS	(exits_ops.signals ? exits_ops.signals : &signals_default)
#define COMMAND	(&signals_command)
#define TOP	(top_ops.signals)
#define STREAM	(stream_ops.signals)

static struct signalfd_siginfo sig(int signo, int code)
{
	struct signalfd_siginfo si;

	memset(&si, 0, sizeof(si));
	si.ssi_signo = (uint32_t)signo;
	si.ssi_code = code;
	return si;
}

static enum sig_action act(const struct sig_table *t, int signo, int code,
			   struct sig_cmd_state *cs)
{
	struct signalfd_siginfo si = sig(signo, code);

	return signals_action(t, &si, cs);
}

/* daemon and --exits: USR1 stdout, USR2 the log, TERM/INT stop, HUP nothing */
START_TEST(test_daemon_meanings)
{
	const struct sig_table *modes[] = { DAEMON, EXITS };
	size_t i;

	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(act(modes[i], SIGUSR1, SI_USER, NULL), SIGACT_REPORT_STDOUT);
		ck_assert_int_eq(act(modes[i], SIGUSR2, SI_USER, NULL), SIGACT_REPORT_LOG);
		ck_assert_int_eq(act(modes[i], SIGTERM, SI_USER, NULL), SIGACT_STOP);
		ck_assert_int_eq(act(modes[i], SIGINT, SI_KERNEL, NULL), SIGACT_STOP);
		ck_assert_int_eq(act(modes[i], SIGHUP, SI_KERNEL, NULL), SIGACT_IGNORE);
	}
	ck_assert_str_eq(signals_trigger(SIGTERM), "SIGTERM");
	ck_assert_str_eq(signals_trigger(SIGINT), "SIGINT");
}
END_TEST

/* the daemon with --switch-root: HUP asks it to follow the switch; the rest as the daemon's */
START_TEST(test_switch_root_meanings)
{
	const struct sig_table *t = &signals_switch_root;
	int sigs[] = { SIGUSR1, SIGUSR2, SIGTERM, SIGINT, SIGQUIT, SIGWINCH, SIGCHLD };
	size_t i;

	ck_assert_int_eq(act(t, SIGHUP, SI_USER, NULL), SIGACT_SWITCH_ROOT);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		ck_assert_int_eq(act(t, sigs[i], SI_USER, NULL), act(DAEMON, sigs[i], SI_USER, NULL));
}
END_TEST

/*
 * The live view: stdout is the screen (USR1's report goes to the log), TERM,
 * INT and HUP leave the terminal and stop, WINCH redraws.
 */
START_TEST(test_top_meanings)
{
	ck_assert_int_eq(act(TOP, SIGUSR1, SI_USER, NULL), SIGACT_REPORT_LOG);
	ck_assert_int_eq(act(TOP, SIGUSR2, SI_USER, NULL), SIGACT_REPORT_LOG);
	ck_assert_int_eq(act(TOP, SIGTERM, SI_USER, NULL), SIGACT_QUIT);
	ck_assert_int_eq(act(TOP, SIGINT, SI_KERNEL, NULL), SIGACT_QUIT);
	ck_assert_int_eq(act(TOP, SIGHUP, SI_KERNEL, NULL), SIGACT_QUIT);
	ck_assert_int_eq(act(TOP, SIGWINCH, SI_KERNEL, NULL), SIGACT_RESIZE);
	ck_assert_int_eq(act(DAEMON, SIGWINCH, SI_KERNEL, NULL), SIGACT_IGNORE);
	ck_assert_str_eq(signals_trigger(SIGHUP), "SIGHUP");
}
END_TEST

/* WINCH is read from the signalfd in the live view only */
START_TEST(test_top_blocks_winch)
{
	struct signals sg;

	ck_assert_int_eq(signals_setup(&sg, DAEMON), 0);
	ck_assert_int_eq(sigismember(&sg.blocked, SIGWINCH), 0);
	signals_close(&sg);
	sigprocmask(SIG_SETMASK, &sg.orig, NULL);
	ck_assert_int_eq(signals_setup(&sg, TOP), 0);
	ck_assert_int_eq(sigismember(&sg.blocked, SIGWINCH), 1);
	ck_assert_int_eq(sigismember(&sg.blocked, SIGHUP), 1);
	ck_assert_int_eq(sigismember(&sg.blocked, SIGCHLD), 0);
	signals_close(&sg);
	sigprocmask(SIG_SETMASK, &sg.orig, NULL);
}
END_TEST

/* CHLD is read where a command runs; a replay reads no signal at all */
START_TEST(test_tables_block)
{
	struct signals sg;

	ck_assert_int_eq(signals_setup(&sg, COMMAND), 0);
	ck_assert_int_eq(sigismember(&sg.blocked, SIGCHLD), 1);
	ck_assert_int_eq(sigismember(&sg.blocked, SIGWINCH), 0);
	ck_assert_int_eq(sigismember(&sg.blocked, SIGTERM), 1);
	signals_close(&sg);
	sigprocmask(SIG_SETMASK, &sg.orig, NULL);
	ck_assert_int_eq(signals_setup(&sg, STREAM), 0);
	ck_assert_int_eq(sigismember(&sg.blocked, SIGCHLD), 0);
	ck_assert_int_eq(sigismember(&sg.blocked, SIGUSR1), 1);
	signals_close(&sg);
	sigprocmask(SIG_SETMASK, &sg.orig, NULL);
	ck_assert_int_eq(signals_setup(&sg, replay_ops.signals), 0);
	ck_assert_int_eq(sg.fd, -1);
	ck_assert_int_eq(sigismember(&sg.blocked, SIGTERM), 0);
	ck_assert_int_eq(sigismember(&sg.blocked, SIGUSR1), 0);
}
END_TEST

/*
 * Command mode: the first TERM from kill() goes on to the command, one from the
 * terminal (SI_KERNEL: the command's group got it too) is only counted; the
 * second, or any once the command is gone, stops the wait.
 */
START_TEST(test_command_meanings)
{
	struct sig_cmd_state cs = { 0 };

	ck_assert_int_eq(act(COMMAND, SIGUSR1, SI_USER, &cs), SIGACT_REPORT_COMMAND);
	ck_assert_int_eq(act(COMMAND, SIGUSR2, SI_USER, &cs), SIGACT_REPORT_COMMAND);
	ck_assert_int_eq(act(COMMAND, SIGCHLD, SI_USER, &cs), SIGACT_CHILD);
	ck_assert_int_eq(act(COMMAND, SIGHUP, SI_KERNEL, &cs), SIGACT_IGNORE);
	ck_assert_int_eq(act(COMMAND, SIGTERM, SI_USER, &cs), SIGACT_FORWARD);
	ck_assert_int_eq(act(COMMAND, SIGTERM, SI_USER, &cs), SIGACT_STOP_WAITING);
	memset(&cs, 0, sizeof(cs));
	ck_assert_int_eq(act(COMMAND, SIGINT, SI_KERNEL, &cs), SIGACT_WAIT);
	ck_assert_int_eq(act(COMMAND, SIGINT, SI_KERNEL, &cs), SIGACT_STOP_WAITING);
	memset(&cs, 0, sizeof(cs));
	cs.command_gone = true;
	ck_assert_int_eq(act(COMMAND, SIGTERM, SI_USER, &cs), SIGACT_STOP_WAITING);
	ck_assert_int_eq(cs.stops, 0);
}
END_TEST

/*
 * --stream: USR1's report goes where the mode says (stdout may carry the
 * lines); with a COMMAND every signal means what it means in command mode.
 */
START_TEST(test_stream_meanings)
{
	struct sig_cmd_state cs = { 0 };

	ck_assert_int_eq(act(STREAM, SIGUSR1, SI_USER, NULL), SIGACT_REPORT_MODE);
	ck_assert_int_eq(act(STREAM, SIGUSR2, SI_USER, NULL), SIGACT_REPORT_LOG);
	ck_assert_int_eq(act(STREAM, SIGTERM, SI_USER, NULL), SIGACT_STOP);
	ck_assert_int_eq(act(STREAM, SIGINT, SI_KERNEL, NULL), SIGACT_STOP);
	ck_assert_int_eq(act(STREAM, SIGHUP, SI_KERNEL, NULL), SIGACT_IGNORE);
	ck_assert_int_eq(act(STREAM, SIGCHLD, SI_USER, NULL), SIGACT_IGNORE);
	/* with a COMMAND main gives it the command's table, as command mode has */
	ck_assert_ptr_eq(command_ops.signals, COMMAND);
	ck_assert_int_eq(act(COMMAND, SIGUSR1, SI_USER, &cs), SIGACT_REPORT_COMMAND);
	ck_assert_int_eq(act(COMMAND, SIGTERM, SI_USER, &cs), SIGACT_FORWARD);
	ck_assert_int_eq(act(COMMAND, SIGTERM, SI_USER, &cs), SIGACT_STOP_WAITING);
}
END_TEST

/* the setup blocks what the loop reads: a signal sent now waits in the signalfd */
START_TEST(test_setup_blocks_and_reads)
{
	struct signals sg;
	struct signalfd_siginfo si;

	ck_assert_int_eq(signals_setup(&sg, DAEMON), 0);
	ck_assert_int_ge(sg.fd, 0);
	ck_assert(!signals_next(&sg, &si));
	ck_assert(!signals_term_pending());
	kill(getpid(), SIGUSR1);
	kill(getpid(), SIGTERM);
	ck_assert(signals_term_pending());
	ck_assert(signals_next(&sg, &si));
	ck_assert_uint_eq(si.ssi_signo, SIGUSR1);
	ck_assert(signals_next(&sg, &si));
	ck_assert_uint_eq(si.ssi_signo, SIGTERM);
	ck_assert(!signals_next(&sg, &si));
	ck_assert(!signals_term_pending());
	/* SIGPIPE is ignored: a closed stdout is an EPIPE where it is written */
	ck_assert_ptr_eq(signal(SIGPIPE, SIG_IGN), SIG_IGN);
	signals_close(&sg);
	ck_assert_int_eq(sg.fd, -1);
	sigprocmask(SIG_SETMASK, &sg.orig, NULL);
}
END_TEST

/* every other signal that would end the process stops as TERM does, in every mode */
static const int other_stops[] = {
	SIGQUIT, SIGALRM, SIGVTALRM, SIGPROF, SIGPWR, SIGSYS, SIGTRAP, SIGSTKFLT, SIGXCPU, SIGIO,
};

START_TEST(test_other_stops)
{
	const struct sig_table *modes[] = { DAEMON, EXITS, STREAM };
	size_t i, m;
	int s;

	for (i = 0; i < ARRAY_SIZE(other_stops); i++) {
		int sg = other_stops[i];
		struct sig_cmd_state cs = { 0 };

		ck_assert(signals_is_stop(sg));
		for (m = 0; m < ARRAY_SIZE(modes); m++)
			ck_assert_int_eq(act(modes[m], sg, SI_USER, NULL), SIGACT_STOP);
		ck_assert_int_eq(act(TOP, sg, SI_USER, NULL), SIGACT_QUIT);
		/* command mode: passed on as TERM is, the second stops the wait */
		ck_assert_int_eq(act(COMMAND, sg, SI_USER, &cs), SIGACT_FORWARD);
		ck_assert_int_eq(act(COMMAND, sg, SI_USER, &cs), SIGACT_STOP_WAITING);
		/* 128+n once done, as the shell shows a death by it; an error stays one */
		ck_assert_int_eq(signals_exit_code(sg, 0), 128 + sg);
		ck_assert_int_eq(signals_exit_code(sg, 1), 1);
	}
	/* a timer or limit of memtrace's own (SI_KERNEL) is no terminal's: passed on too */
	{
		struct sig_cmd_state cs = { 0 };

		ck_assert_int_eq(act(COMMAND, SIGXCPU, SI_KERNEL, &cs), SIGACT_FORWARD);
		memset(&cs, 0, sizeof(cs));
		ck_assert_int_eq(act(COMMAND, SIGQUIT, SI_KERNEL, &cs), SIGACT_WAIT);
	}
	for (s = SIGRTMIN; s <= SIGRTMAX; s++) {
		ck_assert(signals_is_stop(s));
		ck_assert_int_eq(act(DAEMON, s, SI_QUEUE, NULL), SIGACT_STOP);
	}
	/* TERM and INT are the usual ways: 0; HUP, PIPE, USR1, CHLD, WINCH stop nothing */
	ck_assert_int_eq(signals_exit_code(SIGTERM, 0), 0);
	ck_assert_int_eq(signals_exit_code(SIGINT, 0), 0);
	ck_assert_int_eq(signals_exit_code(SIGPIPE, 0), 0);
	ck_assert_int_eq(signals_exit_code(0, 0), 0);
	ck_assert(!signals_is_stop(SIGHUP));
	ck_assert(!signals_is_stop(SIGPIPE));
	ck_assert(!signals_is_stop(SIGUSR1));
	ck_assert(!signals_is_stop(SIGCHLD));
	ck_assert(!signals_is_stop(SIGWINCH));
	ck_assert(!signals_is_stop(SIGXFSZ));
	ck_assert_str_eq(signals_trigger(SIGALRM), "SIGALRM");
	ck_assert_str_eq(signals_trigger(SIGXCPU), "SIGXCPU");
	ck_assert_str_eq(signals_trigger(SIGRTMIN), "SIGRTMIN");
	ck_assert_str_eq(signals_trigger(SIGRTMIN + 3), "SIGRTMIN+3");
	ck_assert_str_eq(signals_trigger(SIGRTMAX), "SIGRTMAX");
	ck_assert_str_eq(signals_trigger(SIGRTMAX - 2), "SIGRTMAX-2");
}
END_TEST

/* the stopping signals wait in the signalfd; XFSZ is ignored, and given back to a command */
START_TEST(test_setup_blocks_stops)
{
	struct signals sg;
	struct signalfd_siginfo si;
	size_t i;

	signal(SIGXFSZ, SIG_DFL);
	ck_assert_int_eq(signals_setup(&sg, DAEMON), 0);
	for (i = 0; i < ARRAY_SIZE(other_stops); i++)
		ck_assert_int_eq(sigismember(&sg.blocked, other_stops[i]), 1);
	ck_assert_int_eq(sigismember(&sg.blocked, SIGRTMIN), 1);
	ck_assert_int_eq(sigismember(&sg.blocked, SIGRTMAX), 1);
	ck_assert_ptr_eq(signal(SIGXFSZ, SIG_IGN), SIG_IGN);
	kill(getpid(), SIGALRM);
	ck_assert(signals_term_pending());
	ck_assert(signals_next(&sg, &si));
	ck_assert_uint_eq(si.ssi_signo, SIGALRM);
	ck_assert(!signals_term_pending());
	signals_restore_for_exec(&sg);
	ck_assert_ptr_eq(signal(SIGXFSZ, SIG_DFL), SIG_DFL);
	signals_close(&sg);
}
END_TEST

/* ---- signals_fast_file(): what an exit at once removes ---- */

enum fast_case { FC_OWN, FC_REWRITTEN, FC_REPLACED, FC_FORKED, FC_TEMP, FC_CLEARED };

static void put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		_exit(98);
	close(fd);
}

/*
 * In a child: @path made and set (a pidfile holding the child's pid, or a
 * temporary file), then changed as @c says, then a second TERM. Its status.
 */
static int fast_exit(const char *path, enum fast_case c)
{
	char buf[32], other[PATH_MAX + 8];
	struct stat st;
	int status;
	pid_t pid = fork(), g;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
		put(path, c == FC_TEMP ? "half a report" : buf);
		if (stat(path, &st))
			_exit(98);
		signals_fast_file(c == FC_TEMP ? FAST_TEMP : FAST_PIDFILE, path, &st,
				  c == FC_TEMP ? 0 : getpid());
		if (c == FC_REWRITTEN)		/* another memtrace's pid, in the same file */
			put(path, "1\n");
		if (c == FC_REPLACED) {		/* the same words in another file */
			snprintf(other, sizeof(other), "%s.new", path);
			put(other, buf);
			if (rename(other, path))
				_exit(98);
		}
		if (c == FC_CLEARED)
			signals_fast_file(FAST_PIDFILE, NULL, NULL, 0);
		signals_arm_teardown();
		if (c == FC_FORKED && (g = fork()) != 0) {	/* its child takes the TERM */
			if (g < 0 || waitpid(g, &status, 0) != g)
				_exit(98);
			_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 97);
		}
		raise(SIGTERM);
		_exit(99);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status), "status %#x", status);
	return WEXITSTATUS(status);
}

START_TEST(test_fast_files)
{
	char dir[] = "/tmp/memtrace-fast-XXXXXX", path[PATH_MAX];
	static const struct { enum fast_case c; bool removed; } want[] = {
		{ FC_OWN, true }, { FC_REWRITTEN, false }, { FC_REPLACED, false },
		{ FC_FORKED, false }, { FC_TEMP, true }, { FC_CLEARED, false },
	};
	size_t i;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/memtrace.pid", dir);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		ck_assert_int_eq(fast_exit(path, want[i].c), 128 + SIGTERM);
		ck_assert_msg((access(path, F_OK) != 0) == want[i].removed,
			      "case %zu: the file %s", i, want[i].removed ? "is still there" :
			      "was removed");
		unlink(path);
	}
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

Suite *suite_signals(void)
{
	Suite *s = suite_create("signals");
	TCase *tc = tcase_create("signals");

	tcase_add_test(tc, test_daemon_meanings);
	tcase_add_test(tc, test_fast_files);
	tcase_add_test(tc, test_switch_root_meanings);
	tcase_add_test(tc, test_command_meanings);
	tcase_add_test(tc, test_top_meanings);
	tcase_add_test(tc, test_top_blocks_winch);
	tcase_add_test(tc, test_tables_block);
	tcase_add_test(tc, test_stream_meanings);
	tcase_add_test(tc, test_setup_blocks_and_reads);
	tcase_add_test(tc, test_other_stops);
	tcase_add_test(tc, test_setup_blocks_stops);
	suite_add_tcase(s, tc);
	return s;
}
