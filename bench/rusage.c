// SPDX-License-Identifier: GPL-2.0-only
/*
 * rusage.c - run a command and print its peak RSS and CPU time, as time(1) -v would.
 *
 * usage: rusage OUTFILE COMMAND [ARGS...]
 * Writes "maxrss_kib K cpu_s C status S" to OUTFILE when COMMAND ends; forwards SIGTERM
 * and SIGINT to it. ru_maxrss of a child includes the resident set of whatever forked
 * it (the kernel keeps the old mm's high-water mark at exec), so a benchmark run from a
 * large parent (python) measures through this small one instead.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t child;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = forward };
	struct rusage ru;
	sigset_t block, old;
	int status;
	FILE *out;

	if (argc < 3) {
		fprintf(stderr, "usage: rusage OUTFILE COMMAND [ARGS...]\n");
		return 2;
	}
	/* a TERM/INT before the child exists waits until it does, then goes to it */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	child = fork();
	if (child < 0) {
		perror("rusage: fork");
		return 1;
	}
	if (child == 0) {
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		execvp(argv[2], argv + 2);
		perror("rusage: exec");
		_exit(127);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	while (wait4(child, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("rusage: wait4");
			return 1;
		}
	}
	out = fopen(argv[1], "w");
	if (!out) {
		perror("rusage: output");
		return 1;
	}
	fprintf(out, "maxrss_kib %ld cpu_s %.6f status %d\n", ru.ru_maxrss,
		(double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		(double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
		WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	fclose(out);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
