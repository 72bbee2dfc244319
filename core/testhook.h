/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * testhook.h - the fault hooks of the test build
 *
 * build/tests/memtrace-hooks is built with -DMEMTRACE_TEST_HOOKS; there the hooks are
 * read from MEMTRACE_TEST_* in the environment (testhook.c) and the tests use
 * them to fail setup after a step, slow setup or teardown down, crash the live
 * view, and read zoneinfo or the container runtimes' files from a fake tree.
 * In the release build every hook is the constant 0 (or its default): the
 * compiler drops the code behind it, and the binary has none of the hooks'
 * code, strings or symbols (tests/nohooks.sh checks ./memtrace for them).
 */
#ifndef MEMTRACE_CORE_TESTHOOK_H
#define MEMTRACE_CORE_TESTHOOK_H

#ifdef MEMTRACE_TEST_HOOKS
#include <stdbool.h>

/* MEMTRACE_TEST_<NAME> for each */
struct test_hooks {
	const char *fail_at;		/* setup fails right after this step */
	long setup_delay_ms;		/* a setup as slow as a stuck drain */
	long teardown_delay_ms;		/* a wider teardown window */
	long ready_timeout_ms;		/* --daemon parent's wait, shortened */
	long top_crash_frame;		/* --top: a SIGSEGV after this frame (the restore) */
	const char *pfn_root;		/* zoneinfo and cpuinfo read here, not in /proc */
	const char *runtime_root;	/* --stream: the runtimes' files under this root */
};

/* r->hooks from the environment (main); a ready timeout only up to @ready_max_ms */
void test_hooks_read(struct test_hooks *h, long ready_max_ms);
/* MEMTRACE_TEST_FAIL_AT=STEP: setup fails right after STEP (said on stderr) */
bool test_fail_at(const struct test_hooks *h, const char *step);

#define TEST_HOOKS_READ(r, max_ms)	test_hooks_read(&(r)->hooks, max_ms)
#define TEST_HOOK(r, name)		((r)->hooks.name)
#define TEST_HOOK_OR(r, name, dflt)	((r)->hooks.name ? (r)->hooks.name : (dflt))
#define TEST_FAIL_AT(r, step)		test_fail_at(&(r)->hooks, step)
#else
#define TEST_HOOKS_READ(r, max_ms)	((void)0)
#define TEST_HOOK(r, name)		0
#define TEST_HOOK_OR(r, name, dflt)	(dflt)
#define TEST_FAIL_AT(r, step)		0
#endif

#endif
