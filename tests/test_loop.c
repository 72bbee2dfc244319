// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_loop.c - the lifecycle (setup, poll loop, stop and drain, final report)
 * and --stream's event handling, over a fake tracefs: a top-level tree of
 * plain files whose per-CPU trace_pipe_raw are FIFOs fed with a recording's
 * sub-buffers (tests/fixtures/linux-6.18), as tests/scale.sh's fake CPUs. No
 * kernel: what is asserted comes from the kernel's own text of the recording
 * (trace.txt), from the signal sent, or from the fault injected.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exits.h"
#include "loop.h"
#include "options.h"
#include "rows.h"
#include "run.h"
#include "stream.h"
#include "testutil.h"
#include "top.h"
#include "util.h"

#define FX		"linux-6.18"	/* 2 CPUs, 1114 events (its trace.txt) */
#define NCPU		2
#define DEADLINE_NS	10000000000ull	/* a run not stopped by then is stopped (and fails) */

static const char *const fx_events[] = {
	"kmem/mm_page_alloc", "kmem/mm_page_free", "kmem/mm_page_free_batched",
	"sched/sched_process_fork", "sched/sched_process_exit", "sched/sched_process_exec",
	"task/task_newtask", "task/task_rename", "oom/mark_victim",
};

static struct run R;		/* static: the decoder's table of event ids is large */
static const struct mode_ops *inner;	/* the mode under test, wrapped by test_ops */
static struct mode_ops test_ops;
static int feed[NCPU];		/* the write ends of the CPUs' FIFOs */
static int stop_signo;		/* sent once every fed page was read (0: none) */
static bool stop_sent;
static uint64_t deadline;
static int fail_cpu = -1;	/* its reads fail with EIO */
static char gone_dir[PATH_MAX];	/* removed right before the stop signal (a log's directory) */
static char path_buf[PATH_MAX * 2];
static int saved_out = -1, saved_err = -1;	/* stdout, stderr back after each test (CK_FORK=no) */

static const char *at(const char *rel)
{
	snprintf(path_buf, sizeof(path_buf), "%s/%s", test_root, rel);
	return path_buf;
}

static void put(const char *rel, const char *text)
{
	test_root_file(rel, text, strlen(text));
}

static void copy_fixture(const char *from, const char *rel)
{
	size_t len;
	char *s = read_fixture(from, &len);

	test_root_file(rel, s, len);
	free(s);
}

/* The events' format files of the recording @fmt_fx in the fake tracefs. */
static void formats(const char *fmt_fx)
{
	char from[PATH_MAX], rel[PATH_MAX];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fx_events); i++) {
		snprintf(from, sizeof(from), "%s/events/%s/format", fmt_fx, fx_events[i]);
		snprintf(rel, sizeof(rel), "tfs/events/%s/format", fx_events[i]);
		copy_fixture(from, rel);
	}
}

/*
 * The fake tracefs at test_root/tfs: no instances (memtrace traces at the top
 * level and puts back what it changed), the recording's format files, every
 * CPU a FIFO nobody writes to yet.
 */
static void fake_tfs(void)
{
	char rel[PATH_MAX];
	size_t i;
	int c;

	formats(FX);
	for (i = 0; i < ARRAY_SIZE(fx_events); i++) {
		snprintf(rel, sizeof(rel), "tfs/events/%s/enable", fx_events[i]);
		put(rel, "0\n");
		snprintf(rel, sizeof(rel), "tfs/events/%s/filter", fx_events[i]);
		put(rel, "none\n");
	}
	copy_fixture(FX "/events/header_page", "tfs/events/header_page");
	copy_fixture(FX "/events/header_event", "tfs/events/header_event");
	put("tfs/trace_clock", "[local] global mono\n");
	put("tfs/buffer_size_kb", "1408\n");
	put("tfs/buffer_percent", "50\n");
	put("tfs/tracing_on", "1\n");
	ck_assert_int_eq(mkfifo(at("tfs/trace_pipe"), 0600), 0);
	for (c = 0; c < NCPU; c++) {
		snprintf(rel, sizeof(rel), "tfs/per_cpu/cpu%d/stats", c);
		put(rel, "entries: 0\noverrun: 0\ncommit overrun: 0\n");
		snprintf(rel, sizeof(rel), "tfs/per_cpu/cpu%d/trace_pipe_raw", c);
		ck_assert_int_eq(mkfifo(at(rel), 0600), 0);
		feed[c] = -1;
	}
}

/* The recording was made at an uptime of 252 s: the reader's clock past it on any machine. */
static uint64_t late_clock(void)
{
	return mono_ns() + 1000000000000ull;
}

static ssize_t failing_read(int fd, void *buf, size_t len)
{
	if (fail_cpu >= 0 && fd == R.rd.cpus[fail_cpu].fd) {
		errno = EIO;
		return -1;
	}
	return read(fd, buf, len);
}

/* Tracing is live: the mode starts, then each CPU's FIFO gets the recording's pages. */
static int feed_start(struct run *r)
{
	char rel[PATH_MAX];
	size_t len;
	int code = inner->start ? inner->start(r) : 0, c;

	if (code)
		return code;
	r->rd.now = late_clock;
	r->rd.read_fn = failing_read;
	for (c = 0; c < NCPU; c++) {
		char *pages;

		snprintf(rel, sizeof(rel), "tfs/per_cpu/cpu%d/trace_pipe_raw", c);
		feed[c] = open(at(rel), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		ck_assert_int_ge(feed[c], 0);
		snprintf(rel, sizeof(rel), FX "/per_cpu/cpu%d/trace_pipe_raw", c);
		pages = read_fixture(rel, &len);
		ck_assert_int_eq(write(feed[c], pages, len), (ssize_t)len);
		free(pages);
	}
	deadline = mono_ns() + DEADLINE_NS;
	return 0;
}

/* After each round: once the CPUs have read every page, the signal (at the deadline: TERM). */
static enum loop_next feed_check(struct run *r)
{
	int c, left = 0, n;

	if (inner->check && inner->check(r) == LOOP_STOP)
		return LOOP_STOP;
	for (c = 0; c < NCPU; c++)
		if (c != fail_cpu && !ioctl(feed[c], FIONREAD, &n))
			left += n;
	if (!stop_sent && stop_signo && !left) {
		stop_sent = true;
		if (gone_dir[0])
			ck_assert_int_eq(rmdir(gone_dir), 0);
		kill(getpid(), stop_signo);
	} else if (!stop_sent && mono_ns() > deadline) {
		stop_sent = true;
		kill(getpid(), SIGTERM);
	}
	return LOOP_GO_ON;
}

/* The daemon's hooks as far as the loop sees them: the final report to the log file. */
static int daemon_like_finish(struct run *r)
{
	return run_report_final(r, true);
}

static const struct mode_ops daemon_like = {
	.name = "daemon",
	.live = true,
	.batch = 65536,
	.final_to_log = true,
	.finish = daemon_like_finish,
};

/*
 * memtrace ARGS... over the fake tracefs with @mode's hooks (feeding and
 * stopping added), stderr to test_root/err. Return: the exit code; R is left
 * for the test to look at (run_cleanup() in the teardown).
 */
static int run_mt(const struct mode_ops *mode, int signo, const char *const *args)
{
	char *argv[32], err[512];
	int argc = 0, fd;

	argv[argc++] = (char *)"memtrace";
	while (*args)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	memset(&R, 0, sizeof(R));
	ck_assert_msg(options_parse(&R.opt_set, argc, argv, err, sizeof(err)) == OPT_RUN, "%s", err);
	inner = mode;
	test_ops = *mode;
	test_ops.start = feed_start;
	test_ops.check = feed_check;
	stop_signo = signo;
	R.ops = &test_ops;
	R.stacks = R.opt.stacks;	/* as main() does */
	R.seed = !R.opt.no_seed;
	R.ready_fd = -1;
	R.sig.fd = -1;
	fd = open(at("err"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_ge(dup2(fd, STDERR_FILENO), 0);
	close(fd);
	ck_assert_int_eq(signals_setup(&R.sig, R.opt.command ? &signals_command :
					 mode->signals ? mode->signals : &signals_default), 0);
	return run_lifecycle(&R);
}

static char *slurp(const char *rel)
{
	size_t len;

	return read_path(at(rel), &len);
}

/* Lines of the recording's trace.txt with @what (and on CPU @cpu, if >= 0). */
static unsigned trace_lines(const char *what, int cpu)
{
	size_t len;
	char *s = read_fixture(FX "/trace.txt", &len), *line, *save = NULL, tag[8];
	unsigned n = 0;

	snprintf(tag, sizeof(tag), "[%03d]", cpu);
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (line[0] != '#' && strstr(line, what) && (cpu < 0 || strstr(line, tag)))
			n++;
	free(s);
	ck_assert_uint_gt(n, 0);
	return n;
}

/*
 * The events memtrace traces on CPU @cpu (-1: all): trace.txt's, but for
 * mm_page_free_batched, which memtrace does not use (it duplicates mm_page_free).
 */
static unsigned traced(int cpu)
{
	return trace_lines(": ", cpu) - trace_lines(" mm_page_free_batched: ", cpu);
}

/* "events processed: N" of the text report in @rel. */
static unsigned long long processed(const char *rel)
{
	char *s = slurp(rel), *p = strstr(s, "\nevents processed: ");
	unsigned long long n;

	ck_assert_msg(p, "no events line in %s:\n%s", rel, s);
	n = strtoull(p + 19, NULL, 10);
	free(s);
	return n;
}

static void has(const char *rel, const char *text)
{
	char *s = slurp(rel);

	ck_assert_msg(strstr(s, text), "%s lacks '%s':\n%s", rel, text, s);
	free(s);
}

static void setup(void)
{
	saved_out = dup(STDOUT_FILENO);
	saved_err = dup(STDERR_FILENO);
	test_root_setup();
	fake_tfs();
	stop_sent = false;
	fail_cpu = -1;
	gone_dir[0] = '\0';
}

static void teardown(void)
{
	int c;

	run_cleanup(&R);
	for (c = 0; c < NCPU; c++)
		if (feed[c] >= 0)
			close(feed[c]);
	dup2(saved_out, STDOUT_FILENO);
	dup2(saved_err, STDERR_FILENO);
	close(saved_out);
	close(saved_err);
	test_root_teardown();
}

static const char *tfs_arg(void)
{
	static char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/tfs", test_root);
	return p;
}

static const char *log_arg(void)
{
	static char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/mem.log", test_root);
	return p;
}

/*
 * Every event of both CPUs is accounted by their kinds, the TERM sent once
 * they were read stops the loop, and the final report in the log file says so;
 * tracing_on is put back as found.
 */
START_TEST(test_loop_accounts_every_event_until_term)
{
	const char *args[] = { "--no-seed", tfs_arg(), log_arg(), NULL };
	char *on;

	ck_assert_int_eq(run_mt(&daemon_like, SIGTERM, args), EXIT_OK);
	ck_assert_uint_eq(R.st.c.events[EV_PAGE_ALLOC], trace_lines(" mm_page_alloc: ", -1));
	ck_assert_uint_eq(R.st.c.events[EV_FORK], trace_lines(" sched_process_fork: ", -1));
	ck_assert_uint_eq(rows_events(&R.st), traced(-1));
	ck_assert_uint_eq(processed("mem.log"), traced(-1));
	has("mem.log", "(trigger: SIGTERM, live)");
	on = slurp("tfs/tracing_on");
	ck_assert_str_eq(on, "1");
	free(on);
}
END_TEST

/* The signal that stopped it names the final report's trigger and, but for TERM/INT, the status. */
static const struct {
	int sig;
	const char *trigger;
	int code;
} stops[] = {
	{ SIGINT, "(trigger: SIGINT, live)", EXIT_OK },
	{ SIGALRM, "(trigger: SIGALRM, live)", 128 + SIGALRM },
	{ SIGXCPU, "(trigger: SIGXCPU, live)", 128 + SIGXCPU },
};

START_TEST(test_loop_stop_signal_is_the_trigger)
{
	const char *args[] = { "--no-seed", tfs_arg(), log_arg(), NULL };

	ck_assert_int_eq(run_mt(&daemon_like, stops[_i].sig, args), stops[_i].code);
	has("mem.log", stops[_i].trigger);
	ck_assert_uint_eq(processed("mem.log"), traced(-1));
}
END_TEST

/*
 * A CPU whose reads fail: said on stderr with the error, counted in the
 * report as an unusable read, and the other CPU's events all accounted.
 */
START_TEST(test_loop_read_error_surfaced)
{
	const char *args[] = { "--no-seed", tfs_arg(), log_arg(), NULL };
	char want[128];

	fail_cpu = 1;
	ck_assert_int_eq(run_mt(&daemon_like, SIGTERM, args), EXIT_OK);
	ck_assert_uint_eq(processed("mem.log"), traced(0));
	ck_assert_uint_eq(R.rd.cpus[1].read_errors, 1);
	has("mem.log", ", 1 unusable\n");
	snprintf(want, sizeof(want), "cpu1 not readable (%s)", strerror(EIO));
	has("err", want);
}
END_TEST

/* Sub-buffers the format files do not describe: not one event decoded is an error, said. */
START_TEST(test_loop_undecodable_is_an_error)
{
	const char *args[] = { "--no-seed", tfs_arg(), log_arg(), NULL };

	/* another kernel's format files: other event ids than these pages carry */
	formats("debian-6.1");
	ck_assert_int_eq(run_mt(&daemon_like, SIGTERM, args), EXIT_RUNTIME);
	ck_assert_uint_eq(rows_events(&R.st), 0);
	has("err", "not one event decoded");
	has("mem.log", "(trigger: SIGTERM, live)");
}
END_TEST

/*
 * A log file that cannot be written is refused before the setup: exit 1, said
 * with its path, tracefs not touched (no event enabled, nothing read).
 */
START_TEST(test_loop_unwritable_log_refused_first)
{
	char log[PATH_MAX];
	const char *args[] = { "--no-seed", "-o", log, tfs_arg(), NULL };
	char *en;

	snprintf(log, sizeof(log), "%s/nonexistent/mem.log", test_root);
	ck_assert_int_eq(run_mt(&daemon_like, SIGTERM, args), EXIT_RUNTIME);
	has("err", "-o ");
	has("err", "nonexistent/mem.log: cannot create a file in ");
	ck_assert_int_eq(feed[0], -1);	/* the mode never started */
	ck_assert(!R.tracefs_up && !R.reader_up);
	en = slurp("tfs/events/kmem/mm_page_alloc/enable");
	ck_assert_str_eq(en, "0\n");
	free(en);
}
END_TEST

/* The log's directory removed during the run: the final report goes to stderr, said; exit 1. */
START_TEST(test_loop_final_report_on_stderr)
{
	char log[PATH_MAX];
	const char *args[] = { "--no-seed", "-o", log, tfs_arg(), NULL };

	snprintf(log, sizeof(log), "%s/logdir/mem.log", test_root);
	snprintf(gone_dir, sizeof(gone_dir), "%s/logdir", test_root);
	ck_assert_int_eq(mkdir(gone_dir, 0700), 0);
	ck_assert_int_eq(run_mt(&daemon_like, SIGTERM, args), EXIT_RUNTIME);
	has("err", "final report not written: cannot create a file in ");
	has("err", "it follows on stderr instead");
	has("err", "(trigger: SIGTERM, live)");
	ck_assert_uint_eq(processed("err"), traced(-1));
}
END_TEST

/* stdout a pipe whose reader is gone (SIGPIPE is ignored: writes say EPIPE). */
static void stdout_gone(void)
{
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_ge(dup2(p[1], STDOUT_FILENO), 0);
	close(p[0]);
	close(p[1]);
}

/* --exits with its stdout gone stops by itself: the final report says "stdout closed". */
START_TEST(test_loop_output_gone_is_the_trigger)
{
	const char *args[] = { "--exits", "--no-seed", "-o", log_arg(), tfs_arg(), NULL };

	stdout_gone();
	ck_assert_int_eq(run_mt(&exits_ops, 0, args), EXIT_OK);
	ck_assert_int_eq(R.stop, STOP_OUTPUT_GONE);
	has("mem.log", "(trigger: stdout closed, live)");
}
END_TEST

/* --top, not on a terminal, stops after --count frames: the trigger says "count". */
START_TEST(test_loop_top_count_is_the_trigger)
{
	char frames[PATH_MAX];
	const char *args[] = { "--top", "--count", "2", "-d", "0.1", "--no-seed", "-o", log_arg(),
			       tfs_arg(), NULL };
	int fd;

	snprintf(frames, sizeof(frames), "%s/frames", test_root);
	fd = open(frames, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_ge(dup2(fd, STDOUT_FILENO), 0);
	close(fd);
	ck_assert_int_eq(run_mt(&top_ops, 0, args), EXIT_OK);
	has("mem.log", "(trigger: count, live)");
	ck_assert(!stop_sent);
}
END_TEST

/* Lines of @rel holding @text. */
static unsigned lines_with(const char *rel, const char *text)
{
	char *s = slurp(rel), *line, *save = NULL;
	unsigned n = 0;

	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		n += strstr(line, text) != NULL;
	free(s);
	return n;
}

/*
 * --stream --all: a line for each page allocation of the recording (every one
 * of them in process context, as trace.txt's flags show: none is left out as an
 * interrupt's), every event accounted as by the daemon, stopped by TERM.
 */
START_TEST(test_stream_a_line_per_allocation)
{
	char out[PATH_MAX];
	const char *args[] = { "--stream", "--all", "--no-seed", "-o", out, tfs_arg(), NULL };

	snprintf(out, sizeof(out), "%s/lines.json", test_root);
	ck_assert_int_eq(run_mt(&stream_ops, SIGTERM, args), EXIT_OK);
	ck_assert_uint_eq(lines_with("lines.json", "\"evt_type\":\"pageAllocate\""),
			  trace_lines(" mm_page_alloc: ", -1));
	ck_assert_uint_eq(rows_events(&R.st), traced(-1));
	ck_assert_int_eq(R.stop, STOP_SIGNAL);
}
END_TEST

/* --stream on a stdout whose reader is gone stops by itself, said, and exits 0. */
START_TEST(test_stream_stops_when_its_reader_is_gone)
{
	const char *args[] = { "--stream", "--all", "--no-seed", tfs_arg(), NULL };

	stdout_gone();
	ck_assert_int_eq(run_mt(&stream_ops, 0, args), EXIT_OK);
	ck_assert_int_eq(R.stop, STOP_OUTPUT_GONE);
	ck_assert(!stop_sent);
	has("err", "the output's reader is gone: stopping");
}
END_TEST

Suite *suite_loop(void)
{
	Suite *s = suite_create("loop");
	TCase *tc = tcase_create("fake tracefs");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_loop_accounts_every_event_until_term);
	tcase_add_loop_test(tc, test_loop_stop_signal_is_the_trigger, 0, (int)ARRAY_SIZE(stops));
	tcase_add_test(tc, test_loop_read_error_surfaced);
	tcase_add_test(tc, test_loop_undecodable_is_an_error);
	tcase_add_test(tc, test_loop_unwritable_log_refused_first);
	tcase_add_test(tc, test_loop_final_report_on_stderr);
	tcase_add_test(tc, test_loop_output_gone_is_the_trigger);
	tcase_add_test(tc, test_loop_top_count_is_the_trigger);
	tcase_add_test(tc, test_stream_a_line_per_allocation);
	tcase_add_test(tc, test_stream_stops_when_its_reader_is_gone);
	suite_add_tcase(s, tc);
	return s;
}
