// SPDX-License-Identifier: GPL-2.0-only
/* core/testhook.c - the test build's fault hooks from the environment (testhook.h); empty in a release */
#include "core/testhook.h"

#ifdef MEMTRACE_TEST_HOOKS
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

void test_hooks_read(struct test_hooks *h, long ready_max_ms)
{
	const char *v;
	long ms;

	h->fail_at = getenv("MEMTRACE_TEST_FAIL_AT");
	if ((v = getenv("MEMTRACE_TEST_TEARDOWN_DELAY_MS")))
		h->teardown_delay_ms = strtol(v, NULL, 10);
	if ((v = getenv("MEMTRACE_TEST_SETUP_DELAY_MS")))
		h->setup_delay_ms = strtol(v, NULL, 10);
	if ((v = getenv("MEMTRACE_TEST_TOP_CRASH_FRAME")))
		h->top_crash_frame = strtol(v, NULL, 10);
	h->pfn_root = getenv("MEMTRACE_TEST_PFN_ROOT");
	h->runtime_root = getenv("MEMTRACE_TEST_RUNTIME_ROOT");
	if ((v = getenv("MEMTRACE_TEST_READY_TIMEOUT_MS")) &&
	    (ms = strtol(v, NULL, 10)) > 0 && ms <= ready_max_ms)
		h->ready_timeout_ms = ms;
}

bool test_fail_at(const struct test_hooks *h, const char *step)
{
	if (!h->fail_at || strcmp(h->fail_at, step))
		return false;
	mt_warn("test: setup fails after step %s", step);
	return true;
}
#endif
