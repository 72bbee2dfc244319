// SPDX-License-Identifier: GPL-2.0-only
/* test_mempair.c - memory syscalls paired per thread: entries, exits, losses, a full table */
#include <check.h>
#include <string.h>

#include "kernel/event.h"
#include "stream/mempair.h"
#include "testutil.h"

static const uint64_t A[6] = { 1, 2, 3, 4, 5, 6 };

START_TEST(test_pairs)
{
	struct mempair m;
	struct mp_entry e;

	ck_assert_int_eq(mempair_init(&m, 8), 0);
	mempair_enter(&m, 10, CALL_MMAP, 100, A);
	mempair_enter(&m, 11, CALL_MUNMAP, 101, A);
	/* each thread gets its own entry back, whatever the order of the exits */
	ck_assert(mempair_exit(&m, 11, CALL_MUNMAP, &e));
	ck_assert_int_eq(e.tid, 11);
	ck_assert_uint_eq(e.ts, 101);
	ck_assert(mempair_exit(&m, 10, CALL_MMAP, &e));
	ck_assert_uint_eq(e.ts, 100);
	ck_assert_uint_eq(e.arg[5], 6);
	ck_assert_uint_eq(m.paired, 2);
	ck_assert_uint_eq(m.tab.n, 0);
	/* an exit without its entry (before tracing, or lost) */
	ck_assert(!mempair_exit(&m, 10, CALL_MMAP, &e));
	ck_assert_uint_eq(m.no_entry, 1);
	/* a second entry of the same thread: the first one's exit was lost */
	mempair_enter(&m, 12, CALL_BRK, 1, A);
	mempair_enter(&m, 12, CALL_MMAP, 2, A);
	ck_assert_uint_eq(m.no_exit, 1);
	/* an exit of another call than the entry held */
	ck_assert(!mempair_exit(&m, 12, CALL_MREMAP, &e));
	ck_assert_uint_eq(m.mismatched, 1);
	ck_assert_uint_eq(m.tab.n, 0);
	/* a thread that exits inside the call */
	mempair_enter(&m, 13, CALL_MMAP, 3, A);
	mempair_forget(&m, 13);
	ck_assert(!mempair_exit(&m, 13, CALL_MMAP, &e));
	/* tids that are not tasks */
	mempair_enter(&m, 0, CALL_MMAP, 3, A);
	mempair_enter(&m, -5, CALL_MMAP, 3, A);
	ck_assert_uint_eq(m.tab.n, 0);
	mempair_free(&m);
}
END_TEST

/* Colliding tids keep their chains whole when entries in the middle leave. */
START_TEST(test_full_and_collisions)
{
	struct mempair m;
	struct mp_entry e;
	int32_t t;
	uint32_t cap;

	ck_assert_int_eq(mempair_init(&m, 8), 0);
	cap = (m.tab.mask + 1) / 2;
	for (t = 1; t <= (int32_t)cap + 5; t++)
		mempair_enter(&m, t * (int32_t)(m.tab.mask + 1), CALL_MMAP, (uint64_t)t, A);
	ck_assert_uint_eq(m.tab.n, cap);
	ck_assert_uint_eq(m.full, 5);
	/* out of the middle of the chain, then the rest: each finds its own */
	ck_assert(mempair_exit(&m, 3 * (int32_t)(m.tab.mask + 1), CALL_MMAP, &e));
	ck_assert_uint_eq(e.ts, 3);
	for (t = 1; t <= (int32_t)cap; t++) {
		if (t == 3)
			continue;
		ck_assert_msg(mempair_exit(&m, t * (int32_t)(m.tab.mask + 1), CALL_MMAP, &e), "tid %d", t);
		ck_assert_uint_eq(e.ts, (uint64_t)t);
	}
	ck_assert_uint_eq(m.tab.n, 0);
	mempair_free(&m);
}
END_TEST

Suite *suite_mempair(void)
{
	Suite *s = suite_create("mempair");
	TCase *tc = tcase_create("mempair");

	tcase_add_test(tc, test_pairs);
	tcase_add_test(tc, test_full_and_collisions);
	suite_add_tcase(s, tc);
	return s;
}
