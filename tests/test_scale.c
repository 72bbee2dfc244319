// SPDX-License-Identifier: GPL-2.0-only
/* test_scale.c - big machines: the pfn map's reach (4 TiB, memory added later), CPU lists, tid sets */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "model/pfnmap.h"
#include "kernel/proc.h"
#include "input/record.h"
#include "stats.h"
#include "model/tidset.h"

#define S(lit)	lit, sizeof(lit) - 1
#define GI	(1ull << 30)

/* ---- how far the maps reach ---- */

START_TEST(test_reach)
{
	/* the CPU's physical addresses, in page frames */
	ck_assert_uint_eq(pfnmap_reach(6 << 20, 36, 4096), 1ull << 24);
	ck_assert_uint_eq(pfnmap_reach(6 << 20, 44, 4096), 1ull << 32);
	ck_assert_uint_eq(pfnmap_reach(6 << 20, 44, 65536), 1ull << 28);
	/* at most PFNMAP_REACH_MAX (64 TiB of 4 KiB pages), also where it is not known */
	ck_assert_uint_eq(pfnmap_reach(6 << 20, 46, 4096), PFNMAP_REACH_MAX);
	ck_assert_uint_eq(pfnmap_reach(6 << 20, 52, 4096), PFNMAP_REACH_MAX);
	ck_assert_uint_eq(pfnmap_reach(6 << 20, 0, 4096), PFNMAP_REACH_MAX);
	ck_assert_uint_eq(PFNMAP_REACH_MAX, 1ull << 34);
	/* never less than the memory there is */
	ck_assert_uint_eq(pfnmap_reach(1ull << 30, 32, 4096), 1ull << 30);
	ck_assert_uint_eq(pfnmap_reach(1ull << 35, 52, 4096), 1ull << 35);
	/* nonsense in: something sane out */
	ck_assert_uint_eq(pfnmap_reach(100, 12, 4096), PFNMAP_REACH_MAX);
	ck_assert_uint_eq(pfnmap_reach(100, 63, 4096), PFNMAP_REACH_MAX);
	ck_assert_uint_eq(pfnmap_reach(100, 30, 0), 1ull << 30);
}
END_TEST

START_TEST(test_phys_bits)
{
	unsigned int b = 0;

	ck_assert_int_eq(proc_parse_phys_bits(S("processor\t: 0\nvendor_id\t: GenuineIntel\n"
						"address sizes\t: 46 bits physical, 48 bits virtual\n"
						"power management:\n"), &b), 0);
	ck_assert_uint_eq(b, 46);
	ck_assert_int_eq(proc_parse_phys_bits(S("address sizes : 52 bits physical, 57 bits "
						"virtual"), &b), 0);
	ck_assert_uint_eq(b, 52);
	/* the first one says it (every CPU says the same) */
	ck_assert_int_eq(proc_parse_phys_bits(S("address sizes\t: 40 bits physical, 48 bits "
						"virtual\naddress sizes\t: 43 bits physical\n"),
					      &b), 0);
	ck_assert_uint_eq(b, 40);
	/* arm64 and others do not say: unknown */
	b = 7;
	ck_assert_int_eq(proc_parse_phys_bits(S("processor\t: 0\nBogoMIPS\t: 50.00\n"), &b), -1);
	ck_assert_int_eq(proc_parse_phys_bits(S(""), &b), -1);
	ck_assert_int_eq(proc_parse_phys_bits(S("address sizes\t: bits physical\n"), &b), -1);
	ck_assert_int_eq(proc_parse_phys_bits(S("address sizes\t: 46 bits virtual\n"), &b), -1);
	ck_assert_int_eq(proc_parse_phys_bits(S("address sizes\t: 99 bits physical\n"), &b), -1);
	ck_assert_int_eq(proc_parse_phys_bits(S("address sizes\t: 0 bits physical\n"), &b), -1);
	ck_assert_uint_eq(b, 7);
}
END_TEST

/* this machine's own: an x86 CPU says it, in range; others say nothing */
START_TEST(test_phys_bits_real)
{
	unsigned int b = proc_phys_bits("/proc");

	ck_assert(b == 0 || (b >= 32 && b <= 57));
	if (!b)
		fprintf(stderr, "SKIP: test_phys_bits_real: /proc/cpuinfo gives no address sizes\n");
}
END_TEST

/* ---- a fake /proc of a 4 TiB machine ---- */

/* 4 TiB in two nodes: the last zone ends at page frame 1 Gi */
static const char zoneinfo_4t[] =
	"Node 0, zone      DMA\n"
	"        spanned  4095\n"
	"  start_pfn:           1\n"
	"Node 0, zone    DMA32\n"
	"        spanned  1044480\n"
	"  start_pfn:           4096\n"
	"Node 0, zone   Normal\n"
	"        spanned  535822336\n"
	"  start_pfn:           1048576\n"
	"Node 1, zone   Normal\n"
	"        spanned  536870912\n"
	"  start_pfn:           536870912\n";

START_TEST(test_fake_root_4t)
{
	ck_assert_uint_eq(proc_phys_bits(test_root), 0);		/* no cpuinfo */
	test_root_file("zoneinfo", S(zoneinfo_4t));
	test_root_file("cpuinfo", S("processor\t: 0\naddress sizes\t: 44 bits physical, 48 bits virtual\n"
			    "\nprocessor\t: 1\naddress sizes\t: 44 bits physical, 48 bits virtual\n"));
	ck_assert_uint_eq(proc_max_pfn(test_root), GI);
	ck_assert_uint_eq(proc_phys_bits(test_root), 44);
	ck_assert_uint_eq(pfnmap_reach(proc_max_pfn(test_root), proc_phys_bits(test_root), 4096),
			  1ull << 32);
}
END_TEST

/* ---- the map of a 4 TiB machine, and memory added after the start ---- */

static struct stats ST;

static void ev(enum mt_kind kind, uint64_t ts, int32_t tid, uint64_t pfn, uint32_t order)
{
	test_page_event(&ST, kind, ts, tid, 0, pfn, order);
}

/*
 * 1 Gi page frames now (zoneinfo), 16 Ti of address space reserved for what
 * the CPU may address (44 bits): nothing of the 16 GiB map is resident at the
 * start; a page added later, above every zone, is tracked like any other
 * (owner, peak, its free credited back), and only the map page it touched
 * becomes resident. Beyond the reservation, counted as before.
 */
START_TEST(test_map_4t_hotplug)
{
	struct stats_config cfg = { .max_tasks = 64, .max_modules = 4 };
	uint64_t hot = GI + 12345;

	cfg.ram_pfn = GI;
	cfg.max_pfn = pfnmap_reach(GI, 44, 4096);
	ck_assert_uint_eq(cfg.max_pfn, 1ull << 32);
	if (GI > SIZE_MAX / sizeof(uint32_t)) {
		/* 32 bits: not even the map of the memory there is (4 GiB) fits: an error */
		ck_assert_int_eq(stats_init(&ST, &cfg), -ENOMEM);
		fprintf(stderr, "SKIP: test_map_4t_hotplug: a 16 GiB map needs a 64-bit address "
			"space (here: stats_init() refuses, checked)\n");
		return;
	}
	ck_assert_int_eq(stats_init(&ST, &cfg), 0);
	ck_assert(!ST.map_short);
	ck_assert_uint_eq(ST.cfg.max_pfn, 1ull << 32);
	ck_assert_uint_eq(ST.pfn_map_bytes, 16 * GI);
	ck_assert_int_eq(stats_map_resident_kib(&ST), 0);

	ev(EV_PAGE_ALLOC, 10, 100, 5, 0);		/* memory there at the start */
	ev(EV_PAGE_ALLOC, 20, 100, hot, 2);		/* memory added later: 4 pages */
	ck_assert_uint_eq(ST.c.pfn_out_of_range, 0);
	ck_assert_int_eq(stats_find_task(&ST, 100)->cur, 5);
	ck_assert_int_eq(stats_find_task(&ST, 100)->peak, 5);
	/* a free by another task credits the owner */
	ev(EV_PAGE_FREE, 30, 200, hot, 2);
	ck_assert_int_eq(stats_find_task(&ST, 100)->cur, 1);
	ck_assert_uint_eq(stats_find_task(&ST, 100)->freed_pages, 4);
	ck_assert_uint_eq(ST.c.untracked_frees, 0);
	/* two map pages touched, nothing else (the scan stops at the highest frame seen) */
	ck_assert_int_le(stats_map_resident_kib(&ST), 2 * (sysconf(_SC_PAGESIZE) / 1024));
	ck_assert_int_ge(stats_map_resident_kib(&ST), 1);
	ck_assert_uint_eq(ST.pfn_hi, hot + 4);
	/* beyond what the CPU can address: counted, skipped */
	ev(EV_PAGE_ALLOC, 40, 100, 1ull << 32, 0);
	ev(EV_PAGE_FREE, 50, 100, (1ull << 32) - 1, 1);
	ck_assert_uint_eq(ST.c.pfn_out_of_range, 2);
	ck_assert_int_eq(stats_find_task(&ST, 100)->cur, 1);
	stats_free(&ST);
}
END_TEST

/*
 * Where the address space for the reach cannot be had (strict overcommit, a
 * ulimit -v, a 32-bit machine): the map of the memory there is now, said by
 * map_short; what lies beyond it is counted, as before.
 */
START_TEST(test_map_short)
{
	struct stats_config cfg = { .max_tasks = 64, .max_modules = 4, .max_stacks = 64,
				    .cpu_ids = 2 };

	cfg.max_pfn = 1ull << 50;	/* 4 PiB of address space per map: not to be had */
	cfg.ram_pfn = 4096;
	ck_assert_int_eq(stats_init(&ST, &cfg), 0);
	ck_assert(ST.map_short);
	ck_assert_uint_eq(ST.cfg.max_pfn, 4096);
	ck_assert_uint_eq(ST.sk.max_pfn, 4096);
	ev(EV_PAGE_ALLOC, 10, 100, 4095, 0);
	ev(EV_PAGE_ALLOC, 20, 100, 4096, 0);
	ck_assert_int_eq(stats_find_task(&ST, 100)->cur, 1);
	ck_assert_uint_eq(ST.c.pfn_out_of_range, 1);
	stats_free(&ST);
	/* without a smaller size to fall back to: an error */
	cfg.ram_pfn = 0;
	ck_assert_int_eq(stats_init(&ST, &cfg), -ENOMEM);
}
END_TEST

/*
 * A recording keeps both: the reach ("max_pfn REACH RAM": older versions read
 * the first number) and the memory at the start, for a replay without the
 * address space for the reach; a recording of an older version has one number.
 */
START_TEST(test_meta_reach)
{
	struct meta m = { .page_size = 4096, .max_pfn = 1ull << 34, .ram_pfn = 6291456 };
	struct meta back = { .page_size = 4096 };
	uint32_t bad = 0;
	char path[PATH_MAX], *text;
	size_t len;

	ck_assert_int_eq(record_write_meta(&(struct recorder)RECORDER_NONE, test_root, &m, NULL, NULL), 0);
	snprintf(path, sizeof(path), "%s/" META_FILE, test_root);
	text = read_path(path, &len);
	ck_assert_ptr_nonnull(strstr(text, "\nmax_pfn 17179869184 6291456\n"));
	meta_parse(text, len, &back, NULL, NULL, &bad);
	free(text);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(back.max_pfn, 1ull << 34);
	ck_assert_uint_eq(back.ram_pfn, 6291456);
	/* the reach no further than the memory: one number, as before */
	m.max_pfn = m.ram_pfn;
	ck_assert_int_eq(record_write_meta(&(struct recorder)RECORDER_NONE, test_root, &m, NULL, NULL), 0);
	text = read_path(path, &len);
	ck_assert_ptr_nonnull(strstr(text, "\nmax_pfn 6291456\ninitmod"));
	free(text);
	/* an older recording; a RAM above the reach is nonsense: no fallback */
	meta_parse(S("max_pfn 262144\n"), &back, NULL, NULL, &bad);
	ck_assert_uint_eq(back.max_pfn, 262144);
	ck_assert_uint_eq(back.ram_pfn, 0);
	meta_parse(S("max_pfn 262144 300000\n"), &back, NULL, NULL, &bad);
	ck_assert_uint_eq(back.ram_pfn, 0);
	ck_assert_uint_eq(bad, 0);
}
END_TEST

/* ---- CPU lists (/sys/devices/system/cpu/online) ---- */

static bool bit(const uint8_t *m, unsigned int n)
{
	return m[n / 8] & (1u << (n % 8));
}

START_TEST(test_cpulist)
{
	uint8_t m[32];
	unsigned int i, n;

	ck_assert_int_eq(proc_parse_cpulist(S("0-3,8,10-11\n"), m, 256), 0);
	for (i = 0, n = 0; i < 256; i++)
		n += bit(m, i);
	ck_assert_uint_eq(n, 7);
	ck_assert(bit(m, 0) && bit(m, 3) && !bit(m, 4) && bit(m, 8) && !bit(m, 9) && bit(m, 11));
	ck_assert_int_eq(proc_parse_cpulist(S("0-255"), m, 256), 0);
	for (i = 0; i < 256; i++)
		ck_assert(bit(m, i));
	/* CPUs past the mask are left out, not written */
	ck_assert_int_eq(proc_parse_cpulist(S("250-4095"), m, 256), 0);
	ck_assert(!bit(m, 249) && bit(m, 250) && bit(m, 255));
	ck_assert_int_eq(proc_parse_cpulist(S("\n"), m, 256), 0);	/* none online */
	for (i = 0; i < 256; i++)
		ck_assert(!bit(m, i));
	ck_assert_int_eq(proc_parse_cpulist(S("0-"), m, 256), -1);
	ck_assert_int_eq(proc_parse_cpulist(S("3-1"), m, 256), -1);
	ck_assert_int_eq(proc_parse_cpulist(S("0,,1"), m, 256), -1);
	ck_assert_int_eq(proc_parse_cpulist(S("x"), m, 256), -1);
	ck_assert_int_eq(proc_parse_cpulist(S("1;2"), m, 256), -1);
}
END_TEST

START_TEST(test_cpus_online_real)
{
	uint8_t m[1024];
	int cpus = 0;
	unsigned int i;

	if (access("/sys/devices/system/cpu/online", R_OK)) {
		fprintf(stderr, "SKIP: test_cpus_online_real: no /sys/devices/system/cpu/online\n");
		return;
	}
	ck_assert_int_eq(sys_cpus_online("/sys", m, 8192), 0);
	for (i = 0; i < 8192; i++)
		cpus += bit(m, i);
	ck_assert_int_eq(cpus, (int)sysconf(_SC_NPROCESSORS_ONLN));
	ck_assert_int_eq(sys_cpus_online("/nonexistent", m, 8192), -ENOENT);
}
END_TEST

/* ---- the tid set of command mode's tree overflow ---- */

START_TEST(test_tidset)
{
	struct tidset t;
	int32_t i;

	ck_assert_int_eq(tidset_init(&t, 100), 0);
	ck_assert_uint_eq(t.tab.mask + 1, 256);
	ck_assert(!tidset_add(&t, 0) && !tidset_add(&t, -5));
	for (i = 1; i <= 128; i++)
		ck_assert(tidset_add(&t, i * 256));	/* all in one probe chain */
	ck_assert(!tidset_add(&t, 7));			/* half full: full */
	ck_assert(tidset_add(&t, 256));			/* already there */
	tidset_del(&t, 512);
	for (i = 1; i <= 128; i++)
		ck_assert(tidset_has(&t, i * 256) == (i != 2));
	ck_assert(tidset_add(&t, 7));
	tidset_free(&t);
	ck_assert(!tidset_has(&t, 7));
}
END_TEST

Suite *suite_scale(void)
{
	Suite *s = suite_create("scale");
	TCase *tc = tcase_create("pfnmap");

	tcase_add_test(tc, test_reach);
	tcase_add_test(tc, test_phys_bits);
	tcase_add_test(tc, test_phys_bits_real);
	tcase_add_test(tc, test_map_4t_hotplug);
	tcase_add_test(tc, test_map_short);
	tcase_add_test(tc, test_cpulist);
	tcase_add_test(tc, test_cpus_online_real);
	tcase_add_test(tc, test_tidset);
	suite_add_tcase(s, tc);
	tc = tcase_create("fake_root");
	tcase_add_checked_fixture(tc, test_root_setup, test_root_teardown);
	tcase_add_test(tc, test_fake_root_4t);
	tcase_add_test(tc, test_meta_reach);
	suite_add_tcase(s, tc);
	return s;
}
