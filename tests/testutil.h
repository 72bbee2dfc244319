/* SPDX-License-Identifier: GPL-2.0-only */
/* testutil.h - shared helpers for the Check unit tests */
#ifndef MEMTRACE_TESTUTIL_H
#define MEMTRACE_TESTUTIL_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

/* Directory of the fixtures, set by the runner from MEMTRACE_FIXTURES or "tests/fixtures". */
extern const char *fixtures_dir;

/* Read a fixture file (relative to fixtures_dir) into a malloc'ed buffer; aborts the test on error. */
char *read_fixture(const char *rel, size_t *len);

/* The suites, one per tests/test_<module>.c; the runner skips those not linked in. */
#define SUITE(name) Suite *suite_##name(void) __attribute__((weak))
SUITE(ringbuf);
SUITE(format);
SUITE(event);
SUITE(stats);
SUITE(module);
SUITE(reader);
SUITE(report);
SUITE(logfile);
SUITE(proc);
SUITE(record);
#undef SUITE

#endif
