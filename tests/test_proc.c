// SPDX-License-Identifier: GPL-2.0-only
/* test_proc.c - /proc and /sys parsers and readers, against hand-written and fake roots */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/ksyms.h"
#include "kernel/proc.h"
#include "input/seed.h"
#include "stats.h"
#include "testutil.h"

#define S(lit)	lit, sizeof(lit) - 1

/* ---- fake roots ---- */

static void mkfile_s(const char *rel, const char *s)
{
	test_root_file(rel, s, strlen(s));
}

static void mkdir_rel(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", test_root, rel);
	ck_assert(mkdir(path, 0755) == 0 || errno == EEXIST);
}

/* ---- statm ---- */

START_TEST(test_statm)
{
	uint64_t r = 99;

	ck_assert_int_eq(proc_parse_statm(S("2542 321 200 1 0 500 0\n"), &r), 0);
	ck_assert_uint_eq(r, 321);
	ck_assert_int_eq(proc_parse_statm(S("0 0 0 0 0 0 0"), &r), 0);
	ck_assert_uint_eq(r, 0);
	ck_assert_int_eq(proc_parse_statm(S("  7\t8"), &r), 0);
	ck_assert_uint_eq(r, 8);
	ck_assert_int_eq(proc_parse_statm(S("18446744073709551 4294967296 1"), &r), 0);
	ck_assert_uint_eq(r, 4294967296ull);
	r = 99;
	ck_assert_int_eq(proc_parse_statm(S(""), &r), -1);
	ck_assert_int_eq(proc_parse_statm(S("\n"), &r), -1);
	ck_assert_int_eq(proc_parse_statm(S("garbage"), &r), -1);
	ck_assert_int_eq(proc_parse_statm(S("123"), &r), -1);
	ck_assert_int_eq(proc_parse_statm(S("123 \n"), &r), -1);
	ck_assert_int_eq(proc_parse_statm(S("123 x 5"), &r), -1);
	ck_assert_int_eq(proc_parse_statm(S("-1 5"), &r), -1);
	ck_assert_int_eq(proc_parse_statm(S("1 -5"), &r), -1);
	ck_assert_int_eq(proc_parse_statm(S("1 99999999999999999999999"), &r), -1);
	/* the length bounds the parse: "12 34" cut after "12 " */
	ck_assert_int_eq(proc_parse_statm("12 34", 3, &r), -1);
	ck_assert_uint_eq(r, 99);
	ck_assert_int_eq(proc_parse_statm("12 34", 4, &r), 0);
	ck_assert_uint_eq(r, 3);
}
END_TEST

/* ---- crashkernel=: reclaimable page cache, min watermarks, System RAM, the initrd ---- */

START_TEST(test_mem_reclaim)
{
	static const char text[] = "MemTotal:          90188 kB\nMemFree:           35724 kB\n"
				   "Active(file):       3000 kB\nInactive(file):     5000 kB\n"
				   "Dirty:               700 kB\nWriteback:           300 kB\n"
				   "Mapped:             1000 kB\nSwapTotal:             0 kB\n"
				   "Shmem:               120 kB\nUnevictable:        4100 kB\n"
				   "SReclaimable:       2345 kB\nSUnreclaim:         9999 kB\n"
				   "VmallocUsed:        2240 kB\nVmallocChunk:          0 kB\n";
	struct proc_mem m;

	ck_assert_int_eq(proc_parse_mem(S(text), &m), 0);
	ck_assert_uint_eq(m.file_kib, 8000);
	ck_assert_uint_eq(m.dirty_kib, 700);
	ck_assert_uint_eq(m.writeback_kib, 300);
	ck_assert_uint_eq(m.mapped_kib, 1000);
	ck_assert_uint_eq(m.swap_kib, 0);
	ck_assert_uint_eq(m.vmalloc_kib, 2240);
	ck_assert_uint_eq(m.shmem_kib, 120);
	ck_assert_uint_eq(m.unevictable_kib, 4100);
	ck_assert_uint_eq(m.sreclaim_kib, 2345);
	/* clean, less the mapped pages kept (1000: Unevictable + Shmem could hold them all):
	 * 8000 - 700 - 300 - 1000 */
	ck_assert_uint_eq(proc_mem_mapped_kept_kib(&m), 1000);
	ck_assert_uint_eq(proc_mem_clean_kib(&m), 6000);
	/* more mapped than Unevictable and Shmem hold (4100 + 120): the rest is the file
	 * LRU's, clean page cache like the other: 8000 - 700 - 300 - 4220 */
	m.mapped_kib = 9000;
	ck_assert_uint_eq(proc_mem_mapped_kept_kib(&m), 4220);
	ck_assert_uint_eq(proc_mem_clean_kib(&m), 2780);
	/* a root on a disk, the initramfs gone (no ramfs, no tmpfs): no mapped page kept */
	m.unevictable_kib = 0;
	m.shmem_kib = 0;
	m.mapped_kib = 5000;
	ck_assert_uint_eq(proc_mem_mapped_kept_kib(&m), 0);
	ck_assert_uint_eq(proc_mem_clean_kib(&m), 7000);
	/* more held than on the lists: none to take back */
	m.dirty_kib = 9000;
	ck_assert_uint_eq(proc_mem_clean_kib(&m), 0);
	/* the need: in use (90188 - 35724) less the clean page cache */
	m.dirty_kib = 700;
	ck_assert_uint_eq(proc_mem_need_kib(&m), 90188 - 35724 - 7000);
	/* counters past any range do not wrap: Unevictable + Shmem and the held sum saturate */
	m.unevictable_kib = UINT64_MAX;
	m.shmem_kib = 2;
	ck_assert_uint_eq(proc_mem_mapped_kept_kib(&m), 5000);
	m.dirty_kib = UINT64_MAX - 1;
	ck_assert_uint_eq(proc_mem_clean_kib(&m), 0);
	/* more page cache than in use (a made-up meminfo): the need is 0, not a wrap */
	m.dirty_kib = m.writeback_kib = m.mapped_kib = 0;
	m.file_kib = 80000;
	ck_assert_uint_eq(proc_mem_need_kib(&m), 0);
	/* an old kernel that says none of it: 0 */
	ck_assert_int_eq(proc_parse_mem(S("MemTotal: 100 kB\nMemFree: 7 kB\n"), &m), 0);
	ck_assert_uint_eq(m.file_kib + m.dirty_kib + proc_mem_clean_kib(&m), 0);
}
END_TEST

START_TEST(test_zoneinfo_min)
{
	/*
	 * A capture kernel's zones: DMA manages nothing (the reservation is above
	 * 16 MiB: its min does not count), DMA32 does; what must not count:
	 * protection, min_slab, nr_free_pages
	 */
	static const char text[] = "Node 0, zone      DMA\n  pages free     0\n        boost    0\n"
		"        min      20\n        low      25\n        high     30\n"
		"        managed  0\n        protection: (0, 90, 90)\n  node_unreclaimable: 0\n"
		"Node 0, zone    DMA32\n  pages free     9000\n        boost    512\n"
		"        min      219\n        low      273\n        high     327\n"
		"        managed  16147\n    nr_free_pages 9000\n  min_slab 4\n";
	static const char ptinfo[] = "Page block order: 9\nPages per block:  512\n\nFree pages";
	struct zone_reserve r;
	uint64_t block = 0;

	ck_assert_int_eq(proc_parse_pageblock(S(ptinfo), &block), 0);
	ck_assert_uint_eq(block, 512);
	ck_assert_int_eq(proc_parse_pageblock(S("Page block order: 9\n"), &block), -1);
	/* boosting on (15000): 327 * 1.5 = 490 pages, so a pageblock, 512 */
	ck_assert_int_eq(proc_parse_zoneinfo_reserve(S(text), 15000, 512, &r), 0);
	ck_assert_uint_eq(r.min, 219);
	ck_assert_uint_eq(r.boost, 512);
	ck_assert_uint_eq(r.zones, 1);
	/* a larger high: high * factor / 10000 */
	ck_assert_int_eq(proc_parse_zoneinfo_reserve(S(text), 20000, 64, &r), 0);
	ck_assert_uint_eq(r.boost, 654);
	/* boosting off */
	ck_assert_int_eq(proc_parse_zoneinfo_reserve(S(text), 0, 512, &r), 0);
	ck_assert_uint_eq(r.min, 219);
	ck_assert_uint_eq(r.boost, 0);
	ck_assert_int_eq(proc_parse_zoneinfo_reserve(S("Node 0, zone DMA\n  low 5\n"), 15000, 512,
						     &r), -1);
	/* this machine's: read, every zone that manages memory */
	ck_assert_int_eq(proc_reserve("/proc", &r), 0);
	ck_assert_uint_gt(r.min, 0);
	ck_assert_uint_gt(r.zones, 0);
}
END_TEST

START_TEST(test_iomem_ram)
{
	/*
	 * A capture kernel's /proc/iomem (crashkernel=128M at 0x31000000): the
	 * first 640 KiB and the reservation, across two 128 MiB blocks; nested
	 * lines and other ranges do not count
	 */
	static const char text[] = "00000000-00000fff : Reserved\n"
		"00001000-0009fbff : System RAM\n"
		"000a0000-000fffff : Reserved\n"
		"31000000-38ffffff : System RAM\n"
		"  31000000-31ffffff : Kernel code\n"
		"fd000000-fdffffff : PCI Bus 0000:00\n";
	struct iomem_ram m;

	ck_assert_int_eq(proc_parse_iomem_ram(S(text), 128ull << 20, &m), 0);
	ck_assert_uint_eq(m.bytes, 0x9ec00 + (128ull << 20));
	/* block 0 (the low range), blocks 6 and 7 (0x31000000 .. 0x38ffffff) */
	ck_assert_uint_eq(m.blocks, 3);
	ck_assert_uint_eq(m.largest, 128ull << 20);
	ck_assert_uint_eq(m.largest_blocks, 2);
	/* the same reservation aligned to a block: one block */
	ck_assert_int_eq(proc_parse_iomem_ram(S("30000000-37ffffff : System RAM\n"), 128ull << 20,
					      &m), 0);
	ck_assert_uint_eq(m.blocks, 1);
	ck_assert_int_eq(proc_parse_iomem_ram(S("00000000-00000fff : Reserved\n"), 1, &m), -1);
	ck_assert_int_eq(proc_parse_iomem_ram(S("zz-00000fff : System RAM\n"), 1, &m), -1);
}
END_TEST

START_TEST(test_kmsg_initrd)
{
	uint64_t kib = 0, ts = 0;

	ck_assert_int_eq(proc_parse_kmsg_initrd(S("6,412,1744123,-;Freeing initrd memory: 11680K"),
						&kib, &ts), 0);
	ck_assert_uint_eq(kib, 11680);
	ck_assert_uint_eq(ts, 1744123000ull);
	ck_assert_int_eq(proc_parse_kmsg_initrd(S("6,413,1744200,-;Freeing unused kernel image"),
						&kib, &ts), -1);
	ck_assert_int_eq(proc_parse_kmsg_initrd(S("6,1,x,-;Freeing initrd memory: 1K"), &kib, &ts),
			 -1);
	ck_assert_int_eq(proc_parse_kmsg_initrd(S("6,1,5,-;Freeing initrd memory: 12"), &kib, &ts),
			 -1);
	ck_assert_uint_eq(kib, 11680);
}
END_TEST

/* ---- meminfo: the memory at the start ---- */

START_TEST(test_mem)
{
	/* a capture kernel's (crashkernel=128M), as the e2e kdump boot read it */
	static const char real[] = "MemTotal:          90188 kB\nMemFree:           35724 kB\n"
				   "MemAvailable:      33032 kB\nBuffers:               0 kB\n";
	struct proc_mem m;
	char buf[64];

	ck_assert_int_eq(proc_parse_mem(S(real), &m), 0);
	ck_assert_uint_eq(m.total_kib, 90188);
	ck_assert_uint_eq(m.free_kib, 35724);
	ck_assert_uint_eq(m.avail_kib, 33032);
	/* before 3.14 no MemAvailable: known as 0 */
	ck_assert_int_eq(proc_parse_mem(S("MemTotal: 100 kB\nMemFree: 7 kB\n"), &m), 0);
	ck_assert_uint_eq(m.total_kib, 100);
	ck_assert_uint_eq(m.free_kib, 7);
	ck_assert_uint_eq(m.avail_kib, 0);
	/* what cannot be: all zero, -1 */
	ck_assert_int_eq(proc_parse_mem(S("MemTotal: 100 kB\nMemAvailable: 7 kB\n"), &m), -1);
	ck_assert_uint_eq(m.total_kib, 0);
	ck_assert_int_eq(proc_parse_mem(S("MemFree: 7 kB\n"), &m), -1);
	ck_assert_int_eq(proc_parse_mem(S("MemTotal: 5 kB\nMemFree: 6 kB\n"), &m), -1);
	ck_assert_int_eq(proc_parse_mem(S("MemTotal: x kB\nMemFree: 1 kB\n"), &m), -1);
	ck_assert_int_eq(proc_parse_mem(S("XMemTotal: 5 kB\nMemFree: 1 kB\n"), &m), -1);
	ck_assert_int_eq(proc_parse_mem(S("MemTotal: 99999999999999999999 kB\nMemFree: 1 kB\n"),
					&m), -1);
	ck_assert_uint_eq(m.total_kib + m.free_kib + m.avail_kib, 0);
	/* the length bounds it: MemFree cut off */
	snprintf(buf, sizeof(buf), "MemTotal: 100 kB\nMemFree: 7 kB\n");
	ck_assert_int_eq(proc_parse_mem(buf, 17, &m), -1);
	/* this machine's, read whole */
	ck_assert_int_eq(proc_mem("/proc", &m), 0);
	ck_assert_uint_gt(m.total_kib, 0);
	ck_assert_uint_le(m.free_kib, m.total_kib);
	ck_assert_int_eq(proc_mem("/nonexistent", &m), -ENOENT);
	ck_assert_uint_eq(m.total_kib, 0);
}
END_TEST

/* ---- stat ---- */

START_TEST(test_stat_normal)
{
	int32_t ppid = -7;
	uint64_t flags = 7;

	ck_assert_int_eq(proc_parse_stat(S("1234 (bash) S 1000 1234 1234 34816 1300 4194560 "
					   "5000 0 0 0 10 3 0 0 20 0 1 0 500 9000000 800 "
					   "18446744073709551615\n"), &ppid, &flags), 0);
	ck_assert_int_eq(ppid, 1000);
	ck_assert_uint_eq(flags, 4194560);
	/* init: ppid 0 */
	ck_assert_int_eq(proc_parse_stat(S("1 (systemd) S 0 1 1 0 -1 4194560 0"), &ppid, &flags), 0);
	ck_assert_int_eq(ppid, 0);
	/* exactly nine fields, nothing after */
	ck_assert_int_eq(proc_parse_stat(S("5 (x) R 4 5 5 0 0 64"), &ppid, &flags), 0);
	ck_assert_int_eq(ppid, 4);
	ck_assert_uint_eq(flags, 64);
}
END_TEST

START_TEST(test_stat_kthread)
{
	int32_t ppid = -7;
	uint64_t flags = 0;

	/* kthreadd: flags 0x208040 = PF_KTHREAD | PF_NOFREEZE | PF_FORKNOEXEC */
	ck_assert_int_eq(proc_parse_stat(S("2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0"),
				     &ppid, &flags), 0);
	ck_assert_int_eq(ppid, 0);
	ck_assert_uint_eq(flags, 0x208040);
	ck_assert(flags & 0x00200000);
	ck_assert_int_eq(proc_parse_stat(S("17 (kworker/0:1-events) I 2 0 0 0 -1 69238880 0"),
				     &ppid, &flags), 0);
	ck_assert_int_eq(ppid, 2);
	ck_assert_uint_eq(flags, 69238880);
	ck_assert(flags & 0x00200000);
}
END_TEST

START_TEST(test_stat_comm)
{
	int32_t ppid = -7;
	uint64_t flags = 0;

	ck_assert_int_eq(proc_parse_stat(S("123 (a) b) c) S 1 123 123 0 -1 4194304 0"), &ppid,
				     &flags), 0);
	ck_assert_int_eq(ppid, 1);
	ck_assert_uint_eq(flags, 4194304);
	/* a comm that looks like the fields that follow it */
	ck_assert_int_eq(proc_parse_stat(S("42 (S 1 2 3 4 5 6) R 9 8 7 0 0 4194368 0"), &ppid,
				     &flags), 0);
	ck_assert_int_eq(ppid, 9);
	ck_assert_uint_eq(flags, 4194368);
	ck_assert_int_eq(proc_parse_stat(S("43 (my prog) S 8 43 43 0 -1 0 0"), &ppid, &flags), 0);
	ck_assert_int_eq(ppid, 8);
	ck_assert_uint_eq(flags, 0);
	ck_assert_int_eq(proc_parse_stat(S("44 ((((x) S 3 44 44 0 -1 5 0"), &ppid, &flags), 0);
	ck_assert_int_eq(ppid, 3);
	ck_assert_int_eq(proc_parse_stat(S("45 ()) S 6 45 45 0 -1 5 0"), &ppid, &flags), 0);
	ck_assert_int_eq(ppid, 6);
	ck_assert_int_eq(proc_parse_stat(S("46 () S 6 46 46 0 -1 5 0"), &ppid, &flags), 0);
	ck_assert_int_eq(proc_parse_stat(S("47 (a\nb) S 7 47 47 0 -1 11 0"), &ppid, &flags), 0);
	ck_assert_int_eq(ppid, 7);
	ck_assert_uint_eq(flags, 11);
	ck_assert_int_eq(proc_parse_stat(S("48 (\xff\x1b) S 7 48 48 0 -1 12 0"), &ppid, &flags), 0);
	ck_assert_uint_eq(flags, 12);
}
END_TEST

START_TEST(test_stat_negative_tty)
{
	int32_t ppid = -7;
	uint64_t flags = 0;

	ck_assert_int_eq(proc_parse_stat(S("5 (x) R 1 2 3 -5 -1 64 0"), &ppid, &flags), 0);
	ck_assert_int_eq(ppid, 1);
	ck_assert_uint_eq(flags, 64);
	ck_assert_int_eq(proc_parse_stat(S("5 (x) R 1 2 3 34816 -1 65 0"), &ppid, &flags), 0);
	ck_assert_uint_eq(flags, 65);
	/* only tty_nr (7) and tpgid (8) may be negative */
	ck_assert_int_eq(proc_parse_stat(S("5 (x) R -1 2 3 0 -1 64 0"), &ppid, &flags), -1);
	ck_assert_int_eq(proc_parse_stat(S("5 (x) R 1 -2 3 0 -1 64 0"), &ppid, &flags), -1);
	ck_assert_int_eq(proc_parse_stat(S("5 (x) R 1 2 -3 0 -1 64 0"), &ppid, &flags), -1);
	ck_assert_int_eq(proc_parse_stat(S("5 (x) R 1 2 3 0 -1 -64 0"), &ppid, &flags), -1);
	ck_assert_int_eq(proc_parse_stat(S("5 (x) R 1 2 3 - -1 64 0"), &ppid, &flags), -1);
}
END_TEST

START_TEST(test_stat_malformed)
{
	static const char *const bad[] = {
		"",
		"123",
		"123 (abc",
		"123 (a)",
		"123 (a) ",
		"123 (a) S",
		"123 (a) S ",
		"123 (a) S 1",
		"123 (a) S 1 2 3 4",
		"123 (a) S 1 2 3 4 5",
		"123 (a) S 1 2 3 4 5 ",
		"123 (a) 5 1 2 3 4 5 6",
		"123 (a) S x 2 3 4 5 6",
		"123 (a) S 1 2 3 4 5 x",
		"123 (a) S 4294967296 2 3 4 5 6",
		"123 (a) S 1 2 3 4 5 99999999999999999999999",
		"garbage",
	};
	int32_t ppid = -7;
	uint64_t flags = 7;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(proc_parse_stat(bad[i], strlen(bad[i]), &ppid, &flags) == -1,
			      "accepted \"%s\"", bad[i]);
	/* truncated by the length, not by a NUL */
	ck_assert_int_eq(proc_parse_stat("9 (a) S 1 2 3 4 5 6 7", 15, &ppid, &flags), -1);
	ck_assert_uint_eq(flags, 7);
	ck_assert_int_eq(proc_parse_stat("9 (a) S 1 2 3 4 5 6 7", 19, &ppid, &flags), 0);
	ck_assert_int_eq(ppid, 1);
	ck_assert_uint_eq(flags, 6);
	/* the largest ppid */
	ck_assert_int_eq(proc_parse_stat(S("9 (a) S 2147483647 2 3 4 5 6"), &ppid, &flags), 0);
	ck_assert_int_eq(ppid, INT32_MAX);
}
END_TEST

/* ---- zoneinfo ---- */

static const char zoneinfo_small[] =
	"Node 0, zone      DMA\n"
	"  per-node stats\n"
	"      nr_inactive_anon 0\n"
	"  pages free     3\n"
	"        min      0\n"
	"        spanned  4095\n"
	"        present  3998\n"
	"        managed  3840\n"
	"  start_pfn:           1\n"
	"Node 1, zone   Normal\n"
	"  pages free     100\n"
	"        spanned  524288\n"
	"        present  524288\n"
	"  start_pfn:           2097152\n"
	"Node 0, zone    DMA32\n"
	"        spanned  1044480\n"
	"  start_pfn:           4096\n"
	"Node 0, zone   Normal\n"
	"        spanned  1048576\n"
	"  start_pfn:           1048576\n"
	"Node 1, zone  Movable\n"
	"  pages free     0\n"
	"        spanned  0\n"
	"        present  0\n";

START_TEST(test_zoneinfo_small)
{
	uint64_t m = 0;

	/* highest end: node 1 Normal, 2097152 + 524288, though not listed last */
	ck_assert_int_eq(proc_parse_zoneinfo(S(zoneinfo_small), &m), 0);
	ck_assert_uint_eq(m, 2621440);
	/* one zone */
	ck_assert_int_eq(proc_parse_zoneinfo(S("        spanned  4095\n  start_pfn:           1\n"),
					     &m), 0);
	ck_assert_uint_eq(m, 4096);
	/* no final newline */
	ck_assert_int_eq(proc_parse_zoneinfo(S("spanned 10\nstart_pfn: 5"), &m), 0);
	ck_assert_uint_eq(m, 15);
}
END_TEST

START_TEST(test_zoneinfo_garbage)
{
	uint64_t m = 1234;

	ck_assert_int_eq(proc_parse_zoneinfo(S(""), &m), -1);
	ck_assert_int_eq(proc_parse_zoneinfo(S("garbage\n\n\x01\xff"), &m), -1);
	ck_assert_int_eq(proc_parse_zoneinfo(S("Node 0, zone DMA\n  pages free 3\n"), &m), -1);
	/* spanned without a start, start without a spanned */
	ck_assert_int_eq(proc_parse_zoneinfo(S("        spanned  4095\n"), &m), -1);
	ck_assert_int_eq(proc_parse_zoneinfo(S("  start_pfn:           1\n"), &m), -1);
	ck_assert_int_eq(proc_parse_zoneinfo(S("spanned x\nstart_pfn: 1\n"), &m), -1);
	ck_assert_int_eq(proc_parse_zoneinfo(S("spanned 5\nstart_pfn: x\n"), &m), -1);
	ck_assert_uint_eq(m, 1234);
}
END_TEST

/* Expected max pfn of a zoneinfo text, computed with sscanf per line. */
static uint64_t zoneinfo_expect(const char *text)
{
	const char *p = text;
	unsigned long long sp = 0, st, best = 0;
	int have = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');

		if (sscanf(p, " spanned %llu", &sp) == 1)
			have = 1;
		else if (sscanf(p, " start_pfn: %llu", &st) == 1 && have) {
			if (st + sp > best)
				best = st + sp;
			have = 0;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return best;
}

START_TEST(test_zoneinfo_real)
{
	static char buf[1 << 20];
	uint64_t m = 0, want;
	ssize_t n;
	int fd = open("/proc/zoneinfo", O_RDONLY);
	size_t len = 0;

	if (fd < 0) {
		fprintf(stderr, "SKIP: test_zoneinfo_real: /proc/zoneinfo: %s\n", strerror(errno));
		return;
	}
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	want = zoneinfo_expect(buf);
	ck_assert_uint_gt(want, 0);
	ck_assert_int_eq(proc_parse_zoneinfo(buf, len, &m), 0);
	ck_assert_uint_eq(m, want);
	ck_assert_uint_eq(proc_max_pfn("/proc"), want);
	/* the sanity check the hand-written one gets, on this machine's layout */
	ck_assert_uint_eq(zoneinfo_expect(zoneinfo_small), 2621440);
}
END_TEST

START_TEST(test_max_pfn_fake_root)
{
	ck_assert_uint_eq(proc_max_pfn(test_root), 0);		/* no zoneinfo */
	mkfile_s("zoneinfo", "garbage\n");
	ck_assert_uint_eq(proc_max_pfn(test_root), 0);
	test_root_file("zoneinfo", S(zoneinfo_small));
	ck_assert_uint_eq(proc_max_pfn(test_root), 2621440);
}
END_TEST

/* ---- kallsyms ---- */

static void feed(struct ksym_range *r, const char *text)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		ksym_range_line(r, p, len);
		p += len + (nl ? 1 : 0);
	}
}

START_TEST(test_ksym_fixture)
{
	struct ksym_range r;
	size_t len;
	char *text = read_fixture("debian-6.1/kallsyms.txt", &len);

	ksym_range_init(&r, "do_init_module");
	feed(&r, text);
	ck_assert(r.found);
	ck_assert(!r.zero_addrs);
	ck_assert_uint_eq(r.start, 0xffffffff91b39f60ull);
	ck_assert_uint_eq(r.end, 0xffffffff91b3a150ull);
	free(text);
}
END_TEST

/* The layout of a real /proc/kallsyms: per-cpu symbols at small addresses, then text. */
static const char kallsyms_sorted[] =
	"0000000000000000 A fixed_percpu_data\n"
	"0000000000001000 A cpu_debug_store\n"
	"0000000000002000 A irq_stack_backing_store\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff91b39e00 t free_module\n"
	"ffffffff91b39f60 t do_init_module\n"
	"ffffffff91b39f60 t do_init_module_alias\n"
	"ffffffff91b3a150 W arch_mod_section_prepend\n"
	"ffffffff91b3a200 t load_module\n"
	"ffffffffc0000000 t virtio_pci_probe\t[virtio_pci]\n"
	"ffffffffc0000100 t do_init_module\t[fake]\n";

START_TEST(test_ksym_sorted)
{
	struct ksym_range r;

	ksym_range_init(&r, "do_init_module");
	feed(&r, kallsyms_sorted);
	ck_assert(r.found);
	ck_assert(!r.zero_addrs);
	ck_assert_uint_eq(r.start, 0xffffffff91b39f60ull);
	ck_assert_uint_eq(r.end, 0xffffffff91b3a150ull);
}
END_TEST

START_TEST(test_ksym_unsorted_after)
{
	struct ksym_range r;

	/* the symbol first, then higher addresses in no order */
	ksym_range_init(&r, "do_init_module");
	feed(&r, "ffffffff91b39f60 t do_init_module\n"
		 "ffffffffc0001000 t mod_fn\t[m]\n"
		 "ffffffff91b3a200 t load_module\n"
		 "ffffffff81000000 T _text\n"
		 "ffffffff91b3a150 W arch_mod_section_prepend\n"
		 "ffffffff91b3a900 t later\n");
	ck_assert(r.found);
	ck_assert_uint_eq(r.start, 0xffffffff91b39f60ull);
	ck_assert_uint_eq(r.end, 0xffffffff91b3a150ull);
}
END_TEST

START_TEST(test_ksym_unsorted_before)
{
	struct ksym_range r;
	static const char text[] =
		"ffffffff91b3a200 t load_module\n"
		"ffffffff91b3a150 W arch_mod_section_prepend\n"
		"ffffffff81000000 T _text\n"
		"ffffffff91b39f60 t do_init_module\n"
		"ffffffffc0001000 t mod_fn\t[m]\n";

	/* the next symbol listed before: one pass cannot know it yet ... */
	ksym_range_init(&r, "do_init_module");
	feed(&r, text);
	ck_assert(r.found);
	ck_assert_uint_eq(r.start, 0xffffffff91b39f60ull);
	ck_assert(r.end == 0 || r.end > r.start);
	/* ... a second pass over the same lines finds it */
	feed(&r, text);
	ck_assert(r.found);
	ck_assert_uint_eq(r.start, 0xffffffff91b39f60ull);
	ck_assert_uint_eq(r.end, 0xffffffff91b3a150ull);
}
END_TEST

START_TEST(test_ksym_zero_addrs)
{
	struct ksym_range r;

	ksym_range_init(&r, "do_init_module");
	ck_assert(r.zero_addrs);
	feed(&r, "0000000000000000 A fixed_percpu_data\n"
		 "0000000000000000 T _text\n"
		 "0000000000000000 t do_init_module\n"
		 "0000000000000000 W arch_mod_section_prepend\n");
	ck_assert(!r.found);
	ck_assert(r.zero_addrs);
}
END_TEST

START_TEST(test_ksym_edge_lines)
{
	struct ksym_range r;

	ksym_range_init(&r, "do_init_module");
	feed(&r, "\n"
		 "garbage line\n"
		 "zzzz t do_init_module\n"
		 "ffffffff91000000 t do_init_module_x\n"
		 "ffffffff91000010 t xdo_init_module\n"
		 "ffffffff91000020 t do_init_modul\n"
		 "FFFFFFFF91000100 T do_init_module\n"
		 "ffffffff91000100 t alias_same_addr\n"
		 "ffffffff91000180 t do_init_module\n"
		 "ffffffff91000200 T next_one");
	ck_assert(r.found);
	ck_assert(!r.zero_addrs);
	ck_assert_uint_eq(r.start, 0xffffffff91000100ull);
	/* a second do_init_module is just another symbol above the start */
	ck_assert_uint_eq(r.end, 0xffffffff91000180ull);
	/* not there at all */
	ksym_range_init(&r, "do_init_module");
	feed(&r, "ffffffff81000000 T _text\nffffffff81000010 T other\n");
	ck_assert(!r.found);
	ck_assert(!r.zero_addrs);
	/* found but nothing after it */
	ksym_range_init(&r, "do_init_module");
	feed(&r, "ffffffff81000000 T _text\nffffffff91000100 t do_init_module\n");
	ck_assert(r.found);
	ck_assert_uint_eq(r.end, 0);
}
END_TEST

START_TEST(test_initmod_range_files)
{
	uint64_t s = 1, e = 2;
	size_t len;
	char *text;

	ck_assert_int_eq(proc_initmod_range(test_root, &s, &e), -ENOENT);	/* no kallsyms */
	test_root_file("kallsyms", S(kallsyms_sorted));
	ck_assert_int_eq(proc_initmod_range(test_root, &s, &e), 0);
	ck_assert_uint_eq(s, 0xffffffff91b39f60ull);
	ck_assert_uint_eq(e, 0xffffffff91b3a150ull);
	text = read_fixture("debian-6.1/kallsyms.txt", &len);
	test_root_file("kallsyms", text, len);
	free(text);
	s = e = 0;
	ck_assert_int_eq(proc_initmod_range(test_root, &s, &e), 0);
	ck_assert_uint_eq(s, 0xffffffff91b39f60ull);
	ck_assert_uint_eq(e, 0xffffffff91b3a150ull);
	s = e = 7;
	mkfile_s("kallsyms", "0000000000000000 t do_init_module\n0000000000000000 T x\n");
	ck_assert_int_eq(proc_initmod_range(test_root, &s, &e), -ENOENT);
	ck_assert_uint_eq(s, 7);
	mkfile_s("kallsyms", "ffffffff91000100 t do_init_module\n");
	ck_assert_int_eq(proc_initmod_range(test_root, &s, &e), -ENOENT);	/* no end */
}
END_TEST

/* A kallsyms far larger than the read buffer, the symbol near the end. */
START_TEST(test_initmod_range_big)
{
	char *text = malloc(200000 * 40), *p = text;
	uint64_t s = 0, e = 0;
	int i;

	for (i = 0; i < 200000; i++) {
		if (i == 150000)
			p += sprintf(p, "%016llx t do_init_module\n", 0xffffffff81000000ull + 16ull * i);
		else
			p += sprintf(p, "%016llx t sym_%d\n", 0xffffffff81000000ull + 16ull * i, i);
	}
	test_root_file("kallsyms", text, (size_t)(p - text));
	free(text);
	ck_assert_int_eq(proc_initmod_range(test_root, &s, &e), 0);
	ck_assert_uint_eq(s, 0xffffffff81000000ull + 16ull * 150000);
	ck_assert_uint_eq(e, 0xffffffff81000000ull + 16ull * 150001);
}
END_TEST

/* This machine's kallsyms, if it shows addresses: a small range, start before end. */
START_TEST(test_initmod_range_real)
{
	uint64_t s = 0, e = 0;
	int r = proc_initmod_range("/proc", &s, &e);

	if (r) {
		fprintf(stderr, "SKIP: test_initmod_range_real: no do_init_module in /proc/kallsyms (kernel without modules): %s\n", strerror(-r));
		return;
	}
	ck_assert_uint_gt(s, 0);
	ck_assert_uint_gt(e, s);
	ck_assert_uint_lt(e - s, 1 << 20);
}
END_TEST

/*
 * This machine's kallsyms (addresses shown to root unless kptr_restrict=2):
 * the range of "schedule" must match a brute-force two-pass scan.
 */
/* A line of /proc/kallsyms at @p: its address, and its name (@nlen bytes at *@name). */
static bool kallsyms_line(const char *p, unsigned long long *a, const char **name, size_t *nlen)
{
	char *e;

	*a = strtoull(p, &e, 16);
	if (e == p || e[0] != ' ' || !e[1] || e[2] != ' ')
		return false;
	*name = e + 3;
	*nlen = strcspn(*name, " \t\n");
	return true;
}

START_TEST(test_ksym_real)
{
	static char buf[64 << 20];
	unsigned long long a, start = 0, end = 0;
	struct ksym_range r;
	size_t len = 0, nlen;
	ssize_t n;
	const char *p, *nm;
	int fd = open("/proc/kallsyms", O_RDONLY);

	if (fd < 0) {
		fprintf(stderr, "SKIP: test_ksym_real: /proc/kallsyms: %s\n", strerror(errno));
		return;
	}
	/*
	 * 64 KiB a read, not all the room left: /proc/kallsyms gives a page a read, and
	 * valgrind checks the whole range asked for on each (minutes for 64 MiB)
	 */
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len < 65536 ?
				  sizeof(buf) - 1 - len : 65536)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	/* one line at a time: "ADDRESS TYPE NAME[\t[MODULE]]" (strtoull: quick under valgrind) */
	for (p = buf; *p; p = strchr(p, '\n') + 1) {
		if (kallsyms_line(p, &a, &nm, &nlen) && a && nlen == 8 &&
		    !memcmp(nm, "schedule", 8) && !start)
			start = a;
		if (!strchr(p, '\n'))
			break;
	}
	if (!start) {
		fprintf(stderr, "SKIP: test_ksym_real: no address for schedule\n");
		return;
	}
	for (p = buf; *p; p = strchr(p, '\n') + 1) {
		if (kallsyms_line(p, &a, &nm, &nlen) && a > start && (!end || a < end))
			end = a;
		if (!strchr(p, '\n'))
			break;
	}
	ksym_range_init(&r, "schedule");
	feed(&r, buf);
	ck_assert(r.found);
	ck_assert(!r.zero_addrs);
	ck_assert_uint_eq(r.start, start);
	ck_assert_uint_eq(r.end, end);
	ck_assert_uint_gt(r.end, r.start);
}
END_TEST

/* ---- /proc/modules lines ---- */

/* 55 and 56 characters: the longest name the kernel allows (MODULE_NAME_LEN 56), one more */
#define NAME55	"m234567890123456789012345678901234567890123456789012345"
#define NAME56	NAME55 "6"

static int modline(const char *line, struct proc_module *pm)
{
	return proc_parse_module_line(line, strlen(line), pm);
}

static bool pm_name_is(const struct proc_module *pm, const char *name)
{
	return pm->name_len == strlen(name) && !memcmp(pm->name, name, pm->name_len);
}

/* Lines as the Debian 6.1 guest printed them (tests/fixtures/debian-6.1/proc_modules*.txt). */
START_TEST(test_module_line_real)
{
	static const char l1[] = "crc32_pclmul 16384 0 - Live 0xffffffffc0527000";
	static const char l2[] = "virtio_ring 49152 2 virtio_pci,virtio, Live 0xffffffffc04ff000";
	static const char l3[] =
		"virtio_pci_legacy_dev 16384 1 virtio_pci, Live 0xffffffffc04f7000\n";
	struct proc_module pm;

	ck_assert_int_eq(modline(l1, &pm), 0);
	ck_assert(pm_name_is(&pm, "crc32_pclmul"));
	ck_assert_ptr_eq(pm.name, l1);			/* points into the line */
	ck_assert_uint_eq(pm.size, 16384);
	ck_assert(!pm.loading);
	ck_assert_int_eq(modline(l2, &pm), 0);
	ck_assert(pm_name_is(&pm, "virtio_ring"));
	ck_assert_uint_eq(pm.size, 49152);
	ck_assert(!pm.loading);
	/* with its newline */
	ck_assert_int_eq(modline(l3, &pm), 0);
	ck_assert(pm_name_is(&pm, "virtio_pci_legacy_dev"));
	ck_assert_uint_eq(pm.size, 16384);
	ck_assert(!pm.loading);
	ck_assert_int_eq(modline("virtio 20480 1 virtio_pci, Live 0xffffffffc0511000", &pm), 0);
	ck_assert(pm_name_is(&pm, "virtio"));
	ck_assert_uint_eq(pm.size, 20480);
}
END_TEST

START_TEST(test_module_line_states)
{
	struct proc_module pm;

	/* a load in progress (MODULE_STATE_COMING) */
	ck_assert_int_eq(modline("virtio_pci 24576 1 - Loading 0xffffffffc051b000", &pm), 0);
	ck_assert(pm_name_is(&pm, "virtio_pci"));
	ck_assert_uint_eq(pm.size, 24576);
	ck_assert(pm.loading);
	ck_assert_int_eq(modline("crc32_pclmul 16384 0 - Unloading 0xffffffffc0527000", &pm), 0);
	ck_assert(pm_name_is(&pm, "crc32_pclmul"));
	ck_assert(!pm.loading);
	/* only the whole word "Loading" */
	ck_assert_int_eq(modline("crc32_pclmul 16384 0 - Loadingx 0xffffffffc0527000", &pm), 0);
	ck_assert(!pm.loading);
	ck_assert_int_eq(modline("crc32_pclmul 16384 0 - loading 0xffffffffc0527000", &pm), 0);
	ck_assert(!pm.loading);
	/* taints after the address */
	ck_assert_int_eq(modline("nvidia 56012800 120 nvidia_modeset, Live 0xffffffffc1a00000 "
				 "(POE)", &pm), 0);
	ck_assert(pm_name_is(&pm, "nvidia"));
	ck_assert_uint_eq(pm.size, 56012800);
	ck_assert(!pm.loading);
	ck_assert_int_eq(modline("zfs 5890048 6 - Loading 0xffffffffc0800000 (POE)", &pm), 0);
	ck_assert_uint_eq(pm.size, 5890048);
	ck_assert(pm.loading);
	/* a module without an exit function; addresses hidden by kptr_restrict */
	ck_assert_int_eq(modline("binfmt_misc 28672 1 [permanent], Live 0x0000000000000000", &pm),
			 0);
	ck_assert(pm_name_is(&pm, "binfmt_misc"));
	ck_assert_uint_eq(pm.size, 28672);
	/* sizes: zero, above 4 GiB */
	ck_assert_int_eq(modline("tiny 0 0 - Live 0xffffffffc0000000", &pm), 0);
	ck_assert_uint_eq(pm.size, 0);
	ck_assert_int_eq(modline("huge 4294971392 0 - Live 0xffffffffc0000000", &pm), 0);
	ck_assert_uint_eq(pm.size, 4294971392ull);
	/* '-' is allowed in a name; the longest name */
	ck_assert_int_eq(modline("snd-hda 4096 0 - Live 0xffffffffc0000000", &pm), 0);
	ck_assert(pm_name_is(&pm, "snd-hda"));
	ck_assert_uint_eq(strlen(NAME55), 55);
	ck_assert_int_eq(modline(NAME55 " 8192 0 - Live 0xffffffffc0000000", &pm), 0);
	ck_assert_uint_eq(pm.name_len, 55);
	ck_assert_uint_eq(pm.size, 8192);
}
END_TEST

START_TEST(test_module_line_malformed)
{
	static const char *const bad[] = {
		"",
		"\n",
		" ",
		"crc32_pclmul",
		"crc32_pclmul ",
		"crc32_pclmul\n16384 0 - Live 0xffffffffc0527000",
		" crc32_pclmul 16384 0 - Live 0xffffffffc0527000",		/* empty name */
		/* name characters */
		"crc32.pclmul 16384 0 - Live 0xffffffffc0527000",
		"crc32/pclmul 16384 0 - Live 0xffffffffc0527000",
		"caf\xc3\xa9 16384 0 - Live 0xffffffffc0527000",
		"esc\x1b[2J 16384 0 - Live 0xffffffffc0527000",
		"tab\tname 16384 0 - Live 0xffffffffc0527000",
		"[crc32] 16384 0 - Live 0xffffffffc0527000",
		/* 56 characters: longer than the kernel allows */
		NAME56 " 16384 0 - Live 0xffffffffc0527000",
		/* size */
		"crc32_pclmul abc 0 - Live 0xffffffffc0527000",
		"crc32_pclmul -16384 0 - Live 0xffffffffc0527000",
		"crc32_pclmul 16k 0 - Live 0xffffffffc0527000",
		"crc32_pclmul 0x4000 0 - Live 0xffffffffc0527000",
		"crc32_pclmul 99999999999999999999 0 - Live 0xffffffffc0527000",
		"crc32_pclmul - 0 - Live 0xffffffffc0527000",
		/* refcount */
		"crc32_pclmul 16384 x - Live 0xffffffffc0527000",
		/* fields missing up to the state */
		"crc32_pclmul 16384",
		"crc32_pclmul 16384 ",
		"crc32_pclmul 16384 0",
		"crc32_pclmul 16384 0 ",
		"crc32_pclmul 16384 0 -",
		"crc32_pclmul 16384 0 - ",
		"crc32_pclmul 16384 0 -\n",
		"garbage",
	};
	struct proc_module pm;
	size_t i;

	ck_assert_uint_eq(strlen(NAME56), 56);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(modline(bad[i], &pm) == -1, "accepted \"%s\"", bad[i]);
	/* the length bounds the parse, not a NUL: cut before the state, then after it */
	ck_assert_int_eq(proc_parse_module_line("virtio 20480 1 virtio_pci, Live 0x0", 26, &pm),
			 -1);
	ck_assert_int_eq(proc_parse_module_line("virtio 20480 1 virtio_pci, Live 0x0", 31, &pm),
			 0);
	ck_assert(pm_name_is(&pm, "virtio"));
	ck_assert_uint_eq(pm.size, 20480);
	/* cut inside the name */
	ck_assert_int_eq(proc_parse_module_line("virtio 20480 1 - Live 0x0", 4, &pm), -1);
}
END_TEST

/*
 * Kernels built without CONFIG_MODULE_UNLOAD print " - -" for refcount and
 * users (kernel/module/procfs.c, print_unload_info()): the lines are still
 * well formed.
 */
START_TEST(test_module_line_no_unload)
{
	struct proc_module pm;

	ck_assert_int_eq(modline("virtio_pci 24576 - - Live 0xffffffffc051b000", &pm), 0);
	ck_assert(pm_name_is(&pm, "virtio_pci"));
	ck_assert_uint_eq(pm.size, 24576);
	ck_assert(!pm.loading);
	ck_assert_int_eq(modline("virtio_pci 24576 - - Loading 0xffffffffc051b000", &pm), 0);
	ck_assert(pm.loading);
}
END_TEST

/*
 * While rmmod runs the module's exit function the kernel prints the refcount
 * as -1 (try_release_module_ref() left it at 0, module_refcount() subtracts
 * the initial reference): "crc32_pclmul 16384 -1 - Unloading 0x...".
 */
START_TEST(test_module_line_unloading)
{
	struct proc_module pm;

	ck_assert_int_eq(modline("crc32_pclmul 16384 -1 - Unloading 0xffffffffc0527000", &pm), 0);
	ck_assert(pm_name_is(&pm, "crc32_pclmul"));
	ck_assert_uint_eq(pm.size, 16384);
	ck_assert(!pm.loading);
	/* a minus sign alone is "-", the no-unload form; with a letter it is garbage */
	ck_assert_int_eq(modline("crc32_pclmul 16384 -x - Live 0x0", &pm), -1);
	ck_assert_int_eq(modline("crc32_pclmul 16384 --1 - Live 0x0", &pm), -1);
}
END_TEST

/* ---- comm and module sizes ---- */

START_TEST(test_read_comm)
{
	char buf[64];
	size_t len = 99;

	mkfile_s("100/comm", "leader\n");
	ck_assert_int_eq(proc_read_comm(test_root, 100, buf, sizeof(buf), &len), 0);
	ck_assert_str_eq(buf, "leader");
	ck_assert_uint_eq(len, 6);
	mkfile_s("101/comm", "no newline");
	ck_assert_int_eq(proc_read_comm(test_root, 101, buf, sizeof(buf), &len), 0);
	ck_assert_str_eq(buf, "no newline");
	ck_assert_uint_eq(len, 10);
	mkfile_s("102/comm", "abcdefghijklmno\n");
	ck_assert_int_eq(proc_read_comm(test_root, 102, buf, sizeof(buf), &len), 0);
	ck_assert_uint_eq(len, 15);
	ck_assert_str_eq(buf, "abcdefghijklmno");
	mkfile_s("103/comm", "");
	ck_assert_int_eq(proc_read_comm(test_root, 103, buf, sizeof(buf), &len), 0);
	ck_assert_uint_eq(len, 0);
	ck_assert_str_eq(buf, "");
	mkfile_s("104/comm", "a\x1b\xff\n");
	ck_assert_int_eq(proc_read_comm(test_root, 104, buf, sizeof(buf), &len), 0);
	ck_assert_uint_eq(len, 3);
	ck_assert(!memcmp(buf, "a\x1b\xff", 4));
	/* a small buffer: cut, still terminated */
	ck_assert_int_eq(proc_read_comm(test_root, 100, buf, 4, &len), 0);
	ck_assert_uint_eq(len, 3);
	ck_assert_str_eq(buf, "lea");
	ck_assert_int_eq(proc_read_comm(test_root, 999, buf, sizeof(buf), &len), -ENOENT);
}
END_TEST

START_TEST(test_read_comm_self)
{
	char buf[64], want[17] = { 0 };
	size_t len = 0;

	ck_assert_int_eq(prctl(PR_GET_NAME, want), 0);
	ck_assert_int_eq(proc_read_comm("/proc", getpid(), buf, sizeof(buf), &len), 0);
	ck_assert_str_eq(buf, want);
	ck_assert_uint_eq(len, strlen(want));
}
END_TEST

START_TEST(test_module_kib)
{
	uint64_t kib = 77;

	mkfile_s("module/virtio_pci/coresize", "40960\n");
	mkfile_s("module/virtio_pci/initsize", "0\n");
	ck_assert_int_eq(sys_module_kib(test_root, "virtio_pci", &kib), 0);
	ck_assert_uint_eq(kib, 40);
	/* 1000 + 25 bytes: rounded up to 2 KiB */
	mkfile_s("module/crc/coresize", "1000\n");
	mkfile_s("module/crc/initsize", "25\n");
	ck_assert_int_eq(sys_module_kib(test_root, "crc", &kib), 0);
	ck_assert_uint_eq(kib, 2);
	/* exactly 1 KiB: not rounded further */
	mkfile_s("module/one/coresize", "512\n");
	mkfile_s("module/one/initsize", "512\n");
	ck_assert_int_eq(sys_module_kib(test_root, "one", &kib), 0);
	ck_assert_uint_eq(kib, 1);
	/* 1 byte: 1 KiB */
	mkfile_s("module/tiny/coresize", "1");
	ck_assert_int_eq(sys_module_kib(test_root, "tiny", &kib), 0);
	ck_assert_uint_eq(kib, 1);
	/* only initsize */
	mkfile_s("module/init_only/initsize", "2049\n");
	ck_assert_int_eq(sys_module_kib(test_root, "init_only", &kib), 0);
	ck_assert_uint_eq(kib, 3);
	/* zero */
	mkfile_s("module/zero/coresize", "0\n");
	ck_assert_int_eq(sys_module_kib(test_root, "zero", &kib), 0);
	ck_assert_uint_eq(kib, 0);
	/* one file garbage: the other counts */
	mkfile_s("module/half/coresize", "garbage\n");
	mkfile_s("module/half/initsize", "4096\n");
	ck_assert_int_eq(sys_module_kib(test_root, "half", &kib), 0);
	ck_assert_uint_eq(kib, 4);
	/* missing or unreadable */
	kib = 77;
	ck_assert_int_eq(sys_module_kib(test_root, "absent", &kib), -ENOENT);
	mkdir_rel("module/builtin");
	ck_assert_int_eq(sys_module_kib(test_root, "builtin", &kib), -ENOENT);
	mkfile_s("module/junk/coresize", "x\n");
	mkfile_s("module/junk/initsize", "\n");
	ck_assert_int_eq(sys_module_kib(test_root, "junk", &kib), -ENOENT);
	ck_assert_uint_eq(kib, 77);
}
END_TEST

/* ---- proc_modules against a fake /proc ---- */

struct seen_mods {
	int n;
	struct {
		char name[MODNAME_LEN];
		uint64_t size;
		bool loading;
	} m[16];
};

static void collect_mod(void *ctx, const struct proc_module *pm)
{
	struct seen_mods *s = ctx;

	ck_assert_int_lt(s->n, 16);
	ck_assert_uint_gt(pm->name_len, 0);
	ck_assert_uint_lt(pm->name_len, MODNAME_LEN);
	memcpy(s->m[s->n].name, pm->name, pm->name_len);
	s->m[s->n].name[pm->name_len] = '\0';
	s->m[s->n].size = pm->size;
	s->m[s->n].loading = pm->loading;
	s->n++;
}

static void copy_fixture(const char *fixture, const char *rel)
{
	size_t len;
	char *text = read_fixture(fixture, &len);

	test_root_file(rel, text, len);
	free(text);
}

/* The real files; names and sizes as read in them by eye. */
START_TEST(test_proc_modules_fixture)
{
	static const struct { const char *name; uint64_t size; } before[] = {
		{ "crc32_pclmul", 16384 },
		{ "virtio_pci", 24576 },
		{ "virtio", 20480 },
		{ "virtio_ring", 49152 },
		{ "virtio_pci_legacy_dev", 16384 },
		{ "virtio_pci_modern_dev", 20480 },
	};
	struct seen_mods seen = { 0 };
	uint32_t bad = 0;
	int i;

	/* no modules file (a kernel without modules) */
	ck_assert_int_eq(proc_modules(test_root, collect_mod, &seen, &bad), -ENOENT);
	ck_assert_int_eq(seen.n, 0);
	ck_assert_uint_eq(bad, 0);

	copy_fixture("debian-6.1/proc_modules.before-rmmod.txt", "modules");
	ck_assert_int_eq(proc_modules(test_root, collect_mod, &seen, &bad), 6);
	ck_assert_uint_eq(bad, 0);
	ck_assert_int_eq(seen.n, 6);
	for (i = 0; i < 6; i++) {
		ck_assert_str_eq(seen.m[i].name, before[i].name);
		ck_assert_uint_eq(seen.m[i].size, before[i].size);
		ck_assert(!seen.m[i].loading);
	}

	/* after "rmmod crc32_pclmul": the other five, same order */
	memset(&seen, 0, sizeof(seen));
	copy_fixture("debian-6.1/proc_modules.txt", "modules");
	ck_assert_int_eq(proc_modules(test_root, collect_mod, &seen, &bad), 5);
	ck_assert_uint_eq(bad, 0);
	ck_assert_int_eq(seen.n, 5);
	for (i = 0; i < 5; i++) {
		ck_assert_str_eq(seen.m[i].name, before[i + 1].name);
		ck_assert_uint_eq(seen.m[i].size, before[i + 1].size);
		ck_assert(!seen.m[i].loading);
	}
}
END_TEST

START_TEST(test_proc_modules_mixed)
{
	/* 3 good lines (the last without a newline), 6 malformed, 3 empty */
	static const char text[] =
		"crc32_pclmul 16384 0 - Live 0xffffffffc0527000\n"
		"\n"
		"garbage\n"
		"virtio.pci 24576 0 - Live 0xffffffffc051b000\n"		/* name */
		"virtio_pci 24576 1 - Loading 0xffffffffc051b000\n"	/* good, loading */
		"virtio 20480\n"					/* no state */
		"virtio_ring abc 2 virtio_pci,virtio, Live 0xffffffffc04ff000\n"
		NAME56 " 4096 0 - Live 0xffffffffc04f7000\n"		/* too long */
		"nul\0 4096 0 - Live 0xffffffffc04f7000\n"		/* NUL in the name */
		"\n\n"
		"virtio_pci_modern_dev 20480 1 virtio_pci, Live 0xffffffffc04ee000";
	struct seen_mods seen = { 0 };
	uint32_t bad = 0;

	test_root_file("modules", S(text));
	ck_assert_int_eq(proc_modules(test_root, collect_mod, &seen, &bad), 3);
	ck_assert_uint_eq(bad, 6);
	ck_assert_int_eq(seen.n, 3);
	ck_assert_str_eq(seen.m[0].name, "crc32_pclmul");
	ck_assert_uint_eq(seen.m[0].size, 16384);
	ck_assert(!seen.m[0].loading);
	ck_assert_str_eq(seen.m[1].name, "virtio_pci");
	ck_assert_uint_eq(seen.m[1].size, 24576);
	ck_assert(seen.m[1].loading);
	ck_assert_str_eq(seen.m[2].name, "virtio_pci_modern_dev");
	ck_assert_uint_eq(seen.m[2].size, 20480);
	ck_assert(!seen.m[2].loading);
	/* one line, no newline at all */
	memset(&seen, 0, sizeof(seen));
	bad = 0;
	mkfile_s("modules", "virtio 20480 1 virtio_pci, Live 0xffffffffc0511000");
	ck_assert_int_eq(proc_modules(test_root, collect_mod, &seen, &bad), 1);
	ck_assert_uint_eq(bad, 0);
	ck_assert_str_eq(seen.m[0].name, "virtio");
	ck_assert_uint_eq(seen.m[0].size, 20480);
	/* the last line cut before its state: malformed, the others stay */
	memset(&seen, 0, sizeof(seen));
	mkfile_s("modules", "virtio 20480 1 virtio_pci, Live 0xffffffffc0511000\nvirtio_ring 49152 2");
	ck_assert_int_eq(proc_modules(test_root, collect_mod, &seen, &bad), 1);
	ck_assert_uint_eq(bad, 1);
	ck_assert_int_eq(seen.n, 1);
}
END_TEST

START_TEST(test_proc_modules_empty)
{
	struct seen_mods seen = { 0 };
	uint32_t bad = 0;
	char longroot[400], path[PATH_MAX];

	mkfile_s("modules", "");
	ck_assert_int_eq(proc_modules(test_root, collect_mod, &seen, &bad), 0);
	ck_assert_uint_eq(bad, 0);
	mkfile_s("modules", "\n\n\n");
	ck_assert_int_eq(proc_modules(test_root, collect_mod, &seen, &bad), 0);
	ck_assert_uint_eq(bad, 0);
	mkfile_s("modules", "garbage\nmore garbage");
	ck_assert_int_eq(proc_modules(test_root, collect_mod, &seen, &bad), 0);
	ck_assert_uint_eq(bad, 2);
	ck_assert_int_eq(seen.n, 0);
	/* not a file */
	bad = 0;
	snprintf(path, sizeof(path), "%s/modules", test_root);
	ck_assert_int_eq(unlink(path), 0);
	mkdir_rel("modules");
	ck_assert_int_lt(proc_modules(test_root, collect_mod, &seen, &bad), 0);
	ck_assert_int_eq(seen.n, 0);
	/* a root too long for the path buffer */
	memset(longroot, 'a', sizeof(longroot) - 1);
	longroot[0] = '/';
	longroot[sizeof(longroot) - 1] = '\0';
	ck_assert_int_eq(proc_modules(longroot, collect_mod, &seen, &bad), -ENAMETOOLONG);
	ck_assert_int_eq(seen.n, 0);
	ck_assert_uint_eq(bad, 0);
}
END_TEST

/* ---- seed_from_proc against a fake /proc ---- */

static uint64_t fake_clock;

static uint64_t fake_now(void)
{
	return fake_clock += 1000;
}

START_TEST(test_seed_fake_root)
{
	struct stats_config cfg = { .max_tasks = 64, .max_modules = 4 };
	struct seed_result res;
	struct stats st;
	struct mt_task *t;

	/* 100: a process with a second thread 103 */
	mkfile_s("100/task/100/stat", "100 (leader) S 1 100 100 0 -1 4194560 0 0\n");
	mkfile_s("100/task/100/comm", "leader\n");
	mkfile_s("100/task/103/stat", "103 (worker) S 1 100 100 0 -1 4194368 0 0\n");
	mkfile_s("100/task/103/comm", "worker\n");
	mkfile_s("100/statm", "1000 250 30 1 0 300 0\n");
	mkfile_s("100/comm", "leader\n");
	/* 2: a kernel thread, no statm at all */
	mkfile_s("2/task/2/stat", "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0\n");
	mkfile_s("2/task/2/comm", "kthreadd\n");
	/* 300: malformed stat */
	mkfile_s("300/task/300/stat", "garbage\n");
	mkfile_s("300/task/300/comm", "bad\n");
	mkfile_s("300/statm", "10 5 0 0 0 0 0\n");
	/* 400: ourselves */
	mkfile_s("400/task/400/stat", "400 (unit) R 1 400 400 0 -1 4194304 0\n");
	mkfile_s("400/task/400/comm", "unit\n");
	mkfile_s("400/statm", "1000 900 0 0 0 0 0\n");
	/* 500: vanished (no task directory) */
	mkdir_rel("500");
	/* 600: comm with a space and a ')' */
	mkfile_s("600/task/600/stat", "600 (my) prog) S 100 600 600 0 -1 4194304 0\n");
	mkfile_s("600/task/600/comm", "my) prog\n");
	mkfile_s("600/statm", "10 7 0 0 0 0 0\n");
	/* 700: statm missing for a user process */
	mkfile_s("700/task/700/stat", "700 (nostatm) S 1 700 700 0 -1 4194304 0\n");
	mkfile_s("700/task/700/comm", "nostatm\n");
	/* not pids */
	mkfile_s("self/stat", "x");
	mkfile_s("12abc/task/12/stat", "12 (x) S 1 12 12 0 -1 0 0\n");
	mkfile_s("meminfo", "MemTotal: 1 kB\n");

	ck_assert_int_eq(stats_init(&st, &cfg), 0);
	fake_clock = 0;
	ck_assert_int_eq(seed_from_proc(test_root, &st, fake_now, 400, 0, &res), 0);
	ck_assert_uint_eq(res.tasks, 4);		/* 100, 103, 2, 600 */
	ck_assert_uint_eq(res.skipped, 3);		/* 300, 500, 700 */
	ck_assert_uint_eq(res.pages, 257);		/* 250 + 7 */

	t = stats_find_task(&st, 100);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(t->tgid, 100);
	ck_assert_int_eq(t->ppid, 1);
	ck_assert_uint_eq(t->seed, 250);
	ck_assert_int_eq(t->cur, 250);
	ck_assert_int_eq(t->peak, 250);
	ck_assert_uint_eq(t->comm_len, 6);
	ck_assert(!memcmp(t->comm, "leader", 6));
	ck_assert(t->flags & TF_SEEDED);
	ck_assert(!(t->flags & TF_KTHREAD));
	ck_assert_uint_gt(t->seed_ts, 0);
	ck_assert_uint_eq(t->seed_ts % 1000, 0);

	t = stats_find_task(&st, 103);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(t->tgid, 100);
	ck_assert_uint_eq(t->seed, 0);
	ck_assert_int_eq(t->cur, 0);
	ck_assert(t->flags & TF_SEEDED);
	ck_assert(!memcmp(t->comm, "worker", 6));

	t = stats_find_task(&st, 2);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(t->ppid, 0);
	ck_assert_uint_eq(t->seed, 0);
	ck_assert(t->flags & TF_KTHREAD);
	ck_assert(!memcmp(t->comm, "kthreadd", 8));

	t = stats_find_task(&st, 600);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(t->ppid, 100);
	ck_assert_uint_eq(t->seed, 7);
	ck_assert_uint_eq(t->comm_len, 8);
	ck_assert(!memcmp(t->comm, "my) prog", 8));

	ck_assert_ptr_null(stats_find_task(&st, 300));
	ck_assert_ptr_null(stats_find_task(&st, 400));
	ck_assert_ptr_null(stats_find_task(&st, 500));
	ck_assert_ptr_null(stats_find_task(&st, 700));
	ck_assert_ptr_null(stats_find_task(&st, 12));
	stats_free(&st);
}
END_TEST

/* A kernel thread with a statm anyway gets no pages; a long comm is cut to 15 bytes. */
START_TEST(test_seed_kthread_statm)
{
	struct stats_config cfg = { .max_tasks = 16, .max_modules = 4 };
	struct seed_result res;
	struct stats st;
	struct mt_task *t;

	mkfile_s("9/task/9/stat", "9 (kworker/0:0H-events_highpri) I 2 0 0 0 -1 69238880 0\n");
	mkfile_s("9/task/9/comm", "kworker/0:0H-events_highpri\n");
	mkfile_s("9/statm", "0 0 0 0 0 0 0\n");
	ck_assert_int_eq(stats_init(&st, &cfg), 0);
	ck_assert_int_eq(seed_from_proc(test_root, &st, fake_now, 1, 0, &res), 0);
	ck_assert_uint_eq(res.tasks, 1);
	ck_assert_uint_eq(res.skipped, 0);
	ck_assert_uint_eq(res.pages, 0);
	t = stats_find_task(&st, 9);
	ck_assert_ptr_nonnull(t);
	ck_assert(t->flags & TF_KTHREAD);
	ck_assert_int_eq(t->ppid, 2);
	ck_assert_uint_eq(t->comm_len, 15);
	ck_assert(!memcmp(t->comm, "kworker/0:0H-ev", 15));
	stats_free(&st);
}
END_TEST

/* More tasks than slots: the rest are counted as skipped. */
START_TEST(test_seed_table_full)
{
	struct stats_config cfg = { .max_tasks = SLOT_FIRST + 2, .max_modules = 4 };
	struct seed_result res;
	struct stats st;
	char rel[64], text[128];
	int pid;

	for (pid = 10; pid < 15; pid++) {
		snprintf(rel, sizeof(rel), "%d/task/%d/stat", pid, pid);
		snprintf(text, sizeof(text), "%d (p) S 1 %d %d 0 -1 4194304 0\n", pid, pid, pid);
		mkfile_s(rel, text);
		snprintf(rel, sizeof(rel), "%d/task/%d/comm", pid, pid);
		mkfile_s(rel, "p\n");
		snprintf(rel, sizeof(rel), "%d/statm", pid);
		mkfile_s(rel, "9 3 0 0 0 0 0\n");
	}
	ck_assert_int_eq(stats_init(&st, &cfg), 0);
	ck_assert_int_eq(seed_from_proc(test_root, &st, fake_now, 1, 0, &res), 0);
	ck_assert_uint_eq(res.tasks, 2);
	ck_assert_uint_eq(res.skipped, 3);
	ck_assert_uint_eq(res.pages, 6);
	stats_free(&st);
}
END_TEST

START_TEST(test_seed_missing_root)
{
	struct stats_config cfg = { .max_tasks = 16, .max_modules = 4 };
	struct seed_result res;
	struct stats st;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/nonexistent", test_root);
	ck_assert_int_eq(stats_init(&st, &cfg), 0);
	ck_assert_int_eq(seed_from_proc(path, &st, fake_now, 1, 0, &res), -ENOENT);
	/* an empty root: nothing seeded */
	ck_assert_int_eq(seed_from_proc(test_root, &st, fake_now, 1, 0, &res), 0);
	ck_assert_uint_eq(res.tasks, 0);
	ck_assert_uint_eq(res.skipped, 0);
	ck_assert_uint_eq(res.pages, 0);
	stats_free(&st);
}
END_TEST

Suite *suite_proc(void)
{
	Suite *s = suite_create("proc");
	TCase *tc = tcase_create("parsers");

	tcase_add_test(tc, test_statm);
	tcase_add_test(tc, test_mem);
	tcase_add_test(tc, test_mem_reclaim);
	tcase_add_test(tc, test_zoneinfo_min);
	tcase_add_test(tc, test_iomem_ram);
	tcase_add_test(tc, test_kmsg_initrd);
	tcase_add_test(tc, test_stat_normal);
	tcase_add_test(tc, test_stat_kthread);
	tcase_add_test(tc, test_stat_comm);
	tcase_add_test(tc, test_stat_negative_tty);
	tcase_add_test(tc, test_stat_malformed);
	tcase_add_test(tc, test_zoneinfo_small);
	tcase_add_test(tc, test_zoneinfo_garbage);
	tcase_add_test(tc, test_zoneinfo_real);
	tcase_add_test(tc, test_ksym_fixture);
	tcase_add_test(tc, test_ksym_sorted);
	tcase_add_test(tc, test_ksym_unsorted_after);
	tcase_add_test(tc, test_ksym_unsorted_before);
	tcase_add_test(tc, test_ksym_zero_addrs);
	tcase_add_test(tc, test_ksym_edge_lines);
	tcase_add_test(tc, test_ksym_real);
	tcase_add_test(tc, test_initmod_range_real);
	tcase_add_test(tc, test_read_comm_self);
	tcase_add_test(tc, test_module_line_real);
	tcase_add_test(tc, test_module_line_states);
	tcase_add_test(tc, test_module_line_malformed);
	tcase_add_test(tc, test_module_line_no_unload);
	tcase_add_test(tc, test_module_line_unloading);
	suite_add_tcase(s, tc);

	tc = tcase_create("fake_roots");
	tcase_add_checked_fixture(tc, test_root_setup, test_root_teardown);
	tcase_add_test(tc, test_max_pfn_fake_root);
	tcase_add_test(tc, test_initmod_range_files);
	tcase_add_test(tc, test_initmod_range_big);
	tcase_add_test(tc, test_read_comm);
	tcase_add_test(tc, test_module_kib);
	tcase_add_test(tc, test_proc_modules_fixture);
	tcase_add_test(tc, test_proc_modules_mixed);
	tcase_add_test(tc, test_proc_modules_empty);
	tcase_add_test(tc, test_seed_fake_root);
	tcase_add_test(tc, test_seed_kthread_statm);
	tcase_add_test(tc, test_seed_table_full);
	tcase_add_test(tc, test_seed_missing_root);
	suite_add_tcase(s, tc);
	return s;
}
