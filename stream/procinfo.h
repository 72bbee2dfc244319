/* SPDX-License-Identifier: GPL-2.0-only */
/* stream/procinfo.h - what a stream line says of a process: /proc/PID files and its container, cached */
#ifndef MEMTRACE_STREAM_PROCINFO_H
#define MEMTRACE_STREAM_PROCINFO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cond.h"
#include "stream/runtime.h"

#define PI_CMD		1024	/* bytes of the command line kept */
#define PI_EXE		512
#define PI_COMM		16

/* What pi_read() reads (want) and what it got (have). */
#define PI_STATUS	0x01	/* tgid, ppid, capabilities */
#define PI_CMDLINE	0x02
#define PI_EXEPATH	0x04
#define PI_CGROUP	0x08	/* the container, and the runtime's files about it */
#define PI_NS		0x10	/* the pid namespace */
#define PI_START	0x20	/* the start time */
#define PI_NAME		0x40	/* the process's comm */
#define PI_ALL		0x7f

struct procinfo {
	int32_t pid, ppid;
	char name[PI_COMM];
	uint8_t name_len;
	bool cmd_cut;
	uint16_t cmd_len, exe_len;
	char cmd[PI_CMD];
	char exe[PI_EXE];
	uint64_t cap[5];		/* CapInh, CapPrm, CapEff, CapBnd, CapAmb */
	uint64_t ns_dev, ns_ino;
	int64_t started_s;		/* UTC seconds */
	int32_t container;		/* index in the container cache; -1: none */
	uint32_t have;			/* PI_* read */
	bool pre_exec;			/* --stream: a fork child before its exec (its parent's facts) */
};

/* The cache of containers and where the files are. */
struct pi_ctx {
	char proc[PATH_MAX];		/* "/proc" */
	char rt_root[PATH_MAX];		/* prefix of the runtimes' paths ("" but in tests) */
	int64_t boot_utc_ns;		/* the boot's time in UTC (for start times) */
	long hz;
	struct rt_container *cont;
	uint32_t ncont, cap, next;	/* used, room, the next one to replace */
	uint64_t reads, gone;		/* processes read, and those gone before */
	uint64_t cont_loads;		/* containers whose files were read */
};

/**
 * pi_init() - the container cache (@containers entries) and the roots
 * Return: 0 or -ENOMEM.
 */
int pi_init(struct pi_ctx *x, const char *proc_root, const char *rt_root, uint32_t containers);
void pi_free(struct pi_ctx *x);

/**
 * pi_read() - what @want asks of the process of task @tid
 * @pi: filled; pi->pid is the process id (Tgid)
 *
 * Reads /proc/TID/status first, then the process's own files. A container
 * seen the first time is looked up in its runtime's local files (cached).
 * Return: 0, or -ENOENT when the task is gone (what was read before stays).
 */
int pi_read(struct pi_ctx *x, int32_t tid, uint32_t want, struct procinfo *pi);

/* The container of @pi, or NULL. */
const struct rt_container *pi_container(const struct pi_ctx *x, const struct procinfo *pi);

/**
 * pi_subject() - @pi as the conditions see it, @pname the process's (its
 * leader's) name, @tname the task's own
 * @labels: room for the container's labels (RT_LABELS)
 */
void pi_subject(const struct pi_ctx *x, const struct procinfo *pi, const char *pname,
		size_t pname_len, const char *tname, size_t tname_len,
		struct cond_label *labels, struct cond_subject *s);

/* Pure parsers (unit tested). */

/* /proc/PID/status: Tgid, PPid and the five Cap* masks; 0 or -1. */
int pi_parse_status(const char *text, size_t len, int32_t *tgid, int32_t *ppid, uint64_t cap[5]);

/* /proc/PID/cmdline: NULs become blanks, the last one dropped; cut at @size (said in *cut). */
size_t pi_join_cmdline(const char *raw, size_t n, char *out, size_t size, bool *cut);

/* /proc/PID/stat: field 22, the start time in clock ticks since boot; 0 or -1. */
int pi_parse_starttime(const char *text, size_t len, uint64_t *ticks);

#endif
