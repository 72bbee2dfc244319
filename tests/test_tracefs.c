// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_tracefs.c - tracefs.c restores what it changed: a setup and its
 * teardown (and the emergency cleanup, and a teardown after each partial
 * setup) on a fake tracefs of plain files, which must be as found afterwards.
 *
 * The fake has no instances/ directory, so memtrace traces at the top level
 * (the fallback that changes the kernel's own settings and must put each
 * back). A plain file reads back what was last written, not the kernel's
 * rendering of it ("1" written reads "1\n" on tracefs); so the fake's files
 * hold their values as memtrace writes them, and then every file must be
 * byte-identical afterwards. The one exception is trace_clock: a tracefs
 * lists the clocks with the current one in brackets, and memtrace restores
 * it by name; it is compared as the clock selected.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "tracefs.h"

#define CLOCKS	"[local] global counter uptime perf mono mono_raw boot\n"

/* the fake tracefs: each file with its value as memtrace would write it back */
static void fake_tree(void)
{
	static const struct { const char *rel, *val; } files[] = {
		{ "tracing_on", "1" },
		{ "trace_clock", CLOCKS },
		{ "buffer_size_kb", "1408" },
		{ "buffer_percent", "50" },
		{ "free_buffer", "" },
		{ "trace_pipe", "" },
		{ "per_cpu/cpu0/trace_pipe_raw", "" },
		{ "per_cpu/cpu1/trace_pipe_raw", "" },
		{ "per_cpu/cpu0/stats", "overrun: 0\ncommit overrun: 0\ndropped events: 0\n" },
		{ "per_cpu/cpu1/stats", "overrun: 0\ncommit overrun: 0\ndropped events: 0\n" },
		{ "events/enable", "0" },
		{ "events/header_page", "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n" },
		{ "events/kmem/mm_page_alloc/enable", "0" },
		{ "events/kmem/mm_page_alloc/filter", "0" },
		{ "events/kmem/mm_page_alloc/trigger", "" },
		{ "events/kmem/mm_page_alloc/format", "name: mm_page_alloc\nID: 1\n" },
		/* enabled by someone else before: must be left enabled */
		{ "events/kmem/mm_page_free/enable", "1" },
		{ "events/kmem/mm_page_free/filter", "0" },
		{ "events/sched/sched_process_exec/enable", "0" },
		{ "events/sched/sched_process_exec/filter", "0" },
		{ "options/event-fork", "0" },
		{ "set_event_pid", "" },
	};
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		test_root_file(files[i].rel, files[i].val, strlen(files[i].val));
}

/* ------------------------------------------------------------ snapshots */

struct entry {
	char rel[256];
	mode_t type;
	char *data;
	size_t len;
};

struct snap {
	struct entry e[128];
	int n;
};

static struct snap *walk_into;

static int walk_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	struct entry *e;

	(void)flag;
	(void)ftw;
	ck_assert_int_lt(walk_into->n, 128);
	e = &walk_into->e[walk_into->n++];
	snprintf(e->rel, sizeof(e->rel), "%s", path + strlen(test_root));
	e->type = st->st_mode & S_IFMT;
	e->data = NULL;
	e->len = 0;
	if (S_ISREG(st->st_mode))
		e->data = read_path(path, &e->len);
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->rel, ((const struct entry *)b)->rel);
}

static void snapshot(struct snap *s)
{
	s->n = 0;
	walk_into = s;
	ck_assert_int_eq(nftw(test_root, walk_one, 16, FTW_PHYS), 0);
	qsort(s->e, (size_t)s->n, sizeof(s->e[0]), entry_cmp);
}

static void snap_free(struct snap *s)
{
	int i;

	for (i = 0; i < s->n; i++)
		free(s->e[i].data);
	s->n = 0;
}

/* The clock a trace_clock file selects: the bracketed word, or the whole (a written name). */
static void selected_clock(const struct entry *e, char *out, size_t size)
{
	const char *a = memchr(e->data, '[', e->len), *b = a ? strchr(a, ']') : NULL;

	if (a && b)
		snprintf(out, size, "%.*s", (int)(b - a - 1), a + 1);
	else
		snprintf(out, size, "%.*s", (int)strcspn(e->data, " \n"), e->data);
}

/* The tree is as @before: the same paths, types and bytes (trace_clock: the same clock). */
static void assert_as_before(struct snap *before)
{
	struct snap *after = malloc(sizeof(*after));
	int i;

	ck_assert_ptr_nonnull(after);
	snapshot(after);
	for (i = 0; i < before->n && i < after->n; i++) {
		const struct entry *b = &before->e[i], *a = &after->e[i];

		ck_assert_msg(!strcmp(b->rel, a->rel), "tree changed: %s before, %s after",
			      b->rel, a->rel);
		ck_assert_msg(b->type == a->type, "%s: file type changed", b->rel);
		if (!b->data)
			continue;
		if (!strcmp(b->rel, "/trace_clock")) {
			char cb[32], ca[32];

			selected_clock(b, cb, sizeof(cb));
			selected_clock(a, ca, sizeof(ca));
			ck_assert_msg(!strcmp(cb, ca), "trace_clock: \"%s\" before, \"%s\" after",
				      cb, ca);
			continue;
		}
		ck_assert_msg(b->len == a->len && !memcmp(b->data, a->data, b->len),
			      "%s: \"%s\" before, \"%s\" after", b->rel, b->data, a->data);
	}
	ck_assert_msg(before->n == after->n, "%d entries before, %d after", before->n, after->n);
	snap_free(after);
	free(after);
}

/* --------------------------------------------------------------- setups */

static struct tracefs t;
static struct snap *before;
static char err[512];

static void tfs_setup(void)
{
	test_root_setup();
	fake_tree();
	before = malloc(sizeof(*before));
	ck_assert_ptr_nonnull(before);
	snapshot(before);
}

static void tfs_teardown(void)
{
	snap_free(before);
	free(before);
	test_root_teardown();
}

static void file_is(const char *rel, const char *want)
{
	char p[PATH_MAX], *got;
	size_t len;

	snprintf(p, sizeof(p), "%s/%s", test_root, rel);
	got = read_path(p, &len);
	ck_assert_msg(!strcmp(got, want), "%s: \"%s\", want \"%s\"", rel, got, want);
	free(got);
}

/* find -> top level -> configure -> enable -> open the CPUs -> tracing on */
static void full_setup(void)
{
	char mark[128], p[PATH_MAX], *got;
	size_t len;
	int n;

	ck_assert_int_eq(tracefs_find(&t, test_root, "/proc", err, sizeof(err)), TFS_OK);
	ck_assert_int_eq(tracefs_instance_create(&t, "memtrace", "/proc", err, sizeof(err)),
			 TFS_OK);
	ck_assert(t.top_level);
	ck_assert_int_eq(tracefs_configure(&t, 4096, 25, getpid(), err, sizeof(err)), TFS_OK);
	ck_assert_int_eq(tracefs_enable(&t, "kmem", "mm_page_alloc"), 0);
	ck_assert_int_eq(tracefs_enable(&t, "kmem", "mm_page_free"), 0);
	ck_assert_int_eq(tracefs_open_cpus(&t, err, sizeof(err)), TFS_OK);
	ck_assert_int_eq(t.ncpus, 2);
	ck_assert_int_eq(tracefs_tracing_on(&t, true), 0);
	/* it did change the top level: else "restored" would prove nothing */
	file_is("tracing_on", "1");
	file_is("trace_clock", "mono");
	file_is("buffer_size_kb", "4096");
	file_is("buffer_percent", "25");
	file_is("events/kmem/mm_page_alloc/enable", "1");
	/* the owner mark: memtrace's name, its pid twice, a token of 16 hex digits */
	snprintf(p, sizeof(p), "%s/events/sched/sched_process_exec/filter", test_root);
	got = read_path(p, &len);
	n = snprintf(mark, sizeof(mark), "common_pid != %d && filename != \"memtrace-owner:%d:",
		     (int)getpid(), (int)getpid());
	ck_assert_msg(!strncmp(got, mark, (size_t)n) && strlen(got) == (size_t)n + 17 &&
		      strspn(got + n, "0123456789abcdef") == 16 && got[n + 16] == '"',
		      "owner mark \"%s\"", got);
	free(got);
}

START_TEST(test_teardown_restores)
{
	full_setup();
	tracefs_teardown(&t);
	assert_as_before(before);
	/* and again: safe to call more than once */
	tracefs_teardown(&t);
	assert_as_before(before);
}
END_TEST

/*
 * The emergency path in a child, as in the daemon (the caller exits right
 * after): it closes every fd from 3 up, Check's own among them. Its comment
 * in tracefs.c: at the top level "every setting as it was, tracing_on last"
 * (the header says "events off", which is an instance's case: at the top
 * level an event enabled before stays enabled). The child also checks that
 * the CPUs' fds are closed.
 */
START_TEST(test_emergency_restores)
{
	pid_t pid;
	int status, i;

	full_setup();
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		tracefs_emergency_cleanup();
		for (i = 0; i < t.ncpus; i++)
			if (t.fds[i] >= 0 && fcntl(t.fds[i], F_GETFD) != -1)
				_exit(2);
		_exit(t.any_fd >= 0 && fcntl(t.any_fd, F_GETFD) != -1 ? 3 : 0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "emergency child: status %#x (2: a CPU fd open, 3: trace_pipe open)",
		      (unsigned)status);
	assert_as_before(before);
	tracefs_teardown(&t);
	assert_as_before(before);
}
END_TEST

/* ------------------------------------------------------- partial setups */

START_TEST(test_teardown_after_find)
{
	ck_assert_int_eq(tracefs_find(&t, test_root, "/proc", err, sizeof(err)), TFS_OK);
	tracefs_teardown(&t);
	assert_as_before(before);
}
END_TEST

START_TEST(test_teardown_after_instance_create)
{
	ck_assert_int_eq(tracefs_find(&t, test_root, "/proc", err, sizeof(err)), TFS_OK);
	ck_assert_int_eq(tracefs_instance_create(&t, "memtrace", "/proc", err, sizeof(err)),
			 TFS_OK);
	ck_assert(t.top_level);
	tracefs_teardown(&t);
	assert_as_before(before);
}
END_TEST

START_TEST(test_teardown_after_configure)
{
	ck_assert_int_eq(tracefs_find(&t, test_root, "/proc", err, sizeof(err)), TFS_OK);
	ck_assert_int_eq(tracefs_instance_create(&t, "memtrace", "/proc", err, sizeof(err)),
			 TFS_OK);
	ck_assert_int_eq(tracefs_configure(&t, 4096, 25, getpid(), err, sizeof(err)), TFS_OK);
	file_is("tracing_on", "0");
	file_is("trace_clock", "mono");
	tracefs_teardown(&t);
	assert_as_before(before);
}
END_TEST

/* an event without an enable file: the enable fails, and nothing is created for it */
START_TEST(test_teardown_after_failed_enable)
{
	ck_assert_int_eq(tracefs_find(&t, test_root, "/proc", err, sizeof(err)), TFS_OK);
	ck_assert_int_eq(tracefs_instance_create(&t, "memtrace", "/proc", err, sizeof(err)),
			 TFS_OK);
	ck_assert_int_eq(tracefs_configure(&t, 4096, 25, getpid(), err, sizeof(err)), TFS_OK);
	ck_assert_int_eq(tracefs_enable(&t, "kmem", "mm_page_alloc"), 0);
	ck_assert_int_eq(tracefs_enable(&t, "kmem", "mm_page_alloc_zone_locked"), -ENOENT);
	tracefs_teardown(&t);
	assert_as_before(before);
}
END_TEST

/* configure fails half way (no buffer_size_kb): tracing_on was already written */
START_TEST(test_teardown_after_failed_configure)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/buffer_size_kb", test_root);
	ck_assert_int_eq(unlink(p), 0);
	snap_free(before);
	snapshot(before);
	ck_assert_int_eq(tracefs_find(&t, test_root, "/proc", err, sizeof(err)), TFS_OK);
	ck_assert_int_eq(tracefs_instance_create(&t, "memtrace", "/proc", err, sizeof(err)),
			 TFS_OK);
	ck_assert_int_ne(tracefs_configure(&t, 4096, 25, getpid(), err, sizeof(err)), TFS_OK);
	file_is("tracing_on", "0");
	tracefs_teardown(&t);
	assert_as_before(before);
}
END_TEST

/*
 * With instances/ (a plain directory): the instance made is a plain empty
 * directory, which no setting can be written into; a teardown right after
 * removes it.
 */
START_TEST(test_teardown_removes_instance)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/instances", test_root);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snap_free(before);
	snapshot(before);
	ck_assert_int_eq(tracefs_find(&t, test_root, "/proc", err, sizeof(err)), TFS_OK);
	ck_assert_int_eq(tracefs_instance_create(&t, "memtrace", "/proc", err, sizeof(err)),
			 TFS_OK);
	ck_assert(!t.top_level);
	ck_assert(t.instance_created);
	snprintf(p, sizeof(p), "%s/instances/memtrace", test_root);
	ck_assert_int_eq(access(p, F_OK), 0);
	tracefs_teardown(&t);
	assert_as_before(before);
}
END_TEST

Suite *suite_tracefs(void)
{
	Suite *s = suite_create("tracefs");
	TCase *tc = tcase_create("restore");

	tcase_add_checked_fixture(tc, tfs_setup, tfs_teardown);
	tcase_add_test(tc, test_teardown_restores);
	tcase_add_test(tc, test_emergency_restores);
	tcase_add_test(tc, test_teardown_after_find);
	tcase_add_test(tc, test_teardown_after_instance_create);
	tcase_add_test(tc, test_teardown_after_configure);
	tcase_add_test(tc, test_teardown_after_failed_enable);
	tcase_add_test(tc, test_teardown_after_failed_configure);
	tcase_add_test(tc, test_teardown_removes_instance);
	suite_add_tcase(s, tc);
	return s;
}
