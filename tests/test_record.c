// SPDX-License-Identifier: GPL-2.0-only
/* test_record.c - memtrace.seed and memtrace.meta: exact writes, round trips, malformed input */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/record.h"
#include "kernel/reader.h"
#include "module.h"
#include "stats.h"
#include "testutil.h"
#include "lib/util.h"

static char dir[PATH_MAX / 2];

static void dir_setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/memtrace-record-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void dir_teardown(void)
{
	char cmd[PATH_MAX];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (dir[0] && system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
}

static char *slurp(const char *name, size_t *len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return read_path(path, len);
}

static void new_stats(struct stats *st, uint32_t max_tasks)
{
	struct stats_config cfg = { .max_tasks = max_tasks, .max_modules = 8, .max_pfn = 1024 };

	ck_assert_int_eq(stats_init(st, &cfg), 0);
}

/* ---- seed ---- */

struct seed_case {
	int32_t tid, tgid, ppid;
	const char *comm;
	size_t comm_len;
	uint64_t pages, ts;
	bool kthread;
};

#define C(s)	s, sizeof(s) - 1
static const struct seed_case seeds[] = {
	{ 100, 100, 1, C("bash"), 250, 1000, false },
	{ 101, 100, 1, C("with space"), 0, 1001, false },
	{ 2, 2, 0, C("kthreadd"), 0, 5, true },
	{ 7, 7, 1, C("a\nb\xff\x1b"), 3, 18446744073709551615ull, false },
	{ 8, 8, 1, C(""), 0, 0, false },
	{ 9, 9, 1, C("abcdefghijklmno"), 1099511627776ull, 42, false },
	{ 10, 10, 9, C("\xe6\x97\xa5 -\\"), 12, 43, false },
};
#undef C
#define NSEEDS	(sizeof(seeds) / sizeof(seeds[0]))

static void seed_all(struct stats *st)
{
	size_t i;

	for (i = 0; i < NSEEDS; i++)
		ck_assert_ptr_nonnull(stats_seed_task(st, seeds[i].tid, seeds[i].tgid, seeds[i].ppid,
						      seeds[i].comm, seeds[i].comm_len,
						      seeds[i].pages, seeds[i].ts,
						      seeds[i].kthread));
}

START_TEST(test_seed_write_exact)
{
	static const char want[] =
		"seed 100 100 1 0 250 1000 62617368\n"
		"seed 101 100 1 0 0 1001 77697468207370616365\n"
		"seed 2 2 0 1 0 5 6b74687265616464\n"
		"seed 7 7 1 0 3 18446744073709551615 610a62ff1b\n"
		"seed 8 8 1 0 0 0 -\n"
		"seed 9 9 1 0 1099511627776 42 6162636465666768696a6b6c6d6e6f\n"
		"seed 10 10 9 0 12 43 e697a5202d5c\n";
	struct mt_event ev = { .kind = EV_PAGE_ALLOC, .tid = 555, .ts = 2000 };
	struct stats st;
	struct stat sb;
	char path[PATH_MAX], *got;
	size_t len;

	new_stats(&st, 32);
	seed_all(&st);
	/* a task seen only in events is not a seed */
	ev.u.page.pfn = 3;
	stats_apply(&st, &ev);
	ck_assert_ptr_nonnull(stats_find_task(&st, 555));
	ck_assert_int_eq(record_write_seed(&(struct recorder)RECORDER_NONE, dir, &st), 0);
	got = slurp(SEED_FILE, &len);
	ck_assert_uint_eq(len, sizeof(want) - 1);
	ck_assert_str_eq(got, want);
	free(got);
	snprintf(path, sizeof(path), "%s/%s", dir, SEED_FILE);
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_uint_eq(sb.st_mode & 0777, 0644);
	/* written again: replaced, not appended */
	ck_assert_int_eq(record_write_seed(&(struct recorder)RECORDER_NONE, dir, &st), 0);
	got = slurp(SEED_FILE, &len);
	ck_assert_uint_eq(len, sizeof(want) - 1);
	free(got);
	stats_free(&st);
}
END_TEST

START_TEST(test_seed_round_trip)
{
	struct stats a, b;
	uint32_t n, bad = 0, full = 0;
	uint64_t pages = 0;
	char *text;
	size_t len, i;

	new_stats(&a, 32);
	seed_all(&a);
	ck_assert_int_eq(record_write_seed(&(struct recorder)RECORDER_NONE, dir, &a), 0);
	text = slurp(SEED_FILE, &len);
	new_stats(&b, 32);
	n = seed_parse(text, len, &b, &pages, &bad, &full);
	ck_assert_uint_eq(n, NSEEDS);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(pages, 250 + 3 + 1099511627776ull + 12);
	for (i = 0; i < NSEEDS; i++) {
		const struct seed_case *c = &seeds[i];
		struct mt_task *t = stats_find_task(&b, c->tid);

		ck_assert_ptr_nonnull(t);
		ck_assert_int_eq(t->tgid, c->tgid);
		ck_assert_int_eq(t->ppid, c->ppid);
		ck_assert_uint_eq(t->comm_len, c->comm_len);
		ck_assert(!memcmp(t->comm, c->comm, c->comm_len));
		ck_assert(t->flags & TF_SEEDED);
		ck_assert(t->flags & TF_COMM_KNOWN);
		ck_assert_int_eq(!!(t->flags & TF_KTHREAD), c->kthread);
		ck_assert_uint_eq(t->seed, c->pages);
		ck_assert_uint_eq(t->seed_ts, c->ts);
		ck_assert_int_eq(t->cur, (int64_t)c->pages);
	}
	free(text);
	stats_free(&a);
	stats_free(&b);
}
END_TEST

START_TEST(test_seed_malformed)
{
	static char text[4096];
	struct stats st;
	struct mt_task *t;
	uint32_t n, bad = 0, full = 0;
	uint64_t pages = 0;
	size_t len;
	char *p = text;

	p += sprintf(p, "seed 1 2 3\n");					/* bad: short */
	p += sprintf(p, "seed -5 5 1 0 1 1 61\n");				/* bad: tid */
	p += sprintf(p, "seed 9 9 1 0 2000000000000 5 61\n");			/* bad: pages */
	p += sprintf(p, "seed 9 9 1 0 5 5 6\n");				/* bad: odd hex */
	p += sprintf(p, "seed 9 9 1 0 5 5 zz\n");				/* bad: not hex */
	p += sprintf(p, "seed 9 9 1 0 5 5 4A\n");				/* bad: upper case */
	p += sprintf(p, "seed 9 9 1 0 5 5 4142434445464748494a4b4c4d4e4f50\n");	/* bad: 16 bytes */
	p += sprintf(p, "seed 9 9 1 0 5 5 4142434445464748494a4b4c4d4e4f5051\n");	/* bad: 17 */
	p += sprintf(p, "seed 9 9 1 0 5 -1 61\n");				/* bad: ts < 0 */
	p += sprintf(p, "seed 9 9 1 0 -5 1 61\n");				/* bad: pages < 0 */
	p += sprintf(p, "seed 9 -9 1 0 5 1 61\n");				/* bad: tgid < 0 */
	p += sprintf(p, "seed 9 9 -1 0 5 1 61\n");				/* bad: ppid < 0 */
	p += sprintf(p, "garbage\n");						/* bad */
	p += sprintf(p, "seedx 9 9 1 0 5 1 61\n");				/* bad */
	p += sprintf(p, "seed 9 9 1 0 5 1 %0600d\n", 0);			/* bad: too long */
	p += sprintf(p, "\n");							/* empty: fine */
	memcpy(p, "seed 9 9 1 0 5 5 61\0junk\n", 25);				/* bad: NUL */
	p += 25;
	p += sprintf(p, "seed 10 10 1 0 5 100 6869\n");
	p += sprintf(p, "seed 11 10 1 0 0 100 -\n");
	p += sprintf(p, "seed 12 12 0 1 0 100 6b\n");
	p += sprintf(p, "seed 13 13 1 0 1099511627776 100 61\n");
	p += sprintf(p, "seed 15 15 1 0 1 1 6162636465666768696a6b6c6d6e6f\n");
	p += sprintf(p, "seed 14 14 1 0 2 100 7a");				/* no final newline */
	len = (size_t)(p - text);

	new_stats(&st, 32);
	n = seed_parse(text, len, &st, &pages, &bad, &full);
	ck_assert_uint_eq(bad, 16);
	ck_assert_uint_eq(n, 6);
	ck_assert_uint_eq(pages, 5 + 1099511627776ull + 1 + 2);
	ck_assert_ptr_null(stats_find_task(&st, 9));
	ck_assert_ptr_null(stats_find_task(&st, 1));
	t = stats_find_task(&st, 10);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->comm_len, 2);
	ck_assert(!memcmp(t->comm, "hi", 2));
	ck_assert_uint_eq(t->seed, 5);
	t = stats_find_task(&st, 11);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->comm_len, 0);
	ck_assert_int_eq(t->tgid, 10);
	t = stats_find_task(&st, 12);
	ck_assert(t->flags & TF_KTHREAD);
	t = stats_find_task(&st, 15);
	ck_assert_uint_eq(t->comm_len, 15);
	t = stats_find_task(&st, 14);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->seed, 2);
	ck_assert(!memcmp(t->comm, "z", 1));
	stats_free(&st);
}
END_TEST

START_TEST(test_seed_table_full)
{
	static const char text[] = "seed 10 10 1 0 5 1 61\nseed 11 11 1 0 6 1 62\n";
	struct stats st;
	uint32_t bad = 0, full = 0;
	uint64_t pages = 0;

	new_stats(&st, SLOT_FIRST + 1);
	ck_assert_uint_eq(seed_parse(text, sizeof(text) - 1, &st, &pages, &bad, &full), 1);
	/* a table too small is not a malformed line (issue 36: "15105 malformed lines") */
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(full, 1);
	ck_assert_uint_eq(pages, 5);
	stats_free(&st);
}
END_TEST

START_TEST(test_seed_empty)
{
	struct stats st;
	uint32_t bad = 0, full = 0;
	uint64_t pages = 9;

	new_stats(&st, 8);
	ck_assert_uint_eq(seed_parse("", 0, &st, &pages, &bad, &full), 0);
	ck_assert_uint_eq(pages, 0);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(seed_parse("\n\n\n", 3, &st, &pages, &bad, &full), 0);
	ck_assert_uint_eq(bad, 0);
	/* an empty table writes an empty file */
	ck_assert_int_eq(record_write_seed(&(struct recorder)RECORDER_NONE, dir, &st), 0);
	{
		size_t len;
		char *t = slurp(SEED_FILE, &len);

		ck_assert_uint_eq(len, 0);
		free(t);
	}
	stats_free(&st);
}
END_TEST

START_TEST(test_write_errors)
{
	struct stats st;
	struct meta m = { .page_size = 4096 };
	char path[PATH_MAX], target[PATH_MAX], longdir[PATH_MAX + 100];
	size_t len;
	char *t;

	new_stats(&st, 8);
	snprintf(path, sizeof(path), "%s/nonexistent", dir);
	ck_assert_int_eq(record_write_seed(&(struct recorder)RECORDER_NONE, path, &st), -ENOENT);
	ck_assert_int_eq(record_write_meta(&(struct recorder)RECORDER_NONE, path, &m, NULL, &st), -ENOENT);
	/* a path too long for a buffer: an error, not a stale errno */
	memset(longdir, 'a', sizeof(longdir) - 1);
	longdir[0] = '/';
	longdir[sizeof(longdir) - 1] = '\0';
	errno = 0;
	ck_assert_int_eq(record_write_seed(&(struct recorder)RECORDER_NONE, longdir, &st), -ENAMETOOLONG);
	errno = 0;
	ck_assert_int_eq(record_write_meta(&(struct recorder)RECORDER_NONE, longdir, &m, NULL, &st), -ENAMETOOLONG);
	/* a symlink planted at the file is not followed */
	snprintf(target, sizeof(target), "%s/target", dir);
	{
		int fd = open(target, O_WRONLY | O_CREAT, 0644);

		ck_assert(fd >= 0);
		ck_assert_int_eq(write(fd, "keep", 4), 4);
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, SEED_FILE);
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert_int_eq(record_write_seed(&(struct recorder)RECORDER_NONE, dir, &st), -ELOOP);
	snprintf(path, sizeof(path), "%s/%s", dir, META_FILE);
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert_int_eq(record_write_meta(&(struct recorder)RECORDER_NONE, dir, &m, NULL, &st), -ELOOP);
	t = slurp("target", &len);
	ck_assert_str_eq(t, "keep");
	free(t);
	stats_free(&st);
}
END_TEST

/* ---- meta ---- */

static void add_mod(struct stats *st, const char *name, bool known, uint64_t kib)
{
	struct mt_module *m = &st->tb.mods[st->tb.nmods];

	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->serial = ++st->tb.nmods;
	m->state = MOD_LIVE;
	m->static_known = known;
	m->static_kib = kib;
}

static const struct rb_layout layout = { .ts_off = 0, .commit_off = 8, .commit_size = 8,
					  .data_off = 16, .data_size = 4080 };

static void new_reader(struct reader *r, const int *ids, int n)
{
	int fds[8], i;

	for (i = 0; i < n; i++) {
		fds[i] = open("/dev/null", O_RDONLY);
		ck_assert(fds[i] >= 0);
	}
	ck_assert_int_eq(reader_init(r, &layout, NULL, n, ids, fds, false, true, NULL, NULL), 0);
}

static void close_reader(struct reader *r)
{
	int i;

	for (i = 0; i < r->ncpus; i++)
		close(r->cpus[i].fd);
	reader_free(r);
}

START_TEST(test_meta_write_exact)
{
	static const int ids[] = { 0, 2, 5 };
	struct meta m = { .page_size = 4096, .max_pfn = 6553600,
			  .initmod_start = 0xffffffff91b39f60ull,
			  .initmod_end = 0xffffffff91b3a150ull, .rename_events = true,
			  .uptime_s = 12345.678, .self_pid = 4242,
			  .mem_start = { .total_kib = 90188, .free_kib = 35724, .avail_kib = 33100 } };
	char want[1024], *got;
	struct reader r;
	struct stats st;
	size_t len;

	new_reader(&r, ids, 3);
	r.cpus[0].stats_lost = 7;
	r.cpus[2].stats_lost = 123;
	new_stats(&st, 8);
	add_mod(&st, "virtio_pci", true, 40);
	add_mod(&st, "crc32", false, 99);
	add_mod(&st, "", true, 5);
	add_mod(&st, "big", true, 0);
	ck_assert_int_eq(record_write_meta(&(struct recorder)RECORDER_NONE, dir, &m, &r, &st), 0);
	snprintf(want, sizeof(want),
		 "memtrace-meta 1\n"
		 "complete 1\n"
		 "version %s\n"
		 "page_size 4096\n"
		 "byte_order little\n"
		 "word_size 8\n"
		 "max_pfn 6553600\n"
		 "initmod 18446744071859052384 18446744071859052880\n"
		 "rename_events 1\n"
		 "uptime 12345.678\n"
		 "self_pid 4242\n"
		 "mem_start 90188 35724 33100\n"
		 "cpu_lost 0 7\n"
		 "cpu_lost 2 0\n"
		 "cpu_lost 5 123\n"
		 "module_kib virtio_pci 40\n"
		 "module_kib big 0\n", MEMTRACE_VERSION);
	got = slurp(META_FILE, &len);
	ck_assert_str_eq(got, want);
	free(got);
	/* no reader, no stats: header only */
	m.rename_events = false;
	m.uptime_s = 0;
	m.self_pid = 0;
	m.mem_start = (struct proc_mem){ 0 };	/* /proc/meminfo not read: no line */
	ck_assert_int_eq(record_write_meta(&(struct recorder)RECORDER_NONE, dir, &m, NULL, NULL), 0);
	snprintf(want, sizeof(want),
		 "memtrace-meta 1\n"
		 "complete 1\n"
		 "version %s\n"
		 "page_size 4096\n"
		 "max_pfn 6553600\n"
		 "initmod 18446744071859052384 18446744071859052880\n"
		 "rename_events 0\n"
		 "uptime 0.000\n"
		 "self_pid 0\n", MEMTRACE_VERSION);
	got = slurp(META_FILE, &len);
	ck_assert_str_eq(got, want);
	free(got);
	close_reader(&r);
	stats_free(&st);
}
END_TEST

/*
 * The traced kernel, host and start time: written when known, read back; a release
 * with '-' is no negative number; hostile bytes become '?', never a second word
 * or a control byte in a report; a start time out of range is bad and not taken.
 */
START_TEST(test_meta_identity)
{
	struct meta m = { .page_size = 4096, .started_at = 1795741420 }, back;
	char *got, when[32];
	size_t len;
	uint32_t bad = 0;

	meta_word(m.kernel, sizeof(m.kernel), "6.1.0-56-cloud-amd64\nrest");
	meta_word(m.host, sizeof(m.host), "build host\033[2J\xff");
	ck_assert_str_eq(m.kernel, "6.1.0-56-cloud-amd64");
	ck_assert_str_eq(m.host, "build?host?[2J?");
	ck_assert_int_eq(record_write_meta(&(struct recorder)RECORDER_NONE, dir, &m, NULL, NULL), 0);
	got = slurp(META_FILE, &len);
	ck_assert_ptr_nonnull(strstr(got, "\nkernel 6.1.0-56-cloud-amd64\nhost build?host?[2J?\n"
				      "started 1795741420\n"));
	memset(&back, 0, sizeof(back));
	meta_parse(got, len, &back, NULL, NULL, &bad);
	free(got);
	ck_assert_uint_eq(bad, 0);
	ck_assert_str_eq(back.kernel, "6.1.0-56-cloud-amd64");
	ck_assert_str_eq(back.host, "build?host?[2J?");
	ck_assert_int_eq(back.started_at, 1795741420);
	/* date -u -d @1795741420: Fri Nov 27 01:03:40 UTC 2026 */
	meta_when(&back, false, when);
	ck_assert_str_eq(when, "2026-11-27 01:03:40 UTC");
	meta_when(&back, true, when);
	ck_assert_str_eq(when, "2026-11-27T01:03:40Z");
	/* not known: no lines, "" */
	memset(&m, 0, sizeof(m));
	m.page_size = 4096;
	ck_assert_int_eq(record_write_meta(&(struct recorder)RECORDER_NONE, dir, &m, NULL, NULL), 0);
	got = slurp(META_FILE, &len);
	ck_assert_ptr_null(strstr(got, "kernel"));
	ck_assert_ptr_null(strstr(got, "host"));
	ck_assert_ptr_null(strstr(got, "started"));
	free(got);
	meta_when(&m, false, when);
	ck_assert_str_eq(when, "");
	/* read from a hostile meta: a long name cut at 64 bytes, a tab made '?', bad times */
	memset(&back, 0, sizeof(back));
	meta_parse("kernel 0123456789012345678901234567890123456789012345678901234567890123456789\n"
		   "host a\tb\nstarted 0\nstarted -5\nstarted 99999999999999\n", 131, &back, NULL,
		   NULL, &bad);
	ck_assert_uint_eq(strlen(back.kernel), 64);
	ck_assert_str_eq(back.host, "a?b");
	ck_assert_int_eq(back.started_at, 0);
	ck_assert_uint_eq(bad, 3);
}
END_TEST

/* An incomplete recording says so (second line) and why; older ones without the key are whole. */
START_TEST(test_meta_complete)
{
	struct meta m = { .page_size = 4096, .incomplete = true }, back;
	char *got;
	size_t len;
	uint32_t bad = 0;

	snprintf(m.why, sizeof(m.why), "12 pages of CPU 1 not saved (No space left on device)");
	ck_assert_int_eq(record_write_meta(&(struct recorder)RECORDER_NONE, dir, &m, NULL, NULL), 0);
	got = slurp(META_FILE, &len);
	ck_assert(!strncmp(got, "memtrace-meta 1\ncomplete 0\nversion ", 35));
	ck_assert_ptr_nonnull(strstr(got, "\nincomplete 12 pages of CPU 1 not saved (No space "
				      "left on device)\n"));
	memset(&back, 0, sizeof(back));
	meta_parse(got, len, &back, NULL, NULL, &bad);
	ck_assert_uint_eq(bad, 0);
	ck_assert(back.incomplete);
	ck_assert_str_eq(back.why, m.why);
	free(got);
	/* no key: an older recording, complete */
	memset(&back, 0, sizeof(back));
	meta_parse("memtrace-meta 1\npage_size 4096\n", 31, &back, NULL, NULL, &bad);
	ck_assert(!back.incomplete);
	/* "complete 1" and a hostile reason: control characters never reach a report */
	meta_parse("complete 1\n", 11, &back, NULL, NULL, &bad);
	ck_assert(!back.incomplete);
	meta_parse("complete 0\nincomplete a\033[2Jb\n", 29, &back, NULL, NULL, &bad);
	ck_assert_uint_eq(bad, 0);
	/* mem_start: free or available above the total, no total, a word short: bad, not taken */
	meta_parse("mem_start 10 11 5\nmem_start 10 5 11\nmem_start 0 0 0\nmem_start 10 5\n"
		   "mem_start -1 5 5\n", 84, &back, NULL, NULL, &bad);
	ck_assert_uint_eq(bad, 5);
	ck_assert_uint_eq(back.mem_start.total_kib, 0);
	bad = 0;
	ck_assert(back.incomplete);
	ck_assert_str_eq(back.why, "a?[2Jb");
	ck_assert_uint_eq(bad, 0);
	/* written whole: "complete 1" */
	m.incomplete = false;
	ck_assert_int_eq(record_write_meta(&(struct recorder)RECORDER_NONE, dir, &m, NULL, NULL), 0);
	got = slurp(META_FILE, &len);
	ck_assert(!strncmp(got, "memtrace-meta 1\ncomplete 1\nversion ", 35));
	ck_assert_ptr_null(strstr(got, "incomplete"));
	free(got);
}
END_TEST

START_TEST(test_meta_round_trip)
{
	static const int ids_w[] = { 0, 2, 5 }, ids_r[] = { 5, 0, 2, 7 };
	struct meta m = { .page_size = 16384, .max_pfn = 6553600,
			  .initmod_start = 0xffffffff91b39f60ull,
			  .initmod_end = 0xffffffff91b3a150ull, .rename_events = true,
			  .uptime_s = 12345.678, .self_pid = 2147483647,
			  .mem_start = { .total_kib = 1ull << 40, .free_kib = 1, .avail_kib = 0 } };
	struct meta back = { .page_size = 4096, .max_pfn = 1, .uptime_s = 1 };
	struct reader rw, rr;
	struct stats sw, sr;
	struct mt_module *mod;
	uint32_t bad = 0;
	char *text;
	size_t len;

	new_reader(&rw, ids_w, 3);
	rw.cpus[0].stats_lost = 7;
	rw.cpus[2].stats_lost = 123;
	/* the pages were big-endian, of a 32-bit kernel */
	rw.layout.big_endian = true;
	rw.layout.commit_size = 4;
	new_stats(&sw, 8);
	add_mod(&sw, "virtio_pci", true, 40);
	add_mod(&sw, "crc32", false, 99);
	add_mod(&sw, "dup", true, 11);
	ck_assert_int_eq(record_write_meta(&(struct recorder)RECORDER_NONE, dir, &m, &rw, &sw), 0);
	text = slurp(META_FILE, &len);

	/* the reading side: CPUs in another order plus one not recorded; modules unsized */
	new_reader(&rr, ids_r, 4);
	rr.cpus[3].stats_lost = 99;
	new_stats(&sr, 8);
	add_mod(&sr, "crc32", false, 0);
	add_mod(&sr, "dup", false, 0);
	add_mod(&sr, "virtio_pci", false, 0);
	add_mod(&sr, "dup", false, 0);
	back.byte_order = RB_ORDER_UNKNOWN;
	meta_parse(text, len, &back, &rr, &sr, &bad);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(back.page_size, 16384);
	ck_assert_int_eq(back.byte_order, RB_ORDER_BE);
	ck_assert_uint_eq(back.word_size, 4);
	ck_assert_uint_eq(back.max_pfn, 6553600);
	ck_assert_uint_eq(back.initmod_start, 0xffffffff91b39f60ull);
	ck_assert_uint_eq(back.initmod_end, 0xffffffff91b3a150ull);
	ck_assert(back.rename_events);
	ck_assert(back.uptime_s == 12345.678);
	ck_assert_int_eq(back.self_pid, 2147483647);
	ck_assert_uint_eq(back.mem_start.total_kib, 1ull << 40);	/* 1 PiB of memory */
	ck_assert_uint_eq(back.mem_start.free_kib, 1);
	ck_assert_uint_eq(back.mem_start.avail_kib, 0);		/* a kernel without MemAvailable */
	ck_assert_int_eq(rr.cpus[0].cpu, 5);
	ck_assert_uint_eq(rr.cpus[0].stats_lost, 123);
	ck_assert_uint_eq(rr.cpus[1].stats_lost, 7);
	ck_assert_uint_eq(rr.cpus[2].stats_lost, 0);
	ck_assert_uint_eq(rr.cpus[3].stats_lost, 99);		/* cpu 7: not in the file */
	mod = table_find_module(&sr.tb, "virtio_pci", 10);
	ck_assert(mod->static_known);
	ck_assert_uint_eq(mod->static_kib, 40);
	ck_assert(!sr.tb.mods[0].static_known);			/* crc32 had no size */
	ck_assert(!sr.tb.mods[1].static_known);			/* the older "dup" */
	ck_assert(sr.tb.mods[3].static_known);			/* the newer one */
	ck_assert_uint_eq(sr.tb.mods[3].static_kib, 11);
	/* without a reader or stats the same text parses, the rest skipped silently */
	bad = 0;
	memset(&back, 0, sizeof(back));
	meta_parse(text, len, &back, NULL, NULL, &bad);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(back.page_size, 16384);
	free(text);
	close_reader(&rw);
	close_reader(&rr);
	stats_free(&sw);
	stats_free(&sr);
}
END_TEST

START_TEST(test_meta_malformed)
{
	static const int ids[] = { 0 };
	static char text[4096];
	struct meta m = { .page_size = 4096, .max_pfn = 1, .uptime_s = 1 };
	struct reader r;
	struct stats st;
	uint32_t bad = 0;
	char *p = text;

	p += sprintf(p, "memtrace-meta 1\nversion 9.9\n");	/* header lines: skipped */
	p += sprintf(p, "page_size 0\n");			/* bad */
	p += sprintf(p, "page_size 3\n");			/* bad */
	p += sprintf(p, "page_size 2097152\n");			/* bad: > 1 MiB */
	p += sprintf(p, "page_size 1000\n");			/* bad: not a power of two */
	p += sprintf(p, "page_size -4096\n");			/* bad */
	p += sprintf(p, "page_size 65536\n");			/* good */
	p += sprintf(p, "max_pfn 2000000000000\n");		/* bad: > 2^40 */
	p += sprintf(p, "max_pfn -1\n");			/* bad */
	p += sprintf(p, "max_pfn 1099511627776\n");		/* good: 2^40 */
	p += sprintf(p, "initmod 10 5\n");			/* bad: start > end */
	p += sprintf(p, "initmod -2 -1\n");			/* bad */
	p += sprintf(p, "initmod 100\n");			/* bad */
	p += sprintf(p, "initmod 100 200\n");			/* good */
	p += sprintf(p, "rename_events 1\n");			/* good */
	p += sprintf(p, "uptime -1\n");				/* bad */
	p += sprintf(p, "uptime 1e13\n");			/* bad */
	p += sprintf(p, "uptime nan\n");			/* bad */
	p += sprintf(p, "uptime inf\n");			/* bad */
	p += sprintf(p, "uptime 99.5\n");			/* good */
	p += sprintf(p, "self_pid -5\n");			/* bad */
	p += sprintf(p, "self_pid 2147483648\n");		/* bad: > INT32_MAX */
	p += sprintf(p, "self_pid 321\n");			/* good */
	p += sprintf(p, "cpu_lost 0 -1\n");			/* bad */
	p += sprintf(p, "cpu_lost 0\n");			/* bad */
	p += sprintf(p, "cpu_lost 0 5\n");			/* good */
	p += sprintf(p, "cpu_lost 9 5\n");			/* no such CPU: ignored */
	p += sprintf(p, "module_kib nosuch 5\n");		/* no such module: ignored */
	p += sprintf(p, "module_kib m1 -3\n");			/* bad */
	p += sprintf(p, "module_kib m1\n");			/* bad */
	p += sprintf(p, "module_kib m1 12\n");			/* good */
	p += sprintf(p, "frobnicate 1\n");			/* bad */
	p += sprintf(p, "page_size\n");				/* bad */
	p += sprintf(p, "\n");					/* empty: fine */
	p += sprintf(p, "uptime %0600d\n", 5);			/* bad: too long */
	memcpy(p, "page_size 8192\0junk\n", 20);		/* bad: NUL */
	p += 20;

	new_reader(&r, ids, 1);
	new_stats(&st, 8);
	add_mod(&st, "m1", false, 0);
	meta_parse(text, (size_t)(p - text), &m, &r, &st, &bad);
	ck_assert_uint_eq(bad, 24);
	ck_assert_int_eq(m.self_pid, 321);
	ck_assert_uint_eq(m.page_size, 65536);
	ck_assert_uint_eq(m.max_pfn, 1099511627776ull);
	ck_assert_uint_eq(m.initmod_start, 100);
	ck_assert_uint_eq(m.initmod_end, 200);
	ck_assert(m.rename_events);
	ck_assert(m.uptime_s == 99.5);
	ck_assert_uint_eq(r.cpus[0].stats_lost, 5);
	ck_assert(st.tb.mods[0].static_known);
	ck_assert_uint_eq(st.tb.mods[0].static_kib, 12);
	close_reader(&r);
	stats_free(&st);
}
END_TEST

/* Nothing valid: the meta keeps what it had. */
START_TEST(test_meta_untouched)
{
	struct meta m = { .page_size = 4096, .max_pfn = 77, .initmod_start = 1,
			  .initmod_end = 2, .rename_events = false, .uptime_s = 3.5 };
	static const char text[] = "page_size 7\nmax_pfn x\nuptime -3\nrename_events\n";
	uint32_t bad = 0;

	meta_parse(text, sizeof(text) - 1, &m, NULL, NULL, &bad);
	ck_assert_uint_eq(bad, 4);
	ck_assert_uint_eq(m.page_size, 4096);
	ck_assert_uint_eq(m.max_pfn, 77);
	ck_assert_uint_eq(m.initmod_start, 1);
	ck_assert_uint_eq(m.initmod_end, 2);
	ck_assert(!m.rename_events);
	ck_assert(m.uptime_s == 3.5);
	bad = 0;
	meta_parse("", 0, &m, NULL, NULL, &bad);
	ck_assert_uint_eq(bad, 0);
}
END_TEST

/* ---- meta: modules listed by the kernel, load not traced ---- */

static struct mt_module *add_before(struct stats *st, const char *name, bool known, uint64_t kib)
{
	struct mt_module *m = module_present(&st->tb, name, strlen(name));

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->state, MOD_BEFORE);
	m->static_known = known;
	m->static_kib = kib;
	return m;
}

static void unload(struct stats *st, const char *name, uint64_t ts)
{
	struct mt_event ev = { .kind = EV_MOD_FREE, .ts = ts, .tid = 80 };

	ev.u.module.name.s = name;
	ev.u.module.name.len = strlen(name);
	stats_apply(st, &ev);
}

#define META_HEAD	"memtrace-meta 1\ncomplete 1\nversion %s\npage_size 4096\nmax_pfn 262144\n" \
			"initmod 0 0\nrename_events 0\nuptime 1.500\nself_pid 0\n"

/* before: crc32_pclmul (16 KiB), virtio (size unknown), virtio_ring (48 KiB); traced: virtio_pci */
static void before_table(struct stats *st)
{
	new_stats(st, 8);
	add_before(st, "crc32_pclmul", true, 16);
	add_mod(st, "virtio_pci", true, 40);
	add_before(st, "virtio", false, 0);
	add_before(st, "gone", true, 8);
	unload(st, "gone", 100);
	ck_assert_int_eq(st->tb.mods[3].state, MOD_UNLOADED);
	add_before(st, "virtio_ring", true, 48);
	ck_assert_uint_eq(st->tb.nmods, 5);
}

START_TEST(test_meta_write_before)
{
	struct meta m = { .page_size = 4096, .max_pfn = 262144, .uptime_s = 1.5 };
	char want[1024], *got;
	struct stats st;
	size_t len;

	before_table(&st);
	ck_assert_int_eq(record_write_meta(&(struct recorder)RECORDER_NONE, dir, &m, NULL, &st), 0);
	snprintf(want, sizeof(want), META_HEAD
		 "module_before crc32_pclmul\n"
		 "module_before virtio\n"
		 "module_before virtio_ring\n"
		 "module_kib crc32_pclmul 16\n"
		 "module_kib virtio_pci 40\n"
		 "module_kib gone 8\n"
		 "module_kib virtio_ring 48\n", MEMTRACE_VERSION);
	got = slurp(META_FILE, &len);
	ck_assert_str_eq(got, want);
	ck_assert_uint_eq(len, strlen(want));
	free(got);
	stats_free(&st);
}
END_TEST

START_TEST(test_meta_before_round_trip)
{
	struct meta m = { .page_size = 4096, .max_pfn = 262144, .uptime_s = 1.5 };
	struct meta back = { 0 };
	struct stats a, b, c;
	struct mt_module *mod;
	uint32_t bad = 0, i;
	char want[1024], *text, *again;
	size_t len, len2;

	before_table(&a);
	ck_assert_int_eq(record_write_meta(&(struct recorder)RECORDER_NONE, dir, &m, NULL, &a), 0);
	text = slurp(META_FILE, &len);

	/* a fresh table: the before modules, in order, with their sizes; nothing else */
	new_stats(&b, 8);
	meta_parse_boot(text, len, &b, &bad);
	meta_parse(text, len, &back, NULL, &b, &bad);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(back.page_size, 4096);
	ck_assert_uint_eq(back.max_pfn, 262144);
	ck_assert_uint_eq(b.tb.nmods, 3);
	ck_assert_str_eq(b.tb.mods[0].name, "crc32_pclmul");
	ck_assert(b.tb.mods[0].static_known);
	ck_assert_uint_eq(b.tb.mods[0].static_kib, 16);
	ck_assert_str_eq(b.tb.mods[1].name, "virtio");
	ck_assert(!b.tb.mods[1].static_known);
	ck_assert_str_eq(b.tb.mods[2].name, "virtio_ring");
	ck_assert(b.tb.mods[2].static_known);
	ck_assert_uint_eq(b.tb.mods[2].static_kib, 48);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(b.tb.mods[i].state, MOD_BEFORE);
		ck_assert_int_eq(b.tb.mods[i].bracket, BR_NONE);
		ck_assert_int_eq(b.tb.mods[i].loader_tid, 0);
		ck_assert_int_eq(b.tb.mods[i].peak, 0);
		ck_assert_uint_eq(b.tb.mods[i].serial, i + 1);
	}
	ck_assert_ptr_null(table_find_module(&b.tb, "virtio_pci", 10));
	ck_assert_ptr_null(table_find_module(&b.tb, "gone", 4));
	ck_assert_uint_eq(b.tb.c.module_overflow, 0);
	/* the same file again: nothing doubled */
	meta_parse_boot(text, len, &b, &bad);
	meta_parse(text, len, &back, NULL, &b, &bad);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(b.tb.nmods, 3);
	/* and written back: the same before modules and sizes */
	ck_assert_int_eq(record_write_meta(&(struct recorder)RECORDER_NONE, dir, &m, NULL, &b), 0);
	again = slurp(META_FILE, &len2);
	snprintf(want, sizeof(want), META_HEAD
		 "module_before crc32_pclmul\n"
		 "module_before virtio\n"
		 "module_before virtio_ring\n"
		 "module_kib crc32_pclmul 16\n"
		 "module_kib virtio_ring 48\n", MEMTRACE_VERSION);
	ck_assert_str_eq(again, want);
	free(again);

	/* a replayed table: traced modules keep their entry, the others are added */
	new_stats(&c, 8);
	add_mod(&c, "virtio_pci", false, 0);
	add_mod(&c, "virtio", false, 0);
	meta_parse_boot(text, len, &c, &bad);
	meta_parse(text, len, &back, NULL, &c, &bad);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(c.tb.nmods, 4);
	ck_assert_int_eq(c.tb.mods[0].state, MOD_LIVE);
	ck_assert(c.tb.mods[0].static_known);
	ck_assert_uint_eq(c.tb.mods[0].static_kib, 40);
	ck_assert_int_eq(c.tb.mods[1].state, MOD_LIVE);	/* listed and traced: not "before" */
	ck_assert(!c.tb.mods[1].static_known);
	mod = table_find_module(&c.tb, "crc32_pclmul", 12);
	ck_assert_ptr_eq(mod, &c.tb.mods[2]);
	ck_assert_int_eq(mod->state, MOD_BEFORE);
	ck_assert_uint_eq(mod->static_kib, 16);
	mod = table_find_module(&c.tb, "virtio_ring", 11);
	ck_assert_ptr_eq(mod, &c.tb.mods[3]);
	ck_assert_int_eq(mod->state, MOD_BEFORE);
	ck_assert_uint_eq(mod->static_kib, 48);

	/* no stats: the module lines are skipped without complaint */
	meta_parse(text, len, &back, NULL, NULL, &bad);
	ck_assert_uint_eq(bad, 0);
	free(text);
	stats_free(&a);
	stats_free(&b);
	stats_free(&c);
}
END_TEST

START_TEST(test_meta_before_malformed)
{
	static const char text[] =
		"module_before\n"			/* bad: no name */
		"module_before \n"			/* bad */
		"module_before\t\n"			/* bad */
		"module_before -5\n"			/* bad: a negative number */
		"module_before ok_one\n"		/* good */
		"module_kib ok_one -3\n"		/* bad */
		"module_kib ok_one\n"			/* bad */
		"module_kib ok_one 12\n"		/* good */
		"module_kib not_listed 7\n"		/* no such module: ignored */
		"module_before ok_two";			/* good, no final newline */
	struct meta m = { .page_size = 4096 };
	struct stats st;
	uint32_t bad = 0;

	new_stats(&st, 8);
	meta_parse_boot(text, sizeof(text) - 1, &st, &bad);
	meta_parse(text, sizeof(text) - 1, &m, NULL, &st, &bad);
	ck_assert_uint_eq(bad, 6);
	ck_assert_uint_eq(st.tb.nmods, 2);
	ck_assert_str_eq(st.tb.mods[0].name, "ok_one");
	ck_assert_int_eq(st.tb.mods[0].state, MOD_BEFORE);
	ck_assert(st.tb.mods[0].static_known);
	ck_assert_uint_eq(st.tb.mods[0].static_kib, 12);
	ck_assert_str_eq(st.tb.mods[1].name, "ok_two");
	ck_assert_int_eq(st.tb.mods[1].state, MOD_BEFORE);
	ck_assert(!st.tb.mods[1].static_known);
	ck_assert_ptr_null(table_find_module(&st.tb, "not_listed", 10));
	ck_assert_uint_eq(m.page_size, 4096);
	stats_free(&st);
}
END_TEST

/* A key that only starts with "module_before" is an unknown key, not a module. */
START_TEST(test_meta_before_unknown_key)
{
	static const char text[] = "module_before_kib virtio 16\nmodule_beforehand x\n";
	struct meta m = { .page_size = 4096 };
	struct stats st;
	uint32_t bad = 0, nmods;

	new_stats(&st, 8);
	meta_parse(text, sizeof(text) - 1, &m, NULL, &st, &bad);
	nmods = st.tb.nmods;
	stats_free(&st);		/* before the checks: nothing leaks when they fail */
	ck_assert_uint_eq(nmods, 0);
	ck_assert_uint_eq(bad, 2);
}
END_TEST

START_TEST(test_meta_before_table_full)
{
	static const char text[] = "module_before m0\nmodule_before extra\nmodule_kib extra 5\n";
	static const char *const names[] = { "m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7" };
	struct meta m = { .page_size = 4096 };
	struct stats st;
	uint32_t bad = 0;
	int i;

	new_stats(&st, 8);
	for (i = 0; i < 8; i++)
		add_mod(&st, names[i], false, 0);
	meta_parse_boot(text, sizeof(text) - 1, &st, &bad);
	meta_parse(text, sizeof(text) - 1, &m, NULL, &st, &bad);
	ck_assert_uint_eq(st.tb.nmods, 8);
	ck_assert_uint_eq(st.tb.c.module_overflow, 1);	/* "extra"; m0 is there */
	ck_assert_ptr_null(table_find_module(&st.tb, "extra", 5));
	ck_assert_int_eq(st.tb.mods[0].state, MOD_LIVE);
	stats_free(&st);
}
END_TEST

/* Modules found at the last report without an entry: kept for the replay's report. */
START_TEST(test_meta_untraced_round_trip)
{
	struct mt_module extra[2], back_extra[4];
	struct meta m = { .page_size = 4096, .max_pfn = 1024 }, back = { 0 };
	static const char bad_text[] = "module_untraced lonely\nmodule_untraced neg -4\n"
				       "modules_not_listed x\n";
	uint32_t bad = 0;
	size_t len;
	char *text;

	memset(extra, 0, sizeof(extra));
	strcpy(extra[0].name, "late_a");
	extra[0].static_kib = 12;
	strcpy(extra[1].name, "late_b");
	extra[1].static_kib = 40;
	m.extra = extra;
	m.nextra = 2;
	m.extra_dropped = 4;
	ck_assert_int_eq(record_write_meta(&(struct recorder)RECORDER_NONE, dir, &m, NULL, NULL), 0);
	text = slurp(META_FILE, &len);
	ck_assert_ptr_nonnull(strstr(text, "\nmodule_untraced late_a 12\nmodule_untraced late_b 40\n"
					   "modules_not_listed 4\n"));
	/* room for one: the second is not kept */
	back.extra = back_extra;
	back.extra_cap = 1;
	meta_parse(text, len, &back, NULL, NULL, &bad);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(back.nextra, 1);
	ck_assert_str_eq(back_extra[0].name, "late_a");
	ck_assert_int_eq(back_extra[0].state, MOD_UNTRACED);
	ck_assert_uint_eq(back_extra[0].static_kib, 12);
	ck_assert(back_extra[0].static_known);
	ck_assert_uint_eq(back.extra_dropped, 4);
	/* room for all */
	back.nextra = 0;
	back.extra_cap = 4;
	meta_parse(text, len, &back, NULL, NULL, &bad);
	ck_assert_uint_eq(back.nextra, 2);
	ck_assert_str_eq(back_extra[1].name, "late_b");
	ck_assert_uint_eq(back_extra[1].static_kib, 40);
	/* no array given: the lines are read and skipped without complaint */
	back.extra = NULL;
	back.nextra = 0;
	meta_parse(text, len, &back, NULL, NULL, &bad);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(back.nextra, 0);
	/* malformed: no size, a negative size, a count that is not a number */
	meta_parse(bad_text, sizeof(bad_text) - 1, &back, NULL, NULL, &bad);
	ck_assert_uint_eq(bad, 3);
	free(text);
}
END_TEST

/* per_cpu entries (live and in a recording): only the kernel's "cpuN" spelling */
START_TEST(test_cpu_dir_id)
{
	ck_assert_int_eq(cpu_dir_id("cpu0"), 0);
	ck_assert_int_eq(cpu_dir_id("cpu7"), 7);
	ck_assert_int_eq(cpu_dir_id("cpu10"), 10);
	ck_assert_int_eq(cpu_dir_id("cpu2147483647"), INT32_MAX);
	ck_assert_int_eq(cpu_dir_id("cpu2147483648"), -1);
	ck_assert_int_eq(cpu_dir_id("cpu99999999999999999999"), -1);
	ck_assert_int_eq(cpu_dir_id("cpu01"), -1);
	ck_assert_int_eq(cpu_dir_id("cpu00"), -1);
	ck_assert_int_eq(cpu_dir_id("cpu"), -1);
	ck_assert_int_eq(cpu_dir_id("cpu-1"), -1);
	ck_assert_int_eq(cpu_dir_id("cpu+1"), -1);
	ck_assert_int_eq(cpu_dir_id("cpu 1"), -1);
	ck_assert_int_eq(cpu_dir_id("cpu1x"), -1);
	ck_assert_int_eq(cpu_dir_id("CPU1"), -1);
	ck_assert_int_eq(cpu_dir_id("."), -1);
	ck_assert_int_eq(cpu_dir_id(""), -1);
}
END_TEST

/* Entries in @d but . and .. */
static int entries(const char *d)
{
	char cmd[PATH_MAX + 64];
	FILE *f;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", d);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%d", &n), 1);
	pclose(f);
	return n;
}

/* --record DIR checked before tracing as record_start() would take it; nothing made */
START_TEST(test_record_check)
{
	char path[PATH_MAX], err[256];
	struct stat st;
	int fd;

	/* a new directory where one can be made: fine, not made */
	snprintf(path, sizeof(path), "%s/rec", dir);
	ck_assert_int_eq(record_check(path, err, sizeof(err)), 0);
	ck_assert_int_eq(stat(path, &st), -1);
	snprintf(path, sizeof(path), "%s/rec/", dir);
	ck_assert_int_eq(record_check(path, err, sizeof(err)), 0);
	ck_assert_int_eq(entries(dir), 0);
	/* its parent missing */
	snprintf(path, sizeof(path), "%s/nonexistent/rec", dir);
	ck_assert_int_eq(record_check(path, err, sizeof(err)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "nonexistent"));
	/* an empty directory of ours: fine, and still empty */
	snprintf(path, sizeof(path), "%s/empty", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(record_check(path, err, sizeof(err)), 0);
	ck_assert_int_eq(entries(path), 0);
	/* not empty, writable by others, not a directory: refused as record_start() refuses */
	snprintf(path, sizeof(path), "%s/empty/x", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/empty", dir);
	ck_assert_int_eq(record_check(path, err, sizeof(err)), -ENOTEMPTY);
	ck_assert_ptr_nonnull(strstr(err, "not empty"));
	snprintf(path, sizeof(path), "%s/open", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(chmod(path, 0777), 0);
	ck_assert_int_eq(record_check(path, err, sizeof(err)), -EPERM);
	ck_assert_ptr_nonnull(strstr(err, "writable by group or others"));
	snprintf(path, sizeof(path), "%s/empty/x", dir);
	ck_assert_int_eq(record_check(path, err, sizeof(err)), -ENOTDIR);
	ck_assert_int_eq(entries(dir), 2);	/* empty (with x), open: nothing else made */
}
END_TEST

Suite *suite_record(void)
{
	Suite *s = suite_create("record");
	TCase *tc = tcase_create("seed");

	tcase_add_checked_fixture(tc, dir_setup, dir_teardown);
	tcase_add_test(tc, test_seed_write_exact);
	tcase_add_test(tc, test_seed_round_trip);
	tcase_add_test(tc, test_seed_malformed);
	tcase_add_test(tc, test_seed_table_full);
	tcase_add_test(tc, test_seed_empty);
	tcase_add_test(tc, test_write_errors);
	tcase_add_test(tc, test_cpu_dir_id);
	tcase_add_test(tc, test_record_check);
	suite_add_tcase(s, tc);

	tc = tcase_create("meta");
	tcase_add_checked_fixture(tc, dir_setup, dir_teardown);
	tcase_add_test(tc, test_meta_write_exact);
	tcase_add_test(tc, test_meta_complete);
	tcase_add_test(tc, test_meta_identity);
	tcase_add_test(tc, test_meta_round_trip);
	tcase_add_test(tc, test_meta_malformed);
	tcase_add_test(tc, test_meta_untouched);
	tcase_add_test(tc, test_meta_write_before);
	tcase_add_test(tc, test_meta_before_round_trip);
	tcase_add_test(tc, test_meta_before_malformed);
	tcase_add_test(tc, test_meta_before_unknown_key);
	tcase_add_test(tc, test_meta_before_table_full);
	tcase_add_test(tc, test_meta_untraced_round_trip);
	suite_add_tcase(s, tc);
	return s;
}
