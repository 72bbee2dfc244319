// SPDX-License-Identifier: GPL-2.0-only
/*
 * sleepers.c - many tasks alive at once, asleep, for the seeding benchmark (bench/tasks.sh)
 *
 * usage: sleepers PROCS THREADS READY_FILE
 * Forks PROCS processes of THREADS tasks each (the main thread and THREADS - 1 more, with
 * small stacks), all asleep; creates READY_FILE when every one is up and prints how many
 * tasks it made; on SIGTERM or SIGINT ends them all and exits 0. A process that cannot be
 * made (pid_max, threads-max, memory) ends the making there: it says so and goes on with
 * those made.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* A child: its threads, then one byte (their count made, up to 255) to the parent. */
static void child(long threads, int w)
{
	pthread_attr_t at;
	unsigned char made = 1;
	long i;

	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 64 * 1024);
	for (i = 1; i < threads; i++) {
		pthread_t t;

		if (pthread_create(&t, &at, sleeper, NULL))
			break;
		made++;
	}
	if (write(w, &made, 1) != 1)
		_exit(1);
	close(w);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	long procs, threads, i, made = 0, tasks = 0;
	pid_t *pids;
	sigset_t set;
	int p[2], sig, fd;

	if (argc != 4 || (procs = strtol(argv[1], NULL, 10)) < 1 ||
	    (threads = strtol(argv[2], NULL, 10)) < 1 || threads > 255) {
		fprintf(stderr, "usage: sleepers PROCS THREADS(1..255) READY_FILE\n");
		return 2;
	}
	pids = calloc((size_t)procs, sizeof(*pids));
	if (!pids || pipe(p))
		return 1;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (i = 0; i < procs; i++) {
		pid_t c = fork();

		if (c < 0) {
			fprintf(stderr, "sleepers: fork %ld of %ld: %s; going on with those made\n",
				i + 1, procs, strerror(errno));
			break;
		}
		if (c == 0) {
			close(p[0]);
			child(threads, p[1]);
		}
		pids[made++] = c;
	}
	close(p[1]);
	for (i = 0; i < made; i++) {
		unsigned char n;

		if (read(p[0], &n, 1) != 1)
			break;
		tasks += n;
	}
	printf("sleepers: %ld processes, %ld tasks\n", made, tasks);
	fflush(stdout);
	fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0)
		close(fd);
	sigwait(&set, &sig);
	for (i = 0; i < made; i++)
		kill(pids[i], SIGKILL);
	for (i = 0; i < made; i++)
		waitpid(pids[i], NULL, 0);
	return 0;
}
