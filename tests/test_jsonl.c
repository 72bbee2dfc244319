// SPDX-License-Identifier: GPL-2.0-only
/* test_jsonl.c - the stream's lines: field names, times, escaping; the output queue never blocks */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/escape.h"
#include "kernel/event.h"
#include "stream/jsonl.h"
#include "stream/outq.h"
#include "testutil.h"

/* 2026-11-23T12:00:00Z is 1795435200 s after the epoch (date -u -d ... +%s). */
#define T0_S	1795435200ll

static struct jl_clock K;
static char L[8192];

/* A trace clock of 1000 s mapped to 2026-11-23T12:00:00Z. */
static void clock0(void)
{
	jl_clock_init(&K, 1000000000000ull, T0_S * 1000000000ll);
}

static struct procinfo proc0(void)
{
	struct procinfo pi;

	memset(&pi, 0, sizeof(pi));
	pi.pid = 1234;
	pi.ppid = 1200;
	memcpy(pi.name, "myapp", 5);
	pi.name_len = 5;
	strcpy(pi.cmd, "/usr/bin/myapp -c x");
	pi.cmd_len = (uint16_t)strlen(pi.cmd);
	strcpy(pi.exe, "/usr/bin/myapp");
	pi.exe_len = (uint16_t)strlen(pi.exe);
	pi.ns_dev = 4;
	pi.ns_ino = 4026533309ull;
	pi.started_s = T0_S - 3360;	/* 11:04:00 */
	pi.container = -1;
	pi.have = PI_ALL;
	return pi;
}

START_TEST(test_times)
{
	char d[32];

	clock0();
	ck_assert_uint_eq(jl_time(&K, 1000123456789ull, d), 30);
	d[30] = '\0';
	ck_assert_str_eq(d, "2026-11-23T12:00:00.123456789Z");
	ck_assert_uint_eq(jl_time(&K, 1001000000001ull, d), 30);
	ck_assert_str_eq(d, "2026-11-23T12:00:01.000000001Z");
	/* the cached second is not kept past its end */
	ck_assert_uint_eq(jl_time(&K, 1000999999999ull, d), 30);
	ck_assert_str_eq(d, "2026-11-23T12:00:00.999999999Z");
	ck_assert_uint_eq(jl_date_s(T0_S - 3360, d), 20);
	d[20] = '\0';
	ck_assert_str_eq(d, "2026-11-23T11:04:00Z");
	jl_date_s(0, d);
	ck_assert_str_eq(d, "1970-01-01T00:00:00Z");
	jl_date_s(951782400, d);	/* a leap day */
	ck_assert_str_eq(d, "2000-02-29T00:00:00Z");
}
END_TEST

/* The example line, field for field. */
START_TEST(test_event_line)
{
	struct procinfo pi = proc0();
	struct rt_container c;
	struct jl_event e;
	char proc[JL_PROC_MAX], src[JL_SRC_MAX];
	size_t pl, sl, n;

	clock0();
	memset(&c, 0, sizeof(c));
	strcpy(c.id, "780f159f59c7a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f607182930");
	strcpy(c.name, "/webapp");
	c.kind = RT_DOCKER;
	pl = jl_process(proc, sizeof(proc), &pi, &c);
	sl = jl_src(src, sizeof(src), "node1");
	memset(&e, 0, sizeof(e));
	e.evt = JL_ALLOC;
	e.ts = 1000123456789ull;
	e.size = 4096;
	e.pid = 1234;
	e.tid = 1236;
	e.pfn = 77;
	n = jl_event_line(L, sizeof(L), &K, &e, proc, pl, src, sl);
	L[n] = '\0';
	ck_assert_str_eq(L, "{\"timestamp\":\"2026-11-23T12:00:00.123456789Z\",\"type\":\"memtrace\","
			 "\"data\":{\"evt_type\":\"pageAllocate\",\"size\":4096,\"pid\":1234,\"tid\":1236,"
			 "\"order\":0,\"pfn\":77,"
			 "\"process\":{\"pid\":1234,\"ppid\":1200,\"name\":\"myapp\","
			 "\"cmd\":\"/usr/bin/myapp -c x\",\"exe\":\"/usr/bin/myapp\","
			 "\"ns\":\"4-4026533309\",\"startedAt\":\"2026-11-23T11:04:00Z\","
			 "\"container\":{\"id\":\"780f159f59c7a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f607182930\","
			 "\"name\":\"/webapp\",\"runtime\":\"docker\"}}},"
			 "\"src\":{\"hostname\":\"node1\",\"name\":\"memtrace\"}}\n");
	/* without a container and with a pod */
	pl = jl_process(proc, sizeof(proc), &pi, NULL);
	proc[pl] = '\0';
	ck_assert(!strstr(proc, "container"));
	c.in_pod = true;
	strcpy(c.pod_id, "u-1");
	strcpy(c.pod_name, "web-1");
	strcpy(c.pod_ns, "prod");
	pl = jl_process(proc, sizeof(proc), &pi, &c);
	proc[pl] = '\0';
	ck_assert_msg(strstr(proc, ",\"pod\":{\"id\":\"u-1\",\"name\":\"web-1\",\"namespace\":\"prod\"}}}"),
		      "%s", proc);
}
END_TEST

/*
 * Issue 24, 5: a process gone before /proc was read: what is not known is
 * null, every field kept (main: "cmd":"","exe":"", no ns, no startedAt).
 */
START_TEST(test_process_unknown_is_null)
{
	struct procinfo pi = proc0();
	char proc[JL_PROC_MAX];
	size_t n;

	pi.have = 0;
	pi.cmd_len = pi.exe_len = 0;
	n = jl_process(proc, sizeof(proc), &pi, NULL);
	proc[n] = '\0';
	ck_assert_str_eq(proc, "\"process\":{\"pid\":1234,\"ppid\":1200,\"name\":\"myapp\","
			 "\"cmd\":null,\"exe\":null,\"ns\":null,\"startedAt\":null}");
	/* the exe from its exec event, the rest unknown; a kernel thread's known empty exe */
	pi.have = PI_EXEPATH;
	strcpy(pi.exe, "/bin/true");
	pi.exe_len = 9;
	pi.cmd_cut = true;
	n = jl_process(proc, sizeof(proc), &pi, NULL);
	proc[n] = '\0';
	ck_assert_str_eq(proc, "\"process\":{\"pid\":1234,\"ppid\":1200,\"name\":\"myapp\","
			 "\"cmd\":null,\"exe\":\"/bin/true\",\"ns\":null,\"startedAt\":null}");
	pi.have = PI_ALL;
	pi.exe_len = 0;
	pi.cmd_cut = false;
	n = jl_process(proc, sizeof(proc), &pi, NULL);
	proc[n] = '\0';
	ck_assert_msg(strstr(proc, "\"exe\":\"\",\"ns\":\"4-4026533309\""), "%s", proc);
}
END_TEST

START_TEST(test_each_evt_type)
{
	struct procinfo pi = proc0();
	char proc[JL_PROC_MAX], src[JL_SRC_MAX];
	struct jl_event e;
	size_t pl, sl, n;

	clock0();
	pl = jl_process(proc, sizeof(proc), &pi, NULL);
	sl = jl_src(src, sizeof(src), "h");
	memset(&e, 0, sizeof(e));
	e.ts = 1000000000000ull;
	e.pid = 1;
	e.tid = 2;
	e.evt = JL_FREE;
	e.size = 8192;
	e.order = 1;
	e.pfn = 10;
	e.owner_pid = 7;
	e.owner_tid = 8;
	n = jl_event_line(L, sizeof(L), &K, &e, proc, pl, src, sl);
	L[n] = '\0';
	ck_assert_msg(strstr(L, "\"evt_type\":\"pageFree\",\"size\":8192,\"pid\":1,\"tid\":2,\"order\":1,"
			     "\"pfn\":10,\"owner\":{\"pid\":7,\"tid\":8},\"process\":"), "%s", L);
	e.evt = JL_FAULT;
	e.size = 4096;
	e.address = 0x7f0000001000ull;
	e.ip = 0x401000;
	e.error_code = 6;
	n = jl_event_line(L, sizeof(L), &K, &e, proc, pl, src, sl);
	L[n] = '\0';
	ck_assert_msg(strstr(L, "\"evt_type\":\"pageFault\",\"size\":4096,\"pid\":1,\"tid\":2,"
			     "\"address\":139637976731648,\"ip\":4198400,\"error_code\":6,\"process\":"),
		      "%s", L);
	memset(&e, 0, sizeof(e));
	e.ts = 1000000000000ull;
	e.evt = JL_MAP;
	e.call = CALL_MMAP;
	e.size = 67108864;
	e.address = 4096;
	e.prot = 3;
	e.flags = 0x22;
	e.fd = -1;
	e.result = 4096;
	e.latency_ns = 5;
	n = jl_event_line(L, sizeof(L), &K, &e, proc, pl, src, sl);
	L[n] = '\0';
	ck_assert_msg(strstr(L, "\"evt_type\":\"memoryMap\",\"size\":67108864,\"pid\":0,\"tid\":0,"
			     "\"syscall\":\"mmap\",\"address\":4096,\"prot\":3,\"flags\":34,\"fd\":-1,"
			     "\"offset\":0,\"result\":4096,\"latency_ns\":5,\"process\":"), "%s", L);
	/*
	 * a failed call (issue 24, 4): size 0, what it asked for in
	 * requested_size, failed, and always an errno; brk's (its result is the
	 * old break, not an error) ENOMEM as stream.c gives it
	 */
	e.failed = true;
	e.result = -12;
	e.err = 12;
	e.size = 0;
	e.requested_size = 1ull << 50;
	n = jl_event_line(L, sizeof(L), &K, &e, proc, pl, src, sl);
	L[n] = '\0';
	ck_assert_msg(strstr(L, "\"evt_type\":\"memoryMap\",\"size\":0,"), "%s", L);
	ck_assert_msg(strstr(L, "\"result\":-12,\"failed\":true,\"requested_size\":1125899906842624,"
			     "\"errno\":12,"), "%s", L);
	e.call = CALL_BRK;
	e.result = 94000000000000;
	e.requested_size = 1ull << 45;
	n = jl_event_line(L, sizeof(L), &K, &e, proc, pl, src, sl);
	L[n] = '\0';
	ck_assert_msg(strstr(L, "\"syscall\":\"brk\",\"address\":4096,\"result\":94000000000000,"
			     "\"failed\":true,\"requested_size\":35184372088832,\"errno\":12,"), "%s", L);
	e.size = 67108864;
	e.err = 0;
	e.requested_size = 0;
	e.evt = JL_UNMAP;
	e.call = CALL_MREMAP;
	e.old_address = 1;
	e.old_size = 3;
	e.new_size = 2;
	e.result = 9;
	e.failed = false;
	n = jl_event_line(L, sizeof(L), &K, &e, proc, pl, src, sl);
	L[n] = '\0';
	ck_assert_msg(strstr(L, "\"evt_type\":\"memoryUnmap\",\"size\":67108864,\"pid\":0,\"tid\":0,"
			     "\"syscall\":\"mremap\",\"address\":4096,\"old_address\":1,\"old_size\":3,"
			     "\"new_size\":2,\"flags\":34,\"result\":9,\"latency_ns\":5,"), "%s", L);
	ck_assert_str_eq(jl_evt_name(JL_ALLOC), "pageAllocate");
	ck_assert_str_eq(jl_evt_name(JL_UNMAP), "memoryUnmap");
	ck_assert_str_eq(jl_evt_name(JL__COUNT), "?");
	/* too small a buffer: nothing, never a cut line */
	ck_assert_uint_eq(jl_event_line(L, 100, &K, &e, proc, pl, src, sl), 0);
}
END_TEST

START_TEST(test_hostile_names)
{
	struct procinfo pi = proc0();
	char proc[JL_PROC_MAX], src[JL_SRC_MAX];
	size_t n, i;

	/* quotes, backslash, newline, escape, DEL, a C1 control, invalid UTF-8, real UTF-8 */
	memcpy(pi.name, "a\"b\\c\nd\x1b\x7f\xff", 10);
	pi.name_len = 10;
	memcpy(pi.cmd, "x\xc2\x85y \xc3\xa9", 7);
	pi.cmd_len = 7;
	n = jl_process(proc, sizeof(proc), &pi, NULL);
	proc[n] = '\0';
	ck_assert_msg(strstr(proc, "\"name\":\"a\\\"b\\\\c\\u000ad\\u001b\\u007f\\ufffd\""), "%s", proc);
	ck_assert_msg(strstr(proc, "\"cmd\":\"x\\u0085y \xc3\xa9\""), "%s", proc);
	ck_assert_msg(!strstr(proc, "_truncated"), "%s", proc);	/* nothing cut: no flag */
	/* a long hostile command is cut, not the line: the whole line stays below PIPE_BUF */
	memset(pi.cmd, '\x01', sizeof(pi.cmd));
	pi.cmd_len = sizeof(pi.cmd);
	pi.cmd_cut = false;	/* cut escaped only: flagged too */
	memset(pi.exe, '"', sizeof(pi.exe));
	pi.exe_len = sizeof(pi.exe);
	n = jl_process(proc, sizeof(proc), &pi, NULL);
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_le(n, JL_PROC_MAX);
	proc[n] = '\0';
	ck_assert(strstr(proc, "\"cmd_truncated\":true"));
	/* the exe cut at 512 escaped bytes is flagged as cmd is (issue 24, 6) */
	ck_assert_msg(strstr(proc, "\\\"\",\"exe_truncated\":true,\"ns\":"), "%s", proc);
	for (i = 0; i < n; i++)
		ck_assert_msg((unsigned char)proc[i] >= 0x20, "raw control byte at %zu", i);
	n = jl_src(src, sizeof(src), "h\"o\ns\\t");
	src[n] = '\0';
	ck_assert_str_eq(src, ",\"src\":{\"hostname\":\"h\\\"o\\u000as\\\\t\",\"name\":\"memtrace\"}}\n");
	{
		struct jl_event e;
		struct rt_container c;
		char big[JL_LINE_MAX], host[256];
		size_t sl;

		/* the worst case: every string at its longest, all escapes, in a pod */
		memset(&c, 0x01, sizeof(c));
		c.id[RT_ID_LEN] = c.name[RT_STR - 1] = c.pod_id[RT_STR - 1] = '\0';
		c.pod_name[RT_STR - 1] = c.pod_ns[RT_STR - 1] = '\0';
		c.kind = RT_CONTAINERD;
		c.in_pod = true;
		memset(pi.name, 0x01, sizeof(pi.name));
		pi.name_len = sizeof(pi.name);
		n = jl_process(proc, sizeof(proc), &pi, &c);
		ck_assert_uint_gt(n, 0);
		memset(host, 0x02, sizeof(host) - 1);
		host[sizeof(host) - 1] = '\0';
		sl = jl_src(src, sizeof(src), host);
		ck_assert_uint_gt(sl, 0);
		memset(&e, 0, sizeof(e));
		e.evt = JL_MAP;
		e.call = CALL_MREMAP;
		e.failed = true;
		e.result = -1;
		e.err = INT32_MIN;
		e.requested_size = UINT64_MAX;
		e.pid = e.tid = INT32_MIN;
		e.size = e.address = e.old_address = e.old_size = e.new_size = e.flags = UINT64_MAX;
		e.latency_ns = UINT64_MAX;
		ck_assert_uint_gt(jl_event_line(big, sizeof(big), &K, &e, proc, n, src, sl), 0);
		e.evt = JL_FREE;
		e.owner_pid = e.owner_tid = INT32_MIN;
		e.pfn = UINT64_MAX;
		ck_assert_uint_gt(jl_event_line(big, sizeof(big), &K, &e, proc, n, src, sl), 0);
	}
}
END_TEST

START_TEST(test_escape_buf)
{
	char d[16];
	bool cut;

	ck_assert_uint_eq(escape_json_buf(d, sizeof(d), "abc", 3, &cut), 3);
	ck_assert(!cut);
	/* an escape is never split: 5 bytes of room take "ab" and no half of \u0001 */
	ck_assert_uint_eq(escape_json_buf(d, 5, "ab\x01", 3, &cut), 2);
	ck_assert(cut);
	/* nor a UTF-8 sequence */
	ck_assert_uint_eq(escape_json_buf(d, 2, "a\xc3\xa9", 3, &cut), 1);
	ck_assert(cut);
	ck_assert_uint_eq(escape_json_buf(d, 3, "a\xc3\xa9", 3, &cut), 3);
	ck_assert(!cut);
}
END_TEST

START_TEST(test_lost_and_summary)
{
	static const char *const want = "{\"timestamp\":\"2026-11-23T12:00:02.000000000Z\","
		"\"type\":\"memtrace.summary\",\"data\":{\"pid\":1234,\"interval_s\":2,"
		"\"pages\":{\"current\":3,\"peak\":9},\"page_size\":4096,\"events\":{"
		"\"pageAllocate\":{\"count\":4,\"bytes\":16384},"
		"\"pageFree\":{\"count\":0,\"bytes\":0},"
		"\"memoryMap\":{\"count\":0,\"bytes\":0},"
		"\"memoryUnmap\":{\"count\":0,\"bytes\":0},"
		"\"pageFault\":{\"count\":1,\"bytes\":4096}},\"exited\":true,"
		"\"process\":{\"pid\":1234,";
	struct procinfo pi = proc0();
	char proc[JL_PROC_MAX], src[JL_SRC_MAX];
	struct jl_summary sm;
	size_t n, pl, sl;

	clock0();
	sl = jl_src(src, sizeof(src), "n");
	n = jl_lost_line(L, sizeof(L), &K, 1000000000000ull, 5, "queue", 12, src, sl);
	L[n] = '\0';
	ck_assert_str_eq(L, "{\"type\":\"memtrace.lost\",\"count\":5,\"source\":\"queue\",\"total\":12,"
			 "\"timestamp\":\"2026-11-23T12:00:00.000000000Z\","
			 "\"src\":{\"hostname\":\"n\",\"name\":\"memtrace\"}}\n");
	pl = jl_process(proc, sizeof(proc), &pi, NULL);
	memset(&sm, 0, sizeof(sm));
	sm.ts = 1002000000000ull;
	sm.pid = 1234;
	sm.interval_s = 2;
	sm.cur_pages = 3;
	sm.peak_pages = 9;
	sm.page_size = 4096;
	sm.count[JL_ALLOC] = 4;
	sm.bytes[JL_ALLOC] = 16384;
	sm.count[JL_FAULT] = 1;
	sm.bytes[JL_FAULT] = 4096;
	sm.exited = true;
	n = jl_summary_line(L, sizeof(L), &K, &sm, proc, pl, src, sl);
	L[n] = '\0';
	ck_assert_msg(!strncmp(L, want, strlen(want)), "%s", L);
	ck_assert(strstr(L, "}},\"src\":{\"hostname\":\"n\",\"name\":\"memtrace\"}}\n"));
}
END_TEST

/* The queue on a pipe nobody reads: full, never blocking, whole lines only. */
START_TEST(test_queue_stalled_pipe)
{
	static char line[300];
	struct outq q;
	char err[256];
	int p[2], saved, i, queued = 0, dropped = 0;
	size_t got = 0;
	ssize_t n;
	char *buf = malloc(1 << 20);

	signal(SIGPIPE, SIG_IGN);	/* as memtrace: EPIPE where it writes */
	ck_assert_int_eq(pipe(p), 0);
	saved = dup(STDOUT_FILENO);
	ck_assert_int_eq(dup2(p[1], STDOUT_FILENO), STDOUT_FILENO);
	ck_assert_int_eq(outq_open(&q, NULL, 64 * 1024, err, sizeof(err)), 0);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	ck_assert_int_eq(q.mode, OQ_NONBLOCK);
	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\n';
	for (i = 0; i < 2000; i++) {
		char *d = outq_reserve(&q, sizeof(line));

		if (!d) {
			outq_flush(&q);
			d = outq_reserve(&q, sizeof(line));
		}
		if (!d) {
			dropped++;
			continue;
		}
		memcpy(d, line, sizeof(line));
		outq_commit(&q, sizeof(line));
		queued++;
	}
	/* 600 KB offered: the pipe (64 KiB) and the queue (64 KiB) took what they hold */
	ck_assert_int_gt(dropped, 1000);
	ck_assert_int_eq(q.err, 0);
	ck_assert_uint_gt(outq_pending(&q), 0);
	ck_assert(outq_wants_pollout(&q));
	/* the reader reads now: what comes out is whole lines */
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	for (i = 0; i < 100; i++) {
		outq_flush(&q);
		while ((n = read(p[0], buf + got, (1 << 20) - got)) > 0)
			got += (size_t)n;
		if (!outq_pending(&q))
			break;
	}
	ck_assert_uint_eq(outq_pending(&q), 0);
	ck_assert_uint_eq(got % sizeof(line), 0);
	ck_assert_uint_eq(got / sizeof(line), (size_t)queued);
	for (i = 0; i < queued; i++)
		ck_assert(!memcmp(buf + (size_t)i * sizeof(line), line, sizeof(line)));
	/* the reader goes away: EPIPE, and what was pending is counted */
	memcpy(outq_reserve(&q, sizeof(line)), line, sizeof(line));
	outq_commit(&q, sizeof(line));
	close(p[0]);
	ck_assert_int_eq(outq_flush(&q), -EPIPE);
	ck_assert_uint_eq(q.dropped_lines, 1);
	outq_close(&q);
	close(p[1]);
	free(buf);
}
END_TEST

START_TEST(test_queue_file)
{
	char dir[] = "/tmp/memtrace-test-outq.XXXXXX", path[PATH_MAX], link[PATH_MAX], err[256];
	char text[64];
	struct outq q;
	struct stat st;
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/lines", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "old\n", 4), 4);
	close(fd);
	/* appended */
	ck_assert_int_eq(outq_open(&q, path, 4096, err, sizeof(err)), 0);
	ck_assert_int_eq(q.mode, OQ_FILE);
	ck_assert(!outq_wants_pollout(&q));
	memcpy(outq_reserve(&q, 4), "new\n", 4);
	outq_commit(&q, 4);
	ck_assert_ptr_null(outq_reserve(&q, 4093));
	ck_assert_int_eq(outq_flush(&q), 0);
	ck_assert_ptr_nonnull(outq_reserve(&q, 4093));	/* room again */
	ck_assert_uint_eq(outq_drain(&q, 0), 0);
	outq_close(&q);
	fd = open(path, O_RDONLY);
	ck_assert_int_eq(read(fd, text, sizeof(text)), 8);
	close(fd);
	ck_assert(!memcmp(text, "old\nnew\n", 8));
	/* never through a symlink; a new file only at outq_create(), 0600 */
	snprintf(link, sizeof(link), "%s/link", dir);
	ck_assert_int_eq(symlink(path, link), 0);
	ck_assert_int_eq(outq_open(&q, link, 4096, err, sizeof(err)), 1);
	ck_assert_msg(strstr(err, "symlink"), "%s", err);
	unlink(link);
	snprintf(link, sizeof(link), "%s/fresh", dir);
	ck_assert_int_eq(outq_open(&q, link, 4096, err, sizeof(err)), 0);
	ck_assert_int_eq(stat(link, &st), -1);
	ck_assert_int_eq(outq_create(&q, err, sizeof(err)), 0);
	outq_close(&q);
	ck_assert_int_eq(stat(link, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	unlink(link);
	/* a file others may write: refused (exit 1), left as it was */
	ck_assert_int_eq(chmod(path, 0666), 0);
	ck_assert_int_eq(outq_open(&q, path, 4096, err, sizeof(err)), 1);
	ck_assert_msg(strstr(err, "writable by its group or others"), "%s", err);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, 8);
	/* a missing directory: said at outq_open(), before anything is traced */
	snprintf(link, sizeof(link), "%s/missing/lines", dir);
	ck_assert_int_eq(outq_open(&q, link, 4096, err, sizeof(err)), 1);
	ck_assert_msg(strstr(err, "No such file"), "%s", err);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* @n lines of 100 bytes queued */
static void queue_lines(struct outq *q, int n)
{
	char line[100];
	int i;

	memset(line, 'x', sizeof(line));
	line[0] = '"';
	line[98] = '"';
	line[99] = '\n';
	for (i = 0; i < n; i++) {
		char *d = outq_reserve(q, sizeof(line));

		ck_assert_ptr_nonnull(d);
		memcpy(d, line, sizeof(line));
		outq_commit(q, sizeof(line));
	}
}

/* A full file system: whole lines or none, the rest dropped and counted, written again later. */
START_TEST(test_queue_full_fs)
{
	char dir[] = "/tmp/memtrace-test-outqfull.XXXXXX", path[PATH_MAX], filler[PATH_MAX];
	char err[256], *buf = malloc(56 * 1024);
	struct outq q;
	struct stat st;
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	if (mount("tmpfs", dir, "tmpfs", 0, "size=64k")) {
		fprintf(stderr, "test_queue_full_fs skipped: mount tmpfs: %s\n", strerror(errno));
		rmdir(dir);
		free(buf);
		return;
	}
	snprintf(filler, sizeof(filler), "%s/filler", dir);
	snprintf(path, sizeof(path), "%s/lines", dir);
	fd = open(filler, O_WRONLY | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	memset(buf, 0, 56 * 1024);
	ck_assert_int_eq(write(fd, buf, 56 * 1024), 56 * 1024);	/* 8 KiB left */
	close(fd);
	ck_assert_int_eq(outq_open(&q, path, 64 * 1024, err, sizeof(err)), 0);
	ck_assert_int_eq(outq_create(&q, err, sizeof(err)), 0);
	queue_lines(&q, 200);		/* 20,000 bytes into 8 KiB */
	ck_assert_int_eq(outq_flush(&q), 0);	/* a file's errors do not stop the queue */
	ck_assert(q.failing);
	ck_assert_int_eq(q.werr, -ENOSPC);
	ck_assert_uint_eq(outq_pending(&q), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_gt(st.st_size, 0);
	ck_assert_int_eq(st.st_size % 100, 0);	/* whole lines only */
	ck_assert_uint_eq(q.error_lines, 200 - (uint64_t)st.st_size / 100);
	ck_assert_uint_eq(q.dropped_lines, q.error_lines);
	ck_assert_uint_eq(q.bytes, (uint64_t)st.st_size);
	/* still full: dropped, counted */
	queue_lines(&q, 1);
	outq_flush(&q);
	ck_assert(q.failing);
	ck_assert_uint_eq(q.error_lines, 201 - (uint64_t)st.st_size / 100);
	/* room again: the next line is written */
	ck_assert_int_eq(unlink(filler), 0);
	queue_lines(&q, 3);
	ck_assert_int_eq(outq_flush(&q), 0);
	ck_assert(!q.failing);
	ck_assert_uint_eq(outq_drain(&q, 0), 0);
	outq_close(&q);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq((uint64_t)st.st_size, q.bytes);
	ck_assert_int_eq(st.st_size % 100, 0);
	ck_assert_int_eq(umount2(dir, MNT_DETACH), 0);
	rmdir(dir);
	free(buf);
}
END_TEST

Suite *suite_jsonl(void)
{
	Suite *s = suite_create("jsonl");
	TCase *tc = tcase_create("jsonl");

	tcase_add_test(tc, test_times);
	tcase_add_test(tc, test_event_line);
	tcase_add_test(tc, test_process_unknown_is_null);
	tcase_add_test(tc, test_each_evt_type);
	tcase_add_test(tc, test_hostile_names);
	tcase_add_test(tc, test_escape_buf);
	tcase_add_test(tc, test_lost_and_summary);
	tcase_add_test(tc, test_queue_stalled_pipe);
	tcase_add_test(tc, test_queue_file);
	tcase_add_test(tc, test_queue_full_fs);
	suite_add_tcase(s, tc);
	return s;
}
