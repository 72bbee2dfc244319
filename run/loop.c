// SPDX-License-Identifier: GPL-2.0-only
/* run/loop.c - the lifecycle every mode goes through: the poll loop, stop and drain, reports, cleanup */
#include "run/loop.h"
#include "run/memwatch.h"
#include "run/switchroot.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/daemonize.h"
#include "output/enrich.h"
#include "output/logfile.h"
#include "run/outcheck.h"
#include "kernel/proc.h"
#include "output/report.h"
#include "output/reportto.h"
#include "core/build.h"
#include "model/series.h"
#include "run/setup.h"
#include "output/svg.h"
#include "lib/util.h"

#define POLL_MS		100
#define REPROBE_NS	1000000000ull	/* offline CPUs tried again, tracing checked on: every second */
#define POLL_MODE_FDS	4		/* room for a mode's own fds in the poll set */
#define ONLINE_BITS	8192	/* CPUs whose online state /sys is asked for */
#define HOLD_BATCH	4096	/* events per batch while a mode holds (its consumer is full) */

static void kmsg_emit(void *ctx, const char *line)
{
	const struct run *r = ctx;
	char buf[600];

	snprintf(buf, sizeof(buf), "<%u>%s\n", r->opt.kmsg_level, line);
	kmsg_line(r->kmsg_dev, buf);
}

/* --kmsg: the summary of the report just written (to @where) in the kernel log. */
static void kmsg_summary(struct run *r, const char *trigger, const char *where)
{
	if (!r->opt.kmsg)
		return;
	enrich_now(r);
	report_summary(r, &r->rs, trigger, where, KMSG_TOP, kmsg_emit, r);
}

/* The final report's trigger: what stopped the loop. */
static const char *stop_trigger(const struct run *r)
{
	switch (r->stop) {
	case STOP_SIGNAL:
		return signals_trigger(r->stop_signo);
	case STOP_OUTPUT_GONE:
		return "stdout closed";
	case STOP_QUIT:
		return "quit";
	case STOP_COUNT:
		return "count";
	default:
		return "SIGTERM";
	}
}

int run_report_final(struct run *r, bool to_log)
{
	const char *trigger = stop_trigger(r);
	char err[PATH_MAX + 128];
	int e = to_log ? report_final(r, trigger, err, sizeof(err)) : 0;

	kmsg_summary(r, trigger, e ? "stderr (the log file could not be written)" :
		     r->opt.log_path);
	return e ? EXIT_RUNTIME : EXIT_OK;
}

/*
 * --switch-root, followed: the dump writer (makedumpfile) ended. kdump-tools
 * saves the dump and then runs reboot -f, which signals nobody: the report so
 * far to the log and the --kmsg summary now, each time it ends (the kernel log
 * is read after the dump; its last is the capture's answer), and the final
 * report still at a SIGTERM.
 */
static void report_dump_written(struct run *r)
{
	static const char trigger[] = DUMP_WRITER " exited";

	r->dump_exits_said = r->st.c.dump_writer_exits;
	report_to(r, REPORT_LOG, trigger);
	kmsg_summary(r, trigger, r->opt.log_path);
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
	struct pollfd *pfd = calloc((size_t)poll_cpus(r) + 1 + POLL_MODE_FDS, sizeof(*pfd));
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

	*nmode = r->ops->poll_fds ? r->ops->poll_fds(r, mine, POLL_MODE_FDS) : 0;
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
		const struct reader_cpu *c = &r->rd.cpus[i];

		if (pfd[i + 1].fd < 0)
			continue;
		*cpus_said |= pfd[i + 1].revents != 0;
		/* the kernel says POLLERR for a CPU without a buffer: an offline one */
		if (pfd[i + 1].revents & (POLLERR | POLLNVAL))
			reader_cpu_poll_failed(&r->rd, i, pfd[i + 1].revents & POLLERR);
		if (reader_cpu_offline(&r->rd, i)) {
			pfd[i + 1].fd = -1;
			if (reader_cpu_first_offline(&r->rd, i))
				mt_warn("cpu%d cannot be read (%s): not traced until it can; tried "
					"again every second", c->cpu, c->last_errno ?
					strerror(c->last_errno) : "offline");
		} else if (reader_cpu_done(&r->rd, i)) {
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
		int act = signals_action(r->sig.table, &si, &r->cmd.sigs);

		switch (act) {
		case SIGACT_IGNORE:
			break;
		case SIGACT_REPORT_STDOUT:
			report_to(r, REPORT_FD(STDOUT_FILENO), "SIGUSR1");
			break;
		case SIGACT_REPORT_LOG:
			report_to(r, REPORT_LOG, "SIGUSR2");
			break;
		case SIGACT_SWITCH_ROOT:
			switchroot_arm(r);
			break;
		case SIGACT_STOP:
			r->stop = STOP_SIGNAL;
			r->stop_signo = (int)si.ssi_signo;
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
			r->stop = STOP_OUTPUT_GONE;
			break;
		}
		if (r->sz.on)	/* a capture kernel: its memory now, each round */
			memwatch_sample(r);
		if (r->swroot_fd >= 0)	/* --switch-root, after HUP: has the switch happened? */
			switchroot_poll(r);
		if (r->swroot_done && r->st.c.dump_writer_exits != r->dump_exits_said)
			report_dump_written(r);
		if (report_oom_pending(r))	/* it ended the batch: the rest is read at once */
			busy = true;
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
 * the end, names and sizes refreshed, tracefs as found, then what setup began
 * ended (r->at_stop: the recording). A second TERM/INT from here on exits at
 * once (signals_arm_teardown()). Return: the exit code of r->at_stop, or 0.
 */
static int run_stop(struct run *r)
{
	signals_arm_teardown();
	check_tracing_on(r);	/* before we switch it off ourselves */
	tracefs_tracing_on(&r->tf, false);
	if (TEST_HOOK(r, teardown_delay_ms))	/* widen the teardown window */
		sleep_ms(TEST_HOOK(r, teardown_delay_ms));
	/* in the mode's batches, as in the loop: what a batch queues (--exits) is taken each time */
	for (;;) {
		uint64_t n = reader_run(&r->rd, true, r->ops->batch);
		bool loaded = r->st.want_ranges, oom;

		if (loaded) {	/* a module load stopped the batch: its code, then on */
			enrich_module_ranges(r, r->st.want_ranges_ts);
			r->st.want_ranges = false;
		}
		if (r->ops->after_batch)
			r->ops->after_batch(r);
		oom = report_oom_pending(r);	/* an OOM kill stopped it: as in the loop, then on */
		if (!loaded && !oom && (!r->ops->batch || n < r->ops->batch))
			break;
	}
	enrich_refresh(r);
	tracefs_teardown(&r->tf);
	r->tracefs_up = false;
	return r->at_stop ? r->at_stop(r) : EXIT_OK;
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
	int code, ended = EXIT_OK;

	if (ops->prepare && (code = ops->prepare(r)))
		return code;
	/* an output that cannot be written: said now, not after the run with its report lost */
	code = outcheck_run(r);
	if (code)
		return code;
	/* --svg: the series' memory, all of it now (a live run's stays fixed); not in the boot build */
	if (BUILD_FULL && r->opt.svg_path) {
		r->series = malloc(sizeof(*r->series));
		if (!r->series || series_init(r->series, ops->live ? SERIES_LIVE_CAP :
					      SERIES_REPLAY_CAP, SERIES_MARKS))
			return mt_fail(EXIT_RUNTIME, "out of memory (--svg)");
		r->series->tree = r->opt.command != NULL;	/* the picture of a command's tree */
	}
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
		ended = run_stop(r);
	code = ops->finish ? ops->finish(r) : EXIT_OK;
	/* --json: the final report again, whole; one that cannot be written is said, status 1 */
	if (r->opt.json_path && report_json_file(r, r->opt.replay_dir ? "replay" : stop_trigger(r)) &&
	    code == EXIT_OK)
		code = EXIT_RUNTIME;
	/* the picture after the final report; one that cannot be written is said, status 1 */
	if (BUILD_FULL && r->series && svg_write(r, r->opt.svg_path) && code == EXIT_OK)
		code = EXIT_RUNTIME;
	/* stopped by ALRM, XCPU, ...: the status says so (a command's status is its own) */
	if (!r->opt.command && r->stop == STOP_SIGNAL)
		code = signals_exit_code(r->stop_signo, code);
	if (r->tf.off_what[0] && code == EXIT_OK)
		code = EXIT_RUNTIME;	/* the report is short of what came after */
	if (ended && code == EXIT_OK)
		code = ended;	/* what the stop ended failed (said): an incomplete recording */
	return run_decode_verdict(r, code);
}

void run_cleanup_exit(struct run *r)
{
	if (BUILD_FULL && r->reader_up)	/* the boot build reads its recordings: no map */
		reader_leave_maps(&r->rd);
	run_cleanup(r);
}

void run_cleanup(struct run *r)
{
	if (r->tracefs_up)
		tracefs_teardown(&r->tf);
	r->tracefs_up = false;
	pidfile_remove(r);
	if (r->reader_up)
		reader_free(&r->rd);
	r->reader_up = false;
	stats_free(&r->st);
	free(r->rs.order);
	free(r->rs.threads);
	free(r->rs.pages);
	free(r->rs.sel);
	free(r->rs.mod_order);
	free(r->meta.extra);
	if (r->series)
		series_free(r->series);
	free(r->series);
	r->series = NULL;
	memset(&r->rs, 0, sizeof(r->rs));
	r->meta.extra = NULL;
	free(r->mode);
	r->mode = NULL;
	signals_close(&r->sig);
}
