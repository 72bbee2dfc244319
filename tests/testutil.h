/* SPDX-License-Identifier: GPL-2.0-only */
/* testutil.h - shared helpers for the Check unit tests */
#ifndef MEMTRACE_TESTUTIL_H
#define MEMTRACE_TESTUTIL_H

#include <check.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"

/* Directory of the fixtures, set by the runner from MEMTRACE_FIXTURES or "tests/fixtures". */
extern const char *fixtures_dir;

/* Read a whole file into a malloc'ed, NUL-terminated buffer; fails the test on error. */
char *read_path(const char *path, size_t *len);

/* Read a fixture file (relative to fixtures_dir), as read_path(). */
char *read_fixture(const char *rel, size_t *len);

/* Apply one page event (EV_PAGE_ALLOC or EV_PAGE_FREE) to @s. */
void test_page_event(struct stats *s, enum mt_kind kind, uint64_t ts, int32_t tid,
		     uint8_t flags, uint64_t pfn, uint32_t order);

/*
 * A fake root of files (/proc, /sys, a recording): test_root_setup() makes the
 * directory test_root under /tmp, test_root_teardown() removes it (a tcase's
 * checked fixture); test_root_file() writes test_root/REL, its parents made.
 */
extern char test_root[PATH_MAX / 2];
void test_root_setup(void);
void test_root_teardown(void);
void test_root_file(const char *rel, const char *s, size_t len);

/*
 * What the code under test writes to a struct out, in memory (out_init_mem()),
 * never a file: test_out_begin() gives the struct out, test_out_end() flushes
 * it and hands over what it got, a malloc'ed NUL-terminated string (its length
 * in *@len if not NULL). One at a time.
 */
struct out;
/*
 * @r wired as a report wants it in a unit test: one CPU (@cpu0), 4096-byte pages, and the
 * scratch arrays of the report's rows (order, threads, pages: one per task slot; mod_order:
 * one per module, untraced ones too), which the caller sizes. Nothing else is set.
 */
struct run;
struct reader_cpu;
void test_run_wire(struct run *r, struct reader_cpu *cpu0, uint32_t *order, uint32_t *threads,
		   int64_t *pages, uint32_t *sel, uint32_t *mod_order);

struct out *test_out_begin(void);
char *test_out_end(size_t *len);

/* Strict UTF-8 at @s: the length of its first sequence, 0 for none (an overlong, a
 * surrogate, past U+10FFFF, cut short by @left). An independent check of escaped text. */
size_t test_utf8_len(const unsigned char *s, size_t left);

/* The suites, one per tests/test_<module>.c; the runner skips those not linked in. */
#define SUITE(name) Suite *suite_##name(void) __attribute__((weak))
SUITE(ringbuf);
SUITE(format);
SUITE(event);
SUITE(stats);
SUITE(module);
SUITE(reader);
SUITE(merge);
SUITE(scale);
SUITE(report);
SUITE(logfile);
SUITE(proc);
SUITE(record);
SUITE(boot);
SUITE(bootrec);
SUITE(options);
SUITE(signals);
SUITE(stacks);
SUITE(view);
SUITE(prom);
SUITE(util);
SUITE(cond);
SUITE(jsonl);
SUITE(runtime);
SUITE(mempair);
SUITE(psize);
SUITE(tracefs);
SUITE(loop);
SUITE(diff);
SUITE(series);
#undef SUITE

#endif
