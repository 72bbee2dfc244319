// SPDX-License-Identifier: GPL-2.0-only
/* test_logfile.c - struct out buffering and error stickiness, atomic log-file replacement */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "output/logfile.h"
#include "signals.h"
#include "testutil.h"

/* ---- helpers ---- */

static char tmpdir[PATH_MAX];

static void tmpdir_setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/memtrace-logfile-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void rm_tree(const char *dir)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
}

static void tmpdir_teardown(void)
{
	if (tmpdir[0])
		rm_tree(tmpdir);
}

static void path_in(char *buf, const char *dir, const char *name)
{
	int n = snprintf(buf, PATH_MAX, "%s/%s", dir, name);

	ck_assert(n > 0 && n < PATH_MAX);
}

static char *slurp(const char *path, size_t *len)
{
	return read_path(path, len);
}

static void put_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ck_assert(fd >= 0);
	ck_assert_int_eq(write(fd, s, strlen(s)), (ssize_t)strlen(s));
	close(fd);
}

static void assert_file(const char *path, const char *want, size_t wlen)
{
	size_t len;
	char *got = slurp(path, &len);

	ck_assert_uint_eq(len, wlen);
	ck_assert_msg(!memcmp(got, want, wlen), "%s: content differs", path);
	free(got);
}

/* Names in a directory, except . and ..; how many, and whether one starts with '.'. */
static int dir_entries(const char *dir, int *dotfiles)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	*dotfiles = 0;
	while ((errno = 0, de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n++;
		if (de->d_name[0] == '.')
			(*dotfiles)++;
	}
	ck_assert_msg(!errno, "readdir %s: %s", dir, strerror(errno));	/* not the end */
	closedir(d);
	return n;
}

/* A generator: @text repeated @times times. */
struct gen_ctx {
	const char *text;
	size_t len;
	size_t times;
	int calls;
};

static void gen_text(struct out *o, void *p)
{
	struct gen_ctx *g = p;
	size_t i;

	g->calls++;
	for (i = 0; i < g->times; i++)
		out_write(o, g->text, g->len);
}

static int write_log(const char *path, const char *text, size_t times, char *err, size_t errlen)
{
	struct gen_ctx g = { text, strlen(text), times, 0 };
	int e;

	err[0] = '\0';
	e = logfile_write(path, gen_text, &g, err, errlen);
	return e;
}

/* ---- struct out ---- */

static char *read_back(int fd, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	ssize_t r;

	ck_assert(lseek(fd, 0, SEEK_SET) == 0);
	for (;;) {
		if (n + 1 >= cap) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
		r = read(fd, buf + n, cap - n - 1);
		ck_assert(r >= 0);
		if (!r)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

static int tmp_fd(void)
{
	FILE *f = tmpfile();
	int fd;

	ck_assert_ptr_nonnull(f);
	fd = dup(fileno(f));
	fclose(f);
	return fd;
}

START_TEST(test_out_big_write)
{
	static struct out o;
	size_t n = 3 * OUT_BUF_SIZE + 17, len, i;
	char *data = malloc(n), *got;
	int fd = tmp_fd();

	for (i = 0; i < n; i++)
		data[i] = (char)(i * 7 + i / 251);
	out_init(&o, fd);
	out_write(&o, "<", 1);		/* unaligned with the buffer */
	out_write(&o, data, n);
	out_write(&o, ">", 1);
	ck_assert_int_eq(out_flush(&o), 0);
	ck_assert_uint_eq(o.len, 0);
	got = read_back(fd, &len);
	ck_assert_uint_eq(len, n + 2);
	ck_assert_int_eq(got[0], '<');
	ck_assert(!memcmp(got + 1, data, n));
	ck_assert_int_eq(got[n + 1], '>');
	free(got);
	free(data);
	close(fd);
}
END_TEST

/* The memory sink: what is written, in order and whole, across buffer flushes; appended. */
START_TEST(test_out_mem)
{
	static struct out o;
	struct out_mem m = { 0 };
	size_t n = 3 * OUT_BUF_SIZE + 17, i;
	char *data = malloc(n);

	ck_assert_ptr_nonnull(data);
	for (i = 0; i < n; i++)
		data[i] = (char)(i * 7 + i / 251);
	out_init_mem(&o, &m);
	out_bound(&o, 0);		/* memory takes what it is given: no deadline */
	ck_assert_uint_eq(o.deadline_ns, 0);
	out_write(&o, "<", 1);
	out_write(&o, data, n);
	out_printf(&o, ">%d", 42);
	ck_assert_int_eq(out_flush(&o), 0);
	ck_assert_uint_eq(m.len, n + 4);
	ck_assert_int_eq(m.data[0], '<');
	ck_assert(!memcmp(m.data + 1, data, n));
	ck_assert_str_eq(m.data + n + 1, ">42");	/* NUL-terminated */
	ck_assert_uint_eq(o.dropped, 0);
	out_init_mem(&o, &m);		/* a second writer appends */
	out_puts(&o, "!");
	ck_assert_int_eq(out_flush(&o), 0);
	ck_assert_uint_eq(m.len, n + 5);
	ck_assert_str_eq(m.data + n + 1, ">42!");
	free(m.data);
	free(data);
}
END_TEST

START_TEST(test_out_exact_buffer)
{
	static struct out o;
	char *data = malloc(OUT_BUF_SIZE), *got;
	int fd = tmp_fd();
	size_t len;

	memset(data, 'x', OUT_BUF_SIZE);
	out_init(&o, fd);
	out_write(&o, data, OUT_BUF_SIZE);
	/* a full buffer is written at once */
	ck_assert_uint_eq(o.len, 0);
	ck_assert_int_eq(o.err, 0);
	got = read_back(fd, &len);
	ck_assert_uint_eq(len, OUT_BUF_SIZE);
	free(got);
	ck_assert_int_eq(out_flush(&o), 0);	/* nothing left: no-op */
	out_write(&o, data, 0);
	ck_assert_int_eq(out_flush(&o), 0);
	got = read_back(fd, &len);
	ck_assert_uint_eq(len, OUT_BUF_SIZE);
	free(got);
	free(data);
	close(fd);
}
END_TEST

START_TEST(test_out_small_pieces)
{
	static struct out o;
	char *want = malloc(200000), *got;
	size_t wlen = 0, len;
	int fd = tmp_fd(), i;

	out_init(&o, fd);
	for (i = 0; i < 12000; i++) {
		char piece[64];
		int n;

		switch (i % 3) {
		case 0:
			out_puts(&o, "line ");
			memcpy(want + wlen, "line ", 5);
			wlen += 5;
			break;
		case 1:
			out_printf(&o, "%d:%s;", i, "abc");
			n = snprintf(piece, sizeof(piece), "%d:%s;", i, "abc");
			memcpy(want + wlen, piece, (size_t)n);
			wlen += (size_t)n;
			break;
		default:
			out_write(&o, "\n", 1);
			want[wlen++] = '\n';
		}
	}
	ck_assert_uint_gt(wlen, 2 * OUT_BUF_SIZE);
	ck_assert_int_eq(out_flush(&o), 0);
	got = read_back(fd, &len);
	ck_assert_uint_eq(len, wlen);
	ck_assert(!memcmp(got, want, wlen));
	free(got);
	free(want);
	close(fd);
}
END_TEST

/* out_printf of a long string: 1000 bytes arrive whole */
START_TEST(test_out_printf_long)
{
	static struct out o;
	char s[1001], *got;
	int fd = tmp_fd();
	size_t len;

	memset(s, 'q', 1000);
	s[1000] = '\0';
	out_init(&o, fd);
	out_printf(&o, "[%s]", s);
	ck_assert_int_eq(out_flush(&o), 0);
	got = read_back(fd, &len);
	ck_assert_uint_eq(len, 1002);
	ck_assert_int_eq(got[0], '[');
	ck_assert_int_eq(got[1001], ']');
	free(got);
	close(fd);
}
END_TEST

START_TEST(test_out_error_sticks)
{
	static struct out o;
	char *data = malloc(OUT_BUF_SIZE + 1);
	int p[2];

	memset(data, 'y', OUT_BUF_SIZE + 1);
	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(pipe(p), 0);
	close(p[0]);
	out_init(&o, p[1]);
	out_puts(&o, "small");
	ck_assert_int_eq(o.err, 0);		/* still buffered */
	out_write(&o, data, OUT_BUF_SIZE + 1);	/* forces a write */
	ck_assert_int_eq(o.err, -EPIPE);
	/* later writes and flushes keep the first error */
	o.fd = -1;				/* would be EBADF */
	out_write(&o, data, OUT_BUF_SIZE + 1);
	out_printf(&o, "%d", 42);
	ck_assert_int_eq(out_flush(&o), -EPIPE);
	ck_assert_int_eq(out_flush(&o), -EPIPE);
	ck_assert_uint_eq(o.len, 0);
	close(p[1]);
	/* out_init starts over */
	out_init(&o, -1);
	ck_assert_int_eq(o.err, 0);
	out_puts(&o, "x");
	ck_assert_int_eq(out_flush(&o), -EBADF);
	free(data);
}
END_TEST

START_TEST(test_out_error_on_flush)
{
	static struct out o;
	int p[2];

	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(pipe(p), 0);
	close(p[0]);
	out_init(&o, p[1]);
	out_puts(&o, "hello");
	ck_assert_int_eq(out_flush(&o), -EPIPE);
	ck_assert_int_eq(o.err, -EPIPE);
	close(p[1]);
}
END_TEST

/* ---- logfile_write ---- */

START_TEST(test_create)
{
	char path[PATH_MAX], err[256];
	struct stat st;
	int dots;

	path_in(path, tmpdir, "memtrace.log");
	ck_assert_int_eq(write_log(path, "hello report\n", 1, err, sizeof(err)), 0);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	assert_file(path, "hello report\n", 13);
	ck_assert_int_eq(dir_entries(tmpdir, &dots), 1);
	ck_assert_int_eq(dots, 0);
}
END_TEST

START_TEST(test_create_empty_and_big)
{
	char path[PATH_MAX], err[256], *want;
	static const char unit[] = "0123456789abcdef\n";
	size_t i, n = 10000;
	int dots;

	path_in(path, tmpdir, "empty.log");
	ck_assert_int_eq(write_log(path, "", 1, err, sizeof(err)), 0);
	assert_file(path, "", 0);
	path_in(path, tmpdir, "big.log");
	ck_assert_int_eq(write_log(path, unit, n, err, sizeof(err)), 0);
	want = malloc(n * 17);
	for (i = 0; i < n; i++)
		memcpy(want + i * 17, unit, 17);
	assert_file(path, want, n * 17);
	free(want);
	ck_assert_int_eq(dir_entries(tmpdir, &dots), 2);
	ck_assert_int_eq(dots, 0);
}
END_TEST

START_TEST(test_replace)
{
	char path[PATH_MAX], err[256];
	struct stat before, after;
	int dots;

	path_in(path, tmpdir, "memtrace.log");
	put_file(path, "an old and much longer log that must disappear completely\n");
	chmod(path, 0644);
	ck_assert_int_eq(stat(path, &before), 0);
	ck_assert_int_eq(write_log(path, "new\n", 1, err, sizeof(err)), 0);
	assert_file(path, "new\n", 4);
	ck_assert_int_eq(stat(path, &after), 0);
	ck_assert_uint_eq(after.st_mode & 07777, 0600);
	/* replaced by rename, not rewritten in place */
	ck_assert(before.st_ino != after.st_ino);
	/* and again */
	ck_assert_int_eq(write_log(path, "third\n", 2, err, sizeof(err)), 0);
	assert_file(path, "third\nthird\n", 12);
	ck_assert_int_eq(dir_entries(tmpdir, &dots), 1);
	ck_assert_int_eq(dots, 0);
}
END_TEST

/* An open reader of the old log keeps seeing the whole old content. */
START_TEST(test_replace_atomic_for_readers)
{
	char path[PATH_MAX], err[256], buf[64];
	int fd;
	ssize_t n;

	path_in(path, tmpdir, "memtrace.log");
	put_file(path, "old content\n");
	fd = open(path, O_RDONLY);
	ck_assert(fd >= 0);
	ck_assert_int_eq(write_log(path, "new\n", 1, err, sizeof(err)), 0);
	n = read(fd, buf, sizeof(buf));
	ck_assert_int_eq(n, 12);
	ck_assert(!memcmp(buf, "old content\n", 12));
	close(fd);
	assert_file(path, "new\n", 4);
}
END_TEST

START_TEST(test_symlink_not_followed)
{
	char path[PATH_MAX], target[PATH_MAX], err[256];
	struct stat st;

	path_in(target, tmpdir, "precious");
	path_in(path, tmpdir, "memtrace.log");
	put_file(target, "precious data\n");
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert_int_eq(write_log(path, "report\n", 1, err, sizeof(err)), 0);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	assert_file(path, "report\n", 7);
	assert_file(target, "precious data\n", 14);
}
END_TEST

START_TEST(test_symlink_relative_and_dangling)
{
	char path[PATH_MAX], target[PATH_MAX], err[256];
	struct stat st;

	/* relative link */
	path_in(target, tmpdir, "precious");
	path_in(path, tmpdir, "a.log");
	put_file(target, "keep\n");
	ck_assert_int_eq(symlink("precious", path), 0);
	ck_assert_int_eq(write_log(path, "A\n", 1, err, sizeof(err)), 0);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	assert_file(target, "keep\n", 5);
	/* dangling link: nothing is created at its target */
	path_in(path, tmpdir, "b.log");
	path_in(target, tmpdir, "nowhere");
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert_int_eq(write_log(path, "B\n", 1, err, sizeof(err)), 0);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	assert_file(path, "B\n", 2);
	ck_assert_int_eq(lstat(target, &st), -1);
	/* link to a directory: the link is replaced, the directory untouched */
	path_in(target, tmpdir, "subdir");
	ck_assert_int_eq(mkdir(target, 0700), 0);
	path_in(path, tmpdir, "c.log");
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert_int_eq(write_log(path, "C\n", 1, err, sizeof(err)), 0);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	{
		int dots;

		ck_assert_int_eq(dir_entries(target, &dots), 0);
	}
}
END_TEST

START_TEST(test_missing_dir)
{
	char path[PATH_MAX], err[256];
	int dots;

	path_in(path, tmpdir, "nonexistent/memtrace.log");
	ck_assert_int_eq(write_log(path, "x\n", 1, err, sizeof(err)), -ENOENT);
	ck_assert_uint_gt(strlen(err), 0);
	ck_assert_ptr_nonnull(strstr(err, "nonexistent"));
	ck_assert_int_eq(dir_entries(tmpdir, &dots), 0);
}
END_TEST

START_TEST(test_dir_at_path)
{
	char path[PATH_MAX], err[256], inner[PATH_MAX];
	int dots;

	path_in(path, tmpdir, "memtrace.log");
	ck_assert_int_eq(mkdir(path, 0700), 0);
	path_in(inner, path, "keep");
	put_file(inner, "k");
	ck_assert_int_eq(write_log(path, "x\n", 1, err, sizeof(err)), -EISDIR);
	ck_assert_uint_gt(strlen(err), 0);
	ck_assert_int_eq(dir_entries(tmpdir, &dots), 1);
	ck_assert_int_eq(dots, 0);
	assert_file(inner, "k", 1);
	/* a path naming a directory by its trailing slash */
	path_in(path, tmpdir, "memtrace.log/");
	ck_assert_int_lt(write_log(path, "x\n", 1, err, sizeof(err)), 0);
	ck_assert_uint_gt(strlen(err), 0);
	ck_assert_int_eq(dir_entries(tmpdir, &dots), 1);
}
END_TEST

/* A FIFO (or a device, as /dev/null) at the path is refused, never replaced by a file. */
START_TEST(test_special_at_path)
{
	char path[PATH_MAX], err[256];
	struct stat st;
	int dots;

	path_in(path, tmpdir, "memtrace.log");
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(write_log(path, "x\n", 1, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	ck_assert_int_eq(dir_entries(tmpdir, &dots), 1);
	ck_assert_int_eq(dots, 0);
}
END_TEST

START_TEST(test_empty_path)
{
	char err[256];

	ck_assert_int_eq(write_log("", "x\n", 1, err, sizeof(err)), -EINVAL);
	ck_assert_uint_gt(strlen(err), 0);
}
END_TEST

/* A bare file name goes to the current directory. */
START_TEST(test_relative_path)
{
	char err[256], path[PATH_MAX];
	int cwd = open(".", O_RDONLY | O_DIRECTORY), dots;

	ck_assert(cwd >= 0);
	ck_assert_int_eq(chdir(tmpdir), 0);
	ck_assert_int_eq(write_log("rel.log", "rel\n", 1, err, sizeof(err)), 0);
	ck_assert_int_eq(fchdir(cwd), 0);
	close(cwd);
	path_in(path, tmpdir, "rel.log");
	assert_file(path, "rel\n", 4);
	ck_assert_int_eq(dir_entries(tmpdir, &dots), 1);
	ck_assert_int_eq(dots, 0);
}
END_TEST

/* ---- logfile_check: what a write would fail on, found before it, nothing left ---- */

START_TEST(test_check)
{
	char path[PATH_MAX], target[PATH_MAX], err[256];
	struct stat st;
	int dots;

	/* a new file in a directory that takes one: fine, and nothing stays */
	path_in(path, tmpdir, "new.log");
	ck_assert_int_eq(logfile_check(path, false, err, sizeof(err)), 0);
	ck_assert_int_eq(logfile_check(path, true, err, sizeof(err)), 0);
	ck_assert_int_eq(dir_entries(tmpdir, &dots), 0);
	/* a missing directory: as the write says it, the directory named */
	path_in(path, tmpdir, "nonexistent/new.log");
	ck_assert_int_eq(logfile_check(path, false, err, sizeof(err)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "cannot create a file in"));
	ck_assert_ptr_nonnull(strstr(err, "nonexistent"));
	ck_assert_int_eq(logfile_check(path, true, err, sizeof(err)), -ENOENT);
	/* the directory is a regular file */
	path_in(target, tmpdir, "afile");
	put_file(target, "keep");
	path_in(path, tmpdir, "afile/new.log");
	ck_assert_int_eq(logfile_check(path, false, err, sizeof(err)), -ENOTDIR);
	assert_file(target, "keep", 4);
	/* a directory, a FIFO at the path: refused as the write refuses them, left as they are */
	path_in(path, tmpdir, "isdir.log");
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(logfile_check(path, false, err, sizeof(err)), -EISDIR);
	ck_assert_int_eq(rmdir(path), 0);
	path_in(path, tmpdir, "fifo.log");
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(logfile_check(path, false, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
	ck_assert_int_lt(logfile_check(path, true, err, sizeof(err)), 0);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	ck_assert_int_eq(unlink(path), 0);
	/* a symlink at the path: replaced by the write, never followed; its target untouched */
	path_in(path, tmpdir, "sym.log");
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert_int_eq(logfile_check(path, false, err, sizeof(err)), 0);
	assert_file(target, "keep", 4);
	/* ... but never appended to */
	ck_assert_int_eq(logfile_check(path, true, err, sizeof(err)), -ELOOP);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(unlink(path), 0);
	/* a file of ours to append to: opened, not written */
	path_in(path, tmpdir, "lines.log");
	put_file(path, "line\n");
	ck_assert_int_eq(chmod(path, 0600), 0);
	ck_assert_int_eq(logfile_check(path, true, err, sizeof(err)), 0);
	assert_file(path, "line\n", 5);
	ck_assert_int_eq(dir_entries(tmpdir, &dots), 2);	/* afile, lines.log */
	ck_assert_int_eq(dots, 0);
	ck_assert_int_eq(logfile_check("", false, err, sizeof(err)), -EINVAL);
}
END_TEST

/* ---- logfile_replace: the mode of a file others read (the .prom file) ---- */

static int replace_mode(const char *path, const char *text, mode_t mode, char *err, size_t errlen)
{
	struct gen_ctx g = { text, strlen(text), 1, 0 };

	err[0] = '\0';
	return logfile_replace(path, mode, false, gen_text, &g, err, errlen);
}

START_TEST(test_replace_mode)
{
	char path[PATH_MAX], target[PATH_MAX], err[256];
	struct stat st, before;
	mode_t old = umask(077);	/* the systemd unit's UMask= */
	int dots;

	path_in(path, tmpdir, "memtrace.prom");
	ck_assert_int_eq(replace_mode(path, "a 1\n", 0644, err, sizeof(err)), 0);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0644);
	assert_file(path, "a 1\n", 4);
	/* replaced, not rewritten: a reader never sees half a file */
	before = st;
	ck_assert_int_eq(replace_mode(path, "a 2\n", 0644, err, sizeof(err)), 0);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(st.st_ino != before.st_ino);
	ck_assert_uint_eq(st.st_mode & 07777, 0644);
	assert_file(path, "a 2\n", 4);
	/* a symlink planted there is replaced, never followed */
	ck_assert_int_eq(unlink(path), 0);
	path_in(target, tmpdir, "precious");
	put_file(target, "precious\n");
	chmod(target, 0600);
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert_int_eq(replace_mode(path, "a 3\n", 0644, err, sizeof(err)), 0);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	assert_file(target, "precious\n", 9);
	ck_assert_int_eq(stat(target, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	ck_assert_int_eq(dir_entries(tmpdir, &dots), 2);
	ck_assert_int_eq(dots, 0);
	/* logfile_write's own mode is unchanged */
	ck_assert_int_eq(write_log(path, "log\n", 1, err, sizeof(err)), 0);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	umask(old);
}
END_TEST

/*
 * A link is replaced, never written through; but not one that is someone
 * else's: into /proc (/dev/stdout is /proc/self/fd/1, for every process), to
 * a FIFO or a device. Refused, by the check and the write, left as it is.
 */
START_TEST(test_link_not_ours)
{
	static const char *const names[] = { "stdout", "fifo", "null" };
	char path[PATH_MAX], target[PATH_MAX], fifo[PATH_MAX], got[PATH_MAX], err[256];
	size_t i;
	ssize_t n;

	path_in(fifo, tmpdir, "a-fifo");
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		path_in(path, tmpdir, names[i]);
		snprintf(target, sizeof(target), "%s", i == 0 ? "/proc/self/fd/1" :
			 i == 1 ? fifo : "/dev/null");
		ck_assert_int_eq(symlink(target, path), 0);
		ck_assert_int_eq(logfile_check(path, false, err, sizeof(err)), -EINVAL);
		ck_assert_msg(strstr(err, ": a link to ") && strstr(err, "never written through"),
			      "%s", err);
		ck_assert_int_eq(write_log(path, "x\n", 1, err, sizeof(err)), -EINVAL);
		n = readlink(path, got, sizeof(got) - 1);
		ck_assert_int_eq(n, (ssize_t)strlen(target));
		got[n] = '\0';
		ck_assert_str_eq(got, target);
		ck_assert_int_eq(unlink(path), 0);
	}
	ck_assert_int_eq(unlink(fifo), 0);
	/* one to a regular file is still replaced, its target untouched */
	path_in(path, tmpdir, "link");
	path_in(target, tmpdir, "precious");
	put_file(target, "precious\n");
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert_int_eq(write_log(path, "log\n", 1, err, sizeof(err)), 0);
	assert_file(target, "precious\n", 9);
	assert_file(path, "log\n", 4);
}
END_TEST

/* ---- an exit at once while a report is written (a second TERM) ---- */

/* half a report written, then the second TERM: the handler armed at the stop takes it */
static void gen_then_term(struct out *o, void *p)
{
	(void)p;
	out_write(o, "half a rep", 10);
	raise(SIGTERM);
	out_write(o, "ort\n", 4);	/* never: the handler exits */
}

START_TEST(test_second_term_while_written)
{
	char path[PATH_MAX], err[256];
	int status, dots;
	pid_t pid;

	path_in(path, tmpdir, "memtrace.log");
	put_file(path, "old\n");
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		signals_arm_teardown();
		logfile_replace(path, 0600, false, gen_then_term, NULL, err, sizeof(err));
		_exit(99);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGTERM,
		      "status %#x", status);
	/* the old log whole, and no temporary file beside it */
	assert_file(path, "old\n", 4);
	ck_assert_int_eq(dir_entries(tmpdir, &dots), 1);
	ck_assert_int_eq(dots, 0);
}
END_TEST

/* ---- logfile_append: JSON lines ---- */

static int append(const char *path, const char *text, size_t times, char *err, size_t errlen)
{
	struct gen_ctx g = { text, strlen(text), times, 0 };

	err[0] = '\0';
	return logfile_append(path, gen_text, &g, err, errlen);
}

START_TEST(test_append)
{
	char path[PATH_MAX], err[256];
	struct stat st, before;
	int dots;

	path_in(path, tmpdir, "memtrace.jsonl");
	ck_assert_int_eq(append(path, "{\"n\":1}\n", 1, err, sizeof(err)), 0);
	ck_assert_int_eq(lstat(path, &before), 0);
	ck_assert(S_ISREG(before.st_mode));
	ck_assert_uint_eq(before.st_mode & 07777, 0600);
	ck_assert_int_eq(append(path, "{\"n\":2}\n", 1, err, sizeof(err)), 0);
	ck_assert_int_eq(append(path, "{\"n\":3}\n", 1, err, sizeof(err)), 0);
	assert_file(path, "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n", 24);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(st.st_ino == before.st_ino);	/* the same file: a shipper's tail goes on */
	/* a file that was there keeps what it had and its mode */
	path_in(path, tmpdir, "old.jsonl");
	put_file(path, "{\"old\":true}\n");
	ck_assert_int_eq(append(path, "{\"new\":true}\n", 1, err, sizeof(err)), 0);
	assert_file(path, "{\"old\":true}\n{\"new\":true}\n", 26);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0644);
	/* more than the output buffer in one append */
	ck_assert_int_eq(append(path, "0123456789abcdef", 4096, err, sizeof(err)), 0);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert_int_eq(st.st_size, 26 + 16 * 4096);
	ck_assert_int_eq(dir_entries(tmpdir, &dots), 2);
	ck_assert_int_eq(dots, 0);
}
END_TEST

START_TEST(test_append_refuses)
{
	char path[PATH_MAX], target[PATH_MAX], err[256];
	struct stat st;
	int rfd;

	/* a symlink: refused, the target untouched (also a dangling one: nothing created) */
	path_in(target, tmpdir, "precious");
	path_in(path, tmpdir, "a.jsonl");
	put_file(target, "precious\n");
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert_int_eq(append(path, "x\n", 1, err, sizeof(err)), -ELOOP);
	ck_assert_ptr_nonnull(strstr(err, "symlink"));
	assert_file(target, "precious\n", 9);
	path_in(path, tmpdir, "b.jsonl");
	path_in(target, tmpdir, "nowhere");
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert_int_eq(append(path, "x\n", 1, err, sizeof(err)), -ELOOP);
	ck_assert_int_eq(lstat(target, &st), -1);
	/* a FIFO, with no reader and with one: refused at once, never opened */
	path_in(path, tmpdir, "fifo");
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(append(path, "x\n", 1, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
	rfd = open(path, O_RDONLY | O_NONBLOCK);
	ck_assert(rfd >= 0);
	ck_assert_int_eq(append(path, "x\n", 1, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
	close(rfd);
	/* a file others may write to, or with another name: not ours alone, untouched */
	path_in(path, tmpdir, "groupw.jsonl");
	put_file(path, "theirs\n");
	ck_assert_int_eq(chmod(path, 0664), 0);
	ck_assert_int_eq(append(path, "x\n", 1, err, sizeof(err)), -EPERM);
	ck_assert_ptr_nonnull(strstr(err, "writable by its group or others"));
	assert_file(path, "theirs\n", 7);
	path_in(target, tmpdir, "precious");
	path_in(path, tmpdir, "hard.jsonl");
	ck_assert_int_eq(link(target, path), 0);
	ck_assert_int_eq(append(path, "x\n", 1, err, sizeof(err)), -EPERM);
	ck_assert_ptr_nonnull(strstr(err, "hard link"));
	assert_file(target, "precious\n", 9);
	/* another user's file (as root: one made ours, then given away) */
	if (geteuid() == 0) {
		path_in(path, tmpdir, "nobody.jsonl");
		put_file(path, "theirs\n");
		ck_assert_int_eq(chown(path, 65534, 65534), 0);
		ck_assert_int_eq(append(path, "x\n", 1, err, sizeof(err)), -EPERM);
		ck_assert_ptr_nonnull(strstr(err, "belongs to uid 65534"));
		assert_file(path, "theirs\n", 7);
	}
	/* a directory, a missing directory, an empty path */
	ck_assert_int_eq(append(tmpdir, "x\n", 1, err, sizeof(err)), -EISDIR);
	path_in(path, tmpdir, "missing/x.jsonl");
	ck_assert_int_eq(append(path, "x\n", 1, err, sizeof(err)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "x.jsonl"));
	ck_assert_int_eq(append("", "x\n", 1, err, sizeof(err)), -EINVAL);
}
END_TEST

/* ---- file systems that refuse: a read-only and a full tmpfs ---- */

static char mnt_ro[PATH_MAX], mnt_full[PATH_MAX];
static char mnt_ro_err[128], mnt_full_err[128];

static void mount_one(char *dir, const char *opts, unsigned long flags, char *why)
{
	snprintf(dir, PATH_MAX, "/tmp/memtrace-mnt-XXXXXX");
	why[0] = '\0';
	if (!mkdtemp(dir)) {
		snprintf(why, 128, "mkdtemp: %s", strerror(errno));
		dir[0] = '\0';
		return;
	}
	if (mount("tmpfs", dir, "tmpfs", flags, opts)) {
		snprintf(why, 128, "mount tmpfs %s: %s", opts, strerror(errno));
		rmdir(dir);
		dir[0] = '\0';
	}
}

static void unmount_one(char *dir)
{
	if (!dir[0])
		return;
	if (umount2(dir, MNT_DETACH))
		fprintf(stderr, "umount %s: %s\n", dir, strerror(errno));
	rmdir(dir);
	dir[0] = '\0';
}

/* unchecked: runs in the runner process, so the teardown happens even after a failure */
static void mounts_setup(void)
{
	mount_one(mnt_ro, "size=64k,mode=0755", MS_RDONLY, mnt_ro_err);
	mount_one(mnt_full, "size=64k,mode=0755", 0, mnt_full_err);
}

static void mounts_teardown(void)
{
	unmount_one(mnt_ro);
	unmount_one(mnt_full);
}

START_TEST(test_readonly_dir)
{
	char path[PATH_MAX], err[256];
	int dots;

	if (!mnt_ro[0]) {
		fprintf(stderr, "test_readonly_dir skipped: %s\n", mnt_ro_err);
		return;
	}
	path_in(path, mnt_ro, "memtrace.log");
	/* found before any write as the write finds it */
	ck_assert_int_eq(logfile_check(path, false, err, sizeof(err)), -EROFS);
	ck_assert_ptr_nonnull(strstr(err, mnt_ro));
	ck_assert_int_eq(write_log(path, "x\n", 1, err, sizeof(err)), -EROFS);
	ck_assert_uint_gt(strlen(err), 0);
	ck_assert_ptr_nonnull(strstr(err, mnt_ro));
	ck_assert_int_eq(dir_entries(mnt_ro, &dots), 0);
}
END_TEST

START_TEST(test_full_fs)
{
	char path[PATH_MAX], err[256];
	static const char good[] = "the good log\n";
	struct stat st;
	int dots;

	if (!mnt_full[0]) {
		fprintf(stderr, "test_full_fs skipped: %s\n", mnt_full_err);
		return;
	}
	path_in(path, mnt_full, "memtrace.log");
	ck_assert_int_eq(write_log(path, good, 1, err, sizeof(err)), 0);
	assert_file(path, good, sizeof(good) - 1);
	ck_assert_int_eq(stat(path, &st), 0);
	/* 256 KiB into 64 KiB */
	ck_assert_int_eq(write_log(path, "0123456789abcdef", 16384, err, sizeof(err)), -ENOSPC);
	ck_assert_uint_gt(strlen(err), 0);
	ck_assert_ptr_nonnull(strstr(err, "memtrace.log"));
	assert_file(path, good, sizeof(good) - 1);
	ck_assert_int_eq(dir_entries(mnt_full, &dots), 1);
	ck_assert_int_eq(dots, 0);
	/* the space came back: a fitting report still works afterwards */
	ck_assert_int_eq(write_log(path, "fits\n", 100, err, sizeof(err)), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, 500);
	ck_assert_int_eq(dir_entries(mnt_full, &dots), 1);
}
END_TEST

/* A line that does not fit is taken back whole: no torn line for the reader. */
START_TEST(test_append_full_fs)
{
	char path[PATH_MAX], err[256];
	static const char line[] = "{\"a\":1}\n";
	struct stat st;

	if (!mnt_full[0]) {
		fprintf(stderr, "test_append_full_fs skipped: %s\n", mnt_full_err);
		return;
	}
	path_in(path, mnt_full, "memtrace.jsonl");
	ck_assert_int_eq(append(path, line, 1, err, sizeof(err)), 0);
	ck_assert_int_eq(append(path, "0123456789abcdef", 16384, err, sizeof(err)), -ENOSPC);
	ck_assert_ptr_nonnull(strstr(err, "memtrace.jsonl"));
	assert_file(path, line, sizeof(line) - 1);
	ck_assert_int_eq(append(path, line, 1, err, sizeof(err)), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, 2 * (sizeof(line) - 1));
	ck_assert_int_eq(unlink(path), 0);
}
END_TEST

Suite *suite_logfile(void)
{
	Suite *s = suite_create("logfile");
	TCase *tc = tcase_create("out");

	tcase_add_test(tc, test_out_big_write);
	tcase_add_test(tc, test_out_exact_buffer);
	tcase_add_test(tc, test_out_mem);
	tcase_add_test(tc, test_out_small_pieces);
	tcase_add_test(tc, test_out_printf_long);
	tcase_add_test(tc, test_out_error_sticks);
	tcase_add_test(tc, test_out_error_on_flush);
	suite_add_tcase(s, tc);

	tc = tcase_create("logfile_write");
	tcase_add_checked_fixture(tc, tmpdir_setup, tmpdir_teardown);
	tcase_add_test(tc, test_create);
	tcase_add_test(tc, test_create_empty_and_big);
	tcase_add_test(tc, test_replace);
	tcase_add_test(tc, test_replace_atomic_for_readers);
	tcase_add_test(tc, test_symlink_not_followed);
	tcase_add_test(tc, test_symlink_relative_and_dangling);
	tcase_add_test(tc, test_missing_dir);
	tcase_add_test(tc, test_dir_at_path);
	tcase_add_test(tc, test_special_at_path);
	tcase_add_test(tc, test_empty_path);
	tcase_add_test(tc, test_relative_path);
	tcase_add_test(tc, test_check);
	tcase_add_test(tc, test_replace_mode);
	tcase_add_test(tc, test_second_term_while_written);
	tcase_add_test(tc, test_link_not_ours);
	tcase_add_test(tc, test_append);
	tcase_add_test(tc, test_append_refuses);
	suite_add_tcase(s, tc);

	tc = tcase_create("refusing_fs");
	tcase_add_unchecked_fixture(tc, mounts_setup, mounts_teardown);
	tcase_add_test(tc, test_readonly_dir);
	tcase_add_test(tc, test_full_fs);
	tcase_add_test(tc, test_append_full_fs);
	suite_add_tcase(s, tc);
	return s;
}
