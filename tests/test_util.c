// SPDX-License-Identifier: GPL-2.0-only
/* test_util.c - util.c: the CPUs of a per_cpu directory, and its readdir() errors */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "util.h"

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

Suite *suite_util(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("cpu_dirs");

	tcase_add_checked_fixture(tc, test_root_setup, test_root_teardown);
	tcase_add_test(tc, test_cpu_dirs_sorted);
	tcase_add_test(tc, test_cpu_dirs_missing);
	tcase_add_test(tc, test_cpu_dirs_readdir_error);
	tcase_add_test(tc, test_cpu_dirs_empty);
	suite_add_tcase(s, tc);
	return s;
}
