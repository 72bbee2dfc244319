// SPDX-License-Identifier: GPL-2.0-only
/* unit_main.c - runs every Check suite; exit status is non-zero on any failure */
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"

const char *fixtures_dir = "tests/fixtures";

char *read_fixture(const char *rel, size_t *len)
{
	char path[4096];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", fixtures_dir, rel);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "fixture %s missing", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

int main(void)
{
	Suite *(*const all[])(void) = {
		suite_ringbuf, suite_format, suite_event, suite_stats, suite_module,
		suite_reader, suite_report, suite_logfile, suite_proc, suite_record,
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
