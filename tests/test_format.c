// SPDX-License-Identifier: GPL-2.0-only
/* test_format.c - unit tests of the format-file and header_page parsers and field readers */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/format.h"
#include "testutil.h"

/* what a format file says about one field */
struct want_field {
	const char *name;
	uint32_t offset, size;
	int is_signed;
	int kind;
};

#define COMMON_FIELDS						\
	{ "common_type", 0, 2, 0, FMT_PLAIN },			\
	{ "common_flags", 2, 1, 0, FMT_PLAIN },			\
	{ "common_preempt_count", 3, 1, 0, FMT_PLAIN },		\
	{ "common_pid", 4, 4, 1, FMT_PLAIN }

struct want_event {
	const char *path;	/* relative to fixtures_dir */
	const char *name;
	uint32_t id;
	struct want_field f[16];
};

/* Copied from the fixtures' format files. */
static const struct want_event want_events[] = {
	{ "linux-6.18/events/kmem/mm_page_alloc/format", "mm_page_alloc", 653, {
		COMMON_FIELDS,
		{ "pfn", 8, 8, 0, FMT_PLAIN }, { "order", 16, 4, 0, FMT_PLAIN },
		{ "gfp_flags", 24, 8, 0, FMT_PLAIN }, { "migratetype", 32, 4, 1, FMT_PLAIN } } },
	{ "linux-6.18/events/kmem/mm_page_free/format", "mm_page_free", 655, {
		COMMON_FIELDS,
		{ "pfn", 8, 8, 0, FMT_PLAIN }, { "order", 16, 4, 0, FMT_PLAIN } } },
	{ "linux-6.18/events/kmem/mm_page_free_batched/format", "mm_page_free_batched", 654, {
		COMMON_FIELDS, { "pfn", 8, 8, 0, FMT_PLAIN } } },
	{ "linux-6.18/events/oom/mark_victim/format", "mark_victim", 609, {
		COMMON_FIELDS,
		{ "pid", 8, 4, 1, FMT_PLAIN }, { "comm", 12, 4, 0, FMT_DATA_LOC },
		{ "total_vm", 16, 8, 0, FMT_PLAIN }, { "anon_rss", 24, 8, 0, FMT_PLAIN },
		{ "file_rss", 32, 8, 0, FMT_PLAIN }, { "shmem_rss", 40, 8, 0, FMT_PLAIN },
		{ "uid", 48, 4, 0, FMT_PLAIN }, { "pgtables", 56, 8, 0, FMT_PLAIN },
		{ "oom_score_adj", 64, 2, 1, FMT_PLAIN } } },
	{ "linux-6.18/events/sched/sched_process_exec/format", "sched_process_exec", 365, {
		COMMON_FIELDS,
		{ "filename", 8, 4, 0, FMT_DATA_LOC }, { "pid", 12, 4, 1, FMT_PLAIN },
		{ "old_pid", 16, 4, 1, FMT_PLAIN } } },
	{ "linux-6.18/events/sched/sched_process_exit/format", "sched_process_exit", 369, {
		COMMON_FIELDS,
		{ "comm", 8, 16, 0, FMT_ARRAY }, { "pid", 24, 4, 1, FMT_PLAIN },
		{ "prio", 28, 4, 1, FMT_PLAIN }, { "group_dead", 32, 1, 0, FMT_PLAIN } } },
	{ "linux-6.18/events/sched/sched_process_fork/format", "sched_process_fork", 366, {
		COMMON_FIELDS,
		{ "parent_comm", 8, 4, 0, FMT_DATA_LOC }, { "parent_pid", 12, 4, 1, FMT_PLAIN },
		{ "child_comm", 16, 4, 0, FMT_DATA_LOC }, { "child_pid", 20, 4, 1, FMT_PLAIN } } },
	{ "linux-6.18/events/task/task_newtask/format", "task_newtask", 205, {
		COMMON_FIELDS,
		{ "pid", 8, 4, 1, FMT_PLAIN }, { "comm", 12, 16, 0, FMT_ARRAY },
		{ "clone_flags", 32, 8, 0, FMT_PLAIN }, { "oom_score_adj", 40, 2, 1, FMT_PLAIN } } },
	{ "linux-6.18/events/task/task_rename/format", "task_rename", 204, {
		COMMON_FIELDS,
		{ "pid", 8, 4, 1, FMT_PLAIN }, { "oldcomm", 12, 16, 0, FMT_ARRAY },
		{ "newcomm", 28, 16, 0, FMT_ARRAY }, { "oom_score_adj", 44, 2, 1, FMT_PLAIN } } },
	{ "debian-6.1/events/kmem/mm_page_alloc/format", "mm_page_alloc", 542, {
		COMMON_FIELDS,
		{ "pfn", 8, 8, 0, FMT_PLAIN }, { "order", 16, 4, 0, FMT_PLAIN },
		{ "gfp_flags", 24, 8, 0, FMT_PLAIN }, { "migratetype", 32, 4, 1, FMT_PLAIN } } },
	{ "debian-6.1/events/kmem/mm_page_free/format", "mm_page_free", 544, {
		COMMON_FIELDS,
		{ "pfn", 8, 8, 0, FMT_PLAIN }, { "order", 16, 4, 0, FMT_PLAIN } } },
	{ "debian-6.1/events/kmem/mm_page_free_batched/format", "mm_page_free_batched", 543, {
		COMMON_FIELDS, { "pfn", 8, 8, 0, FMT_PLAIN } } },
	{ "debian-6.1/events/module/module_free/format", "module_free", 356, {
		COMMON_FIELDS, { "name", 8, 4, 1, FMT_DATA_LOC } } },
	{ "debian-6.1/events/module/module_get/format", "module_get", 355, {
		COMMON_FIELDS,
		{ "ip", 8, 8, 0, FMT_PLAIN }, { "refcnt", 16, 4, 1, FMT_PLAIN },
		{ "name", 20, 4, 1, FMT_DATA_LOC } } },
	{ "debian-6.1/events/module/module_load/format", "module_load", 357, {
		COMMON_FIELDS,
		{ "taints", 8, 4, 0, FMT_PLAIN }, { "name", 12, 4, 1, FMT_DATA_LOC } } },
	{ "debian-6.1/events/module/module_put/format", "module_put", 354, {
		COMMON_FIELDS,
		{ "ip", 8, 8, 0, FMT_PLAIN }, { "refcnt", 16, 4, 1, FMT_PLAIN },
		{ "name", 20, 4, 1, FMT_DATA_LOC } } },
	{ "debian-6.1/events/oom/mark_victim/format", "mark_victim", 506, {
		COMMON_FIELDS,
		{ "pid", 8, 4, 1, FMT_PLAIN }, { "comm", 12, 4, 1, FMT_DATA_LOC },
		{ "total_vm", 16, 8, 0, FMT_PLAIN }, { "anon_rss", 24, 8, 0, FMT_PLAIN },
		{ "file_rss", 32, 8, 0, FMT_PLAIN }, { "shmem_rss", 40, 8, 0, FMT_PLAIN },
		{ "uid", 48, 4, 0, FMT_PLAIN }, { "pgtables", 56, 8, 0, FMT_PLAIN },
		{ "oom_score_adj", 64, 2, 1, FMT_PLAIN } } },
	{ "debian-6.1/events/sched/sched_process_exec/format", "sched_process_exec", 307, {
		COMMON_FIELDS,
		{ "filename", 8, 4, 1, FMT_DATA_LOC }, { "pid", 12, 4, 1, FMT_PLAIN },
		{ "old_pid", 16, 4, 1, FMT_PLAIN } } },
	{ "debian-6.1/events/sched/sched_process_exit/format", "sched_process_exit", 311, {
		COMMON_FIELDS,
		{ "comm", 8, 16, 1, FMT_ARRAY }, { "pid", 24, 4, 1, FMT_PLAIN },
		{ "prio", 28, 4, 1, FMT_PLAIN } } },
	{ "debian-6.1/events/sched/sched_process_fork/format", "sched_process_fork", 308, {
		COMMON_FIELDS,
		{ "parent_comm", 8, 16, 1, FMT_ARRAY }, { "parent_pid", 24, 4, 1, FMT_PLAIN },
		{ "child_comm", 28, 16, 1, FMT_ARRAY }, { "child_pid", 44, 4, 1, FMT_PLAIN } } },
	{ "debian-6.1/events/syscalls/sys_enter_finit_module/format", "sys_enter_finit_module", 348, {
		COMMON_FIELDS,
		{ "__syscall_nr", 8, 4, 1, FMT_PLAIN }, { "fd", 16, 8, 0, FMT_PLAIN },
		{ "uargs", 24, 8, 0, FMT_PLAIN }, { "flags", 32, 8, 0, FMT_PLAIN } } },
	{ "debian-6.1/events/syscalls/sys_enter_init_module/format", "sys_enter_init_module", 350, {
		COMMON_FIELDS,
		{ "__syscall_nr", 8, 4, 1, FMT_PLAIN }, { "umod", 16, 8, 0, FMT_PLAIN },
		{ "len", 24, 8, 0, FMT_PLAIN }, { "uargs", 32, 8, 0, FMT_PLAIN } } },
	{ "debian-6.1/events/syscalls/sys_exit_finit_module/format", "sys_exit_finit_module", 347, {
		COMMON_FIELDS,
		{ "__syscall_nr", 8, 4, 1, FMT_PLAIN }, { "ret", 16, 8, 1, FMT_PLAIN } } },
	{ "debian-6.1/events/syscalls/sys_exit_init_module/format", "sys_exit_init_module", 349, {
		COMMON_FIELDS,
		{ "__syscall_nr", 8, 4, 1, FMT_PLAIN }, { "ret", 16, 8, 1, FMT_PLAIN } } },
	{ "debian-6.1/events/task/task_newtask/format", "task_newtask", 127, {
		COMMON_FIELDS,
		{ "pid", 8, 4, 1, FMT_PLAIN }, { "comm", 12, 16, 1, FMT_ARRAY },
		{ "clone_flags", 32, 8, 0, FMT_PLAIN }, { "oom_score_adj", 40, 2, 1, FMT_PLAIN } } },
	{ "debian-6.1/events/task/task_rename/format", "task_rename", 126, {
		COMMON_FIELDS,
		{ "pid", 8, 4, 1, FMT_PLAIN }, { "oldcomm", 12, 16, 1, FMT_ARRAY },
		{ "newcomm", 28, 16, 1, FMT_ARRAY }, { "oom_score_adj", 44, 2, 1, FMT_PLAIN } } },
};

#define NWANT (sizeof(want_events) / sizeof(want_events[0]))

static int parse(struct fmt_event *ev, const char *text, char *err, size_t errlen)
{
	err[0] = '\0';
	return fmt_parse_event(ev, text, strlen(text), err, errlen);
}

/* parse must fail with a message */
static void expect_fail(const char *text, size_t len)
{
	struct fmt_event *ev = malloc(sizeof(*ev));
	char err[256];

	memset(err, 0, sizeof(err));
	ck_assert_int_eq(fmt_parse_event(ev, text, len, err, sizeof(err)), -1);
	ck_assert_msg(err[0] != '\0', "no message for input '%.60s'", text);
	ck_assert_uint_lt(strlen(err), sizeof(err));
	/* no message buffer at all must not crash either */
	ck_assert_int_eq(fmt_parse_event(ev, text, len, NULL, 0), -1);
	free(ev);
}

#define HEAD "name: ev\nID: 42\nformat:\n"				\
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"	\
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/* every field of every fixture format file, against the table above */
START_TEST(test_fixture_formats)
{
	const struct want_event *w = &want_events[_i];
	struct fmt_event *ev = malloc(sizeof(*ev));
	char err[256] = "";
	size_t len, n;
	char *text = read_fixture(w->path, &len);
	char *exact = malloc(len);

	/* the parser must not need a terminating NUL */
	memcpy(exact, text, len);
	ck_assert_msg(fmt_parse_event(ev, exact, len, err, sizeof(err)) == 0,
		      "%s: %s", w->path, err);
	ck_assert_str_eq(ev->name, w->name);
	ck_assert_uint_eq(ev->id, w->id);
	for (n = 0; w->f[n].name; n++)
		;
	ck_assert_uint_eq(ev->nfields, n);
	for (n = 0; n < ev->nfields; n++) {
		const struct fmt_field *f = &ev->fields[n];
		const struct want_field *wf = &w->f[n];

		ck_assert_str_eq(f->name, wf->name);
		ck_assert_uint_eq(f->offset, wf->offset);
		ck_assert_uint_eq(f->size, wf->size);
		ck_assert_uint_eq(f->is_signed, wf->is_signed);
		ck_assert_int_eq(f->kind, wf->kind);
		ck_assert_uint_eq(f->common, strncmp(wf->name, "common_", 7) == 0);
		ck_assert_ptr_eq(fmt_find(ev, wf->name), f);
	}
	ck_assert_ptr_null(fmt_find(ev, "no_such_field"));
	ck_assert_ptr_null(fmt_find(ev, ""));
	free(exact);
	free(text);
	free(ev);
}
END_TEST

/* header_page of both kernels: 6.1 says the data is signed, that must not matter */
START_TEST(test_header_page_fixtures)
{
	static const char *const files[] = {
		"linux-6.18/events/header_page", "debian-6.1/events/header_page",
	};
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct rb_layout l;
		char err[256] = "";
		size_t len;
		char *text = read_fixture(files[i], &len);

		ck_assert_msg(fmt_parse_header_page(&l, text, len, err, sizeof(err)) == 0,
			      "%s: %s", files[i], err);
		ck_assert_uint_eq(l.ts_off, 0);
		ck_assert_uint_eq(l.commit_off, 8);
		ck_assert_uint_eq(l.commit_size, 8);
		ck_assert_uint_eq(l.data_off, 16);
		ck_assert_uint_eq(l.data_size, 4080);
		ck_assert_uint_eq(rb_subbuf_size(&l), 4096);
		free(text);
	}
}
END_TEST

START_TEST(test_header_page_built)
{
	static const char h32[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield: char data;\toffset:12;\tsize:4084;\tsigned:0;\n";
	static const char h8k[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield: char data;\toffset:16;\tsize:8176;\tsigned:0;\n";
	static const char *const bad[] = {
		/* no data */
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n",
		/* no commit */
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n",
		/* no timestamp */
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n",
		/* commit of 2 bytes */
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:2;\tsigned:1;\n"
		"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n",
		/* timestamp of 4 bytes */
		"\tfield: u64 timestamp;\toffset:0;\tsize:4;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n",
		/* data overlapping the commit */
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield: char data;\toffset:12;\tsize:4080;\tsigned:0;\n",
		/* data overlapping the timestamp */
		"\tfield: u64 timestamp;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:0;\tsize:8;\tsigned:1;\n"
		"\tfield: char data;\toffset:12;\tsize:4080;\tsigned:0;\n",
		/* no room for data */
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield: char data;\toffset:16;\tsize:0;\tsigned:0;\n",
		/* garbage size */
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield: char data;\toffset:16;\tsize:lots;\tsigned:0;\n",
		"",
		"garbage\n",
	};
	struct rb_layout l;
	char err[256];
	unsigned int i;

	ck_assert_int_eq(fmt_parse_header_page(&l, h32, strlen(h32), err, sizeof(err)), 0);
	ck_assert_uint_eq(l.ts_off, 0);
	ck_assert_uint_eq(l.commit_off, 8);
	ck_assert_uint_eq(l.commit_size, 4);
	ck_assert_uint_eq(l.data_off, 12);
	ck_assert_uint_eq(l.data_size, 4084);
	ck_assert_uint_eq(rb_subbuf_size(&l), 4096);

	ck_assert_int_eq(fmt_parse_header_page(&l, h8k, strlen(h8k), err, sizeof(err)), 0);
	ck_assert_uint_eq(l.data_size, 8176);
	ck_assert_uint_eq(rb_subbuf_size(&l), 8192);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ck_assert_msg(fmt_parse_header_page(&l, bad[i], strlen(bad[i]), err,
						    sizeof(err)) == -1, "bad[%u] accepted", i);
		ck_assert_msg(err[0] != '\0', "bad[%u]: no message", i);
		ck_assert_int_eq(fmt_parse_header_page(&l, bad[i], strlen(bad[i]), NULL, 0), -1);
	}
}
END_TEST

/* declarations: name is the last identifier before [..]; kinds */
START_TEST(test_declarations)
{
	static const char text[] = HEAD
		"\tfield:const char * uargs;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n"
		"\tfield:__data_loc char[] filename;\toffset:64;\tsize:4;\tsigned:0;\n"
		"\tfield:__rel_loc char[] msg;\toffset:68;\tsize:4;\tsigned:0;\n"
		"\tfield:char buf[];\toffset:72;\tsize:0;\tsigned:0;\n"
		"\tfield:  int   spaced  ;  offset: 76 ;  size: 4 ;  signed: 1 ;\n"
		"\tfield:u8 odd;\toffset:80;\tsize:1;\tsigned:0;\tunknown:7;\n"
		"\n"
		"print fmt: \"whatever\", REC->x\n"
		"\tfield:int after_print_fmt;\toffset:90;\tsize:4;\tsigned:0;\n";
	struct fmt_event *ev = malloc(sizeof(*ev));
	const struct fmt_field *f;
	char err[256];

	ck_assert_msg(parse(ev, text, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(ev->name, "ev");
	ck_assert_uint_eq(ev->id, 42);
	ck_assert_uint_eq(ev->nfields, 9);
	f = fmt_find(ev, "uargs");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->kind, FMT_PLAIN);
	ck_assert_uint_eq(f->size, 8);
	ck_assert(!f->common);
	f = fmt_find(ev, "args");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->kind, FMT_ARRAY);
	ck_assert_uint_eq(f->offset, 16);
	ck_assert_uint_eq(f->size, 48);
	f = fmt_find(ev, "filename");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->kind, FMT_DATA_LOC);
	f = fmt_find(ev, "msg");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->kind, FMT_REL_LOC);
	ck_assert_uint_eq(f->offset, 68);
	f = fmt_find(ev, "buf");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->kind, FMT_DYN_TAIL);
	ck_assert_uint_eq(f->size, 0);
	f = fmt_find(ev, "spaced");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->offset, 76);
	ck_assert_uint_eq(f->size, 4);
	ck_assert_uint_eq(f->is_signed, 1);
	f = fmt_find(ev, "odd");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->offset, 80);
	ck_assert_ptr_null(fmt_find(ev, "after_print_fmt"));
	ck_assert(fmt_find(ev, "common_pid")->common);
	free(ev);
}
END_TEST

/* exactly FMT_MAX_FIELDS fields is fine, one more is not */
START_TEST(test_max_fields)
{
	size_t cap = 64 * 1024, pos;
	char *text = malloc(cap);
	struct fmt_event *ev = malloc(sizeof(*ev));
	char err[256];
	int i;

	pos = (size_t)snprintf(text, cap, "%s", HEAD);
	for (i = 2; i < FMT_MAX_FIELDS; i++)
		pos += (size_t)snprintf(text + pos, cap - pos,
					"\tfield:int f%d;\toffset:%d;\tsize:4;\tsigned:1;\n",
					i, 8 + 4 * i);
	ck_assert_msg(parse(ev, text, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(ev->nfields, FMT_MAX_FIELDS);
	ck_assert_uint_eq(fmt_find(ev, "f47")->offset, 8 + 4 * 47);
	snprintf(text + pos, cap - pos, "\tfield:int one_more;\toffset:500;\tsize:4;\tsigned:1;\n");
	expect_fail(text, strlen(text));
	free(ev);
	free(text);
}
END_TEST

/* a field line longer than the line buffer */
START_TEST(test_long_lines)
{
	size_t cap = 8192, pos;
	char *text = malloc(cap);
	struct fmt_event *ev = malloc(sizeof(*ev));
	char err[256];
	int i;

	pos = (size_t)snprintf(text, cap, "%s\tfield:int x", HEAD);
	for (i = 0; i < 1000; i++)
		text[pos++] = 'x';
	snprintf(text + pos, cap - pos, ";\toffset:8;\tsize:4;\tsigned:1;\n");
	expect_fail(text, strlen(text));

	/* same with spaces: the attributes fall beyond the buffer */
	pos = (size_t)snprintf(text, cap, "%s\tfield:int x;", HEAD);
	for (i = 0; i < 1000; i++)
		text[pos++] = ' ';
	snprintf(text + pos, cap - pos, "offset:8;\tsize:4;\tsigned:1;\n");
	expect_fail(text, strlen(text));

	/* a long print fmt line (as mm_page_alloc has) does not matter */
	pos = (size_t)snprintf(text, cap, "%sprint fmt: \"", HEAD);
	for (i = 0; i < 3000; i++)
		text[pos++] = 'p';
	snprintf(text + pos, cap - pos, "\"\n");
	ck_assert_msg(parse(ev, text, err, sizeof(err)) == 0, "%s", err);

	/* a name longer than FMT_NAME_MAX */
	pos = (size_t)snprintf(text, cap, "name: ");
	for (i = 0; i < FMT_NAME_MAX; i++)
		text[pos++] = 'n';
	snprintf(text + pos, cap - pos, "\nID: 1\nformat:\n"
		 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n");
	expect_fail(text, strlen(text));

	/* a field name longer than FMT_NAME_MAX */
	pos = (size_t)snprintf(text, cap, "%s\tfield:int ", HEAD);
	for (i = 0; i < FMT_NAME_MAX; i++)
		text[pos++] = 'f';
	snprintf(text + pos, cap - pos, ";\toffset:8;\tsize:4;\tsigned:1;\n");
	expect_fail(text, strlen(text));
	free(ev);
	free(text);
}
END_TEST

START_TEST(test_malformed)
{
	static const char *const bad[] = {
		/* no name */
		"ID: 42\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n",
		/* empty name */
		"name: \nID: 42\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n",
		/* no ID */
		"name: ev\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n",
		/* ID not a number, negative, too big for common_type */
		"name: ev\nID: abc\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n",
		"name: ev\nID: -1\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n",
		"name: ev\nID: 65536\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n",
		"name: ev\nID: 12x\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n",
		/* no common_type */
		"name: ev\nID: 42\nformat:\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n",
		/* bad offset */
		HEAD "\tfield:int x;\toffset:x;\tsize:4;\tsigned:1;\n",
		HEAD "\tfield:int x;\toffset:-8;\tsize:4;\tsigned:1;\n",
		HEAD "\tfield:int x;\toffset:;\tsize:4;\tsigned:1;\n",
		HEAD "\tfield:int x;\toffset:8 9;\tsize:4;\tsigned:1;\n",
		/* size not a number */
		HEAD "\tfield:int x;\toffset:8;\tsize:four;\tsigned:1;\n",
		HEAD "\tfield:int x;\toffset:8;\tsize:0x4;\tsigned:1;\n",
		/* signed not a number */
		HEAD "\tfield:int x;\toffset:8;\tsize:4;\tsigned:yes;\n",
		/* huge offsets and sizes */
		HEAD "\tfield:int x;\toffset:65536;\tsize:4;\tsigned:1;\n",
		HEAD "\tfield:int x;\toffset:4294967304;\tsize:4;\tsigned:1;\n",
		HEAD "\tfield:int x;\toffset:99999999999999999999999;\tsize:4;\tsigned:1;\n",
		HEAD "\tfield:int x;\toffset:8;\tsize:18446744073709551620;\tsigned:1;\n",
		/* missing ';' */
		HEAD "\tfield:int x\toffset:8\tsize:4\tsigned:1\n",
		HEAD "\tfield:int x;\toffset:8\tsize:4;\tsigned:1;\n",
		/* attribute without ':' */
		HEAD "\tfield:int x;\toffset 8;\tsize:4;\tsigned:1;\n",
		/* offset or size missing */
		HEAD "\tfield:int x;\tsize:4;\tsigned:1;\n",
		HEAD "\tfield:int x;\toffset:8;\tsigned:1;\n",
		/* no name in the declaration */
		HEAD "\tfield:;\toffset:8;\tsize:4;\tsigned:1;\n",
		HEAD "\tfield:***;\toffset:8;\tsize:4;\tsigned:1;\n",
		/* dynamic field that is not a u32 */
		HEAD "\tfield:__data_loc char[] s;\toffset:8;\tsize:8;\tsigned:0;\n",
		HEAD "\tfield:__rel_loc char[] s;\toffset:8;\tsize:2;\tsigned:0;\n",
		/* empty and nearly empty */
		"",
		"\n",
		"   \n\t\n",
		"format:\n",
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_fail(bad[i], strlen(bad[i]));
}
END_TEST

/* NUL bytes inside the text: no crash, no acceptance of the damaged line */
START_TEST(test_nul_bytes)
{
	static const char in_field[] = HEAD
		"\tfield:int x;\toff\0set:8;\tsize:4;\tsigned:1;\n";
	static const char in_name[] = "name: e\0v\nID: 42\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n";
	static const char in_decl[] = HEAD
		"\tfield:int \0x;\toffset:8;\tsize:4;\tsigned:1;\n";
	struct fmt_event *ev = malloc(sizeof(*ev));
	char err[256] = "";
	char *all0 = calloc(1, 4096);

	expect_fail(in_field, sizeof(in_field) - 1);
	expect_fail(in_name, sizeof(in_name) - 1);
	expect_fail(in_decl, sizeof(in_decl) - 1);
	expect_fail(all0, 4096);
	/* a NUL after the real text: the rest is just another (unknown) line */
	ck_assert_int_eq(fmt_parse_event(ev, HEAD "\0", sizeof(HEAD), err, sizeof(err)), 0);
	free(all0);
	free(ev);
}
END_TEST

/* a short message buffer gets a truncated, terminated message */
START_TEST(test_short_err_buffer)
{
	struct fmt_event *ev = malloc(sizeof(*ev));
	char err[8];

	memset(err, 'Z', sizeof(err));
	ck_assert_int_eq(fmt_parse_event(ev, "", 0, err, sizeof(err)), -1);
	ck_assert_uint_lt(strlen(err), sizeof(err));
	ck_assert_uint_gt(strlen(err), 0);
	free(ev);
}
END_TEST

/* random bytes and random mutations of a real file: never crash */
START_TEST(test_fuzz_parse)
{
	size_t len;
	char *text = read_fixture("linux-6.18/events/oom/mark_victim/format", &len);
	char *buf = malloc(len);
	struct fmt_event *ev = malloc(sizeof(*ev));
	struct rb_layout l;
	char err[128];
	uint64_t st = 88172645463325252ULL;
	int i, ok = 0;

	for (i = 0; i < 5000; i++) {
		int k, nmut = 1 + i % 8;

		memcpy(buf, text, len);
		for (k = 0; k < nmut; k++) {
			st ^= st << 13;
			st ^= st >> 7;
			st ^= st << 17;
			buf[st % len] = (char)(st >> 32);
		}
		err[0] = '\0';
		if (fmt_parse_event(ev, buf, len, err, sizeof(err)) == 0) {
			uint32_t j;

			ok++;
			if (ev->nfields > FMT_MAX_FIELDS)
				ck_abort_msg("nfields %u", ev->nfields);
			for (j = 0; j < ev->nfields; j++)
				if (ev->fields[j].offset > 65535 || ev->fields[j].size > 65535 ||
				    memchr(ev->fields[j].name, '\0', FMT_NAME_MAX) == NULL)
					ck_abort_msg("bad field accepted");
		} else if (!err[0]) {
			ck_abort_msg("failure without message");
		}
		fmt_parse_header_page(&l, buf, len, err, sizeof(err));
	}
	ck_assert_int_gt(ok, 0);
	free(ev);
	free(buf);
	free(text);
}
END_TEST

static struct fmt_field mkfield(uint32_t offset, uint32_t size, int is_signed, int kind)
{
	struct fmt_field f;

	memset(&f, 0, sizeof(f));
	strcpy(f.name, "f");
	f.offset = offset;
	f.size = size;
	f.is_signed = (uint8_t)is_signed;
	f.kind = (uint8_t)kind;
	return f;
}

START_TEST(test_get_int)
{
	uint8_t p[40];
	struct fmt_field f;
	uint64_t v;

	memset(p, 0, sizeof(p));
	p[1] = 0x80;
	memcpy(p + 2, "\x00\x80", 2);			/* u16 0x8000 */
	memcpy(p + 4, "\xfe\xff\xff\xff", 4);		/* u32 0xfffffffe */
	memcpy(p + 8, "\x00\x00\x00\x00\x00\x00\x00\x80", 8);
	p[16] = 0x7f;
	memcpy(p + 17, "\xff\x7f", 2);			/* unaligned u16 0x7fff */
	memcpy(p + 21, "\x08\x07\x06\x05\x04\x03\x02\x81", 8);	/* unaligned u64 */

	f = mkfield(1, 1, 1, FMT_PLAIN);
	ck_assert(fmt_get_int(&f, p, sizeof(p), false, &v));
	ck_assert_uint_eq(v, 0xffffffffffffff80ULL);
	f.is_signed = 0;
	ck_assert(fmt_get_int(&f, p, sizeof(p), false, &v));
	ck_assert_uint_eq(v, 0x80);
	f = mkfield(16, 1, 1, FMT_PLAIN);
	ck_assert(fmt_get_int(&f, p, sizeof(p), false, &v));
	ck_assert_uint_eq(v, 0x7f);

	f = mkfield(2, 2, 1, FMT_PLAIN);
	ck_assert(fmt_get_int(&f, p, sizeof(p), false, &v));
	ck_assert_uint_eq(v, 0xffffffffffff8000ULL);
	f.is_signed = 0;
	ck_assert(fmt_get_int(&f, p, sizeof(p), false, &v));
	ck_assert_uint_eq(v, 0x8000);
	f = mkfield(17, 2, 1, FMT_PLAIN);
	ck_assert(fmt_get_int(&f, p, sizeof(p), false, &v));
	ck_assert_uint_eq(v, 0x7fff);

	f = mkfield(4, 4, 1, FMT_PLAIN);
	ck_assert(fmt_get_int(&f, p, sizeof(p), false, &v));
	ck_assert_int_eq((int64_t)v, -2);
	f.is_signed = 0;
	ck_assert(fmt_get_int(&f, p, sizeof(p), false, &v));
	ck_assert_uint_eq(v, 0xfffffffeULL);

	f = mkfield(8, 8, 1, FMT_PLAIN);
	ck_assert(fmt_get_int(&f, p, sizeof(p), false, &v));
	ck_assert_uint_eq(v, 0x8000000000000000ULL);
	f.is_signed = 0;
	ck_assert(fmt_get_int(&f, p, sizeof(p), false, &v));
	ck_assert_uint_eq(v, 0x8000000000000000ULL);
	f = mkfield(21, 8, 0, FMT_PLAIN);
	ck_assert(fmt_get_int(&f, p, sizeof(p), false, &v));
	ck_assert_uint_eq(v, 0x8102030405060708ULL);

	/* the field must lie inside the payload */
	f = mkfield(32, 8, 0, FMT_PLAIN);
	ck_assert(fmt_get_int(&f, p, 40, false, &v));
	ck_assert(!fmt_get_int(&f, p, 39, false, &v));
	f = mkfield(0xffff, 8, 0, FMT_PLAIN);
	ck_assert(!fmt_get_int(&f, p, sizeof(p), false, &v));
	f = mkfield(0xfffffff8u, 8, 0, FMT_PLAIN);	/* would wrap in 32 bits */
	ck_assert(!fmt_get_int(&f, p, sizeof(p), false, &v));
	/* only 1, 2, 4 and 8 bytes */
	v = 12345;
	f = mkfield(0, 3, 0, FMT_PLAIN);
	ck_assert(!fmt_get_int(&f, p, sizeof(p), false, &v));
	f = mkfield(0, 16, 0, FMT_PLAIN);
	ck_assert(!fmt_get_int(&f, p, sizeof(p), false, &v));
	f = mkfield(0, 0, 0, FMT_PLAIN);
	ck_assert(!fmt_get_int(&f, p, sizeof(p), false, &v));
	ck_assert_uint_eq(v, 12345);

	/* the same bytes from a big-endian kernel */
	f = mkfield(2, 2, 1, FMT_PLAIN);
	ck_assert(fmt_get_int(&f, p, sizeof(p), true, &v));
	ck_assert_uint_eq(v, 0x0080);
	f = mkfield(4, 4, 1, FMT_PLAIN);
	ck_assert(fmt_get_int(&f, p, sizeof(p), true, &v));
	ck_assert_uint_eq(v, 0xfffffffffeffffffULL);	/* 0xfeffffff, negative, extended */
	f = mkfield(21, 8, 0, FMT_PLAIN);
	ck_assert(fmt_get_int(&f, p, sizeof(p), true, &v));
	ck_assert_uint_eq(v, 0x0807060504030281ULL);
	f = mkfield(1, 1, 1, FMT_PLAIN);		/* one byte has no order */
	ck_assert(fmt_get_int(&f, p, sizeof(p), true, &v));
	ck_assert_uint_eq(v, 0xffffffffffffff80ULL);
}
END_TEST

static void put_loc(uint8_t *p, uint32_t off, uint32_t len)
{
	uint32_t v = (len << 16) | off;

	memcpy(p, &v, 4);
}

START_TEST(test_get_str)
{
	uint8_t p[64];
	struct fmt_field f;
	const char *s;
	size_t n;

	memset(p, 0, sizeof(p));
	/* fixed array: NUL-terminated and full */
	memcpy(p + 8, "sleep\0\0\0\0\0\0\0\0\0\0\0", 16);
	f = mkfield(8, 16, 0, FMT_ARRAY);
	ck_assert(fmt_get_str(&f, p, 24, RB_HOST_BE, &s, &n));
	ck_assert_ptr_eq(s, (const char *)p + 8);
	ck_assert_uint_eq(n, 5);
	memcpy(p + 8, "0123456789abcdef", 16);
	ck_assert(fmt_get_str(&f, p, 24, RB_HOST_BE, &s, &n));
	ck_assert_uint_eq(n, 16);
	ck_assert(!fmt_get_str(&f, p, 23, RB_HOST_BE, &s, &n));

	/* __data_loc: the fact sheet's "14 00 0c 00" -> offset 20, 12 bytes */
	memset(p, 0, sizeof(p));
	memcpy(p + 8, "\x14\x00\x0c\x00", 4);
	memcpy(p + 20, "/usr/bin/sh", 12);
	f = mkfield(8, 4, 0, FMT_DATA_LOC);
	ck_assert(fmt_get_str(&f, p, 32, false, &s, &n));
	ck_assert_ptr_eq(s, (const char *)p + 20);
	ck_assert_uint_eq(n, 11);
	ck_assert(!memcmp(s, "/usr/bin/sh", 11));
	/* the data runs past the payload */
	ck_assert(!fmt_get_str(&f, p, 31, false, &s, &n));
	/* a big-endian kernel writes the same word as 00 0c 00 14 */
	memcpy(p + 8, "\x00\x0c\x00\x14", 4);
	ck_assert(fmt_get_str(&f, p, 32, true, &s, &n));
	ck_assert_ptr_eq(s, (const char *)p + 20);
	ck_assert_uint_eq(n, 11);
	/* read in the wrong order it points far outside: refused, not garbage */
	ck_assert(!fmt_get_str(&f, p, 32, false, &s, &n));
	/* points past the payload */
	put_loc(p + 8, 40, 4);
	ck_assert(!fmt_get_str(&f, p, 32, RB_HOST_BE, &s, &n));
	put_loc(p + 8, 0xffff, 0xffff);
	ck_assert(!fmt_get_str(&f, p, 64, RB_HOST_BE, &s, &n));
	/* empty string at the very end is fine */
	put_loc(p + 8, 32, 0);
	ck_assert(fmt_get_str(&f, p, 32, RB_HOST_BE, &s, &n));
	ck_assert_uint_eq(n, 0);
	/* the loc word itself outside the payload */
	ck_assert(!fmt_get_str(&f, p, 11, RB_HOST_BE, &s, &n));

	/* __rel_loc: offset from the end of the field */
	memset(p, 0, sizeof(p));
	put_loc(p + 8, 4, 6);
	memcpy(p + 16, "hello", 6);
	f = mkfield(8, 4, 0, FMT_REL_LOC);
	ck_assert(fmt_get_str(&f, p, 22, RB_HOST_BE, &s, &n));
	ck_assert_ptr_eq(s, (const char *)p + 16);
	ck_assert_uint_eq(n, 5);
	ck_assert(!fmt_get_str(&f, p, 21, RB_HOST_BE, &s, &n));
	put_loc(p + 8, 0xfffe, 8);
	ck_assert(!fmt_get_str(&f, p, 64, RB_HOST_BE, &s, &n));

	/* dynamic tail: to the end of the payload, stops at NUL */
	memset(p, 0, sizeof(p));
	memcpy(p + 12, "tail", 4);
	f = mkfield(12, 0, 0, FMT_DYN_TAIL);
	ck_assert(fmt_get_str(&f, p, 16, RB_HOST_BE, &s, &n));
	ck_assert_uint_eq(n, 4);
	ck_assert(fmt_get_str(&f, p, 20, RB_HOST_BE, &s, &n));
	ck_assert_uint_eq(n, 4);
	ck_assert(fmt_get_str(&f, p, 12, RB_HOST_BE, &s, &n));
	ck_assert_uint_eq(n, 0);
	ck_assert(!fmt_get_str(&f, p, 11, RB_HOST_BE, &s, &n));
}
END_TEST

/* a __rel_loc declared in a format file, read through the parsed field */
START_TEST(test_rel_loc_parsed)
{
	static const char text[] = "name: relev\nID: 7\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		"\n"
		"\tfield:int before;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield:__rel_loc char[] what;\toffset:12;\tsize:4;\tsigned:0;\n"
		"\tfield:__data_loc char[] other;\toffset:16;\tsize:4;\tsigned:0;\n"
		"\n"
		"print fmt: \"%s\", __get_rel_str(what)\n";
	struct fmt_event *ev = malloc(sizeof(*ev));
	const struct fmt_field *rel, *dl;
	uint8_t p[40];
	char err[256];
	const char *s;
	size_t n;

	ck_assert_msg(parse(ev, text, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(ev->nfields, 7);
	rel = fmt_find(ev, "what");
	dl = fmt_find(ev, "other");
	ck_assert_ptr_nonnull(rel);
	ck_assert_ptr_nonnull(dl);
	ck_assert_int_eq(rel->kind, FMT_REL_LOC);
	ck_assert_uint_eq(rel->offset, 12);
	ck_assert_uint_eq(rel->size, 4);
	ck_assert_int_eq(dl->kind, FMT_DATA_LOC);
	/* both point at the same bytes at 24: rel offset 24 - 16 = 8 */
	memset(p, 0, sizeof(p));
	put_loc(p + 12, 8, 8);
	put_loc(p + 16, 24, 8);
	memcpy(p + 24, "kworker", 8);
	ck_assert(fmt_get_str(rel, p, 32, RB_HOST_BE, &s, &n));
	ck_assert_ptr_eq(s, (const char *)p + 24);
	ck_assert_uint_eq(n, 7);
	ck_assert(fmt_get_str(dl, p, 32, RB_HOST_BE, &s, &n));
	ck_assert_ptr_eq(s, (const char *)p + 24);
	ck_assert(!fmt_get_str(rel, p, 31, RB_HOST_BE, &s, &n));
	free(ev);
}
END_TEST

Suite *suite_format(void)
{
	Suite *s = suite_create("format");
	TCase *tf = tcase_create("fixtures");
	TCase *tp = tcase_create("parse");
	TCase *tg = tcase_create("get");

	tcase_add_loop_test(tf, test_fixture_formats, 0, (int)NWANT);
	tcase_add_test(tf, test_header_page_fixtures);
	suite_add_tcase(s, tf);

	tcase_set_timeout(tp, 60);
	tcase_add_test(tp, test_header_page_built);
	tcase_add_test(tp, test_declarations);
	tcase_add_test(tp, test_max_fields);
	tcase_add_test(tp, test_long_lines);
	tcase_add_test(tp, test_malformed);
	tcase_add_test(tp, test_nul_bytes);
	tcase_add_test(tp, test_short_err_buffer);
	tcase_add_test(tp, test_fuzz_parse);
	suite_add_tcase(s, tp);

	tcase_add_test(tg, test_get_int);
	tcase_add_test(tg, test_get_str);
	tcase_add_test(tg, test_rel_loc_parsed);
	suite_add_tcase(s, tg);
	return s;
}
