/* SPDX-License-Identifier: GPL-2.0-only */
/* run/setup.h - the start of a run: tracefs, events, tables, reader, boot buffer, tracing on, seed */
#ifndef MEMTRACE_RUN_SETUP_H
#define MEMTRACE_RUN_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/run.h"

#define SETUP_FD_MARGIN	16	/* fds beside the CPUs' that a raised soft limit leaves to spare */
#define SETUP_FD_OWN	6	/* memtrace's own beside what is open at the setup (setup.c) */
/* page frames when not recorded: 256 GiB of 4 KiB pages, 4 TiB of 64 KiB ones */
#define REPLAY_MAX_PFN	(1ull << 26)
/* a recording's CPUs: their ids below this (a kernel's NR_CPUS is at most 8192) */
#define REPLAY_MAX_CPUS	8192

/* Reads events/<sys>/<name>/format from a tracefs instance or a recording. */
typedef ssize_t (*format_reader)(void *ctx, const char *sys, const char *name, char *buf,
				 size_t size);

/**
 * setup_events() - parse and register every tracepoint memtrace knows
 * @live: enable each one found in the instance (else: a recording)
 *
 * Fills r->dec, r->enabled and r->missing (a warning per missing group).
 * Return: 0, or an exit code (a required event missing: EXIT_NOEVENT).
 */
int setup_events(struct run *r, format_reader rdfmt, void *ctx, bool live);

/* The reader's sink: events to the accounting and to a capture's memory watch or --svg's series. */
void setup_sink(void *ctx, const struct mt_event *ev);
/*
 * After reader_init() and the boot buffer: the accounting's maps the reader
 * prefetches, the sink that takes its events (stats_sink() where nothing but
 * the accounting wants them), and in a live run the events that end its batch
 * (struct stats: stop).
 */
void setup_pick_sink(struct run *r);

/* Whether "sys:name" was enabled (or found in the recording). */
bool setup_have_event(const struct run *r, const char *name);

/*
 * The tables and the report scratch, sized from the options, the pfn maps reaching
 * @max_pfn frames, or @ram_pfn where @max_pfn's cannot be reserved; 0 or an exit code.
 */
int setup_stats_reach(struct run *r, uint64_t max_pfn, uint64_t ram_pfn);

/**
 * setup_tracing() - everything a live mode needs before its loop
 *
 * tracefs found (or mounted), our instance made and configured, the required
 * events checked, every known event enabled, the tables allocated, the per-CPU
 * fds open and read by r->rd, --record and --boot-buffer set up, the modules
 * loaded now noted, tracing on, running tasks seeded from /proc. From the
 * first step on r->tracefs_up is set: main's cleanup undoes what was done.
 * Return: 0, or an exit code (said on stderr).
 */
int setup_tracing(struct run *r);

/* The one line a live mode says on stderr when tracing is live. */
void setup_banner(const struct run *r);

/*
 * Best effort, once every table is allocated: stay resident and out of the
 * OOM killer's reach.
 */
void setup_self_protect(void);

#endif
