/* SPDX-License-Identifier: GPL-2.0-only */
/* core/run.h - the context of one run, passed to every function that needs it, and a mode's operations */
#ifndef MEMTRACE_CORE_RUN_H
#define MEMTRACE_CORE_RUN_H

#include <stdbool.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "kernel/event.h"
#include "core/options.h"
#include "kernel/reader.h"
#include "model/sizing.h"
#include "input/record.h"
#include "input/recording.h"
#include "kernel/ringbuf.h"
#include "signals.h"
#include "stats.h"
#include "core/testhook.h"
#include "tracefs.h"

#define RUN_MAX_EVENTS	64	/* tracepoints named in a report (enabled or missing) */

struct run;
struct series;

/*
 * What a mode's hook tells the loop. A hook that says LOOP_STOP sets r->stop
 * (the final report's trigger; STOP_NONE reads as SIGTERM), which the loop
 * sets too: the signal that stopped it, or STOP_OUTPUT_GONE when after_batch
 * said LOOP_STOP (the mode's output is gone).
 */
enum loop_next { LOOP_GO_ON = 0, LOOP_STOP };

/* What ended the loop; each has its trigger text in the final report (loop.c). */
enum stop_reason {
	STOP_NONE = 0,		/* not stopped, or by a hook that said nothing: "SIGTERM" */
	STOP_SIGNAL,		/* a stopping signal, r->stop_signo: its name ("SIGINT") */
	STOP_OUTPUT_GONE,	/* the mode's output (stdout, the terminal) is gone: "stdout closed" */
	STOP_QUIT,		/* --top: the user quit: "quit" */
	STOP_COUNT,		/* --top: the --count frames were shown: "count" */
};

/*
 * One mode, one file, one entry in memtrace.c's table (the shape of rtla's
 * tools). Every mode goes through the same lifecycle (loop.c, run_lifecycle()):
 *
 *   setup -> start -> loop -> stop and drain -> finish, then main's cleanup
 *
 * NULL hooks do nothing. A new mode is a new file with its ops and one entry.
 * What differs between the modes is said here, as facts the shared code reads
 * (setup.c, loop.c, signals.c know no mode by name; tests/layers.py checks it).
 */
struct mode_ops {
	const char *name;
	size_t state_size;			/* the mode's own state at r->mode (0: none) */
	bool live;				/* traces the kernel (else: replays a recording) */
	/*
	 * Traces in DEFAULT_INSTANCE unless --instance names one: the name a service,
	 * the boot scripts and a user's tools know. Every other mode takes a name of its
	 * run's own (memtrace-MODE-PID), so that it runs beside such a daemon and beside
	 * the others, as time(1) does.
	 */
	bool well_known_instance;
	uint64_t batch;				/* events per read batch in the loop */
	/* what each signal means (NULL: signals_default); a COMMAND: signals_command */
	const struct sig_table *signals;
	bool reports_modules;			/* at the start, what missing module events cost */
	bool streams;				/* the stream's own events, those --events names */
	/* a command's tree is rooted at its first sight: its kernel filter hides our fork */
	bool tree_first_sight;
	uint32_t exit_ring;			/* process exits queued for after_batch (0: none) */
	const char *log_without_o;		/* the banner's log without -o (NULL: the log file) */
	/* the final report goes to the log file (with -o only, if log_without_o names
	   another place): checked before the setup (outcheck.c) */
	bool final_to_log;
	int (*prepare)(struct run *r);		/* before the setup; exit code */
	int (*setup)(struct run *r);		/* instead of the tracing setup (replay) */
	int (*start)(struct run *r);		/* tracing is live: start the work; exit code */
	int (*loop)(struct run *r);		/* instead of the poll loop (replay) */
	/* after each batch of events, and once after the final drain */
	enum loop_next (*after_batch)(struct run *r);
	void (*on_oom)(struct run *r);		/* an oom:mark_victim was applied */
	/* a signal whose action the loop does not handle itself (see signals_action()) */
	enum loop_next (*on_signal)(struct run *r, int action, const struct signalfd_siginfo *si);
	enum loop_next (*check)(struct run *r);	/* at the end of each round of the loop */
	/*
	 * A mode's own fds in the poll set (a terminal's keys, an output waiting
	 * to be written): poll_fds() fills at most @max entries before each wait
	 * and returns how many; on_poll() gets them back with their revents.
	 */
	int (*poll_fds)(struct run *r, struct pollfd *pfd, int max);
	enum loop_next (*on_poll)(struct run *r, const struct pollfd *pfd, int n);
	/* ms until the mode's next deadline (a frame, an interval); < 0: none */
	long (*next_ms)(struct run *r);
	/*
	 * The mode's consumer is full (an output its reader does not take yet):
	 * the loop reads the buffers only once one is past the kernel's
	 * watermark (buffer_percent), and then in small batches, so that a
	 * burst waits in the ring buffer instead of being dropped, and tracing
	 * never stops.
	 */
	bool (*hold)(struct run *r);
	void (*abort)(struct run *r);		/* the loop failed: undo what start began */
	/* the events' consumer (ctx: the run), instead of the accounting alone */
	reader_sink sink;
	int (*finish)(struct run *r);		/* after the stop: final report; the exit code */
};

/*
 * What a report works out on its way to its model (output/rows.c and the
 * reports), sized at the setup, one entry per task slot (mod_order: per module
 * slot and per untraced module): passed as itself to what writes it, never
 * written through a const struct run.
 */
struct report_scratch {
	uint32_t *order;	/* the task or process slots a report lists, in its order */
	uint32_t *threads;	/* per process slot: its threads; PROC_ALIVE if one is alive */
	int64_t *pages;		/* per process slot: its pages at the command's tree peak */
	uint32_t *sel;		/* rows_select()'s picks: the processes at the tree peak */
	uint32_t *mod_order;	/* the module rows (rows_modules()) */
};

/* Command mode: how the command ended and what it cost (command.c fills it). */
struct cmd_info {
	char *const *argv;
	pid_t pid;
	int status;		/* wait status of the command, if reaped */
	bool reaped;
	bool exec_failed;	/* could not be executed (status is then 127) */
	double wall_s, user_s, sys_s;
	long max_rss_kib;	/* largest ru_maxrss of the waited-for descendants */
	uint64_t start_ts;	/* trace clock when the command was started */
	bool waited;		/* descendants were waited for (no --no-wait) */
	uint32_t still_running;	/* tree processes alive at the end (--no-wait) */
	char oom_adj[16];	/* memtrace's caller's oom_score_adj, for the command */
	struct sig_cmd_state sigs;
	bool stdout_to_stderr;	/* its stdout is memtrace's stderr (--stream on stdout) */
	int go_fd, err_fd;	/* between child_spawn() and child_go() */
};

/* OOM kills: the snapshots kept beside the log file, the console summaries (oom.c). */
struct oom_state {
	uint32_t first, next;	/* numbers of LOG.oom.N: this run's first, and the next one */
	uint32_t kept;		/* snapshots written by this run (at most --keep-oom) */
	uint64_t not_kept;	/* snapshots that replaced this run's last one */
	char last[PATH_MAX];	/* the latest snapshot */
	bool summarized;	/* a console summary was written: */
	uint64_t summary_ts;	/* ... for the kill at this event time stamp */
	uint32_t window_lines;	/* one-line notes since then */
	uint64_t not_summarized;/* OOM kills without a console summary (rate limit) */
};

struct run {
	/*
	 * The options as the user gave them: read-only (const) for the whole
	 * run. What the run finds or its mode decides has its own field here
	 * (stacks, seed). Written only as opt_set, by main's options_parse()
	 * and by the unit tests' fixtures (tests/layers.py checks it).
	 */
	union {
		const struct options opt;
		struct options opt_set;
	};
	bool stacks;			/* kernel stacks are traced (--stacks and possible; recorded) */
	bool seed;			/* running tasks are seeded (no --no-seed, nor a command's tree) */
	bool seed_from_boot;		/* ... from the boot buffer's page events instead */
	const struct mode_ops *ops;
	const char *mode_name;		/* in reports: live, record, replay */
	struct signals sig;
	struct tracefs tf;
	bool tracefs_up;		/* from here on every exit path tears down */
	struct rb_layout layout;
	struct mt_decoder dec;
	struct reader rd;
	bool reader_up;
	struct stats st;
	struct meta meta;
	/*
	 * What setup began that the stop ends, after the teardown (setup.c:
	 * --record's end, memtrace.meta and its complete flag). Its exit code,
	 * if not 0 (said on stderr), is the run's when that is otherwise 0.
	 */
	int (*at_stop)(struct run *r);
	enum stop_reason stop;		/* what ended the loop (the final report's trigger) */
	int stop_signo;			/* ... STOP_SIGNAL: which signal */
	uint32_t cpu_id_bound;		/* CPU numbers are below this (--stacks) */
	/* the tracepoints, as reports name them ("sys:name") */
	const char *enabled[RUN_MAX_EVENTS];
	const char *missing[RUN_MAX_EVENTS];
	const char *missing_loss[RUN_MAX_EVENTS];	/* what each missing one costs */
	int nenabled, nmissing;
	char event_names[RUN_MAX_EVENTS][96];
	uint32_t seed_tasks;
	uint64_t seed_pages;
	struct report_scratch rs;	/* what a report works out on its way (output/) */
	/* report-time facts (enrich.c) */
	double uptime_s;		/* seconds since boot at report time */
	long self_rss_kib;		/* memtrace's own VmRSS, -1 if unknown */
	long self_hwm_kib;		/* its VmHWM, -1 if unknown */
	long self_map_kib;		/* of it, the resident pfn map, -1 if unknown */
	/* --daemon: the child writes its exit code (0: tracing is live) here */
	int ready_fd;
	pid_t ready_parent;		/* the parent waiting on it (not seeded) */
	/* --pidfile: ours to remove at the end, if still the file we wrote (signals_fast_file()) */
	bool pidfile_written;
	struct recorder rec;		/* --record: the recording being written */
	/* --daemon let go of the caller's stdout, stderr (daemonize_detach()): reports to the log */
	bool stdout_let_go, stderr_let_go;
	struct rlimit nofile_was;	/* RLIMIT_NOFILE before memtrace raised it */
	bool nofile_raised;		/* ... which the command of command mode gets back */
	struct cmd_info cmd;		/* command mode */
	/*
	 * The mode's own state (its file's struct, mode_ops.state_size bytes):
	 * zeroed before its prepare(), freed after the run; what the mode
	 * allocates inside it, its hooks free. No other file reads it.
	 */
	void *mode;
	struct series *series;		/* --svg: memory over time (series.c), allocated before the setup */
	struct oom_state oom;
	/* crashkernel=: a capture kernel's memory watched (run/memwatch.c) */
	struct sizing sz;
	int64_t mw_next;		/* the traced level of the next sample */
	uint64_t mw_ring_kib;		/* memtrace's ring buffers (the instance's) */
	unsigned buffer_kb;		/* the ring buffer per CPU asked for (setup_buffer_kb()) */
	/* between two samples: the last one's need less the traced level then, memtrace's own
	 * then, and the highest traced level since (the need followed event by event) */
	bool mw_based;
	int64_t mw_base_kib;
	uint64_t mw_self_kib;
	int64_t mw_hi;
	/* --switch-root: the root to follow, held from SIGHUP until the switch (run/switchroot.c) */
	int swroot_fd;			/* -1: none asked for, or followed */
	bool swroot_done;
	uint64_t dump_exits_said;	/* the dump writer's exits a report was written for */
	const char *kmsg_dev;		/* the kernel log's device: NULL, /dev/kmsg (unit tests: a file) */
	const char *proc_root;		/* --stream's /proc: NULL, /proc (unit tests: a directory) */
	bool stdout_stalled;		/* the last report on stdout (--stream: its fd) was not read in time */
	/*
	 * The report being written is --json FILE's (report_json_file()): JSON,
	 * every row, by process, every stack, whatever -f, -n, --by and
	 * --stack-top say (rows_top() and its kin). Set for that one write only.
	 */
	bool whole_report;
	uint32_t replay_bad;		/* --replay: malformed lines of memtrace.{meta,seed} */
	/* --diff: a recording replayed in this process (main's), its JSON report to @fd */
	int (*replay_json)(const char *dir, int fd);
#ifdef MEMTRACE_TEST_HOOKS
	struct test_hooks hooks;	/* the test build's (testhook.h) */
#endif
};

#endif
