// SPDX-License-Identifier: GPL-2.0-only
/* test_util.c - util.c: the CPUs of a per_cpu directory, and its readdir() errors; err.c; scan.c against sscanf */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "lib/scan.h"
#include "lib/util.h"

START_TEST(test_cpu_dirs_sorted)
{
	int *ids, n;

	test_root_file("per_cpu/cpu10/trace_pipe_raw", "", 0);
	test_root_file("per_cpu/cpu0/trace_pipe_raw", "", 0);
	test_root_file("per_cpu/cpu2/trace_pipe_raw", "", 0);
	test_root_file("per_cpu/cpuX/trace_pipe_raw", "", 0);
	test_root_file("per_cpu/notes", "", 0);
	{
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s/per_cpu", test_root);
		n = cpu_dirs(p, &ids);
	}
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(ids[0], 0);
	ck_assert_int_eq(ids[1], 2);
	ck_assert_int_eq(ids[2], 10);
	free(ids);
}
END_TEST

START_TEST(test_cpu_dirs_missing)
{
	char p[PATH_MAX];
	int *ids = (int *)1;

	snprintf(p, sizeof(p), "%s/none", test_root);
	ck_assert_int_eq(cpu_dirs(p, &ids), -ENOENT);
	ck_assert_ptr_null(ids);
}
END_TEST

/*
 * A readdir() error is an error, not the end of the list (before, this was
 * 0 CPUs). The stream's descriptor made a non-directory underneath: getdents
 * then fails with ENOTDIR, as it fails with EOVERFLOW or EIO elsewhere. (A
 * directory removed after opendir() does not do: glibc reports its ENOENT as
 * the end.)
 */
START_TEST(test_cpu_dirs_readdir_error)
{
	char p[PATH_MAX];
	int *ids = (int *)1, fd;
	DIR *d;

	test_root_file("per_cpu/cpu0/trace_pipe_raw", "", 0);
	snprintf(p, sizeof(p), "%s/per_cpu", test_root);
	d = opendir(p);
	ck_assert_ptr_nonnull(d);
	fd = open("/dev/null", O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(dup2(fd, dirfd(d)), dirfd(d));
	close(fd);
	ck_assert_int_eq(cpu_dirs_read(d, &ids), -ENOTDIR);
	ck_assert_ptr_null(ids);
	closedir(d);
}
END_TEST

/* an empty directory is 0 CPUs without an error (the caller says what that means) */
START_TEST(test_cpu_dirs_empty)
{
	char p[PATH_MAX];
	int *ids;

	snprintf(p, sizeof(p), "%s/empty", test_root);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	ck_assert_int_eq(cpu_dirs(p, &ids), 0);
	free(ids);
}
END_TEST

/*
 * open_beneath(@dfd, "p/q/file") by another user than root, where p may be
 * searched but not read (0711): openat2() opens it, as open() would; the walk
 * opens p to read it, EACCES. What it returned, from a child (root: -EPERM).
 */
static int beneath_as_nobody(int dfd)
{
	int st;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (!pid) {
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(EPERM);
		fd = open_beneath(dfd, "p/q/file", O_RDONLY, 0);
		_exit(fd >= 0 ? 0 : -fd);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	return -WEXITSTATUS(st);
}

/* Whether openat2() (Linux 5.6) is here: not under qemu-user 7.2, say. */
static bool openat2_here(int dfd)
{
	struct {
		uint64_t flags, mode, resolve;
	} how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC };
	long fd = syscall(437 /* SYS_openat2 */, dfd, ".", &how, sizeof(how));

	if (fd < 0)
		return false;
	close((int)fd);
	return true;
}

/* the names of @in's IN_OPEN events so far, whether @name is among them */
static bool opened(int in, const char *name)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool seen = false;
	ssize_t n;

	while ((n = read(in, buf, sizeof(buf))) > 0) {
		ssize_t off = 0;

		while (off < n) {
			const struct inotify_event *ev = (const void *)(buf + off);

			if (ev->len && !strcmp(ev->name, name))
				seen = true;
			off += (ssize_t)(sizeof(*ev) + ev->len);
		}
	}
	return seen;
}

/*
 * open_beneath(@dfd, "@dir/@name") of a FIFO: EINVAL, and the FIFO never
 * opened (inotify's IN_OPEN on @dir, which does see the regular "file" there
 * opened next)
 */
static void fifo_not_opened(int dfd, const char *dir, const char *name)
{
	char p[PATH_MAX], rel[PATH_MAX];
	int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC), fd;

	ck_assert_int_ge(in, 0);
	snprintf(p, sizeof(p), "%s/rec/%s", test_root, dir);
	ck_assert_int_ge(inotify_add_watch(in, p, IN_OPEN), 0);
	snprintf(rel, sizeof(rel), "%s/%s", dir, name);
	ck_assert_int_eq(open_beneath(dfd, rel, O_RDONLY, 0), -EINVAL);
	ck_assert_msg(!opened(in, name), "%s was opened", rel);
	snprintf(rel, sizeof(rel), "%s/file", dir);
	fd = open_beneath(dfd, rel, O_RDONLY, 0);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert(opened(in, "file"));
	close(in);
}

/*
 * Below a directory fd: no symlink at any component, no FIFO, no "..": made
 * with O_CREAT. Twice: in one openat2() where the kernel has it (Linux 5.6),
 * and walked a component at a time (older kernels, sandboxes that refuse it).
 */
START_TEST(test_open_beneath)
{
	char p[PATH_MAX], buf[16];
	int dfd, fd;

	open_beneath_walk(_i);
	test_root_file("rec/a/b/file", "xyz", 3);
	snprintf(p, sizeof(p), "%s/rec", test_root);
	dfd = open(p, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(dfd, 0);
	fd = open_beneath(dfd, "a/b/file", O_RDONLY, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, buf, sizeof(buf)), 3);
	ck_assert_int_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);	/* cleared after the check */
	close(fd);
	/* the stat of what was opened, as fstat() of the fd says it */
	{
		struct stat st, dst;

		fd = open_beneath_stat(dfd, "a/b/file", O_RDONLY, 0, &st);
		ck_assert_int_ge(fd, 0);
		ck_assert(S_ISREG(st.st_mode));
		ck_assert_int_eq(st.st_size, 3);
		ck_assert_int_eq(fstat(dfd, &dst), 0);
		ck_assert(st.st_dev == dst.st_dev);
		ck_assert_int_eq(fstat(fd, &dst), 0);
		ck_assert(st.st_ino == dst.st_ino);
		close(fd);
	}
	/* a symlinked directory on the way, or as the file: ELOOP, nothing opened */
	snprintf(p, sizeof(p), "%s/rec/a", test_root);
	ck_assert_int_eq(symlinkat(p, dfd, "link"), 0);
	ck_assert_int_eq(open_beneath(dfd, "link/b/file", O_RDONLY, 0), -ELOOP);
	ck_assert_int_eq(open_beneath(dfd, "link", O_RDONLY | O_DIRECTORY, 0), -ELOOP);
	snprintf(p, sizeof(p), "%s/rec/a/b/file", test_root);
	ck_assert_int_eq(symlinkat(p, dfd, "flink"), 0);
	ck_assert_int_eq(open_beneath(dfd, "flink", O_RDONLY, 0), -ELOOP);
	ck_assert_int_eq(open_beneath(dfd, "flink", O_WRONLY | O_CREAT | O_TRUNC, 0644), -ELOOP);
	/* a FIFO: EINVAL at once, for reading and for writing (no reader: no wait) */
	ck_assert_int_eq(mkfifoat(dfd, "fifo", 0644), 0);
	ck_assert_int_eq(open_beneath(dfd, "fifo", O_RDONLY, 0), -EINVAL);
	ck_assert_int_eq(open_beneath(dfd, "fifo", O_WRONLY | O_CREAT | O_TRUNC, 0644), -EINVAL);
	/* ... and below directories: the FIFO not even opened */
	ck_assert_int_eq(mkfifoat(dfd, "a/b/fifo", 0644), 0);
	fifo_not_opened(dfd, "a/b", "fifo");
	/* the file itself a symlink below directories, to a file beneath even */
	ck_assert_int_eq(symlinkat("file", dfd, "a/b/flink"), 0);
	ck_assert_int_eq(open_beneath(dfd, "a/b/flink", O_RDONLY, 0), -ELOOP);
	/* no way up */
	ck_assert_int_eq(open_beneath(dfd, "../rec/a/b/file", O_RDONLY, 0), -EINVAL);
	ck_assert_int_eq(open_beneath(dfd, "a//b/file", O_RDONLY, 0), -EINVAL);
	ck_assert_int_eq(open_beneath(dfd, "a/./b/file", O_RDONLY, 0), -EINVAL);
	/* O_CREAT makes the directories on the way */
	fd = open_beneath(dfd, "new/dir/file", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(p, sizeof(p), "%s/rec/new/dir/file", test_root);
	ck_assert_int_eq(access(p, F_OK), 0);
	ck_assert_int_eq(open_beneath(dfd, "missing/file", O_RDONLY, 0), -ENOENT);
	/* a directory where a file is asked for, a file where a directory is */
	ck_assert_int_eq(open_beneath(dfd, "a/b", O_RDONLY, 0), -EINVAL);
	ck_assert_int_eq(open_beneath(dfd, "a/b/file/x", O_RDONLY, 0), -ENOTDIR);
	/* the last directory on the way a symlink (to one beneath, even) */
	ck_assert_int_eq(symlinkat("b", dfd, "a/blink"), 0);
	ck_assert_int_eq(open_beneath(dfd, "a/blink/file", O_RDONLY, 0), -ELOOP);
	/*
	 * openat2() was taken where the kernel has it: the one case where the
	 * two ways differ (a directory on the way searched, not read) as the
	 * walk would not have said it
	 */
	if (!geteuid()) {
		ck_assert_int_eq(mkdirat(dfd, "p", 0711), 0);
		ck_assert_int_eq(fchmodat(dfd, "p", 0711, 0), 0);	/* not the umask's */
		ck_assert_int_eq(mkdirat(dfd, "p/q", 0755), 0);
		test_root_file("rec/p/q/file", "xyz", 3);
		ck_assert_int_eq(fchmodat(dfd, "p/q/file", 0644, 0), 0);
		ck_assert_int_eq(beneath_as_nobody(dfd), !_i && openat2_here(dfd) ? 0 : -EACCES);
	}
	open_beneath_walk(false);
	close(dfd);
}
END_TEST

START_TEST(test_open_regular)
{
	char p[PATH_MAX], q[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/fifo", test_root);
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	ck_assert_int_eq(open_regular(p, O_WRONLY | O_CREAT | O_TRUNC, 0644), -EINVAL);
	ck_assert_int_eq(open_regular(p, O_RDONLY, 0), -EINVAL);
	/* write_file(): no wait for a reader (ENXIO), nor a write with one (EINVAL) */
	fd = write_file(p, "1");
	ck_assert(fd == -ENXIO || fd == -EINVAL);
	snprintf(q, sizeof(q), "%s/link", test_root);
	ck_assert_int_eq(symlink(p, q), 0);
	ck_assert_int_eq(open_regular(q, O_RDONLY, 0), -ELOOP);
	/* a regular file: emptied only after the check */
	test_root_file("pid", "1234\n", 5);
	snprintf(p, sizeof(p), "%s/pid", test_root);
	fd = open_regular(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	{
		struct stat st;

		ck_assert_int_eq(stat(p, &st), 0);
		ck_assert_int_eq(st.st_size, 0);
	}
}
END_TEST

/* A file read whole whatever its size; over the limit is EFBIG, never a cut. */
START_TEST(test_read_fd_alloc)
{
	static char big[3 << 20];
	char p[PATH_MAX], *b;
	int fd;

	memset(big, 'x', sizeof(big));
	test_root_file("big", big, sizeof(big));
	snprintf(p, sizeof(p), "%s/big", test_root);
	fd = open(p, O_RDONLY);
	ck_assert_int_eq(read_fd_alloc(fd, &b, 1u << 30), (ssize_t)sizeof(big));
	ck_assert_int_eq(b[sizeof(big)], '\0');
	ck_assert_int_eq(b[sizeof(big) - 1], 'x');
	free(b);
	lseek(fd, 0, SEEK_SET);
	ck_assert_int_eq(read_fd_alloc(fd, &b, sizeof(big) - 1), -EFBIG);
	ck_assert_ptr_null(b);
	lseek(fd, 0, SEEK_SET);
	ck_assert_int_eq(read_fd_alloc(fd, &b, sizeof(big)), (ssize_t)sizeof(big));
	free(b);
	close(fd);
}
END_TEST

/* read_lines(): the collected pieces of its callback, and how many there were */
struct pieces {
	char text[256];
	size_t len;
	int n;
	bool whole;	/* every piece but the last ended with a newline */
};

static void collect(void *ctx, const char *text, size_t len)
{
	struct pieces *p = ctx;

	if (p->n && p->text[p->len - 1] != '\n')
		p->whole = false;
	ck_assert_uint_le(p->len + len, sizeof(p->text));
	memcpy(p->text + p->len, text, len);
	p->len += len;
	p->n++;
}

/* Whole lines through a small buffer, the unterminated end last, a line too long dropped. */
START_TEST(test_read_lines)
{
	static const char file[] = "one\ntwo two\nthree three three\n0123456789012345\nend";
	struct pieces p = { .whole = true };
	char path[PATH_MAX], buf[16];

	test_root_file("lines", file, sizeof(file) - 1);
	snprintf(path, sizeof(path), "%s/lines", test_root);
	ck_assert_int_eq(read_lines(path, buf, sizeof(buf), collect, &p), 0);
	p.text[p.len] = '\0';
	/* "three three three\n" (18) and "0123456789012345\n" (17) do not fit 16 bytes */
	ck_assert_str_eq(p.text, "one\ntwo two\nend");
	ck_assert(p.whole);
	ck_assert_int_ge(p.n, 2);
	snprintf(path, sizeof(path), "%s/none", test_root);
	ck_assert_int_eq(read_lines(path, buf, sizeof(buf), collect, &p), -ENOENT);
}
END_TEST

/*
 * The one helper that options.c, tracefs.c, logfile.c and format.c report
 * failures through: the message as formatted, cut to the buffer, the caller's
 * code returned, errno as it was (logfile.c returns -errno through it).
 */
START_TEST(test_err_fmt)
{
	char err[16];

	errno = ENOSPC;
	ck_assert_int_eq(err_fmt(-errno, err, sizeof(err), "writing %s: %s", "x", "full"), -ENOSPC);
	ck_assert_str_eq(err, "writing x: full");
	ck_assert_int_eq(errno, ENOSPC);
	ck_assert_int_eq(err_fmt(2, err, sizeof(err), "%s", "a longer message than fits"), 2);
	ck_assert_str_eq(err, "a longer messag");
	ck_assert_int_eq(err_fmt(-1, NULL, 0, "no buffer %d", 1), -1);
	strcpy(err, "kept");
	ck_assert_int_eq(err_fmt(-1, err, 0, "not written"), -1);
	ck_assert_str_eq(err, "kept");
	ck_assert_int_eq(errno, ENOSPC);
}
END_TEST


/*
 * scan() against glibc's sscanf, the oracle: each format memtrace reads with it,
 * on good and hostile lines; the same count and the same values stored.
 */
START_TEST(test_scan_as_sscanf)
{
	static const char *const u1[] = {
		"page_size 4096", "page_size  4096x", "page_size -1", "page_size", "page_size x",
		"page_size 18446744073709551616", "page_sizes 1", "page_size4096", "page_size +7",
		"", "page_size\t12\n",
	};
	static const char *const u3[] = {
		"mem_start 1 2 3", "mem_start 1 2", "mem_start 1 x 3", "mem_start 1 2 3 4",
		"mem_start  1  2   3junk", "mem_start",
	};
	static const char *const wn[] = {
		"module_range zram 1 2 3", "module_range zram 1 2", "module_range  a  -1 2 3",
		"module_range 0123456789012345678901234567890123456789012345678901234 1 2 3",
		"module_range 01234567890123456789012345678901234567890123456789012345678 2 3",
		"module_range", "module_range z 1 2 3x",
	};
	static const char *const seeds[] = {
		"seed 1 1 0 0 12 5 626173", "seed -1 1 0 0 12 5 -", "seed 1 1 0 1 0 0 -",
		"seed 1 1 0 99999999999 12 5 -", "seed 1 1 0 0 12 5", "seed 1 1 0 0 12 5 "
		"0123456789abcdef0123456789abcdef01", "seed 9223372036854775808 1 0 0 1 1 x",
	};
	static const char *const mounts[] = {
		"tracefs /sys/kernel/tracing tracefs rw,nosuid 0 0", "none /x", "a b c",
		"proc /proc proc rw 0 0\n",
	};
	static const char *const js[] = { "8:123", "8:123x", "8:", ":5", "8:9:10", "18446744073709551615:0" };
	unsigned long long a, b, c, x, y, z;
	long long l1, l2, l3, m1, m2, m3;
	char w[56], v[56], k[34], q[34], d1[256], d2[4096], d3[64], e1[256], e2[4096], e3[64], ch, ch2;
	int n, i1, i2;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(u1); i++) {
		a = x = 77;
		n = sscanf(u1[i], "page_size %llu", &x);
		ck_assert_int_eq(scan(u1[i], "page_size %llu", &a), n < 0 ? 0 : n);
		ck_assert_msg(a == x, "'%s': %llu, sscanf %llu", u1[i], a, x);
	}
	for (i = 0; i < ARRAY_SIZE(u3); i++) {
		a = b = c = x = y = z = 77;
		n = sscanf(u3[i], "mem_start %llu %llu %llu", &x, &y, &z);
		ck_assert_int_eq(scan(u3[i], "mem_start %llu %llu %llu", &a, &b, &c), n < 0 ? 0 : n);
		ck_assert_msg(a == x && b == y && c == z, "'%s'", u3[i]);
	}
	for (i = 0; i < ARRAY_SIZE(wn); i++) {
		a = b = c = x = y = z = 77;
		w[0] = v[0] = '\0';
		n = sscanf(wn[i], "module_range %55s %llu %llu %llu", v, &x, &y, &z);
		ck_assert_int_eq(scan(wn[i], "module_range %55s %llu %llu %llu", w, &a, &b, &c),
				 n < 0 ? 0 : n);
		ck_assert_msg(!strcmp(w, v) && a == x && b == y && c == z, "'%s'", wn[i]);
	}
	for (i = 0; i < ARRAY_SIZE(seeds); i++) {
		l1 = l2 = l3 = m1 = m2 = m3 = 7;
		i1 = i2 = 7;
		a = b = x = y = 7;
		k[0] = q[0] = '\0';
		n = sscanf(seeds[i], "seed %lld %lld %lld %d %llu %llu %33s", &m1, &m2, &m3, &i2,
			   &x, &y, q);
		/* glibc's %d of 99999999999 is no int: scan() stops there, sscanf cuts it */
		if (i == 3) {
			ck_assert_int_eq(scan(seeds[i], "seed %lld %lld %lld %d %llu %llu %33s", &l1,
					      &l2, &l3, &i1, &a, &b, k), 3);
			continue;
		}
		ck_assert_int_eq(scan(seeds[i], "seed %lld %lld %lld %d %llu %llu %33s", &l1, &l2,
				      &l3, &i1, &a, &b, k), n < 0 ? 0 : n);
		ck_assert_msg(l1 == m1 && l2 == m2 && l3 == m3 && i1 == i2 && a == x && b == y &&
			      !strcmp(k, q), "'%s'", seeds[i]);
	}
	for (i = 0; i < ARRAY_SIZE(mounts); i++) {
		d1[0] = d2[0] = d3[0] = e1[0] = e2[0] = e3[0] = '\0';
		n = sscanf(mounts[i], "%255s %4095s %63s", e1, e2, e3);
		ck_assert_int_eq(scan(mounts[i], "%255s %4095s %63s", d1, d2, d3), n < 0 ? 0 : n);
		ck_assert(!strcmp(d1, e1) && !strcmp(d2, e2) && !strcmp(d3, e3));
	}
	for (i = 0; i < ARRAY_SIZE(js); i++) {
		a = b = x = y = 7;
		ch = ch2 = '?';
		n = sscanf(js[i], "%llu:%llu%c", &x, &y, &ch2);
		ck_assert_int_eq(scan(js[i], "%llu:%llu%c", &a, &b, &ch), n < 0 ? 0 : n);
		ck_assert_msg(a == x && b == y && ch == ch2, "'%s'", js[i]);
	}
}
END_TEST

/* %lf: a plain decimal word only (memtrace.meta's "uptime %.3f"), read as strtod reads it */
START_TEST(test_scan_decimal)
{
	static const char *const good[] = {
		"uptime 12345.678", "uptime 0.000", "uptime 99.5", "uptime -5", "uptime .5",
		"uptime 5.", "uptime 252.104 ", "uptime 86399.999",
	};
	static const char *const bad[] = {
		"uptime 1e13", "uptime nan", "uptime inf", "uptime .", "uptime -", "uptime 5x",
		"uptime 0x10", "uptime", "uptime 1.5.6",
	};
	char a[32], b[32];
	double d;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		d = -1;
		ck_assert_int_eq(scan(good[i], "uptime %lf", &d), 1);
		/* as a report prints it */
		snprintf(a, sizeof(a), "%.3f", d);
		snprintf(b, sizeof(b), "%.3f", strtod(good[i] + 7, NULL));
		ck_assert_str_eq(a, b);
		ck_assert(fabs(d - strtod(good[i] + 7, NULL)) <= 1e-9 * fabs(d));
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		ck_assert_msg(scan(bad[i], "uptime %lf", &d) == 0, "'%s' read", bad[i]);
}
END_TEST

Suite *suite_util(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("cpu_dirs");

	tcase_add_checked_fixture(tc, test_root_setup, test_root_teardown);
	tcase_add_test(tc, test_cpu_dirs_sorted);
	tcase_add_test(tc, test_cpu_dirs_missing);
	tcase_add_test(tc, test_cpu_dirs_readdir_error);
	tcase_add_test(tc, test_cpu_dirs_empty);
	tcase_add_loop_test(tc, test_open_beneath, 0, 2);
	tcase_add_test(tc, test_open_regular);
	tcase_add_test(tc, test_read_fd_alloc);
	tcase_add_test(tc, test_err_fmt);
	tcase_add_test(tc, test_read_lines);
	suite_add_tcase(s, tc);
	tc = tcase_create("scan");
	tcase_add_test(tc, test_scan_as_sscanf);
	tcase_add_test(tc, test_scan_decimal);
	suite_add_tcase(s, tc);
	return s;
}
