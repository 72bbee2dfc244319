// SPDX-License-Identifier: GPL-2.0-only
/* kfilter.c - --stream's kernel-side filters: a comm filter on the storm events, the pid list */
#include "kfilter.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "setup.h"
#include "tracefs.h"
#include "util.h"

#define MAX_PIDS	4096		/* tasks in a kernel pid filter */

/* The events that come in storms: what the kernel's filters are worth setting on. */
static const char *const hot_events[][2] = {
	{ "kmem", "mm_page_alloc" }, { "kmem", "mm_page_free" },
	{ "exceptions", "page_fault_user" },
	{ "syscalls", "sys_enter_mmap" }, { "syscalls", "sys_exit_mmap" },
	{ "syscalls", "sys_enter_munmap" }, { "syscalls", "sys_exit_munmap" },
	{ "syscalls", "sys_enter_brk" }, { "syscalls", "sys_exit_brk" },
	{ "syscalls", "sys_enter_mremap" }, { "syscalls", "sys_exit_mremap" },
};

/* The tasks of process @pid (its threads) into @out; how many were added. */
static int tasks_of(int32_t pid, int32_t *out, int room)
{
	char dir[64];
	struct dirent *de;
	int n = 0, e = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	if (!d) {
		if (room > 0)
			out[n++] = pid;	/* not there (yet): its pid, for when it is */
		return n;
	}
	while (n < room && (e = dir_next(d, &de)) > 0) {
		long v = strtol(de->d_name, NULL, 10);

		if (v > 0 && v <= INT32_MAX)
			out[n++] = (int32_t)v;
	}
	if (e < 0)
		mt_warn("warning: %s: %s: some of its threads may not be traced", dir, strerror(-e));
	closedir(d);
	return n;
}

void kfilter_set(struct run *r, const struct cond *c, const int32_t *roots, int nroots)
{
	static int32_t pids[MAX_PIDS];
	static char filter[4096];
	size_t i;
	int n = 0, k, e;
	char name[96];

	if (r->tf.top_level) {
		mt_warn("warning: tracing at the top level: no kernel filters set (not ours to "
			"change); every event is read and decided here");
		return;
	}
	if (cond_comm_filter(c, filter, sizeof(filter))) {
		for (i = 0; i < ARRAY_SIZE(hot_events); i++) {
			snprintf(name, sizeof(name), "%s:%s", hot_events[i][0], hot_events[i][1]);
			if (!setup_have_event(r, name))
				continue;
			e = tracefs_set_filter(&r->tf, hot_events[i][0], hot_events[i][1], filter);
			if (e)
				mt_warn("warning: %s: filter '%s' not taken (%s): decided here instead",
					name, filter, strerror(-e));
		}
	}
	for (k = 0; k < nroots; k++)
		n += tasks_of(roots[k], pids + n, MAX_PIDS - n);
	if (n) {
		e = tracefs_set_event_pids(&r->tf, pids, n, true);
		if (e)
			mt_warn("warning: set_event_pid not taken (%s): every task's events are read",
				strerror(-e));
	}
}
