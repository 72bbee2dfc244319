// SPDX-License-Identifier: GPL-2.0-only
/* forker.c - many short processes, one after another, for the task-storm test */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * forker N
 * Forks N children one after another; each touches one page and exits at
 * once; the parent waits for each. Exits 0 if all N ran.
 *
 * forker exec PROG [ARGS...]
 * Forks one child that touches 1 MiB before it execs PROG (events of the
 * forker's program in the child: "pre_exec"); waits for it, exits with its
 * status.
 */
static int fork_exec(char **argv)
{
	pid_t p = fork();
	int st;

	if (p < 0) {
		perror("fork");
		return 1;
	}
	if (p == 0) {
		char *m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		size_t i;

		if (m == MAP_FAILED)
			_exit(1);
		madvise(m, 1 << 20, MADV_NOHUGEPAGE);
		for (i = 0; i < 1 << 20; i += 4096)
			m[i] = 1;
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(p, &st, 0) != p || !WIFEXITED(st))
		return 1;
	return WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
	long n, i;
	char *end;

	if (argc >= 3 && !strcmp(argv[1], "exec"))
		return fork_exec(argv + 2);

	if (argc != 2 || (n = strtol(argv[1], &end, 10)) < 1 || *end) {
		fprintf(stderr, "usage: forker N | exec PROG [ARGS...]\n");
		return 1;
	}
	for (i = 0; i < n; i++) {
		pid_t p = fork();
		int st;

		if (p < 0) {
			perror("fork");
			return 1;
		}
		if (p == 0) {
			static char page[4096];

			page[0] = 1;
			_exit(page[0] - 1);
		}
		if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "forker: child %ld failed\n", i);
			return 1;
		}
	}
	return 0;
}
