// SPDX-License-Identifier: GPL-2.0-only
/* test_signals.c - what each signal means in each mode, and command mode's first and second TERM */
#include <check.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "signals.h"
#include "testutil.h"

static struct signalfd_siginfo sig(int signo, int code)
{
	struct signalfd_siginfo si;

	memset(&si, 0, sizeof(si));
	si.ssi_signo = (uint32_t)signo;
	si.ssi_code = code;
	return si;
}

static enum sig_action act(enum run_mode m, int signo, int code, struct sig_cmd_state *cs)
{
	struct signalfd_siginfo si = sig(signo, code);

	return signals_action(m, &si, cs);
}

/* daemon and --exits: USR1 stdout, USR2 the log, TERM/INT stop, HUP nothing */
START_TEST(test_daemon_meanings)
{
	enum run_mode modes[] = { MODE_DAEMON, MODE_EXITS };
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
	ck_assert_str_eq(signals_trigger(SIGPIPE), "stdout closed");
}
END_TEST

/*
 * The live view: stdout is the screen (USR1's report goes to the log), TERM,
 * INT and HUP leave the terminal and stop, WINCH redraws.
 */
START_TEST(test_top_meanings)
{
	ck_assert_int_eq(act(MODE_TOP, SIGUSR1, SI_USER, NULL), SIGACT_REPORT_LOG);
	ck_assert_int_eq(act(MODE_TOP, SIGUSR2, SI_USER, NULL), SIGACT_REPORT_LOG);
	ck_assert_int_eq(act(MODE_TOP, SIGTERM, SI_USER, NULL), SIGACT_QUIT);
	ck_assert_int_eq(act(MODE_TOP, SIGINT, SI_KERNEL, NULL), SIGACT_QUIT);
	ck_assert_int_eq(act(MODE_TOP, SIGHUP, SI_KERNEL, NULL), SIGACT_QUIT);
	ck_assert_int_eq(act(MODE_TOP, SIGWINCH, SI_KERNEL, NULL), SIGACT_RESIZE);
	ck_assert_int_eq(act(MODE_DAEMON, SIGWINCH, SI_KERNEL, NULL), SIGACT_IGNORE);
	ck_assert_str_eq(signals_trigger(SIGHUP), "SIGHUP");
}
END_TEST

/* WINCH is read from the signalfd in the live view only */
START_TEST(test_top_blocks_winch)
{
	struct signals sg;

	ck_assert_int_eq(signals_setup(&sg, MODE_DAEMON), 0);
	ck_assert_int_eq(sigismember(&sg.blocked, SIGWINCH), 0);
	signals_close(&sg);
	sigprocmask(SIG_SETMASK, &sg.orig, NULL);
	ck_assert_int_eq(signals_setup(&sg, MODE_TOP), 0);
	ck_assert_int_eq(sigismember(&sg.blocked, SIGWINCH), 1);
	ck_assert_int_eq(sigismember(&sg.blocked, SIGHUP), 1);
	signals_close(&sg);
	sigprocmask(SIG_SETMASK, &sg.orig, NULL);
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

	ck_assert_int_eq(act(MODE_COMMAND, SIGUSR1, SI_USER, &cs), SIGACT_REPORT_COMMAND);
	ck_assert_int_eq(act(MODE_COMMAND, SIGUSR2, SI_USER, &cs), SIGACT_REPORT_COMMAND);
	ck_assert_int_eq(act(MODE_COMMAND, SIGCHLD, SI_USER, &cs), SIGACT_CHILD);
	ck_assert_int_eq(act(MODE_COMMAND, SIGHUP, SI_KERNEL, &cs), SIGACT_IGNORE);
	ck_assert_int_eq(act(MODE_COMMAND, SIGTERM, SI_USER, &cs), SIGACT_FORWARD);
	ck_assert_int_eq(act(MODE_COMMAND, SIGTERM, SI_USER, &cs), SIGACT_STOP_WAITING);
	memset(&cs, 0, sizeof(cs));
	ck_assert_int_eq(act(MODE_COMMAND, SIGINT, SI_KERNEL, &cs), SIGACT_WAIT);
	ck_assert_int_eq(act(MODE_COMMAND, SIGINT, SI_KERNEL, &cs), SIGACT_STOP_WAITING);
	memset(&cs, 0, sizeof(cs));
	cs.command_gone = true;
	ck_assert_int_eq(act(MODE_COMMAND, SIGTERM, SI_USER, &cs), SIGACT_STOP_WAITING);
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

	ck_assert_int_eq(act(MODE_STREAM, SIGUSR1, SI_USER, NULL), SIGACT_REPORT_MODE);
	ck_assert_int_eq(act(MODE_STREAM, SIGUSR2, SI_USER, NULL), SIGACT_REPORT_LOG);
	ck_assert_int_eq(act(MODE_STREAM, SIGTERM, SI_USER, NULL), SIGACT_STOP);
	ck_assert_int_eq(act(MODE_STREAM, SIGINT, SI_KERNEL, NULL), SIGACT_STOP);
	ck_assert_int_eq(act(MODE_STREAM, SIGHUP, SI_KERNEL, NULL), SIGACT_IGNORE);
	ck_assert_int_eq(act(MODE_STREAM, SIGCHLD, SI_USER, NULL), SIGACT_IGNORE);
	ck_assert_int_eq(act(MODE_STREAM, SIGUSR1, SI_USER, &cs), SIGACT_REPORT_COMMAND);
	ck_assert_int_eq(act(MODE_STREAM, SIGTERM, SI_USER, &cs), SIGACT_FORWARD);
	ck_assert_int_eq(act(MODE_STREAM, SIGTERM, SI_USER, &cs), SIGACT_STOP_WAITING);
}
END_TEST

/* the setup blocks what the loop reads: a signal sent now waits in the signalfd */
START_TEST(test_setup_blocks_and_reads)
{
	struct signals sg;
	struct signalfd_siginfo si;

	ck_assert_int_eq(signals_setup(&sg, MODE_DAEMON), 0);
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

Suite *suite_signals(void)
{
	Suite *s = suite_create("signals");
	TCase *tc = tcase_create("signals");

	tcase_add_test(tc, test_daemon_meanings);
	tcase_add_test(tc, test_command_meanings);
	tcase_add_test(tc, test_top_meanings);
	tcase_add_test(tc, test_top_blocks_winch);
	tcase_add_test(tc, test_stream_meanings);
	tcase_add_test(tc, test_setup_blocks_and_reads);
	suite_add_tcase(s, tc);
	return s;
}
