// SPDX-License-Identifier: GPL-2.0-only
/* test_sizing.c - the crashkernel= answer: its terms and their sum (model/sizing.c) */
#include <check.h>
#include <string.h>

#include "model/sizing.h"

/* a capture as the e2e kdump boot measured it (crashkernel=128M, KiB) */
static struct sizing capture(void)
{
	struct sizing z;

	memset(&z, 0, sizeof(z));
	z.on = z.capture = true;
	z.ram_kib = 131072;
	z.total_kib = 90188;
	z.memmap_kib = sizing_memmap_kib(128ull << 20, 4096);
	z.blocks = 1;
	z.blocks_worst = 2;
	z.start_need_kib = 54368;
	z.boot_known = z.initrd_known = true;
	z.initrd_kib = 11680;
	z.boot_extra_kib = 11000;
	z.samples = 300;
	z.need_max_kib = 70000;
	z.self_at_max_kib = 6000;
	z.min_free_kib = 1300;
	return z;
}

START_TEST(test_blocks)
{
	/* 128 MiB of 4 KiB pages, 64 bytes each: 2 MiB of struct pages */
	ck_assert_uint_eq(sizing_memmap_kib(128ull << 20, 4096), 2048);
	ck_assert_uint_eq(sizing_memmap_kib(0, 4096), 0);
	/* 120 MiB in 128 MiB blocks: 1 if it starts at one, else 2; 256 MiB: 2 or 3 */
	ck_assert_uint_eq(sizing_blocks_worst(120ull << 20, 128ull << 20), 2);
	ck_assert_uint_eq(sizing_blocks_worst(128ull << 20, 128ull << 20), 2);
	ck_assert_uint_eq(sizing_blocks_worst(256ull << 20, 128ull << 20), 3);
	ck_assert_uint_eq(sizing_blocks_worst(1, 128ull << 20), 2);
	ck_assert_uint_eq(sizing_blocks_worst(0, 128ull << 20), 0);
}
END_TEST

START_TEST(test_sum)
{
	struct sizing z = capture();
	struct sizing_answer a;

	sizing_answer(&z, 0, &a);
	ck_assert_uint_eq(a.kaslr, 2048);
	ck_assert_uint_eq(a.k, 131072 - 90188 + 2048);
	ck_assert_uint_eq(a.b, 54368);
	ck_assert_uint_eq(a.t, 6000);
	ck_assert_uint_eq(a.p, 70000 - 6000 - 54368);
	ck_assert_uint_eq(a.u, 11000);
	ck_assert_uint_eq(a.boot_peak, 11000);
	ck_assert_uint_eq(a.w, 1300);
	ck_assert(!a.boot_sets);
	ck_assert_uint_eq(a.sum_kib, a.k + a.b + a.p + a.t + a.w);
	ck_assert_uint_eq(a.sum_kib, 114232);
	ck_assert_uint_eq(a.mib, 112);		/* 111.55 MiB, rounded up */
	ck_assert(!a.lower);
	ck_assert_ptr_null(a.why);
	/* the boot's unpack above the run's peak: it sets the answer */
	z.boot_extra_kib = 20000;
	sizing_answer(&z, 0, &a);
	ck_assert(a.boot_sets);
	ck_assert_uint_eq(a.sum_kib, a.k + a.b + 20000 + a.w);
	/* the boot buffer, given back once read: out of B, in U (held through the boot) */
	z.bootbuf_kib = 1000;
	sizing_answer(&z, 0, &a);
	ck_assert_uint_eq(a.b, 53368);
	/* the samples came after it was given back: B + P + T is the highest need */
	ck_assert_uint_eq(a.p, 70000 - 6000 - 53368);
	ck_assert_uint_eq(a.b + a.p + a.t, 70000);
	ck_assert_uint_eq(a.u, 21000);
	ck_assert_uint_eq(a.boot_peak, 20000);
	ck_assert_uint_eq(a.sum_kib, a.k + 53368 + 21000 + a.w);
	/* memtrace's own buffers set up beside it: U when more than the boot's peak */
	z.boot_extra_kib = 100;
	z.self_start_kib = 3000;
	sizing_answer(&z, 0, &a);
	ck_assert_uint_eq(a.u, 4000);
	ck_assert(!a.boot_sets);
	/* the reserve: the min watermarks and the most boosting adds */
	z = capture();
	z.boost_kib = 2048;
	sizing_answer(&z, 0, &a);
	ck_assert_uint_eq(a.w, 1300 + 2048);
	ck_assert_uint_eq(a.sum_kib, 114232 + 2048);
	/* a whole MiB stays as it is */
	z = capture();
	z.min_free_kib += 1024 - 114232 % 1024;
	sizing_answer(&z, 0, &a);
	ck_assert_uint_eq(a.sum_kib % 1024, 0);
	ck_assert_uint_eq(a.mib, a.sum_kib / 1024);
}
END_TEST

START_TEST(test_lower_bound)
{
	struct sizing z = capture();
	struct sizing_answer a;

	/* what could not be measured makes it a lower bound, and says why */
	z.boot_known = false;
	z.boot_extra_kib = 0;
	sizing_answer(&z, 0, &a);
	ck_assert(a.lower);
	ck_assert_ptr_nonnull(strstr(a.why, "no boot buffer"));
	z = capture();
	z.initrd_known = false;
	sizing_answer(&z, 0, &a);
	ck_assert(a.lower && strstr(a.why, "initrd"));
	z = capture();
	sizing_answer(&z, 3, &a);
	ck_assert(a.lower && strstr(a.why, "lost"));
	z = capture();
	z.ram_kib = 0;
	sizing_answer(&z, 0, &a);
	ck_assert(a.lower && strstr(a.why, "System RAM"));
	ck_assert_uint_eq(a.k, 2048);	/* the KASLR block alone: no negative term */
	/* a boot buffer not read to its end: its peak may be low */
	z = capture();
	z.boot_truncated = 1;
	sizing_answer(&z, 0, &a);
	ck_assert(a.lower && strstr(a.why, "not read to its end"));
	ck_assert_uint_eq(a.sum_kib, 114232);	/* the same sum, said to be at least */
	/* no memory block size (a kernel without memory hotplug): the KASLR block not known */
	z = capture();
	z.memmap_kib = 0;
	sizing_answer(&z, 0, &a);
	ck_assert_uint_eq(a.kaslr, 0);
	ck_assert(a.lower && strstr(a.why, "memory block size"));
	/* memory given back since the start: P is 0, never below */
	z = capture();
	z.need_max_kib = 50000;
	sizing_answer(&z, 0, &a);
	ck_assert_uint_eq(a.p, 0);
}
END_TEST

/*
 * The need between two samples. Pages of 4 KiB; U, what the events do not
 * show, 50,000 KiB; each sample sees L pages more than are traced yet (events
 * still in the buffers).
 */
START_TEST(test_between)
{
	const int64_t u = 50000, pk = 4;
	int64_t b1, b2;

	/* a backlog read in a burst: the need the same at each step's sample */
	b1 = u + 1000 * pk - 0 * pk;		/* need 54,000: 1000 pages, none traced yet */
	b2 = u + 1000 * pk - 256 * pk;		/* 256 of them traced at the next step */
	ck_assert_int_eq(sizing_between_kib(b1, b2, 256, pk), u + 1000 * pk);
	/* growth: 300 pages more at the second sample, 40 of them not traced yet */
	b1 = u + 100 * pk - 100 * pk;
	b2 = u + 400 * pk - 360 * pk;
	ck_assert_int_eq(sizing_between_kib(b1, b2, 360, pk), u + 360 * pk);
	/* a peak between them: 500 pages more, given back before the second */
	b1 = u + 100 * pk - 100 * pk;
	b2 = u + 120 * pk - 120 * pk;
	ck_assert_int_eq(sizing_between_kib(b1, b2, 600, pk), u + 600 * pk);
	/* ... the same, the first sample ahead of the events by 30 pages: the second's base */
	b1 = u + 130 * pk - 100 * pk;
	ck_assert_int_eq(sizing_between_kib(b1, b2, 600, pk), u + 600 * pk);
	/* 64 KiB pages: the same in their KiB */
	ck_assert_int_eq(sizing_between_kib(1000, 2000, 10, 64), 1000 + 640);
}
END_TEST

Suite *suite_sizing(void)
{
	Suite *s = suite_create("sizing");
	TCase *tc = tcase_create("answer");

	tcase_add_test(tc, test_blocks);
	tcase_add_test(tc, test_sum);
	tcase_add_test(tc, test_lower_bound);
	tcase_add_test(tc, test_between);
	suite_add_tcase(s, tc);
	return s;
}
