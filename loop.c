// SPDX-License-Identifier: GPL-2.0-only
/* loop.c - the lifecycle every mode goes through: the poll loop, stop and drain, reports, cleanup */
#include "loop.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"
#include "enrich.h"
#include "logfile.h"
#include "proc.h"
#include "record.h"
#include "report.h"
#include "setup.h"
#include "stackreport.h"
#include "util.h"

#define POLL_MS		100
#define REPROBE_NS	1000000000ull	/* offline CPUs tried again, tracing checked on: every second */
#define MODE_FDS	4		/* room for a mode's own fds in the poll set */
#define ONLINE_BITS	8192	/* CPUs whose online state /sys is asked for */
#define KMSG_TOP	5	/* tasks and modules in the kmsg summary */
#define OOM_SUMMARY_NS	10000000000ull	/* one console summary of an OOM per 10 s */
#define OOM_NOTES	10		/* and as many one-line notes in between */
#define REPORT_WAIT_MS	1000	/* a report on stdout waits for its reader at most this long */
#define HOLD_BATCH	4096	/* events per batch while a mode holds (its consumer is full) */

void run_catch_up(struct run *r)
{
	while (reader_run(&r->rd, false, r->ops->batch) == r->ops->batch)
		;
	enrich_refresh(r);
}

struct gen_ctx {
	struct run *r;
	const char *trigger;
};

static void gen_report(struct out *o, void *p)
{
	struct gen_ctx *g = p;

	enrich_now(g->r);
	report_write(o, g->r, g->trigger);
}

/*
 * A report on stdout. A reader that does not read (a pipe nobody empties) may
 * hold it up for REPORT_WAIT_MS at most, and not at all once it has stalled a
 * report: until it takes one whole again, a report gets what fits at once.
 */
void run_report_stdout(struct run *r, const char *trigger)
{
	static struct out o;
	struct gen_ctx g = { r, trigger };

	out_init(&o, STDOUT_FILENO);
	out_bound(&o, r->stdout_stalled ? 0 : REPORT_WAIT_MS);
	gen_report(&o, &g);
	out_flush(&o);
	r->stdout_stalled = o.err == -ETIMEDOUT;
	if (o.err == -ETIMEDOUT)
		mt_warn("stdout is not read: %llu bytes of the %s report dropped",
			(unsigned long long)o.dropped, trigger);
	else if (o.err)
		mt_warn("writing the report to stdout: %s", strerror(-o.err));
}

int run_report_write_log(struct run *r, const char *trigger, char *err, size_t errlen)
{
	struct gen_ctx g = { r, trigger };

	/* --interval -f json: the log file is JSON lines, every report appended */
	if (r->opt.json_lines)
		return logfile_append(r->opt.log_path, gen_report, &g, err, errlen);
	return logfile_write(r->opt.log_path, gen_report, &g, err, errlen);
}

int run_report_log(struct run *r, const char *trigger)
{
	char err[PATH_MAX + 128];
	int e = run_report_write_log(r, trigger, err, sizeof(err));

	if (e)
		mt_warn("%s (report kept in memory; still tracing)", err);
	return e;
}

static void kmsg_emit(void *ctx, const char *line)
{
	const struct run *r = ctx;
	char buf[600];

	snprintf(buf, sizeof(buf), "<%u>%s\n", r->opt.kmsg_level, line);
	kmsg_line(buf);
}

void run_report_final(struct run *r, bool to_log)
{
	const char *trigger = r->stop_trigger ? r->stop_trigger : signals_trigger(r->stop_sig);
	char err[PATH_MAX + 128];
	int e = to_log ? run_report_write_log(r, trigger, err, sizeof(err)) : 0;

	/* memtrace is exiting: the report is nowhere else (the log file is left as it was) */
	if (e)
		mt_warn("final report not written: %s; memtrace exits without it (%s is "
			"unchanged%s)", err, r->opt.log_path,
			r->opt.kmsg ? "; the --kmsg summary has its top rows" : "");

	if (r->opt.kmsg) {
		enrich_now(r);
		report_summary(r, trigger, e ? "(none: the log file could not be written)" :
			       r->opt.log_path, KMSG_TOP, kmsg_emit, r);
	}
}

/*
 * The highest N of an existing LOG.oom.N beside the log file into @max (0 if
 * none, or no such directory); -errno when the directory cannot be listed in
 * full: a number guessed from part of it could replace an older report.
 */
static int oom_highest(const char *log, uint32_t *max)
{
	const char *slash = strrchr(log, '/'), *base = slash ? slash + 1 : log;
	size_t blen = strlen(base);
	char dir[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int e = 0;

	if (!slash)
		strcpy(dir, ".");
	else if (slash == log)
		strcpy(dir, "/");
	else if ((size_t)(slash - log) < sizeof(dir))
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - log), log);
	else
		return -ENAMETOOLONG;
	*max = 0;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = dir_next(d, &de)) > 0) {
		const char *p = de->d_name;
		char *end;
		unsigned long n;

		if (strncmp(p, base, blen) || strncmp(p + blen, ".oom.", 5) ||
		    !isdigit((unsigned char)p[blen + 5]))
			continue;
		n = strtoul(p + blen + 5, &end, 10);
		if (!*end && n > *max && n < 1000000000)
			*max = (uint32_t)n;
	}
	closedir(d);
	return e;
}

/*
 * The report at an OOM kill goes to LOG.oom.N (numbers after any a previous
 * run left), never replaced by a later report; past --keep-oom, the last one
 * of this run is replaced, and counted. The main log gets it too, as before.
 */
static void oom_snapshot(struct run *r)
{
	struct oom_state *os = &r->oom;
	struct gen_ctx g = { r, "oom" };
	char err[PATH_MAX + 128];
	uint32_t n;

	if (!r->opt.keep_oom)
		return;
	if (!os->next) {
		uint32_t max;
		int e = oom_highest(r->opt.log_path, &max);

		if (e) {
			/* tried again at the next OOM kill */
			mt_warn("%s.oom.N: the existing ones cannot be listed (%s): the OOM report "
				"is in the main log only", r->opt.log_path, strerror(-e));
			return;
		}
		os->first = os->next = max + 1;
	}
	if (os->kept < r->opt.keep_oom) {
		n = os->next++;
		os->kept++;
	} else {
		n = os->next - 1;
		os->not_kept++;
	}
	if (path_fmt(os->last, sizeof(os->last), "%s.oom.%u", r->opt.log_path, n)) {
		mt_warn("%s.oom.%u: path too long", r->opt.log_path, n);
		os->last[0] = '\0';
		return;
	}
	if (logfile_write(os->last, gen_report, &g, err, sizeof(err)))
		mt_warn("%s (the OOM report is in the main log only)", err);
}

static void kmsg_warn(void *ctx, const char *line)
{
	char buf[600];

	(void)ctx;
	snprintf(buf, sizeof(buf), "<4>%s\n", line);
	kmsg_line(buf);
}

/*
 * A few lines on the console at the OOM instant, for a machine that panics or
 * reboots right after: the victim, who held the memory then, lost events. At
 * most one summary per OOM_SUMMARY_NS; within it, OOM_NOTES one-line notes.
 */
static void oom_console(struct run *r)
{
	struct oom_state *os = &r->oom;
	uint64_t now = mono_ns();
	char line[PATH_MAX + 128], name[4 * COMM_LEN + 1];
	size_t i, j = 0;

	for (i = 0; r->st.oom_comm[i] && j + 4 < sizeof(name); i++) {
		unsigned char ch = (unsigned char)r->st.oom_comm[i];

		name[j++] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
	}
	name[j] = '\0';
	if (os->summary_ns && now - os->summary_ns < OOM_SUMMARY_NS) {
		os->not_summarized++;
		if (os->window_lines++ >= OOM_NOTES)
			return;
		snprintf(line, sizeof(line), "<4>memtrace: oom kill of pid %d (%s); summary "
			 "rate-limited\n", r->st.oom_pid, name);
		kmsg_line(line);
		return;
	}
	os->summary_ns = now;
	os->window_lines = 0;
	snprintf(line, sizeof(line), "<4>memtrace: oom kill of pid %d (%s); report in %s\n",
		 r->st.oom_pid, name, os->last[0] ? os->last : r->opt.log_path);
	kmsg_line(line);
	enrich_now(r);
	report_oom_summary(r, KMSG_TOP, os->not_summarized, kmsg_warn, NULL);
	os->not_summarized = 0;
}

void run_report_oom(struct run *r)
{
	enrich_refresh(r);
	oom_snapshot(r);
	run_report_log(r, "oom");
	oom_console(r);
}

/*
 * The CPUs in the poll set: all, but those that got no fd for want of fds
 * (RLIMIT_NOFILE): poll() refuses more entries than that limit allows.
 */
static int poll_cpus(const struct run *r)
{
	return r->tf.no_fd_from >= 0 && r->tf.no_fd_from < r->rd.ncpus ? r->tf.no_fd_from :
	       r->rd.ncpus;
}

/* The poll set: the signalfd, one fd per CPU, then the mode's own; NULL if no memory. */
static struct pollfd *poll_set(const struct run *r)
{
	struct pollfd *pfd = calloc((size_t)poll_cpus(r) + 1 + MODE_FDS, sizeof(*pfd));
	int i;

	if (!pfd)
		return NULL;
	pfd[0].fd = r->sig.fd;
	pfd[0].events = POLLIN;
	for (i = 0; i < poll_cpus(r); i++) {
		pfd[i + 1].fd = r->rd.cpus[i].fd;
		pfd[i + 1].events = POLLIN;
	}
	return pfd;
}

/*
 * Wait for events or a signal (not at all when @busy). A CPU that cannot be
 * read (an offline CPU: no fd, or ENODEV) leaves the poll set, or poll would
 * spin, and is tried again every REPROBE_NS (reprobe()); one whose fd fails
 * otherwise (POLLERR) is dropped. *@cpus_said: a CPU's fd woke it (its buffer
 * is past buffer_percent, or it failed); *@cpus_in: one still in the poll set
 * has data past buffer_percent (to be read even while a mode holds). Return: 0,
 * or -1 (said why) if poll failed.
 */
static int poll_wait(struct run *r, struct pollfd *pfd, bool busy, int *nmode, bool *cpus_said,
		     bool *cpus_in)
{
	struct pollfd *mine = pfd + poll_cpus(r) + 1;
	long ms = busy ? 0 : POLL_MS;
	int i;

	*nmode = r->ops->poll_fds ? r->ops->poll_fds(r, mine, MODE_FDS) : 0;
	if (!busy && r->ops->next_ms) {
		long next = r->ops->next_ms(r);

		if (next >= 0 && next < ms)
			ms = next;
	}
	if (poll(pfd, (nfds_t)poll_cpus(r) + 1 + (nfds_t)*nmode, (int)ms) < 0 && errno != EINTR) {
		mt_warn("poll: %s", strerror(errno));
		return -1;
	}
	*cpus_said = *cpus_in = false;
	for (i = 0; i < poll_cpus(r); i++) {
		struct reader_cpu *c = &r->rd.cpus[i];

		if (pfd[i + 1].fd < 0)
			continue;
		*cpus_said |= pfd[i + 1].revents != 0;
		/* the kernel says POLLERR for a CPU without a buffer: an offline one */
		if (pfd[i + 1].revents & POLLERR) {
			c->offline = c->was_offline = true;
			c->eof = true;
		} else if (pfd[i + 1].revents & POLLNVAL) {
			c->eof = true;
		}
		if (c->offline) {
			pfd[i + 1].fd = -1;
			if (!c->offline_said++)
				mt_warn("cpu%d cannot be read (%s): not traced until it can; tried "
					"again every second", c->cpu, c->last_errno ?
					strerror(c->last_errno) : "offline");
		} else if (c->eof) {
			pfd[i + 1].fd = -1;
			if (c->read_errors || (pfd[i + 1].revents & POLLNVAL))
				mt_warn("cpu%d not readable (%s); not traced", c->cpu,
					c->last_errno ? strerror(c->last_errno) : "poll error");
		}
		*cpus_in |= pfd[i + 1].fd >= 0 && (pfd[i + 1].revents & POLLIN);
	}
	return 0;
}

/*
 * CPUs that could not be read (offline): open them if need be and read them
 * again; only those the kernel lists as online, when it says (one file read,
 * not a system call per offline CPU each second).
 */
static void reprobe(struct run *r, struct pollfd *pfd)
{
	static uint8_t online[ONLINE_BITS / 8];
	int i, known = -1;

	for (i = 0; i < poll_cpus(r); i++) {
		int fd, cpu = r->rd.cpus[i].cpu;

		if (!reader_cpu_offline(&r->rd, i))
			continue;
		if (known < 0)
			known = !sys_cpus_online("/sys", online, ONLINE_BITS);
		if (known && cpu >= 0 && cpu < ONLINE_BITS && !(online[cpu / 8] & (1u << (cpu % 8))))
			continue;
		fd = tracefs_open_cpu(&r->tf, i);
		if (fd < 0)
			continue;
		reader_cpu_online(&r->rd, i, fd);
		pfd[i + 1].fd = fd;
	}
}

/*
 * Another tool switched our tracing off (tracing_on, an event's enable): we do
 * not fight it, but the report misses what happens from then on: said at once,
 * in the report, and in the exit status (run_lifecycle()). A file read per
 * event, once a second and at the stop.
 */
static void check_tracing_on(struct run *r)
{
	if (tracefs_check_on(&r->tf) > 0)
		mt_warn("warning: %s: tracing was switched off under memtrace (%s; by another "
			"tool?): from now on nothing is traced; the report says so, and memtrace "
			"will exit non-zero", r->tf.inst, r->tf.off_what);
}

/* Every signal read now; LOOP_STOP when one ends the loop. */
static enum loop_next read_signals(struct run *r)
{
	const struct mode_ops *ops = r->ops;
	struct signalfd_siginfo si;

	while (signals_next(&r->sig, &si)) {
		bool cmd = r->opt.mode == MODE_COMMAND ||
			   (r->opt.mode == MODE_STREAM && r->opt.command);
		int act = signals_action(r->opt.mode, &si, cmd ? &r->cmd.sigs : NULL);

		switch (act) {
		case SIGACT_IGNORE:
			break;
		case SIGACT_REPORT_STDOUT:
			run_catch_up(r);
			run_report_stdout(r, "SIGUSR1");
			break;
		case SIGACT_REPORT_LOG:
			run_catch_up(r);
			run_report_log(r, "SIGUSR2");
			break;
		case SIGACT_STOP:
			r->stop_sig = (int)si.ssi_signo;
			return LOOP_STOP;
		default:
			if (ops->on_signal && ops->on_signal(r, act, &si) == LOOP_STOP)
				return LOOP_STOP;
			break;
		}
	}
	return LOOP_GO_ON;
}

/*
 * One batch of events. After a wakeup no CPU's fd caused (the timeout, a
 * signal, a mode's fd), one poll of the instance's trace_pipe says whether any
 * CPU has data at all (it knows no watermark; a CPU's own fd says POLLIN only
 * past buffer_percent, while a read() returns less): when none has, no CPU is
 * read (reader_run_idle()), so an idle machine costs no system call per CPU.
 * True when the batch (@batch events) was full.
 */
static bool read_batch(struct run *r, bool data_said, uint64_t batch)
{
	struct pollfd any = { .fd = r->tf.any_fd, .events = POLLIN };
	uint64_t t0;

	if (!data_said && any.fd >= 0) {
		t0 = mono_ns();
		if (poll(&any, 1, 0) == 0)
			return reader_run_idle(&r->rd, t0, batch) == batch;
	}
	return reader_run(&r->rd, false, batch) == batch;
}

/* Until a signal, a mode's hook or an error stops it. Return: 0, or an exit code. */
static int poll_loop(struct run *r)
{
	const struct mode_ops *ops = r->ops;
	struct pollfd *pfd = poll_set(r);
	uint64_t probe = mono_ns() + REPROBE_NS;
	uint64_t hold_batch = ops->batch < HOLD_BATCH ? ops->batch : HOLD_BATCH;
	bool busy = false, cpus_said = false, cpus_in = false, hold;
	int code = 0, nmode = 0;

	if (!pfd)
		return mt_fail(EXIT_RUNTIME, "out of memory");
	for (;;) {
		if (mono_ns() >= probe) {
			check_tracing_on(r);
			reprobe(r, pfd);
			probe = mono_ns() + REPROBE_NS;
		}
		hold = ops->hold && ops->hold(r);
		if (poll_wait(r, pfd, busy && !hold, &nmode, &cpus_said, &cpus_in)) {
			code = EXIT_RUNTIME;
			break;
		}
		if (nmode && ops->on_poll &&
		    ops->on_poll(r, pfd + poll_cpus(r) + 1, nmode) == LOOP_STOP)
			break;
		hold = ops->hold && ops->hold(r);
		if (!hold)
			busy = read_batch(r, busy || cpus_said, ops->batch);
		else if (cpus_in)	/* past the watermark: read even while holding */
			busy = read_batch(r, true, hold_batch);
		else
			busy = false;
		if (r->st.want_ranges) {
			/* a module was loaded: its code, before the stacks after it are read */
			enrich_module_ranges(r, r->st.want_ranges_ts);
			r->st.want_ranges = false;
			busy = true;
		}
		if (ops->after_batch && ops->after_batch(r) == LOOP_STOP) {
			r->stop_sig = SIGPIPE;	/* stdout is gone */
			break;
		}
		if (r->st.oom_pending) {
			r->st.oom_pending = false;
			if (ops->on_oom)
				ops->on_oom(r);
		}
		if (read_signals(r) == LOOP_STOP)
			break;
		if (ops->check && ops->check(r) == LOOP_STOP)
			break;
	}
	free(pfd);
	return code;
}

/*
 * The stop, the same for every live mode: tracing off, the buffers drained to
 * the end, names and sizes refreshed, tracefs as found, the recording closed.
 * A second TERM/INT from here on exits at once (signals_arm_teardown()).
 */
static void run_stop(struct run *r)
{
	int e;

	signals_arm_teardown();
	check_tracing_on(r);	/* before we switch it off ourselves */
	tracefs_tracing_on(&r->tf, false);
	if (TEST_HOOK(r, teardown_delay_ms))	/* widen the teardown window */
		sleep_ms(TEST_HOOK(r, teardown_delay_ms));
	/* in the mode's batches, as in the loop: what a batch queues (--exits) is taken each time */
	for (;;) {
		uint64_t n = reader_run(&r->rd, true, r->ops->batch);
		bool loaded = r->st.want_ranges;

		if (loaded) {	/* a module load stopped the batch: its code, then on */
			enrich_module_ranges(r, r->st.want_ranges_ts);
			r->st.want_ranges = false;
		}
		if (r->ops->after_batch)
			r->ops->after_batch(r);
		if (!loaded && (!r->ops->batch || n < r->ops->batch))
			break;
	}
	enrich_refresh(r);
	tracefs_teardown(&r->tf);
	r->tracefs_up = false;
	if (r->opt.record_dir) {
		struct timespec ts;

		clock_gettime(CLOCK_BOOTTIME, &ts);
		r->meta.uptime_s = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
		record_finish(r->opt.record_dir, &r->meta, &r->rd, &r->st);
		e = stackreport_save_symbols(r, r->opt.record_dir);
		if (e)
			mt_warn("--record: cannot save the stacks' symbols (%s/memtrace.kallsyms): %s",
				r->opt.record_dir, strerror(-e));
	}
}

/*
 * What the decoding says of the run: a byte order other than the one guessed
 * (said: a recording of another machine, or a kernel of another order than
 * this program), and data of which nothing could be decoded (an error: the
 * report above is empty for a reason the user must see).
 */
static int run_decode_verdict(struct run *r, int code)
{
	const struct reader *rd = &r->rd;
	const char *order = rd->layout.big_endian ? "big" : "little";
	uint64_t pages = 0;
	int i;

	/* said by record_finish(): an incomplete recording is a failed run */
	if (r->opt.record_dir && r->ops->live && record_failed() && code == EXIT_OK)
		code = EXIT_RUNTIME;
	if (!r->reader_up)
		return code;
	if (rd->order_switched)	/* the guess was the other order */
		mt_warn("note: the ring buffer is %s-endian (%s said %s): decoded as %s-endian",
			order,
			r->ops->live ? "this machine" : "the recording's memtrace.meta or this machine",
			rd->layout.big_endian ? "little" : "big", order);
	if (reader_undecodable(rd)) {
		for (i = 0; i < rd->ncpus; i++)
			pages += rd->cpus[i].pages;
		mt_warn("error: %llu records and %llu sub-buffers read, not one event decoded "
			"(%llu unknown event ids, %llu malformed records): the format files do "
			"not describe these pages", (unsigned long long)rd->records,
			(unsigned long long)pages,
			(unsigned long long)rd->unknown_ids, (unsigned long long)rd->bad_records);
		if (code == EXIT_OK)
			code = EXIT_RUNTIME;
	}
	return code;
}

int run_lifecycle(struct run *r)
{
	const struct mode_ops *ops = r->ops;
	int code;

	if (ops->prepare && (code = ops->prepare(r)))
		return code;
	code = ops->setup ? ops->setup(r) : setup_tracing(r);
	if (code)
		return code;
	if (ops->live)
		setup_self_protect();
	if (ops->start && (code = ops->start(r)))
		return code;
	code = ops->loop ? ops->loop(r) : poll_loop(r);
	if (code) {
		if (ops->abort)
			ops->abort(r);
		return code;
	}
	if (ops->live)
		run_stop(r);
	code = ops->finish ? ops->finish(r) : EXIT_OK;
	/* stopped by ALRM, XCPU, ...: the status says so (a command's status is its own) */
	if (!r->opt.command)
		code = signals_exit_code(r->stop_sig, code);
	if (r->tf.off_what[0] && code == EXIT_OK)
		code = EXIT_RUNTIME;	/* the report is short of what came after */
	return run_decode_verdict(r, code);
}

void run_cleanup(struct run *r)
{
	if (r->tracefs_up)
		tracefs_teardown(&r->tf);
	r->tracefs_up = false;
	daemon_remove_pidfile(r);
	if (r->reader_up)
		reader_free(&r->rd);
	r->reader_up = false;
	stats_free(&r->st);
	free(r->order);
	free(r->threads);
	free(r->pages);
	free(r->meta.extra);
	r->order = r->threads = NULL;
	r->pages = NULL;
	r->meta.extra = NULL;
	signals_close(&r->sig);
}
