// SPDX-License-Identifier: GPL-2.0-only
/* forker.c - many short processes, one after another, for the task-storm test */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * forker N
 * Forks N children one after another; each touches one page and exits at
 * once; the parent waits for each. Exits 0 if all N ran.
 */
int main(int argc, char **argv)
{
	long n, i;
	char *end;

	if (argc != 2 || (n = strtol(argv[1], &end, 10)) < 1 || *end) {
		fprintf(stderr, "usage: forker N\n");
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
