/* SPDX-License-Identifier: GPL-2.0-only */
/* tracefs.h - find or mount tracefs, own a private instance, enable events, per-CPU raw fds */
#ifndef MEMTRACE_TRACEFS_H
#define MEMTRACE_TRACEFS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define TFS_MAX_EVENTS	32

/* Exit-code classes of setup errors (see memtrace.c) */
enum tfs_err { TFS_OK = 0, TFS_ERR_RUNTIME = 1, TFS_ERR_PRIV = 4 };

struct tracefs {
	char root[PATH_MAX];		/* mount point */
	char inst[PATH_MAX];		/* instance dir, or root in top-level fallback */
	char name[64];			/* instance name */
	bool mounted_by_us;
	bool top_level;			/* instances unsupported: tracing at the top level */
	bool instance_created;
	int inst_lock;			/* fd of the instance dir, flock()ed while we own it, or -1 */
	bool clock_mono;		/* trace_clock is mono (comparable with CLOCK_MONOTONIC) */
	const char *owner_filter;	/* event whose filter names our pid (instance owner), or NULL */
	int ncpus;
	int *cpu_ids;			/* per_cpu/cpuN numbers */
	int *fds;			/* non-blocking trace_pipe_raw fds, -1 when closed */
	int max_cpu_fds;		/* open at most this many CPUs' fds (0: all) */
	int no_fd_from;			/* CPUs from this index on got no fd (RLIMIT_NOFILE) */
	int any_fd;			/* the instance's trace_pipe, polled (never read), or -1 */
	int free_buffer_fd;
	int nenabled;
	char enabled[TFS_MAX_EVENTS][96];	/* "sys/name" enabled by us */
	bool enabled_ok[TFS_MAX_EVENTS];	/* ... and its write succeeded (checked to stay on) */
	/* top-level fallback: what to restore */
	char saved_clock[32], saved_size[32], saved_percent[32], saved_on[8];
	char saved_filter[256];			/* the owner event's filter before ("0": none) */
	char saved_enable[TFS_MAX_EVENTS][4];	/* each enabled event's enable before */
	bool saved_valid;
	bool stack_trigger;			/* the stacktrace trigger is ours to remove */
	/* tracing switched off under us (tracefs_check_on()): what was found off, and when */
	char off_what[160];
	double off_uptime_s;
};

/**
 * tracefs_find() - choose the tracefs mount: @given if not NULL, else the one
 * in @proc_root/mounts (sys/kernel/tracing or sys/kernel/debug/tracing), else
 * mount it at /sys/kernel/tracing.
 * Return: TFS_OK, or an enum tfs_err with @err set.
 */
int tracefs_find(struct tracefs *t, const char *given, const char *proc_root,
		 char *err, size_t errlen);

/**
 * tracefs_instance_create() - create instances/@name, flock() it for as long
 * as we own it and mark it ours. An existing one is removed only when it is
 * provably a dead memtrace's: its owner mark exactly ours, its lock free, the
 * marked pid gone; any other is an error, and nothing is written into it.
 * Falls back to the top level only when instances are not supported (and says
 * so on stderr).
 */
int tracefs_instance_create(struct tracefs *t, const char *name, const char *proc_root,
			    char *err, size_t errlen);

/**
 * tracefs_configure() - tracing off, buffer size per CPU, buffer_percent,
 * trace_clock mono, own pid excluded, free_buffer safety net.
 */
int tracefs_configure(struct tracefs *t, unsigned buffer_kb, unsigned percent, pid_t self,
		      char *err, size_t errlen);

/* Read events/<sys>/<name>/format of the instance; bytes read or -errno. */
ssize_t tracefs_read_format(const struct tracefs *t, const char *sys, const char *name,
			    char *buf, size_t size);

/* Read the instance's events/header_page; bytes read or -errno. */
ssize_t tracefs_read_header_page(const struct tracefs *t, char *buf, size_t size);

/* Enable one event in the instance (remembered for teardown); 0 or -errno. */
int tracefs_enable(struct tracefs *t, const char *sys, const char *name);

/*
 * --stacks: a kernel stack with every kmem:mm_page_alloc of the instance (the
 * event trigger "stacktrace"; its records are ftrace:kernel_stack). Removed at
 * teardown, and by the emergency path. 0 or -errno.
 */
int tracefs_stack_trigger(struct tracefs *t);

/*
 * Enumerate per_cpu/cpuN and open each trace_pipe_raw non-blocking, and the
 * instance's trace_pipe (any_fd; never read: poll says POLLIN on it when any
 * CPU has data, whatever buffer_percent). When the open files run out
 * (RLIMIT_NOFILE, or past max_cpu_fds), the CPUs left are not traced, said
 * once (no_fd_from).
 */
int tracefs_open_cpus(struct tracefs *t, char *err, size_t errlen);

/*
 * tracefs_set_filter() - the filter of one event of our instance (@filter
 * "0": none). Never at the top level, whose filters are not ours to change.
 * Return: 0 or -errno (-EOPNOTSUPP at the top level).
 */
int tracefs_set_filter(struct tracefs *t, const char *sys, const char *name, const char *filter);

/*
 * tracefs_set_event_pids() - only the tasks @pids record events in our
 * instance; with @follow_fork (options/event-fork) their children join and
 * the exited leave. Return: 0 or -errno (-EOPNOTSUPP at the top level).
 */
int tracefs_set_event_pids(struct tracefs *t, const int32_t *pids, int n, bool follow_fork);

/*
 * Open CPU @idx's trace_pipe_raw if it is not open (an offline CPU come online); fd or
 * -errno (-EMFILE without trying for a CPU past no_fd_from).
 */
int tracefs_open_cpu(struct tracefs *t, int idx);

/*
 * tracefs_check_on() - is tracing still on as we set it: tracing_on and each
 * event we enabled read back (a file each). The first time one is found off
 * (another tool wrote it), off_what and off_uptime_s are set and 1 returned;
 * 0 otherwise (also once already found).
 */
int tracefs_check_on(struct tracefs *t);

/* Write tracing_on; 0 or -errno. */
int tracefs_tracing_on(struct tracefs *t, bool on);

/* Lost events of one CPU so far: overrun + commit overrun + dropped events. */
int tracefs_cpu_lost(const struct tracefs *t, int idx, uint64_t *lost);

/* Path of an instance file, for copying (record mode). */
int tracefs_path(const struct tracefs *t, char *buf, size_t size, const char *rel);

/*
 * Undo everything: tracing off, fds closed, events off, instance removed (or
 * top-level settings restored), tracefs unmounted if we mounted it. Safe to
 * call more than once and after a partial setup.
 */
void tracefs_teardown(struct tracefs *t);

/* What tracefs_emergency_cleanup() did. */
enum tfs_emerg {
	TFS_EMERG_NONE = 0,	/* nothing to undo (not armed, or the teardown was done) */
	TFS_EMERG_REMOVED,	/* the instance switched off and removed */
	TFS_EMERG_RESTORED,	/* the top level's settings put back */
	TFS_EMERG_FAILED,	/* switched off, but the instance could not be removed */
};

/*
 * Async-signal-safe last resort for a fault signal, or a second stopping
 * signal during teardown: tracing_on 0, close fds; in an instance, events off
 * and rmdir it; at the top level, every setting memtrace changed back as it
 * was (events' enables, the owner filter, clock, buffer size and percent),
 * tracing_on last; tracefs unmounted if memtrace mounted it. Uses only paths
 * and values prepared beforehand. Return: an enum tfs_emerg.
 */
int tracefs_emergency_cleanup(void);

/* The instance (or top level) the emergency path acts on, "" if none was prepared. */
const char *tracefs_emergency_where(void);

#endif
