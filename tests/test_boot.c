// SPDX-License-Identifier: GPL-2.0-only
/* test_boot.c - module events from the kernel's boot buffer (--boot-buffer) */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input/boot.h"
#include "kernel/format.h"
#include "input/record.h"
#include "output/report.h"
#include "module.h"
#include "stats.h"
#include "testutil.h"

#define FX "debian-6.1"

static struct mt_decoder dec;
static struct rb_layout lay;
static struct stats S;
static struct boot_buffer B;

/* the decoder as memtrace builds it: every known tracepoint the fixture has */
static void load_fixture_decoder(void)
{
	const struct mt_tracepoint *tp;
	static struct fmt_event fe;
	char rel[256], err[256];
	size_t len;
	char *text = read_fixture(FX "/events/header_page", &len);

	ck_assert_int_eq(fmt_parse_header_page(&lay, text, len, err, sizeof(err)), 0);
	free(text);
	decoder_init(&dec);
	for (tp = mt_tracepoints; tp->system; tp++) {
		char path[4096];

		snprintf(rel, sizeof(rel), FX "/events/%s/%s/format", tp->system, tp->name);
		snprintf(path, sizeof(path), "%s/%s", fixtures_dir, rel);
		if (access(path, R_OK))
			continue;
		text = read_fixture(rel, &len);
		snprintf(fe.system, sizeof(fe.system), "%s", tp->system);
		ck_assert_msg(fmt_parse_event(&fe, text, len, err, sizeof(err)) == 0, "%s: %s",
			      rel, err);
		ck_assert_msg(decoder_add(&dec, tp, &fe, err, sizeof(err)) == 0, "%s: %s", rel, err);
		free(text);
	}
}

static void setup(void)
{
	struct stats_config cfg = { .max_tasks = 64, .max_modules = 16, .max_pfn = 1 << 20 };

	ck_assert_int_eq(stats_init(&S, &cfg), 0);
	ck_assert_int_eq(boot_init(&B, 32), 0);
	load_fixture_decoder();
}

static void teardown(void)
{
	boot_free(&B);
	stats_free(&S);
}

static int open_cpu_file(int cpu)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/" FX "/per_cpu/cpu%d/trace_pipe_raw", fixtures_dir, cpu);
	fd = open(path, O_RDONLY);
	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	return fd;
}

/* feed one recorded per-CPU file through the reader, as --boot-buffer reads the kernel's */
static void feed_cpu(int cpu)
{
	int fd = open_cpu_file(cpu);

	ck_assert_int_eq(boot_read(&B, &lay, &dec, 1, &cpu, &fd, NULL, 0), 0);
	close(fd);
}

/* feed bytes as one CPU's buffer (whole sub-buffers, and what is left as a short read) */
static void feed_bytes(const void *buf, size_t len)
{
	FILE *f = tmpfile();
	int cpu = 0, fd;

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
	fflush(f);
	fd = fileno(f);
	lseek(fd, 0, SEEK_SET);
	ck_assert_int_eq(boot_read(&B, &lay, &dec, 1, &cpu, &fd, NULL, 0), 0);
	fclose(f);
}

static struct mt_module *mod_named(const char *name)
{
	return table_find_module(&S.tb, name, strlen(name));
}

/*
 * The fixture's trace.txt (the kernel's own rendering of the same buffer) has
 * 464 entries: 12 module_get and 77 mm_page_free_batched, which memtrace does
 * not decode, and 375 others; module_load of virtio_pci_modern_dev,
 * virtio_pci_legacy_dev, virtio_ring, virtio, virtio_pci by modprobe-91 and
 * crc32_pclmul by modprobe-93; module_free of crc32_pclmul by rmmod-96.
 */
START_TEST(test_boot_real_pages)
{
	static const struct { const char *name; int32_t loader; const char *state; } want[] = {
		{ "virtio_pci_modern_dev", 91, "live" }, { "virtio_pci_legacy_dev", 91, "live" },
		{ "virtio_ring", 91, "live" }, { "virtio", 91, "live" },
		{ "virtio_pci", 91, "live" }, { "crc32_pclmul", 93, "unloaded" },
	};
	uint32_t i;

	/* CPU 1 first: the order of the CPUs must not matter */
	feed_cpu(1);
	feed_cpu(0);
	ck_assert_uint_eq(B.pages, 5);
	ck_assert_uint_eq(B.records, 375);
	ck_assert_uint_eq(B.n, 7);
	ck_assert_uint_eq(B.lost + B.lost_unknown + B.bad + B.dropped, 0);
	ck_assert_uint_eq(boot_apply(&B, &S), 7);
	ck_assert_uint_eq(S.tb.nmods, 6);
	for (i = 0; i < 6; i++) {
		const struct mt_module *m = &S.tb.mods[i];

		ck_assert_str_eq(m->name, want[i].name);
		ck_assert_int_eq(m->loader_tid, want[i].loader);
		ck_assert_str_eq(module_state_name(m), want[i].state);
		ck_assert_int_eq(m->bracket, BR_BOOT);
		ck_assert_int_eq(m->peak, 0);
		ck_assert_int_eq(m->open, 0);
	}
	/* loads are in time order; the free came last (1.732580 s in trace.txt) */
	for (i = 1; i < 6; i++)
		ck_assert_uint_lt(S.tb.mods[i - 1].load_ts, S.tb.mods[i].load_ts);
	ck_assert_uint_gt(mod_named("crc32_pclmul")->free_ts, mod_named("virtio_pci")->load_ts);
	/* the text rounds to the nearest microsecond (ns2usecs adds 500) */
	ck_assert_uint_eq((mod_named("crc32_pclmul")->free_ts + 500) / 1000, 1732580);
	/* no bracket was opened: the loaders' later pages stay theirs */
	test_page_event(&S, EV_PAGE_ALLOC, 2000000000ull, 91, 0, 100, 0);
	ck_assert_int_eq(stats_find_task(&S, 91)->peak, 1);
	for (i = 0; i < 6; i++)
		ck_assert_int_eq(S.tb.mods[i].peak, 0);
}
END_TEST

/* after the boot buffer, /proc/modules adds only what it did not name */
START_TEST(test_boot_then_present)
{
	struct mt_module *m;

	feed_cpu(0);
	feed_cpu(1);
	boot_apply(&B, &S);
	m = module_present(&S.tb, "virtio", 6);
	ck_assert_ptr_eq(m, mod_named("virtio"));
	ck_assert_int_eq(m->bracket, BR_BOOT);
	ck_assert_uint_eq(S.tb.nmods, 6);
	/* unloaded at boot, loaded again later without a trace */
	m = module_present(&S.tb, "crc32_pclmul", 12);
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(module_state_name(m), "before");
	ck_assert_uint_eq(S.tb.nmods, 7);
}
END_TEST

START_TEST(test_boot_cap_counts_drops)
{
	boot_free(&B);
	ck_assert_int_eq(boot_init(&B, 3), 0);
	feed_cpu(0);
	feed_cpu(1);
	ck_assert_uint_eq(B.n, 3);
	ck_assert_uint_eq(B.dropped, 4);
	/* kept: rmmod's free (CPU 0) and the first two loads (CPU 1); the free names a
	 * module whose load was dropped, so only the two loads apply */
	ck_assert_uint_eq(boot_apply(&B, &S), 2);
	ck_assert_uint_eq(S.tb.nmods, 2);
}
END_TEST

START_TEST(test_boot_module_table_full)
{
	struct stats_config cfg = { .max_tasks = 64, .max_modules = 2, .max_pfn = 1 << 20 };

	stats_free(&S);
	ck_assert_int_eq(stats_init(&S, &cfg), 0);
	feed_cpu(0);
	feed_cpu(1);
	/* 2 loads fit, 4 do not; the free names a module that has no entry */
	ck_assert_uint_eq(boot_apply(&B, &S), 2);
	ck_assert_uint_eq(S.tb.nmods, 2);
	ck_assert_uint_eq(S.tb.c.module_overflow, 4);
}
END_TEST

/* garbage pages are counted, never crash, and add nothing */
START_TEST(test_boot_bad_pages)
{
	uint32_t sub = rb_subbuf_size(&lay);
	uint8_t *page = calloc(1, sub);
	uint32_t i;

	ck_assert_ptr_nonnull(page);
	feed_bytes(page, 3);				/* shorter than the header */
	ck_assert_uint_eq(B.bad, 1);
	memset(page, 0xff, sub);			/* commit size far past the page */
	feed_bytes(page, sub);
	ck_assert_uint_eq(B.bad, 2);
	/* random pages: their commit sizes are garbage, so nearly all are rejected */
	srand(7);
	for (i = 0; i < 200; i++) {
		uint32_t k;

		for (k = 0; k < sub; k++)
			page[k] = (uint8_t)rand();
		feed_bytes(page, sub);
	}
	ck_assert_uint_ge(B.bad, 2 + 190);
	ck_assert_uint_le(B.n, B.cap);
	/* whatever was kept is a terminated name no longer than the table allows */
	for (i = 0; i < B.n; i++)
		ck_assert_uint_lt(strnlen(B.ev[i].name, MODNAME_LEN), MODNAME_LEN);
	boot_apply(&B, &S);
	ck_assert_uint_le(S.tb.nmods, B.n);
	for (i = 0; i < S.tb.nmods; i++)
		ck_assert_int_eq(S.tb.mods[i].bracket, BR_BOOT);
	/* then the real pages still decode exactly as without the garbage */
	feed_cpu(0);
	feed_cpu(1);
	ck_assert_uint_ge(B.records, 375);
	free(page);
}
END_TEST

/* events of several CPUs are applied in time order, not in the order read */
START_TEST(test_boot_time_order)
{
	struct boot_mod_event *e = B.ev;

	e[0] = (struct boot_mod_event){ .ts = 30, .tid = 5, .kind = EV_MOD_LOAD, .name = "m" };
	e[1] = (struct boot_mod_event){ .ts = 20, .tid = 4, .kind = EV_MOD_FREE, .name = "m" };
	e[2] = (struct boot_mod_event){ .ts = 10, .tid = 3, .kind = EV_MOD_LOAD, .name = "m" };
	B.n = 3;
	ck_assert_uint_eq(boot_apply(&B, &S), 3);
	ck_assert_uint_eq(S.tb.nmods, 2);
	ck_assert_int_eq(S.tb.mods[0].loader_tid, 3);
	ck_assert_str_eq(module_state_name(&S.tb.mods[0]), "unloaded");
	ck_assert_uint_eq(S.tb.mods[0].free_ts, 20);
	ck_assert_int_eq(S.tb.mods[1].loader_tid, 5);
	ck_assert_str_eq(module_state_name(&S.tb.mods[1]), "live");
}
END_TEST

/* what a recording keeps of the boot buffer comes back in a replay */
START_TEST(test_boot_meta_round_trip)
{
	static struct stats S2;
	struct stats_config cfg = { .max_tasks = 64, .max_modules = 16, .max_pfn = 1 << 20 };
	struct meta m = { .page_size = 4096, .max_pfn = 1 << 20 }, m2 = { 0 };
	char dir[] = "/tmp/memtrace-boot-XXXXXX", path[64], cmd[96];
	static const char bad_lines[] = "module_boot x -1 2 3\nmodule_boot y\n";
	uint32_t bad = 0, i;
	size_t len;
	char *text;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	feed_cpu(0);
	feed_cpu(1);
	boot_apply(&B, &S);
	m.boot_used = true;
	m.boot = B;
	ck_assert_int_eq(record_write_meta(&(struct recorder)RECORDER_NONE, dir, &m, NULL, &S), 0);
	snprintf(path, sizeof(path), "%s/" META_FILE, dir);
	text = read_path(path, &len);
	ck_assert_ptr_nonnull(strstr(text, "boot_buffer 5 375 7 0 0 0 0 0\n"));
	ck_assert_ptr_nonnull(strstr(text, "module_boot crc32_pclmul 93 "));

	ck_assert_int_eq(stats_init(&S2, &cfg), 0);
	meta_parse_boot(text, len, &S2, &bad);
	meta_parse(text, len, &m2, NULL, &S2, &bad);
	ck_assert_uint_eq(bad, 0);
	ck_assert(m2.boot_used);
	ck_assert_uint_eq(m2.boot.records, 375);
	ck_assert_uint_eq(m2.boot.applied, 7);
	ck_assert_uint_eq(S2.tb.nmods, S.tb.nmods);
	for (i = 0; i < S.tb.nmods; i++) {
		ck_assert_str_eq(S2.tb.mods[i].name, S.tb.mods[i].name);
		ck_assert_int_eq(S2.tb.mods[i].loader_tid, S.tb.mods[i].loader_tid);
		ck_assert_int_eq(S2.tb.mods[i].state, S.tb.mods[i].state);
		ck_assert_int_eq(S2.tb.mods[i].bracket, BR_BOOT);
		ck_assert_uint_eq(S2.tb.mods[i].load_ts, S.tb.mods[i].load_ts);
		ck_assert_uint_eq(S2.tb.mods[i].free_ts, S.tb.mods[i].free_ts);
	}
	/* malformed module_boot lines are counted (a negative tid, missing fields) */
	meta_parse_boot(bad_lines, strlen(bad_lines), &S2, &bad);
	ck_assert_uint_eq(bad, 2);
	ck_assert_uint_eq(S2.tb.nmods, S.tb.nmods);
	free(text);
	stats_free(&S2);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* both CPUs through one reader, as live: merged by time stamp, nothing cut short */
START_TEST(test_boot_read_merged)
{
	int cpus[2] = { 0, 1 }, fds[2] = { open_cpu_file(0), open_cpu_file(1) };
	uint32_t i;

	ck_assert_int_eq(boot_read(&B, &lay, &dec, 2, cpus, fds, NULL, 0), 0);
	ck_assert_uint_eq(B.pages, 5);
	ck_assert_uint_eq(B.records, 375);
	ck_assert_uint_eq(B.n, 7);
	ck_assert_uint_eq(B.truncated, 0);
	for (i = 1; i < B.n; i++)
		ck_assert_uint_le(B.ev[i - 1].ts, B.ev[i].ts);
	ck_assert_uint_eq(boot_apply(&B, &S), 7);
	close(fds[0]);
	close(fds[1]);
}
END_TEST

/* a page limit stops one CPU, a deadline in the past stops every CPU: both counted */
START_TEST(test_boot_read_limits)
{
	int cpus[2] = { 0, 1 }, fds[2] = { open_cpu_file(0), open_cpu_file(1) };
	uint64_t max_pages[2] = { 1, 0 };

	ck_assert_int_eq(boot_read(&B, &lay, &dec, 2, cpus, fds, max_pages, 0), 0);
	ck_assert_uint_eq(B.truncated, 1);
	ck_assert_uint_lt(B.pages, 5);
	ck_assert_uint_gt(B.pages, 1);
	close(fds[0]);
	close(fds[1]);
	boot_free(&B);
	ck_assert_int_eq(boot_init(&B, 32), 0);
	fds[0] = open_cpu_file(0);
	fds[1] = open_cpu_file(1);
	ck_assert_int_eq(boot_read(&B, &lay, &dec, 2, cpus, fds, NULL, 1), 0);
	ck_assert_uint_eq(B.truncated, 2);
	ck_assert_uint_eq(B.pages, 0);
	ck_assert_uint_eq(B.n, 0);
	close(fds[0]);
	close(fds[1]);
}
END_TEST

Suite *suite_boot(void)
{
	Suite *s = suite_create("boot");
	TCase *tc = tcase_create("boot");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_boot_real_pages);
	tcase_add_test(tc, test_boot_then_present);
	tcase_add_test(tc, test_boot_cap_counts_drops);
	tcase_add_test(tc, test_boot_module_table_full);
	tcase_add_test(tc, test_boot_bad_pages);
	tcase_add_test(tc, test_boot_time_order);
	tcase_add_test(tc, test_boot_meta_round_trip);
	tcase_add_test(tc, test_boot_read_merged);
	tcase_add_test(tc, test_boot_read_limits);
	suite_add_tcase(s, tc);
	return s;
}
