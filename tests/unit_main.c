// SPDX-License-Identifier: GPL-2.0-only
/* unit_main.c - runs every Check suite; exit status is non-zero on any failure */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/logfile.h"
#include "core/run.h"
#include "testutil.h"

const char *fixtures_dir = "tests/fixtures";

char *read_path(const char *path, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	ssize_t r;
	int fd = open(path, O_RDONLY);

	ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
	ck_assert_ptr_nonnull(buf);
	for (;;) {
		if (n + 1 >= cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
		r = read(fd, buf + n, cap - n - 1);
		ck_assert_msg(r >= 0, "read %s: %s", path, strerror(errno));
		if (!r)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
}

char *read_fixture(const char *rel, size_t *len)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", fixtures_dir, rel);
	return read_path(path, len);
}

char test_root[PATH_MAX / 2];

void test_root_setup(void)
{
	snprintf(test_root, sizeof(test_root), "/tmp/memtrace-unit-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(test_root));
}

void test_root_teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", test_root);
	if (test_root[0] && system(cmd))
		fprintf(stderr, "could not remove %s\n", test_root);
}

void test_root_file(const char *rel, const char *s, size_t len)
{
	char path[PATH_MAX], *p;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", test_root, rel);
	for (p = path + strlen(test_root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		ck_assert(mkdir(path, 0755) == 0 || errno == EEXIST);
		*p = '/';
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	ck_assert_int_eq(write(fd, s, len), (ssize_t)len);
	close(fd);
}

void test_run_wire(struct run *r, struct reader_cpu *cpu0, uint32_t *order, uint32_t *threads,
		   int64_t *pages, uint32_t *sel, uint32_t *mod_order)
{
	r->meta.page_size = 4096;
	r->rd.ncpus = 1;
	r->rd.cpus = cpu0;
	r->rs.order = order;
	r->rs.threads = threads;
	r->rs.pages = pages;
	r->rs.sel = sel;
	r->rs.mod_order = mod_order;
}

static struct out test_out;
static struct out_mem test_mem;

struct out *test_out_begin(void)
{
	free(test_mem.data);	/* a test that failed before taking it (CK_FORK=no) */
	memset(&test_mem, 0, sizeof(test_mem));
	out_init_mem(&test_out, &test_mem);
	return &test_out;
}

char *test_out_end(size_t *len)
{
	char *s;

	ck_assert_int_eq(out_flush(&test_out), 0);
	s = test_mem.data ? test_mem.data : strdup("");
	ck_assert_ptr_nonnull(s);
	if (len)
		*len = test_mem.len;
	memset(&test_mem, 0, sizeof(test_mem));
	return s;
}

size_t test_utf8_len(const unsigned char *s, size_t left)
{
	uint32_t cp, min;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, cp = s[0] & 0x1fu, min = 0x80;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, cp = s[0] & 0x0fu, min = 0x800;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, cp = s[0] & 0x07u, min = 0x10000;
	else
		return 0;
	if (n > left)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void test_page_event(struct stats *s, enum mt_kind kind, uint64_t ts, int32_t tid,
		     uint8_t flags, uint64_t pfn, uint32_t order)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = kind;
	ev.ts = ts;
	ev.tid = tid;
	ev.flags = flags;
	ev.u.page.pfn = pfn;
	ev.u.page.order = order;
	stats_apply(s, &ev);
}

int main(void)
{
	Suite *(*const all[])(void) = {
		suite_ringbuf, suite_format, suite_event, suite_stats, suite_module,
		suite_reader, suite_merge, suite_scale, suite_report, suite_logfile, suite_proc, suite_record,
		suite_boot, suite_bootrec, suite_options, suite_signals, suite_stacks, suite_view, suite_prom,
		suite_cond, suite_jsonl, suite_runtime, suite_mempair, suite_psize, suite_util,
		suite_tracefs, suite_loop, suite_diff, suite_series,
	};
	SRunner *sr = NULL;
	const char *env = getenv("MEMTRACE_FIXTURES");
	size_t i;
	int failed;

	if (env)
		fixtures_dir = env;
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (!all[i])
			continue;
		if (!sr)
			sr = srunner_create(all[i]());
		else
			srunner_add_suite(sr, all[i]());
	}
	if (!sr) {
		fprintf(stderr, "no test suites linked\n");
		return EXIT_FAILURE;
	}
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
