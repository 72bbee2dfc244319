/* SPDX-License-Identifier: GPL-2.0-only */
/* input/recording.h - a recording's layout, its facts (struct meta), and memtrace.meta and memtrace.seed read back */
#ifndef MEMTRACE_INPUT_RECORDING_H
#define MEMTRACE_INPUT_RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "input/boot.h"
#include "kernel/proc.h"
#include "kernel/reader.h"
#include "stats.h"

/*
 * A recording is a directory in the layout of tracefs:
 *   events/header_page, events/header_event, events/<sys>/<event>/format,
 *   per_cpu/cpuN/trace_pipe_raw   raw sub-buffers as read()
 * plus two memtrace files (both optional for --replay):
 *   memtrace.seed   "seed TID TGID PPID KTHREAD PAGES TS COMMHEX" per seeded task
 *   memtrace.meta   "key value..." lines: complete 0|1 (second line; 0 from the start
 *                   until all was saved: absent in older recordings, taken as 1),
 *                   incomplete TEXT (why not), page_size, byte_order big|little, word_size 4|8
 *                   (the traced kernel's), max_pfn REACH [RAM], initmod START END,
 *                   rename_events 0|1, uptime SECONDS, cpu_lost CPU N,
 *                   kernel RELEASE, host NAME, started UNIX_SECONDS,
 *                   module_before NAME (in /proc/modules when tracing began),
 *                   module_kib NAME KIB,
 *                   module_untraced NAME KIB (in /proc/modules at the end, no entry),
 *                   modules_not_listed N,
 *                   boot_buffer PAGES RECORDS APPLIED DROPPED LOST LOST_UNKNOWN BAD [TRUNCATED],
 *                   module_boot NAME TID LOAD_TS FREE_TS (from the boot buffer)
 */
#define META_FILE	"memtrace.meta"

#define SEED_FILE	"memtrace.seed"

struct meta {
	uint32_t page_size;
	int8_t byte_order;		/* RB_ORDER_LE, RB_ORDER_BE, RB_ORDER_UNKNOWN (not said) */
	uint8_t word_size;		/* the kernel's long: 4 or 8 (0: not said) */
	uint64_t max_pfn;		/* the pfn map's reach */
	uint64_t ram_pfn;		/* the memory at the start, where the reach is beyond (0: not) */
	uint64_t initmod_start, initmod_end;
	bool rename_events;
	double uptime_s;
	int32_t self_pid;		/* the recording memtrace's pid (its allocations are skipped) */
	struct proc_mem mem_start;	/* /proc/meminfo before memtrace's buffers and tables */
	char kernel[65];		/* the traced kernel's release (uname -r); "": not known */
	char host[65];			/* its host name (uname -n); "": not known */
	int64_t started_at;		/* the wall clock as tracing began, Unix seconds; 0: not known */
	bool boot_used;			/* --boot-buffer was read */
	struct boot_buffer boot;	/* its counters (boot.ev only while live) */
	struct mt_module *extra;	/* untraced modules at the last report (caller's array) */
	uint32_t nextra, extra_cap, extra_dropped;
	bool incomplete;		/* "complete 0": not all was saved (or memtrace died) */
	char why[192];			/* "incomplete TEXT": what was not */
};

/*
 * meta_word() - a kernel release or host name as the meta and the reports keep it:
 * at most @size - 1 bytes of @src up to its end or a newline, each byte that is
 * not printable ASCII or is a blank made '?' (one word on a meta line, safe on a
 * console). Pure.
 */
void meta_word(char *dst, size_t size, const char *src);

/*
 * meta_when() - @m->started_at in UTC into @buf: "2026-11-27 01:13:40 UTC", or
 * with @iso "2026-11-27T01:13:40Z"; "" when not known. Pure.
 */
void meta_when(const struct meta *m, bool iso, char buf[32]);

/*
 * Parse the text of memtrace.meta. Header values go to @m; cpu_lost lines to
 * the reader's CPUs (by number, if @r); module_kib lines set the sizes of
 * modules of @s (if @s); module_untraced lines fill m->extra (up to m->extra_cap). Unknown keys and malformed lines are skipped and counted in *bad.
 */
void meta_parse(const char *text, size_t len, struct meta *m, struct reader *r,
		struct stats *s, uint32_t *bad);

/*
 * The module_boot and module_before lines of memtrace.meta only, into @s:
 * replay applies them before the events, as live did.
 */
void meta_parse_boot(const char *text, size_t len, struct stats *s, uint32_t *bad);

/*
 * Parse memtrace.seed text and seed @s; returns tasks seeded. Malformed lines
 * are added to *@bad, well-formed ones that found no slot in @s's task table
 * (--max-tasks smaller than the recorder's machine had tasks) to *@full.
 */
uint32_t seed_parse(const char *text, size_t len, struct stats *s, uint64_t *pages,
		    uint32_t *bad, uint32_t *full);

#endif
